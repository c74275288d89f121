//! `warpforge`: plan, emit and prove layout conversions of GPU register tiles.
//! A thin CLI over the `synth`, `kernels` and `verify` crates.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use synth::parse::{parse_ttgir, ConvertOp, ElemType};
use synth::plan::{Conversion, SharedOptions, StrategyChoice};
use synth::search::{
    plan_all_widths, plan_conversion_with, plan_width, Chosen, CostModel, Weights,
};
use verify::{DType, GpuCase};

mod bench_cmd;
mod draw_cmd;
mod layout_args;

#[derive(Parser)]
#[command(
    name = "warpforge",
    version,
    about = "Layout-conversion codegen for GPU register tiles: plan, emit CUDA, prove"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Plan every conversion and print its kind, strategy and predicted cost.
    Plan {
        #[command(flatten)]
        input: Input,
        /// Also print both layouts and the plan's stages.
        #[arg(long, short)]
        verbose: bool,
    },
    /// Write a CUDA header with one helper per conversion.
    Emit {
        #[command(flatten)]
        input: Input,
        /// Output header (default: standard output). Written only if every conversion succeeds.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
    },
    /// Prove every helper: on the GPU when present, else on the CPU simulator.
    Verify {
        #[command(flatten)]
        input: Input,
        /// Only the CPU simulator.
        #[arg(long, conflicts_with = "gpu")]
        cpu: bool,
        /// Demand the GPU: fail when none is present.
        #[arg(long)]
        gpu: bool,
        /// Element types for the GPU check: i8, f8E4M3FN, f8E5M2, i16, f16, bf16, i32, f32, i64, f64
        /// (8- and 16-bit types check the packed form too)
        #[arg(long, value_delimiter = ',', default_value = "i8,f16,i32,i64")]
        dtypes: Vec<String>,
        /// Write a markdown report (SASS counts per helper) here.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Also write the emitted header here.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
    },
    /// Time every candidate plan of each conversion and Triton's own
    /// lowering on the GPU, in one loop shape; write JSON, markdown, SVG.
    Bench(bench_cmd::BenchArgs),
    /// Fit the planner's cost model to `warpforge bench --json` rows.
    Fit(bench_cmd::FitArgs),
    /// Print the linear layout of one layout (Triton's LinearLayout::toString).
    Layout {
        /// The layout: a TTGIR attribute ('#ttg.blocked<{...}>'),
        /// LinearLayout::toString text, JSON bases, a Gluon constructor
        /// ('ttgl.BlockedLayout(...)'), or @FILE holding any of these.
        #[arg(long)]
        attr: String,
        /// Tensor shape, e.g. 64x32 (default: the shape the layout carries).
        #[arg(long)]
        shape: Option<String>,
        /// Warps per CTA (default: what the layout fixes, else 4).
        #[arg(long)]
        warps: Option<u32>,
    },
    /// Draw a layout, or a conversion and its plan, as SVG (or a text table).
    Draw(draw_cmd::DrawArgs),
}

/// Where conversions come from: TTGIR files or one --src/--dst pair.
#[derive(Args, Clone)]
struct Source {
    /// TTGIR files: act on every ttg.convert_layout in each (`--ttgir a b`
    /// or `--ttgir a --ttgir b`).
    #[arg(long, num_args = 1.., conflicts_with_all = ["src", "dst"])]
    ttgir: Vec<PathBuf>,
    /// Source layout: a TTGIR attribute, LinearLayout::toString text, JSON
    /// bases, a Gluon constructor, or @FILE holding any of these.
    #[arg(long, requires = "dst")]
    src: Option<String>,
    /// Destination layout (the same formats as --src).
    #[arg(long, requires = "src")]
    dst: Option<String>,
    /// Tensor shape for --src/--dst, e.g. 64x32 (default: the shape the
    /// layouts carry: toString out dims, JSON or Gluon `shape`).
    #[arg(long)]
    shape: Option<String>,
    /// Element type for --src/--dst (i32, f16, bf16, f32, i8, f8E4M3FN, ...).
    #[arg(long, default_value = "f32")]
    dtype: String,
    /// Warps per CTA for --src/--dst (default: what the layouts fix, else 4).
    #[arg(long)]
    warps: Option<u32>,
    /// Name of the --src/--dst conversion (used for the helper's name).
    #[arg(long, default_value = "convert")]
    name: String,
}

