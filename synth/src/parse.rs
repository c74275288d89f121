//! Parsing what users paste: TTGIR dumps and attribute text as Triton prints
//! them (`#ttg.blocked<{...}>`, aliases `#mma = #ttg.nvidia_mma<{...}>`,
//! `module attributes {"ttg.num-warps" = 4 : i32, ...}`, and every
//! `ttg.convert_layout %x : tensor<AxBxT, #src> -> tensor<AxBxT, #dst>`).
//!
//! The whole file is read; ops and attributes warpforge does not convert
//! (shared encodings, `loc(...)`, `ttg.local_*`) are skipped. Every error
//! carries the 1-based line it refers to.

use crate::encoding::{CtaLayout, Encoding};
use std::collections::HashMap;

/// A parse error at a line of the input (1-based; 0 for text with no lines).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {msg}")]
pub struct ParseError {
    pub line: usize,
    pub msg: String,
}

fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        msg: msg.into(),
    })
}

/// Element type of a tensor, as TTGIR spells it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ElemType {
    /// The spelling, e.g. `f16`, `f8E4M3FN`, `i32`.
    pub name: String,
    /// Bits per element (1, 8, 16, 32 or 64).
    pub bits: u32,
}

impl ElemType {
    /// Parse an MLIR element type name (`i1/i8/i16/i32/i64`, `f16`, `bf16`,
    /// `f32`, `f64`, `tf32`, `f8E4M3FN`, `f8E5M2`, ...).
    pub fn parse(s: &str) -> Option<ElemType> {
        let bits = match s {
            "i1" => 1,
            "i8" | "ui8" => 8,
            "i16" | "f16" | "bf16" => 16,
            "i32" | "f32" | "tf32" => 32,
            "i64" | "f64" => 64,
            _ if s.starts_with("f8") => 8,
            _ if s.starts_with("!tt.ptr") => 64,
            _ => return None,
        };
        Some(ElemType {
            name: s.to_string(),
            bits,
        })
    }
}

/// One `ttg.convert_layout` found in a file, or a pair given on the command line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ConvertOp {
    /// `func:line`: the enclosing `tt.func` and the op's line (or a CLI name).
    pub name: String,
    pub line: usize,
    pub func: String,
    pub shape: Vec<i64>,
    pub elem: ElemType,
    pub src: Encoding,
    pub dst: Encoding,
    /// The attribute text of each side, aliases resolved, for headers.
    pub src_text: String,
    pub dst_text: String,
    pub num_warps: u32,
    pub num_ctas: u32,
    /// The `//` comment block right above the enclosing `tt.func` (empty if none).
    pub doc: String,
}

/// What a TTGIR file holds that warpforge uses.
#[derive(Clone, Debug, Default)]
pub struct TtgirFile {
    pub converts: Vec<ConvertOp>,
    /// Aliases seen (`name` without `#` -> attribute text), for diagnostics.
    pub aliases: HashMap<String, String>,
}

