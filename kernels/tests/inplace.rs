//! In-place forms (docs/ARCHITECTURE.md 5): every helper whose source and
//! destination hold the same number of registers has `<ident>_inplace(T
//! (&x)[N])` and, per packed form, `<ident>_packed<bits>_inplace(unsigned
//! (&x)[W])`; helpers whose sides differ have none. The verification and
//! register-budget kernels call them (proven on a GPU by `verify --gpu`,
//! `results/runs/2026-11-23-h100-verify-inplace-081a9a1/verify.md`: same loop registers as the out-of-place
//! forms on every corpus helper).

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, SharedOptions, StrategyChoice};
use synth::search::{plan_all_widths, Weights};

fn helpers(rel: &str) -> Vec<kernels::EmittedHelper> {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    f.converts
        .iter()
        .map(|op| {
            let c = Conversion::from_op(op).unwrap();
            let v = plan_all_widths(
                &c,
                StrategyChoice::Auto,
                &Weights::default(),
                &SharedOptions::default(),
            )
            .unwrap();
            kernels::emit_helper_widths(&c, &v).unwrap()
        })
        .collect()
}

#[test]
fn helpers_with_equal_sides_have_in_place_forms_and_their_kernels_call_them() {
    let mut with = 0;
    let mut without = 0;
    for rel in [
        "corpus/pairs.mlir",
        "tests/data/stress_w2.ttgir",
        "corpus/ttgir/mmepi_bf16_128x64x64_w4_sm80.ttgir",
    ] {
        for h in helpers(rel) {
            let def = format!("void {}_inplace(T (&x)[{}]", h.ident, h.src_regs);
            assert_eq!(h.has_inplace(), h.src_regs == h.dst_regs);
            assert_eq!(h.code.contains(&def), h.has_inplace(), "{}", h.name);
            let k = kernels::emit_test_kernel_inplace(&h, "int", "k").unwrap();
            let l = kernels::emit_loop_kernel_inplace(&h, "int", None, "l", None).unwrap();
            if !h.has_inplace() {
                without += 1;
                assert!(k.is_none() && l.is_none());
                continue;
            }
            with += 1;
            let k = k.unwrap();
            assert!(
                k.contains(&format!("warpforge::{}_inplace<int>(src", h.ident)),
                "{k}"
            );
            // the loop keeps one array: no destination array, no copy back
            let l = l.unwrap();
            assert!(
                l.contains(&format!("warpforge::{}_inplace<int>(x", h.ident)),
                "{l}"
            );
            assert!(!l.contains(" y["), "{l}");
            assert!(l.contains("#pragma unroll 1"), "{l}");
            assert!(
                l.contains(&format!("__launch_bounds__({})", h.threads)),
                "{l}"
            );
            // under a register cap: __maxnreg__ instead of the launch bounds
            let c = kernels::emit_loop_kernel_inplace(&h, "int", None, "l", Some(96))
                .unwrap()
                .unwrap();
            assert!(
                c.contains("__maxnreg__(96)") && !c.contains("__launch_bounds__"),
                "{c}"
            );
            for p in &h.packed {
                let w = h.src_regs * p.bits / 32;
                let def = format!(
                    "void {}_packed{}_inplace(unsigned (&x)[{w}]",
                    h.ident, p.bits
                );
                assert!(h.code.contains(&def), "{}: {def}", h.name);
                let k = kernels::emit_test_kernel_packed_inplace(&h, p.bits, "short", "kp")
                    .unwrap()
                    .unwrap();
                assert!(
                    k.contains(&format!("{}_packed{}_inplace(src", h.ident, p.bits)),
                    "{k}"
                );
            }
        }
    }
    assert!(with >= 5 && without >= 1, "{with} with, {without} without");
}

/// The timing kernels of `warpforge bench` (element and packed forms) are
/// declared `__maxnreg__(n)` instead of their launch bounds under a
/// register cap, and with their launch bounds otherwise; never both (CUDA
/// does not allow the two on one kernel).
#[test]
fn bench_kernels_take_maxnreg_instead_of_launch_bounds_under_a_cap() {
    let hs = helpers("corpus/ttgir/attn_fp16_d128_128x64_w8_sm80.ttgir");
    let h = hs
        .iter()
        .find(|h| h.packed_form(16).is_some())
        .expect("a 16-bit helper");
    let bounds = format!("__launch_bounds__({})", h.threads);
    for cap in [None, Some(80)] {
        let e = kernels::emit_bench_kernel(h, h, "short", "k", cap).unwrap();
        let p = kernels::emit_bench_kernel_packed(h, h, 16, "short", "kp", cap)
            .unwrap()
            .expect("a packed timing kernel");
        for k in [&e, &p] {
            match cap {
                None => assert!(k.contains(&bounds) && !k.contains("__maxnreg__"), "{k}"),
                Some(n) => assert!(
                    k.contains(&format!("__maxnreg__({n})")) && !k.contains("__launch_bounds__"),
                    "{k}"
                ),
            }
        }
    }
}
