//! Conversions in a function that holds a `ttg.warp_specialize` op
//! (`tests/data/warp_specialize.ttgir`): each warp group there is
//! synchronised by a named barrier of its own, so a helper's
//! `__syncthreads()` would wait for warps that never arrive. On the default
//! warp group (the `default` region and the function outside the op) every
//! plan serves, its cross-warp barriers the group's `bar.sync 0, 128`;
//! in a partition only warp-local plans serve, on the partition's warps,
//! and a conversion across its warps is refused, naming where it is and
//! why; a function without the op is planned as always, also one of
//! another module with the same name (and a blank line between regions is
//! read).

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
        ["ws:11", "ws:14", "ws:19", "ws:23", "plain:27", "ws:33"],
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
            // warp-local, in the 2-warp partition: shuffles
            "ws:19" => {
                assert!(strategy.starts_with("shuffle/"), "{name}: {strategy}");
                assert_eq!((*region, *warps), (Some("partition0"), 2), "{name}");
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
    let refused = refusals(&planned);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].0, "ws:20", "{refused:?}");
    assert!(
        refused[0].1.contains("`partition0` region") && refused[0].1.contains("(2 warp(s))"),
        "{}",
        refused[0].1
    );
    assert!(
        refused[0].1.contains("the partition's own warp index"),
        "{}",
        refused[0].1
    );
}

#[test]
fn a_shared_strategy_is_refused_in_a_partition_only() {
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
    assert_eq!(names, ["ws:11", "ws:14", "ws:23", "plain:27", "ws:33"]);
    let refused: Vec<&str> = planned.refused.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(refused, ["ws:19", "ws:20"]);
    assert!(
        planned
            .refused
            .iter()
            .all(|r| r.reason.contains("--strategy shared") && r.reason.contains("partition0")),
        "{:?}",
        planned.refused[0].reason
    );
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
