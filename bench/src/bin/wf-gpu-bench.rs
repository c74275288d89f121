//! `wf-gpu-bench`: time every conversion of a TTGIR file under each strategy
//! (shuffle vs shared memory) on the GPU. See `bench::gpu`.

use anyhow::Result;
use clap::Parser;
use std::io::Write;

#[derive(Parser)]
#[command(
    about = "Time shuffle vs shared-memory plans of every conversion in TTGIR files on the GPU"
)]
struct Args {
    /// TTGIR files (default: the bundled corpus/pairs.mlir).
    #[arg(long = "ttgir")]
    files: Vec<std::path::PathBuf>,
    /// Round trips per kernel launch.
    #[arg(long, default_value_t = 1000)]
    iters: u32,
    /// Timed launches per case (the median is reported).
    #[arg(long, default_value_t = 21)]
    runs: usize,
    /// CTAs per SM in the grid.
    #[arg(long, default_value_t = 8)]
    ctas_per_sm: u32,
    /// Also write the markdown table here.
    #[arg(long)]
    report: Option<std::path::PathBuf>,
    /// One JSON object per line instead of the table.
    #[arg(long)]
    json: bool,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("wf-gpu-bench: error: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let a = Args::parse();
    let files = if a.files.is_empty() {
        vec![bench::corpus_path("pairs.mlir")]
    } else {
        a.files.clone()
    };
    let gpu = verify::probe_gpu().map_err(|e| anyhow::anyhow!("{e}"))?;
    let gpu_desc = format!(
        "{} (sm_{}{}), driver {}",
        gpu.name, gpu.sm.0, gpu.sm.1, gpu.driver_version
    );
    let mut table = String::new();
    for f in &files {
        let convs = bench::conversions_at(f)?;
        let cases = bench::gpu::build_cases(&convs, &synth::search::Weights::default())?;
        let t = bench::gpu::time_cases(&cases, a.iters, a.runs, a.ctas_per_sm)?;
        if a.json {
            for x in &t {
                println!("{}", serde_json::to_string(x)?);
            }
        }
        table += &format!(
            "## {}\n\n{}\n",
            f.display(),
            bench::gpu::markdown(&t, &gpu_desc)
        );
    }
    if !a.json {
        print!("{table}");
    }
    if let Some(p) = &a.report {
        std::fs::File::create(p)?.write_all(table.as_bytes())?;
    }
    Ok(())
}
