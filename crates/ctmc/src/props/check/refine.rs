//! Nested formulas under the bounding semantics (thesis 7.2, Figures 7.4-7.5): every
//! subformula keeps its CurrentResult (its values with their bounds, or its lower and upper
//! sets) and its CurrentPrecision (the epsilon it was computed with), and refinement tightens
//! one subformula at a time.
//!
//! - [`Checker::eval_error`] (Figure 7.4, EvalError) evaluates a formula bottom-up, each
//!   subformula at its own precision, and memoises every result: a subformula is computed
//!   again only when its precision was reduced or the result of one of its operands changed;
//!   otherwise its memoised result is reused (an inner formula already decided is never solved
//!   again).
//! - [`Checker::eval_nested`] (Figure 7.4, Eval) refines until the answer is acceptable
//!   (decided, or a number within epsilon) or no subformula can be refined any more.
//! - [`Checker::refine_top_down`] and [`Checker::refine_bottom_up`] (Figure 7.5) choose the
//!   subformula whose precision is reduced: top-down reduces the outer operator's epsilon
//!   while that narrows its bounds and then refines its operands; bottom-up refines the
//!   operands first while that changes the outer bounds, then the outer operator.
//!
//! "Only where the outer decision needs them": before each step, [`Checker::mark_relevant`]
//! computes, from the top, the states where each subformula's value can change the answer:
//! the initial states where the answer is not acceptable; for the operands of an until, the
//! states its paths can visit from the states where it is undecided (forward search through
//! the left operand's upper set outside the right operand's lower set), less, for the left
//! operand, the states surely in the target; Kleene's connectives drop the states where the
//! other operand already decides. A subformula none of whose relevant states is undecided is
//! not refined. Every such set is a superset of the states the answer depends on, so skipping
//! the others is sound.
//!
//! Limits: each operator's epsilon is divided by [`REDUCE_FACTOR`] at most [`MAX_REDUCTIONS`]
//! times and never below [`MIN_EPSILON`]; an operator whose solve ran out of iterations is
//! not reduced; a refinement whose solver does not converge is undone (the last answer is
//! kept) and that operator is not reduced again.

use std::collections::HashMap;
use std::rc::Rc;

use super::{CheckError, Checker, Numbers, Stats, Vals};
use crate::props::bounds::Bounded;

mod relevant;
use crate::props::show::show;
use crate::props::{Answer, Csl, RewardPath};
use crate::solve::SolveError;

/// Reductions of one operator's epsilon at most (thesis 7.2: "Reduce epsilon").
pub(super) const MAX_REDUCTIONS: usize = 4;
/// Each reduction divides the operator's epsilon by this.
pub(super) const REDUCE_FACTOR: f64 = 100.0;
/// Refinement stops before an epsilon goes below this (the doubles' resolution).
pub(super) const MIN_EPSILON: f64 = 1e-14;

/// The order of refinement (thesis Figure 7.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RefineOrder {
    /// RefineTopDown: the outer operator's epsilon first, its operands when its bounds stop
    /// narrowing.
    TopDown,
    /// RefineBottomUp: the operands first, the outer operator when they can be refined no
    /// further. The default: cheaper on the nested formulas measured (docs/ctmc.md, "Bounds"),
    /// where the inner threshold is the bottleneck; top-down then pays for a useless
    /// reduction of the outer operator first.
    #[default]
    BottomUp,
}

impl RefineOrder {
    pub fn name(self) -> &'static str {
        match self {
            RefineOrder::TopDown => "top-down",
            RefineOrder::BottomUp => "bottom-up",
        }
    }
}

/// One refinement: the subformula whose epsilon was reduced, and to what.
#[derive(Clone, Debug, PartialEq)]
pub struct Refinement {
    pub subformula: String,
    pub epsilon: f64,
}

