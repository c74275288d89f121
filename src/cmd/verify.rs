//! `warpforge verify`: every helper proven on the CPU simulator (every
//! element width it dispatches on) and, with a GPU, compiled by NVRTC and
//! checked slot by slot for each element type and form; a text line per
//! conversion, optionally JSON, a markdown report and JUnit XML.

use super::{check_outputs_against, cost_json, refused_json, Input, Naming};
use crate::output::{write_file, Stdout};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use pipeline::{Planned, PlannedInput, Record};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use synth::search::{plan_width, Chosen};
use verify::form_suffix;
use verify::junit::{self, TestCase};
use verify::{CaseResult, DType, GpuCase, GpuReport};

#[derive(Args)]
pub(crate) struct VerifyArgs {
    #[command(flatten)]
    input: Input,
    /// Only the CPU simulator.
    #[arg(long, conflicts_with = "gpu")]
    cpu: bool,
    /// Demand the GPU: fail when none is present.
    #[arg(long)]
    gpu: bool,
    /// No GPU needed: compile every check and loop kernel the GPU check
    /// would run with NVRTC for `--sm` and judge each helper's registers
    /// and spills (from ptxas; SASS with cuobjdump) as `--gpu` does, and
    /// its scratch against the target's shared memory; nothing runs, the
    /// proof stays the CPU simulator's. Needs libnvrtc (a CUDA toolkit, or
    /// the `nvidia-cuda-nvrtc` wheel's lib directory on LD_LIBRARY_PATH).
    #[arg(long, conflicts_with_all = ["cpu", "gpu"])]
    compile_only: bool,
    /// Element types for the GPU check: i8, f8E4M3FN, f8E5M2, i16, f16, bf16, i32, f32, i64, f64
    /// (8- and 16-bit types check the packed form too) [default: i8,f16,i32,i64]
    #[arg(long, value_delimiter = ',', conflicts_with = "cpu")]
    dtypes: Option<Vec<String>>,
    /// Write a markdown report (SASS counts per helper) here.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Write the GPU check's CUDA module (`verify_module.cu`, every test
    /// and loop kernel) and its SASS (`verify_module.sass`, with cuobjdump)
    /// into this directory, to reproduce or inspect a case.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
    /// Write JUnit XML here: one testcase per conversion x element type x
    /// form (`cpu <bits>-bit` for the simulator's proof of each width), a
    /// failure carrying the first mismatch or the SASS reason.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write the emitted header here.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    naming: Naming,
}

/// The CPU simulator's proof of one conversion: per element width planned
/// (the own width first), the destination slots checked or the error.
/// The CPU proof of one helper's printed code (`kernels::prove`).
type Printed = Result<Vec<kernels::FormProof>, kernels::ProofError>;

struct CpuProof {
    widths: Vec<(u32, Result<synth::sim::SimReport, String>)>,
}

impl CpuProof {
    fn of(p: &Planned) -> CpuProof {
        let own = plan_width(&p.conv);
        let mut plans: Vec<(u32, &Chosen)> = vec![(own, &p.chosen)];
        plans.extend(
            p.variants
                .iter()
                .filter(|v| v.0 != own)
                .map(|(b, c)| (*b, c)),
        );
        let widths = plans
            .into_iter()
            .map(|(b, c)| {
                let r = synth::sim::simulate(&c.plan, &c.analysis).map_err(|e| e.to_string());
                (b, r)
            })
            .collect();
        CpuProof { widths }
    }
    fn own(&self) -> &Result<synth::sim::SimReport, String> {
        &self.widths[0].1
    }
    fn ok(&self) -> bool {
        self.widths.iter().all(|w| w.1.is_ok())
    }
}

/// The element types of `--dtypes` (default i8, f16, i32, i64).
fn dtypes_of(list: &Option<Vec<String>>) -> Result<Vec<DType>> {
    let default = ["i8", "f16", "i32", "i64"].map(String::from).to_vec();
    list.as_ref()
        .unwrap_or(&default)
        .iter()
        .map(|d| {
            DType::parse(d.trim()).ok_or_else(|| {
                let all: Vec<&str> = DType::ALL.iter().map(|t| t.name()).collect();
                anyhow!("--dtypes: unknown `{d}` ({})", all.join(", "))
            })
        })
        .collect()
}

