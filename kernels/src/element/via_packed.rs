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

use crate::kir::{Body, Expr, Func, Stmt, Ty, Val};
use crate::prmt::{prmt_program, Temps};
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

/// How the caller holds the arrays of a body through the packed form
/// ([`body_via_packed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrays {
    /// The element form: `T` arrays, the ones [`Words`] names read and
    /// written as natural 32-bit words.
    Elements(Words),
    /// The vector forms (`{ident}_x2`, `{ident}_x4`): arrays of 4-byte
    /// vectors `V` (`__half2`, `__nv_bfloat162`, `unsigned`,
    /// `__nv_fp8x4_e4m3`), entry `k` holding registers `k * p .. k * p + p - 1`
    /// (`p = 32 / bits`, the lowest register in the lowest bits): the
    /// natural words, as values.
    Vectors,
}

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

/// The body of the element form for `bits`-bit elements (8 or 16) that
/// calls `packed` (the packed form's name), whose source words are packed
/// by `src_map` and destination words by `dst_map`; `src_regs` /
/// `dst_regs` elements per thread (multiples of `32 / bits`); `smem`
/// whether the packed form takes the scratch pointer; `arrays` how the
/// caller holds them: for the element form, which arrays move as natural
/// words (a `prmt` program reorders them to and from the packed form's word
/// order; the other array's elements are packed and unpacked by shifts, as
/// the element-by-element body does); for the vector forms, both arrays as
/// natural words, read from and written to the caller's vectors by their
/// bits. Returns the
/// body and the number of `prmt` it contains (what the form costs beyond
/// the packed form).
#[allow(clippy::too_many_arguments)] // the packed form's call, as `helper::via_packed` states it
pub(crate) fn body_via_packed(
    packed: &str,
    bits: u32,
    src_regs: u32,
    dst_regs: u32,
    src_map: &PackMap,
    dst_map: &PackMap,
    smem: bool,
    arrays: Arrays,
) -> (Body, usize) {
    let per = 32 / bits;
    let (sw, dw) = (src_regs / per, dst_regs / per);
    let words = match arrays {
        Arrays::Elements(w) => w,
        Arrays::Vectors => Words::BOTH,
    };
    let vectors = arrays == Arrays::Vectors;
    let mut b = Body::default();
    let mut temps = Temps::default();
    let (src_arg, src_vals, mut prmt) =
        packed_src(&mut b, &mut temps, bits, sw, src_map, words.src, vectors);
    let pk_dst = array(&mut b, "pk_dst", dw);
    b.push(Stmt::Array {
        name: "pk_dst".into(),
        vals: pk_dst.clone(),
    });
    b.push(Stmt::CallPacked {
        callee: packed.to_string(),
        src: src_arg.into(),
        src_vals,
        dst: "pk_dst".into(),
        dst_vals: pk_dst.clone(),
        smem,
    });
    if words.dst {
        // Natural destination word j, slot s: register r = j * per + s, which
        // the packed form left in word/slot dst_map.word_slot(r).
        let dst_words: Vec<Vec<Piece<Expr>>> = (0..dw)
            .map(|j| {
                (0..per)
                    .map(|s| {
                        let (w, sl) = dst_map.word_slot(j * per + s);
                        Piece {
                            key: Expr::V(pk_dst[w as usize]),
                            slot: sl,
                        }
                    })
                    .collect()
            })
            .collect();
        let before = b.stmts.len();
        let ds = prmt_program(&mut b, &mut temps, &dst_words, bits);
        prmt += b.stmts.len() - before;
        if vectors {
            for (k, w) in ds.into_iter().enumerate() {
                b.push(Stmt::Dst {
                    j: k as u32,
                    e: Expr::call(Func::FromU32Vec, vec![w]),
                });
            }
        } else {
            store_natural_words(&mut b, &ds, per);
        }
    } else {
        // Each destination element out of the word and slot it was left in.
        for r in 0..dst_regs {
            let (w, sl) = dst_map.word_slot(r);
            let word = Expr::V(pk_dst[w as usize]);
            let e = super::words::unpack_words(std::slice::from_ref(&word), bits, per as usize);
            b.push(Stmt::Dst {
                j: r,
                e: e[sl as usize].clone(),
            });
        }
    }
    (b, prmt)
}

/// `n` words `{name}[k]` of an array (declared by the caller).
fn array(b: &mut Body, name: &str, n: u32) -> Vec<Val> {
    (0..n)
        .map(|k| b.val(format!("{name}[{k}]"), Ty::U32))
        .collect()
}

