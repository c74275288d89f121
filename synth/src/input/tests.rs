//! Every spelling of a layout gives the linear layout of its TTGIR
//! attribute; malformed text in each format names the format, the position
//! and what is wrong.

use super::*;
use crate::layout::{LinearLayout, BLOCK, LANE, REGISTER, WARP};
use crate::parse::parse_attribute;

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
const MMA2: &str = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
const MMA3: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>";
const LINEAR: &str = "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]], block = []}>";

fn dot(op: u32, k: u32) -> String {
    format!("#ttg.dot_op<{{opIdx = {op}, parent = {MMA2}, kWidth = {k}}}>")
}

fn slice() -> String {
    format!("#ttg.slice<{{dim = 1, parent = {BLOCKED}}}>")
}

fn reference(attr: &str, shape: &[i64], warps: u32) -> LinearLayout {
    parse_attribute(attr)
        .unwrap()
        .to_linear_layout(shape, warps)
        .unwrap()
}

fn bases_json(l: &LinearLayout, keys: [&str; 4], shape: &[i64]) -> String {
    let f = |d: &str| serde_json::to_string(l.bases(d)).unwrap();
    format!(
        "{{\"{}\": {}, \"{}\": {}, \"{}\": {}, \"{}\": {}, \"shape\": {}}}",
        keys[0],
        f(REGISTER),
        keys[1],
        f(LANE),
        keys[2],
        f(WARP),
        keys[3],
        f(BLOCK),
        serde_json::to_string(shape).unwrap()
    )
}

/// The bases spellings of any layout: toString, JSON (both key styles),
/// Gluon `DistributedLinearLayout` (keyword and positional).
fn bases_spellings(l: &LinearLayout, shape: &[i64]) -> Vec<String> {
    let f = |d: &str| serde_json::to_string(l.bases(d)).unwrap();
    let sh = serde_json::to_string(shape).unwrap();
    vec![
        l.to_string(),
        l.to_string().trim_start().to_string(),
        bases_json(l, ["reg_bases", "lane_bases", "warp_bases", "block_bases"], shape),
        bases_json(l, ["register", "lane", "warp", "block"], shape),
        format!(
            "ttgl.DistributedLinearLayout(reg_bases={}, lane_bases={}, warp_bases={}, block_bases={}, shape={sh})",
            f(REGISTER), f(LANE), f(WARP), f(BLOCK)
        ),
        format!(
            "DistributedLinearLayout({}, {}, {}, {}, {sh})",
            f(REGISTER), f(LANE), f(WARP), f(BLOCK)
        ),
    ]
}

