//! The shared-memory bank model: which 4-byte words each wavefront phase of
//! an access touches, how many wavefronts an instruction takes (32 banks of
//! 4 bytes; loads of 64/128 bits may merge two phases), and the fewest its
//! bytes allow. The search scores plans by it and the simulator reports it
//! ([`crate::sim::SimReport::bank_conflicts`]); how it was measured is on
//! [`SmemAccess::wavefronts`].

use super::ir::{Plan, SmemAccess, SmemInstr, Stage};
use serde::Serialize;

/// Which shared-memory bank model an access is scored with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BankModel {
    /// NVIDIA: 32 banks of 4 bytes, phases of 128 bytes, and the measured
    /// merges of `.v2`/`.v4` load phases ([`SmemAccess::wavefronts`]).
    #[default]
    Nvidia,
    /// An AMD LDS of `banks` banks of 4 bytes (32; 64 on gfx950): phases of
    /// `4 * banks` bytes, no merges. From the ISA guides, not measured (no
    /// AMD GPU timed it).
    Amd { banks: u32 },
}

impl BankModel {
    /// Banks of 4 bytes.
    pub fn banks(self) -> u32 {
        match self {
            BankModel::Nvidia => 32,
            BankModel::Amd { banks } => banks,
        }
    }
    /// Whether this is NVIDIA's model.
    pub fn is_nvidia(&self) -> bool {
        *self == BankModel::Nvidia
    }
}

impl SmemAccess {
    /// The byte ranges `(start, len)` of one wavefront phase each, that
    /// instruction `inst` of warp `warp` touches (addresses relative to the
    /// scratch). Vectors: phases of 32, 16 or 8 lanes for up to 4, 8 or 16
    /// bytes per thread; matrices: one phase of 8 rows of 16 bytes each.
    pub fn phases(&self, inst: usize, warp: u32) -> Vec<Vec<(u32, u32)>> {
        let eb = (self.width / 8).max(1);
        let off = self.insts[inst].offset;
        let at = |lane: u32| (self.addr.base(lane, warp) ^ off) * eb;
        match self.instr {
            SmemInstr::Vector => {
                let bytes = self.bytes();
                let per =
                    (1u32 << phase_lanes_banks(bytes, self.bank_model.banks())).min(self.lanes);
                (0..self.lanes / per)
                    .map(|p| (p * per..(p + 1) * per).map(|l| (at(l), bytes)).collect())
                    .collect()
            }
            SmemInstr::Matrix { count, .. } => (0..count)
                .map(|j| (8 * j..8 * j + 8).map(|l| (at(l), 16)).collect())
                .collect(),
        }
    }
    /// Wavefronts of one instruction of one warp (4-byte banks, 32 banks:
    /// the most distinct 4-byte words any bank serves, summed over phases).
    /// Loads of 64 and 128 bits merge two phases (the half warps of a `.v2`,
    /// quarters 0+1 and 2+3 of a `.v4`) into one wavefront when each takes
    /// one, no bank serves two words over both, and the two together name at
    /// most 128 bytes of per-phase distinct addresses (16 `.v2` or 8 `.v4`
    /// addresses), as lanes that share addresses (a broadcast destination)
    /// allow; stores never merge. Measured with `ncu`
    /// (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld`) and throughput on
    /// an H100, `scripts/smem_broadcast.py`, `results/runs/2026-11-22-h100-smem-broadcast-3a74e29/smem_broadcast.txt`.
    pub fn wavefronts(&self, inst: usize, warp: u32, dir: Dir) -> u64 {
        let phases = self.phases(inst, warp);
        let banks = self.bank_model.banks();
        let per: Vec<u64> = phases
            .iter()
            .map(|ph| phase_wavefronts_banks(ph, banks))
            .collect();
        let bytes = self.bytes();
        if dir == Dir::Store
            || self.instr != SmemInstr::Vector
            || !(8..=16).contains(&bytes)
            || !self.bank_model.is_nvidia()
        {
            return per.iter().sum();
        }
        let limit = 128 / bytes as usize;
        let distinct = |ph: &[(u32, u32)]| {
            let mut a: Vec<u32> = ph.iter().map(|r| r.0).collect();
            a.sort_unstable();
            a.dedup();
            a.len()
        };
        (0..phases.len())
            .step_by(2)
            .map(|p| {
                let (x, y) = (&phases[p], &phases[p + 1]);
                let merge = per[p] == 1
                    && per[p + 1] == 1
                    && distinct(x) + distinct(y) <= limit
                    && phase_wavefronts(&[&x[..], &y[..]].concat()) == 1;
                if merge {
                    1
                } else {
                    per[p] + per[p + 1]
                }
            })
            .sum()
    }
    /// The fewest wavefronts one instruction of warp `warp` can take. Stores:
    /// the bytes one warp moves / 128 (at least 1; `count` for matrices).
    /// Vector loads: the distinct 4-byte words they read / 32, and at least
    /// 1 (2 for `.v4`, whose half warps never merge).
    pub fn min_wavefronts(&self, inst: usize, warp: u32, dir: Dir) -> u64 {
        match self.instr {
            SmemInstr::Vector if dir == Dir::Load => {
                let mut words: Vec<u32> = self
                    .phases(inst, warp)
                    .iter()
                    .flatten()
                    .flat_map(|&(a, n)| a / 4..(a + n).div_ceil(4))
                    .collect();
                words.sort_unstable();
                words.dedup();
                let floor = if self.bytes() > 8 && self.bank_model.is_nvidia() {
                    2
                } else {
                    1
                };
                let banks = self.bank_model.banks() as u64;
                (words.len() as u64).div_ceil(banks).max(floor)
            }
            SmemInstr::Vector => (self.lanes as u64 * self.bytes() as u64)
                .div_ceil(4 * self.bank_model.banks() as u64)
                .max(1),
            SmemInstr::Matrix { count, .. } => count as u64,
        }
    }
}

