//! The element form of 16-bit data moves the caller's arrays as natural
//! 32-bit words, two at a time (an 8-byte `memcpy`), through the packed
//! form where its words are the natural pairs on one side or both, or an
//! array's elements, one register each, are over the launch bounds' limit
//! less 16 (`synth::plan::element_form_rule`); elsewhere it stays element
//! by element. Measured with h2h on an H200 (`results/runs/2026-11-27-h200-words-in-pairs-e882d04/`; the
//! same helpers timed in a broader rule's binary against the earlier one):
//! `stress_w16`'s `epilogue_f16_256x128` element form and the 32-warp
//! transpose ran faster this way.

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

/// The lines of the element form's branch for the `warpforge::words`
/// choice `choice` (`none`, `src`, `dst`, `both`), from the `if constexpr`
/// that opens it to the line that closes it.
fn branch<'a>(body: &[&'a str], choice: &str) -> Vec<&'a str> {
    let open = body
        .iter()
        .position(|l| {
            let t = l.trim();
            t.ends_with(&format!("(kW == words::{choice}) {{"))
                || t == format!("}} else {{  // words::{choice}")
        })
        .unwrap_or_else(|| panic!("a branch for words::{choice}:\n{}", body.join("\n")));
    let indent = body[open].len() - body[open].trim_start().len();
    body[open + 1..]
        .iter()
        .take_while(|l| {
            !(l.len() - l.trim_start().len() == indent && l.trim_start().starts_with('}'))
        })
        .copied()
        .collect()
}

/// What `automatic` is in the element form's body (`none` or `both`).
fn automatic<'a>(body: &[&'a str]) -> &'a str {
    let l = body
        .iter()
        .find(|l| l.contains("kWords == words::automatic ? words::"))
        .expect("the automatic choice");
    let at = l.find("? words::").unwrap() + "? words::".len();
    let rest = &l[at..];
    &rest[..rest.find(' ').unwrap()]
}

/// The line that reads natural words `2j` and `2j + 1` of a 16-bit source
/// (elements `4j .. 4j + 3`) with one 8-byte `memcpy`.
fn pair_load(j: usize) -> String {
    format!(
        "detail::ld_dword(&src[{}], src_w[{}], src_w[{}]);",
        4 * j,
        2 * j,
        2 * j + 1
    )
}

#[test]
fn natural_pairs_move_both_arrays_two_words_at_a_time() {
    let h = helper("tests/data/stress_w16.ttgir", "epilogue_f16_256x128");
    let all = element_form(&h);
    assert_eq!(automatic(&all), "both");
    assert!(h.takes_words(16));
    let body = branch(&all, "both");
    let call = format!("{}_packed16(src_w, pk_dst, smem);", h.ident);
    assert!(body.iter().any(|l| l.trim() == call), "{}", body.join("\n"));
    // every pair of natural words in and out with one 8-byte memcpy, no
    // reordering (the packed words are the natural pairs)
    for j in 0..16 {
        let ld = pair_load(j);
        let st = format!("detail::st_dword(&dst[{}], ", 4 * j);
        assert!(body.iter().any(|l| l.trim() == ld), "{ld}");
        assert!(body.iter().any(|l| l.trim().starts_with(&st)), "{st}");
    }
    assert!(!body.iter().any(|l| l.contains("__byte_perm(")));
    assert!(!body.iter().any(|l| l.contains("detail::ld_word(")));
    assert!(!body.iter().any(|l| l.contains("dst[0] = ")));
    // the header says so, and what one register per element would leave
    assert!(h.code.contains(
        "16-bit elements in this form: the arrays move as natural 32-bit words, two at a time by an 8-byte memcpy, through"
    ));
    assert!(h.code.contains(
        "(the caller's per-element work on them folds into 32-bit operations): the packed form's words are the natural pairs; 0 prmt per thread reorder them"
    ));
    assert!(!h.code.contains("With automatic the"));
    assert!(h
        .code
        .contains("element form ~56 (32 of data, held as 32-bit words)"));
    assert!(h.code.contains(
        "one register per element (~80) would leave 1 CTA of 512 threads resident per SM, words 2"
    ));
}

