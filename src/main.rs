//! `warpforge`: plan, emit and prove layout conversions of GPU register tiles.
//! A thin CLI over the `pipeline`, `verify` and `bench` crates: this file
//! parses arguments, dispatches to one module per subcommand (`cmd/`) and
//! maps errors to exit codes.

use anyhow::Result;
use clap::{Parser, Subcommand};

/// A line on standard error; a closed or full standard error is ignored
/// (there is nowhere left to report it).
macro_rules! note {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

mod cmd;
mod output;

#[derive(Parser)]
#[command(
    name = "warpforge",
    version,
    about = "Layout-conversion codegen for GPU register tiles: plan, emit CUDA, prove"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Plan every conversion and print its kind, strategy and predicted cost.
    Plan(cmd::plan::PlanArgs),
    /// Write a CUDA header with one helper per conversion (HIP helpers for AMD targets).
    Emit(cmd::emit::EmitArgs),
    /// Prove every helper: on the GPU when present, else on the CPU simulator (AMD helpers: CPU, then compiled for their target).
    Verify(cmd::verify::VerifyArgs),
    /// Time every candidate plan of each conversion and Triton's own
    /// lowering on the GPU, in one loop shape; write JSON, markdown, SVG.
    Bench(cmd::bench::BenchArgs),
    /// Fit the planner's cost model to `warpforge bench --json` rows.
    Fit(cmd::fit::FitArgs),
    /// Print the linear layout of one layout (Triton's LinearLayout::toString).
    Layout(cmd::layout::LayoutArgs),
    /// Draw a layout, or a conversion and its plan, as SVG (or a text table).
    Draw(cmd::draw::DrawArgs),
}

/// Exit codes: 0 success (and a closed standard output, as ripgrep does:
/// the reader has all it wanted), 1 any error, failed check or refused
/// conversion, 2 a command-line error (clap's, or a [`cmd::UsageError`]).
fn main() {
    let cli = Cli::parse();
    let result: Result<i32> = match cli.cmd {
        Cmd::Plan(a) => cmd::plan::run(a),
        Cmd::Emit(a) => cmd::emit::run(a),
        Cmd::Verify(a) => cmd::verify::run(a),
        Cmd::Bench(a) => cmd::bench::run(a),
        Cmd::Fit(a) => cmd::fit::run(a),
        Cmd::Layout(a) => cmd::layout::run(a),
        Cmd::Draw(a) => cmd::draw::run(a),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) if output::is_broken_pipe(&e) => 0,
        Err(e) if e.downcast_ref::<cmd::UsageError>().is_some() => {
            report(&e);
            2
        }
        Err(e) => {
            report(&e);
            1
        }
    };
    std::process::exit(code);
}

/// A message line of at most about 300 characters: a longer one (a 90 KB
/// list echoed back) keeps its first 240 and last 40 characters around a
/// note of how many were left out; the snippet below shows the place.
fn elide(line: &str) -> String {
    let n = line.chars().count();
    if n <= 300 {
        return line.to_string();
    }
    let head: String = line.chars().take(240).collect();
    let tail: String = line.chars().skip(n - 40).collect();
    format!("{head} ... ({} characters left out) ... {tail}", n - 280)
}

/// Print an error: the one-line form, then (for errors in an input text)
/// the snippet with the offending text underlined.
fn report(e: &anyhow::Error) {
    use pipeline::SourceError;
    let Some(se) = e.downcast_ref::<SourceError>() else {
        let text = format!("{e:#}");
        let lines: Vec<String> = text.lines().map(elide).collect();
        note!("warpforge: error: {}", lines.join("\n"));
        return;
    };
    let ctx: Vec<String> = e
        .chain()
        .take_while(|c| c.downcast_ref::<SourceError>().is_none())
        .map(|c| c.to_string())
        .collect();
    let lead = if ctx.is_empty() {
        String::new()
    } else {
        format!("{}: ", ctx.join(": "))
    };
    note!(
        "warpforge: error: {}",
        elide(&format!("{lead}{}: {}", se.place, se.msg))
    );
    let snippet = se.snippet();
    if !snippet.is_empty() {
        note!("{snippet}");
    }
}
