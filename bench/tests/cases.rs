//! CPU side of `warpforge bench`: every corpus conversion that moves data
//! becomes a case with its chosen plan among the candidates, a timing kernel
//! per candidate, and reports that render (GPU timing is exercised by
//! `make bench-triton` on a GPU machine).

use bench::cases::{build_cases, CaseOptions, Pairing};
use bench::gpu::Measured;
use bench::report;
use synth::plan::{Kind, SharedOptions};
use synth::search::Weights;

/// A stand-in measurement of every candidate of `c` (50 ns, 32 registers),
/// for rendering rows without a GPU.
fn measured_50ns(c: &bench::cases::BenchCase) -> Vec<Result<Measured, String>> {
    c.candidates
        .iter()
        .map(|_| {
            Ok(Measured {
                ms: 0.0,
                ns: 50.0,
                registers: 32,
                sass: None,
            })
        })
        .collect()
}

fn corpus() -> Vec<(String, synth::plan::Conversion)> {
    let dir = bench::corpus_path("ttgir");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| format!("ttgir/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    files.insert(0, "pairs.mlir".into());
    files
        .iter()
        .flat_map(|f| {
            bench::conversions(f)
                .unwrap()
                .into_iter()
                .map(move |c| (f.clone(), c))
        })
        .collect()
}

#[test]
fn every_moving_corpus_conversion_is_a_case_and_reports_render() {
    let convs = corpus();
    let opt = CaseOptions {
        weights: Weights::default(),
        shared: SharedOptions::default(),
        shared_limit: 4,
        pair: Pairing::Chosen,
    };
    let (cases, skipped) = build_cases(&convs, &opt).unwrap();
    assert_eq!(cases.len() + skipped.len(), convs.len());
    for s in &skipped {
        assert!(
            s.reason.contains("moves nothing"),
            "{}: {}",
            s.name,
            s.reason
        );
    }
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let mut rows = Vec::new();
    for c in &cases {
        assert_eq!(
            c.candidates.iter().filter(|k| k.chosen).count(),
            1,
            "{}",
            c.name
        );
        if c.bits < 32 {
            assert!(
                c.candidates.iter().any(|k| k.form == "packed"),
                "{}: 8/16-bit data is also timed in the packed form",
                c.name
            );
        }
        for k in &c.candidates {
            // 8/16-bit data is timed in the packed form, whose prmt the
            // cost predicts exactly (the emitter follows synth's lowering)
            if c.bits < 32 && k.form == "packed" {
                let body = kernels::definition(
                    &k.helper.code,
                    &format!("{}_packed{}", k.helper.ident, c.bits),
                )
                .unwrap();
                assert_eq!(
                    body.matches("__byte_perm(").count() as u32,
                    k.cost.prmt,
                    "{} {}: emitted prmt vs predicted",
                    c.name,
                    k.strategy
                );
            }
            assert!(c.source.contains(&format!(
                "void __launch_bounds__({}) {}(",
                32 * c.conv.num_warps,
                k.kernel
            )));
        }
        // a made-up timing: candidate k takes 100 + k ns, Triton 101 ns
        let m: Vec<Result<Measured, String>> = (0..c.candidates.len())
            .map(|k| {
                Ok(Measured {
                    ms: 0.0,
                    ns: 100.0 + k as f64,
                    registers: 32,
                    sass: None,
                })
            })
            .collect();
        let t = Ok(bench::triton::TritonResult {
            ms: 0.0,
            ns: 101.0,
            registers: 40,
            smem_bytes: 0,
            sass: None,
            sass_once: None,
            timing: bench::triton::TritonTiming::Interleaved,
            launch: Err("not launched in this test".into()),
        });
        // every case has limit kernels in its module; the first is timed
        // at 80 ns, the others fail
        assert!(!c.limits.is_empty(), "{}: no limit kernel", c.name);
        for k in &c.limits {
            assert!(
                c.source.contains(&format!(
                    "void __launch_bounds__({}) {}(",
                    32 * c.conv.num_warps,
                    k.name
                )),
                "{}: limit kernel {} not in the source",
                c.name,
                k.name
            );
        }
        let limits = (0..c.limits.len())
            .map(|i| {
                if i == 0 {
                    Ok(Measured {
                        ms: 0.0,
                        ns: 80.0,
                        registers: 20,
                        sass: None,
                    })
                } else {
                    Err("failed in this test".into())
                }
            })
            .collect();
        let row = report::row(
            c,
            &report::CaseMeasured {
                candidates: m,
                global: None,
                limits,
            },
            Some(&t),
        );
        assert_eq!(row.limit.as_ref().and_then(|p| p.ns), Some(80.0));
        assert_eq!(
            row.ratio_chosen_over_limit,
            row.chosen.ns.map(|x| (x / 80.0 * 1000.0).round() / 1000.0)
        );
        assert_eq!(row.ratio_triton_over_limit, Some(1.263));
        rows.push(row);
    }
    // chosen candidates take 100 ns against a limit of 80: each is listed
    let sum = report::summary(&rows);
    assert!(
        sum.contains(&format!("within 1.15x of it on 0 of {}", rows.len())),
        "{sum}"
    );
    assert!(sum.contains("the limit ("), "{sum}");
    let md = report::markdown(&rows, "# test\n");
    assert!(md.contains("geomean"), "{md}");
    let svg = report::svg(&rows, "test").unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("<rect"),
        "{}",
        &svg[..200.min(svg.len())]
    );
    // the rows round-trip through JSON, and the fit runs on them
    let back: Vec<report::Row> = rows
        .iter()
        .map(|r| serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap())
        .collect();
    let f = bench::fit::fit(&back, &Weights::default()).unwrap();
    assert!(f
        .weights
        .as_array()
        .iter()
        .all(|w| w.is_finite() && *w >= 0.0));
}

