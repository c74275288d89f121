//! Triton's own lowering of the same conversions, in the same loop shape
//! (`python/triton_peer.py`, shipped inside the binary): Gluon kernels with
//! `DistributedLinearLayout`s built from the same bases, compiled and checked
//! by the Python given with `--python` (needs Triton >= 3.6 with Gluon,
//! PyTorch). By default ([`TritonTiming::Interleaved`]) the Python only
//! compiles and checks, and its loop cubin comes back as a [`TritonKernel`]
//! that [`crate::gpu::time_case`] launches itself, interleaved with
//! warpforge's candidates on the same input; [`TritonTiming::Python`] times
//! it in the Python process instead (the earlier harness, kept for
//! comparison). Triton aborts on layouts it rejects; the script is then
//! restarted after that case, which is reported as crashed. SASS is counted
//! from Triton's cubins with the same counter as warpforge's
//! (`verify::count_sass`).

use crate::cases::BenchCase;
use crate::gpu::TimingOptions;
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use verify::SassCounts;

const SCRIPT: &str = include_str!("../python/triton_peer.py");

/// Where Triton's loop kernel is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TritonTiming {
    /// Launched by warpforge from Triton's cubin, in the same process and
    /// stream as the candidates, on the same input, in the same rounds.
    Interleaved,
    /// Timed by the Python process with PyTorch's CUDA events, after all of
    /// warpforge's candidates (the harness before the interleaved one).
    Python,
}

/// Triton's loop kernel, ready to launch from its cubin: `(x, y, iters)`
/// followed by `hidden_ptrs` pointer parameters that Triton appends (global
/// and profile scratch, passed as null: both sizes are 0).
#[derive(Clone, Debug)]
pub struct TritonKernel {
    pub cubin: Vec<u8>,
    /// Entry name in the cubin.
    pub name: String,
    /// Dynamic shared memory, bytes.
    pub shared: u32,
    pub warps: u32,
    pub hidden_ptrs: usize,
    /// CTAs per cluster (`num_ctas`; 1 for a kernel of one CTA).
    pub ctas: u32,
}

impl TritonKernel {
    /// The launch of a result line's `loop_launch` (see `triton_peer.py`),
    /// or why warpforge cannot launch it: a parameter list other than
    /// `(u64, u64, u32, u64...)`, a hidden scratch buffer it would have to
    /// allocate, or a missing cubin.
    fn of(v: &Value, warps: u32) -> Result<TritonKernel, String> {
        let l = &v["loop_launch"];
        let name = l["name"].as_str().unwrap_or_default().to_string();
        let params: Vec<&str> = l["params"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if name.is_empty() || params.len() < 3 || params[..3] != ["u64", "u64", "u32"] {
            return Err(format!(
                "Triton's loop kernel `{name}` has parameters {params:?}, not (x, y, iters, ...)"
            ));
        }
        if params[3..].iter().any(|p| *p != "u64") {
            return Err(format!(
                "Triton's loop kernel `{name}` has hidden parameters {:?}, not pointers",
                &params[3..]
            ));
        }
        for k in ["global_scratch_size", "profile_scratch_size"] {
            if l[k].as_i64().unwrap_or(0) != 0 {
                return Err(format!(
                    "Triton's loop kernel `{name}` needs {k} = {} bytes",
                    l[k]
                ));
            }
        }
        if l["num_warps"].as_u64() != Some(warps as u64) {
            return Err(format!(
                "Triton's loop kernel `{name}` has {} warps, the case {warps}",
                l["num_warps"]
            ));
        }
        let path = v["loop_cubin"].as_str().unwrap_or_default();
        let cubin = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        Ok(TritonKernel {
            cubin,
            name,
            shared: l["shared"].as_u64().unwrap_or(0) as u32,
            warps,
            hidden_ptrs: params.len() - 3,
            ctas: l["num_ctas"].as_u64().unwrap_or(1) as u32,
        })
    }
}

/// Triton's result for one conversion.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TritonResult {
    /// Median launch time, ms; `ns` per round trip (`ms * 1e6 / iters`).
    /// NaN until timed (interleaved timing fills them in).
    pub ms: f64,
    pub ns: f64,
    pub timing: TritonTiming,
    pub registers: i64,
    pub smem_bytes: i64,
    /// SASS of the timing loop kernel, and of a single conversion (`once`).
    pub sass: Option<SassCounts>,
    pub sass_once: Option<SassCounts>,
    /// The loop kernel to launch (interleaved timing), or why it cannot be.
    #[serde(skip)]
    pub launch: Result<TritonKernel, String>,
}

impl TritonResult {
    /// The loop kernel to put in the case's timing rounds, when it can be
    /// launched from here.
    pub fn kernel(&self) -> Option<&TritonKernel> {
        self.launch.as_ref().ok()
    }
}

