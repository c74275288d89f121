//! Conversions between the CTAs of a cluster through distributed shared
//! memory (docs/ARCHITECTURE.md 4.7; PTX ISA "Distributed Shared Memory",
//! `mapa`, `st.shared::cluster`, `ld.shared::cluster`, `barrier.cluster`;
//! Triton PR 9317 lowers such conversions through the swizzled
//! shared-memory path with a CTA id per access).
//!
//! Two plans, each in up to two scratch orders, each of those also with a
//! swizzled scratch where that saves local wavefronts (below), all
//! candidates of the search ([`cluster_plans`]), which the cost model picks between
//! (`--strategy cluster-store` / `cluster-load` force one variant,
//! [`cluster_plans_for`]):
//!
//! *Writer stores remotely* ([`ClusterVariant::StoreRemote`], strategy
//! `cluster/remote-store/..`):
//! 1. a cluster barrier (every CTA has started and is done with its scratch:
//!    peers are about to write into it);
//! 2. every thread stores each of its source registers into the scratch of
//!    every CTA that holds that element in the destination layout
//!    (`mapa.shared::cluster` + `st.shared::cluster`), at the element's
//!    offset in that CTA's *scratch layout* (the destination's in-CTA map
//!    inverted);
//! 3. a cluster barrier (release/acquire: the stores are visible);
//! 4. every thread loads its destination registers from its own CTA's
//!    scratch (`ld.shared`, vectorised where the layout allows).
//!
//! *Reader loads remotely* ([`ClusterVariant::LoadRemote`], strategy
//! `cluster/remote-load/..`):
//! 1. every thread stores its source registers into its *own* CTA's scratch
//!    (`st.shared`, vectorised), at the element's offset in the scratch
//!    layout of the *source* (the source's in-CTA map inverted);
//! 2. a cluster barrier (the stores are visible, every CTA has started);
//! 3. every thread loads each destination register from the scratch of a
//!    CTA that holds the element in the source (`mapa.shared::cluster` +
//!    `ld.shared::cluster`, vectorised up to 128 bits); where the source
//!    broadcasts over CTAs it reads the own CTA whenever that holds the
//!    element, and an instruction that reads the own CTA in every thread is
//!    a plain `ld.shared` (the in-CTA path of data that stays in its CTA);
//! 4. a cluster barrier: peers read this CTA's scratch after step 2, so no
//!    CTA may return (and reuse its scratch, or exit: a CTA's shared memory
//!    must not be accessed after it exits) before every read is done.
//!
//! The reader needs no entry barrier: its stores are local, no peer reads
//! before the barrier of step 2 (which also guarantees that every CTA has
//! started), and the final barrier of the previous call has ordered every
//! read of that call before any thread returned. Both plans execute
//! [`CLUSTER_BARRIERS`] cluster barriers. After the writer returns, a CTA
//! reusing its scratch needs `__syncthreads()` (its own loads); after the
//! reader returns, the scratch is free.
//!
//! Remote stores and loads are vectors (up to 128 bits) where register
//! columns of the remote side go to consecutive offsets of one CTA (any
//! register bits, not only the lowest: [`remote_vector_cols`]).
//!
//! The scratch order: each variant is built with the scratch coordinates
//! in a basis of its span taken from the local side's own columns
//! (registers first: vector local accesses), and again with the remote
//! side's register columns first where they lie in the span (vector remote
//! accesses, which cost more than local ones); the second is a candidate
//! where its vector widths differ.
//!
//! The scratch layout is one side's own in-CTA map inverted (the
//! destination's for the writer, the source's for the reader): with `S_B`
//! the span of that side's register, lane and warp columns and
//! `e_0..e_{k-1}` a basis of it taken from those columns (registers first),
//! element `t` of CTA `b` lives at offset `coord(t ^ B_block(b))`, the
//! coordinates of its in-CTA part in that basis. A thread `(r, l, w)` of that
//! side reaches its own element at `coord(B_in(r, l, w))`, linear in its
//! lane, warp and register bits; the scratch holds `2^k` elements per CTA.
//!
//! An element `t` is held by the CTAs `b` with `t ^ B_block(b)` in `S_B`:
//! `b = D(t) ^ K`, where `D` is a linear section (the side's independent
//! block columns) and `K` its broadcast block directions (block columns
//! inside `S_B` modulo the others). Both the CTA part `D(t)` and the offset
//! `coord(t ^ B_block(D(t)))` are linear in `t`, so linear in the accessing
//! thread's register, lane, warp and CTA bits: [`ClusterMap`]s. The writer
//! stores once per element and broadcast copy (every holder in the
//! destination needs it); the reader loads once, from `D(t) ^ k` with `k`
//! the projection of `D(t) ^ b` onto `K` (linear in `t` and the reader's
//! CTA `b`; `b` itself whenever `b` holds `t`).
//!
//! Writer: copies of a source element held by several registers of one
//! thread store once; lane, warp and CTA bits whose source column is zero
//! (pure broadcast) store from the threads with the bit clear only; other
//! copies held by several lanes, warps or CTAs (a column that repeats a
//! combination of others) all store the same value to the same place.
//! Reader: registers of one thread holding the same element store once and
//! load once; copies in several lanes or warps store the same value to the
//! same place.
//!
//! Swizzle: the inverted map leaves one side's accesses conflicting where
//! the lanes of a wavefront phase differ only in offset bits above a
//! 128-byte row (a transpose through the scratch: 8-way conflicts on
//! 32-bit words). Each plan is also built with its scratch offsets passed
//! through `x -> x ^ M(x)`, `M` moving three offset bits above the row into
//! the row's three 16-byte-granule bits (the XOR swizzle of CUTLASS's
//! `Swizzle<3, 4, s>` and of Triton's swizzled shared layouts, at every
//! shift `s` the scratch allows): linear and invertible, and the identity
//! on the offset bits inside a 16-byte granule, so every vector of at most
//! 16 bytes stays contiguous and aligned, and both sides, passed through
//! the same map, still meet at every element. Of the shifts that save
//! local wavefronts (what the cost model charges), the one with the fewest,
//! then the fewest remote ones, is a further candidate ([`swizzled`];
//! strategy `.../swz`).

use super::analysis::{Analysis, Side};
use super::ir::{
    AddrMap, ClusterInst, ClusterLoad, ClusterMap, ClusterStore, ClusterVariant, SmemAccess,
    SmemInst, SmemInstr,
};
use super::strategy::{ClusterStrategy, Strategy};
use super::{smem_limit, Kind, Plan, PlanError, Rounds, SharedOptions, Stage, StrategyChoice};

/// Cluster barriers every cluster plan executes: entry and after the
/// stores (writer), after the stores and after the remote loads (reader).
pub const CLUSTER_BARRIERS: u32 = 2;

/// Lowest compute capability with thread block clusters (sm_90).
pub const CLUSTER_MIN_SM: u32 = 90;

/// Gaussian elimination over tag vectors that remembers which generators
/// (bits of a 64-bit label) sum to each row.
struct Labeled {
    /// Row with highest bit `i`, and its label.
    slot: [Option<(u64, u64)>; 64],
}

impl Default for Labeled {
    fn default() -> Self {
        Labeled { slot: [None; 64] }
    }
}

impl Labeled {
    /// `v` reduced by the rows: the residue and the label of what was removed.
    fn reduce(&self, mut v: u64) -> (u64, u64) {
        let mut label = 0;
        for bit in (0..64).rev() {
            if v >> bit & 1 == 1 {
                if let Some((r, l)) = self.slot[bit] {
                    v ^= r;
                    label ^= l;
                }
            }
        }
        (v, label)
    }
    /// Add generator `v` with label `label`; false if it is in the span.
    fn insert(&mut self, v: u64, label: u64) -> bool {
        let (r, l) = self.reduce(v);
        if r == 0 {
            return false;
        }
        self.slot[63 - r.leading_zeros() as usize] = Some((r, l ^ label));
        true
    }
}

