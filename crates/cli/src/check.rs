//! `saturn check MODEL --ctl 'F' ... [--formulas FILE.xml]`: CTL model checking (and the
//! contest's UpperBounds queries) on the generated state space of a net; one line per formula,
//! or one JSON object whose `formulas` array holds one object per formula in order.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::json;

use saturn_logic::StateFormula;

use crate::args::{
    DeadlocksArg, EgMethodArg, EuMethodArg, FairMethodArg, GenerationArgs, LimitArgs,
    LtlDeadlocksArg, OrderArg, WitnessMethodArg,
};
use crate::load::{load_net, lower};
use crate::out;
use crate::queries::{self, Answer, Job};
use crate::report::{ok_object, Failure, Status};
use crate::statespace::{DEFAULT_ORDER, MCC_ORDER};
use saturn_engine::Reachable;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// A PNML file, `-` for standard input, a contest model directory (holding model.pnml), or a
    /// generated instance `family:N`.
    pub model: String,
    /// A CTL formula in Saturn's text syntax (docs/ctl.md), e.g. 'AG EF enabled(t1)'; repeatable.
    #[arg(long)]
    pub ctl: Vec<String>,
    /// A contest formula file (CTL, Reachability or UpperBounds XML).
    #[arg(long)]
    pub formulas: Option<PathBuf>,
    /// An LTL formula in Saturn's text syntax (docs/ltl.md), e.g. 'G F p >= 1' (read as
    /// `A G F p >= 1`); repeatable; not with --ctl or --formulas.
    #[arg(long)]
    pub ltl: Vec<String>,
    /// What a path that reaches a deadlock means to LTL.
    #[arg(long, value_enum, default_value_t = LtlDeadlocksArg::Stutter)]
    pub ltl_deadlocks: LtlDeadlocksArg,
    /// How --ltl formulas are decided: `auto` a short explicit search, then the CTL engines
    /// (formulas that are CTL in disguise) or the symbolic product, then the explicit search
    /// with what is left; `explicit` the on-the-fly product alone; `el` / `tc` the symbolic
    /// product alone, emptiness by Emerson-Lei or by the transitive closure (docs/ltl.md).
    #[arg(long, value_enum, default_value_t = crate::ltl_run::LtlMethodArg::Auto)]
    pub ltl_method: crate::ltl_run::LtlMethodArg,
    /// Where the symbolic LTL product puts the automaton's level: above the net's levels
    /// (`top`) or below them (`bottom`, measured faster); docs/ltl.md has the measurements.
    #[arg(long, value_enum, default_value_t = crate::ltl_run::LtlLevelArg::Bottom)]
    pub ltl_level: crate::ltl_run::LtlLevelArg,
    /// Partial-order reduction in the explicit LTL product: `on` (stubborn sets, for the
    /// formulas without `X`, which are stutter-insensitive) or `off` (docs/ltl.md).
    #[arg(long, value_enum, default_value_t = crate::ltl_run::PorArg::On)]
    pub por: crate::ltl_run::PorArg,
    /// What a path that reaches a deadlock means.
    #[arg(long, value_enum, default_value_t = DeadlocksArg::Maximal)]
    pub deadlocks: DeadlocksArg,
    /// The EU algorithm (also used for EF, AG and AU).
    #[arg(long, value_enum, default_value_t = EuMethodArg::ConsSatRch)]
    pub eu_method: EuMethodArg,
    /// The EG algorithm without fairness (also used for AF and AU).
    #[arg(long, value_enum, default_value_t = EgMethodArg::Trad)]
    pub eg_method: EgMethodArg,
    /// A weak (Büchi) fairness constraint, a state formula: EG (and through it AF and AU)
    /// only follows infinite paths that visit every such set infinitely often; repeatable.
    #[arg(long)]
    pub fair: Vec<String>,
    /// The fair EG algorithm.
    #[arg(long, value_enum, default_value_t = FairMethodArg::Tc)]
    pub fair_method: FairMethodArg,
    /// Print a witness (an E-formula that holds) or a counterexample (an A-formula that fails)
    /// of each formula's outermost temporal operator: a shortest path for EF/EU/AG, one step for
    /// EX/AX, a shortest lasso for EG/AF/AU (see --witness-method; with --fair a shortest lasso
    /// whose cycle meets every fairness set); each replayed on the net before it is printed.
    /// With --ltl: a shortest run that violates a formula that fails (a lasso, or a path to a
    /// deadlock), from the symbolic product (docs/ltl.md); the explicit search's, not shortest,
    /// with --ltl-method explicit or where the product cannot be built.
    #[arg(long)]
    pub witness: bool,
    /// How --witness finds the lasso of EG/AF/AU: `bfs` the walk of thesis Figure 5.1 (valid,
    /// not shortest); a shortest one (least stem + cycle over every knot) by `tcd` (the
    /// closure with distances, thesis Figures 5.2-5.3), by `layers` (distance layers bounded by
    /// the walk) or by `auto` (the default: the walk, or a shorter witness of depth-first
    /// searches, when a proof by images and preimages says nothing is shorter; else layers
    /// while their cycle searches stay within 32 preimages, then tcd). The JSON's witness
    /// says which method made it (`bfs`, `search`, `layers` or `tcd`). With
    /// --fair: `auto`/`layers` the shortest fair lasso, `bfs` the first knot's fair lasso (not
    /// shortest); `tcd` is refused.
    #[arg(long, value_enum, default_value_t = WitnessMethodArg::Auto, requires = "witness")]
    pub witness_method: WitnessMethodArg,
    /// How deep --witness explains nested formulas: 1 (the default) the outermost temporal
    /// operator only; N >= 2 also, from the marking where the witness relies on it, the
    /// witness of each nested temporal formula, to depth N - 1 (docs/ctl.md), and the
    /// shortest witnesses beyond EG of thesis 5.3.1: EF(r & EG s) (a failing AG(r -> AF t)) as
    /// one lasso of F(r & G s), EG EF p (a failing AF AG q) as a lasso whose cycle meets p.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "witness",
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub witness_depth: u32,
    /// Write the MDDs of the reachable states and of each formula's satisfying set to FILE as
    /// Graphviz DOT (levels labelled by their places; CTL formulas).
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    #[command(flatten)]
    pub generation: GenerationArgs,
    /// Print one JSON object on stdout, also on failure (docs/json.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub prism: crate::check_prism::PrismCheckArgs,
}

