//! Warp-local conversions by selects and shuffles: the decomposition of
//! Triton PR 7558 generalised to any number `m` of register<->lane
//! transpositions (docs/ARCHITECTURE.md 4.2). `G = T o K` with `T` the transpositions
//! `(r_i l_i)` and `K` block-diagonal (a register renaming and a lane
//! permutation). Each transposition is select `r ^= l`, shuffle `l ^= r`,
//! select `r ^= l`; all `m` share one shuffle round, the lane permutation is
//! folded into the shuffle's source lane (`shfl.bfly` when it is trivial,
//! `shfl.idx` otherwise); for `m = 1` with a trivial lane permutation the
//! out-of-place variant (1.5 R selects, 0.5 R shuffles) is also offered.

use super::analysis::{Analysis, Side};
use super::ir::{compact, Plan, Rounds, SelEntry, ShflEntry, ShflMode, Stage};
use super::strategy::{ShuffleMode, ShuffleStrategy, ShuffleVariant, Strategy};
use super::Kind;
use crate::gf2::BitMatrix;

/// Plans built by the shuffle decomposition (empty when it does not apply).
/// Applies when the warp and block bases are equal on both sides, the
/// register and lane bases are distinct unit vectors or zero, and both sides'
/// registers+lanes cover the same tensor bits.
pub fn shuffle_plans(an: &Analysis) -> Vec<Plan> {
    let (a, b) = (&an.src, &an.dst);
    if a.warp != b.warp || a.block != b.block {
        return vec![];
    }
    let a_rl = [&a.reg[..], &a.lane].concat();
    let b_rl = [&b.reg[..], &b.lane].concat();
    let unit =
        |c: &[u64]| BitMatrix::from_cols(an.tensor_bits, c.to_vec()).is_unit_or_zero_distinct();
    if !unit(&a_rl) || !unit(&b_rl) {
        return vec![];
    }
    let ea = a_rl.iter().fold(0, |x, c| x | c);
    let eb = b_rl.iter().fold(0, |x, c| x | c);
    let outer = a.warp.iter().chain(&a.block).fold(0, |x, c| x | c);
    if ea != eb || ea & outer != 0 {
        return vec![];
    }
    let nz_a: Vec<usize> = (0..a.reg.len()).filter(|&i| a.reg[i] != 0).collect();
    let nz_b: Vec<usize> = (0..b.reg.len()).filter(|&i| b.reg[i] != 0).collect();
    let k = nz_a.len().max(nz_b.len());
    let lane_bits = a.lane.len();
    let n = k + lane_bits;
    let work = |nz: &[usize], side: &Side| -> Vec<u64> {
        (0..k)
            .map(|i| if i < nz.len() { side.reg[nz[i]] } else { 0 })
            .chain(side.lane.iter().copied())
            .collect()
    };
    let wa = work(&nz_a, a);
    let wb = work(&nz_b, b);
    // g: destination working bit -> source working bit.
    let mut g = vec![usize::MAX; n];
    let mut used = vec![false; n];
    for bit in 0..n {
        if wb[bit] != 0 {
            let s = wa
                .iter()
                .position(|&c| c == wb[bit])
                .expect("same tensor bits on both sides");
            g[bit] = s;
            used[s] = true;
        }
    }
    let is_free_src = |s: usize, used: &[bool]| wa[s] == 0 && !used[s];
    // Pair free bits: same lane first, then reg<->reg, lane<->lane, then the rest.
    for j in k..n {
        if g[j] == usize::MAX && is_free_src(j, &used) {
            g[j] = j;
            used[j] = true;
        }
    }
    let ranges: [(std::ops::Range<usize>, std::ops::Range<usize>); 3] =
        [(0..k, 0..k), (k..n, k..n), (0..n, 0..n)];
    for (dr, sr) in ranges {
        for d in dr {
            if g[d] != usize::MAX {
                continue;
            }
            if let Some(s) = sr.clone().find(|&s| is_free_src(s, &used)) {
                g[d] = s;
                used[s] = true;
            }
        }
    }
    if g.contains(&usize::MAX) {
        return vec![];
    }
    // Mixed bits.
    let rho: Vec<(usize, usize)> = (k..n).filter(|&d| g[d] < k).map(|d| (d, g[d])).collect(); // (dst lane, src reg)
    let lam: Vec<usize> = (0..k).filter(|&d| g[d] >= k).map(|d| g[d]).collect(); // src lanes
    let m = rho.len();
    debug_assert_eq!(m, lam.len());
    // Pairings of rho with lam.
    let mut pairings: Vec<Vec<usize>> = Vec::new();
    if m <= 5 {
        permutations(&lam, &mut vec![], &mut vec![false; m], &mut pairings);
    } else {
        pairings.push(lam.clone());
        // pair each rho (from dst lane d) with lane d itself when possible
        let mut rest: Vec<usize> = lam.clone();
        let mut p = vec![usize::MAX; m];
        for (i, &(d, _)) in rho.iter().enumerate() {
            if let Some(pos) = rest.iter().position(|&l| l == d) {
                p[i] = rest.remove(pos);
            }
        }
        for x in p.iter_mut() {
            if *x == usize::MAX {
                *x = rest.remove(0);
            }
        }
        pairings.push(p);
    }
    let mut plans = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for lams in pairings {
        let pairs: Vec<(usize, usize)> = rho.iter().map(|&(_, r)| r).zip(lams).collect();
        let mut t: Vec<usize> = (0..n).collect();
        for &(r, l) in &pairs {
            t[r] = l;
            t[l] = r;
        }
        let kk: Vec<usize> = (0..n).map(|d| t[g[d]]).collect();
        if (0..k).any(|d| kk[d] >= k) || (k..n).any(|d| kk[d] < k) {
            continue;
        }
        let lane_map: Vec<u32> = (0..lane_bits).map(|j| 1u32 << (kk[k + j] - k)).collect();
        if !seen.insert((pairs.clone(), lane_map.clone())) {
            continue;
        }
        let ctx = ShuffleCtx {
            an,
            k,
            nz_a: &nz_a,
            nz_b: &nz_b,
            kk: &kk,
            pairs: &pairs,
            lane_map: &lane_map,
        };
        plans.push(ctx.in_place());
        if m == 1 && ctx.lane_trivial() {
            plans.push(ctx.out_of_place());
        }
    }
    plans
}

