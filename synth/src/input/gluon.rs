//! Gluon constructor text, as in Python source: `ttgl.BlockedLayout(...)`,
//! `NVMMADistributedLayout`, `DotOperandLayout`, `SliceLayout`,
//! `DistributedLinearLayout`, with or without a module prefix (`ttgl.`,
//! `gl.`, ...), an optional `name = ` / `name: gl.constexpr = ` in front.
//!
//! Arguments bind as Python binds them to Gluon's dataclass fields
//! (Triton 3.5/3.6, `python/triton/experimental/gluon/language/_layouts.py`):
//!
//! - `BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order,
//!   ctas_per_cga=None, cta_split_num=None, cta_order=None)`
//! - `NVMMADistributedLayout(version, warps_per_cta, instr_shape,
//!   ctas_per_cga=None, cta_split_num=None, cta_order=None)`
//! - `DotOperandLayout(operand_index, parent, k_width)`
//! - `SliceLayout(dim, parent)`
//! - `DistributedLinearLayout(reg_bases, lane_bases, warp_bases, block_bases, shape)`
//!
//! Later Gluon versions replace the CTA fields by `cga_layout` (for each CTA
//! id bit, the offset in CTA tiles it adds per dim; `[[0, 1]]`: two CTAs
//! split dim 1), accepted as a keyword or as the fifth positional argument
//! when that is a list of lists (`[]` there is one CTA). Unset CTA fields
//! take Gluon's defaults (`[1] * rank`, `[1] * rank`, `reversed(range(rank))`).

use super::{linear_text, Format, LayoutText};
use crate::encoding::{CtaLayout, Encoding};

type Res<T> = Result<T, (usize, String)>;

/// A Python value with the byte offset where it starts.
#[derive(Clone, Debug)]
enum V {
    Int(i64, usize),
    List(Vec<V>, usize),
    Name(String, usize),
    Call(Call),
}

#[derive(Clone, Debug)]
struct Call {
    /// Full dotted name as written, and the class name (last segment).
    name: String,
    class: String,
    at: usize,
    /// Offset of the closing `)`.
    end: usize,
    args: Vec<(Option<(String, usize)>, V)>,
}

impl V {
    fn at(&self) -> usize {
        match self {
            V::Int(_, a) | V::List(_, a) | V::Name(_, a) => *a,
            V::Call(c) => c.at,
        }
    }
    fn describe(&self) -> String {
        match self {
            V::Int(i, _) => i.to_string(),
            V::List(..) => "a list".into(),
            V::Name(n, _) => format!("`{n}`"),
            V::Call(c) => format!("`{}(...)`", c.name),
        }
    }
}

struct P<'a> {
    s: &'a [u8],
    pos: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && (self.s[self.pos] as char).is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }
    fn found(&mut self) -> String {
        match self.peek() {
            None => "the end of the text".into(),
            Some(_) => {
                let rest = String::from_utf8_lossy(&self.s[self.pos..]);
                format!("`{}`", rest.chars().take(12).collect::<String>())
            }
        }
    }
    fn ident(&mut self) -> String {
        self.ws();
        let st = self.pos;
        while self.pos < self.s.len()
            && (self.s[self.pos].is_ascii_alphanumeric() || self.s[self.pos] == b'_')
        {
            self.pos += 1;
        }
        if st < self.pos && self.s[st].is_ascii_digit() {
            self.pos = st;
            return String::new();
        }
        String::from_utf8_lossy(&self.s[st..self.pos]).into_owned()
    }
    fn value(&mut self, depth: usize) -> Res<V> {
        if depth > 32 {
            return Err((self.pos, "expressions nest too deeply".into()));
        }
        let at = {
            self.ws();
            self.pos
        };
        match self.peek() {
            Some(open @ (b'[' | b'(')) => {
                let close = if open == b'[' { b']' } else { b')' };
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        return Ok(V::List(items, at));
                    }
                    items.push(self.value(depth + 1)?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(c) if c == close => {}
                        _ => {
                            return Err((
                                self.pos,
                                format!(
                                    "expected `,` or `{}` in a list, found {}",
                                    close as char,
                                    self.found()
                                ),
                            ))
                        }
                    }
                }
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                self.pos += 1;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                let t = String::from_utf8_lossy(&self.s[at..self.pos]).into_owned();
                t.parse::<i64>()
                    .map(|i| V::Int(i, at))
                    .map_err(|_| (at, crate::parse::not_an_integer(&t)))
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let mut name = self.ident();
                while self.peek() == Some(b'.') {
                    self.pos += 1;
                    let part = self.ident();
                    if part.is_empty() {
                        return Err((self.pos, format!("expected a name after `{name}.`")));
                    }
                    name = format!("{name}.{part}");
                }
                if self.peek() == Some(b'(') {
                    self.pos += 1;
                    let class = name.rsplit('.').next().unwrap_or(&name).to_string();
                    let mut args = Vec::new();
                    loop {
                        if self.peek() == Some(b')') {
                            let end = self.pos;
                            self.pos += 1;
                            return Ok(V::Call(Call {
                                name,
                                class,
                                at,
                                end,
                                args,
                            }));
                        }
                        // keyword argument?
                        let save = self.pos;
                        let kw_at = {
                            self.ws();
                            self.pos
                        };
                        let id = self.ident();
                        let is_kw = !id.is_empty()
                            && self.peek() == Some(b'=')
                            && self.s.get(self.pos + 1) != Some(&b'=');
                        let kw = if is_kw {
                            self.pos += 1;
                            Some((id, kw_at))
                        } else {
                            self.pos = save;
                            None
                        };
                        let v = self.value(depth + 1)?;
                        args.push((kw, v));
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b')') => {}
                            _ => {
                                return Err((
                                    self.pos,
                                    format!(
                                    "expected `,` or `)` in the arguments of `{name}`, found {}",
                                    self.found()
                                ),
                                ))
                            }
                        }
                    }
                }
                Ok(V::Name(name, at))
            }
            _ => Err((
                at,
                format!(
                    "expected a value (an integer, a list or a layout), found {}",
                    self.found()
                ),
            )),
        }
    }
}

