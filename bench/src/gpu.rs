//! Timing on the GPU (DESIGN.md section 7): every candidate's kernel of a
//! conversion in one NVRTC module (modules compile in parallel), launched
//! over `ctas_per_sm` CTAs per SM; two warm-up launches, then `runs`
//! launches enqueued back to back between CUDA events, so the GPU never
//! waits for the host between them; the median is reported. Each output is
//! checked (`out == in ^ (iters & 1)`), so no time is reported for a wrong
//! kernel.

use crate::cases::BenchCase;
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

/// A compiled module of one case.
pub struct Compiled {
    pub cubin: Vec<u8>,
    /// SASS counts per kernel, and the whole `cuobjdump -sass` text (empty
    /// when cuobjdump is missing).
    pub sass: BTreeMap<String, SassCounts>,
    pub sass_text: String,
}

/// Compile every case's module for the GPU of `sm` (in parallel), calling
/// `tick` after each. Errors name the case.
pub fn compile_all(
    cases: &[BenchCase],
    sm: (i32, i32),
    tick: &(dyn Fn() + Sync),
) -> Vec<Result<Compiled>> {
    cases
        .par_iter()
        .map(|c| {
            let r = verify::compile_cubin(&c.source, sm, &[])
                .map_err(|e| anyhow!("{} ({}): {e}", c.name, c.file))
                .map(|cubin| {
                    let (sass_text, sass) = verify::sass_of(&cubin).unwrap_or_default();
                    Compiled {
                        cubin,
                        sass,
                        sass_text,
                    }
                });
            tick();
            r
        })
        .collect()
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

/// Time every candidate of one case; one result per candidate, in order.
pub fn time_case(
    gpu: &Gpu,
    c: &BenchCase,
    m: &Compiled,
    t: &TimingOptions,
) -> Result<Vec<Result<Measured>>> {
    let stream = gpu.ctx.default_stream();
    let module = gpu.ctx.load_module(Ptx::from_binary(m.cubin.clone()))?;
    let bytes = (c.bits / 8) as usize;
    let threads = 32 * c.conv.num_warps;
    let grid = gpu.sms * t.ctas_per_sm;
    let nt = (grid * threads) as usize;
    let regs = c.src_tags[0].len();
    // element i of global thread g at in[i * nt + g], little-endian bits of its tag
    let mut input = vec![0u8; regs * nt * bytes];
    for g in 0..nt {
        for (i, tag) in c.src_tags[g % threads as usize].iter().enumerate() {
            let off = (i * nt + g) * bytes;
            input[off..off + bytes].copy_from_slice(&tag.to_le_bytes()[..bytes]);
        }
    }
    let mut expect = input.clone();
    if t.iters % 2 == 1 {
        for e in expect.chunks_mut(bytes) {
            e[0] ^= 1;
        }
    }
    let din = stream.clone_htod(&input)?;
    let smem_bytes = |h: &kernels::EmittedHelper| h.smem_elems * bytes as u64;
    let mut out = Vec::new();
    for cand in &c.candidates {
        let r = (|| -> Result<Measured> {
            let f = module.load_function(&cand.kernel)?;
            let smem = smem_bytes(&cand.helper).max(smem_bytes(&c.bwd)) as u32;
            if smem > 48 * 1024 {
                f.set_attribute(
                    CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    smem as i32,
                )?;
            }
            let registers = f.get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?;
            let mut dout = stream.alloc_zeros::<u8>(input.len())?;
            let cfg = LaunchConfig {
                grid_dim: (grid, 1, 1),
                block_dim: (threads, 1, 1),
                shared_mem_bytes: smem,
            };
            let iters = t.iters as i32;
            let launch = |dout: &mut cudarc::driver::CudaSlice<u8>| -> Result<()> {
                let mut b = stream.launch_builder(&f);
                b.arg(&din);
                b.arg(dout);
                b.arg(&iters);
                unsafe { b.launch(cfg) }?;
                Ok(())
            };
            launch(&mut dout)?;
            launch(&mut dout)?;
            let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
            let mut evs = Vec::with_capacity(t.runs);
            for _ in 0..t.runs {
                let (s, e) = (gpu.ctx.new_event(flags)?, gpu.ctx.new_event(flags)?);
                s.record(&stream)?;
                launch(&mut dout)?;
                e.record(&stream)?;
                evs.push((s, e));
            }
            stream.synchronize()?;
            let got = stream.clone_dtoh(&dout)?;
            if let Some(k) = (0..got.len()).find(|&k| got[k] != expect[k]) {
                let e = k / bytes;
                bail!(
                    "timing kernel {} output wrong: element {} (register {}, thread {}) byte {} is {:#x}, expected {:#x}",
                    cand.kernel, e, e / nt, e % nt, k % bytes, got[k], expect[k]
                );
            }
            let mut ms: Vec<f64> = evs
                .iter()
                .map(|(s, e)| s.elapsed_ms(e).map(|x| x as f64))
                .collect::<Result<_, _>>()?;
            ms.sort_by(f64::total_cmp);
            let med = ms[ms.len() / 2];
            Ok(Measured {
                ms: med,
                ns: med * 1e6 / t.iters as f64,
                registers,
                sass: m.sass.get(&cand.kernel).cloned(),
            })
        })();
        out.push(r.map_err(|e| anyhow!("{} ({}), {}: {e:#}", c.name, c.file, cand.strategy)));
    }
    Ok(out)
}
