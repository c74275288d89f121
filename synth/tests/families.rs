//! Exhaustive and randomized families of conversions, each planned by the
//! search (which proves every candidate on the simulator) and checked for the
//! properties docs/ARCHITECTURE.md promises.

use proptest::prelude::*;
use synth::family::{blocked_layouts, blocked_pair, permutation_family, unit_layout};
use synth::parse::ElemType;
use synth::plan::{Conversion, Kind, ShuffleVariant, StrategyChoice};
use synth::search::{plan_conversion, Weights};

fn plan(c: &Conversion, s: StrategyChoice) -> synth::search::Chosen {
    plan_conversion(c, s, &Weights::default()).unwrap_or_else(|e| panic!("{}: {e}", c.name))
}

/// Every one of the 7! = 5040 bit permutations of 2 register + 5 lane bits
/// gets a verified shuffle (or rename) plan whose cost obeys docs/ARCHITECTURE.md 4.2:
/// in place `2mR` selects and at most `R` shuffles; out of place for m = 1.
#[test]
fn every_permutation_of_2_register_and_5_lane_bits() {
    let fam = permutation_family(2);
    assert_eq!(fam.len(), 5040);
    let r = 4u32;
    let mut by_m = [0usize; 3];
    for c in &fam {
        let ch = plan(c, StrategyChoice::Shuffle);
        assert!(
            matches!(
                ch.plan.kind,
                Kind::Shuffle | Kind::Register | Kind::Identity
            ),
            "{}",
            c.name
        );
        let m = ch.plan.m;
        by_m[m as usize] += 1;
        assert!(ch.cost.shfl <= r, "{}: {}", c.name, ch.cost);
        if ch
            .plan
            .strategy
            .shuffle()
            .is_some_and(|s| s.variant == ShuffleVariant::OutOfPlace)
        {
            assert_eq!((ch.cost.sel, ch.cost.shfl), (6, 2), "{}", c.name);
        } else {
            assert!(ch.cost.sel <= 2 * m * r, "{}: {}", c.name, ch.cost);
        }
        assert_eq!(ch.cost.sts + ch.cost.lds + ch.cost.bar, 0);
    }
    assert!(
        by_m.iter().all(|&n| n > 0),
        "m = 0, 1, 2 all occur: {by_m:?}"
    );
}

#[test]
fn pairs_of_blocked_layouts_16x16() {
    let layouts = blocked_layouts([16, 16], 4);
    let mut n = 0;
    for (i, a) in layouts.iter().enumerate() {
        for b in layouts.iter().skip(i % 3).step_by(3) {
            let (ta, tb) = (&a.0, &b.0);
            let c = blocked_pair(&format!("blk{n}"), a, b);
            // one warp, unit bases: a verified shuffle (or rename) plan always exists
            let ch = plan(&c, StrategyChoice::Shuffle);
            assert_ne!(ch.plan.kind, Kind::Shared, "{ta} -> {tb}");
            // and the automatic choice verifies too
            plan(&c, StrategyChoice::Auto);
            let sh = plan(&c, StrategyChoice::Shared);
            assert!(matches!(
                sh.plan.kind,
                Kind::Shared | Kind::Register | Kind::Identity
            ));
            n += 1;
        }
    }
    assert!(n > 1500, "{n} pairs");
}

