//! Triton's meaning of every layout in a generated sweep: the bases
//! warpforge computes for each encoding and shape equal those of Triton
//! 3.6's own `to_linear_layout` (`tests/data/triton_bases/bases.jsonl`,
//! written by `gen_bases.py` there with Triton 3.6.0's Gluon builder; no
//! GPU needed). Covers blocked (rank 1-3), slices of blocked, mma, dot_op
//! and linear layouts (small shapes included), nvidia_mma v2/v3, dot_op of
//! mma v2/v3 and of blocked, and linear layouts fitted to other shapes.

use serde_json::Value;
use synth::parse::parse_attribute;

const IN_DIMS: [&str; 4] = ["register", "lane", "warp", "block"];

#[test]
fn every_encoding_of_the_sweep_has_tritons_bases() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/triton_bases/bases.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let r: Value = serde_json::from_str(line).unwrap();
        let attr = r["attr"].as_str().unwrap();
        let shape: Vec<i64> = r["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let warps = r["num_warps"].as_u64().unwrap() as u32;
        let at = format!("bases.jsonl:{} {attr} {shape:?} {warps} warps", i + 1);
        let got = parse_attribute(attr)
            .map_err(|e| e.to_string())
            .and_then(|enc| {
                enc.to_linear_layout(&shape, warps)
                    .map_err(|e| e.to_string())
            });
        let l = match got {
            Ok(l) => l,
            Err(e) => {
                wrong.push(format!("{at}: warpforge refuses it: {e}"));
                continue;
            }
        };
        for d in IN_DIMS {
            let want: Vec<Vec<i64>> = r["bases"][d]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    b.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_i64().unwrap())
                        .collect()
                })
                .collect();
            let have: Vec<Vec<i64>> = l
                .bases(d)
                .iter()
                .map(|b| b.iter().map(|&x| x as i64).collect())
                .collect();
            if have != want {
                wrong.push(format!("{at}: {d} bases {have:?}, Triton {want:?}"));
            }
        }
        checked += 1;
    }
    assert!(checked > 1500, "{checked} records checked");
    assert!(
        wrong.is_empty(),
        "{} of {} records differ from Triton 3.6:\n{}",
        wrong.len(),
        text.lines().count(),
        wrong
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
