//! Reading JSON the way the harnesses write it: pretty-printed, sometimes
//! gzipped, and (Python's `allow_nan=True`) sometimes with NaN/Infinity
//! tokens or numbers beyond f64 (Python reads 1e400 as inf), which are mapped
//! to null rather than rejected; a UTF-8 byte-order mark is skipped.

pub mod fields;

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::model::errors::ReadError;
use crate::sys::hash::{hex, sha256_hex};

/// What one read may hold: a file read whole, and a `.gz` file inflated.
/// Over either cap the file is an ingest error (the rest is still read), so
/// memory stays bounded whatever the input. Large reports are streamed from
/// disk instead and are not bound by `max_file_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    pub max_file_bytes: u64,
    pub max_inflated_bytes: u64,
}

impl Default for ReadLimits {
    /// 1 GiB per file, 512 MiB inflated (`ingest --max-file-mb`, `--max-inflated-mb`).
    fn default() -> Self {
        ReadLimits {
            max_file_bytes: 1 << 30,
            max_inflated_bytes: 512 << 20,
        }
    }
}

/// Read a file once: its bytes (gunzipped for `*.gz`) and the sha256 of what
/// is on disk (compressed files are hashed as stored). Only regular files
/// are read (a FIFO would block the read forever).
pub fn read_hashed(path: &Path, limits: &ReadLimits) -> Result<(Vec<u8>, String), ReadError> {
    // One open and its fstat, not a stat by path and then an open: the path
    // is looked up once per file (5M files in a big tree). O_NONBLOCK makes
    // opening a FIFO return at once instead of waiting for a writer (and
    // O_NOCTTY keeps a terminal from becoming ours); neither
    // changes anything for the regular files that are read.
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile);
    }
    if meta.len() > limits.max_file_bytes {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            cap: limits.max_file_bytes,
        });
    }
    let mut raw = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut raw)?;
    let sha = sha256_hex(&raw);
    if path.extension().is_some_and(|e| e == "gz") {
        Ok((inflate_capped(&raw, limits.max_inflated_bytes)?, sha))
    } else {
        Ok((raw, sha))
    }
}

/// Gunzip, never holding more than `cap` bytes: the buffer grows by
/// doubling but not past the cap (a doubling past it would touch twice the
/// memory the cap allows), and the inflation stops one block past it.
fn inflate_capped(raw: &[u8], cap: u64) -> Result<Vec<u8>, ReadError> {
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    let mut decoder = flate2::read::GzDecoder::new(raw);
    // gzip's trailer states the inflated size (mod 2^32): one allocation of
    // it (at most the cap) instead of a doubling that copies as it grows.
    let stated = raw
        .len()
        .checked_sub(4)
        .map(|i| u32::from_le_bytes([raw[i], raw[i + 1], raw[i + 2], raw[i + 3]]) as usize)
        .unwrap_or(0);
    let mut out: Vec<u8> = Vec::with_capacity(stated.max(raw.len()).min(cap));
    let mut block = vec![0u8; 1 << 20];
    loop {
        let n = decoder.read(&mut block).map_err(ReadError::NotGzip)?;
        if n == 0 {
            return Ok(out);
        }
        if out.len() + n > cap {
            return Err(ReadError::InflatesPastCap { cap: cap as u64 });
        }
        if out.capacity() - out.len() < n {
            out.reserve_exact(out.len().max(n).min(cap - out.len()));
        }
        out.extend_from_slice(&block[..n]);
    }
}

/// The sha256 of a file read in blocks, for files too large to hold.
pub fn hash_file(path: &Path) -> Result<String, ReadError> {
    use sha2::{Digest, Sha256};
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut block = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut block)?;
        if n == 0 {
            return Ok(hex(&hasher.finalize()));
        }
        hasher.update(&block[..n]);
    }
}

/// Parse JSON leniently: NaN, Infinity, -Infinity and numbers that overflow
/// f64, outside strings, become null.
pub fn parse_lenient(bytes: &[u8]) -> Result<Value, String> {
    parse_lenient_as(bytes)
}

/// [`parse_lenient`] into any type: one that reads a few keys skips the
/// rest of the document, checked as JSON but not built into a tree.
pub fn parse_lenient_as<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    leniently(bytes, |b| serde_json::from_slice(b))
}

/// A whole document as compact JSON text without a tree
/// (`json_fields::compact`), read as leniently as [`parse_lenient`].
pub fn compact_lenient(bytes: &[u8]) -> Result<String, String> {
    leniently(bytes, fields::compact)
}