/// The formulas of the command line: the file's first, then `--ctl` in order. Every problem is
/// an error (exit 2) before anything is generated.
fn jobs(a: &CheckArgs, net: &saturn_model::PetriNet) -> Result<Vec<Job>, Failure> {
    if a.ctl.is_empty() && a.formulas.is_none() {
        return Err(Failure::error(
            "nothing to check: give --ctl 'FORMULA' or --ltl 'FORMULA' (repeatable) or --formulas \
             FILE.xml",
        ));
    }
    let mut jobs = Vec::new();
    if let Some(f) = &a.formulas {
        let mut f = queries::from_file(f, net)?;
        jobs.append(&mut f);
    }
    let color = std::io::stderr().is_terminal();
    match queries::from_ctl(&a.ctl, net, color) {
        Ok(v) => jobs.extend(v.into_iter().map(|(j, _)| j)),
        Err((d, r)) => return Err(Failure::with(Status::Error, d, 2).rendered(r)),
    }
    Ok(jobs)
}

/// The `--fair` state formulas, resolved against `net`.
fn fair_sets(a: &CheckArgs, net: &saturn_model::PetriNet) -> Result<Vec<StateFormula>, Failure> {
    if a.fair.is_empty() {
        return Ok(Vec::new());
    }
    if a.witness && a.witness_method == WitnessMethodArg::Tcd {
        return Err(Failure::error(
            "--witness-method tcd with --fair: the closure with distances has no fairness flags; \
             fair witnesses are found by --witness-method layers (or auto, shortest) or bfs",
        ));
    }
    let color = std::io::stderr().is_terminal();
    let jobs = match queries::from_flag("--fair", &a.fair, net, color) {
        Ok(v) => v,
        Err((d, r)) => return Err(Failure::with(Status::Error, d, 2).rendered(r)),
    };
    let mut out = Vec::with_capacity(jobs.len());
    for (i, (job, _)) in jobs.into_iter().enumerate() {
        match job.query {
            Ok(saturn_logic::ResolvedQuery::Formula(f)) => out.push(f),
            Ok(_) => {
                return Err(Failure::error(format!(
                    "--fair '{}': a fairness constraint is a state formula, not a bound",
                    a.fair[i]
                )))
            }
            Err(e) => return Err(Failure::error(format!("--fair '{}': {e}", a.fair[i]))),
        }
    }
    Ok(out)
}

