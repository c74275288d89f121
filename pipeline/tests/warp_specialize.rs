//! Conversions in a function that holds a `ttg.warp_specialize` op
//! (`tests/data/warp_specialize.ttgir`): each warp group there is
//! synchronised by a named barrier of its own, so a helper's
//! `__syncthreads()` would wait for warps that never arrive. On the default
//! warp group (the `default` region and the function outside the op) every
//! plan serves, its cross-warp barriers the group's `bar.sync 0, 128`; in
//! partition `k` every plan serves too, with barrier `k + 2` over the
//! partition's threads and the warp index counted from the partition's
//! first warp (Triton's warp-group allocation); a function without the op
//! is planned as always, also one of another module with the same name (and
//! a blank line between regions is read). The partitions of the Gluon
//! kernels of `tests/data/warp_groups/` are planned and proven too.

use pipeline::{load_files, plan, Options, PlannedInput};
use std::path::PathBuf;
use synth::plan::{BarrierScope, Stage};

/// `tests/data/<name>` planned with `opts`.
fn plan_data(name: &str, opts: &Options) -> PlannedInput {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(name);
    plan(&load_files(&[path], None).unwrap(), opts).unwrap()
}

/// Every `.ttgir` file of the repository's folder `rel`, planned together
/// with the default options.
fn plan_dir(rel: &str) -> PlannedInput {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ttgir"))
        .collect();
    files.sort();
    plan(&load_files(&files, None).unwrap(), &Options::default()).unwrap()
}

/// The refused conversions of `planned`: name and reason.
fn refusals(planned: &PlannedInput) -> Vec<(String, String)> {
    planned
        .refused
        .iter()
        .map(|r| (r.name.clone(), r.reason.clone()))
        .collect()
}

/// The barriers of a plan's stages.
fn barriers(stages: &[Stage]) -> Vec<BarrierScope> {
    stages
        .iter()
        .filter_map(|s| match s {
            Stage::Barrier { scope } => Some(*scope),
            _ => None,
        })
        .collect()
}

/// `h` as if it ran on the CTA's first warps, the default group: its first
/// warp 0, and its named barriers the default group's 0 (the code is
/// otherwise the same, `warp` still counted from the first warp it
/// printed).
fn on_the_first_warps(h: &kernels::EmittedHelper) -> kernels::EmittedHelper {
    fn renumber(ss: &mut [kernels::kir::Stmt]) {
        use kernels::kir::{Else, Stmt};
        for s in ss {
            match s {
                Stmt::Barrier(BarrierScope::Named { id, .. }) => *id = 0,
                Stmt::IfClear { body, .. } => renumber(body),
                Stmt::IfConstexpr { arms, otherwise } => {
                    for (_, b) in arms {
                        renumber(b);
                    }
                    if let Else::Words(_, b) = otherwise {
                        renumber(b);
                    }
                }
                _ => {}
            }
        }
    }
    let mut h = h.clone();
    h.first_warp = 0;
    renumber(&mut h.kir.element.stmts);
    for (_, b) in h.kir.packed.iter_mut().chain(h.kir.vector.iter_mut()) {
        renumber(&mut b.stmts);
    }
    h
}

