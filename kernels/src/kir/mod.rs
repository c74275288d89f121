//! The kernel IR (KIR): a helper body as typed values and statements, built
//! from a [`synth::plan::Plan`] by the emitters, rewritten by typed passes
//! ([`pass`]), printed as CUDA by [`print`] and run for every thread of a
//! block (every CTA of a cluster) by [`interp`], which is the CPU proof of
//! the printed code (docs/ARCHITECTURE.md section 5).
//!
//! The IR is deliberately close to the C it prints: an [`Expr`] is a C
//! expression tree (operators, parentheses and literals as printed, and the
//! `detail::` calls of the header's shared code as typed [`Func`]s), a
//! [`Stmt`] is one statement or structured block. The printer adds nothing
//! the interpreter does not read, so what is proven is what ships. Values
//! are [`Val`] indices into the body's value table ([`Body::vals`]), each
//! with its C name and [`Ty`]; passes work on values, never on names.
//!
//! Adding an instruction: a [`Func`] variant (its C name in
//! [`Func::c_name`], its meaning in `interp::call`), or a [`Stmt`] variant
//! printed in `print` and run in `interp`; the interpreter's tests in
//! `interp` show the pattern.

pub mod interp;
pub mod pass;
pub mod print;

use synth::plan::{BarrierScope, ShflMode};

/// A value of a [`Body`]: an index into [`Body::vals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Val(pub u32);

/// The C type of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `bool` (a lane predicate, a warp guard).
    Bool,
    /// `unsigned`: a 32-bit word, an index, an address in the shared window.
    U32,
    /// `T`: the helper's element type (1, 2, 4 or 8 bytes).
    Elem,
    /// `V`: the vector forms' 4-byte vector of `32 / bits` elements
    /// (`__half2`, `__nv_bfloat162`, `unsigned`, `__nv_fp8x4_e4m3`).
    Vector,
}

impl Ty {
    /// The C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::U32 => "unsigned",
            Ty::Elem => "T",
            Ty::Vector => "V",
        }
    }
}

/// Where a value comes from when no statement of the body defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// Element (or, in a packed form, word) `i` of the caller's `src` array.
    Src(u32),
}

/// One entry of the value table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValInfo {
    /// The C name as printed (`q3`, `src_w[2]`, `src[5]`).
    pub name: String,
    /// The C type.
    pub ty: Ty,
    /// Set for the caller's arrays' entries, which no statement defines.
    pub param: Option<Param>,
}

/// A literal, printed as written here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lit {
    /// `{n}u`.
    U(u32),
    /// `{n}` (an `int`, as in shift amounts and `& 1`).
    Int(u32),
    /// `{n:#06x}u` (a `prmt` selector).
    Sel(u32),
    /// `{n:#x}u` (a warp mask).
    Hex(u32),
}

impl Lit {
    /// The literal's value.
    pub fn value(self) -> u32 {
        match self {
            Lit::U(n) | Lit::Int(n) | Lit::Sel(n) | Lit::Hex(n) => n,
        }
    }
}

/// A binary C operator on 32-bit integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Eq,
    Ne,
}

impl Op {
    /// The C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            Op::And => "&",
            Op::Or => "|",
            Op::Xor => "^",
            Op::Shl => "<<",
            Op::Shr => ">>",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Eq => "==",
            Op::Ne => "!=",
        }
    }
}

