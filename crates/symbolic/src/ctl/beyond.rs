//! Shortest witnesses beyond `EG` (thesis section 5.3.1): one lasso that also shows a nested
//! formula, for the two shapes the thesis discusses, asked for with a witness depth of at
//! least 2 ([`Checker::set_witness_depth`]):
//!
//! * `EF(r ∧ EG s)` (and the counterexample of `AG(r → AF t)`, `AG ¬(r ∧ EG s)`, ...: the
//!   liveness property "every request is eventually served" whose violation is starvation):
//!   a shortest lasso of the path formula `F(r ∧ G s)`, a marking of `r` from which every
//!   marking satisfies `s` (`EG s` under fairness: the cycle also meets every fairness set).
//!   Its two shapes (Figure 5.4) are both searched: (a) the stem reaches `r` and goes on within
//!   `EG s` to a knot on a cycle within `EG s`, `min TCD_stem(r) + TCD^triv_s(r, k) +
//!   TCD^cycle_s(k)`; (b) the stem reaches a knot `k` whose cycle within `EG s` holds a marking
//!   of `r`, `min TCD_stem(k) + CycleDist_s(k, r)`. One breadth-first search does both: its
//!   stem runs in phase 0 anywhere and enters phase 1 (no step) at a marking of `r ∧ EG s`,
//!   in phase 1 it stays within `EG s`; a phase-0 knot's cycle must meet `r` (shape b), a
//!   phase-1 knot's any cycle within `EG s` (shape a); under the maximal reading a deadlock of
//!   `EG s` reached in phase 1 ends a (finite) witness.
//! * `EG EF φ` (and the counterexample of `AF AG ψ`, `EG EF ¬ψ`): a shortest lasso whose cycle
//!   holds a marking of `φ`, `min TCD_stem(k) + CycleDist(k, p)` over knots `k` and `p ∈ φ`
//!   (Equation 5.2, the witness of `E GF φ`): every marking of it reaches `φ` along the lasso
//!   itself. Under the maximal reading a path ending in a deadlock of `φ` also shows it. When
//!   no such lasso exists (`E GF φ` fails where `EG EF φ` holds) the witness is the `EG` lasso.
//!
//! Both run the lasso search of module `fair_witness` (distance layers, exact).

use saturn_dd::NodeId;
use saturn_logic::StateFormula;

use super::fair_witness::LassoGoal;
use super::witness::Witness;
use super::{Checker, CtlError, Deadlocks};

/// What a witness shows beyond its outermost operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shows {
    /// The outermost operator only.
    Operator,
    /// `F(r ∧ G s)`: the marking at `from` satisfies `r`, and `s` holds from there on.
    UntilGlobally {
        from: usize,
        r: StateFormula,
        s: StateFormula,
    },
    /// `G F φ`: the lasso's cycle holds a marking of `φ`, at `at`.
    Recurrent { at: usize, phi: StateFormula },
}

impl Shows {
    pub fn name(&self) -> &'static str {
        match self {
            Shows::Operator => "operator",
            Shows::UntilGlobally { .. } => "F(r & G s)",
            Shows::Recurrent { .. } => "G F phi",
        }
    }
}

/// A nested shape of section 5.3.1, as formulas.
enum Shape {
    /// `EF(r ∧ EG s)`, every way the formula reads so (several `EG` conjuncts: the shortest
    /// witness over all of them).
    Starvation(Vec<(StateFormula, StateFormula)>),
    /// `EG φ'` with `φ' = EF φ`, whose satisfying set is the formula's.
    Recurrence { eg: StateFormula, phi: StateFormula },
}

fn not(f: &StateFormula) -> StateFormula {
    match f {
        StateFormula::Not(x) => x.as_ref().clone(),
        _ => StateFormula::Not(Box::new(f.clone())),
    }
}

fn conj(v: Vec<StateFormula>) -> StateFormula {
    if v.is_empty() {
        StateFormula::Const(true)
    } else {
        StateFormula::And(v)
    }
}

