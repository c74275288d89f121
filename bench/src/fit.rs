//! Fitting the planner's cost model to `warpforge bench` timings (issue 7).
//!
//! Model: the GPU-wide time of a candidate's round trip per warp of the CTA,
//! `ns / warps`, is a per-conversion constant (the shared backward helper,
//! loads, loop) plus `weights . features` of the forward candidate
//! ([`synth::cost_model::Features`]). Subtracting each conversion's means
//! removes the constants (a fixed-effects regression); the weights are the
//! non-negative least-squares solution of what remains (Lawson and Hanson,
//! *Solving Least Squares Problems*, 1974, ch. 23, the active-set NNLS; the
//! inner least-squares solves are nalgebra's SVD). A feature that never
//! varies within a conversion cannot be identified; it keeps the prior
//! model's weight times the factor that best scales the prior model to the
//! data. The latency floors (`Weights::floor_smem`, `floor_shfl`) and the
//! cluster plans' remote-access weights (`remote_store`, `remote_load`) are
//! not fitted: the least squares is on the throughput part over
//! [`synth::cost_model::FEATURE_NAMES`] (rows where a floor binds
//! included), and these are the prior's, scaled to the data's units where
//! the weights are. Least squares on time is not the planner's
//! objective (choosing the fastest candidate), so the weights are then refined by coordinate search
//! (each weight scaled by 0, 1/2, 4/5, 5/4 or 2 while that lowers the total
//! regret), starting from the better of the prior and the least-squares
//! weights; or, with [`fit_near`], searched from the prior with a penalty
//! on moving away from it. A choice is a candidate *plan*, which serves
//! every form a caller may call (element, carried, packed): the plan is
//! chosen by the form the search ranks it in ([`ranked`]) and judged in
//! each form it was timed in against the fastest plan in that form; the
//! regret of a conversion is the mean over those forms of `ln(ns(chosen) /
//! ns(fastest))`, and the total regret its sum over conversions. Selection
//! quality (is the chosen plan within 5% and 15% of the fastest, in its
//! worst form) is reported in-sample and leaving each conversion out of its
//! own fit.

use crate::report::{CandidateRow, Row};
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use synth::cost_model::{CostModel, Weights, FEATURE_NAMES};

const NF: usize = FEATURE_NAMES.len();
/// Index of `spill` (registers predicted over the register limit) in
/// [`FEATURE_NAMES`]. It is fitted only where it varies within at least
/// [`SPILL_MIN_CONVERSIONS`] conversions, else kept at the prior's weight
/// in the fit's units: at the launch bounds' limits the corpus has next to
/// no candidate over it (only the 64-bit transpose's, whose data alone is),
/// and a weight from one conversion would be that conversion's
/// shuffle-against-shared difference. Rows timed under `warpforge bench
/// --max-registers N` (kernels compiled under `__maxnreg__(N)`) are what
/// identify it.
const SPILL: usize = NF - 1;

/// Conversions whose candidates must differ in `spill` before its weight is
/// fitted (see [`SPILL`]).
pub const SPILL_MIN_CONVERSIONS: usize = 3;

/// Whether feature `c` of the demeaned design `a` is identified: it varies
/// within some conversion, and for `spill` within [`SPILL_MIN_CONVERSIONS`].
fn identified_features(s: &[Sample], a: &DMatrix<f64>) -> Vec<bool> {
    let groups = s.iter().map(|x| x.group).max().map_or(0, |g| g + 1);
    let mut spill_varies = vec![false; groups];
    for (r, x) in s.iter().enumerate() {
        if a[(r, SPILL)].abs() > 1e-9 {
            spill_varies[x.group] = true;
        }
    }
    let spill_groups = spill_varies.iter().filter(|&&v| v).count();
    (0..NF)
        .map(|c| {
            a.column(c).iter().any(|v| v.abs() > 1e-9)
                && (c != SPILL || spill_groups >= SPILL_MIN_CONVERSIONS)
        })
        .collect()
}

/// One timed candidate as a sample.
#[derive(Clone, Debug)]
struct Sample {
    group: usize,
    x: [f64; NF],
    y: f64,
}

/// How a model's choices compare with the measured-fastest candidates.
#[derive(Clone, Debug, Serialize)]
pub struct Selection {
    pub conversions: usize,
    pub within_5pct: usize,
    pub within_15pct: usize,
    /// Conversions where the choice is more than 5% slower than the fastest.
    pub misses: Vec<Miss>,
}

/// A conversion where the model's choice is not within 5% of the fastest.
#[derive(Clone, Debug, Serialize)]
pub struct Miss {
    pub conversion: String,
    pub chosen: String,
    pub chosen_ns: f64,
    pub fastest: String,
    pub fastest_ns: f64,
    pub slower_by: f64,
}

/// One candidate's measured and fitted time (per warp, ns, within its
/// conversion: both relative to the conversion's mean).
#[derive(Clone, Debug, Serialize)]
pub struct Residual {
    pub conversion: String,
    pub strategy: String,
    pub measured: f64,
    pub fitted: f64,
}

