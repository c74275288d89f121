//! SVG output of a [`Picture`], written with the `svg` crate.
//!
//! Structure (what tests and tools can rely on): each tensor panel is a
//! `<g class="layout" data-elements="N" data-shape="AxB">` holding exactly
//! `N` `<rect class="cell">` elements, one per tensor element in row-major
//! order, each with a `<title>` listing every thread that holds it;
//! broadcast copies have `class="cell broadcast"` and a dashed outline;
//! marked cells (the shared-memory words of bank-conflicting lanes, `draw
//! --smem`) also have class `conflict` and a red outline.
//!
//! Each plan stage is one `<g class="stage KIND">` (KIND the stage's IR
//! name in lower case: `shuffle`, `select`, `byteperm`, `smemstore`,
//! `smemload`, `barrier`, `pack`, `unpack`, `regrename`) with
//! `data-stage="I"` (its position in the plan), `data-stage-kind="Shuffle"`
//! (the IR name) and the stage's facts as `data-NAME` (`data-count`:
//! instructions per thread; `data-mode`, `data-scope`, `data-width`, ...).
//! Stages drawn as tables (shuffle: the lane each lane reads; select: the
//! register each lane takes; byteperm: each lane's selector; shared-memory
//! accesses: each lane's bank) also have `data-rows` and `data-lanes` and
//! hold, per row, a `<text class="row-label" data-row="R">` and one
//! `<rect class="stage-cell" data-row="R" data-lane="L" data-VALUE="V">`
//! per lane, where `data-stage-value="VALUE"` on the group names the number
//! (`src-lane`, `reg`, `selector`, `bank`). Stages drawn as text (rename,
//! barrier, pack, unpack) hold one `<text class="stage-line">` per line.
//! Units: pixels (user units of the `viewBox`).

use crate::{Panel, Picture, StageTag};
use ::svg::node::element::{Group, Rectangle, Text, Title};
use ::svg::Document;

const FONT: &str = "ui-monospace, Menlo, Consolas, monospace";
const CELL_H: f64 = 18.0;
const CHAR_W: f64 = 5.6;
const LINE: f64 = 15.0;
const GAP: f64 = 30.0;
const MARGIN: f64 = 12.0;

/// `#rrggbb` of a hue (degrees) and lightness (percent) at 65% saturation.
pub fn hsl_hex(hue: f64, light: f64) -> String {
    let (h, s, l) = (
        hue.rem_euclid(360.0) / 360.0,
        0.65,
        (light / 100.0).clamp(0.0, 1.0),
    );
    let q = if l < 0.5 {
        l * (1.0 + s)
    } else {
        l + s - l * s
    };
    let p = 2.0 * l - q;
    let f = |t: f64| {
        let t = t.rem_euclid(1.0);
        let v = if t < 1.0 / 6.0 {
            p + (q - p) * 6.0 * t
        } else if t < 0.5 {
            q
        } else if t < 2.0 / 3.0 {
            p + (q - p) * (2.0 / 3.0 - t) * 6.0
        } else {
            p
        };
        (v * 255.0).round().clamp(0.0, 255.0) as u8
    };
    format!(
        "#{:02x}{:02x}{:02x}",
        f(h + 1.0 / 3.0),
        f(h),
        f(h - 1.0 / 3.0)
    )
}

/// The group of a stage panel: `class="stage KIND"` and its `data-`
/// attributes (a plain `class="note"` group for other text panels).
fn stage_group(tag: &Option<StageTag>, rows: Option<usize>) -> Group {
    let Some(t) = tag else {
        return Group::new().set("class", if rows.is_some() { "stage" } else { "note" });
    };
    let mut g = Group::new()
        .set("class", format!("stage {}", t.kind.to_lowercase()))
        .set("data-stage", t.index)
        .set("data-stage-kind", t.kind);
    if let Some(v) = t.value {
        g = g.set("data-stage-value", v);
    }
    if let Some(r) = rows {
        g = g.set("data-rows", r).set("data-lanes", 32);
    }
    for (k, v) in &t.attrs {
        g = g.set(format!("data-{k}"), v.as_str());
    }
    g
}

fn text(x: f64, y: f64, size: f64, s: &str) -> Text {
    Text::new(s).set("x", x).set("y", y).set("font-size", size)
}

