//! Conversion analysis, the plan IR, and the strategies that build plans,
//! one module per strategy, registered in [`candidates`].
//!
//! A conversion moves a tile from source layout `A` to destination layout `B`
//! (same tensor). Per thread, the tile is a register array; a [`Plan`] is a
//! list of [`Stage`]s, each mapping the register array of every thread to a
//! new one (renames, lane-dependent selects, warp shuffles, shared-memory
//! stores/loads around a barrier). The gather map `G = A^+ o B` says, for
//! every destination slot, which source slot it reads (docs/ARCHITECTURE.md section 3).
//!
//! Strategies (docs/ARCHITECTURE.md section 4):
//! - identity / register-only: pure renaming, zero instructions;
//! - shuffle (warp-local conversions whose bases are unit vectors or zero):
//!   the decomposition of Triton PR 7558 generalised to any number `m` of
//!   register<->lane transpositions: `G = T o K` with `T` the transpositions
//!   `(r_i l_i)` and `K` block-diagonal (a register renaming and a lane
//!   permutation). Each transposition is select `r ^= l`, shuffle `l ^= r`,
//!   select `r ^= l`; all `m` share one shuffle round, the lane permutation is
//!   folded into the shuffle's source lane (`shfl.bfly` when it is trivial,
//!   `shfl.idx` otherwise); for `m = 1` with a trivial lane permutation the
//!   out-of-place variant (1.5 R selects, 0.5 R shuffles) is also offered;
//! - packed shuffles for 8- and 16-bit elements (docs/ARCHITECTURE.md 4.3): [`lift`]
//!   runs a shuffle plan on 32-bit words when the packed register bits take
//!   no part in its transpositions (Triton's `nPack`), and [`gather`] builds
//!   each destination word from at most four shuffled source words with
//!   `prmt`s whose lane-dependent selectors fold in the selects and the byte
//!   permutation (Triton PRs 7809/7933/9713); both carry words between a
//!   `Pack` and an `Unpack` stage and are simulated byte by byte;
//! - shared memory: a store/barrier/load round trip through a shared layout
//!   chosen per conversion (vectorised, swizzled, `stmatrix`/`ldmatrix`)
//!   that converts anything within a CTA;
//! - cluster (conversions between the CTAs of a cluster, sm_90+): each
//!   thread stores its elements into the scratch of the CTAs that hold them
//!   in the destination, a cluster barrier, local loads ([`cluster`]).
//!
//! Modules: [`analysis`] (classification), [`ir`] (stages and cost),
//! [`strategy`] (the typed name of the strategy that built a plan),
//! [`bound`] (lower bounds on any plan's cost), [`pack`] (packed 8/16-bit
//! words: `prmt` networks and the packed form's cost), and the
//! strategies [`rename`], [`shuffle`], [`lift`], [`gather`], [`shared`],
//! [`cluster`].

use serde::Serialize;

pub mod analysis;
pub mod banks;
pub mod bound;
pub mod budget;
pub mod cluster;
pub mod gather;
pub mod ir;
pub mod lift;
pub mod pack;
pub mod rename;
pub mod select;
pub mod shared;
pub mod shuffle;
pub mod strategy;

pub use analysis::{tag_columns, Analysis, Conversion, Hw, Side};
pub use bound::{lower_bound, LowerBound};
pub use budget::{
    byte_words_in_natural_order, capped_register_limit, ctas_per_sm_by_registers, data_registers,
    element_form_holds_words, element_form_peak, element_form_rule, element_form_store_bytes,
    element_form_words, peak_registers, peak_registers_held, preferred_peak, register_limit,
    resident_ctas_by_form, words_in_natural_order, HeldWords, RegisterPeak, WordsRule,
    WORDS_MIN_ELEMS,
};
pub use ir::{
    AddrMap, BarrierScope, ClusterInst, ClusterLoad, ClusterMap, ClusterStore, ClusterVariant,
    Cost, Dir, PermEntry, Plan, Rounds, SelEntry, ShflEntry, ShflMode, SmemAccess, SmemInst,
    SmemInstr, Stage, WarpGuard,
};
pub use shared::{shared_plans, smem_limit, SharedOptions};
pub use shuffle::shuffle_plans;
pub use strategy::{
    ClusterStrategy, SharedStrategy, ShuffleMode, ShuffleStrategy, ShuffleVariant, SmemForm,
    Strategy, VectorWidth,
};

/// Lane bits of a 32-lane warp (NVIDIA, AMD wave32).
pub const LANE_BITS: usize = 5;

/// Lane bits of the warps warpforge plans: 5 (32 lanes: NVIDIA, AMD
/// wave32) and 6 (AMD wave64). Strategies read a conversion's own from
/// [`Hw::lane`].
pub const LANE_BITS_SERVED: std::ops::RangeInclusive<usize> = 5..=6;

