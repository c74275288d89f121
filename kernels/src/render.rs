use crate::{EmitError, EmittedHelper};
use minijinja::{context, Environment};

pub(crate) const HEADER: &str = include_str!("../templates/header.cuh.j2");
const HELPER: &str = include_str!("../templates/helper.cuh.j2");
const TEST_KERNEL: &str = include_str!("../templates/test_kernel.cu.j2");
const BENCH_KERNEL: &str = include_str!("../templates/bench_kernel.cu.j2");
const TEST_KERNEL_PACKED: &str = include_str!("../templates/test_kernel_packed.cu.j2");
const BENCH_KERNEL_PACKED: &str = include_str!("../templates/bench_kernel_packed.cu.j2");
const BENCH_KERNEL_GLOBAL: &str = include_str!("../templates/bench_kernel_global.cu.j2");
const BENCH_KERNEL_LIMIT: &str = include_str!("../templates/bench_kernel_limit.cu.j2");
const LOOP_KERNEL: &str = include_str!("../templates/loop_kernel.cu.j2");
const CUTE_HELPER: &str = include_str!("../templates/cute_helper.cuh.j2");

/// `(word, [register of slot 0, slot 1, ...])` for every word of a packed
/// array of `regs` elements.
pub(crate) fn word_regs(
    m: &synth::plan::pack::PackMap,
    regs: u32,
    bits: u32,
) -> Vec<(u32, Vec<u32>)> {
    let p = 32 / bits;
    (0..regs / p)
        .map(|w| (w, (0..p).map(|s| m.register(w, s)).collect()))
        .collect()
}

pub(crate) fn env() -> Environment<'static> {
    let mut e = Environment::new();
    for (name, source) in [
        ("header", HEADER),
        ("helper", HELPER),
        ("test_kernel", TEST_KERNEL),
        ("bench_kernel", BENCH_KERNEL),
        ("test_kernel_packed", TEST_KERNEL_PACKED),
        ("bench_kernel_packed", BENCH_KERNEL_PACKED),
        ("loop_kernel", LOOP_KERNEL),
        ("bench_kernel_global", BENCH_KERNEL_GLOBAL),
        ("bench_kernel_limit", BENCH_KERNEL_LIMIT),
        ("cute", crate::cute::CUTE),
        ("cute_helper", CUTE_HELPER),
    ] {
        // the templates are compiled in: a parse error is a build defect
        e.add_template(name, source)
            .unwrap_or_else(|err| panic!("template {name} does not parse: {err}"));
    }
    e
}

/// The verification kernel wrapping `h` for element type `ctype`, named
/// `kernel` (`extern "C"`, arguments `(const T* in, T* out)`).
pub fn emit_test_kernel(h: &EmittedHelper, ctype: &str, kernel: &str) -> Result<String, EmitError> {
    test_kernel(h, ctype, kernel, false, None)
}

/// [`emit_test_kernel`] with the element form's `warpforge::words` choice
/// named (`none`, `src`, `dst` or `both`: which arrays move as natural 32-bit
/// words); the kernel loads (stores) an array held as words by words, as a
/// caller that names the choice holds it (read element by element, NVVM
/// kept part of a 128-element `dst` written by words in local memory:
/// `matmul:75`, 2 LDL + 2 STL at 40 registers on an H100). `None` when the
/// helper's element form for `ctype`'s width (`bits`) takes no such choice
/// ([`EmittedHelper::takes_words`]).
pub fn emit_test_kernel_words(
    h: &EmittedHelper,
    ctype: &str,
    bits: u32,
    kernel: &str,
    words: &str,
) -> Result<Option<String>, EmitError> {
    if !h.takes_words(bits) {
        return Ok(None);
    }
    test_kernel(h, ctype, kernel, false, Some((words, bits))).map(Some)
}

/// [`emit_test_kernel`] through the in-place form `<ident>_inplace` (one
/// array: the source on entry, the destination on return); `None` when the
/// helper has none (source and destination registers differ).
pub fn emit_test_kernel_inplace(
    h: &EmittedHelper,
    ctype: &str,
    kernel: &str,
) -> Result<Option<String>, EmitError> {
    if !h.has_inplace() {
        return Ok(None);
    }
    test_kernel(h, ctype, kernel, true, None).map(Some)
}

