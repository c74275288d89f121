//! Triton distributed encodings to linear layouts, for a tensor shape and a
//! CTA of `num_warps` warps of 32 lanes.
//!
//! Follows Triton's `lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`:
//! `BlockedEncodingAttr::toLinearLayout`, `nvidiaMmaTile`,
//! `NvidiaMmaEncodingAttr::toLinearLayout`, `warpsNvidiaDot`,
//! `nvidiaDotToLinearLayout`, `SliceEncodingAttr::toLinearLayout`,
//! `makeCgaLayout`, `combineCtaCgaWithShape`, `ensureLayoutNotLargerThan`
//! (registers broadcast, the default) and `ensureLayoutNotSmallerThan`.
//! Orders: Ampere MMA warps row-major, Hopper MMA warps column-major
//! (`NvidiaMmaEncodingAttr::getWarpOrder`); dot operands k-contiguous
//! (`getOrderForDotOperand`).

use crate::layout::{
    standard_out_dim_names, LayoutError, LinearLayout, BLOCK, LANE, REGISTER, WARP,
};

mod amd;
pub use amd::{MFMA_LANES, WMMA_LANES};

/// Lanes of the warps warpforge plans, emits and verifies conversions for
/// (NVIDIA's 32): [`Encoding::to_linear_layout`] computes layouts for them.
pub const NVIDIA_LANES: u32 = 32;

/// The CTA (cluster) fields of an encoding: `CTAsPerCGA`, `CTASplitNum`,
/// `CTAOrder`, or the `CGALayout` bases that later Triton versions (and
/// Gluon's `cga_layout`) write instead. `None` in an encoding means one CTA.
///
/// With the three fields, dim `d` is spread over `CTAsPerCGA[d]` CTAs of
/// which `CTASplitNum[d]` hold different parts of the tensor (the others
/// hold copies: a broadcast), CTA id bits taken over dims in `CTAOrder`
/// (minor first, as `order` does for warps): Triton's `makeCgaLayout`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CtaLayout {
    pub ctas_per_cga: Vec<u32>,
    pub cta_split_num: Vec<u32>,
    pub cta_order: Vec<u32>,
    /// `CGALayout = [[..], ..]` / Gluon `cga_layout`: for each CTA id bit
    /// (minor first), the tensor offset it adds in units of one CTA's tile
    /// per dim (all zeros: a broadcast bit). When set, the three fields
    /// above are empty and unused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cga_bases: Option<Vec<Vec<i32>>>,
}

/// Most CTAs in a cluster warpforge accepts: 16, the non-portable cluster
/// size limit of sm_90 (8 is the portable one; CUDA C++ Programming Guide,
/// "Thread Block Clusters").
pub const MAX_CTAS: u32 = 16;

impl CtaLayout {
    /// Number of CTAs (the product of `CTAsPerCGA`, or 2^bases), saturating.
    pub fn num_ctas(&self) -> u64 {
        match &self.cga_bases {
            Some(b) => 1u64.checked_shl(b.len() as u32).unwrap_or(u64::MAX),
            None => product(&self.ctas_per_cga),
        }
    }
}

/// A Triton distributed encoding attribute.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Encoding {
    /// `#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order[, CTA fields]}>`
    Blocked {
        size_per_thread: Vec<u32>,
        threads_per_warp: Vec<u32>,
        warps_per_cta: Vec<u32>,
        order: Vec<u32>,
        cta: Option<CtaLayout>,
    },
    /// `#ttg.linear<{register, lane, warp, block}>`: bases given outright.
    Linear {
        register: Vec<Vec<i32>>,
        lane: Vec<Vec<i32>>,
        warp: Vec<Vec<i32>>,
        block: Vec<Vec<i32>>,
    },
    /// A CuTe thread-value layout (`input::cute`): the column-major index
    /// into the M x N tile each thread bit and each value bit adds (0: a
    /// broadcast). Thread bits become lane bits then warp bits, value bits
    /// register bits, once `--shape` gives M and N.
    CuteTv {
        thread: Vec<u64>,
        value: Vec<u64>,
        /// The CuTe text, for headers and reports.
        text: String,
    },
    /// A named PTX register fragment (`input::fragment`): the atom's
    /// register, lane and warp bases as `(row, column)` offsets, its tile,
    /// and the warps tiling it (`[0, 0]`: every warp along M). Repetitions
    /// over `--shape` become register bits, M first (CuTe's order).
    PtxFragment {
        /// 0: an A operand (copied by warps along N), 1: B (copied by warps
        /// along M), 2: both axes tiled.
        operand: u8,
        reg: Vec<[u32; 2]>,
        lane: Vec<[u32; 2]>,
        atom_warp: Vec<[u32; 2]>,
        tile: [u32; 2],
        warps: [u32; 2],
        /// The `ptx:` text, for headers and reports.
        text: String,
    },
    /// `#ttg.slice<{dim, parent}>`: the parent with dim `dim` removed.
    Slice { dim: u32, parent: Box<Encoding> },
    /// `#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA, instrShape[, CTA fields]}>`
    NvidiaMma {
        version_major: u32,
        version_minor: u32,
        warps_per_cta: Vec<u32>,
        instr_shape: Vec<u32>,
        cta: Option<CtaLayout>,
    },
    /// `#ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed[,
    /// tilesPerWarp][, elementBitWidth][, CTA fields]}>` (Triton 3.6): an
    /// AMD CDNA matrix-core accumulator, 64 lanes ([`MFMA_LANES`]).
    AmdMfma {
        /// 1-4: gfx908, gfx90a, gfx942, gfx950.
        version: u32,
        warps_per_cta: Vec<u32>,
        /// `[M, N, K]` of the instruction: M x N 32x32, 16x16, 64x4 or 4x64.
        instr_shape: Vec<u32>,
        is_transposed: bool,
        /// Instruction tiles a warp holds per dim; empty: one per dim.
        tiles_per_warp: Vec<u32>,
        /// Bits of the accumulator element: 32 (4 rows per lane) or 64 (1).
        element_bit_width: u32,
        cta: Option<CtaLayout>,
    },
    /// `#ttg.amd_wmma<{version, isTranspose, warpsPerCTA[, tilesPerWarp][,
    /// instrShape][, CTA fields]}>` (Triton 3.6): an AMD RDNA/gfx1250
    /// matrix-core accumulator, 32 lanes ([`WMMA_LANES`]).
    AmdWmma {
        /// 1-3: RDNA3, RDNA4, gfx1250.
        version: u32,
        is_transposed: bool,
        warps_per_cta: Vec<u32>,
        /// Instruction tiles a warp holds per dim; empty: one per dim.
        tiles_per_warp: Vec<u32>,
        /// `[M, N, K]` of the instruction (`[16, 16, 16]` when not printed).
        instr_shape: Vec<u32>,
        cta: Option<CtaLayout>,
    },
    /// `#ttg.dot_op<{opIdx, parent, kWidth}>`: an operand of a dot whose
    /// result has the `parent` layout (`nvidia_mma`, `blocked`, `amd_mfma`,
    /// `amd_wmma`).
    DotOperand {
        op_idx: u32,
        parent: Box<Encoding>,
        k_width: u32,
    },
}

/// Errors turning an encoding into a layout; each names the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodingError {
    #[error("{encoding}: {field} {detail}")]
    Field {
        encoding: &'static str,
        field: &'static str,
        detail: String,
    },
    #[error("{encoding}: unsupported: {detail}")]
    Unsupported {
        encoding: &'static str,
        detail: String,
    },
    #[error("tensor shape {shape:?}: {detail}")]
    Shape { shape: Vec<i64>, detail: String },
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

type Result<T> = std::result::Result<T, EncodingError>;

fn is_pow2(v: i64) -> bool {
    v > 0 && v & (v - 1) == 0
}

/// The product of `v`, saturating (hostile input may overflow u32).
fn product(v: &[u32]) -> u64 {
    v.iter().fold(1u64, |a, &x| a.saturating_mul(x as u64))
}

/// Largest entry of a size field (sizePerThread, instrShape, ...): larger
/// ones cannot fit a tensor of at most 64 bits of coordinates in i32 sizes.
const MAX_FIELD: u32 = 1 << 24;

fn check_pow2(encoding: &'static str, field: &'static str, v: &[u32]) -> Result<()> {
    for &x in v {
        if x > MAX_FIELD {
            return Err(EncodingError::Field {
                encoding,
                field,
                detail: format!("{v:?}: {x} is too large (at most 2^24)"),
            });
        }
        if !is_pow2(x as i64) {
            return Err(EncodingError::Field {
                encoding,
                field,
                detail: format!("{v:?}: {x} is not a power of two"),
            });
        }
    }
    Ok(())
}

fn check_order(
    encoding: &'static str,
    field: &'static str,
    order: &[u32],
    rank: usize,
) -> Result<()> {
    let mut o = order.to_vec();
    o.sort();
    if o != (0..rank as u32).collect::<Vec<_>>() {
        return Err(EncodingError::Field {
            encoding,
            field,
            detail: format!("{order:?} is not a permutation of 0..{rank}"),
        });
    }
    Ok(())
}

