use crate::element::{
    body_kir, body_kir_with, body_via_packed, word_pun, Arrays, Words, VIA_PACKED_MIN_ELEMS,
    WORD_CHOICES,
};
use crate::ident::ident_for;
use crate::kir::{Body, Cond, Else, Expr, Stmt};
use crate::render::env;
use crate::{body_packed_kir, EmitError};
use minijinja::context;
use synth::plan::Conversion;
use synth::search::Chosen;

/// One emitted helper and what callers need to drive it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EmittedHelper {
    /// C identifier of the function (`wf_<func>_<line>`).
    pub ident: String,
    /// The conversion's name (`func:line`).
    pub name: String,
    pub src_regs: u32,
    pub dst_regs: u32,
    /// Shared scratch in elements (0: no `smem` parameter): the most any
    /// element width uses; see [`EmittedHelper::smem_bytes`] for one width.
    pub smem_elems: u64,
    /// Per element width the helper serves (bits 8, 16, 32, 64): the scratch
    /// bytes and rounds of that width's plan (0 bytes: no shared memory).
    /// A width missing here is refused by the helper's `static_assert`.
    pub widths: Vec<WidthScratch>,
    /// Threads per CTA (lanes per warp x warps).
    pub threads: u32,
    /// The named barrier (`bar.sync id, threads`) some width's plan
    /// synchronises its warps with instead of `__syncthreads()`, as `(id,
    /// threads)`: the helper runs on the CTA's first warps, one warp group
    /// of a warp-specialized kernel, while other groups' warps run on (see
    /// [`synth::plan::BarrierScope::Named`]). `None`: no named barrier.
    pub named_barrier: Option<(u32, u32)>,
    /// The CTA warp the layouts' warp 0 is ([`synth::plan::Plan::first_warp`]):
    /// nonzero for a partition of a warp-specialized kernel, whose warps
    /// start there; the helper's threads are `threadIdx.x` in
    /// `[32 * first_warp, 32 * first_warp + threads)`.
    pub first_warp: u32,
    /// The packed forms `{ident}_packed{bits}` (8, 16) taking 32-bit
    /// words (see [`body_packed`]).
    pub packed: Vec<PackedForm>,
    /// Element widths (bits: 8, 16) whose element form takes the caller's
    /// `warpforge::words` choice of arrays held as 32-bit words (the
    /// template parameter `kWords`; [`element_word_choices`]); the other
    /// widths ignore it.
    pub word_choices: Vec<u32>,
    /// The helper's source text.
    pub code: String,
    /// The architecture it was planned for (`None`: unstated, no guard);
    /// the header states it and stops the compilation of an older one.
    pub target: Option<HelperTarget>,
    /// The kernel IR of every body [`EmittedHelper::code`] prints (not
    /// serialized).
    #[serde(skip)]
    pub kir: HelperKir,
}

/// The kernel IR of a helper's bodies, exactly as its code prints them, for
/// a verifier to run ([`crate::kir::interp`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelperKir {
    /// The templated helper's whole body (`if constexpr` dispatch on
    /// `sizeof(T)` and on `warpforge::words` included), on the caller's
    /// `T src[]` into `T dst[]`.
    pub element: Body,
    /// Each packed form's body by element bits (16, then 8, where present),
    /// on the caller's `unsigned src[]` words into `unsigned dst[]`.
    pub packed: Vec<(u32, Body)>,
    /// Each vector form's body (`{ident}_x2` for 16-bit, `{ident}_x4` for
    /// 8-bit elements; one per packed form, same order), on the caller's
    /// `V src[]` into `V dst[]` (4-byte vectors of elements in register
    /// order), through the packed form.
    pub vector: Vec<(u32, Body)>,
}

/// The architecture a helper was planned for and what said so; its header
/// compiles it only for that vendor (CUDA, or HIP for an AMD target) and
/// guards it with `__CUDA_ARCH__` (an older architecture stops with
/// `#error`: the helper may use instructions it lacks, e.g. `stmatrix`) or,
/// on AMD, with the wave size (an AMD GPU of another wave size stops with
/// `#error`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HelperTarget {
    /// Compute capability, `10 * major + minor` (0 for an AMD target).
    pub sm: u32,
    /// The AMD architecture, for an AMD target: the header then compiles
    /// the helper under HIP only, for waves of its lanes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amd: Option<synth::target::AmdArch>,
    /// Where the target came from (`ttg.target = "cuda:80"`, `--sm 90`, ...).
    pub from: String,
}

/// A conversion that warpforge did not serve: its header entry declares
/// the helper's name so that a kernel that calls it (or names
/// `<ident>_smem_bytes<T>`) fails to compile with `reason`, while a kernel
/// that does not compiles.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RefusedHelper {
    /// C identifier the helper would have had.
    pub ident: String,
    /// The conversion's name (`func:line`).
    pub name: String,
    /// The file it is in.
    pub file: String,
    /// Why it was not served (one line).
    pub reason: String,
}

/// The scratch one element width of a helper needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WidthScratch {
    /// Element width in bits: 8, 16, 32 or 64.
    pub bits: u32,
    /// Shared-memory bytes (the `<ident>_smem_bytes<T>` of that width).
    pub bytes: u64,
    /// Store/barrier/load rounds the scratch is used in (0 without scratch).
    pub rounds: u32,
}

