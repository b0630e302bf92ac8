//! `saturn statespace MODEL.prism [--const N=3,...]`: the reachable states of a PRISM
//! `ctmc`/`dtmc` program, with PRISM's transition count (distinct (state, successor) pairs; a
//! deadlock state gets PRISM's self-loop, noted on stderr).

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use saturn_model::order::{by_name_with, Hypergraph};
use saturn_prism::{parse_model_bytes, ConstOverrides, Source};
use saturn_symbolic::encode::{generate_general, EncodeError, GenMethod};

use crate::args::{MethodArg, OrderArg};
use crate::load::{peak_memory_bytes, Input};
use crate::out;
use crate::parse_prism::{const_failure, prism_failure};
use crate::report::{ok_object, Diagnostic, Failure, Status};
use crate::statespace::StateSpaceArgs;

/// The default variable order for PRISM programs: variables in file order, the first at the
/// top (the order PRISM's own MTBDD engine uses).
pub const DEFAULT_PRISM_ORDER: OrderArg = OrderArg::File;

/// A diagnostic at a `file:line:column` location string (as the lowering and the encoder give
/// them), or a plain one when the location does not parse.
pub(crate) fn at(location: &str, message: String) -> Diagnostic {
    let mut parts = location.rsplitn(3, ':');
    let (c, l, f) = (parts.next(), parts.next(), parts.next());
    match (
        f,
        l.and_then(|l| l.parse().ok()),
        c.and_then(|c| c.parse().ok()),
    ) {
        (Some(f), Some(line), Some(column)) => Diagnostic {
            file: Some(f.to_string()),
            line: Some(line),
            column: Some(column),
            message,
        },
        _ => Diagnostic::plain(format!("{location}: {message}")),
    }
}

/// An input problem of `statespace` (exit 2: it prevents the run).
pub(crate) fn bad_model(d: Vec<Diagnostic>) -> Failure {
    Failure::with(Status::Error, d, 2)
}

/// A `--const` problem (exit 2).
fn const_error(e: impl std::fmt::Display) -> Failure {
    let mut f = const_failure(e);
    f.exit = 2;
    f
}

fn encode_failure(e: EncodeError, a: &StateSpaceArgs) -> Failure {
    encode_failure_for(e, &a.model, &a.limits)
}

/// A generation failure of the PRISM model `model` under `limits`, as a [`Failure`].
pub(crate) fn encode_failure_for(
    e: EncodeError,
    model: &str,
    limits: &crate::args::LimitArgs,
) -> Failure {
    match e {
        EncodeError::Event {
            event,
            location,
            what,
            state,
        } => {
            // `what` may start with the location again (a step error's display)
            let what = what
                .strip_prefix(&format!("{location}: "))
                .unwrap_or(&what)
                .to_string();
            let msg = if what.contains(" state ") {
                format!("{what} (command {event})")
            } else {
                format!("{what} (command {event}, in reachable state {state})")
            };
            bad_model(vec![at(&location, msg)])
        }
        EncodeError::Interrupted(i) => Failure::interrupted(
            i,
            &format!("saturn: {model}: state-space generation"),
            limits.describe(i),
        ),
        other => bad_model(vec![Diagnostic::plain(format!("{model}: {other}"))]),
    }
}