/// Width and height of a panel in pixels.
fn size(p: &Panel) -> (f64, f64) {
    match p {
        Panel::Tensor {
            rows,
            cols,
            cells,
            note,
            title,
            legend,
            ..
        } => {
            let cw = cell_w(cells.iter().map(|c| label_of(c).len()).max().unwrap_or(1));
            let head = 3.0 + note.is_some() as u32 as f64;
            let w = 34.0 + *cols as f64 * cw;
            let tw = title.len().max(legend.len()) as f64 * CHAR_W * 1.1;
            (w.max(tw), head * LINE + CELL_H + *rows as f64 * CELL_H)
        }
        Panel::Table {
            row_labels,
            cells,
            title,
            note,
            ..
        } => {
            let lw = row_label_w(row_labels);
            let cw = cell_w(
                cells
                    .iter()
                    .flatten()
                    .map(|c| c.label.len())
                    .max()
                    .unwrap_or(1),
            );
            let w = lw + 32.0 * cw;
            let head = 1.0 + note.is_some() as u32 as f64;
            (
                w.max(title.len() as f64 * CHAR_W * 1.1),
                head * LINE + CELL_H * (1 + cells.len()) as f64,
            )
        }
        Panel::Text { title, lines, .. } => {
            let w = std::iter::once(title)
                .chain(lines)
                .map(|l| l.len())
                .max()
                .unwrap_or(0) as f64
                * CHAR_W
                * 1.1;
            (w, LINE * (1 + lines.len()) as f64 + 4.0)
        }
    }
}

fn cell_w(chars: usize) -> f64 {
    (chars as f64 * CHAR_W + 8.0).max(22.0)
}

fn row_label_w(labels: &[String]) -> f64 {
    labels.iter().map(|l| l.len()).max().unwrap_or(0) as f64 * CHAR_W + 10.0
}

fn label_of(c: &crate::Cell) -> String {
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
}