#[derive(Args)]
struct Input {
    #[command(flatten)]
    source: Source,
    /// Which strategies the planner may use.
    #[arg(long, value_enum, default_value_t = Strategy::Auto)]
    strategy: Strategy,
    /// One JSON object per line, one per conversion.
    #[arg(long)]
    json: bool,
    /// Target compute capability, 10 * major + minor (ldmatrix needs 75,
    /// stmatrix 90).
    #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u32).range(70..=120))]
    sm: u32,
    /// Most shared-memory scratch a helper may use, in bytes; larger
    /// conversions go in rounds (more barriers). Default: no limit (one round).
    #[arg(long, value_name = "BYTES")]
    max_smem: Option<u64>,
    /// Cost-model file (`warpforge fit` writes one) to rank plans with.
    /// Default: the built-in model (synth/cost_models/default.json).
    #[arg(long, value_name = "FILE")]
    cost_model: Option<PathBuf>,
}

/// The weights of `--cost-model FILE`, or the built-in model's.
fn weights_of(path: &Option<PathBuf>) -> Result<Weights> {
    let Some(p) = path else {
        return Ok(Weights::default());
    };
    let text = std::fs::read_to_string(p)
        .with_context(|| format!("--cost-model {}: cannot read", p.display()))?;
    Ok(CostModel::from_json(&text, &p.display().to_string())?.weights)
}

#[derive(Clone, Copy, ValueEnum)]
enum Strategy {
    Auto,
    Shuffle,
    Shared,
}

struct Planned {
    /// The file the conversion came from (`command line` for --src/--dst).
    file: String,
    op: ConvertOp,
    conv: Conversion,
    /// The plan for the conversion's own element width.
    chosen: Chosen,
    /// Plans for every element width the emitted helper dispatches on
    /// (empty when only the own width was planned).
    variants: Vec<(u32, Chosen)>,
}

/// The conversions of the input: every `ttg.convert_layout` of each
/// `--ttgir` file, or the one `--src/--dst` pair. Returns a description of
/// the origin (for headers) and `(file, op)` pairs.
fn load(input: &Source) -> Result<(String, Vec<(String, ConvertOp)>)> {
    if !input.ttgir.is_empty() {
        let mut all = Vec::new();
        for path in &input.ttgir {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read", path.display()))?;
            let f = parse_ttgir(&text)
                .map_err(|e| anyhow!("{}:{}: {}", path.display(), e.line, e.msg))?;
            if f.converts.is_empty() {
                eprintln!("warpforge: {}: no ttg.convert_layout found", path.display());
            }
            let file = path.display().to_string();
            all.extend(f.converts.into_iter().map(|op| (file.clone(), op)));
        }
        let names: Vec<String> = input
            .ttgir
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        return Ok((names.join(", "), all));
    }
    let (Some(src), Some(dst)) = (&input.src, &input.dst) else {
        bail!("give --ttgir FILE, or --src LAYOUT --dst LAYOUT --shape AxB");
    };
    let s = layout_args::read("--src", src)?;
    let d = layout_args::read("--dst", dst)?;
    let shape = layout_args::shape(input.shape.as_deref(), &[("--src", &s), ("--dst", &d)])?;
    let elem = ElemType::parse(&input.dtype)
        .ok_or_else(|| anyhow!("--dtype: unknown element type `{}`", input.dtype))?;
    let num_warps = layout_args::warps(input.warps, &[&s, &d]);
    let op = ConvertOp {
        name: input.name.clone(),
        line: 0,
        func: input.name.clone(),
        shape,
        elem,
        src: s.encoding,
        dst: d.encoding,
        src_text: s.ttgir,
        dst_text: d.ttgir,
        num_warps,
        num_ctas: 1,
        doc: String::new(),
    };
    Ok(("command line".into(), vec![("command line".into(), op)]))
}