pub(crate) fn run(a: VerifyArgs) -> Result<i32> {
    let dts = dtypes_of(&a.dtypes)?;
    let loaded = a.input.source.load()?;
    let outs = [
        ("-o", a.output.as_deref()),
        ("--report", a.report.as_deref()),
        ("--junit", a.junit.as_deref()),
    ];
    check_outputs_against(
        &outs,
        &loaded,
        &a.input.model,
        &a.input.source,
        a.input.measured.as_deref(),
    )?;
    let planned = a.input.plan(&loaded, true)?;
    let emitted = planned.emit(&a.naming.prefix)?;
    let idents = served_idents(&planned, &a.naming.prefix)?;
    if let Some(path) = &a.output {
        write_file(path, &emitted.header)?;
    }
    // CPU proof of every helper (the search already proved the chosen plans;
    // run them again here so the report says what was checked)
    let cpu: Vec<CpuProof> = planned.conversions.iter().map(CpuProof::of).collect();
    let gpu_info = if a.cpu || a.compile_only {
        None
    } else {
        match verify::probe_gpu() {
            Ok(g) => Some(g),
            Err(e) if a.gpu => bail!("--gpu: {e}"),
            Err(e) => {
                note!("warpforge: {e}; verifying on the CPU simulator only (pass --gpu to require a GPU)");
                None
            }
        }
    };
    let use_gpu = gpu_info.is_some();
    let any_nvidia = planned.conversions.iter().any(|p| p.target.amd.is_none());
    let gpu = if (use_gpu || a.compile_only) && any_nvidia {
        Some(by_target(&a, &planned, &idents, &dts, gpu_info.as_ref())?)
    } else {
        None
    };
    // AMD helpers: compiled for their architecture (no AMD GPU runs them here)
    let hip = if a.cpu {
        Vec::new()
    } else {
        hip_checks(&a, &planned, &idents, &dts)?
    };
    if let (Some(dir), Some(g)) = (&a.keep, &gpu) {
        std::fs::create_dir_all(dir).map_err(|e| anyhow!("--keep {}: {e}", dir.display()))?;
        write_file(&dir.join("verify_module.cu"), &g.source)?;
        if !g.sass_text.is_empty() {
            write_file(&dir.join("verify_module.sass"), &g.sass_text)?;
        }
    }
    if let Some(dir) = &a.keep {
        for r in &hip {
            std::fs::create_dir_all(dir).map_err(|e| anyhow!("--keep {}: {e}", dir.display()))?;
            write_file(
                &dir.join(format!("verify_module_{}.hip", r.arch)),
                &r.source,
            )?;
            write_file(&dir.join(format!("verify_module_{}.s", r.arch)), &r.asm)?;
        }
    }
    let mut failed = print_results(&a, &planned, &cpu, &emitted.proofs, gpu.as_ref())?;
    failed += print_hip(&a, &planned, &hip)?;
    if let Some(path) = &a.report {
        let md = markdown_report(&planned, &idents, gpu.as_ref());
        write_file(path, &md)?;
    }
    if let Some(path) = &a.junit {
        let cases = junit_cases(&planned, &idents, &cpu, &emitted.proofs, gpu.as_ref());
        write_file(path, &junit::to_xml("warpforge verify", &cases))?;
    }
    let refused = planned.refused.iter().filter(|r| !r.is_file()).count();
    note!(
        "warpforge: {} of {} conversion(s) verified ({}){}",
        planned.conversions.len() - failed,
        planned.conversions.len() + refused,
        if use_gpu && !hip.is_empty() {
            "CPU simulator + GPU; AMD helpers compiled"
        } else if use_gpu {
            "CPU simulator + GPU"
        } else if a.compile_only || !hip.is_empty() {
            "CPU simulator + registers and spills compiled"
        } else {
            "CPU simulator"
        },
        if refused > 0 {
            format!("; {refused} refused")
        } else {
            String::new()
        }
    );
    Ok(if failed > 0 || !planned.all_served() {
        1
    } else {
        0
    })
}

