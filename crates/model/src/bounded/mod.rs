//! Boundedness of P/T nets (with inhibitor arcs), decided before or alongside generation.
//!
//! Two complementary procedures, both exact (integers only, no floating point):
//! - [`structural_bounds`] (in `semiflows`, the tableau in `farkas`): the Farkas /
//!   Martinez-Silva algorithm computes the extreme rays `y >= 0` of the cone `y^T C <= 0` (first
//!   the P-semiflows `y^T C = 0`, the cheap common case), on a sparse tableau indexed by column
//!   and by place, so that nets with tens of thousands of places are settled in a fraction of
//!   a second. Every reachable marking `m` satisfies `y·m <= y·m0`, so a place `p`
//!   with `y_p > 0` holds at most `floor(y·m0 / y_p)` tokens. Inhibitor arcs only remove
//!   behaviour, so these bounds hold on the net with its inhibitor arcs. The work is capped;
//!   when the cap is hit the rays found so far that already satisfy every column still give
//!   sound bounds.
//! - [`find_witness`] (in `coverability`): a depth-first search of the reachability tree that
//!   stops at the first marking `m'` strictly covering an ancestor `m` such that the pumping
//!   sequence `m -> m'` can be repeated forever (no place tested by an inhibitor arc of the
//!   pumping sequence grows). For nets without inhibitor arcs this is the Karp-Miller
//!   criterion, so the search is complete (given time and memory); with inhibitor arcs it is
//!   sound but may not terminate (boundedness is undecidable), hence the stop callback.
//!
//! [`decide_boundedness`] chains them, with random walks ([`walk_witness`], in `walks`: sound,
//! not complete) between the two, since the depth-first search can spend its time in a large
//! bounded region; [`replay`] checks a witness on the net.

mod coverability;
mod farkas;
mod semiflows;
mod walks;

pub use coverability::{find_witness, SearchOutcome};
pub(crate) use farkas::gcd;
pub use semiflows::{
    p_semiflow_supports, p_semiflows, structural_bounds, t_semiflow_supports, StructuralBounds,
};
pub use walks::{walk_witness, Rng};

/// The random walks [`walk_witness`] makes before the depth-first search starts (on a net with
/// hundreds of places and transitions, a second or two at most).
pub const WALKS: usize = 256;

use crate::PetriNet;

/// A proof that a net is unbounded: `m0 --prefix--> m --pump--> m'` with `m' >= m`, `m' != m`,
/// and no place tested by an inhibitor arc of a `pump` transition growing, so `pump` fires again
/// from `m'` and forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// Transitions (indices into [`PetriNet::transitions`]) fired from the initial marking to `m`.
    pub prefix: Vec<usize>,
    /// Transitions fired from `m` to `m'` (never empty).
    pub pump: Vec<usize>,
    /// The places with `m'(p) > m(p)`, increasing (never empty).
    pub growing: Vec<usize>,
}

/// The outcome of [`decide_boundedness`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Boundedness {
    /// Every reachable marking has at most `bounds[p]` tokens in place `p`.
    Bounded {
        bounds: Vec<u64>,
        /// True when the bounds come from P-semiflows (upper bounds); false when they are the
        /// exact maxima of a complete explicit exploration.
        structural: bool,
    },
    /// The net is unbounded; the witness replays on it (see [`replay`]).
    Unbounded { witness: Witness },
    /// No conclusion; `bounds` holds the structural bounds found (`None`: no bound known).
    Unknown {
        reason: Unknown,
        bounds: Vec<Option<u64>>,
    },
}

/// Why [`decide_boundedness`] could not conclude.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// The stop callback asked to stop.
    Stopped,
    /// The explicit search reached its marking budget.
    MarkingLimit,
    /// A token count would overflow `u64`.
    Overflow,
}

/// Work limits for [`decide_boundedness_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest number of rows the Farkas algorithm keeps at once before giving up.
    pub max_rows: usize,
    /// Largest number of elementary steps (support tests, row entries) of the Farkas algorithm.
    pub max_work: u64,
    /// Memory budget in bytes for the markings stored by the explicit search.
    pub max_search_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_rows: 20_000,
            max_work: 400_000_000,
            max_search_bytes: 512 << 20,
        }
    }
}

/// Decide boundedness with the default [`Limits`]; `stop` is polled regularly and makes the
/// search return [`Unknown::Stopped`] when it answers true.
pub fn decide_boundedness(net: &PetriNet, stop: &dyn Fn() -> bool) -> Boundedness {
    decide_boundedness_with(net, &Limits::default(), stop)
}

