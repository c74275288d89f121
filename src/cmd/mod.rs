//! One module per subcommand, each a function from its parsed arguments to
//! an exit code; the argument groups they share (where conversions come
//! from, the planner's options, helper naming, the cost model) are defined
//! here once.

pub mod bench;
pub mod draw;
pub mod emit;
pub mod fit;
pub mod layout;
pub mod plan;
pub mod verify;

use crate::output;
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use pipeline::{Loaded, Pair};
use std::path::{Path, PathBuf};
use synth::parse::MAX_WARPS;
use synth::plan::StrategyChoice;
use synth::search::{CostModel, Weights};

/// `--warps N`: warps per CTA, a power of two from 1 to 32 (1024 threads).
pub(crate) fn parse_warps(s: &str) -> Result<u32, String> {
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

/// `--ctas N`: CTAs of the cluster, a power of two from 1 to 16.
pub(crate) fn parse_ctas(s: &str) -> Result<u32, String> {
    let max = synth::encoding::MAX_CTAS;
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of CTAs"))?;
    if n == 0 || n > max as u64 {
        return Err(format!(
            "{n} CTAs: a cluster holds 1 to {max} CTAs (16 is sm_90's largest, non-portable; 8 is portable)"
        ));
    }
    if !n.is_power_of_two() {
        return Err(format!("{n} CTAs: must be a power of two"));
    }
    Ok(n as u32)
}

/// `--name N` of a `--src/--dst` pair: the helper is `<prefix>N`, so N must
/// be usable unchanged as the rest of a C identifier (ASCII letters, digits
/// and `_`, 1 to 200 of them): nothing is mangled, so two names never meet
/// in one identifier, and nothing else can reach the emitted code.
fn check_pair_name(n: &str) -> Result<()> {
    let bad = n
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'));
    if n.is_empty() || n.len() > 200 || bad.is_some() {
        let shown: String = n.chars().take(60).collect();
        let why = match bad {
            Some(c) => format!("holds {c:?}"),
            None if n.is_empty() => "is empty".to_string(),
            None => format!("is {} characters long", n.len()),
        };
        bail!(
            "--name {shown:?} {why}: the helper is named <prefix><name>, so --name takes 1 to 200 ASCII letters, digits and `_`"
        );
    }
    Ok(())
}

/// A command-line error found after parsing (an input missing, flags that
/// do not fit together): exit status 2, as clap's own.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UsageError(pub String);

/// `--dtype T`: an MLIR element type warpforge knows (a command-line
/// error, exit 2, otherwise).
fn parse_dtype(s: &str) -> Result<String, String> {
    match synth::parse::ElemType::parse(s.trim()) {
        Some(_) => Ok(s.trim().to_string()),
        None => Err(format!(
            "unknown element type `{s}` (i1, i8, i16, i32, i64, f16, bf16, f32, f64, tf32, f8E4M3FN, f8E5M2, ...)"
        )),
    }
}

/// `--shape AxB`: positive integers joined by `x` (a command-line error,
/// exit 2, otherwise; a leading `-` is read as the value, not a flag).
fn parse_shape_arg(s: &str) -> Result<String, String> {
    synth::parse::parse_shape(s)?;
    Ok(s.to_string())
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

/// How emitted helpers are named.
#[derive(Args, Clone)]
pub(crate) struct Naming {
    /// Start of every helper's name: `<prefix><func>_<line>` for --ttgir,
    /// `<prefix><name>` for --src/--dst. Give headers that go into one
    /// translation unit different prefixes when their names collide.
    #[arg(long, default_value = "wf_", value_parser = parse_prefix)]
    pub prefix: String,
}

/// Where conversions come from: TTGIR files or one --src/--dst pair.
#[derive(Args, Clone)]
pub(crate) struct Source {
    /// TTGIR files: act on every ttg.convert_layout in each (`--ttgir a b`
    /// or `--ttgir a --ttgir b`).
    #[arg(long, num_args = 1.., conflicts_with_all = ["src", "dst", "shape", "dtype", "warps", "ctas", "target"])]
    pub ttgir: Vec<PathBuf>,
    /// Source layout: a TTGIR attribute, LinearLayout::toString text, JSON
    /// bases, a Gluon constructor, a CuTe thread-value layout as cute::print
    /// writes it ('((_4,_8),(_2,_2)):((_32,_1),(_16,_8))'), a PTX register
    /// fragment ('ptx:mma.m16n8k16.c.f32'), or @FILE holding any of these.
    #[arg(long, requires = "dst")]
    pub src: Option<String>,
    /// Destination layout (the same formats as --src).
    #[arg(long, requires = "src")]
    pub dst: Option<String>,
    /// Tensor shape for --src/--dst, e.g. 64x32 (default: the shape the
    /// layouts carry: toString out dims, JSON or Gluon `shape`).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_shape_arg)]
    pub shape: Option<String>,
    /// Element type for --src/--dst (i32, f16, bf16, f32, i8, f8E4M3FN, ...) [default: f32].
    #[arg(long, value_parser = parse_dtype)]
    pub dtype: Option<String>,
    /// Warps per CTA for --src/--dst, a power of two up to 32 (default: what
    /// the layouts fix, else 4).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_warps)]
    pub warps: Option<u32>,
    /// CTAs of the cluster for --src/--dst, a power of two up to 16
    /// (default: the CTAs the --src layout spans: its `block` bases,
    /// CTAsPerCGA or CGALayout; 1 when it says nothing). Both layouts must
    /// span this many.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_ctas)]
    pub ctas: Option<u32>,
    /// Name of the --src/--dst conversion (the helper is `<prefix><name>`)
    /// [default: `convert_` and a hash of the layouts, shape, type and warps,
    /// so two different conversions never share a name]. With --ttgir: act
    /// only on the conversions it names (`func:line`, or a function name).
    #[arg(long)]
    pub name: Option<String>,
    /// AMD target of the --src/--dst conversion: CDNA gfx908, gfx90a, gfx942 or
    /// gfx950 (64-lane waves) or RDNA gfx1100-gfx1103, gfx1150, gfx1151,
    /// gfx1200 or gfx1201 (32-lane waves), as a TTGIR module's ttg.target =
    /// "hip:gfx942" says for --ttgir: its layouts on that wave, a HIP helper
    /// (feature flags as rocminfo prints them, gfx90a:sramecc+:xnack-, are
    /// dropped) [default: NVIDIA, 32-lane warps, the target of --sm].
    #[arg(long, value_parser = parse_amd_target)]
    pub target: Option<synth::target::AmdArch>,
}

/// `--target`: an AMD architecture warpforge plans for (`gfx942`, or
/// `hip:gfx942` as `ttg.target` writes it, or with the feature flags
/// `rocminfo` and HIP's `gcnArchName` append, `gfx90a:sramecc+:xnack-`,
/// which Triton's driver drops too).
pub(crate) fn parse_amd_target(s: &str) -> Result<synth::target::AmdArch, String> {
    let name = s.trim().strip_prefix("hip:").unwrap_or(s.trim());
    let mut parts = name.split(':');
    let name = parts.next().unwrap_or(name);
    // feature flags as rocminfo writes them: `sramecc+`, `xnack-`
    if let Some(f) = parts.find(|f| {
        let Some(flag) = f.strip_suffix(['+', '-']) else {
            return true;
        };
        flag.is_empty() || !flag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    }) {
        return Err(format!(
            "`{s}`: `{f}` is not a feature flag (written `name+` or `name-`, as in gfx90a:sramecc+:xnack-)"
        ));
    }
    synth::target::AmdArch::parse(name).ok_or_else(|| {
        format!(
            "`{s}`: --target names an AMD architecture warpforge plans for: {} (NVIDIA targets: --sm)",
            synth::target::AmdArch::ALL.map(|a| a.name()).join(", ")
        )
    })
}

impl Source {
    /// The conversions of the input: every `ttg.convert_layout` of each
    /// `--ttgir` file, or the one `--src/--dst` pair.
    pub fn load(&self) -> Result<Loaded> {
        if !self.ttgir.is_empty() {
            if let Some(n) = &self.name {
                if let Some(c) = n.chars().find(|c| c.is_control()) {
                    bail!("--name: {:?} holds the control character {c:?}: give a conversion (`func:line`) or function name", n);
                }
            }
            return pipeline::load_files(&self.ttgir, self.name.as_deref());
        }
        let (Some(src), Some(dst)) = (&self.src, &self.dst) else {
            return Err(UsageError(
                "give --ttgir FILE, or --src LAYOUT --dst LAYOUT --shape AxB".into(),
            )
            .into());
        };
        if let Some(n) = &self.name {
            check_pair_name(n)?;
        }
        pipeline::load_pair(&Pair {
            src: src.clone(),
            dst: dst.clone(),
            shape: self.shape.clone(),
            dtype: self.dtype.clone(),
            warps: self.warps,
            ctas: self.ctas,
            name: self.name.clone(),
            target: self.target,
        })
    }
}

/// `--cost-model FILE`, shared by every command that ranks plans.
#[derive(Args, Clone)]
pub(crate) struct Model {
    /// Cost-model file (`warpforge fit` writes one) to rank plans with.
    /// Default: the built-in model (synth/cost_models/default.json).
    #[arg(long, value_name = "FILE")]
    pub cost_model: Option<PathBuf>,
}

impl Model {
    /// The weights of `--cost-model FILE`, or the built-in model's.
    pub fn weights(&self) -> Result<Weights> {
        let Some(p) = &self.cost_model else {
            return Ok(Weights::default());
        };
        let text =
            synth::input::read_input_file(p).map_err(|e| anyhow::anyhow!("--cost-model {e}"))?;
        Ok(CostModel::from_json(&text, &format!("--cost-model {}", p.display()))?.weights)
    }
}

/// `--strategy`: `auto`, `shuffle`, `shared`, and for conversions across
/// the CTAs of a cluster (docs/ARCHITECTURE.md 4.7) `cluster-store` (writer
/// stores remotely) or `cluster-load` (reader loads remotely); `auto` lets
/// the cost model choose.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Strategy {
    Auto,
    Shuffle,
    Shared,
    /// Cluster conversions only: the writer stores into the CTAs that need
    /// the data (`mapa` + `st.shared::cluster`).
    ClusterStore,
    /// Cluster conversions only: the reader loads from the CTAs that hold
    /// the data (`mapa` + `ld.shared::cluster`).
    ClusterLoad,
}

/// The input and the planner's options, as `plan`, `emit`, `verify` and
/// `draw` take them.
#[derive(Args)]
pub(crate) struct Input {
    #[command(flatten)]
    pub source: Source,
    /// Which strategies the planner may use.
    #[arg(long, value_enum, default_value_t = Strategy::Auto)]
    pub strategy: Strategy,
    /// One JSON object per line, one per conversion.
    #[arg(long)]
    pub json: bool,
    /// Target compute capability, 10 * major + minor (ldmatrix needs 75,
    /// stmatrix and clusters 90), 70 to 121 [default: each file's
    /// `ttg.target = "cuda:NN"`, else 90]. A file whose target differs
    /// has its conversions refused (the message names both).
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(70..=121))]
    pub sm: Option<u32>,
    /// With --sm: plan every conversion for --sm even where its file's
    /// `ttg.target` names another architecture.
    #[arg(long, requires = "sm")]
    pub override_target: bool,
    /// Most shared-memory scratch a helper may use, in bytes; larger
    /// conversions go in rounds (more barriers), chosen per element width.
    /// Default: the --sm target's per-block limit (sm_80 163 KB, sm_86/sm_89
    /// 99 KB, sm_90 227 KB), which also caps any value given here. One-warp
    /// CTAs go in rounds of at most 2 KB wherever a plan fits them, else in
    /// the most rounds the tile allows, whatever this says above that; a plan
    /// of more scratch only where it scores below 0.8 of those.
    #[arg(long, allow_negative_numbers = true, value_name = "BYTES")]
    pub max_smem: Option<u64>,
    /// Most predicted register peak per thread (in the form to use: packed
    /// for 8/16-bit data): candidate plans over N rank after those within
    /// it, and a conversion whose best plan is still over N is refused.
    /// Default: the launch bounds' limit (255; 128 at 16 warps; 64 at 32
    /// warps) ranks the candidates the same way but refuses nothing; the
    /// peak and the limit are reported by `plan --json` and the header.
    /// `verify --gpu` compiles its register-budget loop kernels under
    /// `__maxnreg__(N)` and fails a loop body that spills there while the
    /// data alone leaves 16 of N spare.
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u32).range(16..=255))]
    pub max_registers: Option<u32>,
    #[command(flatten)]
    pub model: Model,
    /// `warpforge bench --json` rows of the GPU to plan for (best timed with
    /// `bench --pair same-family`: a candidate timed through a reverse of
    /// the other family is not counted): a conversion they timed gets the
    /// proven candidate that ran more than 2% faster than the cost model's
    /// choice in every form the latter was timed in, where one did; the
    /// header and `plan` say so. Conversions are matched by their layouts,
    /// shape, element width, warps and target sm (`key` in `plan --json`),
    /// not by name, so rows of one file serve every file with the same
    /// conversions; a note says when the rows match none of the input.
    #[arg(long, value_name = "FILE")]
    pub measured: Option<PathBuf>,
}

