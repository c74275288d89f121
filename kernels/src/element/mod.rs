mod fold;
mod via_packed;
mod words;

pub(crate) use via_packed::{body_via_packed, Words, VIA_PACKED_MIN_ELEMS, WORD_CHOICES};
use via_packed::{load_natural_words, store_natural_words};

use crate::expr::linear_expr;
use crate::prmt::{prmt_program_steps, PrmtDef};
use crate::regs::{reg_stage, word_stage};
use crate::smem::{guarded, load_words, stage_addrs, store_stmt, warp_guard};
use crate::EmitError;
use fold::{drop_unread, fold_select_of_prmts, select_folded_words, SelDefs};
use std::collections::{BTreeMap, BTreeSet};
use synth::plan::pack::Piece;
use synth::plan::{
    BarrierScope, ClusterLoad, ClusterMap, ClusterStore, Plan, SelEntry, SmemAccess, Stage,
};
use words::{pack_words, unpack_words};

/// The predicates of a store's lane-dependent register choice
/// ([`synth::plan::SmemAccess::reg_xor`]), declared into `out`: one
/// `(predicate name, register XOR)` per lane or warp bit that has one.
fn lane_choice(out: &mut Vec<String>, si: usize, access: &SmemAccess) -> Vec<(String, u32)> {
    let mut v = Vec::new();
    for (who, masks) in [
        ("lane", &access.reg_xor.lane),
        ("warp", &access.reg_xor.warp),
    ] {
        for (j, &m) in masks.iter().enumerate() {
            if m != 0 {
                let p = format!("q{si}_{who}{j}");
                out.push(format!("const bool {p} = ({who} >> {j}u) & 1u;"));
                v.push((p, m));
            }
        }
    }
    v
}

/// `names[r ^ XOR(predicate set: mask)]` as a tree of `?:` (one `SEL` per
/// inner node, `2^k - 1` for `k` predicates).
fn pick_expr(names: &[String], r: u32, choice: &[(String, u32)]) -> String {
    match choice.split_first() {
        None => names[r as usize].clone(),
        Some(((p, m), rest)) => format!(
            "({p} ? {} : {})",
            pick_expr(names, r ^ m, rest),
            pick_expr(names, r, rest)
        ),
    }
}

/// The CTA rank `rank{si}` (`%cluster_ctarank`) of a cluster stage `si`,
/// and under `WARPFORGE_CHECK_CLUSTER` a `__trap()` when the cluster does
/// not have `ctas` CTAs (`%cluster_nctarank`); returns the rank's name.
fn cluster_rank(out: &mut Vec<String>, si: usize, ctas: u32) -> String {
    let rank = format!("rank{si}");
    out.push(format!("unsigned {rank};"));
    out.push(format!(
        "asm(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"({rank})); (void){rank};"
    ));
    out.push("#ifdef WARPFORGE_CHECK_CLUSTER".into());
    out.push(format!(
        "{{ unsigned n; asm(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(n)); if (n != {ctas}u) __trap(); }}"
    ));
    out.push("#endif".into());
    rank
}

/// `lane`, `warp` and `rank` parts of a [`ClusterMap`] as one expression.
fn cluster_map_expr(m: &ClusterMap, rank: &str) -> String {
    let parts: Vec<String> = [
        linear_expr("lane", &m.lane),
        linear_expr("warp", &m.warp),
        linear_expr(rank, &m.block),
    ]
    .into_iter()
    .filter(|e| e != "0u")
    .collect();
    if parts.is_empty() {
        "0u".to_string()
    } else {
        parts.join(" ^ ")
    }
}

/// `unsigned ra` = the cluster address of the local scratch address `local`
/// in the CTA `ct{si} ^ cta` (`mapa.shared::cluster.u32`, PTX ISA "mapa").
fn mapa(ra: &str, local: &str, si: usize, cta: u32) -> String {
    format!(
        "unsigned {ra}; asm(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"({ra}) : \"r\"({local}), \"r\"(ct{si} ^ {cta}u));"
    )
}

