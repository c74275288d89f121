//! Named PTX register fragments (`ptx:...`), the layouts the PTX ISA draws
//! for each thread's registers, tiled over the CTA's warps and repeated
//! over `--shape` the way a CuTe `TiledMMA` tiles its atom: warps along M
//! first, then N; repetitions along M first, then N (CuTe's `(MMA, MMA_M,
//! MMA_N)` fragment order).
//!
//! An A operand (M x K) is not split along K by warps: warps along N hold
//! copies of it (zero warp bases), as in a `TiledMMA` or Triton's
//! `dot_op`; likewise a B operand (K x N) is copied by warps along M.
//!
//! Syntax: `ptx:<instruction>.<operand>[.<type>][@<WM>x<WN>]`, element
//! coordinates `(row, column)` of the operand (`A`: M x K, `B`: K x N,
//! `C`/`D`: M x N), bases over elements (a `.b32` register of two 16-bit
//! elements is two register bases). Sources, by title in the PTX ISA:
//! "Matrix Fragments for mma.m16n8k16 with floating point type", "Matrix
//! Fragments for mma.m16n8k32", "Matrix Fragments for mma.m16n8k8" (the
//! `mma.sync` pictures: `groupID = lane / 4`, `threadID_in_group = lane %
//! 4`), the `ldmatrix` and `stmatrix` instructions, and the register
//! fragments of `wgmma.mma_async` (matrix D). Every atom is checked against
//! Triton's `nvidia_mma`/`dot_op` encodings of the same registers in
//! `tests/cli/layout.rs`.
//!
//! | name | tile | picture |
//! |---|---|---|
//! | `mma.m16n8k16.a.{f16,bf16}` | 16x16 | m16n8k16 A, `.f16`/`.bf16` |
//! | `mma.m16n8k16.b.{f16,bf16}` | 16x8 | m16n8k16 B |
//! | `mma.m16n8k16.c.{f32,f16}` | 16x8 | m16n8k16 C/D |
//! | `mma.m16n8k32.a.{s8,u8,e4m3,e5m2}` | 16x32 | m16n8k32 A, 8-bit |
//! | `mma.m16n8k32.b.{s8,u8,e4m3,e5m2}` | 32x8 | m16n8k32 B |
//! | `mma.m16n8k32.c.{s32,f32,f16}` | 16x8 | m16n8k32 C/D |
//! | `mma.m16n8k8.a.tf32` | 16x8 | m16n8k8 A, `.tf32` |
//! | `mma.m16n8k8.b.tf32` | 8x8 | m16n8k8 B |
//! | `mma.m16n8k8.c.f32` | 16x8 | m16n8k8 C/D |
//! | `{ldmatrix,stmatrix}.x1[.trans]` | 8x8 | one 8x8 `.b16` matrix |
//! | `{ldmatrix,stmatrix}.x2[.trans]` | 16x8 | matrices stacked along rows |
//! | `{ldmatrix,stmatrix}.x4[.trans]` | 16x16 | matrices 0..3 at (0,0), (8,0), (0,8), (8,8): the m16n8k16 A order |
//! | `wgmma.m64nNk16.c.{f32,f16}`, N = 8..256 a power of two | 64xN | a warpgroup (4 warps) per atom |

use super::{Format, LayoutText};
use crate::encoding::Encoding;

type Res<T> = Result<T, (usize, String)>;

/// `(row, column)` offsets.
type Basis = [u32; 2];

/// The atom of a fragment: its bases and tile.
struct Atom {
    /// 0: an A operand (M x K), 1: B (K x N), 2: an accumulator or a
    /// matrix (`ldmatrix`), whose two axes are both tiled by warps.
    operand: u8,
    reg: Vec<Basis>,
    lane: Vec<Basis>,
    /// Warps inside the atom (a `wgmma` warpgroup).
    warp: Vec<Basis>,
    tile: [u32; 2],
}

/// The lanes of the `mma.sync` pictures: `threadID_in_group = lane % 4`
/// steps columns by `col`, `groupID = lane / 4` steps rows by 1.
fn group_lanes(col: [Basis; 2]) -> Vec<Basis> {
    vec![col[0], col[1], [1, 0], [2, 0], [4, 0]]
}

