//! `warpforge plan`: every conversion's kind, strategy and predicted cost
//! (with `--verbose`, both layouts and the plan's stages; with `--json`,
//! one object per conversion).

use super::{cost_json, refused_json, served_status, Input, Naming};
use crate::output::Stdout;
use anyhow::Result;
use clap::Args;
use pipeline::{Planned, Record};
use serde_json::json;
use std::io::Write;
use synth::plan::{element_form_peak, peak_registers};
use synth::search::{plan_width, Chosen, Weights, WIDTHS};

#[derive(Args)]
pub(crate) struct PlanArgs {
    #[command(flatten)]
    input: Input,
    /// Also print both layouts and the plan's stages (not with --json).
    #[arg(long, short, conflicts_with = "json")]
    verbose: bool,
    /// With --json: add each conversion's planning time in seconds
    /// (`plan_seconds`: wall clock, every element width and its proofs;
    /// near 0 for a repeat of a conversion planned earlier in the run,
    /// which `plan_reused` marks).
    #[arg(long, requires = "json")]
    timings: bool,
    /// The helper names records carry (`emit` with the same prefix names
    /// its helpers so).
    #[command(flatten)]
    naming: Naming,
}

pub(crate) fn run(a: PlanArgs) -> Result<i32> {
    let loaded = a.input.source.load()?;
    // every element width, so that --json can say each width's scratch
    let planned = a.input.plan(&loaded, true)?;
    let w = a.input.model.weights()?;
    let mut out = Stdout::new();
    let several = planned.files.len() > 1;
    let mut last_file: Option<String> = None;
    for (r, ident) in planned.named_records(&a.naming.prefix)? {
        if a.input.json {
            let v = match r {
                Record::Served(p) => {
                    let mut v = plan_json(p, &w, ident.as_deref());
                    if a.timings {
                        v["plan_seconds"] = json!(p.seconds);
                        v["plan_reused"] = json!(p.reused);
                    }
                    v
                }
                Record::Refused(x) => refused_json(x, ident.as_deref()),
            };
            writeln!(out, "{v}")?;
            continue;
        }
        if several && last_file.as_deref() != Some(r.file()) {
            writeln!(out, "# {}", r.file())?;
            last_file = Some(r.file().to_string());
        }
        match r {
            Record::Served(p) => write_text(&mut out, p, &w, a.verbose)?,
            Record::Refused(x) if x.is_file() => {
                writeln!(out, "{:<28} not read: {}", x.file, x.reason)?
            }
            Record::Refused(x) => writeln!(out, "{:<28} refused  {}", x.name, x.reason)?,
        }
    }
    out.finish()?;
    Ok(served_status(&planned))
}

