//! Results of `warpforge bench`: one JSON object per conversion
//! (`results/runs/2026-11-22-h100-bench-180de76/bench.jsonl` format), a markdown table and an SVG chart of
//! warpforge's time over Triton's per conversion.

use crate::cases::BenchCase;
use crate::gpu::Measured;
use crate::triton::TritonResult;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use synth::cost_model::Features;
use synth::plan::Cost;

/// One timed candidate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CandidateRow {
    pub strategy: String,
    pub kind: String,
    /// `packed` (8/16-bit elements as 32-bit words in registers) or
    /// `elements` (one element per register).
    #[serde(default)]
    pub form: String,
    /// Index of the candidate plan among the conversion's candidates: the
    /// forms of one plan share it (absent in rows written before it
    /// existed, which list a plan's forms one after another).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<usize>,
    /// Whether this is the form the search ranks its plan in
    /// (`synth::cost_model::Weights::score_in`: the packed form for 8/16-bit
    /// plans with one, else the element form); absent in older rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranked: Option<bool>,
    pub cost: Cost,
    pub features: Features,
    /// Score under the weights the run ranked with.
    pub score: f64,
    pub chosen: bool,
    /// Shared-memory wavefronts per warp, and their minimum.
    pub wavefronts: u64,
    pub min_wavefronts: u64,
    pub bank_conflicts: u64,
    /// Predicted register peak per thread of this form
    /// ([`synth::plan::peak_registers`]), beside the measured `registers`;
    /// absent in rows written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_registers: Option<u32>,
    /// GPU-wide ns per round trip (`None` when it failed: see `error`).
    pub ns: Option<f64>,
    pub registers: Option<i32>,
    pub sass: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The reverse plan this candidate's round trip returned through, where
    /// it is not the row's `bwd` (`warpforge bench --pair same-family`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bwd: Option<String>,
    /// The plan's fingerprint (`pipeline::measured::plan_fingerprint`, 16
    /// hex digits): what `plan`/`emit`/`verify --measured` match it by;
    /// absent in rows written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

impl CandidateRow {
    /// Why this candidate's round-trip time is not its plan's, where its
    /// loop kernel's SASS has fewer `SHFL` than its forward plan alone
    /// shuffles, or fewer than a quarter of its shared-memory accesses
    /// (`STS`, `LDS`, `LDSM`, `STSM`; a vector access merges at most four):
    /// the compiler removed forward work as dead, as it does where the
    /// reverse keeps only part of the forward's output (a destination with
    /// broadcast copies whose reverse reads one copy). `None` where the SASS
    /// holds the plan's data movement or was not read.
    pub fn elided_work(&self) -> Option<String> {
        let sass = self.sass.as_ref()?;
        let n = |k: &str| sass.get(k).and_then(Value::as_u64).unwrap_or(0);
        let c = &self.cost;
        let (shfl, smem) = (n("shfl"), n("sts") + n("lds") + n("ldsm") + n("stsm"));
        let plan_smem = (c.sts + c.lds + c.ldsm + c.stsm) as u64;
        (shfl < c.shfl as u64 || 4 * smem < plan_smem).then(|| {
            format!(
                "not this plan's time: its round trip's SASS has {shfl} SHFL and {smem} shared-memory accesses where the forward plan alone has {} and {plan_smem} (the compiler removed forward work the reverse does not read)",
                c.shfl
            )
        })
    }
    /// The strategy, with ` (packed)` for the packed form and ` (carried)`
    /// for the element form told which array the loop carries.
    pub fn label(&self) -> String {
        match self.form.as_str() {
            "packed" | "carried" | "vector" => format!("{} ({})", self.strategy, self.form),
            _ => self.strategy.clone(),
        }
    }
}

/// Take the time off every candidate whose round trip does not time its
/// plan ([`CandidateRow::elided_work`]), the reason in its `error`: it is
/// neither the fastest of its row nor a sample of `warpforge fit`.
pub fn drop_elided(candidates: &mut [CandidateRow]) {
    for k in candidates.iter_mut().filter(|k| k.ns.is_some()) {
        if let Some(why) = k.elided_work() {
            k.ns = None;
            k.error = Some(why);
        }
    }
}

/// Fill in the cluster features of rows written before they existed:
/// each candidate's remote stores and loads from its `cost` (`stcl`,
/// `ldcl`) where its features have neither, and the CTA's warps from the
/// row where its features have none, so that `warpforge fit` scores older
/// rows with [`synth::cost_model::Weights::remote_store`] and
/// [`synth::cost_model::Weights::remote_load`] as the planner scores the
/// plans today.
pub fn fill_cluster_features(r: &mut Row) {
    for k in &mut r.candidates {
        let f = &mut k.features;
        if f.remote_stores == 0.0 && f.remote_loads == 0.0 {
            f.remote_stores = k.cost.stcl as f64;
            f.remote_loads = k.cost.ldcl as f64;
        }
        if f.cta_warps == 0.0 {
            f.cta_warps = r.warps.max(1) as f64;
        }
    }
}

/// A strategy and its time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pick {
    pub strategy: String,
    pub ns: Option<f64>,
}

