mod fold;
mod via_packed;
mod words;

pub(crate) use via_packed::{body_via_packed, Arrays, Words, VIA_PACKED_MIN_ELEMS, WORD_CHOICES};
use via_packed::{load_natural_words, store_natural_words};

use crate::kir::{pass, Body, Expr, Func, Op, Stmt, Ty, Val};
use crate::prmt::{prmt_program_steps, PrmtDef, Temps};
use crate::regs::{reg_stage, word_stage, Ids};
use crate::smem::{guarded, load_words, stage_addrs, store_stmt, warp_guard};
use crate::EmitError;
use fold::{fold_select_of_prmts, select_folded_words, SelDefs, Selectors};
use std::collections::{BTreeMap, BTreeSet};
use synth::plan::pack::Piece;
use synth::plan::{ClusterLoad, ClusterMap, ClusterStore, Plan, SelEntry, SmemAccess, Stage};
use words::{pack_words, unpack_words};

/// The predicates of a store's lane-dependent register choice
/// ([`synth::plan::SmemAccess::reg_xor`]), declared into `b` as `const bool
/// q{si}_{lane|warp}{j} = ({lane|warp} >> {j}u) & 1u;`: one `(predicate,
/// register XOR)` per lane or warp bit that has one.
pub(crate) fn lane_choice(
    b: &mut Body,
    ids: &Ids,
    si: usize,
    access: &SmemAccess,
) -> Vec<(Val, u32)> {
    let mut v = Vec::new();
    for (who, id, masks) in [
        ("lane", ids.lane, &access.reg_xor.lane),
        ("warp", ids.warp, &access.reg_xor.warp),
    ] {
        for (j, &m) in masks.iter().enumerate() {
            if m != 0 {
                let bit = Expr::paren(Expr::bin(Op::Shr, Expr::V(id), Expr::u(j as u32)));
                let e = Expr::bin(Op::And, bit, Expr::u(1));
                v.push((b.let_(format!("q{si}_{who}{j}"), Ty::Bool, e), m));
            }
        }
    }
    v
}

/// `names[r ^ XOR(predicate set: mask)]` as a tree of `(p ? a : b)` (one
/// `SEL` per inner node, `2^k - 1` for `k` predicates).
fn pick_expr(names: &[Expr], r: u32, choice: &[(Val, u32)]) -> Expr {
    match choice.split_first() {
        None => names[r as usize].clone(),
        Some(((p, m), rest)) => Expr::paren(Expr::cond(
            Expr::V(*p),
            pick_expr(names, r ^ m, rest),
            pick_expr(names, r, rest),
        )),
    }
}

/// The CTA rank `rank{si}` (`%cluster_ctarank`) of a cluster stage `si`,
/// and under `WARPFORGE_CHECK_CLUSTER` a `__trap()` when the cluster does
/// not have `ctas` CTAs (`%cluster_nctarank`); returns the rank.
fn cluster_rank(b: &mut Body, si: usize, ctas: u32) -> Val {
    let rank = b.val(format!("rank{si}"), Ty::U32);
    b.push(Stmt::ClusterRank { v: rank });
    b.push(Stmt::CheckClusterSize { ctas });
    rank
}

/// `lane`, `warp` and `rank` parts of a [`ClusterMap`] as one XOR (`0u`
/// when all vanish).
fn cluster_map_expr(m: &ClusterMap, ids: &Ids, rank: Val) -> Expr {
    let mut terms = Expr::linear_terms(ids.lane, &m.lane);
    terms.extend(Expr::linear_terms(ids.warp, &m.warp));
    terms.extend(Expr::linear_terms(rank, &m.block));
    Expr::xor_or_zero(terms)
}

/// The local scratch address `sb + (ob ^ offset) * eb` of a cluster
/// access's instruction.
fn cluster_local(sb: Val, ob: Val, offset: u32, eb: u32) -> Expr {
    let off = Expr::paren(Expr::bin(Op::Xor, Expr::V(ob), Expr::u(offset)));
    Expr::bin(Op::Add, Expr::V(sb), Expr::bin(Op::Mul, off, Expr::u(eb)))
}

