//! The packed form of a helper for 8- and 16-bit elements (docs/ARCHITECTURE.md 4.3):
//! `{ident}_packed16(const unsigned (&src)[S/2], unsigned (&dst)[D/2], ...)`
//! and `{ident}_packed8` (four per word). Which register bits pack is the
//! plan's `synth::plan::pack::PackMap` of each side (register vectors
//! common to both sides first, then the lowest bits), stated in the helper's
//! comment. The body follows the packed lowering of
//! `synth::plan::pack` step for step: words go to shared memory as they are
//! when their slots line up, loaded words stay words, and every other word is
//! built by a `prmt` network (`__byte_perm`; the words of a store stage,
//! and the destination words, each all together by one program that shares
//! intermediates between words, `synth::plan::pack::network`), so the `__byte_perm` calls here are
//! exactly the `prmt` that `synth::plan::pack::packed_cost` predicts. A
//! store whose broadcast copies store different registers (split stores,
//! `SmemAccess::reg_xor`) first chooses each input word of that network by
//! lane (`synth::plan::pack::store_word_choice`); a choice that would split
//! words has no packed form.
//! Plans that already carry words (`Plan::packs_words`: the packed shuffles
//! of `synth::plan::lift` and `synth::plan::gather`) are emitted without
//! their `Pack` and `Unpack` stages: their words are the helper's words.

use crate::element::lane_choice;
use crate::kir::{Body, Expr, Func, Op, Stmt, Ty, Val};
use crate::prmt::{prmt_program, Temps};
use crate::regs::{shfl_call, shfl_lane, word_stage, Ids};
use crate::smem::{guarded, load_words, stage_addrs, store_stmt, warp_guard};
use crate::EmitError;
use synth::plan::pack::{
    access_chunk, dst_pieces, packed_words_io, per_word, plan_maps, store_input_keys, store_pieces,
    store_word_choice, PackMap, Piece,
};
use synth::plan::{Plan, SelEntry, ShflEntry, ShflMode, SmemAccess, Stage};

/// One element value: slot `slot` of the 32-bit word `word`, or a loose
/// element (a value of type `T`).
#[derive(Clone, Debug, PartialEq)]
enum Elt {
    Slot { word: Expr, slot: u32 },
    Elem(Expr),
}

/// The state [`body_packed_kir`] threads through the stages of a plan: the
/// body so far and the value of each element register.
struct PackedBody {
    /// The body so far.
    b: Body,
    /// `lane`, `warp`, the lane predicates and the scratch address.
    ids: Ids,
    /// Element width in bits (8 or 16).
    bits: u32,
    /// The `prmt` temporaries declared so far.
    temps: Temps,
    /// The value of each element register of the current stage.
    vals: Vec<Elt>,
}

impl PackedBody {
    /// The body's opening for `bits`-bit elements on warps of `lanes`
    /// lanes counted from the CTA's warp `first_warp` ([`Ids::open`]): the
    /// element type `T`, `lane` and `warp`; no registers yet.
    fn new(bits: u32, lanes: u32, first_warp: u32) -> Self {
        let mut b = Body::default();
        b.push(Stmt::TypedefT(bits));
        let ids = Ids::open(&mut b, lanes, first_warp);
        PackedBody {
            b,
            ids,
            bits,
            temps: Temps::default(),
            vals: Vec::new(),
        }
    }

    /// The element as a value of type `T`: `detail::from_u32<T>(word[ >>
    /// shift])` for a slot.
    fn elem(&self, v: &Elt) -> Expr {
        match v {
            Elt::Elem(e) => e.clone(),
            Elt::Slot { word, slot: 0 } => Expr::call(Func::FromU32, vec![word.clone()]),
            Elt::Slot { word, slot } => {
                let shifted = Expr::bin(Op::Shr, word.clone(), Expr::u(slot * self.bits));
                Expr::call(Func::FromU32, vec![shifted])
            }
        }
    }

    /// The whole body of a plan that carries words itself
    /// (`Plan::packs_words`, `p` elements per word): its stages but the
    /// first (`Pack`) and the last (`Unpack`) on the words `src[w]`, then
    /// the destination words; `None` where [`packed_words_io`] finds no
    /// word-to-word form.
    fn words_throughout(
        mut self,
        name: &str,
        plan: &Plan,
        p: u32,
    ) -> Result<Option<Body>, EmitError> {
        let Some(outs) = packed_words_io(plan, self.bits) else {
            return Ok(None);
        };
        let mut names: Vec<Expr> = (0..plan.src_regs / p)
            .map(|w| Expr::V(self.b.src(w, Ty::U32)))
            .collect();
        let n = plan.stages.len();
        for (si, st) in plan.stages.iter().enumerate().take(n - 1).skip(1) {
            names = word_stage(&mut self.b, &mut self.ids, si, st, names).map_err(|kind| {
                EmitError::Unsupported {
                    name: name.into(),
                    stage: si,
                    kind,
                }
            })?;
        }
        for (j, &w) in outs.iter().enumerate() {
            self.b.push(Stmt::Dst {
                j: j as u32,
                e: names[w as usize].clone(),
            });
        }
        Ok(Some(self.b))
    }