/// One conversion's row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub file: String,
    pub name: String,
    /// The conversion's key (`pipeline::measured::conversion_key`, 16 hex
    /// digits): what `--measured` matches the row by; absent in rows
    /// written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub shape: Vec<i64>,
    pub dtype: String,
    pub bits: u32,
    pub warps: u32,
    /// The reverse conversion's chosen plan: the backward helper of every
    /// candidate's round trip, but those whose own `bwd` says otherwise.
    pub bwd: String,
    /// How candidates were paired with reverse plans (`same-family`;
    /// absent: `chosen`, as in every row before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<String>,
    pub lower_bound: Value,
    pub candidates: Vec<CandidateRow>,
    pub chosen: Pick,
    pub fastest: Pick,
    /// Triton's `{ns, sass, sass_once, registers, smem_bytes}` or `{error}`.
    pub triton: Value,
    #[serde(default)]
    pub ratio_chosen_over_triton: Option<f64>,
    #[serde(default)]
    pub ratio_fastest_over_triton: Option<f64>,
    /// CTAs per cluster the kernels ran in (1: no cluster).
    #[serde(default = "one")]
    pub ctas: u32,
    /// CTAs the conversion's source layout spans, as the planner counts
    /// them for its weights (`Weights::for_conversion`; `warpforge fit`
    /// splits one-warp rows by it); absent in rows written before it
    /// existed, where [`Row::ctas`] stands in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_ctas: Option<u32>,
    /// A cluster case's global-memory round trip of the same data
    /// (`{ns, registers}` or `{error}`; docs/ARCHITECTURE.md 4.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub global: Option<Value>,
    /// The chosen candidate's time over the global-memory baseline's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_chosen_over_global: Option<f64>,
    /// The register cap warpforge's kernels were compiled and ranked under
    /// (`warpforge bench --max-registers`); absent: the launch bounds'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_registers: Option<u32>,
    /// The chosen plan's loop kernel spilled where Triton's did not, with
    /// `verify::OCCUPANCY_SLACK` or more registers of its limit unused, and
    /// was compiled again under `__launch_bounds__(threads, 1)`
    /// ([`recheck_occupancy`]): what ptxas did then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy_spill: Option<OccupancyRecheck>,
    /// Every limit kernel of the round trip (`kernels::limit`): `{label,
    /// fwd, bwd, words, smem_bytes, ns, registers, sass}` or `{label,
    /// error}`; absent in rows written before limits existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<Value>,
    /// The fastest limit kernel: the conversion's measured limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Pick>,
    /// Why the row has no limit: every limit kernel failed (rows written
    /// before cluster conversions had limit kernels: a cluster conversion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_missing: Option<String>,
    /// The chosen candidate's, the fastest candidate's and Triton's time
    /// over the measured limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_chosen_over_limit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_fastest_over_limit: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_triton_over_limit: Option<f64>,
}

/// A case's measurements, each failure as its message.
#[derive(Clone, Debug)]
pub struct CaseMeasured {
    /// One per candidate, in order.
    pub candidates: Vec<Result<Measured, String>>,
    /// A cluster case's global-memory baseline.
    pub global: Option<Result<Measured, String>>,
    /// One per limit kernel ([`BenchCase::limits`]), in order.
    pub limits: Vec<Result<Measured, String>>,
}

/// A spilling loop kernel compiled again under `__launch_bounds__(threads,
/// 1)` (`verify::compile_min_blocks`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OccupancyRecheck {
    /// Registers it spilled at under `__launch_bounds__(threads)`.
    pub registers: u32,
    /// ptxas's registers under `__launch_bounds__(threads, 1)`.
    pub min_blocks_registers: u32,
    /// ptxas's spill stores plus loads there, in bytes.
    pub min_blocks_spill_bytes: u32,
}

fn one() -> u32 {
    1
}

/// Assemble a row from a case, its measurements (a cluster case's
/// global-memory baseline and the limit kernels' among them) and Triton's.
pub fn row(c: &BenchCase, m: &CaseMeasured, triton: Option<&Result<TritonResult, String>>) -> Row {
    let (measured, global) = (&m.candidates, m.global.as_ref());
    let candidates: Vec<CandidateRow> = c
        .candidates
        .iter()
        .zip(measured)
        .map(|(k, m)| CandidateRow {
            strategy: k.strategy.to_string(),
            kind: k.kind.as_str().to_string(),
            form: k.form.to_string(),
            plan: Some(k.plan),
            ranked: Some(k.ranked),
            cost: k.cost,
            features: k.features,
            score: k.score,
            chosen: k.chosen,
            wavefronts: k.wavefronts.0,
            min_wavefronts: k.wavefronts.1,
            bank_conflicts: k.bank_conflicts,
            peak_registers: Some(k.peak_registers),
            ns: m.as_ref().ok().map(|m| m.ns),
            registers: m.as_ref().ok().map(|m| m.registers),
            sass: m
                .as_ref()
                .ok()
                .and_then(|m| m.sass.as_ref())
                .map(|s| serde_json::to_value(s).expect("sass serializes")),
            error: m.as_ref().err().cloned(),
            bwd: (k.bwd_strategy != c.bwd_strategy).then(|| k.bwd_strategy.to_string()),
            fingerprint: Some(k.fingerprint.clone()),
        })
        .collect();
    let mut candidates = candidates;
    drop_elided(&mut candidates);
    let chosen = candidates
        .iter()
        .find(|k| k.chosen)
        .map(|k| Pick {
            strategy: k.label(),
            ns: k.ns,
        })
        .expect("a case has its chosen candidate");
    let fastest = candidates
        .iter()
        .filter(|k| k.ns.is_some())
        .min_by(|a, b| a.ns.unwrap().total_cmp(&b.ns.unwrap()))
        .map(|k| Pick {
            strategy: k.label(),
            ns: k.ns,
        })
        .unwrap_or(Pick {
            strategy: "-".into(),
            ns: None,
        });
    let (triton, tns) = match triton {
        None => (
            serde_json::json!({"error": "not run (--no-triton, or Triton unavailable)"}),
            None,
        ),
        Some(Err(e)) => (serde_json::json!({ "error": e }), None),
        Some(Ok(t)) => (serde_json::to_value(t).expect("serializes"), Some(t.ns)),
    };
    let ratio = |x: Option<f64>| match (x, tns) {
        (Some(a), Some(b)) if b > 0.0 => Some((a / b * 1000.0).round() / 1000.0),
        _ => None,
    };
    let (global, gns) = match global {
        None => (None, None),
        Some(Err(e)) => (Some(serde_json::json!({ "error": e })), None),
        Some(Ok(m)) => (
            Some(serde_json::json!({"ns": m.ns, "registers": m.registers})),
            Some(m.ns),
        ),
    };
    let over = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some((a / b * 1000.0).round() / 1000.0),
        _ => None,
    };
    let ratio_chosen_over_global = over(chosen.ns, gns);
    let limits: Vec<Value> = c
        .limits
        .iter()
        .zip(&m.limits)
        .map(|(k, r)| match r {
            Ok(x) => serde_json::json!({
                "label": k.label(), "fwd": k.fwd, "bwd": k.bwd, "words": k.words,
                "smem_bytes": k.smem_bytes(), "ns": x.ns, "registers": x.registers,
                "sass": x.sass,
            }),
            Err(e) => serde_json::json!({"label": k.label(), "error": e}),
        })
        .collect();
    let limit = c
        .limits
        .iter()
        .zip(&m.limits)
        .filter_map(|(k, r)| r.as_ref().ok().map(|x| (k.label(), x.ns)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(strategy, ns)| Pick {
            strategy,
            ns: Some(ns),
        });
    let limit_missing = limit
        .is_none()
        .then(|| "every limit kernel failed (see `limits`)".to_string());
    let lns = limit.as_ref().and_then(|p| p.ns);
    Row {
        ratio_chosen_over_limit: over(chosen.ns, lns),
        ratio_fastest_over_limit: over(fastest.ns, lns),
        ratio_triton_over_limit: over(tns, lns),
        limits,
        limit,
        limit_missing,
        occupancy_spill: None,
        ctas: c.ctas,
        layout_ctas: Some(c.layout_ctas),
        max_registers: c.max_registers,
        global,
        ratio_chosen_over_global,
        file: c.file.clone(),
        name: c.name.clone(),
        key: Some(c.key.clone()),
        shape: c.conv.shape.clone(),
        dtype: c.conv.elem.name.clone(),
        bits: c.bits,
        warps: c.conv.num_warps,
        bwd: c.bwd_strategy.to_string(),
        pair: (c.pair != crate::cases::Pairing::Chosen).then(|| c.pair.as_str().to_string()),
        lower_bound: serde_json::to_value(&c.lower_bound).expect("serializes"),
        ratio_chosen_over_triton: ratio(chosen.ns),
        ratio_fastest_over_triton: ratio(fastest.ns),
        candidates,
        chosen,
        fastest,
        triton,
    }
}

