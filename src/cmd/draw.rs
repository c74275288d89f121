//! `warpforge draw`: an SVG (or a text table) of a layout, or of a
//! conversion with its plan (planned exactly as `warpforge plan` does).

use super::{check_outputs_against, Input};
use crate::output;
use anyhow::{anyhow, bail, Result};
use clap::{Args, ValueEnum};
use pipeline::layout_args;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum DrawFormat {
    /// An SVG document: one <rect class="cell"> per tensor element.
    Svg,
    /// Text tables like triton-tensor-layout (cells `T3:R1`, `W0:L3:R1`).
    Txt,
}

#[derive(Args)]
#[command(
    // draw writes SVG or text, and names no helper: the shared input's
    // --json is not offered (still refused with a reason if given), and
    // --name only picks or names the conversion
    mut_arg("json", |a| a.hide(true)),
    mut_arg("name", |a| a.help(
        "Name of the --src/--dst conversion drawn; with --ttgir: draw only the conversions it names (`func:line`, or a function name)"
    )),
)]
pub(crate) struct DrawArgs {
    /// One layout to draw: a TTGIR attribute, LinearLayout::toString text,
    /// JSON bases, a Gluon constructor, a CuTe thread-value layout, a PTX
    /// register fragment ('ptx:...'), or @FILE holding any of these (with
    /// --shape where the layout carries none, and --warps).
    #[arg(long, conflicts_with_all = ["ttgir", "src", "dst"])]
    attr: Option<String>,
    /// A CuTe shared-memory layout ('Sw<3,3,3> o _0 o (_8,_64):(_64,_1)',
    /// or plain 'Shape:Stride'; as `layout --smem`): draws the shared memory
    /// by bank and, with --attr, the banks of that layout's accesses with
    /// the conflicting lanes marked. --dtype gives the element type.
    #[arg(long, conflicts_with_all = ["ttgir", "src", "dst"])]
    smem: Option<String>,
    /// With --smem and --attr: bits each thread moves per access (as
    /// `layout --vector`).
    #[arg(long, requires = "attr", requires = "smem")]
    vector: Option<u32>,
    /// A conversion: --src/--dst, or --ttgir FILE (every conversion, or the
    /// one --name picks: `func:line`, or a function name); the planner
    /// options are those of `plan`.
    #[command(flatten)]
    input: Input,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DrawFormat::Svg)]
    format: DrawFormat,
    /// Write here (default: standard output). Written only when drawing succeeds.
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

pub(crate) fn run(a: DrawArgs) -> Result<i32> {
    if a.input.json {
        bail!("--json: draw writes SVG or text; choose with --format svg|txt");
    }
    let src = &a.input.source;
    // no output may be an input, @FILE layouts included, before any work
    super::check_outputs_of(
        &[("-o", a.output.as_deref())],
        &src.ttgir,
        &[
            ("--attr", a.attr.as_deref()),
            ("--smem", a.smem.as_deref()),
            ("--src", src.src.as_deref()),
            ("--dst", src.dst.as_deref()),
        ],
    )?;
    let picture = if let Some(smem) = &a.smem {
        let s = super::layout::read_smem(smem)?;
        let bits = s
            .elem_bits(src.dtype.as_deref())
            .map_err(|e| anyhow!("--smem: {e}"))?;
        let l = match &a.attr {
            Some(t) => Some(super::layout::read_attr(
                t,
                src.shape.as_deref(),
                src.warps,
                Some(&s.modes),
            )?),
            None => None,
        };
        let shape: Vec<i64> = match (&l, &src.shape) {
            (Some(l), _) => l.out_dims().iter().map(|d| d.1 as i64).collect(),
            (None, Some(t)) => synth::parse::parse_shape(t).map_err(|e| anyhow!("--shape: {e}"))?,
            (None, None) => s.modes.clone(),
        };
        let report = match &l {
            Some(l) => Some(
                synth::smem::analyse_access(&s, l, bits, a.vector)
                    .map_err(|e| anyhow!("--attr accessing --smem: {e}"))?,
            ),
            None => None,
        };
        let title = format!("shared layout {} ({bits}-bit elements)", s.text);
        draw::smem_picture(&title, &s, &shape, bits, l.as_ref().zip(report.as_ref()))
            .map_err(|e| anyhow!("{e}"))?
    } else if let Some(attr) = &a.attr {
        let t = layout_args::read("--attr", attr)?;
        let shape = layout_args::shape(src.shape.as_deref(), &[("--attr", &t)])?;
        let warps = layout_args::warps(src.warps, &[&t]);
        // the CTAs the layout spans, at most 16
        let ctas = u32::try_from(t.encoding.num_ctas()).unwrap_or(u32::MAX);
        // an AMD layout on its own lanes (64 for amd_mfma), as `layout` shows it
        let l = if t.encoding.is_amd() {
            t.encoding
                .to_cluster_layout_lanes(&shape, warps, ctas, t.encoding.lanes())
        } else {
            t.encoding.to_cluster_layout(&shape, warps, ctas)
        }
        .map_err(|e| anyhow!("--attr: {e}"))?;
        let title = format!("{} ({})", t.ttgir, t.format.name());
        draw::layout_picture(&title, &l).map_err(|e| anyhow!("--attr: {e}"))?
    } else {
        if src.ttgir.is_empty() && src.src.is_none() {
            return Err(super::UsageError(
                "give --attr LAYOUT, --src LAYOUT --dst LAYOUT, or --ttgir FILE [--name NAME]"
                    .into(),
            )
            .into());
        }
        // `--name` with --ttgir picks conversions (in `load`)
        let loaded = src.load()?;
        check_outputs_against(
            &[("-o", a.output.as_deref())],
            &loaded,
            &a.input.model,
            &a.input.source,
            a.input.measured.as_deref(),
        )?;
        let origin = loaded.origin.clone();
        if loaded.ops.is_empty() {
            bail!("{origin}: no ttg.convert_layout to draw");
        }
        let planned = a.input.plan(&loaded, false)?;
        if planned.conversions.is_empty() {
            bail!("{origin}: every conversion was refused (above): nothing to draw");
        }
        let mut pics = Vec::new();
        for p in &planned.conversions {
            pics.push(
                draw::conversion_picture(&p.conv, &p.chosen)
                    .map_err(|e| anyhow!("{}: {e}", p.op.name))?,
            );
        }
        if pics.len() == 1 {
            pics.pop().expect("one picture")
        } else {
            let mut rows = Vec::new();
            for p in pics {
                rows.push(vec![draw::Panel::Text {
                    title: p.title,
                    lines: vec![],
                    stage: None,
                }]);
                rows.extend(p.rows);
            }
            draw::Picture {
                title: format!("{origin}: {} conversions", planned.conversions.len()),
                rows,
            }
        }
    };
    let out = match a.format {
        DrawFormat::Svg => draw::svg::render(&picture),
        DrawFormat::Txt => draw::text::render(&picture),
    };
    match &a.output {
        Some(path) => {
            output::write_file(path, &out)?;
            note!("warpforge: wrote {}", path.display());
        }
        None => output::print_all(&out)?,
    }
    Ok(0)
}
