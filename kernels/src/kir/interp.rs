//! The interpreter of the kernel IR: runs a helper body, as printed, for
//! every thread of every CTA of the conversion in lockstep, and checks that
//! every destination slot of every thread holds the destination layout's
//! element. This is the CPU proof of the shipped code (`verify --cpu`).
//!
//! Values are tracked byte by byte: a byte is a constant, a byte of a
//! source element (its layout tag, the XOR-linear index of its coordinate,
//! [`synth::plan::Side::thread_tags`], and which byte), or unknown. Data
//! bytes move exactly through what the helpers do to them (selects,
//! shuffles, `prmt`, shifts by whole bytes, masks of whole bytes, ORs with
//! zero bytes, shared-memory and distributed-shared-memory stores and
//! loads); anything else that touches a data byte makes it unknown, so a
//! wrong or lossy operation shows as a wrong destination slot. Addresses,
//! lane and warp ids, predicates and selectors are constants computed as C
//! computes them.
//!
//! Shared memory is byte-addressed from [`SCRATCH_BASE`] (one scratch per
//! CTA). Every byte remembers its last write (thread, barrier phases) and
//! its readers in the current phase, which gives the checks of the plan
//! simulator (`synth::sim`): a load of a byte written by another thread
//! must follow a `__syncthreads()` (or a `__syncwarp()` within the warp, or
//! for another CTA's write a cluster barrier); two different values stored
//! to one byte in one phase, or a store over a byte another thread still
//! reads in this phase, are races; accesses are aligned to their width and
//! inside the scratch; `ldmatrix`/`stmatrix` rows are 16-byte aligned; a
//! shuffle runs with the whole warp; a remote access is followed by a
//! cluster barrier before the helper returns.
//!
//! Semantics of the instructions: PTX ISA 8.x, sections "prmt",
//! "shfl.sync", "ld/st" (state space `.shared`, `.shared::cluster`),
//! "ldmatrix", "stmatrix", "mapa", "barrier.cluster"; C's for the
//! operators.

use super::{Body, Cond, Else, Expr, Func, Op, Param, Stmt, Ty, Val};
use std::collections::BTreeMap;
use synth::plan::pack::PackMap;
use synth::plan::{Analysis, BarrierScope, ShflMode};

/// The shared-window address of the scratch of every CTA
/// (`detail::smem_u32(smem)`): 64 KiB, so that low address bits are the
/// scratch offset's.
pub const SCRATCH_BASE: u32 = 0x1_0000;

/// Flag of a data byte (bit 63); the rest is `tag << 3 | byte`.
const SYM: u64 = 1 << 63;
/// An unknown byte.
const UNKNOWN: u64 = 1 << 62;

/// Up to eight bytes of one value of one thread (little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct W {
    b: [u64; 8],
    n: u8,
}

impl W {
    /// The constant `x` in `n` bytes.
    fn int(x: u64, n: u8) -> W {
        let mut b = [0u64; 8];
        for (i, v) in b.iter_mut().enumerate().take(n as usize) {
            *v = (x >> (8 * i)) & 0xff;
        }
        W { b, n }
    }
    /// `n` unknown bytes.
    fn unknown(n: u8) -> W {
        W { b: [UNKNOWN; 8], n }
    }
    /// The value as an integer when every byte is a constant.
    fn konst(&self) -> Option<u64> {
        let mut x = 0u64;
        for i in 0..self.n as usize {
            if self.b[i] > 0xff {
                return None;
            }
            x |= self.b[i] << (8 * i);
        }
        Some(x)
    }
    /// `n` bytes: truncated, or zero-extended.
    fn resize(mut self, n: u8) -> W {
        for i in self.n as usize..n as usize {
            self.b[i] = 0;
        }
        self.n = n;
        self
    }
}

/// How the caller's array of one side holds the elements.
#[derive(Clone, Copy, Debug)]
pub enum Io<'a> {
    /// `T` elements: entry `i` is register `i`.
    Elements,
    /// 32-bit words of `32 / bits` elements packed by the map (the packed
    /// forms): slot `s` of word `w` is register `map.register(w, s)`.
    Packed(&'a PackMap),
}

/// What a run needs besides the body.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// The conversion (source and destination tags, warps, CTAs).
    pub an: &'a Analysis,
    /// `sizeof(T)` in bytes (1, 2, 4 or 8).
    pub elem_bytes: u32,
    /// The caller's source array.
    pub src: Io<'a>,
    /// The caller's destination array.
    pub dst: Io<'a>,
    /// The caller's `warpforge::words` template argument (an enumerator
    /// name: `automatic`, `none`, `src`, `dst`, `both`).
    pub words: &'static str,
    /// The packed forms' bodies by element bits, for the element form's
    /// calls of them ([`Stmt::CallPacked`]).
    pub packed: &'a [(u32, Body)],
    /// The scratch's bytes per CTA (0: none).
    pub smem_bytes: u64,
    /// The CTA warp the helper's warp 0 is ([`crate::EmittedHelper::first_warp`]):
    /// thread `t` of a CTA runs with `threadIdx.x = 32 * first_warp + t`
    /// (lanes per warp for 32), as the warps of a partition of a
    /// warp-specialized kernel do.
    pub first_warp: u32,
}

/// What a run checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    /// Threads run (all CTAs).
    pub threads: u64,
    /// Destination slots checked (elements, all threads).
    pub slots: u64,
    /// Statements executed (nested ones included, once per execution).
    pub stmts: u64,
}

/// Why a run failed: the statement (its printed line), the thread, what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what}{}", at.as_ref().map(|a| format!(" (at `{a}`)")).unwrap_or_default())]
pub struct InterpError {
    /// What went wrong, naming the thread where one is at fault.
    pub what: String,
    /// The printed statement being run.
    pub at: Option<String>,
}

fn err<T>(what: impl Into<String>) -> Result<T, InterpError> {
    Err(InterpError {
        what: what.into(),
        at: None,
    })
}

/// The shared-memory state of one byte.
#[derive(Clone, Copy, Debug)]
struct Cell {
    val: u64,
    /// Writer (global thread), or `u32::MAX` when never written.
    writer: u32,
    phase: u32,
    warp_phase: u32,
    cluster_phase: u32,
    /// The warps of the cell's CTA that stored `val` in `phase` (bit per
    /// warp), and bit 63 where a thread of another CTA did: identical
    /// stores by several warps (broadcast copies) are no race, and a load
    /// sees the value once any of them is visible to it.
    warps: u64,
    /// Reader (global thread) in `read_phase`, `u32::MAX - 1` for several.
    reader: u32,
    reader_warp: u32,
    read_phase: u32,
    read_warp_phase: u32,
}

