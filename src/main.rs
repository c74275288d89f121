//! `warpforge`: plan, emit and prove layout conversions of GPU register tiles.
//! A thin CLI over the `synth`, `kernels` and `verify` crates.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use diag::SourceError;
use output::{write_file, Stdout};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use synth::encoding::EncodingError;
use synth::parse::{locate_field, parse_ttgir, ConvertOp, ElemType, Span, MAX_WARPS};
use synth::plan::{Conversion, SharedOptions, StrategyChoice};
use synth::search::{
    plan_all_widths, plan_conversion_with, plan_width, Chosen, CostModel, Weights,
};
use verify::{DType, GpuCase};

mod bench_cmd;
mod diag;
mod draw_cmd;
mod layout_args;
mod output;

/// A line on standard error; a closed or full standard error is ignored
/// (there is nowhere left to report it).
macro_rules! note {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
pub(crate) use note;

/// `--warps N`: warps per CTA, a power of two from 1 to 32 (1024 threads).
fn parse_warps(s: &str) -> Result<u32, String> {
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of warps"))?;
    if n == 0 || n > MAX_WARPS as u64 {
        return Err(format!(
            "{n} warps per CTA: a CTA holds 1 to {MAX_WARPS} warps (at most 1024 threads)"
        ));
    }
    if !n.is_power_of_two() {
        return Err(format!("{n} warps per CTA: must be a power of two"));
    }
    Ok(n as u32)
}

/// `--prefix P`: the start of a C identifier.
fn parse_prefix(s: &str) -> Result<String, String> {
    let ok = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "`{s}` cannot start a C identifier (letters, digits and `_`, not starting with a digit)"
        ))
    }
}

/// Warps when `--warps` is not given.
const DEFAULT_WARPS: u32 = 4;

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
        /// Also print both layouts and the plan's stages (not with --json).
        #[arg(long, short, conflicts_with = "json")]
        verbose: bool,
    },
    /// Write a CUDA header with one helper per conversion.
    Emit {
        #[command(flatten)]
        input: Input,
        /// Output header (default: standard output). Written only if every
        /// conversion succeeds; never one of the inputs.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        naming: Naming,
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
        /// (8- and 16-bit types check the packed form too) [default: i8,f16,i32,i64]
        #[arg(long, value_delimiter = ',', conflicts_with = "cpu")]
        dtypes: Option<Vec<String>>,
        /// Write a markdown report (SASS counts per helper) here.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Also write the emitted header here.
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        naming: Naming,
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
        /// Warps per CTA, a power of two up to 32 (default: what the layout
        /// fixes, else 4).
        #[arg(long, value_parser = parse_warps)]
        warps: Option<u32>,
    },
    /// Draw a layout, or a conversion and its plan, as SVG (or a text table).
    Draw(draw_cmd::DrawArgs),
}

/// How emitted helpers are named.
#[derive(Args, Clone)]
struct Naming {
    /// Start of every helper's name: `<prefix><func>_<line>` for --ttgir,
    /// `<prefix><name>` for --src/--dst. Give headers that go into one
    /// translation unit different prefixes when their names collide.
    #[arg(long, default_value = "wf_", value_parser = parse_prefix)]
    prefix: String,
}

