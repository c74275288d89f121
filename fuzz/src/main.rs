//! `wf-fuzz [EXECUTIONS] [SEED]`: a structured fuzzer for warpforge's
//! parsers on the stable toolchain (cargo-fuzz needs nightly).
//!
//! Targets (`wf_fuzz::Target`): TTGIR files, attributes, shapes, and the
//! layout input formats (`LinearLayout::toString` text, JSON bases, Gluon
//! constructors, and any of them through format detection). Inputs come
//! from three sources: texts generated from random bytes through
//! `arbitrary` (well-formed enough to reach the encodings' checks: random
//! bases, nested constructors, keyword/positional mixes, huge numbers, deep
//! nesting, junk tokens, cuts that unbalance brackets), byte/token
//! mutations of seeds (the corpus's files and attributes, every corpus
//! layout rendered in every input format, `fuzz/seeds/`, the kept crashes)
//! and of inputs that got far (built a layout). Each runs under
//! `catch_unwind`; a panic is a crash, saved as
//! `fuzz/crashes/<target>-<hash>.txt` (the regression tests replay every
//! file there). Inputs slower than a second, twice, are saved as
//! `slow-...` and counted. Prints the counts every million executions and
//! at the end; exits 1 when anything crashed.

use arbitrary::{Arbitrary, Unstructured};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;
use synth::encoding::{CtaLayout, Encoding};
use synth::input::ttgir_text;
use wf_fuzz::{exec, gluon_with, layout_seeds, Target};

/// xorshift64*: a small, seeded generator (runs are reproducible per seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// A dimension-like number: mostly small powers of two, sometimes anything.
#[derive(Arbitrary, Debug)]
struct Num(u8, bool, i64);

impl Num {
    fn text(&self) -> String {
        if self.1 && self.0 > 240 {
            self.2.to_string()
        } else {
            (1i64 << (self.0 % 9)).to_string()
        }
    }
}

fn list(v: &[Num]) -> String {
    let parts: Vec<String> = v.iter().take(5).map(|n| n.text()).collect();
    format!("[{}]", parts.join(", "))
}

