//! The fuzz targets of warpforge's parsers, shared by the fuzzer
//! (`src/main.rs`, `make fuzz`) and the regression tests over the crashes it
//! kept (`tests/regressions.rs`, inputs in `crashes/`).
//!
//! Each target takes text and runs what user input reaches: the parser and,
//! for what parses, the encoding -> linear layout conversion (the
//! encodings' checks), on bounded shapes. A target must never panic.
//!
//! Targets: a TTGIR file (`--ttgir`), one TTGIR attribute, a shape
//! (`--shape`), and the layout input formats of `synth::input`
//! (`--src/--dst/--attr`): `LinearLayout::toString` text, JSON bases, Gluon
//! constructors, each parsed as that format, and any text through the
//! auto-detecting `parse_layout`, as the CLI reads a layout flag.
//!
//! Besides "no panic", layouts that build are checked the way the CLI uses
//! them (each check panics, so a failure is a crash the fuzzer keeps):
//! `warpforge layout` prints the layout's `toString` text, which must read
//! back as the same layout, and a layout read from another format is shown
//! and emitted as its TTGIR attribute text, which must parse back to the
//! same encoding.

use std::path::Path;
use synth::encoding::Encoding;
use synth::input::{parse_as, parse_layout, ttgir_text, warps_of, Format, LayoutText};
use synth::layout::{LinearLayout, BLOCK, LANE, REGISTER, WARP};
use synth::parse::{parse_attribute, parse_shape, parse_ttgir};

/// Which parser an input is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, arbitrary::Arbitrary)]
pub enum Target {
    /// A whole TTGIR file (`--ttgir`).
    Ttgir,
    /// One attribute (`--src`, `--dst`, `--attr`).
    Attribute,
    /// A tensor shape (`--shape`).
    Shape,
    /// Triton's `LinearLayout::toString` text, parsed as that format.
    ToString,
    /// JSON bases, parsed as that format.
    Json,
    /// A Gluon constructor call, parsed as that format.
    Gluon,
    /// Any layout text, format detected (`synth::input::parse_layout`), as a
    /// layout flag (`--src`, `--dst`, `--attr`) reads it.
    Layout,
    /// A CuTe shared-memory layout (`Sw<B,M,S> o OFFSET o Shape:Stride`, or a
    /// plain `Shape:Stride`), as `layout --smem` / `draw --smem` read it
    /// (`synth::smem::SmemLayout`), evaluated at every element width.
    Smem,
}

impl Target {
    /// All targets, in a fixed order (`target as usize` indexes it).
    pub const ALL: [Target; 8] = [
        Target::Ttgir,
        Target::Attribute,
        Target::Shape,
        Target::ToString,
        Target::Json,
        Target::Gluon,
        Target::Layout,
        Target::Smem,
    ];

    /// The name used in crash file names (`<name>-<hash>.txt`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Ttgir => "ttgir",
            Target::Attribute => "attribute",
            Target::Shape => "shape",
            Target::ToString => "tostring",
            Target::Json => "json",
            Target::Gluon => "gluon",
            Target::Layout => "layout",
            Target::Smem => "smem",
        }
    }

    /// The target a crash (or seed) file's name `<name>-...` is for.
    pub fn from_file_name(n: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| {
            n.strip_prefix(t.name())
                .is_some_and(|rest| rest.starts_with('-'))
        })
    }

    /// The input format a layout-format target parses as.
    pub fn format(self) -> Option<Format> {
        match self {
            Target::ToString => Some(Format::ToString),
            Target::Json => Some(Format::Json),
            Target::Gluon => Some(Format::Gluon),
            _ => None,
        }
    }
}

/// Largest tensor (elements) turned into a layout: bigger shapes are the
/// planner's business, not the parsers'.
const MAX_ELEMS: i64 = 1 << 20;

/// The CLI's warps per CTA when neither `--warps` nor the layout says.
const DEFAULT_WARPS: u32 = 4;

