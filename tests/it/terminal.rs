//! What an analyst sees on a terminal: tables fitted to its width the way
//! the DuckDB shell fits them, each report's compact columns, the lift
//! sentence. Snapshots (tests/it/snapshots/) at 80 and 120 columns, and
//! beside each the invariants a snapshot alone would not state.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common::{copy_tree, corpus_paths, liftdb_cmd, reference, seh_root};

/// The skill-eval-harness corpus (runs, manifest, the tool's reports),
/// copied to a fixed path so the paths a snapshot shows are the same on
/// every clone.
fn store() -> &'static Path {
    static STORE: OnceLock<PathBuf> = OnceLock::new();
    STORE.get_or_init(|| {
        let root = PathBuf::from("/tmp/liftdb-terminal-snapshots");
        let _ = std::fs::remove_dir_all(&root);
        let tree = root.join("seh");
        copy_tree(&seh_root(), &tree);
        let db = root.join("s.duckdb");
        liftdb_cmd(&db)
            .args(["ingest", "-q"])
            .args(corpus_paths(&tree))
            .assert()
            .success();
        db
    })
}

fn stdout(args: &[&str]) -> String {
    let out = liftdb_cmd(store()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every line fits `width` terminal columns (the box characters are one
/// column each; the corpus is ASCII).
fn assert_fits(what: &str, text: &str, width: usize) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= width,
            "{what}: a line of {} columns at width {width}: {line}",
            line.chars().count()
        );
    }
}

/// The number of columns a query returns, from its CSV header.
fn column_count(sql: &str) -> usize {
    stdout(&["sql", "--format", "csv", sql])
        .lines()
        .next()
        .unwrap()
        .split(',')
        .count()
}

#[test]
fn select_star_from_runs_is_fitted_to_80_and_120_columns() {
    let sql = "SELECT * FROM runs ORDER BY run_id LIMIT 8";
    let total = column_count(sql);
    for width in [80, 120] {
        let text = stdout(&[
            "sql",
            "--format",
            "table",
            "--max-width",
            &width.to_string(),
            sql,
        ]);
        assert_fits("runs", &text, width);
        // The footer counts every column of the result, and what was shown.
        let footer = text.lines().last().unwrap();
        assert!(footer.contains(&format!("{total} columns, ")), "{footer}");
        // A batch id is taken from the clock (19 digits): shown as such.
        insta::with_settings!({filters => vec![(r"\b\d{19}\b", "<batch id: 19 digits>")]}, {
            insta::assert_snapshot!(format!("select_star_from_runs_{width}"), text);
        });
    }
}

#[test]
fn report_lift_starts_with_its_sentence_and_fits() {
    for width in [80, 120] {
        let text = stdout(&[
            "report",
            "lift",
            "--format",
            "table",
            "--max-width",
            &width.to_string(),
        ]);
        // The table fits (the sentence is prose and wraps).
        let table: String = text
            .lines()
            .skip_while(|l| !l.starts_with('┌'))
            .collect::<Vec<_>>()
            .join("\n");
        assert_fits("report lift", &table, width);
        insta::assert_snapshot!(format!("report_lift_{width}"), text);
    }
    // The sentence's rates are the tool's own (benchmark.json's paired
    // summary, to 2 decimals).
    let text = stdout(&["report", "lift", "--format", "table", "--max-width", "120"]);
    // The sentence: its lines, wrapped to the width, up to the blank line.
    let sentence = text
        .lines()
        .take_while(|l| !l.is_empty())
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    let paired = &reference("benchmark.json.gz")["paired_summary"];
    let rate = |k: &str| paired[k].as_f64().unwrap();
    let expected = format!(
        "with the skill {:.2}, without {:.2}: lift {:+.2}",
        rate("with_skill_objective_pass_rate"),
        rate("without_skill_objective_pass_rate"),
        rate("absolute_delta")
    );
    assert!(sentence.contains(&expected), "{sentence} lacks {expected}");
    // Its units are the (case, model) pairs with an eligible pair.
    let units = stdout(&[
        "sql",
        "SELECT count(DISTINCT (case_id, model)) FROM pairs WHERE eligible AND control_arm = 'without_skill'",
    ]);
    let units = units.lines().nth(1).unwrap().trim();
    assert!(
        sentence.contains(&format!(", {units} case×model units)")),
        "{sentence}"
    );
    // Significant by liftdb's rule on the tool's own test (docs/metrics.md
    // §M6): its p, or for a sampled test the upper bound from its hits,
    // (hits + 1)/4097 = p, hits/4096 + sqrt(ln(1000)/8192), at most 0.05.
    let p = paired["significance"]["p_value"].as_f64().unwrap();
    let p_upper = match paired["significance"]["method"].as_str() {
        Some("sign-flip-sampled") => {
            ((p * 4097.0 - 1.0).round() / 4096.0 + (1000f64.ln() / 8192.0).sqrt()).min(1.0)
        }
        _ => p,
    };
    let word = if p_upper <= 0.05 {
        "— significant ("
    } else {
        "— not significant ("
    };
    assert!(sentence.contains(word), "{sentence} (tool p {p})");
}

