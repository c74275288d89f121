//! Which strategy, and which variant of it, built a plan ([`Strategy`],
//! [`super::Plan::strategy`]), as typed parts.
//!
//! A strategy's [`Display`](std::fmt::Display) (and its serialized form: the
//! same string) is the name `plan` prints and emitted headers state, e.g.
//! `shuffle/in-place/idx`, `shuffle/out-of-place/bfly/words`,
//! `shuffle/packed/own`, `shared/v4+b32/swz-ld/split2/r4/w1`,
//! `shared/x4.trans+v2/plain`, `cluster/remote-store/st4/ld2`,
//! `register/rename`, `identity`.

use std::fmt;
use std::num::NonZeroU32;

use serde::{Serialize, Serializer};

use super::ir::{ClusterVariant, SmemInstr};
use super::Kind;

pub use super::shared::layout::Swizzle;

/// Which strategy and variant built a plan. Displays (and serializes) as the
/// slash-separated name of its parts, family first: `identity`,
/// `register/rename`, `shuffle/...` ([`ShuffleStrategy`]), `shared/...`
/// ([`SharedStrategy`]), `cluster/...` ([`ClusterStrategy`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Source and destination layouts are equal: nothing to do
    /// (`identity`; `super::rename`).
    Identity,
    /// Every thread already holds what it needs: a compile-time register
    /// renaming (`register/rename`; `super::rename`).
    RegisterRename,
    /// Selects and warp shuffles (`shuffle/in-place/idx`, ...).
    Shuffle(ShuffleStrategy),
    /// A store/barrier/load round trip through the CTA's shared memory
    /// (`shared/v4+b32/swz-ld`, ...).
    Shared(SharedStrategy),
    /// Distributed shared memory between the CTAs of a cluster
    /// (`cluster/remote-store/st4/ld4`, ...).
    Cluster(ClusterStrategy),
}

impl Strategy {
    /// The family the name starts with: [`Kind::Identity`] (`identity`),
    /// [`Kind::Register`] (`register/..`), [`Kind::Shuffle`] (`shuffle/..`),
    /// [`Kind::Shared`] (`shared/..`) or [`Kind::Cluster`] (`cluster/..`).
    /// Not always the plan's [`super::Plan::kind`]: a shuffle plan that
    /// shuffles nothing is of kind [`Kind::Register`].
    pub fn family(&self) -> Kind {
        match self {
            Strategy::Identity => Kind::Identity,
            Strategy::RegisterRename => Kind::Register,
            Strategy::Shuffle(_) => Kind::Shuffle,
            Strategy::Shared(_) => Kind::Shared,
            Strategy::Cluster(_) => Kind::Cluster,
        }
    }
    /// The shuffle parts, for a shuffle strategy.
    pub fn shuffle(&self) -> Option<&ShuffleStrategy> {
        match self {
            Strategy::Shuffle(s) => Some(s),
            _ => None,
        }
    }
    /// The shared-memory parts, for a shared-memory strategy.
    pub fn shared(&self) -> Option<&SharedStrategy> {
        match self {
            Strategy::Shared(s) => Some(s),
            _ => None,
        }
    }
    /// The cluster parts, for a cluster strategy.
    pub fn cluster(&self) -> Option<&ClusterStrategy> {
        match self {
            Strategy::Cluster(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Strategy {
    /// The strategy's name, e.g. `shuffle/in-place/idx` (width, fill and
    /// alignment flags apply to the whole name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Strategy::Identity => "identity".to_string(),
            Strategy::RegisterRename => "register/rename".to_string(),
            Strategy::Shuffle(s) => format!("shuffle/{s}"),
            Strategy::Shared(s) => format!("shared/{s}"),
            Strategy::Cluster(s) => format!("cluster/{s}"),
        };
        f.pad(&name)
    }
}

impl Serialize for Strategy {
    /// As its [`Display`](fmt::Display) string (`"shuffle/in-place/idx"`).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The parts of a shuffle strategy: `{variant}/{mode}` and `/words` when
/// lifted, e.g. `in-place/idx`, `out-of-place/bfly/words`, `packed/own`
/// (after the family's `shuffle/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShuffleStrategy {
    /// How the registers are exchanged (`in-place`, `out-of-place`,
    /// `packed`).
    pub variant: ShuffleVariant,
    /// The shuffle's addressing (`idx`, `bfly`; `own` for packed plans that
    /// shuffle nothing).
    pub mode: ShuffleMode,
    /// Whether an element plan (in-place or out-of-place) was lifted to run
    /// on 32-bit words of 8- or 16-bit elements (`super::lift`): the
    /// `/words` suffix. Never set for [`ShuffleVariant::Packed`].
    pub words: bool,
}

impl ShuffleStrategy {
    /// The element plan `variant`/`mode`, not lifted to words.
    pub fn elements(variant: ShuffleVariant, mode: ShuffleMode) -> ShuffleStrategy {
        ShuffleStrategy {
            variant,
            mode,
            words: false,
        }
    }
}

impl fmt::Display for ShuffleStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.variant, self.mode)?;
        if self.words {
            f.write_str("/words")?;
        }
        Ok(())
    }
}

