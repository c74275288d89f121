//! `prmt` networks that build several 32-bit words at once, sharing
//! intermediates (docs/ARCHITECTURE.md 4.3: register-only conversions of packed data
//! are byte permutations; plan them as a minimal `prmt` network).
//!
//! [`super::assemble`] builds one word alone: one `prmt` for bytes of up to
//! two words, two for three, three for four. Built word by word, a 4x4
//! byte transpose (four words in, every word out takes one byte of each)
//! costs 4 x 3 = 12 `prmt`, where two stages of four do: stage 1 pairs the
//! source words (0, 1) and (2, 3) and gathers, per pair, the bytes that two
//! destination words need (4 `prmt`); stage 2 merges two such intermediates
//! into each destination word (4 `prmt`). That is the "two stages of 4 where
//! LLVM emits chains of 3" of Triton's byte-permute work (PR 7809, see also
//! PR 9014, which lowers bijective 8-bit in-thread conversions with AMD's
//! `v_perm`); the search below, which finds such sharing for any wiring, is
//! ours.
//!
//! # The algorithm ([`network`])
//!
//! A value is a word whose four bytes are known tags `(input word, byte)`.
//! Destination words (wants) fall into three kinds:
//!
//! - identical wants are built once;
//! - a want whose bytes come from at most two input words (a *narrow* want)
//!   costs one `prmt` from the inputs (none when it is an input word as it
//!   is), as in [`super::assemble`];
//! - a *wide* want (bytes of three or four input words) is finished by one
//!   `prmt` of two values `X` and `Y` that hold its bytes between them. Its
//!   source words split into two groups of one or two words (three ways for
//!   three words, three pairings for four); a group of one is the input word
//!   itself, a group of two needs a value holding the want's bytes of that
//!   pair: a narrow want's result if one holds them, else an intermediate
//!   *bin*, one `prmt` of the two input words holding at most four bytes.
//!   Wants that split alike share bins: the bytes that several wants need
//!   from one pair of words are packed into as few bins as possible
//!   (greedy: largest demands first, each into the bin it grows least).
//!
//! The split of each wide want is chosen by local search: start from the
//! split whose pairs are most common among the wide wants' source sets, then
//! change one want's split at a time while the number of bins falls. The
//! total is bins + one `prmt` per distinct non-identity want. Without
//! sharing this is exactly [`super::assemble`]'s count (2 for three words, 3
//! for four), and [`network`] keeps the word-by-word program
//! ([`word_by_word`]) unless the shared one is strictly cheaper, so it never
//! costs more than building each word alone.
//!
//! Left out: values of three or more words (a finished wide want) are not
//! reused to finish other wants, and bins are not placed to coincide with a
//! narrow want.

use super::{assemble, Operand, Piece, PrmtStep, WordNet};

/// Byte `.1` of input word `.0`.
pub type Tag = (u32, u32);

/// What one destination word holds: byte `k` is the tag `want[k]` (`None`:
/// any value).
pub type Want = [Option<Tag>; 4];

/// A straight-line program of `prmt`s (`__byte_perm`) over input words that
/// builds several words: `outputs[j]` is the operand holding word `j`. Step
/// `k` may use the inputs and steps before `k`. The cost counts it, the
/// emitter prints it (one `__byte_perm` per step) and the packed-form
/// simulator runs it on byte tags.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WordProgram {
    pub steps: Vec<PrmtStep>,
    pub outputs: Vec<Operand>,
}

/// One `prmt` on byte values: byte `q` of the result is byte
/// `(selector >> 4q) & 7` of `b:a` (PTX `prmt.b32` default mode, as
/// [`super::byte_perm`]).
fn perm_bytes<B: Copy>(a: [B; 4], b: [B; 4], selector: u32) -> [B; 4] {
    std::array::from_fn(|q| {
        let n = (selector >> (4 * q)) & 7;
        if n < 4 {
            a[n as usize]
        } else {
            b[n as usize - 4]
        }
    })
}

