//! Evaluation of [`Csl`] formulas over the states of a sparse chain.

use saturn_model::expr::Value;
use saturn_model::GeneralModel;
use std::rc::Rc;

mod long_run;
mod refine;
mod timed;

use long_run::Cycle;
use refine::Memo;
pub use refine::{RefineOrder, Refinement};

use super::answer::{filter, fold_initial, Answer};
use super::bounds::{combine, decide, Bounded, Interval};
use super::{Csl, FilterOp, Rel, RewardPath, RewardStructure};
use crate::chain::Chain;
use crate::solve::{
    absorbing, absorbing_bounds, poisson_bounds, steady_state, Bounds, Gap, Method, Options,
    SolveError, NO_CLASS,
};

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

/// Figures of the last evaluation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Iterations of every solver run for the property.
    pub iterations: usize,
    /// The methods that converged, in order.
    pub methods: Vec<String>,
    /// Bottom SCCs of the chain (when the property needed them).
    pub bsccs: Option<usize>,
    /// Whether the bounds of the answer are guaranteed: false when some value in it is an
    /// estimate whose error is not bounded (named in `unguaranteed`).
    pub guaranteed: bool,
    /// What was computed without a guaranteed bound (empty when `guaranteed`).
    pub unguaranteed: Vec<String>,
    /// How the bounds were obtained, one entry per kind of solve (e.g. `interval iteration`).
    pub bounding: Vec<String>,
    /// States a threshold (`P>=p`, `S<q`, `R>r`) left undecided, over every threshold of the
    /// formula, in the last evaluation.
    pub undecided: usize,
    /// Solves whose bounds did not reach epsilon within the iteration limit (their bounds are
    /// the ones they had).
    pub wide: Vec<String>,
    /// Reductions of a subformula's epsilon to decide nested thresholds or narrow the answer
    /// (thesis 7.2): `refined.len()`.
    pub refinements: usize,
    /// Each refinement in order: the subformula refined and its new epsilon.
    pub refined: Vec<Refinement>,
    /// The order of refinement (thesis Figure 7.5).
    pub order: RefineOrder,
    /// The smallest epsilon any subformula was computed with (the option's when nothing was
    /// refined).
    pub epsilon: f64,
    /// Evaluations of the probabilistic, steady-state and reward operators, refinements
    /// included (a memoised result reused is not counted).
    pub solves: usize,
}

impl Stats {
    fn fresh(epsilon: f64) -> Stats {
        Stats {
            guaranteed: true,
            epsilon,
            ..Stats::default()
        }
    }

    pub(super) fn note_bounding(&mut self, how: &str) {
        if !self.bounding.iter().any(|b| b == how) {
            self.bounding.push(how.to_string());
        }
    }

    pub(super) fn note_wide(&mut self, what: &str) {
        if !self.wide.iter().any(|b| b == what) {
            self.wide.push(what.to_string());
        }
    }

    pub(super) fn note_unguaranteed(&mut self, what: &str) {
        self.guaranteed = false;
        if !self.unguaranteed.iter().any(|b| b == what) {
            self.unguaranteed.push(what.to_string());
        }
    }
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
    /// The recurrent classes' bounds and the epsilon they were solved to.
    pis: Option<(f64, Vec<Cycle>)>,
    reward_rates: Vec<Option<Rc<[f64]>>>,
    stats: Stats,
    /// The chain is a DTMC ([`Checker::discrete_time`]).
    discrete: bool,
    /// The subformulas of the property being answered (thesis 7.2).
    memo: Memo,
    /// The bounds an operator computed before comparing them with its threshold.
    stash: Option<Numbers>,
    order: RefineOrder,
}

/// A value in every state: one value everywhere (an irreducible chain's long-run averages,
/// a filter's answer) is kept once, not once per state.
#[derive(Clone, PartialEq)]
enum Vals {
    Same(Bounded, usize),
    Each(Vec<Bounded>),
}

