//! `warpforge bench` (every candidate plan and Triton's lowering, timed on
//! the GPU in one loop shape) and `warpforge fit` (the cost model fitted to
//! those timings). The work is in the `bench` crate; this is argument
//! handling, progress and output.

use super::{check_outputs_against, Model, Source};
use crate::output::{write_file, Stdout};
use anyhow::{anyhow, bail, Context, Result};
use bench::cases::{build_cases, BenchCase, CaseOptions, Pairing};
use bench::gpu::{compile_all, time_case, Compiled, Gpu, Measured, TimingOptions};
use bench::report::{self, CaseMeasured, Row};
use bench::triton::{TritonResults, TritonTiming};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};
use synth::plan::SharedOptions;

/// Arguments of `warpforge bench`.
#[derive(Args)]
pub(crate) struct BenchArgs {
    #[command(flatten)]
    source: Source,
    /// Most shared-memory scratch a helper may use, in bytes.
    #[arg(long, allow_negative_numbers = true, value_name = "BYTES")]
    max_smem: Option<u64>,
    /// Time every candidate under a register cap: the search ranks plans
    /// over N registers (predicted peak) after those within it and charges
    /// the registers over N as `spill` (a shuffle plan's once per pass over
    /// its data), and every warpforge timing kernel
    /// is compiled with `__maxnreg__(N)` instead of its launch bounds, as a
    /// helper in a kernel that keeps registers of its own would be (N
    /// above the launch bounds' limit counts as that limit; `__maxnreg__`
    /// needs NVRTC 12.4 or later). Triton's kernel is not capped. Rows record the cap (`max_registers`); `warpforge fit` fits
    /// the `spill` weight from such rows.
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u32).range(16..=255))]
    max_registers: Option<u32>,
    /// The model that ranks (and prunes) candidates.
    #[command(flatten)]
    model: Model,
    /// Round trips per launch.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(2..=1_000_000))]
    iters: u32,
    /// Timed launches per kernel (the median is reported).
    #[arg(long, allow_negative_numbers = true, default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=1000))]
    runs: u64,
    /// CTAs per SM in the grid.
    #[arg(long, allow_negative_numbers = true, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=64))]
    ctas_per_sm: u32,
    /// Shared-memory candidates timed per conversion (best scores first;
    /// shuffle candidates are all timed).
    #[arg(long, allow_negative_numbers = true, default_value_t = synth::search::SHARED_CANDIDATES_PROVEN)]
    shared_candidates: usize,
    /// Which reverse plan each candidate's round trip returns through:
    /// `chosen` (the search's plan of the reverse conversion, for every
    /// candidate) or `same-family` (the reverse's best shuffle plan for a
    /// shuffle candidate, its best shared-memory plan for a shared one), so
    /// that a candidate is not timed overlapping a reverse of the other
    /// family on another pipe. Rows record each candidate's reverse (`bwd`).
    #[arg(long, value_enum, default_value = "chosen")]
    pair: Pairing,
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
    triton_timing: TritonTiming,
    /// Write one JSON object per conversion here, all at the end. While
    /// timing, each conversion's row is appended to FILE.partial as soon as
    /// it is timed (a run stopped early keeps those rows); that file is
    /// removed once FILE is written.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the markdown report here.
    #[arg(long, value_name = "FILE")]
    md: Option<PathBuf>,
    /// Write the SVG chart here.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Keep what was timed in this directory (created if missing): per
    /// conversion `<id>.cu` (its header and every timing kernel; NVRTC
    /// compiles each kernel with its own helpers' header alone),
    /// `<kernel>.cubin` per timing kernel and `<id>.sass`, Triton's
    /// `<id>_triton_{loop,once}.{cubin,sass}`, and `index.json` naming each
    /// id's file, conversion and candidate kernels. For reading the SASS of
    /// both sides of a ratio.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Compile every timing kernel (candidates and limit kernels) for
    /// `--sm` with NVRTC and print, per conversion, the SASS of the chosen
    /// plan's loop kernel beside each limit kernel's; no GPU, no timing, no
    /// Triton. With `--keep`, what was compiled is kept.
    #[arg(long)]
    compile_only: bool,
    /// Target of `--compile-only`, as `major * 10 + minor` (90: sm_90).
    #[arg(long, value_name = "SM", default_value_t = 90, value_parser = clap::value_parser!(u32).range(70..=130))]
    sm: u32,
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

