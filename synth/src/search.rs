//! Plan search: enumerate the candidate plans of every applicable strategy
//! (docs/ARCHITECTURE.md 4.5: transposition pairings, in-place vs out-of-place, shuffle vs
//! shared memory, shared layouts and instruction forms), score them with a
//! weighted cost model, prove the best ones on the simulator in parallel
//! (rayon), and keep the cheapest verified one.

use crate::plan::{
    candidates, shared::shared_plans_report, Analysis, Conversion, Cost, Plan, PlanError,
    SharedOptions, StrategyChoice,
};
use crate::sim::{simulate, SimReport};
use rayon::prelude::*;

pub use crate::cost_model::{CostModel, Features, Weights};

/// The outcome of planning one conversion.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Chosen {
    pub analysis: Analysis,
    pub plan: Plan,
    /// Predicted cost per thread: of the packed form for 8- and 16-bit
    /// elements ([`Plan::cost_for_width`]).
    pub cost: Cost,
    pub score: f64,
    /// Candidates enumerated, and how many were proven on the simulator
    /// (the search proves them best score first, a group of equal scores at
    /// a time, and stops at the first group with a proven candidate:
    /// [`Prove::UntilChosen`]).
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
/// width on sm_90. Errors: a cross-CTA conversion with a forced strategy, the forced strategy
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

/// One candidate plan of a conversion, scored under a cost model and proven
/// on the simulator.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Candidate {
    pub plan: Plan,
    /// Predicted cost per thread ([`Plan::cost_for_width`]).
    pub cost: Cost,
    /// Score under the weights it was ranked with (lower is better),
    /// registers predicted over the register cap included
    /// ([`register_cap`], [`Weights::score_in`]), and the latency floor of
    /// its CTA's warps where that is larger ([`Weights::dot`]).
    pub score: f64,
    /// The score's throughput part ([`Weights::throughput`]): ranks
    /// candidates of equal score (those the latency floor levels).
    pub throughput: f64,
    /// Predicted register peak per thread in the form a caller should use
    /// (packed for 8/16-bit data where the plan has one;
    /// [`crate::plan::peak_registers`]).
    pub peak_registers: u32,
    /// Whether that peak is over the cap it was ranked under
    /// ([`register_cap`]): such a candidate ranks after every one within
    /// the cap.
    pub over_registers: bool,
    /// The simulator's report (the plan is proven: every slot of every thread).
    pub sim: SimReport,
}

/// The register cap a conversion's candidates are ranked (and charged
/// `spill`) under: the launch bounds' limit of its warps
/// ([`crate::plan::register_limit`]), or `opt.max_registers` when lower (a
/// larger value cannot raise what the launch bounds allow).
pub fn register_cap(conv: &Conversion, opt: &SharedOptions) -> u32 {
    crate::plan::capped_register_limit(opt.max_registers, 32 * conv.num_warps.max(1))
}

/// What the search considered for one conversion: every shuffle and rename
/// candidate, and the [`SHARED_CANDIDATES_PROVEN`] best-scored shared ones
/// (`shared_limit` overrides that number), each proven on the simulator.
#[derive(Clone, Debug)]
pub struct Considered {
    pub analysis: Analysis,
    /// Candidates enumerated before pruning.
    pub enumerated: usize,
    /// The proven candidates: those within the register cap first, each
    /// group best score first (ties: the lower throughput score, fewer bank
    /// conflicts, fewer stages).
    /// The first is the one [`plan_conversion_with`] chooses.
    pub proven: Vec<Candidate>,
    /// Candidates the simulator rejected (`strategy: reason`): a planner bug.
    pub failures: Vec<String>,
}

/// Most 32-bit registers one thread can address (PTX ISA, "Register
/// state": 255 general registers per thread from sm_50 on).
pub const MAX_THREAD_REGISTERS: u32 = 255;

/// Most elements per thread on either side of a conversion that warpforge
/// plans. Triton 3.6 lowers larger tiles too (spilling); up to here every
/// conversion is planned, and one whose data alone is over the register
/// file is emitted with its predicted spill stated (`over_register_limit`).
pub const MAX_ELEMS_PER_THREAD: u64 = 1024;

