//! Plans chosen by measurement: `warpforge bench --json` rows of one GPU,
//! read back by `plan`/`emit`/`verify --measured FILE`, replace the cost
//! model's choice of a conversion they timed where another proven candidate
//! ran faster (an autotuner's loop, as Triton's `@triton.autotune` picks
//! configurations by timing them, here over the planner's own candidates).
//!
//! A bench row names its conversion by [`conversion_key`] (both linear
//! layouts, the shape, the element width planned, the warps and the target
//! architecture: what a plan depends on, not the op's name or file), and
//! each timed candidate by [`plan_fingerprint`] (the printed element-form
//! body of the plan). The planner proves its candidates again
//! ([`synth::search::consider`]) and replaces the model's choice by one a
//! row timed more than [`MARGIN`] faster in every form the model's choice
//! was timed in, from round trips of one family only ([`pick`],
//! [`Measurements::parse`]); every other conversion keeps the model's
//! choice. The key holds no register cap: rows timed under
//! `bench --max-registers` serve planning without one too.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use serde::Deserialize;
use synth::plan::{Conversion, Plan};

/// How much faster (as a fraction of the model's choice's time) a measured
/// candidate must be to replace the model's choice: within it the two are
/// within the run-to-run spread of `bench`'s timing (its repeated runs of
/// one kernel differ by up to about 1% on an H200), and the model's choice
/// is kept.
pub const MARGIN: f64 = 0.02;

/// The key of a conversion's plans: FNV-1a ([`kernels::stable_hash`]) over
/// both linear layouts as Triton's `LinearLayout::toString` writes them,
/// the shape, the element width planned (`bits`: 8, 16, 32 or 64), the
/// warps per CTA and the target (`sm` as 10 * major + minor). Two
/// conversions with equal keys have the same candidate plans; the name,
/// the file, the element type's spelling (f16 and bf16 share 16-bit plans)
/// and the attribute text do not enter it. 16 hex digits.
pub fn conversion_key(conv: &Conversion, bits: u32, sm: u32) -> String {
    let shape: Vec<String> = conv.shape.iter().map(|d| d.to_string()).collect();
    let (src, dst) = (conv.src.to_string(), conv.dst.to_string());
    let (shape, bits, warps, sm) = (
        shape.join("x"),
        bits.to_string(),
        conv.num_warps.to_string(),
        format!("sm{sm}"),
    );
    format!(
        "{:016x}",
        kernels::stable_hash(&[&src, &dst, &shape, &bits, &warps, &sm])
    )
}

/// The fingerprint of a candidate plan: FNV-1a over the lines of its
/// element-form body ([`kernels::body`]), 16 hex digits. Candidates that
/// print the same body (one plan under two strategy names) share it, as
/// `bench` times them once. A warp group's named barrier
/// ([`synth::plan::BarrierScope::Named`]) counts as `__syncthreads()`:
/// `bench` plans each conversion for a CTA of its own warps, where the two
/// are the same barrier (`BAR.SYNC` over every thread), so its rows serve
/// the default group of a warp-specialized function too; and a partition's
/// first warp ([`Plan::first_warp`]) counts as 0, the warps `bench` runs
/// the plan on, so they serve its partitions as well. Errors: the body
/// cannot be emitted.
pub fn plan_fingerprint(plan: &Plan) -> Result<String> {
    let mut plan = plan.clone();
    plan.first_warp = 0;
    plan.register_budget = None;
    for st in &mut plan.stages {
        if let synth::plan::Stage::Barrier { scope } = st {
            if matches!(scope, synth::plan::BarrierScope::Named { .. }) {
                *scope = synth::plan::BarrierScope::Cta;
            }
        }
    }
    let body = kernels::body("x", &plan).map_err(|e| anyhow!("{e}"))?;
    let lines: Vec<&str> = body.iter().map(String::as_str).collect();
    Ok(format!("{:016x}", kernels::stable_hash(&lines)))
}

/// One timed candidate plan of a conversion: its fingerprint, strategy and
/// time per form (`elements`, `carried`, `packed`, `vector`: the least over
/// its rows), in ns a round trip as `bench` timed it.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredPlan {
    pub fingerprint: String,
    pub strategy: String,
    pub forms: Vec<(String, f64)>,
}

impl MeasuredPlan {
    /// Its time in `form`, where timed.
    pub fn ns(&self, form: &str) -> Option<f64> {
        self.forms.iter().find(|f| f.0 == form).map(|f| f.1)
    }
}

/// The family of a strategy name: what comes before its first `/`
/// (`shuffle`, `shared`, `cluster-store`, ...): plans of one family load
/// the same pipes of an SM (the shuffle unit and ALU, or the load/store
/// unit and shared memory).
pub fn family(strategy: &str) -> &str {
    strategy.split('/').next().unwrap_or(strategy)
}

