//! The rate matrix `R` of a general model as an EV*MxD (thesis section 6.2.1): one matrix per
//! event by Shannon expansion over the reachable states, level by level from the event's local
//! guard, rate and update functions, then their sum (rates of events between the same pair of
//! states add up) without the diagonal.
//!
//! The expansion of an event walks the reachable-set MDD from the top: at variable `k` the row
//! takes each local state `a` the set node has (so rows are exactly the reachable states), the
//! residual guard, rate factors and updates are specialised to `a` (constant folding,
//! [`Expr::subst`]), and the column is `a` for a variable the event does not write, the
//! update's value when it is already a constant, or each candidate value under the constraint
//! that the update equals it. At the bottom the guard is decided and the rate factors are
//! constants; their product is the entry. Successors of reachable states are reachable, so
//! the columns are reachable too. Calls are memoised on (level, set node, residual).
//!
//! Expressions are interned ([`Exprs`]): a residual is a handful of ids, and each
//! substitution `(expression, variable, value)` is computed once per event, not once per call
//! (the same residual meets many set nodes).

use rustc_hash::FxHashMap;
use saturn_dd::ev::{Ev, EvStarForest, Overflow};
use saturn_dd::{primed_level, unprimed_level, Edge, Forest, NodeId};
use saturn_model::expr::{BinOp, EvalError, Expr, Value};
use saturn_model::GeneralModel;

use super::BuildError;

/// What remains of an event below a level: the condition to satisfy, the rate factors and the
/// updates of variables not yet decided (interned expressions, see [`Exprs`]).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Residual {
    cond: u32,
    rates: Vec<u32>,
    ups: Vec<(usize, u32)>,
    /// A rate factor could not be evaluated (an error if the event turns out enabled).
    poisoned: bool,
}

/// The interned expressions of one event's expansion and the memo of their substitutions.
struct Exprs {
    all: Vec<Expr>,
    ids: FxHashMap<Expr, u32>,
    subst: FxHashMap<(u32, usize, i64), Result<u32, EvalError>>,
}

/// The memo is cleared when it reaches this many entries (a guard on memory: an event whose
/// updates depend on lower variables branches on every value, `rhs = y`; FMS n=6's `fp12`
/// event made 265,752 entries, 350 MB when residuals were expression trees).
const MEMO_LIMIT: usize = 1 << 18;

/// The ids of `false` and `true` in every [`Exprs`].
const FALSE: u32 = 0;
const TRUE: u32 = 1;

impl Exprs {
    fn new() -> Self {
        let mut x = Exprs {
            all: Vec::new(),
            ids: FxHashMap::default(),
            subst: FxHashMap::default(),
        };
        x.id(Expr::Bool(false));
        x.id(Expr::Bool(true));
        x
    }

    fn id(&mut self, e: Expr) -> u32 {
        if let Some(&i) = self.ids.get(&e) {
            return i;
        }
        let i = self.all.len() as u32;
        self.all.push(e.clone());
        self.ids.insert(e, i);
        i
    }

    fn get(&self, i: u32) -> &Expr {
        &self.all[i as usize]
    }

    /// Expression `i` with variable `v` set to `x`, constants folded ([`Expr::subst`]).
    fn subst(&mut self, i: u32, v: usize, x: i64) -> Result<u32, EvalError> {
        if let Some(r) = self.subst.get(&(i, v, x)) {
            return r.clone();
        }
        let r = self.all[i as usize].subst(v, x).map(|e| self.id(e));
        self.subst.insert((i, v, x), r.clone());
        r
    }
}

/// The expansion of one event into the matrix forest.
pub(super) struct RateBuilder<'a> {
    pub(super) model: &'a GeneralModel,
    pub(super) sets: &'a Forest,
    /// `order[k-1]` is the variable at level `k`.
    pub(super) order: &'a [usize],
    pub(super) event: usize,
    exprs: Exprs,
    memo: FxHashMap<(usize, NodeId, Residual), Ev<f64>>,
}

fn int_of(v: Value) -> Option<i64> {
    match v {
        Value::Int(y) => Some(y),
        Value::Bool(b) => Some(b as i64),
        Value::Real(_) => None,
    }
}

impl<'a> RateBuilder<'a> {
    pub(super) fn new(
        model: &'a GeneralModel,
        sets: &'a Forest,
        order: &'a [usize],
        event: usize,
    ) -> Self {
        RateBuilder {
            model,
            sets,
            order,
            event,
            exprs: Exprs::new(),
            memo: FxHashMap::default(),
        }
    }

    fn error(&self, what: String) -> BuildError {
        let ev = &self.model.events[self.event];
        BuildError::Event {
            location: ev.location.clone(),
            event: ev.name.clone(),
            what,
        }
    }

    /// The residual with variable `v` set to `x`; `None` when the condition became false.
    fn subst(&mut self, r: &Residual, v: usize, x: i64) -> Result<Option<Residual>, BuildError> {
        let cond = self
            .exprs
            .subst(r.cond, v, x)
            .map_err(|e| self.error(format!("the guard: {e}")))?;
        if cond == FALSE {
            return Ok(None);
        }
        let mut poisoned = r.poisoned;
        let mut rates = Vec::with_capacity(r.rates.len());
        if !poisoned {
            for &e in &r.rates {
                match self.exprs.subst(e, v, x) {
                    Ok(e) => rates.push(e),
                    Err(_) => {
                        poisoned = true;
                        rates.clear();
                        break;
                    }
                }
            }
        }
        let mut ups = Vec::with_capacity(r.ups.len());
        for &(w, e) in &r.ups {
            let e = self
                .exprs
                .subst(e, v, x)
                .map_err(|e| self.error(format!("an update: {e}")))?;
            ups.push((w, e));
        }
        Ok(Some(Residual {
            cond,
            rates,
            ups,
            poisoned,
        }))
    }

