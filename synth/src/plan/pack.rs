//! Packed 8- and 16-bit elements (docs/ARCHITECTURE.md 4.3): registers are 32 bits, so
//! a helper's packed form holds `32 / bits` elements per word (element `r` of
//! the register array is slot `r % p` of word `r / p`, lowest slot in the
//! lowest bits: the order of CUDA's `half2`, of MMA fragments and of
//! Triton's packed vectors). Words are built from the bytes of other words
//! with `prmt` (`__byte_perm`, PTX ISA 9.7.9.8 `prmt`, default mode); this
//! module plans those byte networks and counts what a plan costs in the
//! packed form.
//!
//! The packed lowering of a plan (the emitter's `_packed` helpers follow the
//! same walk, and a test holds the emitted `__byte_perm` count to
//! [`packed_cost`]): source words stay words; a shared-memory store takes its
//! words straight from the registers when their slots line up, else builds
//! them (all the words of the stage, by one `prmt` program that shares
//! intermediates between words, [`network`]); loaded words stay words; the
//! destination words are built from what the last stage holds, likewise
//! by one [`network`] (the packed form of a register-only conversion is
//! only this step, a byte permutation inside the thread). Selects and shuffles work on single
//! elements (taken out of their words; slot 0 is free, other slots a
//! shift), and their results are loose elements, zero-extended into a word
//! when a word is built from them.

use super::ir::{Cost, Plan, SelEntry, ShflEntry, SmemAccess, Stage};

pub mod network;
pub use network::{network, word_by_word, words_of, Tag, Want, WordProgram};

/// `__byte_perm(a, b, s)` (PTX `prmt.b32` default mode): byte `k` of the
/// result is byte `(s >> 4k) & 7` of the 8-byte value `b:a` (bytes 0..3 from
/// `a`, 4..7 from `b`).
pub fn byte_perm(a: u32, b: u32, s: u32) -> u32 {
    let x = (a as u64) | ((b as u64) << 32);
    (0..4).fold(0u32, |acc, k| {
        let sel = (s >> (4 * k)) & 7;
        acc | ((((x >> (8 * sel)) & 0xff) as u32) << (8 * k))
    })
}

/// An operand of a [`PrmtStep`]: input word `k` of the network, or the
/// result of step `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Operand {
    Input(u32),
    Step(u32),
}

/// `out = __byte_perm(a, b, selector)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PrmtStep {
    pub a: Operand,
    pub b: Operand,
    pub selector: u32,
}

/// A network of `prmt`s that builds one 32-bit word from the bytes of its
/// input words: at most one `prmt` for bytes from up to two words, two for
/// three words, three (two independent, then one) for four.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WordNet {
    pub steps: Vec<PrmtStep>,
    pub result: Operand,
}

impl WordNet {
    /// `prmt` instructions.
    pub fn prmts(&self) -> u32 {
        self.steps.len() as u32
    }
    /// The network run on byte tags (`[byte 0, .., byte 3]` of each input
    /// word, any `Copy` values): what each result byte holds.
    pub fn eval_bytes<B: Copy>(&self, inputs: &[[B; 4]]) -> [B; 4] {
        let mut done: Vec<[B; 4]> = Vec::with_capacity(self.steps.len());
        let val = |o: Operand, done: &Vec<[B; 4]>| match o {
            Operand::Input(k) => inputs[k as usize],
            Operand::Step(k) => done[k as usize],
        };
        for s in &self.steps {
            let (a, b) = (val(s.a, &done), val(s.b, &done));
            let out: [B; 4] = std::array::from_fn(|q| {
                let n = (s.selector >> (4 * q)) & 7;
                if n < 4 {
                    a[n as usize]
                } else {
                    b[n as usize - 4]
                }
            });
            done.push(out);
        }
        val(self.result, &done)
    }
    /// The word the network computes from `inputs`.
    pub fn eval(&self, inputs: &[u32]) -> u32 {
        let mut done: Vec<u32> = Vec::with_capacity(self.steps.len());
        let val = |o: Operand, done: &Vec<u32>| match o {
            Operand::Input(k) => inputs[k as usize],
            Operand::Step(k) => done[k as usize],
        };
        for s in &self.steps {
            let v = byte_perm(val(s.a, &done), val(s.b, &done), s.selector);
            done.push(v);
        }
        val(self.result, &done)
    }
}

