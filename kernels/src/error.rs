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
    #[error("template: {0}")]
    Template(#[from] minijinja::Error),
}
