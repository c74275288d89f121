//! The element form of 8/16-bit data through the packed form: the caller's
//! `T` arrays (both, or the one the caller names: [`Words`]) are read and
//! written as natural 32-bit words (`memcpy`,
//! element `r` in slot `r % p` of word `r / p`, `p = 32 / bits`), `prmt`
//! programs reorder those words into the packed form's word order
//! ([`synth::plan::pack::PackMap`]) and back, and the packed form does the
//! conversion on words.
//!
//! Why: an array of `__half` or `int8_t` costs one 32-bit register per
//! element, and a helper that packs and unpacks element by element keeps
//! both sides' elements and the packed words live at once. Reading the
//! arrays as words makes NVVM keep them in 32-bit registers (the caller's
//! loop-carried arrays included), so the element form costs what the packed
//! form costs plus at most one `prmt` per word on each side whose packed
//! order is not the natural one (DESIGN.md 4.6, "Sub-word data": pack at the
//! first use, unpack at the last; `docs/ARCHITECTURE.md` section 5).

use crate::prmt::prmt_program;
use synth::plan::pack::{PackMap, Piece};

/// Elements per thread (each side) from which the element form of 8-bit
/// data goes through the packed form: the same threshold as the natural-word
/// element form of lifted 8-bit plans ([`super::PUN_MIN_ELEMS`]): below it
/// NVVM already folds the caller's per-element work into words.
pub const VIA_PACKED_MIN_ELEMS: u32 = super::PUN_MIN_ELEMS;

/// Which of the element form's two arrays move as natural 32-bit words:
/// `src` read two words at a time by an 8-byte `memcpy`
/// ([`load_natural_words`]), `dst` written so ([`store_natural_words`]); an
/// array that does not is read (written) element by element, each packed
/// into (taken out of) the packed form's words by shifts. The C++ side is
/// `warpforge::words` (the helper's second template parameter). The same
/// choice the planner makes for `automatic` ([`synth::plan::HeldWords`]).
pub type Words = synth::plan::HeldWords;

/// The explicit choices a caller can name that go through the packed form,
/// as `warpforge::words` enumerators (`none` is the element-by-element
/// body, not this module's).
pub const WORD_CHOICES: [Words; 3] = [
    Words {
        src: true,
        dst: false,
    },
    Words {
        src: false,
        dst: true,
    },
    Words::BOTH,
];

/// The statements of the element form for `bits`-bit elements (8 or 16)
/// that calls `packed` (the packed form's name), whose source words are
/// packed by `src_map` and destination words by `dst_map`; `src_regs` /
/// `dst_regs` elements per thread (multiples of `32 / bits`); `smem`
/// whether the packed form takes the scratch pointer; `words` which arrays
/// move as natural words (a `prmt` program reorders them to and from the
/// packed form's word order; the other array's elements are packed and
/// unpacked by shifts, as the element-by-element body does). Returns the
/// lines and the number of `prmt` they contain (what the form costs beyond
/// the packed form).
pub(crate) fn body_via_packed(
    packed: &str,
    bits: u32,
    src_regs: u32,
    dst_regs: u32,
    src_map: &PackMap,
    dst_map: &PackMap,
    smem: bool,
    words: Words,
) -> (Vec<String>, usize) {
    let per = 32 / bits;
    let (sw, dw) = (src_regs / per, dst_regs / per);
    let mut out = Vec::new();
    let mut temps = 0usize;
    let mut prmt = 0usize;
    // Where the packed order is the natural one, the words pass as they are.
    let natural = |names: &[String], array: &str| {
        names
            .iter()
            .enumerate()
            .all(|(k, n)| *n == format!("{array}[{k}]"))
    };
    let src_arg = if words.src {
        out.push(format!("unsigned src_w[{sw}];"));
        out.extend(load_natural_words("src_w", sw, per));
        // Packed source word k, slot s: register r = src_map.register(k, s),
        // which sits in natural word r / per, slot r % per.
        let src_words: Vec<Vec<Piece<String>>> = (0..sw)
            .map(|k| {
                (0..per)
                    .map(|s| {
                        let r = src_map.register(k, s);
                        Piece {
                            key: format!("src_w[{}]", r / per),
                            slot: r % per,
                        }
                    })
                    .collect()
            })
            .collect();
        let before = out.len();
        let ps = prmt_program(&mut out, &mut temps, &src_words, bits);
        prmt += out.len() - before;
        if natural(&ps, "src_w") {
            "src_w"
        } else {
            out.push(format!(
                "const unsigned pk_src[{sw}] = {{{}}};",
                ps.join(", ")
            ));
            "pk_src"
        }
    } else {
        // Packed source word k from the elements it holds.
        let ws: Vec<String> = (0..sw)
            .map(|k| {
                let vals: Vec<String> = (0..per)
                    .map(|s| format!("src[{}]", src_map.register(k, s)))
                    .collect();
                super::words::pack_words(&vals, bits).remove(0)
            })
            .collect();
        out.push(format!(
            "const unsigned pk_src[{sw}] = {{{}}};",
            ws.join(", ")
        ));
        "pk_src"
    };
    out.push(format!("unsigned pk_dst[{dw}];"));
    out.push(format!(
        "{packed}({src_arg}, pk_dst{});",
        if smem { ", smem" } else { "" }
    ));
    if words.dst {
        // Natural destination word j, slot s: register r = j * per + s, which
        // the packed form left in word/slot dst_map.word_slot(r).
        let dst_words: Vec<Vec<Piece<String>>> = (0..dw)
            .map(|j| {
                (0..per)
                    .map(|s| {
                        let (w, sl) = dst_map.word_slot(j * per + s);
                        Piece {
                            key: format!("pk_dst[{w}]"),
                            slot: sl,
                        }
                    })
                    .collect()
            })
            .collect();
        let before = out.len();
        let ds = prmt_program(&mut out, &mut temps, &dst_words, bits);
        prmt += out.len() - before;
        out.extend(store_natural_words(&ds, per));
    } else {
        // Each destination element out of the word and slot it was left in.
        for r in 0..dst_regs {
            let (w, sl) = dst_map.word_slot(r);
            let word = format!("pk_dst[{w}]");
            let e = super::words::unpack_words(std::slice::from_ref(&word), bits, per as usize);
            out.push(format!("dst[{r}] = {};", e[sl as usize]));
        }
    }
    (out, prmt)
}