/// Every spelling parses to a layout equal to `attr`'s.
fn same_layout(attr: &str, shape: &[i64], warps: u32, extra: &[String]) {
    let want = reference(attr, shape, warps);
    let mut all = vec![attr.to_string()];
    all.extend(extra.iter().cloned());
    all.extend(bases_spellings(&want, shape));
    for text in &all {
        let got = parse_layout(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        if let Some(s) = &got.shape {
            assert_eq!(s, shape, "{text}");
        }
        if let Some(w) = got.num_warps {
            assert_eq!(w, warps, "{text}");
        }
        let l = got
            .encoding
            .to_linear_layout(shape, warps)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(l, want, "{:?} spelling differs: {text}", got.format);
        // the TTGIR text it reports reads back to the same layout
        assert_eq!(reference(&got.ttgir, shape, warps), want, "{}", got.ttgir);
    }
}

#[test]
fn blocked_every_spelling() {
    same_layout(
        BLOCKED,
        &[32, 64],
        4,
        &[
            "ttgl.BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 2], order=[1, 0])".into(),
            "BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])".into(),
            "gl.BlockedLayout([1, 4], [8, 4], warps_per_cta=[2, 2], order=[1, 0], ctas_per_cga=[1, 1], cta_split_num=[1, 1], cta_order=[1, 0])".into(),
            "layout: gl.constexpr = ttgl.BlockedLayout(\n    size_per_thread=[1, 4],\n    threads_per_warp=[8, 4],\n    warps_per_cta=[2, 2],\n    order=[1, 0],\n)".into(),
            "ttgl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0], None, None, None)".into(),
        ],
    );
}

#[test]
fn mma_v2_every_spelling() {
    same_layout(
        MMA2,
        &[64, 64],
        4,
        &[
            "ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])".into(),
            "NVMMADistributedLayout([2, 0], [2, 2], [16, 8])".into(),
            "ttgl.NVMMADistributedLayout([2, 0], [2, 2], instr_shape=[16, 8], cga_layout=[])".into(),
        ],
    );
}

#[test]
fn mma_v3_every_spelling() {
    same_layout(
        MMA3,
        &[128, 64],
        4,
        &[
            "ttgl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])".into(),
            "NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])".into(),
        ],
    );
}

#[test]
fn dot_op_every_spelling() {
    let mma =
        "ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])";
    for (op, shape) in [(0u32, [64i64, 32]), (1, [32, 64])] {
        same_layout(
            &dot(op, 2),
            &shape,
            4,
            &[
                format!("ttgl.DotOperandLayout(operand_index={op}, parent={mma}, k_width=2)"),
                format!(
                    "DotOperandLayout({op}, NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 2)"
                ),
                format!("ttgl.DotOperandLayout(parent={mma}, operand_index={op}, k_width=2)"),
            ],
        );
    }
}

#[test]
fn slice_every_spelling() {
    let b = "ttgl.BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 2], order=[1, 0])";
    same_layout(
        &slice(),
        &[32],
        4,
        &[
            format!("ttgl.SliceLayout(dim=1, parent={b})"),
            "SliceLayout(1, BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]))".into(),
        ],
    );
}

#[test]
fn linear_every_spelling() {
    same_layout(
        LINEAR,
        &[32, 8],
        2,
        &[
            "ttgl.DistributedLinearLayout(reg_bases=[[0, 1], [8, 0]], lane_bases=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp_bases=[[16, 0]], block_bases=[], shape=[32, 8])".into(),
            "{\"register\": [[0, 1], [8, 0]], \"lane\": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], \"warp\": [[16, 0]]}".into(),
        ],
    );
}

#[test]
fn file_input() {
    let dir = std::env::temp_dir().join(format!("wf-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("l.py");
    std::fs::write(
        &p,
        "# a Gluon layout\nlayout = ttgl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])\n",
    )
    .unwrap();
    let got = read_layout(&format!("@{}", p.display())).unwrap();
    assert_eq!(got.format, Format::Gluon);
    assert_eq!(got.encoding, parse_attribute(BLOCKED).unwrap());
    let e = read_layout("@/no/such/layout.json")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("/no/such/layout.json") && e.contains("cannot read"),
        "{e}"
    );
    std::fs::write(&p, "{\"reg_bases\": [[0, 1]],\n \"lane_bases\": 7}").unwrap();
    let e = read_layout(&format!("@{}", p.display()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("l.py") && e.contains("JSON bases at 2:2") && e.contains("`lane_bases`"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

fn error_of(text: &str) -> String {
    let e = parse_layout(text).unwrap_err().to_string();
    assert!(!e.is_empty());
    e
}

#[test]
fn malformed_text_names_format_position_and_problem() {
    let cases: &[(&str, &[&str])] = &[
        // TTGIR
        ("#ttg.blocked<{sizePerThread = [1, 4], bogus = 3}>", &["TTGIR attribute at 1:39", "unknown attribute key `bogus`"]),
        ("#ttg.blocked<{sizePerThread = [1, 4", &["TTGIR attribute at 1:", "expected `,` or `]`"]),
        ("#ttg.blocked<{sizePerThread = [1, é]}>", &["TTGIR attribute"]),
        // toString
        (" - register=1 -> (0, 1)\n   register=4 -> (0, 2)\nwhere out dims are: [dim0 (size 4), dim1 (size 4)]", &["LinearLayout::toString at 2:13", "labelled 4, expected 2"]),
        (" - register=1 -> (0, 1)\n - lane=1 -> (0, x)\nwhere out dims are: [dim0 (size 4), dim1 (size 4)]", &["LinearLayout::toString at 2:18", "`x` is not an integer"]),
        (" - register=1 -> (0, 1)", &["LinearLayout::toString", "missing the last line `where out dims are"]),
        (" - register=1 -> (0, 9)\nwhere out dims are: [dim0 (size 4), dim1 (size 4)]", &["LinearLayout::toString at 1:18", "outside 0..4"]),
        (" - thread=1 -> (0, 1)\nwhere out dims are: [dim0 (size 4)]", &["LinearLayout::toString at 1:4", "in dim `thread`"]),
        // JSON
        ("{\"reg_bases\": [[0, 1]], \"lane_bases\": [[1, 0]]", &["JSON bases at 1:", "EOF"]),
        ("{\"reg_bases\": [[0, 1]],\n \"lane_bases\": [[1, -2]], \"warp_bases\": []}", &["JSON bases at 2:2", "`lane_bases[0][1]` = -2"]),
        ("{\"reg_bases\": [], \"lane_bases\": [], \"warp_bases\": [], \"regs\": []}", &["JSON bases at 1:", "unknown key `regs`"]),
        ("{\"reg_bases\": [], \"lane\": []}", &["JSON bases", "mixes in-dim names"]),
        // Gluon
        ("ttgl.BlockedLayout([1, 4], [8, 4], [2, 2])", &["Gluon constructor at 1:42", "missing required argument `order`"]),
        ("ttgl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0], sizes=[1])", &["Gluon constructor at 1:52", "unexpected keyword argument `sizes`"]),
        ("ttgl.BlockedLayout(order=[1, 0], [1, 4])", &["Gluon constructor at 1:34", "positional argument follows keyword argument"]),
        ("ttgl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]", &["Gluon constructor at 1:", "expected `,` or `)`"]),
        ("ttgl.SwizzledSharedLayout(1, 1, 1, [1, 0])", &["Gluon constructor at 1:1", "not a distributed layout"]),
        ("ttgl.DotOperandLayout(0, [1, 2], 2)", &["Gluon constructor at 1:26", "`parent` must be a layout"]),
        ("ttgl.SliceLayout(dim=1, dim=0, parent=None)", &["Gluon constructor at 1:25", "multiple values for argument `dim`"]),
        // found by the fuzzer: `None` for a required argument (it panicked)
        ("ttgl.DistributedLinearLayout([], None, [], [], [1])", &["Gluon constructor at 1:34", "argument `lane_bases` is required: it cannot be None"]),
        ("ttgl.SliceLayout(dim=1, parent=None)", &["Gluon constructor at 1:32", "argument `parent` is required"]),
    ];
    for (text, needles) in cases {
        let e = error_of(text);
        for n in *needles {
            assert!(e.contains(n), "{text:?}: `{n}` not in: {e}");
        }
    }
}

#[test]
fn unrecognised_text_lists_every_format() {
    let e = error_of("hello world");
    for f in Format::ALL {
        assert!(e.contains(f.name()), "{e}");
    }
    assert!(e.contains("not a layout in any format"), "{e}");
    assert!(e.contains("at 1:1"), "{e}");
    let e = error_of("   ");
    assert!(e.contains("empty layout text"), "{e}");
}

#[test]
fn positions_count_characters() {
    assert_eq!(Pos::of("ab\ncd", 4), Pos { line: 2, col: 2 });
    assert_eq!(Pos::of("é x", 3), Pos { line: 1, col: 3 });
    assert_eq!(Pos::of("é x", 1), Pos { line: 1, col: 1 });
    assert_eq!(Pos::of("", 10), Pos { line: 1, col: 1 });
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn seeds() -> Vec<String> {
        let l = reference(BLOCKED, &[32, 64], 4);
        let mut v = vec![
            BLOCKED.to_string(),
            MMA3.to_string(),
            dot(1, 2),
            slice(),
            "ttgl.DotOperandLayout(operand_index=0, parent=ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8]), k_width=2)".into(),
            "SliceLayout(1, BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]))".into(),
        ];
        v.extend(bases_spellings(&l, &[32, 64]));
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
        /// Mutated layout text (characters deleted, replaced, inserted) never
        /// panics: it parses, or it is refused with an error; what parses
        /// turns into a layout or an error.
        #[test]
        fn mutated_text_never_panics(
            seed in 0usize..8,
            edits in proptest::collection::vec((0usize..400, 0u8..4, any::<char>()), 1..6),
        ) {
            let seeds = seeds();
            let mut t: Vec<char> = seeds[seed % seeds.len()].chars().collect();
            for (at, op, c) in edits {
                let i = at % (t.len() + 1);
                match op {
                    0 if i < t.len() => { t.remove(i); }
                    1 if i < t.len() => t[i] = c,
                    2 => t.insert(i, c),
                    _ => t.insert(i, ['[', ']', '(', ')', ',', '-', '9', '{', '"', '='][at % 10]),
                }
            }
            let text: String = t.into_iter().collect();
            if let Ok(l) = parse_layout(&text) {
                let shape = l.shape.clone().unwrap_or(vec![32, 64]);
                let _ = l.encoding.to_linear_layout(&shape, l.num_warps.unwrap_or(4));
            } else {
                let e = parse_layout(&text).unwrap_err().to_string();
                prop_assert!(!e.is_empty());
            }
        }
    }
}

// docs/ARCHITECTURE.md 4.7: a cluster layout in every spelling. CTAOrder
// [1, 0] takes dim1 first: CTA bit 0 splits dim1, bit 1 broadcasts (4 CTAs
// along dim1, 2 of them splitting), bit 2 splits dim0; as CGA bases (CTA
// tiles per dim) that is [[0, 1], [0, 0], [1, 0]].
#[test]
fn cluster_blocked_every_spelling() {
    same_layout(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], CTAsPerCGA = [2, 4], CTASplitNum = [2, 2], CTAOrder = [1, 0]}>",
        &[64, 128],
        4,
        &[
            "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 1], [0, 0], [1, 0]]}>".into(),
            "gl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0], [[0, 1], [0, 0], [1, 0]])".into(),
            "ttgl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0], cga_layout=[[0, 1], [0, 0], [1, 0]])".into(),
            "gl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0], ctas_per_cga=[2, 4], cta_split_num=[2, 2], cta_order=[1, 0])".into(),
        ],
    );
}

#[test]
fn cluster_mma_and_slice_every_spelling() {
    same_layout(
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16], CGALayout = [[1, 0]]}>",
        &[128, 64],
        4,
        &[
            "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>".into(),
            "ttgl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16], cga_layout=[[1, 0]])".into(),
        ],
    );
    same_layout(
        "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0], CGALayout = [[1, 0], [0, 0]]}>}>",
        &[128],
        2,
        &["ttgl.SliceLayout(1, ttgl.BlockedLayout([1, 1], [32, 1], [2, 1], [1, 0], [[1, 0], [0, 0]]))".into()],
    );
}

#[test]
fn cluster_fields_errors() {
    for (text, needle) in [
        (
            "gl.BlockedLayout([1], [32], [1], [0], [[1]], cta_order=[0])",
            "not both",
        ),
        (
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CGALayout = [[1]], CTASplitNum = [1]}>",
            "not both",
        ),
    ] {
        let e = match parse_layout(text) {
            Ok(_) => panic!("{text}: parsed"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(needle), "{text}: {e}");
    }
    // bases of the wrong rank, negative, or not spanning a grid of CTA tiles
    for (cga, needle) in [
        ("[[1, 0]]", "has 2 entries, the tensor has rank 1"),
        ("[[2]]", "do not span"),
        ("[[1], [2], [4], [8], [16]]", "more than 16"),
    ] {
        let text = format!("gl.BlockedLayout([1], [32], [1], [0], cga_layout={cga})");
        let l = parse_layout(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let e = l
            .encoding
            .to_linear_layout(&[1024], 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("CGALayout") && e.contains(needle), "{text}: {e}");
    }
}
