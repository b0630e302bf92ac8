//! `check --witness --witness-depth N`: a witness with the witnesses of the nested formulas it
//! relies on ([`Explained`]), as indented text and as nested JSON.

use saturn_logic::print::name_to_string;
use saturn_logic::{LinExpr, StateFormula};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::ctl::{Explained, Shows};
use serde_json::json;

use crate::queries::{witness_json, witness_text};

/// `f` in Saturn's CTL text syntax over the net's names (fully parenthesised).
pub fn formula_text(net: &PetriNet, f: &StateFormula) -> String {
    use StateFormula as F;
    let t = |g: &StateFormula| formula_text(net, g);
    let join = |v: &[StateFormula], op: &str| match v {
        [one] => t(one),
        _ => {
            let parts: Vec<String> = v.iter().map(t).collect();
            format!("({})", parts.join(op))
        }
    };
    let unary = |op: &str, g: &StateFormula| format!("{op} {}", t(g));
    match f {
        F::Const(b) => b.to_string(),
        F::Deadlock => "deadlock".into(),
        F::Atom(a) => format!("({} {} {})", sum(net, &a.lhs), a.op.symbol(), a.bound),
        F::Enabled(ts) => {
            let names: Vec<String> = ts
                .iter()
                .map(|&i| name_to_string(&net.transitions[i].id))
                .collect();
            format!("enabled({})", names.join(", "))
        }
        F::Not(g) => {
            // every text that starts with `(` is wrapped in its own parentheses
            let inner = t(g);
            if inner.starts_with('(') {
                format!("!{inner}")
            } else {
                format!("!({inner})")
            }
        }
        F::And(v) => join(v, " & "),
        F::Or(v) => join(v, " | "),
        F::Implies(a, b) => format!("({} -> {})", t(a), t(b)),
        F::Iff(a, b) => format!("({} <-> {})", t(a), t(b)),
        F::EX(g) => unary("EX", g),
        F::AX(g) => unary("AX", g),
        F::EF(g) => unary("EF", g),
        F::AF(g) => unary("AF", g),
        F::EG(g) => unary("EG", g),
        F::AG(g) => unary("AG", g),
        F::EU(a, b) => format!("E[{} U {}]", t(a), t(b)),
        F::AU(a, b) => format!("A[{} U {}]", t(a), t(b)),
        F::A(_) | F::E(_) => "(a path formula)".into(),
    }
}

/// A linear sum of places.
fn sum(net: &PetriNet, e: &LinExpr) -> String {
    let mut s = String::new();
    for (i, &(p, c)) in e.terms.iter().enumerate() {
        let name = name_to_string(&net.places[p].id);
        let (sign, c) = if c < 0 { ("-", -c) } else { ("+", c) };
        if i > 0 {
            s.push_str(&format!(" {sign} "));
        } else if sign == "-" {
            s.push('-');
        }
        if c != 1 {
            s.push_str(&format!("{c}*"));
        }
        s.push_str(&name);
    }
    if e.terms.is_empty() {
        s.push('0');
    }
    if e.constant != 0 {
        s.push_str(&format!(" + {}", e.constant));
    }
    s
}

/// What the witness shows, in words (nothing for the outermost operator alone).
fn shows_text(net: &PetriNet, s: &Shows) -> Option<String> {
    match s {
        Shows::Operator => None,
        Shows::UntilGlobally { from, r, s } => Some(format!(
            "shows F(r & G s): r = {} at state {from}, s = {} from there on",
            formula_text(net, r),
            formula_text(net, s)
        )),
        Shows::Recurrent { at, phi } => Some(format!(
            "shows G F phi: phi = {} on the cycle at state {at}",
            formula_text(net, phi)
        )),
    }
}

/// The text of `e`: the witness, then each nested explanation indented below it.
pub fn explained_text(model: &Model, net: &PetriNet, e: &Explained, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut t = String::new();
    for line in witness_text(model, &e.witness).lines() {
        t.push_str(&format!("{pad}{line}\n"));
    }
    if let Some(s) = shows_text(net, &e.shows) {
        t.push_str(&format!("{pad}    {s}\n"));
    }
    for (step, f, sub) in &e.nested {
        t.push_str(&format!(
            "{pad}    at state {step}: {}\n",
            formula_text(net, f)
        ));
        t.push_str(&explained_text(model, net, sub, indent + 4));
    }
    t
}

/// The JSON of `e`: the witness object with `shows` (and `shows_state`), `fair` (under
/// fairness, `fair` true, every lasso's cycle meets every fairness set) and `nested`.
pub fn explained_json(
    model: &Model,
    net: &PetriNet,
    e: &Explained,
    fair: bool,
) -> serde_json::Value {
    let mut v = witness_json(model, &e.witness);
    v["fair"] = json!(fair && e.witness.loop_start.is_some());
    v["shows"] = json!(e.shows.name());
    v["shows_state"] = match &e.shows {
        Shows::Operator => json!(null),
        Shows::UntilGlobally { from, .. } => json!(from),
        Shows::Recurrent { at, .. } => json!(at),
    };
    v["nested"] = e
        .nested
        .iter()
        .map(|(step, f, sub)| {
            json!({
                "state": step,
                "formula": formula_text(net, f),
                "witness": explained_json(model, net, sub, fair),
            })
        })
        .collect();
    v
}
