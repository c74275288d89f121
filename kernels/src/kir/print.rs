//! The CUDA printer of the kernel IR: one line per statement (a few
//! statements print as two or three lines: the cluster rank and check,
//! `if constexpr` chains), nothing added that the interpreter does not read.

use super::{Body, Cond, Else, Expr, Lit, Stmt};
use synth::plan::BarrierScope;

/// The C text of an expression of `body`.
pub fn expr(body: &Body, e: &Expr) -> String {
    match e {
        Expr::V(v) => body.name(*v).to_string(),
        Expr::Lit(l) => lit(*l),
        Expr::Paren(e) => format!("({})", expr(body, e)),
        Expr::Bin(op, a, b) => format!("{} {} {}", expr(body, a), op.c_name(), expr(body, b)),
        Expr::Cond(c, a, b) => format!("{} ? {} : {}", expr(body, c), expr(body, a), expr(body, b)),
        Expr::Call(f, args) => format!("{}({})", f.c_name(), list(body, args)),
        Expr::CastU32(e) => format!("(unsigned){}", expr(body, e)),
        Expr::ThreadIdx => "threadIdx.x".into(),
        Expr::Smem => "smem".into(),
        Expr::SrcPtr(i) => format!("&src[{i}]"),
        Expr::DstPtr(i) => format!("&dst[{i}]"),
    }
}

/// A literal as C.
fn lit(l: Lit) -> String {
    match l {
        Lit::U(n) => format!("{n}u"),
        Lit::Int(n) => format!("{n}"),
        Lit::Sel(n) => format!("{n:#06x}u"),
        Lit::Hex(n) => format!("{n:#x}u"),
    }
}

