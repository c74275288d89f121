//! The register budget of a helper (docs/ARCHITECTURE.md 4.6): how many
//! 32-bit registers per thread its data takes in each form, the predicted
//! peak of live registers when it runs inside a kernel that holds its tile,
//! and the limit the launch bounds set.
//!
//! The prediction is the data plus an overhead per plan family and form,
//! fitted to the register-budget loop kernels of `warpforge verify --gpu`
//! (NVIDIA H100, CUDA 13.0, `results/resources/verify_gpu_h100_4fe1f54.jsonl`: 438 spill-free
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
/// natural 32-bit words (a 4-byte `memcpy` per word) rather than element by
/// element; NVVM's scalar replacement then keeps such an array in 32-bit
/// registers (two 16-bit or four 8-bit elements each) across the caller's
/// code, its loop-carried values included.
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
/// 16-bit: where the plan moves data (shuffles or shared
/// memory) with at least [`WORDS_MIN_ELEMS`] elements per thread on each
/// side and has a packed form: where its words are the natural pairs on both
/// sides (element `2k` and `2k + 1` in word `k`,
/// [`super::pack::PackMap::is_lowest`]: no `prmt` reorders the caller's
/// words), the destination array where one register per
/// element is predicted to leave a single CTA resident per SM by registers
/// ([`resident_ctas_by_form`]) and the destination as words two or more
/// ([`WordsRule::Occupancy`]); else, in any word order (`prmt` reorder the
/// words where they are not the natural pairs), the source array where its
/// elements alone, one register each, exceed the launch bounds' limit less
/// 16 ([`register_limit`]) while the destination's stay within it, and the
/// destination array where both sides' elements exceed it.
///
/// Why one CTA: a shared-memory round trip waits at CTA-wide barriers
/// (`bar.sync`), and with one resident CTA nothing else runs on the SM while
/// its warps wait; with two, the other CTA's warps issue meanwhile. Words
/// halve the registers of the data, but the caller's per-element work on them
/// becomes a `prmt` extract and insert per element (NVVM does not
/// vectorize it, where Triton's LLVM pipeline does). Measured with `warpforge
/// bench` on an H100 (`results/resources_h100.md`, fourth and sixth passes):
/// `stress_w16`'s `epilogue_f16_256x128` (16 warps, 64 halves per thread,
/// one CTA by 97 registers, two by 64) 1.180x -> 1.027x Triton's time; where
/// one register per element still leaves two or more CTAs the words lost on
/// 20 of 26 16-bit conversions (`attn:114`, 8 warps, two CTAs against four:
/// 1.078x -> 1.197x), where reordering the words costs `prmt` even one CTA
/// against two lost (`stress_w8`'s `epilogue_f16_t_128x256`, 128 `prmt`:
/// 0.803x -> 0.939x), and at 32 warps (one CTA either way, the data alone at
/// the 64-register limit) holding 4 to 32 of the 32 pairs as words took
/// `transpose_f16_256x256` from 1.25x to 1.39-1.69x.
/// Why the destination alone there (sixteenth pass; both arrays before):
/// the caller's array that the destination replaces in a loop is written
/// as words either way and read back element by element at no extra cost
/// (the reads become the `prmt` that pack it), while a source read as words
/// costs a `prmt` more per word the caller worked on. Measured on an H100
/// over the six 16-bit conversions of every corpus and test file the rule
/// holds for (`results/resources_h100.md`, sixteenth pass), both -> the
/// destination, element form / Triton: `warpforge bench` faster on all six
/// (`epilogue_f16_256x128` 1.024x -> 1.018x, a 16-warp mma v3 -> mma v2
/// 1.059x -> 1.033x, ...); h2h (both directions of each, 12 rows) the same
/// geomean (1.153x), 5 rows faster and 7 slower: `epilogue_f16_256x128`
/// 1.245x -> 1.217x (1.205x before issue 23's rules in the same call; the
/// whole corpus against them, 1.212x -> 1.208x), the worst a reverse row
/// of Triton's tests 1.19x -> 1.27x; h2h's loops sit at their register
/// limit, and two rows spill more (an 8-warp reverse row 2 -> 131 `LDL`+`STL`,
/// 0.87x -> 0.90x; a 16-warp row 0 -> 70, 1.15x -> 1.12x).
/// Why the source over the limit: its spills are certain, and a kernel
/// keeps the tile it converts (an accumulator, a loop-carried tile) across
/// its loop together with state of its own, where ptxas can give up on
/// registers altogether. Measured with the reference harness h2h on an H100
/// over conversions of Triton's Gluon tests (`tests/data/triton_lowerings.ttgir`,
/// `results/resources_h100.md`, ninth pass), element by element against
/// this rule in one run: a 16-warp mma v3 -> mma v3 conversion of 128 halves
/// per thread to 32 44.1x -> 1.41x Triton's time (32 registers and 2,599
/// `LDL`/`STL` element by element: ptxas's fallback), a 4-warp dot operand
/// conversion of 256 halves to 64 38.9x -> 0.80x, two more 1.56x -> 1.01x
/// and 0.84x -> 0.74x. The price is paid where the caller works on that
/// array element by element (h2h's reverse call converts its worked array
/// back): 11 such rows 0.78-1.16x -> 1.00-1.39x. Holding a destination
/// over the limit as words as well cost those rows more (1.17-1.59x) for
/// little more gain.
/// Why the destination where both are over (fifteenth pass): element by
/// element the round trip spills on every such conversion, and the
/// destination as words is what every caller gets back in half the
/// registers (a loop carries it into the next iteration, a next call reads
/// it), while the source stays as the caller made it. Measured on an H100
/// over the 7 such conversions (3 of Triton's tests, 3 of 32-warp random
/// conversions, the 32-warp stress transpose; `results/resources_h100.md`,
/// fifteenth pass), element form /
/// Triton in h2h before -> after: `sw29_dot2_blocked_256x256_bf16_w32` (128
/// and 64 halves at 64 registers) 7.25x -> 0.61x, a 32-warp blocked -> mma
/// v3 of 64 halves each side 2.42x -> 1.25x, a 32-warp dot operand -> dot
/// operand of 256 halves each side 1.35x -> 0.41x, the 32-warp 256x256
/// transpose 1.41x -> 1.35x, two 16-warp mma v2 -> mma v2 of 128 halves
/// 1.44x -> 1.29x and 1.32x -> 1.28x, a 4-warp dot operand -> slice of a 3-D
/// dot operand of 256 halves each side 0.646x -> 0.665x; in a register-major loop (`bench`'s
/// shape) the same 7 improved or stayed (e.g. 14.1x -> 1.49x, 2.39x ->
/// 1.16x the packed form's time). Both arrays as words was slower there
/// than the destination alone on 6 of the 7 and the same on the seventh
/// (the source as well costs a `prmt` per element the caller works on); the
/// header names `warpforge::words` for the caller who knows which array it
/// carries.
pub fn element_form_words(plan: &Plan, bits: u32, threads: u32) -> HeldWords {
    element_form_rule(plan, bits, threads).held()
}

