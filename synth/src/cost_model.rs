//! The planner's cost model: a weight per instruction class, loaded from a
//! versioned JSON file per GPU (`synth/cost_models/`), fitted to timings of
//! every candidate plan (`warpforge bench` then `warpforge fit`, issue 7).
//!
//! A plan's score is `weights . features` or, where larger, a latency floor
//! per shared-memory trip and shuffle stage over the CTA's warps
//! ([`Weights::dot`]); the features count, per
//! thread of one warp, shuffles, selects, byte permutes, shared-memory
//! instructions (`STS`/`LDS`/`LDSM`), `stmatrix`, shared-memory wavefronts
//! of the warp, and barriers by scope, and the registers a plan is predicted
//! to need beyond what the launch bounds allow (each one a spill: a local
//! store and load per round trip; a shuffle plan's once per pass over its
//! data, [`Features::spill_passes`]); a cluster plan's remote stores and
//! loads also weigh [`Weights::remote_store`] and [`Weights::remote_load`],
//! by the CTA's warps. Only differences between candidates of
//! one conversion matter (the search compares plans of the same conversion),
//! so a fitted model's units are whatever the fit measured (nanoseconds per
//! warp per instruction, GPU-wide, for `warpforge fit`).

use crate::plan::{BarrierScope, Kind, Plan, Stage};
use serde::{Deserialize, Serialize};

/// Weights per instruction class (see [`Features`] for what each counts).
/// All finite and non-negative.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// Per `ldmatrix` (`LDSM`), on top of `smem`: its longer latency on the
    /// dependent path of a conversion. 0 in files written before it existed.
    #[serde(default)]
    pub ldsm: f64,
    /// Per 32-bit register of the predicted peak over the register limit,
    /// a shuffle plan's counted once per pass over its data
    /// ([`Features::spill`]). Files written before it existed get
    /// [`DEFAULT_SPILL_WEIGHT`].
    #[serde(default = "default_spill")]
    pub spill: f64,
    /// Latency floor of one dependent shared-memory trip (store, barrier,
    /// load), in score units per CTA: a plan scores at least `floor_smem *
    /// smem_trips + floor_shfl * shfl_stages`, the trips and stages divided
    /// by the CTA's warps
    /// ([`Features::smem_trips`], [`Features::shfl_stages`]), whatever its
    /// instruction counts. Not one of
    /// [`FEATURE_NAMES`]: `warpforge fit` keeps it as the prior has it
    /// (scaled to the data's units where the fit rescales the prior).
    /// 0 (no floor) in files written before it existed; warpforge builds
    /// from before it refuse a file that carries it (an unknown field).
    #[serde(default)]
    pub floor_smem: f64,
    /// Latency floor of one dependent stage of warp shuffles (see
    /// [`Weights::floor_smem`]). 0 in files written before it existed.
    #[serde(default)]
    pub floor_shfl: f64,
    /// Per remote store of a cluster plan (`st.shared::cluster` into a
    /// peer CTA's shared memory, [`Features::remote_stores`]) over the
    /// warps of the CTA ([`Features::cta_warps`]), on top of `smem`: a
    /// store does not wait for its reply, but the cluster barrier that
    /// releases it waits until it has landed, a latency the CTA's warps
    /// wait out together (as [`Weights::floor_smem`]). Not one of
    /// [`FEATURE_NAMES`]: `warpforge fit` keeps it as the prior has it
    /// (scaled as the floors are). The built-in value was chosen by grid
    /// search over every timed candidate of the cluster conversions of the
    /// test files and of real 2- and 4-CTA kernels (the model's `source`
    /// names the run folder and its script). 0 in files written before it
    /// existed.
    #[serde(default)]
    pub remote_store: f64,
    /// Per remote load of a cluster plan (`ld.shared::cluster` from a peer
    /// CTA, [`Features::remote_loads`]) times the warps of the CTA
    /// ([`Features::cta_warps`]), on top of `smem`: each load waits for its
    /// reply through the cluster network, which the CTA's warps share, so
    /// plans that load remotely lose ground as the CTA grows, and those
    /// that store remotely gain (see [`Weights::remote_store`]). 0 in files
    /// written before it existed.
    #[serde(default)]
    pub remote_load: f64,
    /// The ten instruction weights ([`FEATURE_NAMES`]) for CTAs of one
    /// warp, in place of the ones above ([`Weights::at_cta`]); the
    /// latency floors stay the ones above. At one warp a CTA has no other
    /// warp to hide the latency of a dependent shared-memory trip or
    /// shuffle behind, so the weights that rank plans by their measured
    /// time differ from those of larger CTAs (`warpforge fit --one-warp`
    /// fits them to one-warp rows only). Absent in files written before
    /// it existed (one set of weights for every CTA size); never used on
    /// AMD ([`Weights::for_amd`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_warp: Option<OneWarpWeights>,
    /// The largest conversion, in 32-bit words of tensor data per thread
    /// ([`words_per_thread`]), that [`Weights::one_warp`] ranks; larger
    /// one-warp conversions get the weights above. Small one-warp tiles run
    /// at the latency of their few dependent instructions, where the
    /// section's shuffles win; at 32-64 words, where a shared-memory plan
    /// takes 2-4 scratch rounds, the same shuffles ran up to 1.6x slower in
    /// h2h on an H200
    /// (`results/runs/2026-11-28-h200-one-warp-section-d975706/`).
    /// Absent: the section ranks every one-warp conversion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_warp_max_words: Option<u64>,
    /// The narrowest element, in bits of the width plans are made for
    /// ([`crate::search::plan_width`]), that [`Weights::one_warp`] ranks;
    /// narrower one-warp conversions get the weights above. A plan is
    /// ranked by the features of its 32-bit word form, but an 8- or 16-bit
    /// caller's element form of a plan on packed words pays a byte permute
    /// per element on both sides that those features do not count, so the
    /// section's shuffle and narrow-access choices that run faster on words
    /// ran slower on elements (H200 h2h and bench rows:
    /// `results/runs/2026-11-28-h200-one-warp-section-d975706/`).
    /// Absent: every width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_warp_min_bits: Option<u32>,
}

