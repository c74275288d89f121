//! AMD modules end to end: a wave64 (gfx942) and a wave32 (gfx1100) file of
//! the generated corpus planned for their target, emitted as HIP helpers in
//! the shared header, proven on the CPU; `--sm` refused on them; and, where a
//! HIP compiler runs here (`WARPFORGE_HIP_CLANG`, or `python3 -m ziglang
//! clang`), compiled for the target (a `HIP-TEST SKIPPED` line otherwise).

use crate::common::*;
use std::io::Write;

const GFX942: &str = "corpus/real/amd/gfx942/transpose_fp16_64x16_w2.ttgir";
const GFX1100: &str = "corpus/real/amd/gfx1100/transpose_fp16_64x16_w2.ttgir";

#[test]
fn amd_files_get_hip_helpers_for_their_wave() {
    let dir = tempfile_dir();
    for (file, arch, lanes) in [(GFX942, "gfx942", 64u32), (GFX1100, "gfx1100", 32)] {
        let f = root().join(file);
        let out = dir.join(format!("{arch}.hip"));
        let o = run(&[
            "emit",
            "--ttgir",
            f.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let h = std::fs::read_to_string(&out).unwrap();
        // the helper compiles only under HIP, guarded by the wave size
        assert!(
            h.contains(&format!(
                "// target: AMD {arch} (ttg.target = \"hip:{arch}\"), {lanes}-lane waves"
            )),
            "{arch}"
        );
        let guard = if lanes == 64 {
            "!defined(__GFX9__)"
        } else {
            "(defined(__GFX9__) || !__has_builtin(__builtin_amdgcn_ballot_w32))"
        };
        assert!(h.contains(guard), "{arch}");
        assert!(h.contains("#if defined(__HIP__)\n// target: AMD"), "{arch}");
        assert!(
            h.contains(&format!("threadIdx.x & {}u;", lanes - 1)),
            "{arch}"
        );
        // the HIP detail code is there, and no NVIDIA-only instruction is used
        assert!(h.contains("__builtin_amdgcn_ds_bpermute"));
        let body = &h[h.find("// target: AMD").unwrap()..];
        assert!(
            !body.contains("detail::ldsm") && !body.contains("detail::stsm"),
            "{arch}"
        );
        // planned and proven on the CPU (the printed code too), on its wave
        let o = run(&["verify", "--cpu", "--json", "--ttgir", f.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let s = stdout(&o);
        assert!(
            s.contains("\"verified\":true") && !s.contains("\"verified\":false"),
            "{s}"
        );
        let o = run(&["plan", "--json", "--ttgir", f.to_str().unwrap()]);
        assert!(
            stdout(&o).contains(&format!("\"target\":\"{arch}\"")),
            "{}",
            stdout(&o)
        );
    }
}

#[test]
fn sm_is_refused_on_an_amd_module_per_conversion() {
    let f = root().join(GFX942);
    let o = run(&["plan", "--sm", "90", "--ttgir", f.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("--sm 90 names an NVIDIA GPU") && e.contains("hip:gfx942"),
        "{e}"
    );
}

#[test]
fn amd_helpers_compile_for_their_target() {
    if verify::hip_compiler().is_err() {
        // past the harness's capture, as the GPU tests say theirs
        let _ = writeln!(
            std::io::stderr(),
            "HIP-TEST SKIPPED amd_helpers_compile_for_their_target: no HIP compiler (pip install ziglang, or WARPFORGE_HIP_CLANG)"
        );
        return;
    }
    for file in [GFX942, GFX1100] {
        let f = root().join(file);
        let o = run(&[
            "verify",
            "--compile-only",
            "--json",
            "--dtypes",
            "i8,f16,i32,i64",
            "--ttgir",
            f.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let s = stdout(&o);
        assert!(
            s.contains("\"hip\":") && s.contains("\"spilled\":[]"),
            "{s}"
        );
        assert!(
            stderr(&o).contains("HIP check kernel(s) compiled"),
            "{}",
            stderr(&o)
        );
    }
    // a wave32 helper compiled for a wave64 build of the same GPU stops with its #error
    let (cmd, _) = verify::hip_compiler().unwrap();
    let dir = tempfile_dir();
    let header = dir.join("gfx1100.hip");
    let f = root().join(GFX1100);
    let o = run(&[
        "emit",
        "--ttgir",
        f.to_str().unwrap(),
        "-o",
        header.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let unit = dir.join("unit.hip");
    std::fs::write(
        &unit,
        format!(
            "{}{}",
            verify::HIP_PRELUDE,
            std::fs::read_to_string(&header).unwrap()
        ),
    )
    .unwrap();
    let compile = |extra: &[&str]| {
        std::process::Command::new(&cmd[0])
            .args(&cmd[1..])
            .args([
                "-x",
                "hip",
                "--offload-arch=gfx1100",
                "-nogpulib",
                "-nogpuinc",
            ])
            .args(["--cuda-device-only", "-O2", "-S", "-o", "/dev/null"])
            .args(extra)
            .arg(&unit)
            .output()
            .unwrap()
    };
    assert!(compile(&[]).status.success());
    let o = compile(&["-mwavefrontsize64"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("whose waves differ"), "{}", stderr(&o));
    let _ = writeln!(
        std::io::stderr(),
        "HIP-TEST ran amd_helpers_compile_for_their_target"
    );
}

#[test]
fn a_pair_takes_an_amd_target() {
    let mfma = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";
    let blocked = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let args = |t: &'static str| {
        vec![
            "verify", "--cpu", "--json", "--src", mfma, "--dst", blocked, "--shape", "64x64",
            "--dtype", "f16", "--target", t,
        ]
    };
    let o = run(&args("gfx942"));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"verified\":true"), "{}", stdout(&o));
    let o = run(&args("hip:gfx950"));
    assert!(o.status.success(), "{}", stderr(&o));
    // a wave64 layout is no gfx1100 (wave32) layout, and unknown targets are named
    let o = run(&args("gfx1100"));
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("64 lanes per wave, asked for 32"),
        "{}",
        stderr(&o)
    );
    // the feature flags rocminfo prints are dropped, as Triton's driver drops them
    let o = run(&args("gfx942:sramecc+:xnack-"));
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&args("gfx942:sramecc"));
    assert_eq!(o.status.code(), Some(2), "a usage error");
    assert!(
        stderr(&o).contains("`sramecc` is not a feature flag"),
        "{}",
        stderr(&o)
    );
    let o = run(&args("gfx1250"));
    assert_eq!(o.status.code(), Some(2), "a usage error");
    let e = stderr(&o);
    assert!(
        e.contains("`gfx1250`")
            && e.contains("gfx942")
            && e.contains("gfx90a")
            && e.contains("--sm"),
        "{e}"
    );
    // without --target, the AMD layout is refused on NVIDIA's 32 lanes, by name
    let o = run(&["plan", "--src", mfma, "--dst", blocked, "--shape", "64x64"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("amd_mfma"), "{}", stderr(&o));
}

#[test]
fn cute_overloads_are_for_nvidia_helpers_only() {
    let dir = tempfile_dir();
    let out = dir.join("cute_amd.hip");
    let f = root().join(GFX942);
    let o = run(&[
        "emit",
        "--api",
        "cute",
        "--ttgir",
        f.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("keep their array forms only"),
        "{}",
        stderr(&o)
    );
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(!h.contains("cute::") && h.contains("#if defined(__HIP__)"));
}
