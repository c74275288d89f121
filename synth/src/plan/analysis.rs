//! Conversion analysis (docs/ARCHITECTURE.md 4.1): both layouts as columns over tag bits,
//! split by hardware dim, and the cheapest family the conversion belongs to.

use super::{Kind, PlanError, LANE_BITS_SERVED};
use crate::gf2::BitMatrix;
use crate::layout::{LinearLayout, BLOCK, LANE, REGISTER, WARP};
use crate::parse::{ConvertOp, ElemType};
use serde::Serialize;

/// needs to name and describe it.
#[derive(Clone, Debug, Serialize)]
pub struct Conversion {
    /// `func:line` for TTGIR input, or a user-given name.
    pub name: String,
    pub src: LinearLayout,
    pub dst: LinearLayout,
    pub shape: Vec<i64>,
    pub elem: ElemType,
    pub num_warps: u32,
    /// Attribute text of each side (for headers).
    pub src_text: String,
    pub dst_text: String,
}

impl Conversion {
    /// The tensor's data per thread at the element width its plans are
    /// made for ([`crate::search::plan_width`]): [`Conversion::words_per_thread_at`].
    pub fn words_per_thread(&self) -> u64 {
        self.words_per_thread_at(crate::search::plan_width(self))
    }

    /// The tensor's data per thread in elements of `bits`, in 32-bit words,
    /// rounded up ([`crate::cost_model::words_per_thread`] over the source
    /// layout's lanes x warps x blocks): what bounds the cost model's
    /// one-warp section ([`crate::cost_model::Weights::one_warp_max_words`]).
    pub fn words_per_thread_at(&self, bits: u32) -> u64 {
        let threads = [LANE, WARP, BLOCK]
            .iter()
            .map(|d| self.src.in_dim_size(d) as u64)
            .product();
        crate::cost_model::words_per_thread(&self.shape, bits, threads)
    }

    /// The CTAs the source layout spans (`2^` its block bases, at least 1):
    /// what [`crate::cost_model::Weights::for_conversion`] counts as the
    /// conversion's CTAs, and `bench` rows record as `layout_ctas` for
    /// `warpforge fit`.
    pub fn ctas(&self) -> u32 {
        self.src.in_dim_size(BLOCK).clamp(1, u32::MAX as i64) as u32
    }

    /// Build from a parsed `convert_layout`, computing both linear layouts.
    /// On an AMD target ([`ConvertOp::amd_arch`]) both layouts are read on
    /// the module's wave size ([`ConvertOp::lanes`]); otherwise on 32-lane
    /// NVIDIA warps, which refuses AMD encodings by name.
    pub fn from_op(op: &ConvertOp) -> Result<Conversion, PlanError> {
        let src = op.layout_of(&op.src).map_err(|e| PlanError::Layout {
            name: op.name.clone(),
            side: "source",
            detail: e.to_string(),
        })?;
        let dst = op.layout_of(&op.dst).map_err(|e| PlanError::Layout {
            name: op.name.clone(),
            side: "destination",
            detail: e.to_string(),
        })?;
        Conversion::new(
            &op.name,
            src,
            dst,
            &op.shape,
            op.elem.clone(),
            op.num_warps,
            &op.src_text,
            &op.dst_text,
        )
    }

    /// Build from two canonical layouts; checks that they describe the same
    /// tensor with the same CTA shape.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &str,
        src: LinearLayout,
        dst: LinearLayout,
        shape: &[i64],
        elem: ElemType,
        num_warps: u32,
        src_text: &str,
        dst_text: &str,
    ) -> Result<Conversion, PlanError> {
        if src.out_dims() != dst.out_dims() {
            return Err(PlanError::Mismatch {
                name: name.into(),
                detail: format!("{:?} vs {:?}", src.out_dims(), dst.out_dims()),
            });
        }
        for d in [LANE, WARP, BLOCK] {
            if src.in_dim_size_log2(d) != dst.in_dim_size_log2(d) {
                return Err(PlanError::Mismatch {
                    name: name.into(),
                    detail: format!(
                        "{d} has {} bits in the source and {} in the destination",
                        src.in_dim_size_log2(d),
                        dst.in_dim_size_log2(d)
                    ),
                });
            }
        }
        if !LANE_BITS_SERVED.contains(&(src.in_dim_size_log2(LANE) as usize)) {
            return Err(PlanError::Layout {
                name: name.into(),
                side: "source",
                detail: format!(
                    "{} lane bases: warpforge plans warps of 32 lanes (5 bases, NVIDIA and AMD wave32) or 64 (6 bases, AMD wave64)",
                    src.in_dim_size_log2(LANE)
                ),
            });
        }
        for (side, l) in [("source", &src), ("destination", &dst)] {
            if !l.is_surjective() {
                return Err(PlanError::Layout {
                    name: name.into(),
                    side,
                    detail: "not surjective: some tensor element is held by no thread".into(),
                });
            }
            if l.in_dim_size_log2(REGISTER) > 12 {
                return Err(PlanError::Layout {
                    name: name.into(),
                    side,
                    detail: format!(
                        "{} registers per thread is beyond what a helper can hold",
                        l.in_dim_size(REGISTER)
                    ),
                });
            }
        }
        Ok(Conversion {
            name: name.into(),
            src,
            dst,
            shape: shape.to_vec(),
            elem,
            num_warps,
            src_text: src_text.into(),
            dst_text: dst_text.into(),
        })
    }
}

