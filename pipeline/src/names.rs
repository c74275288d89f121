//! Helper names and the header: one C identifier per conversion, unique
//! across every input file, then [`kernels`] prints the helpers.

use crate::{Emitted, PlannedInput, Record};
use anyhow::Result;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use synth::search::plan_width;

/// One named conversion: its file and `func:line`.
struct Named<'a> {
    file: &'a str,
    name: &'a str,
}

/// The C identifier of each conversion's helper (`items` served and
/// refused alike): `<prefix><func>_<line>` (`<prefix><name>` for a pair).
/// Where two files would give one name, the helpers of those files are
/// named `<prefix><file stem>_<func>_<line>`; where stems collide too (one
/// file name in two folders), `<prefix><path>_<func>_<line>` with the path
/// as given (non-identifier characters as `_`); a name still taken (one
/// file given twice) gets `_2`, `_3`, ... in input order. Every
/// conversion gets a distinct identifier.
fn idents_of(items: &[Named], prefix: &str) -> Result<Vec<String>> {
    let plain: Vec<String> = items
        .iter()
        .map(|p| kernels::ident_with_prefix(prefix, p.name))
        .collect();
    let stem = |f: &str| {
        Path::new(f)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    // the files whose names collide with another file's under `name_of`
    let clashing = |names: &[String]| -> HashSet<String> {
        let mut first: HashMap<&str, &str> = Default::default();
        let mut out: HashSet<String> = Default::default();
        for (p, id) in items.iter().zip(names) {
            if let Some(f) = first.insert(id, p.file) {
                if f != p.file {
                    out.insert(f.to_string());
                    out.insert(p.file.to_string());
                }
            }
        }
        out
    };
    let by_stem = clashing(&plain);
    let mut idents: Vec<String> = items
        .iter()
        .zip(&plain)
        .map(|(p, id)| {
            if by_stem.contains(p.file) {
                kernels::ident_with_prefix(prefix, &format!("{}_{}", stem(p.file), p.name))
            } else {
                id.clone()
            }
        })
        .collect();
    let by_path = clashing(&idents);
    for (p, id) in items.iter().zip(idents.iter_mut()) {
        if by_path.contains(p.file) {
            *id = kernels::ident_with_prefix(prefix, &format!("{}_{}", p.file, p.name));
        }
    }
    // what is still taken (one file given twice): number in input order
    let mut seen: HashMap<String, u32> = Default::default();
    for id in idents.iter_mut() {
        let n = seen.entry(id.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            *id = format!("{id}_{n}");
        }
    }
    Ok(idents)
}

/// The helper name of every record of `input` (in [`PlannedInput::records`]
/// order; `None` for a whole file that could not be read).
pub(crate) fn record_idents(input: &PlannedInput, prefix: &str) -> Result<Vec<Option<String>>> {
    let records = input.records();
    let named: Vec<Named> = records.iter().filter_map(named_of).collect();
    let mut idents = idents_of(&named, prefix)?.into_iter();
    Ok(records
        .iter()
        .map(|r| named_of(r).and_then(|_| idents.next()))
        .collect())
}

/// The name of a record's helper, if it has one.
fn named_of<'a>(r: &Record<'a>) -> Option<Named<'a>> {
    match *r {
        Record::Served(p) => Some(Named {
            file: &p.file,
            name: &p.op.name,
        }),
        Record::Refused(x) if x.is_file() => None,
        Record::Refused(x) => Some(Named {
            file: &x.file,
            name: &x.name,
        }),
    }
}

/// The header of `input` in `api` (see [`crate::PlannedInput::emit_api`]):
/// served conversions as helpers stating and guarding their target,
/// refused ones as declarations whose use fails to compile.
pub(crate) fn emit(input: &PlannedInput, prefix: &str, api: kernels::Api) -> Result<Emitted> {
    let records = input.records();
    let named: Vec<Named> = records.iter().filter_map(named_of).collect();
    let idents = idents_of(&named, prefix)?;
    let mut helpers = Vec::new();
    let mut refused = Vec::new();
    let mut proofs = Vec::new();
    let mut order = Vec::new();
    let mut k = 0;
    for r in &records {
        match r {
            Record::Served(p) => {
                let ident = &idents[k];
                k += 1;
                let mut h = if p.variants.is_empty() {
                    let own = (plan_width(&p.conv), p.chosen.clone());
                    kernels::emit_helper_widths_as(&p.conv, &[own], ident)
                } else {
                    kernels::emit_helper_widths_as(&p.conv, &p.variants, ident)
                }?;
                h.target = Some(kernels::HelperTarget {
                    sm: p.target.sm,
                    amd: p.target.amd,
                    from: p.target.from.clone(),
                });
                // the printed code's own proof: a helper that fails it is
                // not shipped (its declaration says why), the others are
                let proof = kernels::prove(&h, &p.chosen.analysis);
                if let Err(e) = &proof {
                    order.push((false, refused.len()));
                    refused.push(kernels::RefusedHelper {
                        ident: h.ident.clone(),
                        name: p.op.name.clone(),
                        file: p.file.clone(),
                        reason: format!("warpforge bug, please report: {e}"),
                    });
                } else {
                    order.push((true, helpers.len()));
                }
                helpers.push(h);
                proofs.push(proof);
            }
            Record::Refused(x) if x.is_file() => {}
            Record::Refused(x) => {
                let ident = idents[k].clone();
                k += 1;
                order.push((false, refused.len()));
                refused.push(kernels::RefusedHelper {
                    ident,
                    name: x.name.clone(),
                    file: x.file.clone(),
                    reason: x.reason.clone(),
                });
            }
        }
    }
    let items: Vec<kernels::HeaderItem> = order
        .iter()
        .map(|&(served, i)| {
            if served {
                kernels::HeaderItem::Helper(&helpers[i])
            } else {
                kernels::HeaderItem::Refused(&refused[i])
            }
        })
        .collect();
    let mut header = kernels::emit_header_items(&items, &input.origin)?;
    // CuTe (CUTLASS) is NVIDIA's: AMD helpers get no fragment overloads
    let shipped: Vec<&kernels::EmittedHelper> = helpers
        .iter()
        .zip(&proofs)
        .filter(|(h, p)| p.is_ok() && h.target.as_ref().is_none_or(|t| t.amd.is_none()))
        .map(|(h, _)| h)
        .collect();
    if api == kernels::Api::Cute && !shipped.is_empty() {
        header.push('\n');
        header += &kernels::cute_section_of(&shipped)?;
    }
    Ok(Emitted {
        header,
        helpers,
        refused,
        proofs,
    })
}
