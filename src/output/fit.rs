//! Fitting a table to the terminal the way the DuckDB shell does: long
//! cells cut with "…", middle columns elided (first and last kept), middle
//! rows elided past a limit, and a footer saying what was shown.

use unicode_width::UnicodeWidthStr;

/// What a table is fitted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// Total width in terminal columns (0 = no limit).
    pub max_width: usize,
    /// Rows shown before the middle ones are elided (0 = all).
    pub max_rows: usize,
    /// One cell's width before it is cut (0 = no limit).
    pub max_cell: usize,
}

impl Fit {
    /// Everything, as it is.
    pub const NONE: Fit = Fit {
        max_width: 0,
        max_rows: 0,
        max_cell: 0,
    };
}

/// The table to draw: chosen columns (None marks the elided gap), rows
/// (None marks the elided gap), and the footer.
pub struct Fitted {
    pub columns: Vec<Option<usize>>,
    pub rows: Vec<Option<usize>>,
    pub footer: String,
}

/// One cell as it is drawn: on one line, cut to `max_cell` columns.
pub fn cell(text: &str, max_cell: usize) -> String {
    let one_line = match text.contains(['\n', '\r', '\t']) {
        true => text
            .replace("\r\n", "↵")
            .replace(['\n', '\r'], "↵")
            .replace('\t', " "),
        false => text.to_string(),
    };
    if max_cell == 0 || one_line.width() <= max_cell {
        return one_line;
    }
    let mut out = String::new();
    let mut used = 0;
    for ch in one_line.chars() {
        let w = unicode_width::UnicodeWidthChar::width(ch).unwrap_or(0);
        if used + w > max_cell - 1 {
            break;
        }
        used += w;
        out.push(ch);
    }
    out.push('…');
    out
}

/// A line of text cut to `width` terminal columns with "…" (0 = whole).
pub fn cut(line: &str, width: usize) -> String {
    match width == 0 || line.width() <= width {
        true => line.to_string(),
        false => cell(line, width),
    }
}