/// The layout as columns over *tag bits*: the row-major linear index of the
/// element (last dim minor). Column order: register, lane, warp, block bits.
pub fn tag_columns(l: &LinearLayout) -> Vec<u64> {
    let outs = l.out_dims();
    let mut offs = vec![0u32; outs.len()];
    let mut acc = 0;
    for k in (0..outs.len()).rev() {
        offs[k] = acc;
        acc += outs[k].1.trailing_zeros();
    }
    l.in_dims()
        .iter()
        .flat_map(|d| d.bases.iter())
        .map(|b| {
            b.iter()
                .zip(&offs)
                .fold(0u64, |a, (&v, &o)| a | ((v as u64) << o))
        })
        .collect()
}

/// Bit counts of the hardware dims of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Hw {
    pub reg: usize,
    pub lane: usize,
    pub warp: usize,
    pub block: usize,
}

impl Hw {
    pub(crate) fn of(l: &LinearLayout) -> Hw {
        Hw {
            reg: l.in_dim_size_log2(REGISTER) as usize,
            lane: l.in_dim_size_log2(LANE) as usize,
            warp: l.in_dim_size_log2(WARP) as usize,
            block: l.in_dim_size_log2(BLOCK) as usize,
        }
    }
    /// Hardware index bits of slot (register, lane, warp, block).
    pub fn index(&self, r: u64, l: u64, w: u64, b: u64) -> u64 {
        r | l << self.reg | w << (self.reg + self.lane) | b << (self.reg + self.lane + self.warp)
    }
}

/// Columns of one side split by hardware dim (each a tag-bit vector).
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    pub hw: Hw,
    pub reg: Vec<u64>,
    pub lane: Vec<u64>,
    pub warp: Vec<u64>,
    pub block: Vec<u64>,
}

impl Side {
    pub(crate) fn of(l: &LinearLayout) -> Side {
        let hw = Hw::of(l);
        let c = tag_columns(l);
        let (r, rest) = c.split_at(hw.reg);
        let (ln, rest) = rest.split_at(hw.lane);
        let (w, b) = rest.split_at(hw.warp);
        Side {
            hw,
            reg: r.to_vec(),
            lane: ln.to_vec(),
            warp: w.to_vec(),
            block: b.to_vec(),
        }
    }
    /// All columns (register, lane, warp, block).
    pub fn all(&self) -> Vec<u64> {
        [&self.reg[..], &self.lane, &self.warp, &self.block].concat()
    }
    /// Tag of the element at hardware slot (r, l, w, b).
    pub fn tag(&self, r: u64, l: u64, w: u64, b: u64) -> u64 {
        let x = |cols: &[u64], v: u64| {
            cols.iter()
                .enumerate()
                .filter(|(i, _)| v >> i & 1 == 1)
                .fold(0u64, |a, (_, c)| a ^ c)
        };
        x(&self.reg, r) ^ x(&self.lane, l) ^ x(&self.warp, w) ^ x(&self.block, b)
    }
    /// The tags of registers `0..regs` of thread (l, w) of CTA b:
    /// `[tag(r, l, w, b) for r in 0..regs]`, each from an earlier one by one
    /// XOR (the simulators' hot path: a million tags for a large tile).
    pub fn thread_tags(&self, regs: u64, l: u64, w: u64, b: u64) -> Vec<u64> {
        let mut v = Vec::with_capacity(regs as usize);
        if regs == 0 {
            return v;
        }
        v.push(self.tag(0, l, w, b));
        for r in 1..regs {
            let low = r.trailing_zeros() as usize;
            // r with its lowest set bit cleared is an earlier register
            let base = v[(r & (r - 1)) as usize];
            v.push(base ^ self.reg.get(low).copied().unwrap_or(0));
        }
        v
    }
}

/// What the analysis of a conversion found (docs/ARCHITECTURE.md 4.1).
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    pub name: String,
    /// Number of tag bits (log2 of the number of elements).
    pub tensor_bits: usize,
    pub src: Side,
    pub dst: Side,
    /// The cheapest family the conversion belongs to.
    pub class: Kind,
    /// Whether every warp reads only what its own lanes hold.
    pub warp_local: bool,
}

