//! Random conversions over the CTAs of a cluster (docs/ARCHITECTURE.md 4.7):
//! 1-D tensors whose index bits are shuffled over register, lane, warp and
//! block bits on each side, the destination possibly broadcasting over some
//! register or block bit (a zero basis), so that data crosses CTAs, with
//! and without broadcast copies. Every one classified as
//! a cluster conversion must have both plans (writer stores remotely, reader
//! loads remotely) at every element width, each proven by the simulator over
//! every thread of every CTA; none may panic.

use synth::parse::parse_ttgir;
use synth::plan::cluster::cluster_plans_for;
use synth::plan::{Analysis, Conversion, Kind, SharedOptions, StrategyChoice};
use synth::sim::simulate;

/// `#ttg.linear` of a 1-D side: `order` lists the tensor bit each hardware
/// bit holds (registers, then 5 lanes, then warps, then blocks), `None` a
/// broadcast (zero basis).
fn side(order: &[Option<u32>], regs: usize, warps: usize) -> String {
    let b = |s: &[Option<u32>]| {
        s.iter()
            .map(|x| format!("[{}]", x.map_or(0, |t| 1u64 << t)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "#ttg.linear<{{register = [{}], lane = [{}], warp = [{}], block = [{}]}}>",
        b(&order[..regs]),
        b(&order[regs..regs + 5]),
        b(&order[regs + 5..regs + 5 + warps]),
        b(&order[regs + 5 + warps..])
    )
}

fn conversion(src: &str, dst: &str, n: u32, warps: usize, ctas: usize) -> Option<Conversion> {
    let text = format!(
        "#a = {src}\n#b = {dst}\nmodule attributes {{\"ttg.num-ctas\" = {} : i32, \"ttg.num-warps\" = {} : i32, \"ttg.threads-per-warp\" = 32 : i32}} {{\n  tt.func @r(%x: tensor<{}xi32, #a>) {{\n    %0 = ttg.convert_layout %x : tensor<{}xi32, #a> -> tensor<{}xi32, #b>\n    tt.return\n  }}\n}}\n",
        1 << ctas,
        1 << warps,
        1u64 << n,
        1u64 << n,
        1u64 << n
    );
    let f = parse_ttgir(&text).ok()?;
    Conversion::from_op(&f.converts[0]).ok()
}

/// xorshift64*: a fixed sequence, so a failure names a reproducible case.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn shuffle(&mut self, v: &mut [u32]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

#[test]
fn random_cluster_conversions_plan_and_prove_in_both_variants() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut cluster, mut broadcast, mut orders, mut swizzled) = (0, 0, 0usize, 0usize);
    for case in 0..600 {
        let warps = rng.below(2);
        let ctas = 1 + rng.below(3);
        let src_regs = rng.below(3);
        let n = (src_regs + 5 + warps + ctas) as u32;
        let mut sbits: Vec<u32> = (0..n).collect();
        rng.shuffle(&mut sbits);
        let s: Vec<Option<u32>> = sbits.into_iter().map(Some).collect();
        // the destination: its own order of the bits; sometimes one block
        // bit broadcast (its tensor bit moves to a register), sometimes a
        // broadcast register bit
        let mut dbits: Vec<u32> = (0..n).collect();
        rng.shuffle(&mut dbits);
        let bcast_block = ctas > 1 && rng.below(3) == 0;
        let bcast_reg = rng.below(4) == 0;
        let nreg = src_regs + usize::from(bcast_block) + usize::from(bcast_reg);
        let mut d: Vec<Option<u32>> = Vec::new();
        let mut it = dbits.into_iter();
        for k in 0..nreg {
            d.push(if bcast_reg && k == nreg - 1 {
                None
            } else {
                it.next()
            });
        }
        for _ in 0..5 + warps {
            d.push(it.next());
        }
        for k in 0..ctas {
            d.push(if bcast_block && k == ctas - 1 {
                None
            } else {
                it.next()
            });
        }
        assert!(it.next().is_none());
        let src = side(&s, src_regs, warps);
        let dst = side(&d, nreg, warps);
        let c = conversion(&src, &dst, n, warps, ctas)
            .unwrap_or_else(|| panic!("case {case}: not a conversion\n{src}\n{dst}"));
        let an = Analysis::new(&c).unwrap_or_else(|e| panic!("case {case}: {e}"));
        if an.class != Kind::Cluster {
            continue;
        }
        cluster += 1;
        broadcast += usize::from(bcast_block || bcast_reg);
        for bits in [8u32, 16, 32, 64] {
            let opt = SharedOptions {
                elem_bits: bits,
                ..SharedOptions::default()
            };
            for choice in [StrategyChoice::ClusterStore, StrategyChoice::ClusterLoad] {
                // the variant in its local side's scratch order, and in the
                // remote side's register order where that differs, each
                // swizzled where that saves wavefronts
                let plans = cluster_plans_for(&an, choice, &opt);
                let is_swz = |p: &synth::plan::Plan| p.strategy.to_string().ends_with("/swz");
                let swz = plans.iter().filter(|p| is_swz(p)).count();
                assert!(
                    (1..=2).contains(&(plans.len() - swz)),
                    "case {case} {choice:?} {bits} bits\n{src}\n{dst}"
                );
                // a swizzled plan follows its own unswizzled one, with the
                // same instructions and fewer local wavefronts
                for (i, p) in plans.iter().enumerate().filter(|(_, p)| is_swz(p)) {
                    let base = &plans[i - 1];
                    assert!(!is_swz(base), "case {case}: {}", p.strategy);
                    assert_eq!(format!("{}/swz", base.strategy), p.strategy.to_string());
                    assert_eq!(base.cost(), p.cost(), "case {case}");
                    assert!(
                        p.wavefronts_per_warp().0 < base.wavefronts_per_warp().0,
                        "case {case} {}",
                        p.strategy
                    );
                }
                orders += plans.len() - swz - 1;
                swizzled += swz;
                for p in &plans {
                    if let Err(e) = simulate(p, &an) {
                        panic!(
                            "case {case} {choice:?} {bits} bits {}: {e}\n{src}\n{dst}",
                            p.strategy
                        );
                    }
                }
            }
        }
    }
    eprintln!("{cluster} cluster conversions ({broadcast} with a broadcast destination bit) proven in both plans at 8-64 bits, {orders} plans in the remote side's scratch order, {swizzled} swizzled");
    assert!(
        cluster >= 300 && broadcast >= 50 && orders >= 100 && swizzled >= 100,
        "{cluster} cluster, {broadcast} broadcast, {orders} in the remote order, {swizzled} swizzled"
    );
}
