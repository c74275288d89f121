//! The element types the GPU check runs with, and how CUDA spells each.

/// Element types the GPU check runs with. Types without a CUDA arithmetic
/// type of their own move as their bits: `bf16` as `unsigned short`, the
/// fp8 types as `unsigned char`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    I8,
    /// `f8E4M3FN` (as its bits).
    F8E4M3FN,
    /// `f8E5M2` (as its bits).
    F8E5M2,
    I16,
    F16,
    /// `bf16` (as its bits).
    Bf16,
    I32,
    F32,
    I64,
    F64,
}

impl DType {
    /// Every type, in width order.
    pub const ALL: [DType; 10] = [
        DType::I8,
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::I16,
        DType::F16,
        DType::Bf16,
        DType::I32,
        DType::F32,
        DType::I64,
        DType::F64,
    ];
    /// Parse a name of [`DType::name`] (`i8`, `f8E4M3FN`, `f8E5M2`, `i16`,
    /// `f16`, `bf16`, `i32`, `f32`, `i64`, `f64`).
    pub fn parse(s: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == s)
    }
    /// Bits per element.
    pub fn bits(&self) -> u32 {
        match self {
            DType::I8 | DType::F8E4M3FN | DType::F8E5M2 => 8,
            DType::I16 | DType::F16 | DType::Bf16 => 16,
            DType::I32 | DType::F32 => 32,
            DType::I64 | DType::F64 => 64,
        }
    }
    /// The name as TTGIR spells the type.
    pub fn name(&self) -> &'static str {
        match self {
            DType::I8 => "i8",
            DType::F8E4M3FN => "f8E4M3FN",
            DType::F8E5M2 => "f8E5M2",
            DType::I16 => "i16",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::I32 => "i32",
            DType::F32 => "f32",
            DType::I64 => "i64",
            DType::F64 => "f64",
        }
    }
}

/// The 4-byte vector type the check kernels hold 8/16-bit elements of C
/// type `ct` in for a helper's vector form (`<ident>_x2`, `<ident>_x4`):
/// `__half2` for `__half`, else `unsigned` (natural words, as MMA fragments
/// hold them). Not `ushort2` or `uchar4`: NVVM splits those structs into a
/// register per element (`results/runs/2026-11-28-h100-vector-forms-6850643/`).
pub(crate) fn vector_ctype(ct: &str) -> &'static str {
    if ct == "__half" {
        "__half2"
    } else {
        "unsigned"
    }
}

/// The C type the check kernels hold `d` in (`half`: f16 as `__half`).
pub(crate) fn ctype(d: DType, half: bool) -> &'static str {
    match d {
        DType::I8 => "signed char",
        DType::F8E4M3FN | DType::F8E5M2 => "unsigned char",
        DType::I16 => "short",
        DType::F16 if half => "__half",
        DType::F16 | DType::Bf16 => "unsigned short",
        DType::I32 => "int",
        DType::F32 => "float",
        DType::I64 => "long long",
        DType::F64 => "double",
    }
}