/// Geometric mean of positive values (`None` when empty).
pub fn geomean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

fn sass_brief(v: Option<&Value>) -> String {
    let Some(v) = v else { return "-".into() };
    let g = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    format!(
        "{}/{}/{}/{}/{}/{}/{}/{}",
        g("shfl"),
        g("sel"),
        g("prmt"),
        g("sts"),
        g("lds"),
        g("ldsm"),
        g("stsm"),
        g("bar")
    )
}

fn short(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// Summary lines: geomean and worst of chosen/Triton and fastest/Triton.
/// The conversions whose chosen plan's timing kernel spills to local
/// memory (`LDL`/`STL` in its SASS) where Triton's loop kernel of the same
/// round trip does not: one line each with both sides' registers and
/// spills and the launch bounds' register limit. A failed check of
/// `warpforge bench` (docs/ARCHITECTURE.md 4.6). Rows timed under a
/// register cap (`max_registers`; Triton's kernel is not capped) are not
/// checked. A row whose kernel [`recheck_occupancy`] compiled again under
/// `__launch_bounds__(threads, 1)` without a spill passes (ptxas's
/// occupancy choice); its measured `ns` is still the spilling kernel's.
pub fn spills_beyond_triton(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        let Some((c, ldl, stl)) = spill_beyond_triton(r) else {
            continue;
        };
        let again = match &r.occupancy_spill {
            Some(o) if o.min_blocks_spill_bytes == 0 => continue,
            Some(o) => format!(
                "; under __launch_bounds__({}, 1) still {} bytes of spills at {} registers",
                32 * r.warps,
                o.min_blocks_spill_bytes,
                o.min_blocks_registers
            ),
            None => String::new(),
        };
        out.push(format!(
            "{}:{} ({}): the chosen plan's loop kernel spills ({ldl} LDL, {stl} STL) at {} registers, Triton's does not ({} registers); limit {} at {} warps{again}",
            short(&r.file),
            r.name,
            c.form,
            c.registers.map_or("?".into(), |x| x.to_string()),
            r.triton.get("registers").and_then(Value::as_i64).map_or("?".into(), |x| x.to_string()),
            synth::plan::register_limit(32 * r.warps),
            r.warps
        ));
    }
    out
}

/// The chosen candidate of a row whose loop kernel spills (`LDL`, `STL` in
/// its SASS) where Triton's does not, with those counts; rows timed under
/// a register cap are not judged.
fn spill_beyond_triton(r: &Row) -> Option<(&CandidateRow, u64, u64)> {
    let spills = |v: &Value| {
        v.get("ldl").and_then(Value::as_u64).unwrap_or(0)
            + v.get("stl").and_then(Value::as_u64).unwrap_or(0)
    };
    if r.max_registers.is_some() {
        return None;
    }
    let c = r.candidates.iter().find(|c| c.chosen)?;
    let (cs, ts) = (c.sass.as_ref()?, r.triton.get("sass")?);
    let (ldl, stl) = (
        cs.get("ldl").and_then(Value::as_u64).unwrap_or(0),
        cs.get("stl").and_then(Value::as_u64).unwrap_or(0),
    );
    (ldl + stl > 0 && spills(ts) == 0).then_some((c, ldl, stl))
}

