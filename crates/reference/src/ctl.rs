//! Explicit-state CTL model checking over the reachability graph of a Petri net: the test oracle
//! of the symbolic CTL engine. Every operator is the classic labelling algorithm (backward
//! search for EU, a successor-counting greatest fixpoint for EG, SCCs for fair EG), written for
//! clarity, not speed.
//!
//! # Paths that end in a deadlock
//! [`Deadlocks::Maximal`] (the contest's reading, the default): paths are maximal, a path that
//! reaches a deadlock stops there. At a deadlock `EX φ` is false, `AX φ` true, `EG φ` and `AF φ`
//! reduce to `φ`; `E[φ U ψ]` and `A[φ U ψ]` need `ψ` somewhere on the path.
//! [`Deadlocks::SelfLoop`]: every deadlock loops forever (the textbook reading of a total
//! relation); only `EX` and `AX` at deadlocks differ from the maximal reading
//! (`EX φ = AX φ = φ` there).
//!
//! # Weak fairness
//! With fairness sets `F_1..F_n` (state formulas, [`CtlChecker::with_fairness`]), `EG φ` holds in
//! the states with an *infinite* φ-path that visits every `F_i` infinitely often (thesis Claim 3).
//! Under [`Deadlocks::Maximal`] a finite path is never fair; under [`Deadlocks::SelfLoop`] the
//! loop of a deadlock is a cycle. `AF` and `AU` follow through their dualities with `EG`
//! (`AF φ = ¬EG ¬φ`, `A[φ U ψ] = ¬E[¬ψ U ¬φ∧¬ψ] ∧ ¬EG ¬ψ`), as the symbolic engine computes
//! them; the other operators ignore fairness.

use saturn_logic::{LinExpr, ResolvedQuery, StateFormula};
use saturn_model::PetriNet;

use crate::explore::ExplicitStateSpace;
use crate::scc::{Graph, StateSet};

/// What happens on a path that reaches a deadlock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deadlocks {
    /// Maximal finite paths: the path stops at the deadlock (the contest's semantics).
    #[default]
    Maximal,
    /// The deadlock loops forever.
    SelfLoop,
}

/// A formula the explicit checker does not evaluate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CtlError {
    /// `A`/`E` over a path formula that is not one CTL operator (LTL, CTL*).
    #[error(
        "not a CTL formula: a path quantifier over a path formula that is not one CTL operator"
    )]
    NotCtl,
}

/// The answer to a query at the initial state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A formula's truth in the initial marking.
    Bool(bool),
    /// An UpperBounds query: the maximum of the sum over the reachable markings.
    Bound(i128),
}

/// An explicit CTL model checker for one explored net.
pub struct CtlChecker<'a> {
    net: &'a PetriNet,
    markings: &'a [Vec<u64>],
    graph: Graph,
    deadlocks: Deadlocks,
    /// The fairness sets, evaluated; empty: no fairness.
    fairness: Vec<StateSet>,
}

impl<'a> CtlChecker<'a> {
    /// A checker over the explored reachability graph `space` of `net` (state 0 initial).
    pub fn new(
        net: &'a PetriNet,
        space: &'a ExplicitStateSpace<Vec<u64>>,
        deadlocks: Deadlocks,
    ) -> Self {
        CtlChecker {
            net,
            markings: &space.markings,
            graph: Graph::new(space),
            deadlocks,
            fairness: Vec::new(),
        }
    }

    /// Evaluate `EG` (and through it `AF`, `AU`) under weak fairness: every fair path visits
    /// each of these state formulas infinitely often. The formulas are evaluated without
    /// fairness.
    pub fn with_fairness(mut self, sets: &[StateFormula]) -> Result<Self, CtlError> {
        self.fairness.clear();
        let sets = sets
            .iter()
            .map(|f| self.sat(f))
            .collect::<Result<Vec<_>, _>>()?;
        self.fairness = sets;
        Ok(self)
    }

    /// The reachability graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }
    /// The number of reachable states.
    pub fn num_states(&self) -> usize {
        self.markings.len()
    }
    /// The deadlock semantics in use.
    pub fn deadlocks(&self) -> Deadlocks {
        self.deadlocks
    }

    /// Answer a resolved contest query at the initial marking.
    pub fn check(&self, q: &ResolvedQuery) -> Result<Verdict, CtlError> {
        match q {
            ResolvedQuery::Formula(f) => self.holds(f).map(Verdict::Bool),
            ResolvedQuery::Bound(e) => Ok(Verdict::Bound(upper_bound(self.markings, e))),
        }
    }

    /// Does `f` hold in the initial marking?
    pub fn holds(&self, f: &StateFormula) -> Result<bool, CtlError> {
        Ok(self.sat(f)?[0])
    }