/// A function of the header's shared code (`warpforge::detail`, section
/// "Shared-memory accesses as inline PTX" of `templates/header.cuh.j2`) or a
/// CUDA intrinsic, called with [`Expr::Call`] (a value) or [`Stmt::Call`]
/// (effects and out-parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Func {
    /// `__byte_perm(a, b, selector)` (PTX `prmt.b32`).
    BytePerm,
    /// `__popc(x)`.
    Popc,
    /// `detail::shfl_{idx,xor,up,down}(v, arg)` (`shfl.sync` on the element's bits).
    Shfl(ShflMode),
    /// `detail::to_u32(v)`: an element's bits, zero-extended (8/16-bit) or
    /// truncated (64-bit) to a word.
    ToU32,
    /// `detail::from_u32<T>(w)`: the element in the low bits of `w`.
    FromU32,
    /// `detail::from_u32<V>(w)`: the 4-byte vector of elements whose bits
    /// are `w` (the vector forms' destination entries).
    FromU32Vec,
    /// `detail::to_u64(v)`: a 64-bit element's bits.
    ToU64,
    /// `detail::from_u64<T>(lo, hi)`.
    FromU64,
    /// `detail::smem_u32(smem)`: the scratch's shared-window address.
    SmemU32,
    /// `detail::ld_u8/ld_u16/ld_b32(addr)`: one `ld.shared` of 1, 2 or 4 bytes.
    Ld(u32),
    /// `detail::st_u8/st_u16/st_b32/st_v2/st_v4(addr, words..)`: one
    /// `st.shared` of 1, 2, 4, 8 or 16 bytes.
    St(u32),
    /// `detail::ld_v2/ld_v4(addr, words..)`: one vector `ld.shared` of 8 or
    /// 16 bytes into out-parameters.
    LdV(u32),
    /// `detail::stsm_x{count}[_trans](addr, words..)` (PTX `stmatrix`).
    Stsm { count: u32, trans: bool },
    /// `detail::ldsm_x{count}[_trans](addr, words..)` (PTX `ldmatrix`).
    Ldsm { count: u32, trans: bool },
    /// `detail::ld_word(&src[e])`: the natural word of elements `e..`.
    LdWord,
    /// `detail::ld_dword(&src[e], lo, hi)`: two natural words.
    LdDword,
    /// `detail::st_word(&dst[e], w)`.
    StWord,
    /// `detail::st_dword(&dst[e], lo, hi)`.
    StDword,
}

impl Func {
    /// The C name as printed.
    pub fn c_name(self) -> String {
        match self {
            Func::BytePerm => "__byte_perm".into(),
            Func::Popc => "__popc".into(),
            Func::Shfl(m) => format!(
                "detail::shfl_{}",
                match m {
                    ShflMode::Idx => "idx",
                    ShflMode::Bfly => "xor",
                    ShflMode::Up => "up",
                    ShflMode::Down => "down",
                }
            ),
            Func::ToU32 => "detail::to_u32".into(),
            Func::FromU32 => "detail::from_u32<T>".into(),
            Func::FromU32Vec => "detail::from_u32<V>".into(),
            Func::ToU64 => "detail::to_u64".into(),
            Func::FromU64 => "detail::from_u64<T>".into(),
            Func::SmemU32 => "detail::smem_u32".into(),
            Func::Ld(b) => format!(
                "detail::ld_{}",
                match b {
                    1 => "u8",
                    2 => "u16",
                    _ => "b32",
                }
            ),
            Func::St(b) => format!(
                "detail::st_{}",
                match b {
                    1 => "u8",
                    2 => "u16",
                    4 => "b32",
                    8 => "v2",
                    _ => "v4",
                }
            ),
            Func::LdV(b) => format!("detail::ld_v{}", if b == 8 { 2 } else { 4 }),
            Func::Stsm { count, trans } => {
                format!("detail::stsm_x{count}{}", if trans { "_trans" } else { "" })
            }
            Func::Ldsm { count, trans } => {
                format!("detail::ldsm_x{count}{}", if trans { "_trans" } else { "" })
            }
            Func::LdWord => "detail::ld_word".into(),
            Func::LdDword => "detail::ld_dword".into(),
            Func::StWord => "detail::st_word".into(),
            Func::StDword => "detail::st_dword".into(),
        }
    }
}

