//! The check module: the forms a helper is checked in ([`Form`]), its check
//! and loop kernels' names, the CUDA source of every kernel of a run
//! ([`case_kernels`]) and its compile in parallel parts ([`compile_module`]).

use crate::compile::{compile_cubin_logged, cuda_include_dirs, ptxas_resources, PtxasResources};
use crate::dtype::{ctype, vector_ctype};
use crate::{cluster_ctas, DType, GpuCase, VerifyError};
use kernels::{
    emit_loop_kernel, emit_loop_kernel_inplace, emit_loop_kernel_vector, emit_loop_kernel_words,
    emit_test_kernel, emit_test_kernel_inplace, emit_test_kernel_packed,
    emit_test_kernel_packed_inplace, emit_test_kernel_vector, emit_test_kernel_words,
    EmittedHelper,
};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// What a form's arrays hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrays {
    /// `T` elements: the templated element form.
    Elements,
    /// 32-bit words in the helper's packing: `<ident>_packed<bits>`.
    Packed,
    /// 4-byte vectors of elements in register order: `<ident>_x2`, `<ident>_x4`.
    Vector,
}

/// One form of a helper: its arrays ([`Arrays`]), out of place (`src`,
/// `dst`) or in place (one array); the element form out of place also with
/// each `warpforge::words` choice its width takes (`words`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Form {
    pub(crate) arrays: Arrays,
    pub(crate) inplace: bool,
    pub(crate) words: Option<&'static str>,
}

/// The `warpforge::words` choices checked on every element form that takes
/// them ([`EmittedHelper::takes_words`]).
const WORDS: [&str; 4] = ["none", "src", "dst", "both"];

impl Form {
    /// `elements`, `packed`, `vector`, `elements in place`, `packed in
    /// place`, `vector in place` or `elements words::<choice>`
    /// ([`CaseResult::form`](crate::CaseResult::form)).
    pub(crate) fn name(self) -> &'static str {
        match (self.arrays, self.inplace, self.words) {
            (Arrays::Elements, false, Some("none")) => "elements words::none",
            (Arrays::Elements, false, Some("src")) => "elements words::src",
            (Arrays::Elements, false, Some("dst")) => "elements words::dst",
            (Arrays::Elements, false, Some(_)) => "elements words::both",
            (Arrays::Elements, false, None) => "elements",
            (Arrays::Elements, true, _) => "elements in place",
            (Arrays::Packed, false, _) => "packed",
            (Arrays::Packed, true, _) => "packed in place",
            (Arrays::Vector, false, _) => "vector",
            (Arrays::Vector, true, _) => "vector in place",
        }
    }
    /// Whether the arrays hold 32-bit words (packed or vector form).
    pub(crate) fn on_words(self) -> bool {
        self.arrays != Arrays::Elements
    }
}

pub(crate) fn kernel_name(h: &EmittedHelper, d: DType, f: Form) -> String {
    format!(
        "wf_test_{}_{}{}{}{}",
        &h.ident[3..],
        d.name(),
        match f.arrays {
            Arrays::Elements => "",
            Arrays::Packed => "_packed",
            Arrays::Vector => "_vec",
        },
        if f.inplace { "_inplace" } else { "" },
        f.words.map(|w| format!("_w{w}")).unwrap_or_default()
    )
}

pub(crate) fn loop_kernel_name(h: &EmittedHelper, d: DType, f: Form) -> String {
    format!("{}_loop", kernel_name(h, d, f))
}

/// The forms of `h` checked with `d`: the templated helper, its packed and
/// vector forms where it has them for `d`'s width, the in-place form of
/// each where source and destination hold the same registers, and the
/// element form with each `warpforge::words` choice where it takes them
/// for `d`'s width.
pub(crate) fn forms(h: &EmittedHelper, d: DType) -> Vec<Form> {
    // a width the helper does not serve (its header rejects it at compile
    // time, e.g. 32/64-bit data whose scratch is over the target's limit)
    // has no kernels to check
    if !h.widths.is_empty() && h.smem_bytes(d.bits()).is_none() {
        return vec![];
    }
    let on_words = h.packed_form(d.bits()).is_some();
    let inplace: &[bool] = if h.has_inplace() {
        &[false, true]
    } else {
        &[false]
    };
    let form = |arrays, inplace| Form {
        arrays,
        inplace,
        words: None,
    };
    let mut out: Vec<Form> = Vec::new();
    for &i in inplace {
        out.push(form(Arrays::Elements, i));
        if on_words {
            out.push(form(Arrays::Packed, i));
        }
    }
    if on_words {
        out.extend(inplace.iter().map(|&i| form(Arrays::Vector, i)));
    }
    if h.takes_words(d.bits()) {
        out.extend(WORDS.iter().map(|&w| Form {
            arrays: Arrays::Elements,
            inplace: false,
            words: Some(w),
        }));
    }
    out
}