fn arb_broadcast_layout(t: u32) -> impl Strategy<Value = (usize, Vec<Option<u32>>)> {
    // choose register bits, then place the t tensor bits on distinct hardware bits
    (0usize..=3).prop_flat_map(move |r| {
        let n = r + 5;
        Just((0..n).collect::<Vec<usize>>())
            .prop_shuffle()
            .prop_map(move |slots| {
                let mut map = vec![None; n];
                for (b, &s) in slots.iter().take(t as usize).enumerate() {
                    map[s] = Some(b as u32);
                }
                (r, map)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    /// Random one-warp layouts with broadcast (zero) register and lane bases on
    /// either side: every one gets a verified shuffle plan, and a verified
    /// shared-memory plan.
    #[test]
    fn broadcast_on_either_side(t in 3u32..=6, a in arb_broadcast_layout(6), b in arb_broadcast_layout(6)) {
        let fit = |(r, map): &(usize, Vec<Option<u32>>)| -> Option<(usize, Vec<Option<u32>>)> {
            let m: Vec<Option<u32>> = map.iter().map(|x| x.filter(|&v| v < t)).collect();
            (m.iter().flatten().count() == t as usize).then_some((*r, m))
        };
        let (Some(a), Some(b)) = (fit(&a), fit(&b)) else { return Ok(()); };
        let la = unit_layout(a.0, &a.1, t);
        let lb = unit_layout(b.0, &b.1, t);
        let c = Conversion::new("bcast", la, lb, &[1 << t], ElemType { name: "i32".into(), bits: 32 }, 1, "a", "b").unwrap();
        let ch = plan(&c, StrategyChoice::Shuffle);
        prop_assert!(ch.plan.kind != Kind::Shared);
        let sh = plan(&c, StrategyChoice::Shared);
        prop_assert!(sh.sim.slots > 0);
        // 8- and 16-bit elements: every candidate, packed shuffle plans
        // (lifted or gathered words, broadcast on either side) included,
        // passes the byte-level simulator
        for bits in [8u32, 16] {
            let mut c = c.clone();
            c.elem = ElemType { name: if bits == 8 { "i8" } else { "i16" }.into(), bits };
            let opt = synth::plan::SharedOptions { elem_bits: bits, ..Default::default() };
            let cons = synth::search::consider(&c, StrategyChoice::Auto, &Weights::default(), &opt, None).unwrap();
            prop_assert!(cons.failures.is_empty(), "{:?}", cons.failures);
            prop_assert!(!cons.proven.is_empty());
        }
    }
}

/// Blocked-to-blocked and mma-to-blocked conversions of the corpus' tile
/// shapes, 4 and 8 warps, 8/16/32/64-bit elements, through shared memory:
/// each gets a plan the simulator proves, and that plan is conflict-free
/// (the minimum wavefronts) unless the cost model chose a conflicted plan
/// over every conflict-free candidate, which must then score no worse.
/// Every `WF_SAMPLE`-th case of the long sweeps (default 8: what `make
/// test` runs); `make check-all` sets `WF_SAMPLE=1` for all of them.
fn sample() -> usize {
    std::env::var("WF_SAMPLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(8)
}

#[test]
fn cta_shared_families_prove_without_conflicts() {
    use synth::family::{attr_pair, cta_blocked_family, mma_family};
    use synth::plan::{shared_plans, Analysis, SharedOptions};
    use synth::search::plan_conversion_with;
    let w = Weights::default();
    let shapes = [[128u32, 128], [128, 64], [64, 64], [32, 128]];
    let (mut n, mut traded) = (0usize, 0usize);
    let every = sample();
    let mut case = 0usize;
    for (si, shape) in shapes.into_iter().enumerate() {
        for warps in [4u32, 8] {
            let blocked = cta_blocked_family(shape, warps);
            let mma = mma_family(shape, warps);
            let srcs: Vec<&String> = blocked.iter().chain(&mma).collect();
            for (i, s) in srcs.iter().enumerate() {
                // mma sources against every other blocked layout, blocked ones
                // against a rotating seventh of them
                let (skip, step) = if i < blocked.len() {
                    ((i + si) % 7, 7)
                } else {
                    (i % 2, 2)
                };
                for d in blocked.iter().skip(skip).step_by(step) {
                    if *s == d {
                        continue;
                    }
                    for bits in [8u32, 16, 32, 64] {
                        case += 1;
                        if case % every != 0 {
                            continue;
                        }
                        let elem = ElemType {
                            name: format!("i{bits}"),
                            bits,
                        };
                        let Some(c) = attr_pair(&format!("f{n}"), s, d, shape, warps, elem) else {
                            continue;
                        };
                        let opt = SharedOptions {
                            elem_bits: bits,
                            ..SharedOptions::default()
                        };
                        let ch = match plan_conversion_with(&c, StrategyChoice::Shared, &w, &opt) {
                            Ok(ch) => ch,
                            // more than 1024 elements per thread is refused
                            // before planning
                            Err(synth::plan::PlanError::TooManyRegisters { elems, .. }) => {
                                assert!(elems > 1024, "{s} -> {d}");
                                continue;
                            }
                            Err(e) => panic!("{s} -> {d} ({bits}-bit): {e}"),
                        };
                        n += 1;
                        if ch.plan.kind != Kind::Shared {
                            continue;
                        }
                        assert!(
                            ch.plan.smem_elems <= 1 << c.src.total_out_bits(),
                            "{s} -> {d}"
                        );
                        let (wf, min) = ch.plan.wavefronts_per_warp();
                        assert_eq!(
                            ch.sim.bank_conflicts > 0,
                            wf > min,
                            "per-warp count agrees with the simulator"
                        );
                        if wf > min {
                            let an = Analysis::new(&c).unwrap();
                            let best_free = shared_plans(&an, &opt)
                                .iter()
                                .filter(|p| {
                                    let (a, b) = p.wavefronts_per_warp();
                                    a == b
                                })
                                .map(|p| w.score(p))
                                .fold(f64::INFINITY, f64::min);
                            // instruction scores on both sides (`ch.score` also
                            // charges registers over the launch bounds' limit,
                            // the same for every shared plan of a conversion)
                            let chosen = w.score_for_width(&ch.plan, bits);
                            assert!(
                                chosen <= best_free,
                                "{s} -> {d} {shape:?} {bits}-bit: {} conflicts at score {chosen} but a conflict-free plan scores {best_free}",
                                ch.sim.bank_conflicts
                            );
                            traded += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!("{n} conversions proven; {traded} chose conflicts over more instructions");
    assert!(n > 1000 / every, "{n}");
}

/// The same 5040 permutations with 8- and 16-bit elements: every candidate
/// of the search (element shuffle plans, and the packed shuffle plans of
/// `synth::plan::gather` that move 32-bit words) passes the simulator, the
/// packed ones byte by byte with `__byte_perm` semantics. With 8-bit
/// elements the 4 registers are one word, so a packed plan always exists.
/// A packed plan fetches at most 4 words for each destination word (one per
/// slot, or two variants of two) and combines them with at most 3 `prmt`
/// (docs/ARCHITECTURE.md 4.3).
#[test]
fn every_permutation_of_2_register_and_5_lane_bits_at_8_and_16_bits() {
    use synth::search::consider;
    let fam = permutation_family(2);
    for bits in [8u32, 16] {
        let elem = ElemType::parse(if bits == 8 { "i8" } else { "i16" }).unwrap();
        let opt = synth::plan::SharedOptions {
            elem_bits: bits,
            ..Default::default()
        };
        let (mut packed, mut chosen_packed, mut moving) = (0usize, 0usize, 0usize);
        for c in &fam {
            let mut c = c.clone();
            c.elem = elem.clone();
            let cons = consider(&c, StrategyChoice::Shuffle, &Weights::default(), &opt, None)
                .unwrap_or_else(|e| panic!("{}: {e}", c.name));
            assert!(cons.failures.is_empty(), "{}: {:?}", c.name, cons.failures);
            moving += (cons.analysis.class == Kind::Shuffle) as usize;
            let per = 32 / bits;
            let words = 4 / per;
            if let Some(g) = cons.proven.iter().find(|p| p.plan.packs_words()) {
                packed += 1;
                let cost = g.plan.cost_for_width(bits);
                assert!(cost.shfl <= 4 * words, "{}: {cost}", c.name);
                assert!(cost.prmt <= 3 * words, "{}: {cost}", c.name);
                if bits == 8 {
                    assert!(cost.prmt < per, "{}: {cost}", c.name);
                }
                assert_eq!(cost.sts + cost.lds + cost.bar, 0);
            }
            let best = &cons.proven[0];
            chosen_packed += best.plan.packs_words() as usize;
        }
        if bits == 8 {
            assert_eq!(
                packed, moving,
                "8-bit: a packed plan wherever lanes exchange data"
            );
            assert!(moving > 4000, "{moving}");
        }
        assert!(chosen_packed > 0, "{bits}-bit: packed plans are chosen");
        eprintln!(
            "{bits}-bit: {moving} of 5040 move data between lanes; packed plans for {packed}, chosen for {chosen_packed}"
        );
    }
}

/// A source that broadcasts along lane bit 4 (`blocked` 1x4 per thread over
/// 1x32 lanes, a 64x64 tile: lanes `l` and `l ^ 16` hold the same columns)
/// into a destination that spreads rows over that lane bit: every lane holds
/// what it needs, in a register chosen by the lane. The plan is lane selects
/// and a renaming (`shuffle/select/own`, lifted to words for 16-bit), no
/// shuffle; the reverse must still shuffle. Each plan is proven on the
/// simulator by the search.
#[test]
fn a_lane_broadcast_source_is_served_by_selects_alone() {
    let blk = |t: &str| {
        format!("#ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [{t}], warpsPerCTA = [1, 1], order = [1, 0]}}>")
    };
    let (s, d) = (blk("1, 32"), blk("2, 16"));
    for (ty, bits) in [("f16", 16u32), ("f32", 32)] {
        let text = format!(
            "#a = {s}\n#b = {d}\nmodule attributes {{\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = 1 : i32, \"ttg.threads-per-warp\" = 32 : i32}} {{\n  tt.func @c(%x: tensor<64x64x{ty}, #a>) {{\n    %0 = ttg.convert_layout %x : tensor<64x64x{ty}, #a> -> tensor<64x64x{ty}, #b>\n    %1 = ttg.convert_layout %0 : tensor<64x64x{ty}, #b> -> tensor<64x64x{ty}, #a>\n    tt.return\n  }}\n}}\n"
        );
        let f = synth::parse::parse_ttgir(&text).unwrap();
        let fwd = plan(
            &Conversion::from_op(&f.converts[0]).unwrap(),
            StrategyChoice::Auto,
        );
        let sh = fwd.plan.strategy.shuffle().expect("a shuffle-family plan");
        assert_eq!(
            sh.variant,
            ShuffleVariant::Select,
            "{ty}: {}",
            fwd.plan.strategy
        );
        assert_eq!(fwd.cost.shfl, 0, "{ty}");
        // one select per destination word (16-bit: the lane bit picks whole words)
        assert_eq!(fwd.cost.sel, 64 * 64 / 32 * bits / 32, "{ty}: {}", fwd.cost);
        assert_eq!(fwd.plan.kind, Kind::Register);
        let bwd = plan(
            &Conversion::from_op(&f.converts[1]).unwrap(),
            StrategyChoice::Auto,
        );
        assert!(
            bwd.plan
                .strategy
                .shuffle()
                .is_none_or(|s| s.variant != ShuffleVariant::Select),
            "{ty}: the reverse moves data between lanes: {}",
            bwd.plan.strategy
        );
    }
}
