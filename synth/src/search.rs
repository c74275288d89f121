//! Plan search: enumerate the candidate plans of every applicable strategy
//! (DESIGN.md 4.5: transposition pairings, in-place vs out-of-place, shuffle vs
//! shared memory, shared layouts and instruction forms), score them with a
//! weighted cost model, prove the best ones on the simulator in parallel
//! (rayon), and keep the cheapest verified one.

use crate::plan::{
    candidates, shared::shared_plans_report, Analysis, BarrierScope, Conversion, Cost, Plan,
    PlanError, SharedOptions, Stage, StrategyChoice,
};
use crate::sim::{simulate, SimReport};
use rayon::prelude::*;

/// Weights per instruction class, in rough issue-slot units. Provisional,
/// not fitted (issue 7 fits them to GPU timings): selects and byte permutes
/// 1; shuffles 3 (an issue slot plus a pass through the shared-memory pipe);
/// shared-memory instructions 1 plus 3 per wavefront, so 128-bit accesses
/// and bank conflicts are priced by the bytes the pipe moves;
/// `__syncthreads()` 8, `__syncwarp()` 2. Checked against the `h2h` harness
/// on an H200 (results/vs_triton_shared.md): with 2 per wavefront the
/// planner sent `shuffle_swap` (1.76x) and `cvt16_m1` (1.71x) to shared
/// memory where the shuffle plans match Triton; 3 keeps them on shuffles and
/// keeps `cvt16_m2` (0.92x of Triton) on shared memory. `stmatrix` costs 2
/// where `st.shared` costs 1: with equal weights the planner paired
/// `stmatrix.trans` with `ld.shared.v4` where `st.shared.v4` +
/// `ldmatrix.trans` moves the same bytes, and on an H200 the latter measured
/// faster on all four conversions where the choice differed (one-warp 32x32
/// f16 transpose 1.35x -> 1.09x of Triton; `scripts/h2h_arith.py`).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Weights {
    pub shfl: f64,
    pub sel: f64,
    pub prmt: f64,
    /// Per shared-memory instruction (`STS`, `LDS`, `LDSM`).
    pub smem: f64,
    /// Per `stmatrix` (`STSM`).
    pub stsm: f64,
    /// Per shared-memory wavefront of one warp.
    pub wavefront: f64,
    /// Per `__syncthreads()`.
    pub bar: f64,
    /// Per `__syncwarp()`.
    pub bar_warp: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            shfl: 3.0,
            sel: 1.0,
            prmt: 1.0,
            smem: 1.0,
            stsm: 2.0,
            wavefront: 3.0,
            bar: 8.0,
            bar_warp: 2.0,
        }
    }
}

impl Weights {
    /// Weighted score of a plan (lower is better).
    pub fn score(&self, p: &Plan) -> f64 {
        let c = p.cost();
        let mut s = self.shfl * c.shfl as f64
            + self.sel * c.sel as f64
            + self.prmt * c.prmt as f64
            + self.smem * (c.sts + c.lds + c.ldsm) as f64
            + self.stsm * c.stsm as f64
            + self.wavefront * p.wavefronts_per_warp().0 as f64;
        for st in &p.stages {
            if let Stage::Barrier { scope } = st {
                s += match scope {
                    BarrierScope::Cta => self.bar,
                    BarrierScope::Warp => self.bar_warp,
                };
            }
        }
        s
    }
}

/// The outcome of planning one conversion.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Chosen {
    pub analysis: Analysis,
    pub plan: Plan,
    pub cost: Cost,
    pub score: f64,
    /// Candidates considered and how many passed the simulator.
    pub candidates: usize,
    pub verified_candidates: usize,
    /// The simulator's report on the chosen plan.
    pub sim: SimReport,
}

/// Shared-memory candidates proven per conversion, best scores first (the
/// rest are dominated; shuffle candidates are all proven).
pub const SHARED_CANDIDATES_PROVEN: usize = 8;

/// The element width a conversion's plans are made for: its element type's
/// bits (`i1` is stored as 8 bits).
pub fn plan_width(conv: &Conversion) -> u32 {
    conv.elem.bits.clamp(8, 64).next_power_of_two()
}

/// Analyse, enumerate, verify and choose for the conversion's own element
/// width on sm_90. Errors: the conversion crosses CTAs, the forced strategy
/// does not apply, or (a bug) nothing verifies.
pub fn plan_conversion(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
) -> Result<Chosen, PlanError> {
    let opt = SharedOptions {
        elem_bits: plan_width(conv),
        ..SharedOptions::default()
    };
    plan_conversion_with(conv, choice, w, &opt)
}