impl WordProgram {
    /// `prmt` instructions.
    pub fn prmts(&self) -> u32 {
        self.steps.len() as u32
    }
    /// The program run on byte tags (`[byte 0, .., byte 3]` of each input
    /// word): what each output word holds.
    pub fn eval_bytes<B: Copy>(&self, inputs: &[[B; 4]]) -> Vec<[B; 4]> {
        let mut done: Vec<[B; 4]> = Vec::with_capacity(self.steps.len());
        let val = |o: Operand, done: &Vec<[B; 4]>| match o {
            Operand::Input(k) => inputs[k as usize],
            Operand::Step(k) => done[k as usize],
        };
        for s in &self.steps {
            let v = perm_bytes(val(s.a, &done), val(s.b, &done), s.selector);
            done.push(v);
        }
        self.outputs.iter().map(|&o| val(o, &done)).collect()
    }
    /// The words the program computes from `inputs`, with
    /// [`super::byte_perm`].
    pub fn eval(&self, inputs: &[u32]) -> Vec<u32> {
        let mut done: Vec<u32> = Vec::with_capacity(self.steps.len());
        let val = |o: Operand, done: &Vec<u32>| match o {
            Operand::Input(k) => inputs[k as usize],
            Operand::Step(k) => done[k as usize],
        };
        for s in &self.steps {
            let v = super::byte_perm(val(s.a, &done), val(s.b, &done), s.selector);
            done.push(v);
        }
        self.outputs.iter().map(|&o| val(o, &done)).collect()
    }
    /// Append `net` (its inputs numbered as this program's): its result.
    fn append(&mut self, net: &WordNet) -> Operand {
        let base = self.steps.len() as u32;
        let shift = |o: Operand| match o {
            Operand::Step(k) => Operand::Step(base + k),
            i => i,
        };
        for s in &net.steps {
            self.steps.push(PrmtStep {
                a: shift(s.a),
                b: shift(s.b),
                selector: s.selector,
            });
        }
        shift(net.result)
    }
}

/// Distinct wants in order of first appearance, and each want's index among
/// them.
fn distinct(wants: &[Want]) -> (Vec<Want>, Vec<usize>) {
    let mut uniq: Vec<Want> = Vec::new();
    let mut at: std::collections::HashMap<Want, usize> = std::collections::HashMap::new();
    let idx = wants
        .iter()
        .map(|w| {
            *at.entry(*w).or_insert_with(|| {
                uniq.push(*w);
                uniq.len() - 1
            })
        })
        .collect();
    (uniq, idx)
}

/// Each distinct want built alone with [`super::assemble`] (identical wants
/// once).
pub fn word_by_word(wants: &[Want]) -> WordProgram {
    let (uniq, idx) = distinct(wants);
    let mut prog = WordProgram::default();
    let outs: Vec<Operand> = uniq.iter().map(|w| prog.append(&assemble(w))).collect();
    prog.outputs = idx.iter().map(|&i| outs[i]).collect();
    prog
}

/// The input words a want reads, in order of first use.
fn sources(w: &Want) -> Vec<u32> {
    let mut s: Vec<u32> = Vec::new();
    for (word, _) in w.iter().flatten() {
        if !s.contains(word) {
            s.push(*word);
        }
    }
    s
}

/// The ways to split the source words of a wide want into two groups of one
/// or two words: (group, group), a group of one as `[w, w]`.
fn splits(src: &[u32]) -> Vec<([u32; 2], [u32; 2])> {
    let mut s = src.to_vec();
    s.sort_unstable();
    match s.len() {
        3 => vec![
            ([s[0], s[1]], [s[2], s[2]]),
            ([s[0], s[2]], [s[1], s[1]]),
            ([s[1], s[2]], [s[0], s[0]]),
        ],
        4 => vec![
            ([s[0], s[1]], [s[2], s[3]]),
            ([s[0], s[2]], [s[1], s[3]]),
            ([s[0], s[3]], [s[1], s[2]]),
        ],
        _ => vec![],
    }
}

/// A wide want: its distinct tags, its possible splits, and per split the
/// demands no narrow want's result covers (`(pair, tags)`, with the group,
/// 0 or 1, it serves).
struct Wide {
    splits: Vec<([u32; 2], [u32; 2])>,
    demands: Vec<Vec<Demand>>,
}

