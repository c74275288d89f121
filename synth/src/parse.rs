//! Parsing what users paste: TTGIR dumps and attribute text as Triton prints
//! them (`#ttg.blocked<{...}>`, aliases `#mma = #ttg.nvidia_mma<{...}>`,
//! `module attributes {"ttg.num-warps" = 4 : i32, ...}`, and every
//! `ttg.convert_layout %x : tensor<AxBxT, #src> -> tensor<AxBxT, #dst>`).
//!
//! The whole file is read; ops and attributes warpforge does not convert
//! (shared encodings, `loc(...)`, `ttg.local_*`) are skipped. Every error
//! carries the 1-based line it refers to and, where it has one, the column
//! and length of the offending text. Nothing recurses without a bound:
//! attribute values nest at most [`MAX_NESTING`] deep, aliases and parents at
//! most 16.

use crate::encoding::{CtaLayout, Encoding, MAX_CTAS};
use crate::target::AmdArch;
use std::collections::HashMap;

/// Deepest nesting of `[...]` and `#attr<{...}>` inside one attribute value.
pub const MAX_NESTING: usize = 32;

/// Most warps per CTA (1024 threads: CUDA's block limit).
pub const MAX_WARPS: u32 = 32;

/// Longest attribute text, aliases expanded, kept for headers and reports.
const MAX_EXPANDED: usize = 1 << 20;

/// A place in the input: 1-based line and column (in bytes; 0 = unknown),
/// and the length of the text meant (0 = a point).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    pub line: usize,
    pub col: usize,
    pub len: usize,
}

/// A parse error at a line of the input (1-based; 0 for text with no lines),
/// with the column (1-based, in bytes; 0 when unknown) and length of the
/// offending text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}{}: {msg}", if *col > 0 { format!(", column {col}") } else { String::new() })]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub len: usize,
    pub msg: String,
}

impl ParseError {
    /// Where the error points.
    pub fn span(&self) -> Span {
        Span {
            line: self.line,
            col: self.col,
            len: self.len,
        }
    }
}

fn err_at<T>(at: Span, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line: at.line,
        col: at.col,
        len: at.len,
        msg: msg.into(),
    })
}

/// The span of `sub`, a slice of `line_text` (line `line`), or a point at
/// the line's start when it is not one.
fn span_in(line_text: &str, line: usize, sub: &str) -> Span {
    let base = line_text.as_ptr() as usize;
    let p = sub.as_ptr() as usize;
    if p >= base && p + sub.len() <= base + line_text.len() {
        Span {
            line,
            col: p - base + 1,
            len: sub.len(),
        }
    } else {
        Span {
            line,
            col: 0,
            len: 0,
        }
    }
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
    /// Where each side's attribute (inline, or the alias reference) is
    /// written: the op's line in the file, or line 1 of `--src/--dst` text.
    pub src_at: Span,
    pub dst_at: Span,
    pub num_warps: u32,
    pub num_ctas: u32,
    /// Lanes per warp (wave): the module's `ttg.threads-per-warp`, 32
    /// where it names none; 64 on a wave64 AMD target.
    pub lanes: u32,
    /// The `//` comment block right above the enclosing `tt.func` (empty if none).
    pub doc: String,
    /// The module's `ttg.target` (`cuda:80`, `hip:gfx942`, ...); `None`
    /// where the module names none (and for a pair from the command line).
    pub target: Option<String>,
    /// The region of a `ttg.warp_specialize` op the conversion sits in,
    /// `None` outside one (and for a pair from the command line).
    pub warp_specialize: Option<WarpSpecialized>,
}

/// Where a conversion sits in a function that holds a `ttg.warp_specialize`
/// op (Triton's warp specialization: `tl.range(..., warp_specialize=True)`,
/// Gluon's `gl.warp_specialize`). Each region of the op runs on its own
/// warps, concurrently with the others: the `default` region, and the rest
/// of the function, on the module's `ttg.num-warps` warps, the CTA's
/// first; `partitionN` on the `num_warps(W)` warps its header names, after
/// them, which wait in a loop on a barrier of their own outside the op.
/// Triton synchronises each warp group with its own named barrier
/// (`barrier.sync` with a thread count: `ConvertWarpSpecializeToLLVM.cpp`),
/// so a helper's `__syncthreads()` anywhere in such a function waits for
/// warps that never arrive: the default group's helpers use its named
/// barrier (`bar.sync 0, 32 * ttg.num-warps`), and a partition's helpers
/// count their warps from the partition's first warp and use its barrier
/// (`pipeline`'s `plan_warp_specialized`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WarpSpecialized {
    /// `default`, `partition0`, `partition1`, ..., or `outside` (elsewhere
    /// in a function that holds the op).
    pub region: String,
    /// The region's warps: the module's for `default`, `num_warps(W)` for
    /// a partition (also the op's [`ConvertOp::num_warps`]).
    pub warps: u32,
    /// The CTA warp the region's warp 0 is: 0 for `default` and `outside`;
    /// for partition `k`, the op's `warpGroupStartIds[k]` where the TTGIR
    /// carries them, else what Triton 3.6's warp-group allocation gives
    /// ([`warp_group_start_ids`]). `None` where the allocation is not known
    /// ([`WarpSpecialized::first_warp_unknown`] says why: partitions not
    /// numbered 0..n in order, too many for Triton's sort to keep ties in
    /// order, start ids that do not parse or put a partition among the
    /// default group's warps, past the CTA's 32 or on another partition's,
    /// a module of warps not a multiple of 4).
    pub first_warp: Option<u32>,
    /// Why [`WarpSpecialized::first_warp`] is not known, where it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_warp_unknown: Option<String>,
    /// The named barrier Triton gives the region's warps: 0 for `default`
    /// and `outside`, `k + 2` for partition `k` (barriers 0 and 1 are the
    /// default group's and the partitions' start;
    /// `ConvertWarpSpecializeToLLVM.cpp`); `None` past barrier 15.
    pub barrier: Option<u32>,
    /// The line the `ttg.warp_specialize` op starts on (`None` for
    /// `outside`).
    pub op_line: Option<usize>,
    /// Partition `k`'s entry of the op's `requestedRegisters`: the
    /// registers per thread Triton gives its warp group (rounded up to 8,
    /// the most over the partitions of one 4-warp group, by `setmaxnreg`;
    /// `AllocateWarpGroups.cpp`). `None` for the default group and where
    /// the op requests none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_registers: Option<u32>,
    /// The registers per thread Triton's allocation gives partition `k`'s
    /// warps by `setmaxnreg` ([`warp_group_registers`]; the op's
    /// `actualRegisters` where the TTGIR carries them). `None` for the
    /// default group, where the op requests none, and where Triton sets
    /// none (the requests leave the default group too few).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registers: Option<u32>,
}

impl WarpSpecialized {
    /// The default warp group's place (`default`, or `outside` the op):
    /// the CTA's first `warps` warps, barrier 0.
    fn default_group(region: &str, warps: u32) -> WarpSpecialized {
        WarpSpecialized {
            region: region.into(),
            warps,
            first_warp: Some(0),
            first_warp_unknown: None,
            barrier: Some(0),
            op_line: None,
            requested_registers: None,
            registers: None,
        }
    }

    /// `k` of a `partitionk` region; `None` for the default group.
    pub fn partition(&self) -> Option<usize> {
        self.region.strip_prefix("partition")?.parse().ok()
    }
}

/// Triton's first warp of each partition of one `ttg.warp_specialize` op,
/// in partition order (`warpGroupStartIds`), as its
/// `TritonGPUAllocateWarpGroups` pass (Triton 3.6,
/// `lib/Conversion/TritonGPUToLLVM/AllocateWarpGroups.cpp`) allocates them:
/// every op of the module is padded with partitions of powers of two
/// warps, largest first, until its partitions hold as many warp groups of
/// 4 warps as the op that needs most (`max_partition_warps`, the largest
/// sum of partition warps over the module's ops, rounded up to a multiple
/// of 4); then the partitions, padding included, are placed largest first,
/// ties in partition order, one after another from warp `num_warps` (the
/// default group's are the CTA's first). `partition_warps`: the op's own
/// partitions' warps (each a power of two). Returns the start of each of
/// the op's own partitions (the padding's are dropped), or `None` where the
/// sort would not keep ties in order: Triton's `llvm::sort` is
/// `std::sort`, an insertion sort (which keeps them) up to 16 entries.
pub fn warp_group_start_ids(
    num_warps: u32,
    partition_warps: &[u32],
    max_partition_warps: u32,
) -> Option<Vec<u32>> {
    let (_, mut start) = padded_start_ids(num_warps, partition_warps, max_partition_warps)?;
    start.truncate(partition_warps.len());
    Some(start)
}

/// [`warp_group_start_ids`] with the padding partitions kept: the warps of
/// every partition, the op's own first and then the padding Triton adds,
/// and the start of each.
fn padded_start_ids(
    num_warps: u32,
    partition_warps: &[u32],
    max_partition_warps: u32,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let total: u32 = partition_warps.iter().sum();
    let mut sizes = partition_warps.to_vec();
    let mut pad = (max_partition_warps.div_ceil(4) * 4).saturating_sub(total);
    while pad > 0 {
        // the largest power of two not above what is left
        let p = 1u32 << (31 - pad.leading_zeros());
        sizes.push(p);
        pad -= p;
    }
    if sizes.len() > 16 {
        return None;
    }
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    // stable: ties keep partition order
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]));
    let mut start = vec![0u32; sizes.len()];
    let mut next = num_warps;
    for i in order {
        start[i] = next;
        next += sizes[i];
    }
    Some((sizes, start))
}

