//! The plan IR (docs/ARCHITECTURE.md 4.5): stages over per-thread register arrays, and
//! their predicted cost per SASS instruction class.

use super::strategy::Strategy;
use super::Kind;
use serde::Serialize;
use std::num::NonZeroU32;

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

/// One output word of a [`Stage::BytePerm`]:
/// `out = __byte_perm(in[a], in[b], selector ^ XOR(lane bit i set: lane_xor[i]))`
/// (PTX ISA `prmt.b32`, default mode: selector nibble `q` picks byte `q` of
/// the 8-byte value `{in[b], in[a]}` for output byte `q`). The lane-dependent
/// part lets one `prmt` both select between two words by lane and permute
/// bytes, as Triton's `getTranspositionSelectors` (PRs 7809/7933/9713).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PermEntry {
    pub a: u32,
    pub b: u32,
    pub selector: u32,
    /// Per lane bit `i` (bits 0..5), XORed into the selector when set; empty
    /// or all zero: a constant selector.
    pub lane_xor: Vec<u32>,
}

impl PermEntry {
    /// A plain copy of `in[a]` (no instruction).
    pub fn copy(a: u32) -> PermEntry {
        PermEntry {
            a,
            b: a,
            selector: 0x3210,
            lane_xor: vec![],
        }
    }
    /// Whether this entry moves `in[a]` unchanged.
    pub fn is_copy(&self) -> bool {
        self.a == self.b && self.selector & 0x7777 == 0x3210 && self.lane_independent()
    }
    /// Whether the selector is the same in every lane.
    pub fn lane_independent(&self) -> bool {
        self.lane_xor.iter().all(|&x| x == 0)
    }
    /// The selector lane `lane` uses.
    pub fn selector_for(&self, lane: u32) -> u32 {
        self.lane_xor
            .iter()
            .enumerate()
            .filter(|(i, _)| lane >> i & 1 == 1)
            .fold(self.selector, |s, (_, &x)| s ^ x)
    }
}

/// Integer instructions that compute the lane-dependent selectors of one
/// [`Stage::BytePerm`]: each distinct (constant, lane part) pair is computed
/// once per thread, about one instruction per lane bit its lane part uses.
pub fn selector_ops(entries: &[PermEntry]) -> u32 {
    let mut pairs: Vec<(u32, &Vec<u32>)> = Vec::new();
    for e in entries
        .iter()
        .filter(|e| !e.is_copy() && !e.lane_independent())
    {
        if !pairs.contains(&(e.selector, &e.lane_xor)) {
            pairs.push((e.selector, &e.lane_xor));
        }
    }
    pairs
        .iter()
        .map(|(_, p)| p.iter().filter(|&&x| x != 0).count() as u32)
        .sum()
}

/// Shuffle addressing, as `shfl.sync`'s modes (width 32, full mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
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

/// The run-time part of a shared-memory address, GF(2)-linear in the lane
/// and warp index: `XOR(lane bit j set: lane[j]) ^ XOR(warp bit j set:
/// warp[j])`, in elements. For vector accesses it is the thread's own
/// address; for `ldmatrix`/`stmatrix` it is the row address lane `L` supplies
/// (row `L % 8` of matrix `L / 8`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AddrMap {
    pub lane: Vec<u32>,
    pub warp: Vec<u32>,
}

impl AddrMap {
    /// The map that is zero for every thread.
    pub fn zero() -> AddrMap {
        AddrMap {
            lane: vec![],
            warp: vec![],
        }
    }
    /// Whether the map is zero for every thread.
    pub fn is_zero(&self) -> bool {
        self.base_bits() == 0
    }
    /// The run-time part for one thread.
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

/// The instruction family of a shared-memory access (PTX ISA: `st.shared`,
/// `ld.shared`, `stmatrix`, `ldmatrix`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "instr", rename_all = "snake_case")]
pub enum SmemInstr {
    /// `st/ld.shared` of one vector per thread: `elems` consecutive elements
    /// (8 to 128 bits: `.u8`, `.u16`, `.b32`, `.v2.b32`, `.v4.b32`).
    Vector,
    /// `stmatrix`/`ldmatrix .m8n8.x{count}[.trans].shared.b16`: `count` 8x8
    /// matrices of 16-bit cells, rows of 16 bytes whose addresses lanes
    /// `8j..8j+7` supply for matrix `j`. Without `.trans`, lane `l` holds in
    /// its 32-bit word `j` the bytes `4(l%4)..+4` of row `l/4` of matrix `j`;
    /// with `.trans` (16-bit elements only), half `h` of word `j` is the cell
    /// at row `2(l%4)+h`, column `l/4`.
    Matrix { count: u32, trans: bool },
}

/// One instruction of a [`SmemAccess`]: the registers it moves, in element
/// order, and its compile-time address part (elements, XORed to the base).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SmemInst {
    pub regs: Vec<u32>,
    pub offset: u32,
}