fn check_rank(encoding: &'static str, field: &'static str, v: &[u32], rank: usize) -> Result<()> {
    if v.len() != rank {
        return Err(EncodingError::Field {
            encoding,
            field,
            detail: format!("{v:?} has {} entries, the tensor has rank {rank}", v.len()),
        });
    }
    Ok(())
}

/// Triton's `identityStandardND`: identity over `shape` in dims taken in `order` (minor first).
pub fn identity_standard_nd(in_dim: &str, shape: &[u32], order: &[u32]) -> Result<LinearLayout> {
    let names = standard_out_dim_names(shape.len());
    let mut ret = LinearLayout::empty();
    for &d in order {
        ret = ret.mul(&LinearLayout::identity_1d(
            shape[d as usize] as i32,
            in_dim,
            &names[d as usize],
        )?)?;
    }
    Ok(ret)
}

/// Triton's `getMatrixOrder(rank, rowMajor)`.
pub fn matrix_order(rank: usize, row_major: bool) -> Vec<u32> {
    let mut o: Vec<u32> = (0..rank as u32).rev().collect();
    if !row_major {
        o.swap(0, 1);
    }
    o
}

/// Triton's `getOrderForDotOperand(opIdx, rank, kContig = true)`.
pub fn dot_operand_order(op_idx: u32, rank: usize) -> Vec<u32> {
    // k is the last dim for A (opIdx 0), the second to last for B.
    matrix_order(rank, op_idx == 0)
}

fn make_cga_layout(cta: &CtaLayout, rank: usize) -> Result<LinearLayout> {
    let names = standard_out_dim_names(rank);
    if let Some(bases) = &cta.cga_bases {
        return cga_bases_layout(bases, &names);
    }
    let mut ret = LinearLayout::empty();
    for &d in &cta.cta_order {
        let d = d as usize;
        let split = cta.cta_split_num[d];
        let ctas = cta.ctas_per_cga[d];
        if split == 0 || !ctas.is_multiple_of(split) {
            return Err(EncodingError::Field {
                encoding: "CTA layout",
                field: "CTASplitNum",
                detail: format!("{split} does not divide CTAsPerCGA {ctas}"),
            });
        }
        ret = ret
            .mul(&LinearLayout::identity_1d(split as i32, BLOCK, &names[d])?)?
            .mul(&LinearLayout::zeros_1d(
                (ctas / split) as i32,
                BLOCK,
                &names[d],
                1,
            )?)?;
    }
    // Make sure every out dim exists, in standard order.
    for n in &names {
        if !ret.has_out_dim(n) {
            ret = ret.mul(&LinearLayout::identity_1d(1, BLOCK, n)?)?;
        }
    }
    Ok(ret.transpose_outs(&names)?)
}

/// The CGA layout of `CGALayout` bases: block bit `i` to `bases[i]` (CTA
/// tile units per dim); each dim's size is what its bases span. Errors name
/// `CGALayout` for a basis of the wrong rank, a negative entry, or bases
/// that leave a CTA tile of their span unheld (not surjective).
fn cga_bases_layout(bases: &[Vec<i32>], names: &[String]) -> Result<LinearLayout> {
    let field = |detail: String| EncodingError::Field {
        encoding: "CTA layout",
        field: "CGALayout",
        detail,
    };
    if bases.len() > MAX_CTAS.trailing_zeros() as usize {
        return Err(field(format!(
            "has {} bases: {} CTAs, more than {MAX_CTAS}",
            bases.len(),
            1u64.checked_shl(bases.len() as u32).unwrap_or(u64::MAX)
        )));
    }
    let mut or = vec![0i64; names.len()];
    for (i, b) in bases.iter().enumerate() {
        if b.len() != names.len() {
            return Err(field(format!(
                "basis {i} {b:?} has {} entries, the tensor has rank {}",
                b.len(),
                names.len()
            )));
        }
        for (d, &x) in b.iter().enumerate() {
            if x < 0 {
                return Err(field(format!("basis {i} {b:?}: {x} is negative")));
            }
            or[d] |= x as i64;
        }
    }
    let outs: Vec<(String, i32)> = names
        .iter()
        .zip(&or)
        .map(|(n, &o)| {
            let size = if o == 0 {
                1
            } else {
                1i64 << (64 - o.leading_zeros())
            };
            (n.clone(), size.min(1 << 30) as i32)
        })
        .collect();
    let l = LinearLayout::new(vec![(BLOCK.into(), bases.to_vec())], outs, false)?;
    if !l.is_surjective() {
        return Err(field(format!(
            "{bases:?}: the bases do not span a grid of CTA tiles (some tile would have no CTA)"
        )));
    }
    Ok(l)
}

/// Triton's `ensureLayoutNotLargerThan` with `broadcastRegisters = true`:
/// zero the largest bases of every out dim larger than `shape`.
pub fn ensure_not_larger(layout: &LinearLayout, shape: &[(String, i64)]) -> Result<LinearLayout> {
    ensure_not_larger_with(layout, shape, true)
}

/// Triton's `ensureLayoutNotLargerThan`: with `broadcast_registers`, the
/// largest bases of every out dim larger than `shape` become zero; without,
/// such register bases are removed instead (other dims' still zeroed).
pub fn ensure_not_larger_with(
    layout: &LinearLayout,
    shape: &[(String, i64)],
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    let mut dropped: Vec<usize> = Vec::new();
    let mut ins: Vec<(String, Vec<Vec<i32>>)> = layout
        .in_dims()
        .iter()
        .map(|d| (d.name.clone(), d.bases.clone()))
        .collect();
    let mut outs = layout.out_dims().to_vec();
    for (k, (name, size)) in layout.out_dims().iter().enumerate() {
        let desired = shape
            .iter()
            .find(|s| &s.0 == name)
            .map(|s| s.1)
            .unwrap_or(1);
        let mut actual = *size as i64;
        if actual <= desired {
            continue;
        }
        let mut sorted: Vec<(usize, usize, i32)> = Vec::new();
        for (di, (_, bases)) in ins.iter().enumerate() {
            for (bi, b) in bases.iter().enumerate() {
                if b[k] != 0 {
                    sorted.push((di, bi, b[k]));
                }
            }
        }
        sorted.sort_by(|a, b| b.2.cmp(&a.2));
        for (di, bi, _) in sorted {
            if actual <= desired {
                break;
            }
            if !broadcast_registers && ins[di].0 == REGISTER {
                dropped.push(bi);
            } else {
                ins[di].1[bi][k] = 0;
            }
            actual >>= 1;
        }
        outs[k].1 = desired as i32;
    }
    if let Some(r) = ins.iter_mut().find(|d| d.0 == REGISTER) {
        let kept: Vec<Vec<i32>> =
            r.1.iter()
                .enumerate()
                .filter(|(i, _)| !dropped.contains(i))
                .map(|(_, b)| b.clone())
                .collect();
        r.1 = kept;
    }
    Ok(LinearLayout::new(ins, outs, false)?)
}

/// Triton's `ensureLayoutNotSmallerThan`: extend the first in dim
/// (registers) with identity bases for every out dim smaller than `shape`,
/// out dims taken in the layout's order.
pub fn ensure_not_smaller(layout: &LinearLayout, shape: &[(String, i64)]) -> Result<LinearLayout> {
    let k_dim = layout
        .in_dims()
        .first()
        .map(|d| d.name.clone())
        .unwrap_or_else(|| REGISTER.to_string());
    let mut ret = layout.clone();
    for (name, size) in layout.out_dims() {
        let desired = shape
            .iter()
            .find(|s| &s.0 == name)
            .map(|s| s.1)
            .unwrap_or(1);
        let actual = *size as i64;
        if desired > actual {
            ret = ret.mul(&LinearLayout::identity_1d(
                (desired / actual) as i32,
                &k_dim,
                name,
            )?)?;
        }
    }
    Ok(ret)
}

