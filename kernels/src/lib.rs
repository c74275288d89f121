//! CUDA C++ emission of warpforge plans (DESIGN.md section 5).
//!
//! One `__device__ __forceinline__` helper per conversion, header-only C++17,
//! usable from nvcc and NVRTC: element type as a template parameter,
//! `src[]`/`dst[]` register arrays, a `void* smem` parameter and a
//! `constexpr` byte size only when the plan uses shared memory. The body is
//! straight-line code with compile-time register indices only (a run-time
//! index would send the arrays to local memory). Structure comes from the
//! minijinja templates in `templates/`; the statements are generated here from
//! the plan IR, one per instruction the cost model counts.

use minijinja::{context, Environment};
use std::collections::{BTreeMap, BTreeSet};
use synth::plan::pack::{words_of, Operand, Piece, PrmtStep};
use synth::plan::{
    AddrMap, BarrierScope, Conversion, Plan, ShflMode, SmemAccess, SmemInstr, Stage,
};
use synth::search::Chosen;

mod packed;
pub use packed::body_packed;

const HEADER: &str = include_str!("../templates/header.cuh.j2");
const HELPER: &str = include_str!("../templates/helper.cuh.j2");
const TEST_KERNEL: &str = include_str!("../templates/test_kernel.cu.j2");
const BENCH_KERNEL: &str = include_str!("../templates/bench_kernel.cu.j2");
const TEST_KERNEL_PACKED: &str = include_str!("../templates/test_kernel_packed.cu.j2");
const BENCH_KERNEL_PACKED: &str = include_str!("../templates/bench_kernel_packed.cu.j2");

/// Errors of emission.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("{name}: stage {stage} ({kind}) has no CUDA emission yet (no strategy produces it)")]
    Unsupported {
        name: String,
        stage: usize,
        kind: &'static str,
    },
    #[error(
        "{fwd} and {bwd}: the packed forms pack the shared layout along different register bits"
    )]
    PackMismatch { fwd: String, bwd: String },
    #[error("template: {0}")]
    Template(#[from] minijinja::Error),
}

/// One emitted helper and what callers need to drive it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EmittedHelper {
    /// C identifier of the function (`wf_<func>_<line>`).
    pub ident: String,
    /// The conversion's name (`func:line`).
    pub name: String,
    pub src_regs: u32,
    pub dst_regs: u32,
    /// Shared scratch in elements (0: no `smem` parameter).
    pub smem_elems: u64,
    /// Threads per CTA (32 x warps).
    pub threads: u32,
    /// The packed forms `{ident}_packed{bits}` (8, 16) taking 32-bit
    /// words (see [`body_packed`]).
    pub packed: Vec<PackedForm>,
    /// The helper's source text.
    pub code: String,
}

/// One packed form of a helper: elements of `bits`, `32 / bits` per word,
/// packed along `src`/`dst` register bits.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PackedForm {
    pub bits: u32,
    pub src: synth::plan::pack::PackMap,
    pub dst: synth::plan::pack::PackMap,
}

impl EmittedHelper {
    /// The packed form for `bits`, if any.
    pub fn packed_form(&self, bits: u32) -> Option<&PackedForm> {
        self.packed.iter().find(|p| p.bits == bits)
    }
}

/// `(word, [register of slot 0, slot 1, ...])` for every word of a packed
/// array of `regs` elements.
fn word_regs(m: &synth::plan::pack::PackMap, regs: u32, bits: u32) -> Vec<(u32, Vec<u32>)> {
    let p = 32 / bits;
    (0..regs / p)
        .map(|w| (w, (0..p).map(|s| m.register(w, s)).collect()))
        .collect()
}

fn pack_doc(m: &synth::plan::pack::PackMap) -> String {
    let b: Vec<String> = m.slot_bits.iter().map(|x| x.to_string()).collect();
    if m.is_lowest() {
        format!(
            "register bit(s) {} (element r in slot r % p of word r / p)",
            b.join(", ")
        )
    } else {
        format!("register bit(s) {}", b.join(", "))
    }
}

/// A C identifier for a conversion name: `attn:104` -> `wf_attn_104`.
pub fn ident_for(name: &str) -> String {
    ident_with_prefix("wf_", name)
}

/// `prefix` followed by `name` with every character that is not an ASCII
/// letter or digit replaced by `_`: `("my_", "attn:104")` -> `my_attn_104`.
pub fn ident_with_prefix(prefix: &str, name: &str) -> String {
    let mut s = String::from(prefix);
    for c in name.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    s
}

/// FNV-1a, 64 bits: a stable hash (same value on every machine and build)
/// for guard values and default names.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.as_bytes().iter().chain(std::iter::once(&0xffu8)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn env() -> Environment<'static> {
    let mut e = Environment::new();
    e.add_template("header", HEADER)
        .expect("header template parses");
    e.add_template("helper", HELPER)
        .expect("helper template parses");
    e.add_template("test_kernel", TEST_KERNEL)
        .expect("test kernel template parses");
    e.add_template("bench_kernel", BENCH_KERNEL)
        .expect("bench kernel template parses");
    e.add_template("test_kernel_packed", TEST_KERNEL_PACKED)
        .expect("packed test kernel template parses");
    e.add_template("bench_kernel_packed", BENCH_KERNEL_PACKED)
        .expect("packed bench kernel template parses");
    e
}

/// A GF(2)-linear function of a run-time `unsigned` variable as a C
/// expression: column `j` is what input bit `j` contributes (XOR). Unit
/// columns with the same bit shift are grouped into one mask-and-shift term.
pub fn linear_expr(var: &str, cols: &[u32]) -> String {
    let mut by_shift: std::collections::BTreeMap<i32, u32> = Default::default();
    let mut terms = Vec::new();
    for (j, &c) in cols.iter().enumerate() {
        if c == 0 {
            continue;
        }
        if c.count_ones() == 1 {
            let t = c.trailing_zeros() as i32;
            *by_shift.entry(t - j as i32).or_default() |= 1 << j;
        } else {
            terms.push(format!("((0u - (({var} >> {j}) & 1u)) & {c}u)"));
        }
    }
    let mut unit: Vec<String> = Vec::new();
    for (s, m) in by_shift {
        unit.push(match s.cmp(&0) {
            std::cmp::Ordering::Equal => format!("({var} & {m}u)"),
            std::cmp::Ordering::Greater => format!("(({var} & {m}u) << {s})"),
            std::cmp::Ordering::Less => format!("(({var} & {m}u) >> {})", -s),
        });
    }
    unit.extend(terms);
    let terms = unit;
    if terms.is_empty() {
        "0u".into()
    } else {
        terms.join(" ^ ")
    }
}

pub(crate) fn addr_base(name: &str, a: &AddrMap) -> String {
    let lane = linear_expr("lane", &a.lane);
    let warp = linear_expr("warp", &a.warp);
    let e = match (lane.as_str(), warp.as_str()) {
        ("0u", "0u") => "0u".to_string(),
        (l, "0u") => l.to_string(),
        ("0u", w) => w.to_string(),
        (l, w) => format!("{l} ^ {w}"),
    };
    format!("const unsigned {name} = {e};")
}

