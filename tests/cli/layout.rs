//! `warpforge layout`: every input format (TTGIR attributes, toString, JSON
//! bases, Gluon, CuTe, PTX fragments) read as the same linear layout, their
//! errors, CGA layouts, and `--smem` bank conflicts.

use crate::common::*;

#[test]
fn gluon_cga_layout_and_ttgir_cgalayout_read_as_ctas_fields() {
    let fields = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>";
    let bases = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0], CGALayout = [[1, 0]]}>";
    let gluon_pos = "gl.BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0], [[1, 0]])";
    let gluon_kw = "ttgl.BlockedLayout([1, 1], [1, 32], [1, 1], [1, 0], cga_layout=[[1, 0]])";
    let mut outs = Vec::new();
    for attr in [fields, bases, gluon_pos, gluon_kw] {
        let o = run(&["layout", "--attr", attr, "--shape", "64x32", "--warps", "1"]);
        assert!(o.status.success(), "{attr}: {}", stderr(&o));
        // the CTA of each element, on standard error
        let err = stderr(&o);
        let out = String::from_utf8(o.stdout).unwrap();
        assert!(out.contains("block=1 -> (32, 0)"), "{attr}: {out}");
        assert!(err.contains("CTA of each element"), "{attr}: {err}");
        outs.push(out);
    }
    assert!(outs.windows(2).all(|w| w[0] == w[1]));
    expect_error(
        &[
            "layout",
            "--attr",
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CGALayout = [[1]], CTAOrder = [0]}>",
            "--shape",
            "64",
            "--warps",
            "1",
        ],
        &["CGALayout", "not both"],
    );
    expect_error(
        &[
            "layout",
            "--attr",
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CGALayout = [[2]]}>",
            "--shape",
            "128",
            "--warps",
            "1",
        ],
        &["CGALayout", "do not span"],
    );
}

#[test]
fn layout_prints_triton_to_string() {
    let o = run(&["layout", "--attr", B8X4, "--shape", "16x16", "--warps", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = String::from_utf8(o.stdout).unwrap();
    assert!(s.starts_with(" - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n   register=4 -> (8, 0)\n - lane=1 -> (0, 4)"), "{s}");
    assert!(s.contains("where out dims are: [dim0 (size 16), dim1 (size 16)]"));
}

const MMA3_ATTR: &str = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>";
const LIN_ATTR: &str = "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]], block = []}>";

#[test]
fn every_input_format_gives_the_attributes_layout() {
    let dir = tempfile_dir().join("formats");
    std::fs::create_dir_all(&dir).unwrap();
    let dot = format!("#ttg.dot_op<{{opIdx = 0, parent = {MMA2_ATTR}, kWidth = 2}}>");
    let slice = format!("#ttg.slice<{{dim = 1, parent = {BLK_ATTR}}}>");
    let kinds: Vec<(&str, String, &str, &str, Vec<String>)> = vec![
        ("blocked", BLK_ATTR.into(), "32x64", "4", vec![
            GL_BLK.into(),
            "BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])".into(),
        ]),
        ("mma v2", MMA2_ATTR.into(), "64x64", "4", vec![
            GL_MMA2.into(),
            "NVMMADistributedLayout([2, 0], [2, 2], [16, 8])".into(),
        ]),
        ("mma v3", MMA3_ATTR.into(), "128x64", "4", vec![
            "ttgl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])".into(),
            "NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])".into(),
        ]),
        ("dot_op", dot, "64x32", "4", vec![
            format!("ttgl.DotOperandLayout(operand_index=0, parent={GL_MMA2}, k_width=2)"),
            "DotOperandLayout(0, NVMMADistributedLayout([2, 0], [2, 2], [16, 8]), 2)".into(),
        ]),
        ("slice", slice, "32", "4", vec![
            format!("ttgl.SliceLayout(dim=1, parent={GL_BLK})"),
            "SliceLayout(1, BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]))".into(),
        ]),
        ("linear", LIN_ATTR.into(), "32x8", "2", vec![
            "ttgl.DistributedLinearLayout(reg_bases=[[0, 1], [8, 0]], lane_bases=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp_bases=[[16, 0]], block_bases=[], shape=[32, 8])".into(),
        ]),
    ];
    for (kind, attr, shape, warps, gluon) in kinds {
        let want = layout_of(&attr, Some(shape), Some(warps));
        let mut spellings: Vec<(String, bool)> = vec![(want.clone(), true)];
        spellings.extend(bases_spellings(&want).into_iter().map(|s| (s, true)));
        spellings.extend(gluon.into_iter().map(|s| (s, false)));
        for (i, (text, carries_shape)) in spellings.iter().enumerate() {
            // inline, then from a file; shape and warps from the layout where it carries them
            let f = dir.join(format!("{}_{i}.txt", kind.replace(' ', "_")));
            std::fs::write(&f, text).unwrap();
            let at = format!("@{}", f.display());
            for arg in [text.as_str(), at.as_str()] {
                let got = if *carries_shape {
                    layout_of(arg, None, None)
                } else {
                    layout_of(arg, Some(shape), None)
                };
                assert_eq!(got, want, "{kind}: {arg}");
            }
        }
    }
}

#[test]
fn malformed_layouts_name_format_position_and_problem() {
    let cases: &[(&str, &[&str])] = &[
        ("#ttg.blocked<{sizePerThread = [1, 4], bogus = 3}>", &["--src:1:39", "unknown attribute key `bogus`"]),
        (" - register=1 -> (0, 1)\n   register=4 -> (0, 2)\nwhere out dims are: [dim0 (size 4), dim1 (size 4)]", &["--src", "LinearLayout::toString at 2:13", "labelled 4, expected 2"]),
        ("{\"reg_bases\": [[0, 1]],\n \"lane_bases\": [[1, -2]], \"warp_bases\": []}", &["--src", "JSON bases at 2:2", "`lane_bases[0][1]` = -2"]),
        ("{\"reg_bases\": [[0, 1]]", &["--src", "JSON bases at 1:", "EOF"]),
        ("ttgl.BlockedLayout([1, 4], [8, 4], [2, 2])", &["--src", "Gluon constructor at 1:42", "missing required argument `order`"]),
        ("ttgl.BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0], sizes=[1])", &["--src", "Gluon constructor at 1:52", "unexpected keyword argument `sizes`"]),
        ("blocked please", &["--src", "not a layout in any format", "TTGIR attribute at 1:1", "LinearLayout::toString at 1:1", "JSON bases at 1:1", "Gluon constructor at 1:"]),
    ];
    for (text, needles) in cases {
        expect_error(
            &[
                "plan", "--src", text, "--dst", B4X8T, "--shape", "16x16", "--warps", "1",
            ],
            needles,
        );
        expect_error(
            &["layout", "--attr", text, "--shape", "16x16"],
            &needles[1..],
        );
        expect_error(&["draw", "--attr", text, "--shape", "16x16"], &needles[1..]);
    }
    expect_error(
        &["draw", "--attr", "@no/such/layout.json"],
        &["@no/such/layout.json", "cannot read"],
    );
}

/// CuTe's SM80 16x8x16 C fragment (`cute::print` of the `TiledMMA`'s C TV
/// layout) is Triton's mma v2 accumulator: the same bases.
const CUTE_C: &str = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))";