/// A C expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Expr {
    /// A value, by name.
    V(Val),
    /// A literal.
    Lit(Lit),
    /// `(e)`.
    Paren(Box<Expr>),
    /// `a op b`.
    Bin(Op, Box<Expr>, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)`.
    Call(Func, Vec<Expr>),
    /// `(unsigned)e` (the low word of a 64-bit value).
    CastU32(Box<Expr>),
    /// `threadIdx.x`.
    ThreadIdx,
    /// `smem` (the helper's scratch pointer parameter).
    Smem,
    /// `&src[e]` (a pointer to the caller's source element `e`).
    SrcPtr(u32),
    /// `&dst[e]`.
    DstPtr(u32),
}

/// Builders: the C operators as [`Expr`] constructors.
impl Expr {
    /// `a op b`.
    pub fn bin(op: Op, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
    /// `(e)`.
    pub fn paren(e: Expr) -> Expr {
        Expr::Paren(Box::new(e))
    }
    /// `c ? a : b`.
    pub fn cond(c: Expr, a: Expr, b: Expr) -> Expr {
        Expr::Cond(Box::new(c), Box::new(a), Box::new(b))
    }
    /// `{n}u`.
    pub fn u(n: u32) -> Expr {
        Expr::Lit(Lit::U(n))
    }
    /// `{n}` (int).
    pub fn int(n: u32) -> Expr {
        Expr::Lit(Lit::Int(n))
    }
    /// `{n:#06x}u`.
    pub fn sel(n: u32) -> Expr {
        Expr::Lit(Lit::Sel(n))
    }
    /// `f(args)`.
    pub fn call(f: Func, args: Vec<Expr>) -> Expr {
        Expr::Call(f, args)
    }
    /// `{n:#x}u`.
    pub fn hex(n: u32) -> Expr {
        Expr::Lit(Lit::Hex(n))
    }
    /// `__byte_perm(a, b, s)`.
    pub fn prmt(a: Expr, b: Expr, s: Expr) -> Expr {
        Expr::Call(Func::BytePerm, vec![a, b, s])
    }
    /// `t0 op t1 op ...` for a left-associative `op` (C parses a chain of
    /// one operator from the left, so the tree nests to the left); `None`
    /// for no terms.
    pub fn chain(op: Op, terms: impl IntoIterator<Item = Expr>) -> Option<Expr> {
        terms.into_iter().reduce(|acc, t| Expr::bin(op, acc, t))
    }
    /// The value this expression is, when it is one value as it is.
    pub fn as_val(&self) -> Option<Val> {
        match self {
            Expr::V(v) => Some(*v),
            _ => None,
        }
    }
    /// The XOR terms of a GF(2)-linear function of the `unsigned` value
    /// `var` (what `crate::expr::linear_expr` prints): column `j` is what
    /// input bit `j` contributes; unit columns with the same bit shift form
    /// one mask-and-shift term (`(var & m)`, `((var & m) << s)`, `((var &
    /// m) >> s)`, by ascending shift), then one `((0u - ((var >> j) & 1u))
    /// & c)` per other column. Empty for the zero function.
    pub fn linear_terms(var: Val, cols: &[u32]) -> Vec<Expr> {
        let v = || Expr::V(var);
        let mut by_shift: std::collections::BTreeMap<i32, u32> = Default::default();
        let mut other = Vec::new();
        for (j, &c) in cols.iter().enumerate() {
            if c == 0 {
                continue;
            }
            if c.count_ones() == 1 {
                let t = c.trailing_zeros() as i32;
                *by_shift.entry(t - j as i32).or_default() |= 1 << j;
            } else {
                // ((0u - ((var >> j) & 1u)) & c): all of c where bit j is set
                let bit = Expr::paren(Expr::bin(
                    Op::And,
                    Expr::paren(Expr::bin(Op::Shr, v(), Expr::int(j as u32))),
                    Expr::u(1),
                ));
                let all = Expr::paren(Expr::bin(Op::Sub, Expr::u(0), bit));
                other.push(Expr::paren(Expr::bin(Op::And, all, Expr::u(c))));
            }
        }
        let mut terms: Vec<Expr> = by_shift
            .into_iter()
            .map(|(s, m)| {
                let masked = Expr::paren(Expr::bin(Op::And, v(), Expr::u(m)));
                match s.cmp(&0) {
                    std::cmp::Ordering::Equal => masked,
                    std::cmp::Ordering::Greater => {
                        Expr::paren(Expr::bin(Op::Shl, masked, Expr::int(s as u32)))
                    }
                    std::cmp::Ordering::Less => {
                        Expr::paren(Expr::bin(Op::Shr, masked, Expr::int((-s) as u32)))
                    }
                }
            })
            .collect();
        terms.extend(other);
        terms
    }
    /// The XOR of `terms` (left-nested), or `0u` for none.
    pub fn xor_or_zero(terms: impl IntoIterator<Item = Expr>) -> Expr {
        Expr::chain(Op::Xor, terms).unwrap_or_else(|| Expr::u(0))
    }
    /// A GF(2)-linear function of `var` ([`Expr::linear_terms`] XORed), or
    /// `0u`.
    pub fn linear(var: Val, cols: &[u32]) -> Expr {
        Expr::xor_or_zero(Expr::linear_terms(var, cols))
    }
    /// Whether this is the literal `0u`.
    pub fn is_zero_u(&self) -> bool {
        *self == Expr::u(0)
    }
    /// Every value this expression reads, in print order.
    pub fn for_each_val(&self, f: &mut impl FnMut(Val)) {
        match self {
            Expr::V(v) => f(*v),
            Expr::Lit(_) | Expr::ThreadIdx | Expr::Smem | Expr::SrcPtr(_) | Expr::DstPtr(_) => {}
            Expr::Paren(e) | Expr::CastU32(e) => e.for_each_val(f),
            Expr::Bin(_, a, b) => {
                a.for_each_val(f);
                b.for_each_val(f);
            }
            Expr::Cond(c, a, b) => {
                c.for_each_val(f);
                a.for_each_val(f);
                b.for_each_val(f);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.for_each_val(f)),
        }
    }
    /// Rewrite every value this expression reads.
    pub fn map_vals(&mut self, f: &mut impl FnMut(Val) -> Val) {
        match self {
            Expr::V(v) => *v = f(*v),
            Expr::Lit(_) | Expr::ThreadIdx | Expr::Smem | Expr::SrcPtr(_) | Expr::DstPtr(_) => {}
            Expr::Paren(e) | Expr::CastU32(e) => e.map_vals(f),
            Expr::Bin(_, a, b) => {
                a.map_vals(f);
                b.map_vals(f);
            }
            Expr::Cond(c, a, b) => {
                c.map_vals(f);
                a.map_vals(f);
                b.map_vals(f);
            }
            Expr::Call(_, args) => args.iter_mut().for_each(|a| a.map_vals(f)),
        }
    }
}