/// The packed form's source words (`sw` of them, packed by `src_map`,
/// elements of `bits`) from the caller's array: with `natural` (the array
/// moves as natural words) the words `src_w[]` reordered by a `prmt`
/// program, passed as they are where the packed order is the natural one;
/// else each word packed from its elements by shifts. Appended to `b`;
/// returns the array's name (`src_w` or `pk_src`), its words, and the
/// `prmt` it took.
fn packed_src(
    b: &mut Body,
    temps: &mut Temps,
    bits: u32,
    sw: u32,
    src_map: &PackMap,
    natural: bool,
    vectors: bool,
) -> (&'static str, Vec<Val>, usize) {
    let per = 32 / bits;
    let init = if natural {
        let src_w = array(b, "src_w", sw);
        b.push(Stmt::Array {
            name: "src_w".into(),
            vals: src_w.clone(),
        });
        if vectors {
            // vector k's bits are natural word k
            for (k, &w) in src_w.iter().enumerate() {
                let v = b.src(k as u32, Ty::Vector);
                b.push(Stmt::Assign {
                    v: w,
                    e: Expr::call(Func::ToU32, vec![Expr::V(v)]),
                });
            }
        } else {
            load_natural_words(b, &src_w, per);
        }
        // Packed source word k, slot s: register r = src_map.register(k, s),
        // which sits in natural word r / per, slot r % per.
        let src_words: Vec<Vec<Piece<Expr>>> = (0..sw)
            .map(|k| {
                (0..per)
                    .map(|s| {
                        let r = src_map.register(k, s);
                        Piece {
                            key: Expr::V(src_w[(r / per) as usize]),
                            slot: r % per,
                        }
                    })
                    .collect()
            })
            .collect();
        let before = b.stmts.len();
        let ps = prmt_program(b, temps, &src_words, bits);
        let prmt = b.stmts.len() - before;
        // Where the packed order is the natural one, the words pass as they are.
        if ps.iter().zip(&src_w).all(|(e, &w)| *e == Expr::V(w)) {
            return ("src_w", src_w, prmt);
        }
        (ps, prmt)
    } else {
        // Packed source word k from the elements it holds.
        let ws = (0..sw)
            .map(|k| {
                let vals: Vec<Expr> = (0..per)
                    .map(|s| Expr::V(b.src(src_map.register(k, s), Ty::Elem)))
                    .collect();
                super::words::pack_words(&vals, bits).remove(0)
            })
            .collect();
        (ws, 0)
    };
    let pk = array(b, "pk_src", sw);
    b.push(Stmt::ArrayInit {
        name: "pk_src".into(),
        vals: pk.clone(),
        init: init.0,
    });
    ("pk_src", pk, init.1)
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

/// The natural 32-bit words of the caller's source array (`per`
/// elements a word) into the declared words `array` (`src_w[k]`, appended
/// to `b`): for 16-bit data two consecutive words at a time by
/// `detail::ld_dword(&src[e], lo, hi)` (one 8-byte `memcpy`, elements
/// `2j * per .. 2j * per + 2 per - 1`) and a last odd word by `array[k] =
/// detail::ld_word(&src[e])`; for 8-bit data word by word by
/// `detail::ld_word` ([`in_pairs`]). Valid at any alignment and under any
/// aliasing.
pub(crate) fn load_natural_words(b: &mut Body, array: &[Val], per: u32) {
    let word = |k: usize| Stmt::Assign {
        v: array[k],
        e: Expr::call(Func::LdWord, vec![Expr::SrcPtr(k as u32 * per)]),
    };
    if !in_pairs(per) {
        (0..array.len()).for_each(|k| b.push(word(k)));
        return;
    }
    for k in (0..array.len()).step_by(2) {
        b.push(if k + 1 < array.len() {
            Stmt::Call {
                f: Func::LdDword,
                args: vec![
                    Expr::SrcPtr(k as u32 * per),
                    Expr::V(array[k]),
                    Expr::V(array[k + 1]),
                ],
            }
        } else {
            word(k)
        });
    }
}

/// `words[k]` into natural 32-bit word `k` of the caller's destination
/// array (appended to `b`): for 16-bit data two consecutive words at a time
/// by `detail::st_dword(&dst[e], lo, hi)` and a last odd word by
/// `detail::st_word(&dst[e], w)`; for 8-bit data word by word by
/// `detail::st_word` ([`in_pairs`]).
pub(crate) fn store_natural_words(b: &mut Body, words: &[Expr], per: u32) {
    if !in_pairs(per) {
        for (k, w) in words.iter().enumerate() {
            b.push(Stmt::Call {
                f: Func::StWord,
                args: vec![Expr::DstPtr(k as u32 * per), w.clone()],
            });
        }
        return;
    }
    for (j, c) in words.chunks(2).enumerate() {
        let e = 2 * j as u32 * per;
        let (f, mut args) = match c.get(1) {
            Some(hi) => (Func::StDword, vec![c[0].clone(), hi.clone()]),
            None => (Func::StWord, vec![c[0].clone()]),
        };
        args.insert(0, Expr::DstPtr(e));
        b.push(Stmt::Call { f, args });
    }
}