/// A warp-wide shared-memory access pattern: every thread executes `insts`
/// in order. Element `e` of a vector instruction goes to address
/// `(base ^ offset) + e`; for matrix instructions, element `e` is half/byte
/// `e % (32/width)` of 32-bit word `e / (32/width)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SmemAccess {
    #[serde(flatten)]
    pub instr: SmemInstr,
    /// Element width in bits (8, 16, 32 or 64).
    pub width: u32,
    pub addr: AddrMap,
    pub insts: Vec<SmemInst>,
    /// Lane-dependent register choice (stores from a layout with broadcast
    /// lane or warp bits): element `e` of instruction `i` of thread
    /// `(lane, warp)` is register `insts[i].regs[e] ^ reg_xor.base(lane,
    /// warp)`. Each copy of a broadcast datum then stores a different
    /// register, so the copies share the stores instead of repeating them
    /// (each paired lane or warp bit halves the instructions). Empty: every
    /// thread moves `regs` as listed.
    #[serde(skip_serializing_if = "AddrMap::is_zero")]
    pub reg_xor: AddrMap,
    /// The warps that execute this access (the others skip it): stores of
    /// a round over warp bits, where the warps holding the round's data
    /// store in turn (a predicated `st.shared`). Only stores carry one;
    /// every thread of a load executes it.
    #[serde(skip_serializing_if = "WarpGuard::is_all")]
    pub guard: WarpGuard,
    /// Lanes per warp executing it: 32 (NVIDIA, AMD wave32) or 64 (AMD
    /// wave64, `ds_read`/`ds_write`). Serialized only when not 32.
    #[serde(skip_serializing_if = "is_32")]
    pub lanes: u32,
    /// The bank model it is scored with (NVIDIA's unless the plan is for an
    /// AMD target); serialized only when AMD's.
    #[serde(skip_serializing_if = "BankModel::is_nvidia")]
    pub bank_model: BankModel,
}

fn is_32(n: &u32) -> bool {
    *n == 32
}

/// Which warps execute a [`SmemAccess`]: warp `w` does when
/// `w & mask == value` (both over warp-index bits; `mask == 0`: every
/// warp). Plans whose shared-memory round trip needs more scratch than the
/// target has, even in the most rounds over register bits both sides share,
/// also take rounds over source warp bits that are destination register
/// bits: in round `j` the warps whose bits are `j` store all they hold and
/// every warp loads its registers of that round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct WarpGuard {
    pub mask: u32,
    pub value: u32,
}

impl WarpGuard {
    /// Every warp executes the access.
    pub fn is_all(&self) -> bool {
        self.mask == 0
    }
    /// Whether warp `warp` executes the access.
    pub fn active(&self, warp: u32) -> bool {
        warp & self.mask == self.value
    }
}

impl SmemAccess {
    /// Elements per thread per instruction.
    pub fn elems(&self) -> u32 {
        self.insts.first().map_or(0, |i| i.regs.len() as u32)
    }
    /// Where every element of instruction `inst` goes, for warp `warp`:
    /// `(lane, element index within the instruction, element offset)`, by
    /// the PTX ISA semantics of the instruction (see [`SmemInstr`]). Errors
    /// name a misaligned address (the hardware would fault).
    pub fn element_slots(&self, inst: usize, warp: u32) -> Result<Vec<(u32, u32, u32)>, String> {
        let i = &self.insts[inst];
        let eb = (self.width / 8).max(1);
        let at = |lane: u32| self.addr.base(lane, warp) ^ i.offset;
        let n = i.regs.len() as u32;
        let mut out = Vec::with_capacity((self.lanes * n) as usize);
        match self.instr {
            SmemInstr::Vector => {
                for lane in 0..self.lanes {
                    let a = at(lane);
                    if a % n != 0 {
                        return Err(format!(
                            "lane {lane}: {}-element vector at element offset {a}",
                            n
                        ));
                    }
                    out.extend((0..n).map(|e| (lane, e, a + e)));
                }
            }
            SmemInstr::Matrix { count, trans } => {
                if self.lanes != 32 || self.width > 32 || (trans && self.width != 16) {
                    return Err(format!(
                        "matrix access of {}-bit elements{} by {} lanes",
                        self.width,
                        if trans { " with .trans" } else { "" },
                        self.lanes
                    ));
                }
                let pk = 32 / self.width;
                let row_elems = 16 / eb;
                let rows: Vec<u32> = (0..32).map(at).collect();
                for (l, &r) in rows.iter().enumerate().take(8 * count as usize) {
                    if r % row_elems != 0 {
                        return Err(format!(
                            "lane {l}: row address at element offset {r} is not 16-byte aligned"
                        ));
                    }
                }
                for lane in 0..32u32 {
                    for j in 0..count {
                        for p in 0..pk {
                            let off = if trans {
                                rows[(8 * j + 2 * (lane & 3) + p) as usize] + (lane >> 2)
                            } else {
                                rows[(8 * j + (lane >> 2)) as usize] + (lane & 3) * pk + p
                            };
                            out.push((lane, j * pk + p, off));
                        }
                    }
                }
            }
        }
        Ok(out)
    }
    /// `SEL`s per thread for [`SmemAccess::reg_xor`]: each element picks one
    /// of the `2^k` registers its paired bits span with `2^k - 1` selects
    /// (two per 64-bit element).
    pub fn select_ops(&self) -> u32 {
        let mut b = crate::gf2::XorBasis::default();
        let k = self
            .reg_xor
            .lane
            .iter()
            .chain(&self.reg_xor.warp)
            .filter(|&&m| b.insert(m as u64))
            .count();
        let per = (1u32 << k) - 1;
        self.insts.len() as u32 * self.elems() * per * (self.width / 32).max(1)
    }
    /// Bytes per thread per instruction.
    pub fn bytes(&self) -> u32 {
        self.elems() * self.width / 8
    }
    /// Predicted byte permutes per thread to pack elements into 32-bit words
    /// before a store: one `PRMT` per word of 16-bit elements, three per
    /// word of 8-bit elements (one per element after the first in shorter
    /// vectors). Taking loaded words apart costs no `PRMT` (ptxas uses the
    /// low half in place and shifts for the rest). Both measured with
    /// `cuobjdump -sass` on an H200 (CUDA 13, results/runs/2026-11-22-h200-h2h-896c0d2/README.md).
    pub fn pack_prmt(&self) -> u32 {
        self.insts.len() as u32 * word_prmts(self.width, self.elems())
    }
}

