//! The one saturation kernel: Saturate and RelProdSat (thesis Figure 2.10), ConsSaturate and
//! ConsRelProd (Figure 3.3), as one recursion parameterised by
//! - where the events come from ([`Tok`]: an implicit event walking its local functions, or a
//!   node of a relation MDD), and
//! - an optional constraint ([`Cons`]: [`Free`] for plain saturation, compiled to exactly the
//!   unconstrained recursion; [`Within`] a constraint set, whose node is followed level by
//!   level so that a firing leaving the set is cut where it leaves).
//!
//! The firing walk ([`Kernel::step`]: what a level does to a local state) is written once, for
//! both kinds of events, and is shared with the BFS image.

use saturn_dd::{Dd, Forest, NodeId};
use saturn_model::LocalFn;

use super::caches::EngineCaches;
use super::Engine;
use crate::limits::Interrupted;

/// The working view of one top-level call: the context, the engine's caches (checked out of
/// the context for the call) and the engine's state, each held directly.
pub(super) struct Kernel<'a> {
    pub(super) dd: &'a mut Dd,
    pub(super) c: Box<EngineCaches>,
    pub(super) e: Engine,
}

/// What remains to be fired below a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// Implicit event `e`, its parts from index `pi` on still to apply.
    Ev(u32, u32),
    /// A relation node (an unprimed node of the relation forest, ONE for the identity).
    Rel(NodeId),
}

impl Default for Tok {
    fn default() -> Tok {
        Tok::Rel(NodeId::EMPTY)
    }
}

/// How many edges ahead `RelProdSat` asks for its firing-cache lines
/// ([`Kernel::prefetch_firings`]).
const FIRE_AHEAD: usize = 4;

/// A frame's window growth (in local states) from which the limits are checked at once.
const WIDE_GROWTH: usize = 1 << 16;

/// What one level does under a [`Tok`] (decided once per node, applied to every edge).
pub(super) enum LevelStep {
    /// The level is left unchanged; continue with the token below.
    Same(Tok),
    /// A local function with the level's cap, then the token below.
    Local(LocalFn, u32, Tok),
    /// A relation node with an explicit pair of levels here.
    Rel(NodeId),
}

/// The successors of one local state under a [`Tok`] at one level.
pub(super) enum Succ {
    None,
    One(u32, Tok),
    /// Several: this range of the engine's successor stack (the caller truncates it back).
    Buf(usize, usize),
}

/// A constraint on the states saturation may add (thesis Figure 3.3), followed level by level.
pub(super) trait Cons: Copy {
    /// The constraint node (EMPTY when unconstrained), a root while a frame holds it.
    fn node(self) -> NodeId;
    /// The constraint below local state `i` of level `l`; `None` when `a[i] = 0` (cut there).
    fn at(self, sets: &Forest, l: usize, i: u32) -> Option<Self>;
    fn sat_get(self, c: &mut EngineCaches, s: NodeId) -> Option<NodeId>;
    fn sat_put(self, c: &mut EngineCaches, s: NodeId, r: NodeId);
    fn fire_get(self, c: &mut EngineCaches, t: Tok, q: NodeId) -> Option<NodeId>;
    fn fire_put(self, c: &mut EngineCaches, t: Tok, q: NodeId, r: NodeId);
    /// Does [`Cons::fire_prefetch`] ask for anything?
    const PREFETCH: bool;
    /// Ask for `fire_get(t, q)`'s cache line ahead (a hint).
    fn fire_prefetch(self, c: &EngineCaches, t: Tok, q: NodeId);
}

/// No constraint: plain saturation (Figure 2.10).
#[derive(Clone, Copy)]
pub(super) struct Free;

/// The constraint set `a` (a set-forest node at the level being worked on).
#[derive(Clone, Copy)]
pub(super) struct Within(pub(super) NodeId);

