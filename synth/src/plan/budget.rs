//! The register budget of a helper (docs/ARCHITECTURE.md 4.6): how many
//! 32-bit registers per thread its data takes in each form, the predicted
//! peak of live registers when it runs inside a kernel that holds its tile,
//! and the limit the launch bounds set.
//!
//! The prediction is the data plus an overhead per plan family and form,
//! fitted to the register-budget loop kernels of `warpforge verify --gpu`
//! (NVIDIA H100, CUDA 13.0, `results/runs/2026-11-23-h100-loop-registers-6411028/verify.jsonl`: 438 spill-free
//! cases, the median of `loop registers - data registers` per family and
//! form). Against those 438 measurements the prediction is within 16
//! registers on 399, its error (measured - predicted) has median 0, 10th
//! percentile -9 and 90th percentile +14. It is a planning estimate, not a
//! bound: ptxas decides.

use super::{Kind, Plan};
use serde::Serialize;

/// Registers per thread a block of `threads` threads may use: 65,536 per
/// SM shared by the block, at most 255, allocated in units of 8 (CUDA C++
/// Programming Guide, "Compute Capabilities": 64K 32-bit registers per SM,
/// 255 per thread).
pub fn register_limit(threads: u32) -> u32 {
    let per = 65_536 / threads.max(1);
    if per >= 256 {
        255
    } else {
        per / 8 * 8
    }
}

/// The register limit of a block of `threads` threads under a requested
/// cap `max` (`--max-registers`): the launch bounds' limit
/// ([`register_limit`]), or `max` when lower (a larger value cannot raise
/// what the launch bounds allow).
pub fn capped_register_limit(max: Option<u32>, threads: u32) -> u32 {
    let limit = register_limit(threads);
    max.map_or(limit, |n| n.min(limit))
}

/// CTAs of `threads` threads that can be resident on one SM when each
/// thread holds `regs` registers, counting registers only: 65,536 per SM,
/// allocated per warp in units of 256 (8 per thread), at most 2,048
/// threads (sm_80, sm_90; 1,536 on sm_86/sm_89) and 32 CTAs per SM (CUDA
/// C++ Programming Guide, "Compute Capabilities"; the CUDA occupancy
/// calculator's register rule). Shared memory and the rest of the kernel
/// lower it further.
pub fn ctas_per_sm_by_registers(regs: u32, threads: u32) -> u32 {
    let threads = threads.max(1);
    let per_thread = regs.max(1).div_ceil(8) * 8;
    let warps = threads.div_ceil(32);
    let by_regs = 65_536 / (per_thread * 32 * warps);
    by_regs.min(2048 / threads).min(32)
}

/// 32-bit registers the data of one side takes: `elems` elements of `bits`,
/// one register per element (two per 64-bit element) in the element form,
/// `32 / bits` elements per register in the packed form (8/16-bit).
pub fn data_registers(elems: u32, bits: u32, packed: bool) -> u32 {
    if packed && bits < 32 {
        (elems * bits).div_ceil(32)
    } else {
        elems * bits.div_ceil(32).max(1)
    }
}

/// The predicted register peak of a plan in one form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RegisterPeak {
    /// Registers the larger side's data takes.
    pub data: u32,
    /// Predicted peak of live 32-bit registers per thread (data + overhead).
    pub peak: u32,
}

/// Median overhead over the data, by family and form (see the module doc).
fn overhead(kind: Kind, packed: bool) -> u32 {
    match (kind, packed) {
        (Kind::Identity | Kind::Register, false) => 8,
        (Kind::Identity | Kind::Register, true) => 16,
        (Kind::Shuffle, _) => 20,
        (_, false) => 16,
        (_, true) => 24,
    }
}

/// The predicted register peak of `plan` for elements of `bits` in the
/// element form (`packed = false`) or the packed form (8/16-bit only).
pub fn peak_registers(plan: &Plan, bits: u32, packed: bool) -> RegisterPeak {
    let n = plan.src_regs.max(plan.dst_regs);
    let data = data_registers(n, bits, packed);
    RegisterPeak {
        data,
        peak: data + overhead(plan.kind, packed && bits < 32),
    }
}

