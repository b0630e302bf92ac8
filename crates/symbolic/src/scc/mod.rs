//! Strongly connected components of the reachability graph (thesis chapter 4): the states on
//! nontrivial cycles by Lockstep with breadth-first images (Figure 4.1), and the terminal SCCs
//! (recurrent classes) by the Xie-Beerel algorithm with breadth-first search (Figure 4.2).
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
mod xb;

pub use images::NextState;

use num_bigint::BigUint;
use saturn_dd::{Dd, Forest, NodeId};
use saturn_model::Model;

use crate::limits::{Interrupted, Limits};
use crate::reach::{Direction, Method, Reach};

/// A progress callback (one-line messages).
pub type Progress<'a> = Box<dyn FnMut(&str) + 'a>;

/// An SCC algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SccMethod {
    /// Lockstep with breadth-first images (Figure 4.1): SCC states, enumerating the SCCs.
    Lockstep,
    /// Xie-Beerel with breadth-first search (Figure 4.2): terminal SCCs, enumerated.
    XbBfs,
}

impl SccMethod {
    pub fn name(self) -> &'static str {
        match self {
            SccMethod::Lockstep => "lockstep",
            SccMethod::XbBfs => "xb-bfs",
        }
    }
    pub fn parse(s: &str) -> Option<SccMethod> {
        match s {
            "lockstep" => Some(SccMethod::Lockstep),
            "xb-bfs" | "xb" => Some(SccMethod::XbBfs),
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
    /// The number of (terminal) SCCs.
    pub count: u64,
    /// Each terminal SCC as a set (terminal queries only).
    pub classes: Vec<NodeId>,
    pub stats: SccStats,
}

/// How [`scc_of_model`] runs.
#[derive(Clone, Copy, Debug)]
pub struct SccOptions {
    pub method: SccMethod,
    pub limits: Limits,
    /// Collect garbage at every safe point (tests).
    pub gc_always: bool,
}

impl SccOptions {
    /// `method` without limits.
    pub fn new(method: SccMethod) -> SccOptions {
        SccOptions {
            method,
            limits: Limits::none(),
            gc_always: false,
        }
    }
}

/// The states in SCCs ([`SccMethod::Lockstep`]) or in terminal SCCs ([`SccMethod::XbBfs`]) of
/// the reachability graph of `model`: the reachable states by forward saturation, then the
/// method within them. The model must have a finite state space (stop an unbounded one with
/// the limits).
pub fn scc_of_model(
    model: &Model,
    opts: SccOptions,
    progress: Option<Progress<'_>>,
) -> Result<SccOutcome, Interrupted> {
    let SccOptions {
        method,
        limits,
        gc_always,
    } = opts;
    let mut dd = Dd::new(model.num_levels());
    let mut reach = Reach::new(&mut dd, model, Direction::Forward, None);
    reach.set_limits(limits);
    let init = reach.state_set(&model.initial);
    let reachable = reach.explore(init, Method::Saturation)?;
    drop(reach);
    // the SCC engine works on a bare set forest: take it out of the context
    let mut sets = std::mem::replace(&mut dd.sets, Forest::new(0, saturn_dd::Reduction::Quasi));
    sets.add_root(reachable);
    sets.gc(&[]);
    let domains: Vec<u32> = (1..=model.num_levels()).map(|k| sets.domain(k)).collect();
    let next = NextState::new(model, &domains);
    let mut engine = Scc::new(&mut sets, &next);
    engine.set_limits(limits);
    engine.set_gc_always(gc_always);
    if let Some(p) = progress {
        engine.set_progress(p);
    }
    let (found, classes) = match method {
        SccMethod::Lockstep => (engine.lockstep(reachable)?, Vec::new()),
        SccMethod::XbBfs => {
            let classes = engine.xb_tscc(reachable)?;
            let states = engine.sets.union_all(&classes);
            let count = classes.len() as u64;
            (SccSet { states, count }, classes)
        }
    };
    let stats = engine.stats;
    drop(engine);
    let state_count = sets.cardinality(found.states);
    Ok(SccOutcome {
        sets,
        reachable,
        states: found.states,
        state_count,
        count: found.count,
        classes,
        stats,
    })
}