/// The registers per thread Triton 3.6's `TritonGPUAllocateWarpGroups`
/// pass (`lib/Conversion/TritonGPUToLLVM/AllocateWarpGroups.cpp`) gives each
/// partition of a `ttg.warp_specialize` op through `setmaxnreg`, from the
/// op's `requestedRegisters` (`requested`, one per partition): the
/// partitions, with the padding [`warp_group_start_ids`] adds (requesting
/// 16 each), are taken in order of their first warp and grouped into warp
/// groups of 4 warps (a group starts at a warp that is a multiple of 4);
/// each partition gets the most its group requests, rounded up to 8. The
/// kernel's registers per thread are `maxnreg` (the module's
/// `ttg.maxnreg`), else the 65,536 of the register file over the CTA's
/// warps (the default group's `num_warps` plus the partitions' warp groups)
/// and `lanes`, rounded down to 8. Triton sets no `setmaxnreg` (`None`)
/// where the partitions' registers leave the default group fewer than 24,
/// or fewer than none: then every warp keeps the kernel's. Also `None`
/// where the requests are not one per partition. (Triton raises a request
/// to 32 in a region that asserts or prints, when instrumented; that is
/// not read here.)
pub fn warp_group_registers(
    num_warps: u32,
    lanes: u32,
    partition_warps: &[u32],
    requested: &[u32],
    max_partition_warps: u32,
    maxnreg: Option<u32>,
) -> Option<Vec<u32>> {
    if requested.len() != partition_warps.len() || num_warps == 0 {
        return None;
    }
    let (sizes, start) = padded_start_ids(num_warps, partition_warps, max_partition_warps)?;
    let mut req = requested.to_vec();
    req.resize(sizes.len(), 16);
    let total_warps = num_warps as i64 + max_partition_warps.div_ceil(4) as i64 * 4;
    let lanes = lanes.max(1) as i64;
    let maxnreg = maxnreg.map_or_else(|| 65_536 / total_warps / lanes / 8 * 8, |m| m as i64);
    // partitions by first warp, grouped into warp groups of 4 warps
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| start[i]);
    let mut group_of = vec![0usize; sizes.len()];
    let mut groups: Vec<(i64, i64)> = Vec::new(); // (most requested, warps)
    for i in order {
        if start[i] % 4 == 0 || groups.is_empty() {
            groups.push((0, 0));
        }
        let g = groups.last_mut().expect("pushed");
        g.0 = g.0.max(req[i].div_ceil(8) as i64 * 8);
        g.1 += sizes[i] as i64;
        group_of[i] = groups.len() - 1;
    }
    let mut budget = maxnreg * num_warps as i64 * lanes;
    for &(regs, warps) in &groups {
        budget += (maxnreg - regs) * warps * lanes;
    }
    if budget <= 0 || budget / (num_warps as i64 * lanes) / 8 * 8 < 24 {
        return None;
    }
    Some(
        (0..partition_warps.len())
            .map(|i| groups[group_of[i]].0 as u32)
            .collect(),
    )
}

impl ConvertOp {
    /// The AMD architecture of the op's module (`ttg.target =
    /// "hip:gfx942"`), or `None` (NVIDIA, or no target).
    pub fn amd_arch(&self) -> Option<AmdArch> {
        self.target
            .as_deref()
            .and_then(|t| t.strip_prefix("hip:"))
            .and_then(AmdArch::parse)
    }

    /// The linear layout of one side's encoding `e` for this op: on an AMD
    /// target on the module's wave ([`ConvertOp::lanes`] lanes,
    /// [`Encoding::to_cluster_layout_lanes`]); otherwise on 32-lane NVIDIA
    /// warps ([`Encoding::to_cluster_layout`], which refuses AMD encodings
    /// by name).
    pub fn layout_of(
        &self,
        e: &Encoding,
    ) -> Result<crate::LinearLayout, crate::encoding::EncodingError> {
        if self.amd_arch().is_some() {
            e.to_cluster_layout_lanes(&self.shape, self.num_warps, self.num_ctas, self.lanes)
        } else {
            e.to_cluster_layout(&self.shape, self.num_warps, self.num_ctas)
        }
    }
}

/// What a TTGIR file holds that warpforge uses.
#[derive(Clone, Debug, Default)]
pub struct TtgirFile {
    pub converts: Vec<ConvertOp>,
    /// Every `ttg.convert_layout` that could not be read as one (its text,
    /// its layouts or its module is not one warpforge serves), in file
    /// order: the others are still read.
    pub failed: Vec<FailedOp>,
    /// Aliases seen (`name` without `#` -> attribute text), for diagnostics.
    pub aliases: HashMap<String, String>,
}

/// A `ttg.convert_layout` that could not be read: where it is and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedOp {
    /// `func:line`, as [`ConvertOp::name`].
    pub name: String,
    /// The enclosing `tt.func`.
    pub func: String,
    /// The op's line (1-based).
    pub line: usize,
    /// What is wrong, and where in the line.
    pub error: ParseError,
}

/// What a module's attributes say about the conversions inside it.
#[derive(Clone, Debug, Default)]
struct Module {
    num_warps: Option<u32>,
    num_ctas: u32,
    /// `ttg.threads-per-warp` (32 when absent).
    lanes: u32,
    /// `ttg.maxnreg`, the kernel's registers per thread where the module
    /// sets them (Triton's `maxnreg` option); `None` when absent or not an
    /// integer.
    maxnreg: Option<u32>,
    /// `ttg.target` (`cuda:80`, `hip:gfx942`).
    target: Option<String>,
}

/// The string value of `key = "..."` in a module's attribute line.
fn module_str(l: &str, key: &str) -> Option<String> {
    let i = l.find(key)?;
    let rest = l[i + key.len()..]
        .trim_start()
        .trim_start_matches('"')
        .trim_start();
    let rest = rest.strip_prefix('=')?.trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(rest[..end].to_string())
}

/// Why conversions of a module are not served, if they are not: a target
/// that is neither `cuda:NN` nor an AMD architecture warpforge plans for
/// ([`AmdArch`]), or a wave size other than the target's (32 lanes on
/// NVIDIA; Triton's for the AMD architecture).
fn module_refusal(m: &Module) -> Option<String> {
    if let Some(t) = &m.target {
        if let Some(arch) = t.strip_prefix("hip:") {
            let Some(a) = AmdArch::parse(arch) else {
                return Some(format!(
                    "AMD target `{t}`: warpforge plans AMD conversions for {} only",
                    AmdArch::ALL.map(|a| format!("hip:{a}")).join(", ")
                ));
            };
            if m.lanes != a.lanes() {
                return Some(format!(
                    "\"ttg.threads-per-warp\" = {} on `{t}`: warpforge plans {a} conversions on waves of {} lanes (as Triton 3.6 compiles for it)",
                    m.lanes,
                    a.lanes()
                ));
            }
            return None;
        }
        if !t.starts_with("cuda:") {
            return Some(format!(
                "target `{t}`: warpforge plans NVIDIA (`cuda:NN`) and AMD ({}) conversions only",
                AmdArch::ALL.map(|a| format!("`hip:{a}`")).join(", ")
            ));
        }
    }
    if m.lanes != 32 {
        return Some(format!(
            "\"ttg.threads-per-warp\" = {}: {} NVIDIA warps have 32 lanes; a wave64 module needs its AMD target (`ttg.target = \"hip:gfx942\"`)",
            m.lanes,
            m.target.as_deref().map_or("without a `ttg.target`,".to_string(), |t| format!("`{t}`:"))
        ));
    }
    None
}

/// One `key = value` of an attribute dictionary, with where the key is.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    key: String,
    value: Value,
    at: Span,
}

/// A generic MLIR attribute value, enough for TTGIR layout dictionaries.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Int(i64, Span),
    Bool(bool),
    Array(Vec<Value>, Span),
    /// `#dialect.name<{dict}>` or a bare `#dialect.name`, with the name's span.
    Attr(String, Vec<Entry>, Span),
    /// An alias reference `#name`.
    Alias(String, Span),
    Str(String),
}