/// Refuse, before any planning, a conversion with more than
/// [`MAX_ELEMS_PER_THREAD`] elements per thread on either side (`regs`
/// counts the 32-bit registers that data takes: four 8-bit or two 16-bit
/// elements per register, a 64-bit element two).
pub fn fits_registers(conv: &Conversion, an: &Analysis) -> Result<(), PlanError> {
    let bits = plan_width(conv);
    for (side, elems) in [
        ("source", an.src_regs() as u64),
        ("destination", an.dst_regs() as u64),
    ] {
        if elems > MAX_ELEMS_PER_THREAD {
            return Err(PlanError::TooManyRegisters {
                name: conv.name.clone(),
                side,
                elems,
                bits,
                regs: (elems * bits as u64).div_ceil(32),
                limit: MAX_ELEMS_PER_THREAD as u32,
            });
        }
    }
    Ok(())
}

/// Enumerate, score, prune and prove the candidates of one conversion
/// (docs/ARCHITECTURE.md 4.5). Errors as [`plan_conversion_with`], except that an empty
/// proven list is not an error here.
pub fn consider(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
    opt: &SharedOptions,
    shared_limit: Option<usize>,
) -> Result<Considered, PlanError> {
    consider_proving(conv, choice, w, opt, shared_limit, Prove::All)
}

/// Which of the kept candidates the search proves on the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prove {
    /// Every kept candidate ([`consider`]: `bench` times them all).
    All,
    /// In ranked order, one group of candidates with equal (register cap,
    /// score, throughput) at a time, until a group has a proven member:
    /// what choosing needs, since the ranking's remaining tie-breaks (bank
    /// conflicts from the simulator, store width, stages) only order
    /// candidates within such a group ([`plan_conversion_with`]).
    UntilChosen,
}