/// One packed form of a helper: elements of `bits`, `32 / bits` per word,
/// packed along `src`/`dst` register bits.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PackedForm {
    pub bits: u32,
    pub src: synth::plan::pack::PackMap,
    pub dst: synth::plan::pack::PackMap,
}

impl EmittedHelper {
    /// Scratch bytes for `bits`-bit elements, `None` for a width the helper
    /// does not serve.
    pub fn smem_bytes(&self, bits: u32) -> Option<u64> {
        self.widths.iter().find(|w| w.bits == bits).map(|w| w.bytes)
    }

    /// Whether the helper has in-place forms (`<ident>_inplace`, and
    /// `<ident>_packed<bits>_inplace` for each packed form): source and
    /// destination hold the same number of registers.
    pub fn has_inplace(&self) -> bool {
        self.src_regs == self.dst_regs
    }

    /// Whether the element form for `bits`-bit elements takes the caller's
    /// `warpforge::words` choice ([`EmittedHelper::word_choices`]).
    pub fn takes_words(&self, bits: u32) -> bool {
        self.word_choices.contains(&bits)
    }

    /// The packed form for `bits`, if any.
    pub fn packed_form(&self, bits: u32) -> Option<&PackedForm> {
        self.packed.iter().find(|p| p.bits == bits)
    }
}

fn pack_doc(m: &synth::plan::pack::PackMap) -> String {
    let b: Vec<String> = m.slot_bits.iter().map(|x| x.to_string()).collect();
    if m.is_lowest() {
        format!(
            "register bit(s) {} (element r in slot r % p of word r / p)",
            b.join(", ")
        )
    } else {
        format!("register bit(s) {}", b.join(", "))
    }
}

fn layout_lines(l: &synth::LinearLayout) -> Vec<String> {
    l.to_string()
        .lines()
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
        .collect()
}

/// Emit the helper for one planned conversion. A plan made for one element
/// width (shared-memory plans pack elements) gets a `static_assert` on
/// `sizeof(T)`; see [`emit_helper_widths`] for a helper that takes any width.
pub fn emit_helper(conv: &Conversion, chosen: &Chosen) -> Result<EmittedHelper, EmitError> {
    let bits = synth::search::plan_width(conv);
    emit_helper_widths(conv, &[(bits, chosen.clone())])
}

/// Emit one helper templated on its element type `T` from a plan per element
/// width (`bits`, plan): the body dispatches on `sizeof(T)` with `if
/// constexpr` where the widths' plans differ. The header comment describes
/// the plan for the conversion's own element width (else the first given).
pub fn emit_helper_widths(
    conv: &Conversion,
    variants: &[(u32, Chosen)],
) -> Result<EmittedHelper, EmitError> {
    emit_helper_widths_as(conv, variants, &ident_for(&conv.name))
}

/// [`emit_helper_widths`] with the helper named `ident` (a C identifier)
/// instead of [`ident_for`] the conversion's name; the body is the same.
pub fn emit_helper_widths_as(
    conv: &Conversion,
    variants: &[(u32, Chosen)],
    ident: &str,
) -> Result<EmittedHelper, EmitError> {
    let own_bits = synth::search::plan_width(conv);
    let chosen = &variants
        .iter()
        .find(|(b, _)| *b == own_bits)
        .unwrap_or(&variants[0])
        .1;
    let plan = &chosen.plan;
    let threads = (1u32 << conv.src.in_dim_size_log2(synth::layout::LANE)) * conv.num_warps;
    let stages: Vec<String> = plan.stages.iter().map(|s| s.name().to_string()).collect();
    let shape: Vec<String> = conv.shape.iter().map(|d| d.to_string()).collect();
    // Whether any width's plan uses shared memory: then every form takes `smem`.
    let any_smem = variants.iter().any(|(_, c)| c.plan.smem_elems > 0);
    let ElementForms {
        groups,
        form_notes,
        element_words,
        word_choices,
    } = element_forms(conv, variants, ident, any_smem)?;
    let element = dispatch_by_width(groups, variants, ident);
    let smem_elems = variants
        .iter()
        .filter(|(_, c)| c.plan.smem_elems > 0)
        .map(|(_, c)| c.plan.smem_elems)
        .max()
        .unwrap_or(0);
    let widths = width_scratch(variants);
    let own_words = element_words
        .iter()
        .find(|(b, _)| *b == own_bits)
        .map_or(synth::plan::HeldWords::NONE, |w| w.1);
    let PackedForms {
        contexts: packed,
        forms: packed_bits,
        bodies: packed_kir,
        vector_bodies: vector_kir,
    } = packed_forms(conv, variants, ident, smem_elems)?;
    let takes_words = word_choices.iter().any(|(b, _)| *b == own_bits);
    let over_limit = if takes_words {
        over_limit(plan, own_bits, threads)
    } else {
        None
    };
    let code = env().get_template("helper")?.render(context! {
        packed => packed,
        bound_line => bound_line(chosen, own_bits),
        ident => ident,
        name => conv.name,
        shape => shape.join("x"),
        elem => conv.elem.name,
        num_warps => conv.num_warps,
        src_text => conv.src_text,
        dst_text => conv.dst_text,
        src_ll => layout_lines(&conv.src),
        dst_ll => layout_lines(&conv.dst),
        kind => plan.kind.as_str(),
        strategy => plan.strategy,
        notes => plan.notes,
        others => other_widths(variants, own_bits, plan),
        form_notes => form_notes,
        words_line => words_line(&word_choices, over_limit),
        stages => stages.join(" -> "),
        cost => chosen.cost.to_string(),
        smem => smem_elems > 0,
        smem_line => smem_line(chosen, own_bits),
        width_line => scratch_line(&widths, smem_elems),
        register_line => register_line(plan, own_bits, conv.num_warps, own_words),
        smem_expr => smem_expr(variants, smem_elems),
        src_regs => plan.src_regs,
        dst_regs => plan.dst_regs,
        body => element.lines(),
    })?;
    Ok(EmittedHelper {
        ident: ident.to_string(),
        name: conv.name.clone(),
        src_regs: plan.src_regs,
        dst_regs: plan.dst_regs,
        smem_elems,
        widths,
        threads,
        named_barrier: variants.iter().find_map(|(_, c)| c.plan.named_barrier()),
        first_warp: plan.first_warp,
        packed: packed_bits,
        word_choices: word_choices.iter().map(|(b, _)| *b).collect(),
        code,
        target: None,
        kir: HelperKir {
            element,
            packed: packed_kir,
            vector: vector_kir,
        },
    })
}

