//! EG by the transitive closure (thesis Definition 9, Claims 1-2) and EG under weak fairness
//! (Claim 3, and the classic Emerson-Lei fixpoint for comparison), chosen by [`EgMethod`] and
//! [`FairMethod`].
//!
//! * `EG φ` by the closure: the states of `φ` on a nontrivial cycle within `φ` are the
//!   diagonal of the backward closure `T^b_{φ,φ}` (TCtoSCC, Figure 4.6); with the deadlocks of
//!   `φ` (paths are maximal in both deadlock readings) they are the targets of `E[φ U ·]`.
//! * Fair `EG φ` (fairness sets `F_1..F_n`, Büchi): an *infinite* `φ`-path visiting every `F_i`
//!   infinitely often. By the closure (Claim 3): the states of `φ` whose SCC within `φ` is
//!   nontrivial and meets every `F_i` (`FairSCC_TC`, Figure 4.8, with the pairs `(φ, F_i)`),
//!   then `E[φ U ·]`. By Emerson-Lei: `νZ. φ ∧ ⋀_i EX E[φ U (Z ∧ F_i)]`. Under
//!   [`Deadlocks::Maximal`] a finite path is never fair; under [`Deadlocks::SelfLoop`] a
//!   deadlock's loop is a cycle. Fairness applies to `EG` and, through the dualities, to `AF`
//!   and `AU` (the other operators ignore it), as the explicit reference does.

use saturn_dd::NodeId;
use saturn_logic::StateFormula;

use super::{Checker, CtlError, Deadlocks};
use crate::closure::{Closure, ClosureRelations};
use crate::scc::{fair_scc_tc, scc_tc};

/// How `EG` is computed without fairness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EgMethod {
    /// EGtrad (Figure 2.11), the breadth-first greatest fixpoint.
    #[default]
    Trad,
    /// The backward transitive closure built by saturation (Definition 9, Claims 1-2).
    Tc,
}

impl EgMethod {
    pub const ALL: [EgMethod; 2] = [EgMethod::Trad, EgMethod::Tc];

    pub fn name(self) -> &'static str {
        match self {
            EgMethod::Trad => "trad",
            EgMethod::Tc => "tc",
        }
    }

    pub fn parse(s: &str) -> Option<EgMethod> {
        EgMethod::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// How a fair `EG` is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FairMethod {
    /// The transitive closure (Claim 3, Figure 4.8).
    #[default]
    Tc,
    /// The Emerson-Lei fixpoint, breadth-first.
    EmersonLei,
}

impl FairMethod {
    pub const ALL: [FairMethod; 2] = [FairMethod::Tc, FairMethod::EmersonLei];

    pub fn name(self) -> &'static str {
        match self {
            FairMethod::Tc => "tc",
            FairMethod::EmersonLei => "el",
        }
    }

    pub fn parse(s: &str) -> Option<FairMethod> {
        FairMethod::ALL.into_iter().find(|m| m.name() == s)
    }
}

impl Checker<'_> {
    /// `EG φ` (`phi_f` is `φ`, `phi` its reachable states) by the checker's methods, under
    /// its fairness sets if it has any.
    pub(super) fn eg(&mut self, phi_f: &StateFormula, phi: NodeId) -> Result<NodeId, CtlError> {
        self.pin(phi);
        if !self.fair.is_empty() {
            return match self.fair_method {
                FairMethod::Tc => self.fair_eg_tc(phi_f, phi),
                FairMethod::EmersonLei => self.fair_eg_el(phi_f, phi),
            };
        }
        match self.eg_method {
            EgMethod::Trad => self.eg_trad(phi),
            EgMethod::Tc => self.eg_tc(phi_f, phi),
        }
    }

    /// Run `f` on the closure engine over the checker's context (the backward relation `P`
    /// built once, over the local states of the reachable states), with every set the
    /// checker holds pinned.
    fn with_closure<R>(
        &mut self,
        extra: &[NodeId],
        f: impl FnOnce(&mut Closure<'_>) -> Result<R, crate::Interrupted>,
    ) -> Result<R, CtlError> {
        let _held = self.hold(extra);
        let rels = match self.closure_rels.take() {
            Some(r) => r,
            None => ClosureRelations::of_reachable(self.reach.dd_mut(), &self.model),
        };
        let limits = self.limits;
        let out = {
            let mut tc = Closure::new(self.reach.dd_mut(), &rels);
            tc.set_limits(limits);
            f(&mut tc)
        };
        self.closure_rels = Some(rels);
        Ok(out?)
    }

    /// `EG φ` by the transitive closure (Claims 1-2): `E[φ U (cycles within φ ∪ deadlocks of
    /// φ)]`.
    fn eg_tc(&mut self, phi_f: &StateFormula, phi: NodeId) -> Result<NodeId, CtlError> {
        let on_cycles = self.with_closure(&[phi], |tc| scc_tc(tc, phi))?;
        let dead = self.and(self.dead, phi);
        let core = self.or(on_cycles, dead);
        self.pin(core);
        self.eu(Some(phi_f), phi, core)
    }

    /// The states whose fair paths may end in a deadlock's loop: under
    /// [`Deadlocks::SelfLoop`], the deadlocks of `φ` in every fairness set; none otherwise.
    fn fair_deadlocks(&mut self, phi: NodeId) -> NodeId {
        if self.deadlocks != Deadlocks::SelfLoop {
            return NodeId::EMPTY;
        }
        let mut d = self.and(self.dead, phi);
        for f in self.fair.clone() {
            d = self.and(d, f);
        }
        d
    }

    /// Fair `EG φ` by the transitive closure (Claim 3, Figure 4.8 with the pairs `(φ, F_i)`).
    fn fair_eg_tc(&mut self, phi_f: &StateFormula, phi: NodeId) -> Result<NodeId, CtlError> {
        let pairs: Vec<(NodeId, NodeId)> = self.fair.iter().map(|&f| (phi, f)).collect();
        let fair = self.fair.clone();
        let mut extra = fair;
        extra.push(phi);
        let cycles = self.with_closure(&extra, |tc| fair_scc_tc(tc, phi, &pairs))?;
        self.pin(cycles);
        let dead = self.fair_deadlocks(phi);
        let core = self.or(cycles, dead);
        self.pin(core);
        self.eu(Some(phi_f), phi, core)
    }

    /// Fair `EG φ` by the Emerson-Lei fixpoint `νZ. φ ∧ ⋀_i EX E[φ U (Z ∧ F_i)]`.
    fn fair_eg_el(&mut self, phi_f: &StateFormula, phi: NodeId) -> Result<NodeId, CtlError> {
        let mut z = phi;
        loop {
            self.stats.iterations += 1;
            let mut next = z;
            for f in self.fair.clone() {
                let zf = self.and(z, f);
                self.pin(zf);
                let u = self.eu(Some(phi_f), phi, zf)?;
                self.pin(u);
                let x = self.ex(u)?;
                next = self.and(next, x);
                self.pin(next);
            }
            if next == z {
                return Ok(z);
            }
            z = next;
            self.pin(z);
            self.collect(&[phi, z]);
        }
    }
}
