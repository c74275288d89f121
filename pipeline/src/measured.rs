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
//! ([`synth::search::consider`]) and takes, among those whose fingerprint
//! a row timed, the fastest, where it beat the model's own choice by more
//! than [`MARGIN`]; every other conversion keeps the model's choice.

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
/// `bench` times them once. Errors: the body cannot be emitted.
pub fn plan_fingerprint(plan: &Plan) -> Result<String> {
    let body = kernels::body("x", plan).map_err(|e| anyhow!("{e}"))?;
    let lines: Vec<&str> = body.iter().map(String::as_str).collect();
    Ok(format!("{:016x}", kernels::stable_hash(&lines)))
}

/// One timed candidate plan of a conversion: its fingerprint, strategy and
/// the least time of its forms (element, packed, carried, vector), in ns a
/// round trip as `bench` timed it.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredPlan {
    pub fingerprint: String,
    pub strategy: String,
    pub ns: f64,
}

/// The bench rows of `--measured FILE`, by conversion key.
#[derive(Clone, Debug, Default)]
pub struct Measurements {
    /// The file they came from, as given.
    pub source: String,
    by_key: HashMap<String, Vec<MeasuredPlan>>,
}

/// What a row of `bench --json` must hold to be read back (every other
/// field is ignored).
#[derive(Deserialize)]
struct RowKeys {
    #[serde(default)]
    key: Option<String>,
    name: String,
    candidates: Vec<CandidateKeys>,
}

#[derive(Deserialize)]
struct CandidateKeys {
    strategy: String,
    #[serde(default)]
    fingerprint: Option<String>,
    ns: Option<f64>,
}

impl Measurements {
    /// Read `warpforge bench --json` rows (one JSON object a non-blank
    /// line) from `path`, bounded as every input is
    /// ([`synth::input::read_input_file`]). A conversion timed in several
    /// rows (several files, or the same layouts at several places) keeps
    /// each candidate's least time. Errors name the file and line: a line
    /// that is not a bench row, a time that is not a finite positive
    /// number, or a file none of whose rows carries a conversion key (rows
    /// of a `bench` older than `--measured`: run `warpforge bench` again).
    pub fn read(path: &Path) -> Result<Measurements> {
        let text =
            synth::input::read_input_file(path).map_err(|e| anyhow!("--measured {e}"))?;
        Measurements::parse(&text, &path.display().to_string())
    }