#[test]
fn the_default_group_of_a_warp_specialized_function_takes_its_named_barrier() {
    let planned = plan_data("warp_specialize.ttgir", &Options::default());
    let served: Vec<_> = planned
        .conversions
        .iter()
        .map(|p| {
            (
                p.op.name.as_str(),
                p.chosen.plan.strategy.to_string(),
                p.op.num_warps,
                p.op.warp_specialize.as_ref().map(|w| w.region.as_str()),
                barriers(&p.chosen.plan.stages),
            )
        })
        .collect();
    let names: Vec<&str> = served.iter().map(|s| s.0).collect();
    assert_eq!(
        names,
        ["ws:11", "ws:14", "ws:19", "ws:20", "ws:23", "plain:27", "ws:33"],
        "{served:?}"
    );
    let named = BarrierScope::Named {
        id: 0,
        threads: 128,
    };
    for (name, strategy, warps, region, bars) in &served {
        match *name {
            // across warps, before the op: shared memory, the group's barrier
            "ws:11" => {
                assert!(strategy.starts_with("shared/"), "{name}: {strategy}");
                assert_eq!((*region, *warps), (Some("outside"), 4), "{name}");
                assert!(!bars.is_empty(), "{name}");
                assert!(bars.iter().all(|b| *b == named), "{name}: {bars:?}");
            }
            // warp-local, in the default region and after the op: any plan,
            // no barrier across warps
            "ws:14" | "ws:23" => {
                let want = if *name == "ws:14" {
                    "default"
                } else {
                    "outside"
                };
                assert_eq!((*region, *warps), (Some(want), 4), "{name}");
                assert!(bars.iter().all(|b| !b.across_warps()), "{name}: {bars:?}");
            }
            // warp-local, in the 2-warp partition
            "ws:19" => {
                assert_eq!((*region, *warps), (Some("partition0"), 2), "{name}");
                assert!(bars.iter().all(|b| !b.across_warps()), "{name}: {bars:?}");
            }
            // across the 2-warp partition's warps: its barrier 2 over 64
            // threads
            "ws:20" => {
                assert!(strategy.starts_with("shared/"), "{name}: {strategy}");
                assert_eq!((*region, *warps), (Some("partition0"), 2), "{name}");
                assert!(!bars.is_empty(), "{name}");
                assert!(
                    bars.iter()
                        .all(|b| *b == BarrierScope::Named { id: 2, threads: 64 }),
                    "{name}: {bars:?}"
                );
            }
            // the same layouts outside any warp-specialized function take
            // shared memory and __syncthreads(), in another module's
            // function of the same name too
            _ => {
                assert!(strategy.starts_with("shared/"), "{name}: {strategy}");
                assert_eq!(*region, None, "{name}");
                assert!(
                    bars.iter().all(|b| *b == BarrierScope::Cta),
                    "{name}: {bars:?}"
                );
            }
        }
    }
    // the helper prints the named barrier and tells its callers
    let h = &planned.conversions[0];
    let emitted = kernels::emit_helper(&h.conv, &h.chosen).unwrap();
    assert!(emitted
        .code
        .contains("asm volatile(\"bar.sync 0, 128;\" ::: \"memory\");"));
    assert!(
        !emitted.code.contains("__syncthreads();"),
        "{}",
        emitted.code
    );
    assert!(
        emitted.code.contains("synchronise with `bar.sync 0, 128`"),
        "{}",
        emitted.code
    );
    assert_eq!(emitted.named_barrier, Some((0, 128)));
    assert_eq!(emitted.first_warp, 0);
    // and its printed forms pass the CPU proof
    kernels::prove(&emitted, &h.chosen.analysis).unwrap();
    // `bench` rows (timed with __syncthreads()) fingerprint it as the same
    // plan of the same layouts outside warp specialization (`plain:27`)
    let plain = planned
        .conversions
        .iter()
        .find(|p| p.op.name == "plain:27")
        .unwrap();
    assert_eq!(
        pipeline::measured::plan_fingerprint(&h.chosen.plan).unwrap(),
        pipeline::measured::plan_fingerprint(&plain.chosen.plan).unwrap()
    );
    assert_eq!(refusals(&planned), []);
}

#[test]
fn a_partitions_helper_counts_its_warps_from_the_partitions_first() {
    // partition0 (2 warps) of a 4-warp module: padded to a warp group of 4,
    // it starts at CTA warp 4 and synchronises with barrier 2
    let planned = plan_data("warp_specialize.ttgir", &Options::default());
    let p = planned
        .conversions
        .iter()
        .find(|p| p.op.name == "ws:20")
        .unwrap();
    let ws = p.op.warp_specialize.as_ref().unwrap();
    assert_eq!(
        (ws.first_warp, ws.barrier, ws.op_line),
        (Some(4), Some(2), Some(12))
    );
    assert_eq!(ws.requested_registers, Some(232));
    assert_eq!(p.chosen.plan.first_warp, 4);
    let emitted = kernels::emit_helper(&p.conv, &p.chosen).unwrap();
    assert_eq!(
        (emitted.first_warp, emitted.named_barrier),
        (4, Some((2, 64)))
    );
    for line in [
        "const unsigned warp = (threadIdx.x >> 5) - 4u;",
        "asm volatile(\"bar.sync 2, 64;\" ::: \"memory\");",
        "runs on CTA warps 4 to 5",
        // the registers Triton's allocation gives the partition
        "its op's `requestedRegisters` entry is 232",
    ] {
        assert!(emitted.code.contains(line), "{line}\n{}", emitted.code);
    }
    assert!(!emitted.code.contains("__syncthreads();"));
    assert!(!emitted
        .code
        .contains("const unsigned warp = threadIdx.x >> 5;"));
    let proofs = kernels::prove(&emitted, &p.chosen.analysis).unwrap();
    assert!(proofs.iter().all(|f| f.report.threads == 64), "{proofs:?}");
    // the timing kernels, which launch a helper's warps alone, refuse it
    let e = kernels::emit_bench_kernel(&emitted, &emitted, "int", "t", None).unwrap_err();
    assert!(e.to_string().contains("runs on CTA warps 4 onwards"), "{e}");
    // the check kernel puts the 4 warps before the partition's in a group
    // of their own, on barriers other than the helper's
    let k = kernels::emit_test_kernel(&emitted, "int", "chk").unwrap();
    for line in [
        "__launch_bounds__(192)",
        "if (threadIdx.x < 128u) {",
        "bar.sync 1, 128;",
        "bar.sync 3, 192;",
        "threadIdx.x - 128u;",
    ] {
        assert!(k.contains(line), "{line}\n{k}");
    }
}

