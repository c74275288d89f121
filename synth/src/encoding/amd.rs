//! AMD matrix-core encodings (`#ttg.amd_mfma`, `#ttg.amd_wmma`) and their
//! dot operands, with Triton 3.6's meaning: re-implemented from
//! `AMDMfmaEncodingAttr::toLinearLayout`, `mfmaDotToLinearLayout`,
//! `AMDWmmaEncodingAttr::toLinearLayout` and `wmmaDotOperandToLinearLayout`
//! of `lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`.
//!
//! MFMA (CDNA, versions 1-4: gfx908, gfx90a, gfx942, gfx950) runs on
//! 64-lane waves ([`MFMA_LANES`]); WMMA (RDNA3/RDNA4/gfx1250, versions
//! 1-3) on 32-lane waves ([`WMMA_LANES`]). Rank 2 (`[M, N]`) or 3 (`[B, M,
//! N]`, the batch dim 0 spread over warps only).

use super::{
    check_cta_fields, check_pow2, check_rank, combine_cta_cga_with_shape, dot_operand_order,
    ensure_not_larger, identity_standard_nd, is_pow2, make_cga_layout, matrix_order, product,
    CtaLayout, EncodingError, Result,
};
use crate::layout::{standard_out_dim_names, LinearLayout, LANE, REGISTER, WARP};

/// Lanes of a CDNA wave, the one MFMA layouts are written for (Triton's
/// `warpSize = 64` in the MFMA conversions): 6 lane bases.
pub const MFMA_LANES: u32 = 64;
/// Lanes of an RDNA wave, the one WMMA layouts are written for (Triton's
/// `warpSize = 32` in the WMMA conversions): 5 lane bases.
pub const WMMA_LANES: u32 = 32;

fn field(encoding: &'static str, field: &'static str, detail: String) -> EncodingError {
    EncodingError::Field {
        encoding,
        field,
        detail,
    }
}

fn id(size: u32, in_dim: &str, out_dim: &str) -> Result<LinearLayout> {
    // Triton's identity1D of a size below 1 (an integer quotient that came
    // out 0) adds nothing
    Ok(LinearLayout::identity_1d(
        size.max(1) as i32,
        in_dim,
        out_dim,
    )?)
}

