//! Encoding a [`GeneralModel`] (general events: guards, updates and rates over several
//! variables, e.g. a lowered PRISM program) into decision diagrams, without ever enumerating
//! the global state space.
//!
//! Each event's next-state relation is built by a Shannon expansion over its *support*
//! variables only, top level first, on the interleaved unprimed / primed levels of an
//! identity-reduced 2L-level relation forest: at an unprimed level the variable's value is
//! substituted into the residual guard, rate and update expressions (with constant folding,
//! [`Expr::subst`]); at a primed level the variable's new value is its update's residual when
//! that is already a constant, otherwise each candidate value becomes a constraint on the
//! variables below. Every call is memoised on (position, residual), so a guard such as
//! `x1+...+x20 <= N` costs a number of nodes proportional to the distinct partial sums, not to
//! the product of the domains. Variables outside the support are skipped pairs (identity).
//!
//! Domains are fixed: variable `v` at level `k` has `high - low + 1` local states, local index
//! `value - low`. The initial-state set and, per event, the set of states where firing is an
//! error (a negative or non-finite rate, an update leaving its variable's range, an evaluation
//! error) are built by the same expansion over all `K` levels of a quasi-reduced set forest.
//!
//! [`explore_chaining`] generates the reachable states by chained breadth-first images,
//! [`count_pairs`] counts the distinct (state, successor) pairs of a relation from a set
//! (PRISM's transition count) with exact integers.

use std::collections::HashMap;

use num_bigint::BigUint;
use num_traits::Zero;
use saturn_dd::{image, primed_level, unprimed_level, Edge, Forest, NodeId, Reduction};
use saturn_model::expr::{BinOp, Expr, Real};
use saturn_model::{GeneralModel, Init};

/// Why a model cannot be encoded or explored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("the variable order is not a permutation of the {0} variables")]
    BadOrder(usize),
    #[error("variable '{0}' has more values than supported")]
    DomainTooLarge(String),
    #[error("the initial-state predicate: {0}")]
    Init(String),
    #[error("{location}: {what} (event {event}, e.g. in reachable state {state})")]
    Event {
        event: String,
        location: String,
        what: String,
        state: String,
    },
    #[error("interrupted: {0}")]
    Interrupted(String),
}

