//! Emitted headers compose: headers from different TTGIR files (and the
//! same header twice) compile together in one translation unit with NVRTC,
//! each helper instantiated from one kernel. Runs where NVRTC and a GPU are
//! present; otherwise says `GPU-TEST SKIPPED` (counted by `make test`).

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The header `warpforge emit` writes for `args`.
fn emit(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("h.cuh");
    let o = Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .current_dir(root())
        .arg("emit")
        .args(args)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("warpforge runs");
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read_to_string(out).unwrap()
}

/// `(name, src regs, dst regs, takes smem)` of every helper in a header.
fn helpers(header: &str) -> Vec<(String, String, String, bool)> {
    let mut v = Vec::new();
    for l in header.lines() {
        let Some(rest) = l.strip_prefix("__device__ __forceinline__ void ") else {
            continue;
        };
        let Some((name, sig)) = rest.split_once("(const T (&src)[") else {
            continue; // packed forms take `unsigned` words
        };
        let (n, sig) = sig.split_once("], T (&dst)[").unwrap();
        let (m, sig) = sig.split_once(']').unwrap();
        v.push((
            name.to_string(),
            n.to_string(),
            m.to_string(),
            sig.contains("smem"),
        ));
    }
    v
}

/// One kernel calling every helper of `headers` (all in one source).
fn translation_unit(headers: &[&str]) -> String {
    let mut s: String = headers.concat();
    s += "\nextern \"C\" __global__ void wf_compose(const float* in, float* out) {\n";
    s += "  extern __shared__ __align__(16) unsigned char smem[];\n";
    let mut seen = std::collections::HashSet::new();
    for h in headers {
        for (i, (name, n, m, sm)) in helpers(h).into_iter().enumerate() {
            if !seen.insert(name.clone()) {
                continue;
            }
            s += &format!(
                "  {{ float s[{n}]; float d[{m}];\n    for (int i = 0; i < {n}; ++i) s[i] = in[threadIdx.x * {n} + i];\n    warpforge::{name}<float>(s, d{});\n    for (int i = 0; i < {m}; ++i) out[{i} * 4096 + threadIdx.x * {m} + i] = d[i]; }}\n",
                if sm { ", smem" } else { "" }
            );
        }
    }
    s + "}\n"
}

fn gpu_or_skip(test: &str) -> Option<(i32, i32)> {
    match verify::probe_gpu() {
        Ok(g) => {
            let _ = writeln!(
                std::io::stderr(),
                "GPU-TEST ran {test} on {} (sm_{}{})",
                g.name,
                g.sm.0,
                g.sm.1
            );
            Some(g.sm)
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "GPU-TEST SKIPPED {test}: {e}");
            None
        }
    }
}

#[test]
fn gpu_two_headers_from_two_ttgir_files_compile_together() {
    // default names (the files' helpers do not collide), the same header
    // twice, and two files whose helpers would collide, told apart by --prefix
    let a = emit(&["--ttgir", "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir"]);
    let b = emit(&["--ttgir", "corpus/ttgir/attn_fp16_d64_64x64_w4_sm80.ttgir"]);
    let c = emit(&["--ttgir", "corpus/ttgir/matmul_fp16_sm80.ttgir"]);
    let d = emit(&[
        "--ttgir",
        "corpus/ttgir/attn_bf16_d64_64x64_w4_sm80.ttgir",
        "--prefix",
        "wf_bf16_",
    ]);
    let tu = translation_unit(&[&a, &b, &c, &a, &d]);
    assert!(tu.contains("warpforge::wf_bf16_attn_"), "prefix applied");
    let Some(sm) = gpu_or_skip("gpu_two_headers_from_two_ttgir_files_compile_together") else {
        return;
    };
    // compile only: the helpers are planned for sm_90 (stmatrix), so
    // compile for it on older devices
    let sm = if sm.0 >= 9 { sm } else { (9, 0) };
    if let Err(e) = verify::compile_cubin(&tu, sm, &[]) {
        panic!("two headers in one translation unit do not compile: {e}");
    }
}

#[test]
fn gpu_a_helper_defined_differently_by_two_headers_is_a_clear_error() {
    // the same names from two different files, without --prefix
    let a = emit(&["--ttgir", "corpus/ttgir/attn_fp16_d64_64x64_w4_sm80.ttgir"]);
    let b = emit(&["--ttgir", "corpus/ttgir/attn_bf16_d64_64x64_w4_sm80.ttgir"]);
    let Some(sm) = gpu_or_skip("gpu_a_helper_defined_differently_by_two_headers_is_a_clear_error")
    else {
        return;
    };
    // compile only: the helpers are planned for sm_90 (stmatrix), so
    // compile for it on older devices
    let sm = if sm.0 >= 9 { sm } else { (9, 0) };
    let tu = format!("{a}{b}");
    match verify::compile_cubin(&tu, sm, &[]) {
        Ok(_) => {
            // the two files' helpers happened to be identical: defined once
            assert_eq!(helpers(&a), helpers(&b));
        }
        Err(e) => {
            let log = e.to_string();
            assert!(
                log.contains("two headers define") && log.contains("--prefix"),
                "{log}"
            );
        }
    }
}
