//! Bit vectors and bit matrices over GF(2), up to 64 x 64.
//!
//! A [`BitVec`] is a `u64` whose bit `i` is coordinate `i`. A [`BitMatrix`]
//! with `rows` rows and `cols.len()` columns is stored column-major: `cols[j]`
//! is the image of input bit `j` (a `rows`-bit vector). This is the natural
//! form of a linear layout: column `j` is the basis vector of hardware bit `j`.
//! Applying the matrix to `x` XORs the columns selected by the set bits of `x`.
//!
//! Elimination follows the usual Gauss-Jordan reduction; pivots are taken
//! from the lowest column first, so [`BitMatrix::solve`] returns the solution
//! that is smallest as an integer (free variables zero), the choice Triton's
//! `LinearLayout::invertAndCompose` documents ("minimum norm solution").

use std::fmt;

/// A vector over GF(2) of at most 64 coordinates; bit `i` is coordinate `i`.
pub type BitVec = u64;

/// Parity (sum over GF(2)) of the set bits of `x`.
#[inline]
pub fn parity(x: u64) -> u64 {
    (x.count_ones() & 1) as u64
}

/// A `rows x cols` matrix over GF(2), column-major, both sizes at most 64.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitMatrix {
    rows: usize,
    cols: Vec<BitVec>,
}

/// Result of Gauss-Jordan elimination of a matrix (see [`BitMatrix::echelon`]).
#[derive(Clone, Debug)]
pub struct Echelon {
    /// Reduced rows: row `i` has its leading one at column `pivots[i]`; rows
    /// past `pivots.len()` are zero. Each row is a `cols`-bit vector.
    pub rows: Vec<BitVec>,
    /// Pivot column of each non-zero row, strictly increasing.
    pub pivots: Vec<usize>,
    /// `transform[i]` says which original rows were summed into reduced row
    /// `i` (a `rows`-bit vector): reduced = transform * original.
    pub transform: Vec<BitVec>,
}

fn mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

impl BitMatrix {
    /// Matrix from its columns. Panics (programming error) when a size is over
    /// 64 or a column has bits at or above `rows`.
    pub fn from_cols(rows: usize, cols: Vec<BitVec>) -> Self {
        assert!(rows <= 64 && cols.len() <= 64, "BitMatrix is at most 64x64");
        for (j, c) in cols.iter().enumerate() {
            assert!(c & !mask(rows) == 0, "column {j} has bits past row {rows}");
        }
        BitMatrix { rows, cols }
    }

    /// Matrix from its rows (`rows[i]` is a `ncols`-bit vector).
    pub fn from_rows(ncols: usize, rows: &[BitVec]) -> Self {
        let mut cols = vec![0u64; ncols];
        for (i, r) in rows.iter().enumerate() {
            for (j, c) in cols.iter_mut().enumerate() {
                if r >> j & 1 == 1 {
                    *c |= 1 << i;
                }
            }
        }
        BitMatrix::from_cols(rows.len(), cols)
    }

    /// The `rows x cols` zero matrix.
    pub fn zero(rows: usize, cols: usize) -> Self {
        BitMatrix::from_cols(rows, vec![0; cols])
    }

    /// The `n x n` identity.
    pub fn identity(n: usize) -> Self {
        BitMatrix::from_cols(n, (0..n).map(|i| 1u64 << i).collect())
    }

    /// Number of rows (output bits).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (input bits).
    pub fn ncols(&self) -> usize {
        self.cols.len()
    }

    /// The columns: `cols()[j]` is the image of input bit `j`.
    pub fn cols(&self) -> &[BitVec] {
        &self.cols
    }

    /// Column `j`.
    pub fn col(&self, j: usize) -> BitVec {
        self.cols[j]
    }

    /// Row `i` as a `ncols`-bit vector.
    pub fn row(&self, i: usize) -> BitVec {
        let mut r = 0;
        for (j, c) in self.cols.iter().enumerate() {
            r |= (c >> i & 1) << j;
        }
        r
    }

    /// Entry at row `i`, column `j`.
    pub fn get(&self, i: usize, j: usize) -> bool {
        self.cols[j] >> i & 1 == 1
    }

