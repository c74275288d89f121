//! Limit kernels: what a conversion's round trip costs when it does nothing
//! but the data movement no plan can avoid ([`synth::plan::lower_bound`]),
//! timed by `warpforge bench` in the same loop as the helpers and Triton's
//! lowering, so that each helper's time can be read against the hardware's.
//!
//! A limit kernel carries a tile of `words` 32-bit words per thread through
//! `iters` round trips: one [`LimitMove`] forward, every word xored with the
//! element pattern (bit 0 of each element, as the helpers' timing kernels
//! flip it), one [`LimitMove`] back. A move keeps each word's index (word `k`
//! goes to word `k` of another thread), so it needs no select, no byte
//! permute and no per-register address: what is left is the instructions
//! the lower bound counts, at the widest access and with no bank conflict:
//!
//! - [`LimitMove::Shuffle`]: the bound's `shfl_words` words, each one
//!   `shfl.sync.bfly` with lane mask 1 (PTX ISA 9.7.8.6: 32 bits per lane
//!   per shuffle), the others renamed in place;
//! - [`LimitMove::Shared`]: the harness's `__syncthreads()` before the
//!   scratch is reused (as before every helper call that uses it), the
//!   busiest warp's stored bytes spread over its lanes as `st.shared.v4`
//!   (a last `.v2`/`.v1`) at consecutive 16-byte slots, the helpers'
//!   barrier (`__syncthreads()` across warps, `__syncwarp()` within one),
//!   and the busiest thread's loaded bytes as `ld.shared.v4` from the same
//!   slots of a partner thread (the same lane of warp `warp ^ 1` across
//!   warps, lane `lane ^ 1` within one): every access covers whole
//!   wavefronts, none conflicts. Loads beyond the stored words (a
//!   destination with broadcast copies: the busiest thread loads more than
//!   its warp stores per lane) read a region that is zeroed once before the
//!   loop and never stored to, and are xored into their words (one ALU
//!   operation a word), so that no earlier work on the word is dead.
//!
//! Nothing here is a helper: the kernels are not proven by the KIR
//! interpreter. Their output is checked on the GPU against
//! [`LimitKernel::expected`], which models the same moves on the CPU, so a
//! missing barrier (a race that would make the limit look faster than the
//! hardware allows) fails the check.

use crate::render::env;
use crate::EmitError;
use minijinja::context;
use serde::Serialize;
use synth::plan::LowerBound;

/// One direction of a limit kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "family", rename_all = "snake_case")]
pub enum LimitMove {
    /// Nothing crosses threads (a rename).
    None,
    /// `words` words per thread through `shfl.sync.bfly` (lane `^ 1`).
    Shuffle { words: u32 },
    /// `store_words` words per thread stored, a barrier, `load_words` words
    /// loaded from the partner thread's slots; `cross_warp`: the partner is
    /// in another warp (`__syncthreads()`), else in the same warp
    /// (`__syncwarp()`).
    Shared {
        store_words: u32,
        load_words: u32,
        cross_warp: bool,
    },
}

impl LimitMove {
    /// `none`, `shfl` or `smem`.
    pub fn family(&self) -> &'static str {
        match self {
            LimitMove::None => "none",
            LimitMove::Shuffle { .. } => "shfl",
            LimitMove::Shared { .. } => "smem",
        }
    }

    /// The moves a direction with lower bound `lb` can be limited by: no
    /// move when nothing crosses threads; else a shuffle move when the
    /// conversion stays within warps (`lb.shfl_words`), and always a
    /// shared-memory move (the busiest warp's stored bytes over its 32
    /// lanes, the busiest thread's loaded bytes, in 32-bit words).
    pub fn choices(lb: &LowerBound) -> Vec<LimitMove> {
        if lb.smem_load_bytes == 0 {
            return vec![LimitMove::None];
        }
        let mut v = Vec::new();
        if let Some(n) = lb.shfl_words.filter(|&n| n > 0) {
            v.push(LimitMove::Shuffle { words: n });
        }
        v.push(LimitMove::Shared {
            store_words: lb.smem_store_bytes.div_ceil(32 * 4) as u32,
            load_words: lb.smem_load_bytes.div_ceil(4) as u32,
            cross_warp: lb.shfl_words.is_none(),
        });
        v
    }

    /// Words of the tile this move touches (the tile must hold them).
    fn words(&self) -> u32 {
        match *self {
            LimitMove::None => 0,
            LimitMove::Shuffle { words } => words,
            LimitMove::Shared {
                store_words,
                load_words,
                ..
            } => store_words.max(load_words),
        }
    }
}