/// The served conversions of `planned` whose target `keep` accepts, as an
/// input of their own (one module per target).
fn served_where(planned: &PlannedInput, keep: impl Fn(&pipeline::Target) -> bool) -> PlannedInput {
    PlannedInput {
        origin: planned.origin.clone(),
        conversions: planned
            .conversions
            .iter()
            .filter(|p| keep(&p.target))
            .cloned()
            .collect(),
        refused: vec![],
        files: planned.files.clone(),
    }
}

/// The helper name of each served conversion of `planned` (aligned with
/// `planned.conversions`), as the whole input's header names it: a
/// conversion's GPU and HIP results are found by it, never by `func:line`,
/// which two input files can share.
fn served_idents(planned: &PlannedInput, prefix: &str) -> Result<Vec<String>> {
    let mut idents = vec![String::new(); planned.conversions.len()];
    for (r, ident) in planned.named_records(prefix)? {
        if let Record::Served(p) = r {
            let i = planned
                .conversions
                .iter()
                .position(|q| std::ptr::eq(q, p))
                .expect("a served record is one of the conversions");
            idents[i] = ident.unwrap_or_default();
        }
    }
    Ok(idents)
}

/// For the part of `planned` whose targets `keep` accepts, emitted on its
/// own as `helpers`: each of its helper names -> that conversion's name in
/// the whole input (`idents`, [`served_idents`]). Helper names of a part
/// can differ from the whole's (a name two parts share is made unique only
/// in the whole).
fn part_idents(
    planned: &PlannedInput,
    idents: &[String],
    keep: impl Fn(&pipeline::Target) -> bool,
    helpers: &[kernels::EmittedHelper],
) -> std::collections::HashMap<String, String> {
    // the part's helpers come in its records' order, which is the whole
    // input's record order less the other parts' conversions (a stable
    // sort by file rank and line of a subsequence)
    let global: Vec<(&Planned, &String)> = served_in_order(planned)
        .into_iter()
        .filter(|p| keep(&p.target))
        .map(|p| {
            let i = planned
                .conversions
                .iter()
                .position(|q| std::ptr::eq(q, p))
                .expect("a served record is one of the conversions");
            (p, &idents[i])
        })
        .collect();
    debug_assert_eq!(helpers.len(), global.len());
    debug_assert!(helpers
        .iter()
        .zip(&global)
        .all(|(h, (p, _))| h.name == p.op.name));
    helpers
        .iter()
        .map(|h| h.ident.clone())
        .zip(global.into_iter().map(|(_, id)| id.clone()))
        .collect()
}

/// The served conversions of `input` in the order its header defines their
/// helpers ([`PlannedInput::records`]: file, then line; a file given twice
/// has its copies' conversions interleaved by line, unlike
/// `input.conversions`).
fn served_in_order(input: &PlannedInput) -> Vec<&Planned> {
    input
        .records()
        .into_iter()
        .filter_map(|r| match r {
            Record::Served(p) => Some(p),
            Record::Refused(_) => None,
        })
        .collect()
}

/// Each served conversion of `input` with its helper (`helpers`: the
/// emission of `input`, in its header's order) and its analysis.
fn gpu_cases<'a>(
    input: &'a PlannedInput,
    helpers: &'a [kernels::EmittedHelper],
) -> Vec<GpuCase<'a>> {
    let served = served_in_order(input);
    debug_assert_eq!(served.len(), helpers.len());
    served
        .into_iter()
        .zip(helpers)
        .map(|(p, h)| GpuCase {
            helper: h,
            analysis: &p.chosen.analysis,
        })
        .collect()
}