/// The tags a wide want needs from a pair of words, for group `group` of
/// its split.
#[derive(Clone)]
struct Demand {
    pair: [u32; 2],
    group: usize,
    tags: Vec<Tag>,
}

/// Greedy packing of tag sets into bins of at most four distinct tags:
/// largest sets first, each into the bin it grows least (a new bin when
/// none has room). The bins and the bin of each set.
fn bin_pack(demands: &[&[Tag]]) -> (Vec<Vec<Tag>>, Vec<usize>) {
    let mut order: Vec<usize> = (0..demands.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(demands[i].len()));
    let mut bins: Vec<Vec<Tag>> = Vec::new();
    let mut at = vec![0usize; demands.len()];
    for i in order {
        let d = demands[i];
        let best = bins
            .iter()
            .enumerate()
            .map(|(b, bin)| (d.iter().filter(|t| !bin.contains(t)).count(), b))
            .filter(|&(new, b)| bins[b].len() + new <= 4)
            .min();
        let b = match best {
            Some((_, b)) => b,
            None => {
                bins.push(Vec::with_capacity(4));
                bins.len() - 1
            }
        };
        for t in d {
            if !bins[b].contains(t) {
                bins[b].push(*t);
            }
        }
        at[i] = b;
    }
    (bins, at)
}

/// The demands of the chosen splits per pair of words, and the bins each
/// pair needs, kept up to date as splits change (the local search).
struct Packing {
    pairs: Vec<[u32; 2]>,
    /// per pair: (wide want, demand index in its chosen split)
    members: Vec<Vec<(usize, usize)>>,
    bins: Vec<usize>,
}

impl Packing {
    fn new(wide: &[Wide], choice: &[usize]) -> Packing {
        let mut p = Packing {
            pairs: Vec::new(),
            members: Vec::new(),
            bins: Vec::new(),
        };
        for (j, w) in wide.iter().enumerate() {
            for d in w.demands.iter().flatten() {
                if !p.pairs.contains(&d.pair) {
                    p.pairs.push(d.pair);
                    p.members.push(Vec::new());
                    p.bins.push(0);
                }
            }
            for (di, d) in w.demands[choice[j]].iter().enumerate() {
                let pi = p.pair_index(d.pair);
                p.members[pi].push((j, di));
            }
        }
        for pi in 0..p.pairs.len() {
            p.bins[pi] = p.count(wide, choice, pi);
        }
        p
    }
    fn pair_index(&self, pair: [u32; 2]) -> usize {
        self.pairs
            .iter()
            .position(|p| *p == pair)
            .expect("known pair")
    }
    fn tags<'a>(&self, wide: &'a [Wide], choice: &[usize], pi: usize) -> Vec<&'a [Tag]> {
        self.members[pi]
            .iter()
            .map(|&(j, di)| wide[j].demands[choice[j]][di].tags.as_slice())
            .collect()
    }
    fn count(&self, wide: &[Wide], choice: &[usize], pi: usize) -> usize {
        bin_pack(&self.tags(wide, choice, pi)).0.len()
    }
    fn total(&self) -> usize {
        self.bins.iter().sum()
    }
    /// Move want `j` to split `s` when that saves bins; whether it did.
    fn try_split(&mut self, wide: &[Wide], choice: &mut [usize], j: usize, s: usize) -> bool {
        let old = choice[j];
        let mut touched: Vec<usize> = wide[j].demands[old]
            .iter()
            .chain(&wide[j].demands[s])
            .map(|d| self.pair_index(d.pair))
            .collect();
        touched.sort_unstable();
        touched.dedup();
        let before: usize = touched.iter().map(|&pi| self.bins[pi]).sum();
        let saved: Vec<Vec<(usize, usize)>> =
            touched.iter().map(|&pi| self.members[pi].clone()).collect();
        for &pi in &touched {
            self.members[pi].retain(|&(w, _)| w != j);
        }
        choice[j] = s;
        for (di, d) in wide[j].demands[s].iter().enumerate() {
            let pi = self.pair_index(d.pair);
            self.members[pi].push((j, di));
        }
        let counts: Vec<usize> = touched
            .iter()
            .map(|&pi| self.count(wide, choice, pi))
            .collect();
        if counts.iter().sum::<usize>() < before {
            for (&pi, n) in touched.iter().zip(counts) {
                self.bins[pi] = n;
            }
            true
        } else {
            for (&pi, m) in touched.iter().zip(saved) {
                self.members[pi] = m;
            }
            choice[j] = old;
            false
        }
    }
}

