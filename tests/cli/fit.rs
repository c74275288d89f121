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

/// `warpforge fit --one-warp` on the committed same-family H200 rows of
/// 16-bit one-warp conversions: refused from the built-in model (its
/// section is bounded to 32-bit data); from the built-in weights without a
/// section it writes them with a `one_warp` section (the one the run folder
/// keeps); the planner ranks one-warp conversions by it and every other
/// conversion as before. Rows with no one-warp conversion are refused, and
/// a refit of the base weights keeps the prior's section.
#[test]
fn fit_one_warp_writes_a_section_that_ranks_one_warp_ctas_only() {
    let run_dir = "results/runs/2026-11-28-h200-one-warp-choice-5a3d102";
    let d = tempfile_dir();
    let m = d.join("w1.json");
    let rows: Vec<String> = ["bench_w1a", "bench_tl", "bench_rest"]
        .iter()
        .map(|n| format!("{run_dir}/3_same_family/{n}.jsonl"))
        .collect();
    // the built-in model's section ranks 32-bit data only: the 16-bit rows
    // (all but one 8-bit and one 32-bit row of bench_rest) are not its to fit
    let mut args = vec!["fit", "--one-warp", "--near-prior", "0.002", "--from"];
    args.extend(rows.iter().map(String::as_str));
    let refused = d.join("refused.json");
    expect_error(
        &[
            &args[..4],
            &[
                "--from",
                &rows[0],
                &rows[1],
                "-o",
                refused.to_str().unwrap(),
            ],
        ]
        .concat(),
        &[
            "no rows of one-warp conversions",
            "of at most 16 words per thread in elements of at least 32 bits",
        ],
    );
    assert!(!refused.exists());
    // from the built-in weights without a section, the section is fitted
    let mut bare = synth::search::CostModel::builtin();
    bare.weights.one_warp = None;
    bare.weights.one_warp_max_words = None;
    bare.weights.one_warp_min_bits = None;
    let prior = d.join("bare.json");
    std::fs::write(&prior, bare.to_json()).unwrap();
    args.extend(["--prior", prior.to_str().unwrap()]);
    args.extend(["-o", m.to_str().unwrap()]);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    // same-family rows: no warning about the pairing
    assert!(!stderr(&o).contains("--pair chosen"), "{}", stderr(&o));
    let load = |p: &str| {
        synth::search::CostModel::from_json(&std::fs::read_to_string(p).unwrap(), p)
            .unwrap()
            .weights
    };
    let got = load(m.to_str().unwrap());
    let kept = load(&format!("{run_dir}/models/one_warp_same_family.json"));
    let builtin = synth::search::CostModel::builtin().weights;
    assert_eq!(got.one_warp, kept.one_warp);
    assert!(got.one_warp.is_some());
    assert_eq!(got.at_cta(4, 1, 1, 32), builtin.at_cta(4, 1, 1, 32));
    // one warp: the section changes this conversion's plan; four warps: nothing
    let plan = |extra: &[&str]| {
        let mut a = vec!["plan", "--ttgir"];
        a.extend(extra);
        let o = run(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let w1 = [
        "tests/data/triton_tests/warp_local_w1.ttgir",
        "--name",
        "wl_32x32_s3_t7",
    ];
    let before = plan(&w1);
    let after = plan(&[&w1[..], &["--cost-model", m.to_str().unwrap()]].concat());
    assert!(before.contains("shared/"), "{before}");
    assert!(after.contains("shuffle/in-place/bfly/words"), "{after}");
    let w4 = ["tests/data/stress_w4.ttgir"];
    assert_eq!(
        plan(&w4),
        plan(&[&w4[..], &["--cost-model", m.to_str().unwrap()]].concat())
    );
    // no one-warp rows: refused, nothing written
    let many = d.join("many_warps.jsonl");
    let text =
        std::fs::read_to_string("results/runs/2026-11-24-h100-carried-words-6ef7222/bench.jsonl")
            .unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.contains("\"warps\":1,"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(kept.lines().count() > 10 && kept.lines().count() < text.lines().count());
    std::fs::write(&many, kept).unwrap();
    let none = d.join("none.json");
    expect_error(
        &[
            "fit",
            "--one-warp",
            "--from",
            many.to_str().unwrap(),
            "-o",
            none.to_str().unwrap(),
        ],
        &["no rows of one-warp conversions"],
    );
    assert!(!none.exists());
    // a refit of the base weights from a prior with a section keeps it
    let base = d.join("base.json");
    let o = run(&[
        "fit",
        "--near-prior",
        "0.002",
        "--prior",
        m.to_str().unwrap(),
        "--from",
        "results/runs/2026-11-24-h100-carried-words-6ef7222/bench.jsonl",
        "-o",
        base.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(load(base.to_str().unwrap()).one_warp, got.one_warp);
    // rows timed with the chosen reverse and candidates of both families
    let e = stderr(&o);
    assert!(
        e.contains("candidates timed with the reverse's chosen plan (bench --pair chosen)"),
        "{e}"
    );
}