    /// `self * x`: XOR of the columns selected by `x`.
    pub fn apply(&self, x: BitVec) -> BitVec {
        let mut y = 0;
        let mut x = x & mask(self.cols.len());
        while x != 0 {
            let j = x.trailing_zeros() as usize;
            y ^= self.cols[j];
            x &= x - 1;
        }
        y
    }

    /// Matrix product `self * rhs` (apply `rhs` first). Errors if
    /// `self.ncols() != rhs.rows()`.
    pub fn mul(&self, rhs: &BitMatrix) -> Result<BitMatrix, Gf2Error> {
        if self.ncols() != rhs.rows {
            return Err(Gf2Error::Shape {
                op: "mul",
                detail: format!(
                    "{}x{} * {}x{}",
                    self.rows,
                    self.ncols(),
                    rhs.rows,
                    rhs.ncols()
                ),
            });
        }
        Ok(BitMatrix::from_cols(
            self.rows,
            rhs.cols.iter().map(|&c| self.apply(c)).collect(),
        ))
    }

    /// Transpose.
    pub fn transpose(&self) -> BitMatrix {
        BitMatrix::from_cols(self.ncols(), (0..self.rows).map(|i| self.row(i)).collect())
    }

    /// Gauss-Jordan elimination on the rows, pivots from the lowest column up.
    pub fn echelon(&self) -> Echelon {
        let mut rows: Vec<BitVec> = (0..self.rows).map(|i| self.row(i)).collect();
        let mut transform: Vec<BitVec> = (0..self.rows).map(|i| 1u64 << i).collect();
        let mut pivots = Vec::new();
        let mut r = 0;
        for c in 0..self.ncols() {
            if r == rows.len() {
                break;
            }
            let Some(p) = (r..rows.len()).find(|&i| rows[i] >> c & 1 == 1) else {
                continue;
            };
            rows.swap(r, p);
            transform.swap(r, p);
            for i in 0..rows.len() {
                if i != r && rows[i] >> c & 1 == 1 {
                    rows[i] ^= rows[r];
                    transform[i] ^= transform[r];
                }
            }
            pivots.push(c);
            r += 1;
        }
        Echelon {
            rows,
            pivots,
            transform,
        }
    }

    /// Rank.
    pub fn rank(&self) -> usize {
        self.echelon().pivots.len()
    }

    /// Mask of the pivot columns (columns independent of the columns before
    /// them); the others are the *free* columns.
    pub fn pivot_mask(&self) -> BitVec {
        self.echelon().pivots.iter().fold(0, |m, &p| m | 1 << p)
    }

    /// Smallest `x` (as an integer) with `self * x = b`, or `None` when `b`
    /// is not in the column space.
    pub fn solve(&self, b: BitVec) -> Option<BitVec> {
        self.solve_with(&self.echelon(), b)
    }

    /// [`solve`](Self::solve) with a precomputed elimination of `self`.
    pub fn solve_with(&self, e: &Echelon, b: BitVec) -> Option<BitVec> {
        let mut x = 0;
        for (i, t) in e.transform.iter().enumerate() {
            let bi = parity(t & b);
            if i < e.pivots.len() {
                x |= bi << e.pivots[i];
            } else if bi == 1 {
                return None;
            }
        }
        Some(x)
    }

    /// Inverse of a square invertible matrix, else `None`.
    pub fn inverse(&self) -> Option<BitMatrix> {
        if self.rows != self.ncols() {
            return None;
        }
        self.right_inverse()
    }

    /// A right inverse `X` (`ncols x rows`) with `self * X = I`, built from the
    /// smallest solutions; exists iff the matrix is surjective (full row rank).
    pub fn right_inverse(&self) -> Option<BitMatrix> {
        let e = self.echelon();
        let cols = (0..self.rows)
            .map(|i| self.solve_with(&e, 1u64 << i))
            .collect::<Option<Vec<_>>>()?;
        Some(BitMatrix::from_cols(self.ncols(), cols))
    }

