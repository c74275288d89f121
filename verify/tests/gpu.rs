//! GPU proofs: the bundled pairs and sampled families. Each test skips,
//! saying so, when no GPU is present. Test binaries may be built elsewhere
//! and run from the repository root, so the corpus is looked up there too.

use synth::family::{blocked_layouts, blocked_pair, permutation_family};
use synth::parse::parse_ttgir;
use synth::plan::{shared_plans, Analysis, SharedOptions};
use synth::plan::{Conversion, StrategyChoice};
use synth::search::{plan_all_widths, plan_width, Chosen, Weights};
use verify::{probe_gpu, verify_on_gpu, DType, GpuCase};

fn corpus(rel: &str) -> String {
    let built = format!("{}/../corpus/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&built)
        .or_else(|_| std::fs::read_to_string(format!("corpus/{rel}")))
        .unwrap_or_else(|e| panic!("corpus/{rel}: {e}"))
}

/// Is there a GPU? Says `GPU-TEST ran <test>` or `GPU-TEST SKIPPED <test>:
/// <why>` on standard error, written past the test harness's capture (which
/// only takes `eprintln!`) so that `make test` can count both.
fn gpu_or_skip(test: &str) -> bool {
    use std::io::Write;
    match probe_gpu() {
        Ok(g) => {
            let _ = writeln!(
                std::io::stderr(),
                "GPU-TEST ran {test} on {} (sm_{}{})",
                g.name,
                g.sm.0,
                g.sm.1
            );
            true
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "GPU-TEST SKIPPED {test}: {e}");
            false
        }
    }
}

