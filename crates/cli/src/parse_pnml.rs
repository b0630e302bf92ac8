//! `saturn parse` for this front-end: a PNML net (or an MCC directory holding `model.pnml`), an
//! optional contest formula file and `--ctl` formulas; prints a summary (or one JSON object).

use std::io::IsTerminal;
use std::path::PathBuf;

use saturn_logic::{parse_query, resolve, NameTable, Query, ResolvedQuery, StateFormula};
use saturn_model::PetriNet;
use saturn_pnml::formulas::read_formulas_file;

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

fn model_path(args: &ParseArgs) -> PathBuf {
    if args.model.is_dir() {
        args.model.join("model.pnml")
    } else {
        args.model.clone()
    }
}

/// Check the model and its properties; print the summary. `Ok(false)` when diagnostics were printed.
pub fn run(args: &ParseArgs) -> anyhow::Result<bool> {
    let color = std::io::stderr().is_terminal();
    let path = model_path(args);
    let net = match saturn_pnml::reader::read_pnml_file(&path) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(false);
        }
    };
    if args.props.is_some() || !args.consts.is_empty() {
        eprintln!("error: --props and --const apply to PRISM models; use --formulas or --ctl with a PNML net");
        return Ok(false);
    }
    let mut ok = true;
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
                eprintln!("error: {e}");
                ok = false;
            }
        }
    }
    let names = NameTable::new(
        net.places.iter().map(|p| p.id.as_str()),
        net.transitions.iter().map(|t| t.id.as_str()),
    );
    for (i, src) in args.ctl.iter().enumerate() {
        let label = format!("--ctl #{}", i + 1);
        let q = match parse_query(src) {
            Ok(q) => q,
            Err(e) => {
                eprint!("{}", e.with_name(&label).render(color));
                ok = false;
                continue;
            }
        };
        match resolve(&q, &names) {
            Ok(r) => entries.push(Entry {
                id: format!("ctl-{}", i + 1),
                description: None,
                origin: "ctl",
                kind: kind(&q, &r),
                text: q.to_string(),
            }),
            Err(errs) => {
                eprint!("{}", errs.render(&label, src, color));
                ok = false;
            }
        }
    }
    if !ok {
        return Ok(false);
    }
    if args.json {
        println!("{}", json(&net, &entries));
    } else {
        print!("{}", text(&net, &entries));
    }
    Ok(true)
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
        "net": net.name,
        "places": net.places.len(),
        "transitions": net.transitions.len(),
        "arcs": arcs,
        "inhibitor_arcs": inhibitors,
        "formulas": formulas,
    })
}
