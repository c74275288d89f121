//! The global-memory baseline of a conversion across the CTAs of a cluster
//! (docs/ARCHITECTURE.md 4.7): what a kernel without distributed shared
//! memory does, a round trip of the same data through global memory ordered
//! by the same cluster barriers. `warpforge bench` times it beside the
//! cluster helpers (issue 25 item 5).

use crate::expr::linear_expr;
use crate::render::env;
use crate::EmitError;
use minijinja::context;
use synth::plan::analysis::Side;
use synth::plan::Analysis;

/// `(register, in-CTA tag of the register bits)` for every register, and the
/// same with registers that repeat an earlier register's element left out
/// (stored once).
fn registers(s: &Side, regs: u32) -> (Vec<(u32, u32)>, Vec<(u32, u32)>) {
    let all: Vec<(u32, u32)> = (0..regs)
        .map(|r| (r, s.tag(r as u64, 0, 0, 0) as u32))
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let once = all
        .iter()
        .copied()
        .filter(|&(_, t)| seen.insert(t))
        .collect();
    (all, once)
}

/// The run-time part of a side's tag: its lane, warp and CTA-rank columns as
/// one C expression of `lane`, `warp` and `rank`.
fn offset(s: &Side) -> String {
    let col = |v: &[u64]| v.iter().map(|&c| c as u32).collect::<Vec<u32>>();
    let parts: Vec<String> = [
        linear_expr("lane", &col(&s.lane)),
        linear_expr("warp", &col(&s.warp)),
        linear_expr("rank", &col(&s.block)),
    ]
    .into_iter()
    .filter(|e| e != "0u")
    .collect();
    if parts.is_empty() {
        "0u".into()
    } else {
        parts.join(" ^ ")
    }
}

/// The global-memory timing kernel of the conversion `an` (source to
/// destination, xor 1, back), with the signature of the helpers' timing
/// kernels plus `T* g`: `2^tensor_bits` elements per cluster, the cluster's
/// slice at `%clusterid.x * 2^tensor_bits`. Launch it with clusters of
/// `2^an.src.hw.block` CTAs. With `max_registers = Some(n)` it is declared
/// `__maxnreg__(n)` instead of its launch bounds, as the helpers' timing
/// kernels then are. Errors: a tensor of more than 2^31 elements (offsets
/// are 32-bit), and template errors.
pub fn emit_bench_kernel_global(
    an: &Analysis,
    ctype: &str,
    kernel: &str,
    max_registers: Option<u32>,
) -> Result<String, EmitError> {
    if an.tensor_bits > 31 {
        return Err(EmitError::TensorTooLarge {
            name: an.name.clone(),
            bits: an.tensor_bits,
        });
    }
    let (src_all, src_stores) = registers(&an.src, an.src_regs());
    let (dst_all, dst_stores) = registers(&an.dst, an.dst_regs());
    Ok(env().get_template("bench_kernel_global")?.render(context! {
        iters_doc => format!("{} through global memory, xor 1, back", an.name),
        kernel => kernel,
        ctype => ctype,
        threads => 32u32 << an.src.hw.warp,
        maxnreg => max_registers,
        elems => 1u64 << an.tensor_bits,
        src_regs => an.src_regs(),
        dst_regs => an.dst_regs(),
        src_off => offset(&an.src),
        dst_off => offset(&an.dst),
        src_all => src_all,
        src_stores => src_stores,
        dst_all => dst_all,
        dst_stores => dst_stores,
        barrier => "asm volatile(\"barrier.cluster.arrive.release.aligned;\" ::: \"memory\"); asm volatile(\"barrier.cluster.wait.acquire.aligned;\" ::: \"memory\");",
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use synth::plan::Conversion;

    fn conv(src: &str, dst: &str) -> Conversion {
        let text = format!(
            "#a = {src}\n#b = {dst}\nmodule attributes {{\"ttg.num-ctas\" = 2 : i32, \"ttg.num-warps\" = 1 : i32, \"ttg.threads-per-warp\" = 32 : i32}} {{\n  tt.func @c(%x: tensor<64xi32, #a>) {{\n    %0 = ttg.convert_layout %x : tensor<64xi32, #a> -> tensor<64xi32, #b>\n    tt.return\n  }}\n}}\n"
        );
        let f = synth::parse::parse_ttgir(&text).unwrap();
        Conversion::from_op(&f.converts[0]).unwrap()
    }

    #[test]
    fn stores_each_element_once_and_addresses_by_lane_warp_and_rank() {
        // 2 CTAs, 128 elements: register 0 of the source repeats in register
        // 1 (a zero register basis), so it is stored once
        let c = conv(
            "#ttg.linear<{register = [[0]], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32]]}>",
            "#ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = [[0]]}>",
        );
        let an = Analysis::new(&c).unwrap();
        let k = emit_bench_kernel_global(&an, "int", "k", None).unwrap();
        assert!(
            k.contains("const unsigned sa = (lane & 31u) ^ ((rank & 1u) << 5);"),
            "{k}"
        );
        assert!(
            k.contains("const unsigned da = ((lane & 31u) << 1);"),
            "{k}"
        );
        assert_eq!(k.matches("gc[sa ^ 0u] = a[").count(), 1, "{k}");
        assert_eq!(k.matches("a[1] = gc[sa ^ 0u];").count(), 1, "{k}");
        assert_eq!(
            k.matches("barrier.cluster.arrive.release.aligned").count(),
            4
        );
        assert!(k.contains("g + (unsigned long long)cid * 64ull"), "{k}");
    }
}