/// [`consider`], proving the candidates `prove` names.
pub fn consider_proving(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
    opt: &SharedOptions,
    shared_limit: Option<usize>,
    prove: Prove,
) -> Result<Considered, PlanError> {
    // the weights of this CTA size and data at the width being planned
    // (bound already where the caller bound them: binding again is a no-op)
    let bits = match opt.elem_bits {
        8 | 16 | 32 | 64 => opt.elem_bits,
        _ => plan_width(conv),
    };
    let w = &w.for_conversion_at(conv, bits);
    let an = Analysis::new(conv)?;
    fits_registers(conv, &an)?;
    if let Some(e) = crate::plan::cluster::refusal(&an, choice, opt) {
        return Err(e);
    }
    let mut cands = candidates(&an, choice, opt);
    let packing = crate::plan::pack::pack_maps(&an, opt.elem_bits);
    let set_packing = |plans: &mut Vec<Plan>| {
        if let Some((ps, pd)) = &packing {
            for p in plans {
                p.pack = Some((opt.elem_bits, ps.clone(), pd.clone()));
            }
        }
    };
    set_packing(&mut cands);
    if cands.is_empty() && choice != StrategyChoice::Shuffle && !choice.is_cluster() {
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
            StrategyChoice::ClusterStore | StrategyChoice::ClusterLoad => {
                "the cluster strategies (distributed shared memory) convert only data that moves between the CTAs of a cluster or that each CTA keeps in an order depending on the CTA, and this conversion's CTAs all keep their elements in the same order (equal block bases)".into()
            }
            _ => "no strategy applies".into(),
        };
        return Err(PlanError::StrategyNotApplicable {
            name: conv.name.clone(),
            strategy: choice,
            detail,
        });
    }
    let mut n = cands.len();
    let limit = shared_limit.unwrap_or(SHARED_CANDIDATES_PROVEN);
    // Keep every non-shared candidate and the best-scored shared ones.
    let cap = register_cap(conv, opt);
    // Ranked as the proven list is below (within the register cap first,
    // then by score), so that the shared candidates kept are the best of
    // those within the cap.
    // the packed lowering is walked once per candidate (`width_form`):
    // its cost, form and register peak serve the ranking and the result
    let counts = crate::plan::pack::NetworkCounts::default();
    let round_bytes = crate::plan::shared::one_warp_round_bytes(&an, opt, &cands);
    let score_one = |p: Plan| {
        let form = p.width_form_with(opt.elem_bits, Some(&counts));
        let packed = form.1 && opt.elem_bits < 32;
        let peak = crate::plan::peak_registers(&p, opt.elem_bits, packed).peak;
        let (score, throughput) = w.score_with(&p, form, opt.elem_bits, cap, conv.num_warps);
        Scored {
            rank: Rank {
                over: peak > cap,
                score,
                throughput,
            },
            cost: form.0,
            peak,
            plan: p,
        }
    };
    let mut scored: Vec<Scored> = cands.into_par_iter().map(score_one).collect();
    // One warp: plans of more scratch than the rounds compete only where
    // they score below `ONE_WARP_MORE_SCRATCH` of the best plan in rounds
    // on the same side of the register cap; the others are proven only if
    // no kept candidate passes the simulator.
    let mut dropped: Vec<Scored> = Vec::new();
    if let Some(rb) = round_bytes {
        let bytes = |p: &Plan| p.smem_bytes(opt.elem_bits);
        let shared = |p: &Plan| p.kind == crate::plan::Kind::Shared;
        let best = |over_too: bool| {
            scored
                .iter()
                .filter(|s| shared(&s.plan) && bytes(&s.plan) <= rb && (over_too || !s.rank.over))
                .map(|s| s.rank.score)
                .fold(f64::INFINITY, f64::min)
        };
        let (within, any) = (best(false), best(true));
        // The plans of more scratch, enumerated only where one could score
        // below the threshold: none can go below the lower bound's 16-byte
        // accesses and wavefronts (`plan::lower_bound`), each access at the
        // cheaper of a shared-memory instruction and a `stmatrix`.
        let lb = crate::plan::lower_bound(&an, opt.elem_bits, w);
        let floor =
            w.smem.min(w.stsm) * lb.smem_accesses as f64 + w.wavefront * lb.smem_wavefronts as f64;
        let in_rounds = scored
            .iter()
            .any(|s| shared(&s.plan) && s.plan.rounds.get() > 1);
        // (a plan within the register cap is measured against the best in
        // rounds within it, which scores at least `any`)
        if in_rounds
            && (!within.is_finite() || floor < crate::plan::shared::ONE_WARP_MORE_SCRATCH * within)
        {
            let mut more = crate::plan::shared::one_warp_more_scratch_plans(&an, opt, rb);
            set_packing(&mut more);
            n += more.len();
            scored.extend(more.into_par_iter().map(score_one).collect::<Vec<_>>());
        }
        let (keep, more): (Vec<Scored>, Vec<Scored>) = scored.into_iter().partition(|s| {
            if !shared(&s.plan) || bytes(&s.plan) <= rb {
                return true;
            }
            let b = if s.rank.over { any } else { within };
            !b.is_finite() || s.rank.score < crate::plan::shared::ONE_WARP_MORE_SCRATCH * b
        });
        scored = keep;
        dropped = more;
    }
    scored.sort_by(|a, b| a.rank.order(&b.rank));
    let mut shared_kept = 0;
    scored.retain(|s| {
        if s.plan.kind != crate::plan::Kind::Shared {
            return true;
        }
        shared_kept += 1;
        shared_kept <= limit
    });
    let prove_one = |s: Scored| {
        // the element plan and its packed form (8/16-bit words, byte by
        // byte), side by side; the element plan's error first
        let (element, packed) = rayon::join(
            || simulate(&s.plan, &an),
            || crate::sim::simulate_packed_form(&s.plan, &an, opt.elem_bits),
        );
        let outcome = element
            .and_then(|rep| packed.map(|_| rep))
            .map_err(|e| e.to_string());
        Proof { scored: s, outcome }
    };
    let results: Vec<Proof> = match prove {
        Prove::All => scored.into_par_iter().map(prove_one).collect(),
        Prove::UntilChosen => {
            let mut done = Vec::new();
            let mut rest = scored.into_iter().peekable();
            while let Some(first) = rest.next() {
                let key = first.rank;
                let mut group = vec![first];
                while let Some(s) = rest.next_if(|s| s.rank == key) {
                    group.push(s);
                }
                // Where the simulator's tie-breakers (bank conflicts, then
                // the candidate's own store width and stage count, below)
                // are known before proving, the group is proven in that
                // order, two at a time, up to the first that passes: the one
                // the sort below would choose among the group's proven.
                let keys: Option<Vec<TieKey>> = group
                    .iter()
                    .map(|s| {
                        crate::sim::predicted_bank_conflicts(&s.plan, &an)
                            .map(|bc| tie_key(&s.plan, bc, opt.elem_bits))
                    })
                    .collect();
                let any = match keys {
                    Some(keys) if group.len() > 2 => {
                        let mut order: Vec<(usize, Scored)> =
                            group.into_iter().enumerate().collect();
                        order.sort_by_key(|(i, _)| (keys[*i], *i));
                        let mut it = order.into_iter().map(|(_, s)| s).peekable();
                        let mut found = false;
                        while it.peek().is_some() && !found {
                            let pair: Vec<Scored> = it.by_ref().take(2).collect();
                            let proved: Vec<_> = pair.into_par_iter().map(prove_one).collect();
                            found = proved.iter().any(|p| p.outcome.is_ok());
                            done.extend(proved);
                        }
                        found
                    }
                    _ => {
                        let proved: Vec<_> = group.into_par_iter().map(prove_one).collect();
                        let any = proved.iter().any(|p| p.outcome.is_ok());
                        done.extend(proved);
                        any
                    }
                };
                if any {
                    break;
                }
            }
            done
        }
    };
    let results = if !dropped.is_empty() && !results.iter().any(|p| p.outcome.is_ok()) {
        let mut all = results;
        all.extend(dropped.into_par_iter().map(prove_one).collect::<Vec<_>>());
        all
    } else {
        results
    };
    let mut failures = Vec::new();
    let mut proven = Vec::new();
    for Proof { scored: s, outcome } in results {
        match outcome {
            Ok(sim) => proven.push(Candidate {
                throughput: s.rank.throughput,
                cost: s.cost,
                peak_registers: s.peak,
                over_registers: s.rank.over,
                plan: s.plan,
                score: s.rank.score,
                sim,
            }),
            Err(e) => failures.push(format!("{}: {e}", s.plan.strategy)),
        }
    }
    // Within the register cap first (Triton's lowering has no such choice:
    // it spills), then by score; among ties, 16-bit element forms that build
    // their stored words by prmt take the narrower stores
    // (`element_form_store_bytes`: measured, not in the cost model).
    let tie = |c: &Candidate| tie_key(&c.plan, c.sim.bank_conflicts, opt.elem_bits);
    proven.sort_by(|a, b| {
        a.over_registers
            .cmp(&b.over_registers)
            .then(a.score.total_cmp(&b.score))
            .then(a.throughput.total_cmp(&b.throughput))
            .then(tie(a).cmp(&tie(b)))
    });
    Ok(Considered {
        analysis: an,
        enumerated: n,
        proven,
        failures,
    })
}