fn bases(v: &[Vec<i16>]) -> String {
    let parts: Vec<String> = v
        .iter()
        .take(8)
        .map(|b| {
            let e: Vec<String> = b.iter().take(4).map(|x| x.to_string()).collect();
            format!("[{}]", e.join(", "))
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A layout attribute, rendered as TTGIR prints it.
#[derive(Arbitrary, Debug)]
enum Attr {
    Blocked {
        spt: Vec<Num>,
        tpw: Vec<Num>,
        wpc: Vec<Num>,
        order: Vec<u8>,
        cta: Option<(Vec<Num>, Vec<Num>, Vec<u8>)>,
    },
    Linear {
        reg: Vec<Vec<i16>>,
        lane: Vec<Vec<i16>>,
        warp: Vec<Vec<i16>>,
        block: Option<Vec<Vec<i16>>>,
    },
    Slice {
        dim: u8,
        parent: Box<Attr>,
    },
    Mma {
        major: u8,
        minor: u8,
        wpc: Vec<Num>,
        instr: Vec<Num>,
    },
    Dot {
        op: u8,
        parent: Box<Attr>,
        kw: Option<Num>,
    },
    Alias(u8),
    Junk(String),
}

impl Attr {
    fn text(&self, depth: usize) -> String {
        if depth > 6 {
            return "#a0".into();
        }
        let ord = |o: &[u8]| {
            let p: Vec<String> = o.iter().take(5).map(|x| (x % 5).to_string()).collect();
            format!("[{}]", p.join(", "))
        };
        match self {
            Attr::Blocked {
                spt,
                tpw,
                wpc,
                order,
                cta,
            } => {
                let mut s = format!(
                    "#ttg.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}",
                    list(spt),
                    list(tpw),
                    list(wpc),
                    ord(order)
                );
                if let Some((a, b, c)) = cta {
                    s += &format!(
                        ", CTAsPerCGA = {}, CTASplitNum = {}, CTAOrder = {}",
                        list(a),
                        list(b),
                        ord(c)
                    );
                }
                s + "}>"
            }
            Attr::Linear {
                reg,
                lane,
                warp,
                block,
            } => {
                let mut s = format!(
                    "#ttg.linear<{{register = {}, lane = {}, warp = {}",
                    bases(reg),
                    bases(lane),
                    bases(warp)
                );
                if let Some(b) = block {
                    s += &format!(", block = {}", bases(b));
                }
                s + "}>"
            }
            Attr::Slice { dim, parent } => format!(
                "#ttg.slice<{{dim = {}, parent = {}}}>",
                dim % 4,
                parent.text(depth + 1)
            ),
            Attr::Mma {
                major,
                minor,
                wpc,
                instr,
            } => format!(
                "#ttg.nvidia_mma<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}, instrShape = {}}}>",
                major % 5,
                minor % 2,
                list(wpc),
                list(instr)
            ),
            Attr::Dot { op, parent, kw } => {
                let mut s = format!(
                    "#ttg.dot_op<{{opIdx = {}, parent = {}",
                    op % 3,
                    parent.text(depth + 1)
                );
                if let Some(k) = kw {
                    s += &format!(", kWidth = {}", k.text());
                }
                s + "}>"
            }
            Attr::Alias(i) => format!("#a{}", i % 4),
            Attr::Junk(j) => j.chars().take(40).collect(),
        }
    }
}

/// A TTGIR file: aliases, a module with some warps, converts.
#[derive(Arbitrary, Debug)]
struct File {
    aliases: Vec<Attr>,
    warps: Num,
    ctas: Option<u8>,
    ops: Vec<(Vec<Num>, u8, Attr, Attr, bool)>,
}

const ELEMS: [&str; 8] = ["f16", "bf16", "f32", "i8", "i32", "i64", "f8E4M3FN", "q7"];

impl File {
    fn text(&self) -> String {
        let mut s = String::new();
        for (i, a) in self.aliases.iter().take(4).enumerate() {
            s += &format!("#a{i} = {}\n", a.text(1));
        }
        s += &format!(
            "module attributes {{\"ttg.num-ctas\" = {} : i32, \"ttg.num-warps\" = {} : i32, \"ttg.threads-per-warp\" = 32 : i32}} {{\n  tt.func public @f() {{\n",
            self.ctas.map(|c| 1 << (c % 3)).unwrap_or(1),
            self.warps.text()
        );
        for (i, (shape, e, a, b, lo)) in self.ops.iter().take(4).enumerate() {
            let dims: Vec<String> = shape.iter().take(3).map(|n| n.text()).collect();
            let t = format!("{}x{}", dims.join("x"), ELEMS[*e as usize % ELEMS.len()]);
            s += &format!(
                "    %{i} = ttg.convert_layout %x : tensor<{t}, {}> -> tensor<{t}, {}>{}\n",
                a.text(0),
                b.text(0),
                if *lo { " loc(#loc)" } else { "" }
            );
        }
        s + "    tt.return\n  }\n}\n"
    }
}

// ---------------------------------------------------------------------------
// Valid layouts by construction (most random parameters fail the encodings'
// first check; these get past it and reach the rest), then corrupted.

/// Split `bits` (a power of two's log2) over `rank` dims: per-dim powers of
/// two multiplying to `2^bits`.
fn split(bits: u32, rank: usize, drive: &[u8]) -> Vec<u32> {
    let mut v = vec![0u32; rank.max(1)];
    for i in 0..bits as usize {
        let d = drive.get(i).copied().unwrap_or(i as u8) as usize % v.len();
        v[d] += 1;
    }
    v.into_iter().map(|b| 1u32 << b).collect()
}

/// A permutation of `0..n` driven by `drive` (Fisher-Yates).
fn permutation(n: usize, drive: &[u8]) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = drive.get(i).copied().unwrap_or(0) as usize % (i + 1);
        p.swap(i, j);
    }
    p
}

/// The shapes the targets try for layouts that carry none (as in lib.rs).
const FALLBACK: [&[i64]; 4] = [&[16, 16], &[128, 64], &[64], &[2, 32, 8]];

/// Linear-layout bases that are a valid distributed layout: every out bit
/// reached once (then combined by XORs, which keep the span), 5 lane bases,
/// `warps` warp bases, broadcast zeros here and there.
#[derive(Arbitrary, Debug)]
struct LinGen {
    log2s: Vec<u8>,
    /// use one of the fallback shapes (for texts that carry no shape)
    fallback: Option<u8>,
    warps: u8,
    perm: Vec<u8>,
    zeros: Vec<u8>,
    xors: Vec<(u8, u8)>,
}

impl LinGen {
    fn shape(&self) -> Vec<i64> {
        if let Some(f) = self.fallback {
            return FALLBACK[f as usize % FALLBACK.len()].to_vec();
        }
        let mut total = 0;
        let mut v: Vec<i64> = self
            .log2s
            .iter()
            .take(3)
            .map(|&b| {
                let b = (b % 8).min(20 - total);
                total += b;
                1i64 << b
            })
            .collect();
        if v.is_empty() {
            v.push(32);
        }
        v
    }
    /// (shape, [register, lane, warp, block] bases)
    fn bases(&self) -> (Vec<i64>, [Vec<Vec<i32>>; 4]) {
        let shape = self.shape();
        let rank = shape.len();
        let mut bits: Vec<Vec<i32>> = Vec::new();
        for (d, &s) in shape.iter().enumerate() {
            for k in 0..s.trailing_zeros() {
                let mut b = vec![0; rank];
                b[d] = 1 << k;
                bits.push(b);
            }
        }
        let p = permutation(bits.len(), &self.perm);
        let mut bits: Vec<Vec<i32>> = p.iter().map(|&i| bits[i as usize].clone()).collect();
        for (i, j) in self.xors.iter().take(4) {
            let n = bits.len();
            if n > 1 {
                let (i, j) = (*i as usize % n, *j as usize % n);
                if i != j {
                    let add = bits[j].clone();
                    for (x, y) in bits[i].iter_mut().zip(add) {
                        *x ^= y;
                    }
                }
            }
        }
        let warps = self.warps as usize % 4;
        let zero = vec![0; rank];
        let mut it = bits.into_iter();
        let lane: Vec<Vec<i32>> = (0..5).map(|_| it.next().unwrap_or(zero.clone())).collect();
        let warp: Vec<Vec<i32>> = (0..warps)
            .map(|_| it.next().unwrap_or(zero.clone()))
            .collect();
        let mut reg: Vec<Vec<i32>> = it.collect();
        for z in self.zeros.iter().take(2) {
            let at = *z as usize % (reg.len() + 1);
            reg.insert(at, zero.clone());
        }
        (shape, [reg, lane, warp, vec![]])
    }
    fn encoding(&self) -> Encoding {
        let (_, [register, lane, warp, block]) = self.bases();
        Encoding::Linear {
            register,
            lane,
            warp,
            block,
        }
    }
}

/// A distributed encoding with parameters that pass its checks (for a
/// fallback shape of the right rank and `2^warps` warps), now and then one
/// of them off.
#[derive(Arbitrary, Debug)]
struct EncGen {
    kind: u8,
    rank: u8,
    warps: u8,
    drive: [u8; 8],
    spt: [u8; 3],
    k: u8,
    cta: bool,
    lin: LinGen,
    /// one time in four, set field `.1` to `.2` (mostly small)
    off: (u8, u8, u32),
}

impl EncGen {
    fn blocked(&self, rank: usize) -> Encoding {
        let w = self.warps as u32 % 4;
        Encoding::Blocked {
            size_per_thread: (0..rank).map(|i| 1 << (self.spt[i % 3] % 3)).collect(),
            threads_per_warp: split(5, rank, &self.drive),
            warps_per_cta: split(w, rank, &self.drive[3..]),
            order: permutation(rank, &self.drive[1..]),
            cta: self.cta.then(|| CtaLayout {
                ctas_per_cga: vec![1; rank],
                cta_split_num: vec![1; rank],
                cta_order: permutation(rank, &self.drive[2..]),
                cga_bases: None,
            }),
        }
    }
    fn mma(&self, v3: bool) -> Encoding {
        let w = self.warps as u32 % 4;
        Encoding::NvidiaMma {
            version_major: if v3 { 3 } else { 2 },
            version_minor: 0,
            warps_per_cta: split(w, 2, &self.drive[2..]),
            instr_shape: if v3 {
                vec![16, 8 << (self.k % 6), 16]
            } else {
                vec![16, 8]
            },
            cta: self.cta.then(|| CtaLayout {
                ctas_per_cga: vec![1, 1],
                cta_split_num: vec![1, 1],
                cta_order: vec![1, 0],
                cga_bases: None,
            }),
        }
    }
    fn encoding(&self) -> Encoding {
        let rank = 1 + self.rank as usize % 3;
        let mut e = match self.kind % 6 {
            0 => self.blocked(rank),
            1 => self.mma(self.k % 2 == 1),
            2 => {
                let v3 = self.k.is_multiple_of(3);
                Encoding::DotOperand {
                    op_idx: if v3 { 0 } else { self.k as u32 / 3 % 2 },
                    parent: Box::new(self.mma(v3)),
                    k_width: 1 << (self.k / 8 % 4),
                }
            }
            3 => {
                let r = rank.min(2);
                Encoding::Slice {
                    dim: self.drive[7] as u32 % (r as u32 + 1),
                    parent: Box::new(self.blocked(r + 1)),
                }
            }
            4 => Encoding::Slice {
                dim: self.drive[7] as u32 % 2,
                parent: Box::new(self.mma(false)),
            },
            _ => self.lin.encoding(),
        };
        let (when, field, v) = self.off;
        if when % 4 == 0 {
            set_field(&mut e, field, if when & 4 == 0 { v % 9 } else { v });
        }
        e
    }
}

/// Set one numeric field of `e` (chosen by `field`) to `v`.
fn set_field(e: &mut Encoding, field: u8, v: u32) {
    let one = |x: &mut Vec<u32>| {
        if x.is_empty() {
            x.push(v);
        } else {
            let i = field as usize / 8 % x.len();
            x[i] = v;
        }
    };
    match e {
        Encoding::Blocked {
            size_per_thread,
            threads_per_warp,
            warps_per_cta,
            order,
            cta,
        } => match field % 6 {
            0 => one(size_per_thread),
            1 => one(threads_per_warp),
            2 => one(warps_per_cta),
            3 => one(order),
            4 => order.push(v),
            _ => {
                if let Some(c) = cta {
                    one(&mut c.cta_order)
                }
            }
        },
        Encoding::NvidiaMma {
            version_major,
            warps_per_cta,
            instr_shape,
            cta,
            ..
        } => match field % 5 {
            0 => *version_major = v,
            1 => one(warps_per_cta),
            2 => one(instr_shape),
            3 => instr_shape.push(v),
            _ => {
                if let Some(c) = cta {
                    one(&mut c.cta_split_num)
                }
            }
        },
        Encoding::DotOperand {
            op_idx,
            parent,
            k_width,
        } => match field % 3 {
            0 => *op_idx = v,
            1 => *k_width = v,
            _ => set_field(parent, field / 3, v),
        },
        Encoding::Slice { dim, parent } => match field % 2 {
            0 => *dim = v,
            _ => set_field(parent, field / 2, v),
        },
        Encoding::AmdMfma {
            version,
            warps_per_cta,
            instr_shape,
            ..
        }
        | Encoding::AmdWmma {
            version,
            warps_per_cta,
            instr_shape,
            ..
        } => match field % 3 {
            0 => *version = v,
            1 => one(warps_per_cta),
            _ => one(instr_shape),
        },
        // a PTX fragment: change its warps
        Encoding::PtxFragment { warps, .. } => warps[field as usize % 2] = v,
        // a CuTe layout: break one bit's image (a stride out of the tile)
        Encoding::CuteTv { thread, value, .. } => {
            let all = if field % 2 == 0 { thread } else { value };
            if !all.is_empty() {
                let i = field as usize / 2 % all.len();
                all[i] = (v as u64) << 20;
            }
        }
        Encoding::Linear {
            register,
            lane,
            warp,
            block,
        } => {
            let d = [register, lane, warp, block];
            let which = field as usize % 4;
            let b = &mut *d.into_iter().nth(which).expect("four dims");
            match b.first_mut() {
                Some(x) if !x.is_empty() => x[0] = v as i32,
                _ => b.push(vec![v as i32]),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The layout input formats (`synth::input`): toString, JSON bases, Gluon.

/// Numbers that stress integer parsing: limits, overflow, other syntaxes.
const HUGE: [&str; 14] = [
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "-1",
    "-0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "99999999999999999999",
    "1073741824",
    "1e3",
    "0x10",
    "1.0",
];

/// A basis entry: mostly a unit vector (or zero) inside its out dim,
/// sometimes anything.
#[derive(Arbitrary, Debug)]
struct Val(u8, i16);

impl Val {
    fn text(&self, size_log2: u32) -> String {
        match self.0 % 16 {
            0 => self.1.to_string(),
            1 => HUGE[self.1.unsigned_abs() as usize % HUGE.len()].to_string(),
            2 | 3 => "0".into(),
            _ if size_log2 == 0 => "0".into(),
            _ => (1i64 << (self.1.unsigned_abs() as u32 % size_log2.min(62))).to_string(),
        }
    }
}

/// A linear layout as bases per in dim and out-dim sizes: valid ones
/// (`LinGen`), written out as text with, now and then, a value, a size or
/// a basis's length off.
#[derive(Arbitrary, Debug)]
struct Bases {
    lin: LinGen,
    /// 0 (mod 8): apply `corrupt`; 1: `size_junk`; 2: `arity`; 3: `many`;
    /// else none
    what: u8,
    /// (in dim, basis, entry, value)
    corrupt: Vec<(u8, u8, u8, Val)>,
    size_junk: (u8, Num),
    /// drop or add an entry of one basis
    arity: u8,
    /// grow one in dim to many bases (30 to 70: past 64 bits)
    many: (u8, u8),
}

impl Bases {
    fn sizes(&self) -> Vec<String> {
        let mut v: Vec<String> = self.lin.shape().iter().map(|n| n.to_string()).collect();
        if self.what % 8 == 1 {
            let (i, n) = &self.size_junk;
            let i = *i as usize % (v.len() + 1);
            if i == v.len() {
                v.push(n.text());
            } else {
                v[i] = n.text();
            }
        }
        v
    }
    /// The values of each basis of in dim `d` as text.
    fn dim(&self, d: usize) -> Vec<Vec<String>> {
        let (shape, dims) = self.lin.bases();
        let mut out: Vec<Vec<String>> = dims[d]
            .iter()
            .map(|b| b.iter().map(|v| v.to_string()).collect())
            .collect();
        match self.what % 8 {
            0 => {
                for (dd, bi, ei, val) in self.corrupt.iter().take(3) {
                    if *dd as usize % 4 == d && !out.is_empty() {
                        let n = out.len();
                        let b = &mut out[*bi as usize % n];
                        if !b.is_empty() {
                            let i = *ei as usize % b.len();
                            let lg = shape.get(i).map_or(0, |s| s.trailing_zeros());
                            b[i] = val.text(lg);
                        }
                    }
                }
            }
            2 if self.arity as usize % 4 == d && !out.is_empty() => {
                let n = out.len();
                let b = &mut out[self.arity as usize / 4 % n];
                if self.arity >= 128 {
                    b.pop();
                } else {
                    b.push("0".into());
                }
            }
            3 if self.many.0 as usize % 4 == d => {
                let k = 30 + self.many.1 as usize % 41;
                let first = out
                    .first()
                    .cloned()
                    .unwrap_or_else(|| vec!["0".into(); shape.len()]);
                while out.len() < k {
                    out.push(first.clone());
                }
            }
            _ => {}
        }
        out
    }
}

fn bases_list(v: &[Vec<String>]) -> String {
    let p: Vec<String> = v.iter().map(|b| format!("[{}]", b.join(", "))).collect();
    format!("[{}]", p.join(", "))
}

const IN_DIMS: [&str; 4] = ["register", "lane", "warp", "block"];

/// `LinearLayout::toString` text of some bases.
#[derive(Arbitrary, Debug)]
struct ToStr {
    bases: Bases,
    /// under 128: none; else one fault (`% 16`) in names, labels, out dims
    fault: u8,
    /// spellings Triton's output does not use but that read the same:
    /// in dims reordered, a leading newline, other spacing
    style: u8,
    trailing: String,
}

impl ToStr {
    fn text(&self) -> String {
        let fault = if self.fault >= 128 {
            Some(self.fault % 16)
        } else {
            None
        };
        let mut order = [0usize, 1, 2, 3];
        match (self.style % 4, fault) {
            (_, Some(0)) => order[3] = 2, // a dim twice
            (1, _) => order.swap(0, 1),
            (2, _) => order.reverse(),
            _ => {}
        }
        let mut s = String::new();
        if self.style & 4 != 0 {
            s.push('\n');
        }
        for (k, &d) in order.iter().enumerate() {
            let name = match (fault, k) {
                (Some(1), 1) => "thread",
                (Some(2), 0) => "reg",
                (Some(3), 3) => "",
                _ => IN_DIMS[d],
            };
            let bases = self.bases.dim(d);
            if bases.is_empty() {
                s += &format!(" - {name} is a size 1 dimension\n");
                continue;
            }
            let lines: Vec<String> = bases
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let label = match (fault, i % 3) {
                        (Some(4), 1) => (1u64 << i.min(63)).wrapping_add(1).to_string(),
                        (Some(5), _) => HUGE[i % HUGE.len()].to_string(),
                        (Some(6), 0) => "0".into(),
                        (Some(7), _) => 1i64.checked_shl(i as u32).unwrap_or(0).to_string(),
                        _ => (1u128 << i.min(127)).to_string(),
                    };
                    let sep = if self.style & 8 != 0 { " ->(" } else { " -> (" };
                    format!("{name}={label}{sep}{})", b.join(", "))
                })
                .collect();
            let indent = if self.style & 16 != 0 { "\n" } else { "\n   " };
            s += &format!(" - {}\n", lines.join(indent));
        }
        let outs: Vec<String> = self
            .bases
            .sizes()
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let name = match (fault, i) {
                    (Some(8), 0) => "dim1".to_string(),
                    (Some(9), _) => format!("d{i}"),
                    (Some(10), 1) => String::new(),
                    _ => format!("dim{i}"),
                };
                match fault {
                    Some(11) => format!("{name}(size {n})"),
                    Some(12) => format!("{name} (size {n}"),
                    _ => format!("{name} (size {n})"),
                }
            })
            .collect();
        let join = if self.style & 32 != 0 { "," } else { ", " };
        s += &format!("where out dims are: [{}]", outs.join(join));
        match fault {
            Some(13) => {
                s.push('\n');
                s.extend(self.trailing.chars().take(20));
            }
            Some(14) => s = s.replace(" - ", "- "),
            Some(15) => s = s.replace(" -> (", " => ("),
            _ => {}
        }
        if self.style & 64 != 0 {
            s.push('\n');
        }
        s
    }
}

/// JSON bases.
#[derive(Arbitrary, Debug)]
struct JsonBases {
    bases: Bases,
    gluon_keys: bool,
    /// bit i set: leave key i out (bit 4: `shape`)
    omit: u8,
    /// 0..: how `shape` is written
    shape_form: u8,
    /// key order rotation, pretty printing, duplicates
    order: u8,
    pretty: bool,
    extra: Option<(u8, String)>,
    /// a value of the wrong type for key `.0`
    wrong: Option<(u8, u8)>,
}

impl JsonBases {
    fn text(&self) -> String {
        let keys = if self.gluon_keys {
            ["reg_bases", "lane_bases", "warp_bases", "block_bases"]
        } else {
            IN_DIMS
        };
        let omit = if self.omit.is_multiple_of(8) {
            self.omit >> 3
        } else {
            0
        };
        let mut parts: Vec<String> = Vec::new();
        for (d, k) in keys.iter().enumerate() {
            if omit >> d & 1 == 1 {
                continue;
            }
            let mut v = bases_list(&self.bases.dim(d));
            if let Some((w, kind)) = self.wrong {
                if w as usize % 24 == d {
                    v = [
                        "null", "7", "\"x\"", "{}", "[1, 2]", "[[1.5]]", "[[true]]", "[[-1]]",
                        "[[]]", "[[[0]]]",
                    ][kind as usize % 10]
                        .to_string();
                }
            }
            parts.push(format!("\"{k}\": {v}"));
        }
        if omit >> 4 & 1 == 0 {
            let sizes = self.bases.sizes();
            let v = match self.shape_form % 24 {
                0 => "[]".to_string(),
                1 => format!("\"{}\"", sizes.join("x")),
                2 => format!("[{}, 0]", sizes.join(", ")),
                3 => format!("[{}]", sizes.join(".5, ")),
                4 => "null".into(),
                _ => format!("[{}]", sizes.join(", ")),
            };
            parts.push(format!("\"shape\": {v}"));
        }
        if let Some((k, name)) = &self.extra {
            let name: String = name.chars().take(12).collect();
            let key = match k % 8 {
                0 => keys[*k as usize / 8 % 4].to_string(), // a duplicate key
                1 => IN_DIMS[*k as usize / 8 % 4].to_string(), // mixes styles
                2 => name.replace(['"', '\\'], ""),
                _ => String::new(),
            };
            if !key.is_empty() {
                parts.push(format!("\"{key}\": []"));
            }
        }
        if !parts.is_empty() {
            let r = self.order as usize % parts.len();
            parts.rotate_left(r);
        }
        if self.pretty {
            format!("{{\n  {}\n}}\n", parts.join(",\n  "))
        } else {
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// How a Gluon call writes its arguments.
#[derive(Arbitrary, Debug)]
struct ArgStyle {
    /// arguments from this index on are keywords (Python's rule), or with
    /// `chaos`, bit i says argument i is a keyword
    kw_from: u8,
    /// 0 (mod 8): chaos
    chaos: u8,
    /// rotate the keyword arguments
    rotate: u8,
    /// leave one argument out, or add `None`s / an unknown keyword
    drop: Option<u8>,
    extra: u8,
    trailing_comma: bool,
    newlines: bool,
    prefix: u8,
}

const PREFIXES: [&str; 6] = [
    "ttgl.",
    "gl.",
    "",
    "triton.experimental.gluon.language.",
    "ttgl .",
    "_layouts.",
];

impl ArgStyle {
    fn call(&self, class: &str, args: Vec<(&str, String)>) -> String {
        let mut args = args;
        if let Some(d) = self.drop {
            if !args.is_empty() && d % 4 == 0 {
                args.remove(d as usize / 4 % args.len());
            }
        }
        let kw = |i: usize| {
            if self.chaos.is_multiple_of(8) {
                self.kw_from >> (i % 8) & 1 == 1
            } else {
                i >= self.kw_from as usize % 8
            }
        };
        let mut pos: Vec<String> = Vec::new();
        let mut kws: Vec<String> = Vec::new();
        for (i, (k, v)) in args.iter().enumerate() {
            if kw(i) {
                kws.push(format!("{k}={v}"));
            } else if kws.is_empty() || self.chaos.is_multiple_of(8) {
                pos.push(v.clone());
            } else {
                kws.push(format!("{k}={v}"));
            }
        }
        if !kws.is_empty() {
            let r = self.rotate as usize % kws.len();
            kws.rotate_left(r);
        }
        match self.extra % 16 {
            1 => kws.push("ctas_per_cga=None".into()),
            2 => kws.push("sizes=[1]".into()),
            3 => kws.push(format!("{}=[1]", args.first().map_or("dim", |a| a.0))),
            4 => pos.push("None".into()),
            5 => kws.push("cga_layout=[]".into()),
            6 => kws.push("cga_layout=[[0, 1]]".into()),
            _ => {}
        }
        let all: Vec<String> = if self.chaos.is_multiple_of(8) && self.extra % 2 == 1 {
            kws.into_iter().chain(pos).collect()
        } else {
            pos.into_iter().chain(kws).collect()
        };
        let sep = if self.newlines { ",\n    " } else { ", " };
        let mut body = all.join(sep);
        if self.trailing_comma && !body.is_empty() {
            body.push(',');
        }
        if self.newlines {
            body = format!("\n    {body}\n");
        }
        format!(
            "{}{class}({body})",
            PREFIXES[self.prefix as usize % PREFIXES.len()]
        )
    }
}

/// A Gluon layout constructor.
#[derive(Arbitrary, Debug)]
enum Gl {
    Blocked {
        spt: Vec<Num>,
        tpw: Vec<Num>,
        wpc: Vec<Num>,
        order: Vec<u8>,
        cta: Option<(Vec<Num>, Vec<Num>, Vec<u8>)>,
        style: ArgStyle,
    },
    Mma {
        version: Vec<u8>,
        wpc: Vec<Num>,
        instr: Vec<Num>,
        cta: Option<(Vec<Num>, Vec<Num>, Vec<u8>)>,
        style: ArgStyle,
    },
    Dot {
        op: u8,
        parent: Box<Gl>,
        k: Num,
        style: ArgStyle,
    },
    Slice {
        dim: u8,
        parent: Box<Gl>,
        style: ArgStyle,
    },
    Linear {
        bases: Bases,
        style: ArgStyle,
    },
    /// a class warpforge does not read, or a misspelt one
    Other {
        class: u8,
        args: Vec<Num>,
        style: ArgStyle,
    },
    /// a bare name (`None`, `layout`), a number, a list
    Value(u8, Num),
    /// constructors nested `depth` deep (`SliceLayout(0, SliceLayout(0, ...`)
    /// or `[[[...`, balanced or not
    Nest {
        kind: u8,
        depth: u16,
        closed: bool,
    },
    Junk(String),
}

const OTHER: [&str; 8] = [
    "SwizzledSharedLayout",
    "NVMMASharedLayout",
    "AutoLayout",
    "blockedLayout",
    "BlockedLayouts",
    "Layout",
    "AMDMFMALayout",
    "PaddedSharedLayout",
];

impl Gl {
    fn text(&self, depth: usize) -> String {
        if depth > 6 {
            return "None".into();
        }
        let ord = |o: &[u8]| {
            let p: Vec<String> = o.iter().take(5).map(|x| (x % 5).to_string()).collect();
            format!("[{}]", p.join(", "))
        };
        let cta_args = |a: &mut Vec<(&str, String)>,
                        cta: &Option<(Vec<Num>, Vec<Num>, Vec<u8>)>| {
            if let Some((x, y, z)) = cta {
                a.push(("ctas_per_cga", list(x)));
                a.push(("cta_split_num", list(y)));
                a.push(("cta_order", ord(z)));
            }
        };
        match self {
            Gl::Blocked {
                spt,
                tpw,
                wpc,
                order,
                cta,
                style,
            } => {
                let mut a = vec![
                    ("size_per_thread", list(spt)),
                    ("threads_per_warp", list(tpw)),
                    ("warps_per_cta", list(wpc)),
                    ("order", ord(order)),
                ];
                cta_args(&mut a, cta);
                style.call("BlockedLayout", a)
            }
            Gl::Mma {
                version,
                wpc,
                instr,
                cta,
                style,
            } => {
                let v: Vec<String> = version
                    .iter()
                    .take(3)
                    .map(|x| (x % 5).to_string())
                    .collect();
                let mut a = vec![
                    ("version", format!("[{}]", v.join(", "))),
                    ("warps_per_cta", list(wpc)),
                    ("instr_shape", list(instr)),
                ];
                cta_args(&mut a, cta);
                style.call("NVMMADistributedLayout", a)
            }
            Gl::Dot {
                op,
                parent,
                k,
                style,
            } => style.call(
                "DotOperandLayout",
                vec![
                    ("operand_index", (op % 3).to_string()),
                    ("parent", parent.text(depth + 1)),
                    ("k_width", k.text()),
                ],
            ),
            Gl::Slice { dim, parent, style } => style.call(
                "SliceLayout",
                vec![
                    ("dim", (dim % 4).to_string()),
                    ("parent", parent.text(depth + 1)),
                ],
            ),
            Gl::Linear { bases, style } => style.call(
                "DistributedLinearLayout",
                vec![
                    ("reg_bases", bases_list(&bases.dim(0))),
                    ("lane_bases", bases_list(&bases.dim(1))),
                    ("warp_bases", bases_list(&bases.dim(2))),
                    ("block_bases", bases_list(&bases.dim(3))),
                    ("shape", format!("[{}]", bases.sizes().join(", "))),
                ],
            ),
            Gl::Other { class, args, style } => style.call(
                OTHER[*class as usize % OTHER.len()],
                args.iter().take(6).map(|n| ("x", n.text())).collect(),
            ),
            Gl::Value(k, n) => match k % 6 {
                0 => "None".into(),
                1 => "layout".into(),
                2 => n.text(),
                3 => format!("[{}]", n.text()),
                4 => "ttgl.constexpr".into(),
                _ => format!("({}, )", n.text()),
            },
            Gl::Nest {
                kind,
                depth: d,
                closed,
            } => {
                let d = [2usize, 16, 31, 32, 33, 40, 200, 5000][*d as usize % 8];
                let (open, leaf, close) = match kind % 4 {
                    0 => ("SliceLayout(0, ", "BlockedLayout([1], [32], [4], [0])", ")"),
                    1 => ("[", "1", "]"),
                    2 => ("(", "1", ")"),
                    _ => (
                        "ttgl.DotOperandLayout(0, k_width=2, parent=",
                        "NVMMADistributedLayout([2, 0], [2, 2], [16, 8])",
                        ")",
                    ),
                };
                let mut s = open.repeat(d);
                s += leaf;
                if *closed {
                    s += &close.repeat(d);
                }
                s
            }
            Gl::Junk(j) => j.chars().take(40).collect(),
        }
    }
}

/// A Gluon constructor as it appears in Python source.
#[derive(Arbitrary, Debug)]
struct GluonText {
    layout: Gl,
    /// 0 (mod 3): `layout`; else `valid` written with `style`
    pick: u8,
    valid: EncGen,
    style: ArgStyle,
    /// `name = `, `name: gl.constexpr = `, ...; 5 (mod 8): a comment line
    /// above
    assign: u8,
    comment: String,
}

impl GluonText {
    fn text(&self) -> String {
        let mut s = String::new();
        if self.assign % 8 == 5 {
            s += "# ";
            s.extend(self.comment.chars().take(20).filter(|c| *c != '\n'));
            s.push('\n');
        }
        s += match self.assign % 8 {
            1 => "layout = ",
            2 => "L: gl.constexpr = ",
            3 => "x == ",
            4 => "= ",
            _ => "",
        };
        if self.pick.is_multiple_of(3) {
            return s + &self.layout.text(0);
        }
        let e = self.valid.encoding();
        let shape = self.valid.lin.shape();
        s + &gluon_with(&e, Some(&shape), &|class, args| {
            self.style.call(class, args)
        })
    }
}

/// Text in any format, as a layout flag takes it.
#[derive(Arbitrary, Debug)]
enum AnyLayout {
    Attr(Attr),
    Valid(EncGen),
    ToStr(ToStr),
    Json(JsonBases),
    Gluon(GluonText),
}

#[derive(Arbitrary, Debug)]
struct LayoutFlag {
    layout: AnyLayout,
    /// a byte-order mark, blank lines, comment lines, `@` in front
    lead: u8,
}

impl LayoutFlag {
    fn text(&self) -> String {
        let t = match &self.layout {
            AnyLayout::Attr(a) => a.text(0),
            AnyLayout::Valid(e) => ttgir_text(&e.encoding()),
            AnyLayout::ToStr(t) => t.text(),
            AnyLayout::Json(j) => j.text(),
            AnyLayout::Gluon(g) => g.text(),
        };
        let lead = match self.lead % 10 {
            1 => "\u{feff}",
            2 => "\n\n  ",
            3 => "# comment\n",
            4 => "#\n",
            5 => "\u{feff}\u{feff}",
            _ => "",
        };
        format!("{lead}{t}")
    }
}

/// A CuTe shared-memory layout as `cute::print` writes a composed layout:
/// `Sw<B,M,S> o OFFSET o SHAPE:STRIDE` (or `Swizzle<...>`, no offset, or no
/// swizzle), with small and sometimes hostile numbers, nested modes, `_N`
/// and plain integers.
#[derive(Arbitrary, Debug)]
struct SmemText {
    /// (long name, B, M, S, wild): B, M and S mostly in CuTe's ranges
    swizzle: Option<(bool, u8, u8, i8, bool)>,
    /// 0: `_0`, 1: `0`, 2: `smem_ptr[Nb](unset)`, 3: none, 4: a number
    offset: (u8, u16),
    modes: Vec<(Vec<(u8, u8)>, bool)>,
    underscore: bool,
}

impl SmemText {
    fn text(&self) -> String {
        let n = |v: i64| {
            if self.underscore {
                format!("_{v}")
            } else {
                v.to_string()
            }
        };
        // shapes and strides mostly powers of two, sometimes not
        let num = |x: u8| -> i64 {
            if x % 13 == 0 {
                i64::from(x % 7)
            } else {
                1i64 << (x % 11)
            }
        };
        let mut shapes = Vec::new();
        let mut strides = Vec::new();
        for (sub, nested) in self.modes.iter().take(4) {
            let sub: Vec<&(u8, u8)> = sub.iter().take(3).collect();
            if sub.is_empty() {
                continue;
            }
            let sh: Vec<String> = sub.iter().map(|(a, _)| n(num(*a))).collect();
            let st: Vec<String> = sub.iter().map(|(_, b)| n(num(*b))).collect();
            if *nested || sh.len() > 1 {
                shapes.push(format!("({})", sh.join(",")));
                strides.push(format!("({})", st.join(",")));
            } else {
                shapes.push(sh[0].clone());
                strides.push(st[0].clone());
            }
        }
        if shapes.is_empty() {
            // the SM80 f16 K-major atom's tile, which a swizzle fits
            shapes = vec![n(8), n(64)];
            strides = vec![n(64), n(1)];
        }
        let layout = format!("({}):({})", shapes.join(","), strides.join(","));
        let offset = match self.offset.0 % 5 {
            0 => Some("_0".to_string()),
            1 => Some("0".to_string()),
            2 => Some(format!("smem_ptr[{}b](unset)", 8u32 << (self.offset.1 % 4))),
            3 => None,
            _ if self.offset.1 % 8 == 0 => Some(self.offset.1.to_string()),
            _ => Some("_0".to_string()),
        };
        let mut t = String::new();
        if let Some((long, b, m, sh, wild)) = self.swizzle {
            let name = if long { "Swizzle" } else { "Sw" };
            if wild && b > 224 {
                t += &format!("{name}<{},{},{sh}> o ", b as i8, m as i8);
            } else {
                let (b, m) = (i64::from(b % 5), i64::from(m % 6));
                let s = (b + i64::from(sh.rem_euclid(4))) * if sh < -64 { -1 } else { 1 };
                t += &format!("{name}<{b},{m},{s}> o ");
            }
        }
        if let Some(o) = offset {
            if self.swizzle.is_some() {
                t += &format!("{o} o ");
            }
        }
        t + &layout
    }
}

/// Edits on a structured input: unbalanced cuts, junk tokens, unicode.
#[derive(Arbitrary, Debug)]
struct Garble {
    cut: Option<u16>,
    inserts: Vec<(u16, u8)>,
}

impl Garble {
    fn apply(&self, s: String) -> Vec<u8> {
        let mut v = s.into_bytes();
        for (at, tok) in self.inserts.iter().take(3) {
            let t = TOKENS[*tok as usize % TOKENS.len()].as_bytes();
            let at = *at as usize % (v.len() + 1);
            v.splice(at..at, t.iter().copied());
        }
        if let Some(c) = self.cut {
            if c % 4 == 0 {
                let at = c as usize / 4 % (v.len() + 1);
                v.truncate(at);
            }
        }
        v
    }
}

/// How often each target is picked: the layout formats are new (the
/// others had their 10 million executions), so they get more.
const WEIGHTED: [Target; 20] = [
    Target::Ttgir,
    Target::Ttgir,
    Target::Attribute,
    Target::Attribute,
    Target::Shape,
    Target::ToString,
    Target::ToString,
    Target::ToString,
    Target::Json,
    Target::Json,
    Target::Json,
    Target::Gluon,
    Target::Gluon,
    Target::Gluon,
    Target::Layout,
    Target::Layout,
    Target::Layout,
    Target::Smem,
    Target::Smem,
    Target::Smem,
];

/// A structured input for a layout-format target: valid-ish text, garbled
/// now and then.
fn generate(target: Target, u: &mut Unstructured) -> arbitrary::Result<Vec<u8>> {
    let text = match target {
        Target::ToString => ToStr::arbitrary(u)?.text(),
        Target::Json => JsonBases::arbitrary(u)?.text(),
        Target::Gluon => GluonText::arbitrary(u)?.text(),
        Target::Layout => LayoutFlag::arbitrary(u)?.text(),
        Target::Ttgir => File::arbitrary(u)?.text(),
        Target::Smem => SmemText::arbitrary(u)?.text(),
        _ => {
            if u.ratio(1, 2)? {
                ttgir_text(&EncGen::arbitrary(u)?.encoding())
            } else {
                Attr::arbitrary(u)?.text(0)
            }
        }
    };
    let g = if u.ratio(1, 4)? {
        Garble::arbitrary(u)?
    } else {
        Garble {
            cut: None,
            inserts: vec![],
        }
    };
    Ok(g.apply(text))
}

const TOKENS: &[&str] = &[
    "[",
    "]",
    "<{",
    "}>",
    "{",
    "}",
    "<",
    ">",
    "#",
    ",",
    " = ",
    "=",
    "\"",
    "-",
    ":",
    " : i32",
    "->",
    "x",
    "0",
    "1",
    "2",
    "3",
    "4",
    "8",
    "16",
    "32",
    "64",
    "-1",
    "4294967296",
    "2147483648",
    "99999999999999999999",
    "\u{feff}",
    "\u{00e9}",
    "\n",
    "//",
    "#ttg.blocked",
    "#ttg.linear",
    "#ttg.slice",
    "#ttg.nvidia_mma",
    "#ttg.dot_op",
    "#ttg.shared",
    "parent = ",
    "sizePerThread",
    "warpsPerCTA",
    "instrShape",
    "order",
    "register",
    "lane",
    "warp",
    "block",
    "opIdx",
    "kWidth",
    "dim",
    "ttg.convert_layout",
    "triton_gpu.convert_layout",
    "tensor<",
    "loc(#loc)",
    "#mma",
    "#a0",
    "module attributes {\"ttg.num-warps\" = 4 : i32} {",
    "\"ttg.num-warps\" = ",
    "tt.func @g() {",
    // the layout input formats
    " - ",
    "\n   ",
    "register=1 -> (0, 1)",
    "=2 -> (",
    " -> (",
    "(",
    ")",
    " is a size 1 dimension",
    "where out dims are: [",
    "dim0 (size 16)",
    " (size ",
    "(empty layout)",
    "\"reg_bases\"",
    "\"lane_bases\": ",
    "\"warp\": ",
    "\"shape\": [",
    "\"block_bases\": []",
    "null",
    "true",
    "1e5",
    "1.5",
    "\\u0041",
    "ttgl.",
    "gl.",
    "BlockedLayout(",
    "NVMMADistributedLayout(",
    "DotOperandLayout(",
    "SliceLayout(",
    "DistributedLinearLayout(",
    "None",
    "=None",
    "parent=",
    "k_width=",
    "operand_index=",
    "size_per_thread=",
    "cga_layout=[]",
    "==",
    "layout = ",
    ": gl.constexpr = ",
    "# ",
    "\u{1F600}",
    "\u{0301}",
    "\r\n",
    "\t",
    "\0",
];

/// Inputs that got far (built a layout), per target.
type Pool = Vec<Vec<Vec<u8>>>;

/// At most this many kept inputs per target.
const POOL_MAX: usize = 256;

/// Mutate `s` with a few byte and token edits (splices from `pool`).
fn mutate(rng: &mut Rng, s: &[u8], pool: &Pool) -> Vec<u8> {
    let mut v = s.to_vec();
    for _ in 0..1 + rng.below(6) {
        let n = v.len();
        let at = rng.below(n + 1);
        match rng.below(10) {
            0 if n > 0 => {
                let i = rng.below(n);
                v[i] ^= 1 << rng.below(8);
            }
            1 if n > 0 => {
                let i = rng.below(n);
                v[i] = rng.next() as u8;
            }
            2 | 3 => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                v.splice(at..at, t.iter().copied());
            }
            4 if n > 0 => {
                let len = 1 + rng.below(16.min(n - at.min(n - 1)));
                let st = at.min(n - 1);
                v.drain(st..(st + len).min(n));
            }
            5 if n > 0 => {
                // duplicate a chunk
                let st = rng.below(n);
                let len = 1 + rng.below(64.min(n - st));
                let chunk = v[st..st + len].to_vec();
                v.splice(at..at, chunk);
            }
            6 => {
                // nesting: many `[` or `#ttg.slice<{dim = 0, parent = `
                let t: &[u8] = if rng.below(2) == 0 {
                    b"["
                } else {
                    b"#ttg.slice<{dim = 0, parent = "
                };
                let k = [2, 20, 40, 100, 1000, 40000][rng.below(6)];
                let rep: Vec<u8> = t.iter().copied().cycle().take(t.len() * k).collect();
                v.splice(at..at, rep);
            }
            7 if pool.iter().any(|p| !p.is_empty()) => {
                // splice from another input
                let p = &pool[rng.below(pool.len())];
                if p.is_empty() {
                    continue;
                }
                let o = &p[rng.below(p.len())];
                if !o.is_empty() {
                    let st = rng.below(o.len());
                    let len = 1 + rng.below(256.min(o.len() - st));
                    v.splice(at..at, o[st..st + len].iter().copied());
                }
            }
            8 => {
                let k = 1 + rng.below(8);
                let t = rng.bytes(k);
                v.splice(at..at, t);
            }
            _ if n > 0 => {
                // replace a number-ish byte run with an extreme number
                let t = ["0", "-7", "65536", "4294967297", "9223372036854775808"][rng.below(5)];
                let i = rng.below(n);
                v.splice(i..(i + 1).min(n), t.bytes());
            }
            _ => {}
        }
        if v.len() > 1 << 17 {
            v.truncate(1 << 17);
        }
    }
    v
}

fn seeds(root: &Path) -> Vec<(Target, Vec<u8>)> {
    let mut out = Vec::new();
    let files = wf_fuzz::corpus_files(root);
    for p in files {
        let Ok(t) = std::fs::read_to_string(&p) else {
            continue;
        };
        for l in t.lines() {
            let l = l.trim();
            if let Some(eq) = l.strip_prefix('#').and_then(|r| r.find(" = ")) {
                let v = &l[eq + 4..];
                if v.starts_with("#ttg.") {
                    out.push((Target::Attribute, v.as_bytes().to_vec()));
                }
            }
        }
        out.push((Target::Ttgir, t.into_bytes()));
    }
    for s in [
        "16x16", "128x64", "1x4096", "64", "2x32x8", "0x4", "-1x2", "1x", "x", "",
    ] {
        out.push((Target::Shape, s.as_bytes().to_vec()));
    }
    // every corpus layout in every input format (toString, JSON, Gluon)
    out.extend(
        layout_seeds(root)
            .into_iter()
            .map(|(t, s)| (t, s.into_bytes())),
    );
    // hand-written spellings, and the crashes kept so far
    for dir in ["fuzz/seeds", "fuzz/crashes"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            let mut names: Vec<_> = rd.flatten().map(|e| e.path()).collect();
            names.sort();
            for p in names {
                let n = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let n = n.strip_prefix("slow-").unwrap_or(&n);
                if let (Some(t), Ok(b)) = (Target::from_file_name(n), std::fs::read(&p)) {
                    out.push((t, b));
                }
            }
        }
    }
    out
}

fn hash(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= x as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// `wf-fuzz --show TARGET [N]`: print N structured inputs of a target and
/// what parsing them gives (to see what the generators make).
fn show(target: &str, n: usize) {
    let Some(t) = Target::ALL.into_iter().find(|t| t.name() == target) else {
        eprintln!("wf-fuzz: no target `{target}`");
        std::process::exit(2);
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut shown = 0;
    while shown < n {
        let k = 64 + rng.below(512);
        let raw = rng.bytes(k);
        let Ok(v) = generate(t, &mut Unstructured::new(&raw)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&v);
        if t == Target::Smem {
            let what = match synth::smem::SmemLayout::parse(&text) {
                Ok(l) => format!("parses: {} elements", l.size()),
                Err(e) => e.to_string(),
            };
            println!("---- {what}\n{text}");
            shown += 1;
            continue;
        }
        let what = match t.format() {
            Some(f) => synth::input::parse_as(f, &text)
                .map(|_| "parses".to_string())
                .unwrap_or_else(|e| e.to_string()),
            None => synth::input::parse_layout(&text)
                .map(|_| "parses".to_string())
                .unwrap_or_else(|e| e.to_string()),
        };
        // why a layout that parses does not build
        let parsed = match t.format() {
            Some(f) => synth::input::parse_as(f, &text).ok(),
            None => synth::input::parse_layout(&text).ok(),
        };
        let what = match parsed {
            Some(l) => {
                let shapes = match &l.shape {
                    Some(s) => vec![s.clone()],
                    None => FALLBACK.iter().map(|s| s.to_vec()).collect(),
                };
                let w = l.num_warps.unwrap_or(4);
                let errs: Vec<String> = shapes
                    .iter()
                    .map(|s| match l.encoding.to_linear_layout(s, w) {
                        Ok(_) => "ok".into(),
                        Err(e) => e.to_string(),
                    })
                    .collect();
                format!("{what} [{}]", errs.join(" | "))
            }
            None => what,
        };
        println!("---- built {}: {what}\n{text}", exec(t, &text, 4));
        shown += 1;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--show") {
        let n = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
        show(args.get(2).map_or("", String::as_str), n);
        return;
    }
    let usage = || -> ! {
        eprintln!("usage: wf-fuzz [EXECUTIONS [SEED]] | wf-fuzz --show TARGET [N]");
        std::process::exit(2)
    };
    let total: u64 = match args.get(1) {
        None => 10_000_000,
        Some(s) => s.replace('_', "").parse().unwrap_or_else(|_| usage()),
    };
    if args.len() > 3 || args.get(2).is_some_and(|s| s.parse::<u64>().is_err()) {
        usage();
    }
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    }) | 1;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let crash_dir = root.join("fuzz/crashes");
    let seeds = seeds(&root);
    eprintln!(
        "wf-fuzz: {} seed inputs, {total} executions, seed {seed}",
        seeds.len()
    );
    std::panic::set_hook(Box::new(|info| {
        let loc = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = format!("{loc}: {msg}"));
    }));
    let mut rng = Rng(seed);
    let mut pool: Pool = vec![Vec::new(); Target::ALL.len()];
    let (mut crashes, mut slow, mut built_total) = (0u64, 0u64, 0u64);
    let mut per_target = [0u64; Target::ALL.len()];
    let mut built_per_target = [0u64; Target::ALL.len()];
    let mut unique: HashSet<String> = HashSet::new();
    // the seeds of each target
    let by_target: Vec<Vec<&Vec<u8>>> = Target::ALL
        .iter()
        .map(|t| seeds.iter().filter(|s| s.0 == *t).map(|s| &s.1).collect())
        .collect();
    let start = Instant::now();
    let mut done: u64 = 0;
    while done < total {
        let target = WEIGHTED[rng.below(WEIGHTED.len())];
        let pick = rng.below(10);
        let (target, input): (Target, Vec<u8>) = if pick < 3 {
            // structured: from random bytes through `arbitrary`
            let k = 64 + rng.below(512);
            let raw = rng.bytes(k);
            let mut u = Unstructured::new(&raw);
            match generate(target, &mut u) {
                Ok(v) => (target, v),
                Err(_) => continue,
            }
        } else if pick < 6 && !pool[target as usize].is_empty() {
            // an input that got far: one of this target's, or (one time in
            // eight) another target's text read as this target's
            let from = if rng.below(8) == 0 {
                rng.below(pool.len())
            } else {
                target as usize
            };
            let p = &pool[from];
            if p.is_empty() {
                continue;
            }
            let from = &p[rng.below(p.len())];
            (target, mutate(&mut rng, from, &pool))
        } else {
            let s = &by_target[target as usize];
            if s.is_empty() {
                continue;
            }
            let from = s[rng.below(s.len())];
            (target, mutate(&mut rng, from, &pool))
        };
        let text = String::from_utf8_lossy(&input);
        let warps = 1 << rng.below(7);
        let t0 = Instant::now();
        let r = std::panic::catch_unwind(|| exec(target, &text, warps));
        let dt = t0.elapsed();
        per_target[target as usize] += 1;
        done += 1;
        match r {
            Ok(built) => {
                built_total += built as u64;
                built_per_target[target as usize] += built as u64;
                if built > 0 && rng.below(8) == 0 {
                    let p = &mut pool[target as usize];
                    if p.len() < POOL_MAX {
                        p.push(input.clone());
                    } else {
                        let j = rng.below(p.len());
                        p[j] = input.clone();
                    }
                }
            }
            Err(_) => {
                crashes += 1;
                let what = LAST_PANIC.with(|p| p.borrow().clone());
                let name = format!("{}-{:016x}.txt", target.name(), hash(&input));
                if unique.insert(what.clone()) {
                    eprintln!(
                        "wf-fuzz: CRASH #{crashes} ({}): {what} -> fuzz/crashes/{name}",
                        target.name()
                    );
                }
                let _ = std::fs::create_dir_all(&crash_dir);
                if unique.len() <= 200 {
                    let _ = std::fs::write(crash_dir.join(&name), &input);
                }
            }
        }
        // slow once may be a busy machine: slow twice is the input
        let slow_again = dt.as_secs_f64() > 1.0 && {
            let t1 = Instant::now();
            let _ = std::panic::catch_unwind(|| exec(target, &text, warps));
            t1.elapsed().as_secs_f64() > 1.0
        };
        if slow_again {
            slow += 1;
            let name = format!("slow-{}-{:016x}.txt", target.name(), hash(&input));
            eprintln!(
                "wf-fuzz: SLOW ({:.1} s) -> fuzz/crashes/{name}",
                dt.as_secs_f64()
            );
            let _ = std::fs::write(crash_dir.join(name), &input);
        }
        if done.is_multiple_of(1_000_000) || done == total {
            let counts: Vec<String> = Target::ALL
                .iter()
                .map(|t| format!("{} {}", per_target[*t as usize], t.name()))
                .collect();
            eprintln!(
                "wf-fuzz: {done} executions ({}), {built_total} layouts built, {crashes} crashes ({} distinct), {slow} slow, {:.0} exec/s",
                counts.join(", "),
                unique.len(),
                done as f64 / start.elapsed().as_secs_f64()
            );
        }
    }
    let counts: Vec<String> = Target::ALL
        .iter()
        .map(|t| format!("{} {}", per_target[*t as usize], t.name()))
        .collect();
    let built: Vec<String> = Target::ALL
        .iter()
        .map(|t| format!("{} {}", built_per_target[*t as usize], t.name()))
        .collect();
    println!("wf-fuzz: layouts built per target: {}", built.join(", "));
    println!(
        "wf-fuzz: done: {} executions ({}), {crashes} crashes ({} distinct), {slow} slow inputs, {:.0} s",
        per_target.iter().sum::<u64>(),
        counts.join(", "),
        unique.len(),
        start.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(crashes > 0));
}
