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
        num_ctas: 1,
        doc: String::new(),
    };
    check_side(
        "--attr",
        attr,
        ("the", &op.src, op.src_at),
        &op,
        Some(warps_default),
    )?;
    let l = t
        .encoding
        .to_linear_layout(&shape, num_warps)
        .map_err(|e| anyhow!("--attr: {}", cli_warps_terms(&e.to_string(), warps_default)))?;
    output::print_all(&format!("{}\n", l.to_string().trim_start_matches('\n')))?;
    Ok(0)
}
