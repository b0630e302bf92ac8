//! `saturn check MODEL.sm --props FILE --epsilon 1e-1:1e-10 [--plot FILE.svg]`: the bounds
//! against epsilon (thesis section 7.3, Figures 7.6-7.7). The chain is built once; every
//! selected property is evaluated at every epsilon of the range, without refinement (each
//! point shows what that epsilon gives): for a number its guaranteed bounds in the initial
//! state; for a boolean state formula the sizes of its lower and upper satisfying sets
//! `|X^l|`, `|X^u|` (the states surely and possibly satisfying it) and its verdict in the
//! initial state, and for a threshold `P~p [...]` (`S~p`, `R~r`) also the bounds of the
//! number it compares, `nu^l[s0]`, `nu^u[s0]`. Prints one table per property, or with `--json`
//! one array of points per property; `--plot` draws Figures 7.6-7.7's two panels per property.

mod range;

pub use range::EpsilonArg;

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::{json, Value as Json};

use saturn_ctmc::props::{
    fmt_num, Answer, Bounded, CheckError, Checker, Csl, Interval, Rel, RewardStructure, Stats,
};
use saturn_ctmc::solve::Options;
use saturn_prism::program::Type;
use saturn_prism::ConstOverrides;

use crate::check::CheckArgs;
use crate::check_prism::{
    const_error, exit_code, failure_outcome, method_text, new_checker, num_json, print_run_json,
    report_failed, Chain, EngineChoice, Outcome, Row,
};
use crate::experiment::{self, table, At};
use crate::load::Input;
use crate::out;
use crate::plot::{Bounds, Figure, Measure, Panel, Sample};
use crate::report::Failure;

/// One property at one epsilon: the row (outcome: the verdict of a boolean, the number's
/// answer; merged statistics), the number's bounds in the initial state(s) and the sizes of
/// the satisfying sets.
struct Point {
    /// The assignment of the constants (its index in the experiment's product).
    at: usize,
    epsilon: f64,
    row: Row,
    bounds: Option<Interval>,
    sets: Option<(usize, usize)>,
}

/// What one evaluation gave.
struct Measured {
    answer: Answer,
    bounds: Option<Interval>,
    sets: Option<(usize, usize)>,
}

/// `f` without its top-level threshold: the number it compares (`P~p [...]` gives `P=? [...]`)
/// and the threshold, or `None` when `f` has no threshold at its top.
fn compared_number(f: &Csl) -> Option<(Csl, (Rel, f64))> {
    let mut g = f.clone();
    let bound = match &mut g {
        Csl::Until { bound, .. }
        | Csl::TimedUntil { bound, .. }
        | Csl::Next { bound, .. }
        | Csl::Steady { bound, .. }
        | Csl::Reward { bound, .. } => bound,
        _ => return None,
    };
    let threshold = bound.take()?;
    Some((g, threshold))
}

/// The number's values compared with the threshold, as the checker compares them
/// (`Interval::compare`): a state whose interval lies on one side is decided, the others are
/// undecided, and without a guarantee (an estimate) every state is undecided.
fn thresholded(vals: &[Bounded], (rel, p): (Rel, f64), guaranteed: bool) -> Vec<Bounded> {
    vals.iter()
        .map(|v| match v.interval() {
            Some(i) if guaranteed => Bounded::truth(i.compare(rel, p)),
            _ => Bounded::Undecided,
        })
        .collect()
}

/// The values of the initial states as bounds: their hull, and the answer (one state's
/// interval, or the range over several).
fn initial_bounds(vals: &[Bounded], init: &[usize]) -> Option<(Interval, Answer)> {
    let xs: Vec<Interval> = init.iter().filter_map(|&i| vals[i].interval()).collect();
    let lowest = *xs.iter().min_by(|a, b| a.point().total_cmp(&b.point()))?;
    let highest = *xs.iter().max_by(|a, b| a.point().total_cmp(&b.point()))?;
    let hull = xs.iter().skip(1).fold(xs[0], |h, x| h.hull(*x));
    let answer = if xs.len() == 1 {
        Answer::Num(xs[0])
    } else {
        Answer::Range(lowest, highest)
    };
    Some((hull, answer))
}

