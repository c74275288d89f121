//! Layouts as users have them, detected automatically (issue 9):
//!
//! - [`Format::Ttgir`]: a TTGIR attribute, `#ttg.blocked<{...}>` (see
//!   [`crate::parse`]);
//! - [`Format::ToString`]: Triton's `LinearLayout::toString` text, as
//!   `warpforge layout` prints it (` - register=1 -> (0, 1)` lines, then
//!   `where out dims are: [dim0 (size 16), ...]`);
//! - [`Format::Json`]: `{"reg_bases": [[..], ..], "lane_bases": ..,
//!   "warp_bases": .., "block_bases": .., "shape": [..]}` (the fields of
//!   Gluon's `DistributedLinearLayout`) or the same keyed by in-dim names
//!   (`register`, `lane`, `warp`, `block`);
//! - [`Format::Gluon`]: a Gluon constructor call, `ttgl.BlockedLayout(...)`,
//!   `NVMMADistributedLayout`, `DotOperandLayout`, `SliceLayout`,
//!   `DistributedLinearLayout`, with or without a module prefix, positional
//!   or keyword arguments as Gluon's Python signatures accept them
//!   (`python/triton/experimental/gluon/language/_layouts.py`).
//!
//! [`read_layout`] also takes `@PATH`: any of these read from a file.
//!
//! Every format yields an [`Encoding`] (bases become
//! [`Encoding::Linear`]); formats that carry a tensor shape (toString's out
//! dims, JSON and `DistributedLinearLayout`'s `shape`) return it, the others
//! take the shape from the caller (`--shape`). Text that no format accepts
//! gets an [`InputError`] listing each format tried and the position
//! (1-based line:column) where it stopped.

use crate::encoding::{CtaLayout, Encoding};
use std::fmt;

pub(crate) mod cute;
mod fragment;
mod gluon;
mod json;
mod to_string;
mod ttgir;

/// The text formats a layout may come in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// TTGIR attribute text (`#ttg.blocked<{...}>`, `#ttg.linear<{...}>`, ...).
    Ttgir,
    /// Triton's `LinearLayout::toString` output.
    ToString,
    /// JSON bases (Gluon `DistributedLinearLayout` fields or in-dim names).
    Json,
    /// A Gluon constructor call (`ttgl.BlockedLayout(...)`, ...).
    Gluon,
    /// A CuTe thread-value layout as `cute::print` writes it
    /// (`((_4,_8),(_2,_2)):((_32,_1),(_16,_8))`).
    Cute,
    /// A named PTX register fragment (`ptx:mma.m16n8k16.c.f32@2x2`).
    Ptx,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 6] = [
        Format::Ttgir,
        Format::ToString,
        Format::Json,
        Format::Gluon,
        Format::Cute,
        Format::Ptx,
    ];

    /// Human name used in messages.
    pub fn name(&self) -> &'static str {
        match self {
            Format::Ttgir => "TTGIR attribute",
            Format::ToString => "LinearLayout::toString",
            Format::Json => "JSON bases",
            Format::Gluon => "Gluon constructor",
            Format::Cute => "CuTe layout",
            Format::Ptx => "PTX fragment",
        }
    }

    /// Does the text (trimmed) start the way this format starts? Detection
    /// reports only this format's error when exactly one format claims the
    /// text.
    fn claims(&self, t: &str) -> bool {
        match self {
            Format::Ttgir => t.starts_with('#'),
            Format::ToString => {
                t.starts_with("- ") || t.starts_with("(empty layout") || t.starts_with("where ")
            }
            Format::Json => t.starts_with('{'),
            Format::Gluon => {
                let id: String = t
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
                    .collect();
                !id.is_empty() && id.ends_with("Layout")
            }
            Format::Cute => cute::claims(t),
            Format::Ptx => fragment::claims(t),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A 1-based line and column (in characters) of the input text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl Pos {
    /// The position of byte `offset` of `text` (clamped to the text; an
    /// offset inside a multi-byte character counts as that character).
    pub fn of(text: &str, offset: usize) -> Pos {
        let mut line = 1;
        let mut col = 1;
        for (i, c) in text.char_indices() {
            if i >= offset {
                break;
            }
            if c == '\n' {
                line += 1;
                col = 1;
            } else if i + c.len_utf8() <= offset {
                col += 1;
            }
        }
        Pos { line, col }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Why one format did not accept the text: where it stopped and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    pub format: Format,
    pub pos: Pos,
    pub msg: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.format, self.pos, self.msg)
    }
}

/// A layout text that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The text starts like one format (so it was read as that format) and
    /// that format stopped at `error.pos`.
    #[error("{origin}read as {error}")]
    Format { origin: String, error: FormatError },
    /// No format recognised the text; each one's stopping point.
    #[error("{origin}not a layout in any format warpforge reads; tried:{}",
        .tried.iter().map(|e| format!("\n  - {e}")).collect::<String>())]
    Unrecognised {
        origin: String,
        tried: Vec<FormatError>,
    },
    /// `@PATH` could not be read.
    #[error("@{path}: {detail}")]
    Io { path: String, detail: String },
    /// The text is empty.
    #[error("{origin}empty layout text (give a TTGIR attribute, LinearLayout::toString text, JSON bases, a Gluon constructor or @FILE)")]
    Empty { origin: String },
}