/// The bench rows of `--measured FILE`, by conversion key.
#[derive(Clone, Debug, Default)]
pub struct Measurements {
    /// The file they came from, as given.
    pub source: String,
    by_key: HashMap<String, Vec<MeasuredPlan>>,
    /// Per key, the index of each fingerprint in its list.
    index: HashMap<String, HashMap<String, usize>>,
    /// Timings left out because the candidate's round trip returned through
    /// a reverse plan of another family ([`Measurements::parse`]).
    pub mixed: usize,
}

/// What a row of `bench --json` must hold to be read back (every other
/// field is ignored).
#[derive(Deserialize)]
struct RowKeys {
    #[serde(default)]
    key: Option<String>,
    name: String,
    /// The reverse plan of every candidate's round trip, but those whose
    /// own `bwd` says otherwise.
    bwd: String,
    candidates: Vec<CandidateKeys>,
}

#[derive(Deserialize)]
struct CandidateKeys {
    strategy: String,
    /// `shuffle`, `shared`, `register` (selects and renames, no data
    /// movement between threads), `cluster`; absent: from the strategy.
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    form: String,
    #[serde(default)]
    fingerprint: Option<String>,
    ns: Option<f64>,
    #[serde(default)]
    bwd: Option<String>,
}

impl Measurements {
    /// Read `warpforge bench --json` rows (one JSON object a non-blank
    /// line) from `path`, bounded as every input is
    /// ([`synth::input::read_input_file`]). A conversion timed in several
    /// rows (several files, or the same layouts at several places) keeps
    /// each candidate form's least time.
    ///
    /// Only round trips of one family are kept: a candidate timed through
    /// a reverse plan of another family ([`family`]) is left out (counted
    /// in [`Measurements::mixed`]), because the two directions then load
    /// different pipes and overlap, and its time says little of the
    /// candidate in a round trip of its own kind
    /// (results/runs/2026-11-28-h200-one-warp-choice-5a3d102/). Rows of
    /// `warpforge bench --pair same-family` time every candidate so.
    ///
    /// Errors name the file and line: a line that is not a bench row, a
    /// time that is not a finite positive number, or a file none of whose
    /// rows carries a conversion key (rows of a `bench` older than
    /// `--measured`: run `warpforge bench` again).
    pub fn read(path: &Path) -> Result<Measurements> {
        let text = synth::input::read_input_file(path).map_err(|e| anyhow!("--measured {e}"))?;
        Measurements::parse(&text, &path.display().to_string())
    }

    /// [`Measurements::read`] on the text of `source`.
    pub fn parse(text: &str, source: &str) -> Result<Measurements> {
        let mut m = Measurements {
            source: source.to_string(),
            ..Measurements::default()
        };
        let (mut rows, mut keyed) = (0usize, 0usize);
        for (i, l) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let at = format!("--measured {source}:{}", i + 1);
            let r: RowKeys = serde_json::from_str(l)
                .map_err(|e| anyhow!("{at}: not a `warpforge bench --json` row: {e}"))?;
            rows += 1;
            let Some(key) = r.key else { continue };
            if key.len() != 16 || !key.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                bail!(
                    "{at}: `key` of `{}` is {key:?}, not 16 lowercase hex digits",
                    r.name
                );
            }
            keyed += 1;
            let index = m.index.entry(key.clone()).or_default();
            let plans = m.by_key.entry(key).or_default();
            for k in r.candidates {
                let (Some(fp), Some(ns)) = (k.fingerprint, k.ns) else {
                    continue;
                };
                if !(ns.is_finite() && ns > 0.0) {
                    bail!(
                        "{at}: candidate `{}` of `{}` has time {ns} ns, not a positive number",
                        k.strategy,
                        r.name
                    );
                }
                let reverse = k.bwd.as_deref().unwrap_or(&r.bwd);
                let own = k.kind.as_deref().unwrap_or_else(|| family(&k.strategy));
                // a register plan (selects, no movement between threads)
                // loads no pipe of its own beside a reverse of either family
                if own != "register" && own != family(reverse) {
                    m.mixed += 1;
                    continue;
                }
                let form = if k.form.is_empty() {
                    "elements".to_string()
                } else {
                    k.form
                };
                let i = *index.entry(fp.clone()).or_insert_with(|| {
                    plans.push(MeasuredPlan {
                        fingerprint: fp,
                        strategy: k.strategy,
                        forms: Vec::new(),
                    });
                    plans.len() - 1
                });
                let p = &mut plans[i];
                match p.forms.iter_mut().find(|f| f.0 == form) {
                    Some(f) => f.1 = f.1.min(ns),
                    None => p.forms.push((form, ns)),
                }
            }
        }
        if keyed == 0 {
            bail!(
                "--measured {source}: none of its {rows} row(s) carries a conversion `key`: rows written by a `warpforge bench` before `--measured` existed, or not bench rows; run `warpforge bench --json FILE` again"
            );
        }
        Ok(m)
    }

    /// The timed candidates of the conversion with key `key` (none where no
    /// row timed it in a round trip of its own family).
    pub fn plans(&self, key: &str) -> &[MeasuredPlan] {
        self.by_key.get(key).map_or(&[], Vec::as_slice)
    }

    /// Conversions with rows.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Whether no conversion has rows.
    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// What measurement decided for one conversion that its rows timed.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeasuredChoice {
    /// Whether a measured candidate replaced the model's choice.
    pub replaced: bool,
    /// The strategy of the plan used.
    pub strategy: String,
    /// The model's choice.
    pub model_strategy: String,
    /// Per form timed for both (`elements`, `carried`, `packed`,
    /// `vector`): the plan used's time over the model's choice's; empty
    /// where the model's choice was kept.
    pub ratios: Vec<(String, f64)>,
    /// Why the model's choice was kept, where it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_because: Option<String>,
}

