//! The drill-down: each case (per release) → its runs per model, arm and
//! repetition → each run's failing assertions with evidence and the start
//! of its output, with cost, tokens and time. Plain `<details>` elements,
//! so it opens without script; the script only follows #fragments and
//! applies the release / model / split filters.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use duckdb::Connection;

use super::{cells, esc, num, run, slug};
use crate::report::Filters;
use crate::Result;

type Cells = Vec<Option<String>>;

pub(super) struct Drill {
    cases: Vec<Cells>,
    /// Runs by (release, skill, case), in model, arm, repetition order.
    runs: HashMap<(String, String, String), Vec<Cells>>,
    /// Failing assertions by run id.
    failing: HashMap<String, Vec<Cells>>,
}

fn text(c: &Cells, i: usize) -> &str {
    c.get(i).and_then(|v| v.as_deref()).unwrap_or("")
}

impl Drill {
    pub(super) fn load(conn: &Connection, params: &Filters) -> Result<Drill> {
        let cases = cells(&run(conn, "cases", params)?);
        let mut runs: HashMap<(String, String, String), Vec<Cells>> = HashMap::new();
        for r in cells(&run(conn, "runs", params)?) {
            let key = (text(&r, 0).into(), text(&r, 1).into(), text(&r, 2).into());
            runs.entry(key).or_default().push(r);
        }
        let mut failing: HashMap<String, Vec<Cells>> = HashMap::new();
        for a in cells(&run(conn, "failing", params)?) {
            failing.entry(text(&a, 0).into()).or_default().push(a);
        }
        Ok(Drill {
            cases,
            runs,
            failing,
        })
    }

    pub(super) fn render(&self) -> String {
        if self.cases.is_empty() {
            return "<p class=\"muted\">No paired cases yet.</p>".into();
        }
        let mut html = self.filters();
        html.push_str(&self.not_drilled());
        html.push_str("<p class=\"sort note\">Cases in order of<button data-key=\"name\">release and name</button><button data-key=\"lift-down\">lift, highest first</button><button data-key=\"lift-up\">lift, lowest first</button></p><div id=\"cases\">");
        for (order, case) in self.cases.iter().enumerate() {
            self.case(&mut html, case, order);
        }
        html.push_str("</div>");
        html
    }

    /// A note for each release and skill with more cases than the page
    /// drills into (sql/reports/html/cases.sql: the lowest lift first).
    fn not_drilled(&self) -> String {
        let mut shown: BTreeMap<(&str, &str), (usize, u64)> = BTreeMap::new();
        for c in &self.cases {
            let held = num(&c[15]).unwrap_or(0.0) as u64;
            shown.entry((text(c, 0), text(c, 1))).or_insert((0, held)).0 += 1;
        }
        let mut html = String::new();
        for ((release, skill), (drilled, held)) in shown {
            if held > drilled as u64 {
                let _ = write!(
                    html,
                    "<p class=\"note\">Release {} of {}: the {drilled} cases with the lowest lift of its {held} (liftdb report runs --release {} --case CASE lists any case's runs).</p>",
                    esc(release),
                    esc(skill),
                    esc(release)
                );
            }
        }
        html
    }

    /// One select per filter, its options the values present.
    fn filters(&self) -> String {
        let mut values: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for c in &self.cases {
            values.entry("release").or_default().insert(text(c, 0));
            values.entry("split").or_default().insert(text(c, 3));
        }
        for r in self.runs.values().flatten() {
            values.entry("model").or_default().insert(text(r, 3));
        }
        let mut html = String::from("<div class=\"filters\">");
        for name in ["release", "model", "split"] {
            let _ = write!(
                html,
                "<label>{name} <select name=\"{name}\"><option value=\"\">all</option>"
            );
            for v in values.get(name).into_iter().flatten() {
                let _ = write!(html, "<option>{}</option>", esc(v));
            }
            html.push_str("</select></label>");
        }
        html.push_str("</div>");
        html
    }