/// A generic MLIR attribute value, enough for TTGIR layout dictionaries.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64),
    Bool(bool),
    Array(Vec<Value>),
    /// `#dialect.name<{dict}>` or a bare `#dialect.name`.
    Attr(String, Vec<(String, Value)>),
    /// An alias reference `#name`.
    Alias(String),
    Str(String),
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Lexer<'a> {
    fn new(s: &'a str, line: usize) -> Self {
        Lexer {
            s: s.as_bytes(),
            pos: 0,
            line,
        }
    }
    fn ws(&mut self) {
        while self.pos < self.s.len() && (self.s[self.pos] as char).is_whitespace() {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }
    fn eat(&mut self, c: u8) -> Result<(), ParseError> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            err(
                self.line,
                format!(
                    "expected `{}` at `{}`",
                    c as char,
                    String::from_utf8_lossy(&self.s[self.pos.min(self.s.len())..])
                        .chars()
                        .take(30)
                        .collect::<String>()
                ),
            )
        }
    }
    fn ident(&mut self) -> String {
        self.ws();
        let st = self.pos;
        while self.pos < self.s.len() {
            let c = self.s[self.pos] as char;
            if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' || c == '$' {
                self.pos += 1;
            } else {
                break;
            }
        }
        String::from_utf8_lossy(&self.s[st..self.pos]).into_owned()
    }
    fn value(&mut self) -> Result<Value, ParseError> {
        match self.peek() {
            Some(b'[') => {
                self.pos += 1;
                let mut v = Vec::new();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Value::Array(v));
                }
                loop {
                    v.push(self.value()?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Value::Array(v));
                        }
                        _ => return err(self.line, "expected `,` or `]` in an array"),
                    }
                }
            }
            Some(b'#') => {
                self.pos += 1;
                let name = self.ident();
                if name.is_empty() {
                    return err(self.line, "expected an attribute name after `#`");
                }
                if name.contains('.') {
                    let mut dict = Vec::new();
                    if self.peek() == Some(b'<') {
                        self.pos += 1;
                        if self.peek() == Some(b'{') {
                            dict = self.dict()?;
                        } else {
                            return err(
                                self.line,
                                format!("#{name}: expected `<{{` (a dictionary)"),
                            );
                        }
                        self.eat(b'>')?;
                    }
                    Ok(Value::Attr(name, dict))
                } else {
                    Ok(Value::Alias(name))
                }
            }
            Some(b'"') => {
                self.pos += 1;
                let st = self.pos;
                while self.pos < self.s.len() && self.s[self.pos] != b'"' {
                    self.pos += 1;
                }
                let s = String::from_utf8_lossy(&self.s[st..self.pos]).into_owned();
                self.eat(b'"')?;
                Ok(Value::Str(s))
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                let st = self.pos;
                self.pos += 1;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                let t = String::from_utf8_lossy(&self.s[st..self.pos]).into_owned();
                let v = t.parse::<i64>().map_err(|_| ParseError {
                    line: self.line,
                    msg: format!("bad integer `{t}`"),
                })?;
                // optional type suffix `: i32`
                let save = self.pos;
                if self.peek() == Some(b':') {
                    self.pos += 1;
                    let ty = self.ident();
                    if !ty.starts_with('i') {
                        self.pos = save;
                    }
                }
                Ok(Value::Int(v))
            }
            Some(_) => {
                let id = self.ident();
                match id.as_str() {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    "" => err(self.line, "expected a value"),
                    _ => Ok(Value::Str(id)),
                }
            }
            None => err(self.line, "unexpected end of attribute"),
        }
    }
    fn dict(&mut self) -> Result<Vec<(String, Value)>, ParseError> {
        self.eat(b'{')?;
        let mut out = Vec::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            let key = if self.peek() == Some(b'"') {
                match self.value()? {
                    Value::Str(s) => s,
                    _ => unreachable!("a quoted value is a string"),
                }
            } else {
                self.ident()
            };
            if key.is_empty() {
                return err(self.line, "expected a key in an attribute dictionary");
            }
            let v = if self.peek() == Some(b'=') {
                self.pos += 1;
                self.value()?
            } else {
                Value::Bool(true)
            };
            out.push((key, v));
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => return err(self.line, "expected `,` or `}` in an attribute dictionary"),
            }
        }
    }
}

/// Resolves aliases and builds encodings.
struct Ctx<'a> {
    aliases: &'a HashMap<String, (String, usize)>,
}

fn ints(line: usize, key: &str, v: &Value) -> Result<Vec<u32>, ParseError> {
    match v {
        Value::Array(a) => a
            .iter()
            .map(|x| match x {
                Value::Int(i) if *i >= 0 => Ok(*i as u32),
                _ => err(
                    line,
                    format!("`{key}` must be an array of non-negative integers"),
                ),
            })
            .collect(),
        _ => err(line, format!("`{key}` must be an array")),
    }
}

fn bases(line: usize, key: &str, v: &Value) -> Result<Vec<Vec<i32>>, ParseError> {
    match v {
        Value::Array(a) => a
            .iter()
            .map(|b| match b {
                Value::Array(x) => x
                    .iter()
                    .map(|e| match e {
                        Value::Int(i) => Ok(*i as i32),
                        _ => err(line, format!("`{key}` bases must hold integers")),
                    })
                    .collect(),
                _ => err(line, format!("`{key}` must be an array of arrays")),
            })
            .collect(),
        _ => err(line, format!("`{key}` must be an array of bases")),
    }
}

fn int(line: usize, key: &str, v: &Value) -> Result<u32, ParseError> {
    match v {
        Value::Int(i) if *i >= 0 => Ok(*i as u32),
        _ => err(line, format!("`{key}` must be a non-negative integer")),
    }
}