/// The scratch layout of one side of a cluster conversion and where its
/// CTAs hold each element.
struct Routing {
    /// `dim S_B`: the scratch holds `2^k` elements per CTA.
    k: usize,
    elim: Labeled,
    /// Broadcast CTA directions of the side: `(CTA xor, offset xor)` per
    /// generator (independent CTA parts).
    copies: Vec<(u32, u32)>,
}

/// Labels at and above this bit name block columns.
const BLOCK_LABEL: u32 = 32;

impl Routing {
    /// The routing of side `b` with the scratch coordinates in a basis of
    /// its in-CTA span taken first from `prefer` (the columns of it that
    /// lie in the span, in order: the other side's register columns, so
    /// that its consecutive registers sit at consecutive offsets), then
    /// from `b`'s own register, lane and warp columns. `None` past 32
    /// coordinates.
    fn new(b: &Side, prefer: &[u64]) -> Option<Routing> {
        let mut span = Labeled::default();
        for &c in b.reg.iter().chain(&b.lane).chain(&b.warp) {
            span.insert(c, 0);
        }
        let in_span = |c: u64| span.reduce(c).0 == 0;
        let mut elim = Labeled::default();
        let mut k = 0usize;
        let own = b.reg.iter().chain(&b.lane).chain(&b.warp);
        for &c in prefer.iter().filter(|&&c| in_span(c)).chain(own) {
            if k >= BLOCK_LABEL as usize {
                return None;
            }
            if elim.insert(c, 1u64 << k) {
                k += 1;
            }
        }
        let mut copies = Vec::new();
        for (j, &c) in b.block.iter().enumerate() {
            if !elim.insert(c, 1u64 << (BLOCK_LABEL as usize + j)) {
                let (_, l) = elim.reduce(c);
                copies.push(((1u32 << j) ^ (l >> BLOCK_LABEL) as u32, l as u32));
            }
        }
        Some(Routing { k, elim, copies })
    }
    /// `(CTA, offset)` parts of tag vector `t`: `D(t)` and
    /// `coord(t ^ B_block(D(t)))`. `None` when the side does not cover `t`
    /// (layouts are surjective, so never for a checked conversion).
    fn route(&self, t: u64) -> Option<(u32, u32)> {
        let (r, l) = self.elim.reduce(t);
        (r == 0).then_some(((l >> BLOCK_LABEL) as u32, l as u32))
    }
    /// Offset coordinates of an in-CTA column.
    fn coord(&self, t: u64) -> Option<u32> {
        self.route(t).filter(|x| x.0 == 0).map(|x| x.1)
    }
    /// The broadcast copy `(CTA xor, offset xor)` that takes CTA `d` as
    /// close to CTA `d ^ y` as the copies allow: the sum of the copies whose
    /// CTA parts reduce `y` (all of `y` when it lies in their span). Linear
    /// in `y`.
    fn toward(&self, y: u32) -> (u32, u32) {
        let mut e = Labeled::default();
        for (i, &(c, _)) in self.copies.iter().enumerate() {
            e.insert(c as u64, 1 << i);
        }
        let (_, lab) = e.reduce(y as u64);
        self.copies
            .iter()
            .enumerate()
            .filter(|(i, _)| lab >> i & 1 == 1)
            .fold((0, 0), |a, (_, x)| (a.0 ^ x.0, a.1 ^ x.1))
    }
}

/// The variants `choice` allows (both under `auto`; writer first, so that
/// it wins ties).
fn variants(choice: StrategyChoice) -> &'static [ClusterVariant] {
    match choice {
        StrategyChoice::ClusterStore => &[ClusterVariant::StoreRemote],
        StrategyChoice::ClusterLoad => &[ClusterVariant::LoadRemote],
        _ => &[ClusterVariant::StoreRemote, ClusterVariant::LoadRemote],
    }
}

/// Scratch elements per CTA of `variant` (the inverted in-CTA map of the
/// destination for the writer, of the source for the reader).
fn scratch_elems(an: &Analysis, variant: ClusterVariant) -> Option<u64> {
    let side = match variant {
        ClusterVariant::StoreRemote => &an.dst,
        ClusterVariant::LoadRemote => &an.src,
    };
    Routing::new(side, &[]).map(|r| 1u64 << r.k)
}

/// The scratch limit in bytes for `opt` (the target's, or `--max-smem`'s
/// when lower).
fn smem_max(opt: &SharedOptions) -> u64 {
    opt.max_smem
        .map_or(smem_limit(opt.sm), |m| m.min(smem_limit(opt.sm)))
}

/// Why a cluster conversion cannot be planned for `choice` and `opt`
/// (`None`: [`cluster_plans_for`] applies). Errors: `--strategy shuffle`
/// or `shared` forced ([`PlanError::CrossCta`]), a target below sm_90 (no
/// clusters, [`PlanError::CrossCta`]), a scratch over the target's or
/// `--max-smem`'s limit for every variant `choice` allows
/// ([`PlanError::SmemTooLarge`], with the smallest need).
pub fn refusal(an: &Analysis, choice: StrategyChoice, opt: &SharedOptions) -> Option<PlanError> {
    if an.class != Kind::Cluster {
        return None;
    }
    let cross = |detail: String| {
        Some(PlanError::CrossCta {
            name: an.name.clone(),
            what: if an.moves_across_ctas() {
                "the conversion moves data across CTAs"
            } else {
                "every CTA keeps its elements, in an order that depends on the CTA (the block bases differ), which only the cluster strategy plans"
            },
            detail,
        })
    };
    if matches!(choice, StrategyChoice::Shuffle | StrategyChoice::Shared) {
        return cross(format!(
            "only the cluster strategy (distributed shared memory: auto, cluster-store or cluster-load) converts it, not --strategy {}",
            choice.name()
        ));
    }
    if let Some(a) = opt.amd {
        return cross(format!(
            "that needs thread block clusters and distributed shared memory, which {a} lacks (warpforge plans cluster conversions for NVIDIA sm_90 or newer)"
        ));
    }
    if opt.sm < CLUSTER_MIN_SM {
        return cross(format!(
            "that needs thread block clusters and distributed shared memory, which sm_{} lacks (sm_90 or newer)",
            opt.sm
        ));
    }
    let eb = (opt.elem_bits as u64 / 8).max(1);
    let need = variants(choice)
        .iter()
        .filter_map(|&v| scratch_elems(an, v))
        .min()?
        * eb;
    let max = smem_max(opt);
    (need > max).then(|| PlanError::SmemTooLarge {
        name: an.name.clone(),
        need,
        max,
    })
}

/// Both cluster plans of a conversion that moves data between CTAs
/// ([`cluster_plans_for`] under `auto`).
pub fn cluster_plans(an: &Analysis, opt: &SharedOptions) -> Vec<Plan> {
    cluster_plans_for(an, StrategyChoice::Auto, opt)
}

