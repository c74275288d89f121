//! `warpforge emit`: the header's helpers, each width's scratch, refused
//! conversions declared where they are used, `--api cute`, and how arrays
//! move as words.

use crate::common::*;

#[test]
fn emit_writes_a_header_with_every_helper() {
    let dir = std::env::temp_dir().join(format!("wf-emit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("attn.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    for f in [
        "wf_attn_93",
        "wf_attn_104",
        "wf_attn_116",
        "wf_attn_120",
        "wf_attn_120_smem_bytes",
        "__syncthreads()",
    ] {
        assert!(h.contains(f), "header lacks {f}");
    }
    assert!(h.contains("#pragma once"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_refused_conversion_is_declared_to_fail_where_it_is_used() {
    let dir = std::env::temp_dir().join(format!("wf-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("x.cuh");
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/cross_cta.mlir",
        "--sm",
        "80",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("across CTAs"), "{}", stderr(&o));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(h.contains("was NOT served"), "{h}");
    assert!(
        h.contains("static_assert(detail::refused<T, A...>::value, \"warpforge refused"),
        "{h}"
    );
    assert!(h.contains("across CTAs"), "{h}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Evaluate a helper's `<name>_smem_bytes<T>` expression for `sizeof(T) ==
/// size`: `N` (a constant), `Nu * unsigned(sizeof(T))`, that divided by a
/// `(sizeof(T) == s ? ku : ... : 1u)` chain, or a `sizeof(T) == s ? Bu : ...
/// : 0u` chain of byte counts (the forms the emitter writes).
fn eval_smem_expr(e: &str, size: u64) -> u64 {
    let e = e.trim();
    let num = |t: &str| t.trim().trim_end_matches('u').parse::<u64>().unwrap();
    // `sizeof(T) == s ? a : rest`, evaluated
    let chain = |mut t: &str| -> u64 {
        loop {
            t = t.trim().trim_start_matches('(').trim_end_matches(')');
            let Some(rest) = t.strip_prefix("sizeof(T) == ") else {
                return num(t);
            };
            let (s, rest) = rest.split_once(" ? ").unwrap();
            let (a, rest) = rest.split_once(" : ").unwrap();
            if num(s) == size {
                return num(a);
            }
            t = rest;
        }
    };
    if let Some((n, rest)) = e.split_once("u * unsigned(sizeof(T))") {
        let div = match rest.trim().strip_prefix('/') {
            Some(d) => chain(d),
            None => 1,
        };
        return num(n) * size / div;
    }
    chain(e)
}

/// The header states each width's scratch as `plan --json` reports it
/// (`smem_bytes_by_width`), whatever form the expression takes (one size,
/// rounds for some widths).
#[test]
fn header_scratch_expression_matches_the_plan_for_every_width() {
    let dir = tempfile_dir();
    let mut divided = 0;
    for f in [
        "tests/data/stress_w8.ttgir",
        "tests/data/stress_w16.ttgir",
        "tests/data/stress_w32.ttgir",
        "corpus/ttgir/attn_vfp8e4nv_sm90.ttgir",
    ] {
        let out = dir.join("scratch.cuh");
        let o = run(&["emit", "--ttgir", f, "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{f}: {}", stderr(&o));
        let code = std::fs::read_to_string(&out).unwrap();
        let o = run(&["plan", "--json", "--ttgir", f]);
        assert!(o.status.success(), "{f}: {}", stderr(&o));
        for l in String::from_utf8(o.stdout).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let name = v["name"].as_str().unwrap().replace(':', "_");
            let key = format!("wf_{name}_smem_bytes = ");
            let Some(at) = code.find(&key) else {
                continue; // no scratch
            };
            let expr = &code[at + key.len()..];
            let expr = &expr[..expr.find(';').unwrap()];
            divided += usize::from(expr.contains(") / ("));
            for (w, b) in v["smem_bytes_by_width"].as_object().unwrap() {
                let Some(b) = b.as_u64() else { continue };
                let size = w.parse::<u64>().unwrap() / 8;
                assert_eq!(
                    eval_smem_expr(expr, size),
                    b,
                    "{f} {name} {w}-bit: `{expr}`"
                );
            }
        }
    }
    assert!(
        divided > 0,
        "some stress helper takes rounds for some widths"
    );
}

#[test]
fn the_header_states_each_widths_scratch_and_refuses_what_it_cannot_serve() {
    let o = run(&[
        "emit",
        "--sm",
        "86",
        "--override-target",
        "--ttgir",
        "tests/data/stress_w32.ttgir",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    // 8-byte: 512 KB of data; 8 rounds, the last over a warp bit (those
    // warps store in turn) bring it within sm_86's 99 KB
    assert!(h.contains("// scratch by element width: 1-byte 65536 bytes (1 round), 2-byte 65536 bytes (2 rounds), 4-byte 65536 bytes (4 rounds), 8-byte 65536 bytes (8 rounds)"), "{h}");
    assert!(h.contains("planned for 1/2/4/8-byte elements only"));
    // under a smaller --max-smem the 8-byte width is refused in the header
    let o = run(&[
        "emit",
        "--sm",
        "86",
        "--override-target",
        "--max-smem",
        "16384",
        "--ttgir",
        "tests/data/stress_w32.ttgir",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(h.contains("// scratch by element width: 1-byte 16384 bytes (4 rounds), 2-byte 16384 bytes (8 rounds), 4-byte 16384 bytes (16 rounds), 8-byte not served (static_assert)"), "{h}");
    assert!(h.contains("planned for 1/2/4-byte elements only"));
}

/// `emit --api cute` adds CuTe fragment overloads after the array forms
/// (and the CuTe include); without it (or with `--api array`) the header is
/// the same bytes and includes nothing; an unknown API is a usage error.
#[test]
fn emit_api_cute_adds_fragment_overloads_and_array_is_the_default() {
    let dir = std::env::temp_dir().join(format!("wf-emit-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let emit = |extra: &[&str], name: &str| {
        let out = dir.join(name);
        let mut args = vec![
            "emit",
            "--ttgir",
            "corpus/pairs.mlir",
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = run(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        std::fs::read_to_string(&out).unwrap()
    };
    let plain = emit(&[], "plain.cuh");
    let array = emit(&["--api", "array"], "array.cuh");
    let cute = emit(&["--api", "cute"], "cute.cuh");
    assert_eq!(plain, array);
    assert!(!plain.contains("#include") && !plain.to_lowercase().contains("cute"));
    assert!(
        cute.starts_with(&plain),
        "the array forms come first, unchanged"
    );
    assert!(cute.contains("#include <cute/tensor.hpp>"));
    // one element overload per helper, with the array form's register counts
    let helpers: Vec<(String, String, String)> = plain
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("__device__ __forceinline__ void ")?;
            let (id, args) = rest.split_once("(const T (&src)[")?;
            let (s, args) = args.split_once("], T (&dst)[")?;
            let (d, _) = args.split_once(']')?;
            Some((id.to_string(), s.to_string(), d.to_string()))
        })
        .collect();
    assert_eq!(helpers.len(), 11, "pairs.mlir has 11 conversions");
    for (id, s, d) in &helpers {
        assert!(
            cute.contains(&format!(
                "void {id}(const cute::Tensor<SrcEngine, SrcLayout>& src, cute::Tensor<DstEngine, DstLayout>& dst"
            )),
            "{id} has no CuTe overload"
        );
        assert!(cute.contains(&format!(
            "detail::cute_fragment_size<{s}, int(decltype(cute::size(SrcLayout{{}}))::value)>"
        )));
        assert!(cute.contains(&format!(
            "\"{id}: dst must have cute::size(layout) == {d}, the helper's destination register count"
        )));
    }
    // every packed form of the array header has its CuTe overload
    for l in plain.lines() {
        if let Some(rest) = l.strip_prefix("__device__ __forceinline__ void ") {
            if let Some((name, _)) = rest.split_once("(const unsigned (&src)[") {
                assert!(
                    cute.contains(&format!("void {name}(const cute::Tensor<SrcEngine")),
                    "{name} has no CuTe overload"
                );
            }
        }
    }
    let o = run(&["emit", "--ttgir", "corpus/pairs.mlir", "--api", "thrust"]);
    assert_eq!(o.status.code(), Some(2), "a usage error: {}", stderr(&o));
    let e = stderr(&o);
    for n in ["invalid value 'thrust' for '--api <API>'", "array", "cute"] {
        assert!(e.contains(n), "`{n}` not in: {e}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn arrays_over_the_register_limit_move_as_words() {
    // 4 warps (255 registers): a dot operand's 64 halves per thread to 256
    // of a sliced 3-D dot operand; the 16-bit element form's automatic
    // choice holds both arrays as words, two at a time, and the header says
    // why
    let o = run(&[
        "emit",
        "--ttgir",
        "tests/data/triton_lowerings.ttgir",
        "--name",
        "c2d_d3a1_sd2b_64x128_f16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(
        h.contains("kWords == words::automatic ? words::both"),
        "{h}"
    );
    assert!(
        h.contains("the arrays move as natural 32-bit words, two at a time by an 8-byte memcpy")
    );
    assert!(h.contains(
        ": the arrays' elements, 64 and 256, one register each, would exceed the 255 registers __launch_bounds__(128) allows less 16 on at least one side"
    ), "{h}");
    assert!(h.contains("16-bit (automatic = both)"), "{h}");
    assert!(h.contains("detail::ld_dword(&src[0], src_w[0], src_w[1]);"));
}

#[test]
fn eight_bit_words_move_one_at_a_time_and_sixteen_bit_two() {
    // the same helper's 8-bit and 16-bit element forms through their packed
    // forms: 16-bit natural words move in pairs (an 8-byte memcpy), 8-bit
    // ones word by word (pairs measured slower there; see
    // results/runs/2026-11-27-h200-store-width-ce85994/e8_words8/)
    let o = run(&["emit", "--ttgir", "tests/data/stress_w32.ttgir"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let h = String::from_utf8(o.stdout).unwrap();
    assert!(h.contains("// 8-bit elements in this form: the arrays move as natural 32-bit words, one at a time by a 4-byte memcpy, through wf_transpose_f16_256x256_5_packed8"), "{h}");
    assert!(h.contains("// 16-bit elements in this form: the arrays move as natural 32-bit words, two at a time by an 8-byte memcpy, through wf_transpose_f16_256x256_5_packed16"), "{h}");
    let eight = &h[h.find("if constexpr (sizeof(T) == 1)").unwrap()
        ..h.find("} else if constexpr (sizeof(T) == 2)").unwrap()];
    assert!(
        eight.contains("src_w[1] = detail::ld_word(&src[4]);"),
        "{eight}"
    );
    assert!(
        !eight.contains("detail::ld_dword(") && !eight.contains("detail::st_dword("),
        "{eight}"
    );
}
