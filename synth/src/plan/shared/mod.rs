//! Shared-memory round trips (docs/ARCHITECTURE.md 4.4): store in the source layout, a
//! barrier, load in the destination layout. Converts anything within a CTA.
//!
//! The shared layout is a linear map chosen per conversion
//! ([`layout::build_bases`]): its lowest offset bits are a *chunk* of tensor
//! vectors both sides' instruction forms agree on ([`forms`]: `st/ld.shared`
//! vectors up to 128 bits of packed 8/16-bit or 32/64-bit elements,
//! `stmatrix`/`ldmatrix .x1/.x2/.x4[.trans]`), the bank bits above it are one
//! side's wavefront-phase vectors and the segment bits swizzle the other
//! side's in, so neither side conflicts when that is possible. Every
//! (store form, load form, swizzle) that is feasible becomes a candidate; the
//! search scores them by instructions and the wavefronts counted here.
//!
//! Linear addressing needs every column of a side outside its chunk to be
//! aligned (no component on the chunk's offset bits): that fixes the span of
//! the offset bits above the chunk, and only its basis is chosen.

pub mod forms;
pub mod layout;

use super::analysis::Analysis;
use super::ir::{AddrMap, BarrierScope, Plan, Rounds, SmemAccess, SmemInst, SmemInstr, Stage};
use super::strategy::{SharedStrategy, Strategy};
use super::Kind;
use crate::gf2::{BitMatrix, XorBasis};
use forms::{matrix_forms, vector_forms, Form, SideCols};
use layout::{build_bases, SharedLayout, Swizzle};
use std::num::NonZeroU32;

/// What the shared-memory strategy may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SharedOptions {
    /// Element width in bits: 8, 16, 32 or 64.
    pub elem_bits: u32,
    /// Target compute capability as `10 * major + minor`: `ldmatrix` needs
    /// 75, `stmatrix` 90. Not read for an AMD target.
    pub sm: u32,
    /// The AMD architecture when the target is one (`None`: NVIDIA `sm`):
    /// no `ldmatrix`/`stmatrix` and no cluster plans; `max_smem` is then
    /// within its LDS ([`crate::target::AmdArch::lds_bytes`]).
    pub amd: Option<crate::target::AmdArch>,
    /// Most scratch bytes a plan may use; plans over it store, load and
    /// barrier in rounds (Triton's reps) over register bits both sides
    /// share, halving the scratch per round bit. `None`: no limit.
    pub max_smem: Option<u64>,
    /// Predicted register peak ([`crate::plan::peak_registers`], in the form
    /// a caller should use) a plan should stay within: candidates over it
    /// rank after every candidate within it ([`crate::search::consider`]).
    /// `None`: the launch bounds' limit of the conversion's warps
    /// ([`crate::plan::register_limit`]: 255; 128 at 16 warps; 64 at 32).
    pub max_registers: Option<u32>,
    /// The named barrier (id 0..=15) that orders the shared-memory accesses
    /// of several warps, over the threads of the conversion's warps
    /// ([`BarrierScope::Named`]), where the helper runs on one warp group
    /// of a warp-specialized kernel; `None`: `__syncthreads()`.
    pub named_barrier: Option<u32>,
}

impl Default for SharedOptions {
    fn default() -> Self {
        SharedOptions {
            elem_bits: 32,
            sm: 90,
            amd: None,
            max_smem: None,
            max_registers: None,
            named_barrier: None,
        }
    }
}

/// Most shared memory one block may use on compute capability `sm`
/// (`10 * major + minor`), in bytes, once the kernel opts in with
/// `cudaFuncAttributeMaxDynamicSharedMemorySize` (CUDA C++ Programming
/// Guide, "Technical Specifications per Compute Capability"): 96 KB on
/// sm_70/sm_72, 64 KB on sm_75, 163 KB on sm_80/sm_87, 99 KB on sm_86/sm_89
/// and sm_12x, 227 KB on sm_90 and sm_10x. Unknown targets get the smallest
/// of their generation's neighbours (99 KB from sm_80 on, 64 KB before).
pub fn smem_limit(sm: u32) -> u64 {
    const KB: u64 = 1024;
    match sm {
        70 | 72 => 96 * KB,
        75 => 64 * KB,
        80 | 87 => 163 * KB,
        86 | 89 => 99 * KB,
        90 | 100 | 101 | 103 | 110 => 227 * KB,
        120 | 121 => 99 * KB,
        s if s >= 80 => 99 * KB,
        _ => 64 * KB,
    }
}