/// The fit and its evaluation.
#[derive(Clone, Debug, Serialize)]
pub struct FitReport {
    pub samples: usize,
    /// Conversions with at least two timed candidates (the ones that inform the fit).
    pub conversions: usize,
    /// Features that varied within some conversion (fitted); the others
    /// keep the scaled prior weight.
    pub identified: Vec<String>,
    /// Fraction of within-conversion variance the weights explain.
    pub r2_within: f64,
    /// The least-squares weights (before the regret refinement).
    pub weights_least_squares: Weights,
    /// The refined weights: the model's.
    pub weights: Weights,
    /// Total regret of the prior, the least-squares and the refined
    /// weights: over conversions, the mean over the chosen plan's timed
    /// forms of `ln(ns(chosen) / ns(fastest in that form))`.
    pub regret_prior: f64,
    pub regret_least_squares: f64,
    pub regret: f64,
    pub selection_in_sample: Selection,
    /// Each conversion chosen by weights fitted without it.
    pub selection_leave_one_out: Selection,
    /// The prior (given) weights' selection on the same data.
    pub selection_prior: Selection,
    pub residuals: Vec<Residual>,
}

fn label(r: &Row) -> String {
    format!(
        "{}:{}",
        r.file.rsplit('/').next().unwrap_or(&r.file),
        r.name
    )
}

/// The form `bench` times for the chosen plan only (`vector`: the vector
/// forms, the packed form plus the reordering `prmt` its features do not
/// count): neither a sample of the fit nor a form a choice is judged in.
const CHOSEN_ONLY_FORM: &str = "vector";

/// The candidates of `r` that are samples of the fit, in order: those with
/// a time, but for [`CHOSEN_ONLY_FORM`] and for cluster plans, whose time
/// goes largely to remote accesses that the fitted features count only as
/// shared-memory instructions (the fixed `remote_store` and `remote_load`
/// weights price the rest; fitted, `smem` would absorb it). They are still
/// choices the fit is judged by. [`samples`], [`informative`] and
/// [`residuals`] all walk these, so that their indices agree.
fn fit_samples(r: &Row) -> impl Iterator<Item = &CandidateRow> {
    r.candidates
        .iter()
        .filter(|k| k.ns.is_some() && k.form != CHOSEN_ONLY_FORM && k.kind != "cluster")
}

fn samples(rows: &[Row]) -> Vec<Sample> {
    let mut out = Vec::new();
    for (g, r) in rows.iter().enumerate() {
        for k in fit_samples(r) {
            out.push(Sample {
                group: g,
                x: k.features.as_array(),
                y: k.ns.expect("fitted candidates are timed") / r.warps as f64,
            });
        }
    }
    out
}

/// Within-group demeaned design matrix and response.
fn demeaned(s: &[Sample]) -> (DMatrix<f64>, DVector<f64>) {
    let groups = s.iter().map(|x| x.group).max().map_or(0, |g| g + 1);
    let mut sum = vec![([0.0; NF], 0.0, 0usize); groups];
    for x in s {
        let e = &mut sum[x.group];
        for i in 0..NF {
            e.0[i] += x.x[i];
        }
        e.1 += x.y;
        e.2 += 1;
    }
    let a = DMatrix::from_fn(s.len(), NF, |r, c| {
        let e = &sum[s[r].group];
        s[r].x[c] - e.0[c] / e.2 as f64
    });
    let b = DVector::from_fn(s.len(), |r, _| {
        let e = &sum[s[r].group];
        s[r].y - e.1 / e.2 as f64
    });
    (a, b)
}

fn lstsq(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    a.clone()
        .svd(true, true)
        .solve(b, 1e-12)
        .unwrap_or_else(|_| DVector::zeros(a.ncols()))
}

/// Non-negative least squares, `min |a x - b|, x >= 0` (Lawson-Hanson).
pub fn nnls(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    let n = a.ncols();
    let mut x = DVector::zeros(n);
    let mut passive = vec![false; n];
    let tol = 1e-10 * (1.0 + b.norm());
    for _ in 0..(3 * n + 10) {
        let w = a.transpose() * (b - a * &x);
        let Some((j, wj)) = (0..n)
            .filter(|&j| !passive[j])
            .map(|j| (j, w[j]))
            .max_by(|p, q| p.1.total_cmp(&q.1))
        else {
            break;
        };
        if wj <= tol {
            break;
        }
        passive[j] = true;
        loop {
            let idx: Vec<usize> = (0..n).filter(|&i| passive[i]).collect();
            let sub = a.select_columns(&idx);
            let z = lstsq(&sub, b);
            if z.iter().all(|&v| v > 0.0) {
                for (k, &i) in idx.iter().enumerate() {
                    x[i] = z[k];
                }
                break;
            }
            // step back toward x until a passive variable reaches zero
            let mut alpha = 1.0f64;
            for (k, &i) in idx.iter().enumerate() {
                if z[k] <= 0.0 {
                    alpha = alpha.min(x[i] / (x[i] - z[k]));
                }
            }
            for (k, &i) in idx.iter().enumerate() {
                x[i] += alpha * (z[k] - x[i]);
                if x[i] <= 1e-12 {
                    x[i] = 0.0;
                    passive[i] = false;
                }
            }
        }
    }
    x
}

fn fit_weights(s: &[Sample], prior: &Weights) -> (Weights, Vec<bool>, f64) {
    let (a, b) = demeaned(s);
    let identified = identified_features(s, &a);
    let p = prior.as_array();
    // the prior model's best scale on these data
    let ps = &a * DVector::from_row_slice(&p);
    let scale = if ps.norm_squared() > 0.0 {
        (ps.dot(&b) / ps.norm_squared()).max(0.0)
    } else {
        0.0
    };
    let idx: Vec<usize> = (0..NF).filter(|&i| identified[i]).collect();
    let mut w = [0.0; NF];
    if !idx.is_empty() {
        let z = nnls(&a.select_columns(&idx), &b);
        for (k, &i) in idx.iter().enumerate() {
            w[i] = z[k];
        }
    }
    for i in 0..NF {
        if !identified[i] {
            w[i] = p[i] * scale;
        }
    }
    let fitted = &a * DVector::from_row_slice(&w);
    let ss = b.norm_squared();
    let r2 = if ss > 0.0 {
        1.0 - (&b - fitted).norm_squared() / ss
    } else {
        0.0
    };
    // the floors are not fitted (least squares on the throughput part,
    // rows where a floor binds included): in the data's units, the prior's
    // scaled as the unidentified weights are
    let mut fitted_w = Weights::from_array(w).with_floors_of(prior);
    fitted_w.floor_smem *= scale;
    fitted_w.floor_shfl *= scale;
    fitted_w.remote_store *= scale;
    fitted_w.remote_load *= scale;
    (fitted_w, identified, r2)
}

