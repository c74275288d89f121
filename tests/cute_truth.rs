//! Ground truth from CUTLASS itself (issue 24, item 3): every CuTe TV layout
//! that `tools/cute_truth/cute_truth.cu` printed, with CuTe's own evaluation
//! of every (thread, value), must read through warpforge's CuTe reader (the
//! path `warpforge layout --attr TEXT --shape RxC --warps W` takes) as a
//! linear layout that puts every (thread, value) exactly where CuTe does;
//! and where warpforge names the same registers as a PTX fragment
//! (`ptx:...`) or a Triton encoding (`nvidia_mma`, `dot_op`), those must be
//! the same linear layout, or differ by exactly the register or warp
//! permutation documented below.
//!
//! Every `*.txt` in `tests/data/cute_truth/` is read: `cutlass_*.txt` are the
//! program's output (see `tools/cute_truth/README.md`), `fixture_*.txt` are
//! hand-written from the PTX ISA's figures to exercise this test.
//!
//! File format (one record per line, fields separated by spaces):
//!
//! ```text
//! cute_truth cutlass 4.2.0                       first line
//! # ...                                          comments
//! layout NAME OPERAND ROWSxCOLS THREADS VALUES TEXT
//! eval NAME T IDX_0 ... IDX_{VALUES-1}           one line per thread T
//! ```
//!
//! OPERAND is `A` (tile (M,K)), `B` (tile (N,K): CuTe's B is N first, PTX's
//! and Triton's B is K x N) or `C` (tile (M,N)); IDX is the column-major
//! index of the tile element: row = IDX mod ROWS, col = IDX / ROWS. Thread T
//! is lane T mod 32 of warp T / 32; value v is register v.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use pipeline::layout_args;
use synth::input::Format;
use synth::LinearLayout;

/// One printed TV layout and CuTe's evaluation of it.
#[derive(Clone, Debug)]
struct Record {
    /// `file:line` of the `layout` line.
    at: String,
    name: String,
    operand: char,
    rows: i64,
    cols: i64,
    threads: u32,
    values: u32,
    text: String,
    /// `eval[t][v]`: CuTe's column-major tile index of (thread t, value v).
    eval: Vec<Vec<i64>>,
}

/// The records of one output file, or what is wrong with it (`file:line:
/// message`).
fn parse(file: &str, body: &str) -> Result<(String, Vec<Record>), String> {
    let mut lines = body.lines().enumerate();
    let header = match lines.next() {
        Some((_, l)) if l.starts_with("cute_truth ") => l.to_string(),
        _ => return Err(format!("{file}:1: expected a first line `cute_truth ...`")),
    };
    let mut recs: Vec<Record> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, line) in lines {
        let at = format!("{file}:{}", i + 1);
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(' ').collect();
        match f[0] {
            "layout" => {
                if f.len() != 7 {
                    return Err(format!(
                        "{at}: expected `layout NAME OPERAND ROWSxCOLS THREADS VALUES TEXT`"
                    ));
                }
                let (r, c) = f[3]
                    .split_once('x')
                    .and_then(|(r, c)| Some((r.parse().ok()?, c.parse().ok()?)))
                    .ok_or(format!("{at}: `{}` is not ROWSxCOLS", f[3]))?;
                let operand = match f[2] {
                    "A" => 'A',
                    "B" => 'B',
                    "C" => 'C',
                    o => return Err(format!("{at}: operand `{o}` is not A, B or C")),
                };
                let num = |s: &str| {
                    s.parse::<u32>()
                        .map_err(|_| format!("{at}: `{s}` is not a count"))
                };
                let (threads, values) = (num(f[4])?, num(f[5])?);
                if seen.insert(f[1].to_string(), recs.len()).is_some() {
                    return Err(format!("{at}: layout `{}` printed twice", f[1]));
                }
                recs.push(Record {
                    at,
                    name: f[1].to_string(),
                    operand,
                    rows: r,
                    cols: c,
                    threads,
                    values,
                    text: f[6].to_string(),
                    eval: vec![],
                });
            }
            "eval" => {
                let r = f
                    .get(1)
                    .and_then(|n| seen.get(*n))
                    .map(|&k| &mut recs[k])
                    .ok_or(format!("{at}: eval of a layout not printed before it"))?;
                let t: usize = f
                    .get(2)
                    .and_then(|t| t.parse().ok())
                    .ok_or(format!("{at}: expected the thread index"))?;
                if t != r.eval.len() {
                    return Err(format!(
                        "{at}: thread {t} out of order (expected {})",
                        r.eval.len()
                    ));
                }
                let idx: Vec<i64> = f[3..]
                    .iter()
                    .map(|x| {
                        x.parse()
                            .map_err(|_| format!("{at}: `{x}` is not an index"))
                    })
                    .collect::<Result<_, _>>()?;
                if idx.len() != r.values as usize {
                    return Err(format!(
                        "{at}: {} values, the layout has {}",
                        idx.len(),
                        r.values
                    ));
                }
                r.eval.push(idx);
            }
            w => return Err(format!("{at}: unknown record `{w}`")),
        }
    }
    for r in &recs {
        if r.eval.len() != r.threads as usize {
            return Err(format!(
                "{}: `{}` has {} eval lines for {} threads",
                r.at,
                r.name,
                r.eval.len(),
                r.threads
            ));
        }
    }
    Ok((header, recs))
}

