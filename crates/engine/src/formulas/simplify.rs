//! CTL formulas simplified by what the state equation proves (issue 49, item 3): a state
//! formula `g` that no marking of the relaxation meets ([`state_equation::unreachable`]) is
//! false in every reachable marking, and one whose negation none meets is true in all of them.
//! Since a CTL formula is evaluated on reachable markings only, and every marking reachable
//! from one is reachable, a subformula may be replaced by what holds of it in all of them:
//! `EF g` and `AF g` are false where `g` is never met, `AG g` and `EG g` true where `¬g` is
//! never met (every reachable marking starts a maximal path of reachable markings), and the
//! constants fold through the operators. A formula that folds to a constant, or to a formula
//! without temporal operators (then its value in the initial marking), is decided without
//! the state space, as the contest's leading tools decide many of theirs.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use saturn_logic::StateFormula;
use saturn_model::PetriNet;

use super::state_equation::{outside, unreachable, widen, Incidence};

/// What the state equation proves of state formulas, memoised, within a time budget.
pub struct Facts<'a> {
    net: &'a PetriNet,
    inc: &'a Incidence,
    until: Instant,
    stop: &'a dyn Fn() -> bool,
    /// `g` → no reachable marking meets `g` (as far as the relaxation shows).
    never: HashMap<StateFormula, bool>,
    /// Linear programs are solved (else only the places' bounds are used: see [`outside`]).
    pub programs: bool,
}

impl<'a> Facts<'a> {
    /// Facts about `net`, proven within `time` in all (and until `stop`).
    pub fn new(
        net: &'a PetriNet,
        inc: &'a Incidence,
        time: Duration,
        stop: &'a dyn Fn() -> bool,
    ) -> Facts<'a> {
        Facts {
            net,
            inc,
            until: Instant::now() + time,
            stop,
            never: HashMap::new(),
            programs: true,
        }
    }

    /// Is `g` (free of temporal operators) shown to hold in no reachable marking?
    fn never(&mut self, g: &StateFormula) -> bool {
        if let Some(&b) = self.never.get(g) {
            return b;
        }
        let dnf = widen(self.net, g, false);
        if dnf.iter().all(|rows| outside(rows, &self.inc.bounds)) {
            self.never.insert(g.clone(), true);
            return true;
        }
        if !self.programs {
            return false;
        }
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() || (self.stop)() {
            return false;
        }
        let b = unreachable(self.inc, &dnf, left, self.stop);
        self.never.insert(g.clone(), b);
        b
    }

    /// `g` as a constant when the state equation shows it false (or true) in every reachable
    /// marking.
    fn constant(&mut self, g: StateFormula) -> StateFormula {
        if self.never(&g) {
            return StateFormula::Const(false);
        }
        let not = StateFormula::Not(Box::new(g));
        if self.never(&not) {
            return StateFormula::Const(true);
        }
        let StateFormula::Not(g) = not else {
            unreachable!()
        };
        *g
    }
}

/// Has `f` no temporal operator?
pub fn state_only(f: &StateFormula) -> bool {
    use StateFormula as S;
    match f {
        S::Const(_) | S::Deadlock | S::Atom(_) | S::Enabled(_) => true,
        S::Not(a) => state_only(a),
        S::And(v) | S::Or(v) => v.iter().all(state_only),
        S::Implies(a, b) | S::Iff(a, b) => state_only(a) && state_only(b),
        _ => false,
    }
}

fn konst(f: &StateFormula) -> Option<bool> {
    match f {
        StateFormula::Const(b) => Some(*b),
        _ => None,
    }
}

