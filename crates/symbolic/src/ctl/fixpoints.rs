//! The temporal operators by breadth-first fixpoints on the preimage: EX (section 2.2.2),
//! EUtrad and EGtrad (thesis Figure 2.11).

use saturn_dd::NodeId;

use super::{Checker, CtlError, Deadlocks};

impl Checker<'_> {
    /// `EX a = P(a) ∩ rch`; under [`Deadlocks::SelfLoop`] also the deadlocks in `a`.
    pub(super) fn ex(&mut self, a: NodeId) -> Result<NodeId, CtlError> {
        let p = self.pre(a)?;
        Ok(match self.deadlocks {
            Deadlocks::Maximal => p,
            Deadlocks::SelfLoop => {
                let d = self.and(self.dead, a);
                self.or(p, d)
            }
        })
    }

    /// EUtrad (thesis Figure 2.11): the least fixpoint `X ← X ∪ (P(X) ∩ Sat(φ))` from
    /// `X = Sat(ψ)`. The preimage is taken of the states added by the last iteration only (the
    /// older ones' predecessors are in `X` already), which gives the same iterates.
    pub(super) fn eu_trad(&mut self, phi: NodeId, psi: NodeId) -> Result<NodeId, CtlError> {
        let mut x = psi;
        let mut frontier = psi;
        while !frontier.is_empty() {
            self.stats.iterations += 1;
            let p = self.pre(frontier)?;
            let p = self.and(p, phi);
            frontier = self.minus(p, x);
            x = self.or(x, frontier);
            self.collect(&[phi, psi, x, frontier]);
        }
        Ok(x)
    }

    /// EGtrad (thesis Figure 2.11): the greatest fixpoint `X ← X ∩ P(X)` from `X = Sat(φ)`.
    /// Paths are maximal in both deadlock readings, so the deadlocks of `X` stay:
    /// `X ← X ∩ (P(X) ∪ D)`.
    pub(super) fn eg_trad(&mut self, phi: NodeId) -> Result<NodeId, CtlError> {
        let mut x = phi;
        loop {
            self.stats.iterations += 1;
            let p = self.pre(x)?;
            let keep = self.or(p, self.dead);
            let next = self.and(x, keep);
            if next == x {
                return Ok(x);
            }
            x = next;
            self.collect(&[phi, x]);
        }
    }
}
