//! Compile checks of AMD helpers (HIP), for a machine without an AMD GPU or
//! ROCm: the same check kernels the GPU path runs on NVIDIA
//! ([`crate::module`]), compiled as HIP device code for the helper's
//! architecture by a clang with the AMDGPU backend, and the amdgcn
//! assembly read per kernel: instruction counts by class (`ds_bpermute`,
//! `v_perm_b32`, DPP, `v_permlane*`, LDS reads and writes with their
//! bytes, `s_barrier`, VALU, all) and the VGPR, AGPR and SGPR counts and
//! scratch (spill) bytes the compiler reports (`; NumVgprs:` etc. of its
//! "Kernel info" block).
//!
//! The compiler: `WARPFORGE_HIP_CLANG` (a command line, split on
//! whitespace, e.g. `clang` of a ROCm install or `python3 -m ziglang
//! clang`), else `python3 -m ziglang clang` (`pip install ziglang`), run as
//! `-x hip --offload-arch=<gfx> -nogpulib -nogpuinc --cuda-device-only -O2
//! -S`. Without ROCm's headers the module starts with [`HIP_PRELUDE`]: the
//! few HIP runtime names the check kernels use (`threadIdx`, `blockIdx`,
//! `blockDim`, `__syncthreads`, `__launch_bounds__`, ...), defined as
//! hip_runtime.h defines them on AMD GPUs. The helpers' own header needs
//! none of them but `threadIdx`, `__syncthreads` and the function
//! qualifiers.

use crate::dtype::ctype;
use crate::module::{check_kernel, forms, kernel_name};
use crate::{DType, GpuCase, VerifyError};
use std::collections::BTreeMap;
use std::process::Command;
use synth::target::AmdArch;

/// The HIP runtime names the check kernels use, for a compile without
/// ROCm's headers (skipped when `hip_runtime.h` was included first), with
/// the meaning hip_runtime.h gives them on AMD GPUs (`amd_hip_runtime.h`,
/// `amd_device_functions.h`).
pub const HIP_PRELUDE: &str = r#"// HIP runtime names for a compile without ROCm (clang -nogpuinc)
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define __align__(n) __attribute__((aligned(n)))
struct wf_hip_dim_x {
  unsigned x;
};
#define threadIdx (wf_hip_dim_x{(unsigned)__builtin_amdgcn_workitem_id_x()})
#define blockIdx (wf_hip_dim_x{(unsigned)__builtin_amdgcn_workgroup_id_x()})
#define blockDim (wf_hip_dim_x{(unsigned)__builtin_amdgcn_workgroup_size_x()})
#define memcpy __builtin_memcpy
__device__ __forceinline__ void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
#endif
"#;

/// Instruction counts of one kernel's amdgcn, by class.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IsaCounts {
    /// Every instruction.
    pub total: u64,
    /// Vector ALU instructions (`v_*`).
    pub valu: u64,
    /// `ds_bpermute_b32` and `ds_permute_b32` (cross-lane through the LDS crossbar).
    pub bpermute: u64,
    /// `ds_swizzle_b32`.
    pub swizzle: u64,
    /// DPP instructions (`_dpp`, `row_*`, `quad_perm`).
    pub dpp: u64,
    /// `v_permlane*`.
    pub permlane: u64,
    /// `v_perm_b32` (byte permutes).
    pub perm: u64,
    /// `v_cndmask_b32` (selects).
    pub cndmask: u64,
    /// LDS reads (`ds_read*`/`ds_load*`) and the bytes per lane they move.
    pub lds_read: u64,
    pub lds_read_bytes: u64,
    /// LDS writes (`ds_write*`/`ds_store*`) and the bytes per lane.
    pub lds_write: u64,
    pub lds_write_bytes: u64,
    /// `s_barrier`.
    pub barrier: u64,
}

/// One compiled kernel: its counts and resources.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HipKernel {
    /// The kernel's name (`wf_test_<helper>_<dtype>[_packed][_inplace]`).
    pub kernel: String,
    /// The helper it calls (its C identifier).
    pub helper: String,
    /// The conversion (`func:line`).
    pub name: String,
    /// The element type.
    pub dtype: DType,
    /// The form (`elements`, `packed`, ..., as the GPU report names it).
    pub form: &'static str,
    pub counts: IsaCounts,
    /// Registers the compiler reports: VGPRs, AGPRs (CDNA: a check kernel
    /// has no MFMA, so AGPRs hold VGPRs LLVM spilled), SGPRs.
    pub vgpr: u32,
    pub agpr: u32,
    pub sgpr: u32,
    /// Scratch bytes per lane (`; ScratchSize:`): nonzero is a spill.
    pub scratch_bytes: u32,
}

