//! A lake's data in object storage (`--data-path s3://BUCKET/PREFIX/`), with
//! the credentials and endpoint CI systems already set: `AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` (or
//! `AWS_DEFAULT_REGION`), and `AWS_ENDPOINT_URL` for an S3-compatible server.
//! The credentials reach DuckDB through the aws extension's credential chain
//! reading those variables itself: liftdb never puts them in SQL, the lake,
//! a message or an error.

use duckdb::Connection;

use crate::error::StorageProblem as Problem;
use crate::{Error, Result};

/// The secret's name in DuckDB (in memory only, never persisted).
const SECRET: &str = "liftdb_object_storage";

/// Whether `path` is in object storage rather than on a filesystem.
pub fn is_remote(path: &str) -> bool {
    ["s3://", "s3a://", "s3n://"]
        .iter()
        .any(|scheme| path.starts_with(scheme))
}

/// Where the S3 API is reached, from `AWS_ENDPOINT_URL`: host[:port], TLS or
/// not; path-style URLs for any server but AWS's own (MinIO, R2, a local
/// server have no per-bucket host names).
#[derive(Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub tls: bool,
    /// The URL carried `user:password@` (never used: S3 signs with the
    /// AWS_* keys; dropped so no request or message carries it).
    pub had_userinfo: bool,
}

impl Endpoint {
    pub fn parse(url: &str) -> Result<Endpoint> {
        let url = url.trim().trim_end_matches('/');
        let (tls, host) = match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
            (Some(host), _) => (true, host),
            (None, Some(host)) => (false, host),
            (None, None) => (true, url),
        };
        let (had_userinfo, host) = match host.rsplit_once('@') {
            Some((_, host)) => (true, host),
            None => (false, host),
        };
        if host.is_empty() || host.contains('/') {
            let shown = crate::model::redact::connection_text(url);
            return Err(Error::Invalid(format!(
                "AWS_ENDPOINT_URL {shown:?} is not an endpoint: give the server's address, e.g. http://127.0.0.1:9000 or https://ACCOUNT.r2.cloudflarestorage.com"
            )));
        }
        Ok(Endpoint {
            host: host.to_string(),
            tls,
            had_userinfo,
        })
    }
}

/// The region the variables name, AWS's default otherwise.
fn region() -> String {
    ["AWS_REGION", "AWS_DEFAULT_REGION"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|r| !r.is_empty()))
        .unwrap_or_else(|| "us-east-1".into())
}

/// Load httpfs and aws and create the in-memory secret that reads the
/// credentials from the environment. Said plainly when no credentials are
/// set (the chain finds none).
pub fn connect(conn: &Connection, extension_dir: Option<&std::path::Path>) -> Result<()> {
    super::extensions::load(conn, extension_dir, &["httpfs", "aws"])?;
    let mut options = vec![
        "TYPE s3".to_string(),
        "PROVIDER credential_chain".into(),
        "CHAIN 'env'".into(),
        format!("REGION {}", super::literal::quoted(&region())),
    ];
    if let Some(url) = std::env::var("AWS_ENDPOINT_URL")
        .ok()
        .filter(|u| !u.is_empty())
    {
        let endpoint = Endpoint::parse(&url)?;
        if endpoint.had_userinfo {
            eprintln!(
                "liftdb: AWS_ENDPOINT_URL carries credentials in its address (***@{}); they are not used: requests are signed with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
                endpoint.host
            );
        }
        options.push(format!(
            "ENDPOINT {}",
            super::literal::quoted(&endpoint.host)
        ));
        options.push("URL_STYLE 'path'".into());
        options.push(format!("USE_SSL {}", endpoint.tls));
    }
    conn.execute_batch(&format!(
        "CREATE OR REPLACE SECRET {SECRET} ({});",
        options.join(", ")
    ))
    .map_err(|e| {
        let text = crate::error::duckdb_text(&e);
        match text.contains("Secret Validation Failure") {
            true => Error::ObjectStorage {
                url: String::new(),
                problem: Problem::NoCredentials,
                detail: String::new(),
            },
            false => Error::Db(e),
        }
    })?;
    Ok(())
}

