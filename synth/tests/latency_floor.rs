//! The cost model's latency floor (`synth::cost_model::Weights::floor_smem`,
//! `floor_shfl`): a one-warp conversion of a few elements per thread waits
//! on its dependent shared-memory trip, not on issue slots, so a shuffle
//! plan with more instructions is chosen over it (Triton issue 9680's 2x8
//! i16 tile: on an H100 the shuffle plans ran faster than the shared-memory
//! plan and than Triton's round trip, `results/runs/2026-11-24-h100-latency-floor-32e4483/`); at four
//! warps the same trip's latency is shared by the CTA's warps and no floor
//! binds.

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, Kind, SharedOptions, StrategyChoice};
use synth::search::{consider, plan_width, Weights};

fn regressions(name: &str) -> Conversion {
    let p = format!(
        "{}/../tests/data/regressions.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_ttgir(&std::fs::read_to_string(p).unwrap())
        .unwrap()
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .find(|c| c.name.starts_with(name))
        .unwrap()
}

fn chosen(c: &Conversion, w: &Weights) -> (Kind, f64, f64) {
    let opt = SharedOptions {
        elem_bits: plan_width(c),
        ..SharedOptions::default()
    };
    let k = &consider(c, StrategyChoice::Auto, w, &opt, None)
        .unwrap()
        .proven[0];
    (k.plan.kind, k.score, k.throughput)
}

#[test]
fn one_warp_tiny_tile_takes_the_shuffle_plan_over_the_shared_trip() {
    let c = regressions("issue9680_i16_m2");
    assert_eq!(c.num_warps, 1);
    let w = Weights::default();
    let (kind, score, throughput) = chosen(&c, &w);
    assert_eq!(
        kind,
        Kind::Shuffle,
        "score {score}, throughput {throughput}"
    );
    // the floor levels the shuffle candidates: the lowest throughput wins
    let opt = SharedOptions {
        elem_bits: plan_width(&c),
        ..SharedOptions::default()
    };
    let all = consider(&c, StrategyChoice::Auto, &w, &opt, None)
        .unwrap()
        .proven;
    let level: Vec<_> = all.iter().filter(|k| k.score == score).collect();
    assert!(level.len() > 1, "the floor levels no candidates");
    assert!(level.iter().all(|k| k.throughput >= throughput));
    assert!(level.iter().any(|k| k.throughput > throughput));
    // without the floors the shared plan's fewer instructions win
    let none = Weights::from_array(w.as_array());
    let (kind0, score0, throughput0) = chosen(&c, &none);
    assert_eq!(kind0, Kind::Shared);
    assert_eq!(score0, throughput0);
    assert!(throughput0 < throughput, "{throughput0} vs {throughput}");
    // every shared candidate scores at least one trip's floor at one warp
    for k in consider(&c, StrategyChoice::Shared, &w, &opt, None)
        .unwrap()
        .proven
    {
        assert!(k.score >= w.floor_smem, "{}: {}", k.plan.strategy, k.score);
    }
}

#[test]
fn at_four_warps_the_floor_does_not_bind_on_the_same_tile() {
    let mut c = regressions("issue9680_i16_m2");
    c.num_warps = 4;
    let w = Weights::default();
    let none = Weights::from_array(w.as_array());
    let (kind, score, throughput) = chosen(&c, &w);
    let (kind0, _, _) = chosen(&c, &none);
    assert_eq!(kind, kind0);
    assert_eq!(score, throughput);
}