impl Ctx<'_> {
    fn resolve(
        &self,
        v: &Value,
        line: usize,
        depth: usize,
    ) -> Result<(String, Vec<(String, Value)>, usize), ParseError> {
        if depth > 16 {
            return err(line, "attribute aliases nest too deeply (a cycle?)");
        }
        match v {
            Value::Attr(n, d) => Ok((n.clone(), d.clone(), line)),
            Value::Alias(a) => {
                let (text, aline) = self.aliases.get(a).ok_or_else(|| ParseError {
                    line,
                    msg: format!("unknown attribute alias `#{a}`"),
                })?;
                let v = Lexer::new(text, *aline).value()?;
                self.resolve(&v, *aline, depth + 1)
            }
            _ => err(
                line,
                "expected a layout attribute (`#ttg.<name><{...}>` or an alias)",
            ),
        }
    }

    fn encoding(&self, v: &Value, line: usize, depth: usize) -> Result<Encoding, ParseError> {
        let (name, dict, aline) = self.resolve(v, line, depth)?;
        let short = name
            .strip_prefix("ttg.")
            .or_else(|| name.strip_prefix("triton_gpu."))
            .unwrap_or(&name)
            .to_string();
        let get = |k: &str| dict.iter().find(|(kk, _)| kk == k).map(|(_, v)| v);
        let need = |k: &str| {
            get(k).ok_or_else(|| ParseError {
                line: aline,
                msg: format!("#{name}: missing `{k}`"),
            })
        };
        let allowed: &[&str] = match short.as_str() {
            "blocked" => &["sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "CTAsPerCGA", "CTASplitNum", "CTAOrder"],
            "linear" => &["register", "lane", "warp", "block"],
            "slice" => &["dim", "parent"],
            "nvidia_mma" => &["versionMajor", "versionMinor", "warpsPerCTA", "instrShape", "CTAsPerCGA", "CTASplitNum", "CTAOrder"],
            "dot_op" => &["opIdx", "parent", "kWidth"],
            _ => {
                return err(
                    aline,
                    format!("#{name}: unsupported encoding (supported: blocked, linear, slice, nvidia_mma, dot_op)"),
                )
            }
        };
        for (k, _) in &dict {
            if !allowed.contains(&k.as_str()) {
                return err(aline, format!("#{name}: unknown attribute key `{k}`"));
            }
        }
        let cta = || -> Result<Option<CtaLayout>, ParseError> {
            match (get("CTAsPerCGA"), get("CTASplitNum"), get("CTAOrder")) {
                (None, None, None) => Ok(None),
                (Some(a), Some(b), Some(c)) => Ok(Some(CtaLayout {
                    ctas_per_cga: ints(aline, "CTAsPerCGA", a)?,
                    cta_split_num: ints(aline, "CTASplitNum", b)?,
                    cta_order: ints(aline, "CTAOrder", c)?,
                })),
                _ => err(
                    aline,
                    format!("#{name}: CTAsPerCGA, CTASplitNum and CTAOrder go together"),
                ),
            }
        };
        Ok(match short.as_str() {
            "blocked" => Encoding::Blocked {
                size_per_thread: ints(aline, "sizePerThread", need("sizePerThread")?)?,
                threads_per_warp: ints(aline, "threadsPerWarp", need("threadsPerWarp")?)?,
                warps_per_cta: ints(aline, "warpsPerCTA", need("warpsPerCTA")?)?,
                order: ints(aline, "order", need("order")?)?,
                cta: cta()?,
            },
            "linear" => Encoding::Linear {
                register: bases(aline, "register", need("register")?)?,
                lane: bases(aline, "lane", need("lane")?)?,
                warp: bases(aline, "warp", need("warp")?)?,
                block: get("block")
                    .map(|b| bases(aline, "block", b))
                    .transpose()?
                    .unwrap_or_default(),
            },
            "slice" => Encoding::Slice {
                dim: int(aline, "dim", need("dim")?)?,
                parent: Box::new(self.encoding(need("parent")?, aline, depth + 1)?),
            },
            "nvidia_mma" => Encoding::NvidiaMma {
                version_major: int(aline, "versionMajor", need("versionMajor")?)?,
                version_minor: get("versionMinor")
                    .map(|v| int(aline, "versionMinor", v))
                    .transpose()?
                    .unwrap_or(0),
                warps_per_cta: ints(aline, "warpsPerCTA", need("warpsPerCTA")?)?,
                instr_shape: ints(aline, "instrShape", need("instrShape")?)?,
                cta: cta()?,
            },
            "dot_op" => Encoding::DotOperand {
                op_idx: int(aline, "opIdx", need("opIdx")?)?,
                parent: Box::new(self.encoding(need("parent")?, aline, depth + 1)?),
                k_width: get("kWidth")
                    .map(|v| int(aline, "kWidth", v))
                    .transpose()?
                    .unwrap_or(0),
            },
            _ => unreachable!("checked above"),
        })
    }
}

