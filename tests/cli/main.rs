//! The `warpforge` binary end to end: the CPU proof of every corpus file,
//! JSON output, and clear errors (non-zero exit, nothing half-written) for
//! bad input.
//!
//! One test target (one binary to link), one module per subcommand, and two
//! for what runs through several: `cluster` (conversions across CTAs) and
//! `end_to_end` (one file through plan, emit and verify); `snapshots` holds
//! every corpus header as emitted (`tests/snapshots/`). `common` holds
//! the helpers every module uses. Run one module with
//! `cargo test --test cli plan::`.

mod common;

mod amd;
mod bench;
mod cluster;
mod draw;
mod emit;
mod end_to_end;
mod fit;
mod help;
mod layout;
mod plan;
mod snapshots;
mod verify;