/// Plan the byte network that builds a word whose byte `k` is byte
/// `want[k].1` of input word `want[k].0` (`None`: any value). Inputs are
/// numbered as given; [`WordNet::eval`] takes them in that order.
pub fn assemble(want: &[Option<(u32, u32)>; 4]) -> WordNet {
    let mut words: Vec<u32> = Vec::new();
    for (w, _) in want.iter().flatten() {
        if !words.contains(w) {
            words.push(*w);
        }
    }
    if words.is_empty() {
        return WordNet {
            steps: vec![],
            result: Operand::Input(0),
        };
    }
    let identity = words.len() == 1
        && want
            .iter()
            .enumerate()
            .all(|(k, x)| x.is_none_or(|(_, b)| b == k as u32));
    if identity {
        return WordNet {
            steps: vec![],
            result: Operand::Input(words[0]),
        };
    }
    // One prmt over (x, y): selector nibble k picks byte b of x (b) or y (4 + b).
    let sel_over = |x: u32, y: Option<u32>| -> u32 {
        want.iter().enumerate().fold(0u32, |s, (k, w)| {
            let nib = match w {
                Some((wd, b)) if *wd == x => *b,
                Some((wd, b)) if Some(*wd) == y => 4 + *b,
                _ => k as u32 & 3,
            };
            s | (nib << (4 * k))
        })
    };
    if words.len() <= 2 {
        let b = words.get(1).copied();
        return WordNet {
            steps: vec![PrmtStep {
                a: Operand::Input(words[0]),
                b: Operand::Input(b.unwrap_or(words[0])),
                selector: sel_over(words[0], b),
            }],
            result: Operand::Step(0),
        };
    }
    // Three or four words: the first two into their final byte positions,
    // then (four words) the last two likewise, then one prmt merges.
    let mut steps = vec![PrmtStep {
        a: Operand::Input(words[0]),
        b: Operand::Input(words[1]),
        selector: sel_over(words[0], Some(words[1])),
    }];
    let right = if words.len() == 4 {
        steps.push(PrmtStep {
            a: Operand::Input(words[2]),
            b: Operand::Input(words[3]),
            selector: sel_over(words[2], Some(words[3])),
        });
        Operand::Step(1)
    } else {
        Operand::Input(words[2])
    };
    let first = [words[0], words[1]];
    let selector = want.iter().enumerate().fold(0u32, |s, (k, w)| {
        let nib = match w {
            Some((wd, _)) if first.contains(wd) => k as u32,
            Some((_, b)) if words.len() == 3 => 4 + *b,
            Some(_) => 4 + k as u32,
            None => k as u32,
        };
        s | (nib << (4 * k))
    });
    steps.push(PrmtStep {
        a: Operand::Step(0),
        b: right,
        selector,
    });
    WordNet {
        result: Operand::Step(steps.len() as u32 - 1),
        steps,
    }
}

/// Which register bits of one side pack into a word: slot bit `k` of an
/// element is bit `slot_bits[k]` of its register index, the word index is
/// the register index with those bits taken out (the rest in order). With
/// `slot_bits = [0]` (16-bit) element `r` is slot `r % 2` of word `r / 2`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PackMap {
    pub slot_bits: Vec<u32>,
}

impl PackMap {
    /// The lowest register bits: element `r` in slot `r % p` of word `r / p`.
    pub fn lowest(bits: u32) -> PackMap {
        PackMap {
            slot_bits: (0..(32 / bits).trailing_zeros()).collect(),
        }
    }
    /// `(word, slot)` of register `r`.
    pub fn word_slot(&self, r: u32) -> (u32, u32) {
        let mut slot = 0;
        let mut word = 0;
        let mut wbit = 0;
        for b in 0..32 {
            if let Some(k) = self.slot_bits.iter().position(|&x| x == b) {
                slot |= (r >> b & 1) << k;
            } else {
                word |= (r >> b & 1) << wbit;
                wbit += 1;
            }
        }
        (word, slot)
    }
    /// The register of `(word, slot)` (inverse of [`PackMap::word_slot`]).
    pub fn register(&self, word: u32, slot: u32) -> u32 {
        let mut r = 0;
        let mut wbit = 0;
        for b in 0..32 {
            if let Some(k) = self.slot_bits.iter().position(|&x| x == b) {
                r |= (slot >> k & 1) << b;
            } else {
                r |= (word >> wbit & 1) << b;
                wbit += 1;
            }
        }
        r
    }
    /// Whether this is [`PackMap::lowest`].
    pub fn is_lowest(&self) -> bool {
        self.slot_bits
            .iter()
            .enumerate()
            .all(|(k, &b)| b == k as u32)
    }
}

