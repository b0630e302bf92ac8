//! LTL to a transition-based generalized Büchi automaton (TGBA) by the tableau expansion of
//! Couvreur (FM'99) / Gerth–Peled–Vardi–Wolper: a state is a set of obligations (a conjunction
//! of NNF formulas); its outgoing transitions are the disjuncts of the expansion
//! `a U b = b ∨ (a ∧ X(a U b))`, `a R b = b ∧ (a ∨ X(a R b))` into "literals now, obligations
//! next". There is one acceptance set per until subformula `a U b`: the transitions that do
//! not postpone it. A run is accepting when it takes a transition of every set infinitely
//! often. Transitions subsumed by another one of the same state (fewer literals, fewer next
//! obligations, a superset of acceptance sets) are dropped.

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use crate::formula::Ltl;

/// A transition: taken when every literal holds in the current letter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    /// (atom, polarity), sorted by atom, at most one per atom.
    pub label: Vec<(u32, bool)>,
    pub to: u32,
    /// Bit `i`: the transition is in acceptance set `i`.
    pub acc: u64,
}

impl Edge {
    /// Does the letter `value` (the truth of every atom) satisfy the label?
    pub fn enabled(&self, value: impl Fn(u32) -> bool) -> bool {
        self.label.iter().all(|&(a, p)| value(a) == p)
    }
}

/// A transition-based generalized Büchi automaton; state 0 is initial.
#[derive(Clone, Debug)]
pub struct Tgba {
    /// The obligations of each state (for printing and tests).
    pub states: Vec<Vec<Ltl>>,
    pub edges: Vec<Vec<Edge>>,
    /// The number of acceptance sets (at most 64).
    pub num_acc: usize,
}

impl Tgba {
    /// The mask of all acceptance sets.
    pub fn all_acc(&self) -> u64 {
        if self.num_acc == 64 {
            u64::MAX
        } else {
            (1u64 << self.num_acc) - 1
        }
    }
    pub fn num_edges(&self) -> usize {
        self.edges.iter().map(Vec::len).sum()
    }
}

/// Why a formula was not translated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    #[error("the formula has {0} until subformulas; at most 64 are supported")]
    TooManyUntils(usize),
    #[error("the automaton grew past {0} states")]
    TooLarge(usize),
}

/// One disjunct of an expansion.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Term {
    lits: Vec<(u32, bool)>,
    next: BTreeSet<Ltl>,
    /// Bit i: until i postponed.
    postponed: u64,
}

impl Term {
    fn add_lit(&mut self, a: u32, p: bool) -> bool {
        match self.lits.binary_search_by_key(&a, |l| l.0) {
            Ok(i) => self.lits[i].1 == p,
            Err(i) => {
                self.lits.insert(i, (a, p));
                true
            }
        }
    }
    fn add_next(&mut self, f: Ltl) {
        match f {
            Ltl::True => {}
            Ltl::And(v) => self.next.extend(v),
            f => {
                self.next.insert(f);
            }
        }
    }
    /// Does `self` make `other` useless (weaker guard, fewer obligations, no fewer
    /// acceptance sets)?
    fn subsumes(&self, other: &Term) -> bool {
        self.postponed & !other.postponed == 0
            && self.lits.iter().all(|l| other.lits.contains(l))
            && self.next.is_subset(&other.next)
    }
}

/// The expansion of the conjunction `todo` ∧ `term` into disjuncts, appended to `out`.
fn expand(mut todo: Vec<Ltl>, mut term: Term, untils: &[Ltl], out: &mut Vec<Term>) {
    while let Some(f) = todo.pop() {
        match f {
            Ltl::True => {}
            Ltl::False => return,
            Ltl::Lit(a, p) => {
                if !term.add_lit(a, p) {
                    return;
                }
            }
            Ltl::And(v) => todo.extend(v),
            Ltl::Or(v) => {
                for g in v {
                    let mut t = todo.clone();
                    t.push(g);
                    expand(t, term.clone(), untils, out);
                }
                return;
            }
            Ltl::X(a) => term.add_next(*a),
            Ltl::U(ref a, ref b) => {
                // b now, or a now and a U b next (postponed)
                let mut t = todo.clone();
                t.push((**b).clone());
                expand(t, term.clone(), untils, out);
                let i = untils.iter().position(|u| *u == f).expect("until listed");
                todo.push((**a).clone());
                term.postponed |= 1 << i;
                term.add_next(f.clone());
            }
            Ltl::R(ref a, ref b) => {
                // b and a now, or b now and a R b next
                let mut t = todo.clone();
                t.push((**a).clone());
                t.push((**b).clone());
                expand(t, term.clone(), untils, out);
                todo.push((**b).clone());
                term.add_next(f.clone());
            }
        }
    }
    out.push(term);
}

/// The automaton of `f` (at most `max_states` states).
pub fn translate(f: &Ltl, max_states: usize) -> Result<Tgba, TranslateError> {
    let mut untils = Vec::new();
    f.untils(&mut untils);
    if untils.len() > 64 {
        return Err(TranslateError::TooManyUntils(untils.len()));
    }
    let all = if untils.len() == 64 {
        u64::MAX
    } else {
        (1u64 << untils.len()) - 1
    };
    let init: Vec<Ltl> = match f {
        Ltl::True => vec![],
        Ltl::And(v) => v.clone(),
        f => vec![f.clone()],
    };
    let mut index: FxHashMap<Vec<Ltl>, u32> = FxHashMap::default();
    index.insert(init.clone(), 0);
    let mut states = vec![init];
    let mut edges: Vec<Vec<Edge>> = Vec::new();
    let mut n = 0;
    while n < states.len() {
        let mut terms = Vec::new();
        expand(states[n].clone(), Term::default(), &untils, &mut terms);
        terms.sort();
        terms.dedup();
        // drop subsumed terms (keep the first of equal ones)
        let mut kept: Vec<Term> = Vec::new();
        for t in &terms {
            if kept.iter().any(|k| k.subsumes(t)) {
                continue;
            }
            kept.retain(|k| !t.subsumes(k));
            kept.push(t.clone());
        }
        let mut out = Vec::with_capacity(kept.len());
        for t in kept {
            let key: Vec<Ltl> = t.next.into_iter().collect();
            let to = match index.get(&key) {
                Some(&i) => i,
                None => {
                    if states.len() >= max_states {
                        return Err(TranslateError::TooLarge(max_states));
                    }
                    let i = states.len() as u32;
                    index.insert(key.clone(), i);
                    states.push(key);
                    i
                }
            };
            out.push(Edge {
                label: t.lits,
                to,
                acc: all & !t.postponed,
            });
        }
        edges.push(out);
        n += 1;
    }
    Ok(Tgba {
        states,
        edges,
        num_acc: untils.len(),
    })
}
