//! Shortest `EG` witnesses (thesis chapter 5, the goal of its TCD of section 5.2.1, here by
//! breadth-first layering): a lasso within the EG set `q` of least total length `stem + cycle`,
//! or, under [`Deadlocks::Maximal`], a shorter maximal path ending in a deadlock of `q`. The
//! walk of Figure 5.1 ([`Checker::eg_witness`]) gives an upper bound `best`; the knots are then
//! taken in order of their distance `i` from the initial state (an explicit breadth-first
//! search within `q`, which keeps each state's parent for the stem), and for each knot with
//! `i + 1 < best` the shortest cycle back to it within `q` by backward distance layers from the
//! knot (symbolic preimages, cut off at `best - i - 1`). The minimum of `i + cycle` over the
//! knots is the least length, since every knot at distance `i` is tried while a shorter lasso
//! through it is still possible.

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;

use super::witness::Witness;
use super::{Checker, CtlError, Deadlocks};

/// How a state was first reached by the stem search: the event and the previous state.
type Parent = Option<(usize, Vec<u32>)>;

impl Checker<'_> {
    /// A shortest witness of `EG` whose satisfying set is `q` (see the module comment); `None`
    /// when the initial state is not in `q`.
    pub(super) fn shortest_eg_witness(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        let Some(walk) = self.eg_witness(q)? else {
            return Ok(None);
        };
        let mark = self.pins.len();
        self.pin(q);
        let r = self.shortest_lasso(q, walk);
        self.pins.truncate(mark);
        r.map(Some)
    }

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
                let succ: Vec<(usize, Vec<u32>)> = self
                    .successors(k)
                    .into_iter()
                    .filter(|(_, t)| self.member(q, t))
                    .collect();
                if self.successors(k).is_empty() {
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
                } else if i + 1 < best.len() {
                    if let Some(layers) = self.cycle_layers(q, k, best.len() - i - 1)? {
                        let mut w = stem(&parent, k);
                        let cycle = self.descend(k, &layers);
                        w.events.extend(cycle.events);
                        w.states.extend(cycle.states.into_iter().skip(1));
                        w.loop_start = Some(i);
                        best = w;
                    }
                }
                for (e, t) in succ {
                    if !parent.contains_key(&t) {
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

    /// Backward distance layers to the knot `k` within `q`: `layers[0] = {k}`, `layers[j]` the
    /// other states of `q` at distance `j` to `k`, and a last set holding `k` itself, when a
    /// cycle through `k` of at most `max` steps exists (its length is `layers.len() - 1`).
    fn cycle_layers(
        &mut self,
        q: NodeId,
        k: &[u32],
        max: usize,
    ) -> Result<Option<Vec<NodeId>>, CtlError> {
        let mark = self.pins.len();
        let ks = self.reach.state_set(k);
        self.pin(ks);
        let mut layers = vec![ks];
        let mut seen = ks;
        let mut out = None;
        for _ in 0..max {
            let last = *layers.last().expect("one layer");
            if last.is_empty() {
                break;
            }
            let p = self.pre(last)?;
            let p = self.and(p, q);
            self.pin(p);
            if self.member(p, k) {
                layers.push(p);
                out = Some(layers);
                break;
            }
            let next = self.minus(p, seen);
            seen = self.or(seen, next);
            self.pin(next);
            self.pin(seen);
            layers.push(next);
            self.collect(&[]);
        }
        // the layers are read (membership only) before the next collection
        self.pins.truncate(mark);
        Ok(out)
    }
}

/// The stem from the initial state to `k` by the parents of the breadth-first search.
fn stem(parent: &FxHashMap<Vec<u32>, Parent>, k: &[u32]) -> Witness {
    let mut states = vec![k.to_vec()];
    let mut events = Vec::new();
    let mut s = k.to_vec();
    while let Some(Some((e, p))) = parent.get(&s) {
        events.push(Some(*e));
        states.push(p.clone());
        s = p.clone();
    }
    states.reverse();
    events.reverse();
    Witness {
        states,
        events,
        loop_start: None,
    }
}