/// The packing of both sides for elements of `bits` (8 or 16; `None`
/// otherwise or when a side has fewer register bits than a word needs).
/// Tensor vectors that are register bases on both sides pack first, in
/// ascending order of the vector (so `A -> B` and `B -> A` pack `B` alike,
/// and a shared-memory vector made of them moves whole words with no
/// `prmt`); then each side's lowest other register bits. docs/ARCHITECTURE.md 4.3
/// (Triton packs the lowest register bits only).
pub fn pack_maps(an: &super::Analysis, bits: u32) -> Option<(PackMap, PackMap)> {
    let n = per_word(bits)?.trailing_zeros() as usize;
    let (a, b) = (&an.src.reg, &an.dst.reg);
    let common = common_ascending(a, b);
    let side = |regs: &Vec<u64>| -> Option<PackMap> {
        let mut slot_bits: Vec<u32> = common
            .iter()
            .take(n)
            .filter_map(|v| regs.iter().position(|x| x == v).map(|i| i as u32))
            .collect();
        let mut r = 0u32;
        while slot_bits.len() < n {
            if r as usize >= regs.len() {
                return None;
            }
            if !slot_bits.contains(&r) {
                slot_bits.push(r);
            }
            r += 1;
        }
        Some(PackMap { slot_bits })
    };
    Some((side(a)?, side(b)?))
}

/// Shared-memory chunk orders that line up with [`pack_maps`]: the common
/// register vectors in ascending order (the first `32 / bits` of them are
/// the packed slots on both sides).
pub fn common_ascending(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut c: Vec<u64> = a
        .iter()
        .copied()
        .filter(|v| *v != 0 && b.contains(v))
        .collect();
    c.sort_unstable();
    c.dedup();
    c
}

/// Elements of `bits` per 32-bit word (`bits` 8 or 16), else `None`.
pub fn per_word(bits: u32) -> Option<u32> {
    matches!(bits, 8 | 16).then(|| 32 / bits)
}

/// Where one element value lives in the packed lowering: slot `slot` of the
/// word named by `key` (a loose element is slot 0 of its zero-extended
/// word).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece<K> {
    pub key: K,
    pub slot: u32,
}

/// The byte network that packs `pieces` (elements of `bits`, in slot order
/// from slot 0) into one word: its distinct input keys, in the order the
/// network numbers them, and the network.
pub fn word_of<K: Clone + PartialEq>(pieces: &[Piece<K>], bits: u32) -> (Vec<K>, WordNet) {
    let mut keys: Vec<K> = Vec::new();
    let want = want_of(pieces, bits, &mut keys);
    (keys, assemble(&want))
}

/// The bytes one word of `pieces` (elements of `bits`, slot order from
/// slot 0) wants, as (input, byte) tags; an input is the position of its
/// key in `keys`, which gains the keys it has not seen.
pub(crate) fn want_of<K: Clone + PartialEq>(
    pieces: &[Piece<K>],
    bits: u32,
    keys: &mut Vec<K>,
) -> Want {
    let eb = bits / 8;
    let mut want: Want = [None; 4];
    for (e, p) in pieces.iter().enumerate() {
        let k = match keys.iter().position(|x| *x == p.key) {
            Some(k) => k,
            None => {
                keys.push(p.key.clone());
                keys.len() - 1
            }
        } as u32;
        for b in 0..eb {
            want[(e as u32 * eb + b) as usize] = Some((k, p.slot * eb + b));
        }
    }
    want
}

/// Which word a value lives in, the same for every thread (the program
/// position that made it), as the packed lowering keys words: source word,
/// word `e` loaded by instruction `ii` of stage `si`, or the loose element
/// entry `k` of stage `si` made (a select or shuffle result, one element in
/// slot 0). Shared by [`packed_cost`] and the packed simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Src(u32),
    Loaded(usize, usize, u32),
    Loose(usize, usize),
}

