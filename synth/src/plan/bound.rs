//! Lower bounds on what a conversion must cost (issue 7): how far a plan is
//! from the least data movement any plan of its kind could do.
//!
//! - Shuffles (warp-local conversions): every 32-bit word of a destination
//!   register whose element the thread does not hold in the source must
//!   arrive through one `shfl.sync` (32 bits per lane per shuffle, PTX ISA
//!   9.7.8.6), so a thread needs at least `ceil(moved elements x bits / 32)`
//!   shuffles; for 8- and 16-bit elements, also at least `ceil(n_X x bits /
//!   32)` for the `n_X` elements only lane `X` holds, summed over the lanes
//!   (one shuffle brings 32 bits from one lane); the bound is the maximum
//!   over threads.
//! - Shared memory: the warps must store every element some thread needs
//!   and does not hold (an element several warps hold by any one of them,
//!   `ir::SmemAccess::reg_xor`), at most 128 bytes per wavefront and 16
//!   bytes per lane per instruction (`st.shared.v4`); each thread must load
//!   every element it needs and does not hold, likewise (instructions), and
//!   a warp must read the distinct elements its threads need, at most 128
//!   bytes per wavefront (lanes that need the same element can share a
//!   wavefront, `ir::SmemAccess::wavefronts`). The bound counts store plus
//!   load instructions of the busiest thread and wavefronts of the busiest
//!   warp, plus one barrier.
//! - Cluster conversions ([`super::Kind::Cluster`]): the same instructions,
//!   but only the cheaper of the two directions' wavefronts. A cluster plan
//!   stores remotely and loads locally, or stores locally and loads
//!   remotely (`st`/`ld` with the `.shared::cluster` state space, PTX ISA
//!   "Data Movement and Conversion Instructions"), and its score charges
//!   the remote side's accesses as instructions, not as wavefronts, plus
//!   the remote-access weights (`Weights::remote_store`,
//!   `Weights::remote_load`, docs/ARCHITECTURE.md 4.7). The bytes that
//!   must cross CTAs (each CTA's elements that none of its threads holds)
//!   are counted apart, per warp of the busiest receiving CTA and per
//!   thread, for the cluster limit kernels (`kernels::limit`); the bound
//!   also charges them as 16-byte remote stores or loads, whichever
//!   direction scores less. For the stores that takes the busiest receiving
//!   CTA's bytes per warp as what a writer thread sends, which holds where
//!   every CTA sends as much as it receives (and the writer plan stores
//!   every source element it holds, its own CTA's included, so its count
//!   is larger still on the cluster files). Checked against every plan of
//!   the cluster files in `tests/data/` (`tests/cli/plan.rs`).
//!
//! Both bounds ignore selects and byte permutes, so they are bounds, not
//! estimates.

use super::Analysis;
use crate::cost_model::{Features, Weights};
use serde::Serialize;

/// Lower bounds for one conversion at one element width.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LowerBound {
    /// Element width the bound is for, in bits.
    pub elem_bits: u32,
    /// 32-bit words per thread that must change lane (busiest thread);
    /// `None` when the conversion crosses warps (no shuffle plan exists).
    pub shfl_words: Option<u32>,
    /// Shared-memory instructions per thread (stores plus loads, busiest
    /// thread) of any shared-memory round trip.
    pub smem_accesses: u32,
    /// Shared-memory wavefronts per warp (busiest warp) of any round trip;
    /// of a cluster conversion, those of the cheaper local side.
    pub smem_wavefronts: u32,
    /// Bytes the busiest warp must store to shared memory (the elements
    /// some thread needs and does not hold, each stored once by one of the
    /// warps that hold it).
    pub smem_store_bytes: u64,
    /// Bytes the busiest thread must load from shared memory (the elements
    /// it needs and does not hold).
    pub smem_load_bytes: u64,
    /// Cluster conversions: bytes each CTA must receive from the other
    /// CTAs of its cluster (the elements its threads need and none of them
    /// holds, each once), per warp of the busiest CTA (spread over its
    /// warps); 0 where no element crosses CTAs.
    pub cluster_store_bytes: u64,
    /// Cluster conversions: bytes the busiest thread needs that no thread
    /// of its CTA holds (each must come from another CTA's shared memory,
    /// or be stored into its own by another CTA); 0 where none crosses.
    pub cluster_load_bytes: u64,
    /// Least score any plan could reach under the weights given to
    /// [`lower_bound`]: the cheaper of the two bounds, each at least the
    /// latency floor of one shared-memory trip or one shuffle stage over
    /// the CTA's warps, the shared-memory one of a cluster conversion with
    /// its crossing bytes as remote accesses (0 when nothing moves between
    /// threads).
    pub score: f64,
}