/// The predicted register peak of `plan` for `bits`-bit elements in the
/// form a caller should use: packed for 8/16-bit elements where the plan
/// has a packed form ([`Plan::packed_form`]), else elements; and whether
/// that form is the packed one.
pub fn preferred_peak(plan: &Plan, bits: u32) -> (RegisterPeak, bool) {
    let packed = bits < 32 && plan.packed_form(bits);
    (peak_registers(plan, bits, packed), packed)
}

/// CTAs of `threads` threads resident per SM by the predicted registers of
/// `plan`'s element form (one register per element) and of its packed form
/// for `bits`-bit elements, each peak clamped to the launch bounds' limit
/// ([`register_limit`], [`ctas_per_sm_by_registers`]); `None` for 32/64-bit
/// elements or a plan without a packed form for `bits`.
pub fn resident_ctas_by_form(plan: &Plan, bits: u32, threads: u32) -> Option<(u32, u32)> {
    if bits >= 32 || !plan.packed_form(bits) {
        return None;
    }
    let limit = register_limit(threads);
    let ctas = |packed: bool| {
        ctas_per_sm_by_registers(peak_registers(plan, bits, packed).peak.min(limit), threads)
    };
    Some((ctas(false), ctas(true)))
}

/// Elements per thread (each side) from which an element form holds the
/// caller's 8/16-bit arrays as 32-bit words ([`element_form_holds_words`];
/// `kernels`' `PUN_MIN_ELEMS` and `VIA_PACKED_MIN_ELEMS` for 8-bit data).
pub const WORDS_MIN_ELEMS: u32 = 16;

/// Which arrays of an element form (`T (&src)[N]`) move as the caller's
/// natural 32-bit words (16-bit data two at a time, an 8-byte `memcpy`;
/// 8-bit data one at a time) rather than
/// element by element; NVVM's scalar replacement then keeps such an array
/// in 32-bit registers (two 16-bit or four 8-bit elements each) across the
/// caller's code, its loop-carried values included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HeldWords {
    /// The source array (`src`).
    pub src: bool,
    /// The destination array (`dst`).
    pub dst: bool,
}

impl HeldWords {
    /// Both arrays as words.
    pub const BOTH: HeldWords = HeldWords {
        src: true,
        dst: true,
    };
    /// Neither: element by element.
    pub const NONE: HeldWords = HeldWords {
        src: false,
        dst: false,
    };
    /// The source array alone.
    pub const SRC: HeldWords = HeldWords {
        src: true,
        dst: false,
    };
    /// The destination array alone.
    pub const DST: HeldWords = HeldWords {
        src: false,
        dst: true,
    };
    /// Either array as words.
    pub fn any(self) -> bool {
        self.src || self.dst
    }
    /// The `warpforge::words` enumerator of this choice (`none`, `src`,
    /// `dst`, `both`).
    pub fn name(self) -> &'static str {
        match (self.src, self.dst) {
            (false, false) => "none",
            (true, false) => "src",
            (false, true) => "dst",
            (true, true) => "both",
        }
    }
}

