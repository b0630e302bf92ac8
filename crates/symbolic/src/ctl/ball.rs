//! [`Checker::none_shorter`] by explicit breadth-first search when the states within `n - 2`
//! steps of the initial state are few: the same question and the same answer as by images
//! ([`TcdRelations::lasso_region`](crate::closure::TcdRelations::lasso_region) and
//! [`TcdRelations::trim`](crate::closure::TcdRelations::trim)), without building the
//! next-state relation, which costs more than the search on nets of many events and short
//! witnesses (Dekker-PT-015: 255 events, a witness of 3 steps).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;

use super::{Checker, Deadlocks};

/// The states the explicit ball holds at most; beyond, the images take over.
pub const BALL_STATES: usize = 1 << 12;

/// The events it tries at most over all its states (each state tries every event).
pub const BALL_FIRINGS: usize = 1 << 20;

/// A state of the ball: its breadth-first layer, whether it is one of the states a shorter
/// witness may visit (`near`), a deadlock, and its successors among them.
struct Node {
    layer: usize,
    near: bool,
    dead: bool,
    succ: Vec<u32>,
}

impl Checker<'_> {
    /// [`Checker::none_shorter`] for `n >= 2` by explicit search: the states of `q` within
    /// `n - 2` steps of the initial state, and under [`Deadlocks::Maximal`] the deadlocks of
    /// `dq` at `n - 1`. When no step among them goes back to its layer or an earlier one,
    /// they hold no cycle and the answer is whether none of them is a deadlock; else whether
    /// the trim (dropping, until none is left, the states that are neither deadlocks nor have
    /// a successor among those kept) drops the initial state. `None` when the states or the
    /// firings pass [`BALL_STATES`] or [`BALL_FIRINGS`].
    pub(super) fn none_shorter_explicit(&self, q: NodeId, dq: NodeId, n: usize) -> Option<bool> {
        let radius = n.checked_sub(2)?;
        let maximal = self.deadlocks == Deadlocks::Maximal;
        if !self.member(q, &self.initial) {
            return None;
        }
        let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
        let mut nodes: Vec<Node> = Vec::new();
        let mut states: Vec<Vec<u32>> = Vec::new();
        let mut firings = 0usize;
        index.insert(self.initial.clone(), 0);
        states.push(self.initial.clone());
        nodes.push(Node {
            layer: 0,
            near: true,
            dead: self.member(dq, &self.initial),
            succ: Vec::new(),
        });
        let mut frontier = vec![0u32];
        let mut forward = true;
        for layer in 0..=radius {
            let mut next = Vec::new();
            for &s in &frontier {
                firings += self.events.len();
                if firings > BALL_FIRINGS {
                    return None;
                }
                let succ = self.successors_within(q, &states[s as usize]);
                let mut out = Vec::new();
                for (_, t) in succ {
                    if let Some(&j) = index.get(&t) {
                        let to = &nodes[j as usize];
                        forward &= to.layer > layer;
                        if to.near {
                            out.push(j);
                        }
                        continue;
                    }
                    let dead = self.member(dq, &t);
                    // a state one layer past the ball counts only as a deadlock ending a path
                    let near = layer < radius || (maximal && dead);
                    let j = u32::try_from(nodes.len()).ok()?;
                    if nodes.len() >= BALL_STATES {
                        return None;
                    }
                    index.insert(t.clone(), j);
                    states.push(t);
                    nodes.push(Node {
                        layer: layer + 1,
                        near,
                        dead,
                        succ: Vec::new(),
                    });
                    if near {
                        out.push(j);
                    }
                    if layer < radius {
                        next.push(j);
                    }
                }
                nodes[s as usize].succ = out;
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        if forward {
            return Some(!nodes.iter().any(|x| x.near && x.dead));
        }
        Some(!self.trim_keeps_root(&nodes))
    }

    /// Does the trim of the ball's near states keep state 0 (the initial state)?
    fn trim_keeps_root(&self, nodes: &[Node]) -> bool {
        let mut left: Vec<usize> = nodes.iter().map(|x| x.succ.len()).collect();
        let mut pred: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
        for (i, x) in nodes.iter().enumerate() {
            for &j in &x.succ {
                pred[j as usize].push(i as u32);
            }
        }
        let mut gone = vec![false; nodes.len()];
        let mut queue: VecDeque<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].near && !nodes[i].dead && left[i] == 0)
            .collect();
        while let Some(i) = queue.pop_front() {
            if gone[i] {
                continue;
            }
            gone[i] = true;
            for &p in &pred[i] {
                let p = p as usize;
                left[p] -= 1;
                if left[p] == 0 && !nodes[p].dead && !gone[p] {
                    queue.push_back(p);
                }
            }
        }
        !gone[0]
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use saturn_dd::Dd;
    use saturn_logic::StateFormula as F;
    use saturn_reference::strategies::{config, ctl_formula, discard, random_net, ranked_net};

    use crate::atoms::Atoms;
    use crate::ctl::{Checker, Deadlocks};
    use crate::{Direction, Method, Reach};

    proptest! {
        #![proptest_config(config(300))]

        /// The explicit ball answers as the images do, wherever it answers: on random nets and
        /// nets with a step rank, `EG g` for random `g`, both deadlock readings, every bound.
        #[test]
        fn the_explicit_ball_answers_as_the_images(
            (net, g) in prop_oneof![3 => random_net(8, 10), 1 => ranked_net(8, 10)]
                .prop_flat_map(|net| {
                    let (np, nt) = (net.places.len(), net.transitions.len());
                    let g = prop_oneof![1 => Just(F::Const(true)), 2 => ctl_formula(np, nt)];
                    (Just(net), g)
                }),
            self_loop in any::<bool>(),
        ) {
            if saturn_reference::explore_petri(&net, 5_000).is_err() {
                return Err(discard("unbounded or too large for the reference"));
            }
            let order: Vec<usize> = (0..net.places.len()).collect();
            let model = net.to_model(&order).unwrap();
            let mut dd = Dd::new(model.num_levels());
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
            let init = reach.state_set(&model.initial);
            let rch = reach.explore(init, Method::Saturation).unwrap();
            let atoms = Atoms::for_petri(&model, &order);
            let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
            let mut c = Checker::new(reach, &model, atoms, rch, mode);
            let q = c.sat(&F::EG(Box::new(g))).unwrap();
            if !c.member(q, &c.initial.clone()) {
                return Err(discard("EG g fails initially"));
            }
            let dq = c.and(c.dead, q);
            c.pin(q);
            c.pin(dq);
            let mut answered = 0;
            for n in 1..12 {
                let by_images = c.none_shorter_symbolic(q, dq, n).unwrap();
                if let Some(explicit) = c.none_shorter_explicit(q, dq, n) {
                    prop_assert_eq!(explicit, by_images, "bound {}", n);
                    answered += 1;
                }
            }
            prop_assert!(answered >= 10, "the ball left {} bounds to the images", 11 - answered);
        }
    }
}
