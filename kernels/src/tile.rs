//! Where a timing kernel finds each element of a thread's tile in global
//! memory: one tile per CTA, row-major over the tensor's shape, element
//! offsets computed from the layout's bases the way Triton's own loop kernel
//! computes them (docs/ARCHITECTURE.md section 7): the XOR of the lane and
//! warp basis offsets a thread has set, XOR a compile-time offset per
//! register. This is the addressing of the reference head-to-head harness
//! (`../shared/tools/h2h`), so `warpforge bench` and h2h time the same loop.
//!
//! With power-of-two dims a row-major offset is GF(2)-linear in the
//! coordinate bits (each dim's bits land in their own bit range), so the
//! offset of (register, lane, warp) is the XOR of one offset per set bit.

use synth::layout::{LinearLayout, LANE, REGISTER, WARP};

/// Row-major element offsets of a layout's bases over one CTA's tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileAddress {
    /// Elements of the tile (the product of the shape).
    pub tile: u64,
    /// Offset of register `i` (all its register bits), `[2^register bits]`.
    pub reg: Vec<u64>,
    /// Offset of lane bit `k`, `[lane bits]`.
    pub lane: Vec<u64>,
    /// Offset of warp bit `k`, `[warp bits]`.
    pub warp: Vec<u64>,
}

impl TileAddress {
    /// The offsets of `l`'s register, lane and warp bases over a tensor of
    /// `shape` (dim0 outermost, powers of two, as every layout warpforge
    /// reads has). Block bases are not addressed: each CTA has its own tile.
    pub fn of(l: &LinearLayout, shape: &[i64]) -> TileAddress {
        let mut stride = vec![1u64; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            stride[d] = stride[d + 1] * shape[d + 1].max(1) as u64;
        }
        let off = |v: &Vec<i32>| -> u64 {
            v.iter()
                .zip(&stride)
                .map(|(&c, &s)| c.max(0) as u64 * s)
                .fold(0, |a, b| a ^ b)
        };
        let per = |dim: &str| -> Vec<u64> {
            if l.has_in_dim(dim) {
                l.bases(dim).iter().map(off).collect()
            } else {
                Vec::new()
            }
        };
        let rb = per(REGISTER);
        let reg = (0..1u64 << rb.len())
            .map(|i| {
                rb.iter()
                    .enumerate()
                    .filter(|(k, _)| i >> k & 1 == 1)
                    .fold(0, |a, (_, &o)| a ^ o)
            })
            .collect();
        TileAddress {
            tile: shape.iter().map(|&d| d.max(1) as u64).product(),
            reg,
            lane: per(LANE),
            warp: per(WARP),
        }
    }

    /// The C expression (`unsigned`) of this thread's lane and warp part of
    /// the offset, in terms of `lane` and `warp`: one `?:` per set basis.
    pub fn thread_expr(&self) -> String {
        let terms: Vec<String> = [("lane", &self.lane), ("warp", &self.warp)]
            .into_iter()
            .flat_map(|(who, offs)| {
                offs.iter()
                    .enumerate()
                    .filter(|(_, &o)| o != 0)
                    .map(move |(k, o)| format!("(({who} >> {k}u) & 1u ? {o}u : 0u)"))
            })
            .collect();
        if terms.is_empty() {
            "0u".into()
        } else {
            terms.join(" ^ ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-D layout's offsets are row-major and XOR-combined.
    #[test]
    fn offsets_are_row_major_xors_of_bases() {
        let l = LinearLayout::from_bases(
            vec![
                (REGISTER.into(), vec![vec![0, 1], vec![8, 0]]),
                (LANE.into(), vec![vec![0, 2], vec![1, 0]]),
                (WARP.into(), vec![vec![16, 0]]),
            ],
            &["dim0".to_string(), "dim1".to_string()],
            false,
        )
        .unwrap();
        let a = TileAddress::of(&l, &[32, 4]);
        assert_eq!(a.tile, 128);
        assert_eq!(a.reg, vec![0, 1, 32, 33]);
        assert_eq!(a.lane, vec![2, 4]);
        assert_eq!(a.warp, vec![64]);
        assert_eq!(
            a.thread_expr(),
            "((lane >> 0u) & 1u ? 2u : 0u) ^ ((lane >> 1u) & 1u ? 4u : 0u) ^ ((warp >> 0u) & 1u ? 64u : 0u)"
        );
    }
}
