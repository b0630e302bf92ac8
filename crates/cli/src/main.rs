//! `saturn`: the command-line front door. Thin: parses flags, calls the crates, prints (through
//! [`out`], so that no write can panic).

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod args;
mod check;
mod check_prism;
mod epsilon;
mod experiment;
mod explain;
mod export_prism;
mod figures;
mod generate;
mod load;
mod ltl_run;
mod mcc;
mod mcc_check;
mod mcc_ltl;
mod out;
mod parse_pnml;
mod parse_prism;
mod plot;
mod prism_csl;
mod progress;
mod queries;
mod report;
mod scc;
mod statespace;
mod statespace_prism;
mod witness;

use report::Failure;

#[derive(Parser)]
#[command(
    name = "saturn",
    version,
    about = "Symbolic model checker for Petri nets and PRISM models: state spaces, CTL, SCCs and CTMCs on decision diagrams",
    long_about = "Symbolic model checker for Petri nets and PRISM models, on decision diagrams \
(MDDs, EV+MDDs, EV*MDDs) and saturation.\n\n\
- `statespace`: reachable state spaces of P/T nets (PNML, contest model directories, generated \
families) with the Model Checking Contest's StateSpace figures (`+inf` with a witness for an \
unbounded net), and of PRISM ctmc/dtmc models with PRISM's state and transition counts;\n\
- `check`: CTL formulas (text or contest XML, UpperBounds) with shortest witnesses and fairness, \
and the CSL properties of a PRISM ctmc (steady state, unbounded and time-bounded until, next, \
steady-state, reachability, cumulative and instantaneous rewards, with guaranteed bounds);\n\
- `scc`: strongly connected and terminal components; `mcc`: a contest examination;\n\
- `parse`: read and validate models, properties and formula files; `export`: PRISM's explicit \
formats.\n\n\
Exit status: 0 done, 1 problems found by `parse`, 2 an error that prevents the run (usage, I/O, an unreadable model), 3 a limit was reached, \
141 standard output closed by its reader. With --json, one object on stdout in every case \
(docs/json.md)."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Generate the reachable state space of a Petri net or a PRISM model and print its figures.
    Statespace(statespace::StateSpaceArgs),
    /// Check CTL formulas (and UpperBounds queries) on a Petri net, one line per formula; or the
    /// CSL properties of a PRISM ctmc (--props FILE): steady state, unbounded until, rewards.
    Check(check::CheckArgs),
    /// The states in strongly connected components (or terminal SCCs) of a net's reachability
    /// graph, and the number of components.
    Scc(scc::SccArgs),
    /// Answer a Model Checking Contest examination on a model directory.
    Mcc(mcc::MccArgs),
    /// Write a PRISM ctmc in PRISM's explicit formats (rate matrix, states, labels).
    Export(export_prism::ExportArgs),
    /// Write a benchmark Petri net (PNML) of one of the thesis's families.
    Generate(generate::GenerateArgs),
    /// Read and validate a model (PRISM file or PNML net) and its properties or formulas without
    /// checking them (`check` does that); print a summary.
    Parse(ParseArgs),
    /// Print a shell completion script (e.g. `saturn completions bash > /etc/bash_completion.d/saturn`).
    Completions { shell: clap_complete::Shell },
}

#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// The model: a PRISM file, a PNML file, `-` for standard input, or a contest model directory
    /// holding model.pnml. PNML is recognised by its content (an XML document).
    pub model: String,
    /// A PRISM property file (PRISM models only).
    #[arg(long)]
    pub props: Option<std::path::PathBuf>,
    /// A contest formula XML file (PNML nets only).
    #[arg(long)]
    pub formulas: Option<std::path::PathBuf>,
    /// A CTL formula in Saturn's text syntax (PNML nets only).
    #[arg(long)]
    pub ctl: Vec<String>,
    /// Values for undefined constants: `N=3,T=12` or ranges `T=1:1:5` (PRISM models only).
    #[arg(long = "const")]
    pub consts: Vec<String>,
    /// Print one JSON object on stdout, also on failure; an array of them for a --const sweep.
    #[arg(long)]
    pub json: bool,
}

