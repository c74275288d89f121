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
//!
//! Modules: `compile` (NVRTC, ptxas's report), `module` (the check
//! module's kernels and source), `sass` (SASS reading and counts), `launch`
//! (CUDA driver, memory, kernel launch), `check` (one case's tags and
//! comparison), `occupancy` (spills by occupancy choice), `report`
//! (results and budgets) and `run` (a whole run); the public API is
//! re-exported here.

mod check;
mod compile;
mod dtype;
mod hip;
mod launch;
mod module;
mod occupancy;
mod report;
mod run;
mod sass;

pub mod junit;

pub use compile::{
    compile_cubin, compile_cubin_logged, cuda_include_dirs, ptxas_resources, PtxasResources,
};
pub use dtype::DType;
pub use hip::{
    compile_hip, count_amdgcn, hip_compiler, hip_module_source, HipKernel, HipReport, IsaCounts,
    HIP_PRELUDE,
};
pub use launch::{allow_cluster_size, cluster_ctas, launch_cluster, probe_gpu, GpuInfo};
pub use module::part_members;
pub use occupancy::{compile_min_blocks, MinBlocksRecheck, OCCUPANCY_SLACK};
pub use report::{form_suffix, CaseResult, GpuReport, LoopCost};
pub use run::{compile_only, verify_on_gpu, verify_on_gpu_for, GpuCase};
pub use sass::{count_sass, sass_of, SassCounts};
pub use synth::plan::register_limit;

/// Errors of the GPU path.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("no GPU: {0}")]
    NoGpu(String),
    #[error("NVRTC compile failed: {0}")]
    Compile(String),
    /// No clang that compiles HIP for AMD GPUs ([`hip_compiler`]).
    #[error("no HIP compiler: {0}")]
    NoHipCompiler(String),
    #[error("{0}")]
    HipCompile(String),
    #[error("CUDA driver: {0}")]
    Driver(String),
    #[error(transparent)]
    Emit(#[from] kernels::EmitError),
}