pub fn run(a: &StateSpaceArgs, input: &Input) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let name = input.name.clone();
    if a.dot.is_some() {
        return Err(Failure::error(format!(
            "{name}: --dot draws the MDD of a Petri net's state space; not yet for PRISM models"
        ))
        .into());
    }
    let overrides = ConstOverrides::parse_all(&a.consts).map_err(const_error)?;
    let mut assignments = overrides.assignments().map_err(const_error)?;
    if assignments.len() != 1 {
        return Err(
            const_error("statespace takes one value per constant (no ranges)".to_string()).into(),
        );
    }
    let ov = assignments.remove(0);
    let ast = parse_model_bytes(&input.bytes, &name).map_err(|d| prism_failure(&d, 2))?;
    let source = Source::new(&name, &String::from_utf8_lossy(&input.bytes));
    let prog = saturn_prism::check_model_with_source(&ast, &ov, &source)
        .map_err(|d| prism_failure(&d, 2))?;
    let unknown = saturn_prism::unknown_overrides(&prog, None);
    if !unknown.is_empty() {
        return Err(const_error(format!("unknown constant(s): {}", unknown.join(", "))).into());
    }
    let model = saturn_prism::lower::lower(&prog).map_err(|e| match e {
        saturn_prism::lower::LowerError::At { location, message } => {
            bad_model(vec![at(&location, message)])
        }
        saturn_prism::lower::LowerError::Model(m) => {
            bad_model(vec![Diagnostic::plain(format!("{name}: {m}"))])
        }
    })?;
    let order_arg = a.generation.order.unwrap_or(DEFAULT_PRISM_ORDER);
    if order_arg == OrderArg::Auto {
        return Err(Failure::error(
            "--order auto applies to Petri nets; PRISM models take file, file-rev, force or sloan",
        )
        .into());
    }
    let method = match a.generation.method {
        MethodArg::Saturation => GenMethod::Saturation,
        MethodArg::Bfs | MethodArg::BfsFrontier => GenMethod::Chaining,
    };
    let limits = a.limits.limits(start);
    let t0 = Instant::now();
    let hg = Hypergraph::new(model.vars.len(), &model.supports());
    let order = by_name_with(&hg, order_arg.name(), &mut || limits.check().is_err())
        .map_err(Failure::error)?;
    let (enc, ss) =
        generate_general(&model, &order, method, &limits).map_err(|e| encode_failure(e, a))?;
    let seconds = t0.elapsed().as_secs_f64();
    let peak = peak_memory_bytes();
    if !ss.dead.is_empty() {
        let dead = enc
            .sets
            .pick(ss.dead)
            .map(|st| model.show_state(&enc.values(&model, &st)));
        drop(enc);
        eprintln!(
            "note: {} deadlock state(s){}; as PRISM does, each gets a self-loop, counted in the transitions",
            ss.deadlocks,
            dead.map(|s| format!(", e.g. {s}")).unwrap_or_default()
        );
    }
    let consts = ov.to_string();
    if a.json {
        let v = ok_object(
            "statespace",
            &a.model,
            json!({
                "input": "prism",
                "type": prog.model_type.name(),
                "constants": consts,
                "variables": model.vars.len(),
                "events": model.events.len(),
                "method": method.name(),
                "order": order_arg.name(),
                "states": ss.states.to_string(),
                "transitions": ss.transitions.to_string(),
                "deadlocks": ss.deadlocks.to_string(),
                "nodes_final": ss.set_nodes,
                "relation_nodes": ss.relation_nodes,
                "generation_seconds": ss.generation_seconds,
                "seconds": seconds,
                "peak_memory_bytes": peak,
            }),
        );
        out::println(v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "model: {} ({}, {} variables, {} events)",
        a.model,
        prog.model_type.name(),
        model.vars.len(),
        model.events.len()
    );
    if !consts.is_empty() {
        let _ = writeln!(t, "constants: {consts}");
    }
    let _ = writeln!(t, "method: {}, order: {}", method.name(), order_arg.name());
    let _ = writeln!(t, "states: {}", ss.states);
    let _ = writeln!(t, "transitions: {}", ss.transitions);
    let _ = writeln!(t, "deadlocks: {}", ss.deadlocks);
    let _ = writeln!(
        t,
        "MDD nodes: {} (reachable set), {} (event relations)",
        ss.set_nodes, ss.relation_nodes
    );
    let _ = writeln!(
        t,
        "time: {seconds:.3} s (generation {:.3} s)",
        ss.generation_seconds
    );
    let _ = writeln!(t, "{}", crate::load::peak_memory_line(peak));
    out::print(&t)?;
    Ok(ExitCode::SUCCESS)
}
