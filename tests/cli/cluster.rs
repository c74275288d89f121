//! Conversions across the CTAs of a cluster (docs/ARCHITECTURE.md 4.7)
//! through plan, emit and verify: the cluster plans and their helpers, CTA
//! counts that disagree, and refusals below sm_90.

use crate::common::*;

// docs/ARCHITECTURE.md 4.7: a cross-CTA conversion needs clusters: on a
// target below sm_90, or with another strategy forced, it is refused with
// the cross-CTA message naming the conversion's line
#[test]
fn cross_cta_is_refused_below_sm90_and_for_forced_strategies() {
    expect_error(
        &["plan", "--ttgir", "tests/data/cross_cta.mlir", "--sm", "80"],
        &["cross_cta.mlir:6", "across CTAs", "sm_80", "sm_90"],
    );
    expect_error(
        &[
            "plan",
            "--ttgir",
            "tests/data/cross_cta.mlir",
            "--strategy",
            "shared",
        ],
        &["cross_cta.mlir:6", "across CTAs", "cluster strategy"],
    );
    // more than 16 CTAs: refused when the layout is read
    let a = "#ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[32], [64], [128], [256], [512]]}>";
    let b = "#ttg.linear<{register = [], lane = [[32], [64], [128], [256], [512]], warp = [], block = [[1], [2], [4], [8], [16]]}>";
    let o = run(&[
        "plan", "--src", a, "--dst", b, "--shape", "1024", "--warps", "1",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("16"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

// docs/ARCHITECTURE.md 4.7: every cross-CTA case of the cluster files
// (2, 4 and 8 CTAs, 1-D and 2-D, broadcast, and the 2-CTA TTGIR module whose
// blocked layouts split different dims) is planned through distributed
// shared memory and proven on the CPU for every thread of every CTA; plan
// --json states the cross-CTA bytes and the cluster barriers
#[test]
fn cluster_cross_cta_cases_are_planned_and_proven() {
    // (file, name, CTAs, threads per CTA, destination registers)
    let cases: [(&str, &str, u64, u64, u64); 9] = [
        ("cluster_cross_cta.mlir", "c2_1d", 2, 32, 2),
        ("cluster_cross_cta.mlir", "c2_2d", 2, 32, 16),
        ("cluster_cross_cta.mlir", "c2_keep_half", 2, 32, 2),
        ("cluster_cross_cta.mlir", "c4_1d_bcast", 4, 32, 2),
        ("cluster_cross_cta.mlir", "c4_2d_bcast", 4, 32, 16),
        ("cluster_cross_cta.mlir", "c8_1d", 8, 32, 1),
        ("cluster_cross_cta.mlir", "c8_2d", 8, 64, 4),
        ("cluster2_blocked.mlir", "split_m_to_n", 2, 0, 0),
        ("cross_cta.mlir", "cross", 2, 32, 64),
    ];
    for (file, name, ctas, threads, dst_regs) in cases {
        let path = format!("tests/data/{file}");
        let o = run(&[
            "verify", "--cpu", "--json", "--ttgir", &path, "--name", name,
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["verified"], true, "{name}: {v}");
        if threads > 0 {
            assert_eq!(
                v["cpu"]["slots"].as_u64(),
                Some(ctas * threads * dst_regs),
                "{name}: {v}"
            );
        }
        let o = run(&["plan", "--json", "--ttgir", &path, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["kind"], "cluster", "{name}: {v}");
        assert_eq!(v["ctas"].as_u64(), Some(ctas), "{name}: {v}");
        assert_eq!(v["cluster_barriers"].as_u64(), Some(2), "{name}: {v}");
        assert_eq!(v["cost"]["cbar"].as_u64(), Some(2), "{name}: {v}");
        assert!(v["cluster_bytes"].as_u64().unwrap() > 0, "{name}: {v}");
        let variant = v["cluster_variant"].as_str().unwrap();
        let prefix = match variant {
            "store_remote" => "cluster/remote-store/",
            "load_remote" => "cluster/remote-load/",
            other => panic!("{name}: cluster_variant {other}"),
        };
        assert!(
            v["strategy"].as_str().unwrap().starts_with(prefix),
            "{name}: {v}"
        );
    }
    // 2 CTAs, 1 warp, 128 i32: each CTA keeps half of its 64 elements and
    // sends the other 32 (128 bytes) to its peer
    let o = run(&[
        "plan",
        "--json",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c2_1d",
    ]);
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["cluster_bytes"].as_u64(), Some(128), "{v}");
    assert_eq!(v["smem_bytes"].as_u64(), Some(256), "{v}");
}

// the 40 random cross-CTA conversions GPU-checked in results/runs/2026-11-23-h100-cluster-3bea4a8/README.md
// are proven on the CPU in both plans
#[test]
fn random_cluster_file_is_proven_in_both_plans() {
    for s in ["cluster-store", "cluster-load"] {
        let o = run(&[
            "verify",
            "--cpu",
            "--strategy",
            s,
            "--ttgir",
            "tests/data/cluster_random.mlir",
        ]);
        assert!(o.status.success(), "{s}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("40 of 40 conversion(s) verified"),
            "{s}: {}",
            stderr(&o)
        );
    }
}

// 16 CTAs, over the portable 8: proven on the CPU, and the helper's comment
// tells the caller to opt in to the non-portable cluster size
#[test]
fn sixteen_cta_cluster_helper_asks_for_the_non_portable_size() {
    let path = "tests/data/cluster16.mlir";
    let o = run(&["verify", "--cpu", "--json", "--ttgir", path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["cpu"]["slots"].as_u64(), Some(16 * 32), "{v}");
    let out = tempfile_dir().join("cluster16.cuh");
    let o = run(&["emit", "--ttgir", path, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(
        h.contains("cluster of 16 CTAs (over the portable 8: set cudaFuncAttributeNonPortableClusterSizeAllowed"),
        "{h}"
    );
    // 8 CTAs is portable: no such line
    let out8 = tempfile_dir().join("cluster8.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c8_1d",
        "-o",
        out8.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!std::fs::read_to_string(&out8).unwrap().contains("portable"));
}

// conversions where every CTA keeps elements it holds, but which and in
// what order depends on the CTA (tests/data/cluster_cta_dependent.mlir):
// one program for every CTA, through the cluster plan, proven on the CPU
#[test]
fn cta_dependent_conversions_go_through_the_cluster_plan() {
    for (name, slots) in [("c4_1d_select", 4 * 32), ("c4_2d_select", 4 * 32 * 8)] {
        let path = "tests/data/cluster_cta_dependent.mlir";
        let o = run(&["verify", "--cpu", "--json", "--ttgir", path, "--name", name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["verified"], true, "{name}: {v}");
        assert_eq!(v["cpu"]["slots"].as_u64(), Some(slots), "{name}: {v}");
        let o = run(&["plan", "--json", "--ttgir", path, "--name", name]);
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
        assert_eq!(v["kind"], "cluster", "{name}: {v}");
        assert_eq!(v["ctas"].as_u64(), Some(4), "{name}: {v}");
    }
    // below sm_90 refused, saying what the conversion does (no data crosses)
    expect_error(
        &[
            "plan",
            "--sm",
            "80",
            "--ttgir",
            "tests/data/cluster_cta_dependent.mlir",
        ],
        &[
            "c4_1d_select:15",
            "every CTA keeps its elements, in an order that depends on the CTA",
            "sm_80 lacks",
        ],
    );
}

// the emitted cluster helper of the writer variant (forced: auto picks the
// reader for this case; compiled and run on an H100 by `verify --gpu`,
// results/runs/2026-11-23-h100-cluster-3bea4a8/README.md; not compiled here: no nvcc) states its
// cluster size, the launch it needs, the cross-CTA bytes and barriers, and
// uses mapa / st.shared::cluster / barrier.cluster with the opt-in check
#[test]
fn cluster_helper_states_its_contract() {
    let out = tempfile_dir().join("cluster_cross_c4.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c4_1d_bcast",
        "--strategy",
        "cluster-store",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    for needle in [
        "cluster of 4 CTAs",
        "%cluster_ctarank",
        "__cluster_dims__",
        "cudaLaunchAttributeClusterDimension",
        "cross-CTA bytes per CTA",
        "cluster barriers: 2",
        "#ifdef WARPFORGE_CHECK_CLUSTER",
        "%%cluster_nctarank",
        "if (n != 4u) __trap();",
        // source block bit 1 is a broadcast: CTAs 2 and 3 store nothing
        "if (((rank1 & 2u)) == 0u) {",
        "mapa.shared::cluster.u32",
        "st.shared::cluster.b32",
        "barrier.cluster.arrive.release.aligned;",
        "barrier.cluster.wait.acquire.aligned;",
        "void* smem",
    ] {
        assert!(h.contains(needle), "`{needle}` not in:\n{h}");
    }
}

// docs/ARCHITECTURE.md 4.7: --strategy cluster-store / cluster-load force
// the writer-stores-remotely / reader-loads-remotely plan of every
// cross-CTA case (plan --json names it, verify --cpu proves it); auto lets
// the cost model choose (the 4-CTA broadcast case: one local store and two
// loads beat four remote stores; the 2-CTA 2-D case: the writer); a
// cluster strategy forced on a conversion that stays in its CTAs is
// refused
#[test]
fn cluster_strategy_forces_each_variant() {
    let cases = [
        ("cluster_cross_cta.mlir", "c2_1d"),
        ("cluster_cross_cta.mlir", "c4_1d_bcast"),
        ("cluster_cross_cta.mlir", "c8_2d"),
        ("cluster2_blocked.mlir", "split_m_to_n"),
        ("cross_cta.mlir", "cross"),
    ];
    let json = |args: &[&str]| -> serde_json::Value {
        let o = run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap()
    };
    for (file, name) in cases {
        let path = format!("tests/data/{file}");
        for (strategy, variant, prefix) in [
            ("cluster-store", "store_remote", "cluster/remote-store/"),
            ("cluster-load", "load_remote", "cluster/remote-load/"),
        ] {
            let v = json(&[
                "plan",
                "--json",
                "--ttgir",
                &path,
                "--name",
                name,
                "--strategy",
                strategy,
            ]);
            assert_eq!(v["kind"], "cluster", "{name} {strategy}: {v}");
            assert_eq!(v["cluster_variant"], variant, "{name} {strategy}: {v}");
            assert!(
                v["strategy"].as_str().unwrap().starts_with(prefix),
                "{name} {strategy}: {v}"
            );
            assert_eq!(v["cluster_barriers"].as_u64(), Some(2), "{name}: {v}");
            assert!(v["cluster_bytes"].as_u64().unwrap() > 0, "{name}: {v}");
            let key = if strategy == "cluster-store" {
                "stcl"
            } else {
                "ldcl"
            };
            assert!(
                v["cost"][key].as_u64().unwrap() > 0,
                "{name} {strategy}: {v}"
            );
            let v = json(&[
                "verify",
                "--cpu",
                "--json",
                "--ttgir",
                &path,
                "--name",
                name,
                "--strategy",
                strategy,
            ]);
            assert_eq!(v["verified"], true, "{name} {strategy}: {v}");
        }
    }
    let auto = |file: &str, name: &str| {
        json(&[
            "plan",
            "--json",
            "--ttgir",
            &format!("tests/data/{file}"),
            "--name",
            name,
        ])["cluster_variant"]
            .clone()
    };
    // auto takes either variant by score: a one-warp CTA of few elements
    // loads remotely; a four-warp 128x64 f16 tile, whose remote loads weigh
    // more and remote stores less with the warps of the CTA, stores
    // remotely
    assert_eq!(auto("cluster_cross_cta.mlir", "c4_1d_bcast"), "load_remote");
    assert_eq!(auto("cluster_cross_cta.mlir", "c2_2d"), "load_remote");
    assert_eq!(
        auto("cluster2_blocked.mlir", "split_m_to_n"),
        "store_remote"
    );
    expect_error(
        &[
            "plan",
            "--ttgir",
            "tests/data/cluster2_blocked.mlir",
            "--name",
            "split_m_both",
            "--strategy",
            "cluster-load",
        ],
        &[
            "cluster-load",
            "does not apply",
            "keep their elements in the same order (equal block bases)",
        ],
    );
}

// the reader-loads-remotely helper (forced; not compiled here: no nvcc):
// local st.shared of the source, a cluster barrier, mapa +
// ld.shared::cluster from the CTA holding each element (ld.shared where
// the own CTA holds it in every thread: register 0 of c2_keep_half), and a
// final cluster barrier after the last load; no remote stores
#[test]
fn cluster_load_helper_loads_remotely_and_ends_with_a_barrier() {
    let out = tempfile_dir().join("cluster_keep_half_load.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "--name",
        "c2_keep_half",
        "--strategy",
        "cluster-load",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    for needle in [
        "cluster/remote-load/",
        "cluster of 2 CTAs",
        "elements loaded from other CTAs",
        "cluster barriers: 2",
        "%%cluster_ctarank",
        "if (n != 2u) __trap();",
        "detail::st_b32(",
        "mapa.shared::cluster.u32 %0, %1, %2;",
        // 4-byte elements: register 0 from the own CTA, register 1 remote
        "const unsigned w2_0_0 = detail::ld_b32(sb + (ob2 ^ 0u) * 4u);",
        "asm volatile(\"ld.shared::cluster.b32 %0, [%1];\" : \"=r\"(w2_1_0) : \"r\"(r2_1) : \"memory\");",
        "asm volatile(\"ld.shared::cluster.u8 %0, [%1];\"",
        "asm volatile(\"ld.shared::cluster.u16 %0, [%1];\"",
        "asm volatile(\"ld.shared::cluster.v2.b32 {%0, %1}, [%2];\"",
    ] {
        assert!(h.contains(needle), "`{needle}` not in:\n{h}");
    }
    assert!(!h.contains("st.shared::cluster"), "{h}");
    // per element width: store, barrier, loads, barrier, then the outputs
    for body in h.split("if constexpr (sizeof(T) == ").skip(1) {
        let first_bar = body.find("barrier.cluster.arrive").unwrap();
        let last_bar = body.rfind("barrier.cluster.arrive").unwrap();
        let last_load = body.rfind("ld.shared::cluster").unwrap();
        let store = body.find("detail::st_").unwrap();
        assert!(
            store < first_bar && first_bar < last_load && last_load < last_bar,
            "{body}"
        );
        assert!(body.find("dst[0] =").unwrap() > last_bar, "{body}");
        assert_eq!(
            body.matches("barrier.cluster.wait.acquire.aligned").count(),
            2,
            "{body}"
        );
    }
    // 128-bit remote loads where 16-byte runs of a destination thread's
    // registers lie in one CTA (split-M -> split-N, 16-bit elements)
    let out = tempfile_dir().join("cluster2_split_load.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster2_blocked.mlir",
        "--name",
        "split_m_to_n",
        "--strategy",
        "cluster-load",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(
        h.contains("asm volatile(\"ld.shared::cluster.v4.b32 {%0, %1, %2, %3}, [%4];\""),
        "{h}"
    );
}

// the in-CTA conversion of a 2-CTA TTGIR module (CTASplitNum on one side,
// CGALayout on the other) is planned per CTA and proven for both CTAs
#[test]
fn cluster_in_cta_conversion_is_planned_per_cta() {
    let o = run(&[
        "verify",
        "--cpu",
        "--json",
        "--ttgir",
        "tests/data/cluster2_blocked.mlir",
        "--name",
        "split_m_both",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8(o.stdout).unwrap().trim()).unwrap();
    assert_eq!(v["verified"], true, "{v}");
    // 2 CTAs x 4 warps x 32 lanes x 32 registers (128x64 over 256 threads)
    assert_eq!(v["cpu"]["slots"].as_u64(), Some(2 * 4 * 32 * 32), "{v}");
    // the helper's comment shows both layouts' block bases (the helper runs
    // in every CTA; headers of one-program in-CTA conversions are as before)
    let out = tempfile_dir().join("cluster2_in_cta.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cluster2_blocked.mlir",
        "--name",
        "split_m_both",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let header = std::fs::read_to_string(&out).unwrap();
    assert!(header.contains("block=1 -> (64, 0)"), "{header}");
}

#[test]
fn cta_counts_that_disagree_are_named() {
    let split = "#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]], warp = [], block = [[2, 0]]}>";
    let split_t = "#ttg.linear<{register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = [[2, 0]]}>";
    let one = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>";
    // --ctas defaults to what --src spans
    let o = run(&[
        "plan", "--src", split, "--dst", split_t, "--shape", "4x32", "--warps", "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    expect_error(
        &[
            "plan", "--src", split, "--dst", split_t, "--shape", "4x32", "--warps", "1", "--ctas",
            "4",
        ],
        &["--src", "block has 1 basis (2 CTAs), but --ctas is 4"],
    );
    expect_error(
        &[
            "plan", "--src", split, "--dst", one, "--shape", "4x32", "--warps", "1",
        ],
        &[
            "--dst",
            "CTAsPerCGA is not given (one CTA), but --ctas is 2 (--ctas was not given: 2 is what --src spans)",
        ],
    );
    // command-line errors (status 2)
    for (args, needle) in [
        (
            vec!["--src", split, "--dst", split_t, "--ctas", "32"],
            "1 to 16 CTAs",
        ),
        (
            vec!["--src", split, "--dst", split_t, "--ctas", "3"],
            "power of two",
        ),
        (
            vec!["--ttgir", "tests/data/same_cta_split.mlir", "--ctas", "2"],
            "--ctas",
        ),
    ] {
        let o = run(&[&["plan"][..], &args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
    // a module whose num-ctas disagrees with its layouts, or is over 16
    let dir = tempfile_dir();
    let text = std::fs::read_to_string(root().join("tests/data/same_cta_split.mlir")).unwrap();
    let four = dir.join("four_ctas.mlir");
    std::fs::write(
        &four,
        text.replace("\"ttg.num-ctas\" = 2", "\"ttg.num-ctas\" = 4"),
    )
    .unwrap();
    expect_error(
        &["plan", "--ttgir", four.to_str().unwrap()],
        &[
            "four_ctas.mlir:2:",
            "CTAsPerCGA [2, 1] multiplies to 2 CTAs, but the module has 4 CTAs",
            "this `CTAsPerCGA`",
        ],
    );
    let many = dir.join("many_ctas.mlir");
    std::fs::write(
        &many,
        text.replace("\"ttg.num-ctas\" = 2", "\"ttg.num-ctas\" = 32"),
    )
    .unwrap();
    expect_error(
        &["plan", "--ttgir", many.to_str().unwrap()],
        &["many_ctas.mlir:4:", "\"ttg.num-ctas\" = 32", "at most 16"],
    );
    // a layout over more than 16 CTAs
    let big = "#ttg.linear<{register = [], lane = [[1], [2], [4], [8], [16]], warp = [], block = [[0], [0], [0], [0], [0]]}>";
    expect_error(
        &[
            "plan", "--src", big, "--dst", big, "--shape", "32", "--warps", "1",
        ],
        &["--src", "(32 CTAs): more than 16", "this `block`"],
    );
}
