//! Split stores of 8/16-bit data in their packed form
//! (tests/data/broadcast_stores_w1.mlir, tests/data/broadcast_stores.mlir):
//! a store whose broadcast copies store different registers
//! (`SmemAccess::reg_xor`, strategy `/splitK`) chooses whole 32-bit words
//! per lane where the paired register bits are not slot bits
//! (`synth::plan::pack::store_word_choice`). The cost (`packed_cost`), the
//! byte-level simulator (`simulate_packed_form`, which works from the
//! access's register choice thread by thread, not from the word maps) and
//! the emitted `_packed8`/`_packed16` body agree on which candidates have
//! that form (all the search enumerates at these widths) and on its selects
//! and `prmt`; the printed helper is proven by the interpreter; a choice
//! over a slot bit has no packed form, and a wrong one fails both proofs.

use synth::parse::parse_ttgir;
use synth::plan::pack::{packed_cost, plan_maps};
use synth::plan::{AddrMap, Conversion, SharedOptions, Stage, StrategyChoice};
use synth::search::{consider, plan_conversion, Weights};
use synth::sim::{simulate_packed_form, SimError};

fn conversions(file: &str) -> Vec<Conversion> {
    let path = format!("{}/../tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    f.converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .collect()
}

/// Selects in printed lines: one `?` per `(p ? a : b)`.
fn selects(lines: &[String]) -> u32 {
    lines.iter().map(|l| l.matches(" ? ").count() as u32).sum()
}

#[test]
fn every_split_candidate_agrees_on_its_packed_form() {
    let (mut with, mut without) = (0usize, 0usize);
    let convs = [
        conversions("broadcast_stores_w1.mlir"),
        conversions("broadcast_stores.mlir"),
    ]
    .concat();
    for c in &convs {
        for bits in [8u32, 16] {
            let opt = SharedOptions {
                elem_bits: bits,
                ..Default::default()
            };
            let cons = consider(
                c,
                StrategyChoice::Shared,
                &Weights::default(),
                &opt,
                Some(usize::MAX),
            )
            .unwrap();
            assert!(cons.failures.is_empty(), "{}: {:?}", c.name, cons.failures);
            for cand in cons
                .proven
                .iter()
                .filter(|k| k.plan.stores_by_lane_choice())
            {
                let p = &cand.plan;
                let what = format!("{} at {bits} bits, {}", c.name, p.strategy);
                let cost = packed_cost(p, bits);
                let sim = simulate_packed_form(p, &cons.analysis, bits)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                let body = kernels::body_packed(&c.name, p, bits).unwrap();
                assert_eq!(cost.is_some(), sim.is_some(), "{what}");
                assert_eq!(cost.is_some(), body.is_some(), "{what}");
                let (Some(cost), Some(body)) = (cost, body) else {
                    without += 1;
                    continue;
                };
                with += 1;
                assert_eq!(selects(&body), cost.sel, "{what}:\n{}", body.join("\n"));
                let perms: u32 = body
                    .iter()
                    .map(|l| l.matches("__byte_perm(").count() as u32)
                    .sum();
                assert_eq!(perms, cost.prmt, "{what}");
                // the selects choose words: a tree per input word, not per element
                assert!(cost.sel < p.cost().sel, "{what}: {cost} vs {}", p.cost());
            }
        }
    }
    eprintln!("{with} split candidates with a packed form, {without} without");
    assert!(with >= 50, "{with}");
    // at 8/16 bits the shared-memory search keeps only the split stores
    // whose packed form chooses whole words (`synth::plan::shared`)
    assert_eq!(without, 0, "split candidates without a packed form");
}

#[test]
fn the_one_warp_broadcast_rows_store_a_quarter_and_are_proven() {
    let convs = conversions("broadcast_stores_w1.mlir");
    for c in &convs {
        let ch = plan_conversion(c, StrategyChoice::Auto, &Weights::default()).unwrap();
        let bits = c.elem.bits;
        let s = ch.plan.strategy.to_string();
        assert!(s.ends_with("/split2"), "{}: {s}", c.name);
        assert!(ch.plan.packed_form(bits), "{}: {s}", c.name);
        // 128 (f16) or 128 (i8) source elements, a quarter of them stored
        let stored: u32 = ch
            .plan
            .stages
            .iter()
            .filter_map(|st| match st {
                Stage::SmemStore { access } => Some(access.insts.len() as u32 * access.bytes()),
                _ => None,
            })
            .sum();
        assert_eq!(stored, 128 * bits / 8 / 4, "{}: {s}", c.name);
        let h = kernels::emit_helper(c, &ch).unwrap();
        let proofs = kernels::prove(&h, &ch.analysis).unwrap();
        let forms: Vec<&str> = proofs.iter().map(|p| p.form.as_str()).collect();
        assert!(forms.contains(&&*format!("packed{bits}")), "{forms:?}");
        let body = kernels::definition(&h.code, &format!("{}_packed{bits}", h.ident)).unwrap();
        assert!(
            body.contains("const unsigned c0_0 = (q0_lane3 ? "),
            "{body}"
        );
    }
}

#[test]
fn a_choice_over_a_slot_bit_has_no_packed_form_and_a_wrong_one_fails() {
    let c = &conversions("broadcast_stores_w1.mlir")[0];
    let ch = plan_conversion(c, StrategyChoice::Auto, &Weights::default()).unwrap();
    let (ps, _) = plan_maps(&ch.plan, 16);
    let with_choice = |f: &dyn Fn(&AddrMap) -> AddrMap| {
        let mut p = ch.plan.clone();
        for st in &mut p.stages {
            if let Stage::SmemStore { access } = st {
                access.reg_xor = f(&access.reg_xor);
            }
        }
        p
    };
    // lane bit 3 choosing over the source's slot bit: halves of one word
    let slot = 1u32 << ps.slot_bits[0];
    let over_slot = with_choice(&|x| AddrMap {
        lane: x
            .lane
            .iter()
            .map(|&m| if m != 0 { slot } else { 0 })
            .collect(),
        warp: x.warp.clone(),
    });
    assert!(packed_cost(&over_slot, 16).is_none());
    assert_eq!(
        simulate_packed_form(&over_slot, &ch.analysis, 16).unwrap(),
        None
    );
    assert!(kernels::body_packed("x", &over_slot, 16).unwrap().is_none());
    // the two lane bits' registers swapped: whole words, the wrong ones
    let swapped = with_choice(&|x| AddrMap {
        lane: x
            .lane
            .iter()
            .map(|&m| if m != 0 { x.base_bits() ^ m } else { 0 })
            .collect(),
        warp: x.warp.clone(),
    });
    assert!(packed_cost(&swapped, 16).is_some());
    assert!(matches!(
        simulate_packed_form(&swapped, &ch.analysis, 16),
        Err(SimError::WrongElement { .. })
    ));
    let mut bad = ch.clone();
    bad.plan = swapped;
    let h = kernels::emit_helper(c, &bad).unwrap();
    assert!(kernels::prove(&h, &ch.analysis).is_err());
    // the printed packed form alone fails the interpreter too
    use kernels::kir::interp::{run, Io, Setup};
    let pf = h.packed_form(16).expect("a packed form");
    let (_, body) = h.kir.packed.iter().find(|(b, _)| *b == 16).unwrap();
    let setup = Setup {
        an: &ch.analysis,
        elem_bytes: 2,
        src: Io::Packed(&pf.src),
        dst: Io::Packed(&pf.dst),
        words: "automatic",
        packed: &[],
        smem_bytes: h.smem_bytes(16).unwrap(),
        first_warp: 0,
    };
    assert!(run(body, &setup).is_err());
    // and the chosen plan's passes it
    let good = kernels::emit_helper(c, &ch).unwrap();
    let (_, body) = good.kir.packed.iter().find(|(b, _)| *b == 16).unwrap();
    let pf = good.packed_form(16).unwrap();
    let setup = Setup {
        src: Io::Packed(&pf.src),
        dst: Io::Packed(&pf.dst),
        ..setup
    };
    assert_eq!(run(body, &setup).unwrap().slots, 32 * 32);
}