/// The HIP compile check of the AMD conversions of `planned`, one module
/// per architecture ([`verify::compile_hip`]): every check kernel of every
/// element type and form, compiled with clang for the architecture. Without
/// a HIP compiler, a note (an error under `--compile-only`).
fn hip_checks(
    a: &VerifyArgs,
    planned: &PlannedInput,
    idents: &[String],
    dts: &[DType],
) -> Result<Vec<verify::HipReport>> {
    let mut archs: Vec<pipeline::AmdArch> = planned
        .conversions
        .iter()
        .filter_map(|p| p.target.amd)
        .collect();
    archs.sort_unstable();
    archs.dedup();
    if archs.is_empty() {
        return Ok(Vec::new());
    }
    if let Err(e) = verify::hip_compiler() {
        if a.compile_only || a.gpu {
            bail!("AMD helpers: {e}");
        }
        note!("warpforge: AMD helpers proven on the CPU simulator only: {e}");
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for arch in archs {
        let sub = served_where(planned, |t| t.amd == Some(arch));
        let emitted = sub.emit(&a.naming.prefix)?;
        let cases = gpu_cases(&sub, &emitted.helpers);
        let mut r = verify::compile_hip(&emitted.header, &cases, dts, arch)?;
        let names = part_idents(planned, idents, |t| t.amd == Some(arch), &emitted.helpers);
        for k in &mut r.kernels {
            if let Some(g) = names.get(&k.helper) {
                k.helper = g.clone();
            }
        }
        note!(
            "warpforge: {arch}: {} HIP check kernel(s) compiled in {:.2} s by {} (no AMD GPU runs them: proven by the CPU simulator, checked by compilation)",
            r.kernels.len(),
            r.seconds,
            r.compiler
        );
        out.push(r);
    }
    Ok(out)
}

/// One line (or JSON object) per AMD conversion compiled for its
/// architecture: kernels, the most VGPRs and SGPRs, data-movement
/// instructions of its widest element form; the number that spilled.
fn print_hip(a: &VerifyArgs, planned: &PlannedInput, hip: &[verify::HipReport]) -> Result<usize> {
    let mut failed = 0;
    let mut out = Stdout::new();
    let named = planned.named_records(&a.naming.prefix)?;
    for r in hip {
        for (p, ident) in named.iter().filter_map(|(rec, id)| match rec {
            Record::Served(p) if p.target.amd == Some(r.arch) => Some((p, id.as_deref()?)),
            _ => None,
        }) {
            let ks: Vec<&verify::HipKernel> = r
                .kernels
                .iter()
                .filter(|k| k.helper == ident && k.form != "baseline")
                .collect();
            let all: Vec<&verify::HipKernel> =
                r.kernels.iter().filter(|k| k.helper == ident).collect();
            // a spill fails the helper unless its data alone fills the
            // VGPRs a workgroup of its threads leaves each lane: the larger
            // of its source and destination arrays (the source is whole at
            // the helper's entry, the destination at its exit), in VGPRs of
            // the kernel's element type (a destination with broadcast copies
            // holds each copy)
            let threads = p.chosen.plan.lanes * p.conv.num_warps;
            let budget = r.arch.vgpr_budget(threads);
            let an = &p.chosen.analysis;
            let data_vgprs = |k: &verify::HipKernel| {
                an.src_regs().max(an.dst_regs()) * k.dtype.bits().div_ceil(32)
            };
            // spilled: scratch, or AGPRs on CDNA, where LLVM moves VGPRs
            // it runs out of before scratch (a check kernel has no MFMA)
            let spills = |k: &verify::HipKernel| k.scratch_bytes > 0 || k.agpr > 0;
            let spilled: Vec<&str> = ks
                .iter()
                .filter(|k| spills(k) && data_vgprs(k) < budget)
                .map(|k| k.kernel.as_str())
                .collect();
            let full: Vec<&str> = ks
                .iter()
                .filter(|k| spills(k) && data_vgprs(k) >= budget)
                .map(|k| k.kernel.as_str())
                .collect();
            if !spilled.is_empty() {
                failed += 1;
            }
            if a.input.json {
                writeln!(
                    out,
                    "{}",
                    json!({"name": p.op.name, "file": p.file, "target": r.arch.name(),
                           "hip": {"compiler": r.compiler, "spilled": spilled,
                                   "spilled_data_over_vgprs": full, "kernels": all}})
                )?;
                continue;
            }
            let vgpr = ks.iter().map(|k| k.vgpr).max().unwrap_or(0);
            let sgpr = ks.iter().map(|k| k.sgpr).max().unwrap_or(0);
            let moves = ks
                .iter()
                .find(|k| k.form == "elements" && k.dtype.bits() == 32)
                .or(ks.first())
                .map(|k| {
                    let c = &k.counts;
                    format!(
                        "{} {}: {} ds_bpermute, {} ds_write ({} B), {} ds_read ({} B), {} s_barrier, {} v_perm, {} v_cndmask, {} total",
                        k.dtype.name(),
                        k.form,
                        c.bpermute,
                        c.lds_write,
                        c.lds_write_bytes,
                        c.lds_read,
                        c.lds_read_bytes,
                        c.barrier,
                        c.perm,
                        c.cndmask,
                        c.total
                    )
                })
                .unwrap_or_default();
            writeln!(
                out,
                "{:<28} {}  {} kernel(s) compiled for {}, VGPR <= {vgpr}, SGPR <= {sgpr}{}; {moves}",
                p.op.name,
                if spilled.is_empty() { "hip ok" } else { "HIP SPILL" },
                ks.len(),
                r.arch,
                if spilled.is_empty() {
                    String::new()
                } else {
                    format!(", scratch or AGPRs in {}", spilled.join(", "))
                } + &if full.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (scratch or AGPRs where the data alone fills the {budget} VGPRs a workgroup of {threads} threads leaves a lane: {})",
                        full.join(", ")
                    )
                }
            )?;
        }
    }
    Ok(failed)
}

