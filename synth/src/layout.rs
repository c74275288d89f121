//! Linear layouts: GF(2)-linear maps from named hardware dims to named tensor
//! dims, with Triton's semantics (`include/triton/Tools/LinearLayout.h`,
//! `lib/Tools/LinearLayout.cpp`; Zhou et al., arXiv 2505.23819).
//!
//! A layout has ordered *in dims* (minor to major: `register`, `lane`,
//! `warp`, `block` for distributed layouts) and ordered *out dims* (`dim0`,
//! `dim1`, ...). In dim `d` with `k` bases has size `2^k`; basis `i` is the
//! image of the input value `1 << i` and holds one value per out dim. Inputs
//! combine by XOR. All sizes are powers of two; the total number of input bits
//! and of output bits is at most 64 each.

use crate::gf2::BitMatrix;
use std::fmt;

/// In-dim name of the per-thread register index.
pub const REGISTER: &str = "register";
/// In-dim name of the lane (thread within a warp).
pub const LANE: &str = "lane";
/// In-dim name of the warp within a CTA.
pub const WARP: &str = "warp";
/// In-dim name of the CTA within a cluster (CGA).
pub const BLOCK: &str = "block";

/// Out-dim names `dim0..dim{rank-1}` (Triton's `standardOutDimNames`).
pub fn standard_out_dim_names(rank: usize) -> Vec<String> {
    (0..rank).map(|i| format!("dim{i}")).collect()
}

/// Errors of layout construction and operations. Each names the dim and the
/// value at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("{what} must be a power of two, got {value}")]
    NotPowerOfTwo { what: String, value: i64 },
    #[error(
        "basis {index} of in dim `{in_dim}` has {got} values, expected one per out dim ({want})"
    )]
    BasisArity {
        in_dim: String,
        index: usize,
        got: usize,
        want: usize,
    },
    #[error(
        "basis {index} of in dim `{in_dim}` maps out dim `{out_dim}` to {value}, outside 0..{size}"
    )]
    BasisOutOfRange {
        in_dim: String,
        index: usize,
        out_dim: String,
        value: i64,
        size: i64,
    },
    #[error("layout is not surjective: its bases do not span every out dim ({detail})")]
    NotSurjective { detail: String },
    #[error("layout is not invertible: {detail}")]
    NotInvertible { detail: String },
    #[error("unknown {kind} dim `{name}`")]
    UnknownDim { kind: &'static str, name: String },
    #[error("dims do not match: {detail}")]
    DimMismatch { detail: String },
    #[error("too many bits: {detail} (at most 64 in and 64 out)")]
    TooManyBits { detail: String },
    #[error("no solution: {detail}")]
    NoSolution { detail: String },
}

type Result<T> = std::result::Result<T, LayoutError>;

/// One in dim: its name and bases (`bases[i][k]` = out dim `k` of the image of `1 << i`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct InDim {
    pub name: String,
    pub bases: Vec<Vec<i32>>,
}

/// A linear layout (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct LinearLayout {
    ins: Vec<InDim>,
    /// Out dims with their sizes (powers of two).
    outs: Vec<(String, i32)>,
}

fn log2_exact(what: impl Into<String>, v: i64) -> Result<u32> {
    if v <= 0 || (v & (v - 1)) != 0 {
        return Err(LayoutError::NotPowerOfTwo {
            what: what.into(),
            value: v,
        });
    }
    Ok(v.trailing_zeros())
}

impl LinearLayout {
    /// The layout with no in and no out dims.
    pub fn empty() -> Self {
        LinearLayout {
            ins: vec![],
            outs: vec![],
        }
    }

    /// Layout from bases and explicit out-dim sizes. Errors on a
    /// non-power-of-two size, a basis of the wrong arity or out of range, or
    /// (when `require_surjective`) a layout whose bases do not span the outs.
    pub fn new(
        ins: Vec<(String, Vec<Vec<i32>>)>,
        outs: Vec<(String, i32)>,
        require_surjective: bool,
    ) -> Result<Self> {
        for (name, size) in &outs {
            log2_exact(format!("size of out dim `{name}`"), *size as i64)?;
        }
        let mut in_dims = Vec::new();
        for (name, bases) in ins {
            for (i, b) in bases.iter().enumerate() {
                if b.len() != outs.len() {
                    return Err(LayoutError::BasisArity {
                        in_dim: name.clone(),
                        index: i,
                        got: b.len(),
                        want: outs.len(),
                    });
                }
                for (k, &v) in b.iter().enumerate() {
                    if v < 0 || v >= outs[k].1 {
                        return Err(LayoutError::BasisOutOfRange {
                            in_dim: name.clone(),
                            index: i,
                            out_dim: outs[k].0.clone(),
                            value: v as i64,
                            size: outs[k].1 as i64,
                        });
                    }
                }
            }
            in_dims.push(InDim { name, bases });
        }
        let ll = LinearLayout { ins: in_dims, outs };
        if ll.total_in_bits() > 64 || ll.total_out_bits() > 64 {
            return Err(LayoutError::TooManyBits {
                detail: format!("{} in, {} out", ll.total_in_bits(), ll.total_out_bits()),
            });
        }
        if require_surjective && !ll.is_surjective() {
            return Err(LayoutError::NotSurjective {
                detail: format!(
                    "rank {} < {} out bits",
                    ll.matrix().rank(),
                    ll.total_out_bits()
                ),
            });
        }
        Ok(ll)
    }