/// The rows [`spills_beyond_triton`] would fail whose chosen loop kernel
/// spilled with [`verify::OCCUPANCY_SLACK`] or more registers of its limit
/// unused: ptxas may have held it under the limit to fit more CTAs per SM.
/// Each such kernel of `cases` (the same order as `rows`) is compiled again
/// under `__launch_bounds__(threads, 1)` ([`verify::compile_min_blocks`],
/// one NVRTC compile per case) and the row records what ptxas did
/// ([`Row::occupancy_spill`]); a kernel without a spill there passes the
/// check. Returns notes: one line per recheck, and compile errors.
pub fn recheck_occupancy(rows: &mut [Row], cases: &[BenchCase], sm: (i32, i32)) -> Vec<String> {
    let mut notes = Vec::new();
    debug_assert_eq!(rows.len(), cases.len(), "one row per case, in order");
    for (r, case) in rows.iter_mut().zip(cases) {
        debug_assert_eq!(r.name, case.name, "rows and cases in the same order");
        let threads = 32 * r.warps;
        let limit = synth::plan::register_limit(threads);
        let Some((i, regs)) = spill_beyond_triton(r).and_then(|(c, _, _)| {
            let regs = u32::try_from(c.registers?).ok()?;
            let i = r.candidates.iter().position(|k| k.chosen)?;
            (regs + verify::OCCUPANCY_SLACK <= limit).then_some((i, regs))
        }) else {
            continue;
        };
        // a row's candidates are its case's, in order (`row`)
        debug_assert!(case.candidates.get(i).is_some_and(|k| k.chosen));
        let Some(kernel) = case.candidates.get(i).map(|k| k.kernel.clone()) else {
            continue;
        };
        match verify::compile_min_blocks(
            &case.source,
            &[(kernel.clone(), threads)],
            sm,
            &verify::cuda_include_dirs(),
        ) {
            Ok(p) => {
                let Some(p) = p.get(&kernel) else {
                    notes.push(format!(
                        "{}:{}: the spilling loop kernel `{kernel}` was not found declared under __launch_bounds__({threads}) in its module, or ptxas did not report it: not rechecked",
                        short(&r.file),
                        r.name
                    ));
                    continue;
                };
                let o = OccupancyRecheck {
                    registers: regs,
                    min_blocks_registers: p.registers,
                    min_blocks_spill_bytes: p.spill_store_bytes + p.spill_load_bytes,
                };
                notes.push(format!(
                    "{}:{}: ptxas spilled the chosen loop kernel at {regs} of {limit} registers; under __launch_bounds__({threads}, 1): {} registers, {}",
                    short(&r.file),
                    r.name,
                    o.min_blocks_registers,
                    if o.min_blocks_spill_bytes == 0 {
                        "no spill (an occupancy choice: the check passes)".to_string()
                    } else {
                        format!("{} bytes of spills", o.min_blocks_spill_bytes)
                    }
                ));
                r.occupancy_spill = Some(o);
            }
            Err(e) => notes.push(format!(
                "{}:{}: the spilling loop kernel did not compile again under __launch_bounds__({threads}, 1): {e}",
                short(&r.file),
                r.name
            )),
        }
    }
    notes
}

pub fn summary(rows: &[Row]) -> String {
    let mut s = String::new();
    for (label, pick) in [
        (
            "chosen plan",
            (|r: &Row| r.ratio_chosen_over_triton) as fn(&Row) -> Option<f64>,
        ),
        ("fastest candidate", |r: &Row| r.ratio_fastest_over_triton),
    ] {
        let v: Vec<(f64, &Row)> = rows
            .iter()
            .filter_map(|r| pick(r).map(|x| (x, r)))
            .collect();
        let xs: Vec<f64> = v.iter().map(|x| x.0).collect();
        if let Some(g) = geomean(&xs) {
            let worst = v.iter().max_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
            let at_most = xs.iter().filter(|&&x| x <= 1.0).count();
            s += &format!(
                "- warpforge's {label} over Triton's time: geomean **{g:.3}x** over {} conversions, {at_most} at or below 1.0x, worst {:.3}x (`{}:{}`)\n",
                xs.len(),
                worst.0,
                short(&worst.1.file),
                worst.1.name
            );
        }
    }
    let n = rows.len();
    let hits = |tol: f64| {
        rows.iter()
            .filter(|r| match (r.chosen.ns, r.fastest.ns) {
                (Some(c), Some(f)) => c <= f * (1.0 + tol),
                _ => false,
            })
            .count()
    };
    s += &format!(
        "- chosen plan within 5% of the measured-fastest candidate on {} of {n} conversions, within 15% on {}\n",
        hits(0.05),
        hits(0.15)
    );
    s += &limit_summary(rows);
    let spills = spills_beyond_triton(rows);
    s += &format!(
        "- the chosen plan's loop kernel spills where Triton's does not on {} of {n} conversions\n",
        spills.len()
    );
    for l in &spills {
        s += &format!("  - {l}\n");
    }
    let excused: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.occupancy_spill
                .as_ref()
                .is_some_and(|o| o.min_blocks_spill_bytes == 0)
        })
        .collect();
    if !excused.is_empty() {
        s += &format!(
            "- {} more chosen loop kernel(s) spilled with {} or more registers of the limit unused and did not spill under `__launch_bounds__(threads, 1)` (ptxas's occupancy choice; not a failed check):\n",
            excused.len(),
            verify::OCCUPANCY_SLACK
        );
        for r in excused {
            let o = r.occupancy_spill.as_ref().expect("filtered");
            s += &format!(
                "  - {}:{}: {} registers with spills, {} without\n",
                short(&r.file),
                r.name,
                o.registers,
                o.min_blocks_registers
            );
        }
    }
    s
}

/// How far over the measured limit a chosen plan may run and still count
/// as close to it (issue 50's bar).
pub const LIMIT_TOLERANCE: f64 = 1.15;

/// The fastest limit kernel's entry of `r.limits` (its `sass` is what the
/// reasons compare).
fn limit_entry(r: &Row) -> Option<&Value> {
    let label = &r.limit.as_ref()?.strategy;
    r.limits
        .iter()
        .find(|v| v.get("label").and_then(Value::as_str) == Some(label) && v.get("ns").is_some())
}

/// Why a chosen plan runs over the limit, as far as the SASS of the two
/// loop kernels tells: the instruction classes of the chosen kernel's
/// loop that exceed the limit kernel's (`SHFL`, `SEL`, `PRMT`, `STS`,
/// `LDS`, `LDSM`, `STSM`, `BAR`, spills, and all instructions of the kernel),
/// each as `chosen vs limit`.
pub fn over_limit_reason(r: &Row) -> String {
    let (Some(ch), Some(lim)) = (r.candidates.iter().find(|k| k.chosen), limit_entry(r)) else {
        return "no SASS of both kernels".into();
    };
    let (Some(a), Some(b)) = (ch.sass.as_ref(), lim.get("sass")) else {
        return "no SASS of both kernels".into();
    };
    let g = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let mut parts: Vec<String> = [
        "shfl", "sel", "prmt", "sts", "lds", "ldsm", "stsm", "bar", "ldl", "stl", "total",
    ]
    .iter()
    .filter(|k| g(a, k) > g(b, k))
    .map(|k| format!("{} {} vs {}", k.to_uppercase(), g(a, k), g(b, k)))
    .collect();
    if parts.is_empty() {
        parts.push("no instruction class above the limit kernel's (latency or scheduling)".into());
    }
    parts.join(", ")
}