/// The GPU (or compile-only) check of every served conversion, one module
/// per target architecture: a target the GPU at hand can run (its
/// compute capability at most the GPU's) runs there; any other target
/// (and every target under `--compile-only`) is compiled for itself by
/// NVRTC and judged on registers and spills, not run.
fn by_target(
    a: &VerifyArgs,
    planned: &PlannedInput,
    idents: &[String],
    dts: &[DType],
    gpu: Option<&verify::GpuInfo>,
) -> Result<GpuReport> {
    let mut sms: Vec<u32> = planned
        .conversions
        .iter()
        .filter(|p| p.target.amd.is_none())
        .map(|p| p.target.sm)
        .collect();
    sms.sort_unstable();
    sms.dedup();
    let mut all: Option<GpuReport> = None;
    for sm in sms {
        let sub = served_where(planned, |t| t.amd.is_none() && t.sm == sm);
        let emitted = sub.emit(&a.naming.prefix)?;
        let runs_here = gpu.is_some_and(|g| sm <= (g.sm.0 * 10 + g.sm.1) as u32);
        let r = if runs_here {
            on_gpu(&sub, &emitted, dts, a.input.max_registers, sm)?
        } else {
            if gpu.is_some() {
                note!("warpforge: sm_{sm} plans: the GPU at hand cannot run them; compiled for sm_{sm} only");
            }
            compiled(&sub, &emitted, dts, a.input.max_registers, sm)?
        };
        let mut r = r;
        let names = part_idents(
            planned,
            idents,
            |t| t.amd.is_none() && t.sm == sm,
            &emitted.helpers,
        );
        for c in &mut r.cases {
            if let Some(g) = names.get(&c.ident) {
                c.ident = g.clone();
            }
        }
        all = Some(match all {
            None => r,
            Some(mut acc) => {
                acc.cases.extend(r.cases);
                acc.notes.extend(r.notes);
                acc.compile_seconds += r.compile_seconds;
                acc.source += &format!("\n// ---- sm_{sm} ----\n{}", r.source);
                acc.sass_text += &r.sass_text;
                acc
            }
        });
    }
    all.ok_or_else(|| anyhow!("no conversion was served: nothing to check on the GPU"))
}