/// Where each register's value is after select stage `si`: unchanged where
/// both choices are the same register, else a loose element.
pub(crate) fn after_select(
    vals: &[Piece<Key>],
    entries: &[SelEntry],
    si: usize,
) -> Vec<Piece<Key>> {
    entries
        .iter()
        .enumerate()
        .map(|(k, e)| {
            if e.if_set == e.if_clear {
                vals[e.if_set as usize].clone()
            } else {
                Piece {
                    key: Key::Loose(si, k),
                    slot: 0,
                }
            }
        })
        .collect()
}

/// Where each register's value is after shuffle stage `si`: unchanged where
/// the entry only keeps a register, else a loose element.
pub(crate) fn after_shuffle(
    vals: &[Piece<Key>],
    entries: &[ShflEntry],
    si: usize,
) -> Vec<Piece<Key>> {
    entries
        .iter()
        .enumerate()
        .map(|(k, e)| match e.arg {
            None => vals[e.reg as usize].clone(),
            Some(_) => Piece {
                key: Key::Loose(si, k),
                slot: 0,
            },
        })
        .collect()
}

/// Elements per 32-bit word of one instruction of `access` (fewer than a
/// word's worth for `.u8`/`.u16` vectors).
pub fn access_chunk(access: &SmemAccess) -> usize {
    let per = (32 / access.width.max(1)).max(1) as usize;
    per.min(access.elems() as usize).max(1)
}

/// The predicted cost per thread of `plan` in the packed form for elements
/// of `bits` (8 or 16): [`Plan::cost`] with its byte permutes replaced by
/// those of the packed lowering (see the module docs). `None` when `bits`
/// is not 8 or 16 or a register array does not fill whole words.
pub fn packed_cost(plan: &Plan, bits: u32) -> Option<Cost> {
    packed_cost_with(plan, bits, None)
}

/// The `prmt` count of [`words_of`] per distinct input (the pieces of every
/// word and the element width), shared by the candidates of one search:
/// candidates that differ only in shared-memory offsets or swizzle store
/// and load the same words, and the packed lowering's networks are its
/// costliest part.
#[derive(Default)]
pub struct NetworkCounts(std::sync::Mutex<std::collections::HashMap<NetworkInput, u32>>);

/// The input of one [`words_of`] call: the element width and the pieces of
/// every word.
type NetworkInput = (u32, Vec<Vec<Piece<Key>>>);

impl NetworkCounts {
    /// [`words_of`]`(words, bits).1.prmts()`, computed once per input.
    fn prmts(&self, words: Vec<Vec<Piece<Key>>>, bits: u32) -> u32 {
        let key = (bits, words);
        if let Some(n) = self.0.lock().ok().and_then(|m| m.get(&key).copied()) {
            return n;
        }
        let n = words_of(&key.1, bits).1.prmts();
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, n);
        }
        n
    }
}