impl Input {
    /// The planner's options; `all_widths` for commands that emit helpers.
    pub fn options(&self, all_widths: bool) -> Result<pipeline::Options> {
        Ok(pipeline::Options {
            strategy: match self.strategy {
                Strategy::Auto => StrategyChoice::Auto,
                Strategy::Shuffle => StrategyChoice::Shuffle,
                Strategy::Shared => StrategyChoice::Shared,
                Strategy::ClusterStore => StrategyChoice::ClusterStore,
                Strategy::ClusterLoad => StrategyChoice::ClusterLoad,
            },
            weights: self.model.weights()?,
            sm: self.sm,
            override_target: self.override_target,
            max_smem: self.max_smem,
            max_registers: self.max_registers,
            all_widths,
            measured: match &self.measured {
                Some(p) => Some(std::sync::Arc::new(pipeline::measured::Measurements::read(
                    p,
                )?)),
                None => None,
            },
        })
    }

    /// Plan the loaded input: every conversion served or refused; each
    /// refused one (and each input without conversions) is reported on
    /// standard error with its place and reason.
    pub fn plan(&self, loaded: &Loaded, all_widths: bool) -> Result<pipeline::PlannedInput> {
        let opts = self.options(all_widths)?;
        let planned = pipeline::plan(loaded, &opts)?;
        if let Some(m) = &opts.measured {
            let matched = planned
                .conversions
                .iter()
                .filter(|p| p.measured.is_some())
                .count();
            let mut sms: Vec<u32> = planned.conversions.iter().map(|p| p.target.sm).collect();
            sms.sort_unstable();
            sms.dedup();
            let sms: Vec<String> = sms.iter().map(|s| format!("sm_{s}")).collect();
            note!(
                "warpforge: --measured {}: rows of {} conversion(s) ({} timing(s) through a reverse of the other family not counted); {matched} of the {} conversion(s) planned here ({}) have rows{}",
                m.source,
                m.len(),
                m.mixed,
                planned.conversions.len(),
                sms.join(", "),
                if matched == 0 && !planned.conversions.is_empty() {
                    ": rows match by layouts, shape, element width, warps and target sm (`key` in `plan --json`); rows timed on another GPU than these targets, or of other conversions, match none"
                } else {
                    ""
                }
            );
        }
        for f in &loaded.empty {
            note!("warpforge: {f}: no ttg.convert_layout: nothing to do for this file");
        }
        report_refused(&planned);
        Ok(planned)
    }
}

