//! What the tests of the explicit product share.

use saturn_ltl::lasso::Lasso;
use saturn_ltl::{Counterexample, Deadlocks, NegatedProperty};
use saturn_model::PetriNet;

/// A counterexample must be a run of the net (each step a firing, a stutter only at a
/// deadlock under the stuttering reading, a finite path only ending in a deadlock under the
/// maximal one) and its word must satisfy the negated formula (the direct semantics of
/// [`Lasso::satisfies`], independent of the automaton).
pub fn check_counterexample(
    net: &PetriNet,
    p: &NegatedProperty,
    dl: Deadlocks,
    c: &Counterexample,
) -> Result<(), String> {
    let m = &c.markings;
    if m.first() != Some(&net.initial_marking()) {
        return Err("does not start at the initial marking".into());
    }
    let dead = |x: &[u64]| (0..net.transitions.len()).all(|t| !net.enabled(t, x));
    let step = |a: &[u64], b: &[u64]| {
        (0..net.transitions.len()).any(|t| net.enabled(t, a) && net.fire(t, a) == b)
            || (dl == Deadlocks::Stutter && dead(a) && a == b)
    };
    for (i, w) in m.windows(2).enumerate() {
        if !step(&w[0], &w[1]) {
            return Err(format!("step {i} is not a firing"));
        }
    }
    let last = m.last().expect("not empty");
    match c.loop_start {
        Some(l) if l < m.len() && step(last, &m[l]) => {}
        Some(l) => return Err(format!("the loop back to {l} is not a step")),
        None if dl == Deadlocks::Maximal && dead(last) => {}
        None => return Err("a finite path that does not end in a deadlock".into()),
    }
    let letter = |x: &[u64]| -> Vec<bool> {
        p.atoms
            .formulas
            .iter()
            .map(|f| saturn_ltl::net::eval(net, f, x))
            .collect()
    };
    let mut letters: Vec<Vec<bool>> = m.iter().map(|x| letter(x)).collect();
    let lasso = match c.loop_start {
        Some(l) => Lasso {
            dead_from: letters.len(),
            letters,
            loop_start: l,
        },
        None => {
            // after a deadlock's end: one letter where nothing holds, repeated
            let n = letters.len();
            letters.push(vec![false; p.atoms.formulas.len()]);
            Lasso {
                letters,
                loop_start: n,
                dead_from: n,
            }
        }
    };
    if !lasso.satisfies(&p.formula) {
        return Err("the run satisfies the formula it should violate".into());
    }
    Ok(())
}
