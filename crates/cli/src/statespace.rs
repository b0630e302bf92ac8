//! `saturn statespace MODEL [--method M] [--order O] [--json]`: Petri nets here, PRISM models in
//! [`crate::statespace_prism`].

use std::cell::Cell;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use crate::args::{
    BoundednessArg, ExplicitArg, GenerationArgs, LevelsArg, LimitArgs, OrderArg, PolytopeArg,
    ScalingArg,
};
use crate::load::{
    load_net, lower_levels, net_of, peak_memory_bytes, peak_memory_line, read_input,
};
use crate::out;
use crate::report::{ok_object, Failure, Status};
use crate::witness::WitnessFormat;
use saturn_engine::Answer;
use saturn_symbolic::Relations;

#[derive(clap::Args, Clone, Debug)]
pub struct StateSpaceArgs {
    /// A PNML file, a PRISM model (.prism, .sm, .pm, .nm: ctmc or dtmc), `-` for standard input,
    /// a contest model directory (holding model.pnml), or a generated instance `family:N` (e.g.
    /// kanban:10).
    pub model: String,
    #[command(flatten)]
    pub generation: GenerationArgs,
    /// Decide boundedness alongside generation (an unbounded net answers +inf).
    #[arg(long, value_enum, default_value_t = BoundednessArg::Race)]
    pub boundedness: BoundednessArg,
    /// Figures of a net with many tokens per place from the same net with few (auto: when
    /// they are provably polynomials in the scale of the initial marking).
    #[arg(long, value_enum, default_value_t = ScalingArg::Auto)]
    pub scaling: ScalingArg,
    /// Figures of a bounded net with many tokens per place from the polytope of its
    /// P-semiflows, when every marking of it is proved reachable (auto), or always generate.
    #[arg(long, value_enum, default_value_t = PolytopeArg::Auto)]
    pub polytope: PolytopeArg,
    /// Race an explicit-state search beside the generation (Petri nets).
    #[arg(long, value_enum, default_value_t = ExplicitArg::Auto)]
    pub explicit: ExplicitArg,
    /// What a level holds: one place, or a one-hot group of places (Petri nets).
    #[arg(long, value_enum, default_value_t = LevelsArg::Auto)]
    pub levels: LevelsArg,
    /// Values for undefined constants of a PRISM model: `N=3,T=12` (one value each).
    #[arg(long = "const")]
    pub consts: Vec<String>,
    /// Print one JSON object on stdout, also on failure (docs/json.md).
    #[arg(long)]
    pub json: bool,
    /// Write the MDD of the reachable states to FILE as Graphviz DOT (levels labelled by
    /// their places). The figures then come from the diagram: no explicit search, scaling or
    /// polytope (Petri nets).
    #[arg(long, value_name = "FILE")]
    pub dot: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The default variable order of `statespace` on a net file: the best single order on the
/// benchmark table (docs/benchmarks.md).
pub const DEFAULT_ORDER: OrderArg = OrderArg::FileRev;

/// The default order of `saturn mcc` (and of `statespace` on a contest directory): contest
/// models come in arbitrary place orders, and the portfolio finishes every oracle instance (no
/// single order does).
pub const MCC_ORDER: OrderArg = OrderArg::Auto;

pub fn run(a: &StateSpaceArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let method = a.generation.method.method();
    let (net, contest_dir) = match read_input(&a.model)? {
        Some(mut input) if input.is_prism() => {
            input.read_all()?;
            return crate::statespace_prism::run(a, &input);
        }
        Some(input) => net_of(input)?,
        None => load_net(&a.model)?,
    };
    if !a.consts.is_empty() {
        return Err(Failure::error(format!(
            "{}: --const applies to PRISM models, not to Petri nets",
            a.model
        ))
        .into());
    }
    // --dot: the figures from the diagram it draws
    let drawn;
    let a = if a.dot.is_some() {
        drawn = StateSpaceArgs {
            explicit: ExplicitArg::Off,
            scaling: ScalingArg::Off,
            polytope: PolytopeArg::Off,
            ..a.clone()
        };
        &drawn
    } else {
        a
    };
    let order = a.generation.order.unwrap_or(if contest_dir {
        MCC_ORDER
    } else {
        DEFAULT_ORDER
    });
    let relations = a.generation.relations_for(order);
    let opts = saturn_engine::Options {
        method,
        relations,
        portfolio: order == OrderArg::Auto,
        boundedness: a.boundedness == BoundednessArg::Race,
        scaling: a.scaling == ScalingArg::Auto,
        polytope: a.polytope == PolytopeArg::Auto,
        explicit: a.explicit.mode(),
    };
    let limits = a.limits.limits(start);
    // the time shown counts from the end of the lowering
    let t0 = Cell::new(Instant::now());
    // each candidate's name, levels, and how many of them hold a one-hot group of places
    let mut names: Vec<String> = Vec::new();
    let mut level_counts: Vec<(usize, usize)> = Vec::new();
    let lower = |net: &saturn_model::PetriNet| -> anyhow::Result<Vec<saturn_model::Model>> {
        let candidates = lower_levels(net, order, a.limits.timeout, a.levels.grouping(order))?;
        // `statespace` names no state and no event (but --dot names the levels): the models
        // need not carry the identifiers
        let (n, models): (Vec<String>, Vec<_>) = candidates
            .into_iter()
            .map(|(name, m)| {
                if a.dot.is_some() {
                    (name, m)
                } else {
                    (name, m.without_names())
                }
            })
            .unzip();
        level_counts = models
            .iter()
            .map(|m| {
                let one_hot = m.levels.iter().filter(|l| l.one_hot).count();
                (m.levels.len(), one_hot)
            })
            .collect();
        names = n;
        t0.set(Instant::now());
        Ok(models)
    };
    let (n_places, n_transitions) = (net.places.len(), net.transitions.len());
    let net_name = net.name.clone();
    // the JSON object of an answer: the envelope, the net's size, then `fields`
    let object = |fields: serde_json::Value| {
        let mut v = ok_object(
            "statespace",
            &a.model,
            json!({ "net": net_name, "places": n_places, "net_transitions": n_transitions }),
        );
        if let (Some(o), serde_json::Value::Object(f)) = (v.as_object_mut(), fields) {
            o.extend(f);
        }
        v
    };
    // figures found without a diagram of the state space: the JSON object, or the text with
    // the engine that found them (and `more` lines before the time)
    let print_figures = |fields: serde_json::Value,
                         engine: &str,
                         f: [String; 4],
                         more: &str|
     -> anyhow::Result<ExitCode> {
        let seconds = t0.get().elapsed().as_secs_f64();
        let peak = peak_memory_bytes();
        if a.json {
            let mut v = object(fields);
            v["seconds"] = json!(seconds);
            v["peak_memory_bytes"] = json!(peak);
            out::println(v)?;
        } else {
            out::print(&format!(
                "model: {} ({} places, {} transitions)\nengine: {engine}\nstates: {}\nreachability-graph edges: {}\nmax tokens in a place: {}\nmax tokens in a marking: {}\n{more}time: {seconds:.3} s\n{}\n",
                a.model,
                n_places,
                n_transitions,
                f[0],
                f[1],
                f[2],
                f[3],
                peak_memory_line(peak)
            ))?;
        }
        Ok(ExitCode::SUCCESS)
    };
    // a run stopped by a limit, scaled or direct
    let stopped = |i| {
        Failure::interrupted(
            i,
            &format!("saturn: {}: state-space generation", a.model),
            a.limits.describe(i),
        )
    };
    let progress = crate::progress::reporter("states", a.limits.progress, n_places);
    let answer = match saturn_engine::statespace(net, lower, &opts, limits, progress) {
        Ok(answer) => answer,
        Err(saturn_engine::Error::Lower(e)) => return Err(e),
        Err(saturn_engine::Error::Stopped(i)) => return Err(stopped(i).into()),
    };
    let (won, ss) = match answer {
        // a strongly connected state machine: in closed form, nothing lowered
        Answer::ClosedForm(f) => {
            return print_figures(
                crate::figures::closed_form_json(&f),
                "closed form (a state machine whose components are strongly connected: every distribution of each component's tokens is reachable)",
                [f.states.to_string(), f.transitions.to_string(), f.max_local.to_string(), f.max_sum.to_string()],
                "",
            );
        }
        // a net with many tokens per place whose figures are polynomials in the scale: from
        // small scales
        Answer::Scaled {
            scaling: s,
            figures: f,
        } => {
            let seconds = t0.get().elapsed().as_secs_f64();
            let peak = peak_memory_bytes();
            if a.json {
                let mut v = object(crate::figures::scaled_json(&s, &f));
                v["method"] = json!(method.name());
                v["relations"] = json!(relations.name());
                v["order"] = json!(order.name());
                v["seconds"] = json!(seconds);
                v["peak_memory_bytes"] = json!(peak);
                out::println(v)?;
            } else {
                out::print(&format!(
                    "model: {} ({} places, {} transitions)\nengine: symbolic, by scaling (the figures are polynomials in the scale {} of the initial marking: scales 0..={} generated, degree {})\nstates: {}\nreachability-graph edges: {}\nmax tokens in a place: {}\nmax tokens in a marking: {}\ntime: {seconds:.3} s\n{}\n",
                    a.model,
                    n_places,
                    n_transitions,
                    s.factor,
                    f.points - 1,
                    f.degree,
                    f.states,
                    f.transitions,
                    f.max_local,
                    f.max_sum,
                    peak_memory_line(peak)
                ))?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        Answer::Generated { won, model, ss } => {
            if let Some(path) = &a.dot {
                let roots = [("reachable".to_string(), ss.states)];
                out::write_dot(path, &ss.dd.sets, &roots, &model)?;
            }
            if std::env::var_os("SATURN_STATS").is_some() {
                let m = &ss.memory;
                eprintln!("before generation: {}", m.before_generation);
                eprintln!("after generation: {}", m.after_generation);
                eprintln!("{}; {}", m.engine, m.end);
            }
            (won, ss)
        }
        Answer::Unbounded(w) => {
            if a.json {
                let mut v = object(json!({
                        "states": "+inf",
                        "transitions": "+inf",
                        "max_tokens_place": "+inf",
                        "max_tokens_marking": "+inf",
                        "witness": w.json(),
                        "seconds": t0.get().elapsed().as_secs_f64(),
                        "peak_memory_bytes": peak_memory_bytes(),
                }));
                v["status"] = json!(Status::Unbounded);
                out::println(v)?;
            } else {
                out::print(&format!(
                    "model: {} ({} places, {} transitions)\nstates: +inf (the net is unbounded)\n{}",
                    a.model,
                    n_places,
                    n_transitions,
                    w.lines()
                ))?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        Answer::Counted(c) => {
            return print_figures(
                json!({
                    "engine": "explicit",
                    "method": method.name(),
                    "relations": relations.name(),
                    "order": order.name(),
                    "states": c.states.to_string(),
                    "transitions": c.transitions.to_string(),
                    "max_tokens_place": c.max_tokens_place,
                    "max_tokens_marking": c.max_tokens_marking,
                }),
                "explicit (breadth-first search over packed markings)",
                [
                    c.states.to_string(),
                    c.transitions.to_string(),
                    c.max_tokens_place.to_string(),
                    c.max_tokens_marking.to_string(),
                ],
                "",
            );
        }
        Answer::Polytope(p) => {
            let m = &p.metrics;
            return print_figures(
                crate::figures::polytope_json(&p),
                &format!(
                    "symbolic, the P-semiflows' polytope on binary counters ({} boolean levels; {}reachable, by the {} ranking{})",
                    p.levels,
                    if p.unreachable == num_bigint::BigUint::default() { "every marking of it ".to_string() } else { format!("{} of its markings proved unreachable, every other ", p.unreachable) },
                    p.ranking,
                    if p.runs { " and runs that gain" } else { "" }
                ),
                [m.states.to_string(), m.transitions.to_string(), m.max_local.to_string(), m.max_sum.to_string()],
                &format!("MDD nodes: {} final\n", m.nodes),
            );
        }
    };
    let seconds = t0.get().elapsed().as_secs_f64();
    let peak = peak_memory_bytes();
    let m = &ss.metrics;
    let (n_levels, n_one_hot) = level_counts[won];
    if a.json {
        let v = object(json!({
                "engine": "symbolic",
                "method": method.name(),
                "relations": relations.name(),
                "relations_used": ss.relations.name(),
                "order": order.name(),
                "order_used": names[won],
                "states": m.states.to_string(),
                "transitions": m.transitions.to_string(),
                "max_tokens_place": m.max_local,
                "max_tokens_marking": m.max_sum,
                "levels": n_levels,
                "one_hot_levels": n_one_hot,
                "nodes_final": ss.nodes_final,
                "nodes_peak": ss.nodes_peak,
                "iterations": ss.stats.iterations,
                "generation_seconds": ss.generation_seconds,
                "seconds": seconds,
                "peak_memory_bytes": peak,
        }));
        out::println(v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "model: {} ({} places, {} transitions)",
        a.model, n_places, n_transitions
    );
    let _ = write!(t, "method: {}, order: {}", method.name(), order.name());
    if order.name() != names[won] {
        let _ = write!(t, " (used {})", names[won]);
    }
    if relations != ss.relations {
        let _ = write!(
            t,
            ", events: {} (used {})",
            relations.name(),
            ss.relations.name()
        );
    } else if relations != Relations::Implicit {
        let _ = write!(t, ", events: {}", relations.name());
    }
    let _ = writeln!(t);
    let _ = writeln!(t, "states: {}", m.states);
    let _ = writeln!(t, "reachability-graph edges: {}", m.transitions);
    let _ = writeln!(t, "max tokens in a place: {}", m.max_local);
    let _ = writeln!(t, "max tokens in a marking: {}", m.max_sum);
    let _ = writeln!(
        t,
        "MDD nodes: {} final, {} peak",
        ss.nodes_final, ss.nodes_peak
    );
    if n_one_hot > 0 {
        let _ = writeln!(
            t,
            "levels: {n_levels}, {n_one_hot} of them a one-hot group of places"
        );
    }
    if method != saturn_symbolic::Method::Saturation {
        let _ = writeln!(t, "iterations: {}", ss.stats.iterations);
    }
    let _ = writeln!(
        t,
        "time: {seconds:.3} s (generation {:.3} s)",
        ss.generation_seconds
    );
    let _ = writeln!(t, "{}", peak_memory_line(peak));
    out::print(&t)?;
    Ok(ExitCode::SUCCESS)
}