/// Plan, emit, compile into one module, run and check every slot.
fn prove(convs: &[Conversion], choice: StrategyChoice, dtypes: &[DType]) -> usize {
    let planned: Vec<_> = convs
        .iter()
        .map(|c| {
            let v = plan_all_widths(c, choice, &Weights::default(), &SharedOptions::default())
                .unwrap_or_else(|e| panic!("{e}"));
            let own = v.iter().find(|x| x.0 == plan_width(c)).unwrap().1.clone();
            (c, own, v)
        })
        .collect();
    let helpers: Vec<_> = planned
        .iter()
        .map(|(c, _, v)| kernels::emit_helper_widths(c, v).unwrap())
        .collect();
    let header = kernels::emit_header(&helpers, "gpu test").unwrap();
    let cases: Vec<GpuCase> = planned
        .iter()
        .zip(&helpers)
        .map(|((_, ch, _), h)| GpuCase {
            helper: h,
            analysis: &ch.analysis,
        })
        .collect();
    let r = verify_on_gpu(&header, &cases, dtypes, None).unwrap();
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

/// Every shared-memory instruction form the planner can emit (`st/ld.shared`
/// `.u8/.u16/.b32/.v2/.v4`, `stmatrix`/`ldmatrix` `.x1/.x2/.x4`, with and
/// without `.trans`), each as a candidate plan the simulator proved, run on
/// the GPU: the simulator's per-lane semantics and the hardware agree.
#[test]
fn every_shared_instruction_form_agrees_with_the_simulator() {
    if !gpu_or_skip("every_shared_instruction_form_agrees_with_the_simulator") {
        return;
    }
    let mut convs = Vec::new();
    for f in [
        "pairs.mlir",
        "ttgir/matmul_fp16_sm80.ttgir",
        "ttgir/transpose_softmax_sm80.ttgir",
        "ttgir/attn_vfp8e4nv_sm90.ttgir",
    ] {
        for op in parse_ttgir(&corpus(f)).unwrap().converts {
            convs.push(Conversion::from_op(&op).unwrap());
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (bits, dtype) in [(8u32, DType::I8), (16, DType::F16), (32, DType::I32)] {
        let mut picked: Vec<(Conversion, Chosen)> = Vec::new();
        for c in &convs {
            let an = Analysis::new(c).unwrap();
            let opt = SharedOptions {
                elem_bits: bits,
                ..SharedOptions::default()
            };
            for p in shared_plans(&an, &opt) {
                let forms: Vec<String> = p
                    .stages
                    .iter()
                    .filter_map(|s| match s {
                        synth::plan::Stage::SmemStore { access } => {
                            Some(synth::plan::shared::access_name(access, "st"))
                        }
                        synth::plan::Stage::SmemLoad { access } => {
                            Some(synth::plan::shared::access_name(access, "ld"))
                        }
                        _ => None,
                    })
                    .collect();
                let new: Vec<String> = forms
                    .iter()
                    .map(|f| format!("{f} ({bits}-bit)"))
                    .filter(|k| !seen.contains(k))
                    .collect();
                if new.is_empty() {
                    continue;
                }
                let Ok(sim) = synth::sim::simulate(&p, &an) else {
                    continue;
                };
                seen.extend(new);
                let mut conv = c.clone();
                conv.name = format!("form{}_{}", bits, picked.len());
                let chosen = Chosen {
                    analysis: an.clone(),
                    cost: p.cost(),
                    plan: p,
                    score: 0.0,
                    candidates: 1,
                    verified_candidates: 1,
                    sim,
                };
                picked.push((conv, chosen));
            }
        }
        let helpers: Vec<_> = picked
            .iter()
            .map(|(c, ch)| kernels::emit_helper_widths(c, &[(bits, ch.clone())]).unwrap())
            .collect();
        let header = kernels::emit_header(&helpers, "instruction forms").unwrap();
        let cases: Vec<GpuCase> = picked
            .iter()
            .zip(&helpers)
            .map(|((_, ch), h)| GpuCase {
                helper: h,
                analysis: &ch.analysis,
            })
            .collect();
        let r = verify_on_gpu(&header, &cases, &[dtype], None).unwrap();
        for c in &r.cases {
            assert!(c.ok(), "{} {}: {:?}", c.name, c.dtype.name(), c.first_error);
            if let Some(s) = &c.sass {
                assert_eq!(s.ldl + s.stl, 0, "{} spills to local memory", c.name);
            }
        }
    }
    eprintln!("instruction forms proven on the GPU: {seen:?}");
    for f in [
        "st.shared.u8 (8-bit)",
        "st.shared.u16 (16-bit)",
        "st.shared.b32 (32-bit)",
        "st.shared.v2.b32 (32-bit)",
        "st.shared.v4.b32 (16-bit)",
        "ld.shared.u8 (8-bit)",
        "ld.shared.v4.b32 (8-bit)",
        "stmatrix.x4 (16-bit)",
        "stmatrix.x4.trans (16-bit)",
        "stmatrix.x2 (32-bit)",
        "stmatrix.x1 (16-bit)",
        "ldmatrix.x4 (16-bit)",
        "ldmatrix.x4.trans (16-bit)",
        "ldmatrix.x1.trans (16-bit)",
        "ldmatrix.x2 (8-bit)",
    ] {
        assert!(seen.contains(f), "{f} was not exercised: {seen:?}");
    }
}

/// docs/ARCHITECTURE.md 4.7: every conversion of the cluster test files
/// (across CTAs at 2, 4 and 8 CTAs, with broadcast; CTA-dependent ones; the
/// 2-CTA blocked module) launched in clusters (`cuLaunchKernelEx` with the
/// cluster dimension) and checked in every slot of every CTA, with the
/// helper's own cluster-size check compiled in.
#[test]
fn cluster_conversions_on_the_gpu() {
    if !gpu_or_skip("cluster_conversions_on_the_gpu") {
        return;
    }
    let mut convs = Vec::new();
    for f in [
        "cluster_cross_cta.mlir",
        "cluster_cta_dependent.mlir",
        "cluster16.mlir",
        "cluster_random.mlir",
        "cluster2_blocked.mlir",
        "cross_cta.mlir",
    ] {
        let built = format!("{}/../tests/data/{f}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&built)
            .or_else(|_| std::fs::read_to_string(format!("tests/data/{f}")))
            .unwrap_or_else(|e| panic!("tests/data/{f}: {e}"));
        let m = parse_ttgir(&text).unwrap();
        convs.extend(m.converts.iter().map(|op| Conversion::from_op(op).unwrap()));
    }
    let n = prove(
        &convs,
        StrategyChoice::Auto,
        &[DType::I8, DType::F16, DType::I32, DType::I64],
    );
    assert!(n >= 4 * convs.len());
}

/// ptxas's report survives the CUDA compute cache: the same module compiled
/// twice (the second compile can take its SASS from `~/.nv/ComputeCache`,
/// with an empty NVRTC log) names its kernel's registers both times. On an
/// H100 machine with CUDA 13 the second compile's log was empty before
/// `verify::compile_cubin_logged` compiled such a module again with new PTX
/// (issue 23).
#[test]
fn ptxas_reports_a_module_compiled_twice() {
    if !gpu_or_skip("ptxas_reports_a_module_compiled_twice") {
        return;
    }
    let g = probe_gpu().unwrap();
    // a module of its own for this run, so that the first compile is fresh
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let src = format!(
        "extern \"C\" __global__ void __launch_bounds__(64) wf_twice_{stamp}(unsigned* p) {{ p[threadIdx.x] = threadIdx.x * 3u; }}\n"
    );
    let kernel = format!("wf_twice_{stamp}");
    for round in 0..2 {
        let (cubin, log) = verify::compile_cubin_logged(&src, g.sm, &[]).unwrap();
        assert!(!cubin.is_empty());
        let r = verify::ptxas_resources(&log);
        assert!(
            r.get(&kernel).is_some_and(|p| p.registers > 0),
            "compile {round}: ptxas reported nothing for {kernel}: {log:?}"
        );
    }
}
