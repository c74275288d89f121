//! Which element forms of 16-bit data hold the caller's arrays as 32-bit
//! words (`synth::plan::element_form_holds_words`): only where one register
//! per element would leave one CTA resident per SM, words two or more, and
//! the words need no reordering. Measured on an H100 (`warpforge bench`,
//! `results/resources_h100.md`, fourth and sixth passes): words took
//! `stress_w16`'s `epilogue_f16_256x128` from 1.18x to 1.03x Triton's time
//! and made the other three conversions below slower.

use synth::parse::parse_ttgir;
use synth::plan::{
    element_form_holds_words, element_form_peak, peak_registers, resident_ctas_by_form, Conversion,
    StrategyChoice,
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

#[test]
fn one_cta_against_two_holds_words() {
    // 16 warps, 64 halves per thread: ~80 registers one per element (one
    // 512-thread CTA per SM), ~56 as words (two); the packed words are the
    // natural pairs
    let (plan, threads) = chosen("tests/data/stress_w16.ttgir", "epilogue_f16_256x128");
    assert_eq!(threads, 512);
    assert_eq!(resident_ctas_by_form(&plan, 16, threads), Some((1, 2)));
    assert!(element_form_holds_words(&plan, 16, threads));
    assert_eq!(
        element_form_peak(&plan, 16, threads),
        peak_registers(&plan, 16, true)
    );
    // the same plan for 32-bit elements has no words to hold
    assert!(!element_form_holds_words(&plan, 32, threads));
    assert_eq!(
        element_form_peak(&plan, 32, threads),
        peak_registers(&plan, 32, false)
    );
}

#[test]
fn two_or_more_ctas_stay_elements() {
    // 8 warps: one register per element leaves three CTAs, words four
    let (plan, threads) = chosen(
        "corpus/ttgir/attn_bf16_d128_128x64_w8_sm80.ttgir",
        "attn:114",
    );
    let (e, p) = resident_ctas_by_form(&plan, 16, threads).unwrap();
    assert!(e >= 2 && p > e, "{e} {p}");
    assert!(!element_form_holds_words(&plan, 16, threads));
    assert_eq!(
        element_form_peak(&plan, 16, threads),
        peak_registers(&plan, 16, false)
    );
}

#[test]
fn reordered_words_stay_elements() {
    // 8 warps, 128 halves per thread: one CTA against two, but the packed
    // words are not the natural pairs (128 prmt would reorder them)
    let (plan, threads) = chosen("tests/data/stress_w8.ttgir", "epilogue_f16_t_128x256");
    assert_eq!(resident_ctas_by_form(&plan, 16, threads), Some((1, 2)));
    assert!(!element_form_holds_words(&plan, 16, threads));
}

#[test]
fn one_cta_either_way_stays_elements() {
    // 32 warps: one 1024-thread CTA whatever the registers
    let (plan, threads) = chosen("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    assert_eq!(resident_ctas_by_form(&plan, 16, threads), Some((1, 1)));
    assert!(!element_form_holds_words(&plan, 16, threads));
}
