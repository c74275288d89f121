//! One-warp CTAs take their shared-memory round trips in rounds of at most
//! `ONE_WARP_ROUND_BYTES` (2 KB) where some plan fits them, else in the most
//! rounds the tile allows, and the whole tile where no round exists; plans
//! of more scratch win only where they score below `ONE_WARP_MORE_SCRATCH`
//! of the rounds (`synth::plan::shared::shared_plans_report`, `synth::search`).

use synth::parse::parse_ttgir;
use synth::plan::shared::ONE_WARP_ROUND_BYTES;
use synth::plan::{Conversion, Kind, SharedOptions, Strategy, StrategyChoice};
use synth::search::{consider, plan_conversion, plan_conversion_with, plan_width, Weights};

fn conversions(text: &str) -> Vec<Conversion> {
    parse_ttgir(text)
        .unwrap()
        .converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .collect()
}

fn stress_w1(name: &str) -> Conversion {
    let p = format!(
        "{}/../tests/data/stress_w1.ttgir",
        env!("CARGO_MANIFEST_DIR")
    );
    conversions(&std::fs::read_to_string(p).unwrap())
        .into_iter()
        .find(|c| c.name.starts_with(name))
        .unwrap()
}

/// The shared-memory candidates of `c` at its own width under `max_smem`:
/// (scratch bytes, rounds, strategy) each.
fn shared_scratch(c: &Conversion, max_smem: Option<u64>) -> Vec<(u64, u32, Strategy)> {
    let bits = plan_width(c);
    let opt = SharedOptions {
        elem_bits: bits,
        max_smem,
        ..SharedOptions::default()
    };
    let cons = consider(c, StrategyChoice::Shared, &Weights::default(), &opt, None).unwrap();
    cons.proven
        .iter()
        .filter(|k| k.plan.kind == Kind::Shared)
        .map(|k| {
            (
                k.plan.smem_elems * bits as u64 / 8,
                k.plan.rounds.get(),
                k.plan.strategy,
            )
        })
        .collect()
}

#[test]
fn one_warp_tiles_go_in_rounds_of_at_most_2_kb() {
    for name in [
        "warp_local_f16_64x64",
        "warp_local_bf16_32x128",
        "warp_local_i8_64x64",
    ] {
        let c = stress_w1(name);
        assert_eq!(c.num_warps, 1);
        let s = shared_scratch(&c, None);
        assert!(!s.is_empty(), "{name}");
        for (bytes, rounds, strategy) in &s {
            // whole tiles of 8, 8 and 4 KB
            assert!(
                *bytes <= ONE_WARP_ROUND_BYTES,
                "{name}: {strategy} {bytes} bytes"
            );
            assert!(*rounds >= 2, "{name}: {strategy} in {rounds} round(s)");
            // the strategy names the rounds (`/r{rounds}`)
            assert_eq!(
                strategy.shared().map(|s| s.rounds.get()),
                Some(*rounds),
                "{strategy}"
            );
        }
        // a smaller --max-smem still caps
        for (bytes, _, strategy) in shared_scratch(&c, Some(1024)) {
            assert!(bytes <= 1024, "{name}: {strategy} {bytes} bytes");
        }
    }
}

#[test]
fn one_warp_tiles_that_no_round_fits_keep_the_whole_tile() {
    // a transpose of a 32x32 f32 tile (4 KB): every source register runs
    // along dim 0 and every destination register along dim 1, so no
    // register vector is common to both sides and no round exists
    let c = &conversions(
        r#"
#col = #ttg.blocked<{sizePerThread = [32, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#row = #ttg.blocked<{sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @transpose_32x32(%x: tensor<32x32xf32, #col>) {
    %0 = ttg.convert_layout %x : tensor<32x32xf32, #col> -> tensor<32x32xf32, #row>
    tt.return
  }
}
"#,
    )[0];
    let s = shared_scratch(c, None);
    assert!(!s.is_empty());
    for (bytes, rounds, strategy) in &s {
        assert_eq!((*bytes, *rounds), (4096, 1), "{strategy}");
    }
    // where the caller caps below the tile, the cap still refuses
    let bits = plan_width(c);
    let opt = SharedOptions {
        elem_bits: bits,
        max_smem: Some(2048),
        ..SharedOptions::default()
    };
    let e = consider(c, StrategyChoice::Shared, &Weights::default(), &opt, None).unwrap_err();
    assert!(e.to_string().contains("4096"), "{e}");
}