/// Whether natural words of elements `per` to a word move two at a time
/// (an 8-byte `memcpy`): 16-bit data (`per` 2) only.
///
/// 16-bit: NVVM's scalar replacement (SROA) widens a 64-bit slice of a
/// `short[N]` array into an integer, so that the caller's per-element work
/// on the array folds into 32-bit operations, where a 4-byte slice becomes
/// a `<2 x i16>` vector on which it stays per half (measured: see
/// `results/runs/2026-11-27-h200-words-in-pairs-e882d04/`). 8-bit: one 4-byte word at a time; 8-byte
/// pairs changed NVVM's loop code on six of the corpus's and stress files'
/// seven 8-bit conversions and were slower on three of them, while no form
/// was slower with single words (measured with h2h on an H200; see
/// `results/runs/2026-11-27-h200-store-width-ce85994/e8_words8/`).
fn in_pairs(per: u32) -> bool {
    per == 2
}

/// The `words` natural 32-bit words of the caller's source array (`per`
/// elements a word) into `array[0..words]`: for 16-bit data two consecutive
/// words at a time by `detail::ld_dword` (one 8-byte `memcpy`, elements
/// `2j * per .. 2j * per + 2 per - 1`) and a last odd word by
/// `detail::ld_word`; for 8-bit data word by word by `detail::ld_word`
/// ([`in_pairs`]). Valid at any alignment and under any aliasing.
pub(crate) fn load_natural_words(array: &str, words: u32, per: u32) -> Vec<String> {
    if !in_pairs(per) {
        return (0..words)
            .map(|k| format!("{array}[{k}] = detail::ld_word(&src[{}]);", k * per))
            .collect();
    }
    (0..words)
        .step_by(2)
        .map(|k| {
            if k + 1 < words {
                format!(
                    "detail::ld_dword(&src[{}], {array}[{k}], {array}[{}]);",
                    k * per,
                    k + 1
                )
            } else {
                format!("{array}[{k}] = detail::ld_word(&src[{}]);", k * per)
            }
        })
        .collect()
}

/// `words[k]` into natural 32-bit word `k` of the caller's destination
/// array: for 16-bit data two consecutive words at a time by
/// `detail::st_dword` and a last odd word by `detail::st_word`; for 8-bit
/// data word by word by `detail::st_word` ([`in_pairs`]).
pub(crate) fn store_natural_words(words: &[String], per: u32) -> Vec<String> {
    if !in_pairs(per) {
        return words
            .iter()
            .enumerate()
            .map(|(k, w)| format!("detail::st_word(&dst[{}], {w});", k as u32 * per))
            .collect();
    }
    words
        .chunks(2)
        .enumerate()
        .map(|(j, c)| {
            let e = 2 * j as u32 * per;
            match c.get(1) {
                Some(hi) => format!("detail::st_dword(&dst[{e}], {}, {hi});", c[0]),
                None => format!("detail::st_word(&dst[{e}], {});", c[0]),
            }
        })
        .collect()
}
