//! What the closure with distances needs besides Figures 5.2-5.3 when only short paths
//! matter: the forward next-state relation made once ([`TcdRelations`]) and the states within
//! a number of steps of a set ([`TcdRelations::ball`]). A lasso of `n` steps from the initial
//! state stays within `n` steps of it, so the shortest lasso of at most `n` steps is found by
//! the closure within that ball with every distance above `n` dropped
//! ([`super::compute_tcd_bounded`]), a much smaller function than the closure of the whole
//! EG set when `n` is small (the thesis's TCD holds every pair of the set).

use saturn_dd::{image, Dd, NodeId, Pin};
use saturn_model::Model;

use crate::limits::{Interrupted, Limits};
use crate::scc::relations_by_top;

/// The forward next-state relation `N` of a model in `dd.rels`: `N_k` (the events whose Top is
/// level `k`) and their union, over the local states the set forest knows, pinned while this
/// value lives.
pub struct TcdRelations {
    by_top: Vec<Pin>,
    all: Pin,
}

impl TcdRelations {
    /// `N` over the local states `dd.sets` knows now (every reachable one once the reachable
    /// states are generated).
    pub fn new(dd: &mut Dd, model: &Model) -> TcdRelations {
        let domains: Vec<u32> = (1..=model.num_levels())
            .map(|k| dd.sets.domain(k).max(1))
            .collect();
        let by_top = relations_by_top(&mut dd.rels, model, &domains, false);
        let all = dd.rels.union_all(&by_top);
        TcdRelations {
            by_top: by_top.iter().map(|&r| dd.pin_rel(r)).collect(),
            all: dd.pin_rel(all),
        }
    }

    /// `N_k` for `k = 0..=K` (`[0]`: ONE when an event has an empty support).
    pub fn by_top(&self) -> Vec<NodeId> {
        self.by_top.iter().map(Pin::get).collect()
    }

    /// `N` as one relation.
    pub fn all(&self) -> NodeId {
        self.all.get()
    }

    /// The states of `within` reached from `from ∩ within` by at most `radius` steps whose
    /// states all lie in `within` (breadth-first images; it stops early once no new state
    /// appears). Not pinned.
    pub fn ball(
        &self,
        dd: &mut Dd,
        from: NodeId,
        within: NodeId,
        radius: usize,
        limits: Limits,
    ) -> Result<NodeId, Interrupted> {
        let mut seen = dd.sets.intersect(from, within);
        let mut frontier = seen;
        for _ in 0..radius {
            limits.check()?;
            let next = image(&mut dd.sets, &dd.rels, frontier, self.all());
            let next = dd.sets.intersect(next, within);
            frontier = dd.sets.minus(next, seen);
            if frontier.is_empty() {
                break;
            }
            seen = dd.sets.union(seen, frontier);
        }
        Ok(seen)
    }
}
