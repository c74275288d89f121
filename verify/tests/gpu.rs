//! GPU proof of the bundled pairs: skips, saying so, when no GPU is present.

use synth::parse::parse_ttgir;
use synth::plan::{Conversion, StrategyChoice};
use synth::search::{plan_conversion, Weights};
use verify::{probe_gpu, verify_on_gpu, DType, GpuCase};

#[test]
fn pairs_pass_on_the_gpu_with_no_spills() {
    if let Err(e) = probe_gpu() {
        eprintln!("SKIPPED pairs_pass_on_the_gpu_with_no_spills: {e}");
        return;
    }
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/pairs.mlir"))
            .unwrap();
    let f = parse_ttgir(&text).unwrap();
    let planned: Vec<_> = f
        .converts
        .iter()
        .map(|op| {
            let c = Conversion::from_op(op).unwrap();
            let ch = plan_conversion(&c, StrategyChoice::Auto, &Weights::default()).unwrap();
            (c, ch)
        })
        .collect();
    let helpers: Vec<_> = planned
        .iter()
        .map(|(c, ch)| kernels::emit_helper(c, ch).unwrap())
        .collect();
    let header = kernels::emit_header(&helpers, "pairs.mlir").unwrap();
    let cases: Vec<GpuCase> = planned
        .iter()
        .zip(&helpers)
        .map(|((_, ch), h)| GpuCase {
            helper: h,
            analysis: &ch.analysis,
        })
        .collect();
    let r = verify_on_gpu(&header, &cases, &[DType::I32, DType::F16, DType::I8]).unwrap();
    for c in &r.cases {
        assert!(c.ok(), "{} {}: {:?}", c.name, c.dtype.name(), c.first_error);
        if let Some(s) = &c.sass {
            assert_eq!(s.ldl + s.stl, 0, "{} spills to local memory", c.name);
        }
    }
}
