//! Conversion analysis, the plan IR, and the strategies that build plans.
//!
//! A conversion moves a tile from source layout `A` to destination layout `B`
//! (same tensor). Per thread, the tile is a register array; a [`Plan`] is a
//! list of [`Stage`]s, each mapping the register array of every thread to a
//! new one (renames, lane-dependent selects, warp shuffles, shared-memory
//! stores/loads around a barrier). The gather map `G = A^+ o B` says, for
//! every destination slot, which source slot it reads (DESIGN.md section 3).
//!
//! Strategies (DESIGN.md section 4):
//! - identity / register-only: pure renaming, zero instructions;
//! - shuffle (warp-local conversions whose bases are unit vectors or zero):
//!   the decomposition of Triton PR 7558 generalised to any number `m` of
//!   register<->lane transpositions: `G = T o K` with `T` the transpositions
//!   `(r_i l_i)` and `K` block-diagonal (a register renaming and a lane
//!   permutation). Each transposition is select `r ^= l`, shuffle `l ^= r`,
//!   select `r ^= l`; all `m` share one shuffle round, the lane permutation is
//!   folded into the shuffle's source lane (`shfl.bfly` when it is trivial,
//!   `shfl.idx` otherwise); for `m = 1` with a trivial lane permutation the
//!   out-of-place variant (1.5 R selects, 0.5 R shuffles) is also offered;
//! - shared memory: a plain round trip (scalar, unswizzled) that converts
//!   anything within a CTA.

use crate::gf2::BitMatrix;
use crate::layout::{LinearLayout, BLOCK, LANE, REGISTER, WARP};
use crate::parse::{ConvertOp, ElemType};
use serde::Serialize;

/// Lane bits of a 32-lane warp.
pub const LANE_BITS: usize = 5;

/// Errors of conversion analysis and planning. Each names the conversion.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PlanError {
    #[error("{name}: {side} layout: {detail}")]
    Layout {
        name: String,
        side: &'static str,
        detail: String,
    },
    #[error("{name}: source and destination cover different tensors: {detail}")]
    Mismatch { name: String, detail: String },
    #[error("{name}: the conversion moves data across CTAs (block bases differ: {detail}); cross-CTA conversions are out of scope")]
    CrossCta { name: String, detail: String },
    #[error("{name}: strategy `{strategy}` does not apply: {detail}")]
    StrategyNotApplicable {
        name: String,
        strategy: String,
        detail: String,
    },
    #[error("{name}: no candidate plan passed the simulator ({detail}); this is a warpforge bug, please report it")]
    NoVerifiedPlan { name: String, detail: String },
}

/// The hardware families of DESIGN.md 4.1, and the kind of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Source and destination layouts are equal: nothing to do.
    Identity,
    /// Every thread already holds what it needs: register renaming only.
    Register,
    /// Data moves between lanes of a warp: selects and shuffles.
    Shuffle,
    /// Data moves between warps (or a shuffle plan does not apply): shared memory.
    Shared,
}

impl Kind {
    /// Lower-case name (`identity`, `register`, `shuffle`, `shared`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::Identity => "identity",
            Kind::Register => "register",
            Kind::Shuffle => "shuffle",
            Kind::Shared => "shared",
        }
    }
}

/// One conversion to plan: both layouts in canonical form (in dims
/// `register, lane, warp, block`; out dims `dim0..`), plus what the emitter
/// needs to name and describe it.
#[derive(Clone, Debug, Serialize)]
pub struct Conversion {
    /// `func:line` for TTGIR input, or a user-given name.
    pub name: String,
    pub src: LinearLayout,
    pub dst: LinearLayout,
    pub shape: Vec<i64>,
    pub elem: ElemType,
    pub num_warps: u32,
    /// Attribute text of each side (for headers).
    pub src_text: String,
    pub dst_text: String,
}

impl Conversion {
    /// Build from a parsed `convert_layout`, computing both linear layouts.
    pub fn from_op(op: &ConvertOp) -> Result<Conversion, PlanError> {
        let src = op
            .src
            .to_linear_layout(&op.shape, op.num_warps)
            .map_err(|e| PlanError::Layout {
                name: op.name.clone(),
                side: "source",
                detail: e.to_string(),
            })?;
        let dst = op
            .dst
            .to_linear_layout(&op.shape, op.num_warps)
            .map_err(|e| PlanError::Layout {
                name: op.name.clone(),
                side: "destination",
                detail: e.to_string(),
            })?;
        Conversion::new(
            &op.name,
            src,
            dst,
            &op.shape,
            op.elem.clone(),
            op.num_warps,
            &op.src_text,
            &op.dst_text,
        )
    }

