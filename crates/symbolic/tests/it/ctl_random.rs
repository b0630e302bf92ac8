//! The symbolic CTL checker against the explicit one (crates/reference): on random small nets
//! under random level orders, for random CTL formulas, in both deadlock readings, the set of
//! reachable states satisfying each formula (compared as markings), hence the verdict at the
//! initial marking and the exact count; UpperBounds of random place sums and the five global
//! properties.

use std::collections::BTreeSet;

use crate::ctl_support;

use proptest::prelude::*;
use saturn_dd::{Dd, NodeId};
use saturn_logic::{LinExpr, StateFormula as F};
use saturn_model::PetriNet;
use saturn_reference::strategies::{config, ctl_formula, discard, random_net};
use saturn_reference::{explore_petri, global_properties, upper_bound, CtlChecker, Graph};
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::ctl::{Checker, Deadlocks, EgMethod, EuMethod, FairMethod, GLOBAL_PROPERTIES};
use saturn_symbolic::{Direction, Method, Reach};

fn marking(tuple: &[u32], order: &[usize]) -> Vec<u64> {
    let mut m = vec![0u64; order.len()];
    for (k, &p) in order.iter().enumerate() {
        m[p] = u64::from(tuple[k]);
    }
    m
}

fn markings_of(checker: &Checker, set: NodeId, order: &[usize]) -> BTreeSet<Vec<u64>> {
    checker
        .states(set, usize::MAX)
        .iter()
        .map(|t| marking(t, order))
        .collect()
}

/// A random net, a permutation of its places, and `k` CTL formulas over it.
fn case(k: usize) -> impl Strategy<Value = (PetriNet, Vec<usize>, Vec<F>)> {
    random_net(8, 10).prop_flat_map(move |net| {
        let (np, nt) = (net.places.len(), net.transitions.len());
        let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
        let fs = proptest::collection::vec(ctl_formula(np, nt), k);
        (Just(net), order, fs)
    })
}