/// `#ttg.linear` ([`Encoding::Linear`]): Triton's
/// `LinearEncodingAttr::toLinearLayout(shape)`. The layout of the bases as
/// written (each out dim as large as its largest basis needs,
/// Triton's `LinearLayout(bases, outDimNames)`), fitted to `shape` by
/// [`ensure_not_smaller`] (registers cover what the bases do not reach) and
/// [`ensure_not_larger`] (bases past the shape broadcast), so that a layout
/// written for one shape reads, as Triton reads it, at another (a slice's
/// parent at the slice's shape, a `linear` attribute on a smaller tensor).
///
/// Errors: bases of another rank than `shape`, or values out of `i32`.
fn linear_at_shape(
    register: &[Vec<i32>],
    lane: &[Vec<i32>],
    warp: &[Vec<i32>],
    block: &[Vec<i32>],
    shape: &[i64],
) -> Result<LinearLayout> {
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let all = || register.iter().chain(lane).chain(warp).chain(block);
    if let Some(b) = all().find(|b| b.len() != rank) {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: format!(
                "linear basis {b:?} has {} entries for a rank-{rank} tensor",
                b.len()
            ),
        });
    }
    let own: Vec<(String, i32)> = names
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let max = all().map(|b| b[k].max(0) as u32).max().unwrap_or(0);
            // llvm::NextPowerOf2: the least power of two above max
            let size = if max == 0 {
                1
            } else {
                (max + 1).next_power_of_two()
            };
            (n.clone(), size.min(1 << 30) as i32)
        })
        .collect();
    let l = LinearLayout::new(
        vec![
            (REGISTER.into(), register.to_vec()),
            (LANE.into(), lane.to_vec()),
            (WARP.into(), warp.to_vec()),
            (BLOCK.into(), block.to_vec()),
        ],
        own,
        false,
    )?;
    let want: Vec<(String, i64)> = names.iter().cloned().zip(shape.iter().copied()).collect();
    // registers extend the dims in the layout's order (Triton's getRepOrder
    // of a linear encoding: dims as its register bases first move them,
    // then the rest from the last dim down: `orderPerDimImpl`)
    let mut order: Vec<usize> = Vec::new();
    for b in register {
        if let Some(k) = b.iter().position(|&v| v != 0) {
            if !order.contains(&k) {
                order.push(k);
            }
        }
    }
    for k in (0..rank).rev() {
        if !order.contains(&k) {
            order.push(k);
        }
    }
    let mut l = l;
    for k in order {
        let (name, desired) = &want[k];
        let actual = l.out_dim_size(name) as i64;
        if *desired > actual {
            l = l.mul(&LinearLayout::identity_1d(
                (*desired / actual) as i32,
                REGISTER,
                name,
            )?)?;
        }
    }
    ensure_not_larger_with(&l, &want, false)
}

/// `#ttg.dot_op` with a `blocked` parent ([`Encoding::DotOperand`]):
/// Triton's `fmaDotToLinearLayout`. The operand `op_idx` of an FMA dot: each thread holds the whole K extent
/// (`shape[K]` registers along K, K the last dim for A and the second to
/// last for B), lanes and warps broadcast along K, dims in the parent's
/// order.
///
/// Errors: those of the parent blocked layout (rank, warps, powers of two).
fn fma_dot_layout(
    op_idx: u32,
    parent: &Encoding,
    shape: &[i64],
    num_warps: u32,
    lanes: u32,
) -> Result<LinearLayout> {
    let Encoding::Blocked {
        size_per_thread,
        threads_per_warp,
        warps_per_cta,
        order,
        cta,
    } = parent
    else {
        unreachable!("fma_dot_layout takes a blocked parent");
    };
    // the parent's own checks (rank, warps, lanes)
    parent.to_linear_layout_lanes(shape, num_warps, lanes)?;
    let rank = shape.len();
    let k = if op_idx == 0 { rank - 1 } else { rank - 2 };
    let names = standard_out_dim_names(rank);
    let rep_names: Vec<String> = order.iter().map(|&d| names[d as usize].clone()).collect();
    let mut thread_size = size_per_thread.clone();
    thread_size[k] = shape[k] as u32;
    let broadcast = |sizes: &[u32], in_dim: &str| -> Result<LinearLayout> {
        let mut l = LinearLayout::empty();
        for &d in order {
            let d = d as usize;
            let one = if d == k {
                LinearLayout::zeros_1d(sizes[d] as i32, in_dim, &names[d], 1)?
            } else {
                LinearLayout::identity_1d(sizes[d] as i32, in_dim, &names[d])?
            };
            l = l.mul(&one)?;
        }
        Ok(l)
    };
    let regs = identity_standard_nd(REGISTER, &thread_size, order)?.transpose_outs(&rep_names)?;
    let lanes = broadcast(threads_per_warp, LANE)?.transpose_outs(&rep_names)?;
    let warps = broadcast(warps_per_cta, WARP)?.transpose_outs(&rep_names)?;
    let l = regs.mul(&lanes)?.mul(&warps)?;
    combine_cta_cga_with_shape(l, cta, shape)
}

/// Triton's `combineCtaCgaWithShape`.
pub fn combine_cta_cga_with_shape(
    cta_layout: LinearLayout,
    cta: &Option<CtaLayout>,
    shape: &[i64],
) -> Result<LinearLayout> {
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let labeled: Vec<(String, i64)> = names.iter().cloned().zip(shape.iter().copied()).collect();
    let default_cta = CtaLayout {
        ctas_per_cga: vec![1; rank],
        cta_split_num: vec![1; rank],
        cta_order: (0..rank as u32).rev().collect(),
        cga_bases: None,
    };
    let cta = cta.clone().unwrap_or(default_cta);
    let cga = make_cga_layout(&cta, rank)?;
    let cga = ensure_not_larger(&cga, &labeled)?.transpose_outs(&cta_layout.out_dim_names())?;
    let cta_shape: Vec<(String, i64)> = cta_layout
        .out_dim_names()
        .into_iter()
        .map(|n| {
            let full = labeled.iter().find(|s| s.0 == n).unwrap().1;
            let s = (full / cga.out_dim_size(&n) as i64).max(1);
            (n, s)
        })
        .collect();
    let l = ensure_not_smaller(&cta_layout, &cta_shape)?;
    let l = ensure_not_larger(&l, &cta_shape)?;
    let ret = l.mul(&cga)?.transpose_outs(&names)?;
    Ok(ret)
}

/// Triton's `nvidiaMmaTile`: the registers and lanes of one mma tile of
/// `tile_shape` (for [`nvidia_mma_layout`] and [`nvidia_dot_layout`]), with
/// `order[0]` the inner dim and `order[1]` the outer: `k_width` registers
/// along the inner dim, 4 lanes along it and 8 along the outer, then
/// register repeats down the outer dim (M / 8) and along the inner (N /
/// (4 kWidth)). `rep_order` orders the out dims.
///
/// Errors: an outer extent not a multiple of 8, an inner one not a
/// multiple of 4 x kWidth.
fn nvidia_mma_tile(
    tile_shape: &[u32],
    k_width: u32,
    order: &[u32],
    rep_order: &[u32],
) -> Result<LinearLayout> {
    let rank = rep_order.len();
    let names = standard_out_dim_names(rank);
    let mut l = identity_standard_nd(REGISTER, &vec![1; rank], rep_order)?;
    let inner = order[0] as usize;
    let outer = order[1] as usize;
    let m = tile_shape[outer];
    let n = tile_shape[inner];
    if !m.is_multiple_of(8) || !n.is_multiple_of(k_width * 4) {
        return Err(EncodingError::Unsupported {
            encoding: "nvidia_mma tile",
            detail: format!("tile {tile_shape:?} with kWidth {k_width}"),
        });
    }
    l = l
        .mul(&LinearLayout::identity_1d(
            k_width as i32,
            REGISTER,
            &names[inner],
        )?)?
        .mul(&LinearLayout::identity_1d(4, LANE, &names[inner])?)?
        .mul(&LinearLayout::identity_1d(8, LANE, &names[outer])?)?
        .mul(&LinearLayout::identity_1d(
            (m / 8) as i32,
            REGISTER,
            &names[outer],
        )?)?
        .mul(&LinearLayout::identity_1d(
            (n / (k_width * 4)) as i32,
            REGISTER,
            &names[inner],
        )?)?;
    Ok(l)
}

fn mma_warp_order(version_major: u32, rank: usize) -> Vec<u32> {
    // Hopper (wgmma) warps are column-major; Ampere row-major.
    matrix_order(rank, version_major != 3)
}

fn check_cta(enc: &'static str, cta: &Option<CtaLayout>, rank: usize) -> Result<()> {
    check_cta_fields(enc, ["CTAsPerCGA", "CTASplitNum", "CTAOrder"], cta, rank)
}

