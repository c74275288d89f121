//! Triton's `LinearLayout::toString` text, exactly as `warpforge layout`
//! prints it (`impl Display for LinearLayout`):
//!
//! ```text
//!  - register=1 -> (0, 1)
//!    register=2 -> (0, 2)
//!  - lane=1 -> (0, 4)
//!  ...
//!  - block is a size 1 dimension
//! where out dims are: [dim0 (size 16), dim1 (size 16)]
//! ```
//!
//! In dims must be `register`, `lane`, `warp`, `block` (any may be absent),
//! out dims `dim0..dim{rank-1}` in order; basis `i` of an in dim must be
//! labelled `1 << i`.

use super::{linear_text, Format, LayoutText};
use crate::layout::{BLOCK, LANE, REGISTER, WARP};

type Res<T> = Result<T, (usize, String)>;

/// Parse the text; errors are `(byte offset, message)`.
pub(super) fn parse(text: &str) -> Res<LayoutText> {
    // (in dim name, bases with the offset of each basis)
    let mut dims: Vec<(String, usize, Vec<(Vec<i64>, usize)>)> = Vec::new();
    let mut outs: Option<(Vec<(String, i64)>, usize)> = None;
    let mut off = 0;
    for raw in text.split_inclusive('\n') {
        let start = off;
        off += raw.len();
        let line = raw.trim_end();
        let ind = line.len() - line.trim_start().len();
        let l = line.trim_start();
        let at = start + ind;
        if l.is_empty() {
            continue;
        }
        if outs.is_some() {
            return Err((at, "text after the `where out dims are: [...]` line".into()));
        }
        if l.starts_with("(empty layout") {
            return Err((
                at,
                "an empty layout (no in dims) is not a distributed layout".into(),
            ));
        }
        if let Some(rest) = l.strip_prefix("where out dims are:") {
            let base = at + (l.len() - rest.len());
            outs = Some((out_dims(rest, base)?, at));
            continue;
        }
        let (new_dim, body, body_at) = match l.strip_prefix("- ") {
            Some(b) => (true, b, at + 2),
            None => (false, l, at),
        };
        if new_dim {
            if let Some(name) = body.strip_suffix(" is a size 1 dimension") {
                check_in_dim(name.trim(), body_at, &dims)?;
                dims.push((name.trim().to_string(), body_at, vec![]));
                continue;
            }
        }
        let eq = body.find('=').ok_or((
            body_at,
            "expected `- NAME=1 -> (...)`, `NAME=2^i -> (...)`, `- NAME is a size 1 dimension` or `where out dims are: [...]`".to_string(),
        ))?;
        let name = &body[..eq];
        if new_dim {
            check_in_dim(name, body_at, &dims)?;
            dims.push((name.to_string(), body_at, vec![]));
        }
        let Some(cur) = dims.last_mut() else {
            return Err((
                body_at,
                "a basis line before any `- NAME=1 -> (...)` line".into(),
            ));
        };
        if cur.0 != name {
            return Err((
                body_at,
                format!(
                    "basis of `{name}` continues in dim `{}` (a new in dim starts with `- `)",
                    cur.0
                ),
            ));
        }
        let rest = &body[eq + 1..];
        let arrow = rest
            .find("->")
            .ok_or((body_at + eq + 1, "expected `-> (...)`".to_string()))?;
        let label_at = body_at + eq + 1;
        let label = rest[..arrow].trim();
        let want = 1i64.checked_shl(cur.2.len() as u32).unwrap_or(0);
        match label.parse::<i64>() {
            Ok(v) if v == want => {}
            Ok(v) => {
                return Err((
                    label_at,
                    format!(
                    "basis {} of `{name}` is labelled {v}, expected {want} (bases go 1, 2, 4, ...)",
                    cur.2.len()
                ),
                ))
            }
            Err(_) => return Err((label_at, crate::parse::not_an_integer(label))),
        }
        let tuple = rest[arrow + 2..].trim();
        let tuple_at = body_at
            + eq
            + 1
            + arrow
            + 2
            + (rest[arrow + 2..].len() - rest[arrow + 2..].trim_start().len());
        let inner = tuple
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix(')'))
            .ok_or((tuple_at, format!("expected `(v0, v1, ...)`, got `{tuple}`")))?;
        let mut vals = Vec::new();
        if !inner.trim().is_empty() {
            let mut p = tuple_at + 1;
            for part in inner.split(',') {
                let v = part.trim().parse::<i64>().map_err(|_| {
                    (
                        p + (part.len() - part.trim_start().len()),
                        crate::parse::not_an_integer(part),
                    )
                })?;
                vals.push(v);
                p += part.len() + 1;
            }
        }
        cur.2.push((vals, tuple_at));
    }
    let Some((outs, outs_at)) = outs else {
        return Err((
            text.trim_end().len(),
            "missing the last line `where out dims are: [dim0 (size N), ...]`".into(),
        ));
    };
    if dims.is_empty() {
        return Err((outs_at, "no in dims before `where out dims are`".into()));
    }
    for (i, (n, _)) in outs.iter().enumerate() {
        if *n != format!("dim{i}") {
            return Err((
                outs_at,
                format!(
                    "out dim {i} is `{n}`; warpforge reads layouts over dim0, dim1, ... in order"
                ),
            ));
        }
    }
    let mut by: [Vec<Vec<i32>>; 4] = Default::default();
    for (name, _, bases) in &dims {
        let k = [REGISTER, LANE, WARP, BLOCK]
            .iter()
            .position(|d| d == name)
            .expect("checked in check_in_dim");
        for (bi, (b, at)) in bases.iter().enumerate() {
            if b.len() != outs.len() {
                return Err((
                    *at,
                    format!(
                        "basis {bi} of `{name}` has {} values, the layout has {} out dims",
                        b.len(),
                        outs.len()
                    ),
                ));
            }
            for (v, (dn, size)) in b.iter().zip(&outs) {
                if *v < 0 || v >= size {
                    return Err((
                        *at,
                        format!("basis {bi} of `{name}` maps {dn} to {v}, outside 0..{size}"),
                    ));
                }
            }
            by[k].push(b.iter().map(|&v| v as i32).collect());
        }
    }
    let [reg, lane, warp, block] = by;
    let shape = outs.iter().map(|o| o.1).collect();
    Ok(linear_text(
        Format::ToString,
        reg,
        lane,
        warp,
        block,
        Some(shape),
    ))
}