impl Value {
    /// Where the value starts (a point when unknown).
    fn at(&self, line: usize) -> Span {
        match self {
            Value::Int(_, s) | Value::Array(_, s) | Value::Attr(_, _, s) | Value::Alias(_, s) => *s,
            _ => Span {
                line,
                col: 0,
                len: 0,
            },
        }
    }
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
    /// Byte offset of `s` in its line (0-based).
    base: usize,
    /// Nesting depth of arrays and attributes being read.
    depth: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer over `s`, which starts at byte `base` (0-based) of line `line`.
    fn new(s: &'a str, line: usize, base: usize) -> Self {
        Lexer {
            s: s.as_bytes(),
            pos: 0,
            line,
            base,
            depth: 0,
        }
    }
    /// The span from byte `st` of the text to the current position.
    fn span(&self, st: usize) -> Span {
        Span {
            line: self.line,
            col: self.base + st + 1,
            len: self.pos.saturating_sub(st).max(1),
        }
    }
    /// A point (or the next token's first byte) at the current position.
    /// `pos`, moved back to the start of the character it is in (the
    /// scanner reads bytes; an error inside a multi-byte character points
    /// at the whole character).
    fn char_start(&self) -> usize {
        let mut p = self.pos.min(self.s.len());
        while p > 0 && p < self.s.len() && self.s[p] & 0xC0 == 0x80 {
            p -= 1;
        }
        p
    }
    fn here(&self) -> Span {
        let p = self.char_start();
        // the whole character at `p` (1 to 4 bytes), none at the end
        let len = match self.s.get(p) {
            None => 0,
            Some(&b) if b < 0x80 => 1,
            Some(_) => {
                1 + self.s[p + 1..]
                    .iter()
                    .take(3)
                    .take_while(|&&c| c & 0xC0 == 0x80)
                    .count()
            }
        };
        Span {
            line: self.line,
            col: self.base + p + 1,
            len,
        }
    }
    fn rest(&self) -> String {
        let r = String::from_utf8_lossy(&self.s[self.char_start()..]);
        let t: String = r.chars().take(30).collect();
        if t.is_empty() {
            "the end of the text".into()
        } else {
            format!("`{t}`")
        }
    }
    fn ws(&mut self) {
        // MLIR's whitespace is ASCII (a byte of a multi-byte character is
        // never whitespace)
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
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
            err_at(
                self.here(),
                format!("expected `{}` at {}", c as char, self.rest()),
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
    /// Enter one level of `[` or `<{`: an error past [`MAX_NESTING`].
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return err_at(
                self.here(),
                format!("attribute nests deeper than {MAX_NESTING} levels of `[` or `<{{`"),
            );
        }
        Ok(())
    }
    fn value(&mut self) -> Result<Value, ParseError> {
        self.ws();
        let st = self.pos;
        match self.peek() {
            Some(b'[') => {
                self.enter()?;
                self.pos += 1;
                let mut v = Vec::new();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(Value::Array(v, self.span(st)));
                }
                loop {
                    v.push(self.value()?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            self.depth -= 1;
                            return Ok(Value::Array(v, self.span(st)));
                        }
                        _ => {
                            return err_at(
                                self.here(),
                                format!("expected `,` or `]` in an array at {}", self.rest()),
                            )
                        }
                    }
                }
            }
            Some(b'#') => {
                self.pos += 1;
                let name = self.ident();
                let at = self.span(st);
                if name.is_empty() {
                    return err_at(at, "expected an attribute name after `#`");
                }
                if name.contains('.') {
                    let mut dict = Vec::new();
                    if self.peek() == Some(b'<') {
                        self.enter()?;
                        self.pos += 1;
                        if self.peek() == Some(b'{') {
                            dict = self.dict()?;
                        } else {
                            return err_at(
                                self.here(),
                                format!("#{name}: expected `<{{` (a dictionary)"),
                            );
                        }
                        self.eat(b'>')?;
                        self.depth -= 1;
                    }
                    Ok(Value::Attr(name, dict, at))
                } else {
                    Ok(Value::Alias(name, at))
                }
            }
            Some(b'"') => {
                self.pos += 1;
                let s0 = self.pos;
                while self.pos < self.s.len() && self.s[self.pos] != b'"' {
                    self.pos += 1;
                }
                let s = String::from_utf8_lossy(&self.s[s0..self.pos]).into_owned();
                if self.pos >= self.s.len() {
                    return err_at(self.span(st), "unterminated string (no closing `\"`)");
                }
                self.pos += 1;
                Ok(Value::Str(s))
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                self.pos += 1;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                let at = self.span(st);
                let t = String::from_utf8_lossy(&self.s[st..self.pos]).into_owned();
                let v = t.parse::<i64>().map_err(|_| ParseError {
                    line: at.line,
                    col: at.col,
                    len: at.len,
                    msg: not_an_integer(&t),
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
                Ok(Value::Int(v, at))
            }
            Some(_) => {
                let id = self.ident();
                match id.as_str() {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    "" => err_at(self.here(), format!("expected a value at {}", self.rest())),
                    _ => Ok(Value::Str(id)),
                }
            }
            None => err_at(self.here(), "unexpected end of attribute"),
        }
    }
    fn dict(&mut self) -> Result<Vec<Entry>, ParseError> {
        self.eat(b'{')?;
        let mut out: Vec<Entry> = Vec::new();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            self.ws();
            let st = self.pos;
            let key = if self.peek() == Some(b'"') {
                match self.value()? {
                    Value::Str(s) => s,
                    _ => unreachable!("a quoted value is a string"),
                }
            } else {
                self.ident()
            };
            let at = self.span(st);
            if key.is_empty() {
                return err_at(
                    self.here(),
                    format!(
                        "expected a key in an attribute dictionary at {}",
                        self.rest()
                    ),
                );
            }
            if let Some(first) = out.iter().find(|e| e.key == key) {
                return err_at(
                    at,
                    format!("`{key}` is given twice (first at column {})", first.at.col),
                );
            }
            let v = if self.peek() == Some(b'=') {
                self.pos += 1;
                self.value()?
            } else {
                Value::Bool(true)
            };
            out.push(Entry { key, value: v, at });
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => {
                    return err_at(
                        self.here(),
                        format!(
                            "expected `,` or `}}` in an attribute dictionary at {}",
                            self.rest()
                        ),
                    )
                }
            }
        }
    }
    /// An error when anything but white space is left.
    fn end(&mut self, what: &str) -> Result<(), ParseError> {
        if self.peek().is_some() {
            let st = self.pos;
            let len = self.s.len() - st;
            return err_at(
                Span {
                    line: self.line,
                    col: self.base + st + 1,
                    len,
                },
                format!("unexpected {} after {what}", self.rest()),
            );
        }
        Ok(())
    }
}

/// An alias definition: its value text and where that text starts.
#[derive(Clone, Debug)]
struct AliasDef {
    text: String,
    line: usize,
    /// 0-based byte offset of `text` in its line.
    base: usize,
}

/// Resolves aliases and builds encodings.
struct Ctx<'a> {
    aliases: &'a HashMap<String, AliasDef>,
}

fn ints(e: &Entry) -> Result<Vec<u32>, ParseError> {
    let key = &e.key;
    match &e.value {
        Value::Array(a, _) => a
            .iter()
            .map(|x| match x {
                Value::Int(i, at) => u32::try_from(*i).or_else(|_| {
                    err_at(
                        *at,
                        format!("`{key}`: {i} is not a non-negative 32-bit integer"),
                    )
                }),
                other => err_at(
                    other.at(e.at.line),
                    format!("`{key}` must be an array of non-negative integers"),
                ),
            })
            .collect(),
        other => err_at(
            other.at(e.at.line),
            format!("`{key}` must be an array of integers"),
        ),
    }
}

fn bases(e: &Entry) -> Result<Vec<Vec<i32>>, ParseError> {
    let key = &e.key;
    match &e.value {
        Value::Array(a, _) => a
            .iter()
            .map(|b| match b {
                Value::Array(x, _) => x
                    .iter()
                    .map(|v| match v {
                        Value::Int(i, at) => i32::try_from(*i).or_else(|_| {
                            err_at(*at, format!("`{key}`: {i} is not a 32-bit integer"))
                        }),
                        other => err_at(
                            other.at(e.at.line),
                            format!("`{key}` bases must hold integers"),
                        ),
                    })
                    .collect(),
                other => err_at(
                    other.at(e.at.line),
                    format!("`{key}` must be an array of arrays"),
                ),
            })
            .collect(),
        other => err_at(
            other.at(e.at.line),
            format!("`{key}` must be an array of bases"),
        ),
    }
}

fn int(e: &Entry) -> Result<u32, ParseError> {
    match &e.value {
        Value::Int(i, at) => u32::try_from(*i).or_else(|_| {
            err_at(
                *at,
                format!("`{}`: {i} is not a non-negative 32-bit integer", e.key),
            )
        }),
        other => err_at(
            other.at(e.at.line),
            format!("`{}` must be a non-negative integer", e.key),
        ),
    }
}

fn boolean(e: &Entry) -> Result<bool, ParseError> {
    match &e.value {
        Value::Bool(b) => Ok(*b),
        Value::Int(_, at) | Value::Array(_, at) => {
            err_at(*at, format!("`{}` must be `true` or `false`", e.key))
        }
        _ => err_at(e.at, format!("`{}` must be `true` or `false`", e.key)),
    }
}