/// [`packed_cost`], with the network counts shared through `counts` when
/// given (the search's candidates, [`NetworkCounts`]).
pub fn packed_cost_with(plan: &Plan, bits: u32, counts: Option<&NetworkCounts>) -> Option<Cost> {
    let count = |words: Vec<Vec<Piece<Key>>>| match counts {
        Some(c) => c.prmts(words, bits),
        None => words_of(&words, bits).1.prmts(),
    };
    let p = per_word(bits)?;
    if plan.src_regs % p != 0 || plan.dst_regs % p != 0 {
        return None;
    }
    let (ps, pd) = plan_maps(plan, bits);
    if plan.packs_words() {
        packed_words_io(plan, bits)?;
        return Some(
            plan.stages
                .iter()
                .filter(|s| !matches!(s, Stage::Pack { .. }))
                .fold(Cost::default(), |c, s| c + s.cost()),
        );
    }
    let mut vals: Vec<Piece<Key>> = (0..plan.src_regs)
        .map(|r| {
            let (w, slot) = ps.word_slot(r);
            Piece {
                key: Key::Src(w),
                slot,
            }
        })
        .collect();
    let mut prmt = 0u32;
    let mut base = plan.cost();
    for (si, st) in plan.stages.iter().enumerate() {
        match st {
            Stage::RegRename { map } => {
                vals = map.iter().map(|&i| vals[i as usize].clone()).collect();
            }
            Stage::Select { entries } => vals = after_select(&vals, entries, si),
            Stage::Shuffle { entries, .. } => vals = after_shuffle(&vals, entries, si),
            Stage::SmemStore { access } => {
                base.prmt -= access.pack_prmt();
                let words = store_pieces(access, &vals);
                if !access.reg_xor.is_zero() {
                    // whole words chosen per lane, or no packed form
                    let choice = store_word_choice(access, &vals)?;
                    base.sel -= access.select_ops();
                    base.sel += store_choice_selects(store_input_keys(&words).len(), choice.len());
                }
                prmt += count(words);
            }
            Stage::SmemLoad { access } => {
                let chunk = access_chunk(access) as u32;
                for (ii, inst) in access.insts.iter().enumerate() {
                    for e in 0..inst.regs.len() as u32 {
                        vals.push(Piece {
                            key: Key::Loaded(si, ii, e / chunk),
                            slot: e % chunk,
                        });
                    }
                }
            }
            Stage::Barrier { .. } => {}
            Stage::BytePerm { .. }
            | Stage::Pack { .. }
            | Stage::Unpack { .. }
            | Stage::ClusterStore { .. }
            | Stage::ClusterLoad { .. }
            | Stage::ClusterBarrier => return None,
        }
    }
    if vals.len() as u32 != plan.dst_regs {
        return None;
    }
    prmt += count(dst_pieces(&vals, &pd, plan.dst_regs, bits));
    base.prmt += prmt;
    Some(base)
}

/// The pieces of each word a shared-memory store writes, instruction by
/// instruction, [`access_chunk`] elements a word, from what the registers
/// hold (`vals`): the words the packed lowering builds for the store, all
/// of the stage's at once with one [`network`]. For a store with a
/// lane-dependent register choice these are the words of the threads whose
/// choice is none (lane and warp bits of [`SmemAccess::reg_xor`] all
/// clear); [`store_pieces_xor`] gives any other thread's.
pub fn store_pieces<K: Clone>(access: &SmemAccess, vals: &[Piece<K>]) -> Vec<Vec<Piece<K>>> {
    store_pieces_xor(access, vals, 0)
}

/// [`store_pieces`] of the threads whose register choice is `x`
/// (`access.reg_xor.base(lane, warp)`): element `e` of instruction `i` is
/// register `insts[i].regs[e] ^ x`.
pub fn store_pieces_xor<K: Clone>(
    access: &SmemAccess,
    vals: &[Piece<K>],
    x: u32,
) -> Vec<Vec<Piece<K>>> {
    let chunk = access_chunk(access);
    access
        .insts
        .iter()
        .flat_map(|inst| {
            inst.regs
                .chunks(chunk)
                .map(|c| c.iter().map(|&r| vals[(r ^ x) as usize].clone()).collect())
        })
        .collect()
}

/// The packed form of a store's lane-dependent register choice
/// ([`SmemAccess::reg_xor`]) as a choice of whole words: for each nonzero
/// mask `m` of `reg_xor` (lane columns, then warp columns, the order in
/// which the emitted helper declares their predicates) the map `key ->
/// key'` of the words the registers hold (`vals`, one piece per register)
/// such that register `r ^ m` is the same slot of word `key'` that `r` is
/// of `key`, for every register `r`. A thread whose predicate of `m` is set
/// then builds its store words by the same `prmt` network from the chosen
/// words (one `selp` per input word and predicate level) as a thread whose
/// choice is none ([`store_pieces`]). `None` when some mask moves a register
/// to another slot or splits a word between two (the choice would unpack
/// words), or leaves the registers: such stores have no packed form.
/// Split stores pair broadcast lane bits with the highest register bits
/// (`super::shared`), which the packing (lowest common bits,
/// [`pack_maps`]) leaves out of the slots wherever the side has registers
/// above a word.
pub fn store_word_choice<K: Clone + PartialEq>(
    access: &SmemAccess,
    vals: &[Piece<K>],
) -> Option<Vec<Vec<(K, K)>>> {
    let masks = access.reg_xor.lane.iter().chain(&access.reg_xor.warp);
    let mut out = Vec::new();
    for &m in masks.filter(|&&m| m != 0) {
        let mut map: Vec<(K, K)> = Vec::new();
        for (r, v) in vals.iter().enumerate() {
            let w = vals.get(r ^ m as usize)?;
            if w.slot != v.slot {
                return None;
            }
            match map.iter().find(|(k, _)| *k == v.key) {
                Some((_, to)) if *to != w.key => return None,
                Some(_) => {}
                None => map.push((v.key.clone(), w.key.clone())),
            }
        }
        out.push(map);
    }
    Some(out)
}