/// Compile every helper into one check module (NVRTC, in parallel parts)
/// and check each element type.
/// With `max_registers`, the register-budget loop kernels are compiled
/// under that cap (`verify::verify_on_gpu`).
fn on_gpu(
    planned: &PlannedInput,
    emitted: &pipeline::Emitted,
    dts: &[DType],
    max_registers: Option<u32>,
    sm: u32,
) -> Result<GpuReport> {
    let cases = gpu_cases(planned, &emitted.helpers);
    let target = ((sm / 10) as i32, (sm % 10) as i32);
    let r = verify::verify_on_gpu_for(&emitted.header, &cases, dts, max_registers, Some(target))?;
    note!(
        "warpforge: GPU {}; module compiled in {:.2} s",
        gpu_desc(&r.gpu, "driver"),
        r.compile_seconds
    );
    for n in &r.notes {
        note!("warpforge: note: {n}");
    }
    Ok(r)
}

/// `verify --compile-only`: the GPU check's module compiled for `sm`
/// (`verify::compile_only`), no GPU.
fn compiled(
    planned: &PlannedInput,
    emitted: &pipeline::Emitted,
    dts: &[DType],
    max_registers: Option<u32>,
    sm: u32,
) -> Result<GpuReport> {
    let cases = gpu_cases(planned, &emitted.helpers);
    let target = ((sm / 10) as i32, (sm % 10) as i32);
    let r = verify::compile_only(&emitted.header, &cases, dts, max_registers, target)
        .map_err(|e| anyhow!("--compile-only: {e}"))?;
    note!("warpforge: module compiled in {:.2} s", r.compile_seconds);
    for n in &r.notes {
        note!("warpforge: note: {n}");
    }
    Ok(r)
}

/// `NAME (sm_XY), <driver> D, NVRTC M.N`.
fn gpu_desc(g: &verify::GpuInfo, driver: &str) -> String {
    format!(
        "{} (sm_{}{}), {driver} {}, NVRTC {}.{}",
        g.name, g.sm.0, g.sm.1, g.driver_version, g.nvrtc_version.0, g.nvrtc_version.1
    )
}

/// The GPU checks of the conversion whose helper is `ident` (its name in
/// the whole input, [`served_idents`]).
fn cases_of<'a>(gpu: Option<&'a GpuReport>, ident: &str) -> Vec<&'a CaseResult> {
    gpu.map(|r| r.cases.iter().filter(|c| c.ident == ident).collect())
        .unwrap_or_default()
}

/// One line (or JSON object) per conversion, refused ones included; the
/// number of served conversions that failed.
fn print_results(
    a: &VerifyArgs,
    planned: &PlannedInput,
    cpu: &[CpuProof],
    printed: &[Printed],
    gpu: Option<&GpuReport>,
) -> Result<usize> {
    let mut failed = 0;
    let mut out = Stdout::new();
    let several = planned.files.len() > 1;
    let mut last_file: Option<String> = None;
    for (r, ident) in planned.named_records(&a.naming.prefix)? {
        if !a.input.json && several && last_file.as_deref() != Some(r.file()) {
            writeln!(out, "# {}", r.file())?;
            last_file = Some(r.file().to_string());
        }
        let p = match r {
            Record::Served(p) => p,
            Record::Refused(x) => {
                if a.input.json {
                    writeln!(out, "{}", refused_json(x, ident.as_deref()))?;
                } else if x.is_file() {
                    writeln!(out, "{:<28} not read: {}", x.file, x.reason)?;
                } else {
                    writeln!(out, "{:<28} refused  {}", x.name, x.reason)?;
                }
                continue;
            }
        };
        let i = planned
            .conversions
            .iter()
            .position(|q| std::ptr::eq(q, p))
            .expect("a served record is one of the conversions");
        let proof = &cpu[i];
        let gpu_cases = cases_of(gpu, ident.as_deref().unwrap_or_default());
        // spills fail a case unless the data alone leaves under 16
        // registers of the launch bounds' limit (then they are the tile's),
        // or ptxas spilled with registers to spare and the kernel has none
        // under __launch_bounds__(threads, 1) (CaseResult::spill_problem)
        let spills = gpu_cases.iter().any(|c| c.spill_problem().is_some());
        let gpu_ok = gpu_cases.iter().all(|c| c.ok());
        let verified = proof.ok() && printed[i].is_ok() && gpu_ok && !spills;
        if !verified {
            failed += 1;
        }
        if a.input.json {
            writeln!(
                out,
                "{}",
                json!({
                    "file": p.file, "name": p.op.name, "line": p.op.line, "status": "served",
                    "helper": ident, "target": p.target.name(),
                    "kind": p.chosen.plan.kind.as_str(), "strategy": p.chosen.plan.strategy,
                    "cost": cost_json(&p.chosen.cost), "verified": verified,
                    "cpu": match proof.own() { Ok(r) => json!(r), Err(e) => json!({"error": e}) },
                    "printed": match &printed[i] { Ok(f) => json!(f), Err(e) => json!({"error": e.to_string()}) },
                    "gpu": gpu_cases,
                })
            )?;
        } else {
            writeln!(out, "{}", text_line(p, proof, &printed[i], &gpu_cases))?;
        }
    }
    out.finish()?;
    Ok(failed)
}

