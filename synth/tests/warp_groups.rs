//! The first warp of each partition of a warp-specialized kernel, as
//! warpforge reads it from TTGIR that does not carry it, against Triton
//! 3.6's own allocation: `tests/data/warp_groups/gen.py` compiles Gluon
//! kernels whose partitions convert layouts across their warps and runs
//! Triton's `TritonGPUAllocateWarpGroups` pass on each file
//! (`start_ids.json`: per file, per op line, `warpGroupStartIds`). Ties
//! between partitions of equal warps, padding partitions placed before
//! real ones, and two ops of one module padded to the larger one's warp
//! groups are among them.

use serde_json::Value;
use std::path::PathBuf;
use synth::parse::{parse_ttgir, warp_group_start_ids};

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/warp_groups")
}

#[test]
fn every_partition_starts_where_tritons_allocation_puts_it() {
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(data().join("start_ids.json")).unwrap())
            .unwrap();
    let files = truth.as_object().unwrap();
    assert!(files.len() >= 9, "{}", files.len());
    let mut checked = 0;
    for (file, ops) in files {
        let text = std::fs::read_to_string(data().join(file)).unwrap();
        let parsed = parse_ttgir(&text).unwrap();
        assert!(parsed.failed.is_empty(), "{file}: {:?}", parsed.failed);
        let mut seen = std::collections::BTreeSet::new();
        for op in &parsed.converts {
            let ws = op
                .warp_specialize
                .as_ref()
                .unwrap_or_else(|| panic!("{file}:{}: not read as warp-specialized", op.line));
            let Some(k) = ws.region.strip_prefix("partition") else {
                assert_eq!(
                    (ws.first_warp, ws.barrier),
                    (Some(0), Some(0)),
                    "{file}:{}",
                    op.line
                );
                continue;
            };
            let k: usize = k.parse().unwrap();
            let line = ws.op_line.unwrap().to_string();
            let want = ops[&line]["start_ids"][k].as_u64().unwrap() as u32;
            assert_eq!(
                ws.first_warp,
                Some(want),
                "{file}:{} ({})",
                op.line,
                ws.region
            );
            assert_eq!(ws.barrier, Some(k as u32 + 2), "{file}:{}", op.line);
            assert_eq!(op.num_warps, ws.warps, "{file}:{}", op.line);
            seen.insert((line, k));
            checked += 1;
        }
        // every partition of every op (padding aside) has a conversion here,
        // read as that op's
        for (line, op) in ops.as_object().unwrap() {
            let n = op["partitions"].as_u64().unwrap() as usize;
            let got: Vec<usize> = seen
                .iter()
                .filter(|(l, _)| l == line)
                .map(|x| x.1)
                .collect();
            assert_eq!(got, (0..n).collect::<Vec<_>>(), "{file}: op at line {line}");
        }
    }
    assert!(checked >= 25, "{checked}");
}

#[test]
fn the_allocation_pads_sorts_and_packs_as_triton_does() {
    // the default group's 4 warps, partitions of 1, 4 and 2 warps: padded
    // by one warp to 8, placed 4, 2, 1, 1 (padding last among the ties)
    assert_eq!(warp_group_start_ids(4, &[1, 4, 2], 7), Some(vec![10, 4, 8]));
    // a smaller op of the same module is padded to the larger's warp
    // groups: 1 + 1 warps padded by 4 and 2, placed first
    assert_eq!(warp_group_start_ids(4, &[1, 1], 6), Some(vec![10, 11]));
    // ties keep partition order
    assert_eq!(
        warp_group_start_ids(4, &[1, 1, 1, 1], 4),
        Some(vec![4, 5, 6, 7])
    );
    // more than 16 entries with the padding: Triton's sort would not keep
    // ties in order
    assert_eq!(warp_group_start_ids(4, &[1; 17], 17), None);
}

/// The registers each partition gets from Triton's allocation
/// (`setmaxnreg`), against Triton 3.6's own pass on the kernels of this
/// folder with their `requestedRegisters` replaced
/// (`tests/data/warp_groups/gen_registers.py`, `registers.json`): equal
/// requests, different ones within one 4-warp group (each partition gets
/// the group's most), padding in a group of its own, a module
/// `ttg.maxnreg`, and requests the register file cannot meet (no
/// `setmaxnreg` at all).
#[test]
fn every_partition_gets_the_registers_tritons_allocation_gives_it() {
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(data().join("registers.json")).unwrap())
            .unwrap();
    let cases = truth.as_array().unwrap();
    assert!(cases.len() >= 20, "{}", cases.len());
    let (mut checked, mut none) = (0, 0);
    for case in cases {
        let file = case["file"].as_str().unwrap();
        let mut text = std::fs::read_to_string(data().join(file)).unwrap();
        // the case's requests, op by op, as gen_registers.py writes them
        let requests: Vec<String> = case["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let v: Vec<String> = r
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.to_string())
                    .collect();
                format!("requestedRegisters = array<i32: {}>", v.join(", "))
            })
            .collect();
        let mut out = String::new();
        let mut rest = text.as_str();
        for r in &requests {
            let at = rest.find("requestedRegisters = array<i32: ").unwrap();
            let end = at + rest[at..].find('>').unwrap() + 1;
            out += &rest[..at];
            out += r;
            rest = &rest[end..];
        }
        out += rest;
        text = out;
        if let Some(m) = case["maxnreg"].as_u64() {
            text = text.replacen(
                "module attributes {",
                &format!("module attributes {{\"ttg.maxnreg\" = {m} : i32, "),
                1,
            );
        }
        let parsed = parse_ttgir(&text).unwrap();
        assert!(parsed.failed.is_empty(), "{file}: {:?}", parsed.failed);
        // the ops by the line they start on, in order
        let mut op_lines: Vec<usize> = parsed
            .converts
            .iter()
            .filter_map(|c| c.warp_specialize.as_ref()?.op_line)
            .collect();
        op_lines.sort();
        op_lines.dedup();
        for op in &parsed.converts {
            let ws = op.warp_specialize.as_ref().unwrap();
            let Some(k) = ws.partition() else {
                assert_eq!(ws.registers, None, "{file}:{}", op.line);
                continue;
            };
            let j = op_lines
                .iter()
                .position(|&l| Some(l) == ws.op_line)
                .unwrap();
            let want = case["actual"][j]
                .as_array()
                .map(|a| a[1 + k].as_u64().unwrap() as u32);
            assert_eq!(
                ws.registers, want,
                "{file} {:?} maxnreg {:?}: {} ({})",
                case["requests"], case["maxnreg"], op.line, ws.region
            );
            checked += 1;
            none += usize::from(want.is_none());
        }
    }
    // every case has partitions that convert; some get no setmaxnreg
    assert!(
        checked >= 40 && none >= 2,
        "{checked} checked, {none} without"
    );
}