/// A conversion's tensor data per thread, in 32-bit words (rounded up):
/// the product of `shape` times `bits` per element, over the `threads` of
/// the CTAs that hold it (32 lanes x warps x CTAs). What
/// [`Weights::one_warp_max_words`] bounds. A zero `threads` counts as one.
pub fn words_per_thread(shape: &[i64], bits: u32, threads: u64) -> u64 {
    let elems = shape
        .iter()
        .map(|&d| d.max(1) as u128)
        .fold(1u128, |a, d| a.saturating_mul(d));
    let bits = elems.saturating_mul(bits as u128);
    let per = bits.div_ceil(32u128 * threads.max(1) as u128);
    per.min(u64::MAX as u128) as u64
}

/// Instruction weights of CTAs of one warp ([`Weights::one_warp`]), in
/// [`FEATURE_NAMES`] order, in score units per instruction (per wavefront,
/// per register over the limit). In a model file: an object with exactly
/// those ten names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneWarpWeights(pub [f64; 10]);

impl OneWarpWeights {
    /// From values in [`FEATURE_NAMES`] order.
    pub fn from_array(a: [f64; 10]) -> OneWarpWeights {
        OneWarpWeights(a)
    }
    /// In [`FEATURE_NAMES`] order.
    pub fn as_array(&self) -> [f64; 10] {
        self.0
    }
}

impl Serialize for OneWarpWeights {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(FEATURE_NAMES.len()))?;
        for (n, w) in FEATURE_NAMES.iter().zip(self.0) {
            m.serialize_entry(n, &w)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for OneWarpWeights {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let m = std::collections::BTreeMap::<String, f64>::deserialize(d)?;
        if let Some(k) = m.keys().find(|k| !FEATURE_NAMES.contains(&k.as_str())) {
            return Err(D::Error::unknown_field(k, &FEATURE_NAMES));
        }
        let mut a = [0.0; 10];
        for (i, n) in FEATURE_NAMES.iter().enumerate() {
            a[i] = *m.get(*n).ok_or_else(|| D::Error::missing_field(n))?;
        }
        Ok(OneWarpWeights(a))
    }
}

/// The weight of one predicted register over the limit where a model file
/// does not set one (the built-in model's, `synth/cost_models/default.json`):
/// fitted by `warpforge fit --only spill` (the other weights held at the
/// built-in model's) to conversions timed under `warpforge bench
/// --max-registers 80` and `--max-registers 128` (kernels under
/// `__maxnreg__`); the fit, its rows and how well it chooses are in
/// `results/runs/2026-11-23-h100-spill-weight-d571367/`. It is larger than
/// one local store and load per excess register because ptxas spills more
/// than the predicted excess. It was fitted when [`Features::spill`] was
/// the excess alone, before shuffle plans' excess counted once per pass
/// ([`Features::spill_passes`]): 63 of those rows' 207 spilling candidates
/// were shuffle plans, and the weight has not been refitted since.
pub const DEFAULT_SPILL_WEIGHT: f64 = 10.74;

fn default_spill() -> f64 {
    DEFAULT_SPILL_WEIGHT
}

/// Names of the feature classes, in [`Features::as_array`] order; also the
/// weight names of a cost-model file.
pub const FEATURE_NAMES: [&str; 10] = [
    "shfl",
    "sel",
    "prmt",
    "smem",
    "stsm",
    "wavefront",
    "bar",
    "bar_warp",
    "ldsm",
    "spill",
];

/// What a plan costs, by class: instructions per thread (`shfl` .. `stsm`),
/// shared-memory wavefronts per warp, barriers by scope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Features {
    pub shfl: f64,
    pub sel: f64,
    pub prmt: f64,
    pub smem: f64,
    pub stsm: f64,
    pub wavefront: f64,
    pub bar: f64,
    pub bar_warp: f64,
    /// `ldmatrix` instructions per thread (also counted in `smem`).
    #[serde(default)]
    pub ldsm: f64,
    /// 32-bit registers per thread by which the plan's predicted peak
    /// ([`crate::plan::peak_registers`], in the form timed or used) exceeds
    /// the register limit it runs under: the launch bounds' limit
    /// ([`crate::plan::register_limit`] of the conversion's threads), or a
    /// lower cap (`--max-registers`, [`crate::search::register_cap`]),
    /// times the passes the plan makes over its data
    /// ([`Features::spill_passes`]: more than 1 for shuffle plans only); 0
    /// when it fits. Set by [`Features::with_spill`]. `bench` rows written
    /// before the passes existed carry the excess alone.
    #[serde(default)]
    pub spill: f64,
    /// Dependent shared-memory trips (store, barrier, load: one per load
    /// stage, local or cluster) divided by the warps of the CTA: the warps
    /// of a CTA wait out one trip's latency together. 0 in rows written
    /// before it existed. Set by [`Features::with_latency`].
    #[serde(default)]
    pub smem_trips: f64,
    /// Shuffle stages divided by the warps of the CTA (see
    /// [`Features::smem_trips`]).
    #[serde(default)]
    pub shfl_stages: f64,
    /// Remote stores per thread (`st.shared::cluster`), of cluster plans
    /// only; also counted in `smem`. Not one of [`FEATURE_NAMES`]
    /// ([`Weights::remote_store`]). 0 in rows written before it existed.
    #[serde(default)]
    pub remote_stores: f64,
    /// Remote loads per thread (`ld.shared::cluster`), of cluster plans
    /// only; also counted in `smem` ([`Weights::remote_load`]).
    #[serde(default)]
    pub remote_loads: f64,
    /// Warps of the CTA that runs the plan, set by
    /// [`Features::with_latency`]; 0 (unknown) counts as 1. Only remote
    /// accesses are weighted by it ([`Weights::remote_store`],
    /// [`Weights::remote_load`]).
    #[serde(default)]
    pub cta_warps: f64,
}