// docs/ARCHITECTURE.md 4.7: a cluster conversion is a case launched in
// clusters of its CTAs, with source tags for every thread of the cluster
// (each CTA's rank in its tags) and a global-memory baseline kernel; its row
// reports the baseline beside the helper, and the markdown has the table
#[test]
fn cluster_conversions_are_cases_with_a_global_memory_baseline() {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/cluster_cross_cta.mlir");
    let convs: Vec<(String, synth::plan::Conversion)> = bench::conversions_at(&p)
        .unwrap()
        .into_iter()
        .map(|c| ("cluster_cross_cta.mlir".to_string(), c))
        .collect();
    let opt = CaseOptions {
        weights: Weights::default(),
        shared: SharedOptions::default(),
        shared_limit: 4,
        pair: Pairing::Chosen,
    };
    let (cases, _) = build_cases(&convs, &opt).unwrap();
    let c8 = cases.iter().find(|c| c.name.starts_with("c8_2d")).unwrap();
    assert_eq!(c8.ctas, 8);
    // 8 CTAs x 2 warps x 32 lanes, each CTA's tags differ by its block bits
    assert_eq!(c8.src_tags.len(), 8 * 64);
    assert_ne!(c8.src_tags[0], c8.src_tags[64]);
    let gk = c8.global_kernel.as_ref().unwrap();
    assert!(c8
        .source
        .contains(&format!("void __launch_bounds__(64) {gk}(")));
    assert!(c8.source.contains("%%clusterid.x"));
    for c in &cases {
        assert!(c.ctas > 1 && c.global_kernel.is_some(), "{}", c.name);
    }
    let m = measured_50ns(c8);
    let g = Ok(Measured {
        ms: 0.0,
        ns: 100.0,
        registers: 24,
        sass: None,
    });
    // its limit kernels move through distributed shared memory, launched
    // in its clusters: both ways (remote stores, remote loads) each
    // direction where elements cross CTAs
    assert!(!c8.limits.is_empty());
    for k in &c8.limits {
        assert_eq!(k.ctas, 8, "{}", k.name);
        assert!(c8.source.contains(&format!(" {}(", k.name)), "{}", k.name);
    }
    let labels: Vec<String> = c8.limits.iter().map(|k| k.label()).collect();
    assert!(
        labels.contains(&"dsmem_st+dsmem_ld".to_string()),
        "{labels:?}"
    );
    assert!(c8.source.contains("st.shared::cluster"));
    assert!(c8.source.contains("ld.shared::cluster"));
    let row = report::row(
        c8,
        &report::CaseMeasured {
            candidates: m,
            global: Some(g),
            limits: c8
                .limits
                .iter()
                .map(|_| Err("not launched in this test".into()))
                .collect(),
        },
        Some(&Err("refused".into())),
    );
    assert_eq!(row.ctas, 8);
    assert!(row
        .limit_missing
        .as_deref()
        .unwrap()
        .contains("every limit kernel failed"));
    assert_eq!(row.ratio_chosen_over_global, Some(0.5));
    let md = report::markdown(&[row], "# t\n");
    assert!(md.contains("## Across CTAs"), "{md}");
    assert!(
        md.contains("| 50.0 | 100.0 | 0.500 | 32 / 24 | refused |"),
        "{md}"
    );
}

