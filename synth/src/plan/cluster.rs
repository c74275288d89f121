//! Conversions between the CTAs of a cluster through distributed shared
//! memory (docs/ARCHITECTURE.md 4.7; PTX ISA "Distributed Shared Memory",
//! `mapa`, `st.shared::cluster`, `barrier.cluster`; Triton PR 9317 lowers
//! such conversions through the swizzled shared-memory path with a CTA id
//! per access).
//!
//! The plan is *writer stores remotely*:
//! 1. a cluster barrier (every CTA has started and is done with its scratch);
//! 2. every thread stores each of its source registers into the scratch of
//!    every CTA that holds that element in the destination layout
//!    (`mapa.shared::cluster` + `st.shared::cluster`), at the element's
//!    offset in that CTA's *scratch layout*;
//! 3. a cluster barrier (release/acquire: the stores are visible);
//! 4. every thread loads its destination registers from its own CTA's
//!    scratch (`ld.shared`, vectorised where the layout allows).
//!
//! Remote stores are vectors (up to 128 bits) where consecutive source
//! registers go to consecutive offsets of one CTA.
//!
//! The scratch layout is the destination's own in-CTA map inverted: with
//! `S_B` the span of the destination's register, lane and warp columns and
//! `e_0..e_{k-1}` a basis of it taken from those columns (registers first),
//! element `t` of CTA `b` lives at offset `coord(t ^ B_block(b))`, the
//! coordinates of its in-CTA part in that basis. Destination thread
//! `(r, l, w)` then reads offset `coord(B_in(r, l, w))`, linear in its lane,
//! warp and register bits; the scratch holds `2^k` elements per CTA.
//!
//! A source element `t` is needed by the CTAs `b` with `t ^ B_block(b)` in
//! `S_B`: `b = D(t) ^ K`, where `D` is a linear section (the destination's
//! independent block columns) and `K` the destination's broadcast block
//! directions (block columns inside `S_B` modulo the others). Both the CTA
//! part `D(t)` and the offset `coord(t ^ B_block(D(t)))` are linear in `t`,
//! so linear in the storing thread's register, lane, warp and CTA bits:
//! [`ClusterMap`]s, plus one store per element and broadcast copy.
//!
//! Copies of a source element held by several registers of one thread store
//! once; lane, warp and CTA bits whose source column is zero (pure
//! broadcast) store from the threads with the bit clear only; other copies
//! held by several lanes, warps or CTAs (a column that repeats a
//! combination of others) all store the same value to the same place.

use super::analysis::Analysis;
use super::ir::{AddrMap, ClusterInst, ClusterMap, ClusterStore, SmemAccess, SmemInst, SmemInstr};
use super::{smem_limit, Kind, Plan, PlanError, SharedOptions, Stage, StrategyChoice};

/// Cluster barriers every cluster plan executes (entry, after the stores).
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

/// The scratch layout and the routing of a cluster conversion.
struct Routing {
    /// `dim S_B`: the scratch holds `2^k` elements per CTA.
    k: usize,
    elim: Labeled,
    /// Broadcast destination CTAs: `(CTA xor, offset xor)` per generator.
    copies: Vec<(u32, u32)>,
}

/// Labels at and above this bit name destination block columns.
const BLOCK_LABEL: u32 = 32;

