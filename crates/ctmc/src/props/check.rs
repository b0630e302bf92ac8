//! Evaluation of [`Csl`] formulas over the states of a sparse chain.

use saturn_model::expr::{binary, Value};
use saturn_model::GeneralModel;
use std::rc::Rc;

use super::{Csl, FilterOp, Rel, RewardPath, RewardStructure};
use crate::chain::Chain;
use crate::solve::{absorbing, steady_state, Method, Options, SolveError};

/// Why a property has no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// An expression could not be evaluated in some state (type error, division by zero, ...).
    #[error("{0}")]
    Eval(String),
    /// A filter over no state, or `state` over several.
    #[error("{0}")]
    Filter(String),
    /// A limit, or the decision diagrams running out of node ids, stopped a graph computation
    /// of the symbolic engine.
    #[error("stopped: {0}")]
    Stopped(saturn_symbolic::Interrupted),
}

/// The answer of a property in the initial state(s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    Bool(bool),
    Num(f64),
    /// Several initial states with different values (PRISM's "range over initial states"),
    /// or a `range` filter.
    Range(f64, f64),
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Bool(b) => write!(f, "{b}"),
            Answer::Num(x) => write!(f, "{}", fmt_num(*x)),
            Answer::Range(a, b) => write!(f, "[{}, {}]", fmt_num(*a), fmt_num(*b)),
        }
    }
}

fn fmt_num(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        format!("{x}")
    }
}

/// Figures of the last evaluation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Iterations of every solver run for the property.
    pub iterations: usize,
    /// The methods that converged, in order.
    pub methods: Vec<String>,
    /// Bottom SCCs of the chain (when the property needed them).
    pub bsccs: Option<usize>,
}

/// Progress callback: what is being solved, the method, the iteration, the last difference.
/// Return `false` to stop.
pub type CheckProgress<'a> = Box<dyn FnMut(&str, &Method, usize, f64) -> bool + 'a>;

/// Evaluates properties on one chain, keeping the bottom SCCs and their stationary
/// distributions and the reward rates between properties.
pub struct Checker<'a> {
    model: &'a GeneralModel,
    actions: &'a [Option<usize>],
    rewards: &'a [RewardStructure],
    ctmc: &'a dyn Chain,
    options: Options,
    progress: CheckProgress<'a>,
    bsccs: Option<Vec<Vec<u32>>>,
    pis: Option<Vec<Vec<f64>>>,
    reward_rates: Vec<Option<Rc<[f64]>>>,
    stats: Stats,
}

/// A value in every state: one value everywhere (an irreducible chain's long-run averages,
/// a filter's answer) is kept once, not once per state.
enum Vals {
    Same(Value, usize),
    Each(Vec<Value>),
}

impl Vals {
    fn get(&self, i: usize) -> Value {
        match self {
            Vals::Same(v, _) => *v,
            Vals::Each(v) => v[i],
        }
    }

    fn len(&self) -> usize {
        match self {
            Vals::Same(_, n) => *n,
            Vals::Each(v) => v.len(),
        }
    }

    fn into_vec(self) -> Vec<Value> {
        match self {
            Vals::Same(v, n) => vec![v; n],
            Vals::Each(v) => v,
        }
    }
}

/// A number in every state: one value everywhere (an irreducible chain's long-run average)
/// or a value per state.
enum Numbers {
    Everywhere(f64),
    PerState(Vec<f64>),
}

impl<'a> Checker<'a> {
    /// `actions[e]`: the action of event `e` of `model` (for transition rewards).
    pub fn new(
        model: &'a GeneralModel,
        actions: &'a [Option<usize>],
        rewards: &'a [RewardStructure],
        ctmc: &'a dyn Chain,
        options: Options,
        progress: CheckProgress<'a>,
    ) -> Self {
        Checker {
            model,
            actions,
            rewards,
            ctmc,
            options,
            progress,
            bsccs: None,
            pis: None,
            reward_rates: vec![None; rewards.len()],
            stats: Stats::default(),
        }
    }