fn panel(p: &Panel, x: f64, y: f64) -> Group {
    match p {
        Panel::Tensor {
            title,
            shape,
            rows,
            cols,
            note,
            legend,
            cells,
        } => {
            let dims = shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("x");
            let mut g = Group::new()
                .set("class", "layout")
                .set("data-elements", cells.len())
                .set("data-shape", dims);
            let mut rects = Group::new()
                .set("class", "cells")
                .set("stroke", "#666")
                .set("stroke-width", 0.4);
            let mut labels = Group::new().set("class", "labels").set("font-size", 9);
            let mut ty = y + LINE - 3.0;
            g = g.add(text(x, ty, 12.0, title).set("font-weight", "bold"));
            ty += LINE;
            if let Some(n) = note {
                g = g.add(text(x, ty, 10.0, n).set("fill", "#a33"));
                ty += LINE;
            }
            g = g.add(text(x, ty, 10.0, legend).set("fill", "#555"));
            let top = ty + 4.0;
            let cw = cell_w(cells.iter().map(|c| label_of(c).len()).max().unwrap_or(1));
            let left = x + 34.0;
            // column indices
            let step = if *cols > 64 {
                8
            } else if *cols > 16 {
                4
            } else {
                1
            };
            for c in (0..*cols).step_by(step) {
                g = g.add(
                    text(
                        left + c as f64 * cw + 2.0,
                        top + CELL_H - 5.0,
                        8.0,
                        &c.to_string(),
                    )
                    .set("fill", "#777"),
                );
            }
            let gy = top + CELL_H;
            let rstep = if *rows > 64 {
                8
            } else if *rows > 16 {
                4
            } else {
                1
            };
            for r in (0..*rows).step_by(rstep) {
                g = g.add(
                    text(
                        x,
                        gy + r as f64 * CELL_H + CELL_H - 5.0,
                        8.0,
                        &r.to_string(),
                    )
                    .set("fill", "#777"),
                );
            }
            for (i, c) in cells.iter().enumerate() {
                let (r, col) = (i / cols.max(&1), i % cols.max(&1));
                let (cx, cy) = (left + col as f64 * cw, gy + r as f64 * CELL_H);
                let bc = c.copies > 1;
                let mut rect = Rectangle::new()
                    .set("class", if bc { "cell broadcast" } else { "cell" })
                    .set("x", cx)
                    .set("y", cy)
                    .set("width", cw)
                    .set("height", CELL_H)
                    .set("fill", hsl_hex(c.hue, c.light))
                    .add(Title::new(format!("[{i}] {}", c.tip)));
                if bc {
                    rect = rect
                        .set("stroke", "#000")
                        .set("stroke-width", 1.0)
                        .set("stroke-dasharray", "3,2");
                }
                if c.mark {
                    rect = rect
                        .set(
                            "class",
                            if bc {
                                "cell broadcast conflict"
                            } else {
                                "cell conflict"
                            },
                        )
                        .set("stroke", "#d00")
                        .set("stroke-width", 2.0);
                }
                rects = rects.add(rect);
                labels = labels.add(
                    Text::new(label_of(c))
                        .set("x", cx + 3.0)
                        .set("y", cy + CELL_H - 5.5),
                );
            }
            g.add(rects).add(labels)
        }
        Panel::Table {
            title,
            row_labels,
            col_labels,
            cells,
            note,
            stage,
        } => {
            let mut g = stage_group(stage, Some(cells.len()));
            let value_attr = format!(
                "data-{}",
                stage.as_ref().and_then(|t| t.value).unwrap_or("value")
            );
            let mut rects = Group::new()
                .set("class", "cells")
                .set("stroke", "#888")
                .set("stroke-width", 0.4);
            let mut labels = Group::new().set("class", "labels").set("font-size", 9);
            let mut ty = y + LINE - 3.0;
            g = g.add(text(x, ty, 11.0, title).set("font-weight", "bold"));
            if let Some(n) = note {
                ty += LINE;
                g = g.add(text(x, ty, 10.0, n).set("fill", "#a33"));
            }
            let lw = row_label_w(row_labels);
            let cw = cell_w(
                cells
                    .iter()
                    .flatten()
                    .map(|c| c.label.len())
                    .max()
                    .unwrap_or(1),
            );
            let top = ty + 4.0;
            for (c, l) in col_labels.iter().enumerate() {
                g = g.add(
                    text(x + lw + c as f64 * cw + 2.0, top + CELL_H - 5.0, 8.0, l)
                        .set("fill", "#777"),
                );
            }
            for (r, row) in cells.iter().enumerate() {
                let cy = top + CELL_H * (r + 1) as f64;
                g = g.add(
                    text(x, cy + CELL_H - 5.0, 9.0, &row_labels[r])
                        .set("class", "row-label")
                        .set("data-row", r),
                );
                for (c, cell) in row.iter().enumerate() {
                    let cx = x + lw + c as f64 * cw;
                    rects = rects.add(
                        Rectangle::new()
                            .set("class", "stage-cell")
                            .set("data-row", r)
                            .set("data-lane", c)
                            .set(value_attr.as_str(), cell.value)
                            .set("x", cx)
                            .set("y", cy)
                            .set("width", cw)
                            .set("height", CELL_H)
                            .set("fill", hsl_hex(cell.hue, cell.light)),
                    );
                    labels = labels.add(
                        Text::new(cell.label.as_str())
                            .set("x", cx + 2.0)
                            .set("y", cy + CELL_H - 5.5),
                    );
                }
            }
            g.add(rects).add(labels)
        }
        Panel::Text {
            title,
            lines,
            stage,
        } => {
            let mut g = stage_group(stage, None);
            g = g.add(text(x, y + LINE - 3.0, 11.0, title).set("font-weight", "bold"));
            for (i, l) in lines.iter().enumerate() {
                let mut t = text(x, y + LINE * (i + 2) as f64 - 3.0, 10.0, l);
                if stage.is_some() {
                    t = t.set("class", "stage-line");
                }
                g = g.add(t);
            }
            g
        }
    }
}

/// The picture as an SVG document (UTF-8 text).
pub fn render(p: &Picture) -> String {
    let mut y = MARGIN;
    let mut width: f64 = 0.0;
    let mut body = Group::new()
        .set("class", "picture")
        .set("font-family", FONT);
    body = body.add(text(MARGIN, y + 14.0, 15.0, &p.title).set("font-weight", "bold"));
    y += 28.0;
    for row in &p.rows {
        let mut x = MARGIN;
        let mut h: f64 = 0.0;
        for pn in row {
            let (w, ph) = size(pn);
            body = body.add(panel(pn, x, y));
            x += w + GAP;
            h = h.max(ph);
        }
        width = width.max(x - GAP + MARGIN);
        y += h + GAP;
    }
    width = width.max(p.title.len() as f64 * 8.5 + 2.0 * MARGIN);
    let height = y - GAP + MARGIN;
    Document::new()
        .set("viewBox", (0, 0, width.ceil(), height.ceil()))
        .set("width", width.ceil())
        .set("height", height.ceil())
        .add(
            Rectangle::new()
                .set("class", "background")
                .set("width", "100%")
                .set("height", "100%")
                .set("fill", "white"),
        )
        .add(body)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsl_corners() {
        assert_eq!(hsl_hex(0.0, 0.0), "#000000");
        assert_eq!(hsl_hex(0.0, 100.0), "#ffffff");
        assert_eq!(hsl_hex(0.0, 50.0), "#d22d2d");
    }
}
