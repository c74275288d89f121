//! `warpforge fit`: the planner's cost model fitted to `warpforge bench
//! --json` rows (the work is in `bench::fit`); writes the model file and
//! prints the fit's quality.

use crate::output::{check_outputs, write_file, Stdout};
use anyhow::{anyhow, bail, Context, Result};
use bench::fit::FitReport;
use bench::report::Row;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use synth::cost_model::OneWarpWeights;
use synth::search::{CostModel, Weights};

/// Arguments of `warpforge fit`.
#[derive(Args)]
pub(crate) struct FitArgs {
    /// Rows written by `warpforge bench --json` (one or more files; their
    /// rows are fitted together).
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    from: Vec<PathBuf>,
    /// Write the fitted cost model here.
    #[arg(short = 'o', long, value_name = "FILE")]
    output: PathBuf,
    /// The model to start from and compare with (default: built-in).
    #[arg(long, value_name = "FILE")]
    prior: Option<PathBuf>,
    /// The GPU the timings are from, as the model file should name it.
    #[arg(long, default_value = "unknown GPU")]
    gpu: String,
    /// Also write the whole fit report (with every candidate's residual) here.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Fit only this weight (e.g. `spill`, from rows of `warpforge bench
    /// --max-registers`), every other weight held at the prior's, in the
    /// prior's units.
    #[arg(long, value_name = "FEATURE", value_parser = clap::builder::PossibleValuesParser::new(synth::cost_model::FEATURE_NAMES))]
    only: Option<String>,
    /// Fit near the prior: a coordinate search from the prior's weights (steps
    /// of 4/5 and 5/4, else 1/2 and 2) on the mean regret per conversion plus LAMBDA times
    /// the squared log distance of each weight from the prior's (a ridge;
    /// e.g. 0.002). Without it the weights are least squares refined without
    /// a penalty, which can drive weights to 0 to fit single conversions.
    #[arg(long, value_name = "LAMBDA", conflicts_with = "only")]
    near_prior: Option<f64>,
    /// Fit the weights of one-warp CTAs (the model's `one_warp` section,
    /// which ranks the plans of conversions of one warp): only the rows of
    /// one-warp conversions inside the prior's bounds, starting from the prior's one-warp weights
    /// (its base weights where it has none); the written model is the prior
    /// with this section replaced. Without it, where the prior has a
    /// one-warp section, the rows it ranks are left out and the section
    /// kept. Either way one-warp rows outside the prior's
    /// `one_warp_max_words` and `one_warp_min_bits` belong to the base
    /// weights.
    #[arg(long)]
    one_warp: bool,
}

pub(crate) fn run(a: FitArgs) -> Result<i32> {
    check_files(&a)?;
    let rows = read_rows(&a.from)?;
    let prior = match &a.prior {
        Some(p) => super::Model {
            cost_model: Some(p.clone()),
        }
        .weights()?,
        None => CostModel::builtin().weights,
    };
    // which rows the fit judges, and from which weights: one-warp rows by
    // the one-warp section, the others by the base weights
    let split = a.one_warp || prior.one_warp.is_some();
    let rows: Vec<Row> = rows
        .into_iter()
        .filter(|r| !split || in_one_warp_section(&prior, r) == a.one_warp)
        .collect();
    if rows.is_empty() {
        let bounds = match (prior.one_warp_max_words, prior.one_warp_min_bits) {
            (None, None) => String::new(),
            (w, b) => format!(
                " (the prior's one-warp bounds: single one-warp CTAs{}{}; rows inside them belong to the one-warp section, the rest to the base weights)",
                w.map_or(String::new(), |w| format!(" of at most {w} words per thread")),
                b.map_or(String::new(), |b| format!(" in elements of at least {b} bits"))
            ),
        };
        bail!(
            "--from: no rows of {} conversions to fit{bounds}",
            if a.one_warp { "one-warp" } else { "2+ warp" }
        );
    }
    warn_chosen_pairing(&rows);
    // the section's weights (the base ones where the prior has none), or
    // the base weights, each with the prior's floors and no section
    let start = match prior.one_warp {
        Some(o) if a.one_warp => Weights::from_array(o.as_array()).with_floors_of(&prior),
        _ => prior.at_cta(2, 1, 0, 32),
    };
    let r = fit_rows(&a, &rows, &start)?;
    let mut m = bench::fit::model(&r, &a.gpu, &provenance(&a, rows.len()));
    m.weights = if a.one_warp {
        Weights {
            one_warp: Some(OneWarpWeights::from_array(r.weights.as_array())),
            ..prior
        }
    } else {
        Weights {
            one_warp: prior.one_warp,
            one_warp_max_words: prior.one_warp_max_words,
            one_warp_min_bits: prior.one_warp_min_bits,
            ..r.weights
        }
    };
    write_file(&a.output, &m.to_json())?;
    if let Some(p) = &a.report {
        write_file(p, &(serde_json::to_string_pretty(&r)? + "\n"))?;
    }
    let mut out = Stdout::new();
    print_weights(&mut out, &r, a.only.as_deref())?;
    print_quality(&mut out, &r)?;
    out.finish()?;
    note!("warpforge: wrote {}", a.output.display());
    Ok(0)
}

