use std::collections::BTreeMap;
use synth::plan::pack::{words_of, Operand, Piece, PrmtStep};

/// Print `steps` as `const unsigned qN = __byte_perm(a, b, sel);` lines
/// (inputs named by `keys`, earlier steps by their temporaries); returns the
/// temporaries' names, one per step.
fn emit_prmt_steps(
    out: &mut Vec<String>,
    temps: &mut usize,
    keys: &[String],
    steps: &[PrmtStep],
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for st in steps {
        let t = format!("q{}", *temps);
        *temps += 1;
        out.push(format!(
            "const unsigned {t} = __byte_perm({}, {}, {:#06x}u);",
            operand_name(st.a, keys, &names),
            operand_name(st.b, keys, &names),
            st.selector
        ));
        names.push(t);
    }
    names
}

/// The expression of a `prmt` operand: an input's key or a step's temporary.
fn operand_name(o: Operand, keys: &[String], names: &[String]) -> String {
    match o {
        Operand::Input(k) => keys[k as usize].clone(),
        Operand::Step(k) => names[k as usize].clone(),
    }
}

/// Emit the `prmt` program that packs each entry of `words` (elements of
/// `bits`, slot order) into one word, sharing intermediates between words
/// ([`words_of`], [`synth::plan::pack::network`]); returns each word's
/// expression. The `__byte_perm` calls are exactly the program's `prmt`.
pub(crate) fn prmt_program(
    out: &mut Vec<String>,
    temps: &mut usize,
    words: &[Vec<Piece<String>>],
    bits: u32,
) -> Vec<String> {
    prmt_program_steps(out, temps, words, bits).0
}

/// A `prmt` step as emitted: `(a, b, selector)` by operand expression.
pub(crate) type PrmtDef = (String, String, u32);

/// [`prmt_program`], and the `(a, b, selector)` of each step it emitted, by
/// the step's temporary.
pub(crate) fn prmt_program_steps(
    out: &mut Vec<String>,
    temps: &mut usize,
    words: &[Vec<Piece<String>>],
    bits: u32,
) -> (Vec<String>, BTreeMap<String, PrmtDef>) {
    let (keys, prog) = words_of(words, bits);
    let names = emit_prmt_steps(out, temps, &keys, &prog.steps);
    let defs = prog
        .steps
        .iter()
        .zip(&names)
        .map(|(st, n)| {
            (
                n.clone(),
                (
                    operand_name(st.a, &keys, &names),
                    operand_name(st.b, &keys, &names),
                    st.selector,
                ),
            )
        })
        .collect();
    let outs = prog
        .outputs
        .iter()
        .map(|&o| operand_name(o, &keys, &names))
        .collect();
    (outs, defs)
}
