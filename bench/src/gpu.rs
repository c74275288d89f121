//! The GPU timing harness (DESIGN.md section 7): for each conversion and each
//! strategy that applies (shuffle, shared memory), a kernel does `iters`
//! round trips `A -> B`, `+1`, `B -> A` over enough CTAs to fill the GPU;
//! CUDA events time each launch; the median of `runs` launches after warm-up
//! is reported. Every strategy runs in the same harness. The output of every
//! timed kernel is checked (`out == in + iters * runs_total`), so a timing is
//! never reported for a wrong helper.

use anyhow::{anyhow, bail, Result};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use kernels::{emit_bench_kernel, emit_header, emit_helper, fwd_scratch_bytes, EmittedHelper};
use synth::plan::{Conversion, Cost, Kind, StrategyChoice};
use synth::search::{plan_conversion, Weights};

/// One conversion under one strategy, both directions planned.
pub struct Case {
    pub name: String,
    pub strategy: &'static str,
    pub fwd: EmittedHelper,
    pub bwd: EmittedHelper,
    pub cost_fwd: Cost,
    pub cost_bwd: Cost,
    pub kinds: (Kind, Kind),
    /// Tag (row-major element index) of source register `i` of thread `t`
    /// of a CTA, `[t][i]`: copies of one element start equal.
    pub src_tags: Vec<Vec<i32>>,
}

/// A timing result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Timing {
    pub name: String,
    pub strategy: String,
    pub kind_fwd: Kind,
    pub kind_bwd: Kind,
    /// Predicted instructions per thread for one round trip (both directions).
    pub predicted: Cost,
    pub median_ms: f64,
    pub min_ms: f64,
    pub grid: u32,
    pub threads: u32,
    pub iters: u32,
    /// Nanoseconds per round trip per CTA, GPU-wide: `median / (iters * grid)`.
    pub ns_per_round_trip_per_cta: f64,
    /// SASS counts of the whole timing kernel (loop body = one round trip).
    pub sass: Option<verify::SassCounts>,
}

fn reverse(c: &Conversion, name: &str) -> Result<Conversion> {
    Conversion::new(
        name,
        c.dst.clone(),
        c.src.clone(),
        &c.shape,
        c.elem.clone(),
        c.num_warps,
        &c.dst_text,
        &c.src_text,
    )
    .map_err(|e| anyhow!("{e}"))
}

fn renamed(c: &Conversion, name: &str) -> Conversion {
    Conversion {
        name: name.into(),
        ..c.clone()
    }
}