/// A subformula's CurrentResult and CurrentPrecision, and what refinement knows of it.
#[derive(Clone)]
pub(super) struct Node {
    /// CurrentPrecision: the epsilon it is to be computed with.
    eps: f64,
    /// CurrentResult (None before the first evaluation).
    vals: Option<Rc<Vals>>,
    /// An operator's bounds before its threshold (for the measure of a `P~p`).
    numbers: Option<Rc<Numbers>>,
    /// The precision and the operands' versions `vals` was computed with.
    computed_eps: f64,
    inputs: Vec<u64>,
    /// Bumped whenever `vals` changes.
    version: u64,
    reductions: usize,
    /// Not to be reduced again (its solver did not converge at a smaller epsilon).
    exhausted: bool,
    /// Its last computation did not narrow it (Figure 7.5's `oldbound = [X^l, X^u]`).
    stalled: bool,
    /// What its own last computation reported (operands excluded).
    own: Stats,
    /// No estimate without a bound in it or below it.
    sub_guaranteed: bool,
    /// The states where its value matters to the answer (`None`: every state).
    relevant: Option<Rc<Vec<bool>>>,
    /// (states of `relevant` not good enough, the widest bounds among them).
    measure: Option<(usize, f64)>,
}

impl Node {
    fn new(eps: f64) -> Node {
        Node {
            eps,
            vals: None,
            numbers: None,
            computed_eps: eps,
            inputs: Vec::new(),
            version: 0,
            reductions: 0,
            exhausted: false,
            stalled: false,
            own: Stats::default(),
            sub_guaranteed: true,
            relevant: None,
            measure: None,
        }
    }
}

/// The memoised subformulas of the property being answered, by address (the formula is
/// borrowed for the whole answer, so addresses are stable; cleared between properties).
#[derive(Default)]
pub(super) struct Memo {
    nodes: HashMap<usize, Node>,
    /// The option's epsilon: the initial precision, and the width an answer must reach.
    base: f64,
    /// The formula answered (its numbers must be within `base`, relatively).
    root: usize,
    /// Every solver iteration, refinements included.
    iterations: usize,
    /// Evaluations of operators (`P`, `S`, `R`), refinements included.
    solves: usize,
    refined: Vec<Refinement>,
    /// Operators reduced in this round (undone if their solver fails).
    reduced: Vec<usize>,
}

impl Memo {
    pub(super) fn new(base: f64, root: &Csl) -> Memo {
        Memo {
            base,
            root: key(root),
            ..Memo::default()
        }
    }
}

fn key(f: &Csl) -> usize {
    f as *const Csl as usize
}

/// The operands of `f` that are state formulas.
fn children(f: &Csl) -> Vec<&Csl> {
    match f {
        Csl::Expr(_) | Csl::Init | Csl::Deadlock => vec![],
        Csl::Not(a) => vec![a],
        Csl::Bin(_, a, b) => vec![a, b],
        Csl::Until { left, right, .. } | Csl::TimedUntil { left, right, .. } => {
            vec![left, right]
        }
        Csl::Next { phi, .. } | Csl::Steady { phi, .. } => vec![phi],
        Csl::Reward { path, .. } => match path {
            RewardPath::Reach(t) => vec![t],
            _ => vec![],
        },
        Csl::Filter { prop, states, .. } => {
            let mut v: Vec<&Csl> = vec![prop];
            v.extend(states.as_deref());
            v
        }
    }
}

/// An operator computed to an epsilon (the nodes refinement reduces).
fn is_operator(f: &Csl) -> bool {
    matches!(
        f,
        Csl::Until { .. } | Csl::TimedUntil { .. } | Csl::Steady { .. } | Csl::Reward { .. }
    )
}

/// The answer is acceptable: decided, or a number at most `eps` wide relatively.
fn acceptable(a: &Answer, eps: f64) -> bool {
    match a {
        Answer::Undecided => false,
        Answer::Bool(_) => true,
        Answer::Num(i) => i.relative_width() <= eps,
        Answer::Range(lo, hi) => lo.relative_width() <= eps && hi.relative_width() <= eps,
    }
}

/// The states of `rel` (every state when `None`) whose value in `vals` is not good enough:
/// an undecided boolean; a number with any width (at the `root`: wider than `eps`
/// relatively). With the width of each (an operator's bounds before its threshold).
fn wanting(
    vals: &Vals,
    numbers: Option<&Numbers>,
    rel: Option<&[bool]>,
    root: bool,
    eps: f64,
) -> (Vec<bool>, f64) {
    let n = vals.len();
    let mut need = vec![false; n];
    let mut widest = 0.0f64;
    for (i, slot) in need.iter_mut().enumerate() {
        if rel.is_some_and(|r| !r[i]) {
            continue;
        }
        let (bad, width) = match vals.get(i) {
            Bounded::Undecided => (true, numbers.map_or(1.0, |x| x.at(i).width())),
            Bounded::Within(lo, hi) => {
                let w = crate::props::Interval::new(lo, hi);
                (
                    if root {
                        w.relative_width() > eps
                    } else {
                        w.width() > 0.0
                    },
                    w.width(),
                )
            }
            Bounded::Exact(_) => (false, 0.0),
        };
        if bad {
            *slot = true;
            widest = widest.max(width);
        }
    }
    (need, widest)
}

