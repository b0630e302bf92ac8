//! Shortest LTL counterexamples from the symbolic product (`saturn_symbolic::ltl_lasso`)
//! against the explicit oracle (`saturn_reference::ltl_lasso`: breadth-first stems over the
//! whole product, the shortest cycle of every knot meeting every acceptance set) on random
//! small nets, random variable orders and random LTL formulas, under both deadlock readings,
//! both fair-cycle methods and both placements: every counterexample replays on the net, its
//! word satisfies the negated formula by the direct lasso semantics (`saturn_ltl::lasso`, not
//! the automaton), and its length is the oracle's minimum.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use saturn_dd::Dd;
use saturn_ltl::lasso::Lasso;
use saturn_ltl::{negated, Deadlocks, NegatedProperty};
use saturn_model::PetriNet;
use saturn_reference::explore::explore_petri;
use saturn_reference::ltl::LtlDeadlocks;
use saturn_reference::ltl_lasso::shortest_counterexample;
use saturn_reference::strategies::{discard, ltl_formula, random_net};
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::ctl::FairMethod;
use saturn_symbolic::ltl::{check_product, NetSpace, Placement};
use saturn_symbolic::ltl_lasso::NetLasso;
use saturn_symbolic::{Direction, Limits, Method, Reach};

fn case() -> impl Strategy<Value = (PetriNet, Vec<usize>, saturn_logic::PathFormula)> {
    random_net(6, 8).prop_flat_map(|net| {
        let (p, t) = (net.places.len(), net.transitions.len());
        let order = Just((0..p).collect::<Vec<usize>>()).prop_shuffle();
        (Just(net), order, ltl_formula(p, t))
    })
}

/// The markings of `c` (model level `k` holds place `order[k - 1]`).
fn markings(net: &PetriNet, order: &[usize], c: &NetLasso) -> Vec<Vec<u64>> {
    c.states
        .iter()
        .map(|s| {
            let mut m = vec![0u64; net.places.len()];
            for (k, &p) in order.iter().enumerate() {
                m[p] = u64::from(s[k]);
            }
            m
        })
        .collect()
}

/// The counterexample is a run of the net (each step a firing of the event named, a stutter
/// only at a deadlock under the stuttering reading, a finite path only ending in a deadlock
/// under the maximal one) whose word satisfies the negated formula.
fn check_run(
    net: &PetriNet,
    p: &NegatedProperty,
    dl: Deadlocks,
    m: &[Vec<u64>],
    loop_start: Option<usize>,
) -> Result<(), String> {
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
    match loop_start {
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
    let lasso = match loop_start {
        Some(l) => Lasso {
            dead_from: letters.len(),
            letters,
            loop_start: l,
        },
        None => {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn shortest_counterexamples_match_the_oracle((net, order, phi) in case(), tc in any::<bool>(), top in any::<bool>()) {
        let Ok(space) = explore_petri(&net, 3000) else {
            return Err(discard("unbounded or too large for the reference"));
        };
        let model = net.to_model(&order).unwrap();
        let atoms = Atoms::for_petri(&model, &order);
        let mut dd = Dd::new(model.num_levels());
        let states = {
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
            let init = reach.state_set(&model.initial);
            reach.explore(init, Method::Saturation).unwrap()
        };
        let _pin = dd.pin(states);
        let method = if tc { FairMethod::Tc } else { FairMethod::EmersonLei };
        let placement = if top { Placement::Top } else { Placement::Bottom };
        for (dl, rdl) in [
            (Deadlocks::Stutter, LtlDeadlocks::Stutter),
            (Deadlocks::Maximal, LtlDeadlocks::Maximal),
        ] {
            let p = negated(&phi, dl).unwrap();
            let least =
                shortest_counterexample(&net, &space, &p.automaton, &p.atoms.formulas, rdl).unwrap();
            let v = check_product(
                NetSpace { dd: &mut dd, states, model: &model, atoms: &atoms },
                &p.atoms.formulas,
                &p.automaton,
                dl,
                method,
                placement,
                Limits::none(),
                true,
            )
            .unwrap();
            let ctx = format!("{dl:?} {method:?} {placement:?} {phi:?}");
            prop_assert_eq!(v.holds, least.is_none(), "{}", ctx);
            match (v.counterexample, least) {
                (None, None) => {}
                (Some(c), Some(least)) => {
                    let c = c.map_err(|e| TestCaseError::fail(format!("{e}: {ctx}")))?;
                    let m = markings(&net, &order, &c);
                    check_run(&net, &p, dl, &m, c.loop_start)
                        .map_err(|e| TestCaseError::fail(format!("{e}: {ctx} {c:?}")))?;
                    for (i, &e) in c.events.iter().enumerate() {
                        let t = net.transition_index(&model.events[e].name);
                        prop_assert!(t.is_some_and(|t| net.enabled(t, &m[i]) && net.fire(t, &m[i]) == m[i + 1]),
                            "event {} at step {}: {}", e, i, ctx);
                    }
                    prop_assert!(c.shortest);
                    prop_assert_eq!(c.len(), least, "{} {:?}", ctx, c);
                }
                (c, least) => prop_assert!(false, "{:?} vs {:?}: {}", c, least, ctx),
            }
        }
    }
}
