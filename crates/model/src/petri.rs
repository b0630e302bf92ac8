//! Place/transition nets (thesis Definition 6), with inhibitor arcs.

use crate::{Event, Level, LocalFn, Model};

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
    pub fn to_model(&self, order: &[usize]) -> Result<Model, LowerError> {
        let n = self.places.len();
        let mut level_of = vec![usize::MAX; n];
        if order.len() != n {
            return Err(LowerError::BadOrder {
                got: order.len(),
                places: n,
            });
        }
        for (k, &p) in order.iter().enumerate() {
            if p >= n || level_of[p] != usize::MAX {
                return Err(LowerError::BadOrder {
                    got: order.len(),
                    places: n,
                });
            }
            level_of[p] = k + 1;
        }
        let mut levels = Vec::with_capacity(n);
        let mut initial = Vec::with_capacity(n);
        for &p in order {
            let pl = &self.places[p];
            check_initial(pl)?;
            levels.push(Level {
                name: pl.id.clone(),
                bound: None,
                one_hot: false,
            });
            initial.push(pl.initial as u32);
        }
        let mut events = Vec::with_capacity(self.transitions.len());
        for tr in &self.transitions {
            // per place: (need, inhibit, delta)
            let mut acc: Vec<(usize, u64, u64, i64)> = Vec::new();
            let slot = |p: usize, acc: &mut Vec<(usize, u64, u64, i64)>| -> usize {
                if let Some(i) = acc.iter().position(|x| x.0 == p) {
                    i
                } else {
                    acc.push((p, 0, u64::MAX, 0));
                    acc.len() - 1
                }
            };
            let check = |a: &Arc| self.check_weight(tr, a);
            for a in &tr.inputs {
                check(a)?;
                let i = slot(a.place, &mut acc);
                acc[i].1 = acc[i].1.max(a.weight);
                acc[i].3 -= a.weight as i64;
            }
            for a in &tr.outputs {
                check(a)?;
                let i = slot(a.place, &mut acc);
                acc[i].3 += a.weight as i64;
            }
            for a in &tr.inhibitors {
                check(a)?;
                let i = slot(a.place, &mut acc);
                acc[i].2 = acc[i].2.min(a.weight);
            }
            let mut parts: Vec<(usize, LocalFn)> = acc
                .into_iter()
                // a place whose arcs cancel out and impose no condition is not in the support
                .filter(|&(_, need, inh, delta)| !(need == 0 && inh == u64::MAX && delta == 0))
                .map(|(p, need, inh, delta)| {
                    let inhibit = if inh >= u32::MAX as u64 {
                        u32::MAX
                    } else {
                        inh as u32
                    };
                    (
                        level_of[p],
                        LocalFn::Petri {
                            need: need as u32,
                            inhibit,
                            delta,
                        },
                    )
                })
                .collect();
            parts.sort_by_key(|p| std::cmp::Reverse(p.0));
            events.push(Event {
                name: tr.id.clone(),
                parts,
            });
        }
        Ok(Model {
            levels,
            initial,
            events,
        })
    }
}
