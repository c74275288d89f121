//! The register budget of a helper (docs/ARCHITECTURE.md 4.6): how many
//! 32-bit registers per thread its data takes in each form, the predicted
//! peak of live registers when it runs inside a kernel that holds its tile,
//! and the limit the launch bounds set.
//!
//! The prediction is the data plus an overhead per plan family and form,
//! fitted to the register-budget loop kernels of `warpforge verify --gpu`
//! (NVIDIA H100, CUDA 13.0, `results/resources/verify_gpu_h100_4fe1f54.jsonl`: 438 spill-free
//! cases, the median of `loop registers - data registers` per family and
//! form). Against those 438 measurements the prediction is within 16
//! registers on 399, its error (measured - predicted) has median 0, 10th
//! percentile -9 and 90th percentile +14. It is a planning estimate, not a
//! bound: ptxas decides.

use super::{Kind, Plan};
use serde::Serialize;

/// Registers per thread a block of `threads` threads may use: 65,536 per
/// SM shared by the block, at most 255, allocated in units of 8 (CUDA C++
/// Programming Guide, "Compute Capabilities": 64K 32-bit registers per SM,
/// 255 per thread).
pub fn register_limit(threads: u32) -> u32 {
    let per = 65_536 / threads.max(1);
    if per >= 256 {
        255
    } else {
        per / 8 * 8
    }
}

/// The register limit of a block of `threads` threads under a requested
/// cap `max` (`--max-registers`): the launch bounds' limit
/// ([`register_limit`]), or `max` when lower (a larger value cannot raise
/// what the launch bounds allow).
pub fn capped_register_limit(max: Option<u32>, threads: u32) -> u32 {
    let limit = register_limit(threads);
    max.map_or(limit, |n| n.min(limit))
}

/// CTAs of `threads` threads that can be resident on one SM when each
/// thread holds `regs` registers, counting registers only: 65,536 per SM,
/// allocated per warp in units of 256 (8 per thread), at most 2,048
/// threads (sm_80, sm_90; 1,536 on sm_86/sm_89) and 32 CTAs per SM (CUDA
/// C++ Programming Guide, "Compute Capabilities"; the CUDA occupancy
/// calculator's register rule). Shared memory and the rest of the kernel
/// lower it further.
pub fn ctas_per_sm_by_registers(regs: u32, threads: u32) -> u32 {
    let threads = threads.max(1);
    let per_thread = regs.max(1).div_ceil(8) * 8;
    let warps = threads.div_ceil(32);
    let by_regs = 65_536 / (per_thread * 32 * warps);
    by_regs.min(2048 / threads).min(32)
}

/// 32-bit registers the data of one side takes: `elems` elements of `bits`,
/// one register per element (two per 64-bit element) in the element form,
/// `32 / bits` elements per register in the packed form (8/16-bit).
pub fn data_registers(elems: u32, bits: u32, packed: bool) -> u32 {
    if packed && bits < 32 {
        (elems * bits).div_ceil(32)
    } else {
        elems * bits.div_ceil(32).max(1)
    }
}

/// The predicted register peak of a plan in one form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RegisterPeak {
    /// Registers the larger side's data takes.
    pub data: u32,
    /// Predicted peak of live 32-bit registers per thread (data + overhead).
    pub peak: u32,
}

/// Median overhead over the data, by family and form (see the module doc).
fn overhead(kind: Kind, packed: bool) -> u32 {
    match (kind, packed) {
        (Kind::Identity | Kind::Register, false) => 8,
        (Kind::Identity | Kind::Register, true) => 16,
        (Kind::Shuffle, _) => 20,
        (_, false) => 16,
        (_, true) => 24,
    }
}

/// The predicted register peak of `plan` for elements of `bits` in the
/// element form (`packed = false`) or the packed form (8/16-bit only).
pub fn peak_registers(plan: &Plan, bits: u32, packed: bool) -> RegisterPeak {
    let n = plan.src_regs.max(plan.dst_regs);
    let data = data_registers(n, bits, packed);
    RegisterPeak {
        data,
        peak: data + overhead(plan.kind, packed && bits < 32),
    }
}

/// The predicted register peak of `plan` for `bits`-bit elements in the
/// form a caller should use: packed for 8/16-bit elements where the plan
/// has a packed form ([`Plan::packed_form`]), else elements; and whether
/// that form is the packed one.
pub fn preferred_peak(plan: &Plan, bits: u32) -> (RegisterPeak, bool) {
    let packed = bits < 32 && plan.packed_form(bits);
    (peak_registers(plan, bits, packed), packed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_data() {
        assert_eq!(register_limit(32), 255);
        assert_eq!(register_limit(256), 255);
        assert_eq!(register_limit(512), 128);
        assert_eq!(register_limit(1024), 64);
        assert_eq!(data_registers(128, 64, false), 256);
        assert_eq!(data_registers(128, 16, false), 128);
        assert_eq!(data_registers(128, 16, true), 64);
        assert_eq!(data_registers(128, 8, true), 32);
        assert_eq!(data_registers(3, 8, true), 1);
    }

    #[test]
    fn resident_ctas_by_registers() {
        // 16 warps: 64 registers fit two CTAs, 65-128 one
        assert_eq!(ctas_per_sm_by_registers(64, 512), 2);
        assert_eq!(ctas_per_sm_by_registers(65, 512), 1);
        assert_eq!(ctas_per_sm_by_registers(128, 512), 1);
        // 8 warps: 80 registers fit three, 88 two
        assert_eq!(ctas_per_sm_by_registers(80, 256), 3);
        assert_eq!(ctas_per_sm_by_registers(86, 256), 2);
        // one warp: the 32-CTA limit
        assert_eq!(ctas_per_sm_by_registers(24, 32), 32);
        // 32 warps: at most the 2,048 threads
        assert_eq!(ctas_per_sm_by_registers(16, 1024), 2);
    }
}
