//! Strongly connected components of the reachability graph (thesis chapter 4): the states on
//! nontrivial cycles by Lockstep with breadth-first images (Figure 4.1), and the terminal SCCs
//! (recurrent classes) by the Xie-Beerel algorithm with breadth-first search (Figure 4.2); both
//! by the Xie-Beerel algorithm with saturation (XBSat, Figures 4.3-4.4, [`XbSat`]).
//!
//! Vocabulary (thesis 4.1): an SCC is *nontrivial* when it holds a cycle (two or more states,
//! or one state with a self-loop); a *terminal* SCC is a nontrivial SCC with no edge leaving it
//! (a deadlock is not one).
//!
//! The engines work on one quasi-reduced set forest holding the reachable states, with forward
//! and backward images from [`NextState`] (relation MDDs over the reachable local states).
//! Recursions of the figures are run from an explicit work list (their depth would be the number
//! of SCCs); garbage is collected between images, with every pending set as a root.

mod images;
mod lockstep;
mod run;
mod tc;
mod xb;
mod xbsat;

pub use images::{relations_by_top, NextState};
pub use run::{fair_of_model, scc_of_model, SccError, Streett};
pub use tc::{fair_scc_tc, fair_scc_tc_round, scc_tc, tscc_tc};
pub use xbsat::XbSat;

use num_bigint::BigUint;
use saturn_dd::{Forest, NodeId};

use crate::limits::{Interrupted, Limits};

/// A progress callback (one-line messages).
pub type Progress<'a> = Box<dyn FnMut(&str) + 'a>;

/// An SCC algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SccMethod {
    /// Lockstep with breadth-first images (Figure 4.1): SCC states, enumerating the SCCs.
    Lockstep,
    /// Xie-Beerel with breadth-first search (Figure 4.2): terminal SCCs, enumerated.
    XbBfs,
    /// Xie-Beerel with saturation (Figures 4.3 and 4.4): SCC states or terminal SCCs,
    /// enumerated.
    XbSat,
    /// The saturated transitive closure (Figures 4.5-4.8): SCC states, terminal SCC states,
    /// fair cycles; SCCs not enumerated.
    Tc,
}

impl SccMethod {
    pub fn name(self) -> &'static str {
        match self {
            SccMethod::Lockstep => "lockstep",
            SccMethod::XbBfs => "xb-bfs",
            SccMethod::XbSat => "xb-sat",
            SccMethod::Tc => "tc",
        }
    }
    pub fn parse(s: &str) -> Option<SccMethod> {
        match s {
            "lockstep" => Some(SccMethod::Lockstep),
            "xb-bfs" | "xb" => Some(SccMethod::XbBfs),
            "xb-sat" | "xbsat" => Some(SccMethod::XbSat),
            "tc" => Some(SccMethod::Tc),
            _ => None,
        }
    }
}

/// Counters of one SCC run.
#[derive(Clone, Copy, Debug, Default)]
pub struct SccStats {
    /// Seeds picked (one per recursive call of the figures on a non-empty set).
    pub seeds: u64,
    /// Forward and backward images computed.
    pub images: u64,
    /// Recursive calls of TransClosSat and TCRelProdSat (the transitive-closure methods).
    pub closure_steps: u64,
}

/// The SCC engines over a set forest and the images of one model.
pub struct Scc<'a> {
    pub sets: &'a mut Forest,
    next: &'a NextState,
    limits: Limits,
    progress: Option<Progress<'a>>,
    /// Sets the engine still holds (pending work, accumulated answers): roots at collections.
    held: Vec<NodeId>,
    /// The seed count at the last progress message.
    reported: u64,
    /// Collect garbage at every safe point (tests), not only when the forest is due.
    gc_always: bool,
    pub stats: SccStats,
}

/// What an enumerating SCC algorithm found.
#[derive(Clone, Debug)]
pub struct SccSet {
    /// The union of the components found (a node of the set forest).
    pub states: NodeId,
    /// The number of components.
    pub count: u64,
}