/// Element widths that share one element-form body.
struct WidthGroup {
    /// The widths in bits.
    bits: Vec<u32>,
    /// The body.
    body: Body,
    /// Its printed lines (what widths are grouped by).
    lines: Vec<String>,
    /// Whether any of those widths' plans was made for that width only
    /// (`Plan::elem_bits` set, so the body needs a `sizeof(T)` guard).
    specific: bool,
}

/// The element forms of a helper's widths ([`element_forms`]) and what its
/// header says about them.
struct ElementForms {
    /// The element-form bodies per width, merged where they print the same.
    groups: Vec<WidthGroup>,
    /// What the element form costs beyond its plan, one header line per
    /// width that goes through the packed form.
    form_notes: Vec<String>,
    /// Widths (bits) whose element form moves the caller's arrays as 32-bit
    /// words, and which arrays.
    element_words: Vec<(u32, synth::plan::HeldWords)>,
    /// Widths (bits) whose element form takes the caller's choice of arrays
    /// held as words (`warpforge::words`), and what `automatic` is for each.
    word_choices: Vec<(u32, &'static str)>,
}

/// The element-form body of every width in `variants` (bits, plan) of the
/// helper `ident`: through the packed form where [`element_via_packed`]
/// takes it (with a note on what that costs), else [`body_kir`] (element by
/// element, or natural words with folded selects: [`folded`]); wrapped in
/// the `warpforge::words` branches where [`element_word_choices`] applies;
/// bodies merged where widths share them.
/// `any_smem`: some width uses shared memory, so every form takes `smem`.
fn element_forms(
    conv: &Conversion,
    variants: &[(u32, Chosen)],
    ident: &str,
    any_smem: bool,
) -> Result<ElementForms, EmitError> {
    let threads = (1u32 << conv.src.in_dim_size_log2(synth::layout::LANE)) * conv.num_warps;
    let mut forms = ElementForms {
        groups: Vec::new(),
        form_notes: Vec::new(),
        element_words: Vec::new(),
        word_choices: Vec::new(),
    };
    for (bits, ch) in variants {
        let fold = folded(&ch.plan, *bits, threads);
        let auto = if fold {
            None
        } else {
            element_via_packed(&conv.name, ident, *bits, &ch.plan, any_smem, threads)?
        };
        let auto_words = match &auto {
            Some(a) => a.2,
            // both arrays as natural words, the plan's own words built by `prmt`
            None if fold => synth::plan::HeldWords::BOTH,
            None => synth::plan::HeldWords::NONE,
        };
        let mut b = match auto {
            Some((b, prmt, held)) => {
                forms.element_words.push((*bits, held));
                forms
                    .form_notes
                    .push(via_packed_note(ident, *bits, &ch.plan, threads, prmt, held));
                b
            }
            None => {
                if fold {
                    forms.element_words.push((*bits, auto_words));
                    forms.form_notes.push(folded_note(*bits));
                }
                body_kir(&conv.name, &ch.plan)?
            }
        };
        if let Some(choice) =
            element_word_choices(&conv.name, ident, *bits, &ch.plan, any_smem, &b, auto_words)?
        {
            forms.word_choices.push((*bits, auto_words.name()));
            b = choice;
        }
        let specific = ch.plan.elem_bits != 0;
        let lines = b.lines();
        match forms.groups.iter_mut().find(|g| g.lines == lines) {
            Some(g) => {
                g.bits.push(*bits);
                g.specific |= specific;
            }
            None => forms.groups.push(WidthGroup {
                bits: vec![*bits],
                body: b,
                lines,
                specific,
            }),
        }
    }
    Ok(forms)
}

/// The header note for `bits`-bit elements whose element form goes through
/// the packed form `{ident}_packed{bits}` of `plan` (`threads` per CTA):
/// which arrays (`held`) move as natural 32-bit words and how, why they are
/// held as words ([`synth::plan::element_form_rule`]), and the `prmt`
/// per thread that reorder them.
fn via_packed_note(
    ident: &str,
    bits: u32,
    plan: &synth::plan::Plan,
    threads: u32,
    prmt: usize,
    held: synth::plan::HeldWords,
) -> String {
    // 8-bit data and 16-bit data through the packed form hold both arrays
    // (synth::plan::element_form_words); why, for 16-bit data
    use synth::plan::WordsRule;
    let why = match synth::plan::element_form_rule(plan, bits, threads) {
        WordsRule::Natural => ": the packed form's words are the natural pairs".to_string(),
        WordsRule::OneSide => ": the packed form's words are the natural pairs on one side; prmt reorder the other's".to_string(),
        WordsRule::Over => format!(
            ": the arrays' elements, {} and {}, one register each, would exceed the {} registers __launch_bounds__({threads}) allows less 16 on at least one side",
            plan.src_regs,
            plan.dst_regs,
            synth::plan::register_limit(threads)
        ),
        WordsRule::Split => ": the packed form's stores choose whole words by lane, where element by element each element would be chosen".to_string(),
        WordsRule::Bytes | WordsRule::Folded | WordsRule::None => String::new(),
    };
    let folds = if bits == 16 {
        " (the caller's per-element work on them folds into 32-bit operations)"
    } else {
        ""
    };
    // 16-bit words move in pairs (kernels::element::via_packed's in_pairs)
    let access = if bits == 16 {
        "two at a time by an 8-byte memcpy"
    } else {
        "one at a time by a 4-byte memcpy"
    };
    format!(
        "{bits}-bit elements in this form: the {} move as natural 32-bit words, {access}, through {ident}_packed{bits}{folds}{why}; {prmt} prmt per thread reorder them to and from its word order",
        match held.name() {
            "both" => "arrays",
            "src" => "src array",
            _ => "dst array",
        }
    )
}

/// The templated helper's body from the element-form bodies per width
/// (`groups`, see [`ElementForms::groups`]): the one body as it is where all
/// widths share it and no plan is width-specific, else one `if constexpr
/// (sizeof(T) == n ...)` branch per body and a `static_assert` for widths
/// no variant serves.
fn dispatch_by_width(mut groups: Vec<WidthGroup>, variants: &[(u32, Chosen)], ident: &str) -> Body {
    if groups.len() == 1 && !groups[0].specific {
        return groups.pop().unwrap().body;
    }
    let mut out = Body::default();
    let arms = groups
        .into_iter()
        .map(|g| {
            let bytes = g.bits.iter().map(|b| b / 8).collect();
            (Cond::SizeofT(bytes), out.adopt(g.body))
        })
        .collect();
    let all: Vec<String> = variants.iter().map(|(b, _)| (b / 8).to_string()).collect();
    out.push(Stmt::IfConstexpr {
        arms,
        otherwise: Else::NoOtherSize(format!(
            "{ident}: planned for {}-byte elements only",
            all.join("/")
        )),
    });
    out
}

/// The C expression of the helper's scratch bytes for element type `T`
/// (`<ident>_smem_bytes<T>`), with `smem_elems` the most elements any width
/// of `variants` uses.
fn smem_expr(variants: &[(u32, Chosen)], smem_elems: u64) -> String {
    let smem_sizes: Vec<(u32, u64)> = variants
        .iter()
        .filter(|(_, c)| c.plan.smem_elems > 0)
        .map(|(b, c)| (*b, c.plan.smem_elems))
        .collect();
    // `E * sizeof(T)`, divided for the widths that take E / k elements (the
    // same plan in k rounds): the common statement first, so that a reader
    // (or a script) taking `Nu * unsigned(sizeof(T))` gets every width that
    // uses the full scratch right; a per-width choice where that is not the
    // form.
    let divisors: Option<Vec<(u32, u64)>> = if smem_sizes.len() == variants.len() {
        smem_sizes
            .iter()
            .filter(|x| x.1 != smem_elems)
            .map(|&(b, e)| smem_elems.is_multiple_of(e).then_some((b, smem_elems / e)))
            .collect()
    } else {
        None
    };
    if smem_sizes.iter().all(|x| x.1 == smem_elems) {
        format!("{smem_elems}u * unsigned(sizeof(T))")
    } else if let Some(div) = divisors {
        let mut d = String::from("1u");
        for (b, k) in div.iter().rev() {
            d = format!("sizeof(T) == {} ? {k}u : {d}", b / 8);
        }
        format!("{smem_elems}u * unsigned(sizeof(T)) / ({d})")
    } else {
        let mut e = String::from("0u");
        for (b, n) in smem_sizes.iter().rev() {
            e = format!("sizeof(T) == {} ? {}u : {e}", b / 8, n * (*b as u64 / 8));
        }
        e
    }
}

/// The scratch (bytes and rounds) of each width in `variants`.
fn width_scratch(variants: &[(u32, Chosen)]) -> Vec<WidthScratch> {
    variants
        .iter()
        .map(|(b, c)| WidthScratch {
            bits: *b,
            bytes: c.plan.smem_elems * (*b as u64 / 8),
            rounds: if c.plan.smem_elems > 0 {
                c.plan.rounds.get()
            } else {
                0
            },
        })
        .collect()
}

/// The header lines for the widths other than `own_bits` whose plan takes
/// another strategy than the own width's `plan`: kind, strategy and cost.
fn other_widths(
    variants: &[(u32, Chosen)],
    own_bits: u32,
    plan: &synth::plan::Plan,
) -> Vec<String> {
    variants
        .iter()
        .filter(|(b, c)| *b != own_bits && c.plan.strategy != plan.strategy)
        .map(|(b, c)| {
            format!(
                "{}-bit elements: {} via {} ({})",
                b,
                c.plan.kind.as_str(),
                c.plan.strategy,
                c.cost
            )
        })
        .collect()
}

/// The header line on the shared scratch of the own width's plan
/// (`own_bits`-bit elements): bytes, elements, rounds, and the simulated
/// wavefronts and bank conflicts; empty without scratch.
fn smem_line(chosen: &Chosen, own_bits: u32) -> String {
    let plan = &chosen.plan;
    if plan.smem_elems == 0 {
        return String::new();
    }
    let (wf, min_wf) = plan.wavefronts_per_warp();
    let named = plan.named_barrier();
    format!(
        "shared scratch {} bytes ({} elements), {} round(s); per CTA {} wavefronts, minimum {}, {} bank conflicts; per warp {} of at least {}{}",
        plan.smem_elems * (own_bits as u64 / 8),
        plan.smem_elems,
        plan.rounds,
        chosen.sim.smem_wavefronts,
        chosen.sim.min_wavefronts,
        chosen.sim.bank_conflicts,
        wf,
        min_wf,
        named.map_or(String::new(), |(id, threads)| format!(
            "; its warps synchronise with `bar.sync {id}, {threads}`, the named barrier of the warp group it runs on ({}), not `__syncthreads()`: calls that reuse the scratch need that barrier between them",
            if plan.first_warp == 0 {
                format!("the CTA's first {} warps: Triton's default warp group of a warp-specialized kernel", threads / 32)
            } else {
                format!("CTA warps {} to {}: a partition of a warp-specialized kernel", plan.first_warp, plan.first_warp + threads / 32 - 1)
            }
        ))
    )
}

/// The header line on the lower bound of the conversion for `own_bits`-bit
/// elements ([`synth::plan::lower_bound`]: shuffled words or shared-memory
/// accesses per thread, wavefronts per warp); empty where the bound is 0.
fn bound_line(chosen: &Chosen, own_bits: u32) -> String {
    let lb = synth::plan::lower_bound(
        &chosen.analysis,
        own_bits,
        &synth::search::Weights::default(),
    );
    if lb.score > 0.0 {
        format!(
            "lower bound ({}-bit elements): {}{} shared-memory accesses per thread and {} wavefronts per warp for a round trip",
            own_bits,
            lb.shfl_words
                .map(|n| format!("{n} shuffled 32-bit words per thread, or "))
                .unwrap_or_default(),
            lb.smem_accesses,
            lb.smem_wavefronts
        )
    } else {
        String::new()
    }
}

/// What [`packed_forms`] gives: per packed form the template context (its
/// vector form's included), the [`PackedForm`], the body and the vector
/// form's body (bits, body).
struct PackedForms {
    contexts: Vec<minijinja::Value>,
    forms: Vec<PackedForm>,
    bodies: Vec<(u32, Body)>,
    vector_bodies: Vec<(u32, Body)>,
}

/// The C types a vector form of `bits`-bit elements is meant for (its
/// header comment and `static_assert` name them; any 4-byte type serves,
/// but NVVM splits structs of small integers such as `ushort2` and `uchar4`
/// into a register per element, so the types named keep one 32-bit
/// storage: `__half2` compiles to the same SASS as `unsigned` words).
fn vector_types(bits: u32) -> &'static str {
    if bits == 16 {
        "__half2, __nv_bfloat162"
    } else {
        "unsigned, __nv_fp8x4_e4m3, __nv_fp8x4_e5m2"
    }
}

