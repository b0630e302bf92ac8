//! Shortest LTL counterexamples from the symbolic product (module [`crate::ltl`]), by the
//! shortest fair lassos of thesis section 5.3.2 with the automaton's acceptance sets as the
//! fairness sets (module `ctl::fair_witness`).
//!
//! A run of the product is `(0, m₀)`, a start step to `(e₀, m₀)`, then two steps per step of
//! the net: the net's event (phase `0 → 1`) and the automaton's (phase `1 → 0`). A lasso of
//! the product whose knot is a proper state `(e, m)` (phase 0, `e ≠ 0`) with a stem of `d`
//! net steps and a cycle of `c` net steps has `1 + 2(d + c)` product steps, so the least
//! product lasso is the least `d + c`. The accepting deadlocks end a counterexample after
//! their stem: `d + 1` (the deadlock's stutter step closes the lasso) under the stuttering
//! reading, `d` (a maximal finite path) under the other; they count as 2 and 0 product steps
//! more than their stem. The search minimises over both kinds at once.
//!
//! The minimum is over the runs of the product: the length of a counterexample is the number
//! of steps of its run in the product with the automaton of `¬φ`. The net's lasso printed is
//! the projection of that run; when the automaton has to go round the net's cycle more than
//! once before its own run closes, the printed cycle is that many turns of the net's cycle.

use crate::ctl::Witness;

/// A counterexample of the net, projected from a run of the product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetLasso {
    /// The net's states along the run (local states by the net model's level, `s[k-1]` for
    /// level `k`), from the initial one.
    pub states: Vec<Vec<u32>>,
    /// `Some(l)`: one more step leads from the last state back to `states[l]` and the run
    /// loops from there (a deadlock's stutter when `l` is the last index); `None`: a finite
    /// path ending in a deadlock (the maximal reading).
    pub loop_start: Option<usize>,
    /// The model events fired (`events[i]` from `states[i]` to `states[i + 1]`); the step that
    /// closes the lasso is `closing`.
    pub events: Vec<usize>,
    /// The event of the step back to `states[l]` (`None`: a deadlock's stutter, or no lasso).
    pub closing: Option<usize>,
    /// Is it a shortest counterexample (the lasso search ran to the end)?
    pub shortest: bool,
}

impl NetLasso {
    /// Steps of the counterexample: the stem and the cycle (a finite path: its steps).
    pub fn len(&self) -> usize {
        self.states.len() - 1 + usize::from(self.loop_start.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where the product's state vectors keep what (see `ltl::Layout`).
pub(crate) struct Projection {
    /// The automaton's level and the phase's.
    pub aut: usize,
    pub phase: usize,
    /// How far the net's levels moved up, and how many there are.
    pub shift: usize,
    pub levels: usize,
    /// A deadlock ends the run by stuttering (else: a maximal finite path).
    pub stutter: bool,
    /// The product events before the net's (the start events).
    pub first_net_event: usize,
}

/// The net's run of a product witness: its proper states (phase 0, after the first letter)
/// and the net events between them.
pub(crate) fn project(w: &Witness, p: &Projection) -> NetLasso {
    let proper = |s: &[u32]| s[p.phase - 1] == 0 && s[p.aut - 1] != 0;
    let net = |s: &[u32]| s[p.shift..p.shift + p.levels].to_vec();
    let mut states = Vec::new();
    let mut events = Vec::new();
    // the witness's index of each proper state kept
    let mut at = Vec::new();
    for (i, s) in w.states.iter().enumerate() {
        if proper(s) {
            states.push(net(s));
            at.push(i);
        }
        // a net event: the step out of a proper state
        if proper(s) && i < w.events.len() {
            if let Some(e) = w.events[i] {
                events.push(e - p.first_net_event);
            }
        }
    }
    match w.loop_start {
        Some(l) => {
            // the last state repeats the knot
            states.pop();
            at.pop();
            let closing = events.pop();
            let k = at
                .iter()
                .position(|&i| i == l)
                .expect("the knot is a proper state");
            NetLasso {
                states,
                loop_start: Some(k),
                events,
                closing,
                shortest: w.shortest,
            }
        }
        None => {
            let last = states.len() - 1;
            NetLasso {
                states,
                loop_start: p.stutter.then_some(last),
                events,
                closing: None,
                shortest: w.shortest,
            }
        }
    }
}
