//! Conversions in a function that holds a `ttg.warp_specialize` op
//! (`tests/data/warp_specialize.ttgir`): each warp group there is
//! synchronised by a named barrier of its own, so a helper's
//! `__syncthreads()` would wait for warps that never arrive. Warp-local
//! conversions are served (by shuffles), on the warps of their region;
//! conversions across warps are refused, each naming where it is and why;
//! a function without the op is planned as always, also one of another
//! module with the same name (and a blank line between regions is read).

use pipeline::{load_files, plan, Options};
use std::path::PathBuf;

#[test]
fn only_warp_local_plans_serve_a_warp_specialized_function() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/warp_specialize.ttgir");
    let loaded = load_files(&[path], None).unwrap();
    let planned = plan(&loaded, &Options::default()).unwrap();
    let served: Vec<(String, String, u32, Option<String>)> = planned
        .conversions
        .iter()
        .map(|p| {
            (
                p.op.name.clone(),
                p.chosen.plan.strategy.to_string(),
                p.op.num_warps,
                p.op.warp_specialize.as_ref().map(|w| w.region.clone()),
            )
        })
        .collect();
    let names: Vec<&str> = served.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        names,
        ["ws:14", "ws:19", "ws:23", "plain:27", "ws:33"],
        "{served:?}"
    );
    for (name, strategy, warps, region) in &served[..3] {
        assert!(strategy.starts_with("shuffle/"), "{name}: {strategy}");
        let want = match name.as_str() {
            "ws:14" => ("default", 4),
            "ws:19" => ("partition0", 2),
            _ => ("outside", 4),
        };
        assert_eq!(
            (region.as_deref(), *warps),
            (Some(want.0), want.1),
            "{name}"
        );
    }
    // the same layouts outside any warp-specialized function take shared
    // memory, in another module's function of the same name too
    for s in &served[3..] {
        assert!(s.1.starts_with("shared/"), "{s:?}");
        assert_eq!(s.3, None, "{s:?}");
    }
    let refused: Vec<(String, String)> = planned
        .refused
        .iter()
        .map(|r| (r.name.clone(), r.reason.clone()))
        .collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert_eq!(refused[0].0, "ws:11", "{refused:?}");
    assert!(
        refused[0]
            .1
            .contains("in a function that holds a `ttg.warp_specialize` op"),
        "{}",
        refused[0].1
    );
    assert!(refused[0].1.contains("__syncthreads()"), "{}", refused[0].1);
    assert_eq!(refused[1].0, "ws:20", "{refused:?}");
    assert!(
        refused[1].1.contains("`partition0` region") && refused[1].1.contains("(2 warp(s))"),
        "{}",
        refused[1].1
    );
    assert!(
        refused[1].1.contains("not the partition's"),
        "{}",
        refused[1].1
    );
}

#[test]
fn a_shared_strategy_is_refused_in_a_warp_specialized_function() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/warp_specialize.ttgir");
    let loaded = load_files(&[path], None).unwrap();
    let opts = Options {
        strategy: synth::plan::StrategyChoice::Shared,
        ..Options::default()
    };
    let planned = plan(&loaded, &opts).unwrap();
    let names: Vec<&str> = planned
        .conversions
        .iter()
        .map(|p| p.op.name.as_str())
        .collect();
    assert_eq!(names, ["plain:27", "ws:33"]);
    assert_eq!(planned.refused.len(), 5);
    assert!(
        planned
            .refused
            .iter()
            .all(|r| r.reason.contains("--strategy shared")),
        "{:?}",
        planned.refused[0].reason
    );
}
