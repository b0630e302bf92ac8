//! General events: guards, updates and rates that read and write several variables (what a
//! PRISM command lowers to), over integer variables with any range `[low..high]`.
//!
//! A [`GeneralModel`] is independent of any variable order: expressions name variables by their
//! index in [`GeneralModel::vars`]; an order (level -> variable) is chosen afterwards, from the
//! events' supports ([`GeneralModel::supports`], see [`crate::order`]). A variable's local state
//! index is `value - low`.
//!
//! Semantics of one event in a state `s` (PRISM's): it is enabled when its guard holds and the
//! product of its rate factors is nonzero; a negative or non-finite factor, an evaluation error
//! or an assignment whose value leaves the variable's range is an error (reported with the
//! event's source location). The successor assigns every listed variable simultaneously (the
//! right-hand sides are evaluated in `s`).

use std::collections::BTreeSet;

use crate::expr::{EvalError, Expr, Value};

/// A bounded integer (or boolean, as 0/1) variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub low: i64,
    pub high: i64,
    pub is_bool: bool,
}

impl Var {
    /// Number of values (`high - low + 1`).
    pub fn size(&self) -> u64 {
        (self.high - self.low) as u64 + 1
    }
}

/// One general event (a PRISM command's update, or a synchronised combination of several).
#[derive(Clone, Debug, PartialEq)]
pub struct GenEvent {
    /// Display name (the action, or the module and command).
    pub name: String,
    /// Source location for error messages (`file:line:col`).
    pub location: String,
    pub guard: Expr,
    /// The rate (or probability) is the product of these factors.
    pub rates: Vec<Expr>,
    /// `(variable, new value)`, each variable at most once.
    pub assigns: Vec<(usize, Expr)>,
}

/// The initial states.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// One initial state (a value per variable).
    State(Vec<i64>),
    /// Every state in range satisfying the predicate (`init ... endinit`).
    Pred(Expr),
}

/// A model with general events.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralModel {
    pub vars: Vec<Var>,
    pub events: Vec<GenEvent>,
    pub init: Init,
}

/// An error met while firing an event in a state.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum StepError {
    #[error("{location}: {what} in state {state}")]
    Eval {
        location: String,
        what: String,
        state: String,
    },
    #[error("{location}: value {value} of variable '{var}' is out of range [{low}..{high}] (update from state {state})")]
    OutOfRange {
        location: String,
        var: String,
        value: i64,
        low: i64,
        high: i64,
        state: String,
    },
    #[error("{location}: rate {rate} is negative or not finite in state {state}")]
    BadRate {
        location: String,
        rate: f64,
        state: String,
    },
}

impl GenEvent {
    /// The variables the event reads or writes, sorted.
    pub fn support(&self) -> Vec<usize> {
        let mut s = BTreeSet::new();
        self.guard.support_into(&mut s);
        for r in &self.rates {
            r.support_into(&mut s);
        }
        for (v, e) in &self.assigns {
            s.insert(*v);
            e.support_into(&mut s);
        }
        s.into_iter().collect()
    }
}

impl GeneralModel {
    /// The supports of the events (the hyperedges the variable orders work on).
    pub fn supports(&self) -> Vec<Vec<usize>> {
        self.events.iter().map(GenEvent::support).collect()
    }

    /// `name=value` list of a state, for messages.
    pub fn show_state(&self, s: &[i64]) -> String {
        let parts: Vec<String> = self
            .vars
            .iter()
            .zip(s)
            .map(|(v, x)| {
                if v.is_bool {
                    format!("{}={}", v.name, *x != 0)
                } else {
                    format!("{}={x}", v.name)
                }
            })
            .collect();
        format!("({})", parts.join(", "))
    }

    /// The rate of event `e` in state `s`: `Ok(None)` when disabled (guard false or rate
    /// zero). The updates are not evaluated (see [`GeneralModel::step`]).
    pub fn rate(&self, e: usize, s: &[i64]) -> Result<Option<f64>, StepError> {
        let ev = &self.events[e];
        let err = |what: EvalError| StepError::Eval {
            location: ev.location.clone(),
            what: what.to_string(),
            state: self.show_state(s),
        };
        match ev.guard.eval(s).map_err(err)? {
            Value::Bool(true) => {}
            Value::Bool(false) => return Ok(None),
            _ => return Err(err(EvalError::Type("guard is not a boolean"))),
        }
        let mut rate = 1.0;
        for r in &ev.rates {
            let x = r
                .eval(s)
                .map_err(err)?
                .as_f64()
                .ok_or_else(|| err(EvalError::Type("rate is not a number")))?;
            if !(x.is_finite() && x >= 0.0) {
                return Err(StepError::BadRate {
                    location: ev.location.clone(),
                    rate: x,
                    state: self.show_state(s),
                });
            }
            rate *= x;
        }
        Ok((rate != 0.0).then_some(rate))
    }

    /// Fire event `e` in state `s`: `Ok(None)` when disabled (guard false or rate zero),
    /// `Ok(Some((successor, rate)))` otherwise.
    pub fn step(&self, e: usize, s: &[i64]) -> Result<Option<(Vec<i64>, f64)>, StepError> {
        let ev = &self.events[e];
        let err = |what: EvalError| StepError::Eval {
            location: ev.location.clone(),
            what: what.to_string(),
            state: self.show_state(s),
        };
        let Some(rate) = self.rate(e, s)? else {
            return Ok(None);
        };
        let mut t = s.to_vec();
        for (v, x) in &ev.assigns {
            let var = &self.vars[*v];
            let val = match x.eval(s).map_err(err)? {
                Value::Int(i) => i,
                Value::Bool(b) => b as i64,
                Value::Real(_) => return Err(err(EvalError::Type("assigned value is not an int"))),
            };
            if val < var.low || val > var.high {
                return Err(StepError::OutOfRange {
                    location: ev.location.clone(),
                    var: var.name.clone(),
                    value: val,
                    low: var.low,
                    high: var.high,
                    state: self.show_state(s),
                });
            }
            t[*v] = val;
        }
        Ok(Some((t, rate)))
    }

    /// Every state in range satisfying the initial predicate, or the one initial state
    /// (enumerates the product of the ranges for a predicate: for tests and small models).
    pub fn initial_states_explicit(&self) -> Result<Vec<Vec<i64>>, EvalError> {
        match &self.init {
            Init::State(s) => Ok(vec![s.clone()]),
            Init::Pred(p) => {
                let mut out = Vec::new();
                let mut s: Vec<i64> = self.vars.iter().map(|v| v.low).collect();
                loop {
                    if p.eval(&s)? == Value::Bool(true) {
                        out.push(s.clone());
                    }
                    let mut i = 0;
                    loop {
                        if i == s.len() {
                            return Ok(out);
                        }
                        if s[i] < self.vars[i].high {
                            s[i] += 1;
                            break;
                        }
                        s[i] = self.vars[i].low;
                        i += 1;
                    }
                }
            }
        }
    }
}