/// Shapes tried for layouts that carry none (the CLI takes `--shape`).
const SHAPES: [&[i64]; 4] = [&[16, 16], &[128, 64], &[64], &[2, 32, 8]];

fn small(shape: &[i64]) -> bool {
    let mut n: i64 = 1;
    for &d in shape {
        if d <= 0 {
            return false;
        }
        n = match n.checked_mul(d) {
            Some(v) if v <= MAX_ELEMS => v,
            _ => return false,
        };
    }
    shape.len() <= 4
}

/// A layout's bases per in dim (`register, lane, warp, block`, absent dims
/// empty) and its out dims: what two layouts must agree on to be the same.
/// Bases per in dim, and the out dims with their sizes.
type Bases = (Vec<Vec<Vec<i32>>>, Vec<(String, i32)>);

fn bases_of(l: &LinearLayout) -> Bases {
    let ins = [REGISTER, LANE, WARP, BLOCK]
        .iter()
        .map(|d| {
            l.in_dims()
                .iter()
                .find(|x| x.name == *d)
                .map(|x| x.bases.clone())
                .unwrap_or_default()
        })
        .collect();
    (ins, l.out_dims().to_vec())
}

/// Do `a` and `b` map every hardware slot to the same element (in dims
/// absent from one are size-1 dims of the other)?
pub fn same_layout(a: &LinearLayout, b: &LinearLayout) -> bool {
    bases_of(a) == bases_of(b)
}

/// `warpforge layout` prints `l` as `toString` text: it must read back as
/// `l` (the text is one of the formats a layout flag takes).
fn check_to_string_round_trip(l: &LinearLayout, warps: u32) {
    // only layouts over the four in dims and dim0.. print as an input
    if l.in_dims()
        .iter()
        .any(|d| ![REGISTER, LANE, WARP, BLOCK].contains(&d.name.as_str()))
    {
        return;
    }
    let shown = l.to_string();
    let text = shown.trim_start_matches('\n');
    let back = match parse_as(Format::ToString, text) {
        Ok(b) => b,
        Err(e) => panic!("toString output does not read back: {e}\n{text}"),
    };
    let shape = back.shape.clone().expect("toString carries a shape");
    // on the layout's own lanes (64 for an AMD wave)
    let lanes = 1u32 << l.in_dim_size_log2(LANE).min(31);
    let got = match back.encoding.to_linear_layout_lanes(&shape, warps, lanes) {
        Ok(g) => g,
        Err(e) => panic!("toString output reads back but does not build: {e}\n{text}"),
    };
    assert!(
        bases_of(&got) == bases_of(l),
        "toString output reads back as another layout:\n{text}\n-> {}",
        got
    );
}

/// A layout read from a format other than TTGIR is shown and emitted as
/// `t.ttgir`: that text must parse back to the same encoding.
fn check_ttgir_round_trip(e: &Encoding, ttgir: &str) {
    match parse_attribute(ttgir) {
        Ok(back) => assert!(
            back == *e,
            "TTGIR text of a layout parses as another encoding: {ttgir}\n{e:?}\n-> {back:?}"
        ),
        Err(err) => panic!(
            "TTGIR text of a layout does not parse: {ttgir}: {}",
            err.msg
        ),
    }
}