/// `--pair same-family`: a warp-local conversion whose chosen reverse plan
/// shuffles (the 16-warp bf16 dot-operand conversion of
/// tests/data/random_s2.ttgir; see results/runs/2026-11-24-h100-random-sweeps-776774d/)
/// times each shared-memory candidate with the reverse's shared-memory plan
/// and each shuffle candidate with its shuffle plan, and every timing
/// kernel calls its own candidate's reverse helper; `chosen` pairs all with
/// the chosen reverse.
#[test]
fn same_family_pairing_times_each_family_both_ways() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/random_s2.ttgir");
    let convs: Vec<(String, synth::plan::Conversion)> = bench::conversions_at(&p)
        .unwrap()
        .into_iter()
        .filter(|c| c.name.starts_with("sw35_dot2_dot3"))
        .map(|c| ("random_s2.ttgir".to_string(), c))
        .collect();
    assert_eq!(convs.len(), 1);
    for pair in [Pairing::Chosen, Pairing::SameFamily] {
        let opt = CaseOptions {
            weights: Weights::default(),
            shared: SharedOptions::default(),
            shared_limit: 2,
            pair,
        };
        let (cases, _) = build_cases(&convs, &opt).unwrap();
        let c = &cases[0];
        assert_eq!(c.bwd_strategy.family(), Kind::Shuffle, "{}", c.bwd_strategy);
        let shared: Vec<_> = c
            .candidates
            .iter()
            .filter(|k| k.strategy.family() == Kind::Shared)
            .collect();
        assert!(!shared.is_empty());
        for k in &c.candidates {
            let want = match pair {
                Pairing::SameFamily => k.strategy.family(),
                _ => Kind::Shuffle,
            };
            assert!(
                k.bwd_strategy.family() == want,
                "{pair:?} {}: reverse {}",
                k.strategy,
                k.bwd_strategy
            );
            // a shared-memory reverse needs scratch the chosen (shuffle)
            // reverse does not: the launch sizes it from the candidate's
            // own reverse (bench::gpu)
            if pair == Pairing::SameFamily && k.strategy.family() == Kind::Shared {
                assert!(k.bwd.smem_elems > 0 && c.bwd.smem_elems == 0);
            }
            // the timing kernel calls the candidate's own reverse helper
            let body = c
                .source
                .split(&format!(" {}(", k.kernel))
                .nth(1)
                .unwrap_or_else(|| panic!("{} not in the source", k.kernel));
            let body = &body[..body.find("\n}").unwrap_or(body.len())];
            assert!(
                body.contains(&k.bwd.ident),
                "{}: {} does not call {}",
                k.strategy,
                k.kernel,
                k.bwd.ident
            );
        }
        let m = measured_50ns(c);
        let row = report::row(
            c,
            &report::CaseMeasured {
                candidates: m,
                global: None,
                limits: Vec::new(),
            },
            None,
        );
        let v = serde_json::to_value(&row).unwrap();
        match pair {
            Pairing::Chosen => {
                assert!(v.get("pair").is_none());
                assert!(row.candidates.iter().all(|k| k.bwd.is_none()));
            }
            Pairing::SameFamily => {
                assert_eq!(v["pair"], "same-family");
                for k in &row.candidates {
                    assert_eq!(
                        k.bwd.is_some(),
                        k.strategy.starts_with("shared"),
                        "{}",
                        k.strategy
                    );
                }
            }
        }
    }
}

/// A row's `key` and its candidates' `fingerprint`s are what `plan
/// --measured` matches: the planner's key of the same conversion, and the
/// fingerprints of plans its search proves, the chosen candidate's that of
/// the planner's own choice.
#[test]
fn rows_name_conversions_and_plans_as_the_planner_does() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/random_s2.ttgir");
    let name = "sw35_dot2_dot3";
    let convs: Vec<(String, synth::plan::Conversion)> = bench::conversions_at(&p)
        .unwrap()
        .into_iter()
        .filter(|c| c.name.starts_with(name))
        .map(|c| ("random_s2.ttgir".to_string(), c))
        .collect();
    assert_eq!(convs.len(), 1);
    let opt = CaseOptions {
        weights: Weights::default(),
        shared: SharedOptions {
            sm: 90,
            max_smem: Some(pipeline::scratch_cap(90, None)),
            ..SharedOptions::default()
        },
        shared_limit: synth::search::SHARED_CANDIDATES_PROVEN,
        pair: Pairing::SameFamily,
    };
    let (cases, _) = build_cases(&convs, &opt).unwrap();
    let c = &cases[0];
    // the planner's own width, target and choice (as `pipeline::plan` plans it)
    let q = &convs[0].1;
    let bits = synth::search::plan_width(q);
    assert_eq!(c.key, pipeline::measured::conversion_key(q, bits, 90));
    let w = Weights::default().for_conversion(q);
    let sopt = SharedOptions {
        elem_bits: bits,
        ..opt.shared
    };
    let model =
        synth::search::plan_conversion_with(q, synth::plan::StrategyChoice::Auto, &w, &sopt)
            .unwrap();
    let proven: std::collections::BTreeSet<String> =
        synth::search::consider(q, synth::plan::StrategyChoice::Auto, &w, &sopt, None)
            .unwrap()
            .proven
            .iter()
            .map(|k| pipeline::measured::plan_fingerprint(&k.plan).unwrap())
            .collect();
    for k in &c.candidates {
        assert!(
            proven.contains(&k.fingerprint),
            "{}: {}",
            k.strategy,
            k.fingerprint
        );
    }
    let chosen = c.candidates.iter().find(|k| k.chosen).unwrap();
    assert_eq!(
        chosen.fingerprint,
        pipeline::measured::plan_fingerprint(&model.plan).unwrap()
    );
}
