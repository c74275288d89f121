//! The plan IR (DESIGN.md 4.5): stages over per-thread register arrays, and
//! their predicted cost per SASS instruction class.

use super::Kind;
use serde::Serialize;

/// One output register of a [`Stage::Select`]:
/// `out = parity(lane & lane_mask) ? in[if_set] : in[if_clear]`.
/// With `if_set == if_clear` it is a plain copy (no instruction).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SelEntry {
    pub lane_mask: u32,
    pub if_set: u32,
    pub if_clear: u32,
}

/// One output register of a [`Stage::Shuffle`]: `in[reg]` read from the lane
/// given by the stage's mode and `arg` (`None`: no shuffle, keep own value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShflEntry {
    pub reg: u32,
    pub arg: Option<u32>,
}

/// Shuffle addressing, as `shfl.sync`'s modes (width 32, full mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShflMode {
    /// Source lane `lane_map(lane) ^ arg` (`shfl.sync.idx`).
    Idx,
    /// Source lane `lane ^ arg` (`shfl.sync.bfly`); `lane_map` is the identity.
    Bfly,
    /// Source lane `lane - arg`, own value when negative (`shfl.sync.up`).
    Up,
    /// Source lane `lane + arg`, own value when past 31 (`shfl.sync.down`).
    Down,
}

/// A GF(2)-linear shared-memory address (in elements): for listed register
/// `i`, `reg[i] ^ XOR(lane bit j set: lane[j]) ^ XOR(warp bit j set: warp[j])`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AddrMap {
    pub reg: Vec<u32>,
    pub lane: Vec<u32>,
    pub warp: Vec<u32>,
}

impl AddrMap {
    /// The run-time part (lane and warp terms) for one thread.
    pub fn base(&self, lane: u32, warp: u32) -> u32 {
        let mut a = 0;
        for (j, &c) in self.lane.iter().enumerate() {
            if lane >> j & 1 == 1 {
                a ^= c;
            }
        }
        for (j, &c) in self.warp.iter().enumerate() {
            if warp >> j & 1 == 1 {
                a ^= c;
            }
        }
        a
    }
    /// Bits the run-time part can set.
    pub fn base_bits(&self) -> u32 {
        self.lane.iter().chain(&self.warp).fold(0, |a, c| a | c)
    }
}

/// Barrier scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BarrierScope {
    /// `__syncwarp()`: the exchange stays within each warp.
    Warp,
    /// `__syncthreads()`.
    Cta,
}

/// A stage of a plan: maps each thread's register array to a new one.
/// The kinds are those of DESIGN.md 4.5. `BytePerm`, `StMatrix`, `LdMatrix`,
/// `Pack` and `Unpack` are part of the IR (sub-32-bit packing and matrix
/// shared-memory instructions) but no strategy produces them yet; the
/// simulator and the emitter reject them with a clear error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Stage {
    /// `out[k] = in[map[k]]` (free: compile-time renaming).
    RegRename { map: Vec<u32> },
    /// Lane-dependent selects (`selp`), one per entry whose sources differ.
    Select { entries: Vec<SelEntry> },
    /// `out[k] = __byte_perm(in[a], in[b], selector)` (reserved).
    BytePerm { entries: Vec<(u32, u32, u32)> },
    /// Warp shuffles; `lane_map[j]` is the source-lane vector of lane bit `j` (Idx only).
    Shuffle {
        mode: ShflMode,
        lane_map: Vec<u32>,
        entries: Vec<ShflEntry>,
    },
    /// `smem[addr(i)] = in[regs[i]]`, `vec` elements per access; registers unchanged.
    SmemStore {
        vec: u32,
        regs: Vec<u32>,
        addr: AddrMap,
    },
    /// A barrier.
    Barrier { scope: BarrierScope },
    /// `out[i] = smem[addr(i)]` for `i < addr.reg.len()`; replaces the register array.
    SmemLoad { vec: u32, addr: AddrMap },
    /// `stmatrix` (reserved).
    StMatrix { regs: Vec<u32>, trans: bool },
    /// `ldmatrix` (reserved).
    LdMatrix { count: u32, trans: bool },
    /// Pack `32 / width` elements per 32-bit word (reserved).
    Pack { width: u32, groups: Vec<Vec<u32>> },
    /// Unpack words into elements (reserved).
    Unpack { width: u32, count: u32 },
}

