//! The shared-memory layout of a round trip as a linear map: offset bit `i`
//! (in elements) holds tensor vector `bases[i]`, and the address of a tensor
//! element is its coordinate vector in that basis (docs/ARCHITECTURE.md 4.4; Triton
//! `lib/Tools/GenericSwizzling.cpp`, PRs 6982, 7565, 8655).
//!
//! The lowest bits are the *chunk* the two sides' instruction forms need
//! (vector elements, or the 16-byte rows of `ldmatrix`/`stmatrix`). The next
//! bits up to 128 bytes are *bank* bits, the rest *segment* bits. Bank bits
//! are the tensor vectors one side's threads vary over within a wavefront
//! phase, so that side never conflicts; segment bits are XORs `y ^ x` of the
//! other side's phase vectors `y` with unused bank vectors `x`, so that `y`
//! lands on bank bits `x` and that side does not conflict either.

use crate::gf2::{BitMatrix, Echelon, XorBasis};

/// Offset bits -> tensor vectors, invertible on the CTA's tensor subspace.
#[derive(Clone, Debug)]
pub struct SharedLayout {
    /// `bases[i]`: the tensor vector (tag bits) of offset bit `i`.
    pub bases: Vec<u64>,
    m: BitMatrix,
    e: Echelon,
}

impl SharedLayout {
    /// A layout from independent tensor vectors over `tensor_bits` tag bits;
    /// `None` when they are dependent.
    pub fn new(tensor_bits: usize, bases: Vec<u64>) -> Option<SharedLayout> {
        let m = BitMatrix::from_cols(tensor_bits, bases.clone());
        let e = m.echelon();
        (e.pivots.len() == bases.len()).then_some(SharedLayout { bases, m, e })
    }
    /// The element offset of tensor vector `x`, `None` outside the span.
    pub fn offset(&self, x: u64) -> Option<u32> {
        self.m.solve_with(&self.e, x).map(|v| v as u32)
    }
    /// Offset bits (log2 of the scratch in elements).
    pub fn bits(&self) -> usize {
        self.bases.len()
    }
}

/// How bank bits are chosen above the chunk (the swizzle side of a
/// shared-memory strategy, [`crate::plan::SharedStrategy::swizzle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// The complement basis in the order given (no swizzle).
    Plain,
    /// Bank bits from the store side's phase vectors, load side swizzled in.
    StoreFirst,
    /// Bank bits from the load side's phase vectors, store side swizzled in.
    LoadFirst,
}

impl Swizzle {
    /// Short name for strategy strings.
    pub fn name(&self) -> &'static str {
        match self {
            Swizzle::Plain => "plain",
            Swizzle::StoreFirst => "swz-st",
            Swizzle::LoadFirst => "swz-ld",
        }
    }
}

/// The bases of a shared layout: `chunk`, then `h` (a basis of the
/// complement both sides' remaining columns live in) re-chosen as bank and
/// segment vectors by `sw`. `phase_st`/`phase_ld`: the tensor vectors each
/// side varies over within one wavefront phase. `bank_bits`: offset bits in
/// 128 bytes, `log2(128 / element bytes)`.
pub fn build_bases(
    tensor_bits: usize,
    chunk: &[u64],
    h: &[u64],
    phase_st: &[u64],
    phase_ld: &[u64],
    bank_bits: usize,
    sw: Swizzle,
) -> Vec<u64> {
    let d = chunk.len() + h.len();
    let f = bank_bits.min(d).saturating_sub(chunk.len());
    let mut out = chunk.to_vec();
    if sw == Swizzle::Plain || f == 0 {
        out.extend_from_slice(h);
        return out;
    }
    // Components in span(h) of each phase vector (decomposed over chunk ++ h).
    let all = [chunk, h].concat();
    let m = BitMatrix::from_cols(tensor_bits, all.clone());
    let e = m.echelon();
    let hpart = |p: u64| -> u64 {
        let Some(x) = m.solve_with(&e, p) else {
            return 0;
        };
        (chunk.len()..all.len())
            .filter(|&i| x >> i & 1 == 1)
            .fold(0, |a, i| a ^ all[i])
    };
    let (first, second) = match sw {
        Swizzle::StoreFirst => (phase_st, phase_ld),
        _ => (phase_ld, phase_st),
    };
    let h1: Vec<u64> = first
        .iter()
        .map(|&p| hpart(p))
        .filter(|&v| v != 0)
        .collect();
    let h2: Vec<u64> = second
        .iter()
        .map(|&p| hpart(p))
        .filter(|&v| v != 0)
        .collect();
    let mut bank = Vec::new();
    let mut bank_span = XorBasis::default();
    for &v in h1.iter().chain(&h2).chain(h) {
        if bank.len() == f {
            break;
        }
        if bank_span.insert(v) {
            bank.push(v);
        }
    }
    let mut span = bank_span.clone();
    let mut seg = Vec::new();
    let mut proj = XorBasis::default();
    for &y in &h2 {
        if bank_span.contains(y) {
            proj.insert(y);
            continue;
        }
        if span.contains(y) {
            continue;
        }
        let pick = bank
            .iter()
            .copied()
            .find(|&x| !proj.contains(x) && !span.contains(y ^ x));
        match pick {
            Some(x) => {
                span.insert(y ^ x);
                seg.push(y ^ x);
                proj.insert(x);
            }
            None => {
                span.insert(y);
                seg.push(y);
            }
        }
    }
    for &v in h {
        if span.insert(v) {
            seg.push(v);
        }
    }
    out.extend(bank);
    out.extend(seg);
    out
}