/// [`check_cta`] with the fields named `names` (a dot operand's are its
/// parent's: `parent CTAOrder`).
fn check_cta_fields(
    enc: &'static str,
    [per_cga, split, order]: [&'static str; 3],
    cta: &Option<CtaLayout>,
    rank: usize,
) -> Result<()> {
    if let Some(c) = cta {
        if c.cga_bases.is_some() {
            // checked where the CGA layout is built (`cga_bases_layout`)
            return Ok(());
        }
        check_rank(enc, per_cga, &c.ctas_per_cga, rank)?;
        check_rank(enc, split, &c.cta_split_num, rank)?;
        check_order(enc, order, &c.cta_order, rank)?;
        check_pow2(enc, per_cga, &c.ctas_per_cga)?;
        check_pow2(enc, split, &c.cta_split_num)?;
    }
    Ok(())
}

impl Encoding {
    /// Short name as TTGIR spells it (`blocked`, `linear`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Encoding::Blocked { .. } => "blocked",
            Encoding::Linear { .. } => "linear",
            Encoding::CuteTv { .. } => "cute",
            Encoding::PtxFragment { .. } => "ptx",
            Encoding::Slice { .. } => "slice",
            Encoding::NvidiaMma { .. } => "nvidia_mma",
            Encoding::DotOperand { .. } => "dot_op",
            Encoding::AmdMfma { .. } => "amd_mfma",
            Encoding::AmdWmma { .. } => "amd_wmma",
        }
    }

    /// Lanes per warp (wave) the encoding is written for: the product of
    /// `threadsPerWarp` (blocked), 2^(lane bases) (linear), 64 for
    /// `amd_mfma`, 32 for `amd_wmma` and the NVIDIA encodings, the parent's
    /// for slice and dot_op. Saturates at `u32::MAX` (hostile input).
    pub fn lanes(&self) -> u32 {
        match self {
            Encoding::Blocked {
                threads_per_warp, ..
            } => u32::try_from(product(threads_per_warp)).unwrap_or(u32::MAX),
            Encoding::Linear { lane, .. } => {
                1u32.checked_shl(lane.len() as u32).unwrap_or(u32::MAX)
            }
            Encoding::AmdMfma { .. } => MFMA_LANES,
            Encoding::AmdWmma { .. } => WMMA_LANES,
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => parent.lanes(),
            Encoding::CuteTv { .. } | Encoding::PtxFragment { .. } | Encoding::NvidiaMma { .. } => {
                NVIDIA_LANES
            }
        }
    }

    /// Whether the encoding is an AMD matrix-core one (`amd_mfma`,
    /// `amd_wmma`), or a slice or dot operand of one.
    pub fn is_amd(&self) -> bool {
        match self {
            Encoding::AmdMfma { .. } | Encoding::AmdWmma { .. } => true,
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => parent.is_amd(),
            _ => false,
        }
    }

    /// The CTA fields, inherited from the parent for slice and dot_op.
    pub fn cta(&self) -> Option<CtaLayout> {
        match self {
            Encoding::Blocked { cta, .. }
            | Encoding::NvidiaMma { cta, .. }
            | Encoding::AmdMfma { cta, .. }
            | Encoding::AmdWmma { cta, .. } => cta.clone(),
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => parent.cta(),
            Encoding::Linear { .. } | Encoding::CuteTv { .. } | Encoding::PtxFragment { .. } => {
                None
            }
        }
    }

    /// Number of CTAs this encoding spreads a tensor over: the product of
    /// `CTAsPerCGA`, 2^(CGA bases), 2^(`block` bases) of a linear layout, a
    /// parent's for slice and dot_op, 1 for encodings with no CTA fields.
    /// Saturates (hostile input).
    pub fn num_ctas(&self) -> u64 {
        match self {
            Encoding::Linear { block, .. } => {
                1u64.checked_shl(block.len() as u32).unwrap_or(u64::MAX)
            }
            // a linear parent has no CTA fields but `block` bases
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
                parent.num_ctas()
            }
            e => e.cta().map_or(1, |c| c.num_ctas()),
        }
    }

    /// [`Encoding::to_linear_layout`] for a cluster of `num_ctas` CTAs
    /// (TTGIR's `"ttg.num-ctas"`, `--ctas`): the layout's `block` in dim
    /// then has `num_ctas` entries.
    ///
    /// Errors, besides those of [`Encoding::to_linear_layout`]: `num_ctas`
    /// or the encoding's CTA count over [`MAX_CTAS`], or the encoding's
    /// CTAs (`CTAsPerCGA`, `CGALayout`, `block` bases) not `num_ctas`; the
    /// message says "the module has N CTAs", as warps say "the module has
    /// N warps".
    pub fn to_cluster_layout(
        &self,
        shape: &[i64],
        num_warps: u32,
        num_ctas: u32,
    ) -> Result<LinearLayout> {
        if self.is_amd() {
            // the conversions' refusal, by name
            self.to_linear_layout(shape, num_warps)?;
        }
        self.to_cluster_layout_lanes(shape, num_warps, num_ctas, NVIDIA_LANES)
    }

    /// [`Encoding::to_cluster_layout`] on warps of `lanes` lanes, as
    /// [`Encoding::to_linear_layout_lanes`] computes them.
    pub fn to_cluster_layout_lanes(
        &self,
        shape: &[i64],
        num_warps: u32,
        num_ctas: u32,
        lanes: u32,
    ) -> Result<LinearLayout> {
        let l = self.to_linear_layout_lanes(shape, num_warps, lanes)?;
        let have = self.num_ctas();
        let (encoding, field, what) = self.cta_field(have);
        if have > MAX_CTAS as u64 {
            return Err(EncodingError::Field {
                encoding,
                field,
                detail: format!(
                    "{what}: more than {MAX_CTAS}, the largest cluster sm_90 launches (non-portable size)"
                ),
            });
        }
        if have != num_ctas as u64 {
            return Err(EncodingError::Field {
                encoding,
                field,
                detail: format!("{what}, but the module has {num_ctas} CTAs"),
            });
        }
        Ok(l)
    }

    /// Where this encoding says how many CTAs (`have`) it spans, for
    /// [`Encoding::to_cluster_layout`]'s errors: `(encoding, field, what
    /// the field says)`.
    fn cta_field(&self, have: u64) -> (&'static str, &'static str, String) {
        let ctas = |n: u64| {
            if n == 1 {
                "1 CTA".to_string()
            } else {
                format!("{n} CTAs")
            }
        };
        let bases = |n: usize| {
            if n == 1 {
                "1 basis".to_string()
            } else {
                format!("{n} bases")
            }
        };
        match self {
            Encoding::Linear { block, .. } => (
                "linear",
                "block",
                format!("has {} ({})", bases(block.len()), ctas(have)),
            ),
            Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => {
                let (_, f, w) = parent.cta_field(have);
                let f = match f {
                    "CGALayout" => "parent CGALayout",
                    "CTAsPerCGA" => "parent CTAsPerCGA",
                    f => f,
                };
                (self.kind(), f, w)
            }
            e => match e.cta() {
                Some(CtaLayout {
                    cga_bases: Some(b), ..
                }) => (
                    e.kind(),
                    "CGALayout",
                    format!("has {} ({})", bases(b.len()), ctas(have)),
                ),
                Some(c) => (
                    e.kind(),
                    "CTAsPerCGA",
                    format!("{:?} multiplies to {}", c.ctas_per_cga, ctas(have)),
                ),
                None if matches!(e, Encoding::CuteTv { .. } | Encoding::PtxFragment { .. }) => {
                    (e.kind(), "layout", "describes one CTA".to_string())
                }
                None => (e.kind(), "CTAsPerCGA", "is not given (one CTA)".to_string()),
            },
        }
    }

    /// The linear layout of this encoding for `shape`, with in dims
    /// `register, lane, warp, block` and out dims `dim0..`. Errors name the
    /// field at fault: a rank mismatch, a non-power-of-two entry, a warp
    /// count that differs from `num_warps`, a lane count other than 32.
    ///
    /// One function per encoding, as Triton writes one per attribute in
    /// `LinearLayoutConversions.cpp`: `blocked_layout`, `linear_at_shape`,
    /// `cute_tv_layout`, `fragment_layout`, `nvidia_mma_layout`,
    /// `fma_dot_layout` and `nvidia_dot_layout` (a `dot_op` by its parent,
    /// as `DotOperandEncodingAttr::toLinearLayout` dispatches),
    /// `slice_layout`; then [`normalize`].
    ///
    /// This is the 32-lane layout conversions are planned, emitted and
    /// verified on: an AMD encoding (`amd_mfma`, `amd_wmma`, a slice or dot
    /// operand of one) is refused here, whatever its lanes; read it with
    /// [`Encoding::to_linear_layout_lanes`] and [`Encoding::lanes`].
    pub fn to_linear_layout(&self, shape: &[i64], num_warps: u32) -> Result<LinearLayout> {
        if self.is_amd() {
            return Err(EncodingError::Unsupported {
                encoding: self.kind(),
                detail: format!(
                    "an AMD layout ({} lanes per wave): warpforge plans, emits and verifies 32-lane NVIDIA conversions only (`warpforge layout` shows its bases)",
                    self.lanes()
                ),
            });
        }
        self.to_linear_layout_lanes(shape, num_warps, NVIDIA_LANES)
    }

    /// The linear layout of this encoding for `shape` on warps of `lanes`
    /// lanes (log2(lanes) lane bases): what [`Encoding::to_linear_layout`]
    /// computes for 32, and AMD encodings with their own lane count
    /// ([`Encoding::lanes`]: 64 for `amd_mfma`, 32 for `amd_wmma`), a
    /// wave64 blocked layout with 64. AMD encodings follow Triton 3.6's
    /// `AMDMfmaEncodingAttr::toLinearLayout`, `mfmaDotToLinearLayout`,
    /// `AMDWmmaEncodingAttr::toLinearLayout` and
    /// `wmmaDotOperandToLinearLayout` (module `amd`).
    ///
    /// Errors: those of [`Encoding::to_linear_layout`], with `lanes` in
    /// place of 32; an AMD encoding asked for other lanes than its own.
    pub fn to_linear_layout_lanes(
        &self,
        shape: &[i64],
        num_warps: u32,
        lanes: u32,
    ) -> Result<LinearLayout> {
        check_shape(shape)?;
        if self.is_amd() && lanes != self.lanes() {
            return Err(EncodingError::Unsupported {
                encoding: self.kind(),
                detail: format!(
                    "an AMD layout of {} lanes per wave, asked for {lanes}",
                    self.lanes()
                ),
            });
        }
        let l = match self {
            Encoding::Blocked {
                size_per_thread,
                threads_per_warp,
                warps_per_cta,
                order,
                cta,
            } => blocked_layout(
                size_per_thread,
                threads_per_warp,
                warps_per_cta,
                order,
                cta,
                shape,
                (num_warps, lanes),
            )?,
            Encoding::Linear {
                register,
                lane,
                warp,
                block,
            } => linear_at_shape(register, lane, warp, block, shape)?,
            Encoding::CuteTv { thread, value, .. } => {
                return cute_tv_layout(thread, value, shape, num_warps);
            }
            Encoding::PtxFragment {
                operand,
                reg,
                lane,
                atom_warp,
                tile,
                warps,
                ..
            } => {
                let atom = (
                    *operand,
                    reg.as_slice(),
                    lane.as_slice(),
                    atom_warp.as_slice(),
                );
                return fragment_layout(atom, *tile, *warps, shape, num_warps);
            }
            Encoding::NvidiaMma {
                version_major,
                warps_per_cta,
                instr_shape,
                cta,
                ..
            } => nvidia_mma_layout(
                *version_major,
                warps_per_cta,
                instr_shape,
                cta,
                shape,
                num_warps,
            )?,
            Encoding::DotOperand {
                op_idx,
                parent,
                k_width,
            } => match parent.as_ref() {
                Encoding::Blocked { .. } => {
                    return fma_dot_layout(*op_idx, parent, shape, num_warps, lanes);
                }
                Encoding::AmdMfma { .. } => {
                    amd::mfma_dot_layout(*op_idx, *k_width, parent, shape, num_warps)?
                }
                Encoding::AmdWmma { .. } => {
                    amd::wmma_dot_layout(*op_idx, *k_width, parent, shape, num_warps)?
                }
                Encoding::NvidiaMma {
                    version_major,
                    warps_per_cta,
                    cta,
                    ..
                } => nvidia_dot_layout(
                    *op_idx,
                    *k_width,
                    *version_major,
                    warps_per_cta,
                    cta,
                    shape,
                    num_warps,
                )?,
                _ => {
                    return Err(EncodingError::Unsupported {
                        encoding: "dot_op",
                        detail: format!(
                            "parent `{}` (supported: nvidia_mma, blocked, amd_mfma, amd_wmma)",
                            parent.kind()
                        ),
                    });
                }
            },
            Encoding::Slice { dim, parent } => slice_layout(*dim, parent, shape, num_warps, lanes)?,
            Encoding::AmdMfma {
                version,
                warps_per_cta,
                instr_shape,
                is_transposed,
                tiles_per_warp,
                element_bit_width,
                cta,
            } => amd::mfma_layout(
                *version,
                warps_per_cta,
                instr_shape,
                *is_transposed,
                tiles_per_warp,
                *element_bit_width,
                cta,
                shape,
                num_warps,
            )?,
            Encoding::AmdWmma {
                version,
                is_transposed,
                warps_per_cta,
                tiles_per_warp,
                instr_shape,
                cta,
            } => amd::wmma_layout(
                *version,
                *is_transposed,
                warps_per_cta,
                tiles_per_warp,
                instr_shape,
                cta,
                shape,
                num_warps,
            )?,
        };
        normalize_lanes(l, shape, num_warps, lanes)
    }
}