/// Which arrays the element form (`T (&src)[N]`) of `plan` for `bits`-bit
/// elements in CTAs of `threads` threads moves as the caller's natural
/// 32-bit words ([`HeldWords`]), so that they take the packed form's
/// registers.
///
/// 8-bit: with at least [`WORDS_MIN_ELEMS`] elements per thread on each side,
/// where the plan moves data and has a packed form (the element form goes
/// through it) or packs bytes into words itself (a [`super::Stage::Pack`]
/// of width 8 first, whole words on both sides): `kernels`' element forms.
///
/// 16-bit: where the plan moves data (shuffles or shared memory) with at
/// least [`WORDS_MIN_ELEMS`] elements per thread on each side and has a
/// packed form, both arrays, read and written two natural words at a time
/// (an 8-byte `memcpy`, `kernels`' `detail::ld_dword`/`st_dword`), where
/// the packed form's words are the natural pairs on both sides (element
/// `2k` and `2k + 1` in word `k`, [`super::pack::PackMap::is_lowest`]: no
/// `prmt` reorders them; [`WordsRule::Natural`]) or where either array's
/// elements, one register each, exceed the launch bounds' limit less 16
/// ([`register_limit`]; [`WordsRule::Over`]: `prmt` reorder the words) or
/// where the plan's stores choose their registers by lane
/// ([`WordsRule::Split`]); where none of these holds but the plan packs
/// the elements into words itself ([`words_in_natural_order`]), both
/// arrays, not through the packed form: its first and last selects fold
/// into the `prmt` that build its words ([`WordsRule::Folded`]); where
/// the packed form's words are the natural pairs on one side only, both
/// arrays, `prmt` reordering the other side's words ([`WordsRule::OneSide`]);
/// element by element otherwise (words reordered on both sides, within the
/// limit).
///
/// Why 8 bytes (`results/runs/2026-11-27-h200-words-in-pairs-e882d04/`; inferred from the PTX of a
/// model loop, `results/runs/2026-11-27-h200-words-in-pairs-e882d04/local/nvvm_pairs.md`): NVVM's
/// scalar replacement widens an 8-byte slice of the caller's `short[N]`
/// into an integer, so that the caller's per-element work on an array held
/// as words folds into 32-bit operations (one `LOP3` per word for
/// `b[i] ^= 1`), and a loop-carried array crosses the loop edge as words, half
/// the registers; a 4-byte slice became a `<2 x i16>` vector on which the
/// caller's work stayed per half (an extract and an insert per element),
/// which is why earlier rules held words only where one register per
/// element would cost a CTA or spill, and one array only.
/// Why not where `prmt` reorder words within the limit: the reordering is
/// paid on every call, while element by element the caller's code folds
/// within an iteration. Measured with the reference harness h2h (Triton-like
/// addressing, `h2h_fair2.patch`, 256 round trips) on an H200 against the
/// earlier rules, element form / Triton, each row the earlier binary's or the
/// broader rule's (below) of one run, whichever code this rule emits
/// (`results/runs/2026-11-27-h200-words-in-pairs-e882d04/compose.py`): the corpus's 16-bit
/// conversions ran faster on the whole (most of all `transpose_f16_256x256`,
/// 32 warps, and `epilogue_f16_256x128`; one row, `colsum_trans:37`,
/// slightly slower), and so did the other 16-bit conversions of Triton's
/// layout tests, none of them slower by more than the harness's spread.
/// Holding both arrays also where `prmt` reorder words within the
/// limit (timed) was slower on several of those (most on a 4-warp mma v3 ->
/// 3-D dot operand, words reordered on both sides) and faster on only a
/// few; those few reorder one side only, which is the one-side rule
/// ([`WordsRule::OneSide`]; what it changed, timed with h2h:
/// `results/runs/2026-11-29-h200-words-one-side-d088bc8/`).
pub fn element_form_words(plan: &Plan, bits: u32, threads: u32) -> HeldWords {
    element_form_rule(plan, bits, threads).held()
}

/// Why [`element_form_words`] holds what it holds: the rule that applies to
/// `plan`'s element form for `bits`-bit elements in CTAs of `threads`
/// threads. Precedence ([`element_form_rule`]): `None` for too few elements
/// or no data moved, `Bytes`, `Natural`, `Split`, `Over`, then `Folded`,
/// then `OneSide`, else `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum WordsRule {
    /// Element by element: 32/64-bit data, fewer than [`WORDS_MIN_ELEMS`]
    /// elements per thread on a side, a plan that moves nothing or has no
    /// packed form, or 16-bit data whose words `prmt` reorder on both
    /// sides and whose arrays fit the limit less 16 (unless the plan packs
    /// the halves itself: [`WordsRule::Folded`]).
    None,
    /// 8-bit data through the packed form or the plan's own byte packing:
    /// both arrays.
    Bytes,
    /// 16-bit data of a plan that packs the elements into words itself
    /// ([`words_in_natural_order`], the `/words` shuffle plans) where no
    /// rule above applies (it would be [`WordsRule::None`]): both arrays,
    /// read and written two natural words at a time; the plan's words are
    /// built from them by `prmt` with lane-dependent selectors that fold
    /// its first and last word selects (not through the packed form; a
    /// caller's other `warpforge::words` choice goes through it).
    Folded,
    /// 16-bit data whose packed words are the natural pairs on both sides
    /// (no `prmt` reorders them): both arrays.
    Natural,
    /// 16-bit data with either array's elements, one register each, over
    /// the launch bounds' limit less 16 ([`register_limit`]): both arrays,
    /// `prmt` reordering the words.
    Over,
    /// 16-bit data whose packed words are the natural pairs on one side
    /// only, where no other rule applies (`Split`, `Over` and `Folded`
    /// come first): both arrays, `prmt` reordering the other side's words.
    OneSide,
    /// 16-bit data of a plan whose shared-memory stores choose their
    /// registers by lane or warp (split stores, [`super::SmemAccess::reg_xor`]):
    /// both arrays, `prmt` reordering the words where they are not the
    /// natural pairs. Through the packed form a select tree chooses each
    /// stored word ([`super::pack::store_word_choice`]); element by element
    /// it chooses each element, twice the selects, and holds both the
    /// elements and the chosen ones live.
    Split,
}

