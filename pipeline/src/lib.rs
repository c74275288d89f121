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
//! Every planner option is a field of [`Options`]; the types they name are
//! re-exported here, so a Rust caller needs only this crate:
//!
//! ```
//! use pipeline::{plan_file, CostModel, Options, StrategyChoice};
//!
//! let opts = Options {
//!     strategy: StrategyChoice::Shared,   // shared-memory plans only
//!     weights: CostModel::builtin().weights,
//!     sm: Some(80),                       // plan for an A100 ...
//!     override_target: true,              // ... whatever the file says
//!     max_smem: Some(48 * 1024),          // scratch in rounds of at most 48 KB
//!     max_registers: Some(128),
//!     all_widths: true,                   // 8/16/32/64-bit, as `emit` serves
//!     measured: None,                     // no `warpforge bench` rows
//! };
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/ttgir/colsum_trans_fp16_32x32_w1_sm80.ttgir");
//! let planned = plan_file(path, &opts)?;
//! for p in &planned.conversions {
//!     assert_eq!(p.target.sm, 80);
//!     assert_eq!(p.chosen.cost.stsm, 0); // no `stmatrix` below sm_90
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! Errors are [`anyhow::Error`]s in the user's terms; one that points into
//! an input text downcasts to [`SourceError`] (file or flag, line, column,
//! the offending text underlined).

pub mod diag;
pub mod layout_args;
pub mod load;
pub mod measured;
mod names;

pub use diag::SourceError;
pub use kernels::Api;
pub use load::{load_files, load_pair, Loaded, Pair, Refused, WarpsFrom};
// What `Options` and `Planned` name, so that a Rust caller needs only this
// crate: strategies, cost models, the planned conversion and its plan.
pub use synth::parse::ConvertOp;
pub use synth::plan::{Conversion, StrategyChoice};
pub use synth::search::{Chosen, CostModel, Weights};

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use synth::parse::Span;
use synth::plan::SharedOptions;
use synth::search::{plan_conversion_with, plan_width};
pub use synth::target::AmdArch;

/// Warps per CTA when neither `--warps` nor a layout fixes them.
pub const DEFAULT_WARPS: u32 = 4;

/// The target compute capability when neither `--sm` nor the input's
/// `ttg.target` names one (sm_90, Hopper).
pub const DEFAULT_SM: u32 = 90;

/// The compute capabilities warpforge plans for: sm_70 to sm_121.
pub const SM_RANGE: std::ops::RangeInclusive<u32> = 70..=121;

/// The architecture a conversion is planned for, and what said so.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Target {
    /// Compute capability, `10 * major + minor` (80: sm_80); 0 for an AMD
    /// target.
    pub sm: u32,
    /// The AMD architecture (`ttg.target = "hip:gfx942"`), or `None` for
    /// NVIDIA.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amd: Option<AmdArch>,
    /// Where it came from: `--sm`, `ttg.target = "cuda:80"`, or the default.
    pub from: String,
}

impl Target {
    /// An NVIDIA target.
    fn cuda(sm: u32, from: String) -> Target {
        Target {
            sm,
            amd: None,
            from,
        }
    }

    /// The target's name as users write it: `sm_90`, `gfx942`.
    pub fn name(&self) -> String {
        match self.amd {
            Some(a) => a.name().to_string(),
            None => format!("sm_{}", self.sm),
        }
    }

    /// The most scratch one block may use on it, in bytes: the shared
    /// memory of `sm` ([`synth::plan::smem_limit`]) or the AMD
    /// architecture's LDS ([`AmdArch::lds_bytes`]).
    pub fn smem_limit(&self) -> u64 {
        match self.amd {
            Some(a) => a.lds_bytes(),
            None => synth::plan::smem_limit(self.sm),
        }
    }