/// The packed forms for 16- and 8-bit elements, from those widths' plans in
/// `variants` ([`body_packed_kir`]), each with its vector form
/// `{ident}_x{32 / bits}` (the caller's arrays of 4-byte vectors through
/// the packed form, [`Arrays::Vectors`]): the template context of each,
/// its [`PackedForm`] and both bodies. `smem_elems`: the helper's scratch
/// in elements (every form takes `smem` when it is not 0).
fn packed_forms(
    conv: &Conversion,
    variants: &[(u32, Chosen)],
    ident: &str,
    smem_elems: u64,
) -> Result<PackedForms, EmitError> {
    let mut packed = Vec::new();
    let mut packed_bits = Vec::new();
    let mut bodies = Vec::new();
    let mut vector_bodies = Vec::new();
    for bits in [16u32, 8] {
        let Some((_, ch)) = variants.iter().find(|(b, _)| *b == bits) else {
            continue;
        };
        let Some(mut body) = body_packed_kir(&conv.name, &ch.plan, bits)? else {
            continue;
        };
        let (ps, pd) = synth::plan::pack::plan_maps(&ch.plan, bits);
        // same signature as the templated helper: `smem` whenever any width uses it
        if smem_elems > 0 && ch.plan.smem_elems == 0 {
            body.stmts.insert(0, Stmt::Void(Expr::Smem));
        }
        let p = 32 / bits;
        let cost = ch.plan.cost_for_width(bits);
        let (vector, vector_note) = vector_form(ident, bits, &ch.plan, smem_elems > 0);
        packed.push(context! {
            vector_body => vector.lines(),
            vector_note => vector_note,
            vector_types => vector_types(bits),
            bits => bits,
            per => p,
            src_words => ch.plan.src_regs / p,
            dst_words => ch.plan.dst_regs / p,
            smem => smem_elems > 0,
            ctype => if bits == 8 { "unsigned char" } else { "unsigned short" },
            cost => cost.to_string(),
            strategy => ch.plan.strategy,
            src_pack => pack_doc(&ps),
            dst_pack => pack_doc(&pd),
            body => body.lines(),
        });
        packed_bits.push(PackedForm {
            bits,
            src: ps,
            dst: pd,
        });
        bodies.push((bits, body));
        vector_bodies.push((bits, vector));
    }
    Ok(PackedForms {
        contexts: packed,
        forms: packed_bits,
        bodies,
        vector_bodies,
    })
}