fn test_kernel(
    h: &EmittedHelper,
    ctype: &str,
    kernel: &str,
    inplace: bool,
    words: Option<(&str, u32)>,
) -> Result<String, EmitError> {
    // an array held as words is loaded (stored) by words, as the caller
    // that names the choice holds it
    let held = |side: &str| words.is_some_and(|(w, _)| w == side || w == "both");
    Ok(env().get_template("test_kernel")?.render(context! {
        inplace => inplace,
        words => words.map(|w| w.0),
        words_src => held("src"),
        words_dst => held("dst"),
        per => words.map_or(1, |w| 32 / w.1),
        ident => h.ident,
        ctype => ctype,
        kernel => kernel,
        threads => h.threads,
        other_group => other_group_threads(h),
        groups => CheckGroups::of(h),
        src_regs => h.src_regs,
        dst_regs => h.dst_regs,
        smem => h.smem_elems > 0,
    })?)
}

/// Threads of the warp group a check kernel of `h` adds beside the
/// helper's own where `h` synchronises with a named barrier or runs on a
/// partition's warps ([`EmittedHelper::named_barrier`],
/// [`EmittedHelper::first_warp`]): for a partition, its first warps' (the
/// warps before it, as Triton's default group and the partitions placed
/// first are); else 128 after the helper's (a 4-warp partition of a
/// warp-specialized kernel), 0 where the CTA would exceed 1024 threads (a
/// 32-warp group). That group meets on a named barrier of its own while
/// the helper runs, then waits for the helper's group on another
/// ([`CheckGroups`]), so a helper that waited for every thread of the CTA
/// would never return (a count below the helper's own is the CPU
/// interpreter's check). The check kernel is launched with `threads +
/// other_group_threads` threads.
pub fn other_group_threads(h: &EmittedHelper) -> u32 {
    if h.first_warp > 0 {
        32 * h.first_warp
    } else if h.named_barrier.is_some() {
        128.min(1024u32.saturating_sub(h.threads))
    } else {
        0
    }
}

/// Where a check kernel's other warp group is and which named barriers it
/// uses: `base` threads before the helper's (its first warp's, for a
/// partition) or none (the other group after the helper's); `own`, the
/// barrier that group meets on while the helper runs, and `all`, the one
/// every thread meets on at the end, both other than the helper's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CheckGroups {
    /// Threads before the helper's group (0: the other group is after it).
    pub base: u32,
    /// The other group's own barrier.
    pub own: u32,
    /// The barrier every thread meets on at the end.
    pub all: u32,
}

impl CheckGroups {
    /// The groups of `h`'s check kernels.
    pub fn of(h: &EmittedHelper) -> CheckGroups {
        let helper = h.named_barrier.map(|(id, _)| id);
        let mut free = [1u32, 3, 0, 2, 4, 5]
            .into_iter()
            .filter(|&b| Some(b) != helper);
        CheckGroups {
            base: 32 * h.first_warp,
            own: free.next().unwrap_or(1),
            all: free.next().unwrap_or(3),
        }
    }
}

/// The register-budget kernel of `h` (element form with `ctype`, or with
/// `packed = Some(bits)` its packed form on 32-bit words): the helper inside
/// a loop whose destination becomes the next iteration's source, so that
/// its values stay live across iterations as in a real kernel, under
/// `__launch_bounds__(threads)`, or under `__maxnreg__(n)` with
/// `max_registers = Some(n)` (a kernel that leaves the helper n registers).
/// Compiled for its registers and its `LDL`/`STL`, never launched
/// (arguments `(in, out, iters)`). `None` when `h` has no packed form for
/// `bits`.
pub fn emit_loop_kernel(
    h: &EmittedHelper,
    ctype: &str,
    packed: Option<u32>,
    kernel: &str,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    loop_kernel(h, ctype, LoopCall::of(packed), kernel, false, max_registers)
}

/// [`emit_loop_kernel`] of the element form with its `warpforge::words`
/// choice named (see [`emit_test_kernel_words`]): the loop carries the
/// source array, so `src` is the choice a caller of this loop would make.
/// `None` when the element form for `bits` takes no such choice.
pub fn emit_loop_kernel_words(
    h: &EmittedHelper,
    ctype: &str,
    bits: u32,
    kernel: &str,
    words: &str,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    if !h.takes_words(bits) {
        return Ok(None);
    }
    loop_kernel(
        h,
        ctype,
        LoopCall::Element(Some(words)),
        kernel,
        false,
        max_registers,
    )
}