/// A condition of an `if constexpr` arm.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    /// `sizeof(T) == b0 || sizeof(T) == b1 ...` (element bytes).
    SizeofT(Vec<u32>),
    /// `kW == words::{name}` (the caller's choice of arrays held as words).
    Words(&'static str),
}

/// The `else` arm of an `if constexpr` chain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Else {
    /// `} else {` + `static_assert(sizeof(T) == 0, "{msg}");`: no other
    /// element size is served.
    NoOtherSize(String),
    /// `} else {  // words::{name}` and its statements.
    Words(&'static str, Vec<Stmt>),
}

/// A statement (one C statement, or a structured block).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// `const {ty} {name} = {e};`.
    Let { v: Val, e: Expr },
    /// `unsigned a, b, ...;` (assigned by a later call's out-parameters or
    /// an `asm` output).
    Decl { vals: Vec<Val> },
    /// `unsigned {name}[{len}];` whose entries are `vals` (named
    /// `{name}[k]`), assigned by later statements.
    Array { name: String, vals: Vec<Val> },
    /// `const unsigned {name}[{len}] = {init, ...};` defining `vals`.
    ArrayInit {
        name: String,
        vals: Vec<Val>,
        init: Vec<Expr>,
    },
    /// `{name} = {e};` for a declared value.
    Assign { v: Val, e: Expr },
    /// `(void){e};`.
    Void(Expr),
    /// `f(args);` (stores, and loads into out-parameters, which are
    /// [`Expr::V`] arguments of declared values).
    Call { f: Func, args: Vec<Expr> },
    /// `if ({cond}) {stmt}` on one line (a predicated store).
    If { cond: Val, then: Box<Stmt> },
    /// `if (({mask_terms}) == 0u) {`, the statements (not indented), `}`:
    /// only the threads whose bits under each `(value, mask)` are all clear.
    IfClear {
        masks: Vec<(Val, u32)>,
        body: Vec<Stmt>,
    },
    /// `dst[{j}] = {e};`.
    Dst { j: u32, e: Expr },
    /// `__syncthreads();`, `__syncwarp();` or a named barrier of the warp
    /// group (`bar.sync id, threads;`).
    Barrier(BarrierScope),
    /// `barrier.cluster.arrive.release` then `wait.acquire`, as one line.
    ClusterBarrier,
    /// `unsigned {v};` and `asm("mov.u32 %0, %%cluster_ctarank;" ...)`,
    /// `(void){v};`: the CTA's rank in its cluster.
    ClusterRank { v: Val },
    /// Under `WARPFORGE_CHECK_CLUSTER`, `__trap()` unless the cluster has
    /// `ctas` CTAs (`%cluster_nctarank`).
    CheckClusterSize { ctas: u32 },
    /// `unsigned {v}; asm("mapa.shared::cluster.u32 ...")`: the cluster
    /// address of the local scratch address `addr` in the CTA `cta`.
    Mapa { v: Val, addr: Expr, cta: Expr },
    /// `asm volatile("ld.shared::cluster.{ty} ...")` of `bytes` bytes at the
    /// cluster address `addr` into the declared words `outs`.
    LdCluster {
        outs: Vec<Val>,
        addr: Val,
        bytes: u32,
    },
    /// `asm volatile("st.shared::cluster.{ty} ...")` of `words` (`bytes`
    /// bytes) at the cluster address `addr`.
    StCluster {
        addr: Val,
        words: Vec<Expr>,
        bytes: u32,
    },
    /// `typedef unsigned char T;` (8) or `typedef unsigned short T;` (16).
    TypedefT(u32),
    /// `{callee}({src}, {dst}[, smem]);`: the packed form on the arrays
    /// `src` (words `src_vals`) into `dst` (words `dst_vals`).
    CallPacked {
        callee: String,
        src: String,
        src_vals: Vec<Val>,
        dst: String,
        dst_vals: Vec<Val>,
        smem: bool,
    },
    /// `constexpr words kW = kWords == words::automatic ? words::{auto} : kWords;`.
    WordsChoice { auto: &'static str },
    /// `if constexpr (c0) {` ... `} else if constexpr (c1) {` ... then the
    /// [`Else`] and `}`; arms indented by two spaces.
    IfConstexpr {
        arms: Vec<(Cond, Vec<Stmt>)>,
        otherwise: Else,
    },
}

