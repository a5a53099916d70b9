//! `liftdb report html`: one self-contained HTML file (no network, no CDN)
//! with inline SVG charts — lift per case with interval bars, lift and cost
//! across releases, cost vs lift per case — and the flags and blocked-pairs
//! tables.

use std::fmt::Write as _;

use duckdb::Connection;

use crate::output::{cell_text, ResultSet};
use crate::report::{query, Filters};
use crate::Result;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Rows of a result as text cells (None = NULL).
fn cells(rs: &ResultSet) -> Vec<Vec<Option<String>>> {
    let mut out = Vec::new();
    for batch in &rs.batches {
        for i in 0..batch.num_rows() {
            out.push(batch.columns().iter().map(|c| cell_text(c, i)).collect());
        }
    }
    out
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

/// Horizontal bars of lift per case on [-1, 1], with the 95% interval when
/// bounded, else the range of the case's unit deltas (dashed).
fn lift_per_case_svg(rows: &[Vec<Option<String>>]) -> String {
    let (w, row_h, left, right) = (900.0, 26.0, 240.0, 40.0);
    let h = 40.0 + row_h * rows.len() as f64;
    let x = |v: f64| left + (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (w - left - right);
    let mut svg =
        format!(r#"<svg width="{w}" height="{h}" role="img" aria-label="lift per case">"#);
    let _ = write!(
        svg,
        r##"<line x1="{0}" x2="{0}" y1="10" y2="{1}" stroke="#888" stroke-dasharray="3 3"/>"##,
        x(0.0),
        h - 20.0
    );
    for t in [-1.0, -0.5, 0.0, 0.5, 1.0] {
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" font-size="11" text-anchor="middle" fill="#555">{t:+.1}</text>"##,
            x(t),
            h - 5.0
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = 20.0 + row_h * i as f64;
        let label = r[1].as_deref().unwrap_or("").to_string();
        let lift = num(&r[2]).unwrap_or(0.0);
        let color = if lift > 0.0 {
            "#2f7d32"
        } else if lift < 0.0 {
            "#c62828"
        } else {
            "#757575"
        };
        let (x0, x1) = (x(0.0).min(x(lift)), x(0.0).max(x(lift)));
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" font-size="12" text-anchor="end">{}</text>"##,
            left - 8.0,
            y + 13.0,
            esc(&label)
        );
        let _ = write!(
            svg,
            r#"<rect x="{x0}" y="{}" width="{}" height="14" fill="{color}" opacity="0.8"><title>lift {lift:+.4}</title></rect>"#,
            y + 2.0,
            (x1 - x0).max(1.0)
        );
        let bounded = (num(&r[3]), num(&r[4]));
        let (lo, hi, dash) = match bounded {
            (Some(lo), Some(hi)) => (Some(lo), Some(hi), ""),
            _ => (num(&r[5]), num(&r[6]), r#" stroke-dasharray="4 2""#),
        };
        if let (Some(lo), Some(hi)) = (lo, hi) {
            let cy = y + 9.0;
            let _ = write!(
                svg,
                r##"<line x1="{}" x2="{}" y1="{cy}" y2="{cy}" stroke="#111" stroke-width="1.5"{dash}/>"##,
                x(lo),
                x(hi)
            );
            for e in [lo, hi] {
                let _ = write!(
                    svg,
                    r##"<line x1="{0}" x2="{0}" y1="{1}" y2="{2}" stroke="#111" stroke-width="1.5"/>"##,
                    x(e),
                    cy - 5.0,
                    cy + 5.0
                );
            }
        }
    }
    svg.push_str("</svg>");
    svg
}

/// Lift (line, left axis) and known cost (bars, right axis) per release.
fn releases_svg(rows: &[Vec<Option<String>>]) -> String {
    let (w, h, pad) = (900.0, 300.0, 60.0);
    let n = rows.len().max(1) as f64;
    let max_cost = rows
        .iter()
        .filter_map(|r| num(&r[2]))
        .fold(0.0, f64::max)
        .max(1e-9);
    let x = |i: usize| pad + (i as f64 + 0.5) * (w - 2.0 * pad) / n;
    let y_lift = |v: f64| h - pad - (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (h - 2.0 * pad);
    let y_cost = |v: f64| h - pad - v / max_cost * (h - 2.0 * pad) / 2.0;
    let mut svg = format!(
        r#"<svg width="{w}" height="{h}" role="img" aria-label="lift and cost across releases">"#
    );
    let _ = write!(
        svg,
        r##"<line x1="{pad}" x2="{1}" y1="{0}" y2="{0}" stroke="#bbb"/>"##,
        y_lift(0.0),
        w - pad
    );
    let _ = write!(
        svg,
        r##"<text x="10" y="{}" font-size="11" fill="#2f5fa7">lift</text><text x="{}" y="{}" font-size="11" fill="#b26a00">cost $</text>"##,
        pad - 10.0,
        w - pad + 5.0,
        pad - 10.0
    );
    let bar_w = ((w - 2.0 * pad) / n * 0.35).min(60.0);
    let mut points = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if let Some(c) = num(&r[2]) {
            let _ = write!(
                svg,
                r##"<rect x="{}" y="{}" width="{bar_w}" height="{}" fill="#f0a830" opacity="0.6"><title>known cost ${c:.6}</title></rect>"##,
                x(i) - bar_w / 2.0,
                y_cost(c),
                h - pad - y_cost(c)
            );
        }
        if let Some(l) = num(&r[1]) {
            points.push(format!("{},{}", x(i), y_lift(l)));
            let _ = write!(
                svg,
                r##"<circle cx="{}" cy="{}" r="5" fill="#2f5fa7"><title>lift {l:+.4}</title></circle>"##,
                x(i),
                y_lift(l)
            );
            let _ = write!(
                svg,
                r##"<text x="{}" y="{}" font-size="11" text-anchor="middle">{l:+.3}</text>"##,
                x(i),
                y_lift(l) - 9.0
            );
        }
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"##,
            x(i),
            h - pad + 18.0,
            esc(r[0].as_deref().unwrap_or(""))
        );
    }
    if points.len() > 1 {
        let _ = write!(
            svg,
            r##"<polyline points="{}" fill="none" stroke="#2f5fa7" stroke-width="2"/>"##,
            points.join(" ")
        );
    }
    svg.push_str("</svg>");
    svg
}

/// Each case: mean paired cost delta (x) against mean lift (y).
fn cost_vs_lift_svg(rows: &[Vec<Option<String>>]) -> String {
    let (w, h, pad) = (900.0, 360.0, 60.0);
    let pts: Vec<(String, f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r[0].clone().unwrap_or_default(), num(&r[2])?, num(&r[1])?)))
        .collect();
    let max_x = pts.iter().map(|p| p.1.abs()).fold(0.0, f64::max).max(1e-9);
    let x = |v: f64| pad + (v / max_x + 1.0) / 2.0 * (w - 2.0 * pad);
    let y = |v: f64| h - pad - (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (h - 2.0 * pad);
    let mut svg = format!(
        r#"<svg width="{w}" height="{h}" role="img" aria-label="cost versus lift per case">"#
    );
    let _ = write!(
        svg,
        r##"<line x1="{pad}" x2="{}" y1="{1}" y2="{1}" stroke="#bbb"/><line x1="{2}" x2="{2}" y1="{pad}" y2="{3}" stroke="#bbb"/>"##,
        w - pad,
        y(0.0),
        x(0.0),
        h - pad
    );
    let _ = write!(
        svg,
        r##"<text x="{}" y="{}" font-size="11" text-anchor="end">mean cost delta per pair (USD, ±{max_x:.6})</text><text x="10" y="{}" font-size="11">lift</text>"##,
        w - pad,
        h - 15.0,
        pad - 12.0
    );
    for (case, cx, ly) in &pts {
        let _ = write!(
            svg,
            r##"<circle cx="{}" cy="{}" r="6" fill="#6a1b9a" opacity="0.75"><title>{}: lift {ly:+.4}, cost delta ${cx:.6}</title></circle><text x="{}" y="{}" font-size="10">{}</text>"##,
            x(*cx),
            y(*ly),
            esc(case),
            x(*cx) + 8.0,
            y(*ly) + 4.0,
            esc(case)
        );
    }
    if pts.is_empty() {
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#777">no comparable cost pairs</text>"##,
            w / 2.0,
            h / 2.0
        );
    }
    svg.push_str("</svg>");
    svg
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222}\
h1{font-size:22px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;font-size:12px;width:100%}th,td{border:1px solid #ddd;padding:3px 6px;text-align:left}\
th{background:#f4f4f4}.muted{color:#777}.note{color:#555;font-size:12px}svg{background:#fff;border:1px solid #eee}";

pub fn render(conn: &Connection, skill: Option<&str>) -> Result<String> {
    let mut params = Filters::new();
    if let Some(s) = skill {
        params.insert("skill".into(), s.into());
    }
    let latest = "(SELECT release_label FROM releases ORDER BY ordinal DESC LIMIT 1)";
    let headline = query(
        conn,
                    "SELECT l.release_label AS release, l.skill_name AS skill, l.units, l.eligible_pairs AS pairs,
                    round(l.with_rate, 4) AS with_skill, round(l.without_rate, 4) AS without_skill,
                    round(l.absolute_delta, 4) AS lift, s.p_value AS p, s.ci_lower, s.ci_upper, s.noise_verdict AS verdict
             FROM lift l LEFT JOIN lift_stats s USING (release_label, skill_name, control_arm, channel, split, row_kind, scope)
             WHERE l.channel = 'objective' AND l.control_arm = 'without_skill' AND l.split = 'all' AND l.scope = 'overall'
               AND l.row_kind = 'release'
               AND s.model IS NULL AND s.case_id IS NULL AND ($skill IS NULL OR l.skill_name = $skill)
             ORDER BY release, skill",
        &params,
    )?;
    let per_case = query(
        conn,
        &format!(
            "SELECT l.skill_name, l.case_id, l.absolute_delta, s.ci_lower, s.ci_upper,
                    list_min(l.deltas) AS min_unit, list_max(l.deltas) AS max_unit
             FROM lift l LEFT JOIN lift_stats s USING (release_label, skill_name, control_arm, channel, split, row_kind, scope, case_id)
             WHERE l.channel = 'objective' AND l.control_arm = 'without_skill' AND l.split = 'all' AND l.scope = 'case'
               AND l.row_kind = 'release'
               AND l.release_label = {latest} AND ($skill IS NULL OR l.skill_name = $skill)
             ORDER BY l.skill_name, l.absolute_delta DESC, l.case_id"
        ),
        &params,
    )?;
    let releases = query(
        conn,
        "SELECT release_label, lift, known_cost_usd FROM trend
         WHERE scope = 'overall' AND ($skill IS NULL OR skill_name = $skill) ORDER BY release_order",
        &params,
    )?;
    let cost_lift = query(
        conn,
        &format!(
            "SELECT case_id, avg(objective_delta) AS lift, avg(cost_delta) AS cost_delta
             FROM cost_per_lift WHERE release_label = {latest} AND ($skill IS NULL OR skill_name = $skill)
             GROUP BY case_id ORDER BY case_id"
        ),
        &params,
    )?;
    let flags = query(
        conn,
        "SELECT release_label AS release, skill_name AS skill, split, case_id AS \"case\", round(with_skill, 4) AS with_skill,
                round(without_skill, 4) AS without_skill, eligible_pairs AS pairs, array_to_string(flags, '; ') AS flags
         FROM case_flags WHERE len(flags) > 0 AND ($skill IS NULL OR skill_name = $skill) ORDER BY release, skill, \"case\"",
        &params,
    )?;
    let blocked = query(
        conn,
        "SELECT release_label AS release, skill_name AS skill, case_id AS \"case\", model, control_arm AS control,
                blocked_reason AS reason, count(*) AS pairs
         FROM pairs WHERE NOT eligible AND ($skill IS NULL OR skill_name = $skill)
         GROUP BY ALL ORDER BY pairs DESC LIMIT 200",
        &params,
    )?;

    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>liftdb report</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(html, "<h1>Skill lift report</h1><p class=\"note\">Generated by liftdb {}. Lift = with_skill − without_skill objective pass rate, averaged over (case, model) units; p from the paired sign-flip test; 95% interval by test inversion.</p>", crate::VERSION);
    html.push_str("<h2>Headline</h2>");
    html.push_str(&table(&headline, "No paired runs yet."));
    html.push_str("<h2>Lift per case (latest release)</h2><p class=\"note\">Bars: lift. Solid whiskers: 95% interval; dashed: range of the case's unit deltas where too few units bound an interval.</p>");
    html.push_str(&lift_per_case_svg(&cells(&per_case)));
    html.push_str("<h2>Lift and cost across releases</h2>");
    html.push_str(&releases_svg(&cells(&releases)));
    html.push_str("<h2>Cost vs lift per case (latest release)</h2>");
    html.push_str(&cost_vs_lift_svg(&cells(&cost_lift)));
    html.push_str("<h2>Case flags</h2>");
    html.push_str(&table(&flags, "No case flags."));
    html.push_str("<h2>Blocked pairs</h2>");
    html.push_str(&table(
        &blocked,
        "No blocked pairs: every with/without pair could be compared.",
    ));
    html.push_str("</body></html>\n");
    Ok(html)
}
