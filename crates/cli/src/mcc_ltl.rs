//! The contest's LTL examinations (`LTLCardinality`, `LTLFireability`) and `saturn check
//! --ltl`: each formula `A φ` by the explicit on-the-fly product of the net with the automaton
//! of `¬φ` ([`saturn_ltl::check_net`]), deadlocks extended by stuttering (the contest's
//! convention). One line `FORMULA <id> TRUE|FALSE TECHNIQUES ...` per formula, `CANNOT_COMPUTE`
//! for one that cannot be read or decided within its share of the time.

use std::path::Path;
use std::time::Instant;

use saturn_logic::{PathFormula, ResolvedQuery};
use saturn_ltl::{Counterexample, Deadlocks};
use saturn_model::PetriNet;
use saturn_symbolic::Limits;

use crate::ltl_run::{decide_all, Generation, LtlLevelArg, LtlMethodArg, PorArg, Run};
use crate::queries;

/// The memory the explicit product may take without `--max-memory` (bytes).
const DEFAULT_BYTES: usize = 4 << 30;

/// The path formula `φ` of a formula `A φ` ([`saturn_ltl::path_of`]); `None` for a bound
/// or a formula that is not LTL.
pub fn path_of(q: &ResolvedQuery) -> Option<PathFormula> {
    match q {
        ResolvedQuery::Formula(f) => saturn_ltl::path_of(f),
        ResolvedQuery::Bound(_) => None,
    }
}

/// The memory budget of the explicit product: `--max-memory` MiB, else [`DEFAULT_BYTES`].
pub fn budget(max_memory_mib: Option<u64>) -> usize {
    max_memory_mib.map_or(DEFAULT_BYTES, |m| (m as usize) << 20)
}

/// The contest lines of the LTL examination `exam` of the model in `dir`, every formula by the
/// portfolio of [`crate::ltl_run`] as `run` says (the contest's reading: paths that reach a
/// deadlock extended by stuttering, [`contest_run`]).
pub fn lines(exam: &str, dir: &Path, run: &Run) -> Result<Vec<String>, String> {
    let jobs = queries::from_file_each(&dir.join(format!("{exam}.xml")), run.net)?;
    let phis: Vec<Option<PathFormula>> = jobs
        .iter()
        .map(|j| j.query.as_ref().ok().and_then(path_of))
        .collect();
    let verdicts = decide_all(run, &phis);
    let mut out = Vec::with_capacity(jobs.len());
    for (job, verdict) in jobs.iter().zip(verdicts) {
        out.push(
            match job.query.as_ref().map_err(Clone::clone).and(verdict) {
                Ok(v) => format!(
                    "FORMULA {} {} {}",
                    job.id,
                    if v.holds { "TRUE" } else { "FALSE" },
                    v.techniques()
                ),
                Err(e) => {
                    eprintln!("{}: {e}", job.id);
                    format!("FORMULA {} CANNOT_COMPUTE", job.id)
                }
            },
        );
    }
    Ok(out)
}

/// The settings of `saturn mcc`'s LTL examinations: the contest's stuttering reading, no
/// counterexamples.
pub fn contest_run(
    net: &PetriNet,
    limits: Limits,
    max_bytes: usize,
    generation: Generation,
    method: LtlMethodArg,
    level: LtlLevelArg,
    por: PorArg,
) -> Run<'_> {
    Run {
        net,
        deadlocks: Deadlocks::Stutter,
        method,
        level,
        generation,
        limits,
        max_bytes,
        por,
        witness: false,
    }
}

