//! Shared-memory round trips over the scratch limit even in the most rounds
//! over register bits both sides share take further rounds over source warp
//! bits that are destination register bits: those warps store in turn
//! (`synth::plan::WarpGuard`), and every warp loads its registers of the
//! round. The data: 32-warp transposes of `tests/data/warp_rounds.ttgir`
//! (256 KB to 1 MB of data, over sm_90's 227 KB).

use synth::parse::parse_ttgir;
use synth::plan::{smem_limit, Conversion, Kind, SharedOptions, Stage, StrategyChoice};
use synth::search::{plan_conversion_with, Weights};
use synth::sim::simulate;

fn conversions() -> Vec<Conversion> {
    let p = format!(
        "{}/../tests/data/warp_rounds.ttgir",
        env!("CARGO_MANIFEST_DIR")
    );
    parse_ttgir(&std::fs::read_to_string(p).unwrap())
        .unwrap()
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .collect()
}

fn options(bits: u32) -> SharedOptions {
    SharedOptions {
        elem_bits: bits,
        sm: 90,
        max_smem: Some(smem_limit(90)),
        ..SharedOptions::default()
    }
}

fn guarded_stores(stages: &[Stage]) -> usize {
    stages
        .iter()
        .filter(|s| matches!(s, Stage::SmemStore { access } if !access.guard.is_all()))
        .count()
}

#[test]
fn over_the_scratch_limit_warps_store_in_turn() {
    let convs = conversions();
    assert_eq!(convs.len(), 3);
    for c in &convs {
        for bits in [8, 16, 32, 64] {
            let chosen =
                plan_conversion_with(c, StrategyChoice::Auto, &Weights::default(), &options(bits))
                    .unwrap_or_else(|e| panic!("{} at {bits} bits: {e}", c.name));
            let p = &chosen.plan;
            assert_eq!(p.kind, Kind::Shared, "{}", c.name);
            let bytes = p.smem_elems * bits as u64 / 8;
            assert!(
                bytes <= smem_limit(90),
                "{} at {bits} bits: {bytes} bytes",
                c.name
            );
            // the data alone: 32 warps x 32 lanes x elements x bytes
            let data = 1024 * p.src_regs as u64 * bits as u64 / 8;
            let guarded = guarded_stores(&p.stages);
            if data >> p.rounds.get().trailing_zeros() > smem_limit(90) || bits >= 32 {
                // 32/64-bit: the register rounds leave 256-512 KB
                assert!(guarded > 0, "{} at {bits} bits: {}", c.name, p.strategy);
                assert!(
                    p.strategy.shared().is_some_and(|s| s.warp_rounds.is_some()),
                    "{}",
                    p.strategy
                );
            }
            if guarded > 0 {
                // every round's stores are guarded, each by its own warps
                let guards: Vec<_> = p
                    .stages
                    .iter()
                    .filter_map(|s| match s {
                        Stage::SmemStore { access } => Some(access.guard),
                        _ => None,
                    })
                    .collect();
                assert_eq!(guards.len() as u32, p.rounds.get(), "{}", p.strategy);
                let mut values: Vec<u32> = guards.iter().map(|g| g.value).collect();
                values.sort();
                values.dedup();
                assert_eq!(
                    values.len(),
                    1 << guards[0].mask.count_ones(),
                    "{}",
                    p.strategy
                );
            }
        }
    }
}

/// The simulator proves the guards: a store by the wrong warps, or by every
/// warp, is caught.
#[test]
fn a_wrong_warp_guard_is_caught() {
    let c = &conversions()[0];
    let chosen =
        plan_conversion_with(c, StrategyChoice::Auto, &Weights::default(), &options(32)).unwrap();
    assert!(simulate(&chosen.plan, &chosen.analysis).is_ok());
    let first_guarded = chosen
        .plan
        .stages
        .iter()
        .position(|s| matches!(s, Stage::SmemStore { access } if !access.guard.is_all()))
        .expect("a guarded store");
    for broken in ["other warps", "every warp"] {
        let mut p = chosen.plan.clone();
        if let Stage::SmemStore { access } = &mut p.stages[first_guarded] {
            match broken {
                "other warps" => access.guard.value ^= access.guard.mask,
                _ => access.guard.mask = 0,
            }
        }
        if broken == "every warp" {
            if let Stage::SmemStore { access } = &mut p.stages[first_guarded] {
                access.guard.value = 0;
            }
        }
        assert!(
            simulate(&p, &chosen.analysis).is_err(),
            "a store by {broken} was not caught"
        );
    }
}

/// The bank conflicts the search ranks tied candidates by before proving
/// them (`synth::sim::predicted_bank_conflicts`) are the simulator's, for
/// every proven candidate of the bundled pairs, a stress file and these
/// tiles, at every width.
#[test]
fn predicted_bank_conflicts_are_the_simulators() {
    use synth::search::consider;
    use synth::sim::predicted_bank_conflicts;
    let mut convs = conversions();
    for f in ["corpus/pairs.mlir", "tests/data/stress_w4.ttgir"] {
        let p = format!("{}/../{f}", env!("CARGO_MANIFEST_DIR"));
        convs.extend(
            parse_ttgir(&std::fs::read_to_string(p).unwrap())
                .unwrap()
                .converts
                .iter()
                .filter_map(|op| Conversion::from_op(op).ok()),
        );
    }
    let mut checked = 0;
    for c in &convs {
        for bits in [8, 16, 32, 64] {
            let Ok(cons) = consider(
                c,
                StrategyChoice::Auto,
                &Weights::default(),
                &options(bits),
                None,
            ) else {
                continue;
            };
            for k in &cons.proven {
                if let Some(n) = predicted_bank_conflicts(&k.plan, &cons.analysis) {
                    assert_eq!(
                        n, k.sim.bank_conflicts,
                        "{} {bits}-bit {}",
                        c.name, k.plan.strategy
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 500, "{checked}");
}