/// The text line of one conversion: CPU result, then each GPU check with
/// its SASS counts.
fn text_line(
    p: &Planned,
    proof: &CpuProof,
    printed: &Printed,
    gpu_cases: &[&CaseResult],
) -> String {
    let bad: Vec<String> = proof.widths[1..]
        .iter()
        .filter_map(|(b, r)| {
            r.as_ref()
                .err()
                .map(|e| format!("{b}-bit plan FAILED: {e}"))
        })
        .collect();
    let mut line = format!(
        "{:<28} {:<8} {:<32} cpu {}",
        p.op.name,
        p.chosen.plan.kind.as_str(),
        p.chosen.cost.to_string(),
        match proof.own() {
            Ok(r) => format!("ok ({} slots)", r.slots),
            Err(e) => format!("FAILED: {e}"),
        }
    );
    if !bad.is_empty() {
        line += &format!(" ({})", bad.join("; "));
    }
    line += &match printed {
        Ok(forms) => format!(" | printed ok ({} forms)", forms.len()),
        Err(e) => format!(" | printed FAILED: {e}"),
    };
    for c in gpu_cases {
        line += &format!(
            " | {} {}{} {}",
            if c.compiled_only { "sm" } else { "gpu" },
            c.dtype.name(),
            &*form_suffix(c.form),
            if c.ok() {
                if c.compiled_only { "compiled" } else { "ok" }.to_string()
            } else {
                format!(
                    "FAILED ({} mismatches; {})",
                    c.mismatches,
                    c.first_error.clone().unwrap_or_default()
                )
            }
        );
        if let Some(s) = &c.sass {
            let k = &s.classes;
            line += &format!(
                " [SHFL {} SEL {} PRMT {} STS {} LDS {} BAR {} LDL {} STL {}]",
                k.shfl, k.sel, k.prmt, k.sts, k.lds, k.bar, s.ldl, s.stl
            );
        }
        if let Some(l) = &c.loop_kernel {
            line += &format!(
                " [loop {} regs of {}, LDL {} STL {} ({} in the loop body){}]",
                l.registers,
                c.reg_limit,
                l.ldl,
                l.stl,
                l.spills_in_loop(),
                match (l.spills_in_loop() > 0, c.spills_excused()) {
                    (true, true) => format!("; data alone {} registers", c.data_regs),
                    (true, false) if c.spill_problem().is_some() => " SPILLS".to_string(),
                    _ => String::new(),
                }
            );
        }
        if let Some(n) = c.occupancy_note() {
            line += &format!(" ({n})");
        }
    }
    line
}

