//! The AMD GPUs warpforge plans for: Triton's `hip:gfxNNN` targets, their
//! wave size and their LDS (local data share, AMD's shared memory).
//!
//! NVIDIA targets are a compute capability (`sm`, [`crate::plan::SharedOptions::sm`]);
//! an AMD target is one of [`AmdArch`]. What differs for planning: the
//! wave has 64 lanes on CDNA (6 lane bits) and 32 on RDNA as Triton
//! compiles for it; there is no `ldmatrix`/`stmatrix` and no cluster; the
//! LDS size and bank count are the architecture's.

use serde::Serialize;

/// An AMD GPU architecture, as Triton 3.6 names it in `ttg.target =
/// "hip:<name>"` (`GPUTarget("hip", name, warp_size)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AmdArch {
    /// CDNA3 (MI300): wave64, 64 KiB LDS, 32 banks of 4 bytes.
    Gfx942,
    /// CDNA4 (MI350): wave64, 160 KiB LDS, 64 banks of 4 bytes,
    /// `v_permlane16_swap`/`v_permlane32_swap`.
    Gfx950,
    /// RDNA3 (Radeon 7900): wave32 as Triton compiles for it, 64 KiB LDS
    /// per workgroup, 32 banks.
    Gfx1100,
}

impl AmdArch {
    /// Every architecture warpforge plans for, in name order.
    pub const ALL: [AmdArch; 3] = [AmdArch::Gfx1100, AmdArch::Gfx942, AmdArch::Gfx950];

    /// The architecture named `name` (`gfx942`, `gfx950`, `gfx1100`), or
    /// `None`.
    pub fn parse(name: &str) -> Option<AmdArch> {
        match name {
            "gfx942" => Some(AmdArch::Gfx942),
            "gfx950" => Some(AmdArch::Gfx950),
            "gfx1100" => Some(AmdArch::Gfx1100),
            _ => None,
        }
    }

    /// The name as clang's `--offload-arch` and Triton take it.
    pub fn name(self) -> &'static str {
        match self {
            AmdArch::Gfx942 => "gfx942",
            AmdArch::Gfx950 => "gfx950",
            AmdArch::Gfx1100 => "gfx1100",
        }
    }

    /// Lanes per wave as Triton 3.6 compiles for it (its
    /// `ttg.threads-per-warp`): 64 on CDNA, 32 on RDNA.
    pub fn lanes(self) -> u32 {
        match self {
            AmdArch::Gfx942 | AmdArch::Gfx950 => 64,
            AmdArch::Gfx1100 => 32,
        }
    }

    /// LDS bytes one workgroup may allocate (AMD CDNA3/CDNA4 and RDNA3
    /// ISA guides, "Local Data Share"): 64 KiB, 160 KiB on gfx950.
    pub fn lds_bytes(self) -> u64 {
        match self {
            AmdArch::Gfx950 => 160 * 1024,
            AmdArch::Gfx942 | AmdArch::Gfx1100 => 64 * 1024,
        }
    }

    /// LDS banks of 4 bytes: 32, 64 on gfx950.
    pub fn lds_banks(self) -> u32 {
        match self {
            AmdArch::Gfx950 => 64,
            AmdArch::Gfx942 | AmdArch::Gfx1100 => 32,
        }
    }

    /// Architectural VGPRs one lane may address (256 on all three; CDNA
    /// adds 256 AGPRs, which hold MFMA operands, not a helper's data).
    pub fn max_vgprs(self) -> u32 {
        256
    }

    /// VGPRs one lane of a wave may use when a workgroup of `threads`
    /// threads runs on one CU (CDNA: 4 SIMDs of 512 VGPRs per lane,
    /// unified with AGPRs; RDNA3 in WGP mode: 4 SIMDs of 1536 wave32
    /// VGPRs), at most [`AmdArch::max_vgprs`]: the budget clang's
    /// `amdgpu_flat_work_group_size` gives a kernel of that size.
    pub fn vgpr_budget(self, threads: u32) -> u32 {
        let waves = threads.div_ceil(self.lanes()).max(1);
        let per_simd = waves.div_ceil(4);
        let file = match self {
            AmdArch::Gfx942 | AmdArch::Gfx950 => 512,
            AmdArch::Gfx1100 => 1536,
        };
        (file / per_simd).min(self.max_vgprs())
    }

    /// The clang macro defined when device code is compiled for it
    /// (`__gfx942__`).
    pub fn macro_name(self) -> String {
        format!("__{}__", self.name())
    }
}

impl std::fmt::Display for AmdArch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_waves_match_triton() {
        for a in AmdArch::ALL {
            assert_eq!(AmdArch::parse(a.name()), Some(a));
        }
        assert_eq!(AmdArch::parse("gfx90a"), None);
        assert_eq!(AmdArch::Gfx942.lanes(), 64);
        assert_eq!(AmdArch::Gfx1100.lanes(), 32);
        assert!(AmdArch::Gfx950.lds_bytes() > AmdArch::Gfx942.lds_bytes());
        // 16 waves of 64 on 4 SIMDs: 4 per SIMD share 512 VGPRs
        assert_eq!(AmdArch::Gfx942.vgpr_budget(1024), 128);
        assert_eq!(AmdArch::Gfx942.vgpr_budget(256), 256);
        assert_eq!(AmdArch::Gfx1100.vgpr_budget(1024), 192);
    }
}
