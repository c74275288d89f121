//! Which element forms of 16-bit data hold the caller's arrays as words
//! (`synth::plan::element_form_words`): both arrays, two natural words at a
//! time, where the plan moves data through a packed form with at least
//! `WORDS_MIN_ELEMS` elements per thread on each side and either its words
//! are the natural pairs on one side or both, or an array's elements, one
//! register each, are over the launch bounds' limit less 16; element by
//! element otherwise. With 8-byte accesses NVVM widens the caller's array into
//! integers (inferred from the PTX of a model loop), so its per-element
//! work folds into 32-bit operations and a loop-carried array crosses the
//! loop edge as words; in h2h on an H200 (`results/runs/2026-11-27-h200-words-in-pairs-e882d04/`)
//! the 32-warp transpose ran faster this way than under the earlier rules
//! (32-bit words of the destination only).

use synth::parse::parse_ttgir;
use synth::plan::{
    element_form_holds_words, element_form_peak, element_form_rule, element_form_words,
    peak_registers, Conversion, HeldWords, StrategyChoice, WordsRule, WORDS_MIN_ELEMS,
};
use synth::search::{plan_conversion, Weights};

/// The chosen plan of the conversion of `file` (under the repository root)
/// whose name starts with `name`, and the CTA's threads.
fn chosen(file: &str, name: &str) -> (synth::plan::Plan, u32) {
    let p = format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(p).unwrap()).unwrap();
    let conv = f
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .find(|c| c.name.starts_with(name))
        .unwrap_or_else(|| panic!("{file} has {name}"));
    let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
    (ch.plan, 32 * conv.num_warps)
}

/// Both arrays as words for `file`'s conversion `name` under `rule`: the
/// packed form's predicted registers, and nothing held for 32-bit data.
fn holds_both(file: &str, name: &str, warps: u32, rule: WordsRule) {
    let (plan, threads) = chosen(file, name);
    assert_eq!(threads, 32 * warps, "{name}");
    assert!(plan.packed_form(16), "{name}");
    assert_eq!(element_form_rule(&plan, 16, threads), rule, "{name}");
    let held = element_form_words(&plan, 16, threads);
    assert_eq!(held, HeldWords::BOTH, "{name}");
    assert_eq!(held.name(), "both", "{name}");
    assert_eq!(
        element_form_peak(&plan, 16, threads),
        peak_registers(&plan, 16, true),
        "{name}"
    );
    assert!(!element_form_holds_words(&plan, 32, threads), "{name}");
    assert_eq!(
        element_form_peak(&plan, 32, threads),
        peak_registers(&plan, 32, false),
        "{name}"
    );
}

#[test]
fn natural_pairs_hold_both_arrays() {
    // the packed form's words are the natural pairs on both sides: no prmt
    // reorders them, at 16 warps and at 1 (both faster this way: measured
    // with h2h on an H200; see results/runs/2026-11-27-h200-words-in-pairs-e882d04/)
    holds_both(
        "tests/data/stress_w16.ttgir",
        "epilogue_f16_256x128",
        16,
        WordsRule::Natural,
    );
    holds_both(
        "tests/data/stress_w1.ttgir",
        "warp_local_f16_64x64",
        1,
        WordsRule::Natural,
    );
}

#[test]
fn natural_pairs_on_one_side_hold_both_arrays() {
    // prmt reorder one side's words only: both arrays (faster this way on
    // an H200, 1 warp and 4: see synth::plan::element_form_words)
    holds_both(
        "tests/data/triton_lowerings.ttgir",
        "wl_s16x1t2x16_s1x4t1x32_32x32_f16",
        1,
        WordsRule::OneSide,
    );
    holds_both(
        "tests/data/triton_lowerings.ttgir",
        "c2d_blk0_blk1_64x128_f16",
        4,
        WordsRule::OneSide,
    );
}

#[test]
fn an_array_over_the_limit_holds_both_arrays() {
    // 32 warps, 64 halves each side at 64 registers, prmt reordering the
    // words; 4 warps, a dot operand's 64 halves to 256 of a sliced 3-D one
    // over 255 less 16 (both faster this way: measured with h2h on an H200;
    // see results/runs/2026-11-27-h200-words-in-pairs-e882d04/)
    holds_both(
        "tests/data/stress_w32.ttgir",
        "transpose_f16_256x256",
        32,
        WordsRule::Over,
    );
    holds_both(
        "tests/data/triton_lowerings.ttgir",
        "c2d_d3a1_sd2b_64x128_f16",
        4,
        WordsRule::Over,
    );
}

