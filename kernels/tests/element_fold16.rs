//! The element form (`T src[N]`) of a 16-bit plan that packs the halves
//! into words itself and selects words right after (the `/words` shuffle
//! plans) reads and writes the caller's arrays as natural 32-bit words, two
//! at a time (`detail::ld_dword`/`st_dword`), and builds the plan's words
//! from them by `__byte_perm` with a lane-dependent selector: the pack and
//! the lane select fold into one `prmt` per word, where element by element
//! they were a pack by shifts and a select each, and no element is shifted
//! out of a word (as Triton's transpositions do). The printed helper is
//! proven by the interpreter; a 16-bit pack straight into a shuffle stays
//! element by element.

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, StrategyChoice};
use synth::search::{plan_conversion, Weights};

/// The conversion of `tests/data/triton_lowerings.ttgir` whose name starts
/// with `name`, and its chosen plan.
fn chosen(name: &str) -> (Conversion, synth::search::Chosen) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/triton_lowerings.ttgir"
    );
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    let conv = f
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .find(|c| c.name.starts_with(name))
        .unwrap_or_else(|| panic!("triton_lowerings.ttgir has {name}"));
    let ch = plan_conversion(&conv, StrategyChoice::Auto, &Weights::default()).unwrap();
    (conv, ch)
}

/// Lines up to the first shuffle.
fn before_shuffle(body: &[String]) -> &[String] {
    let at = body
        .iter()
        .position(|l| l.contains("shfl"))
        .expect("a shuffle plan shuffles");
    &body[..at]
}

/// Selects in lines: one ` ? ` per `(p ? a : b)` that picks a word (the
/// selector declarations `ps{n} = p ? 0x.. : 0x..` not counted).
fn word_selects(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| l.contains(" ? ") && !l.contains("0x"))
        .count()
}

#[test]
fn the_pack_and_the_lane_select_fold_into_one_prmt() {
    let (conv, ch) = chosen("wl_s1x1t32x1_s1x1t16x2_32x32_f16");
    assert_eq!(conv.elem.bits, 16);
    assert_eq!(
        synth::plan::words_in_natural_order(&ch.plan),
        Some(16),
        "{}",
        ch.plan.strategy
    );
    let body = kernels::body(&conv.name, &ch.plan).unwrap();
    let head = before_shuffle(&body);
    // 32 halves a thread: 16 natural words, read two at a time
    assert_eq!(
        head.iter()
            .filter(|l| l.contains("detail::ld_dword("))
            .count(),
        8
    );
    // every word the shuffles send is one prmt of two natural words with a
    // lane-dependent selector, and nothing else builds or picks words
    let folded = head
        .iter()
        .filter(|l| l.contains("__byte_perm(src_w[") && l.contains(", ps"))
        .count();
    assert_eq!(folded, 16, "{head:#?}");
    assert_eq!(word_selects(head), 0, "{head:#?}");
    assert!(!head.iter().any(|l| l.contains("<< 16")), "{head:#?}");
    // the destination leaves as natural words, no half shifted out
    assert_eq!(
        body.iter()
            .filter(|l| l.contains("detail::st_dword("))
            .count(),
        8
    );
    assert!(!body.iter().any(|l| l.contains(">> 16")), "{body:#?}");
    // the printed helper, every form, passes the interpreter
    let h = kernels::emit_helper(&conv, &ch).unwrap();
    kernels::prove(&h, &ch.analysis).unwrap();
}

/// The 16-bit branch of the helper's element form (`sizeof(T) == 2`) as
/// printed.
fn sixteen_bit_branch(code: &str, ident: &str) -> String {
    let def = kernels::definition(code, ident).expect("the element form");
    let at = def.find("sizeof(T) == 2").expect("a 16-bit branch");
    let end = def[at..]
        .find("sizeof(T) == 4")
        .map_or(def.len(), |e| at + e);
    def[at..end].to_string()
}

#[test]
fn the_helper_prints_the_folded_body_for_automatic_and_both() {
    // the last select of these is split across destination words, so it
    // folds into the prmt that builds them too (a lane-dependent selector
    // after the shuffles); each is proven by the interpreter, every form
    for name in [
        "wl_s1x1t16x2_s1x4t32x1_64x64_f16",
        "c2d_d3a1_d3a2_64x64_f16",
        "c2d_d3a1_mma2_64x128_f16",
        "wl_s1x1t32x1_s1x1t16x2_32x32_f16",
    ] {
        let (conv, ch) = chosen(name);
        let h = kernels::emit_helper(&conv, &ch).unwrap();
        kernels::prove(&h, &ch.analysis).unwrap();
        // the caller's choice stays; automatic is both, which is the folded body
        assert!(h.word_choices.contains(&16), "{name}: {:?}", h.word_choices);
        assert!(h.code.contains("16-bit (automatic = both)"), "{name}");
        let b = sixteen_bit_branch(&h.code, &h.ident);
        let both = &b[b.find("// words::both").expect("a both branch")..];
        // natural words in, no half packed by shifts, a lane-dependent
        // selector folding a select (before the shuffles, or after them)
        assert!(both.contains("detail::ld_dword("), "{name}: {both}");
        assert!(!both.contains("<< 16"), "{name}: {both}");
        assert!(both.contains(", ps"), "{name}: {both}");
        assert!(!both.contains("_packed16("), "{name}: {both}");
        // src and dst go through the packed form, none element by element
        let none_at = b.find("kW == words::none").expect("a none branch");
        let src_at = b.find("kW == words::src").expect("a src branch");
        assert!(!b[none_at..src_at].contains("ld_dword"), "{name}");
        assert!(b[src_at..].contains("_packed16("), "{name}");
    }
    // after the shuffles: a selector declared past the first shuffle folds
    // a last select into the destination words
    let (conv, ch) = chosen("wl_s1x1t16x2_s1x4t32x1_64x64_f16");
    let body = kernels::body(&conv.name, &ch.plan).unwrap();
    let first = body.iter().position(|l| l.contains("shfl")).unwrap();
    assert!(
        body[first..]
            .iter()
            .any(|l| l.contains("__byte_perm(") && l.contains(", ps")),
        "{body:#?}"
    );
}

#[test]
fn a_pack_straight_into_a_shuffle_stays_element_by_element() {
    // a 1x64 tile whose source holds four copies of each half: nothing to
    // fold, and element by element NVVM folds the copies and the caller's
    // per-element work (see `synth::plan::words_in_natural_order`)
    let (conv, ch) = chosen("c2d_d2b2_mma2_1x64_f16");
    assert_eq!(synth::plan::words_in_natural_order(&ch.plan), None);
    let body = kernels::body(&conv.name, &ch.plan).unwrap();
    assert!(!body.iter().any(|l| l.contains("ld_dword")), "{body:#?}");
    assert!(body.iter().any(|l| l.contains("<< 16")), "{body:#?}");
}