/// Summary lines of the measured limit: how many chosen plans (and Triton's
/// kernels) run within [`LIMIT_TOLERANCE`] of it, and which rows have no
/// limit.
pub fn limit_summary(rows: &[Row]) -> String {
    let with: Vec<&Row> = rows
        .iter()
        .filter(|r| r.ratio_chosen_over_limit.is_some())
        .collect();
    let mut s = String::new();
    if with.is_empty() && rows.iter().all(|r| r.limit_missing.is_none()) {
        return s;
    }
    let xs: Vec<f64> = with
        .iter()
        .filter_map(|r| r.ratio_chosen_over_limit)
        .collect();
    let within = xs.iter().filter(|&&x| x <= LIMIT_TOLERANCE).count();
    let tx: Vec<f64> = with
        .iter()
        .filter_map(|r| r.ratio_triton_over_limit)
        .collect();
    let t_within = tx.iter().filter(|&&x| x <= LIMIT_TOLERANCE).count();
    s += &format!(
        "- measured limit: the chosen plan within {LIMIT_TOLERANCE}x of it on {within} of {} conversions (geomean {}); Triton's kernel on {t_within} of {} (geomean {})\n",
        xs.len(),
        geomean(&xs).map_or("-".into(), |g| format!("{g:.3}x")),
        tx.len(),
        geomean(&tx).map_or("-".into(), |g| format!("{g:.3}x")),
    );
    for r in &with {
        let x = r.ratio_chosen_over_limit.expect("filtered");
        if x > LIMIT_TOLERANCE {
            s += &format!(
                "  - `{}:{}` {x:.3}x the limit ({}): {}\n",
                short(&r.file),
                r.name,
                r.limit.as_ref().map_or("-", |p| p.strategy.as_str()),
                over_limit_reason(r)
            );
        }
    }
    let missing: Vec<&Row> = rows.iter().filter(|r| r.limit_missing.is_some()).collect();
    if !missing.is_empty() {
        s += &format!("- no measured limit for {} conversion(s):\n", missing.len());
        for r in missing {
            s += &format!(
                "  - `{}:{}`: {}\n",
                short(&r.file),
                r.name,
                r.limit_missing.as_deref().unwrap_or("-")
            );
        }
    }
    s
}

/// The markdown section of the measured limit: per conversion, every
/// limit kernel's time, the fastest, and the chosen plan's, the fastest
/// candidate's and Triton's time over it. Empty when no row has limits.
pub fn limit_section(rows: &[Row]) -> String {
    if rows.iter().all(|r| r.limits.is_empty()) {
        return String::new();
    }
    let f = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.3}"));
    let mut s = String::from(
        "\n## Against the measured limit\n\nEach limit kernel (`kernels::limit`) does only the data movement a conversion's lower bound counts (shuffles of whole words with no selects, or shared-memory stores and loads of 16 bytes with no bank conflict and the same barriers as the helpers), forward then back, in the same loop as the helpers; the fastest is the limit.\n\n| conversion | dtype | warps | limit kernels (ns) | limit | chosen / limit | fastest / limit | Triton / limit | SASS limit (shfl/sel/prmt/sts/lds/ldsm/stsm/bar) |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows.iter().filter(|r| !r.limits.is_empty()) {
        let each: Vec<String> = r
            .limits
            .iter()
            .map(|v| {
                let l = v.get("label").and_then(Value::as_str).unwrap_or("?");
                match v.get("ns").and_then(Value::as_f64) {
                    Some(ns) => format!("{l} {ns:.1}"),
                    None => format!("{l} failed"),
                }
            })
            .collect();
        s += &format!(
            "| `{}:{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            short(&r.file),
            r.name,
            r.dtype,
            r.warps,
            each.join(", "),
            r.limit.as_ref().map_or("-".into(), |p| p.strategy.clone()),
            f(r.ratio_chosen_over_limit),
            f(r.ratio_fastest_over_limit),
            f(r.ratio_triton_over_limit),
            sass_brief(limit_entry(r).and_then(|v| v.get("sass"))),
        );
    }
    s
}

/// The chosen plan's candidate row of `form` (`elements`, `carried`,
/// `packed`) in `r`: the first row of that form with the chosen row's
/// strategy (the chosen plan is the first candidate timed).
pub fn chosen_form<'a>(r: &'a Row, form: &str) -> Option<&'a CandidateRow> {
    let ch = r.candidates.iter().find(|k| k.chosen)?;
    r.candidates
        .iter()
        .find(|k| k.strategy == ch.strategy && k.form == form)
}

