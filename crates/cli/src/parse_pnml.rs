//! `saturn parse` for this front-end: a PNML net (or an MCC directory holding `model.pnml`), an
//! optional contest formula file and `--ctl` formulas; prints a summary (or one JSON object).

use std::io::IsTerminal;
use std::process::ExitCode;

use saturn_logic::{Query, ResolvedQuery, StateFormula};
use saturn_model::PetriNet;
use saturn_pnml::formulas::read_formulas_file;

use crate::load::Input;
use crate::out;
use crate::report::{ok_object, Diagnostic, Failure};
use crate::ParseArgs;

/// One formula of the summary.
struct Entry {
    id: String,
    description: Option<String>,
    /// `file` or `ctl`.
    origin: &'static str,
    text: String,
    kind: &'static str,
}

/// What kind of query this is, for the summary.
fn kind(q: &Query, r: &ResolvedQuery) -> &'static str {
    match r {
        ResolvedQuery::Bound(_) => "bound",
        ResolvedQuery::Formula(s) => {
            let f = q.as_formula();
            if matches!(s, StateFormula::EF(x) | StateFormula::AG(x) if x.is_ctl() && !has_temporal(x))
            {
                "reachability"
            } else if s.is_ctl() {
                "ctl"
            } else if f.is_some_and(|f| f.is_ltl()) {
                "ltl"
            } else {
                "ctl*"
            }
        }
    }
}

/// Does a CTL state formula contain a temporal operator?
fn has_temporal(s: &StateFormula) -> bool {
    use StateFormula::*;
    match s {
        Const(_) | Deadlock | Atom(_) | Enabled(_) => false,
        Not(a) => has_temporal(a),
        And(v) | Or(v) => v.iter().any(has_temporal),
        Implies(a, b) | Iff(a, b) => has_temporal(a) || has_temporal(b),
        _ => true,
    }
}

/// Check the net, its formula file and `--ctl` formulas; print the summary. Every problem found
/// is reported (a [`Failure`] with exit 1) rather than the first only.
pub fn run(args: &ParseArgs, input: Input) -> anyhow::Result<ExitCode> {
    let color = std::io::stderr().is_terminal();
    let name = input.name.clone();
    let net = input
        .read_net()
        .map_err(|e| Failure::input(vec![Diagnostic::of_pnml(&e)]))?;
    let mut diags = Vec::new();
    let mut rendered = String::new();
    let mut entries = Vec::new();
    if let Some(f) = &args.formulas {
        match read_formulas_file(f, &net) {
            Ok(fs) => entries.extend(fs.into_iter().map(|f| Entry {
                kind: kind(&f.query, &f.resolved),
                text: f.query.to_string(),
                id: f.id,
                description: f.description,
                origin: "file",
            })),
            Err(e) => {
                let d = Diagnostic::of_formulas(&e);
                rendered.push_str(&format!("error: {d}\n"));
                diags.push(d);
            }
        }
    }
    match crate::queries::from_ctl(&args.ctl, &net, color) {
        Ok(jobs) => {
            for (job, q) in jobs {
                if let Ok(r) = &job.query {
                    entries.push(Entry {
                        kind: kind(&q, r),
                        id: job.id,
                        description: None,
                        origin: "ctl",
                        text: job.text,
                    });
                }
            }
        }
        Err((d, r)) => {
            diags.extend(d);
            rendered.push_str(&r);
        }
    }
    if !diags.is_empty() {
        return Err(Failure::input(diags).rendered(rendered).into());
    }
    if args.json {
        out::println(ok_object("parse", &name, json(&net, &entries)))?;
    } else {
        out::print(&text(&net, &entries))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn arc_counts(net: &PetriNet) -> (usize, usize) {
    let arcs = net
        .transitions
        .iter()
        .map(|t| t.inputs.len() + t.outputs.len() + t.inhibitors.len())
        .sum();
    let inhibitors = net.transitions.iter().map(|t| t.inhibitors.len()).sum();
    (arcs, inhibitors)
}

fn text(net: &PetriNet, entries: &[Entry]) -> String {
    let (arcs, inhibitors) = arc_counts(net);
    let mut s = format!(
        "net: {}\nplaces: {}\ntransitions: {}\narcs: {} ({} inhibitor)\n",
        net.name,
        net.places.len(),
        net.transitions.len(),
        arcs,
        inhibitors
    );
    if !entries.is_empty() {
        s.push_str(&format!("formulas: {}\n", entries.len()));
        for e in entries {
            s.push_str(&format!("  {} [{}]: {}\n", e.id, e.kind, e.text));
        }
    }
    s
}

fn json(net: &PetriNet, entries: &[Entry]) -> serde_json::Value {
    let (arcs, inhibitors) = arc_counts(net);
    let formulas: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "id": e.id,
                "description": e.description,
                "origin": e.origin,
                "kind": e.kind,
                "formula": e.text,
            })
        })
        .collect();
    serde_json::json!({
        "input": "pnml",
        "net": net.name,
        "places": net.places.len(),
        "transitions": net.transitions.len(),
        "arcs": arcs,
        "inhibitor_arcs": inhibitors,
        "formulas": formulas,
    })
}