/// Decide boundedness: structural bounds first, then the witness search for the places they
/// leave uncovered.
pub fn decide_boundedness_with(
    net: &PetriNet,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> Boundedness {
    decide_boundedness_from(net, None, limits, stop)
}

/// [`decide_boundedness_with`], given structural bounds computed earlier (with a smaller
/// budget, say): used as they are when that computation ran to completion (a larger budget
/// would find the same rays), computed again within `limits` otherwise.
pub fn decide_boundedness_from(
    net: &PetriNet,
    earlier: Option<StructuralBounds>,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> Boundedness {
    let st = match earlier {
        Some(st) if st.complete => st,
        _ => structural_bounds(net, limits, stop),
    };
    if let Some(bounds) = st.bounds.iter().copied().collect::<Option<Vec<u64>>>() {
        return Boundedness::Bounded {
            bounds,
            structural: true,
        };
    }
    let covered: Vec<bool> = st.bounds.iter().map(Option::is_some).collect();
    if let Some(witness) = walk_witness(net, &covered, WALKS, limits.max_search_bytes / 4, stop) {
        return Boundedness::Unbounded { witness };
    }
    match find_witness(net, &covered, limits.max_search_bytes, stop) {
        SearchOutcome::Unbounded(witness) => Boundedness::Unbounded { witness },
        SearchOutcome::Bounded(maxima) => Boundedness::Bounded {
            bounds: maxima,
            structural: false,
        },
        SearchOutcome::Unknown(reason) => Boundedness::Unknown {
            reason,
            bounds: st.bounds,
        },
    }
}

/// Why a witness does not replay on a net.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("the witness names transition index {index}; the net has {count} transitions")]
    NoSuchTransition { index: usize, count: usize },
    #[error("step {step} of the {part} fires '{transition}', which is not enabled there")]
    NotEnabled {
        part: &'static str,
        step: usize,
        transition: String,
    },
    #[error("step {step} of the {part} ('{transition}') overflows a token count")]
    Overflow {
        part: &'static str,
        step: usize,
        transition: String,
    },
    #[error("the pumping sequence is empty")]
    EmptyPump,
    #[error("the pumping sequence loses tokens in place '{place}'")]
    Shrinks { place: String },
    #[error("the pumping sequence changes no place")]
    NoGrowth,
    #[error(
        "the witness lists growing places {claimed:?} but the places that grow are {actual:?}"
    )]
    WrongGrowing {
        claimed: Vec<usize>,
        actual: Vec<usize>,
    },
    #[error("place '{place}' grows but inhibits '{transition}' of the pumping sequence")]
    InhibitorGrows { place: String, transition: String },
}

/// The markings a replayed witness passes through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// The marking `m` reached by the prefix.
    pub start: Vec<u64>,
    /// The marking `m'` reached by the pump from `m`.
    pub end: Vec<u64>,
}

/// Check `witness` on `net`, inhibitor arcs included: the prefix fires from the initial marking,
/// the pump fires from the marking reached, ends in a strictly larger marking whose growing
/// places are exactly `witness.growing`, and none of them is tested by an inhibitor arc of a
/// pump transition (so the pump fires again, forever). The pump is also fired a second time.
pub fn replay(net: &PetriNet, witness: &Witness) -> Result<Replayed, ReplayError> {
    let view = NetView::new(net);
    let mut m = net.initial_marking();
    let run = |m: &mut Vec<u64>, seq: &[usize], part: &'static str| -> Result<(), ReplayError> {
        for (step, &t) in seq.iter().enumerate() {
            if t >= view.pre.len() {
                return Err(ReplayError::NoSuchTransition {
                    index: t,
                    count: view.pre.len(),
                });
            }
            let transition = || net.transitions[t].id.clone();
            match view.fire(t, m) {
                Fired::Disabled => {
                    return Err(ReplayError::NotEnabled {
                        part,
                        step,
                        transition: transition(),
                    })
                }
                Fired::Overflow => {
                    return Err(ReplayError::Overflow {
                        part,
                        step,
                        transition: transition(),
                    })
                }
                Fired::Ok => {}
            }
        }
        Ok(())
    };
    run(&mut m, &witness.prefix, "prefix")?;
    if witness.pump.is_empty() {
        return Err(ReplayError::EmptyPump);
    }
    let start = m.clone();
    run(&mut m, &witness.pump, "pump")?;
    let mut actual = Vec::new();
    for (p, (&a, &b)) in start.iter().zip(&m).enumerate() {
        if b < a {
            return Err(ReplayError::Shrinks {
                place: net.places[p].id.clone(),
            });
        }
        if b > a {
            actual.push(p);
        }
    }
    if actual.is_empty() {
        return Err(ReplayError::NoGrowth);
    }
    if actual != witness.growing {
        return Err(ReplayError::WrongGrowing {
            claimed: witness.growing.clone(),
            actual,
        });
    }
    for &t in &witness.pump {
        for &(p, _) in &view.inhibit[t] {
            if m[p as usize] != start[p as usize] {
                return Err(ReplayError::InhibitorGrows {
                    place: net.places[p as usize].id.clone(),
                    transition: net.transitions[t].id.clone(),
                });
            }
        }
    }
    let end = m.clone();
    run(&mut m, &witness.pump, "second pump")?;
    Ok(Replayed { start, end })
}