/// `unsigned ra` = the cluster address of the local scratch address `local`
/// in the CTA `ct ^ cta` (`mapa.shared::cluster.u32`, PTX ISA "mapa"),
/// declared into `b` as `r{si}_{ii}`.
fn mapa(b: &mut Body, name: String, local: Expr, ct: Val, cta: u32) -> Val {
    let v = b.val(name, Ty::U32);
    b.push(Stmt::Mapa {
        v,
        addr: local,
        cta: Expr::bin(Op::Xor, Expr::V(ct), Expr::u(cta)),
    });
    v
}

/// The statements of a cluster load stage `si` (docs/ARCHITECTURE.md 4.7,
/// the *reader loads remotely* plan): the CTA rank and the cluster-size
/// check as [`cluster_store`], the run-time CTA part `ct{si}` (when some
/// instruction reads another CTA) and offset part `ob{si}`, then per
/// instruction either a plain `ld.shared` through the `detail::ld_*`
/// helpers (it reads the own CTA in every thread, [`ClusterLoad::local`])
/// or a `mapa.shared::cluster.u32` of the local scratch address to the
/// peer's and one `ld.shared::cluster` of its vector (`.u8`, `.u16`,
/// `.b32`, `.v2.b32`, `.v4.b32` by bytes, into 32-bit registers; PTX ISA
/// "Distributed Shared Memory", `mapa`, `ld`), `asm volatile` with a
/// `"memory"` clobber so that it stays between the cluster barriers.
/// Declares one `const T s{si}_{ii}_{e}` per loaded element and returns
/// them in load order, and the words loaded by a `const`. Needs `sb` (the
/// local scratch address).
fn cluster_load(
    b: &mut Body,
    ids: &Ids,
    sb: Val,
    si: usize,
    load: &ClusterLoad,
) -> (Vec<Expr>, Vec<Val>) {
    let eb = (load.width / 8).max(1);
    let rank = cluster_rank(b, si, 1u32 << load.cta.block.len());
    let any_remote = (0..load.insts.len()).any(|i| !load.local(i));
    let ct = any_remote.then(|| {
        b.let_(
            format!("ct{si}"),
            Ty::U32,
            cluster_map_expr(&load.cta, ids, rank),
        )
    });
    let ob = b.let_(
        format!("ob{si}"),
        Ty::U32,
        cluster_map_expr(&load.addr, ids, rank),
    );
    let mut names = Vec::new();
    let mut consts = Vec::new();
    for (ii, inst) in load.insts.iter().enumerate() {
        let bytes = inst.regs.len() as u32 * eb;
        let nw = bytes.div_ceil(4) as usize;
        let name = |j: usize| format!("w{si}_{ii}_{j}");
        let local = cluster_local(sb, ob, inst.offset, eb);
        let words: Vec<Val> = if load.local(ii) && matches!(bytes, 1 | 2 | 4) {
            let w = b.let_(name(0), Ty::U32, Expr::call(Func::Ld(bytes), vec![local]));
            consts.push(w);
            vec![w]
        } else if load.local(ii) {
            let words: Vec<Val> = (0..nw).map(|j| b.val(name(j), Ty::U32)).collect();
            b.push(Stmt::Decl {
                vals: words.clone(),
            });
            let mut args = vec![local];
            args.extend(words.iter().map(|&w| Expr::V(w)));
            b.push(Stmt::Call {
                f: Func::LdV(bytes),
                args,
            });
            words
        } else {
            let ct = ct.expect("declared for a remote instruction");
            let ra = mapa(b, format!("r{si}_{ii}"), local, ct, inst.cta);
            let words: Vec<Val> = (0..nw).map(|j| b.val(name(j), Ty::U32)).collect();
            b.push(Stmt::Decl {
                vals: words.clone(),
            });
            b.push(Stmt::LdCluster {
                outs: words.clone(),
                addr: ra,
                bytes,
            });
            words
        };
        let words: Vec<Expr> = words.into_iter().map(Expr::V).collect();
        for (e, v) in unpack_words(&words, load.width, inst.regs.len())
            .into_iter()
            .enumerate()
        {
            names.push(Expr::V(b.let_(format!("s{si}_{ii}_{e}"), Ty::Elem, v)));
        }
    }
    (names, consts)
}

