//! How many elements of each conversion stay in their warp, and in their
//! thread: the part a shared-memory round trip could skip.
//!
//! `cargo run --release -p synth --example warp_crossing -- FILE.ttgir...`
//! prints, per conversion of each TTGIR file, its class and the fractions of
//! source slots whose element the destination holds in the same warp and in
//! the same thread (lane and warp). Used for `results/runs/2026-11-22-h100-smem-ceiling-3b1fa18/smem_ceiling.md`.

use std::collections::HashMap;
use synth::parse::parse_ttgir;
use synth::plan::analysis::{Analysis, Conversion};

fn main() {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        };
        let file = match parse_ttgir(&text) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        };
        for op in &file.converts {
            let Ok(an) = Conversion::from_op(op).and_then(|c| Analysis::new(&c)) else {
                continue;
            };
            let (s, d) = (&an.src, &an.dst);
            // tag -> (warp, lane) of one destination slot holding it
            let mut holder: HashMap<u64, (u64, u64)> = HashMap::new();
            for w in 0..1u64 << d.hw.warp {
                for l in 0..1u64 << d.hw.lane {
                    for r in 0..1u64 << d.hw.reg {
                        holder.entry(d.tag(r, l, w, 0)).or_insert((w, l));
                    }
                }
            }
            let (mut n, mut in_warp, mut in_thread) = (0u64, 0u64, 0u64);
            for w in 0..1u64 << s.hw.warp {
                for l in 0..1u64 << s.hw.lane {
                    for r in 0..1u64 << s.hw.reg {
                        n += 1;
                        if let Some(&(dw, dl)) = holder.get(&s.tag(r, l, w, 0)) {
                            in_warp += u64::from(dw == w);
                            in_thread += u64::from(dw == w && dl == l);
                        }
                    }
                }
            }
            println!(
                "{}:{} {:?} warps {} class {} in-warp {:.3} in-thread {:.3}",
                path.rsplit('/').next().unwrap_or(&path),
                op.name,
                op.shape,
                op.num_warps,
                an.class.as_str(),
                in_warp as f64 / n as f64,
                in_thread as f64 / n as f64
            );
        }
    }
}
