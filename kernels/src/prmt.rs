use crate::kir::{Body, Expr, Ty, Val};
use std::collections::{BTreeMap, BTreeSet};
use synth::plan::pack::{words_of, Operand, Piece, PrmtStep};

/// The `prmt` temporaries `q{n}` of a body: how many are declared, and
/// which values they are (a pass may drop those a fold left unread).
#[derive(Default)]
pub(crate) struct Temps {
    /// Temporaries declared so far (the next is `q{n}`).
    n: usize,
    /// Every temporary declared.
    pub made: BTreeSet<Val>,
}

impl Temps {
    /// Declare the next temporary `const unsigned q{n} = e;` into `b`.
    pub(crate) fn next(&mut self, b: &mut Body, e: Expr) -> Val {
        let v = b.let_(format!("q{}", self.n), Ty::U32, e);
        self.n += 1;
        self.made.insert(v);
        v
    }
}

/// Declare `steps` as `const unsigned qN = __byte_perm(a, b, sel);` (inputs
/// `keys`, earlier steps by their temporaries); returns the temporaries,
/// one per step.
fn emit_prmt_steps(b: &mut Body, temps: &mut Temps, keys: &[Expr], steps: &[PrmtStep]) -> Vec<Val> {
    let mut names: Vec<Val> = Vec::new();
    for st in steps {
        let e = Expr::prmt(
            operand(st.a, keys, &names),
            operand(st.b, keys, &names),
            Expr::sel(st.selector),
        );
        names.push(temps.next(b, e));
    }
    names
}

/// A `prmt` operand: an input's key or a step's temporary.
fn operand(o: Operand, keys: &[Expr], names: &[Val]) -> Expr {
    match o {
        Operand::Input(k) => keys[k as usize].clone(),
        Operand::Step(k) => Expr::V(names[k as usize]),
    }
}

/// Emit the `prmt` program that packs each entry of `words` (elements of
/// `bits`, slot order; pieces keyed by the word they sit in) into one word,
/// sharing intermediates between words ([`words_of`],
/// [`synth::plan::pack::network`]); returns each word's value. The
/// `__byte_perm` calls are exactly the program's `prmt`.
pub(crate) fn prmt_program(
    b: &mut Body,
    temps: &mut Temps,
    words: &[Vec<Piece<Expr>>],
    bits: u32,
) -> Vec<Expr> {
    prmt_program_steps(b, temps, words, bits).0
}

/// A `prmt` step as emitted: `(a, b, selector)` (its operands).
pub(crate) type PrmtDef = (Expr, Expr, u32);

/// [`prmt_program`], and the `(a, b, selector)` of each step it emitted, by
/// the step's temporary.
pub(crate) fn prmt_program_steps(
    b: &mut Body,
    temps: &mut Temps,
    words: &[Vec<Piece<Expr>>],
    bits: u32,
) -> (Vec<Expr>, BTreeMap<Val, PrmtDef>) {
    let (keys, prog) = words_of(words, bits);
    let names = emit_prmt_steps(b, temps, &keys, &prog.steps);
    let defs = prog
        .steps
        .iter()
        .zip(&names)
        .map(|(st, n)| {
            (
                *n,
                (
                    operand(st.a, &keys, &names),
                    operand(st.b, &keys, &names),
                    st.selector,
                ),
            )
        })
        .collect();
    let outs = prog
        .outputs
        .iter()
        .map(|&o| operand(o, &keys, &names))
        .collect();
    (outs, defs)
}
