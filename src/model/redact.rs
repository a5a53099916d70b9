//! Secrets never reach the store: bearer tokens, API keys, private-key
//! blocks, password=/secret= assignments and the values of sensitive JSON
//! keys are replaced by [REDACTED] in every text value before it is written.
//! Nor a message: `connection_text` takes passwords out of connection strings
//! and URLs (and the values the environment holds as secrets) in anything
//! liftdb prints about a store or its storage.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};

pub const MARK: &str = "[REDACTED]";

struct Rules {
    any: RegexSet,
    rules: Vec<(Regex, &'static str)>,
}

const PATTERNS: &[(&str, &str)] = &[
    // Word boundaries are ASCII ones, `(?-u:\b)`: a Unicode boundary sends
    // the regex engines to their slowest (PikeVM) on any non-ASCII text,
    // which made redaction a tenth of an ingest's CPU; the tokens are ASCII,
    // and an ASCII boundary matches wherever a Unicode one does around them
    // (it only also matches beside a non-ASCII letter), so nothing more leaks.
    // Private key blocks, whole.
    (
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        "[REDACTED]",
    ),
    // Authorization headers and bearer tokens.
    (
        r"(?i)(?-u:\b)bearer\s+[A-Za-z0-9\-._~+/]{8,}=*",
        "Bearer [REDACTED]",
    ),
    // Provider API keys: OpenAI/Anthropic style, AWS access keys, GitHub and Slack tokens.
    (r"(?-u:\b)sk-(?:ant-)?[A-Za-z0-9_\-]{16,}", "[REDACTED]"),
    (r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)", "[REDACTED]"),
    (r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{30,}(?-u:\b)", "[REDACTED]"),
    (r"(?-u:\b)xox[baprs]-[A-Za-z0-9\-]{10,}", "[REDACTED]"),
    // Values of sensitive keys in JSON text: "api_key": "…".
    (
        r#"(?i)("[^"]*(?:password|passwd|secret|token|api[_-]?key|authorization|private[_-]?key|access[_-]?key)[^"]*"\s*:\s*)"(?:[^"\\]|\\.)*""#,
        r#"${1}"[REDACTED]""#,
    ),
    // password=… / secret: … assignments in free text.
    (
        r#"(?i)(?-u:\b)(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)(\s*[=:]\s*)[^\s'"&,;)\]}]+"#,
        "${1}${2}[REDACTED]",
    ),
];

fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| Rules {
        any: RegexSet::new(PATTERNS.iter().map(|(p, _)| *p)).expect("redaction patterns compile"),
        rules: PATTERNS
            .iter()
            .map(|(p, r)| (Regex::new(p).expect("redaction pattern compiles"), *r))
            .collect(),
    })
}

/// The text with every secret replaced; borrowed when there was none.
pub fn redact(text: &str) -> Cow<'_, str> {
    let r = rules();
    // Most text holds no secret: a yes/no answer stops at the first match,
    // where the set of every pattern matching scans the whole text.
    if !r.any.is_match(text) {
        return Cow::Borrowed(text);
    }
    let hits = r.any.matches(text);
    let mut out = text.to_string();
    for i in hits.iter() {
        let (re, replacement) = &r.rules[i];
        out = re.replace_all(&out, *replacement).into_owned();
    }
    Cow::Owned(out)
}

/// What a printed password becomes.
pub const HIDDEN: &str = "***";

/// Environment variables whose values are secrets wherever they appear.
const SECRET_VARIABLES: &[&str] = &["PGPASSWORD", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"];

fn connection_rules() -> &'static [(Regex, &'static str)] {
    static RULES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    RULES.get_or_init(|| {
        [
            // libpq's keyword form, a quoted value included: password='a b\'c';
            // punctuation after the value is the message's (`password=***: …`).
            (
                r"(?i)(?-u:\b)(password|passwd|pgpassword)(\s*=\s*)(?:'(?:[^'\\]|\\.)*'?|[^\s'&\x22]*[^\s'&\x22:;,.)])",
                "${1}${2}***",
            ),
            // A URL's userinfo (postgresql://user:pw@host, http://key:secret@host).
            (r"(?i)(?-u:\b)([a-z][a-z0-9+.\-]*://)[^/@\s'\x22]+@", "${1}***@"),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(p).expect("connection pattern compiles"), r))
        .collect()
    })
}