impl MeasuredChoice {
    /// The ratios as text: `0.81x (packed), 0.93x (elements)`.
    pub fn ratios_text(&self) -> String {
        self.ratios
            .iter()
            .map(|(f, r)| format!("{r:.2}x ({f})"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Pick among proven candidates (`candidates`: fingerprint and strategy
/// of each, the model's choice first) by `measured`: a candidate replaces
/// the model's choice only where both were timed and it was timed in every
/// form the model's choice was (but `vector`, which `bench` times for its
/// chosen plan alone), more than [`MARGIN`] faster in each, so that no form
/// a caller may use gets slower; among those, the one whose slowest form
/// relative to the model's choice is fastest. Returns its index (0: the
/// model's choice kept) and the [`MeasuredChoice`] that says why; `None`
/// where no candidate was timed.
pub fn pick(
    candidates: &[(String, String)],
    measured: &[MeasuredPlan],
) -> Option<(usize, MeasuredChoice)> {
    let timed = |i: usize| measured.iter().find(|m| m.fingerprint == candidates[i].0);
    let any = (0..candidates.len())
        .filter(|&i| timed(i).is_some())
        .count();
    if any == 0 {
        return None;
    }
    let model_strategy = candidates[0].1.clone();
    let keep = |why: String| {
        Some((
            0,
            MeasuredChoice {
                replaced: false,
                strategy: model_strategy.clone(),
                model_strategy: model_strategy.clone(),
                ratios: Vec::new(),
                kept_because: Some(why),
            },
        ))
    };
    let Some(model) = timed(0) else {
        return keep(format!(
            "its rows timed {any} other candidate(s) but not it in a round trip of its own family: time it with `warpforge bench --pair same-family`"
        ));
    };
    let needed: Vec<&(String, f64)> = model.forms.iter().filter(|f| f.0 != "vector").collect();
    // each other timed candidate: its time over the model's per form
    // (index, worst ratio, ratios per form)
    type Best = (usize, f64, Vec<(String, f64)>);
    let mut best: Option<Best> = None;
    for i in 1..candidates.len() {
        let Some(c) = timed(i) else { continue };
        let ratios: Option<Vec<(String, f64)>> = needed
            .iter()
            .map(|(f, m)| c.ns(f).map(|ns| (f.clone(), ns / m)))
            .collect();
        let Some(ratios) = ratios else { continue };
        let Some(worst) = ratios.iter().map(|r| r.1).max_by(f64::total_cmp) else {
            continue;
        };
        if worst < 1.0 - MARGIN && best.as_ref().is_none_or(|b| worst < b.1) {
            best = Some((i, worst, ratios));
        }
    }
    match best {
        Some((i, _, ratios)) => Some((
            i,
            MeasuredChoice {
                replaced: true,
                strategy: candidates[i].1.clone(),
                model_strategy,
                ratios,
                kept_because: None,
            },
        )),
        None => keep(format!(
            "none of the {} other timed candidate(s) is more than {:.0}% faster in every form the model's choice was timed in",
            any - 1,
            MARGIN * 100.0
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mp(fp: &str, forms: &[(&str, f64)]) -> MeasuredPlan {
        MeasuredPlan {
            fingerprint: fp.into(),
            strategy: format!("s_{fp}"),
            forms: forms.iter().map(|(f, t)| (f.to_string(), *t)).collect(),
        }
    }

    fn named(v: &[&str]) -> Vec<(String, String)> {
        v.iter().map(|s| (s.to_string(), format!("s{s}"))).collect()
    }

    #[test]
    fn pick_replaces_only_when_every_common_form_is_faster_beyond_the_margin() {
        let fps = named(&["a", "b", "c"]);
        let e = |t: f64| [("elements", t)];
        // b is 5% faster than the model's a: replaced
        let (i, c) = pick(
            &fps,
            &[mp("a", &e(100.0)), mp("b", &e(95.0)), mp("c", &e(120.0))],
        )
        .unwrap();
        assert_eq!((i, c.replaced, c.strategy.as_str()), (1, true, "sb"));
        assert_eq!(c.ratios, vec![("elements".to_string(), 0.95)]);
        // b is 1% faster: within the margin, the model's choice stays
        let (i, c) = pick(&fps, &[mp("a", &e(100.0)), mp("b", &e(99.0))]).unwrap();
        assert_eq!((i, c.replaced), (0, false));
        assert!(c
            .kept_because
            .unwrap()
            .contains("more than 2% faster in every form"));
        // faster packed, slower element form: kept
        let both = |el: f64, pk: f64| [("elements", el), ("packed", pk)];
        let (i, _) = pick(
            &fps,
            &[mp("a", &both(100.0, 80.0)), mp("b", &both(110.0, 60.0))],
        )
        .unwrap();
        assert_eq!(i, 0);
        // both faster: the one whose worse form gains most (c: 0.9 worst, b: 0.95)
        let (i, c) = pick(
            &fps,
            &[
                mp("a", &both(100.0, 80.0)),
                mp("b", &both(95.0, 40.0)),
                mp("c", &both(90.0, 70.0)),
            ],
        )
        .unwrap();
        assert_eq!((i, c.strategy.as_str()), (2, "sc"));
        // the model's choice not timed: kept, and told how to time it
        let (i, c) = pick(&fps, &[mp("c", &e(90.0)), mp("b", &e(99.0))]).unwrap();
        assert_eq!((i, c.replaced), (0, false));
        assert!(c.kept_because.unwrap().contains("--pair same-family"));
        // nothing timed
        assert!(pick(&fps, &[mp("z", &e(1.0))]).is_none());
    }

    #[test]
    fn parse_keeps_least_times_drops_mixed_round_trips_and_refuses_bad_rows() {
        let row = |key: &str, ns: f64| {
            format!(
                r#"{{"name":"f:1","key":"{key}","bwd":"shared/v4+v4/swz-st","candidates":[{{"strategy":"shared/v4","form":"packed","fingerprint":"00000000000000aa","ns":{ns}}},{{"strategy":"shuffle/idx","fingerprint":"00000000000000bb","ns":1.0}},{{"strategy":"shuffle/bfly","fingerprint":"00000000000000cc","ns":2.0,"bwd":"shuffle/idx"}},{{"strategy":"shuffle/select/own","kind":"register","fingerprint":"00000000000000dd","ns":3.0}},{{"strategy":"t","ns":5.0}}]}}"#
            )
        };
        let k = "0123456789abcdef";
        let m = Measurements::parse(&format!("{}\n\n{}\n", row(k, 10.0), row(k, 8.0)), "b.jsonl")
            .unwrap();
        assert_eq!(
            m.plans(k),
            &[
                MeasuredPlan {
                    fingerprint: "00000000000000aa".into(),
                    strategy: "shared/v4".into(),
                    forms: vec![("packed".into(), 8.0)]
                },
                MeasuredPlan {
                    fingerprint: "00000000000000cc".into(),
                    strategy: "shuffle/bfly".into(),
                    forms: vec![("elements".into(), 2.0)]
                },
                // a register plan counts beside a reverse of either family
                MeasuredPlan {
                    fingerprint: "00000000000000dd".into(),
                    strategy: "shuffle/select/own".into(),
                    forms: vec![("elements".into(), 3.0)]
                },
            ]
        );
        // the shuffle candidate that returned through the shared reverse, once a row
        assert_eq!(m.mixed, 2);
        assert!(m.plans("ffffffffffffffff").is_empty());
        let e = Measurements::parse(
            "{\"name\":\"f:1\",\"bwd\":\"x\",\"candidates\":[]}\nnot json\n",
            "b.jsonl",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("b.jsonl:2: not a `warpforge bench --json` row"),
            "{e}"
        );
        let e = Measurements::parse(
            "{\"name\":\"f:1\",\"bwd\":\"x\",\"candidates\":[]}\n",
            "b.jsonl",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("none of its 1 row(s) carries a conversion `key`"),
            "{e}"
        );
        let e = Measurements::parse(&row("0123456789ABCDEF", 1.0), "b.jsonl").unwrap_err();
        assert!(e.to_string().contains("not 16 lowercase hex digits"), "{e}");
        let e = Measurements::parse(&row("xyz", 1.0), "b.jsonl").unwrap_err();
        assert!(e.to_string().contains("b.jsonl:1: `key` of `f:1`"), "{e}");
        let e = Measurements::parse(&row(k, -1.0), "b.jsonl").unwrap_err();
        assert!(e.to_string().contains("not a positive number"), "{e}");
    }
}
