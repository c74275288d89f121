//! Helpers shared by the integration tests of `synth` (each test file that
//! uses them declares `mod common;`).

use synth::parse::parse_ttgir;
use synth::plan::Conversion;

/// The conversion of `file` (a path under the repository root, e.g.
/// `tests/data/stress_w32.ttgir`) whose name starts with `name`. Panics
/// (failing the test) when the file or the conversion is missing.
pub fn conversion(file: &str, name: &str) -> Conversion {
    let p = format!("{}/../{file}", env!("CARGO_MANIFEST_DIR"));
    let f = parse_ttgir(&std::fs::read_to_string(&p).unwrap()).unwrap();
    f.converts
        .iter()
        .map(|op| Conversion::from_op(op).unwrap())
        .find(|c| c.name.starts_with(name))
        .unwrap_or_else(|| panic!("{file} has {name}"))
}
