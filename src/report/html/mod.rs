//! `liftdb report html`: one self-contained HTML file (no network, no CDN):
//! the headline, inline SVG charts (charts.rs), and a drill-down from each
//! case to its runs per model, arm and repetition, their failing assertions
//! with evidence, output excerpts, cost and tokens (drill.rs), filtered by
//! release, model and split. Its queries are `sql/reports/html/*.sql`.

mod charts;
mod drill;

use std::fmt::Write as _;

use duckdb::Connection;

use crate::output::ResultSet;
use crate::report::{query, Filters};
use crate::sqlfiles::HTML_QUERIES;
use crate::Result;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An element id for a (release, skill, case), readable in a URL:
/// `case-2026.11--sql-migration-review--add-not-null-column`. Letters,
/// digits, `.`, `_` and `-` are kept; any other character becomes `-`.
fn slug(parts: &[&str]) -> String {
    let joined = parts.join("--");
    let mut id = String::from("case-");
    for c in joined.chars() {
        match c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
            true => id.push(c),
            false => id.push('-'),
        }
    }
    id
}

/// A case flag (the harness's label) and what it says, in words.
fn flag_in_words(flag: &str) -> String {
    let (label, detail) = flag.split_once(": ").unwrap_or((flag, ""));
    let meaning = match label {
        "saturated/non-discriminating" => {
            "both arms passed every check: the case cannot show what the skill adds".to_string()
        }
        "structurally-pass-but-forgettable" => {
            "both arms pass, but the with-skill answers score low on the soft checks".to_string()
        }
        "no objective lift" => "with the skill, no better than without it".to_string(),
        "with-skill failure" => "with the skill, some runs still fail a check".to_string(),
        "flaky repeated pass rates" => format!("repetitions of {detail} disagree with one another"),
        "critical-failure" => format!("a critical check failed in {detail}"),
        "below-reference-floor" => {
            format!("soft checks scored under the case's reference floor: {detail}")
        }
        _ => return esc(flag),
    };
    format!("<b>{}</b> — {}", esc(flag), esc(&meaning))
}