/// `(first word, width in words)` of the accesses that move words `[0, n)`:
/// 16-byte accesses, then an 8- and/or a 4-byte one.
fn chunks(from: u32, n: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    let mut k = from;
    while k < n {
        let w = match n - k {
            r if r >= 4 => 4,
            r if r >= 2 => 2,
            _ => 1,
        };
        v.push((k, w));
        k += w;
    }
    v
}

/// A limit kernel of one conversion: a forward and a backward move over a
/// tile of `words` words per thread, `threads` threads per CTA.
#[derive(Clone, Debug, Serialize)]
pub struct LimitKernel {
    /// Kernel name (`extern "C"`).
    pub name: String,
    pub fwd: LimitMove,
    pub bwd: LimitMove,
    /// 32-bit words per thread of the tile: at least the source's and the
    /// destination's elements and every word a move touches.
    pub words: u32,
    /// Threads per CTA (32 x warps).
    pub threads: u32,
    /// Element width in bits (8, 16, 32 or 64): which bits of a word the
    /// loop's xor flips.
    pub bits: u32,
}

/// Bytes of the shared scratch a move's stored slots take, and of the
/// region its loads beyond the stored words read (`threads` threads).
fn smem_of(m: &LimitMove, threads: u32) -> (u32, u32) {
    match *m {
        LimitMove::Shared {
            store_words,
            load_words,
            ..
        } => (
            store_words * 4 * threads,
            load_words.saturating_sub(store_words) * 4 * threads,
        ),
        _ => (0, 0),
    }
}

impl LimitKernel {
    /// The kernel of `fwd` then `bwd` for a conversion whose source has
    /// `src_elems` and destination `dst_elems` elements of `bits` bits per
    /// thread, `threads` threads per CTA.
    pub fn new(
        name: &str,
        fwd: LimitMove,
        bwd: LimitMove,
        src_elems: u32,
        dst_elems: u32,
        bits: u32,
        threads: u32,
    ) -> LimitKernel {
        let elems = (src_elems.max(dst_elems) * bits).div_ceil(32);
        LimitKernel {
            name: name.to_string(),
            fwd,
            bwd,
            words: elems.max(fwd.words()).max(bwd.words()).max(1),
            threads,
            bits,
        }
    }

    /// `fwd+bwd` families, e.g. `shfl+smem`.
    pub fn label(&self) -> String {
        format!("{}+{}", self.fwd.family(), self.bwd.family())
    }

    /// Dynamic shared memory the kernel needs, in bytes: the larger
    /// direction's stored slots, then each direction's zeroed region.
    pub fn smem_bytes(&self) -> u32 {
        let (f, fz) = smem_of(&self.fwd, self.threads);
        let (b, bz) = smem_of(&self.bwd, self.threads);
        f.max(b) + fz + bz
    }

    /// The xor of each word the loop applies: bit 0 of every element
    /// (64-bit elements: the low word only).
    pub fn xor_of(&self, k: u32) -> u32 {
        match self.bits {
            8 => 0x0101_0101,
            16 => 0x0001_0001,
            32 => 1,
            _ => u32::from(k.is_multiple_of(2)),
        }
    }

    fn partner(&self, m: &LimitMove, t: u32) -> u32 {
        match *m {
            LimitMove::Shared {
                cross_warp: true, ..
            } => t ^ 32,
            _ => t ^ 1,
        }
    }

