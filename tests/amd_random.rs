//! Random AMD conversions: 1-D tensors whose index bits are shuffled over
//! register, lane and warp bits on each side (6 lane bits on gfx942/gfx950,
//! 5 on gfx1100), the destination sometimes broadcasting a register or warp
//! bit. Each is planned for its target at every element width, emitted, and
//! its printed code proven by the kernel-IR interpreter over every lane of
//! every wave; none may be refused or panic.

use pipeline::{load_files, plan, Options};

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
fn random_amd_conversions_plan_emit_and_prove_on_their_wave() {
    let mut rng = Rng(0x243f_6a88_85a3_08d3);
    let dir = tempfile::tempdir().unwrap();
    let targets = [("gfx942", 6usize), ("gfx950", 6), ("gfx1100", 5)];
    let mut text = String::new();
    let mut n_ops = 0;
    for (case, &(arch, lanes)) in (0..240).zip(targets.iter().cycle()) {
        let warps = rng.below(3);
        let regs = rng.below(4);
        let n = (regs + lanes + warps) as u32;
        let mut sbits: Vec<Option<u32>> = (0..n).map(Some).collect();
        rng.shuffle(&mut sbits);
        // the destination: its own order; sometimes one register or warp
        // bit broadcast (its tensor bit moves to an added register bit)
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
        n_ops += 1;
    }
    let path = dir.path().join("amd_random.ttgir");
    std::fs::write(&path, &text).unwrap();
    let loaded = load_files(&[path], None).unwrap();
    let refused: Vec<String> = loaded.refused.iter().map(|r| r.reason.clone()).collect();
    assert!(refused.is_empty(), "{refused:#?}");
    assert_eq!(loaded.ops.len(), n_ops);
    let planned = plan(&loaded, &Options::default()).unwrap();
    let refused: Vec<String> = planned
        .refused
        .iter()
        .map(|r| format!("{}: {}", r.place, r.reason))
        .collect();
    assert!(refused.is_empty(), "{refused:#?}");
    let mut kinds = std::collections::BTreeMap::new();
    for p in &planned.conversions {
        let a = p.target.amd.expect("an AMD target");
        assert_eq!(p.chosen.plan.lanes, a.lanes(), "{}", p.op.name);
        *kinds.entry(p.chosen.plan.kind.as_str()).or_insert(0) += 1;
        for (bits, ch) in &p.variants {
            if let Err(e) = synth::sim::simulate(&ch.plan, &ch.analysis) {
                panic!("{} {bits}-bit: {e}", p.op.name);
            }
        }
    }
    let emitted = planned.emit("wf_").unwrap();
    for (h, proof) in emitted.helpers.iter().zip(&emitted.proofs) {
        if let Err(e) = proof {
            panic!("{}: printed code not proven: {e}", h.name);
        }
    }
    eprintln!(
        "{} AMD conversions planned and proven: {kinds:?}",
        planned.conversions.len()
    );
    // shuffles and shared-memory round trips both occur
    assert!(kinds.get("shuffle").copied().unwrap_or(0) > 0, "{kinds:?}");
    assert!(kinds.get("shared").copied().unwrap_or(0) > 0, "{kinds:?}");
}