/// Parse the text; errors are `(byte offset, message)`.
pub(super) fn parse(text: &str) -> Res<LayoutText> {
    // an assignment in front (`layout = ...`, `L: gl.constexpr = ...`)
    let first_paren = text.find('(').unwrap_or(text.len());
    let start = text[..first_paren].rfind('=').map_or(0, |i| i + 1);
    let mut p = P {
        s: text.as_bytes(),
        pos: start,
    };
    let v = p.value(0)?;
    let V::Call(call) = v else {
        return Err((
            v.at(),
            format!(
                "expected a Gluon layout constructor call (`ttgl.BlockedLayout(...)`, ...), found {}",
                v.describe()
            ),
        ));
    };
    if p.peek().is_some() {
        return Err((p.pos, format!("unexpected {} after the layout", p.found())));
    }
    let (encoding, shape) = layout(&call)?;
    Ok(match encoding {
        Encoding::Linear {
            register,
            lane,
            warp,
            block,
        } => linear_text(Format::Gluon, register, lane, warp, block, shape),
        e => super::encoded_text(Format::Gluon, e, shape),
    })
}

/// The parameters of a constructor: `(name, required)`, in order; names
/// after them that are accepted as keywords only.
fn signature(class: &str) -> Option<(&'static [(&'static str, bool)], &'static [&'static str])> {
    const CTA: [(&str, bool); 3] = [
        ("ctas_per_cga", false),
        ("cta_split_num", false),
        ("cta_order", false),
    ];
    Some(match class {
        "BlockedLayout" => (
            &[
                ("size_per_thread", true),
                ("threads_per_warp", true),
                ("warps_per_cta", true),
                ("order", true),
                CTA[0],
                CTA[1],
                CTA[2],
            ],
            &["cga_layout"],
        ),
        "NVMMADistributedLayout" => (
            &[
                ("version", true),
                ("warps_per_cta", true),
                ("instr_shape", true),
                CTA[0],
                CTA[1],
                CTA[2],
            ],
            &["cga_layout"],
        ),
        "DotOperandLayout" => (
            &[("operand_index", true), ("parent", true), ("k_width", true)],
            &[],
        ),
        "SliceLayout" => (&[("dim", true), ("parent", true)], &[]),
        "DistributedLinearLayout" => (
            &[
                ("reg_bases", true),
                ("lane_bases", true),
                ("warp_bases", true),
                ("block_bases", true),
                ("shape", true),
            ],
            &[],
        ),
        _ => return None,
    })
}