    /// Build from two canonical layouts; checks that they describe the same
    /// tensor with the same CTA shape.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &str,
        src: LinearLayout,
        dst: LinearLayout,
        shape: &[i64],
        elem: ElemType,
        num_warps: u32,
        src_text: &str,
        dst_text: &str,
    ) -> Result<Conversion, PlanError> {
        if src.out_dims() != dst.out_dims() {
            return Err(PlanError::Mismatch {
                name: name.into(),
                detail: format!("{:?} vs {:?}", src.out_dims(), dst.out_dims()),
            });
        }
        for d in [LANE, WARP, BLOCK] {
            if src.in_dim_size_log2(d) != dst.in_dim_size_log2(d) {
                return Err(PlanError::Mismatch {
                    name: name.into(),
                    detail: format!(
                        "{d} has {} bits in the source and {} in the destination",
                        src.in_dim_size_log2(d),
                        dst.in_dim_size_log2(d)
                    ),
                });
            }
        }
        if src.in_dim_size_log2(LANE) as usize != LANE_BITS {
            return Err(PlanError::Layout {
                name: name.into(),
                side: "source",
                detail: "warpforge targets 32-lane warps (5 lane bases)".into(),
            });
        }
        for (side, l) in [("source", &src), ("destination", &dst)] {
            if !l.is_surjective() {
                return Err(PlanError::Layout {
                    name: name.into(),
                    side,
                    detail: "not surjective: some tensor element is held by no thread".into(),
                });
            }
            if l.in_dim_size_log2(REGISTER) > 12 {
                return Err(PlanError::Layout {
                    name: name.into(),
                    side,
                    detail: format!(
                        "{} registers per thread is beyond what a helper can hold",
                        l.in_dim_size(REGISTER)
                    ),
                });
            }
        }
        Ok(Conversion {
            name: name.into(),
            src,
            dst,
            shape: shape.to_vec(),
            elem,
            num_warps,
            src_text: src_text.into(),
            dst_text: dst_text.into(),
        })
    }
}

/// The layout as columns over *tag bits*: the row-major linear index of the
/// element (last dim minor). Column order: register, lane, warp, block bits.
pub fn tag_columns(l: &LinearLayout) -> Vec<u64> {
    let outs = l.out_dims();
    let mut offs = vec![0u32; outs.len()];
    let mut acc = 0;
    for k in (0..outs.len()).rev() {
        offs[k] = acc;
        acc += outs[k].1.trailing_zeros();
    }
    l.in_dims()
        .iter()
        .flat_map(|d| d.bases.iter())
        .map(|b| {
            b.iter()
                .zip(&offs)
                .fold(0u64, |a, (&v, &o)| a | ((v as u64) << o))
        })
        .collect()
}

/// Bit counts of the hardware dims of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Hw {
    pub reg: usize,
    pub lane: usize,
    pub warp: usize,
    pub block: usize,
}

impl Hw {
    fn of(l: &LinearLayout) -> Hw {
        Hw {
            reg: l.in_dim_size_log2(REGISTER) as usize,
            lane: l.in_dim_size_log2(LANE) as usize,
            warp: l.in_dim_size_log2(WARP) as usize,
            block: l.in_dim_size_log2(BLOCK) as usize,
        }
    }
    /// Hardware index bits of slot (register, lane, warp, block).
    pub fn index(&self, r: u64, l: u64, w: u64, b: u64) -> u64 {
        r | l << self.reg | w << (self.reg + self.lane) | b << (self.reg + self.lane + self.warp)
    }
}

/// Columns of one side split by hardware dim (each a tag-bit vector).
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    pub hw: Hw,
    pub reg: Vec<u64>,
    pub lane: Vec<u64>,
    pub warp: Vec<u64>,
    pub block: Vec<u64>,
}

