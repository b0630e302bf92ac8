//! LTL formulas that are CTL formulas in disguise: the fast path of the contest tools, where
//! `A φ` is answered by the CTL engines (saturation, no automaton, no product).
//!
//! For every path formula `φ`, `A G φ = AG A φ` and `A X φ = AX A φ` (a position of a path is
//! a reachable state, and every path from it continues some path from the initial state);
//! `A(φ ∧ ψ) = A φ ∧ A ψ`; `A(s ∨ φ) = s ∨ A φ` for a state formula `s`; and for state formulas
//! `A F s = AF s`, `A[s U t] = A[s U t]`. `¬` is pushed inwards first (`¬F = G¬`, `¬G = F¬`,
//! `¬X = X¬`). Anything else (`F` or `U` over a temporal formula, `F G`, a disjunction of two
//! temporal formulas) is not translated. So `G F p` becomes `AG AF p` and `G (p → X q)`
//! becomes `AG(¬p ∨ AX q)`.
//!
//! The deadlock readings carry over: [`Deadlocks::Stutter`] is CTL with a deadlock looping on
//! itself, [`Deadlocks::Maximal`] is CTL over maximal paths, where `X` has no translation (at a
//! deadlock the LTL `X φ` is false, CTL's `AX φ` true).

use saturn_logic::{PathFormula, StateFormula};

use crate::formula::Deadlocks;

/// The CTL formula equivalent to `A φ` under `deadlocks`, when `φ` is in the fragment above.
pub fn ctl_equivalent(phi: &PathFormula, deadlocks: Deadlocks) -> Option<StateFormula> {
    all_paths(phi, true, deadlocks)
}

/// `φ` (or `¬φ` when `pos` is false) as a state formula, when it has no temporal operator.
fn state_of(phi: &PathFormula, pos: bool) -> Option<StateFormula> {
    use PathFormula as P;
    use StateFormula as S;
    let s = match phi {
        P::State(s) => s.clone(),
        P::Not(a) => return state_of(a, !pos),
        P::And(v) => S::And(v.iter().map(|a| state_of(a, true)).collect::<Option<_>>()?),
        P::Or(v) => S::Or(v.iter().map(|a| state_of(a, true)).collect::<Option<_>>()?),
        P::Implies(a, b) => S::Implies(Box::new(state_of(a, true)?), Box::new(state_of(b, true)?)),
        P::Iff(a, b) => S::Iff(Box::new(state_of(a, true)?), Box::new(state_of(b, true)?)),
        P::X(_) | P::F(_) | P::G(_) | P::U(..) => return None,
    };
    Some(if pos { s } else { S::Not(Box::new(s)) })
}

/// `A φ` (`A ¬φ` when `pos` is false) as CTL.
fn all_paths(phi: &PathFormula, pos: bool, dl: Deadlocks) -> Option<StateFormula> {
    use PathFormula as P;
    use StateFormula as S;
    if let Some(s) = state_of(phi, pos) {
        return Some(s);
    }
    let b = Box::new;
    match (phi, pos) {
        (P::Not(a), _) => all_paths(a, !pos, dl),
        (P::And(v), true) => Some(S::And(
            v.iter()
                .map(|a| all_paths(a, true, dl))
                .collect::<Option<_>>()?,
        )),
        (P::Or(v), false) => Some(S::And(
            v.iter()
                .map(|a| all_paths(a, false, dl))
                .collect::<Option<_>>()?,
        )),
        (P::Or(v), true) => disjunction(v.iter().map(|a| (a, true)), dl),
        (P::And(v), false) => disjunction(v.iter().map(|a| (a, false)), dl),
        (P::Implies(a, c), true) => disjunction([(a.as_ref(), false), (c.as_ref(), true)], dl),
        (P::Implies(a, c), false) => Some(S::And(vec![
            all_paths(a, true, dl)?,
            all_paths(c, false, dl)?,
        ])),
        (P::X(a), _) if dl == Deadlocks::Stutter => Some(S::AX(b(all_paths(a, pos, dl)?))),
        (P::G(a), true) | (P::F(a), false) => Some(S::AG(b(all_paths(a, pos, dl)?))),
        (P::F(a), true) | (P::G(a), false) => Some(S::AF(b(state_of(a, pos)?))),
        (P::U(a, c), true) => Some(S::AU(b(state_of(a, true)?), b(state_of(c, true)?))),
        _ => None,
    }
}

/// `A(φ_1 ∨ ... ∨ φ_n)` when at most one disjunct has a temporal operator.
fn disjunction<'a>(
    parts: impl IntoIterator<Item = (&'a PathFormula, bool)>,
    dl: Deadlocks,
) -> Option<StateFormula> {
    let mut out = Vec::new();
    let mut temporal = None;
    for (a, pos) in parts {
        match state_of(a, pos) {
            Some(s) => out.push(s),
            None if temporal.is_none() => temporal = Some((a, pos)),
            None => return None,
        }
    }
    if let Some((a, pos)) = temporal {
        out.push(all_paths(a, pos, dl)?);
    }
    Some(StateFormula::Or(out))
}