/// Ask the storage for a listing under `data_path`: it reaches the endpoint,
/// checks the credentials and the bucket, and writes nothing. Done before a
/// new lake is created, so a lake is never made over storage it cannot use.
pub fn probe(conn: &Connection, data_path: &str) -> Result<()> {
    let listing = format!("{}*", data_path.trim_end_matches('/').to_string() + "/");
    conn.query_row("SELECT count(*) FROM glob(?)", [&listing], |r| {
        r.get::<_, i64>(0)
    })
    .map(|_| ())
    .map_err(|e| refusal(data_path, e))
}

/// A failure of object storage in liftdb's words: which of credentials,
/// bucket or endpoint, with the storage's own first line (no secret: the
/// storage never echoes one, and redaction removes any that slipped in).
pub fn refusal(data_path: &str, e: duckdb::Error) -> Error {
    let text = crate::error::duckdb_text(&e);
    let problem = classify(&text);
    if problem == Problem::Other && !text.contains("HTTP") {
        return Error::Db(e);
    }
    let storage_says = text
        .lines()
        .map(str::trim)
        .find(|l| {
            l.contains("Error:")
                || l.contains("NoSuch")
                || l.contains("InvalidAccessKeyId")
                || l.contains("SignatureDoesNotMatch")
                || l.contains("AccessDenied")
        })
        .unwrap_or_else(|| text.lines().next().unwrap_or_default());
    Error::ObjectStorage {
        url: data_path.to_string(),
        problem,
        detail: without_secrets(storage_says),
    }
}

/// Which problem DuckDB's text describes.
pub fn classify(text: &str) -> Problem {
    if text.contains("Secret Validation Failure") {
        Problem::NoCredentials
    } else if [
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "AccessDenied",
        "403",
        "ExpiredToken",
        "InvalidToken",
    ]
    .iter()
    .any(|m| text.contains(m))
    {
        Problem::Credentials
    } else if text.contains("NoSuchBucket") {
        Problem::Bucket
    } else if text.contains("Could not connect")
        || text.contains("Could not resolve")
        || text.contains("Connection refused")
        || text.contains("Timeout")
    {
        Problem::Endpoint
    } else {
        Problem::Other
    }
}

/// `text` with any credential value from the environment taken out, then
/// redacted as every stored text is.
fn without_secrets(text: &str) -> String {
    let mut clean = text.to_string();
    for var in ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] {
        if let Some(value) = std::env::var(var).ok().filter(|v| v.len() >= 4) {
            clean = clean.replace(&value, "[REDACTED]");
        }
    }
    crate::model::redact::redact(&clean).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_url_gives_host_and_tls() {
        assert_eq!(
            Endpoint::parse("http://127.0.0.1:9000/").unwrap(),
            Endpoint {
                host: "127.0.0.1:9000".into(),
                tls: false,
                had_userinfo: false
            }
        );
        assert_eq!(
            Endpoint::parse("http://key:s3cret@127.0.0.1:9000").unwrap(),
            Endpoint {
                host: "127.0.0.1:9000".into(),
                tls: false,
                had_userinfo: true
            }
        );
        assert_eq!(
            Endpoint::parse("https://acct.r2.cloudflarestorage.com").unwrap(),
            Endpoint {
                host: "acct.r2.cloudflarestorage.com".into(),
                tls: true,
                had_userinfo: false
            }
        );
        assert!(Endpoint::parse("http://host/path").is_err());
    }

    /// DuckDB's texts for each failure (recorded from httpfs 1.5.5 against a
    /// local S3-compatible server) name the right problem.
    #[test]
    fn storage_failures_are_told_apart() {
        let said = [
            ("HTTP Error: HTTP GET error reading 's3://b/p' in region 'us-east-1' (HTTP 403 Forbidden)\n\nSignatureDoesNotMatch: The request signature we calculated does not match", Problem::Credentials),
            ("HTTP Error: HTTP GET error reading 's3://b/p' in region 'us-east-1' (HTTP 403 Forbidden)\n\nInvalidAccessKeyId: The AWS Access Key Id you provided does not exist", Problem::Credentials),
            ("HTTP Error: HTTP GET error reading 's3://nobucket/p' in region 'us-east-1' (HTTP 404 Not Found)\n\nNoSuchBucket: The specified bucket does not exist", Problem::Bucket),
            ("IO Error: Could not connect to server error for HTTP GET to 'http://127.0.0.1:59999/b/?list-type=2'", Problem::Endpoint),
            ("Secret Validation Failure: during `create` using the following:\nCredential Chain: 'env'", Problem::NoCredentials),
        ];
        for (text, problem) in said {
            assert_eq!(classify(text), problem, "{text}");
        }
    }
}