/// The outcome of firing a transition in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fired {
    Ok,
    Disabled,
    Overflow,
}

/// A net's transitions with arcs merged per place (weights of parallel arcs added, the smallest
/// inhibitor weight kept), sorted by place: the firing rule shared by the search and [`replay`].
pub(crate) struct NetView {
    pub pre: Vec<Vec<(u32, u64)>>,
    pub post: Vec<Vec<(u32, u64)>>,
    pub inhibit: Vec<Vec<(u32, u64)>>,
}

fn merge(arcs: &[crate::Arc], add: bool) -> Vec<(u32, u64)> {
    let mut v: Vec<(u32, u64)> = arcs.iter().map(|a| (a.place as u32, a.weight)).collect();
    v.sort_unstable();
    let mut out: Vec<(u32, u64)> = Vec::with_capacity(v.len());
    for (p, w) in v {
        match out.last_mut() {
            Some(last) if last.0 == p => {
                last.1 = if add {
                    last.1.saturating_add(w)
                } else {
                    last.1.min(w)
                }
            }
            _ => out.push((p, w)),
        }
    }
    out
}

impl NetView {
    pub fn new(net: &PetriNet) -> Self {
        let ts = &net.transitions;
        NetView {
            pre: ts.iter().map(|t| merge(&t.inputs, true)).collect(),
            post: ts.iter().map(|t| merge(&t.outputs, true)).collect(),
            inhibit: ts.iter().map(|t| merge(&t.inhibitors, false)).collect(),
        }
    }

    /// Can `pump`, which leads from `from` to `to >= from`, fire again from `to` forever? Yes
    /// when no place an inhibitor arc of a `pump` transition tests has grown.
    pub fn repeatable(&self, pump: &[usize], from: &[u64], to: &[u64]) -> bool {
        pump.iter().all(|&t| {
            self.inhibit[t]
                .iter()
                .all(|&(p, _)| to[p as usize] == from[p as usize])
        })
    }

    /// Tokens transition `t` adds to the places `covered` does not mark (negative: removes).
    pub fn growth(&self, t: usize, covered: &[bool]) -> i128 {
        let on = |arcs: &[(u32, u64)]| {
            arcs.iter()
                .filter(|a| !covered.get(a.0 as usize).copied().unwrap_or(false))
                .map(|a| a.1 as i128)
                .sum::<i128>()
        };
        on(&self.post[t]) - on(&self.pre[t])
    }

    pub fn enabled(&self, t: usize, m: &[u64]) -> bool {
        self.pre[t].iter().all(|&(p, w)| m[p as usize] >= w)
            && self.inhibit[t].iter().all(|&(p, w)| m[p as usize] < w)
    }

    /// Fire `t` in `m` in place; `m` is unchanged unless the result is [`Fired::Ok`].
    pub fn fire(&self, t: usize, m: &mut [u64]) -> Fired {
        if !self.enabled(t, m) {
            return Fired::Disabled;
        }
        let overflow = self.post[t].iter().any(|&(p, w)| {
            let pre = self.pre[t]
                .binary_search_by_key(&p, |a| a.0)
                .map_or(0, |i| self.pre[t][i].1);
            (m[p as usize] - pre).checked_add(w).is_none()
        });
        if overflow {
            return Fired::Overflow;
        }
        for &(p, w) in &self.pre[t] {
            m[p as usize] -= w;
        }
        for &(p, w) in &self.post[t] {
            m[p as usize] += w;
        }
        Fired::Ok
    }
}