/// A layout read from text: its encoding, the shape and warp count the text
/// implies (if any), and how it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutText {
    /// The format it was read as.
    pub format: Format,
    /// The encoding (bases formats give [`Encoding::Linear`]).
    pub encoding: Encoding,
    /// The tensor shape the text carries (toString out-dim sizes, JSON or
    /// `DistributedLinearLayout` `shape`); `None` for encodings that take it
    /// from `--shape`.
    pub shape: Option<Vec<i64>>,
    /// Warps per CTA the text fixes: `2^(warp bases)` for bases formats,
    /// the product of `warpsPerCTA` for the others; `None` when it cannot
    /// say (a slice or dot operand of a parent without warps).
    pub num_warps: Option<u32>,
    /// The layout as TTGIR attribute text (the user's own text for TTGIR
    /// input), for headers and reports.
    pub ttgir: String,
}

/// Most bytes an input file may hold: 64 MiB, or `WARPFORGE_MAX_INPUT`
/// (bytes) where that is set to a positive integer.
pub fn max_input_bytes() -> u64 {
    std::env::var("WARPFORGE_MAX_INPUT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(64 << 20)
}

/// Read the input file `path` (`-`: standard input) as UTF-8 text
/// (without a leading byte-order mark), bounded: at most [`max_input_bytes`], read in 64 KiB chunks that
/// stop at the first NUL byte (binary data, `/dev/zero`, `/dev/urandom`), so
/// a file that never ends or is not text is refused early and in bounded
/// memory.
///
/// Errors, as one line naming the path: it cannot be opened or read, it is
/// a directory, it holds a NUL byte (at which offset), it is over the limit
/// (naming it and `WARPFORGE_MAX_INPUT`), it is not UTF-8 (the offset of the
/// first invalid byte).
pub fn read_input_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let stdin = path.as_os_str() == "-";
    let shown = if stdin {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    if path.is_dir() {
        return Err(format!("{shown}: is a directory, not a file"));
    }
    let mut f: Box<dyn Read> = if stdin {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| format!("{shown}: cannot read: {e}"))?)
    };
    let limit = max_input_bytes();
    let mut bytes: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match f.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("{shown}: cannot read: {e}")),
        };
        if let Some(i) = chunk[..n].iter().position(|&b| b == 0) {
            return Err(format!(
                "{shown}: not text (a NUL byte at offset {}): warpforge reads TTGIR and layout text",
                bytes.len() + i
            ));
        }
        if bytes.len() as u64 + n as u64 > limit {
            return Err(format!(
                "{shown}: over {limit} bytes, the most an input may hold (set WARPFORGE_MAX_INPUT=BYTES to read more)"
            ));
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "{shown}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(t) => t.to_string(),
        None => text,
    })
}

/// Read a layout from `text`, detecting the format. `@PATH` reads the
/// text from a file first. Errors: [`InputError`], naming the path (for
/// `@PATH`), the format(s) tried and the position each stopped at.
pub fn read_layout(text: &str) -> Result<LayoutText, InputError> {
    // a leading UTF-8 byte-order mark is not part of any format
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let t = text.trim();
    if let Some(path) = t.strip_prefix('@') {
        let path = path.trim();
        let body = read_input_file(std::path::Path::new(path)).map_err(|e| InputError::Io {
            path: path.to_string(),
            detail: e
                .strip_prefix(&format!("{path}: "))
                .unwrap_or(&e)
                .to_string(),
        })?;
        return parse_layout_in(&body, &format!("@{path}: "));
    }
    parse_layout_in(text, "")
}

/// Read a layout from `text` (no `@PATH`), detecting the format.
pub fn parse_layout(text: &str) -> Result<LayoutText, InputError> {
    parse_layout_in(text, "")
}