    /// The CUDA lines of one move; `zero_at` is the byte offset of its
    /// zeroed region.
    fn lines(&self, m: &LimitMove, zero_at: u32) -> Vec<String> {
        let tn = self.threads;
        match *m {
            LimitMove::None => vec!["// nothing moves between threads".into()],
            LimitMove::Shuffle { words } => (0..words)
                .map(|k| format!("w[{k}] = __shfl_xor_sync(0xffffffffu, w[{k}], 1);"))
                .collect(),
            LimitMove::Shared {
                store_words,
                load_words,
                cross_warp,
            } => {
                let partner = if cross_warp { "t ^ 32u" } else { "t ^ 1u" };
                let vty = |w: u32| match w {
                    4 => "uint4",
                    2 => "uint2",
                    _ => "unsigned",
                };
                let mut v = vec!["__syncthreads();  // the scratch is reused".to_string()];
                // stored word k of thread t: region of its access (k * 4 *
                // threads bytes in), slot t of that access's width
                let store = chunks(0, store_words);
                for &(k, w) in &store {
                    let val = match w {
                        4 => format!(
                            "make_uint4(w[{k}], w[{}], w[{}], w[{}])",
                            k + 1,
                            k + 2,
                            k + 3
                        ),
                        2 => format!("make_uint2(w[{k}], w[{}])", k + 1),
                        _ => format!("w[{k}]"),
                    };
                    v.push(format!(
                        "*({}*)(wf_smem + {}u + t * {}u) = {val};",
                        vty(w),
                        k * 4 * tn,
                        w * 4
                    ));
                }
                v.push(
                    if cross_warp {
                        "__syncthreads();"
                    } else {
                        "__syncwarp();"
                    }
                    .into(),
                );
                v.push("{".into());
                v.push(format!("  const unsigned p = {partner};"));
                // loads of stored words use the stores' accesses (the last
                // one narrower where fewer words are loaded); loads beyond
                // read the zeroed region
                let matched = load_words.min(store_words);
                let mut loads: Vec<(u32, u32, String)> = Vec::new();
                for &(k, w) in &store {
                    if k >= matched {
                        break;
                    }
                    for (k2, w2) in chunks(k, (k + w).min(matched)) {
                        let at = format!("{}u + p * {}u", k * 4 * tn + (k2 - k) * 4, w * 4);
                        loads.push((k2, w2, at));
                    }
                }
                for (k, w) in chunks(store_words, load_words) {
                    let at = format!("{}u + p * {}u", zero_at + (k - store_words) * 4 * tn, w * 4);
                    loads.push((k, w, at));
                }
                for (i, (k, w, at)) in loads.iter().enumerate() {
                    let ty = vty(*w);
                    // a stored word replaces the thread's; a word of the
                    // zeroed region is xored in, so the word stays live
                    let op = if *k < matched { "=" } else { "^=" };
                    v.push(format!(
                        "  const {ty} l{i} = *(const {ty}*)(wf_smem + {at});"
                    ));
                    let fields: &[&str] = match w {
                        4 => &["x", "y", "z", "w"],
                        2 => &["x", "y"],
                        _ => &[""],
                    };
                    for (j, f) in fields.iter().enumerate() {
                        let src = if f.is_empty() {
                            format!("l{i}")
                        } else {
                            format!("l{i}.{f}")
                        };
                        v.push(format!("  w[{}] {op} {src};", k + j as u32));
                    }
                }
                v.push("}".into());
                v
            }
        }
    }

    /// The kernel's CUDA source, `(const void* in, void* out, int iters)`,
    /// declared `__launch_bounds__(threads)` or `__maxnreg__(n)` like the
    /// helpers' timing kernels.
    pub fn source(&self, max_registers: Option<u32>) -> Result<String, EmitError> {
        let (f, fz) = smem_of(&self.fwd, self.threads);
        let (b, _) = smem_of(&self.bwd, self.threads);
        let zero_at = f.max(b);
        let xor: Vec<(u32, String)> = (0..self.words)
            .map(|k| (k, format!("{:#x}", self.xor_of(k))))
            .filter(|(_, x)| x != "0x0")
            .collect();
        Ok(env().get_template("bench_kernel_limit")?.render(context! {
            doc => self.label(),
            kernel => self.name,
            threads => self.threads,
            maxnreg => max_registers,
            words => self.words,
            zero_bytes => self.smem_bytes() - zero_at,
            zero_at => zero_at,
            fwd => self.lines(&self.fwd, zero_at),
            bwd => self.lines(&self.bwd, zero_at + fz),
            xor => xor,
        })?)
    }

