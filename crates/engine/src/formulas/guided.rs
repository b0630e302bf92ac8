//! Walks guided by the state equation (issue 49, item 3), as ITS-Tools finds markings deep in
//! a net: where the state equation cannot show a target out of reach, its relaxation's least
//! solution that meets the target ([`state_equation::parikh`]: a firing count per transition)
//! says which transitions a path to it may take and how often. A walk from the initial
//! marking fires, at random, enabled transitions whose counts are not used up, until it meets
//! the target or no such transition is enabled. A walk that meets the target has fired a path
//! of the net, so the target is reachable (exact, whatever the program's rounding); one that
//! does not proves nothing.

use std::time::{Duration, Instant};

use saturn_logic::StateFormula;
use saturn_model::PetriNet;

use super::state_equation::{self, Dnf, Incidence};
use super::walk::fire;

/// The walks tried on one solution.
pub(super) const GUIDED_TRIES: usize = 32;

/// Does a walk guided by `counts` (firing counts by transition) reach a marking of `target`?
/// Each walk fires, at random, an enabled transition whose count is not used up; when there
/// is none, a detour: an enabled transition that puts tokens where a transition with a count
/// left lacks them, or else any enabled transition, at most `4 × Σ counts + 64` detours in a
/// walk (the relaxation does not count the tokens that cycle through a path). At most `tries`
/// walks, until `until` or `stop`; every marking fired to is shown to `visit`. Deterministic:
/// the generator has a fixed seed.
pub(super) fn guided_walk(
    net: &PetriNet,
    counts: &[u64],
    target: &StateFormula,
    tries: usize,
    until: Instant,
    stop: &dyn Fn() -> bool,
    visit: &mut dyn FnMut(&[u64]),
) -> bool {
    let holds = |m: &[u64]| saturn_ltl::net::eval(net, target, m);
    let m0 = net.initial_marking();
    if holds(&m0) {
        return true;
    }
    let nt = net.transitions.len();
    let support: Vec<usize> = (0..counts.len()).filter(|&t| counts[t] > 0).collect();
    let total: u64 = counts.iter().sum();
    let most_detours = total.saturating_mul(4).saturating_add(64);
    let mut rng = saturn_model::bounded::Rng::seeded();
    let mut can = Vec::with_capacity(nt);
    let mut lacking = vec![false; net.places.len()];
    let mut steps = 0u64;
    for _ in 0..tries {
        let mut m = m0.clone();
        let mut left = counts.to_vec();
        let mut detours = 0u64;
        loop {
            can.clear();
            can.extend(
                support
                    .iter()
                    .copied()
                    .filter(|&t| left[t] > 0 && net.enabled(t, &m)),
            );
            let counted = !can.is_empty();
            if !counted {
                if detours >= most_detours {
                    break;
                }
                detours += 1;
                // the places where a transition with a count left lacks tokens
                lacking.iter_mut().for_each(|x| *x = false);
                for &t in support.iter().filter(|&&t| left[t] > 0) {
                    for a in &net.transitions[t].inputs {
                        if m[a.place] < a.weight {
                            lacking[a.place] = true;
                        }
                    }
                }
                let feeds = |t: usize| net.transitions[t].outputs.iter().any(|a| lacking[a.place]);
                can.extend((0..nt).filter(|&t| net.enabled(t, &m)));
                if can.is_empty() {
                    break;
                }
                if can.iter().any(|&t| feeds(t)) {
                    can.retain(|&t| feeds(t));
                }
            }
            let t = can[rng.below(can.len())];
            if !fire(net, t, &mut m) {
                return false;
            }
            if counted {
                left[t] -= 1;
            }
            visit(&m);
            if holds(&m) {
                return true;
            }
            steps += 1;
            if steps.is_multiple_of(256) && (Instant::now() >= until || stop()) {
                return false;
            }
        }
        if Instant::now() >= until || stop() {
            return false;
        }
    }
    false
}

/// The state equation on `target` (widened to `dnf` by [`state_equation::widen`]) within
/// `time`: `Some(false)` when it shows the target out of reach ([`state_equation::unreachable`],
/// certified), `Some(true)` when a walk guided by its solution reaches it, `None` otherwise.
/// Every marking the walks fire to is shown to `visit`.
pub(super) fn decide(
    net: &PetriNet,
    inc: &Incidence,
    target: &StateFormula,
    dnf: &Dnf,
    time: Duration,
    stop: &dyn Fn() -> bool,
    visit: &mut dyn FnMut(&[u64]),
) -> Option<bool> {
    let until = Instant::now() + time;
    if state_equation::unreachable(inc, dnf, time, stop) {
        return Some(false);
    }
    reached(net, inc, target, dnf, until, stop, visit).then_some(true)
}