/// A layout text read and built as `warpforge layout --attr TEXT --shape
/// SHAPE --warps WARPS` does (format detection, shape, warps, linear
/// layout), with the format it was read as.
fn read(text: &str, shape: &str, warps: u32) -> Result<(Format, LinearLayout), String> {
    let t = layout_args::read("--attr", text).map_err(|e| format!("{text}: {e:#}"))?;
    let shape =
        layout_args::shape(Some(shape), &[("--attr", &t)]).map_err(|e| format!("{text}: {e:#}"))?;
    let l = t
        .encoding
        .to_linear_layout(&shape, warps)
        .map_err(|e| format!("{text} over {shape:?}, {warps} warps: {e}"))?;
    Ok((t.format, l))
}

/// Check (a): the layout warpforge reads from the record's text maps every
/// (thread, value) where CuTe's evaluation says. Returns the layout and the
/// number of (thread, value) pairs checked; errors list the first few wrong
/// pairs.
fn check_eval(r: &Record) -> Result<(LinearLayout, usize), String> {
    let size = r.rows * r.cols;
    if r.threads < 32 || !r.threads.is_power_of_two() {
        return Err(format!(
            "{}: {}: {} threads is not a power-of-two number of warps",
            r.at, r.name, r.threads
        ));
    }
    let warps = r.threads / 32;
    let (format, l) = read(&r.text, &format!("{}x{}", r.rows, r.cols), warps)
        .map_err(|e| format!("{}: {}: {e}", r.at, r.name))?;
    if format != Format::Cute {
        return Err(format!(
            "{}: {}: read as {format}, not as a CuTe layout",
            r.at, r.name
        ));
    }
    if l.in_dim_size("register") != r.values as i64 {
        return Err(format!(
            "{}: {}: {} registers, CuTe prints {} values",
            r.at,
            r.name,
            l.in_dim_size("register"),
            r.values
        ));
    }
    let mut wrong = Vec::new();
    let mut n = 0;
    for (t, row) in r.eval.iter().enumerate() {
        for (v, &idx) in row.iter().enumerate() {
            n += 1;
            if !(0..size).contains(&idx) {
                wrong.push(format!(
                    "(t {t}, v {v}): CuTe's index {idx} is outside the tile"
                ));
                continue;
            }
            let want = [idx % r.rows, idx / r.rows];
            let got = l
                .apply(&[
                    ("register", v as i64),
                    ("lane", t as i64 % 32),
                    ("warp", t as i64 / 32),
                ])
                .map_err(|e| format!("{}: {}: apply: {e}", r.at, r.name))?;
            let got = [got[0].1 as i64, got[1].1 as i64];
            if got != want {
                wrong.push(format!(
                    "(t {t}, v {v}): CuTe {want:?} (index {idx}), warpforge {got:?}"
                ));
            }
        }
    }
    if wrong.is_empty() {
        Ok((l, n))
    } else {
        Err(format!(
            "{}: {} ({}): {} of {n} (thread, value) pairs wrong, e.g.\n  {}",
            r.at,
            r.name,
            r.text,
            wrong.len(),
            wrong[..wrong.len().min(8)].join("\n  ")
        ))
    }
}

