//! Breadth-first exploration of the reachability graph of a Petri net or of a [`Model`].

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use saturn_model::{Model, PetriNet};

/// Why an exploration stopped before the end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Limit {
    /// More than `max_states` states are reachable.
    #[error("more than {max_states} reachable states")]
    States { max_states: usize },
    /// Firing `transition` would overflow a token count (u64 for nets, u32 for models).
    #[error("firing '{transition}' overflows a token count")]
    Overflow { transition: String },
}

/// The reachability graph of a system, explored explicitly.
///
/// State 0 is the initial state; states are numbered in BFS order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExplicitStateSpace<S = Vec<u64>> {
    /// The number of reachable states (`markings.len()`).
    pub states: usize,
    /// The reachable states: markings for Petri nets (one entry per place, in net order); for
    /// models, one local state per level (index 0 = level 1).
    pub markings: Vec<S>,
    /// `successors[s]` lists `(event, target)` for every event enabled in state `s`, in event
    /// order (events are transitions for nets). Two events leading to the same target both appear.
    pub successors: Vec<Vec<(usize, usize)>>,
    /// The contest's transition count: pairs (reachable state, enabled event).
    pub transitions: u64,
    /// Max over reachable states and places (levels) of the token count (local state).
    pub max_tokens_place: u64,
    /// Max over reachable states of the sum of all token counts (local states).
    pub max_tokens_marking: u64,
}

impl<S> ExplicitStateSpace<S> {
    /// The number of reachable states.
    pub fn num_states(&self) -> usize {
        self.markings.len()
    }
    /// States that enable no event.
    pub fn deadlocks(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.markings.len()).filter(|&s| self.successors[s].is_empty())
    }
    /// Predecessor lists `(event, source)`, the reverse of [`Self::successors`].
    pub fn predecessors(&self) -> Vec<Vec<(usize, usize)>> {
        let mut pred = vec![Vec::new(); self.markings.len()];
        for (s, succ) in self.successors.iter().enumerate() {
            for &(e, t) in succ {
                pred[t].push((e, s));
            }
        }
        pred
    }
}

/// Explore the reachability graph of `net` from its initial marking.
pub fn explore_petri(
    net: &PetriNet,
    max_states: usize,
) -> Result<ExplicitStateSpace<Vec<u64>>, Limit> {
    let fire = |t: usize, m: &[u64]| -> Result<Option<Vec<u64>>, Limit> {
        if !net.enabled(t, m) {
            return Ok(None);
        }
        let tr = &net.transitions[t];
        let mut n = m.to_vec();
        for a in &tr.inputs {
            n[a.place] -= a.weight;
        }
        for a in &tr.outputs {
            n[a.place] = n[a.place]
                .checked_add(a.weight)
                .ok_or_else(|| Limit::Overflow {
                    transition: tr.id.clone(),
                })?;
        }
        Ok(Some(n))
    };
    bfs(
        net.initial_marking(),
        net.transitions.len(),
        max_states,
        fire,
        |&x| x,
    )
}

/// Explore the reachable states of a [`Model`] (local state vectors, index 0 = level 1).
pub fn explore_model(
    model: &Model,
    max_states: usize,
) -> Result<ExplicitStateSpace<Vec<u32>>, Limit> {
    let fire = |e: usize, s: &[u32]| -> Result<Option<Vec<u32>>, Limit> {
        let ev = &model.events[e];
        let mut n = s.to_vec();
        for (level, f) in &ev.parts {
            let i = level - 1;
            if !f.enabled(s[i]) {
                return Ok(None);
            }
            match f.fire(s[i]) {
                Some(j) => n[i] = j,
                None => {
                    return Err(Limit::Overflow {
                        transition: ev.name.clone(),
                    })
                }
            }
        }
        Ok(Some(n))
    };
    bfs(
        model.initial.clone(),
        model.events.len(),
        max_states,
        fire,
        |&x| u64::from(x),
    )
}

/// Generic BFS: `fire(e, s)` is `Ok(None)` when `e` is disabled in `s`.
fn bfs<T, F, V>(
    initial: Vec<T>,
    num_events: usize,
    max_states: usize,
    fire: F,
    value: V,
) -> Result<ExplicitStateSpace<Vec<T>>, Limit>
where
    T: Clone + Eq + Hash,
    F: Fn(usize, &[T]) -> Result<Option<Vec<T>>, Limit>,
    V: Fn(&T) -> u64,
{
    let hasher = FxBuildHasher;
    let mut table: HashTable<usize> = HashTable::new();
    let mut states: Vec<Vec<T>> = Vec::new();
    let mut successors: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut transitions = 0u64;
    let mut max_place = 0u64;
    let mut max_marking = 0u64;

    // Insert `s` if new; return its index.
    let mut intern = |s: Vec<T>, states: &mut Vec<Vec<T>>| -> Result<usize, Limit> {
        let h = hasher.hash_one(&s);
        if let Some(&i) = table.find(h, |&i| states[i] == s) {
            return Ok(i);
        }
        if states.len() >= max_states {
            return Err(Limit::States { max_states });
        }
        let i = states.len();
        states.push(s);
        table.insert_unique(h, i, |&j| hasher.hash_one(&states[j]));
        Ok(i)
    };

    intern(initial, &mut states)?;
    let mut next = 0;
    while next < states.len() {
        let cur = states[next].clone();
        let mut total = 0u64;
        for v in &cur {
            let v = value(v);
            max_place = max_place.max(v);
            total = total.saturating_add(v);
        }
        max_marking = max_marking.max(total);
        let mut succ = Vec::new();
        for e in 0..num_events {
            if let Some(n) = fire(e, &cur)? {
                let j = intern(n, &mut states)?;
                succ.push((e, j));
            }
        }
        transitions += succ.len() as u64;
        successors.push(succ);
        next += 1;
    }
    Ok(ExplicitStateSpace {
        states: states.len(),
        markings: states,
        successors,
        transitions,
        max_tokens_place: max_place,
        max_tokens_marking: max_marking,
    })
}