/// The compile check of one architecture's helpers.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HipReport {
    pub arch: AmdArch,
    /// The compiler command and its `--version` line.
    pub compiler: String,
    /// Wall-clock seconds of the compile.
    pub seconds: f64,
    pub kernels: Vec<HipKernel>,
    /// The module's source (prelude, header, kernels).
    #[serde(skip)]
    pub source: String,
    /// The amdgcn assembly.
    #[serde(skip)]
    pub asm: String,
}

/// The HIP compiler command (`WARPFORGE_HIP_CLANG`, else `python3 -m
/// ziglang clang`) and its version line.
///
/// Errors: it does not run, or is not a clang (say how to get one).
pub fn hip_compiler() -> Result<(Vec<String>, String), VerifyError> {
    let cmd: Vec<String> = match std::env::var("WARPFORGE_HIP_CLANG") {
        Ok(c) if !c.trim().is_empty() => c.split_whitespace().map(String::from).collect(),
        _ => ["python3", "-m", "ziglang", "clang"]
            .map(String::from)
            .to_vec(),
    };
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .arg("--version")
        .output()
        .map_err(|e| no_compiler(&cmd, &e.to_string()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next().unwrap_or("").trim().to_string();
    if !out.status.success() || !line.contains("clang") {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(no_compiler(
            &cmd,
            err.lines().next().unwrap_or("not a clang"),
        ));
    }
    Ok((cmd, line))
}

fn no_compiler(cmd: &[String], why: &str) -> VerifyError {
    VerifyError::NoHipCompiler(format!(
        "`{}` does not run as a clang with the AMDGPU backend ({why}): `pip install ziglang`, or set WARPFORGE_HIP_CLANG to a ROCm clang",
        cmd.join(" ")
    ))
}

/// A HIP check module: its source, and per kernel (name, helper
/// identifier, conversion name, element type, form).
pub type HipModule = (String, Vec<(String, String, String, DType, &'static str)>);

/// The module that compiles every case's check kernels for every dtype
/// and form ([`forms`]): [`HIP_PRELUDE`], `header`, the kernels; f16 as
/// its 16-bit payload. Per case and dtype also a baseline kernel (form
/// `baseline`): the element check kernel's loads and stores without the
/// helper, so that a kernel's counts less its baseline's are the helper's.
pub fn hip_module_source(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
) -> Result<HipModule, VerifyError> {
    let mut src = String::from(HIP_PRELUDE);
    src.push_str(header);
    let mut kernels = Vec::new();
    for c in cases {
        for &d in dtypes {
            let ct = ctype(d, false);
            if forms(c.helper, d).is_empty() {
                continue;
            }
            // the harness alone: the element kernel's loads and stores
            // around no conversion (destination entry j takes source entry
            // j mod the source count), for counts of the helper's own work
            let h = c.helper;
            let name = format!("{}_base", kernel_name(h, d, forms(h, d)[0]));
            src.push_str(&format!(
                "// baseline of {}: the check kernel's loads and stores, no conversion\nextern \"C\" __global__ void __launch_bounds__({}) {name}(const {ct}* __restrict__ in, {ct}* __restrict__ out) {{\n  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;\n  {ct} src[{}];\n",
                h.ident, h.threads, h.src_regs
            ));
            for i in 0..h.src_regs {
                src.push_str(&format!("  src[{i}] = in[tid * {}u + {i}u];\n", h.src_regs));
            }
            for j in 0..h.dst_regs {
                src.push_str(&format!(
                    "  out[tid * {}u + {j}u] = src[{}];\n",
                    h.dst_regs,
                    j % h.src_regs.max(1)
                ));
            }
            src.push_str("}\n");
            kernels.push((name, h.ident.clone(), h.name.clone(), d, "baseline"));
            for f in forms(c.helper, d) {
                let name = kernel_name(c.helper, d, f);
                if let Some(k) = check_kernel(c.helper, d, ct, f, &name)? {
                    src.push_str(&k);
                    kernels.push((
                        name,
                        c.helper.ident.clone(),
                        c.helper.name.clone(),
                        d,
                        f.name(),
                    ));
                }
            }
        }
    }
    Ok((src, kernels))
}

/// Compile the check kernels of `cases` (helpers planned for `arch`) with
/// the HIP compiler ([`hip_compiler`]) and count each kernel's amdgcn.
///
/// Errors: no compiler; the compile fails (its first error lines); a check
/// kernel missing from the assembly.
pub fn compile_hip(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
    arch: AmdArch,
) -> Result<HipReport, VerifyError> {
    let (cmd, version) = hip_compiler()?;
    let (source, kernels) = hip_module_source(header, cases, dtypes)?;
    let dir = tempfile::tempdir().map_err(|e| VerifyError::HipCompile(e.to_string()))?;
    let input = dir.path().join("check.hip");
    let output = dir.path().join("check.s");
    std::fs::write(&input, &source).map_err(|e| VerifyError::HipCompile(e.to_string()))?;
    let started = std::time::Instant::now();
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .args(["-x", "hip"])
        .arg(format!("--offload-arch={}", arch.name()))
        .args([
            "-nogpulib",
            "-nogpuinc",
            "--cuda-device-only",
            "-O2",
            "-S",
            "-o",
        ])
        .arg(&output)
        .arg(&input)
        .output()
        .map_err(|e| VerifyError::HipCompile(format!("{}: {e}", cmd.join(" "))))?;
    let seconds = started.elapsed().as_secs_f64();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("error"))
            .take(8)
            .collect();
        return Err(VerifyError::HipCompile(format!(
            "HIP compile for {arch} failed ({}): {}",
            cmd.join(" "),
            if first.is_empty() {
                err.lines().take(8).collect::<Vec<_>>().join("\n")
            } else {
                first.join("\n")
            }
        )));
    }
    let asm =
        std::fs::read_to_string(&output).map_err(|e| VerifyError::HipCompile(e.to_string()))?;
    let per = count_amdgcn(&asm);
    let mut out_kernels = Vec::with_capacity(kernels.len());
    for (kernel, helper, name, dtype, form) in kernels {
        let Some(k) = per.get(&kernel) else {
            return Err(VerifyError::HipCompile(format!(
                "HIP compile for {arch}: kernel {kernel} is not in the assembly"
            )));
        };
        out_kernels.push(HipKernel {
            kernel,
            helper,
            name,
            dtype,
            form,
            ..k.clone()
        });
    }
    Ok(HipReport {
        arch,
        compiler: format!("{} ({version})", cmd.join(" ")),
        seconds,
        kernels: out_kernels,
        source,
        asm,
    })
}

/// Bytes per lane an LDS access moves, from its mnemonic's suffix
/// (`ds_read_b128`: 16, `ds_write_b8`/`ds_read_u8`: 1, `ds_read2_b32`: 8,
/// `ds_read2st64_b64`: 16, `_d16_hi` variants: 2).
fn lds_bytes(op: &str) -> u64 {
    let two = if op.contains("read2")
        || op.contains("write2")
        || op.contains("load_2")
        || op.contains("store_2")
    {
        2
    } else {
        1
    };
    let bits: u64 = op
        .rsplit('_')
        .find_map(|p| {
            p.strip_prefix('b')
                .or_else(|| p.strip_prefix('u'))
                .or_else(|| p.strip_prefix('i'))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(32);
    two * bits / 8
}

/// Counts and resources of every kernel in amdgcn assembly `asm` (clang
/// `-S` output), by kernel name.
pub fn count_amdgcn(asm: &str) -> BTreeMap<String, HipKernel> {
    let mut out: BTreeMap<String, HipKernel> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut info: Option<String> = None;
    for line in asm.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix(".type").and_then(|r| {
            let r = r.trim();
            r.strip_suffix(",@function").map(str::to_string)
        }) {
            out.entry(name.clone()).or_insert_with(|| HipKernel {
                kernel: name.clone(),
                helper: String::new(),
                name: String::new(),
                dtype: DType::I32,
                form: "",
                counts: IsaCounts::default(),
                vgpr: 0,
                agpr: 0,
                sgpr: 0,
                scratch_bytes: 0,
            });
            continue;
        }
        if let Some(label) = line.strip_suffix(':').or_else(|| {
            line.split_once(':')
                .filter(|(l, rest)| {
                    !l.starts_with(['\t', ' ', '.', ';']) && rest.trim().starts_with(';')
                })
                .map(|(l, _)| l)
        }) {
            if out.contains_key(label) {
                current = Some(label.to_string());
                continue;
            }
        }
        if t.starts_with(".Lfunc_end") {
            current = None;
            continue;
        }
        if let Some(name) = t
            .strip_prefix(".set ")
            .and_then(|r| r.split_once(".num_vgpr"))
        {
            info = Some(name.0.to_string());
        }
        if let (Some(k), Some(rest)) = (info.as_ref(), t.strip_prefix("; ")) {
            let num = |key: &str| {
                rest.strip_prefix(key)
                    .and_then(|v| v.trim().parse::<u32>().ok())
            };
            if let Some(e) = out.get_mut(k) {
                if let Some(n) = num("NumVgprs:") {
                    e.vgpr = n;
                } else if let Some(n) = num("NumAgprs:") {
                    e.agpr = n;
                } else if let Some(n) = num("TotalNumSgprs:") {
                    e.sgpr = n;
                } else if let Some(n) = num("ScratchSize:") {
                    e.scratch_bytes = n;
                }
            }
            continue;
        }
        let Some(k) = current.as_ref() else { continue };
        if t.is_empty() || t.starts_with(';') || t.starts_with('.') || t.ends_with(':') {
            continue;
        }
        let op = t.split_whitespace().next().unwrap_or("");
        let c = &mut out.get_mut(k).expect("current kernel").counts;
        c.total += 1;
        if op.starts_with("v_") {
            c.valu += 1;
        }
        if op.starts_with("ds_bpermute") || op.starts_with("ds_permute") {
            c.bpermute += 1;
        } else if op.starts_with("ds_swizzle") {
            c.swizzle += 1;
        } else if op.starts_with("ds_read") || op.starts_with("ds_load") {
            c.lds_read += 1;
            c.lds_read_bytes += lds_bytes(op);
        } else if op.starts_with("ds_write") || op.starts_with("ds_store") {
            c.lds_write += 1;
            c.lds_write_bytes += lds_bytes(op);
        }
        if op.ends_with("_dpp") || t.contains("row_") || t.contains("quad_perm") {
            c.dpp += 1;
        }
        if op.starts_with("v_permlane") {
            c.permlane += 1;
        }
        if op.starts_with("v_perm_b32") {
            c.perm += 1;
        }
        if op.starts_with("v_cndmask") {
            c.cndmask += 1;
        }
        if op == "s_barrier" {
            c.barrier += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_classes_and_resources() {
        let asm = "\t.type\tk,@function\nk:                                      ; @k\n\tv_mbcnt_lo_u32_b32 v2, -1, 0\n\tds_write_b128 v6, v[10:13]\n\ts_barrier\n\tds_read_b128 v[2:5], v2\n\tds_read_u16 v3, v2\n\tds_bpermute_b32 v4, v6, v4\n\tv_perm_b32 v2, v3, v2, s2\n\tv_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf\n\ts_endpgm\n.Lfunc_end0:\n\t.set k.num_vgpr, 14\n; Kernel info:\n; TotalNumSgprs: 9\n; NumVgprs: 14\n; NumAgprs: 0\n; ScratchSize: 0\n";
        let m = count_amdgcn(asm);
        let k = &m["k"];
        assert_eq!(k.counts.total, 9);
        assert_eq!(k.counts.valu, 3);
        assert_eq!((k.counts.lds_write, k.counts.lds_write_bytes), (1, 16));
        assert_eq!((k.counts.lds_read, k.counts.lds_read_bytes), (2, 18));
        assert_eq!((k.counts.bpermute, k.counts.perm, k.counts.dpp), (1, 1, 1));
        assert_eq!(k.counts.barrier, 1);
        assert_eq!((k.vgpr, k.sgpr, k.scratch_bytes), (14, 9, 0));
        assert_eq!(lds_bytes("ds_read2_b64"), 16);
        assert_eq!(lds_bytes("ds_write_b8"), 1);
    }
}