#[test]
fn the_partitions_of_gluon_kernels_are_served_and_proven() {
    // tests/data/warp_groups: Triton 3.6 Gluon kernels, each region
    // converting a tile across its own warps
    let planned = plan_dir("tests/data/warp_groups");
    assert_eq!(refusals(&planned), []);
    let (mut partitions, mut misaligned) = (0, 0);
    for p in &planned.conversions {
        let ws = p.op.warp_specialize.as_ref().unwrap();
        let emitted = kernels::emit_helper(&p.conv, &p.chosen).unwrap();
        assert_eq!(Some(emitted.first_warp), ws.first_warp, "{}", p.op.name);
        if ws.region.starts_with("partition") {
            partitions += 1;
            if ws.warps > 1 {
                assert_eq!(
                    emitted.named_barrier.map(|b| b.0),
                    ws.barrier,
                    "{}",
                    p.op.name
                );
            }
        }
        kernels::prove(&emitted, &p.chosen.analysis)
            .unwrap_or_else(|e| panic!("{}: {e}", p.op.name));
        // where the partition's first warp is not a multiple of its warps
        // (8 warps from warp 4), the same code run on the CTA's first warps
        // does not convert: the proof runs the threads where the helper
        // says they are (elsewhere the low warp bits, all a layout reads,
        // agree)
        if emitted.first_warp % ws.warps != 0 {
            misaligned += 1;
            let e = kernels::prove(&on_the_first_warps(&emitted), &p.chosen.analysis).unwrap_err();
            assert!(e.error.what.contains("wrong destination"), "{e}");
        }
    }
    assert!(partitions >= 25, "{partitions}");
    assert!(misaligned >= 1, "{misaligned}");
    // `bench` rows (planned on a CTA of the conversion's own warps) match
    // every warp group's helper of the same layouts: the default group's
    // and the partitions' share a fingerprint wherever they share a plan
    let mut by_key: std::collections::BTreeMap<(String, String), Vec<(String, String)>> =
        Default::default();
    for p in &planned.conversions {
        let bits = synth::search::plan_width(&p.conv);
        let key = pipeline::measured::conversion_key(&p.conv, bits, p.target.sm);
        let fp = pipeline::measured::plan_fingerprint(&p.chosen.plan).unwrap();
        by_key
            .entry((key, p.chosen.plan.strategy.to_string()))
            .or_default()
            .push((p.op.name.clone(), fp));
    }
    let mut shared = 0;
    for (k, v) in &by_key {
        if v.len() > 1 {
            shared += 1;
            assert!(v.iter().all(|x| x.1 == v[0].1), "{k:?}: {v:?}");
        }
    }
    assert!(shared >= 3, "{by_key:?}");
}

#[test]
fn a_shared_strategy_serves_every_warp_group() {
    let opts = Options {
        strategy: synth::plan::StrategyChoice::Shared,
        ..Options::default()
    };
    let planned = plan_data("warp_specialize.ttgir", &opts);
    let names: Vec<&str> = planned
        .conversions
        .iter()
        .map(|p| p.op.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["ws:11", "ws:14", "ws:19", "ws:20", "ws:23", "plain:27", "ws:33"]
    );
    assert_eq!(refusals(&planned), []);
    for p in &planned.conversions {
        let first = p.op.warp_specialize.as_ref().and_then(|w| w.first_warp);
        assert_eq!(
            p.chosen.plan.first_warp,
            first.unwrap_or(0),
            "{}",
            p.op.name
        );
    }
}

