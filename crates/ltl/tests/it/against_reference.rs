//! The on-the-fly product ([`saturn_ltl::check_net`]) against the explicit reference (whole
//! reachability graph × automaton, Tarjan SCCs: `saturn_reference::ltl`) on random small nets
//! and random LTL formulas, under both deadlock readings.

use crate::common::check_counterexample;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use saturn_ltl::{check_net, negated, Deadlocks, Limits};
use saturn_reference::explore::explore_petri;
use saturn_reference::ltl::{accepting_run, LtlDeadlocks};
use saturn_reference::strategies::{discard, ltl_formula, random_net};

fn net_and_formula() -> impl Strategy<Value = (saturn_model::PetriNet, saturn_logic::PathFormula)> {
    random_net(6, 8).prop_flat_map(|net| {
        let (p, t) = (net.places.len(), net.transitions.len());
        (Just(net), ltl_formula(p, t))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn on_the_fly_product_agrees_with_the_reference((net, phi) in net_and_formula()) {
        let Ok(space) = explore_petri(&net, 3000) else {
            return Err(discard("unbounded or too large for the reference"));
        };
        for (dl, rdl) in [
            (Deadlocks::Stutter, LtlDeadlocks::Stutter),
            (Deadlocks::Maximal, LtlDeadlocks::Maximal),
        ] {
            let v = check_net(&net, &phi, dl, Limits::default()).unwrap();
            let p = negated(&phi, dl).unwrap();
            let counterexample =
                accepting_run(&net, &space, &p.automaton, &p.atoms.formulas, rdl).unwrap();
            prop_assert_eq!(v.holds, !counterexample, "{:?} {:?}", dl, phi);
            prop_assert_eq!(v.counterexample.is_some(), !v.holds);
            if let Some(c) = &v.counterexample {
                check_counterexample(&net, &p, dl, c)
                    .map_err(|e| TestCaseError::fail(format!("{e}: {dl:?} {phi:?} {c:?}")))?;
            }
        }
    }
}
