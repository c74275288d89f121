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
    /// A timing kernel of a helper that runs on a partition's warps: the
    /// timing kernels launch the helpers' own warps alone, from warp 0.
    #[error("{name}: runs on CTA warps {first_warp} onwards (a partition of a warp-specialized kernel); the timing kernels launch a helper's own warps alone, from warp 0, so it is not timed as printed (`bench` plans each conversion on a CTA of its own warps)")]
    PartitionHelper { name: String, first_warp: u32 },
    #[error("template: {0}")]
    Template(#[from] minijinja::Error),
}