/// `text` in lines of at most `width` columns, broken at spaces, each line
/// after the first indented by `indent` columns (0 width = one line).
pub fn wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let room = width.saturating_sub(if lines.len() == 1 { 0 } else { indent });
        let line = lines.last_mut().expect("one line at least");
        if width > 0 && !line.is_empty() && line.width() + 1 + word.width() > room {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// Width a drawn cell takes.
pub fn width(text: &str) -> usize {
    text.width()
}

/// Which columns and rows to draw. `widths[i]`: column i's drawn width
/// (header and cells, already cut). A column takes its width plus 3
/// ("│ x " ), the table 1 more; the gap column takes 4 ("│ … ").
pub fn fit(widths: &[usize], n_rows: usize, fit: Fit) -> Fitted {
    let columns = fit_columns(widths, fit.max_width);
    let rows: Vec<Option<usize>> = match fit.max_rows {
        m if m == 0 || n_rows <= m => (0..n_rows).map(Some).collect(),
        m => {
            let head = m.div_ceil(2);
            let tail = m - head;
            (0..head)
                .map(Some)
                .chain(std::iter::once(None))
                .chain((n_rows - tail..n_rows).map(Some))
                .collect()
        }
    };
    let shown_rows = rows.iter().flatten().count();
    let shown_cols = columns.iter().flatten().count();
    let mut footer = match (n_rows, shown_rows == n_rows) {
        (1, _) => "1 row".to_string(),
        (n, true) => format!("{n} rows"),
        (n, false) => format!("{n} rows, {shown_rows} shown"),
    };
    if shown_cols < widths.len() {
        footer.push_str(&format!("; {} columns, {shown_cols} shown", widths.len()));
    }
    Fitted {
        columns,
        rows,
        footer,
    }
}

/// The narrowest a long column is cut to before columns are elided: a case
/// name or a model stays readable.
pub const SHRINK_FLOOR: usize = 24;

/// A cell's widest when the table cannot fit even with its long columns
/// at `SHRINK_FLOOR`: middle columns are elided, and the ones shown keep
/// what a reader can take in at a glance.
pub const ELIDED_CELL: usize = 40;

/// Each column's width cap for a table too wide for `max_width`: the widest
/// columns are cut first, down to the same cap, none below its header or
/// `SHRINK_FLOOR`, until the table fits. When even that does not fit, cells
/// are cut to `ELIDED_CELL` only and the middle columns elided after.
/// `widths`: drawn widths; `headers`: the headers' widths.
pub fn shrink(widths: &[usize], headers: &[usize], max_width: usize) -> Vec<usize> {
    let total = |caps: &[usize]| 1 + caps.iter().map(|w| w + 3).sum::<usize>();
    if max_width == 0 || total(widths) <= max_width {
        return widths.to_vec();
    }
    let floor = |c: usize| widths[c].min(headers[c].max(SHRINK_FLOOR));
    let capped = |cap: usize| -> Vec<usize> {
        (0..widths.len())
            .map(|c| widths[c].min(cap.max(floor(c))))
            .collect()
    };
    let widest = widths.iter().copied().max().unwrap_or(0);
    // The largest cap that fits.
    (SHRINK_FLOOR..=widest)
        .rev()
        .map(capped)
        .find(|caps| total(caps) <= max_width)
        .unwrap_or_else(|| match widths.len() {
            // One column: cut to the room there is.
            1 => vec![max_width.saturating_sub(4).max(1)],
            _ => capped(ELIDED_CELL),
        })
}

fn fit_columns(widths: &[usize], max_width: usize) -> Vec<Option<usize>> {
    let all: usize = 1 + widths.iter().map(|w| w + 3).sum::<usize>();
    if max_width == 0 || all <= max_width || widths.len() <= 1 {
        return (0..widths.len()).map(Some).collect();
    }
    // First and last columns first, then inward from both ends, left first,
    // while the gap column still fits; a side stops at its first column
    // that does not fit (what is shown stays contiguous from each end).
    let budget = max_width.saturating_sub(1 + 4);
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let (mut lo, mut hi) = (0usize, widths.len());
    let mut used = 0;
    let mut blocked = [false, false];
    let mut side = 0;
    while lo < hi && !(blocked[0] && blocked[1]) {
        if !blocked[side] {
            let i = if side == 0 { lo } else { hi - 1 };
            match used + widths[i] + 3 <= budget {
                true => {
                    used += widths[i] + 3;
                    match side {
                        0 => {
                            left.push(i);
                            lo += 1;
                        }
                        _ => {
                            right.push(i);
                            hi -= 1;
                        }
                    }
                }
                false => blocked[side] = true,
            }
        }
        side = 1 - side;
    }
    if left.is_empty() {
        // Not even the first column fits: show it alone, cut by the terminal.
        left.push(0);
    }
    right.reverse();
    let mut out: Vec<Option<usize>> = left.into_iter().map(Some).collect();
    out.push(None);
    out.extend(right.into_iter().map(Some));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widest_columns_are_cut_first_and_never_below_the_floor() {
        // 12 + 40 + 30 + 3 (each +3, +1 edge) = 98: fits 100 whole.
        assert_eq!(
            shrink(&[12, 40, 30, 3], &[3, 8, 5, 3], 100),
            vec![12, 40, 30, 3]
        );
        // At 90: the 40 is cut to 32, the 30 left (12+32+30+3+13 = 90).
        assert_eq!(
            shrink(&[12, 40, 30, 3], &[3, 8, 5, 3], 90),
            vec![12, 32, 30, 3]
        );
        // At 80 the 40 and the 30 both go to 26 (12+26+26+3, +16 = 80).
        assert_eq!(
            shrink(&[12, 40, 30, 3], &[3, 8, 5, 3], 80),
            vec![12, 26, 26, 3]
        );
        // Never below a header wider than the floor.
        assert_eq!(
            shrink(&[12, 40, 30, 3], &[3, 28, 5, 3], 80),
            vec![12, 28, 24, 3]
        );
        // At 60 no cap fits: nothing under ELIDED_CELL is cut (columns are elided instead).
        assert_eq!(
            shrink(&[12, 40, 30, 3], &[3, 8, 5, 3], 60),
            vec![12, 40, 30, 3]
        );
        // A cell of any length is cut to ELIDED_CELL when the table cannot fit.
        assert_eq!(
            shrink(&[12, 5000, 30, 3], &[3, 8, 5, 3], 60),
            vec![12, 40, 30, 3]
        );
        // One column: as wide as the terminal leaves room for.
        assert_eq!(shrink(&[500], &[8], 100), vec![96]);
    }

    #[test]
    fn a_table_that_fits_is_left_whole() {
        let f = fit(
            &[3, 3],
            2,
            Fit {
                max_width: 80,
                max_rows: 40,
                max_cell: 40,
            },
        );
        assert_eq!(f.columns, vec![Some(0), Some(1)]);
        assert_eq!(f.footer, "2 rows");
    }

    #[test]
    fn middle_columns_go_first_and_the_footer_says_so() {
        // 10 columns of width 10 (13 each): 80 columns hold 5 and the gap (4) and the edge (1).
        let f = fit(
            &[10; 10],
            1,
            Fit {
                max_width: 80,
                max_rows: 0,
                max_cell: 0,
            },
        );
        let shown: Vec<usize> = f.columns.iter().flatten().copied().collect();
        assert_eq!(shown, vec![0, 1, 2, 8, 9]);
        assert_eq!(f.columns[3], None);
        let drawn = 1 + shown.len() * 13 + 4;
        assert!(drawn <= 80, "{drawn}");
        assert_eq!(f.footer, "1 row; 10 columns, 5 shown");
    }

    #[test]
    fn middle_rows_are_elided_past_the_limit() {
        let f = fit(
            &[1],
            100,
            Fit {
                max_width: 0,
                max_rows: 5,
                max_cell: 0,
            },
        );
        assert_eq!(
            f.rows,
            vec![Some(0), Some(1), Some(2), None, Some(98), Some(99)]
        );
        assert_eq!(f.footer, "100 rows, 5 shown");
    }

    #[test]
    fn text_wraps_at_spaces_within_the_width() {
        let lines = wrap("one two three four five", 10, 0);
        assert_eq!(lines, vec!["one two", "three four", "five"]);
        // Lines after the first lose the indent from their room.
        let lines = wrap("one two three four five", 10, 2);
        assert_eq!(lines, vec!["one two", "three", "four", "five"]);
        assert_eq!(wrap("one two", 0, 2), vec!["one two"]);
    }

    #[test]
    fn cells_are_cut_to_their_width_on_one_line() {
        assert_eq!(cell("abcdef", 4), "abc…");
        assert_eq!(cell("a\nb", 0), "a↵b");
        assert_eq!(width(&cell("日本語テキスト", 5)), 5);
    }
}
