//! Lockstep with breadth-first images (thesis Figure 4.1).

use saturn_dd::NodeId;

use super::{Scc, SccSet};
use crate::limits::Interrupted;

impl Scc<'_> {
    /// `Lockstep(p)` (Figure 4.1): the states of `p` on nontrivial cycles within `p`, and the
    /// number of nontrivial SCCs. `p` must be a union of SCCs of the graph (the reachable states
    /// are). From a seed `s`, forward and backward breadth-first images alternate until one
    /// side converges (`v`); the other then continues only while it still meets `v`, and the
    /// SCC of `s` is `f ∩ b`. The figure recurses on `v \ c` and `p \ (v ∪ {s})`; here both go
    /// to a work list.
    ///
    /// One departure from the figure's text: the frontier `b'` (or `f'`) pending when the first
    /// loop stops is added to `b` (`f`) before the next image, so no layer is lost from
    /// `c = f ∩ b`.
    pub fn lockstep(&mut self, p: NodeId) -> Result<SccSet, Interrupted> {
        self.lockstep_streett(p, &[])
    }

    /// Lockstep with SCC refinement for strong fairness (Bloem et al., thesis section 4.4):
    /// the states of `p` on a nontrivial cycle within `p` that satisfies every Streett pair
    /// `(R_i, C_i)` of `pairs` (sets of the engine's forest; the cycle visits no state of
    /// `R_i` or some state of `C_i`), and the number of fair components found. An SCC that
    /// meets some `R_i` but not `C_i` loses its `R_i` states and goes back to the work list to
    /// be decomposed again; one that satisfies every pair is a fair component. Without pairs
    /// this is [`Scc::lockstep`].
    pub fn lockstep_streett(
        &mut self,
        p: NodeId,
        pairs: &[(NodeId, NodeId)],
    ) -> Result<SccSet, Interrupted> {
        self.held.extend(pairs.iter().flat_map(|&(r, c)| [r, c]));
        let base = self.held.len();
        // held[base] accumulates the answer; the rest of held[base..] is the work list
        self.held.push(NodeId::EMPTY);
        self.held.push(p);
        let mut count = 0u64;
        while self.held.len() > base + 1 {
            let p = self.held.pop().expect("work list is non-empty");
            if p.is_empty() {
                continue;
            }
            let (v, c, s) = self.lockstep_seed(p)?;
            if !c.is_empty() {
                let bad = pairs.iter().find(|&&(r, cm)| {
                    !self.sets.intersect(c, r).is_empty() && self.sets.intersect(c, cm).is_empty()
                });
                match bad {
                    None => {
                        count += 1;
                        self.held[base] = self.sets.union(self.held[base], c);
                    }
                    Some(&(r, _)) => {
                        let refined = self.sets.minus(c, r);
                        self.held.push(refined);
                    }
                }
            }
            let rest = self.sets.minus(v, c);
            let vs = self.sets.union(v, s);
            let outside = self.sets.minus(p, vs);
            self.held.push(outside);
            self.held.push(rest);
        }
        let states = self.held[base];
        self.held.truncate(base - 2 * pairs.len());
        Ok(SccSet { states, count })
    }

    /// Lines 2-25 of Figure 4.1 for one seed: `(v, c, s)`.
    fn lockstep_seed(&mut self, p: NodeId) -> Result<(NodeId, NodeId, NodeId), Interrupted> {
        let s = self.pick(p);
        let mut fp = self.image_in(false, s, p);
        let mut bp = self.image_in(true, s, p);
        let (mut f, mut b) = (NodeId::EMPTY, NodeId::EMPTY);
        while !fp.is_empty() && !bp.is_empty() {
            f = self.sets.union(f, fp);
            b = self.sets.union(b, bp);
            let nf = self.image_in(false, fp, p);
            fp = self.sets.minus(nf, f);
            let nb = self.image_in(true, bp, p);
            bp = self.sets.minus(nb, b);
            self.safe_point(&[p, s, f, b, fp, bp])?;
        }
        let v;
        if fp.is_empty() {
            // forward converged: continue backward while it still meets f
            v = f;
            while !self.sets.intersect(bp, f).is_empty() {
                b = self.sets.union(b, bp);
                let nb = self.image_in(true, bp, p);
                bp = self.sets.minus(nb, b);
                self.safe_point(&[p, s, f, b, bp])?;
            }
        } else {
            v = b;
            while !self.sets.intersect(fp, b).is_empty() {
                f = self.sets.union(f, fp);
                let nf = self.image_in(false, fp, p);
                fp = self.sets.minus(nf, f);
                self.safe_point(&[p, s, f, b, fp])?;
            }
        }
        let c = self.sets.intersect(f, b);
        Ok((v, c, s))
    }
}