    /// A basis of the null space `{x : self * x = 0}`, one vector per free
    /// column, each with its highest set bit at that free column.
    pub fn null_space(&self) -> Vec<BitVec> {
        let e = self.echelon();
        let pivot_mask = e.pivots.iter().fold(0u64, |m, &p| m | 1 << p);
        let mut out = Vec::new();
        for f in 0..self.ncols() {
            if pivot_mask >> f & 1 == 1 {
                continue;
            }
            let mut v = 1u64 << f;
            for (i, &p) in e.pivots.iter().enumerate() {
                if e.rows[i] >> f & 1 == 1 {
                    v |= 1 << p;
                }
            }
            out.push(v);
        }
        out
    }

    /// Does `v` lie in the column space?
    pub fn in_span(&self, v: BitVec) -> bool {
        self.solve(v).is_some()
    }

    /// Horizontal concatenation `[self | rhs]`.
    pub fn hconcat(&self, rhs: &BitMatrix) -> Result<BitMatrix, Gf2Error> {
        if self.rows != rhs.rows || self.ncols() + rhs.ncols() > 64 {
            return Err(Gf2Error::Shape {
                op: "hconcat",
                detail: format!("{} rows vs {} rows", self.rows, rhs.rows),
            });
        }
        let mut cols = self.cols.clone();
        cols.extend_from_slice(&rhs.cols);
        Ok(BitMatrix::from_cols(self.rows, cols))
    }

    /// Is every column a distinct unit vector or zero? (A "permutation-like"
    /// matrix: what the shuffle decomposition of docs/ARCHITECTURE.md 4.2 needs.)
    pub fn is_unit_or_zero_distinct(&self) -> bool {
        let mut seen = 0u64;
        for &c in &self.cols {
            if c == 0 {
                continue;
            }
            if c.count_ones() != 1 || seen & c != 0 {
                return false;
            }
            seen |= c;
        }
        true
    }
}

impl fmt::Debug for BitMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "BitMatrix {}x{}", self.rows, self.ncols())?;
        for i in 0..self.rows {
            let s: String = (0..self.ncols())
                .map(|j| if self.get(i, j) { '1' } else { '.' })
                .collect();
            writeln!(f, "  {s}")?;
        }
        Ok(())
    }
}

/// Errors of GF(2) operations on ill-shaped operands.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Gf2Error {
    /// Operand sizes do not fit the operation.
    #[error("GF(2) {op}: incompatible shapes ({detail})")]
    Shape { op: &'static str, detail: String },
}

/// An incrementally built subspace of GF(2)^64 (an XOR basis kept reduced by
/// leading bit), for span tests while choosing bases one at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XorBasis {
    /// Basis vectors with distinct leading bits, highest leading bit first.
    rows: Vec<BitVec>,
}

