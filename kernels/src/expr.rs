/// A GF(2)-linear function of a run-time `unsigned` variable as a C
/// expression: column `j` is what input bit `j` contributes (XOR). Unit
/// columns with the same bit shift are grouped into one mask-and-shift term.
pub fn linear_expr(var: &str, cols: &[u32]) -> String {
    let mut by_shift: std::collections::BTreeMap<i32, u32> = Default::default();
    let mut terms = Vec::new();
    for (j, &c) in cols.iter().enumerate() {
        if c == 0 {
            continue;
        }
        if c.count_ones() == 1 {
            let t = c.trailing_zeros() as i32;
            *by_shift.entry(t - j as i32).or_default() |= 1 << j;
        } else {
            terms.push(format!("((0u - (({var} >> {j}) & 1u)) & {c}u)"));
        }
    }
    let mut unit: Vec<String> = Vec::new();
    for (s, m) in by_shift {
        unit.push(match s.cmp(&0) {
            std::cmp::Ordering::Equal => format!("({var} & {m}u)"),
            std::cmp::Ordering::Greater => format!("(({var} & {m}u) << {s})"),
            std::cmp::Ordering::Less => format!("(({var} & {m}u) >> {})", -s),
        });
    }
    unit.extend(terms);
    let terms = unit;
    if terms.is_empty() {
        "0u".into()
    } else {
        terms.join(" ^ ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_expr_groups_shifts() {
        assert_eq!(linear_expr("lane", &[1, 2, 4, 8, 16]), "(lane & 31u)");
        assert_eq!(
            linear_expr("lane", &[2, 1, 4, 8, 16]),
            "((lane & 2u) >> 1) ^ (lane & 28u) ^ ((lane & 1u) << 1)"
        );
        assert_eq!(linear_expr("lane", &[0, 0]), "0u");
        assert_eq!(linear_expr("x", &[3]), "((0u - ((x >> 0) & 1u)) & 3u)");
    }
}
