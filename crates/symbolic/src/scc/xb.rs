//! The Xie-Beerel algorithm for terminal SCCs with breadth-first search (thesis Figure 4.2).

use saturn_dd::NodeId;

use super::Scc;
use crate::limits::Interrupted;

impl Scc<'_> {
    /// `XB_TSCC(p)` (Figure 4.2): the terminal SCCs within `p`, each as a set. `p` must be
    /// closed under successors (the reachable states are; so is every set the loop leaves, as
    /// it only removes sets closed under predecessors). From a seed `s`: `f`, the states
    /// reachable from `s` by a nonempty path, and `b`, the states reaching `s` (`s` included),
    /// by breadth-first search within `p`; when `f` is not empty and `f ⊆ b`, `f` is the SCC
    /// of `s`, and it is terminal; either way no state of `b` is in another terminal SCC, and
    /// `b` leaves `p`.
    ///
    /// The figure's `ReachF(s)` includes `s`, which would report a deadlock as a terminal SCC;
    /// starting `f` from the successors of `s` keeps only nontrivial ones.
    pub fn xb_tscc(&mut self, p: NodeId) -> Result<Vec<NodeId>, Interrupted> {
        let base = self.held.len();
        self.held.push(p);
        let mut found = 0;
        while !self.held[base].is_empty() {
            let p = self.held[base];
            let s = self.pick(p);
            let fs = self.image_in(false, s, p);
            let f = self.closure_in(false, fs, p, &[s])?;
            let b = self.closure_in(true, s, p, &[f])?;
            if !f.is_empty() && self.sets.minus(f, b).is_empty() {
                self.held.push(f);
                found += 1;
            }
            self.held[base] = self.sets.minus(p, b);
            self.safe_point(&[])?;
        }
        let classes = self.held.split_off(base + 1);
        debug_assert_eq!(classes.len(), found);
        self.held.truncate(base);
        Ok(classes)
    }

    /// The states reachable from `from` (forward) or reaching it (backward) within `p` by
    /// breadth-first search with a frontier, `from` included (it must lie in `p`).
    fn closure_in(
        &mut self,
        back: bool,
        from: NodeId,
        p: NodeId,
        live: &[NodeId],
    ) -> Result<NodeId, Interrupted> {
        let (mut r, mut frontier) = (from, from);
        while !frontier.is_empty() {
            let n = self.image_in(back, frontier, p);
            frontier = self.sets.minus(n, r);
            r = self.sets.union(r, frontier);
            let mut roots = vec![from, p, r, frontier];
            roots.extend_from_slice(live);
            self.safe_point(&roots)?;
        }
        Ok(r)
    }
}