/// `text` (a connection string, a URL, or a message quoting them, DuckDB's
/// own included) with every password removed: libpq's `password=` values,
/// URL userinfo, and the values of PGPASSWORD and the AWS secret variables.
pub fn connection_text(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for (re, replacement) in connection_rules() {
        if re.is_match(&out) {
            out = Cow::Owned(re.replace_all(&out, *replacement).into_owned());
        }
    }
    for var in SECRET_VARIABLES {
        if let Some(value) = std::env::var(var).ok().filter(|v| v.len() >= 3) {
            if out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), HIDDEN));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{connection_text, redact};

    #[test]
    fn connection_strings_lose_their_passwords_and_keep_the_rest() {
        for (text, want) in [
            (
                "ducklake:postgres:dbname=lake host=db port=5432 user=ci password=hunter2",
                "ducklake:postgres:dbname=lake host=db port=5432 user=ci password=***",
            ),
            (
                "dbname=lake password = 'a b\\'c' host=db",
                "dbname=lake password = *** host=db",
            ),
            (
                "ducklake:postgres:postgresql://ci:hunter2@db:5432/lake?sslmode=require",
                "ducklake:postgres:postgresql://***@db:5432/lake?sslmode=require",
            ),
            (
                "postgresql://db/lake?user=ci&password=hunter2&sslmode=require",
                "postgresql://db/lake?user=ci&password=***&sslmode=require",
            ),
            (
                "Could not connect to 'http://AKIA:s3cret@127.0.0.1:9/b/'",
                "Could not connect to 'http://***@127.0.0.1:9/b/'",
            ),
            (
                "ducklake:postgres:dbname=lake host=127.0.0.1",
                "ducklake:postgres:dbname=lake host=127.0.0.1",
            ),
            // DuckDB quotes the settings it failed with.
            (
                "Unable to connect to Postgres at \"dbname=x password=hunter2\": refused",
                "Unable to connect to Postgres at \"dbname=x password=***\": refused",
            ),
            // Already hidden: the text after it is kept.
            (
                "lake dbname=x password=***: gave up",
                "lake dbname=x password=***: gave up",
            ),
        ] {
            assert_eq!(connection_text(text), want, "{text}");
        }
    }

    #[test]
    fn planted_secrets_are_replaced() {
        let cases = [
            (
                "Authorization: Bearer abcdefghijklmnop.qrs",
                "abcdefghijklmnop",
            ),
            (
                "key sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAA here",
                "sk-ant-api03",
            ),
            ("aws AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"),
            (
                "gh ghp_0123456789abcdefghijklmnopqrstuvwxyz",
                "ghp_0123456789",
            ),
            ("conn password=hunter2 ok", "hunter2"),
            ("SECRET: s3cr3t-value", "s3cr3t-value"),
            (r#"{"api_key": "live-123", "model": "x"}"#, "live-123"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
                "MIIB",
            ),
        ];
        for (text, secret) in cases {
            let out = redact(text);
            assert!(!out.contains(secret), "{text} -> {out}");
            assert!(out.contains("[REDACTED]"), "{text} -> {out}");
        }
    }

    #[test]
    fn secrets_beside_non_ascii_text_are_replaced() {
        // The boundaries are ASCII ones (for speed); beside a non-ASCII
        // letter they match where a Unicode boundary would not, never less.
        for (text, secret) in [
            ("clé: sk-ant-api03-BBBBBBBBBBBBBBBBBBBBBBBB", "BBBBBBBBBBBB"),
            ("→AKIAABCDEFGHIJKLMNOP←", "AKIAABCDEFGHIJKLMNOP"),
            ("éAKIAABCDEFGHIJKLMNOPé", "AKIAABCDEFGHIJKLMNOP"),
            ("mot de passe — password=hunter2 ✓", "hunter2"),
            ("Ünïcode Bearer abcdefghijklmnop.qrs", "abcdefghijklmnop"),
        ] {
            let out = redact(text);
            assert!(!out.contains(secret), "{text} -> {out}");
        }
    }

    #[test]
    fn secrets_spelled_with_unicode_case_folds_or_token_keys_are_replaced() {
        // The case-blind patterns fold case by Unicode: the long s and the
        // Kelvin sign are an s and a k to them.
        for (text, secret) in [
            ("paſſword=hunter2", "hunter2"),
            ("client_ſecret: s3cr3t-value", "s3cr3t-value"),
            ("{\"api_\u{212A}ey\": \"live-123\"}", "live-123"),
            ("{\"session_to\u{212A}en\": \"abc-123\"}", "abc-123"),
            (
                r#"{"refresh_token":"rt-456", "input_tokens": 12}"#,
                "rt-456",
            ),
            ("AUTH-TOKEN = t0k3n", "t0k3n"),
        ] {
            let out = redact(text);
            assert!(!out.contains(secret), "{text} -> {out}");
        }
    }

    #[test]
    fn ordinary_text_is_untouched() {
        for text in [
            "Severity: Blocking — add the column nullable",
            r#"{"total_tokens": 1600}"#,
            "tokens used: 1200",
        ] {
            assert_eq!(redact(text), text);
        }
    }
}
