//! Packed shuffles for 8- and 16-bit elements (docs/ARCHITECTURE.md 4.3): the
//! registers hold 32-bit words of `32 / width` elements (packed as
//! [`super::pack::pack_maps`] says), shuffles move whole words, and one
//! `prmt` with a lane-dependent selector both picks between the shuffled
//! words and puts their bytes in place. This is the packed lowering of Triton
//! PRs 7809/7933/9713 (`getTranspositionSelectors`): where a register<->lane
//! transposition involves a packed register bit, the select-shuffle-select
//! of docs/ARCHITECTURE.md 4.2 on elements becomes shuffle(s) of words and one `prmt`
//! per destination word.
//!
//! The method, for a warp-local conversion whose warp and block bases agree
//! on both sides: a linear right inverse of the source's (register, lane)
//! bases gives, for every destination (word `j`, slot `t`, lane `L`), the
//! source (word, slot, lane) holding the same element, GF(2)-linear in
//! `(j, t, L)`. When the source word does not depend on `L`, destination
//! word `j` needs the source words of at most `32 / width` distinct
//! (word, lane offset) keys; each key is one shuffle (`shfl.bfly` when the
//! lane part is the identity, `shfl.idx` otherwise; none when it is the own
//! lane), shared by every destination word that needs it. The bytes then
//! come together in one `prmt` for two keys (three for four 8-bit keys, in
//! two stages), whose selectors are affine in the lane bits.

use super::analysis::Analysis;
use super::ir::{PermEntry, Plan, Rounds, SelEntry, ShflEntry, ShflMode, Stage};
use super::pack::{pack_maps, per_word};
use super::strategy::{ShuffleMode, ShuffleStrategy, ShuffleVariant, Strategy};
use super::{Kind, LANE_BITS_SERVED};
use crate::gf2::BitMatrix;

/// The packed shuffle plans for elements of `bits` (8 or 16), empty when
/// the method does not apply (other widths, register arrays that do not
/// fill whole words, warp or block bases that differ between the sides, or
/// a source word that depends on the destination lane).
pub fn gather_plans(an: &Analysis, bits: u32) -> Vec<Plan> {
    gather_plan(an, bits).into_iter().collect()
}

