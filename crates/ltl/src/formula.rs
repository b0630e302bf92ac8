//! LTL in negation normal form over numbered atoms, built from Saturn's resolved path formulas
//! ([`saturn_logic::PathFormula`]) with the rewritings that keep the automata small.
//!
//! Every maximal subformula free of temporal operators becomes one atom (a
//! [`saturn_logic::StateFormula`] kept in [`Atoms`]); negations are pushed to the atoms, `F`
//! and `G` are `true U φ` and `false R φ`. The smart constructors ([`Ltl::and`], [`Ltl::until`],
//! ...) fold constants, flatten, sort and deduplicate conjunctions and disjunctions, and apply
//! the classic identities (`F F φ = F φ`, `G G φ = G φ`, `G F G φ = F G φ`, `F G F φ = G F φ`,
//! `X true = true`, `φ U φ = φ`, ...).

use saturn_logic::{PathFormula, StateFormula};

/// What happens on a path that reaches a deadlock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deadlocks {
    /// The contest's reading: a maximal finite run is extended by stuttering (the deadlock
    /// repeats forever), so `X φ` at a deadlock is `φ` there.
    #[default]
    Stutter,
    /// Finite maximal paths: the path stops at the deadlock; `X φ` needs a next position (false
    /// at a deadlock), `G φ` holds when φ holds at every position of the path, `F`/`U` need
    /// their goal on the path. Encoded on infinite words by the atom [`ALIVE`] (true on the
    /// path, false on the sink that extends it forever).
    Maximal,
}

/// The atom number of "the path has not ended" under [`Deadlocks::Maximal`].
pub const ALIVE: u32 = u32::MAX;

/// An LTL formula in negation normal form. The derived order is the canonical order of the
/// operands of [`Ltl::And`] / [`Ltl::Or`] and of automaton states.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ltl {
    True,
    False,
    /// Atom number, polarity (`false`: negated).
    Lit(u32, bool),
    /// At least two operands, sorted, no duplicates, no constants, no nested `And`.
    And(Vec<Ltl>),
    /// At least two operands, sorted, no duplicates, no constants, no nested `Or`.
    Or(Vec<Ltl>),
    X(Box<Ltl>),
    U(Box<Ltl>, Box<Ltl>),
    /// Release: `a R b = ¬(¬a U ¬b)`.
    R(Box<Ltl>, Box<Ltl>),
}

impl Ltl {
    pub fn and(parts: Vec<Ltl>) -> Ltl {
        Ltl::junction(parts, true)
    }
    pub fn or(parts: Vec<Ltl>) -> Ltl {
        Ltl::junction(parts, false)
    }

    fn junction(parts: Vec<Ltl>, conj: bool) -> Ltl {
        let (unit, zero) = if conj {
            (Ltl::True, Ltl::False)
        } else {
            (Ltl::False, Ltl::True)
        };
        let mut flat = Vec::with_capacity(parts.len());
        for p in parts {
            match p {
                Ltl::And(v) if conj => flat.extend(v),
                Ltl::Or(v) if !conj => flat.extend(v),
                p if p == unit => {}
                p if p == zero => return zero,
                p => flat.push(p),
            }
        }
        flat.sort();
        flat.dedup();
        // p and ¬p
        if flat
            .windows(2)
            .any(|w| matches!((&w[0], &w[1]), (Ltl::Lit(a, x), Ltl::Lit(b, y)) if a == b && x != y))
        {
            return zero;
        }
        match flat.len() {
            0 => unit,
            1 => flat.pop().unwrap_or(unit),
            _ if conj => Ltl::And(flat),
            _ => Ltl::Or(flat),
        }
    }

    pub fn next(a: Ltl) -> Ltl {
        match a {
            Ltl::True | Ltl::False => a,
            a => Ltl::X(Box::new(a)),
        }
    }

    pub fn until(a: Ltl, b: Ltl) -> Ltl {
        match (a, b) {
            (_, b @ (Ltl::True | Ltl::False)) => b,
            (Ltl::False, b) => b,
            (a, b) if a == b => b,
            // F F b = F b; F G F b = G F b
            (Ltl::True, b) if b.is_finally() || b.is_gf() => b,
            // a U (a U b) = a U b
            (a, Ltl::U(a2, b2)) if a == *a2 => Ltl::U(a2, b2),
            (a, b) => Ltl::U(Box::new(a), Box::new(b)),
        }
    }