impl Features {
    /// These features with [`Features::smem_trips`] and
    /// [`Features::shfl_stages`] set for `p` run by CTAs of `warps` warps.
    pub fn with_latency(mut self, p: &Plan, warps: u32) -> Features {
        let (mut trips, mut shfl) = (0u32, 0u32);
        for st in &p.stages {
            match st {
                Stage::SmemLoad { .. } | Stage::ClusterLoad { .. } => trips += 1,
                Stage::Shuffle { .. } => shfl += 1,
                _ => {}
            }
        }
        let w = warps.max(1) as f64;
        self.smem_trips = trips as f64 / w;
        self.shfl_stages = shfl as f64 / w;
        self.cta_warps = w;
        self
    }
    /// The features of a plan in its one-element-per-register form.
    pub fn of(p: &Plan) -> Features {
        Features::with_cost(p, p.cost())
    }
    /// These features with [`Features::spill`] set: the predicted register
    /// peak of `p` for `bits`-bit elements in the element form or the packed
    /// form (`packed`), less `limit` (32-bit registers per thread: the
    /// launch bounds' limit or a lower cap), when positive, times the
    /// passes over the data ([`Features::spill_passes`]).
    pub fn with_spill(self, p: &Plan, bits: u32, packed: bool, limit: u32) -> Features {
        self.with_spill_of(p.kind, crate::plan::peak_registers(p, bits, packed), limit)
    }
    /// These features with [`Features::spill`] set to a predicted register
    /// peak (`peak.peak`, 32-bit registers per thread, of which `peak.data`
    /// hold data) less `limit`, when positive, times the passes a plan of
    /// family `kind` makes over its data ([`Features::spill_passes`]) in
    /// the form whose instruction counts these features hold: the plan's
    /// width form ([`crate::plan::Plan::width_form`],
    /// [`Features::for_width`]), whose counts are per 32-bit register at
    /// every width (a 64-bit element's shuffle, and a shuffle plan's select
    /// of one, count as two).
    pub fn with_spill_of(
        mut self,
        kind: Kind,
        peak: crate::plan::RegisterPeak,
        limit: u32,
    ) -> Features {
        let excess = peak.peak.saturating_sub(limit);
        // the width form's counts are per 32-bit register (a 64-bit
        // shuffle plan's shuffles and selects count per half), so the
        // passes are over the 32-bit data registers at every width
        let regs = peak.data;
        self.spill = if excess == 0 {
            0.0
        } else {
            excess as f64 * self.spill_passes(kind, regs)
        };
        self
    }
    /// How many times a plan of `kind` with these instruction counts reads
    /// and rewrites its `regs` data registers per thread (the registers the
    /// counts are per: 32-bit words, as the width form counts), each pass
    /// reloading what ptxas spilled: a shuffle plan ([`Kind::Shuffle`]) one
    /// pass for the caller's arrays and one per select, shuffle or byte
    /// permute of each register (`1 + (shfl + sel + prmt) / regs`); every
    /// other plan 1 (a shared-memory plan stores each register once and
    /// loads each once, and rounds free a round's registers as they are
    /// stored). Over the register limit, the shuffle plans of seven one-warp
    /// tiles and one two-warp tile of 256-512 registers of data ran 1.5-4.4x
    /// as long as `--strategy shared` plans in their element forms in h2h
    /// on an H200 (8 of 10 conversions; 451-707 spilled loads and stores in
    /// the loop against 64-353), where the excess alone ranked the shuffles
    /// first (`results/runs/2026-11-29-h200-one-warp-more-scratch-21251f2/`,
    /// section 3).
    pub fn spill_passes(&self, kind: Kind, regs: u32) -> f64 {
        if kind == Kind::Shuffle && regs > 0 {
            1.0 + (self.shfl + self.sel + self.prmt) / regs as f64
        } else {
            1.0
        }
    }
    /// The features a plan is ranked by for elements of `bits` under a
    /// register limit of `limit` per thread ([`Weights::score_in`]):
    /// [`Features::for_width`] with the spill of the form it recommends
    /// (packed for 8/16-bit data where the plan has one). No latency
    /// features and no CTA warps: add them with [`Features::with_latency`]
    /// (the remote accesses of a cluster plan are weighed by the warps).
    pub fn ranked(p: &Plan, bits: u32, limit: u32) -> Features {
        let (cost, packed) = p.width_form(bits);
        Features::ranked_with(p, bits, limit, cost, packed)
    }
    /// [`Features::ranked`] from the plan's [`Plan::width_form`] computed
    /// once by the caller (`cost`, `packed`).
    pub fn ranked_with(
        p: &Plan,
        bits: u32,
        limit: u32,
        cost: crate::plan::Cost,
        packed: bool,
    ) -> Features {
        Features::with_cost(p, cost).with_spill(p, bits, packed && bits < 32, limit)
    }
    /// The features of a plan for elements of `bits` in the helper form
    /// [`Plan::packed_form`] recommends ([`Plan::cost_for_width`]).
    pub fn for_width(p: &Plan, bits: u32) -> Features {
        Features::with_cost(p, p.cost_for_width(bits))
    }
    fn with_cost(p: &Plan, c: crate::plan::Cost) -> Features {
        let mut f = Features {
            shfl: c.shfl as f64,
            sel: c.sel as f64,
            prmt: c.prmt as f64,
            // remote stores and loads of cluster plans (docs/ARCHITECTURE.md
            // 4.7; `st.shared::cluster`, `ld.shared::cluster`) score as
            // shared-memory accesses plus their own weights
            // (`remote_stores`, `remote_loads`), cluster barriers as CTA
            // barriers (0 for every other plan)
            smem: (c.sts + c.lds + c.ldsm + c.stcl + c.ldcl) as f64,
            stsm: c.stsm as f64,
            wavefront: p.wavefronts_per_warp().0 as f64,
            bar: c.cbar as f64,
            bar_warp: 0.0,
            ldsm: c.ldsm as f64,
            spill: 0.0,
            smem_trips: 0.0,
            shfl_stages: 0.0,
            remote_stores: c.stcl as f64,
            remote_loads: c.ldcl as f64,
            cta_warps: 0.0,
        };
        for st in &p.stages {
            if let Stage::Barrier { scope } = st {
                match scope {
                    BarrierScope::Cta | BarrierScope::Named { .. } => f.bar += 1.0,
                    BarrierScope::Warp => f.bar_warp += 1.0,
                }
            }
        }
        f
    }
    /// In [`FEATURE_NAMES`] order.
    pub fn as_array(&self) -> [f64; 10] {
        [
            self.shfl,
            self.sel,
            self.prmt,
            self.smem,
            self.stsm,
            self.wavefront,
            self.bar,
            self.bar_warp,
            self.ldsm,
            self.spill,
        ]
    }
}