/// The vector form's body for `bits`-bit elements of `plan` (`{ident}_x2`,
/// `{ident}_x4`; `smem`: whether the forms take the scratch pointer) and
/// the header's words on how it runs: the packed form, its words reordered
/// from and to the natural ones by `prmt` programs ([`body_via_packed`]
/// with [`Arrays::Vectors`]; none where the packed form already packs the
/// natural pairs).
///
/// Why not the element body on the vectors' halves where the element form
/// goes element by element: compiled for sm_90 in `warpforge bench`'s
/// round-trip kernels on `ushort2` arrays, that body took more instructions
/// than this one on every 16-bit corpus conversion where the two differ
/// (`results/runs/2026-11-28-h100-vector-forms-6850643/`).
fn vector_form(ident: &str, bits: u32, plan: &synth::plan::Plan, smem: bool) -> (Body, String) {
    let (b, prmt) = through_packed(ident, bits, plan, smem, Arrays::Vectors);
    let note = if prmt == 0 {
        format!(
            "Through {ident}_packed{bits}, whose words are the natural ones: no prmt of its own"
        )
    } else {
        format!(
            "Through {ident}_packed{bits}; {prmt} prmt per thread reorder the words to and from its word order"
        )
    };
    (b, note)
}

/// Where the own width's (`own_bits`) element form of `plan` under
/// `automatic` is predicted over the register limit of `threads`-thread
/// launch bounds, that peak, so that the words line says what avoids the
/// spill; `None` otherwise.
fn over_limit(plan: &synth::plan::Plan, own_bits: u32, threads: u32) -> Option<OverLimit> {
    let e = synth::plan::element_form_peak(plan, own_bits, threads).peak;
    let limit = plan.register_limit(threads);
    (e > limit).then_some(OverLimit::Peak {
        bits: own_bits,
        peak: e,
        limit,
        threads,
    })
}

