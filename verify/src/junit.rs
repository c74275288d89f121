//! JUnit XML reports of a verification run, for the test view of a GPU
//! box's CI: one `<testcase>` per conversion x element type x form (the
//! CPU simulator's proof is form `cpu`), a failure carrying the first
//! mismatch (block, warp, lane, register, expected and found element) or
//! the SASS reason (`LDL`/`STL` spills, a launch failure).
//!
//! The schema is the one JUnit/Ant, Jenkins, GitLab and GitHub test
//! reporters read: `<testsuites><testsuite name tests failures skipped
//! time><testcase classname name time>[<failure message type>text</failure>
//! | <skipped message/>]</testcase>...`. Written with `quick-xml`.

use crate::{form_suffix, CaseResult};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

/// What one check found.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Passed,
    /// `kind` is the failure type (`mismatch`, `spill`, `launch`, `cpu`);
    /// `message` one line; `detail` the whole report.
    Failed {
        kind: &'static str,
        message: String,
        detail: String,
    },
    /// Not run, and why.
    Skipped(String),
}

/// One `<testcase>`.
#[derive(Clone, Debug, PartialEq)]
pub struct TestCase {
    /// The suite-level group: the input file.
    pub classname: String,
    /// `<conversion> <check>`, e.g. `attn:120 gpu f16 packed`.
    pub name: String,
    /// Seconds the check took (0 where unknown).
    pub seconds: f64,
    pub outcome: Outcome,
}

/// The test case of the CPU simulator's proof of conversion `name` (one plan
/// of element width `bits`): passed, or failed with the simulator's error
/// (for a wrong element: block, warp, lane, register, found and expected).
pub fn cpu_case(file: &str, name: &str, bits: u32, result: &Result<u64, String>) -> TestCase {
    let outcome = match result {
        Ok(_) => Outcome::Passed,
        Err(e) => Outcome::Failed {
            kind: "cpu",
            message: format!("CPU simulator: {e}"),
            detail: format!("the {bits}-bit plan of {name} failed on the CPU simulator: {e}"),
        },
    };
    TestCase {
        classname: file.to_string(),
        name: format!("{name} cpu {bits}-bit"),
        seconds: 0.0,
        outcome,
    }
}

/// The test case of the CPU proof of one printed form of a helper
/// (`kernels::prove`: the kernel-IR interpreter on the code as printed):
/// `form` as `kernels::FormProof::form`, `result` its slots checked or
/// the failure.
pub fn printed_case(file: &str, name: &str, form: &str, result: &Result<u64, String>) -> TestCase {
    let outcome = match result {
        Ok(_) => Outcome::Passed,
        Err(e) => Outcome::Failed {
            kind: "cpu",
            message: format!("printed code: {e}"),
            detail: format!("the printed {form} of {name} failed its CPU proof: {e}"),
        },
    };
    TestCase {
        classname: file.to_string(),
        name: format!("{name} printed {form}"),
        seconds: 0.0,
        outcome,
    }
}

/// The test case of a conversion warpforge refused (or a file it could
/// not read): a failure of kind `refused` carrying `reason`.
pub fn refused_case(file: &str, name: &str, reason: &str) -> TestCase {
    TestCase {
        classname: file.to_string(),
        name: format!("{name} refused"),
        seconds: 0.0,
        outcome: Outcome::Failed {
            kind: "refused",
            message: format!("refused: {reason}"),
            detail: format!("warpforge served no helper for {name}: {reason}"),
        },
    }
}

/// The test case of one GPU check ([`CaseResult`]): a mismatch names the
/// first wrong slot; a helper whose one-shot or loop kernel spills to local
/// memory where its data fits the register budget
/// ([`CaseResult::spill_problem`]) fails with the counts, registers and limit.
pub fn gpu_case(file: &str, c: &CaseResult) -> TestCase {
    let what = format!(
        "{} {} {}{}",
        c.name,
        if c.compiled_only { "compiled" } else { "gpu" },
        c.dtype.name(),
        &*form_suffix(c.form)
    );
    let spills = c.sass.as_ref().map(|s| (s.ldl, s.stl));
    let outcome = if !c.ok() {
        let first = c.first_error.clone().unwrap_or_default();
        let message = if c.slots_checked == 0 {
            format!("not checked: {first}")
        } else {
            format!("{} mismatches; first: {first}", c.mismatches)
        };
        Outcome::Failed {
            kind: if c.slots_checked == 0 {
                "launch"
            } else {
                "mismatch"
            },
            detail: format!(
                "{} ({}, `{}`): {} of {} slots checked in {} pass(es) wrong; first: {first}",
                c.ident, c.form, c.ctype, c.mismatches, c.slots_checked, c.passes
            ),
            message,
        }
    } else if let Some(why) = c.spill_problem() {
        let (ldl, stl) = spills.unwrap_or_default();
        Outcome::Failed {
            kind: "spill",
            message: format!("SASS spills to local memory: {why}"),
            detail: format!(
                "{} ({}, `{}`) is correct but does not fit the kernel's register budget: {why} (one-shot kernel: {ldl} LDL, {stl} STL)",
                c.ident, c.form, c.ctype
            ),
        }
    } else {
        Outcome::Passed
    };
    TestCase {
        classname: file.to_string(),
        name: what,
        seconds: 0.0,
        outcome,
    }
}