/// The markdown section that compares the forms of the chosen plan on 8- and
/// 16-bit data, each over Triton's time with its loop registers and
/// in-loop spills: the element form as emitted (`automatic`), the element
/// form told which array the loop carries (`carried`: that tile held as
/// words), the packed form and the vector form. Empty when no row has two
/// forms.
pub fn forms_section(rows: &[Row]) -> String {
    let rows: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.bits < 32
                && chosen_form(r, "packed")
                    .or(chosen_form(r, "carried"))
                    .is_some()
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let cell = |r: &Row, form: &str| -> (String, Option<f64>) {
        let tns = r.triton.get("ns").and_then(Value::as_f64);
        match chosen_form(r, form) {
            None => ("-".into(), None),
            Some(k) => {
                let ratio = match (k.ns, tns) {
                    (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                    _ => None,
                };
                let spills = k.sass.as_ref().map_or(0, |v| {
                    v.get("ldl_in_loop").and_then(Value::as_u64).unwrap_or(0)
                        + v.get("stl_in_loop").and_then(Value::as_u64).unwrap_or(0)
                });
                (
                    format!(
                        "{}, {} regs{}",
                        ratio.map_or("-".into(), |x| format!("{x:.3}")),
                        k.registers.map_or("?".into(), |x| x.to_string()),
                        if spills > 0 {
                            format!(", {spills} LDL+STL in the loop")
                        } else {
                            String::new()
                        }
                    ),
                    ratio,
                )
            }
        }
    };
    // the vector form's column only where some row timed it (runs before
    // the vector forms have none)
    let mut forms = vec!["elements", "carried", "packed"];
    if rows.iter().any(|r| chosen_form(r, "vector").is_some()) {
        forms.push("vector");
    }
    let cells: Vec<Vec<(String, Option<f64>)>> = rows
        .iter()
        .map(|r| forms.iter().map(|f| cell(r, f)).collect())
        .collect();
    let mut body = String::new();
    for (r, c) in rows.iter().zip(&cells) {
        body += &format!(
            "| `{}:{}` | {} | {} | {} |",
            short(&r.file),
            r.name,
            r.dtype,
            r.warps,
            chosen_form(r, "elements").map_or("-".into(), |k| k.strategy.clone()),
        );
        for (text, _) in c {
            body += &format!(" {text} |");
        }
        body += "\n";
    }
    // each form's largest ratio and the first conversion that has it
    let worst: Vec<(&str, f64, String)> = forms
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let (r, x) = rows
                .iter()
                .zip(&cells)
                .filter_map(|(r, c)| c[i].1.map(|x| (r, x)))
                .reduce(|a, b| if b.1 > a.1 { b } else { a })?;
            Some((*f, x, format!("{}:{}", short(&r.file), r.name)))
        })
        .collect();
    let vector = forms.len() > 3;
    let mut s = format!("\n## Forms of the chosen plan (8/16-bit data)\n\nEach form's time over Triton's, its loop kernel's registers and in-loop spills: the element form as emitted (`warpforge::words::automatic`), the element form told that the loop carries its source tile (`carried`: `warpforge::words::src` forward, `::dst` back, that tile held as 32-bit words), {}the packed form{}.\n\n",
        if vector { "" } else { "and " },
        if vector { ", and the vector form (`_x2`/`_x4` on 4-byte vectors in register order)" } else { "" });
    for (f, x, at) in &worst {
        s += &format!("- worst {f}: {x:.3}x (`{at}`)\n");
    }
    s += "\n| conversion | dtype | warps | plan |";
    for f in &forms {
        s += &format!(" {f} / Triton |");
    }
    s += "\n|---|---|---|---|";
    s += &"---|".repeat(forms.len());
    s += "\n";
    s + &body
}

/// The markdown report: `preamble` (command, GPU, driver, date, commit),
/// the summary, one line per conversion, and every candidate.
pub fn markdown(rows: &[Row], preamble: &str) -> String {
    let mut s = format!("{preamble}\n## Summary\n\n{}\n", summary(rows));
    s += "SASS columns: SHFL/SEL/PRMT/STS/LDS/LDSM/STSM/BAR of the whole timing kernel (one round trip `A -> B`, xor 1, `B -> A` in its loop; warpforge's side includes the harness's `__syncthreads()` before each shared-memory call). ns: GPU-wide nanoseconds per round trip, median.\n\n";
    s += "## Conversions\n\n| conversion | shape | dtype | warps | chosen plan | ns | fastest candidate | ns | Triton ns | chosen / Triton | fastest / Triton | SASS warpforge (chosen) | SASS Triton | registers wf / Triton |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    let f = |x: Option<f64>, p: usize| x.map(|v| format!("{v:.p$}")).unwrap_or("-".into());
    for r in rows {
        let ch = r.candidates.iter().find(|k| k.chosen);
        let tri_ns = r.triton.get("ns").and_then(Value::as_f64);
        let tri_err = r.triton.get("error").and_then(Value::as_str);
        s += &format!(
            "| `{}:{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |\n",
            short(&r.file),
            r.name,
            r.shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("x"),
            r.dtype,
            r.warps,
            r.chosen.strategy,
            f(r.chosen.ns, 1),
            r.fastest.strategy,
            f(r.fastest.ns, 1),
            tri_ns.map(|v| format!("{v:.1}")).unwrap_or_else(|| tri_err
                .unwrap_or("-")
                .chars()
                .take(60)
                .collect()),
            f(r.ratio_chosen_over_triton, 3),
            f(r.ratio_fastest_over_triton, 3),
            sass_brief(ch.and_then(|k| k.sass.as_ref())),
            sass_brief(r.triton.get("sass")),
            ch.and_then(|k| k.registers)
                .map(|x| x.to_string())
                .unwrap_or("-".into()),
            r.triton
                .get("registers")
                .and_then(Value::as_i64)
                .map(|x| x.to_string())
                .unwrap_or("-".into()),
        );
    }
    let cluster: Vec<&Row> = rows.iter().filter(|r| r.ctas > 1).collect();
    if !cluster.is_empty() {
        s += "\n## Across CTAs\n\nConversions planned through distributed shared memory (docs/ARCHITECTURE.md 4.7: data that moves between the CTAs of a cluster, or that each CTA keeps in an order that depends on its rank), launched in clusters of their CTAs: the chosen helper (distributed shared memory) against a round trip of the same data through global memory with the same cluster barriers, and Triton.\n\n| conversion | CTAs | dtype | warps | chosen plan | ns | global memory ns | chosen / global | registers wf / global | Triton |\n|---|---|---|---|---|---|---|---|---|---|\n";
        for r in cluster {
            let g = r.global.as_ref();
            let gns = g.and_then(|g| g.get("ns")).and_then(Value::as_f64);
            let gerr = g.and_then(|g| g.get("error")).and_then(Value::as_str);
            let ch = r.candidates.iter().find(|k| k.chosen);
            s += &format!(
                "| `{}:{}` | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |\n",
                short(&r.file),
                r.name,
                r.ctas,
                r.dtype,
                r.warps,
                r.chosen.strategy,
                f(r.chosen.ns, 1),
                gns.map(|v| format!("{v:.1}")).unwrap_or_else(|| gerr
                    .unwrap_or("-")
                    .chars()
                    .take(60)
                    .collect()),
                f(r.ratio_chosen_over_global, 3),
                ch.and_then(|k| k.registers)
                    .map(|x| x.to_string())
                    .unwrap_or("-".into()),
                g.and_then(|g| g.get("registers"))
                    .and_then(Value::as_i64)
                    .map(|x| x.to_string())
                    .unwrap_or("-".into()),
                r.triton
                    .get("ns")
                    .and_then(Value::as_f64)
                    .map(|v| format!("{v:.1} ns"))
                    .unwrap_or_else(|| r
                        .triton
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("-")
                        .chars()
                        .take(90)
                        .collect()),
            );
        }
    }
    s += &forms_section(rows);
    s += &limit_section(rows);
    s += "\n## Every candidate\n\n| conversion | candidate | chosen | predicted per thread (fwd) | wavefronts | score | ns | vs fastest | registers | SASS (loop kernel) |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for r in rows {
        for k in &r.candidates {
            s += &format!(
                "| `{}:{}` | {} | {} | {} | {} | {:.1} | {} | {} | {} | {} |\n",
                short(&r.file),
                r.name,
                k.label(),
                if k.chosen { "yes" } else { "" },
                k.cost,
                k.wavefronts,
                k.score,
                f(k.ns, 1),
                match (k.ns, r.fastest.ns) {
                    (Some(a), Some(b)) => format!("{:.3}x", a / b),
                    _ => k
                        .error
                        .clone()
                        .unwrap_or("-".into())
                        .chars()
                        .take(80)
                        .collect(),
                },
                k.registers.map(|x| x.to_string()).unwrap_or("-".into()),
                sass_brief(k.sass.as_ref()),
            );
        }
    }
    s
}

