//! What `warpforge bench` times: for each conversion that moves data, every
//! candidate plan the search proves for the forward direction (renames and
//! shuffles all, the best-scored shared-memory ones up to a limit), each
//! paired with a plan of the reverse conversion ([`Pairing`]: the chosen
//! one, or the best of the candidate's own family), as one timing kernel
//! per candidate (`kernels::emit_bench_kernel`).

use anyhow::{anyhow, Result};
use kernels::{
    emit_bench_kernel, emit_bench_kernel_packed, emit_header, emit_helper, EmittedHelper,
    LimitKernel, LimitMove,
};
use synth::cost_model::{Features, Weights};
use synth::plan::{
    lower_bound, Conversion, Cost, Kind, LowerBound, SharedOptions, Strategy, StrategyChoice,
};
use synth::search::{consider, plan_conversion_with, plan_width, register_cap, Candidate, Chosen};

/// Which plan of the reverse conversion a forward candidate's round trip
/// returns through.
///
/// A round trip of a shuffle plan one way and a shared-memory plan back
/// overlaps the two on different pipes (ALU and shuffle against the
/// shared-memory pipe) and runs faster than either family both ways
/// (measured: see results/runs/2026-11-24-h100-random-sweeps-776774d/), so under
/// [`Pairing::Chosen`] a candidate of the family the chosen reverse plan is
/// not of looks faster than it would be in a kernel. [`Pairing::SameFamily`]
/// times each shuffle candidate with the reverse's best shuffle plan and
/// each shared-memory candidate with its best shared-memory plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Pairing {
    /// The plan the search chooses for the reverse conversion, for every
    /// candidate (how every result from before `--pair` was timed).
    #[default]
    Chosen,
    /// The reverse conversion's best plan of the candidate's family
    /// (shuffle or shared memory); other candidates (renames, cluster
    /// plans) and families the reverse has no plan of keep the chosen one.
    SameFamily,
}

impl Pairing {
    /// `chosen` or `same-family`, as `warpforge bench --pair` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Pairing::Chosen => "chosen",
            Pairing::SameFamily => "same-family",
        }
    }
}

/// How candidates are enumerated.
#[derive(Clone, Debug)]
pub struct CaseOptions {
    /// Weights that rank candidates (and prune shared-memory ones).
    pub weights: Weights,
    /// Target and scratch limit; `elem_bits` is replaced by each
    /// conversion's own width.
    pub shared: SharedOptions,
    /// Shared-memory candidates timed per conversion (best scores first).
    pub shared_limit: usize,
    /// Which reverse plan each candidate's round trip returns through.
    pub pair: Pairing,
}

/// One candidate plan of a conversion, emitted.
#[derive(Clone, Debug)]
pub struct CandidateCase {
    pub strategy: Strategy,
    pub kind: Kind,
    pub cost: Cost,
    pub features: Features,
    pub score: f64,
    /// Shared-memory wavefronts per warp (the plan's, and the minimum).
    pub wavefronts: (u64, u64),
    pub bank_conflicts: u64,
    /// Predicted register peak per thread of this form
    /// ([`synth::plan::peak_registers`]).
    pub peak_registers: u32,
    /// Whether the search chooses this one under [`CaseOptions::weights`].
    pub chosen: bool,
    pub helper: EmittedHelper,
    /// The reverse helper its round trip returns through, and that
    /// helper's strategy ([`Pairing`]).
    pub bwd: EmittedHelper,
    pub bwd_strategy: Strategy,
    /// Timing kernel name.
    pub kernel: String,
    /// `packed` when the timing kernel calls the helpers' packed form (8-
    /// and 16-bit elements, 32-bit words in registers, as Triton holds
    /// them), `carried` when it calls their element forms told that the loop
    /// carries the source tile (`warpforge::words::src` forward, `::dst`
    /// back: that tile held as 32-bit words, the per-element one element by
    /// element), `vector` when it calls their vector forms (`_x2`/`_x4` on
    /// `__half2` (16-bit, where NVRTC finds cuda_fp16.h) or `unsigned` arrays in
    /// register order; the chosen plan only),
    /// else `elements`.
    pub form: &'static str,
    /// Index of the candidate plan among the search's proven candidates:
    /// the forms of one plan share it.
    pub plan: usize,
    /// Whether the search ranks the plan in this form (the packed form
    /// where [`synth::plan::Plan::packed_form`] holds and it was timed,
    /// else the element form).
    pub ranked: bool,
    /// The plan's fingerprint ([`pipeline::measured::plan_fingerprint`]):
    /// what `--measured` matches a timed candidate by.
    pub fingerprint: String,
}