    /// The figures of the last [`Checker::answer`].
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The answer of `f` in the initial state(s): the value in the one initial state; with
    /// several, PRISM's conventions: a boolean holds when it holds in all of them, a number is
    /// the range over them. A top-level filter gives its own answer.
    pub fn answer(&mut self, f: &Csl) -> Result<Answer, CheckError> {
        self.stats = Stats::default();
        if let Csl::Filter { op, prop, states } = f {
            return self.filter(*op, prop, states.as_deref());
        }
        let v = self.eval_vals(f)?;
        let init = self.ctmc.initial();
        if init.is_empty() {
            return Err(CheckError::Filter("the model has no initial state".into()));
        }
        let vals: Vec<Value> = init.iter().map(|&i| v.get(i)).collect();
        fold_initial(&vals)
    }

    /// The value of `f` in every state.
    pub fn eval(&mut self, f: &Csl) -> Result<Vec<Value>, CheckError> {
        Ok(self.eval_vals(f)?.into_vec())
    }

    fn eval_vals(&mut self, f: &Csl) -> Result<Vals, CheckError> {
        let n = self.ctmc.len();
        Ok(match f {
            Csl::Expr(e) => {
                let mut out = Vec::with_capacity(n);
                let model = self.model;
                self.ctmc.for_each_state(&mut |_, s| {
                    out.push(e.eval(s).map_err(|err| {
                        CheckError::Eval(format!("{err} in state {}", model.show_state(s)))
                    })?);
                    Ok(())
                })?;
                Vals::Each(out)
            }
            Csl::Init => marks(n, self.ctmc.initial()),
            Csl::Deadlock => marks(n, self.ctmc.deadlocks()),
            Csl::Not(a) => {
                let a = self.bools(a)?;
                Vals::Each(a.into_iter().map(|x| Value::Bool(!x)).collect())
            }
            Csl::Bin(op, a, b) => {
                let (a, b) = (self.eval_vals(a)?, self.eval_vals(b)?);
                let bin = |x, y| binary(*op, x, y).map_err(|e| CheckError::Eval(e.to_string()));
                match (&a, &b) {
                    (Vals::Same(x, _), Vals::Same(y, _)) => Vals::Same(bin(*x, *y)?, n),
                    _ => Vals::Each(
                        (0..n)
                            .map(|i| bin(a.get(i), b.get(i)))
                            .collect::<Result<_, _>>()?,
                    ),
                }
            }
            Csl::Until { bound, left, right } => {
                let (a, b) = (self.bools(left)?, self.bools(right)?);
                let x = self.until(&a, &b)?;
                bounded(Numbers::PerState(x), *bound, n)
            }
            Csl::Steady { bound, phi } => {
                let w: Vec<f64> = self
                    .bools(phi)?
                    .into_iter()
                    .map(|b| if b { 1.0 } else { 0.0 })
                    .collect();
                let x = self.long_run(&w)?;
                bounded(x, *bound, n)
            }
            Csl::Reward {
                bound,
                structure,
                path,
            } => {
                let rates = self.reward_rates(*structure)?;
                let x = match path {
                    RewardPath::Steady => self.long_run(&rates)?,
                    RewardPath::Reach(target) => {
                        let b = self.bools(target)?;
                        Numbers::PerState(self.reach_reward(&rates, &b)?)
                    }
                    RewardPath::Total => Numbers::PerState(self.total_reward(&rates)?),
                };
                bounded(x, *bound, n)
            }
            Csl::Filter { op, prop, states } => {
                let a = self.filter(*op, prop, states.as_deref())?;
                let v = match a {
                    Answer::Bool(b) => Value::Bool(b),
                    Answer::Num(x) => Value::Real(x),
                    Answer::Range(..) => {
                        return Err(CheckError::Filter(
                            "a range filter cannot be used inside a formula".into(),
                        ))
                    }
                };
                Vals::Same(v, n)
            }
        })
    }

    fn bools(&mut self, f: &Csl) -> Result<Vec<bool>, CheckError> {
        self.eval_vals(f)?
            .into_vec()
            .into_iter()
            .map(|v| match v {
                Value::Bool(b) => Ok(b),
                _ => Err(CheckError::Eval(
                    "a state formula must be a boolean, found a number".into(),
                )),
            })
            .collect()
    }

