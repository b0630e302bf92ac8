//! State spaces of a [`GeneralModel`] (general events: guards, updates and rates over several
//! variables, e.g. a lowered PRISM program) on decision diagrams, without ever enumerating the
//! global state space.
//!
//! - [`shannon`]: each event's relation by Shannon expansion over its support (optionally
//!   restricted to the local states known so far), and state predicates as sets;
//! - [`saturate`]: generation by saturation (thesis Figure 2.10) on the one saturation kernel
//!   ([`crate::reach`], `Reach::general`): relations united per Top level (the thesis's
//!   `N_k`), built on the fly as local states appear (the default);
//! - [`chaining`]: generation by chained images (the simple alternative);
//! - [`count`]: PRISM's transition count (distinct (state, successor) pairs), exactly.
//!
//! Variable `v` at level `k` has `high - low + 1` local states, local index `value - low`; the
//! set forest's domains follow the local states found during generation and are the whole
//! ranges afterwards. The initial-state set and, once the reachable states are known, per
//! event the set of states where firing is an error (a negative or non-finite rate, an update
//! leaving its variable's range, an evaluation error) are built over all `K` levels of a
//! quasi-reduced set forest and intersected with the reachable states
//! ([`Encoded::check_errors`]).

use num_bigint::BigUint;
use saturn_dd::{unprimed_level, Forest, NodeId, Reduction};
use saturn_model::{GeneralModel, Init};

use crate::limits::{Interrupted, Limits};

mod chaining;
mod count;
mod saturate;
mod shannon;

pub use chaining::explore_chaining;
pub use count::count_pairs;
pub use saturate::explore_saturation;
pub(crate) use shannon::event_relation;

/// Why a model cannot be encoded or explored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("the variable order is not a permutation of the {0} variables")]
    BadOrder(usize),
    #[error("variable '{0}' has more values than supported")]
    DomainTooLarge(String),
    #[error("the initial-state predicate: {0}")]
    Init(String),
    /// Firing an event in a reachable state is an error (PRISM stops there too).
    #[error("{location}: {what} (command {event}, e.g. in reachable state {state})")]
    Event {
        event: String,
        location: String,
        what: String,
        state: String,
    },
    #[error("interrupted: {0}")]
    Interrupted(Interrupted),
}

/// How the reachable states are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenMethod {
    /// Saturation (thesis Figure 2.10), relations per Top level built on the fly.
    Saturation,
    /// Chained images of whole-range event relations.
    Chaining,
}

impl GenMethod {
    pub fn name(self) -> &'static str {
        match self {
            GenMethod::Saturation => "saturation",
            GenMethod::Chaining => "chaining",
        }
    }
}

/// The encoded model: forests, per-event relations, per-event error sets and the initial set.
pub struct Encoded {
    /// Quasi-reduced set forest of `K` levels.
    pub sets: Forest,
    /// Identity-reduced relation forest of `2K` levels.
    pub rels: Forest,
    /// `order[k-1]` is the variable at level `k`.
    pub order: Vec<usize>,
    /// `level_of[v]` is the level of variable `v`.
    pub level_of: Vec<usize>,
    /// One relation per event (same index as the model's events); EMPTY until built.
    pub events: Vec<NodeId>,
    /// Per event, the states (of `sets`) where firing it is an error (empty until
    /// [`Encoded::check_errors`] builds them).
    pub errors: Vec<NodeId>,
    pub init: NodeId,
}

/// The number of values of variable `v`, as a domain size.
fn domain_size(model: &GeneralModel, v: usize) -> Result<u32, EncodeError> {
    u32::try_from(model.vars[v].size())
        .ok()
        .filter(|&s| s < u32::MAX)
        .ok_or_else(|| EncodeError::DomainTooLarge(model.vars[v].name.clone()))
}

/// Encode `model` with the variable order `order` (`order[k-1]` = variable at level `k`): the
/// forests, domains and initial set (the error sets are built by [`Encoded::check_errors`]).
/// Event relations are built by the generation method ([`Encoded::build_relations`] builds them
/// over whole ranges).
pub fn encode(model: &GeneralModel, order: &[usize]) -> Result<Encoded, EncodeError> {
    let n = model.vars.len();
    let mut level_of = vec![usize::MAX; n];
    if order.len() != n {
        return Err(EncodeError::BadOrder(n));
    }
    for (k, &v) in order.iter().enumerate() {
        if v >= n || level_of[v] != usize::MAX {
            return Err(EncodeError::BadOrder(n));
        }
        level_of[v] = k + 1;
    }
    let mut sets = Forest::new(n, Reduction::Quasi);
    let mut rels = Forest::new(2 * n, Reduction::Identity);
    for (k, &v) in order.iter().enumerate() {
        let size = domain_size(model, v)?;
        // the set forest's domains follow the local states found (generation builds the
        // relations over them); the relation forest knows every value, so that a pair relating
        // only some values to themselves is never mistaken for the identity
        rels.set_domain(unprimed_level(k + 1), size);
    }
    let init = match &model.init {
        Init::State(s) => {
            let local: Vec<u32> = order
                .iter()
                .map(|&v| (s[v] - model.vars[v].low) as u32)
                .collect();
            sets.singleton(&local)
        }
        Init::Pred(p) => {
            shannon::predicate_set(&mut sets, model, order, p, false).map_err(EncodeError::Init)?
        }
    };
    Ok(Encoded {
        sets,
        rels,
        order: order.to_vec(),
        level_of,
        events: vec![NodeId::EMPTY; model.events.len()],
        errors: Vec::new(),
        init,
    })
}