pub(crate) fn run(a: BenchArgs) -> Result<i32> {
    let loaded = a.source.load()?;
    let partial = a.json.as_deref().map(partial_path);
    let outs = [
        ("--json", a.json.as_deref()),
        ("--json's rows as timed (FILE.partial)", partial.as_deref()),
        ("--md", a.md.as_deref()),
        ("--svg", a.svg.as_deref()),
    ];
    check_outputs_against(&outs, &loaded, &a.model, &a.source, None)?;
    if a.compile_only && outs.iter().any(|o| o.1.is_some()) {
        bail!("--compile-only times nothing: --json, --md and --svg have nothing to write");
    }
    let info = if a.compile_only {
        verify::GpuInfo {
            name: "none (--compile-only)".into(),
            sm: ((a.sm / 10) as i32, (a.sm % 10) as i32),
            driver_version: 0,
            nvrtc_version: (0, 0),
        }
    } else {
        verify::probe_gpu().map_err(|e| anyhow!("warpforge bench needs a GPU: {e}"))?
    };
    if let Some(d) = &a.keep {
        if d.exists() && !d.is_dir() {
            bail!("--keep {}: exists and is not a directory", d.display());
        }
        std::fs::create_dir_all(d)
            .with_context(|| format!("--keep {}: cannot create the directory", d.display()))?;
    }
    let weights = a.model.weights()?;
    let sm = (info.sm.0 * 10 + info.sm.1) as u32;
    let (convs, refused) = pipeline::conversions_each(&loaded);
    for r in &refused {
        note!("warpforge: {}: not timed: refused: {}", r.place, r.reason);
    }
    if convs.is_empty() {
        bail!("every conversion was refused (above): nothing to time");
    }
    let opt = CaseOptions {
        weights,
        shared: SharedOptions {
            sm,
            max_smem: Some(pipeline::scratch_cap(sm, a.max_smem)),
            max_registers: a.max_registers,
            ..SharedOptions::default()
        },
        shared_limit: a.shared_candidates,
        pair: a.pair,
    };
    let (cases, skipped) = build_cases(&convs, &opt)?;
    for s in &skipped {
        note!("warpforge: {}: {}: not timed: {}", s.file, s.name, s.reason);
    }
    if cases.is_empty() {
        bail!("nothing to time: no conversion of the input moves data");
    }
    if a.compile_only {
        return compile_only(&a, &cases, info.sm, refused.is_empty());
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
    let (triton_version, mut triton) = triton_side(&a, &cases, &t, &gpu);
    let interleaved = a.triton_timing == TritonTiming::Interleaved;
    let mut partial = a.json.as_deref().and_then(PartialRows::open);
    if let Some(p) = &partial {
        note!(
            "warpforge: rows are appended to {} as they are timed",
            p.path.display()
        );
    }
    let (measured, failures) = time_all(
        &gpu,
        &cases,
        &compiled,
        &t,
        triton.as_mut(),
        interleaved,
        partial.as_mut(),
    )?;
    let mut rows: Vec<Row> = cases
        .iter()
        .zip(&measured)
        .map(|(c, m)| report::row(c, m, triton.as_ref().and_then(|t| t.get(&c.id))))
        .collect();
    for n in report::recheck_occupancy(&mut rows, &cases, info.sm) {
        note!("warpforge: register budget: {n}");
    }
    let what = Harness {
        info: &info,
        sms: gpu.sms,
        t: &t,
        triton_version: &triton_version,
        interleaved,
        max_registers: a.max_registers,
        pair: a.pair,
    };
    write_outputs(&a, &rows, &what.preamble(), &info.name)?;
    if let Some(p) = partial {
        drop(p.file);
        // the whole file is written: the partial one has served
        let _ = std::fs::remove_file(&p.path);
    }
    let spills = report::spills_beyond_triton(&rows);
    for s in &spills {
        note!("warpforge: register budget: {s}");
    }
    if !failures.is_empty() || !spills.is_empty() {
        for f in &failures {
            note!("warpforge: candidate failed: {f}");
        }
        return Ok(1);
    }
    // refused conversions were named above; the rest were timed
    Ok(if refused.is_empty() { 0 } else { 1 })
}

/// `--compile-only`: every case compiled for `sm`, and per case one line of
/// SASS counts (`shfl/sel/prmt/sts/lds/ldsm/stsm/bar`, all instructions)
/// of the chosen plan's loop kernel and of each limit kernel. Exit 1 when a
/// module does not compile or a conversion was refused.
fn compile_only(
    a: &BenchArgs,
    cases: &[BenchCase],
    sm: (i32, i32),
    none_refused: bool,
) -> Result<i32> {
    let pb = bar(cases.len(), "compile");
    let compiled = compile_all(cases, sm, &|| pb.inc(1));
    pb.finish();
    if let Some(d) = &a.keep {
        bench::keep::cases(d, cases, &compiled)?;
        note!("warpforge: keeping what was compiled in {}", d.display());
    }
    let brief = |s: Option<&verify::SassCounts>| match s {
        None => "-".to_string(),
        Some(s) => {
            let c = &s.classes;
            format!(
                "{}/{}/{}/{}/{}/{}/{}/{} ({} in all)",
                c.shfl, c.sel, c.prmt, c.sts, c.lds, c.ldsm, c.stsm, c.bar, s.total
            )
        }
    };
    let mut out = Stdout::new();
    let mut failed = false;
    writeln!(
        out,
        "SASS per loop kernel: shfl/sel/prmt/sts/lds/ldsm/stsm/bar (all instructions)"
    )?;
    for (c, m) in cases.iter().zip(&compiled) {
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                failed = true;
                writeln!(out, "{}:{}: does not compile: {e:#}", c.file, c.name)?;
                continue;
            }
        };
        let ch = c
            .candidates
            .iter()
            .find(|k| k.chosen)
            .expect("a case has its chosen candidate");
        writeln!(
            out,
            "{}:{} ({} bits, {} warps): chosen {} ({}): {}",
            c.file,
            c.name,
            c.bits,
            c.conv.num_warps,
            ch.strategy,
            ch.form,
            brief(m.sass.get(&ch.kernel))
        )?;
        for k in &c.limits {
            writeln!(out, "  limit {}: {}", k.label(), brief(m.sass.get(&k.name)))?;
        }
    }
    out.finish()?;
    Ok(if failed || !none_refused { 1 } else { 0 })
}

