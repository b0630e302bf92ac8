//! Shortest `EG` witnesses (thesis chapter 5, section 5.2, Equation 5.1): a lasso within the EG
//! set `q` of least total length `min_k TCD_stem(k) + TCD_cycle(k)` over every knot `k`, or,
//! under [`Deadlocks::Maximal`], a shorter maximal path ending in a deadlock of `q` (under
//! [`Deadlocks::SelfLoop`] a deadlock is a knot whose cycle is its own loop, of length 1).
//!
//! This is the minimum the thesis computes with its TCD (Figures 5.2-5.3, a 2L-level EV+MDD
//! of all pairwise distances within `q`), reached here without the 2L-level closure, by
//! distance layers and a bound:
//! 1. the walk of Figure 5.1 ([`Checker::eg_witness`]) gives an upper bound `best`;
//! 2. `TCD_stem` by breadth-first layers from the initial state within `q` (explicit, since
//!    the checker's generator computes preimages; it keeps each state's parent, which
//!    rebuilds the stem), layer `i` holding the knots with `TCD_stem(k) = i`, only while
//!    `i < best`;
//! 3. `TCD_cycle(k)` for each knot of layer `i` with `i + 1 < best` by backward distance
//!    layers from `{k}` within `q` (symbolic preimages), cut off at `best - i - 1` steps; a
//!    shorter lasso found lowers `best` (MinState of the thesis's step 3, by enumeration);
//! 4. the two paths rebuilt and joined: the stem from the parents, the cycle by the walk down
//!    the knot's layers (as for EU witnesses).
//!
//! Exact: a knot `k` of an optimal lasso lies in layer `TCD_stem(k) < best` while `best` is
//! not yet optimal, and its cycle is then at most `best - TCD_stem(k) - 1` long, so it is
//! found, and its first hit is its shortest cycle. The cost is the states within distance
//! `best` of the initial state (explicitly) times a bounded backward search each.

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;

use super::witness::Witness;
use super::{Checker, CtlError, Deadlocks};

/// How `EG` witnesses (and the `AF`/`AU` counterexamples built from one) are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WitnessMethod {
    /// The breadth-first walk of Figure 5.1 (EGwitnessBFS): a lasso, not a shortest one.
    Bfs,
    /// Distance layers: shortest paths for EF/EU/AG (and the one step of EX/AX), and the
    /// shortest lasso of Equation 5.1 for EG/AF/AU (see the module comment).
    #[default]
    Layers,
}

impl WitnessMethod {
    pub fn name(self) -> &'static str {
        match self {
            WitnessMethod::Bfs => "bfs",
            WitnessMethod::Layers => "layers",
        }
    }
}

/// How a state was first reached by the stem search: the event and the previous state.
type Parent = Option<(usize, Vec<u32>)>;

impl Checker<'_> {
    /// A shortest witness of `EG` whose satisfying set is `q` (see the module comment); `None`
    /// when the initial state is not in `q`.
    pub(super) fn shortest_eg_witness(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        let mark = self.pins.len();
        self.pin(q);
        let r = match self.eg_witness(q) {
            Ok(Some(walk)) => self.shortest_lasso(q, walk).map(Some),
            other => other,
        };
        self.pins.truncate(mark);
        let mut w = r?;
        if let Some(w) = &mut w {
            w.method = WitnessMethod::Layers;
            w.shortest = true;
        }
        Ok(w)
    }

    /// Steps 2-4 of the module comment, from the walk `walk` as the first bound.
    fn shortest_lasso(&mut self, q: NodeId, walk: Witness) -> Result<Witness, CtlError> {
        let mut best = walk;
        let mut parent: FxHashMap<Vec<u32>, Parent> = FxHashMap::default();
        parent.insert(self.initial.clone(), None);
        let mut layer = vec![self.initial.clone()];
        let mut i = 0;
        while !layer.is_empty() && i < best.len() {
            let mut next = Vec::new();
            for k in &layer {
                self.limits.check()?;
                let succ = self.successors(k);
                if succ.is_empty() {
                    // a deadlock of the model in q: the end of a maximal path, or its own loop
                    let total = match self.deadlocks {
                        Deadlocks::Maximal => i,
                        Deadlocks::SelfLoop => i + 1,
                    };
                    if total < best.len() {
                        let mut w = stem(&parent, k);
                        if self.deadlocks == Deadlocks::SelfLoop {
                            w.events.push(None);
                            w.states.push(k.clone());
                            w.loop_start = Some(i);
                        }
                        best = w;
                    }
                    continue;
                }
                if i + 1 < best.len() {
                    if let Some(cycle) = self.shortest_cycle(q, k, best.len() - i - 1)? {
                        let mut w = stem(&parent, k);
                        w.events.extend(cycle.events);
                        w.states.extend(cycle.states.into_iter().skip(1));
                        w.loop_start = Some(i);
                        best = w;
                    }
                }
                for (e, t) in succ {
                    if self.member(q, &t) && !parent.contains_key(&t) {
                        parent.insert(t.clone(), Some((e, k.clone())));
                        next.push(t);
                    }
                }
            }
            layer = next;
            i += 1;
        }
        Ok(best)
    }

    /// A shortest cycle through the knot `k` within `q` of at most `max` steps, if any, as a
    /// path from `k` back to `k`: backward distance layers to `k` within `q` (`layers[0] =
    /// {k}`, `layers[j]` the other states of `q` at distance `j` to `k`) until `k` itself
    /// is a predecessor of the last layer, then the walk down the layers from `k`.
    fn shortest_cycle(
        &mut self,
        q: NodeId,
        k: &[u32],
        max: usize,
    ) -> Result<Option<Witness>, CtlError> {
        let mark = self.pins.len();
        let r = self.cycle_layers(q, k, max);
        let out = r.map(|layers| layers.map(|l| self.descend_from(k, &l)));
        self.pins.truncate(mark);
        out
    }

    /// The layers of [`Checker::shortest_cycle`], the last one holding `k`.
    fn cycle_layers(
        &mut self,
        q: NodeId,
        k: &[u32],
        max: usize,
    ) -> Result<Option<Vec<NodeId>>, CtlError> {
        let ks = self.reach.state_set(k);
        self.pin(ks);
        let mut layers = vec![ks];
        let mut seen = ks;
        for _ in 0..max {
            let last = *layers.last().expect("one layer");
            if last.is_empty() {
                return Ok(None);
            }
            let p = self.pre(last)?;
            let p = self.and(p, q);
            if self.member(p, k) {
                self.pin(p);
                layers.push(p);
                return Ok(Some(layers));
            }
            let next = self.minus(p, seen);
            seen = self.or(seen, next);
            self.pin(next);
            self.pin(seen);
            layers.push(next);
            self.collect(&[]);
        }
        Ok(None)
    }
}

/// The stem from the initial state to `k` by the parents of the breadth-first search.
fn stem(parent: &FxHashMap<Vec<u32>, Parent>, k: &[u32]) -> Witness {
    let mut states = vec![k.to_vec()];
    let mut events = Vec::new();
    let mut s = k;
    while let Some(Some((e, p))) = parent.get(s) {
        events.push(Some(*e));
        states.push(p.clone());
        s = p;
    }
    states.reverse();
    events.reverse();
    Witness {
        states,
        events,
        loop_start: None,
        method: WitnessMethod::Layers,
        shortest: true,
    }
}
