use crate::expr::linear_expr;
use std::collections::BTreeSet;
use synth::plan::{ShflMode, Stage};

/// Declare predicate `p{mask}` (lane parity over `mask`) once.
pub(crate) fn declare_pred(out: &mut Vec<String>, preds: &mut BTreeSet<u32>, mask: u32) {
    if preds.insert(mask) {
        let cond = if mask.count_ones() == 1 {
            format!("((lane >> {}) & 1u) != 0u", mask.trailing_zeros())
        } else {
            format!("(__popc(lane & {mask}u) & 1) != 0")
        };
        out.push(format!("const bool p{mask} = {cond};"));
    }
}

/// The shuffle call reading `a` for a [`Stage::Shuffle`] entry with
/// argument `c` (stage `si` declares `sl{si}` for `Idx`).
pub(crate) fn shfl_call(mode: ShflMode, a: &str, si: usize, c: u32) -> String {
    match mode {
        ShflMode::Idx if c == 0 => format!("detail::shfl_idx({a}, sl{si})"),
        ShflMode::Idx => format!("detail::shfl_idx({a}, sl{si} ^ {c}u)"),
        ShflMode::Bfly => format!("detail::shfl_xor({a}, {c}u)"),
        ShflMode::Up => format!("detail::shfl_up({a}, {c}u)"),
        ShflMode::Down => format!("detail::shfl_down({a}, {c}u)"),
    }
}

/// One stage of a plan that carries 32-bit words (between `Pack` and
/// `Unpack`, see `synth::plan::gather`): renames, selects and shuffles of
/// `unsigned` words, and byte permutes with lane-dependent selectors
/// (computed once per distinct selector). Returns the new register names,
/// or the stage kind when it cannot act on words.
pub(crate) fn word_stage(
    out: &mut Vec<String>,
    preds: &mut BTreeSet<u32>,
    si: usize,
    st: &Stage,
    names: Vec<String>,
) -> Result<Vec<String>, &'static str> {
    reg_stage(out, preds, si, st, names, true)
}

/// Renames, selects and shuffles of register values (`words`: `unsigned`
/// words named `w{si}_{k}`, else elements of type `T` named `s{si}_{k}`),
/// and byte permutes of words; see [`word_stage`].
pub(crate) fn reg_stage(
    out: &mut Vec<String>,
    preds: &mut BTreeSet<u32>,
    si: usize,
    st: &Stage,
    names: Vec<String>,
    words: bool,
) -> Result<Vec<String>, &'static str> {
    let (ty, pre) = if words { ("unsigned", "w") } else { ("T", "s") };
    Ok(match st {
        Stage::RegRename { map } => map.iter().map(|&i| names[i as usize].clone()).collect(),
        Stage::Select { entries } => {
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                if e.if_set == e.if_clear {
                    next.push(names[e.if_set as usize].clone());
                    continue;
                }
                declare_pred(out, preds, e.lane_mask);
                let v = format!("{pre}{si}_{k}");
                out.push(format!(
                    "const {ty} {v} = p{} ? {} : {};",
                    e.lane_mask, names[e.if_set as usize], names[e.if_clear as usize]
                ));
                next.push(v);
            }
            next
        }
        Stage::Shuffle {
            mode,
            lane_map,
            entries,
        } => {
            if *mode == ShflMode::Idx {
                out.push(format!(
                    "const unsigned sl{si} = {};",
                    linear_expr("lane", lane_map)
                ));
            }
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                let a = names[e.reg as usize].clone();
                let Some(c) = e.arg else {
                    next.push(a);
                    continue;
                };
                let v = format!("{pre}{si}_{k}");
                out.push(format!("const {ty} {v} = {};", shfl_call(*mode, &a, si, c)));
                next.push(v);
            }
            next
        }
        Stage::BytePerm { entries } if words => {
            let mut sels: Vec<(u32, Vec<u32>)> = Vec::new();
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                if e.is_copy() {
                    next.push(names[e.a as usize].clone());
                    continue;
                }
                let sel = if e.lane_independent() {
                    format!("{:#06x}u", e.selector)
                } else {
                    let key = (e.selector, e.lane_xor.clone());
                    let n = match sels.iter().position(|x| *x == key) {
                        Some(n) => n,
                        None => {
                            let mut expr = format!("{:#06x}u", e.selector);
                            for (i, &x) in e.lane_xor.iter().enumerate() {
                                if x != 0 {
                                    expr.push_str(&format!(
                                        " ^ (((lane >> {i}) & 1u) * {x:#06x}u)"
                                    ));
                                }
                            }
                            out.push(format!("const unsigned bs{si}_{} = {expr};", sels.len()));
                            sels.push(key);
                            sels.len() - 1
                        }
                    };
                    format!("bs{si}_{n}")
                };
                let v = format!("w{si}_{k}");
                out.push(format!(
                    "const unsigned {v} = __byte_perm({}, {}, {sel});",
                    names[e.a as usize], names[e.b as usize]
                ));
                next.push(v);
            }
            next
        }
        other => return Err(other.name()),
    })
}