/// How a PTX fragment's or Triton encoding's layout relates to CuTe's.
#[derive(Clone, Copy, Debug)]
enum Rel {
    /// The same bases in the same order.
    Same,
    /// The same lane bases; register and warp bases permuted:
    /// `other.register[i] == cute.register[reg[i]]`, likewise for warps
    /// (an empty list: not permuted).
    Perm {
        reg: &'static [usize],
        warp: &'static [usize],
    },
}

/// One layout that names the same registers as a CuTe record.
struct Equiv {
    text: String,
    rel: Rel,
}

/// What the record is, warpforge's way: the tile shape of the operand as
/// PTX and Triton have it (B as K x N) and the layouts that must equal it.
struct Expect {
    shape: String,
    warps: u32,
    others: Vec<Equiv>,
}

fn m2(w: [u32; 2]) -> String {
    format!(
        "#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [{}, {}], instrShape = [16, 8]}}>",
        w[0], w[1]
    )
}

fn m3(w: [u32; 2], n: u32) -> String {
    format!(
        "#ttg.nvidia_mma<{{versionMajor = 3, versionMinor = 0, warpsPerCTA = [{}, {}], instrShape = [16, {n}, 16]}}>",
        w[0], w[1]
    )
}

fn dot(op: u32, parent: &str, k_width: u32) -> String {
    format!("#ttg.dot_op<{{opIdx = {op}, parent = {parent}, kWidth = {k_width}}}>")
}

fn same(text: impl Into<String>) -> Equiv {
    Equiv {
        text: text.into(),
        rel: Rel::Same,
    }
}

/// Triton's `nvidia_mma` numbers warps N first (`warpsPerCTA` order
/// [1, 0]), a CuTe TiledMMA's `Layout<Shape<_2,_2,_1>>` (column-major) M
/// first: with 2x2 warps, Triton's warp bit 0 is CuTe's warp bit 1 and back.
/// That is the only difference: the registers (atom values, then
/// repetitions M first then N) are numbered alike wherever the repetitions
/// run along one axis only, as in every record here.
const WARPS_N_FIRST: Rel = Rel::Perm {
    reg: &[],
    warp: &[1, 0],
};

/// As [`WARPS_N_FIRST`], and where a warp repeats the atom along M and N
/// both (here 2x2 times: register bits 2, 3), Triton's `nvidia_mma`
/// numbers those repetitions N first (its tile order [1, 0]), a TiledMMA's
/// fragment `(FrgV, (RestM, RestN))` M first. Neither is the PTX ISA's
/// business (its figures end at one atom's registers); warpforge's `ptx:`
/// fragments follow CuTe. The values are the same elements, held in
/// registers numbered otherwise: exactly a register permutation.
const REPS_N_FIRST: Rel = Rel::Perm {
    reg: &[0, 1, 3, 2],
    warp: &[1, 0],
};

