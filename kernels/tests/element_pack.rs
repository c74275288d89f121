//! The element form (`T src[N]`) of a plan that shuffles packed 8-bit
//! words reads and writes the caller's arrays as natural 32-bit words
//! (`memcpy`) from `kernels::PUN_MIN_ELEMS` elements per thread, and builds
//! the plan's words from them, and the destination words from the plan's,
//! by `__byte_perm` programs: one `prmt` per word that takes bytes from two
//! words; a select of the plan that feeds a destination word folds into
//! that `prmt` as a lane-dependent selector (Triton's transposition
//! selectors). The `prmt` programs make `mma3_to_dot_fp8` faster (measured
//! in the reference harness on an H100; see `results/runs/2026-11-22-h100-h2h-registers-2d224f9/README.md`).
//! Smaller arrays stay elements, packed with shifts and ORs
//! that NVVM sees through, so a caller's per-element arithmetic between two
//! helpers folds into word operations.

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, Stage, StrategyChoice};
use synth::search::{plan_conversion, Weights};

/// The chosen plan of the `pairs.mlir` conversion whose name starts with
/// `name`, and its element-form body.
fn planned(name: &str) -> (synth::plan::Plan, Vec<String>) {
    planned_dir(name, false)
}

/// [`planned`], or of the reverse conversion (destination to source) when
/// `reverse`.
fn planned_dir(name: &str, reverse: bool) -> (synth::plan::Plan, Vec<String>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/pairs.mlir");
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    let conv = f
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .find(|c| c.name.starts_with(name))
        .unwrap_or_else(|| panic!("pairs.mlir has {name}"));
    let mut conv = conv;
    if reverse {
        std::mem::swap(&mut conv.src, &mut conv.dst);
        std::mem::swap(&mut conv.src_text, &mut conv.dst_text);
        conv.name = format!("{}_reverse", conv.name);
    }
    let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
    let body = kernels::body(&conv.name, &ch.plan).unwrap();
    (ch.plan, body)
}

/// Index of the first shuffle line of a shuffle plan's body.
fn first_shuffle(body: &[String]) -> usize {
    body.iter()
        .position(|l| l.contains("shfl"))
        .expect("a shuffle plan shuffles")
}

/// The `__byte_perm` lines of `lines`.
fn byte_perms(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.contains("__byte_perm("))
        .collect()
}

/// Shuffles, selects (`?:`, lane selectors included) and byte permutes in a
/// body: what its SASS has as SHFL, SEL and PRMT.
fn shfl_sel_prmt(body: &[String]) -> (usize, usize, usize) {
    let count = |pat: &str| body.iter().filter(|l| l.contains(pat)).count();
    (count("detail::shfl_"), count(" ? "), count("__byte_perm("))
}

/// `__byte_perm` operands of a line: `(a, b)`.
fn perm_args(l: &str) -> Option<(String, String)> {
    let i = l.find("__byte_perm(")? + "__byte_perm(".len();
    let mut it = l[i..].split(", ");
    Some((it.next()?.to_string(), it.next()?.to_string()))
}

#[test]
fn large_byte_arrays_move_as_natural_words_through_byte_perm() {
    let (plan, body) = planned("mma3_to_dot_fp8");
    assert!(
        matches!(plan.stages.first(), Some(Stage::Pack { width: 8, .. })),
        "the fp8 attention operand shuffles packed words: {:?}",
        plan.strategy
    );
    let first_shfl = first_shuffle(&body);
    let pun: Vec<String> = body[..first_shfl]
        .iter()
        .filter(|l| l.contains("detail::ld_word("))
        .cloned()
        .collect();
    let want: Vec<String> = (0..16)
        .map(|k| format!("src_w[{k}] = detail::ld_word(&src[{}]);", 4 * k))
        .collect();
    assert_eq!(
        pun, want,
        "the 64 source bytes are read as 16 natural words, one 4-byte memcpy each"
    );
    // 8-bit words move one at a time (two at a time is 16-bit data's:
    // measured slower on three of the corpus's 8-bit conversions; see
    // results/runs/2026-11-27-h200-store-width-ce85994/e8_words8/)
    assert!(
        !body
            .iter()
            .any(|l| l.contains("detail::ld_dword(") || l.contains("detail::st_dword(")),
        "{body:#?}"
    );
    // The plan packs register bits 0 and 3, the natural words bits 0 and 1:
    // each plan word takes two bytes from each of two natural words, one
    // prmt each, straight from the natural words.
    let before = byte_perms(&body[..first_shfl]);
    assert_eq!(before.len(), 16, "{before:#?}");
    for l in &before {
        let (a, b) = perm_args(l).unwrap();
        assert!(
            a.starts_with("src_w[") && b.starts_with("src_w[") && a != b,
            "{l}"
        );
    }
    assert!(
        !body
            .iter()
            .any(|l| l.contains("detail::to_u32(") || l.contains("from_u32")),
        "no byte is extracted or shifted: {body:#?}"
    );
    assert!(
        !body
            .iter()
            .any(|l| l.contains("src[") && !l.contains("detail::ld_word(&src[")),
        "no element reads"
    );
    assert!(
        !body.iter().any(|l| l.starts_with("dst[")),
        "no element writes"
    );
    // 16 destination words, one prmt each straight from two shuffled words:
    // the plan's select after the shuffle folds into a lane-dependent
    // selector (two of them, one select each), so no other select is left
    // after the shuffles, and the whole form is Triton's 16 SHFL + 18 SEL +
    // 32 PRMT
    let after = byte_perms(&body[first_shfl..]);
    assert_eq!(after.len(), 16, "{after:#?}");
    for l in &after {
        let (a, b) = perm_args(l).unwrap();
        assert!(a.starts_with("w2_") && b.starts_with("w2_"), "{l}");
        assert!(l.ends_with(", ps0);") || l.ends_with(", ps1);"), "{l}");
    }
    let selects_after: Vec<&String> = body[first_shfl..]
        .iter()
        .filter(|l| l.contains(" ? "))
        .collect();
    assert_eq!(selects_after.len(), 2, "{selects_after:#?}");
    assert!(selects_after
        .iter()
        .all(|l| l.starts_with("const unsigned ps")));
    assert_eq!(shfl_sel_prmt(&body), (16, 18, 32));
    // the destination leaves as 16 natural words, one 4-byte memcpy each
    let tail = &body[body.len() - 16..];
    for (k, l) in tail.iter().enumerate() {
        assert!(
            l.starts_with(&format!("detail::st_word(&dst[{}], q", 4 * k)),
            "{l}"
        );
    }
}

