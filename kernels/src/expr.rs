/// A GF(2)-linear function of a run-time `unsigned` variable as a C
/// expression: column `j` is what input bit `j` contributes (XOR). Unit
/// columns with the same bit shift are grouped into one mask-and-shift term.
pub fn linear_expr(var: &str, cols: &[u32]) -> String {
    // printed from the kernel IR's expression, so both spell it alike
    let mut body = crate::kir::Body::default();
    let v = body.val(var, crate::kir::Ty::U32);
    crate::kir::print::expr(&body, &crate::kir::Expr::linear(v, cols))
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
