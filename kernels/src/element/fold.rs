use crate::kir::{Body, Expr, Stmt, Ty, Val};
use crate::prmt::{prmt_program, PrmtDef, Temps};
use std::collections::{BTreeMap, BTreeSet};
use synth::plan::pack::Piece;

/// Word selects of a plan by their result: `(lane predicate, word if the
/// predicate is set, word if clear)`.
pub(crate) type SelDefs = BTreeMap<Val, (Val, Expr, Expr)>;

/// The lane-dependent `prmt` selectors of a body: `(predicate, selector if
/// set, selector if clear)` and the value `ps{n}` declared for it.
pub(crate) type Selectors = Vec<((Val, u32, u32), Val)>;

/// The select that defines `key`, when `key` is one.
fn sel_of<'s>(sel_def: &'s SelDefs, key: &Expr) -> Option<&'s (Val, Expr, Expr)> {
    key.as_val().and_then(|v| sel_def.get(&v))
}

/// The destination words of the punned element form (`bits`-bit slots, 8
/// or 16), each from the elements `words[j]` names. A word whose elements
/// come from selects on one lane predicate `p{m}` (and plain words) and,
/// for either value of the predicate, from at most two words is one `prmt`
/// of those words with a lane-dependent selector `p{m} ? s1 : s0`
/// (computed once per distinct pair): the select folds into the byte
/// permute, as in Triton's
/// `prmt`-based transpositions (PRs 7809/7933/9713,
/// `getTranspositionSelectors`). On `mma3_to_dot_fp8` that turns the 16
/// selects after the shuffle and the 16 `prmt` that build the destination
/// words into 16 `prmt`. Other words go through [`prmt_program`]; a word
/// that is one select unchanged stays that select. Returns each word's
/// value; the statements are appended to `b`.
pub(crate) fn select_folded_words(
    b: &mut Body,
    temps: &mut Temps,
    selectors: &mut Selectors,
    words: &[Vec<Piece<Expr>>],
    bits: u32,
    sel_def: &SelDefs,
) -> Vec<Expr> {
    let per = (32 / bits) as usize;
    let bytes = bits / 8;
    let mut result: Vec<Option<Expr>> = vec![None; words.len()];
    for (j, w) in words.iter().enumerate() {
        let preds: BTreeSet<Val> = w
            .iter()
            .filter_map(|p| sel_of(sel_def, &p.key).map(|d| d.0))
            .collect();
        let whole = w.iter().all(|p| p.key == w[0].key)
            && w.iter().enumerate().all(|(i, p)| p.slot == i as u32);
        if preds.len() != 1 || whole || w.len() != per {
            continue;
        }
        let pred = *preds.iter().next().expect("one predicate");
        let resolve = |p: &Piece<Expr>, set: bool| -> Expr {
            match sel_of(sel_def, &p.key) {
                Some((_, a, b)) => if set { a } else { b }.clone(),
                None => p.key.clone(),
            }
        };
        let mut ops: Vec<Expr> = Vec::new();
        for set in [true, false] {
            for p in w {
                let k = resolve(p, set);
                if !ops.contains(&k) {
                    ops.push(k);
                }
            }
        }
        if ops.len() > 2 {
            continue;
        }
        // byte k of element i: byte `slot * bytes + k` of its operand
        let selector = |set: bool| -> u32 {
            w.iter().enumerate().fold(0, |acc, (i, p)| {
                let k = resolve(p, set);
                let o = ops.iter().position(|x| *x == k).expect("an operand") as u32;
                (0..bytes).fold(acc, |acc, k| {
                    acc | (4 * o + p.slot * bytes + k) << (4 * (i as u32 * bytes + k))
                })
            })
        };
        let (s1, s0) = (selector(true), selector(false));
        let (sel, decl) = lane_selector(b, selectors, pred, s1, s0);
        b.stmts.extend(decl);
        let second = ops.get(1).unwrap_or(&ops[0]).clone();
        let t = temps.next(b, Expr::prmt(ops[0].clone(), second, sel));
        result[j] = Some(Expr::V(t));
    }
    let rest: Vec<usize> = (0..words.len()).filter(|&j| result[j].is_none()).collect();
    let rest_words: Vec<Vec<Piece<Expr>>> = rest.iter().map(|&j| words[j].clone()).collect();
    for (j, n) in rest
        .into_iter()
        .zip(prmt_program(b, temps, &rest_words, bits))
    {
        result[j] = Some(n);
    }
    result
        .into_iter()
        .map(|x| x.expect("every word built"))
        .collect()
}

/// The `prmt` selector `pred ? s1 : s0` (a constant when they agree), as
/// a value `ps{n}` declared once per distinct triple: the selector, and the
/// declaration to place before its first use where it is new.
fn lane_selector(
    b: &mut Body,
    selectors: &mut Selectors,
    pred: Val,
    s1: u32,
    s0: u32,
) -> (Expr, Option<Stmt>) {
    if s1 == s0 {
        return (Expr::sel(s1), None);
    }
    let key = (pred, s1, s0);
    if let Some(x) = selectors.iter().find(|x| x.0 == key) {
        return (Expr::V(x.1), None);
    }
    let v = b.val(format!("ps{}", selectors.len()), Ty::U32);
    selectors.push((key, v));
    let e = Expr::cond(Expr::V(pred), Expr::sel(s1), Expr::sel(s0));
    (Expr::V(v), Some(Stmt::Let { v, e }))
}

/// `pred ? prmt(da) : prmt(db)` as one `prmt` with a lane-dependent
/// selector, when the two byte permutes read at most two words between them
/// (the select before a shuffle whose two words are byte permutes of the
/// same natural words, as on the reverse of `mma3_to_dot_fp8`). Returns the
/// `__byte_perm` expression and the selector's declaration where it is new
/// (to place before it), or `None`.
pub(crate) fn fold_select_of_prmts(
    b: &mut Body,
    selectors: &mut Selectors,
    pred: Val,
    da: &PrmtDef,
    db: &PrmtDef,
) -> Option<(Expr, Option<Stmt>)> {
    let mut ops: Vec<&Expr> = Vec::new();
    for w in [&da.0, &da.1, &db.0, &db.1] {
        if !ops.contains(&w) {
            ops.push(w);
        }
    }
    if ops.len() > 2 {
        return None;
    }
    let remap = |d: &PrmtDef| -> Option<u32> {
        (0..4).try_fold(0u32, |acc, i| {
            let n = d.2 >> (4 * i) & 0xf;
            let (w, byte) = match n {
                0..=3 => (&d.0, n),
                4..=7 => (&d.1, n - 4),
                _ => return None,
            };
            let o = ops.iter().position(|x| *x == w)? as u32;
            Some(acc | (4 * o + byte) << (4 * i))
        })
    };
    let (s1, s0) = (remap(da)?, remap(db)?);
    let (sel, decl) = lane_selector(b, selectors, pred, s1, s0);
    let e = Expr::prmt(
        ops[0].clone(),
        (*ops.get(1).unwrap_or(&ops[0])).clone(),
        sel,
    );
    Some((e, decl))
}
