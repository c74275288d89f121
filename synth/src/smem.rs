//! Shared-memory layouts as CuTe prints them, and the bank and wavefront
//! analysis of one register-side access to them (issue 24;
//! docs/ARCHITECTURE.md 4.8, 4.4).
//!
//! Text: what `cute::print` writes for a `ComposedLayout` of a swizzle, an
//! offset and a layout (CUTLASS 4.2, `cute/layout_composed.hpp`:
//! `print(layout_a()); print(" o "); print(offset()); print(" o ");
//! print(layout_b())`), e.g. `Sw<3,3,3> o _0 o (_8,_64):(_64,_1)`; the
//! offset is `_0` (or `0`) or the placeholder of an unset shared-memory
//! pointer, `smem_ptr[16b](unset)` (`cute/pointer_flagged.hpp`). A plain
//! `Shape:Stride` is an unswizzled layout; `Sw<B,M,S> o LAYOUT` (no offset)
//! is read as offset 0.
//!
//! Semantics (CuTe's): the layout maps a tile coordinate, column-major over
//! its shape, to an element offset; `Swizzle<B,M,S>` (`cute/swizzle.hpp`,
//! `apply`) then XORs bits `[M+S, M+S+B)` of the offset into bits `[M, M+B)`
//! (for negative `S`, bits `[M, M+B)` into `[M-S, M-S+B)`). With the offset
//! `_0` the swizzle acts on element offsets; behind `smem_ptr[Bb](unset)` it
//! acts on byte addresses of `B`-bit elements (CuTe applies it to the
//! pointer: `cute/pointer_swizzle.hpp`), which is the element swizzle with
//! `M - log2(B/8)`. Both steps are GF(2)-linear when every shape and stride
//! is a power of two and no two coordinate bits reach the same offset bit,
//! so the whole layout is one matrix from tile index bits to offset bits;
//! anything else is refused naming the mode, its position and the reason.
//!
//! The analysis ([`analyse_access`]) builds the warp-wide `st/ld.shared`
//! access pattern of a distributed (register) layout over the same tile as
//! the planner's [`SmemAccess`], and counts it with the planner's own bank
//! model ([`SmemAccess::wavefronts`], [`SmemAccess::min_wavefronts`]).

use crate::gf2::BitMatrix;
use crate::input::cute::{Res, Tree, P};
use crate::input::Pos;
use crate::layout::{LinearLayout, BLOCK, LANE, REGISTER, WARP};
use crate::plan::shared::access_name;
use crate::plan::{AddrMap, Dir, SmemAccess, SmemInst, SmemInstr};
use std::fmt;

/// Offsets (in elements) must stay below `2^MAX_OFFSET_BITS`.
pub const MAX_OFFSET_BITS: u32 = 30;

/// CuTe's `Swizzle<B, M, S>`: XOR bits `[M+S, M+S+B)` of an offset into bits
/// `[M, M+B)` (`S < 0`: bits `[M, M+B)` into `[M-S, M-S+B)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Swizzle {
    pub b: u32,
    pub m: u32,
    pub s: i32,
}

impl Swizzle {
    /// `Swizzle<B,M,S>::apply(o)`: `o ^ shiftr(o & yyy_msk, S)`
    /// (`cute/swizzle.hpp`). Linear over GF(2).
    pub fn apply(&self, o: u64) -> u64 {
        let bits = (1u64 << self.b) - 1;
        if self.s >= 0 {
            let y = bits << (self.m + self.s as u32);
            o ^ ((o & y) >> self.s)
        } else {
            let y = bits << self.m;
            o ^ ((o & y) << self.s.unsigned_abs())
        }
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.b, self.m, self.s)
    }
}

/// A shared-memory layout text that could not be read: where (1-based
/// line:column) and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("CuTe shared-memory layout at {pos}: {msg}")]
pub struct SmemLayoutError {
    pub pos: Pos,
    pub msg: String,
}

