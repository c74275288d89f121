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

/// `make check-all` (`WF_SAMPLE=1`): the long sweeps whole; `make test`
/// runs a fixed part of them.
fn check_all() -> bool {
    std::env::var("WF_SAMPLE").is_ok_and(|v| v.trim() == "1")
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
    let all = [
        "corpus/pairs.mlir",
        "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir",
        "corpus/ttgir/matmul_fp16_sm80.ttgir",
        "corpus/ttgir/transpose_softmax_sm80.ttgir",
        "tests/data/same_cta_split.mlir",
        "tests/data/cluster_same_cta.mlir",
        "tests/data/byte_transpose.mlir",
        // 140 conversions of Triton's Gluon layout tests (test_lowerings.py;
        // tests/triton_tests.rs samples all of them in `make test`)
        "tests/data/triton_lowerings.ttgir",
    ];
    let n = if check_all() {
        all.len()
    } else {
        all.len() - 1
    };
    for f in &all[..n] {
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
    // the f16 helper fits, and the 32-bit one in rounds whose last goes over
    // a warp bit (those warps store in turn); the width that does not
    // (64-bit) is rejected at compile time instead of failing the whole emit
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
        text.contains("planned for 1/2/4-byte elements only"),
        "{text}"
    );
    let out = dir.join("never.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        f,
        "--max-smem",
        "1024",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("needs 2048 bytes") && e.contains("--max-smem allows 1024"),
        "{e}"
    );
    // the refused conversion is declared, failing to compile where it is used
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(
        h.contains("was NOT served") && h.contains("--max-smem allows 1024"),
        "{h}"
    );
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
    std::fs::create_dir_all(&dir).unwrap();
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
    // not a shape at all: a command-line error (exit 2) naming the flag
    let o = run(&[
        "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "16xq", "--warps", "1",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--shape"), "{}", stderr(&o));
}

#[test]
fn shapes_that_differ_name_the_line() {
    expect_error(
        &["plan", "--ttgir", "tests/data/shape_mismatch.mlir"],
        &["shape_mismatch.mlir:4", "changes the shape"],
    );
}

