//! `warpforge bench` (every candidate plan and Triton's lowering, timed on
//! the GPU in one loop shape) and `warpforge fit` (the cost model fitted to
//! those timings). The work is in the `bench` crate; this is argument
//! handling, progress and output.

use super::output::{check_outputs, write_file, Stdout};
use super::{load, note, weights_of, Source};
use anyhow::{anyhow, bail, Context, Result};
use bench::cases::{build_cases, CaseOptions};
use bench::gpu::{compile_all, time_case, Gpu, TimingOptions};
use bench::report::{self, Row};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;
use synth::plan::{Conversion, SharedOptions};
use synth::search::CostModel;

/// Arguments of `warpforge bench`.
#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    source: Source,
    /// Most shared-memory scratch a helper may use, in bytes.
    #[arg(long, value_name = "BYTES")]
    max_smem: Option<u64>,
    /// Cost-model file that ranks (and prunes) candidates; default built-in.
    #[arg(long, value_name = "FILE")]
    cost_model: Option<PathBuf>,
    /// Round trips per launch.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    iters: u32,
    /// Timed launches per kernel (the median is reported).
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=1000))]
    runs: u64,
    /// CTAs per SM in the grid.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    ctas_per_sm: u32,
    /// Shared-memory candidates timed per conversion (best scores first;
    /// shuffle candidates are all timed).
    #[arg(long, default_value_t = synth::search::SHARED_CANDIDATES_PROVEN)]
    shared_candidates: usize,
    /// Python with Triton >= 3.6 (Gluon) and PyTorch, for Triton's column.
    #[arg(long, default_value = "python3")]
    python: PathBuf,
    /// Time only warpforge's candidates.
    #[arg(long)]
    no_triton: bool,
    /// Where Triton's loop kernel is timed: `interleaved` launches its
    /// cubin here, in the same rounds as the candidates on the same input;
    /// `python` times it in the Python process after all candidates (the
    /// earlier harness, for comparison).
    #[arg(long, value_enum, default_value = "interleaved")]
    triton_timing: bench::triton::TritonTiming,
    /// Write one JSON object per conversion here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the markdown report here.
    #[arg(long, value_name = "FILE")]
    md: Option<PathBuf>,
    /// Write the SVG chart here.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Keep what was timed in this directory (created if missing): per
    /// conversion `<id>.cu` (the NVRTC source: header and one timing kernel
    /// per candidate), `<id>.cubin` and `<id>.sass`, Triton's
    /// `<id>_triton_{loop,once}.{cubin,sass}`, and `index.json` naming each
    /// id's file, conversion and candidate kernels. For reading the SASS of
    /// both sides of a ratio.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

/// Arguments of `warpforge fit`.
#[derive(Args)]
pub struct FitArgs {
    /// Rows written by `warpforge bench --json`.
    #[arg(long, value_name = "FILE")]
    from: PathBuf,
    /// Write the fitted cost model here.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// The model to start from and compare with (default: built-in).
    #[arg(long, value_name = "FILE")]
    prior: Option<PathBuf>,
    /// The GPU the timings are from, as the model file should name it.
    #[arg(long, default_value = "unknown GPU")]
    gpu: String,
    /// Also write the whole fit report (with every candidate's residual) here.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
}

fn bar(n: usize, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(n as u64);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}

/// Today's date (UTC) as YYYY-MM-DD (civil-from-days, H. Hinnant).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let z = secs.div_euclid(86400) + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