/// Triton's side: its version (or why the column is missing) and, per
/// case, its compiled and checked kernels (timed in Python with
/// `--triton-timing python`).
fn triton_side(
    a: &BenchArgs,
    cases: &[BenchCase],
    t: &TimingOptions,
    gpu: &Gpu,
) -> (String, Option<TritonResults>) {
    if a.no_triton {
        return ("not run (--no-triton)".to_string(), None);
    }
    let pb = bar(cases.len(), "triton");
    let r = bench::triton::run_triton(
        &a.python,
        cases,
        t,
        a.triton_timing,
        gpu.sms * t.ctas_per_sm,
        a.keep.as_deref(),
        &|| pb.inc(1),
    );
    pb.finish();
    match r {
        Ok((v, res)) => (format!("Triton {v}"), Some(res)),
        Err(e) => {
            note!("warpforge: the Triton column is missing: {e:#}");
            (format!("missing: {e:#}"), None)
        }
    }
}

/// Every candidate of every case timed in rounds (with Triton's loop kernel
/// when `interleaved` and it can be launched here); the measurements per
/// case (the candidates', the global-memory baseline's for a cluster case,
/// the limit kernels') and every failure's message.
fn time_all(
    gpu: &Gpu,
    cases: &[BenchCase],
    compiled: &[Result<Compiled>],
    t: &TimingOptions,
    mut triton: Option<&mut TritonResults>,
    interleaved: bool,
    mut partial: Option<&mut PartialRows>,
) -> Result<(Vec<CaseMeasured>, Vec<String>)> {
    let n_cand: usize = cases.iter().map(|c| c.candidates.len()).sum();
    let pb = bar(n_cand, "timing");
    let mut measured = Vec::new();
    let mut failures = Vec::new();
    for (c, m) in cases.iter().zip(compiled) {
        // Triton's kernel joins the case's rounds when it compiled, passed
        // its checks and can be launched from here
        let tri = triton.as_deref_mut().and_then(|t| t.get_mut(&c.id));
        let tk = match (&tri, interleaved) {
            (Some(Ok(tr)), true) => tr.kernel().cloned(),
            _ => None,
        };
        let msg = |r: Result<Measured>| r.map_err(|e| format!("{e:#}"));
        let (r, tm, global, limits): (Vec<Result<Measured, String>>, _, _, Vec<_>) = match m {
            Ok(m) => {
                let x = time_case(gpu, c, m, t, tk.as_ref())?;
                (
                    x.candidates.into_iter().map(msg).collect(),
                    x.triton,
                    x.global.map(msg),
                    x.limits.into_iter().map(msg).collect(),
                )
            }
            Err(e) => (
                c.candidates.iter().map(|_| Err(format!("{e:#}"))).collect(),
                None,
                c.global_kernel.as_ref().map(|_| Err(format!("{e:#}"))),
                c.limits.iter().map(|_| Err(format!("{e:#}"))).collect(),
            ),
        };
        if let (Some(slot), true) = (tri, interleaved) {
            bench::triton::record_interleaved(slot, tm, &c.id);
        }
        failures.extend(r.iter().filter_map(|x| x.as_ref().err().cloned()));
        if let (Ok(_), Some(Err(e))) = (m, &global) {
            failures.push(format!(
                "{} ({}), global-memory baseline: {e}",
                c.name, c.file
            ));
        }
        if m.is_ok() {
            for (k, e) in c.limits.iter().zip(&limits) {
                if let Err(e) = e {
                    failures.push(format!(
                        "{} ({}), limit kernel {}: {e}",
                        c.name,
                        c.file,
                        k.label()
                    ));
                }
            }
        }
        pb.inc(c.candidates.len() as u64);
        let m = CaseMeasured {
            candidates: r,
            global,
            limits,
        };
        if let Some(p) = partial.as_deref_mut() {
            let t = triton.as_deref().and_then(|t| t.get(&c.id));
            p.push(&report::row(c, &m, t))?;
        }
        measured.push(m);
    }
    pb.finish();
    Ok((measured, failures))
}

