//! The CPU proof of printed code (`kernels::prove`, the kernel-IR
//! interpreter): every form of the bundled conversions' helpers passes it,
//! and a deliberately broken body (a barrier dropped, a live value dropped,
//! two `prmt` selectors swapped, two destination registers swapped, a
//! shuffle's lane changed) fails it on the CPU.

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