impl Ctx<'_> {
    fn resolve(&self, v: &Value, depth: usize) -> Result<(String, Vec<Entry>, Span), ParseError> {
        match v {
            Value::Attr(n, d, at) => Ok((n.clone(), d.clone(), *at)),
            Value::Alias(a, at) => {
                if depth > 16 {
                    return err_at(*at, "attribute aliases nest too deeply (a cycle?)");
                }
                let def = self.aliases.get(a).ok_or_else(|| ParseError {
                    line: at.line,
                    col: at.col,
                    len: at.len,
                    msg: format!("unknown attribute alias `#{a}`"),
                })?;
                let mut lx = Lexer::new(&def.text, def.line, def.base);
                let v = lx.value()?;
                lx.end(&format!("the value of alias `#{a}`"))?;
                self.resolve(&v, depth + 1)
            }
            other => err_at(
                other.at(0),
                "expected a layout attribute (`#ttg.<name><{...}>` or an alias)",
            ),
        }
    }

    fn encoding(&self, v: &Value, depth: usize) -> Result<Encoding, ParseError> {
        if depth > 16 {
            return err_at(v.at(0), "layouts nest too deeply (more than 16 parents)");
        }
        let (name, dict, at) = self.resolve(v, depth)?;
        let short = name
            .strip_prefix("ttg.")
            .or_else(|| name.strip_prefix("triton_gpu."))
            .unwrap_or(&name)
            .to_string();
        let get = |k: &str| dict.iter().find(|e| e.key == k);
        let need = |k: &str| {
            get(k).ok_or_else(|| ParseError {
                line: at.line,
                col: at.col,
                len: at.len,
                msg: format!("#{name}: missing `{k}`"),
            })
        };
        let allowed: &[&str] = match short.as_str() {
            "blocked" => &["sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout"],
            "linear" => &["register", "lane", "warp", "block"],
            "slice" => &["dim", "parent"],
            "nvidia_mma" => &["versionMajor", "versionMinor", "warpsPerCTA", "instrShape", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout"],
            "dot_op" => &["opIdx", "parent", "kWidth"],
            "amd_mfma" => &["version", "warpsPerCTA", "instrShape", "isTransposed", "tilesPerWarp", "elementBitWidth", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout"],
            "amd_wmma" => &["version", "isTranspose", "warpsPerCTA", "tilesPerWarp", "instrShape", "CTAsPerCGA", "CTASplitNum", "CTAOrder", "CGALayout"],
            _ => {
                return err_at(
                    at,
                    format!("#{name}: unsupported encoding (supported: blocked, linear, slice, nvidia_mma, dot_op, amd_mfma, amd_wmma)"),
                )
            }
        };
        for e in &dict {
            if !allowed.contains(&e.key.as_str()) {
                return err_at(e.at, format!("#{name}: unknown attribute key `{}`", e.key));
            }
        }
        let cta = || -> Result<Option<CtaLayout>, ParseError> {
            if let Some(g) = get("CGALayout") {
                if let Some(e) = get("CTAsPerCGA").or(get("CTASplitNum")).or(get("CTAOrder")) {
                    return err_at(
                        e.at,
                        format!("#{name}: give `CGALayout` or CTAsPerCGA/CTASplitNum/CTAOrder, not both"),
                    );
                }
                return Ok(Some(CtaLayout {
                    ctas_per_cga: vec![],
                    cta_split_num: vec![],
                    cta_order: vec![],
                    cga_bases: Some(bases(g)?),
                }));
            }
            match (get("CTAsPerCGA"), get("CTASplitNum"), get("CTAOrder")) {
                (None, None, None) => Ok(None),
                (Some(a), Some(b), Some(c)) => Ok(Some(CtaLayout {
                    ctas_per_cga: ints(a)?,
                    cta_split_num: ints(b)?,
                    cta_order: ints(c)?,
                    cga_bases: None,
                })),
                _ => err_at(
                    at,
                    format!("#{name}: CTAsPerCGA, CTASplitNum and CTAOrder go together"),
                ),
            }
        };
        Ok(match short.as_str() {
            "blocked" => Encoding::Blocked {
                size_per_thread: ints(need("sizePerThread")?)?,
                threads_per_warp: ints(need("threadsPerWarp")?)?,
                warps_per_cta: ints(need("warpsPerCTA")?)?,
                order: ints(need("order")?)?,
                cta: cta()?,
            },
            "linear" => Encoding::Linear {
                register: bases(need("register")?)?,
                lane: bases(need("lane")?)?,
                warp: bases(need("warp")?)?,
                block: get("block").map(bases).transpose()?.unwrap_or_default(),
            },
            "slice" => Encoding::Slice {
                dim: int(need("dim")?)?,
                parent: Box::new(self.encoding(&need("parent")?.value, depth + 1)?),
            },
            "nvidia_mma" => Encoding::NvidiaMma {
                version_major: int(need("versionMajor")?)?,
                version_minor: get("versionMinor").map(int).transpose()?.unwrap_or(0),
                warps_per_cta: ints(need("warpsPerCTA")?)?,
                instr_shape: ints(need("instrShape")?)?,
                cta: cta()?,
            },
            "amd_mfma" => Encoding::AmdMfma {
                version: int(need("version")?)?,
                warps_per_cta: ints(need("warpsPerCTA")?)?,
                instr_shape: ints(need("instrShape")?)?,
                is_transposed: boolean(need("isTransposed")?)?,
                tiles_per_warp: get("tilesPerWarp")
                    .map(ints)
                    .transpose()?
                    .unwrap_or_default(),
                element_bit_width: get("elementBitWidth").map(int).transpose()?.unwrap_or(32),
                cta: cta()?,
            },
            "amd_wmma" => Encoding::AmdWmma {
                version: int(need("version")?)?,
                is_transposed: boolean(need("isTranspose")?)?,
                warps_per_cta: ints(need("warpsPerCTA")?)?,
                tiles_per_warp: get("tilesPerWarp")
                    .map(ints)
                    .transpose()?
                    .unwrap_or_default(),
                instr_shape: get("instrShape")
                    .map(ints)
                    .transpose()?
                    .unwrap_or_else(|| vec![16, 16, 16]),
                cta: cta()?,
            },
            "dot_op" => Encoding::DotOperand {
                op_idx: {
                    let e = need("opIdx")?;
                    match int(e)? {
                        i @ (0 | 1) => i,
                        i => {
                            return err_at(
                                e.at,
                                format!("#{name}: opIdx = {i}: a dot operand is 0 (A) or 1 (B)"),
                            )
                        }
                    }
                },
                parent: Box::new(self.encoding(&need("parent")?.value, depth + 1)?),
                k_width: get("kWidth").map(int).transpose()?.unwrap_or(0),
            },
            _ => unreachable!("checked above"),
        })
    }
}

/// Text of an attribute with its aliases expanded, for headers and reports.
/// Errors when the expansion would exceed `MAX_EXPANDED` bytes.
fn expand_text(
    text: &str,
    aliases: &HashMap<String, AliasDef>,
    depth: usize,
    budget: &mut usize,
) -> Result<String, String> {
    if depth > 16 {
        return Ok(text.to_string());
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
            if let Some(d) = aliases.get(name) {
                out.push_str(&expand_text(&d.text, aliases, depth + 1, budget)?);
                i = j;
                continue;
            }
        }
        let ch = text[i..].chars().next().expect("i is a char boundary");
        if *budget < ch.len_utf8() {
            return Err(format!(
                "the attribute's text with its aliases expanded exceeds {MAX_EXPANDED} bytes"
            ));
        }
        *budget -= ch.len_utf8();
        out.push(ch);
        i += ch.len_utf8();
    }
    Ok(out)
}

/// Parse one attribute's text (inline, as in `--src '#ttg.blocked<{...}>'`).
/// A leading UTF-8 byte-order mark is skipped; columns count from the
/// text's first byte.
pub fn parse_attribute(text: &str) -> Result<Encoding, ParseError> {
    let aliases = HashMap::new();
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let base = text.len() - body.len();
    let mut lx = Lexer::new(body, 1, base);
    let v = lx.value()?;
    lx.end("the attribute")?;
    Ctx { aliases: &aliases }.encoding(&v, 0)
}

/// Parse one attribute's text like [`parse_attribute`], and on error also
/// return the byte offset into `text` where the error points (its column on
/// line 1; 0 when the error has no column). Never panics on any input.
pub fn parse_attribute_at(text: &str) -> Result<Encoding, (ParseError, usize)> {
    parse_attribute(text).map_err(|e| {
        let at = if e.line <= 1 && e.col > 0 {
            (e.col - 1).min(text.len())
        } else {
            0
        };
        (e, at)
    })
}

/// Why `t` did not parse as a 64-bit integer: `too large` for a run of
/// digits (with an optional sign) out of range, else `not an integer`.
pub fn not_an_integer(t: &str) -> String {
    let d = t.trim().trim_start_matches(['-', '+']);
    if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) {
        format!(
            "`{}` is too large (integers here are at most {})",
            t.trim(),
            i64::MAX
        )
    } else {
        format!("`{}` is not an integer", t.trim())
    }
}

/// Largest tensor dimension a shape may give: 2^30, the largest size a
/// linear layout's out dimension holds (sizes are 32-bit, as in Triton's
/// `LinearLayout`).
pub const MAX_DIM: i64 = 1 << 30;

/// Parse `AxBxC` (a tensor shape) into dims: each a positive integer of at
/// most [`MAX_DIM`].
pub fn parse_shape(text: &str) -> Result<Vec<i64>, String> {
    text.split('x')
        .map(|d| match d.trim().parse::<i64>() {
            Ok(v) if v > MAX_DIM => Err(format!(
                "shape `{text}`: dimension {v} is over 2^30 = {MAX_DIM}, the largest a layout dimension can be"
            )),
            Ok(v) if v > 0 => Ok(v),
            Ok(v) => Err(format!("shape `{text}`: dimension {v} is not positive")),
            Err(_) => Err(format!("shape `{text}`: {}", not_an_integer(d))),
        })
        .collect()
}

