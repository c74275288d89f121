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
//! - [`LimitMove::Cluster`] (cluster conversions): the words that must
//!   cross CTAs stored into the peer CTA's scratch (`st.shared::cluster`
//!   at a `mapa` address, cluster rank `^ 1`) and loaded locally, or stored
//!   locally and loaded from the peer's (`ld.shared::cluster`), 16 bytes
//!   per access, the other words as the shared-memory move moves them,
//!   between cluster barriers; in a kernel with a cluster move every
//!   scratch reuse waits on a cluster barrier (the peer may still read this
//!   CTA's scratch), and a last one after the loop keeps every CTA until
//!   its peer is done with its scratch.
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
    /// A cluster conversion's move through distributed shared memory
    /// (PTX ISA `st`/`ld` with the `.shared::cluster` state space, `mapa`,
    /// `barrier.cluster`): words `[0, remote_loads)` come from the same
    /// thread of the peer CTA (cluster rank `^ 1`), `remote_stores` of them
    /// through its shared memory; words from `remote_words()` on move within
    /// the CTA as [`LimitMove::Shared`] does (`local_stores` stored,
    /// `local_loads` loaded from the partner thread). `remote_load`: the
    /// remote words are stored locally and loaded from the peer
    /// (`ld.shared::cluster`), else stored into the peer
    /// (`st.shared::cluster`) and loaded locally. Both barriers are cluster
    /// barriers (the peer reads or writes this CTA's scratch).
    Cluster {
        remote_stores: u32,
        remote_loads: u32,
        local_stores: u32,
        local_loads: u32,
        cross_warp: bool,
        remote_load: bool,
    },
}

impl LimitMove {
    /// `none`, `shfl` or `smem`.
    pub fn family(&self) -> &'static str {
        match self {
            LimitMove::None => "none",
            LimitMove::Shuffle { .. } => "shfl",
            LimitMove::Shared { .. } => "smem",
            LimitMove::Cluster {
                remote_load: false, ..
            } => "dsmem_st",
            LimitMove::Cluster {
                remote_load: true, ..
            } => "dsmem_ld",
        }
    }

    /// The moves a direction of a cluster conversion with lower bound `lb`
    /// can be limited by: where elements cross CTAs
    /// (`lb.cluster_load_bytes`), the two [`LimitMove::Cluster`] moves
    /// (remote stores, remote loads), each moving the CTA's share of the
    /// crossing bytes over its threads (`lb.cluster_store_bytes` per warp
    /// over 32 lanes) and the busiest thread's crossing bytes, the rest of
    /// the bound's stores and loads within the CTA; else
    /// [`LimitMove::choices`].
    pub fn cluster_choices(lb: &LowerBound) -> Vec<LimitMove> {
        if lb.cluster_load_bytes == 0 {
            return LimitMove::choices(lb);
        }
        let remote_stores = lb.cluster_store_bytes.div_ceil(32 * 4) as u32;
        let remote_loads = lb.cluster_load_bytes.div_ceil(4) as u32;
        let stores = lb.smem_store_bytes.div_ceil(32 * 4) as u32;
        let loads = lb.smem_load_bytes.div_ceil(4) as u32;
        [false, true]
            .into_iter()
            .map(|remote_load| LimitMove::Cluster {
                remote_stores,
                remote_loads,
                local_stores: stores.saturating_sub(remote_stores),
                local_loads: loads.saturating_sub(remote_loads),
                cross_warp: lb.shfl_words.is_none(),
                remote_load,
            })
            .collect()
    }

    /// Of a [`LimitMove::Cluster`]: the words `[0, n)` that cross CTAs (the
    /// local words follow); 0 for the other moves.
    fn remote_words(&self) -> u32 {
        match *self {
            LimitMove::Cluster {
                remote_stores,
                remote_loads,
                ..
            } => remote_stores.max(remote_loads),
            _ => 0,
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
            LimitMove::Cluster {
                local_stores,
                local_loads,
                ..
            } => self.remote_words() + local_stores.max(local_loads),
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
    /// CTAs per cluster it launches in (1 unless a move is a
    /// [`LimitMove::Cluster`]).
    pub ctas: u32,
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
        LimitMove::Cluster {
            remote_stores,
            remote_loads,
            local_stores,
            local_loads,
            ..
        } => (
            (remote_stores + local_stores) * 4 * threads,
            (remote_loads.saturating_sub(remote_stores) + local_loads.saturating_sub(local_stores))
                * 4
                * threads,
        ),
        _ => (0, 0),
    }
}

