//! Shared-memory round trips: store in the source layout, barrier, load in
//! the destination layout. Converts anything within a CTA.

use super::analysis::{span, Analysis};
use super::ir::{AddrMap, BarrierScope, Plan, Stage};
use super::Kind;
use crate::gf2::BitMatrix;

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