/// Where conversions come from: TTGIR files or one --src/--dst pair.
#[derive(Args, Clone)]
struct Source {
    /// TTGIR files: act on every ttg.convert_layout in each (`--ttgir a b`
    /// or `--ttgir a --ttgir b`).
    #[arg(long, num_args = 1.., conflicts_with_all = ["src", "dst", "shape", "dtype", "warps"])]
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
    /// Element type for --src/--dst (i32, f16, bf16, f32, i8, f8E4M3FN, ...) [default: f32].
    #[arg(long)]
    dtype: Option<String>,
    /// Warps per CTA for --src/--dst, a power of two up to 32 (default: what
    /// the layouts fix, else 4).
    #[arg(long, value_parser = parse_warps)]
    warps: Option<u32>,
    /// Name of the --src/--dst conversion (the helper is `<prefix><name>`)
    /// [default: `convert_` and a hash of the layouts, shape, type and warps,
    /// so two different conversions never share a name]. With --ttgir: act
    /// only on the conversions it names (`func:line`, or a function name).
    #[arg(long)]
    name: Option<String>,
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

/// What [`load`] read: the conversions and the texts they came from.
pub(crate) struct Loaded {
    /// A description of the origin, for headers: the files, or `command line`.
    pub origin: String,
    /// `(file, op)` for every conversion, in input order.
    pub ops: Vec<(String, ConvertOp)>,
    /// The text of each input by the name errors use (a path, `--src`, `--dst`).
    pub texts: Vec<(String, String)>,
    /// `--warps` was not given and the default applied (--src/--dst only).
    pub warps_default: WarpsFrom,
    /// The input paths, for refusing them as outputs.
    pub paths: Vec<PathBuf>,
}

impl Loaded {
    fn text(&self, name: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// A planning error message in the user's terms: for --src/--dst,
    /// "the module has N warps" is the --warps flag, saying when the
    /// default applied.
    pub fn in_user_terms(&self, msg: &str) -> String {
        if self.paths.is_empty() {
            cli_warps_terms(msg, self.warps_default)
        } else {
            msg.to_string()
        }
    }
}

/// Where the warp count of a --src/--dst conversion (or `layout --attr`)
/// came from, for errors in the user's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarpsFrom {
    /// `--warps` (or a TTGIR module's `ttg.num-warps`).
    Flag,
    /// Not given: the warps the layout of this flag fixes.
    Layout(&'static str),
    /// Not given and no layout fixes it: the default.
    Default,
}

impl WarpsFrom {
    /// For --src/--dst: the flag, the first layout that fixes the warps, or
    /// the default.
    fn of(flag: Option<u32>, layouts: &[(&'static str, &synth::input::LayoutText)]) -> WarpsFrom {
        if flag.is_some() {
            return WarpsFrom::Flag;
        }
        layouts
            .iter()
            .find(|(_, l)| l.num_warps.is_some())
            .map_or(WarpsFrom::Default, |(f, _)| WarpsFrom::Layout(f))
    }
}

fn cli_warps_terms(msg: &str, warps_default: WarpsFrom) -> String {
    let Some(i) = msg.find("the module has ") else {
        return msg.to_string();
    };
    let rest = &msg[i + "the module has ".len()..];
    let Some(j) = rest.find(" warps") else {
        return msg.to_string();
    };
    let n = &rest[..j];
    let flag = match warps_default {
        WarpsFrom::Default => {
            format!("--warps is {n} (the default {DEFAULT_WARPS} applied: --warps was not given)")
        }
        WarpsFrom::Layout(f) => {
            format!("--warps is {n} (--warps was not given: {n} is what {f} fixes)")
        }
        WarpsFrom::Flag => format!("--warps is {n}"),
    };
    format!("{}{flag}{}", &msg[..i], &rest[j + " warps".len()..])
}

/// Read a file as UTF-8 text without a leading byte-order mark.
fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "{}: not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(t) => t.to_string(),
        None => text,
    })
}

/// Turn one side's encoding into a layout once, so that an error points at
/// the attribute (the field at fault where there is one) in `text`, the
/// contents of `name`. `warps_default`: `Some` for --src/--dst, where warps
/// come from --warps (or its default).
fn check_side(
    name: &str,
    text: &str,
    (side, enc, at): (&str, &synth::encoding::Encoding, Span),
    op: &ConvertOp,
    warps_default: Option<WarpsFrom>,
) -> Result<()> {
    let Err(e) = enc.to_linear_layout(&op.shape, op.num_warps) else {
        return Ok(());
    };
    let mut msg = if side == "the" {
        e.to_string()
    } else if op.line > 0 {
        format!("{side} layout of `{}` (line {}): {e}", op.name, op.line)
    } else {
        format!("{side} layout: {e}")
    };
    if let Some(d) = warps_default {
        msg = cli_warps_terms(&msg, d);
    }
    let (span, label) = match &e {
        EncodingError::Field { field, .. } => {
            let f = field.strip_prefix("parent ").unwrap_or(field);
            match locate_field(text, at, f) {
                Some(sp) => (sp, format!("this `{f}`")),
                None => (at, format!("`{f}` of this layout")),
            }
        }
        _ if side == "the" => (at, "the layout".to_string()),
        _ => (at, format!("the {side} layout")),
    };
    Err(SourceError::new(name, text, span, msg, &label).into())
}

/// The conversions of the input: every `ttg.convert_layout` of each
/// `--ttgir` file, or the one `--src/--dst` pair. An input with no
/// conversion is an error.
pub(crate) fn load(input: &Source) -> Result<Loaded> {
    if !input.ttgir.is_empty() {
        let mut all = Vec::new();
        let mut texts = Vec::new();
        for path in &input.ttgir {
            let file = path.display().to_string();
            let text = read_text(path)?;
            let f = parse_ttgir(&text)
                .map_err(|e| SourceError::new(&file, &text, e.span(), e.msg.clone(), "here"))?;
            if f.converts.is_empty() {
                bail!(
                    "{file}: no ttg.convert_layout found: nothing to do (is this a TTGIR dump? `triton` writes them with MLIR_ENABLE_DUMP=1 or in its cache as *.ttgir)"
                );
            }
            for op in &f.converts {
                check_side(&file, &text, ("source", &op.src, op.src_at), op, None)?;
                check_side(&file, &text, ("destination", &op.dst, op.dst_at), op, None)?;
            }
            all.extend(f.converts.into_iter().map(|op| (file.clone(), op)));
            texts.push((file, text));
        }
        if let Some(pick) = &input.name {
            let there: Vec<String> = all.iter().map(|(_, op)| op.name.clone()).collect();
            all.retain(|(_, op)| op.name == *pick || op.func == *pick);
            if all.is_empty() {
                bail!(
                    "--name {pick}: no such conversion in the --ttgir input (there: {})",
                    there.join(", ")
                );
            }
        }
        let names: Vec<String> = input
            .ttgir
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        return Ok(Loaded {
            origin: names.join(", "),
            ops: all,
            texts,
            warps_default: WarpsFrom::Flag,
            paths: input.ttgir.clone(),
        });
    }
    let (Some(src), Some(dst)) = (&input.src, &input.dst) else {
        bail!("give --ttgir FILE, or --src LAYOUT --dst LAYOUT --shape AxB");
    };
    let s = layout_args::read("--src", src)?;
    let d = layout_args::read("--dst", dst)?;
    let shape = layout_args::shape(input.shape.as_deref(), &[("--src", &s), ("--dst", &d)])?;
    let shape_text: Vec<String> = shape.iter().map(|x| x.to_string()).collect();
    let dtype = input.dtype.as_deref().unwrap_or("f32");
    let elem =
        ElemType::parse(dtype).ok_or_else(|| anyhow!("--dtype: unknown element type `{dtype}`"))?;
    // the default applied only when neither --warps nor a layout fixes the warps
    let warps_default = WarpsFrom::of(input.warps, &[("--src", &s), ("--dst", &d)]);
    let warps = layout_args::warps(input.warps, &[&s, &d]);
    let whole = |t: &str| {
        let body = t.trim_start_matches('\u{feff}');
        let lead = t.len() - body.trim_start().len();
        Span {
            line: 1,
            col: lead + 1,
            len: body.trim().len(),
        }
    };
    let name = match &input.name {
        Some(n) => n.clone(),
        None => format!(
            "convert_{:08x}",
            kernels::stable_hash(&[
                src.trim(),
                dst.trim(),
                &shape_text.join("x"),
                dtype,
                &warps.to_string()
            ]) >> 32
        ),
    };
    let op = ConvertOp {
        name: name.clone(),
        line: 0,
        func: name,
        shape,
        elem,
        src: s.encoding,
        dst: d.encoding,
        src_text: s.ttgir,
        dst_text: d.ttgir,
        src_at: whole(src),
        dst_at: whole(dst),
        num_warps: warps,
        num_ctas: 1,
        doc: String::new(),
    };
    // an error in one side points into that flag's text
    check_side(
        "--src",
        src,
        ("source", &op.src, op.src_at),
        &op,
        Some(warps_default),
    )?;
    check_side(
        "--dst",
        dst,
        ("destination", &op.dst, op.dst_at),
        &op,
        Some(warps_default),
    )?;
    Ok(Loaded {
        origin: "command line".into(),
        ops: vec![("command line".into(), op)],
        texts: vec![("--src".into(), src.clone()), ("--dst".into(), dst.clone())],
        warps_default,
        paths: vec![],
    })
}

fn plan_all(input: &Input, loaded: &Loaded, all_widths: bool) -> Result<Vec<Planned>> {
    if matches!(input.strategy, Strategy::Shuffle) && input.max_smem.is_some() {
        bail!("--max-smem limits shared-memory plans, and --strategy shuffle makes none: drop one of them");
    }
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
    for (file, op) in loaded.ops.iter().cloned() {
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
            Err(e) => errors.push((where_, file, op, loaded.in_user_terms(&e.to_string()))),
        }
    }
    if let [(_, file, op, msg)] = &errors[..] {
        // one error: point at the op's types in its file
        if let (Some(text), true) = (loaded.text(file), op.line > 0) {
            let end = op.dst_at.col + op.dst_at.len;
            let span = Span {
                line: op.line,
                col: op.src_at.col,
                len: end.saturating_sub(op.src_at.col),
            };
            let msg = msg.strip_prefix(&format!("{}: ", op.name)).unwrap_or(msg);
            let label = format!("`{}`", op.name);
            return Err(SourceError::new(file, text, span, msg, &label).into());
        }
    }
    if !errors.is_empty() {
        let lines: Vec<String> = errors
            .iter()
            .map(|(w, _, _, m)| format!("{w}: {m}"))
            .collect();
        bail!("{}", lines.join("\n"));
    }
    Ok(out)
}