/// `f` simplified by `facts`: equivalent to `f` in every reachable marking.
pub fn simplify(f: &StateFormula, facts: &mut Facts) -> StateFormula {
    use StateFormula as S;
    let bx = Box::new;
    let g = match f {
        S::Const(_) => return f.clone(),
        S::Deadlock | S::Atom(_) | S::Enabled(_) => f.clone(),
        S::Not(a) => match simplify(a, facts) {
            S::Const(b) => S::Const(!b),
            a => S::Not(bx(a)),
        },
        S::And(v) | S::Or(v) => {
            let and = matches!(f, S::And(_));
            let mut kept = Vec::with_capacity(v.len());
            for a in v {
                match simplify(a, facts) {
                    // false in a conjunction, true in a disjunction
                    S::Const(b) if b != and => return S::Const(b),
                    S::Const(_) => {}
                    a => kept.push(a),
                }
            }
            match kept.len() {
                0 => S::Const(and),
                1 => kept.pop().expect("one"),
                _ if and => S::And(kept),
                _ => S::Or(kept),
            }
        }
        S::Implies(a, b) => match (simplify(a, facts), simplify(b, facts)) {
            (S::Const(false), _) | (_, S::Const(true)) => S::Const(true),
            (S::Const(true), b) => b,
            (a, S::Const(false)) => S::Not(bx(a)),
            (a, b) => S::Implies(bx(a), bx(b)),
        },
        S::Iff(a, b) => match (simplify(a, facts), simplify(b, facts)) {
            (S::Const(x), S::Const(y)) => S::Const(x == y),
            (S::Const(true), o) | (o, S::Const(true)) => o,
            (S::Const(false), o) | (o, S::Const(false)) => S::Not(bx(o)),
            (a, b) => S::Iff(bx(a), bx(b)),
        },
        S::EX(a) => match simplify(a, facts) {
            S::Const(false) => S::Const(false),
            a => S::EX(bx(a)),
        },
        S::AX(a) => match simplify(a, facts) {
            S::Const(true) => S::Const(true),
            a => S::AX(bx(a)),
        },
        S::EF(a) | S::AF(a) => {
            let a = simplify(a, facts);
            if let Some(b) = konst(&a) {
                return S::Const(b);
            }
            if state_only(&a) && facts.never(&a) {
                return S::Const(false);
            }
            if matches!(f, S::EF(_)) {
                S::EF(bx(a))
            } else {
                S::AF(bx(a))
            }
        }
        S::AG(a) | S::EG(a) => {
            let a = simplify(a, facts);
            if let Some(b) = konst(&a) {
                return S::Const(b);
            }
            if state_only(&a) && facts.never(&S::Not(bx(a.clone()))) {
                return S::Const(true);
            }
            if matches!(f, S::AG(_)) {
                S::AG(bx(a))
            } else {
                S::EG(bx(a))
            }
        }
        S::EU(a, b) | S::AU(a, b) => {
            let e = matches!(f, S::EU(..));
            let (a, b) = (simplify(a, facts), simplify(b, facts));
            match (&a, &b) {
                (_, S::Const(c)) => return S::Const(*c),
                (S::Const(false), _) => return b,
                _ => {}
            }
            if state_only(&b) && facts.never(&b) {
                return S::Const(false);
            }
            if e {
                S::EU(bx(a), bx(b))
            } else {
                S::AU(bx(a), bx(b))
            }
        }
        // path formulas (LTL, CTL*) are left whole
        S::A(_) | S::E(_) => return f.clone(),
    };
    if state_only(&g) && konst(&g).is_none() {
        facts.constant(g)
    } else {
        g
    }
}

/// The targets whose witnesses random walks look for in a simplified CTL formula `f`: the
/// state formula of each `EF g` (`g`) and `AG g` (`¬g`) reached from the top through boolean
/// operators only, where a marking a walk shows decides it in the initial marking.
pub fn walk_targets(f: &StateFormula, out: &mut Vec<StateFormula>) {
    use StateFormula as S;
    match f {
        S::Not(a) => walk_targets(a, out),
        S::And(v) | S::Or(v) => v.iter().for_each(|a| walk_targets(a, out)),
        S::Implies(a, b) | S::Iff(a, b) => {
            walk_targets(a, out);
            walk_targets(b, out);
        }
        S::EF(g) if state_only(g) => out.push((**g).clone()),
        S::AG(g) if state_only(g) => out.push(S::Not(g.clone())),
        _ => {}
    }
}

