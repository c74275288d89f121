use crate::kir::{Body, Expr, Func, Op, Stmt, Ty, Val};
use crate::regs::Ids;
use synth::plan::{AddrMap, SmemAccess, SmemInstr};

/// Declare `const unsigned {name}` = the per-thread element offset of `a`
/// (its `lane` part XOR its `warp` part, `0u` when both vanish) into `b`.
pub(crate) fn addr_base(b: &mut Body, ids: &Ids, name: String, a: &AddrMap) -> Val {
    let mut terms = Expr::linear_terms(ids.lane, &a.lane);
    terms.extend(Expr::linear_terms(ids.warp, &a.warp));
    b.let_(name, Ty::U32, Expr::xor_or_zero(terms))
}

/// Byte-address expressions of every instruction of `acc`, given the
/// scratch address `sb` and the per-thread element offset `o`: one base
/// register per distinct part of the instruction offsets that overlaps the
/// run-time bits (a swizzle), the rest as an immediate offset (as Triton
/// does). Base registers `{prefix}_{k} = sb + (o ^ g) * eb` are declared
/// into `b`; each address is a base, or a base `+ imm`.
pub(crate) fn smem_addrs(
    b: &mut Body,
    prefix: &str,
    sb: Val,
    o: Val,
    acc: &SmemAccess,
) -> Vec<Expr> {
    let eb = (acc.width / 8).max(1);
    let bits = acc.addr.base_bits();
    let mut groups: Vec<(u32, Val)> = Vec::new();
    acc.insts
        .iter()
        .map(|inst| {
            let g = inst.offset & bits;
            let base = match groups.iter().find(|x| x.0 == g) {
                Some(x) => x.1,
                None => {
                    let off = if g == 0 {
                        Expr::V(o)
                    } else {
                        Expr::paren(Expr::bin(Op::Xor, Expr::V(o), Expr::u(g)))
                    };
                    let e = Expr::bin(Op::Add, Expr::V(sb), Expr::bin(Op::Mul, off, Expr::u(eb)));
                    let v = b.let_(format!("{prefix}_{}", groups.len()), Ty::U32, e);
                    groups.push((g, v));
                    v
                }
            };
            let imm = (inst.offset & !bits) * eb;
            if imm == 0 {
                Expr::V(base)
            } else {
                Expr::bin(Op::Add, Expr::V(base), Expr::u(imm))
            }
        })
        .collect()
}

/// The per-thread address part of a shared-memory stage `si`, declaring the
/// scratch address `sb` first if needed, then the offset `o{si}` and the
/// base registers `a{si}_{k}`; returns each instruction's address.
pub(crate) fn stage_addrs(
    b: &mut Body,
    ids: &mut Ids,
    si: usize,
    access: &SmemAccess,
) -> Vec<Expr> {
    let sb = ids.sb(b);
    let o = addr_base(b, ids, format!("o{si}"), &access.addr);
    smem_addrs(b, &format!("a{si}"), sb, o, access)
}

/// The warp guard of a store stage `si` ([`synth::plan::WarpGuard`]):
/// declares `const bool g{si} = (warp & mask) == value;` (whether this
/// thread's warp stores in this round) and returns it, or `None` when every
/// warp stores.
pub(crate) fn warp_guard(b: &mut Body, ids: &Ids, si: usize, access: &SmemAccess) -> Option<Val> {
    let g = access.guard;
    if g.is_all() {
        return None;
    }
    let masked = Expr::paren(Expr::bin(Op::And, Expr::V(ids.warp), Expr::hex(g.mask)));
    Some(b.let_(
        format!("g{si}"),
        Ty::Bool,
        Expr::bin(Op::Eq, masked, Expr::hex(g.value)),
    ))
}

/// `stmt` executed only where `guard` (from [`warp_guard`]) holds: a
/// predicated store.
pub(crate) fn guarded(guard: Option<Val>, stmt: Stmt) -> Stmt {
    match guard {
        Some(cond) => Stmt::If {
            cond,
            then: Box::new(stmt),
        },
        None => stmt,
    }
}

/// The store of 32-bit `words` at `addr` by one instruction of `access`:
/// `detail::st_u8/u16/b32(addr, w)` (the first word), `st_v2/v4(addr,
/// words..)`, or `stsm_x{count}[_trans](addr, words..)`.
pub(crate) fn store_stmt(access: &SmemAccess, addr: Expr, words: Vec<Expr>) -> Stmt {
    let (f, words) = match access.instr {
        SmemInstr::Vector => {
            let bytes = access.bytes();
            let n = if bytes <= 4 { 1 } else { words.len() };
            (
                Func::St(bytes),
                words.into_iter().take(n).collect::<Vec<_>>(),
            )
        }
        SmemInstr::Matrix { count, trans } => (Func::Stsm { count, trans }, words),
    };
    let mut args = vec![addr];
    args.extend(words);
    Stmt::Call { f, args }
}

/// Load instruction `ii` of stage `si` at `addr` into fresh 32-bit words
/// `w{si}_{ii}_{j}` (a `const` for one word of 1, 2 or 4 bytes, else
/// declared and filled by `detail::ld_v2/v4` or `ldsm_x*`); returns them.
pub(crate) fn load_words(
    b: &mut Body,
    access: &SmemAccess,
    addr: Expr,
    si: usize,
    ii: usize,
) -> Vec<Val> {
    let nw = access.bytes().div_ceil(4) as usize;
    let name = |j: usize| format!("w{si}_{ii}_{j}");
    let f = match access.instr {
        SmemInstr::Vector => match access.bytes() {
            n @ (1 | 2 | 4) => {
                let ld = Expr::call(Func::Ld(n), vec![addr]);
                return vec![b.let_(name(0), Ty::U32, ld)];
            }
            n => Func::LdV(n),
        },
        SmemInstr::Matrix { count, trans } => Func::Ldsm { count, trans },
    };
    let words: Vec<Val> = (0..nw).map(|j| b.val(name(j), Ty::U32)).collect();
    b.push(Stmt::Decl {
        vals: words.clone(),
    });
    let mut args = vec![addr];
    args.extend(words.iter().map(|&w| Expr::V(w)));
    b.push(Stmt::Call { f, args });
    words
}