/// The atom of `name` (without `ptx:` and `@`), or what is wrong with it.
fn atom(name: &str) -> Result<Atom, String> {
    let p: Vec<&str> = name.split('.').collect();
    let operand = match p.get(2) {
        Some(&"a") if p[0] == "mma" => 0,
        Some(&"b") if p[0] == "mma" => 1,
        _ => 2,
    };
    // nothing may follow the type (ldmatrix checks its own suffix)
    if p[0] != "ldmatrix" && p[0] != "stmatrix" && p.len() > 4 {
        return Err(format!(
            "`{}`: nothing may follow the type `{}`",
            name, p[3]
        ));
    }
    let one = |reg: Vec<Basis>, lane: Vec<Basis>, tile: [u32; 2]| Atom {
        operand,
        reg,
        lane,
        warp: vec![],
        tile,
    };
    // C/D of every m16n8kK: c0,c1 at (g, 2t + i), c2,c3 at row + 8
    let c16x8 = || one(vec![[0, 1], [8, 0]], group_lanes([[0, 2], [0, 4]]), [16, 8]);
    let types = |t: Option<&&str>, ok: &[&str], what: &str| -> Result<(), String> {
        match t {
            Some(t) if ok.contains(t) => Ok(()),
            Some(t) => Err(format!(
                "{what}: type `{t}` is not one of {}",
                ok.join(", ")
            )),
            None => Err(format!("{what}: give the type, one of {}", ok.join(", "))),
        }
    };
    match p.as_slice() {
        ["mma", "m16n8k16", op, rest @ ..] => {
            let t = rest.first();
            match *op {
                "a" => {
                    types(t, &["f16", "bf16"], "mma.m16n8k16.a")?;
                    // a0,a1 (g, 2t + i); a2,a3 row + 8; a4..a7 column + 8
                    Ok(one(
                        vec![[0, 1], [8, 0], [0, 8]],
                        group_lanes([[0, 2], [0, 4]]),
                        [16, 16],
                    ))
                }
                "b" => {
                    types(t, &["f16", "bf16"], "mma.m16n8k16.b")?;
                    // b0,b1 (2t + i, g); b2,b3 row + 8
                    Ok(one(
                        vec![[1, 0], [8, 0]],
                        vec![[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]],
                        [16, 8],
                    ))
                }
                "c" | "d" => {
                    types(t, &["f32", "f16"], "mma.m16n8k16.c")?;
                    Ok(c16x8())
                }
                _ => Err(format!("mma.m16n8k16: operand `{op}` is not a, b or c")),
            }
        }
        ["mma", "m16n8k32", op, rest @ ..] => {
            let t = rest.first();
            let eight = ["s8", "u8", "e4m3", "e5m2"];
            match *op {
                "a" => {
                    types(t, &eight, "mma.m16n8k32.a")?;
                    // a0..a3 (g, 4t + i); a4..a7 row + 8; a8..a15 column + 16
                    Ok(one(
                        vec![[0, 1], [0, 2], [8, 0], [0, 16]],
                        group_lanes([[0, 4], [0, 8]]),
                        [16, 32],
                    ))
                }
                "b" => {
                    types(t, &eight, "mma.m16n8k32.b")?;
                    // b0..b3 (4t + i, g); b4..b7 row + 16
                    Ok(one(
                        vec![[1, 0], [2, 0], [16, 0]],
                        vec![[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]],
                        [32, 8],
                    ))
                }
                "c" | "d" => {
                    types(t, &["s32", "f32", "f16"], "mma.m16n8k32.c")?;
                    Ok(c16x8())
                }
                _ => Err(format!("mma.m16n8k32: operand `{op}` is not a, b or c")),
            }
        }
        ["mma", "m16n8k8", op, rest @ ..] => {
            let t = rest.first();
            match *op {
                "a" => {
                    types(t, &["tf32"], "mma.m16n8k8.a")?;
                    // a0 (g, t); a1 row + 8; a2 column + 4; a3 both
                    Ok(one(
                        vec![[8, 0], [0, 4]],
                        group_lanes([[0, 1], [0, 2]]),
                        [16, 8],
                    ))
                }
                "b" => {
                    types(t, &["tf32"], "mma.m16n8k8.b")?;
                    // b0 (t, g); b1 row + 4
                    Ok(one(
                        vec![[4, 0]],
                        vec![[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]],
                        [8, 8],
                    ))
                }
                "c" | "d" => {
                    types(t, &["f32"], "mma.m16n8k8.c")?;
                    Ok(c16x8())
                }
                _ => Err(format!("mma.m16n8k8: operand `{op}` is not a, b or c")),
            }
        }
        [ins @ ("ldmatrix" | "stmatrix"), x, rest @ ..] => {
            let trans = match rest {
                [] => false,
                ["trans"] => true,
                _ => return Err(format!("{ins}.{x}: only `.trans` may follow")),
            };
            let (mats, tile): (Vec<Basis>, [u32; 2]) = match *x {
                "x1" => (vec![], [8, 8]),
                "x2" => (vec![[8, 0]], [16, 8]),
                "x4" => (vec![[8, 0], [0, 8]], [16, 16]),
                _ => return Err(format!("{ins}: `{x}` is not x1, x2 or x4")),
            };
            // thread t holds row t / 4, columns 2 (t % 4) + {0, 1} of each
            // matrix (.trans: the transpose)
            let (e, l): (Basis, [Basis; 2]) = if trans {
                ([1, 0], [[2, 0], [4, 0]])
            } else {
                ([0, 1], [[0, 2], [0, 4]])
            };
            let lane = if trans {
                vec![l[0], l[1], [0, 1], [0, 2], [0, 4]]
            } else {
                group_lanes(l)
            };
            let mut reg = vec![e];
            reg.extend(mats);
            Ok(one(reg, lane, tile))
        }
        ["wgmma", shape, op, rest @ ..] => {
            let n: u32 = shape
                .strip_prefix("m64n")
                .and_then(|s| s.strip_suffix("k16"))
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("wgmma: `{shape}` is not m64nNk16"))?;
            if !(8..=256).contains(&n) || !n.is_power_of_two() {
                return Err(format!(
                    "wgmma.m64n{n}k16: N must be a power of two from 8 to 256 (other N are not GF(2)-linear over the tile)"
                ));
            }
            if !matches!(*op, "c" | "d") {
                return Err(format!("wgmma.{shape}: only the accumulator (c) is a register fragment here, not `{op}`"));
            }
            types(rest.first(), &["f32", "f16"], "wgmma.c")?;
            // d[i]: the m16n8 C core, repeated N / 8 times along N; warp w
            // of the warpgroup at rows 16 w
            let mut reg = vec![[0, 1], [8, 0]];
            let mut c = 8;
            while c < n {
                reg.push([0, c]);
                c *= 2;
            }
            Ok(Atom {
                operand: 2,
                reg,
                lane: group_lanes([[0, 2], [0, 4]]),
                warp: vec![[16, 0], [32, 0]],
                tile: [64, n],
            })
        }
        _ => Err("unknown fragment".into()),
    }
}

