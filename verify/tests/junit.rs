//! JUnit XML of real verification results: the CPU simulator's proof of
//! every corpus conversion, and a deliberately broken case whose failure
//! must carry the first wrong slot; parsed back with roxmltree.

use verify::junit::{cpu_case, gpu_case, to_xml, TestCase};
use verify::{CaseResult, DType, SassCounts};

fn corpus(rel: &str) -> String {
    format!("{}/../corpus/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// `(type, message, text)` of a `<failure>`.
type Failure = (String, String, String);

fn parse_cases(xml: &str) -> Vec<(String, Option<Failure>)> {
    let d = roxmltree::Document::parse(xml).expect("well-formed JUnit XML");
    assert_eq!(d.root_element().tag_name().name(), "testsuites");
    d.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| {
            let f = n.children().find(|c| c.has_tag_name("failure")).map(|f| {
                (
                    f.attribute("type").unwrap_or("").to_string(),
                    f.attribute("message").unwrap_or("").to_string(),
                    f.text().unwrap_or("").to_string(),
                )
            });
            (n.attribute("name").unwrap().to_string(), f)
        })
        .collect()
}

#[test]
fn a_broken_plan_fails_with_the_first_wrong_slot() {
    let path = corpus("pairs.mlir");
    let planned = pipeline::plan_file(&path, &pipeline::Options::default()).unwrap();
    let mut cases: Vec<TestCase> = Vec::new();
    let mut broke = None;
    for p in &planned.conversions {
        let ch = &p.chosen;
        let mut an = ch.analysis.clone();
        // break the first conversion whose destination has two register bits
        // with different tags: the plan still builds the old order
        if broke.is_none() && an.dst.reg.len() >= 2 && an.dst.reg[0] != an.dst.reg[1] {
            an.dst.reg.swap(0, 1);
            broke = Some(p.op.name.clone());
        }
        let r = synth::sim::simulate(&ch.plan, &an)
            .map(|s| s.slots)
            .map_err(|e| e.to_string());
        cases.push(cpu_case(&p.file, &p.op.name, 32, &r));
    }
    let broke = broke.expect("a conversion with two register bits");
    let got = parse_cases(&to_xml("warpforge verify", &cases));
    assert_eq!(
        got.len(),
        planned.conversions.len(),
        "one testcase per conversion"
    );
    for (name, failure) in &got {
        if name.starts_with(&format!("{broke} ")) {
            let (kind, msg, text) = failure.as_ref().expect("the broken plan fails");
            assert_eq!(kind, "cpu");
            for w in ["block", "warp", "lane", "register", "expected"] {
                assert!(msg.contains(w), "{msg}");
            }
            assert!(text.contains(&broke), "{text}");
        } else {
            assert!(failure.is_none(), "{name}: {failure:?}");
        }
    }
}

fn gpu_result(mismatches: u64, ldl: u32) -> CaseResult {
    CaseResult {
        name: "f:7".into(),
        ident: "wf_f_7".into(),
        dtype: DType::F16,
        form: "packed",
        ctype: "unsigned".into(),
        passes: 2,
        slots_checked: if mismatches == u64::MAX { 0 } else { 4096 },
        mismatches: if mismatches == u64::MAX {
            0
        } else {
            mismatches
        },
        first_error: (mismatches > 0).then(|| {
            "pass 0: block 0 warp 1 lane 3 register 2: got 0x5, expected 0x7 (tag bits 0..)".into()
        }),
        sass: Some(SassCounts {
            ldl,
            stl: ldl,
            ..SassCounts::default()
        }),
        registers: Some(40),
        loop_kernel: None,
        data_regs: 32,
        reg_limit: 255,
        max_registers: None,
        threads: 128,
        check_threads: 128,
        compiled_only: false,
        kernels: Default::default(),
        occupancy_spill: Vec::new(),
    }
}

/// `verify --compile-only` cases: nothing ran, so one that compiled passes
/// without a checked slot and is named `compiled`; a loop that spills
/// still fails as `spill`, and one that cannot launch as `launch`.
#[test]
fn compiled_only_cases_pass_without_slots_and_still_fail_on_spills() {
    use verify::LoopCost;
    let mut r = gpu_result(u64::MAX, 0);
    r.compiled_only = true;
    r.passes = 0;
    r.first_error = None;
    assert!(r.ok(), "compiled, nothing ran: no slot is claimed");
    let mut spilling = r.clone();
    spilling.loop_kernel = Some(LoopCost {
        registers: 255,
        ldl: 2,
        stl: 2,
        ldl_in_loop: 2,
        stl_in_loop: 2,
    });
    let mut unlaunchable = r.clone();
    unlaunchable.first_error = Some("cannot launch: needs 262144 bytes".into());
    assert!(!unlaunchable.ok());
    let got = parse_cases(&to_xml(
        "s",
        &[
            gpu_case("a.mlir", &r),
            gpu_case("a.mlir", &spilling),
            gpu_case("a.mlir", &unlaunchable),
        ],
    ));
    assert_eq!(got[0].0, "f:7 compiled f16 packed");
    assert!(got[0].1.is_none(), "{:?}", got[0].1);
    assert_eq!(got[1].1.as_ref().unwrap().0, "spill");
    assert_eq!(got[2].1.as_ref().unwrap().0, "launch");
}

#[test]
fn gpu_failures_say_what_failed() {
    let cases = vec![
        gpu_case("a.mlir", &gpu_result(0, 0)),
        gpu_case("a.mlir", &gpu_result(3, 0)),
        gpu_case("a.mlir", &gpu_result(0, 4)),
        gpu_case("a.mlir", &gpu_result(u64::MAX, 0)),
    ];
    let got = parse_cases(&to_xml("s", &cases));
    assert_eq!(got[0].0, "f:7 gpu f16 packed");
    assert!(got[0].1.is_none());
    let (k, m, _) = got[1].1.clone().unwrap();
    assert_eq!(k, "mismatch");
    assert!(
        m.starts_with(
            "3 mismatches; first: pass 0: block 0 warp 1 lane 3 register 2: got 0x5, expected 0x7"
        ),
        "{m}"
    );
    let (k, m, _) = got[2].1.clone().unwrap();
    assert_eq!(k, "spill");
    assert!(
        m.contains("4 LDL, 4 STL") && m.contains("at 40 registers"),
        "{m}"
    );
    let (k, _, _) = got[3].1.clone().unwrap();
    assert_eq!(k, "launch");
}

/// A loop kernel compiled under `--max-registers` is judged against that
/// cap, and the message names it; the data alone within 16 of the cap
/// excuses its spills, as it does under the launch bounds. The one-shot
/// kernel keeps its launch bounds and is judged against them.
#[test]
fn spills_under_a_register_cap_are_judged_against_the_cap() {
    use verify::LoopCost;
    let mut r = gpu_result(0, 0);
    r.max_registers = Some(64);
    r.reg_limit = 64;
    r.loop_kernel = Some(LoopCost {
        registers: 64,
        ldl: 6,
        stl: 4,
        ldl_in_loop: 5,
        stl_in_loop: 3,
    });
    let m = r.spill_problem().expect("32 data registers leave 32 of 64");
    assert!(
        m.contains("5 LDL, 3 STL") && m.contains("limit 64 per thread (--max-registers)"),
        "{m}"
    );
    assert!(m.contains("leave 32 for the helper"), "{m}");
    // under the launch bounds the message names them
    r.max_registers = None;
    r.reg_limit = 128;
    r.threads = 512;
    r.check_threads = 512;
    let m = r.spill_problem().unwrap();
    assert!(
        m.contains("limit 128 per thread (the launch bounds at 512 threads)"),
        "{m}"
    );
    // 56 data registers under a cap of 64: the tile's, not the helper's
    r.max_registers = Some(64);
    r.reg_limit = 64;
    r.data_regs = 56;
    assert!(r.spill_problem().is_none());
    // ... but a one-shot spill is judged against its launch bounds (128 at
    // 512 threads), where 56 data registers leave 72 spare
    r.sass = Some(SassCounts {
        ldl: 2,
        stl: 2,
        ..SassCounts::default()
    });
    let m = r
        .spill_problem()
        .expect("the one-shot kernel is not capped");
    assert!(
        m.contains("one-shot kernel spills (2 LDL, 2 STL)")
            && m.contains("limit 128 per thread (the launch bounds at 512 threads)"),
        "{m}"
    );
}
