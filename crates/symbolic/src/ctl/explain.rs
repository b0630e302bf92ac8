//! Witnesses of nested formulas, explained to a depth (`--witness-depth N`, issue 47).
//!
//! Depth 1 is the witness of the formula's outermost temporal operator ([`Checker::witness`]).
//! At depth `N >= 2` the witness is the shape of thesis section 5.3.1 when the formula has
//! one (module `beyond`: it shows the nested `EG` of `EF(r ∧ EG s)`, the nested `EF` of `EG EF
//! φ`), and every nested formula the witness relies on at one of its markings is explained
//! from that marking at depth `N - 1` (for the formulas one level further down, inside a shape,
//! `N - 2`):
//! * `EX a` (a failing `AX a`): `a` (`¬a`) at step 1;
//! * `EF a`, `E[b U a]` (a failing `AG ¬a`): `a` at the last marking;
//! * `EG a` (a failing `AF ¬a`): `a` at the knot (the marking the lasso returns to; the last
//!   marking of a path ending in a deadlock): `a` holds at every marking, one is explained;
//! * a failing `A[a U b]`: `¬b` at the knot of its lasso, or `¬a ∧ ¬b` at the end of its path;
//! * `F(r ∧ G s)`: `r` at the marking it names, `s` at the knot; `G F φ`: `φ` where the cycle
//!   meets it.
//!
//! A nested formula is taken apart by its boolean connectives into the temporal subformulas that
//! make it true there (a conjunction: all of them; a disjunction: the first that holds; a
//! negation swaps the two), and each E-formula that holds or A-formula that fails there gets
//! its own witness (an E-formula that fails or an A-formula that holds has none: it is
//! universal). The witnesses from a marking are those of the checker with that marking as its
//! initial state (the same methods, shortest, replayed on the model).

use saturn_logic::StateFormula;

use super::beyond::Shows;
use super::witness::Witness;
use super::{Checker, CtlError};

/// A witness, what it shows, and the explanations of the nested formulas it relies on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub witness: Witness,
    pub shows: Shows,
    /// `(step, formula, explanation)`: the formula (an E-formula that holds, or an A-formula
    /// that fails, at the witness's marking `step`) and its own witness from there.
    pub nested: Vec<(usize, StateFormula, Explained)>,
}

fn not(f: &StateFormula) -> StateFormula {
    StateFormula::Not(Box::new(f.clone()))
}

/// The nested formulas the witness `w` of `f` (which holds: `holds`, or fails) relies on:
/// `(step, formula, levels below f)`.
fn obligations(
    f: &StateFormula,
    holds: bool,
    w: &Witness,
    shows: &Shows,
) -> Vec<(usize, StateFormula, usize)> {
    use StateFormula as F;
    let last = w.states.len() - 1;
    let knot = w.loop_start.unwrap_or(last);
    match shows {
        Shows::UntilGlobally { from, r, s } => {
            return vec![(*from, r.clone(), 1), (knot, s.clone(), 2)]
        }
        Shows::Recurrent { at, phi } => return vec![(*at, phi.clone(), 2)],
        Shows::Operator => {}
    }
    let one = |i: usize, g: StateFormula| vec![(i, g, 1)];
    match (f, holds) {
        (F::EX(a), true) => one(1, a.as_ref().clone()),
        (F::AX(a), false) => one(1, not(a)),
        (F::EF(a), true) | (F::EU(_, a), true) => one(last, a.as_ref().clone()),
        (F::AG(a), false) => one(last, not(a)),
        (F::EG(a), true) => one(knot, a.as_ref().clone()),
        (F::AF(a), false) => one(knot, not(a)),
        (F::AU(a, b), false) if w.loop_start.is_some() => one(knot, not(b)),
        (F::AU(a, b), false) => one(last, F::And(vec![not(a), not(b)])),
        _ => Vec::new(),
    }
}

impl Checker<'_> {
    /// The witness of `f` at the initial state explained to depth `depth` (at least 1; see the
    /// module comment); `None` when `f` has no witness (an E-formula that fails, an A-formula
    /// that holds, a formula without a temporal operator at the top).
    pub fn explain(
        &mut self,
        f: &StateFormula,
        depth: usize,
    ) -> Result<Option<Explained>, CtlError> {
        let saved = self.witness_depth;
        self.witness_depth = depth.max(1);
        let r = self.explained_witness(f);
        self.witness_depth = saved;
        let Some((witness, shows)) = r? else {
            return Ok(None);
        };
        let holds = self.holds(f)?;
        let mut nested = Vec::new();
        for (step, g, below) in obligations(f, holds, &witness, &shows) {
            if depth <= below {
                continue;
            }
            let at = witness.states[step].clone();
            let mut parts = Vec::new();
            self.temporal_parts(&g, &at, true, &mut parts)?;
            for t in parts {
                if let Some(e) = self.explain_from(&at, &t, depth - below)? {
                    nested.push((step, t, e));
                }
            }
        }
        Ok(Some(Explained {
            witness,
            shows,
            nested,
        }))
    }

    /// [`Checker::explain`] with the state `s` as the initial state.
    fn explain_from(
        &mut self,
        s: &[u32],
        f: &StateFormula,
        depth: usize,
    ) -> Result<Option<Explained>, CtlError> {
        let mark = self.pins.len();
        let init = self.init;
        self.pin(init);
        let initial = std::mem::replace(&mut self.initial, s.to_vec());
        self.init = self.reach.state_set(s);
        let r = self.explain(f, depth);
        self.initial = initial;
        self.init = init;
        self.pins.truncate(mark);
        r
    }

    /// The temporal subformulas of `g` that make it true (`positive`) or false at `s` and have
    /// a witness there (see the module comment), into `out`.
    fn temporal_parts(
        &mut self,
        g: &StateFormula,
        s: &[u32],
        positive: bool,
        out: &mut Vec<StateFormula>,
    ) -> Result<(), CtlError> {
        use StateFormula as F;
        match g {
            F::Not(x) => self.temporal_parts(x, s, !positive, out)?,
            F::And(v) | F::Or(v) => {
                // all of a true conjunction (a false disjunction), else the first member that
                // decides it
                let all = positive == matches!(g, F::And(_));
                for x in v {
                    let hx = self.holds_at(x, s)?;
                    if all {
                        self.temporal_parts(x, s, positive, out)?;
                    } else if hx == positive {
                        return self.temporal_parts(x, s, positive, out);
                    }
                }
            }
            F::Implies(a, b) => {
                let or = F::Or(vec![not(a), b.as_ref().clone()]);
                self.temporal_parts(&or, s, positive, out)?;
            }
            F::EX(_) | F::EF(_) | F::EG(_) | F::EU(..) if positive => out.push(g.clone()),
            F::AX(_) | F::AF(_) | F::AG(_) | F::AU(..) if !positive => out.push(g.clone()),
            _ => {}
        }
        Ok(())
    }

    /// Does `g` hold at the reachable state `s`?
    fn holds_at(&mut self, g: &StateFormula, s: &[u32]) -> Result<bool, CtlError> {
        let set = self.sat(g)?;
        Ok(self.member(set, s))
    }
}