/// `x` as `EG s` (`¬AF t` is `EG ¬t`): `s`.
fn as_eg(x: &StateFormula) -> Option<StateFormula> {
    use StateFormula as F;
    match x {
        F::EG(s) => Some(s.as_ref().clone()),
        F::Not(y) => match y.as_ref() {
            F::AF(t) => Some(not(t)),
            _ => None,
        },
        _ => None,
    }
}

/// Every way to read `a` as `r ∧ EG s`: the other conjuncts and `s`, one per `EG` conjunct.
fn split_eg(a: &StateFormula) -> Vec<(Vec<StateFormula>, StateFormula)> {
    use StateFormula as F;
    match a {
        F::And(v) => (0..v.len())
            .filter_map(|i| {
                let s = as_eg(&v[i])?;
                let rest = v.iter().enumerate().filter(|&(j, _)| j != i);
                Some((rest.map(|(_, x)| x.clone()).collect(), s))
            })
            .collect(),
        F::Not(x) => split_eg_neg(x),
        _ => as_eg(a).map(|s| (Vec::new(), s)).into_iter().collect(),
    }
}

/// Every way to read `¬x` as `r ∧ EG s`.
fn split_eg_neg(x: &StateFormula) -> Vec<(Vec<StateFormula>, StateFormula)> {
    use StateFormula as F;
    match x {
        F::AF(t) => vec![(Vec::new(), not(t))],
        F::Or(v) => split_eg(&F::And(v.iter().map(not).collect())),
        F::Implies(p, q) => split_eg(&F::And(vec![p.as_ref().clone(), not(q)])),
        F::Not(y) => split_eg(y),
        _ => Vec::new(),
    }
}

/// `a` as `EF φ`: `φ`.
fn ef_arg(a: &StateFormula) -> Option<StateFormula> {
    use StateFormula as F;
    match a {
        F::EF(phi) => Some(phi.as_ref().clone()),
        F::Not(x) => match x.as_ref() {
            F::AG(psi) => Some(not(psi)),
            _ => None,
        },
        _ => None,
    }
}

/// The shape of the witness of `f` (an E-formula that holds, or an A-formula that fails).
fn shape(f: &StateFormula, holds: bool) -> Option<Shape> {
    use StateFormula as F;
    let starvation = |v: Vec<(Vec<StateFormula>, StateFormula)>| {
        let v: Vec<_> = v.into_iter().map(|(r, s)| (conj(r), s)).collect();
        (!v.is_empty()).then_some(Shape::Starvation(v))
    };
    match (f, holds) {
        (F::EF(a), true) => starvation(split_eg(a)),
        (F::AG(a), false) => starvation(split_eg_neg(a)),
        (F::EG(a), true) => ef_arg(a).map(|phi| Shape::Recurrence { eg: f.clone(), phi }),
        (F::AF(a), false) => {
            let na = not(a);
            ef_arg(&na).map(|phi| Shape::Recurrence {
                eg: F::EG(Box::new(na)),
                phi,
            })
        }
        _ => None,
    }
}