fn gather_plan(an: &Analysis, bits: u32) -> Option<Plan> {
    let p = per_word(bits)?;
    let (a, b) = (&an.src, &an.dst);
    if a.warp != b.warp || a.block != b.block || !LANE_BITS_SERVED.contains(&a.lane.len()) {
        return None;
    }
    let (ps, pd) = pack_maps(an, bits)?;
    let (src_regs, dst_regs) = (an.src_regs(), an.dst_regs());
    if src_regs % p != 0 || dst_regs % p != 0 {
        return None;
    }
    let sr = a.reg.len();
    let s_rl = BitMatrix::from_cols(an.tensor_bits, [&a.reg[..], &a.lane].concat());
    let ech = s_rl.echelon();
    // Source hardware index (register bits low, lane bits above) of each
    // destination register and lane basis vector.
    let solve = |v: u64| s_rl.solve_with(&ech, v);
    let yr: Vec<u64> = b.reg.iter().map(|&v| solve(v)).collect::<Option<_>>()?;
    let yl: Vec<u64> = b.lane.iter().map(|&v| solve(v)).collect::<Option<_>>()?;
    let rmask = (1u64 << sr) - 1;
    let src_of = |y: u64| -> (u32, u32, u32) {
        let (w, s) = ps.word_slot((y & rmask) as u32);
        (w, s, (y >> sr) as u32)
    };
    // Lane-dependent parts: source word, slot and lane.
    let lane_bits = a.lane.len();
    let mut slot_l = vec![0u32; lane_bits];
    let mut word_l = vec![0u32; lane_bits];
    let mut lane_map = vec![0u32; lane_bits];
    for (i, &y) in yl.iter().enumerate() {
        let (w, s, l) = src_of(y);
        word_l[i] = w;
        slot_l[i] = s;
        lane_map[i] = l;
    }
    // Senders choose words by their own lane (`send`, folded into select
    // layers before the shuffle): lane `S` sends word `x ^ send(S)` for
    // fetch index `x`. What senders cannot know (receivers that read one
    // sender but want different words) spans `dirs`: each receiver fetches
    // every such variant and picks by lane inside the `prmt`.
    let (send, dirs) = sender_split(&lane_map, &word_l);
    let r1 = dirs.len() as u32;
    // Per lane bit: the variant coordinates the receiver wants.
    let lam: Vec<u32> = (0..lane_bits)
        .map(|i| coords(&dirs, word_l[i] ^ send.apply(lane_map[i])))
        .collect::<Option<_>>()?;
    let trivial = lane_map.iter().enumerate().all(|(j, &c)| c == 1 << j);
    let eb = bits / 8;
    let shift = eb.trailing_zeros();
    let xor_of = |r: u32| {
        yr.iter()
            .enumerate()
            .filter(|(i, _)| r >> i & 1 == 1)
            .fold(0u64, |acc, (_, &y)| acc ^ y)
    };
    // A fetch key: (index into the senders' permuted word array) << 32 | source lane offset.
    let key_of = |y: u64| -> (u64, u32) {
        let (sw, ss, sl) = src_of(y);
        ((((sw ^ send.apply(sl)) as u64) << 32) | sl as u64, ss)
    };
    let mut fetches: Vec<u64> = Vec::new();
    let mut fetch = |k: u64| -> u32 {
        match fetches.iter().position(|&x| x == k) {
            Some(f) => f as u32,
            None => {
                fetches.push(k);
                fetches.len() as u32 - 1
            }
        }
    };
    // Per destination word: its fetched inputs (2^n, indexed by n bits) and
    // per output byte the input index and byte at lane 0.
    struct WordPlan {
        inputs: Vec<u32>,
        n: u32,
        idx: [u32; 4],
        byte: [u32; 4],
    }
    let mut words: Vec<WordPlan> = Vec::new();
    for j in 0..dst_regs / p {
        let ks: Vec<(u64, u32)> = (0..p).map(|t| key_of(xor_of(pd.register(j, t)))).collect();
        let k0 = ks[0].0;
        // basis of the key differences between slots (affine in the slot)
        let mut basis: Vec<u64> = Vec::new();
        for k in &ks {
            let mut v = k.0 ^ k0;
            for &bv in &basis {
                v = v.min(v ^ bv);
            }
            if v != 0 {
                basis.push(v);
                basis.sort_unstable_by(|a, b| b.cmp(a));
            }
        }
        let d = basis.len() as u32;
        let n = d + r1;
        if n > 2 {
            return None;
        }
        let base_idx = |k: u64| -> u32 {
            // coordinates of k ^ k0 in `basis` (sorted descending, leading bits distinct after min-reduction)
            let mut v = k ^ k0;
            let mut c = 0;
            for (i, &bv) in basis.iter().enumerate() {
                if v ^ bv < v {
                    v ^= bv;
                    c |= 1 << i;
                }
            }
            debug_assert_eq!(v, 0);
            c
        };
        let inputs: Vec<u32> = (0..1u32 << n)
            .map(|i| {
                let mut k = k0;
                for (b, &bv) in basis.iter().enumerate() {
                    if i >> b & 1 == 1 {
                        k ^= bv;
                    }
                }
                for (b, &dv) in dirs.iter().enumerate() {
                    if i >> (d as usize + b) & 1 == 1 {
                        k ^= (dv as u64) << 32;
                    }
                }
                fetch(k)
            })
            .collect();
        let mut idx = [0u32; 4];
        let mut byte = [0u32; 4];
        for q in 0..4u32 {
            let (k, s) = ks[(q / eb) as usize];
            idx[q as usize] = base_idx(k);
            byte[q as usize] = (s << shift) | q % eb;
        }
        // `d` bits of the index come from the slot, the `r1` above from the lane
        words.push(WordPlan {
            inputs,
            n,
            idx: idx.map(|x| x),
            byte,
        });
        let _ = d;
    }
    let d_of = |w: &WordPlan| w.n - r1;
    let own = |&k: &u64| trivial && k as u32 == 0;
    let shuffles = fetches.iter().filter(|k| !own(k)).count();
    // The lane part of an input index (bits d..) and of a byte (slot bits).
    let lane_idx = |i: usize, d: u32| lam[i] << d;
    let lane_byte = |i: usize| slot_l[i] << shift;
    let lane_dependent = lam.iter().any(|&x| x != 0) || slot_l.iter().any(|&x| x != 0);
    // One prmt over inputs `a`, `b`: output byte q takes input bit `bit` of
    // its index (lane-dependent) and, when `to_pos`, byte q of that input
    // (the second stage), else its own byte.
    let perm = |w: &WordPlan, a: u32, b: u32, bit: u32, to_pos: bool| -> PermEntry {
        let d = d_of(w);
        let mut sel = 0u32;
        let mut lx = vec![0u32; lane_bits];
        for q in 0..4usize {
            let i = (w.idx[q] >> bit) & 1;
            let by = if to_pos { q as u32 } else { w.byte[q] };
            sel |= (4 * i + by) << (4 * q);
            for (li, x) in lx.iter_mut().enumerate() {
                let di = (lane_idx(li, d) >> bit) & 1;
                let db = if to_pos { 0 } else { lane_byte(li) };
                *x ^= (4 * di + db) << (4 * q);
            }
        }
        if lx.iter().all(|&x| x == 0) {
            lx.clear();
        }
        PermEntry {
            a,
            b,
            selector: sel,
            lane_xor: lx,
        }
    };
    let mut stage1: Vec<PermEntry> = Vec::new();
    let mut stage2: Vec<PermEntry> = Vec::new();
    let mut two_stage = false;
    for w in &words {
        match w.n {
            0 | 1 => {
                let (a, b) = (w.inputs[0], *w.inputs.last().unwrap());
                stage1.push(perm(w, a, b, 0, false));
                stage2.push(PermEntry::copy(stage1.len() as u32 - 1));
            }
            _ => {
                two_stage = true;
                // y_h holds, for every byte, the input with index bit 1 = h
                stage1.push(perm(w, w.inputs[0], w.inputs[1], 0, false));
                stage1.push(perm(w, w.inputs[2], w.inputs[3], 0, false));
                let y1 = stage1.len() as u32 - 1;
                stage2.push(perm(w, y1 - 1, y1, 1, true));
            }
        }
    }

    let mut stages = vec![Stage::Pack {
        width: bits,
        groups: (0..src_regs / p)
            .map(|w| (0..p).map(|s| ps.register(w, s)).collect())
            .collect(),
    }];
    // Sender-side selects: word `x` becomes word `x ^ M lane`, one select
    // layer per lane bit `i` with `M e_i != 0`, only for words later needed.
    let layers: Vec<(usize, u32)> = (0..lane_bits)
        .map(|i| (i, send.apply(1 << i)))
        .filter(|&(_, c)| c != 0)
        .collect();
    let mut needed: Vec<Vec<bool>> = vec![vec![false; (src_regs / p) as usize]; layers.len() + 1];
    for k in &fetches {
        needed[layers.len()][(k >> 32) as usize] = true;
    }
    for li in (0..layers.len()).rev() {
        let c = layers[li].1;
        for x in 0..(src_regs / p) as usize {
            if needed[li + 1][x] {
                needed[li][x] = true;
                needed[li][x ^ c as usize] = true;
            }
        }
    }
    for (li, &(i, c)) in layers.iter().enumerate() {
        stages.push(Stage::Select {
            entries: (0..src_regs / p)
                .map(|x| {
                    let real = needed[li + 1][x as usize];
                    SelEntry {
                        lane_mask: 1 << i,
                        if_set: if real { x ^ c } else { x },
                        if_clear: x,
                    }
                })
                .collect(),
        });
    }
    if shuffles > 0 {
        stages.push(Stage::Shuffle {
            mode: if trivial {
                ShflMode::Bfly
            } else {
                ShflMode::Idx
            },
            lane_map: lane_map.clone(),
            entries: fetches
                .iter()
                .map(|k| ShflEntry {
                    reg: (k >> 32) as u32,
                    arg: if own(k) { None } else { Some(*k as u32) },
                })
                .collect(),
        });
    } else {
        stages.push(Stage::RegRename {
            map: fetches.iter().map(|k| (k >> 32) as u32).collect(),
        });
    }
    stages.push(Stage::BytePerm { entries: stage1 });
    if two_stage {
        stages.push(Stage::BytePerm { entries: stage2 });
    }
    stages.push(Stage::Unpack {
        width: bits,
        map: (0..dst_regs).map(|r| pd.word_slot(r)).collect(),
    });
    let mode = match (shuffles, trivial) {
        (0, _) => ShuffleMode::Own,
        (_, true) => ShuffleMode::Bfly,
        _ => ShuffleMode::Idx,
    };
    let note = format!(
        "packed {}-bit shuffle: {} elements per 32-bit word; {} source word fetch(es), {} of them shuffled ({}); each destination word from {} fetched word(s) by prmt{}",
        bits,
        p,
        fetches.len(),
        shuffles,
        mode,
        words
            .iter()
            .map(|w| {
                let mut k = w.inputs.clone();
                k.sort_unstable();
                k.dedup();
                k.len()
            })
            .max()
            .unwrap_or(0),
        if lane_dependent {
            " with lane-dependent selectors"
        } else {
            ""
        }
    );
    Some(Plan {
        kind: if shuffles > 0 {
            Kind::Shuffle
        } else {
            Kind::Register
        },
        strategy: Strategy::Shuffle(ShuffleStrategy::elements(ShuffleVariant::Packed, mode)),
        src_regs,
        dst_regs,
        stages,
        smem_elems: 0,
        m: 0,
        elem_bits: bits,
        rounds: Rounds::NONE,
        notes: vec![note],
        pack: Some((bits, ps, pd)),
        lanes: 1 << an.src.hw.lane,
        first_warp: 0,
        register_budget: None,
    })
}