/// Why [`element_form_words`] holds what it holds: the rule that applies to
/// `plan`'s element form for `bits`-bit elements in CTAs of `threads`
/// threads (the first that matches, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum WordsRule {
    /// Element by element: 32/64-bit data, fewer than [`WORDS_MIN_ELEMS`]
    /// elements per thread on a side, a plan that moves nothing or has no
    /// packed form, or 16-bit data no rule below holds.
    None,
    /// 8-bit data through the packed form or the plan's own byte packing:
    /// both arrays.
    Bytes,
    /// 16-bit data whose packed words are the natural pairs on both sides,
    /// where one register per element is predicted to leave one CTA of
    /// `threads` resident per SM and the destination as words (the source
    /// read element by element, [`peak_registers_held`]) `word_ctas` (two
    /// or more): the destination.
    Occupancy {
        /// CTAs resident per SM by the predicted registers of the element
        /// form with the destination as words.
        word_ctas: u32,
    },
    /// 16-bit data whose source elements alone, one register each, exceed
    /// the launch bounds' limit less 16 while the destination's do not:
    /// the source.
    SourceOver,
    /// 16-bit data whose source and destination elements each exceed the
    /// limit less 16: the destination.
    BothOver,
}

impl WordsRule {
    /// The arrays this rule holds as words.
    pub fn held(self) -> HeldWords {
        match self {
            WordsRule::None => HeldWords::NONE,
            WordsRule::Bytes => HeldWords::BOTH,
            WordsRule::SourceOver => HeldWords::SRC,
            WordsRule::Occupancy { .. } | WordsRule::BothOver => HeldWords::DST,
        }
    }
}

/// The rule [`element_form_words`] applies ([`WordsRule`]).
pub fn element_form_rule(plan: &Plan, bits: u32, threads: u32) -> WordsRule {
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
    let natural = src.is_lowest() && dst.is_lowest();
    if natural {
        if let Some((1, _)) = resident_ctas_by_form(plan, bits, threads) {
            // what the destination as words leaves (the source's elements
            // at the call's boundary count); where that is still one CTA the
            // rule does not apply (no conversion of the corpus and test
            // files: the six it holds for leave two)
            let d = peak_registers_held(plan, bits, HeldWords::DST).peak;
            let d = ctas_per_sm_by_registers(d.min(register_limit(threads)), threads);
            if d >= 2 {
                return WordsRule::Occupancy { word_ctas: d };
            }
        }
    }
    // one register per element on a side over the limit less 16: spills
    // certain on that side, words even where prmt reorder them
    let spare = register_limit(threads).saturating_sub(16);
    let over = |elems: u32| data_registers(elems, bits, false) > spare;
    match (over(plan.src_regs), over(plan.dst_regs)) {
        (true, false) => WordsRule::SourceOver,
        // both over: the destination, the array a loop carries back or the
        // next call reads, leaves the helper as words
        (true, true) => WordsRule::BothOver,
        _ => WordsRule::None,
    }
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
    let first_pack = plan.stages.iter().find_map(|s| match s {
        super::Stage::Pack { width, .. } => Some(*width),
        _ => None,
    });
    first_pack == Some(8)
        && plan.src_regs.is_multiple_of(4)
        && plan.dst_regs.is_multiple_of(4)
        && plan.src_regs.min(plan.dst_regs) >= WORDS_MIN_ELEMS
}

/// The predicted register peak of `plan`'s element form for `bits`-bit
/// elements in CTAs of `threads` threads with the arrays
/// [`element_form_words`] holds as words ([`peak_registers_held`]), else
/// one register per element ([`peak_registers`] with `packed = false`).
/// The 32-warp transpose (both arrays over the limit less 16, the
/// destination as words): ~64, where `bench` measured its loop at 50
/// registers (fifteenth pass; ~88 before the sixteenth pass's one-side
/// formula). `bench` charges what this exceeds the limit by as spills in a
/// candidate's score (`Features::with_spill_of`).
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
/// packed form's peak (sixteenth pass; before, the larger side's data plus
/// the packed form's overhead: ~88 with the destination alone on the
/// 16-warp f16 epilogue and the 32-warp transpose, where `bench` measured
/// 64 and 50). Neither: the
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
