//! `warpforge fit`: models fitted from committed bench rows, loaded by the
//! planner, and bad input named.

use crate::common::*;

/// `warpforge fit` on the committed H100 timings writes a model the planner
/// loads; a bad `--cost-model` is named, and nothing is written for it.
#[test]
fn fit_writes_a_loadable_model_and_bad_models_are_named() {
    let d = tempfile_dir();
    let m = d.join("fit.json");
    let o = run(&[
        "fit",
        "--from",
        "results/runs/2026-11-22-h100-bench-180de76/bench.jsonl",
        "-o",
        m.to_str().unwrap(),
        "--gpu",
        "test",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("within 5% of the fastest"), "{out}");
    let text = std::fs::read_to_string(&m).unwrap();
    let model = synth::search::CostModel::from_json(&text, "fit.json").unwrap();
    assert_eq!(model.gpu, "test");
    let o = run(&[
        "plan",
        "--ttgir",
        "corpus/pairs.mlir",
        "--cost-model",
        m.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bad = d.join("bad.json");
    std::fs::write(&bad, text.replace("\"version\": 1", "\"version\": 7")).unwrap();
    let h = d.join("never.cuh");
    expect_error(
        &[
            "emit",
            "--ttgir",
            "corpus/pairs.mlir",
            "--cost-model",
            bad.to_str().unwrap(),
            "-o",
            h.to_str().unwrap(),
        ],
        &["bad.json", "version 7"],
    );
    assert!(!h.exists());
    expect_error(
        &[
            "fit",
            "--from",
            "README.md",
            "-o",
            d.join("x.json").to_str().unwrap(),
        ],
        &["README.md:1: not a bench row"],
    );
}

/// `warpforge fit --only spill` on the committed rows timed under
/// `--max-registers 80` and `128` (two files) reproduces the built-in
/// model's spill weight with every other weight the built-in's; rows that
/// never exceed a limit cannot identify it, and the error says so.
#[test]
fn fit_only_spill_reproduces_the_builtin_weight() {
    let d = tempfile_dir();
    let m = d.join("spill.json");
    let o = run(&[
        "fit",
        "--from",
        "results/runs/2026-11-23-h100-spill-weight-d571367/bench_max_registers_80.jsonl",
        "results/runs/2026-11-23-h100-spill-weight-d571367/bench_max_registers_128.jsonl",
        "--only",
        "spill",
        "-o",
        m.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let fitted =
        synth::search::CostModel::from_json(&std::fs::read_to_string(&m).unwrap(), "spill.json")
            .unwrap()
            .weights;
    let builtin = synth::search::CostModel::builtin().weights;
    assert!((fitted.spill - builtin.spill).abs() < 0.005, "{fitted:?}");
    let (mut a, mut b) = (fitted.as_array(), builtin.as_array());
    let k = synth::cost_model::FEATURE_NAMES
        .iter()
        .position(|n| *n == "spill")
        .unwrap();
    a[k] = 0.0;
    b[k] = 0.0;
    assert_eq!(a, b);
    expect_error(
        &[
            "fit",
            "--from",
            "results/runs/2026-11-22-h100-bench-180de76/bench.jsonl",
            "--only",
            "spill",
            "-o",
            d.join("x.json").to_str().unwrap(),
        ],
        &["--only spill", "`spill` varies within 0 conversion(s)"],
    );
    assert!(!d.join("x.json").exists());
}