/// A CuTe shared-memory layout, optionally swizzled (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmemLayout {
    /// The text as given (trimmed).
    pub text: String,
    /// The swizzle, if any.
    pub swizzle: Option<Swizzle>,
    /// `Some(B)` when the offset is `smem_ptr[Bb](unset)`: the swizzle acts
    /// on byte addresses of `B`-bit elements.
    pub ptr_bits: Option<u32>,
    /// Sizes of the top-level modes (the tile's dims: rows, columns, ...).
    pub modes: Vec<i64>,
    /// Per bit of the column-major tile index (mode 0 fastest), its element
    /// offset before the swizzle: a power of two.
    pub index_offsets: Vec<u64>,
}

fn is_pow2(v: u64) -> bool {
    v != 0 && v & (v - 1) == 0
}

/// Parse a signed decimal integer at `p`.
fn int(p: &mut P, what: &str) -> Res<i64> {
    p.ws();
    let start = p.i;
    if p.s.get(p.i) == Some(&b'-') {
        p.i += 1;
    }
    let digits_at = p.i;
    while p.i < p.s.len() && p.s[p.i].is_ascii_digit() {
        p.i += 1;
    }
    if p.i == digits_at {
        return Err((start, format!("expected {what} (an integer)")));
    }
    let t = std::str::from_utf8(&p.s[start..p.i]).unwrap_or("");
    t.parse::<i64>()
        .ok()
        .filter(|v| v.unsigned_abs() <= 64)
        .ok_or((start, format!("{what} = `{t}` is out of range")))
}

fn expect(p: &mut P, c: u8, msg: &str) -> Res<()> {
    p.ws();
    if p.s.get(p.i) == Some(&c) {
        p.i += 1;
        Ok(())
    } else {
        Err((p.i, msg.to_string()))
    }
}

fn starts(p: &P, w: &str) -> bool {
    p.s[p.i.min(p.s.len())..].starts_with(w.as_bytes())
}