/// The cluster plans `choice` allows (`auto`: writer then reader;
/// `cluster-store`, `cluster-load`: that variant), each in its local side's
/// scratch order and, where its vector widths differ, its remote side's
/// register order, each followed by its swizzled twin where one saves
/// local wavefronts ([`swizzled`]), whose scratch fits the limit;
/// empty for other conversions, other choices, below sm_90, or when no
/// scratch fits ([`refusal`] says which). Element width `opt.elem_bits`.
pub fn cluster_plans_for(an: &Analysis, choice: StrategyChoice, opt: &SharedOptions) -> Vec<Plan> {
    if an.class != Kind::Cluster || refusal(an, choice, opt).is_some() {
        return Vec::new();
    }
    let eb = (opt.elem_bits as u64 / 8).max(1);
    let mut plans: Vec<Plan> = Vec::new();
    for &v in variants(choice)
        .iter()
        .filter(|&&v| scratch_elems(an, v).is_some_and(|e| e * eb <= smem_max(opt)))
    {
        // the scratch in the order of the side whose accesses are local
        // (vectorised local accesses), then in the order of the other
        // side's registers (vectorised remote accesses), where that differs
        for remote_order in [false, true] {
            let p = match v {
                ClusterVariant::StoreRemote => build_store(an, opt.elem_bits, remote_order),
                ClusterVariant::LoadRemote => build_load(an, opt.elem_bits, remote_order),
            };
            if let Some(p) = p {
                if !plans.iter().any(|q| q.strategy == p.strategy) {
                    let swz = swizzled(&p);
                    plans.push(p);
                    plans.extend(swz.filter(|q| !plans.iter().any(|o| o.strategy == q.strategy)));
                }
            }
        }
    }
    plans
}

/// Shared-memory wavefronts per warp of a cluster plan's accesses: local
/// ([`Plan::wavefronts_per_warp`], what the cost model charges) and remote,
/// a remote access counted as a local one of the same lanes and offsets at
/// its target (lanes that reach different CTAs counted together, an
/// over-count where they split).
fn scratch_wavefronts(p: &Plan) -> (u64, u64) {
    use super::banks::Dir;
    let remote = |width: u32, addr: &ClusterMap, insts: &[ClusterInst], dir: Dir| -> u64 {
        let Some(first) = insts.first() else {
            return 0;
        };
        let access = SmemAccess {
            instr: SmemInstr::Vector,
            width,
            addr: AddrMap {
                lane: addr.lane.clone(),
                warp: addr.warp.clone(),
            },
            insts: vec![SmemInst {
                regs: first.regs.clone(),
                offset: first.offset,
            }],
            reg_xor: AddrMap::zero(),
            guard: Default::default(),
            lanes: 32,
            bank_model: Default::default(),
        };
        insts.len() as u64 * access.wavefronts(0, 0, dir)
    };
    let remote_wf = p
        .stages
        .iter()
        .map(|st| match st {
            Stage::ClusterStore { store } => {
                remote(store.width, &store.addr, &store.insts, Dir::Store)
            }
            Stage::ClusterLoad { load } => remote(load.width, &load.addr, &load.insts, Dir::Load),
            _ => 0,
        })
        .sum::<u64>();
    (p.wavefronts_per_warp().0, remote_wf)
}

/// `p` with its scratch swizzled (module docs, "Swizzle"): of the maps
/// `x -> x ^ M(x)` that XOR offset bits `h..h+3` (`h` above the 128-byte
/// row; those below the scratch's size) into the row's 16-byte-granule
/// bits, the one whose local accesses take the fewest wavefronts, then its
/// remote ones ([`scratch_wavefronts`]), where its local accesses take
/// fewer than `p`'s (the cost model charges local wavefronts only: a twin
/// that saved remote ones alone would tie `p` and never be chosen); `None`
/// otherwise, or for a scratch of no more than one row. Every scratch
/// offset of the plan (the run-time columns and the instructions' constants
/// of both sides) goes through the map ([`remap_offsets`]); the search
/// proves the result as any candidate.
fn swizzled(p: &Plan) -> Option<Plan> {
    let width = p.elem_bits.max(8);
    // element-offset bits: the 16-byte granule starts at bit g, the row's
    // granule bits are g..g+3, the scratch spans k bits
    let g = (128 / width).trailing_zeros();
    let k = p.smem_elems.max(1).trailing_zeros();
    if k < g + 4 {
        return None;
    }
    let base = scratch_wavefronts(p).0;
    let mut best: Option<((u64, u64), u32, Plan)> = None;
    for h in g + 3..k {
        let m = |x: u32| -> u32 {
            (0..3)
                .filter(|&i| h + i < k && x >> (h + i) & 1 == 1)
                .fold(0u32, |a, i| a ^ 1 << (g + i))
        };
        let q = remap_offsets(p, &|x| x ^ m(x));
        let w = scratch_wavefronts(&q);
        if w.0 < base && best.as_ref().is_none_or(|(bw, _, _)| w < *bw) {
            best = Some((w, h, q));
        }
    }
    let (_, h, mut q) = best?;
    if let Strategy::Cluster(c) = &mut q.strategy {
        c.swizzle = true;
    }
    let n = (k - h).min(3);
    q.notes.push(format!(
        "scratch swizzled: element-offset bits {h}..{} XORed into bits {g}..{} (16-byte granules of a 128-byte row)",
        h + n - 1,
        g + n - 1
    ));
    Some(q)
}

/// `p` with every scratch offset, local and remote, passed through `f`
/// (linear): the lane, warp and CTA columns of the run-time part and each
/// instruction's constant.
fn remap_offsets(p: &Plan, f: &dyn Fn(u32) -> u32) -> Plan {
    let map = |cols: &[u32]| cols.iter().map(|&c| f(c)).collect::<Vec<u32>>();
    let cmap = |m: &ClusterMap| ClusterMap {
        lane: map(&m.lane),
        warp: map(&m.warp),
        block: map(&m.block),
    };
    let cinsts = |v: &[ClusterInst]| {
        v.iter()
            .map(|i| ClusterInst {
                offset: f(i.offset),
                ..i.clone()
            })
            .collect::<Vec<_>>()
    };
    let local = |a: &SmemAccess| SmemAccess {
        addr: AddrMap {
            lane: map(&a.addr.lane),
            warp: map(&a.addr.warp),
        },
        insts: a
            .insts
            .iter()
            .map(|i| SmemInst {
                offset: f(i.offset),
                ..i.clone()
            })
            .collect(),
        ..a.clone()
    };
    let mut q = p.clone();
    for st in &mut q.stages {
        match st {
            Stage::SmemStore { access } | Stage::SmemLoad { access } => *access = local(access),
            Stage::ClusterStore { store } => {
                store.addr = cmap(&store.addr);
                store.insts = cinsts(&store.insts);
            }
            Stage::ClusterLoad { load } => {
                load.addr = cmap(&load.addr);
                load.insts = cinsts(&load.insts);
            }
            _ => {}
        }
    }
    q
}

/// `XOR(bit j of v set: cols[j])`.
fn xor(cols: &[u32], v: u32) -> u32 {
    cols.iter()
        .enumerate()
        .filter(|(j, _)| v >> j & 1 == 1)
        .fold(0u32, |acc, (_, &c)| acc ^ c)
}

/// `XOR(bit j of v set: cols[j])` over tag vectors.
fn xor64(cols: &[u64], v: u32) -> u64 {
    cols.iter()
        .enumerate()
        .filter(|(j, _)| v >> j & 1 == 1)
        .fold(0u64, |acc, (_, &c)| acc ^ c)
}

/// The notes of a cluster plan's header comment.
fn notes(an: &Analysis, plan: &Plan, width: u32, how: &str) -> Vec<String> {
    let nctas = 1u32 << an.src.hw.block;
    let remote = plan.cluster_remote_elems(1 << an.src.hw.warp, an.src.hw.block);
    // more than 8 CTAs is over the portable cluster size (CUDA C++
    // Programming Guide, "Thread Block Clusters"): the kernel must opt in
    let portable = if nctas > 8 {
        " (over the portable 8: set cudaFuncAttributeNonPortableClusterSizeAllowed on the kernel first)"
    } else {
        ""
    };
    vec![
        format!(
            "cluster of {nctas} CTAs{portable} (distributed shared memory, sm_90+): block index = %cluster_ctarank; launch with exactly this cluster size (__cluster_dims__ or cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension); every thread of every CTA must call it"
        ),
        format!(
            "cross-CTA bytes per CTA: {} ({remote} elements {how}); cluster barriers: {CLUSTER_BARRIERS}",
            remote * width as u64 / 8
        ),
    ]
}