/// Parse as one given format; errors carry that format and a position.
pub fn parse_as(format: Format, text: &str) -> Result<LayoutText, FormatError> {
    let r = match format {
        Format::Ttgir => ttgir::parse(text),
        Format::ToString => to_string::parse(text),
        Format::Json => json::parse(text),
        Format::Gluon => gluon::parse(text),
        Format::Cute => cute::parse(text),
        Format::Ptx => fragment::parse(text),
    };
    r.map_err(|(offset, msg)| FormatError {
        format,
        pos: Pos::of(text, offset),
        msg,
    })
}

fn parse_layout_in(text: &str, origin: &str) -> Result<LayoutText, InputError> {
    let body = strip_python_comments(text);
    let t = body.trim();
    if t.is_empty() {
        return Err(InputError::Empty {
            origin: origin.into(),
        });
    }
    // A format that the text's start claims is the only one tried: its error
    // is the one that helps.
    let claimed: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.claims(t))
        .collect();
    if claimed.len() == 1 {
        return parse_as(claimed[0], &body).map_err(|error| InputError::Format {
            origin: origin.into(),
            error,
        });
    }
    let mut tried = Vec::new();
    for f in Format::ALL {
        match parse_as(f, &body) {
            Ok(l) => return Ok(l),
            Err(e) => tried.push(e),
        }
    }
    Err(InputError::Unrecognised {
        origin: origin.into(),
        tried,
    })
}