impl WordsRule {
    /// The arrays this rule holds as words.
    pub fn held(self) -> HeldWords {
        match self {
            WordsRule::None => HeldWords::NONE,
            WordsRule::Bytes
            | WordsRule::Folded
            | WordsRule::Natural
            | WordsRule::OneSide
            | WordsRule::Over
            | WordsRule::Split => HeldWords::BOTH,
        }
    }
}

/// The rule [`element_form_words`] applies ([`WordsRule`]).
pub fn element_form_rule(plan: &Plan, bits: u32, threads: u32) -> WordsRule {
    match through_packed_rule(plan, bits, threads) {
        WordsRule::None if bits == 16 && words_in_natural_order(plan) == Some(16) => {
            WordsRule::Folded
        }
        WordsRule::None if one_side_natural(plan, bits) => WordsRule::OneSide,
        rule => rule,
    }
}

/// Whether `plan`'s packed form for 16-bit elements (`bits`) takes the
/// natural pairs on exactly one side ([`WordsRule::OneSide`]), with at
/// least [`WORDS_MIN_ELEMS`] elements a side and data to move.
fn one_side_natural(plan: &Plan, bits: u32) -> bool {
    if bits != 16
        || !matches!(plan.kind, Kind::Shuffle | Kind::Shared)
        || plan.src_regs.min(plan.dst_regs) < WORDS_MIN_ELEMS
        || !plan.packed_form(bits)
    {
        return false;
    }
    let (src, dst) = super::pack::plan_maps(plan, bits);
    src.is_lowest() != dst.is_lowest()
}

/// [`element_form_rule`] before [`WordsRule::Folded`]: the rules of
/// element forms through the packed form, else element by element.
fn through_packed_rule(plan: &Plan, bits: u32, threads: u32) -> WordsRule {
    let moves = matches!(plan.kind, Kind::Shuffle | Kind::Shared);
    if plan.src_regs.min(plan.dst_regs) < WORDS_MIN_ELEMS {
        return WordsRule::None;
    }
    if bits == 8 {
        let w = (moves && plan.packed_form(8)) || byte_words_in_natural_order(plan);
        return if w { WordsRule::Bytes } else { WordsRule::None };
    }
    if bits != 16 || !moves || !plan.packed_form(bits) {
        return WordsRule::None;
    }
    let (src, dst) = super::pack::plan_maps(plan, bits);
    if src.is_lowest() && dst.is_lowest() {
        return WordsRule::Natural;
    }
    if plan.stores_by_lane_choice() {
        return WordsRule::Split;
    }
    // one register per element on a side over the limit less 16: spills
    // certain, words even where prmt reorder them
    let spare = register_limit(threads).saturating_sub(16);
    let over = |elems: u32| data_registers(elems, bits, false) > spare;
    if over(plan.src_regs) || over(plan.dst_regs) {
        WordsRule::Over
    } else {
        WordsRule::None
    }
}

