//! Triton's meaning of every layout in a generated sweep: the bases
//! warpforge computes for each encoding and shape equal those of Triton
//! 3.6's own `to_linear_layout` (`tests/data/triton_bases/bases.jsonl`,
//! written by `gen_bases.py` there with Triton 3.6.0's Gluon builder; no
//! GPU needed). Covers blocked (rank 1-3), slices of blocked, mma, dot_op
//! and linear layouts (small shapes included), nvidia_mma v2/v3, dot_op of
//! mma v2/v3 and of blocked, and linear layouts fitted to other shapes.
//! The same for AMD layouts on their own lanes
//! (`tests/data/triton_bases/amd_bases.jsonl`, by `gen_amd_bases.py`:
//! records as in `bases.jsonl` plus `"lanes"`; amd_mfma v1-4, amd_wmma
//! v1-3, their dot operands and slices, wave64 blocked layouts).

use serde_json::Value;
use synth::parse::parse_attribute;

const IN_DIMS: [&str; 4] = ["register", "lane", "warp", "block"];

/// Check every record of `text` (jsonl, `what` names it in messages);
/// returns how many were checked and what differs.
/// `own_lanes`: compute each layout on its encoding's own lanes (AMD's
/// 64-lane waves), else on the 32 lanes conversions use.
fn check(text: &str, what: &str, own_lanes: bool) -> (usize, Vec<String>) {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: Value = serde_json::from_str(line).unwrap();
        let attr = r["attr"].as_str().unwrap();
        let shape: Vec<i64> = r["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let warps = r["num_warps"].as_u64().unwrap() as u32;
        let at = format!("{what}:{} {attr} {shape:?} {warps} warps", i + 1);
        let enc = match parse_attribute(attr) {
            Ok(e) => e,
            Err(e) => {
                wrong.push(format!("{at}: warpforge does not parse it: {e}"));
                continue;
            }
        };
        if let Some(lanes) = r["lanes"].as_u64() {
            if lanes != enc.lanes() as u64 {
                wrong.push(format!(
                    "{at}: warpforge says {} lanes, Triton {lanes}",
                    enc.lanes()
                ));
                continue;
            }
        }
        let got = if own_lanes {
            enc.to_linear_layout_lanes(&shape, warps, enc.lanes())
        } else {
            enc.to_linear_layout(&shape, warps)
        };
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
    (checked, wrong)
}

fn report(checked: usize, wrong: &[String], what: &str) {
    assert!(
        wrong.is_empty(),
        "{} of {checked} records of {what} differ from Triton 3.6:\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Check every record of `tests/data/triton_bases/<file>` (on each
/// encoding's own lanes with `own_lanes`), at least `min` of them, and
/// report what differs from Triton.
fn check_file(file: &str, own_lanes: bool, min: usize) {
    let path = format!(
        "{}/../tests/data/triton_bases/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let (checked, wrong) = check(&text, file, own_lanes);
    // what differs first: a refused record also lowers the count checked
    report(checked, &wrong, file);
    assert!(checked >= min, "{checked} records of {file} checked");
}

#[test]
fn every_encoding_of_the_sweep_has_tritons_bases() {
    check_file("bases.jsonl", false, 1_501);
}

#[test]
fn every_amd_encoding_of_the_sweep_has_tritons_bases() {
    // 2,862 records, every one checked (dot operands of a tilesPerWarp
    // WMMA parent included)
    check_file("amd_bases.jsonl", true, 2_862);
}

/// The layouts real kernels convert: every `ttg.convert_layout` operand and
/// result of the generated real-kernel corpus (`corpus/real/`, sm_80/90/100
/// and gfx942/950/1100), of the Triton 3.6 kernels of the three fresh sets
/// (sm_80/90/100/120 and gfx942/950/1100 and more in
/// `results/runs/2026-11-28-h200-fresh-kernels-aafb245/`,
/// `results/runs/2026-11-28-h200-fresh-kernels-2-c5f9dc9/` and
/// `results/runs/2026-11-29-cpu-fresh-kernels-3-c8e9a0f/`) and of the third
/// set compiled for gfx908, gfx90a, gfx1101-gfx1103, gfx1150, gfx1151,
/// gfx1200 and gfx1201 (`results/runs/2026-11-29-cpu-amd-architectures-8674161/`)
/// (`tests/data/triton_bases/real_bases.jsonl`, by `gen_real_bases.py`:
/// Triton's own parser and `toLinearLayout` on the files), each on its
/// module's lanes (32 for NVIDIA and RDNA modules, 64 for CDNA).
#[test]
fn every_encoding_real_kernels_convert_has_tritons_bases() {
    // 2,213 records: blocked, slice, linear, nvidia_mma v2/v3, dot_op,
    // amd_mfma v1-v4 and amd_wmma v1/v2 encodings at the shapes the
    // kernels use
    check_file("real_bases.jsonl", true, 2_213);
}

/// The 32-lane path conversions take refuses AMD layouts, by name; the
/// lanes path gives them their own lanes.
#[test]
fn conversions_refuse_amd_layouts() {
    let mfma = parse_attribute("#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>").unwrap();
    let e = mfma.to_linear_layout(&[64, 64], 4).unwrap_err().to_string();
    assert!(e.contains("amd_mfma") && e.contains("64 lanes"), "{e}");
    let e = mfma
        .to_cluster_layout(&[64, 64], 4, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("32-lane NVIDIA conversions only"), "{e}");
    let l = mfma.to_linear_layout_lanes(&[64, 64], 4, 64).unwrap();
    assert_eq!(l.in_dim_size("lane"), 64);
    let e = mfma
        .to_linear_layout_lanes(&[64, 64], 4, 32)
        .unwrap_err()
        .to_string();
    assert!(e.contains("64 lanes per wave, asked for 32"), "{e}");
    let wmma = parse_attribute("#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_wmma<{version = 2, isTranspose = true, warpsPerCTA = [2, 2]}>, kWidth = 8}>").unwrap();
    assert_eq!(wmma.lanes(), 32);
    let e = wmma.to_linear_layout(&[32, 32], 4).unwrap_err().to_string();
    assert!(e.contains("dot_op") && e.contains("AMD layout"), "{e}");
    assert!(wmma.to_linear_layout_lanes(&[32, 32], 4, 32).is_ok());
}