/// The statements of a cluster store stage `si` (docs/ARCHITECTURE.md 4.7):
/// the CTA rank (`%cluster_ctarank`, the layout's block index), under
/// `WARPFORGE_CHECK_CLUSTER` a `__trap()` when the cluster has another size
/// (`%cluster_nctarank`), then per instruction a `mapa.shared::cluster.u32`
/// of the local scratch address to the target CTA's and one
/// `st.shared::cluster` of its vector (`.u8`, `.u16`, `.b32`, `.v2.b32`,
/// `.v4.b32` by bytes; PTX ISA "Distributed Shared Memory", `mapa`, `st`),
/// inside `if` when broadcast source copies skip their stores.
/// Needs `sb` (the local scratch address).
fn cluster_store(
    b: &mut Body,
    ids: &Ids,
    sb: Val,
    si: usize,
    store: &ClusterStore,
    names: &[Expr],
) {
    let eb = (store.width / 8).max(1);
    let rank = cluster_rank(b, si, 1u32 << store.cta.block.len());
    let ct = b.let_(
        format!("ct{si}"),
        Ty::U32,
        cluster_map_expr(&store.cta, ids, rank),
    );
    let ob = b.let_(
        format!("ob{si}"),
        Ty::U32,
        cluster_map_expr(&store.addr, ids, rank),
    );
    // broadcast source copies: only the threads with these bits clear store
    let skip: Vec<(Val, u32)> = [
        (ids.lane, store.skip_lane),
        (ids.warp, store.skip_warp),
        (rank, store.skip_block),
    ]
    .into_iter()
    .filter(|x| x.1 != 0)
    .collect();
    let start = b.stmts.len();
    for (ii, inst) in store.insts.iter().enumerate() {
        let vals: Vec<Expr> = inst
            .regs
            .iter()
            .map(|&r| names[r as usize].clone())
            .collect();
        let words = pack_words(&vals, store.width);
        let bytes = inst.regs.len() as u32 * eb;
        let local = cluster_local(sb, ob, inst.offset, eb);
        let addr = mapa(b, format!("r{si}_{ii}"), local, ct, inst.cta);
        b.push(Stmt::StCluster { addr, words, bytes });
    }
    if !skip.is_empty() {
        let body = b.stmts.split_off(start);
        b.push(Stmt::IfClear { masks: skip, body });
    }
}

/// The statements of a helper body for `plan` (one per line): the lines of
/// [`body_kir`].
pub fn body(name: &str, plan: &Plan) -> Result<Vec<String>, EmitError> {
    Ok(body_kir(name, plan)?.lines())
}

/// The element-form helper body for `plan`: the caller's `T src[]` into
/// `T dst[]` through the plan's stages, or, for plans that pack 8- or
/// 16-bit elements into words themselves
/// ([`synth::plan::words_in_natural_order`]), the arrays as natural 32-bit
/// words with the plan's words built from them by `prmt`. The helper prints
/// it for 16-bit data only where the element form takes no path through the
/// packed form ([`synth::plan::WordsRule::Folded`]); [`body_kir_with`]
/// keeps 16-bit elements element by element. Errors with
/// [`EmitError::Unsupported`] on a stage kind the element form cannot emit.
pub fn body_kir(name: &str, plan: &Plan) -> Result<Body, EmitError> {
    body_kir_with(name, plan, true)
}