    /// The matrix of the whole event over the reachable set `reached`.
    pub(super) fn event_matrix(
        &mut self,
        m: &mut EvStarForest,
        reached: NodeId,
    ) -> Result<Ev<f64>, BuildError> {
        let ev = &self.model.events[self.event];
        let r = Residual {
            cond: self.exprs.id(ev.guard.clone()),
            rates: ev.rates.iter().map(|e| self.exprs.id(e.clone())).collect(),
            ups: (ev.assigns.iter())
                .map(|(v, e)| (*v, self.exprs.id(e.clone())))
                .collect(),
            poisoned: false,
        };
        // fold the constant parts first
        match self.subst(&r, usize::MAX, 0)? {
            None => Ok(Ev::default_fn()),
            Some(r) => self.rec(m, self.order.len(), reached, r),
        }
    }

    /// The entry (rate) of a fully decided residual.
    fn leaf(&self, r: &Residual) -> Result<Ev<f64>, BuildError> {
        match r.cond {
            TRUE => {}
            FALSE => return Ok(Ev::default_fn()),
            _ => return Err(self.error("the guard is not a boolean".into())),
        }
        if r.poisoned {
            return Err(self.error("a rate cannot be evaluated".into()));
        }
        let mut rate = 1.0;
        for &e in &r.rates {
            let x = (self.exprs.get(e).literal())
                .and_then(Value::as_f64)
                .ok_or_else(|| self.error("a rate is not a number".into()))?;
            if !(x.is_finite() && x >= 0.0) {
                return Err(self.error(format!("rate {x} is negative or not finite")));
            }
            rate *= x;
        }
        if rate == 0.0 {
            return Ok(Ev::default_fn());
        }
        if !rate.is_finite() {
            return Err(self.error("the product of the rates is not finite".into()));
        }
        Ok(Ev {
            val: rate,
            node: NodeId::ONE,
        })
    }

    /// The matrix of residual `r` over the rows of set node `s` at level `k` (`2k`, `2k-1` in
    /// the matrix forest).
    fn rec(
        &mut self,
        m: &mut EvStarForest,
        k: usize,
        s: NodeId,
        r: Residual,
    ) -> Result<Ev<f64>, BuildError> {
        if r.cond == FALSE || s.is_empty() {
            return Ok(Ev::default_fn());
        }
        if k == 0 {
            return self.leaf(&r);
        }
        let key = (k, s, r);
        if let Some(&hit) = self.memo.get(&key) {
            return Ok(hit);
        }
        let (_, _, r) = &key;
        let v = self.order[k - 1];
        let var = &self.model.vars[v];
        let written = r.ups.iter().position(|(w, _)| *w == v);
        let mut rows: Vec<Edge<f64>> = Vec::new();
        for e in self.sets.edges(s).to_vec() {
            let a = e.idx;
            let x = var.low + a as i64;
            let Some(mut ra) = self.subst(r, v, x)? else {
                continue;
            };
            let mut cols: Vec<Edge<f64>> = Vec::new();
            match written {
                None => {
                    let c = self.rec(m, k - 1, e.child, ra)?;
                    cols.push(Edge::valued(a, c.node, c.val));
                }
                Some(i) => {
                    let (_, rhs) = ra.ups.remove(i);
                    match self.exprs.get(rhs).literal() {
                        Some(val) => {
                            let y = int_of(val).ok_or_else(|| {
                                self.error("an assigned value is not an int".into())
                            })?;
                            // out of range: an error only where the event fires, which
                            // the generation has already ruled out for reachable states
                            if y < var.low || y > var.high {
                                continue;
                            }
                            let c = self.rec(m, k - 1, e.child, ra)?;
                            cols.push(Edge::valued((y - var.low) as u32, c.node, c.val));
                        }
                        None => {
                            // the new value depends on lower variables: one branch per value
                            for b in 0..var.size() {
                                let y = var.low + b as i64;
                                let eq =
                                    Expr::bin(BinOp::Eq, self.exprs.get(rhs).clone(), Expr::Int(y));
                                let cond = Expr::and(eq, self.exprs.get(ra.cond).clone());
                                let rb = Residual {
                                    cond: self.exprs.id(cond),
                                    ..ra.clone()
                                };
                                let c = self.rec(m, k - 1, e.child, rb)?;
                                cols.push(Edge::valued(b as u32, c.node, c.val));
                            }
                        }
                    }
                }
            }
            let p = m.normalize(primed_level(k), &mut cols).map_err(overflow)?;
            if !p.is_default() {
                rows.push(Edge::valued(a, p.node, p.val));
            }
        }
        let n = m
            .normalize(unprimed_level(k), &mut rows)
            .map_err(overflow)?;
        if self.memo.len() >= MEMO_LIMIT {
            self.memo.clear();
        }
        self.memo.insert(key, n);
        Ok(n)
    }
}

pub(super) fn overflow(_: Overflow) -> BuildError {
    BuildError::Overflow
}