impl Stmt {
    /// Every expression this statement evaluates, and (for nested blocks)
    /// those of its statements.
    pub fn for_each_expr(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            Stmt::Let { e, .. } | Stmt::Assign { e, .. } | Stmt::Void(e) | Stmt::Dst { e, .. } => {
                f(e)
            }
            Stmt::ArrayInit { init, .. } => init.iter().for_each(f),
            Stmt::Call { args, .. } => args.iter().for_each(f),
            Stmt::If { cond, then } => {
                f(&Expr::V(*cond));
                then.for_each_expr(f);
            }
            Stmt::IfClear { masks, body } => {
                for (v, _) in masks {
                    f(&Expr::V(*v));
                }
                body.iter().for_each(|s| s.for_each_expr(f));
            }
            Stmt::Mapa { addr, cta, .. } => {
                f(addr);
                f(cta);
            }
            Stmt::LdCluster { addr, .. } => f(&Expr::V(*addr)),
            Stmt::StCluster { addr, words, .. } => {
                f(&Expr::V(*addr));
                words.iter().for_each(f);
            }
            Stmt::CallPacked { src_vals, .. } => {
                for v in src_vals {
                    f(&Expr::V(*v));
                }
            }
            Stmt::IfConstexpr { arms, otherwise } => {
                for (_, b) in arms {
                    b.iter().for_each(|s| s.for_each_expr(f));
                }
                if let Else::Words(_, b) = otherwise {
                    b.iter().for_each(|s| s.for_each_expr(f));
                }
            }
            Stmt::Decl { .. }
            | Stmt::Array { .. }
            | Stmt::Barrier(_)
            | Stmt::ClusterBarrier
            | Stmt::ClusterRank { .. }
            | Stmt::CheckClusterSize { .. }
            | Stmt::TypedefT(_)
            | Stmt::WordsChoice { .. } => {}
        }
    }

    /// Rewrite every value this statement (and its nested statements)
    /// reads or defines.
    pub fn map_vals(&mut self, f: &mut impl FnMut(Val) -> Val) {
        let each = |vs: &mut Vec<Val>, f: &mut dyn FnMut(Val) -> Val| {
            vs.iter_mut().for_each(|v| *v = f(*v))
        };
        match self {
            Stmt::Let { v, e } | Stmt::Assign { v, e } => {
                *v = f(*v);
                e.map_vals(f);
            }
            Stmt::Void(e) | Stmt::Dst { e, .. } => e.map_vals(f),
            Stmt::Decl { vals } | Stmt::Array { vals, .. } => each(vals, f),
            Stmt::ArrayInit { vals, init, .. } => {
                each(vals, f);
                init.iter_mut().for_each(|e| e.map_vals(f));
            }
            Stmt::Call { args, .. } => args.iter_mut().for_each(|e| e.map_vals(f)),
            Stmt::If { cond, then } => {
                *cond = f(*cond);
                then.map_vals(f);
            }
            Stmt::IfClear { masks, body } => {
                masks.iter_mut().for_each(|(v, _)| *v = f(*v));
                body.iter_mut().for_each(|s| s.map_vals(f));
            }
            Stmt::ClusterRank { v } => *v = f(*v),
            Stmt::Mapa { v, addr, cta } => {
                *v = f(*v);
                addr.map_vals(f);
                cta.map_vals(f);
            }
            Stmt::LdCluster { outs, addr, .. } => {
                each(outs, f);
                *addr = f(*addr);
            }
            Stmt::StCluster { addr, words, .. } => {
                *addr = f(*addr);
                words.iter_mut().for_each(|e| e.map_vals(f));
            }
            Stmt::CallPacked {
                src_vals, dst_vals, ..
            } => {
                each(src_vals, f);
                each(dst_vals, f);
            }
            Stmt::IfConstexpr { arms, otherwise } => {
                for (_, b) in arms {
                    b.iter_mut().for_each(|s| s.map_vals(f));
                }
                if let Else::Words(_, b) = otherwise {
                    b.iter_mut().for_each(|s| s.map_vals(f));
                }
            }
            Stmt::Barrier(_)
            | Stmt::ClusterBarrier
            | Stmt::CheckClusterSize { .. }
            | Stmt::TypedefT(_)
            | Stmt::WordsChoice { .. } => {}
        }
    }

    /// The values this statement defines (not those of nested blocks).
    pub fn defs(&self) -> Vec<Val> {
        match self {
            Stmt::Let { v, .. } | Stmt::ClusterRank { v } | Stmt::Mapa { v, .. } => vec![*v],
            Stmt::Decl { vals } | Stmt::Array { vals, .. } | Stmt::ArrayInit { vals, .. } => {
                vals.clone()
            }
            Stmt::CallPacked { dst_vals, .. } => dst_vals.clone(),
            _ => Vec::new(),
        }
    }
}