/// The bytes an operand holds (`contents` of the steps so far).
fn content(o: Operand, contents: &[[Tag; 4]]) -> [Tag; 4] {
    match o {
        Operand::Input(w) => [(w, 0), (w, 1), (w, 2), (w, 3)],
        Operand::Step(k) => contents[k as usize],
    }
}

/// The network with shared intermediates (module docs), without the
/// word-by-word fallback.
fn shared(wants: &[Want]) -> WordProgram {
    let (uniq, idx) = distinct(wants);
    let mut prog = WordProgram::default();
    let mut contents: Vec<[Tag; 4]> = Vec::new();
    let mut outs: Vec<Option<Operand>> = vec![None; uniq.len()];
    // narrow wants: as assemble builds them; their results may serve wide ones
    let mut fixed: Vec<(Operand, [Tag; 4])> = Vec::new();
    let mut wide_wants: Vec<(usize, Vec<Tag>, Vec<u32>)> = Vec::new();
    for (u, w) in uniq.iter().enumerate() {
        let src = sources(w);
        if src.len() <= 2 {
            let o = prog.append(&assemble(w));
            while contents.len() < prog.steps.len() {
                let s = prog.steps[contents.len()];
                let c = perm_bytes(content(s.a, &contents), content(s.b, &contents), s.selector);
                contents.push(c);
            }
            if matches!(o, Operand::Step(_)) {
                fixed.push((o, content(o, &contents)));
            }
            outs[u] = Some(o);
        } else {
            let mut tags: Vec<Tag> = Vec::new();
            for t in w.iter().flatten() {
                if !tags.contains(t) {
                    tags.push(*t);
                }
            }
            wide_wants.push((u, tags, src));
        }
    }
    let covered = |d: &[Tag]| fixed.iter().find(|f| d.iter().all(|t| f.1.contains(t)));
    let wide: Vec<Wide> = wide_wants
        .iter()
        .map(|(_, tags, src)| {
            let splits = splits(src);
            let demands = splits
                .iter()
                .map(|&(g0, g1)| {
                    [g0, g1]
                        .into_iter()
                        .enumerate()
                        .filter(|(_, g)| g[0] != g[1])
                        .map(|(group, pair)| Demand {
                            pair,
                            group,
                            tags: tags
                                .iter()
                                .copied()
                                .filter(|t| pair.contains(&t.0))
                                .collect(),
                        })
                        .filter(|d| covered(&d.tags).is_none())
                        .collect()
                })
                .collect();
            Wide { splits, demands }
        })
        .collect();
    // the split of each wide want: the most common pairs, then local search
    let mut freq: Vec<([u32; 2], usize)> = Vec::new();
    for w in &wide {
        for (g0, g1) in &w.splits {
            for g in [g0, g1] {
                if g[0] != g[1] {
                    match freq.iter_mut().find(|(p, _)| p == g) {
                        Some((_, n)) => *n += 1,
                        None => freq.push((*g, 1)),
                    }
                }
            }
        }
    }
    let f = |g: [u32; 2]| -> usize { freq.iter().find(|(p, _)| *p == g).map(|x| x.1).unwrap_or(0) };
    let mut choice: Vec<usize> = wide
        .iter()
        .map(|w| {
            (0..w.splits.len())
                .max_by_key(|&s| {
                    let (g0, g1) = w.splits[s];
                    (f(g0) + f(g1), std::cmp::Reverse(s))
                })
                .unwrap_or(0)
        })
        .collect();
    let mut packing = Packing::new(&wide, &choice);
    for _pass in 0..8 {
        let mut improved = false;
        for j in 0..wide.len() {
            for s in 0..wide[j].splits.len() {
                if s != choice[j] && packing.try_split(&wide, &mut choice, j, s) {
                    improved = true;
                    break;
                }
            }
        }
        if !improved || packing.total() == 0 {
            break;
        }
    }
    // the bins, then each wide want from its two groups' values
    let mut cover: Vec<[Option<Operand>; 2]> = vec![[None; 2]; wide.len()];
    for (pi, &pair) in packing.pairs.iter().enumerate() {
        let members = &packing.members[pi];
        if members.is_empty() {
            continue;
        }
        let (bins, at) = bin_pack(&packing.tags(&wide, &choice, pi));
        let ops: Vec<Operand> = bins
            .iter()
            .map(|bin| {
                let selector = (0..4).fold(0u32, |s, q| {
                    let nib = match bin.get(q) {
                        Some(&(w, b)) if w == pair[0] => b,
                        Some(&(_, b)) => 4 + b,
                        None => q as u32,
                    };
                    s | (nib << (4 * q))
                });
                let step = PrmtStep {
                    a: Operand::Input(pair[0]),
                    b: Operand::Input(pair[1]),
                    selector,
                };
                prog.steps.push(step);
                contents.push(perm_bytes(
                    content(step.a, &contents),
                    content(step.b, &contents),
                    selector,
                ));
                Operand::Step(prog.steps.len() as u32 - 1)
            })
            .collect();
        for (&(j, di), b) in members.iter().zip(at) {
            let group = wide[j].demands[choice[j]][di].group;
            cover[j][group] = Some(ops[b]);
        }
    }
    for (j, w) in wide.iter().enumerate() {
        let (g0, g1) = w.splits[choice[j]];
        let (u, tags, _) = &wide_wants[j];
        let [x, y] = [(g0, cover[j][0]), (g1, cover[j][1])].map(|(g, c)| {
            c.unwrap_or_else(|| {
                if g[0] == g[1] {
                    return Operand::Input(g[0]);
                }
                let d: Vec<Tag> = tags.iter().copied().filter(|t| g.contains(&t.0)).collect();
                covered(&d).expect("a demand without a bin is covered").0
            })
        });
        let (cx, cy) = (content(x, &contents), content(y, &contents));
        let want = &uniq[*u];
        let selector = (0..4).fold(0u32, |s, q| {
            let nib = match want[q] {
                Some(t) => match cx.iter().position(|c| *c == t) {
                    Some(p) => p as u32,
                    None => 4 + cy.iter().position(|c| *c == t).expect("covered") as u32,
                },
                None => q as u32,
            };
            s | (nib << (4 * q))
        });
        let step = PrmtStep {
            a: x,
            b: y,
            selector,
        };
        prog.steps.push(step);
        contents.push(perm_bytes(cx, cy, selector));
        outs[*u] = Some(Operand::Step(prog.steps.len() as u32 - 1));
    }
    prog.outputs = idx
        .iter()
        .map(|&i| outs[i].expect("every want built"))
        .collect();
    prog
}

