//! Whole families of conversions, for exhaustive proofs (docs/ARCHITECTURE.md section 6):
//! every bit permutation of `r` register + 5 lane bits, layouts with
//! broadcast bases, and every pair of a set of blocked layouts.

use crate::encoding::Encoding;
use crate::layout::{LinearLayout, BLOCK, LANE, REGISTER, WARP};
use crate::parse::ElemType;
use crate::plan::Conversion;

fn i32_elem() -> ElemType {
    ElemType {
        name: "i32".into(),
        bits: 32,
    }
}

/// A one-warp 1-D layout over `2^t` elements whose hardware bit `i`
/// (registers first, then 5 lane bits) holds tensor bit `map[i]`
/// (`None`: a broadcast zero basis).
pub fn unit_layout(reg_bits: usize, map: &[Option<u32>], t: u32) -> LinearLayout {
    let basis = |m: &Option<u32>| vec![m.map(|b| 1i32 << b).unwrap_or(0)];
    let regs = map[..reg_bits].iter().map(basis).collect();
    let lanes = map[reg_bits..].iter().map(basis).collect();
    LinearLayout::new(
        vec![
            (REGISTER.into(), regs),
            (LANE.into(), lanes),
            (WARP.into(), vec![]),
            (BLOCK.into(), vec![]),
        ],
        vec![("dim0".into(), 1 << t)],
        true,
    )
    .expect("a permutation layout is valid")
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// Every conversion from the identity layout (register bits hold the low
/// tensor bits, then lanes) to each bit permutation of `reg_bits + 5` bits:
/// `(reg_bits + 5)!` conversions, one warp.
pub fn permutation_family(reg_bits: usize) -> Vec<Conversion> {
    let n = reg_bits + 5;
    let id: Vec<Option<u32>> = (0..n as u32).map(Some).collect();
    let src = unit_layout(reg_bits, &id, n as u32);
    permutations(n)
        .into_iter()
        .enumerate()
        .map(|(k, p)| {
            let map: Vec<Option<u32>> = p.iter().map(|&b| Some(b as u32)).collect();
            let dst = unit_layout(reg_bits, &map, n as u32);
            Conversion::new(
                &format!("perm{reg_bits}_{k}"),
                src.clone(),
                dst,
                &[1 << n],
                i32_elem(),
                1,
                "identity",
                &format!("{p:?}"),
            )
            .expect("valid conversion")
        })
        .collect()
}

/// Blocked layouts of a 2-D `shape` for one warp: every `sizePerThread`
/// (powers of two, product at most `max_regs`), every `threadsPerWarp`
/// splitting 32 lanes, both orders.
pub fn blocked_family(shape: [u32; 2], max_regs: u32) -> Vec<(String, Encoding)> {
    let mut out = Vec::new();
    let pows = |lim: u32| {
        (0..)
            .map(|i| 1u32 << i)
            .take_while(move |&v| v <= lim)
            .collect::<Vec<_>>()
    };
    for s0 in pows(shape[0]) {
        for s1 in pows(shape[1]) {
            if s0 * s1 > max_regs {
                continue;
            }
            for t0 in pows(32) {
                let t1 = 32 / t0;
                for order in [[1u32, 0], [0, 1]] {
                    let text = format!(
                        "#ttg.blocked<{{sizePerThread = [{s0}, {s1}], threadsPerWarp = [{t0}, {t1}], warpsPerCTA = [1, 1], order = [{}, {}]}}>",
                        order[0], order[1]
                    );
                    out.push((
                        text,
                        Encoding::Blocked {
                            size_per_thread: vec![s0, s1],
                            threads_per_warp: vec![t0, t1],
                            warps_per_cta: vec![1, 1],
                            order: order.to_vec(),
                            cta: None,
                        },
                    ));
                }
            }
        }
    }
    out
}

/// The linear layouts (one warp) of [`blocked_family`], with their attribute text.
pub fn blocked_layouts(shape: [u32; 2], max_regs: u32) -> Vec<(String, LinearLayout)> {
    let dims = [shape[0] as i64, shape[1] as i64];
    blocked_family(shape, max_regs)
        .into_iter()
        .map(|(t, e)| {
            let l = e
                .to_linear_layout(&dims, 1)
                .expect("a blocked family member is valid");
            (t, l)
        })
        .collect()
}

/// The one-warp `f32` conversion between two members of [`blocked_layouts`].
pub fn blocked_pair(
    name: &str,
    src: &(String, LinearLayout),
    dst: &(String, LinearLayout),
) -> Conversion {
    let shape: Vec<i64> = src.1.out_dims().iter().map(|(_, s)| *s as i64).collect();
    let elem = ElemType {
        name: "f32".into(),
        bits: 32,
    };
    Conversion::new(
        name,
        src.1.clone(),
        dst.1.clone(),
        &shape,
        elem,
        1,
        &src.0,
        &dst.0,
    )
    .expect("two layouts of one shape make a conversion")
}

/// Blocked layouts Triton builds for a 2-D `shape` and `warps` warps
/// (`getDefaultBlockedEncoding`-like): `vec` elements per thread along the
/// minor dim for `vec` in 1..=16, both orders, threads filling the minor dim
/// first, warps along either dim or split. Attribute text per layout.
pub fn cta_blocked_family(shape: [u32; 2], warps: u32) -> Vec<String> {
    let mut out = Vec::new();
    for order in [[1u32, 0], [0, 1]] {
        let (minor, major) = (order[0] as usize, order[1] as usize);
        for vec in [1u32, 2, 4, 8, 16] {
            if vec > shape[minor] {
                continue;
            }
            let mut spt = [1u32; 2];
            spt[minor] = vec;
            let mut tpw = [1u32; 2];
            tpw[minor] = (shape[minor] / vec).clamp(1, 32);
            tpw[major] = 32 / tpw[minor];
            let mut splits = vec![[warps, 1], [1, warps]];
            if warps >= 4 {
                splits.push([warps / 2, 2]);
            }
            for wpc in splits {
                out.push(format!(
                    "#ttg.blocked<{{sizePerThread = [{}, {}], threadsPerWarp = [{}, {}], warpsPerCTA = [{}, {}], order = [{}, {}]}}>",
                    spt[0], spt[1], tpw[0], tpw[1], wpc[0], wpc[1], order[0], order[1]
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// NVIDIA MMA accumulator layouts (v2 `instrShape = [16, 8]`, v3
/// `[16, N, 16]`) for `warps` warps, as attribute text.
pub fn mma_family(shape: [u32; 2], warps: u32) -> Vec<String> {
    let mut out = Vec::new();
    for wpc in [[warps, 1], [warps / 2, 2], [1, warps]] {
        if wpc[0] * wpc[1] != warps {
            continue;
        }
        out.push(format!(
            "#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [{}, {}], instrShape = [16, 8]}}>",
            wpc[0], wpc[1]
        ));
    }
    for n in [32u32, 64, 128] {
        if n <= shape[1] {
            out.push(format!(
                "#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [{warps}, 1], instrShape = [16, {n}, 16]}}>"
            ));
        }
    }
    out
}

/// The conversion between two attribute texts of one CTA shape, or `None`
/// when either is not a valid layout of that shape.
pub fn attr_pair(
    name: &str,
    src: &str,
    dst: &str,
    shape: [u32; 2],
    warps: u32,
    elem: ElemType,
) -> Option<Conversion> {
    let dims = [shape[0] as i64, shape[1] as i64];
    let l = |t: &str| {
        crate::parse::parse_attribute(t)
            .ok()?
            .to_linear_layout(&dims, warps)
            .ok()
    };
    Conversion::new(name, l(src)?, l(dst)?, &dims, elem, warps, src, dst).ok()
}