/// The writer plan: entry barrier, remote stores, barrier, local loads.
/// `remote_order`: the scratch coordinates start from the source's
/// register columns (vector remote stores) rather than the destination's
/// (vector local loads).
fn build_store(an: &Analysis, width: u32, remote_order: bool) -> Option<Plan> {
    let (a, b) = (&an.src, &an.dst);
    let r = Routing::new(&an.dst, if remote_order { &a.reg } else { &[] })?;
    let routes = |cols: &[u64]| -> Option<(Vec<u32>, Vec<u32>)> {
        let v: Vec<(u32, u32)> = cols.iter().map(|&c| r.route(c)).collect::<Option<_>>()?;
        Some(v.into_iter().unzip())
    };
    let (reg_cta, reg_off) = routes(&a.reg)?;
    let (lane_cta, lane_off) = routes(&a.lane)?;
    let (warp_cta, warp_off) = routes(&a.warp)?;
    let (block_cta, block_off) = routes(&a.block)?;
    // the source register bits `vcols` go to consecutive offsets of one
    // CTA: one vector store per `2^len` registers (the lowest bits in the
    // destination's scratch order; any, in the source's)
    let copy_offs: Vec<u32> = r.copies.iter().map(|x| x.1).collect();
    let vcols = remote_vector_cols(
        &reg_cta,
        &reg_off,
        &[&lane_off[..], &warp_off, &block_off, &copy_offs].concat(),
        width,
    );
    let n = 1u32 << vcols.len();
    let vmask = vcols.iter().fold(0u32, |m, &j| m | 1 << j);
    let spread = |e: u32| xor(&vcols.iter().map(|&j| 1u32 << j).collect::<Vec<_>>(), e);
    let mut seen = std::collections::HashSet::new();
    let mut insts = Vec::new();
    for reg in (0..an.src_regs()).filter(|g| g & vmask == 0) {
        // registers of one thread that hold the same element store once (a
        // copy of a vector's register is the same register of a copy of
        // the vector: the vector's low offset bits are its own)
        if !seen.insert(xor64(&a.reg, reg)) {
            continue;
        }
        let (cta, off) = (xor(&reg_cta, reg), xor(&reg_off, reg));
        for c in 0..1u32 << r.copies.len() {
            let kc = r
                .copies
                .iter()
                .enumerate()
                .filter(|(j, _)| c >> j & 1 == 1)
                .fold((0, 0), |acc, (_, x)| (acc.0 ^ x.0, acc.1 ^ x.1));
            insts.push(ClusterInst {
                regs: (0..n).map(|e| reg | spread(e)).collect(),
                cta: cta ^ kc.0,
                offset: off ^ kc.1,
            });
        }
    }
    // lane, warp and CTA bits whose source column is zero hold copies:
    // only the threads with those bits clear store
    let zero_bits = |cols: &[u64]| {
        cols.iter()
            .enumerate()
            .filter(|(_, &c)| c == 0)
            .fold(0u32, |m, (j, _)| m | 1 << j)
    };
    let store = ClusterStore {
        skip_lane: zero_bits(&a.lane),
        skip_warp: zero_bits(&a.warp),
        skip_block: zero_bits(&a.block),
        width,
        cta: ClusterMap {
            lane: lane_cta,
            warp: warp_cta,
            block: block_cta,
        },
        addr: ClusterMap {
            lane: lane_off,
            warp: warp_off,
            block: block_off,
        },
        insts,
    };
    // local loads at the destination's own coordinates
    let coords = |cols: &[u64]| cols.iter().map(|&c| r.coord(c)).collect::<Option<Vec<_>>>();
    let (dreg, dlane, dwarp) = (coords(&b.reg)?, coords(&b.lane)?, coords(&b.warp)?);
    let v = vector_bits(&dreg, &dlane, &dwarp, width);
    let n_store = n;
    let n = 1u32 << v;
    let load = SmemAccess {
        instr: SmemInstr::Vector,
        width,
        addr: AddrMap {
            lane: dlane,
            warp: dwarp,
        },
        insts: (0..an.dst_regs())
            .step_by(n as usize)
            .map(|g| SmemInst {
                regs: (g..g + n).collect(),
                offset: xor(&dreg, g),
            })
            .collect(),
        reg_xor: AddrMap::zero(),
        guard: Default::default(),
        lanes: 32,
        bank_model: Default::default(),
    };
    let src_regs = an.src_regs();
    let mut plan = Plan {
        kind: Kind::Cluster,
        strategy: Strategy::Cluster(ClusterStrategy {
            direction: ClusterVariant::StoreRemote,
            store: n_store,
            load: n,
            swizzle: false,
        }),
        src_regs,
        dst_regs: an.dst_regs(),
        stages: vec![
            Stage::ClusterBarrier,
            Stage::ClusterStore { store },
            Stage::ClusterBarrier,
            Stage::SmemLoad { access: load },
            Stage::RegRename {
                map: (src_regs..src_regs + an.dst_regs()).collect(),
            },
        ],
        smem_elems: 1u64 << r.k,
        m: 0,
        elem_bits: width,
        rounds: Rounds::ONE,
        notes: Vec::new(),
        pack: None,
        lanes: 32,
        first_warp: 0,
        register_budget: None,
    };
    plan.notes = notes(an, &plan, width, "stored into other CTAs");
    plan.notes.push("smem must be the same shared-memory address in every CTA of the cluster (the same allocation of the same kernel): remote stores go to the peer's copy of that address (mapa)".to_string());
    Some(plan)
}

