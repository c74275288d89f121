//! `warpforge layout`: the linear layout of one layout, printed as Triton's
//! `LinearLayout::toString` does; with `--smem`, a CuTe shared-memory layout
//! (`Sw<B,M,S> o _0 o Shape:Stride`) and the bank and wavefront analysis of
//! the `--attr` layout's access to it (`synth::smem`).

use super::parse_warps;
use crate::output;
use anyhow::{anyhow, bail, Result};
use clap::Args;
use pipeline::layout_args;
use pipeline::load::{check_side, cli_warps_terms};
use pipeline::WarpsFrom;
use synth::layout::LinearLayout;
use synth::parse::{ConvertOp, ElemType, Span};
use synth::smem::SmemLayout;

#[derive(Args)]
pub(crate) struct LayoutArgs {
    /// The layout: a TTGIR attribute ('#ttg.blocked<{...}>'),
    /// LinearLayout::toString text, JSON bases, a Gluon constructor
    /// ('ttgl.BlockedLayout(...)'), a CuTe thread-value layout
    /// ('((_4,_8),(_2,_2)):((_32,_1),(_16,_8))'), a PTX register fragment
    /// ('ptx:mma.m16n8k16.c.f32'), or @FILE holding any of these.
    /// With --smem: the register layout whose accesses (st/ld.shared
    /// vectors) are analysed.
    #[arg(long, required_unless_present = "smem")]
    attr: Option<String>,
    /// A CuTe shared-memory layout as cute::print writes it, swizzled
    /// ('Sw<3,3,3> o _0 o (_8,_64):(_64,_1)', 'Sw<3,4,3> o
    /// smem_ptr[16b](unset) o ...') or plain ('(_8,_64):(_64,_1)'), or
    /// @FILE: prints it as offset bit -> tensor coordinate and, with --attr,
    /// the wavefronts and bank conflicts of that layout's accesses.
    #[arg(long)]
    smem: Option<String>,
    /// With --smem: the element type (f16, bf16, i8, f32, ...) or its bits
    /// (default: the bits of the layout's smem_ptr[Nb]).
    #[arg(long, requires = "smem")]
    dtype: Option<String>,
    /// With --smem and --attr: bits each thread moves per access (8 to 128;
    /// default: as many consecutive registers as sit at consecutive offsets,
    /// up to 128).
    #[arg(long, requires = "attr", requires = "smem")]
    vector: Option<u32>,
    /// Tensor shape, e.g. 64x32 (default: the shape the layout carries).
    #[arg(long)]
    shape: Option<String>,
    /// Warps per CTA, a power of two up to 32 (default: what the layout
    /// fixes, else 4).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_warps)]
    warps: Option<u32>,
}

pub(crate) fn run(a: LayoutArgs) -> Result<i32> {
    if let Some(smem) = &a.smem {
        let out = smem_report(smem, a.attr.as_deref(), &a)?;
        output::print_all(&out)?;
        return Ok(0);
    }
    let attr = a.attr.as_deref().unwrap_or_default();
    let l = read_attr(attr, a.shape.as_deref(), a.warps, None)?;
    output::print_all(&format!("{}\n", l.to_string().trim_start_matches('\n')))?;
    if let Some(map) = cta_map(&l) {
        // standard error: standard output stays toString text that reads back
        note!("{map}");
    }
    Ok(0)
}