impl Routing {
    fn new(an: &Analysis) -> Option<Routing> {
        let b = &an.dst;
        let mut elim = Labeled::default();
        let mut k = 0usize;
        for &c in b.reg.iter().chain(&b.lane).chain(&b.warp) {
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
    /// `coord(t ^ B_block(D(t)))`. `None` when the destination does not
    /// cover `t` (it is surjective, so never for a checked conversion).
    fn route(&self, t: u64) -> Option<(u32, u32)> {
        let (r, l) = self.elim.reduce(t);
        (r == 0).then_some(((l >> BLOCK_LABEL) as u32, l as u32))
    }
    /// Offset coordinates of an in-CTA destination column.
    fn coord(&self, t: u64) -> Option<u32> {
        self.route(t).filter(|x| x.0 == 0).map(|x| x.1)
    }
}

/// Why a cluster conversion cannot be planned for `choice` and `opt`
/// (`None`: [`cluster_plans`] applies). Errors: a strategy other than
/// `auto` forced ([`PlanError::CrossCta`]), a target below sm_90 (no
/// clusters, [`PlanError::CrossCta`]), a scratch over the target's or
/// `--max-smem`'s limit ([`PlanError::SmemTooLarge`]).
pub fn refusal(an: &Analysis, choice: StrategyChoice, opt: &SharedOptions) -> Option<PlanError> {
    if an.class != Kind::Cluster {
        return None;
    }
    let cross = |detail: String| {
        Some(PlanError::CrossCta {
            name: an.name.clone(),
            detail,
        })
    };
    if choice != StrategyChoice::Auto {
        return cross(format!(
            "only the cluster strategy (distributed shared memory) converts it, not --strategy {}",
            format!("{choice:?}").to_lowercase()
        ));
    }
    if opt.sm < CLUSTER_MIN_SM {
        return cross(format!(
            "that needs thread block clusters and distributed shared memory, which sm_{} lacks (sm_90 or newer)",
            opt.sm
        ));
    }
    let r = Routing::new(an)?;
    let need = (1u64 << r.k) * (opt.elem_bits as u64 / 8).max(1);
    let max = opt
        .max_smem
        .map_or(smem_limit(opt.sm), |m| m.min(smem_limit(opt.sm)));
    (need > max).then(|| PlanError::SmemTooLarge {
        name: an.name.clone(),
        need,
        max,
    })
}

/// The cluster plan of a conversion that moves data between CTAs (empty for
/// other conversions, below sm_90, or when its scratch exceeds the limit:
/// [`refusal`] says which). Element width `opt.elem_bits`.
pub fn cluster_plans(an: &Analysis, opt: &SharedOptions) -> Vec<Plan> {
    if an.class != Kind::Cluster || refusal(an, StrategyChoice::Auto, opt).is_some() {
        return Vec::new();
    }
    build(an, opt.elem_bits).into_iter().collect()
}

fn build(an: &Analysis, width: u32) -> Option<Plan> {
    let r = Routing::new(an)?;
    let (a, b) = (&an.src, &an.dst);
    let routes = |cols: &[u64]| -> Option<(Vec<u32>, Vec<u32>)> {
        let v: Vec<(u32, u32)> = cols.iter().map(|&c| r.route(c)).collect::<Option<_>>()?;
        Some(v.into_iter().unzip())
    };
    let (reg_cta, reg_off) = routes(&a.reg)?;
    let (lane_cta, lane_off) = routes(&a.lane)?;
    let (warp_cta, warp_off) = routes(&a.warp)?;
    let (block_cta, block_off) = routes(&a.block)?;
    let xor = |cols: &[u32], v: u32| {
        cols.iter()
            .enumerate()
            .filter(|(j, _)| v >> j & 1 == 1)
            .fold(0u32, |acc, (_, &c)| acc ^ c)
    };
    let xor64 = |cols: &[u64], v: u32| {
        cols.iter()
            .enumerate()
            .filter(|(j, _)| v >> j & 1 == 1)
            .fold(0u64, |acc, (_, &c)| acc ^ c)
    };
    // the lowest `sv` source register bits go to consecutive offsets of
    // one CTA: one vector store per `2^sv` registers
    let copy_offs: Vec<u32> = r.copies.iter().map(|x| x.1).collect();
    let sv = store_vector_bits(
        &reg_cta,
        &reg_off,
        &[&lane_off[..], &warp_off, &block_off, &copy_offs].concat(),
        width,
    );
    let n = 1u32 << sv;
    let mut seen = std::collections::HashSet::new();
    let mut insts = Vec::new();
    for reg in (0..an.src_regs()).step_by(n as usize) {
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
                regs: (reg..reg + n).collect(),
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
    };
    let src_regs = an.src_regs();
    let warps = 1u32 << a.hw.warp;
    let nctas = 1u32 << a.hw.block;
    let mut plan = Plan {
        kind: Kind::Cluster,
        strategy: format!("cluster/remote-store/st{n_store}/ld{n}"),
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
        rounds: 1,
        notes: Vec::new(),
        pack: None,
    };
    let remote = plan.cluster_remote_elems(warps, a.hw.block);
    plan.notes = vec![
        format!(
            "cluster of {nctas} CTAs (distributed shared memory, sm_90+): block index = %cluster_ctarank; launch with exactly this cluster size (__cluster_dims__ or cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension); every thread of every CTA must call it"
        ),
        format!(
            "cross-CTA bytes per CTA: {} ({remote} elements); cluster barriers: {CLUSTER_BARRIERS}",
            remote * width as u64 / 8
        ),
        "smem must be the same shared-memory address in every CTA of the cluster (the same allocation of the same kernel): remote stores go to the peer's copy of that address (mapa)".to_string(),
    ];
    Some(plan)
}

/// Source register bits a remote store takes as one vector (up to 128
/// bits): the lowest `v` source register columns must go to the own CTA
/// part (no CTA change) and to offset bits `0..v`, and no other part of the
/// offset (`others`: lanes, warps, CTA bits, destination copies, higher
/// registers) may set those bits.
fn store_vector_bits(cta: &[u32], off: &[u32], others: &[u32], width: u32) -> usize {
    let most = (128 / width.max(8)).trailing_zeros() as usize;
    (0..=most.min(off.len()))
        .rev()
        .find(|&v| {
            let low = (1u32 << v) - 1;
            (0..v).all(|j| off[j] == 1 << j && cta[j] == 0)
                && off[v..].iter().chain(others).all(|&c| c & low == 0)
        })
        .unwrap_or(0)
}

/// Register bits a local load takes as one vector (up to 128 bits): the
/// lowest `v` destination register columns must be offset bits `0..v` and
/// nothing else may set those bits (so every vector is aligned).
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

    /// Every cross-CTA case, at every element width, has exactly one
    /// cluster plan, and the simulator proves it for every CTA.
    #[test]
    fn every_cross_cta_case_is_proven_at_every_width() {
        let mut n = 0;
        for file in [
            "cluster_cross_cta.mlir",
            "cluster2_blocked.mlir",
            "cross_cta.mlir",
        ] {
            for c in conversions(file) {
                let an = Analysis::new(&c).unwrap();
                if an.class != Kind::Cluster {
                    continue;
                }
                n += 1;
                for bits in [8, 16, 32, 64] {
                    let plans = crate::plan::candidates(&an, StrategyChoice::Auto, &opt(bits));
                    assert_eq!(plans.len(), 1, "{}", c.name);
                    let p = &plans[0];
                    assert_eq!(p.cluster_barriers(), CLUSTER_BARRIERS);
                    assert_eq!(p.cost().cbar, CLUSTER_BARRIERS);
                    let rep = simulate(p, &an).unwrap_or_else(|e| panic!("{} {bits}: {e}", c.name));
                    assert_eq!(
                        rep.threads,
                        32u64 << (an.src.hw.warp + an.src.hw.block),
                        "{}",
                        c.name
                    );
                }
            }
        }
        assert_eq!(n, 8);
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
        let p = &cluster_plans(&an, &opt(32))[0];
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
        let p = &cluster_plans(&an, &opt(32))[0];
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
        let good = cluster_plans(&an, &opt(32)).remove(0);
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
        let p = cluster_plans(&an, &opt(16)).remove(0);
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
