//! GPU proof of emitted helpers (docs/ARCHITECTURE.md section 6) and SASS counts.
//!
//! Every helper is wrapped in a test kernel per element type; all of them go
//! into one NVRTC module (one compile, CUBIN for the device's own `sm_XY`),
//! loaded through the CUDA driver (`cudarc`, loaded at run time: builds
//! without CUDA). Each kernel gets tagged inputs (the row-major index of the
//! element every source slot holds) and every destination slot of every
//! thread is compared on the host with the index of its own element. For
//! 8- and 16-bit types the tag is checked one slice of bits per pass, so
//! every element is still told apart. With `cuobjdump` on the PATH, the CUBIN
//! is disassembled and the SASS opcodes counted per kernel: `SHFL`, `SEL`,
//! `PRMT`, `STS`, `LDS`, `BAR`, `LDSM`, `STSM`, and the local-memory spills
//! `LDL`/`STL` that must be zero.

pub mod junit;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use kernels::{
    emit_loop_kernel, emit_loop_kernel_inplace, emit_loop_kernel_words, emit_test_kernel,
    emit_test_kernel_inplace, emit_test_kernel_packed, emit_test_kernel_packed_inplace,
    emit_test_kernel_words, EmittedHelper,
};
use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::sync::Arc;
use synth::plan::{Analysis, Cost};

/// Element types the GPU check runs with. Types without a CUDA arithmetic
/// type of their own move as their bits: `bf16` as `unsigned short`, the
/// fp8 types as `unsigned char`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    I8,
    /// `f8E4M3FN` (as its bits).
    F8E4M3FN,
    /// `f8E5M2` (as its bits).
    F8E5M2,
    I16,
    F16,
    /// `bf16` (as its bits).
    Bf16,
    I32,
    F32,
    I64,
    F64,
}

impl DType {
    /// Every type, in width order.
    pub const ALL: [DType; 10] = [
        DType::I8,
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::I16,
        DType::F16,
        DType::Bf16,
        DType::I32,
        DType::F32,
        DType::I64,
        DType::F64,
    ];
    /// Parse a name of [`DType::name`] (`i8`, `f8E4M3FN`, `f8E5M2`, `i16`,
    /// `f16`, `bf16`, `i32`, `f32`, `i64`, `f64`).
    pub fn parse(s: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == s)
    }
    /// Bits per element.
    pub fn bits(&self) -> u32 {
        match self {
            DType::I8 | DType::F8E4M3FN | DType::F8E5M2 => 8,
            DType::I16 | DType::F16 | DType::Bf16 => 16,
            DType::I32 | DType::F32 => 32,
            DType::I64 | DType::F64 => 64,
        }
    }
    /// The name as TTGIR spells the type.
    pub fn name(&self) -> &'static str {
        match self {
            DType::I8 => "i8",
            DType::F8E4M3FN => "f8E4M3FN",
            DType::F8E5M2 => "f8E5M2",
            DType::I16 => "i16",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::I32 => "i32",
            DType::F32 => "f32",
            DType::I64 => "i64",
            DType::F64 => "f64",
        }
    }
}

/// How a report names a [`CaseResult::form`] after the dtype: nothing for
/// the element form, ` packed`, ` in place`, ` packed in place`,
/// ` words::src` (and the other `warpforge::words` choices).
pub fn form_suffix(form: &str) -> String {
    match form {
        "elements" => String::new(),
        "elements in place" => " in place".into(),
        f if f.starts_with("elements words::") => format!(" {}", &f["elements ".len()..]),
        f => format!(" {f}"),
    }
}

/// Errors of the GPU path.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("no GPU: {0}")]
    NoGpu(String),
    #[error("NVRTC compile failed: {0}")]
    Compile(String),
    #[error("CUDA driver: {0}")]
    Driver(String),
    #[error(transparent)]
    Emit(#[from] kernels::EmitError),
}

/// The GPU found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuInfo {
    pub name: String,
    pub sm: (i32, i32),
    pub driver_version: i32,
    pub nvrtc_version: (i32, i32),
}

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

/// Result of one helper with one element type.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CaseResult {
    pub name: String,
    pub ident: String,
    pub dtype: DType,
    /// `elements` (the templated helper, one element per array entry),
    /// `packed` (its `_packed8`/`_packed16` form on 32-bit words), or either
    /// `... in place` (its `_inplace` form: one array, source on entry,
    /// destination on return).
    pub form: &'static str,
    /// Element type used in CUDA (`int`, `__half`, `signed char`, ...).
    pub ctype: String,
    pub passes: u32,
    pub slots_checked: u64,
    pub mismatches: u64,
    /// First mismatch, described.
    pub first_error: Option<String>,
    pub sass: Option<SassCounts>,
    /// Registers per thread of the one-shot check kernel.
    pub registers: Option<i32>,
    /// What a kernel that holds the tile pays: the register-budget loop
    /// kernel (values live across iterations), compiled under the same
    /// launch bounds.
    pub loop_kernel: Option<LoopCost>,
    /// 32-bit registers the form's data alone needs: the larger side, one
    /// register per element (two per 64-bit element), or one per word in
    /// the packed form.
    pub data_regs: u32,
    /// Registers per thread the loop kernel may use: what the launch
    /// bounds allow (`min(255, 65536 / threads)` rounded down to a multiple
    /// of 8; PTX ISA / CUDA occupancy: 64K registers per SM), or the cap
    /// it was compiled under (`max_registers`) when lower.
    pub reg_limit: u32,
    /// The cap the loop kernel was compiled under (`__maxnreg__`, `verify
    /// --gpu --max-registers`, at most the launch bounds' limit); `None`:
    /// its launch bounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_registers: Option<u32>,
    /// Threads per CTA: the launch bounds of the one-shot check kernel
    /// (always) and of the loop kernel (without `max_registers`).
    pub threads: u32,
    /// Compiled only (`verify --compile-only`, [`compile_only`]): nothing
    /// ran, so no slot was checked; registers and spills are ptxas's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub compiled_only: bool,
    /// The names of the case's one-shot check kernel and its loop kernel in
    /// the module ([`GpuReport::source`]).
    #[serde(skip)]
    pub kernels: [String; 2],
    /// For each kernel that fails the budget after spilling with 16 or
    /// more registers of its limit unused ([`CaseResult::spills_by_choice`]):
    /// ptxas's compile of the same kernel under `__launch_bounds__(threads,
    /// 1)` ([`recheck_min_blocks`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub occupancy_spill: Vec<MinBlocksRecheck>,
}

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

/// Registers and local-memory traffic of a register-budget loop kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoopCost {
    pub registers: i32,
    /// All the kernel's `LDL`/`STL`.
    pub ldl: u32,
    pub stl: u32,
    /// Those inside the loop body ([`SassCounts::ldl_in_loop`]): what every
    /// iteration pays.
    pub ldl_in_loop: u32,
    pub stl_in_loop: u32,
}

