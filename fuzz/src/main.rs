//! `wf-fuzz [EXECUTIONS] [SEED]`: a structured fuzzer for warpforge's
//! parsers on the stable toolchain (cargo-fuzz needs nightly).
//!
//! Inputs come from three sources: TTGIR files and attributes generated
//! from random bytes through `arbitrary` (well-formed enough to reach the
//! encodings' checks), byte/token mutations of the corpus (`corpus/`,
//! `tests/data/`, the kept crashes) and of inputs that got far (built a
//! layout). Each runs under `catch_unwind`; a panic is a crash, saved as
//! `fuzz/crashes/<target>-<hash>.txt` (the regression tests replay every
//! file there). Inputs slower than a second, twice, are saved as
//! `slow-...` and counted. Prints the counts every million executions and at the end;
//! exits 1 when anything crashed.

use arbitrary::{Arbitrary, Unstructured};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;
use wf_fuzz::{exec, Target};

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
];

/// Mutate `s` with a few byte and token edits.
fn mutate(rng: &mut Rng, s: &[u8], pool: &[(Target, Vec<u8>)]) -> Vec<u8> {
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
            7 if !pool.is_empty() => {
                // splice from another input
                let o = &pool[rng.below(pool.len())].1;
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
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in ["corpus", "corpus/ttgir", "tests/data"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            for e in rd.flatten() {
                let p = e.path();
                if matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some("ttgir" | "mlir")
                ) {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
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
    let crashes = root.join("fuzz/crashes");
    if let Ok(rd) = std::fs::read_dir(&crashes) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if let (Some(t), Ok(b)) = (Target::from_file_name(&n), std::fs::read(e.path())) {
                out.push((t, b));
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let total: u64 = args
        .get(1)
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(10_000_000);
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
    let mut pool: Vec<(Target, Vec<u8>)> = Vec::new();
    let (mut crashes, mut slow, mut built_total) = (0u64, 0u64, 0u64);
    let mut per_target = [0u64; 3];
    let mut unique: HashSet<String> = HashSet::new();
    let start = Instant::now();
    for i in 0..total {
        let pick = rng.below(10);
        let (target, input): (Target, Vec<u8>) = if pick < 3 {
            // structured: from random bytes through `arbitrary`
            let k = 64 + rng.below(512);
            let raw = rng.bytes(k);
            let mut u = Unstructured::new(&raw);
            if rng.below(2) == 0 {
                match File::arbitrary(&mut u) {
                    Ok(f) => (Target::Ttgir, f.text().into_bytes()),
                    Err(_) => continue,
                }
            } else {
                match Attr::arbitrary(&mut u) {
                    Ok(a) => (Target::Attribute, a.text(0).into_bytes()),
                    Err(_) => continue,
                }
            }
        } else {
            let from = if pick < 6 && !pool.is_empty() {
                &pool[rng.below(pool.len())]
            } else {
                &seeds[rng.below(seeds.len())]
            };
            (from.0, mutate(&mut rng, &from.1, &pool))
        };
        let text = String::from_utf8_lossy(&input);
        let warps = 1 << rng.below(7);
        let t0 = Instant::now();
        let r = std::panic::catch_unwind(|| exec(target, &text, warps));
        let dt = t0.elapsed();
        per_target[target as usize] += 1;
        match r {
            Ok(built) => {
                built_total += built as u64;
                if built > 0 && rng.below(8) == 0 {
                    if pool.len() < 1024 {
                        pool.push((target, input.clone()));
                    } else {
                        let j = rng.below(pool.len());
                        pool[j] = (target, input.clone());
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
        if (i + 1) % 1_000_000 == 0 || i + 1 == total {
            eprintln!(
                "wf-fuzz: {} executions ({} ttgir, {} attribute, {} shape), {} layouts built, {} crashes ({} distinct), {} slow, {:.0} exec/s",
                i + 1,
                per_target[0],
                per_target[1],
                per_target[2],
                built_total,
                crashes,
                unique.len(),
                slow,
                (i + 1) as f64 / start.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "wf-fuzz: done: {} executions, {crashes} crashes ({} distinct), {slow} slow inputs, {:.0} s",
        per_target.iter().sum::<u64>(),
        unique.len(),
        start.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(crashes > 0));
}