/// Record the interleaved timing of a case's Triton kernel in its result:
/// the time when it ran and its output was right, else why there is none
/// (it failed here, it cannot be launched here, or the case's own module
/// did not compile, so nothing was timed). A result that is already an
/// error stays as it is.
pub fn record_interleaved(
    r: &mut Result<TritonResult, String>,
    timed: Option<anyhow::Result<crate::gpu::Measured>>,
    case: &str,
) {
    let Ok(tr) = r else { return };
    let why = match (timed, &tr.launch) {
        (Some(Ok(x)), _) => {
            tr.ms = x.ms;
            tr.ns = x.ns;
            return;
        }
        (Some(Err(e)), _) => format!("Triton's loop kernel, launched here: {e:#}"),
        (None, Err(why)) => format!("cannot time Triton's loop kernel here: {why}"),
        (None, Ok(_)) => format!("not timed: {case}'s module did not compile"),
    };
    *r = Err(why);
}

/// Per case id: Triton's result or why there is none.
pub type TritonResults = BTreeMap<String, Result<TritonResult, String>>;

fn bases(l: &synth::LinearLayout) -> Value {
    json!({
        "register": l.bases("register"),
        "lane": l.bases("lane"),
        "warp": l.bases("warp"),
        "block": l.bases("block"),
    })
}

/// What Triton printed on standard error for case `id` before the process
/// died (`triton_peer.py` keeps it in `DIR/ID.stderr` while the case runs):
/// its first MLIR `error:` line, else its last line. `None` without one.
fn crash_diagnostic(dir: &Path, id: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(format!("{id}.stderr"))).ok()?;
    let line = text
        .lines()
        .find_map(|l| l.split_once("error:").map(|(_, e)| e.trim()))
        .or_else(|| text.lines().rev().find(|l| !l.trim().is_empty()))?;
    Some(line.chars().take(300).collect())
}

fn sass_file(path: &str) -> Option<SassCounts> {
    let bytes = std::fs::read(path).ok()?;
    let (_, m) = verify::sass_of(&bytes)?;
    m.into_values().next()
}