fn plan_all(
    input: &Input,
    ops: Vec<(String, ConvertOp)>,
    all_widths: bool,
) -> Result<Vec<Planned>> {
    let choice = match input.strategy {
        Strategy::Auto => StrategyChoice::Auto,
        Strategy::Shuffle => StrategyChoice::Shuffle,
        Strategy::Shared => StrategyChoice::Shared,
    };
    let w = weights_of(&input.cost_model)?;
    let opts = SharedOptions {
        sm: input.sm,
        max_smem: input.max_smem,
        ..SharedOptions::default()
    };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (file, op) in ops {
        let where_ = if op.line > 0 {
            format!("{file}:{}", op.line)
        } else {
            file.clone()
        };
        let planned = Conversion::from_op(&op).and_then(|c| {
            let own = plan_width(&c);
            if all_widths {
                let v = plan_all_widths(&c, choice, &w, &opts)?;
                let ch = v
                    .iter()
                    .find(|x| x.0 == own)
                    .expect("own width planned")
                    .1
                    .clone();
                Ok((c, ch, v))
            } else {
                let opt = SharedOptions {
                    elem_bits: own,
                    ..opts
                };
                plan_conversion_with(&c, choice, &w, &opt).map(|ch| (c, ch, vec![]))
            }
        });
        match planned {
            Ok((conv, chosen, variants)) => out.push(Planned {
                file,
                op,
                conv,
                chosen,
                variants,
            }),
            Err(e) => errors.push(format!("{where_}: {e}")),
        }
    }
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    Ok(out)
}

fn cost_json(c: &synth::plan::Cost) -> serde_json::Value {
    serde_json::to_value(c).expect("cost serializes")
}

fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp-warpforge");
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("{}: cannot create", dir.display()))?;
        }
    }
    std::fs::write(&tmp, text).with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot write", path.display()))?;
    Ok(())
}

