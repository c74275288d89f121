/// Errors of emission.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("{name}: stage {stage} ({kind}) has no CUDA emission yet (no strategy produces it)")]
    Unsupported {
        name: String,
        stage: usize,
        kind: &'static str,
    },
    #[error(
        "{fwd} and {bwd}: the packed forms pack the shared layout along different register bits"
    )]
    PackMismatch { fwd: String, bwd: String },
    /// The global-memory baseline of a cluster conversion addresses the
    /// tensor with 32-bit offsets.
    #[error("{name}: the global-memory baseline addresses elements with 32-bit offsets; the tensor has 2^{bits} elements (at most 2^31)")]
    TensorTooLarge { name: String, bits: usize },
    #[error("template: {0}")]
    Template(#[from] minijinja::Error),
}
