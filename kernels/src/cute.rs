use crate::ident::stable_hash;
use crate::render::{env, word_regs};
use crate::{emit_header, EmitError, EmittedHelper};
use minijinja::context;

/// The C++ API an emitted header offers its helpers in.
///
/// Every header has the array forms (`const T (&src)[S], T (&dst)[D]` and,
/// where the plan allows, `<ident>_packed{16,8}` on `unsigned` word arrays).
/// [`Api::Cute`] adds, after them and in the same `namespace warpforge`, an
/// overload of each on CuTe register fragments
/// (`cute::Tensor<cute::ArrayEngine<T, N>, Layout>`), which needs CUTLASS's
/// `<cute/tensor.hpp>` on the include path (docs/ARCHITECTURE.md section 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Api {
    /// Register arrays only; the header includes nothing.
    #[default]
    Array,
    /// The array forms plus overloads on CuTe register fragments; the header
    /// includes `<cute/tensor.hpp>` where `__has_include` finds it.
    Cute,
}

/// The template of the CuTe section (hashed for its composition guard).
pub(crate) const CUTE: &str = include_str!("../templates/cute.cuh.j2");

/// [`emit_header`] offering the helpers in `api`: with [`Api::Array`] the
/// same text as [`emit_header`]; with [`Api::Cute`] that text followed by
/// the CuTe section ([`cute_section`]).
pub fn emit_header_api(
    helpers: &[EmittedHelper],
    origin: &str,
    api: Api,
) -> Result<String, EmitError> {
    let mut header = emit_header(helpers, origin)?;
    if api == Api::Cute {
        header.push('\n');
        header += &cute_section(helpers)?;
    }
    Ok(header)
}

/// The CuTe overloads of `helpers` as a header section to follow their
/// array forms (it calls them): `#include <cute/tensor.hpp>` guarded by
/// `__has_include` (and `WARPFORGE_NO_CUTE`), a `warpforge::detail` part
/// guarded by `WARPFORGE_CUTE_DETAIL_H`, and per helper, under
/// `WARPFORGE_CUTE_<ident>`, [`cute_overloads`].
pub fn cute_section(helpers: &[EmittedHelper]) -> Result<String, EmitError> {
    cute_section_of(&helpers.iter().collect::<Vec<_>>())
}

/// [`cute_section`] of the helpers `helpers` refers to (those a header
/// ships, when some of a file's helpers are left out).
pub fn cute_section_of(helpers: &[&EmittedHelper]) -> Result<String, EmitError> {
    let guarded = helpers
        .iter()
        .map(|h| {
            let code = cute_overloads(h)?;
            Ok(context! {
                ident => h.ident,
                hash => format!("0x{:012x}", stable_hash(&[&code]) >> 16),
                code => code,
            })
        })
        .collect::<Result<Vec<_>, EmitError>>()?;
    Ok(env().get_template("cute")?.render(context! {
        detail_hash => format!("0x{:012x}", stable_hash(&[CUTE]) >> 16),
        helpers => guarded,
    })?)
}

/// The CuTe overloads of one helper `h`: `<ident>(const cute::Tensor<SE,
/// SL>& src, cute::Tensor<DE, DL>& dst[, void* smem])`, which
/// `static_assert`s that both are owning register fragments
/// (`cute::is_rmem` and `cute::ArrayEngine`) of `cute::size` `h.src_regs`
/// and `h.dst_regs` holding one element type of whole bytes, copies
/// `src(i)` to register `i` of the array form, calls it and copies
/// register `i` of its result to `dst(i)`; and for each packed form of `h`,
/// `<ident>_packed<bits>` on fragments of `bits`-bit elements, packing
/// `src(i)` into words as that form packs register `i` (and unpacking
/// `dst`). `smem` is passed on where the array form takes it.
pub fn cute_overloads(h: &EmittedHelper) -> Result<String, EmitError> {
    let packed: Vec<minijinja::Value> = h
        .packed
        .iter()
        .map(|pf| {
            let per = 32 / pf.bits;
            context! {
                bits => pf.bits,
                per => per,
                ctype => if pf.bits == 8 { "unsigned char" } else { "unsigned short" },
                examples => if pf.bits == 8 {
                    "int8_t, uint8_t, cute::float_e4m3_t, cute::float_e5m2_t, ..."
                } else {
                    "cute::half_t, cute::bfloat16_t, int16_t, ..."
                },
                src_words => h.src_regs / per,
                dst_words => h.dst_regs / per,
                src_pack => word_regs(&pf.src, h.src_regs, pf.bits),
                dst_pack => word_regs(&pf.dst, h.dst_regs, pf.bits),
            }
        })
        .collect();
    Ok(env().get_template("cute_helper")?.render(context! {
        ident => h.ident,
        src_regs => h.src_regs,
        dst_regs => h.dst_regs,
        smem => h.smem_elems > 0,
        packed => packed,
    })?)
}
