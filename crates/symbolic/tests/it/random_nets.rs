//! Random small Petri nets: saturation, both BFS variants, and backward saturation agree with
//! the explicit-state reference (states, edges, both token maxima, and the exact state sets).

use std::collections::{BTreeSet, HashSet, VecDeque};

use proptest::prelude::*;
use saturn_model::PetriNet;
use saturn_reference::explore_petri;
use saturn_reference::strategies::{config, discard, random_net};
use saturn_symbolic::metrics::state_space_metrics;
use saturn_symbolic::{Direction, Limits, Method, Reach, Relations};

/// Random nets up to 8 places and 10 transitions (weights, inhibitor and test arcs).
fn arb_net() -> impl Strategy<Value = PetriNet> {
    random_net(8, 10)
}

/// Markings of the set as vectors indexed by place.
fn markings(reach: &Reach<'_>, root: saturn_dd::NodeId, order: &[usize]) -> BTreeSet<Vec<u64>> {
    let mut out = BTreeSet::new();
    reach.dd().sets.for_each_state(root, usize::MAX, |t| {
        let mut m = vec![0u64; order.len()];
        for (k, &p) in order.iter().enumerate() {
            m[p] = t[k] as u64;
        }
        out.insert(m);
    });
    out
}

const MAX_STATES: usize = 20_000;

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn symbolic_methods_agree_with_explicit(net in arb_net(), rev in any::<bool>()) {
        let Ok(explicit) = explore_petri(&net, MAX_STATES) else { return Err(discard("unbounded or too large for the reference")) };
        let n = net.places.len();
        let order: Vec<usize> = if rev { (0..n).rev().collect() } else { (0..n).collect() };
        let model = net.to_model(&order).unwrap();
        let want: BTreeSet<Vec<u64>> = explicit.markings.iter().cloned().collect();
        let runs = [
            (Method::Saturation, Relations::Implicit),
            (Method::Bfs, Relations::Implicit),
            (Method::BfsFrontier, Relations::Implicit),
            (Method::Saturation, Relations::Mdd),
            (Method::Bfs, Relations::Mdd),
        ];
        for (method, rel) in runs {
            let method = (method, rel);
            let mut dd = saturn_dd::Dd::new(model.num_levels());
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
            reach.set_relations(rel);
            reach.set_limits(Limits::none());
            let init = reach.state_set(&model.initial);
            let s = reach.explore(init, method.0).unwrap();
            let m = state_space_metrics(&reach.dd().sets, &model, s);
            prop_assert_eq!(m.states.to_string(), explicit.states.to_string(), "{:?}", method);
            prop_assert_eq!(m.transitions.to_string(), explicit.transitions.to_string(), "{:?}", method);
            prop_assert_eq!(m.max_local, explicit.max_tokens_place, "{:?}", method);
            prop_assert_eq!(m.max_sum, explicit.max_tokens_marking, "{:?}", method);
            prop_assert_eq!(markings(&reach, s, &order), want.clone(), "{:?}", method);
        }
    }

    #[test]
    fn backward_saturation_agrees_with_explicit(net in arb_net(), pick in any::<prop::sample::Index>()) {
        let Ok(explicit) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        let n = net.places.len();
        let order: Vec<usize> = (0..n).collect();
        let model = net.to_model(&order).unwrap();
        // the box [0, cap) per place: one more than the forward maximum
        let mut caps = vec![u32::MAX; n + 1];
        for p in 0..n {
            let mx = explicit.markings.iter().map(|m| m[p]).max().unwrap_or(0);
            caps[p + 1] = mx as u32 + 1;
        }
        let target = explicit.markings[pick.index(explicit.markings.len())].clone();
        // explicit backward search inside the box
        let mut seen: HashSet<Vec<u64>> = HashSet::new();
        let mut queue = VecDeque::new();
        seen.insert(target.clone());
        queue.push_back(target.clone());
        let inbox = |m: &[u64]| (0..n).all(|p| m[p] < caps[p + 1] as u64);
        // the one marking `t` could have been fired from to give `m`: m - W(t, .) + W(., t),
        // kept when it lies in the box, enables `t` and firing `t` in it gives `m` back
        let pred = |t: usize, m: &[u64]| -> Option<Vec<u64>> {
            let tr = &net.transitions[t];
            let mut src: Vec<i128> = m.iter().map(|&x| x as i128).collect();
            for a in &tr.outputs { src[a.place] -= a.weight as i128; }
            for a in &tr.inputs { src[a.place] += a.weight as i128; }
            if src.iter().any(|&x| x < 0) { return None; }
            let src: Vec<u64> = src.into_iter().map(|x| x as u64).collect();
            (inbox(&src) && net.enabled(t, &src) && net.fire(t, &src) == m).then_some(src)
        };
        while let Some(m) = queue.pop_front() {
            for t in 0..net.transitions.len() {
                if let Some(src) = pred(t, &m) {
                    if seen.insert(src.clone()) {
                        queue.push_back(src);
                    }
                }
            }
        }
        let want: BTreeSet<Vec<u64>> = seen.into_iter().collect();
        let mut dd = saturn_dd::Dd::new(model.num_levels());
        let mut reach = Reach::new(&mut dd, &model, Direction::Backward, Some(caps.clone()));
        let t: Vec<u32> = order.iter().map(|&p| target[p] as u32).collect();
        let s0 = reach.state_set(&t);
        for method in [Method::Saturation, Method::BfsFrontier] {
            let s = reach.explore(s0, method).unwrap();
            prop_assert_eq!(markings(&reach, s, &order), want.clone(), "{:?}", method);
        }
        // the same with relation MDDs
        let mut dd = saturn_dd::Dd::new(model.num_levels());
        let mut reach = Reach::new(&mut dd, &model, Direction::Backward, Some(caps.clone()));
        reach.set_relations(Relations::Mdd);
        let s0 = reach.state_set(&t);
        for method in [Method::Saturation, Method::Bfs] {
            let s = reach.explore(s0, method).unwrap();
            prop_assert_eq!(markings(&reach, s, &order), want.clone(), "{:?} with relation MDDs", method);
        }
    }
}