/// The checks the AMD encodings share: rank 2 or 3, `warpsPerCTA` (named
/// `warps_name`) of that rank, powers of two, multiplying to `num_warps`;
/// `tilesPerWarp` (empty: all 1) of that rank and powers of two; the CTA
/// fields. Returns `tilesPerWarp` with the default filled in.
fn check_common(
    e: &'static str,
    names: [&'static str; 2],
    warps_per_cta: &[u32],
    tiles_per_warp: &[u32],
    cta: &Option<CtaLayout>,
    shape: &[i64],
    num_warps: u32,
) -> Result<Vec<u32>> {
    let rank = shape.len();
    if !(2..=3).contains(&rank) {
        return Err(EncodingError::Shape {
            shape: shape.to_vec(),
            detail: format!("{e} needs rank 2 or 3"),
        });
    }
    let [warps_name, tiles_name] = names;
    check_rank(e, warps_name, warps_per_cta, rank)?;
    check_pow2(e, warps_name, warps_per_cta)?;
    let wpc = product(warps_per_cta);
    if wpc != num_warps as u64 {
        return Err(field(
            e,
            warps_name,
            format!("{warps_per_cta:?} multiplies to {wpc}, but the module has {num_warps} warps"),
        ));
    }
    let tiles = if tiles_per_warp.is_empty() {
        vec![1; rank]
    } else {
        tiles_per_warp.to_vec()
    };
    check_rank(e, tiles_name, &tiles, rank)?;
    check_pow2(e, tiles_name, &tiles)?;
    let f = |n: &'static str| -> &'static str {
        if warps_name.starts_with("parent ") {
            match n {
                "CTAsPerCGA" => "parent CTAsPerCGA",
                "CTASplitNum" => "parent CTASplitNum",
                _ => "parent CTAOrder",
            }
        } else {
            n
        }
    };
    check_cta_fields(
        e,
        [f("CTAsPerCGA"), f("CTASplitNum"), f("CTAOrder")],
        cta,
        rank,
    )?;
    Ok(tiles)
}

/// The MFMA instruction's `[M, N, K]` from `instrShape`: 3 entries, `M x N`
/// one of 32x32, 16x16, 64x4 (transposed only), 4x64; K a power of two.
fn mfma_instr(
    e: &'static str,
    f: &'static str,
    instr: &[u32],
    transposed: bool,
) -> Result<[u32; 3]> {
    let [m, n, k] = instr else {
        return Err(field(
            e,
            f,
            format!("{instr:?} has {} entries, expected [M, N, K]", instr.len()),
        ));
    };
    if !matches!((m, n), (32, 32) | (16, 16) | (64, 4) | (4, 64)) {
        return Err(field(
            e,
            f,
            format!("{instr:?}: M x N = {m}x{n} is not an MFMA shape (32x32, 16x16, 64x4, 4x64)"),
        ));
    }
    if (*m, *n) == (64, 4) && !transposed {
        return Err(field(
            e,
            f,
            format!("{instr:?}: a 64x4 MFMA must be transposed (isTransposed = true)"),
        ));
    }
    check_pow2(e, f, &[*k])?;
    Ok([*m, *n, *k])
}

/// The WMMA instruction's `[M, N, K]` from `instrShape`: 3 entries, `M x N`
/// 16x16 (or 32x16 from version 2 on), K a power of two.
fn wmma_instr(e: &'static str, f: &'static str, instr: &[u32], version: u32) -> Result<[u32; 3]> {
    let [m, n, k] = instr else {
        return Err(field(
            e,
            f,
            format!("{instr:?} has {} entries, expected [M, N, K]", instr.len()),
        ));
    };
    if !((*m, *n) == (16, 16) || ((*m, *n) == (32, 16) && version >= 2)) {
        return Err(field(
            e,
            f,
            format!(
                "{instr:?}: M x N = {m}x{n} is not a WMMA shape of version {version} (16x16{})",
                if version >= 2 { ", 32x16" } else { "" }
            ),
        ));
    }
    check_pow2(e, f, &[*k])?;
    Ok([*m, *n, *k])
}

fn check_version(e: &'static str, f: &'static str, v: u32, max: u32) -> Result<()> {
    if !(1..=max).contains(&v) {
        return Err(field(
            e,
            f,
            format!("{v} is not a version of {e} (1 to {max})"),
        ));
    }
    Ok(())
}

/// `#ttg.amd_mfma` ([`super::Encoding::AmdMfma`]): Triton 3.6's
/// `AMDMfmaEncodingAttr::toLinearLayout`, on 64 lanes.
///
/// One `M x N` instruction tile: each lane holds `height` consecutive
/// elements (4; 1 for `elementBitWidth = 64`) along M, lanes go first along
/// N (N of them) then down M; the tile repeats in registers along M to
/// cover `M x N / (64 height)` groups. `isTransposed` swaps the roles of M
/// and N. Then, N-contiguously over the whole tensor: `tilesPerWarp[N]`
/// register tiles and `warpsPerCTA[N]` warps along N, register tiles for the
/// rest of `shape[N]`, `tilesPerWarp[M]` register tiles and `warpsPerCTA[M]`
/// warps along M; batch warps last; fitted to `shape` by
/// [`combine_cta_cga_with_shape`].
///
/// Errors: rank other than 2 or 3, a version outside 1-4, `instrShape` not
/// `[M, N, K]` of an MFMA shape, `elementBitWidth` other than 32 and 64,
/// `warpsPerCTA`/`tilesPerWarp` of the wrong rank or not powers of two,
/// warps other than `num_warps`, bad CTA fields.
#[allow(clippy::too_many_arguments)]
pub(super) fn mfma_layout(
    version: u32,
    warps_per_cta: &[u32],
    instr_shape: &[u32],
    is_transposed: bool,
    tiles_per_warp: &[u32],
    element_bit_width: u32,
    cta: &Option<CtaLayout>,
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "amd_mfma";
    check_version(E, "version", version, 4)?;
    let tiles = check_common(
        E,
        ["warpsPerCTA", "tilesPerWarp"],
        warps_per_cta,
        tiles_per_warp,
        cta,
        shape,
        num_warps,
    )?;
    let [m, n, _] = mfma_instr(E, "instrShape", instr_shape, is_transposed)?;
    if element_bit_width != 32 && element_bit_width != 64 {
        return Err(field(
            E,
            "elementBitWidth",
            format!("{element_bit_width} is neither 32 nor 64"),
        ));
    }
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let (mi, ni) = (rank - 2, rank - 1);
    let (dim_m, dim_n) = (&names[mi], &names[ni]);
    let height = if element_bit_width == 64 { 1 } else { 4 };
    let reps = (m * n) / (MFMA_LANES * height);
    // (the dim the registers run along, the dim lanes fill first, its size)
    let (reg_dim, lane_dim, lane_size) = if is_transposed {
        (dim_n, dim_m, m)
    } else {
        (dim_m, dim_n, n)
    };
    let mut l = id(height, REGISTER, reg_dim)?
        .mul(&id(lane_size, LANE, lane_dim)?)?
        .mul(&id(MFMA_LANES / lane_size, LANE, reg_dim)?)?
        .mul(&id(reps, REGISTER, reg_dim)?)?
        .transpose_outs(&[dim_n.clone(), dim_m.clone()])?;
    let n_rest =
        (shape[ni] as u64 / (n as u64 * warps_per_cta[ni] as u64 * tiles[ni] as u64)) as u32;
    l = l
        .mul(&id(tiles[ni], REGISTER, dim_n)?)?
        .mul(&id(warps_per_cta[ni], WARP, dim_n)?)?
        .mul(&id(n_rest, REGISTER, dim_n)?)?
        .mul(&id(tiles[mi], REGISTER, dim_m)?)?
        .mul(&id(warps_per_cta[mi], WARP, dim_m)?)?;
    if rank == 3 {
        l = l
            .mul(&id(1, REGISTER, &names[0])?)?
            .mul(&id(1, LANE, &names[0])?)?
            .mul(&id(warps_per_cta[0], WARP, &names[0])?)?;
    }
    combine_cta_cga_with_shape(l, cta, shape)
}

/// `#ttg.dot_op` with an `amd_mfma` parent: Triton 3.6's
/// `mfmaDotToLinearLayout`, on 64 lanes.
///
/// Each lane holds `kWidth` consecutive elements along K; lanes go first
/// along the operand's non-K dim (M for A, N for B: the instruction's
/// extent) then along K; the 64x4 A / 4x64 B operands repeat that 16 times
/// along K; registers repeat along K to cover `shape[K]` and
/// `tilesPerWarp[non-K]` times along non-K. Warps are the parent's in its
/// order (N fastest); those along K come out broadcast when the registers
/// already cover `shape[K]` (the fit to `shape`).
///
/// Errors: `kWidth` not a power of two, and the parent's.
pub(super) fn mfma_dot_layout(
    op_idx: u32,
    k_width: u32,
    parent: &super::Encoding,
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "dot_op";
    let super::Encoding::AmdMfma {
        version,
        warps_per_cta,
        instr_shape,
        is_transposed,
        tiles_per_warp,
        element_bit_width,
        cta,
    } = parent
    else {
        unreachable!("mfma_dot_layout takes an amd_mfma parent");
    };
    check_dot(op_idx, k_width)?;
    check_version(E, "parent version", *version, 4)?;
    if *element_bit_width != 32 && *element_bit_width != 64 {
        return Err(field(
            E,
            "parent elementBitWidth",
            format!("{element_bit_width} is neither 32 nor 64"),
        ));
    }
    let tiles = check_common(
        E,
        ["parent warpsPerCTA", "parent tilesPerWarp"],
        warps_per_cta,
        tiles_per_warp,
        cta,
        shape,
        num_warps,
    )?;
    let [m, n, _] = mfma_instr(E, "parent instrShape", instr_shape, *is_transposed)?;
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let order = dot_operand_order(op_idx, rank);
    let (dim_k, dim_nonk) = (&names[order[0] as usize], &names[order[1] as usize]);
    let k_index = order[0] as usize;
    let nonk_index = order[1] as usize;
    let non_k = if op_idx == 0 { m } else { n };
    let mut l = id(k_width, REGISTER, dim_k)?
        .mul(&id(non_k, LANE, dim_nonk)?)?
        .mul(&id(MFMA_LANES / non_k, LANE, dim_k)?)?;
    let mut k_tile = (MFMA_LANES / non_k) as u64 * k_width as u64;
    if (m, n, op_idx) == (64, 4, 0) || (m, n, op_idx) == (4, 64, 1) {
        l = l.mul(&id(16, REGISTER, dim_k)?)?;
        k_tile *= 16;
    }
    let k_size = shape[k_index] as u64;
    if k_size > k_tile {
        l = l.mul(&id((k_size / k_tile) as u32, REGISTER, dim_k)?)?;
    }
    l = l
        .mul(&id(tiles[nonk_index], REGISTER, dim_nonk)?)?
        .transpose_outs(&[dim_k.clone(), dim_nonk.clone()])?;
    if rank == 3 {
        l = l
            .mul(&id(1, REGISTER, &names[0])?)?
            .mul(&id(1, LANE, &names[0])?)?;
    }
    let warps = identity_standard_nd(WARP, warps_per_cta, &matrix_order(rank, true))?;
    l = l.mul(&warps)?;
    combine_cta_cga_with_shape(l, cta, shape)
}

/// `opIdx` 0 or 1 and `kWidth` a power of two up to 64.
fn check_dot(op_idx: u32, k_width: u32) -> Result<()> {
    if op_idx > 1 {
        return Err(field(
            "dot_op",
            "opIdx",
            format!("{op_idx} is neither 0 nor 1"),
        ));
    }
    if k_width > 64 || !is_pow2(k_width as i64) {
        return Err(field(
            "dot_op",
            "kWidth",
            format!("{k_width} is not a power of two up to 64"),
        ));
    }
    Ok(())
}

/// The registers and lanes of one WMMA accumulator tile (Triton 3.6's
/// `AMDWmmaEncodingAttr` tile layout), 32 lanes, as (inner, outer) offsets
/// where inner is N (M when `isTranspose`): version 1 holds every other row
/// (registers 2, 4, 8 down the outer dim, lane 16 the odd rows); versions
/// 2/3 hold 8 consecutive rows (lane 16 the second 8); a 32x16 instruction
/// adds a register for the second 16 rows.
fn wmma_tile(version: u32, m: u32, is_transposed: bool, rank: usize) -> Result<LinearLayout> {
    let names = standard_out_dim_names(rank);
    let to = matrix_order(rank, !is_transposed);
    let (inner, outer) = (&names[to[0] as usize], &names[to[1] as usize]);
    let (regs, gap): (Vec<Vec<i32>>, Vec<i32>) = if version == 1 {
        (vec![vec![0, 2], vec![0, 4], vec![0, 8]], vec![0, 1])
    } else if m == 32 {
        (
            vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 16]],
            vec![0, 8],
        )
    } else {
        (vec![vec![0, 1], vec![0, 2], vec![0, 4]], vec![0, 8])
    };
    let mut lanes: Vec<Vec<i32>> = vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0]];
    lanes.push(gap);
    let all = regs.iter().chain(&lanes);
    let size = |k: usize| {
        let max = all.clone().map(|b| b[k]).max().unwrap_or(0);
        (max as u32 + 1).next_power_of_two() as i32
    };
    let mut l = LinearLayout::new(
        vec![
            (REGISTER.into(), regs.clone()),
            (LANE.into(), lanes.clone()),
        ],
        vec![(inner.clone(), size(0)), (outer.clone(), size(1))],
        false,
    )?;
    if rank == 3 {
        l = l
            .mul(&id(1, REGISTER, &names[0])?)?
            .mul(&id(1, LANE, &names[0])?)?;
    }
    Ok(l)
}

