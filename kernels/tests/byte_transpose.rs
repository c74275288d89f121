//! Register-only conversions of packed 8-bit data that are byte transposes
//! inside a thread (tests/data/byte_transpose.mlir, docs/ARCHITECTURE.md 4.3): the
//! plan is a rename, its packed form a `prmt` network. The cost
//! (`packed_cost`), the simulator (`simulate_packed_form`, which the search
//! runs on every 8/16-bit candidate) and the emitted `_packed8` body agree on
//! it: two stages of 4 `prmt` per 4 words (8 for 16 registers), where
//! building each destination word alone takes 3 (12). Shared-memory plans
//! build the words of a store stage with the same network.

use synth::parse::parse_ttgir;
use synth::plan::pack::{dst_pieces, packed_cost, plan_maps, word_of, Piece};
use synth::plan::{Conversion, Stage, StrategyChoice};
use synth::search::{plan_conversion, Chosen, Weights};
use synth::sim::{simulate_packed_form, SimError};

fn conversions() -> Vec<Conversion> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/byte_transpose.mlir"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let f = parse_ttgir(&text).unwrap();
    f.converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .collect()
}

/// The destination words of a rename plan's packed form as pieces of
/// source words (key: source word index).
fn rename_words(ch: &Chosen, bits: u32) -> Vec<Vec<Piece<u32>>> {
    let (ps, pd) = plan_maps(&ch.plan, bits);
    let [Stage::RegRename { map }] = ch.plan.stages.as_slice() else {
        panic!("not a rename plan: {:?}", ch.plan.stages);
    };
    let vals: Vec<Piece<u32>> = map
        .iter()
        .map(|&r| {
            let (key, slot) = ps.word_slot(r);
            Piece { key, slot }
        })
        .collect();
    dst_pieces(&vals, &pd, ch.plan.dst_regs, bits)
}

/// The body of the helper function `name(` in `code`.
fn body_of<'a>(code: &'a str, name: &str) -> &'a str {
    kernels::definition(code, name).unwrap_or_else(|| panic!("no {name} in\n{code}"))
}

#[test]
fn an_8bit_byte_transpose_is_a_two_stage_prmt_network_everywhere() {
    let convs = conversions();
    let i8s: Vec<&Conversion> = convs.iter().filter(|c| c.elem.bits == 8).collect();
    assert_eq!(i8s.len(), 2, "both directions");
    for c in i8s {
        let ch = plan_conversion(c, StrategyChoice::Auto, &Weights::default()).unwrap();
        assert!(ch.plan.renames_only(), "{}: {}", c.name, ch.plan.strategy);
        assert_eq!(ch.plan.src_regs, 16);
        // every destination word takes one byte from each of four source words
        let words = rename_words(&ch, 8);
        assert_eq!(words.len(), 4);
        for w in &words {
            let mut keys: Vec<u32> = w.iter().map(|p| p.key).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), 4, "{}: {w:?}", c.name);
        }
        // word by word: 3 prmt each; the network: two stages of 4
        let alone: u32 = words.iter().map(|w| word_of(w, 8).1.prmts()).sum();
        assert_eq!(alone, 12, "{}", c.name);
        assert_eq!(packed_cost(&ch.plan, 8).unwrap().prmt, 8, "{}", c.name);
        // the plan's reported cost is its packed form's
        assert_eq!(ch.cost.prmt, 8, "{}", c.name);
        assert_eq!(ch.cost.total(), 8, "{}: {}", c.name, ch.cost);
        // the simulator proves the packed form byte by byte, every thread...
        let rep = simulate_packed_form(&ch.plan, &ch.analysis, 8)
            .unwrap()
            .expect("a packed form");
        assert_eq!(rep.slots, 16 * 32, "{}", c.name);
        // ...and rejects a rename that puts two elements of one word in the
        // wrong slots
        let mut bad = ch.plan.clone();
        let Stage::RegRename { map } = &mut bad.stages[0] else {
            unreachable!()
        };
        map.swap(0, 1);
        assert!(matches!(
            simulate_packed_form(&bad, &ch.analysis, 8),
            Err(SimError::WrongElement { .. })
        ));
        // the emitted packed body: exactly the predicted __byte_perm, in two
        // stages (the first four read source words, the last four only
        // intermediates)
        let h = kernels::emit_helper(c, &ch).unwrap();
        let body = body_of(&h.code, &format!("{}_packed8", h.ident));
        let perms: Vec<&str> = body
            .lines()
            .filter(|l| l.contains("__byte_perm("))
            .collect();
        assert_eq!(perms.len(), 8, "{}:\n{body}", c.name);
        for (k, l) in perms.iter().enumerate() {
            let args = l.split("__byte_perm(").nth(1).unwrap();
            let from_src = args.matches("src[").count();
            assert_eq!(from_src, if k < 4 { 2 } else { 0 }, "{}: {l}", c.name);
        }
        for j in 0..4 {
            assert!(
                body.contains(&format!("dst[{j}] = q")),
                "{}:\n{body}",
                c.name
            );
        }
    }
}