/// Byte-address expressions of every instruction of `acc`, given the
/// per-thread element offset variable `o`: one base register per distinct
/// part of the instruction offsets that overlaps the run-time bits (a
/// swizzle), the rest as an immediate offset (as Triton does). Declarations
/// go to `out`; variables are named `{prefix}_{k}`.
pub(crate) fn smem_addrs(
    out: &mut Vec<String>,
    prefix: &str,
    o: &str,
    acc: &SmemAccess,
) -> Vec<String> {
    let eb = (acc.width / 8).max(1);
    let bits = acc.addr.base_bits();
    let mut groups: Vec<u32> = Vec::new();
    acc.insts
        .iter()
        .map(|inst| {
            let g = inst.offset & bits;
            let k = match groups.iter().position(|&x| x == g) {
                Some(k) => k,
                None => {
                    groups.push(g);
                    let e = if g == 0 {
                        format!("sb + {o} * {eb}u")
                    } else {
                        format!("sb + ({o} ^ {g}u) * {eb}u")
                    };
                    out.push(format!(
                        "const unsigned {prefix}_{} = {e};",
                        groups.len() - 1
                    ));
                    groups.len() - 1
                }
            };
            let imm = (inst.offset & !bits) * eb;
            if imm == 0 {
                format!("{prefix}_{k}")
            } else {
                format!("{prefix}_{k} + {imm}u")
            }
        })
        .collect()
}