/// A helper body: the value table and the statements.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Body {
    /// Every value, indexed by [`Val`].
    pub vals: Vec<ValInfo>,
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
}

impl Body {
    /// A new value named `name` of type `ty`.
    pub fn val(&mut self, name: impl Into<String>, ty: Ty) -> Val {
        self.vals.push(ValInfo {
            name: name.into(),
            ty,
            param: None,
        });
        Val(self.vals.len() as u32 - 1)
    }
    /// The caller's source entry `i` (`src[i]`, of type `ty`), one value
    /// per entry.
    pub fn src(&mut self, i: u32, ty: Ty) -> Val {
        let p = Param::Src(i);
        if let Some(k) = self.vals.iter().position(|x| x.param == Some(p)) {
            return Val(k as u32);
        }
        self.vals.push(ValInfo {
            name: format!("src[{i}]"),
            ty,
            param: Some(p),
        });
        Val(self.vals.len() as u32 - 1)
    }
    /// The entry of value `v`.
    pub fn info(&self, v: Val) -> &ValInfo {
        &self.vals[v.0 as usize]
    }
    /// The name of value `v`.
    pub fn name(&self, v: Val) -> &str {
        &self.vals[v.0 as usize].name
    }
    /// Append `stmt`.
    pub fn push(&mut self, stmt: Stmt) {
        self.stmts.push(stmt);
    }
    /// A new value `name: ty` defined as `e` (`const ty name = e;`).
    pub fn let_(&mut self, name: impl Into<String>, ty: Ty, e: Expr) -> Val {
        let v = self.val(name, ty);
        self.stmts.push(Stmt::Let { v, e });
        v
    }
    /// Take `other`'s statements into this body's value table (its values
    /// renumbered after this body's, the caller's `src` entries shared):
    /// the statements to place in a nested block.
    pub fn adopt(&mut self, other: Body) -> Vec<Stmt> {
        let mut map = Vec::with_capacity(other.vals.len());
        for info in other.vals {
            map.push(match info.param {
                Some(Param::Src(i)) => self.src(i, info.ty),
                None => {
                    self.vals.push(info);
                    Val(self.vals.len() as u32 - 1)
                }
            });
        }
        let mut stmts = other.stmts;
        for s in &mut stmts {
            s.map_vals(&mut |v| map[v.0 as usize]);
        }
        stmts
    }
    /// The C text of the body, one statement per line ([`print::lines`]).
    pub fn lines(&self) -> Vec<String> {
        print::lines(self)
    }
}