#[test]
fn the_headline_says_not_significant_whenever_p_exceeds_005() {
    // Every headline of the five tool corpora (skills, releases, splits,
    // control arms): the word follows the p the sentence prints.
    let ts = crate::common::store_of(&crate::common::tool_corpora());
    let rows = crate::common::rows(&ts.store, "SELECT sentence FROM lift_headline");
    let (mut significant, mut not) = (0, 0);
    for r in &rows {
        let s = r["sentence"].as_str().unwrap();
        let verdict = s.split(" — ").nth(1).unwrap();
        if verdict.starts_with("significance not tested") {
            continue;
        }
        let p_text = verdict
            .split("(p ")
            .nth(1)
            .or_else(|| verdict.split("(sampled p ").nth(1))
            .unwrap()
            .split([')', ','])
            .next()
            .unwrap();
        let p: f64 = p_text.trim_start_matches("< ").parse().unwrap();
        // A sampled p under 0.05 whose upper bound is not is not significant,
        // and says so (seh_statistics checks it against the interval).
        let sampled_over = verdict.contains("above 0.05");
        if p > 0.05 || sampled_over {
            assert!(verdict.starts_with("not significant"), "{s}");
            not += 1;
        } else {
            assert!(verdict.starts_with("significant"), "{s}");
            significant += 1;
        }
        assert!(!s.contains("— resolvable"), "{s}");
    }
    assert!(significant > 0 && not > 0, "both kinds among {rows:?}");
}

#[test]
fn report_list_and_schema_at_80_and_120_columns() {
    for width in [80, 120] {
        let w = width.to_string();
        let list = stdout(&["report", "--list", "--max-width", &w]);
        assert_fits("report --list", &list, width);
        for report in liftdb::report::all() {
            assert!(
                list.contains(&format!("\n{:<17}", report.name)) || list.starts_with(&report.name),
                "{}",
                report.name
            );
        }
        insta::assert_snapshot!(format!("report_list_{width}"), list);
        let schema = stdout(&["schema", "--max-width", &w]);
        assert_fits("schema", &schema, width);
        // From the tables on (the migrations above carry when they were applied).
        let tables = &schema[schema.find("\ntables:").unwrap()..];
        insta::assert_snapshot!(format!("schema_{width}"), tables);
    }
}

/// The columns a drawn table shows: the cells of its header line.
fn header_cells(table: &str) -> usize {
    let head = table.lines().find(|l| l.starts_with('│')).unwrap_or("");
    head.split(['│', '┆'])
        .filter(|c| !c.trim().is_empty())
        .count()
}

#[test]
fn each_reports_compact_columns_are_its_own_and_pipes_get_every_column() {
    for report in liftdb::report::all() {
        let csv = stdout(&["report", &report.name, "--format", "csv"]);
        let header: Vec<&str> = csv.lines().next().unwrap_or("").split(',').collect();
        for column in &report.compact {
            assert!(
                header.contains(&column.as_str()),
                "report {}: compact column {column} is not one of {header:?}",
                report.name
            );
        }
        // Piped (CSV) keeps every column; a terminal table shows the compact set,
        // which fits 100 columns on this corpus without eliding any (long
        // cells are cut to fit).
        if !report.compact.is_empty() {
            let narrow = stdout(&[
                "report",
                &report.name,
                "--format",
                "table",
                "--max-width",
                "100",
            ]);
            let table: String = narrow
                .lines()
                .filter(|l| l.starts_with(['┌', '│']))
                .collect::<Vec<_>>()
                .join("\n");
            assert_fits(&format!("report {} compact", report.name), &table, 100);
            assert!(
                !narrow.contains(" columns, "),
                "report {}: a column elided at 100: {narrow}",
                report.name
            );
            let table = stdout(&[
                "report",
                &report.name,
                "--format",
                "table",
                "--max-width",
                "400",
            ]);
            // A column shown only where some row has a value (a case's
            // name) is not, on this corpus. A compact set of one text column
            // (lift-headline's sentence) is read as prose: no table at all.
            let prose = report.name == "lift-headline";
            assert_eq!(
                header_cells(&table),
                match prose {
                    true => 0,
                    false => report.compact.len() - report.compact_if_any.len(),
                },
                "report {}: {table}",
                report.name
            );
            let all = stdout(&[
                "report",
                &report.name,
                "--all-columns",
                "--format",
                "table",
                "--max-width",
                "0",
            ]);
            assert_eq!(
                header_cells(&all),
                header.len(),
                "report {} --all-columns: {all}",
                report.name
            );
        }
    }
}

#[test]
fn middle_rows_are_elided_past_forty_and_the_footer_says_so() {
    let text = stdout(&[
        "sql",
        "--format",
        "table",
        "--max-width",
        "100",
        "SELECT range AS i FROM range(100)",
    ]);
    assert!(text.contains("│ 19 │") || text.contains("│ 19 "), "{text}");
    assert!(!text.contains(" 20 "), "row 21 is elided: {text}");
    assert!(
        text.contains(" 80 ") && text.contains(" 99 "),
        "the last 20 are shown: {text}"
    );
    assert!(text.trim_end().ends_with("(100 rows, 40 shown)"), "{text}");
}
