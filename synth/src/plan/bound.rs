//! Lower bounds on what a conversion must cost (issue 7): how far a plan is
//! from the least data movement any plan of its kind could do.
//!
//! - Shuffles (warp-local conversions): every 32-bit word of a destination
//!   register whose element the thread does not hold in the source must
//!   arrive through one `shfl.sync` (32 bits per lane per shuffle, PTX ISA
//!   9.7.8.6), so a thread needs at least `ceil(moved elements x bits / 32)`
//!   shuffles; the bound is the maximum over threads.
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
//!   the remote side's accesses as instructions but not as wavefronts
//!   (`cost_model::Features`' stand-in for distributed shared memory,
//!   docs/ARCHITECTURE.md 4.7). Checked against every plan of the cluster
//!   files in `tests/data/` (`tests/cli.rs`).
//!
//! Both bounds ignore selects and byte permutes, so they are bounds, not
//! estimates.

use super::Analysis;
use crate::cost_model::{Features, Weights};
use serde::Serialize;
use std::collections::HashSet;

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
    /// Least score any plan could reach under the weights given to
    /// [`lower_bound`]: the cheaper of the two bounds, each at least the
    /// latency floor of one shared-memory trip or one shuffle stage over
    /// the CTA's warps (0 when nothing moves between threads).
    pub score: f64,
}

/// Lower bounds of `an` for `elem_bits`-bit elements (8, 16, 32 or 64),
/// scored with `w`. Work: one pass over every slot of every thread of one
/// CTA (at most 2^tensor_bits x broadcast copies).
pub fn lower_bound(an: &Analysis, elem_bits: u32, w: &Weights) -> LowerBound {
    let warps = 1u64 << an.src.hw.warp;
    let (sr, dr) = (1u64 << an.src.hw.reg, 1u64 << an.dst.hw.reg);
    let tags = |side: &super::Side, regs: u64, lane: u64, warp: u64| -> Vec<u64> {
        (0..regs).map(|r| side.tag(r, lane, warp, 0)).collect()
    };
    // Elements that move: needed by a thread that does not hold them.
    let mut moving: HashSet<u64> = HashSet::new();
    let mut max_moved = 0u64;
    let mut max_warp_loaded = 0u64;
    for warp in 0..warps {
        let mut warp_need: HashSet<u64> = HashSet::new();
        for lane in 0..32 {
            let held: HashSet<u64> = tags(&an.src, sr, lane, warp).into_iter().collect();
            let mut need: Vec<u64> = tags(&an.dst, dr, lane, warp)
                .into_iter()
                .filter(|t| !held.contains(t))
                .collect();
            need.sort_unstable();
            need.dedup();
            max_moved = max_moved.max(need.len() as u64);
            warp_need.extend(need.iter().copied());
            moving.extend(need);
        }
        max_warp_loaded = max_warp_loaded.max(warp_need.len() as u64);
    }
    // Stores: an element several warps hold can be stored by any one of
    // them, so the busiest warp stores at least its share of all moving
    // elements and every element only it holds.
    let mut holders: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    let mut held_by: Vec<HashSet<u64>> = Vec::new();
    for warp in 0..warps {
        let mut mine: HashSet<u64> = HashSet::new();
        for lane in 0..32 {
            mine.extend(
                tags(&an.src, sr, lane, warp)
                    .into_iter()
                    .filter(|t| moving.contains(t)),
            );
        }
        for &t in &mine {
            *holders.entry(t).or_default() += 1;
        }
        held_by.push(mine);
    }
    let only_mine = held_by
        .iter()
        .map(|m| m.iter().filter(|t| holders[t] == 1).count() as u64)
        .max()
        .unwrap_or(0);
    let max_stored = only_mine.max((moving.len() as u64).div_ceil(warps));
    let bytes = elem_bits as u64 / 8;
    let words = (max_moved * elem_bits as u64).div_ceil(32) as u32;
    let (store_b, load_b) = (max_stored * bytes, max_moved * bytes);
    let smem_accesses = (store_b.div_ceil(32 * 16) + load_b.div_ceil(16)) as u32;
    let warp_load_b = max_warp_loaded * bytes;
    let (store_wf, load_wf) = (store_b.div_ceil(128), warp_load_b.div_ceil(128));
    let smem_wavefronts = if an.class == super::Kind::Cluster {
        store_wf.min(load_wf)
    } else {
        store_wf + load_wf
    } as u32;
    let shfl_words = an.warp_local.then_some(words);
    let score = if max_moved == 0 {
        0.0
    } else {
        // at least one trip or one shuffle stage, whose latency floor the
        // CTA's warps share (`Weights::dot`)
        let per_warp = 1.0 / warps as f64;
        let smem = w.dot(&Features {
            smem: smem_accesses as f64,
            wavefront: smem_wavefronts as f64,
            bar: if an.warp_local { 0.0 } else { 1.0 },
            bar_warp: if an.warp_local { 1.0 } else { 0.0 },
            smem_trips: per_warp,
            ..Features::default()
        });
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
        score,
    }
}