impl Side {
    fn of(l: &LinearLayout) -> Side {
        let hw = Hw::of(l);
        let c = tag_columns(l);
        let (r, rest) = c.split_at(hw.reg);
        let (ln, rest) = rest.split_at(hw.lane);
        let (w, b) = rest.split_at(hw.warp);
        Side {
            hw,
            reg: r.to_vec(),
            lane: ln.to_vec(),
            warp: w.to_vec(),
            block: b.to_vec(),
        }
    }
    /// All columns (register, lane, warp, block).
    pub fn all(&self) -> Vec<u64> {
        [&self.reg[..], &self.lane, &self.warp, &self.block].concat()
    }
    /// Tag of the element at hardware slot (r, l, w, b).
    pub fn tag(&self, r: u64, l: u64, w: u64, b: u64) -> u64 {
        let x = |cols: &[u64], v: u64| {
            cols.iter()
                .enumerate()
                .filter(|(i, _)| v >> i & 1 == 1)
                .fold(0u64, |a, (_, c)| a ^ c)
        };
        x(&self.reg, r) ^ x(&self.lane, l) ^ x(&self.warp, w) ^ x(&self.block, b)
    }
}

/// What the analysis of a conversion found (DESIGN.md 4.1).
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    pub name: String,
    /// Number of tag bits (log2 of the number of elements).
    pub tensor_bits: usize,
    pub src: Side,
    pub dst: Side,
    /// The cheapest family the conversion belongs to.
    pub class: Kind,
    /// Whether every warp reads only what its own lanes hold.
    pub warp_local: bool,
}

fn span(tbits: usize, cols: &[u64]) -> BitMatrix {
    BitMatrix::from_cols(tbits, cols.to_vec())
}

impl Analysis {
    /// Classify a conversion. Errors when it crosses CTAs.
    pub fn new(c: &Conversion) -> Result<Analysis, PlanError> {
        let tbits = c.src.total_out_bits();
        let a = Side::of(&c.src);
        let b = Side::of(&c.dst);
        let in_cta = span(tbits, &[&a.reg[..], &a.lane, &a.warp].concat());
        for (k, (&x, &y)) in a.block.iter().zip(&b.block).enumerate() {
            if !in_cta.in_span(x ^ y) {
                return Err(PlanError::CrossCta {
                    name: c.name.clone(),
                    detail: format!("block={} holds different elements on each side", 1u64 << k),
                });
            }
        }
        for col in [&b.reg[..], &b.lane, &b.warp].concat() {
            if !in_cta.in_span(col) {
                return Err(PlanError::CrossCta {
                    name: c.name.clone(),
                    detail: "a CTA needs elements that only other CTAs hold".into(),
                });
            }
        }
        let rl = span(tbits, &[&a.reg[..], &a.lane].concat());
        let warp_local = [&b.reg[..], &b.lane]
            .concat()
            .iter()
            .all(|&v| rl.in_span(v))
            && a.warp.iter().zip(&b.warp).all(|(&x, &y)| rl.in_span(x ^ y))
            && a.block
                .iter()
                .zip(&b.block)
                .all(|(&x, &y)| rl.in_span(x ^ y));
        let regs = span(tbits, &a.reg);
        let register_only = a.lane == b.lane
            && a.warp == b.warp
            && a.block == b.block
            && b.reg.iter().all(|&v| regs.in_span(v));
        let class = if a.all() == b.all() && a.hw == b.hw {
            Kind::Identity
        } else if register_only {
            Kind::Register
        } else if warp_local {
            Kind::Shuffle
        } else {
            Kind::Shared
        };
        Ok(Analysis {
            name: c.name.clone(),
            tensor_bits: tbits,
            src: a,
            dst: b,
            class,
            warp_local,
        })
    }

    /// Number of source registers per thread.
    pub fn src_regs(&self) -> u32 {
        1 << self.src.hw.reg
    }
    /// Number of destination registers per thread.
    pub fn dst_regs(&self) -> u32 {
        1 << self.dst.hw.reg
    }
}

// ---------------------------------------------------------------------------
// Plan IR

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

// ---------------------------------------------------------------------------
// Strategies