/// The CUDA type of an access of `w` words.
fn vty(w: u32) -> &'static str {
    match w {
        4 => "uint4",
        2 => "uint2",
        _ => "unsigned",
    }
}

/// The value an access of `w` words from word `k` stores: `w[k]`, or a
/// `make_uint2`/`make_uint4` of the words from `k` on.
fn stored_value(k: u32, w: u32) -> String {
    match w {
        4 => format!(
            "make_uint4(w[{k}], w[{}], w[{}], w[{}])",
            k + 1,
            k + 2,
            k + 3
        ),
        2 => format!("make_uint2(w[{k}], w[{}])", k + 1),
        _ => format!("w[{k}]"),
    }
}

/// The fields of an access of `w` words (`""`: the value itself).
fn fields(w: u32) -> &'static [&'static str] {
    match w {
        4 => &["x", "y", "z", "w"],
        2 => &["x", "y"],
        _ => &[""],
    }
}

/// `barrier.cluster.arrive.release` then `wait.acquire` (PTX ISA 9.7.13.3):
/// every thread of the cluster; orders shared memory across its CTAs.
const CLUSTER_BARRIER: &str = "asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\\tbarrier.cluster.wait.acquire.aligned;\" ::: \"memory\");";

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
        let cluster = |m: &LimitMove| matches!(m, LimitMove::Cluster { .. });
        LimitKernel {
            name: name.to_string(),
            fwd,
            bwd,
            words: elems.max(fwd.words()).max(bwd.words()).max(1),
            threads,
            ctas: if cluster(&fwd) || cluster(&bwd) { 2 } else { 1 },
            bits,
        }
    }

    /// The same kernel launched in clusters of `ctas` CTAs (a power of two,
    /// at least 2 where a move is a [`LimitMove::Cluster`]): the cluster
    /// conversion's own launch.
    pub fn in_clusters_of(mut self, ctas: u32) -> LimitKernel {
        self.ctas = ctas.max(self.ctas);
        self
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

    /// Whether a move's local loads read another warp's slots: a move
    /// across warps of a CTA that has more than one (a cluster conversion
    /// at one warp per CTA crosses CTAs, not warps).
    fn cross_warp(&self, m: &LimitMove) -> bool {
        let cross = match *m {
            LimitMove::Shared { cross_warp, .. } | LimitMove::Cluster { cross_warp, .. } => {
                cross_warp
            }
            _ => false,
        };
        cross && self.threads > 32
    }

    /// The thread whose slots thread `t` loads in a move within the CTA:
    /// the same lane of the next warp, or the next lane.
    fn partner(&self, m: &LimitMove, t: u32) -> u32 {
        if self.cross_warp(m) {
            t ^ 32
        } else {
            t ^ 1
        }
    }

    /// [`LimitKernel::partner`] as a CUDA expression of `t`.
    fn partner_expr(&self, m: &LimitMove) -> &'static str {
        if self.cross_warp(m) {
            "t ^ 32u"
        } else {
            "t ^ 1u"
        }
    }

    /// Whether a move goes through distributed shared memory.
    fn clustered(&self) -> bool {
        [self.fwd, self.bwd]
            .iter()
            .any(|m| matches!(m, LimitMove::Cluster { .. }))
    }

    /// The CUDA lines of a [`LimitMove::Cluster`]; `zero_at` is the byte
    /// offset of its zeroed region (the remote words' loads beyond their
    /// stores first, then the local words').
    fn cluster_lines(&self, m: &LimitMove, zero_at: u32) -> Vec<String> {
        let LimitMove::Cluster {
            remote_stores: rs,
            remote_loads: rl,
            local_stores: ls,
            local_loads: ll,
            cross_warp: _,
            remote_load,
        } = *m
        else {
            return Vec::new();
        };
        let tn = self.threads;
        let r = m.remote_words();
        let region_b = rs * 4 * tn;
        let partner = self.partner_expr(m);
        let mut v = vec![format!(
            "{CLUSTER_BARRIER}  // the peer CTA reads or writes this scratch"
        )];
        // the remote words: word k of thread t at region A, access (k) slot t
        for (k, w) in chunks(0, rs) {
            let off = k * 4 * tn;
            if remote_load {
                v.push(format!(
                    "*({}*)(wf_smem + {off}u + t * {}u) = {};",
                    vty(w),
                    w * 4,
                    stored_value(k, w)
                ));
            } else {
                let regs: Vec<String> = (0..w).map(|j| format!("\"r\"(w[{}])", k + j)).collect();
                let ops: Vec<String> = (1..=w).map(|j| format!("%{j}")).collect();
                let vec = if w == 1 {
                    String::new()
                } else {
                    format!(".v{w}")
                };
                v.push(format!(
                    "asm volatile(\"st.shared::cluster{vec}.u32 [%0], {{{}}};\" :: \"r\"(wf_peer + {off}u + t * {}u), {} : \"memory\");",
                    ops.join(", "),
                    w * 4,
                    regs.join(", ")
                ));
            }
        }
        // the local words: word r + j of thread t at region B, access slot t
        for (k, w) in chunks(0, ls) {
            v.push(format!(
                "*({}*)(wf_smem + {}u + t * {}u) = {};",
                vty(w),
                region_b + k * 4 * tn,
                w * 4,
                stored_value(r + k, w)
            ));
        }
        v.push(CLUSTER_BARRIER.into());
        v.push("{".into());
        if ll > 0 {
            v.push(format!("  const unsigned p = {partner};"));
        }
        let mut i = 0;
        let mut load = |v: &mut Vec<String>,
                        k: u32,
                        w: u32,
                        addr: String,
                        remote: bool,
                        op: &str| {
            let ty = vty(w);
            if remote {
                let outs: Vec<String> = fields(w)
                    .iter()
                    .map(|f| {
                        if f.is_empty() {
                            format!("\"=r\"(l{i})")
                        } else {
                            format!("\"=r\"(l{i}.{f})")
                        }
                    })
                    .collect();
                let ops: Vec<String> = (0..w).map(|j| format!("%{j}")).collect();
                let vec = if w == 1 {
                    String::new()
                } else {
                    format!(".v{w}")
                };
                v.push(format!("  {ty} l{i};"));
                v.push(format!(
                    "  asm volatile(\"ld.shared::cluster{vec}.u32 {{{}}}, [%{w}];\" : {} : \"r\"({addr}) : \"memory\");",
                    ops.join(", "),
                    outs.join(", ")
                ));
            } else {
                v.push(format!(
                    "  const {ty} l{i} = *(const {ty}*)(wf_smem + {addr});"
                ));
            }
            for (j, f) in fields(w).iter().enumerate() {
                let src = if f.is_empty() {
                    format!("l{i}")
                } else {
                    format!("l{i}.{f}")
                };
                v.push(format!("  w[{}] {op} {src};", k + j as u32));
            }
            i += 1;
        };
        // remote words: the peer's word k of thread t (the same slot of
        // region A, of the peer's scratch or of this one); beyond the
        // stores, the zeroed region (of the peer's scratch where loads are
        // remote), xored in
        let matched = rl.min(rs);
        for &(k, w) in &chunks(0, rs) {
            if k >= matched {
                break;
            }
            for (k2, w2) in chunks(k, (k + w).min(matched)) {
                let off = k * 4 * tn + (k2 - k) * 4;
                let (addr, remote) = if remote_load {
                    (format!("wf_peer + {off}u + t * {}u", w * 4), true)
                } else {
                    (format!("{off}u + t * {}u", w * 4), false)
                };
                load(&mut v, k2, w2, addr, remote, "=");
            }
        }
        for (k, w) in chunks(rs, rl) {
            let off = zero_at + (k - rs) * 4 * tn;
            let (addr, remote) = if remote_load {
                (format!("wf_peer + {off}u + t * {}u", w * 4), true)
            } else {
                (format!("{off}u + t * {}u", w * 4), false)
            };
            load(&mut v, k, w, addr, remote, "^=");
        }
        // local words: the partner thread's, as a shared-memory move
        let zero_local = zero_at + rl.saturating_sub(rs) * 4 * tn;
        let matched = ll.min(ls);
        for &(k, w) in &chunks(0, ls) {
            if k >= matched {
                break;
            }
            for (k2, w2) in chunks(k, (k + w).min(matched)) {
                let addr = format!("{}u + p * {}u", region_b + k * 4 * tn + (k2 - k) * 4, w * 4);
                load(&mut v, r + k2, w2, addr, false, "=");
            }
        }
        for (k, w) in chunks(ls, ll) {
            let addr = format!("{}u + p * {}u", zero_local + (k - ls) * 4 * tn, w * 4);
            load(&mut v, r + k, w, addr, false, "^=");
        }
        v.push("}".into());
        v
    }

    /// The CUDA lines of one move; `zero_at` is the byte offset of its
    /// zeroed region.
    fn lines(&self, m: &LimitMove, zero_at: u32) -> Vec<String> {
        let tn = self.threads;
        match *m {
            LimitMove::Cluster { .. } => self.cluster_lines(m, zero_at),
            LimitMove::None => vec!["// nothing moves between threads".into()],
            LimitMove::Shuffle { words } => (0..words)
                .map(|k| format!("w[{k}] = __shfl_xor_sync(0xffffffffu, w[{k}], 1);"))
                .collect(),
            LimitMove::Shared {
                store_words,
                load_words,
                cross_warp,
            } => {
                let partner = self.partner_expr(m);
                // in a kernel with a cluster move the peer CTA may still be
                // reading this scratch remotely: a cluster barrier
                let mut v = vec![if self.clustered() {
                    format!("{CLUSTER_BARRIER}  // the scratch is reused (the peer CTA may still read it)")
                } else {
                    "__syncthreads();  // the scratch is reused".to_string()
                }];
                // stored word k of thread t: region of its access (k * 4 *
                // threads bytes in), slot t of that access's width
                let store = chunks(0, store_words);
                for &(k, w) in &store {
                    let val = stored_value(k, w);
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
                    for (j, f) in fields(*w).iter().enumerate() {
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
            clustered => self.clustered(),
            cluster_barrier => CLUSTER_BARRIER,
        })?)
    }

    /// Where each word of a cluster's tile comes from after `iters` round
    /// trips: entry `(c * threads + t) * words + k` (word `k` of thread `t`
    /// of the cluster's CTA `c`; one CTA unless [`LimitKernel::ctas`] says
    /// more) is `(the input word's index in the same numbering (None: a
    /// word of zeros; no move makes one today), and whether the element
    /// pattern is xored in)`. Exponentiation by squaring of one trip's map:
    /// work `ctas * threads * words * log2(iters)`.
    pub fn expected(&self, iters: u32) -> Vec<(Option<u32>, bool)> {
        let (tn, wn) = (self.threads, self.words);
        let n = (self.ctas * tn * wn) as usize;
        type Map = Vec<(Option<u32>, bool)>;
        // after-map of one move: each slot's source slot before it; slot
        // (c * threads + t) * words + k is word k of thread t of CTA c of
        // the cluster
        let step = |m: &LimitMove| -> Map {
            (0..n as u32)
                .map(|s| {
                    let (ct, k) = (s / wn, s % wn);
                    let (c, t) = (ct / tn, ct % tn);
                    let at = |c: u32, t: u32| Some((c * tn + t) * wn + k);
                    match *m {
                        LimitMove::None => (Some(s), false),
                        LimitMove::Shuffle { words } if k < words => (at(c, t ^ 1), false),
                        LimitMove::Cluster {
                            remote_stores,
                            remote_loads,
                            local_stores,
                            local_loads,
                            ..
                        } => {
                            let r = m.remote_words();
                            if k < remote_stores.min(remote_loads) {
                                (at(c ^ 1, t), false)
                            } else if k >= r && k - r < local_stores.min(local_loads) {
                                (at(c, self.partner(m, t)), false)
                            } else {
                                (Some(s), false)
                            }
                        }
                        LimitMove::Shuffle { .. } => (Some(s), false),
                        LimitMove::Shared {
                            store_words,
                            load_words,
                            ..
                        } => {
                            if k < load_words.min(store_words) {
                                (at(c, self.partner(m, t)), false)
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
            ctas: 1,
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
            cluster_store_bytes: 0,
            cluster_load_bytes: 0,
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
        // a cluster conversion's direction whose elements stay in their CTA
        assert_eq!(LimitMove::cluster_choices(&lb), LimitMove::choices(&lb));
    }

    /// A 2-CTA move: 1 KiB per warp and 32 bytes per thread cross CTAs, of
    /// 1.5 KiB stored per warp and 48 bytes loaded per thread.
    fn cluster_bound() -> LowerBound {
        LowerBound {
            elem_bits: 16,
            shfl_words: None,
            smem_accesses: 4,
            smem_wavefronts: 8,
            smem_store_bytes: 1536,
            smem_load_bytes: 48,
            cluster_store_bytes: 1024,
            cluster_load_bytes: 32,
            score: 1.0,
        }
    }

    #[test]
    fn cluster_choices_split_remote_from_local_words() {
        let c = LimitMove::cluster_choices(&cluster_bound());
        assert_eq!(c.len(), 2);
        for (m, remote_load) in c.iter().zip([false, true]) {
            assert_eq!(
                *m,
                LimitMove::Cluster {
                    remote_stores: 8,
                    remote_loads: 8,
                    local_stores: 4,
                    local_loads: 4,
                    cross_warp: true,
                    remote_load,
                }
            );
        }
        assert_eq!((c[0].family(), c[1].family()), ("dsmem_st", "dsmem_ld"));
        assert_eq!(c[0].words(), 12);
    }

    #[test]
    fn a_cluster_move_swaps_remote_words_with_the_peer_cta_and_local_words_with_the_partner() {
        let [st, ld]: [LimitMove; 2] = LimitMove::cluster_choices(&cluster_bound())
            .try_into()
            .unwrap();
        let m = LimitKernel::new("l", st, ld, 12, 12, 16, 64).in_clusters_of(2);
        assert_eq!((m.ctas, m.words), (2, 12));
        let tn = 64u32;
        // one trip: forward and back undo each other; the xor stays
        for (s, &(src, flip)) in m.expected(1).iter().enumerate() {
            assert_eq!((src, flip), (Some(s as u32), true), "slot {s}");
        }
        // a one-way kernel over a 16-word tile: after one trip word 3 of
        // thread 5 of CTA 0 is the peer CTA's, word 9 the partner thread's
        // (5 ^ 32), word 13 (beyond the moves) its own
        let one = LimitKernel::new("l", st, LimitMove::None, 32, 32, 16, 64).in_clusters_of(2);
        let wn = 16u32;
        let slot = |c: u32, t: u32, k: u32| (c * tn + t) * wn + k;
        let e = one.expected(1);
        assert_eq!(e[slot(0, 5, 3) as usize], (Some(slot(1, 5, 3)), true));
        assert_eq!(e[slot(1, 5, 3) as usize], (Some(slot(0, 5, 3)), true));
        assert_eq!(e[slot(0, 5, 9) as usize], (Some(slot(0, 37, 9)), true));
        assert_eq!(e[slot(0, 5, 13) as usize], (Some(slot(0, 5, 13)), true));
        // an even count brings every word home
        let e = one.expected(2);
        assert_eq!(e[slot(0, 5, 3) as usize], (Some(slot(0, 5, 3)), false));
        let src = m.source(None).unwrap();
        for want in [
            "mapa.shared::cluster.u32",
            "st.shared::cluster.v4.u32",
            "ld.shared::cluster.v4.u32",
            "barrier.cluster.arrive.release.aligned",
            "// no CTA leaves while its peer may still read or write its scratch",
        ] {
            assert!(src.contains(want), "{want}: {src}");
        }
        assert!(!src.contains("__syncthreads();  // the scratch"), "{src}");
        // remote words 8 x 4 bytes x 64 threads, local 4 words
        assert_eq!(m.smem_bytes(), 12 * 4 * 64);
        // one warp per CTA: the local words' partner is the next lane
        let w1 = LimitKernel::new("l", st, ld, 12, 12, 16, 32).in_clusters_of(2);
        let e = w1.expected(1);
        assert_eq!(e.len(), 2 * 32 * 12);
        let one = LimitKernel::new("l", st, LimitMove::None, 12, 12, 16, 32).in_clusters_of(2);
        assert_eq!(one.expected(1)[5 * 12 + 9], (Some(4 * 12 + 9), true));
        assert!(w1
            .source(None)
            .unwrap()
            .contains("const unsigned p = t ^ 1u;"));
        // a shared-memory move beside a cluster move waits on the cluster
        // before it reuses the scratch: the peer may still be loading from
        // it (a race the GPU check caught as wrong output)
        let sm = LimitMove::Shared {
            store_words: 2,
            load_words: 2,
            cross_warp: true,
        };
        let mixed = LimitKernel::new("l", ld, sm, 12, 12, 16, 64).in_clusters_of(2);
        let src = mixed.source(None).unwrap();
        assert!(
            !src.contains("__syncthreads();  // the scratch is reused"),
            "{src}"
        );
        assert!(
            src.contains("the scratch is reused (the peer CTA may still read it)"),
            "{src}"
        );
        let plain = LimitKernel::new("l", sm, sm, 12, 12, 16, 64);
        assert!(plain
            .source(None)
            .unwrap()
            .contains("__syncthreads();  // the scratch is reused"));
    }

    /// Loads beyond the stores (a broadcast destination): the remote ones
    /// read the peer's zeroed region, the local ones this CTA's, after
    /// the larger direction's stored slots, and xor into their words.
    #[test]
    fn cluster_loads_beyond_the_stores_read_the_zeroed_regions() {
        let m = LimitMove::Cluster {
            remote_stores: 1,
            remote_loads: 2,
            local_stores: 1,
            local_loads: 3,
            cross_warp: false,
            remote_load: true,
        };
        let k = LimitKernel::new("l", m, LimitMove::None, 2, 2, 32, 32).in_clusters_of(2);
        // stored: words 0 (remote) and 2 (local) x 128 bytes; zeros: 1
        // remote word and 2 local words x 128 bytes
        assert_eq!(k.words, 5);
        assert_eq!(k.smem_bytes(), 2 * 128 + 3 * 128);
        let src = k.source(None).unwrap();
        for want in [
            // word 0 from the peer's region A, word 1 from its zeroed region
            "\"r\"(wf_peer + 0u + t * 4u)",
            "\"r\"(wf_peer + 256u + t * 4u)",
            "w[1] ^= l1;",
            // word 2 from the partner's local slot, words 3 and 4 zeros
            "wf_smem + 128u + p * 4u",
            "wf_smem + 384u + p * 8u",
            "w[3] ^= l3.x;",
        ] {
            assert!(src.contains(want), "{want}: {src}");
        }
        let e = k.expected(1);
        let slot = |c: u32, t: u32, w: u32| (c * 32 + t) * 5 + w;
        assert_eq!(e[slot(0, 3, 0) as usize], (Some(slot(1, 3, 0)), true));
        assert_eq!(e[slot(0, 3, 1) as usize], (Some(slot(0, 3, 1)), true));
        assert_eq!(e[slot(0, 3, 2) as usize], (Some(slot(0, 2, 2)), true));
        assert_eq!(e[slot(0, 3, 4) as usize], (Some(slot(0, 3, 4)), true));
    }
}
