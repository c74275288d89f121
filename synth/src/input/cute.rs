//! CuTe layouts as `cute::print` writes them: `shape:stride` with nested
//! tuples of static (`_4`) or plain (`4`) integers, read as a thread-value
//! (TV) layout: mode 0 the thread, mode 1 the value, each mapping to the
//! column-major index of an element of the M x N tile of `--shape`
//! (CuTe's convention; `cute/layout.hpp`, `cute::print`).
//!
//! A sub-mode of shape `2^k` and stride `s` contributes `s * 2^j` for its
//! bit `j`; the layout is GF(2)-linear when every shape is a power of two,
//! every stride a power of two (or 0: a broadcast), and no two bits add the
//! same power of two (their sum would carry). Those bits' images are kept
//! until the tile's M is known ([`crate::encoding::Encoding::CuteTv`]).

use super::{Format, LayoutText};
use crate::encoding::Encoding;

pub(crate) type Res<T> = Result<T, (usize, String)>;

/// A parsed tuple: a leaf integer or nested tuple, with its byte offset.
#[derive(Debug, Clone)]
pub(crate) enum Tree {
    Leaf(u64, usize),
    Node(Vec<Tree>, usize),
}

impl Tree {
    pub(crate) fn at(&self) -> usize {
        match self {
            Tree::Leaf(_, a) | Tree::Node(_, a) => *a,
        }
    }
    pub(crate) fn leaves(&self, out: &mut Vec<(u64, usize)>) {
        match self {
            Tree::Leaf(v, a) => out.push((*v, *a)),
            Tree::Node(k, _) => k.iter().for_each(|t| t.leaves(out)),
        }
    }
    /// Same nesting as `o` (CuTe requires shape and stride congruent).
    pub(crate) fn congruent(&self, o: &Tree) -> bool {
        match (self, o) {
            (Tree::Leaf(..), Tree::Leaf(..)) => true,
            (Tree::Node(a, _), Tree::Node(b, _)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }
}

/// A cursor over the text: `s[i..]` is still to read.
pub(crate) struct P<'a> {
    pub(crate) s: &'a [u8],
    pub(crate) i: usize,
}

impl P<'_> {
    pub(crate) fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_whitespace() {
            self.i += 1;
        }
    }
    pub(crate) fn tree(&mut self, depth: usize) -> Res<Tree> {
        self.ws();
        if depth > 16 {
            return Err((self.i, "tuples nested deeper than 16".into()));
        }
        let at = self.i;
        match self.s.get(self.i) {
            Some(b'(') => {
                self.i += 1;
                let mut kids = vec![self.tree(depth + 1)?];
                loop {
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => {
                            self.i += 1;
                            kids.push(self.tree(depth + 1)?);
                        }
                        Some(b')') => {
                            self.i += 1;
                            return Ok(Tree::Node(kids, at));
                        }
                        _ => return Err((self.i, "expected `,` or `)`".into())),
                    }
                }
            }
            Some(b'_') | Some(b'0'..=b'9') => {
                if self.s[self.i] == b'_' {
                    self.i += 1;
                }
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                    self.i += 1;
                }
                let digits = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                if digits.is_empty() {
                    return Err((self.i, "expected digits after `_`".into()));
                }
                let v = digits
                    .parse::<u64>()
                    .ok()
                    .filter(|&v| v < 1 << 62)
                    .ok_or((start, format!("`{digits}` is too large")))?;
                Ok(Tree::Leaf(v, at))
            }
            _ => Err((
                self.i,
                "expected an integer (`4` or `_4`) or a tuple `(...)`".into(),
            )),
        }
    }
}

/// Does the text start like a CuTe layout (`(`, `_` or a digit)?
pub(super) fn claims(t: &str) -> bool {
    let b = t.as_bytes();
    // `_4`, not a Python identifier such as `_L = ttgl.BlockedLayout(...)`
    let static_int = b.first() == Some(&b'_') && b.get(1).is_some_and(u8::is_ascii_digit);
    (t.starts_with('(') && !t.starts_with("(empty layout"))
        || static_int
        || b.first().is_some_and(u8::is_ascii_digit)
}

/// Parse `shape:stride`; errors are `(byte offset, message)`.
pub(super) fn parse(text: &str) -> Res<LayoutText> {
    let mut p = P {
        s: text.as_bytes(),
        i: 0,
    };
    let shape = p.tree(0)?;
    p.ws();
    if p.s.get(p.i) != Some(&b':') {
        return Err((p.i, "expected `:` between the shape and the stride".into()));
    }
    p.i += 1;
    let stride = p.tree(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err((p.i, "unexpected text after the layout".into()));
    }
    let (Tree::Node(sm, _), Tree::Node(dm, _)) = (&shape, &stride) else {
        return Err((
            shape.at(),
            "a thread-value layout has two modes, `(threads, values):(strides)`".into(),
        ));
    };
    if sm.len() != 2 || dm.len() != 2 {
        return Err((
            shape.at(),
            format!(
                "a thread-value layout has two modes (thread, value), this one {}",
                sm.len()
            ),
        ));
    }
    if !shape.congruent(&stride) {
        return Err((
            stride.at(),
            "the stride does not nest as the shape does".into(),
        ));
    }
    let mut bits: Vec<(u64, usize, &'static str)> = Vec::new();
    let mut thread = Vec::new();
    let mut value = Vec::new();
    for (m, name) in [(0, "thread"), (1, "value")] {
        let (mut s, mut d) = (Vec::new(), Vec::new());
        sm[m].leaves(&mut s);
        dm[m].leaves(&mut d);
        for ((n, at), (st, sat)) in s.into_iter().zip(d) {
            if n == 0 || n & (n - 1) != 0 {
                return Err((
                    at,
                    format!("{name} mode: shape {n} is not a power of two (not GF(2)-linear)"),
                ));
            }
            // a size-1 mode adds no bit: its stride does not matter
            if n > 1 && st != 0 && st & (st - 1) != 0 {
                return Err((
                    sat,
                    format!("{name} mode: stride {st} is not a power of two (not GF(2)-linear)"),
                ));
            }
            for j in 0..n.trailing_zeros() {
                let img = if st == 0 {
                    0
                } else {
                    // the image must keep every bit (no shifting out)
                    Some(st << j.min(63))
                        .filter(|_| st.leading_zeros() > j + 2)
                        .ok_or((sat, format!("{name} mode: stride {st} x {n} overflows")))?
                };
                if img != 0 {
                    if let Some((_, _, other)) = bits.iter().find(|b| b.0 == img) {
                        return Err((sat, format!(
                            "{name} mode: stride {st} reaches index bit {} that a {other} mode already sets: the bits carry into each other (not GF(2)-linear)",
                            img.trailing_zeros()
                        )));
                    }
                    bits.push((img, sat, name));
                }
                if m == 0 {
                    thread.push(img)
                } else {
                    value.push(img)
                }
            }
        }
    }
    let encoding = Encoding::CuteTv {
        thread,
        value,
        text: text.trim().to_string(),
    };
    Ok(super::encoded_text(Format::Cute, encoding, None))
}