/// Whether a computation narrowed a subformula: fewer states not good enough, or the widest
/// bounds among them at least halved.
fn narrowed(old: (usize, f64), new: (usize, f64)) -> bool {
    new.0 < old.0 || new.1 <= old.1 / 2.0
}

impl Checker<'_> {
    /// EvalError (thesis Figure 7.4): the value of `f` in every state, each subformula computed
    /// at its CurrentPrecision from its operands' CurrentResults, and set as its CurrentResult.
    /// Memoised: computed again only when its precision was reduced or an operand's result
    /// changed since.
    pub(super) fn eval_error(&mut self, f: &Csl) -> Result<Rc<Vals>, CheckError> {
        let mut inputs = Vec::new();
        let mut sub_ok = true;
        for c in children(f) {
            self.eval_error(c)?;
            let n = &self.memo.nodes[&key(c)];
            inputs.push(n.version);
            sub_ok &= n.sub_guaranteed;
        }
        let base = self.memo.base;
        let node = self
            .memo
            .nodes
            .entry(key(f))
            .or_insert_with(|| Node::new(base));
        if let Some(v) = &node.vals {
            if node.computed_eps == node.eps && node.inputs == inputs {
                return Ok(v.clone());
            }
        }
        let eps = node.eps;
        // this subformula's own figures; an estimate below it decides nothing here
        let outer = std::mem::replace(&mut self.stats, Stats::fresh(eps));
        self.stats.guaranteed = sub_ok;
        let saved = std::mem::replace(&mut self.options.epsilon, eps);
        self.stash = None;
        let got = self.eval_here(f);
        self.options.epsilon = saved;
        let mut own = std::mem::replace(&mut self.stats, outer);
        let vals = Rc::new(got?);
        own.guaranteed = own.unguaranteed.is_empty();
        let numbers = self.stash.take().map(Rc::new);
        self.memo.iterations += own.iterations;
        if is_operator(f) {
            self.memo.solves += 1;
        }
        let root = key(f) == self.memo.root;
        let node = self.memo.nodes.get_mut(&key(f)).expect("inserted");
        let (need, widest) = wanting(
            &vals,
            numbers.as_deref(),
            node.relevant.as_deref().map(Vec::as_slice),
            root,
            base,
        );
        let measure = (need.iter().filter(|&&b| b).count(), widest);
        node.stalled = node.measure.is_some_and(|old| !narrowed(old, measure));
        node.measure = Some(measure);
        if node.vals.as_deref() != Some(&*vals) {
            node.version += 1;
        }
        node.vals = Some(vals.clone());
        node.numbers = numbers;
        node.computed_eps = eps;
        node.inputs = inputs;
        node.sub_guaranteed = sub_ok && own.guaranteed;
        node.own = own;
        Ok(vals)
    }

    /// Eval (thesis Figure 7.4): the answer of `f` at the initial precision (EvalError), then
    /// refined ([`Checker::refine_top_down`] or [`Checker::refine_bottom_up`], the checker's
    /// order) until it is acceptable or nothing can be refined; the stats are those of the
    /// whole process.
    pub(super) fn eval_nested(&mut self, f: &Csl) -> Result<Answer, CheckError> {
        let mut answer = self.answer_once(f)?;
        let mut top = std::mem::take(&mut self.stats);
        while !acceptable(&answer, self.memo.base) {
            let snapshot = self.memo.nodes.clone();
            let logged = self.memo.refined.len();
            self.mark_root(f)?;
            let progressed = match self.order {
                RefineOrder::TopDown => self.refine_top_down(f),
                RefineOrder::BottomUp => self.refine_bottom_up(f),
            };
            if !progressed {
                break;
            }
            match self.answer_once(f) {
                Ok(a) => {
                    answer = a;
                    top = std::mem::take(&mut self.stats);
                }
                Err(CheckError::Solve(SolveError::NotConverged { .. })) => {
                    // the last answer stands; the operators reduced are not reduced again
                    self.memo.nodes = snapshot;
                    self.memo.refined.truncate(logged);
                    for k in std::mem::take(&mut self.memo.reduced) {
                        if let Some(n) = self.memo.nodes.get_mut(&k) {
                            n.exhausted = true;
                        }
                    }
                }
                Err(e) => return Err(e),
            }
            self.memo.reduced.clear();
        }
        self.stats = top;
        self.gather(f);
        Ok(answer)
    }

    /// Whether `f`'s epsilon can be reduced: an operator within the limits whose solves
    /// reached their epsilon.
    fn can_reduce(&self, f: &Csl) -> bool {
        let Some(n) = self.memo.nodes.get(&key(f)) else {
            return false;
        };
        is_operator(f)
            && !n.exhausted
            && n.reductions < MAX_REDUCTIONS
            && n.eps / REDUCE_FACTOR >= MIN_EPSILON
            && n.own.wide.is_empty()
    }

    /// "Reduce epsilon" for `f`, logged.
    fn reduce(&mut self, f: &Csl) {
        let text = show(f, &self.var_names());
        let n = self.memo.nodes.get_mut(&key(f)).expect("evaluated");
        n.eps /= REDUCE_FACTOR;
        n.reductions += 1;
        self.memo.refined.push(Refinement {
            subformula: text,
            epsilon: n.eps,
        });
        self.memo.reduced.push(key(f));
    }

    /// Some relevant state of `f` is not good enough (a subformula not memoised, the
    /// top-level filter, is treated as wanting).
    fn wants(&self, f: &Csl) -> bool {
        self.memo
            .nodes
            .get(&key(f))
            .is_none_or(|n| n.measure.is_none_or(|m| m.0 > 0))
    }

    /// RefineTopDown (thesis Figure 7.5), one step: reduce the epsilon of `f` while that
    /// narrows its bounds; once it does not (or cannot be reduced), refine its operands (when
    /// their refinement changes `f`'s result, `f` is computed again and, if that narrowed it,
    /// reduced again). Returns whether some epsilon was reduced.
    pub(super) fn refine_top_down(&mut self, f: &Csl) -> bool {
        if !self.wants(f) {
            return false;
        }
        let stalled = self.memo.nodes.get(&key(f)).is_some_and(|n| n.stalled);
        if !stalled && self.can_reduce(f) {
            self.reduce(f);
            return true;
        }
        let mut any = false;
        for c in children(f) {
            any |= self.refine_top_down(c);
        }
        any
    }

    /// RefineBottomUp (thesis Figure 7.5), one step: refine the operands of `f` first, as
    /// long as some of them can be refined (Figure 7.5 refines each operand until its own
    /// bounds are acceptable before it returns to `f`); then reduce the epsilon of `f`.
    /// Returns whether some epsilon was reduced.
    pub(super) fn refine_bottom_up(&mut self, f: &Csl) -> bool {
        if !self.wants(f) {
            return false;
        }
        let mut any = false;
        for c in children(f) {
            any |= self.refine_bottom_up(c);
        }
        if any {
            return true;
        }
        if self.can_reduce(f) {
            self.reduce(f);
            return true;
        }
        false
    }

    /// The figures of the answer: the current results' (operands first), every solver
    /// iteration and operator evaluation of the whole refinement, and the refinements.
    pub(super) fn gather(&mut self, f: &Csl) {
        self.gather_node(f);
        let st = &mut self.stats;
        st.iterations = self.memo.iterations;
        st.solves = self.memo.solves;
        st.refined = self.memo.refined.clone();
        st.refinements = st.refined.len();
        st.epsilon = self
            .memo
            .nodes
            .values()
            .map(|n| n.eps)
            .fold(self.memo.base, f64::min);
        st.order = self.order;
    }

    fn gather_node(&mut self, f: &Csl) {
        for c in children(f) {
            self.gather_node(c);
        }
        let Some(n) = self.memo.nodes.get(&key(f)) else {
            return;
        };
        let own = &n.own;
        let st = &mut self.stats;
        st.methods.extend(own.methods.iter().cloned());
        st.undecided += own.undecided;
        if own.bsccs.is_some() {
            st.bsccs = own.bsccs;
        }
        for b in &own.bounding {
            st.note_bounding(b);
        }
        for w in &own.wide {
            st.note_wide(w);
        }
        for u in &own.unguaranteed {
            st.note_unguaranteed(u);
        }
    }

    fn var_names(&self) -> Vec<String> {
        self.model.vars.iter().map(|v| v.name.clone()).collect()
    }
}