/// Byte permutes to pack `elems` elements of `width` bits into the 32-bit
/// words of one store ([`SmemAccess::pack_prmt`]): one per word of 16-bit
/// elements, three per word of 8-bit elements (one per element after the
/// first in shorter vectors), none from 32 bits up.
pub fn word_prmts(width: u32, elems: u32) -> u32 {
    if width >= 32 {
        return 0;
    }
    let per_word = 32 / width;
    let words = elems.div_ceil(per_word);
    words * elems.min(per_word).saturating_sub(1)
}

pub use super::banks::{
    phase_lanes, phase_lanes_banks, phase_wavefronts, phase_wavefronts_banks, BankModel, Dir,
};

/// Barrier scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BarrierScope {
    /// `__syncwarp()`: the exchange stays within each warp.
    Warp,
    /// `__syncthreads()`.
    Cta,
    /// `bar.sync id, threads` (PTX ISA, "bar, barrier"): named barrier `id`
    /// over the `threads` threads of the warp group the helper runs on, the
    /// CTA's first `threads / 32` warps. Triton synchronises the default
    /// warp group of a function that holds a `ttg.warp_specialize` op this
    /// way (barrier 0 over the module's `ttg.num-warps` warps:
    /// `ConvertWarpSpecializeToLLVM.cpp`), while the partitions' warps wait
    /// on barriers of their own. Within the group it orders shared memory
    /// as `__syncthreads()` does.
    Named {
        /// Barrier id, 0..=15.
        id: u32,
        /// Threads that arrive: a multiple of 32.
        threads: u32,
    },
}

impl BarrierScope {
    /// Whether the barrier orders the accesses of several warps (every
    /// scope but [`BarrierScope::Warp`]): `__syncthreads()` or a named
    /// barrier of the warp group, a `BAR` in SASS.
    pub fn across_warps(self) -> bool {
        !matches!(self, BarrierScope::Warp)
    }
}

/// A GF(2)-linear function of a thread's lane, warp and CTA index bits:
/// `XOR(lane bit j set: lane[j]) ^ XOR(warp bit j set: warp[j]) ^ XOR(block
/// bit j set: block[j])`. The block index is the CTA's rank in its cluster
/// (`%cluster_ctarank`, docs/ARCHITECTURE.md 4.7). Each vector has one entry
/// per bit of its dimension (5 lane bits, the layout's warp and block bits).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterMap {
    pub lane: Vec<u32>,
    pub warp: Vec<u32>,
    pub block: Vec<u32>,
}

impl ClusterMap {
    /// The value for the thread `(lane, warp)` of CTA `block`.
    pub fn base(&self, lane: u32, warp: u32, block: u32) -> u32 {
        let x = |cols: &[u32], v: u32| {
            cols.iter()
                .enumerate()
                .filter(|(j, _)| v >> j & 1 == 1)
                .fold(0u32, |a, (_, &c)| a ^ c)
        };
        x(&self.lane, lane) ^ x(&self.warp, warp) ^ x(&self.block, block)
    }
}

/// One remote store of a [`ClusterStore`]: registers `regs` go as one
/// vector to CTA `cta.base(..) ^ cta`, element `e` at element offset
/// `(addr.base(..) ^ offset) + e` of that CTA's scratch (the vector is
/// aligned: its first offset is a multiple of `regs.len()`). In a
/// [`ClusterLoad`] the same, read the other way: `regs.len()` elements from
/// that CTA and offset, appended to the register array (`regs` are the
/// destination registers they are for, before the stage's rename).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterInst {
    pub regs: Vec<u32>,
    pub cta: u32,
    pub offset: u32,
}

/// Stores into the scratch of CTAs of the cluster (distributed shared
/// memory, PTX ISA "Distributed Shared Memory"): every thread executes
/// `insts` in order, each one `mapa.shared::cluster.u32` of the local
/// scratch address to the target CTA's and one `st.shared::cluster` of a
/// vector of elements of `width` bits (8, 16, 32 or 64; up to 128 bits per
/// vector). The target may be the own CTA.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterStore {
    pub width: u32,
    /// The run-time part of the target CTA rank.
    pub cta: ClusterMap,
    /// The run-time part of the element offset in the target's scratch.
    pub addr: ClusterMap,
    pub insts: Vec<ClusterInst>,
    /// Broadcast source copies store once: a thread stores only when its
    /// lane, warp and CTA rank have none of these bits set (source bits
    /// whose column is zero, so the thread with the bit clear holds the same
    /// elements).
    pub skip_lane: u32,
    pub skip_warp: u32,
    pub skip_block: u32,
}

