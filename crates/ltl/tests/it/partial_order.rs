//! Partial-order reduction ([`saturn_ltl::por`]) against the unreduced search and the explicit
//! reference (whole reachability graph × automaton, Tarjan SCCs: `saturn_reference::ltl`), on
//! random small nets and random LTL formulas without `X`, under both deadlock readings; a
//! counterexample found under reduction must be a run of the net violating the formula.

use crate::common::check_counterexample;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use saturn_logic::{Atom, PathFormula, StateFormula};
use saturn_ltl::{check_net_with, negated, Deadlocks, Limits, Options};
use saturn_model::PetriNet;
use saturn_reference::explore::explore_petri;
use saturn_reference::ltl::{accepting_run, LtlDeadlocks};
use saturn_reference::strategies::{
    atom, boolean_formula, discard, ltl_over, petri_net, random_net,
};

/// A random LTL formula without `X`: mostly atoms over few places (so that most transitions
/// are invisible and the reduction has room), sometimes any non-temporal state formula.
fn ltl_x_formula(places: usize, transitions: usize) -> BoxedStrategy<PathFormula> {
    use PathFormula as P;
    let leaf = prop_oneof![
        3 => (0..places.max(1)).prop_map(|p| P::State(StateFormula::Atom(Atom::marked(p)))),
        2 => atom(places.min(2)).prop_map(|a| P::State(StateFormula::Atom(a))),
        1 => boolean_formula(places, transitions).prop_map(P::State),
    ];
    ltl_over(leaf.boxed(), false)
}

/// Two nets side by side (no shared place): concurrency for the reduction to find.
fn side_by_side(a: &PetriNet, b: &PetriNet) -> PetriNet {
    let mut initial = a.initial_marking();
    initial.extend(b.initial_marking());
    let arcs = |v: &[saturn_model::Arc], off: usize| -> Vec<(usize, u64)> {
        v.iter().map(|x| (x.place + off, x.weight)).collect()
    };
    let mut transitions = Vec::new();
    for (net, off) in [(a, 0), (b, a.places.len())] {
        for t in &net.transitions {
            transitions.push((
                arcs(&t.inputs, off),
                arcs(&t.outputs, off),
                arcs(&t.inhibitors, off),
            ));
        }
    }
    petri_net(&initial, transitions)
}

/// A random net, or two side by side.
fn net() -> impl Strategy<Value = PetriNet> {
    prop_oneof![
        random_net(7, 10),
        (random_net(4, 5), random_net(4, 5)).prop_map(|(a, b)| side_by_side(&a, &b)),
    ]
}

fn net_and_formula() -> impl Strategy<Value = (PetriNet, PathFormula)> {
    net().prop_flat_map(|net| {
        let (p, t) = (net.places.len(), net.transitions.len());
        (Just(net), ltl_x_formula(p, t))
    })
}

const ON: Options = Options {
    partial_order: true,
};
const OFF: Options = Options {
    partial_order: false,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn reduced_search_agrees_with_the_full_one_and_the_reference(
        (net, phi) in net_and_formula()
    ) {
        let Ok(space) = explore_petri(&net, 3000) else {
            return Err(discard("unbounded or too large for the reference"));
        };
        for (dl, rdl) in [
            (Deadlocks::Stutter, LtlDeadlocks::Stutter),
            (Deadlocks::Maximal, LtlDeadlocks::Maximal),
        ] {
            let reduced = check_net_with(&net, &phi, dl, Limits::default(), ON).unwrap();
            let full = check_net_with(&net, &phi, dl, Limits::default(), OFF).unwrap();
            let p = negated(&phi, dl).unwrap();
            let counterexample =
                accepting_run(&net, &space, &p.automaton, &p.atoms.formulas, rdl).unwrap();
            prop_assert!(reduced.partial_order, "an X-free formula is stutter-insensitive");
            prop_assert!(!full.partial_order);
            prop_assert_eq!(full.holds, !counterexample, "{:?} {:?}", dl, phi);
            prop_assert_eq!(reduced.holds, !counterexample, "{:?} {:?}", dl, phi);
            prop_assert_eq!(reduced.counterexample.is_some(), !reduced.holds);
            if let Some(c) = &reduced.counterexample {
                check_counterexample(&net, &p, dl, c)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {dl:?} {phi:?} {c:?}")))?;
            }
        }
    }
}

/// `k` independent two-place cycles (`a_i → b_i → a_i`, each `a_i` marked) when `cyclic`,
/// else `k` independent moves `a_i → b_i`.
fn concurrent(k: usize, cyclic: bool) -> PetriNet {
    let mut initial = Vec::new();
    let mut transitions = Vec::new();
    for i in 0..k {
        initial.extend([1, 0]);
        let (a, b) = (2 * i, 2 * i + 1);
        transitions.push((vec![(a, 1)], vec![(b, 1)], vec![]));
        if cyclic {
            transitions.push((vec![(b, 1)], vec![(a, 1)], vec![]));
        }
    }
    petri_net(&initial, transitions)
}

fn marked(p: usize) -> PathFormula {
    PathFormula::State(StateFormula::Atom(Atom::marked(p)))
}

/// On concurrent moves the reduction explores one interleaving (k + 1 markings of 2^k); on
/// concurrent cycles (where the cycle proviso expands states fully) the verdicts and
/// counterexamples stay right; a formula with `X` is never reduced.
#[test]
fn concurrency_is_reduced_and_next_is_not() {
    use PathFormula as P;
    let gf = P::G(Box::new(P::F(Box::new(marked(0)))));
    let fg = P::F(Box::new(P::G(Box::new(marked(0)))));
    let inv = P::G(Box::new(P::Or(vec![marked(0), marked(1)])));
    for dl in [Deadlocks::Stutter, Deadlocks::Maximal] {
        for cyclic in [false, true] {
            let net = concurrent(8, cyclic);
            // cyclic: G F a_0 fails (run a_0 → b_0 once), F G a_0 fails; acyclic: both fail
            // (a_0 moves or not, the deadlock keeps b_0)
            for phi in [&gf, &fg, &inv] {
                let on = check_net_with(&net, phi, dl, Limits::default(), ON).unwrap();
                let off = check_net_with(&net, phi, dl, Limits::default(), OFF).unwrap();
                assert_eq!(on.holds, off.holds, "{phi:?} {dl:?} {cyclic}");
                assert!(on.partial_order && on.reduced_states > 0);
                if let Some(c) = &on.counterexample {
                    let p = negated(phi, dl).unwrap();
                    check_counterexample(&net, &p, dl, c).unwrap();
                }
            }
            let on = check_net_with(&net, &inv, dl, Limits::default(), ON).unwrap();
            let off = check_net_with(&net, &inv, dl, Limits::default(), OFF).unwrap();
            assert!(on.holds && off.holds);
            // (the sink after the deadlock counts as a state under the maximal reading)
            let end = usize::from(dl == Deadlocks::Maximal && !cyclic);
            assert_eq!(off.markings, (1 << 8) + end);
            if !cyclic {
                assert_eq!(on.markings, 9 + end, "one interleaving");
            }
        }
        let next = P::X(Box::new(marked(0)));
        let on = check_net_with(&concurrent(8, false), &next, dl, Limits::default(), ON).unwrap();
        assert!(!on.partial_order && on.reduced_states == 0);
    }
}