fn cost_json(c: &synth::plan::Cost) -> serde_json::Value {
    serde_json::to_value(c).expect("cost serializes")
}

/// The C identifier of each planned conversion's helper: `<prefix><func>_<line>`
/// (`<prefix><name>` for --src/--dst). Where two --ttgir files would give one
/// name, the helpers of those files are named `<prefix><file stem>_<func>_<line>`.
fn idents_of(planned: &[Planned], prefix: &str) -> Result<Vec<String>> {
    let plain: Vec<String> = planned
        .iter()
        .map(|p| kernels::ident_with_prefix(prefix, &p.op.name))
        .collect();
    let mut qualify: std::collections::HashSet<&str> = Default::default();
    let mut first: std::collections::HashMap<&str, &str> = Default::default();
    for (p, id) in planned.iter().zip(&plain) {
        if let Some(f) = first.insert(id, &p.file) {
            if f != p.file {
                qualify.insert(f);
                qualify.insert(&p.file);
            }
        }
    }
    let idents: Vec<String> = planned
        .iter()
        .zip(&plain)
        .map(|(p, id)| {
            if qualify.contains(p.file.as_str()) {
                let stem = Path::new(&p.file)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                kernels::ident_with_prefix(prefix, &format!("{stem}_{}", p.op.name))
            } else {
                id.clone()
            }
        })
        .collect();
    // two conversions whose names still map to one C identifier would
    // define the same helper twice: refuse before writing anything
    let mut seen: std::collections::HashMap<&str, &Planned> = Default::default();
    for (p, ident) in planned.iter().zip(&idents) {
        if let Some(q) = seen.insert(ident, p) {
            bail!(
                "{}:{} (`{}`) and {}:{} (`{}`) would both emit helper `{ident}`; emit them from separate invocations with different --prefix",
                q.file, q.op.line, q.op.name, p.file, p.op.line, p.op.name
            );
        }
    }
    Ok(idents)
}