    /// Layout from bases, with each out-dim size inferred as the smallest power
    /// of two above every basis value in that dim (Triton's constructor taking
    /// only out-dim names); requires surjectivity when asked.
    pub fn from_bases(
        ins: Vec<(String, Vec<Vec<i32>>)>,
        out_names: &[String],
        require_surjective: bool,
    ) -> Result<Self> {
        let mut sizes = vec![1i32; out_names.len()];
        for (name, bases) in &ins {
            for (i, b) in bases.iter().enumerate() {
                if b.len() != out_names.len() {
                    return Err(LayoutError::BasisArity {
                        in_dim: name.clone(),
                        index: i,
                        got: b.len(),
                        want: out_names.len(),
                    });
                }
                for (k, &v) in b.iter().enumerate() {
                    if v < 0 {
                        return Err(LayoutError::BasisOutOfRange {
                            in_dim: name.clone(),
                            index: i,
                            out_dim: out_names[k].clone(),
                            value: v as i64,
                            size: 0,
                        });
                    }
                    let next = if v == 0 {
                        1
                    } else {
                        1i64 << (64 - (v as u64).leading_zeros())
                    };
                    if next > (1 << 30) {
                        return Err(LayoutError::TooManyBits {
                            detail: format!("basis value {v}"),
                        });
                    }
                    sizes[k] = sizes[k].max(next as i32);
                }
            }
        }
        let outs = out_names.iter().cloned().zip(sizes).collect();
        LinearLayout::new(ins, outs, require_surjective)
    }

    /// `identity1D(size, in, out)`: basis `i` maps to `1 << i`.
    pub fn identity_1d(size: i32, in_dim: &str, out_dim: &str) -> Result<Self> {
        Self::strided_1d(size, 1, in_dim, out_dim)
    }

    /// `strided1D(size, stride, in, out)`: basis `i` maps to `stride << i`.
    pub fn strided_1d(size: i32, stride: i32, in_dim: &str, out_dim: &str) -> Result<Self> {
        let k = log2_exact(format!("size of `{in_dim}`"), size as i64)?;
        log2_exact("stride", stride as i64)?;
        let bases = (0..k).map(|i| vec![stride << i]).collect();
        let out_size = (stride as i64) * (size as i64);
        Self::new(
            vec![(in_dim.to_string(), bases)],
            vec![(out_dim.to_string(), out_size as i32)],
            stride == 1,
        )
    }

    /// `zeros1D(size, in, out, outSize)`: every basis maps to 0 (broadcast).
    pub fn zeros_1d(size: i32, in_dim: &str, out_dim: &str, out_size: i32) -> Result<Self> {
        let k = log2_exact(format!("size of `{in_dim}`"), size as i64)?;
        Self::new(
            vec![(in_dim.to_string(), vec![vec![0]; k as usize])],
            vec![(out_dim.to_string(), out_size)],
            false,
        )
    }

    /// In dims, in order.
    pub fn in_dims(&self) -> &[InDim] {
        &self.ins
    }

    /// Out dims with sizes, in order.
    pub fn out_dims(&self) -> &[(String, i32)] {
        &self.outs
    }

    /// In-dim names, in order.
    pub fn in_dim_names(&self) -> Vec<String> {
        self.ins.iter().map(|d| d.name.clone()).collect()
    }

    /// Out-dim names, in order.
    pub fn out_dim_names(&self) -> Vec<String> {
        self.outs.iter().map(|d| d.0.clone()).collect()
    }

    /// Whether in dim `name` exists.
    pub fn has_in_dim(&self, name: &str) -> bool {
        self.ins.iter().any(|d| d.name == name)
    }

    /// Whether out dim `name` exists.
    pub fn has_out_dim(&self, name: &str) -> bool {
        self.outs.iter().any(|d| d.0 == name)
    }