impl std::ops::Add for Features {
    type Output = Features;
    fn add(self, o: Features) -> Features {
        let (a, b) = (self.as_array(), o.as_array());
        Features {
            smem_trips: self.smem_trips + o.smem_trips,
            shfl_stages: self.shfl_stages + o.shfl_stages,
            remote_stores: self.remote_stores + o.remote_stores,
            remote_loads: self.remote_loads + o.remote_loads,
            // features of one conversion's plans: one CTA size
            cta_warps: self.cta_warps.max(o.cta_warps),
            ..Features::from_array(std::array::from_fn(|i| a[i] + b[i]))
        }
    }
}

impl Weights {
    /// In [`FEATURE_NAMES`] order.
    pub fn as_array(&self) -> [f64; 10] {
        [
            self.shfl,
            self.sel,
            self.prmt,
            self.smem,
            self.stsm,
            self.wavefront,
            self.bar,
            self.bar_warp,
            self.ldsm,
            self.spill,
        ]
    }
    /// From values in [`FEATURE_NAMES`] order, with no latency floor and
    /// no remote-access weights ([`Weights::with_floors_of`] copies them).
    pub fn from_array(a: [f64; 10]) -> Weights {
        Weights {
            floor_smem: 0.0,
            floor_shfl: 0.0,
            remote_store: 0.0,
            remote_load: 0.0,
            one_warp: None,
            one_warp_max_words: None,
            one_warp_min_bits: None,
            shfl: a[0],
            sel: a[1],
            prmt: a[2],
            smem: a[3],
            stsm: a[4],
            wavefront: a[5],
            bar: a[6],
            bar_warp: a[7],
            ldsm: a[8],
            spill: a[9],
        }
    }
}

impl Features {
    /// From values in [`FEATURE_NAMES`] order (no latency features, no
    /// remote accesses).
    pub fn from_array(a: [f64; 10]) -> Features {
        Features {
            smem_trips: 0.0,
            shfl_stages: 0.0,
            remote_stores: 0.0,
            remote_loads: 0.0,
            cta_warps: 0.0,
            shfl: a[0],
            sel: a[1],
            prmt: a[2],
            smem: a[3],
            stsm: a[4],
            wavefront: a[5],
            bar: a[6],
            bar_warp: a[7],
            ldsm: a[8],
            spill: a[9],
        }
    }
}

