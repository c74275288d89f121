//! What every module uses: the binary run from the repository root, its
//! output as text, the errors it must give, and layouts several modules
//! share.

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `make check-all` (`WF_SAMPLE=1`): the long sweeps whole; `make test`
/// runs a fixed part of them.
pub fn check_all() -> bool {
    std::env::var("WF_SAMPLE").is_ok_and(|v| v.trim() == "1")
}

pub fn run(args: &[&str]) -> Output {
    bin()
        .current_dir(root())
        .args(args)
        .output()
        .expect("warpforge runs")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub const B8X4: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>";
pub const B4X8T: &str = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]}>";

pub fn tempfile_dir() -> std::path::PathBuf {
    // one directory per call: tests run in parallel and some check that a
    // file of a given name was NOT written
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("warpforge-cli-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn expect_error(args: &[&str], needles: &[&str]) {
    let o = run(args);
    assert!(!o.status.success(), "{args:?} should fail");
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    let e = stderr(&o);
    for n in needles {
        assert!(e.contains(n), "{args:?}: `{n}` not in: {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
}

pub const MMA2_ATTR: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
pub const BLK_ATTR: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
pub const GL_MMA2: &str =
    "ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])";
pub const GL_BLK: &str = "ttgl.BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 2], order=[1, 0])";

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `warpforge layout` of `attr` (its toString text).
pub fn layout_of(attr: &str, shape: Option<&str>, warps: Option<&str>) -> String {
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
pub fn bases_spellings(to_string: &str) -> Vec<String> {
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