/// Shuffles a thread that needs the elements `need` (sorted tags it does
/// not hold) takes at least, for `bits`-bit elements: one `shfl.sync`
/// brings it 32 bits from one lane, so the elements only lane `X` holds
/// take `ceil(n_X * bits / 32)` shuffles whatever the source lanes pack
/// into the words they send, and all of them together at least `ceil(n *
/// bits / 32)`. `holders`: the sorted `(tag, lane)` pairs of the warp's
/// source (empty for 32- and 64-bit elements, where the two counts agree).
fn shuffled_words(need: &[u64], holders: &[(u64, u64)], bits: u32) -> u64 {
    let total = (need.len() as u64 * bits as u64).div_ceil(32);
    if holders.is_empty() {
        return total;
    }
    let mut per_lane = vec![0u64; 64];
    for &t in need {
        let lo = holders.partition_point(|h| h.0 < t);
        let hi = holders.partition_point(|h| h.0 <= t);
        if hi - lo == 1 {
            per_lane[holders[lo].1 as usize] += 1;
        }
    }
    let unique: u64 = per_lane
        .iter()
        .map(|&n| (n * bits as u64).div_ceil(32))
        .sum();
    total.max(unique)
}

/// Lower bounds of `an` for `elem_bits`-bit elements (8, 16, 32 or 64),
/// scored with `w`. Work: one pass over every slot of every thread of one
/// CTA (at most 2^tensor_bits x broadcast copies).
pub fn lower_bound(an: &Analysis, elem_bits: u32, w: &Weights) -> LowerBound {
    let warps = 1u64 << an.src.hw.warp;
    let lanes = 1u64 << an.src.hw.lane;
    let (sr, dr) = (1u64 << an.src.hw.reg, 1u64 << an.dst.hw.reg);
    let tags = |side: &super::Side, regs: u64, lane: u64, warp: u64| -> Vec<u64> {
        side.thread_tags(regs, lane, warp, 0)
    };
    // Elements that move: needed by a thread that does not hold them.
    // sorted, deduplicated tag lists (a tile of 1024 elements per thread
    // at 32 warps has a million tags: sort, not hash)
    let sorted = |mut v: Vec<u64>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    let mut moving: Vec<u64> = Vec::new();
    let mut max_moved = 0u64;
    let mut max_warp_loaded = 0u64;
    // shuffled words of the busiest thread (see `shuffled_words`)
    let mut max_shfl = 0u64;
    for warp in 0..warps {
        let mut warp_need: Vec<u64> = Vec::new();
        // (tag, lane) of every source element of the warp, for the shuffle
        // bound of narrow elements
        let holders: Vec<(u64, u64)> = if an.warp_local && elem_bits < 32 {
            let mut h: Vec<(u64, u64)> = (0..lanes)
                .flat_map(|lane| {
                    tags(&an.src, sr, lane, warp)
                        .into_iter()
                        .map(move |t| (t, lane))
                })
                .collect();
            h.sort_unstable();
            h.dedup();
            h
        } else {
            Vec::new()
        };
        for lane in 0..lanes {
            let held = sorted(tags(&an.src, sr, lane, warp));
            let need = sorted(
                tags(&an.dst, dr, lane, warp)
                    .into_iter()
                    .filter(|t| held.binary_search(t).is_err())
                    .collect(),
            );
            max_moved = max_moved.max(need.len() as u64);
            if an.warp_local {
                max_shfl = max_shfl.max(shuffled_words(&need, &holders, elem_bits));
            }
            warp_need.extend_from_slice(&need);
        }
        let warp_need = sorted(warp_need);
        max_warp_loaded = max_warp_loaded.max(warp_need.len() as u64);
        moving.extend(warp_need);
    }
    let moving = sorted(moving);
    // the moving tags each warp holds, and those only one warp holds
    let held_by: Vec<Vec<u64>> = (0..warps)
        .map(|warp| {
            sorted(
                (0..lanes)
                    .flat_map(|lane| tags(&an.src, sr, lane, warp))
                    .filter(|t| moving.binary_search(t).is_ok())
                    .collect(),
            )
        })
        .collect();
    let mut all: Vec<u64> = held_by.iter().flatten().copied().collect();
    all.sort_unstable();
    let single: Vec<u64> = all
        .chunk_by(|a, b| a == b)
        .filter(|run| run.len() == 1)
        .map(|run| run[0])
        .collect();
    let only_mine = held_by
        .iter()
        .map(|m| m.iter().filter(|t| single.binary_search(t).is_ok()).count() as u64)
        .max()
        .unwrap_or(0);
    let max_stored = only_mine.max((moving.len() as u64).div_ceil(warps));
    let bytes = elem_bits as u64 / 8;
    let words = (max_moved * elem_bits as u64).div_ceil(32).max(max_shfl) as u32;
    let (store_b, load_b) = (max_stored * bytes, max_moved * bytes);
    let smem_accesses = (store_b.div_ceil(lanes * 16) + load_b.div_ceil(16)) as u32;
    let warp_load_b = max_warp_loaded * bytes;
    let (store_wf, load_wf) = (store_b.div_ceil(128), warp_load_b.div_ceil(128));
    let smem_wavefronts = if an.class == super::Kind::Cluster {
        store_wf.min(load_wf)
    } else {
        store_wf + load_wf
    } as u32;
    let shfl_words = an.warp_local.then_some(words);
    let (cluster_store_bytes, cluster_load_bytes) = if an.class == super::Kind::Cluster {
        cluster_bytes(an, elem_bits)
    } else {
        (0, 0)
    };
    let score = if max_moved == 0 {
        0.0
    } else {
        // at least one trip or one shuffle stage, whose latency floor the
        // CTA's warps share (`Weights::dot`)
        let per_warp = 1.0 / warps as f64;
        let local = Features {
            smem: smem_accesses as f64,
            wavefront: smem_wavefronts as f64,
            bar: if an.warp_local { 0.0 } else { 1.0 },
            bar_warp: if an.warp_local { 1.0 } else { 0.0 },
            smem_trips: per_warp,
            cta_warps: warps as f64,
            ..Features::default()
        };
        // the bytes that cross CTAs go as 16-byte remote stores (the
        // writer's, per warp) or remote loads (the reader's, per thread),
        // whichever direction scores less; none for other conversions
        let remote_stores = cluster_store_bytes.div_ceil(lanes * 16) as f64;
        let remote_loads = cluster_load_bytes.div_ceil(16) as f64;
        let smem = w
            .dot(&Features {
                remote_stores,
                ..local
            })
            .min(w.dot(&Features {
                remote_loads,
                ..local
            }));
        match shfl_words {
            Some(n) => smem.min(w.dot(&Features {
                shfl: n as f64,
                shfl_stages: per_warp,
                ..Features::default()
            })),
            None => smem,
        }
    };
    LowerBound {
        elem_bits,
        shfl_words,
        smem_accesses,
        smem_wavefronts,
        smem_store_bytes: store_b,
        smem_load_bytes: load_b,
        cluster_store_bytes,
        cluster_load_bytes,
        score,
    }
}

