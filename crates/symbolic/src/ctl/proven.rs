//! Short `EG` witnesses proven shortest (issue 47), the first route of
//! [`WitnessMethod::Auto`]: a short witness is often found at once, and that none is shorter
//! can be proven by images and preimages alone, much faster than a search for the shortest
//! lasso (module `shortest`) when it holds:
//! 1. the walk of Figure 5.1 ([`Checker::eg_witness`]) gives a witness of `n` steps; when
//!    the model has a step rank ([`StepRank`]: every event lowers a linear function of the
//!    state by one), no witness is shorter than the way down to the highest deadlock of the
//!    EG set ([`Checker::rank_floor`]), and a witness that long is shortest at once;
//! 2. a depth-first search from the initial state within the EG set, at most `n - 2` steps
//!    deep ([`Checker::shorter_by_search`]), looks for a cycle or a deadlock; one found is a
//!    witness of fewer than `n` steps, the new `n`, and the search starts again (at most
//!    [`SEARCH_VISITS`] states over all the searches, fewer on nets of many events:
//!    [`SEARCH_FIRINGS`]);
//! 3. when a search finds none, [`Checker::none_shorter`] tries to prove that no witness has
//!    fewer than `n` steps; when it cannot, the distance layers and the closure with distances
//!    take over with `n` as their bound.
//!
//! On the contest nets of `docs/benchmarks.md` the proof holds at every shortest witness, in
//! 0.1-4 ms; NeoElection-PT-3's maximal path of 87 steps is proven by its step rank in about
//! a millisecond (by 86 breadth-first layers it took 0.2 s).

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;

use crate::closure::TcdRelations;
use crate::rank::StepRank;

use super::shortest::{WitnessMethod, LAYERS_BUDGET};
use super::witness::Witness;
use super::{Checker, CtlError, Deadlocks};

/// The states the depth-first searches of [`Checker::shorter_by_search`] visit at most, over
/// all the searches of one witness.
pub const SEARCH_VISITS: usize = 1 << 12;

/// The events the searches try at most over all their visits (each visit tries every event):
/// on a net of a thousand transitions, a thousand visits.
pub const SEARCH_FIRINGS: usize = 1 << 20;

/// A state of the depth-first search: the state, the event that led to it, and the
/// successors left to try.
type Frame = (
    Vec<u32>,
    Option<usize>,
    std::vec::IntoIter<(usize, Vec<u32>)>,
);