/// The sizes of the lower and upper satisfying sets of a boolean formula's values, and its
/// verdict in the initial states (true when surely true in all, false when surely false in
/// one, else undecided).
fn satisfying_sets(vals: &[Bounded], init: &[usize]) -> ((usize, usize), Answer) {
    let truth = |v: &Bounded| v.boolean().ok().flatten();
    let sure = vals.iter().filter(|v| truth(v) == Some(true)).count();
    let undecided = vals.iter().filter(|v| **v == Bounded::Undecided).count();
    let at: Vec<Option<bool>> = init.iter().map(|&i| truth(&vals[i])).collect();
    let verdict = if at.contains(&Some(false)) {
        Answer::Bool(false)
    } else if at.iter().all(|b| *b == Some(true)) {
        Answer::Bool(true)
    } else {
        Answer::Undecided
    };
    ((sure, sure + undecided), verdict)
}

/// Evaluate `f` (a boolean when `boolean`) at the checker's epsilon: the sets and the verdict
/// of a boolean, the bounds of a number (of the number a threshold compares). A threshold at
/// the top is solved once: its number is evaluated and compared here, as the checker would.
fn measure(
    checker: &mut Checker,
    f: &Csl,
    boolean: bool,
    init: &[usize],
) -> Result<(Measured, Stats), CheckError> {
    let top = if boolean { compared_number(f) } else { None };
    let vals = checker.eval(top.as_ref().map_or(f, |(g, _)| g))?;
    let mut stats = checker.stats().clone();
    let hull = initial_bounds(&vals, init);
    if !boolean {
        let (hull, answer) =
            hull.ok_or_else(|| CheckError::Filter("no number in the initial state".into()))?;
        let m = Measured {
            answer,
            bounds: Some(hull),
            sets: None,
        };
        return Ok((m, stats));
    }
    let truths = match top {
        Some((_, threshold)) => {
            let t = thresholded(&vals, threshold, stats.guaranteed);
            stats.undecided = t.iter().filter(|v| **v == Bounded::Undecided).count();
            t
        }
        None => vals,
    };
    let (sets, answer) = satisfying_sets(&truths, init);
    let m = Measured {
        answer,
        bounds: hull.map(|(h, _)| h),
        sets: Some(sets),
    };
    Ok((m, stats))
}

/// The table's cells of a point: result, then (when the property has them) lower, upper and
/// width, the two set sizes, then the iterations.
fn cells(p: &Point, numbers: bool, sets: bool, limits: &crate::args::LimitArgs) -> Vec<String> {
    let mut c = vec![format!("{:e}", p.epsilon)];
    c.push(match &p.row.outcome {
        Outcome::Answer(a) => a.to_string(),
        Outcome::Failed(m) => format!("no result: {m}"),
        Outcome::Stopped(i) => format!("no result: {}", limits.describe(*i)),
        Outcome::Skipped => "not checked".into(),
    });
    if numbers {
        match p.bounds {
            Some(i) => c.extend([fmt_num(i.lo), fmt_num(i.hi), format!("{:.3e}", i.width())]),
            None => c.extend([String::new(), String::new(), String::new()]),
        }
    }
    if sets {
        match p.sets {
            Some((l, u)) => c.extend([l.to_string(), u.to_string()]),
            None => c.extend([String::new(), String::new()]),
        }
    }
    c.push(p.row.iterations.to_string());
    c
}