fn parse(args: &ParseArgs) -> anyhow::Result<ExitCode> {
    let Some(mut input) = load::read_input(&args.model)? else {
        return Err(Failure::error(format!(
            "cannot read {}: no such file or directory",
            args.model
        ))
        .into());
    };
    // flags of the other front-end are refused, not ignored
    let (kind, foreign, hint) = if input.is_pnml() {
        let foreign = args.props.is_some() || !args.consts.is_empty();
        (
            "a PNML net; --props and --const apply to PRISM models",
            foreign,
            "--formulas or --ctl",
        )
    } else {
        let foreign = args.formulas.is_some() || !args.ctl.is_empty();
        (
            "a PRISM model; --formulas and --ctl apply to PNML nets",
            foreign,
            "--props",
        )
    };
    if foreign {
        return Err(Failure::error(format!("{}: {kind} (use {hint})", input.name)).into());
    }
    if input.is_pnml() {
        parse_pnml::run(args, input)
    } else {
        input.read_all()?;
        parse_prism::run(args, &input)
    }
}

impl Cmd {
    /// The subcommand's name, its model as given, and whether it prints JSON.
    /// The run's `--timeout` in seconds (for `mcc`, else `BK_TIME_CONFINEMENT`, as the contest
    /// gives it; a malformed value is refused by `mcc` itself).
    fn timeout(&self) -> Option<u64> {
        let limits = match self {
            Cmd::Statespace(a) => &a.limits,
            Cmd::Check(a) => &a.limits,
            Cmd::Scc(a) => &a.limits,
            Cmd::Export(a) => &a.limits,
            Cmd::Mcc(a) => {
                return a.limits.timeout.or_else(|| {
                    std::env::var("BK_TIME_CONFINEMENT")
                        .ok()
                        .and_then(|v| v.trim().parse().ok())
                        .filter(|&s| s > 0)
                })
            }
            Cmd::Generate(_) | Cmd::Parse(_) | Cmd::Completions { .. } => return None,
        };
        limits.timeout
    }

    fn context(&self) -> (&'static str, String, bool) {
        match self {
            Cmd::Statespace(a) => ("statespace", a.model.clone(), a.json),
            Cmd::Check(a) => ("check", a.model.clone(), a.json),
            Cmd::Scc(a) => ("scc", a.model.clone(), a.json),
            Cmd::Mcc(a) => ("mcc", a.model_dir.display().to_string(), a.json),
            Cmd::Export(a) => ("export", a.model.clone(), false),
            Cmd::Generate(a) => ("generate", format!("{}:{}", a.family, a.n), a.json),
            Cmd::Parse(a) => ("parse", a.model.clone(), a.json),
            Cmd::Completions { .. } => ("completions", String::new(), false),
        }
    }
}

fn run(cmd: Cmd) -> anyhow::Result<ExitCode> {
    match cmd {
        Cmd::Statespace(a) => statespace::run(&a),
        Cmd::Check(a) => check::run(&a),
        Cmd::Scc(a) => scc::run(&a),
        Cmd::Mcc(a) => mcc::run(&a),
        Cmd::Export(a) => export_prism::run(&a),
        Cmd::Generate(a) => generate::run(&a),
        Cmd::Parse(a) => parse(&a),
        Cmd::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "saturn", &mut buf);
            out::print(&String::from_utf8_lossy(&buf))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Report a run that ended without its result: stderr, the stdout line of contest mode or the
/// JSON object, and the exit status. A closed stdout ends quietly.
fn fail(command: &str, model: &str, json: bool, e: anyhow::Error) -> ExitCode {
    if matches!(
        e.downcast_ref::<out::OutputError>(),
        Some(out::OutputError::Closed)
    ) {
        return ExitCode::from(out::CLOSED_PIPE_STATUS);
    }
    let f = Failure::from_error(e);
    eprint!("{}", f.stderr_text());
    let printed = if json {
        out::println(report::failure_object(command, model, &f))
    } else {
        match &f.stdout_line {
            Some(l) => out::println(l),
            None => Ok(()),
        }
    };
    match printed {
        Err(out::OutputError::Closed) => ExitCode::from(out::CLOSED_PIPE_STATUS),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(f.exit.max(2))
        }
        Ok(()) => ExitCode::from(f.exit),
    }
}