/// The input words of a store's `prmt` network ([`store_pieces`]) in order
/// of first use: the words a store with a lane-dependent register choice
/// selects ([`store_word_choice`]).
pub fn store_input_keys<K: Clone + PartialEq>(words: &[Vec<Piece<K>>]) -> Vec<K> {
    let mut keys: Vec<K> = Vec::new();
    for p in words.iter().flatten() {
        if !keys.contains(&p.key) {
            keys.push(p.key.clone());
        }
    }
    keys
}

/// `selp` per thread of the packed form of a store whose register choice
/// is [`store_word_choice`] with `preds` predicates: each of its `inputs`
/// input words is chosen by a tree of `2^preds - 1` selects.
pub fn store_choice_selects(inputs: usize, preds: usize) -> u32 {
    inputs as u32 * ((1u32 << preds) - 1)
}

/// The pieces of each destination word (`dst_regs / (32 / bits)` of them),
/// from what the last stage holds per destination register (`vals`) and the
/// destination packing: the words the end of the packed lowering builds,
/// all at once with one [`network`] (the whole packed form of a
/// register-only conversion).
pub fn dst_pieces<K: Clone>(
    vals: &[Piece<K>],
    pd: &PackMap,
    dst_regs: u32,
    bits: u32,
) -> Vec<Vec<Piece<K>>> {
    let p = 32 / bits;
    (0..dst_regs / p)
        .map(|w| {
            (0..p)
                .map(|s| vals[pd.register(w, s) as usize].clone())
                .collect()
        })
        .collect()
}

/// For a plan that carries words ([`Plan::packs_words`]): whether its packed
/// form is the plan without its `Pack` and `Unpack` stages, i.e. the first
/// stage packs the source words of [`plan_maps`] and the last unpacks the
/// destination words; then the word register that becomes destination word
/// `j`, per `j`. `None` otherwise.
pub fn packed_words_io(plan: &Plan, bits: u32) -> Option<Vec<u32>> {
    let p = per_word(bits)?;
    let (ps, pd) = plan_maps(plan, bits);
    let Some(Stage::Pack { width, groups }) = plan.stages.first() else {
        return None;
    };
    let Some(Stage::Unpack { width: w2, map }) = plan.stages.last() else {
        return None;
    };
    if *width != bits || *w2 != bits || groups.len() as u32 * p != plan.src_regs {
        return None;
    }
    for (w, g) in groups.iter().enumerate() {
        if g.len() as u32 != p || (0..p).any(|s| g[s as usize] != ps.register(w as u32, s)) {
            return None;
        }
    }
    if map.len() as u32 != plan.dst_regs {
        return None;
    }
    (0..plan.dst_regs / p)
        .map(|j| {
            let (word, slot) = map[pd.register(j, 0) as usize];
            (slot == 0 && (1..p).all(|s| map[pd.register(j, s) as usize] == (word, s)))
                .then_some(word)
        })
        .collect()
}