fn rename_plan(an: &Analysis) -> Option<Plan> {
    if !matches!(an.class, Kind::Identity | Kind::Register) {
        return None;
    }
    let m = span(an.tensor_bits, &an.src.reg);
    let e = m.echelon();
    let map: Option<Vec<u32>> = (0..an.dst_regs())
        .map(|j| {
            let t = an.dst.tag(j as u64, 0, 0, 0);
            m.solve_with(&e, t).map(|x| x as u32)
        })
        .collect();
    let map = map?;
    Some(Plan {
        kind: an.class,
        strategy: if an.class == Kind::Identity {
            "identity".into()
        } else {
            "register/rename".into()
        },
        src_regs: an.src_regs(),
        dst_regs: an.dst_regs(),
        stages: vec![Stage::RegRename { map }],
        smem_elems: 0,
        m: 0,
        notes: vec![],
    })
}

/// Plans built by the shuffle decomposition (empty when it does not apply).
/// Applies when the warp and block bases are equal on both sides, the
/// register and lane bases are distinct unit vectors or zero, and both sides'
/// registers+lanes cover the same tensor bits.
pub fn shuffle_plans(an: &Analysis) -> Vec<Plan> {
    let (a, b) = (&an.src, &an.dst);
    if a.warp != b.warp || a.block != b.block {
        return vec![];
    }
    let a_rl = [&a.reg[..], &a.lane].concat();
    let b_rl = [&b.reg[..], &b.lane].concat();
    let unit =
        |c: &[u64]| BitMatrix::from_cols(an.tensor_bits, c.to_vec()).is_unit_or_zero_distinct();
    if !unit(&a_rl) || !unit(&b_rl) {
        return vec![];
    }
    let ea = a_rl.iter().fold(0, |x, c| x | c);
    let eb = b_rl.iter().fold(0, |x, c| x | c);
    let outer = a.warp.iter().chain(&a.block).fold(0, |x, c| x | c);
    if ea != eb || ea & outer != 0 {
        return vec![];
    }
    let nz_a: Vec<usize> = (0..a.reg.len()).filter(|&i| a.reg[i] != 0).collect();
    let nz_b: Vec<usize> = (0..b.reg.len()).filter(|&i| b.reg[i] != 0).collect();
    let k = nz_a.len().max(nz_b.len());
    let n = k + LANE_BITS;
    let work = |nz: &[usize], side: &Side| -> Vec<u64> {
        (0..k)
            .map(|i| if i < nz.len() { side.reg[nz[i]] } else { 0 })
            .chain(side.lane.iter().copied())
            .collect()
    };
    let wa = work(&nz_a, a);
    let wb = work(&nz_b, b);
    // g: destination working bit -> source working bit.
    let mut g = vec![usize::MAX; n];
    let mut used = vec![false; n];
    for bit in 0..n {
        if wb[bit] != 0 {
            let s = wa
                .iter()
                .position(|&c| c == wb[bit])
                .expect("same tensor bits on both sides");
            g[bit] = s;
            used[s] = true;
        }
    }
    let is_free_src = |s: usize, used: &[bool]| wa[s] == 0 && !used[s];
    // Pair free bits: same lane first, then reg<->reg, lane<->lane, then the rest.
    for j in k..n {
        if g[j] == usize::MAX && is_free_src(j, &used) {
            g[j] = j;
            used[j] = true;
        }
    }
    let ranges: [(std::ops::Range<usize>, std::ops::Range<usize>); 3] =
        [(0..k, 0..k), (k..n, k..n), (0..n, 0..n)];
    for (dr, sr) in ranges {
        for d in dr {
            if g[d] != usize::MAX {
                continue;
            }
            if let Some(s) = sr.clone().find(|&s| is_free_src(s, &used)) {
                g[d] = s;
                used[s] = true;
            }
        }
    }
    if g.contains(&usize::MAX) {
        return vec![];
    }
    // Mixed bits.
    let rho: Vec<(usize, usize)> = (k..n).filter(|&d| g[d] < k).map(|d| (d, g[d])).collect(); // (dst lane, src reg)
    let lam: Vec<usize> = (0..k).filter(|&d| g[d] >= k).map(|d| g[d]).collect(); // src lanes
    let m = rho.len();
    debug_assert_eq!(m, lam.len());
    // Pairings of rho with lam.
    let mut pairings: Vec<Vec<usize>> = Vec::new();
    if m <= 5 {
        permutations(&lam, &mut vec![], &mut vec![false; m], &mut pairings);
    } else {
        pairings.push(lam.clone());
        // pair each rho (from dst lane d) with lane d itself when possible
        let mut rest: Vec<usize> = lam.clone();
        let mut p = vec![usize::MAX; m];
        for (i, &(d, _)) in rho.iter().enumerate() {
            if let Some(pos) = rest.iter().position(|&l| l == d) {
                p[i] = rest.remove(pos);
            }
        }
        for x in p.iter_mut() {
            if *x == usize::MAX {
                *x = rest.remove(0);
            }
        }
        pairings.push(p);
    }
    let mut plans = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for lams in pairings {
        let pairs: Vec<(usize, usize)> = rho.iter().map(|&(_, r)| r).zip(lams).collect();
        let mut t: Vec<usize> = (0..n).collect();
        for &(r, l) in &pairs {
            t[r] = l;
            t[l] = r;
        }
        let kk: Vec<usize> = (0..n).map(|d| t[g[d]]).collect();
        if (0..k).any(|d| kk[d] >= k) || (k..n).any(|d| kk[d] < k) {
            continue;
        }
        let lane_map: Vec<u32> = (0..LANE_BITS).map(|j| 1u32 << (kk[k + j] - k)).collect();
        if !seen.insert((pairs.clone(), lane_map.clone())) {
            continue;
        }
        let ctx = ShuffleCtx {
            an,
            k,
            nz_a: &nz_a,
            nz_b: &nz_b,
            kk: &kk,
            pairs: &pairs,
            lane_map: &lane_map,
        };
        plans.push(ctx.in_place());
        if m == 1 && ctx.lane_trivial() {
            plans.push(ctx.out_of_place());
        }
    }
    plans
}

