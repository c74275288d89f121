//! `warpforge verify`: the CPU proof of every corpus file, `--gpu` without a
//! GPU, and JUnit output.

use crate::common::*;

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
        // a slice of a linear layout over 2 CTAs (sm_100 TMEM epilogue)
        "tests/data/slice_of_linear_ctas.ttgir",
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
fn verify_junit_has_a_testcase_per_conversion_width_and_printed_form() {
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
        // the printed code's proof of every form (kernels::prove)
        for bits in [8, 16, 32, 64] {
            let want = format!("{name} printed element {bits}-bit");
            assert!(
                cases.iter().any(|(c, n)| c == f && n.starts_with(&want)),
                "{want} missing"
            );
        }
    }
    let cpu = cases.iter().filter(|(_, n)| n.contains(" cpu ")).count();
    let printed = cases
        .iter()
        .filter(|(_, n)| n.contains(" printed "))
        .count();
    assert_eq!(cpu, names.len() * 4);
    assert!(printed >= names.len() * 4, "{printed} printed-code cases");
    assert_eq!(cases.len(), cpu + printed);
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

/// Two input files may hold conversions of the same `func:line` (the same
/// kernel compiled for two shapes or targets, one directory each): each
/// conversion's GPU (or compiled-only) results are its own helper's, found
/// by the helper's name in the whole input, not by `func:line`. Here
/// `tests/data/slice_of_linear_ctas.ttgir` (sm_100, a 128x128 tile) and a
/// copy at 128x256 for sm_90, both `g.ttgir`: the two targets are checked
/// as two parts, every result row of a conversion names its own helper,
/// and the 2-D conversion's data registers are each file's own; the first
/// file given twice keeps each copy's rows apart too. Needs
/// NVRTC (`verify --compile-only`); where none is found, says so and
/// returns.
#[test]
fn results_of_two_files_with_the_same_conversion_names_stay_apart() {
    let dir = tempfile_dir();
    let (a, b) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let src =
        std::fs::read_to_string(root().join("tests/data/slice_of_linear_ctas.ttgir")).unwrap();
    // the same function and lines at twice the columns, for sm_90
    let wide = src
        .replace("128x128xf16", "128x256xf16")
        .replace("cuda:100", "cuda:90");
    assert_ne!(wide, src);
    std::fs::write(a.join("g.ttgir"), &src).unwrap();
    std::fs::write(b.join("g.ttgir"), &wide).unwrap();
    let (fa, fb) = (a.join("g.ttgir"), b.join("g.ttgir"));
    let compile_only = |files: &[&std::path::Path]| {
        let mut args = vec![
            "verify",
            "--compile-only",
            "--json",
            "--dtypes",
            "i32",
            "--ttgir",
        ];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        run(&args)
    };
    let o = compile_only(&[&fa, &fb]);
    if stderr(&o).contains("libnvrtc") {
        eprintln!("skipped: no NVRTC here ({})", stderr(&o).trim());
        return;
    }
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    let mut regs = std::collections::BTreeMap::new();
    for r in &rows {
        let helper = r["helper"].as_str().unwrap();
        let cases = r["gpu"].as_array().unwrap();
        assert!(!cases.is_empty(), "{r}");
        for c in cases {
            assert_eq!(c["ident"].as_str().unwrap(), helper, "{r}");
        }
        regs.insert(
            (
                r["file"].as_str().unwrap().to_string(),
                r["name"].as_str().unwrap().to_string(),
            ),
            cases[0]["data_regs"].as_u64().unwrap(),
        );
    }
    // the 2-D conversion's data differs between the two files
    let line =
        |f: &std::path::Path| regs[&(f.to_str().unwrap().to_string(), "mm_epi:11".to_string())];
    assert_eq!(line(&fa) * 2, line(&fb));
    // one file given twice, beside the other: its copies' helpers (`_2`)
    // interleave by line in the header, and each copy's rows are its own
    let o = compile_only(&[&fa, &fb, &fa]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut helpers = std::collections::BTreeSet::new();
    for l in stdout(&o).lines() {
        let r: serde_json::Value = serde_json::from_str(l).unwrap();
        let helper = r["helper"].as_str().unwrap().to_string();
        let cases = r["gpu"].as_array().unwrap();
        for c in cases {
            assert_eq!(c["ident"].as_str().unwrap(), helper, "{r}");
        }
        // the conversion's own data, as in the run without the copy (the
        // 1-D and 2-D conversions of a file differ)
        let key = (
            r["file"].as_str().unwrap().to_string(),
            r["name"].as_str().unwrap().to_string(),
        );
        assert_eq!(cases[0]["data_regs"].as_u64().unwrap(), regs[&key], "{r}");
        helpers.insert(helper);
    }
    assert_eq!(helpers.len(), 6);
}
