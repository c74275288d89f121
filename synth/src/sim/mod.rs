//! CPU interpreter of a [`Plan`] over every thread of every CTA, with CUDA's
//! semantics (`__shfl_sync` width 32 with a full mask, `__shfl_up/down_sync`
//! keeping the own value out of range, shared memory visible to other warps
//! only after `__syncthreads()`, to the own warp after `__syncwarp()`), and the
//! tag proof of docs/ARCHITECTURE.md section 6: every source slot starts with the tag
//! (row-major linear index) of the element it holds; afterwards every
//! destination slot, replicas included, must hold the tag of its own element.
//! Shared-memory accesses are also counted in wavefronts (4-byte banks, 32
//! banks): extra wavefronts are bank conflicts.

use crate::plan::{Analysis, BarrierScope, Dir, Plan, ShflMode, Stage};

mod cluster;
mod packed;
mod words;

pub use packed::simulate_packed_form;

/// What a successful simulation checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SimReport {
    /// Threads simulated (all CTAs).
    pub threads: u64,
    /// Destination slots compared against their tags.
    pub slots: u64,
    /// Shared-memory wavefronts over all accesses of one CTA's warps.
    pub smem_wavefronts: u64,
    /// The fewest wavefronts those accesses could take (bytes moved per
    /// warp / 128 per access; one per matrix of `ldmatrix`/`stmatrix`).
    pub min_wavefronts: u64,
    /// Wavefronts beyond the minimum (bank conflicts).
    pub bank_conflicts: u64,
}

/// Why a plan failed the simulator.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("stage {stage} ({kind}): register {reg} read past the {len} registers of the thread")]
    RegOutOfRange {
        stage: usize,
        kind: &'static str,
        reg: u32,
        len: usize,
    },
    #[error("stage {stage} ({kind}) is not produced by any strategy yet and cannot be simulated")]
    Unsupported { stage: usize, kind: &'static str },
    #[error("stage {stage}: misaligned shared-memory access: {detail}")]
    Misaligned { stage: usize, detail: String },
    #[error("stage {stage}: shared address {addr} outside the {size}-element scratch")]
    SmemOutOfRange { stage: usize, addr: u32, size: u64 },
    #[error(
        "stage {stage}: two different values stored to shared address {addr} before a barrier"
    )]
    StoreConflict { stage: usize, addr: u32 },
    #[error("stage {stage}: warp {warp} loads shared address {addr}, which nothing visible to it has written (missing barrier?)")]
    NotVisible { stage: usize, warp: u32, addr: u32 },
    #[error("stage {stage}: block {block} accesses CTA {cta}, outside the {ctas}-CTA cluster")]
    CtaOutOfRange {
        stage: usize,
        block: u32,
        cta: u32,
        ctas: u32,
    },
    #[error("stage {stage}: block {block} warp {warp} reads element offset {addr} of CTA {cta}, which nothing visible to it has written (missing cluster barrier?)")]
    RemoteNotVisible {
        stage: usize,
        block: u32,
        warp: u32,
        cta: u32,
        addr: u32,
    },
    #[error("stage {stage}: block {block} accesses the scratch of CTA {cta} before any cluster barrier (that CTA may not have started, or may still use its scratch)")]
    RemoteBeforeBarrier { stage: usize, block: u32, cta: u32 },
    #[error("stage {stage}: block {block} accesses the scratch of CTA {cta} and no cluster barrier follows: that CTA may return, reuse its scratch or exit while the access is in flight")]
    ExitRace { stage: usize, block: u32, cta: u32 },
    #[error("plan ends with {got} registers per thread, the destination has {want}")]
    WrongRegisterCount { got: usize, want: u32 },
    #[error("plan starts from {got} source registers, the source has {want}")]
    WrongSourceCount { got: u32, want: u32 },
    #[error("wrong element: block {block} warp {warp} lane {lane} register {reg} holds element {got}, expected {want}")]
    WrongElement {
        block: u32,
        warp: u32,
        lane: u32,
        reg: u32,
        got: u64,
        want: u64,
    },
}

#[derive(Clone)]
struct Write {
    value: u64,
    cta_phase: u32,
    warp: u32,
    warp_phase: u32,
}