impl Vals {
    fn get(&self, i: usize) -> Bounded {
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

    fn into_vec(self) -> Vec<Bounded> {
        match self {
            Vals::Same(v, n) => vec![v; n],
            Vals::Each(v) => v,
        }
    }
}

/// A number in every state with its bounds: one interval everywhere (an irreducible chain's
/// long-run average) or lower and upper bounds per state.
#[derive(Clone)]
enum Numbers {
    Everywhere(Interval),
    PerState(Vec<f64>, Vec<f64>),
}

/// A state formula under the bounding semantics: the lower set `lo` (surely true) and the
/// upper set `hi` (possibly true), `lo` within `hi`; the states of `hi` outside `lo` are
/// undecided.
pub(super) struct Sets {
    pub lo: Vec<bool>,
    pub hi: Vec<bool>,
}

impl Sets {
    fn decided(&self) -> bool {
        self.lo == self.hi
    }
}

/// Iterations the regenerative steady-state bounds get per bottom SCC before the stationary
/// solver's estimate (marked not guaranteed) is taken instead.
const REGENERATIVE_BUDGET: usize = 2_000;

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
            discrete: false,
            memo: Memo::default(),
            stash: None,
            order: RefineOrder::default(),
        }
    }

    /// The chain is a discrete-time Markov chain (PCTL): its `R` holds the one-step
    /// probabilities off the diagonal, `h[i] = 1 - P[i][i]` (see [`crate::props::dtmc`]).
    /// Everything that depends only on the embedded chain or on the stationary distribution
    /// (unbounded until, `S`, `R[F]`, `R[C]`, `R[S]`) is the same computation as for the
    /// CTMC with these rates (a reward per step `rho` over the expected `1/h` consecutive steps
    /// in a state is `rho/h`, the CTMC's reward rate over its sojourn); `X` counts the self-loop,
    /// and the bounds of `U<=k`, `U[k1,k2]`, `C<=k`, `I=k` are numbers of steps, computed by `k`
    /// products with `P` ([`crate::transient::steps`]).
    pub fn discrete_time(mut self) -> Self {
        self.discrete = true;
        self
    }

    /// The order in which nested formulas are refined (thesis Figure 7.5).
    pub fn refine_order(mut self, order: RefineOrder) -> Self {
        self.order = order;
        self
    }

    /// The figures of the last [`Checker::answer`].
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The answer of `f` in the initial state(s): the value in the one initial state; with
    /// several, PRISM's conventions: a boolean holds when it holds in all of them, a number is
    /// the range over them. A top-level filter gives its own answer.
    ///
    /// Nested refinement (thesis 7.2, Figures 7.4-7.5, [`refine`]): when a threshold inside
    /// `f` left states undecided that the answer needs (it is an undecided boolean), or the
    /// answer is a number wider than epsilon (an undecided inner threshold, a stationary
    /// average whose bounds are relative to the distribution's total rather than to the
    /// average), the subformulas are refined one at a time in the checker's
    /// [`RefineOrder`], each at most a few times and not below 1e-14; a refinement whose
    /// solver does not converge keeps the last answer. What stays undecided is answered
    /// [`Answer::Undecided`] (or as the interval it has), never guessed.
    pub fn answer(&mut self, f: &Csl) -> Result<Answer, CheckError> {
        let base = self.options;
        self.memo = Memo::new(base.epsilon, f);
        let result = self.eval_nested(f);
        if self.pis.as_ref().is_some_and(|(e, _)| *e != base.epsilon) {
            // the recurrent classes' vectors were solved to a refined epsilon
            self.pis = None;
        }
        self.options = base;
        self.memo = Memo::default();
        result
    }

    fn answer_once(&mut self, f: &Csl) -> Result<Answer, CheckError> {
        self.stats = Stats::fresh(self.options.epsilon);
        if let Csl::Filter { op, prop, states } = f {
            return self.filter(*op, prop, states.as_deref());
        }
        let v = self.eval_error(f)?;
        let init = self.ctmc.initial();
        if init.is_empty() {
            return Err(CheckError::Filter("the model has no initial state".into()));
        }
        let vals: Vec<Bounded> = init.iter().map(|&i| v.get(i)).collect();
        fold_initial(&vals)
    }

    /// The value of `f` in every state, with its bounds (not refined).
    pub fn eval(&mut self, f: &Csl) -> Result<Vec<Bounded>, CheckError> {
        self.memo = Memo::new(self.options.epsilon, f);
        self.stats = Stats::fresh(self.options.epsilon);
        let v = self.eval_error(f);
        if v.is_ok() {
            self.gather(f);
        }
        self.memo = Memo::default();
        Ok((*v?).clone().into_vec())
    }

    /// The value of `f` in every state from its operands' memoised values
    /// ([`Checker::eval_error`] memoises it).
    fn eval_here(&mut self, f: &Csl) -> Result<Vals, CheckError> {
        let n = self.ctmc.len();
        Ok(match f {
            Csl::Expr(e) => {
                let mut out = Vec::with_capacity(n);
                let model = self.model;
                self.ctmc.for_each_state(&mut |_, s| {
                    out.push(Bounded::Exact(e.eval(s).map_err(|err| {
                        CheckError::Eval(format!("{err} in state {}", model.show_state(s)))
                    })?));
                    Ok(())
                })?;
                Vals::Each(out)
            }
            Csl::Init => marks(n, self.ctmc.initial()),
            Csl::Deadlock => marks(n, self.ctmc.deadlocks()),
            Csl::Not(a) => {
                let a = self.sets(a)?;
                Vals::Each(
                    (0..n)
                        .map(|i| Bounded::truth(decide(!a.hi[i], a.lo[i])))
                        .collect(),
                )
            }
            Csl::Bin(op, a, b) => {
                let (a, b) = (self.eval_error(a)?, self.eval_error(b)?);
                let bin = |x, y| combine(*op, x, y).map_err(CheckError::Eval);
                match (&*a, &*b) {
                    (Vals::Same(x, _), Vals::Same(y, _)) => Vals::Same(bin(*x, *y)?, n),
                    _ => Vals::Each(
                        (0..n)
                            .map(|i| bin(a.get(i), b.get(i)))
                            .collect::<Result<_, _>>()?,
                    ),
                }
            }
            Csl::Until { bound, left, right } => {
                let (a, b) = (self.sets(left)?, self.sets(right)?);
                // thesis 7.1: P(a U b) grows with both sets, so the lower sets give the
                // lower bound and the upper sets the upper one
                let (lo, hi) = if a.decided() && b.decided() {
                    self.until(&a.lo, &b.lo)?
                } else {
                    let (lo, _) = self.until(&a.lo, &b.lo)?;
                    let (_, hi) = self.until(&a.hi, &b.hi)?;
                    (lo, hi)
                };
                self.bounded(Numbers::PerState(lo, hi), *bound, n)
            }
            Csl::TimedUntil {
                bound,
                left,
                right,
                lo,
                hi,
            } => {
                let (a, b) = (self.sets(left)?, self.sets(right)?);
                let x = self.timed_until(&a, &b, *lo, *hi)?;
                self.bounded(x, *bound, n)
            }
            Csl::Next { bound, phi } => {
                let p = self.sets(phi)?;
                let x = self.next(&p)?;
                self.bounded(x, *bound, n)
            }
            Csl::Steady { bound, phi } => {
                let p = self.sets(phi)?;
                let weight = |s: &[bool]| -> Vec<f64> {
                    s.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect()
                };
                let x = if p.decided() {
                    self.long_run(&weight(&p.lo))?
                } else {
                    let lo = self.long_run(&weight(&p.lo))?;
                    let hi = self.long_run(&weight(&p.hi))?;
                    lower_of(lo).with_upper(hi)
                };
                self.bounded(x, *bound, n)
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
                        let b = self.sets(target)?;
                        if b.decided() {
                            let (lo, hi) = self.reach_reward(&rates, &b.lo)?;
                            Numbers::PerState(lo, hi)
                        } else {
                            if rates.iter().any(|&r| r < 0.0) {
                                return Err(CheckError::Eval(
                                    "R[F phi] with negative rewards needs phi decided in every \
                                     state"
                                        .into(),
                                ));
                            }
                            // more targets, less reward: the upper set gives the lower bound
                            let (lo, _) = self.reach_reward(&rates, &b.hi)?;
                            let (_, hi) = self.reach_reward(&rates, &b.lo)?;
                            Numbers::PerState(lo, hi)
                        }
                    }
                    RewardPath::Cumulative(t) => self.cumulative_reward(*structure, *t)?,
                    RewardPath::Instant(t) => self.instant_reward(*structure, *t)?,
                    RewardPath::Total => {
                        let (lo, hi) = self.total_reward(&rates)?;
                        Numbers::PerState(lo, hi)
                    }
                };
                self.bounded(x, *bound, n)
            }
            Csl::Filter { op, prop, states } => {
                let a = self.filter(*op, prop, states.as_deref())?;
                let v = a.as_bounded().ok_or_else(|| {
                    CheckError::Filter("a range filter cannot be used inside a formula".into())
                })?;
                Vals::Same(v, n)
            }
        })
    }

    /// A state formula as its lower and upper sets.
    fn sets(&mut self, f: &Csl) -> Result<Sets, CheckError> {
        let v = self.eval_error(f)?;
        let n = v.len();
        let mut s = Sets {
            lo: Vec::with_capacity(n),
            hi: Vec::with_capacity(n),
        };
        for i in 0..n {
            let b = v.get(i).boolean().map_err(|()| {
                CheckError::Eval("a state formula must be a boolean, found a number".into())
            })?;
            s.lo.push(b == Some(true));
            s.hi.push(b != Some(false));
        }
        Ok(s)
    }

    /// The values of a numeric operator (`x`, over `n` states), compared with `bound` if given:
    /// a state whose interval lies on one side of the bound is decided, one whose interval
    /// holds the bound is undecided (and counted in the stats); when some value computed so far
    /// is an estimate without a bound, every state is undecided.
    fn bounded(&mut self, x: Numbers, bound: Option<(Rel, f64)>, n: usize) -> Vals {
        self.stash = Some(x.clone());
        let mut undecided = 0;
        // an estimate without an error bound decides nothing
        let guessing = !self.stats.guaranteed;
        let mut one = |i: Interval| match bound {
            None => Bounded::num(i),
            Some((r, p)) => {
                let t = if guessing { None } else { i.compare(r, p) };
                undecided += usize::from(t.is_none());
                Bounded::truth(t)
            }
        };
        let v = match x {
            Numbers::Everywhere(i) => Vals::Same(one(i), n),
            Numbers::PerState(lo, hi) => Vals::Each(
                lo.into_iter()
                    .zip(hi)
                    .map(|(l, h)| one(Interval::new(l, h)))
                    .collect(),
            ),
        };
        self.stats.undecided += if matches!(v, Vals::Same(..)) {
            undecided * n
        } else {
            undecided
        };
        v
    }

    fn filter(
        &mut self,
        op: FilterOp,
        prop: &Csl,
        states: Option<&Csl>,
    ) -> Result<Answer, CheckError> {
        let v = self.eval_error(prop)?;
        let sel: Vec<usize> = match states {
            None => (0..v.len()).collect(),
            Some(s) => {
                let b = self.sets(s)?;
                if !b.decided() {
                    let k = (0..b.lo.len()).filter(|&i| b.lo[i] != b.hi[i]).count();
                    self.stats.undecided += k;
                    return Ok(Answer::Undecided);
                }
                (0..v.len()).filter(|&i| b.lo[i]).collect()
            }
        };
        let pick: Vec<Bounded> = sel.iter().map(|&i| v.get(i)).collect();
        filter(op, &pick)
    }

    /// The solution of the linear system of [`absorbing`] with its bounds per state, by
    /// interval iteration ([`absorbing_bounds`]): `range` holds the solution on the unknown
    /// states when the caller knows it (a probability, a mean of the fixed values), `None` for
    /// an expected reward (`c >= 0`); with a negative `c` the bounds cannot be built and the
    /// solver's estimate is given, marked not guaranteed.
    fn solve_linear(
        &mut self,
        what: &str,
        fixed: &[Option<f64>],
        c: &[f64],
        range: Option<(f64, f64)>,
    ) -> Result<(Vec<f64>, Vec<f64>), CheckError> {
        if fixed.iter().all(Option::is_some) {
            // nothing to solve (e.g. an ergodic chain's long-run values): no transpose built
            let x: Vec<f64> = fixed.iter().map(|v| v.unwrap_or(0.0)).collect();
            return Ok((x.clone(), x));
        }
        let options = self.options;
        let progress = &mut self.progress;
        let h = self.ctmc.exit();
        let signed = range.is_none() && c.iter().chain(fixed.iter().flatten()).any(|&v| v < 0.0);
        let mut sol = None;
        self.ctmc.with_transposed(&mut |rt| {
            let mut cb = |m: &Method, it: usize, d: f64| progress(what, m, it, d);
            sol = Some(if signed {
                let s = absorbing(rt, h, fixed, c, &options, &mut cb)?;
                Bounds {
                    hi: s.x.clone(),
                    lo: s.x,
                    iterations: s.iterations,
                    method: s.method,
                    within: false,
                    direct: false,
                }
            } else {
                absorbing_bounds(rt, h, fixed, c, range, Gap::PerState, &options, &mut cb)?
            });
            Ok(())
        })?;
        let sol = sol.expect("solved");
        self.stats.iterations += sol.iterations;
        if sol.iterations > 0 {
            self.stats.methods.push(sol.method.name());
        }
        if sol.direct {
            self.stats.methods.push("lu (verified)".into());
        }
        if signed {
            self.stats
                .note_unguaranteed(&format!("{what} (negative rewards: estimate)"));
        } else {
            self.stats.note_bounding("interval iteration");
            if !sol.within {
                self.stats.note_wide(what);
            }
        }
        Ok((sol.lo, sol.hi))
    }

    /// `P(a U b)` in every state: lower and upper bounds.
    fn until(&mut self, a: &[bool], b: &[bool]) -> Result<(Vec<f64>, Vec<f64>), CheckError> {
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
        self.solve_linear("until", &fixed, &c, Some((0.0, 1.0)))
    }

    /// The expected reward accumulated until `b` in every state (`+inf` where `b` is reached
    /// with probability below 1).
    fn reach_reward(
        &mut self,
        rates: &[f64],
        b: &[bool],
    ) -> Result<(Vec<f64>, Vec<f64>), CheckError> {
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
        self.solve_linear("reachability reward", &fixed, &c, None)
    }

    /// The expected total reward from every state: 0 in a bottom SCC that earns nothing,
    /// `+inf` where a bottom SCC that earns something can be reached, else `x = r/h + P x`.
    fn total_reward(&mut self, rates: &[f64]) -> Result<(Vec<f64>, Vec<f64>), CheckError> {
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
        self.solve_linear("total reward", &fixed, &c, None)
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
}

