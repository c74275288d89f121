//! Timing on the GPU (docs/ARCHITECTURE.md section 7): every candidate's kernel of a
//! conversion in one NVRTC module (modules compile in parallel), launched
//! over `ctas_per_sm` CTAs per SM, with Triton's loop kernel of the same
//! conversion in the same rounds (see [`time_case`]); the median of `runs`
//! launches is reported. Each output is checked (`out == in ^ (iters &
//! 1)`), so no time is reported for a wrong kernel.

use crate::cases::BenchCase;
use crate::triton::TritonKernel;
use anyhow::{anyhow, bail, Result};
use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUfunction_attribute};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use rayon::prelude::*;
use std::collections::BTreeMap;
use verify::SassCounts;

/// Loop shape and repetitions, the same for warpforge and Triton.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct TimingOptions {
    /// Round trips per launch.
    pub iters: u32,
    /// Timed launches (median reported).
    pub runs: usize,
    /// CTAs per SM in the grid.
    pub ctas_per_sm: u32,
}

/// One timed kernel.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Measured {
    /// Median launch time, milliseconds.
    pub ms: f64,
    /// GPU-wide nanoseconds per round trip: `ms * 1e6 / iters`.
    pub ns: f64,
    /// Registers per thread of the timing kernel.
    pub registers: i32,
    /// SASS counts of the whole timing kernel (one round trip in its loop).
    pub sass: Option<SassCounts>,
}

/// A case's compiled modules: one per timing kernel, compiled in parallel
/// ([`compile_all`]).
pub struct Compiled {
    /// One CUBIN per module.
    pub cubins: Vec<Vec<u8>>,
    /// The module (index into `cubins`) of each timing kernel.
    pub module_of: BTreeMap<String, usize>,
    /// SASS counts per kernel, and the whole `cuobjdump -sass` text of
    /// every module, in order (empty when cuobjdump is missing).
    pub sass: BTreeMap<String, SassCounts>,
    pub sass_text: String,
}

/// Compile every case's timing kernels for the GPU of `sm`, calling `tick`
/// after each case. Each timing kernel is its own module: the case's
/// includes, the header of the helpers that kernel calls alone, and the
/// kernel, as a helper sits in a user's kernel. Its SASS therefore depends
/// on neither the other candidates of its case nor the host's core count
/// (NVVM compiles a kernel differently beside other kernels calling the
/// same helpers), and every module of every case compiles in parallel, so
/// that one large case (a one-warp tile with a hundred candidates) does not
/// compile on one core while the others wait. A case without timing kernels
/// compiles its whole source as one module. Errors name the case and the
/// kernel, and how many more of its kernels failed.
pub fn compile_all(
    cases: &[BenchCase],
    sm: (i32, i32),
    tick: &(dyn Fn() + Sync),
) -> Vec<Result<Compiled>> {
    // per case: the span of each module (`None`: the whole source)
    let members: Vec<Vec<Option<usize>>> = cases
        .iter()
        .map(|c| {
            if c.spans.is_empty() {
                vec![None]
            } else {
                (0..c.spans.len()).map(Some).collect()
            }
        })
        .collect();
    let module_source = |c: &BenchCase, k: Option<usize>| -> Result<String> {
        let Some(k) = k else {
            return Ok(c.source.clone());
        };
        let span = &c.spans[k];
        let helpers: Vec<kernels::EmittedHelper> =
            span.helpers.iter().map(|&h| c.helpers[h].clone()).collect();
        let header = kernels::emit_header(&helpers, &c.origin)
            .map_err(|e| anyhow!("{} ({}): the header of {}: {e}", c.name, c.file, span.name))?;
        let mut src = c.includes.clone();
        src.push_str(&header);
        src.push_str(&c.source[span.range.clone()]);
        Ok(src)
    };
    let jobs: Vec<(usize, usize)> = members
        .iter()
        .enumerate()
        .flat_map(|(ci, ms)| (0..ms.len()).map(move |mi| (ci, mi)))
        .collect();
    let left: Vec<std::sync::atomic::AtomicUsize> = members
        .iter()
        .map(|m| std::sync::atomic::AtomicUsize::new(m.len()))
        .collect();
    type Module = (Vec<u8>, String, BTreeMap<String, SassCounts>);
    let mut done: Vec<(usize, usize, Result<Module>)> =
        jobs.into_par_iter()
            .map(|(ci, mi)| {
                let c = &cases[ci];
                let r = module_source(c, members[ci][mi]).and_then(|src| {
                    let cubin = verify::compile_cubin(&src, sm, &verify::cuda_include_dirs())
                        .map_err(|e| match members[ci][mi] {
                            Some(k) => {
                                anyhow!("{} ({}), kernel {}: {e}", c.name, c.file, c.spans[k].name)
                            }
                            None => anyhow!("{} ({}): {e}", c.name, c.file),
                        })?;
                    let (text, sass) = verify::sass_of(&cubin).unwrap_or_default();
                    Ok((cubin, text, sass))
                });
                if left[ci].fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1 {
                    tick();
                }
                (ci, mi, r)
            })
            .collect();
    done.sort_by_key(|d| (d.0, d.1));
    let mut out: Vec<Result<Compiled>> = Vec::with_capacity(cases.len());
    let mut it = done.into_iter().peekable();
    for (ci, c) in cases.iter().enumerate() {
        let mut compiled = Compiled {
            cubins: Vec::new(),
            module_of: BTreeMap::new(),
            sass: BTreeMap::new(),
            sass_text: String::new(),
        };
        let mut errors = Vec::new();
        while let Some((_, mi, r)) = it.next_if(|d| d.0 == ci) {
            match r {
                Ok((cubin, text, sass)) => {
                    compiled.sass.extend(sass);
                    compiled.sass_text.push_str(&text);
                    if let Some(k) = members[ci][mi] {
                        compiled
                            .module_of
                            .insert(c.spans[k].name.clone(), compiled.cubins.len());
                    }
                    compiled.cubins.push(cubin);
                }
                Err(e) => errors.push(e),
            }
        }
        // the first failing kernel in order is the case's error
        let n = errors.len();
        out.push(match errors.into_iter().next() {
            Some(e) if n > 1 => Err(anyhow!(
                "{e} (and {} more kernel(s) of this case failed)",
                n - 1
            )),
            Some(e) => Err(e),
            None => Ok(compiled),
        });
    }
    out
}

