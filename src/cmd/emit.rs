//! `warpforge emit`: one CUDA header with a helper per served conversion
//! and, for each refused one, declarations whose use fails to compile with
//! the reason (exit status 1 when any was refused).

use super::{check_outputs_against, cost_json, refused_json, served_status, Input, Naming};
use crate::output::{self, write_file, Stdout};
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

/// The C++ API of the emitted helpers (`--api`).
#[derive(Clone, Copy, Default, ValueEnum)]
pub(crate) enum ApiArg {
    /// Register arrays: `const T (&src)[S], T (&dst)[D]` and the packed forms
    /// on `unsigned` word arrays; the header includes nothing.
    #[default]
    Array,
    /// The array forms plus an overload of each on CuTe register fragments
    /// (`cute::Tensor` of a `cute::ArrayEngine`: register i is `frag(i)`);
    /// the header includes <cute/tensor.hpp> (CUTLASS) where it is found.
    /// NVIDIA helpers only: AMD (HIP) helpers keep the array forms.
    Cute,
}

impl From<ApiArg> for pipeline::Api {
    fn from(a: ApiArg) -> Self {
        match a {
            ApiArg::Array => pipeline::Api::Array,
            ApiArg::Cute => pipeline::Api::Cute,
        }
    }
}

#[derive(Args)]
pub(crate) struct EmitArgs {
    #[command(flatten)]
    input: Input,
    /// Output header (default: standard output), never one of the inputs.
    /// Holds every served conversion's helper and, for each refused one,
    /// declarations that fail to compile with the reason where a kernel
    /// uses them (the run then exits 1).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    #[command(flatten)]
    naming: Naming,
    /// The helpers' C++ API: `array` (register arrays), or `cute`, which adds
    /// overloads on CuTe register fragments (`cute::Tensor` of a
    /// `cute::ArrayEngine`, as `make_tensor<T>(layout)` and
    /// `partition_fragment_C` return; register i of the helper is `frag(i)`)
    /// and includes <cute/tensor.hpp> from CUTLASS.
    #[arg(long, value_enum, default_value_t = ApiArg::Array)]
    api: ApiArg,
}

pub(crate) fn run(a: EmitArgs) -> Result<i32> {
    if a.input.json && a.output.is_none() {
        bail!("emit --json prints one JSON object per helper on standard output, where the header would go: give -o FILE for the header");
    }
    let loaded = a.input.source.load()?;
    check_outputs_against(
        &[("-o", a.output.as_deref())],
        &loaded,
        &a.input.model,
        &a.input.source,
        a.input.measured.as_deref(),
    )?;
    let planned = a.input.plan(&loaded, true)?;
    let emitted = planned.emit_api(&a.naming.prefix, a.api.into())?;
    if matches!(a.api, ApiArg::Cute) {
        let amd = planned
            .conversions
            .iter()
            .filter(|p| p.target.amd.is_some())
            .count();
        if amd > 0 {
            note!("warpforge: --api cute: {amd} AMD (HIP) helper(s) keep their array forms only (CuTe is NVIDIA's)");
        }
    }
    match &a.output {
        Some(path) => {
            write_file(path, &emitted.header)?;
            note!(
                "warpforge: wrote {} helper(s){} to {}",
                emitted.helpers.len(),
                if emitted.refused.is_empty() {
                    String::new()
                } else {
                    format!(
                        " and {} refused conversion(s)' declarations",
                        emitted.refused.len()
                    )
                },
                path.display()
            );
        }
        None => output::print_all(&emitted.header)?,
    }
    if a.input.json {
        let mut out = Stdout::new();
        let mut helpers = emitted.helpers.iter();
        for (r, ident) in planned.named_records(&a.naming.prefix)? {
            let v = match r {
                pipeline::Record::Served(p) => {
                    let h = helpers.next().expect("a helper per served conversion");
                    json!({"file": p.file, "name": p.op.name, "line": p.op.line, "status": "served",
                           "kind": p.chosen.plan.kind.as_str(), "cost": cost_json(&p.chosen.cost),
                           "function": h.ident, "helper": h.ident, "smem_elems": h.smem_elems,
                           "target": p.target.name()})
                }
                pipeline::Record::Refused(x) => refused_json(x, ident.as_deref()),
            };
            writeln!(out, "{v}")?;
        }
        out.finish()?;
    }
    Ok(served_status(&planned))
}