/// The JSON object of a point.
fn point_json(p: &Point, limits: &crate::args::LimitArgs) -> Json {
    let (status, result, message) = match &p.row.outcome {
        Outcome::Answer(a) => (
            json!("ok"),
            match a {
                Answer::Bool(b) => json!(b),
                Answer::Undecided => Json::Null,
                Answer::Num(x) => num_json(x.point()),
                Answer::Range(lo, hi) => json!([num_json(lo.point()), num_json(hi.point())]),
            },
            Json::Null,
        ),
        Outcome::Failed(m) => (json!("error"), Json::Null, json!(m)),
        Outcome::Stopped(i) => (
            json!(crate::report::status_of(*i)),
            Json::Null,
            json!(limits.describe(*i)),
        ),
        Outcome::Skipped => (json!("skipped"), Json::Null, Json::Null),
    };
    let answered = matches!(p.row.outcome, Outcome::Answer(_));
    let st = &p.row.stats;
    json!({
        "epsilon": p.epsilon,
        "status": status,
        "result": result,
        "message": message,
        "lower": p.bounds.map(|i| num_json(i.lo)),
        "upper": p.bounds.map(|i| num_json(i.hi)),
        "width": p.bounds.map(|i| num_json(i.width())),
        "lower_set": p.sets.map(|s| s.0),
        "upper_set": p.sets.map(|s| s.1),
        "guaranteed": answered.then_some(st.guaranteed),
        "within_epsilon": answered.then_some(st.wide.is_empty()),
        "method": answered.then(|| method_text(st)),
        "iterations": p.row.iterations,
        "methods": p.row.methods,
        "seconds": p.row.seconds,
    })
}

/// One sample per point, at its epsilon.
fn samples(points: &[&Point], y: impl Fn(&Point) -> Option<Bounds>) -> Vec<Sample> {
    points
        .iter()
        .map(|p| Sample {
            x: p.epsilon,
            y: y(p),
        })
        .collect()
}

/// Thesis Figures 7.6-7.7 for one property: the sizes of the lower and upper satisfying sets
/// against epsilon (left, for a boolean formula) and the bounds of its number in the initial
/// state against epsilon (right: `nu^l[s0]`, `nu^u[s0]`, and the result of a numeric property
/// between them); the points sorted by epsilon for the logarithmic axis.
fn figures_7_6_7_7_panels(title: &str, points: &[&Point]) -> Vec<Panel> {
    let mut sorted: Vec<&Point> = points.to_vec();
    sorted.sort_by(|a, b| a.epsilon.total_cmp(&b.epsilon));
    let answered = |p: &Point| matches!(p.row.outcome, Outcome::Answer(_));
    let mut panels = Vec::new();
    if sorted.iter().any(|p| p.sets.is_some()) {
        panels.push(Panel {
            title: format!("{title}: |X^l|, |X^u|"),
            samples: samples(&sorted, |p| {
                p.sets.filter(|_| answered(p)).map(|(l, u)| Bounds {
                    lower: l as f64,
                    result: None,
                    upper: u as f64,
                })
            }),
            measure: Measure::SetSizes,
        });
    }
    if sorted.iter().any(|p| p.bounds.is_some()) {
        panels.push(Panel {
            title: format!("{title}: bounds in the initial state"),
            samples: samples(&sorted, |p| {
                p.bounds
                    .filter(|i| answered(p) && i.lo.is_finite() && i.hi.is_finite())
                    .map(|i| Bounds {
                        lower: i.lo,
                        result: match p.row.outcome {
                            Outcome::Answer(Answer::Num(x)) => Some(x.point()),
                            _ => None,
                        },
                        upper: i.hi,
                    })
            }),
            measure: Measure::Value,
        });
    }
    panels
}

/// At most this many points of the ranged constants in a plot over epsilon (a row of
/// panels per property and point).
const MAX_PLOT_POINTS: usize = 12;

