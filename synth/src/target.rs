//! The AMD GPUs warpforge plans for: Triton's `hip:gfxNNN` targets, their
//! wave size and their LDS (local data share, AMD's shared memory).
//!
//! NVIDIA targets are a compute capability (`sm`, [`crate::plan::SharedOptions::sm`]);
//! an AMD target is one of [`AmdArch`]. What differs for planning: the
//! wave has 64 lanes on CDNA (6 lane bits) and 32 on RDNA as Triton
//! compiles for it; there is no `ldmatrix`/`stmatrix` and no cluster; the
//! LDS size and bank count are the architecture's. The helpers use only
//! instructions every one of them has (`ds_bpermute_b32`, `ds_swizzle_b32`,
//! DPP `quad_perm` moves, `v_perm_b32`, LDS reads and writes, `s_barrier`).

use serde::Serialize;

/// An AMD GPU architecture, as Triton 3.6 names it in `ttg.target =
/// "hip:<name>"` (`GPUTarget("hip", name, warp_size)`): the CDNA
/// (Instinct) and RDNA (Radeon) architectures Triton's AMD backend
/// compiles for, each with its matrix-core layouts (MFMA versions 1-4 on
/// gfx908, gfx90a, gfx942, gfx950; WMMA version 1 on gfx11, 2 on gfx12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AmdArch {
    /// CDNA1 (MI100): wave64, 64 KiB LDS, 32 banks; 256 VGPRs per lane
    /// per SIMD, AGPRs apart.
    Gfx908,
    /// CDNA2 (MI200: MI210, MI250, MI250X): wave64, 64 KiB LDS, 32 banks;
    /// 512 VGPRs per lane per SIMD, shared with AGPRs.
    Gfx90a,
    /// CDNA3 (MI300): wave64, 64 KiB LDS, 32 banks of 4 bytes; 512
    /// VGPRs per lane per SIMD, shared with AGPRs.
    Gfx942,
    /// CDNA4 (MI350): wave64, 160 KiB LDS, 64 banks of 4 bytes,
    /// `v_permlane16_swap`/`v_permlane32_swap`; 512 VGPRs per lane per
    /// SIMD, shared with AGPRs.
    Gfx950,
    /// RDNA3 (Radeon 7900, Navi31): wave32 as Triton compiles for it, 64 KiB
    /// LDS per workgroup, 32 banks; 1536 wave32 VGPRs per SIMD.
    Gfx1100,
    /// RDNA3 (Radeon 7800/7700, Navi32): as gfx1100.
    Gfx1101,
    /// RDNA3 (Radeon 7600, Navi33): as gfx1100 with 1024 wave32 VGPRs per SIMD.
    Gfx1102,
    /// RDNA3 (Phoenix APUs): as gfx1102.
    Gfx1103,
    /// RDNA3.5 (Strix Point APUs): as gfx1102.
    Gfx1150,
    /// RDNA3.5 (Strix Halo APUs): as gfx1100.
    Gfx1151,
    /// RDNA4 (Radeon 9060, Navi44): wave32, 64 KiB LDS per workgroup, 32
    /// banks; 1536 wave32 VGPRs per SIMD.
    Gfx1200,
    /// RDNA4 (Radeon 9070, Navi48): as gfx1200.
    Gfx1201,
}

impl AmdArch {
    /// Every architecture warpforge plans for, in name order.
    pub const ALL: [AmdArch; 12] = [
        AmdArch::Gfx1100,
        AmdArch::Gfx1101,
        AmdArch::Gfx1102,
        AmdArch::Gfx1103,
        AmdArch::Gfx1150,
        AmdArch::Gfx1151,
        AmdArch::Gfx1200,
        AmdArch::Gfx1201,
        AmdArch::Gfx908,
        AmdArch::Gfx90a,
        AmdArch::Gfx942,
        AmdArch::Gfx950,
    ];