const NONE: u32 = u32::MAX;
/// [`Cell::warps`]'s bit for a store by a thread of another CTA.
const REMOTE: u64 = 1 << 63;
const MANY: u32 = u32::MAX - 1;

impl Default for Cell {
    fn default() -> Cell {
        Cell {
            val: UNKNOWN,
            writer: NONE,
            phase: 0,
            warp_phase: 0,
            cluster_phase: 0,
            warps: 0,
            reader: NONE,
            reader_warp: NONE,
            read_phase: 0,
            read_warp_phase: 0,
        }
    }
}

/// The machine: threads, scratch, barrier phases.
struct Machine<'a> {
    setup: Setup<'a>,
    /// Lanes per warp (32 or 64).
    lanes: u32,
    warps: u32,
    ctas: u32,
    /// Threads per CTA.
    tpc: u32,
    /// Per CTA, per byte of the scratch.
    smem: Vec<Vec<Cell>>,
    /// `__syncthreads()`, named barriers of the helper's warp group and
    /// cluster barriers so far.
    phase: u32,
    /// `__syncwarp()` so far (every warp runs it together).
    warp_phase: u32,
    /// Cluster barriers so far.
    cluster_phase: u32,
    /// A remote access since the last cluster barrier.
    remote_pending: bool,
    stmts: u64,
}

/// A frame: the values of one body for every thread, and the caller's
/// arrays as bytes.
struct Frame<'b> {
    body: &'b Body,
    vals: Vec<Option<Vec<W>>>,
    /// Bytes of `sizeof(T)` in this body.
    eb: u32,
    /// The caller's arrays, per thread, as bytes.
    src: Vec<Vec<u64>>,
    dst: Vec<Vec<u64>>,
    /// Bytes per entry of the caller's arrays (`sizeof(T)`, or 4 for words).
    src_unit: u32,
    dst_unit: u32,
    /// `kW`, once a [`Stmt::WordsChoice`] ran.
    words: Option<&'static str>,
}

/// Run `body` under `setup` and check the destination.
pub fn run(body: &Body, setup: &Setup) -> Result<Report, InterpError> {
    let an = setup.an;
    if !(5..=6).contains(&an.src.hw.lane) || an.dst.hw.lane != an.src.hw.lane {
        return err("the interpreter runs warps of 32 or 64 lanes");
    }
    let lanes = 1u32 << an.src.hw.lane;
    let warps = 1u32 << an.src.hw.warp;
    let ctas = 1u32 << an.src.hw.block;
    let tpc = warps * lanes;
    let n = (ctas * tpc) as usize;
    let eb = setup.elem_bytes;
    let mut m = Machine {
        setup: *setup,
        lanes,
        warps,
        ctas,
        tpc,
        smem: vec![vec![Cell::default(); setup.smem_bytes as usize]; ctas as usize],
        phase: 0,
        warp_phase: 0,
        cluster_phase: 0,
        remote_pending: false,
        stmts: 0,
    };
    let src_regs = an.src_regs();
    let (src_unit, dst_unit) = (unit(setup.src, eb), unit(setup.dst, eb));
    let mut src = Vec::with_capacity(n);
    for t in 0..n as u32 {
        let (c, w, l) = m.who(t);
        let tags = an
            .src
            .thread_tags(src_regs as u64, l as u64, w as u64, c as u64);
        src.push(element_bytes(&tags, setup.src, eb));
    }
    let dst_bytes = (an.dst_regs() * eb) as usize;
    let mut f = Frame {
        body,
        vals: vec![None; body.vals.len()],
        eb,
        src,
        dst: vec![vec![UNKNOWN; dst_bytes]; n],
        src_unit,
        dst_unit,
        words: None,
    };
    let all = vec![true; n];
    m.exec_list(&mut f, &body.stmts, &all)?;
    if m.remote_pending {
        return err("a distributed-shared-memory access is not followed by a cluster barrier: the other CTA may exit or reuse its scratch while it is in flight");
    }
    let mut slots = 0;
    for t in 0..n as u32 {
        let (c, w, l) = m.who(t);
        let tags = an
            .dst
            .thread_tags(an.dst_regs() as u64, l as u64, w as u64, c as u64);
        let want = element_bytes(&tags, setup.dst, eb);
        let got = &f.dst[t as usize];
        if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
            let (reg, byte) = match setup.dst {
                Io::Elements => (i as u32 / eb, i as u32 % eb),
                Io::Packed(pm) => {
                    let (word, at) = (i as u32 / 4, i as u32 % 4);
                    (pm.register(word, at / eb), at % eb)
                }
            };
            return err(format!(
                "wrong destination: CTA {c} warp {w} lane {l} register {reg} byte {byte} holds {}, expected byte {byte} of element {}",
                describe(got[i]),
                tags[reg as usize]
            ));
        }
        slots += an.dst_regs() as u64;
    }
    Ok(Report {
        threads: n as u64,
        slots,
        stmts: m.stmts,
    })
}

/// Bytes per entry of a caller's array.
fn unit(io: Io, eb: u32) -> u32 {
    match io {
        Io::Elements => eb,
        Io::Packed(_) => 4,
    }
}

/// A data byte as text.
fn describe(b: u64) -> String {
    if b == UNKNOWN {
        "an unknown byte".into()
    } else if b & SYM != 0 {
        format!("byte {} of element {}", b & 7, (b & !SYM) >> 3)
    } else {
        format!("the constant {b:#04x}")
    }
}

/// The caller's array bytes of elements with `tags` (register order) held
/// as `io`.
fn element_bytes(tags: &[u64], io: Io, eb: u32) -> Vec<u64> {
    let sym = |tag: u64, byte: u32| SYM | tag << 3 | byte as u64;
    match io {
        Io::Elements => tags
            .iter()
            .flat_map(|&t| (0..eb).map(move |b| sym(t, b)))
            .collect(),
        Io::Packed(pm) => {
            let per = 4 / eb;
            let words = tags.len() as u32 / per;
            let mut v = Vec::with_capacity((words * 4) as usize);
            for w in 0..words {
                for s in 0..per {
                    let r = pm.register(w, s);
                    v.extend((0..eb).map(|b| sym(tags[r as usize], b)));
                }
            }
            v
        }
    }
}

