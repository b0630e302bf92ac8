//! The EU algorithms of thesis chapter 3 besides EUtrad: EUsat with safe and unsafe events
//! (Figure 3.1), saturation with constrained next-state functions (Figure 3.2) and
//! constrained saturation (Figure 3.3), the last two with the constraint `Sat(φ)` taken over
//! the potential (`pot`) or the reachable (`rch`) states.

use saturn_dd::NodeId;
use saturn_logic::StateFormula;

use super::{Checker, CtlError};

/// How `E[φ U ψ]` is computed (`--eu-method`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EuMethod {
    /// EUtrad (Figure 2.11): breadth-first.
    Trad,
    /// EUsat (Figure 3.1): saturation with the safe events, one breadth-first step with the
    /// unsafe ones, until nothing changes.
    Sat,
    /// EUsatConsNSF (Figure 3.2): saturation through next-state functions constrained to
    /// `Sat(φ)_pot`.
    ConsNsfPot,
    /// EUsatConsNSF (Figure 3.2) constrained to `Sat(φ)_rch`.
    ConsNsfRch,
    /// EUconsSat (Figure 3.3): constrained saturation within `Sat(φ)_pot`.
    ConsSatPot,
    /// EUconsSat (Figure 3.3) within `Sat(φ)_rch`: the default.
    #[default]
    ConsSatRch,
}

impl EuMethod {
    /// Every method, in the order of the thesis.
    pub const ALL: [EuMethod; 6] = [
        EuMethod::Trad,
        EuMethod::Sat,
        EuMethod::ConsNsfPot,
        EuMethod::ConsNsfRch,
        EuMethod::ConsSatPot,
        EuMethod::ConsSatRch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EuMethod::Trad => "trad",
            EuMethod::Sat => "sat",
            EuMethod::ConsNsfPot => "cons-nsf-pot",
            EuMethod::ConsNsfRch => "cons-nsf-rch",
            EuMethod::ConsSatPot => "cons-sat-pot",
            EuMethod::ConsSatRch => "cons-sat-rch",
        }
    }

    pub fn parse(s: &str) -> Option<EuMethod> {
        EuMethod::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Is the constraint taken over the potential state space?
    fn pot(self) -> bool {
        matches!(self, EuMethod::ConsNsfPot | EuMethod::ConsSatPot)
    }
}

impl Checker<'_> {
    /// `E[φ U ψ]` by the checker's EU method; `phi_f` is `φ` (`None`: `true`), `phi` and
    /// `psi` its and `ψ`'s reachable states.
    pub(super) fn eu(
        &mut self,
        phi_f: Option<&StateFormula>,
        phi: NodeId,
        psi: NodeId,
    ) -> Result<NodeId, CtlError> {
        let m = self.eu_method;
        match m {
            EuMethod::Trad => self.eu_trad(phi, psi),
            EuMethod::Sat => self.eu_sat(phi, psi),
            EuMethod::ConsNsfPot | EuMethod::ConsNsfRch => {
                let a = self.constraint(m, phi_f, phi);
                self.pin(a);
                self.eu_sat_cons_nsf(a, psi)
            }
            EuMethod::ConsSatPot | EuMethod::ConsSatRch => {
                let a = self.constraint(m, phi_f, phi);
                self.pin(a);
                self.eu_cons_sat(a, psi)
            }
        }
    }

    /// The constraint set for `φ`: its reachable states, or (pot methods) the potential states
    /// satisfying it when `φ` is a boolean combination of atoms (a temporal `φ` has no `pot`
    /// reading: its reachable states are used). Any set that agrees with `Sat(φ)` on the
    /// reachable states gives the same answer once the result is cut to them: a path of
    /// unreachable states never leads backward into a reachable one.
    fn constraint(&mut self, m: EuMethod, phi_f: Option<&StateFormula>, phi: NodeId) -> NodeId {
        if !m.pot() {
            return phi;
        }
        match phi_f {
            None => self.atoms.pot(&mut self.reach.dd_mut().sets),
            Some(f) => self.atom_set(f).unwrap_or(phi),
        }
    }

    /// EUsat (thesis Figure 3.1): an event is safe when its preimage of `Sat(φ) ∪ Sat(ψ)`
    /// (within the reachable states) lies in `Sat(φ)`; saturate `X = Sat(ψ)` with the safe
    /// events, add the unsafe events' preimage of `X` within `Sat(φ) ∪ Sat(ψ)`, saturate
    /// again, until `X` stops changing. The result is cut to the reachable states.
    pub(super) fn eu_sat(&mut self, phi: NodeId, psi: NodeId) -> Result<NodeId, CtlError> {
        let both = self.or(phi, psi);
        self.pin(both);
        // ClassifyEvents
        let n = self.reach.num_events();
        let mut safe = vec![false; n];
        for (e, s) in safe.iter_mut().enumerate() {
            self.limits.check()?;
            let p = self.reach.image_event(e, both)?;
            let p = self.and(p, self.rch);
            *s = self.minus(p, phi).is_empty();
        }
        let unsafe_events: Vec<usize> = (0..n).filter(|&e| !safe[e]).collect();
        self.reach.restrict_events(Some(safe));
        let r = self.eu_sat_loop(both, psi, &unsafe_events);
        self.reach.restrict_events(None);
        let x = r?;
        Ok(self.and(x, self.rch))
    }

    fn eu_sat_loop(
        &mut self,
        both: NodeId,
        psi: NodeId,
        unsafe_events: &[usize],
    ) -> Result<NodeId, CtlError> {
        let mut x = self.saturate_held(None, psi)?;
        loop {
            self.stats.iterations += 1;
            self.limits.check()?;
            let mut pu = NodeId::EMPTY;
            for &e in unsafe_events {
                self.stats.preimages += 1;
                let p = self.reach.image_event(e, x)?;
                pu = self.or(pu, p);
            }
            let add = self.and(pu, both);
            let y = self.or(x, add);
            if y == x {
                return Ok(x);
            }
            x = self.saturate_held(None, y)?;
            self.collect(&[both, psi, x]);
        }
    }

    /// EUsatConsNSF (thesis Figure 3.2): every event's preimage constrained to `a` (ConsNSF),
    /// then one saturation of `Sat(ψ)` through them, cut to the reachable states.
    pub(super) fn eu_sat_cons_nsf(&mut self, a: NodeId, psi: NodeId) -> Result<NodeId, CtlError> {
        self.reach.cons_nsf(a);
        let r = self.saturate_held(None, psi);
        self.reach.unconstrain_relations();
        let s = r?;
        Ok(self.and(s, self.rch))
    }

    /// EUconsSat (thesis Figure 3.3): `ConsSaturate(a, Sat(ψ))` cut to the reachable states.
    pub(super) fn eu_cons_sat(&mut self, a: NodeId, psi: NodeId) -> Result<NodeId, CtlError> {
        let s = self.saturate_held(Some(a), psi)?;
        Ok(self.and(s, self.rch))
    }

    /// Saturate `s` backward (within `a`, when given) while every set the checker holds is
    /// pinned: saturation collects garbage in the middle of its recursion.
    fn saturate_held(&mut self, a: Option<NodeId>, s: NodeId) -> Result<NodeId, CtlError> {
        self.limits.check()?;
        let _held = self.hold(&[s, a.unwrap_or(NodeId::EMPTY)]);
        Ok(match a {
            Some(a) => self.reach.cons_saturate(a, s)?,
            None => self.reach.saturate(s)?,
        })
    }
}