/// Which shuffle plan (`super::shuffle`, `super::gather`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleVariant {
    /// `in-place`: each register<->lane transposition as select, shuffle,
    /// select on the register array (`super::shuffle`).
    InPlace,
    /// `out-of-place`: one transposition with a trivial lane permutation,
    /// 1.5 R selects and 0.5 R shuffles into a new array (`super::shuffle`).
    OutOfPlace,
    /// `packed`: 32-bit words of 8- or 16-bit elements, each destination
    /// word built by `prmt` from shuffled source words (`super::gather`).
    Packed,
    /// `select`: every lane holds what it needs, in registers chosen by
    /// lane selects, no shuffle (`super::select`).
    Select,
}

impl fmt::Display for ShuffleVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShuffleVariant::InPlace => "in-place",
            ShuffleVariant::OutOfPlace => "out-of-place",
            ShuffleVariant::Packed => "packed",
            ShuffleVariant::Select => "select",
        })
    }
}

/// The shuffle addressing a shuffle strategy names (see
/// [`super::ShflMode`] for the instruction's own modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// `idx`: `shfl.sync.idx`, the lane permutation folded into the source
    /// lane.
    Idx,
    /// `bfly`: `shfl.sync.bfly`, the lane permutation is trivial.
    Bfly,
    /// `own`: no shuffle at all, every word comes from the own lane (packed
    /// plans whose destination words need only `prmt`, select plans).
    Own,
}

impl fmt::Display for ShuffleMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShuffleMode::Idx => "idx",
            ShuffleMode::Bfly => "bfly",
            ShuffleMode::Own => "own",
        })
    }
}

/// The parts of a shared-memory strategy (`super::shared`):
/// `{store}+{load}/{swizzle}`, then `/split{k}`, `/r{n}` and `/w{k}` where
/// they apply, e.g. `v4+b32/swz-ld`, `x4.trans+v2/plain/r2/w1`,
/// `b32+u16/swz-st/split2` (after the family's `shared/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedStrategy {
    /// The store's instruction form (`v4`, `x4`, ...).
    pub store: SmemForm,
    /// The load's instruction form (`b32`, `x2.trans`, ...).
    pub load: SmemForm,
    /// How the shared layout's bank bits are chosen (`plain`, `swz-st`,
    /// `swz-ld`).
    pub swizzle: Swizzle,
    /// Lane and warp bits whose broadcast copies store different registers
    /// (the store's nonzero `reg_xor` columns, [`super::SmemAccess::reg_xor`]):
    /// `/split{k}`; `None`: every copy stores the same registers (no suffix).
    pub split: Option<NonZeroU32>,
    /// Store/barrier/load rounds the scratch is used in, a power of two
    /// (the plan's [`super::Plan::rounds`]): `/r{n}` when more than one.
    pub rounds: NonZeroU32,
    /// Round bits taken over source warp bits (the warps store in turn):
    /// `/w{k}`; `None`: no round goes over warps (no suffix).
    pub warp_rounds: Option<NonZeroU32>,
}