impl<'a> Scc<'a> {
    /// Engines over `sets` (which must be the forest the images are applied to).
    pub fn new(sets: &'a mut Forest, next: &'a NextState) -> Scc<'a> {
        Scc {
            sets,
            next,
            limits: Limits::none(),
            progress: None,
            held: Vec::new(),
            reported: 0,
            gc_always: false,
            stats: SccStats::default(),
        }
    }

    /// Limits checked between images.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// A callback receiving a one-line progress message now and then.
    pub fn set_progress(&mut self, f: Progress<'a>) {
        self.progress = Some(f);
    }

    /// Collect garbage at every safe point (for tests: every pending set must survive).
    pub fn set_gc_always(&mut self, on: bool) {
        self.gc_always = on;
    }

    fn forward(&mut self, s: NodeId) -> NodeId {
        self.stats.images += 1;
        self.next.forward(self.sets, s)
    }

    fn backward(&mut self, s: NodeId) -> NodeId {
        self.stats.images += 1;
        self.next.backward(self.sets, s)
    }

    /// `Intersect(Image(s), p)`, forward or backward.
    fn image_in(&mut self, back: bool, s: NodeId, p: NodeId) -> NodeId {
        let t = if back {
            self.backward(s)
        } else {
            self.forward(s)
        };
        self.sets.intersect(t, p)
    }

    /// One seed state of `p` as a singleton set (`PickState`).
    fn pick(&mut self, p: NodeId) -> NodeId {
        self.stats.seeds += 1;
        let s = self.sets.pick(p).expect("pick from a non-empty set");
        self.sets.singleton(&s)
    }

    /// A safe point: check the limits, report progress now and then, and collect garbage if
    /// due, keeping `live` and every set the engine holds.
    fn safe_point(&mut self, live: &[NodeId]) -> Result<(), Interrupted> {
        self.limits.check()?;
        if self.stats.seeds >= 2 * self.reported.max(512) {
            self.reported = self.stats.seeds;
            if let Some(p) = self.progress.as_mut() {
                p(&format!(
                    "SCC: {} seeds, {} images",
                    self.stats.seeds, self.stats.images
                ));
            }
        }
        if self.gc_always || self.sets.gc_due() {
            let mut roots = self.held.clone();
            roots.extend_from_slice(live);
            self.sets.gc(&roots);
        }
        Ok(())
    }
}

/// The result of [`scc_of_model`].
pub struct SccOutcome {
    /// The set forest holding every node below.
    pub sets: Forest,
    /// The reachable states.
    pub reachable: NodeId,
    /// The states in (terminal) SCCs.
    pub states: NodeId,
    /// Their number.
    pub state_count: BigUint,
    /// The number of (terminal) SCCs, for the methods that enumerate them.
    pub count: Option<u64>,
    /// Each terminal SCC as a set (terminal queries only).
    pub classes: Vec<NodeId>,
    pub stats: SccStats,
}

/// How [`scc_of_model`] runs.
#[derive(Clone, Copy, Debug)]
pub struct SccOptions {
    pub method: SccMethod,
    /// Terminal SCCs rather than all nontrivial SCCs.
    pub terminal: bool,
    pub limits: Limits,
    /// Collect garbage at every safe point (tests).
    pub gc_always: bool,
}

impl SccOptions {
    /// `method` without limits, for all SCCs ([`SccMethod::XbBfs`]: terminal SCCs, the only
    /// query it answers).
    pub fn new(method: SccMethod) -> SccOptions {
        SccOptions {
            method,
            terminal: method == SccMethod::XbBfs,
            limits: Limits::none(),
            gc_always: false,
        }
    }

    /// `method` for terminal SCCs.
    pub fn terminal(method: SccMethod) -> SccOptions {
        SccOptions {
            terminal: true,
            ..SccOptions::new(method)
        }
    }
}
