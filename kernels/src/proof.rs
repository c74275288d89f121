//! The CPU proof of an emitted helper: the kernel IR of every form it
//! prints, run by the interpreter ([`crate::kir::interp`]) for every thread
//! of every CTA, at every element width the helper serves and under every
//! `warpforge::words` choice it takes.

use crate::kir::interp::{self, InterpError, Io, Report, Setup};
use crate::EmittedHelper;
use synth::plan::pack::PackMap;
use synth::plan::Analysis;

/// One proven form of a helper.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FormProof {
    /// The form: `element <bits>-bit` (with ` words::<choice>` where the
    /// helper takes the choice), `packed<bits>` or `vector x<32 / bits>`.
    pub form: String,
    /// What the interpreter ran and checked.
    pub report: Report,
}

/// A form whose printed code does not do the conversion.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{helper}: the printed {form} fails its CPU proof: {error}")]
pub struct ProofError {
    /// The helper's C identifier.
    pub helper: String,
    /// The form, as [`FormProof::form`].
    pub form: String,
    /// What the interpreter found.
    pub error: InterpError,
}

/// The `warpforge::words` enumerators a caller can name.
const WORDS: [&str; 5] = ["automatic", "none", "src", "dst", "both"];

/// Run every form of `h` (the conversion's analysis `an`) through the
/// interpreter: the element form at each served width (each `words`
/// choice where [`EmittedHelper::takes_words`]), each packed form and
/// each vector form.
/// Returns one [`FormProof`] per form, or the first failure.
pub fn prove(h: &EmittedHelper, an: &Analysis) -> Result<Vec<FormProof>, ProofError> {
    use rayon::prelude::*;
    let fail = |form: &str, error: InterpError| ProofError {
        helper: h.ident.clone(),
        form: form.to_string(),
        error,
    };
    // every form's run: (form, body, setup); independent, so run in parallel
    let mut runs: Vec<(String, &crate::kir::Body, Setup)> = Vec::new();
    for w in &h.widths {
        let choices: &[&'static str] = if h.takes_words(w.bits) {
            &WORDS
        } else {
            &WORDS[..1]
        };
        for &words in choices {
            let form = if choices.len() > 1 {
                format!("element {}-bit words::{words}", w.bits)
            } else {
                format!("element {}-bit", w.bits)
            };
            let setup = Setup {
                an,
                elem_bytes: w.bits / 8,
                src: Io::Elements,
                dst: Io::Elements,
                words,
                packed: &h.kir.packed,
                smem_bytes: w.bytes,
                first_warp: h.first_warp,
            };
            runs.push((form, &h.kir.element, setup));
        }
    }
    for (bits, body) in &h.kir.packed {
        let form = format!("packed{bits}");
        let Some(pf) = h.packed_form(*bits) else {
            return Err(fail(
                &form,
                InterpError {
                    what: "no pack maps for this packed form".into(),
                    at: None,
                },
            ));
        };
        let setup = Setup {
            an,
            elem_bytes: bits / 8,
            src: Io::Packed(&pf.src),
            dst: Io::Packed(&pf.dst),
            words: "automatic",
            packed: &[],
            smem_bytes: h.smem_bytes(*bits).unwrap_or(0),
            first_warp: h.first_warp,
        };
        runs.push((form, body, setup));
    }
    // the vector forms: natural words in, natural words out, through the
    // packed form of the same width
    let natural: Vec<PackMap> = h
        .kir
        .vector
        .iter()
        .map(|(bits, _)| PackMap::lowest(*bits))
        .collect();
    for ((bits, body), map) in h.kir.vector.iter().zip(&natural) {
        let setup = Setup {
            an,
            elem_bytes: bits / 8,
            src: Io::Packed(map),
            dst: Io::Packed(map),
            words: "automatic",
            packed: &h.kir.packed,
            smem_bytes: h.smem_bytes(*bits).unwrap_or(0),
            first_warp: h.first_warp,
        };
        runs.push((format!("vector x{}", 32 / bits), body, setup));
    }
    // in form order; the first failure in that order is reported
    runs.into_par_iter()
        .map(|(form, body, setup)| match interp::run(body, &setup) {
            Ok(report) => Ok(FormProof { form, report }),
            Err(e) => Err(fail(&form, e)),
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect()
}