impl ClusterStore {
    /// Whether thread `(lane, warp)` of CTA `block` executes the stores.
    pub fn stores(&self, lane: u32, warp: u32, block: u32) -> bool {
        lane & self.skip_lane == 0 && warp & self.skip_warp == 0 && block & self.skip_block == 0
    }
    /// Elements that the threads of CTA `block` store into other CTAs'
    /// scratch (`warps` warps per CTA).
    pub fn remote_elems(&self, warps: u32, block: u32) -> u64 {
        remote_elems(&self.cta, &self.insts, warps, block, |l, w| {
            self.stores(l, w, block)
        })
    }
}

/// Loads from the scratch of CTAs of the cluster, the *reader loads
/// remotely* variant of a cluster conversion (docs/ARCHITECTURE.md 4.7;
/// PTX ISA "Distributed Shared Memory", `mapa`, `ld.shared::cluster`):
/// every thread executes `insts` in order, each one vector of elements of
/// `width` bits (8, 16, 32 or 64; up to 128 bits per vector) read from CTA
/// `cta.base(..) ^ inst.cta` at element offset `(addr.base(..) ^
/// inst.offset) + e` of that CTA's scratch ([`ClusterInst::regs`] names
/// only how many elements the vector has: `regs.len()`). The loaded
/// elements are appended to the register array, instruction after
/// instruction, in element order, as [`Stage::SmemLoad`] does. An
/// instruction that reads the own CTA for every thread
/// ([`ClusterLoad::local`]) is a plain `ld.shared`; the others are
/// `mapa.shared::cluster.u32` + `ld.shared::cluster`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClusterLoad {
    pub width: u32,
    /// The run-time part of the CTA rank read from.
    pub cta: ClusterMap,
    /// The run-time part of the element offset in that CTA's scratch.
    pub addr: ClusterMap,
    pub insts: Vec<ClusterInst>,
}

impl ClusterLoad {
    /// Whether instruction `inst` reads the reader's own CTA in every
    /// thread: the CTA map is the identity of the block index (no lane or
    /// warp part) and the instruction adds no CTA bits. Such a load needs no
    /// `mapa` and is emitted as `ld.shared` (the in-CTA fast path).
    pub fn local(&self, inst: usize) -> bool {
        self.insts[inst].cta == 0
            && self.cta.lane.iter().all(|&c| c == 0)
            && self.cta.warp.iter().all(|&c| c == 0)
            && self.cta.block.iter().enumerate().all(|(j, &c)| c == 1 << j)
    }
    /// Elements that the threads of CTA `block` read from other CTAs'
    /// scratch (`warps` warps per CTA).
    pub fn remote_elems(&self, warps: u32, block: u32) -> u64 {
        remote_elems(&self.cta, &self.insts, warps, block, |_, _| true)
    }
}

/// Elements that the `active(lane, warp)` threads of CTA `block` (`warps`
/// warps) move to or from other CTAs by `insts`, with CTA map `cta`.
fn remote_elems(
    cta: &ClusterMap,
    insts: &[ClusterInst],
    warps: u32,
    block: u32,
    active: impl Fn(u32, u32) -> bool,
) -> u64 {
    let mut n = 0u64;
    for w in 0..warps {
        for l in (0..32).filter(|&l| active(l, w)) {
            let c = cta.base(l, w, block);
            n += insts
                .iter()
                .filter(|i| c ^ i.cta != block)
                .map(|i| i.regs.len() as u64)
                .sum::<u64>();
        }
    }
    n
}

/// Which of the two cluster plans a plan is (docs/ARCHITECTURE.md 4.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClusterVariant {
    /// *Writer stores remotely*: [`Stage::ClusterStore`] into the CTAs that
    /// hold the element in the destination, local loads.
    StoreRemote,
    /// *Reader loads remotely*: local stores, [`Stage::ClusterLoad`] from a
    /// CTA that holds the element in the source.
    LoadRemote,
}

impl ClusterVariant {
    /// The name `plan --json` reports (`cluster_variant`).
    pub fn name(self) -> &'static str {
        match self {
            ClusterVariant::StoreRemote => "store_remote",
            ClusterVariant::LoadRemote => "load_remote",
        }
    }
}