pub(crate) fn span(tbits: usize, cols: &[u64]) -> BitMatrix {
    BitMatrix::from_cols(tbits, cols.to_vec())
}

/// Whether data moves between CTAs: a CTA's elements differ between the
/// sides (a block column differs by a vector outside the source's in-CTA
/// span), or a CTA needs elements only other CTAs hold.
fn crosses_ctas(tbits: usize, a: &Side, b: &Side) -> bool {
    let in_cta = span(tbits, &[&a.reg[..], &a.lane, &a.warp].concat());
    a.block
        .iter()
        .zip(&b.block)
        .any(|(&x, &y)| !in_cta.in_span(x ^ y))
        || [&b.reg[..], &b.lane, &b.warp]
            .concat()
            .iter()
            .any(|&col| !in_cta.in_span(col))
}

impl Analysis {
    /// Classify a conversion: one that moves data between CTAs is
    /// [`Kind::Cluster`], and so is one where every CTA keeps its elements
    /// but the block bases differ (each CTA would order them differently:
    /// the cluster plan's stores are addressed per CTA). Never errors today;
    /// `Result` for the classifications that may refuse.
    pub fn new(c: &Conversion) -> Result<Analysis, PlanError> {
        let tbits = c.src.total_out_bits();
        let a = Side::of(&c.src);
        let b = Side::of(&c.dst);
        // data moves between CTAs, or every CTA keeps its elements in an
        // order that depends on the CTA (a block column differs between the
        // sides inside the CTA's span): one program for every CTA cannot do
        // the latter with in-CTA moves alone; the cluster plan (stores
        // addressed by the element's CTA, there always the storing CTA) can
        if crosses_ctas(tbits, &a, &b) || a.block != b.block {
            return Ok(Analysis {
                name: c.name.clone(),
                tensor_bits: tbits,
                src: a,
                dst: b,
                class: Kind::Cluster,
                warp_local: false,
            });
        }
        let rl = span(tbits, &[&a.reg[..], &a.lane].concat());
        let warp_local = [&b.reg[..], &b.lane]
            .concat()
            .iter()
            .all(|&v| rl.in_span(v))
            && a.warp.iter().zip(&b.warp).all(|(&x, &y)| rl.in_span(x ^ y))
            && a.block
                .iter()
                .zip(&b.block)
                .all(|(&x, &y)| rl.in_span(x ^ y));
        let regs = span(tbits, &a.reg);
        let register_only = a.lane == b.lane
            && a.warp == b.warp
            && a.block == b.block
            && b.reg.iter().all(|&v| regs.in_span(v));
        let class = if a.all() == b.all() && a.hw == b.hw {
            Kind::Identity
        } else if register_only {
            Kind::Register
        } else if warp_local {
            Kind::Shuffle
        } else {
            Kind::Shared
        };
        Ok(Analysis {
            name: c.name.clone(),
            tensor_bits: tbits,
            src: a,
            dst: b,
            class,
            warp_local,
        })
    }

    /// Number of source registers per thread.
    pub fn src_regs(&self) -> u32 {
        1 << self.src.hw.reg
    }
    /// Whether data moves between CTAs (a [`Kind::Cluster`] conversion
    /// either does, or keeps every element in its CTA in an order that
    /// depends on the CTA).
    pub fn moves_across_ctas(&self) -> bool {
        crosses_ctas(self.tensor_bits, &self.src, &self.dst)
    }
    /// Number of destination registers per thread.
    pub fn dst_regs(&self) -> u32 {
        1 << self.dst.hw.reg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `thread_tags` is `tag` register by register, for register counts
    /// that are and are not powers of two and columns with many bits set.
    #[test]
    fn thread_tags_are_tag_register_by_register() {
        let side = Side {
            reg: vec![0b1, 0b110, 0b1000, 0b1_0001, 0b10_0000],
            lane: vec![0b100_0000, 0b1000_0000, 0b1_0000_0011, 0, 0b10_0000_0000],
            warp: vec![0b100_0000_0000, 0b1000_0000_0001],
            block: vec![],
            hw: Hw {
                reg: 5,
                lane: 5,
                warp: 2,
                block: 0,
            },
        };
        for regs in [0u64, 1, 7, 32, 40] {
            for (l, w) in [(0, 0), (5, 1), (31, 3)] {
                let want: Vec<u64> = (0..regs).map(|r| side.tag(r, l, w, 0)).collect();
                assert_eq!(side.thread_tags(regs, l, w, 0), want, "{regs} {l} {w}");
            }
        }
    }
}