/// What the report's preamble says about the machine and the loop.
struct Harness<'a> {
    info: &'a verify::GpuInfo,
    sms: u32,
    t: &'a TimingOptions,
    triton_version: &'a str,
    interleaved: bool,
    max_registers: Option<u32>,
    pair: Pairing,
}

impl Harness<'_> {
    fn preamble(&self) -> String {
        let (info, t) = (self.info, self.t);
        let command: Vec<String> = std::env::args().collect();
        format!(
            "# warpforge vs Triton: every candidate plan, one harness\n\n\
             - command: `{}`\n- GPU: {} (sm_{}{}), {} SMs, CUDA driver {}, NVRTC {}.{}; {}\n\
             - date: {}; warpforge {} (commit {})\n\
             - loop: {} CTAs ({} per SM) x {} round trips `A -> B`, xor 1, `B -> A` per launch; \
             median of {} launches after 2 warm-ups, enqueued back to back between CUDA events; \
             every output checked.{} {} A candidate's round trip pairs it (forward) with {}; \
             Triton lowers both directions itself. Shared-memory helpers share one scratch \
             region with a `__syncthreads()` before each call that uses it, as Triton's barrier insertion does. \
             8- and 16-bit data moves in the helpers' packed form (32-bit words in registers, as Triton \
             holds it), unless a helper has none (form `elements`).\n",
            command.join(" "),
            info.name,
            info.sm.0,
            info.sm.1,
            self.sms,
            info.driver_version,
            info.nvrtc_version.0,
            info.nvrtc_version.1,
            self.triton_version,
            super::today(),
            env!("CARGO_PKG_VERSION"),
            env!("WARPFORGE_COMMIT"),
            self.sms * t.ctas_per_sm,
            t.ctas_per_sm,
            t.iters,
            t.runs,
            match self.max_registers {
                Some(n) => format!(
                    " warpforge's kernels compiled with `__maxnreg__({n})` (`--max-registers {n}`; \
                     Triton's are not): registers over {n} spill, and the check of spills beyond \
                     Triton's is not made."
                ),
                None => String::new(),
            },
            if self.interleaved {
                "Triton's loop kernel (compiled and checked by Triton, its cubin launched here) runs in the \
                 same rounds as the candidates, on the same input: each round launches every kernel once, \
                 in alternating order, so a drift of clock or temperature weighs on all alike."
            } else {
                "Triton's loop kernel is timed by Triton's Python process (PyTorch CUDA events) after all \
                 candidates, on its own random input."
            },
            match self.pair {
                Pairing::Chosen => "the chosen plan of the reverse conversion",
                Pairing::SameFamily =>
                    "the reverse conversion's best plan of its own family (`--pair same-family`: shuffle \
                     with shuffle, shared memory with shared memory; each candidate's in its `bwd`)",
            }
        )
    }
}