/// An SVG bar chart: per conversion, the chosen plan's time over Triton's
/// (bars) and the fastest candidate's (points), with the 1.0 line.
pub fn svg(rows: &[Row], title: &str) -> Result<String> {
    use plotters::prelude::*;
    let data: Vec<(String, f64, f64)> = rows
        .iter()
        .filter_map(|r| {
            Some((
                format!(
                    "{}:{}",
                    short(&r.file).split('.').next().unwrap_or(""),
                    r.name
                ),
                r.ratio_chosen_over_triton?,
                r.ratio_fastest_over_triton?,
            ))
        })
        .collect();
    let mut out = String::new();
    {
        let h = 520u32;
        let w = (80 + 26 * data.len().max(1) as u32).max(640);
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        root.fill(&WHITE)?;
        let ymax = data
            .iter()
            .map(|d| d.1.max(d.2))
            .fold(1.2f64, f64::max)
            .min(4.0)
            * 1.05;
        let n = data.len().max(1);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(190)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..n as f64, 0f64..ymax)?;
        let labels: Vec<String> = data.iter().map(|d| d.0.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - i as f64 - 0.0).abs() < 1e-9 {
                    labels.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_label_style(
                ("sans-serif", 10)
                    .into_font()
                    .transform(FontTransform::Rotate90),
            )
            .y_desc("warpforge time / Triton time")
            .draw()?;
        chart
            .draw_series(data.iter().enumerate().map(|(i, d)| {
                let color = if d.1 <= 1.0 {
                    RGBColor(46, 125, 50)
                } else {
                    RGBColor(198, 40, 40)
                };
                Rectangle::new(
                    [(i as f64 + 0.15, 0.0), (i as f64 + 0.85, d.1.min(ymax))],
                    color.filled(),
                )
            }))?
            .label("chosen plan")
            .legend(|(x, y)| {
                Rectangle::new(
                    [(x, y - 5), (x + 10, y + 5)],
                    RGBColor(46, 125, 50).filled(),
                )
            });
        chart
            .draw_series(
                data.iter()
                    .enumerate()
                    .map(|(i, d)| Circle::new((i as f64 + 0.5, d.2.min(ymax)), 3, BLACK.filled())),
            )?
            .label("fastest candidate")
            .legend(|(x, y)| Circle::new((x + 5, y), 3, BLACK.filled()));
        chart
            .draw_series(LineSeries::new(
                [(0.0, 1.0), (n as f64, 1.0)],
                BLACK.stroke_width(1),
            ))?
            .label("Triton = 1.0");
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
    }
    Ok(out)
}

/// The rows of a `bench --json` file's text (one JSON object a line, blank
/// lines skipped), for the tests that read committed runs.
#[cfg(test)]
pub(crate) fn rows_of(text: &str) -> Vec<Row> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a bench row"))
        .collect()
}

#[cfg(test)]
mod spill_tests {
    use super::*;

    /// Rows measured on an H100 (`results/runs/2026-11-23-h100-loop-registers-6411028/bench_register_major.jsonl`):
    /// three chosen plans spill where Triton's loop does not; where both
    /// spill (`matmul:75`'s Triton, the f64 transpose) nothing is reported.
    #[test]
    fn spills_where_triton_does_not_are_listed() {
        let text = include_str!(
            "../../results/runs/2026-11-23-h100-loop-registers-6411028/bench_register_major.jsonl"
        );
        let rows = rows_of(text);
        let got = spills_beyond_triton(&rows);
        let names: Vec<&str> = got.iter().map(|l| l.split(" (").next().unwrap()).collect();
        assert_eq!(
            names,
            [
                "stress_w1.ttgir:warp_local_f32_64x64:9",
                "stress_w32.ttgir:transpose_f16_256x256:5",
                "stress_w8.ttgir:epilogue_f32_128x256:6"
            ],
            "{got:?}"
        );
        assert!(got[0].contains("41 LDL, 41 STL) at 255 registers, Triton's does not (161 registers); limit 255 at 1 warps"), "{}", got[0]);
        assert!(summary(&rows).contains("spills where Triton's does not on 3 of 46"));
    }

