//! The byte-level simulator for plans that carry 8- and 16-bit elements as
//! 32-bit words between a `Pack` and an `Unpack` stage
//! ([`Plan::packs_words`]).

use super::{move_registers, reg_at, SimError, SimReport};
use crate::plan::{Analysis, Plan, Stage};

/// A 32-bit register in [`simulate_words`]: the tag of each byte, `4 * t +
/// i` for byte `i` of element `t`.
type Word = [u64; 4];

/// The byte of `{b, a}` that selector nibble `n` picks (PTX `prmt.b32`,
/// default mode; the sign-replicate bit is rejected by the caller).
fn perm_word(a: &Word, b: &Word, selector: u32) -> Result<Word, u32> {
    let mut out = [0u64; 4];
    for (q, o) in out.iter_mut().enumerate() {
        let n = selector >> (4 * q) & 0xf;
        if n & 8 != 0 {
            return Err(n);
        }
        *o = if n < 4 {
            a[n as usize]
        } else {
            b[n as usize - 4]
        };
    }
    Ok(out)
}

/// [`simulate`] for plans that carry 8- and 16-bit elements as 32-bit words
/// ([`Plan::packs_words`]): every register holds the tags of its four bytes,
/// `Pack` places element bytes into word slots, `BytePerm` runs
/// `__byte_perm` on those byte tags, `Unpack` takes slots apart, and each
/// destination element must end up with exactly its own bytes in order.
pub(super) fn simulate_words(plan: &Plan, an: &Analysis) -> Result<SimReport, SimError> {
    let warps = 1u32 << an.src.hw.warp;
    let lanes = 1u32 << an.src.hw.lane;
    let blocks = 1u32 << an.src.hw.block;
    let eb = (plan.elem_bits / 8).clamp(1, 4) as usize;
    let mut report = SimReport {
        threads: (blocks * warps * lanes) as u64,
        ..Default::default()
    };
    let elem = |t: u64| -> Word { [4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3] };
    for blk in 0..blocks {
        let mut regs: Vec<Vec<Word>> = (0..warps * lanes)
            .map(|t| {
                let (w, l) = (t / lanes, t % lanes);
                (0..an.src_regs())
                    .map(|r| elem(an.src.tag(r as u64, l as u64, w as u64, blk as u64)))
                    .collect()
            })
            .collect();
        for (si, stage) in plan.stages.iter().enumerate() {
            let kind = stage.name();
            let get = |v: &Vec<Word>, r: u32| reg_at(v, r, si, kind);
            match stage {
                Stage::RegRename { .. } | Stage::Select { .. } | Stage::Shuffle { .. } => {
                    move_registers(stage, si, warps, lanes, &mut regs)?;
                }
                Stage::Pack { width, groups } => {
                    let web = (*width / 8).max(1) as usize;
                    for v in regs.iter_mut() {
                        let mut next = Vec::with_capacity(groups.len());
                        for g in groups {
                            let mut word = [u64::MAX; 4];
                            for (s, &r) in g.iter().enumerate() {
                                let e = get(v, r)?;
                                for i in 0..web {
                                    if let Some(x) = word.get_mut(s * web + i) {
                                        *x = e[i];
                                    }
                                }
                            }
                            next.push(word);
                        }
                        *v = next;
                    }
                }
                Stage::BytePerm { entries } => {
                    for (t, v) in regs.iter_mut().enumerate() {
                        let lane = t as u32 % lanes;
                        *v = entries
                            .iter()
                            .map(|e| {
                                let (a, b) = (get(v, e.a)?, get(v, e.b)?);
                                perm_word(&a, &b, e.selector_for(lane)).map_err(|n| {
                                    SimError::Unsupported {
                                        stage: si,
                                        kind: if n & 8 != 0 {
                                            "BytePerm (sign mode)"
                                        } else {
                                            kind
                                        },
                                    }
                                })
                            })
                            .collect::<Result<_, _>>()?;
                    }
                }
                Stage::Unpack { width, map } => {
                    let web = (*width / 8).max(1) as usize;
                    for v in regs.iter_mut() {
                        *v = map
                            .iter()
                            .map(|&(w, s)| {
                                let word = get(v, w)?;
                                let mut e = [u64::MAX; 4];
                                for i in 0..web {
                                    e[i] =
                                        word.get(s as usize * web + i).copied().unwrap_or(u64::MAX);
                                }
                                Ok(e)
                            })
                            .collect::<Result<_, _>>()?;
                    }
                }
                _ => return Err(SimError::Unsupported { stage: si, kind }),
            }
        }
        for (t, v) in regs.iter().enumerate() {
            if v.len() != an.dst_regs() as usize {
                return Err(SimError::WrongRegisterCount {
                    got: v.len(),
                    want: an.dst_regs(),
                });
            }
            let (w, l) = (t as u32 / lanes, t as u32 % lanes);
            for (r, got) in v.iter().enumerate() {
                let want = an.dst.tag(r as u64, l as u64, w as u64, blk as u64);
                let ok = (0..eb).all(|i| got[i] == 4 * want + i as u64);
                if !ok {
                    return Err(SimError::WrongElement {
                        block: blk,
                        warp: w,
                        lane: l,
                        reg: r as u32,
                        got: got[0] / 4,
                        want,
                    });
                }
            }
            report.slots += v.len() as u64;
        }
    }
    Ok(report)
}
