//! The `warpforge` binary end to end: the CPU proof of every corpus file,
//! JSON output, and clear errors (non-zero exit, nothing half-written) for
//! bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> Output {
    bin()
        .current_dir(root())
        .args(args)
        .output()
        .expect("warpforge runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const B8X4: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>";
const B4X8T: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>";

#[test]
fn verify_cpu_passes_every_corpus_file() {
    for f in [
        "corpus/pairs.mlir",
        "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir",
        "corpus/ttgir/matmul_fp16_sm80.ttgir",
        "corpus/ttgir/transpose_softmax_sm80.ttgir",
        "tests/data/same_cta_split.mlir",
    ] {
        let o = run(&["verify", "--cpu", "--json", "--ttgir", f]);
        assert!(o.status.success(), "{f}: {}", stderr(&o));
        let out = String::from_utf8(o.stdout).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert!(!lines.is_empty(), "{f}: no conversions reported");
        for l in lines {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["verified"], true, "{f}: {l}");
            assert!(v["name"].as_str().unwrap().contains(':'), "{l}");
            assert!(["identity", "register", "shuffle", "shared"]
                .contains(&v["kind"].as_str().unwrap()));
            assert!(
                v["cost"]["shfl"].is_u64()
                    && v["cost"]["sel"].is_u64()
                    && v["cost"]["bar"].is_u64()
            );
            assert!(v["cpu"]["slots"].as_u64().unwrap() > 0);
        }
    }
}

