//! `structured_output` (docs/grading.md §4.8): the first JSON object in the
//! answer (or a named file), checked against the harness's JSON-Schema
//! subset (`json_schema_errors`) with its exact error strings.

use serde_json::Value;

use super::pyvalue::{py_eq, repr, str_of};

/// `extract_json_object`: the first `{` or `[` from which a JSON value
/// decodes to an object, or a list whose first element is an object.
/// Err when a candidate holds NaN/Infinity, which Python decodes and
/// serde_json does not: the verdict could differ.
pub fn extract_json_object(text: &str) -> Result<Option<Value>, String> {
    for (i, ch) in text.char_indices() {
        if ch != '{' && ch != '[' {
            continue;
        }
        let rest = &text[i..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(o))) => return Ok(Some(Value::Object(o))),
            Some(Ok(Value::Array(items))) if items.first().is_some_and(Value::is_object) => {
                return Ok(items.into_iter().next())
            }
            Some(Ok(_)) => {}
            Some(Err(_)) if rest.contains("NaN") || rest.contains("Infinity") => {
                return Err(
                    "the answer's JSON holds NaN or Infinity, which liftdb does not decode as Python does"
                        .into(),
                )
            }
            _ => {}
        }
    }
    Ok(None)
}

/// `type(v).__name__` of a decoded JSON value.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) => "float",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => type_name(v) == "int",
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

/// `isinstance(x, int)` (a bool counts) as a number.
fn py_int(v: Option<&Value>) -> Option<i128> {
    match v? {
        Value::Bool(b) => Some(i128::from(*b)),
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from)),
        _ => None,
    }
}

/// `json_schema_errors`: Err where the harness would stop with a TypeError
/// or AttributeError instead of listing errors.
pub fn schema_errors(
    instance: &Value,
    schema: &serde_json::Map<String, Value>,
    path: &str,
) -> Result<Vec<String>, String> {
    let crash = |what: &str| {
        Err(format!(
            "the schema's {what} makes skill-benchmark stop with a TypeError"
        ))
    };
    let mut errors = Vec::new();
    if let Some(c) = schema.get("const") {
        if !py_eq(instance, c) {
            errors.push(format!(
                "{path}: expected const {}, got {}",
                repr(c),
                repr(instance)
            ));
        }
    }
    if let Some(e) = schema.get("enum") {
        let Value::Array(options) = e else {
            return crash("non-list enum");
        };
        if !options.iter().any(|o| py_eq(instance, o)) {
            errors.push(format!(
                "{path}: {} not in enum {}",
                repr(instance),
                repr(e)
            ));
        }
    }
    if let Some(t) = schema
        .get("type")
        .filter(|t| super::pyvalue::truthy(Some(t)))
    {
        let allowed: Vec<&Value> = match t {
            Value::Array(list) => list.iter().collect(),
            other => vec![other],
        };
        if allowed.iter().any(|a| a.is_array() || a.is_object()) {
            return crash("unhashable type name");
        }
        if !allowed
            .iter()
            .any(|a| a.as_str().is_some_and(|name| type_matches(name, instance)))
        {
            errors.push(format!(
                "{path}: expected type {}, got {}",
                str_of(t),
                type_name(instance)
            ));
            return Ok(errors);
        }
    }
    if let Value::Object(obj) = instance {
        let props = match schema.get("properties") {
            Some(Value::Object(p)) => Some(p),
            Some(p) if super::pyvalue::truthy(Some(p)) => return crash("non-object properties"),
            _ => None,
        };
        let required: Vec<Value> = match schema.get("required") {
            None => Vec::new(),
            Some(Value::Array(keys)) => keys.clone(),
            Some(Value::String(s)) => s.chars().map(|c| Value::String(c.into())).collect(),
            Some(Value::Object(o)) => o.keys().map(|k| Value::String(k.clone())).collect(),
            Some(_) => return crash("non-iterable required"),
        };
        for key in &required {
            match key {
                Value::String(k) if obj.contains_key(k) => {}
                Value::Array(_) | Value::Object(_) => return crash("unhashable required key"),
                _ => errors.push(format!("{path}: missing required key {}", repr(key))),
            }
        }
        if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
            let mut extras: Vec<&String> = obj
                .keys()
                .filter(|k| !props.is_some_and(|p| p.contains_key(*k)))
                .collect();
            extras.sort();
            for k in extras {
                errors.push(format!(
                    "{path}: unexpected key {}",
                    repr(&Value::String(k.clone()))
                ));
            }
        }
        for (key, sub) in props.into_iter().flatten() {
            if let (Some(v), Value::Object(sub)) = (obj.get(key), sub) {
                errors.extend(schema_errors(v, sub, &format!("{path}.{key}"))?);
            }
        }
    }
    if let Value::Array(items) = instance {
        let n = items.len() as i128;
        if let Some(min) = py_int(schema.get("minItems")).filter(|m| n < *m) {
            errors.push(format!("{path}: {n} items < minItems {min}"));
        }
        if let Some(max) = py_int(schema.get("maxItems")).filter(|m| n > *m) {
            errors.push(format!("{path}: {n} items > maxItems {max}"));
        }
        if let Some(Value::Object(sub)) = schema.get("items") {
            for (i, element) in items.iter().enumerate() {
                errors.extend(schema_errors(element, sub, &format!("{path}[{i}]"))?);
            }
        }
    }
    Ok(errors)
}
