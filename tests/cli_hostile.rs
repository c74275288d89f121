//! Issue 8: the CLI never loses data or panics. Output files are never an
//! input and are written safely (symlinks, FIFOs, devices, failures), closed
//! pipes end quietly, hostile input gets a clear error that points at the
//! text, emitted headers compose. One test per failure the issue lists.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

/// An error: exit 1 (or `code`), no panic, every needle in standard error.
fn expect_error_code(o: &Output, code: i32, needles: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    for n in needles {
        assert!(e.contains(n), "missing `{n}` in:\n{e}");
    }
}

fn expect_error(o: &Output, needles: &[&str]) {
    expect_error_code(o, 1, needles)
}

const B8X4: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>";
const B4X8T: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>";

/// A one-op TTGIR file with `op` (the convert_layout line) and `head`
/// lines before the module.
fn ttgir(dir: &Path, name: &str, head: &str, warps: &str, op: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "{head}#b = {B8X4}\n#t = {B4X8T}\nmodule attributes {{\"ttg.num-warps\" = {warps} : i32}} {{\n  tt.func @f() {{\n    {op}\n    tt.return\n  }}\n}}\n"
        ),
    )
    .unwrap();
    p
}

const OP: &str = "%0 = ttg.convert_layout %x : tensor<16x16xi32, #b> -> tensor<16x16xi32, #t>";

// --- output safety -------------------------------------------------------

#[test]
fn output_that_is_the_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let f = ttgir(dir.path(), "in.ttgir", "", "1", OP);
    let before = std::fs::read(&f).unwrap();
    let link = dir.path().join("link.ttgir");
    std::os::unix::fs::symlink(&f, &link).unwrap();
    let hard = dir.path().join("hard.ttgir");
    std::fs::hard_link(&f, &hard).unwrap();
    let fs = f.to_str().unwrap();
    for out in [fs, link.to_str().unwrap(), hard.to_str().unwrap()] {
        for args in [
            vec!["emit", "--ttgir", fs, "-o", out],
            vec!["verify", "--cpu", "--ttgir", fs, "-o", out],
            vec!["verify", "--cpu", "--ttgir", fs, "--report", out],
        ] {
            let o = run(&args);
            expect_error(&o, &["is the input file --ttgir", "refusing to overwrite"]);
            assert_eq!(
                std::fs::read(&f).unwrap(),
                before,
                "{args:?} changed the input"
            );
        }
    }
    // and two outputs that are one file
    let o = run(&[
        "verify", "--cpu", "--ttgir", fs, "-o", "x.md", "--report", "./x.md",
    ]);
    expect_error(&o, &["are the same file"]);
}

#[test]
fn symlinked_output_keeps_the_link_and_replaces_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let f = ttgir(dir.path(), "in.ttgir", "", "1", OP);
    let target = dir.path().join("real.cuh");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.cuh");
    std::os::unix::fs::symlink("real.cuh", &link).unwrap();
    let o = run(&[
        "emit",
        "--ttgir",
        f.to_str().unwrap(),
        "-o",
        link.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target).unwrap().contains("wf_f_"));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "no temporary file left: {names:?}");
}