/// The most markings [`at_initial`] evaluates (successors of successors, for nested `EX`).
const MOST_EVALUATIONS: usize = 100_000;

/// The value of CTL formula `f` in the initial marking of `net`, as far as it is told
/// without the state space (`None`: not told): formulas without temporal operators and the
/// `EX`/`AX` steps are evaluated on the markings themselves, every temporal operator where
/// the marking alone decides it (`EF g` where `g` holds, `AG g` where it does not, any of
/// them at a deadlock, where the only maximal path is the marking itself), and `EF g` / `AG
/// g` at the initial marking by a reachable marking that `seen` says a walk met (`seen(g)`:
/// some walk met `g`; `AG g` asks `seen(¬g)`). Connectives are Kleene's.
pub fn at_initial(
    net: &PetriNet,
    f: &StateFormula,
    seen: &dyn Fn(&StateFormula) -> bool,
) -> Option<bool> {
    let m0 = net.initial_marking();
    let mut left = MOST_EVALUATIONS;
    at(net, f, &m0, Some(seen), &mut left)
}

/// [`at_initial`] at marking `m` (`seen` only at the initial marking); `left` evaluations.
fn at(
    net: &PetriNet,
    f: &StateFormula,
    m: &[u64],
    seen: Option<&dyn Fn(&StateFormula) -> bool>,
    left: &mut usize,
) -> Option<bool> {
    use StateFormula as S;
    if *left == 0 {
        return None;
    }
    *left -= 1;
    if state_only(f) {
        return Some(saturn_ltl::net::eval(net, f, m));
    }
    let dead = || (0..net.transitions.len()).all(|t| !net.enabled(t, m));
    let now = |g: &StateFormula, left: &mut usize| at(net, g, m, seen, left);
    Some(match f {
        S::Not(a) => !now(a, left)?,
        S::And(v) | S::Or(v) => {
            let and = matches!(f, S::And(_));
            let mut unknown = false;
            for a in v {
                match now(a, left) {
                    Some(b) if b != and => return Some(b),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            if unknown {
                return None;
            }
            and
        }
        S::Implies(a, b) => match (now(a, left), now(b, left)) {
            (Some(false), _) | (_, Some(true)) => true,
            (Some(true), Some(false)) => false,
            _ => return None,
        },
        S::Iff(a, b) => now(a, left)? == now(b, left)?,
        S::EX(a) | S::AX(a) => {
            // EX: some successor; AX: every successor (true at a deadlock)
            let ex = matches!(f, S::EX(_));
            let mut unknown = false;
            for t in 0..net.transitions.len() {
                if !net.enabled(t, m) {
                    continue;
                }
                let s = net.fire(t, m);
                match at(net, a, &s, None, left) {
                    Some(b) if b == ex => return Some(ex),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            if unknown {
                return None;
            }
            !ex
        }
        S::EF(g) | S::AF(g) | S::AG(g) | S::EG(g) => {
            let holds = now(g, left);
            if dead() {
                // the only maximal path is `m`
                return holds;
            }
            let eventually = matches!(f, S::EF(_) | S::AF(_));
            match holds {
                // EF/AF: g now; AG/EG: ¬g now
                Some(b) if b == eventually => eventually,
                _ => {
                    let target = match f {
                        S::EF(_) => (**g).clone(),
                        S::AG(_) => S::Not(g.clone()),
                        _ => return None,
                    };
                    match seen {
                        Some(seen) if state_only(g) && seen(&target) => eventually,
                        _ => return None,
                    }
                }
            }
        }
        S::EU(a, b) | S::AU(a, b) => {
            let hb = now(b, left);
            if hb == Some(true) {
                return Some(true);
            }
            if dead() {
                return hb;
            }
            match (now(a, left), hb) {
                (Some(false), Some(false)) => false,
                _ => return None,
            }
        }
        _ => return None,
    })
}