/// One conversion with its candidates and the chosen backward helper.
#[derive(Clone, Debug)]
pub struct BenchCase {
    /// Short id, unique within a run (`c0`, `c1`, ...).
    pub id: String,
    /// The file the conversion came from (`command line` for a pair).
    pub file: String,
    pub name: String,
    pub conv: Conversion,
    /// The conversion's key ([`pipeline::measured::conversion_key`] of its
    /// own width and the target): what `--measured` matches rows by.
    pub key: String,
    /// Element width timed (the conversion's own), and the CUDA type.
    pub bits: u32,
    pub ctype: &'static str,
    /// The reverse conversion's chosen helper and strategy (each
    /// candidate's own in [`CandidateCase::bwd`]).
    pub bwd: EmittedHelper,
    pub bwd_strategy: Strategy,
    /// How the candidates were paired with reverse plans.
    pub pair: Pairing,
    pub candidates: Vec<CandidateCase>,
    pub lower_bound: LowerBound,
    /// Source tag of register `i` of cluster thread `t` (CTA rank `t /
    /// threads`), `[t][i]`: `threads * ctas` rows.
    pub src_tags: Vec<Vec<u64>>,
    /// CTAs per cluster the kernels launch with (1: no cluster; a cluster
    /// plan's layout CTAs otherwise).
    pub ctas: u32,
    /// CTAs the source layout spans ([`synth::plan::Conversion::ctas`]), as
    /// the planner counts them to pick its weights
    /// ([`synth::cost_model::Weights::for_conversion`]):
    /// 2 for a two-CTA layout whose CTAs each convert their own data, where
    /// [`BenchCase::ctas`] is 1.
    pub layout_ctas: u32,
    /// The global-memory baseline's timing kernel (cluster cases only,
    /// `kernels::emit_bench_kernel_global`).
    pub global_kernel: Option<String>,
    /// The limit kernels of the round trip ([`kernels::limit`]): each
    /// combination of a forward and a backward [`kernels::LimitMove`] the
    /// two directions' lower bounds allow; the fastest is the conversion's
    /// measured limit (a cluster conversion's launched in its clusters).
    pub limits: Vec<LimitKernel>,
    /// The CUDA module: header plus one timing kernel per candidate.
    pub source: String,
    /// The helpers of the header, in its order.
    pub helpers: Vec<EmittedHelper>,
    /// What `source` starts with before the header (`#include
    /// <cuda_fp16.h>` where the vector forms hold `__half2`), and the
    /// header's origin line: a module of some kernels is this, the header
    /// of their helpers alone, and the kernels ([`crate::gpu::compile_all`]).
    pub includes: String,
    pub origin: String,
    /// Each timing kernel (candidates, the global baseline, the limit
    /// kernels), in order.
    pub spans: Vec<KernelSpan>,
    /// The register cap its kernels are ranked and compiled under
    /// (`__maxnreg__`: [`SharedOptions::max_registers`], at most the launch
    /// bounds' limit, [`register_cap`]); `None`: the launch bounds'.
    pub max_registers: Option<u32>,
}

/// One timing kernel of a case's source.
#[derive(Clone, Debug)]
pub struct KernelSpan {
    /// The kernel's name.
    pub name: String,
    /// Its text's byte range in [`BenchCase::source`].
    pub range: std::ops::Range<usize>,
    /// The helpers it calls (indices into [`BenchCase::helpers`]).
    pub helpers: Vec<usize>,
}

/// A conversion not timed, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Skipped {
    pub file: String,
    pub name: String,
    pub reason: String,
}

/// CUDA integer type of a width: the harness moves elements as their bits.
pub fn ctype_of(bits: u32) -> &'static str {
    match bits {
        8 => "signed char",
        16 => "short",
        32 => "int",
        _ => "long long",
    }
}

fn renamed(c: &Conversion, name: &str) -> Conversion {
    Conversion {
        name: name.into(),
        ..c.clone()
    }
}

fn reverse(c: &Conversion, name: &str) -> Result<Conversion> {
    Conversion::new(
        name,
        c.dst.clone(),
        c.src.clone(),
        &c.shape,
        c.elem.clone(),
        c.num_warps,
        &c.dst_text,
        &c.src_text,
    )
    .map_err(|e| anyhow!("{e}"))
}

