//! Shortest `EG` witnesses (thesis chapter 5, section 5.2, Equation 5.1): a lasso within the EG
//! set `q` of least total length `min_k TCD_stem(k) + TCD_cycle(k)` over every knot `k`, or,
//! under [`Deadlocks::Maximal`], a shorter maximal path ending in a deadlock of `q` (under
//! [`Deadlocks::SelfLoop`] a deadlock is a knot whose cycle is its own loop, of length 1).
//!
//! This is the minimum the thesis computes with its TCD (Figures 5.2-5.3, a 2L-level EV+MDD
//! of all pairwise distances within `q`), reached here without the 2L-level closure, by
//! distance layers and a bound:
//! 1. the walk of Figure 5.1 ([`Checker::eg_witness`]) gives an upper bound `best` (under
//!    [`WitnessMethod::Auto`], a shorter one may come first, and the answer when proven
//!    shortest: module `proven`);
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
use saturn_dd::ev::{Ev, EvPlusForest, Overflow, Restrict};
use saturn_dd::NodeId;

use crate::closure::{compute_tcd_within, Tcd, TcdError, TcdRelations};

use super::witness::Witness;
use super::{Checker, CtlError, Deadlocks};

/// How `EG` witnesses (and the `AF`/`AU` counterexamples built from one) are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WitnessMethod {
    /// The breadth-first walk of Figure 5.1 (EGwitnessBFS): a lasso, not a shortest one.
    Bfs,
    /// Distance layers: shortest paths for EF/EU/AG (and the one step of EX/AX), and the
    /// shortest lasso of Equation 5.1 for EG/AF/AU (see the module comment).
    Layers,
    /// The closure with distances (thesis section 5.2, Figures 5.2-5.3): `TCD` within the EG
    /// set as a `2L`-level EV+MDD, `TCD_stem + TCD_cycle` minimised over every knot, the two
    /// paths rebuilt from `TCD` (see [`Checker::tcd_eg_witness`]).
    Tcd,
    /// A shortest lasso by the fastest route (see [`Checker::auto_eg_witness`]): the walk of
    /// Figure 5.1 or a shorter one found by depth-first searches, when proven shortest; else
    /// distance layers while their cycle searches stay within [`LAYERS_BUDGET`] preimages, the
    /// closure with distances beyond. The witness says which one made it.
    #[default]
    Auto,
    /// Made by [`WitnessMethod::Auto`] only (as a choice it is `Auto`): a witness found by a
    /// depth-first search within a bound and proven shortest (module `proven`).
    Search,
}

/// The preimages [`WitnessMethod::Auto`] lets the distance layers' cycle searches take before
/// it hands the lasso to the closure with distances. Measured on the contest nets of
/// `docs/benchmarks.md` (issue 47): where layers finish clearly first they take 3-21
/// preimages (Dekker-PT-015, FMS, Kanban, Philosophers); where the closure finishes first
/// they take 56 (CSRepetitions-PT-03) to 1,092 (LamportFastMutEx-PT-4, 2 ms each) and more
/// than 33,311 (NeoElection-PT-3, not done in 60 s).
pub const LAYERS_BUDGET: usize = 32;

impl WitnessMethod {
    pub fn name(self) -> &'static str {
        match self {
            WitnessMethod::Bfs => "bfs",
            WitnessMethod::Layers => "layers",
            WitnessMethod::Tcd => "tcd",
            WitnessMethod::Auto => "auto",
            WitnessMethod::Search => "search",
        }
    }
}