/// Evaluate property `k` of the point `at` at every epsilon, each from a fresh checker.
#[allow(clippy::too_many_arguments)]
fn sweep(
    a: &CheckArgs,
    chain: &Chain,
    rewards: &[RewardStructure],
    at: &At,
    k: usize,
    epsilons: &[f64],
    options: Options,
    limits: &saturn_symbolic::Limits,
    stopped: &mut Option<saturn_symbolic::Interrupted>,
) -> Vec<Point> {
    let tr = at.translator(chain);
    let prop = &tr.props.properties[k];
    let boolean = prop.ty == Type::Bool;
    let formula = tr.csl(&prop.expr);
    let init = chain.ctmc.chain().initial().to_vec();
    let mut points = Vec::new();
    for &eps in epsilons {
        let t0 = Instant::now();
        let mut checker = new_checker(
            chain,
            rewards,
            Options {
                epsilon: eps,
                ..options
            },
            limits,
            a.limits.progress,
        );
        let (outcome, measured, stats) = match (&formula, *stopped) {
            (_, Some(_)) => (Outcome::Skipped, None, Stats::default()),
            (Err(u), None) => (Outcome::Failed(u.0.clone()), None, Stats::default()),
            (Ok(f), None) => match measure(&mut checker, f, boolean, &init) {
                Ok((m, st)) => (Outcome::Answer(m.answer), Some(m), st),
                Err(e) => (
                    failure_outcome(e, limits, stopped),
                    None,
                    checker.stats().clone(),
                ),
            },
        };
        points.push(Point {
            at: at.index,
            epsilon: eps,
            bounds: measured.as_ref().and_then(|m| m.bounds),
            sets: measured.as_ref().and_then(|m| m.sets),
            row: Row {
                index: k + 1,
                text: prop.ast.to_string(),
                outcome,
                iterations: stats.iterations,
                methods: stats.methods.clone(),
                stats,
                seconds: t0.elapsed().as_secs_f64(),
            },
        });
    }
    points
}

/// The points of property `k` at the assignment `at` that a limit kept from being checked.
fn skipped_points(at: usize, k: usize, text: &str, epsilons: &[f64]) -> Vec<Point> {
    epsilons
        .iter()
        .map(|&epsilon| Point {
            at,
            epsilon,
            bounds: None,
            sets: None,
            row: experiment::skipped_row(k, text),
        })
        .collect()
}