/// [`emit_loop_kernel`] through the in-place form (`<ident>_inplace` or
/// `<ident>_packed<bits>_inplace`: the loop's one array is the source and
/// the destination); `None` when the helper has no such form.
pub fn emit_loop_kernel_inplace(
    h: &EmittedHelper,
    ctype: &str,
    packed: Option<u32>,
    kernel: &str,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    if !h.has_inplace() {
        return Ok(None);
    }
    loop_kernel(h, ctype, LoopCall::of(packed), kernel, true, max_registers)
}

/// [`emit_loop_kernel`] of the vector form for `bits` (`<ident>_x2`,
/// `<ident>_x4`, or its in-place form) on arrays of `vtype` (a 4-byte
/// vector type); `None` when `h` has no such form.
pub fn emit_loop_kernel_vector(
    h: &EmittedHelper,
    bits: u32,
    vtype: &str,
    kernel: &str,
    inplace: bool,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    if inplace && !h.has_inplace() {
        return Ok(None);
    }
    loop_kernel(
        h,
        vtype,
        LoopCall::Vector(bits, vtype),
        kernel,
        inplace,
        max_registers,
    )
}

/// The helper form a register-budget loop kernel calls ([`loop_kernel`]).
enum LoopCall<'a> {
    /// The element form on `T` arrays, with the `warpforge::words` choice named.
    Element(Option<&'a str>),
    /// The packed form for `bits` on `unsigned` words.
    Packed(u32),
    /// The vector form for `bits` on arrays of the 4-byte type `vtype`.
    Vector(u32, &'a str),
}

impl LoopCall<'_> {
    /// From the `packed` width of the public functions (`None`: the
    /// element form without a named choice).
    fn of(packed: Option<u32>) -> Self {
        packed.map_or(LoopCall::Element(None), LoopCall::Packed)
    }
}

fn loop_kernel(
    h: &EmittedHelper,
    ctype: &str,
    form: LoopCall,
    kernel: &str,
    inplace: bool,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    let sfx = if inplace { "_inplace" } else { "" };
    let (vt, call, per) = match form {
        LoopCall::Element(words) => (
            ctype.to_string(),
            format!(
                "warpforge::{}{sfx}<{ctype}{}>",
                h.ident,
                words
                    .map(|w| format!(", warpforge::words::{w}"))
                    .unwrap_or_default()
            ),
            1,
        ),
        LoopCall::Packed(bits) | LoopCall::Vector(bits, _) if h.packed_form(bits).is_none() => {
            return Ok(None)
        }
        LoopCall::Packed(bits) => (
            "unsigned".to_string(),
            format!("warpforge::{}_packed{bits}{sfx}", h.ident),
            32 / bits,
        ),
        LoopCall::Vector(bits, v) => (
            v.to_string(),
            format!("warpforge::{}_x{}{sfx}<{v}>", h.ident, 32 / bits),
            32 / bits,
        ),
    };
    Ok(Some(env().get_template("loop_kernel")?.render(
        context! {
            inplace => inplace,
            vt => vt,
            call => call,
            kernel => kernel,
            threads => h.threads,
            maxnreg => max_registers,
            src_n => h.src_regs / per,
            dst_n => h.dst_regs / per,
            smem => h.smem_elems > 0,
        },
    )?))
}

/// The verification kernel of `h`'s packed form for `bits` (8 or 16; see
/// [`body_packed`](crate::body_packed)): same arguments and memory layout as
/// [`emit_test_kernel`] (element `i` of global thread `t` at `in[t * src_regs + i]`); it
/// packs on load and unpacks on store. `None` when `h` has no packed form
/// for `bits`.
pub fn emit_test_kernel_packed(
    h: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
) -> Result<Option<String>, EmitError> {
    test_kernel_words(h, bits, ctype, kernel, false, None)
}

/// [`emit_test_kernel_packed`] through `<ident>_packed<bits>_inplace`;
/// `None` without a packed form for `bits` or an in-place form.
pub fn emit_test_kernel_packed_inplace(
    h: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
) -> Result<Option<String>, EmitError> {
    if !h.has_inplace() {
        return Ok(None);
    }
    test_kernel_words(h, bits, ctype, kernel, true, None)
}

