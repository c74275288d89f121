use crate::ident::stable_hash;
use crate::render::{env, HEADER};
use crate::{EmitError, EmittedHelper, RefusedHelper};
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
    let items: Vec<HeaderItem> = helpers.iter().map(HeaderItem::Helper).collect();
    emit_header_items(&items, origin)
}

/// One entry of a header: a helper, or the declarations of a refused
/// conversion.
#[derive(Clone, Copy, Debug)]
pub enum HeaderItem<'a> {
    Helper(&'a EmittedHelper),
    Refused(&'a RefusedHelper),
}

/// [`emit_header`] of `items` in order: each helper under its guard (and,
/// where it states a target, only for its vendor, `#if !defined(__HIP__)`
/// or `#if defined(__HIP__)`, with an `__CUDA_ARCH__` check that stops an
/// older architecture, or on AMD a wave-size check, with `#error`), each refused conversion as declarations of
/// its names whose use fails with a `static_assert` giving the reason.
pub fn emit_header_items(items: &[HeaderItem], origin: &str) -> Result<String, EmitError> {
    let entries: Vec<minijinja::Value> = items.iter().map(|it| item_context(*it)).collect();
    Ok(env().get_template("header")?.render(context! {
        version => env!("CARGO_PKG_VERSION"),
        origin => comment_text(origin),
        detail_hash => format!("0x{:012x}", stable_hash(&[HEADER]) >> 16),
        helpers => entries,
    })?)
}

/// The template context of one header entry.
fn item_context(it: HeaderItem) -> minijinja::Value {
    match it {
        HeaderItem::Helper(h) => {
            let mut platform = "";
            let mut wave_check = String::new();
            let (target_line, arch, arch_error) = match &h.target {
                Some(t) if t.amd.is_some() => {
                    let a = t.amd.expect("checked");
                    platform = "defined(__HIP__)";
                    // CDNA (gfx9) runs wave64 only; RDNA wave32 as Triton compiles
                    // for it, unless built with -mwavefrontsize64, which defines no
                    // macro (clang 22 has no __AMDGCN_WAVEFRONT_SIZE__) but drops the
                    // wave32-only ballot builtin
                    wave_check = if a.lanes() == 64 {
                        "defined(__HIP_DEVICE_COMPILE__) && !defined(__GFX9__)".into()
                    } else {
                        "defined(__HIP_DEVICE_COMPILE__) && (defined(__GFX9__) || !__has_builtin(__builtin_amdgcn_ballot_w32))".into()
                    };
                    (
                        format!(
                            "target: AMD {a} ({}), {}-lane waves; compiles under HIP only, an AMD GPU of another wave size stops with #error",
                            comment_text(&t.from),
                            a.lanes()
                        ),
                        0,
                        c_string(&format!(
                            "warpforge: {} was planned for {a} ({}) on {}-lane waves: this pass compiles for an AMD GPU whose waves differ; emit it again for that target",
                            h.ident,
                            t.from,
                            a.lanes()
                        )),
                    )
                }
                Some(t) => {
                    platform = "!defined(__HIP__)";
                    (
                        format!(
                            "target: sm_{} ({}); compiles for sm_{} and newer, an older architecture stops with #error",
                            t.sm,
                            comment_text(&t.from),
                            t.sm
                        ),
                        t.sm * 10,
                        c_string(&format!(
                            "warpforge: {} was planned for sm_{} ({}) and may use its instructions: this pass compiles for an older architecture; emit it again for that target (warpforge emit --sm NN)",
                            h.ident, t.sm, t.from
                        )),
                    )
                }
                None => (String::new(), 0, String::new()),
            };
            let target_key = h
                .target
                .as_ref()
                .map(|t| t.amd.map_or(t.sm.to_string(), |a| a.name().to_string()))
                .unwrap_or_default();
            context! {
                refused => false,
                ident => h.ident,
                hash => format!("0x{:012x}", stable_hash(&[&h.code, &target_key]) >> 16),
                code => h.code,
                target_line => target_line,
                arch => arch,
                arch_error => arch_error,
                platform => platform,
                wave_check => wave_check,
            }
        }
        HeaderItem::Refused(r) => {
            let msg = c_string(&format!(
                "warpforge refused {} ({}): {}",
                r.name, r.file, r.reason
            ));
            context! {
                refused => true,
                ident => r.ident,
                hash => format!("0x{:012x}", stable_hash(&[&r.ident, &r.reason]) >> 16),
                name => comment_text(&r.name),
                file => comment_text(&r.file),
                reason => comment_text(&r.reason),
                msg => msg,
            }
        }
    }
}

/// `s` made safe for one `//` comment line: control characters become
/// spaces, and a trailing backslash (which would splice the next line
/// into the comment) is followed by a `.`.
pub fn comment_text(s: &str) -> String {
    let mut t: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if t.trim_end().ends_with('\\') {
        t = t.trim_end().to_string();
        t.push('.');
    }
    t
}

/// `s` as the contents of a C string literal (without the quotes):
/// printable ASCII as is except `"`, `\\` and `?` (escaped; `?` against
/// trigraphs), every other byte as a three-digit octal escape.
pub fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

#[cfg(test)]
mod text_tests {
    use super::*;

    #[test]
    fn comments_and_strings_cannot_be_escaped() {
        assert_eq!(comment_text("a\nb\r#define x"), "a b #define x");
        assert_eq!(comment_text("ends in \\"), "ends in \\.");
        assert_eq!(
            c_string("q\"b\\n?\n\u{e9}"),
            "q\\\"b\\\\n\\?\\012\\303\\251"
        );
    }
}