impl Weights {
    /// The score of features `f`: `max(weights . features, floor)`, the
    /// throughput score ([`Weights::throughput`]) or the latency floor
    /// ([`Weights::floor`]), whichever is larger (a roofline: a conversion
    /// of few instructions waits on its dependent chain of shared-memory
    /// trips and shuffles, not on issue slots).
    pub fn dot(&self, f: &Features) -> f64 {
        self.throughput(f).max(self.floor(f))
    }
    /// `weights . features` over [`FEATURE_NAMES`], plus the remote
    /// accesses of a cluster plan: [`Weights::remote_store`] per remote
    /// store over the warps of the CTA, [`Weights::remote_load`] per remote
    /// load times them.
    pub fn throughput(&self, f: &Features) -> f64 {
        let warps = f.cta_warps.max(1.0);
        self.as_array()
            .iter()
            .zip(f.as_array())
            .map(|(w, x)| w * x)
            .sum::<f64>()
            + self.remote_store * f.remote_stores / warps
            + self.remote_load * f.remote_loads * warps
    }
    /// These weights for an AMD target (`arch`), where a cross-lane move is
    /// itself an LDS instruction: `ds_bpermute_b32` goes through the LDS
    /// crossbar (AMD CDNA3 ISA, "Data Share Operations") and moves 4 bytes
    /// per lane like a `ds_read_b32`, so a shuffle is scored as one
    /// shared-memory instruction plus its 128-byte wavefronts (2 on a
    /// 64-lane wave, 1 on a 32-lane one), not as NVIDIA's `SHFL`; a
    /// `__syncwarp()` (fences and a wave barrier, no `s_barrier`) as a
    /// select. Derived from the ISA, not fitted: no AMD GPU timed these.
    pub fn for_amd(mut self, arch: crate::target::AmdArch) -> Weights {
        // the one-warp weights are NVIDIA timings: not for a wave
        self.one_warp = None;
        self.one_warp_max_words = None;
        self.one_warp_min_bits = None;
        let wavefronts = (arch.lanes() / 32) as f64;
        self.shfl = self.smem + self.wavefront * wavefronts;
        self.bar_warp = self.sel;
        self
    }
    /// The weights that rank the plans of a conversion run by `ctas` CTAs
    /// (a cluster where more than one) of `warps` warps, holding `words`
    /// 32-bit words of tensor data per thread ([`words_per_thread`]) in
    /// elements of `bits` (the width its plans are made for): for one CTA
    /// of one warp, at most [`Weights::one_warp_max_words`] words and at
    /// least [`Weights::one_warp_min_bits`] bits, the instruction weights
    /// of [`Weights::one_warp`] where the model has them, with this model's
    /// latency floors; else these weights (the section was measured on
    /// single CTAs only). The result has no one-warp section, so applying
    /// it again changes nothing.
    pub fn at_cta(self, warps: u32, ctas: u32, words: u64, bits: u32) -> Weights {
        match self.one_warp {
            Some(o) if self.one_warp_bounds_hold(warps, ctas, words, bits) => {
                Weights::from_array(o.as_array()).with_floors_of(&self)
            }
            _ => Weights {
                one_warp: None,
                one_warp_max_words: None,
                one_warp_min_bits: None,
                ..self
            },
        }
    }
    /// Whether a conversion of `ctas` CTAs of `warps` warps, holding `words`
    /// 32-bit words per thread in elements of `bits`, lies inside the
    /// one-warp bounds ([`Weights::one_warp_max_words`],
    /// [`Weights::one_warp_min_bits`]): what [`Weights::at_cta`] ranks by
    /// [`Weights::one_warp`] and `warpforge fit` judges by it.
    pub fn one_warp_bounds_hold(&self, warps: u32, ctas: u32, words: u64, bits: u32) -> bool {
        warps == 1
            && ctas <= 1
            && self.one_warp_max_words.is_none_or(|m| words <= m)
            && self.one_warp_min_bits.is_none_or(|m| bits >= m)
    }
    /// [`Weights::at_cta`] for conversion `c` planned for its own element
    /// width ([`crate::search::plan_width`]): [`Weights::for_conversion_at`].
    pub fn for_conversion(self, c: &crate::plan::Conversion) -> Weights {
        self.for_conversion_at(c, crate::search::plan_width(c))
    }
    /// [`Weights::at_cta`] for conversion `c` planned for elements of
    /// `bits` (8, 16, 32 or 64: the header's other widths are ranked at
    /// their own width, not the conversion's): its warps, the CTAs its
    /// source layout spans, and its tensor data per thread at that width
    /// ([`crate::plan::Conversion::words_per_thread_at`]).
    pub fn for_conversion_at(self, c: &crate::plan::Conversion, bits: u32) -> Weights {
        self.at_cta(c.num_warps, c.ctas(), c.words_per_thread_at(bits), bits)
    }
    /// The latency floor of features `f`: `floor_smem * smem_trips +
    /// floor_shfl * shfl_stages`.
    pub fn floor(&self, f: &Features) -> f64 {
        self.floor_smem * f.smem_trips + self.floor_shfl * f.shfl_stages
    }
    /// These weights with the latency floors and the remote-access weights
    /// of `o` (the weights that are not [`FEATURE_NAMES`]).
    pub fn with_floors_of(mut self, o: &Weights) -> Weights {
        self.floor_smem = o.floor_smem;
        self.floor_shfl = o.floor_shfl;
        self.remote_store = o.remote_store;
        self.remote_load = o.remote_load;
        self
    }
    /// Weighted score of a plan (lower is better): its throughput part
    /// only, with no warps to divide a latency floor by.
    pub fn score(&self, p: &Plan) -> f64 {
        self.throughput(&Features::of(p))
    }
    /// Weighted score of a plan for elements of `bits` under a register
    /// limit of `limit` per thread ([`crate::search::register_cap`]), run
    /// by CTAs of `warps` warps: [`Features::ranked`] with
    /// [`Features::with_latency`]. Returns the score and its throughput
    /// part ([`Weights::throughput`]), which breaks ties among candidates
    /// the latency floor levels.
    pub fn score_in(&self, p: &Plan, bits: u32, limit: u32, warps: u32) -> (f64, f64) {
        let f = Features::ranked(p, bits, limit).with_latency(p, warps);
        (self.dot(&f), self.throughput(&f))
    }
    /// [`Weights::score_in`] from the plan's [`Plan::width_form`] computed
    /// once by the caller.
    pub fn score_with(
        &self,
        p: &Plan,
        form: (crate::plan::Cost, bool),
        bits: u32,
        limit: u32,
        warps: u32,
    ) -> (f64, f64) {
        let f = Features::ranked_with(p, bits, limit, form.0, form.1).with_latency(p, warps);
        (self.dot(&f), self.throughput(&f))
    }
    /// Weighted score of a plan for elements of `bits` ([`Features::for_width`]):
    /// its throughput part only (no latency floor, no spill).
    pub fn score_for_width(&self, p: &Plan, bits: u32) -> f64 {
        self.throughput(&Features::for_width(p, bits))
    }
}

