//! Records the git commit the binary was built from (`WARPFORGE_COMMIT`),
//! which `warpforge bench` writes into its results.
use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = match git(&["rev-parse", "--short=7", "HEAD"]) {
        Some(c) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c}-dirty")
            } else {
                c
            }
        }
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=WARPFORGE_COMMIT={commit}");
    // HEAD and the branch it names (a commit moves them), not .git/index
    // (which any `git status` rewrites: that relinked the binary for
    // nothing); the sources too, so that an edited tree is stamped `-dirty`
    if let Ok(head) = std::fs::read_to_string(".git/HEAD") {
        if let Some(r) = head.trim().strip_prefix("ref: ") {
            for p in [format!(".git/{r}"), ".git/packed-refs".to_string()] {
                if std::path::Path::new(&p).exists() {
                    println!("cargo:rerun-if-changed={p}");
                }
            }
        }
    }
    for p in [
        ".git/HEAD",
        "src",
        "synth/src",
        "kernels/src",
        "kernels/templates",
        "verify/src",
        "bench/src",
        "draw/src",
        "pipeline/src",
    ] {
        if std::path::Path::new(p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}