    fn filter(
        &mut self,
        op: FilterOp,
        prop: &Csl,
        states: Option<&Csl>,
    ) -> Result<Answer, CheckError> {
        let v = self.eval_vals(prop)?;
        let sel: Vec<usize> = match states {
            None => (0..v.len()).collect(),
            Some(s) => {
                let b = self.bools(s)?;
                (0..v.len()).filter(|&i| b[i]).collect()
            }
        };
        let pick: Vec<Value> = sel.iter().map(|&i| v.get(i)).collect();
        let empty = || CheckError::Filter("the filter's state set is empty".into());
        let nums = || -> Result<Vec<f64>, CheckError> {
            pick.iter()
                .map(|x| {
                    num_of(*x).ok_or_else(|| CheckError::Eval("the filter needs numbers".into()))
                })
                .collect()
        };
        let bools = || -> Result<Vec<bool>, CheckError> {
            pick.iter()
                .map(|x| match x {
                    Value::Bool(b) => Ok(*b),
                    _ => Err(CheckError::Eval(
                        "the filter needs a boolean property".into(),
                    )),
                })
                .collect()
        };
        Ok(match op {
            FilterOp::Forall => Answer::Bool(bools()?.into_iter().all(|b| b)),
            FilterOp::Exists => Answer::Bool(bools()?.into_iter().any(|b| b)),
            FilterOp::Count => Answer::Num(bools()?.into_iter().filter(|&b| b).count() as f64),
            FilterOp::Min => Answer::Num(nums()?.into_iter().reduce(f64::min).ok_or_else(empty)?),
            FilterOp::Max => Answer::Num(nums()?.into_iter().reduce(f64::max).ok_or_else(empty)?),
            FilterOp::Sum => Answer::Num(nums()?.into_iter().sum()),
            FilterOp::Avg => {
                let x = nums()?;
                if x.is_empty() {
                    return Err(empty());
                }
                Answer::Num(x.iter().sum::<f64>() / x.len() as f64)
            }
            FilterOp::Range => {
                let x = nums()?;
                let lo = x.iter().copied().reduce(f64::min).ok_or_else(empty)?;
                let hi = x.iter().copied().reduce(f64::max).ok_or_else(empty)?;
                Answer::Range(lo, hi)
            }
            FilterOp::First => scalar(*pick.first().ok_or_else(empty)?),
            FilterOp::State => {
                if pick.len() != 1 {
                    return Err(CheckError::Filter(format!(
                        "filter(state, ...) needs exactly one state, the filter selects {}",
                        pick.len()
                    )));
                }
                scalar(pick[0])
            }
        })
    }

    fn solve_linear(
        &mut self,
        what: &str,
        fixed: &[Option<f64>],
        c: &[f64],
    ) -> Result<Vec<f64>, CheckError> {
        if fixed.iter().all(Option::is_some) {
            // nothing to solve (e.g. an ergodic chain's long-run values): no transpose built
            return Ok(fixed.iter().map(|v| v.unwrap_or(0.0)).collect());
        }
        let options = self.options;
        let progress = &mut self.progress;
        let h = self.ctmc.exit();
        let mut sol = None;
        self.ctmc.with_transposed(&mut |rt| {
            sol = Some(absorbing(rt, h, fixed, c, &options, &mut |m, it, d| {
                progress(what, m, it, d)
            })?);
            Ok(())
        })?;
        let sol = sol.expect("solved");
        self.stats.iterations += sol.iterations;
        if sol.iterations > 0 {
            self.stats.methods.push(sol.method.name());
        }
        Ok(sol.x)
    }

    /// `P(a U b)` in every state.
    fn until(&mut self, a: &[bool], b: &[bool]) -> Result<Vec<f64>, CheckError> {
        let no = self.prob0(a, b)?;
        let yes = self.prob1(a, b, &no)?;
        let fixed: Vec<Option<f64>> = (0..a.len())
            .map(|i| {
                if yes[i] {
                    Some(1.0)
                } else if no[i] {
                    Some(0.0)
                } else {
                    None
                }
            })
            .collect();
        let c = vec![0.0; a.len()];
        self.solve_linear("until", &fixed, &c)
    }

