//! Formulas to check on a net: from `--ctl` text and contest formula files, resolved against the
//! net's names; and the glue from a generated state space to a CTL checker.

use saturn_logic::{parse_query, resolve, NameTable, Query, ResolvedQuery};
use saturn_model::{Model, PetriNet};
use saturn_pnml::formulas::{parse_formulas_file, read_formulas_file};
use saturn_symbolic::ctl::Witness;

use crate::report::{Diagnostic, Failure};

/// One formula to check.
pub struct Job {
    pub id: String,
    /// The formula in Saturn's text syntax.
    pub text: String,
    /// The resolved query, or why it cannot be checked.
    pub query: Result<ResolvedQuery, String>,
}

/// The name table of a net's places and transitions.
pub fn names(net: &PetriNet) -> NameTable {
    NameTable::new(
        net.places.iter().map(|p| p.id.as_str()),
        net.transitions.iter().map(|t| t.id.as_str()),
    )
}

/// Every problem found in some formulas: the diagnostics and their rendering for stderr.
pub type Problems = (Vec<Diagnostic>, String);

/// The `--ctl` formulas, `ctl-1`, `ctl-2`, ... Every problem of every formula is reported:
/// the diagnostics (positioned at the column) and their rendering for stderr.
pub fn from_ctl(
    srcs: &[String],
    net: &PetriNet,
    color: bool,
) -> Result<Vec<(Job, Query)>, Problems> {
    from_flag("--ctl", srcs, net, color)
}

/// The formulas given with `flag` (`--ctl`, `--fair`), labelled `flag #i` in diagnostics.
pub fn from_flag(
    flag: &str,
    srcs: &[String],
    net: &PetriNet,
    color: bool,
) -> Result<Vec<(Job, Query)>, Problems> {
    from_flag_with(flag, srcs, net, color, |q| q)
}

/// The `--ltl` formulas, `ltl-1`, `ltl-2`, ...: a path formula without its quantifier
/// (`G F p >= 1`) reads as `A` of it.
pub fn from_ltl(
    srcs: &[String],
    net: &PetriNet,
    color: bool,
) -> Result<Vec<(Job, Query)>, Problems> {
    use saturn_logic::{Formula, FormulaKind};
    from_flag_with("--ltl", srcs, net, color, |q| match q {
        Query::Formula(f) if !f.is_state() => {
            let span = f.span;
            Query::Formula(Formula::new(FormulaKind::All(Box::new(f)), span))
        }
        q => q,
    })
}

/// [`from_flag`], each parsed query passed through `wrap` before it is resolved.
fn from_flag_with(
    flag: &str,
    srcs: &[String],
    net: &PetriNet,
    color: bool,
    wrap: impl Fn(Query) -> Query,
) -> Result<Vec<(Job, Query)>, Problems> {
    let prefix = flag.trim_start_matches('-');
    let names = names(net);
    let mut diags = Vec::new();
    let mut rendered = String::new();
    let mut out = Vec::new();
    for (i, src) in srcs.iter().enumerate() {
        let label = format!("{flag} #{}", i + 1);
        let q =
            match parse_query(src) {
                Ok(q) => wrap(q),
                Err(e) => {
                    diags.extend(e.errors.iter().map(|s| {
                        Diagnostic::of_option(&label, src, s.span.start, s.message.clone())
                    }));
                    rendered.push_str(&e.with_name(&label).render(color));
                    continue;
                }
            };
        match resolve(&q, &names) {
            Ok(r) => out.push((
                Job {
                    id: format!("{prefix}-{}", i + 1),
                    text: q.to_string(),
                    query: Ok(r),
                },
                q,
            )),
            Err(errs) => {
                diags.extend(
                    errs.0
                        .iter()
                        .map(|e| Diagnostic::of_option(&label, src, e.span().start, e.to_string())),
                );
                rendered.push_str(&errs.render(&label, src, color));
            }
        }
    }
    if diags.is_empty() {
        Ok(out)
    } else {
        Err((diags, rendered))
    }
}