/// The GPU-wide context: one device, its SM count.
pub struct Gpu {
    pub ctx: std::sync::Arc<CudaContext>,
    pub sms: u32,
}

impl Gpu {
    /// Open device 0.
    pub fn open() -> Result<Gpu> {
        let ctx = CudaContext::new(0)?;
        let sms =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        Ok(Gpu { ctx, sms })
    }
}

/// A case's times.
pub struct CaseTimes {
    /// One per candidate, in order.
    pub candidates: Vec<Result<Measured>>,
    /// Triton's loop kernel's, when it was in the rounds.
    pub triton: Option<Result<Measured>>,
    /// The global-memory baseline's (cluster cases,
    /// [`BenchCase::global_kernel`]).
    pub global: Option<Result<Measured>>,
    /// One per limit kernel ([`BenchCase::limits`]), in order.
    pub limits: Vec<Result<Measured>>,
}

/// One kernel in a case's timing rounds.
struct Timed {
    f: cudarc::driver::CudaFunction,
    cfg: LaunchConfig,
    /// Null pointers appended after `(in, out, iters)` (Triton's hidden
    /// scratch parameters; 0 for warpforge's kernels).
    hidden_ptrs: usize,
    /// Bytes of the output the kernel writes, checked against the input
    /// with bit 0 of every element flipped `iters` times.
    checked: usize,
    registers: i32,
    sass: Option<SassCounts>,
    name: String,
    /// CTAs per cluster (1: a plain launch).
    cluster: u32,
    /// Bytes of a global scratch buffer passed after `iters` (the
    /// global-memory baseline's), 0 for none.
    global_bytes: usize,
    /// What the first `checked` bytes of the output must be, where it is
    /// not the input with bit 0 of every element flipped `iters` times (a
    /// limit kernel's, [`kernels::LimitKernel::expected`]).
    expect: Option<Vec<u8>>,
}