/// What the CLI does with a layout flag's text once read: the shape (the
/// layout's own, else `--shape`: a few bounded ones), the warps (`--warps`
/// when given, else the layout's, else 4), then the linear layout, printed
/// (`warpforge layout`). Returns how many layouts were built.
fn build(t: &LayoutText, flag_warps: u32) -> usize {
    let shapes: Vec<&[i64]> = match &t.shape {
        Some(s) => vec![s.as_slice()],
        None => SHAPES.to_vec(),
    };
    let own = t.num_warps.unwrap_or(DEFAULT_WARPS);
    let mut built = 0;
    let mut ttgir_checked = false;
    for shape in shapes {
        if !small(shape) {
            continue;
        }
        let ws: &[u32] = if own == flag_warps {
            &[own]
        } else {
            &[flag_warps, own]
        };
        for &w in ws {
            if let Ok(l) = t.encoding.to_linear_layout(shape, w) {
                built += 1;
                check_to_string_round_trip(&l, w);
                // CuTe layouts and PTX fragments have no TTGIR spelling (their
                // bases need the shape): nothing to round-trip
                let spelled = !matches!(t.format, Format::Ttgir | Format::Cute | Format::Ptx);
                if spelled && !ttgir_checked {
                    check_ttgir_round_trip(&t.encoding, &t.ttgir);
                    ttgir_checked = true;
                }
            }
        }
    }
    built
}