/// Text of an attribute with its aliases expanded, for headers and reports.
fn expand_text(text: &str, aliases: &HashMap<String, (String, usize)>, depth: usize) -> String {
    if depth > 16 {
        return text.to_string();
    }
    let mut out = String::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'#' {
            let st = i + 1;
            let mut j = st;
            while j < b.len() && ((b[j] as char).is_alphanumeric() || b[j] == b'_' || b[j] == b'.')
            {
                j += 1;
            }
            let name = &text[st..j];
            if let Some((t, _)) = aliases.get(name) {
                out.push_str(&expand_text(t, aliases, depth + 1));
                i = j;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// Parse one attribute's text (inline, as in `--src '#ttg.blocked<{...}>'`).
pub fn parse_attribute(text: &str) -> Result<Encoding, ParseError> {
    let aliases = HashMap::new();
    let mut lx = Lexer::new(text.trim(), 1);
    let v = lx.value()?;
    if lx.peek().is_some() {
        return err(
            1,
            format!(
                "trailing text after the attribute: `{}`",
                &text.trim()[lx.pos..]
            ),
        );
    }
    Ctx { aliases: &aliases }.encoding(&v, 1, 0)
}

/// Parse one attribute's text like [`parse_attribute`], and on error also
/// return the byte offset into `text` where parsing stopped (the lexer's
/// position for syntax errors, the start of the offending key where the
/// message names one, else the attribute's start). Never panics on any
/// input (trailing text is reported lossily).
pub fn parse_attribute_at(text: &str) -> Result<Encoding, (ParseError, usize)> {
    let aliases = HashMap::new();
    let lead = text.len() - text.trim_start().len();
    let body = text.trim();
    let mut lx = Lexer::new(body, 1);
    let v = lx.value().map_err(|e| (e, lead + lx.pos.min(body.len())))?;
    if lx.peek().is_some() {
        let at = lx.pos.min(body.len());
        let rest: String = String::from_utf8_lossy(&body.as_bytes()[at..])
            .chars()
            .take(30)
            .collect();
        return Err((
            ParseError {
                line: 1,
                msg: format!("trailing text after the attribute: `{rest}`"),
            },
            lead + at,
        ));
    }
    Ctx { aliases: &aliases }.encoding(&v, 1, 0).map_err(|e| {
        // point at the key a message names (`key`), where it occurs as `key =`
        let at = e
            .msg
            .split('`')
            .nth(1)
            .and_then(|k| {
                body.match_indices(k)
                    .find(|(i, _)| body[i + k.len()..].trim_start().starts_with('='))
                    .map(|(i, _)| i)
            })
            .unwrap_or(0);
        (e, lead + at)
    })
}

/// Parse `AxBxC` (a tensor shape) into dims.
pub fn parse_shape(text: &str) -> Result<Vec<i64>, String> {
    text.split('x')
        .map(|d| {
            d.trim()
                .parse::<i64>()
                .map_err(|_| format!("shape `{text}`: `{d}` is not an integer"))
        })
        .collect()
}

/// Split `tensor<128x64xf16, #enc>` into (shape, element type, encoding text).
fn split_tensor_type(t: &str, line: usize) -> Result<(Vec<i64>, ElemType, String), ParseError> {
    let t = t.trim();
    let inner = t
        .strip_prefix("tensor<")
        .and_then(|x| x.strip_suffix('>'))
        .ok_or_else(|| ParseError {
            line,
            msg: format!("expected `tensor<...>`, got `{t}`"),
        })?;
    let comma = inner.find(',').ok_or_else(|| ParseError {
        line,
        msg: format!("tensor type `{t}` has no encoding"),
    })?;
    let dims = &inner[..comma];
    let enc = inner[comma + 1..].trim().to_string();
    let parts: Vec<&str> = dims.split('x').collect();
    let (elem, shape) = parts.split_last().unwrap();
    let shape = shape
        .iter()
        .map(|d| {
            d.trim().parse::<i64>().map_err(|_| ParseError {
                line,
                msg: format!("bad dimension `{d}` in `{t}`"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let elem = ElemType::parse(elem.trim()).ok_or_else(|| ParseError {
        line,
        msg: format!("unknown element type `{elem}`"),
    })?;
    Ok((shape, elem, enc))
}

/// Find the matching `>` for a `tensor<` starting at `start`.
fn tensor_end(s: &str, start: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(start) {
        match c {
            b'<' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn module_int(line_text: &str, key: &str) -> Option<u32> {
    let i = line_text.find(key)?;
    let rest = &line_text[i + key.len()..];
    let rest = rest.trim_start().trim_start_matches('"').trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The line without a trailing `// comment` (outside string literals).
fn strip_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let mut in_str = false;
    for i in 0..b.len() {
        match b[i] {
            b'"' => in_str = !in_str,
            b'/' if !in_str && i + 1 < b.len() && b[i + 1] == b'/' => return &line[..i],
            _ => {}
        }
    }
    line
}

/// Parse a whole TTGIR file (one or more modules). Returns every
/// `ttg.convert_layout` with its encodings resolved; errors carry the line.
pub fn parse_ttgir(text: &str) -> Result<TtgirFile, ParseError> {
    // Pass 1: aliases (`#name = <attr>` at the start of a line).
    let mut aliases: HashMap<String, (String, usize)> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if !l.starts_with('#') {
            continue;
        }
        let Some(eq) = l.find(" = ") else { continue };
        let name = l[1..eq].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let value = l[eq + 3..].trim();
        if value.starts_with("loc(") {
            continue;
        }
        if aliases
            .insert(name.to_string(), (value.to_string(), line))
            .is_some()
        {
            return err(line, format!("attribute alias `#{name}` defined twice"));
        }
    }
    // Pass 2: modules, functions, converts.
    let mut file = TtgirFile {
        aliases: aliases
            .iter()
            .map(|(k, v)| (k.clone(), v.0.clone()))
            .collect(),
        ..Default::default()
    };
    let ctx = Ctx { aliases: &aliases };
    let mut num_warps: Option<u32> = None;
    let mut num_ctas: u32 = 1;
    let mut func = String::from("<toplevel>");
    let mut comments: Vec<String> = Vec::new();
    let mut func_doc = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if let Some(c) = raw.trim().strip_prefix("//") {
            comments.push(c.trim().to_string());
            continue;
        }
        let pending = std::mem::take(&mut comments);
        let l = strip_comment(raw).trim();
        if l.starts_with("module") {
            num_warps =
                module_int(l, "ttg.num-warps").or_else(|| module_int(l, "triton_gpu.num-warps"));
            num_ctas = module_int(l, "ttg.num-ctas")
                .or_else(|| module_int(l, "triton_gpu.num-ctas"))
                .unwrap_or(1);
            if let Some(tpw) = module_int(l, "ttg.threads-per-warp")
                .or_else(|| module_int(l, "triton_gpu.threads-per-warp"))
            {
                if tpw != 32 {
                    return err(line, format!("\"ttg.threads-per-warp\" = {tpw}: warpforge targets 32-lane NVIDIA warps"));
                }
            }
            continue;
        }
        if let Some(p) = l.find("tt.func") {
            if let Some(at) = l[p..].find('@') {
                let rest = &l[p + at + 1..];
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$'))
                    .unwrap_or(rest.len());
                func = rest[..end].to_string();
                func_doc = pending.join(" ");
            }
            continue;
        }
        let Some(p) = l
            .find("ttg.convert_layout")
            .or_else(|| l.find("triton_gpu.convert_layout"))
        else {
            continue;
        };
        let rest = &l[p..];
        let colon = rest.find(" : ").ok_or_else(|| ParseError {
            line,
            msg: "convert_layout without a type (` : tensor<...> -> tensor<...>`)".into(),
        })?;
        let types = &rest[colon + 3..];
        let s0 = types.find("tensor<").ok_or_else(|| ParseError {
            line,
            msg: "convert_layout: expected a tensor source type".into(),
        })?;
        let e0 = tensor_end(types, s0).ok_or_else(|| ParseError {
            line,
            msg: "convert_layout: unbalanced `<` in the source type".into(),
        })?;
        let after = &types[e0..];
        let arrow = after.find("->").ok_or_else(|| ParseError {
            line,
            msg: "convert_layout: expected `->`".into(),
        })?;
        let after = &after[arrow + 2..];
        let s1 = after.find("tensor<").ok_or_else(|| ParseError {
            line,
            msg: "convert_layout: expected a tensor result type".into(),
        })?;
        let e1 = tensor_end(after, s1).ok_or_else(|| ParseError {
            line,
            msg: "convert_layout: unbalanced `<` in the result type".into(),
        })?;
        let (shape, elem, src_t) = split_tensor_type(&types[s0..e0], line)?;
        let (shape2, elem2, dst_t) = split_tensor_type(&after[s1..e1], line)?;
        if shape != shape2 {
            return err(
                line,
                format!("convert_layout changes the shape: {shape:?} -> {shape2:?}"),
            );
        }
        if elem != elem2 {
            return err(
                line,
                format!(
                    "convert_layout changes the element type: {} -> {}",
                    elem.name, elem2.name
                ),
            );
        }
        let Some(nw) = num_warps else {
            return err(
                line,
                "convert_layout outside a module with \"ttg.num-warps\"",
            );
        };
        let sv = Lexer::new(&src_t, line).value()?;
        let dv = Lexer::new(&dst_t, line).value()?;
        let src = ctx.encoding(&sv, line, 0)?;
        let dst = ctx.encoding(&dv, line, 0)?;
        file.converts.push(ConvertOp {
            name: format!("{func}:{line}"),
            line,
            func: func.clone(),
            shape,
            elem,
            src,
            dst,
            src_text: expand_text(&src_t, &aliases, 0),
            dst_text: expand_text(&dst_t, &aliases, 0),
            num_warps: nw,
            num_ctas,
            doc: func_doc.clone(),
        });
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_inline() {
        let e = parse_attribute("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>").unwrap();
        assert_eq!(e.kind(), "blocked");
        let e = parse_attribute("#ttg.linear<{register = [[1]], lane = [[2], [4], [0], [0], [0]], warp = [], block = []}>").unwrap();
        assert!(matches!(e, Encoding::Linear { .. }));
    }

    #[test]
    fn attribute_errors_name_the_problem() {
        let e = parse_attribute("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0], bogus = 3}>").unwrap_err();
        assert!(e.msg.contains("unknown attribute key `bogus`"), "{e}");
        let e = parse_attribute("#ttg.amd_mfma<{versionMajor = 3}>").unwrap_err();
        assert!(e.msg.contains("unsupported encoding"), "{e}");
        let e = parse_attribute("#ttg.blocked<{sizePerThread = [1, 4]}>").unwrap_err();
        assert!(e.msg.contains("missing `threadsPerWarp`"), "{e}");
        let e = parse_attribute("#ttg.blocked<{sizePerThread = [1, 4").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_attribute("#mma").unwrap_err();
        assert!(e.msg.contains("unknown attribute alias"), "{e}");
    }

    #[test]
    fn file_with_aliases_and_two_modules() {
        let t = r#"
#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#loc = loc("x.py":1:0)
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @f(%x: tensor<16x8xi8, #mma>) {
    %0 = ttg.convert_layout %x : tensor<16x8xi8, #mma> -> tensor<16x8xi8, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> loc(#loc)
    tt.return
  }
}
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func @g() {
    %1 = ttg.convert_layout %y : tensor<32x32xf32, #b> -> tensor<32x32xf32, #mma>
  }
}
"#;
        let f = parse_ttgir(t).unwrap();
        assert_eq!(f.converts.len(), 2);
        assert_eq!(f.converts[0].name, "f:7");
        assert_eq!(f.converts[0].elem.bits, 8);
        assert_eq!(f.converts[0].num_warps, 1);
        assert!(f.converts[0].dst_text.contains("#ttg.nvidia_mma"));
        assert_eq!(f.converts[1].num_warps, 4);
        assert_eq!(f.converts[1].shape, vec![32, 32]);
    }

    #[test]
    fn file_errors_carry_lines() {
        let t = "module attributes {\"ttg.num-warps\" = 1 : i32} {\n  %0 = ttg.convert_layout %x : tensor<16x8xi8, #nope> -> tensor<16x8xi8, #nope>\n}";
        let e = parse_ttgir(t).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.msg.contains("#nope"));
        let t = "module attributes {\"ttg.num-warps\" = 1 : i32} {\n\n  %0 = ttg.convert_layout %x : tensor<16x8xi8, #a> -> tensor<8x16xi8, #a>\n}";
        let e = parse_ttgir(t).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.msg.contains("changes the shape"));
    }
}
