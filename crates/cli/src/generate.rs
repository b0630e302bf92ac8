//! `saturn generate FAMILY N [-o FILE]`.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

use crate::out;
use crate::report::{ok_object, Failure};

#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// The family: philosophers, kanban, slot, queens, fms, robin, cqn, arbiter1, arbiter2 or
    /// leader.
    pub family: String,
    /// The size parameter N.
    pub n: u32,
    /// Write to this file instead of stdout.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Print one JSON object on stdout describing the net written (needs -o FILE).
    #[arg(long, requires = "output")]
    pub json: bool,
}

pub fn run(a: &GenerateArgs) -> anyhow::Result<ExitCode> {
    let net = saturn_model::families::generate(&a.family, a.n)
        .map_err(|e| Failure::error(e.to_string()))?;
    let text = saturn_pnml::writer::write_pnml(&net);
    match &a.output {
        Some(p) => out::write_file(p, &text)?,
        None => out::print(&text)?,
    }
    if a.json {
        let v = ok_object(
            "generate",
            &format!("{}:{}", a.family, a.n),
            json!({
                "net": net.name,
                "places": net.places.len(),
                "net_transitions": net.transitions.len(),
                "output": a.output.as_ref().map(|p| p.display().to_string()),
            }),
        );
        out::println(v)?;
    }
    Ok(ExitCode::SUCCESS)
}
