//! Text output of a [`Picture`]: tensors as tables like
//! `triton-tensor-layout` (one line per row of the 2-D tensor, cells
//! `T3:R1` or `W0:L3:R1`, `*N` after a broadcast element), stage tables
//! with one line per register or instruction and one column per lane.

use crate::{Panel, Picture};
use std::fmt::Write;

fn table(out: &mut String, row_labels: &[String], col_labels: &[String], cells: &[Vec<String>]) {
    let w = cells
        .iter()
        .flatten()
        .map(|c| c.len())
        .chain(col_labels.iter().map(|c| c.len()))
        .max()
        .unwrap_or(1);
    let lw = row_labels.iter().map(|l| l.len()).max().unwrap_or(0);
    let _ = write!(out, "{:lw$} ", "");
    for c in col_labels {
        let _ = write!(out, " {c:>w$}");
    }
    out.push('\n');
    for (r, row) in cells.iter().enumerate() {
        let _ = write!(out, "{:>lw$} ", row_labels.get(r).map_or("", |s| s));
        for c in row {
            let _ = write!(out, " {c:>w$}");
        }
        out.push('\n');
    }
}

/// The picture as text.
pub fn render(p: &Picture) -> String {
    let mut out = format!("{}\n", p.title);
    for row in &p.rows {
        for pn in row {
            out.push('\n');
            match pn {
                Panel::Tensor {
                    title,
                    rows,
                    cols,
                    note,
                    legend,
                    cells,
                    ..
                } => {
                    let _ = writeln!(out, "== {title}");
                    if let Some(n) = note {
                        let _ = writeln!(out, "   ({n})");
                    }
                    let _ = writeln!(out, "   {legend}");
                    let labels: Vec<String> = cells
                        .iter()
                        .map(|c| {
                            let l = if c.copies > 1 {
                                format!("{}*{}", c.label, c.copies)
                            } else {
                                c.label.clone()
                            };
                            if c.mark {
                                l + "!"
                            } else {
                                l
                            }
                        })
                        .collect();
                    let grid: Vec<Vec<String>> = labels
                        .chunks((*cols).max(1))
                        .take(*rows)
                        .map(|c| c.to_vec())
                        .collect();
                    let rl: Vec<String> = (0..*rows).map(|r| format!("{r}:")).collect();
                    let cl: Vec<String> = (0..*cols).map(|c| c.to_string()).collect();
                    table(&mut out, &rl, &cl, &grid);
                }
                Panel::Table {
                    title,
                    row_labels,
                    col_labels,
                    cells,
                    note,
                    ..
                } => {
                    let _ = writeln!(out, "== {title}");
                    if let Some(n) = note {
                        let _ = writeln!(out, "   ({n})");
                    }
                    let grid: Vec<Vec<String>> = cells
                        .iter()
                        .map(|r| r.iter().map(|c| c.label.clone()).collect())
                        .collect();
                    let cl: Vec<String> = col_labels
                        .iter()
                        .map(|c| c.trim_start_matches('L').to_string())
                        .collect();
                    table(&mut out, row_labels, &cl, &grid);
                }
                Panel::Text { title, lines, .. } => {
                    let _ = writeln!(out, "== {title}");
                    for l in lines {
                        let _ = writeln!(out, "   {l}");
                    }
                }
            }
        }
    }
    out
}