pub fn run(a: &CheckArgs) -> anyhow::Result<ExitCode> {
    // a file is peeked at to recognise PRISM (standard input stays a PNML net: it can be read once)
    let file = if a.model == "-" {
        None
    } else {
        crate::load::read_input(&a.model)?
    };
    if let Some(mut input) = file {
        if input.is_prism() {
            input.read_all()?;
            return crate::check_prism::run(a, &input);
        }
    }
    let p = &a.prism;
    if p.props.is_some() || !p.consts.is_empty() || p.prop.is_some() || p.plot.is_some() {
        return Err(Failure::error(format!(
            "{}: a Petri net; --props, --const, --prop and --plot apply to PRISM models",
            a.model
        ))
        .into());
    }
    let start = Instant::now();
    let (net, contest_dir) = load_net(&a.model)?;
    if !a.ltl.is_empty() {
        return crate::mcc_ltl::check(a, &net, start);
    }
    let jobs = jobs(a, &net)?;
    let fair = fair_sets(a, &net)?;
    // the transitive closure is sensitive to the order (Railroad-PT-005: minutes under
    // file-rev, a fraction of a second under sloan): the closure-based methods take auto's
    // portfolio by default
    let closure = a.eg_method == EgMethodArg::Tc
        || (!fair.is_empty() && a.fair_method == FairMethodArg::Tc)
        || (a.witness
            && matches!(
                a.witness_method,
                WitnessMethodArg::Tcd | WitnessMethodArg::Auto
            ));
    let order = a.generation.order.unwrap_or(if contest_dir || closure {
        MCC_ORDER
    } else {
        DEFAULT_ORDER
    });
    let models: Vec<_> = lower(&net, order, a.limits.timeout)?
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    let limits = a.limits.limits(start);
    let opts = saturn_engine::Options {
        method: a.generation.method.method(),
        relations: a.generation.relations_for(order),
        portfolio: order == OrderArg::Auto,
        ..saturn_engine::Options::default()
    };
    let progress = crate::progress::reporter("states", a.limits.progress, net.places.len());
    let outcome =
        saturn_engine::reachable(&net, &models, &opts, limits, progress).map_err(|i| {
            Failure::interrupted(
                i,
                &format!("saturn: {}: state-space generation", a.model),
                a.limits.describe(i),
            )
        })?;
    let (won, mut ss) = match outcome {
        Reachable::Generated { won, ss } => (won, ss),
        Reachable::Unbounded(_) => {
            return Err(Failure::error(format!(
                "{}: the net is unbounded (`saturn statespace` shows the witness); CTL model \
                 checking needs a finite state space",
                a.model
            ))
            .into())
        }
    };
    let total = ss.metrics.states.to_string();
    let model = &models[won];
    let within = queries::checker_within(&mut ss, model, &net, a.deadlocks.deadlocks(), limits);
    let mut checker = match within {
        Ok(c) => c,
        Err(i) => {
            return Err(Failure::interrupted(
                i,
                &format!("saturn: {}: the reachable deadlocks", a.model),
                a.limits.describe(i),
            )
            .into())
        }
    };
    checker.set_eu_method(a.eu_method.eu_method());
    checker.set_eg_method(a.eg_method.eg_method());
    checker.set_fair_method(a.fair_method.fair_method());
    checker.set_witness_method(a.witness_method.witness_method());
    if let Err(e) = checker.set_fairness(&fair) {
        return Err(Failure::error(format!("{}: --fair: {e}", a.model)).into());
    }
    let mut rows = Vec::new();
    let mut stopped = None;
    for job in &jobs {
        let t0 = Instant::now();
        let q = match &job.query {
            Ok(q) => q,
            Err(e) => return Err(Failure::error(e.clone()).into()),
        };
        let mut wit = None;
        let ans = if stopped.is_some() {
            None
        } else {
            let r = queries::answer(&mut checker, q).and_then(|x| {
                if let (true, saturn_logic::ResolvedQuery::Formula(f)) = (a.witness, q) {
                    wit = checker.explain(f, a.witness_depth as usize)?;
                }
                Ok(x)
            });
            match r {
                Ok(x) => Some(x),
                Err(saturn_symbolic::ctl::CtlError::Interrupted(i)) => {
                    stopped = Some(i);
                    None
                }
                Err(e) => {
                    return Err(Failure::error(format!("{}: {}: {e}", a.model, job.id)).into())
                }
            }
        };
        rows.push((job, ans, t0.elapsed().as_secs_f64(), wit));
    }
    if let Some(path) = &a.dot {
        let mut roots = vec![("reachable".to_string(), checker.reachable())];
        for (job, ans, _, _) in &rows {
            if let (Some(Answer::Bool { .. }), Ok(saturn_logic::ResolvedQuery::Formula(f))) =
                (ans, &job.query)
            {
                if let Ok(n) = checker.sat(f) {
                    roots.push((job.id.clone(), n));
                }
            }
        }
        out::write_dot(path, checker.forest(), &roots, model)?;
    }
    if a.json {
        let formulas: Vec<_> = rows
            .iter()
            .map(|(job, ans, secs, wit)| {
                let (result, count) = match ans {
                    Some(Answer::Bool { holds, states }) => {
                        (json!(holds), json!(states.to_string()))
                    }
                    Some(Answer::Bound(b)) => (json!(b.to_string()), json!(null)),
                    None => (json!(null), json!(null)),
                };
                let mut o = json!({
                    "id": job.id,
                    "formula": job.text,
                    "result": result,
                    "satisfying_states": count,
                    "seconds": secs,
                });
                if a.witness {
                    o["witness"] = wit.as_ref().map_or(json!(null), |e| {
                        crate::explain::explained_json(model, &net, e, !fair.is_empty())
                    });
                }
                o
            })
            .collect();
        let mut v = ok_object(
            "check",
            &a.model,
            json!({
                "net": net.name,
                "states": total,
                "deadlocks": a.deadlocks.deadlocks().name(),
                "formulas": formulas,
            }),
        );
        if let Some(i) = stopped {
            v["status"] = json!(crate::report::status_of(i));
            v["diagnostics"] = json!([crate::report::Diagnostic::plain(a.limits.describe(i))]);
        }
        out::println(v)?;
    } else {
        let mut t = String::new();
        for (job, ans, _, wit) in &rows {
            let _ = match ans {
                Some(Answer::Bool { holds, states }) => writeln!(
                    t,
                    "{} {} ({states} of {} states) {}",
                    job.id,
                    if *holds { "TRUE" } else { "FALSE" },
                    total,
                    job.text
                ),
                Some(b @ Answer::Bound(_)) => writeln!(t, "{} {} {}", job.id, b.word(), job.text),
                None => writeln!(t, "{} CANNOT_COMPUTE {}", job.id, job.text),
            };
            if let Some(e) = wit {
                t.push_str(&crate::explain::explained_text(model, &net, e, 0));
            }
        }
        out::print(&t)?;
    }
    match stopped {
        Some(i) => {
            eprintln!(
                "error: {}: {}; formulas after it not checked",
                a.model,
                a.limits.describe(i)
            );
            Ok(ExitCode::from(3))
        }
        None => Ok(ExitCode::SUCCESS),
    }
}