/// Plan both directions of every conversion under each strategy that
/// applies. A conversion that needs no data movement is skipped.
pub fn build_cases(convs: &[Conversion], w: &Weights) -> Result<Vec<Case>> {
    let mut out = Vec::new();
    for c in convs {
        for (strategy, choice) in [
            ("shuffle", StrategyChoice::Shuffle),
            ("shared", StrategyChoice::Shared),
        ] {
            let f = renamed(c, &format!("{}/{strategy}/fwd", c.name));
            let b = reverse(c, &format!("{}/{strategy}/bwd", c.name))?;
            let (Ok(pf), Ok(pb)) = (
                plan_conversion(&f, choice, w),
                plan_conversion(&b, choice, w),
            ) else {
                continue;
            };
            if pf.cost.total() + pb.cost.total() == 0 {
                continue;
            }
            let kinds = (pf.plan.kind, pb.plan.kind);
            // a forced strategy that fell back to renames on both sides is not that strategy
            let want = if strategy == "shuffle" {
                Kind::Shuffle
            } else {
                Kind::Shared
            };
            if kinds.0 != want && kinds.1 != want {
                continue;
            }
            let an = &pf.analysis;
            let src_tags = (0..32 * c.num_warps)
                .map(|t| {
                    (0..an.src_regs())
                        .map(|i| an.src.tag(i as u64, (t % 32) as u64, (t / 32) as u64, 0) as i32)
                        .collect()
                })
                .collect();
            out.push(Case {
                src_tags,
                name: c.name.clone(),
                strategy,
                fwd: emit_helper(&f, &pf)?,
                bwd: emit_helper(&b, &pb)?,
                cost_fwd: pf.cost,
                cost_bwd: pb.cost,
                kinds,
            });
        }
    }
    Ok(out)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Compile all cases into one module (`int` elements) and time each.
pub fn time_cases(
    cases: &[Case],
    iters: u32,
    runs: usize,
    ctas_per_sm: u32,
) -> Result<Vec<Timing>> {
    let gpu = verify::probe_gpu().map_err(|e| anyhow!("{e}"))?;
    let helpers: Vec<EmittedHelper> = cases
        .iter()
        .flat_map(|c| [c.fwd.clone(), c.bwd.clone()])
        .collect();
    let mut src = emit_header(&helpers, "wf-gpu-bench")?;
    let kname = |i: usize| format!("wf_bench_{i}");
    for (i, c) in cases.iter().enumerate() {
        src.push_str(&emit_bench_kernel(&c.fwd, &c.bwd, "int", 4, &kname(i))?);
    }
    let cubin = verify::compile_cubin(&src, gpu.sm, &[]).map_err(|e| anyhow!("{e}"))?;
    let sass = verify::sass_of(&cubin).map(|(_, m)| m);
    let ctx = CudaContext::new(0)?;
    let sms = ctx.attribute(
        cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    )? as u32;
    let stream = ctx.default_stream();
    let module = ctx.load_module(Ptx::from_binary(cubin))?;
    let mut out = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let f = module.load_function(&kname(i))?;
        let smem = (fwd_scratch_bytes(&c.fwd, 4) + c.bwd.smem_elems * 4) as u32;
        if smem > 48 * 1024 {
            f.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                smem as i32,
            )?;
        }
        let threads = c.fwd.threads;
        let grid = sms * ctas_per_sm;
        let nt = (grid * threads) as usize;
        let ra = c.fwd.src_regs as usize;
        let mut input = vec![0i32; ra * nt];
        for g in 0..nt {
            for i in 0..ra {
                input[i * nt + g] = c.src_tags[g % threads as usize][i];
            }
        }
        let din = stream.clone_htod(&input)?;
        let mut dout = stream.alloc_zeros::<i32>(input.len())?;
        let cfg = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: smem,
        };
        let launch = |dout: &mut cudarc::driver::CudaSlice<i32>| -> Result<()> {
            let mut b = stream.launch_builder(&f);
            let it = iters as i32;
            b.arg(&din);
            b.arg(dout);
            b.arg(&it);
            unsafe { b.launch(cfg) }?;
            Ok(())
        };
        for _ in 0..3 {
            launch(&mut dout)?;
        }
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start =
                ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
            let end = ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
            start.record(&stream)?;
            launch(&mut dout)?;
            end.record(&stream)?;
            times.push(start.elapsed_ms(&end)? as f64);
        }
        stream.synchronize()?;
        let got = stream.clone_dtoh(&dout)?;
        // the tile goes A -> B -> A with +1 per round trip: every slot of A
        // ends as its input plus `iters`, wherever broadcast copies live.
        let total = iters as i32;
        if let Some((k, (g, x))) = got
            .iter()
            .zip(&input)
            .enumerate()
            .find(|(_, (g, x))| **g != **x + total)
        {
            bail!(
                "{} ({}): timing kernel output wrong at {k}: {g} != {x} + {iters}",
                c.name,
                c.strategy
            );
        }
        let med = median(&mut times.clone());
        let min = times.iter().cloned().fold(f64::INFINITY, f64::min);
        out.push(Timing {
            name: c.name.clone(),
            strategy: c.strategy.to_string(),
            kind_fwd: c.kinds.0,
            kind_bwd: c.kinds.1,
            predicted: c.cost_fwd + c.cost_bwd,
            median_ms: med,
            min_ms: min,
            grid,
            threads,
            iters,
            ns_per_round_trip_per_cta: med * 1e6 / (iters as f64 * grid as f64),
            sass: sass.as_ref().and_then(|m| m.get(&kname(i)).cloned()),
        });
    }
    Ok(out)
}

/// A markdown table of timings, with each strategy's time relative to the
/// fastest for the same conversion.
pub fn markdown(timings: &[Timing], gpu: &str) -> String {
    let mut s = format!(
        "GPU: {gpu}. `int` elements; each kernel does `iters` round trips A -> B, +1, B -> A; \
         median of the timed launches.\n\n| conversion | strategy | kinds (fwd/bwd) | predicted per round trip | SASS in kernel (SHFL/SEL/STS/LDS/BAR) | median ms | ns per round trip per CTA | vs fastest |\n|---|---|---|---|---|---|---|---|\n"
    );
    for t in timings {
        let best = timings
            .iter()
            .filter(|u| u.name == t.name)
            .map(|u| u.median_ms)
            .fold(f64::INFINITY, f64::min);
        let sass = t
            .sass
            .as_ref()
            .map(|c| {
                let k = &c.classes;
                format!("{}/{}/{}/{}/{}", k.shfl, k.sel, k.sts, k.lds, k.bar)
            })
            .unwrap_or_else(|| "-".into());
        s += &format!(
            "| {} | {} | {}/{} | {} | {} | {:.3} | {:.2} | {:.2}x |\n",
            t.name,
            t.strategy,
            t.kind_fwd.as_str(),
            t.kind_bwd.as_str(),
            t.predicted,
            sass,
            t.median_ms,
            t.ns_per_round_trip_per_cta,
            t.median_ms / best
        );
    }
    s
}
