//! Shannon expansion of general events (thesis Definition 5's events, with guards, updates and
//! rates over several variables) into decision diagrams, never enumerating the global state
//! space.
//!
//! An event's next-state relation is expanded over its *support* variables only, top level
//! first, on the interleaved unprimed / primed levels of an identity-reduced 2L-level relation
//! forest: at an unprimed level the variable's value is substituted into the residual guard,
//! rate and update expressions (with constant folding, [`Expr::subst`]); at a primed level the
//! variable's new value is its update's residual when that is already a constant, otherwise
//! each candidate value becomes a constraint on the variables below. Every call is memoised on
//! (position, residual), so a guard such as `x1+...+x20 <= N` costs a number of nodes
//! proportional to the distinct partial sums, not to the product of the domains. Variables
//! outside the support are skipped pairs (identity).
//!
//! The unprimed values expanded can be restricted to the local states known so far at each
//! level (saturation builds relations on the fly this way, as local states appear); the
//! relation then relates exactly the states whose support values are all known.
//!
//! [`predicate_set`] expands a state predicate over all `K` levels of a quasi-reduced set
//! forest the same way (the initial states, and per event the states where firing it is an
//! error: [`error_condition`]).

use std::collections::HashMap;

use saturn_dd::{primed_level, unprimed_level, Edge, Forest, NodeId};
use saturn_model::expr::{BinOp, Expr, Real, Value};
use saturn_model::GeneralModel;

/// The residual of an event during the expansion: the condition still to satisfy and the
/// update right-hand sides of the variables not yet decided.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Residual {
    cond: Expr,
    /// `(variable, right-hand side)`, only for variables at or below the current position.
    ups: Vec<(usize, Expr)>,
}

/// The Shannon expansion of one event into the relation forest.
struct RelBuilder<'a> {
    model: &'a GeneralModel,
    /// Per level, the local states to expand at unprimed levels (`None`: the whole range).
    known: Option<&'a [Vec<u32>]>,
    /// Support variables, highest level first.
    vars: Vec<usize>,
    level_of: &'a [usize],
    memo: HashMap<(usize, Residual), NodeId>,
}

/// The value `cond` pins variable `v` to, when one of its top-level conjuncts is `v = c`
/// (PRISM's `s=3 & ...`): the other values make it false, and need no substitution (a model
/// of 5,000 such commands over a variable of 5,000 values took 25 million of them).
fn pinned(cond: &Expr, v: usize) -> Option<i64> {
    match cond {
        Expr::Bin(BinOp::Eq, a, b) => match (&**a, &**b) {
            (Expr::Var(x), Expr::Int(c)) | (Expr::Int(c), Expr::Var(x)) if *x == v => Some(*c),
            _ => None,
        },
        Expr::Bin(BinOp::And, a, b) => pinned(a, v).or_else(|| pinned(b, v)),
        _ => None,
    }
}

fn subst_all(r: &Residual, v: usize, x: i64) -> Option<Residual> {
    let cond = r.cond.subst(v, x).ok()?;
    if cond == Expr::Bool(false) {
        return None;
    }
    let mut ups = Vec::with_capacity(r.ups.len());
    for (w, e) in &r.ups {
        ups.push((*w, e.subst(v, x).ok()?));
    }
    Some(Residual { cond, ups })
}

impl RelBuilder<'_> {
    /// The relation node for the support variables from position `pos` down.
    fn rec(&mut self, rels: &mut Forest, pos: usize, r: Residual) -> NodeId {
        if r.cond == Expr::Bool(false) {
            return NodeId::EMPTY;
        }
        if pos == self.vars.len() {
            // everything is decided: the condition is a literal
            return if r.cond == Expr::Bool(true) {
                NodeId::ONE
            } else {
                NodeId::EMPTY
            };
        }
        let key = (pos, r);
        if let Some(&n) = self.memo.get(&key) {
            return n;
        }
        let (_, r) = &key;
        let v = self.vars[pos];
        let var = &self.model.vars[v];
        let k = self.level_of[v];
        let written = r.ups.iter().position(|(w, _)| *w == v);
        let mut unprimed: Vec<Edge> = Vec::new();
        let all: Vec<u32>;
        let values: &[u32] = match self.known {
            Some(kn) => &kn[k],
            None => {
                all = (0..var.size() as u32).collect();
                &all
            }
        };
        let pin = pinned(&r.cond, v);
        for &a in values {
            let x = var.low + a as i64;
            if pin.is_some_and(|c| c != x) {
                continue;
            }
            let Some(ra) = subst_all(r, v, x) else {
                continue;
            };
            let mut primed: Vec<Edge> = Vec::new();
            match written {
                None => {
                    let c = self.rec(rels, pos + 1, ra);
                    primed.push(Edge::new(a, c));
                }
                Some(i) => {
                    let mut ra = ra;
                    let (_, rhs) = ra.ups.remove(i);
                    match rhs.literal() {
                        Some(val) => {
                            let y = match val {
                                Value::Int(y) => Some(y),
                                Value::Bool(b) => Some(b as i64),
                                Value::Real(_) => None,
                            };
                            if let Some(y) = y.filter(|y| *y >= var.low && *y <= var.high) {
                                let c = self.rec(rels, pos + 1, ra);
                                primed.push(Edge::new((y - var.low) as u32, c));
                            }
                        }
                        None => {
                            // the new value depends on lower variables: one branch per value
                            for b in 0..var.size() {
                                let y = var.low + b as i64;
                                let eq = Expr::bin(BinOp::Eq, rhs.clone(), Expr::Int(y));
                                let cond = Expr::and(eq, ra.cond.clone());
                                let rb = Residual {
                                    cond,
                                    ups: ra.ups.clone(),
                                };
                                let c = self.rec(rels, pos + 1, rb);
                                primed.push(Edge::new(b as u32, c));
                            }
                        }
                    }
                }
            }
            let p = rels.make_node(primed_level(k), &primed);
            unprimed.push(Edge::new(a, p));
        }
        let n = rels.make_node(unprimed_level(k), &unprimed);
        self.memo.insert(key, n);
        n
    }
}