/// Every fragment name (with one type each), for errors.
pub const KNOWN: &str = "mma.m16n8k16.{a,b}.{f16,bf16}, mma.m16n8k16.c.{f32,f16}, mma.m16n8k32.{a,b}.{s8,u8,e4m3,e5m2}, mma.m16n8k32.c.{s32,f32,f16}, mma.m16n8k8.{a,b}.tf32, mma.m16n8k8.c.f32, {ldmatrix,stmatrix}.{x1,x2,x4}[.trans], wgmma.m64nNk16.c.{f32,f16}";

pub(super) fn claims(t: &str) -> bool {
    t.starts_with("ptx:")
}

/// Parse `ptx:name[@WMxWN]`; errors are `(byte offset, message)`.
pub(super) fn parse(text: &str) -> Res<LayoutText> {
    let start = text.len() - text.trim_start().len();
    let t = text.trim();
    let Some(body) = t.strip_prefix("ptx:") else {
        return Err((start, "a PTX fragment starts with `ptx:`".into()));
    };
    let (name, warps) = match body.split_once('@') {
        Some((n, w)) => (n.trim(), Some(w.trim())),
        None => (body.trim(), None),
    };
    let at_name = start + 4;
    let a = atom(name).map_err(|e| {
        if e == "unknown fragment" {
            (
                at_name,
                format!("unknown fragment `{name}`; known: {KNOWN}"),
            )
        } else {
            (at_name, e)
        }
    })?;
    let at_w = start + 4 + name.len() + 1;
    let (wm, wn) = match warps {
        None => (0, 0),
        Some(w) => {
            let (m, n) = w
                .split_once('x')
                .and_then(|(m, n)| Some((m.parse::<u32>().ok()?, n.parse::<u32>().ok()?)))
                .ok_or((at_w, format!("`@{w}`: expected warps as WMxWN, e.g. @2x2")))?;
            if !m.is_power_of_two()
                || !n.is_power_of_two()
                || (m as u64 * n as u64) << a.warp.len() > 32
            {
                return Err((
                    at_w,
                    format!("`@{w}`: warps along M and N must be powers of two, 32 warps at most (a wgmma atom counts its 4)"),
                ));
            }
            (m, n)
        }
    };
    let encoding = Encoding::PtxFragment {
        operand: a.operand,
        reg: a.reg,
        lane: a.lane,
        atom_warp: a.warp,
        tile: a.tile,
        warps: [wm, wn],
        text: t.to_string(),
    };
    Ok(super::encoded_text(Format::Ptx, encoding, None))
}
