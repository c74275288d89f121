//! warpforge's library entry point: text in, planned conversions and their
//! CUDA helpers out. The CLI, the `bench` harness and the tests all plan
//! through here.
//!
//! The pipeline (see `docs/ARCHITECTURE.md`): [`load`] reads TTGIR files
//! or one layout pair into `ttg.convert_layout` ops; [`plan`] turns each op
//! into a [`synth::plan::Conversion`] (two linear layouts) and searches,
//! proves on the CPU simulator and chooses a plan for it
//! ([`synth::search`]), for every element width a helper dispatches on;
//! [`PlannedInput::emit`] prints the helpers as one CUDA header ([`kernels`]).
//!
//! ```
//! use pipeline::{plan_file, plan_pair, Options, Pair};
//!
//! // every conversion of a TTGIR file, planned with the built-in cost model
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/pairs.mlir");
//! let planned = plan_file(path, &Options::default())?;
//! assert!(!planned.conversions.is_empty());
//! for p in &planned.conversions {
//!     // the plan of the conversion's own element width, proven on the CPU
//!     let ch = &p.chosen;
//!     println!("{} {} {}", p.op.name, ch.plan.kind.as_str(), ch.cost);
//! }
//! // one header with a helper per conversion
//! let emitted = planned.emit("wf_")?;
//! assert_eq!(emitted.helpers.len(), planned.conversions.len());
//! assert!(emitted.header.contains("__device__"));
//!
//! // one pair of layouts, as `--src`/`--dst` take them
//! let pair = Pair {
//!     src: "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>".into(),
//!     dst: "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>".into(),
//!     shape: Some("64x64".into()),
//!     dtype: Some("f16".into()),
//!     name: Some("transpose".into()),
//!     ..Pair::default()
//! };
//! let planned = plan_pair(&pair, &Options::default())?;
//! let emitted = planned.emit("my_")?;
//! assert_eq!(emitted.helpers[0].ident, "my_transpose");
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! Errors are [`anyhow::Error`]s in the user's terms; one that points into
//! an input text downcasts to [`SourceError`] (file or flag, line, column,
//! the offending text underlined).

pub mod diag;
pub mod layout_args;
pub mod load;
mod names;

pub use diag::SourceError;
pub use kernels::Api;
pub use load::{load_files, load_pair, Loaded, Pair, WarpsFrom};

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use synth::parse::{ConvertOp, Span};
use synth::plan::{Conversion, SharedOptions, StrategyChoice};
use synth::search::{plan_all_widths, plan_conversion_with, plan_width, Chosen, Weights};

/// Warps per CTA when neither `--warps` nor a layout fixes them.
pub const DEFAULT_WARPS: u32 = 4;

/// How conversions are planned.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Which strategies the search may use.
    pub strategy: StrategyChoice,
    /// The cost model's weights (default: the built-in model,
    /// `synth/cost_models/default.json`).
    pub weights: Weights,
    /// Target compute capability, `10 * major + minor` (`ldmatrix` needs 75,
    /// `stmatrix` 90).
    pub sm: u32,
    /// Most shared-memory scratch a helper may use, in bytes; larger plans go
    /// in rounds. Whatever it says, every element width's scratch stays
    /// within the target's per-block limit ([`synth::plan::smem_limit`] of
    /// `sm`). `None`: that limit alone.
    pub max_smem: Option<u64>,
    /// Most predicted register peak per thread
    /// ([`synth::plan::peak_registers`], in the form a caller should use:
    /// packed for 8/16-bit elements where the helper has one): candidates
    /// over it rank after those within it, and a conversion whose chosen
    /// plan is still over it is refused. `None`: the launch bounds' limit
    /// of the conversion's warps ranks candidates the same way, but refuses
    /// nothing (a tile whose data alone is over it is planned, as Triton
    /// lowers it, and reported `over_register_limit`).
    pub max_registers: Option<u32>,
    /// Plan every element width the emitted helper dispatches on (8, 16, 32,
    /// 64 bits), as `plan`, `emit` and `verify` need; `false`: only the
    /// conversion's own width, as `draw` shows.
    pub all_widths: bool,
}