    /// Stage `si` of the conversion `name` on the element values; `false`
    /// where the stage has no packed form (a store's register choice that
    /// does not move whole words).
    fn stage(&mut self, name: &str, si: usize, st: &Stage) -> Result<bool, EmitError> {
        match st {
            Stage::RegRename { map } => {
                self.vals = map.iter().map(|&i| self.vals[i as usize].clone()).collect();
            }
            Stage::Select { entries } => self.select(si, entries),
            Stage::Shuffle {
                mode,
                lane_map,
                entries,
            } => self.shuffle(si, *mode, lane_map, entries),
            Stage::SmemStore { access } => {
                if !self.smem_store(si, access) {
                    return Ok(false);
                }
            }
            Stage::Barrier { scope } => self.b.push(Stmt::Barrier(*scope)),
            Stage::SmemLoad { access } => self.smem_load(si, access),
            other => {
                return Err(EmitError::Unsupported {
                    name: name.into(),
                    stage: si,
                    kind: other.name(),
                });
            }
        }
        Ok(true)
    }

    /// A `Select` stage `si`: each chosen element `s{si}_{k}` of type `T`
    /// by the lane predicate `p<mask>` (declared on first use); an entry
    /// that chooses the same register either way keeps its value.
    fn select(&mut self, si: usize, entries: &[SelEntry]) {
        let mut next = Vec::with_capacity(entries.len());
        for (k, e) in entries.iter().enumerate() {
            if e.if_set == e.if_clear {
                next.push(self.vals[e.if_set as usize].clone());
                continue;
            }
            let p = self.ids.pred(&mut self.b, e.lane_mask);
            let (x, y) = (
                self.elem(&self.vals[e.if_set as usize]),
                self.elem(&self.vals[e.if_clear as usize]),
            );
            let v = self
                .b
                .let_(format!("s{si}_{k}"), Ty::Elem, Expr::cond(Expr::V(p), x, y));
            next.push(Elt::Elem(Expr::V(v)));
        }
        self.vals = next;
    }

    /// A `Shuffle` stage `si`: the source lane `sl{si}` (`Idx` mode, from
    /// `lane_map`), then each shuffled element `s{si}_{k}` of type `T`; an
    /// entry without a shuffle keeps its value.
    fn shuffle(&mut self, si: usize, mode: ShflMode, lane_map: &[u32], entries: &[ShflEntry]) {
        let sl = shfl_lane(&mut self.b, &self.ids, si, mode, lane_map);
        let mut next = Vec::with_capacity(entries.len());
        for (k, e) in entries.iter().enumerate() {
            let Some(c) = e.arg else {
                next.push(self.vals[e.reg as usize].clone());
                continue;
            };
            let call = shfl_call(mode, self.elem(&self.vals[e.reg as usize]), sl, c);
            let v = self.b.let_(format!("s{si}_{k}"), Ty::Elem, call);
            next.push(Elt::Elem(Expr::V(v)));
        }
        self.vals = next;
    }

    /// A shared-memory store stage `si`: addresses and the warp guard, the
    /// stage's words all by one `prmt` program ([`store_pieces`]), then one
    /// store per instruction of its words. A lane-dependent register choice
    /// ([`SmemAccess::reg_xor`]) first chooses each input word of that
    /// program, `const unsigned c{si}_{k} = (q ? .. : ..)`, by the
    /// predicates `q{si}_{lane|warp}{j}` ([`store_word_choice`]); `false`
    /// (nothing emitted that matters: the caller drops the body) where the
    /// choice does not move whole words.
    fn smem_store(&mut self, si: usize, access: &SmemAccess) -> bool {
        let addrs = stage_addrs(&mut self.b, &mut self.ids, si, access);
        let guard = warp_guard(&mut self.b, &self.ids, si, access);
        let chunk = access_chunk(access);
        // the stage's words by one prmt program, then the stores
        let pieces: Vec<Piece<Expr>> = self.vals.iter().map(piece).collect();
        let mut words = store_pieces(access, &pieces);
        if !access.reg_xor.is_zero() {
            let Some(maps) = store_word_choice(access, &pieces) else {
                return false;
            };
            let preds = lane_choice(&mut self.b, &self.ids, si, access);
            let choice: Vec<(Val, &[(Expr, Expr)])> = preds
                .iter()
                .zip(&maps)
                .map(|(&(p, _), m)| (p, &m[..]))
                .collect();
            let mut chosen: Vec<(Expr, Expr)> = Vec::new();
            for (k, key) in store_input_keys(&words).into_iter().enumerate() {
                let e = pick_word(&key, &choice);
                let v = self.b.let_(format!("c{si}_{k}"), Ty::U32, e);
                chosen.push((key, Expr::V(v)));
            }
            for p in words.iter_mut().flatten() {
                if let Some((_, c)) = chosen.iter().find(|(k, _)| *k == p.key) {
                    p.key = c.clone();
                }
            }
        }
        let mut names = prmt_program(&mut self.b, &mut self.temps, &words, self.bits).into_iter();
        for (inst, addr) in access.insts.iter().zip(addrs) {
            let n = inst.regs.chunks(chunk).count();
            let words: Vec<Expr> = names.by_ref().take(n).collect();
            self.b.push(guarded(guard, store_stmt(access, addr, words)));
        }
        true
    }