/// The outcome of one round of [`Checker::tcd_lasso`]: a shortest lasso, or the length of
/// the shortest one in the round's closure (above its radius, so perhaps not shortest).
enum Round {
    Found(Witness),
    Above(Option<usize>),
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
            Ok(Some(walk)) => self.layers_below(q, walk, usize::MAX).and_then(|w| {
                w.map(Some)
                    .map_err(|_| CtlError::Witness("the layers ran out of preimages".into()))
            }),
            other => other,
        };
        self.pins.truncate(mark);
        r
    }

    /// Steps 2-4 of the module comment from `walk`, a witness, as the first bound, with at most
    /// `budget` preimages in the cycle searches: a shortest witness, made by the layers, or
    /// (`Err`) the length of the shortest one found when the budget ran out. `q` pinned.
    pub(super) fn layers_below(
        &mut self,
        q: NodeId,
        walk: Witness,
        budget: usize,
    ) -> Result<Result<Witness, usize>, CtlError> {
        Ok(self.shortest_lasso(q, walk, budget)?.map(|mut w| {
            w.method = WitnessMethod::Layers;
            w.shortest = true;
            w
        }))
    }

    /// Steps 2-4 of the module comment, from the walk `walk` as the first bound, with at most
    /// `budget` preimages in the cycle searches (when they need more: `Err` with the length
    /// of the shortest lasso found so far).
    fn shortest_lasso(
        &mut self,
        q: NodeId,
        walk: Witness,
        mut budget: usize,
    ) -> Result<Result<Witness, usize>, CtlError> {
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
                    let Some(found) = self.shortest_cycle(q, k, best.len() - i - 1, &mut budget)?
                    else {
                        return Ok(Err(best.len()));
                    };
                    if let Some(cycle) = found {
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
        Ok(Ok(best))
    }

    /// A shortest cycle through the knot `k` within `q` of at most `max` steps, if any, as a
    /// path from `k` back to `k`: backward distance layers to `k` within `q` (`layers[0] =
    /// {k}`, `layers[j]` the other states of `q` at distance `j` to `k`) until `k` itself
    /// is a predecessor of the last layer, then the walk down the layers from `k`. Each
    /// preimage takes one from `budget`; `None` when it runs out.
    fn shortest_cycle(
        &mut self,
        q: NodeId,
        k: &[u32],
        max: usize,
        budget: &mut usize,
    ) -> Result<Option<Option<Witness>>, CtlError> {
        let mark = self.pins.len();
        let r = self.cycle_layers(q, k, max, budget);
        let out = r.map(|layers| layers.map(|l| l.map(|l| self.descend_from(k, &l))));
        self.pins.truncate(mark);
        out
    }

    /// The layers of [`Checker::shortest_cycle`], the last one holding `k`.
    fn cycle_layers(
        &mut self,
        q: NodeId,
        k: &[u32],
        max: usize,
        budget: &mut usize,
    ) -> Result<Option<Option<Vec<NodeId>>>, CtlError> {
        let ks = self.reach.state_set(k);
        self.pin(ks);
        let mut layers = vec![ks];
        let mut seen = ks;
        for _ in 0..max {
            let last = *layers.last().expect("one layer");
            if last.is_empty() {
                return Ok(Some(None));
            }
            let Some(left) = budget.checked_sub(1) else {
                return Ok(None);
            };
            *budget = left;
            let p = self.pre(last)?;
            let p = self.and(p, q);
            if self.member(p, k) {
                self.pin(p);
                layers.push(p);
                return Ok(Some(Some(layers)));
            }
            let next = self.minus(p, seen);
            seen = self.or(seen, next);
            self.pin(next);
            self.pin(seen);
            layers.push(next);
            self.collect(&[]);
        }
        Ok(Some(None))
    }
}

impl From<TcdError> for CtlError {
    fn from(e: TcdError) -> CtlError {
        match e {
            TcdError::Interrupted(i) => CtlError::Interrupted(i),
            TcdError::Overflow => CtlError::Witness(e.to_string()),
        }
    }
}

impl From<Overflow> for CtlError {
    fn from(e: Overflow) -> CtlError {
        CtlError::Witness(format!("shortest lasso: {e}"))
    }
}

