//! Checking one case on the GPU: tagged inputs (the row-major index of the
//! element every source slot holds, one slice of its bits per launch), the
//! launch, and every destination slot compared with the tag it should hold.

use crate::launch::{launch_narrow, LaunchShape};
use crate::{cluster_ctas, CaseResult, DType, GpuCase, VerifyError};
use std::sync::Arc;
use synth::plan::Analysis;

/// Run the check kernel `f` of case `c` with element type `d` (`smem_bytes`
/// of dynamic shared memory): one launch per slice of `d`'s width of the
/// tags ([`Analysis::tensor_bits`] over `d.bits()` passes, at least one),
/// every destination slot of every thread compared with its expected tag.
/// The result has the counts and the first mismatch; the caller fills in
/// the form, SASS and register figures.
pub(crate) fn run_case(
    stream: &Arc<cudarc::driver::CudaStream>,
    f: &cudarc::driver::CudaFunction,
    c: &GpuCase,
    d: DType,
    smem_bytes: u32,
) -> Result<CaseResult, VerifyError> {
    let an = c.analysis;
    let warps = 1u32 << an.src.hw.warp;
    let blocks = 1u32 << an.src.hw.block;
    let threads = warps * 32;
    let nt = (threads * blocks) as usize;
    let bits = d.bits();
    let passes = (an.tensor_bits as u32).div_ceil(bits).max(1);
    let shape = LaunchShape {
        out_len: an.dst_regs() as usize * nt,
        blocks,
        // the helper's warp group, and the other group its check kernel
        // runs beside it where it synchronises with a named barrier
        threads: threads + kernels::other_group_threads(&c.helper),
        smem_bytes,
        cluster: cluster_ctas(an),
    };
    let mut tally = Tally::default();
    for pass in 0..passes {
        let slice = TagSlice::new(pass, bits);
        let input = source_tags(an, threads, nt, slice);
        let got = launch_tags(stream, f, bits, &input, &shape)?;
        compare_pass(an, threads, nt, slice, &got, &mut tally);
    }
    Ok(CaseResult {
        name: c.helper.name.clone(),
        ident: c.helper.ident.clone(),
        dtype: d,
        form: "elements",
        ctype: String::new(),
        passes,
        slots_checked: tally.slots,
        mismatches: tally.mismatches,
        first_error: tally.first_error,
        sass: None,
        registers: None,
        loop_kernel: None,
        data_regs: 0,
        reg_limit: 0,
        max_registers: None,
        threads: c.helper.threads,
        check_threads: c.helper.threads + kernels::other_group_threads(&c.helper),
        compiled_only: false,
        kernels: Default::default(),
        occupancy_spill: Vec::new(),
    })
}

/// The bits of the tags one pass moves: `pass` of the slices of the
/// element width (`shift` the slice's lowest bit, `mask` its width).
#[derive(Clone, Copy)]
struct TagSlice {
    pass: u32,
    shift: u32,
    mask: u64,
}

impl TagSlice {
    /// Slice `pass` of an element of `bits` bits.
    fn new(pass: u32, bits: u32) -> TagSlice {
        let mask: u64 = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        TagSlice {
            pass,
            shift: pass * bits,
            mask,
        }
    }
}

/// What the comparisons of a case found so far.
#[derive(Default)]
struct Tally {
    slots: u64,
    mismatches: u64,
    /// The first mismatch, described.
    first_error: Option<String>,
}

/// Block, warp and lane of global thread `t` with `threads` threads per CTA.
fn thread_coords(t: usize, threads: u32) -> (u32, u32, u32) {
    (t as u32 / threads, (t as u32 % threads) / 32, t as u32 % 32)
}

/// The input of one pass: for each of the `nt` threads (CTAs of `threads`)
/// and each of its source registers, the `slice` of the tag of the element
/// the source layout puts there.
fn source_tags(an: &Analysis, threads: u32, nt: usize, slice: TagSlice) -> Vec<u64> {
    let ra = an.src_regs() as usize;
    let mut input = vec![0u64; ra * nt];
    for t in 0..nt {
        let (b, w, l) = thread_coords(t, threads);
        for i in 0..ra {
            input[t * ra + i] =
                (an.src.tag(i as u64, l as u64, w as u64, b as u64) >> slice.shift) & slice.mask;
        }
    }
    input
}

/// Launch the check kernel `f` on `input`, moved as unsigned elements of
/// `bits` bits; the output widened back to 64-bit tags.
fn launch_tags(
    stream: &Arc<cudarc::driver::CudaStream>,
    f: &cudarc::driver::CudaFunction,
    bits: u32,
    input: &[u64],
    shape: &LaunchShape,
) -> Result<Vec<u64>, VerifyError> {
    match bits / 8 {
        1 => launch_narrow::<u8>(stream, f, input, shape),
        2 => launch_narrow::<u16>(stream, f, input, shape),
        4 => launch_narrow::<u32>(stream, f, input, shape),
        _ => launch_narrow::<u64>(stream, f, input, shape),
    }
}

/// Compare what one pass returned (`got`, each thread's destination
/// registers in order) with the `slice` of the tag of the element the
/// destination layout puts in each slot, into `tally`.
fn compare_pass(
    an: &Analysis,
    threads: u32,
    nt: usize,
    slice: TagSlice,
    got: &[u64],
    tally: &mut Tally,
) {
    let rb = an.dst_regs() as usize;
    let TagSlice { pass, shift, mask } = slice;
    for t in 0..nt {
        let (b, w, l) = thread_coords(t, threads);
        for j in 0..rb {
            let want = (an.dst.tag(j as u64, l as u64, w as u64, b as u64) >> shift) & mask;
            let g = got[t * rb + j];
            tally.slots += 1;
            if g != want {
                tally.mismatches += 1;
                if tally.first_error.is_none() {
                    tally.first_error = Some(format!(
                        "pass {pass}: block {b} warp {w} lane {l} register {j}: got {g:#x}, expected {want:#x} (tag bits {shift}..)"
                    ));
                }
            }
        }
    }
}
