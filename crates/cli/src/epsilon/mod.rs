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
    fmt_num, Answer, Bounded, CheckError, Checker, Csl, Interval, Rel, Stats,
};
use saturn_ctmc::solve::Options;
use saturn_prism::program::Type;
use saturn_prism::ConstOverrides;

use crate::check::CheckArgs;
use crate::check_prism::{
    const_error, engine_text, exit_code, failure_outcome, load_checked, method_text, new_checker,
    num_json, print_run_json, report_failed, EngineChoice, Outcome, Row,
};
use crate::experiment::table;
use crate::load::Input;
use crate::out;
use crate::plot::{Bounds, Figure, Measure, Panel, Sample};

/// One property at one epsilon: the row (outcome: the verdict of a boolean, the number's
/// answer; merged statistics), the number's bounds in the initial state(s) and the sizes of
/// the satisfying sets.
struct Point {
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
    let verdict = if at.iter().any(|b| *b == Some(false)) {
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

/// Run the epsilon experiment of `--epsilon START:END` (the constants single values).
pub fn run(
    a: &CheckArgs,
    input: &Input,
    options: Options,
    engine: EngineChoice,
    start: Instant,
) -> anyhow::Result<ExitCode> {
    let p = &a.prism;
    let props_path = p.props.as_deref().expect("the caller checked --props");
    let overrides = ConstOverrides::parse_all(&p.consts).map_err(const_error)?;
    if !overrides.is_concrete() {
        return Err(const_error(format!(
            "--epsilon {}: an experiment over epsilon takes one value per constant (a ranged \
             --const is an experiment of its own)",
            p.epsilon
        ))
        .into());
    }
    let epsilons = p.epsilon.values();
    let (chain, selected, rewards) = load_checked(a, input, props_path, engine, start)?;
    let tr = chain.translator();
    let pf = tr.props;
    let limits = a.limits.limits(start);
    let init = chain.ctmc.chain().initial().to_vec();
    let mut stopped = None;
    // points[j][e]: property j at epsilon e
    let mut points: Vec<Vec<Point>> = Vec::new();
    for &k in &selected {
        let prop = &pf.properties[k];
        let boolean = prop.ty == Type::Bool;
        let formula = tr.csl(&prop.expr);
        let mut row_points = Vec::new();
        for &eps in &epsilons {
            let t0 = Instant::now();
            let mut checker = new_checker(
                &chain,
                &rewards,
                Options {
                    epsilon: eps,
                    ..options
                },
                &limits,
                a.limits.progress,
            );
            let (outcome, measured, stats) = match (&formula, stopped) {
                (_, Some(_)) => (Outcome::Skipped, None, Stats::default()),
                (Err(u), None) => (Outcome::Failed(u.0.clone()), None, Stats::default()),
                (Ok(f), None) => match measure(&mut checker, f, boolean, &init) {
                    Ok((m, st)) => (Outcome::Answer(m.answer), Some(m), st),
                    Err(e) => (
                        failure_outcome(e, &limits, &mut stopped),
                        None,
                        checker.stats().clone(),
                    ),
                },
            };
            row_points.push(Point {
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
        points.push(row_points);
    }
    let mut failed = Vec::new();
    for pts in &points {
        for pt in pts {
            failed.extend(report_failed(
                &format!("{} at epsilon {:e}", a.model, pt.epsilon),
                std::slice::from_ref(&pt.row),
            ));
        }
    }
    let c = chain.ctmc.chain();
    let relative = if p.absolute { "absolute" } else { "relative" };
    if a.json {
        let props: Vec<Json> = selected
            .iter()
            .zip(&points)
            .map(|(&k, pts)| {
                json!({
                    "index": k + 1,
                    "property": pf.properties[k].ast.to_string(),
                    "points": pts.iter().map(|pt| point_json(pt, &a.limits)).collect::<Vec<_>>(),
                })
            })
            .collect();
        print_run_json(
            a,
            json!({
                "input": "prism",
                "type": chain.prog.model_type.name(),
                "constants": chain.constants,
                "epsilons": epsilons,
                "convergence": relative,
                "engine": chain.ctmc.name(),
                "engine_auto": chain.auto.as_ref().map(crate::check_prism::AutoChoice::json),
                "states": c.len(),
                "transitions": c.transitions(),
                "build_seconds": chain.build_seconds,
            }),
            props,
            start,
            stopped,
            &failed,
        )?;
    } else {
        let mut t = format!("model: {} ({})\n", a.model, chain.prog.model_type.name());
        if !chain.constants.is_empty() {
            let _ = writeln!(t, "constants: {}", chain.constants);
        }
        let _ = writeln!(
            t,
            "epsilon: {} ({} values, {relative}, no refinement), engine {}",
            p.epsilon,
            epsilons.len(),
            engine_text(&chain.ctmc, chain.auto.as_ref())
        );
        let _ = writeln!(
            t,
            "states: {}, transitions: {} (built in {:.3} s)",
            c.len(),
            c.transitions(),
            chain.build_seconds
        );
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
            let mut header = vec!["Epsilon".to_string(), "Result".to_string()];
            if numbers {
                header.extend(["Lower", "Upper", "Width"].map(String::from));
            }
            if sets {
                header.extend(["|X^l|", "|X^u|"].map(String::from));
            }
            header.push("Iterations".into());
            let rows: Vec<Vec<String>> = pts
                .iter()
                .map(|pt| cells(pt, numbers, sets, &a.limits))
                .collect();
            table(&mut t, &header, &rows);
        }
        out::print(&t)?;
    }
    if let Some(plot) = &p.plot {
        let rows: Vec<Vec<Panel>> = selected
            .iter()
            .zip(&points)
            .map(|(&k, pts)| {
                let refs: Vec<&Point> = pts.iter().collect();
                figures_7_6_7_7_panels(&format!("[{}] {}", k + 1, pf.properties[k].ast), &refs)
            })
            .filter(|r| !r.is_empty())
            .collect();
        let note = if chain.constants.is_empty() {
            format!("epsilon {relative}")
        } else {
            format!("constants: {}; epsilon {relative}", chain.constants)
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