impl LoopCost {
    /// The cost of a loop kernel of `registers` registers (the driver's
    /// `CU_FUNC_ATTRIBUTE_NUM_REGS` or ptxas's `-v` report) whose SASS
    /// counted `s` ([`count_sass`]); no SASS: no spill seen.
    pub fn of(registers: i32, s: Option<&SassCounts>) -> LoopCost {
        LoopCost {
            registers,
            ldl: s.map_or(0, |s| s.ldl),
            stl: s.map_or(0, |s| s.stl),
            ldl_in_loop: s.map_or(0, |s| s.ldl_in_loop),
            stl_in_loop: s.map_or(0, |s| s.stl_in_loop),
        }
    }
    /// Spill instructions inside the loop body.
    pub fn spills_in_loop(&self) -> u32 {
        self.ldl_in_loop + self.stl_in_loop
    }
    /// Spill instructions outside the loop body (once per launch).
    pub fn spills_outside_loop(&self) -> u32 {
        (self.ldl + self.stl).saturating_sub(self.spills_in_loop())
    }
}

pub use synth::plan::register_limit;

impl CaseResult {
    /// Every slot matched.
    /// Compiled only: the kernels compiled and it could launch.
    pub fn ok(&self) -> bool {
        if self.compiled_only {
            return self.first_error.is_none();
        }
        self.mismatches == 0 && self.slots_checked > 0
    }

    /// The data alone leaves less than 16 registers of the loop kernel's
    /// limit (`reg_limit`): its spills are the tile's, not the helper's (the
    /// caller should split the tile or use the packed form).
    pub fn spills_excused(&self) -> bool {
        self.data_regs + 16 > self.reg_limit
    }

    /// The kernels that fail the register budget, loop kernel first: the
    /// loop kernel spills in its loop body although the data alone leaves
    /// 16 of its limit (`reg_limit`: the launch bounds', or the cap) spare;
    /// the one-shot kernel spills although the data alone leaves 16 of its
    /// launch bounds' limit spare. Each: which (`loop`, `one-shot`), what
    /// it did, its limit, where the limit comes from, its registers.
    fn budget_spills(&self) -> Vec<(&'static str, String, u32, String, u32)> {
        let launch = register_limit(self.threads);
        let bounds = format!("the launch bounds at {} threads", self.threads);
        let mut out = Vec::new();
        if let Some(l) = self.loop_kernel.as_ref().filter(|l| l.spills_in_loop() > 0) {
            if !self.spills_excused() {
                out.push((
                    "loop",
                    format!(
                        "the loop kernel spills in its loop body ({} LDL, {} STL; {} more outside it) at {} registers",
                        l.ldl_in_loop,
                        l.stl_in_loop,
                        l.spills_outside_loop(),
                        l.registers
                    ),
                    self.reg_limit,
                    if self.max_registers.is_some() {
                        "--max-registers".to_string()
                    } else {
                        bounds.clone()
                    },
                    l.registers.max(0) as u32,
                ));
            }
        }
        if let Some(s) = self.sass.as_ref().filter(|s| s.ldl + s.stl > 0) {
            if self.data_regs + 16 <= launch {
                out.push((
                    "one-shot",
                    format!(
                        "the one-shot kernel spills ({} LDL, {} STL) at {} registers",
                        s.ldl,
                        s.stl,
                        self.registers.unwrap_or(0)
                    ),
                    launch,
                    bounds,
                    self.registers.unwrap_or(0).max(0) as u32,
                ));
            }
        }
        out
    }

    /// The kernels that fail the budget ([`CaseResult::budget_spills`])
    /// having spilled with 16 or more registers of their limit unused,
    /// under their launch bounds (not a `--max-registers` cap): ptxas chose
    /// to, and [`recheck_min_blocks`] asks it again. Each: which kernel
    /// (`loop`, `one-shot`) and its registers.
    pub fn spills_by_choice(&self) -> Vec<(&'static str, u32)> {
        self.budget_spills()
            .into_iter()
            .filter(|(kind, _, limit, _, regs)| {
                !(*kind == "loop" && self.max_registers.is_some())
                    && regs + OCCUPANCY_SLACK <= *limit
            })
            .map(|(kind, _, _, _, regs)| (kind, regs))
            .collect()
    }

    /// The recheck of kernel `kind` (`loop`, `one-shot`), if it was made.
    fn recheck(&self, kind: &str) -> Option<&MinBlocksRecheck> {
        self.occupancy_spill.iter().find(|r| r.kernel == kind)
    }

    /// Why this case's kernels fail their register budget, if they do
    /// ([`CaseResult::budget_spills`]): the first failing kernel that did
    /// not spill by choice, or did and still spills under
    /// `__launch_bounds__(threads, 1)` ([`CaseResult::occupancy_spill`]).
    /// `None`: every kernel fits its limit.
    pub fn spill_problem(&self) -> Option<String> {
        self.budget_spills().into_iter().find_map(|(kind, what, limit, source, _)| {
            let again = match self.recheck(kind) {
                Some(r) if r.min_blocks_spill_bytes == 0 => return None,
                Some(r) => format!(
                    "; under __launch_bounds__({}, 1) still {} bytes of spills at {} registers",
                    self.threads, r.min_blocks_spill_bytes, r.min_blocks_registers
                ),
                None => String::new(),
            };
            Some(format!(
                "{what}; limit {limit} per thread ({source}) would leave {} for the helper beyond its {} data registers{again}",
                limit - self.data_regs,
                self.data_regs
            ))
        })
    }