    /// The expected reward accumulated until `b` in every state (`+inf` where `b` is reached
    /// with probability below 1).
    fn reach_reward(&mut self, rates: &[f64], b: &[bool]) -> Result<Vec<f64>, CheckError> {
        let all = vec![true; b.len()];
        let no = self.prob0(&all, b)?;
        let sure = self.prob1(&all, b, &no)?;
        let h = self.ctmc.exit();
        let fixed: Vec<Option<f64>> = (0..b.len())
            .map(|i| {
                if b[i] {
                    Some(0.0)
                } else if !sure[i] {
                    Some(f64::INFINITY)
                } else {
                    None
                }
            })
            .collect();
        let c: Vec<f64> = (0..b.len())
            .map(|i| if h[i] > 0.0 { rates[i] / h[i] } else { 0.0 })
            .collect();
        self.solve_linear("reachability reward", &fixed, &c)
    }

    /// The expected total reward from every state: 0 in a bottom SCC that earns nothing,
    /// `+inf` where a bottom SCC that earns something can be reached, else `x = r/h + P x`.
    fn total_reward(&mut self, rates: &[f64]) -> Result<Vec<f64>, CheckError> {
        let n = rates.len();
        let bsccs = self.bottom()?;
        let mut zero = vec![false; n];
        let mut earning = vec![false; n];
        for b in bsccs {
            let earns = b.iter().any(|&s| rates[s as usize] != 0.0);
            for &s in b {
                if earns {
                    earning[s as usize] = true;
                } else {
                    zero[s as usize] = true;
                }
            }
        }
        let all = vec![true; n];
        let inf = self.ctmc.backward_reach(&all, &earning)?;
        let h = self.ctmc.exit();
        let fixed: Vec<Option<f64>> = (0..n)
            .map(|i| {
                if inf[i] {
                    Some(f64::INFINITY)
                } else if zero[i] {
                    Some(0.0)
                } else {
                    None
                }
            })
            .collect();
        let c: Vec<f64> = (0..n)
            .map(|i| if h[i] > 0.0 { rates[i] / h[i] } else { 0.0 })
            .collect();
        self.solve_linear("total reward", &fixed, &c)
    }

    /// Prob0 for `a U b`: the states where the probability is 0 (no path through `a` to
    /// `b`).
    fn prob0(&self, a: &[bool], b: &[bool]) -> Result<Vec<bool>, CheckError> {
        let reach = self.ctmc.backward_reach(a, b)?;
        Ok(reach.into_iter().map(|x| !x).collect())
    }

    /// Prob1 for `a U b` given `no = prob0(a, b)`: the states where the probability is 1,
    /// those that cannot reach a `no` state through states of `a & !b`.
    fn prob1(&self, a: &[bool], b: &[bool], no: &[bool]) -> Result<Vec<bool>, CheckError> {
        let through: Vec<bool> = a.iter().zip(b).map(|(&x, &y)| x && !y).collect();
        let reach = self.ctmc.backward_reach(&through, no)?;
        Ok(reach.into_iter().map(|x| !x).collect())
    }

    /// The bottom SCCs (computed once).
    fn bottom(&mut self) -> Result<&[Vec<u32>], CheckError> {
        let b = self.take_bottom()?;
        Ok(self.bsccs.insert(b))
    }

    /// The bottom SCCs taken out of the checker (computed if they were not there); put them
    /// back in `bsccs` when done.
    fn take_bottom(&mut self) -> Result<Vec<Vec<u32>>, CheckError> {
        match self.bsccs.take() {
            Some(b) => Ok(b),
            None => self.ctmc.bottom_sccs(),
        }
    }

    /// The reward rates of structure `k` (computed once, shared, not copied: a vector of the
    /// chain's size).
    fn reward_rates(&mut self, k: usize) -> Result<Rc<[f64]>, CheckError> {
        if k >= self.rewards.len() {
            return Err(CheckError::Eval(format!(
                "reward structure {} does not exist",
                k + 1
            )));
        }
        if self.reward_rates[k].is_none() {
            self.reward_rates[k] = Some(
                self.rewards[k]
                    .rates(self.model, self.actions, self.ctmc)?
                    .into(),
            );
        }
        Ok(self.reward_rates[k].clone().expect("just computed"))
    }