    /// [`Measurements::read`] on the text of `source`.
    pub fn parse(text: &str, source: &str) -> Result<Measurements> {
        let mut m = Measurements {
            source: source.to_string(),
            by_key: HashMap::new(),
        };
        let (mut rows, mut keyed) = (0usize, 0usize);
        for (i, l) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let at = format!("--measured {source}:{}", i + 1);
            let r: RowKeys = serde_json::from_str(l)
                .map_err(|e| anyhow!("{at}: not a `warpforge bench --json` row: {e}"))?;
            rows += 1;
            let Some(key) = r.key else { continue };
            if key.len() != 16 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
                bail!("{at}: `key` of `{}` is {key:?}, not 16 hex digits", r.name);
            }
            keyed += 1;
            let plans = m.by_key.entry(key).or_default();
            for k in r.candidates {
                let (Some(fp), Some(ns)) = (k.fingerprint, k.ns) else {
                    continue;
                };
                if !(ns.is_finite() && ns > 0.0) {
                    bail!("{at}: candidate `{}` of `{}` has time {ns} ns, not a positive number", k.strategy, r.name);
                }
                match plans.iter_mut().find(|p| p.fingerprint == fp) {
                    Some(p) if ns < p.ns => p.ns = ns,
                    Some(_) => {}
                    None => plans.push(MeasuredPlan {
                        fingerprint: fp,
                        strategy: k.strategy,
                        ns,
                    }),
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
    /// row timed it).
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
    /// Whether the measured candidate replaced the model's choice.
    pub replaced: bool,
    /// The strategy and time (ns a round trip, least of its forms) of the
    /// candidate used: the measured one where `replaced`, else the model's.
    pub strategy: String,
    pub ns: Option<f64>,
    /// The model's choice and its time, where its rows timed it.
    pub model_strategy: String,
    pub model_ns: Option<f64>,
    /// Why the model's choice was kept, where it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_because: Option<String>,
}

/// Pick among `proven` (fingerprinted as [`plan_fingerprint`]; the model's
/// choice first) by `measured`: the index of the fastest timed candidate
/// where it is more than [`MARGIN`] faster than the model's choice (or the
/// model's choice was not timed), else 0; and the [`MeasuredChoice`] that
/// says so. `None` where no candidate was timed.
pub fn pick(
    fingerprints: &[String],
    strategies: &[String],
    measured: &[MeasuredPlan],
) -> Option<(usize, MeasuredChoice)> {
    let time = |fp: &str| measured.iter().find(|m| m.fingerprint == fp).map(|m| m.ns);
    let timed: Vec<(usize, f64)> = fingerprints
        .iter()
        .enumerate()
        .filter_map(|(i, fp)| time(fp).map(|t| (i, t)))
        .collect();
    let &(best, best_ns) = timed.iter().min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))?;
    let model_ns = fingerprints.first().and_then(|fp| time(fp));
    let model_strategy = strategies.first().cloned().unwrap_or_default();
    let replace = best != 0
        && match model_ns {
            Some(m) => best_ns < (1.0 - MARGIN) * m,
            None => true,
        };
    let kept_because = (!replace).then(|| match model_ns {
        Some(_) if best == 0 => format!("the fastest of the {} timed", timed.len()),
        Some(m) => format!(
            "the fastest timed ({}, {best_ns:.0} ns) is within {:.0}% of it ({m:.0} ns)",
            strategies[best],
            MARGIN * 100.0
        ),
        None => unreachable!("a model choice not timed is replaced"),
    });
    Some((
        if replace { best } else { 0 },
        MeasuredChoice {
            replaced: replace,
            strategy: strategies[if replace { best } else { 0 }].clone(),
            ns: if replace { Some(best_ns) } else { model_ns },
            model_strategy,
            model_ns,
            kept_because,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mp(fp: &str, ns: f64) -> MeasuredPlan {
        MeasuredPlan {
            fingerprint: fp.into(),
            strategy: format!("s_{fp}"),
            ns,
        }
    }

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pick_replaces_only_beyond_the_margin() {
        let fps = strs(&["a", "b", "c"]);
        let st = strs(&["sa", "sb", "sc"]);
        // b is 5% faster than the model's a: replaced
        let (i, c) = pick(&fps, &st, &[mp("a", 100.0), mp("b", 95.0), mp("c", 120.0)]).unwrap();
        assert_eq!((i, c.replaced, c.strategy.as_str()), (1, true, "sb"));
        assert_eq!((c.ns, c.model_ns), (Some(95.0), Some(100.0)));
        // b is 1% faster: within the margin, the model's choice stays
        let (i, c) = pick(&fps, &st, &[mp("a", 100.0), mp("b", 99.0)]).unwrap();
        assert_eq!((i, c.replaced), (0, false));
        assert!(c.kept_because.unwrap().contains("within 2%"));
        // the model's choice is the fastest
        let (i, c) = pick(&fps, &st, &[mp("a", 90.0), mp("b", 99.0)]).unwrap();
        assert_eq!((i, c.replaced), (0, false));
        // the model's choice not timed: the fastest timed one
        let (i, c) = pick(&fps, &st, &[mp("c", 90.0), mp("b", 99.0)]).unwrap();
        assert_eq!((i, c.replaced, c.model_ns), (2, true, None));
        // nothing timed
        assert!(pick(&fps, &st, &[mp("z", 1.0)]).is_none());
    }

    #[test]
    fn parse_keeps_each_candidate_least_time_and_refuses_bad_rows() {
        let row = |key: &str, ns: f64| {
            format!(
                r#"{{"name":"f:1","key":"{key}","candidates":[{{"strategy":"s","fingerprint":"00000000000000aa","ns":{ns}}},{{"strategy":"t","ns":5.0}}]}}"#
            )
        };
        let k = "0123456789abcdef";
        let m = Measurements::parse(&format!("{}\n\n{}\n", row(k, 10.0), row(k, 8.0)), "b.jsonl").unwrap();
        assert_eq!(m.plans(k), &[MeasuredPlan { fingerprint: "00000000000000aa".into(), strategy: "s".into(), ns: 8.0 }]);
        assert!(m.plans("ffffffffffffffff").is_empty());
        let e = Measurements::parse("{\"name\":\"f:1\",\"candidates\":[]}\nnot json\n", "b.jsonl").unwrap_err();
        assert!(e.to_string().contains("b.jsonl:2: not a `warpforge bench --json` row"), "{e}");
        let e = Measurements::parse("{\"name\":\"f:1\",\"candidates\":[]}\n", "b.jsonl").unwrap_err();
        assert!(e.to_string().contains("none of its 1 row(s) carries a conversion `key`"), "{e}");
        let e = Measurements::parse(&row("xyz", 1.0), "b.jsonl").unwrap_err();
        assert!(e.to_string().contains("b.jsonl:1: `key` of `f:1`"), "{e}");
        let e = Measurements::parse(&row(k, -1.0), "b.jsonl").unwrap_err();
        assert!(e.to_string().contains("not a positive number"), "{e}");
    }
}