/// Refuse output paths that are an input (a --ttgir file, the cost model,
/// the `--measured` rows, a `@FILE` of `--src`/`--dst`) or one another,
/// before any work.
pub(crate) fn check_outputs_against(
    outs: &[(&str, Option<&Path>)],
    loaded: &Loaded,
    model: &Model,
    source: &Source,
    measured: Option<&Path>,
) -> Result<()> {
    let mut flags: Vec<(&str, Option<&str>)> = vec![
        ("--src", source.src.as_deref()),
        ("--dst", source.dst.as_deref()),
    ];
    if let Some(c) = &model.cost_model {
        flags.push(("--cost-model", c.to_str()));
    }
    if let Some(m) = measured {
        flags.push(("--measured", m.to_str()));
    }
    check_outputs_of(outs, &loaded.paths, &flags)
}

/// Refuse output paths that are one of `ttgir` (the `--ttgir` files) or a
/// file that a flag value names (`@FILE` of a layout flag; the whole value
/// of `--cost-model` and `--measured`), through symlinks and hard links, or one another.
pub(crate) fn check_outputs_of(
    outs: &[(&str, Option<&Path>)],
    ttgir: &[PathBuf],
    flags: &[(&str, Option<&str>)],
) -> Result<()> {
    let outs: Vec<(&str, &Path)> = outs
        .iter()
        .filter_map(|(f, p)| p.map(|p| (*f, p)))
        .collect();
    let named: Vec<(&str, PathBuf)> = flags
        .iter()
        .filter_map(|(f, v)| {
            let v = (*v)?;
            let path = if *f == "--cost-model" || *f == "--measured" {
                v
            } else {
                v.trim_start_matches('\u{feff}')
                    .trim()
                    .strip_prefix('@')?
                    .trim()
            };
            Some((*f, PathBuf::from(path)))
        })
        .collect();
    let mut ins: Vec<(&str, &Path)> = ttgir.iter().map(|p| ("--ttgir", p.as_path())).collect();
    ins.extend(named.iter().map(|(f, p)| (*f, p.as_path())));
    output::check_outputs(&outs, &ins)
}