    /// The target of `op`: its module's `ttg.target = "cuda:NN"`, else
    /// `flag` (`--sm`), else [`DEFAULT_SM`].
    ///
    /// With `override_file` (`--override-target`), `flag` wins over the
    /// file's target.
    ///
    /// A module whose target is AMD (`hip:gfx942`, [`ConvertOp::amd_arch`])
    /// is planned for that architecture; `--sm` cannot move it to NVIDIA
    /// (its layouts are the wave's).
    ///
    /// Errors: `--sm` and the file's target disagree without
    /// `override_file` (naming both), `--sm` on an AMD module, a target
    /// that is not `cuda:NN` with NN in [`SM_RANGE`].
    pub fn of(op: &ConvertOp, flag: Option<u32>, override_file: bool) -> Result<Target, String> {
        if let Some(a) = op.amd_arch() {
            let t = op.target.as_deref().unwrap_or_default();
            if let Some(sm) = flag {
                return Err(format!(
                    "--sm {sm} names an NVIDIA GPU, and the file's ttg.target = \"{t}\" is AMD {a} ({} lanes per wave): drop --sm to plan it for {a}",
                    a.lanes()
                ));
            }
            return Ok(Target {
                sm: 0,
                amd: Some(a),
                from: format!("ttg.target = \"{t}\""),
            });
        }
        if let (Some(sm), true) = (flag, override_file) {
            let from = match &op.target {
                Some(t) if *t == format!("cuda:{sm}") => format!("ttg.target = \"{t}\""),
                Some(t) => {
                    format!("--sm {sm} --override-target, over the file's ttg.target = \"{t}\"")
                }
                None => format!("--sm {sm}"),
            };
            return Ok(Target::cuda(sm, from));
        }
        let Some(t) = &op.target else {
            return Ok(match flag {
                Some(sm) => Target::cuda(sm, format!("--sm {sm}")),
                None => Target::cuda(
                    DEFAULT_SM,
                    format!("the default sm_{DEFAULT_SM} (no --sm, no ttg.target)"),
                ),
            });
        };
        let sm = t
            .strip_prefix("cuda:")
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| SM_RANGE.contains(n))
            .ok_or_else(|| {
                format!(
                    "ttg.target = \"{t}\": warpforge plans for `cuda:NN` targets, sm_{} to sm_{}",
                    SM_RANGE.start(),
                    SM_RANGE.end()
                )
            })?;
        if let Some(f) = flag.filter(|f| *f != sm) {
            return Err(format!(
                "--sm {f} conflicts with the file's ttg.target = \"{t}\" (sm_{sm}): drop --sm to plan for the file's target, or add --override-target to plan it for sm_{f}"
            ));
        }
        Ok(Target::cuda(sm, format!("ttg.target = \"{t}\"")))
    }
}

/// How conversions are planned.
#[derive(Clone, Debug)]
pub struct Options {
    /// Which strategies the search may use.
    pub strategy: StrategyChoice,
    /// The cost model's weights (default: the built-in model,
    /// `synth/cost_models/default.json`).
    pub weights: Weights,
    /// Target compute capability, `10 * major + minor` (`ldmatrix` needs 75,
    /// `stmatrix` 90, clusters 90): `--sm`. `None`: each conversion's
    /// module's `ttg.target`, else [`DEFAULT_SM`]; `Some` with a file whose
    /// target differs refuses that file's conversions ([`Target::of`]).
    pub sm: Option<u32>,
    /// `--override-target`: `sm` wins over a file's `ttg.target`.
    pub override_target: bool,
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
    /// `--measured FILE`: `warpforge bench` rows whose timings choose among
    /// the proven candidates of each conversion they timed, in place of the
    /// cost model ([`measured`]). `None`: the cost model alone.
    pub measured: Option<std::sync::Arc<measured::Measurements>>,
}