/// The flags table: each flag with what it says.
fn flags_table(rs: &ResultSet) -> String {
    let rows = cells(rs);
    if rows.is_empty() {
        return "<p class=\"muted\">No case flags.</p>".into();
    }
    let names = rs.column_names();
    let flags_at = names.iter().position(|n| n == "flags");
    let mut html = String::from("<table class=\"flags\"><thead><tr>");
    for name in &names {
        let _ = write!(html, "<th>{}</th>", esc(name));
    }
    html.push_str("</tr></thead><tbody>");
    for row in rows {
        html.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let text = c.as_deref().unwrap_or("");
            match Some(i) == flags_at {
                true => {
                    let items: Vec<String> = text
                        .split("; ")
                        .filter(|f| !f.is_empty())
                        .map(|f| format!("<li>{}</li>", flag_in_words(f)))
                        .collect();
                    let _ = write!(html, "<td><ul>{}</ul></td>", items.concat());
                }
                false => {
                    let _ = write!(html, "<td>{}</td>", esc(text));
                }
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table>");
    html
}

/// Rows of a result as text cells (None = NULL).
fn cells(rs: &ResultSet) -> Vec<Vec<Option<String>>> {
    rs.text_rows()
}

fn num(c: &Option<String>) -> Option<f64> {
    c.as_deref().and_then(|s| s.parse().ok())
}

fn table(rs: &ResultSet, empty: &str) -> String {
    let rows = cells(rs);
    if rows.is_empty() {
        return format!("<p class=\"muted\">{}</p>", esc(empty));
    }
    let mut html = String::from("<table><thead><tr>");
    for name in rs.column_names() {
        let _ = write!(html, "<th>{}</th>", esc(&name));
    }
    html.push_str("</tr></thead><tbody>");
    for row in rows {
        html.push_str("<tr>");
        for c in row {
            let _ = write!(html, "<td>{}</td>", esc(c.as_deref().unwrap_or("")));
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table>");
    html
}

/// One of `sql/reports/html/NAME.sql`, run with the report's filters.
fn run(conn: &Connection, name: &str, params: &Filters) -> Result<ResultSet> {
    query(conn, crate::sqlfiles::named(HTML_QUERIES, name), params)
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;padding:0 12px;color:#222;overflow-wrap:anywhere}\
h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;font-size:12px;display:block;overflow-x:auto;max-width:100%}th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;overflow-wrap:normal}\
th{background:#f4f4f4}.muted{color:#777}.note{color:#555;font-size:12px}svg{background:#fff;border:1px solid #eee}\
details.case{border:1px solid #ddd;margin:6px 0;padding:4px 8px}details.case>summary{cursor:pointer;font-weight:600}\
details.run{margin:2px 0 2px 16px}details.run>summary{cursor:pointer;font-size:12px}\
.fail{color:#b71c1c}pre{white-space:pre-wrap;background:#f8f8f8;padding:6px;font-size:12px;max-height:240px;overflow:auto}\
.filters{position:sticky;top:0;z-index:1;background:#fff;padding:6px 0;border-bottom:1px solid #eee}.filters label{margin-right:14px}\
[id]{scroll-margin-top:64px}p.headline{font-size:16px;font-weight:600;margin:6px 0}table.flags ul{margin:0;padding-left:16px}\
.sort button{margin-left:6px}p.suspect{color:#8a4b00;background:#fff4e0;padding:4px 8px}p.not-counted{color:#444;background:#f2f2f2;padding:4px 8px}";

/// Opens the drill-down named by the URL's #fragment (with its parents),
/// applies the filters, sorts the cases, and measures what a reader would
/// miss: texts of a chart that overlap (`body[data-text-overlaps]`) or
/// fall outside it (`data-text-clipped`), and whether each headline
/// sentence is whole in the window (`data-headline-hidden`), how far the
/// page runs past the window's width (`data-page-overflow`, pixels) and how
/// many texts outside the charts are under 12 pixels (`data-small-text`),
/// read by the browser tests.
const SCRIPT: &str = r#"
function openTarget(){var id=decodeURIComponent(location.hash.slice(1));var el=id&&document.getElementById(id);
for(var e=el;e;e=e.parentElement){if(e.tagName==='DETAILS')e.open=true;}
if(el){el.scrollIntoView();document.body.dataset.opened=id;}}
function applyFilters(){var f={};document.querySelectorAll('.filters select').forEach(function(s){f[s.name]=s.value;});
document.querySelectorAll('[data-release]').forEach(function(el){var show=true;
for(var k in f){var v=el.dataset[k];if(f[k]&&v!==undefined&&v!==f[k])show=false;}el.hidden=!show;});}
function countOverlaps(){var n=0;document.querySelectorAll('svg').forEach(function(svg){
var boxes=Array.prototype.map.call(svg.querySelectorAll('text'),function(t){return t.getBoundingClientRect();})
.filter(function(b){return b.width>0&&b.height>0;});
for(var i=0;i<boxes.length;i++)for(var j=i+1;j<boxes.length;j++){var a=boxes[i],b=boxes[j];
if(a.left<b.right-0.5&&b.left<a.right-0.5&&a.top<b.bottom-0.5&&b.top<a.bottom-0.5)n++;}});
document.body.dataset.textOverlaps=n;var clipped=0;document.querySelectorAll('svg').forEach(function(svg){
var r=svg.getBoundingClientRect();svg.querySelectorAll('text').forEach(function(t){var b=t.getBoundingClientRect();
if(b.width>0&&(b.left<r.left-0.5||b.right>r.right+0.5||b.top<r.top-0.5||b.bottom>r.bottom+0.5))clipped++;});});
document.body.dataset.textClipped=clipped;var hidden=0;document.querySelectorAll('p.headline').forEach(function(p){
var b=p.getBoundingClientRect();if(b.left<0||b.right>window.innerWidth+0.5||p.scrollWidth>p.clientWidth+1)hidden++;});
document.body.dataset.headlineHidden=hidden;
document.body.dataset.pageOverflow=Math.max(0,document.documentElement.scrollWidth-window.innerWidth);
var small=0;document.querySelectorAll('body *').forEach(function(el){if(el.closest('svg'))return;
var own=Array.prototype.some.call(el.childNodes,function(n){return n.nodeType===3&&n.textContent.trim();});
if(own&&el.getClientRects().length&&parseFloat(getComputedStyle(el).fontSize)<12)small++;});
document.body.dataset.smallText=small;}
function sortCases(key){var list=document.getElementById('cases');if(!list)return;
var items=Array.prototype.slice.call(list.querySelectorAll(':scope>details.case'));
items.sort(function(a,b){if(key==='name')return (a.dataset.order-b.dataset.order);
var x=parseFloat(a.dataset.lift),y=parseFloat(b.dataset.lift);if(isNaN(x))x=-Infinity;if(isNaN(y))y=-Infinity;
return key==='lift-up'?x-y:y-x;});items.forEach(function(i){list.appendChild(i);});document.body.dataset.sortedBy=key;}
document.addEventListener('DOMContentLoaded',function(){document.querySelectorAll('.filters select')
.forEach(function(s){s.addEventListener('change',applyFilters);});document.querySelectorAll('.sort button')
.forEach(function(b){b.addEventListener('click',function(){sortCases(b.dataset.key);});});
var q=new URLSearchParams(location.search);if(q.get('sort'))sortCases(q.get('sort'));
applyFilters();openTarget();countOverlaps();});
window.addEventListener('hashchange',openTarget);
"#;

/// The report of one skill (or every one) and one release (or every one,
/// its charts on the latest).
pub fn render(conn: &Connection, skill: Option<&str>, release: Option<&str>) -> Result<String> {
    let mut params = Filters::new();
    if let Some(s) = skill {
        params.insert("skill".into(), s.into());
    }
    if let Some(r) = release {
        params.insert("release".into(), r.into());
    }
    super::filter_values::check(&params, |sql, named| query(conn, sql, named))?;
    let sentences = query(conn, crate::report::find("lift-headline")?.sql, &params)?;
    let headline = run(conn, "headline", &params)?;
    let suspect = cells(&run(conn, "suspect", &params)?);
    let not_counted = cells(&run(conn, "not_counted", &params)?);
    let per_case = run(conn, "per_case", &params)?;
    let releases = run(conn, "releases", &params)?;
    let cost_lift = run(conn, "cost_lift", &params)?;
    let flags = run(conn, "flags", &params)?;
    let blocked = run(conn, "blocked", &params)?;
    let drill = drill::Drill::load(conn, &params)?;
    let changes = run(conn, "changes", &params)?;
    let new_flags = run(conn, "new_flags", &params)?;
    let recurring = run(conn, "recurring", &params)?;
    let prune = run(conn, "prune", &params)?;
    let idle_spend = query(conn, crate::report::find("idle-spend")?.sql, &params)?;

    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>liftdb report</title><style>{STYLE}</style><script>{SCRIPT}</script></head><body>"
    );
    let _ = write!(html, "<h1>Skill lift report</h1><p class=\"note\">Generated by liftdb {}. Lift = with_skill − without_skill objective pass rate, averaged over (case, model) units; p from the paired sign-flip test; 95% interval by test inversion; bootstrap: cases resampled (docs/metrics.md §M3a).</p>", crate::VERSION);
    html.push_str("<h2>Headline</h2>");
    let sentences = cells(&sentences);
    if sentences.is_empty() {
        html.push_str("<p class=\"muted\">No paired runs yet.</p>");
    }
    for sentence in sentences.iter().filter_map(|r| r[0].as_deref()) {
        let _ = write!(html, "<p class=\"headline\">{}</p>", esc(sentence));
    }
    for sentence in not_counted.iter().filter_map(|r| r[0].as_deref()) {
        let _ = write!(html, "<p class=\"not-counted\">{}</p>", esc(sentence));
    }
    for s in &suspect {
        let field = |i: usize| esc(s[i].as_deref().unwrap_or(""));
        let _ = write!(
            html,
            "<p class=\"suspect\">Measures nothing: release {} of {}, {} ({}): {}.</p>",
            field(0),
            field(1),
            field(2),
            field(3),
            field(4)
        );
    }
    html.push_str("<details><summary>The numbers behind each sentence</summary>");
    html.push_str(&table(&headline, "No paired runs yet."));
    html.push_str("</details>");
    let which = match release {
        Some(r) => format!("release {}", esc(r)),
        None => "latest release".to_string(),
    };
    let _ = write!(html, "<h2>Lift per case ({which})</h2><p class=\"note\">Bars: lift. Solid whiskers: 95% interval; dashed: range of the case's unit deltas where too few units bound an interval. A case's name opens its runs below.</p>");
    html.push_str(&charts::lift_per_case_svg(&cells(&per_case)));
    let releases = cells(&releases);
    html.push_str("<h2>Lift across releases</h2>");
    html.push_str(&charts::lift_across_releases_svg(&releases));
    html.push_str("<h2>Known cost across releases</h2>");
    html.push_str(&charts::cost_across_releases_svg(&releases).unwrap_or_else(|| {
        "<p class=\"muted\">No run of these releases is priced: there is no cost to chart.</p>".into()
    }));
    let _ = write!(html, "<h2>Cost vs lift per case ({which})</h2>");
    let cost_lift = cells(&cost_lift);
    match cost_lift.iter().any(|r| num(&r[2]).is_some()) {
        true => html.push_str(&charts::cost_vs_lift_svg(&cost_lift)),
        false => html.push_str("<p class=\"muted\">No case has a comparable cost in both arms: there is no cost to chart.</p>"),
    }
    html.push_str("<h2>What changed since the previous release</h2><p class=\"note\">Each case's lift in the latest release of its skill against the release before, largest drop first; a change is called regressed or improved only when its sign-flip test over the case's matched models is significant (p, for a sampled test its upper bound, &le; 0.05), else it moved; flags new or resolved; assertions failing release after release (ranked as skill-benchmark trend ranks them); cases that never failed nor moved, and the spend on idle cases per release.</p>");
    html.push_str(&table(
        &changes,
        "No case moved since the previous release (or there is only one release).",
    ));
    html.push_str("<h3>New and resolved flags</h3>");
    html.push_str(&match new_flags.row_count() {
        0 => "<p class=\"muted\">No flag changed.</p>".to_string(),
        _ => flags_table(&new_flags),
    });
    html.push_str("<h3>Recurring failures</h3>");
    html.push_str(&table(&recurring, "No assertion failed."));
    html.push_str("<h3>Prune candidates</h3>");
    html.push_str(&table(
        &prune,
        "No case qualifies (it needs two releases where it never failed nor moved).",
    ));
    html.push_str("<h3>Spend on saturated and no-lift cases</h3>");
    html.push_str(&table(&idle_spend, "No runs."));
    html.push_str("<h2>Cases and their runs</h2>");
    html.push_str(&drill.render());
    html.push_str("<h2>Case flags</h2>");
    html.push_str(&flags_table(&flags));
    html.push_str("<h2>Blocked pairs</h2>");
    html.push_str(&table(
        &blocked,
        "No blocked pairs: every with/without pair could be compared.",
    ));
    html.push_str("</body></html>\n");
    Ok(html)
}