impl Cons for Free {
    const PREFETCH: bool = true;
    #[inline(always)]
    fn node(self) -> NodeId {
        NodeId::EMPTY
    }
    #[inline(always)]
    fn at(self, _: &Forest, _: usize, _: u32) -> Option<Free> {
        Some(Free)
    }
    #[inline(always)]
    fn sat_get(self, c: &mut EngineCaches, s: NodeId) -> Option<NodeId> {
        c.sat.get(s)
    }
    #[inline(always)]
    fn sat_put(self, c: &mut EngineCaches, s: NodeId, r: NodeId) {
        c.sat.insert(s, r);
    }
    #[inline(always)]
    fn fire_get(self, c: &mut EngineCaches, t: Tok, q: NodeId) -> Option<NodeId> {
        match t {
            Tok::Ev(e, _) => c.fire.get((e, q)),
            Tok::Rel(r) => c.fire_rel.get((r, q)),
        }
    }
    #[inline(always)]
    fn fire_put(self, c: &mut EngineCaches, t: Tok, q: NodeId, r: NodeId) {
        match t {
            Tok::Ev(e, _) => c.fire.insert((e, q), r),
            Tok::Rel(rr) => c.fire_rel.insert((rr, q), r),
        }
    }
    #[inline(always)]
    fn fire_prefetch(self, c: &EngineCaches, t: Tok, q: NodeId) {
        match t {
            Tok::Ev(e, _) => c.fire.prefetch((e, q)),
            Tok::Rel(r) => c.fire_rel.prefetch((r, q)),
        }
    }
}

impl Cons for Within {
    const PREFETCH: bool = false;
    #[inline]
    fn node(self) -> NodeId {
        self.0
    }
    #[inline]
    fn at(self, sets: &Forest, l: usize, i: u32) -> Option<Within> {
        let c = sets.child_at(self.0, l, i);
        (!c.is_empty()).then_some(Within(c))
    }
    #[inline]
    fn sat_get(self, c: &mut EngineCaches, s: NodeId) -> Option<NodeId> {
        c.csat.get((self.0, s))
    }
    #[inline]
    fn sat_put(self, c: &mut EngineCaches, s: NodeId, r: NodeId) {
        c.csat.insert((self.0, s), r);
    }
    #[inline]
    fn fire_get(self, c: &mut EngineCaches, t: Tok, q: NodeId) -> Option<NodeId> {
        match t {
            Tok::Ev(e, _) => c.cfire.get((e, self.0, q)),
            Tok::Rel(r) => c.cfire_rel.get((r, self.0, q)),
        }
    }
    #[inline]
    fn fire_put(self, c: &mut EngineCaches, t: Tok, q: NodeId, r: NodeId) {
        match t {
            Tok::Ev(e, _) => c.cfire.insert((e, self.0, q), r),
            Tok::Rel(rr) => c.cfire_rel.insert((rr, self.0, q), r),
        }
    }
    #[inline]
    fn fire_prefetch(self, _: &EngineCaches, _: Tok, _: NodeId) {
        // the key needs the constraint below the next edge, not known yet
    }
}