impl Write {
    /// Does a store by warp `w` of another value race with this write? Yes
    /// within one `__syncthreads()` epoch, unless both come from warp `w`
    /// with a `__syncwarp()` between them (rounds overwrite their scratch).
    fn races_with(&self, w: u32, phases: &[u32], cta_phase: u32) -> bool {
        self.cta_phase == cta_phase && (self.warp != w || self.warp_phase == phases[w as usize])
    }
}

/// The lane a shuffle entry with argument `arg` reads in lane `lane`
/// (`None`: the own lane), by the semantics of `shfl.sync` (width 32).
pub(crate) fn shfl_src(
    mode: ShflMode,
    lane_map: &[u32],
    arg: Option<u32>,
    lane: u32,
    lanes: u32,
) -> u32 {
    match (mode, arg) {
        (_, None) => lane,
        (ShflMode::Bfly, Some(c)) => (lane ^ c) & (lanes - 1),
        (ShflMode::Idx, Some(c)) => {
            let base = lane_map
                .iter()
                .enumerate()
                .filter(|(j, _)| lane >> j & 1 == 1)
                .fold(0u32, |a, (_, &col)| a ^ col);
            (base ^ c) & (lanes - 1)
        }
        (ShflMode::Up, Some(d)) => lane.checked_sub(d).unwrap_or(lane),
        (ShflMode::Down, Some(d)) => {
            if lane + d < lanes {
                lane + d
            } else {
                lane
            }
        }
    }
}

/// Register `r` of one thread's array, or the error naming the stage.
pub(crate) fn reg_at<V: Copy>(
    v: &[V],
    r: u32,
    stage: usize,
    kind: &'static str,
) -> Result<V, SimError> {
    v.get(r as usize).copied().ok_or(SimError::RegOutOfRange {
        stage,
        kind,
        reg: r,
        len: v.len(),
    })
}