/// The reader plan: local stores, barrier, remote loads (local where the
/// own CTA is read in every thread), barrier. `remote_order`: the scratch
/// coordinates start from the destination's register columns (vector
/// remote loads) rather than the source's (vector local stores).
fn build_load(an: &Analysis, width: u32, remote_order: bool) -> Option<Plan> {
    let (a, b) = (&an.src, &an.dst);
    let r = Routing::new(&an.src, if remote_order { &b.reg } else { &[] })?;
    // local stores at the source's own coordinates
    let coords = |cols: &[u64]| cols.iter().map(|&c| r.coord(c)).collect::<Option<Vec<_>>>();
    let (sreg, slane, swarp) = (coords(&a.reg)?, coords(&a.lane)?, coords(&a.warp)?);
    let sv = vector_bits(&sreg, &slane, &swarp, width);
    let n_store = 1u32 << sv;
    let mut seen = std::collections::HashSet::new();
    let store = SmemAccess {
        instr: SmemInstr::Vector,
        width,
        addr: AddrMap {
            lane: slane,
            warp: swarp,
        },
        // registers of one thread that hold the same element store once
        insts: (0..an.src_regs())
            .step_by(n_store as usize)
            .filter(|&g| seen.insert(xor64(&a.reg, g)))
            .map(|g| SmemInst {
                regs: (g..g + n_store).collect(),
                offset: xor(&sreg, g),
            })
            .collect(),
        reg_xor: AddrMap::zero(),
        guard: Default::default(),
        lanes: 32,
        bank_model: Default::default(),
    };
    // where destination column `c` reads: the source's CTA part `D(c)`
    // moved toward the reader's own CTA by the source's broadcast copies
    // (`y`: the reader's CTA part of the column), and the offset there
    let at = |c: u64, own: u32| -> Option<(u32, u32)> {
        let (d, o) = r.route(c)?;
        let (kc, ko) = r.toward(d ^ own);
        Some((d ^ kc, o ^ ko))
    };
    let reads = |cols: &[u64]| -> Option<(Vec<u32>, Vec<u32>)> {
        let v: Vec<(u32, u32)> = cols.iter().map(|&c| at(c, 0)).collect::<Option<_>>()?;
        Some(v.into_iter().unzip())
    };
    let (reg_cta, reg_off) = reads(&b.reg)?;
    let (lane_cta, lane_off) = reads(&b.lane)?;
    let (warp_cta, warp_off) = reads(&b.warp)?;
    let (block_cta, block_off): (Vec<u32>, Vec<u32>) = b
        .block
        .iter()
        .enumerate()
        .map(|(j, &c)| at(c, 1 << j))
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .unzip();
    let vcols = remote_vector_cols(
        &reg_cta,
        &reg_off,
        &[&lane_off[..], &warp_off, &block_off].concat(),
        width,
    );
    let n = 1u32 << vcols.len();
    let vmask = vcols.iter().fold(0u32, |m, &j| m | 1 << j);
    let spread = |e: u32| xor(&vcols.iter().map(|&j| 1u32 << j).collect::<Vec<_>>(), e);
    // registers of one thread that hold the same element load once
    let src_regs = an.src_regs();
    let mut first: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
    let mut insts = Vec::new();
    let mut map = vec![0u32; an.dst_regs() as usize];
    for g in (0..an.dst_regs()).filter(|g| g & vmask == 0) {
        let slot = *first.entry(xor64(&b.reg, g)).or_insert_with(|| {
            insts.push(ClusterInst {
                regs: (0..n).map(|e| g | spread(e)).collect(),
                cta: xor(&reg_cta, g),
                offset: xor(&reg_off, g),
            });
            src_regs + (insts.len() as u32 - 1) * n
        });
        for e in 0..n {
            map[(g | spread(e)) as usize] = slot + e;
        }
    }
    let load = ClusterLoad {
        width,
        cta: ClusterMap {
            lane: lane_cta,
            warp: warp_cta,
            block: block_cta,
        },
        addr: ClusterMap {
            lane: lane_off,
            warp: warp_off,
            block: block_off,
        },
        insts,
    };
    let mut plan = Plan {
        kind: Kind::Cluster,
        strategy: Strategy::Cluster(ClusterStrategy {
            direction: ClusterVariant::LoadRemote,
            store: n_store,
            load: n,
            swizzle: false,
        }),
        src_regs,
        dst_regs: an.dst_regs(),
        stages: vec![
            Stage::SmemStore { access: store },
            Stage::ClusterBarrier,
            Stage::ClusterLoad { load },
            Stage::ClusterBarrier,
            Stage::RegRename { map },
        ],
        smem_elems: 1u64 << r.k,
        m: 0,
        elem_bits: width,
        rounds: Rounds::ONE,
        notes: Vec::new(),
        pack: None,
        lanes: 32,
        first_warp: 0,
        register_budget: None,
    };
    plan.notes = notes(an, &plan, width, "loaded from other CTAs");
    plan.notes.push("smem must be the same shared-memory address in every CTA of the cluster (the same allocation of the same kernel): remote loads read the peer's copy of that address (mapa); the final cluster barrier orders every read before any thread returns, so the scratch is free afterwards".to_string());
    Some(plan)
}

/// The register columns a remote access (store or load) takes as one
/// vector (up to 128 bits), in offset order: column `cols[i]` goes to the
/// own CTA part (no CTA change within the vector) and to offset bit `i`
/// alone, and no other column (`others`: lanes, warps, CTA bits,
/// destination copies; the other registers) sets offset bits below
/// `cols.len()`, so every vector is aligned. The columns need not be the
/// lowest register bits: a vector may take registers `g | spread(e)` of
/// stride above 1.
fn remote_vector_cols(cta: &[u32], off: &[u32], others: &[u32], width: u32) -> Vec<usize> {
    let most = (128 / width.max(8)).trailing_zeros() as usize;
    let mut cols: Vec<usize> = Vec::new();
    for i in 0..most {
        match (0..off.len()).find(|&j| off[j] == 1 << i && cta[j] == 0 && !cols.contains(&j)) {
            Some(j) => cols.push(j),
            None => break,
        }
    }
    while !cols.is_empty() {
        let low = (1u32 << cols.len()) - 1;
        let rest = (0..off.len()).filter(|j| !cols.contains(j)).map(|j| off[j]);
        if rest.chain(others.iter().copied()).all(|c| c & low == 0) {
            break;
        }
        cols.pop();
    }
    cols
}