// docs/ARCHITECTURE.md 4.7: a cross-CTA conversion needs clusters: on a
// target below sm_90, or with another strategy forced, it is refused with
// the cross-CTA message naming the conversion's line
#[test]
fn cross_cta_is_refused_below_sm90_and_for_forced_strategies() {
    expect_error(
        &["plan", "--ttgir", "tests/data/cross_cta.mlir", "--sm", "80"],
        &["cross_cta.mlir:6", "across CTAs", "sm_80", "sm_90"],
    );
    expect_error(
        &[
            "plan",
            "--ttgir",
            "tests/data/cross_cta.mlir",
            "--strategy",
            "shared",
        ],
        &["cross_cta.mlir:6", "across CTAs", "cluster strategy"],
    );
    // more than 16 CTAs: refused when the layout is read
    let a = "#ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32], [64], [128], [256], [512]]}>";
    let b = "#ttg.linear<{register = [], lane = [[32], [64], [128], [256], [512]], warp = [], block = [[1], [2], [4], [8], [16]]}>";
    let o = run(&[
        "plan", "--src", a, "--dst", b, "--shape", "1024", "--warps", "1",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("16"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

// docs/ARCHITECTURE.md 4.7: every cross-CTA case of the cluster files
// (2, 4 and 8 CTAs, 1-D and 2-D, broadcast, and the 2-CTA TTGIR module whose
// blocked layouts split different dims) is planned through distributed
// shared memory and proven on the CPU for every thread of every CTA; plan
// --json states the cross-CTA bytes and the cluster barriers
#[test]
fn cluster_cross_cta_cases_are_planned_and_proven() {
    // (file, name, CTAs, threads per CTA, destination registers)
    let cases: [(&str, &str, u64, u64, u64); 9] = [
        ("cluster_cross_cta.mlir", "c2_1d", 2, 32, 2),
        ("cluster_cross_cta.mlir", "c2_2d", 2, 32, 16),
        ("cluster_cross_cta.mlir", "c2_keep_half", 2, 32, 2),
        ("cluster_cross_cta.mlir", "c4_1d_bcast", 4, 32, 2),
        ("cluster_cross_cta.mlir", "c4_2d_bcast", 4, 32, 16),
        ("cluster_cross_cta.mlir", "c8_1d", 8, 32, 1),
        ("cluster_cross_cta.mlir", "c8_2d", 8, 64, 4),
        ("cluster2_blocked.mlir", "split_m_to_n", 2, 0, 0),
        ("cross_cta.mlir", "cross", 2, 32, 64),
    ];
    for (file, name, ctas, threads, dst_regs) in cases {
        let path = format!("tests/data/{file}");
        let o = run(&[
            "verify", "--cpu", "--json", "--ttgir", &path, "--name", name,
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["verified"], true, "{name}: {v}");
        if threads > 0 {
            assert_eq!(
                v["cpu"]["slots"].as_u64(),
                Some(ctas * threads * dst_regs),
                "{name}: {v}"
            );
        }
        let o = run(&["plan", "--json", "--ttgir", &path, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["kind"], "cluster", "{name}: {v}");
        assert_eq!(v["ctas"].as_u64(), Some(ctas), "{name}: {v}");
        assert_eq!(v["cluster_barriers"].as_u64(), Some(2), "{name}: {v}");
        assert_eq!(v["cost"]["cbar"].as_u64(), Some(2), "{name}: {v}");
        assert!(v["cluster_bytes"].as_u64().unwrap() > 0, "{name}: {v}");
        let variant = v["cluster_variant"].as_str().unwrap();
        let prefix = match variant {
            "store_remote" => "cluster/remote-store/",
            "load_remote" => "cluster/remote-load/",
            other => panic!("{name}: cluster_variant {other}"),
        };
        assert!(
            v["strategy"].as_str().unwrap().starts_with(prefix),
            "{name}: {v}"
        );
    }
    // 2 CTAs, 1 warp, 128 i32: each CTA keeps half of its 64 elements and
    // sends the other 32 (128 bytes) to its peer
    let o = run(&[
        "plan",
        "--json",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c2_1d",
    ]);
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["cluster_bytes"].as_u64(), Some(128), "{v}");
    assert_eq!(v["smem_bytes"].as_u64(), Some(256), "{v}");
}

// the 40 random cross-CTA conversions GPU-checked in results/runs/2026-11-23-h100-cluster-3bea4a8/README.md
// are proven on the CPU in both plans
#[test]
fn random_cluster_file_is_proven_in_both_plans() {
    for s in ["cluster-store", "cluster-load"] {
        let o = run(&[
            "verify",
            "--cpu",
            "--strategy",
            s,
            "--ttgir",
            "tests/data/cluster_random.mlir",
        ]);
        assert!(o.status.success(), "{s}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("40 of 40 conversion(s) verified"),
            "{s}: {}",
            stderr(&o)
        );
    }
}

/// The random layout conversions of `scripts/random_conversions.py`
/// (tests/data/random_s{1,2}.ttgir: blocked, mma v2/v3 and dot-operand
/// layouts at 1-16 warps, 8/16/32-bit; timed against Triton on an H100 in
/// results/runs/2026-11-24-h100-random-sweeps-776774d/) are planned whole and proven
/// on the CPU simulator, every plan at or above its lower bound.
#[test]
fn random_layout_conversions_are_proven() {
    for (file, n) in [
        ("tests/data/random_s1.ttgir", 70),
        ("tests/data/random_s2.ttgir", 58),
    ] {
        // `plan` proves each chosen plan on the simulator as it searches;
        // `verify --cpu` proves every width again (check-all)
        if check_all() {
            let o = run(&["verify", "--cpu", "--ttgir", file]);
            assert!(o.status.success(), "{file}: {}", stderr(&o));
            let want = format!("{n} of {n} conversion(s) verified");
            assert!(stderr(&o).contains(&want), "{file}: {}", stderr(&o));
        }
        let o = run(&["plan", "--ttgir", file, "--json"]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        let mut planned = 0;
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let (lb, sc) = (v["lower_bound"]["score"].as_f64(), v["score"].as_f64());
            let (lb, sc) = (lb.unwrap(), sc.unwrap());
            assert!(
                lb <= sc + 1e-9,
                "{file} {}: bound {lb} > score {sc}",
                v["name"]
            );
            planned += 1;
        }
        assert_eq!(planned, n, "{file}");
    }
}

// 16 CTAs, over the portable 8: proven on the CPU, and the helper's comment
// tells the caller to opt in to the non-portable cluster size
#[test]
fn sixteen_cta_cluster_helper_asks_for_the_non_portable_size() {
    let path = "tests/data/cluster16.mlir";
    let o = run(&["verify", "--cpu", "--json", "--ttgir", path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["cpu"]["slots"].as_u64(), Some(16 * 32), "{v}");
    let out = tempfile_dir().join("cluster16.cuh");
    let o = run(&["emit", "--ttgir", path, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(
        h.contains("cluster of 16 CTAs (over the portable 8: set cudaFuncAttributeNonPortableClusterSizeAllowed"),
        "{h}"
    );
    // 8 CTAs is portable: no such line
    let out8 = tempfile_dir().join("cluster8.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c8_1d",
        "-o",
        out8.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!std::fs::read_to_string(&out8).unwrap().contains("portable"));
}

// conversions where every CTA keeps elements it holds, but which and in
// what order depends on the CTA (tests/data/cluster_cta_dependent.mlir):
// one program for every CTA, through the cluster plan, proven on the CPU
#[test]
fn cta_dependent_conversions_go_through_the_cluster_plan() {
    for (name, slots) in [("c4_1d_select", 4 * 32), ("c4_2d_select", 4 * 32 * 8)] {
        let path = "tests/data/cluster_cta_dependent.mlir";
        let o = run(&["verify", "--cpu", "--json", "--ttgir", path, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["verified"], true, "{name}: {v}");
        assert_eq!(v["cpu"]["slots"].as_u64(), Some(slots), "{name}: {v}");
        let o = run(&["plan", "--json", "--ttgir", path, "--name", name]);
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["kind"], "cluster", "{name}: {v}");
        assert_eq!(v["ctas"].as_u64(), Some(4), "{name}: {v}");
    }
    // below sm_90 refused, saying what the conversion does (no data crosses)
    expect_error(
        &[
            "plan",
            "--sm",
            "80",
            "--ttgir",
            "tests/data/cluster_cta_dependent.mlir",
        ],
        &[
            "c4_1d_select:15",
            "every CTA keeps its elements, in an order that depends on the CTA",
            "sm_80 lacks",
        ],
    );
}

// the emitted cluster helper of the writer variant (forced: auto picks the
// reader for this case; compiled and run on an H100 by `verify --gpu`,
// results/runs/2026-11-23-h100-cluster-3bea4a8/README.md; not compiled here: no nvcc) states its
// cluster size, the launch it needs, the cross-CTA bytes and barriers, and
// uses mapa / st.shared::cluster / barrier.cluster with the opt-in check
#[test]
fn cluster_helper_states_its_contract() {
    let out = tempfile_dir().join("cluster_cross_c4.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c4_1d_bcast",
        "--strategy",
        "cluster-store",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    for needle in [
        "cluster of 4 CTAs",
        "%cluster_ctarank",
        "__cluster_dims__",
        "cudaLaunchAttributeClusterDimension",
        "cross-CTA bytes per CTA",
        "cluster barriers: 2",
        "#ifdef WARPFORGE_CHECK_CLUSTER",
        "%%cluster_nctarank",
        "if (n != 4u) __trap();",
        // source block bit 1 is a broadcast: CTAs 2 and 3 store nothing
        "if (((rank1 & 2u)) == 0u) {",
        "mapa.shared::cluster.u32",
        "st.shared::cluster.b32",
        "barrier.cluster.arrive.release.aligned;",
        "barrier.cluster.wait.acquire.aligned;",
        "void* smem",
    ] {
        assert!(h.contains(needle), "`{needle}` not in:\n{h}");
    }
}

// docs/ARCHITECTURE.md 4.7: --strategy cluster-store / cluster-load force
// the writer-stores-remotely / reader-loads-remotely plan of every
// cross-CTA case (plan --json names it, verify --cpu proves it); auto lets
// the cost model choose (the 4-CTA broadcast case: one local store and two
// loads beat four remote stores; the 2-CTA 2-D case: the writer); a
// cluster strategy forced on a conversion that stays in its CTAs is
// refused
#[test]
fn cluster_strategy_forces_each_variant() {
    let cases = [
        ("cluster_cross_cta.mlir", "c2_1d"),
        ("cluster_cross_cta.mlir", "c4_1d_bcast"),
        ("cluster_cross_cta.mlir", "c8_2d"),
        ("cluster2_blocked.mlir", "split_m_to_n"),
        ("cross_cta.mlir", "cross"),
    ];
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap()
    };
    for (file, name) in cases {
        let path = format!("tests/data/{file}");
        for (strategy, variant, prefix) in [
            ("cluster-store", "store_remote", "cluster/remote-store/"),
            ("cluster-load", "load_remote", "cluster/remote-load/"),
        ] {
            let v = json(&[
                "plan",
                "--json",
                "--ttgir",
                &path,
                "--name",
                name,
                "--strategy",
                strategy,
            ]);
            assert_eq!(v["kind"], "cluster", "{name} {strategy}: {v}");
            assert_eq!(v["cluster_variant"], variant, "{name} {strategy}: {v}");
            assert!(
                v["strategy"].as_str().unwrap().starts_with(prefix),
                "{name} {strategy}: {v}"
            );
            assert_eq!(v["cluster_barriers"].as_u64(), Some(2), "{name}: {v}");
            assert!(v["cluster_bytes"].as_u64().unwrap() > 0, "{name}: {v}");
            let key = if strategy == "cluster-store" {
                "stcl"
            } else {
                "ldcl"
            };
            assert!(
                v["cost"][key].as_u64().unwrap() > 0,
                "{name} {strategy}: {v}"
            );
            let v = json(&[
                "verify",
                "--cpu",
                "--json",
                "--ttgir",
                &path,
                "--name",
                name,
                "--strategy",
                strategy,
            ]);
            assert_eq!(v["verified"], true, "{name} {strategy}: {v}");
        }
    }
    let auto = |name: &str| {
        json(&[
            "plan",
            "--json",
            "--ttgir",
            "tests/data/cluster_cross_cta.mlir",
            "--name",
            name,
        ])["cluster_variant"]
            .clone()
    };
    assert_eq!(auto("c4_1d_bcast"), "load_remote");
    assert_eq!(auto("c2_2d"), "store_remote");
    expect_error(
        &[
            "plan",
            "--ttgir",
            "tests/data/cluster2_blocked.mlir",
            "--name",
            "split_m_both",
            "--strategy",
            "cluster-load",
        ],
        &[
            "cluster-load",
            "does not apply",
            "keep their elements in the same order (equal block bases)",
        ],
    );
}

// the reader-loads-remotely helper (forced; not compiled here: no nvcc):
// local st.shared of the source, a cluster barrier, mapa +
// ld.shared::cluster from the CTA holding each element (ld.shared where
// the own CTA holds it in every thread: register 0 of c2_keep_half), and a
// final cluster barrier after the last load; no remote stores
#[test]
fn cluster_load_helper_loads_remotely_and_ends_with_a_barrier() {
    let out = tempfile_dir().join("cluster_keep_half_load.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c2_keep_half",
        "--strategy",
        "cluster-load",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    for needle in [
        "cluster/remote-load/",
        "cluster of 2 CTAs",
        "elements loaded from other CTAs",
        "cluster barriers: 2",
        "%%cluster_ctarank",
        "if (n != 2u) __trap();",
        "detail::st_b32(",
        "mapa.shared::cluster.u32 %0, %1, %2;",
        // 4-byte elements: register 0 from the own CTA, register 1 remote
        "const unsigned w2_0_0 = detail::ld_b32(sb + (ob2 ^ 0u) * 4u);",
        "asm volatile(\"ld.shared::cluster.b32 %0, [%1];\" : \"=r\"(w2_1_0) : \"r\"(r2_1) : \"memory\");",
        "asm volatile(\"ld.shared::cluster.u8 %0, [%1];\"",
        "asm volatile(\"ld.shared::cluster.u16 %0, [%1];\"",
        "asm volatile(\"ld.shared::cluster.v2.b32 {%0, %1}, [%2];\"",
    ] {
        assert!(h.contains(needle), "`{needle}` not in:\n{h}");
    }
    assert!(!h.contains("st.shared::cluster"), "{h}");
    // per element width: store, barrier, loads, barrier, then the outputs
    for body in h.split("if constexpr (sizeof(T) == ").skip(1) {
        let first_bar = body.find("barrier.cluster.arrive").unwrap();
        let last_bar = body.rfind("barrier.cluster.arrive").unwrap();
        let last_load = body.rfind("ld.shared::cluster").unwrap();
        let store = body.find("detail::st_").unwrap();
        assert!(
            store < first_bar && first_bar < last_load && last_load < last_bar,
            "{body}"
        );
        assert!(body.find("dst[0] =").unwrap() > last_bar, "{body}");
        assert_eq!(
            body.matches("barrier.cluster.wait.acquire.aligned").count(),
            2,
            "{body}"
        );
    }
    // 128-bit remote loads where 16-byte runs of a destination thread's
    // registers lie in one CTA (split-M -> split-N, 16-bit elements)
    let out = tempfile_dir().join("cluster2_split_load.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster2_blocked.mlir",
        "--name",
        "split_m_to_n",
        "--strategy",
        "cluster-load",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(
        h.contains("asm volatile(\"ld.shared::cluster.v4.b32 {%0, %1, %2, %3}, [%4];\""),
        "{h}"
    );
}

// the in-CTA conversion of a 2-CTA TTGIR module (CTASplitNum on one side,
// CGALayout on the other) is planned per CTA and proven for both CTAs
#[test]
fn cluster_in_cta_conversion_is_planned_per_cta() {
    let o = run(&[
        "verify",
        "--cpu",
        "--json",
        "--ttgir",
        "tests/data/cluster2_blocked.mlir",
        "--name",
        "split_m_both",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["verified"], true, "{v}");
    // 2 CTAs x 4 warps x 32 lanes x 32 registers (128x64 over 256 threads)
    assert_eq!(v["cpu"]["slots"].as_u64(), Some(2 * 4 * 32 * 32), "{v}");
    // the helper's comment shows both layouts' block bases (the helper runs
    // in every CTA; headers of one-program in-CTA conversions are as before)
    let out = tempfile_dir().join("cluster2_in_cta.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster2_blocked.mlir",
        "--name",
        "split_m_both",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let header = std::fs::read_to_string(&out).unwrap();
    assert!(header.contains("block=1 -> (64, 0)"), "{header}");
}

#[test]
fn cta_counts_that_disagree_are_named() {
    let split = "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]], warp = [], block = [[2, 0]]}>";
    let split_t = "#ttg.linear<{register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = [[2, 0]]}>";
    let one = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>";
    // --ctas defaults to what --src spans
    let o = run(&[
        "plan", "--src", split, "--dst", split_t, "--shape", "4x32", "--warps", "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    expect_error(
        &[
            "plan", "--src", split, "--dst", split_t, "--shape", "4x32", "--warps", "1", "--ctas",
            "4",
        ],
        &["--src", "block has 1 basis (2 CTAs), but --ctas is 4"],
    );
    expect_error(
        &[
            "plan", "--src", split, "--dst", one, "--shape", "4x32", "--warps", "1",
        ],
        &[
            "--dst",
            "CTAsPerCGA is not given (one CTA), but --ctas is 2 (--ctas was not given: 2 is what --src spans)",
        ],
    );
    // command-line errors (status 2)
    for (args, needle) in [
        (
            vec!["--src", split, "--dst", split_t, "--ctas", "32"],
            "1 to 16 CTAs",
        ),
        (
            vec!["--src", split, "--dst", split_t, "--ctas", "3"],
            "power of two",
        ),
        (
            vec!["--ttgir", "tests/data/same_cta_split.mlir", "--ctas", "2"],
            "--ctas",
        ),
    ] {
        let o = run(&[&["plan"][..], &args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    // a module whose num-ctas disagrees with its layouts, or is over 16
    let dir = tempfile_dir();
    let text = std::fs::read_to_string(root().join("tests/data/same_cta_split.mlir")).unwrap();
    let four = dir.join("four_ctas.mlir");
    std::fs::write(
        &four,
        text.replace("\"ttg.num-ctas\" = 2", "\"ttg.num-ctas\" = 4"),
    )
    .unwrap();
    expect_error(
        &["plan", "--ttgir", four.to_str().unwrap()],
        &[
            "four_ctas.mlir:2:",
            "CTAsPerCGA [2, 1] multiplies to 2 CTAs, but the module has 4 CTAs",
            "this `CTAsPerCGA`",
        ],
    );
    let many = dir.join("many_ctas.mlir");
    std::fs::write(
        &many,
        text.replace("\"ttg.num-ctas\" = 2", "\"ttg.num-ctas\" = 32"),
    )
    .unwrap();
    expect_error(
        &["plan", "--ttgir", many.to_str().unwrap()],
        &["many_ctas.mlir:4:", "\"ttg.num-ctas\" = 32", "at most 16"],
    );
    // a layout over more than 16 CTAs
    let big = "#ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[0], [0], [0], [0], [0]]}>";
    expect_error(
        &[
            "plan", "--src", big, "--dst", big, "--shape", "32", "--warps", "1",
        ],
        &["--src", "(32 CTAs): more than 16", "this `block`"],
    );
}

#[test]
fn gluon_cga_layout_and_ttgir_cgalayout_read_as_ctas_fields() {
    let fields = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>";
    let bases = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0], CGALayout = [[1, 0]]}>";
    let gluon_pos = "gl.BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0], [[1, 0]])";
    let gluon_kw = "ttgl.BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0], cga_layout=[[1, 0]])";
    let mut outs = Vec::new();
    for attr in [fields, bases, gluon_pos, gluon_kw] {
        let o = run(&["layout", "--attr", attr, "--shape", "64x32", "--warps", "1"]);
        assert!(o.status.success(), "{attr}: {}", stderr(&o));
        // the CTA of each element, on standard error
        let err = stderr(&o);
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.contains("block=1 -> (32, 0)"), "{attr}: {out}");
        assert!(err.contains("CTA of each element"), "{attr}: {err}");
        outs.push(out);
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
    expect_error(
        &[
            "layout",
            "--attr",
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CGALayout = [[1]], CTAOrder = [0]}>",
            "--shape",
            "64",
            "--warps",
            "1",
        ],
        &["CGALayout", "not both"],
    );
    expect_error(
        &[
            "layout",
            "--attr",
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CGALayout = [[2]]}>",
            "--shape",
            "128",
            "--warps",
            "1",
        ],
        &["CGALayout", "do not span"],
    );
}

#[test]
fn draw_names_the_cta_of_each_element() {
    let o = run(&[
        "draw",
        "--format",
        "txt",
        "--attr",
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0], CGALayout = [[1, 0]]}>",
        "--shape",
        "8x8",
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("cell = B{CTA}:W{warp}:L{lane}:R{register}"),
        "{out}"
    );
    assert!(out.contains("B1:W0:L31:R0"), "{out}");
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
    // a value no element type has is a command-line error: exit 2
    let o = run(&[
        "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--dtype", "q7",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--dtype") && stderr(&o).contains("q7"));
    let o = run(&["plan", "--src", B8X4, "--dst", B4X8T, "--shape", "-16x16"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--shape") && stderr(&o).contains("not positive"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_refused_conversion_is_declared_to_fail_where_it_is_used() {
    let dir = std::env::temp_dir().join(format!("wf-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("x.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cross_cta.mlir",
        "--sm",
        "80",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("across CTAs"), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(h.contains("was NOT served"), "{h}");
    assert!(
        h.contains("static_assert(detail::refused<T, A...>::value, \"warpforge refused"),
        "{h}"
    );
    assert!(h.contains("across CTAs"), "{h}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_file_and_missing_input() {
    expect_error(
        &["plan", "--ttgir", "no/such/file.ttgir"],
        &["no/such/file.ttgir", "cannot read"],
    );
    // no input at all is a command-line error: exit 2
    let o = run(&["plan"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--ttgir"));
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
    // `--keep DIR` is created only once there is something to keep
    let keep = tempfile_dir().join("keep-without-gpu");
    let _ = std::fs::remove_dir_all(&keep);
    expect_error(
        &[
            "bench",
            "--ttgir",
            "corpus/pairs.mlir",
            "--keep",
            keep.to_str().unwrap(),
        ],
        &["warpforge bench needs a GPU"],
    );
    assert!(!keep.exists(), "{} was created", keep.display());
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

/// `plan --json` carries `score` and `lower_bound`, and no plan scores
/// below its bound: the corpus, and cluster conversions (whose remote
/// accesses the score charges no wavefronts; 8 plans of
/// `cluster_random.mlir` scored below a bound that charged them).
#[test]
fn plan_json_has_a_lower_bound_below_the_score() {
    for file in ["corpus/pairs.mlir", "tests/data/cluster_random.mlir"] {
        let o = run(&["plan", "--ttgir", file, "--json"]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        let mut n = 0;
        for line in String::from_utf8_lossy(&o.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let lb = v["lower_bound"]["score"].as_f64().unwrap();
            let s = v["score"].as_f64().unwrap();
            assert!(
                lb <= s + 1e-9,
                "{file} {}: bound {lb} > score {s}",
                v["name"]
            );
            n += 1;
        }
        assert!(n > 0, "{file}: no conversion planned");
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

/// Register-only conversions of packed data that are byte transposes
/// inside a thread (tests/data/byte_transpose.mlir): `plan` predicts the
/// `prmt` network of the packed form (two stages of 4 for 4 words of 8-bit
/// elements, not 3 per word), `verify` proves them, and each emitted packed
/// body has exactly the predicted `__byte_perm` count.
#[test]
fn byte_transposes_are_prmt_networks_planned_emitted_and_proven() {
    let f = "tests/data/byte_transpose.mlir";
    let o = run(&["verify", "--cpu", "--ttgir", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("3 of 3 conversion(s) verified"),
        "{}",
        stderr(&o)
    );
    let o = run(&["plan", "--json", "--ttgir", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r["kind"], "register", "{r}");
        // 8-bit: 4 words, 2 stages of 4; 16-bit: 8 words, one prmt each
        assert_eq!(r["cost"]["prmt"], 8, "{r}");
    }
    let out = tempfile_dir().join("byte_transpose.cuh");
    let o = run(&["emit", "--ttgir", f, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let code = std::fs::read_to_string(&out).unwrap();
    for (func, bits) in [
        ("byte_transpose_i8_16", 8),
        ("byte_transpose_i8_back_20", 8),
        ("half_transpose_f16_24", 16),
    ] {
        let name = format!("wf_{func}_packed{bits}");
        let body = kernels::definition(&code, &name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(body.matches("__byte_perm(").count(), 8, "{body}");
    }
}

/// Conversions out of layouts with broadcast lane and warp bits
/// (tests/data/broadcast_stores.mlir, the reverse of the matmul epilogue's
/// row statistics): each copy of a datum stores a different register, so the
/// slice -> blocked plans store once per thread (8 copies of 8 registers:
/// `/split3`, 7 selects) instead of four `st.shared.v2`, with the fewest
/// wavefronts; the helper's selects are emitted and every plan is proven.
#[test]
fn broadcast_sources_split_their_stores_over_the_copies() {
    let f = "tests/data/broadcast_stores.mlir";
    let o = run(&["verify", "--cpu", "--ttgir", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("3 of 3 conversion(s) verified"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "plan",
        "--json",
        "--ttgir",
        f,
        "--name",
        "row_stats_to_blocked",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert!(r["strategy"].as_str().unwrap().ends_with("/split3"), "{r}");
    assert_eq!(r["cost"]["sts"], 1, "{r}");
    assert_eq!(r["cost"]["lds"], 1, "{r}");
    assert_eq!(r["cost"]["sel"], 7, "{r}");
    assert_eq!(r["wavefronts"], r["min_wavefronts"], "{r}");
    assert_eq!(r["bank_conflicts"], 0, "{r}");
    let lb = &r["lower_bound"];
    assert!(
        lb["smem_wavefronts"].as_u64().unwrap() * 4 <= r["wavefronts"].as_u64().unwrap(),
        "{r}"
    );
    let out = tempfile_dir().join("broadcast_stores.cuh");
    let o = run(&["emit", "--ttgir", f, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(
        code.contains("const bool q0_warp0 = (warp >> 0u) & 1u;"),
        "{code}"
    );
    assert!(
        code.contains("broadcast copies store different registers"),
        "{code}"
    );
}

// ---- issue 9: layouts in every format, `warpforge draw` ----

const MMA2_ATTR: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const MMA3_ATTR: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>";
const BLK_ATTR: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
const LIN_ATTR: &str = "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]], block = []}>";
const GL_MMA2: &str =
    "ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])";
const GL_BLK: &str = "ttgl.BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 2], order=[1, 0])";

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `warpforge layout` of `attr` (its toString text).
fn layout_of(attr: &str, shape: Option<&str>, warps: Option<&str>) -> String {
    let mut args = vec!["layout", "--attr", attr];
    if let Some(s) = shape {
        args.extend(["--shape", s]);
    }
    if let Some(w) = warps {
        args.extend(["--warps", w]);
    }
    let o = run(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// JSON bases (both key styles) and Gluon DistributedLinearLayout of a
/// toString text, built from the `layout` command's own output.
fn bases_spellings(to_string: &str) -> Vec<String> {
    let mut dims: Vec<(String, Vec<String>)> = Vec::new();
    let mut shape = Vec::new();
    for l in to_string.lines() {
        let l = l.trim();
        if let Some(rest) = l.strip_prefix("where out dims are: [") {
            for part in rest.trim_end_matches(']').split("), ") {
                let s = part.split("(size ").nth(1).unwrap().trim_end_matches(')');
                shape.push(s.to_string());
            }
            continue;
        }
        let l = l.trim_start_matches("- ");
        if let Some(name) = l.strip_suffix(" is a size 1 dimension") {
            dims.push((name.to_string(), vec![]));
            continue;
        }
        let (name, rest) = l.split_once('=').unwrap();
        let tuple = rest.split_once("-> (").unwrap().1.trim_end_matches(')');
        if dims.last().map(|d| d.0 != name).unwrap_or(true) {
            dims.push((name.to_string(), vec![]));
        }
        dims.last_mut().unwrap().1.push(format!("[{tuple}]"));
    }
    let get = |n: &str| {
        format!(
            "[{}]",
            dims.iter()
                .find(|d| d.0 == n)
                .map(|d| d.1.join(", "))
                .unwrap_or_default()
        )
    };
    let sh = format!("[{}]", shape.join(", "));
    let (r, l, w, b) = (get("register"), get("lane"), get("warp"), get("block"));
    vec![
        format!("{{\"reg_bases\": {r}, \"lane_bases\": {l}, \"warp_bases\": {w}, \"block_bases\": {b}, \"shape\": {sh}}}"),
        format!("{{\"register\": {r}, \"lane\": {l}, \"warp\": {w}, \"block\": {b}, \"shape\": {sh}}}"),
        format!("ttgl.DistributedLinearLayout(reg_bases={r}, lane_bases={l}, warp_bases={w}, block_bases={b}, shape={sh})"),
        format!("DistributedLinearLayout({r}, {l}, {w}, {b}, {sh})"),
    ]
}

#[test]
fn every_input_format_gives_the_attributes_layout() {
    let dir = tempfile_dir().join("formats");
    std::fs::create_dir_all(&dir).unwrap();
    let dot = format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA2_ATTR}, kWidth = 2}}>");
    let slice = format!("#ttg.slice<{{dim = 1, parent = {BLK_ATTR}}}>");
    let kinds: Vec<(&str, String, &str, &str, Vec<String>)> = vec![
        ("blocked", BLK_ATTR.into(), "32x64", "4", vec![
            GL_BLK.into(),
            "BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])".into(),
        ]),
        ("mma v2", MMA2_ATTR.into(), "64x64", "4", vec![
            GL_MMA2.into(),
            "NVMMADistributedLayout([2, 0], [2, 2], [16, 8])".into(),
        ]),
        ("mma v3", MMA3_ATTR.into(), "128x64", "4", vec![
            "ttgl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])".into(),
            "NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])".into(),
        ]),
        ("dot_op", dot, "64x32", "4", vec![
            format!("ttgl.DotOperandLayout(operand_index=0, parent={GL_MMA2}, k_width=2)"),
            "DotOperandLayout(0, NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 2)".into(),
        ]),
        ("slice", slice, "32", "4", vec![
            format!("ttgl.SliceLayout(dim=1, parent={GL_BLK})"),
            "SliceLayout(1, BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]))".into(),
        ]),
        ("linear", LIN_ATTR.into(), "32x8", "2", vec![
            "ttgl.DistributedLinearLayout(reg_bases=[[0, 1], [8, 0]], lane_bases=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp_bases=[[16, 0]], block_bases=[], shape=[32, 8])".into(),
        ]),
    ];
    for (kind, attr, shape, warps, gluon) in kinds {
        let want = layout_of(&attr, Some(shape), Some(warps));
        let mut spellings: Vec<(String, bool)> = vec![(want.clone(), true)];
        spellings.extend(bases_spellings(&want).into_iter().map(|s| (s, true)));
        spellings.extend(gluon.into_iter().map(|s| (s, false)));
        for (i, (text, carries_shape)) in spellings.iter().enumerate() {
            // inline, then from a file; shape and warps from the layout where it carries them
            let f = dir.join(format!("{}_{i}.txt", kind.replace(' ', "_")));
            std::fs::write(&f, text).unwrap();
            let at = format!("@{}", f.display());
            for arg in [text.as_str(), at.as_str()] {
                let got = if *carries_shape {
                    layout_of(arg, None, None)
                } else {
                    layout_of(arg, Some(shape), None)
                };
                assert_eq!(got, want, "{kind}: {arg}");
            }
        }
    }
}

#[test]
fn plan_takes_any_format_and_plans_the_same() {
    let json_of = |src: &str, dst: &str, extra: &[&str]| {
        let mut a = vec!["plan", "--json", "--src", src, "--dst", dst];
        a.extend(extra);
        let o = run(&a);
        assert!(o.status.success(), "{a:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        (v["kind"].clone(), v["cost"].clone(), v["strategy"].clone())
    };
    let want = json_of(BLK_ATTR, MMA2_ATTR, &["--shape", "64x64", "--warps", "4"]);
    let ts = layout_of(MMA2_ATTR, Some("64x64"), Some("4"));
    assert_eq!(json_of(GL_BLK, GL_MMA2, &["--shape", "64x64"]), want);
    assert_eq!(json_of(GL_BLK, &ts, &[]), want);
    assert_eq!(
        json_of(&bases_spellings(&ts)[0], BLK_ATTR, &[]).0,
        json_of(MMA2_ATTR, BLK_ATTR, &["--shape", "64x64", "--warps", "4"]).0
    );
    // a shape that disagrees with the one a layout carries
    expect_error(
        &["plan", "--src", GL_BLK, "--dst", &ts, "--shape", "32x64"],
        &["--shape 32x64", "--dst", "64x64"],
    );
    expect_error(
        &["plan", "--src", GL_BLK, "--dst", GL_MMA2],
        &["--src/--dst need --shape"],
    );
}

#[test]
fn malformed_layouts_name_format_position_and_problem() {
    let cases: &[(&str, &[&str])] = &[
        ("#ttg.blocked<{sizePerThread = [1, 4], bogus = 3}>", &["--src:1:39", "unknown attribute key `bogus`"]),
        (" - register=1 -> (0, 1)\n   register=4 -> (0, 2)\nwhere out dims are: [dim0 (size 4), dim1 (size 4)]", &["--src", "LinearLayout::toString at 2:13", "labelled 4, expected 2"]),
        ("{\"reg_bases\": [[0, 1]],\n \"lane_bases\": [[1, -2]], \"warp_bases\": []}", &["--src", "JSON bases at 2:2", "`lane_bases[0][1]` = -2"]),
        ("{\"reg_bases\": [[0, 1]]", &["--src", "JSON bases at 1:", "EOF"]),
        ("ttgl.BlockedLayout([1, 4], [8, 4], [2, 2])", &["--src", "Gluon constructor at 1:42", "missing required argument `order`"]),
        ("ttgl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0], sizes=[1])", &["--src", "Gluon constructor at 1:52", "unexpected keyword argument `sizes`"]),
        ("blocked please", &["--src", "not a layout in any format", "TTGIR attribute at 1:1", "LinearLayout::toString at 1:1", "JSON bases at 1:1", "Gluon constructor at 1:"]),
    ];
    for (text, needles) in cases {
        expect_error(
            &[
                "plan", "--src", text, "--dst", B4X8T, "--shape", "16x16", "--warps", "1",
            ],
            needles,
        );
        expect_error(
            &["layout", "--attr", text, "--shape", "16x16"],
            &needles[1..],
        );
        expect_error(&["draw", "--attr", text, "--shape", "16x16"], &needles[1..]);
    }
    expect_error(
        &["draw", "--attr", "@no/such/layout.json"],
        &["@no/such/layout.json", "cannot read"],
    );
}

/// Every `<g class="layout">` of an SVG: (data-elements, data-shape, cells, title).
fn svg_layouts(svg: &str) -> Vec<(usize, String, usize, String)> {
    let doc = roxmltree::Document::parse(svg).expect("valid XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("layout"))
        .map(|g| {
            let cells = g
                .descendants()
                .filter(|n| {
                    n.has_tag_name("rect")
                        && n.attribute("class")
                            .is_some_and(|c| c.split(' ').any(|x| x == "cell"))
                })
                .count();
            (
                g.attribute("data-elements").unwrap().parse().unwrap(),
                g.attribute("data-shape").unwrap().to_string(),
                cells,
                g.children()
                    .find(|n| n.has_tag_name("text"))
                    .and_then(|t| t.text())
                    .unwrap_or("")
                    .trim()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn draw_writes_a_valid_svg_for_every_corpus_layout() {
    let dir = tempfile_dir().join("draw");
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = vec![PathBuf::from("corpus/pairs.mlir")];
    let mut ttgir: Vec<PathBuf> = std::fs::read_dir(root().join("corpus/ttgir"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ttgir"))
        .collect();
    ttgir.sort();
    files.extend(ttgir);
    assert!(files.len() > 20);
    for f in &files {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        let converts = text
            .lines()
            .filter(|l| l.contains("ttg.convert_layout") && !l.trim().starts_with("//"))
            .count();
        let out = dir.join(format!("{}.svg", f.file_name().unwrap().to_string_lossy()));
        let o = run(&[
            "draw",
            "--ttgir",
            f.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{f:?}: {}", stderr(&o));
        let svg = std::fs::read_to_string(&out).unwrap();
        let layouts = svg_layouts(&svg);
        // the source and destination of every conversion (and the bank map
        // of each shared-memory plan)
        for side in ["source:", "destination:"] {
            let n = layouts.iter().filter(|l| l.3.starts_with(side)).count();
            assert_eq!(n, converts, "{f:?}: {side}");
        }
        for (elements, shape, cells, _) in &layouts {
            let n: usize = shape
                .split('x')
                .map(|d| d.parse::<usize>().unwrap())
                .product();
            assert_eq!(*elements, n, "{f:?}: {shape}");
            assert_eq!(*cells, n, "{f:?}: {shape}: one rect per element");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn draw_a_layout_and_a_plan_as_text_and_svg() {
    // one layout, from a Gluon constructor, as text
    let o = run(&[
        "draw",
        "--attr",
        "ttgl.BlockedLayout([1, 4], [8, 4], [1, 1], [1, 0])",
        "--shape",
        "16x16",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains(" 0:   T0:R0  T0:R1  T0:R2  T0:R3  T1:R0"), "{t}");
    assert!(t.contains(" 8:   T0:R4  T0:R5"), "{t}");
    // several warps are labelled W:L:R, broadcast copies marked
    let o = run(&[
        "draw",
        "--attr",
        &format!("#ttg.slice<{{dim = 1, parent = {BLK_ATTR}}}>"),
        "--shape",
        "32",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("W0:L0:R0*8") && t.contains("1-D tensor of 32 elements drawn as one row"),
        "{t}"
    );
    // a conversion: both layouts, the shuffle's lanes, the selects' registers
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "cvt16_m1:39",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for n in [
        "== source:",
        "== destination:",
        "Shuffle (shfl.sync.",
        "the lane each lane reads",
        "Select,",
        "the register each lane takes",
    ] {
        assert!(t.contains(n), "`{n}` not in {t}");
    }
    // a packed shuffle plan: words, the shuffle, lane-dependent prmt selectors
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "fig3:60",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for n in [
        "Pack, 2 element(s) of 16 bits per 32-bit word",
        "Shuffle (shfl.sync.idx)",
        "BytePerm, 1 prmt per thread",
        "w0 = prmt(w0, w1)",
        "5410 7632",
        "Unpack 16-bit elements",
    ] {
        assert!(t.contains(n), "`{n}` not in {t}");
    }
    // a shared-memory plan: banks per lane and per element
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "cvt16_m2:44",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("SmemStore")
            && t.contains("bank (4-byte word mod 32)")
            && t.contains("the bank each element is stored to"),
        "{t}"
    );
    // -o writes the SVG; an unknown --name lists the names there are
    let dir = tempfile_dir().join("draw1");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("fig3.svg");
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "fig3:60",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_eq!(svg_layouts(&svg).len(), 2);
    assert!(svg.contains("class=\"stage shuffle\""));
    expect_error(
        &["draw", "--ttgir", "corpus/pairs.mlir", "--name", "nope"],
        &["--name nope", "fig3:60"],
    );
    // nothing to draw is a command-line error: exit 2
    let o = run(&["draw"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--attr") && stderr(&o).contains("--ttgir"));
    std::fs::remove_dir_all(&dir).ok();
}

/// One plan stage of an SVG: a `<g class="stage KIND">` group.
#[derive(Debug)]
struct SvgStage {
    /// `data-stage`, `data-stage-kind` and the `class`'s kind
    index: usize,
    kind: String,
    class: String,
    /// every `data-` attribute, without the prefix
    data: std::collections::HashMap<String, String>,
    /// table rows: the row label, and each cell's (`data-lane`, value) where
    /// the value is the attribute `data-stage-value` names
    rows: Vec<(String, Vec<(u32, u32)>)>,
    /// `<text class="stage-line">` of text stages
    lines: Vec<String>,
}

fn svg_stages(svg: &str) -> Vec<SvgStage> {
    let doc = roxmltree::Document::parse(svg).expect("valid XML");
    let mut out = Vec::new();
    for g in doc.descendants().filter(|n| {
        n.has_tag_name("g")
            && n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|x| x == "stage"))
    }) {
        let class = g.attribute("class").unwrap().to_string();
        let data: std::collections::HashMap<String, String> = g
            .attributes()
            .filter_map(|a| {
                a.name()
                    .strip_prefix("data-")
                    .map(|n| (n.to_string(), a.value().to_string()))
            })
            .collect();
        let index = data["stage"].parse().expect("data-stage is a number");
        let kind = data["stage-kind"].clone();
        let mut rows: Vec<(String, Vec<(u32, u32)>)> = Vec::new();
        if let Some(v) = data.get("stage-value") {
            for t in g
                .descendants()
                .filter(|n| n.attribute("class") == Some("row-label"))
            {
                let r: usize = t.attribute("data-row").unwrap().parse().unwrap();
                assert_eq!(r, rows.len(), "row labels in order");
                rows.push((t.text().unwrap_or("").trim().to_string(), Vec::new()));
            }
            for c in g
                .descendants()
                .filter(|n| n.attribute("class") == Some("stage-cell"))
            {
                let r: usize = c.attribute("data-row").unwrap().parse().unwrap();
                let lane = c.attribute("data-lane").unwrap().parse().unwrap();
                let val = c
                    .attribute(format!("data-{v}").as_str())
                    .unwrap_or_else(|| panic!("stage {index}: a cell without data-{v}"))
                    .parse()
                    .unwrap();
                rows[r].1.push((lane, val));
            }
        }
        let lines = g
            .descendants()
            .filter(|n| n.attribute("class") == Some("stage-line"))
            .map(|t| t.text().unwrap_or("").trim().to_string())
            .collect();
        out.push(SvgStage {
            index,
            kind,
            class,
            data,
            rows,
            lines,
        });
    }
    out
}

/// Every plan stage of a shuffle, a packed shuffle and a shared-memory plan
/// is one SVG group of its kind, whose cells say what each lane does (the
/// lane it reads, the register it takes, its prmt selector, its bank), and
/// whose instruction counts are the plan's cost (`plan --json`).
#[test]
fn draw_svg_has_one_group_per_plan_stage_with_its_lanes() {
    let cases: [(&str, &str, &[&str]); 3] = [
        ("corpus/pairs.mlir", "cvt16_m1:39", &["Select", "Shuffle"]),
        (
            "corpus/pairs.mlir",
            "fig3:60",
            &["Pack", "Shuffle", "BytePerm", "Unpack"],
        ),
        (
            "corpus/ttgir/mmepi_fp16_128x64x64_w4_sm80.ttgir",
            "mm_epilogue:92",
            &["SmemStore", "Barrier", "SmemLoad"],
        ),
    ];
    for (file, name, must) in cases {
        let o = run(&["draw", "--ttgir", file, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let svg = stdout(&o);
        let o = run(&["plan", "--json", "--ttgir", file, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let plan: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        let cost = |k: &str| plan["cost"][k].as_u64().unwrap();
        let stages = svg_stages(&svg);
        // one group per stage, in plan order, each of the kind the plan's
        // summary line lists
        let kinds: Vec<&str> = stages.iter().map(|s| s.kind.as_str()).collect();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let listed: Vec<String> = doc
            .descendants()
            .filter_map(|n| n.text())
            .find_map(|t| t.split_once("; stages: ").map(|x| x.1.trim().to_string()))
            .expect("the plan's summary lists its stages")
            .split(" -> ")
            .map(String::from)
            .collect();
        assert_eq!(kinds, listed, "{name}");
        for k in must {
            assert!(kinds.contains(k), "{name}: no {k} stage in {kinds:?}");
        }
        let mut counts: std::collections::HashMap<&str, u64> = Default::default();
        for (i, s) in stages.iter().enumerate() {
            let at = format!("{name} stage {i} ({})", s.kind);
            assert_eq!(s.index, i, "{at}");
            assert_eq!(s.class, format!("stage {}", s.kind.to_lowercase()), "{at}");
            let count: u64 = s.data["count"].parse().unwrap();
            *counts.entry(s.kind.as_str()).or_default() += count;
            let value = match s.kind.as_str() {
                "Shuffle" => Some("src-lane"),
                "Select" => Some("reg"),
                "BytePerm" => Some("selector"),
                "SmemStore" | "SmemLoad" => Some("bank"),
                _ => None,
            };
            assert_eq!(s.data.get("stage-value").map(String::as_str), value, "{at}");
            if value.is_some() {
                // a table: one row per instruction, 32 lanes in order
                assert_eq!(s.data["rows"], s.rows.len().to_string(), "{at}");
                assert_eq!(s.data["lanes"], "32", "{at}");
                assert_eq!(s.rows.len() as u64, count.min(64), "{at}");
                assert!(!s.rows.is_empty(), "{at}: no rows");
                for (label, cells) in &s.rows {
                    let lanes: Vec<u32> = cells.iter().map(|c| c.0).collect();
                    assert_eq!(lanes, (0..32).collect::<Vec<_>>(), "{at}: {label}");
                }
            } else {
                assert!(s.rows.is_empty(), "{at}");
            }
            let nums = |label: &str| -> Vec<u32> {
                label
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|x| !x.is_empty())
                    .map(|x| x.parse().unwrap())
                    .collect()
            };
            match s.kind.as_str() {
                "Shuffle" => {
                    let mode = s.data["mode"].as_str();
                    assert!(
                        ["idx", "bfly", "up", "down"].contains(&mode),
                        "{at}: {mode}"
                    );
                    let mut moved = false;
                    for (label, cells) in &s.rows {
                        // `r{k} <- r{reg} arg {arg}`
                        let arg = *nums(label).last().unwrap();
                        for &(lane, src) in cells {
                            assert!(src < 32, "{at}: lane {lane} reads lane {src}");
                            if mode == "bfly" {
                                assert_eq!(src, lane ^ arg, "{at}: {label}");
                            }
                            moved |= src != lane;
                        }
                    }
                    assert!(moved, "{at}: every lane reads itself");
                }
                "Select" => {
                    for (label, cells) in &s.rows {
                        // `r{k} mask {mask:05b}: r{if_clear}|r{if_set}`
                        let (_, rest) = label.split_once(" mask ").unwrap();
                        let (mask, regs) = rest.split_once(": ").unwrap();
                        let mask = u32::from_str_radix(mask, 2).unwrap();
                        let r = nums(regs);
                        assert_ne!(r[0], r[1], "{at}: {label}");
                        for &(lane, reg) in cells {
                            let odd = (lane & mask).count_ones() % 2 == 1;
                            assert_eq!(reg, r[usize::from(odd)], "{at}: {label}, lane {lane}");
                        }
                    }
                }
                "BytePerm" => {
                    for (label, cells) in &s.rows {
                        for &(lane, sel) in cells {
                            // four nibbles, each a byte 0..7 of {b, a}
                            assert!(
                                sel < 1 << 16 && (0..4).all(|q| sel >> (4 * q) & 0xf < 8),
                                "{at}: {label}, lane {lane}: selector {sel:x}"
                            );
                        }
                    }
                    // lane-dependent: not one selector for the whole warp
                    let sels: std::collections::HashSet<u32> =
                        s.rows[0].1.iter().map(|c| c.1).collect();
                    assert!(sels.len() > 1, "{at}: {sels:?}");
                }
                "SmemStore" | "SmemLoad" => {
                    let wf: u64 = s.data["wavefronts"].parse().unwrap();
                    let min: u64 = s.data["min-wavefronts"].parse().unwrap();
                    assert!(wf >= min && min > 0, "{at}: {wf} < {min}");
                    // `v128`: each lane's vector covers 4 banks from the one drawn
                    let bits: u32 = s.data["instr"]
                        .strip_prefix('v')
                        .expect("a vector access")
                        .parse()
                        .unwrap();
                    let words = (bits / 32).max(1);
                    for (label, cells) in &s.rows {
                        let banks: std::collections::HashSet<u32> =
                            cells.iter().map(|c| c.1).collect();
                        for b in &banks {
                            assert!(*b < 32 && b % words == 0, "{at}: {label}: bank {b}");
                        }
                        // without conflicts the lanes' vectors cover every bank
                        if wf == min {
                            assert_eq!(banks.len() as u32, 32 / words, "{at}: {label}: {banks:?}");
                        }
                    }
                }
                "Barrier" => {
                    assert!(["warp", "cta"].contains(&s.data["scope"].as_str()), "{at}");
                    assert_eq!(s.lines.len(), 1, "{at}");
                }
                "Pack" => {
                    assert_eq!(s.data["words"], s.lines.len().to_string(), "{at}");
                    assert_eq!(s.data["width"], "16", "{at}");
                }
                "Unpack" => {
                    assert_eq!(s.data["regs"], s.lines.len().to_string(), "{at}");
                }
                "RegRename" => assert_eq!(s.lines.len(), 1, "{at}"),
                k => panic!("{at}: unknown stage kind {k}"),
            }
        }
        // instructions per thread, stage by stage, are the plan's cost
        let n = |k: &str| counts.get(k).copied().unwrap_or(0);
        assert_eq!(n("Shuffle"), cost("shfl"), "{name}: shuffles");
        assert_eq!(n("SmemStore"), cost("sts") + cost("stsm"), "{name}: stores");
        assert_eq!(n("SmemLoad"), cost("lds") + cost("ldsm"), "{name}: loads");
        assert_eq!(n("Barrier"), cost("bar"), "{name}: barriers");
        assert_eq!(n("BytePerm"), cost("prmt"), "{name}: prmt");
        if name == "cvt16_m1:39" {
            assert_eq!(n("Select"), cost("sel"), "{name}: selects");
        }
        // a shared-memory plan also maps every element to its bank
        let banks: Vec<_> = svg_layouts(&svg)
            .into_iter()
            .filter(|l| l.3.starts_with("shared memory: the bank each element"))
            .collect();
        if n("SmemStore") > 0 {
            assert_eq!(banks.len(), 1, "{name}");
            assert_eq!((banks[0].0, banks[0].2), (128 * 64, 128 * 64), "{name}");
        } else {
            assert!(banks.is_empty(), "{name}");
        }
    }
}

#[test]
fn verify_junit_has_a_testcase_per_conversion_and_width() {
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("out.xml");
    let f = "corpus/pairs.mlir";
    let o = run(&[
        "verify",
        "--cpu",
        "--ttgir",
        f,
        "--junit",
        xml.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = run(&["plan", "--json", "--ttgir", f]);
    let names: Vec<String> = String::from_utf8(plan.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let text = std::fs::read_to_string(&xml).unwrap();
    let d = roxmltree::Document::parse(&text).expect("well-formed XML");
    let suite = d
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("failures"), Some("0"));
    let cases: Vec<(String, String)> = d
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| {
            (
                n.attribute("classname").unwrap().into(),
                n.attribute("name").unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        suite.attribute("tests"),
        Some(cases.len().to_string().as_str())
    );
    for name in &names {
        // the simulator's proof of every width the helper dispatches on
        for bits in [8, 16, 32, 64] {
            let want = format!("{name} cpu {bits}-bit");
            assert!(
                cases.iter().any(|(c, n)| c == f && *n == want),
                "{want} missing"
            );
        }
    }
    assert_eq!(cases.len(), names.len() * 4);
}

#[test]
fn a_bad_junit_path_errs_as_o_does() {
    let f = "corpus/pairs.mlir";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = run(&["verify", "--cpu", "--ttgir", f, "--junit", d]);
    let j = run(&["verify", "--cpu", "--ttgir", f, "-o", d]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).lines().last(), stderr(&j).lines().last());
    assert!(
        stderr(&o).contains(&format!("{d}: is a directory")),
        "{}",
        stderr(&o)
    );
    let o = run(&["verify", "--cpu", "--ttgir", f, "--junit", f]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--junit corpus/pairs.mlir: this is the input file --ttgir"),
        "{}",
        stderr(&o)
    );
    let o = run(&["verify", "--cpu", "--ttgir", f, "--junit", "/dev/full"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// Evaluate a helper's `<name>_smem_bytes<T>` expression for `sizeof(T) ==
/// size`: `N` (a constant), `Nu * unsigned(sizeof(T))`, that divided by a
/// `(sizeof(T) == s ? ku : ... : 1u)` chain, or a `sizeof(T) == s ? Bu : ...
/// : 0u` chain of byte counts (the forms the emitter writes).
fn eval_smem_expr(e: &str, size: u64) -> u64 {
    let e = e.trim();
    let num = |t: &str| t.trim().trim_end_matches('u').parse::<u64>().unwrap();
    // `sizeof(T) == s ? a : rest`, evaluated
    let chain = |mut t: &str| -> u64 {
        loop {
            t = t.trim().trim_start_matches('(').trim_end_matches(')');
            let Some(rest) = t.strip_prefix("sizeof(T) == ") else {
                return num(t);
            };
            let (s, rest) = rest.split_once(" ? ").unwrap();
            let (a, rest) = rest.split_once(" : ").unwrap();
            if num(s) == size {
                return num(a);
            }
            t = rest;
        }
    };
    if let Some((n, rest)) = e.split_once("u * unsigned(sizeof(T))") {
        let div = match rest.trim().strip_prefix('/') {
            Some(d) => chain(d),
            None => 1,
        };
        return num(n) * size / div;
    }
    chain(e)
}

/// The header states each width's scratch as `plan --json` reports it
/// (`smem_bytes_by_width`), whatever form the expression takes (one size,
/// rounds for some widths).
#[test]
fn header_scratch_expression_matches_the_plan_for_every_width() {
    let dir = tempfile_dir();
    let mut divided = 0;
    for f in [
        "tests/data/stress_w8.ttgir",
        "tests/data/stress_w16.ttgir",
        "tests/data/stress_w32.ttgir",
        "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir",
    ] {
        let out = dir.join("scratch.cuh");
        let o = run(&["emit", "--ttgir", f, "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{f}: {}", stderr(&o));
        let code = std::fs::read_to_string(&out).unwrap();
        let o = run(&["plan", "--json", "--ttgir", f]);
        assert!(o.status.success(), "{f}: {}", stderr(&o));
        for l in String::from_utf8(o.stdout).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let name = v["name"].as_str().unwrap().replace(':', "_");
            let key = format!("wf_{name}_smem_bytes = ");
            let Some(at) = code.find(&key) else {
                continue; // no scratch
            };
            let expr = &code[at + key.len()..];
            let expr = &expr[..expr.find(';').unwrap()];
            divided += usize::from(expr.contains(") / ("));
            for (w, b) in v["smem_bytes_by_width"].as_object().unwrap() {
                let Some(b) = b.as_u64() else { continue };
                let size = w.parse::<u64>().unwrap() / 8;
                assert_eq!(
                    eval_smem_expr(expr, size),
                    b,
                    "{f} {name} {w}-bit: `{expr}`"
                );
            }
        }
    }
    assert!(
        divided > 0,
        "some stress helper takes rounds for some widths"
    );
}

/// Every corpus and stress conversion's scratch, per element width, within
/// the target's per-block limit (sm_90 227 KB, sm_86 99 KB): rounds are
/// chosen per width; a width no rounds can fit is not served (null).
#[test]
fn scratch_per_width_fits_the_target() {
    let mut files = vec!["corpus/pairs.mlir".to_string()];
    for dir in ["corpus/ttgir", "tests/data"] {
        let mut v: Vec<String> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| format!("{dir}/{}", e.unwrap().file_name().to_string_lossy()))
            .filter(|f| f.ends_with(".ttgir"))
            // Triton's lowering tests and the random files in check-all
            .filter(|f| check_all() || f.starts_with("corpus/") || f.contains("/stress_w"))
            .collect();
        v.sort();
        files.extend(v);
    }
    assert!(files.iter().any(|f| f.contains("stress_w32")));
    // sm_86's limit is the tighter; sm_90's sweep runs in check-all
    let targets: &[(&str, u64)] = if check_all() {
        &[("90", 232_448u64), ("86", 101_376)]
    } else {
        &[("86", 101_376)]
    };
    for &(sm, limit) in targets {
        for f in &files {
            let o = run(&[
                "plan",
                "--json",
                "--sm",
                sm,
                "--override-target",
                "--ttgir",
                f,
            ]);
            assert!(o.status.success(), "{f}: {}", stderr(&o));
            for l in String::from_utf8(o.stdout).unwrap().lines() {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let by = v["smem_bytes_by_width"].as_object().unwrap();
                let rounds = v["rounds_by_width"].as_object().unwrap();
                assert_eq!(by.len(), 4, "{l}");
                let own = v["elem_bits"].to_string();
                assert!(by[&own].is_u64(), "{f}: own width not served: {l}");
                for (w, b) in by {
                    if let Some(b) = b.as_u64() {
                        assert!(b <= limit, "{f} sm_{sm}: {w}-bit needs {b} bytes > {limit}");
                        assert_eq!(b == 0, rounds[w] == 0, "{l}");
                    } else {
                        assert!(rounds[w].is_null(), "{l}");
                    }
                }
                if sm == "90" {
                    // on sm_90 every width of every conversion is served
                    assert!(by.values().all(|b| b.is_u64()), "{f}: {l}");
                }
            }
        }
    }
}

#[test]
fn the_header_states_each_widths_scratch_and_refuses_what_it_cannot_serve() {
    let o = run(&[
        "emit",
        "--sm",
        "86",
        "--override-target",
        "--ttgir",
        "tests/data/stress_w32.ttgir",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    // 8-byte: 512 KB of data; 8 rounds, the last over a warp bit (those
    // warps store in turn) bring it within sm_86's 99 KB
    assert!(h.contains("// scratch by element width: 1-byte 65536 bytes (1 round), 2-byte 65536 bytes (2 rounds), 4-byte 65536 bytes (4 rounds), 8-byte 65536 bytes (8 rounds)"), "{h}");
    assert!(h.contains("planned for 1/2/4/8-byte elements only"));
    // under a smaller --max-smem the 8-byte width is refused in the header
    let o = run(&[
        "emit",
        "--sm",
        "86",
        "--override-target",
        "--max-smem",
        "16384",
        "--ttgir",
        "tests/data/stress_w32.ttgir",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(h.contains("// scratch by element width: 1-byte 16384 bytes (4 rounds), 2-byte 16384 bytes (8 rounds), 4-byte 16384 bytes (16 rounds), 8-byte not served (static_assert)"), "{h}");
    assert!(h.contains("planned for 1/2/4-byte elements only"));
}

#[test]
fn a_tile_over_1024_elements_per_thread_is_refused_before_planning() {
    let t0 = std::time::Instant::now();
    let o = run(&[
        "plan",
        "--src",
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>",
        "--dst",
        "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [0, 1]}>",
        "--shape",
        "64x2048",
        "--warps",
        "1",
    ]);
    // the refusal comes before any search: seconds, not the minute and
    // the gigabyte planning such a tile took
    assert!(t0.elapsed().as_secs() < 10);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("4096 elements per thread in the source layout")
            && e.contains("over the 1024 elements per thread warpforge plans"),
        "{e}"
    );
}

/// The predicted register peak per form, the launch bounds' limit, and
/// `--max-registers` steering the choice under it and refusing what no
/// candidate brings under it.
#[test]
fn plan_reports_the_register_peak_and_max_registers_caps_it() {
    let f = "tests/data/stress_w8.ttgir";
    let o = run(&["plan", "--json", "--ttgir", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let f16 = rows.iter().find(|v| v["dtype"] == "f16").unwrap();
    let pk = &f16["peak_registers"];
    // 128 f16 elements per thread: 128 registers as elements, 64 packed
    assert!(pk["elements"].as_u64().unwrap() >= 128, "{pk}");
    assert!(
        pk["packed"].as_u64().unwrap() >= 64 && pk["packed"].as_u64() < pk["elements"].as_u64()
    );
    assert_eq!(pk["preferred"], pk["packed"]);
    assert_eq!(f16["register_limit"], 255);
    assert_eq!(f16["over_register_limit"], false);
    let o = run(&["plan", "--ttgir", f, "--max-registers", "100"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("epilogue_f32_128x256") && e.contains("over --max-registers 100"),
        "{e}"
    );
    assert!(
        !e.contains("epilogue_f16_t_128x256"),
        "the packed f16 form fits: {e}"
    );
    // A cap between two candidates' peaks steers the choice instead of
    // refusing: one warp's 64x64 f32 transpose shuffles by default
    // (predicted 148 registers), and goes through shared memory (144)
    // under --max-registers 146.
    let w1 = "tests/data/stress_w1.ttgir";
    let strategy = |extra: &[&str]| {
        let mut args = vec![
            "plan",
            "--json",
            "--ttgir",
            w1,
            "--name",
            "warp_local_f32_64x64",
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().lines().next().unwrap())
                .unwrap();
        (
            v["strategy"].as_str().unwrap().to_string(),
            v["peak_registers"]["preferred"].as_u64().unwrap(),
        )
    };
    let (free, free_peak) = strategy(&[]);
    assert!(free.starts_with("shuffle/"), "{free}");
    let (capped, capped_peak) = strategy(&["--max-registers", "146"]);
    assert!(capped.starts_with("shared/"), "{capped}");
    assert!(
        capped_peak <= 146 && free_peak > 146,
        "{capped_peak} {free_peak}"
    );
    let o = run(&["emit", "--ttgir", f]);
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(
        h.contains("// predicted register peak per thread (16-bit elements): element form ~"),
        "{h}"
    );
    assert!(h.contains("__launch_bounds__(256) allows 255"));
    // where the element form's registers cost the SM a resident CTA, the
    // header says so (8 warps, 128 halves: ~144 registers leave one CTA,
    // ~88 two; the packed words are not in natural order, so the element
    // form stays element by element)
    let o = run(&["emit", "--ttgir", "tests/data/stress_w8.ttgir"]);
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(
        h.contains("__launch_bounds__(256) allows 255; by these registers the element form leaves 1 CTA of 256 threads resident per SM, the packed form 2"),
        "{h}"
    );
    // and where the packed words are the natural pairs, the element form
    // holds both arrays as words (16 warps: ~80 registers one per element
    // leave one CTA; the packed form's ~56, two)
    let o = run(&["emit", "--ttgir", "tests/data/stress_w16.ttgir"]);
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(
        h.contains("element form ~56 (32 of data, held as 32-bit words), packed form ~56 (32 of data); __launch_bounds__(512) allows 128; one register per element (~80) would leave 1 CTA of 512 threads resident per SM, words 2"),
        "{h}"
    );
    let o = run(&[
        "plan",
        "--json",
        "--ttgir",
        "tests/data/stress_w16.ttgir",
        "--name",
        "epilogue_f16_256x128",
    ]);
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(v["peak_registers"]["elements"], 56);
    assert_eq!(v["peak_registers"]["packed"], 56);
}

/// CuTe's SM80 16x8x16 C fragment (`cute::print` of the `TiledMMA`'s C TV
/// layout) is Triton's mma v2 accumulator: the same bases.
const CUTE_C: &str = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))";

#[test]
fn a_cute_tv_layout_reads_as_its_linear_layout() {
    let cute = run(&[
        "layout", "--attr", CUTE_C, "--shape", "16x8", "--warps", "1",
    ]);
    assert!(cute.status.success(), "{}", stderr(&cute));
    let mma = run(&[
        "layout",
        "--attr",
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>",
        "--shape",
        "16x8",
        "--warps",
        "1",
    ]);
    assert_eq!(cute.stdout, mma.stdout);
    // the A operand: CuTe's 16x16 A TV layout is the dot_op of that mma, kWidth 2
    let cute_a = run(&[
        "layout",
        "--attr",
        "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))",
        "--shape",
        "16x16",
        "--warps",
        "1",
    ]);
    let dot_a = run(&[
        "layout",
        "--attr",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 2}>",
        "--shape",
        "16x16",
        "--warps",
        "1",
    ]);
    assert!(cute_a.status.success(), "{}", stderr(&cute_a));
    assert_eq!(cute_a.stdout, dot_a.stdout);
    // a CuTe --src and a TTGIR --dst in one plan
    let o = run(&[
        "plan", "--src", CUTE_C, "--dst", B8X4, "--shape", "16x8", "--warps", "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // plain integers read as the static ones; a conversion from it proves
    let o = run(&[
        "verify",
        "--cpu",
        "--src",
        "((4,8),(2,2)):((32,1),(16,8))",
        "--dst",
        B8X4,
        "--shape",
        "16x8",
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn cute_layouts_that_are_not_linear_or_do_not_fit_are_refused() {
    let err = |attr: &str, warps: &str| {
        let o = run(&[
            "layout", "--attr", attr, "--shape", "16x8", "--warps", warps,
        ]);
        assert_eq!(o.status.code(), Some(1), "{attr}");
        stderr(&o)
    };
    let e = err("((_4,_8),(_2,_2)):((_32,_1),(_16,_3))", "1");
    assert!(
        e.contains("value mode: stride 3 is not a power of two")
            && e.contains("CuTe layout at 1:34"),
        "{e}"
    );
    let e = err("((_4,_8),(_2,_2)):((_32,_1),(_16,_16))", "1");
    assert!(e.contains("carry into each other"), "{e}");
    let e = err("((_4,_8),(_2,_2):((_32,_1),(_16,_8))", "1");
    assert!(
        e.contains("expected `,` or `)`") && e.contains("CuTe layout"),
        "{e}"
    );
    let e = err(CUTE_C, "4");
    assert!(
        e.contains("has 32 threads") && e.contains("--warps is 4") && e.contains("128 threads"),
        "{e}"
    );
    let e = err("((_4,_8),(_2,_2)):((_32,_1),(_16,_128))", "1");
    assert!(e.contains("beyond the 16x8 tile"), "{e}");
}

/// Named PTX fragments read as the layouts Triton's own encodings give for
/// the same registers (and as the CuTe TV layout of a 2x2-warp TiledMMA).
#[test]
fn ptx_fragments_are_the_layouts_triton_gives_the_same_registers() {
    let same = |a: &str, b: &str, shape: &str, warps: &str| {
        let x = run(&["layout", "--attr", a, "--shape", shape, "--warps", warps]);
        let y = run(&["layout", "--attr", b, "--shape", shape, "--warps", warps]);
        assert!(x.status.success(), "{a}: {}", stderr(&x));
        assert!(y.status.success(), "{b}: {}", stderr(&y));
        assert_eq!(
            String::from_utf8_lossy(&x.stdout),
            String::from_utf8_lossy(&y.stdout),
            "{a} vs {b}"
        );
    };
    let m2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>";
    let dot =
        |op: u32, k: u32| format!("#ttg.dot_op<{{opIdx = {op}, parent = {m2}, kWidth = {k}}}>");
    same("ptx:mma.m16n8k16.c.f32", m2, "16x8", "1");
    same("ptx:mma.m16n8k16.c.f32", CUTE_C, "16x8", "1");
    same("ptx:mma.m16n8k16.a.f16", &dot(0, 2), "16x16", "1");
    same("ptx:mma.m16n8k16.b.bf16", &dot(1, 2), "16x8", "1");
    same("ptx:mma.m16n8k32.a.e4m3", &dot(0, 4), "16x32", "1");
    same("ptx:mma.m16n8k32.b.s8", &dot(1, 4), "32x8", "1");
    same("ptx:mma.m16n8k8.a.tf32", &dot(0, 1), "16x8", "1");
    same("ptx:ldmatrix.x4", "ptx:mma.m16n8k16.a.f16", "16x16", "1");
    same(
        "ptx:wgmma.m64n128k16.c.f32",
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
        "64x128",
        "4",
    );
    // warps: A is copied by warps along N, B by warps along M (dot_op)
    let mma = |w: &str| {
        format!("#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {w}, instrShape = [16, 8]}}>")
    };
    let dot_w = |op: u32, w: &str| {
        format!(
            "#ttg.dot_op<{{opIdx = {op}, parent = {}, kWidth = 2}}>",
            mma(w)
        )
    };
    same("ptx:mma.m16n8k16.a.f16", &dot_w(0, "[4, 1]"), "64x16", "4");
    same("ptx:mma.m16n8k16.b.f16", &dot_w(1, "[4, 1]"), "16x8", "4");
    same(
        "ptx:mma.m16n8k16.a.f16@1x4",
        &dot_w(0, "[1, 4]"),
        "16x16",
        "4",
    );
    same(
        "ptx:mma.m16n8k16.b.f16@1x4",
        &dot_w(1, "[1, 4]"),
        "16x32",
        "4",
    );
    same("ptx:mma.m16n8k16.c.f32", &mma("[4, 1]"), "64x8", "4");
    // a Gluon assignment to `_L` is not taken for a CuTe `_4`
    let o = run(&[
        "layout",
        "--attr",
        "_L = ttgl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])",
        "--shape",
        "32x32",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // warps along M first, then N, as a TiledMMA of 2x2 warps
    same(
        "ptx:mma.m16n8k16.c.f32@2x2",
        "((_4,_8,_2,_2),(_2,_2)):((_64,_1,_16,_256),(_32,_8))",
        "32x16",
        "4",
    );
    // the paper's figure 3: an fp16 accumulator into fp8 operand order
    let o = run(&[
        "verify",
        "--cpu",
        "--src",
        "ptx:mma.m16n8k16.c.f32",
        "--dst",
        "ptx:mma.m16n8k32.a.e4m3",
        "--shape",
        "16x32",
        "--warps",
        "1",
        "--dtype",
        "f8E4M3FN",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn bad_ptx_fragments_say_what_is_known() {
    let err = |attr: &str, warps: &str| {
        let o = run(&[
            "layout", "--attr", attr, "--shape", "64x32", "--warps", warps,
        ]);
        assert_eq!(o.status.code(), Some(1), "{attr}");
        stderr(&o)
    };
    let e = err("ptx:mma.m16n8k64.c.f32", "1");
    assert!(
        e.contains("unknown fragment `mma.m16n8k64.c.f32`; known: mma.m16n8k16"),
        "{e}"
    );
    assert!(e.contains("wgmma.m64nNk16.c.{f32,f16}"), "{e}");
    assert!(err("ptx:mma.m16n8k16.c.f64", "1").contains("type `f64` is not one of f32, f16"));
    assert!(err("ptx:mma.m16n8k16.c.f32@3x1", "1").contains("powers of two"));
    let e = err("ptx:mma.m16n8k16.c.f32@2x2", "2");
    assert!(e.contains("make 4 warps, but --warps is 2"), "{e}");
    assert!(err("ptx:wgmma.m64n24k16.c.f32", "4").contains("N must be a power of two"));
    assert!(err("ptx:mma.m16n8k16.a.f16.x", "1").contains("nothing may follow the type"));
    assert!(err("ptx:wgmma.m64n64k16.c.f32@4x4", "4").contains("32 warps at most"));
}

/// `emit --api cute` adds CuTe fragment overloads after the array forms
/// (and the CuTe include); without it (or with `--api array`) the header is
/// the same bytes and includes nothing; an unknown API is a usage error.
#[test]
fn emit_api_cute_adds_fragment_overloads_and_array_is_the_default() {
    let dir = std::env::temp_dir().join(format!("wf-emit-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let emit = |extra: &[&str], name: &str| {
        let out = dir.join(name);
        let mut args = vec![
            "emit",
            "--ttgir",
            "corpus/pairs.mlir",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        std::fs::read_to_string(&out).unwrap()
    };
    let plain = emit(&[], "plain.cuh");
    let array = emit(&["--api", "array"], "array.cuh");
    let cute = emit(&["--api", "cute"], "cute.cuh");
    assert_eq!(plain, array);
    assert!(!plain.contains("#include") && !plain.to_lowercase().contains("cute"));
    assert!(
        cute.starts_with(&plain),
        "the array forms come first, unchanged"
    );
    assert!(cute.contains("#include <cute/tensor.hpp>"));
    // one element overload per helper, with the array form's register counts
    let helpers: Vec<(String, String, String)> = plain
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("__device__ __forceinline__ void ")?;
            let (id, args) = rest.split_once("(const T (&src)[")?;
            let (s, args) = args.split_once("], T (&dst)[")?;
            let (d, _) = args.split_once(']')?;
            Some((id.to_string(), s.to_string(), d.to_string()))
        })
        .collect();
    assert_eq!(helpers.len(), 11, "pairs.mlir has 11 conversions");
    for (id, s, d) in &helpers {
        assert!(
            cute.contains(&format!(
                "void {id}(const cute::Tensor<SrcEngine, SrcLayout>& src, cute::Tensor<DstEngine, DstLayout>& dst"
            )),
            "{id} has no CuTe overload"
        );
        assert!(cute.contains(&format!(
            "detail::cute_fragment_size<{s}, int(decltype(cute::size(SrcLayout{{}}))::value)>"
        )));
        assert!(cute.contains(&format!(
            "\"{id}: dst must have cute::size(layout) == {d}, the helper's destination register count"
        )));
    }
    // every packed form of the array header has its CuTe overload
    for l in plain.lines() {
        if let Some(rest) = l.strip_prefix("__device__ __forceinline__ void ") {
            if let Some((name, _)) = rest.split_once("(const unsigned (&src)[") {
                assert!(
                    cute.contains(&format!("void {name}(const cute::Tensor<SrcEngine")),
                    "{name} has no CuTe overload"
                );
            }
        }
    }
    let o = run(&["emit", "--ttgir", "corpus/pairs.mlir", "--api", "thrust"]);
    assert_eq!(o.status.code(), Some(2), "a usage error: {}", stderr(&o));
    let e = stderr(&o);
    for n in ["invalid value 'thrust' for '--api <API>'", "array", "cute"] {
        assert!(e.contains(n), "`{n}` not in: {e}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// `layout --smem`: a CuTe swizzled shared layout (the SM80 f16 8x64
/// K-major atom) under 128-bit row accesses of 8 lanes down the rows (as
/// ldmatrix addresses them) is conflict-free; the same layout unswizzled has
/// all 8 lanes of each quarter warp on the same 4 banks: 8 wavefronts per
/// phase, 32 per instruction against 4 (computed by hand in
/// synth/src/smem/tests.rs).
#[test]
fn layout_smem_counts_bank_conflicts_of_an_access() {
    let rows = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>";
    let o = run(&[
        "layout",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
        "--attr",
        rows,
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("offset=64 -> (1, 8)"), "{out}");
    assert!(out.contains("2 x st/ld.shared.v4.b32 per thread"), "{out}");
    assert!(
        out.contains("#0 registers 0..7 at +0: 4 wavefronts (minimum 4), 0 bank conflicts"),
        "{out}"
    );
    assert!(out.contains("summary: 2 instruction(s) per thread, 8 wavefronts per warp (minimum 8), 0 bank conflicts"), "{out}");
    // the same without the swizzle; the SW128 atom as CUTLASS prints it
    // (byte swizzle behind smem_ptr[16b], element width from it)
    let o = run(&[
        "layout",
        "--smem",
        "(_8,_64):(_64,_1)",
        "--dtype",
        "16",
        "--attr",
        rows,
        "--warps",
        "1",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("32 wavefronts (minimum 4), 28 bank conflicts; conflicting lanes 0-31"),
        "{out}"
    );
    assert!(
        out.contains("64 wavefronts per warp (minimum 8), 56 bank conflicts"),
        "{out}"
    );
    let o = run(&[
        "layout",
        "--smem",
        "Sw<3,4,3> o smem_ptr[16b](unset) o (_16,_64):(_64,_1)",
        "--attr",
        "ptx:mma.m16n8k16.c.f16",
        "--warps",
        "1",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("16 x st/ld.shared.b32"), "{out}");
    assert!(
        out.contains("16 wavefronts per warp (minimum 16), 0 bank conflicts"),
        "{out}"
    );
    // the layout alone
    let o = run(&[
        "layout",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout)
        .contains("where out dims are: [dim0 (size 8), dim1 (size 64)]"));
}

#[test]
fn layout_smem_refuses_bad_input() {
    expect_error(
        &[
            "layout",
            "--smem",
            "Sw<3,4> o _0 o (_8,_64):(_64,_1)",
            "--dtype",
            "f16",
        ],
        &["--smem:1:7", "expected `,` then S"],
    );
    expect_error(
        &["layout", "--smem", "(_8,_64):(_3,_1)", "--dtype", "f16"],
        &["mode 0: stride 3 is not a power of two"],
    );
    expect_error(&["layout", "--smem", "(_8,_64):(_64,_1)"], &["--dtype"]);
    expect_error(
        &["layout", "--attr", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"],
        &["give it as --smem"],
    );
    expect_error(
        &[
            "layout",
            "--smem",
            "(_16,_64):(_64,_1)",
            "--dtype",
            "f16",
            "--attr",
            "ptx:mma.m16n8k16.c.f16",
            "--warps",
            "1",
            "--vector",
            "64",
        ],
        &["--vector 64", "register 2 of a thread lands at offset"],
    );
    expect_error(
        &[
            "layout",
            "--smem",
            "(_16,_32):(_32,_1)",
            "--dtype",
            "f16",
            "--attr",
            "ptx:mma.m16n8k16.c.f16",
            "--warps",
            "1",
            "--shape",
            "16x64",
        ],
        &["tile is 16x32"],
    );
}

#[test]
fn draw_smem_marks_the_conflicting_lanes() {
    let rows = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>";
    let o = run(&[
        "draw",
        "--smem",
        "(_8,_64):(_64,_1)",
        "--dtype",
        "f16",
        "--attr",
        rows,
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = String::from_utf8_lossy(&o.stdout);
    assert!(
        svg.contains(r#"data-stage-kind="SmemAccess""#),
        "no access table"
    );
    assert!(svg.contains(r#"data-bank-conflicts="56""#));
    // 16 words of instruction 0 in each of the 8 rows, all conflicting
    assert_eq!(
        svg.matches(r#"class="cell conflict""#).count(),
        8 * 16 + 8 * 32
    );
    let o = run(&[
        "draw",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
        "--attr",
        rows,
        "--warps",
        "1",
        "--format",
        "txt",
    ]);
    let txt = String::from_utf8_lossy(&o.stdout);
    assert!(
        txt.contains("8 wavefronts (minimum 8), 0 bank conflicts"),
        "{txt}"
    );
    assert!(!txt.contains("b0!") && !txt.contains(",0!"), "{txt}");
    // the layout alone: 8 rows of 32 banks
    let o = run(&[
        "draw",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = String::from_utf8_lossy(&o.stdout);
    assert!(
        svg.contains(r#"data-elements="256" data-shape="8x32""#),
        "{svg}"
    );
}

#[test]
fn arrays_over_the_register_limit_move_as_words() {
    // 4 warps (255 registers): a dot operand's 64 halves per thread to 256
    // of a sliced 3-D dot operand; the 16-bit element form's automatic
    // choice holds both arrays as words, two at a time, and the header says
    // why
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/triton_lowerings.ttgir",
        "--name",
        "c2d_d3a1_sd2b_64x128_f16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(
        h.contains("kWords == words::automatic ? words::both"),
        "{h}"
    );
    assert!(
        h.contains("the arrays move as natural 32-bit words, two at a time by an 8-byte memcpy")
    );
    assert!(h.contains(
        ": the arrays' elements, 64 and 256, one register each, would exceed the 255 registers __launch_bounds__(128) allows less 16 on at least one side"
    ), "{h}");
    assert!(h.contains("16-bit (automatic = both)"), "{h}");
    assert!(h.contains("detail::ld_dword(&src[0], src_w[0], src_w[1]);"));
}

#[test]
fn eight_bit_words_move_one_at_a_time_and_sixteen_bit_two() {
    // the same helper's 8-bit and 16-bit element forms through their packed
    // forms: 16-bit natural words move in pairs (an 8-byte memcpy), 8-bit
    // ones word by word (pairs measured slower there; see
    // results/runs/2026-11-27-h200-store-width-ce85994/e8_words8/)
    let o = run(&["emit", "--ttgir", "tests/data/stress_w32.ttgir"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(h.contains("// 8-bit elements in this form: the arrays move as natural 32-bit words, one at a time by a 4-byte memcpy, through wf_transpose_f16_256x256_5_packed8"), "{h}");
    assert!(h.contains("// 16-bit elements in this form: the arrays move as natural 32-bit words, two at a time by an 8-byte memcpy, through wf_transpose_f16_256x256_5_packed16"), "{h}");
    let eight = &h[h.find("if constexpr (sizeof(T) == 1)").unwrap()
        ..h.find("} else if constexpr (sizeof(T) == 2)").unwrap()];
    assert!(
        eight.contains("src_w[1] = detail::ld_word(&src[4]);"),
        "{eight}"
    );
    assert!(
        !eight.contains("detail::ld_dword(") && !eight.contains("detail::st_dword("),
        "{eight}"
    );
}

/// Issue 46: one conversion that cannot be served leaves every other one
/// its helper and proof; the refused one is its own record (JSON, text,
/// JUnit, header declaration) and the run exits 1.
#[test]
fn one_refused_conversion_leaves_the_others_served() {
    let dir = tempfile_dir().join("per_conversion");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("three.ttgir");
    let b = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>";
    let t = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>";
    let amd = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 8], isTransposed = true}>";
    std::fs::write(
        &f,
        format!(
            "#b = {b}\n#t = {t}\nmodule attributes {{\"ttg.num-warps\" = 1 : i32, ttg.target = \"cuda:80\"}} {{\n  tt.func @f() {{\n    %0 = ttg.convert_layout %x : tensor<16x16xf16, #b> -> tensor<16x16xf16, #t>\n    %1 = ttg.convert_layout %x : tensor<16x16xf16, #b> -> tensor<16x16xf16, {amd}>\n    %2 = ttg.convert_layout %x : tensor<16x16xf16, #t> -> tensor<16x16xf16, #b>\n  }}\n}}\n"
        ),
    )
    .unwrap();
    let fs = f.to_str().unwrap();
    let o = run(&["plan", "--json", "--ttgir", fs]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let recs: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let status: Vec<&str> = recs.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["served", "refused", "served"]);
    for r in &recs {
        assert_eq!(r["file"].as_str(), Some(fs));
        assert!(r["helper"].as_str().unwrap().starts_with("wf_f_"), "{r}");
    }
    assert_eq!(recs[0]["target"], "sm_80");
    assert!(
        recs[1]["reason"].as_str().unwrap().contains("amd_mfma"),
        "{}",
        recs[1]
    );
    assert!(stderr_has(&run(&["plan", "--ttgir", fs]), "1 refused"));
    // emit: two helpers and the refused one's declarations
    let out = dir.join("three.cuh");
    let o = run(&["emit", "--ttgir", fs, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(
        h.contains("void wf_f_6(A&&...)") && h.contains("was NOT served"),
        "{h}"
    );
    assert_eq!(h.matches("// target: sm_80").count(), 2, "{h}");
    // verify: two proofs, one failing JUnit case for the refused one
    let xml = dir.join("three.xml");
    let o = run(&[
        "verify",
        "--cpu",
        "--ttgir",
        fs,
        "--junit",
        xml.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.contains("cpu ok")).count(),
        2,
        "{text}"
    );
    assert!(text.contains("f:6") && text.contains("refused"), "{text}");
    let x = std::fs::read_to_string(&xml).unwrap();
    assert!(
        x.contains("f:6 refused") && x.contains("type=\"refused\""),
        "{x}"
    );
}

fn stderr_has(o: &std::process::Output, s: &str) -> bool {
    stderr(o).contains(s)
}

/// Issue 46: the file's `ttg.target` sets the target: the sm_80 corpus
/// file gets no `stmatrix`, its header names and guards sm_80; `--sm` that
/// differs is refused per conversion unless `--override-target`.
#[test]
fn the_target_comes_from_the_file() {
    let f = "corpus/ttgir/colsum_trans_fp16_32x32_w1_sm80.ttgir";
    let o = run(&["emit", "--ttgir", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(!h.contains("detail::stsm"), "an sm_80 helper uses stmatrix");
    assert!(
        h.contains("// target: sm_80 (ttg.target = \"cuda:80\")"),
        "{h}"
    );
    assert!(
        h.contains("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800"),
        "{h}"
    );
    let o = run(&["plan", "--sm", "90", "--ttgir", f]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--sm 90 conflicts with the file's ttg.target = \"cuda:80\""));
    let o = run(&[
        "plan",
        "--json",
        "--sm",
        "90",
        "--override-target",
        "--ttgir",
        f,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("\"target\":\"sm_90\""));
}

/// A conversion repeated in one file is planned once: the repeat reuses the
/// plans (`plan_reused`), still gets its own helper, and the header is the
/// one each conversion planned alone would give. `--timings` adds each
/// conversion's planning seconds and needs `--json`.
#[test]
fn a_repeated_conversion_is_planned_once_and_timed() {
    let dir = tempfile_dir().join("repeated");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("twice.ttgir");
    let b = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}>";
    let t = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]}>";
    std::fs::write(
        &f,
        format!(
            "#b = {b}\n#t = {t}\nmodule attributes {{\"ttg.num-warps\" = 2 : i32}} {{\n  tt.func @f() {{\n    %0 = ttg.convert_layout %x : tensor<64x32xf16, #b> -> tensor<64x32xf16, #t>\n    %1 = ttg.convert_layout %y : tensor<64x32xbf16, #b> -> tensor<64x32xbf16, #t>\n    %2 = ttg.convert_layout %z : tensor<64x32xf16, #t> -> tensor<64x32xf16, #b>\n  }}\n}}\n"
        ),
    )
    .unwrap();
    let fs = f.to_str().unwrap();
    let o = run(&["plan", "--json", "--timings", "--ttgir", fs]);
    assert!(o.status.success(), "{}", stderr(&o));
    let recs: Vec<serde_json::Value> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reused: Vec<bool> = recs
        .iter()
        .map(|r| r["plan_reused"].as_bool().unwrap())
        .collect();
    // bf16 plans as f16 (same width); the reverse conversion is new
    assert_eq!(reused, [false, true, false]);
    for r in &recs {
        assert!(r["plan_seconds"].as_f64().unwrap() >= 0.0, "{r}");
    }
    assert_eq!(recs[0]["strategy"], recs[1]["strategy"]);
    assert_eq!(recs[0]["cost"], recs[1]["cost"]);
    // without --timings the records carry no time
    let o = run(&["plan", "--json", "--ttgir", fs]);
    assert!(!String::from_utf8(o.stdout)
        .unwrap()
        .contains("plan_seconds"));
    assert_eq!(
        run(&["plan", "--timings", "--ttgir", fs]).status.code(),
        Some(2)
    );
    // the repeat's helper is the first one's under its own name
    let out = dir.join("twice.cuh");
    let o = run(&["emit", "--ttgir", fs, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    let body = |name: &str| -> String {
        let at = h
            .find(&format!("void {name}("))
            .unwrap_or_else(|| panic!("{name}: {h}"));
        let end = h[at..].find("\n}\n").unwrap() + at;
        h[at..end].replace(name, "X")
    };
    assert_eq!(body("wf_f_5"), body("wf_f_6"));
    let o = run(&["verify", "--cpu", "--ttgir", fs]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 48: docs/CLI.md is every subcommand's `--help` as the binary
/// prints it (regenerate with `make cli-docs`), so the reference and clap
/// never disagree; README links it.
#[test]
fn the_cli_reference_is_what_help_prints() {
    let exe = env!("CARGO_BIN_EXE_warpforge");
    let o = std::process::Command::new("sh")
        .current_dir(root())
        .args(["scripts/cli_docs.sh", exe])
        .output()
        .expect("sh runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let want = String::from_utf8(o.stdout).unwrap();
    let have = std::fs::read_to_string(root().join("docs/CLI.md")).unwrap();
    assert!(
        have == want,
        "docs/CLI.md differs from the binary's --help: run `make cli-docs`"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("docs/CLI.md"));
    // draw offers no flag it refuses, and names no helper prefix it lacks
    let draw = String::from_utf8(run(&["draw", "--help"]).stdout).unwrap();
    let offers = |flag: &str| draw.lines().any(|l| l.trim_start().starts_with(flag));
    assert!(!offers("--json") && !draw.contains("<prefix>"), "{draw}");
    assert!(offers("--format") && offers("--name"), "{draw}");
}