/// [`plan_conversion`] for an explicit element width and target.
pub fn plan_conversion_with(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
    opt: &SharedOptions,
) -> Result<Chosen, PlanError> {
    let an = Analysis::new(conv)?;
    let mut cands = candidates(&an, choice, opt);
    if cands.is_empty() && choice != StrategyChoice::Shuffle {
        if let (Some(max), (_, Some(need))) = (opt.max_smem, shared_plans_report(&an, opt)) {
            return Err(PlanError::SmemTooLarge {
                name: conv.name.clone(),
                need,
                max,
            });
        }
    }
    if cands.is_empty() {
        let detail = match choice {
            StrategyChoice::Shuffle => format!(
                "the conversion is {} and its bases are not the unit-vector kind the shuffle decomposition handles",
                if an.warp_local { "warp-local" } else { "across warps" }
            ),
            _ => "no strategy applies".into(),
        };
        return Err(PlanError::StrategyNotApplicable {
            name: conv.name.clone(),
            strategy: format!("{choice:?}").to_lowercase(),
            detail,
        });
    }
    let n = cands.len();
    // Keep every non-shared candidate and the best-scored shared ones.
    let mut scored: Vec<(f64, Plan)> = cands.drain(..).map(|p| (w.score(&p), p)).collect();
    scored.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap());
    let mut shared_kept = 0;
    scored.retain(|(_, p)| {
        if p.kind != crate::plan::Kind::Shared {
            return true;
        }
        shared_kept += 1;
        shared_kept <= SHARED_CANDIDATES_PROVEN
    });
    let results: Vec<(f64, Plan, Result<SimReport, String>)> = scored
        .into_par_iter()
        .map(|(s, p)| {
            let r = simulate(&p, &an).map_err(|e| e.to_string());
            (s, p, r)
        })
        .collect();
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(_, p, r)| r.as_ref().err().map(|e| format!("{}: {e}", p.strategy)))
        .collect();
    let best = results
        .into_iter()
        .filter_map(|(s, p, r)| r.ok().map(|r| (s, p, r)))
        .map(|(s, p, r)| {
            let c = p.cost();
            ((r.bank_conflicts, p.stages.len()), p, r, c, s)
        })
        .collect::<Vec<_>>();
    let verified = best.len();
    let Some((_, plan, sim, cost, score)) = best
        .into_iter()
        .min_by(|a, b| a.4.partial_cmp(&b.4).unwrap().then(a.0.cmp(&b.0)))
    else {
        return Err(PlanError::NoVerifiedPlan {
            name: conv.name.clone(),
            detail: failures.join("; "),
        });
    };
    Ok(Chosen {
        analysis: an,
        plan,
        cost,
        score,
        candidates: n,
        verified_candidates: verified,
        sim,
    })
}

/// Element widths an emitted helper dispatches on (`sizeof(T)` 1, 2, 4, 8).
pub const WIDTHS: [u32; 4] = [8, 16, 32, 64];

/// Plans for every element width of [`WIDTHS`], for a helper templated on
/// its element type. The conversion's own width decides the helper's
/// signature: when its plan works for any width (renames, shuffles), every
/// width gets that plan, so the helper takes no scratch and callers insert no
/// barrier for it. Other widths that cannot be planned (say, 64-bit elements
/// over a `--max-smem` cap the own width meets) are left out: the helper
/// rejects them at compile time. Errors as [`plan_conversion_with`] for the
/// conversion's own width.
pub fn plan_all_widths(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
    base: &SharedOptions,
) -> Result<Vec<(u32, Chosen)>, PlanError> {
    let own = plan_width(conv);
    let opt = SharedOptions {
        elem_bits: own,
        ..*base
    };
    let first = plan_conversion_with(conv, choice, w, &opt)?;
    if first.plan.elem_bits == 0 {
        return Ok(WIDTHS.iter().map(|&b| (b, first.clone())).collect());
    }
    let others: Vec<(u32, Chosen)> = WIDTHS
        .par_iter()
        .filter(|&&bits| bits != own)
        .filter_map(|&bits| {
            let opt = SharedOptions {
                elem_bits: bits,
                ..*base
            };
            plan_conversion_with(conv, choice, w, &opt)
                .ok()
                .map(|c| (bits, c))
        })
        .collect();
    let mut all = vec![(own, first)];
    all.extend(others);
    all.sort_by_key(|x| x.0);
    Ok(all)
}