/// A stage of a plan: maps each thread's register array to a new one.
/// The kinds are those of docs/ARCHITECTURE.md 4.5; shared-memory stores and loads carry
/// their instruction family (vector `st/ld.shared`, `stmatrix`/`ldmatrix`).
/// `Pack`, `BytePerm` and `Unpack` carry 8- and 16-bit elements as 32-bit
/// words (docs/ARCHITECTURE.md 4.3): between a `Pack` and an `Unpack` the registers are
/// words of `32 / width` elements, and `Shuffle`/`Select` move whole words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Stage {
    /// `out[k] = in[map[k]]` (free: compile-time renaming).
    RegRename { map: Vec<u32> },
    /// Lane-dependent selects (`selp`), one per entry whose sources differ.
    Select { entries: Vec<SelEntry> },
    /// Byte permutes of words: `out[k] = __byte_perm(in[a], in[b], sel)`
    /// with a lane-dependent selector (see [`PermEntry`]); one `prmt` per
    /// entry that is not a plain copy.
    BytePerm { entries: Vec<PermEntry> },
    /// Warp shuffles; `lane_map[j]` is the source-lane vector of lane bit `j` (Idx only).
    Shuffle {
        mode: ShflMode,
        lane_map: Vec<u32>,
        entries: Vec<ShflEntry>,
    },
    /// Store registers to shared memory; registers unchanged.
    SmemStore { access: SmemAccess },
    /// A barrier.
    Barrier { scope: BarrierScope },
    /// Load from shared memory; the loaded elements are appended to the
    /// register array, instruction after instruction, in element order (a
    /// later [`Stage::RegRename`] picks the destination registers).
    SmemLoad { access: SmemAccess },
    /// Pack `32 / width` element registers per 32-bit word: word `w` holds
    /// element register `groups[w][s]` in slot `s` (bits `s * width..`).
    /// The packed form of a helper takes these words as its input (the
    /// groups are its source [`super::pack::PackMap`]), so there it is free;
    /// in the element form it costs the `prmt` of [`super::pack::word_of`].
    Pack { width: u32, groups: Vec<Vec<u32>> },
    /// Take words apart into element registers: element register `e` is
    /// slot `map[e].1` of word register `map[e].0` (a shift, no `prmt`).
    Unpack { width: u32, map: Vec<(u32, u32)> },
    /// Remote stores into the scratch of the CTAs of a cluster (see
    /// [`ClusterStore`]); registers unchanged.
    ClusterStore { store: ClusterStore },
    /// Loads from the scratch of the CTAs of a cluster (see
    /// [`ClusterLoad`]); the loaded elements are appended to the register
    /// array.
    ClusterLoad { load: ClusterLoad },
    /// A barrier over every thread of every CTA of the cluster:
    /// `barrier.cluster.arrive.release.aligned` then
    /// `barrier.cluster.wait.acquire.aligned` (PTX ISA `barrier.cluster`):
    /// stores before it, remote ones included, are visible to every thread
    /// of the cluster after it.
    ClusterBarrier,
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
            Stage::Pack { .. } => "Pack",
            Stage::Unpack { .. } => "Unpack",
            Stage::ClusterStore { .. } => "ClusterStore",
            Stage::ClusterLoad { .. } => "ClusterLoad",
            Stage::ClusterBarrier => "ClusterBarrier",
        }
    }

    /// Instructions per thread this stage costs.
    pub fn cost(&self) -> Cost {
        let mut c = Cost::default();
        match self {
            Stage::RegRename { .. } | Stage::Unpack { .. } => {}
            Stage::Pack { width, groups } => {
                c.prmt = groups
                    .iter()
                    .map(|g| {
                        let pieces: Vec<super::pack::Piece<u32>> = g
                            .iter()
                            .map(|&r| super::pack::Piece { key: r, slot: 0 })
                            .collect();
                        super::pack::word_of(&pieces, *width).1.prmts()
                    })
                    .sum()
            }
            Stage::Select { entries } => {
                c.sel = entries.iter().filter(|e| e.if_set != e.if_clear).count() as u32
            }
            Stage::BytePerm { entries } => {
                c.prmt = entries.iter().filter(|e| !e.is_copy()).count() as u32;
                c.sel = selector_ops(entries);
            }
            Stage::Shuffle { entries, .. } => {
                c.shfl = entries.iter().filter(|e| e.arg.is_some()).count() as u32
            }
            Stage::SmemStore { access } => {
                let n = access.insts.len() as u32;
                match access.instr {
                    SmemInstr::Vector => c.sts = n * access.bytes().div_ceil(16),
                    SmemInstr::Matrix { .. } => c.stsm = n,
                }
                c.prmt = access.pack_prmt();
                c.sel = access.select_ops();
            }
            // `__syncwarp()` compiles to no `BAR` (a `WARPSYNC` at most).
            Stage::Barrier { scope } => c.bar = scope.across_warps() as u32,
            Stage::SmemLoad { access } => {
                let n = access.insts.len() as u32;
                match access.instr {
                    SmemInstr::Vector => c.lds = n * access.bytes().div_ceil(16),
                    SmemInstr::Matrix { .. } => c.ldsm = n,
                }
            }
            Stage::ClusterStore { store } => {
                c.stcl = store.insts.len() as u32;
                // vectors of 8- and 16-bit elements are packed into words
                // as for `st.shared` ([`SmemAccess::pack_prmt`])
                c.prmt = store
                    .insts
                    .iter()
                    .map(|i| word_prmts(store.width, i.regs.len() as u32))
                    .sum();
            }
            Stage::ClusterLoad { load } => {
                let local = (0..load.insts.len()).filter(|&i| load.local(i)).count() as u32;
                c.lds = local;
                c.ldcl = load.insts.len() as u32 - local;
            }
            Stage::ClusterBarrier => c.cbar = 1,
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
    /// `st.shared::cluster` stores (each after a `mapa`; distributed shared
    /// memory, cluster plans only).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stcl: u32,
    /// `ld.shared::cluster` loads (each after a `mapa`; the reader variant
    /// of cluster plans only; its loads from the own CTA count in `lds`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ldcl: u32,
    /// Cluster barriers (`barrier.cluster.arrive` + `wait`; cluster plans only).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cbar: u32,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
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
            stcl: self.stcl + o.stcl,
            ldcl: self.ldcl + o.ldcl,
            cbar: self.cbar + o.cbar,
        }
    }
}

