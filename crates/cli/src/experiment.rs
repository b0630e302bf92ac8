//! `saturn check MODEL.sm --props FILE --const T=0:1:50 [--plot FILE.svg]`: PRISM's
//! experiments. Every selected property is checked at every point of the ranged constants
//! (their product, the last varying fastest, as PRISM); the chain is built once per value of
//! the model's constants, and the points that differ only in property constants (a time bound)
//! reuse it and its checker (bottom SCCs, stationary distributions). Prints one table per
//! property, or with `--json` one array of points per property; `--plot` draws the numbers
//! over the one ranged constant ([`crate::plot`]).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use serde_json::{json, Map, Value as Json};

use saturn_ctmc::props::{fmt_num, Answer, Stats};
use saturn_ctmc::solve::Options;
use saturn_prism::program::{Type, Value};
use saturn_prism::{ConstOverrides, ConstSpec};

use crate::check::CheckArgs;
use crate::check_prism::{
    check_rows, const_error, exit_code, load_chain_at, new_checker, print_run_json, report_failed,
    row_json, selected_properties, AutoChoice, Chain, EngineChoice, Outcome, Row,
};
use crate::load::Input;
use crate::out;
use crate::parse_prism::prism_failure;
use crate::plot::{Bounds, Measure, Panel, Sample};
use crate::prism_csl::Translator;
use crate::report::Failure;

/// One chain built: the model constants' values and its size.
pub(crate) struct Build {
    pub constants: String,
    /// Every constant's value at the point the chain was built for (the model's and the
    /// property file's).
    pub constants_all: String,
    /// The engine's name, and what `--engine auto` measured.
    pub engine: &'static str,
    pub auto: Option<AutoChoice>,
    pub states: usize,
    pub transitions: u64,
    pub seconds: f64,
}

/// One point of the experiment: every constant's value, the chain it was checked on, the
/// selected properties' rows.
struct Point {
    consts: ConstOverrides,
    /// `None`: not built (a limit stopped the experiment before).
    build: Option<usize>,
    rows: Vec<Row>,
}

/// The names of the ranged constants in `overrides`.
pub(crate) fn ranged(overrides: &ConstOverrides) -> Vec<&str> {
    overrides
        .entries()
        .iter()
        .filter(|(_, s)| matches!(s, ConstSpec::Range { .. }))
        .map(|(n, _)| n.as_str())
        .collect()
}

/// Refuse `--plot` unless exactly one constant is ranged (exit 2).
fn check_plot(plot: &Path, ranged: &[&str]) -> Result<(), Failure> {
    if ranged.len() == 1 {
        return Ok(());
    }
    Err(Failure::error(format!(
        "--plot {}: a plot is drawn over exactly one ranged constant, but --const ranges {} \
         ({}); give the others single values",
        plot.display(),
        ranged.len(),
        ranged.join(", ")
    )))
}

/// `f`, a failure at the point `ov`, saying so.
fn at_point(f: Failure, ov: &ConstOverrides) -> Failure {
    let text = format!("error: at constants {ov}:\n{}", f.stderr_text());
    let mut f = f.rendered(text);
    for d in &mut f.diagnostics {
        d.message = format!("at constants {ov}: {}", d.message);
    }
    f
}

/// The rows of `selected` not checked because a limit stopped the run.
fn skipped(selected: &[usize], pf: &saturn_prism::PropertyFile) -> Vec<Row> {
    selected
        .iter()
        .map(|&k| skipped_row(k, &pf.properties[k].ast.to_string()))
        .collect()
}

/// The row of property `k` (0-based), `text`, not checked because a limit stopped the run.
pub(crate) fn skipped_row(k: usize, text: &str) -> Row {
    Row {
        index: k + 1,
        text: text.to_string(),
        outcome: Outcome::Skipped,
        iterations: 0,
        methods: Vec::new(),
        stats: Stats::default(),
        seconds: 0.0,
    }
}