/// Bind a call's arguments to its parameters as Python does.
fn bind<'c>(c: &'c Call) -> Res<Vec<(&'static str, Option<&'c V>)>> {
    let Some((params, kw_only)) = signature(&c.class) else {
        return Err((
            c.at,
            format!(
                "`{}` is not a distributed layout warpforge reads (BlockedLayout, NVMMADistributedLayout, DotOperandLayout, SliceLayout, DistributedLinearLayout)",
                c.name
            ),
        ));
    };
    let mut bound: Vec<(&'static str, Option<&V>)> = params
        .iter()
        .map(|p| (p.0, None))
        .chain(kw_only.iter().map(|k| (*k, None)))
        .collect();
    let mut seen_kw = false;
    let mut npos = 0;
    for (kw, v) in &c.args {
        match kw {
            None => {
                if seen_kw {
                    return Err((
                        v.at(),
                        "positional argument follows keyword argument".into(),
                    ));
                }
                if npos >= params.len() {
                    return Err((
                        v.at(),
                        format!(
                            "{}() takes {} positional arguments but {} were given",
                            c.class,
                            params.len(),
                            c.args.iter().filter(|a| a.0.is_none()).count()
                        ),
                    ));
                }
                bound[npos].1 = Some(v);
                npos += 1;
            }
            Some((k, at)) => {
                seen_kw = true;
                let Some(slot) = bound.iter_mut().find(|b| b.0 == k) else {
                    return Err((
                        *at,
                        format!(
                            "{}() got an unexpected keyword argument `{k}` (it takes {})",
                            c.class,
                            params
                                .iter()
                                .map(|p| p.0)
                                .chain(kw_only.iter().copied())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                };
                if slot.1.is_some() {
                    return Err((
                        *at,
                        format!("{}() got multiple values for argument `{k}`", c.class),
                    ));
                }
                slot.1 = Some(v);
            }
        }
    }
    for (p, req) in params.iter() {
        if !*req {
            continue;
        }
        match bound.iter().find(|b| b.0 == *p).and_then(|b| b.1) {
            None => {
                return Err((
                    c.end,
                    format!("{}() missing required argument `{p}`", c.class),
                ))
            }
            // `None` unsets the optional fields only
            Some(v @ V::Name(n, _)) if n == "None" => {
                return Err((
                    v.at(),
                    format!(
                        "{}() argument `{p}` is required: it cannot be None",
                        c.class
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    // `None` means "unset" for the optional fields
    Ok(bound
        .into_iter()
        .map(|(k, v)| (k, v.filter(|v| !matches!(v, V::Name(n, _) if n == "None"))))
        .collect())
}

fn int(name: &str, v: &V) -> Res<i64> {
    match v {
        V::Int(i, _) => Ok(*i),
        _ => Err((
            v.at(),
            format!("`{name}` must be an integer, got {}", v.describe()),
        )),
    }
}

fn uint(name: &str, v: &V) -> Res<u32> {
    let i = int(name, v)?;
    u32::try_from(i).map_err(|_| {
        (
            v.at(),
            format!("`{name}` = {i} is not a non-negative 32-bit integer"),
        )
    })
}

fn uints(name: &str, v: &V) -> Res<Vec<u32>> {
    match v {
        V::List(items, _) => items
            .iter()
            .enumerate()
            .map(|(i, x)| uint(&format!("{name}[{i}]"), x))
            .collect(),
        _ => Err((
            v.at(),
            format!("`{name}` must be a list of integers, got {}", v.describe()),
        )),
    }
}

fn bases(name: &str, v: &V) -> Res<Vec<Vec<i32>>> {
    match v {
        V::List(items, _) => items
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let xs = uints(&format!("{name}[{i}]"), b)?;
                xs.iter()
                    .map(|&x| {
                        i32::try_from(x)
                            .map_err(|_| (b.at(), format!("`{name}[{i}]`: {x} is too large")))
                    })
                    .collect()
            })
            .collect(),
        _ => Err((
            v.at(),
            format!(
                "`{name}` must be a list of bases (lists of integers), got {}",
                v.describe()
            ),
        )),
    }
}

fn get<'a>(b: &[(&str, Option<&'a V>)], k: &str) -> Option<&'a V> {
    b.iter().find(|x| x.0 == k).and_then(|x| x.1)
}

fn need<'a>(b: &[(&str, Option<&'a V>)], k: &str) -> &'a V {
    get(b, k).expect("bind checked required arguments")
}