/// Every formula of a contest formula file, all resolved (any problem is an error).
pub fn from_file(path: &std::path::Path, net: &PetriNet) -> Result<Vec<Job>, Failure> {
    let fs = read_formulas_file(path, net)
        .map_err(|e| Failure::input(vec![Diagnostic::of_formulas(&e)]))?;
    Ok(fs
        .into_iter()
        .map(|f| Job {
            id: f.id,
            text: f.query.to_string(),
            query: Ok(f.resolved),
        })
        .collect())
}

/// Every formula of a contest formula file, each resolved on its own: a formula that names an
/// unknown place is an error of that formula only (contest mode answers the others). A file
/// that does not parse is an error of the whole file.
pub fn from_file_each(path: &std::path::Path, net: &PetriNet) -> Result<Vec<Job>, String> {
    let parsed = parse_formulas_file(path).map_err(|e| e.to_string())?;
    let names = names(net);
    Ok(parsed
        .into_iter()
        .map(|p| Job {
            text: p.query.to_string(),
            query: resolve(&p.query, &names).map_err(|e| format!("formula '{}': {e}", p.id)),
            id: p.id,
        })
        .collect())
}

// the glue from a generated state space to a checker is the engine's (the contest's formula
// examinations use it there)
pub use saturn_engine::formulas::symbolic::{answer, checker_within, Answer};

/// The marking of `state` (local states by level) as `(place, tokens)` for the places that
/// hold tokens, in level order from the top.
fn marked(model: &Model, state: &[u32]) -> Vec<(String, u32)> {
    (0..state.len())
        .rev()
        .filter(|&k| state[k] > 0)
        .map(|k| (model.levels[k].name.clone(), state[k]))
        .collect()
}

/// The name of a witness step's transition (`None`: a deadlock's self-loop).
fn step_name(model: &Model, e: Option<usize>) -> String {
    e.map_or_else(
        || "(deadlock loop)".into(),
        |e| model.events[e].name.clone(),
    )
}

/// A witness as text: the initial marking, then one line per step with the transition fired
/// and the marking reached (places with tokens), and where a lasso loops back.
pub fn witness_text(model: &Model, w: &Witness) -> String {
    let show = |s: &[u32]| {
        let m = marked(model, s);
        if m.is_empty() {
            "(empty)".to_string()
        } else {
            m.iter()
                .map(|(p, n)| format!("{p}={n}"))
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let kind = if w.loop_start.is_some() {
        "lasso"
    } else {
        "path"
    };
    let mut t = format!(
        "  witness ({kind}, {} steps, {})
",
        w.len(),
        if w.shortest {
            "shortest"
        } else {
            "not shortest"
        }
    );
    t.push_str(&format!(
        "    0: initial: {}
",
        show(&w.states[0])
    ));
    for (i, e) in w.events.iter().enumerate() {
        t.push_str(&format!(
            "    {}: {} -> {}
",
            i + 1,
            step_name(model, *e),
            show(&w.states[i + 1])
        ));
    }
    if let Some(l) = w.loop_start {
        t.push_str(&format!(
            "    loops back to state {l}
"
        ));
    }
    t
}

/// A witness as JSON: `kind` (`path` or `lasso`), `loop_start` (the state index the lasso
/// returns to, or null), `method` (`bfs`: the walk of Figure 5.1; `layers`: distance layers),
/// `shortest` (a shortest witness of its formula), `steps`: the initial state (transition null)
/// and one object per step, each with the `transition` fired and the `marking` reached (places
/// with tokens).
pub fn witness_json(model: &Model, w: &Witness) -> serde_json::Value {
    let marking = |s: &[u32]| {
        serde_json::Value::Object(
            marked(model, s)
                .into_iter()
                .map(|(p, n)| (p, serde_json::json!(n)))
                .collect(),
        )
    };
    let mut steps =
        vec![serde_json::json!({ "transition": null, "marking": marking(&w.states[0]) })];
    for (i, e) in w.events.iter().enumerate() {
        steps.push(serde_json::json!({
            "transition": step_name(model, *e),
            "marking": marking(&w.states[i + 1]),
        }));
    }
    serde_json::json!({
        "kind": if w.loop_start.is_some() { "lasso" } else { "path" },
        "loop_start": w.loop_start,
        "method": w.method.name(),
        "shortest": w.shortest,
        "steps": steps,
    })
}
