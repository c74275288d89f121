//! Warp-local conversions in which every thread already holds every element
//! it needs, but which source register holds it depends on the lane: lane
//! selects (`selp`) and a renaming, no shuffle.
//!
//! It happens where the source broadcasts along a lane bit (a `blocked`
//! tile wider than the tensor: lanes `l` and `l ^ 16` hold the same
//! elements) and the destination spreads that dimension over the same lane
//! bit: each lane keeps half of what it holds, which half chosen by the lane.
//! The shuffle decomposition (`super::shuffle`) pairs the lane bit with a
//! register bit as a transposition and shuffles across lanes that hold the
//! same data; the lower bound (`super::bound`) counts no element that moves.
//!
//! The method (GF(2), [`crate::gf2`]): with `A` the source and `B` the
//! destination, equal warp and block bases, destination register `r` of lane
//! `L` holds the element `B_r r ^ B_l L`, which lane `L` holds in the source
//! register `r'` with `A_r r' = B_r r ^ (B_l ^ A_l) L`. When every
//! destination register basis vector and every `B_l ^ A_l` column lies in the
//! span of the source register bases, `r' = base(r) ^ sum_j L_j d_j` (`d_j`
//! solved per lane bit `j`). With `v_1..v_k` a basis of the `d_j` and `m_i`
//! the lane bits whose `d_j` contain `v_i`, `r' = base(r) ^ sum_i parity(L &
//! m_i) v_i`: `k` select stages (`out[x] = parity(L & m_i) ? in[x ^ v_i] :
//! in[x]`, only the entries later stages read), then the renaming `dst[r] =
//! out[base(r)]`.

use super::analysis::{span, Analysis};
use super::ir::{compact, Plan, Rounds, SelEntry, Stage};
use super::strategy::{ShuffleMode, ShuffleStrategy, ShuffleVariant, Strategy};
use super::{Kind, LANE_BITS_SERVED};

/// The select plan of `an` (`shuffle/select/own`), when the conversion is
/// warp-local, moves no element between threads and its warp and block
/// bases agree; `None` otherwise (and for register-only conversions, which
/// `super::rename` serves).
pub fn select_plan(an: &Analysis) -> Option<Plan> {
    let (a, b) = (&an.src, &an.dst);
    if an.class != Kind::Shuffle
        || a.warp != b.warp
        || a.block != b.block
        || !LANE_BITS_SERVED.contains(&a.lane.len())
        || b.lane.len() != a.lane.len()
    {
        return None;
    }
    let m = span(an.tensor_bits, &a.reg);
    let e = m.echelon();
    let solve = |v: u64| m.solve_with(&e, v);
    let base_cols: Vec<u64> = b.reg.iter().map(|&v| solve(v)).collect::<Option<_>>()?;
    let d: Vec<u64> = (0..a.lane.len())
        .map(|j| solve(b.lane[j] ^ a.lane[j]))
        .collect::<Option<_>>()?;
    // a basis of the d_j, and each lane bit's combination of it
    let mut basis: Vec<u64> = Vec::new();
    let mut masks: Vec<u32> = Vec::new();
    for (j, &dj) in d.iter().enumerate() {
        if dj == 0 {
            continue;
        }
        let combo = (0..1u32 << basis.len()).find(|&c| {
            (0..basis.len())
                .filter(|&i| c >> i & 1 == 1)
                .fold(0u64, |x, i| x ^ basis[i])
                == dj
        });
        match combo {
            Some(c) => {
                for (i, mk) in masks.iter_mut().enumerate() {
                    if c >> i & 1 == 1 {
                        *mk |= 1 << j;
                    }
                }
            }
            None => {
                basis.push(dj);
                masks.push(1 << j);
            }
        }
    }
    if basis.is_empty() {
        // no lane dependence: a renaming (served by `super::rename` when
        // the lanes agree; otherwise the data crosses lanes after all)
        return None;
    }
    let base = |r: u32| -> u32 {
        (0..base_cols.len())
            .filter(|&i| r >> i & 1 == 1)
            .fold(0u64, |x, i| x ^ base_cols[i]) as u32
    };
    let dst_regs = an.dst_regs();
    let k = basis.len();
    // the source registers each stage's output holds, last stage first
    let mut needed: Vec<Vec<u32>> = vec![Vec::new(); k + 1];
    needed[k] = (0..dst_regs).map(base).collect();
    needed[k].sort_unstable();
    needed[k].dedup();
    for i in (0..k).rev() {
        let v = basis[i] as u32;
        let mut n: Vec<u32> = needed[i + 1].iter().flat_map(|&x| [x, x ^ v]).collect();
        n.sort_unstable();
        n.dedup();
        needed[i] = n;
    }
    // stage i's input array is stage i-1's output (the source registers
    // themselves before the first stage)
    let src_regs = an.src_regs();
    let mut stages = Vec::new();
    let mut input: Vec<u32> = (0..src_regs).collect();
    for i in 0..k {
        let (v, mask) = (basis[i] as u32, masks[i]);
        let pos = |x: u32| input.binary_search(&x).expect("needed by a later stage") as u32;
        let entries: Vec<SelEntry> = needed[i + 1]
            .iter()
            .map(|&x| SelEntry {
                lane_mask: mask,
                if_set: pos(x ^ v),
                if_clear: pos(x),
            })
            .collect();
        stages.push(Stage::Select { entries });
        input = needed[i + 1].clone();
    }
    let map: Vec<u32> = (0..dst_regs)
        .map(|r| input.binary_search(&base(r)).expect("kept for the rename") as u32)
        .collect();
    stages.push(Stage::RegRename { map });
    let lanes: Vec<String> = masks.iter().map(|m| format!("{m:#x}")).collect();
    Some(Plan {
        // no shuffle: as a packed plan that shuffles nothing (`super::gather`)
        kind: Kind::Register,
        strategy: Strategy::Shuffle(ShuffleStrategy::elements(
            ShuffleVariant::Select,
            ShuffleMode::Own,
        )),
        src_regs,
        dst_regs,
        stages: compact(stages),
        smem_elems: 0,
        m: 0,
        elem_bits: 0,
        rounds: Rounds::NONE,
        notes: vec![format!(
            "every lane holds what it needs: {k} lane select stage(s) over lane masks [{}], no shuffle",
            lanes.join(" ")
        )],
        pack: None,
        lanes: 1 << an.src.hw.lane,
        first_warp: 0,
        register_budget: None,
    })
}