/// The CTA part of a WMMA layout, N-contiguous as MFMA's (see
/// [`mfma_layout`]): `tilesPerWarp[N]` register tiles and `warpsPerCTA[N]`
/// warps along N, with `over = Some((n, shape))` register tiles for the
/// rest of `shape[N]` (instruction N extent `n`; the accumulator's, not the
/// dot operand's), `tilesPerWarp[M]` register tiles and `warpsPerCTA[M]`
/// warps along M, batch warps last.
fn wmma_cta(
    warps_per_cta: &[u32],
    tiles: &[u32],
    names: &[String],
    over: Option<(u32, &[i64])>,
) -> Result<LinearLayout> {
    let rank = names.len();
    let (mi, ni) = (rank - 2, rank - 1);
    let n_rest = over.map_or(1, |(n, shape)| {
        (shape[ni] as u64 / (n as u64 * warps_per_cta[ni] as u64 * tiles[ni] as u64)) as u32
    });
    let mut l = id(tiles[ni], REGISTER, &names[ni])?
        .mul(&id(warps_per_cta[ni], WARP, &names[ni])?)?
        .mul(&id(n_rest, REGISTER, &names[ni])?)?
        .mul(&id(tiles[mi], REGISTER, &names[mi])?)?
        .mul(&id(warps_per_cta[mi], WARP, &names[mi])?)?;
    if rank == 3 {
        l = l.mul(&id(warps_per_cta[0], WARP, &names[0])?)?;
    }
    Ok(l)
}

