//! `saturn parse` for this front-end.

use crate::ParseArgs;

/// Check the model and its properties; print the summary. `Ok(false)` when diagnostics were printed.
pub fn run(args: &ParseArgs) -> anyhow::Result<bool> {
    anyhow::bail!("not implemented yet: {}", args.model.display())
}