/// Scratch bytes per round of a one-warp CTA's shared-memory plan (its
/// barrier is `bar.warp.sync`, so a round costs no CTA-wide barrier): where
/// the tile allows, such plans store and load in rounds of at most this
/// many bytes ([`shared_plans_report`]), as Triton 3.6 sizes the scratch of warp-local conversions in
/// one warp (1-2 KB on `../shared/corpus/ttgir/stress_w1.ttgir`).
/// Measured on an H100 with `warpforge bench` (results/runs/2026-11-23-h100-spill-weight-d571367/):
/// the chosen plans of the 64x64 f16, 32x128 bf16 and 64x64 i8 one-warp
/// tiles ran fastest in rounds of 2 KB, against rounds of 4 KB or the whole
/// tile (8, 8 and 4 KB) in one round: with eight one-warp CTAs per SM a
/// warp waits out the latency of every load of its round before its next
/// phase, and smaller rounds shorten that tail.
pub const ONE_WARP_ROUND_BYTES: u64 = 2048;

/// A one-warp CTA's shared-memory plan of more scratch than its rounds
/// (a whole tile, or fewer rounds) is kept by the search only where its
/// score is below this fraction of the best plan in rounds
/// ([`one_warp_round_bytes`], `crate::search`): rounds cost barriers and
/// can force narrower accesses (an 8-bit 128x32 transpose in 2 KB rounds
/// stores 16-bit pieces where the whole 4 KB tile takes `stmatrix`), while
/// at equal instructions the rounds run faster. Measured on an H200 with
/// h2h, rounds against the whole tile over the 49 one-warp conversions of
/// the corpus, stress, test and fresh-kernel files whose plan the rounds
/// change (results/runs/2026-11-28-h200-fresh-kernels-*/whole_tile/):
/// the plans of more scratch scoring at most 0.78 of the rounds ran at
/// 0.60-1.01x the rounds' time (geomean 0.82, ten conversions), those
/// scoring 0.89 or more at 1.03-1.06x, except four at 0.98 (0.85x).
pub const ONE_WARP_MORE_SCRATCH: f64 = 0.8;

/// The scratch bytes that the shared-memory plans of a one-warp CTA go in
/// rounds of ([`shared_plans_report`]): [`ONE_WARP_ROUND_BYTES`], or the
/// fewest bytes of `plans` where that is more (the most rounds, or the
/// whole tile where no round exists); `None` for CTAs of more warps, AMD
/// targets, or a cap (`opt.max_smem`) at or below 2 KB. It is the cap
/// [`shared_plans_report`] used because each enumeration under one cap
/// yields plans of one scratch size (the fewest rounds that fit,
/// `chunk_plans`).
pub fn one_warp_round_bytes(an: &Analysis, opt: &SharedOptions, plans: &[Plan]) -> Option<u64> {
    if !one_warp_rounds(an, opt) {
        return None;
    }
    plans
        .iter()
        .filter(|p| p.kind == crate::plan::Kind::Shared)
        .map(|p| p.smem_bytes(opt.elem_bits))
        .min()
        .map(|least| least.max(ONE_WARP_ROUND_BYTES))
}

/// Round bits (log2 of the rounds) that bring `full_bytes` of scratch within
/// `cap` bytes (0 when it fits).
fn rounds_for(full_bytes: u64, cap: u64) -> usize {
    if full_bytes > cap {
        full_bytes
            .div_ceil(cap.max(1))
            .next_power_of_two()
            .trailing_zeros() as usize
    } else {
        0
    }
}

fn dedup(v: &mut Vec<Vec<u64>>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| seen.insert(x.clone()));
}

/// The shared-memory plans of a one-warp CTA with more scratch than the
/// `cap` its rounds went in ([`one_warp_round_bytes`]): those `opt` allows
/// (the whole tile, or fewer rounds). The search scores them against the
/// rounds and keeps those below [`ONE_WARP_MORE_SCRATCH`] of the best.
pub fn one_warp_more_scratch_plans(an: &Analysis, opt: &SharedOptions, cap: u64) -> Vec<Plan> {
    if opt.max_smem.is_some_and(|m| m <= cap) {
        return vec![];
    }
    shared_plans_inner(an, opt, &mut None, false)
        .into_iter()
        .filter(|p| p.smem_bytes(opt.elem_bits) > cap)
        .collect()
}

/// Whether `an`'s shared-memory plans go in one-warp rounds
/// ([`ONE_WARP_ROUND_BYTES`]): a CTA of one warp on NVIDIA (measured on an
/// H100; AMD one-wave plans take the whole tile) whose cap
/// (`opt.max_smem`) is above 2 KB.
fn one_warp_rounds(an: &Analysis, opt: &SharedOptions) -> bool {
    an.src.hw.warp == 0
        && an.dst.hw.warp == 0
        && opt.amd.is_none()
        && opt.max_smem.is_none_or(|m| m > ONE_WARP_ROUND_BYTES)
}