impl fmt::Display for SharedStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}/{}", self.store, self.load, self.swizzle.name())?;
        if let Some(k) = self.split {
            write!(f, "/split{k}")?;
        }
        if self.rounds.get() > 1 {
            write!(f, "/r{}", self.rounds)?;
        }
        if let Some(k) = self.warp_rounds {
            write!(f, "/w{k}")?;
        }
        Ok(())
    }
}

/// The instruction form one side of a shared-memory round trip uses, as a
/// strategy names it: a vector width (`u8`, `u16`, `b32`, `v2`, `v4`) or a
/// matrix form (`x1`, `x2`, `x4`, with `.trans`: `x4.trans`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SmemForm {
    /// `st/ld.shared` of one vector per thread ([`SmemInstr::Vector`]).
    Vector(VectorWidth),
    /// `stmatrix`/`ldmatrix .x{count}[.trans]` ([`SmemInstr::Matrix`]):
    /// `x{count}`, `x{count}.trans`.
    Matrix {
        /// 8x8 matrices per instruction: 1, 2 or 4.
        count: u32,
        /// Whether the matrices are transposed (`.trans`, 16-bit cells).
        trans: bool,
    },
}

impl SmemForm {
    /// The form of an access by `instr` moving `bits` bits per thread and
    /// instruction (vectors; a matrix form's name does not depend on it).
    pub fn of(instr: SmemInstr, bits: u32) -> SmemForm {
        match instr {
            SmemInstr::Vector => SmemForm::Vector(VectorWidth::of_bits(bits)),
            SmemInstr::Matrix { count, trans } => SmemForm::Matrix { count, trans },
        }
    }
}

impl fmt::Display for SmemForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SmemForm::Vector(v) => write!(f, "{v}"),
            SmemForm::Matrix { count, trans } => {
                write!(f, "x{count}{}", if *trans { ".trans" } else { "" })
            }
        }
    }
}

/// Bits per thread of one vector `st/ld.shared`, as a strategy names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VectorWidth {
    /// `u8`: 8 bits (`.u8`).
    U8,
    /// `u16`: 16 bits (`.u16`).
    U16,
    /// `b32`: 32 bits (`.b32`).
    B32,
    /// `v2`: 64 bits (`.v2.b32`).
    V2,
    /// `v4`: 128 bits (`.v4.b32`).
    V4,
}

impl VectorWidth {
    /// The width of a vector of `bits` bits (8 to 128; anything else over
    /// 64 is `v4`).
    pub fn of_bits(bits: u32) -> VectorWidth {
        match bits {
            8 => VectorWidth::U8,
            16 => VectorWidth::U16,
            32 => VectorWidth::B32,
            64 => VectorWidth::V2,
            _ => VectorWidth::V4,
        }
    }
    /// Bits per thread: 8, 16, 32, 64 or 128.
    pub fn bits(self) -> u32 {
        match self {
            VectorWidth::U8 => 8,
            VectorWidth::U16 => 16,
            VectorWidth::B32 => 32,
            VectorWidth::V2 => 64,
            VectorWidth::V4 => 128,
        }
    }
}

impl fmt::Display for VectorWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VectorWidth::U8 => "u8",
            VectorWidth::U16 => "u16",
            VectorWidth::B32 => "b32",
            VectorWidth::V2 => "v2",
            VectorWidth::V4 => "v4",
        })
    }
}

/// The parts of a cluster strategy (`super::cluster`):
/// `{direction}/st{store}/ld{load}`, e.g. `remote-store/st4/ld2`,
/// `remote-load/st1/ld4` (after the family's `cluster/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClusterStrategy {
    /// Which side accesses other CTAs' scratch: the writer
    /// ([`ClusterVariant::StoreRemote`], `remote-store`) or the reader
    /// ([`ClusterVariant::LoadRemote`], `remote-load`).
    pub direction: ClusterVariant,
    /// Elements per store instruction (a power of two): `st{store}`.
    pub store: u32,
    /// Elements per load instruction (a power of two): `ld{load}`.
    pub load: u32,
    /// Whether the scratch offsets are swizzled (`plan::cluster`, module
    /// docs "Swizzle"): `/swz`.
    pub swizzle: bool,
}