/// Renames, selects and shuffles of per-thread register arrays (`regs[warp
/// * 32 + lane]`) of any value type: the stages both simulators share.
/// Returns `false` for other stages (left to the caller).
pub(crate) fn move_registers<V: Copy>(
    stage: &Stage,
    si: usize,
    warps: u32,
    lanes: u32,
    regs: &mut [Vec<V>],
) -> Result<bool, SimError> {
    let kind = stage.name();
    let get = |v: &Vec<V>, r: u32| reg_at(v, r, si, kind);
    match stage {
        Stage::RegRename { map } => {
            for v in regs.iter_mut() {
                *v = map.iter().map(|&r| get(v, r)).collect::<Result<_, _>>()?;
            }
        }
        Stage::Select { entries } => {
            for (t, v) in regs.iter_mut().enumerate() {
                let lane = t as u32 % lanes;
                *v = entries
                    .iter()
                    .map(|e| {
                        let set = (lane & e.lane_mask).count_ones() & 1 == 1;
                        get(v, if set { e.if_set } else { e.if_clear })
                    })
                    .collect::<Result<_, _>>()?;
            }
        }
        Stage::Shuffle {
            mode,
            lane_map,
            entries,
        } => {
            let old = regs.to_vec();
            for w in 0..warps {
                for lane in 0..lanes {
                    let mut out = Vec::with_capacity(entries.len());
                    for e in entries {
                        let src = shfl_src(*mode, lane_map, e.arg, lane, lanes);
                        out.push(get(&old[(w * lanes + src) as usize], e.reg)?);
                    }
                    regs[(w * lanes + lane) as usize] = out;
                }
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The [`SimReport::bank_conflicts`] that [`simulate`] reports for `plan`
/// once it proves it, computed from the accesses alone: per shared-memory
/// instruction, its wavefronts over the fewest its bytes allow, in the first
/// warp that executes it, times the warps that do (the same in every warp:
/// a warp's address part XORs a constant onto every lane's). `None` for the
/// plans [`simulate`] runs by another simulator (word and cluster plans).
pub fn predicted_bank_conflicts(plan: &Plan, an: &Analysis) -> Option<u64> {
    if plan.packs_words() || plan.is_cluster() {
        return None;
    }
    let warps = 1u32 << an.src.hw.warp;
    let mut n = 0u64;
    for st in &plan.stages {
        let (access, dir) = match st {
            Stage::SmemStore { access } => (access, Dir::Store),
            Stage::SmemLoad { access } => (access, Dir::Load),
            _ => continue,
        };
        let active: Vec<u32> = (0..warps).filter(|&w| access.guard.active(w)).collect();
        let Some(&w0) = active.first() else { continue };
        for ii in 0..access.insts.len() {
            let wf = access.wavefronts(ii, w0, dir);
            let min = access.min_wavefronts(ii, w0, dir);
            n += (wf - min) * active.len() as u64;
        }
    }
    Some(n)
}

/// Run `plan` for the conversion `an` and prove it with tags. Plans that
/// carry words ([`Plan::packs_words`]) are run byte by byte.
pub fn simulate(plan: &Plan, an: &Analysis) -> Result<SimReport, SimError> {
    if plan.src_regs != an.src_regs() {
        return Err(SimError::WrongSourceCount {
            got: plan.src_regs,
            want: an.src_regs(),
        });
    }
    if plan.packs_words() {
        return words::simulate_words(plan, an);
    }
    if plan.is_cluster() {
        return cluster::simulate_cluster(plan, an);
    }
    if plan.src_regs != an.src_regs() {
        return Err(SimError::WrongSourceCount {
            got: plan.src_regs,
            want: an.src_regs(),
        });
    }
    let warps = 1u32 << an.src.hw.warp;
    let lanes = 1u32 << an.src.hw.lane;
    let blocks = 1u32 << an.src.hw.block;
    let mut report = SimReport {
        threads: (blocks * warps * lanes) as u64,
        ..Default::default()
    };
    for blk in 0..blocks {
        // regs[warp*32 + lane]
        let mut regs: Vec<Vec<u64>> = (0..warps * lanes)
            .map(|t| {
                let (w, l) = (t / lanes, t % lanes);
                an.src
                    .thread_tags(an.src_regs() as u64, l as u64, w as u64, blk as u64)
            })
            .collect();
        // the writes to each scratch element (addresses are checked against
        // `smem_elems` before use)
        let mut smem: Vec<Vec<Write>> = vec![Vec::new(); plan.smem_elems as usize];
        let mut cta_phase = 0u32;
        let mut warp_phase = vec![0u32; warps as usize];
        for (si, stage) in plan.stages.iter().enumerate() {
            let kind = stage.name();
            let get = |v: &Vec<u64>, r: u32| reg_at(v, r, si, kind);
            match stage {
                Stage::RegRename { .. } | Stage::Select { .. } | Stage::Shuffle { .. } => {
                    move_registers(stage, si, warps, lanes, &mut regs)?;
                }
                Stage::SmemStore { access } => {
                    let mut wave: Vec<Option<(u64, u64)>> = vec![None; access.insts.len()];
                    for w in (0..warps).filter(|&w| access.guard.active(w)) {
                        for (ii, inst) in access.insts.iter().enumerate() {
                            let slots = access
                                .element_slots(ii, w)
                                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
                            for (lane, e, a) in slots {
                                if a as u64 >= plan.smem_elems {
                                    return Err(SimError::SmemOutOfRange {
                                        stage: si,
                                        addr: a,
                                        size: plan.smem_elems,
                                    });
                                }
                                let r = inst.regs[e as usize] ^ access.reg_xor.base(lane, w);
                                let value = get(&regs[(w * lanes + lane) as usize], r)?;
                                let ws = &mut smem[a as usize];
                                // Only the writes of this epoch and of the
                                // latest earlier one can still be seen: a
                                // load finds the latest visible write, and
                                // one of that earlier epoch always is (its
                                // epoch is before any later load's).
                                if let Some(last) = ws.last().map(|x| x.cta_phase) {
                                    if last < cta_phase && ws[0].cta_phase < last {
                                        ws.retain(|x| x.cta_phase >= last);
                                    }
                                }
                                if ws.iter().any(|x| {
                                    x.races_with(w, &warp_phase, cta_phase) && x.value != value
                                }) {
                                    return Err(SimError::StoreConflict { stage: si, addr: a });
                                }
                                ws.push(Write {
                                    value,
                                    cta_phase,
                                    warp: w,
                                    warp_phase: warp_phase[w as usize],
                                });
                            }
                            if blk == 0 {
                                // the same in every warp (the warp's address
                                // part XORs a constant onto every lane's)
                                let (wf, min) = *wave[ii].get_or_insert_with(|| {
                                    (
                                        access.wavefronts(ii, w, Dir::Store),
                                        access.min_wavefronts(ii, w, Dir::Store),
                                    )
                                });
                                report.smem_wavefronts += wf;
                                report.min_wavefronts += min;
                                report.bank_conflicts += wf - min;
                            }
                        }
                    }
                }
                Stage::Barrier { scope } => match scope {
                    BarrierScope::Cta | BarrierScope::Named { .. } => cta_phase += 1,
                    BarrierScope::Warp => warp_phase.iter_mut().for_each(|p| *p += 1),
                },
                Stage::SmemLoad { access } => {
                    if !access.guard.is_all() {
                        // a load's threads all execute it (only stores take turns)
                        return Err(SimError::Unsupported {
                            stage: si,
                            kind: "SmemLoad (by some warps only)",
                        });
                    }
                    let n: usize = access.insts.iter().map(|i| i.regs.len()).sum();
                    let mut next: Vec<Vec<u64>> = vec![Vec::new(); (warps * lanes) as usize];
                    let mut wave: Vec<Option<(u64, u64)>> = vec![None; access.insts.len()];
                    for w in 0..warps {
                        let mut per_lane: Vec<Vec<u64>> = vec![vec![0; n]; lanes as usize];
                        let mut base = 0usize;
                        for (ii, inst) in access.insts.iter().enumerate() {
                            let slots = access
                                .element_slots(ii, w)
                                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
                            for (lane, e, a) in slots {
                                if a as u64 >= plan.smem_elems {
                                    return Err(SimError::SmemOutOfRange {
                                        stage: si,
                                        addr: a,
                                        size: plan.smem_elems,
                                    });
                                }
                                let visible = smem.get(a as usize).and_then(|ws| {
                                    ws.iter()
                                        .rev()
                                        .find(|x| {
                                            x.cta_phase < cta_phase
                                                || (x.warp == w
                                                    && x.warp_phase < warp_phase[w as usize])
                                        })
                                        .map(|x| x.value)
                                });
                                let v = visible.ok_or(SimError::NotVisible {
                                    stage: si,
                                    warp: w,
                                    addr: a,
                                })?;
                                per_lane[lane as usize][base + e as usize] = v;
                            }
                            base += inst.regs.len();
                            if blk == 0 {
                                // the same in every warp (the warp's address
                                // part XORs a constant onto every lane's)
                                let (wf, min) = *wave[ii].get_or_insert_with(|| {
                                    (
                                        access.wavefronts(ii, w, Dir::Load),
                                        access.min_wavefronts(ii, w, Dir::Load),
                                    )
                                });
                                report.smem_wavefronts += wf;
                                report.min_wavefronts += min;
                                report.bank_conflicts += wf - min;
                            }
                        }
                        for (lane, v) in per_lane.into_iter().enumerate() {
                            next[(w * lanes) as usize + lane] = v;
                        }
                    }
                    for (r, n) in regs.iter_mut().zip(next) {
                        r.extend(n);
                    }
                }
                Stage::BytePerm { .. }
                | Stage::Pack { .. }
                | Stage::Unpack { .. }
                | Stage::ClusterStore { .. }
                | Stage::ClusterLoad { .. }
                | Stage::ClusterBarrier => return Err(SimError::Unsupported { stage: si, kind }),
            }
        }
        report.slots += check_destination(an, blk, &regs)?;
    }
    Ok(report)
}

/// Check that every thread of CTA `block` (`regs[thread][register]`, thread
/// = lanes * warp + lane) holds the destination layout's element in every
/// register; returns the slots checked. Errors: a thread with another
/// register count, or the first wrong element (block, warp, lane, register,
/// found and expected tags).
pub(crate) fn check_destination(
    an: &Analysis,
    block: u32,
    regs: &[Vec<u64>],
) -> Result<u64, SimError> {
    let mut slots = 0;
    let lanes = 1u32 << an.src.hw.lane;
    for (t, v) in regs.iter().enumerate() {
        if v.len() != an.dst_regs() as usize {
            return Err(SimError::WrongRegisterCount {
                got: v.len(),
                want: an.dst_regs(),
            });
        }
        let (w, l) = (t as u32 / lanes, t as u32 % lanes);
        let wants = an
            .dst
            .thread_tags(v.len() as u64, l as u64, w as u64, block as u64);
        for (r, (&got, &want)) in v.iter().zip(&wants).enumerate() {
            if got != want {
                return Err(SimError::WrongElement {
                    block,
                    warp: w,
                    lane: l,
                    reg: r as u32,
                    got,
                    want,
                });
            }
        }
        slots += v.len() as u64;
    }
    Ok(slots)
}