    /// For reports: each kernel that spilled by choice and has no spill
    /// under `__launch_bounds__(threads, 1)`, in one clause.
    pub fn occupancy_note(&self) -> Option<String> {
        let notes: Vec<String> = self
            .occupancy_spill
            .iter()
            .filter(|r| r.min_blocks_spill_bytes == 0)
            .map(|r| {
                format!(
                    "ptxas spilled the {} kernel at {} registers to fit more CTAs per SM; under __launch_bounds__({}, 1): {} registers, no spill",
                    r.kernel, r.registers, self.threads, r.min_blocks_registers
                )
            })
            .collect();
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

/// The CUDA text of kernel `name` in a module `source` built by
/// [`module_source`] (from its `extern "C"` line to the next kernel's),
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
fn recheck_min_blocks(
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
        .map(|(i, _, _, name)| (name.clone(), results[*i].threads))
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

/// Everything one GPU run found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuReport {
    pub gpu: GpuInfo,
    pub compile_seconds: f64,
    pub cases: Vec<CaseResult>,
    /// Notes (e.g. how f16 was represented, whether cuobjdump was found).
    pub notes: Vec<String>,
    /// The module source, for reproduction.
    #[serde(skip)]
    pub source: String,
    /// `cuobjdump -sass` of the module (empty without cuobjdump).
    #[serde(skip)]
    pub sass_text: String,
}

/// One helper to check, with the analysis that says what every slot holds.
pub struct GpuCase<'a> {
    pub helper: &'a EmittedHelper,
    pub analysis: &'a Analysis,
}

fn driver_err(e: impl std::fmt::Debug) -> VerifyError {
    VerifyError::Driver(format!("{e:?}"))
}

/// Is there a usable GPU (driver and NVRTC libraries, at least one device)?
pub fn probe_gpu() -> Result<GpuInfo, VerifyError> {
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(VerifyError::NoGpu(
            "the CUDA driver library (libcuda) was not found".into(),
        ));
    }
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(VerifyError::NoGpu(
            "the NVRTC library (libnvrtc) was not found".into(),
        ));
    }
    cudarc::driver::result::init()
        .map_err(|e| VerifyError::NoGpu(format!("cuInit failed: {e:?}")))?;
    let n = CudaContext::device_count().map_err(|e| VerifyError::NoGpu(format!("{e:?}")))?;
    if n < 1 {
        return Err(VerifyError::NoGpu("no CUDA device".into()));
    }
    let ctx = CudaContext::new(0).map_err(|e| VerifyError::NoGpu(format!("{e:?}")))?;
    let name = ctx.name().map_err(driver_err)?;
    let sm = ctx.compute_capability().map_err(driver_err)?;
    let mut driver_version = 0i32;
    unsafe {
        let _ = cudarc::driver::sys::cuDriverGetVersion(&mut driver_version);
    }
    let mut maj = 0;
    let mut min = 0;
    unsafe {
        cudarc::nvrtc::sys::nvrtcVersion(&mut maj, &mut min);
    }
    Ok(GpuInfo {
        name,
        sm,
        driver_version,
        nvrtc_version: (maj, min),
    })
}

fn cuda_include_dirs() -> Vec<String> {
    let mut v = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Ok(p) = std::env::var(var) {
            v.push(format!("{p}/include"));
        }
    }
    v.push("/usr/local/cuda/include".into());
    v.into_iter()
        .filter(|p| std::path::Path::new(p).join("cuda_fp16.h").exists())
        .collect()
}

/// NVRTC-compile `src` to CUBIN for `sm_{major}{minor}` (one compile: a
/// cubin the CUDA compute cache serves is the same cubin, and no log is
/// read, unlike [`compile_cubin_logged`]).
pub fn compile_cubin(
    src: &str,
    sm: (i32, i32),
    includes: &[String],
) -> Result<Vec<u8>, VerifyError> {
    nvrtc_cubin(src, sm, includes).map(|(c, _)| c)
}