#[test]
fn reordered_words_within_the_limit_stay_element_by_element() {
    for (file, name) in [
        (
            "corpus/ttgir/attn_bf16_d128_128x64_w8_sm80.ttgir",
            "attn:114",
        ),
        ("tests/data/stress_w8.ttgir", "epilogue_f16_t_128x256"),
    ] {
        let h = helper(file, name);
        let all = element_form(&h);
        assert_eq!(automatic(&all), "none", "{name}");
        let body = branch(&all, "none");
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

/// Where both arrays' elements, one register each, are over the register
/// limit less 16 (the 32-warp transpose: 64 halves on each side at 64
/// registers), `automatic` holds both arrays as words, `prmt` reordering
/// them: faster than the destination alone as 32-bit words (measured with
/// h2h (fair2) on an H200 and with `warpforge bench`; see results/runs/2026-11-27-h200-words-in-pairs-e882d04/).
#[test]
fn arrays_over_the_limit_hold_both() {
    let h = helper("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    let all = element_form(&h);
    assert_eq!(automatic(&all), "both");
    assert!(h.code.contains(
        "16-bit elements in this form: the arrays move as natural 32-bit words, two at a time by an 8-byte memcpy, through"
    ));
    assert!(h.code.contains("; 64 prmt per thread reorder them"));
    assert!(h.code.contains(
        "element form ~56 (32 of data, held as 32-bit words), packed form ~56 (32 of data); __launch_bounds__(1024) allows 64"
    ));
}

/// The caller's choice (`warpforge::words`): `src` reads the source as
/// natural words and writes each destination element out of the packed
/// form's words; `dst` packs the source element by element and writes the
/// destination as natural words; `none` is the element-by-element body.
/// `transpose_f16_256x256` (32 warps) runs faster with the loop-carried
/// tile held as words than element by element (measured with `warpforge
/// bench` on an H100; see `results/runs/2026-11-24-h100-carried-words-6ef7222/`).
#[test]
fn the_caller_names_the_array_held_as_words() {
    let h = helper("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    // emitted for its own width (16-bit) only
    assert!(h.takes_words(16) && !h.takes_words(32));
    let all = element_form(&h);
    let call = format!("{}_packed16(", h.ident);
    // src: every pair of natural source words by an 8-byte memcpy, every
    // destination element by shift
    let src = branch(&all, "src");
    for j in 0..16 {
        let ld = pair_load(j);
        assert!(src.iter().any(|l| l.trim() == ld), "{ld}");
    }
    assert!(src.iter().any(|l| l.contains(&call)));
    for r in 0..64 {
        let st = format!("dst[{r}] = detail::from_u32<T>(pk_dst[");
        assert!(src.iter().any(|l| l.trim().starts_with(&st)), "dst[{r}]");
    }
    assert!(!src
        .iter()
        .any(|l| l.contains("detail::st_word(") || l.contains("detail::st_dword(")));
    // dst: source words packed from elements, every natural destination word by memcpy
    let dst = branch(&all, "dst");
    assert!(dst.iter().any(|l| l
        .trim()
        .starts_with("const unsigned pk_src[32] = {detail::to_u32(src[")));
    assert!(!dst
        .iter()
        .any(|l| l.contains("detail::ld_word(") || l.contains("detail::ld_dword(")));
    for j in 0..16 {
        let st = format!("detail::st_dword(&dst[{}], ", 4 * j);
        assert!(dst.iter().any(|l| l.trim().starts_with(&st)), "{st}");
    }
    // both: words on both sides; none: no packed form at all
    let both = branch(&all, "both");
    assert!(both.iter().any(|l| l.contains("detail::ld_dword(")));
    assert!(both.iter().any(|l| l.contains("detail::st_dword(")));
    let none = branch(&all, "none");
    assert!(!none.iter().any(|l| l.contains(&call)));
    // the header says which widths take the choice and what automatic is
    assert!(h.code.contains(
        "element form's warpforge::words (which arrays move as natural 32-bit words): 16-bit (automatic = both); other widths ignore it"
    ), "{}", h.code.lines().filter(|l| l.contains("warpforge::words")).collect::<Vec<_>>().join("\n"));
    // automatic holds both within the limit: no advice
    assert!(!h.code.contains("With automatic the"));
    // the in-place form passes the choice on
    assert!(h
        .code
        .contains(&format!("{}<T, kWords>(x, y, smem);", h.ident)));
}

/// A 32-bit conversion's element form takes no choice: no branches, the
/// parameter is there (every helper has the same signature) and ignored.
#[test]
fn widths_without_words_ignore_the_choice() {
    let h = helper(
        "corpus/ttgir/colsum_trans_fp32_64x64_w4_sm80.ttgir",
        "colsum_trans",
    );
    let all = element_form(&h);
    assert!(!all.iter().any(|l| l.contains("kW ==")));
    assert!(all[0].contains("(const T (&src)"));
    assert!(h
        .code
        .contains("template <typename T, words kWords = words::automatic>"));
}

/// Planned at every width (as `warpforge emit` plans), the 32-warp
/// transpose's element form takes the choice at 8 and 16 bits, with
/// `automatic` words for both arrays at 8 and at 16 bits (both arrays over
/// the register limit less 16), and ignores it
/// at 32 and 64 bits; its 8-bit `none` branch is the element-by-element
/// body (no packed form called).
#[test]
fn every_width_says_whether_it_takes_the_choice() {
    use synth::plan::shared::SharedOptions;
    use synth::search::plan_all_widths;
    let p = format!(
        "{}/../tests/data/stress_w32.ttgir",
        env!("CARGO_MANIFEST_DIR")
    );
    let f = parse_ttgir(&std::fs::read_to_string(p).unwrap()).unwrap();
    let conv = Conversion::from_op(&f.converts[0]).unwrap();
    let v = plan_all_widths(
        &conv,
        StrategyChoice::Auto,
        &Weights::default(),
        &SharedOptions::default(),
    )
    .unwrap();
    let h = kernels::emit_helper_widths(&conv, &v).unwrap();
    assert_eq!(h.word_choices, vec![8, 16]);
    assert!(h
        .code
        .contains("8-bit (automatic = both), 16-bit (automatic = both); other widths ignore it"));
    let all = element_form(&h);
    let autos: Vec<&str> = all
        .iter()
        .filter(|l| l.contains("kWords == words::automatic ? words::"))
        .map(|l| l.trim())
        .collect();
    assert_eq!(
        autos,
        vec![
            "constexpr words kW = kWords == words::automatic ? words::both : kWords;",
            "constexpr words kW = kWords == words::automatic ? words::both : kWords;"
        ]
    );
    // the 8-bit branches come first: its none branch calls no packed form
    let none8 = branch(&all, "none");
    assert!(!none8.iter().any(|l| l.contains("_packed8(")));
    let both8 = branch(&all, "both");
    assert!(both8.iter().any(|l| l.contains("_packed8(")));
}

/// `warpforge bench`'s `carried` timing kernel names the loop-carried tile
/// `a` on both calls: the forward helper reads it as words (`src`), the
/// reverse writes it as words (`dst`); none for helpers without the choice.
#[test]
fn the_carried_bench_kernel_names_the_tile_it_carries() {
    let h = helper("tests/data/stress_w32.ttgir", "transpose_f16_256x256");
    let k = kernels::emit_bench_kernel_carried(&h, &h, 16, "unsigned short", "k", None)
        .unwrap()
        .expect("a carried kernel");
    assert!(k.contains(&format!(
        "{}<unsigned short, warpforge::words::src>(a, b, wf_smem);",
        h.ident
    )));
    assert!(k.contains(&format!(
        "{}<unsigned short, warpforge::words::dst>(b, a, wf_smem);",
        h.ident
    )));
    let plain = kernels::emit_bench_kernel(&h, &h, "unsigned short", "k", None).unwrap();
    assert!(!plain.contains("warpforge::words::"));
    let f32 = helper(
        "corpus/ttgir/colsum_trans_fp32_64x64_w4_sm80.ttgir",
        "colsum_trans",
    );
    assert!(
        kernels::emit_bench_kernel_carried(&f32, &f32, 32, "float", "k", None)
            .unwrap()
            .is_none()
    );
}

/// A 4-warp dot operand -> slice of a 3-D dot operand of Triton's tests,
/// 256 halves each side (~272 registers one per element, over the 255 of
/// its launch bounds): both arrays as words, the packed form's ~152
/// registers, so no advice is printed.
#[test]
fn over_the_limit_one_per_element_fits_as_words() {
    let h = helper(
        "tests/data/triton_lowerings.ttgir",
        "c2d_d2b2_sd2b_64x128_f16",
    );
    let all = element_form(&h);
    assert_eq!(automatic(&all), "both");
    assert!(h.code.contains(
        "element form ~152 (128 of data, held as 32-bit words), packed form ~152 (128 of data); __launch_bounds__(128) allows 255"
    ));
    assert!(!h.code.contains("With automatic the"));
}