impl Default for Weights {
    /// The built-in model's weights ([`CostModel::builtin`]).
    fn default() -> Self {
        CostModel::builtin().weights
    }
}

/// A cost-model file: weights plus where they came from and how well they
/// fit. Format `warpforge-cost-model`, version 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// Always `warpforge-cost-model`.
    pub format: String,
    /// Format version: 1.
    pub version: u32,
    /// The GPU the weights were measured on (or `any` for hand-set ones).
    pub gpu: String,
    /// How the weights were obtained: command, date, commit.
    pub source: String,
    pub weights: Weights,
    /// The fit's statistics (samples, R^2, residuals), when fitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<serde_json::Value>,
}

/// A cost-model file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CostModelError {
    #[error("{origin}: not a cost model: {detail}")]
    Parse { origin: String, detail: String },
    #[error("{origin}: {detail}")]
    Invalid { origin: String, detail: String },
}

const BUILTIN: &str = include_str!("../cost_models/default.json");

impl CostModel {
    /// Parse and validate a cost-model file's text; `origin` (a path) names
    /// it in errors. Errors: malformed JSON or unknown/missing fields (with
    /// line and column), another format or version, a weight that is
    /// negative or not finite, one-warp bounds without a `one_warp`
    /// section, a `one_warp_max_words` of 0, or a `one_warp_min_bits` other
    /// than 8, 16, 32 or 64.
    pub fn from_json(text: &str, origin: &str) -> Result<CostModel, CostModelError> {
        let m: CostModel = serde_json::from_str(text).map_err(|e| CostModelError::Parse {
            origin: origin.into(),
            detail: e.to_string(),
        })?;
        let bad = |detail: String| CostModelError::Invalid {
            origin: origin.into(),
            detail,
        };
        if m.format != "warpforge-cost-model" {
            return Err(bad(format!(
                "format is `{}`, expected `warpforge-cost-model`",
                m.format
            )));
        }
        if m.version != 1 {
            return Err(bad(format!(
                "version {} is not supported (this warpforge reads version 1)",
                m.version
            )));
        }
        let floors = [
            ("floor_smem", m.weights.floor_smem),
            ("floor_shfl", m.weights.floor_shfl),
            ("remote_store", m.weights.remote_store),
            ("remote_load", m.weights.remote_load),
        ];
        let one_warp = m.weights.one_warp.map(|o| o.as_array());
        let one_warp = FEATURE_NAMES
            .iter()
            .zip(one_warp.unwrap_or_default())
            .take(if one_warp.is_some() { 10 } else { 0 })
            .map(|(n, w)| (format!("one_warp.{n}"), w));
        for (name, w) in FEATURE_NAMES
            .iter()
            .map(|n| n.to_string())
            .zip(m.weights.as_array())
            .chain(floors.map(|(n, w)| (n.to_string(), w)))
            .chain(one_warp)
        {
            if !w.is_finite() || w < 0.0 {
                return Err(bad(format!(
                    "weight `{name}` is {w}; weights must be finite and non-negative"
                )));
            }
        }
        // the one-warp bounds bound the section: without it they bound
        // nothing, and they must be able to hold
        let w = &m.weights;
        if w.one_warp.is_none() {
            for (name, set) in [
                ("one_warp_max_words", w.one_warp_max_words.is_some()),
                ("one_warp_min_bits", w.one_warp_min_bits.is_some()),
            ] {
                if set {
                    return Err(bad(format!(
                        "`{name}` bounds the `one_warp` weights, which the file does not have; remove it or add the section"
                    )));
                }
            }
        }
        if w.one_warp_max_words == Some(0) {
            return Err(bad(
                "`one_warp_max_words` is 0: no conversion holds less than one word per thread, so the section would rank none; remove the section instead".into(),
            ));
        }
        if let Some(b) = w.one_warp_min_bits.filter(|b| ![8, 16, 32, 64].contains(b)) {
            return Err(bad(format!(
                "`one_warp_min_bits` is {b}; plans are made for elements of 8, 16, 32 or 64 bits"
            )));
        }
        Ok(m)
    }
    /// The model the planner uses unless told otherwise
    /// (`synth/cost_models/default.json`).
    pub fn builtin() -> CostModel {
        CostModel::from_json(BUILTIN, "synth/cost_models/default.json")
            .expect("the built-in cost model is valid")
    }
    /// Pretty JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a cost model serializes") + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_round_trips_and_bad_files_are_named() {
        let m = CostModel::builtin();
        assert_eq!(CostModel::from_json(&m.to_json(), "x").unwrap(), m);
        let e = CostModel::from_json("{", "f.json").unwrap_err().to_string();
        assert!(e.starts_with("f.json: not a cost model"), "{e}");
        // a negative weight, a feature's or a latency floor's, is refused by name
        let negative: [(&str, fn(&mut Weights)); 2] = [
            ("sel", |w| w.sel = -1.0),
            ("floor_smem", |w| w.floor_smem = -1.0),
        ];
        for (name, set) in negative {
            let mut neg = m.clone();
            set(&mut neg.weights);
            let e = CostModel::from_json(&neg.to_json(), "f.json")
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("weight `{name}` is -1")), "{e}");
        }
        let v2 = m.to_json().replace("\"version\": 1", "\"version\": 2");
        let e = CostModel::from_json(&v2, "f.json").unwrap_err().to_string();
        assert!(e.contains("version 2"), "{e}");
        let extra = m.to_json().replace("\"shfl\"", "\"shufl\"");
        assert!(CostModel::from_json(&extra, "f.json").is_err());
        // one-warp bounds that cannot act as their numbers say are refused
        // by name: without the section, a zero word bound, a width no plan
        // is made for
        assert!(m.weights.one_warp.is_some());
        let bounds: [(&str, fn(&mut Weights)); 4] = [
            ("`one_warp_max_words` bounds", |w| w.one_warp = None),
            ("`one_warp_max_words` is 0", |w| {
                w.one_warp_max_words = Some(0)
            }),
            ("`one_warp_min_bits` is 12", |w| {
                w.one_warp_min_bits = Some(12)
            }),
            ("`one_warp_min_bits` bounds", |w| {
                w.one_warp = None;
                w.one_warp_max_words = None;
            }),
        ];
        for (says, set) in bounds {
            let mut b = m.clone();
            set(&mut b.weights);
            let e = CostModel::from_json(&b.to_json(), "f.json")
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("f.json: ") && e.contains(says), "{e}");
        }
        // bounds that hold load: any of the four widths, any positive bound
        for bits in [8, 16, 32, 64] {
            let mut b = m.clone();
            b.weights.one_warp_min_bits = Some(bits);
            b.weights.one_warp_max_words = Some(1);
            assert!(CostModel::from_json(&b.to_json(), "f.json").is_ok());
        }
    }

    #[test]
    fn words_per_thread_is_tensor_bits_over_threads_rounded_up() {
        assert_eq!(words_per_thread(&[16, 16], 32, 32), 8);
        assert_eq!(words_per_thread(&[64, 64], 16, 32), 64);
        assert_eq!(words_per_thread(&[64, 64], 16, 128), 16);
        assert_eq!(words_per_thread(&[2, 8], 16, 32), 1); // a fraction of a word: 1
        assert_eq!(words_per_thread(&[4], 8, 0), 1); // zero threads count as one
        assert_eq!(words_per_thread(&[1 << 40, 1 << 40], 64, 1), u64::MAX); // saturates
    }

    #[test]
    fn shuffles_over_the_limit_spill_once_per_pass() {
        let f = Features {
            shfl: 256.0,
            sel: 512.0,
            ..Features::default()
        };
        // one pass for the caller's arrays, three over 256 data registers
        assert_eq!(f.spill_passes(Kind::Shuffle, 256), 4.0);
        assert_eq!(f.spill_passes(Kind::Shared, 256), 1.0);
        assert_eq!(f.spill_passes(Kind::Shuffle, 0), 1.0);
        // the width form counts per 32-bit register at every width (a
        // 64-bit shuffle or select as two), so the same counts over the
        // same 512 data registers make the same passes at 32 and 64 bits:
        // 768 counted instructions over 512 registers, 2.5 passes
        let peak = crate::plan::RegisterPeak {
            data: 512,
            peak: 532,
        };
        let spill = |kind| f.with_spill_of(kind, peak, 255).spill;
        assert_eq!(spill(Kind::Shuffle), 277.0 * 2.5);
        assert_eq!(spill(Kind::Shared), 277.0);
        // within the limit: no spill, whatever the passes
        let fits = crate::plan::RegisterPeak {
            data: 128,
            peak: 148,
        };
        assert_eq!(f.with_spill_of(Kind::Shuffle, fits, 255).spill, 0.0);
    }

    #[test]
    fn remote_accesses_have_their_own_weights() {
        let w = CostModel::builtin().weights;
        assert!(w.remote_store > 0.0 && w.remote_load > 0.0, "{w:?}");
        let local = Features {
            smem: 2.0,
            wavefront: 2.0,
            ..Features::default()
        };
        let base = w.throughput(&local);
        // 2 remote stores and 3 remote loads at 0 (unknown: counts as one),
        // 1 and 4 warps: a store on top of the shared-memory instruction it
        // also is, over the warps of the CTA; a load times them
        for (warps, per) in [(0.0, 1.0), (1.0, 1.0), (4.0, 4.0)] {
            let f = Features {
                remote_stores: 2.0,
                remote_loads: 3.0,
                cta_warps: warps,
                ..local
            };
            let want = base + 2.0 * w.remote_store / per + 3.0 * w.remote_load * per;
            assert_eq!(w.throughput(&f), want, "{warps} warps");
        }
        // not among the fitted weights; carried over with the floors, as
        // the one-warp section's weights are built (a cluster never gets
        // that section: `at_cta` of 2 CTAs keeps them as they are)
        assert_eq!(Weights::from_array(w.as_array()).remote_store, 0.0);
        let back = Weights::from_array(w.as_array()).with_floors_of(&w);
        assert_eq!(
            (back.remote_store, back.remote_load),
            (w.remote_store, w.remote_load)
        );
        let cluster = w.at_cta(1, 2, 4, 32);
        assert_eq!(
            (cluster.remote_store, cluster.remote_load),
            (w.remote_store, w.remote_load)
        );
        // a file written before them loads with none; a negative one is
        // refused by name
        let m = CostModel::builtin();
        let old = m.to_json().replace(
            ",\n    \"remote_store\": 128.0,\n    \"remote_load\": 32.0",
            "",
        );
        assert_ne!(old, m.to_json());
        let o = CostModel::from_json(&old, "old.json").unwrap();
        assert_eq!((o.weights.remote_store, o.weights.remote_load), (0.0, 0.0));
        let mut neg = m.clone();
        neg.weights.remote_load = -1.0;
        let e = CostModel::from_json(&neg.to_json(), "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("weight `remote_load` is -1"), "{e}");
    }

    #[test]
    fn one_warp_weights_rank_one_warp_ctas_only() {
        let mut m = CostModel::builtin();
        let o = OneWarpWeights::from_array(std::array::from_fn(|i| i as f64 + 0.5));
        m.weights.one_warp = Some(o);
        m.weights.one_warp_max_words = None;
        m.weights.one_warp_min_bits = None;
        let w = m.weights;
        // one warp: the section's instruction weights, the model's floors
        let one = w.at_cta(1, 1, 64, 16);
        assert_eq!(one.as_array(), o.as_array());
        assert_eq!(
            (one.floor_smem, one.floor_shfl),
            (w.floor_smem, w.floor_shfl)
        );
        assert_eq!(one.one_warp, None);
        assert_eq!(one.at_cta(1, 1, 64, 16), one);
        // more warps, a cluster, or AMD: the base weights
        for (warps, ctas) in [(2, 1), (4, 1), (32, 1), (1, 2), (1, 16)] {
            let many = w.at_cta(warps, ctas, 8, 32);
            assert_eq!(many.as_array(), w.as_array());
            assert_eq!(many.one_warp, None);
        }
        let amd = w
            .for_amd(crate::target::AmdArch::Gfx942)
            .at_cta(1, 1, 8, 32);
        assert_eq!(amd.sel, w.sel);
        // the section's bounds: words per thread at most, element bits at least
        let bounded = Weights {
            one_warp_max_words: Some(16),
            one_warp_min_bits: Some(32),
            ..w
        };
        for (words, bits, section) in [
            (16, 32, true),
            (1, 64, true),
            (17, 32, false),
            (8, 16, false),
            (8, 8, false),
        ] {
            let got = bounded.at_cta(1, 1, words, bits);
            let want = if section { o.as_array() } else { w.as_array() };
            assert_eq!(got.as_array(), want, "{words} words of {bits}-bit elements");
            assert_eq!(
                (got.one_warp, got.one_warp_max_words, got.one_warp_min_bits),
                (None, None, None)
            );
        }
        // the bounds round-trip through a model file
        let mut mb = m.clone();
        mb.weights = bounded;
        assert_eq!(CostModel::from_json(&mb.to_json(), "x").unwrap(), mb);
        // a model without the section is the same at every size
        let base = Weights {
            one_warp: None,
            ..CostModel::builtin().weights
        };
        assert_eq!(base.at_cta(1, 1, 8, 32).as_array(), base.as_array());
        // the section round-trips, and a bad value in it is refused by name
        assert_eq!(CostModel::from_json(&m.to_json(), "x").unwrap(), m);
        let mut neg = m.clone();
        let mut a = o.as_array();
        a[1] = -1.0; // sel
        neg.weights.one_warp = Some(OneWarpWeights::from_array(a));
        let e = CostModel::from_json(&neg.to_json(), "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("weight `one_warp.sel` is -1"), "{e}");
        // the section names exactly the ten weights
        let text = m.to_json();
        let at = text.find("\"one_warp\"").unwrap();
        let (head, tail) = text.split_at(at);
        let unknown = format!("{head}{}", tail.replacen("\"sel\"", "\"sell\"", 1));
        let e = CostModel::from_json(&unknown, "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `sell`"), "{e}");
        let missing = format!("{head}{}", tail.replacen("\"sel\": 1.5,", "", 1));
        let e = CostModel::from_json(&missing, "f.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing field `sel`"), "{e}");
    }

    #[test]
    fn latency_floor_is_a_roofline_over_the_warps_of_the_cta() {
        let w = CostModel::builtin().weights;
        assert!(w.floor_smem > w.floor_shfl && w.floor_shfl > 0.0);
        // one shared trip of 4 stores and a load, 5 wavefronts
        let f = Features {
            smem: 5.0,
            wavefront: 5.0,
            bar_warp: 1.0,
            ..Features::default()
        };
        let t = w.throughput(&f);
        assert!(t < w.floor_smem, "{t}");
        let one_warp = Features {
            smem_trips: 1.0,
            ..f
        };
        assert_eq!(w.dot(&one_warp), w.floor_smem);
        assert_eq!(w.throughput(&one_warp), t);
        // four warps share the trip's latency: the throughput binds again
        let four_warps = Features {
            smem_trips: 0.25,
            ..f
        };
        assert_eq!(w.dot(&four_warps), t);
        // sums keep the latency features; arrays and refits do not lose floors
        let two = one_warp + four_warps;
        assert_eq!((two.smem_trips, two.shfl_stages), (1.25, 0.0));
        let refit = Weights::from_array(w.as_array());
        assert_eq!(refit.floor(&one_warp), 0.0);
        assert_eq!(refit.with_floors_of(&w), w.at_cta(2, 1, 0, 32));
        // files written before the floors have none
        let old = CostModel::builtin()
            .to_json()
            .replace(",\n    \"floor_smem\": 50.0,\n    \"floor_shfl\": 30.0", "");
        assert!(!old.contains("floor_"), "{old}");
        let m = CostModel::from_json(&old, "old.json").unwrap();
        assert_eq!((m.weights.floor_smem, m.weights.floor_shfl), (0.0, 0.0));
        assert_eq!(m.weights.dot(&one_warp), t);
    }
}