    /// The architecture named `name` (`gfx942`, `gfx90a`, `gfx1201`, ...),
    /// or `None`.
    pub fn parse(name: &str) -> Option<AmdArch> {
        AmdArch::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The name as clang's `--offload-arch` and Triton take it.
    pub fn name(self) -> &'static str {
        match self {
            AmdArch::Gfx908 => "gfx908",
            AmdArch::Gfx90a => "gfx90a",
            AmdArch::Gfx942 => "gfx942",
            AmdArch::Gfx950 => "gfx950",
            AmdArch::Gfx1100 => "gfx1100",
            AmdArch::Gfx1101 => "gfx1101",
            AmdArch::Gfx1102 => "gfx1102",
            AmdArch::Gfx1103 => "gfx1103",
            AmdArch::Gfx1150 => "gfx1150",
            AmdArch::Gfx1151 => "gfx1151",
            AmdArch::Gfx1200 => "gfx1200",
            AmdArch::Gfx1201 => "gfx1201",
        }
    }

    /// Whether it is a CDNA (gfx9, Instinct) architecture: wave64, MFMA.
    pub fn is_cdna(self) -> bool {
        matches!(
            self,
            AmdArch::Gfx908 | AmdArch::Gfx90a | AmdArch::Gfx942 | AmdArch::Gfx950
        )
    }

    /// Lanes per wave as Triton 3.6 compiles for it (its
    /// `ttg.threads-per-warp`): 64 on CDNA, 32 on RDNA.
    pub fn lanes(self) -> u32 {
        if self.is_cdna() {
            64
        } else {
            32
        }
    }

    /// LDS bytes one workgroup may allocate (AMD CDNA1-4 and RDNA3/4 ISA
    /// guides, "Local Data Share"): 64 KiB, 160 KiB on gfx950.
    pub fn lds_bytes(self) -> u64 {
        match self {
            AmdArch::Gfx950 => 160 * 1024,
            _ => 64 * 1024,
        }
    }

    /// LDS banks of 4 bytes: 32, 64 on gfx950.
    pub fn lds_banks(self) -> u32 {
        match self {
            AmdArch::Gfx950 => 64,
            _ => 32,
        }
    }

    /// Architectural VGPRs one lane may address (256 on all; CDNA adds 256
    /// AGPRs, which hold MFMA operands, not a helper's data).
    pub fn max_vgprs(self) -> u32 {
        256
    }

    /// VGPRs per lane of one SIMD's file that waves share, as LLVM's
    /// AMDGPU backend counts them for occupancy (`getTotalNumVGPRs`,
    /// `AMDGPUBaseInfo.cpp`; clang's `-Rpass-analysis=kernel-resource-usage`
    /// occupancy agrees): 256 on gfx908 (AGPRs apart), 512 on gfx90a and
    /// later CDNA (unified with AGPRs), 1536 wave32 VGPRs on the RDNA
    /// parts with the full file (gfx1100, gfx1101, gfx1151, gfx12) and 1024
    /// on the others (gfx1102, gfx1103, gfx1150).
    pub fn vgpr_file(self) -> u32 {
        match self {
            AmdArch::Gfx908 => 256,
            AmdArch::Gfx90a | AmdArch::Gfx942 | AmdArch::Gfx950 => 512,
            AmdArch::Gfx1102 | AmdArch::Gfx1103 | AmdArch::Gfx1150 => 1024,
            AmdArch::Gfx1100
            | AmdArch::Gfx1101
            | AmdArch::Gfx1151
            | AmdArch::Gfx1200
            | AmdArch::Gfx1201 => 1536,
        }
    }