/// A limit kernel's output after `iters` round trips over `input`
/// (`grid` CTAs), as [`kernels::LimitKernel::expected`] models it: word
/// `k` of thread `t` of CTA `c` at word `(c * words + k) * threads + t`.
fn limit_expected(k: &kernels::LimitKernel, input: &[u8], grid: usize, iters: u32) -> Vec<u8> {
    let map = k.expected(iters);
    let (wn, tn, cn) = (k.words as usize, k.threads as usize, k.ctas as usize);
    let word = |i: usize| u32::from_le_bytes(input[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    let mut out = vec![0u8; grid * wn * tn * 4];
    // clusters of `cn` consecutive CTAs (the grid is whole clusters)
    for g in 0..grid / cn {
        for (s, &(src, flip)) in map.iter().enumerate() {
            let (ct, kk) = (s / wn, s % wn);
            let (c, t) = (g * cn + ct / tn, ct % tn);
            let v = src.map_or(0, |q| {
                let (qct, qk) = (q as usize / wn, q as usize % wn);
                let (qc, qt) = (g * cn + qct / tn, qct % tn);
                word((qc * wn + qk) * tn + qt)
            }) ^ if flip { k.xor_of(kk as u32) } else { 0 };
            let at = ((c * wn + kk) * tn + t) * 4;
            out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// Time every candidate of one case, and Triton's loop kernel when given,
/// in the same rounds: all kernels read the same input; after two warm-up
/// launches of each, every one of `runs` rounds launches each kernel once,
/// between its own pair of CUDA events, alternating the order (forward,
/// then backward) so that no kernel always follows the same one; all are
/// enqueued back to back, so the GPU never waits for the host. A drift of
/// the GPU's clock or temperature over the run then weighs on every kernel
/// alike. Each kernel's median is reported; a candidate whose output is
/// wrong has no time. Returns one result per candidate, in order, and
/// Triton's.
pub fn time_case(
    gpu: &Gpu,
    c: &BenchCase,
    m: &Compiled,
    t: &TimingOptions,
    triton: Option<&TritonKernel>,
) -> Result<CaseTimes> {
    let stream = gpu.ctx.default_stream();
    let modules = m
        .cubins
        .iter()
        .map(|c| gpu.ctx.load_module(Ptx::from_binary(c.clone())))
        .collect::<Result<Vec<_>, _>>()?;
    let bytes = (c.bits / 8) as usize;
    let threads = 32 * c.conv.num_warps;
    // whole clusters: the grid is a multiple of the cluster's CTAs
    let grid = (gpu.sms * t.ctas_per_sm / c.ctas).max(1) * c.ctas;
    let nt = (grid * threads) as usize;
    let regs = c.src_tags[0].len();
    let cluster_threads = c.src_tags.len();
    let th = threads as usize;
    // CTA-blocked, as the timing kernels address it: element i of thread t
    // of CTA b at in[(b * regs + i) * threads + t], little-endian bits of its
    // tag (of its thread in its cluster)
    let at = |g: usize, i: usize| ((g / th) * regs + i) * th + g % th;
    // limit kernels read words of their own tiles: the input covers the
    // largest (bytes past the elements' tags hold a fixed pattern)
    let limit_len = c
        .limits
        .iter()
        .map(|k| k.words as usize * 4 * nt)
        .max()
        .unwrap_or(0);
    let mut input: Vec<u8> = (0..(regs * nt * bytes).max(limit_len))
        .map(|i| (i as u32).wrapping_mul(0x9e37_79b1).to_le_bytes()[3])
        .collect();
    for g in 0..nt {
        for (i, tag) in c.src_tags[g % cluster_threads].iter().enumerate() {
            let off = at(g, i) * bytes;
            input[off..off + bytes].copy_from_slice(&tag.to_le_bytes()[..bytes]);
        }
    }
    let mut expect = input[..regs * nt * bytes].to_vec();
    if t.iters % 2 == 1 {
        for e in expect.chunks_mut(bytes) {
            e[0] ^= 1;
        }
    }
    let din = stream.clone_htod(&input)?;
    let len = regs * nt * bytes;
    // the scratch of this element width (rounds are chosen per width)
    let smem_bytes = |h: &kernels::EmittedHelper| {
        h.smem_bytes(bytes as u32 * 8)
            .unwrap_or(h.smem_elems * bytes as u64)
    };
    let set_smem = |f: &cudarc::driver::CudaFunction, smem: u32| -> Result<()> {
        if smem > 48 * 1024 {
            f.set_attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                smem as i32,
            )?;
        }
        Ok(())
    };
    // a kernel of the case's own module: `threads` per CTA, `smem` bytes of
    // scratch, launched in clusters of `cluster` CTAs; its output checked
    // against `expect` (its first bytes), else the round trip's
    let own = |name: &str,
               smem: u32,
               cluster: u32,
               global_bytes: usize,
               expect: Option<Vec<u8>>|
     -> Result<Timed> {
        let at = *m.module_of.get(name).ok_or_else(|| {
            anyhow!(
                "{}: kernel {name} is in none of its compiled modules",
                c.name
            )
        })?;
        let f = modules[at].load_function(name)?;
        set_smem(&f, smem)?;
        verify::allow_cluster_size(&f, cluster)?;
        Ok(Timed {
            registers: f.get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            f,
            cfg: LaunchConfig {
                grid_dim: (grid, 1, 1),
                block_dim: (threads, 1, 1),
                shared_mem_bytes: smem,
            },
            hidden_ptrs: 0,
            checked: expect.as_ref().map_or(len, Vec::len),
            sass: m.sass.get(name).cloned(),
            name: name.to_string(),
            cluster,
            global_bytes,
            expect,
        })
    };
    // one slot per candidate, then Triton's: the kernel, or why it has none
    let mut slots: Vec<Result<Timed>> = Vec::new();
    for cand in &c.candidates {
        let smem = smem_bytes(&cand.helper).max(smem_bytes(&cand.bwd)) as u32;
        slots.push(own(&cand.kernel, smem, c.ctas, 0, None));
    }
    let n_cands = slots.len();
    let triton_module = triton.map(|k| gpu.ctx.load_module(Ptx::from_binary(k.cubin.clone())));
    if let (Some(k), Some(tm)) = (triton, triton_module) {
        slots.push((|| -> Result<Timed> {
            if k.ctas > 1 {
                bail!(
                    "Triton lowered this conversion over {} CTAs; launching its cluster kernel from bench is not supported",
                    k.ctas
                );
            }
            let f = tm?.load_function(&k.name)?;
            set_smem(&f, k.shared)?;
            let elems: usize = c.conv.shape.iter().map(|&d| d as usize).product();
            let checked = grid as usize * elems * bytes;
            if checked > len {
                bail!("Triton's loop kernel reads {checked} bytes, the input has {len}");
            }
            Ok(Timed {
                registers: f.get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
                f,
                cfg: LaunchConfig {
                    grid_dim: (grid, 1, 1),
                    block_dim: (32 * k.warps, 1, 1),
                    shared_mem_bytes: k.shared,
                },
                hidden_ptrs: k.hidden_ptrs,
                checked,
                sass: None,
                name: k.name.clone(),
                cluster: 1,
                global_bytes: 0,
                expect: None,
            })
        })());
    }
    let has_triton = slots.len() > n_cands;
    if let Some(gk) = &c.global_kernel {
        let elems: usize = c.conv.shape.iter().map(|&d| d as usize).product();
        let global_bytes = (grid / c.ctas) as usize * elems * bytes;
        slots.push(own(gk, 0, c.ctas, global_bytes, None));
    }
    let n_before_limits = slots.len();
    for k in &c.limits {
        let expect = limit_expected(k, &input, grid as usize, t.iters);
        slots.push(own(&k.name, k.smem_bytes(), k.ctas, 0, Some(expect)));
    }
    let live: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_ok()).collect();
    let timed: Vec<&Timed> = live
        .iter()
        .map(|&i| slots[i].as_ref().expect("live"))
        .collect();
    let mut outs = timed
        .iter()
        .map(|_| stream.alloc_zeros::<u8>(input.len()))
        .collect::<Result<Vec<_>, _>>()?;
    let globals = timed
        .iter()
        .map(|k| stream.alloc_zeros::<u8>(k.global_bytes.max(1)))
        .collect::<Result<Vec<_>, _>>()?;
    let iters = t.iters as i32;
    let null = 0u64;
    let launch = |j: usize, dout: &mut cudarc::driver::CudaSlice<u8>| -> Result<()> {
        let k = timed[j];
        if k.cluster > 1 {
            use cudarc::driver::{DevicePtr, DevicePtrMut};
            let (mut pin, _g0) = din.device_ptr(&stream);
            let (mut pout, _g1) = dout.device_ptr_mut(&stream);
            let (mut pg, _g2) = globals[j].device_ptr(&stream);
            let mut it = iters;
            let mut params: Vec<*mut std::ffi::c_void> = vec![
                &mut pin as *mut _ as *mut _,
                &mut pout as *mut _ as *mut _,
                &mut it as *mut _ as *mut _,
            ];
            if k.global_bytes > 0 {
                params.push(&mut pg as *mut _ as *mut _);
            }
            // SAFETY: the parameters are (in, out, iters[, g]) as the
            // kernels declare them, alive until the launch returns
            unsafe {
                verify::launch_cluster(
                    &stream,
                    &k.f,
                    k.cfg.grid_dim.0,
                    k.cfg.block_dim.0,
                    k.cfg.shared_mem_bytes,
                    k.cluster,
                    &mut params,
                )
            }?;
            return Ok(());
        }
        let mut b = stream.launch_builder(&k.f);
        b.arg(&din);
        b.arg(dout);
        b.arg(&iters);
        for _ in 0..k.hidden_ptrs {
            b.arg(&null);
        }
        unsafe { b.launch(k.cfg) }?;
        Ok(())
    };
    // a launch that fails leaves the context unusable: the whole case fails
    for _ in 0..2 {
        for (j, dout) in outs.iter_mut().enumerate() {
            launch(j, dout)?;
        }
    }
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let mut evs: Vec<Vec<_>> = timed.iter().map(|_| Vec::with_capacity(t.runs)).collect();
    for r in 0..t.runs {
        let order: Vec<usize> = if r % 2 == 0 {
            (0..timed.len()).collect()
        } else {
            (0..timed.len()).rev().collect()
        };
        for j in order {
            let (s, e) = (gpu.ctx.new_event(flags)?, gpu.ctx.new_event(flags)?);
            s.record(&stream)?;
            launch(j, &mut outs[j])?;
            e.record(&stream)?;
            evs[j].push((s, e));
        }
    }
    stream.synchronize()?;
    let mut results: Vec<Option<Result<Measured>>> = slots
        .iter()
        .map(|s| s.as_ref().err().map(|e| Err(anyhow!("{e:#}"))))
        .collect();
    for (j, &i) in live.iter().enumerate() {
        let k = timed[j];
        let r = (|| -> Result<Measured> {
            let got = stream.clone_dtoh(&outs[j])?;
            let expect = k.expect.as_deref().unwrap_or(&expect);
            if let Some(x) = (0..k.checked).find(|&x| got[x] != expect[x]) {
                let e = x / bytes;
                // warpforge's kernels address CTA-blocked; Triton's (hidden
                // pointers) a row-major tile per program
                let at = if k.expect.is_some() {
                    format!("word {} byte {}", x / 4, x % 4)
                } else if k.hidden_ptrs > 0 {
                    format!("element {e} byte {}", x % bytes)
                } else {
                    format!(
                        "element {e} (register {}, thread {} of CTA {}) byte {}",
                        (e / th) % regs,
                        e % th,
                        e / th / regs,
                        x % bytes
                    )
                };
                bail!(
                    "timing kernel {} output wrong: {at} is {:#x}, expected {:#x}",
                    k.name,
                    got[x],
                    expect[x]
                );
            }
            let mut ms: Vec<f64> = evs[j]
                .iter()
                .map(|(s, e)| s.elapsed_ms(e).map(|x| x as f64))
                .collect::<Result<_, _>>()?;
            ms.sort_by(f64::total_cmp);
            let med = ms[ms.len() / 2];
            Ok(Measured {
                ms: med,
                ns: med * 1e6 / t.iters as f64,
                registers: k.registers,
                sass: k.sass.clone(),
            })
        })();
        results[i] = Some(r);
    }
    let mut results: Vec<Result<Measured>> = results
        .into_iter()
        .map(|r| r.expect("every slot has a result"))
        .collect();
    let limits = results.split_off(n_before_limits);
    let global = c
        .global_kernel
        .as_ref()
        .map(|_| results.pop().expect("the global baseline's slot"));
    let tri = has_triton.then(|| results.pop().expect("Triton's slot"));
    let cands = results
        .into_iter()
        .zip(&c.candidates)
        .map(|(r, cand)| {
            r.map_err(|e| anyhow!("{} ({}), {}: {e:#}", c.name, c.file, cand.strategy))
        })
        .collect();
    Ok(CaseTimes {
        candidates: cands,
        triton: tri,
        global,
        limits,
    })
}
