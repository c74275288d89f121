//! Registers in planning (issue 23): every candidate carries its predicted
//! register peak; the cost model charges each predicted register over the
//! launch bounds' limit (`spill`, a shuffle plan's once per pass over its data); candidates over the register cap rank
//! after every candidate within it, whatever their instruction scores.

mod common;

use common::conversion;
use synth::cost_model::{Features, DEFAULT_SPILL_WEIGHT};
use synth::plan::{
    peak_registers, preferred_peak, register_limit, Kind, SharedOptions, StrategyChoice,
};
use synth::search::{consider, plan_width, register_cap, Weights};

#[test]
fn the_spill_feature_counts_registers_over_the_launch_bounds_limit() {
    // 128 f64 elements per thread at 4 warps: 256 registers of data alone,
    // over the 255 any thread has, so every candidate spills
    let c = conversion("tests/data/stress_w4.ttgir", "transpose_f64_128x128");
    let bits = plan_width(&c);
    assert_eq!(bits, 64);
    let opt = SharedOptions {
        elem_bits: bits,
        ..SharedOptions::default()
    };
    let w = Weights::default();
    assert_eq!(w.spill, DEFAULT_SPILL_WEIGHT);
    let cons = consider(&c, StrategyChoice::Auto, &w, &opt, None).unwrap();
    assert!(!cons.proven.is_empty());
    assert_eq!(register_cap(&c, &opt), register_limit(128));
    for k in &cons.proven {
        let peak = peak_registers(&k.plan, bits, false).peak;
        assert_eq!(k.peak_registers, peak);
        assert!(k.over_registers, "{}: {peak}", k.plan.strategy);
        let f = Features::for_width(&k.plan, bits).with_spill(
            &k.plan,
            bits,
            false,
            register_limit(128),
        );
        // a shuffle plan's excess counts once per pass over its data: one
        // for the caller's arrays and one per shuffle, select or byte
        // permute of each element (the plan's own counts, per element, over
        // its elements: a 64-bit element is one element in two registers)
        let elems = peak_registers(&k.plan, bits, false).data / 2;
        let own = k.plan.cost();
        let passes = if k.plan.kind == synth::plan::Kind::Shuffle {
            1.0 + (own.shfl + own.sel + own.prmt) as f64 / elems as f64
        } else {
            1.0
        };
        assert_eq!(f.spill, (peak - 255) as f64 * passes);
        // the score charges exactly those registers
        let base = w.score_for_width(&k.plan, bits);
        assert!(
            (k.score - base - w.spill * f.spill).abs() < 1e-9,
            "{}",
            k.plan.strategy
        );
    }
    // one warp's 64x64 transpose with 64-bit elements: 256 registers of
    // data, over the limit, and shuffle plans among its candidates; a
    // shuffle plan makes as many passes over its 128 elements as its 32-bit
    // twin over 128 words (its own counts per element), though its width
    // form counts each 64-bit shuffle and select as two
    let c = conversion("tests/data/stress_w1.ttgir", "warp_local_f32_64x64");
    let opt64 = SharedOptions {
        elem_bits: 64,
        ..SharedOptions::default()
    };
    let cons = consider(&c, StrategyChoice::Auto, &w, &opt64, None).unwrap();
    let shuffles: Vec<_> = cons
        .proven
        .iter()
        .filter(|k| k.plan.kind == Kind::Shuffle)
        .collect();
    assert!(!shuffles.is_empty());
    for k in shuffles {
        let p = peak_registers(&k.plan, 64, false);
        assert!(p.peak > 255 && p.data == 256, "{p:?}");
        let own = k.plan.cost();
        let passes = 1.0 + (own.shfl + own.sel + own.prmt) as f64 / 128.0;
        let f = Features::for_width(&k.plan, 64).with_spill(&k.plan, 64, false, 255);
        assert_eq!(
            f.spill,
            (p.peak - 255) as f64 * passes,
            "{}",
            k.plan.strategy
        );
    }
    // one warp's 64x64 f32 transpose fits: no spill charged
    let opt = SharedOptions::default();
    let cons = consider(&c, StrategyChoice::Auto, &w, &opt, None).unwrap();
    for k in &cons.proven {
        assert!(!k.over_registers);
        assert_eq!(
            k.score,
            w.score_for_width(&k.plan, 32),
            "{}",
            k.plan.strategy
        );
    }
}

#[test]
fn candidates_over_the_register_cap_rank_after_those_within_it() {
    let c = conversion("tests/data/stress_w1.ttgir", "warp_local_f32_64x64");
    let w = Weights::default();
    let free = consider(
        &c,
        StrategyChoice::Auto,
        &w,
        &SharedOptions::default(),
        None,
    )
    .unwrap();
    let best = &free.proven[0];
    // by instructions the shuffle wins, with the higher predicted peak
    assert!(
        best.plan.strategy.family() == Kind::Shuffle,
        "{}",
        best.plan.strategy
    );
    let lowest = free.proven.iter().map(|k| k.peak_registers).min().unwrap();
    assert!(lowest < best.peak_registers);
    // a cap under the shuffle's peak and over a shared plan's
    let cap = best.peak_registers - 1;
    assert!(lowest <= cap);
    let opt = SharedOptions {
        max_registers: Some(cap),
        ..SharedOptions::default()
    };
    let capped = consider(&c, StrategyChoice::Auto, &w, &opt, None).unwrap();
    let first = &capped.proven[0];
    assert!(first.peak_registers <= cap && !first.over_registers);
    assert_eq!(first.peak_registers, preferred_peak(&first.plan, 32).0.peak);
    // every candidate within the cap precedes every one over it, each
    // group in score order
    let over_at = capped
        .proven
        .iter()
        .position(|k| k.over_registers)
        .expect("the shuffle is over the cap");
    assert!(capped.proven[over_at..].iter().all(|k| k.over_registers));
    for g in [&capped.proven[..over_at], &capped.proven[over_at..]] {
        assert!(g.windows(2).all(|p| p[0].score <= p[1].score));
    }
    // the spill charged is the registers over the cap, not over the
    // launch bounds' 255, a shuffle's once per pass over its data
    // (`Features::spill_passes`)
    for k in &capped.proven[over_at..] {
        let passes = Features::for_width(&k.plan, 32)
            .spill_passes(k.plan.kind, peak_registers(&k.plan, 32, false).data);
        assert!(k.plan.kind != Kind::Shuffle || passes > 1.0);
        let over = (k.peak_registers - cap) as f64 * passes;
        assert!(
            (k.score - w.score_for_width(&k.plan, 32) - w.spill * over).abs() < 1e-9,
            "{}: {} over {cap}",
            k.plan.strategy,
            k.peak_registers
        );
    }
}

/// A cap above the launch bounds' limit cannot raise it: 16 warps allow
/// 128 registers whatever `--max-registers` says.
#[test]
fn the_register_cap_is_at_most_the_launch_bounds_limit() {
    let c = conversion("tests/data/stress_w16.ttgir", "epilogue_f16_256x128");
    assert_eq!(c.num_warps, 16);
    let cap = |n: Option<u32>| {
        register_cap(
            &c,
            &SharedOptions {
                max_registers: n,
                ..SharedOptions::default()
            },
        )
    };
    assert_eq!(cap(None), 128);
    assert_eq!(cap(Some(200)), 128);
    assert_eq!(cap(Some(96)), 96);
}
