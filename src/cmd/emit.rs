//! `warpforge emit`: one CUDA header with a helper per conversion, written
//! only when every conversion plans and emits.

use super::{check_outputs_against, cost_json, Input, Naming};
use crate::output::{self, write_file, Stdout};
use anyhow::{bail, Result};
use clap::Args;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct EmitArgs {
    #[command(flatten)]
    input: Input,
    /// Output header (default: standard output). Written only if every
    /// conversion succeeds; never one of the inputs.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    naming: Naming,
}

pub(crate) fn run(a: EmitArgs) -> Result<i32> {
    if a.input.json && a.output.is_none() {
        bail!("emit --json prints one JSON object per helper on standard output, where the header would go: give -o FILE for the header");
    }
    let loaded = a.input.source.load()?;
    check_outputs_against(&[("-o", a.output.as_deref())], &loaded, &a.input.model)?;
    let planned = pipeline::PlannedInput {
        conversions: a.input.plan(&loaded, true)?,
        origin: loaded.origin,
    };
    let emitted = planned.emit(&a.naming.prefix)?;
    match &a.output {
        Some(path) => {
            write_file(path, &emitted.header)?;
            note!(
                "warpforge: wrote {} helper(s) to {}",
                emitted.helpers.len(),
                path.display()
            );
        }
        None => output::print_all(&emitted.header)?,
    }
    if a.input.json {
        let mut out = Stdout::new();
        for (p, h) in planned.conversions.iter().zip(&emitted.helpers) {
            writeln!(
                out,
                "{}",
                json!({"name": p.op.name, "kind": p.chosen.plan.kind.as_str(), "cost": cost_json(&p.chosen.cost),
                       "function": h.ident, "smem_elems": h.smem_elems})
            )?;
        }
        out.finish()?;
    }
    Ok(0)
}