/// The element form's body for `bits`-bit elements through the packed form
/// ([`body_via_packed`]), its `prmt` count and which arrays it holds as
/// words, where the plan can go that way ([`goes_through_packed`]) and holds
/// at least [`VIA_PACKED_MIN_ELEMS`] elements per thread on each side, and
/// `bits` is 8 (both arrays), or 16 where
/// [`synth::plan::element_form_words`] holds either array as words (both,
/// two natural words at a time, for 8-bit data and for 16-bit data through
/// the packed form); `None` otherwise (the element-by-element body). Not
/// asked for [`folded`] widths, whose rule holds both arrays as words
/// without the packed form.
///
/// Measured on an H100 (`results/runs/2026-11-23-h100-h2h-before-after-c974b82/`, `results/runs/2026-11-23-h100-words16-15129ee/`): 8-bit words, in the
/// reference harness h2h, take fewer loop registers and less time
/// (`warp_local_i8_64x64`, `colsum_trans_i8`). 16-bit data trades registers
/// for the caller's per-element work: with every 16-bit element form
/// through 4-byte words, bench loop registers fell on every 16-bit
/// conversion but the caller's `b[i] ^= 1` became a `prmt` extract and
/// insert per element, and most rows got slower (a few got faster, such as
/// `epilogue_f16_256x128`, which went from one CTA per SM to two): 4-byte
/// words of 16-bit data became `<2 x i16>` vectors in NVVM. Moved two words
/// at a time (8 bytes) they are widened to integers and the caller's work
/// folds.
fn element_via_packed(
    name: &str,
    ident: &str,
    bits: u32,
    plan: &synth::plan::Plan,
    smem: bool,
    threads: u32,
) -> Result<Option<(Body, usize, synth::plan::HeldWords)>, EmitError> {
    let held = if bits == 8 {
        synth::plan::HeldWords::BOTH
    } else {
        synth::plan::element_form_words(plan, bits, threads)
    };
    if !held.any()
        || plan.src_regs.min(plan.dst_regs) < VIA_PACKED_MIN_ELEMS
        || !goes_through_packed(name, plan, bits)?
    {
        return Ok(None);
    }
    let (b, prmt) = via_packed(ident, bits, plan, smem, held);
    Ok(Some((b, prmt, held)))
}

/// Whether the element form of `plan` for `bits`-bit elements (CTAs of
/// `threads`) reads the caller's arrays as natural words and folds the
/// plan's first and last selects into the `prmt` that build its words
/// ([`synth::plan::WordsRule::Folded`]): [`body_kir`], not through the packed
/// form; `automatic` is `both` ([`element_word_choices`] then offers the
/// other choices through the packed form).
fn folded(plan: &synth::plan::Plan, bits: u32, threads: u32) -> bool {
    synth::plan::element_form_rule(plan, bits, threads) == synth::plan::WordsRule::Folded
}

/// The header note for `bits`-bit elements whose element form folds the
/// plan's selects into the `prmt` that build its words ([`folded`]).
fn folded_note(bits: u32) -> String {
    format!(
        "{bits}-bit elements in this form: the arrays move as natural 32-bit words, two at a time by an 8-byte memcpy (the caller's per-element work on them folds into 32-bit operations); the plan's own words are built from them by prmt with lane-dependent selectors that fold its first and last selects (not through the packed form)"
    )
}

