//! Early-stopping forward search for reachability questions (`EF φ`, `AG φ`): breadth-first
//! from the initial states, checking each new frontier against a list of target sets, stopping
//! as soon as every target has been met (or when the search is complete, when the targets never
//! met are unreachable). It needs no full state space: on the contest's largest nets a state
//! satisfying `φ` is often a few steps away while generation takes far longer.

use saturn_dd::{Forest, NodeId};

use super::Reach;
use crate::limits::Interrupted;

/// What an early-stopping search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Search {
    /// Per target: the breadth-first distance of its nearest state from the initial states, or
    /// `None` when not met (yet).
    pub found: Vec<Option<usize>>,
    /// The search reached its fixpoint: a target not met has no reachable state.
    pub complete: bool,
    /// Why the search stopped before meeting every target and before its fixpoint.
    pub stopped: Option<Interrupted>,
}

impl Reach<'_> {
    /// Breadth-first search forward from `init` (with a frontier) until every target set has
    /// been met, or every reachable state is found, or a limit stops it (see
    /// [`Search::stopped`]; what was found until then is kept). `targets` builds the target
    /// sets in the set forest; it is called again whenever a level's domain has grown (sets
    /// over the potential states, such as atoms, cover only the local states known when they
    /// are built).
    pub fn search(
        &mut self,
        init: NodeId,
        targets: &mut dyn FnMut(&mut Forest) -> Vec<NodeId>,
    ) -> Search {
        let domains = |f: &Forest| {
            (1..=f.num_levels())
                .map(|k| f.domain(k))
                .collect::<Vec<u32>>()
        };
        let mut doms = domains(&self.dd.sets);
        let mut sets = targets(&mut self.dd.sets);
        let mut found: Vec<Option<usize>> = vec![None; sets.len()];
        let mut seen = init;
        let mut frontier = init;
        let mut depth = 0;
        loop {
            let now = domains(&self.dd.sets);
            if now != doms {
                doms = now;
                sets = targets(&mut self.dd.sets);
            }
            let targets = &sets;
            let mut left = false;
            for (t, f) in targets.iter().zip(found.iter_mut()) {
                if f.is_none() {
                    if self.dd.sets.intersect(*t, frontier).is_empty() {
                        left = true;
                    } else {
                        *f = Some(depth);
                    }
                }
            }
            if !left {
                return Search {
                    found,
                    complete: false,
                    stopped: None,
                };
            }
            let img = match self.image(frontier) {
                Ok(i) => i,
                Err(i) => {
                    return Search {
                        found,
                        complete: false,
                        stopped: Some(i),
                    }
                }
            };
            frontier = self.dd.sets.minus(img, seen);
            if frontier.is_empty() {
                return Search {
                    found,
                    complete: true,
                    stopped: None,
                };
            }
            seen = self.dd.sets.union(seen, frontier);
            depth += 1;
            if let Err(i) = self.eng.limits.check() {
                return Search {
                    found,
                    complete: false,
                    stopped: Some(i),
                };
            }
            let mut keep = vec![seen, frontier, init];
            keep.extend_from_slice(targets);
            self.collect(&keep);
        }
    }
}
