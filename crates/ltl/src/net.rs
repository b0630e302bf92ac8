//! A Petri net as a [`System`] for the on-the-fly product: markings as states, the atoms
//! (state formulas without temporal operators) evaluated on them, deadlocks extended by the
//! chosen [`Deadlocks`] convention.

use saturn_logic::StateFormula;
use saturn_model::PetriNet;

use crate::emptiness::System;
use crate::formula::{Deadlocks, ALIVE};
use crate::por::Stubborn;

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
    /// The stubborn sets, when the formula is stutter-insensitive and reduction is asked for.
    por: Option<Stubborn>,
    /// Scratch markings (decoded state, successor), enabled and chosen transitions.
    m: Vec<u64>,
    n: Vec<u64>,
    enabled: Vec<u32>,
    chosen: Vec<u32>,
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
            por: None,
            m: Vec::new(),
            n: Vec::new(),
            enabled: Vec::new(),
            chosen: Vec::new(),
        })
    }

    /// Reduce the successors by stubborn sets ([`crate::por`]): sound only for a
    /// stutter-insensitive formula (over `atoms`), with the emptiness check's cycle proviso.
    pub fn with_partial_order(mut self) -> Self {
        self.por = Some(Stubborn::new(self.net, self.atoms));
        self
    }

    /// The successors of `s` by the transitions `reduce` keeps of the enabled ones (all when
    /// it returns `false`); whether some were left out.
    fn successors_by(&mut self, s: &NetState, out: &mut Vec<NetState>, reduce: bool) -> bool {
        let NetState::Marking(bytes) = s else {
            out.push(NetState::End);
            return false;
        };
        decode(bytes, &mut self.m);
        self.enabled.clear();
        self.enabled.extend(
            (0..self.net.transitions.len() as u32)
                .filter(|&t| self.net.enabled(t as usize, &self.m)),
        );
        self.chosen.clear();
        let reduced = reduce
            && self
                .por
                .as_mut()
                .is_some_and(|p| p.reduce(&self.m, &self.enabled, &mut self.chosen));
        let fire = if reduced { &self.chosen } else { &self.enabled };
        for &t in fire {
            let tr = &self.net.transitions[t as usize];
            self.n.clone_from(&self.m);
            for a in &tr.inputs {
                self.n[a.place] -= a.weight;
            }
            for a in &tr.outputs {
                self.n[a.place] += a.weight;
            }
            out.push(NetState::Marking(encode(&self.n)));
        }
        if out.is_empty() {
            out.push(match self.deadlocks {
                Deadlocks::Stutter => s.clone(),
                Deadlocks::Maximal => NetState::End,
            });
        }
        reduced
    }
}

/// A marking (each token count as a LEB128 varint: one byte per place of a safe net), or
/// (under [`Deadlocks::Maximal`]) the sink after the end of a finite path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NetState {
    Marking(Box<[u8]>),
    End,
}

/// `m` as varints.
pub fn encode(m: &[u64]) -> Box<[u8]> {
    let mut out = Vec::with_capacity(m.len());
    for &x in m {
        let mut x = x;
        while x >= 0x80 {
            out.push((x as u8) | 0x80);
            x >>= 7;
        }
        out.push(x as u8);
    }
    out.into_boxed_slice()
}

/// The marking of [`encode`]d bytes, into `out`.
pub fn decode(bytes: &[u8], out: &mut Vec<u64>) {
    out.clear();
    let (mut x, mut shift) = (0u64, 0);
    for &b in bytes {
        x |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            out.push(x);
            x = 0;
            shift = 0;
        } else {
            shift += 7;
        }
    }
}

impl System for NetSystem<'_> {
    type State = NetState;

    fn initial(&mut self) -> NetState {
        NetState::Marking(encode(&self.net.initial_marking()))
    }

    fn successors(&mut self, s: &NetState, out: &mut Vec<NetState>) {
        self.successors_by(s, out, false);
    }

    fn reduced_successors(&mut self, s: &NetState, out: &mut Vec<NetState>) -> bool {
        self.successors_by(s, out, true)
    }

    fn values(&mut self, s: &NetState, atoms: &[u32], out: &mut [bool]) {
        let NetState::Marking(bytes) = s else {
            out.fill(false);
            return;
        };
        decode(bytes, &mut self.m);
        for (o, &a) in out.iter_mut().zip(atoms) {
            *o = a == ALIVE || eval(self.net, &self.atoms[a as usize], &self.m);
        }
    }

    fn bytes(&self, s: &NetState) -> usize {
        match s {
            // the box, its allocation rounded up
            NetState::Marking(m) => 24 + m.len().next_multiple_of(16),
            NetState::End => 24,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let m = vec![0, 1, 127, 128, 300, u64::MAX, 5];
        let mut back = Vec::new();
        decode(&encode(&m), &mut back);
        assert_eq!(back, m);
        assert_eq!(encode(&[1, 0, 1]).len(), 3);
    }
}
