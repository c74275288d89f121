//! 64-bit elements: a shuffle plan moves each as its two 32-bit halves
//! and selects it with two `SEL`, so its shuffles and selects count twice
//! at 64 bits (`Plan::width_form`); a shared-memory plan's accesses
//! already move the 64-bit vectors. `tests/data/i64_transpose_w1.ttgir`
//! (Triton's `int_trans_reduce`, i64, one warp) then takes shared memory,
//! as Triton's lowering does, where counting each element once chose
//! shuffles that ran about 2x slower (h2h on an H200:
//! `results/runs/2026-11-29-h200-i64-shuffle-cost-3018c7c/`).

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, Kind, SharedOptions, StrategyChoice};
use synth::search::{plan_conversion_with, Weights};

fn conversion() -> Conversion {
    let path = format!(
        "{}/../tests/data/i64_transpose_w1.ttgir",
        env!("CARGO_MANIFEST_DIR")
    );
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    let op = f
        .converts
        .iter()
        .find(|o| o.line == 35)
        .expect("the transpose at line 35");
    Conversion::from_op(op).unwrap()
}

fn planned(c: &Conversion, s: StrategyChoice) -> synth::search::Chosen {
    let opt = SharedOptions {
        elem_bits: 64,
        ..SharedOptions::default()
    };
    plan_conversion_with(c, s, &Weights::default().for_conversion_at(c, 64), &opt).unwrap()
}

#[test]
fn a_shuffle_plan_counts_each_64_bit_element_as_two_words() {
    let c = conversion();
    let shfl = planned(&c, StrategyChoice::Shuffle);
    assert_eq!(shfl.plan.kind, Kind::Shuffle);
    let (once, at64) = (shfl.plan.cost(), shfl.plan.width_form(64).0);
    assert!(once.shfl > 0 && once.sel > 0, "{once:?}");
    assert_eq!((at64.shfl, at64.sel), (2 * once.shfl, 2 * once.sel));
    assert_eq!(shfl.plan.width_form(32).0, once);
    // a shared-memory plan's counts stand as they are
    let smem = planned(&c, StrategyChoice::Shared);
    assert_eq!(smem.plan.width_form(64).0, smem.plan.cost());
    // and the chosen plan is the shared-memory one
    let chosen = planned(&c, StrategyChoice::Auto);
    assert_eq!(chosen.plan.kind, Kind::Shared, "{}", chosen.plan.strategy);
}