    /// The unit VGPRs are allocated in, per lane (LLVM's
    /// `getVGPRAllocGranule`): 4 on gfx908, 8 on gfx90a and later CDNA,
    /// 24 on the RDNA parts with the full file, 16 on the others (wave32).
    pub fn vgpr_granule(self) -> u32 {
        match self {
            AmdArch::Gfx908 => 4,
            AmdArch::Gfx90a | AmdArch::Gfx942 | AmdArch::Gfx950 => 8,
            AmdArch::Gfx1102 | AmdArch::Gfx1103 | AmdArch::Gfx1150 => 16,
            AmdArch::Gfx1100
            | AmdArch::Gfx1101
            | AmdArch::Gfx1151
            | AmdArch::Gfx1200
            | AmdArch::Gfx1201 => 24,
        }
    }

    /// VGPRs one lane of a wave may use when a workgroup of `threads`
    /// threads runs on one CU (4 SIMDs sharing [`AmdArch::vgpr_file`]
    /// each; RDNA in WGP mode): the file over the waves each SIMD holds,
    /// rounded down to [`AmdArch::vgpr_granule`], at most
    /// [`AmdArch::max_vgprs`], as LLVM's `getMaxNumVGPRs` gives a kernel
    /// of that `amdgpu_flat_work_group_size`.
    pub fn vgpr_budget(self, threads: u32) -> u32 {
        let waves = threads.div_ceil(self.lanes()).max(1);
        let per_simd = waves.div_ceil(4);
        let g = self.vgpr_granule();
        (self.vgpr_file() / per_simd / g * g).min(self.max_vgprs())
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
        assert_eq!(AmdArch::parse("gfx90a"), Some(AmdArch::Gfx90a));
        assert_eq!(AmdArch::parse("gfx1201"), Some(AmdArch::Gfx1201));
        assert_eq!(AmdArch::parse("gfx1250"), None);
        assert_eq!(AmdArch::parse("gfx90"), None);
        for a in AmdArch::ALL {
            // Triton 3.6 compiles CDNA (gfx9) for wave64 and RDNA for wave32
            assert_eq!(
                a.lanes(),
                if a.name().starts_with("gfx9") { 64 } else { 32 },
                "{a}"
            );
        }
        assert!(AmdArch::Gfx950.lds_bytes() > AmdArch::Gfx942.lds_bytes());
        // 16 waves of 64 on 4 SIMDs: 4 per SIMD share 512 VGPRs
        assert_eq!(AmdArch::Gfx942.vgpr_budget(1024), 128);
        assert_eq!(AmdArch::Gfx942.vgpr_budget(256), 256);
        assert_eq!(AmdArch::Gfx1100.vgpr_budget(1024), 192);
        // gfx908's arch VGPRs are a file of 256 (AGPRs apart); gfx1102's
        // wave32 file is 1024 (clang's occupancy for these files)
        assert_eq!(AmdArch::Gfx908.vgpr_budget(512), 128);
        assert_eq!(AmdArch::Gfx90a.vgpr_budget(512), 256);
        assert_eq!(AmdArch::Gfx1102.vgpr_budget(1024), 128);
        assert_eq!(AmdArch::Gfx1201.vgpr_budget(1024), 192);
        // three waves a SIMD: 512 / 3 rounded down to the granule of 8
        assert_eq!(AmdArch::Gfx942.vgpr_budget(768), 168);
        // and RDNA's full file over 3 waves: 512, capped at 256
        assert_eq!(AmdArch::Gfx1100.vgpr_budget(384), 256);
        // every architecture's file, as LLVM's occupancy counts it
        let files: Vec<(&str, u32)> = AmdArch::ALL
            .iter()
            .map(|a| (a.name(), a.vgpr_file()))
            .collect();
        assert_eq!(
            files,
            [
                ("gfx1100", 1536),
                ("gfx1101", 1536),
                ("gfx1102", 1024),
                ("gfx1103", 1024),
                ("gfx1150", 1024),
                ("gfx1151", 1536),
                ("gfx1200", 1536),
                ("gfx1201", 1536),
                ("gfx908", 256),
                ("gfx90a", 512),
                ("gfx942", 512),
                ("gfx950", 512),
            ]
        );
    }
}