impl Cost {
    /// Sum of all classes.
    pub fn total(&self) -> u32 {
        self.shfl
            + self.sel
            + self.prmt
            + self.sts
            + self.lds
            + self.bar
            + self.ldsm
            + self.stsm
            + self.stcl
            + self.ldcl
            + self.cbar
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
            ("st.shared::cluster", self.stcl),
            ("ld.shared::cluster", self.ldcl),
            ("barrier.cluster", self.cbar),
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
    /// Which strategy and variant built it; displays and serializes as its
    /// name, e.g. `shuffle/in-place/idx`.
    pub strategy: Strategy,
    pub src_regs: u32,
    pub dst_regs: u32,
    pub stages: Vec<Stage>,
    /// Shared-memory scratch in elements (0 when none).
    pub smem_elems: u64,
    /// Register<->lane transpositions (shuffle plans), else 0.
    pub m: u32,
    /// Element width in bits the plan is for; 0 when any width works.
    pub elem_bits: u32,
    /// Store/barrier/load rounds of the plan's shared-memory scratch
    /// ([`Rounds::NONE`] without scratch); serializes as the count, 0 for none.
    pub rounds: Rounds,
    /// Human-readable notes for the header comment.
    pub notes: Vec<String>,
    /// The packed form's register packing `(bits, source, destination)`
    /// (`super::pack::pack_maps`), set by the search; `None`: lowest bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack: Option<(u32, super::pack::PackMap, super::pack::PackMap)>,
    /// Lanes per warp it runs on: 32 (NVIDIA, AMD wave32) or 64 (AMD
    /// wave64); the emitters derive `lane` and `warp` from it. Serialized
    /// only when not 32.
    #[serde(skip_serializing_if = "is_32")]
    pub lanes: u32,
    /// The CTA warp that is the layouts' warp 0: nonzero for a partition of
    /// a warp-specialized kernel, whose warps Triton places after the
    /// default group's (`synth::parse::WarpSpecialized::first_warp`); the
    /// emitters derive the layouts' warp index as `(threadIdx.x >> 5) -
    /// first_warp`, as Triton's `getThreadId` subtracts the partition's
    /// start (`lib/Conversion/TritonGPUToLLVM/Utility.cpp`). Set after
    /// planning (no plan depends on it); serialized only when nonzero.
    #[serde(skip_serializing_if = "is_zero")]
    pub first_warp: u32,
    /// Registers per thread of the warp group that runs it, where the
    /// group has a budget of its own: a warp-specialized partition's
    /// `setmaxnreg` value from Triton's allocation (`AllocateWarpGroups.cpp`,
    /// `synth::parse::WarpSpecialized::registers`), within the 24 to 256
    /// `setmaxnreg` takes. The plan was
    /// ranked under it, and the header's register line names it
    /// ([`Plan::register_limit`]). Set after planning; `None` elsewhere
    /// and serialized only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub register_budget: Option<u32>,
}

/// How many store/barrier/load rounds a plan uses its shared-memory scratch
/// in: [`Rounds::NONE`] for plans without scratch (renames, shuffles), else
/// a nonzero count (one for cluster plans; a power of two for shared-memory
/// plans, more than one when the scratch is smaller than the tile). Displays
/// and serializes as the count, `0` for none (`"rounds": 0` in `plan --json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rounds(Option<NonZeroU32>);

impl Rounds {
    /// No rounds: the plan has no shared-memory scratch.
    pub const NONE: Rounds = Rounds(None);
    /// One round: the whole tile goes through the scratch at once.
    pub const ONE: Rounds = Rounds(Some(NonZeroU32::MIN));
    /// `n` rounds.
    pub const fn new(n: NonZeroU32) -> Rounds {
        Rounds(Some(n))
    }
    /// The number of rounds, `None` without scratch.
    pub const fn count(self) -> Option<NonZeroU32> {
        self.0
    }
    /// The number of rounds, 0 without scratch (as `plan --json` reports it).
    pub const fn get(self) -> u32 {
        match self.0 {
            Some(n) => n.get(),
            None => 0,
        }
    }
}

impl std::fmt::Display for Rounds {
    /// The count, 0 without scratch.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.get(), f)
    }
}

impl Serialize for Rounds {
    /// As the count, 0 without scratch.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.get())
    }
}

impl Plan {
    /// Registers per thread it may use when run by CTAs of `threads`
    /// threads: the launch bounds' limit ([`super::register_limit`]), or
    /// its warp group's budget ([`Plan::register_budget`]) where lower.
    pub fn register_limit(&self, threads: u32) -> u32 {
        let limit = super::register_limit(threads);
        self.register_budget.map_or(limit, |b| b.min(limit))
    }

    /// The named barrier ([`BarrierScope::Named`]) the plan synchronises
    /// its warps with, as `(id, threads)`; `None` where it has none.
    pub fn named_barrier(&self) -> Option<(u32, u32)> {
        self.stages.iter().find_map(|s| match s {
            Stage::Barrier {
                scope: BarrierScope::Named { id, threads },
            } => Some((*id, *threads)),
            _ => None,
        })
    }