/// 32-bit words (C expressions) holding `vals`, elements of `width` bits.
fn pack_words(vals: &[String], width: u32) -> Vec<String> {
    match width {
        64 => vals
            .iter()
            .flat_map(|v| {
                [
                    format!("(unsigned)detail::to_u64({v})"),
                    format!("(unsigned)(detail::to_u64({v}) >> 32)"),
                ]
            })
            .collect(),
        32 => vals
            .iter()
            .map(|v| format!("detail::to_u32({v})"))
            .collect(),
        _ => vals
            .chunks((32 / width) as usize)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .map(|(i, v)| {
                        if i == 0 {
                            format!("detail::to_u32({v})")
                        } else {
                            format!("(detail::to_u32({v}) << {})", i as u32 * width)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .collect(),
    }
}

/// Elements (C expressions of type T) held by 32-bit words `words`.
fn unpack_words(words: &[String], width: u32, n: usize) -> Vec<String> {
    match width {
        64 => words
            .chunks(2)
            .map(|c| format!("detail::from_u64<T>({}, {})", c[0], c[1]))
            .collect(),
        32 => words
            .iter()
            .map(|w| format!("detail::from_u32<T>({w})"))
            .collect(),
        _ => {
            let per = (32 / width) as usize;
            (0..n)
                .map(|e| {
                    let w = &words[e / per];
                    let sh = (e % per) as u32 * width;
                    if sh == 0 {
                        format!("detail::from_u32<T>({w})")
                    } else {
                        format!("detail::from_u32<T>({w} >> {sh})")
                    }
                })
                .collect()
        }
    }
}

/// Declare predicate `p{mask}` (lane parity over `mask`) once.
pub(crate) fn declare_pred(out: &mut Vec<String>, preds: &mut BTreeSet<u32>, mask: u32) {
    if preds.insert(mask) {
        let cond = if mask.count_ones() == 1 {
            format!("((lane >> {}) & 1u) != 0u", mask.trailing_zeros())
        } else {
            format!("(__popc(lane & {mask}u) & 1) != 0")
        };
        out.push(format!("const bool p{mask} = {cond};"));
    }
}

/// The shuffle call reading `a` for a [`Stage::Shuffle`] entry with
/// argument `c` (stage `si` declares `sl{si}` for `Idx`).
pub(crate) fn shfl_call(mode: ShflMode, a: &str, si: usize, c: u32) -> String {
    match mode {
        ShflMode::Idx if c == 0 => format!("detail::shfl_idx({a}, sl{si})"),
        ShflMode::Idx => format!("detail::shfl_idx({a}, sl{si} ^ {c}u)"),
        ShflMode::Bfly => format!("detail::shfl_xor({a}, {c}u)"),
        ShflMode::Up => format!("detail::shfl_up({a}, {c}u)"),
        ShflMode::Down => format!("detail::shfl_down({a}, {c}u)"),
    }
}

/// The per-thread address part of a shared-memory stage `si`, declaring the
/// scratch base `sb` first if needed; returns each instruction's address.
pub(crate) fn stage_addrs(
    out: &mut Vec<String>,
    smem_decl: &mut bool,
    si: usize,
    access: &SmemAccess,
) -> Vec<String> {
    if !*smem_decl {
        out.push("const unsigned sb = detail::smem_u32(smem);".into());
        *smem_decl = true;
    }
    let o = format!("o{si}");
    out.push(addr_base(&o, &access.addr));
    smem_addrs(out, &format!("a{si}"), &o, access)
}

/// The store of 32-bit `words` at `addr` by one instruction of `access`.
pub(crate) fn store_stmt(access: &SmemAccess, addr: &str, words: &[String]) -> String {
    match access.instr {
        SmemInstr::Vector => match access.bytes() {
            1 => format!("detail::st_u8({addr}, {});", words[0]),
            2 => format!("detail::st_u16({addr}, {});", words[0]),
            4 => format!("detail::st_b32({addr}, {});", words[0]),
            8 => format!("detail::st_v2({addr}, {});", words.join(", ")),
            _ => format!("detail::st_v4({addr}, {});", words.join(", ")),
        },
        SmemInstr::Matrix { count, trans } => format!(
            "detail::stsm_x{count}{}({addr}, {});",
            if trans { "_trans" } else { "" },
            words.join(", ")
        ),
    }
}

/// Load instruction `ii` of stage `si` at `addr` into fresh 32-bit words
/// `w{si}_{ii}_{j}`; returns their names.
pub(crate) fn load_words(
    out: &mut Vec<String>,
    access: &SmemAccess,
    addr: &str,
    si: usize,
    ii: usize,
) -> Vec<String> {
    let nw = access.bytes().div_ceil(4) as usize;
    let words: Vec<String> = (0..nw).map(|j| format!("w{si}_{ii}_{j}")).collect();
    let list = words.join(", ");
    match access.instr {
        SmemInstr::Vector => match access.bytes() {
            b @ (1 | 2 | 4) => out.push(format!(
                "const unsigned {} = detail::ld_{}({addr});",
                words[0],
                match b {
                    1 => "u8",
                    2 => "u16",
                    _ => "b32",
                }
            )),
            n => {
                out.push(format!("unsigned {list};"));
                out.push(format!(
                    "detail::ld_v{}({addr}, {list});",
                    if n == 8 { 2 } else { 4 }
                ));
            }
        },
        SmemInstr::Matrix { count, trans } => {
            out.push(format!("unsigned {list};"));
            out.push(format!(
                "detail::ldsm_x{count}{}({addr}, {list});",
                if trans { "_trans" } else { "" }
            ));
        }
    }
    words
}

/// Print `steps` as `const unsigned qN = __byte_perm(a, b, sel);` lines
/// (inputs named by `keys`, earlier steps by their temporaries); returns the
/// temporaries' names, one per step.
fn emit_prmt_steps(
    out: &mut Vec<String>,
    temps: &mut usize,
    keys: &[String],
    steps: &[PrmtStep],
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for st in steps {
        let t = format!("q{}", *temps);
        *temps += 1;
        out.push(format!(
            "const unsigned {t} = __byte_perm({}, {}, {:#06x}u);",
            operand_name(st.a, keys, &names),
            operand_name(st.b, keys, &names),
            st.selector
        ));
        names.push(t);
    }
    names
}

/// The expression of a `prmt` operand: an input's key or a step's temporary.
fn operand_name(o: Operand, keys: &[String], names: &[String]) -> String {
    match o {
        Operand::Input(k) => keys[k as usize].clone(),
        Operand::Step(k) => names[k as usize].clone(),
    }
}

/// Emit the `prmt` program that packs each entry of `words` (elements of
/// `bits`, slot order) into one word, sharing intermediates between words
/// ([`words_of`], [`synth::plan::pack::network`]); returns each word's
/// expression. The `__byte_perm` calls are exactly the program's `prmt`.
pub(crate) fn prmt_program(
    out: &mut Vec<String>,
    temps: &mut usize,
    words: &[Vec<Piece<String>>],
    bits: u32,
) -> Vec<String> {
    prmt_program_steps(out, temps, words, bits).0
}

/// A `prmt` step as emitted: `(a, b, selector)` by operand expression.
type PrmtDef = (String, String, u32);

/// [`prmt_program`], and the `(a, b, selector)` of each step it emitted, by
/// the step's temporary.
fn prmt_program_steps(
    out: &mut Vec<String>,
    temps: &mut usize,
    words: &[Vec<Piece<String>>],
    bits: u32,
) -> (Vec<String>, BTreeMap<String, PrmtDef>) {
    let (keys, prog) = words_of(words, bits);
    let names = emit_prmt_steps(out, temps, &keys, &prog.steps);
    let defs = prog
        .steps
        .iter()
        .zip(&names)
        .map(|(st, n)| {
            (
                n.clone(),
                (
                    operand_name(st.a, &keys, &names),
                    operand_name(st.b, &keys, &names),
                    st.selector,
                ),
            )
        })
        .collect();
    let outs = prog
        .outputs
        .iter()
        .map(|&o| operand_name(o, &keys, &names))
        .collect();
    (outs, defs)
}

/// One stage of a plan that carries 32-bit words (between `Pack` and
/// `Unpack`, see `synth::plan::gather`): renames, selects and shuffles of
/// `unsigned` words, and byte permutes with lane-dependent selectors
/// (computed once per distinct selector). Returns the new register names,
/// or the stage kind when it cannot act on words.
pub(crate) fn word_stage(
    out: &mut Vec<String>,
    preds: &mut BTreeSet<u32>,
    si: usize,
    st: &Stage,
    names: Vec<String>,
) -> Result<Vec<String>, &'static str> {
    reg_stage(out, preds, si, st, names, true)
}

/// Renames, selects and shuffles of register values (`words`: `unsigned`
/// words named `w{si}_{k}`, else elements of type `T` named `s{si}_{k}`),
/// and byte permutes of words; see [`word_stage`].
fn reg_stage(
    out: &mut Vec<String>,
    preds: &mut BTreeSet<u32>,
    si: usize,
    st: &Stage,
    names: Vec<String>,
    words: bool,
) -> Result<Vec<String>, &'static str> {
    let (ty, pre) = if words { ("unsigned", "w") } else { ("T", "s") };
    Ok(match st {
        Stage::RegRename { map } => map.iter().map(|&i| names[i as usize].clone()).collect(),
        Stage::Select { entries } => {
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                if e.if_set == e.if_clear {
                    next.push(names[e.if_set as usize].clone());
                    continue;
                }
                declare_pred(out, preds, e.lane_mask);
                let v = format!("{pre}{si}_{k}");
                out.push(format!(
                    "const {ty} {v} = p{} ? {} : {};",
                    e.lane_mask, names[e.if_set as usize], names[e.if_clear as usize]
                ));
                next.push(v);
            }
            next
        }
        Stage::Shuffle {
            mode,
            lane_map,
            entries,
        } => {
            if *mode == ShflMode::Idx {
                out.push(format!(
                    "const unsigned sl{si} = {};",
                    linear_expr("lane", lane_map)
                ));
            }
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                let a = names[e.reg as usize].clone();
                let Some(c) = e.arg else {
                    next.push(a);
                    continue;
                };
                let v = format!("{pre}{si}_{k}");
                out.push(format!("const {ty} {v} = {};", shfl_call(*mode, &a, si, c)));
                next.push(v);
            }
            next
        }
        Stage::BytePerm { entries } if words => {
            let mut sels: Vec<(u32, Vec<u32>)> = Vec::new();
            let mut next = Vec::with_capacity(entries.len());
            for (k, e) in entries.iter().enumerate() {
                if e.is_copy() {
                    next.push(names[e.a as usize].clone());
                    continue;
                }
                let sel = if e.lane_independent() {
                    format!("{:#06x}u", e.selector)
                } else {
                    let key = (e.selector, e.lane_xor.clone());
                    let n = match sels.iter().position(|x| *x == key) {
                        Some(n) => n,
                        None => {
                            let mut expr = format!("{:#06x}u", e.selector);
                            for (i, &x) in e.lane_xor.iter().enumerate() {
                                if x != 0 {
                                    expr.push_str(&format!(
                                        " ^ (((lane >> {i}) & 1u) * {x:#06x}u)"
                                    ));
                                }
                            }
                            out.push(format!("const unsigned bs{si}_{} = {expr};", sels.len()));
                            sels.push(key);
                            sels.len() - 1
                        }
                    };
                    format!("bs{si}_{n}")
                };
                let v = format!("w{si}_{k}");
                out.push(format!(
                    "const unsigned {v} = __byte_perm({}, {}, {sel});",
                    names[e.a as usize], names[e.b as usize]
                ));
                next.push(v);
            }
            next
        }
        other => return Err(other.name()),
    })
}

/// The predicates of a store's lane-dependent register choice
/// ([`synth::plan::SmemAccess::reg_xor`]), declared into `out`: one
/// `(predicate name, register XOR)` per lane or warp bit that has one.
fn lane_choice(out: &mut Vec<String>, si: usize, access: &SmemAccess) -> Vec<(String, u32)> {
    let mut v = Vec::new();
    for (who, masks) in [
        ("lane", &access.reg_xor.lane),
        ("warp", &access.reg_xor.warp),
    ] {
        for (j, &m) in masks.iter().enumerate() {
            if m != 0 {
                let p = format!("q{si}_{who}{j}");
                out.push(format!("const bool {p} = ({who} >> {j}u) & 1u;"));
                v.push((p, m));
            }
        }
    }
    v
}