fn marks(n: usize, set: &[usize]) -> Vals {
    let mut v = vec![Bounded::Exact(Value::Bool(false)); n];
    for &i in set {
        v[i] = Bounded::Exact(Value::Bool(true));
    }
    Vals::Each(v)
}

/// The lower bounds of `x` (to be joined with other upper bounds by [`Numbers::with_upper`]).
fn lower_of(x: Numbers) -> Numbers {
    x
}

impl Numbers {
    /// `self`'s lower bounds with `hi`'s upper bounds.
    fn with_upper(self, hi: Numbers) -> Numbers {
        match (self, hi) {
            (Numbers::Everywhere(a), Numbers::Everywhere(b)) => {
                Numbers::Everywhere(Interval::new(a.lo, b.hi))
            }
            (a, b) => {
                let n = a.len().max(b.len());
                let lo = (0..n).map(|i| a.at(i).lo).collect();
                let hi = (0..n).map(|i| b.at(i).hi).collect();
                Numbers::PerState(lo, hi)
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Numbers::Everywhere(_) => 0,
            Numbers::PerState(lo, _) => lo.len(),
        }
    }

    fn at(&self, i: usize) -> Interval {
        match self {
            Numbers::Everywhere(x) => *x,
            Numbers::PerState(lo, hi) => Interval::new(lo[i], hi[i]),
        }
    }
}