/// A linear map on lane indices (5 bits) to word indices.
struct LaneMap {
    /// Basis pairs `(lane vector, word)` with distinct leading lane bits,
    /// fully reduced.
    basis: Vec<(u32, u32)>,
}

impl LaneMap {
    fn apply(&self, mut v: u32) -> u32 {
        let mut w = 0;
        for &(a, b) in &self.basis {
            let lead = 31 - a.leading_zeros();
            if v >> lead & 1 == 1 {
                v ^= a;
                w ^= b;
            }
        }
        w
    }
}

/// Split the receivers' word choice `words[i]` (per lane bit `i`) into what
/// the sender lane `lanes[i]` can choose, a linear `M` with `M a = b` on the
/// span of the pairs, and the directions `M` cannot carry (receivers that
/// read one sender and want different words): an XOR basis, sorted
/// descending with distinct leading bits.
fn sender_split(lanes: &[u32], words: &[u32]) -> (LaneMap, Vec<u32>) {
    let mut basis: Vec<(u32, u32)> = Vec::new();
    let mut dirs: Vec<u32> = Vec::new();
    for (&a0, &b0) in lanes.iter().zip(words) {
        let (mut a, mut b) = (a0, b0);
        for &(x, y) in &basis {
            let lead = 31 - x.leading_zeros();
            if a >> lead & 1 == 1 {
                a ^= x;
                b ^= y;
            }
        }
        if a == 0 {
            for &dv in &dirs {
                b = b.min(b ^ dv);
            }
            if b != 0 {
                dirs.push(b);
                dirs.sort_unstable_by(|x, y| y.cmp(x));
            }
            continue;
        }
        // keep the basis fully reduced: clear the new leading bit elsewhere
        let lead = 31 - a.leading_zeros();
        for e in basis.iter_mut() {
            if e.0 >> lead & 1 == 1 {
                e.0 ^= a;
                e.1 ^= b;
            }
        }
        basis.push((a, b));
        basis.sort_by_key(|e| std::cmp::Reverse(e.0));
    }
    (LaneMap { basis }, dirs)
}

