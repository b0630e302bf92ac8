//! `saturn scc MODEL [--terminal] [--method lockstep|xb-sat|xb-bfs] [--order O] [--json]`: the
//! states in SCCs (or in terminal SCCs) of a net's reachability graph.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::ValueEnum;
use serde_json::json;

use crate::args::{LimitArgs, OrderArg};
use crate::load::{load_net, lower, peak_memory_bytes, peak_memory_line};
use crate::out;
use crate::report::{ok_object, Failure};
use saturn_logic::{parse_query, resolve, ResolvedQuery, StateFormula};
use saturn_model::PetriNet;
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::scc::{fair_of_model, scc_of_model, SccError, SccMethod, SccOptions, Streett};

use crate::report::{Diagnostic, Status};

/// An SCC algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SccMethodArg {
    /// Lockstep with breadth-first images (thesis Figure 4.1): states in SCCs, SCCs counted.
    Lockstep,
    /// Xie-Beerel with saturation (Figures 4.3-4.4): states in SCCs or terminal SCCs, counted.
    XbSat,
    /// Xie-Beerel with breadth-first search (Figure 4.2): terminal SCCs, counted.
    XbBfs,
    /// The saturated transitive closure (Figures 4.5-4.7): states in SCCs or terminal SCCs,
    /// SCCs not counted.
    Tc,
}