impl Checker<'_> {
    /// A shortest witness of `EG` whose satisfying set is `q` by the closure with distances
    /// (thesis section 5.2, its four steps); `None` when the initial state is not in `q`:
    /// 1. `TCD_q` by [`compute_tcd_within`] (Figures 5.2-5.3), within the states near the
    ///    initial one (see [`Checker::tcd_lasso`]);
    /// 2. `TCD_stem(k) = TCD^triv_q(init, k)` (the initial row of `TCD`, and 0 at the initial
    ///    state) and `TCD_cycle(k) = TCD_q(k, k)` (its diagonal) as `L`-level EV+MDDs, and
    ///    their sum; a deadlock `d` of `q` ends a witness of length `TCD_stem(d)` under
    ///    [`Deadlocks::Maximal`] (a maximal path), `TCD_stem(d) + 1` under
    ///    [`Deadlocks::SelfLoop`] (its own loop), the pointwise minimum taken with that;
    /// 3. MinState of the sum: a knot of a shortest witness and its length (Equation 5.1);
    /// 4. the stem and the cycle rebuilt by [`Checker::tcd_path`] and joined.
    pub(super) fn tcd_eg_witness(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        self.tcd_eg_witness_below(q, None)
    }

    /// [`Checker::tcd_eg_witness`] given the length of a lasso already found, a bound (`None`:
    /// the walk of Figure 5.1 finds one first).
    pub(super) fn tcd_eg_witness_below(
        &mut self,
        q: NodeId,
        walk: Option<usize>,
    ) -> Result<Option<Witness>, CtlError> {
        if !self.member(q, &self.initial) {
            return Ok(None);
        }
        let mark = self.pins.len();
        self.pin(q);
        let dq = self.and(self.dead, q);
        self.pin(dq);
        let r = self.tcd_lasso(q, dq, walk);
        self.pins.truncate(mark);
        r.map(Some)
    }

    /// The closure ([`compute_tcd_within`]) within the states a lasso of at most `r` steps
    /// can visit ([`TcdRelations::lasso_states`]: within `r - 1` steps of the initial state,
    /// or a deadlock within `r`, trimmed of the states with no successor among them), for `r
    /// = 1, 2, 3, …` while that set is empty, then times 3/2, up to `bound`, the length of the
    /// walk of Figure 5.1 (a lasso, so an upper bound), lowered by every longer lasso a round
    /// finds. A lasso of at most `r` steps lies in that set, and so do its shortest stem and
    /// cycle, so the first round whose minimum is at most `r` gives a shortest lasso; a
    /// minimum above `r` is a lasso, but a shorter one may leave the set, hence the next
    /// round. A set whose MDD is no smaller than `q`'s is replaced by `q` itself, the last
    /// round (the whole closure).
    fn tcd_lasso(
        &mut self,
        q: NodeId,
        dq: NodeId,
        walk: Option<usize>,
    ) -> Result<Witness, CtlError> {
        let mut bound = match walk {
            Some(n) => n,
            None => self
                .eg_witness(q)?
                .map(|w| w.len())
                .ok_or_else(|| CtlError::Witness("no lasso from the initial state".into()))?,
        };
        let limits = self.limits;
        let rels = TcdRelations::new(self.reach.dd_mut(), &self.model);
        let q_nodes = self.reach.dd().sets.count_nodes(&[q]);
        let mut r = 1;
        loop {
            r = r.min(bound);
            let (init, dd) = (self.init, self.reach.dd_mut());
            let mut ball = rels.lasso_states(dd, init, q, dq, r, limits)?;
            if dd.sets.count_nodes(&[ball]) >= q_nodes {
                // no smaller than the whole set: its closure, the last round
                (ball, r) = (q, bound);
            }
            let dq = dd.sets.intersect(dq, ball);
            let found = if ball.is_empty() {
                // no lasso of at most r steps
                None
            } else {
                let tcd = compute_tcd_within(dd, &rels, ball, limits)?;
                match self.tcd_lasso_within(&tcd, dq, r)? {
                    Round::Found(w) => return Ok(w),
                    Round::Above(m) => m,
                }
            };
            bound = bound.min(found.unwrap_or(bound));
            if r >= bound {
                return Err(CtlError::Witness(
                    "the closure with distances has no lasso from the initial state".into(),
                ));
            }
            // one more step while the rounds are free, then times 3/2
            r = if ball.is_empty() {
                r + 1
            } else {
                (r + 1).max(r * 3 / 2)
            };
        }
    }

    /// Steps 2-4 of [`Checker::tcd_eg_witness`] on a closure `tcd` (with `dq` the deadlocks
    /// of its set): the shortest lasso, if it has at most `max` steps.
    fn tcd_lasso_within(&mut self, tcd: &Tcd, dq: NodeId, max: usize) -> Result<Round, CtlError> {
        let levels = self.initial.len();
        let domains: Vec<u32> = (1..=levels).map(|k| tcd.matrix.domain(2 * k)).collect();
        let mut vec = EvPlusForest::new(&domains);
        // step 2
        let row = tcd.matrix.row(tcd.tcd, &self.initial, &mut vec)?;
        let here = vec.from_entries(&[(self.initial.clone(), 0)])?;
        let stem = vec.min(row, here)?;
        let cycle = tcd.matrix.diagonal(tcd.tcd, &mut vec)?;
        let mut total = vec.sum(stem, cycle)?;
        let end_cost = match self.deadlocks {
            Deadlocks::Maximal => 0,
            Deadlocks::SelfLoop => 1,
        };
        if !dq.is_empty() {
            let ends = vec.restrict(stem, &self.reach.dd_mut().sets, dq, Restrict::States)?;
            let ends = vec.add_constant(ends, end_cost)?;
            total = vec.min(total, ends)?;
        }
        // step 3
        let Some((knot, len)) = vec.min_state(total) else {
            return Ok(Round::Above(None));
        };
        let len = usize::try_from(len).map_err(|_| Overflow)?;
        if len > max {
            return Ok(Round::Above(Some(len)));
        }
        // step 4
        let stem_len = eval_len(&vec, stem, &knot)?;
        let mut w = self.tcd_path(tcd, &self.initial.clone(), &knot, stem_len)?;
        if self.member(self.dead, &knot) && stem_len + end_cost as usize == len {
            if self.deadlocks == Deadlocks::SelfLoop {
                w.events.push(None);
                w.states.push(knot.clone());
                w.loop_start = Some(stem_len);
            }
        } else {
            let c = self.tcd_path(tcd, &knot, &knot, len - stem_len)?;
            w.events.extend(c.events);
            w.states.extend(c.states.into_iter().skip(1));
            w.loop_start = Some(stem_len);
        }
        w.method = WitnessMethod::Tcd;
        Ok(Round::Found(w))
    }

    /// A path of `d` steps from `from` to `to` within the closure's set, `d` being
    /// `TCD(from, to)` (or 0 when they are equal): each step fires an event into a state `t`
    /// with `TCD(t, to)` one less (the last step into `to` itself), as the shortest paths
    /// of [21] are rebuilt from their distance function.
    fn tcd_path(&self, tcd: &Tcd, from: &[u32], to: &[u32], d: usize) -> Result<Witness, CtlError> {
        let mut s = from.to_vec();
        let mut w = Witness {
            states: vec![s.clone()],
            events: Vec::new(),
            loop_start: None,
            method: WitnessMethod::Tcd,
            shortest: true,
        };
        for rem in (1..=d).rev() {
            let want = (rem - 1) as u64;
            let (e, t) = self
                .successors(&s)
                .into_iter()
                .find(|(_, t)| {
                    if rem == 1 {
                        t.as_slice() == to
                    } else {
                        tcd.distance(t, to) == Some(want)
                    }
                })
                .ok_or_else(|| {
                    CtlError::Witness(format!(
                        "a state at distance {rem} in the closure has no successor at distance {want}"
                    ))
                })?;
            w.events.push(Some(e));
            w.states.push(t.clone());
            s = t;
        }
        Ok(w)
    }
}

/// The value of a distance function at a state, as a length.
fn eval_len(vec: &EvPlusForest, f: Ev<i64>, s: &[u32]) -> Result<usize, CtlError> {
    let v = vec.eval(f, s)?;
    usize::try_from(v).map_err(|_| CtlError::Witness("a knot without a finite stem".into()))
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
    Witness::path(states, events)
}