/// The CTA fields of a call: `cga_layout` (bases over CTA tiles, newer
/// Gluon; also a list of lists given as the fifth positional argument,
/// where newer Gluon has `cga_layout`), or `ctas_per_cga`/`cta_split_num`/
/// `cta_order` (Triton 3.5/3.6). An empty `cga_layout` is one CTA.
fn cta(b: &[(&str, Option<&V>)], rank: usize, call: &Call) -> Res<Option<CtaLayout>> {
    let positional_cga = get(b, "ctas_per_cga").filter(|v| match v {
        V::List(xs, _) => xs.is_empty() || xs.iter().any(|x| matches!(x, V::List(..))),
        _ => false,
    });
    let kw_cga = get(b, "cga_layout");
    if let Some(v) = kw_cga.or(positional_cga) {
        let others = ["ctas_per_cga", "cta_split_num", "cta_order"]
            .iter()
            .filter(|k| get(b, k).is_some())
            .count();
        if others > usize::from(kw_cga.is_none()) {
            return Err((
                call.at,
                "give `cga_layout` or the ctas_per_cga/cta_split_num/cta_order fields, not both"
                    .into(),
            ));
        }
        let bs = bases("cga_layout", v)?;
        if bs.is_empty() {
            return Ok(None);
        }
        return Ok(Some(CtaLayout {
            ctas_per_cga: vec![],
            cta_split_num: vec![],
            cta_order: vec![],
            cga_bases: Some(bs),
        }));
    }
    let f = |k: &str| get(b, k).map(|v| uints(k, v)).transpose();
    let (a, s, o) = (f("ctas_per_cga")?, f("cta_split_num")?, f("cta_order")?);
    if a.is_none() && s.is_none() && o.is_none() {
        return Ok(None);
    }
    Ok(Some(CtaLayout {
        ctas_per_cga: a.unwrap_or_else(|| vec![1; rank]),
        cta_split_num: s.unwrap_or_else(|| vec![1; rank]),
        cta_order: o.unwrap_or_else(|| (0..rank as u32).rev().collect()),
        cga_bases: None,
    }))
}

fn parent(v: &V) -> Res<&Call> {
    match v {
        V::Call(c) => Ok(c),
        _ => Err((
            v.at(),
            format!(
                "`parent` must be a layout constructor, got {}",
                v.describe()
            ),
        )),
    }
}

/// The encoding of one constructor call, and the shape it carries.
fn layout(c: &Call) -> Res<(Encoding, Option<Vec<i64>>)> {
    let b = bind(c)?;
    Ok(match &c.class[..] {
        "BlockedLayout" => {
            let size_per_thread = uints("size_per_thread", need(&b, "size_per_thread"))?;
            let rank = size_per_thread.len();
            (
                Encoding::Blocked {
                    threads_per_warp: uints("threads_per_warp", need(&b, "threads_per_warp"))?,
                    warps_per_cta: uints("warps_per_cta", need(&b, "warps_per_cta"))?,
                    order: uints("order", need(&b, "order"))?,
                    cta: cta(&b, rank, c)?,
                    size_per_thread,
                },
                None,
            )
        }
        "NVMMADistributedLayout" => {
            let vv = need(&b, "version");
            let version = uints("version", vv)?;
            if version.is_empty() || version.len() > 2 {
                return Err((
                    vv.at(),
                    format!("`version` must be [major, minor], got {version:?}"),
                ));
            }
            let warps_per_cta = uints("warps_per_cta", need(&b, "warps_per_cta"))?;
            let rank = warps_per_cta.len();
            (
                Encoding::NvidiaMma {
                    version_major: version[0],
                    version_minor: version.get(1).copied().unwrap_or(0),
                    instr_shape: uints("instr_shape", need(&b, "instr_shape"))?,
                    cta: cta(&b, rank, c)?,
                    warps_per_cta,
                },
                None,
            )
        }
        "DotOperandLayout" => {
            let p = parent(need(&b, "parent"))?;
            (
                Encoding::DotOperand {
                    op_idx: uint("operand_index", need(&b, "operand_index"))?,
                    parent: Box::new(layout(p)?.0),
                    k_width: uint("k_width", need(&b, "k_width"))?,
                },
                None,
            )
        }
        "SliceLayout" => {
            let p = parent(need(&b, "parent"))?;
            (
                Encoding::Slice {
                    dim: uint("dim", need(&b, "dim"))?,
                    parent: Box::new(layout(p)?.0),
                },
                None,
            )
        }
        "DistributedLinearLayout" => {
            let sv = need(&b, "shape");
            let shape: Vec<i64> = uints("shape", sv)?.into_iter().map(i64::from).collect();
            if shape.is_empty() {
                return Err((sv.at(), "`shape` is empty".into()));
            }
            let mut all = Vec::new();
            for k in ["reg_bases", "lane_bases", "warp_bases", "block_bases"] {
                let v = need(&b, k);
                let bs = bases(k, v)?;
                for (i, x) in bs.iter().enumerate() {
                    // DistributedLinearLayout.__post_init__: len(basis) == rank
                    if x.len() != shape.len() {
                        return Err((
                            v.at(),
                            format!(
                                "`{k}[{i}]` has {} values, `shape` has rank {}",
                                x.len(),
                                shape.len()
                            ),
                        ));
                    }
                }
                all.push(bs);
            }
            let mut it = all.into_iter();
            (
                Encoding::Linear {
                    register: it.next().unwrap_or_default(),
                    lane: it.next().unwrap_or_default(),
                    warp: it.next().unwrap_or_default(),
                    block: it.next().unwrap_or_default(),
                },
                Some(shape),
            )
        }
        _ => unreachable!("bind rejects other classes"),
    })
}