/// Run Triton's side for every case: compile and check both kernels, and
/// with [`TritonTiming::Python`] time the loop there. `Err` when the Python
/// cannot run Triton at all (the caller reports the Triton column as
/// missing). With `keep`, Triton's cubins of each case are copied there as
/// `<id>_triton_{loop,once}.cubin`, with their SASS beside them (`.sass`).
pub fn run_triton(
    python: &Path,
    cases: &[BenchCase],
    t: &TimingOptions,
    timing: TritonTiming,
    ctas: u32,
    keep: Option<&Path>,
    tick: &dyn Fn(),
) -> Result<(String, TritonResults)> {
    let dir = tempfile::Builder::new()
        .prefix("warpforge-triton-")
        .tempdir()?;
    let script = dir.path().join("triton_peer.py");
    std::fs::write(&script, SCRIPT)?;
    let list: Vec<Value> = cases
        .iter()
        .map(|c| {
            json!({"id": c.id, "shape": c.conv.shape, "warps": c.conv.num_warps, "bits": c.bits,
                   "ctas": c.ctas, "src": bases(&c.conv.src), "dst": bases(&c.conv.dst)})
        })
        .collect();
    let cases_path = dir.path().join("cases.json");
    std::fs::write(&cases_path, serde_json::to_string(&list)?)?;
    let mut got: TritonResults = BTreeMap::new();
    let mut version = String::new();
    let mut start = 0usize;
    while start < cases.len() {
        let out = Command::new(python)
            .arg(&script)
            .arg(&cases_path)
            .args([
                start.to_string(),
                t.iters.to_string(),
                match timing {
                    TritonTiming::Python => t.runs.to_string(),
                    TritonTiming::Interleaved => "0".to_string(),
                },
                ctas.to_string(),
            ])
            .arg(dir.path())
            .output()
            .with_context(|| format!("--python {}: cannot run", python.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let mut lines = 0;
        for line in stdout.lines().filter(|l| l.starts_with('{')) {
            let v: Value = serde_json::from_str(line)?;
            if let Some(ver) = v.get("triton_version").and_then(Value::as_str) {
                version = ver.to_string();
                continue;
            }
            lines += 1;
            let id = v["id"].as_str().unwrap_or_default().to_string();
            if let Some(k) = keep {
                crate::keep::triton_cubins(k, &id, &v)?;
            }
            let r = if let Some(e) = v.get("error").and_then(Value::as_str) {
                Err(e.to_string())
            } else if v["once_ok"] != json!(true) || v["loop_ok"] != json!(true) {
                Err(format!(
                    "Triton's output is wrong (once {}, loop {})",
                    v["once_ok"], v["loop_ok"]
                ))
            } else {
                let ms = v["ms"].as_f64().unwrap_or(f64::NAN);
                let warps = cases
                    .iter()
                    .find(|c| c.id == id)
                    .map_or(0, |c| c.conv.num_warps);
                Ok(TritonResult {
                    ms,
                    ns: ms * 1e6 / t.iters as f64,
                    timing,
                    launch: TritonKernel::of(&v, warps),
                    registers: v["registers"].as_i64().unwrap_or(0),
                    smem_bytes: v["smem_bytes"].as_i64().unwrap_or(0),
                    sass: v["loop_cubin"].as_str().and_then(sass_file),
                    sass_once: v["once_cubin"].as_str().and_then(sass_file),
                })
            };
            got.insert(id, r);
            tick();
        }
        if version.is_empty() {
            let tail: String = stderr.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
            bail!("{} cannot run Triton's Gluon: {tail}", python.display());
        }
        start += lines;
        if start < cases.len() && !out.status.success() {
            let id = &cases[start].id;
            let tail = crash_diagnostic(dir.path(), id)
                .unwrap_or_else(|| stderr.lines().rev().take(2).collect::<Vec<_>>().join(" | "));
            got.insert(
                id.clone(),
                Err(format!("Triton crashed ({}): {tail}", out.status)),
            );
            tick();
            start += 1;
        } else if start < cases.len() && lines == 0 {
            bail!("{} stopped without output", python.display());
        }
    }
    Ok((version, got))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(launch: Result<TritonKernel, String>) -> Result<TritonResult, String> {
        Ok(TritonResult {
            ms: f64::NAN,
            ns: f64::NAN,
            timing: TritonTiming::Interleaved,
            registers: 47,
            smem_bytes: 16384,
            sass: None,
            sass_once: None,
            launch,
        })
    }

    fn kernel() -> TritonKernel {
        TritonKernel {
            cubin: vec![],
            name: "loop".into(),
            shared: 16384,
            warps: 4,
            hidden_ptrs: 2,
            ctas: 1,
        }
    }

    #[test]
    fn interleaved_times_fill_in_or_say_why_not() {
        let measured = crate::gpu::Measured {
            ms: 2.0,
            ns: 2000.0,
            registers: 47,
            sass: None,
        };
        let mut r = result(Ok(kernel()));
        record_interleaved(&mut r, Some(Ok(measured)), "c0");
        let tr = r.unwrap();
        assert_eq!((tr.ms, tr.ns), (2.0, 2000.0));

        let mut r = result(Ok(kernel()));
        record_interleaved(&mut r, Some(Err(anyhow::anyhow!("output wrong"))), "c0");
        assert!(r.unwrap_err().contains("launched here: output wrong"));

        let mut r = result(Err("needs global_scratch_size = 64 bytes".into()));
        record_interleaved(&mut r, None, "c0");
        assert!(r.unwrap_err().contains("cannot time"));

        let mut r = result(Ok(kernel()));
        record_interleaved(&mut r, None, "c3");
        assert!(r.unwrap_err().contains("c3's module did not compile"));

        let mut r: Result<TritonResult, String> = Err("Triton crashed".into());
        record_interleaved(&mut r, None, "c0");
        assert_eq!(r.unwrap_err(), "Triton crashed");
    }

    #[test]
    fn a_crash_is_named_by_the_diagnostic_the_case_left() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("c3.stderr"),
            "noise\n/x/peer.py:11:31: error: failed to legalize operation 'ttg.convert_layout' that was explicitly marked illegal\n#linear = ...\n",
        )
        .unwrap();
        assert_eq!(
            crash_diagnostic(d.path(), "c3").as_deref(),
            Some("failed to legalize operation 'ttg.convert_layout' that was explicitly marked illegal")
        );
        std::fs::write(d.path().join("c4.stderr"), "LLVM ERROR: bad thing\n\n").unwrap();
        assert_eq!(
            crash_diagnostic(d.path(), "c4").as_deref(),
            Some("LLVM ERROR: bad thing")
        );
        assert_eq!(crash_diagnostic(d.path(), "c5"), None);
    }

    #[test]
    fn a_loop_kernel_with_an_unexpected_signature_is_not_launched() {
        let line = |params: Value, scratch: i64| {
            json!({"loop_cubin": "/nonexistent/loop.cubin", "loop_launch": {
                "name": "loop", "shared": 0, "num_warps": 4, "params": params,
                "global_scratch_size": scratch, "profile_scratch_size": 0}})
        };
        let e = TritonKernel::of(&line(json!(["u64", "u32"]), 0), 4).unwrap_err();
        assert!(e.contains("not (x, y, iters"), "{e}");
        let e = TritonKernel::of(&line(json!(["u64", "u64", "u32", "f32"]), 0), 4).unwrap_err();
        assert!(e.contains("not pointers"), "{e}");
        let e = TritonKernel::of(&line(json!(["u64", "u64", "u32", "u64"]), 64), 4).unwrap_err();
        assert!(e.contains("global_scratch_size"), "{e}");
        let e = TritonKernel::of(&line(json!(["u64", "u64", "u32", "u64"]), 0), 8).unwrap_err();
        assert!(e.contains("4 warps, the case 8"), "{e}");
        let e =
            TritonKernel::of(&line(json!(["u64", "u64", "u32", "u64", "u64"]), 0), 4).unwrap_err();
        assert!(e.contains("/nonexistent/loop.cubin"), "{e}");
    }
}