pub fn bench(a: BenchArgs) -> Result<i32> {
    let loaded = load(&a.source)?;
    let outs: Vec<(&str, &Path)> = [("--json", &a.json), ("--md", &a.md), ("--svg", &a.svg)]
        .into_iter()
        .filter_map(|(f, p)| p.as_deref().map(|p| (f, p)))
        .collect();
    let mut ins: Vec<(&str, &Path)> = loaded
        .paths
        .iter()
        .map(|p| ("--ttgir", p.as_path()))
        .collect();
    if let Some(c) = &a.cost_model {
        ins.push(("--cost-model", c));
    }
    check_outputs(&outs, &ins)?;
    let info = verify::probe_gpu().map_err(|e| anyhow!("warpforge bench needs a GPU: {e}"))?;
    if let Some(d) = &a.keep {
        if d.exists() && !d.is_dir() {
            bail!("--keep {}: exists and is not a directory", d.display());
        }
        std::fs::create_dir_all(d)
            .with_context(|| format!("--keep {}: cannot create the directory", d.display()))?;
    }
    let weights = weights_of(&a.cost_model)?;
    let sm = (info.sm.0 * 10 + info.sm.1) as u32;
    let mut convs = Vec::new();
    let mut errors = Vec::new();
    for (file, op) in loaded.ops.iter().cloned() {
        match Conversion::from_op(&op) {
            Ok(c) => convs.push((file, c)),
            Err(e) => errors.push(format!(
                "{file}:{}: {}",
                op.line,
                loaded.in_user_terms(&e.to_string())
            )),
        }
    }
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    let opt = CaseOptions {
        weights,
        shared: SharedOptions {
            sm,
            max_smem: a.max_smem,
            ..SharedOptions::default()
        },
        shared_limit: a.shared_candidates,
    };
    let (cases, skipped) = build_cases(&convs, &opt)?;
    for s in &skipped {
        note!("warpforge: {}: {}: not timed: {}", s.file, s.name, s.reason);
    }
    if cases.is_empty() {
        bail!("nothing to time: no conversion of the input moves data");
    }
    let t = TimingOptions {
        iters: a.iters,
        runs: a.runs as usize,
        ctas_per_sm: a.ctas_per_sm,
    };
    let gpu = Gpu::open()?;
    let pb = bar(cases.len(), "compile");
    let compiled = compile_all(&cases, info.sm, &|| pb.inc(1));
    pb.finish();
    if let Some(d) = &a.keep {
        bench::keep::cases(d, &cases, &compiled)?;
        note!("warpforge: keeping what is timed in {}", d.display());
    }
    let mut triton_version = "not run (--no-triton)".to_string();
    let mut triton = if a.no_triton {
        None
    } else {
        let pb = bar(cases.len(), "triton");
        let r = bench::triton::run_triton(
            &a.python,
            &cases,
            &t,
            a.triton_timing,
            gpu.sms * t.ctas_per_sm,
            a.keep.as_deref(),
            &|| pb.inc(1),
        );
        pb.finish();
        match r {
            Ok((v, res)) => {
                triton_version = format!("Triton {v}");
                Some(res)
            }
            Err(e) => {
                note!("warpforge: the Triton column is missing: {e:#}");
                triton_version = format!("missing: {e:#}");
                None
            }
        }
    };
    let interleaved = a.triton_timing == bench::triton::TritonTiming::Interleaved;
    let n_cand: usize = cases.iter().map(|c| c.candidates.len()).sum();
    let pb = bar(n_cand, "timing");
    let mut measured = Vec::new();
    let mut failures = Vec::new();
    for (c, m) in cases.iter().zip(&compiled) {
        // Triton's kernel joins the case's rounds when it compiled, passed
        // its checks and can be launched from here
        let tri = triton.as_mut().and_then(|t| t.get_mut(&c.id));
        let tk = match (&tri, interleaved) {
            (Some(Ok(tr)), true) => tr.kernel().cloned(),
            _ => None,
        };
        let (r, tm): (Vec<Result<bench::gpu::Measured, String>>, _) = match m {
            Ok(m) => {
                let (r, tm) = time_case(&gpu, c, m, &t, tk.as_ref())?;
                (
                    r.into_iter()
                        .map(|r| r.map_err(|e| format!("{e:#}")))
                        .collect(),
                    tm,
                )
            }
            Err(e) => (
                c.candidates.iter().map(|_| Err(format!("{e:#}"))).collect(),
                None,
            ),
        };
        if let (Some(slot), true) = (tri, interleaved) {
            bench::triton::record_interleaved(slot, tm, &c.id);
        }
        failures.extend(r.iter().filter_map(|x| x.as_ref().err().cloned()));
        pb.inc(c.candidates.len() as u64);
        measured.push(r);
    }
    pb.finish();
    let rows: Vec<Row> = cases
        .iter()
        .zip(&measured)
        .map(|(c, m)| report::row(c, m, triton.as_ref().and_then(|t| t.get(&c.id))))
        .collect();
    let command: Vec<String> = std::env::args().collect();
    let preamble = format!(
        "# warpforge vs Triton: every candidate plan, one harness\n\n\
         - command: `{}`\n- GPU: {} (sm_{}{}), {} SMs, CUDA driver {}, NVRTC {}.{}; {}\n\
         - date: {}; warpforge {} (commit {})\n\
         - loop: {} CTAs ({} per SM) x {} round trips `A -> B`, xor 1, `B -> A` per launch; \
         median of {} launches after 2 warm-ups, enqueued back to back between CUDA events; \
         every output checked. {} A candidate's round trip pairs it (forward) with the chosen plan of the \
         reverse conversion; Triton lowers both directions itself. Shared-memory helpers share one scratch \
         region with a `__syncthreads()` before each call that uses it, as Triton's barrier insertion does. \
         8- and 16-bit data moves in the helpers' packed form (32-bit words in registers, as Triton \
         holds it), unless a helper has none (form `elements`).\n",
        command.join(" "),
        info.name,
        info.sm.0,
        info.sm.1,
        gpu.sms,
        info.driver_version,
        info.nvrtc_version.0,
        info.nvrtc_version.1,
        triton_version,
        today(),
        env!("CARGO_PKG_VERSION"),
        env!("WARPFORGE_COMMIT"),
        gpu.sms * t.ctas_per_sm,
        t.ctas_per_sm,
        t.iters,
        t.runs,
        if interleaved {
            "Triton's loop kernel (compiled and checked by Triton, its cubin launched here) runs in the \
             same rounds as the candidates, on the same input: each round launches every kernel once, \
             in alternating order, so a drift of clock or temperature weighs on all alike."
        } else {
            "Triton's loop kernel is timed by Triton's Python process (PyTorch CUDA events) after all \
             candidates, on its own random input."
        }
    );
    let mut out = Stdout::new();
    writeln!(out, "{}", report::summary(&rows))?;
    out.finish()?;
    if let Some(p) = &a.json {
        let text: String = rows
            .iter()
            .map(|r| serde_json::to_string(r).map(|s| s + "\n"))
            .collect::<Result<_, _>>()?;
        write_file(p, &text)?;
        note!("warpforge: wrote {} row(s) to {}", rows.len(), p.display());
    }
    if let Some(p) = &a.md {
        write_file(p, &report::markdown(&rows, &preamble))?;
        note!("warpforge: wrote {}", p.display());
    }
    if let Some(p) = &a.svg {
        let title = format!("warpforge / Triton time per conversion, {}", info.name);
        write_file(p, &report::svg(&rows, &title)?)?;
        note!("warpforge: wrote {}", p.display());
    }
    if !failures.is_empty() {
        for f in &failures {
            note!("warpforge: candidate failed: {f}");
        }
        return Ok(1);
    }
    Ok(0)
}