/// The reverse of `mma3_to_dot_fp8` selects between two words before its
/// shuffles that are byte permutes of the same two natural words: each
/// select folds with them into one `prmt` of the natural words with a
/// lane-dependent selector, declared before its first use, and the plan's
/// unfolded words are gone from the source. Again Triton's 16 SHFL + 18 SEL +
/// 32 PRMT.
#[test]
fn selects_before_the_shuffle_fold_into_the_natural_word_prmt() {
    let (plan, body) = planned_dir("mma3_to_dot_fp8", true);
    assert!(matches!(
        plan.stages.first(),
        Some(Stage::Pack { width: 8, .. })
    ));
    let first_shfl = first_shuffle(&body);
    let before = byte_perms(&body[..first_shfl]);
    assert_eq!(before.len(), 16, "{body:#?}");
    for l in &before {
        let (a, b) = perm_args(l).unwrap();
        assert!(a.starts_with("src_w[") && b.starts_with("src_w["), "{l}");
        assert!(
            l.starts_with("const unsigned w1_"),
            "the shuffled words: {l}"
        );
        assert!(l.ends_with(", ps0);") || l.ends_with(", ps1);"), "{l}");
    }
    for ps in ["ps0", "ps1"] {
        let decl = body
            .iter()
            .position(|l| l.starts_with(&format!("const unsigned {ps} = p")))
            .unwrap_or_else(|| panic!("{ps} declared: {body:#?}"));
        let first_use = body
            .iter()
            .position(|l| l.ends_with(&format!(", {ps});")))
            .unwrap();
        assert!(decl < first_use, "{ps} declared before it is read");
    }
    assert!(
        !body.iter().any(|l| l.starts_with("const unsigned k0_")),
        "the plan's unfolded words are not left in the source: {body:#?}"
    );
    assert_eq!(shfl_sel_prmt(&body), (16, 18, 32));
}

/// From [`kernels::PUN_MIN_ELEMS`] (16) bytes per thread the arrays move as
/// words; the 4-byte `mma2_to_blocked_i8` stays elements (measured slower
/// as words).
#[test]
fn byte_arrays_move_as_words_from_the_threshold() {
    let (plan, body) = planned("mma2_acc_to_dot_a_i8");
    assert!(matches!(
        plan.stages.first(),
        Some(Stage::Pack { width: 8, .. })
    ));
    assert_eq!(plan.src_regs, kernels::PUN_MIN_ELEMS);
    for k in 0..4 {
        let ld = format!("src_w[{k}] = detail::ld_word(&src[{}]);", 4 * k);
        assert!(body.iter().any(|l| *l == ld), "{ld}: {body:#?}");
        let st = format!("detail::st_word(&dst[{}], ", 4 * k);
        assert!(body.iter().any(|l| l.starts_with(&st)), "{st}: {body:#?}");
    }
    // no element is read but through the words
    assert!(!body
        .iter()
        .any(|l| l.contains("src[") && !l.contains("detail::ld_word(&src[")));

    let (plan, body) = planned("mma2_to_blocked_i8");
    assert!(matches!(
        plan.stages.first(),
        Some(Stage::Pack { width: 8, .. })
    ));
    assert!(plan.src_regs < kernels::PUN_MIN_ELEMS);
    assert!(
        !body.iter().any(|l| l.contains("detail::ld_word(")),
        "{body:#?}"
    );
    assert!(body.iter().any(|l| l.contains("detail::to_u32(src[")));
    assert!(body.iter().any(|l| l.starts_with("dst[")));
}