/// [`body_kir`] with 16-bit elements element by element even where the
/// plan packs them itself (`fold16` false): the `warpforge::words::none`
/// branch of a helper whose element form goes through its packed form.
pub(crate) fn body_kir_with(name: &str, plan: &Plan, fold16: bool) -> Result<Body, EmitError> {
    let mut b = ElementBody::new(name, plan, fold16);
    for (si, st) in plan.stages.iter().enumerate() {
        if b.in_words {
            b.word_level(si, st)?;
        } else {
            b.element_level(si, st)?;
        }
    }
    Ok(b.finish())
}
/// The error for stage `si` of the conversion `name`, of a kind (`kind`,
/// a stage name) the element form cannot emit.
fn unsupported(name: &str, si: usize, kind: &'static str) -> EmitError {
    EmitError::Unsupported {
        name: name.into(),
        stage: si,
        kind,
    }
}

/// The state [`body_kir`] threads through the stages of a plan: the body
/// so far, the value of each register (an element of type `T`, or a 32-bit
/// word between a `Pack` and an `Unpack`), and, with natural words
/// ([`synth::plan::words_in_natural_order`]), where the elements live and
/// which words a later stage may fold.
struct ElementBody<'a> {
    /// The conversion's name (for errors).
    name: &'a str,
    /// The body so far.
    b: Body,
    /// `lane`, `warp`, the lane predicates and the scratch address.
    ids: Ids,
    /// The value of each register of the current stage.
    names: Vec<Expr>,
    /// Whether the caller's arrays are read and written as natural 32-bit
    /// words ([`synth::plan::words_in_natural_order`]).
    pun: bool,
    /// With natural words: the element width they hold (8 or 16 bits,
    /// [`synth::plan::words_in_natural_order`]); 0 without.
    pun_bits: u32,
    /// With natural words: the words `src_w[k]` loaded from the caller's
    /// source array.
    src_words: BTreeSet<Val>,
    /// With natural words: where each register's byte lives (the word it
    /// sits in and its byte) while it is a byte of a word; empty once an
    /// element-level stage has lost track.
    origin: Vec<Option<Piece<Expr>>>,
    /// The `prmt` temporaries declared so far.
    temps: Temps,
    /// Between a Pack and an Unpack the registers are 32-bit words.
    in_words: bool,
    /// With natural words: the word selects of the plan (`w = p ? a : b`, by
    /// result), which the destination words may fold ([`select_folded_words`]).
    sel_def: SelDefs,
    /// With natural words: the plan's words that are one `prmt` of natural
    /// words (`(a, b, selector)`), which a select of two of them folds into.
    pack_def: BTreeMap<Val, PrmtDef>,
    /// Lane-dependent `prmt` selectors declared so far.
    selectors: Selectors,
    /// Values whose definitions a fold may have left unread.
    folded: Vec<Val>,
    /// The words whose definitions may go once nothing reads them (pack
    /// words `k*`, word-stage and loaded words `w*`; with [`Temps::made`]
    /// the values [`pass::drop_unread`] may drop after a fold).
    words: BTreeSet<Val>,
}

