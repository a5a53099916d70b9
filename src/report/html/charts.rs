//! The HTML report's inline SVG charts: lift per case with interval bars
//! (each case linking to its drill-down), lift and cost across releases,
//! cost vs lift per case with labels placed so none overlaps.

use std::fmt::Write as _;

use super::{esc, num, slug};

/// Horizontal bars of lift per case on [-1, 1], with the 95% interval when
/// bounded, else the range of the case's unit deltas (dashed).
pub(super) fn lift_per_case_svg(rows: &[Vec<Option<String>>]) -> String {
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
        // The case's name links to its drill-down.
        let target = slug(&[
            r[7].as_deref().unwrap_or(""),
            r[0].as_deref().unwrap_or(""),
            &label,
        ]);
        let _ = write!(
            svg,
            r##"<a href="#{target}"><text x="{}" y="{}" font-size="12" text-anchor="end" fill="#1a4f8b">{}</text></a>"##,
            left - 8.0,
            y + 13.0,
            esc(&cut_to(&label, 30))
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
pub(super) fn releases_svg(rows: &[Vec<Option<String>>]) -> String {
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
        // Release names share the axis: each is cut to its slot.
        let slot_chars = (((w - 2.0 * pad) / n) / 7.0).floor().max(3.0) as usize;
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}<title>{}</title></text>"##,
            x(i),
            h - pad + 18.0,
            esc(&cut_to(r[0].as_deref().unwrap_or(""), slot_chars)),
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

/// A box on the chart, for label placement.
#[derive(Clone, Copy)]
struct Box {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Box {
    fn overlaps(&self, o: &Box) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Width of `text` at 10px in a sans-serif font, generously (6.5 px a
/// character): a label placed by this estimate does not touch its neighbour.
fn label_width(text: &str) -> f64 {
    6.5 * text.chars().count() as f64 + 2.0
}

/// Each case: mean paired cost delta (x) against mean lift (y). Labels go
/// right, left, above or below their point, wherever they touch no other
/// label, point or axis text; a case with no room is listed under the chart.
pub(super) fn cost_vs_lift_svg(rows: &[Vec<Option<String>>]) -> String {
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
    let axis_x = format!("mean cost delta per pair (USD, ±{max_x:.6})");
    let _ = write!(
        svg,
        r##"<text x="{}" y="{}" font-size="11" text-anchor="end">{}</text><text x="10" y="{}" font-size="11">lift</text>"##,
        w - pad,
        h - 15.0,
        esc(&axis_x),
        pad - 12.0
    );
    // What labels must not touch: the axis texts and every point.
    let mut taken = vec![
        Box {
            x0: w - pad - label_width(&axis_x) * 1.1,
            y0: h - 28.0,
            x1: w - pad,
            y1: h - 10.0,
        },
        Box {
            x0: 8.0,
            y0: pad - 26.0,
            x1: 40.0,
            y1: pad - 8.0,
        },
    ];
    for (_, cx, ly) in &pts {
        let (px, py) = (x(*cx), y(*ly));
        taken.push(Box {
            x0: px - 7.0,
            y0: py - 7.0,
            x1: px + 7.0,
            y1: py + 7.0,
        });
    }
    let mut unlabelled = Vec::new();
    for (case, cx, ly) in &pts {
        let (px, py) = (x(*cx), y(*ly));
        let lw = label_width(case);
        let candidates = [
            (px + 9.0, py + 4.0, "start"),
            (px - 9.0, py + 4.0, "end"),
            (px, py - 10.0, "middle"),
            (px, py + 17.0, "middle"),
        ];
        let placed = candidates.into_iter().find_map(|(tx, ty, anchor)| {
            let x0 = match anchor {
                "start" => tx,
                "end" => tx - lw,
                _ => tx - lw / 2.0,
            };
            let b = Box {
                x0,
                y0: ty - 10.0,
                x1: x0 + lw,
                y1: ty + 3.0,
            };
            let inside = b.x0 >= 0.0 && b.x1 <= w && b.y0 >= 0.0 && b.y1 <= h;
            (inside && !taken.iter().any(|t| t.overlaps(&b))).then_some((tx, ty, anchor, b))
        });
        let _ = write!(
            svg,
            r##"<circle cx="{px}" cy="{py}" r="6" fill="#6a1b9a" opacity="0.75"><title>{}: lift {ly:+.4}, cost delta ${cx:.6}</title></circle>"##,
            esc(case)
        );
        match placed {
            Some((tx, ty, anchor, b)) => {
                taken.push(b);
                let _ = write!(
                    svg,
                    r##"<text x="{tx}" y="{ty}" font-size="10" text-anchor="{anchor}">{}</text>"##,
                    esc(case)
                );
            }
            None => unlabelled.push(format!("{case} (lift {ly:+.4}, cost delta ${cx:.6})")),
        }
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
    if !unlabelled.is_empty() {
        let _ = write!(
            svg,
            "<p class=\"note\">No room to label: {}.</p>",
            esc(&unlabelled.join("; "))
        );
    }
    svg
}

/// `text` cut to `chars` characters with "…".
fn cut_to(text: &str, chars: usize) -> String {
    match text.chars().count() > chars {
        true => format!(
            "{}…",
            text.chars()
                .take(chars.saturating_sub(1))
                .collect::<String>()
        ),
        false => text.to_string(),
    }
}