impl Checker<'_> {
    /// [`WitnessMethod::Auto`]: a shortest witness of `EG` whose satisfying set is `q` by the
    /// route of the module comment (made by `bfs` or `search` when proven shortest), else by
    /// distance layers while their cycle searches need at most [`LAYERS_BUDGET`] preimages,
    /// else by the closure with distances ([`Checker::tcd_eg_witness`]); `None` when the
    /// initial state is not in `q`.
    pub(super) fn auto_eg_witness(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        let mark = self.pins.len();
        self.pin(q);
        let r = self.auto_pinned(q);
        self.pins.truncate(mark);
        r
    }

    /// [`Checker::auto_eg_witness`] with `q` pinned.
    fn auto_pinned(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        let Some(mut best) = self.eg_witness(q)? else {
            return Ok(None);
        };
        let dq = self.and(self.dead, q);
        self.pin(dq);
        // under a step rank no witness is shorter than the way down to the highest deadlock
        let floor = self.rank_floor(dq);
        if best.len() <= floor {
            best.shortest = true;
            return Ok(Some(best));
        }
        let mut visits = SEARCH_VISITS.min(SEARCH_FIRINGS / self.events.len().max(1));
        // deeper and deeper searches, the short lassos first
        let mut depth = 1;
        while best.len() >= 2 && visits > 0 {
            let d = depth.min(best.len() - 2);
            match self.shorter_by_search(q, dq, best.len(), d, &mut visits) {
                Some(w) if w.len() <= floor => {
                    best = w;
                    best.shortest = true;
                    return Ok(Some(best));
                }
                Some(w) => best = w,
                None if d == best.len() - 2 => break,
                None => depth *= 2,
            }
        }
        if self.none_shorter(q, dq, best.len())? {
            best.shortest = true;
            return Ok(Some(best));
        }
        match self.layers_below(q, best, LAYERS_BUDGET)? {
            Ok(w) => Ok(Some(w)),
            Err(bound) => self.tcd_eg_witness_below(q, Some(bound)),
        }
    }

    /// A lower bound on the length of every `EG` witness within `q` (`dq` its deadlocks) from
    /// the model's step rank ([`StepRank`]): with one, the model has no cycle, so a witness is
    /// a maximal path into a deadlock of `dq` (with its self-loop under
    /// [`Deadlocks::SelfLoop`]), of exactly `w·s0 - w·d` steps to deadlock `d`, at least
    /// `w·s0 - max{w·d : d in dq}`. Zero without a step rank.
    fn rank_floor(&mut self, dq: NodeId) -> usize {
        if self.rank.is_none() {
            self.rank = Some(StepRank::of(&self.model));
        }
        let Some(Some(rank)) = &self.rank else {
            return 0;
        };
        // no deadlock (nor cycle) would leave no witness at all: no bound is claimed then
        let Some(top) = rank.max_over(&self.reach.dd().sets, dq) else {
            return 0;
        };
        let Some(s0) = rank.value(&self.initial) else {
            return 0;
        };
        let steps = (s0 - top).max(0) / rank.scale;
        let self_loop = usize::from(self.deadlocks == Deadlocks::SelfLoop);
        usize::try_from(steps).map_or(0, |s| s + self_loop)
    }

    /// Is there no `EG` witness within `q` (`dq` its deadlocks) of fewer than `n` steps? The
    /// states such a witness visits lie within `n - 2` steps of the initial state (`near`),
    /// and under [`Deadlocks::Maximal`] a deadlock within `n - 1` may end it. When every step
    /// among them goes from one breadth-first layer to the next
    /// ([`TcdRelations::layered_ball`]), they hold no cycle and the answer is exact: no
    /// deadlock near enough. Else true when the trim of `near` (of the states that are neither
    /// deadlocks nor have a successor in it, [`TcdRelations::trim`]) loses the initial state:
    /// a shorter lasso, or a shorter maximal path, would stay. The trim keeps a superset, so
    /// its `false` proves nothing. By explicit search when the states are few
    /// ([`Checker::none_shorter_explicit`]), else by images.
    pub(super) fn none_shorter(
        &mut self,
        q: NodeId,
        dq: NodeId,
        n: usize,
    ) -> Result<bool, CtlError> {
        if n == 0 {
            return Ok(true);
        }
        match self.none_shorter_explicit(q, dq, n) {
            Some(answer) => Ok(answer),
            None => self.none_shorter_symbolic(q, dq, n),
        }
    }

    /// [`Checker::none_shorter`] by images and preimages (`n >= 1`).
    pub(super) fn none_shorter_symbolic(
        &mut self,
        q: NodeId,
        dq: NodeId,
        n: usize,
    ) -> Result<bool, CtlError> {
        // a deadlock ends a maximal path of its depth, or closes a loop one step longer
        let last = match self.deadlocks {
            Deadlocks::Maximal => dq,
            Deadlocks::SelfLoop => NodeId::EMPTY,
        };
        let limits = self.limits;
        let rels = TcdRelations::new(self.reach.dd_mut(), &self.model);
        let (init, dd) = (self.init, self.reach.dd_mut());
        let (near, forward) = rels.lasso_region(dd, init, q, last, n - 1, limits)?;
        let ends = dd.sets.intersect(dq, near);
        if forward {
            // no cycle: only a deadlock near enough makes a shorter witness
            return Ok(ends.is_empty());
        }
        let z = rels.trim(dd, near, ends, limits)?;
        Ok(!self.member(z, &self.initial))
    }

    /// A witness of `EG` within `q` (`dq` its deadlocks) of fewer than `n` steps found by a
    /// depth-first search from the initial state within `q`, at most `n - 2` steps deep (so
    /// that a cycle it closes, or a deadlock it meets, makes a shorter lasso or maximal path),
    /// visiting at most `visits` states (each visit takes one from it). `None` when it finds
    /// none: an answer of no weight, as the search prunes the states it has done.
    pub(super) fn shorter_by_search(
        &self,
        q: NodeId,
        dq: NodeId,
        n: usize,
        depth: usize,
        visits: &mut usize,
    ) -> Option<Witness> {
        // the search's states: their place on the stack, or done (None)
        let mut on: FxHashMap<Vec<u32>, Option<usize>> = FxHashMap::default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut next = Some((self.initial.clone(), None));
        loop {
            if let Some((s, e)) = next.take() {
                *visits = visits.checked_sub(1)?;
                let end = match self.deadlocks {
                    Deadlocks::Maximal => stack.len(),
                    Deadlocks::SelfLoop => stack.len() + 1,
                };
                let succ: Vec<(usize, Vec<u32>)> = if stack.len() <= depth {
                    self.successors_within(q, &s)
                } else {
                    Vec::new()
                };
                let dead = end < n && self.member(dq, &s);
                on.insert(s.clone(), Some(stack.len()));
                // a successor on the stack closes a cycle at once
                let back = succ
                    .iter()
                    .find_map(|(e, t)| on.get(t).copied().flatten().map(|j| (*e, j)));
                stack.push((s, e, succ.into_iter()));
                if dead {
                    return Some(self.search_witness(&stack, None));
                }
                if back.is_some() {
                    return Some(self.search_witness(&stack, back));
                }
            }
            let (_, _, succ) = stack.last_mut()?;
            match succ.next() {
                Some((e, t)) => match on.get(&t) {
                    Some(&Some(j)) => return Some(self.search_witness(&stack, Some((e, j)))),
                    Some(None) => {}
                    None if stack.len() <= depth => next = Some((t, Some(e))),
                    None => {}
                },
                None => {
                    let (s, _, _) = stack.pop()?;
                    on.insert(s, None);
                }
            }
        }
    }

    /// The witness of [`Checker::shorter_by_search`]: the path on the stack, closed by the
    /// event `e` back to the state at `j`, or (`None`) ending in its last state, a deadlock.
    fn search_witness(&self, stack: &[Frame], back: Option<(usize, usize)>) -> Witness {
        let mut w = Witness {
            states: stack.iter().map(|(s, _, _)| s.clone()).collect(),
            events: stack.iter().skip(1).map(|(_, e, _)| *e).collect(),
            loop_start: None,
            method: WitnessMethod::Search,
            shortest: false,
        };
        let last = w.states.len() - 1;
        match back {
            Some((e, j)) => {
                w.events.push(Some(e));
                w.states.push(w.states[j].clone());
                w.loop_start = Some(j);
            }
            None if self.deadlocks == Deadlocks::SelfLoop => {
                w.events.push(None);
                w.states.push(w.states[last].clone());
                w.loop_start = Some(last);
            }
            None => {}
        }
        w
    }
}
