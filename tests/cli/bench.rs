//! `warpforge bench` without a GPU.

use crate::common::*;

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

/// `--compile-only` times nothing, so it has no rows to write: asking for
/// them is an error before anything compiles.
#[test]
fn compile_only_refuses_outputs_it_cannot_write() {
    let json = tempfile_dir().join("never.jsonl");
    expect_error(
        &[
            "bench",
            "--ttgir",
            "corpus/pairs.mlir",
            "--compile-only",
            "--json",
            json.to_str().unwrap(),
        ],
        &["--compile-only times nothing"],
    );
    assert!(!json.exists());
}

/// `--json FILE` also writes `FILE.partial` while timing: where that path
/// is one of the inputs, `bench` refuses before anything runs, and the
/// input is left as it was.
#[test]
fn the_partial_rows_file_never_overwrites_an_input() {
    let dir = tempfile_dir().join("partial-is-input");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("rows.jsonl.partial");
    let text = std::fs::read_to_string("corpus/pairs.mlir").unwrap();
    std::fs::write(&input, &text).unwrap();
    let json = dir.join("rows.jsonl");
    expect_error(
        &[
            "bench",
            "--ttgir",
            input.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
        &["rows as timed (FILE.partial)", "refusing to overwrite it"],
    );
    assert_eq!(std::fs::read_to_string(&input).unwrap(), text);
    assert!(!json.exists());
}
