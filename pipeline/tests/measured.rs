//! `--measured`: bench rows choose among the proven candidates, matched by
//! conversion key and plan fingerprint; the choice is emitted and proven.

use pipeline::measured::{conversion_key, plan_fingerprint, Measurements, MARGIN};
use pipeline::{load_pair, plan, Options, Pair};
use std::sync::Arc;
use synth::search::{consider, plan_width};

/// A one-warp 64x64 f16 transposition of Triton's warp-local tests
/// (`wl_64x64_s10_t11`), which has shuffle and shared-memory candidates.
fn pair() -> Pair {
    Pair {
        src: "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>".into(),
        dst: "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>".into(),
        shape: Some("64x64".into()),
        dtype: Some("f16".into()),
        warps: Some(1),
        ctas: None,
        name: Some("t".into()),
        target: None,
    }
}

/// One bench row timing `cands` (fingerprint, strategy, ns) of `key`, each
/// round trip through a reverse of the candidate's own family (as `bench
/// --pair same-family` times them).
fn row(key: &str, cands: &[(String, String, f64)]) -> String {
    let c: Vec<serde_json::Value> = cands
        .iter()
        .map(|(f, s, ns)| serde_json::json!({"strategy": s, "fingerprint": f, "ns": ns, "form": "elements", "bwd": s}))
        .collect();
    serde_json::json!({"name": "t", "key": key, "bwd": "shared/v4+v4/swz-st", "pair": "same-family", "candidates": c}).to_string()
}

#[test]
fn measured_rows_choose_the_fastest_candidate_beyond_the_margin() {
    let loaded = load_pair(&pair()).unwrap();
    let model = plan(&loaded, &Options::default()).unwrap();
    let p = &model.conversions[0];
    assert!(p.measured.is_none());
    let bits = plan_width(&p.conv);
    let key = conversion_key(&p.conv, bits, p.target.sm);
    // the planner's own candidates, as bench fingerprints them
    let opt = synth::plan::SharedOptions {
        elem_bits: bits,
        sm: p.target.sm,
        max_smem: Some(pipeline::scratch_cap(p.target.sm, None)),
        ..Default::default()
    };
    let w = Options::default().weights.for_conversion(&p.conv);
    let cons = consider(&p.conv, synth::plan::StrategyChoice::Auto, &w, &opt, None).unwrap();
    let model_fp = plan_fingerprint(&p.chosen.plan).unwrap();
    let other = cons
        .proven
        .iter()
        .find(|k| plan_fingerprint(&k.plan).unwrap() != model_fp)
        .expect("a second candidate");
    let other_fp = plan_fingerprint(&other.plan).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |model_ns: f64, other_ns: f64| {
        let f = dir.path().join("b.jsonl");
        let rows = row(
            &key,
            &[
                (
                    model_fp.clone(),
                    p.chosen.plan.strategy.to_string(),
                    model_ns,
                ),
                (other_fp.clone(), other.plan.strategy.to_string(), other_ns),
            ],
        );
        std::fs::write(&f, rows + "\n").unwrap();
        let opts = Options {
            measured: Some(Arc::new(Measurements::read(&f).unwrap())),
            ..Options::default()
        };
        plan(&loaded, &opts).unwrap()
    };
    // 10% faster: the other candidate is chosen, noted, emitted and proven
    let got = run(100.0, 90.0);
    let q = &got.conversions[0];
    let m = q.measured.as_ref().unwrap();
    assert!(m.replaced);
    assert_eq!(m.ratios, vec![("elements".to_string(), 0.9)]);
    assert_eq!(plan_fingerprint(&q.chosen.plan).unwrap(), other_fp);
    let own = q.variants.iter().find(|(b, _)| *b == bits).unwrap();
    assert_eq!(plan_fingerprint(&own.1.plan).unwrap(), other_fp);
    let emitted = got.emit("wf_").unwrap();
    assert!(
        emitted.header.contains(
            "chosen by measurement (--measured): `warpforge bench` timed it at 0.90x (elements)"
        ),
        "the header says why"
    );
    // within the margin: the model's choice stays
    let got = run(100.0, 100.0 * (1.0 - MARGIN / 2.0));
    let q = &got.conversions[0];
    assert!(!q.measured.as_ref().unwrap().replaced);
    assert_eq!(plan_fingerprint(&q.chosen.plan).unwrap(), model_fp);
    // rows of another conversion change nothing
    let f = dir.path().join("other.jsonl");
    std::fs::write(
        &f,
        row("0123456789abcdef", &[(other_fp.clone(), "s".into(), 1.0)]),
    )
    .unwrap();
    let opts = Options {
        measured: Some(Arc::new(Measurements::read(&f).unwrap())),
        ..Options::default()
    };
    let got = plan(&loaded, &opts).unwrap();
    assert!(got.conversions[0].measured.is_none());
    assert_eq!(
        plan_fingerprint(&got.conversions[0].chosen.plan).unwrap(),
        model_fp
    );
}

#[test]
fn rows_timing_no_candidate_of_this_planner_keep_the_model_choice_and_say_why() {
    let loaded = load_pair(&pair()).unwrap();
    let model = plan(&loaded, &Options::default()).unwrap();
    let p = &model.conversions[0];
    let key = conversion_key(&p.conv, plan_width(&p.conv), p.target.sm);
    let m = Measurements::parse(
        &row(&key, &[("00000000deadbeef".into(), "old".into(), 1.0)]),
        "b.jsonl",
    )
    .unwrap();
    let opts = Options {
        measured: Some(Arc::new(m)),
        ..Options::default()
    };
    let got = plan(&loaded, &opts).unwrap();
    let q = &got.conversions[0];
    let m = q.measured.as_ref().unwrap();
    assert!(!m.replaced);
    assert!(m
        .kept_because
        .as_ref()
        .unwrap()
        .contains("none of the 1 candidate(s) its rows timed in a round trip of their own family"));
    assert_eq!(q.chosen.plan.strategy, p.chosen.plan.strategy);
}
