//! Which element forms of 16-bit data hold the caller's arrays as 32-bit
//! words (`synth::plan::element_form_words`): the destination where one
//! register per element would leave one CTA resident per SM, words two or
//! more, and the words need no reordering (both arrays before the sixteenth
//! pass); else the source where its elements alone
//! exceed the register limit less 16 while the destination's do not, and
//! the destination where both exceed it. Measured on an H100 (`warpforge bench`,
//! `results/resources_h100.md`, fourth and sixth passes): words took
//! `stress_w16`'s `epilogue_f16_256x128` from 1.18x to 1.03x Triton's time
//! and made the other three conversions below slower.

use synth::parse::parse_ttgir;
use synth::plan::{
    ctas_per_sm_by_registers, element_form_holds_words, element_form_peak, element_form_rule,
    element_form_words, peak_registers, resident_ctas_by_form, Conversion, HeldWords,
    StrategyChoice, WordsRule,
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
    assert_eq!(
        element_form_rule(&plan, 16, threads),
        WordsRule::Occupancy { word_ctas: 2 }
    );
    // the destination leaves as words; the source is read element by element
    assert_eq!(element_form_words(&plan, 16, threads), HeldWords::DST);
    // predicted peak: the source's 64 halves at the call's boundary, above
    // the packed form's ~56, and still two CTAs of 512 threads per SM
    let peak = element_form_peak(&plan, 16, threads);
    assert_eq!(peak.peak, 64);
    assert_eq!(peak_registers(&plan, 16, true).peak, 56);
    assert_eq!(ctas_per_sm_by_registers(peak.peak, threads), 2);
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
fn one_cta_either_way_is_not_the_cta_rule() {
    // 32 warps: one 1024-thread CTA whatever the registers, so the CTA rule
    // does not apply; the destination is words by the limit rule
    // (both_arrays_over_the_limit_hold_the_destination)
    let (plan, threads) = chosen("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    assert_eq!(resident_ctas_by_form(&plan, 16, threads), Some((1, 1)));
    assert_eq!(element_form_rule(&plan, 16, threads), WordsRule::BothOver);
}

#[test]
fn one_array_over_the_limit_holds_words() {
    // Triton's Gluon test_convert_mma2mma_layouts, 16 warps (128 registers
    // per thread): mma v3 [2, 8] n64 -> [8, 2] n32 of 128x128 f16 holds 128
    // halves per thread in the source (the warps broadcast) and 32 in the
    // destination. One register per source element is over the limit less
    // 16: the source moves as words, the destination element by element
    let (plan, threads) = chosen(
        "tests/data/triton_lowerings.ttgir",
        "m2m_m3w28n64k32_m3w82n32k32_128x128",
    );
    assert_eq!(threads, 512);
    assert_eq!((plan.src_regs, plan.dst_regs), (128, 32));
    let held = element_form_words(&plan, 16, threads);
    assert_eq!(held, HeldWords::SRC);
    assert_eq!(held.name(), "src");
    // the predicted peak counts the source as 64 words
    assert_eq!(element_form_peak(&plan, 16, threads).data, 64);
    // the reverse conversion (32 halves to 128) stays element by element:
    // its destination over the limit is what a caller would work on
    let (rev, _) = chosen(
        "tests/data/triton_lowerings.ttgir",
        "m2m_m3w82n32k32_m3w28n64k32_128x128",
    );
    assert_eq!((rev.src_regs, rev.dst_regs), (32, 128));
    assert_eq!(element_form_words(&rev, 16, threads), HeldWords::NONE);
    // 32-bit elements have no words to hold
    assert_eq!(element_form_words(&plan, 32, threads), HeldWords::NONE);
}

#[test]
fn both_arrays_over_the_limit_hold_the_destination() {
    // 32 warps: 64 halves per thread on both sides at a 64-register limit.
    // Element by element the round trip spills; the destination leaves the
    // helper as words (the array a loop carries back or a next call reads),
    // the source stays as the caller made it
    let (plan, threads) = chosen("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    assert_eq!(threads, 1024);
    assert_eq!((plan.src_regs, plan.dst_regs), (64, 64));
    let held = element_form_words(&plan, 16, threads);
    assert_eq!(held, HeldWords::DST);
    assert_eq!(held.name(), "dst");
    // the predicted peak counts the larger side: the source, 64 elements
    assert_eq!(element_form_peak(&plan, 16, threads).data, 64);
    // both over at 16 warps (128 halves each side at 128 registers) and at
    // 4 warps (256 halves each side at 255): the destination as well
    for (name, warps) in [
        ("m2m_m20w28_m20w82_256x256", 16),
        ("c2d_d2b2_sd2b_64x128", 4),
    ] {
        let (p, t) = chosen("tests/data/triton_lowerings.ttgir", name);
        assert_eq!(t, 32 * warps, "{name}");
        assert_eq!(element_form_words(&p, 16, t).name(), "dst", "{name}");
    }
    // one side over only: the rule before (the source where it is the one)
    let (one, t) = chosen(
        "tests/data/triton_lowerings.ttgir",
        "m2m_m3w28n64k32_m3w82n32k32_128x128",
    );
    assert_eq!(element_form_words(&one, 16, t).name(), "src");
}