/// Coordinates of `w` in the XOR basis `dirs` (sorted descending, distinct
/// leading bits), or `None` outside its span.
fn coords(dirs: &[u32], mut w: u32) -> Option<u32> {
    let mut c = 0;
    for (i, &dv) in dirs.iter().enumerate() {
        if w ^ dv < w {
            w ^= dv;
            c |= 1 << i;
        }
    }
    (w == 0).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sender_split_carries_what_senders_can_and_returns_the_rest() {
        // lane bit 0 reads sender bit 0 and wants word 1; lane bit 1 reads
        // the same sender (lane part 0) but wants word 2: a receiver-side
        // direction; lane bit 2 reads sender bit 1 and wants word 0.
        let (m, dirs) = sender_split(&[1, 0, 2, 0, 0], &[1, 2, 0, 0, 0]);
        assert_eq!(m.apply(1), 1);
        assert_eq!(m.apply(2), 0);
        assert_eq!(m.apply(3), 1);
        assert_eq!(dirs, vec![2]);
        assert_eq!(coords(&dirs, 2), Some(1));
        assert_eq!(coords(&dirs, 0), Some(0));
        assert_eq!(coords(&dirs, 1), None);
    }

    #[test]
    fn sender_split_is_linear_on_dependent_lanes() {
        // lane bits 0 and 1 read senders 1 and 2, lane bit 2 reads sender 3
        // = 1 ^ 2 and wants the XOR of their words: consistent, no residue.
        let (m, dirs) = sender_split(&[1, 2, 3, 0, 0], &[1, 2, 3, 0, 0]);
        assert!(dirs.is_empty());
        for s in 0..4 {
            assert_eq!(m.apply(s), s);
        }
    }
}