/// [`compile_cubin`] with ptxas's verbose report (`--ptxas-options=-v`):
/// the CUBIN and NVRTC's program log, which holds ptxas's lines per kernel
/// ([`ptxas_resources`]). Needs only libnvrtc, no GPU or driver.
///
/// NVRTC can take the SASS of a PTX module it saw before from the CUDA
/// compute cache (`~/.nv/ComputeCache`) instead of running ptxas, and then
/// its log is empty. Measured on an H100 machine with CUDA 13 (issue 23):
/// every module compiled again in a later process, or
/// with only a define added, gave an empty log, and `warpforge bench`'s
/// occupancy recheck failed a check that had passed in the first run.
/// Where the source has a kernel and the log has no ptxas line for any, the
/// program is compiled once more with one unused `__device__` variable more
/// (`warpforge_ptxas_report_<process>_<count>_<nanoseconds>`): new PTX,
/// which no cached SASS matches, the kernels unchanged.
pub fn compile_cubin_logged(
    src: &str,
    sm: (i32, i32),
    includes: &[String],
) -> Result<(Vec<u8>, String), VerifyError> {
    let (cubin, log) = nvrtc_cubin(src, sm, includes)?;
    if log.contains("Compiling entry function '") || !src.contains("__global__") {
        return Ok((cubin, log));
    }
    static COMPILES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nonce = format!(
        "{}_{}_{}",
        std::process::id(),
        COMPILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let fresh = format!("{src}\n__device__ unsigned warpforge_ptxas_report_{nonce};\n");
    nvrtc_cubin(&fresh, sm, includes)
}

/// One NVRTC compile of `src` for `sm` with ptxas's verbose report
/// ([`compile_cubin_logged`]): the CUBIN and the program log.
fn nvrtc_cubin(
    src: &str,
    sm: (i32, i32),
    includes: &[String],
) -> Result<(Vec<u8>, String), VerifyError> {
    let arch = format!("--gpu-architecture=sm_{}{}", sm.0, sm.1);
    nvrtc_compile(src, &arch, &["--ptxas-options=-v"], includes, Output::Cubin)
}

/// NVRTC-compile `src` to PTX for `compute_{major}{minor}` (which a newer
/// GPU's driver compiles at load).
fn nvrtc_ptx(src: &str, sm: (i32, i32), includes: &[String]) -> Result<String, VerifyError> {
    let arch = format!("--gpu-architecture=compute_{}{}", sm.0, sm.1);
    let (ptx, _) = nvrtc_compile(src, &arch, &[], includes, Output::Ptx)?;
    let end = ptx.iter().position(|&b| b == 0).unwrap_or(ptx.len());
    Ok(String::from_utf8_lossy(&ptx[..end]).into_owned())
}

/// What [`nvrtc_compile`] returns.
#[derive(Clone, Copy)]
enum Output {
    Cubin,
    Ptx,
}

/// One NVRTC program: `src` compiled with `arch` (`--gpu-architecture=...`),
/// C++17, line info, `extra` options and `includes`; the CUBIN or PTX bytes
/// and the program log.
fn nvrtc_compile(
    src: &str,
    arch: &str,
    extra: &[&str],
    includes: &[String],
    out: Output,
) -> Result<(Vec<u8>, String), VerifyError> {
    use cudarc::nvrtc::{result, sys};
    if !unsafe { sys::is_culib_present() } {
        return Err(VerifyError::Compile(
            "the NVRTC library (libnvrtc) was not found".into(),
        ));
    }
    let csrc = CString::new(src).map_err(|e| VerifyError::Compile(e.to_string()))?;
    let name = CString::new("warpforge_verify.cu").unwrap();
    let prog = result::create_program(&csrc, Some(&name))
        .map_err(|e| VerifyError::Compile(format!("{e:?}")))?;
    let mut opts = vec![
        arch.to_string(),
        "-std=c++17".to_string(),
        "-lineinfo".to_string(),
    ];
    opts.extend(extra.iter().map(|o| o.to_string()));
    for i in includes {
        opts.push(format!("--include-path={i}"));
    }
    let res = unsafe { result::compile_program(prog, &opts) };
    let log = unsafe { result::get_program_log(prog) }
        .map(|l| {
            unsafe { CStr::from_ptr(l.as_ptr()) }
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    if let Err(e) = res {
        unsafe {
            let _ = result::destroy_program(prog);
        }
        return Err(VerifyError::Compile(format!("{e:?}\n{log}")));
    }
    let mut size = 0usize;
    let bytes = unsafe {
        match out {
            Output::Cubin => sys::nvrtcGetCUBINSize(prog, &mut size),
            Output::Ptx => sys::nvrtcGetPTXSize(prog, &mut size),
        }
        .result()
        .map_err(|e| VerifyError::Compile(format!("{e:?}")))?;
        let mut buf = vec![0u8; size];
        match out {
            Output::Cubin => sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut _),
            Output::Ptx => sys::nvrtcGetPTX(prog, buf.as_mut_ptr() as *mut _),
        }
        .result()
        .map_err(|e| VerifyError::Compile(format!("{e:?}")))?;
        let _ = result::destroy_program(prog);
        buf
    };
    Ok((bytes, log))
}

/// What ptxas reports for one kernel (`--ptxas-options=-v`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PtxasResources {
    /// `Used N registers`.
    pub registers: u32,
    /// `N bytes spill stores`, `N bytes spill loads`.
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

/// Per kernel, ptxas's verbose report in an NVRTC log: the
/// `Compiling entry function 'NAME'` line opens a kernel, its `bytes spill
/// stores, ... spill loads` and `Used N registers` lines fill it. Lines
/// that do not parse are skipped (a kernel missing from the map had none).
pub fn ptxas_resources(log: &str) -> BTreeMap<String, PtxasResources> {
    let mut out: BTreeMap<String, PtxasResources> = BTreeMap::new();
    let mut cur: Option<String> = None;
    let num_before = |line: &str, word: &str| -> Option<u32> {
        let i = line.find(word)?;
        line[..i].split_whitespace().last()?.parse().ok()
    };
    for line in log.lines() {
        if let Some(i) = line.find("Compiling entry function '") {
            let rest = &line[i + "Compiling entry function '".len()..];
            cur = rest.split('\'').next().map(str::to_string);
            if let Some(k) = &cur {
                out.entry(k.clone()).or_default();
            }
            continue;
        }
        let Some(r) = cur.as_ref().and_then(|k| out.get_mut(k)) else {
            continue;
        };
        if let Some(n) = num_before(line, "bytes spill stores") {
            r.spill_store_bytes = n;
        }
        if let Some(n) = num_before(line, "bytes spill loads") {
            r.spill_load_bytes = n;
        }
        if let Some(i) = line.find("Used ") {
            if let Some(n) = line[i + 5..]
                .split_whitespace()
                .next()
                .and_then(|t| t.parse().ok())
            {
                r.registers = n;
            }
        }
    }
    out
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

/// One form of a helper: the templated element form or the packed form on
/// 32-bit words, each out of place (`src`, `dst`) or in place (one array);
/// the element form out of place also with each `warpforge::words` choice
/// its width takes (`words`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Form {
    packed: bool,
    inplace: bool,
    words: Option<&'static str>,
}

/// The `warpforge::words` choices checked on every element form that takes
/// them ([`EmittedHelper::takes_words`]).
const WORDS: [&str; 4] = ["none", "src", "dst", "both"];

impl Form {
    /// `elements`, `packed`, `elements in place`, `packed in place` or
    /// `elements words::<choice>` ([`CaseResult::form`]).
    fn name(self) -> &'static str {
        match (self.packed, self.inplace, self.words) {
            (false, false, Some("none")) => "elements words::none",
            (false, false, Some("src")) => "elements words::src",
            (false, false, Some("dst")) => "elements words::dst",
            (false, false, Some(_)) => "elements words::both",
            (false, false, None) => "elements",
            (true, false, _) => "packed",
            (false, true, _) => "elements in place",
            (true, true, _) => "packed in place",
        }
    }
}

fn kernel_name(h: &EmittedHelper, d: DType, f: Form) -> String {
    format!(
        "wf_test_{}_{}{}{}{}",
        &h.ident[3..],
        d.name(),
        if f.packed { "_packed" } else { "" },
        if f.inplace { "_inplace" } else { "" },
        f.words.map(|w| format!("_w{w}")).unwrap_or_default()
    )
}

fn loop_kernel_name(h: &EmittedHelper, d: DType, f: Form) -> String {
    format!("{}_loop", kernel_name(h, d, f))
}

/// The forms of `h` checked with `d`: the templated helper, its packed form
/// where it has one for `d`'s width, the in-place form of each where
/// source and destination hold the same registers, and the element form
/// with each `warpforge::words` choice where it takes them for `d`'s width.
fn forms(h: &EmittedHelper, d: DType) -> Vec<Form> {
    // a width the helper does not serve (its header rejects it at compile
    // time, e.g. 32/64-bit data whose scratch is over the target's limit)
    // has no kernels to check
    if !h.widths.is_empty() && h.smem_bytes(d.bits()).is_none() {
        return vec![];
    }
    let mut v = vec![false];
    if h.packed_form(d.bits()).is_some() {
        v.push(true);
    }
    let inplace: &[bool] = if h.has_inplace() {
        &[false, true]
    } else {
        &[false]
    };
    let mut out: Vec<Form> = inplace
        .iter()
        .flat_map(|&i| {
            v.iter().map(move |&p| Form {
                packed: p,
                inplace: i,
                words: None,
            })
        })
        .collect();
    if h.takes_words(d.bits()) {
        out.extend(WORDS.iter().map(|&w| Form {
            packed: false,
            inplace: false,
            words: Some(w),
        }));
    }
    out
}

/// The cap a loop kernel of `threads` threads is compiled under: the
/// requested `--max-registers`, never above the launch bounds' limit
/// ([`synth::plan::capped_register_limit`]); `None` without one.
fn loop_cap(max_registers: Option<u32>, threads: u32) -> Option<u32> {
    max_registers.map(|_| synth::plan::capped_register_limit(max_registers, threads))
}

/// The CUDA module that checks every case for every dtype: `header`, then
/// per case, dtype and form ([`forms`]) a one-shot check kernel and a
/// register-budget loop kernel. `half`: f16 as `__half` (with
/// `cuda_fp16.h`), else as its 16-bit payload. Cluster cases are left out
/// below sm_90 (their PTX would fail the whole module). Loop kernels are
/// compiled under `__maxnreg__` with `max_registers`, else under their
/// launch bounds.
fn module_source(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
    max_registers: Option<u32>,
    sm: (i32, i32),
    half: bool,
) -> Result<String, VerifyError> {
    let mut src = String::new();
    if half {
        src.push_str("#include <cuda_fp16.h>\n");
    }
    if cases.iter().any(|c| cluster_ctas(c.analysis) > 1) {
        // the helper's own contract check: trap on another cluster size
        src.push_str("#define WARPFORGE_CHECK_CLUSTER 1\n");
    }
    src.push_str(header);
    for c in cases
        .iter()
        .filter(|c| cluster_ctas(c.analysis) == 1 || sm.0 >= 9)
    {
        for &d in dtypes {
            let ct = ctype(d, half);
            for f in forms(c.helper, d) {
                let name = kernel_name(c.helper, d, f);
                let k = match (f.packed, f.inplace) {
                    (false, false) => match f.words {
                        Some(w) => emit_test_kernel_words(c.helper, ct, d.bits(), &name, w)?,
                        None => Some(emit_test_kernel(c.helper, ct, &name)?),
                    },
                    (false, true) => emit_test_kernel_inplace(c.helper, ct, &name)?,
                    (true, false) => emit_test_kernel_packed(c.helper, d.bits(), ct, &name)?,
                    (true, true) => emit_test_kernel_packed_inplace(c.helper, d.bits(), ct, &name)?,
                };
                src.push_str(&k.unwrap_or_default());
                let bits = f.packed.then_some(d.bits());
                let name = loop_kernel_name(c.helper, d, f);
                let cap = loop_cap(max_registers, c.helper.threads);
                let k = if let Some(w) = f.words {
                    emit_loop_kernel_words(c.helper, ct, d.bits(), &name, w, cap)?
                } else if f.inplace {
                    emit_loop_kernel_inplace(c.helper, ct, bits, &name, cap)?
                } else {
                    emit_loop_kernel(c.helper, ct, bits, &name, cap)?
                };
                src.push_str(&k.unwrap_or_default());
            }
        }
    }
    Ok(src)
}

/// A compiled check module ([`compile_module`]).
struct CompiledModule {
    source: String,
    cubin: Vec<u8>,
    /// f16 as `__half` (else as its 16-bit payload).
    half: bool,
    /// ptxas's report per kernel ([`ptxas_resources`]).
    ptxas: BTreeMap<String, PtxasResources>,
}

/// Compile [`module_source`] with NVRTC for `sm`, with `cuda_fp16.h` when
/// `dtypes` has f16 and it compiles here (else f16 as its 16-bit payload,
/// with a note).
fn compile_module(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
    max_registers: Option<u32>,
    sm: (i32, i32),
    notes: &mut Vec<String>,
) -> Result<CompiledModule, VerifyError> {
    let includes = cuda_include_dirs();
    let build = |half: bool| module_source(header, cases, dtypes, max_registers, sm, half);
    let want_half = dtypes.contains(&DType::F16);
    match build(want_half).and_then(|s| compile_cubin_logged(&s, sm, &includes).map(|c| (s, c))) {
        Ok((source, (cubin, log))) => Ok(CompiledModule {
            source,
            cubin,
            half: want_half,
            ptxas: ptxas_resources(&log),
        }),
        Err(e) if want_half => {
            notes.push(format!(
                "f16 checked as its 16-bit payload (unsigned short): cuda_fp16.h did not compile here ({})",
                e.to_string().lines().filter(|l| l.contains("error")).take(2).collect::<Vec<_>>().join(" / ")
            ));
            let s = build(false)?;
            let (cubin, log) = compile_cubin_logged(&s, sm, &includes)?;
            Ok(CompiledModule {
                source: s,
                cubin,
                half: false,
                ptxas: ptxas_resources(&log),
            })
        }
        Err(e) => Err(e),
    }
}

/// Compile every case for every dtype into one module, run, compare. With
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
        cubin,
        half,
        ..
    } = compile_module(header, cases, dtypes, max_registers, sm, &mut notes)?;
    let image = if sm == gpu.sm {
        Ptx::from_binary(cubin.clone())
    } else {
        notes.push(format!(
            "compiled for sm_{}{} (SASS counts and registers of that target) and run on this sm_{}{} GPU as compute_{}{} PTX",
            sm.0, sm.1, gpu.sm.0, gpu.sm.1, sm.0, sm.1
        ));
        Ptx::from_src(nvrtc_ptx(&src, sm, &cuda_include_dirs())?)
    };
    let compile_seconds = t0.elapsed().as_secs_f64();
    let sass = sass_of(&cubin);
    if sass.is_none() {
        notes.push("cuobjdump not found or failed: no SASS counts".into());
    }
    let ctx = CudaContext::new(0).map_err(driver_err)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(image).map_err(driver_err)?;
    let max_smem = device_smem_optin(&ctx)?;
    let mut results = Vec::new();
    for c in cases {
        for (d, form) in dtypes
            .iter()
            .flat_map(|&d| forms(c.helper, d).into_iter().map(move |p| (d, p)))
        {
            let kn = kernel_name(c.helper, d, form);
            let smem = c.helper.smem_bytes(d.bits()).unwrap_or(0);
            // a case that cannot launch here is a failed case, and the
            // rest of the file still runs
            let cluster = cluster_ctas(c.analysis);
            let r = if let Some(why) = launch_refusal(smem, max_smem, cluster, gpu.sm, "the device")
            {
                Err(why)
            } else {
                module
                    .load_function(&kn)
                    .map_err(|e| driver_err(e).to_string())
                    .and_then(|f| {
                        if smem > 48 * 1024 {
                            f.set_attribute(
                                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                smem as i32,
                            )
                            .map_err(|e| driver_err(e).to_string())?;
                        }
                        allow_cluster_size(&f, cluster).map_err(|e| driver_err(e).to_string())?;
                        run_case(&stream, &f, c, d, smem as u32)
                            .map_err(|e| format!("cannot launch: {e}"))
                    })
            };
            let r = r.unwrap_or_else(|e| CaseResult {
                name: c.helper.name.clone(),
                ident: c.helper.ident.clone(),
                dtype: d,
                form: "elements",
                ctype: String::new(),
                passes: 0,
                slots_checked: 0,
                mismatches: 0,
                first_error: Some(e),
                sass: None,
                registers: None,
                loop_kernel: None,
                data_regs: 0,
                reg_limit: 0,
                max_registers: loop_cap(max_registers, c.helper.threads),
                threads: c.helper.threads,
                compiled_only: false,
                kernels: Default::default(),
                occupancy_spill: Vec::new(),
            });
            let sass_counts = sass.as_ref().and_then(|(_, m)| m.get(&kn).cloned());
            let regs_of = |name: &str| {
                module.load_function(name).ok().and_then(|f| {
                    f.get_attribute(
                        cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
                    )
                    .ok()
                })
            };
            let ln = loop_kernel_name(c.helper, d, form);
            let loop_kernel = regs_of(&ln).map(|registers| {
                LoopCost::of(registers, sass.as_ref().and_then(|(_, m)| m.get(&ln)))
            });
            let data_regs = data_registers(c.helper, d, form);
            results.push(CaseResult {
                form: form.name(),
                ctype: ctype(d, half).to_string(),
                sass: sass_counts,
                registers: regs_of(&kn),
                loop_kernel,
                data_regs,
                reg_limit: synth::plan::capped_register_limit(max_registers, c.helper.threads),
                max_registers: loop_cap(max_registers, c.helper.threads),
                threads: c.helper.threads,
                kernels: [kn.clone(), ln.clone()],
                ..r
            });
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

/// Why a helper's kernels cannot launch on `what` (`the device`, or `the
/// target` for [`compile_only`]) of compute capability `sm` with
/// `max_smem` bytes of shared memory per block: its `smem` bytes of scratch
/// exceed that, or it runs in clusters of `cluster` CTAs (distributed
/// shared memory) before sm_90. `None`: it can launch.
fn launch_refusal(
    smem: u64,
    max_smem: u64,
    cluster: u32,
    sm: (i32, i32),
    what: &str,
) -> Option<String> {
    if smem > max_smem {
        Some(format!(
            "cannot launch: needs {smem} bytes of shared memory per block, {what} (sm_{}{}) allows {max_smem}",
            sm.0, sm.1
        ))
    } else if cluster > 1 && sm.0 < 9 {
        Some(format!(
            "cannot launch: a cluster of {cluster} CTAs needs sm_90 or later, {what} is sm_{}{}",
            sm.0, sm.1
        ))
    } else {
        None
    }
}

/// 32-bit registers the data of `form` takes for `d`: the larger side, one
/// register per element (two per 64-bit element), or one per word for an
/// array held as words (the packed form's, or an element form's
/// `warpforge::words` choice).
fn data_registers(h: &EmittedHelper, d: DType, form: Form) -> u32 {
    let per_elem = d.bits().div_ceil(32);
    let words = |side: &str| form.words.is_some_and(|w| w == side || w == "both");
    let side = |regs: u32, held: bool| {
        if form.packed || held {
            regs * d.bits() / 32
        } else {
            regs * per_elem
        }
    };
    side(h.src_regs, words("src")).max(side(h.dst_regs, words("dst")))
}

/// `verify --compile-only`: what a kernel pays for each helper, without a
/// GPU. Compiles the module [`verify_on_gpu`] would run (every one-shot
/// check and register-budget loop kernel, per dtype and form) with NVRTC
/// for `sm` and reads each kernel's registers and spills from ptxas
/// (`--ptxas-options=-v`), and, where `cuobjdump` runs, its SASS counts
/// with the spills inside the loop body ([`count_sass`]). Without
/// `cuobjdump`, any spill of a loop kernel counts as in its loop body (a
/// note says so). A helper whose scratch exceeds the target's per-block
/// shared memory (`synth::plan::smem_limit`) is reported as unable to
/// launch. Nothing runs: every case has `compiled_only` set and no slot
/// checked; the proof stays the CPU simulator's. Errors: no libnvrtc, a
/// module that does not compile.
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
        cubin,
        half,
        ptxas,
    } = compile_module(header, cases, dtypes, max_registers, sm, &mut notes)?;
    let compile_seconds = t0.elapsed().as_secs_f64();
    let sass = sass_of(&cubin);
    if sass.is_none() {
        notes.push(
            "cuobjdump not found or failed: no SASS counts, and a loop kernel's spills all count as in its loop body".into(),
        );
    }
    let target = (sm.0 * 10 + sm.1) as u32;
    let max_smem = synth::plan::smem_limit(target);
    let mut results = Vec::new();
    for c in cases {
        for (d, form) in dtypes
            .iter()
            .flat_map(|&d| forms(c.helper, d).into_iter().map(move |p| (d, p)))
        {
            let kn = kernel_name(c.helper, d, form);
            let ln = loop_kernel_name(c.helper, d, form);
            let smem = c.helper.smem_bytes(d.bits()).unwrap_or(0);
            let cluster = cluster_ctas(c.analysis);
            let first_error =
                if let Some(why) = launch_refusal(smem, max_smem, cluster, sm, "the target") {
                    Some(why)
                } else if !ptxas.contains_key(&kn) {
                    Some(format!("ptxas reported no kernel `{kn}`"))
                } else {
                    None
                };
            let counts = |k: &str| sass.as_ref().and_then(|(_, m)| m.get(k).cloned());
            let loop_kernel = ptxas.get(&ln).map(|p| match counts(&ln) {
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
            });
            let sass_counts = counts(&kn).or_else(|| {
                ptxas.get(&kn).map(|p| SassCounts {
                    ldl: p.spill_load_bytes.div_ceil(4),
                    stl: p.spill_store_bytes.div_ceil(4),
                    ..SassCounts::default()
                })
            });
            results.push(CaseResult {
                name: c.helper.name.clone(),
                ident: c.helper.ident.clone(),
                dtype: d,
                form: form.name(),
                ctype: ctype(d, half).to_string(),
                passes: 0,
                slots_checked: 0,
                mismatches: 0,
                first_error,
                sass: sass_counts,
                registers: ptxas.get(&kn).map(|p| p.registers as i32),
                loop_kernel,
                data_regs: data_registers(c.helper, d, form),
                reg_limit: synth::plan::capped_register_limit(max_registers, c.helper.threads),
                max_registers: loop_cap(max_registers, c.helper.threads),
                threads: c.helper.threads,
                compiled_only: true,
                kernels: [kn.clone(), ln.clone()],
                occupancy_spill: Vec::new(),
            });
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

/// The most dynamic shared memory one block may opt in to on the device of
/// `ctx`, in bytes (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`).
fn device_smem_optin(ctx: &Arc<CudaContext>) -> Result<u64, VerifyError> {
    let n = ctx
        .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(driver_err)?;
    Ok(n.max(0) as u64)
}

fn ctype(d: DType, half: bool) -> &'static str {
    match d {
        DType::I8 => "signed char",
        DType::F8E4M3FN | DType::F8E5M2 => "unsigned char",
        DType::I16 => "short",
        DType::F16 if half => "__half",
        DType::F16 | DType::Bf16 => "unsigned short",
        DType::I32 => "int",
        DType::F32 => "float",
        DType::I64 => "long long",
        DType::F64 => "double",
    }
}

fn run_case(
    stream: &Arc<cudarc::driver::CudaStream>,
    f: &cudarc::driver::CudaFunction,
    c: &GpuCase,
    d: DType,
    smem_bytes: u32,
) -> Result<CaseResult, VerifyError> {
    let an = c.analysis;
    let warps = 1u32 << an.src.hw.warp;
    let blocks = 1u32 << an.src.hw.block;
    let threads = warps * 32;
    let nt = (threads * blocks) as usize;
    let (ra, rb) = (an.src_regs() as usize, an.dst_regs() as usize);
    let bits = d.bits();
    let cluster = cluster_ctas(an);
    let passes = (an.tensor_bits as u32).div_ceil(bits).max(1);
    let mut mismatches = 0u64;
    let mut first_error = None;
    let mut slots = 0u64;
    for pass in 0..passes {
        let shift = pass * bits;
        let mask: u64 = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut input = vec![0u64; ra * nt];
        for t in 0..nt {
            let (b, w, l) = (t as u32 / threads, (t as u32 % threads) / 32, t as u32 % 32);
            for i in 0..ra {
                input[t * ra + i] =
                    (an.src.tag(i as u64, l as u64, w as u64, b as u64) >> shift) & mask;
            }
        }
        let shape = LaunchShape {
            out_len: rb * nt,
            blocks,
            threads,
            smem_bytes,
            cluster,
        };
        let got = match bits / 8 {
            1 => launch_narrow::<u8>(stream, f, &input, &shape)?,
            2 => launch_narrow::<u16>(stream, f, &input, &shape)?,
            4 => launch_narrow::<u32>(stream, f, &input, &shape)?,
            _ => launch_narrow::<u64>(stream, f, &input, &shape)?,
        };
        for t in 0..nt {
            let (b, w, l) = (t as u32 / threads, (t as u32 % threads) / 32, t as u32 % 32);
            for j in 0..rb {
                let want = (an.dst.tag(j as u64, l as u64, w as u64, b as u64) >> shift) & mask;
                let g = got[t * rb + j];
                slots += 1;
                if g != want {
                    mismatches += 1;
                    if first_error.is_none() {
                        first_error = Some(format!(
                            "pass {pass}: block {b} warp {w} lane {l} register {j}: got {g:#x}, expected {want:#x} (tag bits {shift}..)"
                        ));
                    }
                }
            }
        }
    }
    Ok(CaseResult {
        name: c.helper.name.clone(),
        ident: c.helper.ident.clone(),
        dtype: d,
        form: "elements",
        ctype: String::new(),
        passes,
        slots_checked: slots,
        mismatches,
        first_error,
        sass: None,
        registers: None,
        loop_kernel: None,
        data_regs: 0,
        reg_limit: 0,
        max_registers: None,
        threads: c.helper.threads,
        compiled_only: false,
        kernels: Default::default(),
        occupancy_spill: Vec::new(),
    })
}

/// How a check kernel is launched: output elements, CTAs, threads per CTA,
/// dynamic shared bytes, CTAs per cluster (1: a plain launch).
struct LaunchShape {
    out_len: usize,
    blocks: u32,
    threads: u32,
    smem_bytes: u32,
    cluster: u32,
}

/// An unsigned element type the check moves tags as.
trait Narrow:
    cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits + Copy + Default + Unpin
{
    /// The low bits of a tag.
    fn narrow(x: u64) -> Self;
    fn widen(self) -> u64;
}

macro_rules! narrow {
    ($($t:ty),*) => {$(
        impl Narrow for $t {
            fn narrow(x: u64) -> Self {
                x as $t
            }
            fn widen(self) -> u64 {
                self as u64
            }
        }
    )*};
}
narrow!(u8, u16, u32, u64);

/// Launch the check kernel `f` on `input` (tags, cut to `T`), the output
/// widened back to 64-bit tags.
fn launch_narrow<T: Narrow>(
    stream: &Arc<cudarc::driver::CudaStream>,
    f: &cudarc::driver::CudaFunction,
    input: &[u64],
    shape: &LaunchShape,
) -> Result<Vec<u64>, VerifyError> {
    let input: Vec<T> = input.iter().map(|&x| T::narrow(x)).collect();
    let LaunchShape {
        out_len,
        blocks,
        threads,
        smem_bytes,
        cluster,
    } = *shape;
    let din = stream.clone_htod(&input).map_err(driver_err)?;
    let mut dout = stream.alloc_zeros::<T>(out_len).map_err(driver_err)?;
    if cluster > 1 {
        use cudarc::driver::{DevicePtr, DevicePtrMut};
        let (mut pin, _gi) = din.device_ptr(stream);
        let (mut pout, _go) = dout.device_ptr_mut(stream);
        let mut params = [
            &mut pin as *mut _ as *mut std::ffi::c_void,
            &mut pout as *mut _ as *mut std::ffi::c_void,
        ];
        unsafe { launch_cluster(stream, f, blocks, threads, smem_bytes, cluster, &mut params) }
            .map_err(driver_err)?;
    } else {
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: smem_bytes,
        };
        let mut b = stream.launch_builder(f);
        b.arg(&din);
        b.arg(&mut dout);
        unsafe { b.launch(cfg) }.map_err(driver_err)?;
    }
    stream.synchronize().map_err(driver_err)?;
    Ok(stream
        .clone_dtoh(&dout)
        .map_err(driver_err)?
        .into_iter()
        .map(T::widen)
        .collect())
}

/// Let `f` launch in clusters of `cluster` CTAs: above the portable 8 it
/// sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` (CUDA C++
/// Programming Guide, "Thread Block Clusters"); nothing to do up to 8.
/// Call once per function, before [`launch_cluster`].
pub fn allow_cluster_size(
    f: &cudarc::driver::CudaFunction,
    cluster: u32,
) -> Result<(), cudarc::driver::DriverError> {
    if cluster > 8 {
        f.set_attribute(
            cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
            1,
        )?;
    }
    Ok(())
}

/// Launch `f` on `stream` over `grid` CTAs of `block` threads as clusters of
/// `cluster` CTAs along x (`cuLaunchKernelEx` with
/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`; CUDA driver API "Launch
/// attributes"; sm_90+). Errors: `grid` not a multiple of `cluster`
/// (`CUDA_ERROR_INVALID_VALUE`, before any launch), and the driver's. A
/// cluster of more than 8 CTAs needs [`allow_cluster_size`] first.
///
/// # Safety
/// `params` must point at the kernel's parameters, in order, each value
/// alive until the launch returns, as for `cuLaunchKernel`.
pub unsafe fn launch_cluster(
    stream: &cudarc::driver::CudaStream,
    f: &cudarc::driver::CudaFunction,
    grid: u32,
    block: u32,
    smem_bytes: u32,
    cluster: u32,
    params: &mut [*mut std::ffi::c_void],
) -> Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys;
    if cluster == 0 || grid % cluster != 0 {
        return Err(cudarc::driver::DriverError(
            sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE,
        ));
    }
    stream.context().bind_to_thread()?;
    let mut attr: sys::CUlaunchAttribute = std::mem::zeroed();
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    let cfg = sys::CUlaunchConfig {
        gridDimX: grid,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: block,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: smem_bytes,
        hStream: stream.cu_stream(),
        attrs: &mut attr,
        numAttrs: 1,
    };
    sys::cuLaunchKernelEx(
        &cfg,
        f.cu_function(),
        params.as_mut_ptr(),
        std::ptr::null_mut(),
    )
    .result()
}

/// CTAs per cluster a case must be launched with: the layout's CTAs for a
/// cluster plan (docs/ARCHITECTURE.md 4.7), 1 (no cluster) otherwise.
pub fn cluster_ctas(an: &Analysis) -> u32 {
    if an.class == synth::plan::Kind::Cluster {
        1 << an.src.hw.block
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 32-warp f16 transpose of `tests/data/stress_w32.ttgir`, emitted
    /// for its own width (16-bit).
    fn transpose16() -> EmittedHelper {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/stress_w32.ttgir"
        );
        let f = synth::parse::parse_ttgir(&std::fs::read_to_string(p).unwrap()).unwrap();
        let conv = synth::plan::Conversion::from_op(&f.converts[0]).unwrap();
        let ch = synth::search::plan_conversion(
            &conv,
            synth::plan::StrategyChoice::Auto,
            &synth::search::Weights::default(),
        )
        .unwrap();
        kernels::emit_helper(&conv, &ch).unwrap()
    }

    #[test]
    fn every_words_choice_is_a_form_where_the_width_takes_it() {
        let h = transpose16();
        let names: Vec<&str> = forms(&h, DType::F16).iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            [
                "elements",
                "packed",
                "elements in place",
                "packed in place",
                "elements words::none",
                "elements words::src",
                "elements words::dst",
                "elements words::both"
            ]
        );
        // distinct kernels, and a report suffix each
        let kernels: std::collections::BTreeSet<String> = forms(&h, DType::F16)
            .into_iter()
            .map(|f| kernel_name(&h, DType::F16, f))
            .collect();
        assert_eq!(kernels.len(), 8);
        assert_eq!(form_suffix("elements words::src"), " words::src");
        // the test kernel names the choice and moves the words array by words
        let k = emit_test_kernel_words(&h, "__half", 16, "k", "src")
            .unwrap()
            .unwrap();
        assert!(k.contains("<__half, warpforge::words::src>(src, dst"));
        assert!(k.contains("warpforge::detail::st_word(&src[k * 2u], w);"));
        assert!(!k.contains("ld_word(&dst"));
        // a width the helper was not planned for takes no choice
        assert!(emit_test_kernel_words(&h, "int", 32, "k", "src")
            .unwrap()
            .is_none());
    }

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
    fn reads_ptxas_registers_and_spills_per_kernel() {
        // NVRTC 13.0's log with --ptxas-options=-v, two kernels
        let log = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'wf_loop_a' for 'sm_90'\n\
ptxas info    : Function properties for wf_loop_a\n\
ptxas         .     80 bytes stack frame, 72 bytes spill stores, 88 bytes spill loads\n\
ptxas info    : Used 64 registers, used 1 barriers\n\
ptxas info    : Compiling entry function 'wf_check_b' for 'sm_90'\n\
ptxas info    : Function properties for wf_check_b\n\
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 32 registers, used 0 barriers, 4 bytes cmem[0]\n";
        let r = ptxas_resources(log);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r["wf_loop_a"],
            PtxasResources {
                registers: 64,
                spill_store_bytes: 72,
                spill_load_bytes: 88
            }
        );
        assert_eq!(r["wf_check_b"].registers, 32);
        assert_eq!(r["wf_check_b"].spill_store_bytes, 0);
        // a log without ptxas lines names no kernel
        assert!(ptxas_resources("nvrtc: warning: something").is_empty());
    }

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

    /// A compiled-only case of `threads` threads whose loop kernel used
    /// `loop_regs` registers with `in_loop` spill instructions in its body,
    /// and whose data alone needs `data_regs`.
    fn spilling_case(threads: u32, data_regs: u32, loop_regs: i32, in_loop: u32) -> CaseResult {
        CaseResult {
            name: "c".into(),
            ident: "wf_c".into(),
            dtype: DType::F16,
            form: "elements words::dst",
            ctype: "__half".into(),
            passes: 0,
            slots_checked: 0,
            mismatches: 0,
            first_error: None,
            sass: Some(SassCounts::default()),
            registers: Some(40),
            loop_kernel: Some(LoopCost {
                registers: loop_regs,
                ldl: in_loop,
                stl: in_loop,
                ldl_in_loop: in_loop,
                stl_in_loop: in_loop,
            }),
            data_regs,
            reg_limit: register_limit(threads),
            max_registers: None,
            threads,
            compiled_only: true,
            kernels: ["wf_test_c".into(), "wf_test_c_loop".into()],
            occupancy_spill: Vec::new(),
        }
    }

    /// ptxas held a one-warp loop kernel at 168 of 255 registers and
    /// spilled (Triton's warp-local tests, `words::dst`): a spill by
    /// choice, which fails until the recheck under
    /// `__launch_bounds__(32, 1)` finds none; one at the limit, or under a
    /// `--max-registers` cap, is never asked again.
    #[test]
    fn a_spill_with_registers_to_spare_is_asked_again() {
        let recheck = |kernel, registers, min_blocks_registers, bytes| MinBlocksRecheck {
            kernel,
            registers,
            min_blocks_registers,
            min_blocks_spill_bytes: bytes,
        };
        let mut c = spilling_case(32, 128, 168, 11);
        assert_eq!(c.spills_by_choice(), [("loop", 168)]);
        assert!(c.spill_problem().is_some());
        c.occupancy_spill = vec![recheck("loop", 168, 186, 0)];
        assert_eq!(c.spill_problem(), None);
        assert!(c
            .occupancy_note()
            .unwrap()
            .contains("186 registers, no spill"));
        // still spilling with one CTA per SM: a failure that says so
        c.occupancy_spill[0].min_blocks_spill_bytes = 24;
        assert!(c.spill_problem().unwrap().contains("still 24 bytes"));
        assert_eq!(c.occupancy_note(), None);
        // a recheck of the other kernel does not excuse this one
        c.occupancy_spill = vec![recheck("one-shot", 40, 48, 0)];
        assert!(c.spill_problem().is_some());
        // both kernels spill by choice: each is asked, and both must clear
        let mut both = spilling_case(32, 128, 168, 11);
        both.sass = Some(SassCounts {
            ldl: 2,
            stl: 2,
            ..SassCounts::default()
        });
        assert_eq!(both.spills_by_choice(), [("loop", 168), ("one-shot", 40)]);
        both.occupancy_spill = vec![recheck("loop", 168, 186, 0)];
        assert!(both
            .spill_problem()
            .unwrap()
            .starts_with("the one-shot kernel spills"));
        both.occupancy_spill.push(recheck("one-shot", 40, 72, 0));
        assert_eq!(both.spill_problem(), None);
        // at the limit: out of registers, not a choice
        assert!(spilling_case(32, 128, 250, 11)
            .spills_by_choice()
            .is_empty());
        // under a --max-registers cap the cap is what is tested
        let mut capped = spilling_case(32, 64, 96, 4);
        capped.max_registers = Some(128);
        capped.reg_limit = 128;
        assert!(capped.spills_by_choice().is_empty());
        // the data alone over the limit less 16: no failure to ask about
        assert!(spilling_case(32, 250, 255, 11)
            .spills_by_choice()
            .is_empty());
    }

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