impl XorBasis {
    /// The span of `vs`.
    pub fn of(vs: &[BitVec]) -> XorBasis {
        let mut b = XorBasis::default();
        for &v in vs {
            b.insert(v);
        }
        b
    }
    /// `v` reduced by the basis (zero iff `v` is in the span).
    pub fn reduce(&self, mut v: BitVec) -> BitVec {
        for &r in &self.rows {
            let top = 63 - r.leading_zeros();
            if v >> top & 1 == 1 {
                v ^= r;
            }
        }
        v
    }
    /// Is `v` in the span?
    pub fn contains(&self, v: BitVec) -> bool {
        self.reduce(v) == 0
    }
    /// Add `v`; false (and no change) when it is already in the span.
    pub fn insert(&mut self, v: BitVec) -> bool {
        let r = self.reduce(v);
        if r == 0 {
            return false;
        }
        let pos = self
            .rows
            .iter()
            .position(|&x| x.leading_zeros() > r.leading_zeros())
            .unwrap_or(self.rows.len());
        self.rows.insert(pos, r);
        true
    }
    /// Dimension of the span.
    pub fn dim(&self) -> usize {
        self.rows.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_matrix(max: usize) -> impl Strategy<Value = BitMatrix> {
        (1..=max, 1..=max).prop_flat_map(|(r, c)| {
            proptest::collection::vec(0..(1u64 << r), c)
                .prop_map(move |cols| BitMatrix::from_cols(r, cols))
        })
    }

    #[test]
    fn identity_and_zero() {
        let i = BitMatrix::identity(5);
        assert_eq!(i.rank(), 5);
        assert_eq!(i.inverse().unwrap(), i);
        assert_eq!(BitMatrix::zero(3, 4).rank(), 0);
        assert_eq!(BitMatrix::zero(3, 4).null_space().len(), 4);
    }

    #[test]
    fn solve_prefers_low_columns() {
        // columns: e0, e0, e1 -> x = 0b001 for b = e0 (not 0b010).
        let m = BitMatrix::from_cols(2, vec![1, 1, 2]);
        assert_eq!(m.solve(1), Some(0b001));
        assert_eq!(m.solve(3), Some(0b101));
        assert_eq!(BitMatrix::from_cols(2, vec![1]).solve(2), None);
    }

    proptest! {
        #[test]
        fn transpose_involution(m in arb_matrix(12)) {
            prop_assert_eq!(m.transpose().transpose(), m);
        }

        #[test]
        fn mul_associative(a in arb_matrix(8), seed in any::<u64>()) {
            let mut s = seed;
            let mut next = || { s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); s >> 11 };
            let k = 1 + (next() % 8) as usize;
            let b = BitMatrix::from_cols(a.ncols(), (0..k).map(|_| next() & mask(a.ncols())).collect());
            let l = 1 + (next() % 8) as usize;
            let c = BitMatrix::from_cols(k, (0..l).map(|_| next() & mask(k)).collect());
            let ab_c = a.mul(&b).unwrap().mul(&c).unwrap();
            let a_bc = a.mul(&b.mul(&c).unwrap()).unwrap();
            prop_assert_eq!(ab_c, a_bc);
        }

        #[test]
        fn transpose_of_product(a in arb_matrix(8), bcols in proptest::collection::vec(any::<u64>(), 1..8)) {
            let b = BitMatrix::from_cols(a.ncols(), bcols.iter().map(|c| c & mask(a.ncols())).collect());
            let lhs = a.mul(&b).unwrap().transpose();
            let rhs = b.transpose().mul(&a.transpose()).unwrap();
            prop_assert_eq!(lhs, rhs);
        }

        #[test]
        fn rank_nullity(m in arb_matrix(16)) {
            let ns = m.null_space();
            prop_assert_eq!(m.rank() + ns.len(), m.ncols());
            for v in &ns { prop_assert_eq!(m.apply(*v), 0); }
            // null-space vectors are independent
            let nm = BitMatrix::from_cols(m.ncols(), ns.clone());
            prop_assert_eq!(nm.rank(), ns.len());
        }

        #[test]
        fn rank_of_transpose(m in arb_matrix(16)) {
            prop_assert_eq!(m.rank(), m.transpose().rank());
        }

        #[test]
        fn solve_is_correct_and_minimal(m in arb_matrix(10), x in any::<u64>()) {
            let x = x & mask(m.ncols());
            let b = m.apply(x);
            let s = m.solve(b).unwrap();
            prop_assert_eq!(m.apply(s), b);
            prop_assert!(s <= x, "solution {} larger than a known one {}", s, x);
        }

        #[test]
        fn right_inverse_law(m in arb_matrix(10)) {
            match m.right_inverse() {
                Some(x) => prop_assert_eq!(m.mul(&x).unwrap(), BitMatrix::identity(m.rows())),
                None => prop_assert!(m.rank() < m.rows()),
            }
        }

        #[test]
        fn inverse_law(n in 1usize..10, cols in proptest::collection::vec(any::<u64>(), 10)) {
            let m = BitMatrix::from_cols(n, cols[..n].iter().map(|c| c & mask(n)).collect());
            match m.inverse() {
                Some(inv) => {
                    prop_assert_eq!(m.mul(&inv).unwrap(), BitMatrix::identity(n));
                    prop_assert_eq!(inv.mul(&m).unwrap(), BitMatrix::identity(n));
                }
                None => prop_assert!(m.rank() < n),
            }
        }
    }
}