/// The `ld/st.shared::cluster` type of a `bytes`-byte vector (`.u8`,
/// `.u16`, `.b32`, `.v2.b32`, `.v4.b32`) and its operands in 32-bit
/// registers numbered from `%first`: `%first` for one word, else
/// `{%first, ...}`.
fn dsmem_vector(bytes: u32, first: u32) -> (&'static str, String) {
    let ty = match bytes {
        1 => "u8",
        2 => "u16",
        4 => "b32",
        8 => "v2.b32",
        _ => "v4.b32",
    };
    let n = bytes.div_ceil(4);
    let regs: Vec<String> = (first..first + n).map(|i| format!("%{i}")).collect();
    let ops = if n == 1 {
        regs[0].clone()
    } else {
        format!("{{{}}}", regs.join(", "))
    };
    (ty, ops)
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
/// their names in load order. Needs `sb` (the local scratch address)
/// declared.
fn cluster_load(out: &mut Vec<String>, si: usize, load: &ClusterLoad) -> Vec<String> {
    let eb = (load.width / 8).max(1);
    let rank = cluster_rank(out, si, 1u32 << load.cta.block.len());
    let any_remote = (0..load.insts.len()).any(|i| !load.local(i));
    if any_remote {
        out.push(format!(
            "const unsigned ct{si} = {};",
            cluster_map_expr(&load.cta, &rank)
        ));
    }
    out.push(format!(
        "const unsigned ob{si} = {};",
        cluster_map_expr(&load.addr, &rank)
    ));
    let mut names = Vec::new();
    for (ii, inst) in load.insts.iter().enumerate() {
        let bytes = inst.regs.len() as u32 * eb;
        let nw = bytes.div_ceil(4) as usize;
        let words: Vec<String> = (0..nw).map(|j| format!("w{si}_{ii}_{j}")).collect();
        let local = format!("sb + (ob{si} ^ {}u) * {eb}u", inst.offset);
        if load.local(ii) {
            match bytes {
                1 | 2 | 4 => out.push(format!(
                    "const unsigned {} = detail::ld_{}({local});",
                    words[0],
                    match bytes {
                        1 => "u8",
                        2 => "u16",
                        _ => "b32",
                    }
                )),
                _ => {
                    out.push(format!("unsigned {};", words.join(", ")));
                    out.push(format!(
                        "detail::ld_v{}({local}, {});",
                        if bytes == 8 { 2 } else { 4 },
                        words.join(", ")
                    ));
                }
            }
        } else {
            let ra = format!("r{si}_{ii}");
            out.push(mapa(&ra, &local, si, inst.cta));
            let (ty, ops) = dsmem_vector(bytes, 0);
            let outs: Vec<String> = words.iter().map(|w| format!("\"=r\"({w})")).collect();
            out.push(format!("unsigned {};", words.join(", ")));
            out.push(format!(
                "asm volatile(\"ld.shared::cluster.{ty} {ops}, [%{nw}];\" : {} : \"r\"({ra}) : \"memory\");",
                outs.join(", ")
            ));
        }
        for (e, v) in unpack_words(&words, load.width, inst.regs.len())
            .into_iter()
            .enumerate()
        {
            let n = format!("s{si}_{ii}_{e}");
            out.push(format!("const T {n} = {v};"));
            names.push(n);
        }
    }
    names
}

/// The statements of a cluster store stage `si` (docs/ARCHITECTURE.md 4.7):
/// the CTA rank (`%cluster_ctarank`, the layout's block index), under
/// `WARPFORGE_CHECK_CLUSTER` a `__trap()` when the cluster has another size
/// (`%cluster_nctarank`), then per instruction a `mapa.shared::cluster.u32`
/// of the local scratch address to the target CTA's and one
/// `st.shared::cluster` of its vector (`.u8`, `.u16`, `.b32`, `.v2.b32`,
/// `.v4.b32` by bytes; PTX ISA "Distributed Shared Memory", `mapa`, `st`),
/// inside `if` when broadcast source copies skip their stores.
/// Needs `sb` (the local scratch address) declared.
fn cluster_store(out: &mut Vec<String>, si: usize, store: &ClusterStore, names: &[String]) {
    let eb = (store.width / 8).max(1);
    let rank = cluster_rank(out, si, 1u32 << store.cta.block.len());
    out.push(format!(
        "const unsigned ct{si} = {};",
        cluster_map_expr(&store.cta, &rank)
    ));
    out.push(format!(
        "const unsigned ob{si} = {};",
        cluster_map_expr(&store.addr, &rank)
    ));
    // broadcast source copies: only the threads with these bits clear store
    let skip: Vec<String> = [
        ("lane", store.skip_lane),
        ("warp", store.skip_warp),
        (rank.as_str(), store.skip_block),
    ]
    .iter()
    .filter(|x| x.1 != 0)
    .map(|(v, m)| format!("({v} & {m}u)"))
    .collect();
    if !skip.is_empty() {
        out.push(format!("if (({}) == 0u) {{", skip.join(" | ")));
    }
    for (ii, inst) in store.insts.iter().enumerate() {
        let vals: Vec<String> = inst
            .regs
            .iter()
            .map(|&r| names[r as usize].clone())
            .collect();
        let words = pack_words(&vals, store.width);
        let bytes = inst.regs.len() as u32 * eb;
        let ra = format!("r{si}_{ii}");
        let local = format!("sb + (ob{si} ^ {}u) * {eb}u", inst.offset);
        out.push(mapa(&ra, &local, si, inst.cta));
        let (ty, ops) = dsmem_vector(bytes, 1);
        let args: Vec<String> = words.iter().map(|w| format!(", \"r\"({w})")).collect();
        out.push(format!(
            "asm volatile(\"st.shared::cluster.{ty} [%0], {ops};\" :: \"r\"({ra}){} : \"memory\");",
            args.concat()
        ));
    }
    if !skip.is_empty() {
        out.push("}".into());
    }
}

/// The statements of a helper body for `plan` (one per line).
pub fn body(name: &str, plan: &Plan) -> Result<Vec<String>, EmitError> {
    let mut b = ElementBody::new(name, plan);
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

/// The state [`body`] threads through the stages of a plan: the statements
/// emitted so far, the C expression of each register (an element of type
/// `T`, or a 32-bit word between a `Pack` and an `Unpack`), and, with
/// natural words ([`word_pun`]), where the bytes live and which words a
/// later stage may fold.
struct ElementBody<'a> {
    /// The conversion's name (for errors).
    name: &'a str,
    /// The statements so far, one per line.
    out: Vec<String>,
    /// The C expression of each register of the current stage.
    names: Vec<String>,
    /// Whether the caller's arrays are read and written as natural 32-bit
    /// words ([`word_pun`]).
    pun: bool,
    /// With natural words: where each register's byte lives (a word's
    /// expression and its byte) while it is a byte of a word; empty once an
    /// element-level stage has lost track.
    origin: Vec<Option<Piece<String>>>,
    /// Temporaries the `prmt` programs declared so far.
    temps: usize,
    /// Lane predicates `p<mask>` declared so far.
    preds: BTreeSet<u32>,
    /// Whether the scratch address `sb` is declared.
    smem_decl: bool,
    /// Between a Pack and an Unpack the registers are 32-bit words.
    in_words: bool,
    /// With natural words: the word selects of the plan (`w = p ? a : b`, by
    /// name), which the destination words may fold ([`select_folded_words`]).
    sel_def: SelDefs,
    /// With natural words: the plan's words that are one `prmt` of natural
    /// words (`(a, b, selector)`), which a select of two of them folds into.
    pack_def: BTreeMap<String, PrmtDef>,
    /// Lane-dependent `prmt` selectors declared so far: (mask, if set, if clear).
    selectors: Vec<(u32, u32, u32)>,
    /// Names whose definitions a fold may have left unread.
    folded: Vec<String>,
}

impl<'a> ElementBody<'a> {
    /// The body's opening for `plan`: `lane` and `warp`, and the source
    /// registers as `src[i]`, or, with natural words, as bytes of the words
    /// `src_w[i / 4]` loaded from the caller's array.
    fn new(name: &'a str, plan: &Plan) -> Self {
        let mut out = vec![
            "const unsigned lane = threadIdx.x & 31u;".to_string(),
            "const unsigned warp = threadIdx.x >> 5;".to_string(),
            "(void)lane;".to_string(),
            "(void)warp;".to_string(),
        ];
        // 8-bit elements that the plan packs into words: read and write the
        // caller's arrays as natural 32-bit words (`memcpy`, four elements per
        // word, lowest index in the lowest byte). NVVM then keeps the caller's
        // arrays in 32-bit registers too, loop-carried ones included, instead of
        // one register per byte, which takes fewer registers and less time, and
        // less still with the words built by `prmt` below (measured in the
        // reference head-to-head harness h2h on an H100; see
        // `results/runs/2026-11-22-h100-h2h-registers-2d224f9/README.md`). Only from [`PUN_MIN_ELEMS`] elements.
        let pun = word_pun(plan);
        // With natural words: where each register's byte lives (a word's
        // expression and its byte), while it is a byte of a word, so that `Pack`
        // and the final store build words by `prmt` programs straight from the
        // words the bytes sit in (`prmt_program`: one `prmt` for bytes from two
        // words) rather than by shifts and ORs of extracted bytes, which NVVM
        // turned into about twice the instructions (`results/runs/2026-11-22-h100-h2h-registers-2d224f9/README.md`).
        let origin: Vec<Option<Piece<String>>> = if pun {
            (0..plan.src_regs)
                .map(|i| {
                    Some(Piece {
                        key: format!("src_w[{}]", i / 4),
                        slot: i % 4,
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let names: Vec<String> = if pun {
            out.push(format!("unsigned src_w[{}];", plan.src_regs / 4));
            out.extend(load_natural_words("src_w", plan.src_regs / 4, 4));
            (0..plan.src_regs)
                .map(|i| match i % 4 {
                    0 => format!("detail::from_u32<T>(src_w[{}])", i / 4),
                    k => format!("detail::from_u32<T>(src_w[{}] >> {}u)", i / 4, 8 * k),
                })
                .collect()
        } else {
            (0..plan.src_regs).map(|i| format!("src[{i}]")).collect()
        };
        ElementBody {
            name,
            out,
            names,
            pun,
            origin,
            temps: 0,
            preds: BTreeSet::new(),
            smem_decl: false,
            in_words: false,
            sel_def: BTreeMap::new(),
            pack_def: BTreeMap::new(),
            selectors: Vec::new(),
            folded: Vec::new(),
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
        let before = if self.pun {
            self.names.clone()
        } else {
            Vec::new()
        };
        let name = self.name;
        let names = std::mem::take(&mut self.names);
        self.names = word_stage(&mut self.out, &mut self.preds, si, st, names)
            .map_err(|kind| unsupported(name, si, kind))?;
        if let (true, Stage::Select { entries }) = (self.pun, st) {
            self.fold_selects(entries, &before);
        }
        Ok(())
    }

    /// An `Unpack` of `width`-bit slots: register `e` becomes slot
    /// `map[e].1` of word `map[e].0` (a shift); with natural words, 8-bit
    /// slots keep their origin.
    fn unpack(&mut self, width: u32, map: &[(u32, u32)]) {
        if self.pun {
            self.origin = map
                .iter()
                .map(|&(w, slot)| {
                    (width == 8).then(|| Piece {
                        key: self.names[w as usize].clone(),
                        slot,
                    })
                })
                .collect();
        }
        self.names = map
            .iter()
            .map(|&(w, slot)| {
                let w = &self.names[w as usize];
                if slot == 0 {
                    format!("detail::from_u32<T>({w})")
                } else {
                    format!("detail::from_u32<T>({w} >> {}u)", slot * width)
                }
            })
            .collect();
        self.in_words = false;
    }

    /// With natural words, after a word `Select` (`entries`; `before`: the
    /// words it chose from): a select of two words that are each one
    /// `prmt` of natural words becomes one `prmt` with a lane-dependent
    /// selector ([`fold_select_of_prmts`]), declared in place of the
    /// select; every other select is recorded in `sel_def` for the final
    /// store to fold.
    fn fold_selects(&mut self, entries: &[SelEntry], before: &[String]) {
        for (e, v) in entries.iter().zip(&self.names) {
            if e.if_set == e.if_clear {
                continue;
            }
            let (a, b) = (&before[e.if_set as usize], &before[e.if_clear as usize]);
            if let (Some(da), Some(db)) = (self.pack_def.get(a), self.pack_def.get(b)) {
                let head = format!("const unsigned {v} = ");
                let at = self.out.iter().position(|l| l.starts_with(&head));
                // a new selector is declared just before its first use
                let mut decl = Vec::new();
                if let (Some(i), Some(line)) = (
                    at,
                    fold_select_of_prmts(&mut decl, &mut self.selectors, v, e.lane_mask, da, db),
                ) {
                    self.out[i] = line;
                    self.out.splice(i..i, decl);
                    self.folded.extend([a.clone(), b.clone()]);
                    continue;
                }
            }
            self.sel_def
                .insert(v.clone(), (e.lane_mask, a.clone(), b.clone()));
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
                self.names = map.iter().map(|&i| self.names[i as usize].clone()).collect();
                if self.pun && !self.origin.is_empty() {
                    self.origin = map
                        .iter()
                        .map(|&i| self.origin[i as usize].clone())
                        .collect();
                }
            }
            Stage::Pack { width: 8, groups } if self.packs_from_origin(groups) => {
                self.pack_by_prmt(si, groups)
            }
            Stage::Pack { width, groups } => self.pack_by_shifts(si, *width, groups),
            Stage::Select { .. } | Stage::Shuffle { .. } => {
                let name = self.name;
                let names = std::mem::take(&mut self.names);
                self.names = reg_stage(&mut self.out, &mut self.preds, si, st, names, false)
                    .map_err(|kind| unsupported(name, si, kind))?;
            }
            Stage::SmemStore { access } => self.smem_store(si, access),
            Stage::ClusterStore { store } => {
                self.declare_sb();
                cluster_store(&mut self.out, si, store, &self.names);
            }
            Stage::ClusterLoad { load } => {
                self.declare_sb();
                let loaded = cluster_load(&mut self.out, si, load);
                self.names.extend(loaded);
            }
            Stage::ClusterBarrier => self.out.push(
                "asm volatile(\"barrier.cluster.arrive.release.aligned;\" ::: \"memory\"); asm volatile(\"barrier.cluster.wait.acquire.aligned;\" ::: \"memory\");".into(),
            ),
            Stage::Barrier { scope } => self.out.push(match scope {
                BarrierScope::Cta => "__syncthreads();".into(),
                BarrierScope::Warp => "__syncwarp();".into(),
            }),
            Stage::SmemLoad { access } => self.smem_load(si, access),
            other => return Err(unsupported(self.name, si, other.name())),
        }
        Ok(())
    }

    /// Whether an 8-bit `Pack` of `groups` can build its words by `prmt`
    /// from the natural words: with natural words, every packed register
    /// still a byte of a known word.
    fn packs_from_origin(&self, groups: &[Vec<u32>]) -> bool {
        self.pun
            && !self.origin.is_empty()
            && groups
                .iter()
                .flatten()
                .all(|&r| self.origin[r as usize].is_some())
    }

    /// An 8-bit `Pack` (stage `si`) whose words `k{si}_{w}` are built by one
    /// `prmt` program from the natural words the bytes sit in; words that are
    /// one `prmt` of natural words (or one as it is) go in `pack_def`.
    fn pack_by_prmt(&mut self, si: usize, groups: &[Vec<u32>]) {
        let words: Vec<Vec<Piece<String>>> = groups
            .iter()
            .map(|g| {
                g.iter()
                    .map(|&r| self.origin[r as usize].clone().expect("checked above"))
                    .collect()
            })
            .collect();
        let (exprs, steps) = prmt_program_steps(&mut self.out, &mut self.temps, &words, 8);
        self.names = Vec::with_capacity(exprs.len());
        for (gi, e) in exprs.into_iter().enumerate() {
            let v = format!("k{si}_{gi}");
            self.out.push(format!("const unsigned {v} = {e};"));
            // one prmt of natural words, or a natural word as it is
            match steps.get(&e) {
                Some(d) if d.0.starts_with("src_w[") && d.1.starts_with("src_w[") => {
                    self.pack_def.insert(v.clone(), d.clone());
                }
                None if e.starts_with("src_w[") => {
                    self.pack_def
                        .insert(v.clone(), (e.clone(), e.clone(), 0x3210));
                }
                _ => {}
            }
            self.names.push(v);
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
            let vals: Vec<String> = g.iter().map(|&r| self.names[r as usize].clone()).collect();
            let word = pack_words(&vals, width).remove(0);
            let v = format!("k{si}_{gi}");
            self.out.push(format!("const unsigned {v} = {word};"));
            next.push(v);
        }
        self.names = next;
        self.in_words = true;
    }

    /// A shared-memory store stage `si`: addresses, the warp guard, the
    /// lane-dependent register choice (`c{si}_{i}_{e}` picked by `?:`,
    /// [`lane_choice`]), then one store per instruction of its elements
    /// packed into words.
    fn smem_store(&mut self, si: usize, access: &SmemAccess) {
        let addrs = stage_addrs(&mut self.out, &mut self.smem_decl, si, access);
        let guard = warp_guard(&mut self.out, si, access);
        let choice = lane_choice(&mut self.out, si, access);
        for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
            let vals: Vec<String> = inst
                .regs
                .iter()
                .enumerate()
                .map(|(e, &r)| {
                    if choice.is_empty() {
                        return self.names[r as usize].clone();
                    }
                    let v = format!("c{si}_{ii}_{e}");
                    let pick = pick_expr(&self.names, r, &choice);
                    self.out.push(format!("const T {v} = {pick};"));
                    v
                })
                .collect();
            let words = pack_words(&vals, access.width);
            self.out
                .push(guarded(&guard, store_stmt(access, &addr, &words)));
        }
    }

    /// A shared-memory load stage `si`: addresses, then per instruction its
    /// words and the elements `s{si}_{i}_{e}` unpacked from them, appended
    /// to the registers.
    fn smem_load(&mut self, si: usize, access: &SmemAccess) {
        let addrs = stage_addrs(&mut self.out, &mut self.smem_decl, si, access);
        let mut next = Vec::new();
        for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
            let words = load_words(&mut self.out, access, &addr, si, ii);
            for (e, v) in unpack_words(&words, access.width, inst.regs.len())
                .into_iter()
                .enumerate()
            {
                let n = format!("s{si}_{ii}_{e}");
                self.out.push(format!("const T {n} = {v};"));
                next.push(n);
            }
        }
        self.names.extend(next);
    }

    /// Declares the local scratch address `sb` unless already declared.
    fn declare_sb(&mut self) {
        if !self.smem_decl {
            self.out
                .push("const unsigned sb = detail::smem_u32(smem);".into());
            self.smem_decl = true;
        }
    }

    /// The body's close and its statements: the destination registers into
    /// `dst[j]`, or, with natural words, the destination words (by `prmt`
    /// from the bytes' origins, folding selects, where every byte's origin
    /// is known; else by shifts and ORs) stored as natural words, and the
    /// definitions that folds left unread dropped.
    fn finish(mut self) -> Vec<String> {
        if !self.pun {
            for (j, n) in self.names.iter().enumerate() {
                self.out.push(format!("dst[{j}] = {n};"));
            }
            return self.out;
        }
        let words =
            if self.origin.len() == self.names.len() && self.origin.iter().all(Option::is_some) {
                let pieces: Vec<Vec<Piece<String>>> = self
                    .origin
                    .chunks(4)
                    .map(|c| {
                        c.iter()
                            .map(|o| o.clone().expect("checked above"))
                            .collect()
                    })
                    .collect();
                select_folded_words(
                    &mut self.out,
                    &mut self.temps,
                    &mut self.selectors,
                    &pieces,
                    &self.sel_def,
                )
            } else {
                pack_words(&self.names, 8)
            };
        self.out.extend(store_natural_words(&words, 4));
        self.folded.extend(self.sel_def.keys().cloned());
        drop_unread(&mut self.out, &self.folded);
        self.out
    }
}

/// Whether [`body`] reads and writes the caller's arrays as natural 32-bit
/// words: a plan that packs 8-bit elements into words (a `Pack` stage of
/// width 8), with at least [`PUN_MIN_ELEMS`] elements (whole words) on both
/// sides.
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