fn value_json(v: &Value) -> Json {
    match v {
        Value::Int(i) => json!(i),
        Value::Double(d) => json!(d),
        Value::Bool(b) => json!(b),
    }
}

/// The single-valued constants of `consts` as a JSON object (name to value).
pub(crate) fn consts_json(consts: &ConstOverrides) -> Json {
    let m: Map<String, Json> = consts
        .entries()
        .iter()
        .filter_map(|(n, s)| match s {
            ConstSpec::Single(v) => Some((n.clone(), value_json(v))),
            ConstSpec::Range { .. } => None,
        })
        .collect();
    Json::Object(m)
}

/// The constants `--const` gives a single value, as `N=1, T=5` (the notes of plots).
pub(crate) fn fixed_text(overrides: &ConstOverrides) -> String {
    let fixed: Vec<String> = overrides
        .entries()
        .iter()
        .filter_map(|(n, s)| match s {
            ConstSpec::Single(v) => Some(format!("{n}={v}")),
            ConstSpec::Range { .. } => None,
        })
        .collect();
    fixed.join(", ")
}

/// The values of `names` in `consts`, as text.
pub(crate) fn values_of(consts: &ConstOverrides, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|n| consts.value(n).map_or_else(String::new, |v| v.to_string()))
        .collect()
}

/// A column-aligned table: the header, then the rows.
pub(crate) fn table(t: &mut String, header: &[String], rows: &[Vec<String>]) {
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (k, c) in r.iter().enumerate() {
            w[k] = w[k].max(c.chars().count());
        }
    }
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(k, c)| format!("{c:<width$}", width = w[k]))
            .collect();
        let _ = writeln!(t, "{}", line.join("  ").trim_end());
    }
}

/// The result, lower and upper columns of one row.
fn cells(r: &Row, limits: &crate::args::LimitArgs) -> [String; 3] {
    match &r.outcome {
        Outcome::Answer(Answer::Bool(b)) => [b.to_string(), b.to_string(), b.to_string()],
        Outcome::Answer(Answer::Undecided) => ["undecided".into(), "false".into(), "true".into()],
        Outcome::Answer(a) => {
            let i = a.bounds().expect("a number");
            [a.to_string(), fmt_num(i.lo), fmt_num(i.hi)]
        }
        Outcome::Failed(m) => [format!("no result: {m}"), String::new(), String::new()],
        Outcome::Stopped(i) => [
            format!("no result: {}", limits.describe(*i)),
            String::new(),
            String::new(),
        ],
        Outcome::Skipped => ["not checked".into(), String::new(), String::new()],
    }
}

/// The numbers a plot draws for one row (`None`: a gap).
fn plotted(r: &Row) -> Option<Bounds> {
    let Outcome::Answer(a) = &r.outcome else {
        return None;
    };
    let i = a.bounds()?;
    let result = match a {
        Answer::Num(x) => Some(x.point()).filter(|v| v.is_finite()),
        _ => None,
    };
    (i.lo.is_finite() && i.hi.is_finite()).then_some(Bounds {
        lower: i.lo,
        result,
        upper: i.hi,
    })
}

/// The engines the chains were built with, each named once, comma-separated.
pub(crate) fn engine_names(builds: &[Build]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for b in builds {
        if !names.contains(&b.engine) {
            names.push(b.engine);
        }
    }
    names.join(",")
}

/// The JSON of the chains built.
pub(crate) fn builds_json(builds: &[Build]) -> Vec<Json> {
    builds
        .iter()
        .map(|b| {
            json!({
                "constants": b.constants,
                "engine": b.engine,
                "engine_auto": b.auto.as_ref().map(AutoChoice::json),
                "states": b.states,
                "transitions": b.transitions,
                "build_seconds": b.seconds,
            })
        })
        .collect()
}