/// The candidate plans of a row, each with its timed forms (`elements`,
/// `carried`, `packed`): candidates of one plan share [`CandidateRow::plan`];
/// rows written before it existed list a plan's forms one after another,
/// the element form first (`bench::cases`), and are grouped so.
fn plans(r: &Row) -> Vec<Vec<&CandidateRow>> {
    let mut out: Vec<Vec<&CandidateRow>> = Vec::new();
    for k in &r.candidates {
        let starts = match out.last() {
            None => true,
            Some(p) => match (k.plan, p[0].plan) {
                (Some(a), Some(b)) => a != b,
                _ => {
                    k.form == "elements" || k.form.is_empty() || p.iter().any(|x| x.form == k.form)
                }
            },
        };
        if starts {
            out.push(vec![k]);
        } else {
            out.last_mut().expect("pushed above").push(k);
        }
    }
    out
}

/// The form a plan is ranked in, as the search ranks it
/// (`synth::cost_model::Weights::score_in`): the candidate `bench` marked
/// [`CandidateRow::ranked`]; in rows written before that mark, the packed
/// form where it was timed, else the element form (which misplaces a plan
/// whose packed form was timed but that the search ranks by its element
/// form, such as a 16-bit shuffle plan without a pack stage).
fn ranked<'r>(plan: &[&'r CandidateRow]) -> &'r CandidateRow {
    plan.iter()
        .find(|k| k.ranked == Some(true))
        .or_else(|| {
            plan.iter()
                .find(|k| k.ranked.is_none() && k.form == "packed")
        })
        .copied()
        .unwrap_or(plan[0])
}

/// The plan `w` chooses in a row as the search does
/// (`synth::search::consider`): plans within the register cap the row was
/// timed under (`spill` 0 in the ranked form: the launch bounds' limit, or
/// `bench --max-registers`) before those over it, then the lowest score of
/// the ranked form ([`ranked`]) (its latency floor included,
/// `Weights::dot`), then the lowest throughput score, ties to the earlier.
/// Only plans with a timed form compete.
fn choose<'r, 'a>(
    plans: &'a [Vec<&'r CandidateRow>],
    w: &Weights,
) -> Option<&'a [&'r CandidateRow]> {
    plans
        .iter()
        .filter(|p| p.iter().any(|k| k.ns.is_some()))
        .min_by(|a, b| {
            let (a, b) = (ranked(a), ranked(b));
            (a.features.spill > 0.0)
                .cmp(&(b.features.spill > 0.0))
                .then(w.dot(&a.features).total_cmp(&w.dot(&b.features)))
                .then(
                    w.throughput(&a.features)
                        .total_cmp(&w.throughput(&b.features)),
                )
        })
        .map(|p| p.as_slice())
}

