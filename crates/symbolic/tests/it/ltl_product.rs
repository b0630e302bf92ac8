//! The symbolic LTL product (`saturn_symbolic::ltl`) against the explicit reference (the whole
//! reachability graph × the automaton, Tarjan SCCs: `saturn_reference::ltl`) on random small
//! nets, random variable orders and random LTL formulas, under both deadlock readings and with
//! both fair-cycle methods (Emerson-Lei and the transitive closure).

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_ltl::{ctl_equivalent, negated, Deadlocks};
use saturn_symbolic::ctl::Deadlocks as CtlDeadlocks;

use crate::ctl_support;
use saturn_reference::explore::explore_petri;
use saturn_reference::ltl::{accepting_run, LtlDeadlocks};
use saturn_reference::strategies::{discard, ltl_formula, random_net};
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::ctl::FairMethod;
use saturn_symbolic::ltl::{check_product, NetSpace, Placement};
use saturn_symbolic::{Direction, Limits, Method, Reach};

fn case() -> impl Strategy<
    Value = (
        saturn_model::PetriNet,
        Vec<usize>,
        saturn_logic::PathFormula,
    ),
> {
    random_net(6, 8).prop_flat_map(|net| {
        let (p, t) = (net.places.len(), net.transitions.len());
        let order = Just((0..p).collect::<Vec<usize>>()).prop_shuffle();
        (Just(net), order, ltl_formula(p, t))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn symbolic_product_agrees_with_the_reference((net, order, phi) in case(), tc in any::<bool>(), top in any::<bool>()) {
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
            let counterexample =
                accepting_run(&net, &space, &p.automaton, &p.atoms.formulas, rdl).unwrap();
            let v = check_product(
                NetSpace { dd: &mut dd, states, model: &model, atoms: &atoms },
                &p.atoms.formulas,
                &p.automaton,
                dl,
                method,
                placement,
                Limits::none(),
                false,
            )
            .unwrap();
            prop_assert_eq!(v.holds, !counterexample, "{:?} {:?} {:?} {:?}", dl, method, placement, phi);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The fast path: an LTL formula that is CTL in disguise (`saturn_ltl::ctl_equivalent`),
    /// answered by the CTL checker, agrees with the reference LTL product.
    #[test]
    fn ctl_equivalents_agree_with_the_reference((net, order, phi) in case()) {
        let Ok(space) = explore_petri(&net, 3000) else {
            return Err(discard("unbounded or too large for the reference"));
        };
        let model = net.to_model(&order).unwrap();
        for (dl, rdl, cdl) in [
            (Deadlocks::Stutter, LtlDeadlocks::Stutter, CtlDeadlocks::SelfLoop),
            (Deadlocks::Maximal, LtlDeadlocks::Maximal, CtlDeadlocks::Maximal),
        ] {
            let Some(f) = ctl_equivalent(&phi, dl) else {
                continue;
            };
            let p = negated(&phi, dl).unwrap();
            let counterexample =
                accepting_run(&net, &space, &p.automaton, &p.atoms.formulas, rdl).unwrap();
            let mut dd = Dd::new(model.num_levels());
            let mut checker = ctl_support::checker(&mut dd, &model, &order, cdl);
            prop_assert_eq!(checker.holds(&f).unwrap(), !counterexample, "{:?} {:?} as {:?}", dl, phi, f);
        }
    }
}
