//! Identity and register-only conversions: a compile-time renaming, zero
//! instructions.

use super::analysis::{span, Analysis};
use super::ir::{Plan, Rounds, Stage};
use super::strategy::Strategy;
use super::Kind;

/// The renaming plan, when the conversion is identity or register-only.
pub fn rename_plan(an: &Analysis) -> Option<Plan> {
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
            Strategy::Identity
        } else {
            Strategy::RegisterRename
        },
        src_regs: an.src_regs(),
        dst_regs: an.dst_regs(),
        stages: vec![Stage::RegRename { map }],
        smem_elems: 0,
        elem_bits: 0,
        rounds: Rounds::NONE,
        m: 0,
        notes: vec![],
        pack: None,
        lanes: 1 << an.src.hw.lane,
        first_warp: 0,
        register_budget: None,
    })
}
