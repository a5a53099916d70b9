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
        .map(|r| case_label(r).chars().count().min(LABEL_CHARS))
        .max()
        .unwrap_or(4);
    let left = (longest as f64 * 0.62 * 12.0 + 20.0).max(120.0);
    let (w, row_h, right, top) = (960.0, 26.0, 30.0, 10.0);
    let bottom_of_bars = top + row_h * rows.len() as f64;
    let h = bottom_of_bars + 52.0;
    let x = |v: f64| left + (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (w - left - right);
    let mut svg = format!(
        r#"<svg {} role="img" aria-label="lift per case">"#,
        scaled(w, h)
    );
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
        let case_id = r[1].as_deref().unwrap_or("");
        let label = case_label(r);
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
            case_id,
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

/// A case as the lift chart names it (per_case.sql's case_label: its id,
/// and its name where the harness gives one).
fn case_label(row: &[Option<String>]) -> String {
    row[8].clone().unwrap_or_default()
}

/// The size attributes of a chart `w` by `h` that scales to its page: its
/// drawing in a viewBox, as wide as the page allows up to `w` (a phone
/// shows the whole chart, smaller; nothing scrolls sideways).
fn scaled(w: f64, h: f64) -> String {
    format!(
        r#"viewBox="0 0 {w} {h}" width="{w}" height="{h}" style="width:100%;max-width:{w}px;height:auto""#
    )
}

/// Ticks at round values (1, 2 or 5 × 10^k apart) covering `lo`..`hi`,
/// about `count` of them: `$0`, `$0.002`, `$0.004` …, never `$0.004096`.
pub(super) fn round_ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let span = (hi - lo).abs().max(1e-12);
    let raw = span / count.max(1) as f64;
    let exponent = raw.log10().floor() as i32;
    // A tick is a whole number of steps, each (1, 2 or 5) × 10^exponent,
    // scaled by an exact power of ten: 3 × 0.002 reads 0.006, not 0.006000000000000001.
    let scale = |units: i64| match exponent < 0 {
        true => units as f64 / 10f64.powi(-exponent),
        false => units as f64 * 10f64.powi(exponent),
    };
    let mult = [1, 2, 5, 10]
        .into_iter()
        .find(|m| scale(*m) >= raw)
        .unwrap_or(10);
    let first = (lo / scale(mult)).floor() as i64;
    let last = (hi / scale(mult)).ceil() as i64;
    (first..=last).map(|i| scale(i * mult)).collect()
}

/// A money tick at a round value: its significant digits only.
fn money_tick(v: f64) -> String {
    let sign = if v < 0.0 { "−" } else { "" };
    let a = v.abs();
    if a < 1e-15 {
        return "$0".to_string();
    }
    // Enough places for a round step: 0.002 needs 3, 0.25 needs 2.
    let places = (0..=12)
        .find(|p| ((a * 10f64.powi(*p)).round() - a * 10f64.powi(*p)).abs() < 1e-6)
        .unwrap_or(6);
    // Cents at least: $0.50, $2.00.
    let places = places.max(2) as usize;
    format!("{sign}${a:.places$}")
}

