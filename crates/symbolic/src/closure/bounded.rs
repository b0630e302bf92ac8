//! What the closure with distances needs besides Figures 5.2-5.3 when only short paths
//! matter: the forward next-state relation made once ([`TcdRelations`]) and the states within
//! a number of steps of a set ([`TcdRelations::ball`]). A lasso of `n` steps from the initial
//! state stays within `n` steps of it, so the shortest lasso of at most `n` steps is found by
//! the closure within that ball with every distance above `n` dropped
//! ([`super::compute_tcd_bounded`]), a much smaller function than the closure of the whole
//! EG set when `n` is small (the thesis's TCD holds every pair of the set).

use saturn_dd::{image, preimage, Dd, NodeId, Pin};
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
        if radius == 0 {
            return Ok(dd.sets.intersect(from, within));
        }
        let (seen, beyond, _) = self.layered_ball(dd, from, within, radius - 1, limits)?;
        Ok(dd.sets.union(seen, beyond))
    }

    /// [`TcdRelations::ball`] by layers, with the next layer and whether every step stays
    /// forward: `(seen, beyond, forward)`, `seen` the states of `within` within `radius` steps
    /// of `from ∩ within`, `beyond` those at `radius + 1` steps, and `forward` true when no
    /// layer's image within `within` met that layer or an earlier one (the last layer's too).
    /// Then every step between states of `seen` goes from one layer to the next, so `seen`
    /// holds no cycle (along a path the layer grows by one at each step). Not pinned.
    pub fn layered_ball(
        &self,
        dd: &mut Dd,
        from: NodeId,
        within: NodeId,
        radius: usize,
        limits: Limits,
    ) -> Result<(NodeId, NodeId, bool), Interrupted> {
        let mut seen = dd.sets.intersect(from, within);
        let mut frontier = seen;
        let mut forward = true;
        let mut layer = 0;
        loop {
            limits.check()?;
            let next = image(&mut dd.sets, &dd.rels, frontier, self.all());
            let next = dd.sets.intersect(next, within);
            forward = forward && dd.sets.intersect(next, seen).is_empty();
            frontier = dd.sets.minus(next, seen);
            if layer == radius || frontier.is_empty() {
                return Ok((seen, frontier, forward));
            }
            seen = dd.sets.union(seen, frontier);
            layer += 1;
        }
    }

    /// The states a lasso of at most `radius` steps from `from` within `within` can visit:
    /// those within `radius - 1` steps (its knot and its cycle) and the states of `ends` (the
    /// deadlocks, which end a maximal path) within `radius`; then only the largest subset in
    /// which every state has a successor or lies in `ends` ([`TcdRelations::trim`]), and of
    /// it the states reached from `from` within it. Not pinned.
    pub fn lasso_states(
        &self,
        dd: &mut Dd,
        from: NodeId,
        within: NodeId,
        ends: NodeId,
        radius: usize,
        limits: Limits,
    ) -> Result<NodeId, Interrupted> {
        let (near, _) = self.lasso_region(dd, from, within, ends, radius, limits)?;
        let ends = dd.sets.intersect(ends, near);
        let z = self.trim(dd, near, ends, limits)?;
        self.ball(dd, from, z, radius, limits)
    }

    /// The states of [`TcdRelations::lasso_states`] before the trim: those of `within` within
    /// `radius - 1` steps of `from`, and the states of `ends` within `radius`, and whether the
    /// former hold no cycle (the `forward` of [`TcdRelations::layered_ball`]; true when there
    /// are none). Not pinned.
    pub fn lasso_region(
        &self,
        dd: &mut Dd,
        from: NodeId,
        within: NodeId,
        ends: NodeId,
        radius: usize,
        limits: Limits,
    ) -> Result<(NodeId, bool), Interrupted> {
        let (near, last, forward) = if radius == 0 {
            (NodeId::EMPTY, dd.sets.intersect(from, within), true)
        } else {
            self.layered_ball(dd, from, within, radius - 1, limits)?
        };
        let last = dd.sets.intersect(last, ends);
        Ok((dd.sets.union(near, last), forward))
    }

    /// The largest subset `Z` of `set` whose every state has a successor in `Z` or lies in
    /// `ends` (`νZ. set ∩ (N⁻¹(Z) ∪ ends)`, by preimages). Not pinned.
    pub fn trim(
        &self,
        dd: &mut Dd,
        set: NodeId,
        ends: NodeId,
        limits: Limits,
    ) -> Result<NodeId, Interrupted> {
        let mut z = set;
        loop {
            limits.check()?;
            let pre = preimage(&mut dd.sets, &dd.rels, z, self.all());
            let keep = dd.sets.union(pre, ends);
            let next = dd.sets.intersect(z, keep);
            if next == z {
                return Ok(z);
            }
            z = next;
        }
    }
}