impl SccMethodArg {
    fn method(self) -> SccMethod {
        match self {
            SccMethodArg::Lockstep => SccMethod::Lockstep,
            SccMethodArg::XbSat => SccMethod::XbSat,
            SccMethodArg::XbBfs => SccMethod::XbBfs,
            SccMethodArg::Tc => SccMethod::Tc,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct SccArgs {
    /// A PNML file, `-` for standard input, a contest model directory (holding model.pnml), or a
    /// generated instance `family:N` (e.g. philosophers:10).
    pub model: String,
    /// The terminal SCCs (recurrent classes: nontrivial, no edge leaving) instead of all SCCs.
    #[arg(long)]
    pub terminal: bool,
    /// The algorithm [default: xb-sat].
    #[arg(long, value_enum)]
    pub method: Option<SccMethodArg>,
    /// A strong-fairness (Streett) pair `R;C` of state formulas (atoms as in `saturn check`):
    /// only cycles that visit no `R` state or some `C` state count (repeatable; weak fairness
    /// with a set F is `true;F`). Methods: tc, lockstep.
    #[arg(long, value_name = "R;C")]
    pub streett: Vec<String>,
    /// The variable order [default: file-rev, auto with --method tc; auto takes the first order
    /// of its portfolio].
    #[arg(long, value_enum)]
    pub order: Option<OrderArg>,
    /// Print one JSON object on stdout, also on failure (docs/json.md).
    #[arg(long)]
    pub json: bool,
    /// Write the MDDs of the reachable states, of the states in (terminal) SCCs and of each
    /// terminal SCC found to FILE as Graphviz DOT (levels labelled by their places).
    #[arg(long, value_name = "FILE")]
    pub dot: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(a: &SccArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let fair = !a.streett.is_empty();
    let default = if fair {
        SccMethod::Tc
    } else {
        SccMethod::XbSat
    };
    let method = a.method.map_or(default, SccMethodArg::method);
    if fair && (a.terminal || !matches!(method, SccMethod::Tc | SccMethod::Lockstep)) {
        return Err(Failure::error(
            "--streett finds fair cycles with --method tc or lockstep, without --terminal",
        )
        .into());
    }
    match (method, a.terminal) {
        (SccMethod::Lockstep, true) => {
            return Err(Failure::error(
                "--method lockstep finds the states in SCCs; for terminal SCCs use --method xb-sat or xb-bfs",
            )
            .into())
        }
        (SccMethod::XbBfs, false) => return Err(Failure::error(
            "--method xb-bfs finds terminal SCCs only: add --terminal, or use --method xb-sat or lockstep",
        )
        .into()),
        _ => {}
    }
    let (net, _) = load_net(&a.model)?;
    // the transitive closure is sensitive to the order (Railroad-PT-005: minutes under
    // file-rev, a fraction of a second under sloan): it takes auto's first order by default
    let order = a.order.unwrap_or(if method == SccMethod::Tc {
        OrderArg::Auto
    } else {
        crate::statespace::DEFAULT_ORDER
    });
    let (order_used, model) = lower(&net, order, a.limits.timeout)?
        .into_iter()
        .next()
        .ok_or_else(|| Failure::error("no variable order"))?;
    let limits = a.limits.limits(start);
    let t0 = Instant::now();
    let progress = crate::progress::reporter("scc", a.limits.progress, net.places.len());
    let opts = SccOptions {
        limits,
        terminal: a.terminal,
        ..SccOptions::new(method)
    };
    let pairs = streett_pairs(&a.streett, &net)?;
    // the place at each level, as the atoms need it
    let order_places: Vec<usize> = model
        .levels
        .iter()
        .map(|l| net.place_index(&l.name).unwrap_or(0))
        .collect();
    let atoms = Atoms::for_petri(&model, &order_places);
    let progress = progress.map(|p| p as Box<dyn FnMut(&str)>);
    let found = if fair {
        let st = Streett {
            atoms: &atoms,
            pairs: &pairs,
        };
        fair_of_model(&model, st, opts, progress)
    } else {
        scc_of_model(&model, opts, progress)
    };
    let found = found.map_err(|e| match e {
        SccError::Interrupted(i) => Failure::interrupted(
            i,
            &format!("saturn: {}: SCC computation", a.model),
            a.limits.describe(i),
        ),
        e @ (SccError::Unsupported { .. } | SccError::Formula { .. }) => {
            Failure::error(e.to_string())
        }
    })?;
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(path) = &a.dot {
        let what = if a.terminal { "terminal" } else { "in SCCs" };
        let mut roots = vec![
            ("reachable".to_string(), found.reachable),
            (what.to_string(), found.states),
        ];
        for (i, &c) in found.classes.iter().enumerate() {
            roots.push((format!("terminal SCC {}", i + 1), c));
        }
        crate::out::write_dot(path, &found.sets, &roots, &model)?;
    }
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
                "streett_pairs": a.streett.len(),
                "order": order.name(),
                "order_used": order_used,
                "states": reachable.to_string(),
                "scc_states": found.state_count.to_string(),
                "scc_count": found.count,
                "seeds": found.stats.seeds,
                "images": found.stats.images,
                "closure_steps": found.stats.closure_steps,
                "seconds": seconds,
                "peak_memory_bytes": peak,
            }),
        );
        out::println(v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let what = if fair {
        "Streett-fair SCCs"
    } else if a.terminal {
        "terminal SCCs"
    } else {
        "SCCs"
    };
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
    match found.count {
        Some(n) => {
            let _ = writeln!(t, "{what}: {n}");
        }
        None => {
            let _ = writeln!(t, "{what}: not enumerated by this method");
        }
    }
    let _ = writeln!(t, "time: {seconds:.3} s");
    let _ = writeln!(t, "{}", peak_memory_line(peak));
    out::print(&t)?;
    Ok(ExitCode::SUCCESS)
}

/// The `--streett 'R;C'` pairs as resolved state formulas; every problem of every pair is
/// reported, positioned in its option.
fn streett_pairs(
    srcs: &[String],
    net: &PetriNet,
) -> Result<Vec<(StateFormula, StateFormula)>, Failure> {
    let names = crate::queries::names(net);
    let mut diags = Vec::new();
    let mut out = Vec::new();
    for (i, src) in srcs.iter().enumerate() {
        let label = format!("--streett #{}", i + 1);
        let Some(cut) = src.find(';') else {
            diags.push(Diagnostic::of_option(
                &label,
                src,
                src.len(),
                "expected 'R;C': two state formulas separated by ';'".into(),
            ));
            continue;
        };
        let mut side = |text: &str, offset: usize| -> Option<StateFormula> {
            let q = match parse_query(text) {
                Ok(q) => q,
                Err(e) => {
                    diags.extend(e.errors.iter().map(|s| {
                        Diagnostic::of_option(&label, src, offset + s.span.start, s.message.clone())
                    }));
                    return None;
                }
            };
            match resolve(&q, &names) {
                Ok(ResolvedQuery::Formula(f)) => Some(f),
                Ok(ResolvedQuery::Bound(_)) => {
                    diags.push(Diagnostic::of_option(
                        &label,
                        src,
                        offset,
                        "a bound is not a state formula".into(),
                    ));
                    None
                }
                Err(errs) => {
                    diags.extend(errs.0.iter().map(|e| {
                        Diagnostic::of_option(&label, src, offset + e.span().start, e.to_string())
                    }));
                    None
                }
            }
        };
        let r = side(&src[..cut], 0);
        let c = side(&src[cut + 1..], cut + 1);
        if let (Some(r), Some(c)) = (r, c) {
            out.push((r, c));
        }
    }
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(Failure::with(Status::Error, diags, 2))
    }
}