/// `(cluster_store_bytes, cluster_load_bytes)` of [`LowerBound`] for a
/// cluster conversion, over every CTA of the cluster: per CTA, the distinct
/// elements its threads need and none of its threads holds, over its warps
/// (rounded up), and the most such elements one thread needs; the busiest
/// CTA's. Work: one pass over every slot of every thread of the cluster.
fn cluster_bytes(an: &Analysis, elem_bits: u32) -> (u64, u64) {
    let warps = 1u64 << an.src.hw.warp;
    let lanes = 1u64 << an.src.hw.lane;
    let (sr, dr) = (1u64 << an.src.hw.reg, 1u64 << an.dst.hw.reg);
    let bytes = elem_bits as u64 / 8;
    let (mut per_warp, mut per_thread) = (0u64, 0u64);
    for b in 0..1u64 << an.src.hw.block {
        let mut held: Vec<u64> = (0..warps)
            .flat_map(|w| (0..lanes).map(move |l| (w, l)))
            .flat_map(|(w, l)| an.src.thread_tags(sr, l, w, b))
            .collect();
        held.sort_unstable();
        held.dedup();
        let mut cta_need: Vec<u64> = Vec::new();
        for w in 0..warps {
            for l in 0..lanes {
                let mut need: Vec<u64> = an
                    .dst
                    .thread_tags(dr, l, w, b)
                    .into_iter()
                    .filter(|t| held.binary_search(t).is_err())
                    .collect();
                need.sort_unstable();
                need.dedup();
                per_thread = per_thread.max(need.len() as u64);
                cta_need.extend(need);
            }
        }
        cta_need.sort_unstable();
        cta_need.dedup();
        per_warp = per_warp.max((cta_need.len() as u64).div_ceil(warps));
    }
    (per_warp * bytes, per_thread * bytes)
}