impl Encoded {
    /// Build every event's relation, over the local states `known` per level (`None`: each
    /// variable's whole range).
    pub fn build_relations(&mut self, model: &GeneralModel, known: Option<&[Vec<u32>]>) {
        for e in 0..model.events.len() {
            self.events[e] =
                shannon::event_relation(&mut self.rels, model, e, &self.level_of, known);
        }
    }

    /// The values of a state given as local indices per level.
    pub fn values(&self, model: &GeneralModel, local: &[u32]) -> Vec<i64> {
        let mut s = vec![0; self.order.len()];
        for (k, &v) in self.order.iter().enumerate() {
            s[v] = model.vars[v].low + local[k] as i64;
        }
        s
    }

    /// The local indices per level of a state given by values.
    pub fn local(&self, model: &GeneralModel, values: &[i64]) -> Vec<u32> {
        self.order
            .iter()
            .map(|&v| (values[v] - model.vars[v].low) as u32)
            .collect()
    }

    /// Declare every variable's whole range as its level's domain in the set forest.
    pub fn full_domains(&mut self, model: &GeneralModel) {
        for (k, &v) in self.order.iter().enumerate() {
            self.sets.set_domain(k + 1, model.vars[v].size() as u32);
        }
    }

    /// Per event, the states where firing it is an error (built once, over whole ranges).
    fn build_errors(&mut self, model: &GeneralModel) -> Result<(), EncodeError> {
        if self.errors.len() == model.events.len() {
            return Ok(());
        }
        self.errors.clear();
        for (i, ev) in model.events.iter().enumerate() {
            let cond = shannon::error_condition(model, i);
            let err = shannon::predicate_set(&mut self.sets, model, &self.order, &cond, true)
                .map_err(|what| EncodeError::Event {
                    event: ev.name.clone(),
                    location: ev.location.clone(),
                    what,
                    state: "(any)".into(),
                })?;
            self.errors.push(err);
        }
        Ok(())
    }

    /// The first event that is an error in some state of `reached`, with such a state.
    pub fn check_errors(
        &mut self,
        model: &GeneralModel,
        reached: NodeId,
    ) -> Result<(), EncodeError> {
        self.build_errors(model)?;
        for (i, &err) in self.errors.clone().iter().enumerate() {
            let bad = self.sets.intersect(reached, err);
            if let Some(st) = self.sets.pick(bad) {
                let vals = self.values(model, &st);
                let ev = &model.events[i];
                let what = match model.step(i, &vals) {
                    Err(e) => e.to_string(),
                    Ok(_) => "an evaluation error (overflow or division by zero)".into(),
                };
                return Err(EncodeError::Event {
                    event: ev.name.clone(),
                    location: ev.location.clone(),
                    what,
                    state: model.show_state(&vals),
                });
            }
        }
        Ok(())
    }

    /// The union of all event relations.
    pub fn union_relation(&mut self) -> NodeId {
        let evs = self.events.clone();
        self.rels.union_all(&evs)
    }

    /// The set nodes that must survive a collection of the set forest.
    fn keep(&self) -> Vec<NodeId> {
        let mut v = self.errors.clone();
        v.push(self.init);
        v
    }
}

/// The state space of a general model as PRISM reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralStateSpace {
    /// The reachable states (a node of the encoding's set forest).
    pub reached: NodeId,
    pub states: BigUint,
    /// Distinct (state, successor) pairs plus one self-loop per deadlock state (PRISM's count).
    pub transitions: BigUint,
    /// Reachable states without successors (PRISM adds a self-loop to each).
    pub deadlocks: BigUint,
    /// The deadlock states (a node of the set forest).
    pub dead: NodeId,
    /// Nodes of the reachable set, and of all event relations together.
    pub set_nodes: usize,
    pub relation_nodes: usize,
    /// Seconds spent generating the reachable states (without encoding and counting).
    pub generation_seconds: f64,
}

/// Encode `model` with `order`, generate its reachable states with `method`, check that no
/// reachable state fires an event in error, and count PRISM's transitions. Afterwards
/// `Encoded::events` holds every event's relation (over the reachable local states at least).
pub fn generate_general(
    model: &GeneralModel,
    order: &[usize],
    method: GenMethod,
    limits: &Limits,
) -> Result<(Encoded, GeneralStateSpace), EncodeError> {
    let mut enc = encode(model, order)?;
    let t0 = std::time::Instant::now();
    let reached = match method {
        GenMethod::Saturation => explore_saturation(model, &mut enc, limits)?,
        GenMethod::Chaining => explore_chaining(model, &mut enc, limits)?,
    };
    let generation_seconds = t0.elapsed().as_secs_f64();
    enc.full_domains(model);
    enc.check_errors(model, reached)?;
    let all = enc.union_relation();
    let pairs = count_pairs(&enc.sets, &enc.rels, reached, all);
    let live = saturn_dd::preimage(&mut enc.sets, &enc.rels, reached, all);
    let dead = enc.sets.minus(reached, live);
    let deadlocks = enc.sets.cardinality(dead);
    let states = enc.sets.cardinality(reached);
    let set_nodes = enc.sets.count_nodes(&[reached]);
    let relation_nodes = enc.rels.count_nodes(&enc.events);
    Ok((
        enc,
        GeneralStateSpace {
            reached,
            states,
            transitions: pairs + &deadlocks,
            deadlocks,
            dead,
            set_nodes,
            relation_nodes,
            generation_seconds,
        },
    ))
}