/// `--attr` as a linear layout over `--shape` (or the shape it carries, or
/// `default_shape`), with the errors `layout` gives.
pub(crate) fn read_attr(
    attr: &str,
    shape: Option<&str>,
    warps: Option<u32>,
    default_shape: Option<&[i64]>,
) -> Result<LinearLayout> {
    if SmemLayout::claims(attr) {
        bail!("--attr: a swizzled CuTe layout is a shared-memory layout: give it as --smem (and the register layout that accesses it as --attr)");
    }
    let t = layout_args::read("--attr", attr)?;
    let shape = match (shape, &t.shape, default_shape) {
        (None, None, Some(s)) => s.to_vec(),
        _ => layout_args::shape(shape, &[("--attr", &t)])?,
    };
    let warps_default = WarpsFrom::of(warps, &[("--attr", &t)]);
    let num_warps = layout_args::warps(warps, &[&t]);
    let whole = Span {
        line: 1,
        col: 1,
        len: attr.trim_end().len(),
    };
    // the layout as both sides of a conversion, so that its errors point
    // into --attr as a conversion's would
    let op = ConvertOp {
        name: "layout".into(),
        line: 0,
        func: "layout".into(),
        shape: shape.clone(),
        elem: ElemType::parse("f32").expect("f32 is an element type"),
        src: t.encoding.clone(),
        dst: t.encoding.clone(),
        src_text: t.ttgir.clone(),
        dst_text: t.ttgir.clone(),
        src_at: whole,
        dst_at: whole,
        num_warps,
        // the CTAs the layout itself spans (checked: at most 16)
        num_ctas: u32::try_from(t.encoding.num_ctas()).unwrap_or(u32::MAX),
        lanes: synth::encoding::NVIDIA_LANES,
        doc: String::new(),
        target: None,
        warp_specialize: None,
    };
    check_side(
        "--attr",
        attr,
        ("the", &op.src, op.src_at),
        &op,
        Some((warps_default, WarpsFrom::Layout("--attr"))),
    )?;
    // AMD layouts on their own lanes (64 for amd_mfma); conversions stay
    // 32-lane NVIDIA ones
    let lanes = if t.encoding.is_amd() {
        t.encoding.lanes()
    } else {
        synth::encoding::NVIDIA_LANES
    };
    t.encoding
        .to_linear_layout_lanes(&shape, num_warps, lanes)
        .map_err(|e| anyhow!("--attr: {}", cli_warps_terms(&e.to_string(), warps_default)))
}

/// Read `--smem` (text or @FILE).
pub(crate) fn read_smem(text: &str) -> Result<SmemLayout> {
    let body = match text.trim().strip_prefix('@') {
        Some(path) => synth::input::read_input_file(std::path::Path::new(path.trim()))
            .map_err(|e| anyhow!("--smem: @{e}"))?,
        None => text.to_string(),
    };
    SmemLayout::parse(&body).map_err(|e| {
        let span = Span {
            line: e.pos.line,
            col: e.pos.col,
            len: 1,
        };
        pipeline::SourceError::new("--smem", &body, span, e.to_string(), "here").into()
    })
}