impl<'a> Machine<'a> {
    /// `(cta, warp, lane)` of global thread `t`.
    fn who(&self, t: u32) -> (u32, u32, u32) {
        (t / self.tpc, (t % self.tpc) / self.lanes, t % self.lanes)
    }

    /// Run `stmts` for the threads `act`, freeing each value this list
    /// defines after its last use in the list.
    fn exec_list(
        &mut self,
        f: &mut Frame,
        stmts: &[Stmt],
        act: &[bool],
    ) -> Result<(), InterpError> {
        let mut last: BTreeMap<Val, usize> = BTreeMap::new();
        for (i, s) in stmts.iter().enumerate() {
            s.for_each_expr(&mut |e: &Expr| {
                e.for_each_val(&mut |v| {
                    last.insert(v, i);
                })
            });
        }
        let mut free_at: BTreeMap<usize, Vec<Val>> = BTreeMap::new();
        for (i, s) in stmts.iter().enumerate() {
            for v in s.defs() {
                free_at
                    .entry(*last.get(&v).unwrap_or(&i).max(&i))
                    .or_default()
                    .push(v);
            }
        }
        for (i, s) in stmts.iter().enumerate() {
            self.stmts += 1;
            self.exec(f, s, act).map_err(|mut e| {
                if e.at.is_none() {
                    let mut l = Vec::new();
                    super::print::stmt(f.body, s, &mut l);
                    e.at = Some(l.join(" "));
                }
                e
            })?;
            for v in free_at.remove(&i).unwrap_or_default() {
                f.vals[v.0 as usize] = None;
            }
        }
        Ok(())
    }