/// The packing of a plan's source and destination for `bits`: the plan's
/// own ([`Plan::pack`], set by the search from [`pack_maps`]) when it has
/// one for `bits`, else the lowest register bits.
pub fn plan_maps(plan: &Plan, bits: u32) -> (PackMap, PackMap) {
    match &plan.pack {
        Some((b, s, d)) if *b == bits => (s.clone(), d.clone()),
        _ => (PackMap::lowest(bits), PackMap::lowest(bits)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn per_word_is_none_for_other_widths_without_dividing() {
        assert_eq!(per_word(8), Some(4));
        assert_eq!(per_word(16), Some(2));
        // 0 is an element-agnostic plan's width: no division by zero
        for bits in [0, 1, 32, 64] {
            assert_eq!(per_word(bits), None, "{bits}");
        }
    }

    #[test]
    fn byte_perm_matches_the_ptx_definition() {
        assert_eq!(byte_perm(0x33221100, 0x77665544, 0x3210), 0x33221100);
        assert_eq!(byte_perm(0x33221100, 0x77665544, 0x7654), 0x77665544);
        assert_eq!(byte_perm(0x33221100, 0x77665544, 0x5410), 0x55441100);
        assert_eq!(byte_perm(0x33221100, 0x77665544, 0x0123), 0x00112233);
    }

    #[test]
    fn aligned_words_cost_nothing_and_halves_one_prmt() {
        let same = word_of(&[Piece { key: 7, slot: 0 }, Piece { key: 7, slot: 1 }], 16);
        assert_eq!((same.0, same.1.prmts()), (vec![7], 0));
        let mixed = word_of(&[Piece { key: 1, slot: 1 }, Piece { key: 2, slot: 1 }], 16);
        assert_eq!(mixed.1.prmts(), 1);
        assert_eq!(mixed.1.eval(&[0xbbbb_aaaa, 0xdddd_cccc]), 0xdddd_bbbb);
    }

    #[test]
    fn pack_map_word_slot_inverts() {
        for m in [
            PackMap::lowest(16),
            PackMap { slot_bits: vec![2] },
            PackMap {
                slot_bits: vec![3, 1],
            },
        ] {
            for r in 0..64 {
                let (w, s) = m.word_slot(r);
                assert_eq!(m.register(w, s), r, "{m:?} {r}");
            }
        }
        assert_eq!(PackMap::lowest(16).word_slot(5), (2, 1));
        assert_eq!(PackMap { slot_bits: vec![2] }.word_slot(5), (1, 1));
    }

    #[test]
    fn both_directions_pack_a_layout_alike() {
        let corpus = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../corpus/ttgir/mmepi_fp16_128x64x64_w4_sm80.ttgir"
        );
        let text = std::fs::read_to_string(corpus).unwrap();
        let f = crate::parse::parse_ttgir(&text).unwrap();
        let convs: Vec<crate::plan::Conversion> = f
            .converts
            .iter()
            .map(|op| crate::plan::Conversion::from_op(op).unwrap())
            .collect();
        assert!(convs.iter().any(|c| c.elem.bits == 16));
        for c in convs.iter().filter(|c| c.elem.bits == 16) {
            let fwd = crate::plan::Analysis::new(c).unwrap();
            let rev = crate::plan::Conversion::new(
                "rev",
                c.dst.clone(),
                c.src.clone(),
                &c.shape,
                c.elem.clone(),
                c.num_warps,
                &c.dst_text,
                &c.src_text,
            )
            .unwrap();
            let bwd = crate::plan::Analysis::new(&rev).unwrap();
            let (fa, fb) = pack_maps(&fwd, 16).unwrap();
            let (bb, ba) = pack_maps(&bwd, 16).unwrap();
            assert_eq!((fa, fb), (ba, bb), "{}", c.name);
        }
    }

    proptest! {
        /// Every byte wiring from up to four words is built correctly, with
        /// at most one prmt per distinct word beyond the first.
        #[test]
        fn assemble_builds_the_wanted_word(
            wiring in proptest::collection::vec(proptest::option::of((0u32..4, 0u32..4)), 4),
            inputs in proptest::collection::vec(any::<u32>(), 4),
        ) {
            // number inputs densely in order of first use, as assemble expects
            let mut order: Vec<u32> = Vec::new();
            let mut want = [None; 4];
            for (k, w) in wiring.iter().enumerate() {
                if let Some((wd, b)) = w {
                    if !order.contains(wd) { order.push(*wd); }
                    let i = order.iter().position(|x| x == wd).unwrap() as u32;
                    want[k] = Some((i, *b));
                }
            }
            let ins: Vec<u32> = order.iter().map(|&w| inputs[w as usize]).collect();
            let net = assemble(&want);
            let got = if order.is_empty() { 0 } else { net.eval(&ins) };
            for (k, w) in want.iter().enumerate() {
                if let Some((i, b)) = w {
                    prop_assert_eq!((got >> (8 * k)) & 0xff, (ins[*i as usize] >> (8 * b)) & 0xff);
                }
            }
            prop_assert!(net.prmts() <= (order.len() as u32).max(1));
        }
    }
}