#[test]
fn plan_json_for_one_pair() {
    let o = run(&[
        "plan", "--json", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--dtype", "i32",
        "--warps", "1", "--name", "m2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["name"], "m2");
    // m = 3: the shared-memory plan (Triton's path), conflict-free, one warp
    // so `__syncwarp()` and no BAR.
    assert_eq!(v["kind"], "shared");
    assert_eq!(v["cost"]["bar"], 0);
    assert_eq!(v["bank_conflicts"], 0);
    assert_eq!(v["smem_bytes"], 1024);
    assert_eq!(v["rounds"], 1);
    assert!(v["wavefronts"].as_u64().unwrap() >= v["min_wavefronts"].as_u64().unwrap());
    let c = &v["cost"];
    assert!(c["sts"].as_u64().unwrap() + c["lds"].as_u64().unwrap() <= 16);
    // The shuffle plan is still there when asked for.
    let o = run(&[
        "plan",
        "--json",
        "--strategy",
        "shuffle",
        "--src",
        B8X4,
        "--dst",
        B4X8T,
        "--shape",
        "16x16",
        "--dtype",
        "i32",
        "--warps",
        "1",
        "--name",
        "m2",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kind"], "shuffle");
    assert_eq!(v["m"], 3);
    assert_eq!(v["cost"]["shfl"], 8);
}

#[test]
fn max_smem_rounds_or_a_clear_error() {
    let f = "corpus/ttgir/matmul_fp16_sm80.ttgir";
    let o = run(&["plan", "--json", "--ttgir", f, "--max-smem", "4096"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["smem_bytes"].as_u64().unwrap() <= 4096, "{v}");
    assert_eq!(v["rounds"], 8);
    assert_eq!(v["cost"]["bar"], 15);
    let dir = tempfile_dir();
    // the f16 helper fits; the widths that do not (32/64-bit) are rejected
    // at compile time instead of failing the whole emit
    let ok = dir.join("capped.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        f,
        "--max-smem",
        "4096",
        "-o",
        ok.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ok).unwrap();
    assert!(
        text.contains("planned for 1/2-byte elements only"),
        "{text}"
    );
    let out = dir.join("never.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        f,
        "--max-smem",
        "2048",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("needs 4096 bytes") && e.contains("--max-smem allows 2048"),
        "{e}"
    );
    assert!(!out.exists(), "nothing is written");
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("warpforge-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn strategy_can_be_forced() {
    let o = run(&[
        "plan",
        "--json",
        "--strategy",
        "shared",
        "--src",
        B8X4,
        "--dst",
        B4X8T,
        "--shape",
        "16x16",
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["kind"], "shared");
    // a cross-warp conversion has no shuffle plan
    let o = run(&[
        "plan",
        "--strategy",
        "shuffle",
        "--ttgir",
        "corpus/ttgir/matmul_fp16_sm80.ttgir",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("strategy `shuffle` does not apply"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn emit_writes_a_header_with_every_helper() {
    let dir = std::env::temp_dir().join(format!("wf-emit-{}", std::process::id()));
    let out = dir.join("attn.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    for f in [
        "wf_attn_93",
        "wf_attn_104",
        "wf_attn_116",
        "wf_attn_120",
        "wf_attn_120_smem_bytes",
        "__syncthreads()",
    ] {
        assert!(h.contains(f), "header lacks {f}");
    }
    assert!(h.contains("#pragma once"));
    let _ = std::fs::remove_dir_all(dir);
}

fn expect_error(args: &[&str], needles: &[&str]) {
    let o = run(args);
    assert!(!o.status.success(), "{args:?} should fail");
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    let e = stderr(&o);
    for n in needles {
        assert!(e.contains(n), "{args:?}: `{n}` not in: {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn bad_attribute_is_named() {
    let bad = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0], vec = 2}>";
    expect_error(
        &[
            "plan", "--src", bad, "--dst", B4X8T, "--shape", "16x16", "--warps", "1",
        ],
        &["--src", "unknown attribute key `vec`"],
    );
    expect_error(
        &[
            "plan",
            "--src",
            "#ttg.blocked<{",
            "--dst",
            B4X8T,
            "--shape",
            "16x16",
        ],
        &["--src"],
    );
    expect_error(
        &[
            "plan",
            "--src",
            "#ttg.amd_mfma<{versionMajor = 3}>",
            "--dst",
            B4X8T,
            "--shape",
            "16x16",
        ],
        &["unsupported encoding"],
    );
}

#[test]
fn non_power_of_two_shape() {
    expect_error(
        &[
            "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "12x16", "--warps", "1",
        ],
        &["12 is not a power of two"],
    );
    expect_error(
        &[
            "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "16xq", "--warps", "1",
        ],
        &["--shape"],
    );
}

#[test]
fn shapes_that_differ_name_the_line() {
    expect_error(
        &["plan", "--ttgir", "tests/data/shape_mismatch.mlir"],
        &["shape_mismatch.mlir:4", "changes the shape"],
    );
}

#[test]
fn cross_cta_is_refused() {
    expect_error(
        &["plan", "--ttgir", "tests/data/cross_cta.mlir"],
        &["cross_cta.mlir:6", "across CTAs"],
    );
}

#[test]
fn non_surjective_and_wrong_warps() {
    let lin =
        "#ttg.linear<{register = [[1]], lane = [[2], [4], [0], [0], [0]], warp = [], block = []}>";
    let half =
        "#ttg.linear<{register = [[0]], lane = [[2], [4], [0], [0], [0]], warp = [], block = []}>";
    expect_error(
        &[
            "plan", "--src", lin, "--dst", half, "--shape", "8", "--warps", "1",
        ],
        &["destination layout", "surjective"],
    );
    expect_error(
        &[
            "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--warps", "4",
        ],
        &["warps"],
    );
    expect_error(
        &[
            "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--dtype", "q7",
        ],
        &["--dtype", "q7"],
    );
}

#[test]
fn failed_emit_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("wf-nohalf-{}", std::process::id()));
    let out = dir.join("x.cuh");
    expect_error(
        &[
            "emit",
            "--ttgir",
            "tests/data/cross_cta.mlir",
            "-o",
            out.to_str().unwrap(),
        ],
        &["across CTAs"],
    );
    assert!(!out.exists(), "a failed emit must not write {out:?}");
}

#[test]
fn missing_file_and_missing_input() {
    expect_error(
        &["plan", "--ttgir", "no/such/file.ttgir"],
        &["no/such/file.ttgir", "cannot read"],
    );
    expect_error(&["plan"], &["--ttgir"]);
}

#[test]
fn verify_gpu_demanded() {
    // With a GPU this proves the pairs on it; without one it must fail clearly.
    let o = run(&["verify", "--gpu", "--ttgir", "corpus/pairs.mlir"]);
    if o.status.success() {
        assert!(stderr(&o).contains("CPU simulator + GPU"), "{}", stderr(&o));
    } else {
        eprintln!("skipped the GPU half: no GPU here ({})", stderr(&o).trim());
        assert!(stderr(&o).contains("--gpu: no GPU"), "{}", stderr(&o));
    }
}

#[test]
fn layout_prints_triton_to_string() {
    let o = run(&["layout", "--attr", B8X4, "--shape", "16x16", "--warps", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = String::from_utf8(o.stdout).unwrap();
    assert!(s.starts_with(" - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n   register=4 -> (8, 0)\n - lane=1 -> (0, 4)"), "{s}");
    assert!(s.contains("where out dims are: [dim0 (size 16), dim1 (size 16)]"));
}

/// `warpforge bench` without a GPU says so and exits 1 (on a GPU machine
/// this test does not start a benchmark: it checks nothing there, and says so).
#[test]
fn bench_without_a_gpu_fails_clearly() {
    if verify::probe_gpu().is_ok() {
        eprintln!("SKIP bench_without_a_gpu_fails_clearly: a GPU is present");
        return;
    }
    expect_error(
        &["bench", "--ttgir", "corpus/pairs.mlir"],
        &["warpforge bench needs a GPU"],
    );
}

/// `warpforge fit` on the committed H100 timings writes a model the planner
/// loads; a bad `--cost-model` is named, and nothing is written for it.
#[test]
fn fit_writes_a_loadable_model_and_bad_models_are_named() {
    let d = tempfile_dir();
    let m = d.join("fit.json");
    let o = run(&[
        "fit",
        "--from",
        "results/vs_triton.jsonl",
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

/// `plan --json` carries `score` and `lower_bound`, and no plan scores
/// below its bound.
#[test]
fn plan_json_has_a_lower_bound_below_the_score() {
    let o = run(&["plan", "--ttgir", "corpus/pairs.mlir", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let lb = v["lower_bound"]["score"].as_f64().unwrap();
        let s = v["score"].as_f64().unwrap();
        assert!(lb <= s + 1e-9, "{}: bound {lb} > score {s}", v["name"]);
    }
}

/// Triton's packed-conversion bug record (tests/data/regressions.mlir):
/// #7899 (16x8 fp8 mma <-> blocked) gets a packed shuffle plan, and #9680
/// (2x8 int16, m = 2 with a packed register bit) a word-lifted shuffle plan
/// with m = 2; every candidate of both passes the CPU simulator (auto and
/// shuffle-only), and the GPU run verifies the same file with `--gpu`.
#[test]
fn regressions_7899_and_9680_are_planned_packed_and_proven() {
    for strategy in ["auto", "shuffle"] {
        let o = run(&[
            "verify",
            "--ttgir",
            "tests/data/regressions.mlir",
            "--strategy",
            strategy,
        ]);
        assert!(o.status.success(), "{strategy}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("4 of 4 conversion(s) verified"),
            "{}",
            stderr(&o)
        );
    }
    let o = run(&[
        "plan",
        "--ttgir",
        "tests/data/regressions.mlir",
        "--strategy",
        "shuffle",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        let name = r["name"].as_str().unwrap();
        let strategy = r["strategy"].as_str().unwrap();
        if name.starts_with("issue7899") {
            assert_eq!(strategy, "shuffle/packed/idx", "{name}");
            assert_eq!(r["cost"]["shfl"], 2, "{name}");
            assert_eq!(r["cost"]["prmt"], 1, "{name}");
        } else {
            assert!(strategy.ends_with("/words"), "{name}: {strategy}");
            assert_eq!(r["m"], 2, "{name}");
        }
    }
}
