//! One verification run: compile the module of every case, then launch and
//! check each case on the GPU ([`verify_on_gpu`]) or read what ptxas made
//! of it ([`compile_only`]), and gather the [`GpuReport`].

use crate::check::run_case;
use crate::compile::{cuda_include_dirs, nvrtc_ptx, PtxasResources};
use crate::dtype::ctype;
use crate::launch::{device_smem_optin, driver_err, launch_refusal};
use crate::module::{
    compile_module, data_registers, dtype_forms, kernel_name, loop_cap, loop_kernel_name,
    CompiledModule, Form, ModulePart,
};
use crate::occupancy::recheck_min_blocks;
use crate::{
    allow_cluster_size, cluster_ctas, probe_gpu, sass_of, CaseResult, DType, GpuInfo, GpuReport,
    LoopCost, SassCounts, VerifyError,
};
use cudarc::driver::{CudaContext, CudaModule, CudaStream};
use cudarc::nvrtc::Ptx;
use kernels::EmittedHelper;
use std::collections::BTreeMap;
use std::sync::Arc;
use synth::plan::Analysis;

/// `cuobjdump -sass` of a module and its counts per kernel ([`sass_of`]);
/// `None` without cuobjdump.
type Sass = Option<(String, BTreeMap<String, SassCounts>)>;

/// One helper to check, with the analysis that says what every slot holds.
pub struct GpuCase<'a> {
    pub helper: &'a EmittedHelper,
    pub analysis: &'a Analysis,
}

/// Compile every case for every dtype into one check module (in parallel
/// parts, [`compile_module`]), run, compare. With
/// `max_registers = Some(n)` the register-budget loop kernels are compiled
/// under `__maxnreg__(n)` (the limit of a kernel that keeps registers of
/// its own) instead of their launch bounds, and their spills are judged
/// against n ([`CaseResult::spill_problem`]); the check kernels keep their
/// launch bounds.
pub fn verify_on_gpu(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
    max_registers: Option<u32>,
) -> Result<GpuReport, VerifyError> {
    verify_on_gpu_for(header, cases, dtypes, max_registers, None)
}

/// [`verify_on_gpu`] for the helpers of an older `target` than the GPU at
/// hand (`None`: the GPU's own): the module is compiled by NVRTC for that
/// target, so `__CUDA_ARCH__` is the target's (the header's guard and every
/// instruction choice as the target sees them), its SASS counts and ptxas
/// report are the target's, and it runs here as `compute_<target>` PTX
/// that the driver compiles for this GPU.
///
/// Errors: those of [`verify_on_gpu`]; a target newer than the GPU.
pub fn verify_on_gpu_for(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
    max_registers: Option<u32>,
    target: Option<(i32, i32)>,
) -> Result<GpuReport, VerifyError> {
    let gpu = probe_gpu()?;
    let sm = target.unwrap_or(gpu.sm);
    if sm > gpu.sm {
        return Err(VerifyError::Compile(format!(
            "sm_{}{} helpers cannot run on this sm_{}{} GPU",
            sm.0, sm.1, gpu.sm.0, gpu.sm.1
        )));
    }
    let mut notes = Vec::new();
    let t0 = std::time::Instant::now();
    let CompiledModule {
        source: src,
        parts,
        half,
        ..
    } = compile_module(header, cases, dtypes, max_registers, sm, &mut notes)?;
    let images = parts
        .iter()
        .map(|p| module_image(&p.source, &p.cubin, sm, gpu.sm, &mut notes))
        .collect::<Result<Vec<_>, _>>()?;
    let compile_seconds = t0.elapsed().as_secs_f64();
    let sass = sass_of_parts(&parts);
    if sass.is_none() {
        notes.push("cuobjdump not found or failed: no SASS counts".into());
    }
    let ctx = CudaContext::new(0).map_err(driver_err)?;
    let modules = images
        .into_iter()
        .map(|i| ctx.load_module(i).map_err(driver_err))
        .collect::<Result<Vec<_>, _>>()?;
    let run = GpuRun {
        stream: ctx.default_stream(),
        modules,
        max_smem: device_smem_optin(&ctx)?,
        sm: gpu.sm,
        half,
        max_registers,
        sass: &sass,
    };
    let mut results = Vec::new();
    for c in cases {
        for (d, form) in dtype_forms(c.helper, dtypes) {
            results.push(run.case_result(c, d, form));
        }
    }
    recheck_min_blocks(&src, &mut results, gpu.sm, &cuda_include_dirs(), &mut notes);
    Ok(GpuReport {
        gpu,
        compile_seconds,
        cases: results,
        notes,
        source: src,
        sass_text: sass.as_ref().map(|(t, _)| t.clone()).unwrap_or_default(),
    })
}