#[test]
fn across_ctas_or_on_amd_a_warp_specialized_function_keeps_its_refusals() {
    // a 2-CTA module: across the cluster refused, within each CTA the
    // group's named barrier
    let planned = plan_data("warp_specialize_cluster.ttgir", &Options::default());
    let refused = refusals(&planned);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].0, "ws:8");
    assert!(
        refused[0]
            .1
            .contains("moves data between the CTAs of a cluster"),
        "{}",
        refused[0].1
    );
    let served: Vec<_> = planned
        .conversions
        .iter()
        .map(|p| p.op.name.as_str())
        .collect();
    assert_eq!(served, ["ws:9"]);
    let bars = barriers(&planned.conversions[0].chosen.plan.stages);
    assert!(!bars.is_empty());
    assert!(
        bars.iter().all(|b| *b
            == BarrierScope::Named {
                id: 0,
                threads: 128
            }),
        "{bars:?}"
    );
    // an AMD module: warp-local plans only, an s_barrier being the
    // workgroup's
    let planned = plan_data("warp_specialize_amd.ttgir", &Options::default());
    let refused = refusals(&planned);
    assert_eq!(
        refused.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["ws:11", "ws:20"]
    );
    assert!(refused[0].1.contains("s_barrier"), "{}", refused[0].1);
    for p in &planned.conversions {
        if p.op.warp_specialize.is_some() {
            assert!(
                p.chosen.plan.strategy.to_string().starts_with("shuffle/"),
                "{}: {}",
                p.op.name,
                p.chosen.plan.strategy
            );
        }
    }
}

#[test]
fn start_ids_the_ttgir_carries_are_the_partitions_first_warps() {
    // `tests/data/warp_specialize_start_ids.ttgir`: ops with
    // `warpGroupStartIds` (TTGIR printed after Triton's allocation)
    let planned = plan_data("warp_specialize_start_ids.ttgir", &Options::default());
    let served: Vec<(&str, u32)> = planned
        .conversions
        .iter()
        .map(|p| (p.op.name.as_str(), p.chosen.plan.first_warp))
        .collect();
    // the given ids, not the [4, 6] Triton's allocation would give
    assert_eq!(served, [("given:15", 6), ("given:19", 4)]);
    for p in &planned.conversions {
        let emitted = kernels::emit_helper(&p.conv, &p.chosen).unwrap();
        kernels::prove(&emitted, &p.chosen.analysis).unwrap();
    }
    // ids that do not parse, that place the partition outside the CTA,
    // among the default group's warps or on another partition's, and a
    // 2-warp module (Triton warp-specializes multiples of 4): refused,
    // saying which
    let refused = refusals(&planned);
    let want = [
        (
            "malformed:30",
            "`warpGroupStartIds` of its op (line 25) are not one warp per partition",
        ),
        ("past_the_cta:41", "would run on warps 31 to 32 of a CTA"),
        (
            "among_the_default:52",
            "would run on warps 2 to 3 of a CTA whose first 4 are the default group's",
        ),
        (
            "overlapping:63",
            "partition0 and partition1 of its op (line 58) would share warps (from warp 5)",
        ),
        ("overlapping:67", "would share warps"),
        (
            "two_warps:80",
            "only kernels whose ttg.num-warps is a multiple of 4, and this module's is 2",
        ),
    ];
    assert_eq!(refused.len(), want.len(), "{refused:?}");
    for ((name, why), (n, w)) in refused.iter().zip(want) {
        assert_eq!(name, n);
        assert!(why.contains(w), "{name}: {why}");
    }
}