/// The shape checks every encoding makes first: rank at least 1, every dim
/// a power of two.
fn check_shape(shape: &[i64]) -> Result<()> {
    if shape.is_empty() {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: "rank 0 tensors are not supported".into(),
        });
    }
    for &s in shape {
        if !is_pow2(s) {
            return Err(EncodingError::Shape {
                shape: shape.to_vec(),
                detail: format!("{s} is not a power of two"),
            });
        }
    }
    Ok(())
}

/// `#ttg.blocked` ([`Encoding::Blocked`]): Triton's
/// `BlockedEncodingAttr::toLinearLayout`. `sizePerThread` registers, then
/// `threadsPerWarp` lanes, then `warpsPerCTA` warps, each over the dims in
/// `order` (minor first), laid over the CTAs and fitted to `shape` by
/// [`combine_cta_cga_with_shape`].
///
/// Errors: a field of another rank than `shape`, an entry that is not a
/// power of two, lanes other than `lanes` (32 for NVIDIA), warps other
/// than `num_warps`, bad CTA fields.
fn blocked_layout(
    size_per_thread: &[u32],
    threads_per_warp: &[u32],
    warps_per_cta: &[u32],
    order: &[u32],
    cta: &Option<CtaLayout>,
    shape: &[i64],
    (num_warps, lanes): (u32, u32),
) -> Result<LinearLayout> {
    const E: &str = "blocked";
    let rank = shape.len();
    check_rank(E, "sizePerThread", size_per_thread, rank)?;
    check_rank(E, "threadsPerWarp", threads_per_warp, rank)?;
    check_rank(E, "warpsPerCTA", warps_per_cta, rank)?;
    check_order(E, "order", order, rank)?;
    check_pow2(E, "sizePerThread", size_per_thread)?;
    check_pow2(E, "threadsPerWarp", threads_per_warp)?;
    check_pow2(E, "warpsPerCTA", warps_per_cta)?;
    check_cta(E, cta, rank)?;
    let tpw = product(threads_per_warp);
    if tpw != lanes as u64 {
        return Err(EncodingError::Field {
            encoding: E,
            field: "threadsPerWarp",
            detail: format!("{threads_per_warp:?} multiplies to {tpw}, expected {lanes} lanes"),
        });
    }
    let wpc = product(warps_per_cta);
    if wpc != num_warps as u64 {
        return Err(EncodingError::Field {
            encoding: E,
            field: "warpsPerCTA",
            detail: format!(
                "{warps_per_cta:?} multiplies to {wpc}, but the module has {num_warps} warps"
            ),
        });
    }
    let cta_l = identity_standard_nd(REGISTER, size_per_thread, order)?
        .mul(&identity_standard_nd(LANE, threads_per_warp, order)?)?
        .mul(&identity_standard_nd(WARP, warps_per_cta, order)?)?;
    combine_cta_cga_with_shape(cta_l, cta, shape)
}

/// `#ttg.nvidia_mma` ([`Encoding::NvidiaMma`]): Triton's
/// `NvidiaMmaEncodingAttr::toLinearLayout`. The tile of one instruction
/// ([`mma_tile_shape`]) as [`nvidia_mma_tile`] lays it out (kWidth 2,
/// row-major), then `warpsPerCTA` warps in the version's warp order
/// ([`mma_warp_order`]), laid over the CTAs and fitted to `shape`.
///
/// Errors: rank below 2, `warpsPerCTA` of another rank, not powers of two
/// or not `num_warps` warps, bad CTA fields, an `instrShape` the version
/// does not take, a version other than 2 and 3.
fn nvidia_mma_layout(
    version_major: u32,
    warps_per_cta: &[u32],
    instr_shape: &[u32],
    cta: &Option<CtaLayout>,
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "nvidia_mma";
    let rank = shape.len();
    if rank < 2 {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: "nvidia_mma needs rank >= 2".into(),
        });
    }
    check_rank(E, "warpsPerCTA", warps_per_cta, rank)?;
    check_pow2(E, "warpsPerCTA", warps_per_cta)?;
    check_cta(E, cta, rank)?;
    let wpc = product(warps_per_cta);
    if wpc != num_warps as u64 {
        return Err(EncodingError::Field {
            encoding: E,
            field: "warpsPerCTA",
            detail: format!(
                "{warps_per_cta:?} multiplies to {wpc}, but the module has {num_warps} warps"
            ),
        });
    }
    let tile = mma_tile_shape(version_major, instr_shape, rank)?;
    let order = matrix_order(rank, true);
    let mut l = nvidia_mma_tile(&tile, 2, &order, &order)?;
    let w = identity_standard_nd(WARP, warps_per_cta, &mma_warp_order(version_major, rank))?
        .transpose_outs(&l.out_dim_names())?;
    l = l.mul(&w)?;
    combine_cta_cga_with_shape(l, cta, shape)
}

/// The tile one `nvidia_mma` instruction covers, as Triton's
/// `NvidiaMmaEncodingAttr::toLinearLayout` takes it from `instrShape`: the
/// shape itself for Ampere (version 2: `[16, 8]` or `[1, 16, 8]`), `[M, N]`
/// of `[M, N, K]` for Hopper (version 3), batch dims 1.
///
/// Errors: an `instrShape` of the wrong rank or with an entry that is not a
/// power of two, a version other than 2 and 3.
fn mma_tile_shape(version_major: u32, instr_shape: &[u32], rank: usize) -> Result<Vec<u32>> {
    const E: &str = "nvidia_mma";
    match version_major {
        2 => {
            // Ampere: instrShape is the tile ([16, 8] or [1, 16, 8]).
            check_rank(E, "instrShape", instr_shape, rank)?;
            check_pow2(E, "instrShape", instr_shape)?;
            Ok(instr_shape.to_vec())
        }
        3 => {
            // Hopper: instrShape = [M, N, K]; the tile is [M, N].
            if instr_shape.len() != 3 {
                return Err(EncodingError::Field {
                    encoding: E,
                    field: "instrShape",
                    detail: format!("{instr_shape:?}: version 3 needs [M, N, K]"),
                });
            }
            for (i, what) in ["M", "N", "K"].iter().enumerate() {
                let x = instr_shape[i];
                if !is_pow2(x as i64) {
                    return Err(EncodingError::Field {
                        encoding: E,
                        field: "instrShape",
                        detail: format!(
                            "{instr_shape:?}: {what} = {x} is not a power of two (warpforge's linear layouts need power-of-two tiles)"
                        ),
                    });
                }
            }
            check_pow2(E, "instrShape", instr_shape)?;
            let mut t = vec![1; rank];
            t[rank - 2] = instr_shape[0];
            t[rank - 1] = instr_shape[1];
            Ok(t)
        }
        v => Err(EncodingError::Unsupported {
            encoding: E,
            detail: format!("versionMajor = {v} (supported: 2, 3)"),
        }),
    }
}