impl Plan {
    /// Shared-memory wavefronts of one warp over the whole plan, and the
    /// fewest the bytes it moves allow (both 0 without shared memory).
    /// Exact for every warp: the lane-independent address parts XOR a
    /// constant onto every address, which keeps words apart and banks equal.
    pub fn wavefronts_per_warp(&self) -> (u64, u64) {
        let mut w = (0, 0);
        for s in &self.stages {
            let (access, dir) = match s {
                Stage::SmemStore { access } => (access, Dir::Store),
                Stage::SmemLoad { access } => (access, Dir::Load),
                _ => continue,
            };
            if !access.insts.is_empty() {
                let n = access.insts.len() as u64;
                w.0 += n * access.wavefronts(0, 0, dir);
                w.1 += n * access.min_wavefronts(0, 0, dir);
            }
        }
        w
    }
}

/// Lane bits that share one wavefront phase for a vector access of `bytes`
/// per thread: all 32 lanes up to 4 bytes, half warps for 8, quarter warps
/// for 16.
pub fn phase_lanes(bytes: u32) -> usize {
    phase_lanes_banks(bytes, 32)
}

/// Lane bits that share one phase of `4 * banks` bytes for a vector access
/// of `bytes` per thread (`banks` = 32: [`phase_lanes`]; 64 on gfx950: all 64
/// lanes up to 4 bytes, 32 for 8, 16 for 16).
pub fn phase_lanes_banks(bytes: u32, banks: u32) -> usize {
    ((4 * banks) / bytes.clamp(4, 16)).trailing_zeros() as usize
}

/// Wavefronts of one phase: the most distinct 4-byte words one bank serves.
pub fn phase_wavefronts(ranges: &[(u32, u32)]) -> u64 {
    phase_wavefronts_banks(ranges, 32)
}

/// [`phase_wavefronts`] over `banks` banks of 4 bytes.
pub fn phase_wavefronts_banks(ranges: &[(u32, u32)], banks: u32) -> u64 {
    let mut words: Vec<u32> = ranges
        .iter()
        .flat_map(|&(a, n)| (a / 4..(a + n).div_ceil(4)).collect::<Vec<_>>())
        .collect();
    words.sort_unstable();
    words.dedup();
    let mut per_bank = vec![0u64; banks as usize];
    for w in words {
        per_bank[(w % banks) as usize] += 1;
    }
    per_bank.iter().copied().max().unwrap_or(0).max(1)
}

/// Whether a [`SmemAccess`] stores or loads (wavefront phases of loads can
/// merge, [`SmemAccess::wavefronts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Store,
    Load,
}