/// What the driver loads for a module (one part of a check module)
/// compiled for `sm` on a GPU of `gpu_sm`: its CUBIN when they are the
/// same, else (with a note, once) the module `src` compiled again as
/// `compute_<sm>` PTX, which the driver compiles for this GPU.
fn module_image(
    src: &str,
    cubin: &[u8],
    sm: (i32, i32),
    gpu_sm: (i32, i32),
    notes: &mut Vec<String>,
) -> Result<Ptx, VerifyError> {
    if sm == gpu_sm {
        return Ok(Ptx::from_binary(cubin.to_vec()));
    }
    let note = format!(
        "compiled for sm_{}{} (SASS counts and registers of that target) and run on this sm_{}{} GPU as compute_{}{} PTX",
        sm.0, sm.1, gpu_sm.0, gpu_sm.1, sm.0, sm.1
    );
    if !notes.contains(&note) {
        notes.push(note);
    }
    Ok(Ptx::from_src(nvrtc_ptx(src, sm, &cuda_include_dirs())?))
}

/// `cuobjdump -sass` of every part ([`sass_of`], in parallel): the texts
/// one after another and the counts of every kernel; `None` where any part
/// has none.
fn sass_of_parts(parts: &[ModulePart]) -> Sass {
    use rayon::prelude::*;
    let each: Vec<Sass> = parts.par_iter().map(|p| sass_of(&p.cubin)).collect();
    let mut text = String::new();
    let mut counts = BTreeMap::new();
    for (t, c) in each.into_iter().collect::<Option<Vec<_>>>()? {
        text.push_str(&t);
        counts.extend(c);
    }
    Some((text, counts))
}

/// A check module loaded on the GPU (its parts, [`CompiledModule::parts`]),
/// with what every case's result of the run takes from it.
struct GpuRun<'a> {
    stream: Arc<CudaStream>,
    modules: Vec<Arc<CudaModule>>,
    /// Dynamic shared memory a block may opt in to ([`device_smem_optin`]).
    max_smem: u64,
    /// The GPU's compute capability.
    sm: (i32, i32),
    /// f16 as `__half` (else as its 16-bit payload).
    half: bool,
    /// The `--max-registers` the loop kernels were compiled under.
    max_registers: Option<u32>,
    sass: &'a Sass,
}

impl GpuRun<'_> {
    /// The result of case `c` with `d` in `form`: its check kernel run and
    /// compared ([`run_case`]), or the reason it could not launch; the SASS
    /// counts and registers of its check and loop kernels.
    fn case_result(&self, c: &GpuCase, d: DType, form: Form) -> CaseResult {
        let kn = kernel_name(c.helper, d, form);
        let r = self
            .launch(c, d, &kn)
            .unwrap_or_else(|e| self.unlaunched(c, d, e));
        let sass_counts = self.sass.as_ref().and_then(|(_, m)| m.get(&kn).cloned());
        let ln = loop_kernel_name(c.helper, d, form);
        let loop_kernel = self.registers(&ln).map(|registers| {
            LoopCost::of(registers, self.sass.as_ref().and_then(|(_, m)| m.get(&ln)))
        });
        let data_regs = data_registers(c.helper, d, form);
        CaseResult {
            form: form.name(),
            ctype: ctype(d, self.half).to_string(),
            sass: sass_counts,
            registers: self.registers(&kn),
            loop_kernel,
            data_regs,
            reg_limit: synth::plan::capped_register_limit(self.max_registers, c.helper.threads),
            max_registers: loop_cap(self.max_registers, c.helper.threads),
            threads: c.helper.threads,
            check_threads: c.helper.threads + kernels::other_group_threads(c.helper),
            kernels: [kn, ln],
            ..r
        }
    }

    /// Launch the check kernel `kn` of case `c` with `d` and compare
    /// ([`run_case`]). Errors, as the case's first error: the case cannot
    /// launch on this device ([`launch_refusal`]), or the driver refused it.
    fn launch(&self, c: &GpuCase, d: DType, kn: &str) -> Result<CaseResult, String> {
        let smem = c.helper.smem_bytes(d.bits()).unwrap_or(0);
        // a case that cannot launch here is a failed case, and the
        // rest of the file still runs
        let cluster = cluster_ctas(c.analysis);
        if let Some(why) = launch_refusal(smem, self.max_smem, cluster, self.sm, "the device") {
            return Err(why);
        }
        let f = self.function(kn).map_err(|e| driver_err(e).to_string())?;
        if smem > 48 * 1024 {
            f.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                smem as i32,
            )
            .map_err(|e| driver_err(e).to_string())?;
        }
        allow_cluster_size(&f, cluster).map_err(|e| driver_err(e).to_string())?;
        run_case(&self.stream, &f, c, d, smem as u32).map_err(|e| format!("cannot launch: {e}"))
    }

    /// The result of case `c` with `d` that did not run: `error` is why,
    /// no slot was checked.
    fn unlaunched(&self, c: &GpuCase, d: DType, error: String) -> CaseResult {
        CaseResult {
            name: c.helper.name.clone(),
            ident: c.helper.ident.clone(),
            dtype: d,
            form: "elements",
            ctype: String::new(),
            passes: 0,
            slots_checked: 0,
            mismatches: 0,
            first_error: Some(error),
            sass: None,
            registers: None,
            loop_kernel: None,
            data_regs: 0,
            reg_limit: 0,
            max_registers: loop_cap(self.max_registers, c.helper.threads),
            threads: c.helper.threads,
            check_threads: c.helper.threads + kernels::other_group_threads(c.helper),
            compiled_only: false,
            kernels: Default::default(),
            occupancy_spill: Vec::new(),
        }
    }

    /// Kernel `name` from the part that has it. Errors: the first driver
    /// error other than "not found", else not found.
    fn function(
        &self,
        name: &str,
    ) -> Result<cudarc::driver::CudaFunction, cudarc::driver::DriverError> {
        use cudarc::driver::{sys::CUresult, DriverError};
        let mut err = DriverError(CUresult::CUDA_ERROR_NOT_FOUND);
        for m in &self.modules {
            match m.load_function(name) {
                Ok(f) => return Ok(f),
                // a real driver error outranks "not in this part"
                Err(e) if err.0 == CUresult::CUDA_ERROR_NOT_FOUND => err = e,
                Err(_) => {}
            }
        }
        Err(err)
    }

    /// Registers per thread of kernel `name` (`CU_FUNC_ATTRIBUTE_NUM_REGS`);
    /// `None` where the module has no such kernel.
    fn registers(&self, name: &str) -> Option<i32> {
        self.function(name).ok().and_then(|f| {
            f.get_attribute(cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
                .ok()
        })
    }
}