    /// Shared-memory scratch in bytes for `bits`-bit elements (0 without
    /// scratch).
    pub fn smem_bytes(&self, bits: u32) -> u64 {
        self.smem_elems * bits as u64 / 8
    }
    /// Whether the helper form to use for elements of `bits` is the packed
    /// one (32-bit words in registers, `super::pack`): for 8- and 16-bit
    /// shared-memory plans whose register arrays fill whole words, and for
    /// plans that shuffle words ([`Plan::packs_words`]). Element shuffle
    /// plans take single elements (their packed form unpacks around the
    /// shuffles; measured slower on an H100, results/runs/2026-11-22-h100-bench-180de76/bench.md).
    /// Renames (identity and register-only plans) too: their packed form is
    /// the byte permutation that data held packed (as Triton holds it)
    /// needs, a `prmt` network (`super::pack::network`), where the element
    /// form would leave it to the compiler to unpack and repack.
    pub fn packed_form(&self, bits: u32) -> bool {
        self.packed_kind() && super::pack::packed_cost(self, bits).is_some()
    }
    /// The kinds of plan [`Plan::packed_form`] recommends packed (when they
    /// have a packed form).
    fn packed_kind(&self) -> bool {
        self.kind == super::Kind::Shared || self.packs_words() || self.renames_only()
    }
    /// Whether every stage is a [`Stage::RegRename`] (identity and
    /// register-only conversions).
    pub fn renames_only(&self) -> bool {
        self.stages
            .iter()
            .all(|s| matches!(s, Stage::RegRename { .. }))
    }
    /// Whether a store chooses its registers by lane or warp
    /// ([`SmemAccess::reg_xor`]); such plans have a packed form only where
    /// the choice moves whole words ([`super::pack::store_word_choice`]).
    pub fn stores_by_lane_choice(&self) -> bool {
        self.stages
            .iter()
            .any(|s| matches!(s, Stage::SmemStore { access } if !access.reg_xor.is_zero()))
    }
    /// Whether the plan carries words between a [`Stage::Pack`] and a
    /// [`Stage::Unpack`] (the packed shuffle plans of `super::gather`).
    pub fn packs_words(&self) -> bool {
        self.stages.iter().any(|s| matches!(s, Stage::Pack { .. }))
    }
    /// Predicted cost per thread for elements of `bits` in the form
    /// [`Plan::packed_form`] recommends: [`super::pack::packed_cost`] or
    /// [`Plan::cost`], whose shuffles (and a shuffle plan's selects) count
    /// twice for 64-bit elements (each moves as two 32-bit halves).
    pub fn cost_for_width(&self, bits: u32) -> Cost {
        self.width_form(bits).0
    }
    /// [`Plan::cost_for_width`] and [`Plan::packed_form`] with one walk of
    /// the packed lowering (the search's hot path: each candidate is
    /// scored, capped and costed from this one result).
    pub fn width_form(&self, bits: u32) -> (Cost, bool) {
        self.width_form_with(bits, None)
    }
    /// [`Plan::width_form`] sharing network counts between candidates
    /// ([`super::pack::NetworkCounts`]).
    pub fn width_form_with(
        &self,
        bits: u32,
        counts: Option<&super::pack::NetworkCounts>,
    ) -> (Cost, bool) {
        if self.packed_kind() {
            if let Some(c) = super::pack::packed_cost_with(self, bits, counts) {
                return (c, true);
            }
        }
        let mut c = self.cost();
        if bits == 64 {
            // a 64-bit element shuffles as its two 32-bit halves and a
            // shuffle plan's select of one is two `selp.b32`
            // (`detail::shfl_bits`; SASS: two SHFL, two SEL), where
            // shared-memory accesses already count the plan's own
            // 64-bit-element vectors. The selects of shared-memory plans
            // (split stores) are left as counted: counting them twice too
            // moved choices among shared variants both ways in h2h
            // (results/runs/2026-11-29-h200-i64-shuffle-cost-3018c7c)
            c.shfl *= 2;
            if self.kind == Kind::Shuffle {
                c.sel *= 2;
            }
        }
        (c, false)
    }
    /// Cluster barriers of the plan ([`Stage::ClusterBarrier`]).
    pub fn cluster_barriers(&self) -> u32 {
        self.stages
            .iter()
            .filter(|s| matches!(s, Stage::ClusterBarrier))
            .count() as u32
    }
    /// Whether the plan accesses other CTAs' scratch (a cluster plan).
    pub fn is_cluster(&self) -> bool {
        self.stages.iter().any(|s| {
            matches!(
                s,
                Stage::ClusterStore { .. } | Stage::ClusterLoad { .. } | Stage::ClusterBarrier
            )
        })
    }
    /// Which cluster plan this is: [`ClusterVariant::LoadRemote`] with a
    /// [`Stage::ClusterLoad`], [`ClusterVariant::StoreRemote`] with a
    /// [`Stage::ClusterStore`]; `None` for other plans.
    pub fn cluster_variant(&self) -> Option<ClusterVariant> {
        if self
            .stages
            .iter()
            .any(|s| matches!(s, Stage::ClusterLoad { .. }))
        {
            Some(ClusterVariant::LoadRemote)
        } else if self
            .stages
            .iter()
            .any(|s| matches!(s, Stage::ClusterStore { .. }))
        {
            Some(ClusterVariant::StoreRemote)
        } else {
            None
        }
    }
    /// Elements one CTA moves across CTAs, the most over the `2^block_bits`
    /// CTAs (`warps` warps each): those its threads store into other CTAs'
    /// scratch ([`Stage::ClusterStore`]) plus those they load from other
    /// CTAs' scratch ([`Stage::ClusterLoad`]); 0 without either. Times the
    /// element bytes: the cross-CTA bytes per CTA.
    pub fn cluster_remote_elems(&self, warps: u32, block_bits: usize) -> u64 {
        let mut most = 0;
        for b in 0..1u32 << block_bits {
            let n: u64 = self
                .stages
                .iter()
                .map(|s| match s {
                    Stage::ClusterStore { store } => store.remote_elems(warps, b),
                    Stage::ClusterLoad { load } => load.remote_elems(warps, b),
                    _ => 0,
                })
                .sum();
            most = most.max(n);
        }
        most
    }
    /// Predicted cost per thread, one element per register.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One `st/ld.shared` of `n` 32-bit words per lane, lane bit `j` adding
    /// `lane[j]` elements to the address.
    fn vec_access(n: u32, lane: [u32; 5]) -> SmemAccess {
        SmemAccess {
            instr: SmemInstr::Vector,
            width: 32,
            addr: AddrMap {
                lane: lane.to_vec(),
                warp: vec![],
            },
            insts: vec![SmemInst {
                regs: (0..n).collect(),
                offset: 0,
            }],
            reg_xor: AddrMap::zero(),
            guard: Default::default(),
            lanes: 32,
            bank_model: Default::default(),
        }
    }

