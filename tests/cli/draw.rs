//! `warpforge draw`: layouts, plans and shared-memory accesses as text and
//! SVG.

use std::path::PathBuf;

use crate::common::*;

#[test]
fn draw_names_the_cta_of_each_element() {
    let o = run(&[
        "draw",
        "--format",
        "txt",
        "--attr",
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0], CGALayout = [[1, 0]]}>",
        "--shape",
        "8x8",
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("cell = B{CTA}:W{warp}:L{lane}:R{register}"),
        "{out}"
    );
    assert!(out.contains("B1:W0:L31:R0"), "{out}");
}

/// Every `<g class="layout">` of an SVG: (data-elements, data-shape, cells, title).
fn svg_layouts(svg: &str) -> Vec<(usize, String, usize, String)> {
    let doc = roxmltree::Document::parse(svg).expect("valid XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && n.attribute("class") == Some("layout"))
        .map(|g| {
            let cells = g
                .descendants()
                .filter(|n| {
                    n.has_tag_name("rect")
                        && n.attribute("class")
                            .is_some_and(|c| c.split(' ').any(|x| x == "cell"))
                })
                .count();
            (
                g.attribute("data-elements").unwrap().parse().unwrap(),
                g.attribute("data-shape").unwrap().to_string(),
                cells,
                g.children()
                    .find(|n| n.has_tag_name("text"))
                    .and_then(|t| t.text())
                    .unwrap_or("")
                    .trim()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn draw_writes_a_valid_svg_for_every_corpus_layout() {
    let dir = tempfile_dir().join("draw");
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = vec![PathBuf::from("corpus/pairs.mlir")];
    let mut ttgir: Vec<PathBuf> = std::fs::read_dir(root().join("corpus/ttgir"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ttgir"))
        .collect();
    ttgir.sort();
    files.extend(ttgir);
    assert!(files.len() > 20);
    for f in &files {
        let text = std::fs::read_to_string(root().join(f)).unwrap();
        let converts = text
            .lines()
            .filter(|l| l.contains("ttg.convert_layout") && !l.trim().starts_with("//"))
            .count();
        let out = dir.join(format!("{}.svg", f.file_name().unwrap().to_string_lossy()));
        let o = run(&[
            "draw",
            "--ttgir",
            f.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{f:?}: {}", stderr(&o));
        let svg = std::fs::read_to_string(&out).unwrap();
        let layouts = svg_layouts(&svg);
        // the source and destination of every conversion (and the bank map
        // of each shared-memory plan)
        for side in ["source:", "destination:"] {
            let n = layouts.iter().filter(|l| l.3.starts_with(side)).count();
            assert_eq!(n, converts, "{f:?}: {side}");
        }
        for (elements, shape, cells, _) in &layouts {
            let n: usize = shape
                .split('x')
                .map(|d| d.parse::<usize>().unwrap())
                .product();
            assert_eq!(*elements, n, "{f:?}: {shape}");
            assert_eq!(*cells, n, "{f:?}: {shape}: one rect per element");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn draw_a_layout_and_a_plan_as_text_and_svg() {
    // one layout, from a Gluon constructor, as text
    let o = run(&[
        "draw",
        "--attr",
        "ttgl.BlockedLayout([1, 4], [8, 4], [1, 1], [1, 0])",
        "--shape",
        "16x16",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains(" 0:   T0:R0  T0:R1  T0:R2  T0:R3  T1:R0"), "{t}");
    assert!(t.contains(" 8:   T0:R4  T0:R5"), "{t}");
    // several warps are labelled W:L:R, broadcast copies marked
    let o = run(&[
        "draw",
        "--attr",
        &format!("#ttg.slice<{{dim = 1, parent = {BLK_ATTR}}}>"),
        "--shape",
        "32",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("W0:L0:R0*8") && t.contains("1-D tensor of 32 elements drawn as one row"),
        "{t}"
    );
    // a conversion: both layouts, the shuffle's lanes, the selects' registers
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "cvt16_m1:39",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for n in [
        "== source:",
        "== destination:",
        "Shuffle (shfl.sync.",
        "the lane each lane reads",
        "Select,",
        "the register each lane takes",
    ] {
        assert!(t.contains(n), "`{n}` not in {t}");
    }
    // a packed shuffle plan: words, the shuffle, lane-dependent prmt selectors
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "fig3:60",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for n in [
        "Pack, 2 element(s) of 16 bits per 32-bit word",
        "Shuffle (shfl.sync.idx)",
        "BytePerm, 1 prmt per thread",
        "w0 = prmt(w0, w1)",
        "5410 7632",
        "Unpack 16-bit elements",
    ] {
        assert!(t.contains(n), "`{n}` not in {t}");
    }
    // a shared-memory plan: banks per lane and per element
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "cvt16_m2:44",
        "--format",
        "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(
        t.contains("SmemStore")
            && t.contains("bank (4-byte word mod 32)")
            && t.contains("the bank each element is stored to"),
        "{t}"
    );
    // -o writes the SVG; an unknown --name lists the names there are
    let dir = tempfile_dir().join("draw1");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("fig3.svg");
    let o = run(&[
        "draw",
        "--ttgir",
        "corpus/pairs.mlir",
        "--name",
        "fig3:60",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&out).unwrap();
    assert_eq!(svg_layouts(&svg).len(), 2);
    assert!(svg.contains("class=\"stage shuffle\""));
    expect_error(
        &["draw", "--ttgir", "corpus/pairs.mlir", "--name", "nope"],
        &["--name nope", "fig3:60"],
    );
    // nothing to draw is a command-line error: exit 2
    let o = run(&["draw"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--attr") && stderr(&o).contains("--ttgir"));
    std::fs::remove_dir_all(&dir).ok();
}

/// One plan stage of an SVG: a `<g class="stage KIND">` group.
#[derive(Debug)]
struct SvgStage {
    /// `data-stage`, `data-stage-kind` and the `class`'s kind
    index: usize,
    kind: String,
    class: String,
    /// every `data-` attribute, without the prefix
    data: std::collections::HashMap<String, String>,
    /// table rows: the row label, and each cell's (`data-lane`, value) where
    /// the value is the attribute `data-stage-value` names
    rows: Vec<(String, Vec<(u32, u32)>)>,
    /// `<text class="stage-line">` of text stages
    lines: Vec<String>,
}

fn svg_stages(svg: &str) -> Vec<SvgStage> {
    let doc = roxmltree::Document::parse(svg).expect("valid XML");
    let mut out = Vec::new();
    for g in doc.descendants().filter(|n| {
        n.has_tag_name("g")
            && n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|x| x == "stage"))
    }) {
        let class = g.attribute("class").unwrap().to_string();
        let data: std::collections::HashMap<String, String> = g
            .attributes()
            .filter_map(|a| {
                a.name()
                    .strip_prefix("data-")
                    .map(|n| (n.to_string(), a.value().to_string()))
            })
            .collect();
        let index = data["stage"].parse().expect("data-stage is a number");
        let kind = data["stage-kind"].clone();
        let mut rows: Vec<(String, Vec<(u32, u32)>)> = Vec::new();
        if let Some(v) = data.get("stage-value") {
            for t in g
                .descendants()
                .filter(|n| n.attribute("class") == Some("row-label"))
            {
                let r: usize = t.attribute("data-row").unwrap().parse().unwrap();
                assert_eq!(r, rows.len(), "row labels in order");
                rows.push((t.text().unwrap_or("").trim().to_string(), Vec::new()));
            }
            for c in g
                .descendants()
                .filter(|n| n.attribute("class") == Some("stage-cell"))
            {
                let r: usize = c.attribute("data-row").unwrap().parse().unwrap();
                let lane = c.attribute("data-lane").unwrap().parse().unwrap();
                let val = c
                    .attribute(format!("data-{v}").as_str())
                    .unwrap_or_else(|| panic!("stage {index}: a cell without data-{v}"))
                    .parse()
                    .unwrap();
                rows[r].1.push((lane, val));
            }
        }
        let lines = g
            .descendants()
            .filter(|n| n.attribute("class") == Some("stage-line"))
            .map(|t| t.text().unwrap_or("").trim().to_string())
            .collect();
        out.push(SvgStage {
            index,
            kind,
            class,
            data,
            rows,
            lines,
        });
    }
    out
}

/// Every plan stage of a shuffle, a packed shuffle and a shared-memory plan
/// is one SVG group of its kind, whose cells say what each lane does (the
/// lane it reads, the register it takes, its prmt selector, its bank), and
/// whose instruction counts are the plan's cost (`plan --json`).
#[test]
fn draw_svg_has_one_group_per_plan_stage_with_its_lanes() {
    let cases: [(&str, &str, &[&str]); 3] = [
        ("corpus/pairs.mlir", "cvt16_m1:39", &["Select", "Shuffle"]),
        (
            "corpus/pairs.mlir",
            "fig3:60",
            &["Pack", "Shuffle", "BytePerm", "Unpack"],
        ),
        (
            "corpus/ttgir/mmepi_fp16_128x64x64_w4_sm80.ttgir",
            "mm_epilogue:92",
            &["SmemStore", "Barrier", "SmemLoad"],
        ),
    ];
    for (file, name, must) in cases {
        let o = run(&["draw", "--ttgir", file, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let svg = stdout(&o);
        let o = run(&["plan", "--json", "--ttgir", file, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let plan: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        let cost = |k: &str| plan["cost"][k].as_u64().unwrap();
        let stages = svg_stages(&svg);
        // one group per stage, in plan order, each of the kind the plan's
        // summary line lists
        let kinds: Vec<&str> = stages.iter().map(|s| s.kind.as_str()).collect();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let listed: Vec<String> = doc
            .descendants()
            .filter_map(|n| n.text())
            .find_map(|t| t.split_once("; stages: ").map(|x| x.1.trim().to_string()))
            .expect("the plan's summary lists its stages")
            .split(" -> ")
            .map(String::from)
            .collect();
        assert_eq!(kinds, listed, "{name}");
        for k in must {
            assert!(kinds.contains(k), "{name}: no {k} stage in {kinds:?}");
        }
        let mut counts: std::collections::HashMap<&str, u64> = Default::default();
        for (i, s) in stages.iter().enumerate() {
            let at = format!("{name} stage {i} ({})", s.kind);
            assert_eq!(s.index, i, "{at}");
            assert_eq!(s.class, format!("stage {}", s.kind.to_lowercase()), "{at}");
            let count: u64 = s.data["count"].parse().unwrap();
            *counts.entry(s.kind.as_str()).or_default() += count;
            let value = match s.kind.as_str() {
                "Shuffle" => Some("src-lane"),
                "Select" => Some("reg"),
                "BytePerm" => Some("selector"),
                "SmemStore" | "SmemLoad" => Some("bank"),
                _ => None,
            };
            assert_eq!(s.data.get("stage-value").map(String::as_str), value, "{at}");
            if value.is_some() {
                // a table: one row per instruction, 32 lanes in order
                assert_eq!(s.data["rows"], s.rows.len().to_string(), "{at}");
                assert_eq!(s.data["lanes"], "32", "{at}");
                assert_eq!(s.rows.len() as u64, count.min(64), "{at}");
                assert!(!s.rows.is_empty(), "{at}: no rows");
                for (label, cells) in &s.rows {
                    let lanes: Vec<u32> = cells.iter().map(|c| c.0).collect();
                    assert_eq!(lanes, (0..32).collect::<Vec<_>>(), "{at}: {label}");
                }
            } else {
                assert!(s.rows.is_empty(), "{at}");
            }
            let nums = |label: &str| -> Vec<u32> {
                label
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|x| !x.is_empty())
                    .map(|x| x.parse().unwrap())
                    .collect()
            };
            match s.kind.as_str() {
                "Shuffle" => {
                    let mode = s.data["mode"].as_str();
                    assert!(
                        ["idx", "bfly", "up", "down"].contains(&mode),
                        "{at}: {mode}"
                    );
                    let mut moved = false;
                    for (label, cells) in &s.rows {
                        // `r{k} <- r{reg} arg {arg}`
                        let arg = *nums(label).last().unwrap();
                        for &(lane, src) in cells {
                            assert!(src < 32, "{at}: lane {lane} reads lane {src}");
                            if mode == "bfly" {
                                assert_eq!(src, lane ^ arg, "{at}: {label}");
                            }
                            moved |= src != lane;
                        }
                    }
                    assert!(moved, "{at}: every lane reads itself");
                }
                "Select" => {
                    for (label, cells) in &s.rows {
                        // `r{k} mask {mask:05b}: r{if_clear}|r{if_set}`
                        let (_, rest) = label.split_once(" mask ").unwrap();
                        let (mask, regs) = rest.split_once(": ").unwrap();
                        let mask = u32::from_str_radix(mask, 2).unwrap();
                        let r = nums(regs);
                        assert_ne!(r[0], r[1], "{at}: {label}");
                        for &(lane, reg) in cells {
                            let odd = (lane & mask).count_ones() % 2 == 1;
                            assert_eq!(reg, r[usize::from(odd)], "{at}: {label}, lane {lane}");
                        }
                    }
                }
                "BytePerm" => {
                    for (label, cells) in &s.rows {
                        for &(lane, sel) in cells {
                            // four nibbles, each a byte 0..7 of {b, a}
                            assert!(
                                sel < 1 << 16 && (0..4).all(|q| sel >> (4 * q) & 0xf < 8),
                                "{at}: {label}, lane {lane}: selector {sel:x}"
                            );
                        }
                    }
                    // lane-dependent: not one selector for the whole warp
                    let sels: std::collections::HashSet<u32> =
                        s.rows[0].1.iter().map(|c| c.1).collect();
                    assert!(sels.len() > 1, "{at}: {sels:?}");
                }
                "SmemStore" | "SmemLoad" => {
                    let wf: u64 = s.data["wavefronts"].parse().unwrap();
                    let min: u64 = s.data["min-wavefronts"].parse().unwrap();
                    assert!(wf >= min && min > 0, "{at}: {wf} < {min}");
                    // `v128`: each lane's vector covers 4 banks from the one drawn
                    let bits: u32 = s.data["instr"]
                        .strip_prefix('v')
                        .expect("a vector access")
                        .parse()
                        .unwrap();
                    let words = (bits / 32).max(1);
                    for (label, cells) in &s.rows {
                        let banks: std::collections::HashSet<u32> =
                            cells.iter().map(|c| c.1).collect();
                        for b in &banks {
                            assert!(*b < 32 && b % words == 0, "{at}: {label}: bank {b}");
                        }
                        // without conflicts the lanes' vectors cover every bank
                        if wf == min {
                            assert_eq!(banks.len() as u32, 32 / words, "{at}: {label}: {banks:?}");
                        }
                    }
                }
                "Barrier" => {
                    assert!(["warp", "cta"].contains(&s.data["scope"].as_str()), "{at}");
                    assert_eq!(s.lines.len(), 1, "{at}");
                }
                "Pack" => {
                    assert_eq!(s.data["words"], s.lines.len().to_string(), "{at}");
                    assert_eq!(s.data["width"], "16", "{at}");
                }
                "Unpack" => {
                    assert_eq!(s.data["regs"], s.lines.len().to_string(), "{at}");
                }
                "RegRename" => assert_eq!(s.lines.len(), 1, "{at}"),
                k => panic!("{at}: unknown stage kind {k}"),
            }
        }
        // instructions per thread, stage by stage, are the plan's cost
        let n = |k: &str| counts.get(k).copied().unwrap_or(0);
        assert_eq!(n("Shuffle"), cost("shfl"), "{name}: shuffles");
        assert_eq!(n("SmemStore"), cost("sts") + cost("stsm"), "{name}: stores");
        assert_eq!(n("SmemLoad"), cost("lds") + cost("ldsm"), "{name}: loads");
        assert_eq!(n("Barrier"), cost("bar"), "{name}: barriers");
        assert_eq!(n("BytePerm"), cost("prmt"), "{name}: prmt");
        if name == "cvt16_m1:39" {
            assert_eq!(n("Select"), cost("sel"), "{name}: selects");
        }
        // a shared-memory plan also maps every element to its bank
        let banks: Vec<_> = svg_layouts(&svg)
            .into_iter()
            .filter(|l| l.3.starts_with("shared memory: the bank each element"))
            .collect();
        if n("SmemStore") > 0 {
            assert_eq!(banks.len(), 1, "{name}");
            assert_eq!((banks[0].0, banks[0].2), (128 * 64, 128 * 64), "{name}");
        } else {
            assert!(banks.is_empty(), "{name}");
        }
    }
}

#[test]
fn draw_smem_marks_the_conflicting_lanes() {
    let rows = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>";
    let o = run(&[
        "draw",
        "--smem",
        "(_8,_64):(_64,_1)",
        "--dtype",
        "f16",
        "--attr",
        rows,
        "--warps",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = String::from_utf8_lossy(&o.stdout);
    assert!(
        svg.contains(r#"data-stage-kind="SmemAccess""#),
        "no access table"
    );
    assert!(svg.contains(r#"data-bank-conflicts="56""#));
    // 16 words of instruction 0 in each of the 8 rows, all conflicting
    assert_eq!(
        svg.matches(r#"class="cell conflict""#).count(),
        8 * 16 + 8 * 32
    );
    let o = run(&[
        "draw",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
        "--attr",
        rows,
        "--warps",
        "1",
        "--format",
        "txt",
    ]);
    let txt = String::from_utf8_lossy(&o.stdout);
    assert!(
        txt.contains("8 wavefronts (minimum 8), 0 bank conflicts"),
        "{txt}"
    );
    assert!(!txt.contains("b0!") && !txt.contains(",0!"), "{txt}");
    // the layout alone: 8 rows of 32 banks
    let o = run(&[
        "draw",
        "--smem",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--dtype",
        "f16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = String::from_utf8_lossy(&o.stdout);
    assert!(
        svg.contains(r#"data-elements="256" data-shape="8x32""#),
        "{svg}"
    );
}

/// An AMD layout is drawn on its own lanes: `amd_mfma` 32x32 (v3,
/// transposed) at one warp puts lanes 32-63 beside lanes 0-31 (Triton's
/// bases: lane 32 moves dim1 by 4), as `docs/draw_amd_mfma_32x32.svg` shows.
#[test]
fn draw_shows_an_amd_layout_on_its_64_lanes() {
    let attr = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 8], isTransposed = true}>";
    let o = run(&[
        "draw", "--attr", attr, "--shape", "32x32", "--warps", "1", "--format", "txt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = String::from_utf8_lossy(&o.stdout);
    let row0 = t
        .lines()
        .find(|l| l.trim_start().starts_with("0:"))
        .unwrap();
    let cells: Vec<&str> = row0.split_whitespace().skip(1).collect();
    assert_eq!(
        &cells[..5],
        ["T0:R0", "T0:R1", "T0:R2", "T0:R3", "T32:R0"],
        "{row0}"
    );
    assert!(t.contains("T63:R15"), "{t}");
}