/// Every feasible shared-memory plan for `an` under `opt`.
pub fn shared_plans(an: &Analysis, opt: &SharedOptions) -> Vec<Plan> {
    shared_plans_report(an, opt).0
}

/// [`shared_plans`], and when `opt.max_smem` ruled some out, the fewest
/// scratch bytes any of those needed with the most rounds it allows.
///
/// A CTA of one warp first gets the plans within [`ONE_WARP_ROUND_BYTES`]
/// (or `opt.max_smem` when smaller), in rounds, and the fewest bytes is
/// then `None` (plans were found); where no plan fits that, the plans
/// within the fewest bytes any plan reaches (the most rounds the tile
/// allows, when below `opt.max_smem`); where no round exists, the plans
/// `opt` allows. The search adds the plans of more scratch
/// ([`one_warp_more_scratch_plans`]) where they could score below
/// [`ONE_WARP_MORE_SCRATCH`] of the best in rounds.
pub fn shared_plans_report(an: &Analysis, opt: &SharedOptions) -> (Vec<Plan>, Option<u64>) {
    if one_warp_rounds(an, opt) {
        let small = SharedOptions {
            max_smem: Some(ONE_WARP_ROUND_BYTES),
            ..*opt
        };
        let mut least = None;
        let mut out = shared_plans_inner(an, &small, &mut least, false);
        // No plan goes in 2 KB rounds (a 32-bit 64x64 tile has two register
        // bits common to both layouts: four rounds of 4 KB at most): the
        // plans at the most rounds the tile allows, as Triton 3.6 sizes such
        // scratch, rather than the whole tile in one round.
        if out.is_empty() {
            if let Some(fewest) = least.filter(|&b| opt.max_smem.is_none_or(|m| b < m)) {
                let most_rounds = SharedOptions {
                    max_smem: Some(fewest),
                    ..*opt
                };
                out = shared_plans_inner(an, &most_rounds, &mut None, false);
            }
        }
        if !out.is_empty() {
            return (out, None);
        }
    }
    let mut min_bytes = None;
    let out = shared_plans_inner(an, opt, &mut min_bytes, false);
    if out.is_empty() && min_bytes.is_some() {
        // Over the scratch limit in every round over register bits: warps
        // store in turn ([`super::ir::WarpGuard`]).
        let mut least = None;
        let out = shared_plans_inner(an, opt, &mut least, true);
        if !out.is_empty() {
            return (out, None);
        }
        return (out, least.or(min_bytes));
    }
    (out, min_bytes)
}

/// `warp_rounds`: rounds may also go over source warp bits that are
/// destination register bits (their stores guarded by warp), where the
/// rounds over register bits leave the scratch over `opt.max_smem`.
fn shared_plans_inner(
    an: &Analysis,
    opt: &SharedOptions,
    min_bytes: &mut Option<u64>,
    warp_rounds: bool,
) -> Vec<Plan> {
    let (a, b) = (&an.src, &an.dst);
    if a.block != b.block || !matches!(opt.elem_bits, 8 | 16 | 32 | 64) {
        return vec![];
    }
    let xb = SideCols::of(b);
    let mut out = Vec::new();
    // Split stores: for 8/16-bit data only those whose packed form chooses
    // whole words (the paired register bits are not slot bits of the
    // source's packing, `super::pack::pack_maps`; the store reads the
    // source registers, so `super::pack::store_word_choice` holds). Split
    // stores over slot bits, or of data too small to pack, would have the
    // element form only, and such plans of small tiles ran slower than
    // the unsplit plans' packed forms
    // (results/runs/2026-11-28-h200-split-packed-stores-7e6933d/).
    let xa = SideCols::of(a);
    let slot_mask: Option<u32> = if opt.elem_bits >= 32 {
        Some(0)
    } else {
        super::pack::pack_maps(an, opt.elem_bits)
            .map(|(ps, _)| ps.slot_bits.iter().fold(0, |m, &b| m | 1 << b))
    };
    for (xa, sel) in store_variants(&xa) {
        let over_slots = |m: u32| slot_mask.is_none_or(|s| m & s != 0);
        if !sel.is_zero() && sel.lane.iter().chain(&sel.warp).any(|&m| over_slots(m)) {
            continue;
        }
        plans_for_store_side(an, opt, &xa, &xb, &sel, &mut out, min_bytes, warp_rounds);
    }
    if let Some(arch) = opt.amd {
        // scored with the LDS's banks (the search reads the accesses' model)
        let model = super::ir::BankModel::Amd {
            banks: arch.lds_banks(),
        };
        for p in &mut out {
            for st in &mut p.stages {
                if let Stage::SmemStore { access } | Stage::SmemLoad { access } = st {
                    access.bank_model = model;
                }
            }
        }
    }
    out
}

