/// A C identifier for a conversion name: `attn:104` -> `wf_attn_104`.
pub fn ident_for(name: &str) -> String {
    ident_with_prefix("wf_", name)
}

/// `prefix` followed by `name` with every character that is not an ASCII
/// letter or digit replaced by `_`: `("my_", "attn:104")` -> `my_attn_104`.
pub fn ident_with_prefix(prefix: &str, name: &str) -> String {
    let mut s = String::from(prefix);
    for c in name.chars() {
        s.push(if c.is_ascii_alphanumeric() { c } else { '_' });
    }
    s
}

/// FNV-1a, 64 bits: a stable hash (same value on every machine and build)
/// for guard values and default names.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.as_bytes().iter().chain(std::iter::once(&0xffu8)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ident_is_a_c_identifier() {
        assert_eq!(ident_for("attn:104"), "wf_attn_104");
        assert_eq!(ident_for("a.b-c:1"), "wf_a_b_c_1");
    }
}