/// Split `tensor<128x64xf16, #enc>` (a slice of `raw`, line `line`) into
/// (shape, element type, encoding text).
fn split_tensor_type<'r>(
    raw: &'r str,
    t: &'r str,
    line: usize,
) -> Result<(Vec<i64>, ElemType, &'r str), ParseError> {
    let t = t.trim();
    let whole = span_in(raw, line, t);
    let inner = t
        .strip_prefix("tensor<")
        .and_then(|x| x.strip_suffix('>'))
        .ok_or_else(|| ParseError {
            line,
            col: whole.col,
            len: whole.len,
            msg: format!("expected `tensor<...>`, got `{t}`"),
        })?;
    let comma = inner.find(',').ok_or_else(|| ParseError {
        line,
        col: whole.col,
        len: whole.len,
        msg: format!("tensor type `{t}` has no encoding"),
    })?;
    let dims = &inner[..comma];
    let enc = inner[comma + 1..].trim();
    let parts: Vec<&str> = dims.split('x').collect();
    let (elem, shape) = parts.split_last().expect("split yields at least one part");
    let shape = shape
        .iter()
        .map(|d| match d.trim().parse::<i64>() {
            Ok(v) if v > MAX_DIM => err_at(
                span_in(raw, line, d.trim()),
                format!(
                    "dimension {v} in `{t}` is over 2^30 = {MAX_DIM}, the largest a layout dimension can be"
                ),
            ),
            Ok(v) if v > 0 => Ok(v),
            _ => err_at(
                span_in(raw, line, d),
                format!("bad dimension `{}` in `{t}`", d.trim()),
            ),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let elem_t = elem.trim();
    let elem = ElemType::parse(elem_t).ok_or_else(|| {
        let at = span_in(raw, line, elem_t);
        ParseError {
            line,
            col: at.col,
            len: at.len.max(1),
            msg: format!("unknown element type `{elem_t}`"),
        }
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

/// The integer value of `"key" = N` in a module's attribute line: `None`
/// when the key is absent, an error when its value is not an integer.
fn module_int(raw: &str, line: usize, l: &str, key: &str) -> Result<Option<u32>, ParseError> {
    let Some(i) = l.find(key) else {
        return Ok(None);
    };
    let rest = &l[i + key.len()..];
    let rest = rest.trim_start().trim_start_matches('"').trim_start();
    let Some(rest) = rest.strip_prefix('=') else {
        return Ok(None);
    };
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let digits = &rest[..end];
    digits.parse().map(Some).or_else(|_| {
        let at = span_in(raw, line, &l[i..i + key.len()]);
        err_at(
            at,
            format!(
                "\"{key}\" must be a non-negative integer, got `{}`",
                rest.chars().take(20).collect::<String>()
            ),
        )
    })
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

/// `{` less `}` on one line, outside string literals and `//` comments.
fn brace_delta(raw: &str) -> i64 {
    let b = raw.as_bytes();
    let (mut in_str, mut d, mut k) = (false, 0i64, 0);
    while k < b.len() {
        match b[k] {
            b'\\' if in_str => k += 1,
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(k + 1) == Some(&b'/') => break,
            b'{' if !in_str => d += 1,
            b'}' if !in_str => d -= 1,
            _ => {}
        }
        k += 1;
    }
    d
}

/// The region a line of a `ttg.warp_specialize` op opens: `default {`
/// (the module's warps), or `partitionN(...) num_warps(W) {`; `None` for
/// any other line.
fn ws_region(l: &str, module: Option<&Module>) -> Option<WarpSpecialized> {
    if l.starts_with("default") && l.ends_with('{') {
        return Some(WarpSpecialized::default_group(
            "default",
            module.and_then(|m| m.num_warps).unwrap_or(4),
        ));
    }
    let rest = l.strip_prefix("partition")?;
    let n: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let w = l.rfind("num_warps(")?;
    let warps: u32 = l[w + 10..].split(')').next()?.trim().parse().ok()?;
    // the first warp is the allocation's, known once the op is read
    (!n.is_empty() && warps > 0 && warps <= MAX_WARPS).then(|| WarpSpecialized {
        region: format!("partition{n}"),
        warps,
        first_warp: None,
        first_warp_unknown: None,
        barrier: n.parse::<u32>().ok().map(|k| k + 2).filter(|&b| b <= 15),
        op_line: None,
        requested_registers: None,
        registers: None,
    })
}

/// Check that the `{` and `}` of the file's code (outside string literals
/// and `//` comments) pair up, as MLIR's parser requires: a truncated file
/// (a module or function missing its closing `}`) or a stray `}` is an
/// error at the brace that is left open (the innermost) or the stray one.
fn check_braces(text: &str) -> Result<(), ParseError> {
    let mut open: Vec<Span> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let b = raw.as_bytes();
        let mut in_str = false;
        let mut k = 0;
        while k < b.len() {
            match b[k] {
                b'\\' if in_str => k += 1,
                b'"' => in_str = !in_str,
                b'/' if !in_str && b.get(k + 1) == Some(&b'/') => break,
                b'{' if !in_str => open.push(Span {
                    line: i + 1,
                    col: k + 1,
                    len: 1,
                }),
                b'}' if !in_str => {
                    if open.pop().is_none() {
                        return err_at(
                            Span {
                                line: i + 1,
                                col: k + 1,
                                len: 1,
                            },
                            "`}` closes nothing: no `{` is open here",
                        );
                    }
                }
                _ => {}
            }
            k += 1;
        }
    }
    match open.pop() {
        Some(at) => err_at(
            at,
            format!(
                "this `{{` is never closed: the file ends inside it{} (a truncated file?)",
                if open.is_empty() {
                    String::new()
                } else {
                    format!(" and {} enclosing block(s)", open.len())
                }
            ),
        ),
        None => Ok(()),
    }
}

/// Parse a whole TTGIR file (one or more modules). Returns every
/// `ttg.convert_layout` with its encodings resolved; errors carry the line
/// and column. A leading UTF-8 byte-order mark is skipped (columns of the
/// first line count from after it).
pub fn parse_ttgir(text: &str) -> Result<TtgirFile, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    check_braces(text)?;
    // Pass 1: aliases (`#name = <attr>` at the start of a line).
    let mut aliases: HashMap<String, AliasDef> = HashMap::new();
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
        let value = strip_comment(&l[eq + 3..]).trim();
        if value.starts_with("loc(") {
            continue;
        }
        let at = span_in(raw, line, value);
        let def = AliasDef {
            text: value.to_string(),
            line,
            base: at.col.saturating_sub(1),
        };
        if let Some(first) = aliases.insert(name.to_string(), def) {
            return err_at(
                span_in(raw, line, &l[..eq]),
                format!(
                    "attribute alias `#{name}` defined twice (first on line {})",
                    first.line
                ),
            );
        }
    }
    // Pass 2: modules, functions, converts.
    let mut file = TtgirFile {
        aliases: aliases
            .iter()
            .map(|(k, v)| (k.clone(), v.text.clone()))
            .collect(),
        ..Default::default()
    };
    let ctx = Ctx { aliases: &aliases };
    let mut module: Option<Module> = None;
    let mut func = String::from("<toplevel>");
    let mut comments: Vec<String> = Vec::new();
    let mut func_doc = String::new();
    // brace depth before each line, and the open `ttg.warp_specialize` op:
    // the depth its line starts at and the region being read
    let mut depth: i64 = 0;
    let mut ws: Option<(i64, Option<WarpSpecialized>)> = None;
    // every ws op read: its module's ordinal and warps, the start ids its
    // attributes give, and its partitions' (number, warps) in order
    let mut module_no = 0usize;
    let mut ws_ops: Vec<WsOp> = Vec::new();
    // functions that hold a ws op, by ordinal (two modules may reuse a
    // name), and the ordinal of each read convert's function
    let mut func_no = 0usize;
    let mut ws_funcs: std::collections::HashSet<usize> = Default::default();
    let mut op_func: Vec<usize> = Vec::new();
    // per read convert, the ws op it sits in a region of
    let mut op_ws: Vec<Option<usize>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if let Some(c) = raw.trim().strip_prefix("//") {
            comments.push(c.trim().to_string());
            continue;
        }
        let pending = std::mem::take(&mut comments);
        let l = strip_comment(raw).trim();
        let before = depth;
        depth += brace_delta(raw);
        if let Some((at, region)) = ws.as_mut() {
            // a line at the op's own level opens its next region, or is past
            // the op (blank lines aside)
            if before <= *at && !l.is_empty() {
                match ws_region(l, module.as_ref()) {
                    Some(mut r) if before == *at => {
                        if let (Some(op), Some(k)) = (ws_ops.last_mut(), r.partition()) {
                            r.requested_registers =
                                op.requested.as_ref().and_then(|q| q.get(k).copied());
                            op.partitions.push((k, r.warps));
                        }
                        r.op_line = ws_ops.last().map(|op| op.line);
                        *region = Some(r)
                    }
                    _ => ws = None,
                }
            }
        }
        if ws.is_none() && l.contains("ttg.warp_specialize(") {
            ws_funcs.insert(func_no);
            ws = Some((before, None));
            ws_ops.push(WsOp {
                line,
                module: module_no,
                num_warps: module.as_ref().and_then(|m| m.num_warps).unwrap_or(4),
                start_ids: l
                    .contains("warpGroupStartIds")
                    .then(|| i32_array(l, "warpGroupStartIds")),
                requested: i32_array(l, "requestedRegisters"),
                actual: i32_array(l, "actualRegisters"),
                lanes: module.as_ref().map_or(32, |m| m.lanes),
                maxnreg: module.as_ref().and_then(|m| m.maxnreg),
                partitions: Vec::new(),
            });
        }
        if l.starts_with("module") {
            module = Some(parse_module(raw, line, l)?);
            module_no += 1;
            continue;
        }
        if let Some(p) = l.find("tt.func") {
            if let Some(at) = l[p..].find('@') {
                let rest = &l[p + at + 1..];
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$'))
                    .unwrap_or(rest.len());
                func = rest[..end].to_string();
                func_no += 1;
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
        let at = OpAt {
            raw,
            line,
            l,
            p,
            func: &func,
            doc: &func_doc,
        };
        let region = ws.as_ref().and_then(|(_, r)| r.clone());
        match parse_op(&ctx, &aliases, &at, module.as_ref()) {
            Ok(mut op) => {
                if let Some(r) = region {
                    op.num_warps = r.warps;
                    op.warp_specialize = Some(r);
                }
                file.converts.push(op);
                op_func.push(func_no);
                op_ws.push(ws.as_ref().map(|_| ws_ops.len() - 1));
            }
            Err(error) => file.failed.push(FailedOp {
                name: format!("{func}:{line}"),
                func: func.clone(),
                line,
                error,
            }),
        }
    }
    // the rest of a function that holds a warp_specialize op runs on the
    // default warp group too (the partitions' warps wait outside the op)
    for (op, f) in file.converts.iter_mut().zip(&op_func) {
        if op.warp_specialize.is_none() && ws_funcs.contains(f) {
            op.warp_specialize = Some(WarpSpecialized::default_group("outside", op.num_warps));
        }
    }
    // each partition's first warp: the op's own start ids, else Triton's
    // allocation over the ops of its module
    let starts: Vec<Result<Vec<u32>, String>> = ws_ops
        .iter()
        .map(|op| {
            // partitions numbered 0, 1, ... in order, as Triton prints them
            let numbered = op
                .partitions
                .iter()
                .enumerate()
                .all(|(i, p)| p.0 == i);
            if !numbered {
                return Err(format!(
                    "the partitions of its op (line {}) are not numbered 0, 1, ... in order",
                    op.line
                ));
            }
            if op.num_warps % 4 != 0 {
                return Err(format!(
                    "Triton 3.6 warp-specializes only kernels whose ttg.num-warps is a multiple of 4, and this module's is {}",
                    op.num_warps
                ));
            }
            let starts = match &op.start_ids {
                Some(Some(ids)) if ids.len() >= op.partitions.len() => ids.clone(),
                Some(_) => {
                    return Err(format!(
                        "the `warpGroupStartIds` of its op (line {}) are not one warp per partition",
                        op.line
                    ))
                }
                None => {
                    let (warps, most) = op.partition_warps(&ws_ops);
                    warp_group_start_ids(op.num_warps, &warps, most).ok_or_else(|| {
                        format!(
                            "its op (line {}) has more partitions with the padding than the 16 whose order Triton's warp-group allocation keeps",
                            op.line
                        )
                    })?
                }
            };
            // every partition after the default group's warps and inside
            // the CTA's 32 warps (1024 threads)
            if let Some((p, s)) = op.partitions.iter().zip(&starts).find(|(p, &s)| {
                s < op.num_warps || s.checked_add(p.1).is_none_or(|end| end > MAX_WARPS)
            }) {
                return Err(format!(
                    "partition{} of its op (line {}) would run on warps {s} to {} of a CTA whose first {} are the default group's and which has at most {MAX_WARPS}",
                    p.0,
                    op.line,
                    s.saturating_add(p.1) - 1,
                    op.num_warps
                ));
            }
            // and no two on the same warps
            let mut spans: Vec<(u32, u32, usize)> = op
                .partitions
                .iter()
                .zip(&starts)
                .map(|(p, &s)| (s, s + p.1, p.0))
                .collect();
            spans.sort();
            if let Some(w) = spans.windows(2).find(|w| w[0].1 > w[1].0) {
                return Err(format!(
                    "partition{} and partition{} of its op (line {}) would share warps (from warp {})",
                    w[0].2, w[1].2, op.line, w[1].0
                ));
            }
            Ok(starts)
        })
        .collect();
    // each partition's registers: the op's own `actualRegisters` where the
    // TTGIR was printed after Triton's allocation, else the allocation's
    let registers: Vec<Option<Vec<u32>>> = ws_ops
        .iter()
        .zip(&starts)
        .map(|(op, st)| {
            st.as_ref().ok()?;
            if op.start_ids.is_some() {
                return op
                    .actual
                    .as_ref()
                    .map(|a| a.iter().skip(1).copied().collect());
            }
            let (warps, most) = op.partition_warps(&ws_ops);
            warp_group_registers(
                op.num_warps,
                op.lanes,
                &warps,
                op.requested.as_deref()?,
                most,
                op.maxnreg,
            )
        })
        .collect();
    for (op, w) in file.converts.iter_mut().zip(&op_ws) {
        let (Some(ws), Some(w)) = (op.warp_specialize.as_mut(), w) else {
            continue;
        };
        if let Some(k) = ws.partition() {
            match &starts[*w] {
                Ok(s) => ws.first_warp = s.get(k).copied(),
                Err(why) => ws.first_warp_unknown = Some(why.clone()),
            }
            ws.registers = registers[*w].as_ref().and_then(|r| r.get(k).copied());
        }
    }
    Ok(file)
}

/// One `ttg.warp_specialize` op as [`parse_ttgir`] reads it, for the
/// partitions' first warps ([`warp_group_start_ids`]).
struct WsOp {
    /// The line the op starts on.
    line: usize,
    /// The ordinal of its module in the file.
    module: usize,
    /// The module's `ttg.num-warps`: the default group's warps.
    num_warps: u32,
    /// `warpGroupStartIds = array<i32: ...>` of its attributes, where the
    /// TTGIR was printed after Triton's warp-group allocation: `Some(None)`
    /// where the attribute is there but its values do not parse.
    start_ids: Option<Option<Vec<u32>>>,
    /// Its partitions' `(N of partitionN, num_warps)`, in the file's order.
    partitions: Vec<(usize, u32)>,
    /// `requestedRegisters = array<i32: ...>` of its attributes, one per
    /// partition, where it parses.
    requested: Option<Vec<u32>>,
    /// `actualRegisters = array<i32: ...>`, where the TTGIR was printed
    /// after Triton's allocation set them: the default group's, then one
    /// per partition.
    actual: Option<Vec<u32>>,
    /// The module's lanes per warp and `ttg.maxnreg`.
    lanes: u32,
    maxnreg: Option<u32>,
}

impl WsOp {
    /// Its partitions' warps, and the most partition warps of any op of its
    /// module (`ops`): what Triton's allocation pads every op of the module
    /// to ([`warp_group_start_ids`]).
    fn partition_warps(&self, ops: &[WsOp]) -> (Vec<u32>, u32) {
        let most = ops
            .iter()
            .filter(|o| o.module == self.module)
            .map(|o| o.partitions.iter().map(|p| p.1).sum::<u32>())
            .max()
            .unwrap_or(0);
        (self.partitions.iter().map(|p| p.1).collect(), most)
    }
}

/// The values of `key = array<i32: a, b, ...>` in `l`, where it holds one
/// that parses.
fn i32_array(l: &str, key: &str) -> Option<Vec<u32>> {
    let i = l.find(key)?;
    let rest = l[i + key.len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let rest = rest.strip_prefix("array<i32")?.trim_start();
    let body = rest.strip_prefix(':').map(str::trim_start).unwrap_or(rest);
    let end = body.find('>')?;
    body[..end]
        .split(',')
        .map(|x| x.trim())
        .filter(|x| !x.is_empty())
        .map(|x| x.parse::<u32>().ok())
        .collect()
}

/// Where one `convert_layout` is: its raw line, number, trimmed text, the
/// op keyword's offset in it, and the enclosing function and its comment.
struct OpAt<'a> {
    raw: &'a str,
    line: usize,
    l: &'a str,
    p: usize,
    func: &'a str,
    doc: &'a str,
}

/// A `module attributes {...}` line: warps, CTAs, lanes and target.
///
/// Errors: a warp or CTA count out of range, a key that is not an integer.
fn parse_module(raw: &str, line: usize, l: &str) -> Result<Module, ParseError> {
    let nw_key = if l.contains("triton_gpu.num-warps") {
        "triton_gpu.num-warps"
    } else {
        "ttg.num-warps"
    };
    let num_warps = module_int(raw, line, l, nw_key)?;
    if let Some(nw) = num_warps {
        if nw == 0 || nw > MAX_WARPS {
            let k = l.find(nw_key).expect("key found");
            return err_at(
                span_in(raw, line, &l[k..k + nw_key.len()]),
                format!(
                    "\"{nw_key}\" = {nw}: a CTA holds 1 to {MAX_WARPS} warps (at most 1024 threads)"
                ),
            );
        }
    }
    let nc_key = if l.contains("triton_gpu.num-ctas") {
        "triton_gpu.num-ctas"
    } else {
        "ttg.num-ctas"
    };
    let num_ctas = module_int(raw, line, l, nc_key)?.unwrap_or(1);
    if num_ctas == 0 || num_ctas > MAX_CTAS || !num_ctas.is_power_of_two() {
        let k = l.find(nc_key).expect("key found");
        return err_at(
            span_in(raw, line, &l[k..k + nc_key.len()]),
            format!(
                "\"{nc_key}\" = {num_ctas}: a cluster holds 1, 2, 4, 8 or {MAX_CTAS} CTAs (a power of two, at most {MAX_CTAS}: sm_90's largest cluster)"
            ),
        );
    }
    let lanes = module_int(raw, line, l, "ttg.threads-per-warp")?
        .or(module_int(raw, line, l, "triton_gpu.threads-per-warp")?)
        .unwrap_or(32);
    let target = module_str(l, "ttg.target").or_else(|| module_str(l, "triton_gpu.target"));
    let maxnreg = module_int(raw, line, l, "ttg.maxnreg").ok().flatten();
    Ok(Module {
        num_warps,
        num_ctas,
        lanes,
        maxnreg,
        target,
    })
}

/// One `convert_layout` line, read in the module `module` (`None`: outside
/// any module).
///
/// Errors: the op's text, types or layouts cannot be read, or its module
/// is not one warpforge serves ([`module_refusal`]).
fn parse_op(
    ctx: &Ctx,
    aliases: &HashMap<String, AliasDef>,
    at: &OpAt,
    module: Option<&Module>,
) -> Result<ConvertOp, ParseError> {
    let OpAt {
        raw,
        line,
        l,
        p,
        func,
        doc,
    } = *at;
    let rest = &l[p..];
    let op_at = span_in(raw, line, &rest[..rest.find(' ').unwrap_or(rest.len())]);
    let kw = if rest.starts_with("ttg.") {
        "ttg.convert_layout"
    } else {
        "triton_gpu.convert_layout"
    };
    let more = &rest[kw.len()..];
    if let Some((q, k)) = ["ttg.convert_layout", "triton_gpu.convert_layout"]
        .iter()
        .filter_map(|k| more.find(k).map(|q| (q, k.len())))
        .min()
    {
        let second = &more[q..q + k];
        return err_at(
            span_in(raw, line, second),
            "a second convert_layout on one line (warpforge reads one op per line; put each on its own line)",
        );
    }
    let colon = rest.find(" : ").ok_or_else(|| ParseError {
        line,
        col: op_at.col,
        len: op_at.len,
        msg: "convert_layout without a type (` : tensor<...> -> tensor<...>`)".into(),
    })?;
    let types = &rest[colon + 3..];
    let s0 = types.find("tensor<").ok_or_else(|| ParseError {
        line,
        col: op_at.col,
        len: op_at.len,
        msg: "convert_layout: expected a tensor source type".into(),
    })?;
    let e0 = tensor_end(types, s0).ok_or_else(|| {
        let at = span_in(raw, line, &types[s0..]);
        ParseError {
            line,
            col: at.col,
            len: at.len,
            msg: "convert_layout: unbalanced `<` in the source type".into(),
        }
    })?;
    let after = &types[e0..];
    let arrow = after.find("->").ok_or_else(|| {
        let at = span_in(raw, line, after);
        ParseError {
            line,
            col: at.col,
            len: at.len.max(1),
            msg: "convert_layout: expected `->` after the source type".into(),
        }
    })?;
    if !after[..arrow].trim().is_empty() {
        return err_at(
            span_in(raw, line, after[..arrow].trim()),
            format!(
                "convert_layout: unexpected `{}` between the source type and `->`",
                after[..arrow].trim()
            ),
        );
    }
    let after = &after[arrow + 2..];
    let s1 = after.find("tensor<").ok_or_else(|| ParseError {
        line,
        col: op_at.col,
        len: op_at.len,
        msg: "convert_layout: expected a tensor result type".into(),
    })?;
    let e1 = tensor_end(after, s1).ok_or_else(|| {
        let at = span_in(raw, line, &after[s1..]);
        ParseError {
            line,
            col: at.col,
            len: at.len,
            msg: "convert_layout: unbalanced `<` in the result type".into(),
        }
    })?;
    let tail = after[e1..].trim();
    if !(tail.is_empty() || tail.starts_with("loc(")) {
        return err_at(
            span_in(raw, line, tail),
            format!("convert_layout: unexpected `{tail}` after the result type"),
        );
    }
    let (shape, elem, src_t) = split_tensor_type(raw, &types[s0..e0], line)?;
    let (shape2, elem2, dst_t) = split_tensor_type(raw, &after[s1..e1], line)?;
    if shape != shape2 {
        return err_at(
            op_at,
            format!("convert_layout changes the shape: {shape:?} -> {shape2:?}"),
        );
    }
    if elem != elem2 {
        return err_at(
            op_at,
            format!(
                "convert_layout changes the element type: {} -> {}",
                elem.name, elem2.name
            ),
        );
    }
    let Some(m) = module else {
        return err_at(
            op_at,
            "convert_layout outside a module with \"ttg.num-warps\"",
        );
    };
    if let Some(why) = module_refusal(m) {
        return err_at(op_at, why);
    }
    let Some(nw) = m.num_warps else {
        return err_at(
            op_at,
            "convert_layout outside a module with \"ttg.num-warps\"",
        );
    };
    let src_at = span_in(raw, line, src_t);
    let dst_at = span_in(raw, line, dst_t);
    let mut sl = Lexer::new(src_t, line, src_at.col.saturating_sub(1));
    let sv = sl.value()?;
    sl.end("the encoding of the source tensor type")?;
    let mut dl = Lexer::new(dst_t, line, dst_at.col.saturating_sub(1));
    let dv = dl.value()?;
    dl.end("the encoding of the result tensor type")?;
    let src = ctx.encoding(&sv, 0)?;
    let dst = ctx.encoding(&dv, 0)?;
    let mut budget = MAX_EXPANDED;
    let src_text = expand_text(src_t, aliases, 0, &mut budget).or_else(|m| err_at(src_at, m))?;
    let dst_text = expand_text(dst_t, aliases, 0, &mut budget).or_else(|m| err_at(dst_at, m))?;
    Ok(ConvertOp {
        name: format!("{func}:{line}"),
        line,
        func: func.to_string(),
        shape,
        elem,
        src,
        dst,
        src_text,
        dst_text,
        src_at,
        dst_at,
        num_warps: nw,
        num_ctas: m.num_ctas,
        lanes: m.lanes,
        doc: doc.to_string(),
        target: m.target.clone(),
        warp_specialize: None,
    })
}

/// Where the attribute field `field` is written for one side of a
/// conversion (`src_at`/`dst_at` of a [`ConvertOp`]) in `text` (the file,
/// or the attribute text itself for `--src/--dst`): the `field` key in the
/// attribute at `at`, or in an alias it refers to (transitively). `None`
/// when it cannot be found.
pub fn locate_field(text: &str, at: Span, field: &str) -> Option<Span> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut todo = vec![at];
    let mut seen = 0;
    while let Some(s) = todo.pop() {
        seen += 1;
        if seen > 64 || s.line == 0 || s.col == 0 {
            continue;
        }
        let raw = lines.get(s.line - 1)?;
        let start = (s.col - 1).min(raw.len());
        let end = if s.len > 0 {
            (start + s.len).min(raw.len())
        } else {
            raw.len()
        };
        let seg = raw.get(start..end)?;
        let b = seg.as_bytes();
        let mut i = 0;
        while let Some(k) = seg[i..].find(field) {
            let p = i + k;
            let before_ok = p == 0 || matches!(b[p - 1], b'{' | b',' | b' ' | b'"');
            let after = seg[p + field.len()..].trim_start_matches('"').trim_start();
            if before_ok && after.starts_with('=') {
                return Some(Span {
                    line: s.line,
                    col: start + p + 1,
                    len: field.len(),
                });
            }
            i = p + field.len();
        }
        // aliases referenced here: look in their definitions
        for (j, _) in seg.match_indices('#') {
            let name: String = seg[j + 1..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.is_empty() || seg[j + 1 + name.len()..].starts_with('.') {
                continue;
            }
            for (n, l) in lines.iter().enumerate() {
                let t = l.trim_start();
                if let Some(r) = t
                    .strip_prefix('#')
                    .and_then(|r| r.strip_prefix(name.as_str()))
                {
                    if let Some(v) = r.strip_prefix(" = ") {
                        let v = v.trim();
                        todo.push(span_in(l, n + 1, v));
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    /// The file's error, or the first conversion's that failed.
    fn first_error(t: &str) -> ParseError {
        match parse_ttgir(t) {
            Err(e) => e,
            Ok(f) => f.failed.first().expect("an error").error.clone(),
        }
    }

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
        let e = parse_attribute("#ttg.amd_foo<{version = 3}>").unwrap_err();
        assert!(e.msg.contains("unsupported encoding"), "{e}");
        let e = parse_attribute("#ttg.amd_mfma<{versionMajor = 3}>").unwrap_err();
        assert!(
            e.msg.contains("unknown attribute key `versionMajor`"),
            "{e}"
        );
        let e = parse_attribute(
            "#ttg.amd_wmma<{version = 2, isTransposed = true, warpsPerCTA = [2, 2]}>",
        )
        .unwrap_err();
        assert!(
            e.msg.contains("unknown attribute key `isTransposed`"),
            "{e}"
        );
        let e = parse_attribute("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = 1}>").unwrap_err();
        assert!(
            e.msg.contains("`isTransposed` must be `true` or `false`"),
            "{e}"
        );
        let e = parse_attribute(
            "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], isTransposed = true}>",
        )
        .unwrap_err();
        assert!(e.msg.contains("missing `instrShape`"), "{e}");
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

    /// Issue 47: a file that ends inside a block (a truncated module or
    /// function) or has a stray `}` is an error at that brace; braces in
    /// strings and comments do not count.
    #[test]
    fn unpaired_braces_are_errors_at_the_brace() {
        let op = "    %0 = ttg.convert_layout %x : tensor<16x16xf16, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>> -> tensor<16x16xf16, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>>\n";
        let head =
            "module attributes {\"ttg.num-warps\" = 1 : i32, s = \"{\"} {\n  tt.func @f() { // {\n";
        let whole = format!("{head}{op}  }}\n}}\n");
        assert_eq!(parse_ttgir(&whole).unwrap().converts.len(), 1);
        // the module's `}` missing: its `{` (line 1, after the attributes) is named
        let e = parse_ttgir(&format!("{head}{op}  }}\n")).unwrap_err();
        assert_eq!((e.line, e.col), (1, head.find("} {").unwrap() + 3), "{e:?}");
        assert!(e.msg.contains("never closed"), "{}", e.msg);
        // both missing: the function's, inside one enclosing block
        let e = parse_ttgir(&format!("{head}{op}")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.msg.contains("1 enclosing"), "{}", e.msg);
        // one `}` too many
        let e = parse_ttgir(&format!("{whole}}}\n")).unwrap_err();
        assert_eq!((e.line, e.col), (6, 1));
        assert!(e.msg.contains("closes nothing"), "{}", e.msg);
    }

    #[test]
    fn file_errors_carry_lines() {
        let t = "module attributes {\"ttg.num-warps\" = 1 : i32} {\n  %0 = ttg.convert_layout %x : tensor<16x8xi8, #nope> -> tensor<16x8xi8, #nope>\n}";
        let e = first_error(t);
        assert_eq!(e.line, 2);
        assert!(e.msg.contains("#nope"));
        let t = "module attributes {\"ttg.num-warps\" = 1 : i32} {\n\n  %0 = ttg.convert_layout %x : tensor<16x8xi8, #a> -> tensor<8x16xi8, #a>\n}";
        let e = first_error(t);
        assert_eq!(e.line, 3);
        assert!(e.msg.contains("changes the shape"));
    }

    const B: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>";

    fn file(op: &str) -> String {
        format!("#b = {B}\nmodule attributes {{\"ttg.num-warps\" = 1 : i32}} {{\n  tt.func @f() {{\n    {op}\n  }}\n}}\n")
    }

    const OP: &str = "%0 = ttg.convert_layout %x : tensor<16x16xi32, #b> -> tensor<16x16xi32, #b>";

    #[test]
    fn errors_carry_columns_and_lengths() {
        let e = parse_attribute("#ttg.blocked<{sizePerThread = [1, 4], bogus = 3}>").unwrap_err();
        assert_eq!((e.line, e.col, e.len), (1, 39, 5), "{e}");
        let e = first_error(&file(&OP.replace("#b>", "#c>")));
        assert_eq!((e.line, e.col, e.len), (4, 52, 2), "{e}");
        assert!(e
            .to_string()
            .starts_with("line 4, column 52: unknown attribute alias `#c`"));
    }

    #[test]
    fn nesting_is_bounded() {
        for deep in [
            "[".repeat(100_000),
            "#ttg.slice<{dim = 0, parent = ".repeat(10_000),
        ] {
            let e = parse_attribute(&deep).unwrap_err();
            assert!(e.msg.contains("nests deeper"), "{e}");
        }
        // alias chains and cycles
        let t = "#a = #b\n#b = #a\nmodule attributes {\"ttg.num-warps\" = 1 : i32} {\n  %0 = ttg.convert_layout %x : tensor<16x16xi32, #a> -> tensor<16x16xi32, #a>\n}\n";
        assert!(first_error(t).msg.contains("nest too deeply"));
    }

    #[test]
    fn one_bad_op_leaves_the_others_and_modules_say_their_target() {
        let good = OP;
        let bad = OP.replace("#b>", "#c>");
        let module = |attrs: &str, func: &str| {
            format!("module attributes {{\"ttg.num-warps\" = 1 : i32{attrs}}} {{\n  tt.func @{func}() {{\n    {good}\n  }}\n}}\n")
        };
        let t = format!(
            "#b = {B}\nmodule attributes {{\"ttg.num-warps\" = 1 : i32, ttg.target = \"cuda:80\"}} {{\n  tt.func @f() {{\n    {good}\n    {bad}\n    {good}\n  }}\n}}\n{}{}{}{}",
            module(", \"ttg.threads-per-warp\" = 64 : i32, ttg.target = \"hip:gfx942\"", "g"),
            module(", \"ttg.threads-per-warp\" = 32 : i32, ttg.target = \"hip:gfx942\"", "h"),
            module(", \"ttg.threads-per-warp\" = 64 : i32, ttg.target = \"hip:gfx906\"", "i"),
            module(", \"ttg.threads-per-warp\" = 64 : i32", "j"),
        );
        let f = parse_ttgir(&t).unwrap();
        let got: Vec<(usize, Option<&str>, u32)> = f
            .converts
            .iter()
            .map(|o| (o.line, o.target.as_deref(), o.lanes))
            .collect();
        // the gfx942 wave64 module is served, on 64 lanes
        assert_eq!(
            got,
            [
                (4, Some("cuda:80"), 32),
                (6, Some("cuda:80"), 32),
                (11, Some("hip:gfx942"), 64)
            ]
        );
        assert_eq!(f.converts[2].amd_arch(), Some(AmdArch::Gfx942));
        assert_eq!(f.converts[0].amd_arch(), None);
        let failed: Vec<(&str, &str)> = f
            .failed
            .iter()
            .map(|x| (x.name.as_str(), x.error.msg.as_str()))
            .collect();
        assert_eq!(failed.len(), 4, "{failed:?}");
        assert_eq!(f.failed[0].line, 5);
        assert!(failed[0].1.contains("unknown attribute alias `#c`"));
        // gfx942 on 32 lanes, an AMD target warpforge does not plan for, and
        // a wave64 module without a target: each refused, by name
        assert_eq!(failed[1].0, "h:16");
        assert!(failed[1].1.contains("= 32 on `hip:gfx942`") && failed[1].1.contains("64 lanes"));
        assert_eq!(failed[2].0, "i:21");
        assert!(
            failed[2].1.contains("AMD target `hip:gfx906`")
                && failed[2].1.contains("hip:gfx942")
                && failed[2].1.contains("hip:gfx90a")
        );
        assert_eq!(failed[3].0, "j:26");
        assert!(failed[3].1.contains("= 64") && failed[3].1.contains("without a `ttg.target`"));
    }

    #[test]
    fn duplicates_trailing_junk_and_two_ops_are_errors() {
        let e = parse_attribute(&B.replace("order", "warpsPerCTA = [1, 1], order")).unwrap_err();
        assert!(e.msg.contains("`warpsPerCTA` is given twice"), "{e}");
        let e = parse_attribute(&format!("{B} }}")).unwrap_err();
        assert!(e.msg.contains("unexpected `}` after the attribute"), "{e}");
        let e = first_error(&file(&OP.replace("#b>", "#b junk>")));
        assert!(
            e.msg
                .contains("after the encoding of the source tensor type"),
            "{e}"
        );
        let e = first_error(&file(&format!("{OP} {OP}")));
        assert!(e.msg.contains("second convert_layout"), "{e}");
        // an SSA name that mentions convert_layout is not a second op
        let ok = OP.replace("%x", "%convert_layout_3");
        assert_eq!(parse_ttgir(&file(&ok)).unwrap().converts.len(), 1);
        let e = first_error(&file(OP).replace("= 1 : i32", "= 64 : i32"));
        assert!(e.msg.contains("1 to 32 warps"), "{e}");
        let e = parse_attribute(&B.replace("[1, 4]", "[1, 4294967300]")).unwrap_err();
        assert!(e.msg.contains("not a non-negative 32-bit integer"), "{e}");
    }

    #[test]
    fn a_bom_is_skipped_and_fields_are_found() {
        let t = format!("\u{feff}{}", file(OP));
        let f = parse_ttgir(&t).unwrap();
        assert_eq!(f.converts.len(), 1);
        let op = &f.converts[0];
        // the alias `#b` on line 4 leads to its definition on line 1
        let at = locate_field(&t, op.src_at, "order").unwrap();
        assert_eq!((at.line, at.len), (1, 5));
        assert!(parse_attribute(&format!("\u{feff}{B}")).is_ok());
    }
}