    /// An AMD LDS: a wave64 `ds_write_b32` of consecutive words takes two
    /// 128-byte phases on 32 banks and one 256-byte phase on gfx950's 64;
    /// a `ds_read_b128` of consecutive vectors is conflict-free in 16-lane
    /// phases there (no NVIDIA phase merges).
    #[test]
    fn amd_lds_phases_follow_its_banks() {
        let access = |words: u32, banks: u32| SmemAccess {
            instr: SmemInstr::Vector,
            width: 32,
            addr: AddrMap {
                lane: (0..6).map(|j| words << j).collect(),
                warp: vec![],
            },
            insts: vec![SmemInst {
                regs: (0..words).collect(),
                offset: 0,
            }],
            reg_xor: AddrMap::zero(),
            guard: Default::default(),
            lanes: 64,
            bank_model: BankModel::Amd { banks },
        };
        assert_eq!(access(1, 32).phases(0, 0).len(), 2);
        assert_eq!(access(1, 32).wavefronts(0, 0, Dir::Store), 2);
        assert_eq!(access(1, 64).phases(0, 0).len(), 1);
        assert_eq!(access(1, 64).wavefronts(0, 0, Dir::Load), 1);
        let v4 = access(4, 64);
        assert_eq!(v4.phases(0, 0).len(), 4);
        assert_eq!(v4.wavefronts(0, 0, Dir::Load), 4);
        assert_eq!(v4.min_wavefronts(0, 0, Dir::Load), 4);
        assert_eq!(access(4, 32).wavefronts(0, 0, Dir::Load), 8);
    }

    /// The wavefronts `ncu` counted on an H100 for these address patterns
    /// (results/runs/2026-11-22-h100-smem-broadcast-3a74e29/smem_broadcast.txt).
    #[test]
    fn wavefronts_follow_the_measured_broadcast_rules() {
        let cases: [(u32, [u32; 5], Dir, u64); 12] = [
            (1, [1, 2, 4, 8, 16], Dir::Load, 1),
            (2, [2, 4, 8, 16, 32], Dir::Load, 2),  // v2_unique
            (2, [0, 2, 4, 8, 16], Dir::Load, 1),   // v2_bcast2: halves merge
            (2, [2, 4, 8, 16, 0], Dir::Load, 2),   // v2_lo16: 32 addresses
            (2, [0, 2, 4, 8, 0], Dir::Load, 1),    // v2_halves_same8
            (2, [0, 0, 0, 0, 0], Dir::Load, 1),    // v2_same
            (4, [4, 8, 16, 32, 64], Dir::Load, 4), // v4_unique
            (4, [0, 0, 4, 8, 16], Dir::Load, 2),   // v4_bcast4: quarter pairs merge
            (4, [4, 8, 16, 0, 0], Dir::Load, 4),   // v4_lo8: 16 addresses per pair
            (4, [0, 0, 0, 0, 0], Dir::Load, 2),    // v4_same: halves never merge
            (2, [0, 2, 4, 8, 16], Dir::Store, 2),  // stores never merge
            (4, [0, 0, 4, 8, 16], Dir::Store, 4),
        ];
        for (n, lane, dir, want) in cases {
            let a = vec_access(n, lane);
            assert_eq!(a.wavefronts(0, 0, dir), want, "v{n} {lane:?} {dir:?}");
            assert!(a.min_wavefronts(0, 0, dir) <= want, "v{n} {lane:?} {dir:?}");
        }
    }

    #[test]
    fn store_choices_cost_a_select_tree_per_element() {
        let mut a = vec_access(1, [0, 0, 1, 2, 4]);
        assert_eq!(a.select_ops(), 0);
        a.reg_xor = AddrMap {
            lane: vec![4, 2, 0, 0, 0],
            warp: vec![1],
        };
        assert_eq!(a.select_ops(), 7);
        a.width = 64;
        assert_eq!(a.select_ops(), 14);
    }
}
