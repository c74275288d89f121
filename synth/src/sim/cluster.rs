//! The simulator of cluster plans (docs/ARCHITECTURE.md 4.7): every CTA of
//! the cluster runs at once, each with its own scratch. Remote stores
//! (`st.shared::cluster` after `mapa`, [`Stage::ClusterStore`]) write into
//! the target CTA's scratch, local stores ([`Stage::SmemStore`]) into the
//! own CTA's; a cluster barrier ([`Stage::ClusterBarrier`],
//! `barrier.cluster.arrive.release` + `wait.acquire`) makes every store
//! before it visible to every thread of the cluster; local loads
//! ([`Stage::SmemLoad`]) and remote loads (`ld.shared::cluster` after
//! `mapa`, [`Stage::ClusterLoad`], from the scratch of the CTA they name)
//! read only what a barrier made visible. Errors: two different values
//! stored to one slot between barriers, a read of a slot nothing visible
//! wrote, a vector off its alignment, a CTA outside the cluster, a store
//! into another CTA before the first cluster barrier (the peer may not have
//! started or may still use its scratch), and an access to another CTA's
//! scratch that no cluster barrier follows (the peer could return, reuse its
//! scratch or exit while it is in flight). Afterwards every destination
//! register of every thread of every CTA must hold its element's tag, as in
//! [`super::simulate`].

use super::{check_destination, move_registers, reg_at, SimError, SimReport};
use crate::plan::ir::{ClusterInst, SmemAccess};
use crate::plan::{Analysis, Plan, Stage};
use std::collections::HashMap;