/// `#ttg.dot_op` with an `nvidia_mma` parent ([`Encoding::DotOperand`]):
/// Triton's `nvidiaDotToLinearLayout`. The operand's tile (A: 16 x
/// 8*kWidth, B: 8*kWidth x 8) as [`nvidia_mma_tile`] lays it out, k
/// contiguous ([`dot_operand_order`]), then the parent's warps broadcast
/// along K ([`warps_nvidia_dot`]), laid over the parent's CTAs and fitted
/// to `shape`.
///
/// Errors: `opIdx` other than 0 and 1, B of a version 3 parent (Hopper
/// reads B from shared memory), `kWidth` over 64 or not a power of two,
/// rank below 2, the parent's `warpsPerCTA` of another rank or not
/// `num_warps` warps, bad parent CTA fields.
fn nvidia_dot_layout(
    op_idx: u32,
    k_width: u32,
    version_major: u32,
    warps_per_cta: &[u32],
    cta: &Option<CtaLayout>,
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "dot_op";
    let rank = shape.len();
    if op_idx > 1 {
        return Err(EncodingError::Field {
            encoding: E,
            field: "opIdx",
            detail: format!("{op_idx} is neither 0 nor 1"),
        });
    }
    if version_major == 3 && op_idx == 1 {
        return Err(EncodingError::Unsupported {
            encoding: E,
            detail: "opIdx = 1 with an mma v3 parent (Hopper reads B from shared memory)".into(),
        });
    }
    if k_width > 64 {
        return Err(EncodingError::Field {
            encoding: E,
            field: "kWidth",
            detail: format!("{k_width} is larger than any MMA operand packs (at most 64)"),
        });
    }
    if !is_pow2(k_width as i64) {
        return Err(EncodingError::Field {
            encoding: E,
            field: "kWidth",
            detail: format!("{k_width} is not a power of two"),
        });
    }
    if rank < 2 {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: "dot_op needs rank >= 2".into(),
        });
    }
    check_rank(E, "parent warpsPerCTA", warps_per_cta, rank)?;
    // the parent's CTA fields lay out the operand's CTAs
    check_cta_fields(
        E,
        ["parent CTAsPerCGA", "parent CTASplitNum", "parent CTAOrder"],
        cta,
        rank,
    )?;
    let wpc = product(warps_per_cta);
    if wpc != num_warps as u64 {
        return Err(EncodingError::Field {
            encoding: E,
            field: "parent warpsPerCTA",
            detail: format!(
                "{warps_per_cta:?} multiplies to {wpc}, but the module has {num_warps} warps"
            ),
        });
    }
    let is_a = op_idx == 0;
    let mut tile = vec![1u32; rank];
    if is_a {
        tile[rank - 2] = 16;
        tile[rank - 1] = k_width * 8;
    } else {
        tile[rank - 2] = k_width * 8;
        tile[rank - 1] = 8;
    }
    let order = dot_operand_order(op_idx, rank);
    let mut l = nvidia_mma_tile(&tile, k_width, &order, &order)?;
    let w = warps_nvidia_dot(warps_per_cta, &mma_warp_order(version_major, rank), is_a)?
        .transpose_outs(&l.out_dim_names())?;
    l = l.mul(&w)?;
    combine_cta_cga_with_shape(l, cta, shape)
}

/// Triton's `warpsNvidiaDot`: the warps of an `nvidia_mma` dot operand,
/// the parent's `warps_per_cta` taken in `warp_order`, broadcast along K
/// (the last dim for A, `is_a`; the second to last for B): the warps along
/// K hold the same operand.
fn warps_nvidia_dot(warps_per_cta: &[u32], warp_order: &[u32], is_a: bool) -> Result<LinearLayout> {
    let rank = warps_per_cta.len();
    let names = standard_out_dim_names(rank);
    let inner = if is_a { rank - 1 } else { rank - 2 };
    let mut w = LinearLayout::empty();
    for &d in warp_order {
        let d = d as usize;
        if d == inner {
            w = w.mul(&LinearLayout::zeros_1d(
                warps_per_cta[d] as i32,
                WARP,
                &names[d],
                1,
            )?)?;
        } else {
            w = w.mul(&LinearLayout::identity_1d(
                warps_per_cta[d] as i32,
                WARP,
                &names[d],
            )?)?;
        }
    }
    Ok(w)
}

/// `#ttg.slice` ([`Encoding::Slice`]): Triton's
/// `SliceEncodingAttr::toLinearLayout`. The parent's layout at `shape` with
/// a dim of size 1 inserted at `dim`, that dim dropped from the out dims,
/// and the register bases left zero by it removed.
///
/// Errors: `dim` past the parent's rank, and the parent's own.
fn slice_layout(
    dim: u32,
    parent: &Encoding,
    shape: &[i64],
    num_warps: u32,
    lanes: u32,
) -> Result<LinearLayout> {
    let rank = shape.len();
    let dim = dim as usize;
    if dim > rank {
        return Err(EncodingError::Field {
            encoding: "slice",
            field: "dim",
            detail: format!("{dim} is past the parent's rank {}", rank + 1),
        });
    }
    let mut pshape = shape.to_vec();
    pshape.insert(dim, 1);
    let pl = parent.to_linear_layout_lanes(&pshape, num_warps, lanes)?;
    let out_names = standard_out_dim_names(rank + 1);
    let mut transform = LinearLayout::empty();
    for (idx, (od, size)) in pl.out_dims().iter().enumerate() {
        if idx == dim {
            transform = transform.mul(&LinearLayout::zeros_1d(*size, od, &out_names[0], 1)?)?;
        } else {
            let target = &out_names[idx - usize::from(idx >= dim)];
            transform = transform.mul(&LinearLayout::identity_1d(*size, od, target)?)?;
        }
    }
    let sliced = pl.compose(&transform)?;
    let regs: Vec<Vec<i32>> = sliced
        .bases(REGISTER)
        .iter()
        .filter(|b| b.iter().any(|&v| v != 0))
        .cloned()
        .collect();
    let l = sliced.with_bases(REGISTER, regs)?;
    let names = standard_out_dim_names(rank);
    let l = l.transpose_outs(&names)?;
    // Keep in-dim order canonical.
    Ok(l.transpose_ins(&[REGISTER.into(), LANE.into(), WARP.into(), BLOCK.into()])?)
}

/// Check `shape` as the M x N tile a CUDA C++ layout (`what`) covers: rank 2.
fn tile_2d(shape: &[i64], what: &str) -> Result<()> {
    if shape.len() != 2 {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: format!("{what} covers an M x N tile (give --shape MxN)"),
        });
    }
    Ok(())
}

/// A CuTe thread-value layout ([`Encoding::CuteTv`]; no Triton encoding:
/// warpforge reads it as a `linear` one, [`linear_at_shape`]) over the
/// M x N tile of `shape` (column-major index `m + M * n`, CuTe's
/// convention): the first five thread bits are lanes, the rest warps,
/// value bits registers.
/// Errors: a shape that is not M x N, an index beyond the tile, a thread
/// count other than `num_warps x 32`.
fn cute_tv_layout(
    thread: &[u64],
    value: &[u64],
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "cute";
    tile_2d(shape, "a CuTe thread-value layout")?;
    let (m, n) = (shape[0] as u64, shape[1] as u64);
    let size = m.saturating_mul(n);
    if let Some(&img) = thread.iter().chain(value).find(|&&x| x >= size) {
        return Err(EncodingError::Field {
            encoding: E,
            field: "stride",
            detail: format!("reaches index {img}, beyond the {m}x{n} tile ({size} elements)"),
        });
    }
    let want = 32 * num_warps as u64;
    if thread.len() > 62 || 1u64 << thread.len() != want {
        let threads = if thread.len() > 62 {
            format!("2^{}", thread.len())
        } else {
            (1u64 << thread.len()).to_string()
        };
        return Err(EncodingError::Field {
            encoding: E,
            field: "thread mode",
            detail: format!(
                "has {threads} threads, but the module has {num_warps} warps ({num_warps} x 32 = {want} threads)"
            ),
        });
    }
    let basis = |&img: &u64| vec![(img % m) as i32, (img / m) as i32];
    let lin = Encoding::Linear {
        register: value.iter().map(basis).collect(),
        lane: thread[..5].iter().map(basis).collect(),
        warp: thread[5..].iter().map(basis).collect(),
        block: vec![],
    };
    lin.to_linear_layout(shape, num_warps)
}