    /// The values of `v` for every thread.
    fn get<'f>(&self, f: &'f mut Frame, v: Val) -> Result<&'f Vec<W>, InterpError> {
        if f.vals[v.0 as usize].is_none() {
            let info = f.body.info(v);
            let Some(Param::Src(i)) = info.param else {
                return err(format!("`{}` is read before it is defined", info.name));
            };
            let n = ty_bytes(info.ty, f.eb);
            let at = (i * f.src_unit) as usize;
            let mut out = Vec::with_capacity(f.src.len());
            for s in &f.src {
                let mut w = W::unknown(n as u8);
                for k in 0..n as usize {
                    w.b[k] = *s.get(at + k).ok_or_else(|| InterpError {
                        what: format!("`{}` is past the caller's source array", info.name),
                        at: None,
                    })?;
                }
                out.push(w);
            }
            f.vals[v.0 as usize] = Some(out);
        }
        Ok(f.vals[v.0 as usize].as_ref().expect("set above"))
    }

    /// Store `x` as the value of `v` for the threads `act` (others keep
    /// what they had, or unknown bytes).
    fn set(&self, f: &mut Frame, v: Val, x: Vec<W>, act: &[bool]) -> Result<(), InterpError> {
        let info = f.body.info(v);
        let n = ty_bytes(info.ty, f.eb) as u8;
        let slot = &mut f.vals[v.0 as usize];
        let cur = slot.get_or_insert_with(|| vec![W::unknown(n); act.len()]);
        for (t, w) in x.into_iter().enumerate() {
            if !act[t] {
                continue;
            }
            cur[t] = match info.ty {
                Ty::Bool => match w.konst() {
                    Some(k) => W::int((k != 0) as u64, 4),
                    None => return err(format!("`{}`: a predicate from data", info.name)),
                },
                _ if w.n == n => w,
                _ if info.ty == Ty::U32 && w.n < 4 => w.resize(4),
                _ => {
                    return err(format!(
                        "`{}` ({}, {n} bytes) is assigned a {}-byte value",
                        info.name,
                        info.ty.c_name(),
                        w.n
                    ))
                }
            };
        }
        Ok(())
    }

    /// Run one statement for the threads `act`.
    fn exec(&mut self, f: &mut Frame, s: &Stmt, act: &[bool]) -> Result<(), InterpError> {
        match s {
            Stmt::Let { v, e } | Stmt::Assign { v, e } => {
                let x = self.eval(f, e, act)?;
                self.set(f, *v, x, act)
            }
            Stmt::Decl { vals } | Stmt::Array { vals, .. } => {
                for v in vals {
                    let n = ty_bytes(f.body.info(*v).ty, f.eb) as u8;
                    f.vals[v.0 as usize] = Some(vec![W::unknown(n); act.len()]);
                }
                Ok(())
            }
            Stmt::ArrayInit { vals, init, .. } => {
                for (v, e) in vals.iter().zip(init) {
                    let x = self.eval(f, e, act)?;
                    self.set(f, *v, x, act)?;
                }
                Ok(())
            }
            Stmt::Void(e) => self.eval(f, e, act).map(|_| ()),
            Stmt::Call { f: func, args } => self.call_stmt(f, *func, args, act),
            Stmt::If { cond, then } => {
                let c = self.get(f, *cond)?.clone();
                let sub = self.mask(act, &c, |k| k != 0)?;
                self.exec(f, then, &sub)
            }
            Stmt::IfClear { masks, body } => {
                let mut sub = act.to_vec();
                for (v, m) in masks {
                    let c = self.get(f, *v)?.clone();
                    sub = self.mask(&sub, &c, |k| k & *m as u64 == 0)?;
                }
                self.exec_list(f, body, &sub)
            }
            Stmt::Dst { j, e } => {
                let x = self.eval(f, e, act)?;
                let at = (*j * f.dst_unit) as usize;
                for (t, w) in x.iter().enumerate().filter(|(t, _)| act[*t]) {
                    if w.n as u32 != f.dst_unit {
                        return err(format!("dst[{j}] is assigned a {}-byte value", w.n));
                    }
                    let d = &mut f.dst[t];
                    if at + w.n as usize > d.len() {
                        return err(format!("dst[{j}] is past the caller's destination array"));
                    }
                    d[at..at + w.n as usize].copy_from_slice(&w.b[..w.n as usize]);
                }
                Ok(())
            }
            Stmt::Barrier(scope) => {
                if act.iter().any(|a| !a) {
                    return err("a barrier under a condition (some threads would not reach it)");
                }
                let first = self.setup.first_warp;
                match scope {
                    // a partition's warps run beside the default group's,
                    // which never reach its `__syncthreads()`
                    BarrierScope::Cta if first > 0 => {
                        return err(format!(
                            "`__syncthreads()` in a helper on CTA warps {first} onwards (a partition of a warp-specialized kernel): it waits for the other warp groups' warps"
                        ))
                    }
                    BarrierScope::Cta => self.phase += 1,
                    BarrierScope::Named { id, threads } => {
                        // the warp group is the CTA's warps the helper runs on:
                        // a count that differs would hang or release early;
                        // barrier 0 is the default group's (the CTA's first
                        // warps), 1 starts the partitions, 2 to 15 are the
                        // partitions' own
                        let id_ok = if first == 0 { *id == 0 } else { (2..=15).contains(id) };
                        if *threads != self.tpc || !id_ok {
                            return err(format!(
                                "named barrier `bar.sync {id}, {threads}` for a helper of {} threads per CTA on CTA warps {first} onwards (the default group's is barrier 0; a partition's, 2 to 15)",
                                self.tpc
                            ));
                        }
                        self.phase += 1
                    }
                    BarrierScope::Warp => self.warp_phase += 1,
                }
                Ok(())
            }
            Stmt::ClusterBarrier => {
                if act.iter().any(|a| !a) {
                    return err("a cluster barrier under a condition");
                }
                self.phase += 1;
                self.cluster_phase += 1;
                self.remote_pending = false;
                Ok(())
            }
            Stmt::ClusterRank { v } => {
                let x = (0..act.len() as u32)
                    .map(|t| W::int(self.who(t).0 as u64, 4))
                    .collect();
                self.set(f, *v, x, act)
            }
            Stmt::CheckClusterSize { ctas } => {
                if *ctas != self.ctas {
                    return err(format!(
                        "the helper traps: it needs {ctas}-CTA clusters, the layout has {}",
                        self.ctas
                    ));
                }
                Ok(())
            }
            Stmt::Mapa { .. } | Stmt::LdCluster { .. } | Stmt::StCluster { .. } => {
                self.exec_cluster(f, s, act)
            }
            Stmt::TypedefT(bits) => {
                if bits / 8 != f.eb {
                    return err(format!(
                        "the packed form for {bits}-bit elements runs on {}-byte elements",
                        f.eb
                    ));
                }
                Ok(())
            }
            Stmt::CallPacked {
                src_vals, dst_vals, ..
            } => self.call_packed(f, src_vals, dst_vals, act),
            Stmt::WordsChoice { auto } => {
                f.words = Some(if self.setup.words == "automatic" {
                    auto
                } else {
                    self.setup.words
                });
                Ok(())
            }
            Stmt::IfConstexpr { arms, otherwise } => self.exec_constexpr(f, arms, otherwise, act),
        }
    }

    /// The `if constexpr` arm the element size and `kW` select, for the threads `act`.
    fn exec_constexpr(
        &mut self,
        f: &mut Frame,
        arms: &[(Cond, Vec<Stmt>)],
        otherwise: &Else,
        act: &[bool],
    ) -> Result<(), InterpError> {
        for (c, b) in arms {
            let take = match c {
                Cond::SizeofT(bytes) => bytes.contains(&f.eb),
                Cond::Words(w) => f.words == Some(*w),
            };
            if take {
                return self.exec_list(f, b, act);
            }
        }
        match otherwise {
            Else::NoOtherSize(msg) => err(format!("no branch for {}-byte elements: {msg}", f.eb)),
            Else::Words(_, b) => self.exec_list(f, b, act),
        }
    }

    /// A distributed-shared-memory statement (`mapa`, `ld/st.shared::cluster`)
    /// for the threads `act`.
    fn exec_cluster(&mut self, f: &mut Frame, s: &Stmt, act: &[bool]) -> Result<(), InterpError> {
        match s {
            Stmt::Mapa { v, addr, cta } => {
                let a = self.eval(f, addr, act)?;
                let c = self.eval(f, cta, act)?;
                let mut x = Vec::with_capacity(act.len());
                for t in 0..act.len() {
                    if !act[t] {
                        x.push(W::unknown(4));
                        continue;
                    }
                    let (a, c) = (konst(&a[t], "a mapa address")?, konst(&c[t], "a mapa CTA")?);
                    if c >= self.ctas as u64 {
                        return err(format!(
                            "thread {t}: mapa to CTA {c}, outside the {}-CTA cluster",
                            self.ctas
                        ));
                    }
                    if a >= 1 << 20 {
                        return err(format!("thread {t}: mapa of {a:#x}, not a scratch address"));
                    }
                    x.push(W::int(0x8000_0000 | c << 20 | a, 4));
                }
                self.set(f, *v, x, act)
            }
            Stmt::LdCluster { outs, addr, bytes } => {
                let a = self.get(f, *addr)?.clone();
                let mut res: Vec<Vec<W>> = vec![vec![W::unknown(4); act.len()]; outs.len()];
                for t in 0..act.len() {
                    if !act[t] {
                        continue;
                    }
                    let (cta, local) = self.cluster_addr(t as u32, &a[t])?;
                    let data = self.load(t as u32, cta, local, *bytes)?;
                    for (k, r) in res.iter_mut().enumerate() {
                        r[t] = word_of(&data, k, *bytes);
                    }
                }
                for (v, x) in outs.iter().zip(res) {
                    self.set(f, *v, x, act)?;
                }
                Ok(())
            }
            Stmt::StCluster { addr, words, bytes } => {
                let a = self.get(f, *addr)?.clone();
                let ws: Vec<Vec<W>> = words
                    .iter()
                    .map(|e| self.eval(f, e, act))
                    .collect::<Result<_, _>>()?;
                for t in 0..act.len() {
                    if !act[t] {
                        continue;
                    }
                    let (cta, local) = self.cluster_addr(t as u32, &a[t])?;
                    let data = bytes_of(ws.iter().map(|w| w[t]), *bytes);
                    self.store(t as u32, cta, local, &data)?;
                }
                Ok(())
            }
            _ => err("not a distributed-shared-memory statement"),
        }
    }

    /// `act` narrowed to the threads where `pred` holds of `c`.
    fn mask(
        &self,
        act: &[bool],
        c: &[W],
        pred: impl Fn(u64) -> bool,
    ) -> Result<Vec<bool>, InterpError> {
        act.iter()
            .zip(c)
            .map(|(&a, w)| {
                if !a {
                    return Ok(false);
                }
                Ok(pred(konst(w, "a condition")?))
            })
            .collect()
    }

    /// The element form's call of the packed form: a frame of the packed
    /// body on the words `src_vals`, whose destination words become
    /// `dst_vals`.
    fn call_packed(
        &mut self,
        f: &mut Frame,
        src_vals: &[Val],
        dst_vals: &[Val],
        act: &[bool],
    ) -> Result<(), InterpError> {
        if act.iter().any(|a| !a) {
            return err("the packed form is called under a condition");
        }
        let bits = f.eb * 8;
        let Some((_, callee)) = self.setup.packed.iter().find(|(b, _)| *b == bits) else {
            return err(format!("no packed form for {bits}-bit elements to call"));
        };
        let n = act.len();
        let mut src = vec![Vec::with_capacity(src_vals.len() * 4); n];
        for v in src_vals {
            let x = self.get(f, *v)?;
            for t in 0..n {
                src[t].extend_from_slice(&x[t].resize(4).b[..4]);
            }
        }
        let mut g = Frame {
            body: callee,
            vals: vec![None; callee.vals.len()],
            eb: f.eb,
            src,
            dst: vec![vec![UNKNOWN; dst_vals.len() * 4]; n],
            src_unit: 4,
            dst_unit: 4,
            words: None,
        };
        self.exec_list(&mut g, &callee.stmts, act)
            .map_err(|mut e| {
                e.what = format!("in the packed form: {}", e.what);
                e
            })?;
        for (k, v) in dst_vals.iter().enumerate() {
            let x = (0..n)
                .map(|t| {
                    let mut w = W::unknown(4);
                    w.b[..4].copy_from_slice(&g.dst[t][4 * k..4 * k + 4]);
                    w
                })
                .collect();
            self.set(f, *v, x, act)?;
        }
        Ok(())
    }

    /// A statement-level call: stores, vector loads into out-parameters,
    /// `ldmatrix`/`stmatrix`, natural words of the caller's arrays.
    fn call_stmt(
        &mut self,
        f: &mut Frame,
        func: Func,
        args: &[Expr],
        act: &[bool],
    ) -> Result<(), InterpError> {
        let out_val = |e: &Expr| match e {
            Expr::V(v) => Ok(*v),
            _ => err("an out-parameter that is not a value"),
        };
        match func {
            Func::St(bytes) => {
                let a = self.eval(f, &args[0], act)?;
                let ws: Vec<Vec<W>> = args[1..]
                    .iter()
                    .map(|e| self.eval(f, e, act))
                    .collect::<Result<_, _>>()?;
                for t in 0..act.len() {
                    if act[t] {
                        let addr = self.local_addr(t as u32, &a[t], bytes)?;
                        let data = bytes_of(ws.iter().map(|w| w[t]), bytes);
                        let cta = self.who(t as u32).0;
                        self.store(t as u32, cta, addr, &data)?;
                    }
                }
                Ok(())
            }
            Func::LdV(bytes) => {
                let a = self.eval(f, &args[0], act)?;
                let mut res = vec![vec![W::unknown(4); act.len()]; args.len() - 1];
                for t in 0..act.len() {
                    if act[t] {
                        let addr = self.local_addr(t as u32, &a[t], bytes)?;
                        let cta = self.who(t as u32).0;
                        let data = self.load(t as u32, cta, addr, bytes)?;
                        for (k, r) in res.iter_mut().enumerate() {
                            r[t] = word_of(&data, k, bytes);
                        }
                    }
                }
                for (e, x) in args[1..].iter().zip(res) {
                    self.set(f, out_val(e)?, x, act)?;
                }
                Ok(())
            }
            Func::Stsm { count, trans } | Func::Ldsm { count, trans } => {
                let store = matches!(func, Func::Stsm { .. });
                self.matrix(f, store, count, trans, args, act)
            }
            Func::LdDword => {
                let Expr::SrcPtr(e) = args[0] else {
                    return err("ld_dword of something other than the caller's source array");
                };
                for (k, o) in args[1..3].iter().enumerate() {
                    let at = (e * f.eb) as usize + 4 * k;
                    let x = caller_word(&f.src, at, "source")?;
                    self.set(f, out_val(o)?, x, act)?;
                }
                Ok(())
            }
            Func::StWord | Func::StDword => {
                let Expr::DstPtr(e) = args[0] else {
                    return err("st_word of something other than the caller's destination array");
                };
                for (k, a) in args[1..].iter().enumerate() {
                    let x = self.eval(f, a, act)?;
                    let at = (e * f.eb) as usize + 4 * k;
                    for t in 0..act.len() {
                        if !act[t] {
                            continue;
                        }
                        let d = &mut f.dst[t];
                        if at + 4 > d.len() || x[t].n != 4 {
                            return err("st_word past the caller's destination array, or of a value that is not a word");
                        }
                        d[at..at + 4].copy_from_slice(&x[t].b[..4]);
                    }
                }
                Ok(())
            }
            other => err(format!("`{}` is not a statement", other.c_name())),
        }
    }

    /// One `ldmatrix`/`stmatrix` of `count` 8x8 matrices of 16-bit
    /// elements (PTX ISA "ldmatrix", "stmatrix"): lanes `8m..8m+7` give the
    /// row addresses of matrix `m`; lane `l` holds, in word `m`, row
    /// `l / 4`, columns `2 (l % 4)` and `+1` (`.trans`: those of the
    /// transposed matrix).
    fn matrix(
        &mut self,
        f: &mut Frame,
        store: bool,
        count: u32,
        trans: bool,
        args: &[Expr],
        act: &[bool],
    ) -> Result<(), InterpError> {
        // NVIDIA's 32-lane warps only (no AMD GPU has these instructions)
        if self.lanes != 32 {
            return err("ldmatrix/stmatrix on a warp of other than 32 lanes");
        }
        // `.sync.aligned`: every lane of a warp runs it, or none (a
        // warp-uniform condition, such as a warp guard, is fine)
        for w in act.chunks(32) {
            if w.iter().any(|&a| a) && !w.iter().all(|&a| a) {
                return err("ldmatrix/stmatrix by part of a warp");
            }
        }
        let a = self.eval(f, &args[0], act)?;
        let ws: Vec<Vec<W>> = if store {
            args[1..]
                .iter()
                .map(|e| self.eval(f, e, act))
                .collect::<Result<_, _>>()?
        } else {
            vec![vec![W::unknown(4); act.len()]; count as usize]
        };
        let mut res = ws.clone();
        for base in (0..act.len() as u32).step_by(32) {
            if !act[base as usize] {
                continue;
            }
            for m in 0..count {
                let mut rows = [0u32; 8];
                for (r, row) in rows.iter_mut().enumerate() {
                    let t = base + 8 * m + r as u32;
                    *row = self.local_addr(t, &a[t as usize], 16)?;
                }
                let cta = self.who(base).0;
                for l in 0..32u32 {
                    let t = base + l;
                    for k in 0..2u32 {
                        let (row, col) = if trans {
                            (2 * (l % 4) + k, l / 4)
                        } else {
                            (l / 4, 2 * (l % 4) + k)
                        };
                        let addr = rows[row as usize] + 2 * col;
                        let i = (2 * k) as usize;
                        if store {
                            let w = ws[m as usize][t as usize].resize(4);
                            self.store(t, cta, addr, &w.b[i..i + 2])?;
                        } else {
                            let d = self.load(t, cta, addr, 2)?;
                            let w = &mut res[m as usize][t as usize];
                            w.b[i..i + 2].copy_from_slice(&d);
                        }
                    }
                }
            }
        }
        if !store {
            for (e, x) in args[1..].iter().zip(res) {
                let Expr::V(v) = e else {
                    return err("an ldmatrix out-parameter that is not a value");
                };
                self.set(f, *v, x, act)?;
            }
        }
        Ok(())
    }

    /// Thread `t`'s local scratch address `a` for a `bytes`-byte access:
    /// aligned and inside the scratch; returns the byte offset.
    fn local_addr(&self, t: u32, a: &W, bytes: u32) -> Result<u32, InterpError> {
        let a = konst(a, "a shared-memory address")? as u32;
        let (c, w, l) = self.who(t);
        if !a.is_multiple_of(bytes) {
            return err(format!(
                "CTA {c} warp {w} lane {l}: misaligned {bytes}-byte shared access at {a:#x}"
            ));
        }
        let off = a.wrapping_sub(SCRATCH_BASE);
        if a < SCRATCH_BASE || off as u64 + bytes as u64 > self.setup.smem_bytes {
            return err(format!(
                "CTA {c} warp {w} lane {l}: shared access at byte {} of a {}-byte scratch",
                a as i64 - SCRATCH_BASE as i64,
                self.setup.smem_bytes
            ));
        }
        Ok(a)
    }

    /// CTA and local address of a cluster address (from `mapa`).
    fn cluster_addr(&mut self, t: u32, a: &W) -> Result<(u32, u32), InterpError> {
        let a = konst(a, "a cluster address")? as u32;
        if a & 0x8000_0000 == 0 {
            return err(format!(
                "thread {t}: a cluster access at {a:#x}, not a mapa result"
            ));
        }
        let (cta, local) = ((a >> 20) & 0x7ff, a & 0xf_ffff);
        let own = self.who(t).0;
        if cta != own {
            if self.cluster_phase == 0 {
                return err(format!(
                    "CTA {own} accesses the scratch of CTA {cta} before any cluster barrier (it may not have started)"
                ));
            }
            self.remote_pending = true;
        }
        Ok((cta, local))
    }

    /// Store `data` at scratch address `a` of CTA `cta` by thread `t`.
    fn store(&mut self, t: u32, cta: u32, a: u32, data: &[u64]) -> Result<(), InterpError> {
        let off = self.offset(t, a, data.len() as u32)?;
        let (own, w, l) = self.who(t);
        let (phase, wp, cp) = (self.phase, self.warp_phase, self.cluster_phase);
        let gw = own * self.warps + w;
        for (i, &x) in data.iter().enumerate() {
            let c = &mut self.smem[cta as usize][off + i];
            if c.reader != NONE && c.reader != t && c.read_phase == phase {
                let same_warp = c.reader_warp == gw;
                if !same_warp || c.read_warp_phase == wp {
                    return err(format!(
                        "CTA {own} warp {w} lane {l}: stores to scratch byte {} of CTA {cta}, which another thread reads in the same phase (missing barrier before the store?)",
                        off + i
                    ));
                }
            }
            let bit = if cta == own { 1u64 << w } else { REMOTE };
            if c.writer != NONE && c.phase == phase {
                if c.val == x {
                    c.warps |= bit;
                } else {
                    // only this warp stored here in this phase, and this
                    // thread last or after a __syncwarp(): ordered
                    let ordered =
                        c.warps == bit && bit != REMOTE && (c.writer == t || c.warp_phase < wp);
                    if !ordered {
                        return err(format!(
                            "CTA {own} warp {w} lane {l}: two different values stored to scratch byte {} of CTA {cta} before a barrier",
                            off + i
                        ));
                    }
                    c.warps = bit;
                }
            } else {
                c.warps = bit;
            }
            c.val = x;
            c.writer = t;
            c.phase = phase;
            c.warp_phase = wp;
            c.cluster_phase = cp;
        }
        Ok(())
    }

    /// Load `bytes` bytes at scratch address `a` of CTA `cta` by thread `t`.
    fn load(&mut self, t: u32, cta: u32, a: u32, bytes: u32) -> Result<Vec<u64>, InterpError> {
        let off = self.offset(t, a, bytes)?;
        let (own, w, l) = self.who(t);
        let gw = own * self.warps + w;
        let (phase, wp, cp) = (self.phase, self.warp_phase, self.cluster_phase);
        let tpc = self.tpc;
        let mut v = Vec::with_capacity(bytes as usize);
        for i in 0..bytes as usize {
            let c = &mut self.smem[cta as usize][off + i];
            if c.writer == NONE {
                return err(format!(
                    "CTA {own} warp {w} lane {l}: loads scratch byte {} of CTA {cta}, which nothing has written",
                    off + i
                ));
            }
            if c.writer != t {
                let visible = if cta != own || c.warps & REMOTE != 0 {
                    cp > c.cluster_phase
                } else {
                    phase > c.phase || (c.warps >> w & 1 == 1 && wp > c.warp_phase)
                };
                if !visible {
                    return err(format!(
                        "CTA {own} warp {w} lane {l}: loads scratch byte {} of CTA {cta}, whose last store (thread {}) is not visible to it (missing barrier?)",
                        off + i,
                        c.writer % tpc
                    ));
                }
            }
            if c.read_phase != phase || c.reader == NONE {
                c.reader = t;
                c.reader_warp = gw;
                c.read_phase = phase;
                c.read_warp_phase = wp;
            } else {
                if c.reader != t {
                    c.reader = MANY;
                }
                if c.reader_warp != gw {
                    c.reader_warp = MANY;
                }
                c.read_warp_phase = c.read_warp_phase.max(wp);
            }
            v.push(c.val);
        }
        Ok(v)
    }

    /// The scratch offset of address `a` (`bytes` bytes).
    fn offset(&self, t: u32, a: u32, bytes: u32) -> Result<usize, InterpError> {
        let off = a.wrapping_sub(SCRATCH_BASE);
        if a < SCRATCH_BASE
            || off as u64 + bytes as u64 > self.setup.smem_bytes
            || !a.is_multiple_of(bytes.min(16))
        {
            let (c, w, l) = self.who(t);
            return err(format!(
                "CTA {c} warp {w} lane {l}: {bytes}-byte shared access at {a:#x}: misaligned or outside the {}-byte scratch",
                self.setup.smem_bytes
            ));
        }
        Ok(off as usize)
    }

    /// `e` for every thread (unknown bytes where `act` is clear).
    fn eval(&mut self, f: &mut Frame, e: &Expr, act: &[bool]) -> Result<Vec<W>, InterpError> {
        let n = act.len();
        Ok(match e {
            Expr::V(v) => self.get(f, *v)?.clone(),
            Expr::Lit(l) => vec![W::int(l.value() as u64, 4); n],
            Expr::Paren(e) => self.eval(f, e, act)?,
            Expr::CastU32(e) => self
                .eval(f, e, act)?
                .into_iter()
                .map(|w| w.resize(4))
                .collect(),
            Expr::ThreadIdx => (0..n as u32)
                .map(|t| {
                    W::int(
                        (t % self.tpc + self.setup.first_warp * self.lanes) as u64,
                        4,
                    )
                })
                .collect(),
            Expr::Smem => vec![W::int(0, 8); n],
            Expr::SrcPtr(_) | Expr::DstPtr(_) => return err("a pointer outside a call"),
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.eval(f, a, act)?, self.eval(f, b, act)?);
                let mut out = Vec::with_capacity(n);
                for t in 0..n {
                    out.push(if act[t] {
                        bin(*op, a[t], b[t])?
                    } else {
                        W::unknown(4)
                    });
                }
                out
            }
            Expr::Cond(c, a, b) => {
                let c = self.eval(f, c, act)?;
                let (a, b) = (self.eval(f, a, act)?, self.eval(f, b, act)?);
                let mut out = Vec::with_capacity(n);
                for t in 0..n {
                    out.push(if !act[t] {
                        W::unknown(a[t].n)
                    } else if konst(&c[t], "a select's predicate")? != 0 {
                        a[t]
                    } else {
                        b[t]
                    });
                }
                out
            }
            Expr::Call(Func::Shfl(mode), args) => {
                let v = self.eval(f, &args[0], act)?;
                let a = self.eval(f, &args[1], act)?;
                let mut out = Vec::with_capacity(n);
                let lanes = self.lanes as usize;
                for t in 0..n {
                    let base = t - t % lanes;
                    if !act[base..base + lanes].iter().all(|&x| x) {
                        return err(
                            "a shuffle with part of the warp (shfl.sync with the full mask)",
                        );
                    }
                    let l = (t % lanes) as u32;
                    let k = konst(&a[t], "a shuffle's lane argument")? as u32;
                    // shfl.sync of width 32 on NVIDIA; on an AMD wave the
                    // header's ds_bpermute forms with the same rules over
                    // its 64 (or 32) lanes
                    let w = self.lanes;
                    let src = match mode {
                        ShflMode::Idx => k & (w - 1),
                        ShflMode::Bfly => {
                            if (l ^ k) < w {
                                l ^ k
                            } else {
                                l
                            }
                        }
                        ShflMode::Up => l.checked_sub(k).unwrap_or(l),
                        ShflMode::Down => {
                            if l + k < w {
                                l + k
                            } else {
                                l
                            }
                        }
                    };
                    out.push(v[base + src as usize]);
                }
                out
            }
            Expr::Call(func, args) => {
                if matches!(func, Func::LdWord) {
                    let Some(Expr::SrcPtr(e)) = args.first() else {
                        return err("ld_word of something other than the caller's source array");
                    };
                    return caller_word(&f.src, (e * f.eb) as usize, "source");
                }
                let vals: Vec<Vec<W>> = args
                    .iter()
                    .map(|a| self.eval(f, a, act))
                    .collect::<Result<_, _>>()?;
                let mut out = Vec::with_capacity(n);
                for t in 0..n {
                    if !act[t] {
                        out.push(W::unknown(4));
                        continue;
                    }
                    let x: Vec<W> = vals.iter().map(|v| v[t]).collect();
                    out.push(match func {
                        Func::Ld(bytes) => {
                            let addr = self.local_addr(t as u32, &x[0], *bytes)?;
                            let cta = self.who(t as u32).0;
                            let d = self.load(t as u32, cta, addr, *bytes)?;
                            word_of(&d, 0, *bytes)
                        }
                        _ => pure(*func, &x, f.eb)?,
                    });
                }
                out
            }
        })
    }
}

