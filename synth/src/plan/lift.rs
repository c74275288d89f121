//! Element shuffle plans lifted to 32-bit words for 8- and 16-bit elements
//! (docs/ARCHITECTURE.md 4.3, Triton's `nPack` packing of `cvtNeedsWarpShuffle`
//! conversions): when the packed register bits ([`super::pack::pack_maps`])
//! take no part in the register<->lane transpositions, every select of the
//! element plan picks between two words with the same slots and every
//! shuffle moves all slots of a word to one lane, so the plan runs on words:
//! `R / (32 / width)` times fewer selects and shuffles. Destination words
//! whose slots arrive in other words or slots are put together by `prmt`
//! (constant selectors) before the unpack.

use super::ir::{PermEntry, Plan, Rounds, SelEntry, ShflEntry, Stage};
use super::pack::{pack_maps, per_word};
use super::strategy::{ShuffleStrategy, ShuffleVariant, Strategy};
use super::Analysis;

/// The word form of the element shuffle plan `plan` for elements of `bits`
/// (8 or 16), or `None` when a select or shuffle would split a word, or the
/// plan is not an element shuffle plan (an unlifted `shuffle/in-place`,
/// `shuffle/out-of-place` or `shuffle/select` strategy: selects, shuffles
/// and renames only). The
/// word form's strategy is the element plan's with `/words`.
pub fn lift(an: &Analysis, plan: &Plan, bits: u32) -> Option<Plan> {
    let p = per_word(bits)?;
    let strategy = match plan.strategy {
        Strategy::Shuffle(
            s @ ShuffleStrategy {
                variant:
                    ShuffleVariant::InPlace | ShuffleVariant::OutOfPlace | ShuffleVariant::Select,
                words: false,
                ..
            },
        ) => Strategy::Shuffle(ShuffleStrategy { words: true, ..s }),
        _ => return None,
    };
    if plan.elem_bits != 0 || plan.src_regs % p != 0 || plan.dst_regs % p != 0 {
        return None;
    }
    let (ps, pd) = pack_maps(an, bits)?;
    let words = plan.src_regs / p;
    // (word, slot) of every element register.
    let mut vals: Vec<(u32, u32)> = (0..plan.src_regs).map(|r| ps.word_slot(r)).collect();
    let mut nwords = words;
    let mut stages = vec![Stage::Pack {
        width: bits,
        groups: (0..words)
            .map(|w| (0..p).map(|s| ps.register(w, s)).collect())
            .collect(),
    }];
    for st in &plan.stages {
        match st {
            Stage::RegRename { map } => {
                vals = map
                    .iter()
                    .map(|&i| vals.get(i as usize).copied())
                    .collect::<Option<_>>()?;
            }
            Stage::Select { entries } => {
                // new word array: copies of old words first (as needed), then selps
                let mut out: Vec<SelEntry> = Vec::new();
                let mut next = Vec::with_capacity(entries.len());
                for e in entries {
                    let (ws, ss) = *vals.get(e.if_set as usize)?;
                    let (wc, sc) = *vals.get(e.if_clear as usize)?;
                    let want = if e.if_set == e.if_clear || ws == wc {
                        if ss != sc {
                            return None;
                        }
                        SelEntry {
                            lane_mask: 0,
                            if_set: wc,
                            if_clear: wc,
                        }
                    } else {
                        if ss != sc {
                            return None;
                        }
                        SelEntry {
                            lane_mask: e.lane_mask,
                            if_set: ws,
                            if_clear: wc,
                        }
                    };
                    let k = match out.iter().position(|x| *x == want) {
                        Some(k) => k,
                        None => {
                            out.push(want);
                            out.len() - 1
                        }
                    };
                    next.push((k as u32, sc));
                }
                nwords = out.len() as u32;
                vals = next;
                stages.push(Stage::Select { entries: out });
            }
            Stage::Shuffle {
                mode,
                lane_map,
                entries,
            } => {
                let mut out: Vec<ShflEntry> = Vec::new();
                let mut next = Vec::with_capacity(entries.len());
                for e in entries {
                    let (w, s) = *vals.get(e.reg as usize)?;
                    let want = ShflEntry { reg: w, arg: e.arg };
                    let k = match out.iter().position(|x| *x == want) {
                        Some(k) => k,
                        None => {
                            out.push(want);
                            out.len() - 1
                        }
                    };
                    next.push((k as u32, s));
                }
                nwords = out.len() as u32;
                vals = next;
                stages.push(Stage::Shuffle {
                    mode: *mode,
                    lane_map: lane_map.clone(),
                    entries: out,
                });
            }
            _ => return None,
        }
    }
    let _ = nwords;
    if vals.len() as u32 != plan.dst_regs {
        return None;
    }
    // Destination words: as they are, or put together by prmt.
    let eb = bits / 8;
    let mut perm1: Vec<PermEntry> = Vec::new();
    let mut perm2: Vec<PermEntry> = Vec::new();
    let mut any_perm = false;
    let mut two = false;
    for j in 0..plan.dst_regs / p {
        let slots: Vec<(u32, u32)> = (0..p).map(|s| vals[pd.register(j, s) as usize]).collect();
        let mut keys: Vec<u32> = Vec::new();
        for &(w, _) in &slots {
            if !keys.contains(&w) {
                keys.push(w);
            }
        }
        let byte_sel = |pair: &[u32]| -> u32 {
            let mut sel = 0;
            for q in 0..4u32 {
                let (w, s) = slots[(q / eb) as usize];
                let i = pair.iter().position(|&x| x == w).unwrap_or(0) as u32;
                sel |= (4 * i + s * eb + q % eb) << (4 * q);
            }
            sel
        };
        match keys.len() {
            1 | 2 => {
                let pair = [keys[0], *keys.last().unwrap()];
                let e = PermEntry {
                    a: pair[0],
                    b: pair[1],
                    selector: byte_sel(&pair),
                    lane_xor: vec![],
                };
                any_perm |= !e.is_copy();
                perm1.push(e);
                perm2.push(PermEntry::copy(perm1.len() as u32 - 1));
            }
            _ => {
                while keys.len() < 4 {
                    keys.push(keys[0]);
                }
                any_perm = true;
                two = true;
                let first = |pair: [u32; 2]| -> PermEntry {
                    let mut sel = 0;
                    for q in 0..4u32 {
                        let (w, s) = slots[(q / eb) as usize];
                        if let Some(i) = pair.iter().position(|&x| x == w) {
                            sel |= (4 * i as u32 + s * eb + q % eb) << (4 * q);
                        }
                    }
                    PermEntry {
                        a: pair[0],
                        b: pair[1],
                        selector: sel,
                        lane_xor: vec![],
                    }
                };
                perm1.push(first([keys[0], keys[1]]));
                perm1.push(first([keys[2], keys[3]]));
                let y1 = perm1.len() as u32 - 1;
                let mut sel = 0;
                for q in 0..4u32 {
                    let w = slots[(q / eb) as usize].0;
                    let lo = w == keys[0] || w == keys[1];
                    sel |= (if lo { q } else { 4 + q }) << (4 * q);
                }
                perm2.push(PermEntry {
                    a: y1 - 1,
                    b: y1,
                    selector: sel,
                    lane_xor: vec![],
                });
            }
        }
    }
    let unpack_map = |r: u32| pd.word_slot(r);
    if any_perm {
        stages.push(Stage::BytePerm { entries: perm1 });
        if two {
            stages.push(Stage::BytePerm { entries: perm2 });
        }
        stages.push(Stage::Unpack {
            width: bits,
            map: (0..plan.dst_regs).map(unpack_map).collect(),
        });
    } else {
        // every destination word is one word in order: unpack from it
        stages.push(Stage::Unpack {
            width: bits,
            map: (0..plan.dst_regs)
                .map(|r| {
                    let (j, s) = pd.word_slot(r);
                    (vals[pd.register(j, 0) as usize].0, s)
                })
                .collect(),
        });
    }
    let mut notes = plan.notes.clone();
    notes.push(format!(
        "lifted to 32-bit words of {} {}-bit elements (packed register bits take no part in the transpositions)",
        p, bits
    ));
    Some(Plan {
        kind: plan.kind,
        strategy,
        src_regs: plan.src_regs,
        dst_regs: plan.dst_regs,
        stages,
        smem_elems: 0,
        m: plan.m,
        elem_bits: bits,
        rounds: Rounds::NONE,
        notes,
        pack: Some((bits, ps, pd)),
        lanes: 1 << an.src.hw.lane,
        first_warp: 0,
        register_budget: None,
    })
}
