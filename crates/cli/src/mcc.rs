//! `saturn mcc MODEL_DIR --examination E`: the Model Checking Contest's conventions.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::bail;

use crate::load::{load_net, lower};
use crate::statespace::{limit_message, parse_method, parse_relations, LimitArgs, MCC_ORDER};

#[derive(clap::Args, Debug)]
pub struct MccArgs {
    /// The model directory (holding model.pnml and the formula files).
    pub model_dir: PathBuf,
    /// The examination; defaults to the BK_EXAMINATION environment variable.
    #[arg(long)]
    pub examination: Option<String>,
    #[arg(long, default_value = "saturation")]
    pub method: String,
    /// Variable order (default: the auto portfolio; see `saturn statespace --help`).
    #[arg(long, default_value = MCC_ORDER)]
    pub order: String,
    /// implicit or mdd (see `saturn statespace --help`).
    #[arg(long, default_value = "implicit")]
    pub relations: String,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(a: &MccArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let exam = match &a.examination {
        Some(e) => e.clone(),
        None => match std::env::var("BK_EXAMINATION") {
            Ok(e) if !e.is_empty() => e,
            _ => bail!("no examination: pass --examination or set BK_EXAMINATION"),
        },
    };
    match exam.as_str() {
        "StateSpace" => state_space(a, start),
        other => bail!("examination '{other}' is not supported yet (supported: StateSpace)"),
    }
}

fn state_space(a: &MccArgs, start: Instant) -> anyhow::Result<ExitCode> {
    let method = parse_method(&a.method)?;
    let relations = parse_relations(&a.relations)?;
    let spec = a.model_dir.to_string_lossy().into_owned();
    let net = load_net(&spec)?;
    let models: Vec<_> = lower(&net, &a.order)?.into_iter().map(|(_, m)| m).collect();
    drop(net);
    let limits = a.limits.limits(start);
    let progress = crate::progress::reporter("StateSpace");
    match saturn_symbolic::statespace::generate_portfolio(
        &models, method, relations, limits, progress,
    ) {
        Ok((_, ss)) => {
            let m = &ss.metrics;
            let t = "TECHNIQUES DECISION_DIAGRAMS";
            println!("STATE_SPACE STATES {} {t}", m.states);
            println!("STATE_SPACE TRANSITIONS {} {t}", m.transitions);
            println!("STATE_SPACE MAX_TOKEN_IN_PLACE {} {t}", m.max_local);
            println!("STATE_SPACE MAX_TOKEN_PER_MARKING {} {t}", m.max_sum);
            Ok(ExitCode::SUCCESS)
        }
        Err(i) => {
            println!("CANNOT_COMPUTE");
            eprintln!(
                "saturn: {}: StateSpace stopped, {}",
                spec,
                limit_message(i, &a.limits)
            );
            Ok(ExitCode::from(3))
        }
    }
}