#[test]
fn a_cute_tv_layout_reads_as_its_linear_layout() {
    let cute = run(&[
        "layout", "--attr", CUTE_C, "--shape", "16x8", "--warps", "1",
    ]);
    assert!(cute.status.success(), "{}", stderr(&cute));
    let mma = run(&[
        "layout",
        "--attr",
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>",
        "--shape",
        "16x8",
        "--warps",
        "1",
    ]);
    assert_eq!(cute.stdout, mma.stdout);
    // the A operand: CuTe's 16x16 A TV layout is the dot_op of that mma, kWidth 2
    let cute_a = run(&[
        "layout",
        "--attr",
        "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))",
        "--shape",
        "16x16",
        "--warps",
        "1",
    ]);
    let dot_a = run(&[
        "layout",
        "--attr",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 2}>",
        "--shape",
        "16x16",
        "--warps",
        "1",
    ]);
    assert!(cute_a.status.success(), "{}", stderr(&cute_a));
    assert_eq!(cute_a.stdout, dot_a.stdout);
    // a CuTe --src and a TTGIR --dst in one plan
    let o = run(&[
        "plan", "--src", CUTE_C, "--dst", B8X4, "--shape", "16x8", "--warps", "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // plain integers read as the static ones; a conversion from it proves
    let o = run(&[
        "verify",
        "--cpu",
        "--src",
        "((4,8),(2,2)):((32,1),(16,8))",
        "--dst",
        B8X4,
        "--shape",
        "16x8",
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn cute_layouts_that_are_not_linear_or_do_not_fit_are_refused() {
    let err = |attr: &str, warps: &str| {
        let o = run(&[
            "layout", "--attr", attr, "--shape", "16x8", "--warps", warps,
        ]);
        assert_eq!(o.status.code(), Some(1), "{attr}");
        stderr(&o)
    };
    let e = err("((_4,_8),(_2,_2)):((_32,_1),(_16,_3))", "1");
    assert!(
        e.contains("value mode: stride 3 is not a power of two")
            && e.contains("CuTe layout at 1:34"),
        "{e}"
    );
    let e = err("((_4,_8),(_2,_2)):((_32,_1),(_16,_16))", "1");
    assert!(e.contains("carry into each other"), "{e}");
    let e = err("((_4,_8),(_2,_2):((_32,_1),(_16,_8))", "1");
    assert!(
        e.contains("expected `,` or `)`") && e.contains("CuTe layout"),
        "{e}"
    );
    let e = err(CUTE_C, "4");
    assert!(
        e.contains("has 32 threads") && e.contains("--warps is 4") && e.contains("128 threads"),
        "{e}"
    );
    let e = err("((_4,_8),(_2,_2)):((_32,_1),(_16,_128))", "1");
    assert!(e.contains("beyond the 16x8 tile"), "{e}");
}

/// Named PTX fragments read as the layouts Triton's own encodings give for
/// the same registers (and as the CuTe TV layout of a 2x2-warp TiledMMA).
#[test]
fn ptx_fragments_are_the_layouts_triton_gives_the_same_registers() {
    let same = |a: &str, b: &str, shape: &str, warps: &str| {
        let x = run(&["layout", "--attr", a, "--shape", shape, "--warps", warps]);
        let y = run(&["layout", "--attr", b, "--shape", shape, "--warps", warps]);
        assert!(x.status.success(), "{a}: {}", stderr(&x));
        assert!(y.status.success(), "{b}: {}", stderr(&y));
        assert_eq!(
            String::from_utf8_lossy(&x.stdout),
            String::from_utf8_lossy(&y.stdout),
            "{a} vs {b}"
        );
    };
    let m2 = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>";
    let dot =
        |op: u32, k: u32| format!("#ttg.dot_op<{{opIdx = {op}, parent = {m2}, kWidth = {k}}}>");
    same("ptx:mma.m16n8k16.c.f32", m2, "16x8", "1");
    same("ptx:mma.m16n8k16.c.f32", CUTE_C, "16x8", "1");
    same("ptx:mma.m16n8k16.a.f16", &dot(0, 2), "16x16", "1");
    same("ptx:mma.m16n8k16.b.bf16", &dot(1, 2), "16x8", "1");
    same("ptx:mma.m16n8k32.a.e4m3", &dot(0, 4), "16x32", "1");
    same("ptx:mma.m16n8k32.b.s8", &dot(1, 4), "32x8", "1");
    same("ptx:mma.m16n8k8.a.tf32", &dot(0, 1), "16x8", "1");
    same("ptx:ldmatrix.x4", "ptx:mma.m16n8k16.a.f16", "16x16", "1");
    same(
        "ptx:wgmma.m64n128k16.c.f32",
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 128, 16]}>",
        "64x128",
        "4",
    );
    // warps: A is copied by warps along N, B by warps along M (dot_op)
    let mma = |w: &str| {
        format!("#ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = {w}, instrShape = [16, 8]}}>")
    };
    let dot_w = |op: u32, w: &str| {
        format!(
            "#ttg.dot_op<{{opIdx = {op}, parent = {}, kWidth = 2}}>",
            mma(w)
        )
    };
    same("ptx:mma.m16n8k16.a.f16", &dot_w(0, "[4, 1]"), "64x16", "4");
    same("ptx:mma.m16n8k16.b.f16", &dot_w(1, "[4, 1]"), "16x8", "4");
    same(
        "ptx:mma.m16n8k16.a.f16@1x4",
        &dot_w(0, "[1, 4]"),
        "16x16",
        "4",
    );
    same(
        "ptx:mma.m16n8k16.b.f16@1x4",
        &dot_w(1, "[1, 4]"),
        "16x32",
        "4",
    );
    same("ptx:mma.m16n8k16.c.f32", &mma("[4, 1]"), "64x8", "4");
    // a Gluon assignment to `_L` is not taken for a CuTe `_4`
    let o = run(&[
        "layout",
        "--attr",
        "_L = ttgl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])",
        "--shape",
        "32x32",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // warps along M first, then N, as a TiledMMA of 2x2 warps
    same(
        "ptx:mma.m16n8k16.c.f32@2x2",
        "((_4,_8,_2,_2),(_2,_2)):((_64,_1,_16,_256),(_32,_8))",
        "32x16",
        "4",
    );
    // the paper's figure 3: an fp16 accumulator into fp8 operand order
    let o = run(&[
        "verify",
        "--cpu",
        "--src",
        "ptx:mma.m16n8k16.c.f32",
        "--dst",
        "ptx:mma.m16n8k32.a.e4m3",
        "--shape",
        "16x32",
        "--warps",
        "1",
        "--dtype",
        "f8E4M3FN",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn bad_ptx_fragments_say_what_is_known() {
    let err = |attr: &str, warps: &str| {
        let o = run(&[
            "layout", "--attr", attr, "--shape", "64x32", "--warps", warps,
        ]);
        assert_eq!(o.status.code(), Some(1), "{attr}");
        stderr(&o)
    };
    let e = err("ptx:mma.m16n8k64.c.f32", "1");
    assert!(
        e.contains("unknown fragment `mma.m16n8k64.c.f32`; known: mma.m16n8k16"),
        "{e}"
    );
    assert!(e.contains("wgmma.m64nNk16.c.{f32,f16}"), "{e}");
    assert!(err("ptx:mma.m16n8k16.c.f64", "1").contains("type `f64` is not one of f32, f16"));
    assert!(err("ptx:mma.m16n8k16.c.f32@3x1", "1").contains("powers of two"));
    let e = err("ptx:mma.m16n8k16.c.f32@2x2", "2");
    assert!(e.contains("make 4 warps, but --warps is 2"), "{e}");
    assert!(err("ptx:wgmma.m64n24k16.c.f32", "4").contains("N must be a power of two"));
    assert!(err("ptx:mma.m16n8k16.a.f16.x", "1").contains("nothing may follow the type"));
    assert!(err("ptx:wgmma.m64n64k16.c.f32@4x4", "4").contains("32 warps at most"));
}

/// `layout --smem`: a CuTe swizzled shared layout (the SM80 f16 8x64
/// K-major atom) under 128-bit row accesses of 8 lanes down the rows (as
/// ldmatrix addresses them) is conflict-free; the same layout unswizzled has
/// all 8 lanes of each quarter warp on the same 4 banks: 8 wavefronts per
/// phase, 32 per instruction against 4 (computed by hand in
/// synth/src/smem/tests.rs).
#[test]
fn layout_smem_counts_bank_conflicts_of_an_access() {
    let rows = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>";
    let o = run(&[
        "layout",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
        "--attr",
        rows,
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("offset=64 -> (1, 8)"), "{out}");
    assert!(out.contains("2 x st/ld.shared.v4.b32 per thread"), "{out}");
    assert!(
        out.contains("#0 registers 0..7 at +0: 4 wavefronts (minimum 4), 0 bank conflicts"),
        "{out}"
    );
    assert!(out.contains("summary: 2 instruction(s) per thread, 8 wavefronts per warp (minimum 8), 0 bank conflicts"), "{out}");
    // the same without the swizzle; the SW128 atom as CUTLASS prints it
    // (byte swizzle behind smem_ptr[16b], element width from it)
    let o = run(&[
        "layout",
        "--smem",
        "(_8,_64):(_64,_1)",
        "--dtype",
        "16",
        "--attr",
        rows,
        "--warps",
        "1",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("32 wavefronts (minimum 4), 28 bank conflicts; conflicting lanes 0-31"),
        "{out}"
    );
    assert!(
        out.contains("64 wavefronts per warp (minimum 8), 56 bank conflicts"),
        "{out}"
    );
    let o = run(&[
        "layout",
        "--smem",
        "Sw<3,4,3> o smem_ptr[16b](unset) o (_16,_64):(_64,_1)",
        "--attr",
        "ptx:mma.m16n8k16.c.f16",
        "--warps",
        "1",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("16 x st/ld.shared.b32"), "{out}");
    assert!(
        out.contains("16 wavefronts per warp (minimum 16), 0 bank conflicts"),
        "{out}"
    );
    // the layout alone
    let o = run(&[
        "layout",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout)
        .contains("where out dims are: [dim0 (size 8), dim1 (size 64)]"));
}

#[test]
fn layout_smem_refuses_bad_input() {
    expect_error(
        &[
            "layout",
            "--smem",
            "Sw<3,4> o _0 o (_8,_64):(_64,_1)",
            "--dtype",
            "f16",
        ],
        &["--smem:1:7", "expected `,` then S"],
    );
    expect_error(
        &["layout", "--smem", "(_8,_64):(_3,_1)", "--dtype", "f16"],
        &["mode 0: stride 3 is not a power of two"],
    );
    expect_error(&["layout", "--smem", "(_8,_64):(_64,_1)"], &["--dtype"]);
    expect_error(
        &["layout", "--attr", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"],
        &["give it as --smem"],
    );
    expect_error(
        &[
            "layout",
            "--smem",
            "(_16,_64):(_64,_1)",
            "--dtype",
            "f16",
            "--attr",
            "ptx:mma.m16n8k16.c.f16",
            "--warps",
            "1",
            "--vector",
            "64",
        ],
        &["--vector 64", "register 2 of a thread lands at offset"],
    );
    expect_error(
        &[
            "layout",
            "--smem",
            "(_16,_32):(_32,_1)",
            "--dtype",
            "f16",
            "--attr",
            "ptx:mma.m16n8k16.c.f16",
            "--warps",
            "1",
            "--shape",
            "16x64",
        ],
        &["tile is 16x32"],
    );
}