/// The store sides of a source layout with broadcast lane or warp bits, as
/// (columns the store moves, [`SmemAccess::reg_xor`]): as it is, then with
/// each broadcast lane bit (and then each broadcast warp bit too) paired
/// with a register bit, highest first, that becomes a lane (warp) column
/// for the store: copies of a datum that differ in that bit store different
/// registers, halving the stores per pair (the selects that choose them are
/// costed by [`SmemAccess::select_ops`]).
fn store_variants(x: &SideCols) -> Vec<(SideCols, AddrMap)> {
    let mut out = vec![(x.clone(), AddrMap::zero())];
    let bl: Vec<usize> = (0..x.lane.len()).filter(|&j| x.lane[j] == 0).collect();
    let bw: Vec<usize> = (0..x.warp.len()).filter(|&j| x.warp[j] == 0).collect();
    let mut tries = Vec::new();
    if !bl.is_empty() {
        tries.push((bl.clone(), vec![]));
    }
    if !bw.is_empty() {
        tries.push((bl, bw));
    }
    for (lanes, warps) in tries {
        let mut y = x.clone();
        let mut sel = AddrMap {
            lane: vec![0; x.lane.len()],
            warp: vec![0; x.warp.len()],
        };
        let mut regs = x.ind.iter().rev().copied();
        let pairs = lanes
            .iter()
            .map(|&j| (true, j))
            .chain(warps.iter().map(|&j| (false, j)));
        for (is_lane, j) in pairs {
            let Some(r) = regs.next() else { break };
            y.ind.retain(|&b| b != r);
            if is_lane {
                y.lane[j] = x.reg[r];
                sel.lane[j] = 1 << r;
            } else {
                y.warp[j] = x.reg[r];
                sel.warp[j] = 1 << r;
            }
        }
        if !sel.is_zero() && !out.iter().any(|(_, s)| *s == sel) {
            out.push((y, sel));
        }
    }
    out
}

/// [`shared_plans_inner`] for one store side `xa` with its register choice
/// `sel` (a [`store_variants`] entry).
#[allow(clippy::too_many_arguments)]
fn plans_for_store_side(
    an: &Analysis,
    opt: &SharedOptions,
    xa: &SideCols,
    xb: &SideCols,
    sel: &AddrMap,
    out: &mut Vec<Plan>,
    min_bytes: &mut Option<u64>,
    warp_rounds: bool,
) {
    let (a, w) = (&an.src, opt.elem_bits);
    let mut seen = std::collections::HashSet::new();
    let d = XorBasis::of(&[&a.reg[..], &a.lane, &a.warp].concat()).dim();
    let cols = |x: &SideCols| -> Vec<u64> { x.ind.iter().map(|&i| x.reg[i]).collect() };
    let (ra, rb) = (cols(xa), cols(xb));
    let common_a: Vec<u64> = ra.iter().copied().filter(|v| rb.contains(v)).collect();
    let common_b: Vec<u64> = rb.iter().copied().filter(|v| ra.contains(v)).collect();
    let only = |x: &[u64], y: &[u64]| -> Vec<u64> {
        x.iter().copied().filter(|v| !y.contains(v)).collect()
    };
    let (a_only, b_only) = (only(&ra, &rb), only(&rb, &ra));
    let mut chunks: Vec<Vec<u64>> = vec![vec![]];
    // the common vectors in ascending order pack like the packed form (pack::pack_maps)
    let common_asc = super::pack::common_ascending(&ra, &rb);
    for common in [&common_a, &common_b, &common_asc] {
        chunks.push(common.clone());
        chunks.push([&common[..], &a_only].concat());
        chunks.push([&common[..], &b_only].concat());
    }
    // The chunks of every matrix form of either side.
    let npack = if w <= 32 {
        (32 / w).trailing_zeros() as usize
    } else {
        0
    };
    for x in [xa, xb] {
        if w > 32 {
            break;
        }
        let packs: Vec<Vec<u64>> = match npack {
            0 => vec![vec![]],
            1 => x.ind.iter().map(|&i| vec![x.reg[i]]).collect(),
            _ => x
                .ind
                .windows(2)
                .map(|p| vec![x.reg[p[0]], x.reg[p[1]]])
                .collect(),
        };
        for p in packs {
            chunks.push([&p[..], &x.lane[..2]].concat());
        }
        if w == 16 {
            chunks.push(x.lane[2..5].to_vec());
        }
    }
    dedup(&mut chunks);
    // offset bits of one wavefront phase's bytes: 128 (32 banks of 4 bytes),
    // 256 on an AMD LDS of 64 banks
    let banks = opt.amd.map_or(32, |a| a.lds_banks());
    let bank_bits = (4 * banks / (w / 8)).trailing_zeros() as usize;
    // Each chunk's candidates (assembled in parallel, in chunk order), then
    // the first of every (layout, store form, load form, rounds) kept in
    // that order, as one sequential walk would keep them.
    use rayon::prelude::*;
    let per_chunk: Vec<(Vec<(SeenKey, Plan)>, Option<u64>)> = chunks
        .par_iter()
        .map(|c| {
            let mut least_bytes = None;
            let mut found = Vec::new();
            let mut local = std::collections::HashSet::new();
            chunk_plans(
                an,
                opt,
                xa,
                xb,
                sel,
                c,
                d,
                bank_bits,
                &mut local,
                &mut found,
                &mut least_bytes,
                warp_rounds,
            );
            (found, least_bytes)
        })
        .collect();
    for (found, least) in per_chunk {
        if let Some(least) = least {
            *min_bytes = Some(min_bytes.map_or(least, |x: u64| x.min(least)));
        }
        for (key, p) in found {
            if seen.insert(key) {
                out.push(p);
            }
        }
    }
}