/// Expressions joined by `", "`.
fn list(body: &Body, es: &[Expr]) -> String {
    es.iter()
        .map(|e| expr(body, e))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `ld/st.shared::cluster` type of a `bytes`-byte vector (`.u8`,
/// `.u16`, `.b32`, `.v2.b32`, `.v4.b32`) and its operands in 32-bit
/// registers numbered from `%first`: `%first` for one word, else
/// `{%first, ...}` (PTX ISA "Distributed Shared Memory").
pub(crate) fn dsmem_vector(bytes: u32, first: u32) -> (&'static str, String) {
    let ty = match bytes {
        1 => "u8",
        2 => "u16",
        4 => "b32",
        8 => "v2.b32",
        _ => "v4.b32",
    };
    let n = bytes.div_ceil(4);
    let regs: Vec<String> = (first..first + n).map(|i| format!("%{i}")).collect();
    let ops = if n == 1 {
        regs[0].clone()
    } else {
        format!("{{{}}}", regs.join(", "))
    };
    (ty, ops)
}

/// The lines of `stmt` appended to `out`.
pub fn stmt(body: &Body, s: &Stmt, out: &mut Vec<String>) {
    let n = |v: &super::Val| body.name(*v).to_string();
    match s {
        Stmt::Let { v, e } => out.push(format!(
            "const {} {} = {};",
            body.info(*v).ty.c_name(),
            n(v),
            expr(body, e)
        )),
        Stmt::Decl { vals } => out.push(format!(
            "unsigned {};",
            vals.iter().map(n).collect::<Vec<_>>().join(", ")
        )),
        Stmt::Array { name, vals } => out.push(format!("unsigned {name}[{}];", vals.len())),
        Stmt::ArrayInit { name, vals, init } => out.push(format!(
            "const unsigned {name}[{}] = {{{}}};",
            vals.len(),
            list(body, init)
        )),
        Stmt::Assign { v, e } => out.push(format!("{} = {};", n(v), expr(body, e))),
        Stmt::Void(e) => out.push(format!("(void){};", expr(body, e))),
        Stmt::Call { f, args } => out.push(format!("{}({});", f.c_name(), list(body, args))),
        Stmt::If { cond, then } => {
            let mut inner = Vec::new();
            stmt(body, then, &mut inner);
            out.push(format!("if ({}) {}", n(cond), inner.join(" ")));
        }
        Stmt::IfClear { masks, body: b } => {
            let terms: Vec<String> = masks
                .iter()
                .map(|(v, m)| format!("({} & {m}u)", n(v)))
                .collect();
            out.push(format!("if (({}) == 0u) {{", terms.join(" | ")));
            for s in b {
                stmt(body, s, out);
            }
            out.push("}".into());
        }
        Stmt::Dst { j, e } => out.push(format!("dst[{j}] = {};", expr(body, e))),
        Stmt::Barrier(BarrierScope::Cta) => out.push("__syncthreads();".into()),
        Stmt::Barrier(BarrierScope::Warp) => out.push("__syncwarp();".into()),
        Stmt::Barrier(BarrierScope::Named { id, threads }) => out.push(format!(
            "asm volatile(\"bar.sync {id}, {threads};\" ::: \"memory\");"
        )),
        Stmt::ClusterBarrier => out.push(
            "asm volatile(\"barrier.cluster.arrive.release.aligned;\" ::: \"memory\"); asm volatile(\"barrier.cluster.wait.acquire.aligned;\" ::: \"memory\");".into(),
        ),
        Stmt::ClusterRank { v } => {
            let r = n(v);
            out.push(format!("unsigned {r};"));
            out.push(format!(
                "asm(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"({r})); (void){r};"
            ));
        }
        Stmt::CheckClusterSize { ctas } => {
            out.push("#ifdef WARPFORGE_CHECK_CLUSTER".into());
            out.push(format!(
                "{{ unsigned n; asm(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(n)); if (n != {ctas}u) __trap(); }}"
            ));
            out.push("#endif".into());
        }
        Stmt::Mapa { v, addr, cta } => out.push(format!(
            "unsigned {ra}; asm(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"({ra}) : \"r\"({}), \"r\"({}));",
            expr(body, addr),
            expr(body, cta),
            ra = n(v)
        )),
        Stmt::LdCluster { outs, addr, bytes } => {
            let (ty, ops) = dsmem_vector(*bytes, 0);
            let o: Vec<String> = outs.iter().map(|w| format!("\"=r\"({})", n(w))).collect();
            out.push(format!(
                "asm volatile(\"ld.shared::cluster.{ty} {ops}, [%{}];\" : {} : \"r\"({}) : \"memory\");",
                outs.len(),
                o.join(", "),
                n(addr)
            ));
        }
        Stmt::StCluster { addr, words, bytes } => {
            let (ty, ops) = dsmem_vector(*bytes, 1);
            let args: Vec<String> = words
                .iter()
                .map(|w| format!(", \"r\"({})", expr(body, w)))
                .collect();
            out.push(format!(
                "asm volatile(\"st.shared::cluster.{ty} [%0], {ops};\" :: \"r\"({}){} : \"memory\");",
                n(addr),
                args.concat()
            ));
        }
        Stmt::TypedefT(bits) => out.push(format!(
            "typedef {} T;",
            if *bits == 8 {
                "unsigned char"
            } else {
                "unsigned short"
            }
        )),
        Stmt::CallPacked {
            callee,
            src,
            dst,
            smem,
            ..
        } => out.push(format!(
            "{callee}({src}, {dst}{});",
            if *smem { ", smem" } else { "" }
        )),
        Stmt::WordsChoice { auto } => out.push(format!(
            "constexpr words kW = kWords == words::automatic ? words::{auto} : kWords;"
        )),
        Stmt::IfConstexpr { arms, otherwise } => if_constexpr(body, arms, otherwise, out),
    }
}

/// The lines of an `if constexpr` chain: each arm indented, then the `else`.
fn if_constexpr(body: &Body, arms: &[(Cond, Vec<Stmt>)], otherwise: &Else, out: &mut Vec<String>) {
    for (i, (c, b)) in arms.iter().enumerate() {
        let c = match c {
            Cond::SizeofT(bytes) => bytes
                .iter()
                .map(|b| format!("sizeof(T) == {b}"))
                .collect::<Vec<_>>()
                .join(" || "),
            Cond::Words(w) => format!("kW == words::{w}"),
        };
        out.push(format!(
            "{}if constexpr ({c}) {{",
            if i == 0 { "" } else { "} else " }
        ));
        indented(body, b, out);
    }
    match otherwise {
        Else::NoOtherSize(msg) => {
            out.push("} else {".into());
            out.push(format!("  static_assert(sizeof(T) == 0, \"{msg}\");"));
        }
        Else::Words(w, b) => {
            out.push(format!("}} else {{  // words::{w}"));
            indented(body, b, out);
        }
    }
    out.push("}".into());
}

/// The lines of `stmts`, each indented by two spaces.
fn indented(body: &Body, stmts: &[Stmt], out: &mut Vec<String>) {
    let mut inner = Vec::new();
    for s in stmts {
        stmt(body, s, &mut inner);
    }
    out.extend(inner.into_iter().map(|l| format!("  {l}")));
}

/// The C text of `body`, one line per entry.
pub fn lines(body: &Body) -> Vec<String> {
    let mut out = Vec::new();
    for s in &body.stmts {
        stmt(body, s, &mut out);
    }
    out
}