/// The JUnit XML document of `cases`, one `<testsuite>` named `suite`.
pub fn to_xml(suite: &str, cases: &[TestCase]) -> String {
    let failures = cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Failed { .. }))
        .count();
    let skipped = cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Skipped(_)))
        .count();
    let total: f64 = cases.iter().map(|c| c.seconds).sum();
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    // writing into a Vec cannot fail
    let mut put = |e: Event| w.write_event(e).expect("writing XML to memory");
    put(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    put(Event::Start(BytesStart::new("testsuites")));
    let (n, f, s, t) = (
        cases.len().to_string(),
        failures.to_string(),
        skipped.to_string(),
        format!("{total:.3}"),
    );
    put(Event::Start(BytesStart::new("testsuite").with_attributes(
        [
            ("name", suite),
            ("tests", n.as_str()),
            ("failures", f.as_str()),
            ("errors", "0"),
            ("skipped", s.as_str()),
            ("time", t.as_str()),
        ],
    )));
    for c in cases {
        let secs = format!("{:.3}", c.seconds);
        let tc = BytesStart::new("testcase").with_attributes([
            ("classname", c.classname.as_str()),
            ("name", c.name.as_str()),
            ("time", secs.as_str()),
        ]);
        match &c.outcome {
            Outcome::Passed => put(Event::Empty(tc)),
            Outcome::Failed {
                kind,
                message,
                detail,
            } => {
                put(Event::Start(tc));
                put(Event::Start(BytesStart::new("failure").with_attributes([
                    ("message", message.as_str()),
                    ("type", *kind),
                ])));
                put(Event::Text(BytesText::new(detail)));
                put(Event::End(BytesEnd::new("failure")));
                put(Event::End(BytesEnd::new("testcase")));
            }
            Outcome::Skipped(why) => {
                put(Event::Start(tc));
                put(Event::Empty(
                    BytesStart::new("skipped").with_attributes([("message", why.as_str())]),
                ));
                put(Event::End(BytesEnd::new("testcase")));
            }
        }
    }
    put(Event::End(BytesEnd::new("testsuite")));
    put(Event::End(BytesEnd::new("testsuites")));
    let mut s = String::from_utf8(w.into_inner()).expect("quick-xml writes UTF-8");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(cases: &[TestCase]) -> String {
        to_xml("warpforge verify", cases)
    }

    #[test]
    fn counts_and_escapes() {
        let cases = vec![
            TestCase {
                classname: "a<&>.mlir".into(),
                name: "f:1 cpu 32-bit".into(),
                seconds: 0.0,
                outcome: Outcome::Passed,
            },
            TestCase {
                classname: "a.mlir".into(),
                name: "f:2 gpu i8".into(),
                seconds: 0.5,
                outcome: Outcome::Failed {
                    kind: "mismatch",
                    message: "3 mismatches; first: \"x\" < y".into(),
                    detail: "register 1 & 2 <wrong>".into(),
                },
            },
            TestCase {
                classname: "a.mlir".into(),
                name: "f:3 gpu i64".into(),
                seconds: 0.0,
                outcome: Outcome::Skipped("too much scratch".into()),
            },
        ];
        let x = doc(&cases);
        let d = roxmltree::Document::parse(&x).expect("valid XML");
        let suite = d
            .descendants()
            .find(|n| n.has_tag_name("testsuite"))
            .unwrap();
        assert_eq!(suite.attribute("tests"), Some("3"));
        assert_eq!(suite.attribute("failures"), Some("1"));
        assert_eq!(suite.attribute("skipped"), Some("1"));
        let tcs: Vec<_> = d
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(tcs[0].attribute("classname"), Some("a<&>.mlir"));
        let f = tcs[1]
            .children()
            .find(|n| n.has_tag_name("failure"))
            .unwrap();
        assert_eq!(
            f.attribute("message"),
            Some("3 mismatches; first: \"x\" < y")
        );
        assert_eq!(f.attribute("type"), Some("mismatch"));
        assert_eq!(f.text(), Some("register 1 & 2 <wrong>"));
        assert!(tcs[2].children().any(|n| n.has_tag_name("skipped")));
    }
}
