//! Reading inputs: every `ttg.convert_layout` of TTGIR files, or one
//! source/destination layout pair, each side checked once so that an error
//! points at the attribute (and the field at fault) in its text.

use crate::diag::SourceError;
use crate::layout_args;
use anyhow::{anyhow, bail, Result};
use std::path::{Path, PathBuf};
use synth::encoding::{Encoding, EncodingError};
use synth::input::LayoutText;
use synth::parse::{locate_field, parse_ttgir, ConvertOp, ElemType, Span};

/// The conversions of an input and the texts they came from.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// A description of the origin, for headers: the files, or `command line`.
    pub origin: String,
    /// `(file, op)` for every conversion, in input order (`file` is
    /// `command line` for a pair).
    pub ops: Vec<(String, ConvertOp)>,
    /// The text of each input by the name errors use (a path, `--src`, `--dst`).
    pub texts: Vec<(String, String)>,
    /// Where the warp count of a pair came from ([`WarpsFrom::Flag`] for files).
    pub warps_default: WarpsFrom,
    /// Where the CTA count of a pair came from (`--ctas`, a layout, or the
    /// default 1; [`WarpsFrom::Flag`] for files).
    pub ctas_default: WarpsFrom,
    /// The input paths (empty for a pair), for refusing them as outputs.
    pub paths: Vec<PathBuf>,
    /// Every conversion (or file) that could not be read, in input order:
    /// the others in `ops` are still served.
    pub refused: Vec<Refused>,
    /// Inputs that hold no `ttg.convert_layout` at all (only with other
    /// inputs that do: alone, such a file is an error).
    pub empty: Vec<String>,
}

/// A conversion that is not served (or a file that could not be read),
/// with where it is and why; every other conversion of the run is served.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Refused {
    /// The file it is in (`command line` for a pair).
    pub file: String,
    /// `func:line` of the conversion; empty for a whole file that could
    /// not be read.
    pub name: String,
    /// The enclosing function (empty for a whole file).
    pub func: String,
    /// The op's line (the error's for a whole file; 0 for a pair).
    pub line: usize,
    /// Why, in one line, in the user's terms.
    pub reason: String,
    /// `file:line:column` of what is at fault.
    pub place: String,
    /// The offending source lines, underlined (may be empty).
    #[serde(skip)]
    pub snippet: String,
    /// The module's `ttg.target`, where it names one.
    pub target: Option<String>,
}

impl Refused {
    /// A refusal pointing at `span` of `text` (the contents of `file`).
    pub fn at(
        file: &str,
        text: &str,
        span: Span,
        op: Option<&ConvertOp>,
        msg: &str,
        label: &str,
    ) -> Refused {
        let se = SourceError::new(file, text, span, msg, label);
        Refused {
            file: file.to_string(),
            name: op.map(|o| o.name.clone()).unwrap_or_default(),
            func: op.map(|o| o.func.clone()).unwrap_or_default(),
            line: op.map_or(span.line, |o| o.line),
            reason: msg.to_string(),
            place: se.place.clone(),
            snippet: se.snippet(),
            target: op.and_then(|o| o.target.clone()),
        }
    }

    /// Whether this is a whole file rather than one conversion.
    pub fn is_file(&self) -> bool {
        self.name.is_empty()
    }
}