/// Whether the element form of `plan` for `bits`-bit elements can go
/// through its packed form ([`body_via_packed`]): 8/16-bit elements, a plan
/// that moves data (a shuffle or shared-memory plan; renames cost nothing
/// element by element) and has a packed form for `bits`, and that does not
/// already read the arrays as natural words itself ([`word_pun`]).
fn goes_through_packed(name: &str, plan: &synth::plan::Plan, bits: u32) -> Result<bool, EmitError> {
    let moves = matches!(
        plan.kind,
        synth::plan::Kind::Shuffle | synth::plan::Kind::Shared
    );
    Ok((bits == 8 || bits == 16)
        && moves
        && !word_pun(plan)
        && body_packed_kir(name, plan, bits)?.is_some())
}

/// [`body_via_packed`] for `plan`'s packed form `{ident}_packed{bits}`,
/// with `words` the arrays held as natural words.
fn via_packed(
    ident: &str,
    bits: u32,
    plan: &synth::plan::Plan,
    smem: bool,
    words: Words,
) -> (Body, usize) {
    through_packed(ident, bits, plan, smem, Arrays::Elements(words))
}

/// [`body_via_packed`] for `plan`'s packed form `{ident}_packed{bits}`,
/// on the caller's `arrays`.
fn through_packed(
    ident: &str,
    bits: u32,
    plan: &synth::plan::Plan,
    smem: bool,
    arrays: Arrays,
) -> (Body, usize) {
    let (ps, pd) = synth::plan::pack::plan_maps(plan, bits);
    body_via_packed(
        &format!("{ident}_packed{bits}"),
        bits,
        plan.src_regs,
        plan.dst_regs,
        &ps,
        &pd,
        smem,
        arrays,
    )
}

