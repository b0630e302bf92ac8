//! `saturn scc MODEL [--terminal] [--method lockstep|xb-bfs] [--order O] [--json]`: the states
//! in SCCs (or in terminal SCCs) of a net's reachability graph.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;
use serde_json::json;

use crate::args::{LimitArgs, OrderArg};
use crate::load::{load_net, lower, peak_memory_bytes, peak_memory_line};
use crate::out;
use crate::report::{ok_object, Failure};
use saturn_symbolic::scc::{scc_of_model, SccMethod, SccOptions};

/// An SCC algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SccMethodArg {
    /// Lockstep with breadth-first images (thesis Figure 4.1): states in SCCs, SCCs counted.
    Lockstep,
    /// Xie-Beerel with breadth-first search (Figure 4.2): terminal SCCs, counted.
    XbBfs,
}

#[derive(clap::Args, Debug)]
pub struct SccArgs {
    /// A PNML file, `-` for standard input, a contest model directory (holding model.pnml), or a
    /// generated instance `family:N` (e.g. philosophers:10).
    pub model: String,
    /// The terminal SCCs (recurrent classes: nontrivial, no edge leaving) instead of all SCCs.
    #[arg(long)]
    pub terminal: bool,
    /// The algorithm [default: lockstep, or xb-bfs with --terminal].
    #[arg(long, value_enum)]
    pub method: Option<SccMethodArg>,
    /// The variable order [default: file-rev; auto takes the first order of its portfolio].
    #[arg(long, value_enum)]
    pub order: Option<OrderArg>,
    /// Print one JSON object on stdout, also on failure (docs/json.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(a: &SccArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let method = match (a.method, a.terminal) {
        (None, false) | (Some(SccMethodArg::Lockstep), false) => SccMethod::Lockstep,
        (None, true) | (Some(SccMethodArg::XbBfs), true) => SccMethod::XbBfs,
        (Some(SccMethodArg::Lockstep), true) => {
            return Err(Failure::error(
                "--method lockstep finds the states in SCCs; for terminal SCCs use --method xb-bfs",
            )
            .into())
        }
        (Some(SccMethodArg::XbBfs), false) => return Err(Failure::error(
            "--method xb-bfs finds terminal SCCs only: add --terminal, or use --method lockstep",
        )
        .into()),
    };
    let (net, _) = load_net(&a.model)?;
    let order = a.order.unwrap_or(crate::statespace::DEFAULT_ORDER);
    let (order_used, model) = lower(&net, order, a.limits.timeout)?
        .into_iter()
        .next()
        .ok_or_else(|| Failure::error("no variable order"))?;
    let limits = a.limits.limits(start);
    let t0 = Instant::now();
    let progress = crate::progress::reporter("scc", a.limits.progress, net.places.len());
    let opts = SccOptions {
        limits,
        ..SccOptions::new(method)
    };
    let found = scc_of_model(&model, opts, progress).map_err(|i| {
        Failure::interrupted(
            i,
            &format!("saturn: {}: SCC computation", a.model),
            a.limits.describe(i),
        )
    })?;
    let seconds = t0.elapsed().as_secs_f64();
    let peak = peak_memory_bytes();
    let reachable = found.sets.cardinality(found.reachable);
    if a.json {
        let v = ok_object(
            "scc",
            &a.model,
            json!({
                "net": net.name,
                "places": net.places.len(),
                "net_transitions": net.transitions.len(),
                "method": method.name(),
                "terminal": a.terminal,
                "order": order.name(),
                "order_used": order_used,
                "states": reachable.to_string(),
                "scc_states": found.state_count.to_string(),
                "scc_count": found.count,
                "seeds": found.stats.seeds,
                "images": found.stats.images,
                "seconds": seconds,
                "peak_memory_bytes": peak,
            }),
        );
        out::println(v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let what = if a.terminal { "terminal SCCs" } else { "SCCs" };
    let mut t = String::new();
    let _ = writeln!(
        t,
        "model: {} ({} places, {} transitions)",
        a.model,
        net.places.len(),
        net.transitions.len()
    );
    let _ = writeln!(t, "method: {}, order: {}", method.name(), order_used);
    let _ = writeln!(t, "states: {reachable}");
    let _ = writeln!(t, "states in {what}: {}", found.state_count);
    let _ = writeln!(t, "{what}: {}", found.count);
    let _ = writeln!(t, "time: {seconds:.3} s");
    let _ = writeln!(t, "{}", peak_memory_line(peak));
    out::print(&t)?;
    Ok(ExitCode::SUCCESS)
}