/// A named PTX register fragment ([`Encoding::PtxFragment`]; no Triton
/// encoding: warpforge reads it as a `linear` one, [`linear_at_shape`])
/// tiled over `num_warps` warps (`warps` = `[WM, WN]`, or `[0, 0]` for all
/// along M) and repeated over the M x N `shape` (M repetitions first). Errors: a shape that is not M x N or not
/// a multiple of the warps' tile, a warp count that does not match.
fn fragment_layout(
    (operand, reg, lane, atom_warp): (u8, &[[u32; 2]], &[[u32; 2]], &[[u32; 2]]),
    tile: [u32; 2],
    warps: [u32; 2],
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "ptx";
    tile_2d(shape, "a PTX fragment")?;
    let aw = 1u32 << atom_warp.len();
    let [wm, wn] = if warps == [0, 0] {
        [(num_warps / aw).max(1), 1]
    } else {
        warps
    };
    if wm as u64 * wn as u64 * aw as u64 != num_warps as u64 {
        return Err(EncodingError::Field {
            encoding: E,
            field: "warps",
            detail: format!(
                "{wm}x{wn} tiles of {aw} warp(s) make {} warps, but the module has {num_warps} warps",
                wm as u64 * wn as u64 * aw as u64
            ),
        });
    }
    // an A operand is copied by the warps along N, a B operand by those
    // along M (they hold the same K slice), as in a TiledMMA or a dot_op
    let (sm, sn) = (operand != 1, operand != 0);
    let bm = tile[0] as i64 * if sm { wm as i64 } else { 1 };
    let bn = tile[1] as i64 * if sn { wn as i64 } else { 1 };
    if !(wm.is_power_of_two() && wn.is_power_of_two()) {
        return Err(EncodingError::Field {
            encoding: E,
            field: "warps",
            detail: format!("{wm}x{wn}: warps along M and N must be powers of two"),
        });
    }
    if shape[0] < bm || shape[1] < bn {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: format!("smaller than the fragment's {bm}x{bn} tile over {num_warps} warp(s)"),
        });
    }
    let b = |x: &[u32; 2]| vec![x[0] as i32, x[1] as i32];
    let steps = |from: i64, to: i64, dim: usize| -> Vec<Vec<i32>> {
        let mut v = Vec::new();
        let mut s = from;
        while s < to {
            let mut x = vec![0, 0];
            x[dim] = s as i32;
            v.push(x);
            s *= 2;
        }
        v
    };
    let copies = |w: u32| vec![vec![0, 0]; w.trailing_zeros() as usize];
    let mut warp: Vec<Vec<i32>> = atom_warp.iter().map(b).collect();
    warp.extend(if sm {
        steps(tile[0] as i64, bm, 0)
    } else {
        copies(wm)
    });
    warp.extend(if sn {
        steps(tile[1] as i64, bn, 1)
    } else {
        copies(wn)
    });
    let mut register: Vec<Vec<i32>> = reg.iter().map(b).collect();
    register.extend(steps(bm, shape[0], 0));
    register.extend(steps(bn, shape[1], 1));
    let lin = Encoding::Linear {
        register,
        lane: lane.iter().map(b).collect(),
        warp,
        block: vec![],
    };
    lin.to_linear_layout(shape, num_warps)
}

/// Put a distributed layout into canonical form: in dims exactly
/// `register, lane, warp, block` (absent ones empty), out dims
/// `dim0..dim{rank-1}` with the sizes of `shape`; check 5 lane bits,
/// `log2(num_warps)` warp bits, surjectivity onto the tensor.
pub fn normalize(l: LinearLayout, shape: &[i64], num_warps: u32) -> Result<LinearLayout> {
    normalize_lanes(l, shape, num_warps, NVIDIA_LANES)
}