/// A 4-byte word of a caller's array at byte `at`, for every thread.
fn caller_word(arr: &[Vec<u64>], at: usize, side: &str) -> Result<Vec<W>, InterpError> {
    arr.iter()
        .map(|a| {
            if at + 4 > a.len() {
                return err(format!("a natural word past the caller's {side} array"));
            }
            let mut w = W::unknown(4);
            w.b[..4].copy_from_slice(&a[at..at + 4]);
            Ok(w)
        })
        .collect()
}

/// Bytes of a value of type `ty` (`eb`: `sizeof(T)`).
fn ty_bytes(ty: Ty, eb: u32) -> u32 {
    match ty {
        Ty::Bool | Ty::U32 | Ty::Vector => 4,
        Ty::Elem => eb,
    }
}

/// The constant of `w`, or an error naming `what` needed one.
fn konst(w: &W, what: &str) -> Result<u64, InterpError> {
    w.konst().ok_or_else(|| InterpError {
        what: format!("{what} depends on data (or an unknown byte)"),
        at: None,
    })
}

/// Word `k` (zero-extended) of `data`, a `bytes`-byte access.
fn word_of(data: &[u64], k: usize, bytes: u32) -> W {
    let lo = 4 * k;
    let hi = (lo + 4).min(bytes as usize);
    let mut w = W::int(0, 4);
    w.b[..hi - lo].copy_from_slice(&data[lo..hi]);
    w
}

