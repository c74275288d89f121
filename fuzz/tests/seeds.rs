//! The fuzzer's seeds are what they claim to be: every corpus layout,
//! rendered in each input format (`toString`, JSON bases in both key styles,
//! Gluon constructors keyword and positional), reads back through its
//! target's parser as the same linear layout; every checked-in seed
//! (`fuzz/seeds/<target>-*.txt`) parses and builds a layout.

use std::path::Path;
use synth::input::{parse_as, parse_layout};
use wf_fuzz::{corpus_layouts, exec, renderings, same_layout, Target};

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_corpus_layout_reads_back_in_every_format() {
    let layouts = corpus_layouts(&root());
    assert!(layouts.len() > 30, "{} corpus layouts", layouts.len());
    let mut per = [0usize; Target::ALL.len()];
    for c in &layouts {
        let Some((want, texts)) = renderings(c) else {
            continue;
        };
        for (t, text) in texts {
            let read = match t.format() {
                Some(f) => parse_as(f, &text).map_err(|e| e.to_string()),
                None => parse_layout(&text).map_err(|e| e.to_string()),
            };
            let lt = read.unwrap_or_else(|e| panic!("{t:?}: {text}: {e}"));
            if let Some(s) = &lt.shape {
                assert_eq!(*s, c.shape, "{t:?}: {text}");
            }
            let got = lt
                .encoding
                .to_linear_layout(&c.shape, c.warps)
                .unwrap_or_else(|e| panic!("{t:?}: {text}: {e}"));
            assert!(
                same_layout(&got, &want),
                "{t:?}: {text}\nreads as {got}\nnot {want}"
            );
            // and the fuzz target runs it (its own checks included)
            exec(t, &text, c.warps);
            per[t as usize] += 1;
        }
    }
    for t in [
        Target::ToString,
        Target::Json,
        Target::Gluon,
        Target::Layout,
    ] {
        assert!(
            per[t as usize] > 30,
            "{t:?}: {} renderings",
            per[t as usize]
        );
    }
}

#[test]
fn checked_in_seeds_parse_and_build() {
    let dir = root().join("fuzz/seeds");
    let mut n = 0;
    for e in std::fs::read_dir(&dir)
        .expect("fuzz/seeds exists")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        let t = Target::from_file_name(&name).unwrap_or_else(|| panic!("{name}: no target"));
        let text = std::fs::read_to_string(e.path()).unwrap();
        let built: usize = [1, 2, 4, 8].iter().map(|&w| exec(t, &text, w)).sum();
        // `<target>-error-*` seeds are hostile input (issue 47): an error,
        // never a layout; the others build one
        if name.contains("-error-") {
            assert_eq!(built, 0, "{name} builds a layout");
        } else {
            assert!(built > 0, "{name} builds no layout");
        }
        n += 1;
    }
    assert!(n >= 10, "{n} seeds");
}