impl Loaded {
    /// The text of input `name` (a path, `--src`, `--dst`).
    pub fn text(&self, name: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// A planning error message in the user's terms: for a pair, "the
    /// module has N warps" is the `--warps` flag, saying when the default
    /// applied.
    pub fn in_user_terms(&self, msg: &str) -> String {
        if self.paths.is_empty() {
            cli_ctas_terms(&cli_warps_terms(msg, self.warps_default), self.ctas_default)
        } else {
            msg.to_string()
        }
    }
}

/// Where the warp count of a pair (or of `layout --attr`) came from, for
/// errors in the user's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpsFrom {
    /// `--warps` (or a TTGIR module's `ttg.num-warps`).
    Flag,
    /// Not given: the warps the layout of this flag fixes.
    Layout(&'static str),
    /// Not given and no layout fixes it: [`crate::DEFAULT_WARPS`].
    Default,
}

impl WarpsFrom {
    /// The flag, the first layout that fixes the warps, or the default.
    pub fn of(flag: Option<u32>, layouts: &[(&'static str, &LayoutText)]) -> WarpsFrom {
        if flag.is_some() {
            return WarpsFrom::Flag;
        }
        layouts
            .iter()
            .find(|(_, l)| l.num_warps.is_some())
            .map_or(WarpsFrom::Default, |(f, _)| WarpsFrom::Layout(f))
    }
}

/// `msg` with "the module has N warps" said as the `--warps` flag, and
/// where its value came from.
pub fn cli_warps_terms(msg: &str, warps_default: WarpsFrom) -> String {
    let Some(i) = msg.find("the module has ") else {
        return msg.to_string();
    };
    let rest = &msg[i + "the module has ".len()..];
    let Some(j) = rest.find(" warps") else {
        return msg.to_string();
    };
    let n = &rest[..j];
    let flag = match warps_default {
        WarpsFrom::Default => format!(
            "--warps is {n} (the default {} applied: --warps was not given)",
            crate::DEFAULT_WARPS
        ),
        WarpsFrom::Layout(f) => {
            format!("--warps is {n} (--warps was not given: {n} is what {f} fixes)")
        }
        WarpsFrom::Flag => format!("--warps is {n}"),
    };
    format!("{}{flag}{}", &msg[..i], &rest[j + " warps".len()..])
}

/// `msg` with "the module has N CTAs" said as the `--ctas` flag, and where
/// its value came from (`Layout(f)`: the CTAs layout `f` spans; `Default`:
/// 1, one CTA).
pub fn cli_ctas_terms(msg: &str, ctas_default: WarpsFrom) -> String {
    let Some(i) = msg.find("the module has ") else {
        return msg.to_string();
    };
    let rest = &msg[i + "the module has ".len()..];
    let Some(j) = rest.find(" CTAs") else {
        return msg.to_string();
    };
    let n = &rest[..j];
    let flag = match ctas_default {
        WarpsFrom::Default => {
            format!("--ctas is {n} (the default 1 applied: --ctas was not given)")
        }
        WarpsFrom::Layout(f) => {
            format!("--ctas is {n} (--ctas was not given: {n} is what {f} spans)")
        }
        WarpsFrom::Flag => format!("--ctas is {n}"),
    };
    format!("{}{flag}{}", &msg[..i], &rest[j + " CTAs".len()..])
}

/// Read a file as UTF-8 text without a leading byte-order mark, bounded
/// ([`synth::input::read_input_file`]: at most 64 MiB, stopping at the
/// first NUL byte).
///
/// Errors: the file cannot be read, is not text, is over the limit, or is
/// not UTF-8 (naming the offset of the first invalid byte).
pub fn read_text(path: &Path) -> Result<String> {
    synth::input::read_input_file(path).map_err(anyhow::Error::msg)
}

/// Turn one side's encoding into a layout once, so that an error points at
/// the attribute (the field at fault where there is one) in `text`, the
/// contents of `name`. `side` is `source`, `destination`, or `the` (one
/// layout alone). `from`: `Some((warps, ctas))` for a pair, where the warp
/// and CTA counts come from `--warps`/`--ctas`, a layout, or the defaults.
///
/// Errors: a [`SourceError`] when the encoding has no layout for the op's
/// shape and warps.
pub fn check_side(
    name: &str,
    text: &str,
    (side, enc, at): (&str, &Encoding, Span),
    op: &ConvertOp,
    from: Option<(WarpsFrom, WarpsFrom)>,
) -> Result<()> {
    // an AMD layout alone (`warpforge layout`) is read on its own lanes;
    // a conversion's sides on its module's wave (32 lanes on NVIDIA, where
    // AMD encodings are refused)
    let got = if side == "the" && enc.is_amd() {
        enc.to_cluster_layout_lanes(&op.shape, op.num_warps, op.num_ctas, enc.lanes())
    } else {
        op.layout_of(enc)
    };
    let Err(e) = got else {
        return Ok(());
    };
    let mut msg = if side == "the" {
        e.to_string()
    } else if op.line > 0 {
        format!("{side} layout of `{}` (line {}): {e}", op.name, op.line)
    } else {
        format!("{side} layout: {e}")
    };
    if let Some((w, c)) = from {
        msg = cli_ctas_terms(&cli_warps_terms(&msg, w), c);
    }
    let (span, label) = match &e {
        EncodingError::Field { field, .. } => {
            let f = field.strip_prefix("parent ").unwrap_or(field);
            match locate_field(text, at, f) {
                Some(sp) => (sp, format!("this `{f}`")),
                None => (at, format!("`{f}` of this layout")),
            }
        }
        _ if side == "the" => (at, "the layout".to_string()),
        _ => (at, format!("the {side} layout")),
    };
    Err(SourceError::new(name, text, span, msg, &label).into())
}

/// Every `ttg.convert_layout` of each TTGIR file in `paths`, in order; with
/// `pick`, only the conversions it names (`func:line`, or a function name).
/// A conversion that cannot be read (its layouts, its module's target) and
/// a file whose text cannot be parsed are [`Loaded::refused`] records; the
/// rest are still read.
///
/// Errors: a file that cannot be read, no conversion in any file (one file
/// alone with none), a `pick` that names nothing.
pub fn load_files(paths: &[PathBuf], pick: Option<&str>) -> Result<Loaded> {
    let mut all = Vec::new();
    let mut texts = Vec::new();
    let mut refused = Vec::new();
    let mut empty = Vec::new();
    for path in paths {
        let file = path.display().to_string();
        let text = read_text(path)?;
        let f = match parse_ttgir(&text) {
            Ok(f) => f,
            Err(e) => {
                if paths.len() == 1 {
                    return Err(
                        SourceError::new(&file, &text, e.span(), e.msg.clone(), "here").into(),
                    );
                }
                refused.push(Refused::at(&file, &text, e.span(), None, &e.msg, "here"));
                continue;
            }
        };
        if f.converts.is_empty() && f.failed.is_empty() {
            empty.push(file);
            continue;
        }
        for op in &f.failed {
            let r = Refused::at(&file, &text, op.error.span(), None, &op.error.msg, "here");
            refused.push(Refused {
                name: op.name.clone(),
                func: op.func.clone(),
                line: op.line,
                ..r
            });
        }
        for op in f.converts {
            let bad = check_side(&file, &text, ("source", &op.src, op.src_at), &op, None).and_then(
                |_| check_side(&file, &text, ("destination", &op.dst, op.dst_at), &op, None),
            );
            match bad {
                Ok(()) => all.push((file.clone(), op)),
                Err(e) => refused.push(refused_of(&file, &op, e)),
            }
        }
        texts.push((file, text));
    }
    if all.is_empty() && refused.is_empty() {
        let list = empty.join(", ");
        bail!(
            "{list}: no ttg.convert_layout found: nothing to do (is this a TTGIR dump? `triton` writes them with MLIR_ENABLE_DUMP=1 or in its cache as *.ttgir)"
        );
    }
    if let Some(pick) = pick {
        let mut there: Vec<String> = all.iter().map(|(_, op)| op.name.clone()).collect();
        there.extend(
            refused
                .iter()
                .filter(|r| !r.is_file())
                .map(|r| r.name.clone()),
        );
        all.retain(|(_, op)| op.name == *pick || op.func == *pick);
        refused.retain(|r| !r.is_file() && (r.name == *pick || r.func == *pick));
        if all.is_empty() && refused.is_empty() {
            bail!(
                "--name {pick}: no such conversion in the --ttgir input (there: {})",
                there.join(", ")
            );
        }
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Ok(Loaded {
        origin: names.join(", "),
        ops: all,
        texts,
        warps_default: WarpsFrom::Flag,
        ctas_default: WarpsFrom::Flag,
        paths: paths.to_vec(),
        refused,
        empty,
    })
}

/// The refusal record of `op` in `file` for error `e` (a [`SourceError`]
/// keeps its place and snippet).
pub(crate) fn refused_of(file: &str, op: &ConvertOp, e: anyhow::Error) -> Refused {
    let (reason, place, snippet) = match e.downcast_ref::<SourceError>() {
        Some(se) => (se.msg.clone(), se.place.clone(), se.snippet()),
        None => (e.to_string(), format!("{file}:{}", op.line), String::new()),
    };
    Refused {
        file: file.to_string(),
        name: op.name.clone(),
        func: op.func.clone(),
        line: op.line,
        reason,
        place,
        snippet,
        target: op.target.clone(),
    }
}

/// One conversion given as two layouts, as `--src`/`--dst` take them.
#[derive(Clone, Debug, Default)]
pub struct Pair {
    /// Source layout: a TTGIR attribute, `LinearLayout::toString` text,
    /// JSON bases, a Gluon constructor, or `@FILE` holding any of these.
    pub src: String,
    /// Destination layout (the same formats).
    pub dst: String,
    /// Tensor shape such as `64x32`; `None`: the shape the layouts carry.
    pub shape: Option<String>,
    /// Element type (`f32`, `f16`, `i8`, ...); `None`: `f32`.
    pub dtype: Option<String>,
    /// Warps per CTA; `None`: what the layouts fix, else [`crate::DEFAULT_WARPS`].
    pub warps: Option<u32>,
    /// CTAs of the cluster the tensor is spread over (1 to 16, a power of
    /// two); `None`: what the source layout spans (its `block` bases,
    /// `CTAsPerCGA` or `CGALayout`), 1 for layouts that say nothing.
    pub ctas: Option<u32>,
    /// The conversion's name; `None`: `convert_` and a hash of the layouts,
    /// shape, type and warps, so two different conversions never share one.
    pub name: Option<String>,
    /// The AMD architecture the pair is for (its layouts on that wave's
    /// lanes, planned and emitted as a TTGIR module with `ttg.target =
    /// "hip:<arch>"` would be); `None`: NVIDIA, 32-lane warps.
    pub target: Option<synth::target::AmdArch>,
}

/// The conversion of a [`Pair`]. Errors name the flag whose text is at
/// fault (`--src`, `--dst`, `--shape`, `--dtype`).
pub fn load_pair(pair: &Pair) -> Result<Loaded> {
    let (src, dst) = (&pair.src, &pair.dst);
    let s = layout_args::read("--src", src)?;
    let d = layout_args::read("--dst", dst)?;
    let shape = layout_args::shape(pair.shape.as_deref(), &[("--src", &s), ("--dst", &d)])?;
    let shape_text: Vec<String> = shape.iter().map(|x| x.to_string()).collect();
    let dtype = pair.dtype.as_deref().unwrap_or("f32");
    let elem =
        ElemType::parse(dtype).ok_or_else(|| anyhow!("--dtype: unknown element type `{dtype}`"))?;
    // the default applied only when neither --warps nor a layout fixes the warps
    let warps_default = WarpsFrom::of(pair.warps, &[("--src", &s), ("--dst", &d)]);
    let warps = layout_args::warps(pair.warps, &[&s, &d]);
    let ctas = pair
        .ctas
        .unwrap_or_else(|| u32::try_from(s.encoding.num_ctas()).unwrap_or(u32::MAX));
    let ctas_default = match pair.ctas {
        Some(_) => WarpsFrom::Flag,
        None if s.encoding.num_ctas() > 1 => WarpsFrom::Layout("--src"),
        None => WarpsFrom::Default,
    };
    let name = match &pair.name {
        Some(n) => n.clone(),
        None => {
            let warps_text = warps.to_string();
            // the CTA count joins the hash only past one CTA, so the names of
            // one-CTA pairs are those they always had
            let ctas_text = format!("ctas{ctas}");
            let shape_joined = shape_text.join("x");
            let mut parts = vec![src.trim(), dst.trim(), &shape_joined, dtype, &warps_text];
            if ctas != 1 {
                parts.push(&ctas_text);
            }
            // likewise the AMD target, only where there is one
            let target_text = pair.target.map(|a| format!("hip:{a}")).unwrap_or_default();
            if pair.target.is_some() {
                parts.push(&target_text);
            }
            format!("convert_{:08x}", kernels::stable_hash(&parts) >> 32)
        }
    };
    let op = ConvertOp {
        name: name.clone(),
        line: 0,
        func: name,
        shape,
        elem,
        src: s.encoding,
        dst: d.encoding,
        src_text: s.ttgir,
        dst_text: d.ttgir,
        src_at: whole_text(src),
        dst_at: whole_text(dst),
        num_warps: warps,
        num_ctas: ctas,
        lanes: pair
            .target
            .map_or(synth::encoding::NVIDIA_LANES, |a| a.lanes()),
        doc: String::new(),
        target: pair.target.map(|a| format!("hip:{a}")),
        warp_specialize: None,
    };
    // an error in one side points into that flag's text
    let wd = Some((warps_default, ctas_default));
    check_side("--src", src, ("source", &op.src, op.src_at), &op, wd)?;
    check_side("--dst", dst, ("destination", &op.dst, op.dst_at), &op, wd)?;
    Ok(Loaded {
        origin: "command line".into(),
        ops: vec![("command line".into(), op)],
        texts: vec![("--src".into(), src.clone()), ("--dst".into(), dst.clone())],
        warps_default,
        ctas_default,
        paths: vec![],
        refused: vec![],
        empty: vec![],
    })
}

/// The span of a flag's whole text (past a byte-order mark and leading
/// blanks), for errors about the layout as a whole.
fn whole_text(t: &str) -> Span {
    let body = t.trim_start_matches('\u{feff}');
    let lead = t.len() - body.trim_start().len();
    Span {
        line: 1,
        col: lead + 1,
        len: body.trim().len(),
    }
}