impl Checker<'_> {
    /// The witness of `f` of section 5.3.1 when `f` has one of its shapes (see the module
    /// comment) and holds (an E-formula) or fails (an A-formula); `None` otherwise.
    fn beyond_witness(
        &mut self,
        f: &StateFormula,
        holds: bool,
    ) -> Result<Option<(Witness, Shows)>, CtlError> {
        let Some(shape) = shape(f, holds) else {
            return Ok(None);
        };
        let mark = self.pins.len();
        let r = self.beyond(shape);
        self.pins.truncate(mark);
        r
    }

    fn beyond(&mut self, shape: Shape) -> Result<Option<(Witness, Shows)>, CtlError> {
        let fair = self.fair.clone();
        let maximal_ends = fair.is_empty() && self.deadlocks == Deadlocks::Maximal;
        match shape {
            Shape::Starvation(reads) => {
                let mut best: Option<(Witness, Shows)> = None;
                for (r, s) in reads {
                    let w = self.until_globally(r, s, maximal_ends)?;
                    if best.as_ref().is_none_or(|(b, _)| w.0.len() < b.len()) {
                        best = Some(w);
                    }
                }
                Ok(best)
            }
            Shape::Recurrence { eg, phi } => {
                let q = self.sat(&eg)?;
                self.pin(q);
                let p = self.sat(&phi)?;
                self.pin(p);
                let mut sets = vec![p];
                sets.extend(&fair);
                let goal = LassoGoal {
                    start_in_phase1: true,
                    free: q,
                    switch: NodeId::EMPTY,
                    within: q,
                    sets: [sets.clone(), sets],
                    maximal_ends,
                    knots: None,
                    ends: None,
                };
                match self.lasso_search(&goal)? {
                    Some(w) => {
                        let start = w.loop_start.unwrap_or(w.states.len() - 1);
                        let at = (start..w.states.len())
                            .find(|&i| self.member(p, &w.states[i]))
                            .ok_or_else(|| CtlError::Witness("the cycle misses phi".into()))?;
                        Ok(Some((w, Shows::Recurrent { at, phi })))
                    }
                    None => Ok(None),
                }
            }
        }
    }

    /// The shortest lasso of `F(r ∧ G s)` (the module comment's two-phase search).
    fn until_globally(
        &mut self,
        r: StateFormula,
        s: StateFormula,
        maximal_ends: bool,
    ) -> Result<(Witness, Shows), CtlError> {
        let fair = self.fair.clone();
        let rs = self.sat(&r)?;
        self.pin(rs);
        let c = self.sat(&StateFormula::EG(Box::new(s.clone())))?;
        self.pin(c);
        let switch = self.and(rs, c);
        let mut sets0 = vec![rs];
        sets0.extend(&fair);
        let goal = LassoGoal {
            start_in_phase1: false,
            free: self.rch,
            switch,
            within: c,
            sets: [sets0, fair],
            maximal_ends,
            knots: None,
            ends: None,
        };
        let Some(w) = self.lasso_search(&goal)? else {
            let e = "no lasso of F(r & G s) where EF(r & EG s) holds";
            return Err(CtlError::Witness(e.into()));
        };
        let from = (0..w.states.len())
            .find(|&i| {
                self.member(rs, &w.states[i])
                    && w.states[i..].iter().all(|t| self.member(c, t))
                    && w.loop_start
                        .is_none_or(|l| w.states[l..].iter().all(|t| self.member(c, t)))
            })
            .ok_or_else(|| CtlError::Witness("the lasso does not show F(r & G s)".into()))?;
        Ok((w, Shows::UntilGlobally { from, r, s }))
    }
}

impl Checker<'_> {
    /// Witnesses of nested formulas explained to this depth from now on: 1 (the default) the
    /// outermost temporal operator ([`Checker::witness`]); 2 or more also the nested formula
    /// of the shapes of section 5.3.1 (see the module comment), in the same lasso.
    pub fn set_witness_depth(&mut self, depth: usize) {
        self.witness_depth = depth.max(1);
    }

    /// The witness of `f` at the checker's witness depth and what it shows: with a depth of
    /// at least 2 and `f` of a shape of section 5.3.1, its shortest witness of that shape;
    /// otherwise [`Checker::witness`] (showing the outermost operator). Replayed on the model.
    pub fn explained_witness(
        &mut self,
        f: &StateFormula,
    ) -> Result<Option<(Witness, Shows)>, CtlError> {
        if self.witness_depth >= 2 {
            let holds = self.holds(f)?;
            if let Some((w, shows)) = self.beyond_witness(f, holds)? {
                self.replay(&w).map_err(CtlError::Witness)?;
                return Ok(Some((w, shows)));
            }
        }
        Ok(self.witness(f)?.map(|w| (w, Shows::Operator)))
    }
}