/// One line per chain built: its model constants, size, build time and engine choice.
pub(crate) fn builds_text(t: &mut String, builds: &[Build]) {
    for b in builds {
        let _ = writeln!(
            t,
            "{}states: {}, transitions: {} (built in {:.3} s){}",
            if b.constants.is_empty() {
                String::new()
            } else {
                format!("{}: ", b.constants)
            },
            b.states,
            b.transitions,
            b.seconds,
            b.auto.map_or_else(String::new, |c| format!(
                ", engine {} ({})",
                b.engine,
                c.text()
            ))
        );
    }
}

/// One point of an experiment as its visitor gets it: its index among the assignments, the
/// program with the point's constants and the property file checked again with them.
pub(crate) struct At {
    pub index: usize,
    pub prog: saturn_prism::program::Program,
    pub props: saturn_prism::PropertyFile,
}

impl Build {
    /// The engine and, with `--engine auto`, the sizes it was chosen by.
    pub(crate) fn engine_text(&self) -> String {
        match &self.auto {
            Some(c) => format!("{} ({})", self.engine, c.text()),
            None => self.engine.to_string(),
        }
    }
}

impl At {
    /// The translator of the point's property file into CSL.
    pub(crate) fn translator<'a>(&'a self, chain: &'a Chain) -> Translator<'a> {
        Translator {
            prog: &self.prog,
            props: &self.props,
            source: chain.props_source.as_ref(),
        }
    }
}

/// What [`walk`] went through: every point's constants, the chains built and the chain each
/// point was checked on, the properties selected.
pub(crate) struct Walked<T> {
    pub assignments: Vec<ConstOverrides>,
    pub builds: Vec<Build>,
    /// Per point: the chain it was checked on and what the visitor gave (`None`: skipped, a
    /// limit stopped the experiment before it).
    pub points: Vec<Option<(usize, T)>>,
    /// The property file at the first point, and the properties `--prop` selects in it.
    pub props: saturn_prism::PropertyFile,
    pub selected: Vec<usize>,
    pub model_type: &'static str,
}