impl Default for Options {
    /// Any strategy, the built-in cost model, sm_90, no scratch limit,
    /// every element width.
    fn default() -> Self {
        Options {
            strategy: StrategyChoice::Auto,
            weights: Weights::default(),
            sm: 90,
            max_smem: None,
            max_registers: None,
            all_widths: true,
        }
    }
}

/// One planned conversion.
#[derive(Clone, Debug)]
pub struct Planned {
    /// The file the conversion came from (`command line` for a pair).
    pub file: String,
    /// The `ttg.convert_layout` op (name `func:line`, shape, type, warps).
    pub op: ConvertOp,
    /// Both layouts as linear layouts over the op's shape.
    pub conv: Conversion,
    /// The plan for the conversion's own element width.
    pub chosen: Chosen,
    /// Plans for every element width the emitted helper dispatches on
    /// (empty when only the own width was planned).
    pub variants: Vec<(u32, Chosen)>,
}

/// The planned conversions of one input.
#[derive(Clone, Debug)]
pub struct PlannedInput {
    /// The files (or `command line`), as the header names them.
    pub origin: String,
    /// One per conversion, in input order.
    pub conversions: Vec<Planned>,
}

/// An emitted header and its helpers (in the order of the conversions).
#[derive(Clone, Debug)]
pub struct Emitted {
    /// The whole header: guards, then one helper per conversion.
    pub header: String,
    pub helpers: Vec<kernels::EmittedHelper>,
}

impl PlannedInput {
    /// One CUDA header with a helper per conversion, named
    /// `<prefix><func>_<line>` (`<prefix><name>` for a pair; where two files
    /// would give one name, `<prefix><file stem>_<func>_<line>`).
    ///
    /// Errors: two conversions that would still define one C identifier,
    /// a plan stage with no CUDA emission.
    pub fn emit(&self, prefix: &str) -> Result<Emitted> {
        self.emit_api(prefix, Api::Array)
    }

    /// [`PlannedInput::emit`] offering the helpers in `api`:
    /// [`Api::Array`] gives exactly [`PlannedInput::emit`]'s header;
    /// [`Api::Cute`] adds an overload of every helper (and of its
    /// packed forms) on CuTe register fragments after the array forms
    /// ([`kernels::cute_section`]; `emit --api cute`). Same errors.
    pub fn emit_api(&self, prefix: &str, api: Api) -> Result<Emitted> {
        names::emit(&self.conversions, &self.origin, prefix, api)
    }
}

/// Plan every conversion of the TTGIR file at `path` (see [`load_files`]
/// and [`plan`] for the errors).
pub fn plan_file(path: impl AsRef<Path>, opts: &Options) -> Result<PlannedInput> {
    let loaded = load_files(&[PathBuf::from(path.as_ref())], None)?;
    Ok(PlannedInput {
        conversions: plan(&loaded, opts)?,
        origin: loaded.origin,
    })
}

/// Plan the conversion of one layout pair (see [`load_pair`] and [`plan`]
/// for the errors).
pub fn plan_pair(pair: &Pair, opts: &Options) -> Result<PlannedInput> {
    let loaded = load_pair(pair)?;
    Ok(PlannedInput {
        conversions: plan(&loaded, opts)?,
        origin: loaded.origin,
    })
}