/// How the search breaks a tie of (register cap, score, throughput) between
/// proven candidates: fewer bank conflicts (the simulator's count, or
/// [`crate::sim::predicted_bank_conflicts`] before proving), then the
/// narrower element-form stores ([`crate::plan::budget::element_form_store_bytes`]
/// for `bits`-bit elements), then fewer stages.
fn tie_key(plan: &Plan, bank_conflicts: u64, bits: u32) -> TieKey {
    TieKey {
        bank_conflicts,
        store_bytes: crate::plan::budget::element_form_store_bytes(plan, bits),
        stages: plan.stages.len(),
    }
}

/// A tie-break key of [`tie_key`]; fields compare in order (the derived
/// `Ord`), each lower first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct TieKey {
    /// Bank conflicts: the simulator's count, or the prediction before
    /// proving ([`crate::sim::predicted_bank_conflicts`]).
    bank_conflicts: u64,
    /// Bytes per element-form store instruction
    /// ([`crate::plan::budget::element_form_store_bytes`]).
    store_bytes: u32,
    /// Stages of the plan.
    stages: usize,
}

/// Where an enumerated candidate ranks before proving: candidates within
/// the register cap first, then by score, then by throughput score
/// ([`Rank::order`]). Candidates with equal ranks (`==`, as `f64`s) form
/// one group of [`Prove::UntilChosen`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rank {
    /// Whether the candidate's register peak is over the cap it is ranked
    /// under ([`register_cap`]).
    over: bool,
    /// Its score under the search's weights, lower is better
    /// ([`Weights::score_with`]: spill and latency floor included).
    score: f64,
    /// The score's throughput part ([`Weights::throughput`]).
    throughput: f64,
}