/// What makes two shared-memory candidates the same: the layout's bases,
/// the store and load forms, and the round bits.
type SeenKey = (Vec<u64>, Form, Form, usize);

/// The candidates of [`plans_for_store_side`] for one chunk `c` (its
/// vectors in chunk order), each with its [`SeenKey`], those with a key
/// already in `seen` left out; `min_bytes` as there.
#[allow(clippy::too_many_arguments)]
fn chunk_plans(
    an: &Analysis,
    opt: &SharedOptions,
    xa: &SideCols,
    xb: &SideCols,
    sel: &AddrMap,
    c: &[u64],
    d: usize,
    bank_bits: usize,
    seen: &mut std::collections::HashSet<SeenKey>,
    out: &mut Vec<(SeenKey, Plan)>,
    min_bytes: &mut Option<u64>,
    warp_rounds: bool,
) {
    let w = opt.elem_bits;
    {
        let banks = opt.amd.map_or(32, |a| a.lds_banks());
        let mut fa = vector_forms(xa, c, w, banks);
        if opt.amd.is_none() && opt.sm >= 90 {
            fa.extend(matrix_forms(xa, c, w));
        }
        let mut fb = vector_forms(xb, c, w, banks);
        if opt.amd.is_none() && opt.sm >= 75 {
            fb.extend(matrix_forms(xb, c, w));
        }
        for f_st in &fa {
            for f_ld in &fb {
                let k = f_st.chunk.len().max(f_ld.chunk.len());
                let cc = &c[..k];
                if XorBasis::of(cc).dim() != k {
                    continue;
                }
                let (long, lx) = if f_st.chunk.len() >= f_ld.chunk.len() {
                    (f_st, xa)
                } else {
                    (f_ld, xb)
                };
                // Round bits: register columns of both sides that neither
                // access needs within one instruction (Triton's reps).
                let outer = |x: &SideCols, f: &Form| -> Vec<u64> {
                    x.ind
                        .iter()
                        .filter(|b| !f.data_regs.contains(b) && !f.chunk.contains(&x.reg[**b]))
                        .map(|&b| x.reg[b])
                        .collect()
                };
                let ob = outer(xb, f_ld);
                let common_outer: Vec<u64> = outer(xa, f_st)
                    .into_iter()
                    .filter(|v| ob.contains(v))
                    .collect();
                let full_bytes = (1u64 << d) * (w as u64 / 8);
                let r_need = opt.max_smem.map_or(0, |m| rounds_for(full_bytes, m));
                let r_max = common_outer.len().min(d.saturating_sub(k));
                // Beyond the shared register bits, rounds over source warp
                // bits that are destination register bits the load splits
                // on (highest warp bits first): those warps store in turn.
                let by_warp: Vec<u64> = if warp_rounds && r_need > r_max {
                    xa.warp
                        .iter()
                        .rev()
                        .copied()
                        .filter(|v| *v != 0 && ob.contains(v))
                        .take(d.saturating_sub(k) - r_max)
                        .collect()
                } else {
                    vec![]
                };
                if r_need > r_max + by_warp.len() {
                    let least = full_bytes >> (r_max + by_warp.len());
                    *min_bytes = Some(min_bytes.map_or(least, |x: u64| x.min(least)));
                    continue;
                }
                // The fewest rounds that fit (as without a scratch limit:
                // one round): each further round adds two barriers and
                // moves the same instructions.
                for r in [r_need] {
                    let rounds_owned: Vec<u64> = if r <= r_max {
                        common_outer[common_outer.len() - r..].to_vec()
                    } else {
                        [
                            &common_outer[common_outer.len() - r_max..],
                            &by_warp[..r - r_max],
                        ]
                        .concat()
                    };
                    let rounds_v = &rounds_owned[..];
                    let mut span = XorBasis::of(&[cc, rounds_v].concat());
                    let h: Vec<u64> = non_chunk_cols(lx, long)
                        .into_iter()
                        .filter(|&v| span.insert(v))
                        .collect();
                    if k + h.len() + r != d {
                        continue;
                    }
                    for sw in [Swizzle::Plain, Swizzle::StoreFirst, Swizzle::LoadFirst] {
                        let mut bases = build_bases(
                            an.tensor_bits,
                            cc,
                            &h,
                            &f_st.phase,
                            &f_ld.phase,
                            bank_bits,
                            sw,
                        );
                        bases.extend_from_slice(rounds_v);
                        let Some(sl) = SharedLayout::new(an.tensor_bits, bases) else {
                            continue;
                        };
                        let key = (sl.bases.clone(), f_st.clone(), f_ld.clone(), r);
                        if !seen.insert(key.clone()) {
                            continue;
                        }
                        let cta =
                            opt.named_barrier
                                .map_or(BarrierScope::Cta, |id| BarrierScope::Named {
                                    id,
                                    threads: (1u32 << an.src.hw.lane) << an.src.hw.warp,
                                });
                        if let Some(p) = assemble(an, xa, xb, sel, f_st, f_ld, &sl, w, sw, r, cta) {
                            out.push((key, p));
                        }
                    }
                }
            }
        }
    }
}