fn dims(s: &[i64]) -> String {
    s.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

/// The text `layout --smem` prints.
fn smem_report(smem: &str, attr: Option<&str>, a: &LayoutArgs) -> Result<String> {
    let s = read_smem(smem)?;
    let bits = s
        .elem_bits(a.dtype.as_deref())
        .map_err(|e| anyhow!("--smem: {e}"))?;
    let offsets = s.offsets(bits).map_err(|e| anyhow!("--smem: {e}"))?;
    let l = match attr {
        Some(t) => Some(read_attr(t, a.shape.as_deref(), a.warps, Some(&s.modes))?),
        None => None,
    };
    let shape: Vec<i64> = match (&l, &a.shape) {
        (Some(l), _) => l.out_dims().iter().map(|d| d.1 as i64).collect(),
        (None, Some(t)) => synth::parse::parse_shape(t).map_err(|e| anyhow!("--shape: {e}"))?,
        (None, None) => s.modes.clone(),
    };
    s.check_tile(&shape).map_err(|e| anyhow!("--smem: {e}"))?;
    let mut out = format!(
        "shared layout: {} over the {} tile of {bits}-bit elements ({} bytes); offset bit -> tensor coordinate:\n",
        s.text,
        dims(&shape),
        s.size() * bits as u64 / 8
    );
    let bases = s.offset_bases(&shape, &offsets);
    for (i, b) in bases.iter().enumerate() {
        let c = match b {
            Some(c) => format!(
                "({})",
                c.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => "no element (padding)".into(),
        };
        out += &format!(
            "{} offset={} -> {c}\n",
            if i == 0 { " -" } else { "  " },
            1u64 << i
        );
    }
    out += &format!(
        "where out dims are: [{}]\n",
        shape
            .iter()
            .enumerate()
            .map(|(i, d)| format!("dim{i} (size {d})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let Some(l) = l else {
        return Ok(out);
    };
    let r = synth::smem::analyse_access(&s, &l, bits, a.vector)
        .map_err(|e| anyhow!("--attr accessing --smem: {e}"))?;
    out += &format!(
        "access: --attr ({} warp(s), {} register(s) per thread): {} x {} per thread, {} x {bits}-bit elements ({} bits) each; per warp (every warp alike):\n",
        r.warps,
        r.regs,
        r.instrs.len(),
        r.instr_name(),
        r.vector_elems,
        r.vector_elems * bits
    );
    for (k, i) in r.instrs.iter().enumerate() {
        out += &format!(
            "  #{k} registers {}..{} at +{}: {} wavefronts (minimum {}), {} bank conflicts",
            i.regs[0],
            i.regs[i.regs.len() - 1],
            i.offset,
            i.wavefronts,
            i.min_wavefronts,
            i.bank_conflicts
        );
        if !i.conflict_lanes.is_empty() {
            out += &format!(
                "; conflicting lanes {}",
                synth::smem::lane_ranges(&i.conflict_lanes)
            );
        }
        if i.load_wavefronts != i.wavefronts {
            out += &format!("; as a load {} (lanes share words)", i.load_wavefronts);
        }
        out += "\n";
    }
    let (wf, min, bc) = r.totals();
    out += &format!(
        "summary: {} instruction(s) per thread, {wf} wavefronts per warp (minimum {min}), {bc} bank conflicts\n",
        r.instrs.len()
    );
    Ok(out)
}

/// Most elements [`cta_map`] draws as a table (past that it lists what
/// each CTA holds).
const CTA_MAP_MAX_ELEMS: usize = 4096;

/// For a layout over more than one CTA: which CTAs hold each element, as a
/// table (rows: all dims but the last, row-major; columns: the last dim;
/// `0,2` where CTAs 0 and 2 hold copies), or, for tensors over
/// [`CTA_MAP_MAX_ELEMS`] elements, the number of elements each CTA holds.
/// `None` for one CTA.
fn cta_map(l: &synth::layout::LinearLayout) -> Option<String> {
    use synth::layout::BLOCK;
    let blocks = l.in_dim_size(BLOCK) as usize;
    if blocks <= 1 {
        return None;
    }
    let cols = synth::plan::tag_columns(l);
    let block_bits = l.in_dim_size_log2(BLOCK) as usize;
    let (in_cta, block_cols) = cols.split_at(cols.len() - block_bits);
    let elems = 1usize << l.total_out_bits();
    let per_cta_bits = in_cta.len();
    // the elements one CTA holds: the span of its register/lane/warp columns
    // (a coset of it, shifted by the CTA's block columns)
    let mut span = std::collections::BTreeSet::new();
    if per_cta_bits <= 24 {
        for i in 0..1u64 << per_cta_bits {
            let t = (0..per_cta_bits)
                .filter(|&k| i >> k & 1 == 1)
                .fold(0u64, |a, k| a ^ in_cta[k]);
            span.insert(t);
        }
    }
    let shift = |b: usize| {
        (0..block_bits)
            .filter(|&k| b >> k & 1 == 1)
            .fold(0u64, |a, k| a ^ block_cols[k])
    };
    let names: Vec<String> = l
        .out_dims()
        .iter()
        .map(|(n, s)| format!("{n} (size {s})"))
        .collect();
    let mut out = format!(
        "CTAs: {blocks} (block bases {:?}); out dims: {}\n",
        l.bases(BLOCK),
        names.join(", ")
    );
    if elems > CTA_MAP_MAX_ELEMS || per_cta_bits > 24 {
        let n = span.len().max(1 << per_cta_bits.min(63));
        out.push_str(&format!(
            "each CTA holds {} element(s) of {elems}; too many to draw a table (at most {CTA_MAP_MAX_ELEMS})\n",
            n.min(elems)
        ));
        return Some(out.trim_end().to_string());
    }
    let mut owners = vec![Vec::new(); elems];
    for b in 0..blocks {
        let s = shift(b);
        for &t in &span {
            let e = (t ^ s) as usize;
            if e < elems && !owners[e].contains(&b) {
                owners[e].push(b);
            }
        }
    }
    let cells: Vec<String> = owners
        .iter()
        .map(|o| {
            o.iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let last = l.out_dims().last().map_or(1, |d| d.1 as usize).max(1);
    let w = cells
        .iter()
        .map(|c| c.len())
        .max()
        .unwrap_or(1)
        .max(last.to_string().len());
    out.push_str("CTA of each element (rows: the leading dims, row-major; columns: the last dim; `0,1`: copies in CTAs 0 and 1)\n");
    let lw = (elems / last).to_string().len();
    out.push_str(&format!("{:>lw$}  ", ""));
    for c in 0..last {
        out.push_str(&format!(" {c:>w$}"));
    }
    out.push('\n');
    for (r, row) in cells.chunks(last).enumerate() {
        out.push_str(&format!("{r:>lw$}: "));
        for c in row {
            out.push_str(&format!(" {c:>w$}"));
        }
        out.push('\n');
    }
    Some(out.trim_end().to_string())
}
