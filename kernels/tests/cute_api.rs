//! `emit --api cute` in the emission library: the array API's header is
//! unchanged, and the CuTe section has, for every helper of `pairs.mlir`
//! (planned at every element width, as `warpforge emit` plans), an overload
//! on CuTe register fragments whose `static_assert`s state the helper's own
//! register counts, and one per packed form whose packing visits every
//! register once. Text only: the CUDA side is `tests/gpu/cute_api_check.cu`.

use kernels::{emit_header, emit_header_api, emit_helper_widths, Api, EmittedHelper};
use synth::parse::parse_ttgir;
use synth::plan::shared::SharedOptions;
use synth::plan::{Conversion, StrategyChoice};
use synth::search::{plan_all_widths, Weights};

/// Every helper of `corpus/pairs.mlir`, planned at 8/16/32/64 bits.
fn pairs_helpers() -> Vec<EmittedHelper> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/pairs.mlir");
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    f.converts
        .iter()
        .map(|op| {
            let conv = Conversion::from_op(op).unwrap();
            let v = plan_all_widths(
                &conv,
                StrategyChoice::Auto,
                &Weights::default(),
                &SharedOptions::default(),
            )
            .unwrap();
            emit_helper_widths(&conv, &v).unwrap()
        })
        .collect()
}

/// The text of the function `sig_start` (a line starting with it) up to its
/// closing `}` line.
fn function<'a>(header: &'a str, sig_start: &str) -> &'a str {
    let at = header
        .find(&format!("\n{sig_start}"))
        .unwrap_or_else(|| panic!("header has no `{sig_start}`"));
    let rest = &header[at + 1..];
    let end = rest.find("\n}").expect("function ends");
    &rest[..end + 2]
}

#[test]
fn array_api_is_the_plain_header_and_includes_nothing() {
    let hs = pairs_helpers();
    let plain = emit_header(&hs, "pairs").unwrap();
    let array = emit_header_api(&hs, "pairs", Api::Array).unwrap();
    assert_eq!(plain, array, "--api array must be byte-identical");
    assert!(
        !array.contains("#include"),
        "the array API includes nothing"
    );
    assert!(!array.to_lowercase().contains("cute"));
    assert_eq!(Api::default(), Api::Array);
}