    fn case(&self, html: &mut String, c: &Cells, order: usize) {
        let (release, skill, case, split) = (text(c, 0), text(c, 1), text(c, 2), text(c, 3));
        let q = num(&c[10])
            .map(|q| format!(", q {q:.3}"))
            .unwrap_or_default();
        let _ = write!(
            html,
            "<details class=\"case\" id=\"{}\" data-order=\"{order}\" data-lift=\"{}\" data-release=\"{}\" data-split=\"{}\"><summary>{} <span class=\"muted\">({}, {})</span> — lift {} (with {}, without {}; p {}{q}; {} units: {} won, {} tied, {} lost)</summary>",
            slug(&[release, skill, case]),
            esc(text(c, 8)),
            esc(release),
            esc(split),
            esc(text(c, 14)),
            esc(skill),
            esc(release),
            esc(text(c, 8)),
            esc(text(c, 6)),
            esc(text(c, 7)),
            esc(text(c, 9)),
            esc(text(c, 4)),
            esc(text(c, 11)),
            esc(text(c, 12)),
            esc(text(c, 13)),
        );
        let key = (release.to_string(), skill.to_string(), case.to_string());
        let runs = self.runs.get(&key).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(total) = runs.first().and_then(|r| num(&r[13])) {
            if total as usize > runs.len() {
                let _ = write!(
                    html,
                    "<p class=\"note\">The first {} of {total} runs (liftdb sql \"SELECT * FROM runs WHERE case_id = '…'\" lists them all).</p>",
                    runs.len()
                );
            }
        }
        for r in runs {
            self.run(html, r, release, split);
        }
        html.push_str("</details>");
    }

    fn run(&self, html: &mut String, r: &Cells, release: &str, split: &str) {
        let run_id = text(r, 6);
        let failing = self.failing.get(run_id).map(Vec::as_slice).unwrap_or(&[]);
        let figures = [
            num(&r[9]).map(|v| format!("rate {v}")),
            num(&r[10]).map(|v| format!("{v:.0} tokens")),
            num(&r[11]).map(|v| format!("${v:.6}")),
            num(&r[12]).map(|v| format!("{:.1} s", v / 1000.0)),
        ];
        let figures: Vec<String> = figures.into_iter().flatten().collect();
        let scorable = match text(r, 7) {
            "false" => format!(" · unscorable: {}", esc(text(r, 8))),
            _ => String::new(),
        };
        let failing_note = match failing.len() {
            0 => String::new(),
            n => format!(" · <span class=\"fail\">{n} failing</span>"),
        };
        let _ = write!(
            html,
            "<details class=\"run\" id=\"run-{}\" data-release=\"{}\" data-model=\"{}\" data-split=\"{}\"><summary>{} · {} · rep {} — {}{scorable}{failing_note}</summary>",
            esc(run_id),
            esc(release),
            esc(text(r, 3)),
            esc(split),
            esc(text(r, 3)),
            esc(text(r, 4)),
            esc(text(r, 5)),
            esc(&figures.join(", ")),
        );
        if !failing.is_empty() {
            html.push_str("<ul>");
            for a in failing {
                let _ = write!(
                    html,
                    "<li class=\"fail\"><b>{}</b> ({}, {}): {}</li>",
                    esc(text(a, 1)),
                    esc(text(a, 2)),
                    esc(text(a, 3)),
                    esc(text(a, 4))
                );
            }
            html.push_str("</ul>");
        }
        match r[14].as_deref() {
            Some(out) => {
                let more = num(&r[15]).filter(|n| *n as usize > out.chars().count());
                let more =
                    more.map(|n| format!("<p class=\"note\">first 600 of {n:.0} characters</p>"));
                let _ = write!(html, "<pre>{}</pre>{}", esc(out), more.unwrap_or_default());
            }
            None => html.push_str("<p class=\"muted\">no output stored</p>"),
        }
        html.push_str("</details>");
    }
}
