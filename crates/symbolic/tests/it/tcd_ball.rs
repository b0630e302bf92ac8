//! The closure with distances within a ball (`TcdRelations::ball`, `compute_tcd_within`, what
//! `--witness-method tcd` runs round after round) against explicit breadth-first searches: on
//! random small nets, shuffled orders and random sets `q` of reachable markings, the ball of
//! radius `r` around the initial marking within `q` is exactly the markings of `q` at
//! distance at most `r` within `q` (and by layers, `TcdRelations::layered_ball`, with the
//! next layer and whether every step goes one layer further), the states a lasso of at most `r` steps can visit
//! (`TcdRelations::lasso_states`) are those of the explicit definition, and the closure within
//! the ball holds, for every pair of its markings, the length of a shortest path of positive
//! length within the ball.

use std::collections::VecDeque;

use proptest::prelude::*;
use saturn_dd::{Dd, NodeId};
use saturn_reference::explore_petri;
use saturn_reference::strategies::{config, discard, random_net};
use saturn_symbolic::closure::{compute_tcd_within, TcdRelations};
use saturn_symbolic::{Direction, Limits, Method, Reach};

/// Distances from `from` within `inside` (explicit BFS; `positive`: paths of at least one step,
/// so `from` itself only when it lies on a cycle).
fn distances(
    succ: &[Vec<(usize, usize)>],
    inside: &[bool],
    from: usize,
    positive: bool,
) -> Vec<Option<usize>> {
    let mut d = vec![None; succ.len()];
    let mut queue = VecDeque::new();
    if positive {
        for &(_, t) in &succ[from] {
            if inside[t] && d[t].is_none() {
                d[t] = Some(1);
                queue.push_back(t);
            }
        }
    } else {
        d[from] = Some(0);
        queue.push_back(from);
    }
    while let Some(s) = queue.pop_front() {
        for &(_, t) in &succ[s] {
            if inside[t] && d[t].is_none() {
                d[t] = Some(d[s].unwrap() + 1);
                queue.push_back(t);
            }
        }
    }
    d
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 400, ..config(64) })]

    #[test]
    fn tcd_within_a_ball_matches_explicit_distances(
        (net, order) in random_net(5, 7).prop_flat_map(|net| {
            let np = net.places.len();
            (Just(net), Just((0..np).collect::<Vec<usize>>()).prop_shuffle())
        }),
        seed in any::<u64>(),
        radius in 0usize..7,
    ) {
        let Ok(space) = explore_petri(&net, 120) else { return Err(discard("unbounded or too large")) };
        let model = net.to_model(&order).unwrap();
        let tuple = |m: &[u64]| order.iter().map(|&p| m[p] as u32).collect::<Vec<u32>>();
        let mut dd = Dd::new(model.num_levels());
        let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
        let init = reach.state_set(&model.initial);
        let rch = reach.explore(init, Method::Saturation).unwrap();
        drop(reach);
        let _keep = (dd.pin(rch), dd.pin(init));
        // q: about three markings in four, the initial one always
        let q_mask: Vec<bool> = (0..space.states)
            .map(|s| s == 0 || (seed.rotate_left(s as u32) ^ s as u64) & 3 != 0)
            .collect();
        let mut q = NodeId::EMPTY;
        for (s, m) in space.markings.iter().enumerate() {
            if q_mask[s] {
                let one = dd.sets.singleton(&tuple(m));
                q = dd.sets.union(q, one);
            }
        }
        let _q = dd.pin(q);
        let rels = TcdRelations::new(&mut dd, &model);
        let ball = rels.ball(&mut dd, init, q, radius, Limits::none()).unwrap();
        // the explicit ball (the initial marking is state 0 of the explicit space)
        let d0 = distances(&space.successors, &q_mask, 0, false);
        let in_ball: Vec<bool> = d0.iter().map(|d| d.is_some_and(|d| d <= radius)).collect();
        for (s, m) in space.markings.iter().enumerate() {
            let t = tuple(m);
            prop_assert_eq!({ let one = dd.sets.singleton(&t); !dd.sets.intersect(ball, one).is_empty() }, in_ball[s], "ball at {:?}", t);
        }
        // the ball by layers: the same ball, the next layer, and whether every step among its
        // markings within q goes one layer further
        let (seen, beyond, forward) = rels.layered_ball(&mut dd, init, q, radius, Limits::none()).unwrap();
        let forward_explicit = (0..space.states).all(|s| match d0[s] {
            Some(ds) if ds <= radius => space.successors[s]
                .iter()
                .all(|&(_, t)| !q_mask[t] || d0[t].is_none_or(|dt| dt > ds)),
            _ => true,
        });
        prop_assert_eq!(forward, forward_explicit, "forward layers");
        prop_assert_eq!(seen, ball, "layered ball");
        for (s, m) in space.markings.iter().enumerate() {
            let t = tuple(m);
            let one = dd.sets.singleton(&t);
            prop_assert_eq!(!dd.sets.intersect(beyond, one).is_empty(), d0[s] == Some(radius + 1), "next layer at {:?}", t);
        }
        // the states a lasso of at most `radius` steps can visit, explicitly: within radius - 1,
        // or a deadlock within radius; trimmed of the states without a successor among them
        // (deadlocks stay); then those reached from the initial marking within the rest
        let dead: Vec<bool> = space.successors.iter().map(Vec::is_empty).collect();
        let mut z: Vec<bool> = (0..space.states)
            .map(|s| d0[s].is_some_and(|d| d < radius || (dead[s] && d <= radius)))
            .collect();
        loop {
            let next: Vec<bool> = (0..space.states)
                .map(|s| z[s] && (dead[s] || space.successors[s].iter().any(|&(_, t)| z[t])))
                .collect();
            if next == z {
                break;
            }
            z = next;
        }
        let dz = if z[0] { distances(&space.successors, &z, 0, false) } else { vec![None; space.states] };
        let mut deadq = NodeId::EMPTY;
        for (s, m) in space.markings.iter().enumerate() {
            if dead[s] && q_mask[s] {
                let one = dd.sets.singleton(&tuple(m));
                deadq = dd.sets.union(deadq, one);
            }
        }
        let lasso = rels.lasso_states(&mut dd, init, q, deadq, radius, Limits::none()).unwrap();
        for (s, m) in space.markings.iter().enumerate() {
            let t = tuple(m);
            let one = dd.sets.singleton(&t);
            let got = !dd.sets.intersect(lasso, one).is_empty();
            prop_assert_eq!(got, dz[s].is_some_and(|d| d <= radius), "lasso states at {:?}", t);
        }
        let tcd = compute_tcd_within(&mut dd, &rels, ball, Limits::none()).unwrap();
        for (i, mi) in space.markings.iter().enumerate().filter(|&(i, _)| in_ball[i]) {
            let di = distances(&space.successors, &in_ball, i, true);
            for (j, mj) in space.markings.iter().enumerate().filter(|&(j, _)| in_ball[j]) {
                let got = tcd.distance(&tuple(mi), &tuple(mj));
                prop_assert_eq!(got, di[j].map(|d| d as u64), "TCD({}, {})", i, j);
            }
        }
    }
}
