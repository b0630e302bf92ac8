//! The contest's LTL examinations (`LTLCardinality`, `LTLFireability`) and `saturn check
//! --ltl`: each formula `A φ` by the explicit on-the-fly product of the net with the automaton
//! of `¬φ` ([`saturn_ltl::check_net`]), deadlocks extended by stuttering (the contest's
//! convention). One line `FORMULA <id> TRUE|FALSE TECHNIQUES ...` per formula, `CANNOT_COMPUTE`
//! for one that cannot be read or decided within its share of the time.

use std::path::Path;
use std::time::{Duration, Instant};

use saturn_logic::{PathFormula, ResolvedQuery};
use saturn_ltl::{Deadlocks, Limits, LtlError, Verdict};
use saturn_model::PetriNet;

use crate::queries;

/// The techniques named on an LTL answer line.
pub const TECHNIQUES: &str = "TECHNIQUES EXPLICIT LTL_AUTOMATA";

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

/// Decide `q` on `net` within `deadline` and `max_bytes`.
pub fn decide(
    net: &PetriNet,
    q: &ResolvedQuery,
    deadline: Option<Instant>,
    max_bytes: usize,
) -> Result<Verdict, String> {
    let phi = path_of(q).ok_or("not an LTL formula (A over a path formula)")?;
    let limits = Limits {
        deadline,
        max_bytes: Some(max_bytes),
    };
    saturn_ltl::check_net(net, &phi, Deadlocks::Stutter, limits).map_err(|e| match e {
        LtlError::Stopped(s) => format!("{s}"),
        e => e.to_string(),
    })
}

/// The memory budget of the explicit product: `--max-memory` MiB, else [`DEFAULT_BYTES`].
pub fn budget(max_memory_mib: Option<u64>) -> usize {
    max_memory_mib.map_or(DEFAULT_BYTES, |m| (m as usize) << 20)
}

/// The contest lines of the LTL examination `exam` of the model in `dir`. Two rounds: each
/// formula first gets an equal share of half the time left (most are decided in a fraction of
/// a second, often by a short counterexample), then those not decided share what is left.
pub fn lines(
    exam: &str,
    dir: &Path,
    net: &PetriNet,
    deadline: Option<Instant>,
    max_bytes: usize,
) -> Result<Vec<String>, String> {
    let jobs = queries::from_file_each(&dir.join(format!("{exam}.xml")), net)?;
    let mut verdicts: Vec<Result<Verdict, String>> =
        vec![Err("not checked".to_string()); jobs.len()];
    for round in 0..2 {
        let todo: Vec<usize> = (0..jobs.len())
            .filter(|&n| verdicts[n].is_err() && jobs[n].query.is_ok())
            .collect();
        for (k, &n) in todo.iter().enumerate() {
            let share = deadline.map(|d| {
                let now = Instant::now();
                let parts = (todo.len() - k) as u32 * if round == 0 { 2 } else { 1 };
                now + d.saturating_duration_since(now) / parts
            });
            if let Ok(q) = &jobs[n].query {
                verdicts[n] = decide(net, q, share, max_bytes);
            }
        }
    }
    let mut out = Vec::with_capacity(jobs.len());
    for (job, verdict) in jobs.iter().zip(verdicts) {
        out.push(
            match job.query.as_ref().map_err(Clone::clone).and(verdict) {
                Ok(v) => format!(
                    "FORMULA {} {} {TECHNIQUES}",
                    job.id,
                    if v.holds { "TRUE" } else { "FALSE" }
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

/// The deadline of a run that started at `start` with `timeout` seconds.
pub fn deadline(start: Instant, timeout: Option<u64>) -> Option<Instant> {
    timeout.map(|s| start + Duration::from_secs(s))
}

/// `saturn check MODEL --ltl ...`: one line `ltl-<i> TRUE|FALSE <formula>` per formula (or a
/// JSON object), `CANNOT_COMPUTE` (exit 3) for one stopped by a limit.
pub fn check(
    a: &crate::check::CheckArgs,
    net: &PetriNet,
    start: Instant,
) -> anyhow::Result<std::process::ExitCode> {
    use crate::report::{ok_object, Failure, Status};
    use serde_json::json;
    use std::io::IsTerminal;
    if !a.ctl.is_empty() || a.formulas.is_some() || a.witness || !a.fair.is_empty() {
        return Err(Failure::error(
            "--ltl cannot be combined with --ctl, --formulas, --fair or --witness",
        )
        .into());
    }
    let color = std::io::stderr().is_terminal();
    let jobs = match queries::from_ltl(&a.ltl, net, color) {
        Ok(v) => v,
        Err((d, r)) => return Err(Failure::with(Status::Error, d, 2).rendered(r).into()),
    };
    let dl = a.ltl_deadlocks.deadlocks();
    let deadline = deadline(start, a.limits.timeout);
    let max_bytes = budget(a.limits.max_memory);
    let mut rows = Vec::new();
    let mut stopped = None;
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
        let t0 = Instant::now();
        let limits = Limits {
            deadline,
            max_bytes: Some(max_bytes),
        };
        let v = if stopped.is_some() {
            None
        } else {
            match saturn_ltl::check_net(net, &phi, dl, limits) {
                Ok(v) => Some(v),
                Err(LtlError::Stopped(s)) => {
                    stopped = Some(s);
                    None
                }
                Err(e) => {
                    return Err(Failure::error(format!("{}: {}: {e}", a.model, job.id)).into())
                }
            }
        };
        rows.push((job, v, t0.elapsed().as_secs_f64()));
    }
    let dl_name = match dl {
        Deadlocks::Stutter => "stutter",
        Deadlocks::Maximal => "maximal",
    };
    if a.json {
        let formulas: Vec<_> = rows
            .iter()
            .map(|(job, v, secs)| {
                json!({
                    "id": job.id,
                    "formula": job.text,
                    "result": v.as_ref().map(|v| v.holds),
                    "automaton_states": v.as_ref().map(|v| v.automaton_states),
                    "product_states": v.as_ref().map(|v| v.product_states),
                    "markings": v.as_ref().map(|v| v.markings),
                    "seconds": secs,
                })
            })
            .collect();
        let mut o = ok_object(
            "check",
            &a.model,
            json!({ "net": net.name, "deadlocks": dl_name, "formulas": formulas }),
        );
        if let Some(s) = stopped {
            o["status"] = json!("interrupted");
            o["diagnostics"] = json!([crate::report::Diagnostic::plain(s.to_string())]);
        }
        crate::out::println(o)?;
    } else {
        let mut t = String::new();
        for (job, v, _) in &rows {
            t.push_str(&match v {
                Some(v) => format!(
                    "{} {} ({} markings, {} product states, automaton of {} states) {}\n",
                    job.id,
                    if v.holds { "TRUE" } else { "FALSE" },
                    v.markings,
                    v.product_states,
                    v.automaton_states,
                    job.text
                ),
                None => format!("{} CANNOT_COMPUTE {}\n", job.id, job.text),
            });
        }
        crate::out::print(&t)?;
    }
    match stopped {
        Some(s) => {
            eprintln!("error: {}: {s}; formulas after it not checked", a.model);
            Ok(std::process::ExitCode::from(3))
        }
        None => Ok(std::process::ExitCode::SUCCESS),
    }
}
