//! A Petri net as a [`System`] for the on-the-fly product: markings as states, the atoms
//! (state formulas without temporal operators) evaluated on them, deadlocks extended by the
//! chosen [`Deadlocks`] convention.

use saturn_logic::StateFormula;
use saturn_model::PetriNet;

use crate::emptiness::System;
use crate::formula::{Deadlocks, ALIVE};

/// A formula the explicit product cannot evaluate on one marking.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a path quantifier inside an LTL formula is not supported")]
pub struct NestedQuantifier;

/// Does `f` only use operators evaluable on one marking?
pub fn check_atom(f: &StateFormula) -> Result<(), NestedQuantifier> {
    use StateFormula as S;
    match f {
        S::Const(_) | S::Deadlock | S::Atom(_) | S::Enabled(_) => Ok(()),
        S::Not(a) => check_atom(a),
        S::And(v) | S::Or(v) => v.iter().try_for_each(check_atom),
        S::Implies(a, b) | S::Iff(a, b) => check_atom(a).and(check_atom(b)),
        _ => Err(NestedQuantifier),
    }
}

/// The truth of a temporal-free state formula in marking `m` of `net`.
pub fn eval(net: &PetriNet, f: &StateFormula, m: &[u64]) -> bool {
    use StateFormula as S;
    match f {
        S::Const(b) => *b,
        S::Deadlock => (0..net.transitions.len()).all(|t| !net.enabled(t, m)),
        S::Atom(a) => a.eval(m),
        S::Enabled(ts) => ts.iter().any(|&t| net.enabled(t, m)),
        S::Not(a) => !eval(net, a, m),
        S::And(v) => v.iter().all(|g| eval(net, g, m)),
        S::Or(v) => v.iter().any(|g| eval(net, g, m)),
        S::Implies(a, b) => !eval(net, a, m) || eval(net, b, m),
        S::Iff(a, b) => eval(net, a, m) == eval(net, b, m),
        _ => unreachable!("check_atom refuses temporal atoms"),
    }
}

/// The reachability graph of a net, its deadlocks extended by a convention.
pub struct NetSystem<'a> {
    net: &'a PetriNet,
    atoms: &'a [StateFormula],
    deadlocks: Deadlocks,
}

impl<'a> NetSystem<'a> {
    /// `atoms[i]` is atom `i` of the automaton (checked by [`check_atom`]).
    pub fn new(
        net: &'a PetriNet,
        atoms: &'a [StateFormula],
        deadlocks: Deadlocks,
    ) -> Result<Self, NestedQuantifier> {
        atoms.iter().try_for_each(check_atom)?;
        Ok(NetSystem {
            net,
            atoms,
            deadlocks,
        })
    }
}

/// A marking, or (under [`Deadlocks::Maximal`]) the sink after the end of a finite path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NetState {
    Marking(Box<[u64]>),
    End,
}

impl System for NetSystem<'_> {
    type State = NetState;

    fn initial(&mut self) -> NetState {
        NetState::Marking(self.net.initial_marking().into_boxed_slice())
    }

    fn successors(&mut self, s: &NetState, out: &mut Vec<NetState>) {
        let NetState::Marking(m) = s else {
            out.push(NetState::End);
            return;
        };
        for t in 0..self.net.transitions.len() {
            if self.net.enabled(t, m) {
                out.push(NetState::Marking(self.net.fire(t, m).into_boxed_slice()));
            }
        }
        if out.is_empty() {
            out.push(match self.deadlocks {
                Deadlocks::Stutter => s.clone(),
                Deadlocks::Maximal => NetState::End,
            });
        }
    }

    fn value(&mut self, s: &NetState, atom: u32) -> bool {
        match s {
            NetState::End => false,
            NetState::Marking(_) if atom == ALIVE => true,
            NetState::Marking(m) => eval(self.net, &self.atoms[atom as usize], m),
        }
    }

    fn bytes(&self, s: &NetState) -> usize {
        match s {
            NetState::Marking(m) => 16 + 8 * m.len(),
            NetState::End => 16,
        }
    }
}
