//! Explicit breadth-first exploration of a [`GeneralModel`] (general events, e.g. a lowered
//! PRISM program): every reachable state and every distinct (state, successor) pair, with
//! PRISM's self-loop at each deadlock state.

use std::collections::{BTreeSet, HashSet, VecDeque};

use saturn_model::{GeneralModel, StepError};

/// The explicit state space of a general model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneralStateSpace {
    /// Reachable states (values per variable, in the model's variable order).
    pub states: BTreeSet<Vec<i64>>,
    /// Distinct (state, successor) pairs over the reachable states.
    pub pairs: BTreeSet<(Vec<i64>, Vec<i64>)>,
    /// Reachable states with no successor.
    pub deadlocks: BTreeSet<Vec<i64>>,
}

impl GeneralStateSpace {
    /// PRISM's transition count: the distinct pairs plus a self-loop at each deadlock.
    pub fn prism_transitions(&self) -> usize {
        self.pairs.len() + self.deadlocks.len()
    }
}

/// Why the exploration stopped.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GeneralError {
    #[error(transparent)]
    Step(#[from] StepError),
    #[error("initial states: {0}")]
    Init(String),
    #[error("more than {0} states")]
    TooLarge(usize),
}

/// Explore `model` from its initial states, giving up beyond `max_states` states.
pub fn explore_general(
    model: &GeneralModel,
    max_states: usize,
) -> Result<GeneralStateSpace, GeneralError> {
    let init = model
        .initial_states_explicit()
        .map_err(|e| GeneralError::Init(e.to_string()))?;
    let mut seen: HashSet<Vec<i64>> = HashSet::new();
    let mut queue = VecDeque::new();
    for s in init {
        if seen.insert(s.clone()) {
            queue.push_back(s);
        }
    }
    let mut pairs = BTreeSet::new();
    let mut deadlocks = BTreeSet::new();
    while let Some(s) = queue.pop_front() {
        let mut any = false;
        for e in 0..model.events.len() {
            if let Some((t, _rate)) = model.step(e, &s)? {
                any = true;
                pairs.insert((s.clone(), t.clone()));
                if seen.insert(t.clone()) {
                    if seen.len() > max_states {
                        return Err(GeneralError::TooLarge(max_states));
                    }
                    queue.push_back(t);
                }
            }
        }
        if !any {
            deadlocks.insert(s);
        }
    }
    Ok(GeneralStateSpace {
        states: seen.into_iter().collect(),
        pairs,
        deadlocks,
    })
}