/// `names[r ^ XOR(predicate set: mask)]` as a tree of `?:` (one `SEL` per
/// inner node, `2^k - 1` for `k` predicates).
fn pick_expr(names: &[String], r: u32, choice: &[(String, u32)]) -> String {
    match choice.split_first() {
        None => names[r as usize].clone(),
        Some(((p, m), rest)) => format!(
            "({p} ? {} : {})",
            pick_expr(names, r ^ m, rest),
            pick_expr(names, r, rest)
        ),
    }
}

/// The statements of a helper body for `plan` (one per line).
pub fn body(name: &str, plan: &Plan) -> Result<Vec<String>, EmitError> {
    let mut out = vec![
        "const unsigned lane = threadIdx.x & 31u;".to_string(),
        "const unsigned warp = threadIdx.x >> 5;".to_string(),
        "(void)lane;".to_string(),
        "(void)warp;".to_string(),
    ];
    // 8-bit elements that the plan packs into words: read and write the
    // caller's arrays as natural 32-bit words (`memcpy`, four elements per
    // word, lowest index in the lowest byte). NVVM then keeps the caller's
    // arrays in 32-bit registers too, loop-carried ones included, instead of
    // one register per byte (measured in `../shared/tools/h2h` on an H100,
    // `results/h2h_registers.md`: `mma3_to_dot_fp8`, 64 bytes per thread,
    // 208 -> 168 registers, 1.14x -> 1.00x Triton's time; with the words
    // built by `prmt` below, 0.65x). Only from [`PUN_MIN_ELEMS`] elements.
    let pun = word_pun(plan);
    // With natural words: where each register's byte lives (a word's
    // expression and its byte), while it is a byte of a word, so that `Pack`
    // and the final store build words by `prmt` programs straight from the
    // words the bytes sit in (`prmt_program`: one `prmt` for bytes from two
    // words) rather than by shifts and ORs of extracted bytes, which NVVM
    // turned into about twice the instructions (`results/h2h_registers.md`).
    let mut origin: Vec<Option<Piece<String>>> = if pun {
        (0..plan.src_regs)
            .map(|i| {
                Some(Piece {
                    key: format!("src_w[{}]", i / 4),
                    slot: i % 4,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut temps = 0usize;
    let mut names: Vec<String> = if pun {
        out.push(format!(
            "unsigned src_w[{}]; memcpy(src_w, src, sizeof(src_w));",
            plan.src_regs / 4
        ));
        (0..plan.src_regs)
            .map(|i| match i % 4 {
                0 => format!("detail::from_u32<T>(src_w[{}])", i / 4),
                k => format!("detail::from_u32<T>(src_w[{}] >> {}u)", i / 4, 8 * k),
            })
            .collect()
    } else {
        (0..plan.src_regs).map(|i| format!("src[{i}]")).collect()
    };
    let mut preds: BTreeSet<u32> = BTreeSet::new();
    let mut smem_decl = false;
    // Between a Pack and an Unpack the registers are 32-bit words.
    let mut in_words = false;
    // With natural words: the word selects of the plan (`w = p ? a : b`, by
    // name), which the destination words may fold ([`select_folded_words`]).
    let mut sel_def: SelDefs = BTreeMap::new();
    // With natural words: the plan's words that are one `prmt` of natural
    // words (`(a, b, selector)`), which a select of two of them folds into.
    let mut pack_def: BTreeMap<String, PrmtDef> = BTreeMap::new();
    // Lane-dependent `prmt` selectors declared so far: (mask, if set, if clear).
    let mut selectors: Vec<(u32, u32, u32)> = Vec::new();
    // Names whose definitions a fold may have left unread.
    let mut folded: Vec<String> = Vec::new();
    for (si, st) in plan.stages.iter().enumerate() {
        if in_words {
            if let Stage::Unpack { width, map } = st {
                if pun {
                    origin = map
                        .iter()
                        .map(|&(w, slot)| {
                            (*width == 8).then(|| Piece {
                                key: names[w as usize].clone(),
                                slot,
                            })
                        })
                        .collect();
                }
                names = map
                    .iter()
                    .map(|&(w, slot)| {
                        let w = &names[w as usize];
                        if slot == 0 {
                            format!("detail::from_u32<T>({w})")
                        } else {
                            format!("detail::from_u32<T>({w} >> {}u)", slot * width)
                        }
                    })
                    .collect();
                in_words = false;
            } else {
                let before = if pun { names.clone() } else { Vec::new() };
                names = word_stage(&mut out, &mut preds, si, st, names).map_err(|kind| {
                    EmitError::Unsupported {
                        name: name.into(),
                        stage: si,
                        kind,
                    }
                })?;
                if let (true, Stage::Select { entries }) = (pun, st) {
                    for (e, v) in entries.iter().zip(&names) {
                        if e.if_set == e.if_clear {
                            continue;
                        }
                        let (a, b) = (&before[e.if_set as usize], &before[e.if_clear as usize]);
                        if let (Some(da), Some(db)) = (pack_def.get(a), pack_def.get(b)) {
                            let head = format!("const unsigned {v} = ");
                            let at = out.iter().position(|l| l.starts_with(&head));
                            // a new selector is declared just before its first use
                            let mut decl = Vec::new();
                            if let (Some(i), Some(line)) = (
                                at,
                                fold_select_of_prmts(
                                    &mut decl,
                                    &mut selectors,
                                    v,
                                    e.lane_mask,
                                    da,
                                    db,
                                ),
                            ) {
                                out[i] = line;
                                out.splice(i..i, decl);
                                folded.extend([a.clone(), b.clone()]);
                                continue;
                            }
                        }
                        sel_def.insert(v.clone(), (e.lane_mask, a.clone(), b.clone()));
                    }
                }
            }
            continue;
        }
        if pun && !matches!(st, Stage::RegRename { .. } | Stage::Pack { .. }) {
            // an element-level stage: its registers are no longer bytes of
            // known words (the final store falls back to shifts and ORs)
            origin.clear();
        }
        match st {
            Stage::RegRename { map } => {
                names = map.iter().map(|&i| names[i as usize].clone()).collect();
                if pun && !origin.is_empty() {
                    origin = map.iter().map(|&i| origin[i as usize].clone()).collect();
                }
            }
            Stage::Pack { width: 8, groups }
                if pun
                    && !origin.is_empty()
                    && groups
                        .iter()
                        .flatten()
                        .all(|&r| origin[r as usize].is_some()) =>
            {
                let words: Vec<Vec<Piece<String>>> = groups
                    .iter()
                    .map(|g| {
                        g.iter()
                            .map(|&r| origin[r as usize].clone().expect("checked above"))
                            .collect()
                    })
                    .collect();
                let (exprs, steps) = prmt_program_steps(&mut out, &mut temps, &words, 8);
                names = Vec::with_capacity(exprs.len());
                for (gi, e) in exprs.into_iter().enumerate() {
                    let v = format!("k{si}_{gi}");
                    out.push(format!("const unsigned {v} = {e};"));
                    // one prmt of natural words, or a natural word as it is
                    match steps.get(&e) {
                        Some(d) if d.0.starts_with("src_w[") && d.1.starts_with("src_w[") => {
                            pack_def.insert(v.clone(), d.clone());
                        }
                        None if e.starts_with("src_w[") => {
                            pack_def.insert(v.clone(), (e.clone(), e.clone(), 0x3210));
                        }
                        _ => {}
                    }
                    names.push(v);
                }
                in_words = true;
            }
            Stage::Pack { width, groups } => {
                // Shifts and ORs of the zero-extended elements, not a
                // `__byte_perm` network: ptxas emits the same PRMT/LOP3 for
                // them, and NVVM can see through them, so an `Unpack` of one
                // helper, element-wise arithmetic, and the `Pack` of the next
                // fold into word operations (measured with nvcc 13.0 on
                // sm_90: unpack, `^= 1` per byte, pack became one
                // `LOP3 ^ 0x01010101` per word; with `__byte_perm` it stayed
                // 3 PRMT + 4 LOP3 per word).
                let mut next = Vec::with_capacity(groups.len());
                for (gi, g) in groups.iter().enumerate() {
                    let vals: Vec<String> = g.iter().map(|&r| names[r as usize].clone()).collect();
                    let word = pack_words(&vals, *width).remove(0);
                    let v = format!("k{si}_{gi}");
                    out.push(format!("const unsigned {v} = {word};"));
                    next.push(v);
                }
                names = next;
                in_words = true;
            }
            Stage::Select { .. } | Stage::Shuffle { .. } => {
                names = reg_stage(&mut out, &mut preds, si, st, names, false).map_err(|kind| {
                    EmitError::Unsupported {
                        name: name.into(),
                        stage: si,
                        kind,
                    }
                })?;
            }
            Stage::SmemStore { access } => {
                let addrs = stage_addrs(&mut out, &mut smem_decl, si, access);
                let choice = lane_choice(&mut out, si, access);
                for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
                    let vals: Vec<String> = inst
                        .regs
                        .iter()
                        .enumerate()
                        .map(|(e, &r)| {
                            if choice.is_empty() {
                                return names[r as usize].clone();
                            }
                            let v = format!("c{si}_{ii}_{e}");
                            let pick = pick_expr(&names, r, &choice);
                            out.push(format!("const T {v} = {pick};"));
                            v
                        })
                        .collect();
                    let words = pack_words(&vals, access.width);
                    out.push(store_stmt(access, &addr, &words));
                }
            }
            Stage::Barrier { scope } => out.push(match scope {
                BarrierScope::Cta => "__syncthreads();".into(),
                BarrierScope::Warp => "__syncwarp();".into(),
            }),
            Stage::SmemLoad { access } => {
                let addrs = stage_addrs(&mut out, &mut smem_decl, si, access);
                let mut next = Vec::new();
                for (ii, (inst, addr)) in access.insts.iter().zip(addrs).enumerate() {
                    let words = load_words(&mut out, access, &addr, si, ii);
                    for (e, v) in unpack_words(&words, access.width, inst.regs.len())
                        .into_iter()
                        .enumerate()
                    {
                        let n = format!("s{si}_{ii}_{e}");
                        out.push(format!("const T {n} = {v};"));
                        next.push(n);
                    }
                }
                names.extend(next);
            }
            other => {
                return Err(EmitError::Unsupported {
                    name: name.into(),
                    stage: si,
                    kind: other.name(),
                });
            }
        }
    }
    if pun {
        let words = if origin.len() == names.len() && origin.iter().all(Option::is_some) {
            let pieces: Vec<Vec<Piece<String>>> = origin
                .chunks(4)
                .map(|c| {
                    c.iter()
                        .map(|o| o.clone().expect("checked above"))
                        .collect()
                })
                .collect();
            select_folded_words(&mut out, &mut temps, &mut selectors, &pieces, &sel_def)
        } else {
            pack_words(&names, 8)
        };
        out.push(format!("unsigned dst_w[{}];", plan.dst_regs / 4));
        for (k, w) in words.iter().enumerate() {
            out.push(format!("dst_w[{k}] = {w};"));
        }
        out.push("memcpy(dst, dst_w, sizeof(dst_w));".into());
        folded.extend(sel_def.keys().cloned());
        drop_unread(&mut out, &folded);
    } else {
        for (j, n) in names.iter().enumerate() {
            out.push(format!("dst[{j}] = {n};"));
        }
    }
    Ok(out)
}

/// Word selects of a plan by the name of their result: `(lane mask, word if
/// the lane predicate is set, word if clear)`.
type SelDefs = BTreeMap<String, (u32, String, String)>;

/// The destination words of the punned element form (8-bit slots), each
/// from the bytes `words[j]` names. A word whose bytes come from selects on
/// one lane predicate `p{m}` (and plain words) and, for either value of the
/// predicate, from at most two words is one `prmt` of those words with a
/// lane-dependent selector `p{m} ? s1 : s0` (computed once per distinct
/// pair): the select folds into the byte permute, as in Triton's
/// `prmt`-based transpositions (PRs 7809/7933/9713,
/// `getTranspositionSelectors`). On `mma3_to_dot_fp8` that turns the 16
/// selects after the shuffle and the 16 `prmt` that build the destination
/// words into 16 `prmt`. Other words go through [`prmt_program`]; a word
/// that is one select unchanged stays that select.
fn select_folded_words(
    out: &mut Vec<String>,
    temps: &mut usize,
    selectors: &mut Vec<(u32, u32, u32)>,
    words: &[Vec<Piece<String>>],
    sel_def: &SelDefs,
) -> Vec<String> {
    let mut result: Vec<Option<String>> = vec![None; words.len()];
    for (j, w) in words.iter().enumerate() {
        let masks: BTreeSet<u32> = w
            .iter()
            .filter_map(|p| sel_def.get(&p.key).map(|d| d.0))
            .collect();
        let whole = w.iter().all(|p| p.key == w[0].key)
            && w.iter().enumerate().all(|(i, p)| p.slot == i as u32);
        if masks.len() != 1 || whole || w.len() != 4 {
            continue;
        }
        let m = *masks.iter().next().expect("one mask");
        let resolve = |p: &Piece<String>, set: bool| -> String {
            match sel_def.get(&p.key) {
                Some((_, a, b)) => if set { a } else { b }.clone(),
                None => p.key.clone(),
            }
        };
        let mut ops: Vec<String> = Vec::new();
        for set in [true, false] {
            for p in w {
                let k = resolve(p, set);
                if !ops.contains(&k) {
                    ops.push(k);
                }
            }
        }
        if ops.len() > 2 {
            continue;
        }
        let selector = |set: bool| -> u32 {
            w.iter().enumerate().fold(0, |acc, (i, p)| {
                let k = resolve(p, set);
                let o = ops.iter().position(|x| *x == k).expect("an operand") as u32;
                acc | (4 * o + p.slot) << (4 * i)
            })
        };
        let (s1, s0) = (selector(true), selector(false));
        let sel = lane_selector(out, selectors, m, s1, s0);
        let t = format!("q{}", *temps);
        *temps += 1;
        let b = ops.get(1).unwrap_or(&ops[0]);
        out.push(format!(
            "const unsigned {t} = __byte_perm({}, {b}, {sel});",
            ops[0]
        ));
        result[j] = Some(t);
    }
    let rest: Vec<usize> = (0..words.len()).filter(|&j| result[j].is_none()).collect();
    let rest_words: Vec<Vec<Piece<String>>> = rest.iter().map(|&j| words[j].clone()).collect();
    for (j, n) in rest
        .into_iter()
        .zip(prmt_program(out, temps, &rest_words, 8))
    {
        result[j] = Some(n);
    }
    result
        .into_iter()
        .map(|x| x.expect("every word built"))
        .collect()
}

/// The `prmt` selector `p{m} ? s1 : s0` (a constant when they agree), as
/// a name declared once per distinct triple.
fn lane_selector(
    out: &mut Vec<String>,
    selectors: &mut Vec<(u32, u32, u32)>,
    m: u32,
    s1: u32,
    s0: u32,
) -> String {
    if s1 == s0 {
        return format!("{s1:#06x}u");
    }
    let key = (m, s1, s0);
    let n = match selectors.iter().position(|x| *x == key) {
        Some(n) => n,
        None => {
            out.push(format!(
                "const unsigned ps{} = p{m} ? {s1:#06x}u : {s0:#06x}u;",
                selectors.len()
            ));
            selectors.push(key);
            selectors.len() - 1
        }
    };
    format!("ps{n}")
}

/// `v = p{m} ? prmt(da) : prmt(db)` as one `prmt` with a lane-dependent
/// selector, when the two byte permutes read at most two words between them
/// (the select before a shuffle whose two words are byte permutes of the
/// same natural words, as on the reverse of `mma3_to_dot_fp8`). Returns the
/// line that defines `v`, or `None`.
fn fold_select_of_prmts(
    out: &mut Vec<String>,
    selectors: &mut Vec<(u32, u32, u32)>,
    v: &str,
    m: u32,
    da: &PrmtDef,
    db: &PrmtDef,
) -> Option<String> {
    let mut ops: Vec<&String> = Vec::new();
    for w in [&da.0, &da.1, &db.0, &db.1] {
        if !ops.contains(&w) {
            ops.push(w);
        }
    }
    if ops.len() > 2 {
        return None;
    }
    let remap = |d: &PrmtDef| -> Option<u32> {
        (0..4).try_fold(0u32, |acc, i| {
            let n = d.2 >> (4 * i) & 0xf;
            let (w, byte) = match n {
                0..=3 => (&d.0, n),
                4..=7 => (&d.1, n - 4),
                _ => return None,
            };
            let o = ops.iter().position(|x| *x == w)? as u32;
            Some(acc | (4 * o + byte) << (4 * i))
        })
    };
    let (s1, s0) = (remap(da)?, remap(db)?);
    let sel = lane_selector(out, selectors, m, s1, s0);
    Some(format!(
        "const unsigned {v} = __byte_perm({}, {}, {sel});",
        ops[0],
        ops.get(1).unwrap_or(&ops[0])
    ))
}

/// Remove the definitions (`const unsigned name = ...;`) of the names in
/// `names` that no other line of `out` reads, repeatedly (a removed line
/// may have been the last reader of another), so the source states what
/// runs after [`select_folded_words`] and [`fold_select_of_prmts`].
fn drop_unread(out: &mut Vec<String>, names: &[String]) {
    let reads = |name: &str, line: &str| {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|t| *t == name)
            .count()
    };
    let def_of = |l: &str| -> Option<String> {
        let r = l.strip_prefix("const unsigned ")?;
        let (n, _) = r.split_once(" = ")?;
        Some(n.to_string())
    };
    let mut cands: BTreeSet<String> = names.iter().cloned().collect();
    loop {
        let dead: BTreeSet<String> = cands
            .iter()
            .filter(|v| out.iter().map(|l| reads(v, l)).sum::<usize>() == 1)
            .filter(|v| out.iter().any(|l| def_of(l).as_deref() == Some(v.as_str())))
            .cloned()
            .collect();
        if dead.is_empty() {
            return;
        }
        // what the dead lines read may die next
        let mut next: BTreeSet<String> = BTreeSet::new();
        out.retain(|l| match def_of(l) {
            Some(n) if dead.contains(&n) => {
                let rhs = l.split_once(" = ").map(|x| x.1).unwrap_or("");
                next.extend(
                    rhs.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|t| t.starts_with('q') || t.starts_with('k') || t.starts_with('w'))
                        .map(str::to_string),
                );
                false
            }
            _ => true,
        });
        cands = next;
    }
}

/// Whether [`body`] reads and writes the caller's arrays as natural 32-bit
/// words: a plan that packs 8-bit elements into words (a `Pack` stage of
/// width 8), with at least [`PUN_MIN_ELEMS`] elements (whole words) on both
/// sides.
fn word_pun(plan: &Plan) -> bool {
    let first_pack = plan.stages.iter().find_map(|s| match s {
        Stage::Pack { width, .. } => Some(*width),
        _ => None,
    });
    first_pack == Some(8)
        && plan.src_regs % 4 == 0
        && plan.dst_regs % 4 == 0
        && plan.src_regs.min(plan.dst_regs) >= PUN_MIN_ELEMS
}

/// Elements per thread from which [`body`] reads and writes 8-bit arrays as
/// words. Measured in `../shared/tools/h2h` on an H100
/// (`results/h2h_registers.md`), with the words built by `prmt` programs
/// straight from the natural words: 64 bytes per thread (`mma3_to_dot_fp8`)
/// 1.003x -> 0.651x Triton's time, 16 bytes (`mma2_acc_to_dot_a_i8`)
/// 0.924x -> 0.623x, but 4 bytes (`mma2_to_blocked_i8`) 0.71x -> 0.74x (there
/// NVVM already folds the caller's per-byte work into the words).
pub const PUN_MIN_ELEMS: u32 = 16;

fn layout_lines(l: &synth::LinearLayout) -> Vec<String> {
    l.to_string()
        .lines()
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
        .collect()
}

/// Emit the helper for one planned conversion. A plan made for one element
/// width (shared-memory plans pack elements) gets a `static_assert` on
/// `sizeof(T)`; see [`emit_helper_widths`] for a helper that takes any width.
pub fn emit_helper(conv: &Conversion, chosen: &Chosen) -> Result<EmittedHelper, EmitError> {
    let bits = synth::search::plan_width(conv);
    emit_helper_widths(conv, &[(bits, chosen.clone())])
}

/// Emit one helper templated on its element type `T` from a plan per element
/// width (`bits`, plan): the body dispatches on `sizeof(T)` with `if
/// constexpr` where the widths' plans differ. The header comment describes
/// the plan for the conversion's own element width (else the first given).
pub fn emit_helper_widths(
    conv: &Conversion,
    variants: &[(u32, Chosen)],
) -> Result<EmittedHelper, EmitError> {
    emit_helper_widths_as(conv, variants, &ident_for(&conv.name))
}

/// [`emit_helper_widths`] with the helper named `ident` (a C identifier)
/// instead of [`ident_for`] the conversion's name; the body is the same.
pub fn emit_helper_widths_as(
    conv: &Conversion,
    variants: &[(u32, Chosen)],
    ident: &str,
) -> Result<EmittedHelper, EmitError> {
    let own_bits = synth::search::plan_width(conv);
    let chosen = &variants
        .iter()
        .find(|(b, _)| *b == own_bits)
        .unwrap_or(&variants[0])
        .1;
    let plan = &chosen.plan;
    let ident = ident.to_string();
    let stages: Vec<String> = plan.stages.iter().map(|s| s.name().to_string()).collect();
    let shape: Vec<String> = conv.shape.iter().map(|d| d.to_string()).collect();
    // Bodies per width, merged where identical.
    let mut groups: Vec<(Vec<u32>, Vec<String>, bool)> = Vec::new();
    // What the element form costs beyond its plan, per width.
    let mut form_notes: Vec<String> = Vec::new();
    for (bits, ch) in variants {
        let b = body(&conv.name, &ch.plan)?;
        if word_pun(&ch.plan) {
            let count = |pat: &str| b.iter().filter(|l| l.contains(pat)).count();
            form_notes.push(format!(
                "{bits}-bit elements in this form: the arrays move as natural 32-bit words (memcpy); prmt build the plan's words from them and the destination words from the plan's (a select that feeds one folds into a lane-dependent selector): predicted per thread {} shfl + {} sel + {} prmt",
                count("detail::shfl_"),
                count(" ? "),
                count("__byte_perm(")
            ));
        }
        let specific = ch.plan.elem_bits != 0;
        match groups.iter_mut().find(|g| g.1 == b) {
            Some(g) => {
                g.0.push(*bits);
                g.2 |= specific;
            }
            None => groups.push((vec![*bits], b, specific)),
        }
    }
    let mut lines = Vec::new();
    if groups.len() == 1 && !groups[0].2 {
        lines = groups.pop().unwrap().1;
    } else {
        for (gi, (bits, b, _)) in groups.iter().enumerate() {
            let cond: Vec<String> = bits
                .iter()
                .map(|b| format!("sizeof(T) == {}", b / 8))
                .collect();
            lines.push(format!(
                "{}if constexpr ({}) {{",
                if gi == 0 { "" } else { "} else " },
                cond.join(" || ")
            ));
            lines.extend(b.iter().map(|l| format!("  {l}")));
        }
        let all: Vec<String> = variants.iter().map(|(b, _)| (b / 8).to_string()).collect();
        lines.push("} else {".into());
        lines.push(format!(
            "  static_assert(sizeof(T) == 0, \"{ident}: planned for {}-byte elements only\");",
            all.join("/")
        ));
        lines.push("}".into());
    }
    let smem_sizes: Vec<(u32, u64)> = variants
        .iter()
        .filter(|(_, c)| c.plan.smem_elems > 0)
        .map(|(b, c)| (*b, c.plan.smem_elems))
        .collect();
    let smem_elems = smem_sizes.iter().map(|x| x.1).max().unwrap_or(0);
    let smem_expr = if smem_sizes.iter().all(|x| x.1 == smem_elems) {
        format!("{smem_elems}u * unsigned(sizeof(T))")
    } else {
        let mut e = String::from("0u");
        for (b, n) in smem_sizes.iter().rev() {
            e = format!("sizeof(T) == {} ? {}u : {e}", b / 8, n * (*b as u64 / 8));
        }
        e
    };
    let others: Vec<String> = variants
        .iter()
        .filter(|(b, c)| *b != own_bits && c.plan.strategy != plan.strategy)
        .map(|(b, c)| {
            format!(
                "{}-bit elements: {} via {} ({})",
                b,
                c.plan.kind.as_str(),
                c.plan.strategy,
                c.cost
            )
        })
        .collect();
    let (wf, min_wf) = plan.wavefronts_per_warp();
    let smem_line = if plan.smem_elems > 0 {
        format!(
            "shared scratch {} bytes ({} elements), {} round(s); per CTA {} wavefronts, minimum {}, {} bank conflicts; per warp {} of at least {}",
            plan.smem_elems * (own_bits as u64 / 8),
            plan.smem_elems,
            plan.rounds,
            chosen.sim.smem_wavefronts,
            chosen.sim.min_wavefronts,
            chosen.sim.bank_conflicts,
            wf,
            min_wf
        )
    } else {
        String::new()
    };
    let lb = synth::plan::lower_bound(
        &chosen.analysis,
        own_bits,
        &synth::search::Weights::default(),
    );
    let bound_line = if lb.score > 0.0 {
        format!(
            "lower bound ({}-bit elements): {}{} shared-memory accesses per thread and {} wavefronts per warp for a round trip",
            own_bits,
            lb.shfl_words
                .map(|n| format!("{n} shuffled 32-bit words per thread, or "))
                .unwrap_or_default(),
            lb.smem_accesses,
            lb.smem_wavefronts
        )
    } else {
        String::new()
    };
    // Packed forms for 16- and 8-bit elements, from those widths' plans.
    let mut packed = Vec::new();
    let mut packed_bits = Vec::new();
    for bits in [16u32, 8] {
        let Some((_, ch)) = variants.iter().find(|(b, _)| *b == bits) else {
            continue;
        };
        if let Some(mut lines) = body_packed(&conv.name, &ch.plan, bits)? {
            let (ps, pd) = synth::plan::pack::plan_maps(&ch.plan, bits);
            // same signature as the templated helper: `smem` whenever any width uses it
            if smem_elems > 0 && ch.plan.smem_elems == 0 {
                lines.insert(0, "(void)smem;".into());
            }
            let p = 32 / bits;
            let cost = ch.plan.cost_for_width(bits);
            packed.push(context! {
                bits => bits,
                per => p,
                src_words => ch.plan.src_regs / p,
                dst_words => ch.plan.dst_regs / p,
                smem => smem_elems > 0,
                ctype => if bits == 8 { "unsigned char" } else { "unsigned short" },
                cost => cost.to_string(),
                strategy => ch.plan.strategy.clone(),
                src_pack => pack_doc(&ps),
                dst_pack => pack_doc(&pd),
                body => lines,
            });
            packed_bits.push(PackedForm {
                bits,
                src: ps,
                dst: pd,
            });
        }
    }
    let code = env().get_template("helper")?.render(context! {
        packed => packed,
        bound_line => bound_line,
        ident => ident,
        name => conv.name,
        shape => shape.join("x"),
        elem => conv.elem.name,
        num_warps => conv.num_warps,
        src_text => conv.src_text,
        dst_text => conv.dst_text,
        src_ll => layout_lines(&conv.src),
        dst_ll => layout_lines(&conv.dst),
        kind => plan.kind.as_str(),
        strategy => plan.strategy,
        notes => plan.notes,
        others => others,
        form_notes => form_notes,
        stages => stages.join(" -> "),
        cost => chosen.cost.to_string(),
        smem => smem_elems > 0,
        smem_line => smem_line,
        smem_expr => smem_expr,
        src_regs => plan.src_regs,
        dst_regs => plan.dst_regs,
        body => lines,
    })?;
    Ok(EmittedHelper {
        ident,
        name: conv.name.clone(),
        src_regs: plan.src_regs,
        dst_regs: plan.dst_regs,
        smem_elems,
        threads: 32 * conv.num_warps,
        packed: packed_bits,
        code,
    })
}

/// The whole header: preamble plus every helper, in order.
///
/// Headers compose: any number of them may be included in one translation
/// unit. The shared `warpforge::detail` functions are defined once, under
/// the include guard `WARPFORGE_DETAIL_H` (whose value identifies their
/// text: headers with different detail code stop with `#error`), and each
/// helper under `WARPFORGE_HELPER_<ident>` (the hash of its code): the same
/// helper from two headers is defined once, two different helpers with one
/// name stop with an `#error` that says to emit one with another prefix.
pub fn emit_header(helpers: &[EmittedHelper], origin: &str) -> Result<String, EmitError> {
    let guarded: Vec<minijinja::Value> = helpers
        .iter()
        .map(|h| {
            context! {
                ident => h.ident,
                hash => format!("0x{:012x}", stable_hash(&[&h.code]) >> 16),
                code => h.code,
            }
        })
        .collect();
    Ok(env().get_template("header")?.render(context! {
        version => env!("CARGO_PKG_VERSION"),
        origin => origin,
        detail_hash => format!("0x{:012x}", stable_hash(&[HEADER]) >> 16),
        helpers => guarded,
    })?)
}

/// The verification kernel wrapping `h` for element type `ctype`, named
/// `kernel` (`extern "C"`, arguments `(const T* in, T* out)`).
pub fn emit_test_kernel(h: &EmittedHelper, ctype: &str, kernel: &str) -> Result<String, EmitError> {
    Ok(env().get_template("test_kernel")?.render(context! {
        ident => h.ident,
        ctype => ctype,
        kernel => kernel,
        threads => h.threads,
        src_regs => h.src_regs,
        dst_regs => h.dst_regs,
        smem => h.smem_elems > 0,
    })?)
}

/// The verification kernel of `h`'s packed form for `bits` (8 or 16; see
/// [`body_packed`]): same arguments and memory layout as
/// [`emit_test_kernel`] (element `i` of thread `t` at `in[i * nt + t]`); it
/// packs on load and unpacks on store. `None` when `h` has no packed form
/// for `bits`.
pub fn emit_test_kernel_packed(
    h: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
) -> Result<Option<String>, EmitError> {
    let Some(pf) = h.packed_form(bits) else {
        return Ok(None);
    };
    let per = 32 / bits;
    Ok(Some(env().get_template("test_kernel_packed")?.render(
        context! {
            src_pack => word_regs(&pf.src, h.src_regs, bits),
            dst_pack => word_regs(&pf.dst, h.dst_regs, bits),
            ident => h.ident,
            ctype => ctype,
            kernel => kernel,
            threads => h.threads,
            bits => bits,
            per => per,
            mask => format!("{:#x}", (1u64 << bits) - 1),
            src_words => h.src_regs / per,
            dst_words => h.dst_regs / per,
            smem => h.smem_elems > 0,
        },
    )?))
}

/// [`emit_bench_kernel`] on the packed forms for `bits` (8 or 16) of both
/// helpers: the tile is packed once on load, the loop moves words (the xor
/// flips bit 0 of every element) and the result is unpacked on store; same
/// arguments, memory layout and check. `None` when either helper has no
/// packed form for `bits`.
pub fn emit_bench_kernel_packed(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
) -> Result<Option<String>, EmitError> {
    let (Some(pf), Some(pb)) = (fwd.packed_form(bits), bwd.packed_form(bits)) else {
        return Ok(None);
    };
    if pf.dst != pb.src || pf.src != pb.dst {
        return Err(EmitError::PackMismatch {
            fwd: fwd.name.clone(),
            bwd: bwd.name.clone(),
        });
    }
    let per = 32 / bits;
    let xor: u32 = (0..per).fold(0, |x, k| x | 1 << (k * bits));
    Ok(Some(env().get_template("bench_kernel_packed")?.render(
        context! {
            src_pack => word_regs(&pf.src, fwd.src_regs, bits),
            iters_doc => format!("{} -> xor 1 -> {}", fwd.name, bwd.name),
            kernel => kernel,
            ctype => ctype,
            threads => fwd.threads,
            bits => bits,
            per => per,
            mask => format!("{:#x}", (1u64 << bits) - 1),
            xor => format!("{xor:#x}"),
            src_words => fwd.src_regs / per,
            dst_words => fwd.dst_regs / per,
            fwd => fwd.ident,
            bwd => bwd.ident,
            fwd_smem => fwd.smem_elems > 0,
            bwd_smem => bwd.smem_elems > 0,
        },
    )?))
}

/// The timing kernel of DESIGN.md section 7, shaped like Triton's own loop
/// (`warpforge bench` times Triton's lowering in the same loop): load a tile
/// in the source layout (register `i` of global thread `t` at `in[i * nt +
/// t]`), then `iters` times convert it with `fwd`, xor every element with 1
/// and convert back with `bwd`; store. Both helpers share one scratch region
/// of `max(fwd, bwd)` bytes with a `__syncthreads()` before each call that
/// uses it, as Triton's barrier insertion does. Arguments `(const T* in, T*
/// out, int iters)`; `out` must equal `in ^ (iters & 1)` element-wise, which
/// makes every timing run a proof of the round trip too.
pub fn emit_bench_kernel(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    ctype: &str,
    kernel: &str,
) -> Result<String, EmitError> {
    Ok(env().get_template("bench_kernel")?.render(context! {
        iters_doc => format!("{} -> xor 1 -> {}", fwd.name, bwd.name),
        kernel => kernel,
        ctype => ctype,
        threads => fwd.threads,
        src_regs => fwd.src_regs,
        dst_regs => fwd.dst_regs,
        fwd => fwd.ident,
        bwd => bwd.ident,
        fwd_smem => fwd.smem_elems > 0,
        bwd_smem => bwd.smem_elems > 0,
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_expr_groups_shifts() {
        assert_eq!(linear_expr("lane", &[1, 2, 4, 8, 16]), "(lane & 31u)");
        assert_eq!(
            linear_expr("lane", &[2, 1, 4, 8, 16]),
            "((lane & 2u) >> 1) ^ (lane & 28u) ^ ((lane & 1u) << 1)"
        );
        assert_eq!(linear_expr("lane", &[0, 0]), "0u");
        assert_eq!(linear_expr("x", &[3]), "((0u - ((x >> 0) & 1u)) & 3u)");
    }

    #[test]
    fn ident_is_a_c_identifier() {
        assert_eq!(ident_for("attn:104"), "wf_attn_104");
        assert_eq!(ident_for("a.b-c:1"), "wf_a_b_c_1");
    }
}
