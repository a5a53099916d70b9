//! JSON values as Python sees them after `json.loads`: `str()`, `repr()`,
//! truthiness and `==` (where `0 == 0.0 == False` and `1 == True`).

use serde_json::Value;

pub use crate::json::truthy;

/// How Python prints nan, ±inf and ±0 (`zero` is "0.0" for repr, "0" for "g").
pub fn non_finite_or_zero(x: f64, zero: &str) -> Option<String> {
    if x.is_nan() {
        Some("nan".into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else if x == 0.0 {
        Some(if x.is_sign_negative() {
            format!("-{zero}")
        } else {
            zero.to_string()
        })
    } else {
        None
    }
}

/// Python's `repr(float)`: the shortest round-trip digits, in exponent form
/// below 1e-4 and from 1e16 (`1e+16`, `1e-05`), else with a `.0`.
pub fn float_repr(x: f64) -> String {
    if let Some(special) = non_finite_or_zero(x, "0.0") {
        return special;
    }
    // `{:e}` gives the shortest round-trip digits: "1.5e-7", "1e16".
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let (head, tail) = digits.split_at(1);
        let mantissa = if tail.is_empty() {
            head.to_string()
        } else {
            format!("{head}.{tail}")
        };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exp.abs())
    }
}

fn number_text(n: &serde_json::Number) -> String {
    match (n.as_i64(), n.as_u64(), n.as_f64()) {
        (Some(i), _, _) => i.to_string(),
        (_, Some(u), _) => u.to_string(),
        (_, _, Some(f)) => float_repr(f),
        _ => n.to_string(),
    }
}

/// Python's `repr(str)`: single quotes unless the text has `'` and no `"`;
/// `\\`, `\n`, `\r`, `\t` and non-printable characters escaped.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// An approximation of `str.isprintable` for one character: not a control,
/// separator other than space, or format character.
fn is_printable(c: char) -> bool {
    let cp = c as u32;
    if c == ' ' {
        return true;
    }
    !(c.is_control()
        || c.is_whitespace()
        || (0xD800..=0xDFFF).contains(&cp)
        || matches!(cp, 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
            | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
            | 0xE0001 | 0xE0020..=0xE007F))
}

/// `repr()` of a JSON value as Python holds it.
pub fn repr(v: &Value) -> String {
    match v {
        Value::String(s) => str_repr(s),
        other => str_of(other),
    }
}

/// `str()` of a JSON value as Python holds it: `1.0`, `True`, `None`,
/// `[1, 'a']`, `{'a': 1}`.
pub fn str_of(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => number_text(n),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(repr).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", str_repr(k), repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A number as Python compares it: bools are 0 and 1.
fn numeric(v: &Value) -> Option<NumberValue> {
    match v {
        Value::Bool(b) => Some(NumberValue::Int(i128::from(*b))),
        Value::Number(n) => n
            .as_i64()
            .map(|i| NumberValue::Int(i128::from(i)))
            .or_else(|| n.as_u64().map(|u| NumberValue::Int(i128::from(u))))
            .or_else(|| n.as_f64().map(NumberValue::Float)),
        _ => None,
    }
}

enum NumberValue {
    Int(i128),
    Float(f64),
}

/// Python `==` between an int and a float is exact (2**53 + 1 != 2.0**53).
fn int_eq_float(i: i128, f: f64) -> bool {
    f.is_finite() && f.fract() == 0.0 && f.abs() < 1.8e38 && (f as i128) == i
}

/// Python `==` of two JSON values.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (numeric(a), numeric(b)) {
        return match (x, y) {
            (NumberValue::Int(i), NumberValue::Int(j)) => i == j,
            (NumberValue::Float(f), NumberValue::Float(g)) => f == g,
            (NumberValue::Int(i), NumberValue::Float(f))
            | (NumberValue::Float(f), NumberValue::Int(i)) => int_eq_float(i, f),
        };
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => false,
    }
}

/// A Python list of strings as `str()` prints it.
pub(super) fn list_repr(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| str_repr(s))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Python's `format(x, "g")`: six significant digits, fixed notation for
/// exponents -4..6, else scientific with a two-digit exponent; trailing
/// zeros dropped.
pub(super) fn py_g(x: f64) -> String {
    if let Some(special) = non_finite_or_zero(x, "0") {
        return special;
    }
    // Correctly rounded to six significant digits, as Python rounds.
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        match s.contains('.') {
            true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
            false => s.to_string(),
        }
    };
    if (-4..6).contains(&exp) {
        let decimals = (5 - exp).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_print_as_python_repr() {
        for (x, want) in [
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (123.456, "123.456"),
            (1.5e-7, "1.5e-07"),
            (0.1 + 0.2, "0.30000000000000004"),
            (-2.5, "-2.5"),
            (1234567890123456.0, "1234567890123456.0"),
        ] {
            assert_eq!(float_repr(x), want, "{x}");
        }
    }

    #[test]
    fn str_and_repr_like_python() {
        assert_eq!(str_of(&json!(1)), "1");
        assert_eq!(str_of(&json!(true)), "True");
        assert_eq!(str_of(&json!(null)), "None");
        assert_eq!(str_of(&json!([1, "a"])), "[1, 'a']");
        assert_eq!(str_of(&json!({"a": 1})), "{'a': 1}");
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a\nb"), "'a\\nb'");
    }

    #[test]
    fn equality_like_python() {
        assert!(py_eq(&json!(0), &json!(false)));
        assert!(py_eq(&json!(1), &json!(1.0)));
        assert!(py_eq(&json!({"a": 1}), &json!({"a": 1.0})));
        assert!(!py_eq(
            &json!(9007199254740993u64),
            &json!(9007199254740992.0)
        ));
        assert!(!py_eq(&json!("1"), &json!(1)));
        assert!(truthy(Some(&json!("false"))) && !truthy(Some(&json!(0))));
    }
}