#[test]
fn a_helper_on_warps_that_are_not_a_multiple_of_its_own_counts_from_its_first() {
    // Triton's largest-first placement mostly gives a partition a first
    // warp that is a multiple of its warps, where the layouts' low warp
    // bits are the CTA's and a helper that forgot the offset would still
    // convert. Here every corpus conversion whose plan synchronises across
    // warps runs from warp `warps + 1` instead, on a partition's barrier:
    // its printed forms pass the proof there, and the same code run from
    // warp 0 (as the default group) fails it.
    let planned = plan_dir("corpus/ttgir");
    let mut checked = std::collections::BTreeSet::new();
    for p in &planned.conversions {
        let across = barriers(&p.chosen.plan.stages)
            .iter()
            .any(|b| b.across_warps());
        if !across || p.chosen.plan.is_cluster() {
            continue;
        }
        let mut ch = p.chosen.clone();
        ch.plan.first_warp = p.op.num_warps + 1;
        // a partition's barrier over its threads
        for st in &mut ch.plan.stages {
            if let Stage::Barrier { scope } = st {
                if scope.across_warps() {
                    *scope = BarrierScope::Named {
                        id: 2,
                        threads: 32 * p.op.num_warps,
                    };
                }
            }
        }
        let emitted = kernels::emit_helper(&p.conv, &ch).unwrap();
        assert!(
            emitted
                .code
                .contains(&format!("(threadIdx.x >> 5) - {}u;", p.op.num_warps + 1)),
            "{}",
            p.op.name
        );
        kernels::prove(&emitted, &ch.analysis).unwrap_or_else(|e| panic!("{}: {e}", p.op.name));
        let e = kernels::prove(&on_the_first_warps(&emitted), &ch.analysis)
            .expect_err(&format!("{}: the offset is not read", p.op.name));
        assert!(
            e.error.what.contains("wrong destination") || e.error.what.contains("scratch"),
            "{}: {e}",
            p.op.name
        );
        checked.insert(ch.plan.strategy.to_string());
    }
    // shared-memory plans of several kinds (stmatrix, ldmatrix, vectors)
    assert!(checked.len() >= 4, "{checked:?}");
}

#[test]
fn a_partitions_plans_are_ranked_under_its_register_budget() {
    // partition0 of warp_specialize.ttgir with requestedRegisters 44:
    // Triton's `setmaxnreg` gives its warps 48 registers (44 rounded up to
    // 8; the padding that shares its warp group requests 16), below the
    // 255 its launch bounds allow
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/warp_specialize.ttgir");
    let text = std::fs::read_to_string(&path).unwrap();
    let at = |requested: u32| {
        let t = text.replace(
            "requestedRegisters = array<i32: 232>",
            &format!("requestedRegisters = array<i32: {requested}>"),
        );
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("ws.ttgir");
        std::fs::write(&f, t).unwrap();
        let planned = plan(&load_files(&[f], None).unwrap(), &Options::default()).unwrap();
        let p = planned
            .conversions
            .into_iter()
            .find(|p| p.op.name == "ws:20")
            .unwrap();
        let emitted = kernels::emit_helper(&p.conv, &p.chosen).unwrap();
        (p, emitted)
    };
    let (small, code) = at(44);
    assert_eq!(small.chosen.plan.register_budget, Some(48));
    assert_eq!(small.chosen.plan.register_limit(64), 48);
    // ranked under 48: its 64 registers of data alone are over, so its
    // score carries the spill term, and the header says so rather than
    // the 255 of the launch bounds
    assert!(synth::plan::peak_registers(&small.chosen.plan, 32, false).peak > 48);
    for line in [
        "gives the partition's warps 48 registers per thread by `setmaxnreg`",
        "its plans are ranked under 48",
        "the partition's `setmaxnreg` budget allows 48 (__launch_bounds__(64) 255)",
        "PREDICTED SPILL: the data alone (64 registers) is over the 48",
    ] {
        assert!(code.code.contains(line), "{line}\n{}", code.code);
    }
    kernels::prove(&code, &small.chosen.analysis).unwrap();
    // 232 leaves the same plan within its budget
    let (large, code) = at(232);
    assert_eq!(large.chosen.plan.register_budget, Some(232));
    // a request the register file cannot meet (512 a thread over the
    // partition's 4-warp group leaves the default group none of the 256 a
    // thread of 8 warps has) makes Triton set no `setmaxnreg`: the launch
    // bounds rank
    let (none, code_none) = at(512);
    assert_eq!(none.chosen.plan.register_budget, None);
    assert!(
        code_none
            .code
            .contains("Triton's allocation sets no `setmaxnreg`"),
        "{}",
        code_none.code
    );
    assert!(small.chosen.score > large.chosen.score);
    assert!(!code.code.contains("PREDICTED SPILL"));
    assert_eq!(
        pipeline::measured::plan_fingerprint(&small.chosen.plan).unwrap(),
        pipeline::measured::plan_fingerprint(&large.chosen.plan).unwrap()
    );
}