impl Stage {
    /// Short name of the stage kind.
    pub fn name(&self) -> &'static str {
        match self {
            Stage::RegRename { .. } => "RegRename",
            Stage::Select { .. } => "Select",
            Stage::BytePerm { .. } => "BytePerm",
            Stage::Shuffle { .. } => "Shuffle",
            Stage::SmemStore { .. } => "SmemStore",
            Stage::Barrier { .. } => "Barrier",
            Stage::SmemLoad { .. } => "SmemLoad",
            Stage::StMatrix { .. } => "StMatrix",
            Stage::LdMatrix { .. } => "LdMatrix",
            Stage::Pack { .. } => "Pack",
            Stage::Unpack { .. } => "Unpack",
        }
    }

    /// Instructions per thread this stage costs.
    pub fn cost(&self) -> Cost {
        let mut c = Cost::default();
        match self {
            Stage::RegRename { .. } | Stage::Pack { .. } | Stage::Unpack { .. } => {}
            Stage::Select { entries } => {
                c.sel = entries.iter().filter(|e| e.if_set != e.if_clear).count() as u32
            }
            Stage::BytePerm { entries } => c.prmt = entries.len() as u32,
            Stage::Shuffle { entries, .. } => {
                c.shfl = entries.iter().filter(|e| e.arg.is_some()).count() as u32
            }
            Stage::SmemStore { vec, regs, .. } => c.sts = (regs.len() as u32).div_ceil(*vec),
            Stage::Barrier { .. } => c.bar = 1,
            Stage::SmemLoad { vec, addr } => c.lds = (addr.reg.len() as u32).div_ceil(*vec),
            Stage::StMatrix { regs, .. } => c.stsm = (regs.len() as u32).div_ceil(4),
            Stage::LdMatrix { count, .. } => c.ldsm = count.div_ceil(4),
        }
        c
    }
}

/// Predicted instructions per thread, by SASS class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Cost {
    pub shfl: u32,
    pub sel: u32,
    pub prmt: u32,
    pub sts: u32,
    pub lds: u32,
    pub bar: u32,
    pub ldsm: u32,
    pub stsm: u32,
}

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost {
            shfl: self.shfl + o.shfl,
            sel: self.sel + o.sel,
            prmt: self.prmt + o.prmt,
            sts: self.sts + o.sts,
            lds: self.lds + o.lds,
            bar: self.bar + o.bar,
            ldsm: self.ldsm + o.ldsm,
            stsm: self.stsm + o.stsm,
        }
    }
}

impl Cost {
    /// Sum of all classes.
    pub fn total(&self) -> u32 {
        self.shfl + self.sel + self.prmt + self.sts + self.lds + self.bar + self.ldsm + self.stsm
    }
}

impl std::fmt::Display for Cost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = [
            ("shfl", self.shfl),
            ("sel", self.sel),
            ("prmt", self.prmt),
            ("sts", self.sts),
            ("lds", self.lds),
            ("bar", self.bar),
            ("ldsm", self.ldsm),
            ("stsm", self.stsm),
        ]
        .iter()
        .filter(|(_, v)| *v > 0)
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
        if parts.is_empty() {
            f.write_str("0 instructions")
        } else {
            f.write_str(&parts.join(" + "))
        }
    }
}

/// A plan: stages over per-thread register arrays, from `src_regs` source
/// registers to `dst_regs` destination registers.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    pub kind: Kind,
    /// Which strategy and variant built it, e.g. `shuffle/in-place/idx`.
    pub strategy: String,
    pub src_regs: u32,
    pub dst_regs: u32,
    pub stages: Vec<Stage>,
    /// Shared-memory scratch in elements (0 when none).
    pub smem_elems: u64,
    /// Register<->lane transpositions (shuffle plans), else 0.
    pub m: u32,
    /// Human-readable notes for the header comment.
    pub notes: Vec<String>,
}

impl Plan {
    /// Predicted cost per thread.
    pub fn cost(&self) -> Cost {
        self.stages
            .iter()
            .fold(Cost::default(), |a, s| a + s.cost())
    }
}

/// Merge consecutive renames (free) so the IR stays short.
pub(crate) fn compact(stages: Vec<Stage>) -> Vec<Stage> {
    let mut out: Vec<Stage> = Vec::new();
    for s in stages {
        if let (Some(Stage::RegRename { map: prev }), Stage::RegRename { map }) =
            (out.last_mut(), &s)
        {
            let composed: Vec<u32> = map.iter().map(|&i| prev[i as usize]).collect();
            *prev = composed;
            continue;
        }
        out.push(s);
    }
    out
}