/// [`normalize`] for warps of `lanes` lanes (a power of two): checks
/// log2(`lanes`) lane bits instead of 5.
pub fn normalize_lanes(
    l: LinearLayout,
    shape: &[i64],
    num_warps: u32,
    lanes: u32,
) -> Result<LinearLayout> {
    let names = standard_out_dim_names(shape.len());
    for n in l.in_dim_names() {
        if ![REGISTER, LANE, WARP, BLOCK].contains(&n.as_str()) {
            return Err(EncodingError::Unsupported {
                encoding: "layout",
                detail: format!("in dim `{n}` (expected register, lane, warp, block)"),
            });
        }
    }
    if l.out_dim_names() != names {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: format!(
                "layout out dims {:?} do not match the rank",
                l.out_dim_names()
            ),
        });
    }
    for (i, (_, s)) in l.out_dims().iter().enumerate() {
        if *s as i64 != shape[i] {
            return Err(EncodingError::Shape {
                shape: shape.to_vec(),
                detail: format!("layout covers dim{i} of size {s}"),
            });
        }
    }
    let ins = [REGISTER, LANE, WARP, BLOCK]
        .iter()
        .map(|n| (n.to_string(), l.bases(n).to_vec()))
        .collect();
    let l = LinearLayout::new(ins, l.out_dims().to_vec(), false)?;
    // compared as log2: a hostile layout may have 64 or more lane bases
    if !lanes.is_power_of_two() || l.in_dim_size_log2(LANE) != lanes.trailing_zeros() {
        let want = lanes.trailing_zeros();
        return Err(EncodingError::Unsupported {
            encoding: "layout",
            detail: if lanes == NVIDIA_LANES {
                format!(
                    "{} lane bases (2^{} lanes); warpforge targets 32-lane warps (5 bases)",
                    l.in_dim_size_log2(LANE),
                    l.in_dim_size_log2(LANE)
                )
            } else {
                format!(
                    "{} lane bases (2^{} lanes); expected {lanes}-lane warps ({want} bases)",
                    l.in_dim_size_log2(LANE),
                    l.in_dim_size_log2(LANE)
                )
            },
        });
    }
    if !is_pow2(num_warps as i64) {
        return Err(EncodingError::Unsupported {
            encoding: "module",
            detail: format!("ttg.num-warps = {num_warps} is not a power of two"),
        });
    }
    if l.in_dim_size(WARP) != num_warps as i64 {
        return Err(EncodingError::Field {
            encoding: "layout",
            field: "warp",
            detail: format!(
                "{} warp bases, but the module has {num_warps} warps",
                l.in_dim_size_log2(WARP)
            ),
        });
    }
    if !l.is_surjective() {
        return Err(EncodingError::Layout(LayoutError::NotSurjective {
            detail: format!("the layout does not cover every element of shape {shape:?}"),
        }));
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(spt: &[u32], tpw: &[u32], wpc: &[u32], order: &[u32]) -> Encoding {
        Encoding::Blocked {
            size_per_thread: spt.to_vec(),
            threads_per_warp: tpw.to_vec(),
            warps_per_cta: wpc.to_vec(),
            order: order.to_vec(),
            cta: None,
        }
    }

    fn mma(v: u32, wpc: &[u32], instr: &[u32]) -> Encoding {
        Encoding::NvidiaMma {
            version_major: v,
            version_minor: 0,
            warps_per_cta: wpc.to_vec(),
            instr_shape: instr.to_vec(),
            cta: None,
        }
    }

    fn b(v: &[[i32; 2]]) -> Vec<Vec<i32>> {
        v.iter().map(|x| x.to_vec()).collect()
    }

    // A slice (and a dot operand) of a linear layout spans its parent's
    // CTAs: a row reduction of an sm_100 TMEM accumulator layout at 2 CTAs
    // (Triton 3.6, tests/data/slice_of_linear_ctas.ttgir). Triton's
    // toLinearLayout of the slice has block [[64]].
    #[test]
    fn a_slice_of_a_linear_layout_has_its_parents_ctas() {
        let parent = crate::parse::parse_attribute(
            "#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = [[0, 64]]}>",
        )
        .unwrap();
        assert_eq!(parent.num_ctas(), 2);
        let slice = Encoding::Slice {
            dim: 0,
            parent: Box::new(parent.clone()),
        };
        assert_eq!(slice.num_ctas(), 2);
        let l = slice.to_cluster_layout(&[128], 4, 2).unwrap();
        assert_eq!(l.bases(BLOCK), &[vec![64]]);
        let e = slice
            .to_cluster_layout(&[128], 4, 4)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("block has 1 basis (2 CTAs), but the module has 4 CTAs"),
            "{e}"
        );
    }

    // LinearLayoutConversionsTest.cpp: TEST_F(LinearLayoutConversionsTest, SimpleBlocked)
    // blocked({1}, {4}, {4}, {0}) on shape {16} (here with 32-lane warps: {1},{32},{4},{0} on {128}).
    #[test]
    fn blocked_simple_1d() {
        let l = blocked(&[1], &[32], &[4], &[0])
            .to_linear_layout(&[128], 4)
            .unwrap();
        assert_eq!(l.bases(REGISTER).len(), 0);
        assert_eq!(
            l.bases(LANE),
            &[vec![1], vec![2], vec![4], vec![8], vec![16]]
        );
        assert_eq!(l.bases(WARP), &[vec![32], vec![64]]);
    }

    // LinearLayoutConversionsTest.cpp: blocked layouts repeat along registers
    // when the tensor is larger than the CTA tile, and broadcast when smaller.
    #[test]
    fn blocked_repeats_and_broadcasts() {
        let l = blocked(&[1, 4], &[8, 4], &[1, 1], &[1, 0])
            .to_linear_layout(&[16, 16], 1)
            .unwrap();
        assert_eq!(l.bases(REGISTER), b(&[[0, 1], [0, 2], [8, 0]]).as_slice());
        assert_eq!(
            l.bases(LANE),
            b(&[[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]).as_slice()
        );
        // smaller than the tile: the largest bases become zero (broadcast)
        let l = blocked(&[1, 1], &[4, 8], &[1, 1], &[1, 0])
            .to_linear_layout(&[2, 8], 1)
            .unwrap();
        assert_eq!(
            l.bases(LANE),
            b(&[[0, 1], [0, 2], [0, 4], [1, 0], [0, 0]]).as_slice()
        );
    }

    // LinearLayoutConversionsTest.cpp: TEST_F(LinearLayoutConversionsTest, MMAv2_16x16)
    #[test]
    fn mma_v2_16x16() {
        let l = mma(2, &[1, 1], &[16, 8])
            .to_linear_layout(&[16, 16], 1)
            .unwrap();
        assert_eq!(l.bases(REGISTER), b(&[[0, 1], [8, 0], [0, 8]]).as_slice());
        assert_eq!(
            l.bases(LANE),
            b(&[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]).as_slice()
        );
    }

    // LinearLayoutConversionsTest.cpp: TEST_F(LinearLayoutConversionsTest, MMAv2_32x32)
    #[test]
    fn mma_v2_32x32_two_warps() {
        let l = mma(2, &[2, 1], &[16, 8])
            .to_linear_layout(&[32, 32], 2)
            .unwrap();
        assert_eq!(
            l.bases(REGISTER),
            b(&[[0, 1], [8, 0], [0, 8], [0, 16]]).as_slice()
        );
        assert_eq!(l.bases(WARP), b(&[[16, 0]]).as_slice());
    }

    // LinearLayoutConversionsTest.cpp: TEST_F(LinearLayoutConversionsTest, MMAv3_64x16)
    #[test]
    fn mma_v3_64x16() {
        let l = mma(3, &[4, 1], &[16, 16, 16])
            .to_linear_layout(&[64, 16], 4)
            .unwrap();
        assert_eq!(l.bases(REGISTER), b(&[[0, 1], [8, 0], [0, 8]]).as_slice());
        assert_eq!(
            l.bases(LANE),
            b(&[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]).as_slice()
        );
        assert_eq!(l.bases(WARP), b(&[[16, 0], [32, 0]]).as_slice());
    }

    // The corpus (pairs.mlir #mma3_acc / #mma3_dot) spells out Triton 3.6's bases.
    #[test]
    fn mma_v3_and_dot_match_corpus() {
        let acc = mma(3, &[4, 1], &[16, 64, 16]);
        let l = acc.to_linear_layout(&[128, 64], 4).unwrap();
        assert_eq!(
            l.bases(REGISTER),
            b(&[[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]]).as_slice()
        );
        assert_eq!(
            l.bases(LANE),
            b(&[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]).as_slice()
        );
        assert_eq!(l.bases(WARP), b(&[[16, 0], [32, 0]]).as_slice());
        let dot = Encoding::DotOperand {
            op_idx: 0,
            parent: Box::new(mma(3, &[4, 1], &[16, 64, 32])),
            k_width: 4,
        };
        let l = dot.to_linear_layout(&[128, 64], 4).unwrap();
        assert_eq!(
            l.bases(REGISTER),
            b(&[[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [64, 0]]).as_slice()
        );
        assert_eq!(
            l.bases(LANE),
            b(&[[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]).as_slice()
        );
        assert_eq!(l.bases(WARP), b(&[[16, 0], [32, 0]]).as_slice());
    }

    // LinearLayoutConversionsTest.cpp: TEST_F(LinearLayoutConversionsTest, DotMMAv2_tile_kwidth8)
    // style: the dot operand of an mma v2 parent, opIdx 0 and 1.
    #[test]
    fn dot_mma_v2_operands() {
        let parent = mma(2, &[1, 1], &[16, 8]);
        let a = Encoding::DotOperand {
            op_idx: 0,
            parent: Box::new(parent.clone()),
            k_width: 8,
        };
        let l = a.to_linear_layout(&[16, 64], 1).unwrap();
        assert_eq!(
            l.bases(REGISTER),
            b(&[[0, 1], [0, 2], [0, 4], [8, 0], [0, 32]]).as_slice()
        );
        assert_eq!(
            l.bases(LANE),
            b(&[[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]).as_slice()
        );
        let bop = Encoding::DotOperand {
            op_idx: 1,
            parent: Box::new(parent),
            k_width: 8,
        };
        let l = bop.to_linear_layout(&[64, 8], 1).unwrap();
        assert_eq!(
            l.bases(REGISTER),
            b(&[[1, 0], [2, 0], [4, 0], [32, 0]]).as_slice()
        );
        assert_eq!(
            l.bases(LANE),
            b(&[[8, 0], [16, 0], [0, 1], [0, 2], [0, 4]]).as_slice()
        );
    }

    // mma v2 accumulator -> 16-bit A operand is the same layout (corpus: 0 instructions).
    #[test]
    fn mma_v2_acc_equals_dot_a_kwidth2() {
        let p = mma(2, &[4, 1], &[16, 8]);
        let acc = p.to_linear_layout(&[64, 32], 4).unwrap();
        let dot = Encoding::DotOperand {
            op_idx: 0,
            parent: Box::new(p),
            k_width: 2,
        }
        .to_linear_layout(&[64, 32], 4)
        .unwrap();
        assert_eq!(acc, dot);
    }

    // LinearLayoutConversionsTest.cpp: TEST_F(LinearLayoutConversionsTest, SliceOfBlocked)
    #[test]
    fn slice_of_blocked() {
        let parent = blocked(&[1, 1], &[4, 8], &[1, 1], &[1, 0]);
        let s = Encoding::Slice {
            dim: 1,
            parent: Box::new(parent.clone()),
        };
        let l = s.to_linear_layout(&[4], 1).unwrap();
        assert_eq!(
            l.bases(LANE),
            &[vec![0], vec![0], vec![0], vec![1], vec![2]]
        );
        let s0 = Encoding::Slice {
            dim: 0,
            parent: Box::new(parent),
        };
        let l = s0.to_linear_layout(&[8], 1).unwrap();
        assert_eq!(
            l.bases(LANE),
            &[vec![1], vec![2], vec![4], vec![0], vec![0]]
        );
    }

    #[test]
    fn cta_fields_split_over_blocks() {
        let e = Encoding::Blocked {
            size_per_thread: vec![1, 1],
            threads_per_warp: vec![1, 32],
            warps_per_cta: vec![1, 1],
            order: vec![1, 0],
            cta: Some(CtaLayout {
                ctas_per_cga: vec![2, 1],
                cta_split_num: vec![2, 1],
                cta_order: vec![1, 0],
                cga_bases: None,
            }),
        };
        let l = e.to_linear_layout(&[2, 32], 1).unwrap();
        assert_eq!(l.bases(BLOCK), b(&[[1, 0]]).as_slice());
        assert!(l.bases(REGISTER).is_empty());
    }

    #[test]
    fn errors() {
        let e = blocked(&[1, 1], &[4, 4], &[1, 1], &[1, 0])
            .to_linear_layout(&[16, 16], 1)
            .unwrap_err();
        assert!(e.to_string().contains("threadsPerWarp"), "{e}");
        let e = blocked(&[1, 1], &[4, 8], &[2, 1], &[1, 0])
            .to_linear_layout(&[16, 16], 1)
            .unwrap_err();
        assert!(e.to_string().contains("warps"), "{e}");
        let e = blocked(&[1, 1], &[4, 8], &[1, 1], &[1, 0])
            .to_linear_layout(&[12, 16], 1)
            .unwrap_err();
        assert!(e.to_string().contains("power of two"), "{e}");
        let e = blocked(&[3, 1], &[4, 8], &[1, 1], &[1, 0])
            .to_linear_layout(&[16, 16], 1)
            .unwrap_err();
        assert!(e.to_string().contains("sizePerThread"), "{e}");
    }

    // found by the fuzzer: a dot operand's parent CTA fields went unchecked
    // (a CTAOrder past the rank indexed out of bounds)
    #[test]
    fn dot_operand_checks_its_parents_cta_fields() {
        let parent = Encoding::NvidiaMma {
            version_major: 2,
            version_minor: 0,
            warps_per_cta: vec![1, 1],
            instr_shape: vec![16, 8],
            cta: Some(CtaLayout {
                ctas_per_cga: vec![1, 1],
                cta_split_num: vec![1, 1],
                cta_order: vec![3],
                cga_bases: None,
            }),
        };
        let dot = Encoding::DotOperand {
            op_idx: 0,
            parent: Box::new(parent),
            k_width: 2,
        };
        let e = dot.to_linear_layout(&[16, 16], 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "dot_op: parent CTAOrder [3] is not a permutation of 0..2"
        );
    }
}