/// The encoded model: forests, per-event relations, per-event error sets and the initial set.
pub struct Encoded {
    /// Quasi-reduced set forest of `K` levels.
    pub sets: Forest,
    /// Identity-reduced relation forest of `2K` levels.
    pub rels: Forest,
    /// `order[k-1]` is the variable at level `k`.
    pub order: Vec<usize>,
    /// `level_of[v]` is the level of variable `v`.
    pub level_of: Vec<usize>,
    /// One relation per event (same index as the model's events).
    pub events: Vec<NodeId>,
    /// Per event, the states (of `sets`) where firing it is an error.
    pub errors: Vec<NodeId>,
    pub init: NodeId,
}

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
    /// Support variables, highest level first.
    vars: Vec<usize>,
    level_of: &'a [usize],
    memo: HashMap<(usize, Residual), NodeId>,
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
        for a in 0..var.size() {
            let x = var.low + a as i64;
            let Some(ra) = subst_all(r, v, x) else {
                continue;
            };
            let mut primed: Vec<Edge> = Vec::new();
            match written {
                None => {
                    let c = self.rec(rels, pos + 1, ra);
                    primed.push(Edge::new(a as u32, c));
                }
                Some(i) => {
                    let mut ra = ra;
                    let (_, rhs) = ra.ups.remove(i);
                    match rhs.literal() {
                        Some(val) => {
                            let y = match val {
                                saturn_model::expr::Value::Int(y) => Some(y),
                                saturn_model::expr::Value::Bool(b) => Some(b as i64),
                                saturn_model::expr::Value::Real(_) => None,
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
            unprimed.push(Edge::new(a as u32, p));
        }
        let n = rels.make_node(unprimed_level(k), &unprimed);
        self.memo.insert(key, n);
        n
    }
}

/// The set of states (quasi-reduced, all `K` levels) satisfying a predicate, by Shannon
/// expansion over the levels top-down with a memo on (level, residual).
fn predicate_set(
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
fn error_condition(model: &GeneralModel, e: usize) -> Expr {
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

/// Encode `model` with the variable order `order` (`order[k-1]` = variable at level `k`).
pub fn encode(model: &GeneralModel, order: &[usize]) -> Result<Encoded, EncodeError> {
    let n = model.vars.len();
    let mut level_of = vec![usize::MAX; n];
    if order.len() != n {
        return Err(EncodeError::BadOrder(n));
    }
    for (k, &v) in order.iter().enumerate() {
        if v >= n || level_of[v] != usize::MAX {
            return Err(EncodeError::BadOrder(n));
        }
        level_of[v] = k + 1;
    }
    let mut sets = Forest::new(n, Reduction::Quasi);
    let mut rels = Forest::new(2 * n, Reduction::Identity);
    for (k, &v) in order.iter().enumerate() {
        let size = u32::try_from(model.vars[v].size())
            .map_err(|_| EncodeError::DomainTooLarge(model.vars[v].name.clone()))?;
        sets.set_domain(k + 1, size);
        rels.set_domain(unprimed_level(k + 1), size);
    }
    let mut events = Vec::with_capacity(model.events.len());
    let mut errors = Vec::with_capacity(model.events.len());
    for (i, ev) in model.events.iter().enumerate() {
        let mut vars = ev.support();
        vars.sort_by_key(|&v| std::cmp::Reverse(level_of[v]));
        let mut cond = ev.guard.clone();
        for r in &ev.rates {
            cond = Expr::and(cond, Expr::bin(BinOp::Ne, r.clone(), Expr::Int(0)));
        }
        let mut b = RelBuilder {
            model,
            vars,
            level_of: &level_of,
            memo: HashMap::new(),
        };
        let res = Residual {
            cond,
            ups: ev.assigns.clone(),
        };
        // fold the constant parts first (an event with an empty support is decided here)
        let folded = subst_all(&res, usize::MAX, 0);
        events.push(folded.map_or(NodeId::EMPTY, |res| b.rec(&mut rels, 0, res)));
        let err = predicate_set(&mut sets, model, order, &error_condition(model, i), true)
            .map_err(|what| EncodeError::Event {
                event: ev.name.clone(),
                location: ev.location.clone(),
                what,
                state: "(any)".into(),
            })?;
        errors.push(err);
    }
    let init = match &model.init {
        Init::State(s) => {
            let local: Vec<u32> = order
                .iter()
                .map(|&v| (s[v] - model.vars[v].low) as u32)
                .collect();
            sets.singleton(&local)
        }
        Init::Pred(p) => {
            predicate_set(&mut sets, model, order, p, false).map_err(EncodeError::Init)?
        }
    };
    Ok(Encoded {
        sets,
        rels,
        order: order.to_vec(),
        level_of,
        events,
        errors,
        init,
    })
}

impl Encoded {
    /// The values of a state given as local indices per level.
    pub fn values(&self, model: &GeneralModel, local: &[u32]) -> Vec<i64> {
        let mut s = vec![0; self.order.len()];
        for (k, &v) in self.order.iter().enumerate() {
            s[v] = model.vars[v].low + local[k] as i64;
        }
        s
    }

    /// The local indices per level of a state given by values.
    pub fn local(&self, model: &GeneralModel, values: &[i64]) -> Vec<u32> {
        self.order
            .iter()
            .map(|&v| (values[v] - model.vars[v].low) as u32)
            .collect()
    }

    /// The first event that is an error in some state of `reached`, with such a state.
    pub fn check_errors(
        &mut self,
        model: &GeneralModel,
        reached: NodeId,
    ) -> Result<(), EncodeError> {
        for (i, &err) in self.errors.clone().iter().enumerate() {
            let bad = self.sets.intersect(reached, err);
            if let Some(st) = self.sets.pick(bad) {
                let vals = self.values(model, &st);
                let ev = &model.events[i];
                let what = match model.step(i, &vals) {
                    Err(e) => e.to_string(),
                    Ok(_) => "an evaluation error (overflow or division by zero)".into(),
                };
                return Err(EncodeError::Event {
                    event: ev.name.clone(),
                    location: ev.location.clone(),
                    what,
                    state: model.show_state(&vals),
                });
            }
        }
        Ok(())
    }

    /// The union of all event relations.
    pub fn union_relation(&mut self) -> NodeId {
        let evs = self.events.clone();
        self.rels.union_all(&evs)
    }

    /// The nodes to keep across a collection of the set forest.
    fn keep(&self) -> Vec<NodeId> {
        let mut v = self.errors.clone();
        v.push(self.init);
        v
    }
}

/// The reachable states from `enc.init`, by chained images (each event applied in turn to the
/// growing set until nothing new appears). `stop` is polled between images.
pub fn explore_chaining(
    enc: &mut Encoded,
    stop: &mut dyn FnMut() -> Option<String>,
) -> Result<NodeId, EncodeError> {
    let mut s = enc.init;
    // events with higher tops first tends to give fewer iterations
    let mut idx: Vec<usize> = (0..enc.events.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(enc.rels.relation_top(enc.events[i])));
    loop {
        let old = s;
        for &i in &idx {
            let t = image(&mut enc.sets, &enc.rels, s, enc.events[i]);
            s = enc.sets.union(s, t);
        }
        if s == old {
            return Ok(s);
        }
        if let Some(why) = stop() {
            return Err(EncodeError::Interrupted(why));
        }
        let mut keep = enc.keep();
        keep.push(s);
        enc.sets.maybe_gc(&keep);
    }
}

/// The number of distinct pairs `(x, y)` with `x` in the set `s` (of `sets`, quasi-reduced)
/// and `(x, y)` in the relation `r` (of `rels`), exactly.
pub fn count_pairs(sets: &Forest, rels: &Forest, s: NodeId, r: NodeId) -> BigUint {
    fn rec(
        sets: &Forest,
        rels: &Forest,
        k: usize,
        s: NodeId,
        r: NodeId,
        memo: &mut HashMap<(NodeId, NodeId), BigUint>,
    ) -> BigUint {
        if s.is_empty() || r.is_empty() {
            return BigUint::zero();
        }
        if k == 0 {
            return BigUint::from(1u32);
        }
        if let Some(c) = memo.get(&(s, r)) {
            return c.clone();
        }
        let mut total = BigUint::zero();
        if rels.relation_top(r) < k {
            for e in sets.edges(s) {
                total += rec(sets, rels, k - 1, e.child, r, memo);
            }
        } else {
            for e in sets.edges(s) {
                let p = rels.child_at(r, unprimed_level(k), e.idx);
                if p.is_empty() {
                    continue;
                }
                for q in rels.edges(p) {
                    total += rec(sets, rels, k - 1, e.child, q.child, memo);
                }
            }
        }
        memo.insert((s, r), total.clone());
        total
    }
    let mut memo = HashMap::new();
    rec(sets, rels, sets.num_levels(), s, r, &mut memo)
}

/// The state space of a general model as PRISM reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneralStateSpace {
    /// The reachable states (a node of the encoding's set forest).
    pub reached: NodeId,
    pub states: BigUint,
    /// Distinct (state, successor) pairs plus one self-loop per deadlock state (PRISM's count).
    pub transitions: BigUint,
    /// Reachable states without successors (PRISM adds a self-loop to each).
    pub deadlocks: BigUint,
}

/// Encode `model` with `order`, generate its reachable states, check that no reachable state
/// fires an event in error, and count PRISM's transitions.
pub fn generate_general(
    model: &GeneralModel,
    order: &[usize],
    stop: &mut dyn FnMut() -> Option<String>,
) -> Result<(Encoded, GeneralStateSpace), EncodeError> {
    let mut enc = encode(model, order)?;
    let reached = explore_chaining(&mut enc, stop)?;
    enc.check_errors(model, reached)?;
    let all = enc.union_relation();
    let pairs = count_pairs(&enc.sets, &enc.rels, reached, all);
    let live = saturn_dd::preimage(&mut enc.sets, &enc.rels, reached, all);
    let dead = enc.sets.minus(reached, live);
    let deadlocks = enc.sets.cardinality(dead);
    let states = enc.sets.cardinality(reached);
    Ok((
        enc,
        GeneralStateSpace {
            reached,
            states,
            transitions: pairs + &deadlocks,
            deadlocks,
        },
    ))
}