/// The `--json` rows as they are timed: appended, one line per conversion,
/// to `<FILE>.partial` beside the `--json` file, so that a run stopped
/// before its end (a timeout, a lost machine) keeps every conversion it
/// finished. At the end the whole file is written to the `--json` path at
/// once and the partial one removed; rows there may differ from the partial
/// ones by the register rechecks made after timing.
struct PartialRows {
    path: PathBuf,
    file: std::fs::File,
}

impl PartialRows {
    /// The partial file of `json`, created empty; `None` (with a note) where
    /// `json` is not a regular file's path (a pipe, `/dev/stdout`) or the
    /// file cannot be created.
    fn open(json: &Path) -> Option<PartialRows> {
        if std::fs::metadata(json).is_ok_and(|m| !m.is_file()) {
            return None;
        }
        let path = partial_path(json);
        match std::fs::File::create(&path) {
            Ok(file) => Some(PartialRows { path, file }),
            Err(e) => {
                note!(
                    "warpforge: {}: cannot create ({e}); rows are written at the end only",
                    path.display()
                );
                None
            }
        }
    }

    /// Append `row` as one line and flush it.
    fn push(&mut self, row: &Row) -> Result<()> {
        let line = serde_json::to_string(row)? + "\n";
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .with_context(|| format!("{}: cannot write", self.path.display()))
    }
}

/// `<json>.partial`: where [`PartialRows`] appends the `--json` rows.
fn partial_path(json: &Path) -> PathBuf {
    let mut name = json.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// The summary on standard output; JSON rows, markdown and SVG where asked.
fn write_outputs(a: &BenchArgs, rows: &[Row], preamble: &str, gpu_name: &str) -> Result<()> {
    let mut out = Stdout::new();
    writeln!(out, "{}", report::summary(rows))?;
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
        write_file(p, &report::markdown(rows, preamble))?;
        note!("warpforge: wrote {}", p.display());
    }
    if let Some(p) = &a.svg {
        let title = format!("warpforge / Triton time per conversion, {gpu_name}");
        write_file(p, &report::svg(rows, &title)?)?;
        note!("warpforge: wrote {}", p.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows appended to `<FILE>.partial` are whole JSON lines, one per
    /// conversion, readable while the run goes on; a `--json` path that is
    /// not a regular file (here `/dev/null`) gets no partial file.
    #[test]
    fn partial_rows_are_whole_lines_beside_the_json_file() {
        let committed = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/results/runs/2026-11-28-h100-vector-forms-6850643/bench_half2/bench_half2.jsonl"
        );
        let rows: Vec<Row> = std::fs::read_to_string(committed)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("bench.jsonl");
        let mut p = PartialRows::open(&json).unwrap();
        assert_eq!(p.path, dir.path().join("bench.jsonl.partial"));
        for r in &rows[..2] {
            p.push(r).unwrap();
        }
        let text = std::fs::read_to_string(&p.path).unwrap();
        let back: Vec<Row> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(back.len(), 2);
        assert_eq!(back[1].name, rows[1].name);
        assert!(text.ends_with('\n'));
        assert!(
            !json.exists(),
            "the --json file itself is written at the end"
        );
        assert!(PartialRows::open(Path::new("/dev/null")).is_none());
    }
}
