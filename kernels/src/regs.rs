use crate::kir::{Body, Expr, Func, Op, Stmt, Ty, Val};
use std::collections::BTreeMap;
use synth::plan::{ShflMode, Stage};

/// The thread's ids and the values a body declares once: `lane` and `warp`
/// (declared by [`Ids::open`]), the lane predicates `p<mask>` and the
/// scratch address `sb`, each declared on first use.
pub(crate) struct Ids {
    /// `const unsigned lane = threadIdx.x & 31u;` (`& 63u` on a wave64).
    pub lane: Val,
    /// `const unsigned warp = threadIdx.x >> 5;` (`>> 6` on a wave64), less
    /// the plan's first warp in a partition of a warp-specialized kernel
    /// (`(threadIdx.x >> 5) - 4u`: [`synth::plan::Plan::first_warp`]).
    pub warp: Val,
    /// The lane predicates declared so far, by lane mask.
    preds: BTreeMap<u32, Val>,
    /// `const unsigned sb = detail::smem_u32(smem);`, once declared.
    sb: Option<Val>,
}

impl Ids {
    /// Declare `lane` and `warp` of warps of `lanes` lanes (32 or 64; and
    /// void them, as a body may read neither) at the end of `b`; `warp`
    /// counts from the CTA's warp `first_warp` (0 but in a partition of a
    /// warp-specialized kernel, whose warps start there).
    pub(crate) fn open(b: &mut Body, lanes: u32, first_warp: u32) -> Ids {
        let lane = b.let_(
            "lane",
            Ty::U32,
            Expr::bin(Op::And, Expr::ThreadIdx, Expr::u(lanes - 1)),
        );
        let cta_warp = Expr::bin(Op::Shr, Expr::ThreadIdx, Expr::int(lanes.trailing_zeros()));
        let warp = b.let_(
            "warp",
            Ty::U32,
            if first_warp == 0 {
                cta_warp
            } else {
                Expr::bin(Op::Sub, Expr::paren(cta_warp), Expr::u(first_warp))
            },
        );
        b.push(Stmt::Void(Expr::V(lane)));
        b.push(Stmt::Void(Expr::V(warp)));
        Ids {
            lane,
            warp,
            preds: BTreeMap::new(),
            sb: None,
        }
    }

    /// The predicate `p{mask}` (odd parity of `lane` over `mask`), declared
    /// into `b` on first use: `((lane >> k) & 1u) != 0u` for one bit `k`,
    /// else `(__popc(lane & {mask}u) & 1) != 0`.
    pub(crate) fn pred(&mut self, b: &mut Body, mask: u32) -> Val {
        if let Some(&p) = self.preds.get(&mask) {
            return p;
        }
        let lane = Expr::V(self.lane);
        let cond = if mask.count_ones() == 1 {
            let bit = Expr::paren(Expr::bin(
                Op::And,
                Expr::paren(Expr::bin(Op::Shr, lane, Expr::int(mask.trailing_zeros()))),
                Expr::u(1),
            ));
            Expr::bin(Op::Ne, bit, Expr::u(0))
        } else {
            let popc = Expr::call(Func::Popc, vec![Expr::bin(Op::And, lane, Expr::u(mask))]);
            let odd = Expr::paren(Expr::bin(Op::And, popc, Expr::int(1)));
            Expr::bin(Op::Ne, odd, Expr::int(0))
        };
        let p = b.let_(format!("p{mask}"), Ty::Bool, cond);
        self.preds.insert(mask, p);
        p
    }

    /// The scratch's shared-window address `sb`, declared into `b` on first
    /// use.
    pub(crate) fn sb(&mut self, b: &mut Body) -> Val {
        *self.sb.get_or_insert_with(|| {
            b.let_("sb", Ty::U32, Expr::call(Func::SmemU32, vec![Expr::Smem]))
        })
    }
}

/// The shuffle of `a` for a [`Stage::Shuffle`] entry with argument `c`
/// (`sl`: the stage's source lane, declared for `Idx`):
/// `detail::shfl_idx(a, sl[ ^ c])`, else `detail::shfl_{xor,up,down}(a, c)`.
pub(crate) fn shfl_call(mode: ShflMode, a: Expr, sl: Option<Val>, c: u32) -> Expr {
    let arg = match (mode, sl) {
        (ShflMode::Idx, Some(sl)) if c == 0 => Expr::V(sl),
        (ShflMode::Idx, Some(sl)) => Expr::bin(Op::Xor, Expr::V(sl), Expr::u(c)),
        _ => Expr::u(c),
    };
    Expr::call(Func::Shfl(mode), vec![a, arg])
}