/// `#ttg.amd_wmma` ([`super::Encoding::AmdWmma`]): Triton 3.6's
/// `AMDWmmaEncodingAttr::toLinearLayout`, on 32 lanes: the tile of
/// [`wmma_tile`], then the CTA part of [`wmma_cta`] over `shape`
/// (register tiles and warps N-contiguous over the tensor), out dims N
/// before M, fitted to `shape` (registers cover the rest of M).
///
/// Errors: rank other than 2 or 3, a version outside 1-3, `instrShape` not
/// `[M, N, K]` of a WMMA shape, `warpsPerCTA`/`tilesPerWarp` of the wrong
/// rank or not powers of two, warps other than `num_warps`, bad CTA fields.
#[allow(clippy::too_many_arguments)]
pub(super) fn wmma_layout(
    version: u32,
    is_transposed: bool,
    warps_per_cta: &[u32],
    tiles_per_warp: &[u32],
    instr_shape: &[u32],
    cta: &Option<CtaLayout>,
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "amd_wmma";
    check_version(E, "version", version, 3)?;
    let tiles = check_common(
        E,
        ["warpsPerCTA", "tilesPerWarp"],
        warps_per_cta,
        tiles_per_warp,
        cta,
        shape,
        num_warps,
    )?;
    let [m, n, _] = wmma_instr(E, "instrShape", instr_shape, version)?;
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let l = wmma_tile(version, m, is_transposed, rank)?.mul(&wmma_cta(
        warps_per_cta,
        &tiles,
        &names,
        Some((n, shape)),
    )?)?;
    let rep: Vec<String> = matrix_order(rank, true)
        .iter()
        .map(|&d| names[d as usize].clone())
        .collect();
    combine_cta_cga_with_shape(l.transpose_outs(&rep)?, cta, shape)
}