impl Kernel<'_> {
    /// The answer of a top-level call, or why it stopped.
    pub(super) fn finish(&mut self, r: NodeId) -> Result<NodeId, Interrupted> {
        if self.dd.overflowed() {
            self.e.interrupted = Some(Interrupted::TooManyNodes);
        }
        match self.e.interrupted {
            Some(i) => Err(i),
            None => Ok(r),
        }
    }

    /// SaturateF (Figure 2.10) with `Free`, ConsSaturate (Figure 3.3) with `Within(a)`: the
    /// least fixpoint of `s` (a node at level `k`) under every event whose Top is at most `k`,
    /// adding only states of the constraint.
    pub(super) fn saturate<A: Cons>(&mut self, k: usize, a: A, s: NodeId) -> NodeId {
        if k == 0 || s.is_empty() {
            return s;
        }
        if let Some(r) = a.sat_get(&mut self.c, s) {
            return r;
        }
        if self.tick(k) {
            return NodeId::EMPTY;
        }
        self.e.frames[k].src = s;
        self.e.frames[k].cons = a.node();
        let n = self.dd.sets.edges(s).len();
        self.e.work += n as u64 + 1;
        for x in 0..n {
            let e = self.dd.sets.edges(self.e.frames[k].src).at(x);
            if self.window_too_wide(k, e.idx as usize) {
                break;
            }
            // Figure 3.3 line 4: below a local state outside the constraint, s is kept as is
            let c = match a.at(&self.dd.sets, k, e.idx) {
                Some(ai) => self.saturate(k - 1, ai, e.child),
                None => e.child,
            };
            let _ = self.e.frames[k].set(e.idx as usize, c);
        }
        self.build_saturated(k, a, |me, s, r| a.sat_put(&mut me.c, s, r))
    }

    /// The end of every saturating recursion at level `k`: the local fixpoint, then the node,
    /// remembered by `remember(kernel, src, result)` and as saturated. An interrupted recursion
    /// releases its frame and returns EMPTY, caching nothing.
    #[inline]
    fn build_saturated<A: Cons>(
        &mut self,
        k: usize,
        a: A,
        remember: impl FnOnce(&mut Self, NodeId, NodeId),
    ) -> NodeId {
        if self.e.interrupted.is_none() {
            self.local_fixpoint(k, a);
        }
        if self.e.interrupted.is_some() {
            // a partial result: never cached, never returned as an answer
            self.e.frames[k].release();
            return NodeId::EMPTY;
        }
        let src = self.e.frames[k].src;
        let fr = &self.e.frames[k];
        let r = self.dd.sets.make_node_window(k, fr.lo, &fr.buf);
        self.e.frames[k].release();
        if self.e.last_sat.len() <= k {
            self.e.last_sat.resize(k + 1, NodeId::EMPTY);
        }
        self.e.last_sat[k] = r;
        remember(self, src, r);
        a.sat_put(&mut self.c, r, r);
        r
    }

    /// log10 of the size of the largest of the last sets saturated on each level in this
    /// call, 0 when none. Saturation only ever builds sets of reachable suffixes under one
    /// reachable prefix (it starts from the initial state and fires enabled events), so each
    /// size is a lower bound on the number of reachable states. One pass over the nodes below
    /// them (no collection runs inside a call, so they are all alive).
    pub(super) fn proven_now(&self) -> f64 {
        let mut memo = hashbrown::HashMap::new();
        let sats = self.e.last_sat.iter().filter(|n| !n.is_empty());
        let most = sats.fold(1f64, |m, &n| {
            m.max(self.dd.sets.cardinality_approx(n, &mut memo))
        });
        most.log10()
    }

    /// What level `l` does under `t`, decided once per node: keep the local state (the event
    /// skips the level), map it by a local function, or follow a relation node.
    #[inline]
    pub(super) fn level_step(&self, t: Tok, l: usize) -> LevelStep {
        match t {
            Tok::Ev(e, pi) => {
                let ev = &self.e.events[e as usize];
                match self.e.parts.item((ev.first + pi) as usize) {
                    Some(&(pl, f)) if pi < ev.len && pl as usize == l => {
                        LevelStep::Local(f, self.e.cap[l], Tok::Ev(e, pi + 1))
                    }
                    _ => LevelStep::Same(t),
                }
            }
            Tok::Rel(r) if self.dd.rels.level(r) < 2 * l => LevelStep::Same(t),
            Tok::Rel(r) => LevelStep::Rel(r),
        }
    }

    /// The image of local state `i` under a local function, within the level's cap. An index
    /// that overflows (`u32::MAX` on an unbounded level) stops the run.
    #[inline]
    pub(super) fn local_succ(&mut self, f: &LocalFn, cap: u32, i: u32) -> Option<u32> {
        match f.fire(i) {
            Some(j) if j < cap => Some(j),
            Some(j) => {
                if j == u32::MAX && cap == u32::MAX {
                    self.e.interrupted = Some(Interrupted::IndexTooLarge);
                }
                None
            }
            None => None,
        }
    }

    /// Push the successors of local state `i` under the relation node `r` (an unprimed node
    /// at level `2l`), within the level's cap, on the engine's successor stack; returns where
    /// they start and end. The caller fires them and truncates the stack back to the start
    /// (firings below push and pop their own above).
    fn rel_succ(&mut self, r: NodeId, l: usize, i: u32) -> (usize, usize) {
        let rels = &self.dd.rels;
        let cap = self.e.cap[l];
        let p = rels.child_at(r, 2 * l, i);
        let out = &mut self.e.succ;
        let start = out.len();
        out.extend(
            rels.edges(p)
                .iter()
                .filter(|e| e.idx < cap)
                .map(|e| (e.idx, Tok::Rel(e.child))),
        );
        (start, out.len())
    }

    /// What level `l` does to local state `i` under `t`: no successor, one, or several (left
    /// on the engine's successor stack).
    #[inline]
    pub(super) fn step(&mut self, t: Tok, l: usize, i: u32) -> Succ {
        match self.level_step(t, l) {
            LevelStep::Same(t) => Succ::One(i, t),
            LevelStep::Local(f, cap, t2) => match self.local_succ(&f, cap, i) {
                Some(j) => Succ::One(j, t2),
                None => Succ::None,
            },
            LevelStep::Rel(r) => {
                let (start, end) = self.rel_succ(r, l, i);
                Succ::Buf(start, end)
            }
        }
    }

    /// Is `t` spent (nothing left to fire below)?
    #[inline]
    pub(super) fn done(&self, t: Tok) -> bool {
        match t {
            Tok::Ev(e, pi) => pi == self.e.events[e as usize].len,
            Tok::Rel(r) => r == NodeId::ONE,
        }
    }

    /// Fire every event with Top = `k` on the node under construction in frame `k` until nothing
    /// changes, re-firing only from local states whose child grew (Meddly's queue of changes).
    /// This is the engine's only safe point for garbage collection (see
    /// [`Kernel::collect_in_flight`]).
    pub(super) fn local_fixpoint<A: Cons>(&mut self, k: usize, a: A) {
        if self.e.by_top.at(k).is_empty() {
            return;
        }
        let tops = self.e.top_parts.range(k);
        let cap = self.e.cap[k];
        // this fixpoint's segments of the shared queue and marks
        let (q0, m0) = (self.e.queue.len(), self.e.queued.len());
        let Ok(marks) = u32::try_from(m0) else {
            // billions of local states queued down the levels: as a dense frame too large
            self.e.interrupted = Some(Interrupted::IndexTooLarge);
            return;
        };
        {
            let e = &mut self.e;
            let fr = &mut e.frames[k];
            fr.marks = marks;
            e.queued.resize(m0 + fr.buf.len(), false);
            for (i, c) in fr.buf.iter().enumerate().rev() {
                if !c.is_empty() {
                    e.queue.push(fr.lo + i as u32);
                    e.queued[m0 + i] = true;
                }
            }
        }
        let relations = self.e.rels.is_some();
        while self.e.queue.len() > q0 {
            let Some(i) = self.e.queue.pop() else { break };
            let lo = self.e.frames[k].lo;
            self.e.queued[m0 + (i - lo) as usize] = false;
            // an unbounded level grows here forever: the limits are checked in this loop too
            if self.tick(k) {
                break;
            }
            if self.dd.gc_due() {
                self.collect_in_flight();
            }
            if relations {
                // local states of level k found by this fixpoint are in the frame, not yet in
                // a node: declare them, so the relations are (re)built to cover them
                let fr = &self.e.frames[k];
                let len = fr.lo + fr.buf.len() as u32;
                if self.dd.sets.domain(k) < len {
                    self.dd.sets.set_domain(k, len);
                }
                // N_k (Figure 2.10): the events with Top k fired as one relation
                let r = self.fresh_top(k);
                if !r.is_empty() {
                    match self.step(Tok::Rel(r), k, i) {
                        Succ::None => {}
                        Succ::One(j, t2) => {
                            self.fire_into(k, a, i, j, t2, t2 == Tok::Rel(NodeId::ONE))
                        }
                        Succ::Buf(start, end) => {
                            for x in start..end {
                                let (j, t2) = self.e.succ[x];
                                self.fire_into(k, a, i, j, t2, t2 == Tok::Rel(NodeId::ONE));
                            }
                            self.e.succ.truncate(start);
                        }
                    }
                }
            } else {
                for x in tops.clone() {
                    let Some(&te) = self.e.top_parts.item(x) else {
                        break;
                    };
                    if let Some(j) = self.local_succ(&te.f, cap, i) {
                        self.fire_into(k, a, i, j, Tok::Ev(te.e, 1), te.single);
                    }
                }
            }
            if self.e.interrupted.is_some() {
                break;
            }
        }
        self.e.queue.truncate(q0);
        self.e.queued.truncate(m0);
    }

    /// `t[j] ∪= RelProdSat(t[i], t2)` in frame `k` (Figure 2.10 line 9; Figure 3.3 lines 7-8:
    /// only when `j` is in the constraint), queueing `j` if it grew. `t[i]` is read afresh:
    /// states added to it meanwhile are fired too (they would be re-queued anyway), and the
    /// node read is always one a frame holds (a root).
    #[inline]
    fn fire_into<A: Cons>(&mut self, k: usize, a: A, i: u32, j: u32, t2: Tok, spent: bool) {
        let Some(aj) = a.at(&self.dd.sets, k, j) else {
            return;
        };
        let src = self.e.frames[k].get(i as usize);
        let r = if spent {
            self.identity_tail(k - 1, aj, src)
        } else {
            self.rel_prod_sat(k - 1, aj, src, t2)
        };
        self.merge_into_frame(k, j as usize, r);
    }

    /// `buf[j] ∪= r` in frame `k`, queueing `j` if it grew.
    pub(super) fn merge_into_frame(&mut self, k: usize, j: usize, r: NodeId) {
        // once interrupted the run's result is dropped: no window grows any more
        if r.is_empty() || self.e.interrupted.is_some() || self.window_too_wide(k, j) {
            return;
        }
        let old = self.e.frames[k].get(j);
        let u = self.dd.sets.union(old, r);
        if u != old {
            let e = &mut self.e;
            let fr = &mut e.frames[k];
            // level k's fixpoint is the innermost: its marks end the shared ones, and grow
            // at their start with the window
            let d = fr.set(j, u);
            if d > 0 {
                let m0 = fr.marks as usize;
                e.queued.splice(m0..m0, std::iter::repeat_n(false, d));
                // a window grown by millions of local states (token counts in blocks of
                // millions, issue 50's ovf4e) costs as much as millions of steps, which the
                // ticks do not count: the limits are checked here too
                if d >= WIDE_GROWTH {
                    if let Err(i) = e.limits.check() {
                        e.interrupted = Some(i);
                    }
                }
            }
            let m = fr.marks as usize + j - fr.lo as usize;
            if e.queued.len() <= m {
                e.queued.resize(m + 1, false);
            }
            if !e.queued[m] {
                e.queued[m] = true;
                e.queue.push(j as u32);
            }
        }
    }

    /// RelProdSat (Figure 2.10) with `Free`, ConsRelProd (Figure 3.3) with `Within(a)`: fire
    /// `t` on the saturated node `q` at level `l` and saturate the result (within `a`).
    pub(super) fn rel_prod_sat<A: Cons>(&mut self, l: usize, a: A, q: NodeId, t: Tok) -> NodeId {
        if q.is_empty() {
            return q;
        }
        if self.done(t) {
            return self.identity_tail(l, a, q);
        }
        if let Tok::Rel(r) = t {
            if r.is_empty() {
                return NodeId::EMPTY;
            }
        }
        if let Some(r) = a.fire_get(&mut self.c, t, q) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        self.e.stats.firings += 1;
        {
            let fr = &mut self.e.frames[l];
            fr.src = q;
            fr.cons = a.node();
            fr.rel = match t {
                Tok::Rel(r) => r,
                Tok::Ev(..) => NodeId::EMPTY,
            };
        }
        let n = self.dd.sets.edges(q).len();
        self.e.work += n as u64 + 1;
        let ls = self.level_step(t, l);
        // is the token below spent (the event's last part is here)? decided once per node
        let spent = match ls {
            LevelStep::Same(t2) | LevelStep::Local(_, _, t2) => self.done(t2),
            LevelStep::Rel(_) => false,
        };
        for x in 0..n {
            if A::PREFETCH && !spent {
                self.prefetch_firings(l, a, &ls, x);
            }
            let ed = self.dd.sets.edges(self.e.frames[l].src).at(x);
            match &ls {
                LevelStep::Same(t2) => self.fire_below(l, a, ed.idx, ed.child, *t2, spent),
                LevelStep::Local(f, cap, t2) => {
                    if let Some(j) = self.local_succ(f, *cap, ed.idx) {
                        self.fire_below(l, a, j, ed.child, *t2, spent);
                    }
                }
                LevelStep::Rel(r) => {
                    let (start, end) = self.rel_succ(*r, l, ed.idx);
                    for y in start..end {
                        let (j, t2) = self.e.succ[y];
                        self.fire_below(l, a, j, ed.child, t2, t2 == Tok::Rel(NodeId::ONE));
                    }
                    self.e.succ.truncate(start);
                }
            }
            if self.e.interrupted.is_some() {
                break;
            }
        }
        self.build_saturated(l, a, |me, q, r| a.fire_put(&mut me.c, t, q, r))
    }

    /// Before `RelProdSat` fires edge `x` of the node it works on at level `l`, ask for the
    /// firing-cache line of edge `x + FIRE_AHEAD` (at `x = 0`, of the first ones too): a hint.
    /// Each edge's firing starts with a lookup there, most often a hit; asked [`FIRE_AHEAD`]
    /// edges in advance, the lookups' misses to memory overlap (kanban N=400: the probe had
    /// been 64% of the run's cycles). Kept out of line: inlined, it grew `rel_prod_sat`'s stack
    /// frame by 32 bytes, and saturation recurses once per level (philosophers N=10000 has
    /// 60,000 levels).
    #[inline(never)]
    fn prefetch_firings<A: Cons>(&self, l: usize, a: A, ls: &LevelStep, x: usize) {
        if let LevelStep::Same(t2) | LevelStep::Local(_, _, t2) = ls {
            let edges = self.dd.sets.edges(self.e.frames[l].src);
            let from = if x == 0 { 0 } else { x + FIRE_AHEAD };
            for y in from..(x + FIRE_AHEAD + 1).min(edges.len()) {
                a.fire_prefetch(&self.c, *t2, edges.at(y).child);
            }
        }
    }

    /// `t[j] ∪= RelProdSat(child, t2)` in frame `l` (Figure 3.3: only when `j` is in the
    /// constraint).
    #[inline]
    fn fire_below<A: Cons>(&mut self, l: usize, a: A, j: u32, child: NodeId, t2: Tok, spent: bool) {
        if self.window_too_wide(l, j as usize) {
            return;
        }
        let Some(aj) = a.at(&self.dd.sets, l, j) else {
            return;
        };
        let r = if spent {
            self.identity_tail(l - 1, aj, child)
        } else {
            self.rel_prod_sat(l - 1, aj, child, t2)
        };
        if r.is_empty() {
            return;
        }
        let j = j as usize;
        let old = self.e.frames[l].get(j);
        let u = self.dd.sets.union(old, r);
        let _ = self.e.frames[l].set(j, u);
    }

    /// The result of firing on `q` (level `l`) when the event leaves every level from `l` down
    /// unchanged: `q` itself, already saturated; within a constraint, the part of `q` inside
    /// it, saturated within it (Figure 3.3's ConsRelProd down to the terminals).
    #[inline]
    fn identity_tail<A: Cons>(&mut self, l: usize, a: A, q: NodeId) -> NodeId {
        let a_node = a.node();
        if a_node.is_empty() {
            return q;
        }
        let inside = self.dd.sets.intersect(q, a_node);
        self.saturate(l, a, inside)
    }
}
