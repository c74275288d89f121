//! The fuzz targets of warpforge's parsers, shared by the fuzzer
//! (`src/main.rs`, `make fuzz`) and the regression tests over the crashes it
//! kept (`tests/regressions.rs`, inputs in `crashes/`).
//!
//! Each target takes text and runs what user input reaches: the parser and,
//! for what parses, the encoding -> linear layout conversion (the
//! encodings' checks), on bounded shapes. A target must never panic.

use synth::parse::{parse_attribute, parse_shape, parse_ttgir};

/// Which parser an input is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, arbitrary::Arbitrary)]
pub enum Target {
    /// A whole TTGIR file (`--ttgir`).
    Ttgir,
    /// One attribute (`--src`, `--dst`, `--attr`).
    Attribute,
    /// A tensor shape (`--shape`).
    Shape,
}

impl Target {
    /// All targets, in a fixed order.
    pub const ALL: [Target; 3] = [Target::Ttgir, Target::Attribute, Target::Shape];

    /// The name used in crash file names (`<name>-<hash>.txt`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Ttgir => "ttgir",
            Target::Attribute => "attribute",
            Target::Shape => "shape",
        }
    }

    /// The target a crash file's name starts with.
    pub fn from_file_name(n: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| n.starts_with(t.name()))
    }
}

/// Largest tensor (elements) turned into a layout: bigger shapes are the
/// planner's business, not the parsers'.
const MAX_ELEMS: i64 = 1 << 20;

fn small(shape: &[i64]) -> bool {
    let mut n: i64 = 1;
    for &d in shape {
        if d <= 0 {
            return false;
        }
        n = match n.checked_mul(d) {
            Some(v) if v <= MAX_ELEMS => v,
            _ => return false,
        };
    }
    shape.len() <= 4
}

/// Run `target` on `text`. Returns how many layouts were built (for the
/// fuzzer's statistics); panics are the bugs.
pub fn exec(target: Target, text: &str, warps: u32) -> usize {
    let mut built = 0;
    match target {
        Target::Ttgir => {
            if let Ok(f) = parse_ttgir(text) {
                for op in f.converts.iter().take(4) {
                    if small(&op.shape) {
                        built +=
                            usize::from(op.src.to_linear_layout(&op.shape, op.num_warps).is_ok());
                        built +=
                            usize::from(op.dst.to_linear_layout(&op.shape, op.num_warps).is_ok());
                    }
                }
            }
        }
        Target::Attribute => {
            if let Ok(e) = parse_attribute(text) {
                for shape in [&[16i64, 16][..], &[128, 64], &[64], &[2, 32, 8]] {
                    built += usize::from(e.to_linear_layout(shape, warps).is_ok());
                }
            }
        }
        Target::Shape => {
            if let Ok(s) = parse_shape(text) {
                built += usize::from(!s.is_empty());
            }
        }
    }
    built
}
