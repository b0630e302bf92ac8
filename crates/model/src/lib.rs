//! The neutral discrete-state model (thesis Definition 5) and Petri nets (Definition 6).
//!
//! A [`Model`] is a sequence of levels `1..=K` (index 0 of every vector is level 1, the bottom),
//! each with a local state space that may grow, and a set of [`Event`]s. Each event has a
//! support (the levels it reads or writes) and a `top` (its highest support level); its
//! next-state function is the product of one [`LocalFn`] per support level. Levels outside the
//! support are left unchanged (identity).
//!
//! Petri nets ([`PetriNet`]) are lowered to a `Model` with one place per level, the local state
//! being the token count itself (so local domains grow naturally as tokens appear), or with
//! each one-hot group of places on one level ([`OneHot`]).
//! General events ([`GeneralModel`], [`general`]) read and write several variables through
//! expressions ([`expr`]); PRISM programs are lowered to them.
//! This crate knows nothing of decision diagrams or of any file format.

pub mod bounded;
pub mod expr;
pub mod families;
pub mod general;
pub mod one_hot;
pub mod order;
pub mod petri;
pub mod scaling;
pub mod state_machine;

pub use general::{GenEvent, GeneralModel, Init, StepError, Var};
pub use one_hot::OneHot;
pub use petri::{Arc, PetriNet, Place, Transition};

/// One level of the model (a state variable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// Display name (a place id, a PRISM variable).
    pub name: String,
    /// Known upper bound on the local state index, if the model declares one (PRISM ranges).
    /// `None` means unbounded: the domain grows as states are discovered (Petri nets).
    pub bound: Option<u32>,
    /// A one-hot group of places ([`one_hot`]): local state `i` is one token in the group's
    /// `i`-th place, so every local state counts one token (the StateSpace figures read it).
    /// False when the local state is the token count itself (or a variable's value).
    pub one_hot: bool,
    /// A one-hot level's places in the net, local state `i` a token in `group[i]` (what a
    /// formula over the places reads); empty for any other level.
    pub group: Vec<usize>,
}

/// The local next-state function of one event at one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocalFn {
    /// Petri-net style: enabled in local state `i` iff `i >= need` and `i < inhibit`;
    /// then the new local state is `i + delta`.
    Petri { need: u32, inhibit: u32, delta: i64 },
}

impl LocalFn {
    /// The successor of local state `i`, or `None` when the event is disabled there. A
    /// successor beyond `u32::MAX` is reported as `u32::MAX` (never as "disabled"), so that an
    /// engine sees an index it cannot store and stops, instead of silently dropping the firing.
    #[inline]
    pub fn fire(&self, i: u32) -> Option<u32> {
        match *self {
            LocalFn::Petri {
                need,
                inhibit,
                delta,
            } => {
                if i >= need && i < inhibit {
                    let j = i as i64 + delta;
                    Some(u32::try_from(j.max(0)).unwrap_or(u32::MAX))
                } else {
                    None
                }
            }
        }
    }

    /// Is the event enabled in local state `i` at this level?
    #[inline]
    pub fn enabled(&self, i: u32) -> bool {
        match *self {
            LocalFn::Petri { need, inhibit, .. } => i >= need && i < inhibit,
        }
    }

    /// The local states below `dom` where the function is enabled (an interval).
    #[inline]
    pub fn enabled_below(&self, dom: u32) -> std::ops::Range<u32> {
        match *self {
            LocalFn::Petri { need, inhibit, .. } => {
                need.min(dom)..inhibit.min(dom).max(need.min(dom))
            }
        }
    }

    /// Is the function disabled in every local state from `i` up (an inhibitor below `i`)?
    #[inline]
    pub fn disabled_from(&self, i: u32) -> bool {
        match *self {
            LocalFn::Petri { inhibit, .. } => inhibit <= i,
        }
    }

    /// Does this local function leave every enabled local state unchanged (a pure guard)?
    pub fn is_guard(&self) -> bool {
        match *self {
            LocalFn::Petri { delta, .. } => delta == 0,
        }
    }
}

/// An event: a product of local functions over its support.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub name: String,
    /// `(level, local function)` pairs, sorted by level, highest first; levels are 1-based.
    pub parts: Vec<(usize, LocalFn)>,
}

impl Event {
    /// Top(e): the highest level in the support (0 for an event with empty support).
    pub fn top(&self) -> usize {
        self.parts.first().map_or(0, |p| p.0)
    }
    /// The lowest level in the support (0 for an empty support).
    pub fn bottom(&self) -> usize {
        self.parts.last().map_or(0, |p| p.0)
    }
}

/// A discrete-state model in the thesis's structured form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// Levels `1..=K`: `levels[k-1]` is level `k`.
    pub levels: Vec<Level>,
    /// The initial state: local state index per level (`initial[k-1]` for level `k`).
    pub initial: Vec<u32>,
    pub events: Vec<Event>,
}

impl Model {
    pub fn num_levels(&self) -> usize {
        self.levels.len()
    }

    /// The model without its level and event names (emptied): for a run that never names a
    /// state or an event, so that it keeps no second copy of the net's identifiers while it
    /// generates (60,000 levels and 40,000 events: 100,000 small blocks).
    pub fn without_names(mut self) -> Model {
        for l in &mut self.levels {
            l.name = String::new();
        }
        for e in &mut self.events {
            e.name = String::new();
        }
        self
    }

    /// Events partitioned by Top: `by_top[k]` lists the events with `top() == k` (`k` in `0..=K`).
    pub fn events_by_top(&self) -> Vec<Vec<usize>> {
        let mut by_top = vec![Vec::new(); self.levels.len() + 1];
        for (i, e) in self.events.iter().enumerate() {
            by_top[e.top()].push(i);
        }
        by_top
    }
}