/// Say on standard error how many of `rows` were timed with every candidate
/// returning through the reverse's chosen plan (`bench --pair chosen`, rows
/// without `pair`) while their candidates are of both families: there a
/// candidate of the other family than that reverse overlaps it on another
/// pipe and times faster than it runs beside a reverse of its own family,
/// which misleads a fit that changes the choice between families
/// (results/runs/2026-11-28-h200-one-warp-choice-5a3d102/).
fn warn_chosen_pairing(rows: &[Row]) {
    let mixed = |r: &&Row| {
        let has = |k: &str| r.candidates.iter().any(|c| c.kind == k);
        has("shuffle") && has("shared")
    };
    let n = rows
        .iter()
        .filter(|r| r.pair.is_none())
        .filter(mixed)
        .count();
    if n > 0 {
        note!(
            "warpforge: fit: {n} of {} conversion(s) have shuffle and shared-memory candidates timed with the reverse's chosen plan (bench --pair chosen): a candidate of the other family overlaps that reverse on another pipe and times faster than beside its own; rows of `warpforge bench --pair same-family` judge a change between families as a kernel runs it",
            rows.len()
        );
    }
}

/// The output files (`-o`, `--report`) must not be the input files
/// (`--from`, `--prior`) nor each other ([`check_outputs`]).
fn check_files(a: &FitArgs) -> Result<()> {
    let outs: Vec<(&str, &Path)> = [("-o", Some(&a.output)), ("--report", a.report.as_ref())]
        .into_iter()
        .filter_map(|(f, p)| p.map(|p| (f, p.as_path())))
        .collect();
    let mut ins: Vec<(&str, &Path)> = a.from.iter().map(|p| ("--from", p.as_path())).collect();
    if let Some(p) = &a.prior {
        ins.push(("--prior", p));
    }
    check_outputs(&outs, &ins)
}

/// Whether the one-warp section of `prior` ranks the conversion of bench row
/// `r` ([`Weights::one_warp_bounds_hold`]): one warp, one CTA, within the word
/// and width bounds, each counted as the planner counts them for
/// `Weights::for_conversion`: the width plans are made for
/// (`search::plan_width`), the CTAs the source layout spans (`layout_ctas`;
/// rows written before it: the cluster CTAs they ran in) and the tensor
/// data per thread over all of them.
fn in_one_warp_section(prior: &Weights, r: &Row) -> bool {
    let width = r.bits.clamp(8, 64).next_power_of_two();
    let ctas = r.layout_ctas.unwrap_or(r.ctas).max(1);
    let words =
        synth::cost_model::words_per_thread(&r.shape, width, 32 * r.warps as u64 * ctas as u64);
    prior.one_warp_bounds_hold(r.warps, ctas, words, width)
}

