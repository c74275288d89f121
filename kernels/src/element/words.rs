/// 32-bit words (C expressions) holding `vals`, elements of `width` bits.
pub(crate) fn pack_words(vals: &[String], width: u32) -> Vec<String> {
    match width {
        64 => vals
            .iter()
            .flat_map(|v| {
                [
                    format!("(unsigned)detail::to_u64({v})"),
                    format!("(unsigned)(detail::to_u64({v}) >> 32)"),
                ]
            })
            .collect(),
        32 => vals
            .iter()
            .map(|v| format!("detail::to_u32({v})"))
            .collect(),
        _ => vals
            .chunks((32 / width) as usize)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .map(|(i, v)| {
                        if i == 0 {
                            format!("detail::to_u32({v})")
                        } else {
                            format!("(detail::to_u32({v}) << {})", i as u32 * width)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
            .collect(),
    }
}

/// Elements (C expressions of type T) held by 32-bit words `words`.
pub(crate) fn unpack_words(words: &[String], width: u32, n: usize) -> Vec<String> {
    match width {
        64 => words
            .chunks(2)
            .map(|c| format!("detail::from_u64<T>({}, {})", c[0], c[1]))
            .collect(),
        32 => words
            .iter()
            .map(|w| format!("detail::from_u32<T>({w})"))
            .collect(),
        _ => {
            let per = (32 / width) as usize;
            (0..n)
                .map(|e| {
                    let w = &words[e / per];
                    let sh = (e % per) as u32 * width;
                    if sh == 0 {
                        format!("detail::from_u32<T>({w})")
                    } else {
                        format!("detail::from_u32<T>({w} >> {sh})")
                    }
                })
                .collect()
        }
    }
}
