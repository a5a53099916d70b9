//! Text as skill-benchmark 0.6.0 reads and compares it (Python 3.11):
//! `read_text(errors="replace")` with universal newlines, `str.lower()`,
//! `str.isspace()` and what is built on them.

use super::tables::{LOWER_PINNED, PY_SPACE};

/// Is `cp` in a sorted table of inclusive ranges?
pub fn in_table(table: &[(u32, u32)], cp: u32) -> bool {
    table
        .binary_search_by(|(lo, hi)| {
            if *hi < cp {
                std::cmp::Ordering::Less
            } else if *lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `Path.read_text(encoding="utf-8", errors="replace")`: lossy UTF-8 (the
/// same maximal-subpart replacement as Python), then universal newlines
/// (`\r\n` and a lone `\r` become `\n`). A byte-order mark is kept.
pub fn decode(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if !text.contains('\r') {
        return text.into_owned();
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Python 3.11's `str.lower()`: Rust's full lowercasing (Final_Sigma
/// included) except for the code points that gained a lowercase mapping
/// after Unicode 14, which Python leaves as they are.
pub fn py_lower(s: &str) -> String {
    if !s.chars().any(|c| in_table(LOWER_PINNED, c as u32)) {
        return s.to_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    let mut run = String::new();
    for c in s.chars() {
        if in_table(LOWER_PINNED, c as u32) {
            out.push_str(&run.to_lowercase());
            run.clear();
            out.push(c);
        } else {
            run.push(c);
        }
    }
    out.push_str(&run.to_lowercase());
    out
}

/// `str.isspace()` for one character: Rust's whitespace plus U+001C..U+001F.
pub fn is_py_space(c: char) -> bool {
    in_table(PY_SPACE, c as u32)
}

/// `str.strip()`.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// `str.lstrip()`.
pub fn py_lstrip(s: &str) -> &str {
    s.trim_start_matches(is_py_space)
}

/// `" ".join(s.split())`.
pub fn py_collapse_whitespace(s: &str) -> String {
    s.split(is_py_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn universal_newlines_and_replacement() {
        assert_eq!(decode(b"a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(decode(b"\xef\xbb\xbfhi"), "\u{feff}hi", "a BOM is kept");
        assert_eq!(decode(b"a\xffb"), "a\u{fffd}b");
    }

    #[test]
    fn lower_like_python_3_11() {
        assert_eq!(py_lower("ΟΔΟΣ"), "οδος", "final sigma");
        assert_eq!(py_lower("İ"), "i\u{307}");
        // U+A7CB gained a lowercase mapping in Unicode 16; Python 3.11 keeps it.
        assert_eq!(py_lower("\u{a7cb}A"), "\u{a7cb}a");
    }

    #[test]
    fn python_whitespace() {
        assert!(is_py_space('\u{1c}') && is_py_space('\u{85}') && !is_py_space('\u{200b}'));
        assert_eq!(py_strip("\u{1f} x \n"), "x");
        assert_eq!(py_collapse_whitespace(" a \u{1d} b\n"), "a b");
    }
}