impl fmt::Display for ClusterStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = match self.direction {
            ClusterVariant::StoreRemote => "remote-store",
            ClusterVariant::LoadRemote => "remote-load",
        };
        write!(f, "{dir}/st{}/ld{}", self.store, self.load)?;
        if self.swizzle {
            write!(f, "/swz")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nz(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    /// Every shape of name the planners build, as they spelled it as strings.
    #[test]
    fn names_are_the_planners_strings() {
        let sh = |variant, mode, words| {
            Strategy::Shuffle(ShuffleStrategy {
                variant,
                mode,
                words,
            })
        };
        use ShuffleMode::*;
        use ShuffleVariant::*;
        let v = |b| SmemForm::Vector(VectorWidth::of_bits(b));
        let shared = |store, load, swizzle, split: u32, rounds, warp_rounds: u32| {
            Strategy::Shared(SharedStrategy {
                store,
                load,
                swizzle,
                split: NonZeroU32::new(split),
                rounds: nz(rounds),
                warp_rounds: NonZeroU32::new(warp_rounds),
            })
        };
        let cases = [
            (Strategy::Identity, "identity"),
            (Strategy::RegisterRename, "register/rename"),
            (sh(InPlace, Idx, false), "shuffle/in-place/idx"),
            (sh(InPlace, Bfly, true), "shuffle/in-place/bfly/words"),
            (sh(OutOfPlace, Bfly, false), "shuffle/out-of-place/bfly"),
            (
                sh(OutOfPlace, Bfly, true),
                "shuffle/out-of-place/bfly/words",
            ),
            (sh(Packed, Idx, false), "shuffle/packed/idx"),
            (sh(Packed, Own, false), "shuffle/packed/own"),
            (
                shared(v(128), v(32), Swizzle::LoadFirst, 0, 1, 0),
                "shared/v4+b32/swz-ld",
            ),
            (
                shared(
                    SmemForm::Matrix {
                        count: 4,
                        trans: true,
                    },
                    v(64),
                    Swizzle::LoadFirst,
                    0,
                    1,
                    0,
                ),
                "shared/x4.trans+v2/swz-ld",
            ),
            (
                shared(
                    v(8),
                    SmemForm::Matrix {
                        count: 2,
                        trans: false,
                    },
                    Swizzle::Plain,
                    2,
                    4,
                    1,
                ),
                "shared/u8+x2/plain/split2/r4/w1",
            ),
            (
                shared(v(16), v(32), Swizzle::StoreFirst, 0, 2, 0),
                "shared/u16+b32/swz-st/r2",
            ),
            (
                Strategy::Cluster(ClusterStrategy {
                    direction: ClusterVariant::StoreRemote,
                    store: 4,
                    load: 2,
                    swizzle: false,
                }),
                "cluster/remote-store/st4/ld2",
            ),
            (
                Strategy::Cluster(ClusterStrategy {
                    direction: ClusterVariant::LoadRemote,
                    store: 1,
                    load: 4,
                    swizzle: true,
                }),
                "cluster/remote-load/st1/ld4/swz",
            ),
        ];
        for (s, want) in cases {
            assert_eq!(s.to_string(), want);
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{want}\""));
            assert_eq!(s.family().as_str(), want.split('/').next().unwrap());
        }
        // padding applies to the whole name, as it did to the string
        assert_eq!(
            format!("[{:<22}]", sh(InPlace, Idx, false)),
            "[shuffle/in-place/idx  ]"
        );
    }

    #[test]
    fn vector_widths_round_trip_their_bits() {
        for b in [8, 16, 32, 64, 128] {
            assert_eq!(VectorWidth::of_bits(b).bits(), b);
        }
    }
}