/// Lift per release (a line on −1 … +1, each point's value beside it).
pub(super) fn lift_across_releases_svg(rows: &[Vec<Option<String>>]) -> String {
    let (w, h, left, right, top, bottom) = (960.0, 280.0, 64.0, 40.0, 34.0, 56.0);
    let n = rows.len().max(1) as f64;
    let plot_w = w - left - right;
    let x = |i: usize| left + (i as f64 + 0.5) * plot_w / n;
    let y_lift = |v: f64| h - bottom - (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (h - top - bottom);
    let mut svg = format!(
        r#"<svg {} role="img" aria-label="lift across releases">"#,
        scaled(w, h)
    );
    for t in [-1.0, -0.5, 0.0, 0.5, 1.0] {
        let _ = write!(
            svg,
            r##"<line x1="{left}" x2="{1}" y1="{0}" y2="{0}" stroke="{2}"/><text x="{3}" y="{4}" font-size="12" text-anchor="end" fill="#2f5fa7">{5}</text>"##,
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
    let _ = write!(
        svg,
        r##"<line x1="{left}" x2="{left}" y1="{top}" y2="{0}" stroke="#555"/><text x="{left}" y="{1}" font-size="12" text-anchor="middle" fill="#2f5fa7">lift</text><text x="{2}" y="{3}" font-size="12" text-anchor="middle" fill="#333">release, in order</text>"##,
        h - bottom,
        top - 14.0,
        left + plot_w / 2.0,
        h - 8.0
    );
    let slot_chars = ((plot_w / n) / (0.62 * 12.0)).floor().max(3.0) as usize;
    let mut points = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        if let Some(l) = num(&r[1]) {
            points.push(format!("{},{}", x(i), y_lift(l)));
            let _ = write!(
                svg,
                r##"<circle cx="{}" cy="{}" r="5" fill="#2f5fa7"><title>lift {l:+.4}</title></circle>"##,
                x(i),
                y_lift(l)
            );
            let ty = match y_lift(l) - 9.0 < top + 4.0 {
                true => y_lift(l) + 18.0,
                false => y_lift(l) - 9.0,
            };
            let _ = write!(
                svg,
                r##"<text x="{}" y="{ty}" font-size="12" text-anchor="middle">{l:+.3}</text>"##,
                x(i) + 16.0,
            );
        }
        release_label(&mut svg, r, x(i), h - bottom + 18.0, slot_chars);
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

/// A release's name under its slot (cut in the middle to fit), whole in its title.
fn release_label(svg: &mut String, row: &[Option<String>], x: f64, y: f64, chars: usize) {
    let name = row[0].as_deref().unwrap_or("");
    let _ = write!(
        svg,
        r##"<text x="{x}" y="{y}" font-size="12" text-anchor="middle">{}<title>{}</title></text>"##,
        esc(&middle_cut(name, chars)),
        esc(name)
    );
}

/// Known cost per release: bars from $0 on their own axis (round ticks),
/// each labelled with its amount; None when no release has a priced run
/// (an empty chart would say $0, which nobody spent).
pub(super) fn cost_across_releases_svg(rows: &[Vec<Option<String>>]) -> Option<String> {
    let max_cost = rows.iter().filter_map(|r| num(&r[2])).fold(0.0, f64::max);
    if max_cost <= 0.0 {
        return None;
    }
    let (w, h, left, right, top, bottom) = (960.0, 260.0, 84.0, 40.0, 34.0, 56.0);
    let ticks = round_ticks(0.0, max_cost, 4);
    let cost_top = ticks.last().copied().unwrap_or(max_cost).max(max_cost);
    let n = rows.len().max(1) as f64;
    let plot_w = w - left - right;
    let x = |i: usize| left + (i as f64 + 0.5) * plot_w / n;
    let y = |v: f64| h - bottom - v / cost_top * (h - top - bottom);
    let mut svg = format!(
        r#"<svg {} role="img" aria-label="known cost across releases">"#,
        scaled(w, h)
    );
    for t in &ticks {
        let _ = write!(
            svg,
            r##"<line x1="{left}" x2="{1}" y1="{0}" y2="{0}" stroke="{2}"/><text x="{3}" y="{4}" font-size="12" text-anchor="end" fill="#b26a00">{5}</text>"##,
            y(*t),
            w - right,
            if *t == 0.0 { "#bbb" } else { "#f0f0f0" },
            left - 6.0,
            y(*t) + 4.0,
            esc(&money_tick(*t))
        );
    }
    let _ = write!(
        svg,
        r##"<line x1="{left}" x2="{left}" y1="{top}" y2="{0}" stroke="#555"/><text x="{left}" y="{1}" font-size="12" text-anchor="middle" fill="#b26a00">known cost (USD)</text><text x="{2}" y="{3}" font-size="12" text-anchor="middle" fill="#333">release, in order</text>"##,
        h - bottom,
        top - 14.0,
        left + plot_w / 2.0,
        h - 8.0
    );
    let bar_w = (plot_w / n * 0.5).min(80.0);
    let slot_chars = ((plot_w / n) / (0.62 * 12.0)).floor().max(3.0) as usize;
    for (i, r) in rows.iter().enumerate() {
        if let Some(c) = num(&r[2]) {
            let _ = write!(
                svg,
                r##"<rect x="{}" y="{}" width="{bar_w}" height="{}" fill="#f0a830" opacity="0.7"><title>known cost ${c}</title></rect><text x="{}" y="{}" font-size="12" text-anchor="middle" fill="#333">{}</text>"##,
                x(i) - bar_w / 2.0,
                y(c),
                h - bottom - y(c),
                x(i),
                (y(c) - 5.0).max(top - 2.0),
                esc(&money(c))
            );
        }
        release_label(&mut svg, r, x(i), h - bottom + 18.0, slot_chars);
    }
    svg.push_str("</svg>");
    Some(svg)
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
    // The axis runs to a round value either side of 0, so its ticks read as money.
    let widest = pts.iter().map(|p| p.1.abs()).fold(0.0, f64::max).max(1e-9);
    let max_x = round_ticks(0.0, widest, 2)
        .last()
        .copied()
        .unwrap_or(widest)
        .max(widest);
    let x = |v: f64| left + (v / max_x + 1.0) / 2.0 * (w - left - right);
    let y = |v: f64| h - bottom - (v.clamp(-1.0, 1.0) + 1.0) / 2.0 * (h - top - bottom);
    let mut svg = format!(
        r#"<svg {} role="img" aria-label="cost versus lift per case">"#,
        scaled(w, h)
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
        axis_text(&mut svg, x(t), h - bottom + 18.0, "middle", &money_tick(t));
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
    fn ticks_fall_on_round_values() {
        // 0.0078 / 4 = 0.00195: steps of 0.002, each exactly its decimal
        // (0.006, not 0.006000000000000001).
        assert_eq!(
            round_ticks(0.0, 0.0078, 4),
            vec![0.0, 0.002, 0.004, 0.006, 0.008]
        );
        // 0.0082 / 4 = 0.00205: the next round step, 0.005.
        assert_eq!(round_ticks(0.0, 0.0082, 4), vec![0.0, 0.005, 0.01]);
        assert_eq!(round_ticks(0.0, 3.7, 4), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(money_tick(0.004), "$0.004");
        assert_eq!(money_tick(0.0025), "$0.0025");
        assert_eq!(money_tick(2.0), "$2.00");
        assert_eq!(money_tick(-0.01), "−$0.01");
        assert_eq!(money_tick(0.5), "$0.50");
        assert_eq!(money_tick(0.0), "$0");
    }

    #[test]
    fn money_ticks_read_as_money() {
        assert_eq!(money(0.0), "$0");
        assert_eq!(money(1.5), "$1.50");
        assert_eq!(money(0.0123), "$0.0123");
        assert_eq!(money(-0.000781), "−$0.000781");
    }
}
