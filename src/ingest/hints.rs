//! The hint shown (and stored) with an ingest error: what to do about it.
//! Derived from the stage and reason so every adapter's errors get one.

pub fn hint(stage: &str, reason: &str) -> Option<&'static str> {
    let r = reason.to_ascii_lowercase();
    let found = |s: &str| r.contains(s);
    Some(match stage {
        "parse" if found("invalid json lines") => {
            "one line of the file is not JSON (often the last, cut short by a killed process); fix or drop that line and ingest again"
        }
        "parse" if found("invalid json") || found("invalid events") => {
            "the file is not complete UTF-8 JSON (cut short by a killed run, or saved in another encoding); re-run the harness step that writes it and ingest again — the rest of the run was kept"
        }
        "parse" if found("expected a json object") => {
            "the harness writes a JSON object here; the file was replaced or edited by hand"
        }
        "parse" if found("is not a list") || found("has the wrong type") => {
            "the file has the tool's shape except for this field (another tool version, or edited by hand); regenerate it with the harness and ingest again"
        }
        "parse" if found("duplicate case id") => {
            "give each case a unique id in the manifest; rows of the first one are kept"
        }
        "parse" if found("has no id") || found("lacks case_id") => {
            "every case and report row needs its case id; the row was skipped"
        }
        "identity" if found("same run identity") => {
            "two directories claim one (case, model, arm, repetition): a hard error for that pair key (formats.md M2); remove one, or ingest the other tree with its own --release"
        }
        "identity" if found("a second row") => {
            "the report lists one run twice; the first row is kept"
        }
        "identity" if found("not an arm") => {
            "name arm folders with_skill, without_skill, old_skill or ablation:<id>, or ingest the folder above the case"
        }
        "read" if found("symbolic link") => {
            "pass the link's target to liftdb ingest as a path of its own to ingest it"
        }
        "read" if found("gzip") => "the .gz file is not gzip data; re-compress or rename it",
        "read" => "check that the file exists and is readable by this user",
        "detect" => "pass --format to say which harness wrote it, or leave the file out",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::hint;

    #[test]
    fn common_errors_have_hints() {
        assert!(hint("parse", "invalid JSON: EOF while parsing").is_some());
        assert!(hint("identity", "same run identity as /x in release 'r'").is_some());
        assert!(hint("read", "cannot read: invalid gzip header")
            .unwrap()
            .contains("gzip"));
        assert_eq!(hint("parse", "something new"), None);
    }
}
