//! A manifest's trigger case as skill-eval-harness's trigger runners
//! (`skill-trigger-matrix`, `skill-pi-trigger-eval`) ask it, and the folder
//! label they make of its query (docs/harnesses.md §C.12).

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use crate::json::Get;

/// A manifest trigger case as the trigger runners ask it.
#[derive(Debug, Clone)]
pub struct TriggerQuery {
    pub case_id: String,
    pub query: String,
    pub should_trigger: bool,
    /// The query's folder label (`safe_trace_label`).
    label: String,
}

impl TriggerQuery {
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The trigger case as the harness's runners read it: the query from its
    /// prompt (the real user prompt out of a meta-classification prompt),
    /// should-fire unless its expected behaviour or patterns negate it.
    pub fn from_case(case_id: &str, case: &Value) -> TriggerQuery {
        let prompt = case
            .str_at("prompt")
            .filter(|p| !p.is_empty())
            .or(case.str_at("scenario").filter(|s| !s.is_empty()))
            .unwrap_or(case_id);
        static USER_PROMPT: OnceLock<Regex> = OnceLock::new();
        let user_prompt = USER_PROMPT.get_or_init(|| {
            Regex::new(r"(?is)User prompt:\s*(.*?)(?:\n\s*\n\s*Return exactly|$)").unwrap()
        });
        let query = match user_prompt.captures(prompt) {
            Some(c) => c[1].trim().to_string(),
            None => prompt.to_string(),
        };
        let mut text: Vec<String> = case
            .get("expected_behavior")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(python_str)
            .collect();
        for a in case
            .get("assertions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            text.push(python_str(
                a.get("pattern").or(a.get("value")).unwrap_or(&Value::Null),
            ));
        }
        static NEGATION: OnceLock<Regex> = OnceLock::new();
        let negation =
            NEGATION.get_or_init(|| Regex::new(r"(?i)NO_TRIGGER|not trigger|should not").unwrap());
        TriggerQuery {
            case_id: case_id.to_string(),
            label: safe_trace_label(&query),
            should_trigger: !negation.is_match(&text.join(" ")),
            query,
        }
    }
}

/// Python's `str()` of a JSON value, near enough for the negation markers.
fn python_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The harness's folder label for a query: runs of characters other than
/// ASCII letters, digits, `_`, `.` and `-` become one `-`, cut at 80, `-`
/// trimmed.
pub fn safe_trace_label(text: &str) -> String {
    static UNSAFE: OnceLock<Regex> = OnceLock::new();
    let unsafe_chars = UNSAFE.get_or_init(|| Regex::new(r"[^a-zA-Z0-9_.-]+").unwrap());
    let replaced = unsafe_chars.replace_all(text, "-");
    // All ASCII once replaced: a byte cut is a character cut.
    let cut = &replaced[..replaced.len().min(80)];
    cut.trim_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_harness_labels() {
        // skill-eval-harness 0.6.0 safe_trace_label, as its folders show
        // (tests/fixtures/skill-eval-harness/runs/trigger-traces-*).
        assert_eq!(
            safe_trace_label(
                "Can you review this database migration? It runs ALTER TABLE on orders to add a NOT NULL column."
            ),
            "Can-you-review-this-database-migration-It-runs-ALTER-TABLE-on-orders-to-add-a-NO"
        );
        assert_eq!(safe_trace_label("  ¿Qué?  "), "Qu");
    }

    #[test]
    fn polarity_and_query_as_the_runners_read_a_case() {
        let case = serde_json::json!({
            "prompt": "Trigger decision eval. User prompt: What is 2+2?\n\nReturn exactly TRIGGER or NO_TRIGGER.",
            "expected_behavior": ["The skill must not load (should not fire)."]
        });
        let q = TriggerQuery::from_case("c", &case);
        assert_eq!(
            (q.query.as_str(), q.should_trigger),
            ("What is 2+2?", false)
        );
        let fire = TriggerQuery::from_case("d", &serde_json::json!({"prompt": "Review it"}));
        assert!(fire.should_trigger);
    }
}