/// Register bits a local access takes as one vector (up to 128 bits): the
/// lowest `v` register columns must be offset bits `0..v` and nothing else
/// may set those bits (so every vector is aligned).
fn vector_bits(reg: &[u32], lane: &[u32], warp: &[u32], width: u32) -> usize {
    let most = (128 / width.max(8)).trailing_zeros() as usize;
    (0..=most.min(reg.len()))
        .rev()
        .find(|&v| {
            let low = (1u32 << v) - 1;
            (0..v).all(|j| reg[j] == 1 << j)
                && reg[v..]
                    .iter()
                    .chain(lane)
                    .chain(warp)
                    .all(|&c| c & low == 0)
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Conversion, StrategyChoice};
    use crate::sim::{simulate, SimError};

    /// The conversions of a test-data file.
    fn conversions(file: &str) -> Vec<Conversion> {
        let path = format!("{}/../tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        crate::parse::parse_ttgir(&text)
            .unwrap()
            .converts
            .iter()
            .map(|op| Conversion::from_op(op).unwrap())
            .collect()
    }

    fn opt(bits: u32) -> SharedOptions {
        SharedOptions {
            elem_bits: bits,
            ..SharedOptions::default()
        }
    }

    /// Every cross-CTA conversion of the cluster test files.
    fn cross_cta_cases() -> Vec<(Conversion, Analysis)> {
        let mut out = Vec::new();
        for file in [
            "cluster_cross_cta.mlir",
            "cluster2_blocked.mlir",
            "cross_cta.mlir",
        ] {
            for c in conversions(file) {
                let an = Analysis::new(&c).unwrap();
                if an.class == Kind::Cluster {
                    out.push((c, an));
                }
            }
        }
        out
    }

    /// The plan of `variant` among `plans`.
    fn variant_of(plans: &[Plan], variant: ClusterVariant) -> Plan {
        plans
            .iter()
            .find(|p| p.cluster_variant() == Some(variant))
            .unwrap_or_else(|| panic!("no {variant:?} plan among {plans:?}"))
            .clone()
    }

    /// Every cross-CTA case, at every element width, has cluster plans of
    /// both variants, the writer (`store_remote`) and the reader
    /// (`load_remote`), each with the scratch in its local side's order and,
    /// where that differs, in the remote side's register order, each of
    /// those swizzled where that saves wavefronts (2 to 8 plans, no two
    /// alike), and the simulator proves every one for every thread of every
    /// CTA; each forced strategy yields its own variant's.
    #[test]
    fn every_cross_cta_case_is_proven_at_every_width_in_both_variants() {
        let cases = cross_cta_cases();
        assert_eq!(cases.len(), 9);
        for (c, an) in &cases {
            for bits in [8, 16, 32, 64] {
                let plans = crate::plan::candidates(an, StrategyChoice::Auto, &opt(bits));
                assert!((2..=8).contains(&plans.len()), "{}", c.name);
                for (i, p) in plans.iter().enumerate() {
                    assert!(plans[..i].iter().all(|q| q.strategy != p.strategy));
                    simulate(p, an)
                        .unwrap_or_else(|e| panic!("{} {bits} {}: {e}", c.name, p.strategy));
                }
                for (variant, choice) in [
                    (ClusterVariant::StoreRemote, StrategyChoice::ClusterStore),
                    (ClusterVariant::LoadRemote, StrategyChoice::ClusterLoad),
                ] {
                    let p = variant_of(&plans, variant);
                    assert_eq!(
                        p.strategy.cluster().map(|s| s.direction),
                        Some(variant),
                        "{}",
                        p.strategy
                    );
                    assert_eq!(p.cluster_barriers(), CLUSTER_BARRIERS);
                    assert_eq!(p.cost().cbar, CLUSTER_BARRIERS);
                    let rep = simulate(&p, an)
                        .unwrap_or_else(|e| panic!("{} {bits} {variant:?}: {e}", c.name));
                    assert_eq!(
                        rep.threads,
                        32u64 << (an.src.hw.warp + an.src.hw.block),
                        "{}",
                        c.name
                    );
                    assert_eq!(rep.slots, rep.threads * an.dst_regs() as u64, "{}", c.name);
                    // data moves between CTAs: some CTA moves some of it
                    assert!(p.cluster_remote_elems(1 << an.src.hw.warp, an.src.hw.block) > 0);
                    let forced = crate::plan::candidates(an, choice, &opt(bits));
                    assert!((1..=4).contains(&forced.len()), "{} {choice:?}", c.name);
                    assert!(forced.iter().all(|f| f.cluster_variant() == Some(variant)));
                    assert_eq!(forced[0].strategy, p.strategy);
                }
                // the reader's stages: local stores, barrier, loads, barrier
                let r = variant_of(&plans, ClusterVariant::LoadRemote);
                let kinds: Vec<&str> = r.stages.iter().map(|s| s.name()).collect();
                assert_eq!(
                    kinds,
                    [
                        "SmemStore",
                        "ClusterBarrier",
                        "ClusterLoad",
                        "ClusterBarrier",
                        "RegRename"
                    ]
                );
            }
        }
    }

    /// `cross_cta.mlir`: register bit 0 of each thread's 64 f32 source
    /// elements changes CTA in the destination, bits 1.. run down dim0 as
    /// the destination's registers do: the writer stores 128 bits of
    /// every other register remotely and loads 128 bits. The reader stores
    /// 128 bits locally and loads single words remotely in the source's
    /// scratch order, the other way round in the destination's register
    /// order. Every one is proven, and so is each one's swizzled twin, which
    /// follows it.
    #[test]
    fn the_remote_side_is_vectorised_in_its_own_scratch_order() {
        let cs = conversions("cross_cta.mlir");
        let an = Analysis::new(&cs[0]).unwrap();
        let plans = cluster_plans(&an, &opt(32));
        let names: Vec<String> = plans.iter().map(|p| p.strategy.to_string()).collect();
        assert_eq!(
            names,
            [
                "cluster/remote-store/st4/ld4",
                "cluster/remote-store/st4/ld4/swz",
                "cluster/remote-load/st4/ld1",
                "cluster/remote-load/st4/ld1/swz",
                "cluster/remote-load/st1/ld4",
                "cluster/remote-load/st1/ld4/swz"
            ]
        );
        // the writer's vectors take every other register (bits 1 and 2:
        // bit 0 is the column that changes CTA)
        let Stage::ClusterStore { store } = &plans[0].stages[1] else {
            panic!("{:?}", plans[0].stages)
        };
        assert_eq!(store.insts[0].regs, [0, 2, 4, 6]);
        for p in &plans {
            simulate(p, &an).unwrap_or_else(|e| panic!("{}: {e}", p.strategy));
        }
    }

    /// A real 4-CTA kernel (Gluon, sm_90, `cluster_gluon_c4.ttgir`): a
    /// blocked 64x64 f32 tile into an `mma` dot operand whose rows go to
    /// other CTAs. The writer's scratch is the destination's map inverted,
    /// so its local single-word loads take lanes whose offsets differ only
    /// above the 128-byte row: 8 wavefronts each. Swizzled (offset bits
    /// above the row into the 16-byte granule bits), each takes 1, the
    /// instructions stay the same, and the plan is proven (the swizzle moves
    /// no vector off its alignment).
    #[test]
    fn a_transposing_scratch_is_swizzled_to_conflict_free_loads() {
        let cs = conversions("cluster_gluon_c4.ttgir");
        let an = Analysis::new(&cs[0]).unwrap();
        assert_eq!(an.class, Kind::Cluster);
        let plans = cluster_plans(&an, &opt(32));
        let name = |p: &Plan| p.strategy.to_string();
        let plain = plans
            .iter()
            .find(|p| name(p) == "cluster/remote-store/st4/ld1")
            .expect("the writer in the remote side's order");
        let swz = plans
            .iter()
            .find(|p| name(p) == "cluster/remote-store/st4/ld1/swz")
            .expect("its swizzled twin");
        let loads = |p: &Plan| -> (usize, u64) {
            let (n, w) = p
                .stages
                .iter()
                .find_map(|s| match s {
                    Stage::SmemLoad { access } => Some((
                        access.insts.len(),
                        access.wavefronts(0, 0, super::super::banks::Dir::Load),
                    )),
                    _ => None,
                })
                .unwrap();
            (n, w)
        };
        assert_eq!(loads(plain), (32, 8));
        assert_eq!(loads(swz), (32, 1));
        assert!(scratch_wavefronts(swz) < scratch_wavefronts(plain));
        assert_eq!(swz.smem_elems, plain.smem_elems);
        assert_eq!(swz.cost(), plain.cost());
        for p in &plans {
            simulate(p, &an).unwrap_or_else(|e| panic!("{}: {e}", p.strategy));
        }
    }

    /// Conversions in which every CTA keeps its own elements but which and
    /// in what order depends on the CTA (`cluster_cta_dependent.mlir`):
    /// both plans are proven at every width, and every load of the reader
    /// reads its own CTA in every thread (plain `ld.shared`, nothing moves
    /// between CTAs).
    #[test]
    fn cta_dependent_cases_read_only_their_own_cta() {
        let cs = conversions("cluster_cta_dependent.mlir");
        assert!(!cs.is_empty());
        for c in &cs {
            let an = Analysis::new(c).unwrap();
            assert_eq!(an.class, Kind::Cluster, "{}", c.name);
            for bits in [8, 16, 32, 64] {
                let plans = cluster_plans(&an, &opt(bits));
                assert!((2..=8).contains(&plans.len()), "{}", c.name);
                for p in &plans {
                    simulate(p, &an).unwrap_or_else(|e| panic!("{} {bits}: {e}", c.name));
                }
                let readers = plans
                    .iter()
                    .filter(|p| p.cluster_variant() == Some(ClusterVariant::LoadRemote));
                for r in readers {
                    let Stage::ClusterLoad { load } = &r.stages[2] else {
                        panic!("{:?}", r.stages)
                    };
                    assert!((0..load.insts.len()).all(|i| load.local(i)), "{}", c.name);
                    assert_eq!(r.cost().ldcl, 0);
                    assert_eq!(
                        r.cluster_remote_elems(1 << an.src.hw.warp, an.src.hw.block),
                        0
                    );
                }
            }
        }
    }

    /// The reader's plan with one stage removed or changed.
    fn reader_without(an: &Analysis, f: &dyn Fn(&mut Plan)) -> Plan {
        let mut p = variant_of(&cluster_plans(an, &opt(32)), ClusterVariant::LoadRemote);
        f(&mut p);
        p
    }

    /// The simulator rejects every reader plan whose final cluster barrier
    /// is removed (a peer could return, reuse its scratch or exit while
    /// remote loads still read it) and every one whose middle barrier is
    /// removed (the loads would read before the stores are visible).
    #[test]
    fn simulator_rejects_reader_plans_missing_a_barrier() {
        for (c, an) in &cross_cta_cases() {
            let good = reader_without(an, &|_| {});
            simulate(&good, an).unwrap();
            let no_final = reader_without(an, &|p| {
                p.stages.remove(3);
            });
            assert!(
                matches!(
                    simulate(&no_final, an),
                    Err(SimError::ExitRace { stage: 2, .. })
                ),
                "{}: {:?}",
                c.name,
                simulate(&no_final, an)
            );
            let no_middle = reader_without(an, &|p| {
                p.stages.remove(1);
            });
            assert!(
                matches!(
                    simulate(&no_middle, an),
                    Err(SimError::RemoteNotVisible { stage: 1, .. })
                ),
                "{}: {:?}",
                c.name,
                simulate(&no_middle, an)
            );
        }
    }

    /// The simulator catches a reader plan that reads a slot nothing wrote
    /// (a scratch twice the size, a load moved into its unwritten half), a
    /// local store to another thread's slot, a
    /// wrong CTA, a CTA outside the cluster, and a vector off its alignment
    /// (the 2-CTA TTGIR module's split-M -> split-N at 16 bits stores
    /// `.v4.b32` vectors of 8 elements locally).
    #[test]
    fn simulator_rejects_broken_reader_plans() {
        let cs = conversions("cluster_cross_cta.mlir");
        let c = &cs[0];
        let an = Analysis::new(c).unwrap();
        let with_load = |f: &dyn Fn(&mut ClusterLoad)| {
            reader_without(&an, &|p| {
                if let Stage::ClusterLoad { load } = &mut p.stages[2] {
                    f(load);
                }
            })
        };
        let size = reader_without(&an, &|_| {}).smem_elems as u32;
        assert_eq!(size, 64);
        let mut unwritten = with_load(&|l| l.insts[0].offset ^= 64);
        unwritten.smem_elems *= 2;
        assert!(matches!(
            simulate(&unwritten, &an),
            Err(SimError::RemoteNotVisible { addr, .. }) if addr >= size
        ));
        let cta = with_load(&|l| l.insts[1].cta ^= 1);
        assert!(matches!(
            simulate(&cta, &an),
            Err(SimError::WrongElement { .. })
        ));
        let out = with_load(&|l| l.insts[1].cta ^= 2);
        assert!(matches!(
            simulate(&out, &an),
            Err(SimError::CtaOutOfRange { .. })
        ));
        // local stores of another thread's slot: a lane's element lost
        let wrong_store = reader_without(&an, &|p| {
            if let Stage::SmemStore { access } = &mut p.stages[0] {
                access.addr.lane[0] ^= 2;
            }
        });
        assert!(simulate(&wrong_store, &an).is_err());
        let cs = conversions("cluster2_blocked.mlir");
        let c = cs
            .iter()
            .find(|c| c.name.starts_with("split_m_to_n"))
            .unwrap();
        let an = Analysis::new(c).unwrap();
        let good = variant_of(&cluster_plans(&an, &opt(16)), ClusterVariant::LoadRemote);
        let Stage::SmemStore { access } = &good.stages[0] else {
            panic!("{:?}", good.stages)
        };
        assert!(access.insts.iter().all(|i| i.regs.len() == 8));
        simulate(&good, &an).unwrap();
        let mut bad = good.clone();
        if let Stage::SmemStore { access } = &mut bad.stages[0] {
            access.insts[0].offset ^= 1;
        }
        assert!(matches!(
            simulate(&bad, &an),
            Err(SimError::Misaligned { .. })
        ));
    }

    /// A remote vector load off its alignment is caught, in every reader
    /// plan of the test cases whose loads are vectors (at least one).
    #[test]
    fn misaligned_remote_vectors_are_caught() {
        let mut checked = 0;
        for (c, an) in &cross_cta_cases() {
            for bits in [8, 16, 32, 64] {
                let p = variant_of(&cluster_plans(an, &opt(bits)), ClusterVariant::LoadRemote);
                let Stage::ClusterLoad { load } = &p.stages[2] else {
                    panic!("{:?}", p.stages)
                };
                if load.insts[0].regs.len() < 2 {
                    continue;
                }
                let mut bad = p.clone();
                if let Stage::ClusterLoad { load } = &mut bad.stages[2] {
                    load.insts[0].offset ^= 1;
                }
                assert!(
                    matches!(simulate(&bad, an), Err(SimError::Misaligned { .. })),
                    "{} {bits}",
                    c.name
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "no reader plan loads remote vectors");
    }

    /// Where the source broadcasts over CTAs, the reader reads the element
    /// from its own CTA whenever that holds it: in the 4-CTA 1-D broadcast
    /// case (source block bit 1 a copy, every destination CTA needs all 64
    /// elements) every CTA reads the half it holds from itself and only
    /// the other half (32 elements) from a peer; one local store, two
    /// loads, where the writer stores four copies.
    #[test]
    fn reader_prefers_its_own_cta_among_broadcast_holders() {
        let cs = conversions("cluster_cross_cta.mlir");
        let c = cs
            .iter()
            .find(|c| c.name.starts_with("c4_1d_bcast"))
            .unwrap();
        let an = Analysis::new(c).unwrap();
        let plans = cluster_plans(&an, &opt(32));
        let p = variant_of(&plans, ClusterVariant::LoadRemote);
        let Stage::ClusterLoad { load } = &p.stages[2] else {
            panic!("{:?}", p.stages)
        };
        assert_eq!(load.insts.len(), 2);
        for b in 0..4u32 {
            // register k is element 32k + lane, held by CTAs with bit 0 = k
            for (k, inst) in load.insts.iter().enumerate() {
                for lane in 0..32 {
                    let cta = load.cta.base(lane, 0, b) ^ inst.cta;
                    assert_eq!(cta & 1, k as u32, "{b} {k}");
                    if b & 1 == k as u32 {
                        assert_eq!(cta, b, "block {b} register {k} lane {lane}");
                    }
                }
            }
            assert_eq!(load.remote_elems(1, b), 32);
        }
        assert_eq!(p.cluster_remote_elems(1, 2), 32);
        assert_eq!(p.smem_elems, 32);
        assert_eq!((p.cost().sts, p.cost().ldcl), (1, 2));
        // the cost model (its remote-access weights) prefers it to the
        // writer's four remote stores
        let w = crate::cost_model::Weights::default();
        let s = variant_of(&plans, ClusterVariant::StoreRemote);
        assert_eq!(s.cost().stcl, 4);
        assert!(w.score(&p) < w.score(&s));
    }

    /// Data that stays in its CTA is read with a plain `ld.shared`: in
    /// `c2_keep_half` register 0 of every destination thread is an element
    /// its own CTA holds in the source, so that load reads the own CTA in
    /// every thread ([`ClusterLoad::local`]) and costs an `lds`; register
    /// 1 comes from the peer (`ld.shared::cluster`).
    #[test]
    fn data_that_stays_in_its_cta_is_loaded_locally() {
        let cs = conversions("cluster_cross_cta.mlir");
        let c = cs
            .iter()
            .find(|c| c.name.starts_with("c2_keep_half"))
            .unwrap();
        let an = Analysis::new(c).unwrap();
        let p = variant_of(&cluster_plans(&an, &opt(32)), ClusterVariant::LoadRemote);
        let Stage::ClusterLoad { load } = &p.stages[2] else {
            panic!("{:?}", p.stages)
        };
        assert_eq!(load.insts.len(), 2);
        assert!(load.local(0));
        assert!(!load.local(1));
        assert_eq!((p.cost().lds, p.cost().ldcl), (1, 1));
        for b in 0..2 {
            assert_eq!(load.remote_elems(1, b), 32);
        }
        simulate(&p, &an).unwrap();
    }

    /// The writer's stores into other CTAs need the entry barrier (a peer
    /// may not have started, or may still read its scratch): without it the
    /// simulator refuses the plan.
    #[test]
    fn writer_without_entry_barrier_is_rejected() {
        for (c, an) in &cross_cta_cases() {
            let mut p = variant_of(&cluster_plans(an, &opt(32)), ClusterVariant::StoreRemote);
            assert!(matches!(p.stages[0], Stage::ClusterBarrier));
            p.stages.remove(0);
            assert!(
                matches!(
                    simulate(&p, an),
                    Err(SimError::RemoteBeforeBarrier { stage: 0, .. })
                ),
                "{}: {:?}",
                c.name,
                simulate(&p, an)
            );
        }
    }

    /// The 2-CTA 1-D case by hand: 128 elements, CTA b holds [64b, 64b+64)
    /// (lane bits 1..5, register bit 0); afterwards CTA b holds the 32-blocks
    /// b and b+2 (register bit = 64). Each thread keeps one element and
    /// sends one: 32 lanes x 1 x 4 bytes = 128 bytes per CTA; the scratch is
    /// the destination's 64 elements per CTA.
    #[test]
    fn two_cta_halves_move_half_their_data() {
        let c = &conversions("cluster_cross_cta.mlir")[0];
        let an = Analysis::new(c).unwrap();
        assert_eq!(an.class, Kind::Cluster);
        let p = &variant_of(&cluster_plans(&an, &opt(32)), ClusterVariant::StoreRemote);
        assert_eq!(p.smem_elems, 64);
        assert_eq!(p.cluster_remote_elems(1, 1), 32);
        assert_eq!(p.cost().stcl, 2);
        // the destination's register bit is offset bit 0 (the scratch basis
        // takes registers first), lanes above it: one `.v2` load
        assert_eq!(p.cost().lds, 1);
    }

    /// Broadcast destination block bits: one store per destination copy.
    #[test]
    fn broadcast_destinations_get_one_store_per_copy() {
        let cs = conversions("cluster_cross_cta.mlir");
        let c = cs
            .iter()
            .find(|c| c.name.starts_with("c4_1d_bcast"))
            .unwrap();
        let an = Analysis::new(c).unwrap();
        let p = &variant_of(&cluster_plans(&an, &opt(32)), ClusterVariant::StoreRemote);
        // one source register, the destination's 4 CTAs all hold it
        assert_eq!(p.cost().stcl, 4);
        // source block bit 1 is a broadcast: CTAs 2 and 3 hold copies of
        // CTAs 0 and 1 and store nothing; CTA 0 sends 3 copies of 32
        assert_eq!(p.cluster_remote_elems(1, 2), 3 * 32);
        let Stage::ClusterStore { store } = &p.stages[1] else {
            panic!("{:?}", p.stages)
        };
        assert_eq!(store.skip_block, 2);
        assert_eq!(store.remote_elems(1, 2), 0);
        assert_eq!(store.remote_elems(1, 3), 0);
    }

    /// The simulator catches a wrong offset, a wrong CTA, a thread that
    /// skips stores it must make, and a missing barrier.
    #[test]
    fn simulator_rejects_broken_cluster_plans() {
        let c = &conversions("cluster_cross_cta.mlir")[0];
        let an = Analysis::new(c).unwrap();
        let good = variant_of(&cluster_plans(&an, &opt(32)), ClusterVariant::StoreRemote);
        let store_at = good
            .stages
            .iter()
            .position(|s| matches!(s, Stage::ClusterStore { .. }))
            .unwrap();
        let with_store = |f: &dyn Fn(&mut ClusterStore)| {
            let mut p = good.clone();
            if let Stage::ClusterStore { store } = &mut p.stages[store_at] {
                f(store);
            }
            p
        };
        let off = with_store(&|s| s.insts[1].offset ^= 1);
        assert!(matches!(
            simulate(&off, &an),
            Err(SimError::StoreConflict { .. } | SimError::WrongElement { .. })
        ));
        let cta = with_store(&|s| s.insts[1].cta ^= 1);
        assert!(simulate(&cta, &an).is_err());
        let out = with_store(&|s| s.insts[1].cta ^= 2);
        assert!(matches!(
            simulate(&out, &an),
            Err(SimError::CtaOutOfRange { .. })
        ));
        // lane 0 holds different elements from lane 1: skipping it loses data
        let lost = with_store(&|s| s.skip_lane = 1);
        assert!(matches!(
            simulate(&lost, &an),
            Err(SimError::NotVisible { .. })
        ));
        let mut nobar = good.clone();
        nobar.stages.remove(store_at + 1);
        assert!(matches!(
            simulate(&nobar, &an),
            Err(SimError::NotVisible { .. })
        ));
    }

    /// The 2-CTA TTGIR module's split-M -> split-N (f16, 4 warps, 32
    /// registers): 8 consecutive source registers go to 8 consecutive
    /// offsets of one CTA, so each thread stores four `.v4.b32` vectors;
    /// a vector moved off its alignment is caught.
    #[test]
    fn remote_stores_are_vectorised_where_registers_are_consecutive() {
        let cs = conversions("cluster2_blocked.mlir");
        let c = cs
            .iter()
            .find(|c| c.name.starts_with("split_m_to_n"))
            .unwrap();
        let an = Analysis::new(c).unwrap();
        let p = variant_of(&cluster_plans(&an, &opt(16)), ClusterVariant::StoreRemote);
        assert_eq!(p.cost().stcl, 4, "{}", p.strategy);
        let Stage::ClusterStore { store } = &p.stages[1] else {
            panic!("{:?}", p.stages)
        };
        assert!(store.insts.iter().all(|i| i.regs.len() == 8));
        // half of each CTA's 4096 elements go to the other CTA
        assert_eq!(p.cluster_remote_elems(4, 1), 2048);
        simulate(&p, &an).unwrap();
        let mut bad = p.clone();
        if let Stage::ClusterStore { store } = &mut bad.stages[1] {
            store.insts[0].offset ^= 1;
        }
        assert!(matches!(
            simulate(&bad, &an),
            Err(SimError::Misaligned { .. })
        ));
    }

    /// Below sm_90, with a forced strategy, or over the scratch limit: a
    /// clear error, no plan.
    #[test]
    fn refusals_name_the_reason() {
        let c = &conversions("cluster_cross_cta.mlir")[0];
        let an = Analysis::new(c).unwrap();
        let old = SharedOptions { sm: 80, ..opt(32) };
        let e = refusal(&an, StrategyChoice::Auto, &old)
            .unwrap()
            .to_string();
        assert!(e.contains("sm_80") && e.contains("across CTAs"), "{e}");
        assert!(cluster_plans(&an, &old).is_empty());
        let e = refusal(&an, StrategyChoice::Shuffle, &opt(32))
            .unwrap()
            .to_string();
        assert!(e.contains("cluster strategy"), "{e}");
        let small = SharedOptions {
            max_smem: Some(128),
            ..opt(32)
        };
        assert!(matches!(
            refusal(&an, StrategyChoice::Auto, &small),
            Some(PlanError::SmemTooLarge { need: 256, .. })
        ));
        assert!(refusal(&an, StrategyChoice::Auto, &opt(32)).is_none());
    }
}