#[test]
fn fifos_and_devices_are_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let f = ttgir(dir.path(), "in.ttgir", "", "1", OP);
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut s = String::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_string(&mut s)
                .unwrap();
            s
        })
    };
    let o = run(&[
        "emit",
        "--ttgir",
        f.to_str().unwrap(),
        "-o",
        fifo.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(reader.join().unwrap().contains("wf_f_"));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let o = run(&["emit", "--ttgir", f.to_str().unwrap(), "-o", "/dev/null"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_failed_write_leaves_no_temp_file_and_names_the_users_path() {
    // a file-size limit makes the write fail half-way (SIGXFSZ ignored)
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.cuh");
    std::fs::write(&out, "keep").unwrap();
    let o = Command::new("sh")
        .current_dir(root())
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 4; exec '{}' emit --ttgir corpus/pairs.mlir -o '{}'",
            env!("CARGO_BIN_EXE_warpforge"),
            out.display()
        ))
        .output()
        .unwrap();
    expect_error(&o, &[&format!("{}: cannot write", out.display())]);
    assert!(
        !stderr(&o).contains(".out."),
        "temp path named: {}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep");
    let n = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(n, 1, "a temporary file stayed behind");
}

/// Run with standard output a pipe whose reader is gone before the write.
fn into_closed_pipe(args: &[&str]) -> Output {
    let mut c = bin()
        .current_dir(root())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(c.stdout.take());
    c.wait_with_output().unwrap()
}

#[test]
fn closed_pipes_end_quietly_with_status_0() {
    for args in [
        &["plan", "--json", "--ttgir", "corpus/pairs.mlir"][..],
        &["plan", "--verbose", "--ttgir", "corpus/pairs.mlir"],
        &["emit", "--ttgir", "corpus/pairs.mlir"],
        &[
            "verify",
            "--cpu",
            "--ttgir",
            "tests/data/same_cta_split.mlir",
        ],
        &["layout", "--attr", B8X4, "--shape", "16x16", "--warps", "1"],
    ] {
        let o = into_closed_pipe(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            !e.contains("Broken pipe") && !e.contains("panicked"),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn a_full_disk_is_a_clean_error() {
    let full = std::fs::File::create("/dev/full");
    if full.is_err() {
        eprintln!("no /dev/full here: skipped");
        return;
    }
    for args in [
        &["plan", "--ttgir", "corpus/pairs.mlir"][..],
        &["emit", "--ttgir", "corpus/pairs.mlir"],
        &["layout", "--attr", B8X4, "--shape", "16x16", "--warps", "1"],
    ] {
        let o = bin()
            .current_dir(root())
            .args(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        expect_error(&o, &["standard output: cannot write", "No space left"]);
    }
    let o = run(&["emit", "--ttgir", "corpus/pairs.mlir", "-o", "/dev/full"]);
    expect_error(&o, &["/dev/full: cannot write", "No space left"]);
}

// --- hostile input -------------------------------------------------------

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "[".repeat(30_000);
    // no format takes it; each stops at its own depth limit (JSON, Gluon)
    let o = run(&["layout", "--attr", &deep, "--shape", "16x16"]);
    expect_error(
        &o,
        &["--attr", "recursion limit exceeded", "nest too deeply"],
    );
    // a TTGIR attribute that nests too deeply points at the 33rd level
    let attr = format!("#ttg.linear<{{register = {deep}");
    let o = run(&["layout", "--attr", &attr, "--shape", "16x16"]);
    expect_error(&o, &["--attr:1:", "nests deeper than 32 levels"]);
    let dir = tempfile::tempdir().unwrap();
    let op =
        format!("%0 = ttg.convert_layout %x : tensor<16x16xi32, {deep}> -> tensor<16x16xi32, #t>");
    let f = ttgir(dir.path(), "deep.ttgir", "", "1", &op);
    let o = run(&["plan", "--ttgir", f.to_str().unwrap()]);
    expect_error(&o, &["deep.ttgir:5:", "nests deeper"]);
}

#[test]
fn warps_per_cta_at_most_32() {
    for w in ["64", "1024", "65536", "0", "6"] {
        let t0 = std::time::Instant::now();
        let o = run(&[
            "emit", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--warps", w,
        ]);
        assert!(t0.elapsed().as_secs() < 5);
        expect_error_code(&o, 2, &["--warps", "warps per CTA"]);
    }
    let o = run(&[
        "layout", "--attr", B8X4, "--shape", "16x16", "--warps", "64",
    ]);
    expect_error_code(&o, 2, &["a CTA holds 1 to 32 warps (at most 1024 threads)"]);
    let dir = tempfile::tempdir().unwrap();
    let f = ttgir(dir.path(), "w.ttgir", "", "64", OP);
    let o = run(&["emit", "--ttgir", f.to_str().unwrap()]);
    expect_error(
        &o,
        &[
            "w.ttgir:3:21",
            "\"ttg.num-warps\" = 64: a CTA holds 1 to 32 warps",
        ],
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn a_key_given_twice_is_an_error() {
    let twice = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0], sizePerThread = [4, 1]}>";
    let o = run(&[
        "layout", "--attr", twice, "--shape", "16x16", "--warps", "1",
    ]);
    expect_error(
        &o,
        &[
            "--attr:1:102",
            "`sizePerThread` is given twice (first at column 15)",
        ],
    );
}

#[test]
fn flags_that_do_nothing_are_errors() {
    let o = run(&["emit", "--json", "--ttgir", "corpus/pairs.mlir"]);
    expect_error(&o, &["emit --json", "give -o FILE"]);
    for extra in [
        &["--shape", "16x16"][..],
        &["--dtype", "f16"],
        &["--warps", "4"],
    ] {
        let mut args = vec!["plan", "--ttgir", "corpus/pairs.mlir"];
        args.extend_from_slice(extra);
        expect_error_code(&run(&args), 2, &["cannot be used with"]);
    }
    // --name with --ttgir picks conversions; one that names none is an error
    let o = run(&["plan", "--ttgir", "corpus/pairs.mlir", "--name", "x"]);
    expect_error(&o, &["--name x: no such conversion", "fig3:60"]);
    let o = run(&["plan", "--ttgir", "corpus/pairs.mlir", "--name", "fig3:60"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 1);
    let o = run(&[
        "plan",
        "--json",
        "--verbose",
        "--ttgir",
        "corpus/pairs.mlir",
    ]);
    expect_error_code(&o, 2, &["cannot be used with"]);
    let o = run(&[
        "verify",
        "--cpu",
        "--dtypes",
        "i8",
        "--ttgir",
        "corpus/pairs.mlir",
    ]);
    expect_error_code(&o, 2, &["cannot be used with"]);
    let o = run(&[
        "plan",
        "--strategy",
        "shuffle",
        "--max-smem",
        "1024",
        "--ttgir",
        "corpus/pairs.mlir",
    ]);
    expect_error(&o, &["--max-smem", "--strategy shuffle makes none"]);
}

#[test]
fn two_convert_layouts_on_one_line_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = ttgir(
        dir.path(),
        "two.ttgir",
        "",
        "1",
        &format!("{OP} {}", OP.replace("%0", "%1")),
    );
    let o = run(&["plan", "--ttgir", f.to_str().unwrap()]);
    expect_error(&o, &["two.ttgir:5:", "a second convert_layout on one line"]);
}

#[test]
fn junk_inside_a_tensor_type_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for (op, needle) in [
        (
            OP.replace("#b>", "#b junk>"),
            "unexpected `junk` after the encoding",
        ),
        (OP.replace("#b>", "#b, #t>"), "unexpected `, #t`"),
        (
            OP.replace("#t>", "#t> junk"),
            "unexpected `junk` after the result type",
        ),
        (
            OP.replace("16x16xi32, #b", "16x16xi32 x, #b"),
            "bad dimension `i32`",
        ),
        (
            OP.replace("16x16xi32, #b", "16x16xq32, #b"),
            "unknown element type `q32`",
        ),
    ] {
        let f = ttgir(dir.path(), "junk.ttgir", "", "1", &op);
        let o = run(&["plan", "--ttgir", f.to_str().unwrap()]);
        expect_error(&o, &["junk.ttgir:5:", needle]);
    }
    let o = run(&[
        "layout",
        "--attr",
        &format!("{B8X4} x"),
        "--shape",
        "16x16",
        "--warps",
        "1",
    ]);
    expect_error(&o, &["unexpected `x` after the attribute"]);
}

#[test]
fn an_input_with_no_conversion_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.ttgir");
    std::fs::write(&empty, "").unwrap();
    let noop = dir.path().join("noop.ttgir");
    std::fs::write(
        &noop,
        "module attributes {\"ttg.num-warps\" = 4 : i32} {\n}\n",
    )
    .unwrap();
    for f in [&empty, &noop] {
        for cmd in [&["emit"][..], &["plan"], &["verify", "--cpu"]] {
            let mut args = cmd.to_vec();
            args.extend(["--ttgir", f.to_str().unwrap()]);
            let o = run(&args);
            expect_error(&o, &["no ttg.convert_layout found"]);
            assert!(o.stdout.is_empty(), "{args:?} printed something");
        }
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let f = ttgir(dir.path(), "bom.ttgir", "\u{feff}", "1", OP);
    let o = run(&["plan", "--json", "--ttgir", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&[
        "layout",
        "--attr",
        &format!("\u{feff}{B8X4}"),
        "--shape",
        "16x16",
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

// --- errors point --------------------------------------------------------

#[test]
fn errors_give_file_line_column_and_underline_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let f = ttgir(
        dir.path(),
        "alias.ttgir",
        "",
        "1",
        &OP.replace("#t>", "#nope>"),
    );
    let o = run(&["plan", "--ttgir", f.to_str().unwrap()]);
    expect_error(
        &o,
        &[
            "alias.ttgir:5:",
            "unknown attribute alias `#nope`",
            "╭─[",
            "^",
        ][..3],
    );
    let e = stderr(&o);
    let col: usize = e
        .split("alias.ttgir:5:")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|c| c.parse().ok())
        .expect("a column");
    let line = std::fs::read_to_string(&f)
        .unwrap()
        .lines()
        .nth(4)
        .unwrap()
        .to_string();
    assert_eq!(&line[col - 1..col + 4], "#nope");
    assert!(e.contains(&line), "the line is shown: {e}");
    assert!(e.contains("─┬─") || e.contains("┬"), "underlined: {e}");
}

#[test]
fn mma_v3_instr_shape_names_the_field() {
    let mma = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 48, 16]}>";
    let o = run(&["layout", "--attr", mma, "--shape", "128x128"]);
    expect_error(
        &o,
        &[
            "--attr:1:76",
            "instrShape [16, 48, 16]: N = 48 is not a power of two",
            "this `instrShape`",
        ],
    );
    assert!(!stderr(&o).contains("size of register"), "{}", stderr(&o));
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("mma.ttgir");
    std::fs::write(&f, format!("#mma = {mma}\nmodule attributes {{\"ttg.num-warps\" = 4 : i32}} {{\n  tt.func @f() {{\n    %0 = ttg.convert_layout %x : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #mma>\n  }}\n}}\n")).unwrap();
    let o = run(&["plan", "--ttgir", f.to_str().unwrap()]);
    expect_error(&o, &["mma.ttgir:1:83", "of `f:4` (line 4)", "instrShape"]);
}

#[test]
fn the_default_warps_is_named_when_it_applied() {
    // --warps not given: the warps come from the first layout that fixes
    // them (`warpsPerCTA`), and the error says so
    const B22: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
    let o = run(&["plan", "--src", B8X4, "--dst", B22, "--shape", "16x16"]);
    expect_error(
        &o,
        &[
            "--dst:1:64",
            "--warps is 1 (--warps was not given: 1 is what --src fixes)",
        ],
    );
    assert!(!stderr(&o).contains("the module"), "{}", stderr(&o));
    let o = run(&[
        "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--warps", "2",
    ]);
    expect_error(&o, &["--warps is 2"]);
    assert!(!stderr(&o).contains("default"), "{}", stderr(&o));
    // a one-warp layout needs no --warps
    let o = run(&["layout", "--attr", B8X4, "--shape", "16x16"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

// --- headers compose ------------------------------------------------------

fn emit_to_string(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn two_src_dst_emits_get_different_names_and_prefix_renames() {
    let a = emit_to_string(&[
        "emit", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--warps", "1",
    ]);
    let b = emit_to_string(&[
        "emit", "--src", B4X8T, "--dst", B8X4, "--shape", "16x16", "--warps", "1",
    ]);
    let name = |h: &str| {
        h.lines()
            .filter(|l| l.contains("(const T (&src)"))
            .find_map(|l| l.strip_prefix("__device__ __forceinline__ void "))
            .and_then(|r| r.split('(').next())
            .unwrap()
            .to_string()
    };
    assert!(name(&a).starts_with("wf_convert_"), "{}", name(&a));
    assert_ne!(name(&a), name(&b));
    let p = emit_to_string(&[
        "emit", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--warps", "1", "--name", "t16",
        "--prefix", "my_",
    ]);
    assert_eq!(name(&p), "my_t16");
    let o = run(&["emit", "--ttgir", "corpus/pairs.mlir", "--prefix", "9x"]);
    expect_error_code(&o, 2, &["cannot start a C identifier"]);
}

/// Run the C preprocessor over `text`; None when there is none.
fn preprocess(text: &str) -> Option<(bool, String)> {
    use std::io::Write;
    let mut c = Command::new("cpp")
        .arg("-P")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = c.wait_with_output().unwrap();
    Some((
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
    ))
}

#[test]
fn headers_define_shared_code_once_and_clash_clearly() {
    let a = emit_to_string(&["emit", "--ttgir", "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir"]);
    let b = emit_to_string(&[
        "emit",
        "--ttgir",
        "corpus/ttgir/attn_fp16_d64_64x64_w4_sm80.ttgir",
    ]);
    let c = emit_to_string(&[
        "emit",
        "--ttgir",
        "corpus/ttgir/attn_bf16_d64_64x64_w4_sm80.ttgir",
    ]);
    let cp = emit_to_string(&[
        "emit",
        "--ttgir",
        "corpus/ttgir/attn_bf16_d64_64x64_w4_sm80.ttgir",
        "--prefix",
        "bf16_",
    ]);
    assert!(
        a.contains("#ifndef WARPFORGE_DETAIL_H")
            && a.contains("#ifndef WARPFORGE_HELPER_wf_attn_93")
    );
    let Some((ok, out)) = preprocess(&format!("{a}{b}{a}{cp}")) else {
        eprintln!("no C preprocessor (cpp): skipped");
        return;
    };
    assert!(ok, "{out}");
    assert_eq!(out.matches("namespace detail {").count(), 1);
    assert_eq!(out.matches("void wf_attn_93(").count(), 1);
    assert_eq!(out.matches("void bf16_attn_96(").count(), 1);
    assert_eq!(out.matches("void wf_attn_96(").count(), 1);
    // same names, different helpers, no --prefix: an #error that says what to do
    let (ok, out) = preprocess(&format!("{b}{c}")).unwrap();
    assert!(!ok, "{out}");
    assert!(
        out.contains(
            "two headers define wf_attn_96 differently; emit one of them with another --prefix"
        ),
        "{out}"
    );
}

#[test]
fn helper_names_collide_across_ttgir_files_of_one_emit_get_the_file_stem() {
    let h = emit_to_string(&[
        "emit",
        "--ttgir",
        "corpus/ttgir/attn_fp16_d64_64x64_w4_sm80.ttgir",
        "corpus/ttgir/attn_bf16_d64_64x64_w4_sm80.ttgir",
        "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir",
    ]);
    assert!(
        h.contains("void wf_attn_fp16_d64_64x64_w4_sm80_attn_96("),
        "qualified"
    );
    assert!(
        h.contains("void wf_attn_bf16_d64_64x64_w4_sm80_attn_96("),
        "qualified"
    );
    assert!(h.contains("void wf_attn_93("), "no collision: kept");
}

/// Issue 47: a layout given as `@FILE` is an input like `--ttgir`: no
/// output may be it, by name, symlink or hard link, for emit and draw.
#[test]
fn at_file_layouts_are_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, B8X4).unwrap();
    std::fs::write(&b, B4X8T).unwrap();
    std::fs::hard_link(&b, dir.path().join("hard.txt")).unwrap();
    std::os::unix::fs::symlink(&a, dir.path().join("sym.txt")).unwrap();
    let (sa, sb) = (format!("@{}", a.display()), format!("@{}", b.display()));
    for out in ["b.txt", "hard.txt", "sym.txt"] {
        let o = dir.path().join(out);
        let r = run(&[
            "emit",
            "--src",
            &sa,
            "--dst",
            &sb,
            "--shape",
            "16x16",
            "--warps",
            "1",
            "-o",
            o.to_str().unwrap(),
        ]);
        expect_error(&r, &["refusing to overwrite"]);
    }
    let r = run(&[
        "draw",
        "--attr",
        &sa,
        "--shape",
        "16x16",
        "-o",
        a.to_str().unwrap(),
    ]);
    expect_error(&r, &["--attr", "refusing to overwrite"]);
    assert_eq!(std::fs::read_to_string(&a).unwrap(), B8X4);
    assert_eq!(std::fs::read_to_string(&b).unwrap(), B4X8T);
}

/// Issue 47: inputs that never end or are not text stop at once, in
/// bounded memory (the first 64 KiB chunk shows the NUL byte).
#[test]
fn endless_and_binary_inputs_stop_at_once() {
    for args in [
        vec!["plan", "--ttgir", "/dev/zero"],
        vec!["plan", "--ttgir", "/dev/urandom"],
        vec!["plan", "--src", "@/dev/zero", "--dst", B4X8T],
        vec!["layout", "--smem", "@/dev/zero"],
    ] {
        let t0 = std::time::Instant::now();
        let o = run(&args);
        expect_error(&o, &["not text (a NUL byte at offset"]);
        assert!(t0.elapsed().as_secs_f64() < 5.0, "{args:?}");
    }
}

/// Issue 47: `--name` reaches the header only as an identifier part:
/// control characters, spaces, quotes and `*/` are refused, not mangled.
#[test]
fn pair_names_cannot_inject_code() {
    for name in [
        "x\n#define int float",
        "a b",
        "a-b",
        "",
        "名前",
        "x*/y",
        "q\"",
        "b\\",
    ] {
        let o = run(&[
            "emit", "--src", B8X4, "--dst", B4X8T, "--shape", "16x16", "--warps", "1", "--name",
            name,
        ]);
        expect_error(&o, &["--name", "ASCII letters, digits and `_`"]);
        assert!(o.stdout.is_empty());
    }
}

/// Issue 47: JSON bases refuse a key given twice, as attributes do.
#[test]
fn json_layouts_refuse_duplicate_keys() {
    let o = run(&[
        "layout",
        "--attr",
        r#"{"register": [[1]], "lane": [[2],[4],[8],[16],[32]], "register": [[1]], "warp": [], "shape": [64]}"#,
    ]);
    expect_error(&o, &["key `register` is given twice"]);
}

/// Issue 47: an output in a directory that does not exist is an error
/// before any work; no directory is created.
#[test]
fn outputs_create_no_directories() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a/b/c.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "corpus/pairs.mlir",
        "-o",
        out.to_str().unwrap(),
    ]);
    expect_error(&o, &["-o", "does not exist", "creates no directories"]);
    assert!(!dir.path().join("a").exists());
}

/// Issue 47: `--ttgir -` reads standard input (bounded as files are).
#[test]
fn ttgir_from_standard_input() {
    use std::io::Write;
    let mut c = bin()
        .current_dir(root())
        .args(["plan", "--ttgir", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let text = std::fs::read_to_string(root().join("corpus/pairs.mlir")).unwrap();
    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = c.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("shuffle_swap:29"));
}

/// Issue 47: command-line errors found after parsing exit 2 as clap's do
/// and name the flag; a number too large says so; a long offending text
/// is elided on the first line.
#[test]
fn usage_errors_exit_2_and_messages_stay_readable() {
    let o = run(&["plan"]);
    expect_error_code(&o, 2, &["give --ttgir FILE"]);
    let o = run(&["plan", "--src", B8X4, "--dst", B4X8T, "--shape", "-16x16"]);
    expect_error_code(&o, 2, &["--shape", "not positive"]);
    let o = run(&[
        "plan", "--src", B8X4, "--dst", B4X8T, "--dtype", "q7", "--shape", "16x16",
    ]);
    expect_error_code(&o, 2, &["--dtype", "q7"]);
    let big = B8X4.replace(
        "[1, 4], threadsPerWarp",
        "[99999999999999999999, 4], threadsPerWarp",
    );
    let o = run(&["layout", "--attr", &big, "--shape", "16x16"]);
    expect_error(&o, &["is too large"]);
    let dots = format!("ptx:{}", ".".repeat(100_000));
    let o = run(&["layout", "--attr", &dots]);
    let first = stderr(&o).lines().next().unwrap_or_default().to_string();
    assert!(
        first.chars().count() < 400 && first.contains("characters left out"),
        "{first}"
    );
}

/// Issue 47: a TTGIR file cut short (its module's closing `}` missing) is
/// refused with the line of the brace left open, not read as if whole; the
/// same file completed is served.
#[test]
fn a_truncated_ttgir_file_is_refused_at_the_open_brace() {
    let dir = std::env::temp_dir().join(format!("wf-truncated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let seed = root().join("fuzz/seeds/ttgir-error-truncated-module.txt");
    let text = std::fs::read_to_string(&seed).unwrap();
    let cut = dir.join("cut.ttgir");
    std::fs::write(&cut, &text).unwrap();
    let o = run(&["plan", "--ttgir", cut.to_str().unwrap()]);
    expect_error(&o, &["cut.ttgir:3:", "never closed", "truncated"]);
    let whole = dir.join("whole.ttgir");
    std::fs::write(&whole, format!("{text}}}\n")).unwrap();
    let o = run(&["plan", "--ttgir", whole.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 47: a dimension over 2^30 is blamed on the shape that gives it
/// (`--shape` or the TTGIR tensor type), not on a layout's bit count.
#[test]
fn a_dimension_over_2_pow_30_names_the_shape() {
    let o = run(&[
        "plan",
        "--src",
        B8X4,
        "--dst",
        B4X8T,
        "--shape",
        "1x2147483648",
        "--dtype",
        "f16",
    ]);
    expect_error_code(&o, 2, &["--shape", "2147483648", "over 2^30"]);
    assert!(!stderr(&o).contains("at most 64"), "{}", stderr(&o));
    let dir = std::env::temp_dir().join(format!("wf-bigdim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = ttgir(
        &dir,
        "big.ttgir",
        "",
        "1",
        &format!("%0 = ttg.convert_layout %x : tensor<2147483648x16xf16, {B8X4}> -> tensor<2147483648x16xf16, {B4X8T}>"),
    );
    let o = run(&["plan", "--ttgir", f.to_str().unwrap()]);
    expect_error(&o, &["2147483648", "over 2^30"]);
}

/// Issue 47: an error at a multi-byte character points at the whole
/// character, with its column counted in characters, and quotes it intact.
#[test]
fn an_error_at_a_wide_character_names_its_column_in_characters() {
    let dir = std::env::temp_dir().join(format!("wf-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("wide.ttgir");
    std::fs::write(
        &f,
        "#b = #ttg.blocked<{sizePerThread = [\u{ff11}, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>\nmodule attributes {\"ttg.num-warps\" = 1 : i32} {\n  tt.func @f() {\n    %0 = ttg.convert_layout %x : tensor<16x16xf16, #b> -> tensor<16x16xf16, #b>\n  }\n}\n",
    )
    .unwrap();
    let o = run(&["plan", "--ttgir", f.to_str().unwrap()]);
    expect_error(&o, &["wide.ttgir:1:37:", "`\u{ff11}, 4]"]);
    assert!(!stderr(&o).contains('\u{fffd}'), "{}", stderr(&o));
}

/// Issue 47: text a user controls reaches a header only inside comments,
/// string literals and identifier parts: file paths holding a newline, a
/// quote, a backslash, `*/` and a would-be `#define`, two files of one
/// stem (helper names from the paths) and a refused conversion (its reason,
/// quoting the path, in a `static_assert` string).
#[test]
fn user_text_reaches_a_header_only_in_comments_strings_and_identifiers() {
    let base = std::env::temp_dir().join(format!("wf-inject-{}", std::process::id()));
    let amd = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 8], isTransposed = true}>";
    let mut files = Vec::new();
    for side in ["a", "b"] {
        let dir = base.join(format!("{side}*/\"q\\b\n#define int float"));
        std::fs::create_dir_all(&dir).unwrap();
        let f = ttgir(
            &dir,
            "k.ttgir",
            "",
            "1",
            &format!("{OP}\n    %1 = ttg.convert_layout %x : tensor<16x16xi32, #b> -> tensor<16x16xi32, {amd}>"),
        );
        files.push(f.to_str().unwrap().to_string());
    }
    let out = base.join("h.cuh");
    let mut args = vec!["emit", "--ttgir"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["-o", out.to_str().unwrap()]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o)); // the AMD ones are refused
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(h.contains("int float"), "the paths are named: {h}");
    for l in h.lines() {
        let t = l.trim_start();
        assert!(!t.starts_with("#define int"), "live code from a path: {l}");
        if l.contains("int float") && !t.starts_with("//") {
            // only inside a string literal, its quotes and backslashes escaped
            let lit = &l[l
                .find('"')
                .unwrap_or_else(|| panic!("outside a string: {l}"))..];
            assert!(lit.contains("\\\"q\\\\b"), "{l}");
        }
    }
    for w in h.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if w.starts_with("wf_") {
            assert!(
                w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
                "{w}"
            );
        }
    }
    assert!(h.contains("void wf__"), "helper names from the paths: {h}");
}

/// Each error names the flag or field the user wrote: a negative number is
/// the flag's invalid value (not "unexpected argument"), a dot operand index
/// other than 0/1 is refused at its position, a missing `@FILE` says why
/// once, and a bad cost model names `--cost-model`.
#[test]
fn errors_name_the_flag_or_field() {
    let pair = |extra: &[&str]| -> Output {
        let mut a = vec!["plan", "--src", B8X4, "--dst", B4X8T, "--shape", "32x16"];
        a.extend_from_slice(extra);
        run(&a)
    };
    for (flag, v) in [
        ("--warps", "-4"),
        ("--max-smem", "-1"),
        ("--sm", "-90"),
        ("--max-registers", "-64"),
        ("--ctas", "-2"),
    ] {
        let o = pair(&[flag, v]);
        expect_error_code(&o, 2, &[&format!("invalid value '{v}' for '{flag}")]);
        assert!(
            !stderr(&o).contains("unexpected argument"),
            "{}",
            stderr(&o)
        );
    }
    let dot = "#ttg.dot_op<{opIdx = 2, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>}>";
    let o = run(&["plan", "--src", B8X4, "--dst", dot, "--shape", "32x16"]);
    expect_error(
        &o,
        &["--dst:1:14:", "opIdx = 2: a dot operand is 0 (A) or 1 (B)"],
    );
    let o = run(&[
        "plan",
        "--src",
        B8X4,
        "--dst",
        "@/no/such/layout.txt",
        "--shape",
        "32x16",
    ]);
    expect_error(&o, &["--dst: @/no/such/layout.txt: cannot read: "]);
    assert_eq!(
        stderr(&o).matches("cannot read").count(),
        1,
        "{}",
        stderr(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.json");
    std::fs::write(&model, "{\"a\": 1}").unwrap();
    let o = pair(&["--cost-model", model.to_str().unwrap()]);
    expect_error(
        &o,
        &[&format!(
            "--cost-model {}: not a cost model",
            model.display()
        )],
    );
}

/// `--measured FILE` is an input: a bad row is an error naming the file and
/// line, rows without conversion keys are refused, `/dev/zero` stops at
/// once, and no output may be the rows file; rows of other conversions
/// change no plan.
#[test]
fn measured_rows_are_checked_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.jsonl");
    // `cmd` on the test conversion with `--measured rows` and `extra`
    let with_rows = |cmd: &str, rows: &str, extra: &[&str]| {
        let mut a = vec![
            cmd,
            "--src",
            B8X4,
            "--dst",
            B4X8T,
            "--shape",
            "32x16",
            "--measured",
            rows,
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    let plan = |rows: &str| with_rows("plan", rows, &[]);
    std::fs::write(
        &rows,
        "\n{\"name\": \"f:1\", \"bwd\": \"x\", \"candidates\": []}\n[1, 2]\n",
    )
    .unwrap();
    let r = plan(rows.to_str().unwrap());
    expect_error(
        &r,
        &[&format!(
            "--measured {}:3: not a `warpforge bench --json` row",
            rows.display()
        )],
    );
    std::fs::write(
        &rows,
        "{\"name\": \"f:1\", \"bwd\": \"x\", \"candidates\": []}\n",
    )
    .unwrap();
    expect_error(
        &plan(rows.to_str().unwrap()),
        &[
            "none of its 1 row(s) carries a conversion `key`",
            "run `warpforge bench --json FILE` again",
        ],
    );
    expect_error(
        &plan("/dev/zero"),
        &["--measured", "not text (a NUL byte at offset"],
    );
    // plan with `rows` (text): its standard output, after checking that it
    // succeeded and that the note says how many conversions matched
    let plan_ok = |path: &std::path::Path, text: &str, matched: usize| -> String {
        std::fs::write(path, text).unwrap();
        let r = plan(path.to_str().unwrap());
        assert!(r.status.success(), "{}", stderr(&r));
        let note = format!("{matched} of the 1 conversion(s) planned here (sm_90) have rows");
        assert!(stderr(&r).contains(&note), "{}", stderr(&r));
        String::from_utf8_lossy(&r.stdout).into_owned()
    };
    let other = "{\"name\": \"f:1\", \"key\": \"0123456789abcdef\", \"bwd\": \"shared/v4\", \"candidates\": [{\"strategy\": \"shared/v4\", \"fingerprint\": \"00000000000000aa\", \"ns\": 1.0}]}\n";
    let out = plan_ok(&rows, other, 0);
    assert!(
        !out.contains("measured:"),
        "rows of another conversion: {out}"
    );
    // a row of this conversion (its key and the model's fingerprint, as
    // `plan --json` gives them) is read and matched
    let j = run(&[
        "plan", "--src", B8X4, "--dst", B4X8T, "--shape", "32x16", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    let (key, fp, st) = (
        v["key"].as_str().unwrap(),
        v["fingerprint"].as_str().unwrap(),
        v["strategy"].as_str().unwrap(),
    );
    let own = serde_json::json!({"name": "x:1", "key": key, "bwd": st,
        "candidates": [{"strategy": st, "fingerprint": fp, "ns": 5.0}]});
    let out = plan_ok(&dir.path().join("own.jsonl"), &format!("{own}\n"), 1);
    assert!(
        out.contains("measured: the cost model's choice kept"),
        "{out}"
    );
    std::fs::write(&rows, other).unwrap();
    let out = rows.to_str().unwrap();
    let r = with_rows("emit", out, &["-o", out]);
    expect_error(&r, &["--measured", "refusing to overwrite"]);
    assert_eq!(std::fs::read_to_string(&rows).unwrap(), other);
}
