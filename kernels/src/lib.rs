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
use std::collections::BTreeSet;
use synth::plan::{AddrMap, BarrierScope, Conversion, Plan, ShflMode, Stage};
use synth::search::Chosen;

const HEADER: &str = include_str!("../templates/header.cuh.j2");
const HELPER: &str = include_str!("../templates/helper.cuh.j2");
const TEST_KERNEL: &str = include_str!("../templates/test_kernel.cu.j2");
const BENCH_KERNEL: &str = include_str!("../templates/bench_kernel.cu.j2");

/// Errors of emission.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("{name}: stage {stage} ({kind}) has no CUDA emission yet (no strategy produces it)")]
    Unsupported {
        name: String,
        stage: usize,
        kind: &'static str,
    },
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
    /// The helper's source text.
    pub code: String,
}

/// A C identifier for a conversion name: `attn:104` -> `wf_attn_104`.
pub fn ident_for(name: &str) -> String {
    let mut s = String::from("wf_");
    for c in name.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    s
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

fn addr_base(name: &str, a: &AddrMap) -> String {
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

fn addr_at(base: &str, a: &AddrMap, off: u32) -> String {
    if off == 0 {
        base.to_string()
    } else if off & a.base_bits() == 0 {
        format!("{base} + {off}u")
    } else {
        format!("{base} ^ {off}u")
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
    let mut names: Vec<String> = (0..plan.src_regs).map(|i| format!("src[{i}]")).collect();
    let mut preds: BTreeSet<u32> = BTreeSet::new();
    let mut smem_decl = false;
    for (si, st) in plan.stages.iter().enumerate() {
        match st {
            Stage::RegRename { map } => {
                names = map.iter().map(|&i| names[i as usize].clone()).collect();
            }
            Stage::Select { entries } => {
                let mut next = Vec::with_capacity(entries.len());
                for (k, e) in entries.iter().enumerate() {
                    if e.if_set == e.if_clear {
                        next.push(names[e.if_set as usize].clone());
                        continue;
                    }
                    if preds.insert(e.lane_mask) {
                        let cond = if e.lane_mask.count_ones() == 1 {
                            format!("((lane >> {}) & 1u) != 0u", e.lane_mask.trailing_zeros())
                        } else {
                            format!("(__popc(lane & {}u) & 1) != 0", e.lane_mask)
                        };
                        out.push(format!("const bool p{} = {cond};", e.lane_mask));
                    }
                    let v = format!("s{si}_{k}");
                    out.push(format!(
                        "const T {v} = p{} ? {} : {};",
                        e.lane_mask, names[e.if_set as usize], names[e.if_clear as usize]
                    ));
                    next.push(v);
                }
                names = next;
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
                    let v = format!("s{si}_{k}");
                    let call = match mode {
                        ShflMode::Idx if c == 0 => format!("detail::shfl_idx({a}, sl{si})"),
                        ShflMode::Idx => format!("detail::shfl_idx({a}, sl{si} ^ {c}u)"),
                        ShflMode::Bfly => format!("detail::shfl_xor({a}, {c}u)"),
                        ShflMode::Up => format!("detail::shfl_up({a}, {c}u)"),
                        ShflMode::Down => format!("detail::shfl_down({a}, {c}u)"),
                    };
                    out.push(format!("const T {v} = {call};"));
                    next.push(v);
                }
                names = next;
            }
            Stage::SmemStore { regs, addr, .. } => {
                if !smem_decl {
                    out.push("T* const sm = static_cast<T*>(smem);".into());
                    smem_decl = true;
                }
                let base = format!("st{si}");
                out.push(addr_base(&base, addr));
                for (i, &r) in regs.iter().enumerate() {
                    out.push(format!(
                        "sm[{}] = {};",
                        addr_at(&base, addr, addr.reg[i]),
                        names[r as usize]
                    ));
                }
            }
            Stage::Barrier { scope } => out.push(match scope {
                BarrierScope::Cta => "__syncthreads();".into(),
                BarrierScope::Warp => "__syncwarp();".into(),
            }),
            Stage::SmemLoad { addr, .. } => {
                if !smem_decl {
                    out.push("T* const sm = static_cast<T*>(smem);".into());
                    smem_decl = true;
                }
                let base = format!("ld{si}");
                out.push(addr_base(&base, addr));
                let mut next = Vec::new();
                for (k, &off) in addr.reg.iter().enumerate() {
                    let v = format!("s{si}_{k}");
                    out.push(format!("const T {v} = sm[{}];", addr_at(&base, addr, off)));
                    next.push(v);
                }
                names = next;
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
    for (j, n) in names.iter().enumerate() {
        out.push(format!("dst[{j}] = {n};"));
    }
    Ok(out)
}

fn layout_lines(l: &synth::LinearLayout) -> Vec<String> {
    l.to_string()
        .lines()
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
        .collect()
}

/// Emit the helper for one planned conversion.
pub fn emit_helper(conv: &Conversion, chosen: &Chosen) -> Result<EmittedHelper, EmitError> {
    let plan = &chosen.plan;
    let ident = ident_for(&conv.name);
    let stages: Vec<String> = plan.stages.iter().map(|s| s.name().to_string()).collect();
    let shape: Vec<String> = conv.shape.iter().map(|d| d.to_string()).collect();
    let code = env().get_template("helper")?.render(context! {
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
        stages => stages.join(" -> "),
        cost => chosen.cost.to_string(),
        smem => plan.smem_elems > 0,
        smem_elems => plan.smem_elems,
        src_regs => plan.src_regs,
        dst_regs => plan.dst_regs,
        body => body(&conv.name, plan)?,
    })?;
    Ok(EmittedHelper {
        ident,
        name: conv.name.clone(),
        src_regs: plan.src_regs,
        dst_regs: plan.dst_regs,
        smem_elems: plan.smem_elems,
        threads: 32 * conv.num_warps,
        code,
    })
}

/// The whole header: preamble plus every helper, in order.
pub fn emit_header(helpers: &[EmittedHelper], origin: &str) -> Result<String, EmitError> {
    let codes: Vec<&str> = helpers.iter().map(|h| h.code.as_str()).collect();
    Ok(env().get_template("header")?.render(context! {
        version => env!("CARGO_PKG_VERSION"),
        origin => origin,
        helpers => codes,
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

/// Bytes of scratch the timing kernel gives the forward helper (16-byte
/// aligned); the backward helper's scratch follows.
pub fn fwd_scratch_bytes(fwd: &EmittedHelper, elem_bytes: u64) -> u64 {
    (fwd.smem_elems * elem_bytes).div_ceil(16) * 16
}

/// The timing kernel of DESIGN.md section 7: load a tile in the source
/// layout, then `iters` times convert it with `fwd`, add 1 to every element
/// and convert back with `bwd`; store. Arguments `(const T* in, T* out, int
/// iters)`; dynamic shared memory `fwd_scratch_bytes + bwd bytes`. `out` must
/// equal `in + iters` element-wise, which makes every timing run a proof too.
pub fn emit_bench_kernel(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    ctype: &str,
    elem_bytes: u64,
    kernel: &str,
) -> Result<String, EmitError> {
    Ok(env().get_template("bench_kernel")?.render(context! {
        iters_doc => format!("{} -> +1 -> {}", fwd.name, bwd.name),
        kernel => kernel,
        ctype => ctype,
        threads => fwd.threads,
        src_regs => fwd.src_regs,
        dst_regs => fwd.dst_regs,
        fwd => fwd.ident,
        bwd => bwd.ident,
        fwd_smem => fwd.smem_elems > 0,
        bwd_smem => bwd.smem_elems > 0,
        fwd_bytes => fwd_scratch_bytes(fwd, elem_bytes),
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
