use crate::prmt::{prmt_program, PrmtDef};
use std::collections::{BTreeMap, BTreeSet};
use synth::plan::pack::Piece;

/// Word selects of a plan by the name of their result: `(lane mask, word if
/// the lane predicate is set, word if clear)`.
pub(crate) type SelDefs = BTreeMap<String, (u32, String, String)>;

/// The destination words of the punned element form (8-bit slots), each
/// from the bytes `words[j]` names. A word whose bytes come from selects on
/// one lane predicate `p{m}` (and plain words) and, for either value of the
/// predicate, from at most two words is one `prmt` of those words with a
/// lane-dependent selector `p{m} ? s1 : s0` (computed once per distinct
/// pair): the select folds into the byte permute, as in Triton's
/// `prmt`-based transpositions (PRs 7809/7933/9713,
/// `getTranspositionSelectors`). On `mma3_to_dot_fp8` that turns the 16
/// selects after the shuffle and the 16 `prmt` that build the destination
/// words into 16 `prmt`. Other words go through [`prmt_program`]; a word
/// that is one select unchanged stays that select.
pub(crate) fn select_folded_words(
    out: &mut Vec<String>,
    temps: &mut usize,
    selectors: &mut Vec<(u32, u32, u32)>,
    words: &[Vec<Piece<String>>],
    sel_def: &SelDefs,
) -> Vec<String> {
    let mut result: Vec<Option<String>> = vec![None; words.len()];
    for (j, w) in words.iter().enumerate() {
        let masks: BTreeSet<u32> = w
            .iter()
            .filter_map(|p| sel_def.get(&p.key).map(|d| d.0))
            .collect();
        let whole = w.iter().all(|p| p.key == w[0].key)
            && w.iter().enumerate().all(|(i, p)| p.slot == i as u32);
        if masks.len() != 1 || whole || w.len() != 4 {
            continue;
        }
        let m = *masks.iter().next().expect("one mask");
        let resolve = |p: &Piece<String>, set: bool| -> String {
            match sel_def.get(&p.key) {
                Some((_, a, b)) => if set { a } else { b }.clone(),
                None => p.key.clone(),
            }
        };
        let mut ops: Vec<String> = Vec::new();
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
        let selector = |set: bool| -> u32 {
            w.iter().enumerate().fold(0, |acc, (i, p)| {
                let k = resolve(p, set);
                let o = ops.iter().position(|x| *x == k).expect("an operand") as u32;
                acc | (4 * o + p.slot) << (4 * i)
            })
        };
        let (s1, s0) = (selector(true), selector(false));
        let sel = lane_selector(out, selectors, m, s1, s0);
        let t = format!("q{}", *temps);
        *temps += 1;
        let b = ops.get(1).unwrap_or(&ops[0]);
        out.push(format!(
            "const unsigned {t} = __byte_perm({}, {b}, {sel});",
            ops[0]
        ));
        result[j] = Some(t);
    }
    let rest: Vec<usize> = (0..words.len()).filter(|&j| result[j].is_none()).collect();
    let rest_words: Vec<Vec<Piece<String>>> = rest.iter().map(|&j| words[j].clone()).collect();
    for (j, n) in rest
        .into_iter()
        .zip(prmt_program(out, temps, &rest_words, 8))
    {
        result[j] = Some(n);
    }
    result
        .into_iter()
        .map(|x| x.expect("every word built"))
        .collect()
}

/// The `prmt` selector `p{m} ? s1 : s0` (a constant when they agree), as
/// a name declared once per distinct triple.
fn lane_selector(
    out: &mut Vec<String>,
    selectors: &mut Vec<(u32, u32, u32)>,
    m: u32,
    s1: u32,
    s0: u32,
) -> String {
    if s1 == s0 {
        return format!("{s1:#06x}u");
    }
    let key = (m, s1, s0);
    let n = match selectors.iter().position(|x| *x == key) {
        Some(n) => n,
        None => {
            out.push(format!(
                "const unsigned ps{} = p{m} ? {s1:#06x}u : {s0:#06x}u;",
                selectors.len()
            ));
            selectors.push(key);
            selectors.len() - 1
        }
    };
    format!("ps{n}")
}

/// `v = p{m} ? prmt(da) : prmt(db)` as one `prmt` with a lane-dependent
/// selector, when the two byte permutes read at most two words between them
/// (the select before a shuffle whose two words are byte permutes of the
/// same natural words, as on the reverse of `mma3_to_dot_fp8`). Returns the
/// line that defines `v`, or `None`.
pub(crate) fn fold_select_of_prmts(
    out: &mut Vec<String>,
    selectors: &mut Vec<(u32, u32, u32)>,
    v: &str,
    m: u32,
    da: &PrmtDef,
    db: &PrmtDef,
) -> Option<String> {
    let mut ops: Vec<&String> = Vec::new();
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
    let sel = lane_selector(out, selectors, m, s1, s0);
    Some(format!(
        "const unsigned {v} = __byte_perm({}, {}, {sel});",
        ops[0],
        ops.get(1).unwrap_or(&ops[0])
    ))
}

/// Remove the definitions (`const unsigned name = ...;`) of the names in
/// `names` that no other line of `out` reads, repeatedly (a removed line
/// may have been the last reader of another), so the source states what
/// runs after [`select_folded_words`] and [`fold_select_of_prmts`].
pub(crate) fn drop_unread(out: &mut Vec<String>, names: &[String]) {
    let reads = |name: &str, line: &str| {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|t| *t == name)
            .count()
    };
    let def_of = |l: &str| -> Option<String> {
        let r = l.strip_prefix("const unsigned ")?;
        let (n, _) = r.split_once(" = ")?;
        Some(n.to_string())
    };
    let mut cands: BTreeSet<String> = names.iter().cloned().collect();
    loop {
        let dead: BTreeSet<String> = cands
            .iter()
            .filter(|v| out.iter().map(|l| reads(v, l)).sum::<usize>() == 1)
            .filter(|v| out.iter().any(|l| def_of(l).as_deref() == Some(v.as_str())))
            .cloned()
            .collect();
        if dead.is_empty() {
            return;
        }
        // what the dead lines read may die next
        let mut next: BTreeSet<String> = BTreeSet::new();
        out.retain(|l| match def_of(l) {
            Some(n) if dead.contains(&n) => {
                let rhs = l.split_once(" = ").map(|x| x.1).unwrap_or("");
                next.extend(
                    rhs.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|t| t.starts_with('q') || t.starts_with('k') || t.starts_with('w'))
                        .map(str::to_string),
                );
                false
            }
            _ => true,
        });
        cands = next;
    }
}