/// `saturn check MODEL --ltl ...`: one line `ltl-<i> TRUE|FALSE <formula>` per formula (or a
/// JSON object), `CANNOT_COMPUTE` (exit 3) for one no engine decided within the limits.
pub fn check(
    a: &crate::check::CheckArgs,
    net: &PetriNet,
    start: Instant,
) -> anyhow::Result<std::process::ExitCode> {
    use crate::report::{ok_object, Failure, Status};
    use serde_json::json;
    use std::io::IsTerminal;
    if !a.ctl.is_empty() || a.formulas.is_some() || !a.fair.is_empty() || a.dot.is_some() {
        return Err(Failure::error(
            "--ltl cannot be combined with --ctl, --formulas, --fair or --dot",
        )
        .into());
    }
    let color = std::io::stderr().is_terminal();
    let jobs = match queries::from_ltl(&a.ltl, net, color) {
        Ok(v) => v,
        Err((d, r)) => return Err(Failure::with(Status::Error, d, 2).rendered(r).into()),
    };
    let dl = a.ltl_deadlocks.deadlocks();
    let mut phis = Vec::with_capacity(jobs.len());
    for (i, (job, _)) in jobs.iter().enumerate() {
        let q = job.query.as_ref().map_err(|e| Failure::error(e.clone()))?;
        let phi = path_of(q).ok_or_else(|| {
            Failure::error(format!(
                "--ltl #{}: `{}` is not an LTL formula: write a path formula (`G F p >= 1`) or \
                 `A` of one; `E` and nested path quantifiers are CTL* (use --ctl for CTL)",
                i + 1,
                a.ltl[i]
            ))
        })?;
        phis.push(Some(phi));
    }
    let contest_dir = std::path::Path::new(&a.model).join("model.pnml").is_file();
    let order = a.generation.order.unwrap_or(if contest_dir {
        crate::statespace::MCC_ORDER
    } else {
        crate::statespace::DEFAULT_ORDER
    });
    let run = Run {
        net,
        deadlocks: dl,
        method: a.ltl_method,
        level: a.ltl_level,
        generation: Generation {
            order,
            method: a.generation.method.method(),
            relations: a.generation.relations_for(order),
            progress: a.limits.progress,
        },
        limits: a.limits.limits(start),
        max_bytes: budget(a.limits.max_memory),
        por: a.por,
        witness: a.witness,
    };
    let t0 = Instant::now();
    let verdicts = decide_all(&run, &phis);
    let secs = t0.elapsed().as_secs_f64();
    let rows: Vec<_> = jobs.iter().map(|(j, _)| j).zip(verdicts).collect();
    let undecided = rows.iter().filter(|(_, v)| v.is_err()).count();
    let dl_name = match dl {
        Deadlocks::Stutter => "stutter",
        Deadlocks::Maximal => "maximal",
    };
    if a.json {
        let formulas: Vec<_> = rows
            .iter()
            .map(|(job, v)| {
                let d = v.as_ref().ok();
                json!({
                    "id": job.id,
                    "formula": job.text,
                    "result": d.map(|v| v.holds),
                    "method": d.map(|v| v.engine.name()),
                    "automaton_states": d.and_then(|v| v.automaton_states),
                    "partial_order": d.map(|v| v.partial_order),
                    "product_states": d.and_then(|v| v.product_states.clone()),
                    "markings": d.map(|v| v.markings.clone()),
                    "reason": v.as_ref().err(),
                    "witness": d
                        .and_then(|v| v.counterexample.as_ref())
                        .filter(|_| a.witness)
                        .map(|c| counterexample_json(net, c, d.is_some_and(|v| v.shortest))),
                })
            })
            .collect();
        let mut o = ok_object(
            "check",
            &a.model,
            json!({ "net": net.name, "deadlocks": dl_name, "seconds": secs, "formulas": formulas }),
        );
        if undecided > 0 {
            o["status"] = json!("interrupted");
            o["diagnostics"] = json!([crate::report::Diagnostic::plain(format!(
                "{undecided} formula(s) not decided within the limits"
            ))]);
        }
        crate::out::println(o)?;
    } else {
        let mut t = String::new();
        for (job, v) in &rows {
            t.push_str(&match v {
                Ok(v) => {
                    let mut sizes = format!("{} markings", v.markings);
                    if let Some(p) = &v.product_states {
                        sizes.push_str(&format!(", {p} product states"));
                    }
                    if let Some(n) = v.automaton_states {
                        sizes.push_str(&format!(", automaton of {n} states"));
                    }
                    if v.partial_order {
                        sizes.push_str(", partial-order reduced");
                    }
                    format!(
                        "{} {} ({sizes}; {}) {}\n",
                        job.id,
                        if v.holds { "TRUE" } else { "FALSE" },
                        v.engine.name(),
                        job.text
                    )
                }
                Err(_) => format!("{} CANNOT_COMPUTE {}\n", job.id, job.text),
            });
            if let Ok(d) = v.as_ref() {
                if let (Some(c), true) = (&d.counterexample, a.witness) {
                    t.push_str(&counterexample_text(net, c, d.shortest));
                }
            }
        }
        crate::out::print(&t)?;
    }
    if undecided > 0 {
        for (job, v) in &rows {
            if let Err(e) = v {
                eprintln!("error: {}: {}: {e}", a.model, job.id);
            }
        }
        return Ok(std::process::ExitCode::from(3));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The transition fired from `a` to `b` on a counterexample (`None`: a deadlock's stutter).
fn fired(net: &PetriNet, a: &[u64], b: &[u64]) -> Option<usize> {
    (0..net.transitions.len()).find(|&t| net.enabled(t, a) && net.fire(t, a) == b)
}

/// The steps of a counterexample: `(transition fired, marking reached)`, the first with no
/// transition (the initial marking), then the step that closes a lasso.
fn counterexample_steps<'c>(
    net: &PetriNet,
    c: &'c Counterexample,
) -> Vec<(Option<String>, &'c [u64])> {
    let m = &c.markings;
    let name = |a: &[u64], b: &[u64]| {
        Some(fired(net, a, b).map_or_else(
            || "(deadlock loop)".to_string(),
            |t| net.transitions[t].id.clone(),
        ))
    };
    let mut steps = vec![(None, m[0].as_slice())];
    for w in m.windows(2) {
        steps.push((name(&w[0], &w[1]), w[1].as_slice()));
    }
    if let (Some(l), Some(last)) = (c.loop_start, m.last()) {
        steps.push((name(last, &m[l]), m[l].as_slice()));
    }
    steps
}

/// A marking as `place=tokens` for the places with tokens.
fn marking_text(net: &PetriNet, m: &[u64]) -> String {
    let s: Vec<String> = m
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(p, n)| format!("{}={n}", net.places[p].id))
        .collect();
    if s.is_empty() {
        "(empty)".into()
    } else {
        s.join(" ")
    }
}

/// A counterexample as text, in the form of `check --witness` for CTL: the initial marking,
/// one line per step (the transition and the marking reached), and where a lasso loops back
/// (or that the path ends in a deadlock); `shortest` says whether it is a shortest one.
fn counterexample_text(net: &PetriNet, c: &Counterexample, shortest: bool) -> String {
    let steps = counterexample_steps(net, c);
    let kind = if c.loop_start.is_some() {
        "lasso"
    } else {
        "path to a deadlock"
    };
    let mut t = format!(
        "  counterexample ({kind}, {} steps, {})\n",
        steps.len() - 1,
        if shortest { "shortest" } else { "not shortest" }
    );
    for (i, (tr, m)) in steps.iter().enumerate() {
        t.push_str(&format!(
            "    {i}: {} -> {}\n",
            tr.as_deref().unwrap_or("initial"),
            marking_text(net, m)
        ));
    }
    match c.loop_start {
        Some(l) => t.push_str(&format!("    loops back to state {l}\n")),
        None => t.push_str("    ends in a deadlock (a maximal finite path)\n"),
    }
    t
}

/// A counterexample as JSON: `kind` (`lasso` or `path`), `loop_start`, `shortest` (a
/// counterexample of least length, from the symbolic product), `steps` as for CTL witnesses
/// (`transition`, `marking`).
fn counterexample_json(net: &PetriNet, c: &Counterexample, shortest: bool) -> serde_json::Value {
    let steps: Vec<_> = counterexample_steps(net, c)
        .into_iter()
        .map(|(tr, m)| {
            let marking: serde_json::Map<String, serde_json::Value> = m
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(p, &n)| (net.places[p].id.clone(), serde_json::json!(n)))
                .collect();
            serde_json::json!({ "transition": tr, "marking": marking })
        })
        .collect();
    serde_json::json!({
        "kind": if c.loop_start.is_some() { "lasso" } else { "path" },
        "loop_start": c.loop_start,
        "shortest": shortest,
        "steps": steps,
    })
}