/// The layouts that warpforge has for the registers of record `name`, or
/// `None` for a layout with no PTX or Triton counterpart (listed in
/// [`CUTE_ONLY`]).
fn expect(name: &str) -> Option<Expect> {
    let e = |shape: &str, warps: u32, others: Vec<Equiv>| {
        Some(Expect {
            shape: shape.into(),
            warps,
            others,
        })
    };
    let one = m2([1, 1]);
    match name {
        // mma.sync m16n8k16, f16/bf16 operands
        "SM80_16x8x16_F32F16F16F32_TN.A" | "SM80_16x8x16_F16F16F16F16_TN.A" => e(
            "16x16",
            1,
            vec![same("ptx:mma.m16n8k16.a.f16"), same(dot(0, &one, 2))],
        ),
        "SM80_16x8x16_F32BF16BF16F32_TN.A" => e(
            "16x16",
            1,
            vec![same("ptx:mma.m16n8k16.a.bf16"), same(dot(0, &one, 2))],
        ),
        "SM80_16x8x16_F32F16F16F32_TN.B" | "SM80_16x8x16_F16F16F16F16_TN.B" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k16.b.f16"), same(dot(1, &one, 2))],
        ),
        "SM80_16x8x16_F32BF16BF16F32_TN.B" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k16.b.bf16"), same(dot(1, &one, 2))],
        ),
        "SM80_16x8x16_F32F16F16F32_TN.C" | "SM80_16x8x16_F32BF16BF16F32_TN.C" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k16.c.f32"), same(one.clone())],
        ),
        "SM80_16x8x16_F16F16F16F16_TN.C" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k16.c.f16"), same(one.clone())],
        ),
        // the hand-written fixture: the same C fragment
        "fixture.SM80_16x8x16.C" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k16.c.f32"), same(one.clone())],
        ),
        // mma.sync m16n8k32, 8-bit operands
        "SM80_16x8x32_S32S8S8S32_TN.A" => e(
            "16x32",
            1,
            vec![same("ptx:mma.m16n8k32.a.s8"), same(dot(0, &one, 4))],
        ),
        "SM80_16x8x32_S32S8S8S32_TN.B" => e(
            "32x8",
            1,
            vec![same("ptx:mma.m16n8k32.b.s8"), same(dot(1, &one, 4))],
        ),
        "SM80_16x8x32_S32S8S8S32_TN.C" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k32.c.s32"), same(one.clone())],
        ),
        // mma.sync m16n8k8, tf32 operands
        "SM80_16x8x8_F32TF32TF32F32_TN.A" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k8.a.tf32"), same(dot(0, &one, 1))],
        ),
        "SM80_16x8x8_F32TF32TF32F32_TN.B" => e(
            "8x8",
            1,
            vec![same("ptx:mma.m16n8k8.b.tf32"), same(dot(1, &one, 1))],
        ),
        "SM80_16x8x8_F32TF32TF32F32_TN.C" => e(
            "16x8",
            1,
            vec![same("ptx:mma.m16n8k8.c.f32"), same(one.clone())],
        ),
        // wgmma accumulators, one warpgroup
        "SM90_64x64x16_F32F16F16_SS.C" => e(
            "64x64",
            4,
            vec![same("ptx:wgmma.m64n64k16.c.f32"), same(m3([4, 1], 64))],
        ),
        "SM90_64x128x16_F32F16F16_SS.C" => e(
            "64x128",
            4,
            vec![same("ptx:wgmma.m64n128k16.c.f32"), same(m3([4, 1], 128))],
        ),
        "SM90_64x256x16_F32F16F16_SS.C" => e(
            "64x256",
            4,
            vec![same("ptx:wgmma.m64n256k16.c.f32"), same(m3([4, 1], 256))],
        ),
        // wgmma's register A: per warp the m16n8k16 A fragment, warps along M
        // (the PTX ISA's wgmma "Register Fragments", matrix A), so warpforge's
        // m16n8k16 A fragment over 4 warps along M, and Triton's dot_op of an
        // mma v3 parent
        "SM90_64x64x16_F32F16F16_RS.A" => e(
            "64x16",
            4,
            vec![
                same("ptx:mma.m16n8k16.a.f16"),
                same(dot(0, &m3([4, 1], 64), 2)),
            ],
        ),
        "tiled.SM90_64x64x16_F32F16F16_RS.2x1x1.A" => e(
            "128x16",
            8,
            vec![
                same("ptx:mma.m16n8k16.a.f16"),
                same(dot(0, &m3([8, 1], 64), 2)),
            ],
        ),
        "tiled.SM90_64x64x16_F32F16F16_RS.2x1x1.C" => e(
            "128x64",
            8,
            vec![same("ptx:wgmma.m64n64k16.c.f32@2x1"), same(m3([8, 1], 64))],
        ),
        // TiledMMAs of the m16n8k16 atom over 2x2 warps; the N permutation
        // of `32xP32x16` leaves A alone
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.A"
        | "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32x32x16.A"
        | "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32xP32x16.A" => e(
            "32x16",
            4,
            vec![
                same("ptx:mma.m16n8k16.a.f16@2x2"),
                Equiv {
                    text: dot(0, &m2([2, 2]), 2),
                    rel: WARPS_N_FIRST,
                },
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.B" => e(
            "16x16",
            4,
            vec![
                same("ptx:mma.m16n8k16.b.f16@2x2"),
                Equiv {
                    text: dot(1, &m2([2, 2]), 2),
                    rel: WARPS_N_FIRST,
                },
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.C" => e(
            "32x16",
            4,
            vec![
                same("ptx:mma.m16n8k16.c.f32@2x2"),
                Equiv {
                    text: m2([2, 2]),
                    rel: WARPS_N_FIRST,
                },
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32x32x16.B" => e(
            "16x32",
            4,
            vec![
                same("ptx:mma.m16n8k16.b.f16@2x2"),
                Equiv {
                    text: dot(1, &m2([2, 2]), 2),
                    rel: WARPS_N_FIRST,
                },
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32x32x16.C" => e(
            "32x32",
            4,
            vec![
                same("ptx:mma.m16n8k16.c.f32@2x2"),
                Equiv {
                    text: m2([2, 2]),
                    rel: WARPS_N_FIRST,
                },
            ],
        ),
        // repetitions along M and N
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.64x32x16.A" => e(
            "64x16",
            4,
            vec![
                same("ptx:mma.m16n8k16.a.f16@2x2"),
                Equiv {
                    text: dot(0, &m2([2, 2]), 2),
                    rel: WARPS_N_FIRST,
                },
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.64x32x16.B" => e(
            "16x32",
            4,
            vec![
                same("ptx:mma.m16n8k16.b.f16@2x2"),
                Equiv {
                    text: dot(1, &m2([2, 2]), 2),
                    rel: WARPS_N_FIRST,
                },
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.64x32x16.C" => e(
            "64x32",
            4,
            vec![
                same("ptx:mma.m16n8k16.c.f32@2x2"),
                Equiv {
                    text: m2([2, 2]),
                    rel: REPS_N_FIRST,
                },
            ],
        ),
        // over 4x1 warps: Triton's warp order does not matter
        "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.A"
        | "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.64x32x16.A" => e(
            "64x16",
            4,
            vec![
                same("ptx:mma.m16n8k16.a.f16@4x1"),
                same(dot(0, &m2([4, 1]), 2)),
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.B" => e(
            "16x8",
            4,
            vec![
                same("ptx:mma.m16n8k16.b.f16@4x1"),
                same(dot(1, &m2([4, 1]), 2)),
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.C" => e(
            "64x8",
            4,
            vec![same("ptx:mma.m16n8k16.c.f32@4x1"), same(m2([4, 1]))],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.64x32x16.B" => e(
            "16x32",
            4,
            vec![
                same("ptx:mma.m16n8k16.b.f16@4x1"),
                same(dot(1, &m2([4, 1]), 2)),
            ],
        ),
        "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.64x32x16.C" => e(
            "64x32",
            4,
            vec![same("ptx:mma.m16n8k16.c.f32@4x1"), same(m2([4, 1]))],
        ),
        _ => None,
    }
}

/// Records with no PTX fragment or Triton encoding of the same registers:
/// checked against CuTe's evaluation only.
const CUTE_ONLY: &[&str] = &[
    // a TiledMMA whose N is permuted (`Tile<_32, Layout<Shape<_2,_4,_4>,
    // Stride<_1,_8,_2>>, _16>`): no named fragment or Triton encoding
    // permutes the tile's columns
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32xP32x16.B",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32xP32x16.C",
];

/// `(register, lane, warp)` bases of `l`, as `(row, column)` of the
/// operand as PTX and Triton have it (a CuTe B, over (N,K), transposed).
fn bases(l: &LinearLayout, transpose: bool) -> [Vec<[i32; 2]>; 3] {
    let get = |d: &str| {
        l.bases(d)
            .iter()
            .map(|b| {
                if transpose {
                    [b[1], b[0]]
                } else {
                    [b[0], b[1]]
                }
            })
            .collect()
    };
    [get("register"), get("lane"), get("warp")]
}

/// `p` with `other[i] == cute[p[i]]`, if there is one.
fn permutation(cute: &[[i32; 2]], other: &[[i32; 2]]) -> Option<Vec<usize>> {
    if cute.len() != other.len() {
        return None;
    }
    let mut used = vec![false; cute.len()];
    other
        .iter()
        .map(|o| {
            let j = (0..cute.len()).find(|&j| !used[j] && cute[j] == *o)?;
            used[j] = true;
            Some(j)
        })
        .collect()
}

/// Check (b): each layout of `x` is CuTe's, as its `Rel` says.
fn check_equiv(r: &Record, cute: &LinearLayout, x: &Expect) -> Result<usize, String> {
    let (rows, cols) = if r.operand == 'B' {
        (r.cols, r.rows)
    } else {
        (r.rows, r.cols)
    };
    if x.shape != format!("{rows}x{cols}") {
        return Err(format!(
            "{}: {}: the table says {}, CuTe's tile is {rows}x{cols} (as rows x columns of the operand)",
            r.at, r.name, x.shape
        ));
    }
    let c = bases(cute, r.operand == 'B');
    for o in &x.others {
        let (_, l) = read(&o.text, &x.shape, x.warps).map_err(|e| format!("{}: {e}", r.name))?;
        let b = bases(&l, false);
        let what = |k: usize| ["register", "lane", "warp"][k];
        let mismatch = |k: usize| {
            format!(
                "{}: {} ({}) vs {} over {}: {} bases differ:\n  CuTe   {:?}\n  other  {:?}\n  (other[i] = CuTe[p[i]] for p = {:?})",
                r.at,
                r.name,
                r.text,
                o.text,
                x.shape,
                what(k),
                c[k],
                b[k],
                permutation(&c[k], &b[k])
            )
        };
        match o.rel {
            Rel::Same => {
                for k in 0..3 {
                    if c[k] != b[k] {
                        return Err(mismatch(k));
                    }
                }
            }
            Rel::Perm { reg, warp } => {
                if c[1] != b[1] {
                    return Err(mismatch(1));
                }
                for (k, p) in [(0, reg), (2, warp)] {
                    // an empty permutation: the identity
                    let p: Vec<usize> = if p.is_empty() {
                        (0..c[k].len()).collect()
                    } else {
                        p.to_vec()
                    };
                    let permuted: Option<Vec<[i32; 2]>> =
                        p.iter().map(|&j| c[k].get(j).copied()).collect();
                    if p.len() != c[k].len() || permuted.as_deref() != Some(&b[k][..]) {
                        return Err(mismatch(k));
                    }
                }
                // a documented permutation that is the identity belongs in `Same`
                if c == b {
                    return Err(format!(
                        "{}: {} vs {}: equal, but the table documents a permutation",
                        r.at, r.name, o.text
                    ));
                }
            }
        }
    }
    Ok(x.others.len())
}

/// What one run of the checks covered.
#[derive(Default, Debug)]
struct Stats {
    files: usize,
    layouts: usize,
    pairs: usize,
    equivalences: usize,
    seen: BTreeSet<String>,
}

/// Check every record of one file; errors are all the failures found.
fn check_file(file: &str, body: &str, st: &mut Stats) -> Result<(), Vec<String>> {
    let (header, recs) = parse(file, body).map_err(|e| vec![e])?;
    let is_cutlass = Path::new(file)
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("cutlass_"));
    let mut errs = Vec::new();
    if is_cutlass && !header.starts_with("cute_truth cutlass ") {
        errs.push(format!(
            "{file}:1: `{header}`: expected `cute_truth cutlass MAJOR.MINOR.PATCH`"
        ));
    }
    if recs.is_empty() {
        errs.push(format!("{file}: no layouts"));
    }
    st.files += 1;
    for r in &recs {
        st.layouts += 1;
        st.seen.insert(r.name.clone());
        let l = match check_eval(r) {
            Ok((l, n)) => {
                st.pairs += n;
                l
            }
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        match expect(&r.name) {
            Some(x) => match check_equiv(r, &l, &x) {
                Ok(n) => st.equivalences += n,
                Err(e) => errs.push(e),
            },
            None if CUTE_ONLY.contains(&r.name.as_str()) => {}
            None => errs.push(format!(
                "{}: `{}` is neither in expect()'s table nor in CUTE_ONLY: say which layouts name its registers",
                r.at, r.name
            )),
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/cute_truth")
}

fn fixture() -> (String, String) {
    let p = data_dir().join("fixture_sm80_16x8x16_c.txt");
    let body = std::fs::read_to_string(&p).expect("the fixture is committed");
    (p.display().to_string(), body)
}

#[test]
fn cute_layouts_map_every_thread_and_value_where_cutlass_does() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir())
        .expect("tests/data/cute_truth exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.txt in tests/data/cute_truth");
    let mut st = Stats::default();
    let mut errs = Vec::new();
    let mut cutlass = false;
    for p in &files {
        let name = p.display().to_string();
        cutlass |= p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("cutlass_"));
        let body = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(e) = check_file(&name, &body, &mut st) {
            errs.extend(e);
        }
    }
    // CUTLASS's output must still hold every layout the table names (a
    // regenerated file that lost one would check less without saying so)
    if cutlass {
        let missing: Vec<&str> = TABLE_NAMES
            .iter()
            .chain(CUTE_ONLY)
            .copied()
            .filter(|n| !st.seen.contains(*n))
            .collect();
        if !missing.is_empty() {
            errs.push(format!("not in any CUTLASS output file: {missing:?}"));
        }
    }
    assert!(errs.is_empty(), "{}", errs.join("\n"));
    assert!(st.pairs > 0);
    let _ = writeln!(
        std::io::stderr(),
        "CUTE-TRUTH checked {} layouts, {} (thread, value) pairs against CuTe's evaluation and {} PTX/Triton equivalences, from {} file(s){}",
        st.layouts,
        st.pairs,
        st.equivalences,
        st.files,
        if cutlass {
            ""
        } else {
            " (the hand-written fixture only: no CUTLASS output yet, see tools/cute_truth/README.md)"
        }
    );
}

/// Every record name `expect` knows (besides the fixture's), so that a
/// CUTLASS output file missing one of them fails.
const TABLE_NAMES: &[&str] = &[
    "SM80_16x8x16_F32F16F16F32_TN.A",
    "SM80_16x8x16_F32F16F16F32_TN.B",
    "SM80_16x8x16_F32F16F16F32_TN.C",
    "SM80_16x8x16_F16F16F16F16_TN.A",
    "SM80_16x8x16_F16F16F16F16_TN.B",
    "SM80_16x8x16_F16F16F16F16_TN.C",
    "SM80_16x8x16_F32BF16BF16F32_TN.A",
    "SM80_16x8x16_F32BF16BF16F32_TN.B",
    "SM80_16x8x16_F32BF16BF16F32_TN.C",
    "SM80_16x8x32_S32S8S8S32_TN.A",
    "SM80_16x8x32_S32S8S8S32_TN.B",
    "SM80_16x8x32_S32S8S8S32_TN.C",
    "SM80_16x8x8_F32TF32TF32F32_TN.A",
    "SM80_16x8x8_F32TF32TF32F32_TN.B",
    "SM80_16x8x8_F32TF32TF32F32_TN.C",
    "SM90_64x64x16_F32F16F16_SS.C",
    "SM90_64x128x16_F32F16F16_SS.C",
    "SM90_64x256x16_F32F16F16_SS.C",
    "SM90_64x64x16_F32F16F16_RS.A",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.A",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.B",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.C",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.A",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.B",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.C",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32x32x16.A",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32x32x16.B",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32x32x16.C",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.64x32x16.A",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.64x32x16.B",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.64x32x16.C",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.64x32x16.A",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.64x32x16.B",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.4x1x1.64x32x16.C",
    "tiled.SM80_16x8x16_F32F16F16F32_TN.2x2x1.32xP32x16.A",
    "tiled.SM90_64x64x16_F32F16F16_RS.2x1x1.A",
    "tiled.SM90_64x64x16_F32F16F16_RS.2x1x1.C",
];

#[test]
fn every_table_name_has_an_expectation() {
    for n in TABLE_NAMES {
        assert!(expect(n).is_some(), "{n}");
        assert!(!CUTE_ONLY.contains(n), "{n}");
    }
    for n in CUTE_ONLY {
        assert!(expect(n).is_none(), "{n}");
    }
}

/// The checker itself: one wrong index in CuTe's evaluation, a wrong
/// layout text, or a lost eval line must each fail.
#[test]
fn a_corrupted_truth_file_fails_the_check() {
    let (file, body) = fixture();
    let mut st = Stats::default();
    check_file(&file, &body, &mut st).expect("the fixture passes");
    assert_eq!((st.layouts, st.pairs, st.equivalences), (1, 128, 2));
    // thread 5, value 2: (row 9, col 2) = index 41; say (row 10, col 2)
    let bad = body.replace(
        "eval fixture.SM80_16x8x16.C 5 33 49 41 57",
        "eval fixture.SM80_16x8x16.C 5 33 49 42 57",
    );
    assert_ne!(bad, body, "the fixture's thread 5 line");
    let e = check_file(&file, &bad, &mut Stats::default())
        .expect_err("a wrong index fails")
        .join("\n");
    assert!(
        e.contains("1 of 128 (thread, value) pairs wrong")
            && e.contains("(t 5, v 2): CuTe [10, 2] (index 42), warpforge [9, 2]"),
        "{e}"
    );
    // the value modes' strides swapped: every value 1 and 2 moves
    let bad = body.replace(
        "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
        "((_4,_8),(_2,_2)):((_32,_1),(_8,_16))",
    );
    let e = check_file(&file, &bad, &mut Stats::default())
        .expect_err("a wrong text fails")
        .join("\n");
    assert!(e.contains("64 of 128 (thread, value) pairs wrong"), "{e}");
    // a lost eval line
    let bad = body.replace("eval fixture.SM80_16x8x16.C 31 ", "# ");
    let e = check_file(&file, &bad, &mut Stats::default())
        .expect_err("a lost line fails")
        .join("\n");
    assert!(e.contains("has 31 eval lines for 32 threads"), "{e}");
}