/// For each form the chosen plan was timed in: the chosen plan's candidate
/// of that form and the fastest candidate of that form over all plans.
/// One plan serves every form a caller may call (the element form, the
/// element form told which array it carries, the packed form), so a choice
/// is judged in each of them, against the fastest plan in the same form.
fn judged<'r>(
    plans: &[Vec<&'r CandidateRow>],
    chosen: &[&'r CandidateRow],
) -> Vec<(&'r CandidateRow, &'r CandidateRow)> {
    chosen
        .iter()
        .filter(|c| c.ns.is_some() && c.form != CHOSEN_ONLY_FORM)
        .filter_map(|c| {
            let fastest = plans
                .iter()
                .flatten()
                .filter(|k| k.form == c.form && k.ns.is_some())
                .min_by(|a, b| a.ns.unwrap().total_cmp(&b.ns.unwrap()))?;
            Some((*c, *fastest))
        })
        .collect()
}

fn selection(rows: &[Row], pick: impl Fn(usize, &Row) -> Weights) -> Selection {
    let mut s = Selection {
        conversions: 0,
        within_5pct: 0,
        within_15pct: 0,
        misses: vec![],
    };
    for (g, r) in rows.iter().enumerate() {
        let w = pick(g, r);
        let ps = plans(r);
        let Some(chosen) = choose(&ps, &w) else {
            continue;
        };
        // the form in which the choice is furthest from the fastest
        let Some((c, f)) = judged(&ps, chosen).into_iter().max_by(|a, b| {
            (a.0.ns.unwrap() / a.1.ns.unwrap()).total_cmp(&(b.0.ns.unwrap() / b.1.ns.unwrap()))
        }) else {
            continue;
        };
        let (cn, fns) = (c.ns.unwrap(), f.ns.unwrap());
        s.conversions += 1;
        if cn <= fns * 1.05 {
            s.within_5pct += 1;
        } else {
            s.misses.push(Miss {
                conversion: label(r),
                chosen: c.label(),
                chosen_ns: cn,
                fastest: f.label(),
                fastest_ns: fns,
                slower_by: (cn / fns * 1000.0).round() / 1000.0,
            });
        }
        if cn <= fns * 1.15 {
            s.within_15pct += 1;
        }
    }
    s
}

/// Total regret of `w`'s choices: over conversions, the mean over the
/// forms the chosen plan was timed in of `ln(ns(chosen) / ns(fastest))`
/// in that form ([`judged`]).
fn regret(rows: &[Row], w: &Weights) -> f64 {
    rows.iter()
        .filter_map(|r| {
            let ps = plans(r);
            let j = judged(&ps, choose(&ps, w)?);
            (!j.is_empty()).then(|| {
                j.iter()
                    .map(|(c, f)| (c.ns.unwrap() / f.ns.unwrap()).ln())
                    .sum::<f64>()
                    / j.len() as f64
            })
        })
        .sum()
}

/// Coordinate search on the regret from the better of `a` and `b`; the
/// `spill` weight moves only where `spill_fitted`.
fn refine(rows: &[Row], a: &Weights, b: &Weights, spill_fitted: bool) -> Weights {
    let (mut best, mut r) = [*a, *b]
        .into_iter()
        .map(|w| (w, regret(rows, &w)))
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .expect("two starts");
    for _ in 0..30 {
        let mut improved = false;
        for i in (0..NF).filter(|&i| i != SPILL || spill_fitted) {
            for f in [0.0, 0.5, 0.8, 1.25, 2.0] {
                let mut v = best.as_array();
                v[i] = if v[i] == 0.0 && f > 1.0 {
                    0.25 * f
                } else {
                    v[i] * f
                };
                let w = Weights::from_array(v).with_floors_of(&best);
                let rw = regret(rows, &w);
                if rw < r - 1e-9 {
                    best = w;
                    r = rw;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    best
}

/// Steps of [`refine_near`]: each weight scaled by 4/5 or 5/4, and where
/// none of those lowers the objective, by 1/2 or 2 (to cross the plateaus
/// of a regret that changes only where a choice flips).
const NEAR_STEPS: [&[f64]; 2] = [&[0.8, 1.25], &[0.5, 2.0]];

/// The penalised objective of [`refine_near`]: the mean regret per
/// conversion plus `lambda * sum_i ln((w_i + 0.01) / (prior_i + 0.01))^2`.
fn near_objective(rows: &[Row], n: f64, w: &Weights, prior: &Weights, lambda: f64) -> f64 {
    let pen: f64 = w
        .as_array()
        .iter()
        .zip(prior.as_array())
        .map(|(a, b)| ((a + 0.01) / (b + 0.01)).ln().powi(2))
        .sum();
    regret(rows, w) / n + lambda * pen
}

/// Coordinate search from `prior` on the mean regret per conversion,
/// penalised by `lambda` times the squared log distance of each weight from
/// the prior's ([`near_objective`]), in steps of [`NEAR_STEPS`] (every weight
/// but `spill`, which rows at the launch bounds' limits hardly identify: see
/// [`SPILL`]). A ridge on the log weights: with many weights and conversions
/// whose candidates differ in few of them, the unpenalised search
/// ([`refine`]) drives weights to 0 or far out to fit single conversions,
/// and chooses worse than the prior when each conversion is left out
/// (measured: see `results/runs/2026-11-24-h100-cost-model-refit-88e9f83/`).
fn refine_near(rows: &[Row], prior: &Weights, lambda: f64) -> Weights {
    let n = rows.len().max(1) as f64;
    let mut best = *prior;
    let mut r = near_objective(rows, n, &best, prior, lambda);
    for _ in 0..60 {
        let mut improved = false;
        for steps in NEAR_STEPS {
            for i in (0..NF).filter(|&i| i != SPILL) {
                for f in steps {
                    let mut v = best.as_array();
                    v[i] *= f;
                    let w = Weights::from_array(v).with_floors_of(&best);
                    let rw = near_objective(rows, n, &w, prior, lambda);
                    if rw < r - 1e-9 {
                        best = w;
                        r = rw;
                        improved = true;
                    }
                }
            }
            if improved {
                break;
            }
        }
        if !improved {
            break;
        }
    }
    best
}

/// Fit weights near `prior` ([`refine_near`] with `lambda`), for a prior
/// whose units and choices should stay: the least-squares weights are
/// computed and reported, not used. Leave-one-out selection refits without
/// each conversion in the same way. Errors when no conversion has two timed
/// candidates or `lambda` is negative or not finite.
pub fn fit_near(rows: &[Row], prior: &Weights, lambda: f64) -> anyhow::Result<FitReport> {
    anyhow::ensure!(
        lambda.is_finite() && lambda >= 0.0,
        "the penalty must be finite and non-negative, not {lambda}"
    );
    let s = samples(rows);
    let informative = informative(rows)?;
    let (w_ls, identified, r2) = fit_weights(&s, prior);
    let w = refine_near(rows, prior, lambda);
    let (a, b) = demeaned(&s);
    // the residuals of the model's weights, scaled to the timings (only
    // ratios of weights matter to the search)
    let ps = &a * DVector::from_row_slice(&w.as_array());
    let scale = if ps.norm_squared() > 0.0 {
        (ps.dot(&b) / ps.norm_squared()).max(0.0)
    } else {
        0.0
    };
    let residuals = residuals(rows, &b, &(ps * scale));
    let loo = selection(rows, |g, _| refine_near(&without(rows, g), prior, lambda));
    Ok(Fitted {
        samples: s.len(),
        conversions: informative,
        identified: identified_names(&identified),
        r2,
        weights_least_squares: w_ls,
        weights: w,
        leave_one_out: loo,
        residuals,
    }
    .report(rows, prior))
}

/// What a fit found, before it is evaluated on the rows ([`Fitted::report`]).
struct Fitted {
    samples: usize,
    conversions: usize,
    identified: Vec<String>,
    r2: f64,
    weights_least_squares: Weights,
    weights: Weights,
    leave_one_out: Selection,
    residuals: Vec<Residual>,
}

impl Fitted {
    /// The report: these weights' and the prior's regret and selection on
    /// `rows`.
    fn report(self, rows: &[Row], prior: &Weights) -> FitReport {
        let (w, w_ls) = (self.weights, self.weights_least_squares);
        FitReport {
            samples: self.samples,
            conversions: self.conversions,
            identified: self.identified,
            r2_within: (self.r2 * 1000.0).round() / 1000.0,
            weights_least_squares: w_ls,
            weights: w,
            regret_prior: regret(rows, prior),
            regret_least_squares: regret(rows, &w_ls),
            regret: regret(rows, &w),
            selection_in_sample: selection(rows, |_, _| w),
            selection_leave_one_out: self.leave_one_out,
            selection_prior: selection(rows, |_, _| *prior),
            residuals: self.residuals,
        }
    }
}

/// The names of the features marked identified.
fn identified_names(identified: &[bool]) -> Vec<String> {
    FEATURE_NAMES
        .iter()
        .zip(identified)
        .filter(|x| *x.1)
        .map(|x| x.0.to_string())
        .collect()
}

/// The rows but conversion `g` (a leave-one-out fit's).
fn without(rows: &[Row], g: usize) -> Vec<Row> {
    rows.iter()
        .enumerate()
        .filter(|(i, _)| *i != g)
        .map(|(_, r)| r.clone())
        .collect()
}

/// Conversions with at least two timed candidates (the ones that inform a
/// fit); an error when there is none.
fn informative(rows: &[Row]) -> anyhow::Result<usize> {
    let n = rows.iter().filter(|r| fit_samples(r).count() >= 2).count();
    anyhow::ensure!(
        n > 0,
        "no conversion has two timed candidates: nothing to fit"
    );
    Ok(n)
}

/// Every timed candidate's measured and fitted within-conversion time
/// (`b` and `fitted` in the samples' order, ns per warp).
fn residuals(rows: &[Row], b: &DVector<f64>, fitted: &DVector<f64>) -> Vec<Residual> {
    let mut out = Vec::new();
    let mut i = 0;
    for r in rows {
        for k in fit_samples(r) {
            out.push(Residual {
                conversion: label(r),
                strategy: k.label(),
                measured: (b[i] * 100.0).round() / 100.0,
                fitted: (fitted[i] * 100.0).round() / 100.0,
            });
            i += 1;
        }
    }
    out
}

/// Fit weights to the rows' timings, starting from (and falling back to)
/// `prior`; evaluate them. Errors when no conversion has two timed
/// candidates.
pub fn fit(rows: &[Row], prior: &Weights) -> anyhow::Result<FitReport> {
    let s = samples(rows);
    let informative = informative(rows)?;
    let (w_ls, identified, r2) = fit_weights(&s, prior);
    let w = refine(rows, prior, &w_ls, identified[SPILL]);
    let (a, b) = demeaned(&s);
    let residuals = residuals(rows, &b, &(&a * DVector::from_row_slice(&w.as_array())));
    let loo = selection(rows, |g, _| {
        let rest: Vec<Sample> = s.iter().filter(|x| x.group != g).cloned().collect();
        if rest.is_empty() {
            return w;
        }
        let (w_rest, id_rest, _) = fit_weights(&rest, prior);
        refine(&without(rows, g), prior, &w_rest, id_rest[SPILL])
    });
    Ok(Fitted {
        samples: s.len(),
        conversions: informative,
        identified: identified_names(&identified),
        r2,
        weights_least_squares: w_ls,
        weights: w,
        leave_one_out: loo,
        residuals,
    }
    .report(rows, prior))
}

/// Fit the one weight `feature` (an index of [`FEATURE_NAMES`]) with every
/// other weight held at `prior`'s: the within-conversion times are
/// least-squares fitted (non-negative) as `scale * (prior . features
/// without feature) + w * feature`, and the model's weight is `w / scale`,
/// in the prior's units. For a hand-set model whose other weights should
/// stay, e.g. `spill` from rows timed under `warpforge bench
/// --max-registers`. Errors when the feature does not vary within enough
/// conversions (one; [`SPILL_MIN_CONVERSIONS`] for `spill`) or the prior
/// explains none of the timings (`scale` 0).
pub fn fit_one(rows: &[Row], prior: &Weights, feature: usize) -> anyhow::Result<FitReport> {
    anyhow::ensure!(feature < NF, "no feature {feature}");
    let name = FEATURE_NAMES[feature];
    let s = samples(rows);
    let informative = informative(rows)?;
    // (the model's weights in the prior's units, R^2, the fitted times)
    let one = |s: &[Sample]| -> anyhow::Result<(Weights, f64, DVector<f64>)> {
        let (a, b) = demeaned(s);
        let groups = s.iter().map(|x| x.group).max().map_or(0, |g| g + 1);
        let mut varies = vec![false; groups];
        for (r, x) in s.iter().enumerate() {
            if a[(r, feature)].abs() > 1e-9 {
                varies[x.group] = true;
            }
        }
        let n = varies.iter().filter(|&&v| v).count();
        let need = if feature == SPILL {
            SPILL_MIN_CONVERSIONS
        } else {
            1
        };
        anyhow::ensure!(
            n >= need,
            "`{name}` varies within {n} conversion(s) of these rows; fitting it needs {need}"
        );
        let mut rest = prior.as_array();
        rest[feature] = 0.0;
        let base = &a * DVector::from_row_slice(&rest);
        let design = DMatrix::from_fn(
            s.len(),
            2,
            |r, c| {
                if c == 0 {
                    base[r]
                } else {
                    a[(r, feature)]
                }
            },
        );
        let z = nnls(&design, &b);
        anyhow::ensure!(
            z[0] > 0.0,
            "the prior's other weights explain none of these timings (scale 0): fit them all instead"
        );
        let mut w = prior.as_array();
        w[feature] = z[1] / z[0];
        let fitted = &design * &z;
        let ss = b.norm_squared();
        let r2 = if ss > 0.0 {
            1.0 - (&b - &fitted).norm_squared() / ss
        } else {
            0.0
        };
        Ok((Weights::from_array(w).with_floors_of(prior), r2, fitted))
    };
    let (w, r2, fitted) = one(&s)?;
    let (_, b) = demeaned(&s);
    let residuals = residuals(rows, &b, &fitted);
    // leaving a conversion out can leave too few that vary: then the
    // prior's weight chooses for it
    let loo = selection(rows, |g, _| {
        let rest: Vec<Sample> = s.iter().filter(|x| x.group != g).cloned().collect();
        one(&rest).map_or(*prior, |x| x.0)
    });
    Ok(Fitted {
        samples: s.len(),
        conversions: informative,
        identified: vec![name.to_string()],
        r2,
        weights_least_squares: w,
        weights: w,
        leave_one_out: loo,
        residuals,
    }
    .report(rows, prior))
}

/// A cost-model file from a fit: the weights and the fit's statistics
/// (without the per-candidate residuals, which [`FitReport`] keeps).
pub fn model(report: &FitReport, gpu: &str, source: &str) -> CostModel {
    let mut fit = serde_json::to_value(report).expect("a fit report serializes");
    if let Some(o) = fit.as_object_mut() {
        o.remove("residuals");
    }
    CostModel {
        format: "warpforge-cost-model".into(),
        version: 1,
        gpu: gpu.into(),
        source: source.into(),
        weights: report.weights,
        fit: Some(fit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector forms `bench` timed for the chosen plans of the committed
    /// H200 run are neither fit samples nor judged forms; every other timed
    /// candidate is a sample.
    #[test]
    fn vector_form_timings_are_not_fitted() {
        let rows = crate::report::rows_of(include_str!(
            "../../results/runs/2026-11-28-h100-vector-forms-6850643/bench_half2/bench_half2.jsonl"
        ));
        let timed: Vec<&CandidateRow> = rows
            .iter()
            .flat_map(|r| &r.candidates)
            .filter(|k| k.ns.is_some())
            .collect();
        let vector = timed.iter().filter(|k| k.form == "vector").count();
        assert!(vector >= 6, "the run timed vector forms");
        let others = timed.len() - vector;
        assert_eq!(samples(&rows).len(), others);
        // and a fit over them runs end to end (residuals walk the samples)
        let report = fit(&rows, &Weights::default()).unwrap();
        assert_eq!(report.residuals.len(), others);
        for r in &rows {
            let ps = plans(r);
            let chosen: Vec<&CandidateRow> =
                r.candidates.iter().filter(|k| k.plan == Some(0)).collect();
            assert!(judged(&ps, &chosen).iter().all(|(c, _)| c.form != "vector"));
        }
    }

    #[test]
    fn nnls_recovers_nonnegative_weights_and_clamps_negative_ones() {
        // y = 2 x0 + 0 x1 + 3 x2, exactly
        let a = DMatrix::from_row_slice(
            5,
            3,
            &[1., 0., 2., 0., 1., 1., 3., 1., 0., 1., 2., 1., 2., 2., 2.],
        );
        let b = &a * DVector::from_row_slice(&[2.0, 0.0, 3.0]);
        let x = nnls(&a, &b);
        assert!(
            (x[0] - 2.0).abs() < 1e-8 && x[1].abs() < 1e-8 && (x[2] - 3.0).abs() < 1e-8,
            "{x}"
        );
        // a negative unconstrained solution is clamped to zero
        let b2 = &a * DVector::from_row_slice(&[1.0, -2.0, 1.0]);
        let x2 = nnls(&a, &b2);
        assert!(x2.iter().all(|&v| v >= 0.0), "{x2}");
        assert!(x2[1] == 0.0, "{x2}");
    }

    /// A sample of conversion `group` whose time is `2 * shfl + 10 * spill`.
    fn spill_sample(group: usize, shfl: f64, spill: f64) -> Sample {
        let mut x = [0.0; NF];
        x[0] = shfl;
        x[SPILL] = spill;
        Sample {
            group,
            x,
            y: 2.0 * shfl + 10.0 * spill,
        }
    }

    #[test]
    fn spill_is_fitted_where_it_varies_within_enough_conversions() {
        // time = 2 * shfl + 10 * spill; spill varies within three conversions
        let s = vec![
            spill_sample(0, 1.0, 0.0),
            spill_sample(0, 3.0, 2.0),
            spill_sample(1, 2.0, 4.0),
            spill_sample(1, 5.0, 0.0),
            spill_sample(2, 1.0, 0.0),
            spill_sample(2, 1.0, 8.0),
            spill_sample(2, 4.0, 1.0),
        ];
        let (w, identified, r2) = fit_weights(&s, &Weights::default());
        assert!(identified[SPILL] && identified[0]);
        // floors and remote-access weights scaled into the data's units as
        // the prior's other weights are, never dropped
        assert!(w.floor_smem > 0.0 && w.floor_shfl > 0.0, "{w:?}");
        let prior = Weights::default();
        let scale = w.floor_smem / prior.floor_smem;
        assert!(
            (w.floor_shfl / prior.floor_shfl - scale).abs() < 1e-9,
            "{w:?}"
        );
        assert!(
            (w.remote_store - prior.remote_store * scale).abs() < 1e-9,
            "{w:?}"
        );
        assert!(
            (w.remote_load - prior.remote_load * scale).abs() < 1e-9,
            "{w:?}"
        );
        assert!((w.spill - 10.0).abs() < 1e-6, "{w:?}");
        assert!((w.shfl - 2.0).abs() < 1e-6, "{w:?}");
        assert!((r2 - 1.0).abs() < 1e-9);
        // two such conversions are not enough
        let (_, identified, _) = fit_weights(&s[..4], &Weights::default());
        assert!(!identified[SPILL]);
    }

    #[test]
    fn one_weight_is_fitted_in_the_priors_units() {
        // time per warp = 0.5 * (prior score without spill) + 3 * spill:
        // in the prior's units the spill weight is 6
        let prior = Weights::default();
        let mk_row = |g: usize, cands: &[(f64, f64)]| -> Row {
            let candidates: Vec<serde_json::Value> = cands
                .iter()
                .enumerate()
                .map(|(i, &(shfl, spill))| {
                    let ns = 0.5 * prior.shfl * shfl + 3.0 * spill + 100.0 * g as f64;
                    serde_json::json!({
                        "strategy": format!("k{i}"), "kind": "shuffle", "form": "elements",
                        "cost": {"shfl": 0, "sel": 0, "prmt": 0, "sts": 0, "lds": 0, "bar": 0, "ldsm": 0, "stsm": 0},
                        "features": {"shfl": shfl, "sel": 0.0, "prmt": 0.0, "smem": 0.0, "stsm": 0.0,
                                     "wavefront": 0.0, "bar": 0.0, "bar_warp": 0.0, "spill": spill},
                        "score": 0.0, "chosen": i == 0, "wavefronts": 0, "min_wavefronts": 0,
                        "bank_conflicts": 0, "ns": ns, "registers": 32, "sass": null
                    })
                })
                .collect();
            serde_json::from_value(serde_json::json!({
                "file": "t", "name": format!("c{g}"), "shape": [32, 32], "dtype": "i32", "bits": 32,
                "warps": 1, "bwd": "b", "lower_bound": null, "candidates": candidates,
                "chosen": {"strategy": "k0", "ns": null}, "fastest": {"strategy": "k0", "ns": null},
                "triton": null
            }))
            .unwrap()
        };
        let rows = vec![
            mk_row(0, &[(4.0, 0.0), (2.0, 3.0)]),
            mk_row(1, &[(1.0, 5.0), (6.0, 0.0), (3.0, 1.0)]),
            mk_row(2, &[(2.0, 2.0), (2.0, 0.0)]),
        ];
        let r = fit_one(&rows, &prior, SPILL).unwrap();
        assert!((r.weights.spill - 6.0).abs() < 1e-6, "{:?}", r.weights);
        assert_eq!(r.weights.shfl, prior.shfl);
        assert!((r.r2_within - 1.0).abs() < 1e-9);
        // the residuals' fitted times are in ns, as the measured ones
        assert!(
            r.residuals
                .iter()
                .all(|x| (x.measured - x.fitted).abs() < 0.011),
            "{:?}",
            r.residuals
        );
        // two conversions that vary in spill are not enough
        let e = fit_one(&rows[..2], &prior, SPILL).unwrap_err().to_string();
        assert!(e.contains("varies within 2 conversion"), "{e}");
    }

    #[test]
    fn spill_is_not_fitted_from_one_conversion_but_kept_at_the_prior_in_the_fits_units() {
        assert_eq!(FEATURE_NAMES[SPILL], "spill");
        // two conversions; time = 2 * shfl + 10 * spill, where only one
        // candidate of one conversion spills
        let s = vec![
            spill_sample(0, 1.0, 0.0),
            spill_sample(0, 3.0, 0.0),
            spill_sample(1, 2.0, 4.0),
            spill_sample(1, 5.0, 0.0),
        ];
        let prior = Weights::default();
        let (w, identified, _) = fit_weights(&s, &prior);
        assert!(!identified[SPILL]);
        assert!(identified[0]);
        // the prior's spill weight scaled as the prior fits these data
        let (a, b) = demeaned(&s);
        let ps = &a * DVector::from_row_slice(&prior.as_array());
        let scale = (ps.dot(&b) / ps.norm_squared()).max(0.0);
        assert!((w.spill - prior.spill * scale).abs() < 1e-9, "{w:?}");
    }
    /// A row of candidates `(plan, form, shfl, sel, ns)`; `plan` None
    /// writes the row as before plans were recorded.
    fn form_row(name: &str, cands: &[(Option<usize>, &str, f64, f64, f64)]) -> Row {
        let candidates: Vec<serde_json::Value> = cands
            .iter()
            .map(|&(plan, form, shfl, sel, ns)| {
                let mut k = serde_json::json!({
                    "strategy": format!("s{}", plan.unwrap_or(0)), "kind": "shuffle", "form": form,
                    "cost": {"shfl": 0, "sel": 0, "prmt": 0, "sts": 0, "lds": 0, "bar": 0, "ldsm": 0, "stsm": 0},
                    "features": {"shfl": shfl, "sel": sel, "prmt": 0.0, "smem": 0.0, "stsm": 0.0,
                                 "wavefront": 0.0, "bar": 0.0, "bar_warp": 0.0, "spill": 0.0},
                    "score": 0.0, "chosen": false, "wavefronts": 0, "min_wavefronts": 0,
                    "bank_conflicts": 0, "ns": ns, "registers": 32, "sass": null
                });
                if let Some(p) = plan {
                    k["plan"] = p.into();
                }
                k
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "file": "t", "name": name, "shape": [32, 32], "dtype": "f16", "bits": 16,
            "warps": 1, "bwd": "b", "lower_bound": null, "candidates": candidates,
            "chosen": {"strategy": "s0", "ns": null}, "fastest": {"strategy": "s0", "ns": null},
            "triton": null
        }))
        .unwrap()
    }

    #[test]
    fn a_plans_forms_are_grouped_by_its_index_or_by_order_in_older_rows() {
        let with = form_row(
            "a",
            &[
                (Some(0), "elements", 1.0, 0.0, 10.0),
                (Some(0), "packed", 1.0, 0.0, 8.0),
                (Some(3), "elements", 2.0, 0.0, 9.0),
                (Some(3), "carried", 2.0, 0.0, 9.0),
                (Some(3), "packed", 2.0, 0.0, 7.0),
            ],
        );
        let sizes: Vec<usize> = plans(&with).iter().map(|p| p.len()).collect();
        assert_eq!(sizes, [2, 3]);
        // the same without indices: a plan starts at its element form
        let without = form_row(
            "b",
            &[
                (None, "elements", 1.0, 0.0, 10.0),
                (None, "packed", 1.0, 0.0, 8.0),
                (None, "elements", 2.0, 0.0, 9.0),
                (None, "carried", 2.0, 0.0, 9.0),
                (None, "packed", 2.0, 0.0, 7.0),
                (None, "", 3.0, 0.0, 9.0),
                (None, "", 3.0, 0.0, 9.0),
            ],
        );
        let sizes: Vec<usize> = plans(&without).iter().map(|p| p.len()).collect();
        assert_eq!(sizes, [2, 3, 1, 1]);
        // a plan is ranked in its packed form, unless bench marked another
        assert_eq!(ranked(&plans(&with)[1]).form, "packed");
        let mut marked = with.clone();
        for k in &mut marked.candidates {
            k.ranked = Some(k.form == "elements");
        }
        assert_eq!(ranked(&plans(&marked)[1]).form, "elements");
        // ... and the choice follows it: plan 0's element form (shfl 1)
        // is now ranked against plan 1's (shfl 2), packed forms aside
        let ps = plans(&marked);
        assert_eq!(choose(&ps, &Weights::default()).unwrap()[0].plan, Some(0));
    }

    #[test]
    fn a_choice_is_judged_in_every_form_against_the_fastest_plan_in_that_form() {
        // plan 0 is ranked first (shfl 1 < 2): its packed form is the fastest
        // packed, its element form half again as slow as the fastest
        // element form
        let r = form_row(
            "c",
            &[
                (Some(0), "elements", 1.0, 0.0, 15.0),
                (Some(0), "packed", 1.0, 0.0, 8.0),
                (Some(1), "elements", 2.0, 0.0, 10.0),
                (Some(1), "packed", 2.0, 0.0, 9.0),
            ],
        );
        let w = Weights::default();
        let reg = regret(std::slice::from_ref(&r), &w);
        assert!((reg - (1.5f64.ln() + 0.0) / 2.0).abs() < 1e-12, "{reg}");
        let s = selection(std::slice::from_ref(&r), |_, _| w);
        assert_eq!((s.conversions, s.within_5pct), (1, 0));
        assert_eq!(s.misses[0].chosen, "s0");
        assert_eq!(s.misses[0].fastest, "s1");
        assert!((s.misses[0].slower_by - 1.5).abs() < 1e-9);
    }

    #[test]
    fn the_near_prior_fit_moves_only_the_weights_the_timings_ask_for() {
        // in every conversion, plan 0 has 3 shuffles and plan 1 10 selects;
        // the prior scores them 7.2 and 12.5 and chooses the shuffles, which
        // measure slower
        let prior = Weights::default();
        let rows: Vec<Row> = (0..6)
            .map(|g| {
                form_row(
                    &format!("c{g}"),
                    &[
                        (Some(0), "elements", 3.0, 0.0, 12.0 + g as f64),
                        (Some(1), "elements", 0.0, 10.0, 10.0 + g as f64),
                    ],
                )
            })
            .collect();
        assert!(regret(&rows, &prior) > 0.0);
        let r = fit_near(&rows, &prior, 0.002).unwrap();
        assert!(r.regret.abs() < 1e-12, "{r:?}");
        assert!(
            r.weights.dot(&rows[0].candidates[0].features)
                > r.weights.dot(&rows[0].candidates[1].features)
        );
        // weights that do not separate these candidates stay the prior's
        assert_eq!(r.weights.smem, prior.smem);
        assert_eq!(r.weights.wavefront, prior.wavefront);
        assert_eq!(r.weights.spill, prior.spill);
        // the latency floors are not fitted: kept as the prior has them
        assert!(prior.floor_smem > 0.0);
        assert_eq!(
            (r.weights.floor_smem, r.weights.floor_shfl),
            (prior.floor_smem, prior.floor_shfl)
        );
        assert_eq!(r.selection_leave_one_out.within_5pct, 6);
        // with a heavy penalty it stays at the prior
        let stay = fit_near(&rows, &prior, 100.0).unwrap();
        assert_eq!(stay.weights, prior);
        let e = fit_near(&rows, &prior, -1.0).unwrap_err().to_string();
        assert!(e.contains("non-negative"), "{e}");
    }
}