    pub fn release(a: Ltl, b: Ltl) -> Ltl {
        match (a, b) {
            (_, b @ (Ltl::True | Ltl::False)) => b,
            (Ltl::True, b) => b,
            (a, b) if a == b => b,
            // G G b = G b; G F G b = F G b
            (Ltl::False, b) if b.is_globally() || b.is_fg() => b,
            (a, Ltl::R(a2, b2)) if a == *a2 => Ltl::R(a2, b2),
            (a, b) => Ltl::R(Box::new(a), Box::new(b)),
        }
    }

    pub fn finally(a: Ltl) -> Ltl {
        Ltl::until(Ltl::True, a)
    }
    pub fn globally(a: Ltl) -> Ltl {
        Ltl::release(Ltl::False, a)
    }

    fn is_finally(&self) -> bool {
        matches!(self, Ltl::U(a, _) if **a == Ltl::True)
    }
    fn is_globally(&self) -> bool {
        matches!(self, Ltl::R(a, _) if **a == Ltl::False)
    }
    /// `G F φ`
    fn is_gf(&self) -> bool {
        matches!(self, Ltl::R(a, b) if **a == Ltl::False && b.is_finally())
    }
    /// `F G φ`
    fn is_fg(&self) -> bool {
        matches!(self, Ltl::U(a, b) if **a == Ltl::True && b.is_globally())
    }

    /// The negation, in negation normal form.
    pub fn negate(&self) -> Ltl {
        match self {
            Ltl::True => Ltl::False,
            Ltl::False => Ltl::True,
            Ltl::Lit(a, p) => Ltl::Lit(*a, !p),
            Ltl::And(v) => Ltl::or(v.iter().map(Ltl::negate).collect()),
            Ltl::Or(v) => Ltl::and(v.iter().map(Ltl::negate).collect()),
            Ltl::X(a) => Ltl::next(a.negate()),
            Ltl::U(a, b) => Ltl::release(a.negate(), b.negate()),
            Ltl::R(a, b) => Ltl::until(a.negate(), b.negate()),
        }
    }

    /// The number of nodes.
    pub fn size(&self) -> usize {
        1 + match self {
            Ltl::True | Ltl::False | Ltl::Lit(..) => 0,
            Ltl::And(v) | Ltl::Or(v) => v.iter().map(Ltl::size).sum(),
            Ltl::X(a) => a.size(),
            Ltl::U(a, b) | Ltl::R(a, b) => a.size() + b.size(),
        }
    }

    /// Is every temporal operator `F`/`G`/`U`/`R` (no `X`)? Such formulas are
    /// stutter-insensitive.
    pub fn is_next_free(&self) -> bool {
        match self {
            Ltl::True | Ltl::False | Ltl::Lit(..) => true,
            Ltl::And(v) | Ltl::Or(v) => v.iter().all(Ltl::is_next_free),
            Ltl::X(_) => false,
            Ltl::U(a, b) | Ltl::R(a, b) => a.is_next_free() && b.is_next_free(),
        }
    }

    /// Is the formula stutter-insensitive (its truth on a word does not change when a letter
    /// is repeated or a repetition removed)? Syntactically: free of `X` after the rewriting
    /// (Lamport; the `X` the deadlock reading [`Deadlocks::Maximal`] adds count too).
    pub fn is_stutter_insensitive(&self) -> bool {
        self.is_next_free()
    }

    /// The until subformulas (each one acceptance set of the automaton), in a fixed order.
    pub fn untils(&self, out: &mut Vec<Ltl>) {
        match self {
            Ltl::True | Ltl::False | Ltl::Lit(..) => {}
            Ltl::And(v) | Ltl::Or(v) => v.iter().for_each(|f| f.untils(out)),
            Ltl::X(a) => a.untils(out),
            Ltl::U(a, b) => {
                a.untils(out);
                b.untils(out);
                if !out.contains(self) {
                    out.push(self.clone());
                }
            }
            Ltl::R(a, b) => {
                a.untils(out);
                b.untils(out);
            }
        }
    }
}

/// The atoms of a formula: the maximal subformulas without temporal operators.
#[derive(Clone, Debug, Default)]
pub struct Atoms {
    pub formulas: Vec<StateFormula>,
}

impl Atoms {
    fn number(&mut self, f: &StateFormula) -> u32 {
        if let Some(i) = self.formulas.iter().position(|g| g == f) {
            return i as u32;
        }
        self.formulas.push(f.clone());
        (self.formulas.len() - 1) as u32
    }
}