pub fn fit(a: FitArgs) -> Result<i32> {
    let outs: Vec<(&str, &Path)> = [("-o", Some(&a.output)), ("--report", a.report.as_ref())]
        .into_iter()
        .filter_map(|(f, p)| p.map(|p| (f, p.as_path())))
        .collect();
    let mut ins: Vec<(&str, &Path)> = vec![("--from", a.from.as_path())];
    if let Some(p) = &a.prior {
        ins.push(("--prior", p));
    }
    check_outputs(&outs, &ins)?;
    let text = std::fs::read_to_string(&a.from)
        .with_context(|| format!("--from {}: cannot read", a.from.display()))?;
    let rows: Vec<Row> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map_err(|e| anyhow!("{}:{}: not a bench row: {e}", a.from.display(), i + 1))
        })
        .collect::<Result<_>>()?;
    let prior = match &a.prior {
        Some(p) => weights_of(&Some(p.clone()))?,
        None => CostModel::builtin().weights,
    };
    let r = bench::fit::fit(&rows, &prior)?;
    let source = format!(
        "warpforge fit --from {} ({} rows), {}, warpforge commit {}",
        a.from.display(),
        rows.len(),
        today(),
        env!("WARPFORGE_COMMIT")
    );
    let m = bench::fit::model(&r, &a.gpu, &source);
    write_file(&a.output, &m.to_json())?;
    if let Some(p) = &a.report {
        write_file(p, &(serde_json::to_string_pretty(&r)? + "\n"))?;
    }
    let mut out = Stdout::new();
    writeln!(
        out,
        "least-squares weights: {}",
        serde_json::to_string(&r.weights_least_squares)?
    )?;
    writeln!(
        out,
        "refined weights (the model): {}",
        serde_json::to_string(&r.weights)?
    )?;
    writeln!(
        out,
        "regret sum ln(chosen/fastest): prior {:.3}, least squares {:.3}, refined {:.3}",
        r.regret_prior, r.regret_least_squares, r.regret
    )?;
    writeln!(
        out,
        "fit: {} samples over {} conversions, R^2 within conversions {:.3}; identified: {}",
        r.samples,
        r.conversions,
        r.r2_within,
        r.identified.join(", ")
    )?;
    for (label, s) in [
        ("prior model", &r.selection_prior),
        ("fitted, in sample", &r.selection_in_sample),
        ("fitted, leave one out", &r.selection_leave_one_out),
    ] {
        writeln!(
            out,
            "{label}: chosen within 5% of the fastest on {}/{}, within 15% on {}/{}",
            s.within_5pct, s.conversions, s.within_15pct, s.conversions
        )?;
        for m in &s.misses {
            writeln!(
                out,
                "  miss {}: chose {} ({:.1} ns), fastest {} ({:.1} ns), {:.3}x",
                m.conversion, m.chosen, m.chosen_ns, m.fastest, m.fastest_ns, m.slower_by
            )?;
        }
    }
    out.finish()?;
    note!("warpforge: wrote {}", a.output.display());
    Ok(0)
}