/// The extent of `shape[dim]` one CTA holds, the CGA split off as
/// [`combine_cta_cga_with_shape`] splits it.
fn cta_extent(cta: &Option<CtaLayout>, shape: &[i64], dim: usize) -> Result<i64> {
    let Some(c) = cta else {
        return Ok(shape[dim]);
    };
    let names = standard_out_dim_names(shape.len());
    let labeled: Vec<(String, i64)> = names.iter().cloned().zip(shape.iter().copied()).collect();
    let cga = ensure_not_larger(&make_cga_layout(c, shape.len())?, &labeled)?;
    Ok((shape[dim] / cga.out_dim_size(&names[dim]) as i64).max(1))
}

/// `#ttg.dot_op` with an `amd_wmma` parent: Triton 3.6's
/// `wmmaDotOperandToLinearLayout`, on 32 lanes.
///
/// `kWidth` registers along K, 16 lanes along the non-K dim, the other 2
/// lanes along K (version 1: holding copies, a broadcast; versions 2/3:
/// the next `kWidth` of K), registers repeating along K to cover the
/// instruction's K (and, for a 32-row instruction, a register for the
/// second 16 rows), then registers along K for the rest of one CTA's K
/// (before the parent's register tiles, as Triton orders them; with
/// `tilesPerWarp[non-K] > 1` for the rest of the whole K, those past one
/// CTA's K becoming zero bases, as Triton's are); then the
/// parent's CTA part ([`wmma_cta`]) with its K components dropped (warps
/// along K broadcast, register tiles along K gone: `tilesPerWarp[non-K]`
/// register tiles, warps, then the rest of non-K); out dims K first,
/// fitted to `shape`.
///
/// Errors: `kWidth` not a power of two, and the parent's.
pub(super) fn wmma_dot_layout(
    op_idx: u32,
    k_width: u32,
    parent: &super::Encoding,
    shape: &[i64],
    num_warps: u32,
) -> Result<LinearLayout> {
    const E: &str = "dot_op";
    let super::Encoding::AmdWmma {
        version,
        warps_per_cta,
        tiles_per_warp,
        instr_shape,
        cta,
        ..
    } = parent
    else {
        unreachable!("wmma_dot_layout takes an amd_wmma parent");
    };
    check_dot(op_idx, k_width)?;
    check_version(E, "parent version", *version, 3)?;
    let tiles = check_common(
        E,
        ["parent warpsPerCTA", "parent tilesPerWarp"],
        warps_per_cta,
        tiles_per_warp,
        cta,
        shape,
        num_warps,
    )?;
    let [m, n, k] = wmma_instr(E, "parent instrShape", instr_shape, *version)?;
    let rank = shape.len();
    let names = standard_out_dim_names(rank);
    let order = dot_operand_order(op_idx, rank);
    let (k_index, nonk_index) = (order[0] as usize, order[1] as usize);
    let (dim_k, dim_nonk) = (&names[k_index], &names[nonk_index]);
    let non_k = if op_idx == 0 { m } else { n };
    const TILE: u32 = 16;
    let depth = WMMA_LANES / TILE;
    let mut l = id(k_width, REGISTER, dim_k)?.mul(&id(TILE, LANE, dim_nonk)?)?;
    l = l.mul(&if *version == 1 {
        LinearLayout::zeros_1d(depth as i32, LANE, dim_k, 1)?
    } else {
        id(depth, LANE, dim_k)?
    })?;
    l = l.mul(&id(k / (depth * k_width), REGISTER, dim_k)?)?;
    if non_k / TILE > 1 {
        l = l.mul(&id(non_k / TILE, REGISTER, dim_nonk)?)?;
    }
    // the rest of K in registers, before the parent's register tiles
    let k_tile = k.max(depth * k_width) as i64;
    // (of one CTA's K; of the whole K when the parent has register tiles
    // along non-K: Triton 3.6 then zeroes the registers past one CTA's K in
    // place)
    let k_extent = if tiles[nonk_index] == 1 {
        cta_extent(cta, shape, k_index)?
    } else {
        shape[k_index]
    };
    let k_rest = (k_extent / k_tile).max(1) as u32;
    l = l.mul(&id(k_rest, REGISTER, dim_k)?)?;
    // the parent's CTA part without its K components
    let cta_l = wmma_cta(warps_per_cta, &tiles, &names, None)?;
    let kpos = cta_l
        .out_dim_names()
        .iter()
        .position(|d| d == dim_k)
        .expect("the CTA part has every dim");
    let ins: Vec<(String, Vec<Vec<i32>>)> = cta_l
        .in_dims()
        .iter()
        .map(|d| {
            let mut b: Vec<Vec<i32>> = d
                .bases
                .iter()
                .map(|b| {
                    let mut b = b.clone();
                    b[kpos] = 0;
                    b
                })
                .collect();
            if d.name == REGISTER {
                b.retain(|b| b.iter().any(|&x| x != 0));
            }
            (d.name.clone(), b)
        })
        .collect();
    let outs: Vec<(String, i32)> = cta_l
        .out_dims()
        .iter()
        .map(|(nm, s)| (nm.clone(), if nm == dim_k { 1 } else { *s }))
        .collect();
    let cta_l = LinearLayout::new(ins, outs, false)?;
    let l = l.mul(&cta_l)?;
    let rep: Vec<String> = order.iter().map(|&d| names[d as usize].clone()).collect();
    combine_cta_cga_with_shape(l.transpose_outs(&rep)?, cta, shape)
}