impl SmemLayout {
    /// Read `Sw<B,M,S> o OFFSET o SHAPE:STRIDE`, `Sw<B,M,S> o SHAPE:STRIDE`
    /// or a plain `SHAPE:STRIDE` (see the module docs). Errors: the
    /// position (line:column) and what was expected, or which mode breaks
    /// linearity (a shape or stride that is not a power of two, stride 0,
    /// two bits that carry into each other) or the swizzle's constraints
    /// (`|S| >= B`, as CuTe's `static_assert`).
    pub fn parse(text: &str) -> Result<SmemLayout, SmemLayoutError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        parse_at(text).map_err(|(at, msg)| SmemLayoutError {
            pos: Pos::of(text, at),
            msg,
        })
    }

    /// Whether `t` looks like a swizzled CuTe layout (`Sw<` or `Swizzle<`),
    /// which no register-layout format reads.
    pub fn claims(t: &str) -> bool {
        let t = t.trim_start();
        t.starts_with("Sw<") || t.starts_with("Swizzle<")
    }

    /// Elements of the tile (the product of the mode sizes).
    pub fn size(&self) -> u64 {
        1u64 << self.index_offsets.len()
    }

    /// The element width to analyse: `dtype` as an element type name
    /// (`f16`, `bf16`, `i8`, `f32`, ...) or a bit count (`16`), else the
    /// width `smem_ptr[Bb]` names. Errors: an unknown type, a width other
    /// than 8, 16, 32 or 64 bits, a `dtype` that disagrees with
    /// `smem_ptr[Bb]`, or no width at all.
    pub fn elem_bits(&self, dtype: Option<&str>) -> Result<u32, String> {
        let bits = match dtype {
            Some(d) => {
                let d = d.trim();
                let b = match d.parse::<u32>() {
                    Ok(b) => b,
                    Err(_) => crate::parse::ElemType::parse(d)
                        .map(|e| e.bits)
                        .ok_or_else(|| {
                            format!("--dtype {d}: not an element type (f16, bf16, f32, i8, ...) or a bit count")
                        })?,
                };
                if let Some(p) = self.ptr_bits {
                    if p != b {
                        return Err(format!(
                            "--dtype {d} is {b}-bit elements but the layout's smem_ptr[{p}b] says {p}-bit"
                        ));
                    }
                }
                b
            }
            None => self.ptr_bits.ok_or(
                "give the element type with --dtype (f16, i8, f32, ... or its bits): banks depend on the element width",
            )?,
        };
        if ![8, 16, 32, 64].contains(&bits) {
            return Err(format!(
                "{bits}-bit elements: shared-memory accesses here move 8-, 16-, 32- or 64-bit elements"
            ));
        }
        Ok(bits)
    }

    /// The swizzle in element units for `elem_bits`-bit elements (for
    /// `smem_ptr[Bb]`, `M - log2(B / 8)`). Errors: a byte swizzle whose
    /// bits fall inside an element.
    pub fn element_swizzle(&self, elem_bits: u32) -> Result<Option<Swizzle>, String> {
        let Some(sw) = self.swizzle else {
            return Ok(None);
        };
        if self.ptr_bits.is_none() || sw.b == 0 {
            return Ok(Some(sw));
        }
        let shift = (elem_bits / 8).max(1).trailing_zeros();
        if sw.m < shift {
            return Err(format!(
                "{sw} on the byte addresses of {elem_bits}-bit elements XORs bits inside an element (M = {} < log2 of {} bytes)",
                sw.m,
                elem_bits / 8
            ));
        }
        Ok(Some(Swizzle {
            m: sw.m - shift,
            ..sw
        }))
    }

    /// Per tile index bit (column-major, mode 0 fastest), its element
    /// offset after the swizzle, for `elem_bits`-bit elements. Errors as
    /// [`SmemLayout::element_swizzle`], or offsets past
    /// `2^`[`MAX_OFFSET_BITS`].
    pub fn offsets(&self, elem_bits: u32) -> Result<Vec<u64>, String> {
        let sw = self.element_swizzle(elem_bits)?;
        let out: Vec<u64> = self
            .index_offsets
            .iter()
            .map(|&o| sw.map_or(o, |s| s.apply(o)))
            .collect();
        if out.iter().any(|&o| o >> MAX_OFFSET_BITS != 0) {
            return Err(format!(
                "the swizzled offsets reach past 2^{MAX_OFFSET_BITS} elements"
            ));
        }
        Ok(out)
    }

    /// Check that the layout covers a tensor of `shape` (dim0 first): the
    /// same number of elements, and with as many top-level modes as dims,
    /// each mode as large as its dim.
    pub fn check_tile(&self, shape: &[i64]) -> Result<(), String> {
        let elems: i64 = shape.iter().product();
        let d = |v: &[i64]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("x")
        };
        if elems as u64 != self.size() || (self.modes.len() == shape.len() && self.modes != shape) {
            return Err(format!(
                "the shared layout's tile is {} ({} elements) but the tensor is {} ({elems} elements)",
                d(&self.modes),
                self.size(),
                d(shape)
            ));
        }
        Ok(())
    }

    /// The inverse view warpforge states shared layouts in (`plan`'s
    /// "shared layout (offset bit -> tensor index bits)"): for every offset
    /// bit below the highest one used, the tensor coordinate (dim0 first,
    /// over `shape`) stored at offset `2^i`, or `None` for an offset bit no
    /// element reaches (padding). `offsets` from [`SmemLayout::offsets`].
    pub fn offset_bases(&self, shape: &[i64], offsets: &[u64]) -> Vec<Option<Vec<i32>>> {
        let span = offsets
            .iter()
            .map(|o| 64 - o.leading_zeros())
            .max()
            .unwrap_or(0) as usize;
        let m = BitMatrix::from_cols(span, offsets.to_vec());
        let e = m.echelon();
        (0..span)
            .map(|i| m.solve_with(&e, 1u64 << i).map(|idx| coords_of(idx, shape)))
            .collect()
    }
}

/// The coordinate (dim0 first) of a column-major index over `shape`
/// (powers of two).
pub fn coords_of(idx: u64, shape: &[i64]) -> Vec<i32> {
    let mut at = 0u32;
    shape
        .iter()
        .map(|&d| {
            let b = (d.max(1) as u64).trailing_zeros();
            let v = (idx >> at) & ((1u64 << b) - 1);
            at += b;
            v as i32
        })
        .collect()
}