impl<'a> ElementBody<'a> {
    /// The body's opening for `plan`: `lane` and `warp`, and the source
    /// registers as `src[i]`, or, with natural words of `p` elements each,
    /// as elements of the words `src_w[i / p]` loaded from the caller's
    /// array (`fold16` false: 16-bit elements stay element by element).
    fn new(name: &'a str, plan: &Plan, fold16: bool) -> Self {
        let mut b = Body::default();
        let ids = Ids::open(&mut b, plan.lanes, plan.first_warp);
        // 8-bit elements that the plan packs into words: read and write the
        // caller's arrays as natural 32-bit words (`memcpy`, four elements per
        // word, lowest index in the lowest byte). NVVM then keeps the caller's
        // arrays in 32-bit registers too, loop-carried ones included, instead of
        // one register per byte, which takes fewer registers and less time, and
        // less still with the words built by `prmt` below (measured in the
        // reference head-to-head harness h2h on an H100; see
        // `results/runs/2026-11-22-h100-h2h-registers-2d224f9/README.md`). Only from [`PUN_MIN_ELEMS`] elements.
        let pun_bits = match synth::plan::words_in_natural_order(plan) {
            Some(16) if !fold16 => 0,
            w => w.unwrap_or(0),
        };
        let pun = pun_bits != 0;
        // With natural words: where each register's byte lives (a word and
        // its byte), while it is a byte of a word, so that `Pack` and the
        // final store build words by `prmt` programs straight from the
        // words the bytes sit in (`prmt_program`: one `prmt` for bytes from two
        // words) rather than by shifts and ORs of extracted bytes, which NVVM
        // turned into about twice the instructions (`results/runs/2026-11-22-h100-h2h-registers-2d224f9/README.md`).
        let (names, origin, src_words) = if pun {
            let per = 32 / pun_bits;
            let src_w: Vec<Val> = (0..plan.src_regs / per)
                .map(|k| b.val(format!("src_w[{k}]"), Ty::U32))
                .collect();
            b.push(Stmt::Array {
                name: "src_w".into(),
                vals: src_w.clone(),
            });
            load_natural_words(&mut b, &src_w, per);
            let word = |i: u32| Expr::V(src_w[(i / per) as usize]);
            let origin = (0..plan.src_regs)
                .map(|i| {
                    Some(Piece {
                        key: word(i),
                        slot: i % per,
                    })
                })
                .collect();
            let names = (0..plan.src_regs)
                .map(|i| {
                    let w = match i % per {
                        0 => word(i),
                        k => Expr::bin(Op::Shr, word(i), Expr::u(pun_bits * k)),
                    };
                    Expr::call(Func::FromU32, vec![w])
                })
                .collect();
            (names, origin, src_w.into_iter().collect())
        } else {
            let names = (0..plan.src_regs)
                .map(|i| Expr::V(b.src(i, Ty::Elem)))
                .collect();
            (names, Vec::new(), BTreeSet::new())
        };
        ElementBody {
            name,
            b,
            ids,
            names,
            pun,
            pun_bits,
            src_words,
            origin,
            temps: Temps::default(),
            in_words: false,
            sel_def: BTreeMap::new(),
            pack_def: BTreeMap::new(),
            selectors: Vec::new(),
            folded: Vec::new(),
            words: BTreeSet::new(),
        }
    }

    /// Stage `si` while the registers are 32-bit words: an `Unpack` back to
    /// elements, or a word stage ([`word_stage`]) whose selects, with
    /// natural words, are folded or recorded ([`ElementBody::fold_selects`]).
    fn word_level(&mut self, si: usize, st: &Stage) -> Result<(), EmitError> {
        if let Stage::Unpack { width, map } = st {
            self.unpack(*width, map);
            return Ok(());
        }
        let before = std::mem::take(&mut self.names);
        let known = self.b.vals.len();
        self.names = word_stage(&mut self.b, &mut self.ids, si, st, before.clone())
            .map_err(|kind| unsupported(self.name, si, kind))?;
        // the stage's new words
        self.words.extend(
            self.names
                .iter()
                .filter_map(Expr::as_val)
                .filter(|v| v.0 as usize >= known),
        );
        if let (true, Stage::Select { entries }) = (self.pun, st) {
            self.fold_selects(entries, &before);
        }
        Ok(())
    }

    /// An `Unpack` of `width`-bit slots: register `e` becomes slot
    /// `map[e].1` of word `map[e].0` (a shift); with natural words of
    /// `width`-bit elements, the slots keep their origin.
    fn unpack(&mut self, width: u32, map: &[(u32, u32)]) {
        if self.pun {
            self.origin = map
                .iter()
                .map(|&(w, slot)| {
                    (width == self.pun_bits).then(|| Piece {
                        key: self.names[w as usize].clone(),
                        slot,
                    })
                })
                .collect();
        }
        self.names = map
            .iter()
            .map(|&(w, slot)| {
                let w = self.names[w as usize].clone();
                let w = if slot == 0 {
                    w
                } else {
                    Expr::bin(Op::Shr, w, Expr::u(slot * width))
                };
                Expr::call(Func::FromU32, vec![w])
            })
            .collect();
        self.in_words = false;
    }