    /// A row of Triton's tests (H100, `results/runs/2026-11-24-h100-cost-model-refit-88e9f83/`) whose
    /// chosen packed loop kernel spills 2 LDL + 2 STL at 32 of 255
    /// registers: a failed check until the recheck under
    /// `__launch_bounds__(128, 1)` finds no spill; still failed, with both
    /// counts, where it finds one.
    #[test]
    fn an_occupancy_spill_passes_only_when_the_recheck_has_none() {
        let text = include_str!(
            "../../results/runs/2026-11-24-h100-cost-model-refit-88e9f83/bench_triton_lowerings/bench_tl_6.jsonl"
        );
        let mut rows = rows_of(text);
        let name = "m2m_m3w41n64k32_m3w14n32k32_1x64_f16:151";
        let got = spills_beyond_triton(&rows);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].contains(name) && got[0].contains("(2 LDL, 2 STL) at 32 registers"),
            "{}",
            got[0]
        );
        let i = rows.iter().position(|r| r.name == name).unwrap();
        rows[i].occupancy_spill = Some(OccupancyRecheck {
            registers: 32,
            min_blocks_registers: 40,
            min_blocks_spill_bytes: 0,
        });
        assert!(spills_beyond_triton(&rows).is_empty());
        assert!(summary(&rows).contains("1 more chosen loop kernel(s) spilled"));
        rows[i]
            .occupancy_spill
            .as_mut()
            .unwrap()
            .min_blocks_spill_bytes = 8;
        let got = spills_beyond_triton(&rows);
        assert!(
            got[0].ends_with(
                "under __launch_bounds__(128, 1) still 8 bytes of spills at 40 registers"
            ),
            "{}",
            got[0]
        );
        // the field round-trips through the row's JSON
        let back: Row = serde_json::from_str(&serde_json::to_string(&rows[i]).unwrap()).unwrap();
        assert_eq!(back.occupancy_spill, rows[i].occupancy_spill);
    }

    /// Rows timed under `bench --max-registers` (`results/runs/2026-11-23-h100-spill-weight-d571367/`,
    /// at 80)
    /// spill by design and Triton's kernel is not capped: never listed,
    /// while the same rows without the cap would be.
    #[test]
    fn rows_timed_under_a_register_cap_are_not_checked() {
        let text = include_str!(
            "../../results/runs/2026-11-23-h100-spill-weight-d571367/bench_max_registers_80.jsonl"
        );
        let mut rows = rows_of(text);
        assert!(rows.iter().all(|r| r.max_registers == Some(80)));
        assert!(spills_beyond_triton(&rows).is_empty());
        for r in &mut rows {
            r.max_registers = None;
        }
        assert!(!spills_beyond_triton(&rows).is_empty());
    }
}

#[cfg(test)]
mod forms_tests {
    use super::*;

    /// The forms section rebuilt from the committed rows `jsonl` of run
    /// folder `run` (under `results/runs/`) and the section `bench` wrote
    /// beside them in `md` (up to the heading `next`): both, for the test to
    /// compare and search.
    fn rebuilt(run: &str, jsonl: &str, md: &str, next: &str) -> (String, String) {
        let dir = format!("{}/../results/runs/{run}/", env!("CARGO_MANIFEST_DIR"));
        let rows = rows_of(&std::fs::read_to_string(format!("{dir}{jsonl}")).unwrap());
        let md = std::fs::read_to_string(format!("{dir}{md}")).unwrap();
        let at = md.find("\n## Forms of the chosen plan").unwrap();
        let end = md.find(&format!("\n## {next}")).unwrap();
        (forms_section(&rows), md[at..end].to_string())
    }

    /// The "Forms of the chosen plan" section rebuilt from the committed
    /// rows of `results/runs/2026-11-24-h100-carried-words-6ef7222/bench.jsonl` (H100) is the
    /// section `warpforge bench` wrote with them, worst lines included.
    #[test]
    fn forms_section_of_the_committed_run() {
        let (got, written) = rebuilt(
            "2026-11-24-h100-carried-words-6ef7222",
            "bench.jsonl",
            "bench.md",
            "Every candidate",
        );
        assert_eq!(got.trim_end(), written.trim_end());
        assert!(got.contains(
            "- worst carried: 1.014x (`mmepi_fp16_64x64x32_w4_sm80.ttgir:mm_epilogue:97`)"
        ));
        assert!(forms_section(&[]).is_empty());
    }

    /// With vector-form timings (the H100 run of
    /// `results/runs/2026-11-28-h100-vector-forms-6850643/bench/`), the
    /// section has the vector column and worst line, as `bench` wrote it.
    #[test]
    fn forms_section_with_vector_forms() {
        let (got, written) = rebuilt(
            "2026-11-28-h100-vector-forms-6850643/bench",
            "bench_vec.jsonl",
            "bench_vec.md",
            "Against the measured limit",
        );
        assert_eq!(got.trim_end(), written.trim_end());
        assert!(got.contains("| vector / Triton |"));
        assert!(got.contains(
            "- worst vector: 1.069x (`mmepi_bf16_128x64x64_w4_sm80.ttgir:mm_epilogue:92`)"
        ));
    }
}

#[cfg(test)]
mod elided_tests {
    use super::*;

    /// Rows of Triton's one-warp layout tests timed on an H200 by a bench
    /// that did not yet drop elided timings
    /// (`results/runs/2026-11-28-h200-one-warp-choice-5a3d102/1_chosen_pairing/`):
    /// `wl_32x32_s12_t13`'s butterfly candidate ran its round trip with no
    /// `SHFL` at all (77 ns in the packed form, its reverse keeps one
    /// broadcast copy), and it is the only one dropped.
    #[test]
    fn a_round_trip_without_the_forward_shuffles_is_not_timed() {
        let text = include_str!(
            "../../results/runs/2026-11-28-h200-one-warp-choice-5a3d102/1_chosen_pairing/bench_w1_rest_aa.jsonl"
        );
        let mut rows = rows_of(text);
        let timed = |rows: &[Row]| -> usize {
            rows.iter()
                .flat_map(|r| &r.candidates)
                .filter(|k| k.ns.is_some())
                .count()
        };
        let before = timed(&rows);
        let mut dropped = Vec::new();
        for r in &mut rows {
            drop_elided(&mut r.candidates);
            for k in r.candidates.iter().filter(|k| k.error.is_some()) {
                dropped.push((r.name.clone(), k.strategy.clone(), k.form.clone()));
            }
        }
        assert_eq!(timed(&rows), before - 3);
        assert_eq!(dropped.len(), 3, "{dropped:?}");
        for (name, strategy, _) in &dropped {
            assert_eq!(
                (name.as_str(), strategy.as_str()),
                ("wl_32x32_s12_t13:272", "shuffle/in-place/bfly/words")
            );
        }
        let k = rows
            .iter()
            .flat_map(|r| &r.candidates)
            .find(|k| k.error.is_some())
            .unwrap();
        assert!(
            k.error.as_deref().unwrap().contains("0 SHFL")
                && k.error
                    .as_deref()
                    .unwrap()
                    .contains("forward plan alone has 32"),
            "{:?}",
            k.error
        );
        // dropping again changes nothing
        let again = rows.clone();
        for r in &mut rows {
            drop_elided(&mut r.candidates);
        }
        assert_eq!(timed(&rows), timed(&again));
    }
}