/// The element form's body for `bits`-bit elements with the caller's choice
/// of which arrays move as natural 32-bit words (the helper's template
/// parameter `warpforge::words kWords`): `if constexpr` branches for
/// `none` (element by element, [`body`]), `src`, `dst` and `both` (through
/// the packed form, [`body_via_packed`] with [`Words`]), `automatic` taking
/// `auto_body` (the emitter's own choice, `auto_words`: which arrays it
/// holds as words, [`synth::plan::element_form_words`]). `None` where the choice does not apply and the parameter is
/// ignored: 32/64-bit elements, plans that move nothing (renames), plans
/// without a packed form for `bits`, and 8-bit plans that pack bytes
/// themselves ([`word_pun`]: their element form always reads words).
///
/// Why a caller's choice: the words of an array cost the caller a `prmt`
/// extract and insert per element it works on, and save one register per
/// element pair it holds. Measured with `warpforge bench` on an H100
/// (`results/runs/2026-11-24-h100-carried-words-6ef7222/`): holding the caller's loop-carried array
/// (the one it does no per-element work on) as words (`bench`'s `carried`
/// form) made `transpose_f16_256x256` (32 warps) and `attn:114` faster,
/// where holding the other array, or both, made them slower; a helper
/// cannot tell which array that is, since the same helper is the forward
/// call of one loop and the reverse call of another.
fn element_word_choices(
    name: &str,
    ident: &str,
    bits: u32,
    plan: &synth::plan::Plan,
    smem: bool,
    auto_body: &Body,
    auto_words: synth::plan::HeldWords,
) -> Result<Option<Body>, EmitError> {
    if !goes_through_packed(name, plan, bits)? {
        return Ok(None);
    }
    let via = |w: Words| via_packed(ident, bits, plan, smem, w).0;
    let none = if auto_words.any() {
        body_kir_with(name, plan, false)?
    } else {
        auto_body.clone()
    };
    let mut branches: Vec<(&'static str, Body)> = vec![("none", none)];
    for w in WORD_CHOICES {
        let b = if w == auto_words {
            auto_body.clone()
        } else {
            via(w)
        };
        branches.push((w.name(), b));
    }
    let mut out = Body::default();
    out.push(Stmt::WordsChoice {
        auto: auto_words.name(),
    });
    let (last, last_body) = branches.pop().expect("four branches");
    let arms = branches
        .into_iter()
        .map(|(n, b)| (Cond::Words(n), out.adopt(b)))
        .collect();
    let otherwise = Else::Words(last, out.adopt(last_body));
    out.push(Stmt::IfConstexpr { arms, otherwise });
    Ok(Some(out))
}

/// What the `warpforge::words` line adds where `automatic` may not fit the
/// caller ([`words_line`]).
enum OverLimit {
    /// The own width's element form under `automatic` is predicted at `peak`
    /// registers, over the `limit` of `threads`-thread launch bounds.
    Peak {
        bits: u32,
        peak: u32,
        limit: u32,
        threads: u32,
    },
}

/// The header line naming the widths whose element form takes
/// `warpforge::words` and what `automatic` is for each (`choices`: bits,
/// enumerator), with advice where `over_limit` says `automatic` may not fit
/// ([`OverLimit`]): name the carried array, or call the packed form.
fn words_line(choices: &[(u32, &str)], over_limit: Option<OverLimit>) -> String {
    if choices.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = choices
        .iter()
        .map(|(b, a)| format!("{b}-bit (automatic = {a})"))
        .collect();
    let mut s = format!(
        "element form's warpforge::words (which arrays move as natural 32-bit words): {}; other widths ignore it",
        parts.join(", ")
    );
    const NAME: &str = "name the array you carry (words::src on the call that reads it, words::dst on the call that writes it back), or call the packed form";
    match over_limit {
        Some(OverLimit::Peak {
            bits,
            peak,
            limit,
            threads,
        }) => {
            s += &format!(
                ". With automatic the {bits}-bit element form is predicted at ~{peak} registers, over the {limit} {}: {NAME}",
                if limit < synth::plan::register_limit(threads) {
                    "the partition's `setmaxnreg` budget allows".to_string()
                } else {
                    format!("that __launch_bounds__({threads}) allows")
                }
            );
        }
        None => {}
    }
    s
}

/// The header line that states the scratch of every element width (empty
/// when no width uses shared memory): `scratch by element width: 1-byte
/// 16384 bytes (1 round), ..., 8-byte not served (static_assert)`.
fn scratch_line(widths: &[WidthScratch], smem_elems: u64) -> String {
    if smem_elems == 0 {
        return String::new();
    }
    let parts: Vec<String> = synth::search::WIDTHS
        .iter()
        .map(|&b| match widths.iter().find(|w| w.bits == b) {
            Some(w) if w.bytes == 0 => format!("{}-byte none", b / 8),
            Some(w) => format!(
                "{}-byte {} bytes ({} round{})",
                b / 8,
                w.bytes,
                w.rounds,
                if w.rounds == 1 { "" } else { "s" }
            ),
            None => format!("{}-byte not served (static_assert)", b / 8),
        })
        .collect();
    format!("scratch by element width: {}", parts.join(", "))
}

/// The header line that states the predicted register peak of the own
/// width's plan in each form and the limit the launch bounds set
/// (docs/ARCHITECTURE.md 4.6; [`synth::plan::peak_registers`]). Where the
/// element form moves the arrays as 32-bit words (`held`, see
/// [`synth::plan::element_form_words`]) its peak counts them as the packed form's
/// and the line says what one register per element would have left
/// resident; otherwise, where the element form's predicted registers leave
/// fewer CTAs resident per SM than the packed form's (at most 4 of them),
/// both counts ([`synth::plan::resident_ctas_by_form`]).
fn register_line(
    plan: &synth::plan::Plan,
    bits: u32,
    warps: u32,
    held: synth::plan::HeldWords,
) -> String {
    use synth::plan::{peak_registers, peak_registers_held, register_limit, resident_ctas_by_form};
    let threads = plan.lanes * warps;
    let limit = plan.register_limit(threads);
    let e = peak_registers_held(plan, bits, held);
    // what one register per element would have left is said where words
    // were taken for it (both arrays as words: 8-bit data, 16-bit data
    // through the packed form); what words leave: the packed form's
    // registers
    let element_words = held == synth::plan::HeldWords::BOTH;
    let mut s = format!(
        "predicted register peak per thread ({bits}-bit elements): element form ~{} ({} of data{})",
        e.peak,
        e.data,
        match held.name() {
            "none" => String::new(),
            "both" => ", held as 32-bit words".to_string(),
            side => format!(", the {side} array held as 32-bit words"),
        }
    );
    let mut occupancy = String::new();
    if bits < 32 && plan.packed_form(bits) {
        let p = peak_registers(plan, bits, true);
        s += &format!(", packed form ~{} ({} of data)", p.peak, p.data);
        if let Some((ce, cp)) = resident_ctas_by_form(plan, bits, threads) {
            let one = peak_registers(plan, bits, false).peak;
            let ctas = |n: u32| format!("{n} CTA{}", if n == 1 { "" } else { "s" });
            if element_words && ce < cp {
                occupancy = format!(
                    "; one register per element (~{one}) would leave {} of {threads} threads resident per SM, words {cp}",
                    ctas(ce)
                );
            } else if ce < cp && ce <= 4 {
                occupancy = format!(
                    "; by these registers the element form leaves {} of {threads} threads resident per SM, the packed form {cp}",
                    ctas(ce)
                );
            }
        }
    }
    if limit < register_limit(threads) {
        s += &format!(
            "; the partition's `setmaxnreg` budget allows {limit} (__launch_bounds__({threads}) {}){occupancy}",
            register_limit(threads)
        );
    } else {
        s += &format!("; __launch_bounds__({threads}) allows {limit}{occupancy}");
    }
    let data = if bits < 32 && plan.packed_form(bits) {
        peak_registers(plan, bits, true).data
    } else {
        e.data
    };
    if data > limit {
        s += &format!(
            "; PREDICTED SPILL: the data alone ({data} registers) is over the {limit} a thread can hold here, so ptxas will spill to local memory (as it does for Triton's own lowering of this tile)"
        );
    }
    s
}

/// The definition of function `name` in emitted `code`, from its `void
/// name(` through the line before its closing `}` at column 0; `None` when
/// the code has no definition of it. The packed forms are declared ahead of
/// the templated helper that calls them, so the first `void name(` can be a
/// declaration: this skips lines that do not open a body.
pub fn definition<'a>(code: &'a str, name: &str) -> Option<&'a str> {
    let sig = format!("void {name}(");
    let start = code
        .match_indices(&sig)
        .map(|(i, _)| i)
        .find(|&i| code[i..].lines().next().is_some_and(|l| l.ends_with('{')))?;
    let end = code[start..].find("\n}")?;
    Some(&code[start..start + end])
}