/// The `bytes` bytes a store of `words` writes (low bytes of one word for
/// 1- and 2-byte stores).
fn bytes_of(words: impl Iterator<Item = W>, bytes: u32) -> Vec<u64> {
    let mut v = Vec::with_capacity(bytes as usize);
    for w in words {
        v.extend_from_slice(&w.resize(4).b[..4]);
    }
    v.truncate(bytes as usize);
    v
}

/// A binary operator, byte-exact on data where the operation only moves
/// whole bytes or combines them with zero bytes.
fn bin(op: Op, a: W, b: W) -> Result<W, InterpError> {
    let n = a.n.max(b.n).max(4);
    if let (Some(x), Some(y)) = (a.konst(), b.konst()) {
        let mask = if n == 8 { u64::MAX } else { 0xffff_ffff };
        let r = match op {
            Op::And => x & y,
            Op::Or => x | y,
            Op::Xor => x ^ y,
            Op::Shl => x.checked_shl(y as u32).unwrap_or(0),
            Op::Shr => x.checked_shr(y as u32).unwrap_or(0),
            Op::Add => x.wrapping_add(y),
            Op::Sub => x.wrapping_sub(y),
            Op::Mul => x.wrapping_mul(y),
            Op::Eq => (x == y) as u64,
            Op::Ne => (x != y) as u64,
        } & mask;
        return Ok(W::int(r, n));
    }
    let (a, b) = (a.resize(n), b.resize(n));
    let mut r = W::unknown(n);
    match op {
        Op::And | Op::Or | Op::Xor => {
            for i in 0..n as usize {
                let (x, y) = (a.b[i], b.b[i]);
                r.b[i] = match op {
                    Op::And if x == 0 || y == 0 => 0,
                    Op::And if x == 0xff => y,
                    Op::And if y == 0xff => x,
                    _ if op != Op::And && x == 0 => y,
                    _ if op != Op::And && y == 0 => x,
                    _ if x <= 0xff && y <= 0xff => match op {
                        Op::And => x & y,
                        Op::Or => x | y,
                        _ => x ^ y,
                    },
                    _ => UNKNOWN,
                };
            }
        }
        Op::Shl | Op::Shr => {
            let s = konst(&b, "a shift amount")? as u32;
            if s.is_multiple_of(8) {
                let k = (s / 8) as usize;
                for i in 0..n as usize {
                    r.b[i] = match op {
                        Op::Shl if i >= k => a.b[i - k],
                        Op::Shr if i + k < n as usize => a.b[i + k],
                        _ => 0,
                    };
                }
            }
        }
        _ => {
            return err(format!(
                "data (or an unknown byte) in arithmetic (`{}`)",
                op.c_name()
            ))
        }
    }
    Ok(r)
}

