//! The early-stopping forward search (`Reach::search`) against explicit breadth-first search:
//! on random nets and random state formulas without temporal operators, each target's distance
//! is the explicit distance of its nearest reachable state, and a complete search meets exactly
//! the targets with a reachable state.

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_reference::strategies::{config, ctl_formula, discard, random_net};
use saturn_reference::{explore_petri, CtlChecker, Deadlocks};
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::{Direction, Reach};

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn search_meets_targets_at_their_bfs_distance(
        (net, order, fs) in random_net(8, 10).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            (Just(net), order, proptest::collection::vec(ctl_formula(np, nt), 4))
        })
    ) {
        let Ok(space) = explore_petri(&net, 5_000) else { return Err(discard("unbounded or too large for the reference")) };
        let explicit = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        let model = net.to_model(&order).unwrap();
        let atoms = Atoms::for_petri(&model, &order);
        let mut dd = Dd::new(model.num_levels());
        dd.set_gc_every(Some(64));
        // only formulas without temporal operators are targets
        let fs: Vec<_> = fs.into_iter().filter(|f| atoms.eval(&mut dd.sets, f).is_ok()).collect();
        let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
        let init = reach.state_set(&model.initial);
        let mut build = |forest: &mut saturn_dd::Forest| {
            fs.iter().map(|f| atoms.eval(forest, f).unwrap()).collect()
        };
        let r = reach.search(init, &mut build);
        prop_assert!(r.stopped.is_none());
        // explicit BFS distances from the initial marking
        let all = vec![true; space.states];
        for (f, found) in fs.iter().zip(&r.found) {
            let sat = explicit.sat(f).unwrap();
            // distance from the initial state to `sat` = backward distances of init to sat
            let d = explicit.eu_distances(&all, &sat)[0].map(|d| d as usize);
            match found {
                Some(k) => prop_assert_eq!(Some(*k), d, "{:?}", f),
                None => {
                    prop_assert!(r.complete || r.found.iter().all(Option::is_some));
                    if r.complete {
                        prop_assert_eq!(d, None, "{:?}", f);
                    }
                }
            }
        }
        if !r.complete {
            prop_assert!(r.found.iter().all(Option::is_some));
        }
    }
}
