//! TTGIR attribute text (`#ttg.blocked<{...}>`), through [`crate::parse`].

use super::{warps_of, Format, LayoutText};
use crate::parse::parse_attribute_at;

/// Parse one attribute; errors are `(byte offset, message)`.
pub(super) fn parse(text: &str) -> Result<LayoutText, (usize, String)> {
    let lead = text.len() - text.trim_start().len();
    if !text.trim_start().starts_with('#') {
        return Err((
            lead,
            "expected `#` (an attribute such as `#ttg.blocked<{...}>`)".into(),
        ));
    }
    let encoding = parse_attribute_at(text).map_err(|(e, at)| (at, e.msg))?;
    Ok(LayoutText {
        format: Format::Ttgir,
        num_warps: warps_of(&encoding),
        encoding,
        shape: None,
        ttgir: text.trim().to_string(),
    })
}