    /// Bases of in dim `name` (empty for an absent dim).
    pub fn bases(&self, name: &str) -> &[Vec<i32>] {
        self.ins
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.bases.as_slice())
            .unwrap_or(&[])
    }

    /// log2 of the size of in dim `name` (0 when absent).
    pub fn in_dim_size_log2(&self, name: &str) -> u32 {
        self.bases(name).len() as u32
    }

    /// Size of in dim `name` (1 when absent).
    pub fn in_dim_size(&self, name: &str) -> i64 {
        1i64 << self.in_dim_size_log2(name)
    }

    /// Size of out dim `name` (1 when absent).
    pub fn out_dim_size(&self, name: &str) -> i32 {
        self.outs
            .iter()
            .find(|d| d.0 == name)
            .map(|d| d.1)
            .unwrap_or(1)
    }

    /// log2 of the size of out dim `name`.
    pub fn out_dim_size_log2(&self, name: &str) -> u32 {
        self.out_dim_size(name).trailing_zeros()
    }

    /// Total number of input bits.
    pub fn total_in_bits(&self) -> usize {
        self.ins.iter().map(|d| d.bases.len()).sum()
    }

    /// Total number of output bits.
    pub fn total_out_bits(&self) -> usize {
        self.outs
            .iter()
            .map(|d| d.1.trailing_zeros() as usize)
            .sum()
    }

    /// Bit offset of out dim `k` in the flattened output (dim order, first dim minor).
    fn out_offsets(&self) -> Vec<u32> {
        let mut off = 0;
        self.outs
            .iter()
            .map(|(_, s)| {
                let o = off;
                off += s.trailing_zeros();
                o
            })
            .collect()
    }

    fn basis_to_bits(&self, basis: &[i32]) -> u64 {
        let offs = self.out_offsets();
        basis
            .iter()
            .zip(offs)
            .fold(0u64, |acc, (&v, o)| acc | ((v as u64) << o))
    }

    fn bits_to_basis(&self, bits: u64) -> Vec<i32> {
        let offs = self.out_offsets();
        self.outs
            .iter()
            .zip(offs)
            .map(|((_, s), o)| ((bits >> o) & ((*s as u64) - 1)) as i32)
            .collect()
    }

    /// The layout as a matrix: columns are the input bits (in dims in order,
    /// bases in order), rows the output bits (out dims in order, first dim's
    /// bits lowest; Triton's `flattenOuts` convention).
    pub fn matrix(&self) -> BitMatrix {
        let cols = self
            .ins
            .iter()
            .flat_map(|d| d.bases.iter().map(|b| self.basis_to_bits(b)))
            .collect();
        BitMatrix::from_cols(self.total_out_bits(), cols)
    }

    /// Columns (as out-bit vectors) of in dim `name` only.
    pub fn dim_cols(&self, name: &str) -> Vec<u64> {
        self.bases(name)
            .iter()
            .map(|b| self.basis_to_bits(b))
            .collect()
    }

    /// Apply to named input values; returns the value of every out dim.
    /// Errors on an unknown in dim or a value out of range.
    pub fn apply(&self, inputs: &[(&str, i64)]) -> Result<Vec<(String, i32)>> {
        let mut acc = 0u64;
        for (name, v) in inputs {
            let d = self.ins.iter().find(|d| d.name == *name).ok_or_else(|| {
                LayoutError::UnknownDim {
                    kind: "in",
                    name: name.to_string(),
                }
            })?;
            if *v < 0 || *v >= (1i64 << d.bases.len()) {
                return Err(LayoutError::BasisOutOfRange {
                    in_dim: name.to_string(),
                    index: 0,
                    out_dim: "-".into(),
                    value: *v,
                    size: 1 << d.bases.len(),
                });
            }
            for (i, b) in d.bases.iter().enumerate() {
                if v >> i & 1 == 1 {
                    acc ^= self.basis_to_bits(b);
                }
            }
        }
        Ok(self
            .out_dim_names()
            .into_iter()
            .zip(self.bits_to_basis(acc))
            .collect())
    }

    /// Is every output reachable?
    pub fn is_surjective(&self) -> bool {
        self.matrix().rank() == self.total_out_bits()
    }

    /// Do distinct inputs give distinct outputs?
    pub fn is_injective(&self) -> bool {
        self.matrix().rank() == self.total_in_bits()
    }

    /// Bijective?
    pub fn is_invertible(&self) -> bool {
        self.is_surjective() && self.is_injective()
    }

    /// Triton's `operator*`: the product with `outer`, whose dims are more
    /// major. In dims and out dims are the union (this layout's first). For a
    /// dim shared by both, `outer`'s bases follow this layout's and their
    /// values are shifted past this layout's out-dim size.
    pub fn mul(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let mut in_names: Vec<String> = self.in_dim_names();
        for n in outer.in_dim_names() {
            if !in_names.contains(&n) {
                in_names.push(n);
            }
        }
        let mut out_names: Vec<String> = self.out_dim_names();
        for n in outer.out_dim_names() {
            if !out_names.contains(&n) {
                out_names.push(n);
            }
        }
        let out_sizes: Vec<(String, i32)> = out_names
            .iter()
            .map(|n| {
                let s = (self.out_dim_size_log2(n) + outer.out_dim_size_log2(n)) as i64;
                (n.clone(), s)
            })
            .map(|(n, s)| {
                if s > 30 {
                    Err(LayoutError::TooManyBits {
                        detail: format!("out dim `{n}` of size 2^{s}"),
                    })
                } else {
                    Ok((n, 1i32 << s))
                }
            })
            .collect::<Result<_>>()?;
        let mut ins = Vec::new();
        for name in &in_names {
            let ni = self.in_dim_size_log2(name) as usize;
            let no = outer.in_dim_size_log2(name) as usize;
            let mut bases = vec![vec![0i32; out_names.len()]; ni + no];
            for (k, on) in out_names.iter().enumerate() {
                if self.has_out_dim(on) {
                    let ok = self.out_dim_names().iter().position(|x| x == on).unwrap();
                    for (i, b) in self.bases(name).iter().enumerate() {
                        bases[i][k] = b[ok];
                    }
                }
                if outer.has_out_dim(on) {
                    let ok = outer.out_dim_names().iter().position(|x| x == on).unwrap();
                    let shift = self.out_dim_size_log2(on);
                    for (i, b) in outer.bases(name).iter().enumerate() {
                        bases[ni + i][k] = b[ok] << shift;
                    }
                }
            }
            ins.push((name.clone(), bases));
        }
        LinearLayout::new(ins, out_sizes, false)
    }

    /// `self` then `outer`: this layout's out dims must be `outer`'s in dims
    /// (any order) with sizes no larger. The result maps this layout's in
    /// dims to `outer`'s out dims.
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        for (n, s) in &self.outs {
            if !outer.has_in_dim(n) && *s > 1 {
                return Err(LayoutError::DimMismatch {
                    detail: format!("out dim `{n}` is not an in dim of the outer layout"),
                });
            }
            if (*s as i64) > outer.in_dim_size(n) {
                return Err(LayoutError::DimMismatch {
                    detail: format!(
                        "out dim `{n}` has size {s} > outer in-dim size {}",
                        outer.in_dim_size(n)
                    ),
                });
            }
        }
        let mut ins = Vec::new();
        for d in &self.ins {
            let mut bases = Vec::new();
            for b in &d.bases {
                let inputs: Vec<(&str, i64)> = self
                    .outs
                    .iter()
                    .zip(b)
                    .filter(|((n, _), _)| outer.has_in_dim(n))
                    .map(|((n, _), &v)| (n.as_str(), v as i64))
                    .collect();
                let r = outer.apply(&inputs)?;
                bases.push(r.into_iter().map(|(_, v)| v).collect());
            }
            ins.push((d.name.clone(), bases));
        }
        LinearLayout::new(ins, outer.outs.clone(), false)
    }

    /// Triton's `invertAndCompose`: the layout `C` from this layout's in dims
    /// to `outer`'s in dims with `outer(C(x)) = self(x)`. Where `outer` is
    /// not injective the smallest solution is taken (free variables zero).
    /// Errors when out dims differ or some image of `self` is not reachable
    /// through `outer`.
    pub fn invert_and_compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let mut a = self.out_dim_names();
        let mut b = outer.out_dim_names();
        a.sort();
        b.sort();
        if a != b {
            return Err(LayoutError::DimMismatch {
                detail: format!(
                    "out dims {:?} vs {:?}",
                    self.out_dim_names(),
                    outer.out_dim_names()
                ),
            });
        }
        for (n, s) in &self.outs {
            if *s > outer.out_dim_size(n) {
                return Err(LayoutError::DimMismatch {
                    detail: format!("out dim `{n}`: {s} > {}", outer.out_dim_size(n)),
                });
            }
        }
        // Express `outer` with sizes at least ours, in our out-dim order.
        let outer_t = outer.transpose_outs(&self.out_dim_names())?;
        let mut me = self.clone();
        me.outs = outer_t.outs.clone();
        let mo = outer_t.matrix();
        let e = mo.echelon();
        let out_sizes: Vec<(String, i32)> = outer
            .ins
            .iter()
            .map(|d| (d.name.clone(), 1i32 << d.bases.len()))
            .collect();
        let mut ins = Vec::new();
        for d in &me.ins {
            let mut bases = Vec::new();
            for (i, b) in d.bases.iter().enumerate() {
                let bits = me.basis_to_bits(b);
                let x = mo
                    .solve_with(&e, bits)
                    .ok_or_else(|| LayoutError::NoSolution {
                        detail: format!(
                            "{}={} maps to {:?}, which the outer layout never produces",
                            d.name,
                            1u64 << i,
                            b
                        ),
                    })?;
                // split x over outer's in dims
                let mut v = Vec::new();
                let mut off = 0;
                for od in &outer.ins {
                    let k = od.bases.len();
                    v.push(((x >> off) & ((1u64 << k) - 1)) as i32);
                    off += k;
                }
                bases.push(v);
            }
            ins.push((d.name.clone(), bases));
        }
        LinearLayout::new(ins, out_sizes, false)
    }

    /// Inverse of a bijective layout (out dims become in dims).
    pub fn invert(&self) -> Result<LinearLayout> {
        if !self.is_invertible() {
            return Err(LayoutError::NotInvertible {
                detail: format!(
                    "rank {} with {} in bits and {} out bits",
                    self.matrix().rank(),
                    self.total_in_bits(),
                    self.total_out_bits()
                ),
            });
        }
        self.pseudo_invert()
    }

    /// A right inverse on the image (Triton's `pseudoinvert`): for every
    /// output, the smallest input that produces it. Requires surjectivity.
    pub fn pseudo_invert(&self) -> Result<LinearLayout> {
        if !self.is_surjective() {
            return Err(LayoutError::NotSurjective {
                detail: "pseudo_invert needs a surjective layout".into(),
            });
        }
        let mut ident = LinearLayout::empty();
        for (n, s) in &self.outs {
            ident = ident.mul(&LinearLayout::identity_1d(*s, n, n)?)?;
        }
        ident.invert_and_compose(self)
    }

    /// The layout restricted to some in dims and out dims (in this layout's
    /// order). Errors on an unknown dim.
    pub fn sublayout(&self, in_dims: &[&str], out_dims: &[&str]) -> Result<LinearLayout> {
        for n in in_dims {
            if !self.has_in_dim(n) {
                return Err(LayoutError::UnknownDim {
                    kind: "in",
                    name: n.to_string(),
                });
            }
        }
        for n in out_dims {
            if !self.has_out_dim(n) {
                return Err(LayoutError::UnknownDim {
                    kind: "out",
                    name: n.to_string(),
                });
            }
        }
        let keep: Vec<usize> = self
            .outs
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| out_dims.contains(&n.as_str()))
            .map(|(i, _)| i)
            .collect();
        let ins = self
            .ins
            .iter()
            .filter(|d| in_dims.contains(&d.name.as_str()))
            .map(|d| {
                (
                    d.name.clone(),
                    d.bases
                        .iter()
                        .map(|b| keep.iter().map(|&k| b[k]).collect())
                        .collect(),
                )
            })
            .collect();
        let outs = keep.iter().map(|&k| self.outs[k].clone()).collect();
        LinearLayout::new(ins, outs, false)
    }

    /// Triton's `getFreeVariableMasks`: for each in dim, the mask of its bases
    /// that are free, i.e. in the span of the bases before them (in dim order
    /// then basis order). Changing a free input bit can be compensated by
    /// earlier bits; zero bases are always free.
    pub fn free_variable_masks(&self) -> Vec<(String, u32)> {
        let pm = self.matrix().pivot_mask();
        let mut off = 0;
        self.ins
            .iter()
            .map(|d| {
                let k = d.bases.len();
                let full = if k == 0 { 0 } else { ((1u64 << k) - 1) as u32 };
                let piv = ((pm >> off) & ((1u64 << k) - 1)) as u32;
                off += k;
                (d.name.clone(), full & !piv)
            })
            .collect()
    }

    /// Reorder the in dims (a permutation of the existing names).
    pub fn transpose_ins(&self, order: &[String]) -> Result<LinearLayout> {
        let mut a = order.to_vec();
        let mut b = self.in_dim_names();
        a.sort();
        b.sort();
        if a != b {
            return Err(LayoutError::DimMismatch {
                detail: format!(
                    "{order:?} is not a permutation of {:?}",
                    self.in_dim_names()
                ),
            });
        }
        let ins = order
            .iter()
            .map(|n| self.ins.iter().find(|d| &d.name == n).unwrap().clone())
            .collect();
        Ok(LinearLayout {
            ins,
            outs: self.outs.clone(),
        })
    }

    /// Reorder the out dims (a permutation of the existing names).
    pub fn transpose_outs(&self, order: &[String]) -> Result<LinearLayout> {
        let mut a = order.to_vec();
        let mut b = self.out_dim_names();
        a.sort();
        b.sort();
        if a != b {
            return Err(LayoutError::DimMismatch {
                detail: format!(
                    "{order:?} is not a permutation of {:?}",
                    self.out_dim_names()
                ),
            });
        }
        let perm: Vec<usize> = order
            .iter()
            .map(|n| self.outs.iter().position(|o| &o.0 == n).unwrap())
            .collect();
        let ins = self
            .ins
            .iter()
            .map(|d| InDim {
                name: d.name.clone(),
                bases: d
                    .bases
                    .iter()
                    .map(|b| perm.iter().map(|&k| b[k]).collect())
                    .collect(),
            })
            .collect();
        let outs = perm.iter().map(|&k| self.outs[k].clone()).collect();
        Ok(LinearLayout { ins, outs })
    }

    /// Merge all in dims into one named `name` (first in dim minor).
    pub fn flatten_ins(&self, name: &str) -> Result<LinearLayout> {
        self.reshape_ins(&[(name.to_string(), 1i64 << self.total_in_bits())])
    }

    /// Merge all out dims into one named `name` (first out dim minor).
    pub fn flatten_outs(&self, name: &str) -> Result<LinearLayout> {
        self.reshape_outs(&[(name.to_string(), 1i64 << self.total_out_bits())])
    }

    /// Re-split the flattened inputs into new in dims (first minor); the
    /// total size must be unchanged.
    pub fn reshape_ins(&self, new_ins: &[(String, i64)]) -> Result<LinearLayout> {
        let mut total = 0;
        for (n, s) in new_ins {
            total += log2_exact(format!("size of in dim `{n}`"), *s)? as usize;
        }
        if total != self.total_in_bits() {
            return Err(LayoutError::DimMismatch {
                detail: format!("reshape_ins to 2^{total} from 2^{}", self.total_in_bits()),
            });
        }
        let all: Vec<Vec<i32>> = self.ins.iter().flat_map(|d| d.bases.clone()).collect();
        let mut it = all.into_iter();
        let ins = new_ins
            .iter()
            .map(|(n, s)| {
                (
                    n.clone(),
                    (&mut it).take(s.trailing_zeros() as usize).collect(),
                )
            })
            .collect();
        LinearLayout::new(ins, self.outs.clone(), false)
    }

    /// Re-split the flattened outputs into new out dims (first minor); the
    /// total size must be unchanged.
    pub fn reshape_outs(&self, new_outs: &[(String, i64)]) -> Result<LinearLayout> {
        let mut total = 0;
        let mut outs = Vec::new();
        for (n, s) in new_outs {
            total += log2_exact(format!("size of out dim `{n}`"), *s)? as usize;
            if *s > (1 << 30) {
                return Err(LayoutError::TooManyBits {
                    detail: format!("out dim `{n}` of size {s}"),
                });
            }
            outs.push((n.clone(), *s as i32));
        }
        if total != self.total_out_bits() {
            return Err(LayoutError::DimMismatch {
                detail: format!("reshape_outs to 2^{total} from 2^{}", self.total_out_bits()),
            });
        }
        let target = LinearLayout {
            ins: vec![],
            outs: outs.clone(),
        };
        let ins = self
            .ins
            .iter()
            .map(|d| {
                (
                    d.name.clone(),
                    d.bases
                        .iter()
                        .map(|b| target.bits_to_basis(self.basis_to_bits(b)))
                        .collect(),
                )
            })
            .collect();
        LinearLayout::new(ins, outs, false)
    }

    /// Replace the bases of in dim `name` (adding the dim at the end if absent).
    pub fn with_bases(&self, name: &str, bases: Vec<Vec<i32>>) -> Result<LinearLayout> {
        let mut ins: Vec<(String, Vec<Vec<i32>>)> = self
            .ins
            .iter()
            .map(|d| (d.name.clone(), d.bases.clone()))
            .collect();
        match ins.iter_mut().find(|d| d.0 == name) {
            Some(d) => d.1 = bases,
            None => ins.push((name.to_string(), bases)),
        }
        LinearLayout::new(ins, self.outs.clone(), false)
    }
}