/// Is the path formula free of temporal operators (a state formula evaluated at the start)?
fn temporal_free(f: &PathFormula) -> bool {
    use PathFormula as P;
    match f {
        P::State(_) => true,
        P::Not(a) => temporal_free(a),
        P::And(v) | P::Or(v) => v.iter().all(temporal_free),
        P::Implies(a, b) | P::Iff(a, b) => temporal_free(a) && temporal_free(b),
        P::X(_) | P::F(_) | P::G(_) | P::U(..) => false,
    }
}

/// The same formula as a state formula (for a temporal-free `f`).
fn as_state(f: &PathFormula) -> StateFormula {
    use PathFormula as P;
    use StateFormula as S;
    match f {
        P::State(s) => s.clone(),
        P::Not(a) => S::Not(Box::new(as_state(a))),
        P::And(v) => S::And(v.iter().map(as_state).collect()),
        P::Or(v) => S::Or(v.iter().map(as_state).collect()),
        P::Implies(a, b) => S::Implies(Box::new(as_state(a)), Box::new(as_state(b))),
        P::Iff(a, b) => S::Iff(Box::new(as_state(a)), Box::new(as_state(b))),
        _ => unreachable!("as_state of a temporal formula"),
    }
}

/// `f` (negated when `neg`) in negation normal form over the atoms it adds to `atoms`, read
/// under the deadlock convention `dl`.
pub fn from_path(f: &PathFormula, neg: bool, dl: Deadlocks, atoms: &mut Atoms) -> Ltl {
    use PathFormula as P;
    let fin = dl == Deadlocks::Maximal;
    let alive = || Ltl::Lit(ALIVE, true);
    let dead = || Ltl::Lit(ALIVE, false);
    if temporal_free(f) {
        let s = as_state(f);
        return match s {
            StateFormula::Const(b) => {
                if b != neg {
                    Ltl::True
                } else {
                    Ltl::False
                }
            }
            StateFormula::Not(inner) => Ltl::Lit(atoms.number(&inner), neg),
            s => Ltl::Lit(atoms.number(&s), !neg),
        };
    }
    let go = |g: &PathFormula, n: bool, atoms: &mut Atoms| from_path(g, n, dl, atoms);
    match f {
        P::State(_) => unreachable!("state formulas are temporal-free"),
        P::Not(a) => go(a, !neg, atoms),
        P::And(v) | P::Or(v) => {
            let parts = v.iter().map(|g| go(g, neg, atoms)).collect();
            if matches!(f, P::And(_)) != neg {
                Ltl::and(parts)
            } else {
                Ltl::or(parts)
            }
        }
        P::Implies(a, b) => {
            let (na, b) = (go(a, !neg, atoms), go(b, neg, atoms));
            // ¬(a → b) = a ∧ ¬b
            if neg {
                Ltl::and(vec![na, b])
            } else {
                Ltl::or(vec![na, b])
            }
        }
        P::Iff(a, b) => {
            let (pa, na) = (go(a, false, atoms), go(a, true, atoms));
            let (pb, nb) = (go(b, neg, atoms), go(b, !neg, atoms));
            Ltl::or(vec![Ltl::and(vec![pa, pb]), Ltl::and(vec![na, nb])])
        }
        // finite paths: X needs a next position (strong next); ¬X a = X(dead ∨ ¬a)
        P::X(a) => {
            let a = go(a, neg, atoms);
            match (fin, neg) {
                (false, _) => Ltl::next(a),
                (true, false) => Ltl::next(Ltl::and(vec![alive(), a])),
                (true, true) => Ltl::next(Ltl::or(vec![dead(), a])),
            }
        }
        P::F(_) | P::G(_) | P::U(..) => {
            // as `l U r` under polarity `pos`: F r = true U r; G a = ¬(true U ¬a)
            let (l, r, pos) = match f {
                P::F(a) => (Ltl::True, go(a, neg, atoms), !neg),
                P::G(a) => (Ltl::True, go(a, neg, atoms), neg),
                P::U(a, b) => (go(a, neg, atoms), go(b, neg, atoms), !neg),
                _ => unreachable!(),
            };
            // `l` and `r` are already negated when `!pos`
            if pos {
                let r = if fin { Ltl::and(vec![alive(), r]) } else { r };
                Ltl::until(l, r)
            } else {
                // ¬(l U (alive ∧ r)) = ¬l R (dead ∨ ¬r); ¬true = false for F/G
                let l = if matches!(f, P::U(..)) { l } else { Ltl::False };
                let r = if fin { Ltl::or(vec![dead(), r]) } else { r };
                Ltl::release(l, r)
            }
        }
    }
}
