//! Every conversion of the bundled corpus (`corpus/`) is
//! parsed, planned and proven on the CPU simulator.

use std::collections::HashMap;
use synth::parse::parse_ttgir;
use synth::plan::{Conversion, Kind, StrategyChoice};
use synth::search::{plan_conversion, Chosen, Weights};

fn corpus(path: &str) -> Vec<Chosen> {
    let p = format!("{}/../corpus/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&p).unwrap();
    let f = parse_ttgir(&text).unwrap_or_else(|e| panic!("{p}: {e}"));
    f.converts
        .iter()
        .map(|op| {
            let c = Conversion::from_op(op).unwrap_or_else(|e| panic!("{e}"));
            let ch = plan_conversion(&c, StrategyChoice::Auto, &Weights::default())
                .unwrap_or_else(|e| panic!("{e}"));
            eprintln!(
                "{:<28} {:<9} {:<28} m={} {}",
                op.name,
                ch.plan.kind.as_str(),
                ch.plan.strategy,
                ch.plan.m,
                ch.cost
            );
            ch
        })
        .collect()
}

fn by_func<'a>(v: &'a [Chosen], f: &str) -> &'a Chosen {
    v.iter()
        .find(|c| c.analysis.name.starts_with(&format!("{f}:")))
        .unwrap()
}

#[test]
fn pairs_all_verify_and_meet_triton_budgets() {
    let v = corpus("pairs.mlir");
    assert_eq!(v.len(), 11);
    let c = by_func(&v, "shuffle_swap").cost;
    assert!(c.shfl <= 32 && c.sel <= 64, "{c}");
    let c = by_func(&v, "shuffle_ship").cost;
    assert!(c.shfl <= 16 && c.sel <= 48, "{c}");
    let c = by_func(&v, "cvt16_m1").cost;
    assert!(c.shfl <= 8 && c.sel <= 16, "{c}");
    let c = by_func(&v, "fig3").cost;
    assert!(c.shfl <= 2 && c.sel <= 4, "{c}");
    // m = 3: shared memory (Triton's path; faster than Triton's kernel on
    // an H100, results/runs/2026-11-22-h100-bench-180de76/bench.md), within Triton's 8 STS + 8 LDS, no BAR.
    let ch = by_func(&v, "cvt16_m2");
    assert_eq!(ch.plan.kind, Kind::Shared);
    assert!(
        ch.cost.sts + ch.cost.lds <= 16 && ch.cost.bar == 0,
        "{}",
        ch.cost
    );
    assert_eq!(ch.sim.bank_conflicts, 0);
    assert_eq!(
        by_func(&v, "mma2_acc_to_dot_a_f16").plan.kind,
        Kind::Identity
    );
    assert_eq!(by_func(&v, "mma2_acc_to_dot_a_f16").cost.total(), 0);
}

/// Every conversion of every corpus file is planned and proven on the CPU
/// simulator; every one Triton 3.6 lowers through shared memory
/// (`corpus/triton36_h200.jsonl`) is predicted at most Triton's
/// STS+LDS+STSM+LDSM and BAR, with zero bank conflicts.
/// The chosen plans of `files` (paths under `corpus/`), keyed
/// `file:func:line` as `corpus/triton36_h200.jsonl` names conversions.
fn planned(files: &[String]) -> HashMap<String, Chosen> {
    let mut planned = HashMap::new();
    for f in files {
        let base = f.rsplit('/').next().unwrap().to_string();
        for ch in corpus(f) {
            planned.insert(format!("{base}:{}", ch.analysis.name), ch);
        }
    }
    planned
}

/// The chosen plan of `name` among `planned`; panics naming it if absent.
fn chosen<'a>(planned: &'a HashMap<String, Chosen>, name: &str) -> &'a Chosen {
    planned
        .get(name)
        .unwrap_or_else(|| panic!("{name} not planned"))
}

/// What Triton 3.6 emits, per row of `corpus/triton36_h200.jsonl` that has
/// SASS counts: the row's conversion names, its element type and its
/// counts by lower-case SASS class (`shfl`, `sel`, `prmt`, `sts`, ...).
fn triton_rows() -> Vec<(Vec<String>, String, HashMap<String, u32>)> {
    let path = format!(
        "{}/../corpus/triton36_h200.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|line| {
            let t: serde_json::Value = serde_json::from_str(line).unwrap();
            let counts = t.get("triton_sass")?.as_object()?;
            let names = t["conversions"].as_array().unwrap();
            Some((
                names
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect(),
                t["elem"].as_str().unwrap().to_string(),
                counts
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap() as u32))
                    .collect(),
            ))
        })
        .collect()
}