impl Rank {
    /// The ranking order: `over` (false first), then `score`, then
    /// `throughput` (each by `f64::total_cmp`, lower first).
    fn order(&self, other: &Rank) -> std::cmp::Ordering {
        self.over
            .cmp(&other.over)
            .then(self.score.total_cmp(&other.score))
            .then(self.throughput.total_cmp(&other.throughput))
    }
}

/// One enumerated candidate as the search ranks it: its [`Rank`], and its
/// cost and register peak in the form a caller should use
/// ([`Plan::width_form`], computed once).
struct Scored {
    /// Where it ranks before proving.
    rank: Rank,
    /// Predicted cost per thread ([`Plan::cost_for_width`]).
    cost: Cost,
    /// Predicted register peak per thread in that form
    /// ([`crate::plan::peak_registers`]).
    peak: u32,
    /// The candidate plan.
    plan: Plan,
}

/// A candidate after the simulator: what it was ranked as, and the
/// simulator's verdict.
struct Proof {
    /// The candidate as ranked.
    scored: Scored,
    /// The simulator's report on the element plan when both it and the
    /// plan's packed form ([`crate::sim::simulate_packed_form`]) pass; else
    /// the first error (the element plan's first), as text.
    outcome: Result<SimReport, String>,
}

/// [`plan_conversion`] for an explicit element width and target.
pub fn plan_conversion_with(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
    opt: &SharedOptions,
) -> Result<Chosen, PlanError> {
    let c = consider_proving(conv, choice, w, opt, None, Prove::UntilChosen)?;
    let verified = c.proven.len();
    let Some(best) = c.proven.into_iter().next() else {
        return Err(PlanError::NoVerifiedPlan {
            name: conv.name.clone(),
            detail: c.failures.join("; "),
        });
    };
    Ok(Chosen {
        analysis: c.analysis,
        plan: best.plan,
        cost: best.cost,
        score: best.score,
        candidates: c.enumerated,
        verified_candidates: verified,
        sim: best.sim,
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
    let opt = SharedOptions {
        elem_bits: plan_width(conv),
        ..*base
    };
    let first = plan_conversion_with(conv, choice, w, &opt)?;
    Ok(plan_all_widths_from(conv, choice, w, base, first))
}

/// [`plan_all_widths`] with the conversion's own width already planned
/// (`first`, the plan of [`plan_width`] bits: the cost model's choice, or
/// one chosen by measurement): every width gets `first` where it works for
/// any width, else each other width is planned on its own.
pub fn plan_all_widths_from(
    conv: &Conversion,
    choice: StrategyChoice,
    w: &Weights,
    base: &SharedOptions,
    first: Chosen,
) -> Vec<(u32, Chosen)> {
    let own = plan_width(conv);
    if first.plan.elem_bits == 0 {
        return WIDTHS.iter().map(|&b| (b, first.clone())).collect();
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
    all
}