/// The JSON object of one planned conversion.
fn plan_json(p: &Planned, w: &Weights, helper: Option<&str>) -> serde_json::Value {
    let ch = &p.chosen;
    let bits = plan_width(&p.conv);
    let lb = synth::plan::lower_bound(&ch.analysis, bits, &target_weights(w, p));
    let (preferred, _) = pipeline::preferred_peak(&p.conv, ch);
    let limit = ch.plan.register_limit(32 * p.op.num_warps);
    let mut v = json!({
        "file": p.file, "name": p.op.name, "line": p.op.line, "status": "served", "helper": helper,
        "target": p.target.name(), "target_from": p.target.from,
        "kind": ch.plan.kind.as_str(), "strategy": ch.plan.strategy,
        "m": ch.plan.m, "cost": cost_json(&ch.cost), "src_regs": ch.plan.src_regs,
        "dst_regs": ch.plan.dst_regs, "smem_elems": ch.plan.smem_elems,
        "candidates": ch.candidates, "verified_candidates": ch.verified_candidates,
        "shape": p.op.shape, "dtype": p.op.elem.name, "elem_bits": bits,
        "smem_bytes": ch.plan.smem_elems * bits as u64 / 8,
        "rounds": ch.plan.rounds,
        "wavefronts": ch.sim.smem_wavefronts, "min_wavefronts": ch.sim.min_wavefronts,
        "bank_conflicts": ch.sim.bank_conflicts,
        "score": ch.score, "lower_bound": lb,
        "smem_bytes_by_width": by_width(p, |c, b| json!(c.plan.smem_elems * b as u64 / 8)),
        "rounds_by_width": by_width(p, |c, _| json!(if c.plan.smem_elems > 0 { c.plan.rounds.get() } else { 0 })),
        "peak_registers": {
            "elements": element_form_peak(&ch.plan, bits, 32 * p.op.num_warps).peak,
            "packed": (bits < 32 && ch.plan.packed_form(bits)).then(|| peak_registers(&ch.plan, bits, true).peak),
            "preferred": preferred.peak,
            "data": preferred.data,
        },
        "register_limit": limit,
        "over_register_limit": preferred.peak > limit,
    });
    // `--measured`: what the bench rows decided (absent where none timed it);
    // the conversion's key and the chosen plan's fingerprint, as `bench`
    // rows name them (NVIDIA targets: bench times no AMD helper)
    if let Some(o) = v.as_object_mut() {
        // a warp group of a warp-specialized function: where the helper runs
        if let Some(ws) = &p.op.warp_specialize {
            o.insert(
                "warp_group".into(),
                json!({
                    "region": ws.region,
                    "warps": ws.warps,
                    "first_warp": ws.first_warp,
                    "barrier": ws.barrier,
                    "op_line": ws.op_line,
                    "requested_registers": ws.requested_registers,
                }),
            );
        }
        if let Some(m) = &p.measured {
            o.insert(
                "measured".into(),
                serde_json::to_value(m).expect("serializes"),
            );
        }
        if p.target.amd.is_none() {
            let key = pipeline::measured::conversion_key(&p.conv, bits, p.target.sm);
            o.insert("key".into(), json!(key));
            if let Ok(f) = pipeline::measured::plan_fingerprint(&ch.plan) {
                o.insert("fingerprint".into(), json!(f));
            }
        }
    }
    // cluster plans (docs/ARCHITECTURE.md 4.7): the bytes one CTA moves
    // across CTAs (stores into or loads from other CTAs, the most over the
    // cluster's CTAs), the cluster barriers and which plan (`store_remote`
    // or `load_remote`); other plans keep their keys as they were
    if ch.plan.is_cluster() {
        let an = &ch.analysis;
        let elems = ch
            .plan
            .cluster_remote_elems(1 << an.src.hw.warp, an.src.hw.block);
        if let Some(m) = v.as_object_mut() {
            m.insert("ctas".into(), json!(1u32 << an.src.hw.block));
            m.insert("cluster_bytes".into(), json!(elems * bits as u64 / 8));
            m.insert("cluster_barriers".into(), json!(ch.plan.cluster_barriers()));
            m.insert(
                "cluster_variant".into(),
                json!(ch.plan.cluster_variant().map(|v| v.name())),
            );
        }
    }
    v
}

/// `{"8": .., "16": .., "32": .., "64": ..}` of `f(plan, bits)` for every
/// element width the helper dispatches on; `null` for a width it does not
/// serve (its `static_assert` refuses it).
fn by_width(p: &Planned, f: impl Fn(&Chosen, u32) -> serde_json::Value) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for b in WIDTHS {
        let v = match p.variants.iter().find(|(w, _)| *w == b) {
            Some((_, c)) => f(c, b),
            None if p.variants.is_empty() && b == plan_width(&p.conv) => f(&p.chosen, b),
            None => serde_json::Value::Null,
        };
        m.insert(b.to_string(), v);
    }
    serde_json::Value::Object(m)
}

/// The text line of one planned conversion, and with `verbose` its layouts,
/// notes, scratch, score and stages.
fn write_text(out: &mut Stdout, p: &Planned, w: &Weights, verbose: bool) -> Result<()> {
    let ch = &p.chosen;
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
    if let Some(m) = &p.measured {
        if m.replaced {
            writeln!(
                out,
                "{:<28} measured: {} at {} the time of the cost model's {}",
                "",
                m.strategy,
                m.ratios_text(),
                m.model_strategy
            )?;
        } else {
            writeln!(
                out,
                "{:<28} measured: the cost model's choice kept: {}",
                "",
                m.kept_because.as_deref().unwrap_or("")
            )?;
        }
    }
    if !verbose {
        return Ok(());
    }
    let bits = plan_width(&p.conv);
    let lb = synth::plan::lower_bound(&ch.analysis, bits, &target_weights(w, p));
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
            ch.plan.smem_elems * bits as u64 / 8, ch.plan.rounds,
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
    Ok(())
}

/// The weights that ranked `p`'s plans: AMD's for an AMD target
/// (`Weights::for_amd`), bound to its CTA and data (`Weights::for_conversion`).
fn target_weights(w: &Weights, p: &Planned) -> Weights {
    match p.target.amd {
        Some(a) => w.for_amd(a),
        None => *w,
    }
    .for_conversion(&p.conv)
}