/// The bench rows of every `--from` file, one JSON object a non-blank line,
/// in order, without the timings that do not time their plan
/// ([`bench::report::drop_elided`]). Errors name the file and line.
fn read_rows(from: &[PathBuf]) -> Result<Vec<Row>> {
    let mut rows: Vec<Row> = Vec::new();
    for f in from {
        let text = std::fs::read_to_string(f)
            .with_context(|| format!("--from {}: cannot read", f.display()))?;
        for (i, l) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let mut r: Row = serde_json::from_str(l)
                .map_err(|e| anyhow!("{}:{}: not a bench row: {e}", f.display(), i + 1))?;
            // rows written before bench dropped them: no elided timings
            bench::report::drop_elided(&mut r.candidates);
            // rows written before the remote-access weights: their counts
            bench::report::fill_cluster_features(&mut r);
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Fit `rows` from `prior` as the arguments ask: one weight (`--only`),
/// near the prior (`--near-prior`), or least squares refined.
fn fit_rows(a: &FitArgs, rows: &[Row], prior: &Weights) -> Result<FitReport> {
    Ok(match &a.only {
        Some(f) => {
            let i = synth::cost_model::FEATURE_NAMES
                .iter()
                .position(|n| n == f)
                .expect("clap checked the name");
            bench::fit::fit_one(rows, prior, i).with_context(|| format!("--only {f}"))?
        }
        None => match a.near_prior {
            Some(l) => bench::fit::fit_near(rows, prior, l).context("--near-prior")?,
            None => bench::fit::fit(rows, prior)?,
        },
    })
}

/// Where the model comes from, as its file records it: the command, the
/// number of rows, the date and the warpforge commit.
fn provenance(a: &FitArgs, rows: usize) -> String {
    format!(
        "warpforge fit --from {}{} ({} rows), {}, warpforge commit {}",
        a.from
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        a.only
            .as_ref()
            .map_or(String::new(), |f| format!(" --only {f}"))
            + &a.near_prior
                .map_or(String::new(), |l| format!(" --near-prior {l}"))
            + if a.one_warp { " --one-warp" } else { "" },
        rows,
        super::today(),
        env!("WARPFORGE_COMMIT")
    )
}

/// Print the fitted weights and the regret of the prior and the fit; with
/// `only` (`--only`) the one weight fitted, else the least-squares and the
/// refined weights.
fn print_weights(out: &mut Stdout, r: &FitReport, only: Option<&str>) -> Result<()> {
    if let Some(f) = only {
        // one least-squares weight, no refinement
        writeln!(
            out,
            "weights (the model; `{f}` fitted, the others the prior's): {}",
            serde_json::to_string(&r.weights)?
        )?;
        writeln!(
            out,
            "regret (sum over conversions of the mean over forms of ln(chosen/fastest)): prior {:.3}, fitted {:.3}",
            r.regret_prior, r.regret
        )?;
    } else {
        writeln!(
            out,
            "least-squares weights: {}",
            serde_json::to_string(&r.weights_least_squares)?
        )?;
        writeln!(
            out,
            "refined weights (the model): {}",
            serde_json::to_string(&r.weights)?
        )?;
        writeln!(
            out,
            "regret (sum over conversions of the mean over forms of ln(chosen/fastest)): prior {:.3}, least squares {:.3}, refined {:.3}",
            r.regret_prior, r.regret_least_squares, r.regret
        )?;
    }
    Ok(())
}

/// Print the fit's quality: samples, conversions, R^2 and the identified
/// weights, then how often the prior and the fitted model (in sample and
/// leave one out) choose a form near the fastest, with every miss.
fn print_quality(out: &mut Stdout, r: &FitReport) -> Result<()> {
    writeln!(
        out,
        "fit: {} samples over {} conversions, R^2 within conversions {:.3}; identified: {}",
        r.samples,
        r.conversions,
        r.r2_within,
        r.identified.join(", ")
    )?;
    for (label, s) in [
        ("prior model", &r.selection_prior),
        ("fitted, in sample", &r.selection_in_sample),
        ("fitted, leave one out", &r.selection_leave_one_out),
    ] {
        writeln!(
            out,
            "{label}: chosen within 5% of the fastest on {}/{}, within 15% on {}/{}",
            s.within_5pct, s.conversions, s.within_15pct, s.conversions
        )?;
        for m in &s.misses {
            writeln!(
                out,
                "  miss {}: chose {} ({:.1} ns), fastest {} ({:.1} ns), {:.3}x",
                m.conversion, m.chosen, m.chosen_ns, m.fastest, m.fastest_ns, m.slower_by
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-warp row of a two-CTA layout whose CTAs each convert their own
    /// data ran in no cluster (`ctas` 1), but the planner ranks it with the
    /// base weights (`Conversion::ctas` is 2), so `fit` must too.
    #[test]
    fn one_warp_rows_split_by_the_layouts_ctas() {
        let prior = CostModel::builtin().weights;
        assert_eq!(prior.one_warp_max_words, Some(16));
        let row = |layout_ctas: Option<u32>, shape: [u64; 2]| -> Row {
            let mut v = serde_json::json!({
                "file": "t", "name": "c", "shape": shape, "dtype": "f32", "bits": 32,
                "warps": 1, "ctas": 1, "bwd": "b", "lower_bound": null, "candidates": [],
                "chosen": {"strategy": "k0", "ns": null}, "fastest": {"strategy": "k0", "ns": null},
                "triton": null
            });
            if let Some(n) = layout_ctas {
                v["layout_ctas"] = n.into();
            }
            serde_json::from_value(v).unwrap()
        };
        // 16x16 f32 over one warp: 8 words a thread, inside the bounds
        assert!(in_one_warp_section(&prior, &row(Some(1), [16, 16])));
        assert!(in_one_warp_section(&prior, &row(None, [16, 16])));
        assert!(!in_one_warp_section(&prior, &row(Some(2), [16, 16])));
        // 64x64 f32 at one CTA: 128 words, over the word bound
        assert!(!in_one_warp_section(&prior, &row(Some(1), [64, 64])));
    }
}
