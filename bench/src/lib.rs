//! Benchmarks. `warpforge bench` times, on the GPU, every candidate plan of
//! each conversion and Triton's own lowering of the same conversion in the
//! same loop ([`cases`], [`gpu`], [`triton`]), writes JSON, markdown and an
//! SVG chart ([`report`]) and, on request, what it timed ([`keep`]), and [`fit`] fits the planner's cost model to
//! those timings. `benches/planner.rs` holds the criterion benches of
//! planning, simulation and emission (CPU).

pub mod cases;
pub mod fit;
pub mod gpu;
pub mod keep;
pub mod report;
pub mod triton;

use std::path::PathBuf;
use synth::plan::Conversion;

/// Path of a file of the bundled corpus (`corpus/` at the workspace root).
pub fn corpus_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("corpus")
        .join(rel)
}

/// Every conversion of a corpus file, ready to plan. Errors name the file.
pub fn conversions(rel: &str) -> anyhow::Result<Vec<Conversion>> {
    conversions_at(&corpus_path(rel))
}

/// Every conversion of a TTGIR file, read as the CLI reads it
/// ([`pipeline::load_files`], [`pipeline::conversions`]). Errors name the
/// file and line.
pub fn conversions_at(p: &std::path::Path) -> anyhow::Result<Vec<Conversion>> {
    let loaded = pipeline::load_files(&[p.to_path_buf()], None)?;
    Ok(pipeline::conversions(&loaded)?
        .into_iter()
        .map(|(_, c)| c)
        .collect())
}