/// The predicted cost as JSON.
pub(crate) fn cost_json(c: &synth::plan::Cost) -> serde_json::Value {
    serde_json::to_value(c).expect("cost serializes")
}

/// Today's date (UTC) as YYYY-MM-DD (civil-from-days, H. Hinnant).
pub(crate) fn today() -> String {
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

/// Every refused conversion (and unreadable file) of `planned` on standard
/// error: `warpforge: refused: <place>: <reason>`, then the source lines.
pub(crate) fn report_refused(planned: &pipeline::PlannedInput) {
    for r in &planned.refused {
        let what = if r.is_file() {
            "file not read".to_string()
        } else {
            format!("refused `{}`", r.name)
        };
        note!("warpforge: {what}: {}: {}", r.place, r.reason);
        if !r.snippet.is_empty() {
            note!("{}", r.snippet);
        }
    }
    if !planned.refused.is_empty() {
        note!(
            "warpforge: {} conversion(s) served, {} refused (exit status 1)",
            planned.conversions.len(),
            planned.refused.iter().filter(|r| !r.is_file()).count()
        );
    }
}

/// The exit status of a run that served `planned`: 0 when every
/// conversion was served, 1 when any was refused (README "Exit status").
pub(crate) fn served_status(planned: &pipeline::PlannedInput) -> i32 {
    if planned.all_served() {
        0
    } else {
        1
    }
}

/// The JSON record of a refused conversion (or file).
pub(crate) fn refused_json(r: &pipeline::Refused, ident: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "file": r.file, "name": r.name, "line": r.line, "status": "refused",
        "reason": r.reason, "place": r.place, "target": r.target, "helper": ident,
    })
}
