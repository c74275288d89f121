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
use synth::plan::{BarrierScope, ClusterLoad, ClusterMap, ClusterStore, Plan, SmemAccess, Stage};
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
    let mut origin: Vec<Option<Piece<String>>> = if pun {
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
    let mut temps = 0usize;
    let mut names: Vec<String> = if pun {
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
    let mut preds: BTreeSet<u32> = BTreeSet::new();
    let mut smem_decl = false;
    // Between a Pack and an Unpack the registers are 32-bit words.
    let mut in_words = false;
    // With natural words: the word selects of the plan (`w = p ? a : b`, by
    // name), which the destination words may fold ([`select_folded_words`]).
    let mut sel_def: SelDefs = BTreeMap::new();
    // With natural words: the plan's words that are one `prmt` of natural
    // words (`(a, b, selector)`), which a select of two of them folds into.
    let mut pack_def: BTreeMap<String, PrmtDef> = BTreeMap::new();
    // Lane-dependent `prmt` selectors declared so far: (mask, if set, if clear).
    let mut selectors: Vec<(u32, u32, u32)> = Vec::new();
    // Names whose definitions a fold may have left unread.
    let mut folded: Vec<String> = Vec::new();
    for (si, st) in plan.stages.iter().enumerate() {
        if in_words {
            if let Stage::Unpack { width, map } = st {
                if pun {
                    origin = map
                        .iter()
                        .map(|&(w, slot)| {
                            (*width == 8).then(|| Piece {
                                key: names[w as usize].clone(),
                                slot,
                            })
                        })
                        .collect();
                }
                names = map
                    .iter()
                    .map(|&(w, slot)| {
                        let w = &names[w as usize];
                        if slot == 0 {
                            format!("detail::from_u32<T>({w})")
                        } else {
                            format!("detail::from_u32<T>({w} >> {}u)", slot * width)
                        }
                    })
                    .collect();
                in_words = false;
            } else {
                let before = if pun { names.clone() } else { Vec::new() };
                names = word_stage(&mut out, &mut preds, si, st, names).map_err(|kind| {
                    EmitError::Unsupported {
                        name: name.into(),
                        stage: si,
                        kind,
                    }
                })?;
                if let (true, Stage::Select { entries }) = (pun, st) {
                    for (e, v) in entries.iter().zip(&names) {
                        if e.if_set == e.if_clear {
                            continue;
                        }
                        let (a, b) = (&before[e.if_set as usize], &before[e.if_clear as usize]);
                        if let (Some(da), Some(db)) = (pack_def.get(a), pack_def.get(b)) {
                            let head = format!("const unsigned {v} = ");
                            let at = out.iter().position(|l| l.starts_with(&head));
                            // a new selector is declared just before its first use
                            let mut decl = Vec::new();
                            if let (Some(i), Some(line)) = (
                                at,
                                fold_select_of_prmts(
                                    &mut decl,
                                    &mut selectors,
                                    v,
                                    e.lane_mask,
                                    da,
                                    db,
                                ),
                            ) {
                                out[i] = line;
                                out.splice(i..i, decl);
                                folded.extend([a.clone(), b.clone()]);
                                continue;
                            }
                        }
                        sel_def.insert(v.clone(), (e.lane_mask, a.clone(), b.clone()));
                    }
                }
            }
            continue;
        }
        if pun && !matches!(st, Stage::RegRename { .. } | Stage::Pack { .. }) {
            // an element-level stage: its registers are no longer bytes of
            // known words (the final store falls back to shifts and ORs)
            origin.clear();
        }
        match st {
            Stage::RegRename { map } => {
                names = map.iter().map(|&i| names[i as usize].clone()).collect();
                if pun && !origin.is_empty() {
                    origin = map.iter().map(|&i| origin[i as usize].clone()).collect();
                }
            }
            Stage::Pack { width: 8, groups }
                if pun
                    && !origin.is_empty()
                    && groups
                        .iter()
                        .flatten()
                        .all(|&r| origin[r as usize].is_some()) =>
            {
                let words: Vec<Vec<Piece<String>>> = groups
                    .iter()
                    .map(|g| {
                        g.iter()
                            .map(|&r| origin[r as usize].clone().expect("checked above"))
                            .collect()
                    })
                    .collect();
                let (exprs, steps) = prmt_program_steps(&mut out, &mut temps, &words, 8);
                names = Vec::with_capacity(exprs.len());
                for (gi, e) in exprs.into_iter().enumerate() {
                    let v = format!("k{si}_{gi}");
                    out.push(format!("const unsigned {v} = {e};"));
                    // one prmt of natural words, or a natural word as it is
                    match steps.get(&e) {
                        Some(d) if d.0.starts_with("src_w[") && d.1.starts_with("src_w[") => {
                            pack_def.insert(v.clone(), d.clone());
                        }
                        None if e.starts_with("src_w[") => {
                            pack_def.insert(v.clone(), (e.clone(), e.clone(), 0x3210));
                        }
                        _ => {}
                    }
                    names.push(v);
                }
                in_words = true;
            }
            Stage::Pack { width, groups } => {
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
                    let vals: Vec<String> = g.iter().map(|&r| names[r as usize].clone()).collect();
                    let word = pack_words(&vals, *width).remove(0);
                    let v = format!("k{si}_{gi}");
                    out.push(format!("const unsigned {v} = {word};"));
                    next.push(v);
                }
                names = next;
                in_words = true;
            }
            Stage::Select { .. } | Stage::Shuffle { .. } => {
                names = reg_stage(&mut out, &mut preds, si, st, names, false).map_err(|kind| {
                    EmitError::Unsupported {
                        name: name.into(),
                        stage: si,
                        kind,
                    }
                })?;
            }
            Stage::SmemStore { access } => {
                let addrs = stage_addrs(&mut out, &mut smem_decl, si, access);
                let guard = warp_guard(&mut out, si, access);
                let choice = lane_choice(&mut out, si, access);
                for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
                    let vals: Vec<String> = inst
                        .regs
                        .iter()
                        .enumerate()
                        .map(|(e, &r)| {
                            if choice.is_empty() {
                                return names[r as usize].clone();
                            }
                            let v = format!("c{si}_{ii}_{e}");
                            let pick = pick_expr(&names, r, &choice);
                            out.push(format!("const T {v} = {pick};"));
                            v
                        })
                        .collect();
                    let words = pack_words(&vals, access.width);
                    out.push(guarded(&guard, store_stmt(access, &addr, &words)));
                }
            }
            Stage::ClusterStore { store } => {
                if !smem_decl {
                    out.push("const unsigned sb = detail::smem_u32(smem);".into());
                    smem_decl = true;
                }
                cluster_store(&mut out, si, store, &names);
            }
            Stage::ClusterLoad { load } => {
                if !smem_decl {
                    out.push("const unsigned sb = detail::smem_u32(smem);".into());
                    smem_decl = true;
                }
                let loaded = cluster_load(&mut out, si, load);
                names.extend(loaded);
            }
            Stage::ClusterBarrier => out.push(
                "asm volatile(\"barrier.cluster.arrive.release.aligned;\" ::: \"memory\"); asm volatile(\"barrier.cluster.wait.acquire.aligned;\" ::: \"memory\");".into(),
            ),
            Stage::Barrier { scope } => out.push(match scope {
                BarrierScope::Cta => "__syncthreads();".into(),
                BarrierScope::Warp => "__syncwarp();".into(),
            }),
            Stage::SmemLoad { access } => {
                let addrs = stage_addrs(&mut out, &mut smem_decl, si, access);
                let mut next = Vec::new();
                for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
                    let words = load_words(&mut out, access, &addr, si, ii);
                    for (e, v) in unpack_words(&words, access.width, inst.regs.len())
                        .into_iter()
                        .enumerate()
                    {
                        let n = format!("s{si}_{ii}_{e}");
                        out.push(format!("const T {n} = {v};"));
                        next.push(n);
                    }
                }
                names.extend(next);
            }
            other => {
                return Err(EmitError::Unsupported {
                    name: name.into(),
                    stage: si,
                    kind: other.name(),
                });
            }
        }
    }
    if pun {
        let words = if origin.len() == names.len() && origin.iter().all(Option::is_some) {
            let pieces: Vec<Vec<Piece<String>>> = origin
                .chunks(4)
                .map(|c| {
                    c.iter()
                        .map(|o| o.clone().expect("checked above"))
                        .collect()
                })
                .collect();
            select_folded_words(&mut out, &mut temps, &mut selectors, &pieces, &sel_def)
        } else {
            pack_words(&names, 8)
        };
        out.extend(store_natural_words(&words, 4));
        folded.extend(sel_def.keys().cloned());
        drop_unread(&mut out, &folded);
    } else {
        for (j, n) in names.iter().enumerate() {
            out.push(format!("dst[{j}] = {n};"));
        }
    }
    Ok(out)
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