impl Default for Options {
    /// Any strategy, the built-in cost model, the input's target (else
    /// sm_90), no scratch limit, every element width.
    fn default() -> Self {
        Options {
            strategy: StrategyChoice::Auto,
            weights: Weights::default(),
            sm: None,
            override_target: false,
            max_smem: None,
            max_registers: None,
            all_widths: true,
            measured: None,
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
    /// The architecture it was planned for.
    pub target: Target,
    /// Wall-clock seconds its planning took in this run (every width,
    /// proofs included; near 0 when an identical conversion of the same
    /// run was planned before it and its plans were reused).
    pub seconds: f64,
    /// Whether its plans are those of an identical conversion planned
    /// earlier in the same run (same layouts, shape, element width, warps
    /// and target limits).
    pub reused: bool,
    /// What `--measured` rows decided for it (`None`: no row timed it, or
    /// no `--measured`).
    pub measured: Option<measured::MeasuredChoice>,
}

/// The planned conversions of one input.
#[derive(Clone, Debug)]
pub struct PlannedInput {
    /// The files (or `command line`), as the header names them.
    pub origin: String,
    /// One per served conversion, in input order.
    pub conversions: Vec<Planned>,
    /// Every conversion (or file) that is not served, with the reason, in
    /// input order.
    pub refused: Vec<Refused>,
    /// The input files in order (for [`PlannedInput::records`]).
    pub files: Vec<String>,
}

/// One conversion's result: served (planned and proven) or refused.
#[derive(Clone, Copy, Debug)]
pub enum Record<'a> {
    Served(&'a Planned),
    Refused(&'a Refused),
}

impl Record<'_> {
    /// The file the conversion is in.
    pub fn file(&self) -> &str {
        match self {
            Record::Served(p) => &p.file,
            Record::Refused(r) => &r.file,
        }
    }
    /// The op's line (0 for a pair).
    pub fn line(&self) -> usize {
        match self {
            Record::Served(p) => p.op.line,
            Record::Refused(r) => r.line,
        }
    }
}

/// An emitted header and its helpers (in the order of the conversions).
#[derive(Clone, Debug)]
pub struct Emitted {
    /// The whole header: guards, then one helper per conversion.
    pub header: String,
    /// One per served conversion, in the order of [`PlannedInput::conversions`].
    pub helpers: Vec<kernels::EmittedHelper>,
    /// One per refused conversion (not whole files), in input order:
    /// declarations whose use fails to compile. A served conversion whose
    /// printed helper fails its CPU proof is among them (and its helper is
    /// not in the header).
    pub refused: Vec<kernels::RefusedHelper>,
    /// The CPU proof of each helper's printed code ([`kernels::prove`]),
    /// in the order of [`Emitted::helpers`]: every form it prints, run by
    /// the kernel-IR interpreter for every thread.
    pub proofs: Vec<Result<Vec<kernels::FormProof>, kernels::ProofError>>,
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
        names::emit(self, prefix, api)
    }

    /// Every record, served and refused, in input order (file, then line).
    pub fn records(&self) -> Vec<Record<'_>> {
        let mut v: Vec<Record> = self.conversions.iter().map(Record::Served).collect();
        v.extend(self.refused.iter().map(Record::Refused));
        let rank = |f: &str| self.files.iter().position(|x| x == f).unwrap_or(usize::MAX);
        v.sort_by_key(|r| (rank(r.file()), r.line()));
        v
    }

    /// Every record with its helper's C identifier under `prefix` (`None`
    /// for a whole file that could not be read), in input order.
    ///
    /// Errors: two conversions that would define one C identifier.
    pub fn named_records(&self, prefix: &str) -> Result<Vec<(Record<'_>, Option<String>)>> {
        let ids = names::record_idents(self, prefix)?;
        Ok(self.records().into_iter().zip(ids).collect())
    }

    /// Whether every conversion was served.
    pub fn all_served(&self) -> bool {
        self.refused.is_empty()
    }
}

/// Plan every conversion of the TTGIR file at `path` (see [`load_files`]
/// and [`plan`] for the errors).
pub fn plan_file(path: impl AsRef<Path>, opts: &Options) -> Result<PlannedInput> {
    let loaded = load_files(&[PathBuf::from(path.as_ref())], None)?;
    plan(&loaded, opts)
}

/// Plan the conversion of one layout pair (see [`load_pair`] and [`plan`]
/// for the errors).
pub fn plan_pair(pair: &Pair, opts: &Options) -> Result<PlannedInput> {
    let loaded = load_pair(pair)?;
    plan(&loaded, opts)
}

