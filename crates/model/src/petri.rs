//! Place/transition nets (thesis Definition 6), with inhibitor arcs.

use crate::{Model, OneHot};

/// A place: its PNML id, display name and initial marking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub id: String,
    pub name: String,
    pub initial: u64,
}

/// A weighted arc between a transition and a place (`place` indexes [`PetriNet::places`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arc {
    pub place: usize,
    pub weight: u64,
}

/// A transition with its input, output and inhibitor arcs.
///
/// Enabled in marking `m` iff `m(p) >= w` for every input arc `(p, w)` and `m(p) < w` for every
/// inhibitor arc `(p, w)`; firing gives `m - W(., t) + W(t, .)`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Transition {
    pub id: String,
    pub name: String,
    pub inputs: Vec<Arc>,
    pub outputs: Vec<Arc>,
    pub inhibitors: Vec<Arc>,
}

/// A P/T net. Arcs of one kind between the same pair are merged (weights added) by the readers.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PetriNet {
    pub name: String,
    pub places: Vec<Place>,
    pub transitions: Vec<Transition>,
}

/// Why a net cannot be lowered to a model.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LowerError {
    #[error("place '{place}' has {tokens} tokens initially; at most {max} are supported")]
    TooManyTokens {
        place: String,
        tokens: u64,
        max: u64,
    },
    #[error("arc weight {weight} between transition '{transition}' and place '{place}' is too large (at most {max})")]
    WeightTooLarge {
        transition: String,
        place: String,
        weight: u64,
        max: u64,
    },
    #[error("the variable order has {got} entries but the net has {places} places, or is not a permutation")]
    BadOrder { got: usize, places: usize },
}

/// The largest token count a place may hold (local state indices are `u32`).
pub const MAX_TOKENS: u64 = (u32::MAX - 1) as u64;

/// An initial token count a local state index can hold, or the error naming the place.
pub(crate) fn check_initial(pl: &Place) -> Result<(), LowerError> {
    if pl.initial > MAX_TOKENS {
        Err(LowerError::TooManyTokens {
            place: pl.id.clone(),
            tokens: pl.initial,
            max: MAX_TOKENS,
        })
    } else {
        Ok(())
    }
}

impl PetriNet {
    pub fn place_index(&self, id: &str) -> Option<usize> {
        self.places.iter().position(|p| p.id == id)
    }
    pub fn transition_index(&self, id: &str) -> Option<usize> {
        self.transitions.iter().position(|t| t.id == id)
    }

    /// The initial marking as a vector of token counts.
    pub fn initial_marking(&self) -> Vec<u64> {
        self.places.iter().map(|p| p.initial).collect()
    }

    /// Is `t` enabled in marking `m`?
    pub fn enabled(&self, t: usize, m: &[u64]) -> bool {
        let tr = &self.transitions[t];
        tr.inputs.iter().all(|a| m[a.place] >= a.weight)
            && tr.inhibitors.iter().all(|a| m[a.place] < a.weight)
    }

    /// Fire `t` in `m` (which must enable it).
    pub fn fire(&self, t: usize, m: &[u64]) -> Vec<u64> {
        let tr = &self.transitions[t];
        let mut n = m.to_vec();
        for a in &tr.inputs {
            n[a.place] -= a.weight;
        }
        for a in &tr.outputs {
            n[a.place] += a.weight;
        }
        n
    }

    /// An arc weight a local state index can hold, or the error naming the arc.
    pub(crate) fn check_weight(&self, tr: &Transition, a: &Arc) -> Result<(), LowerError> {
        if a.weight > MAX_TOKENS {
            Err(LowerError::WeightTooLarge {
                transition: tr.id.clone(),
                place: self.places[a.place].id.clone(),
                weight: a.weight,
                max: MAX_TOKENS,
            })
        } else {
            Ok(())
        }
    }

    /// Lower the net to a [`Model`], with `order[k]` the place at level `k+1`
    /// (so `order[0]` is the bottom level). `order` must be a permutation of the places.
    /// (The lowering with no one-hot groups: [`OneHot::to_model`].)
    pub fn to_model(&self, order: &[usize]) -> Result<Model, LowerError> {
        OneHot::none(self.places.len()).to_model(self, order)
    }
}