/// `verify --compile-only`: what a kernel pays for each helper, without a
/// GPU. Compiles the module [`verify_on_gpu`] would run (every one-shot
/// check and register-budget loop kernel, per dtype and form) with NVRTC
/// for `sm` and reads each kernel's registers and spills from ptxas
/// (`--ptxas-options=-v`), and, where `cuobjdump` runs, its SASS counts
/// with the spills inside the loop body ([`count_sass`](crate::count_sass)).
/// Without `cuobjdump`, any spill of a loop kernel counts as in its loop
/// body (a note says so). A helper whose scratch exceeds the target's
/// per-block shared memory (`synth::plan::smem_limit`) is reported as
/// unable to launch. Nothing runs: every case has `compiled_only` set and
/// no slot checked; the proof stays the CPU simulator's. Errors: no
/// libnvrtc, a module that does not compile.
pub fn compile_only(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
    max_registers: Option<u32>,
    sm: (i32, i32),
) -> Result<GpuReport, VerifyError> {
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(VerifyError::Compile(
            "the NVRTC library (libnvrtc) was not found (set LD_LIBRARY_PATH to a CUDA toolkit's or the nvidia-cuda-nvrtc wheel's lib directory)".into(),
        ));
    }
    let (mut maj, mut min) = (0, 0);
    unsafe {
        cudarc::nvrtc::sys::nvrtcVersion(&mut maj, &mut min);
    }
    let mut notes = vec![format!(
        "compiled only for sm_{}{} (NVRTC {maj}.{min}): nothing ran; registers and spills are ptxas's",
        sm.0, sm.1
    )];
    let t0 = std::time::Instant::now();
    let CompiledModule {
        source: src,
        parts,
        half,
        ptxas,
    } = compile_module(header, cases, dtypes, max_registers, sm, &mut notes)?;
    let compile_seconds = t0.elapsed().as_secs_f64();
    let sass = sass_of_parts(&parts);
    if sass.is_none() {
        notes.push(
            "cuobjdump not found or failed: no SASS counts, and a loop kernel's spills all count as in its loop body".into(),
        );
    }
    let target = (sm.0 * 10 + sm.1) as u32;
    let compiled = CompiledRun {
        sm,
        max_smem: synth::plan::smem_limit(target),
        half,
        max_registers,
        ptxas: &ptxas,
        sass: &sass,
    };
    let mut results = Vec::new();
    for c in cases {
        for (d, form) in dtype_forms(c.helper, dtypes) {
            results.push(compiled.case_result(c, d, form));
        }
    }
    recheck_min_blocks(&src, &mut results, sm, &cuda_include_dirs(), &mut notes);
    Ok(GpuReport {
        gpu: GpuInfo {
            name: "none (compiled only)".into(),
            sm,
            driver_version: 0,
            nvrtc_version: (maj, min),
        },
        compile_seconds,
        cases: results,
        notes,
        source: src,
        sass_text: sass.as_ref().map(|(t, _)| t.clone()).unwrap_or_default(),
    })
}