/// The verification kernel of `h`'s vector form for `bits` (8 or 16:
/// `<ident>_x4`, `<ident>_x2`) with the 4-byte vector type `vtype`
/// (`__half2`, `unsigned`, ...), out of place or (`inplace`)
/// through `<ident>_x<p>_inplace`: same arguments and memory layout as
/// [`emit_test_kernel`]; it packs the elements into vectors in register
/// order on load and unpacks them on store. `None` when `h` has no packed
/// form for `bits` (so no vector form), or no in-place form.
pub fn emit_test_kernel_vector(
    h: &EmittedHelper,
    bits: u32,
    ctype: &str,
    vtype: &str,
    kernel: &str,
    inplace: bool,
) -> Result<Option<String>, EmitError> {
    if inplace && !h.has_inplace() {
        return Ok(None);
    }
    test_kernel_words(h, bits, ctype, kernel, inplace, Some(vtype))
}

/// The check kernel of a form on words: the packed form (`vector` `None`)
/// or the vector form with that vector type.
fn test_kernel_words(
    h: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
    inplace: bool,
    vector: Option<&str>,
) -> Result<Option<String>, EmitError> {
    let Some(pf) = h.packed_form(bits) else {
        return Ok(None);
    };
    let per = 32 / bits;
    let natural = synth::plan::pack::PackMap::lowest(bits);
    let (src_map, dst_map, call, wt) = match vector {
        None => (
            &pf.src,
            &pf.dst,
            format!("{}_packed{bits}", h.ident),
            "unsigned",
        ),
        Some(v) => (&natural, &natural, format!("{}_x{per}", h.ident), v),
    };
    Ok(Some(env().get_template("test_kernel_packed")?.render(
        context! {
            inplace => inplace,
            vector => vector.is_some(),
            call => call,
            wt => wt,
            src_pack => word_regs(src_map, h.src_regs, bits),
            dst_pack => word_regs(dst_map, h.dst_regs, bits),
            ident => h.ident,
            ctype => ctype,
            kernel => kernel,
            threads => h.threads,
            other_group => other_group_threads(h),
            groups => CheckGroups::of(h),
            bits => bits,
            per => per,
            mask => format!("{:#x}", (1u64 << bits) - 1),
            src_words => h.src_regs / per,
            dst_words => h.dst_regs / per,
            src_regs => h.src_regs,
            dst_regs => h.dst_regs,
            smem => h.smem_elems > 0,
        },
    )?))
}

/// [`emit_bench_kernel`] on the packed forms for `bits` (8 or 16) of both
/// helpers: the tile is packed once on load, the loop moves words (the xor
/// flips bit 0 of every element) and the result is unpacked on store; same
/// arguments, memory layout, check and `max_registers`. `None` when either
/// helper has no packed form for `bits`.
pub fn emit_bench_kernel_packed(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    bench_kernel_words(fwd, bwd, bits, ctype, kernel, max_registers, None)
}

/// [`emit_bench_kernel_packed`] through both helpers' vector forms
/// (`<ident>_x2`, `<ident>_x4`) on arrays of `vtype` (a 4-byte vector
/// type: `__half2`, or `unsigned` words): the tile is held as vectors of elements in
/// register order, as a caller with `__half2` arrays holds it. `None` when
/// either helper has no packed form (so no vector form) for `bits`.
pub fn emit_bench_kernel_vector(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    bits: u32,
    ctype: &str,
    vtype: &str,
    kernel: &str,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    bench_kernel_words(fwd, bwd, bits, ctype, kernel, max_registers, Some(vtype))
}

/// The timing kernel of a round trip on words: the packed forms (`vector`
/// `None`) or the vector forms on that vector type.
/// `Ok` for a helper whose warps start at the CTA's first: the timing
/// kernels launch only the helpers' own warps.
fn from_warp_zero(h: &EmittedHelper) -> Result<(), EmitError> {
    if h.first_warp == 0 {
        Ok(())
    } else {
        Err(EmitError::PartitionHelper {
            name: h.name.clone(),
            first_warp: h.first_warp,
        })
    }
}