fn permutations(
    items: &[usize],
    cur: &mut Vec<usize>,
    used: &mut Vec<bool>,
    out: &mut Vec<Vec<usize>>,
) {
    if cur.len() == items.len() {
        out.push(cur.clone());
        return;
    }
    for i in 0..items.len() {
        if !used[i] {
            used[i] = true;
            cur.push(items[i]);
            permutations(items, cur, used, out);
            cur.pop();
            used[i] = false;
        }
    }
}

struct ShuffleCtx<'a> {
    an: &'a Analysis,
    /// Working register bits.
    k: usize,
    nz_a: &'a [usize],
    nz_b: &'a [usize],
    /// K = T o G as a bit map (destination working bit -> source working bit).
    kk: &'a [usize],
    /// (source register bit, source lane bit as working index) per transposition.
    pairs: &'a [(usize, usize)],
    lane_map: &'a [u32],
}

impl ShuffleCtx<'_> {
    fn lane_trivial(&self) -> bool {
        self.lane_map.iter().enumerate().all(|(j, &c)| c == 1 << j)
    }

    fn regs(&self) -> u32 {
        1 << self.k
    }

    /// Source registers -> working registers (virtual bits copy).
    fn enter(&self) -> Stage {
        let map = (0..self.regs())
            .map(|w| {
                self.nz_a
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| w >> i & 1 == 1)
                    .fold(0u32, |a, (_, &p)| a | 1 << p)
            })
            .collect();
        Stage::RegRename { map }
    }

    /// Working registers -> destination registers, through the register part of K.
    fn leave(&self) -> Stage {
        let k = self.k;
        let kr = |r: u32| {
            (0..k)
                .filter(|&b| r >> b & 1 == 1)
                .fold(0u32, |a, b| a | 1 << self.kk[b])
        };
        let map = (0..self.an.dst_regs())
            .map(|j| {
                let w = self
                    .nz_b
                    .iter()
                    .enumerate()
                    .filter(|(_, &p)| j >> p & 1 == 1)
                    .fold(0u32, |a, (i, _)| a | 1 << i);
                kr(w)
            })
            .collect();
        Stage::RegRename { map }
    }

    fn select_layers(&self, after_shuffle: bool) -> Vec<Stage> {
        let k = self.k;
        self.pairs
            .iter()
            .map(|&(r, l)| {
                let lane_bit = if after_shuffle {
                    // condition on bit l of lane_map(lane): the destination lane bit j with K(j) = l
                    (k..k + LANE_BITS).find(|&d| self.kk[d] == l).unwrap() - k
                } else {
                    l - k
                };
                Stage::Select {
                    entries: (0..self.regs())
                        .map(|x| SelEntry {
                            lane_mask: 1 << lane_bit,
                            if_set: x ^ (1 << r),
                            if_clear: x,
                        })
                        .collect(),
                }
            })
            .collect()
    }

    fn in_place(&self) -> Plan {
        let k = self.k;
        let trivial = self.lane_trivial();
        let mut stages = vec![self.enter()];
        stages.extend(self.select_layers(false));
        let entries: Vec<ShflEntry> = (0..self.regs())
            .map(|x| {
                let c = self
                    .pairs
                    .iter()
                    .filter(|(r, _)| x >> r & 1 == 1)
                    .fold(0u32, |a, &(_, l)| a | 1 << (l - k));
                ShflEntry {
                    reg: x,
                    arg: if trivial && c == 0 { None } else { Some(c) },
                }
            })
            .collect();
        let any_shfl = entries.iter().any(|e| e.arg.is_some());
        if any_shfl {
            stages.push(Stage::Shuffle {
                mode: if trivial {
                    ShflMode::Bfly
                } else {
                    ShflMode::Idx
                },
                lane_map: self.lane_map.to_vec(),
                entries,
            });
        }
        stages.extend(self.select_layers(true));
        stages.push(self.leave());
        let m = self.pairs.len() as u32;
        Plan {
            kind: if any_shfl {
                Kind::Shuffle
            } else {
                Kind::Register
            },
            strategy: format!("shuffle/in-place/{}", if trivial { "bfly" } else { "idx" }),
            src_regs: self.an.src_regs(),
            dst_regs: self.an.dst_regs(),
            stages: compact(stages),
            smem_elems: 0,
            m,
            notes: vec![self.describe()],
        }
    }

    fn out_of_place(&self) -> Plan {
        let k = self.k;
        let (r, l) = self.pairs[0];
        let lane_bit = l - k;
        let rr = self.regs();
        let lows: Vec<u32> = (0..rr).filter(|x| x >> r & 1 == 0).collect();
        let mut sel1: Vec<SelEntry> = (0..rr)
            .map(|x| SelEntry {
                lane_mask: 0,
                if_set: x,
                if_clear: x,
            })
            .collect();
        for &x0 in &lows {
            sel1.push(SelEntry {
                lane_mask: 1 << lane_bit,
                if_set: x0,
                if_clear: x0 | 1 << r,
            });
        }
        let mut sh: Vec<ShflEntry> = (0..rr).map(|x| ShflEntry { reg: x, arg: None }).collect();
        for p in 0..lows.len() as u32 {
            sh.push(ShflEntry {
                reg: rr + p,
                arg: Some(1 << lane_bit),
            });
        }
        let mut sel2 = vec![
            SelEntry {
                lane_mask: 0,
                if_set: 0,
                if_clear: 0
            };
            rr as usize
        ];
        for (p, &x0) in lows.iter().enumerate() {
            let recv = rr + p as u32;
            let x1 = x0 | 1 << r;
            sel2[x0 as usize] = SelEntry {
                lane_mask: 1 << lane_bit,
                if_set: recv,
                if_clear: x0,
            };
            sel2[x1 as usize] = SelEntry {
                lane_mask: 1 << lane_bit,
                if_set: x1,
                if_clear: recv,
            };
        }
        let stages = vec![
            self.enter(),
            Stage::Select { entries: sel1 },
            Stage::Shuffle {
                mode: ShflMode::Bfly,
                lane_map: self.lane_map.to_vec(),
                entries: sh,
            },
            Stage::Select { entries: sel2 },
            self.leave(),
        ];
        Plan {
            kind: Kind::Shuffle,
            strategy: "shuffle/out-of-place/bfly".into(),
            src_regs: self.an.src_regs(),
            dst_regs: self.an.dst_regs(),
            stages: compact(stages),
            smem_elems: 0,
            m: 1,
            notes: vec![self.describe()],
        }
    }

    fn describe(&self) -> String {
        let k = self.k;
        let pairs: Vec<String> = self
            .pairs
            .iter()
            .map(|&(r, l)| format!("(r{r} l{})", l - k))
            .collect();
        let lanes: Vec<String> = (0..LANE_BITS)
            .map(|j| format!("l{}", self.kk[k + j] - k))
            .collect();
        format!(
            "m = {} transposition(s) {}; lane permutation [{}]; {} working registers",
            self.pairs.len(),
            if pairs.is_empty() {
                "-".into()
            } else {
                pairs.join(" ")
            },
            lanes.join(" "),
            self.regs()
        )
    }
}