/// How long after its `--timeout` a run that did not stop itself is cut by the watchdog.
const WATCHDOG_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// The last guard of `--timeout`. The engines stop themselves at the deadline, polling it
/// between steps; a stretch that does not poll (one long step on a loaded machine: the corpus
/// run of issue 49 met one that went on 30 s past a 60 s limit) is cut here,
/// [`WATCHDOG_GRACE`] after the deadline: the message of a timeout on stderr (and the JSON
/// object with `--json`), exit 3. It holds stdout while it reports, so that a line the worker
/// is writing is finished, not cut; answers printed before it stay printed.
fn watchdog(timeout: Option<u64>, command: &'static str, model: String, json: bool) {
    let Some(secs) = timeout else { return };
    let spawned = std::thread::Builder::new()
        .name("watchdog".into())
        .spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(secs) + WATCHDOG_GRACE);
            let _stdout = std::io::stdout().lock();
            let f = Failure::interrupted(
                saturn_symbolic::Interrupted::Timeout,
                "the run",
                format!(
                    "time limit of {secs} s reached (cut {} s after it: a step did not stop \
                     in time)",
                    WATCHDOG_GRACE.as_secs()
                ),
            );
            let _ = fail(command, &model, json, anyhow::Error::new(f));
            std::process::exit(3);
        });
    if spawned.is_err() {
        eprintln!("warning: no watchdog thread; the engines' own polling of --timeout remains");
    }
}

/// Engines recurse once per level (thousands for contest nets): run on a thread with a big stack.
const STACK_BYTES: usize = saturn_symbolic::statespace::WORKER_STACK;

/// Parse the command line. A usage error with `--json` among the arguments still prints one JSON
/// object (status `error`), after clap's own message on stderr.
fn parse_command_line() -> Result<Cli, ExitCode> {
    let e = match Cli::try_parse() {
        Ok(cli) => return Ok(cli),
        Err(e) => e,
    };
    let args: Vec<String> = std::env::args().collect();
    let wants_json = args.iter().any(|a| a == "--json");
    use clap::error::ErrorKind;
    if !wants_json || matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        e.exit();
    }
    let _ = e.print();
    let message = e
        .to_string()
        .lines()
        .next()
        .unwrap_or("invalid command line")
        .trim_start_matches("error: ")
        .to_string();
    let f = Failure::error(message);
    let command = args.get(1).map_or("", String::as_str);
    let _ = out::println(report::failure_object(command, "", &f));
    Err(ExitCode::from(2))
}

fn main() -> ExitCode {
    saturn_engine::memory::map_large_blocks();
    let cli = match parse_command_line() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let (command, model, json) = cli.cmd.context();
    // a testing hook: small forests, to check the clean stop when node ids run out
    if let Some(n) = std::env::var("SATURN_MAX_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        saturn_dd::set_default_max_nodes(n);
    }
    watchdog(cli.cmd.timeout(), command, model.clone(), json);
    // a testing hook: a stretch that does not poll the deadline, for the watchdog's test
    let stall = std::env::var("SATURN_TEST_STALL_SECS")
        .ok()
        .and_then(|v| v.parse().ok());
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || {
            match {
                if let Some(secs) = stall {
                    std::thread::sleep(std::time::Duration::from_secs(secs));
                }
                run(cli.cmd)
            } {
                Ok(code) => code,
                Err(e) => fail(command, &model, json, e),
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