/// The column-major index of a coordinate (dim0 first) over `shape`.
fn index_of(coords: &[i32], shape: &[i64]) -> u64 {
    let mut at = 0u32;
    let mut idx = 0u64;
    for (&c, &d) in coords.iter().zip(shape) {
        idx |= (c as u64) << at;
        at += (d.max(1) as u64).trailing_zeros();
    }
    idx
}

fn parse_at(text: &str) -> Res<SmemLayout> {
    let mut p = P {
        s: text.as_bytes(),
        i: 0,
    };
    p.ws();
    let mut swizzle = None;
    let mut ptr_bits = None;
    let mut shape = None;
    let sw_word = ["Sw<", "Swizzle<"].into_iter().find(|w| starts(&p, w));
    if let Some(w) = sw_word {
        p.i += w.len();
        let b_at = p.i;
        let b = int(&mut p, "B, the number of bits the swizzle XORs")?;
        expect(
            &mut p,
            b',',
            "expected `,` then M: a swizzle is `Sw<B,M,S>` (three numbers)",
        )?;
        let m_at = p.i;
        let m = int(&mut p, "M, the lowest bit the swizzle changes")?;
        expect(
            &mut p,
            b',',
            "expected `,` then S: a swizzle is `Sw<B,M,S>` (three numbers)",
        )?;
        p.ws();
        let s_at = p.i;
        let s = int(&mut p, "S, the shift")?;
        expect(
            &mut p,
            b'>',
            "expected `>`: a swizzle is `Sw<B,M,S>` (three numbers)",
        )?;
        if !(0..=16).contains(&b) {
            return Err((b_at, format!("B = {b}: expected 0 to 16 bits")));
        }
        if !(0..=30).contains(&m) {
            return Err((m_at, format!("M = {m}: expected 0 to 30")));
        }
        if s.abs() < b || s.abs() > 30 {
            return Err((
                s_at,
                format!(
                    "S = {s}: |S| must be at least B = {b} (CuTe's static_assert) and at most 30"
                ),
            ));
        }
        swizzle = Some(Swizzle {
            b: b as u32,
            m: m as u32,
            s: s as i32,
        });
        expect(
            &mut p,
            b'o',
            "expected ` o ` after the swizzle (cute::print writes `Sw<B,M,S> o OFFSET o LAYOUT`)",
        )?;
        p.ws();
        if starts(&p, "smem_ptr[") {
            p.i += "smem_ptr[".len();
            let at = p.i;
            let bits = int(&mut p, "the element bits of smem_ptr[Nb]")?;
            if !starts(&p, "b](unset)") {
                return Err((p.i, "expected `b](unset)` (smem_ptr[16b](unset))".into()));
            }
            p.i += "b](unset)".len();
            if !(bits >= 8 && is_pow2(bits as u64)) {
                return Err((
                    at,
                    format!("smem_ptr[{bits}b]: expected 8-, 16-, 32- or 64-bit elements"),
                ));
            }
            ptr_bits = Some(bits as u32);
            expect(
                &mut p,
                b'o',
                "expected ` o ` and the layout after the offset (`Sw<B,M,S> o OFFSET o LAYOUT`)",
            )?;
        } else {
            let t = p.tree(0)?;
            p.ws();
            match p.s.get(p.i) {
                Some(b'o') => {
                    p.i += 1;
                    match t {
                        Tree::Leaf(0, _) => {}
                        Tree::Leaf(v, at) => {
                            return Err((
                                at,
                                format!("offset {v}: only offset 0 is read (another makes the layout affine, not linear)"),
                            ))
                        }
                        Tree::Node(_, at) => {
                            return Err((
                                at,
                                "expected the offset (`_0`) between the swizzle and the layout".into(),
                            ))
                        }
                    }
                }
                Some(b':') => shape = Some(t),
                _ => {
                    return Err((
                        p.i,
                        "expected ` o ` and the layout (`Sw<B,M,S> o _0 o SHAPE:STRIDE`), or `:` and the stride".into(),
                    ))
                }
            }
        }
    }
    let shape = match shape {
        Some(t) => t,
        None => p.tree(0)?,
    };
    expect(
        &mut p,
        b':',
        "expected `:` between the shape and the stride",
    )?;
    let stride = p.tree(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err((p.i, "unexpected text after the layout".into()));
    }
    if !shape.congruent(&stride) {
        return Err((
            stride.at(),
            "the stride does not nest as the shape does".into(),
        ));
    }
    let (smodes, dmodes): (Vec<Tree>, Vec<Tree>) = match (&shape, &stride) {
        (Tree::Node(a, _), Tree::Node(b, _)) => (a.clone(), b.clone()),
        _ => (vec![shape.clone()], vec![stride.clone()]),
    };
    let mut modes = Vec::new();
    let mut index_offsets: Vec<u64> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (mi, (sm, dm)) in smodes.iter().zip(&dmodes).enumerate() {
        let (mut s, mut d) = (Vec::new(), Vec::new());
        sm.leaves(&mut s);
        dm.leaves(&mut d);
        let mut size: i64 = 1;
        for ((n, at), (st, sat)) in s.into_iter().zip(d) {
            if !is_pow2(n) {
                return Err((
                    at,
                    format!("mode {mi}: shape {n} is not a power of two (not GF(2)-linear)"),
                ));
            }
            if n == 1 {
                continue;
            }
            if st == 0 {
                return Err((
                    sat,
                    format!("mode {mi}: stride 0 puts {n} elements at one offset (a shared layout stores each element once)"),
                ));
            }
            if !is_pow2(st) {
                return Err((
                    sat,
                    format!("mode {mi}: stride {st} is not a power of two (not GF(2)-linear)"),
                ));
            }
            for j in 0..n.trailing_zeros() {
                let bit = st.trailing_zeros() + j;
                if bit >= MAX_OFFSET_BITS {
                    return Err((
                        sat,
                        format!("mode {mi}: stride {st} x {n} reaches offsets past 2^{MAX_OFFSET_BITS} elements"),
                    ));
                }
                let img = 1u64 << bit;
                if let Some(k) = index_offsets.iter().position(|&o| o == img) {
                    return Err((sat, format!(
                        "mode {mi}: stride {st} reaches offset bit {bit} that mode {} already sets: the bits carry into each other (not GF(2)-linear)",
                        owner[k]
                    )));
                }
                index_offsets.push(img);
                owner.push(mi);
            }
            size *= n as i64;
        }
        modes.push(size);
    }
    Ok(SmemLayout {
        text: text.trim().to_string(),
        swizzle,
        ptr_bits,
        modes,
        index_offsets,
    })
}

