//! CUDA C++ emission of warpforge plans (docs/ARCHITECTURE.md section 5).
//!
//! One `__device__ __forceinline__` helper per conversion, header-only C++17,
//! usable from nvcc and NVRTC: element type as a template parameter,
//! `src[]`/`dst[]` register arrays, a `void* smem` parameter and a
//! `constexpr` byte size only when the plan uses shared memory. The body is
//! straight-line code with compile-time register indices only (a run-time
//! index would send the arrays to local memory). Structure comes from the
//! minijinja templates in `templates/`; the statements are built from the plan
//! IR as kernel IR ([`kir`]), one per instruction the cost model counts,
//! printed from it, and proven on it ([`prove`]: the printed code run for
//! every thread by the KIR interpreter).

/// The CuTe register-fragment overloads (`emit --api cute`, [`Api`]).
mod cute;
/// The element form: the helper body over the plan's stages ([`body`]).
mod element;
/// Errors of emission.
mod error;
/// GF(2)-linear C expressions of `lane`/`warp`.
mod expr;
/// The global-memory baseline of cluster conversions ([`emit_bench_kernel_global`]).
mod global;
/// The header shell and its composition guards ([`emit_header`]).
mod header;
/// The helper signature and comment ([`emit_helper`] and variants).
mod helper;
/// C identifiers and the stable hash of guards.
mod ident;
/// The kernel IR between the plan and the CUDA text ([`kir::Body`]).
pub mod kir;
/// Limit kernels of `warpforge bench`: the unavoidable data movement of a
/// round trip ([`LimitKernel`]).
pub mod limit;
/// The packed form for 8- and 16-bit elements ([`body_packed`]).
mod packed;
/// `prmt` programs that build 32-bit words from pieces (both forms).
mod prmt;
/// The CPU proof of every printed form of a helper ([`prove`]).
mod proof;
/// Register stages: renames, selects, shuffles and byte permutes (both forms).
mod regs;
/// Template rendering: the minijinja templates and the test/bench kernels.
mod render;
/// Shared-memory stages: per-thread addresses, stores and loads (both forms).
mod smem;

pub use cute::{cute_overloads, cute_section, cute_section_of, emit_header_api, Api};
pub use element::{body, body_kir, PUN_MIN_ELEMS};
pub use error::EmitError;
pub use expr::linear_expr;
pub use global::emit_bench_kernel_global;
pub use header::{c_string, comment_text, emit_header, emit_header_items, HeaderItem};
pub use helper::{
    definition, emit_helper, emit_helper_widths, emit_helper_widths_as, EmittedHelper, HelperKir,
    HelperTarget, PackedForm, RefusedHelper, WidthScratch,
};
pub use ident::{ident_for, ident_with_prefix, stable_hash};
pub use limit::{LimitKernel, LimitMove};
pub use packed::{body_packed, body_packed_kir};
pub use proof::{prove, FormProof, ProofError};
pub use render::{
    emit_bench_kernel, emit_bench_kernel_carried, emit_bench_kernel_packed,
    emit_bench_kernel_vector, emit_loop_kernel, emit_loop_kernel_inplace, emit_loop_kernel_vector,
    emit_loop_kernel_words, emit_test_kernel, emit_test_kernel_inplace, emit_test_kernel_packed,
    emit_test_kernel_packed_inplace, emit_test_kernel_vector, emit_test_kernel_words,
    other_group_threads, CheckGroups,
};