/// The columns of `x` outside `f`'s chunk: independent register bits not
/// holding chunk elements, lanes not in the chunk, warps.
fn non_chunk_cols(x: &SideCols, f: &Form) -> Vec<u64> {
    let mut v: Vec<u64> = x
        .ind
        .iter()
        .filter(|b| !f.chunk.contains(&x.reg[**b]))
        .map(|&b| x.reg[b])
        .collect();
    v.extend(x.lane.iter().filter(|c| !f.chunk.contains(c)));
    v.extend(x.warp.iter());
    v
}

fn reg_tag(x: &SideCols, r: u32) -> u64 {
    (0..x.reg.len())
        .filter(|&i| r >> i & 1 == 1)
        .fold(0, |t, i| t ^ x.reg[i])
}

/// One side's access for form `f` over layout `sl`; `None` when an address
/// would be misaligned for the form (a column with a component on the chunk).
fn access(
    x: &SideCols,
    f: &Form,
    sl: &SharedLayout,
    width: u32,
    reg_xor: &AddrMap,
) -> Option<SmemAccess> {
    let eb = (width / 8).max(1);
    let align_bits = match f.instr {
        SmemInstr::Vector => f.chunk.len() as u32,
        SmemInstr::Matrix { .. } => (16 / eb).trailing_zeros(),
    };
    let mask = (1u32 << align_bits) - 1;
    for (i, &v) in f.chunk.iter().enumerate() {
        if sl.offset(v)? != 1 << i {
            return None;
        }
    }
    let aligned = |v: u64| -> Option<u32> {
        let o = sl.offset(v)?;
        (o & mask == 0).then_some(o)
    };
    let addr = match f.instr {
        SmemInstr::Vector => AddrMap {
            lane: x.lane.iter().map(|&c| aligned(c)).collect::<Option<_>>()?,
            warp: x.warp.iter().map(|&c| aligned(c)).collect::<Option<_>>()?,
        },
        SmemInstr::Matrix { .. } => {
            // The lanes not in the chunk or the rows must still be aligned
            // (they only pick which thread holds what, but a component on
            // the chunk bits would break the row's contiguity).
            for c in &x.lane {
                if !f.chunk.contains(c) && !f.rows.contains(c) {
                    aligned(*c)?;
                }
            }
            let mut lane: Vec<u32> = f.rows.iter().map(|&c| aligned(c)).collect::<Option<_>>()?;
            lane.resize(5, 0);
            AddrMap {
                lane,
                warp: x.warp.iter().map(|&c| aligned(c)).collect::<Option<_>>()?,
            }
        }
    };
    let outer: Vec<usize> = x
        .ind
        .iter()
        .copied()
        .filter(|b| !f.data_regs.contains(b))
        .collect();
    let mut insts = Vec::with_capacity(1 << outer.len());
    for o in 0u32..1 << outer.len() {
        let r0 = outer
            .iter()
            .enumerate()
            .filter(|(i, _)| o >> i & 1 == 1)
            .fold(0u32, |r, (_, &b)| r | 1 << b);
        let regs = (0u32..1 << f.data_regs.len())
            .map(|e| {
                f.data_regs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| e >> i & 1 == 1)
                    .fold(r0, |r, (_, &b)| r | 1 << b)
            })
            .collect();
        insts.push(SmemInst {
            regs,
            offset: aligned(reg_tag(x, r0))?,
        });
    }
    Some(SmemAccess {
        instr: f.instr,
        width,
        addr,
        insts,
        reg_xor: reg_xor.clone(),
        guard: Default::default(),
        lanes: 1 << x.lane.len(),
        bank_model: Default::default(),
    })
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    an: &Analysis,
    xa: &SideCols,
    xb: &SideCols,
    sel: &AddrMap,
    f_st: &Form,
    f_ld: &Form,
    sl: &SharedLayout,
    width: u32,
    sw: Swizzle,
    round_bits: usize,
    cta: BarrierScope,
) -> Option<Plan> {
    let st = access(xa, f_st, sl, width, sel)?;
    let ld = access(xb, f_ld, sl, width, &AddrMap::zero())?;
    let low = sl.bits() - round_bits;
    let low_mask = ((1u64 << low) - 1) as u32;
    // Round bits over source warp bits (round bit `i` -> warp bit): the
    // store's warp column puts the round bit in the address; in round `j`
    // only the warps whose bit is `j`'s store, so it leaves the address.
    let by_warp: Vec<(usize, usize)> = (0..round_bits)
        .filter_map(|i| {
            let v = sl.bases[low + i];
            xa.warp.iter().position(|&c| c == v).map(|b| (i, b))
        })
        .collect();
    let mut st_addr = st.addr.clone();
    for &(_, b) in &by_warp {
        st_addr.warp[b] = 0;
    }
    // Rounds: the other top `round_bits` offset bits come from registers
    // only, and no store instruction's offset has a round bit over warps.
    if (st_addr.base_bits() | ld.addr.base_bits()) & !low_mask != 0 {
        return None;
    }
    let guard_offsets = by_warp.iter().fold(0u32, |m, &(i, _)| m | 1 << (low + i));
    if st.insts.iter().any(|i| i.offset & guard_offsets != 0) {
        return None;
    }
    // one pass over the instructions: round `j` takes those whose offset's
    // top bits are `j`, in order (a store's round bits over warp bits are
    // its guard instead)
    let split = |acc: &SmemAccess, addr: &AddrMap, by_warp: &[(usize, usize)]| {
        let mut rounds: Vec<SmemAccess> = (0u32..1 << round_bits)
            .map(|j| SmemAccess {
                instr: acc.instr,
                width: acc.width,
                addr: addr.clone(),
                insts: Vec::new(),
                reg_xor: acc.reg_xor.clone(),
                lanes: acc.lanes,
                bank_model: acc.bank_model,
                guard: by_warp.iter().fold(
                    Default::default(),
                    |g: super::ir::WarpGuard, &(i, b)| super::ir::WarpGuard {
                        mask: g.mask | 1 << b,
                        value: g.value | (j >> i & 1) << b,
                    },
                ),
            })
            .collect();
        let guard_bits = by_warp.iter().fold(0u32, |m, &(i, _)| m | 1 << i);
        for i in &acc.insts {
            let top = (i.offset >> low) as usize;
            for (j, r) in rounds.iter_mut().enumerate() {
                if j & !(guard_bits as usize) == top {
                    r.insts.push(SmemInst {
                        regs: i.regs.clone(),
                        offset: i.offset & low_mask,
                    });
                }
            }
        }
        rounds
    };
    let (st_r, ld_r) = (split(&st, &st_addr, &by_warp), split(&ld, &ld.addr, &[]));
    // Copies in other warps that store for this one make it cross warps.
    let scope = if an.warp_local && sel.warp.iter().all(|&m| m == 0) {
        BarrierScope::Warp
    } else {
        cta
    };
    // Where each destination register's element was loaded (loads append
    // to the source registers).
    let mut pos = std::collections::HashMap::new();
    let mut stages = Vec::new();
    let mut next = an.src_regs();
    for (j, (s, l)) in st_r.into_iter().zip(ld_r).enumerate() {
        if j > 0 {
            stages.push(Stage::Barrier { scope });
        }
        for r in l.insts.iter().flat_map(|i| i.regs.iter()) {
            pos.insert(*r, next);
            next += 1;
        }
        stages.push(Stage::SmemStore { access: s });
        stages.push(Stage::Barrier { scope });
        stages.push(Stage::SmemLoad { access: l });
    }
    let m = BitMatrix::from_cols(an.tensor_bits, xb.ind.iter().map(|&i| xb.reg[i]).collect());
    let e = m.echelon();
    let map = (0..an.dst_regs())
        .map(|j| {
            let x = m.solve_with(&e, reg_tag(xb, j))?;
            let r = xb
                .ind
                .iter()
                .enumerate()
                .filter(|(i, _)| x >> i & 1 == 1)
                .fold(0u32, |r, (_, &b)| r | 1 << b);
            pos.get(&r).copied()
        })
        .collect::<Option<Vec<u32>>>()?;
    stages.push(Stage::RegRename { map });
    let bases: Vec<String> = sl.bases[..low].iter().map(|b| format!("{b:#x}")).collect();
    let note = format!(
        "shared layout (offset bit -> tensor index bits): [{}]; chunk {} bit(s); {}; store {} x{}{}, load {} x{}{}",
        bases.join(", "),
        f_st.chunk.len().max(f_ld.chunk.len()),
        match scope {
            BarrierScope::Warp => "__syncwarp (each warp reads only what it wrote)".to_string(),
            BarrierScope::Cta => "__syncthreads".to_string(),
            BarrierScope::Named { id, threads } => {
                format!("bar.sync {id}, {threads} (the warp group's named barrier)")
            }
        },
        access_name(&st, "st"),
        st.insts.len(),
        if st.reg_xor.is_zero() {
            String::new()
        } else {
            format!(
                " (broadcast copies store different registers: lane bits -> register bits {:?}, warp bits -> {:?})",
                st.reg_xor.lane, st.reg_xor.warp
            )
        },
        access_name(&ld, "ld"),
        ld.insts.len(),
        if round_bits > 0 {
            let rv: Vec<String> = sl.bases[low..].iter().map(|b| format!("{b:#x}")).collect();
            let wb: Vec<String> = by_warp.iter().map(|(_, b)| b.to_string()).collect();
            format!(
                "; {} rounds over tensor bits [{}]{}",
                1 << round_bits,
                rv.join(", "),
                if wb.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (warps store in turn: rounds over warp bit(s) {})",
                        wb.join(", ")
                    )
                }
            )
        } else {
            String::new()
        }
    );
    let rounds = NonZeroU32::new(1u32 << round_bits).expect("a power of two is nonzero");
    Some(Plan {
        kind: Kind::Shared,
        strategy: Strategy::Shared(SharedStrategy {
            store: f_st.strategy_form(width),
            load: f_ld.strategy_form(width),
            swizzle: sw,
            split: NonZeroU32::new(
                st.reg_xor
                    .lane
                    .iter()
                    .chain(&st.reg_xor.warp)
                    .filter(|&&m| m != 0)
                    .count() as u32,
            ),
            rounds,
            warp_rounds: NonZeroU32::new(by_warp.len() as u32),
        }),
        src_regs: an.src_regs(),
        dst_regs: an.dst_regs(),
        stages,
        smem_elems: 1u64 << low,
        m: 0,
        elem_bits: width,
        rounds: Rounds::new(rounds),
        notes: vec![note],
        pack: None,
        lanes: 1 << an.src.hw.lane,
        first_warp: 0,
        register_budget: None,
    })
}

/// The PTX spelling of an access (`st.shared.v4.b32`, `ldmatrix.x4.trans`, ...).
pub fn access_name(a: &SmemAccess, dir: &str) -> String {
    match a.instr {
        SmemInstr::Vector => {
            let ty = match a.bytes() {
                1 => "u8",
                2 => "u16",
                4 => "b32",
                8 => "v2.b32",
                _ => "v4.b32",
            };
            format!("{dir}.shared.{ty}")
        }
        SmemInstr::Matrix { count, trans } => format!(
            "{}matrix.x{count}{}",
            if dir == "st" { "st" } else { "ld" },
            if trans { ".trans" } else { "" }
        ),
    }
}