    /// With natural words, after a word `Select` (`entries`; `before`: the
    /// words it chose from): a select of two words that are each one
    /// `prmt` of natural words becomes one `prmt` with a lane-dependent
    /// selector ([`fold_select_of_prmts`]), which replaces the select's
    /// definition (a new selector declared just before it); every other
    /// select is recorded in `sel_def` for the final store to fold.
    fn fold_selects(&mut self, entries: &[SelEntry], before: &[Expr]) {
        for (e, v) in entries.iter().zip(self.names.clone()) {
            if e.if_set == e.if_clear {
                continue;
            }
            let v = v.as_val().expect("a select declares its word");
            let pred = self.ids.pred(&mut self.b, e.lane_mask);
            let (a, b) = (&before[e.if_set as usize], &before[e.if_clear as usize]);
            let defs = (
                a.as_val().and_then(|a| self.pack_def.get(&a)),
                b.as_val().and_then(|b| self.pack_def.get(&b)),
            );
            // 16-bit data, two natural words as they are: the select stays a
            // select (one instruction either way; whole-word selects are what
            // the packed form has, and what Triton's lowering emits)
            let plain = |d: &PrmtDef| self.pun_bits == 16 && d.0 == d.1 && d.2 == 0x3210;
            let defs = match defs {
                (Some(da), Some(db)) if !(plain(da) && plain(db)) => Some((da, db)),
                _ => None,
            };
            if let Some((da, db)) = defs {
                let at = pass::def_index(&self.b, v);
                let folded = fold_select_of_prmts(&mut self.b, &mut self.selectors, pred, da, db);
                if let (Some(i), Some((prmt, decl))) = (at, folded) {
                    self.b.stmts[i] = Stmt::Let { v, e: prmt };
                    // a new selector is declared just before its first use
                    if let Some(d) = decl {
                        self.b.stmts.insert(i, d);
                    }
                    self.folded.extend(a.as_val().into_iter().chain(b.as_val()));
                    continue;
                }
            }
            self.sel_def.insert(v, (pred, a.clone(), b.clone()));
        }
    }

    /// Stage `si` while the registers are elements.
    fn element_level(&mut self, si: usize, st: &Stage) -> Result<(), EmitError> {
        if self.pun && !matches!(st, Stage::RegRename { .. } | Stage::Pack { .. }) {
            // an element-level stage: its registers are no longer bytes of
            // known words (the final store falls back to shifts and ORs)
            self.origin.clear();
        }
        match st {
            Stage::RegRename { map } => {
                self.names = map
                    .iter()
                    .map(|&i| self.names[i as usize].clone())
                    .collect();
                if self.pun && !self.origin.is_empty() {
                    self.origin = map
                        .iter()
                        .map(|&i| self.origin[i as usize].clone())
                        .collect();
                }
            }
            Stage::Pack { width, groups }
                if *width == self.pun_bits && self.packs_from_origin(groups) =>
            {
                self.pack_by_prmt(si, *width, groups)
            }
            Stage::Pack { width, groups } => self.pack_by_shifts(si, *width, groups),
            Stage::Select { .. } | Stage::Shuffle { .. } => {
                let names = std::mem::take(&mut self.names);
                self.names = reg_stage(&mut self.b, &mut self.ids, si, st, names, false)
                    .map_err(|kind| unsupported(self.name, si, kind))?;
            }
            Stage::SmemStore { access } => self.smem_store(si, access),
            Stage::ClusterStore { store } => {
                let sb = self.ids.sb(&mut self.b);
                cluster_store(&mut self.b, &self.ids, sb, si, store, &self.names);
            }
            Stage::ClusterLoad { load } => {
                let sb = self.ids.sb(&mut self.b);
                let (loaded, words) = cluster_load(&mut self.b, &self.ids, sb, si, load);
                self.names.extend(loaded);
                self.words.extend(words);
            }
            Stage::ClusterBarrier => self.b.push(Stmt::ClusterBarrier),
            Stage::Barrier { scope } => self.b.push(Stmt::Barrier(*scope)),
            Stage::SmemLoad { access } => self.smem_load(si, access),
            other => return Err(unsupported(self.name, si, other.name())),
        }
        Ok(())
    }