#[test]
fn every_corpus_conversion_proven_and_within_tritons_shared_counts() {
    let dir = format!("{}/../corpus", env!("CARGO_MANIFEST_DIR"));
    let mut files = vec!["pairs.mlir".to_string()];
    let mut ttgir: Vec<String> = std::fs::read_dir(format!("{dir}/ttgir"))
        .unwrap()
        .map(|e| format!("ttgir/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    ttgir.sort();
    files.extend(ttgir);
    let planned = planned(&files);
    assert!(planned.len() >= 45, "{} conversions", planned.len());
    let mut checked = 0;
    for (names, _, n) in triton_rows() {
        let t_acc = n["sts"] + n["lds"] + n["stsm"] + n["ldsm"];
        if t_acc == 0 {
            continue;
        }
        for name in &names {
            let ch = chosen(&planned, name);
            let c = ch.cost;
            assert!(
                c.sts + c.lds + c.stsm + c.ldsm <= t_acc && c.bar <= n["bar"],
                "{name}: {} ({}) vs Triton {t_acc} accesses, {} BAR",
                c,
                ch.plan.strategy,
                n["bar"]
            );
            assert_eq!(ch.sim.bank_conflicts, 0, "{name}: {}", ch.plan.strategy);
            checked += 1;
        }
    }
    assert!(checked >= 25, "{checked} shared-memory conversions checked");
}

/// Every 8- or 16-bit conversion that Triton 3.6 lowers with shuffles
/// (`corpus/triton36_h200.jsonl`) is predicted at most Triton's SHFL and at
/// most its SHFL+SEL+PRMT (issue 6); `fig3` takes at most 2 shuffles and
/// `mma3_to_dot_fp8` (the fp8 attention P operand) at most 16.
#[test]
fn every_sub_word_shuffle_conversion_within_tritons_counts() {
    let planned = planned(&["pairs.mlir".into(), "ttgir/attn_vfp8e4nv_sm90.ttgir".into()]);
    let mut checked = 0;
    for (names, elem, n) in triton_rows() {
        let sub_word =
            elem.starts_with("f8") || matches!(elem.as_str(), "i8" | "i16" | "f16" | "bf16");
        if !sub_word || n["shfl"] == 0 || n["sts"] + n["lds"] + n["stsm"] + n["ldsm"] > 0 {
            continue;
        }
        for name in &names {
            let ch = chosen(&planned, name);
            let c = ch.cost;
            assert!(
                c.shfl <= n["shfl"] && c.shfl + c.sel + c.prmt <= n["shfl"] + n["sel"] + n["prmt"],
                "{name}: {c} ({}) vs Triton {} SHFL + {} SEL + {} PRMT",
                ch.plan.strategy,
                n["shfl"],
                n["sel"],
                n["prmt"]
            );
            checked += 1;
        }
    }
    assert_eq!(
        checked, 5,
        "the five 8/16-bit shuffle conversions of the corpus"
    );
    let v = corpus("pairs.mlir");
    assert!(by_func(&v, "fig3").cost.shfl <= 2);
    assert!(by_func(&v, "mma3_to_dot_fp8").cost.shfl <= 16);
}

#[test]
fn ttgir_files_all_verify() {
    for f in [
        "attn_vfp8e4nv_sm90.ttgir",
        "matmul_fp16_sm80.ttgir",
        "transpose_softmax_sm80.ttgir",
    ] {
        let v = corpus(&format!("ttgir/{f}"));
        assert!(!v.is_empty(), "{f} has conversions");
    }
}

/// The simulator rejects broken shared-memory plans: warps that store
/// different values to one address race, and a `__syncwarp()` where other
/// warps' data is read leaves it invisible.
#[test]
fn simulator_catches_races_and_missing_barriers() {
    use synth::plan::{BarrierScope, Stage};
    use synth::sim::{simulate, SimError};
    let v = corpus("pairs.mlir");
    let ch = by_func(&v, "swizzled_warps");
    assert_eq!(ch.plan.kind, Kind::Shared);
    assert!(!ch.analysis.warp_local);
    let mut racy = ch.plan.clone();
    for s in racy.stages.iter_mut() {
        if let Stage::SmemStore { access } = s {
            access.addr.warp.iter_mut().for_each(|c| *c = 0);
        }
    }
    assert!(matches!(
        simulate(&racy, &ch.analysis),
        Err(SimError::StoreConflict { .. })
    ));
    let mut unsynced = ch.plan.clone();
    for s in unsynced.stages.iter_mut() {
        if let Stage::Barrier { scope } = s {
            *scope = BarrierScope::Warp;
        }
    }
    assert!(matches!(
        simulate(&unsynced, &ch.analysis),
        Err(SimError::NotVisible { .. })
    ));
}

/// Every corpus conversion at 8 and 16 bits: every candidate the search
/// keeps passes the simulator in both helper forms (elements, then the
/// packed form on 32-bit words, byte by byte with `prmt` semantics), so
/// every `_packed16`/`_packed8` helper the emitter writes for the corpus
/// (and the regression cases) is proven on the CPU.
#[test]
fn every_corpus_packed_form_is_proven_byte_by_byte() {
    use synth::plan::SharedOptions;
    use synth::search::consider;
    let root = format!("{}/..", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = vec![
        format!("{root}/corpus/pairs.mlir"),
        format!("{root}/tests/data/regressions.mlir"),
    ];
    let mut ttgir: Vec<String> = std::fs::read_dir(format!("{root}/corpus/ttgir"))
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    ttgir.sort();
    files.extend(ttgir);
    let (mut proven, mut packed) = (0usize, 0usize);
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        let f = parse_ttgir(&text).unwrap_or_else(|e| panic!("{p}: {e}"));
        for op in &f.converts {
            let c = Conversion::from_op(op).unwrap();
            for bits in [8u32, 16] {
                let opt = SharedOptions {
                    elem_bits: bits,
                    ..Default::default()
                };
                let Ok(cons) = consider(&c, StrategyChoice::Auto, &Weights::default(), &opt, None)
                else {
                    continue;
                };
                assert!(
                    cons.failures.is_empty(),
                    "{p}: {} at {bits} bits: {:?}",
                    op.name,
                    cons.failures
                );
                for cand in &cons.proven {
                    proven += 1;
                    packed += synth::plan::pack::packed_cost(&cand.plan, bits).is_some() as usize;
                }
            }
        }
    }
    eprintln!("{proven} candidates proven at 8/16 bits, {packed} of them with a packed form");
    assert!(packed > 300, "{packed}");
}