/// The bank analysis of one instruction of an access (per warp; every warp
/// alike, the largest counts taken).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct InstrReport {
    /// The registers it moves, in element order.
    pub regs: Vec<u32>,
    /// Its compile-time element offset (XORed onto each thread's base).
    pub offset: u32,
    /// Wavefronts per warp (stores; [`SmemAccess::wavefronts`]).
    pub wavefronts: u64,
    /// The fewest the bytes allow ([`SmemAccess::min_wavefronts`]).
    pub min_wavefronts: u64,
    /// `wavefronts - min_wavefronts`.
    pub bank_conflicts: u64,
    /// Wavefronts of the same access as a load (phases of lanes that share
    /// words can merge; equal to `wavefronts` unless lanes share addresses).
    pub load_wavefronts: u64,
    /// Lanes of warp 0 one of whose words falls on a bank that serves
    /// more than one word in their phase.
    pub conflict_lanes: Vec<u32>,
}

/// The bank and wavefront analysis of a distributed layout's access to a
/// shared layout: each thread moves its registers as `st/ld.shared`
/// vectors of `vector_elems` consecutive registers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AccessReport {
    /// Element width in bits.
    pub elem_bits: u32,
    /// Elements per vector (one instruction per thread moves one vector).
    pub vector_elems: u32,
    /// Warps of the layout.
    pub warps: u32,
    /// Registers per thread.
    pub regs: u32,
    /// The warp-wide access pattern, as the planner states shared accesses.
    pub access: SmemAccess,
    /// One entry per instruction of a thread.
    pub instrs: Vec<InstrReport>,
}