/// Plan every conversion of `loaded`: search, prove on the CPU simulator and
/// choose under `opts.weights`, for the own element width or every width,
/// each for its own [`Target`]. A conversion that cannot be planned is a
/// [`Refused`] record (with those `loaded` already refused); the others are
/// served.
///
/// Errors: `--max-smem` with a shuffle-only strategy; for a pair
/// (`--src/--dst`, one conversion) the reason it cannot be planned.
pub fn plan(loaded: &Loaded, opts: &Options) -> Result<PlannedInput> {
    if matches!(opts.strategy, StrategyChoice::Shuffle) && opts.max_smem.is_some() {
        bail!("--max-smem limits shared-memory plans, and --strategy shuffle makes none: drop one of them");
    }
    let mut out = Vec::new();
    let mut refused = loaded.refused.clone();
    let mut memo = Memo::default();
    for (file, op) in loaded.ops.iter().cloned() {
        let started = std::time::Instant::now();
        let known = memo.len();
        let planned = Target::of(&op, opts.sm, opts.override_target)
            .map_err(anyhow::Error::msg)
            .and_then(|t| {
                let shared = SharedOptions {
                    sm: t.sm,
                    amd: t.amd,
                    max_smem: Some(
                        opts.max_smem
                            .map_or(t.smem_limit(), |m| m.min(t.smem_limit())),
                    ),
                    max_registers: opts.max_registers,
                    ..SharedOptions::default()
                };
                let r = match &op.warp_specialize {
                    None => plan_op(&op, opts, &shared, &mut memo)
                        .and_then(|r| check_registers(&op, r, opts))?,
                    Some(ws) => plan_warp_specialized(&op, ws, opts, &shared, &mut memo)?,
                };
                Ok::<_, anyhow::Error>((t, r))
            });
        match planned {
            Ok((target, (conv, chosen, variants, measured))) => out.push(Planned {
                file,
                op,
                conv,
                chosen,
                variants,
                target,
                seconds: started.elapsed().as_secs_f64(),
                reused: memo.len() == known,
                measured,
            }),
            Err(e) => {
                let full = loaded.in_user_terms(&e.to_string());
                if loaded.paths.is_empty() {
                    // a pair is one conversion: its refusal is the run's error
                    bail!("{file}: {full}");
                }
                let msg = full
                    .strip_prefix(&format!("{}: ", op.name))
                    .unwrap_or(&full)
                    .to_string();
                let text = loaded.text(&file).unwrap_or("");
                let span = if op.line > 0 {
                    let end = op.dst_at.col + op.dst_at.len;
                    Span {
                        line: op.line,
                        col: op.src_at.col,
                        len: end.saturating_sub(op.src_at.col),
                    }
                } else {
                    op.src_at
                };
                let label = format!("`{}`", op.name);
                refused.push(Refused::at(&file, text, span, Some(&op), &msg, &label));
            }
        }
    }
    Ok(PlannedInput {
        origin: loaded.origin.clone(),
        conversions: out,
        refused,
        files: loaded
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    })
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
/// Errors: any conversion (or file) of `loaded` that was refused, and
/// every op whose layouts do not make a conversion (listed one per line as
/// `file:line: reason`); [`conversions_each`] serves the others instead.
pub fn conversions(loaded: &Loaded) -> Result<Vec<(String, Conversion)>> {
    let (convs, refused) = conversions_each(loaded);
    if !refused.is_empty() {
        let lines: Vec<String> = refused
            .iter()
            .map(|r| format!("{}: {}", r.place, r.reason))
            .collect();
        bail!("{}", lines.join("\n"));
    }
    Ok(convs)
}

/// [`conversions`] per conversion: those that make one, and a [`Refused`]
/// record for every other (those `loaded` refused first, and every AMD
/// one: `bench` times on NVIDIA GPUs).
pub fn conversions_each(loaded: &Loaded) -> (Vec<(String, Conversion)>, Vec<Refused>) {
    let mut convs = Vec::new();
    let mut refused = loaded.refused.clone();
    for (file, op) in &loaded.ops {
        if let Some(a) = op.amd_arch() {
            let msg = format!(
                "{}: an AMD {a} conversion: `bench` times on an NVIDIA GPU; AMD helpers are proven and compiled (`warpforge verify`), not timed",
                op.name
            );
            refused.push(load::refused_of(file, op, anyhow::Error::msg(msg)));
            continue;
        }
        match Conversion::from_op(op) {
            Ok(c) => convs.push((file.clone(), c)),
            Err(e) => {
                let msg = loaded.in_user_terms(&e.to_string());
                refused.push(load::refused_of(file, op, anyhow::Error::msg(msg)));
            }
        }
    }
    (convs, refused)
}

/// An op's conversion, the plan of its own width, the plans per width, and
/// what `--measured` rows decided.
type OpPlans = (
    Conversion,
    Chosen,
    Vec<(u32, Chosen)>,
    Option<measured::MeasuredChoice>,
);

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

/// An op of a function that holds a `ttg.warp_specialize` op
/// ([`synth::parse::WarpSpecialized`]). Each warp group there runs
/// concurrently with the others and Triton synchronises it with a named
/// barrier of its own (`ConvertWarpSpecializeToLLVM.cpp`), so a helper's
/// `__syncthreads()` would wait for warps that never arrive:
///
/// - in the `default` region and the rest of the function (the CTA's
///   first `ttg.num-warps` warps): every plan of one CTA, its cross-warp
///   barriers the group's named barrier 0 ([`synth::parse::WarpSpecialized::barrier`]) over the
///   group's threads ([`synth::plan::BarrierScope::Named`]);
/// - in partition `k` on NVIDIA: the same, with the partition's barrier
///   `k + 2` over its threads, and the layouts' warp index counted from
///   the partition's first warp ([`synth::plan::Plan::first_warp`]: Triton's
///   warp-group allocation, [`synth::parse::warp_group_start_ids`]), as
///   Triton's own lowering counts it;
/// - on AMD targets: warp-local plans only (shuffles, or renames): an AMD
///   workgroup barrier would wait for the other groups' warps.
///
/// Errors: `--strategy` asks for what the region cannot use (a cluster
/// plan anywhere, shared memory on AMD); the conversion moves data between
/// CTAs (a cluster barrier would wait for every warp of every CTA), or, in
/// a partition whose first warp or barrier is not known, or on AMD,
/// between warps (no warp-local plan exists); those of [`plan_op`].
fn plan_warp_specialized(
    op: &ConvertOp,
    ws: &synth::parse::WarpSpecialized,
    opts: &Options,
    shared: &SharedOptions,
    memo: &mut Memo,
) -> Result<OpPlans> {
    let place = if ws.region == "outside" {
        "in a function that holds a `ttg.warp_specialize` op".to_string()
    } else {
        format!(
            "inside the `{}` region of a `ttg.warp_specialize` op ({} warp(s))",
            ws.region, ws.warps
        )
    };
    let group = match (ws.first_warp, ws.barrier) {
        (Some(first), Some(barrier)) if shared.amd.is_none() => Some((first, barrier)),
        _ => None,
    };
    if let Some((first, barrier)) = group {
        if matches!(
            opts.strategy,
            StrategyChoice::ClusterStore | StrategyChoice::ClusterLoad
        ) {
            bail!(
                "{}: --strategy {}: not served {place}: a cluster barrier would wait for the warps of the other warp groups",
                op.name,
                opts.strategy.name()
            );
        }
        // a partition's plans are ranked under the registers Triton's
        // allocation gives its warps (`setmaxnreg`), where that is below
        // the launch bounds' and --max-registers' limits; `setmaxnreg`
        // takes 24 to 256 (PTX ISA, "setmaxnreg")
        let budget = ws.registers.map(|r| r.clamp(24, 256));
        let named = SharedOptions {
            named_barrier: Some(barrier),
            max_registers: match (shared.max_registers, budget) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            ..*shared
        };
        let mut r = plan_op(op, opts, &named, memo).and_then(|r| check_registers(op, r, opts))?;
        if r.1.plan.kind == synth::plan::Kind::Cluster {
            bail!(
                "{}: not served {place}: the conversion moves data between the CTAs of a cluster, and a cluster barrier would wait for the warps of the other warp groups, which Triton synchronises each with a named barrier of its own",
                op.name
            );
        }
        if first > 0 {
            let warps = if ws.warps == 1 {
                format!("CTA warp {first}")
            } else {
                format!("CTA warps {first} to {}", first + ws.warps - 1)
            };
            let regs = match (ws.requested_registers, budget) {
                (Some(r), Some(b)) => format!(
                    "; Triton's allocation gives the partition's warps {b} registers per thread by `setmaxnreg` (its op's `requestedRegisters` entry is {r}; each partition gets the most its 4-warp group requests, rounded up to 8): its plans are ranked under {b}"
                ),
                (Some(r), None) => format!(
                    "; its op's `requestedRegisters` entry is {r}, but Triton's allocation sets no `setmaxnreg` (the partitions' requests leave the default group fewer than 24 registers), so the partition keeps the kernel's registers"
                ),
                _ => String::new(),
            };
            let note = format!(
                "runs on {warps} ({place}, where Triton 3.6's warp-group allocation puts it): the layouts' warp index is `(threadIdx.x >> 5) - {first}`, as Triton's lowering counts it in the partition{regs}"
            );
            for ch in std::iter::once(&mut r.1).chain(r.2.iter_mut().map(|(_, c)| c)) {
                ch.plan.first_warp = first;
                ch.plan.register_budget = budget;
                ch.plan.notes.push(note.clone());
            }
        }
        return Ok(r);
    }
    let why = || {
        format!(
            "{place}, where only warp-local plans are served: Triton synchronises each warp group there with a named barrier of its own, {}",
            if shared.amd.is_some() {
                "and an AMD workgroup barrier (`s_barrier`) would wait for the warps of the other groups".to_string()
            } else if ws.barrier.is_none() {
                "and this partition's would be past barrier 15 (Triton's partitions take barriers 2 to 15)".to_string()
            } else {
                format!(
                    "and the partition's first warp is not known: {}",
                    ws.first_warp_unknown.as_deref().unwrap_or("no allocation was read for it")
                )
            }
        )
    };
    if !matches!(
        opts.strategy,
        StrategyChoice::Auto | StrategyChoice::Shuffle
    ) {
        bail!("{}: --strategy {} {}", op.name, opts.strategy.name(), why());
    }
    let local = Options {
        strategy: StrategyChoice::Shuffle,
        ..opts.clone()
    };
    plan_op(op, &local, shared, memo)
        .and_then(|r| check_registers(op, r, &local))
        .map_err(|e| {
            let e = e.to_string();
            let e = e.strip_prefix(&format!("{}: ", op.name)).unwrap_or(&e);
            anyhow::anyhow!(
                "{}: not served: {}; as a warp-local plan: {e}",
                op.name,
                why()
            )
        })
}

/// One op: its conversion, the plan of its own width, and the plans of
/// every width when `opts.all_widths`.
fn plan_op(
    op: &ConvertOp,
    opts: &Options,
    shared: &SharedOptions,
    memo: &mut Memo,
) -> Result<OpPlans, synth::plan::PlanError> {
    let c = Conversion::from_op(op)?;
    let key = MemoKey {
        src: c.src.clone(),
        dst: c.dst.clone(),
        shape: c.shape.clone(),
        bits: plan_width(&c),
        warps: c.num_warps,
        sm: shared.sm,
        amd: shared.amd,
        max_smem: shared.max_smem,
        max_registers: shared.max_registers,
        named_barrier: shared.named_barrier,
        strategy: opts.strategy,
    };
    if let Some((chosen, variants, m)) = memo.get(&key) {
        let rename = |ch: &Chosen| {
            let mut ch = ch.clone();
            ch.analysis.name = c.name.clone();
            ch
        };
        let chosen = rename(chosen);
        let variants = variants.iter().map(|(b, ch)| (*b, rename(ch))).collect();
        return Ok((c, chosen, variants, m.clone()));
    }
    let r = plan_op_uncached(c, opts, shared)?;
    memo.insert(key, (r.1.clone(), r.2.clone(), r.3.clone()));
    Ok(r)
}

/// What a plan depends on besides the options of one run: both linear
/// layouts over the shape, the element width planned, the warps and the
/// target's limits (not the op's name, element type spelling or attribute
/// text). Conversions that share a key share their plans
/// ([`plan`] plans each distinct one once: a kernel often converts the
/// same layouts at several places).
#[derive(PartialEq, Eq, Hash)]
struct MemoKey {
    src: synth::layout::LinearLayout,
    dst: synth::layout::LinearLayout,
    shape: Vec<i64>,
    bits: u32,
    warps: u32,
    sm: u32,
    amd: Option<AmdArch>,
    max_smem: Option<u64>,
    max_registers: Option<u32>,
    /// The warp group's named barrier ([`plan_warp_specialized`]).
    named_barrier: Option<u32>,
    /// Warp-local ops ([`plan_warp_specialized`]) are planned under another
    /// strategy than the run's.
    strategy: StrategyChoice,
}

/// Plans of the conversions planned so far in one [`plan`] call.
type Memo = std::collections::HashMap<
    MemoKey,
    (Chosen, Vec<(u32, Chosen)>, Option<measured::MeasuredChoice>),
>;

fn plan_op_uncached(
    c: Conversion,
    opts: &Options,
    shared: &SharedOptions,
) -> Result<OpPlans, synth::plan::PlanError> {
    let own = plan_width(&c);
    let target_weights = match shared.amd {
        Some(a) => opts.weights.for_amd(a),
        None => opts.weights,
    };
    // the own width's weights; the other widths are bound at their own
    // width where the search plans them (`Weights::for_conversion_at`)
    let weights = target_weights.for_conversion(&c);
    let own_opt = SharedOptions {
        elem_bits: own,
        ..*shared
    };
    let mut chosen = plan_conversion_with(&c, opts.strategy, &weights, &own_opt)?;
    // `--measured`: bench rows of this GPU may choose another proven
    // candidate of the own width (NVIDIA targets: bench times no AMD helper)
    let timed = opts
        .measured
        .as_deref()
        .filter(|_| shared.amd.is_none())
        .map(|m| m.plans(&measured::conversion_key(&c, own, shared.sm)))
        .filter(|p| !p.is_empty());
    let mut choice = None;
    if let Some(timed) = timed {
        let (ch, why) = measured_choice(&c, opts.strategy, &weights, &own_opt, chosen, timed);
        chosen = ch;
        choice = Some(why);
    }
    if !opts.all_widths {
        return Ok((c, chosen, vec![], choice));
    }
    let v = synth::search::plan_all_widths_from(
        &c,
        opts.strategy,
        &target_weights,
        shared,
        chosen.clone(),
    );
    Ok((c, chosen, v, choice))
}

/// The own width's plan under `--measured` rows (`timed`: the candidates
/// they timed for this conversion): the model's choice `model`, or the
/// proven candidate that ran more than [`measured::MARGIN`] faster
/// ([`measured::pick`]), with a note in its plan saying so; and what was
/// decided. A candidate list that cannot be proven again or fingerprinted
/// keeps the model's choice, the reason in [`measured::MeasuredChoice`].
fn measured_choice(
    c: &Conversion,
    strategy: StrategyChoice,
    weights: &Weights,
    opt: &SharedOptions,
    model: Chosen,
    timed: &[measured::MeasuredPlan],
) -> (Chosen, measured::MeasuredChoice) {
    let kept = |model: Chosen, why: String| {
        let m = measured::MeasuredChoice {
            replaced: false,
            strategy: model.plan.strategy.to_string(),
            model_strategy: model.plan.strategy.to_string(),
            ratios: Vec::new(),
            kept_because: Some(why),
        };
        (model, m)
    };
    let model_fp = match measured::plan_fingerprint(&model.plan) {
        Ok(f) => f,
        Err(e) => return kept(model, format!("its plan has no fingerprint: {e}")),
    };
    let considered = match synth::search::consider(c, strategy, weights, opt, None) {
        Ok(x) => x,
        Err(e) => return kept(model, format!("its candidates: {e}")),
    };
    // every proven candidate's fingerprint, computed once
    let proven = considered.proven.len();
    let mut fingerprinted = Vec::with_capacity(proven);
    for k in considered.proven {
        match measured::plan_fingerprint(&k.plan) {
            Ok(f) => fingerprinted.push((f, k)),
            Err(e) => return kept(model, format!("a candidate has no fingerprint: {e}")),
        }
    }
    // the model's choice first, then every other proven candidate once;
    // none over the register cap where the model's choice is within it
    // (the search ranks those last; `--max-registers` refuses them)
    let model_over = fingerprinted
        .iter()
        .any(|(f, k)| *f == model_fp && k.over_registers);
    let mut named = vec![(model_fp, model.plan.strategy.to_string())];
    let mut others = Vec::new();
    for (f, k) in fingerprinted {
        if (k.over_registers && !model_over) || named.iter().any(|n| n.0 == f) {
            continue;
        }
        named.push((f, k.plan.strategy.to_string()));
        others.push(k);
    }
    let Some((i, why)) = measured::pick(&named, timed) else {
        return kept(
            model,
            format!(
                "none of the {} candidate(s) its rows timed in a round trip of their own family is among this planner's {} proven ones (rows of another warpforge version, or timed with more shared-memory candidates than the {} proven here): run `warpforge bench` again",
                timed.len(),
                named.len(),
                synth::search::SHARED_CANDIDATES_PROVEN
            ),
        );
    };
    if i == 0 {
        return (model, why);
    }
    let k = others.swap_remove(i - 1);
    let mut plan = k.plan;
    plan.notes.push(format!(
        "chosen by measurement (--measured): `warpforge bench` timed it at {} the time of the cost model's choice {}",
        why.ratios_text(),
        why.model_strategy
    ));
    let chosen = Chosen {
        analysis: considered.analysis,
        plan,
        cost: k.cost,
        score: k.score,
        candidates: considered.enumerated,
        verified_candidates: proven,
        sim: k.sim,
    };
    (chosen, why)
}