/// Walk the points of `overrides` (their product, the last constant varying fastest): the
/// chain is built once per value of the model's constants (the points grouped by them,
/// whatever the order of `--const`), each point's property file is checked again with its
/// values, and `visit` gets the chain, its reward structures and the group's points, giving
/// one value per point (`selected`: the properties `--prop` selects). `first_check` sees the property file of the first point and the selected
/// properties before anything is computed (to refuse what cannot be done). A limit reached
/// while building leaves the remaining points `None` and sets `stopped`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk<T>(
    a: &CheckArgs,
    input: &Input,
    overrides: &ConstOverrides,
    engine: EngineChoice,
    start: Instant,
    limits: &saturn_symbolic::Limits,
    stopped: &mut Option<saturn_symbolic::Interrupted>,
    first_check: impl FnOnce(&saturn_prism::PropertyFile, &[usize]) -> Result<(), Failure>,
    mut visit: impl FnMut(
        &Chain,
        &[saturn_ctmc::props::RewardStructure],
        &[At],
        &[usize],
        &mut Option<saturn_symbolic::Interrupted>,
    ) -> Vec<T>,
) -> Result<Walked<T>, Failure> {
    let p = &a.prism;
    let props_path = p.props.as_deref().expect("the caller checked --props");
    let assignments = overrides.assignments().map_err(const_error)?;
    // a failure names its point when there are several
    let at_point = |f: Failure, ov: &ConstOverrides| {
        if overrides.is_concrete() {
            f
        } else {
            at_point(f, ov)
        }
    };
    let first = load_chain_at(
        input,
        &assignments[0],
        Some(props_path),
        &a.limits,
        start,
        engine,
        true,
    )
    .map_err(|f| at_point(f, &assignments[0]))?;
    let pf0 = first.props.clone().expect("a property file was given");
    let model_type = first.prog.model_type.name();
    let selected = selected_properties(p, &pf0)?;
    first_check(&pf0, &selected)?;
    let model_consts: Vec<&str> = overrides
        .names()
        .filter(|n| first.prog.constant(n).is_some())
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<Vec<String>, usize> = HashMap::new();
    for (i, ov) in assignments.iter().enumerate() {
        let g = *group_of
            .entry(values_of(ov, &model_consts))
            .or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
        groups[g].push(i);
    }
    let mut builds: Vec<Build> = Vec::new();
    let mut points: Vec<Option<(usize, T)>> = (0..assignments.len()).map(|_| None).collect();
    let mut first = Some(first);
    for idx in &groups {
        let chain = match first.take() {
            Some(c) => c,
            None if stopped.is_some() => continue,
            None => match load_chain_at(
                input,
                &assignments[idx[0]],
                Some(props_path),
                &a.limits,
                start,
                engine,
                true,
            ) {
                Ok(c) => c,
                // a limit reached while building: the points left are skipped
                Err(_) if limits.check().is_err() => {
                    *stopped = limits.check().err();
                    continue;
                }
                Err(f) => return Err(at_point(f, &assignments[idx[0]])),
            },
        };
        let c = chain.ctmc.chain();
        builds.push(Build {
            engine: chain.ctmc.name(),
            auto: chain.auto,
            constants: values_of(&assignments[idx[0]], &model_consts)
                .iter()
                .zip(&model_consts)
                .map(|(v, n)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join(","),
            constants_all: chain.constants.clone(),
            states: c.len(),
            transitions: c.transitions(),
            seconds: chain.build_seconds,
        });
        let pf = chain.props.as_ref().expect("a property file was given");
        let rewards = chain
            .translator()
            .rewards()
            .map_err(|u| Failure::error(format!("{}: {}", a.model, u.0)))?;
        let mut ats = Vec::new();
        for &i in idx {
            // the property constants of this point: the file checked again, the chain kept
            let mut prog = chain.prog.clone();
            prog.overrides = assignments[i].clone();
            let props = saturn_prism::check_properties(&pf.ast, &prog)
                .map_err(|d| at_point(prism_failure(&d, 2), &assignments[i]))?;
            ats.push(At {
                index: i,
                prog,
                props,
            });
        }
        let values = visit(&chain, &rewards, &ats, &selected, stopped);
        for (at, v) in ats.iter().zip(values) {
            points[at.index] = Some((builds.len() - 1, v));
        }
    }
    Ok(Walked {
        assignments,
        builds,
        points,
        props: pf0,
        selected,
        model_type,
    })
}

/// Run the experiment of `overrides` (at least one range). `options`, `engine`: as for one
/// run.
pub fn run(
    a: &CheckArgs,
    input: &Input,
    overrides: &ConstOverrides,
    options: Options,
    engine: EngineChoice,
    start: Instant,
) -> anyhow::Result<ExitCode> {
    let p = &a.prism;
    let ranged = ranged(overrides);
    if let Some(plot) = &p.plot {
        check_plot(plot, &ranged)?;
    }
    let limits = a.limits.limits(start);
    let mut stopped = None;
    let first_check = |pf0: &saturn_prism::PropertyFile, selected: &[usize]| match &p.plot {
        Some(plot) if selected.iter().all(|&k| pf0.properties[k].ty == Type::Bool) => {
            Err(Failure::error(format!(
                "--plot {}: nothing to draw, every property checked is a boolean (plots \
                     show numeric properties: P=?, S=?, R=?)",
                plot.display()
            )))
        }
        _ => Ok(()),
    };
    let walked = walk(
        a,
        input,
        overrides,
        engine,
        start,
        &limits,
        &mut stopped,
        first_check,
        |chain, rewards, ats, selected, stopped| {
            let mut checker = new_checker(chain, rewards, options, &limits, a.limits.progress)
                .refine_order(a.prism.refine.into());
            ats.iter()
                .map(|at| {
                    let tr = at.translator(chain);
                    check_rows(&mut checker, &tr, selected, &limits, stopped)
                })
                .collect()
        },
    )?;
    let (builds, pf0, selected, model_type) = (
        walked.builds,
        walked.props,
        walked.selected,
        walked.model_type,
    );
    let points: Vec<Point> = walked
        .assignments
        .into_iter()
        .zip(walked.points)
        .map(|(consts, v)| match v {
            Some((b, rows)) => Point {
                consts,
                build: Some(b),
                rows,
            },
            None => Point {
                consts,
                build: None,
                rows: skipped(&selected, &pf0),
            },
        })
        .collect();
    let mut failed = Vec::new();
    for pt in &points {
        failed.extend(report_failed(
            &format!("{} at {}", a.model, pt.consts),
            &pt.rows,
        ));
    }
    // the engines the chains were built with, each named once
    let engine_name = engine_names(&builds);
    if a.json {
        let props: Vec<Json> = (0..selected.len())
            .map(|j| {
                let pts: Vec<Json> = points
                    .iter()
                    .map(|pt| {
                        let size = pt.build.map(|b| (builds[b].states, builds[b].transitions));
                        let (n, t) = size.unwrap_or_default();
                        let mut o = row_json(&pt.rows[j], n, t, &a.limits);
                        if let Json::Object(m) = &mut o {
                            m.remove("index");
                            m.remove("property");
                            m.insert("consts".into(), consts_json(&pt.consts));
                            if size.is_none() {
                                m.insert("states".into(), Json::Null);
                                m.insert("transitions".into(), Json::Null);
                            }
                        }
                        o
                    })
                    .collect();
                json!({
                    "index": selected[j] + 1,
                    "property": pf0.properties[selected[j]].ast.to_string(),
                    "points": pts,
                })
            })
            .collect();
        let builds = builds_json(&builds);
        print_run_json(
            a,
            json!({
                "input": "prism",
                "type": model_type,
                "constants": overrides.to_string(),
                "ranged": ranged,
                "engine": engine_name,
                "builds": builds,
            }),
            props,
            start,
            stopped,
            &failed,
        )?;
    } else {
        let mut t = format!("model: {} ({model_type})\n", a.model);
        let _ = writeln!(
            t,
            "constants: {overrides} ({} points, {} chain(s) built, engine {engine_name})",
            points.len(),
            builds.len()
        );
        builds_text(&mut t, &builds);
        let mut header: Vec<String> = ranged.iter().map(|s| s.to_string()).collect();
        header.extend(["Result", "Lower", "Upper"].map(String::from));
        for (j, &k) in selected.iter().enumerate() {
            let _ = writeln!(t, "\n[{}] {}", k + 1, pf0.properties[k].ast);
            let rows: Vec<Vec<String>> = points
                .iter()
                .map(|pt| {
                    let mut r = values_of(&pt.consts, &ranged);
                    r.extend(cells(&pt.rows[j], &a.limits));
                    r
                })
                .collect();
            table(&mut t, &header, &rows);
        }
        out::print(&t)?;
    }
    if let Some(plot) = &p.plot {
        let x_name = ranged[0];
        let fixed = fixed_text(overrides);
        let panels: Vec<Panel> = selected
            .iter()
            .enumerate()
            .filter(|(_, &k)| pf0.properties[k].ty != Type::Bool)
            .map(|(j, &k)| Panel {
                title: format!("[{}] {}", k + 1, pf0.properties[k].ast),
                samples: points
                    .iter()
                    .map(|pt| Sample {
                        x: pt
                            .consts
                            .value(x_name)
                            .and_then(|v| v.as_f64())
                            .unwrap_or(f64::NAN),
                        y: plotted(&pt.rows[j]),
                    })
                    .collect(),
                measure: Measure::Value,
            })
            .collect();
        let note = if fixed.is_empty() {
            String::new()
        } else {
            format!("constants: {fixed}")
        };
        out::write_file(plot, &crate::plot::svg(x_name, &note, &panels))?;
    }
    Ok(exit_code(stopped, &failed))
}