    /// The bottom SCCs and their stationary distributions (computed once).
    fn recurrent(&mut self) -> Result<(), CheckError> {
        if self.pis.is_some() {
            return Ok(());
        }
        // taken out while the classes are solved (not copied: a list of the chain's size)
        let bsccs = self.take_bottom()?;
        let mut pis = Vec::with_capacity(bsccs.len());
        let options = self.options;
        for b in &bsccs {
            let progress = &mut self.progress;
            let mut cb = |m: &Method, it: usize, d: f64| progress("steady state", m, it, d);
            let mut sol = None;
            self.ctmc.with_restricted(b, &mut |m| {
                sol = Some(steady_state(m, &options, &mut cb)?);
                Ok(())
            })?;
            let sol = sol.expect("solved");
            self.stats.iterations += sol.iterations;
            if sol.iterations > 0 {
                self.stats.methods.push(sol.method.name());
            }
            pis.push(sol.x);
        }
        self.bsccs = Some(bsccs);
        self.pis = Some(pis);
        Ok(())
    }

    /// The long-run average of the state weights `w` from every state (thesis 2.3.1): in a
    /// bottom SCC its stationary average; elsewhere the average over the bottom SCCs weighted
    /// by the probabilities of reaching them.
    fn long_run(&mut self, w: &[f64]) -> Result<Numbers, CheckError> {
        self.recurrent()?;
        let n = w.len();
        let bsccs = self.bsccs.as_ref().expect("computed");
        let pis = self.pis.as_ref().expect("computed");
        self.stats.bsccs = Some(bsccs.len());
        if let ([b], [pi]) = (bsccs.as_slice(), pis.as_slice()) {
            if b.len() == n {
                // an irreducible chain: one value everywhere, no linear system
                let v: f64 = b.iter().zip(pi).map(|(&s, &p)| p * w[s as usize]).sum();
                return Ok(Numbers::Everywhere(v));
            }
        }
        let mut fixed = vec![None; n];
        for (b, pi) in bsccs.iter().zip(pis) {
            let v: f64 = b.iter().zip(pi).map(|(&s, &p)| p * w[s as usize]).sum();
            for &s in b {
                fixed[s as usize] = Some(v);
            }
        }
        let c = vec![0.0; n];
        Ok(Numbers::PerState(self.solve_linear(
            "long-run average",
            &fixed,
            &c,
        )?))
    }
}

fn marks(n: usize, set: &[usize]) -> Vals {
    let mut v = vec![Value::Bool(false); n];
    for &i in set {
        v[i] = Value::Bool(true);
    }
    Vals::Each(v)
}

/// The values of a numeric operator (`x`, over `n` states), compared with `bound` if given.
fn bounded(x: Numbers, bound: Option<(Rel, f64)>, n: usize) -> Vals {
    let one = |v: f64| match bound {
        None => Value::Real(v),
        Some((r, p)) => Value::Bool(r.holds(v, p)),
    };
    match x {
        Numbers::Everywhere(v) => Vals::Same(one(v), n),
        Numbers::PerState(x) => Vals::Each(x.into_iter().map(one).collect()),
    }
}

fn num_of(v: Value) -> Option<f64> {
    v.as_f64()
}

fn scalar(v: Value) -> Answer {
    match v {
        Value::Bool(b) => Answer::Bool(b),
        v => Answer::Num(v.as_f64().unwrap_or(f64::NAN)),
    }
}

fn fold_initial(vals: &[Value]) -> Result<Answer, CheckError> {
    if vals.len() == 1 {
        return Ok(scalar(vals[0]));
    }
    if vals.iter().all(|v| matches!(v, Value::Bool(_))) {
        return Ok(Answer::Bool(vals.iter().all(|v| *v == Value::Bool(true))));
    }
    let nums: Vec<f64> = vals.iter().filter_map(|v| v.as_f64()).collect();
    let lo = nums.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = nums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Ok(if lo == hi {
        Answer::Num(lo)
    } else {
        Answer::Range(lo, hi)
    })
}
