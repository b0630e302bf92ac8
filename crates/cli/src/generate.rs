//! `saturn generate FAMILY N [-o FILE]`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// The family: philosophers, kanban, slot, queens, fms or robin.
    pub family: String,
    /// The size parameter N.
    pub n: u32,
    /// Write to this file instead of stdout.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}

pub fn run(a: &GenerateArgs) -> anyhow::Result<ExitCode> {
    let net = saturn_model::families::generate(&a.family, a.n)?;
    let text = saturn_pnml::writer::write_pnml(&net);
    match &a.output {
        Some(p) => {
            std::fs::write(p, text).with_context(|| format!("{}: cannot write", p.display()))?
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}