/// A check module compiled for a target without a GPU ([`compile_only`]),
/// with what every case's result takes from it.
struct CompiledRun<'a> {
    /// The target's compute capability.
    sm: (i32, i32),
    /// The target's shared memory per block (`synth::plan::smem_limit`).
    max_smem: u64,
    /// f16 as `__half` (else as its 16-bit payload).
    half: bool,
    /// The `--max-registers` the loop kernels were compiled under.
    max_registers: Option<u32>,
    /// ptxas's report per kernel.
    ptxas: &'a BTreeMap<String, PtxasResources>,
    sass: &'a Sass,
}

impl CompiledRun<'_> {
    /// The compiled-only result of case `c` with `d` in `form`: registers
    /// and spills of its check and loop kernels from ptxas and the SASS;
    /// an error where it could not launch on the target or ptxas did not
    /// report its check kernel.
    fn case_result(&self, c: &GpuCase, d: DType, form: Form) -> CaseResult {
        let kn = kernel_name(c.helper, d, form);
        let ln = loop_kernel_name(c.helper, d, form);
        let smem = c.helper.smem_bytes(d.bits()).unwrap_or(0);
        let cluster = cluster_ctas(c.analysis);
        let first_error = if let Some(why) =
            launch_refusal(smem, self.max_smem, cluster, self.sm, "the target")
        {
            Some(why)
        } else if !self.ptxas.contains_key(&kn) {
            Some(format!("ptxas reported no kernel `{kn}`"))
        } else {
            None
        };
        CaseResult {
            name: c.helper.name.clone(),
            ident: c.helper.ident.clone(),
            dtype: d,
            form: form.name(),
            ctype: ctype(d, self.half).to_string(),
            passes: 0,
            slots_checked: 0,
            mismatches: 0,
            first_error,
            sass: self.check_kernel_counts(&kn),
            registers: self.ptxas.get(&kn).map(|p| p.registers as i32),
            loop_kernel: self.loop_cost(&ln),
            data_regs: data_registers(c.helper, d, form),
            reg_limit: synth::plan::capped_register_limit(self.max_registers, c.helper.threads),
            max_registers: loop_cap(self.max_registers, c.helper.threads),
            threads: c.helper.threads,
            check_threads: c.helper.threads + kernels::other_group_threads(c.helper),
            compiled_only: true,
            kernels: [kn, ln],
            occupancy_spill: Vec::new(),
        }
    }

    /// The SASS counts of kernel `k`; `None` without cuobjdump.
    fn counts(&self, k: &str) -> Option<SassCounts> {
        self.sass.as_ref().and_then(|(_, m)| m.get(k).cloned())
    }

    /// The SASS counts of check kernel `kn`, or without cuobjdump its
    /// spills from ptxas's bytes (4 bytes an instruction).
    fn check_kernel_counts(&self, kn: &str) -> Option<SassCounts> {
        self.counts(kn).or_else(|| {
            self.ptxas.get(kn).map(|p| SassCounts {
                ldl: p.spill_load_bytes.div_ceil(4),
                stl: p.spill_store_bytes.div_ceil(4),
                ..SassCounts::default()
            })
        })
    }

    /// What loop kernel `ln` pays: ptxas's registers with the SASS's spills,
    /// or without cuobjdump ptxas's spill bytes, all counted as in the loop
    /// body. `None`: ptxas did not report it.
    fn loop_cost(&self, ln: &str) -> Option<LoopCost> {
        self.ptxas.get(ln).map(|p| match self.counts(ln) {
            Some(s) => LoopCost::of(p.registers as i32, Some(&s)),
            None => {
                // bytes, not instructions: a nonzero count says only
                // that it spills, and where is unknown
                let (l, st) = (
                    p.spill_load_bytes.div_ceil(4),
                    p.spill_store_bytes.div_ceil(4),
                );
                LoopCost {
                    registers: p.registers as i32,
                    ldl: l,
                    stl: st,
                    ldl_in_loop: l,
                    stl_in_loop: st,
                }
            }
        })
    }
}