    /// A shared-memory load stage `si`: addresses, then per instruction its
    /// words, whose slots are appended to the element values (loaded words
    /// stay words).
    fn smem_load(&mut self, si: usize, access: &SmemAccess) {
        let addrs = stage_addrs(&mut self.b, &mut self.ids, si, access);
        let chunk = access_chunk(access) as u32;
        for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
            let words = load_words(&mut self.b, access, addr, si, ii);
            for e in 0..inst.regs.len() as u32 {
                self.vals.push(Elt::Slot {
                    word: Expr::V(words[(e / chunk) as usize]),
                    slot: e % chunk,
                });
            }
        }
    }

    /// The body's close: every destination word `dst[j]` (packed by `pd`,
    /// `dst_regs` elements) by one `prmt` program with shared
    /// intermediates; `None` where the stages did not end with `dst_regs`
    /// elements.
    fn finish(mut self, pd: &PackMap, dst_regs: u32) -> Option<Body> {
        if self.vals.len() as u32 != dst_regs {
            return None;
        }
        // every destination word by one prmt program (shared intermediates)
        let pieces: Vec<Piece<Expr>> = self.vals.iter().map(piece).collect();
        let words = dst_pieces(&pieces, pd, dst_regs, self.bits);
        let outs = prmt_program(&mut self.b, &mut self.temps, &words, self.bits);
        for (j, e) in outs.into_iter().enumerate() {
            self.b.push(Stmt::Dst { j: j as u32, e });
        }
        Some(self.b)
    }
}

/// The word `key` as the predicates of `choice` choose it (each level's
/// map taking a word to the one its predicate picks,
/// [`store_word_choice`]): a tree of `(q ? a : b)`, `2^k - 1` selects for
/// `k` predicates, as the element form's `pick_expr` chooses registers.
fn pick_word(key: &Expr, choice: &[(Val, &[(Expr, Expr)])]) -> Expr {
    match choice.split_first() {
        None => key.clone(),
        Some(((p, map), rest)) => {
            let to = map.iter().find(|(k, _)| k == key).map_or(key, |(_, t)| t);
            Expr::paren(Expr::cond(
                Expr::V(*p),
                pick_word(to, rest),
                pick_word(key, rest),
            ))
        }
    }
}

/// Where a value lives, as the packed lowering keys words: a loose element
/// is slot 0 of its zero-extended word `detail::to_u32(e)`.
fn piece(v: &Elt) -> Piece<Expr> {
    match v {
        Elt::Slot { word, slot } => Piece {
            key: word.clone(),
            slot: *slot,
        },
        Elt::Elem(e) => Piece {
            key: Expr::call(Func::ToU32, vec![e.clone()]),
            slot: 0,
        },
    }
}

/// The statements of the packed helper body of `plan` for elements of
/// `bits` (8 or 16), one per line: the lines of [`body_packed_kir`].
pub fn body_packed(name: &str, plan: &Plan, bits: u32) -> Result<Option<Vec<String>>, EmitError> {
    Ok(body_packed_kir(name, plan, bits)?.map(|b| b.lines()))
}

/// The packed helper body of `plan` for elements of `bits` (8 or 16): the
/// caller's `unsigned src[]` words (source registers packed by the plan's
/// source [`PackMap`]) into `unsigned dst[]` words; `None` when `bits` is
/// another width or a register array does not fill whole words. Errors as
/// [`crate::body`].
pub fn body_packed_kir(name: &str, plan: &Plan, bits: u32) -> Result<Option<Body>, EmitError> {
    let Some(p) = per_word(bits) else {
        return Ok(None);
    };
    if !plan.src_regs.is_multiple_of(p) || !plan.dst_regs.is_multiple_of(p) {
        return Ok(None);
    }
    // no packed form for cluster plans (docs/ARCHITECTURE.md 4.7), nor for
    // a store's register choice that does not move whole words
    if plan.is_cluster() {
        return Ok(None);
    }
    let mut b = PackedBody::new(bits, plan.lanes, plan.first_warp);
    if plan.packs_words() {
        // Words all the way: the plan without its Pack and Unpack.
        return b.words_throughout(name, plan, p);
    }
    let (ps, pd) = plan_maps(plan, bits);
    b.vals = (0..plan.src_regs)
        .map(|r| {
            let (w, slot) = ps.word_slot(r);
            Elt::Slot {
                word: Expr::V(b.b.src(w, Ty::U32)),
                slot,
            }
        })
        .collect();
    for (si, st) in plan.stages.iter().enumerate() {
        if !b.stage(name, si, st)? {
            return Ok(None);
        }
    }
    Ok(b.finish(&pd, plan.dst_regs))
}
