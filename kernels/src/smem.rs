use crate::expr::linear_expr;
use synth::plan::{AddrMap, SmemAccess, SmemInstr};

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

/// The warp guard of a store stage `si` ([`synth::plan::WarpGuard`]):
/// declares `g{si}` (whether this thread's warp stores in this round) and
/// returns its name, or `None` when every warp stores.
pub(crate) fn warp_guard(out: &mut Vec<String>, si: usize, access: &SmemAccess) -> Option<String> {
    let g = access.guard;
    if g.is_all() {
        return None;
    }
    let name = format!("g{si}");
    out.push(format!(
        "const bool {name} = (warp & {:#x}u) == {:#x}u;",
        g.mask, g.value
    ));
    Some(name)
}

/// `stmt` executed only where `guard` (from [`warp_guard`]) holds: a
/// predicated store.
pub(crate) fn guarded(guard: &Option<String>, stmt: String) -> String {
    match guard {
        Some(g) => format!("if ({g}) {stmt}"),
        None => stmt,
    }
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