fn check_in_dim(
    name: &str,
    at: usize,
    dims: &[(String, usize, Vec<(Vec<i64>, usize)>)],
) -> Res<()> {
    if ![REGISTER, LANE, WARP, BLOCK].contains(&name) {
        return Err((
            at,
            format!("in dim `{name}`: a distributed layout has register, lane, warp, block"),
        ));
    }
    if dims.iter().any(|d| d.0 == name) {
        return Err((at, format!("in dim `{name}` appears twice")));
    }
    Ok(())
}

/// `[dim0 (size 16), dim1 (size 8)]` starting at byte `base`.
fn out_dims(rest: &str, base: usize) -> Res<Vec<(String, i64)>> {
    let lead = rest.len() - rest.trim_start().len();
    let t = rest.trim();
    let at = base + lead;
    let inner = t
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or((at, "expected `[dim0 (size N), ...]`".to_string()))?;
    let mut out = Vec::new();
    let mut p = at + 1;
    for part in inner.split("),") {
        let item_at = p + (part.len() - part.trim_start().len());
        let item = part.trim().trim_end_matches(')');
        p += part.len() + 2;
        if item.is_empty() {
            continue;
        }
        let (name, size) = item
            .split_once(" (size ")
            .ok_or((item_at, format!("expected `NAME (size N)`, got `{item}`")))?;
        let size: i64 = size.trim().parse().map_err(|_| {
            (
                item_at,
                format!("size {}", crate::parse::not_an_integer(size)),
            )
        })?;
        if size <= 0 || size & (size - 1) != 0 || size > (1 << 30) {
            return Err((
                item_at,
                format!("size {size} of `{name}` is not a power of two"),
            ));
        }
        out.push((name.trim().to_string(), size));
    }
    if out.is_empty() {
        return Err((at, "no out dims".into()));
    }
    Ok(out)
}