impl AccessReport {
    /// The instruction's PTX spelling, `st/ld.shared.v4.b32` etc.
    pub fn instr_name(&self) -> String {
        format!("st/{}", access_name(&self.access, "ld"))
    }
    /// Wavefronts per warp over every instruction, their minimum, and the
    /// bank conflicts (the difference).
    pub fn totals(&self) -> (u64, u64, u64) {
        self.instrs.iter().fold((0, 0, 0), |a, i| {
            (
                a.0 + i.wavefronts,
                a.1 + i.min_wavefronts,
                a.2 + i.bank_conflicts,
            )
        })
    }
    /// The instruction to show: the first with the most bank conflicts.
    pub fn worst(&self) -> usize {
        let mut best = 0;
        for (k, i) in self.instrs.iter().enumerate() {
            if i.bank_conflicts > self.instrs[best].bank_conflicts {
                best = k;
            }
        }
        best
    }
}

/// Lanes of warp `warp` whose words of instruction `inst` share a bank with
/// another word in their wavefront phase.
pub fn conflict_lanes(a: &SmemAccess, inst: usize, warp: u32) -> Vec<u32> {
    let phases = a.phases(inst, warp);
    let mut out = Vec::new();
    let mut lane0 = 0u32;
    for ph in &phases {
        let words = |&(s, n): &(u32, u32)| s / 4..(s + n).div_ceil(4);
        let mut per_bank: Vec<Vec<u32>> = vec![Vec::new(); 32];
        for r in ph {
            for w in words(r) {
                per_bank[(w % 32) as usize].push(w);
            }
        }
        for v in per_bank.iter_mut() {
            v.sort_unstable();
            v.dedup();
        }
        for (k, r) in ph.iter().enumerate() {
            if words(r).any(|w| per_bank[(w % 32) as usize].len() > 1) {
                out.push(lane0 + k as u32);
            }
        }
        lane0 += ph.len() as u32;
    }
    out
}

/// The offset of each basis of in dim `dim` of `l`.
fn dim_offsets(l: &LinearLayout, dim: &str, shape: &[i64], offsets: &[u64]) -> Vec<u64> {
    l.bases(dim)
        .iter()
        .map(|b| {
            let idx = index_of(b, shape);
            offsets
                .iter()
                .enumerate()
                .filter(|(j, _)| idx >> j & 1 == 1)
                .fold(0u64, |a, (_, &o)| a ^ o)
        })
        .collect()
}