/// Is `target` reached by a walk guided by the state equation's solution of one of the
/// conjunctions of `dnf` (those the places' bounds leave possible)? Within `until`.
fn reached(
    net: &PetriNet,
    inc: &Incidence,
    target: &StateFormula,
    dnf: &Dnf,
    until: Instant,
    stop: &dyn Fn() -> bool,
    visit: &mut dyn FnMut(&[u64]),
) -> bool {
    dnf.iter().any(|rows| {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || stop() || state_equation::outside(rows, &inc.bounds) {
            return false;
        }
        let Some(counts) = state_equation::parikh(inc, rows, left) else {
            return false;
        };
        guided_walk(net, &counts, target, GUIDED_TRIES, until, stop, visit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use saturn_logic::{Atom, CmpOp, LinExpr};
    use saturn_model::{Arc, Place, Transition};

    fn place(id: String, initial: u64) -> Place {
        Place {
            id: id.clone(),
            name: id,
            initial,
        }
    }

    fn marked(p: usize, k: i64) -> StateFormula {
        StateFormula::Atom(Atom {
            lhs: LinExpr {
                terms: vec![(p, 1)],
                constant: 0,
            },
            op: CmpOp::Ge,
            bound: k,
        })
    }

    /// A chain of `n` places where each step has a dead-end branch beside it: a uniform random
    /// walk reaches the end with probability 2^-n, the walk guided by the state equation
    /// (which counts no dead-end firing) always.
    fn chain_with_traps(n: usize) -> PetriNet {
        let mut places = vec![];
        for i in 0..=n {
            places.push(place(format!("p{i}"), u64::from(i == 0)));
        }
        let mut transitions = vec![];
        for i in 0..n {
            let trap = places.len();
            places.push(place(format!("trap{i}"), 0));
            let arc = |place| Arc { place, weight: 1 };
            for (id, to) in [(format!("go{i}"), i + 1), (format!("fall{i}"), trap)] {
                transitions.push(Transition {
                    id: id.clone(),
                    name: id,
                    inputs: vec![arc(i)],
                    outputs: vec![arc(to)],
                    inhibitors: vec![],
                });
            }
        }
        PetriNet {
            name: "chain".into(),
            places,
            transitions,
        }
    }

    /// [`decide`] on `target` in `net` within 10 s, showing the walks' markings to `visit`.
    fn decided(
        net: &PetriNet,
        target: &StateFormula,
        visit: &mut dyn FnMut(&[u64]),
    ) -> Option<bool> {
        let inc = Incidence::new(net).unwrap();
        let dnf = state_equation::widen(net, target, false);
        decide(
            net,
            &inc,
            target,
            &dnf,
            Duration::from_secs(10),
            &|| false,
            visit,
        )
    }

    #[test]
    fn the_guided_walk_finds_what_a_random_one_misses() {
        let net = chain_with_traps(60);
        let mut deepest = 0;
        let mut visit =
            |m: &[u64]| deepest = deepest.max((0..=60).rfind(|&i| m[i] > 0).unwrap_or(0));
        assert_eq!(decided(&net, &marked(60, 1), &mut visit), Some(true));
        assert_eq!(deepest, 60, "the walk's markings are shown");
        // the uniform walks of [`super::super::walk`] do not get there
        let end = net.place_index("p60").unwrap();
        let mut seen = false;
        super::super::walk::walk(&net, Duration::from_secs(2), &|| false, &mut |m, _| {
            seen |= m[end] > 0;
            seen
        });
        assert!(!seen, "a uniform walk found it too: the test shows nothing");
    }

    #[test]
    fn an_unrealisable_solution_reaches_nothing() {
        // the state equation reaches p0 >= 2 by firing t once, but t needs p1, never marked
        let arc = |place| Arc { place, weight: 1 };
        let net = PetriNet {
            name: "loop".into(),
            places: vec![place("p0".into(), 1), place("p1".into(), 0)],
            transitions: vec![Transition {
                id: "t".into(),
                name: "t".into(),
                inputs: vec![arc(1)],
                outputs: vec![arc(1), arc(0)],
                inhibitors: vec![],
            }],
        };
        assert_eq!(decided(&net, &marked(0, 2), &mut |_| {}), None);
    }
}