/// The one-shot check kernel `name` of `h` for element type `d` (C type
/// `ct`) in form `f`; `None` where the helper has no such form.
pub(crate) fn check_kernel(
    h: &EmittedHelper,
    d: DType,
    ct: &str,
    f: Form,
    name: &str,
) -> Result<Option<String>, VerifyError> {
    if f.arrays == Arrays::Vector {
        let vt = vector_ctype(ct);
        return Ok(emit_test_kernel_vector(
            h,
            d.bits(),
            ct,
            vt,
            name,
            f.inplace,
        )?);
    }
    Ok(match (f.arrays == Arrays::Packed, f.inplace) {
        (false, false) => match f.words {
            Some(w) => emit_test_kernel_words(h, ct, d.bits(), name, w)?,
            None => Some(emit_test_kernel(h, ct, name)?),
        },
        (false, true) => emit_test_kernel_inplace(h, ct, name)?,
        (true, false) => emit_test_kernel_packed(h, d.bits(), ct, name)?,
        (true, true) => emit_test_kernel_packed_inplace(h, d.bits(), ct, name)?,
    })
}

/// Every element type of `dtypes` with each of its forms of `h`
/// ([`forms`]), in that order.
pub(crate) fn dtype_forms<'a>(
    h: &'a EmittedHelper,
    dtypes: &'a [DType],
) -> impl Iterator<Item = (DType, Form)> + 'a {
    dtypes
        .iter()
        .flat_map(move |&d| forms(h, d).into_iter().map(move |p| (d, p)))
}

/// The cap a loop kernel of `threads` threads is compiled under: the
/// requested `--max-registers`, never above the launch bounds' limit
/// ([`synth::plan::capped_register_limit`]); `None` without one.
pub(crate) fn loop_cap(max_registers: Option<u32>, threads: u32) -> Option<u32> {
    max_registers.map(|_| synth::plan::capped_register_limit(max_registers, threads))
}

/// What every part of a check module starts with: `cuda_fp16.h` where
/// `half`, the cluster contract check where a case runs on a cluster, and
/// `header`.
fn module_prelude(header: &str, cases: &[GpuCase], half: bool) -> String {
    let mut src = String::new();
    if half {
        src.push_str("#include <cuda_fp16.h>\n");
    }
    if cases.iter().any(|c| cluster_ctas(c.analysis) > 1) {
        // the helper's own contract check: trap on another cluster size
        src.push_str("#define WARPFORGE_CHECK_CLUSTER 1\n");
    }
    src.push_str(header);
    src
}

/// The kernels of the check module, one string per case (in the order of
/// `cases`): per dtype and form ([`forms`]) a one-shot check kernel and a
/// register-budget loop kernel. `half`: f16 as `__half` (with
/// `cuda_fp16.h` in [`module_prelude`]), else as its 16-bit payload.
/// Loop kernels are compiled under `__maxnreg__` with `max_registers`,
/// else under their launch bounds. A cluster case has none below sm_90
/// (its PTX would fail the module).
fn case_kernels(
    cases: &[GpuCase],
    dtypes: &[DType],
    max_registers: Option<u32>,
    sm: (i32, i32),
    half: bool,
) -> Result<Vec<String>, VerifyError> {
    let mut out = Vec::with_capacity(cases.len());
    for c in cases {
        let mut src = String::new();
        if cluster_ctas(c.analysis) == 1 || sm.0 >= 9 {
            for &d in dtypes {
                let ct = ctype(d, half);
                for f in forms(c.helper, d) {
                    let name = kernel_name(c.helper, d, f);
                    let k = check_kernel(c.helper, d, ct, f, &name)?;
                    src.push_str(&k.unwrap_or_default());
                    let bits = (f.arrays == Arrays::Packed).then_some(d.bits());
                    let name = loop_kernel_name(c.helper, d, f);
                    let cap = loop_cap(max_registers, c.helper.threads);
                    let k = if f.arrays == Arrays::Vector {
                        let vt = vector_ctype(ct);
                        emit_loop_kernel_vector(c.helper, d.bits(), vt, &name, f.inplace, cap)?
                    } else if let Some(w) = f.words {
                        emit_loop_kernel_words(c.helper, ct, d.bits(), &name, w, cap)?
                    } else if f.inplace {
                        emit_loop_kernel_inplace(c.helper, ct, bits, &name, cap)?
                    } else {
                        emit_loop_kernel(c.helper, ct, bits, &name, cap)?
                    };
                    src.push_str(&k.unwrap_or_default());
                }
            }
        }
        out.push(src);
    }
    Ok(out)
}

