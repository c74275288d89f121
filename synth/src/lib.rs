//! warpforge's math and planner: GF(2) bit matrices, Triton linear layouts
//! and encodings, TTGIR parsing, conversion plans, their search and the CPU
//! simulator that proves them. No GPU code, no `unsafe`.
#![forbid(unsafe_code)]

pub mod cost_model;
pub mod encoding;
pub mod family;
pub mod gf2;
pub mod input;
pub mod layout;
pub mod parse;
pub mod plan;
pub mod search;
pub mod sim;
pub mod smem;
pub mod target;

pub use layout::LinearLayout;
pub use plan::{Conversion, Kind, Plan};