/// Run the epsilon experiment of `--epsilon START:END`, at every point of the ranged constants
/// when `--const` ranges some (their product, as [`crate::experiment`]; the chain built once
/// per value of the model's constants).
pub fn run(
    a: &CheckArgs,
    input: &Input,
    options: Options,
    engine: EngineChoice,
    start: Instant,
) -> anyhow::Result<ExitCode> {
    let p = &a.prism;
    let overrides = ConstOverrides::parse_all(&p.consts).map_err(const_error)?;
    let ranged = experiment::ranged(&overrides);
    let epsilons = p.epsilon.values();
    if let Some(plot) = &p.plot {
        let n = overrides.assignments().map_err(const_error)?.len();
        if n > MAX_PLOT_POINTS {
            return Err(Failure::error(format!(
                "--plot {}: a plot over epsilon draws a row of panels per property and point of \
                 the ranged constants, at most {MAX_PLOT_POINTS} points, but --const {} has {n}; \
                 narrow the range or leave --plot out for the table",
                plot.display(),
                overrides
            ))
            .into());
        }
    }
    let limits = a.limits.limits(start);
    let mut stopped = None;
    let walked = experiment::walk(
        a,
        input,
        &overrides,
        engine,
        start,
        &limits,
        &mut stopped,
        |_, _| Ok(()),
        |chain, rewards, ats, selected, stopped| {
            ats.iter()
                .map(|at| {
                    selected
                        .iter()
                        .map(|&k| {
                            sweep(
                                a, chain, rewards, at, k, &epsilons, options, &limits, stopped,
                            )
                        })
                        .collect::<Vec<_>>()
                })
                .collect()
        },
    )?;
    let pf = &walked.props;
    let selected = &walked.selected;
    // points[j]: property j at every assignment (in order) and epsilon
    let mut points: Vec<Vec<Point>> = selected.iter().map(|_| Vec::new()).collect();
    for (i, v) in walked.points.into_iter().enumerate() {
        match v {
            Some((_, per_prop)) => {
                for (j, pts) in per_prop.into_iter().enumerate() {
                    points[j].extend(pts);
                }
            }
            None => {
                for (j, &k) in selected.iter().enumerate() {
                    let text = pf.properties[k].ast.to_string();
                    points[j].extend(skipped_points(i, k, &text, &epsilons));
                }
            }
        }
    }
    let assignments = &walked.assignments;
    let builds = &walked.builds;
    let at_text = |pt: &Point| {
        if ranged.is_empty() {
            format!("{} at epsilon {:e}", a.model, pt.epsilon)
        } else {
            format!(
                "{} at {}, epsilon {:e}",
                a.model, assignments[pt.at], pt.epsilon
            )
        }
    };
    let mut failed = Vec::new();
    for pts in &points {
        for pt in pts {
            failed.extend(report_failed(&at_text(pt), std::slice::from_ref(&pt.row)));
        }
    }
    let relative = if p.absolute { "absolute" } else { "relative" };
    if a.json {
        let props: Vec<Json> = selected
            .iter()
            .zip(&points)
            .map(|(&k, pts)| {
                let pts: Vec<Json> = pts
                    .iter()
                    .map(|pt| {
                        let mut o = point_json(pt, &a.limits);
                        if let (false, Json::Object(m)) = (ranged.is_empty(), &mut o) {
                            m.insert(
                                "consts".into(),
                                experiment::consts_json(&assignments[pt.at]),
                            );
                        }
                        o
                    })
                    .collect();
                json!({
                    "index": k + 1,
                    "property": pf.properties[k].ast.to_string(),
                    "points": pts,
                })
            })
            .collect();
        let mut head = json!({
            "input": "prism",
            "type": walked.model_type,
            "epsilons": epsilons,
            "convergence": relative,
            "engine": experiment::engine_names(builds),
        });
        if let (Json::Object(m), Some(b)) = (&mut head, builds.first()) {
            if ranged.is_empty() {
                m.insert("constants".into(), json!(b.constants_all));
                m.insert(
                    "engine_auto".into(),
                    json!(b.auto.as_ref().map(crate::check_prism::AutoChoice::json)),
                );
                m.insert("states".into(), json!(b.states));
                m.insert("transitions".into(), json!(b.transitions));
                m.insert("build_seconds".into(), json!(b.seconds));
            } else {
                m.insert("constants".into(), json!(overrides.to_string()));
                m.insert("ranged".into(), json!(ranged));
                m.insert("builds".into(), json!(experiment::builds_json(builds)));
            }
        }
        print_run_json(a, head, props, start, stopped, &failed)?;
    } else {
        let mut t = format!("model: {} ({})\n", a.model, walked.model_type);
        if ranged.is_empty() {
            let b = builds.first().expect("one chain, built before any limit");
            if !b.constants_all.is_empty() {
                let _ = writeln!(t, "constants: {}", b.constants_all);
            }
            let _ = writeln!(
                t,
                "epsilon: {} ({} values, {relative}, no refinement), engine {}",
                p.epsilon,
                epsilons.len(),
                b.engine_text()
            );
            let _ = writeln!(
                t,
                "states: {}, transitions: {} (built in {:.3} s)",
                b.states, b.transitions, b.seconds
            );
        } else {
            let _ = writeln!(
                t,
                "constants: {overrides} ({} points, {} chain(s) built, engine {})",
                assignments.len(),
                builds.len(),
                experiment::engine_names(builds)
            );
            let _ = writeln!(
                t,
                "epsilon: {} ({} values, {relative}, no refinement)",
                p.epsilon,
                epsilons.len()
            );
            experiment::builds_text(&mut t, builds);
        }
        for (&k, pts) in selected.iter().zip(&points) {
            let _ = writeln!(t, "\n[{}] {}", k + 1, pf.properties[k].ast);
            let numbers = pts.iter().any(|pt| pt.bounds.is_some());
            let sets = pts.iter().any(|pt| pt.sets.is_some());
            if numbers && sets {
                let _ = writeln!(
                    t,
                    "Lower, Upper: the bounds of the number the threshold compares, in the \
                     initial state; |X^l|, |X^u|: the states surely and possibly satisfying \
                     the formula"
                );
            }
            let mut header: Vec<String> = ranged.iter().map(|s| s.to_string()).collect();
            header.extend(["Epsilon".to_string(), "Result".to_string()]);
            if numbers {
                header.extend(["Lower", "Upper", "Width"].map(String::from));
            }
            if sets {
                header.extend(["|X^l|", "|X^u|"].map(String::from));
            }
            header.push("Iterations".into());
            let rows: Vec<Vec<String>> = pts
                .iter()
                .map(|pt| {
                    let mut r = experiment::values_of(&assignments[pt.at], &ranged);
                    r.extend(cells(pt, numbers, sets, &a.limits));
                    r
                })
                .collect();
            table(&mut t, &header, &rows);
        }
        out::print(&t)?;
    }
    if let Some(plot) = &p.plot {
        let mut rows: Vec<Vec<Panel>> = Vec::new();
        for (&k, pts) in selected.iter().zip(&points) {
            for (i, ov) in assignments.iter().enumerate() {
                let refs: Vec<&Point> = pts.iter().filter(|pt| pt.at == i).collect();
                let mut title = format!("[{}] {}", k + 1, pf.properties[k].ast);
                if !ranged.is_empty() {
                    let at: Vec<String> = ranged
                        .iter()
                        .zip(experiment::values_of(ov, &ranged))
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect();
                    let _ = write!(title, " at {}", at.join(","));
                }
                let r = figures_7_6_7_7_panels(&title, &refs);
                if !r.is_empty() {
                    rows.push(r);
                }
            }
        }
        let fixed = experiment::fixed_text(&overrides);
        let note = if fixed.is_empty() {
            format!("epsilon {relative}")
        } else {
            format!("constants: {fixed}; epsilon {relative}")
        };
        out::write_file(
            plot,
            &crate::plot::figure(&Figure {
                x_name: "epsilon",
                log_x: true,
                note: &note,
                rows,
            }),
        )?;
    }
    Ok(exit_code(stopped, &failed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use saturn_model::expr::Value;

    #[test]
    fn sets_and_verdicts_follow_the_three_valued_values() {
        let t = Bounded::Exact(Value::Bool(true));
        let f = Bounded::Exact(Value::Bool(false));
        let u = Bounded::Undecided;
        let vals = [t, u, f, t, u];
        assert_eq!(satisfying_sets(&vals, &[0]), ((2, 4), Answer::Bool(true)));
        assert_eq!(satisfying_sets(&vals, &[1]).1, Answer::Undecided);
        assert_eq!(satisfying_sets(&vals, &[0, 1]).1, Answer::Undecided);
        assert_eq!(satisfying_sets(&vals, &[1, 2]).1, Answer::Bool(false));
        let nums = [Bounded::Within(0.1, 0.2), Bounded::Within(0.3, 0.5)];
        let (hull, a) = initial_bounds(&nums, &[0, 1]).expect("numbers");
        assert_eq!((hull.lo, hull.hi), (0.1, 0.5));
        assert!(matches!(a, Answer::Range(..)));
        assert!(matches!(
            initial_bounds(&nums, &[1]),
            Some((_, Answer::Num(_)))
        ));
    }

    #[test]
    fn the_compared_number_drops_the_top_threshold_only() {
        let atom = Box::new(Csl::Init);
        let until = |bound| Csl::Until {
            bound,
            left: atom.clone(),
            right: atom.clone(),
        };
        let thresholded = until(Some((Rel::Le, 0.2)));
        assert_eq!(
            compared_number(&thresholded),
            Some((until(None), (Rel::Le, 0.2)))
        );
        assert_eq!(compared_number(&until(None)), None);
        assert_eq!(compared_number(&Csl::Not(Box::new(thresholded))), None);
    }

    #[test]
    fn a_threshold_decides_the_states_whose_bounds_lie_on_one_side() {
        let vals = [
            Bounded::Within(0.4, 0.6),
            Bounded::Within(0.6, 0.7),
            Bounded::Within(0.1, 0.2),
            Bounded::Undecided,
            Bounded::Exact(saturn_model::expr::Value::Real(0.5)),
        ];
        let t = thresholded(&vals, (Rel::Ge, 0.5), true);
        let truth = |b: Option<bool>| Bounded::truth(b);
        assert_eq!(
            t,
            vec![
                truth(None),
                truth(Some(true)),
                truth(Some(false)),
                truth(None),
                truth(Some(true)),
            ]
        );
        // an estimate without a guarantee decides nothing
        let t = thresholded(&vals, (Rel::Ge, 0.5), false);
        assert!(t.iter().all(|v| *v == Bounded::Undecided));
    }
}
