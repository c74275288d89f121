//! Among candidates the cost model cannot tell apart, a 16-bit element form
//! that builds its stored words by `prmt` from the caller's natural pairs
//! takes the narrower shared-memory stores
//! (`synth::plan::element_form_store_bytes`, ranked in
//! `synth::search::consider`). Measured with `warpforge bench` on an H200
//! (`results/runs/2026-11-27-h200-store-width-ce85994/`): the 32-warp f16 transpose's element
//! form ran faster with 8-byte stores in both directions in place of
//! 16-byte ones, its packed form unchanged.

mod common;

use common::conversion;
use synth::parse::parse_ttgir;
use synth::plan::{element_form_store_bytes, Conversion, SharedOptions, StrategyChoice};
use synth::search::{consider, plan_conversion, plan_width, Weights};

#[test]
fn the_transpose_takes_8_byte_stores_over_a_tied_16_byte_candidate() {
    let conv = conversion("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    let opt = SharedOptions {
        elem_bits: plan_width(&conv),
        ..SharedOptions::default()
    };
    assert_eq!(opt.elem_bits, 16);
    let c = consider(&conv, StrategyChoice::Auto, &Weights::default(), &opt, None).unwrap();
    let first = &c.proven[0];
    assert_eq!(
        element_form_store_bytes(&first.plan, 16),
        8,
        "{}",
        first.plan.strategy
    );
    // a candidate with 16-byte stores ties with it on everything the cost
    // model sees, and ranks after it
    let tied = c
        .proven
        .iter()
        .find(|x| {
            !x.over_registers
                && x.score == first.score
                && x.throughput == first.throughput
                && element_form_store_bytes(&x.plan, 16) == 16
        })
        .expect("a tied candidate with 16-byte stores");
    assert_eq!(tied.sim.bank_conflicts, first.sim.bank_conflicts);
    // the same plan is what `plan_conversion` returns
    let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
    assert_eq!(ch.plan.strategy, first.plan.strategy);
    assert_eq!(element_form_store_bytes(&ch.plan, 16), 8);
}

#[test]
fn other_widths_and_natural_pairs_have_no_preference() {
    let conv = conversion("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
    // 32/64-bit and 8-bit elements: no key
    for bits in [8, 32, 64] {
        assert_eq!(element_form_store_bytes(&ch.plan, bits), 0, "{bits}");
    }
    // 16-bit plans whose packed source words are the natural pairs (no prmt
    // before a store), and plans that move nothing through shared memory
    let p = format!("{}/../corpus/pairs.mlir", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(p).unwrap()).unwrap();
    let mut natural = 0;
    for op in &f.converts {
        let conv = Conversion::from_op(op).unwrap();
        if plan_width(&conv) != 16 {
            continue;
        }
        let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
        let lowest = synth::plan::pack::plan_maps(&ch.plan, 16).0.is_lowest();
        let bytes = element_form_store_bytes(&ch.plan, 16);
        if ch.plan.kind != synth::plan::Kind::Shared || !ch.plan.packed_form(16) || lowest {
            assert_eq!(bytes, 0, "{}: {}", conv.name, ch.plan.strategy);
            natural += lowest as u32;
        } else {
            assert!(bytes > 0, "{}: {}", conv.name, ch.plan.strategy);
        }
    }
    assert!(
        natural > 0,
        "some 16-bit plan of the corpus keeps natural pairs"
    );
}