/// Merge consecutive renames (free) so the IR stays short.
fn compact(stages: Vec<Stage>) -> Vec<Stage> {
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

/// The plain shared-memory round trip (scalar, unswizzled): every thread
/// stores the distinct elements it holds at their (projected) tensor index,
/// a barrier, every thread loads what it needs. Converts anything in a CTA.
pub fn shared_plan(an: &Analysis) -> Option<Plan> {
    let (a, b) = (&an.src, &an.dst);
    if a.block != b.block {
        return None;
    }
    let tb = an.tensor_bits;
    // Offset map P: tag bits -> offset bits, bijective on the CTA's subspace.
    let vcols = [&a.reg[..], &a.lane, &a.warp].concat();
    let rows = BitMatrix::from_rows(tb, &vcols);
    let pivots = rows.echelon().pivots;
    let p = |x: u64| {
        pivots
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &q)| acc | (((x >> q) & 1) as u32) << i)
    };
    let store_regs: Vec<u32> = {
        let pm = span(tb, &a.reg).pivot_mask() as u32;
        (0..an.src_regs()).filter(|&j| j & !pm == 0).collect()
    };
    let bm = span(tb, &b.reg);
    let be = bm.echelon();
    let pm_b = be.pivots.iter().fold(0u32, |x, &q| x | 1 << q);
    let load_regs: Vec<u32> = (0..an.dst_regs()).filter(|&j| j & !pm_b == 0).collect();
    let st = AddrMap {
        reg: store_regs
            .iter()
            .map(|&j| p(a.tag(j as u64, 0, 0, 0)))
            .collect(),
        lane: a.lane.iter().map(|&c| p(c)).collect(),
        warp: a.warp.iter().map(|&c| p(c)).collect(),
    };
    let ld = AddrMap {
        reg: load_regs
            .iter()
            .map(|&j| p(b.tag(j as u64, 0, 0, 0)))
            .collect(),
        lane: b.lane.iter().map(|&c| p(c)).collect(),
        warp: b.warp.iter().map(|&c| p(c)).collect(),
    };
    let map: Vec<u32> = (0..an.dst_regs())
        .map(|j| {
            let canon = bm
                .solve_with(&be, b.tag(j as u64, 0, 0, 0))
                .expect("in span") as u32;
            load_regs
                .iter()
                .position(|&x| x == canon)
                .expect("canonical register is loaded") as u32
        })
        .collect();
    let scope = if an.warp_local {
        BarrierScope::Warp
    } else {
        BarrierScope::Cta
    };
    let stages = vec![
        Stage::SmemStore {
            vec: 1,
            regs: store_regs,
            addr: st,
        },
        Stage::Barrier { scope },
        Stage::SmemLoad { vec: 1, addr: ld },
        Stage::RegRename { map },
    ];
    Some(Plan {
        kind: Kind::Shared,
        strategy: "shared/scalar".into(),
        src_regs: an.src_regs(),
        dst_regs: an.dst_regs(),
        stages,
        smem_elems: 1u64 << pivots.len(),
        m: 0,
        notes: vec![format!(
            "row-major tensor index as the shared offset; {} barrier",
            if an.warp_local {
                "__syncwarp"
            } else {
                "__syncthreads"
            }
        )],
    })
}

/// Which strategies the search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StrategyChoice {
    /// The cheapest verified plan of any strategy.
    #[default]
    Auto,
    /// Only shuffle plans (or renames, when nothing moves between lanes).
    Shuffle,
    /// Only the shared-memory round trip (or renames when nothing moves).
    Shared,
}

/// Every candidate plan for a conversion under a strategy choice.
pub fn candidates(an: &Analysis, choice: StrategyChoice) -> Vec<Plan> {
    if let Some(p) = rename_plan(an) {
        return vec![p];
    }
    let mut out = Vec::new();
    if choice != StrategyChoice::Shared {
        out.extend(shuffle_plans(an));
    }
    if choice != StrategyChoice::Shuffle {
        out.extend(shared_plan(an));
    }
    out
}