/// The JUnit test cases: per conversion, the CPU proof of each width, then
/// each GPU check (element type x form); a refused conversion (or file) is
/// one failing case carrying the reason.
fn junit_cases(
    planned: &PlannedInput,
    idents: &[String],
    cpu: &[CpuProof],
    printed: &[Printed],
    gpu: Option<&GpuReport>,
) -> Vec<TestCase> {
    let mut cases = Vec::new();
    for r in planned.records() {
        match r {
            Record::Served(p) => {
                let i = planned
                    .conversions
                    .iter()
                    .position(|q| std::ptr::eq(q, p))
                    .expect("a served record is one of the conversions");
                for (bits, r) in &cpu[i].widths {
                    let r = r.as_ref().map(|s| s.slots).map_err(|e| e.clone());
                    cases.push(junit::cpu_case(&p.file, &p.op.name, *bits, &r));
                }
                match &printed[i] {
                    Ok(forms) => {
                        for f in forms {
                            let r = Ok(f.report.slots);
                            cases.push(junit::printed_case(&p.file, &p.op.name, &f.form, &r));
                        }
                    }
                    Err(e) => cases.push(junit::printed_case(
                        &p.file,
                        &p.op.name,
                        &e.form,
                        &Err(e.error.to_string()),
                    )),
                }
                for c in cases_of(gpu, &idents[i]) {
                    cases.push(junit::gpu_case(&p.file, c));
                }
            }
            Record::Refused(x) => cases.push(junit::refused_case(
                &x.file,
                if x.is_file() { "file" } else { &x.name },
                &format!("{}: {}", x.place, x.reason),
            )),
        }
    }
    cases
}

/// The markdown report: per conversion and element type, the GPU check and
/// its SASS counts beside the corpus note (Triton's counts).
fn markdown_report(input: &PlannedInput, idents: &[String], gpu: Option<&GpuReport>) -> String {
    let planned = &input.conversions;
    let mut s = format!("## {}\n\n", input.origin);
    if let Some(r) = gpu {
        s += &format!("GPU: {}.\n\n", gpu_desc(&r.gpu, "CUDA driver"));
        for n in &r.notes {
            s += &format!("Note: {n}\n\n");
        }
    }
    s += "| conversion | kind | strategy | predicted | dtype (CUDA type) | GPU check | SHFL | SEL | PRMT | STS | LDS | BAR | LDL/STL | loop regs (limit) | loop LDL/STL | Triton 3.6 (corpus note) |\n";
    s += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (p, ident) in planned.iter().zip(idents) {
        let cases = cases_of(gpu, ident);
        let doc = p.op.doc.replace('|', "/");
        let head = format!(
            "| {} | {} | {} | {} |",
            p.op.name,
            p.chosen.plan.kind.as_str(),
            p.chosen.plan.strategy,
            p.chosen.cost
        );
        if cases.is_empty() {
            s += &format!("{head} - | not run | | | | | | | | | | {doc} |\n");
        }
        for c in cases {
            let sc = c.sass.clone().unwrap_or_default();
            let k = &sc.classes;
            let lp = c.loop_kernel.clone().unwrap_or_default();
            let budget = match (
                c.spill_problem(),
                lp.spills_in_loop() > 0,
                lp.ldl + lp.stl > 0,
            ) {
                (Some(_), _, _) => " SPILLS".to_string(),
                (None, _, _) if c.occupancy_note().is_some() => {
                    format!(" ({})", c.occupancy_note().unwrap_or_default())
                }
                (None, true, _) => " (data alone over limit - 16)".to_string(),
                (None, false, true) => format!(
                    " (none in the loop body: {} outside it)",
                    lp.spills_outside_loop()
                ),
                _ => String::new(),
            };
            s += &format!(
                "{head} {}{} (`{}`) | {} ({} slots) | {} | {} | {} | {} | {} | {} | {}/{} | {} ({}) | {}/{}{budget} | {doc} |\n",
                c.dtype.name(),
                &*form_suffix(c.form),
                c.ctype,
                match (c.ok(), c.compiled_only) {
                    (true, true) => "compiled",
                    (true, false) => "pass",
                    (false, _) => "FAIL",
                },
                c.slots_checked,
                k.shfl,
                k.sel,
                k.prmt,
                k.sts,
                k.lds,
                k.bar,
                sc.ldl,
                sc.stl,
                lp.registers,
                c.reg_limit,
                lp.ldl,
                lp.stl,
            );
        }
    }
    if !input.refused.is_empty() {
        s += "\n### Refused\n\n| conversion | file | place | reason |\n|---|---|---|---|\n";
        for r in &input.refused {
            s += &format!(
                "| {} | {} | {} | {} |\n",
                if r.is_file() { "(file)" } else { &r.name },
                r.file,
                r.place,
                r.reason.replace('|', "/")
            );
        }
    }
    s
}