/// Analyse the access of distributed layout `l` (in dims `register`,
/// `lane`, `warp`; out dims the tile's, dim0 first) to `smem` with
/// `elem_bits`-bit elements: each thread moves `vector_bits` (default: as
/// many as its registers hold at consecutive offsets, up to 128) per
/// `st/ld.shared`, consecutive registers at consecutive offsets. Counts
/// with the planner's bank model (4-byte banks, 32 of them; store rules,
/// where phases never merge). Errors: a tile that differs from the shared
/// layout's, a layout across CTAs, a vector the registers do not hold at
/// consecutive offsets, a misaligned vector, an unsupported width.
pub fn analyse_access(
    smem: &SmemLayout,
    l: &LinearLayout,
    elem_bits: u32,
    vector_bits: Option<u32>,
) -> Result<AccessReport, String> {
    let shape: Vec<i64> = l.out_dims().iter().map(|d| d.1 as i64).collect();
    smem.check_tile(&shape)?;
    let offsets = smem.offsets(elem_bits)?;
    if l.bases(BLOCK).iter().any(|b| b.iter().any(|&v| v != 0)) {
        return Err(
            "the access layout spans several CTAs; shared memory is per CTA (give one CTA's layout)"
                .into(),
        );
    }
    for n in l.in_dim_names() {
        if ![REGISTER, LANE, WARP, BLOCK].contains(&n.as_str()) {
            return Err(format!(
                "in dim `{n}` (expected register, lane, warp, block)"
            ));
        }
    }
    let reg = dim_offsets(l, REGISTER, &shape, &offsets);
    let lane = dim_offsets(l, LANE, &shape, &offsets);
    let warp = dim_offsets(l, WARP, &shape, &offsets);
    if lane.len() > 5 || warp.len() > 5 || reg.len() > 16 {
        return Err(format!(
            "{} lane, {} warp and {} register bits: expected at most 5, 5 and 16",
            lane.len(),
            warp.len(),
            reg.len()
        ));
    }
    let contiguous = reg
        .iter()
        .enumerate()
        .take_while(|(j, &o)| o == 1u64 << j)
        .count() as u32;
    let cap = 128 / elem_bits;
    let elems = match vector_bits {
        None => (1u32 << contiguous).min(cap),
        Some(v) => {
            if v % elem_bits != 0 || !is_pow2(v as u64) || v > 128 {
                return Err(format!(
                    "--vector {v}: expected a power of two of bits, a multiple of the {elem_bits}-bit element and at most 128"
                ));
            }
            let e = v / elem_bits;
            if e > 1u32 << contiguous {
                let why = match reg.get(contiguous as usize) {
                    Some(o) => format!(
                        "register {} of a thread lands at offset {o}, not {}",
                        1u32 << contiguous,
                        1u32 << contiguous
                    ),
                    None => format!("a thread holds {} register(s)", 1u32 << reg.len()),
                };
                return Err(format!(
                    "--vector {v}: {e} consecutive registers are not at {e} consecutive offsets ({why}); at most {} bits here",
                    (1u32 << contiguous) * elem_bits
                ));
            }
            e
        }
    };
    let vb = elems.trailing_zeros() as usize;
    let insts: Vec<SmemInst> = (0u32..1 << (reg.len() - vb))
        .map(|k| {
            let first = k << vb;
            let offset = reg
                .iter()
                .enumerate()
                .filter(|(j, _)| first >> j & 1 == 1)
                .fold(0u64, |a, (_, &o)| a ^ o) as u32;
            SmemInst {
                regs: (first..first + elems).collect(),
                offset,
            }
        })
        .collect();
    let access = SmemAccess {
        instr: SmemInstr::Vector,
        width: elem_bits,
        addr: AddrMap {
            lane: lane.iter().map(|&o| o as u32).collect(),
            warp: warp.iter().map(|&o| o as u32).collect(),
        },
        insts,
        reg_xor: AddrMap::zero(),
        guard: Default::default(),
        lanes: 1u32 << lane.len(),
        bank_model: Default::default(),
    };
    let warps = 1u32 << warp.len();
    let mut instrs = Vec::new();
    for (k, inst) in access.insts.iter().enumerate() {
        let (mut wf, mut min, mut lwf) = (0, 0, 0);
        for w in 0..warps {
            access.element_slots(k, w).map_err(|e| {
                format!(
                    "instruction {k} (registers {}..{}) of warp {w} is misaligned: {e}",
                    inst.regs[0],
                    inst.regs[0] + elems - 1
                )
            })?;
            wf = wf.max(access.wavefronts(k, w, Dir::Store));
            min = min.max(access.min_wavefronts(k, w, Dir::Store));
            lwf = lwf.max(access.wavefronts(k, w, Dir::Load));
        }
        instrs.push(InstrReport {
            regs: inst.regs.clone(),
            offset: inst.offset,
            wavefronts: wf,
            min_wavefronts: min,
            bank_conflicts: wf.saturating_sub(min),
            load_wavefronts: lwf,
            conflict_lanes: conflict_lanes(&access, k, 0),
        });
    }
    Ok(AccessReport {
        elem_bits,
        vector_elems: elems,
        warps,
        regs: 1 << reg.len(),
        access,
        instrs,
    })
}

/// Lanes as ranges: `0-7 16 18-19`.
pub fn lane_ranges(lanes: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lanes.len() {
        let mut j = i;
        while j + 1 < lanes.len() && lanes[j + 1] == lanes[j] + 1 {
            j += 1;
        }
        out.push(if j > i {
            format!("{}-{}", lanes[i], lanes[j])
        } else {
            lanes[i].to_string()
        });
        i = j + 1;
    }
    out.join(" ")
}

#[cfg(test)]
mod tests;
