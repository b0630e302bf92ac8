//! The step rank ([`StepRank`]) against explicit breadth-first search: on nets built with one
//! it is found, and on every random net where it is found each reachable marking lies exactly
//! `w·s0 - w·m` steps from the initial marking along every path (so its breadth-first distance
//! is that, and every edge goes one step down). `EG true` then has a shortest witness proven
//! by the rank alone: the way down to the nearest deadlock, as long as the explicit minimum.

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_logic::StateFormula as F;
use saturn_model::PetriNet;
use saturn_reference::strategies::{config, discard, random_net, ranked_net};
use saturn_reference::{explore_model, CtlChecker, Deadlocks as RefDeadlocks};
use saturn_symbolic::ctl::{Deadlocks, WitnessMethod};
use saturn_symbolic::rank::StepRank;

use crate::ctl_support;

/// Every edge of the explicit graph lowers the rank by exactly one, and so the breadth-first
/// distances are the rank's drops.
fn agrees(rank: &StepRank, model: &saturn_model::Model) -> Result<(), TestCaseError> {
    let Ok(space) = explore_model(model, 5_000) else {
        return Err(discard("too large for the reference"));
    };
    let v = |i: usize| rank.value(&space.markings[i]).unwrap();
    let mut dist = vec![usize::MAX; space.states];
    dist[0] = 0;
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(s) = queue.pop_front() {
        for &(_, t) in &space.successors[s] {
            prop_assert_eq!(v(s) - v(t), rank.scale, "an edge not one step down");
            if dist[t] == usize::MAX {
                dist[t] = dist[s] + 1;
                queue.push_back(t);
            }
        }
    }
    for (s, &d) in dist.iter().enumerate() {
        prop_assert_eq!((v(0) - v(s)) / rank.scale, d as i128);
    }
    Ok(())
}

fn model_of(net: &PetriNet) -> saturn_model::Model {
    net.to_model(&(0..net.places.len()).collect::<Vec<_>>())
        .unwrap()
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn a_net_built_with_a_rank_has_one(net in ranked_net(8, 10)) {
        let model = model_of(&net);
        let rank = StepRank::of(&model);
        prop_assert!(rank.is_some(), "no rank found for {:?}", net);
        let rank = rank.unwrap();
        prop_assert!(rank.holds(&model));
        agrees(&rank, &model)?;
    }

    #[test]
    fn a_rank_found_is_one(net in random_net(8, 10)) {
        let model = model_of(&net);
        if let Some(rank) = StepRank::of(&model) {
            prop_assert!(rank.holds(&model));
            agrees(&rank, &model)?;
        }
    }

    #[test]
    fn the_rank_proves_the_way_down_shortest(net in ranked_net(8, 10), self_loop in any::<bool>()) {
        let Ok(space) = saturn_reference::explore_petri(&net, 5_000) else {
            return Err(discard("too large for the reference"));
        };
        let (mode, rmode) = if self_loop {
            (Deadlocks::SelfLoop, RefDeadlocks::SelfLoop)
        } else {
            (Deadlocks::Maximal, RefDeadlocks::Maximal)
        };
        let order: Vec<usize> = (0..net.places.len()).collect();
        let model = net.to_model(&order).unwrap();
        let mut dd = Dd::new(model.num_levels());
        let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
        checker.set_witness_method(WitnessMethod::Auto);
        let f = F::EG(Box::new(F::Const(true)));
        let w = checker.witness(&f).unwrap().expect("a net that terminates has a maximal path");
        prop_assert!(w.shortest);
        let explicit = CtlChecker::new(&net, &space, rmode);
        let min = explicit.shortest_eg_witness(&vec![true; space.states]);
        prop_assert_eq!(Some(w.len()), min);
    }
}