/// A function without effects on one thread's arguments (`eb`: `sizeof(T)`).
fn pure(func: Func, x: &[W], eb: u32) -> Result<W, InterpError> {
    Ok(match func {
        Func::BytePerm => {
            let s = konst(&x[2], "a prmt selector")? as u32;
            let (a, b) = (x[0].resize(4), x[1].resize(4));
            let src = [
                a.b[0], a.b[1], a.b[2], a.b[3], b.b[0], b.b[1], b.b[2], b.b[3],
            ];
            let mut r = W::int(0, 4);
            for i in 0..4 {
                let nib = (s >> (4 * i)) & 0xf;
                let byte = src[(nib & 7) as usize];
                r.b[i] = if nib & 8 == 0 {
                    byte
                } else if byte <= 0xff {
                    if byte & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    UNKNOWN
                };
            }
            r
        }
        Func::Popc => W::int(konst(&x[0], "a popc operand")?.count_ones() as u64, 4),
        Func::ToU32 => x[0].resize(4),
        Func::FromU32 => x[0].resize(4).resize(eb as u8),
        Func::FromU32Vec => x[0].resize(4),
        Func::ToU64 => {
            if x[0].n != 8 {
                return err("to_u64 of an element that is not 8 bytes");
            }
            x[0]
        }
        Func::FromU64 => {
            let (lo, hi) = (x[0].resize(4), x[1].resize(4));
            let mut r = W::int(0, 8);
            r.b[..4].copy_from_slice(&lo.b[..4]);
            r.b[4..8].copy_from_slice(&hi.b[..4]);
            r.resize(eb as u8)
        }
        Func::SmemU32 => W::int(SCRATCH_BASE as u64, 4),
        other => return err(format!("`{}` is not a value", other.c_name())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_moves_are_exact_and_arithmetic_on_data_is_refused() {
        let d = |t: u64, b: u64| SYM | t << 3 | b;
        let w = W {
            b: [d(7, 0), d(7, 1), d(9, 0), d(9, 1), 0, 0, 0, 0],
            n: 4,
        };
        let r = bin(Op::Shr, w, W::int(16, 4)).unwrap();
        assert_eq!(&r.b[..4], &[d(9, 0), d(9, 1), 0, 0]);
        let r = bin(Op::And, w, W::int(0xffff, 4)).unwrap();
        assert_eq!(&r.b[..4], &[d(7, 0), d(7, 1), 0, 0]);
        let r = bin(Op::Shr, w, W::int(4, 4)).unwrap();
        assert!(r.b[..4].iter().all(|&b| b == UNKNOWN));
        assert!(bin(Op::Add, w, W::int(1, 4)).is_err());
        let p = pure(
            Func::BytePerm,
            &[w, W::int(0xaabbccdd, 4), W::int(0x5140, 4)],
            1,
        )
        .unwrap();
        assert_eq!(&p.b[..4], &[d(7, 0), 0xdd, d(7, 1), 0xcc]);
    }
}
