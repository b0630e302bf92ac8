//! The contest's five global properties (its GenericProperties examinations), computed on the
//! explicit reachability graph of a Petri net.

use saturn_model::PetriNet;

use crate::explore::ExplicitStateSpace;
use crate::scc::{Graph, Sccs};

/// The five global properties of the contest, for one net.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalProperties {
    /// `ReachabilityDeadlock`: some reachable marking enables no transition.
    pub reachability_deadlock: bool,
    /// `QuasiLiveness`: every transition is enabled in some reachable marking.
    pub quasi_liveness: bool,
    /// `Liveness`: from every reachable marking, every transition can become enabled.
    pub liveness: bool,
    /// `OneSafe`: no place ever holds more than one token.
    pub one_safe: bool,
    /// `StableMarking`: some place holds the same number of tokens in every reachable marking.
    pub stable_marking: bool,
}

impl GlobalProperties {
    /// The property's verdict by its contest name (`ReachabilityDeadlock`, `QuasiLiveness`,
    /// `Liveness`, `OneSafe`, `StableMarking`).
    pub fn by_name(&self, name: &str) -> Option<bool> {
        Some(match name {
            "ReachabilityDeadlock" => self.reachability_deadlock,
            "QuasiLiveness" => self.quasi_liveness,
            "Liveness" => self.liveness,
            "OneSafe" => self.one_safe,
            "StableMarking" => self.stable_marking,
            _ => return None,
        })
    }

    /// The contest names, in the order of the fields.
    pub const NAMES: [&'static str; 5] = [
        "ReachabilityDeadlock",
        "QuasiLiveness",
        "Liveness",
        "OneSafe",
        "StableMarking",
    ];
}

/// Compute the global properties of `net` from its explored state space and graph
/// ([`Graph::new`] of the same space).
///
/// Liveness: every marking reaches a bottom SCC (no edge leaving it, a deadlock included) and
/// reaches from there exactly that SCC's markings, so every transition is live iff it is enabled
/// somewhere in every bottom SCC.
pub fn global_properties(
    net: &PetriNet,
    space: &ExplicitStateSpace<Vec<u64>>,
    graph: &Graph,
) -> GlobalProperties {
    let nt = net.transitions.len();
    let mut ever = vec![false; nt];
    for succ in &space.successors {
        for &(t, _) in succ {
            ever[t] = true;
        }
    }
    let liveness = Sccs::new(graph).bottom().iter().all(|comp| {
        let mut seen = vec![false; nt];
        for &s in comp {
            for &(t, _) in &space.successors[s as usize] {
                seen[t] = true;
            }
        }
        seen.iter().all(|&b| b)
    });
    let m0 = &space.markings[0];
    let stable_marking =
        (0..net.places.len()).any(|p| space.markings.iter().all(|m| m[p] == m0[p]));
    GlobalProperties {
        reachability_deadlock: space.successors.iter().any(Vec::is_empty),
        quasi_liveness: ever.iter().all(|&b| b),
        liveness,
        one_safe: space.markings.iter().all(|m| m.iter().all(|&x| x <= 1)),
        stable_marking,
    }
}
