use crate::ident::stable_hash;
use crate::render::{env, HEADER};
use crate::{EmitError, EmittedHelper};
use minijinja::context;

/// The whole header: preamble plus every helper, in order.
///
/// Headers compose: any number of them may be included in one translation
/// unit. The shared `warpforge::detail` functions are defined once, under
/// the include guard `WARPFORGE_DETAIL_H` (whose value identifies their
/// text: headers with different detail code stop with `#error`), and each
/// helper under `WARPFORGE_HELPER_<ident>` (the hash of its code): the same
/// helper from two headers is defined once, two different helpers with one
/// name stop with an `#error` that says to emit one with another prefix.
pub fn emit_header(helpers: &[EmittedHelper], origin: &str) -> Result<String, EmitError> {
    let guarded: Vec<minijinja::Value> = helpers
        .iter()
        .map(|h| {
            context! {
                ident => h.ident,
                hash => format!("0x{:012x}", stable_hash(&[&h.code]) >> 16),
                code => h.code,
            }
        })
        .collect();
    Ok(env().get_template("header")?.render(context! {
        version => env!("CARGO_PKG_VERSION"),
        origin => origin,
        detail_hash => format!("0x{:012x}", stable_hash(&[HEADER]) >> 16),
        helpers => guarded,
    })?)
}