impl fmt::Display for LinearLayout {
    /// Exactly Triton's `LinearLayout::toString()` (leading newline, no
    /// trailing one).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outs = format!(
            "[{}]",
            self.outs
                .iter()
                .map(|(n, s)| format!("{n} (size {s})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if self.ins.is_empty() {
            if self.outs.is_empty() {
                return write!(f, "\n(empty layout)");
            }
            return write!(f, "\n(empty layout with out-dims {outs})");
        }
        let mut s = String::from("\n");
        for d in &self.ins {
            if d.bases.is_empty() {
                s += &format!(" - {} is a size 1 dimension\n", d.name);
                continue;
            }
            let lines: Vec<String> = d
                .bases
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    format!(
                        "{}={} -> ({})",
                        d.name,
                        1u64 << i,
                        b.iter()
                            .map(|v| v.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
                .collect();
            s += &format!(" - {}\n", lines.join("\n   "));
        }
        s += &format!("where out dims are: {outs}");
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> String {
        x.to_string()
    }

    fn ll(ins: Vec<(&str, Vec<Vec<i32>>)>, outs: &[&str]) -> LinearLayout {
        LinearLayout::from_bases(
            ins.into_iter().map(|(n, b)| (n.to_string(), b)).collect(),
            &outs.iter().map(|x| x.to_string()).collect::<Vec<_>>(),
            false,
        )
        .unwrap()
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, Identity1D)
    #[test]
    fn identity_1d() {
        let l = LinearLayout::identity_1d(32, "ins", "outs").unwrap();
        assert_eq!(
            l.bases("ins"),
            &[vec![1], vec![2], vec![4], vec![8], vec![16]]
        );
        assert_eq!(l.out_dim_size("outs"), 32);
        assert!(l.is_invertible());
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, Zeros1D)
    #[test]
    fn zeros_1d() {
        let l = LinearLayout::zeros_1d(32, "ins", "outs", 1).unwrap();
        assert_eq!(l.bases("ins"), vec![vec![0]; 5].as_slice());
        assert_eq!(l.out_dim_size("outs"), 1);
        assert_eq!(l.apply(&[("ins", 17)]).unwrap(), vec![(s("outs"), 0)]);
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, MultiplyIdentity)
    #[test]
    fn multiply_identity() {
        let prod = LinearLayout::identity_1d(16, "in", "out")
            .unwrap()
            .mul(&LinearLayout::identity_1d(32, "in", "out").unwrap())
            .unwrap();
        assert_eq!(prod, LinearLayout::identity_1d(512, "in", "out").unwrap());
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, MultiplyDisjoint)
    #[test]
    fn multiply_disjoint() {
        let prod = LinearLayout::identity_1d(32, "in1", "out1")
            .unwrap()
            .mul(&LinearLayout::identity_1d(16, "in2", "out2").unwrap())
            .unwrap();
        let want = ll(
            vec![
                (
                    "in1",
                    vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]],
                ),
                ("in2", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8]]),
            ],
            &["out1", "out2"],
        );
        assert_eq!(prod, want);
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, MultiplyByEmpty)
    #[test]
    fn multiply_by_empty() {
        let prod = LinearLayout::empty()
            .mul(&LinearLayout::identity_1d(32, "in", "out").unwrap())
            .unwrap();
        assert_eq!(prod, LinearLayout::identity_1d(32, "in", "out").unwrap());
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, MultiplyByZeros)
    #[test]
    fn multiply_by_zeros() {
        let prod = LinearLayout::identity_1d(8, "in", "out")
            .unwrap()
            .mul(&LinearLayout::zeros_1d(16, "in", "out", 1).unwrap())
            .unwrap();
        let want = ll(
            vec![(
                "in",
                vec![
                    vec![1],
                    vec![2],
                    vec![4],
                    vec![0],
                    vec![0],
                    vec![0],
                    vec![0],
                ],
            )],
            &["out"],
        );
        assert_eq!(prod, want);
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, MultiplyZerosByDegenerate)
    #[test]
    fn multiply_zeros_by_degenerate() {
        let prod = LinearLayout::zeros_1d(16, "in", "out1", 1)
            .unwrap()
            .mul(&LinearLayout::new(vec![(s("in"), vec![])], vec![(s("out2"), 1)], false).unwrap())
            .unwrap();
        let want = LinearLayout::new(
            vec![(s("in"), vec![vec![0, 0]; 4])],
            vec![(s("out1"), 1), (s("out2"), 1)],
            false,
        )
        .unwrap();
        assert_eq!(prod, want);
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, ApplyDisjoint)
    #[test]
    fn apply_disjoint() {
        let l = LinearLayout::identity_1d(32, "in1", "out1")
            .unwrap()
            .mul(&LinearLayout::identity_1d(16, "in2", "out2").unwrap())
            .unwrap();
        assert_eq!(
            l.apply(&[("in1", 5), ("in2", 9)]).unwrap(),
            vec![(s("out1"), 5), (s("out2"), 9)]
        );
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, Compose)
    #[test]
    fn compose() {
        let l1 = LinearLayout::identity_1d(4, "in1", "out1")
            .unwrap()
            .mul(&LinearLayout::identity_1d(8, "in2", "out2").unwrap())
            .unwrap();
        let l2 = LinearLayout::identity_1d(4, "out1", "out3")
            .unwrap()
            .mul(&LinearLayout::identity_1d(8, "out2", "out4").unwrap())
            .unwrap();
        let c = l1.compose(&l2).unwrap();
        assert_eq!(c.bases("in1"), &[vec![1, 0], vec![2, 0]]);
        assert_eq!(c.bases("in2"), &[vec![0, 1], vec![0, 2], vec![0, 4]]);
        assert_eq!(c.out_dim_names(), vec![s("out3"), s("out4")]);
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, InvertAndCompose_Simple)
    #[test]
    fn invert_and_compose_simple() {
        let l1 = ll(vec![("in1", vec![vec![2], vec![1], vec![4]])], &["out"]);
        let l2 = ll(vec![("in2", vec![vec![4], vec![1], vec![2]])], &["out"]);
        // Inverse of l2 is out(1) => in2(2), out(2) => in2(4), out(4) => in2(1).
        // Composing with l1 gives in1(1) => in2(4), in1(2) => in2(2), in1(4) => in2(1).
        let c = l1.invert_and_compose(&l2).unwrap();
        assert_eq!(c.bases("in1"), &[vec![4], vec![2], vec![1]]);
        assert_eq!(c.out_dim_names(), vec![s("in2")]);
    }

    // LinearLayoutTest.cpp: TEST_F(LinearLayoutTest, InvertAndCompose_BroadcastedInDim)
    #[test]
    fn invert_and_compose_broadcasted_in_dim() {
        let l1 = ll(
            vec![
                ("in1", vec![vec![2], vec![1], vec![4]]),
                ("in2", vec![vec![0]]),
            ],
            &["out"],
        );
        let l2 = ll(vec![("in", vec![vec![4], vec![1], vec![2]])], &["out"]);
        let c = l1.invert_and_compose(&l2).unwrap();
        assert_eq!(c.bases("in1"), &[vec![4], vec![2], vec![1]]);
        assert_eq!(c.bases("in2"), &[vec![0]]);
    }

    // warpforge's own case for the rule Triton's invertAndCompose documents:
    // a non-injective outer layout gives the smallest (minimum-norm) solution.
    #[test]
    fn invert_and_compose_non_injective_outer_takes_smallest() {
        let l1 = ll(vec![("in", vec![vec![1], vec![2]])], &["out"]);
        let l2 = ll(vec![("x", vec![vec![1], vec![1], vec![2]])], &["out"]);
        let c = l1.invert_and_compose(&l2).unwrap();
        assert_eq!(c.bases("in"), &[vec![1], vec![4]]);
    }

    // Modelled on LinearLayoutTest.cpp's free-variable-mask cases.
    #[test]
    fn free_variable_masks() {
        let l = ll(
            vec![
                ("in1", vec![vec![1], vec![0]]),
                ("in2", vec![vec![0], vec![2], vec![1]]),
            ],
            &["out"],
        );
        assert_eq!(
            l.free_variable_masks(),
            vec![(s("in1"), 0b10), (s("in2"), 0b101)]
        );
    }

    // Modelled on LinearLayoutTest.cpp's sublayout cases.
    #[test]
    fn sublayout() {
        let l = ll(
            vec![
                ("in1", vec![vec![1, 0], vec![0, 1]]),
                ("in2", vec![vec![2, 0]]),
            ],
            &["out1", "out2"],
        );
        let sub = l.sublayout(&["in1"], &["out1"]).unwrap();
        assert_eq!(sub.bases("in1"), &[vec![1], vec![0]]);
        assert!(l.sublayout(&["nope"], &[]).is_err());
    }

    #[test]
    fn flatten_and_reshape_round_trip() {
        let l = ll(
            vec![
                ("register", vec![vec![0, 1], vec![8, 0]]),
                ("lane", vec![vec![0, 2], vec![1, 0]]),
            ],
            &["dim0", "dim1"],
        );
        let f = l.flatten_outs("x").unwrap();
        // dim0 is minor: (0, 1) -> 1 << log2(size dim0) = 16
        assert_eq!(f.bases("register"), &[vec![16], vec![8]]);
        let back = f.reshape_outs(&[(s("dim0"), 16), (s("dim1"), 4)]).unwrap();
        assert_eq!(back, l);
        let fi = l.flatten_ins("hw").unwrap();
        assert_eq!(fi.in_dim_size_log2("hw"), 4);
    }

    #[test]
    fn invert_and_pseudo_invert() {
        let l = ll(vec![("in", vec![vec![2], vec![1], vec![4]])], &["out"]);
        let inv = l.invert().unwrap();
        assert_eq!(inv.bases("out"), &[vec![2], vec![1], vec![4]]);
        let nonsurj = ll(vec![("in", vec![vec![2], vec![0]])], &["out"]);
        assert!(nonsurj.pseudo_invert().is_err());
        let bcast = ll(vec![("in", vec![vec![1], vec![0], vec![2]])], &["out"]);
        assert!(bcast.invert().is_err());
        assert_eq!(
            bcast.pseudo_invert().unwrap().bases("out"),
            &[vec![1], vec![4]]
        );
    }

    // The exact text of Triton's toString (see test/Conversion/amd/in_thread_transpose.mlir).
    #[test]
    fn display_matches_triton() {
        let l = LinearLayout::new(
            vec![
                (s("register"), vec![vec![1, 0], vec![2, 0]]),
                (s("lane"), vec![vec![0, 4]]),
                (s("warp"), vec![]),
            ],
            vec![(s("dim0"), 32), (s("dim1"), 32)],
            false,
        )
        .unwrap();
        assert_eq!(
            l.to_string(),
            "\n - register=1 -> (1, 0)\n   register=2 -> (2, 0)\n - lane=1 -> (0, 4)\n - warp is a size 1 dimension\nwhere out dims are: [dim0 (size 32), dim1 (size 32)]"
        );
        assert_eq!(LinearLayout::empty().to_string(), "\n(empty layout)");
    }

    #[test]
    fn errors_name_the_fault() {
        let e = LinearLayout::identity_1d(12, "in", "out").unwrap_err();
        assert!(e.to_string().contains("power of two"), "{e}");
        let e = LinearLayout::new(vec![(s("in"), vec![vec![9]])], vec![(s("out"), 8)], false)
            .unwrap_err();
        assert!(e.to_string().contains("outside 0..8"), "{e}");
        let e = LinearLayout::new(vec![(s("in"), vec![vec![2]])], vec![(s("out"), 4)], true)
            .unwrap_err();
        assert!(matches!(e, LayoutError::NotSurjective { .. }));
    }
}