fn reference_mode(d: Deadlocks) -> saturn_reference::Deadlocks {
    match d {
        Deadlocks::Maximal => saturn_reference::Deadlocks::Maximal,
        Deadlocks::SelfLoop => saturn_reference::Deadlocks::SelfLoop,
    }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn ctl_matches_explicit_checker((net, order, fs) in case(4)) {
        let Ok(space) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        for mode in [Deadlocks::Maximal, Deadlocks::SelfLoop] {
            let model = net.to_model(&order).unwrap();
            let mut dd = Dd::new(model.num_levels());
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
            let init = reach.state_set(&model.initial);
            let rch = reach.explore(init, Method::Saturation).unwrap();
            let atoms = Atoms::for_petri(&model, &order);
            let explicit = CtlChecker::new(&net, &space, reference_mode(mode));
            let mut checker = Checker::new(reach, &model, atoms, rch, mode);
            for f in &fs {
                let set = checker.sat(f).unwrap();
                let holds = checker.holds(f).unwrap();
                let count = checker.count(set);
                let sat = explicit.sat(f).unwrap();
                let want: BTreeSet<Vec<u64>> = space.markings.iter().zip(&sat)
                    .filter(|(_, &b)| b).map(|(m, _)| m.clone()).collect();
                prop_assert_eq!(holds, sat[0], "{:?} {:?}", mode, f);
                prop_assert_eq!(count, want.len().into(), "{:?} {:?}", mode, f);
                prop_assert_eq!(markings_of(&checker, set, &order), want, "{:?} {:?}", mode, f);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(120))]

    /// Every EU method (EUtrad, EUsat, saturation with constrained next-state functions and
    /// constrained saturation, pot and rch) gives the explicit checker's sets, hence each
    /// other's; the context collects garbage every 64 nodes, in the middle of saturation too.
    #[test]
    fn eu_methods_match_explicit_checker((net, order, fs) in case(4), self_loop in any::<bool>()) {
        let Ok(space) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let explicit = CtlChecker::new(&net, &space, reference_mode(mode));
        let model = net.to_model(&order).unwrap();
        let mut results: Vec<Vec<BTreeSet<Vec<u64>>>> = Vec::new();
        for m in EuMethod::ALL {
            let mut dd = Dd::new(model.num_levels());
            let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
            checker.set_eu_method(m);
            let mut mine = Vec::new();
            for f in &fs {
                let set = checker.sat(f).unwrap();
                let sat = explicit.sat(f).unwrap();
                let want: BTreeSet<Vec<u64>> = space.markings.iter().zip(&sat)
                    .filter(|(_, &b)| b).map(|(m, _)| m.clone()).collect();
                let got = markings_of(&checker, set, &order);
                prop_assert_eq!(&got, &want, "{} {:?} {:?}", m.name(), mode, f);
                mine.push(got);
            }
            results.push(mine);
        }
        for r in &results[1..] {
            prop_assert_eq!(r, &results[0]);
        }
    }
}

proptest! {
    #![proptest_config(config(120))]

    /// Every EG method (EGtrad, the transitive closure) and, under one or two weak fairness
    /// sets, every fair EG method (the closure of Claim 3, Emerson-Lei) give the explicit
    /// checker's sets (its fair EG: the SCCs of the `φ`-subgraph that meet every fair set), in
    /// both deadlock readings; the context collects every 64 nodes.
    #[test]
    fn eg_methods_and_fairness_match_explicit_checker(
        (net, order, fs) in case(5),
        self_loop in any::<bool>(),
        nfair in 1usize..3,
    ) {
        let Ok(space) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let model = net.to_model(&order).unwrap();
        // the last formulas are the fairness sets
        let (fs, fair) = fs.split_at(fs.len() - nfair);
        let want_of = |explicit: &CtlChecker, f: &F| -> BTreeSet<Vec<u64>> {
            let sat = explicit.sat(f).unwrap();
            space.markings.iter().zip(&sat).filter(|(_, &b)| b).map(|(m, _)| m.clone()).collect()
        };
        let plain = CtlChecker::new(&net, &space, reference_mode(mode));
        for m in EgMethod::ALL {
            let mut dd = Dd::new(model.num_levels());
            let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
            checker.set_eg_method(m);
            for f in fs {
                let set = checker.sat(f).unwrap();
                prop_assert_eq!(markings_of(&checker, set, &order), want_of(&plain, f), "{} {:?} {:?}", m.name(), mode, f);
            }
        }
        let fairly = CtlChecker::new(&net, &space, reference_mode(mode)).with_fairness(fair).unwrap();
        for m in FairMethod::ALL {
            let mut dd = Dd::new(model.num_levels());
            let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
            checker.set_fair_method(m);
            checker.set_fairness(fair).unwrap();
            for f in fs {
                let set = checker.sat(f).unwrap();
                prop_assert_eq!(markings_of(&checker, set, &order), want_of(&fairly, f), "fair {} {:?} {:?} under {:?}", m.name(), mode, f, fair);
                // EG true under fairness: the fair states themselves
                let fair_states = F::EG(Box::new(F::Const(true)));
                let set = checker.sat(&fair_states).unwrap();
                prop_assert_eq!(markings_of(&checker, set, &order), want_of(&fairly, &fair_states), "fair {} {:?} EG true", m.name(), mode);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn bounds_and_global_properties_match_explicit(
        (net, order, sums) in random_net(8, 10).prop_flat_map(|net| {
            let np = net.places.len();
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            let sums = proptest::collection::vec(proptest::collection::btree_set(0..np, 1..=np), 3);
            (Just(net), order, sums)
        })
    ) {
        let Ok(space) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        let model = net.to_model(&order).unwrap();
        let mut dd = Dd::new(model.num_levels());
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
        let init = reach.state_set(&model.initial);
        let rch = reach.explore(init, Method::Saturation).unwrap();
        let atoms = Atoms::for_petri(&model, &order);
        let mut checker = Checker::new(reach, &model, atoms, rch, Deadlocks::Maximal);
        for s in &sums {
            let expr = LinExpr { terms: s.iter().map(|&p| (p, 1)).collect(), constant: 0 };
            let got = checker.upper_bound(&expr).unwrap();
            prop_assert_eq!(got, Some(upper_bound(&space.markings, &expr)), "{:?}", s);
        }
        let graph = Graph::new(&space);
        let want = global_properties(&net, &space, &graph);
        for name in GLOBAL_PROPERTIES {
            let got = checker.global_property(name, net.transitions.len()).unwrap();
            prop_assert_eq!(got, want.by_name(name), "{}", name);
        }
    }
}
