//! Snapshots of the emitted headers: every conversion of the corpus
//! (`corpus/pairs.mlir`, `corpus/ttgir/*.ttgir`), every element width and
//! form its helpers serve, as `warpforge emit --ttgir FILE` prints them, in
//! `tests/snapshots/<file>.cuh`; the `warpforge::detail` block every header
//! shares is one snapshot of its own (`tests/snapshots/detail.cuh`). A change
//! to emitted code fails here and shows as a diff of these files in review.
//!
//! After a deliberate change: `UPDATE_EXPECT=1 cargo test --test cli
//! snapshots::`, then review and commit the updated files.

use super::common::{root, run};
use std::path::Path;

fn emit(file: &str) -> String {
    let o = run(&["emit", "--ttgir", file]);
    assert!(
        o.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// `header` split into (the shared detail block, the rest).
fn split_detail(header: &str) -> (String, String) {
    let start = header
        .find("#ifndef WARPFORGE_DETAIL_H")
        .expect("detail block");
    let end_mark = "#endif  // WARPFORGE_DETAIL_H\n";
    let end = header[start..].find(end_mark).expect("end of detail block") + start + end_mark.len();
    (
        header[start..end].to_string(),
        format!(
            "{}// (warpforge::detail: tests/snapshots/detail.cuh)\n{}",
            &header[..start],
            &header[end..]
        ),
    )
}

fn corpus_files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("corpus/ttgir"))
        .unwrap()
        .map(|e| format!("corpus/ttgir/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".ttgir"))
        .collect();
    v.sort();
    v.insert(0, "corpus/pairs.mlir".into());
    v
}

#[test]
fn emitted_headers_match_their_snapshots() {
    let files = corpus_files();
    assert!(files.len() >= 20, "{files:?}");
    let mut detail: Option<String> = None;
    for f in &files {
        let (d, rest) = split_detail(&emit(f));
        match &detail {
            None => detail = Some(d),
            Some(first) => assert_eq!(first, &d, "{f}: a different warpforge::detail block"),
        }
        let name = Path::new(f)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        expect_test::expect_file![format!("../snapshots/{name}.cuh")].assert_eq(&rest);
    }
    expect_test::expect_file!["../snapshots/detail.cuh"].assert_eq(&detail.unwrap());
}

/// Every snapshot file belongs to a corpus file (none left behind by a
/// removed one).
#[test]
fn no_stale_snapshots() {
    let want: Vec<String> = corpus_files()
        .iter()
        .map(|f| {
            format!(
                "{}.cuh",
                Path::new(f).file_name().unwrap().to_string_lossy()
            )
        })
        .chain(["detail.cuh".to_string()])
        .collect();
    for e in std::fs::read_dir(root().join("tests/snapshots")).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().to_string();
        assert!(want.contains(&n), "tests/snapshots/{n} has no corpus file");
    }
}
