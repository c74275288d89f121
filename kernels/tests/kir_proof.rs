//! The CPU proof of printed code (`kernels::prove`, the kernel-IR
//! interpreter): every form of the bundled conversions' helpers passes it,
//! and a deliberately broken body (a barrier dropped, a named barrier over
//! another thread count than the helper's, a live value dropped,
//! two `prmt` selectors swapped, two destination registers swapped, a
//! shuffle's lane changed) fails it on the CPU. The same on AMD waves:
//! random wave64 and wave32 conversions are proven, and a shuffle that reads
//! the other half of a 64-lane wave (invisible on 32 lanes) is caught.

use kernels::kir::{Body, Expr, Func, Stmt};
use kernels::{prove, EmittedHelper};
use synth::parse::parse_ttgir;
use synth::plan::{Analysis, Conversion, SharedOptions, StrategyChoice};
use synth::search::{plan_all_widths, Weights};

/// Every conversion of `rel` (relative to the repository): its helper at
/// every width and the conversion's analysis.
fn helpers(rel: &str) -> Vec<(EmittedHelper, Analysis)> {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    f.converts
        .iter()
        .map(|op| {
            let c = Conversion::from_op(op).unwrap();
            let v = plan_all_widths(
                &c,
                StrategyChoice::Auto,
                &Weights::default(),
                &SharedOptions::default(),
            )
            .unwrap();
            let an = v[0].1.analysis.clone();
            (kernels::emit_helper_widths(&c, &v).unwrap(), an)
        })
        .collect()
}

/// Every conversion of the TTGIR text `text`, whose modules are AMD ones:
/// planned for the module's architecture as `pipeline` plans it (its LDS,
/// `Weights::for_amd`), with the conversion's analysis.
fn amd_helpers(text: &str) -> Vec<(EmittedHelper, Analysis)> {
    let f = parse_ttgir(text).unwrap();
    assert!(f.failed.is_empty(), "{:?}", f.failed);
    f.converts
        .iter()
        .map(|op| {
            let a = op.amd_arch().expect("an AMD module");
            let c = Conversion::from_op(op).unwrap();
            let opt = SharedOptions {
                amd: Some(a),
                max_smem: Some(a.lds_bytes()),
                ..SharedOptions::default()
            };
            let v = plan_all_widths(
                &c,
                StrategyChoice::Auto,
                &Weights::default().for_amd(a),
                &opt,
            )
            .unwrap_or_else(|e| panic!("{}: {e}", op.name));
            for (bits, ch) in &v {
                assert_eq!(ch.plan.lanes, a.lanes(), "{} {bits}-bit", op.name);
            }
            let an = v[0].1.analysis.clone();
            (kernels::emit_helper_widths(&c, &v).unwrap(), an)
        })
        .collect()
}

/// The helper of conversion `name` (its function; names are `func:line`)
/// in `rel`.
fn helper(rel: &str, name: &str) -> (EmittedHelper, Analysis) {
    helpers(rel)
        .into_iter()
        .find(|(h, _)| h.name.split(':').next() == Some(name))
        .unwrap_or_else(|| panic!("no conversion {name} in {rel}"))
}

#[test]
fn every_printed_form_of_the_bundled_conversions_is_proven() {
    let mut forms = 0;
    for rel in [
        "corpus/pairs.mlir",
        "tests/data/byte_transpose.mlir",
        "tests/data/stress_w4.ttgir",
        "tests/data/cluster_cross_cta.mlir",
        "tests/data/cluster2_blocked.mlir",
        "tests/data/warp_rounds.ttgir",
    ] {
        for (h, an) in helpers(rel) {
            let p = prove(&h, &an).unwrap_or_else(|e| panic!("{rel}: {e}"));
            assert!(!p.is_empty(), "{rel} {}: no form proven", h.name);
            assert!(p.iter().all(|f| f.report.slots > 0));
            forms += p.len();
        }
    }
    assert!(forms > 40, "{forms} forms");
}

/// Apply `f` to the statement lists of `stmts` and every nested block, in
/// order, until it returns true (it made its change).
fn edit(stmts: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Vec<Stmt>) -> bool) -> bool {
    if f(stmts) {
        return true;
    }
    for s in stmts.iter_mut() {
        let done = match s {
            Stmt::IfConstexpr { arms, otherwise } => {
                arms.iter_mut().any(|(_, b)| edit(b, f))
                    || match otherwise {
                        kernels::kir::Else::Words(_, b) => edit(b, f),
                        _ => false,
                    }
            }
            Stmt::IfClear { body, .. } => edit(body, f),
            _ => false,
        };
        if done {
            return true;
        }
    }
    false
}

