//! The HTML report's inline SVG charts: lift per case with interval bars
//! (each case linking to its drill-down), lift and cost across releases,
//! cost vs lift per case with labels placed so none overlaps.

use std::fmt::Write as _;

use super::{esc, num, slug};

/// Characters of a chart label before it is cut in the middle.
const LABEL_CHARS: usize = 52;

/// Approximate width of `text` at `px` pixels in a sans-serif font,
/// generously (0.62 em a character): what a placement keeps clear.
fn text_width(text: &str, px: f64) -> f64 {
    0.62 * px * text.chars().count() as f64 + 2.0
}

/// A money tick: whole cents from a dollar up, else enough places to tell
/// the ticks apart.
fn money(v: f64) -> String {
    let sign = if v < 0.0 { "−" } else { "" };
    if v == 0.0 {
        return "$0".to_string();
    }
    match v.abs() {
        a if a >= 1.0 => format!("{sign}${a:.2}"),
        a if a >= 0.01 => format!("{sign}${a:.4}"),
        a => format!("{sign}${a:.6}"),
    }
}

/// Horizontal bars of lift per case on [-1, 1], with the 95% interval when
/// bounded, else the range of the case's unit deltas (dashed); an x axis
/// with ticks, values and its title. Case names are whole (up to 52
/// characters, else cut in the middle, where names sharing a prefix still
/// differ at their ends).
pub(super) fn lift_per_case_svg(rows: &[Vec<Option<String>>]) -> String {
    let longest = rows
        .iter()
        .map(|r| {
            r[1].as_deref()
                .unwrap_or("")
                .chars()
                .count()
                .min(LABEL_CHARS)
        })
        .max()
        .unwrap_or(4);
    let left = (longest as f64 * 0.62 * 12.0 + 20.0).max(120.0);
    let (w, row_h, right, top) = (960.0, 26.0, 30.0, 10.0);
    let bottom_of_bars = top + row_h * rows.len() as f64;
    let h = bottom_of_bars + 52.0;
    let x = |v: f64| left + (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (w - left - right);
    let mut svg =
        format!(r#"<svg width="{w}" height="{h}" role="img" aria-label="lift per case">"#);
    // Grid and ticks at every half, the zero line dashed.
    for t in [-1.0, -0.5, 0.0, 0.5, 1.0] {
        let dash = if t == 0.0 {
            r#" stroke-dasharray="3 3""#
        } else {
            ""
        };
        let colour = if t == 0.0 { "#888" } else { "#eee" };
        let _ = write!(
            svg,
            r##"<line x1="{0}" x2="{0}" y1="{top}" y2="{bottom_of_bars}" stroke="{colour}"{dash}/><line x1="{0}" x2="{0}" y1="{bottom_of_bars}" y2="{1}" stroke="#555"/><text x="{0}" y="{2}" font-size="11" text-anchor="middle" fill="#333">{3}</text>"##,
            x(t),
            bottom_of_bars + 5.0,
            bottom_of_bars + 18.0,
            if t == 0.0 {
                "0".to_string()
            } else {
                format!("{t:+.1}")
            }
        );
    }
    let _ = write!(
        svg,
        r##"<line x1="{left}" x2="{}" y1="{bottom_of_bars}" y2="{bottom_of_bars}" stroke="#555"/><text x="{}" y="{}" font-size="11" text-anchor="middle" fill="#333">lift: with-skill minus without-skill objective pass rate</text>"##,
        w - right,
        (left + w - right) / 2.0,
        bottom_of_bars + 40.0
    );
    for (i, r) in rows.iter().enumerate() {
        let y = top + 4.0 + row_h * i as f64;
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
            r##"<a href="#{target}"><text x="{}" y="{}" font-size="12" text-anchor="end" fill="#1a4f8b">{}<title>{}</title></text></a>"##,
            left - 8.0,
            y + 13.0,
            esc(&middle_cut(&label, LABEL_CHARS)),
            esc(&label)
        );
        let _ = write!(
            svg,
            r#"<rect x="{x0}" y="{}" width="{}" height="14" fill="{color}" opacity="0.8"><title>{} lift {lift:+.4}</title></rect>"#,
            y + 2.0,
            (x1 - x0).max(1.0),
            esc(&label)
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

/// Lift (line, left axis) and known cost (bars, right axis) per release,
/// each axis with ticks, values and its title.
pub(super) fn releases_svg(rows: &[Vec<Option<String>>]) -> String {
    let (w, h, left, right, top, bottom) = (960.0, 320.0, 64.0, 96.0, 34.0, 56.0);
    let n = rows.len().max(1) as f64;
    let max_cost = rows.iter().filter_map(|r| num(&r[2])).fold(0.0, f64::max);
    let cost_top = if max_cost > 0.0 { max_cost * 1.1 } else { 1.0 };
    let plot_w = w - left - right;
    let x = |i: usize| left + (i as f64 + 0.5) * plot_w / n;
    let y_lift = |v: f64| h - bottom - (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (h - top - bottom);
    let y_cost = |v: f64| h - bottom - v / cost_top * (h - top - bottom);
    let mut svg = format!(
        r#"<svg width="{w}" height="{h}" role="img" aria-label="lift and cost across releases">"#
    );
    // Left axis: lift, gridlines at every half.
    for t in [-1.0, -0.5, 0.0, 0.5, 1.0] {
        let _ = write!(
            svg,
            r##"<line x1="{left}" x2="{1}" y1="{0}" y2="{0}" stroke="{2}"/><text x="{3}" y="{4}" font-size="11" text-anchor="end" fill="#2f5fa7">{5}</text>"##,
            y_lift(t),
            w - right,
            if t == 0.0 { "#bbb" } else { "#f0f0f0" },
            left - 6.0,
            y_lift(t) + 4.0,
            if t == 0.0 {
                "0".to_string()
            } else {
                format!("{t:+.1}")
            }
        );
    }
    // Right axis: known cost, three ticks.
    if max_cost > 0.0 {
        for t in [0.0, cost_top / 2.0, cost_top] {
            let _ = write!(
                svg,
                r##"<line x1="{0}" x2="{1}" y1="{2}" y2="{2}" stroke="#b26a00"/><text x="{3}" y="{4}" font-size="11" fill="#b26a00">{5}</text>"##,
                w - right,
                w - right + 4.0,
                y_cost(t),
                w - right + 7.0,
                y_cost(t) + 4.0,
                esc(&money(t))
            );
        }
    }
    let _ = write!(
        svg,
        r##"<line x1="{left}" x2="{left}" y1="{top}" y2="{0}" stroke="#555"/><line x1="{1}" x2="{1}" y1="{top}" y2="{0}" stroke="#555"/><text x="{left}" y="{2}" font-size="11" text-anchor="middle" fill="#2f5fa7">lift</text><text x="{1}" y="{2}" font-size="11" text-anchor="middle" fill="#b26a00">known cost (USD)</text><text x="{3}" y="{4}" font-size="11" text-anchor="middle" fill="#333">release, in the order first ingested</text>"##,
        h - bottom,
        w - right,
        top - 14.0,
        left + plot_w / 2.0,
        h - 8.0
    );
    let bar_w = (plot_w / n * 0.35).min(60.0);
    // Release names share the axis: each is cut (in the middle) to its slot.
    let slot_chars = ((plot_w / n) / (0.62 * 11.0)).floor().max(3.0) as usize;
    let mut points = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if let Some(c) = num(&r[2]) {
            let _ = write!(
                svg,
                r##"<rect x="{}" y="{}" width="{bar_w}" height="{}" fill="#f0a830" opacity="0.6"><title>known cost ${c:.6}</title></rect>"##,
                x(i) - bar_w / 2.0,
                y_cost(c),
                h - bottom - y_cost(c)
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
            // The value beside its point, below it when the point is at the top.
            let ty = match y_lift(l) - 9.0 < top + 4.0 {
                true => y_lift(l) + 18.0,
                false => y_lift(l) - 9.0,
            };
            let _ = write!(
                svg,
                r##"<text x="{}" y="{ty}" font-size="11" text-anchor="middle">{l:+.3}</text>"##,
                x(i) + 14.0,
            );
        }
        let name = r[0].as_deref().unwrap_or("");
        let _ = write!(
            svg,
            r##"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}<title>{}</title></text>"##,
            x(i),
            h - bottom + 18.0,
            esc(&middle_cut(name, slot_chars)),
            esc(name)
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

/// Each case: mean paired cost delta (x) against mean lift (y), both axes
/// with ticks, values and titles. Labels go right, left, above or below
/// their point, wherever they touch no other label, point or axis text; a
/// case with no room is listed under the chart.
pub(super) fn cost_vs_lift_svg(rows: &[Vec<Option<String>>]) -> String {
    let (w, h, left, right, top, bottom) = (960.0, 380.0, 64.0, 40.0, 34.0, 56.0);
    let pts: Vec<(String, f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r[0].clone().unwrap_or_default(), num(&r[2])?, num(&r[1])?)))
        .collect();
    let max_x = pts.iter().map(|p| p.1.abs()).fold(0.0, f64::max).max(1e-9);
    let x = |v: f64| left + (v / max_x + 1.0) / 2.0 * (w - left - right);
    let y = |v: f64| h - bottom - (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (h - top - bottom);
    let mut svg = format!(
        r#"<svg width="{w}" height="{h}" role="img" aria-label="cost versus lift per case">"#
    );
    // What labels must not touch: every axis text, and every point.
    let mut taken = Vec::new();
    let mut axis_text = |svg: &mut String, tx: f64, ty: f64, anchor: &str, text: &str| {
        let tw = text_width(text, 11.0);
        let x0 = match anchor {
            "end" => tx - tw,
            "middle" => tx - tw / 2.0,
            _ => tx,
        };
        taken.push(Box {
            x0,
            y0: ty - 11.0,
            x1: x0 + tw,
            y1: ty + 3.0,
        });
        let _ = write!(
            svg,
            r##"<text x="{tx}" y="{ty}" font-size="11" text-anchor="{anchor}" fill="#333">{}</text>"##,
            esc(text)
        );
    };
    for t in [-1.0, -0.5, 0.0, 0.5, 1.0] {
        let _ = write!(
            svg,
            r##"<line x1="{left}" x2="{}" y1="{1}" y2="{1}" stroke="{2}"/>"##,
            w - right,
            y(t),
            if t == 0.0 { "#bbb" } else { "#f0f0f0" }
        );
        let label = if t == 0.0 {
            "0".to_string()
        } else {
            format!("{t:+.1}")
        };
        axis_text(&mut svg, left - 6.0, y(t) + 4.0, "end", &label);
    }
    for t in [-max_x, -max_x / 2.0, 0.0, max_x / 2.0, max_x] {
        let _ = write!(
            svg,
            r##"<line x1="{0}" x2="{0}" y1="{top}" y2="{1}" stroke="{2}"/><line x1="{0}" x2="{0}" y1="{1}" y2="{3}" stroke="#555"/>"##,
            x(t),
            h - bottom,
            if t == 0.0 { "#bbb" } else { "#f0f0f0" },
            h - bottom + 5.0
        );
        axis_text(&mut svg, x(t), h - bottom + 18.0, "middle", &money(t));
    }
    let _ = write!(
        svg,
        r##"<line x1="{left}" x2="{left}" y1="{top}" y2="{0}" stroke="#555"/><line x1="{left}" x2="{1}" y1="{0}" y2="{0}" stroke="#555"/>"##,
        h - bottom,
        w - right
    );
    axis_text(&mut svg, left, top - 14.0, "middle", "lift");
    axis_text(
        &mut svg,
        left + (w - left - right) / 2.0,
        h - 8.0,
        "middle",
        "mean cost delta per pair, with minus without the skill (USD)",
    );
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

/// `text` in at most `chars` characters: whole, else its start and its end
/// joined by "…" (names sharing a prefix differ at their ends).
fn middle_cut(text: &str, chars: usize) -> String {
    let count = text.chars().count();
    if count <= chars {
        return text.to_string();
    }
    let keep = chars.saturating_sub(1);
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(count - tail).collect();
    format!("{start}…{end}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_name_keeps_its_start_and_its_end() {
        assert_eq!(middle_cut("short", 10), "short");
        assert_eq!(middle_cut("backfill-unbatched-update", 11), "backf…pdate");
        assert_eq!(
            middle_cut("backfill-unbatched-update", 11).chars().count(),
            11
        );
    }

    #[test]
    fn money_ticks_read_as_money() {
        assert_eq!(money(0.0), "$0");
        assert_eq!(money(1.5), "$1.50");
        assert_eq!(money(0.0123), "$0.0123");
        assert_eq!(money(-0.000781), "−$0.000781");
    }
}