fn header_of(
    planned: &[Planned],
    origin: &str,
    prefix: &str,
) -> Result<(String, Vec<kernels::EmittedHelper>)> {
    let idents = idents_of(planned, prefix)?;
    let helpers = planned
        .iter()
        .zip(&idents)
        .map(|(p, ident)| {
            if p.variants.is_empty() {
                let own = (plan_width(&p.conv), p.chosen.clone());
                kernels::emit_helper_widths_as(&p.conv, &[own], ident)
            } else {
                kernels::emit_helper_widths_as(&p.conv, &p.variants, ident)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((kernels::emit_header(&helpers, origin)?, helpers))
}

/// Print an error: the one-line form, then (for errors in an input text)
/// the snippet with the offending text underlined.
fn report(e: &anyhow::Error) {
    if let Some(se) = e.downcast_ref::<SourceError>() {
        let ctx: Vec<String> = e
            .chain()
            .take_while(|c| c.downcast_ref::<SourceError>().is_none())
            .map(|c| c.to_string())
            .collect();
        let lead = if ctx.is_empty() {
            String::new()
        } else {
            format!("{}: ", ctx.join(": "))
        };
        note!("warpforge: error: {lead}{}: {}", se.place, se.msg);
        let snippet = se.render();
        // the snippet's first line repeats the message: keep the source lines
        let body: Vec<&str> = snippet.lines().skip_while(|l| !l.contains("╭─[")).collect();
        if !body.is_empty() {
            note!("{}", body.join("\n"));
        }
    } else {
        note!("warpforge: error: {e:#}");
    }
}

/// Refuse output paths that are an input (a --ttgir file, the cost model)
/// or one another, before any work.
fn check_outputs_against(
    outs: &[(&str, Option<&Path>)],
    loaded: &Loaded,
    input: &Input,
) -> Result<()> {
    let outs: Vec<(&str, &Path)> = outs
        .iter()
        .filter_map(|(f, p)| p.map(|p| (*f, p)))
        .collect();
    let mut ins: Vec<(&str, &Path)> = loaded
        .paths
        .iter()
        .map(|p| ("--ttgir", p.as_path()))
        .collect();
    if let Some(c) = &input.cost_model {
        ins.push(("--cost-model", c));
    }
    output::check_outputs(&outs, &ins)
}

/// Exit codes: 0 success (and a closed standard output, as ripgrep does:
/// the reader has all it wanted), 1 any error, 2 a command-line error
/// (clap's).
fn main() {
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) if output::is_broken_pipe(&e) => 0,
        Err(e) => {
            report(&e);
            1
        }
    };
    std::process::exit(code);
}

fn run(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Bench(a) => bench_cmd::bench(a),
        Cmd::Fit(a) => bench_cmd::fit(a),
        Cmd::Draw(a) => draw_cmd::draw(a),
        Cmd::Layout { attr, shape, warps } => {
            let t = layout_args::read("--attr", &attr)?;
            let shape = layout_args::shape(shape.as_deref(), &[("--attr", &t)])?;
            let warps_default = WarpsFrom::of(warps, &[("--attr", &t)]);
            let num_warps = layout_args::warps(warps, &[&t]);
            let whole = Span {
                line: 1,
                col: 1,
                len: attr.trim_end().len(),
            };
            let op = ConvertOp {
                name: "layout".into(),
                line: 0,
                func: "layout".into(),
                shape: shape.clone(),
                elem: ElemType::parse("f32").expect("f32 is an element type"),
                src: t.encoding.clone(),
                dst: t.encoding.clone(),
                src_text: t.ttgir.clone(),
                dst_text: t.ttgir.clone(),
                src_at: whole,
                dst_at: whole,
                num_warps,
                num_ctas: 1,
                doc: String::new(),
            };
            check_side(
                "--attr",
                &attr,
                ("the", &op.src, op.src_at),
                &op,
                Some(warps_default),
            )?;
            let l = t
                .encoding
                .to_linear_layout(&shape, num_warps)
                .map_err(|e| {
                    anyhow!("--attr: {}", cli_warps_terms(&e.to_string(), warps_default))
                })?;
            output::print_all(&format!("{}\n", l.to_string().trim_start_matches('\n')))?;
            Ok(0)
        }
        Cmd::Plan { input, verbose } => {
            let loaded = load(&input.source)?;
            let planned = plan_all(&input, &loaded, false)?;
            let w = weights_of(&input.cost_model)?;
            let mut out = Stdout::new();
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
            out.finish()?;
            Ok(0)
        }
        Cmd::Emit {
            input,
            output,
            naming,
        } => {
            if input.json && output.is_none() {
                bail!("emit --json prints one JSON object per helper on standard output, where the header would go: give -o FILE for the header");
            }
            let loaded = load(&input.source)?;
            check_outputs_against(&[("-o", output.as_deref())], &loaded, &input)?;
            let planned = plan_all(&input, &loaded, true)?;
            let (header, helpers) = header_of(&planned, &loaded.origin, &naming.prefix)?;
            match &output {
                Some(path) => {
                    write_file(path, &header)?;
                    note!(
                        "warpforge: wrote {} helper(s) to {}",
                        helpers.len(),
                        path.display()
                    );
                }
                None => output::print_all(&header)?,
            }
            if input.json {
                let mut out = Stdout::new();
                for (p, h) in planned.iter().zip(&helpers) {
                    writeln!(
                        out,
                        "{}",
                        json!({"name": p.op.name, "kind": p.chosen.plan.kind.as_str(), "cost": cost_json(&p.chosen.cost),
                               "function": h.ident, "smem_elems": h.smem_elems})
                    )?;
                }
                out.finish()?;
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
            naming,
        } => {
            let dtypes = dtypes.unwrap_or_else(|| {
                ["i8", "f16", "i32", "i64"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect()
            });
            let dts = dtypes
                .iter()
                .map(|d| {
                    DType::parse(d.trim()).ok_or_else(|| {
                        let all: Vec<&str> = DType::ALL.iter().map(|t| t.name()).collect();
                        anyhow!("--dtypes: unknown `{d}` ({})", all.join(", "))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let loaded = load(&input.source)?;
            check_outputs_against(
                &[("-o", output.as_deref()), ("--report", report.as_deref())],
                &loaded,
                &input,
            )?;
            let origin = loaded.origin.clone();
            let planned = plan_all(&input, &loaded, true)?;
            let (header, helpers) = header_of(&planned, &origin, &naming.prefix)?;
            if let Some(path) = &output {
                write_file(path, &header)?;
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
                        note!("warpforge: {e}; verifying on the CPU simulator only (pass --gpu to require a GPU)");
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
                note!(
                    "warpforge: GPU {} (sm_{}{}), driver {}, NVRTC {}.{}; module compiled in {:.2} s",
                    r.gpu.name, r.gpu.sm.0, r.gpu.sm.1, r.gpu.driver_version, r.gpu.nvrtc_version.0, r.gpu.nvrtc_version.1, r.compile_seconds
                );
                for n in &r.notes {
                    note!("warpforge: note: {n}");
                }
                Some(r)
            } else {
                None
            };
            let mut failed = 0;
            let mut out = Stdout::new();
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
            out.finish()?;
            if let Some(path) = &report {
                write_file(
                    path,
                    &markdown_report(&origin, &planned, gpu_report.as_ref()),
                )?;
            }
            note!(
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