/// Errors of conversion analysis and planning. Each names the conversion.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PlanError {
    #[error("{name}: {side} layout: {detail}")]
    Layout {
        name: String,
        side: &'static str,
        detail: String,
    },
    #[error("{name}: source and destination cover different tensors: {detail}")]
    Mismatch { name: String, detail: String },
    /// A cluster conversion (data across CTAs, or kept in each CTA in an
    /// order that depends on the CTA) that the cluster strategy cannot
    /// take: `what` says which of the two, `detail` why (another strategy
    /// was forced, or the target has no clusters).
    #[error("{name}: {what}; {detail}")]
    CrossCta {
        name: String,
        what: &'static str,
        detail: String,
    },
    #[error("{name}: strategy `{strategy}` does not apply: {detail}")]
    StrategyNotApplicable {
        name: String,
        /// The forced strategy (displays as its `--strategy` name).
        strategy: StrategyChoice,
        detail: String,
    },
    #[error("{name}: the shared-memory plan needs {need} bytes of scratch even with the most rounds its registers and warps allow; --max-smem allows {max}")]
    SmemTooLarge { name: String, need: u64, max: u64 },
    /// More elements per thread on one side than warpforge plans
    /// ([`crate::search::MAX_ELEMS_PER_THREAD`]).
    #[error("{name}: {elems} elements per thread in the {side} layout ({bits}-bit: {regs} 32-bit registers) is over the {limit} elements per thread warpforge plans: split the tile or spread it over more warps")]
    TooManyRegisters {
        name: String,
        side: &'static str,
        elems: u64,
        bits: u32,
        regs: u64,
        limit: u32,
    },
    #[error("{name}: its {form} form is predicted to peak at {peak} registers per thread ({data} of data), over --max-registers {max}")]
    OverRegisterCap {
        name: String,
        form: &'static str,
        peak: u32,
        data: u32,
        max: u32,
    },
    #[error("{name}: no candidate plan passed the simulator ({detail}); this is a warpforge bug, please report it")]
    NoVerifiedPlan { name: String, detail: String },
}

/// The hardware families of docs/ARCHITECTURE.md 4.1, and the kind of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Source and destination layouts are equal: nothing to do.
    Identity,
    /// Every thread already holds what it needs: register renaming only.
    Register,
    /// Data moves between lanes of a warp: selects and shuffles.
    Shuffle,
    /// Data moves between warps (or a shuffle plan does not apply): shared memory.
    Shared,
    /// Data moves between the CTAs of a cluster: distributed shared memory
    /// ([`cluster`]).
    Cluster,
}

impl Kind {
    /// Lower-case name (`identity`, `register`, `shuffle`, `shared`, `cluster`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::Identity => "identity",
            Kind::Register => "register",
            Kind::Shuffle => "shuffle",
            Kind::Shared => "shared",
            Kind::Cluster => "cluster",
        }
    }
}

/// One conversion to plan: both layouts in canonical form (in dims
/// `register, lane, warp, block`; out dims `dim0..`), plus what the emitter
/// Which strategies the search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StrategyChoice {
    /// The cheapest verified plan of any strategy.
    #[default]
    Auto,
    /// Only shuffle plans (or renames, when nothing moves between lanes).
    Shuffle,
    /// Only the shared-memory round trip (or renames when nothing moves).
    Shared,
    /// Only the cluster plan *writer stores remotely* (conversions across
    /// the CTAs of a cluster only, docs/ARCHITECTURE.md 4.7).
    #[serde(rename = "cluster-store")]
    ClusterStore,
    /// Only the cluster plan *reader loads remotely* (conversions across
    /// the CTAs of a cluster only, docs/ARCHITECTURE.md 4.7).
    #[serde(rename = "cluster-load")]
    ClusterLoad,
}

impl StrategyChoice {
    /// The name `--strategy` takes: `auto`, `shuffle`, `shared`,
    /// `cluster-store`, `cluster-load`.
    pub fn name(self) -> &'static str {
        match self {
            StrategyChoice::Auto => "auto",
            StrategyChoice::Shuffle => "shuffle",
            StrategyChoice::Shared => "shared",
            StrategyChoice::ClusterStore => "cluster-store",
            StrategyChoice::ClusterLoad => "cluster-load",
        }
    }
    /// Whether the choice is one of the cluster variants.
    pub fn is_cluster(self) -> bool {
        matches!(
            self,
            StrategyChoice::ClusterStore | StrategyChoice::ClusterLoad
        )
    }
}

impl std::fmt::Display for StrategyChoice {
    /// The `--strategy` name ([`StrategyChoice::name`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Every candidate plan for a conversion under a strategy choice; shared
/// memory plans for the element width and target in `opt`. This is the one
/// place strategies are registered.
pub fn candidates(an: &Analysis, choice: StrategyChoice, opt: &SharedOptions) -> Vec<Plan> {
    if an.class == Kind::Cluster {
        // only distributed shared memory moves data between CTAs
        return match choice {
            StrategyChoice::Auto | StrategyChoice::ClusterStore | StrategyChoice::ClusterLoad => {
                cluster::cluster_plans_for(an, choice, opt)
            }
            StrategyChoice::Shuffle | StrategyChoice::Shared => Vec::new(),
        };
    }
    if choice.is_cluster() {
        // the cluster plans move data between CTAs; nothing else does
        return Vec::new();
    }
    if let Some(p) = rename::rename_plan(an) {
        return vec![p];
    }
    let mut out = Vec::new();
    if choice != StrategyChoice::Shared {
        let mut element = shuffle_plans(an);
        element.extend(select::select_plan(an));
        out.extend(
            element
                .iter()
                .filter_map(|p| lift::lift(an, p, opt.elem_bits)),
        );
        out.extend(element);
        out.extend(gather::gather_plans(an, opt.elem_bits));
    }
    if choice != StrategyChoice::Shuffle {
        out.extend(shared_plans(an, opt));
    }
    out
}