/// `read` of the text without its byte-order mark, and if that fails, of
/// the text with its non-finite numbers made null.
fn leniently<T>(
    bytes: &[u8],
    read: impl Fn(&[u8]) -> Result<T, serde_json::Error>,
) -> Result<T, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match read(bytes) {
        Ok(v) => Ok(v),
        Err(first) => match replace_non_finite(bytes) {
            Some(cleaned) => read(&cleaned).map_err(|e| e.to_string()),
            None => Err(first.to_string()),
        },
    }
}

/// Returns None when the text holds no such token (so the original error stands).
fn replace_non_finite(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            out.push(b);
            i += 1;
            continue;
        }
        let rest = &bytes[i..];
        let token = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        if let Some(t) = token {
            out.extend_from_slice(b"null");
            i += t.len();
            changed = true;
        } else if b == b'-' || b.is_ascii_digit() {
            let len = rest
                .iter()
                .take_while(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
                .count();
            let number = &rest[..len];
            let overflows = std::str::from_utf8(number)
                .ok()
                .and_then(|n| n.parse::<f64>().ok())
                .is_some_and(f64::is_infinite);
            if overflows {
                out.extend_from_slice(b"null");
                changed = true;
            } else {
                out.extend_from_slice(number);
            }
            i += len.max(1);
        } else {
            out.push(b);
            i += 1;
        }
    }
    changed.then_some(out)
}

/// Parse JSON Lines, skipping blank lines; errors carry the 1-based line number.
pub fn parse_jsonl(bytes: &[u8]) -> Result<Vec<Value>, String> {
    let text = String::from_utf8_lossy(bytes);
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        rows.push(parse_lenient(line.as_bytes()).map_err(|e| format!("line {}: {e}", i + 1))?);
    }
    Ok(rows)
}

/// Small typed accessors over `serde_json::Value` that treat wrong types as absent.
pub trait Get {
    fn obj(&self) -> Option<&Map<String, Value>>;
    fn str_at(&self, key: &str) -> Option<&str>;
    fn f64_at(&self, key: &str) -> Option<f64>;
    fn i64_at(&self, key: &str) -> Option<i64>;
    fn bool_at(&self, key: &str) -> Option<bool>;
    fn at(&self, key: &str) -> Option<&Value>;
}

impl Get for Value {
    fn obj(&self) -> Option<&Map<String, Value>> {
        self.as_object()
    }
    fn at(&self, key: &str) -> Option<&Value> {
        self.get(key).filter(|v| !v.is_null())
    }
    fn str_at(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }
    fn f64_at(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(as_f64)
    }
    fn i64_at(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(as_whole_i64)
    }
    fn bool_at(&self, key: &str) -> Option<bool> {
        self.get(key).and_then(Value::as_bool)
    }
}

/// An integer, or a float with no fraction (Python writes 3.0 for some counts).
pub fn as_whole_i64(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
}

/// Numbers, and numeric strings (Python Decimal amounts are written as strings).
pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// Python truthiness for the flags the harness tests with `if value:`.
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// Compact JSON text for JSON columns; None for absent/null.
pub fn json_text(v: Option<&Value>) -> Option<String> {
    v.filter(|v| !v.is_null()).map(|v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::{parse_lenient, read_hashed, ReadError, ReadLimits};

    /// A FIFO put where a file was found is refused at once: opening it
    /// must not wait for a writer that never comes (the test fails after
    /// ten seconds instead of hanging).
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("metadata.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success(), "mkfifo");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(read_hashed(&fifo, &ReadLimits::default()));
        });
        let read = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("read_hashed returned without a writer on the FIFO");
        assert!(matches!(read, Err(ReadError::NotAFile)), "{read:?}");
    }

    /// A regular file: its bytes and the sha256 of them (sha256 of "abc",
    /// FIPS 180-2 appendix B.1).
    #[test]
    fn a_file_is_read_whole_with_its_sha256() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("output.md");
        std::fs::write(&path, b"abc").unwrap();
        let (bytes, sha) = read_hashed(&path, &ReadLimits::default()).unwrap();
        assert_eq!(bytes, b"abc");
        assert_eq!(
            sha,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn python_style_numbers_become_null() {
        let v = parse_lenient(br#"{"a": NaN, "b": -Infinity, "c": 1e400, "d": -2E+999, "e": 1.5e3, "f": "1e400 NaN"}"#).unwrap();
        assert!(v["a"].is_null() && v["b"].is_null() && v["c"].is_null() && v["d"].is_null());
        assert_eq!(v["e"].as_f64(), Some(1500.0));
        assert_eq!(v["f"], "1e400 NaN");
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        assert_eq!(parse_lenient(b"\xef\xbb\xbf{\"a\": 1}").unwrap()["a"], 1);
    }
}
