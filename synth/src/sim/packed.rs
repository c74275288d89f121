//! The packed form of an element plan (`_packed16`/`_packed8` helpers of
//! shared-memory, element shuffle and register-only plans) run byte by byte: the packed
//! lowering of [`crate::plan::pack`] (source words stay words, stores take
//! words as they are or build them, loaded words stay words, destination
//! words are built from what the last stage holds; the words a store stage
//! or the end builds come from one shared `prmt` program,
//! [`crate::plan::pack::network`]),
//! evaluated on byte tags for every thread, with the shared-memory
//! semantics of the element simulator (PTX ISA per-lane element slots).
//! Every destination word must hold exactly the bytes of its elements, in
//! slot order. Barrier placement is the element plan's and proven there.

use super::{shfl_src, SimError, SimReport};
use crate::plan::pack::{
    access_chunk, after_select, after_shuffle, dst_pieces, packed_words_io, per_word, plan_maps,
    store_pieces, words_of, Key, Piece, WordProgram,
};
use crate::plan::{Analysis, Plan, Stage};
use std::collections::HashMap;

/// Byte tags of one 32-bit word: `4 * t + i` for byte `i` of element `t`
/// (`u64::MAX`: a byte nothing defined).
type Word = [u64; 4];

/// Run the packed form of `plan` for elements of `bits` (8 or 16) and prove
/// it. `Ok(None)` when the plan has no packed form of that width (or is a
/// word plan, which [`super::simulate`] runs itself).
pub fn simulate_packed_form(
    plan: &Plan,
    an: &Analysis,
    bits: u32,
) -> Result<Option<SimReport>, SimError> {
    let Some(p) = per_word(bits) else {
        return Ok(None);
    };
    if plan.packs_words() {
        return Ok(packed_words_io(plan, bits).map(|_| SimReport::default()));
    }
    if plan.is_cluster() {
        // cluster plans have no packed form
        return Ok(None);
    }
    if plan.src_regs % p != 0 || plan.dst_regs % p != 0 || plan.src_regs != an.src_regs() {
        return Ok(None);
    }
    // no packed form for lane-dependent register choices in stores
    if plan.stores_by_lane_choice() {
        return Ok(None);
    }
    let eb = (bits / 8) as usize;
    let (ps, pd) = plan_maps(plan, bits);
    let warps = 1u32 << an.src.hw.warp;
    let blocks = 1u32 << an.src.hw.block;
    let mut report = SimReport {
        threads: (blocks * warps * 32) as u64,
        ..Default::default()
    };
    let elem_bytes = |t: u64| -> Word { [4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3] };
    let unsupported = |si: usize, kind: &'static str| SimError::Unsupported { stage: si, kind };
    for blk in 0..blocks {
        let nthreads = (warps * 32) as usize;
        // the value structure (same for every thread) and each thread's words
        let mut vals: Vec<Piece<Key>> = (0..plan.src_regs)
            .map(|r| {
                let (w, slot) = ps.word_slot(r);
                Piece {
                    key: Key::Src(w),
                    slot,
                }
            })
            .collect();
        let mut words: Vec<HashMap<Key, Word>> = (0..nthreads)
            .map(|t| {
                let (w, l) = (t as u64 / 32, t as u64 % 32);
                (0..plan.src_regs / p)
                    .map(|wi| {
                        let mut word = [u64::MAX; 4];
                        for s in 0..p {
                            let r = ps.register(wi, s) as u64;
                            let e = elem_bytes(an.src.tag(r, l, w, blk as u64));
                            word[s as usize * eb..(s as usize + 1) * eb].copy_from_slice(&e[..eb]);
                        }
                        (Key::Src(wi), word)
                    })
                    .collect()
            })
            .collect();
        // the element a piece holds, as a loose word (element in slot 0)
        let loose = |words: &HashMap<Key, Word>, pc: &Piece<Key>| -> Word {
            let w = words.get(&pc.key).copied().unwrap_or([u64::MAX; 4]);
            let mut out = [u64::MAX; 4];
            let at = pc.slot as usize * eb;
            out[..eb].copy_from_slice(&w[at..at + eb]);
            out
        };
        // a prmt program run on one thread's words
        let run = |words: &HashMap<Key, Word>, keys: &[Key], prog: &WordProgram| -> Vec<Word> {
            let inputs: Vec<Word> = keys
                .iter()
                .map(|k| words.get(k).copied().unwrap_or([u64::MAX; 4]))
                .collect();
            prog.eval_bytes(&inputs)
        };
        let mut smem: HashMap<u32, [u64; 2]> = HashMap::new();
        for (si, st) in plan.stages.iter().enumerate() {
            match st {
                Stage::RegRename { map } => {
                    vals = map
                        .iter()
                        .map(|&i| vals.get(i as usize).cloned())
                        .collect::<Option<_>>()
                        .ok_or(unsupported(si, "RegRename (register out of range)"))?;
                }
                Stage::Select { entries } => {
                    for (t, w) in words.iter_mut().enumerate() {
                        let lane = t as u32 % 32;
                        for (k, e) in entries.iter().enumerate() {
                            if e.if_set != e.if_clear {
                                let set = (lane & e.lane_mask).count_ones() & 1 == 1;
                                let src = &vals[if set { e.if_set } else { e.if_clear } as usize];
                                let v = loose(w, src);
                                w.insert(Key::Loose(si, k), v);
                            }
                        }
                    }
                    vals = after_select(&vals, entries, si);
                }
                Stage::Shuffle {
                    mode,
                    lane_map,
                    entries,
                } => {
                    let old = words.clone();
                    for (t, w) in words.iter_mut().enumerate() {
                        let (warp, lane) = (t as u32 / 32, t as u32 % 32);
                        for (k, e) in entries.iter().enumerate() {
                            if e.arg.is_some() {
                                let src = shfl_src(*mode, lane_map, e.arg, lane);
                                let v =
                                    loose(&old[(warp * 32 + src) as usize], &vals[e.reg as usize]);
                                w.insert(Key::Loose(si, k), v);
                            }
                        }
                    }
                    vals = after_shuffle(&vals, entries, si);
                }
                Stage::SmemStore { access } => {
                    let chunk = access_chunk(access);
                    // the stage's words (instruction by instruction), one
                    // program for every thread, run on each thread's words
                    let (keys, prog) = words_of(&store_pieces(access, &vals), bits);
                    let built: Vec<Vec<Word>> =
                        words.iter().map(|w| run(w, &keys, &prog)).collect();
                    let mut first = 0usize;
                    for (ii, inst) in access.insts.iter().enumerate() {
                        for warp in 0..warps {
                            let slots = access
                                .element_slots(ii, warp)
                                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
                            for (lane, e, off) in slots {
                                let word =
                                    built[(warp * 32 + lane) as usize][first + e as usize / chunk];
                                let at = (e as usize % chunk) * eb;
                                let mut v = [u64::MAX; 2];
                                v[..eb].copy_from_slice(&word[at..at + eb]);
                                smem.insert(off, v);
                            }
                        }
                        first += inst.regs.chunks(chunk).count();
                    }
                }
                Stage::Barrier { .. } => {}
                Stage::SmemLoad { access } => {
                    let chunk = access_chunk(access);
                    for (ii, inst) in access.insts.iter().enumerate() {
                        for warp in 0..warps {
                            let slots = access
                                .element_slots(ii, warp)
                                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
                            for (lane, e, off) in slots {
                                let v = smem.get(&off).copied().ok_or(SimError::NotVisible {
                                    stage: si,
                                    warp,
                                    addr: off,
                                })?;
                                let key = Key::Loaded(si, ii, e / chunk as u32);
                                let w = words[warp as usize * 32 + lane as usize]
                                    .entry(key)
                                    .or_insert([u64::MAX; 4]);
                                let at = (e as usize % chunk) * eb;
                                w[at..at + eb].copy_from_slice(&v[..eb]);
                            }
                        }
                        for e in 0..inst.regs.len() as u32 {
                            vals.push(Piece {
                                key: Key::Loaded(si, ii, e / chunk as u32),
                                slot: e % chunk as u32,
                            });
                        }
                    }
                }
                other => return Err(unsupported(si, other.name())),
            }
        }
        if vals.len() as u32 != plan.dst_regs {
            return Err(SimError::WrongRegisterCount {
                got: vals.len(),
                want: plan.dst_regs,
            });
        }
        // the destination words: one program for all of them (the same for
        // every thread), run on each thread's words
        let (keys, prog) = words_of(&dst_pieces(&vals, &pd, plan.dst_regs, bits), bits);
        for (t, w) in words.iter().enumerate() {
            let (warp, lane) = (t as u32 / 32, t as u32 % 32);
            let built = run(w, &keys, &prog);
            for (j, word) in (0..plan.dst_regs / p).zip(built) {
                for s in 0..p {
                    let r = pd.register(j, s);
                    let want = an.dst.tag(r as u64, lane as u64, warp as u64, blk as u64);
                    let at = s as usize * eb;
                    let ok = (0..eb).all(|i| word[at + i] == 4 * want + i as u64);
                    if !ok {
                        return Err(SimError::WrongElement {
                            block: blk,
                            warp,
                            lane,
                            reg: r,
                            got: word[at] / 4,
                            want,
                        });
                    }
                }
                report.slots += p as u64;
            }
        }
    }
    Ok(Some(report))
}