fn header_of(planned: &[Planned], origin: &str) -> Result<(String, Vec<kernels::EmittedHelper>)> {
    // two conversions whose names map to one C identifier would define the
    // same helper twice: refuse before writing anything
    let mut seen: std::collections::HashMap<String, &Planned> = Default::default();
    for p in planned {
        let ident = kernels::ident_for(&p.op.name);
        if let Some(q) = seen.insert(ident.clone(), p) {
            bail!(
                "{}:{} (`{}`) and {}:{} (`{}`) would both emit helper `{ident}`; emit them from separate invocations",
                q.file, q.op.line, q.op.name, p.file, p.op.line, p.op.name
            );
        }
    }
    let helpers = planned
        .iter()
        .map(|p| {
            if p.variants.is_empty() {
                kernels::emit_helper(&p.conv, &p.chosen)
            } else {
                kernels::emit_helper_widths(&p.conv, &p.variants)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((kernels::emit_header(&helpers, origin)?, helpers))
}

fn main() {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("warpforge: error: {e:#}");
            std::process::exit(1);
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Bench(a) => bench_cmd::bench(a),
        Cmd::Fit(a) => bench_cmd::fit(a),
        Cmd::Draw(a) => draw_cmd::draw(a),
        Cmd::Layout { attr, shape, warps } => {
            let t = layout_args::read("--attr", &attr)?;
            let shape = layout_args::shape(shape.as_deref(), &[("--attr", &t)])?;
            let warps = layout_args::warps(warps, &[&t]);
            let l = t
                .encoding
                .to_linear_layout(&shape, warps)
                .map_err(|e| anyhow!("--attr: {e}"))?;
            println!("{}", l.to_string().trim_start_matches('\n'));
            Ok(0)
        }
        Cmd::Plan { input, verbose } => {
            let (_, ops) = load(&input.source)?;
            let planned = plan_all(&input, ops, false)?;
            let w = weights_of(&input.cost_model)?;
            let mut out = std::io::stdout().lock();
            for p in &planned {
                let ch = &p.chosen;
                let lb = synth::plan::lower_bound(&ch.analysis, plan_width(&p.conv), &w);
                if input.json {
                    writeln!(
                        out,
                        "{}",
                        json!({
                            "name": p.op.name, "kind": ch.plan.kind.as_str(), "strategy": ch.plan.strategy,
                            "m": ch.plan.m, "cost": cost_json(&ch.cost), "src_regs": ch.plan.src_regs,
                            "dst_regs": ch.plan.dst_regs, "smem_elems": ch.plan.smem_elems,
                            "candidates": ch.candidates, "verified_candidates": ch.verified_candidates,
                            "shape": p.op.shape, "dtype": p.op.elem.name, "elem_bits": plan_width(&p.conv),
                            "smem_bytes": ch.plan.smem_elems * plan_width(&p.conv) as u64 / 8,
                            "rounds": ch.plan.rounds,
                            "wavefronts": ch.sim.smem_wavefronts, "min_wavefronts": ch.sim.min_wavefronts,
                            "bank_conflicts": ch.sim.bank_conflicts,
                            "score": ch.score, "lower_bound": lb,
                        })
                    )?;
                } else {
                    writeln!(
                        out,
                        "{:<28} {:<8} {:<27} m={} {} ({} candidates, {} verified)",
                        p.op.name,
                        ch.plan.kind.as_str(),
                        ch.plan.strategy,
                        ch.plan.m,
                        ch.cost,
                        ch.candidates,
                        ch.verified_candidates
                    )?;
                    if verbose {
                        writeln!(
                            out,
                            "  src:{}",
                            p.conv.src.to_string().replace('\n', "\n    ")
                        )?;
                        writeln!(
                            out,
                            "  dst:{}",
                            p.conv.dst.to_string().replace('\n', "\n    ")
                        )?;
                        for n in &ch.plan.notes {
                            writeln!(out, "  note: {n}")?;
                        }
                        if ch.plan.smem_elems > 0 {
                            writeln!(
                                out,
                                "  shared memory: {} bytes, {} round(s); {} wavefronts per CTA (minimum {}), {} bank conflicts",
                                ch.plan.smem_elems * plan_width(&p.conv) as u64 / 8, ch.plan.rounds,
                                ch.sim.smem_wavefronts, ch.sim.min_wavefronts, ch.sim.bank_conflicts
                            )?;
                        }
                        writeln!(
                            out,
                            "  score {:.1} under the cost model; lower bound {:.1} ({}{} shared-memory accesses per thread, {} wavefronts per warp)",
                            ch.score,
                            lb.score,
                            lb.shfl_words.map(|n| format!("{n} shuffled words per thread, ")).unwrap_or_default(),
                            lb.smem_accesses,
                            lb.smem_wavefronts
                        )?;
                        let stages: Vec<&str> = ch.plan.stages.iter().map(|s| s.name()).collect();
                        writeln!(out, "  stages: {}", stages.join(" -> "))?;
                    }
                }
            }
            Ok(0)
        }
        Cmd::Emit { input, output } => {
            let (origin, ops) = load(&input.source)?;
            let planned = plan_all(&input, ops, true)?;
            let (header, helpers) = header_of(&planned, &origin)?;
            match &output {
                Some(path) => {
                    write_atomically(path, &header)?;
                    eprintln!(
                        "warpforge: wrote {} helper(s) to {}",
                        helpers.len(),
                        path.display()
                    );
                }
                None => print!("{header}"),
            }
            if input.json {
                for (p, h) in planned.iter().zip(&helpers) {
                    println!(
                        "{}",
                        json!({"name": p.op.name, "kind": p.chosen.plan.kind.as_str(), "cost": cost_json(&p.chosen.cost),
                               "function": h.ident, "smem_elems": h.smem_elems})
                    );
                }
            }
            Ok(0)
        }
        Cmd::Verify {
            input,
            cpu,
            gpu,
            dtypes,
            report,
            output,
        } => {
            let dts = dtypes
                .iter()
                .map(|d| {
                    DType::parse(d.trim()).ok_or_else(|| {
                        let all: Vec<&str> = DType::ALL.iter().map(|t| t.name()).collect();
                        anyhow!("--dtypes: unknown `{d}` ({})", all.join(", "))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let (origin, ops) = load(&input.source)?;
            let planned = plan_all(&input, ops, true)?;
            let (header, helpers) = header_of(&planned, &origin)?;
            if let Some(path) = &output {
                write_atomically(path, &header)?;
            }
            // CPU proof of every helper (the search already proved the chosen
            // plan; run it again here so the report says what was checked).
            let cpu_reports: Vec<Result<synth::sim::SimReport, String>> = planned
                .iter()
                .map(|p| {
                    synth::sim::simulate(&p.chosen.plan, &p.chosen.analysis)
                        .map_err(|e| e.to_string())
                })
                .collect();
            let use_gpu = if cpu {
                false
            } else {
                match verify::probe_gpu() {
                    Ok(_) => true,
                    Err(e) if gpu => bail!("--gpu: {e}"),
                    Err(e) => {
                        eprintln!("warpforge: {e}; verifying on the CPU simulator only (pass --gpu to require a GPU)");
                        false
                    }
                }
            };
            let gpu_report = if use_gpu {
                let cases: Vec<GpuCase> = planned
                    .iter()
                    .zip(&helpers)
                    .map(|(p, h)| GpuCase {
                        helper: h,
                        analysis: &p.chosen.analysis,
                    })
                    .collect();
                let r = verify::verify_on_gpu(&header, &cases, &dts)?;
                eprintln!(
                    "warpforge: GPU {} (sm_{}{}), driver {}, NVRTC {}.{}; module compiled in {:.2} s",
                    r.gpu.name, r.gpu.sm.0, r.gpu.sm.1, r.gpu.driver_version, r.gpu.nvrtc_version.0, r.gpu.nvrtc_version.1, r.compile_seconds
                );
                for n in &r.notes {
                    eprintln!("warpforge: note: {n}");
                }
                Some(r)
            } else {
                None
            };
            let mut failed = 0;
            let mut out = std::io::stdout().lock();
            for (i, p) in planned.iter().enumerate() {
                let cpu_ok = cpu_reports[i].is_ok();
                let gpu_cases: Vec<&verify::CaseResult> = gpu_report
                    .as_ref()
                    .map(|r| r.cases.iter().filter(|c| c.name == p.op.name).collect())
                    .unwrap_or_default();
                let spills = gpu_cases
                    .iter()
                    .any(|c| c.sass.as_ref().is_some_and(|s| s.ldl + s.stl > 0));
                let gpu_ok = gpu_cases.iter().all(|c| c.ok());
                let verified = cpu_ok && gpu_ok && !spills;
                if !verified {
                    failed += 1;
                }
                if input.json {
                    writeln!(
                        out,
                        "{}",
                        json!({
                            "name": p.op.name, "kind": p.chosen.plan.kind.as_str(), "strategy": p.chosen.plan.strategy,
                            "cost": cost_json(&p.chosen.cost), "verified": verified,
                            "cpu": match &cpu_reports[i] { Ok(r) => json!(r), Err(e) => json!({"error": e}) },
                            "gpu": gpu_cases,
                        })
                    )?;
                } else {
                    let mut line = format!(
                        "{:<28} {:<8} {:<32} cpu {}",
                        p.op.name,
                        p.chosen.plan.kind.as_str(),
                        p.chosen.cost.to_string(),
                        match &cpu_reports[i] {
                            Ok(r) => format!("ok ({} slots)", r.slots),
                            Err(e) => format!("FAILED: {e}"),
                        }
                    );
                    for c in &gpu_cases {
                        line += &format!(
                            " | gpu {}{} {}",
                            c.dtype.name(),
                            if c.form == "packed" { " packed" } else { "" },
                            if c.ok() {
                                "ok".to_string()
                            } else {
                                format!(
                                    "FAILED ({} mismatches; {})",
                                    c.mismatches,
                                    c.first_error.clone().unwrap_or_default()
                                )
                            }
                        );
                        if let Some(s) = &c.sass {
                            line += &format!(
                                " [SHFL {} SEL {} PRMT {} STS {} LDS {} BAR {} LDL {} STL {}]",
                                s.classes.shfl,
                                s.classes.sel,
                                s.classes.prmt,
                                s.classes.sts,
                                s.classes.lds,
                                s.classes.bar,
                                s.ldl,
                                s.stl
                            );
                        }
                    }
                    writeln!(out, "{line}")?;
                }
            }
            if let Some(path) = &report {
                write_atomically(
                    path,
                    &markdown_report(&origin, &planned, gpu_report.as_ref()),
                )?;
            }
            eprintln!(
                "warpforge: {} of {} conversion(s) verified ({})",
                planned.len() - failed,
                planned.len(),
                if use_gpu {
                    "CPU simulator + GPU"
                } else {
                    "CPU simulator"
                }
            );
            Ok(if failed > 0 { 1 } else { 0 })
        }
    }
}

fn markdown_report(origin: &str, planned: &[Planned], gpu: Option<&verify::GpuReport>) -> String {
    let mut s = format!("## {origin}\n\n");
    if let Some(r) = gpu {
        s += &format!(
            "GPU: {} (sm_{}{}), CUDA driver {}, NVRTC {}.{}.\n\n",
            r.gpu.name,
            r.gpu.sm.0,
            r.gpu.sm.1,
            r.gpu.driver_version,
            r.gpu.nvrtc_version.0,
            r.gpu.nvrtc_version.1
        );
        for n in &r.notes {
            s += &format!("Note: {n}\n\n");
        }
    }
    s += "| conversion | kind | strategy | predicted | dtype (CUDA type) | GPU check | SHFL | SEL | PRMT | STS | LDS | BAR | LDL/STL | Triton 3.6 (corpus note) |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for p in planned {
        let cases: Vec<&verify::CaseResult> = gpu
            .map(|r| r.cases.iter().filter(|c| c.name == p.op.name).collect())
            .unwrap_or_default();
        let doc = p.op.doc.replace('|', "/");
        let head = format!(
            "| {} | {} | {} | {} |",
            p.op.name,
            p.chosen.plan.kind.as_str(),
            p.chosen.plan.strategy,
            p.chosen.cost
        );
        if cases.is_empty() {
            s += &format!("{head} - | not run | | | | | | | | {doc} |\n");
        }
        for c in cases {
            let sc = c.sass.clone().unwrap_or_default();
            let k = &sc.classes;
            s += &format!(
                "{head} {} (`{}`) | {} ({} slots) | {} | {} | {} | {} | {} | {} | {}/{} | {doc} |\n",
                c.dtype.name(),
                c.ctype,
                if c.ok() { "pass" } else { "FAIL" },
                c.slots_checked,
                k.shfl,
                k.sel,
                k.prmt,
                k.sts,
                k.lds,
                k.bar,
                sc.ldl,
                sc.stl,
            );
        }
    }
    s
}
