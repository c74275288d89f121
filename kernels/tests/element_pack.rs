//! The element form (`T src[N]`) of a plan that shuffles packed words
//! builds its words with shifts and ORs of the zero-extended elements, not
//! with `__byte_perm`: ptxas emits the same PRMT/LOP3 for either, but NVVM
//! can see through shifts and ORs, so a caller's per-element arithmetic
//! between two helpers folds into word operations (measured with nvcc 13.0
//! on an H100: `results/h2h_h100.md`, 8/16-bit shuffle cases 1.43x -> 0.94x
//! of Triton's time in the reference harness). Its 8-bit arrays are read
//! and written as natural 32-bit words (`memcpy`), so the caller's arrays
//! stay in 32-bit registers (`results/h2h_registers.md`).

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, Stage, StrategyChoice};
use synth::search::{plan_conversion, Weights};

/// The chosen plan of the `pairs.mlir` conversion whose name starts with
/// `name`, and its element-form body.
fn planned(name: &str) -> (synth::plan::Plan, Vec<String>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/pairs.mlir");
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    let conv = f
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .find(|c| c.name.starts_with(name))
        .unwrap_or_else(|| panic!("pairs.mlir has {name}"));
    let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
    let body = kernels::body(&conv.name, &ch.plan).unwrap();
    (ch.plan, body)
}

#[test]
fn element_form_packs_words_with_shifts_not_byte_perm() {
    let (plan, body) = planned("mma3_to_dot_fp8");
    assert!(
        matches!(plan.stages.first(), Some(Stage::Pack { width: 8, .. })),
        "the fp8 attention operand shuffles packed words: {:?}",
        plan.strategy
    );
    let first_shfl = body
        .iter()
        .position(|l| l.contains("shfl"))
        .expect("a shuffle plan shuffles");
    let pun: Vec<&String> = body[..first_shfl]
        .iter()
        .filter(|l| l.contains("memcpy("))
        .collect();
    assert_eq!(
        pun,
        ["unsigned src_w[16]; memcpy(src_w, src, sizeof(src_w));"],
        "the 64 source bytes are read as 16 natural words"
    );
    let packs: Vec<&String> = body[..first_shfl]
        .iter()
        .filter(|l| l.starts_with("const unsigned k0_"))
        .collect();
    // 64 elements into 16 words, each word one OR of 4 shifted elements
    assert_eq!(packs.len(), 16, "{packs:#?}");
    for l in &packs {
        assert!(!l.contains("__byte_perm"), "{l}");
        assert_eq!(l.matches("detail::to_u32(").count(), 4, "{l}");
        assert_eq!(l.matches(" << ").count(), 3, "{l}");
        assert!(l.contains("src_w["), "{l}");
    }
    assert!(!body.iter().any(|l| l.contains("src[")), "no element reads");
    assert!(
        !body.iter().any(|l| l.starts_with("dst[")),
        "no element writes"
    );
    let tail = &body[body.len() - 18..];
    assert_eq!(tail[0], "unsigned dst_w[16];");
    assert_eq!(tail[17], "memcpy(dst, dst_w, sizeof(dst_w));");
    for (k, l) in tail[1..17].iter().enumerate() {
        assert!(l.starts_with(&format!("dst_w[{k}] = ")), "{l}");
        assert_eq!(l.matches("detail::to_u32(").count(), 4, "{l}");
    }
}

/// Small 8-bit arrays stay elements: with 16 bytes per thread the punned
/// form measured slower (`kernels::PUN_MIN_ELEMS`).
#[test]
fn small_byte_arrays_are_not_read_as_words() {
    let (plan, body) = planned("mma2_acc_to_dot_a_i8");
    assert!(matches!(
        plan.stages.first(),
        Some(Stage::Pack { width: 8, .. })
    ));
    assert!(plan.src_regs < kernels::PUN_MIN_ELEMS);
    assert!(!body.iter().any(|l| l.contains("memcpy(")), "{body:#?}");
    assert!(body.iter().any(|l| l.contains("detail::to_u32(src[")));
    assert!(body.iter().any(|l| l.starts_with("dst[")));
}