#[test]
fn cute_api_appends_guarded_overloads_with_the_helpers_register_counts() {
    let hs = pairs_helpers();
    assert!(
        hs.iter().any(|h| h.smem_elems > 0),
        "a shared-memory helper"
    );
    assert!(hs.iter().any(|h| !h.packed.is_empty()), "a packed form");
    let plain = emit_header(&hs, "pairs").unwrap();
    let cute = emit_header_api(&hs, "pairs", Api::Cute).unwrap();
    // the array forms first, unchanged; CuTe only after them
    assert!(cute.starts_with(&plain));
    let section = &cute[plain.len()..];
    assert!(!plain.contains("cute::"));
    assert_eq!(cute.matches("#include").count(), 1);
    assert!(section.contains("#if __has_include(<cute/tensor.hpp>)\n#include <cute/tensor.hpp>\n"));
    // the include and every overload sit under the guard
    let guard = section.find("#ifdef WARPFORGE_HAS_CUTE").unwrap();
    assert!(section.find("#include <cute/tensor.hpp>").unwrap() < guard);
    assert!(section
        .trim_end()
        .ends_with("#endif  // WARPFORGE_HAS_CUTE"));
    assert!(section.contains("namespace warpforge {"));
    for h in &hs {
        let id = &h.ident;
        let smem = if h.smem_elems > 0 { ", void* smem" } else { "" };
        let sig = format!(
            "__device__ __forceinline__ void {id}(const cute::Tensor<SrcEngine, SrcLayout>& src, cute::Tensor<DstEngine, DstLayout>& dst{smem}) {{"
        );
        let f = function(section, &sig);
        // the counts are those of the array form's signature
        let array_sig = format!(
            "void {id}(const T (&src)[{}], T (&dst)[{}]{smem})",
            h.src_regs, h.dst_regs
        );
        assert!(plain.contains(&array_sig), "{id}: {array_sig}");
        for (side, n) in [("Src", h.src_regs), ("Dst", h.dst_regs)] {
            assert!(
                f.contains(&format!(
                    "detail::cute_fragment_size<{n}, int(decltype(cute::size({side}Layout{{}}))::value)>::value"
                )),
                "{id}: {side} size check against {n}:\n{f}"
            );
            assert!(f.contains(&format!(
                "detail::cute_is_array_engine<{side}Engine>::value"
            )));
        }
        assert!(f.contains(&format!(
            "\"{id}: src must have cute::size(layout) == {}",
            h.src_regs
        )));
        assert!(f.contains(&format!(
            "\"{id}: dst must have cute::size(layout) == {}",
            h.dst_regs
        )));
        assert!(f.contains(&format!("T s[{}];", h.src_regs)));
        assert!(f.contains(&format!("T d[{}];", h.dst_regs)));
        assert!(f.contains(&format!(
            "  {id}<T>(s, d{});",
            if h.smem_elems > 0 { ", smem" } else { "" }
        )));
        assert!(f.contains(&format!(
            "detail::cute_gather(src, s, cute::make_int_sequence<{}>{{}});",
            h.src_regs
        )));
        assert!(f.contains(&format!(
            "detail::cute_scatter(d, dst, cute::make_int_sequence<{}>{{}});",
            h.dst_regs
        )));
        assert!(section.contains(&format!("#ifndef WARPFORGE_CUTE_{id}\n")));
        for pf in &h.packed {
            let b = pf.bits;
            let per = 32 / b;
            let sig = format!(
                "__device__ __forceinline__ void {id}_packed{b}(const cute::Tensor<SrcEngine, SrcLayout>& src, cute::Tensor<DstEngine, DstLayout>& dst{smem}) {{"
            );
            let f = function(section, &sig);
            assert!(f.contains(&format!(
                "static_assert(cute::sizeof_bits<T>::value == {b} && sizeof(T) == {}",
                b / 8
            )));
            assert!(f.contains(&format!("unsigned s[{}];", h.src_regs / per)));
            assert!(f.contains(&format!("unsigned d[{}];", h.dst_regs / per)));
            // every source register read once, every destination written once
            for (side, n, pat) in [
                ("src", h.src_regs, "detail::to_u32(src("),
                ("dst", h.dst_regs, "  dst("),
            ] {
                let mut seen = vec![0u32; n as usize];
                for piece in f.split(pat).skip(1) {
                    let r: usize = piece[..piece.find(')').unwrap()].parse().unwrap();
                    seen[r] += 1;
                }
                assert!(
                    seen.iter().all(|&c| c == 1),
                    "{id}_packed{b} {side}: {seen:?}"
                );
            }
            // slot s of word w holds register pf.src.register(w, s)
            assert!(f.contains(&format!(
                "s[0] = 0u | (detail::to_u32(src({})) << 0)",
                pf.src.register(0, 0)
            )));
            assert!(f.contains(&format!(
                "dst({}) = detail::from_u32<T>(d[0] >> {b});",
                pf.dst.register(0, 1)
            )));
        }
        if h.packed.iter().all(|p| p.bits != 8) {
            assert!(!section.contains(&format!("void {id}_packed8(const cute::Tensor")));
        }
    }
}

#[test]
fn two_cute_headers_compose() {
    // the same helper twice: one definition under its guard, same hash
    let hs = pairs_helpers();
    let a = emit_header_api(&hs[..2], "a", Api::Cute).unwrap();
    let b = emit_header_api(&hs[1..3], "b", Api::Cute).unwrap();
    let guard = |h: &str, id: &str| {
        let key = format!("#define WARPFORGE_CUTE_{id} ");
        let at = h.find(&key).unwrap() + key.len();
        h[at..at + 14].to_string()
    };
    assert_eq!(guard(&a, &hs[1].ident), guard(&b, &hs[1].ident));
    let dh = |h: &str| {
        let key = "#define WARPFORGE_CUTE_DETAIL_H ";
        let at = h.find(key).unwrap() + key.len();
        h[at..at + 14].to_string()
    };
    assert_eq!(dh(&a), dh(&b));
}
