//! `saturn`: the command-line front door. Thin: parses flags, calls the crates, prints.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod generate;
mod load;
mod mcc;
mod parse_pnml;
mod parse_prism;
mod progress;
mod statespace;

#[derive(Parser)]
#[command(
    name = "saturn",
    version,
    about = "Symbolic model checker: decision diagrams, saturation, CTMCs"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generate the reachable state space of a Petri net and print its figures.
    Statespace(statespace::StateSpaceArgs),
    /// Run a Model Checking Contest examination on a model directory, printing the contest's lines.
    Mcc(mcc::MccArgs),
    /// Write a benchmark Petri net (PNML) of one of the thesis's families.
    Generate(generate::GenerateArgs),
    /// Check a model (PRISM file or PNML) and its properties or formulas; print a summary.
    Parse(ParseArgs),
}

#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// The model: a PRISM file, a PNML file, or an MCC model directory holding model.pnml.
    pub model: PathBuf,
    /// A PRISM property file.
    #[arg(long)]
    pub props: Option<PathBuf>,
    /// A contest formula XML file (for PNML models).
    #[arg(long)]
    pub formulas: Option<PathBuf>,
    /// A CTL formula in Saturn's text syntax (for PNML models).
    #[arg(long)]
    pub ctl: Vec<String>,
    /// Values for undefined constants: `N=3,T=12` or ranges `T=1:1:5`.
    #[arg(long = "const")]
    pub consts: Vec<String>,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

fn is_pnml(path: &std::path::Path) -> bool {
    path.is_dir()
        || path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("pnml"))
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.cmd {
        Cmd::Statespace(a) => statespace::run(&a),
        Cmd::Mcc(a) => mcc::run(&a),
        Cmd::Generate(a) => generate::run(&a),
        Cmd::Parse(args) => {
            let ok = if is_pnml(&args.model) {
                parse_pnml::run(&args)?
            } else {
                parse_prism::run(&args)?
            };
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

/// Engines recurse once per level (thousands for contest nets): run on a thread with a big stack.
const STACK_BYTES: usize = 1 << 30;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || match run(cli) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(2)
            }
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: internal failure (the worker thread stopped unexpectedly)");
            ExitCode::from(101)
        }
    }
}