    /// The set of reachable states satisfying `f`.
    pub fn sat(&self, f: &StateFormula) -> Result<StateSet, CtlError> {
        use StateFormula as F;
        let n = self.num_states();
        Ok(match f {
            F::Const(b) => vec![*b; n],
            F::Deadlock => self.deadlock_set(),
            F::Atom(a) => self.markings.iter().map(|m| a.eval(m)).collect(),
            F::Enabled(ts) => self.enabled_set(ts),
            F::Not(a) => not(&self.sat(a)?),
            F::And(v) => {
                let mut acc = vec![true; n];
                for a in v {
                    and_in(&mut acc, &self.sat(a)?);
                }
                acc
            }
            F::Or(v) => {
                let mut acc = vec![false; n];
                for a in v {
                    or_in(&mut acc, &self.sat(a)?);
                }
                acc
            }
            F::Implies(a, b) => {
                let mut acc = not(&self.sat(a)?);
                or_in(&mut acc, &self.sat(b)?);
                acc
            }
            F::Iff(a, b) => {
                let (a, b) = (self.sat(a)?, self.sat(b)?);
                a.iter().zip(&b).map(|(x, y)| x == y).collect()
            }
            F::EX(a) => self.ex(&self.sat(a)?),
            F::AX(a) => self.ax(&self.sat(a)?),
            F::EF(a) => self.eu(&vec![true; n], &self.sat(a)?),
            F::AG(a) => not(&self.eu(&vec![true; n], &not(&self.sat(a)?))),
            F::EG(a) => self.eg(&self.sat(a)?),
            F::AF(a) => self.af(&self.sat(a)?),
            F::EU(a, b) => self.eu(&self.sat(a)?, &self.sat(b)?),
            F::AU(a, b) => self.au(&self.sat(a)?, &self.sat(b)?),
            F::A(_) | F::E(_) => return Err(CtlError::NotCtl),
        })
    }

    /// The deadlock states.
    pub fn deadlock_set(&self) -> StateSet {
        (0..self.num_states())
            .map(|s| self.graph.is_deadlock(s))
            .collect()
    }

    /// The states enabling at least one of `transitions`.
    pub fn enabled_set(&self, transitions: &[usize]) -> StateSet {
        self.markings
            .iter()
            .map(|m| transitions.iter().any(|&t| self.net.enabled(t, m)))
            .collect()
    }

    /// `EX a`.
    pub fn ex(&self, a: &[bool]) -> StateSet {
        (0..self.num_states())
            .map(|s| {
                let succ = self.graph.succ(s);
                if succ.is_empty() {
                    self.deadlocks == Deadlocks::SelfLoop && a[s]
                } else {
                    succ.iter().any(|&t| a[t as usize])
                }
            })
            .collect()
    }

    /// `AX a`.
    pub fn ax(&self, a: &[bool]) -> StateSet {
        (0..self.num_states())
            .map(|s| {
                let succ = self.graph.succ(s);
                if succ.is_empty() {
                    self.deadlocks == Deadlocks::Maximal || a[s]
                } else {
                    succ.iter().all(|&t| a[t as usize])
                }
            })
            .collect()
    }

    /// `E[a U b]`: the least fixpoint `Z = b ∪ (a ∩ EX Z)`, by backward search from `b`.
    pub fn eu(&self, a: &[bool], b: &[bool]) -> StateSet {
        let mut z = b.to_vec();
        let mut queue: Vec<u32> = (0..self.num_states() as u32)
            .filter(|&s| b[s as usize])
            .collect();
        while let Some(t) = queue.pop() {
            for &p in self.graph.pred(t as usize) {
                let p = p as usize;
                if !z[p] && a[p] {
                    z[p] = true;
                    queue.push(p as u32);
                }
            }
        }
        z
    }

    /// The length of a shortest path from each state to `b` through `a`-states (`a` on every
    /// state before the last), `None` outside `E[a U b]`: what a shortest EF / EU witness must
    /// achieve. By backward breadth-first layers.
    pub fn eu_distances(&self, a: &[bool], b: &[bool]) -> Vec<Option<u32>> {
        let mut dist: Vec<Option<u32>> = b.iter().map(|&x| x.then_some(0)).collect();
        let mut layer: Vec<u32> = (0..self.num_states() as u32)
            .filter(|&s| b[s as usize])
            .collect();
        let mut d = 0;
        while !layer.is_empty() {
            d += 1;
            let mut next = Vec::new();
            for &t in &layer {
                for &p in self.graph.pred(t as usize) {
                    let p = p as usize;
                    if dist[p].is_none() && a[p] {
                        dist[p] = Some(d);
                        next.push(p as u32);
                    }
                }
            }
            layer = next;
        }
        dist
    }

    /// The reachable markings, indexed like the state sets.
    pub fn markings(&self) -> &[Vec<u64>] {
        self.markings
    }

