//! Every input the fuzzer kept (`fuzz/crashes/<target>-<hash>.txt`, crashes
//! it found and that were fixed since; `slow-*` files must run in under a
//! second) runs through its target again without a panic.

use std::time::Instant;
use wf_fuzz::{exec, Target};

#[test]
fn kept_fuzz_inputs_do_not_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crashes");
    let mut n = 0;
    for e in std::fs::read_dir(&dir)
        .expect("fuzz/crashes exists")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        let (slow, base) = match name.strip_prefix("slow-") {
            Some(b) => (true, b.to_string()),
            None => (false, name.clone()),
        };
        let Some(t) = Target::from_file_name(&base) else {
            continue;
        };
        let bytes = std::fs::read(e.path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for warps in [1, 4, 32] {
            let t0 = Instant::now();
            let r = std::panic::catch_unwind(|| exec(t, &text, warps));
            assert!(r.is_ok(), "{name} panics (warps {warps})");
            if slow {
                assert!(t0.elapsed().as_secs_f64() < 1.0, "{name} is still slow");
            }
        }
        n += 1;
    }
    eprintln!("replayed {n} kept fuzz inputs");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "[".repeat(100_000);
    for t in [Target::Attribute, Target::Ttgir] {
        exec(t, &deep, 4);
    }
    let attr = format!("#ttg.blocked<{{sizePerThread = {deep}}}>");
    assert!(synth::parse::parse_attribute(&attr)
        .unwrap_err()
        .msg
        .contains("nests deeper"));
    let slices = "#ttg.slice<{dim = 0, parent = ".repeat(10_000);
    assert!(synth::parse::parse_attribute(&slices).is_err());
}
