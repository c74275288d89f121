//! SASS reading: `cuobjdump -sass` of a CUBIN and the opcodes counted per
//! kernel ([`SassCounts`]), spills inside loop bodies told apart.

use std::collections::BTreeMap;
use synth::plan::Cost;

/// SASS instruction counts of one kernel: the classes the cost model
/// predicts (`SEL` and `FSEL` both count as `sel`), plus local-memory spills.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SassCounts {
    #[serde(flatten)]
    pub classes: Cost,
    pub ldl: u32,
    pub stl: u32,
    /// The `LDL`/`STL` inside a loop body: between the target of a backward
    /// branch (`BRA` to a lower address) and that branch. A loop kernel's
    /// spills outside it (ptxas parking a pointer the store after the loop
    /// needs, to stay under an occupancy step) are paid once per launch,
    /// these on every iteration.
    pub ldl_in_loop: u32,
    pub stl_in_loop: u32,
    /// All instructions of the kernel (harness included).
    pub total: u32,
}

/// Count SASS opcodes per function in `cuobjdump -sass` output; spills
/// inside loop bodies are counted again in `ldl_in_loop`/`stl_in_loop`.
pub fn count_sass(dump: &str) -> BTreeMap<String, SassCounts> {
    let mut out: BTreeMap<String, SassCounts> = BTreeMap::new();
    // Per function: (address, is LDL, is STL) of each spill, and the
    // (target, branch) address range of each backward branch.
    let mut spills: BTreeMap<String, Vec<(u64, bool)>> = BTreeMap::new();
    let mut loops: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    let mut cur: Option<String> = None;
    for line in dump.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Function : ") {
            cur = Some(rest.trim().to_string());
            out.entry(rest.trim().to_string()).or_default();
            continue;
        }
        let Some(f) = &cur else { continue };
        // instruction lines look like `/*0040*/   @!P0 SHFL.IDX PT, R3, R2, R5, 0x1f ;`
        let Some(p) = t.find("*/") else { continue };
        if !t.starts_with("/*") {
            continue;
        }
        let mut body = t[p + 2..].trim();
        if body.is_empty() || body.starts_with("/*") {
            continue;
        }
        if body.starts_with('@') {
            body = body.split_once(' ').map(|x| x.1).unwrap_or("").trim();
        }
        let op = body.split([' ', ';']).next().unwrap_or("");
        let root = op.split('.').next().unwrap_or("");
        if root.is_empty() {
            continue;
        }
        let addr = u64::from_str_radix(&t[2..p], 16).ok();
        if let (Some(a), "BRA") = (addr, root) {
            // `BRA 0x4cf0 ;` or `BRA `(.L_x_3) ;`: only hex targets are read
            let target = body
                .split_whitespace()
                .nth(1)
                .and_then(|x| x.trim_end_matches(';').strip_prefix("0x"))
                .and_then(|x| u64::from_str_radix(x, 16).ok());
            if let Some(tg) = target.filter(|&tg| tg < a) {
                loops.entry(f.clone()).or_default().push((tg, a));
            }
        }
        if let (Some(a), "LDL" | "STL") = (addr, root) {
            spills
                .entry(f.clone())
                .or_default()
                .push((a, root == "LDL"));
        }
        let c = out.get_mut(f).unwrap();
        c.total += 1;
        match root {
            "SHFL" => c.classes.shfl += 1,
            "SEL" | "FSEL" => c.classes.sel += 1,
            "PRMT" => c.classes.prmt += 1,
            "STS" => c.classes.sts += 1,
            "LDS" => c.classes.lds += 1,
            "BAR" => c.classes.bar += 1,
            "LDSM" => c.classes.ldsm += 1,
            "STSM" => c.classes.stsm += 1,
            "LDL" => c.ldl += 1,
            "STL" => c.stl += 1,
            _ => {}
        }
    }
    for (f, sp) in spills {
        let ranges = loops.get(&f).map(Vec::as_slice).unwrap_or(&[]);
        let c = out.get_mut(&f).expect("function seen");
        for (a, is_ldl) in sp {
            if ranges.iter().any(|&(lo, hi)| lo <= a && a <= hi) {
                if is_ldl {
                    c.ldl_in_loop += 1;
                } else {
                    c.stl_in_loop += 1;
                }
            }
        }
    }
    out
}

/// Disassemble a CUBIN with `cuobjdump -sass`; `None` when cuobjdump is absent.
pub fn sass_of(cubin: &[u8]) -> Option<(String, BTreeMap<String, SassCounts>)> {
    // a private directory per call: callers may disassemble in parallel
    let dir = tempfile::Builder::new()
        .prefix("warpforge-sass-")
        .tempdir()
        .ok()?;
    let path = dir.path().join("module.cubin");
    std::fs::write(&path, cubin).ok()?;
    let out = std::process::Command::new("cuobjdump")
        .arg("-sass")
        .arg(&path)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let counts = count_sass(&text);
    Some((text, counts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoopCost;

    #[test]
    fn counts_sass_opcodes() {
        let dump = "\n\t\tFunction : wf_test_x_i32\n\
            /*0000*/                   MOV R1, c[0x0][0x28] ;\n\
            /*0010*/              @!P0 SHFL.IDX PT, R3, R2, R5, 0x1f ;\n\
            /*0020*/                   SEL R4, R3, R2, P1 ;\n\
            /*0030*/                   STS [R0], R4 ;\n\
            /*0040*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n\
            /*0050*/                   LDS R6, [R0+0x4] ;\n\
            /*0060*/                   STL [R1], R6 ;\n\
        \t\tFunction : other\n\
            /*0000*/                   PRMT R1, R2, 0x7610, R3 ;\n";
        let m = count_sass(dump);
        let c = &m["wf_test_x_i32"];
        let k = &c.classes;
        assert_eq!(
            (k.shfl, k.sel, k.sts, k.bar, k.lds, c.stl, c.total),
            (1, 1, 1, 1, 1, 1, 7)
        );
        assert_eq!(m["other"].classes.prmt, 1);
    }

    /// Spills before a loop, inside its body (between the backward branch's
    /// target and the branch) and after it are told apart, as in the h2h
    /// loop kernel of `warp_local_f32_64x64` (all 306 outside the loop).
    #[test]
    fn counts_spills_inside_loop_bodies() {
        let dump = "		Function : wf_loop
            /*0000*/                   STL [R1], R6 ;
            /*0010*/                   LDL R7, [R1] ;
            /*0020*/              @!P0 BRA 0x0080 ;
            /*0030*/                   SHFL.IDX PT, R3, R2, R5, 0x1f ;
            /*0040*/                   LDL R8, [R1+0x4] ;
            /*0050*/                   STL [R1+0x8], R8 ;
            /*0060*/                   LDL R9, [R1+0x8] ;
            /*0070*/              @!P1 BRA 0x0030 ;
            /*0080*/                   LDL R6, [R1] ;
            /*0090*/                   EXIT ;
            /*00a0*/                   BRA 0xa0;
";
        let c = &count_sass(dump)["wf_loop"];
        assert_eq!((c.ldl, c.stl), (4, 2));
        assert_eq!((c.ldl_in_loop, c.stl_in_loop), (2, 1));
        let l = LoopCost {
            registers: 255,
            ldl: c.ldl,
            stl: c.stl,
            ldl_in_loop: c.ldl_in_loop,
            stl_in_loop: c.stl_in_loop,
        };
        assert_eq!((l.spills_in_loop(), l.spills_outside_loop()), (3, 3));
    }
}