fn bench_kernel_words(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
    max_registers: Option<u32>,
    vector: Option<&str>,
) -> Result<Option<String>, EmitError> {
    from_warp_zero(fwd)?;
    from_warp_zero(bwd)?;
    let (Some(pf), Some(pb)) = (fwd.packed_form(bits), bwd.packed_form(bits)) else {
        return Ok(None);
    };
    // the packed forms meet in the same packing; the vector forms always
    // meet in register order
    if vector.is_none() && (pf.dst != pb.src || pf.src != pb.dst) {
        return Err(EmitError::PackMismatch {
            fwd: fwd.name.clone(),
            bwd: bwd.name.clone(),
        });
    }
    let per = 32 / bits;
    let xor: u32 = (0..per).fold(0, |x, k| x | 1 << (k * bits));
    let natural = synth::plan::pack::PackMap::lowest(bits);
    let (src_map, call, wt) = match vector {
        None => (&pf.src, format!("_packed{bits}"), "unsigned"),
        Some(v) => (&natural, format!("_x{per}"), v),
    };
    Ok(Some(env().get_template("bench_kernel_packed")?.render(
        context! {
            vector => vector.is_some(),
            call => call,
            wt => wt,
            src_pack => word_regs(src_map, fwd.src_regs, bits),
            iters_doc => format!("{} -> xor 1 -> {}", fwd.name, bwd.name),
            kernel => kernel,
            ctype => ctype,
            threads => fwd.threads,
            maxnreg => max_registers,
            bits => bits,
            per => per,
            mask => format!("{:#x}", (1u64 << bits) - 1),
            xor => format!("{xor:#x}"),
            src_regs => fwd.src_regs,
            src_words => fwd.src_regs / per,
            dst_words => fwd.dst_regs / per,
            fwd => fwd.ident,
            bwd => bwd.ident,
            fwd_smem => fwd.smem_elems > 0,
            bwd_smem => bwd.smem_elems > 0,
        },
    )?))
}

/// The timing kernel of docs/ARCHITECTURE.md section 7, shaped like Triton's own loop
/// (`warpforge bench` times Triton's lowering in the same loop): load a tile
/// in the source layout (register `i` of global thread `t` at `in[i * nt +
/// t]`), then `iters` times convert it with `fwd`, xor every element with 1
/// and convert back with `bwd`; store. Both helpers share one scratch region
/// of `max(fwd, bwd)` bytes with a `__syncthreads()` before each call that
/// uses it, as Triton's barrier insertion does. Arguments `(const T* in, T*
/// out, int iters)`; `out` must equal `in ^ (iters & 1)` element-wise, which
/// makes every timing run a proof of the round trip too. With
/// `max_registers = Some(n)` the kernel is declared `__maxnreg__(n)` instead
/// of `__launch_bounds__(threads)` (the two cannot both apply; CUDA C++
/// Programming Guide, "Maximum Number of Registers per Thread"): ptxas
/// keeps it within `n` registers, spilling the rest.
pub fn emit_bench_kernel(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    ctype: &str,
    kernel: &str,
    max_registers: Option<u32>,
) -> Result<String, EmitError> {
    bench_kernel(fwd, bwd, ctype, kernel, max_registers, None)
}

/// [`emit_bench_kernel`] with the element forms told which array the loop
/// carries: the tile `a` (the forward call's source, the reverse call's
/// destination, on which the loop does no per-element work) moves as natural
/// 32-bit words (`warpforge::words::src` on the forward helper,
/// `warpforge::words::dst` on the reverse), the per-element array `b` element
/// by element. `bits` is the element width; `None` when neither helper's
/// element form takes the choice for it ([`EmittedHelper::takes_words`]).
pub fn emit_bench_kernel_carried(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    bits: u32,
    ctype: &str,
    kernel: &str,
    max_registers: Option<u32>,
) -> Result<Option<String>, EmitError> {
    if !fwd.takes_words(bits) && !bwd.takes_words(bits) {
        return Ok(None);
    }
    bench_kernel(fwd, bwd, ctype, kernel, max_registers, Some(("src", "dst"))).map(Some)
}

fn bench_kernel(
    fwd: &EmittedHelper,
    bwd: &EmittedHelper,
    ctype: &str,
    kernel: &str,
    max_registers: Option<u32>,
    words: Option<(&str, &str)>,
) -> Result<String, EmitError> {
    from_warp_zero(fwd)?;
    from_warp_zero(bwd)?;
    Ok(env().get_template("bench_kernel")?.render(context! {
        iters_doc => format!(
            "{} -> xor 1 -> {}{}",
            fwd.name,
            bwd.name,
            if words.is_some() { " (the carried tile as words)" } else { "" }
        ),
        fwd_words => words.map(|w| w.0),
        bwd_words => words.map(|w| w.1),
        kernel => kernel,
        ctype => ctype,
        threads => fwd.threads,
        maxnreg => max_registers,
        src_regs => fwd.src_regs,
        dst_regs => fwd.dst_regs,
        fwd => fwd.ident,
        bwd => bwd.ident,
        fwd_smem => fwd.smem_elems > 0,
        bwd_smem => bwd.smem_elems > 0,
    })?)
}