/// The set of states (quasi-reduced, all `K` levels) satisfying a predicate, by Shannon
/// expansion over the levels top-down with a memo on (level, residual).
pub(super) fn predicate_set(
    sets: &mut Forest,
    model: &GeneralModel,
    order: &[usize],
    pred: &Expr,
    error_is_true: bool,
) -> Result<NodeId, String> {
    fn rec(
        sets: &mut Forest,
        model: &GeneralModel,
        order: &[usize],
        k: usize,
        e: &Expr,
        memo: &mut HashMap<(usize, Expr), NodeId>,
        error_is_true: bool,
    ) -> Result<NodeId, String> {
        if *e == Expr::Bool(false) {
            return Ok(NodeId::EMPTY);
        }
        if k == 0 {
            return match e {
                Expr::Bool(true) => Ok(NodeId::ONE),
                _ => Err("the predicate is not a boolean".into()),
            };
        }
        if let Some(&n) = memo.get(&(k, e.clone())) {
            return Ok(n);
        }
        let v = order[k - 1];
        let var = &model.vars[v];
        let mut edges = Vec::new();
        for a in 0..var.size() {
            let ea = match e.subst(v, var.low + a as i64) {
                Ok(ea) => ea,
                Err(_) if error_is_true => Expr::Bool(true),
                Err(x) => return Err(x.to_string()),
            };
            let c = rec(sets, model, order, k - 1, &ea, memo, error_is_true)?;
            if !c.is_empty() {
                edges.push(Edge::new(a as u32, c));
            }
        }
        let n = sets.make_node(k, &edges);
        memo.insert((k, e.clone()), n);
        Ok(n)
    }
    let mut memo = HashMap::new();
    let pred = match pred.subst_with(&|_| None) {
        Ok(p) => p,
        Err(_) if error_is_true => Expr::Bool(true),
        Err(x) => return Err(x.to_string()),
    };
    rec(
        sets,
        model,
        order,
        order.len(),
        &pred,
        &mut memo,
        error_is_true,
    )
}

fn or(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Or, a, b)
}

/// The condition under which firing an event is an error (given its guard holds).
pub(super) fn error_condition(model: &GeneralModel, e: usize) -> Expr {
    let ev = &model.events[e];
    let big = Expr::Real(Real::new(f64::MAX));
    let mut bad_rate = Expr::Bool(false);
    let mut nonzero = Expr::Bool(true);
    for r in &ev.rates {
        let b = or(
            or(
                Expr::bin(BinOp::Lt, r.clone(), Expr::Int(0)),
                Expr::bin(BinOp::Ne, r.clone(), r.clone()),
            ),
            Expr::bin(BinOp::Gt, r.clone(), big.clone()),
        );
        bad_rate = or(bad_rate, b);
        nonzero = Expr::and(nonzero, Expr::bin(BinOp::Ne, r.clone(), Expr::Int(0)));
    }
    let mut bad_range = Expr::Bool(false);
    for (v, x) in &ev.assigns {
        let var = &model.vars[*v];
        bad_range = or(
            bad_range,
            or(
                Expr::bin(BinOp::Lt, x.clone(), Expr::Int(var.low)),
                Expr::bin(BinOp::Gt, x.clone(), Expr::Int(var.high)),
            ),
        );
    }
    Expr::and(
        ev.guard.clone(),
        or(bad_rate, Expr::and(nonzero, bad_range)),
    )
}

/// The relation of event `e` of `model` (its guard, nonzero rate and updates) over the levels
/// `level_of` gives, expanded over the local states `known` per level (`None`: every value of
/// each variable's range). An out-of-range update relates nothing (such firings are reported
/// from [`error_condition`]'s set, not encoded).
pub(crate) fn event_relation(
    rels: &mut Forest,
    model: &GeneralModel,
    e: usize,
    level_of: &[usize],
    known: Option<&[Vec<u32>]>,
) -> NodeId {
    let ev = &model.events[e];
    let mut vars = ev.support();
    vars.sort_by_key(|&v| std::cmp::Reverse(level_of[v]));
    let mut cond = ev.guard.clone();
    for r in &ev.rates {
        cond = Expr::and(cond, Expr::bin(BinOp::Ne, r.clone(), Expr::Int(0)));
    }
    let mut b = RelBuilder {
        model,
        known,
        vars,
        level_of,
        memo: HashMap::new(),
    };
    let res = Residual {
        cond,
        ups: ev.assigns.clone(),
    };
    // fold the constant parts first (an event with an empty support is decided here)
    subst_all(&res, usize::MAX, 0).map_or(NodeId::EMPTY, |res| b.rec(rels, 0, res))
}