/// The one-warp transposes of `tl.trans` in Triton 3.6's TTGIR (`load`
/// blocked over dim 1, the transposed store blocked over dim 0, f32): at 32
/// bits no plan goes in 2 KB rounds (only two register bits, row 5 and
/// column 5 of a 64x64 tile, are registers on both sides), so the plans are
/// those at the most rounds the tile allows, four of 4 KB, as Triton sizes
/// the scratch of these conversions, not the whole tile in one round
/// (results/runs/2026-11-28-h200-fresh-kernels-*: 4.2-5.9% faster on an H200).
#[test]
fn one_warp_tiles_that_no_2_kb_round_fits_go_in_the_most_rounds_they_allow() {
    for (shape, rounds) in [("64x64", 4u32), ("128x32", 4), ("32x128", 4)] {
        let text = format!(
            r#"
#src = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}}>
#dst = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func @transpose(%x: tensor<{shape}xf32, #src>) {{
    %0 = ttg.convert_layout %x : tensor<{shape}xf32, #src> -> tensor<{shape}xf32, #dst>
    tt.return
  }}
}}
"#
        );
        let c = &conversions(&text)[0];
        assert_eq!(plan_width(c), 32);
        let s = shared_scratch(c, None);
        assert!(!s.is_empty(), "{shape}");
        for (bytes, r, strategy) in &s {
            // the whole tile is 16 KB
            assert_eq!(
                (*bytes, *r),
                (16384 / rounds as u64, rounds),
                "{shape}: {strategy}"
            );
        }
        // a cap below that leaves no plan; above it, the same rounds
        for (cap, same) in [(2048u64, false), (8192, true)] {
            let opt = SharedOptions {
                elem_bits: 32,
                max_smem: Some(cap),
                ..SharedOptions::default()
            };
            let got = consider(c, StrategyChoice::Shared, &Weights::default(), &opt, None);
            match (same, got) {
                (true, Ok(cons)) => {
                    for k in cons.proven.iter().filter(|k| k.plan.kind == Kind::Shared) {
                        assert_eq!(k.plan.rounds.get(), rounds, "{shape}: cap {cap}");
                    }
                }
                (false, Err(e)) => assert!(e.to_string().contains("4096"), "{shape}: {e}"),
                (same, got) => panic!(
                    "{shape}: cap {cap}: expected plans {same}, got {:?}",
                    got.map(|c| c.proven.len())
                ),
            }
        }
    }
}

/// Where the 2 KB rounds force narrow accesses, a plan of more scratch that
/// scores below `ONE_WARP_MORE_SCRATCH` of the best in rounds is chosen: the
/// one-warp 8-bit transposes of `tl.trans` (32x128, 64x64 and 128x32, 4 KB)
/// went through 16-bit stores in two rounds or 320 selects of a shuffle
/// plan, and take the whole tile with `stmatrix` and 16-byte loads (as
/// Triton does, with `ldmatrix`) at 0.60-0.72x the time on an H200
/// (results/runs/2026-11-28-h200-fresh-kernels-*/whole_tile/); the 32-bit
/// ones, whose whole tile scores 0.89-0.95 of the rounds, keep the rounds.
#[test]
fn one_warp_plans_of_more_scratch_win_only_well_below_the_rounds() {
    let transpose = |shape: &str, ty: &str| {
        let text = format!(
            r#"
#src = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}}>
#dst = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"}} {{
  tt.func @transpose(%x: tensor<{shape}x{ty}, #src>) {{
    %0 = ttg.convert_layout %x : tensor<{shape}x{ty}, #src> -> tensor<{shape}x{ty}, #dst>
    tt.return
  }}
}}
"#
        );
        conversions(&text).remove(0)
    };
    for shape in ["32x128", "64x64", "128x32"] {
        let c = transpose(shape, "i8");
        let ch = plan_conversion(&c, StrategyChoice::Auto, &Weights::default()).unwrap();
        assert_eq!(
            ch.plan.kind,
            Kind::Shared,
            "i8 {shape}: {}",
            ch.plan.strategy
        );
        assert_eq!(
            (ch.plan.smem_elems, ch.plan.rounds.get()),
            (4096, 1),
            "i8 {shape}: {}",
            ch.plan.strategy
        );
        // a cap of the tile's 4 KB allows it; a cap of 2 KB leaves the
        // plans in two rounds, which the whole tile outscores
        for (cap, rounds) in [(4096u64, 1u32), (2048, 2)] {
            let opt = SharedOptions {
                elem_bits: 8,
                max_smem: Some(cap),
                ..SharedOptions::default()
            };
            let ch = plan_conversion_with(&c, StrategyChoice::Shared, &Weights::default(), &opt)
                .unwrap();
            assert_eq!(
                ch.plan.rounds.get(),
                rounds,
                "i8 {shape} cap {cap}: {}",
                ch.plan.strategy
            );
        }
        let c32 = transpose(shape, "f32");
        let ch = plan_conversion(&c32, StrategyChoice::Auto, &Weights::default()).unwrap();
        assert_eq!(ch.plan.rounds.get(), 4, "f32 {shape}: {}", ch.plan.strategy);
    }
}