/// Plan every conversion of `loaded`: search, prove on the CPU simulator and
/// choose under `opts.weights`, for the own element width or every width.
///
/// Errors: `--max-smem` with a shuffle-only strategy; any conversion that
/// cannot be planned (all of them listed, one per line, as
/// `file:line: reason`; a single one in a file as a [`SourceError`] at its
/// op's types).
pub fn plan(loaded: &Loaded, opts: &Options) -> Result<Vec<Planned>> {
    if matches!(opts.strategy, StrategyChoice::Shuffle) && opts.max_smem.is_some() {
        bail!("--max-smem limits shared-memory plans, and --strategy shuffle makes none: drop one of them");
    }
    let shared = SharedOptions {
        sm: opts.sm,
        max_smem: Some(scratch_cap(opts.sm, opts.max_smem)),
        max_registers: opts.max_registers,
        ..SharedOptions::default()
    };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (file, op) in loaded.ops.iter().cloned() {
        match plan_op(&op, opts, &shared).and_then(|r| check_registers(&op, r, opts)) {
            Ok((conv, chosen, variants)) => out.push(Planned {
                file,
                op,
                conv,
                chosen,
                variants,
            }),
            Err(e) => errors.push((file, op, loaded.in_user_terms(&e.to_string()))),
        }
    }
    if let [(file, op, msg)] = &errors[..] {
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
            .map(|(file, op, m)| {
                let at = if op.line > 0 {
                    format!("{file}:{}", op.line)
                } else {
                    file.clone()
                };
                format!("{at}: {m}")
            })
            .collect();
        bail!("{}", lines.join("\n"));
    }
    Ok(out)
}

/// The scratch bytes a plan may use on target `sm`: the target's per-block
/// shared-memory limit ([`synth::plan::smem_limit`]), or `max_smem` when
/// smaller. Rounds are chosen per element width under it, so every width a
/// helper serves fits.
pub fn scratch_cap(sm: u32, max_smem: Option<u64>) -> u64 {
    let limit = synth::plan::smem_limit(sm);
    max_smem.map_or(limit, |m| m.min(limit))
}

/// The conversion (both linear layouts) of every op of `loaded`, with the
/// file it came from, without planning: what `bench` times candidates of.
///
/// Errors: every op whose layouts do not make a conversion (listed one per
/// line as `file:line: reason`).
pub fn conversions(loaded: &Loaded) -> Result<Vec<(String, Conversion)>> {
    let mut convs = Vec::new();
    let mut errors = Vec::new();
    for (file, op) in &loaded.ops {
        match Conversion::from_op(op) {
            Ok(c) => convs.push((file.clone(), c)),
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
    Ok(convs)
}

/// An op's conversion, the plan of its own width, and the plans per width.
type OpPlans = (Conversion, Chosen, Vec<(u32, Chosen)>);

/// The predicted register peak of a planned conversion's own width in the
/// form a caller should use (packed for 8/16-bit elements where a packed
/// form exists), and whether that form is the packed one.
pub fn preferred_peak(conv: &Conversion, chosen: &Chosen) -> (synth::plan::RegisterPeak, bool) {
    synth::plan::preferred_peak(&chosen.plan, plan_width(conv))
}

/// `--max-registers`: refuse a plan whose predicted peak is over the cap.
fn check_registers(
    op: &ConvertOp,
    r: OpPlans,
    opts: &Options,
) -> Result<OpPlans, synth::plan::PlanError> {
    let Some(max) = opts.max_registers else {
        return Ok(r);
    };
    let (peak, packed) = preferred_peak(&r.0, &r.1);
    if peak.peak > max {
        return Err(synth::plan::PlanError::OverRegisterCap {
            name: op.name.clone(),
            form: if packed { "packed" } else { "element" },
            peak: peak.peak,
            data: peak.data,
            max,
        });
    }
    Ok(r)
}

/// One op: its conversion, the plan of its own width, and the plans of
/// every width when `opts.all_widths`.
fn plan_op(
    op: &ConvertOp,
    opts: &Options,
    shared: &SharedOptions,
) -> Result<OpPlans, synth::plan::PlanError> {
    let c = Conversion::from_op(op)?;
    let own = plan_width(&c);
    if opts.all_widths {
        let v = plan_all_widths(&c, opts.strategy, &opts.weights, shared)?;
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
            ..*shared
        };
        plan_conversion_with(&c, opts.strategy, &opts.weights, &opt).map(|ch| (c, ch, vec![]))
    }
}
