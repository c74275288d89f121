//! One input through plan, emit and verify together: conversion families
//! (Triton's packed regressions, byte transposes, broadcast sources), and
//! what holds per file (one refused conversion among served ones, the
//! file's target, a repeated conversion).

use crate::common::*;

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
