//! The element form of 16-bit data moves the caller's arrays as natural
//! 32-bit words through the packed form only where one register per
//! element would leave one CTA resident per SM and words two
//! (`synth::plan::element_form_holds_words`); elsewhere it stays element by
//! element. Measured on an H100 (`results/resources_h100.md`, sixth pass):
//! `stress_w16`'s `epilogue_f16_256x128` element form 1.180x -> 1.027x
//! Triton's time in `warpforge bench`.

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, StrategyChoice};
use synth::search::{plan_conversion, Weights};

/// The emitted helper of the conversion of `file` (under the repository
/// root) whose name starts with `name`, for its own element width.
fn helper(file: &str, name: &str) -> kernels::EmittedHelper {
    let p = format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(p).unwrap()).unwrap();
    let conv = f
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .find(|c| c.name.starts_with(name))
        .unwrap_or_else(|| panic!("{file} has {name}"));
    let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
    kernels::emit_helper(&conv, &ch).unwrap()
}

/// The lines of the templated element form (`<ident>(const T (&src)...`).
fn element_form(h: &kernels::EmittedHelper) -> Vec<&str> {
    let head = format!("void {}(const T (&src)", h.ident);
    let code = &h.code;
    let at = code.find(&head).expect("an element form");
    code[at..].lines().take_while(|l| *l != "}").collect()
}

#[test]
fn one_cta_element_form_moves_natural_words_through_the_packed_form() {
    let h = helper("tests/data/stress_w16.ttgir", "epilogue_f16_256x128");
    let body = element_form(&h);
    let call = format!("{}_packed16(src_w, pk_dst, smem);", h.ident);
    assert!(body.iter().any(|l| l.trim() == call), "{}", body.join("\n"));
    // every natural word in and out, one 4-byte memcpy each, no reordering
    for k in 0..32 {
        let ld = format!("src_w[{k}] = detail::ld_word(&src[{}]);", 2 * k);
        let st = format!("detail::st_word(&dst[{}], pk_dst[{k}]);", 2 * k);
        assert!(body.iter().any(|l| l.trim() == ld), "{ld}");
        assert!(body.iter().any(|l| l.trim() == st), "{st}");
    }
    assert!(!body.iter().any(|l| l.contains("__byte_perm(")));
    assert!(!body.iter().any(|l| l.contains("dst[0] = ")));
    // the header says so, and what one register per element would leave
    assert!(h.code.contains(
        "16-bit elements in this form: the arrays move as natural 32-bit words (memcpy) through"
    ));
    assert!(h.code.contains("held as 32-bit words"));
    assert!(h.code.contains(
        "one register per element (~80) would leave 1 CTA of 512 threads resident per SM, words 2"
    ));
}

#[test]
fn element_forms_that_keep_two_ctas_stay_element_by_element() {
    for (file, name) in [
        (
            "corpus/ttgir/attn_bf16_d128_128x64_w8_sm80.ttgir",
            "attn:114",
        ),
        ("tests/data/stress_w8.ttgir", "epilogue_f16_t_128x256"),
        ("tests/data/stress_w32.ttgir", "transpose_f16_256x256"),
    ] {
        let h = helper(file, name);
        let body = element_form(&h);
        assert!(
            !body.iter().any(|l| l.contains("_packed16(")),
            "{name}: {}",
            body.join("\n")
        );
        assert!(
            body.iter().any(|l| l.trim().starts_with("dst[0] = ")),
            "{name}"
        );
        assert!(!h.code.contains("held as 32-bit words"), "{name}");
    }
}
