//! GPU proofs: the bundled pairs and sampled families. Each test skips,
//! saying so, when no GPU is present. Test binaries may be built elsewhere
//! and run from the repository root, so the corpus is looked up there too.

use synth::family::{blocked_layouts, blocked_pair, permutation_family};
use synth::parse::parse_ttgir;
use synth::plan::{Conversion, StrategyChoice};
use synth::search::{plan_conversion, Weights};
use verify::{probe_gpu, verify_on_gpu, DType, GpuCase};

fn corpus(rel: &str) -> String {
    let built = format!("{}/../corpus/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&built)
        .or_else(|_| std::fs::read_to_string(format!("corpus/{rel}")))
        .unwrap_or_else(|e| panic!("corpus/{rel}: {e}"))
}

fn gpu_or_skip(test: &str) -> bool {
    match probe_gpu() {
        Ok(g) => {
            eprintln!("{test}: running on {} (sm_{}{})", g.name, g.sm.0, g.sm.1);
            true
        }
        Err(e) => {
            eprintln!("SKIPPED {test}: {e}");
            false
        }
    }
}

/// Plan, emit, compile into one module, run and check every slot.
fn prove(convs: &[Conversion], choice: StrategyChoice, dtypes: &[DType]) -> usize {
    let planned: Vec<_> = convs
        .iter()
        .map(|c| {
            (
                c,
                plan_conversion(c, choice, &Weights::default()).unwrap_or_else(|e| panic!("{e}")),
            )
        })
        .collect();
    let helpers: Vec<_> = planned
        .iter()
        .map(|(c, ch)| kernels::emit_helper(c, ch).unwrap())
        .collect();
    let header = kernels::emit_header(&helpers, "gpu test").unwrap();
    let cases: Vec<GpuCase> = planned
        .iter()
        .zip(&helpers)
        .map(|((_, ch), h)| GpuCase {
            helper: h,
            analysis: &ch.analysis,
        })
        .collect();
    let r = verify_on_gpu(&header, &cases, dtypes).unwrap();
    for c in &r.cases {
        assert!(c.ok(), "{} {}: {:?}", c.name, c.dtype.name(), c.first_error);
        if let Some(s) = &c.sass {
            assert_eq!(s.ldl + s.stl, 0, "{} spills to local memory", c.name);
        }
    }
    eprintln!(
        "proved {} helper x dtype cases on the GPU ({:.2} s NVRTC)",
        r.cases.len(),
        r.compile_seconds
    );
    r.cases.len()
}

#[test]
fn pairs_pass_on_the_gpu_with_no_spills() {
    if !gpu_or_skip("pairs_pass_on_the_gpu_with_no_spills") {
        return;
    }
    let f = parse_ttgir(&corpus("pairs.mlir")).unwrap();
    let convs: Vec<_> = f
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .collect();
    prove(
        &convs,
        StrategyChoice::Auto,
        &[DType::I32, DType::F16, DType::I8],
    );
}

#[test]
fn permutation_family_sample_on_the_gpu() {
    if !gpu_or_skip("permutation_family_sample_on_the_gpu") {
        return;
    }
    // every 37th of the 5040 permutations of 2 register + 5 lane bits
    let fam: Vec<_> = permutation_family(2).into_iter().step_by(37).collect();
    assert!(fam.len() > 100);
    prove(&fam, StrategyChoice::Shuffle, &[DType::I32, DType::I8]);
}

#[test]
fn blocked_pairs_on_the_gpu_shuffle_and_shared() {
    if !gpu_or_skip("blocked_pairs_on_the_gpu_shuffle_and_shared") {
        return;
    }
    let layouts = blocked_layouts([16, 16], 4);
    let convs: Vec<Conversion> = (0..layouts.len())
        .step_by(5)
        .map(|i| {
            blocked_pair(
                &format!("blk{i}"),
                &layouts[i],
                &layouts[(i * 7 + 3) % layouts.len()],
            )
        })
        .collect();
    prove(&convs, StrategyChoice::Shuffle, &[DType::I32]);
    prove(&convs, StrategyChoice::Shared, &[DType::I32]);
}