/// The check module cut into at most `parts` modules
/// that NVRTC compiles in parallel (ptxas compiles one module on one
/// core): each is `prelude` and the kernels of some cases, a case's
/// kernels all in one part, the parts balanced by the length of their
/// kernels' source ([`part_members`]). Within a part the cases keep their
/// order. No part for a case without kernels; one part (the prelude alone)
/// where no case has any.
fn module_parts(prelude: &str, kernels: &[String], parts: usize) -> Vec<String> {
    let mut out: Vec<String> = part_members(kernels, parts)
        .into_iter()
        .map(|m| {
            let mut src = prelude.to_string();
            for i in m {
                src.push_str(&kernels[i]);
            }
            src
        })
        .collect();
    if out.is_empty() {
        out.push(prelude.to_string());
    }
    out
}

/// Which of `kernels` (source texts) go into each of at most `parts`
/// modules compiled in parallel: the indices of each part, ascending,
/// the parts balanced by the length of their members' source (longest
/// first, each to the part with the least so far: Graham's LPT rule,
/// within 4/3 of the best balance; R. L. Graham, "Bounds on
/// multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969).
/// Empty texts go nowhere; no part is empty; no parts where every text is
/// empty. `parts` 0 counts as 1.
pub fn part_members(kernels: &[String], parts: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..kernels.len())
        .filter(|&i| !kernels[i].is_empty())
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(kernels[i].len()));
    let n = parts.clamp(1, order.len().max(1));
    let mut load = vec![0usize; n];
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in order {
        let p = (0..n).min_by_key(|&p| (load[p], p)).unwrap_or(0);
        load[p] += kernels[i].len();
        members[p].push(i);
    }
    members
        .into_iter()
        .filter(|m| !m.is_empty())
        .map(|mut m| {
            m.sort_unstable();
            m
        })
        .collect()
}

/// One NVRTC module of a check module ([`module_parts`]): its source and
/// CUBIN.
pub(crate) struct ModulePart {
    pub(crate) source: String,
    pub(crate) cubin: Vec<u8>,
}

/// A compiled check module ([`compile_module`]).
pub(crate) struct CompiledModule {
    /// The whole module's source: the prelude and every case's kernels
    /// ([`case_kernels`]), for reports and for compiling kernels again.
    pub(crate) source: String,
    /// The modules it was compiled as; every kernel is in exactly one.
    pub(crate) parts: Vec<ModulePart>,
    /// f16 as `__half` (else as its 16-bit payload).
    pub(crate) half: bool,
    /// ptxas's report per kernel ([`ptxas_resources`]), of every part.
    pub(crate) ptxas: BTreeMap<String, PtxasResources>,
}

/// Compile the module that checks every case for every dtype
/// ([`module_prelude`], [`case_kernels`]) with NVRTC for `sm`, with `cuda_fp16.h` when
/// `dtypes` has f16 and it compiles here (else f16 as its 16-bit payload,
/// with a note): in parts ([`module_parts`], as many as rayon has threads:
/// `RAYON_NUM_THREADS`, else the cores), compiled in parallel. Errors: a
/// part that does not compile (the first in part order).
pub(crate) fn compile_module(
    header: &str,
    cases: &[GpuCase],
    dtypes: &[DType],
    max_registers: Option<u32>,
    sm: (i32, i32),
    notes: &mut Vec<String>,
) -> Result<CompiledModule, VerifyError> {
    let includes = cuda_include_dirs();
    let build = |half: bool| -> Result<CompiledModule, VerifyError> {
        let kernels = case_kernels(cases, dtypes, max_registers, sm, half)?;
        let prelude = module_prelude(header, cases, half);
        let threads = rayon::current_num_threads();
        let sources = module_parts(&prelude, &kernels, threads);
        let n = sources.len();
        // NVRTC on threads of its own with the main thread's 8 MiB stacks
        // (rayon's default is 2 MiB; a part can hold a large tile's kernels)
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.min(n).max(1))
            .stack_size(8 << 20)
            .build()
            .map_err(|e| VerifyError::Compile(format!("no compile threads: {e}")))?;
        let results: Vec<Result<(String, Vec<u8>, String), VerifyError>> = pool.install(|| {
            sources
                .into_par_iter()
                .map(|s| compile_cubin_logged(&s, sm, &includes).map(|(c, log)| (s, c, log)))
                .collect()
        });
        let mut compiled = Vec::with_capacity(n);
        for (i, r) in results.into_iter().enumerate() {
            match r {
                Ok(c) => compiled.push(c),
                // the first failing part in part order, named (its line
                // numbers are of that part's source)
                Err(VerifyError::Compile(e)) if n > 1 => {
                    return Err(VerifyError::Compile(format!(
                        "part {} of {n} of the check module: {e}",
                        i + 1
                    )))
                }
                Err(e) => return Err(e),
            }
        }
        let mut ptxas = BTreeMap::new();
        let mut parts = Vec::with_capacity(compiled.len());
        for (source, cubin, log) in compiled {
            ptxas.extend(ptxas_resources(&log));
            parts.push(ModulePart { source, cubin });
        }
        let mut source = prelude;
        for k in &kernels {
            source.push_str(k);
        }
        Ok(CompiledModule {
            source,
            parts,
            half,
            ptxas,
        })
    };
    let want_half = dtypes.contains(&DType::F16);
    match build(want_half) {
        Err(e) if want_half => {
            notes.push(format!(
                "f16 checked as its 16-bit payload (unsigned short): cuda_fp16.h did not compile here ({})",
                e.to_string().lines().filter(|l| l.contains("error")).take(2).collect::<Vec<_>>().join(" / ")
            ));
            build(false)
        }
        r => r,
    }
}

