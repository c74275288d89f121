//! Layout arguments (`--src`, `--dst`, `layout --attr`, `draw --attr`) in
//! any format `synth::input` reads, and the tensor shape and warp count
//! they imply together with `--shape` and `--warps`.

use crate::diag::SourceError;
use anyhow::{anyhow, bail, Result};
use synth::input::{read_layout, LayoutText};
use synth::parse::parse_shape;

/// Read the layout of flag `flag` (e.g. `--src`): TTGIR attribute,
/// `LinearLayout::toString` text, JSON bases, Gluon constructor or `@FILE`.
///
/// Errors: a malformed TTGIR attribute is a [`SourceError`] pointing into
/// `text`; other formats' errors are prefixed with `flag`.
pub fn read(flag: &str, text: &str) -> Result<LayoutText> {
    // a TTGIR attribute's errors point into the flag's text, underlined
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.trim_start().starts_with('#') {
        if let Err(e) = synth::parse::parse_attribute(text) {
            let span = e.span();
            return Err(SourceError::new(flag, text, span, e.msg, "here").into());
        }
    }
    read_layout(text).map_err(|e| anyhow!("{flag}: {e}"))
}

/// The tensor shape: `--shape` when given (it must agree with the shape a
/// layout carries), else the shape the layouts carry (they must agree).
pub fn shape(flag: Option<&str>, layouts: &[(&str, &LayoutText)]) -> Result<Vec<i64>> {
    let carried: Vec<(&str, &Vec<i64>)> = layouts
        .iter()
        .filter_map(|(f, l)| l.shape.as_ref().map(|s| (*f, s)))
        .collect();
    let dims = |s: &[i64]| {
        s.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x")
    };
    if let Some(text) = flag {
        let s = parse_shape(text).map_err(|e| anyhow!("--shape: {e}"))?;
        for (f, c) in &carried {
            if **c != s {
                bail!(
                    "--shape {} but {f} ({}) covers a {} tensor",
                    dims(&s),
                    layouts
                        .iter()
                        .find(|l| l.0 == *f)
                        .map_or("", |l| l.1.format.name()),
                    dims(c)
                );
            }
        }
        return Ok(s);
    }
    match carried.as_slice() {
        [] => {
            let f: Vec<&str> = layouts.iter().map(|l| l.0).collect();
            bail!(
                "{} need --shape (e.g. --shape 64x32): {} carr{} no tensor shape",
                f.join("/"),
                if f.len() > 1 {
                    "these layouts"
                } else {
                    "this layout"
                },
                if f.len() > 1 { "y" } else { "ies" }
            )
        }
        [(_, s), rest @ ..] => {
            for (f, c) in rest {
                if c != s {
                    bail!(
                        "{} covers a {} tensor but {f} a {} tensor",
                        carried[0].0,
                        dims(s),
                        dims(c)
                    );
                }
            }
            Ok((*s).clone())
        }
    }
}

/// Warps per CTA: `--warps` when given, else what the first layout that
/// fixes it says (bases formats: 2^warp bases; blocked and MMA: the product
/// of warpsPerCTA), else 4.
pub fn warps(flag: Option<u32>, layouts: &[&LayoutText]) -> u32 {
    flag.or_else(|| layouts.iter().find_map(|l| l.num_warps))
        .unwrap_or(crate::DEFAULT_WARPS)
}
