//! Spills by occupancy choice: a kernel that spilled with registers of its
//! limit to spare is compiled again under `__launch_bounds__(threads, 1)`
//! to tell ptxas's trade of registers for CTAs per SM from a helper that
//! does not fit ([`CaseResult::spills_by_choice`]).

use crate::compile::{compile_cubin_logged, ptxas_resources, PtxasResources};
use crate::CaseResult;
use std::collections::BTreeMap;

/// A kernel that spilled although 16 or more registers of its limit were
/// unused: ptxas, told only the CTA size (`__launch_bounds__(threads)`),
/// may hold a kernel under a lower register count to fit more CTAs per SM
/// and spill for it (a one-warp words::dst loop kernel of Triton's
/// `test_convert_warp_local_layouts` at 168 of 255 registers, a 4-warp
/// i8 one-shot kernel at 48). The same kernel under
/// `__launch_bounds__(threads, 1)` (one CTA per SM is enough: CUDA C++
/// Programming Guide, "Launch Bounds") says whether the helper fits its
/// limit without spilling.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MinBlocksRecheck {
    /// Which kernel spilled: `loop` or `one-shot`.
    pub kernel: &'static str,
    /// Registers it spilled at under `__launch_bounds__(threads)`.
    pub registers: u32,
    /// ptxas's registers under `__launch_bounds__(threads, 1)`.
    pub min_blocks_registers: u32,
    /// ptxas's spill stores plus spill loads there, in bytes.
    pub min_blocks_spill_bytes: u32,
}

/// The CUDA text of kernel `name` in a module `source` built by
/// [`compile_module`](crate::module::compile_module) (its whole source, from its `extern "C"` line to the next kernel's),
/// with its `__launch_bounds__(threads)` made `__launch_bounds__(threads,
/// 1)`. `None`: no such kernel under those launch bounds (a loop kernel
/// under `__maxnreg__`).
fn kernel_min_blocks_text(source: &str, name: &str, threads: u32) -> Option<String> {
    let bounds = format!("__launch_bounds__({threads})");
    let decl = format!("extern \"C\" __global__ void {bounds} {name}(");
    let i = source.find(&decl)?;
    let body = i + decl.len();
    let end = source[body..]
        .find("extern \"C\" __global__")
        .map_or(source.len(), |j| body + j);
    Some(source[i..end].replacen(&bounds, &format!("__launch_bounds__({threads}, 1)"), 1))
}

/// Registers a kernel must leave unused of its limit for a spill to count
/// as ptxas's occupancy choice (it held the kernel under fewer registers
/// than the limit to fit more CTAs per SM) and be asked again under
/// `__launch_bounds__(threads, 1)` ([`compile_min_blocks`]).
pub const OCCUPANCY_SLACK: u32 = 16;

/// Compile the kernels `(name, threads per CTA)` of a module `source` again,
/// each under `__launch_bounds__(threads, 1)` (at most one CTA per SM asked
/// of ptxas, so it has no occupancy to trade registers for), with the
/// module's text before its first kernel (helpers, includes); ptxas's
/// registers and spill bytes per kernel name. A kernel not declared
/// `extern "C" __global__ void __launch_bounds__(threads) name(` in
/// `source` is left out. Errors: the compile's first line (a module without
/// kernels, NVRTC's message).
pub fn compile_min_blocks(
    source: &str,
    kernels: &[(String, u32)],
    sm: (i32, i32),
    includes: &[String],
) -> Result<BTreeMap<String, PtxasResources>, String> {
    let first = source
        .find("extern \"C\" __global__")
        .ok_or_else(|| "the module has no kernel".to_string())?;
    let mut src = source[..first].to_string();
    let mut seen = std::collections::BTreeSet::new();
    for (name, threads) in kernels {
        if seen.insert(name.clone()) {
            if let Some(k) = kernel_min_blocks_text(source, name, *threads) {
                src.push_str(&k);
            }
        }
    }
    compile_cubin_logged(&src, sm, includes)
        .map(|(_, log)| ptxas_resources(&log))
        .map_err(|e| e.to_string().lines().next().unwrap_or_default().to_string())
}

/// Ask ptxas again about every case whose failing kernel spilled with
/// registers to spare ([`CaseResult::spills_by_choice`]): compile those
/// kernels, with the module's header, under `__launch_bounds__(threads, 1)`
/// and record registers and spill bytes in
/// [`CaseResult::occupancy_spill`]. A compile error leaves the cases as
/// they were, with a note.
pub(crate) fn recheck_min_blocks(
    source: &str,
    results: &mut [CaseResult],
    sm: (i32, i32),
    includes: &[String],
    notes: &mut Vec<String>,
) {
    let todo: Vec<(usize, &'static str, u32, String)> = results
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            c.spills_by_choice().into_iter().map(move |(kind, regs)| {
                (
                    i,
                    kind,
                    regs,
                    c.kernels[usize::from(kind == "loop")].clone(),
                )
            })
        })
        .collect();
    if todo.is_empty() {
        return;
    }
    let kernels: Vec<(String, u32)> = todo
        .iter()
        .map(|(i, kind, _, name)| (name.clone(), results[*i].kernel_threads(kind)))
        .collect();
    let ptxas = match compile_min_blocks(source, &kernels, sm, includes) {
        Ok(p) => p,
        Err(e) => {
            notes.push(format!(
                "the kernels that spilled with registers to spare did not compile again under __launch_bounds__(threads, 1): {e}"
            ));
            return;
        }
    };
    for (i, kind, regs, name) in todo {
        if let Some(p) = ptxas.get(&name) {
            results[i].occupancy_spill.push(MinBlocksRecheck {
                kernel: kind,
                registers: regs,
                min_blocks_registers: p.registers,
                min_blocks_spill_bytes: p.spill_store_bytes + p.spill_load_bytes,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recheck compiles one kernel of the module with one CTA per SM
    /// allowed: its text up to the next kernel, launch bounds rewritten.
    #[test]
    fn a_kernel_is_cut_from_its_module_with_min_blocks_one() {
        let m = "#include \"h.cuh\"\n// check a\nextern \"C\" __global__ void __launch_bounds__(128) wf_a(int* p) { p[0] = 1; }// loop a\n\
extern \"C\" __global__ void __launch_bounds__(128) wf_a_loop(int* p) { p[1] = 2; }\n";
        let a = kernel_min_blocks_text(m, "wf_a", 128).unwrap();
        assert!(
            a.starts_with("extern \"C\" __global__ void __launch_bounds__(128, 1) wf_a(int* p)")
        );
        assert!(!a.contains("wf_a_loop"));
        let l = kernel_min_blocks_text(m, "wf_a_loop", 128).unwrap();
        assert!(l.contains("__launch_bounds__(128, 1) wf_a_loop") && l.ends_with("}\n"));
        // other launch bounds (a loop kernel under __maxnreg__): not found
        assert_eq!(kernel_min_blocks_text(m, "wf_a", 256), None);
        assert_eq!(kernel_min_blocks_text(m, "wf_b", 128), None);
    }
}