/// The bytes per thread of the widest shared-memory store (vector or
/// `stmatrix`) of `plan` where its element form for `bits`-bit elements builds the stored
/// words by `prmt` (16-bit data whose packed source words are not the natural
/// pairs, [`super::pack::PackMap::is_lowest`]); 0 elsewhere (no preference).
/// The search ranks candidates that tie on everything the cost model sees
/// by it, narrower stores first ([`crate::search`]).
///
/// Why (measured with `warpforge bench` on an H200, 1024 round trips, one
/// call; see `results/runs/2026-11-27-h200-store-width-ce85994/`): on the 32-warp f16 transpose
/// (`stress_w32`), the element forms of the tied candidates ran slowest
/// with 16-byte stores both ways (`v4+v2`, the candidate ranked first
/// before), faster with 8-byte stores forward or backward alone, and
/// fastest with 8-byte stores both ways (`v2+v4`); 4-byte stores
/// (`b32+b32`, more instructions, not a tie) ran about as fast as `v2+v4`.
/// The packed forms of all of them ran alike: the difference is the `prmt`
/// that build each store's words from the caller's pairs, four before a
/// 16-byte store against two before an 8-byte one, in the phase where the
/// warps queue their stores (inferred from the SASS; not profiled).
pub fn element_form_store_bytes(plan: &Plan, bits: u32) -> u32 {
    if bits != 16 || plan.kind != Kind::Shared || !plan.packed_form(bits) {
        return 0;
    }
    if super::pack::plan_maps(plan, bits).0.is_lowest() {
        return 0;
    }
    plan.stages
        .iter()
        .filter_map(|s| match s {
            super::Stage::SmemStore { access } => Some(access.bytes()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Whether the element form of `plan` holds either array as words
/// ([`element_form_words`]).
pub fn element_form_holds_words(plan: &Plan, bits: u32, threads: u32) -> bool {
    element_form_words(plan, bits, threads).any()
}

/// Whether `plan` packs 8-bit elements into words itself (its first
/// [`super::Stage::Pack`] has width 8) with whole words and at least
/// [`WORDS_MIN_ELEMS`] elements per thread on both sides: its element form
/// reads and writes the caller's arrays as natural 32-bit words and builds
/// the plan's words from them by `prmt` (`kernels`' `word_pun`).
pub fn byte_words_in_natural_order(plan: &Plan) -> bool {
    words_in_natural_order(plan) == Some(8)
}

/// The element width (8 or 16) whose caller's arrays `plan`'s element form
/// reads and writes as natural 32-bit words and builds the plan's own
/// words from by `prmt` (`kernels`' `body_kir`): the width of its first
/// [`super::Stage::Pack`] where that is 8 or 16 bits, with whole words
/// (`32 / width` elements) and at least [`WORDS_MIN_ELEMS`] elements per
/// thread on both sides; `None` otherwise. A plan that packs elements
/// itself (the `/words` shuffle plans) selects and shuffles words; read as
/// natural words, the pack and the lane-dependent select after it fold into
/// one `prmt` with a lane-dependent selector, and the last select into the
/// `prmt` that builds each destination word, as Triton's transpositions do
/// (`getTranspositionSelectors`). At 16 bits only where that saves work:
/// the pack is followed by a word select (which folds into it) or packs
/// the natural pairs themselves (no `prmt` at all); a 16-bit pack of other
/// pairs straight into a shuffle stays element by element, where NVVM
/// folds the caller's per-element work and copies of broadcast registers
/// (`c2d_d2b2_mma2_1x64_f16` of Triton's layout tests took more `prmt` and
/// `lop3` as words; `results/runs/2026-11-28-h200-halves-fold-9889471/`).
pub fn words_in_natural_order(plan: &Plan) -> Option<u32> {
    let at = plan
        .stages
        .iter()
        .position(|s| matches!(s, super::Stage::Pack { .. }))?;
    let super::Stage::Pack { width, groups } = &plan.stages[at] else {
        return None;
    };
    let first_pack = *width;
    let per = match first_pack {
        8 => 4,
        16 => 2,
        _ => return None,
    };
    if first_pack == 16 {
        let natural = groups
            .iter()
            .all(|g| g.len() == 2 && g[0] % 2 == 0 && g[1] == g[0] + 1);
        let select_next = plan.stages[at + 1..]
            .iter()
            .find(|s| !matches!(s, super::Stage::RegRename { .. }))
            .is_some_and(|s| matches!(s, super::Stage::Select { .. }));
        if !natural && !select_next {
            return None;
        }
    }
    (plan.src_regs.is_multiple_of(per)
        && plan.dst_regs.is_multiple_of(per)
        && plan.src_regs.min(plan.dst_regs) >= WORDS_MIN_ELEMS)
        .then_some(first_pack)
}

/// The predicted register peak of `plan`'s element form for `bits`-bit
/// elements in CTAs of `threads` threads with the arrays
/// [`element_form_words`] holds as words ([`peak_registers_held`]), else
/// one register per element ([`peak_registers`] with `packed = false`).
/// The 32-warp transpose (both arrays over the limit less 16, both as
/// words): ~56, where `bench` measured its loop at 52 registers (~64 with
/// the destination alone as words, measured 50; see
/// `results/runs/2026-11-27-h200-words-in-pairs-e882d04/`). `bench` charges what this exceeds the
/// limit by as spills in a candidate's score (`Features::with_spill_of`).
pub fn element_form_peak(plan: &Plan, bits: u32, threads: u32) -> RegisterPeak {
    peak_registers_held(plan, bits, element_form_words(plan, bits, threads))
}

/// The predicted register peak of `plan`'s element form for `bits`-bit
/// elements with the arrays `held` as words packed as the packed form's
/// (two 16-bit or four 8-bit elements per register) and the others one
/// register per element. Both arrays as words: the packed form's peak.
/// One of them (8/16-bit data, a plan with a packed form): the larger of
/// the other array's elements, one register each (packed into or unpacked
/// from words at the call's boundary, outside the plan's moves), and the
/// packed form's peak (not the larger side's data plus the packed form's
/// overhead, which predicted far more than `bench` measured with the
/// destination alone on the 16-warp f16 epilogue and the 32-warp
/// transpose). Neither: the
/// element form's ([`peak_registers`] with `packed = false`). `data` is
/// the larger side's data in each case.
pub fn peak_registers_held(plan: &Plan, bits: u32, held: HeldWords) -> RegisterPeak {
    let data = data_registers(plan.src_regs, bits, held.src).max(data_registers(
        plan.dst_regs,
        bits,
        held.dst,
    ));
    let packed = held.any() && bits < 32;
    if packed && held != HeldWords::BOTH {
        // one side as words: the other side's elements are packed into (or
        // unpacked from) words at the call's boundary, outside the plan's
        // own moves, so the peak is the larger of that side's elements and
        // the packed form's peak
        let elements = if held.src {
            plan.dst_regs
        } else {
            plan.src_regs
        };
        return RegisterPeak {
            data,
            peak: data_registers(elements, bits, false).max(peak_registers(plan, bits, true).peak),
        };
    }
    RegisterPeak {
        data,
        peak: data + overhead(plan.kind, packed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_data() {
        assert_eq!(register_limit(32), 255);
        assert_eq!(register_limit(256), 255);
        assert_eq!(register_limit(512), 128);
        assert_eq!(register_limit(1024), 64);
        assert_eq!(data_registers(128, 64, false), 256);
        assert_eq!(data_registers(128, 16, false), 128);
        assert_eq!(data_registers(128, 16, true), 64);
        assert_eq!(data_registers(128, 8, true), 32);
        assert_eq!(data_registers(3, 8, true), 1);
    }

    #[test]
    fn resident_ctas_by_registers() {
        // 16 warps: 64 registers fit two CTAs, 65-128 one
        assert_eq!(ctas_per_sm_by_registers(64, 512), 2);
        assert_eq!(ctas_per_sm_by_registers(65, 512), 1);
        assert_eq!(ctas_per_sm_by_registers(128, 512), 1);
        // 8 warps: 80 registers fit three, 88 two
        assert_eq!(ctas_per_sm_by_registers(80, 256), 3);
        assert_eq!(ctas_per_sm_by_registers(86, 256), 2);
        // one warp: the 32-CTA limit
        assert_eq!(ctas_per_sm_by_registers(24, 32), 32);
        // 32 warps: at most the 2,048 threads
        assert_eq!(ctas_per_sm_by_registers(16, 1024), 2);
    }
}
