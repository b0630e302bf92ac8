//! `saturn statespace MODEL [--method M] [--order O] [--json]`.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::bail;
use saturn_symbolic::{Interrupted, Limits, Method, Relations};

use crate::load::{load_net, lower, peak_memory_bytes};

#[derive(clap::Args, Debug)]
pub struct StateSpaceArgs {
    /// A PNML file, an MCC model directory, or a generated instance `family:N` (e.g. kanban:10).
    pub model: String,
    /// bfs, bfs-frontier or saturation.
    #[arg(long, default_value = "saturation")]
    pub method: String,
    /// Variable order: file-rev (default: best on the benchmark table), file, force, sloan, or
    /// auto (a portfolio of sloan, force and file-rev by iterative deepening).
    #[arg(long, default_value = DEFAULT_ORDER)]
    pub order: String,
    /// How events are applied: implicit (fired directly on MDD nodes) or mdd (relation MDDs
    /// built on the fly as local states appear).
    #[arg(long, default_value = "implicit")]
    pub relations: String,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The default variable order of `statespace`: the best single order on the benchmark table
/// (docs/benchmarks.md). `mcc` defaults to the `auto` portfolio instead, see [`MCC_ORDER`].
pub const DEFAULT_ORDER: &str = "file-rev";

/// The default order of `saturn mcc`: contest models come in arbitrary place orders, and the
/// portfolio finishes every oracle instance (no single order does).
pub const MCC_ORDER: &str = "auto";

#[derive(clap::Args, Debug, Clone)]
pub struct LimitArgs {
    /// Stop cleanly after this many seconds.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=31_536_000))]
    pub timeout: Option<u64>,
    /// Stop cleanly when the process uses more than this many MiB.
    #[arg(long = "max-memory", value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    pub max_memory: Option<u64>,
}

impl LimitArgs {
    pub fn limits(&self, start: Instant) -> Limits {
        Limits {
            deadline: self.timeout.map(|s| start + Duration::from_secs(s)),
            max_memory: self.max_memory.map(|mb| mb * 1024 * 1024),
        }
    }
}

pub fn parse_relations(s: &str) -> anyhow::Result<Relations> {
    match Relations::parse(s) {
        Some(r) => Ok(r),
        None => bail!("--relations '{s}': unknown mode (expected implicit or mdd)"),
    }
}

pub fn parse_method(s: &str) -> anyhow::Result<Method> {
    match Method::parse(s) {
        Some(m) => Ok(m),
        None => bail!("--method '{s}': unknown method (expected bfs, bfs-frontier or saturation)"),
    }
}

pub fn limit_message(i: Interrupted, limits: &LimitArgs) -> String {
    match i {
        Interrupted::Timeout => format!("time limit of {} s reached", limits.timeout.unwrap_or(0)),
        Interrupted::Memory => format!(
            "memory limit of {} MiB reached",
            limits.max_memory.unwrap_or(0)
        ),
        Interrupted::IndexTooLarge => format!(
            "a place reached more tokens than a decision-diagram node can hold \
             (over {} local states; the net may be unbounded)",
            saturn_symbolic::max_dense_index(limits.max_memory.map(|m| m * 1048576))
        ),
        Interrupted::Budget => "step budget exhausted".to_string(),
    }
}

pub fn run(a: &StateSpaceArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let method = parse_method(&a.method)?;
    let relations = parse_relations(&a.relations)?;
    let net = load_net(&a.model)?;
    let candidates = lower(&net, &a.order)?;
    let limits = a.limits.limits(start);
    let t0 = Instant::now();
    let (names, models): (Vec<String>, Vec<_>) = candidates.into_iter().unzip();
    let (net_name, n_places, n_transitions) =
        (net.name.clone(), net.places.len(), net.transitions.len());
    drop(net);
    let (won, ss) = match saturn_symbolic::statespace::generate_portfolio(
        &models,
        method,
        relations,
        limits,
        crate::progress::reporter("states"),
    ) {
        Ok(r) => r,
        Err(i) => {
            eprintln!(
                "saturn: {}: stopped, {}; no result",
                a.model,
                limit_message(i, &a.limits)
            );
            return Ok(ExitCode::from(3));
        }
    };
    let seconds = t0.elapsed().as_secs_f64();
    let peak = peak_memory_bytes();
    let m = &ss.metrics;
    if a.json {
        let v = serde_json::json!({
            "model": a.model,
            "net": net_name,
            "places": n_places,
            "net_transitions": n_transitions,
            "method": method.name(),
            "relations": relations.name(),
            "order": a.order,
            "order_used": names[won],
            "states": m.states.to_string(),
            "transitions": m.transitions.to_string(),
            "max_tokens_place": m.max_local,
            "max_tokens_marking": m.max_sum,
            "nodes_final": ss.nodes_final,
            "nodes_peak": ss.nodes_peak,
            "iterations": ss.reach.stats.iterations,
            "generation_seconds": ss.generation_seconds,
            "seconds": seconds,
            "peak_memory_bytes": peak,
        });
        println!("{v}");
    } else {
        println!(
            "model: {} ({} places, {} transitions)",
            a.model, n_places, n_transitions
        );
        if a.order == names[won] {
            println!("method: {}, order: {}", method.name(), a.order);
        } else {
            println!(
                "method: {}, order: {} (used {})",
                method.name(),
                a.order,
                names[won]
            );
        }
        println!("states: {}", m.states);
        println!("transitions: {}", m.transitions);
        println!("max tokens in a place: {}", m.max_local);
        println!("max tokens in a marking: {}", m.max_sum);
        println!(
            "MDD nodes: {} final, {} peak",
            ss.nodes_final, ss.nodes_peak
        );
        if method != Method::Saturation {
            println!("iterations: {}", ss.reach.stats.iterations);
        }
        println!(
            "time: {seconds:.3} s (generation {:.3} s)",
            ss.generation_seconds
        );
        match peak {
            Some(b) => println!("peak memory: {:.1} MiB", b as f64 / (1024.0 * 1024.0)),
            None => println!("peak memory: unknown"),
        }
    }
    Ok(ExitCode::SUCCESS)
}