    /// `A[a U b]`: with fairness by its duality with `EG`; otherwise the least fixpoint
    /// `Z = b ∪ (a ∩ ¬deadlock ∩ AX Z)` (a deadlock outside `b` ends a path that never meets
    /// `b`, in both deadlock readings), by counting the successors not yet in `Z`.
    pub fn au(&self, a: &[bool], b: &[bool]) -> StateSet {
        if !self.fairness.is_empty() {
            let not_b = not(b);
            let mut escape = self.eu(&not_b, &and(&not(a), &not_b));
            or_in(&mut escape, &self.eg(&not_b));
            return not(&escape);
        }
        let n = self.num_states();
        let mut missing: Vec<u32> = (0..n).map(|s| self.graph.succ(s).len() as u32).collect();
        let mut z = b.to_vec();
        let mut queue: Vec<u32> = (0..n as u32).filter(|&s| b[s as usize]).collect();
        while let Some(t) = queue.pop() {
            for &p in self.graph.pred(t as usize) {
                let p = p as usize;
                if z[p] {
                    continue;
                }
                missing[p] -= 1;
                if missing[p] == 0 && a[p] {
                    z[p] = true;
                    queue.push(p as u32);
                }
            }
        }
        z
    }

    /// `AF a = ¬EG ¬a` (at a deadlock under the maximal reading: `a`).
    pub fn af(&self, a: &[bool]) -> StateSet {
        not(&self.eg(&not(a)))
    }

    /// `EG a`: under fairness [`CtlChecker::eg_fair`]; otherwise the greatest fixpoint
    /// `Z = a ∩ (EX Z ∪ deadlock)`, by removing the states of `a` with no successor left in `Z`.
    /// (Both deadlock readings agree: a deadlock in `a` stays.)
    pub fn eg(&self, a: &[bool]) -> StateSet {
        if !self.fairness.is_empty() {
            return self.eg_fair(a, &self.fairness);
        }
        let n = self.num_states();
        let mut z = a.to_vec();
        let mut left: Vec<u32> = (0..n)
            .map(|s| {
                self.graph
                    .succ(s)
                    .iter()
                    .filter(|&&t| a[t as usize])
                    .count() as u32
            })
            .collect();
        let mut queue: Vec<u32> = (0..n as u32)
            .filter(|&s| {
                z[s as usize] && left[s as usize] == 0 && !self.graph.is_deadlock(s as usize)
            })
            .collect();
        queue.iter().for_each(|&s| z[s as usize] = false);
        while let Some(t) = queue.pop() {
            for &p in self.graph.pred(t as usize) {
                let p = p as usize;
                if !z[p] {
                    continue;
                }
                left[p] -= 1;
                if left[p] == 0 {
                    z[p] = false;
                    queue.push(p as u32);
                }
            }
        }
        z
    }

    /// `EG a` under weak fairness `fair`: the states with an infinite `a`-path visiting every set
    /// of `fair` infinitely often, i.e. `E[a U c]` where `c` holds the nontrivial SCCs of the
    /// subgraph induced by `a` that meet every fair set (a deadlock's loop counts as a cycle
    /// under [`Deadlocks::SelfLoop`]). With no fair set: the states with an infinite `a`-path.
    pub fn eg_fair(&self, a: &[bool], fair: &[StateSet]) -> StateSet {
        let loops = self.deadlocks == Deadlocks::SelfLoop;
        let mut core = vec![false; self.num_states()];
        for comp in self.graph.sccs(Some(a)) {
            if self.graph.is_nontrivial(&comp, loops)
                && fair.iter().all(|f| comp.iter().any(|&s| f[s as usize]))
            {
                comp.iter().for_each(|&s| core[s as usize] = true);
            }
        }
        self.eu(a, &core)
    }
}

/// The maximum of `expr` over `markings` (the contest's UpperBounds); `expr.constant` if there
/// is no marking.
pub fn upper_bound(markings: &[Vec<u64>], expr: &LinExpr) -> i128 {
    markings
        .iter()
        .map(|m| expr.eval(m))
        .max()
        .unwrap_or(expr.constant as i128)
}

/// Complement of a state set.
pub fn not(a: &[bool]) -> StateSet {
    a.iter().map(|x| !x).collect()
}
/// Intersection of two state sets.
pub fn and(a: &[bool], b: &[bool]) -> StateSet {
    a.iter().zip(b).map(|(x, y)| *x && *y).collect()
}
fn and_in(acc: &mut [bool], b: &[bool]) {
    acc.iter_mut().zip(b).for_each(|(x, y)| *x &= *y);
}
fn or_in(acc: &mut [bool], b: &[bool]) {
    acc.iter_mut().zip(b).for_each(|(x, y)| *x |= *y);
}
