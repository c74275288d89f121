//! `warpforge layout`: the linear layout of one layout, printed as Triton's
//! `LinearLayout::toString` does.

use super::parse_warps;
use crate::output;
use anyhow::{anyhow, Result};
use clap::Args;
use pipeline::layout_args;
use pipeline::load::{check_side, cli_warps_terms};
use pipeline::WarpsFrom;
use synth::parse::{ConvertOp, ElemType, Span};

#[derive(Args)]
pub(crate) struct LayoutArgs {
    /// The layout: a TTGIR attribute ('#ttg.blocked<{...}>'),
    /// LinearLayout::toString text, JSON bases, a Gluon constructor
    /// ('ttgl.BlockedLayout(...)'), or @FILE holding any of these.
    #[arg(long)]
    attr: String,
    /// Tensor shape, e.g. 64x32 (default: the shape the layout carries).
    #[arg(long)]
    shape: Option<String>,
    /// Warps per CTA, a power of two up to 32 (default: what the layout
    /// fixes, else 4).
    #[arg(long, value_parser = parse_warps)]
    warps: Option<u32>,
}

pub(crate) fn run(a: LayoutArgs) -> Result<i32> {
    let attr = &a.attr;
    let t = layout_args::read("--attr", attr)?;
    let shape = layout_args::shape(a.shape.as_deref(), &[("--attr", &t)])?;
    let warps_default = WarpsFrom::of(a.warps, &[("--attr", &t)]);
    let num_warps = layout_args::warps(a.warps, &[&t]);
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
        doc: String::new(),
    };
    check_side(
        "--attr",
        attr,
        ("the", &op.src, op.src_at),
        &op,
        Some((warps_default, WarpsFrom::Layout("--attr"))),
    )?;
    let l = t
        .encoding
        .to_linear_layout(&shape, num_warps)
        .map_err(|e| anyhow!("--attr: {}", cli_warps_terms(&e.to_string(), warps_default)))?;
    output::print_all(&format!("{}\n", l.to_string().trim_start_matches('\n')))?;
    if let Some(map) = cta_map(&l) {
        // standard error: standard output stays toString text that reads back
        note!("{map}");
    }
    Ok(0)
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