fn chosen_of(an: &synth::plan::Analysis, c: &Candidate) -> Chosen {
    Chosen {
        analysis: an.clone(),
        plan: c.plan.clone(),
        cost: c.cost,
        score: c.score,
        candidates: 1,
        verified_candidates: 1,
        sim: c.sim.clone(),
    }
}

/// Build the cases of `(file, conversion)` pairs. Conversions that move
/// nothing (renames) and conversions that cannot be planned are returned as
/// skipped, with the reason.
pub fn build_cases(
    convs: &[(String, Conversion)],
    opt: &CaseOptions,
) -> Result<(Vec<BenchCase>, Vec<Skipped>)> {
    let mut cases = Vec::new();
    let mut skipped = Vec::new();
    for (file, c) in convs {
        let skip = |reason: String| Skipped {
            file: file.clone(),
            name: c.name.clone(),
            reason,
        };
        let id = format!("c{}", cases.len());
        let bits = plan_width(c);
        let sopt = SharedOptions {
            elem_bits: bits,
            ..opt.shared
        };
        // the weights that rank this conversion's plans (its CTA's warps)
        let weights = opt.weights.for_conversion(c);
        let fwd = renamed(c, &format!("{id}_fwd"));
        let considered = match consider(
            &fwd,
            StrategyChoice::Auto,
            &weights,
            &sopt,
            Some(opt.shared_limit),
        ) {
            Ok(x) => x,
            Err(e) => {
                skipped.push(skip(e.to_string()));
                continue;
            }
        };
        let an = &considered.analysis;
        if considered.proven.iter().all(|p| p.cost.total() == 0) {
            skipped.push(skip("moves nothing (a register rename)".into()));
            continue;
        }
        if considered.proven.is_empty() {
            skipped.push(skip(format!(
                "no candidate proven: {}",
                considered.failures.join("; ")
            )));
            continue;
        }
        let rev = reverse(c, &format!("{id}_bwd"))?;
        let bwd_plan = match plan_conversion_with(&rev, StrategyChoice::Auto, &weights, &sopt) {
            Ok(x) => x,
            Err(e) => {
                skipped.push(skip(format!("reverse conversion: {e}")));
                continue;
            }
        };
        let bwd = emit_helper(&rev, &bwd_plan)?;
        // under Pairing::SameFamily, the reverse's best plan of each family
        // a candidate is of (planned once per family; a family the reverse
        // has no plan of pairs with the chosen one)
        let mut by_family: Vec<(Kind, EmittedHelper, Strategy)> =
            vec![(bwd_plan.plan.kind, bwd.clone(), bwd_plan.plan.strategy)];
        let mut reverse_of = |kind: Kind| -> Result<(EmittedHelper, Strategy)> {
            let family = match (opt.pair, kind) {
                (Pairing::SameFamily, Kind::Shuffle) => Some(StrategyChoice::Shuffle),
                (Pairing::SameFamily, Kind::Shared) => Some(StrategyChoice::Shared),
                _ => None,
            };
            if let Some((_, h, st)) = by_family.iter().find(|(k, _, _)| *k == kind) {
                return Ok((h.clone(), *st));
            }
            let Some(family) = family else {
                return Ok((bwd.clone(), bwd_plan.plan.strategy));
            };
            let tag = if kind == Kind::Shuffle {
                "shfl"
            } else {
                "smem"
            };
            let rev_f = reverse(c, &format!("{id}_bwd_{tag}"))?;
            let got = match plan_conversion_with(&rev_f, family, &weights, &sopt) {
                Ok(p) if p.plan.kind == kind => (emit_helper(&rev_f, &p)?, p.plan.strategy),
                _ => (bwd.clone(), bwd_plan.plan.strategy),
            };
            by_family.push((kind, got.0.clone(), got.1));
            Ok(got)
        };
        // the cap the kernels are compiled under: --max-registers, never
        // above the launch bounds' limit
        let maxnreg = opt.shared.max_registers.map(|_| register_cap(c, &sopt));
        let ctype = ctype_of(bits);
        let mut seen: Vec<Vec<String>> = Vec::new();
        let mut cands = Vec::new();
        for (k, cand) in considered.proven.iter().enumerate() {
            // identical code under another strategy name is timed once
            let body = kernels::body("x", &cand.plan)?;
            if seen.contains(&body) {
                continue;
            }
            seen.push(body);
            let fingerprint = pipeline::measured::plan_fingerprint(&cand.plan)?;
            let conv_k = renamed(c, &format!("{id}_k{k}"));
            let helper = emit_helper(&conv_k, &chosen_of(an, cand))?;
            let (bwd, bwd_strategy) = reverse_of(cand.plan.kind)?;
            // 8/16-bit data: the element form and the packed form, each timed
            // (the packed round trip needs the reverse helper packed too; a
            // reverse plan without a packed form, such as one whose stores
            // choose registers by lane, leaves only the element form to time)
            let packed_cost = synth::plan::pack::packed_cost(&cand.plan, bits)
                .filter(|_| helper.packed_form(bits).is_some() && bwd.packed_form(bits).is_some());
            let recommend_packed = cand.plan.packed_form(bits) && packed_cost.is_some();
            let mut forms = vec![("elements", cand.plan.cost())];
            // the element form told which array the loop carries (its source
            // `a`, held as words: warpforge::words::src forward, ::dst back)
            if bits < 32 && (helper.takes_words(bits) || bwd.takes_words(bits)) {
                forms.push(("carried", cand.plan.cost()));
            }
            forms.extend(packed_cost.map(|c| ("packed", c)));
            // the chosen plan's vector forms (`_x2`/`_x4` on 4-byte vectors
            // in register order): the packed form and its reordering prmt
            if k == 0 {
                forms.extend(packed_cost.map(|c| ("vector", c)));
            }
            let ranked_form = if recommend_packed {
                "packed"
            } else {
                "elements"
            };
            for (form, cost) in forms {
                let packed = form == "packed" || form == "vector";
                // the element form of 8/16-bit data may hold words
                // (synth::plan::element_form_holds_words)
                let rp = if packed {
                    synth::plan::peak_registers(&cand.plan, bits, true)
                } else {
                    synth::plan::element_form_peak(&cand.plan, bits, 32 * c.num_warps)
                };
                let peak = rp.peak;
                // the width form's counts (a 64-bit shuffle and a shuffle
                // plan's select of one count as two), as the search ranks
                let features = if packed || bits == 64 {
                    Features::for_width(&cand.plan, bits)
                } else {
                    Features::of(&cand.plan)
                }
                .with_spill_of(cand.plan.kind, rp, register_cap(c, &sopt))
                .with_latency(&cand.plan, c.num_warps);
                cands.push(CandidateCase {
                    strategy: cand.plan.strategy,
                    kind: cand.plan.kind,
                    cost,
                    score: weights.dot(&features),
                    features,
                    wavefronts: cand.plan.wavefronts_per_warp(),
                    bank_conflicts: cand.sim.bank_conflicts,
                    peak_registers: peak,
                    chosen: k == 0 && form == ranked_form,
                    kernel: format!(
                        "wf_bench_{id}_k{k}{}",
                        match form {
                            "packed" => "p",
                            "carried" => "c",
                            "vector" => "v",
                            _ => "",
                        }
                    ),
                    helper: helper.clone(),
                    bwd: bwd.clone(),
                    bwd_strategy,
                    form,
                    plan: k,
                    ranked: form == ranked_form,
                    fingerprint: fingerprint.clone(),
                });
            }
        }
        let helpers: Vec<EmittedHelper> = cands
            .iter()
            .flat_map(|x| [x.helper.clone(), x.bwd.clone()])
            .chain([bwd.clone()])
            .collect();
        let mut helpers_seen = std::collections::BTreeSet::new();
        let helpers: Vec<EmittedHelper> = helpers
            .into_iter()
            .filter(|h| helpers_seen.insert(h.ident.clone()))
            .collect();
        // the vector forms' 16-bit kernels hold `__half2` (cuda_fp16.h) where
        // NVRTC finds it, else natural words (the same SASS: NVVM keeps both
        // as one 32-bit register, where it splits `ushort2` into halves)
        let half2 = bits == 16 && !verify::cuda_include_dirs().is_empty();
        let includes = if half2 {
            "#include <cuda_fp16.h>\n".to_string()
        } else {
            String::new()
        };
        let origin = format!("warpforge bench: {file}");
        let mut source = includes.clone();
        source.push_str(&emit_header(&helpers, &origin)?);
        // each timing kernel's name, byte range in `source` and helpers
        let mut spans: Vec<KernelSpan> = Vec::new();
        let mut push_kernel =
            |source: &mut String, name: &str, text: &str, calls: &[&EmittedHelper]| {
                let start = source.len();
                source.push_str(text);
                let calls = calls
                    .iter()
                    .filter_map(|h| helpers.iter().position(|x| x.ident == h.ident))
                    .collect();
                spans.push(KernelSpan {
                    name: name.to_string(),
                    range: start..source.len(),
                    helpers: calls,
                });
            };
        for x in &cands {
            if x.form == "packed" {
                let k = emit_bench_kernel_packed(
                    &x.helper, &x.bwd, bits, ctype, &x.kernel, maxnreg,
                )?
                .ok_or_else(|| anyhow!("{}: no packed form of the reverse helper", c.name))?;
                push_kernel(&mut source, &x.kernel, &k, &[&x.helper, &x.bwd]);
            } else if x.form == "vector" {
                let vt = if half2 { "__half2" } else { "unsigned" };
                let k = kernels::emit_bench_kernel_vector(
                    &x.helper, &x.bwd, bits, ctype, vt, &x.kernel, maxnreg,
                )?
                .ok_or_else(|| anyhow!("{}: no vector form of the reverse helper", c.name))?;
                push_kernel(&mut source, &x.kernel, &k, &[&x.helper, &x.bwd]);
            } else if x.form == "carried" {
                let k = kernels::emit_bench_kernel_carried(
                    &x.helper, &x.bwd, bits, ctype, &x.kernel, maxnreg,
                )?
                .ok_or_else(|| anyhow!("{}: neither helper takes warpforge::words", c.name))?;
                push_kernel(&mut source, &x.kernel, &k, &[&x.helper, &x.bwd]);
            } else {
                let k = emit_bench_kernel(&x.helper, &x.bwd, ctype, &x.kernel, maxnreg)?;
                push_kernel(&mut source, &x.kernel, &k, &[&x.helper, &x.bwd]);
            }
        }
        // a cluster plan (docs/ARCHITECTURE.md 4.7) runs in clusters of the
        // layout's CTAs, timed beside a global-memory round trip of the data
        let ctas = verify::cluster_ctas(an);
        let global_kernel = if ctas > 1 {
            let k = format!("wf_bench_{id}_global");
            let text = kernels::emit_bench_kernel_global(an, ctype, &k, maxnreg)?;
            push_kernel(&mut source, &k, &text, &[]);
            Some(k)
        } else {
            None
        };
        let lb_f = lower_bound(an, bits, &weights);
        // the limit kernels: every pair of the directions' limit moves
        // (a cluster conversion's through distributed shared memory,
        // launched in its clusters)
        let limits = {
            let lb_b = lower_bound(&bwd_plan.analysis, bits, &weights);
            let choices = |lb| {
                if ctas > 1 {
                    LimitMove::cluster_choices(lb)
                } else {
                    LimitMove::choices(lb)
                }
            };
            let mut v = Vec::new();
            for f in choices(&lb_f) {
                for b in choices(&lb_b) {
                    let k = LimitKernel::new(
                        &format!("wf_bench_{id}_limit_{}_{}", f.family(), b.family()),
                        f,
                        b,
                        an.src_regs() as u32,
                        an.dst_regs() as u32,
                        bits,
                        32 * c.num_warps,
                    )
                    .in_clusters_of(ctas);
                    let text = k.source(maxnreg)?;
                    push_kernel(&mut source, &k.name, &text, &[]);
                    v.push(k);
                }
            }
            v
        };
        let threads = 32 * c.num_warps as u64;
        let src_tags = (0..threads * ctas as u64)
            .map(|t| {
                let (b, t) = (t / threads, t % threads);
                (0..an.src_regs() as u64)
                    .map(|i| an.src.tag(i, t % 32, t / 32, b))
                    .collect()
            })
            .collect();
        cases.push(BenchCase {
            id,
            file: file.clone(),
            name: c.name.clone(),
            conv: c.clone(),
            key: pipeline::measured::conversion_key(c, bits, opt.shared.sm),
            bits,
            ctype,
            bwd_strategy: bwd_plan.plan.strategy,
            bwd,
            pair: opt.pair,
            lower_bound: lb_f,
            candidates: cands,
            src_tags,
            ctas,
            layout_ctas: c.ctas(),
            global_kernel,
            limits,
            source,
            helpers,
            includes,
            origin,
            spans,
            max_registers: maxnreg,
        });
    }
    Ok((cases, skipped))
}
