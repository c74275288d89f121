//! Plan search: enumerate the candidate plans of every applicable strategy
//! (DESIGN.md 4.5: transposition pairings, in-place vs out-of-place, shuffle vs
//! shared memory), prove each on the simulator in parallel (rayon), and keep
//! the cheapest verified one under a weighted cost model.

use crate::plan::{candidates, Analysis, Conversion, Cost, Plan, PlanError, StrategyChoice};
use crate::sim::{simulate, SimReport};
use rayon::prelude::*;

/// Weights per instruction class, in rough issue-slot-plus-latency units.
/// Provisional: selects and byte permutes 1, shuffles 2, shared-memory
/// accesses 8, barriers 16. Until the GPU harness calibrates them (a later
/// issue), they encode "prefer registers and shuffles over shared memory".
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Weights {
    pub shfl: f64,
    pub sel: f64,
    pub prmt: f64,
    pub smem: f64,
    pub bar: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            shfl: 2.0,
            sel: 1.0,
            prmt: 1.0,
            smem: 8.0,
            bar: 16.0,
        }
    }
}

impl Weights {
    /// Weighted score of a cost (lower is better).
    pub fn score(&self, c: &Cost) -> f64 {
        self.shfl * c.shfl as f64
            + self.sel * c.sel as f64
            + self.prmt * c.prmt as f64
            + self.smem * (c.sts + c.lds + c.ldsm + c.stsm) as f64
            + self.bar * c.bar as f64
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

/// Analyse, enumerate, verify and choose. Errors: the conversion crosses
/// CTAs, the forced strategy does not apply, or (a bug) nothing verifies.
pub fn plan_conversion(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
) -> Result<Chosen, PlanError> {
    let an = Analysis::new(conv)?;
    let cands = candidates(&an, choice);
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
    let results: Vec<(Plan, Result<SimReport, String>)> = cands
        .into_par_iter()
        .map(|p| {
            let r = simulate(&p, &an).map_err(|e| e.to_string());
            (p, r)
        })
        .collect();
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(p, r)| r.as_ref().err().map(|e| format!("{}: {e}", p.strategy)))
        .collect();
    let best = results
        .into_iter()
        .filter_map(|(p, r)| r.ok().map(|s| (p, s)))
        .map(|(p, s)| {
            let c = p.cost();
            (w.score(&c), p.stages.len(), p, s, c)
        })
        .collect::<Vec<_>>();
    let verified = best.len();
    let Some((score, _, plan, sim, cost)) = best
        .into_iter()
        .min_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1)))
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
