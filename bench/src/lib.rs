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
use synth::parse::parse_ttgir;
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

/// Every conversion of a TTGIR file. Errors name the file and line.
pub fn conversions_at(p: &std::path::Path) -> anyhow::Result<Vec<Conversion>> {
    let text = std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    let f =
        parse_ttgir(&text).map_err(|e| anyhow::anyhow!("{}:{}: {}", p.display(), e.line, e.msg))?;
    f.converts
        .iter()
        .map(|op| Conversion::from_op(op).map_err(|e| anyhow::anyhow!("{e}")))
        .collect()
}