    /// Whether a `Pack` of `groups` (of the natural words' element width)
    /// can build its words by `prmt` from the natural words: with natural
    /// words, every packed register still an element of a known word.
    fn packs_from_origin(&self, groups: &[Vec<u32>]) -> bool {
        self.pun
            && !self.origin.is_empty()
            && groups
                .iter()
                .flatten()
                .all(|&r| self.origin[r as usize].is_some())
    }

    /// Whether `e` is a natural source word `src_w[k]` as it is.
    fn is_src_word(&self, e: &Expr) -> bool {
        e.as_val().is_some_and(|v| self.src_words.contains(&v))
    }

    /// A `Pack` of `width`-bit elements (stage `si`, the natural words'
    /// width) whose words `k{si}_{w}` are built by one `prmt` program from
    /// the natural words the elements sit in; words that are one `prmt` of
    /// natural words (or one as it is) go in `pack_def`.
    fn pack_by_prmt(&mut self, si: usize, width: u32, groups: &[Vec<u32>]) {
        let words: Vec<Vec<Piece<Expr>>> = groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|&r| self.origin[r as usize].clone().expect("checked above"))
                    .collect()
            })
            .collect();
        let (exprs, steps) = prmt_program_steps(&mut self.b, &mut self.temps, &words, width);
        self.names = Vec::with_capacity(exprs.len());
        for (gi, e) in exprs.into_iter().enumerate() {
            let v = self.b.let_(format!("k{si}_{gi}"), Ty::U32, e.clone());
            self.words.insert(v);
            // one prmt of natural words, or a natural word as it is
            match e.as_val().and_then(|t| steps.get(&t)) {
                Some(d) if self.is_src_word(&d.0) && self.is_src_word(&d.1) => {
                    self.pack_def.insert(v, d.clone());
                }
                None if self.is_src_word(&e) => {
                    self.pack_def.insert(v, (e.clone(), e, 0x3210));
                }
                _ => {}
            }
            self.names.push(Expr::V(v));
        }
        self.in_words = true;
    }

    /// A `Pack` (stage `si`) of `width`-bit elements into words `k{si}_{w}`
    /// by shifts and ORs.
    fn pack_by_shifts(&mut self, si: usize, width: u32, groups: &[Vec<u32>]) {
        // Shifts and ORs of the zero-extended elements, not a
        // `__byte_perm` network: ptxas emits the same PRMT/LOP3 for
        // them, and NVVM can see through them, so an `Unpack` of one
        // helper, element-wise arithmetic, and the `Pack` of the next
        // fold into word operations (measured with nvcc 13.0 on
        // sm_90: unpack, `^= 1` per byte, pack became one
        // `LOP3 ^ 0x01010101` per word; with `__byte_perm` it stayed
        // 3 PRMT + 4 LOP3 per word).
        let mut next = Vec::with_capacity(groups.len());
        for (gi, g) in groups.iter().enumerate() {
            let vals: Vec<Expr> = g.iter().map(|&r| self.names[r as usize].clone()).collect();
            let word = pack_words(&vals, width).remove(0);
            let v = self.b.let_(format!("k{si}_{gi}"), Ty::U32, word);
            self.words.insert(v);
            next.push(Expr::V(v));
        }
        self.names = next;
        self.in_words = true;
    }

    /// A shared-memory store stage `si`: addresses, the warp guard, the
    /// lane-dependent register choice (`c{si}_{i}_{e}` picked by `?:`,
    /// [`lane_choice`]), then one store per instruction of its elements
    /// packed into words.
    fn smem_store(&mut self, si: usize, access: &SmemAccess) {
        let addrs = stage_addrs(&mut self.b, &mut self.ids, si, access);
        let guard = warp_guard(&mut self.b, &self.ids, si, access);
        let choice = lane_choice(&mut self.b, &self.ids, si, access);
        for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
            let vals: Vec<Expr> = inst
                .regs
                .iter()
                .enumerate()
                .map(|(e, &r)| {
                    if choice.is_empty() {
                        return self.names[r as usize].clone();
                    }
                    let pick = pick_expr(&self.names, r, &choice);
                    Expr::V(self.b.let_(format!("c{si}_{ii}_{e}"), Ty::Elem, pick))
                })
                .collect();
            let words = pack_words(&vals, access.width);
            self.b.push(guarded(guard, store_stmt(access, addr, words)));
        }
    }

    /// A shared-memory load stage `si`: addresses, then per instruction its
    /// words and the elements `s{si}_{i}_{e}` unpacked from them, appended
    /// to the registers.
    fn smem_load(&mut self, si: usize, access: &SmemAccess) {
        let addrs = stage_addrs(&mut self.b, &mut self.ids, si, access);
        let mut next = Vec::new();
        for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
            let words = load_words(&mut self.b, access, addr, si, ii);
            self.words.extend(&words);
            let words: Vec<Expr> = words.into_iter().map(Expr::V).collect();
            for (e, v) in unpack_words(&words, access.width, inst.regs.len())
                .into_iter()
                .enumerate()
            {
                next.push(Expr::V(self.b.let_(format!("s{si}_{ii}_{e}"), Ty::Elem, v)));
            }
        }
        self.names.extend(next);
    }

    /// The body's close: the destination registers into `dst[j]`, or, with
    /// natural words, the destination words (by `prmt` from the bytes'
    /// origins, folding selects, where every byte's origin is known; else by
    /// shifts and ORs) stored as natural words, and the definitions that
    /// folds left unread dropped ([`pass::drop_unread`]: the folded words,
    /// then the `prmt` temporaries and words they alone read).
    fn finish(mut self) -> Body {
        if !self.pun {
            for (j, e) in self.names.into_iter().enumerate() {
                self.b.push(Stmt::Dst { j: j as u32, e });
            }
            return self.b;
        }
        let (bits, per) = (self.pun_bits, 32 / self.pun_bits);
        let words =
            if self.origin.len() == self.names.len() && self.origin.iter().all(Option::is_some) {
                let pieces: Vec<Vec<Piece<Expr>>> = self
                    .origin
                    .chunks(per as usize)
                    .map(|c| {
                        c.iter()
                            .map(|o| o.clone().expect("checked above"))
                            .collect()
                    })
                    .collect();
                select_folded_words(
                    &mut self.b,
                    &mut self.temps,
                    &mut self.selectors,
                    &pieces,
                    bits,
                    &self.sel_def,
                )
            } else {
                pack_words(&self.names, bits)
            };
        store_natural_words(&mut self.b, &words, per);
        self.folded.extend(self.sel_def.keys().copied());
        let (temps, words) = (&self.temps.made, &self.words);
        pass::drop_unread(&mut self.b, &self.folded, |v| {
            temps.contains(&v) || words.contains(&v)
        });
        self.b
    }
}

/// Whether [`body`] always reads and writes the caller's arrays as natural
/// 32-bit words: a plan that packs 8-bit elements into words itself (its
/// first `Pack` stage of width 8), with at least [`PUN_MIN_ELEMS`]
/// elements (whole words) on both sides. (16-bit plans that pack the
/// elements themselves read words where the element form takes no other
/// path, [`synth::plan::WordsRule::Folded`].)
pub(crate) fn word_pun(plan: &Plan) -> bool {
    synth::plan::byte_words_in_natural_order(plan)
}

/// Elements per thread from which [`body`] reads and writes 8-bit arrays as
/// words. With the words built by `prmt` programs straight from the natural
/// words, 64 bytes per thread (`mma3_to_dot_fp8`) and 16 bytes
/// (`mma2_acc_to_dot_a_i8`) run faster as words, but 4 bytes
/// (`mma2_to_blocked_i8`) runs slower: there NVVM already folds the caller's
/// per-byte work into the words (measured in the reference head-to-head
/// harness h2h on an H100; see `results/runs/2026-11-22-h100-h2h-registers-2d224f9/README.md`).
pub const PUN_MIN_ELEMS: u32 = synth::plan::WORDS_MIN_ELEMS;