/// The `prmt` program that builds every word of `wants` (inputs numbered
/// as the tags name them), sharing intermediates between words (module
/// docs). Never more `prmt` than [`word_by_word`], which it returns unless
/// sharing saves some.
pub fn network(wants: &[Want]) -> WordProgram {
    let alone = word_by_word(wants);
    if wants.iter().all(|w| sources(w).len() <= 2) {
        // nothing to share: every word is one prmt (or none) either way
        return alone;
    }
    let together = shared(wants);
    if together.prmts() < alone.prmts() {
        together
    } else {
        alone
    }
}

/// The program that packs each entry of `words` (elements of `bits`, in
/// slot order from slot 0, as [`super::word_of`] takes them) into one word:
/// the distinct input keys in the order the program numbers them, and the
/// program ([`network`]), output `j` holding word `j`.
pub fn words_of<K: Clone + Eq + std::hash::Hash>(
    words: &[Vec<Piece<K>>],
    bits: u32,
) -> (Vec<K>, WordProgram) {
    let mut keys: Vec<K> = Vec::new();
    let mut index: std::collections::HashMap<K, u32> = std::collections::HashMap::new();
    let eb = bits / 8;
    let wants: Vec<Want> = words
        .iter()
        .map(|pieces| {
            // super::want_of, with the keys found by hash (a stage's words
            // read hundreds of distinct keys)
            let mut want: Want = [None; 4];
            for (e, p) in pieces.iter().enumerate() {
                let k = *index.entry(p.key.clone()).or_insert_with(|| {
                    keys.push(p.key.clone());
                    keys.len() as u32 - 1
                });
                for b in 0..eb {
                    want[(e as u32 * eb + b) as usize] = Some((k, p.slot * eb + b));
                }
            }
            want
        })
        .collect();
    (keys, network(&wants))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every `Some` byte of every want holds its tag when the program runs
    /// with `byte_perm` on `inputs`.
    fn check(prog: &WordProgram, wants: &[Want], inputs: &[u32]) -> Result<(), String> {
        let got = prog.eval(inputs);
        if got.len() != wants.len() {
            return Err(format!("{} outputs for {} wants", got.len(), wants.len()));
        }
        for (j, w) in wants.iter().enumerate() {
            for (k, t) in w.iter().enumerate() {
                if let Some((i, b)) = t {
                    let want = (inputs[*i as usize] >> (8 * b)) & 0xff;
                    let have = (got[j] >> (8 * k)) & 0xff;
                    if want != have {
                        return Err(format!("word {j} byte {k}: {have:#x}, want {want:#x}"));
                    }
                }
            }
        }
        Ok(())
    }

    fn per_word_sum(wants: &[Want]) -> u32 {
        wants.iter().map(|w| assemble(w).prmts()).sum()
    }

    const INPUTS: [u32; 8] = [
        0x0302_0100,
        0x1312_1110,
        0x2322_2120,
        0x3332_3130,
        0x4342_4140,
        0x5352_5150,
        0x6362_6160,
        0x7372_7170,
    ];

    /// The 4x4 byte transpose: word j takes byte j of each source word.
    fn transpose4() -> Vec<Want> {
        (0..4u32)
            .map(|j| std::array::from_fn(|k| Some((k as u32, j))))
            .collect()
    }

    #[test]
    fn a_4x4_byte_transpose_is_two_stages_of_four() {
        let wants = transpose4();
        assert_eq!(per_word_sum(&wants), 12);
        let prog = network(&wants);
        assert_eq!(prog.prmts(), 8, "{prog:?}");
        check(&prog, &wants, &INPUTS).unwrap();
        let got = prog.eval(&INPUTS);
        assert_eq!(
            got,
            vec![0x3020_1000, 0x3121_1101, 0x3222_1202, 0x3323_1303]
        );
        // two stages: the first four read only inputs, the last four only steps
        for (k, s) in prog.steps.iter().enumerate() {
            let from_inputs = matches!((s.a, s.b), (Operand::Input(_), Operand::Input(_)));
            let from_steps = matches!((s.a, s.b), (Operand::Step(_), Operand::Step(_)));
            assert!(if k < 4 { from_inputs } else { from_steps }, "{k}: {s:?}");
        }
        // and byte by byte on tags
        let tags: Vec<[Tag; 4]> = (0..4u32)
            .map(|w| std::array::from_fn(|b| (w, b as u32)))
            .collect();
        for (j, word) in prog.eval_bytes(&tags).iter().enumerate() {
            assert_eq!(*word, wants[j].map(|t| t.unwrap()), "word {j}");
        }
    }

    #[test]
    fn halfword_transpose_and_pairs_stay_one_prmt_each() {
        // 16-bit: 2x2 halfword transpose, word j = half j of words 0 and 1
        let half = |w: u32, h: u32| [Some((w, 2 * h)), Some((w, 2 * h + 1))];
        let wants: Vec<Want> = (0..2u32)
            .map(|j| {
                let (a, b) = (half(0, j), half(1, j));
                [a[0], a[1], b[0], b[1]]
            })
            .collect();
        let prog = network(&wants);
        assert_eq!(prog.prmts(), 2);
        check(&prog, &wants, &INPUTS).unwrap();
        // 8-bit, two words into two words
        let wants: Vec<Want> = vec![
            [Some((0, 0)), Some((1, 0)), Some((0, 2)), Some((1, 2))],
            [Some((0, 1)), Some((1, 1)), Some((0, 3)), Some((1, 3))],
        ];
        let prog = network(&wants);
        assert_eq!(prog.prmts(), 2);
        check(&prog, &wants, &INPUTS).unwrap();
        // words that are inputs as they are cost nothing; repeats are built once
        let wants: Vec<Want> = vec![
            [Some((1, 0)), Some((1, 1)), Some((1, 2)), Some((1, 3))],
            [Some((0, 3)), None, Some((2, 0)), Some((3, 1))],
            [Some((0, 3)), None, Some((2, 0)), Some((3, 1))],
        ];
        let prog = network(&wants);
        assert_eq!(prog.prmts(), 2);
        assert_eq!(prog.outputs[0], Operand::Input(1));
        check(&prog, &wants, &INPUTS).unwrap();
    }

    #[test]
    fn two_transposes_side_by_side_and_a_three_word_one() {
        // 8 words: two independent 4x4 transposes
        let mut wants = transpose4();
        wants.extend(
            transpose4()
                .into_iter()
                .map(|w| w.map(|t| t.map(|(i, b)| (i + 4, b)))),
        );
        let prog = network(&wants);
        assert_eq!((per_word_sum(&wants), prog.prmts()), (24, 16));
        check(&prog, &wants, &INPUTS).unwrap();
        // three source words, four destination words of three bytes each
        let wants: Vec<Want> = (0..4u32)
            .map(|j| [Some((0, j)), Some((1, j)), Some((2, j)), None])
            .collect();
        let prog = network(&wants);
        assert_eq!(per_word_sum(&wants), 8);
        assert_eq!(prog.prmts(), 6, "{prog:?}");
        check(&prog, &wants, &INPUTS).unwrap();
    }

    proptest! {
        /// Any wiring of up to 8 source words into up to 8 destination
        /// words is built correctly (run with `byte_perm`) and never costs
        /// more than building each word alone.
        #[test]
        fn any_wiring_is_built_and_never_costs_more(
            n in 1u32..=8,
            wiring in proptest::collection::vec(
                proptest::collection::vec(proptest::option::weighted(0.9, (0u32..8, 0u32..4)), 4),
                1..=8,
            ),
            inputs in proptest::collection::vec(any::<u32>(), 8),
        ) {
            let wants: Vec<Want> = wiring
                .iter()
                .map(|w| std::array::from_fn(|k| w[k].map(|(i, b)| (i % n, b))))
                .collect();
            let prog = network(&wants);
            prop_assert!(check(&prog, &wants, &inputs).is_ok(), "{:?}", check(&prog, &wants, &inputs));
            prop_assert!(prog.prmts() <= per_word_sum(&wants));
            let shared_alone = shared(&wants);
            prop_assert!(check(&shared_alone, &wants, &inputs).is_ok());
        }

        /// Transposes of random byte order: destination word j takes one
        /// byte of each of four source words (a permutation of bytes per
        /// source word): always the 8 of two stages.
        #[test]
        fn permuted_transposes_cost_eight(
            perms in proptest::collection::vec(Just([0u32, 1, 2, 3]).prop_shuffle(), 4),
            order in Just([0u32, 1, 2, 3]).prop_shuffle(),
        ) {
            let wants: Vec<Want> = (0..4usize)
                .map(|j| std::array::from_fn(|k| Some((order[k], perms[k][j]))))
                .collect();
            let prog = network(&wants);
            prop_assert_eq!(prog.prmts(), 8);
            prop_assert!(check(&prog, &wants, &INPUTS).is_ok());
        }
    }
}