/// The same layouts with 16-bit elements: two per word, one `prmt` per
/// destination word (a halfword transpose of two words is already minimal),
/// predicted, proven and emitted alike.
#[test]
fn the_16bit_halfword_transpose_is_one_prmt_per_word() {
    let convs = conversions();
    let c = convs.iter().find(|c| c.elem.bits == 16).unwrap();
    let ch = plan_conversion(c, StrategyChoice::Auto, &Weights::default()).unwrap();
    assert!(ch.plan.renames_only());
    let words = rename_words(&ch, 16);
    assert_eq!(words.len(), 8);
    assert_eq!(packed_cost(&ch.plan, 16).unwrap().prmt, 8);
    assert_eq!(ch.cost.prmt, 8);
    simulate_packed_form(&ch.plan, &ch.analysis, 16)
        .unwrap()
        .expect("a packed form");
    let h = kernels::emit_helper(c, &ch).unwrap();
    let body = body_of(&h.code, &format!("{}_packed16", h.ident));
    assert_eq!(body.matches("__byte_perm(").count(), 8, "{body}");
}

/// Shared-memory plans build the words a store stage writes by one `prmt`
/// program too: for 8-bit conversions of the corpus whose stored words mix
/// bytes of several register words, every candidate (all shared ones, not
/// only the best few) is proven by the search's byte-level simulator, its
/// emitted `_packed8` body has exactly the predicted `__byte_perm`, and the
/// shared network saves `prmt` over word-by-word stores on some of them.
#[test]
fn store_words_share_a_network_and_emission_matches_the_cost() {
    use synth::plan::pack::{store_pieces, Piece};
    use synth::plan::SharedOptions;
    use synth::search::consider;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/pairs.mlir");
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    let opt = SharedOptions {
        elem_bits: 8,
        ..Default::default()
    };
    let (mut checked, mut saving) = (0usize, 0usize);
    for op in &f.converts {
        if !["shuffle_swap", "mma2_acc_to_dot_a_i8"].contains(&op.name.split(':').next().unwrap()) {
            continue;
        }
        let c = Conversion::from_op(op).unwrap();
        let cons = consider(
            &c,
            StrategyChoice::Auto,
            &Weights::default(),
            &opt,
            Some(usize::MAX),
        )
        .unwrap();
        assert!(cons.failures.is_empty(), "{}: {:?}", op.name, cons.failures);
        for cand in &cons.proven {
            let Some(cost) = packed_cost(&cand.plan, 8) else {
                continue;
            };
            let body = kernels::body_packed("x", &cand.plan, 8).unwrap().unwrap();
            let perms = body
                .iter()
                .map(|l| l.matches("__byte_perm(").count())
                .sum::<usize>();
            assert_eq!(
                perms as u32, cost.prmt,
                "{} {}",
                op.name, cand.plan.strategy
            );
            checked += 1;
            // the store words alone vs the store network, from the source words
            if let [Stage::SmemStore { access }, ..] = cand.plan.stages.as_slice() {
                let (ps, _) = plan_maps(&cand.plan, 8);
                let vals: Vec<Piece<u32>> = (0..cand.plan.src_regs)
                    .map(|r| {
                        let (key, slot) = ps.word_slot(r);
                        Piece { key, slot }
                    })
                    .collect();
                let words = store_pieces(access, &vals);
                let alone: u32 = words.iter().map(|w| word_of(w, 8).1.prmts()).sum();
                let net = synth::plan::pack::words_of(&words, 8).1.prmts();
                assert!(net <= alone);
                saving += (net < alone) as usize;
            }
        }
    }
    assert!(checked > 100, "{checked}");
    assert!(saving > 0, "no candidate's stores share intermediates");
    eprintln!("{checked} packed candidates emitted as predicted; {saving} with shared store words");
}