    /// Where each word of a CTA's tile comes from after `iters` round
    /// trips: entry `t * words + k` is `(the input word's index, t' *
    /// words + k' (None: a word of zeros; no move makes one today), and
    /// whether the element pattern is xored in)`. Exponentiation by squaring of one trip's map: work
    /// `threads * words * log2(iters)`.
    pub fn expected(&self, iters: u32) -> Vec<(Option<u32>, bool)> {
        let (tn, wn) = (self.threads, self.words);
        let n = (tn * wn) as usize;
        type Map = Vec<(Option<u32>, bool)>;
        // after-map of one move: each slot's source slot before it
        let step = |m: &LimitMove| -> Map {
            (0..tn * wn)
                .map(|s| {
                    let (t, k) = (s / wn, s % wn);
                    match *m {
                        LimitMove::None => (Some(s), false),
                        LimitMove::Shuffle { words } if k < words => {
                            (Some((t ^ 1) * wn + k), false)
                        }
                        LimitMove::Shuffle { .. } => (Some(s), false),
                        LimitMove::Shared {
                            store_words,
                            load_words,
                            ..
                        } => {
                            if k < load_words.min(store_words) {
                                (Some(self.partner(m, t) * wn + k), false)
                            } else {
                                // beyond: untouched, or xored with zeros
                                (Some(s), false)
                            }
                        }
                    }
                })
                .collect()
        };
        // `later` applied after `first`
        let compose = |first: &Map, later: &Map| -> Map {
            later
                .iter()
                .map(|&(q, f1)| match q {
                    Some(q) => {
                        let (r, f2) = first[q as usize];
                        (r, f1 ^ f2)
                    }
                    None => (None, f1),
                })
                .collect()
        };
        let xor: Map = (0..n as u32).map(|s| (Some(s), true)).collect();
        let trip = compose(&compose(&step(&self.fwd), &xor), &step(&self.bwd));
        let mut acc: Map = (0..n as u32).map(|s| (Some(s), false)).collect();
        let (mut base, mut e) = (trip, iters);
        while e > 0 {
            if e & 1 == 1 {
                acc = compose(&acc, &base);
            }
            base = compose(&base, &base);
            e >>= 1;
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(fwd: LimitMove, bwd: LimitMove, words: u32, threads: u32) -> LimitKernel {
        LimitKernel {
            name: "l".into(),
            fwd,
            bwd,
            words,
            threads,
            bits: 32,
        }
    }

    #[test]
    fn accesses_are_16_bytes_then_narrower() {
        assert_eq!(chunks(0, 11), vec![(0, 4), (4, 4), (8, 2), (10, 1)]);
        assert_eq!(chunks(3, 5), vec![(3, 2)]);
        assert!(chunks(4, 4).is_empty());
    }

    #[test]
    fn a_shuffle_both_ways_is_the_identity_with_the_xor_at_odd_trips() {
        let s = LimitMove::Shuffle { words: 2 };
        let m = k(s, s, 3, 64);
        for (s, &(src, flip)) in m.expected(7).iter().enumerate() {
            assert_eq!((src, flip), (Some(s as u32), true));
        }
        assert!(m.expected(8).iter().all(|&(_, f)| !f));
    }

    #[test]
    fn a_one_way_move_alternates_the_partner() {
        let m = k(
            LimitMove::Shared {
                store_words: 2,
                load_words: 2,
                cross_warp: true,
            },
            LimitMove::None,
            4,
            64,
        );
        let e = m.expected(3);
        // word 1 of thread 5 comes from thread 37 after an odd count
        assert_eq!(e[5 * 4 + 1], (Some(37 * 4 + 1), true));
        assert_eq!(e[5 * 4 + 3], (Some(5 * 4 + 3), true));
        let e = m.expected(2);
        assert_eq!(e[5 * 4 + 1], (Some(5 * 4 + 1), false));
    }

    #[test]
    fn loads_beyond_the_stores_read_zeros() {
        let m = k(
            LimitMove::Shared {
                store_words: 1,
                load_words: 3,
                cross_warp: false,
            },
            LimitMove::Shared {
                store_words: 3,
                load_words: 3,
                cross_warp: false,
            },
            3,
            32,
        );
        let e = m.expected(1);
        // forward xors zeros into words 1, 2; the xor flips all; back
        // exchanges
        assert_eq!(e[0], (Some(0), true));
        assert_eq!(e[1], (Some(4), true));
        assert_eq!(m.smem_bytes(), 3 * 4 * 32 + 2 * 4 * 32);
        let src = m.source(None).unwrap();
        assert!(src.contains("__syncwarp();"), "{src}");
        assert!(src.contains("uint2"), "{src}");
        assert!(src.contains("w[1] ^= l1.x;"), "{src}");
    }

    #[test]
    fn choices_follow_the_bound() {
        let lb = LowerBound {
            elem_bits: 16,
            shfl_words: Some(4),
            smem_accesses: 3,
            smem_wavefronts: 4,
            smem_store_bytes: 256,
            smem_load_bytes: 16,
            score: 1.0,
        };
        assert_eq!(
            LimitMove::choices(&lb),
            vec![
                LimitMove::Shuffle { words: 4 },
                LimitMove::Shared {
                    store_words: 2,
                    load_words: 4,
                    cross_warp: false
                }
            ]
        );
        let none = LowerBound {
            smem_load_bytes: 0,
            ..lb
        };
        assert_eq!(LimitMove::choices(&none), vec![LimitMove::None]);
    }
}
