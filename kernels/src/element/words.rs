use crate::kir::{Expr, Func, Op};

/// `detail::to_u32(v)`.
fn to_u32(v: &Expr) -> Expr {
    Expr::call(Func::ToU32, vec![v.clone()])
}

/// 32-bit words holding `vals` (values of type `T`), elements of `width`
/// bits: two words `(unsigned)detail::to_u64(v)` and `(unsigned)
/// (detail::to_u64(v) >> 32)` per 64-bit element, `detail::to_u32(v)` per
/// 32-bit one, else `32 / width` elements a word, `detail::to_u32(v0) |
/// (detail::to_u32(v1) << width) | ...`.
pub(crate) fn pack_words(vals: &[Expr], width: u32) -> Vec<Expr> {
    match width {
        64 => vals
            .iter()
            .flat_map(|v| {
                let wide = Expr::call(Func::ToU64, vec![v.clone()]);
                let hi = Expr::paren(Expr::bin(Op::Shr, wide.clone(), Expr::int(32)));
                [Expr::CastU32(Box::new(wide)), Expr::CastU32(Box::new(hi))]
            })
            .collect(),
        32 => vals.iter().map(to_u32).collect(),
        _ => vals
            .chunks((32 / width) as usize)
            .map(|c| {
                let parts = c.iter().enumerate().map(|(i, v)| {
                    if i == 0 {
                        to_u32(v)
                    } else {
                        Expr::paren(Expr::bin(Op::Shl, to_u32(v), Expr::int(i as u32 * width)))
                    }
                });
                Expr::chain(Op::Or, parts).expect("a chunk has an element")
            })
            .collect(),
    }
}

/// The `n` elements (values of type `T`) held by 32-bit `words`, elements
/// of `width` bits: `detail::from_u64<T>(lo, hi)`,
/// `detail::from_u32<T>(w)`, or `detail::from_u32<T>(w >> shift)`.
pub(crate) fn unpack_words(words: &[Expr], width: u32, n: usize) -> Vec<Expr> {
    let from = |e: Expr| Expr::call(Func::FromU32, vec![e]);
    match width {
        64 => words
            .chunks(2)
            .map(|c| Expr::call(Func::FromU64, vec![c[0].clone(), c[1].clone()]))
            .collect(),
        32 => words.iter().map(|w| from(w.clone())).collect(),
        _ => {
            let per = (32 / width) as usize;
            (0..n)
                .map(|e| {
                    let w = words[e / per].clone();
                    let sh = (e % per) as u32 * width;
                    if sh == 0 {
                        from(w)
                    } else {
                        from(Expr::bin(Op::Shr, w, Expr::int(sh)))
                    }
                })
                .collect()
        }
    }
}