/// The source lane `sl{si}` of an `Idx` shuffle stage `si`, declared into
/// `b` (a linear function of `lane`, `lane_map`); `None` for other modes.
pub(crate) fn shfl_lane(
    b: &mut Body,
    ids: &Ids,
    si: usize,
    mode: ShflMode,
    lane_map: &[u32],
) -> Option<Val> {
    (mode == ShflMode::Idx)
        .then(|| b.let_(format!("sl{si}"), Ty::U32, Expr::linear(ids.lane, lane_map)))
}

/// One stage of a plan that carries 32-bit words (between `Pack` and
/// `Unpack`, see `synth::plan::gather`): renames, selects and shuffles of
/// `unsigned` words, and byte permutes with lane-dependent selectors
/// (computed once per distinct selector). Takes each register's value and
/// returns the new ones (a new word is `w{si}_{k}`), or the stage kind
/// when it cannot act on words.
pub(crate) fn word_stage(
    b: &mut Body,
    ids: &mut Ids,
    si: usize,
    st: &Stage,
    names: Vec<Expr>,
) -> Result<Vec<Expr>, &'static str> {
    reg_stage(b, ids, si, st, names, true)
}

/// Renames, selects and shuffles of register values (`words`: `unsigned`
/// words named `w{si}_{k}`, else elements of type `T` named `s{si}_{k}`),
/// and byte permutes of words; see [`word_stage`].
pub(crate) fn reg_stage(
    b: &mut Body,
    ids: &mut Ids,
    si: usize,
    st: &Stage,
    names: Vec<Expr>,
    words: bool,
) -> Result<Vec<Expr>, &'static str> {
    let (ty, pre) = if words {
        (Ty::U32, "w")
    } else {
        (Ty::Elem, "s")
    };
    Ok(match st {
        Stage::RegRename { map } => map.iter().map(|&i| names[i as usize].clone()).collect(),
        Stage::Select { entries } => {
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                if e.if_set == e.if_clear {
                    next.push(names[e.if_set as usize].clone());
                    continue;
                }
                let p = ids.pred(b, e.lane_mask);
                let pick = Expr::cond(
                    Expr::V(p),
                    names[e.if_set as usize].clone(),
                    names[e.if_clear as usize].clone(),
                );
                next.push(Expr::V(b.let_(format!("{pre}{si}_{k}"), ty, pick)));
            }
            next
        }
        Stage::Shuffle {
            mode,
            lane_map,
            entries,
        } => {
            let sl = shfl_lane(b, ids, si, *mode, lane_map);
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                let a = names[e.reg as usize].clone();
                let Some(c) = e.arg else {
                    next.push(a);
                    continue;
                };
                let call = shfl_call(*mode, a, sl, c);
                next.push(Expr::V(b.let_(format!("{pre}{si}_{k}"), ty, call)));
            }
            next
        }
        Stage::BytePerm { entries } if words => byte_perms(b, ids, si, entries, &names),
        other => return Err(other.name()),
    })
}

/// A byte-permute stage `si` of words: `w{si}_{k} = __byte_perm(a, b,
/// sel)`, a lane-dependent selector declared once per distinct one as
/// `bs{si}_{n} = sel ^ (((lane >> i) & 1u) * x) ^ ...`.
fn byte_perms(
    b: &mut Body,
    ids: &Ids,
    si: usize,
    entries: &[synth::plan::PermEntry],
    names: &[Expr],
) -> Vec<Expr> {
    let mut sels: Vec<((u32, Vec<u32>), Val)> = Vec::new();
    let mut next = Vec::with_capacity(entries.len());
    for (k, e) in entries.iter().enumerate() {
        if e.is_copy() {
            next.push(names[e.a as usize].clone());
            continue;
        }
        let sel = if e.lane_independent() {
            Expr::sel(e.selector)
        } else {
            let key = (e.selector, e.lane_xor.clone());
            let v = match sels.iter().find(|x| x.0 == key) {
                Some(x) => x.1,
                None => {
                    let terms =
                        e.lane_xor
                            .iter()
                            .enumerate()
                            .filter(|x| *x.1 != 0)
                            .map(|(i, &x)| {
                                let bit = Expr::paren(Expr::bin(
                                    Op::And,
                                    Expr::paren(Expr::bin(
                                        Op::Shr,
                                        Expr::V(ids.lane),
                                        Expr::int(i as u32),
                                    )),
                                    Expr::u(1),
                                ));
                                Expr::paren(Expr::bin(Op::Mul, bit, Expr::sel(x)))
                            });
                    let e =
                        Expr::chain(Op::Xor, std::iter::once(Expr::sel(e.selector)).chain(terms))
                            .expect("the selector itself");
                    let v = b.let_(format!("bs{si}_{}", sels.len()), Ty::U32, e);
                    sels.push((key, v));
                    v
                }
            };
            Expr::V(v)
        };
        let perm = Expr::prmt(
            names[e.a as usize].clone(),
            names[e.b as usize].clone(),
            sel,
        );
        next.push(Expr::V(b.let_(format!("w{si}_{k}"), Ty::U32, perm)));
    }
    next
}