fn permutations(
    items: &[usize],
    cur: &mut Vec<usize>,
    used: &mut Vec<bool>,
    out: &mut Vec<Vec<usize>>,
) {
    if cur.len() == items.len() {
        out.push(cur.clone());
        return;
    }
    for i in 0..items.len() {
        if !used[i] {
            used[i] = true;
            cur.push(items[i]);
            permutations(items, cur, used, out);
            cur.pop();
            used[i] = false;
        }
    }
}

struct ShuffleCtx<'a> {
    an: &'a Analysis,
    /// Working register bits.
    k: usize,
    nz_a: &'a [usize],
    nz_b: &'a [usize],
    /// K = T o G as a bit map (destination working bit -> source working bit).
    kk: &'a [usize],
    /// (source register bit, source lane bit as working index) per transposition.
    pairs: &'a [(usize, usize)],
    lane_map: &'a [u32],
}

impl ShuffleCtx<'_> {
    fn lane_trivial(&self) -> bool {
        self.lane_map.iter().enumerate().all(|(j, &c)| c == 1 << j)
    }

    fn regs(&self) -> u32 {
        1 << self.k
    }

    /// Source registers -> working registers (virtual bits copy).
    fn enter(&self) -> Stage {
        let map = (0..self.regs())
            .map(|w| {
                self.nz_a
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| w >> i & 1 == 1)
                    .fold(0u32, |a, (_, &p)| a | 1 << p)
            })
            .collect();
        Stage::RegRename { map }
    }

    /// Working registers -> destination registers, through the register part of K.
    fn leave(&self) -> Stage {
        let k = self.k;
        let kr = |r: u32| {
            (0..k)
                .filter(|&b| r >> b & 1 == 1)
                .fold(0u32, |a, b| a | 1 << self.kk[b])
        };
        let map = (0..self.an.dst_regs())
            .map(|j| {
                let w = self
                    .nz_b
                    .iter()
                    .enumerate()
                    .filter(|(_, &p)| j >> p & 1 == 1)
                    .fold(0u32, |a, (i, _)| a | 1 << i);
                kr(w)
            })
            .collect();
        Stage::RegRename { map }
    }

    fn select_layers(&self, after_shuffle: bool) -> Vec<Stage> {
        let k = self.k;
        self.pairs
            .iter()
            .map(|&(r, l)| {
                let lane_bit = if after_shuffle {
                    // condition on bit l of lane_map(lane): the destination lane bit j with K(j) = l
                    (k..k + self.an.src.lane.len())
                        .find(|&d| self.kk[d] == l)
                        .unwrap()
                        - k
                } else {
                    l - k
                };
                Stage::Select {
                    entries: (0..self.regs())
                        .map(|x| SelEntry {
                            lane_mask: 1 << lane_bit,
                            if_set: x ^ (1 << r),
                            if_clear: x,
                        })
                        .collect(),
                }
            })
            .collect()
    }

    fn in_place(&self) -> Plan {
        let k = self.k;
        let trivial = self.lane_trivial();
        let mut stages = vec![self.enter()];
        stages.extend(self.select_layers(false));
        let entries: Vec<ShflEntry> = (0..self.regs())
            .map(|x| {
                let c = self
                    .pairs
                    .iter()
                    .filter(|(r, _)| x >> r & 1 == 1)
                    .fold(0u32, |a, &(_, l)| a | 1 << (l - k));
                ShflEntry {
                    reg: x,
                    arg: if trivial && c == 0 { None } else { Some(c) },
                }
            })
            .collect();
        let any_shfl = entries.iter().any(|e| e.arg.is_some());
        if any_shfl {
            stages.push(Stage::Shuffle {
                mode: if trivial {
                    ShflMode::Bfly
                } else {
                    ShflMode::Idx
                },
                lane_map: self.lane_map.to_vec(),
                entries,
            });
        }
        stages.extend(self.select_layers(true));
        stages.push(self.leave());
        let m = self.pairs.len() as u32;
        Plan {
            kind: if any_shfl {
                Kind::Shuffle
            } else {
                Kind::Register
            },
            strategy: Strategy::Shuffle(ShuffleStrategy::elements(
                ShuffleVariant::InPlace,
                if trivial {
                    ShuffleMode::Bfly
                } else {
                    ShuffleMode::Idx
                },
            )),
            src_regs: self.an.src_regs(),
            dst_regs: self.an.dst_regs(),
            stages: compact(stages),
            smem_elems: 0,
            elem_bits: 0,
            rounds: Rounds::NONE,
            m,
            notes: vec![self.describe()],
            pack: None,
            lanes: 1 << self.an.src.hw.lane,
            first_warp: 0,
            register_budget: None,
        }
    }

    fn out_of_place(&self) -> Plan {
        let k = self.k;
        let (r, l) = self.pairs[0];
        let lane_bit = l - k;
        let rr = self.regs();
        let lows: Vec<u32> = (0..rr).filter(|x| x >> r & 1 == 0).collect();
        let mut sel1: Vec<SelEntry> = (0..rr)
            .map(|x| SelEntry {
                lane_mask: 0,
                if_set: x,
                if_clear: x,
            })
            .collect();
        for &x0 in &lows {
            sel1.push(SelEntry {
                lane_mask: 1 << lane_bit,
                if_set: x0,
                if_clear: x0 | 1 << r,
            });
        }
        let mut sh: Vec<ShflEntry> = (0..rr).map(|x| ShflEntry { reg: x, arg: None }).collect();
        for p in 0..lows.len() as u32 {
            sh.push(ShflEntry {
                reg: rr + p,
                arg: Some(1 << lane_bit),
            });
        }
        let mut sel2 = vec![
            SelEntry {
                lane_mask: 0,
                if_set: 0,
                if_clear: 0
            };
            rr as usize
        ];
        for (p, &x0) in lows.iter().enumerate() {
            let recv = rr + p as u32;
            let x1 = x0 | 1 << r;
            sel2[x0 as usize] = SelEntry {
                lane_mask: 1 << lane_bit,
                if_set: recv,
                if_clear: x0,
            };
            sel2[x1 as usize] = SelEntry {
                lane_mask: 1 << lane_bit,
                if_set: x1,
                if_clear: recv,
            };
        }
        let stages = vec![
            self.enter(),
            Stage::Select { entries: sel1 },
            Stage::Shuffle {
                mode: ShflMode::Bfly,
                lane_map: self.lane_map.to_vec(),
                entries: sh,
            },
            Stage::Select { entries: sel2 },
            self.leave(),
        ];
        Plan {
            kind: Kind::Shuffle,
            strategy: Strategy::Shuffle(ShuffleStrategy::elements(
                ShuffleVariant::OutOfPlace,
                ShuffleMode::Bfly,
            )),
            src_regs: self.an.src_regs(),
            dst_regs: self.an.dst_regs(),
            stages: compact(stages),
            smem_elems: 0,
            elem_bits: 0,
            rounds: Rounds::NONE,
            m: 1,
            notes: vec![self.describe()],
            pack: None,
            lanes: 1 << self.an.src.hw.lane,
            first_warp: 0,
            register_budget: None,
        }
    }

    fn describe(&self) -> String {
        let k = self.k;
        let pairs: Vec<String> = self
            .pairs
            .iter()
            .map(|&(r, l)| format!("(r{r} l{})", l - k))
            .collect();
        let lanes: Vec<String> = (0..self.an.src.lane.len())
            .map(|j| format!("l{}", self.kk[k + j] - k))
            .collect();
        format!(
            "m = {} transposition(s) {}; lane permutation [{}]; {} working registers",
            self.pairs.len(),
            if pairs.is_empty() {
                "-".into()
            } else {
                pairs.join(" ")
            },
            lanes.join(" "),
            self.regs()
        )
    }
}
