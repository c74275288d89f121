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
    store_pieces_xor, store_word_choice, words_of, Key, Piece, WordProgram,
};
use crate::plan::{Analysis, Plan, Stage};
use std::collections::HashMap;

/// Byte tags of one 32-bit word: `4 * t + i` for byte `i` of element `t`
/// (`u64::MAX`: a byte nothing defined).
type Word = [u64; 4];

/// Numbers for the words' keys, given as keys first appear (the same for
/// every thread: each thread's words are an array indexed by them).
#[derive(Default)]
struct KeyIds(HashMap<Key, usize>);

impl KeyIds {
    /// The key's number, a new one when it is new.
    fn id(&mut self, k: Key) -> usize {
        let n = self.0.len();
        *self.0.entry(k).or_insert(n)
    }
    /// The key's number when it has one (a word nothing wrote has none).
    fn get(&self, k: &Key) -> Option<usize> {
        self.0.get(k).copied()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

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
    let eb = (bits / 8) as usize;
    let (ps, pd) = plan_maps(plan, bits);
    let warps = 1u32 << an.src.hw.warp;
    let lanes = 1u32 << an.src.hw.lane;
    let blocks = 1u32 << an.src.hw.block;
    let mut report = SimReport {
        threads: (blocks * warps * lanes) as u64,
        ..Default::default()
    };
    let elem_bytes = |t: u64| -> Word { [4 * t, 4 * t + 1, 4 * t + 2, 4 * t + 3] };
    let unsupported = |si: usize, kind: &'static str| SimError::Unsupported { stage: si, kind };
    for blk in 0..blocks {
        let nthreads = (warps * lanes) as usize;
        // the value structure (same for every thread); each thread's words
        // are a dense array indexed by the key's number in `ids` (numbered
        // once for all threads as keys appear)
        let mut vals: Vec<Piece<Key>> = (0..plan.src_regs)
            .map(|r| {
                let (w, slot) = ps.word_slot(r);
                Piece {
                    key: Key::Src(w),
                    slot,
                }
            })
            .collect();
        let mut ids = KeyIds::default();
        let src_ids: Vec<usize> = (0..plan.src_regs / p)
            .map(|wi| ids.id(Key::Src(wi)))
            .collect();
        let mut words: Vec<Vec<Word>> = (0..nthreads)
            .map(|t| {
                let (w, l) = (t as u64 / lanes as u64, t as u64 % lanes as u64);
                let mut v = vec![[u64::MAX; 4]; ids.len()];
                for (wi, &id) in src_ids.iter().enumerate() {
                    let word = &mut v[id];
                    for s in 0..p {
                        let r = ps.register(wi as u32, s) as u64;
                        let e = elem_bytes(an.src.tag(r, l, w, blk as u64));
                        word[s as usize * eb..(s as usize + 1) * eb].copy_from_slice(&e[..eb]);
                    }
                }
                v
            })
            .collect();
        // the element at `slot` of word `id`, as a loose word (element in slot 0)
        let loose = |words: &[Word], id: Option<usize>, slot: u32| -> Word {
            let w = id
                .and_then(|i| words.get(i))
                .copied()
                .unwrap_or([u64::MAX; 4]);
            let mut out = [u64::MAX; 4];
            let at = slot as usize * eb;
            out[..eb].copy_from_slice(&w[at..at + eb]);
            out
        };
        // a prmt program run on one thread's words (inputs by key number)
        let run = |words: &[Word], inputs: &[Option<usize>], prog: &WordProgram| -> Vec<Word> {
            let inputs: Vec<Word> = inputs
                .iter()
                .map(|i| {
                    i.and_then(|i| words.get(i))
                        .copied()
                        .unwrap_or([u64::MAX; 4])
                })
                .collect();
            prog.eval_bytes(&inputs)
        };
        // shared memory by element offset: the bytes and whether written
        let mut smem: Vec<Option<[u64; 2]>> = Vec::new();
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
                    // (lane mask, (word, slot) if set, (word, slot) if clear, result)
                    let sel: Vec<_> = entries
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| e.if_set != e.if_clear)
                        .map(|(k, e)| {
                            let at =
                                |r: u32| vals.get(r as usize).map(|v| (ids.get(&v.key), v.slot));
                            (
                                e.lane_mask,
                                at(e.if_set),
                                at(e.if_clear),
                                ids.id(Key::Loose(si, k)),
                            )
                        })
                        .collect();
                    for (t, w) in words.iter_mut().enumerate() {
                        w.resize(ids.len(), [u64::MAX; 4]);
                        let lane = t as u32 % lanes;
                        for &(mask, set, clear, out) in &sel {
                            let pick = if (lane & mask).count_ones() & 1 == 1 {
                                set
                            } else {
                                clear
                            };
                            let (id, slot) =
                                pick.ok_or(unsupported(si, "Select (register out of range)"))?;
                            w[out] = loose(w, id, slot);
                        }
                    }
                    vals = after_select(&vals, entries, si);
                }
                Stage::Shuffle {
                    mode,
                    lane_map,
                    entries,
                } => {
                    // (shuffle argument, (word, slot) read, result)
                    let moves: Vec<_> = entries
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| e.arg.is_some())
                        .map(|(k, e)| {
                            let from = vals.get(e.reg as usize).map(|v| (ids.get(&v.key), v.slot));
                            (e.arg, from, ids.id(Key::Loose(si, k)))
                        })
                        .collect();
                    let old = words.clone();
                    for (t, w) in words.iter_mut().enumerate() {
                        w.resize(ids.len(), [u64::MAX; 4]);
                        let (warp, lane) = (t as u32 / lanes, t as u32 % lanes);
                        for &(arg, from, out) in &moves {
                            let src = shfl_src(*mode, lane_map, arg, lane, lanes);
                            let (id, slot) =
                                from.ok_or(unsupported(si, "Shuffle (register out of range)"))?;
                            w[out] = loose(&old[(warp * lanes + src) as usize], id, slot);
                        }
                    }
                    vals = after_shuffle(&vals, entries, si);
                }
                Stage::SmemStore { access } => {
                    let chunk = access_chunk(access);
                    // a lane-dependent register choice has a packed form
                    // only where it chooses whole words
                    if !access.reg_xor.is_zero() && store_word_choice(access, &vals).is_none() {
                        return Ok(None);
                    }
                    // the stage's words (instruction by instruction): one
                    // program per register choice (one for every thread
                    // without), run on each thread's words; a thread's
                    // choice is taken from the access itself, register by
                    // register, not from the word maps the emitter uses
                    let mut progs: HashMap<u32, (Vec<Option<usize>>, WordProgram)> = HashMap::new();
                    let mut built: Vec<Vec<Word>> = Vec::with_capacity(words.len());
                    for (t, w) in words.iter().enumerate() {
                        let (warp, lane) = (t as u32 / lanes, t as u32 % lanes);
                        let x = access.reg_xor.base(lane, warp);
                        if !progs.contains_key(&x) {
                            let mut regs = access.insts.iter().flat_map(|i| &i.regs);
                            if !regs.all(|&r| ((r ^ x) as usize) < vals.len()) {
                                return Err(unsupported(
                                    si,
                                    "SmemStore (register choice out of range)",
                                ));
                            }
                            let (keys, prog) = words_of(&store_pieces_xor(access, &vals, x), bits);
                            progs.insert(x, (keys.iter().map(|k| ids.get(k)).collect(), prog));
                        }
                        let (inputs, prog) = &progs[&x];
                        built.push(run(w, inputs, prog));
                    }
                    let mut first = 0usize;
                    for (ii, inst) in access.insts.iter().enumerate() {
                        for warp in (0..warps).filter(|&w| access.guard.active(w)) {
                            let slots = access
                                .element_slots(ii, warp)
                                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
                            for (lane, e, off) in slots {
                                let word = built[(warp * lanes + lane) as usize]
                                    [first + e as usize / chunk];
                                let at = (e as usize % chunk) * eb;
                                let mut v = [u64::MAX; 2];
                                v[..eb].copy_from_slice(&word[at..at + eb]);
                                let off = off as usize;
                                if smem.len() <= off {
                                    smem.resize(off + 1, None);
                                }
                                smem[off] = Some(v);
                            }
                        }
                        first += inst.regs.chunks(chunk).count();
                    }
                }
                Stage::Barrier { .. } => {}
                Stage::SmemLoad { access } => {
                    if !access.guard.is_all() {
                        // a load's threads all execute it (only stores take turns)
                        return Err(SimError::Unsupported {
                            stage: si,
                            kind: "SmemLoad (by some warps only)",
                        });
                    }
                    let chunk = access_chunk(access);
                    for (ii, inst) in access.insts.iter().enumerate() {
                        let loaded: Vec<usize> = (0..inst.regs.len().div_ceil(chunk))
                            .map(|j| ids.id(Key::Loaded(si, ii, j as u32)))
                            .collect();
                        for w in words.iter_mut() {
                            w.resize(ids.len(), [u64::MAX; 4]);
                        }
                        for warp in 0..warps {
                            let slots = access
                                .element_slots(ii, warp)
                                .map_err(|detail| SimError::Misaligned { stage: si, detail })?;
                            for (lane, e, off) in slots {
                                let v = smem.get(off as usize).copied().flatten().ok_or(
                                    SimError::NotVisible {
                                        stage: si,
                                        warp,
                                        addr: off,
                                    },
                                )?;
                                let id = *loaded
                                    .get(e as usize / chunk)
                                    .ok_or(unsupported(si, "SmemLoad (element out of range)"))?;
                                let w = &mut words[(warp * lanes + lane) as usize][id];
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
        let inputs: Vec<Option<usize>> = keys.iter().map(|k| ids.get(k)).collect();
        for (t, w) in words.iter().enumerate() {
            let (warp, lane) = (t as u32 / lanes, t as u32 % lanes);
            let built = run(w, &inputs, &prog);
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