/// The first proof failure of `h` with its element body (or, where that
/// has nothing to change, its first packed body that has) edited by `f`.
fn broken(h: &EmittedHelper, an: &Analysis, f: &mut dyn FnMut(&mut Vec<Stmt>) -> bool) -> String {
    let mut h = h.clone();
    let done = edit(&mut h.kir.element.stmts, f)
        || h.kir.packed.iter_mut().any(|(_, b)| edit(&mut b.stmts, f));
    assert!(done, "{}: the edit found nothing to change", h.name);
    match prove(&h, an) {
        Ok(_) => panic!("{}: the broken body passed its proof", h.name),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_dropped_barrier_is_caught() {
    let (h, an) = helper("corpus/pairs.mlir", "swizzled_warps");
    let e = broken(&h, &an, &mut |ss| {
        let i = ss.iter().position(|s| matches!(s, Stmt::Barrier(_)));
        i.map(|i| ss.remove(i)).is_some()
    });
    assert!(e.contains("not visible"), "{e}");
}

#[test]
fn a_named_barrier_of_the_wrong_group_is_caught() {
    // the default group of a warp-specialized function: `bar.sync 0, 128`
    let (h, an) = helper("corpus/pairs.mlir", "swizzled_warps");
    let threads = h.threads;
    let e = broken(&h, &an, &mut |ss| {
        let i = ss.iter().position(|s| matches!(s, Stmt::Barrier(_)));
        i.map(|i| {
            ss[i] = Stmt::Barrier(synth::plan::BarrierScope::Named {
                id: 0,
                threads: threads / 2,
            })
        })
        .is_some()
    });
    assert!(e.contains("named barrier `bar.sync 0,"), "{e}");
    // PTX has 16 named barriers (0..=15)
    let e = broken(&h, &an, &mut |ss| {
        let i = ss.iter().position(|s| matches!(s, Stmt::Barrier(_)));
        i.map(|i| ss[i] = Stmt::Barrier(synth::plan::BarrierScope::Named { id: 16, threads }))
            .is_some()
    });
    assert!(e.contains("named barrier `bar.sync 16,"), "{e}");
    // on the CTA's first warps, only the default group's barrier 0
    let e = broken(&h, &an, &mut |ss| {
        let i = ss.iter().position(|s| matches!(s, Stmt::Barrier(_)));
        i.map(|i| ss[i] = Stmt::Barrier(synth::plan::BarrierScope::Named { id: 2, threads }))
            .is_some()
    });
    assert!(e.contains("named barrier `bar.sync 2,"), "{e}");
}

#[test]
fn a_partitions_helper_takes_no_barrier_of_the_cta_or_the_default_group() {
    // the same conversion on CTA warps 5 onwards (a partition): its
    // barrier is one of 2..=15 over its threads; `__syncthreads()`, or the
    // default group's barrier 0 or the partitions' start barrier 1, fail
    let path = format!("{}/../corpus/pairs.mlir", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(path).unwrap()).unwrap();
    let op = f
        .converts
        .iter()
        .find(|o| o.name.starts_with("swizzled_warps"))
        .unwrap();
    let c = Conversion::from_op(op).unwrap();
    let opt = SharedOptions {
        named_barrier: Some(3),
        ..SharedOptions::default()
    };
    let mut v = plan_all_widths(&c, StrategyChoice::Auto, &Weights::default(), &opt).unwrap();
    for (_, ch) in &mut v {
        ch.plan.first_warp = 5;
    }
    let an = v[0].1.analysis.clone();
    let h = kernels::emit_helper_widths(&c, &v).unwrap();
    assert_eq!((h.first_warp, h.named_barrier.map(|b| b.0)), (5, Some(3)));
    prove(&h, &an).unwrap();
    let threads = h.threads;
    for scope in [
        synth::plan::BarrierScope::Cta,
        synth::plan::BarrierScope::Named { id: 0, threads },
        synth::plan::BarrierScope::Named { id: 1, threads },
    ] {
        let e = broken(&h, &an, &mut |ss| {
            let i = ss.iter().position(|s| matches!(s, Stmt::Barrier(_)));
            i.map(|i| ss[i] = Stmt::Barrier(scope)).is_some()
        });
        assert!(e.contains("CTA warps 5 onwards"), "{scope:?}: {e}");
    }
}

#[test]
fn a_dropped_live_value_is_caught() {
    let (h, an) = helper("corpus/pairs.mlir", "shuffle_ship");
    let body: &Body = &h.kir.element;
    let reads = kernels::kir::pass::read_counts(body);
    let e = broken(&h, &an, &mut |ss| {
        let i = ss.iter().position(
            |s| matches!(s, Stmt::Let { v, .. } if reads.get(v).copied().unwrap_or(0) > 0),
        );
        i.map(|i| ss.remove(i)).is_some()
    });
    assert!(e.contains("before it is defined"), "{e}");
}

#[test]
fn swapped_prmt_selectors_are_caught() {
    let (h, an) = helper("tests/data/byte_transpose.mlir", "byte_transpose_i8");
    // two byte permutes with different constant selectors
    let sel = |s: &Stmt| match s {
        Stmt::Let {
            e: Expr::Call(Func::BytePerm, args),
            ..
        } => match &args[2] {
            Expr::Lit(l) => Some(l.value()),
            _ => None,
        },
        _ => None,
    };
    let e = broken(&h, &an, &mut |ss| {
        let Some(i) = ss.iter().position(|s| sel(s).is_some()) else {
            return false;
        };
        let Some(j) =
            (i + 1..ss.len()).find(|&j| sel(&ss[j]).is_some_and(|x| Some(x) != sel(&ss[i])))
        else {
            return false;
        };
        let (a, b) = (sel(&ss[i]).unwrap(), sel(&ss[j]).unwrap());
        for (k, x) in [(i, b), (j, a)] {
            if let Stmt::Let {
                e: Expr::Call(_, args),
                ..
            } = &mut ss[k]
            {
                args[2] = Expr::sel(x);
            }
        }
        true
    });
    assert!(e.contains("wrong destination"), "{e}");
}

#[test]
fn swapped_destination_registers_are_caught() {
    let (h, an) = helper("corpus/pairs.mlir", "cvt16_m1");
    let e = broken(&h, &an, &mut |ss| {
        let d: Vec<usize> = (0..ss.len())
            .filter(|&i| matches!(ss[i], Stmt::Dst { .. }))
            .collect();
        if d.len() < 2 {
            return false;
        }
        let (Stmt::Dst { e: a, .. }, Stmt::Dst { e: b, .. }) = (ss[d[0]].clone(), ss[d[1]].clone())
        else {
            return false;
        };
        if a == b {
            return false;
        }
        if let Stmt::Dst { e, .. } = &mut ss[d[0]] {
            *e = b;
        }
        if let Stmt::Dst { e, .. } = &mut ss[d[1]] {
            *e = a;
        }
        true
    });
    assert!(e.contains("wrong destination"), "{e}");
}

#[test]
fn the_vector_forms_are_proven_and_a_swapped_pair_is_caught() {
    // 16-bit (`_x2`) and 8-bit (`_x4`) vector forms are among the proven forms
    for (rel, name, form) in [
        ("corpus/pairs.mlir", "cvt16_m1", "vector x2"),
        (
            "tests/data/byte_transpose.mlir",
            "byte_transpose_i8",
            "vector x4",
        ),
    ] {
        let (h, an) = helper(rel, name);
        let p = prove(&h, &an).unwrap();
        let f = p.iter().find(|f| f.form == form);
        assert!(f.is_some_and(|f| f.report.slots > 0), "{name}: {p:?}");
    }
    // the two halves of one destination vector swapped
    let (mut h, an) = helper("corpus/pairs.mlir", "cvt16_m1");
    let (bits, body) = h.kir.vector.iter_mut().find(|(b, _)| *b == 16).unwrap();
    assert_eq!(*bits, 16);
    let i = body
        .stmts
        .iter()
        .position(|s| matches!(s, Stmt::Dst { .. }))
        .expect("the vector form writes dst");
    let Stmt::Dst { e, .. } = &mut body.stmts[i] else {
        unreachable!()
    };
    let Expr::Call(Func::FromU32Vec, args) = e else {
        panic!("dst of the vector form is not from_u32<V>: {e:?}")
    };
    let w = args[0].clone();
    args[0] = Expr::Call(Func::BytePerm, vec![w.clone(), w, Expr::sel(0x1032)]);
    let err = prove(&h, &an).unwrap_err().to_string();
    assert!(
        err.contains("vector x2") && err.contains("wrong destination"),
        "{err}"
    );
}

#[test]
fn a_wrong_shuffle_lane_is_caught() {
    let (h, an) = helper("corpus/pairs.mlir", "shuffle_ship");
    let e = broken(&h, &an, &mut |ss| {
        for s in ss.iter_mut() {
            if let Stmt::Let {
                e: Expr::Call(Func::Shfl(_), args),
                ..
            } = s
            {
                args[1] = Expr::bin(kernels::kir::Op::Xor, args[1].clone(), Expr::u(1));
                return true;
            }
        }
        false
    });
    assert!(e.contains("wrong destination"), "{e}");
}

/// `#ttg.linear` of a 1-D side: `order` lists the tensor bit each hardware
/// bit holds (registers, then `lanes` lane bits, then warps), `None` a
/// broadcast (zero basis).
fn side(order: &[Option<u32>], regs: usize, lanes: usize) -> String {
    let b = |s: &[Option<u32>]| {
        s.iter()
            .map(|x| format!("[{}]", x.map_or(0, |t| 1u64 << t)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "#ttg.linear<{{register = [{}], lane = [{}], warp = [{}], block = []}}>",
        b(&order[..regs]),
        b(&order[regs..regs + lanes]),
        b(&order[regs + lanes..])
    )
}

/// xorshift64*: a fixed sequence, so a failure names a reproducible case.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

#[test]
fn random_amd_conversions_are_proven_on_their_wave() {
    let mut rng = Rng(0x243f_6a88_85a3_08d3);
    // every architecture warpforge plans for: wave64 and wave32, 32 and 64
    // LDS banks, each VGPR file
    let targets: Vec<(&str, usize)> = synth::target::AmdArch::ALL
        .iter()
        .map(|a| (a.name(), a.lanes().trailing_zeros() as usize))
        .collect();
    let mut text = String::new();
    for (case, &(arch, lanes)) in (0..240).zip(targets.iter().cycle()) {
        let warps = rng.below(3);
        let regs = rng.below(4);
        let n = (regs + lanes + warps) as u32;
        let mut sbits: Vec<Option<u32>> = (0..n).map(Some).collect();
        rng.shuffle(&mut sbits);
        // the destination: its own order; sometimes one warp bit broadcast
        // (its tensor bit moves to an added register bit)
        let mut dbits = sbits.clone();
        rng.shuffle(&mut dbits);
        let mut dregs = regs;
        if rng.below(4) == 0 && regs + lanes < dbits.len() {
            let w = regs + lanes + rng.below(dbits.len() - regs - lanes);
            let t = dbits[w].take();
            dbits.insert(0, t);
            dregs += 1;
        }
        let src = side(&sbits, regs, lanes);
        let dst = side(&dbits, dregs, lanes);
        let ty = ["i8", "f16", "i32", "i64"][case % 4];
        text.push_str(&format!(
            "module attributes {{\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = {} : i32, ttg.target = \"hip:{arch}\", \"ttg.threads-per-warp\" = {} : i32}} {{\n  tt.func @r{case}(%x: tensor<{}x{ty}, {src}>) {{\n    %0 = ttg.convert_layout %x : tensor<{}x{ty}, {src}> -> tensor<{}x{ty}, {dst}>\n    tt.return\n  }}\n}}\n",
            1 << warps,
            1 << lanes,
            1u64 << n,
            1u64 << n,
            1u64 << n
        ));
    }
    let mut kinds = std::collections::BTreeMap::new();
    let hs = amd_helpers(&text);
    assert_eq!(hs.len(), 240);
    for (h, an) in &hs {
        let p = prove(h, an).unwrap_or_else(|e| panic!("{}: {e}", h.name));
        assert!(
            !p.is_empty() && p.iter().all(|f| f.report.slots > 0),
            "{}",
            h.name
        );
        *kinds.entry(an.class.as_str()).or_insert(0) += 1;
    }
    // shuffles and shared-memory round trips both occur
    assert!(kinds.get("shuffle").copied().unwrap_or(0) > 0, "{kinds:?}");
    assert!(kinds.get("shared").copied().unwrap_or(0) > 0, "{kinds:?}");
}

#[test]
fn a_shuffle_from_the_other_half_of_a_wave64_is_caught() {
    // a register bit and the six lane bits rotated: a shuffle plan on a wave64
    let text = "#a = #ttg.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32], [64]], warp = [], block = []}>\n#b = #ttg.linear<{register = [[64]], lane = [[1], [2], [4], [8], [16], [32]], warp = [], block = []}>\nmodule attributes {\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = 1 : i32, ttg.target = \"hip:gfx942\", \"ttg.threads-per-warp\" = 64 : i32} {\n  tt.func @rot(%x: tensor<128xi32, #a>) {\n    %0 = ttg.convert_layout %x : tensor<128xi32, #a> -> tensor<128xi32, #b>\n    tt.return\n  }\n}\n";
    let (h, an) = amd_helpers(text).remove(0);
    assert_eq!(an.class, synth::plan::Kind::Shuffle);
    assert!(prove(&h, &an).is_ok());
    // lane ^ 32: the same lane on a 32-lane warp, another lane on a wave64
    let e = broken(&h, &an, &mut |ss| {
        for s in ss.iter_mut() {
            if let Stmt::Let {
                e: Expr::Call(Func::Shfl(_), args),
                ..
            } = s
            {
                args[1] = Expr::bin(kernels::kir::Op::Xor, args[1].clone(), Expr::u(32));
                return true;
            }
        }
        false
    });
    assert!(e.contains("wrong destination"), "{e}");
}