/// 32-bit registers the data of `form` takes for `d`: the larger side, one
/// register per element (two per 64-bit element), or one per word for an
/// array held as words (the packed form's, or an element form's
/// `warpforge::words` choice).
pub(crate) fn data_registers(h: &EmittedHelper, d: DType, form: Form) -> u32 {
    let per_elem = d.bits().div_ceil(32);
    let words = |side: &str| form.words.is_some_and(|w| w == side || w == "both");
    let side = |regs: u32, held: bool| {
        if form.on_words() || held {
            regs * d.bits() / 32
        } else {
            regs * per_elem
        }
    };
    side(h.src_regs, words("src")).max(side(h.dst_regs, words("dst")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form_suffix;

    /// The 32-warp f16 transpose of `tests/data/stress_w32.ttgir`, emitted
    /// for its own width (16-bit).
    fn transpose16() -> EmittedHelper {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/stress_w32.ttgir"
        );
        let f = synth::parse::parse_ttgir(&std::fs::read_to_string(p).unwrap()).unwrap();
        let conv = synth::plan::Conversion::from_op(&f.converts[0]).unwrap();
        let ch = synth::search::plan_conversion(
            &conv,
            synth::plan::StrategyChoice::Auto,
            &synth::search::Weights::default(),
        )
        .unwrap();
        kernels::emit_helper(&conv, &ch).unwrap()
    }

    #[test]
    fn every_words_choice_is_a_form_where_the_width_takes_it() {
        let h = transpose16();
        let names: Vec<&str> = forms(&h, DType::F16).iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            [
                "elements",
                "packed",
                "elements in place",
                "packed in place",
                "vector",
                "vector in place",
                "elements words::none",
                "elements words::src",
                "elements words::dst",
                "elements words::both"
            ]
        );
        // distinct kernels, and a report suffix each
        let kernels: std::collections::BTreeSet<String> = forms(&h, DType::F16)
            .into_iter()
            .map(|f| kernel_name(&h, DType::F16, f))
            .collect();
        assert_eq!(kernels.len(), 10);
        assert_eq!(form_suffix("elements words::src"), " words::src");
        // the test kernel names the choice and moves the words array by words
        let k = emit_test_kernel_words(&h, "__half", 16, "k", "src")
            .unwrap()
            .unwrap();
        assert!(k.contains("<__half, warpforge::words::src>(src, dst"));
        assert!(k.contains("warpforge::detail::st_word(&src[k * 2u], w);"));
        assert!(!k.contains("ld_word(&dst"));
        // a width the helper was not planned for takes no choice
        assert!(emit_test_kernel_words(&h, "int", 32, "k", "src")
            .unwrap()
            .is_none());
    }

    #[test]
    fn module_parts_hold_every_case_once_balanced_and_in_order() {
        let kernels: Vec<String> = [
            "a".repeat(90),
            String::new(),
            "b".repeat(50),
            "c".repeat(40),
            "d".repeat(10),
        ]
        .into_iter()
        .collect();
        // LPT: 90 | 50, then 40 to the lighter part (90 | 90), then 10 to the
        // first of the tied; cases keep their order in a part
        let p = module_parts("P;", &kernels, 2);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0], format!("P;{}{}", "a".repeat(90), "d".repeat(10)));
        assert_eq!(p[1], format!("P;{}{}", "b".repeat(50), "c".repeat(40)));
        // never more parts than cases with kernels, never none
        assert_eq!(module_parts("P;", &kernels, 16).len(), 4);
        assert_eq!(module_parts("P;", &kernels, 0).len(), 1);
        assert_eq!(
            module_parts("P;", &[String::new()], 4),
            vec!["P;".to_string()]
        );
        // every kernel once over all parts
        let all: String = module_parts("", &kernels, 3).concat();
        let mut got: Vec<char> = all.chars().collect();
        let mut want: Vec<char> = kernels.concat().chars().collect();
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }
}
