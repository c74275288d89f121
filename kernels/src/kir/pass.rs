//! Typed passes on the kernel IR. They read and rewrite values and
//! statements, never printed text.

use super::{Body, Expr, Stmt, Val};
use std::collections::{BTreeMap, BTreeSet};

/// How many times each value is read by the statements of `body`
/// (definitions not counted), nested blocks included.
pub fn read_counts(body: &Body) -> BTreeMap<Val, usize> {
    let mut n = BTreeMap::new();
    for s in &body.stmts {
        count_reads(s, &mut n);
    }
    n
}

/// Add the reads of `s` to `n`.
fn count_reads(s: &Stmt, n: &mut BTreeMap<Val, usize>) {
    s.for_each_expr(&mut |e: &Expr| {
        e.for_each_val(&mut |v| *n.entry(v).or_default() += 1);
    });
}

/// Remove the top-level `Let` definitions of `U32` words in `cands` that
/// nothing reads, then, among the values those definitions read, of those
/// `may_drop` accepts and nothing reads any more, until none is left
/// (dead-value elimination seeded by a fold that replaced the readers of
/// some values: the body then states exactly what runs). Returns how many
/// statements were removed.
pub fn drop_unread(body: &mut Body, cands: &[Val], may_drop: impl Fn(Val) -> bool) -> usize {
    let mut cands: BTreeSet<Val> = cands.iter().copied().collect();
    let mut removed = 0;
    loop {
        let reads = read_counts(body);
        let dead: BTreeSet<Val> = cands
            .iter()
            .copied()
            .filter(|v| reads.get(v).copied().unwrap_or(0) == 0)
            .filter(|v| {
                body.stmts
                    .iter()
                    .any(|s| matches!(s, Stmt::Let { v: d, .. } if d == v))
                    && body.info(*v).ty == super::Ty::U32
            })
            .collect();
        if dead.is_empty() {
            return removed;
        }
        let mut next = BTreeSet::new();
        body.stmts.retain(|s| match s {
            Stmt::Let { v, e } if dead.contains(v) => {
                e.for_each_val(&mut |r| {
                    if may_drop(r) {
                        next.insert(r);
                    }
                });
                removed += 1;
                false
            }
            _ => true,
        });
        cands = next;
    }
}

/// The index of the top-level statement that defines `v`, if any.
pub fn def_index(body: &Body, v: Val) -> Option<usize> {
    body.stmts.iter().position(|s| s.defs().contains(&v))
}