/// Run the cluster plan `plan` for `an` on every CTA and prove it.
pub(super) fn simulate_cluster(plan: &Plan, an: &Analysis) -> Result<SimReport, SimError> {
    let warps = 1u32 << an.src.hw.warp;
    let lanes = 1u32 << an.src.hw.lane;
    let ctas = 1u32 << an.src.hw.block;
    let threads = (warps * 32) as usize;
    // regs[cta][warp * 32 + lane]
    let mut regs: Vec<Vec<Vec<u64>>> = (0..ctas)
        .map(|b| {
            (0..threads as u32)
                .map(|t| {
                    (0..an.src_regs())
                        .map(|r| {
                            an.src
                                .tag(r as u64, (t % 32) as u64, (t / 32) as u64, b as u64)
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    // smem[cta][offset] = (value, barrier epoch of the store)
    let mut smem: Vec<HashMap<u32, (u64, u32)>> = vec![HashMap::new(); ctas as usize];
    let mut epoch = 0u32;
    // the first access to another CTA's scratch that no cluster barrier has
    // followed yet: (stage, block, CTA)
    let mut in_flight: Option<(usize, u32, u32)> = None;
    for (si, stage) in plan.stages.iter().enumerate() {
        let kind = stage.name();
        match stage {
            Stage::RegRename { .. } | Stage::Select { .. } | Stage::Shuffle { .. } => {
                for r in regs.iter_mut() {
                    move_registers(stage, si, warps, lanes, r)?;
                }
            }
            Stage::ClusterBarrier => {
                epoch += 1;
                in_flight = None;
            }
            Stage::ClusterStore { store } => {
                for b in 0..ctas {
                    for w in 0..warps {
                        for lane in (0..32u32).filter(|&l| store.stores(l, w, b)) {
                            let v = &regs[b as usize][(w * 32 + lane) as usize];
                            let cbase = store.cta.base(lane, w, b);
                            let obase = store.addr.base(lane, w, b);
                            for inst in &store.insts {
                                let (cta, first, _) =
                                    remote_target(si, (b, w, lane), cbase, obase, inst, ctas)?;
                                if cta != b {
                                    note_remote(si, b, cta, epoch, &mut in_flight)?;
                                }
                                for (e, &reg) in inst.regs.iter().enumerate() {
                                    let value = reg_at(v, reg, si, kind)?;
                                    let addr = first + e as u32;
                                    in_scratch(si, addr, plan.smem_elems)?;
                                    let slot =
                                        smem[cta as usize].entry(addr).or_insert((value, epoch));
                                    if slot.1 == epoch && slot.0 != value {
                                        return Err(SimError::StoreConflict { stage: si, addr });
                                    }
                                    *slot = (value, epoch);
                                }
                            }
                        }
                    }
                }
            }
            Stage::SmemStore { access } => {
                for (b, cta) in smem.iter_mut().enumerate() {
                    local_store(cta, &regs[b], access, si, epoch, warps, plan.smem_elems)?;
                }
            }
            Stage::ClusterLoad { load } => {
                let n: usize = load.insts.iter().map(|i| i.regs.len()).sum();
                let mut next: Vec<Vec<Vec<u64>>> =
                    vec![vec![Vec::with_capacity(n); threads]; ctas as usize];
                for b in 0..ctas {
                    for w in 0..warps {
                        for lane in 0..32u32 {
                            let out = &mut next[b as usize][(w * 32 + lane) as usize];
                            let cbase = load.cta.base(lane, w, b);
                            let obase = load.addr.base(lane, w, b);
                            for inst in &load.insts {
                                let (cta, first, len) =
                                    remote_target(si, (b, w, lane), cbase, obase, inst, ctas)?;
                                for addr in first..first + len {
                                    in_scratch(si, addr, plan.smem_elems)?;
                                    // visible: stored before a cluster barrier
                                    let v = smem[cta as usize]
                                        .get(&addr)
                                        .filter(|x| x.1 < epoch)
                                        .map(|x| x.0)
                                        .ok_or(SimError::RemoteNotVisible {
                                            stage: si,
                                            block: b,
                                            warp: w,
                                            cta,
                                            addr,
                                        })?;
                                    out.push(v);
                                }
                                if cta != b {
                                    // (a load sees nothing before the first
                                    // barrier, so this is the same check as
                                    // for stores, kept for symmetry)
                                    note_remote(si, b, cta, epoch, &mut in_flight)?;
                                }
                            }
                        }
                    }
                }
                for (rb, nb) in regs.iter_mut().zip(next) {
                    for (r, x) in rb.iter_mut().zip(nb) {
                        r.extend(x);
                    }
                }
            }
            Stage::SmemLoad { access } => {
                if !access.guard.is_all() {
                    // a load's threads all execute it (only stores take turns)
                    return Err(SimError::Unsupported {
                        stage: si,
                        kind: "SmemLoad (by some warps only)",
                    });
                }
                let n: usize = access.insts.iter().map(|i| i.regs.len()).sum();
                for b in 0..ctas as usize {
                    let mut next: Vec<Vec<u64>> = vec![vec![0; n]; threads];
                    for w in 0..warps {
                        let mut base = 0usize;
                        for (ii, inst) in access.insts.iter().enumerate() {
                            let slots = access
                                .element_slots(ii, w)
                                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
                            for (lane, e, a) in slots {
                                in_scratch(si, a, plan.smem_elems)?;
                                // visible: stored before a cluster barrier
                                let v =
                                    smem[b].get(&a).filter(|x| x.1 < epoch).map(|x| x.0).ok_or(
                                        SimError::NotVisible {
                                            stage: si,
                                            warp: w,
                                            addr: a,
                                        },
                                    )?;
                                next[(w * 32 + lane) as usize][base + e as usize] = v;
                            }
                            base += inst.regs.len();
                        }
                    }
                    for (r, x) in regs[b].iter_mut().zip(next) {
                        r.extend(x);
                    }
                }
            }
            Stage::Barrier { .. }
            | Stage::BytePerm { .. }
            | Stage::Pack { .. }
            | Stage::Unpack { .. } => return Err(SimError::Unsupported { stage: si, kind }),
        }
    }
    if let Some((stage, block, cta)) = in_flight {
        return Err(SimError::ExitRace { stage, block, cta });
    }
    let mut report = SimReport {
        threads: (ctas * warps * 32) as u64,
        ..Default::default()
    };
    for (b, cta) in regs.iter().enumerate() {
        report.slots += check_destination(an, b as u32, cta)?;
    }
    Ok(report)
}

/// The local stores of `access` by every thread of one CTA (registers of
/// thread `32 * warp + lane` in `regs[32 * warp + lane]`) into that CTA's
/// scratch `smem` (offset -> (value, barrier epoch of the store)): two
/// different values in one slot within one epoch are a conflict.
fn local_store(
    smem: &mut HashMap<u32, (u64, u32)>,
    regs: &[Vec<u64>],
    access: &SmemAccess,
    si: usize,
    epoch: u32,
    warps: u32,
    size: u64,
) -> Result<(), SimError> {
    for w in (0..warps).filter(|&w| access.guard.active(w)) {
        for (ii, inst) in access.insts.iter().enumerate() {
            let slots = access
                .element_slots(ii, w)
                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
            for (lane, e, addr) in slots {
                in_scratch(si, addr, size)?;
                let r = inst.regs[e as usize] ^ access.reg_xor.base(lane, w);
                let value = reg_at(&regs[(w * 32 + lane) as usize], r, si, "SmemStore")?;
                let slot = smem.entry(addr).or_insert((value, epoch));
                if slot.1 == epoch && slot.0 != value {
                    return Err(SimError::StoreConflict { stage: si, addr });
                }
                *slot = (value, epoch);
            }
        }
    }
    Ok(())
}

/// The CTA, first element offset and length of remote vector `inst` of
/// thread `(block, warp, lane)` whose CTA and offset bases are `cbase` and
/// `obase` (stage `si`). Errors: a vector off its alignment
/// ([`SimError::Misaligned`]), a CTA outside the cluster's `ctas`
/// ([`SimError::CtaOutOfRange`]).
/// `addr` lies in a scratch of `size` elements; else
/// [`SimError::SmemOutOfRange`].
fn in_scratch(si: usize, addr: u32, size: u64) -> Result<(), SimError> {
    if addr as u64 >= size {
        return Err(SimError::SmemOutOfRange {
            stage: si,
            addr,
            size,
        });
    }
    Ok(())
}

/// An access of CTA `b` at stage `si` to the scratch of another CTA `cta`:
/// it needs a cluster barrier before it (`epoch` > 0; else
/// [`SimError::RemoteBeforeBarrier`]) and one after it, so it stays
/// `in_flight` (the first such access) until the next barrier.
fn note_remote(
    si: usize,
    b: u32,
    cta: u32,
    epoch: u32,
    in_flight: &mut Option<(usize, u32, u32)>,
) -> Result<(), SimError> {
    if epoch == 0 {
        return Err(SimError::RemoteBeforeBarrier {
            stage: si,
            block: b,
            cta,
        });
    }
    in_flight.get_or_insert((si, b, cta));
    Ok(())
}

fn remote_target(
    si: usize,
    (b, w, lane): (u32, u32, u32),
    cbase: u32,
    obase: u32,
    inst: &ClusterInst,
    ctas: u32,
) -> Result<(u32, u32, u32), SimError> {
    let cta = cbase ^ inst.cta;
    let first = obase ^ inst.offset;
    let len = inst.regs.len() as u32;
    if len == 0 || first % len != 0 {
        return Err(SimError::Misaligned {
            stage: si,
            detail: format!(
                "block {b} warp {w} lane {lane}: {len}-element remote vector at element offset {first}"
            ),
        });
    }
    if cta >= ctas {
        return Err(SimError::CtaOutOfRange {
            stage: si,
            block: b,
            cta,
            ctas,
        });
    }
    Ok((cta, first, len))
}