/// Run `target` on `text`. `warps` plays `--warps` (layout targets also
/// run without it). Returns how many layouts were built (for the fuzzer's
/// statistics); panics are the bugs.
pub fn exec(target: Target, text: &str, warps: u32) -> usize {
    let mut built = 0;
    match target {
        Target::Ttgir => {
            if let Ok(f) = parse_ttgir(text) {
                for op in f.converts.iter().take(4) {
                    if small(&op.shape) {
                        built +=
                            usize::from(op.src.to_linear_layout(&op.shape, op.num_warps).is_ok());
                        built +=
                            usize::from(op.dst.to_linear_layout(&op.shape, op.num_warps).is_ok());
                    }
                }
            }
        }
        Target::Attribute => {
            if let Ok(e) = parse_attribute(text) {
                // `--warps`, and the warps the attribute fixes (what the
                // CLI takes when --warps is not given)
                let own = warps_of(&e).unwrap_or(DEFAULT_WARPS);
                let ws: &[u32] = if own == warps { &[own] } else { &[warps, own] };
                let mut checked = false;
                for shape in SHAPES {
                    for &w in ws {
                        // an AMD layout on its own lanes, as `layout` reads it
                        let got = if e.is_amd() {
                            e.to_linear_layout_lanes(shape, w, e.lanes())
                        } else {
                            e.to_linear_layout(shape, w)
                        };
                        if let Ok(l) = got {
                            built += 1;
                            check_to_string_round_trip(&l, w);
                            if !checked {
                                check_ttgir_round_trip(&e, &ttgir_text(&e));
                                checked = true;
                            }
                        }
                    }
                }
            }
        }
        Target::Shape => {
            if let Ok(s) = parse_shape(text) {
                built += usize::from(!s.is_empty());
            }
        }
        Target::ToString | Target::Json | Target::Gluon => {
            let f = target.format().expect("a layout format");
            if let Ok(t) = parse_as(f, text) {
                assert_eq!(t.format, f);
                built += build(&t, warps);
            }
        }
        Target::Layout => {
            // as `layout_args::read`: a byte-order mark skipped, a TTGIR
            // attribute's error located for its underline; `@PATH` would
            // read a file, which the fuzzer does not
            let body = text.strip_prefix('\u{feff}').unwrap_or(text);
            if body.trim_start().starts_with('#') {
                if let Err(e) = parse_attribute(text) {
                    let _ = e.span();
                }
            }
            if body.trim().starts_with('@') {
                return 0;
            }
            match parse_layout(body) {
                Ok(t) => built += build(&t, warps),
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
        Target::Smem => match synth::smem::SmemLayout::parse(text) {
            Ok(l) if l.size() <= MAX_ELEMS as u64 => {
                let _ = synth::smem::SmemLayout::claims(text);
                let tile = [l.size() as i64];
                for bits in [8u32, 16, 32, 64] {
                    let _ = l.elem_bits(Some(&bits.to_string()));
                    if let Ok(offs) = l.offsets(bits) {
                        built += 1;
                        let _ = l.check_tile(&tile);
                        let _ = l.check_tile(&l.modes);
                        let _ = l.offset_bases(&tile, &offs);
                    }
                }
                let _ = l.elem_bits(None);
            }
            Ok(_) => {}
            Err(e) => {
                let _ = e.to_string();
            }
        },
    }
    built
}

// ---------------------------------------------------------------------------
// Seeds: real layouts rendered in every input format.

/// A layout of the corpus: its encoding, attribute text, the conversion's
/// shape and warps.
#[derive(Clone, Debug)]
pub struct CorpusLayout {
    pub encoding: Encoding,
    pub attr: String,
    pub shape: Vec<i64>,
    pub warps: u32,
}

/// The TTGIR files of `corpus/`, `corpus/ttgir/` and `tests/data/` under
/// `root` (`.ttgir`, `.mlir`), sorted; missing folders are skipped.
pub fn corpus_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in ["corpus", "corpus/ttgir", "tests/data"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            for e in rd.flatten() {
                let p = e.path();
                if matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some("ttgir" | "mlir")
                ) {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    files
}

/// Every distinct (layout, shape, warps) of the conversions in
/// `corpus/pairs.mlir`, `corpus/ttgir/*.ttgir` and `tests/data/*.mlir`
/// under `root`, in a fixed order.
pub fn corpus_layouts(root: &Path) -> Vec<CorpusLayout> {
    let files = corpus_files(root);
    let mut out: Vec<CorpusLayout> = Vec::new();
    for p in files {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let Ok(f) = parse_ttgir(&text) else {
            continue;
        };
        for op in &f.converts {
            for (e, attr) in [(&op.src, &op.src_text), (&op.dst, &op.dst_text)] {
                let c = CorpusLayout {
                    encoding: e.clone(),
                    attr: attr.clone(),
                    shape: op.shape.clone(),
                    warps: op.num_warps,
                };
                if !out
                    .iter()
                    .any(|o| o.encoding == c.encoding && o.shape == c.shape && o.warps == c.warps)
                {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// `[a, b, ...]`.
pub fn ints<T: ToString>(v: &[T]) -> String {
    format!(
        "[{}]",
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `[[a, b], ...]`.
pub fn bases_text(v: &[Vec<i32>]) -> String {
    format!(
        "[{}]",
        v.iter().map(|b| ints(b)).collect::<Vec<_>>().join(", ")
    )
}

/// Per-dim sizes that hold every basis value (smallest power of two above
/// them): the shape a nested `DistributedLinearLayout` is written with.
fn inferred_shape(dims: &[&Vec<Vec<i32>>]) -> Vec<i64> {
    let rank = dims.iter().flat_map(|d| d.iter()).map(|b| b.len()).max();
    (0..rank.unwrap_or(1))
        .map(|d| {
            let m = dims
                .iter()
                .flat_map(|x| x.iter())
                .map(|b| b.get(d).copied().unwrap_or(0).max(0) as i64)
                .fold(0, |a, v| a | v);
            if m == 0 {
                1
            } else {
                1i64 << (64 - (m as u64).leading_zeros())
            }
        })
        .collect()
}

/// A Gluon call `prefix + class(args)`: keyword or positional arguments.
fn call(prefix: &str, class: &str, args: &[(&str, String)], kw: bool) -> String {
    let a: Vec<String> = args
        .iter()
        .map(|(k, v)| if kw { format!("{k}={v}") } else { v.clone() })
        .collect();
    format!("{prefix}{class}({})", a.join(", "))
}

/// `e` as a Gluon constructor call (`shape` for `DistributedLinearLayout`;
/// nested linear parents get a shape that holds their bases).
pub fn gluon_text(e: &Encoding, shape: Option<&[i64]>, kw: bool, prefix: &str) -> String {
    gluon_with(e, shape, &|class, args| call(prefix, class, &args, kw))
}

/// Writes one Gluon call: class name, `(parameter, value)` arguments.
pub type CallWriter<'a> = dyn Fn(&str, Vec<(&'static str, String)>) -> String + 'a;

/// `e` as Gluon constructor calls, each written by `call(class, [(parameter,
/// value), ...])` (parameters in the constructor's order).
pub fn gluon_with(e: &Encoding, shape: Option<&[i64]>, call: &CallWriter) -> String {
    let cta_args = |args: &mut Vec<(&'static str, String)>,
                    cta: &Option<synth::encoding::CtaLayout>| {
        if let Some(synth::encoding::CtaLayout {
            cga_bases: Some(b), ..
        }) = cta
        {
            let bs: Vec<String> = b
                .iter()
                .map(|v| ints(&v.iter().map(|&x| x as u32).collect::<Vec<_>>()))
                .collect();
            args.push(("cga_layout", format!("[{}]", bs.join(", "))));
        } else if let Some(c) = cta {
            args.push(("ctas_per_cga", ints(&c.ctas_per_cga)));
            args.push(("cta_split_num", ints(&c.cta_split_num)));
            args.push(("cta_order", ints(&c.cta_order)));
        }
    };
    match e {
        Encoding::Blocked {
            size_per_thread,
            threads_per_warp,
            warps_per_cta,
            order,
            cta,
        } => {
            let mut a = vec![
                ("size_per_thread", ints(size_per_thread)),
                ("threads_per_warp", ints(threads_per_warp)),
                ("warps_per_cta", ints(warps_per_cta)),
                ("order", ints(order)),
            ];
            cta_args(&mut a, cta);
            call("BlockedLayout", a)
        }
        Encoding::NvidiaMma {
            version_major,
            version_minor,
            warps_per_cta,
            instr_shape,
            cta,
        } => {
            let mut a = vec![
                ("version", ints(&[*version_major, *version_minor])),
                ("warps_per_cta", ints(warps_per_cta)),
                ("instr_shape", ints(instr_shape)),
            ];
            cta_args(&mut a, cta);
            call("NVMMADistributedLayout", a)
        }
        Encoding::DotOperand {
            op_idx,
            parent,
            k_width,
        } => call(
            "DotOperandLayout",
            vec![
                ("operand_index", op_idx.to_string()),
                ("parent", gluon_with(parent, None, call)),
                ("k_width", k_width.to_string()),
            ],
        ),
        // no Gluon spelling (the generators never make one): its CuTe text
        Encoding::CuteTv { text, .. } | Encoding::PtxFragment { text, .. } => text.clone(),
        // Gluon's amd.AMDMFMALayout / amd.AMDWMMALayout (parameters in
        // their constructors' order)
        Encoding::AmdMfma {
            version,
            warps_per_cta,
            instr_shape,
            is_transposed,
            tiles_per_warp,
            element_bit_width,
            cta,
        } => {
            let mut a = vec![
                ("version", version.to_string()),
                ("instr_shape", ints(instr_shape)),
                (
                    "transposed",
                    if *is_transposed { "True" } else { "False" }.into(),
                ),
                ("warps_per_cta", ints(warps_per_cta)),
                ("element_bitwidth", element_bit_width.to_string()),
            ];
            if !tiles_per_warp.is_empty() {
                a.push(("tiles_per_warp", ints(tiles_per_warp)));
            }
            cta_args(&mut a, cta);
            call("amd.AMDMFMALayout", a)
        }
        Encoding::AmdWmma {
            version,
            is_transposed,
            warps_per_cta,
            tiles_per_warp,
            instr_shape,
            cta,
        } => {
            let mut a = vec![
                ("version", version.to_string()),
                (
                    "transposed",
                    if *is_transposed { "True" } else { "False" }.into(),
                ),
                ("warps_per_cta", ints(warps_per_cta)),
                ("instr_shape", ints(instr_shape)),
            ];
            if !tiles_per_warp.is_empty() {
                a.push(("tiles_per_warp", ints(tiles_per_warp)));
            }
            cta_args(&mut a, cta);
            call("amd.AMDWMMALayout", a)
        }
        Encoding::Slice { dim, parent } => call(
            "SliceLayout",
            vec![
                ("dim", dim.to_string()),
                ("parent", gluon_with(parent, None, call)),
            ],
        ),
        Encoding::Linear {
            register,
            lane,
            warp,
            block,
        } => {
            let sh = match shape {
                Some(s) => s.to_vec(),
                None => inferred_shape(&[register, lane, warp, block]),
            };
            call(
                "DistributedLinearLayout",
                vec![
                    ("reg_bases", bases_text(register)),
                    ("lane_bases", bases_text(lane)),
                    ("warp_bases", bases_text(warp)),
                    ("block_bases", bases_text(block)),
                    ("shape", ints(&sh)),
                ],
            )
        }
    }
}

/// The bases of `l` per in dim (`register, lane, warp, block`).
fn dims_of(l: &LinearLayout) -> [Vec<Vec<i32>>; 4] {
    let (ins, _) = bases_of(l);
    let mut it = ins.into_iter();
    std::array::from_fn(|_| it.next().unwrap_or_default())
}

/// The JSON bases of `l`: Gluon's keys (`reg_bases`, ...) or in-dim names.
pub fn json_text(l: &LinearLayout, gluon_keys: bool, with_shape: bool) -> String {
    let keys = if gluon_keys {
        ["reg_bases", "lane_bases", "warp_bases", "block_bases"]
    } else {
        ["register", "lane", "warp", "block"]
    };
    let d = dims_of(l);
    let mut parts: Vec<String> = keys
        .iter()
        .zip(&d)
        .map(|(k, b)| format!("\"{k}\": {}", bases_text(b)))
        .collect();
    if with_shape {
        let sh: Vec<i32> = l.out_dims().iter().map(|o| o.1).collect();
        parts.push(format!("\"shape\": {}", ints(&sh)));
    }
    format!("{{{}}}", parts.join(", "))
}

/// A corpus layout rendered in every input format: `(target, text)` pairs
/// and the linear layout each must read back as (with `c.shape` where the
/// text carries no shape, and `c.warps`). `None` when the layout does not
/// build.
pub fn renderings(c: &CorpusLayout) -> Option<(LinearLayout, Vec<(Target, String)>)> {
    let l = c.encoding.to_linear_layout(&c.shape, c.warps).ok()?;
    let ts = l.to_string().trim_start_matches('\n').to_string();
    let [reg, lane, warp, block] = dims_of(&l);
    let lin = Encoding::Linear {
        register: reg,
        lane,
        warp,
        block,
    };
    let mut out = vec![
        (Target::ToString, ts),
        (Target::Json, json_text(&l, true, true)),
        (Target::Json, json_text(&l, false, true)),
        (Target::Json, json_text(&l, false, false)),
        (
            Target::Gluon,
            gluon_text(&lin, Some(&c.shape), true, "ttgl."),
        ),
        (Target::Gluon, gluon_text(&lin, Some(&c.shape), false, "")),
        (
            Target::Gluon,
            gluon_text(&c.encoding, Some(&c.shape), true, "ttgl."),
        ),
        (
            Target::Gluon,
            gluon_text(&c.encoding, Some(&c.shape), false, "gl."),
        ),
    ];
    let layout: Vec<(Target, String)> = out
        .iter()
        .map(|(_, t)| (Target::Layout, t.clone()))
        .chain([(Target::Layout, c.attr.clone())])
        .collect();
    out.extend(layout);
    Some((l, out))
}

/// Seeds for the layout-format targets: every corpus layout rendered in
/// every format (deduplicated, in a fixed order).
pub fn layout_seeds(root: &Path) -> Vec<(Target, String)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for c in corpus_layouts(root) {
        if let Some((_, r)) = renderings(&c) {
            for x in r {
                if seen.insert(x.clone()) {
                    out.push(x);
                }
            }
        }
    }
    out
}