#[test]
fn reordered_words_within_the_limit_stay_elements() {
    // prmt would reorder the words and one register per element fits:
    // element by element (holding both made some rows of Triton's tests
    // markedly slower; measured with h2h, see results/runs/2026-11-27-h200-words-in-pairs-e882d04/)
    for (file, name) in [
        (
            "corpus/ttgir/attn_bf16_d128_128x64_w8_sm80.ttgir",
            "attn:114",
        ),
        ("tests/data/stress_w8.ttgir", "epilogue_f16_t_128x256"),
    ] {
        let (plan, threads) = chosen(file, name);
        assert!(plan.packed_form(16), "{name}");
        assert_eq!(
            element_form_rule(&plan, 16, threads),
            WordsRule::None,
            "{name}"
        );
        assert!(!element_form_holds_words(&plan, 16, threads), "{name}");
        assert_eq!(
            element_form_peak(&plan, 16, threads),
            peak_registers(&plan, 16, false),
            "{name}"
        );
    }
}

#[test]
fn plans_that_pack_halves_before_a_select_hold_natural_words() {
    // a `/words` shuffle plan packs the halves itself and selects words
    // right after: read as natural words, the pack and the select fold into
    // one `prmt` (`words_in_natural_order`); a 16-bit pack straight into a
    // shuffle (a 1x64 tile with broadcast registers) stays element by element
    for (name, folded) in [
        ("c2d_mma3_d3a1_64x128_f16", true),
        ("wl_s1x1t32x1_s1x1t16x2_32x32_f16", true),
        // packs the natural pairs straight into a shuffle: no prmt at all
        ("wl_s1x1t1x32_s1x4t1x32_32x32_f16", true),
        ("c2d_d2b2_mma2_1x64_f16", false),
    ] {
        let (plan, threads) = chosen("tests/data/triton_lowerings.ttgir", name);
        assert!(
            plan.stages
                .iter()
                .any(|s| matches!(s, synth::plan::Stage::Pack { width: 16, .. })),
            "{name}"
        );
        let rule = element_form_rule(&plan, 16, threads);
        assert_eq!(rule == WordsRule::Folded, folded, "{name}: {rule:?}");
        assert_eq!(
            synth::plan::words_in_natural_order(&plan) == Some(16),
            folded,
            "{name}"
        );
        if folded {
            assert_eq!(element_form_words(&plan, 16, threads), HeldWords::BOTH);
        }
    }
}

#[test]
fn the_transpose_at_the_limit_holds_half_the_registers() {
    // 32 warps: 64 halves per thread on both sides at a 64-register limit;
    // as pairs of words the data is 32 registers
    let (plan, threads) = chosen("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    assert_eq!(threads, 1024);
    assert_eq!((plan.src_regs, plan.dst_regs), (64, 64));
    let peak = element_form_peak(&plan, 16, threads);
    assert_eq!(peak.data, 32);
    assert!(peak.peak <= synth::plan::register_limit(threads));
}

#[test]
fn few_elements_stay_element_by_element() {
    // fewer than WORDS_MIN_ELEMS halves per thread on a side
    let small = |p: &synth::plan::Plan| p.src_regs.min(p.dst_regs) < WORDS_MIN_ELEMS;
    let f = parse_ttgir(
        &std::fs::read_to_string(format!(
            "{}/../corpus/pairs.mlir",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    let mut seen = 0;
    for op in &f.converts {
        let conv = Conversion::from_op(op).unwrap();
        let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
        let threads = 32 * conv.num_warps;
        if small(&ch.plan) {
            seen += 1;
            assert_eq!(
                element_form_rule(&ch.plan, 16, threads),
                WordsRule::None,
                "{}",
                conv.name
            );
            assert_eq!(element_form_words(&ch.plan, 16, threads), HeldWords::NONE);
        }
    }
    assert!(
        seen > 0,
        "pairs.mlir has conversions of few elements per thread"
    );
}
