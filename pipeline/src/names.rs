//! Helper names and the header: one C identifier per conversion, unique
//! across every input file, then [`kernels`] prints the helpers.

use crate::{Emitted, Planned};
use anyhow::{bail, Result};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use synth::search::plan_width;

/// The C identifier of each planned conversion's helper: `<prefix><func>_<line>`
/// (`<prefix><name>` for a pair). Where two files would give one name, the
/// helpers of those files are named `<prefix><file stem>_<func>_<line>`.
fn idents_of(planned: &[Planned], prefix: &str) -> Result<Vec<String>> {
    let plain: Vec<String> = planned
        .iter()
        .map(|p| kernels::ident_with_prefix(prefix, &p.op.name))
        .collect();
    let mut qualify: HashSet<&str> = Default::default();
    let mut first: HashMap<&str, &str> = Default::default();
    for (p, id) in planned.iter().zip(&plain) {
        if let Some(f) = first.insert(id, &p.file) {
            if f != p.file {
                qualify.insert(f);
                qualify.insert(&p.file);
            }
        }
    }
    let idents: Vec<String> = planned
        .iter()
        .zip(&plain)
        .map(|(p, id)| {
            if qualify.contains(p.file.as_str()) {
                let stem = Path::new(&p.file)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                kernels::ident_with_prefix(prefix, &format!("{stem}_{}", p.op.name))
            } else {
                id.clone()
            }
        })
        .collect();
    // two conversions whose names still map to one C identifier would
    // define the same helper twice: refuse before writing anything
    let mut seen: HashMap<&str, &Planned> = Default::default();
    for (p, ident) in planned.iter().zip(&idents) {
        if let Some(q) = seen.insert(ident, p) {
            bail!(
                "{}:{} (`{}`) and {}:{} (`{}`) would both emit helper `{ident}`; emit them from separate invocations with different --prefix",
                q.file, q.op.line, q.op.name, p.file, p.op.line, p.op.name
            );
        }
    }
    Ok(idents)
}

/// The header of `planned` in `api` (see [`crate::PlannedInput::emit_api`]).
pub(crate) fn emit(
    planned: &[Planned],
    origin: &str,
    prefix: &str,
    api: kernels::Api,
) -> Result<Emitted> {
    let idents = idents_of(planned, prefix)?;
    let helpers = planned
        .iter()
        .zip(&idents)
        .map(|(p, ident)| {
            if p.variants.is_empty() {
                let own = (plan_width(&p.conv), p.chosen.clone());
                kernels::emit_helper_widths_as(&p.conv, &[own], ident)
            } else {
                kernels::emit_helper_widths_as(&p.conv, &p.variants, ident)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Emitted {
        header: kernels::emit_header_api(&helpers, origin, api)?,
        helpers,
    })
}