/// Blank out `# ...` comment lines of Python source (a Gluon file read with
/// `@PATH`), keeping byte offsets. A line starting with `#` that looks like
/// a TTGIR attribute (`#ttg.`, `#triton_gpu.`) is kept.
fn strip_python_comments(text: &str) -> String {
    let t = text.trim_start();
    if t.starts_with("#ttg.") || t.starts_with("#triton_gpu.") {
        return text.to_string();
    }
    let has_code = text.lines().any(|l| {
        let l = l.trim_start();
        !l.is_empty() && !l.starts_with('#')
    });
    if !has_code {
        return text.to_string();
    }
    text.split_inclusive('\n')
        .map(|l| {
            if l.trim_start().starts_with('#') {
                l.chars()
                    .map(|c| if c == '\n' { '\n' } else { ' ' })
                    .collect()
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// The text of an encoding read from `format`: its TTGIR spelling (or, for
/// CuTe and PTX input, its own text), the warps it fixes, and the shape the
/// text carries, if any.
pub(crate) fn encoded_text(
    format: Format,
    encoding: Encoding,
    shape: Option<Vec<i64>>,
) -> LayoutText {
    LayoutText {
        format,
        ttgir: ttgir_text(&encoding),
        num_warps: warps_of(&encoding),
        shape,
        encoding,
    }
}

/// The layout of a bases format as an encoding and its TTGIR text.
pub(crate) fn linear_text(
    format: Format,
    reg: Vec<Vec<i32>>,
    lane: Vec<Vec<i32>>,
    warp: Vec<Vec<i32>>,
    block: Vec<Vec<i32>>,
    shape: Option<Vec<i64>>,
) -> LayoutText {
    let num_warps = (warp.len() < 31).then(|| 1u32 << warp.len());
    let encoding = Encoding::Linear {
        register: reg,
        lane,
        warp,
        block,
    };
    LayoutText {
        format,
        ttgir: ttgir_text(&encoding),
        encoding,
        shape,
        num_warps,
    }
}

/// Warps per CTA an encoding fixes, where it does: the product of
/// `warpsPerCTA` (blocked, mma), `2^(warp bases)` (linear), the parent's
/// (slice, dot operand); `None` when that overflows 32 bits.
pub fn warps_of(e: &Encoding) -> Option<u32> {
    match e {
        Encoding::Blocked { warps_per_cta, .. }
        | Encoding::NvidiaMma { warps_per_cta, .. }
        | Encoding::AmdMfma { warps_per_cta, .. }
        | Encoding::AmdWmma { warps_per_cta, .. } => warps_per_cta
            .iter()
            .try_fold(1u32, |a, &w| a.checked_mul(w)),
        Encoding::Linear { warp, .. } => (warp.len() < 31).then(|| 1u32 << warp.len()),
        Encoding::CuteTv { thread, .. } => (5..36)
            .contains(&thread.len())
            .then(|| 1u32 << (thread.len() - 5)),
        Encoding::PtxFragment {
            atom_warp, warps, ..
        } => (*warps != [0, 0])
            .then(|| {
                warps[0]
                    .checked_mul(warps[1])?
                    .checked_shl(atom_warp.len() as u32)
            })
            .flatten()
            .filter(|&w| w > 0),
        Encoding::Slice { parent, .. } | Encoding::DotOperand { parent, .. } => warps_of(parent),
    }
}

fn list(v: &[u32]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn bases_list(v: &[Vec<i32>]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|b| format!(
                "[{}]",
                b.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn cta_fields(cta: &Option<CtaLayout>) -> String {
    match cta {
        None => String::new(),
        Some(CtaLayout {
            cga_bases: Some(b), ..
        }) => format!(", CGALayout = {}", bases_list(b)),
        Some(c) => format!(
            ", CTAsPerCGA = {}, CTASplitNum = {}, CTAOrder = {}",
            list(&c.ctas_per_cga),
            list(&c.cta_split_num),
            list(&c.cta_order)
        ),
    }
}

/// An encoding as TTGIR prints it (`#ttg.blocked<{sizePerThread = [1, 4],
/// ...}>`); [`crate::parse::parse_attribute`] reads it back to the same
/// encoding.
pub fn ttgir_text(e: &Encoding) -> String {
    match e {
        // no TTGIR spelling: the CuTe text itself, for headers and reports
        Encoding::CuteTv { text, .. } => format!("CuTe TV layout {text}"),
        Encoding::PtxFragment { text, .. } => format!("PTX fragment {text}"),
        Encoding::Blocked {
            size_per_thread,
            threads_per_warp,
            warps_per_cta,
            order,
            cta,
        } => format!(
            "#ttg.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}{}}}>",
            list(size_per_thread),
            list(threads_per_warp),
            list(warps_per_cta),
            list(order),
            cta_fields(cta)
        ),
        Encoding::Linear {
            register,
            lane,
            warp,
            block,
        } => format!(
            "#ttg.linear<{{register = {}, lane = {}, warp = {}, block = {}}}>",
            bases_list(register),
            bases_list(lane),
            bases_list(warp),
            bases_list(block)
        ),
        Encoding::Slice { dim, parent } => {
            format!("#ttg.slice<{{dim = {dim}, parent = {}}}>", ttgir_text(parent))
        }
        Encoding::NvidiaMma {
            version_major,
            version_minor,
            warps_per_cta,
            instr_shape,
            cta,
        } => format!(
            "#ttg.nvidia_mma<{{versionMajor = {version_major}, versionMinor = {version_minor}, warpsPerCTA = {}{}, instrShape = {}}}>",
            list(warps_per_cta),
            cta_fields(cta),
            list(instr_shape)
        ),
        Encoding::DotOperand {
            op_idx,
            parent,
            k_width,
        } => format!(
            "#ttg.dot_op<{{opIdx = {op_idx}, parent = {}, kWidth = {k_width}}}>",
            ttgir_text(parent)
        ),
        // Triton 3.6's printer: defaults (unit tilesPerWarp, 32-bit
        // elements, WMMA's [16, 16, 16]) left out
        Encoding::AmdMfma {
            version,
            warps_per_cta,
            instr_shape,
            is_transposed,
            tiles_per_warp,
            element_bit_width,
            cta,
        } => format!(
            "#ttg.amd_mfma<{{version = {version}, warpsPerCTA = {}, instrShape = {}, isTransposed = {is_transposed}{}{}{}}}>",
            list(warps_per_cta),
            list(instr_shape),
            cta_fields(cta),
            if tiles_per_warp.iter().all(|&t| t == 1) {
                String::new()
            } else {
                format!(", tilesPerWarp = {}", list(tiles_per_warp))
            },
            if *element_bit_width == 32 {
                String::new()
            } else {
                format!(", elementBitWidth = {element_bit_width}")
            }
        ),
        Encoding::AmdWmma {
            version,
            is_transposed,
            warps_per_cta,
            tiles_per_warp,
            instr_shape,
            cta,
        } => format!(
            "#ttg.amd_wmma<{{version = {version}, isTranspose = {is_transposed}, warpsPerCTA = {}{}{}{}}}>",
            list(warps_per_cta),
            if tiles_per_warp.iter().all(|&t| t == 1) {
                String::new()
            } else {
                format!(", tilesPerWarp = {}", list(tiles_per_warp))
            },
            if instr_shape == &[16, 16, 16] {
                String::new()
            } else {
                format!(", instrShape = {}", list(instr_shape))
            },
            cta_fields(cta)
        ),
    }
}

#[cfg(test)]
mod tests;
