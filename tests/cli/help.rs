//! `--help` and docs/CLI.md agree.

use crate::common::*;

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
