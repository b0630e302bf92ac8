//! Saturation (thesis Figure 2.10) over general events, with relation MDDs built on the fly.
//!
//! The events are grouped by their Top level (the highest level of their support); the union
//! of a group's relations is the thesis's `N_k`, fired in the local fixpoint of level `k`. An
//! event's relation relates only the local states *known* at each support level when it was
//! built (the values seen in the set forest so far, starting from the initial states), and is
//! rebuilt when one of its support levels has gained local states since. Each firing reads
//! nodes that existed when its relation was checked, whose values are all known then, so every
//! firing is exact for the states it fires, and each saturated node is a true fixpoint.
//!
//! The relation forest is collected too: a rebuilt relation frees the old one. Collections of
//! either forest happen only at the safe point of the local fixpoint, where every node the
//! recursion holds lives in a per-level frame.

use saturn_dd::{unprimed_level, Cache, NodeId};
use saturn_model::GeneralModel;

use super::{shannon, EncodeError, Encoded};
use crate::limits::{Interrupted, Limits};

/// Working storage of the one active recursion frame of a level.
#[derive(Default)]
struct Frame {
    /// The set node this frame saturates or fires on (EMPTY when idle).
    src: NodeId,
    /// The relation node this frame fires (EMPTY when saturating).
    rel: NodeId,
    /// The children of the node under construction, dense by local index.
    buf: Vec<NodeId>,
    queued: Vec<bool>,
    queue: Vec<u32>,
}

impl Frame {
    fn release(&mut self) {
        self.buf.clear();
        self.src = NodeId::EMPTY;
        self.rel = NodeId::EMPTY;
    }
}

struct Saturation<'a> {
    model: &'a GeneralModel,
    enc: &'a mut Encoded,
    /// Per level, the known local states, sorted.
    known: Vec<Vec<u32>>,
    is_known: Vec<Vec<bool>>,
    /// Incremented whenever a local state becomes known.
    version: u64,
    /// Per level, the events whose Top it is.
    by_top: Vec<Vec<usize>>,
    /// Per event, its support levels.
    ev_levels: Vec<Vec<usize>>,
    /// Per event, the number of known local states of each support level when its relation
    /// was built (`None`: never built).
    ev_cov: Vec<Option<Vec<usize>>>,
    /// Per level, `N_k` (the union of its events' relations) and the version it was checked at.
    top_rel: Vec<NodeId>,
    top_version: Vec<u64>,
    frames: Vec<Frame>,
    succ_bufs: Vec<Vec<(u32, NodeId)>>,
    sat_cache: Cache<NodeId, NodeId>,
    /// `(set node, relation node) -> saturated image`.
    fire_cache: Cache<(NodeId, NodeId), NodeId>,
    limits: &'a Limits,
    interrupted: Option<Interrupted>,
    steps: u64,
}

/// The reachable states from `enc.init` by saturation; afterwards `enc.events` holds every
/// event's relation over the known (reachable) local states.
pub fn explore_saturation(
    model: &GeneralModel,
    enc: &mut Encoded,
    limits: &Limits,
) -> Result<NodeId, EncodeError> {
    let k = enc.order.len();
    let mut by_top = vec![Vec::new(); k + 1];
    let mut ev_levels = Vec::with_capacity(model.events.len());
    for (e, ev) in model.events.iter().enumerate() {
        let levels: Vec<usize> = ev.support().iter().map(|&v| enc.level_of[v]).collect();
        by_top[levels.iter().copied().max().unwrap_or(0)].push(e);
        ev_levels.push(levels);
    }
    let n_events = model.events.len();
    let mut s = Saturation {
        model,
        enc,
        known: vec![Vec::new(); k + 1],
        is_known: (0..=k).map(|_| Vec::new()).collect(),
        version: 1,
        by_top,
        ev_levels,
        ev_cov: vec![None; n_events],
        top_rel: vec![NodeId::EMPTY; k + 1],
        top_version: vec![0; k + 1],
        frames: (0..=k).map(|_| Frame::default()).collect(),
        succ_bufs: vec![Vec::new(); k + 1],
        sat_cache: Cache::new(12),
        fire_cache: Cache::new(12),
        limits,
        interrupted: None,
        steps: 0,
    };
    s.learn_values(s.enc.init);
    let init = s.enc.init;
    let r = s.saturate(k, init);
    if let Some(i) = s.interrupted {
        return Err(EncodeError::Interrupted(i));
    }
    // every relation over the final known states (for counting and deadlocks)
    for e in 0..n_events {
        s.fresh_event(e);
    }
    Ok(r)
}

impl Saturation<'_> {
    /// Mark local state `j` of level `l` known.
    #[inline]
    fn learn(&mut self, l: usize, j: u32) {
        let ju = j as usize;
        if self.is_known[l].get(ju).copied().unwrap_or(false) {
            return;
        }
        if self.is_known[l].len() <= ju {
            self.is_known[l].resize(ju + 1, false);
        }
        self.is_known[l][ju] = true;
        let pos = self.known[l].partition_point(|&x| x < j);
        self.known[l].insert(pos, j);
        self.version += 1;
    }

    /// Learn every local state of every node below `root`.
    fn learn_values(&mut self, root: NodeId) {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.is_terminal() || !seen.insert(n) {
                continue;
            }
            let l = self.enc.sets.level(n);
            let edges: Vec<_> = self.enc.sets.edges(n).to_vec();
            for e in edges {
                self.learn(l, e.idx);
                stack.push(e.child);
            }
        }
    }

    /// Rebuild event `e`'s relation if a support level gained known states since it was built;
    /// says whether it did.
    fn fresh_event(&mut self, e: usize) -> bool {
        let levels = &self.ev_levels[e];
        let stale = match &self.ev_cov[e] {
            None => true,
            Some(cov) => levels
                .iter()
                .zip(cov)
                .any(|(&l, &c)| self.known[l].len() > c),
        };
        if !stale {
            return false;
        }
        let enc = &mut *self.enc;
        enc.events[e] = shannon::event_relation(
            &mut enc.rels,
            self.model,
            e,
            &enc.level_of,
            Some(&self.known),
        );
        self.ev_cov[e] = Some(levels.iter().map(|&l| self.known[l].len()).collect());
        true
    }

    /// `N_k`, rebuilt if one of its events' relations is stale.
    fn fresh_top(&mut self, k: usize) -> NodeId {
        if self.top_version[k] == self.version {
            return self.top_rel[k];
        }
        let mut changed = self.top_version[k] == 0;
        for x in 0..self.by_top[k].len() {
            let e = self.by_top[k][x];
            changed |= self.fresh_event(e);
        }
        if changed {
            let evs: Vec<NodeId> = self.by_top[k].iter().map(|&e| self.enc.events[e]).collect();
            self.top_rel[k] = self.enc.rels.union_all(&evs);
        }
        self.top_version[k] = self.version;
        self.top_rel[k]
    }

    /// `buf[j] ∪= r` in frame `l`; with `queue`, re-queue `j` if it grew.
    #[inline]
    fn merge(&mut self, l: usize, j: u32, r: NodeId, queue: bool) {
        if r.is_empty() {
            return;
        }
        let ju = j as usize;
        self.learn(l, j);
        let fr = &mut self.frames[l];
        if fr.buf.len() <= ju {
            fr.buf.resize(ju + 1, NodeId::EMPTY);
        }
        let old = fr.buf[ju];
        let u = self.enc.sets.union(old, r);
        if u == old {
            return;
        }
        let fr = &mut self.frames[l];
        fr.buf[ju] = u;
        if queue {
            if fr.queued.len() <= ju {
                fr.queued.resize(ju + 1, false);
            }
            if !fr.queued[ju] {
                fr.queued[ju] = true;
                fr.queue.push(j);
            }
        }
    }

    /// The successors of local state `i` of level `l` under relation node `r` (at or below
    /// level `2l`), each with the relation to apply below: `(i, r)` when `r` skips level `l`.
    fn successors(&self, r: NodeId, l: usize, i: u32, out: &mut Vec<(u32, NodeId)>) {
        out.clear();
        let rels = &self.enc.rels;
        if rels.level(r) < unprimed_level(l) {
            out.push((i, r));
            return;
        }
        let p = rels.child_at(r, unprimed_level(l), i);
        out.extend(rels.edges(p).iter().map(|e| (e.idx, e.child)));
    }

    /// Saturate (Figure 2.10): the least fixpoint of `s` (level `k`) under every event whose
    /// Top is at most `k`.
    fn saturate(&mut self, k: usize, s: NodeId) -> NodeId {
        if k == 0 || s.is_empty() {
            return s;
        }
        if let Some(r) = self.sat_cache.get(s) {
            return r;
        }
        if self.tick() {
            return NodeId::EMPTY;
        }
        self.frames[k].src = s;
        let n = self.enc.sets.edges(s).len();
        for x in 0..n {
            let e = self.enc.sets.edges(self.frames[k].src)[x];
            let c = self.saturate(k - 1, e.child);
            self.merge(k, e.idx, c, false);
        }
        self.finish_frame(k, |me, src, r| {
            me.sat_cache.insert(src, r);
        })
    }

    /// RelProdSat (Figure 2.10): the image of the saturated node `q` (level `l`) under the
    /// relation node `r` (at or below level `2l`; ONE is the identity), saturated.
    fn rec_fire(&mut self, l: usize, q: NodeId, r: NodeId) -> NodeId {
        if q.is_empty() || r.is_empty() {
            return NodeId::EMPTY;
        }
        if r == NodeId::ONE || l == 0 {
            return q;
        }
        if let Some(res) = self.fire_cache.get((q, r)) {
            return res;
        }
        if self.tick() {
            return NodeId::EMPTY;
        }
        self.frames[l].src = q;
        self.frames[l].rel = r;
        let mut succ = std::mem::take(&mut self.succ_bufs[l]);
        let n = self.enc.sets.edges(q).len();
        for x in 0..n {
            let ed = self.enc.sets.edges(self.frames[l].src)[x];
            self.successors(r, l, ed.idx, &mut succ);
            for &(j, r2) in &succ {
                let res = self.rec_fire(l - 1, ed.child, r2);
                self.merge(l, j, res, false);
            }
        }
        self.succ_bufs[l] = succ;
        self.finish_frame(l, |me, src, res| {
            let rel = me.frames[l].rel;
            me.fire_cache.insert((src, rel), res);
        })
    }

    /// Run the local fixpoint of frame `l`, then make its node (EMPTY, uncached, when
    /// interrupted), record it with `cache` and release the frame.
    fn finish_frame(&mut self, l: usize, cache: impl FnOnce(&mut Self, NodeId, NodeId)) -> NodeId {
        if self.interrupted.is_none() {
            self.local_fixpoint(l);
        }
        if self.interrupted.is_some() {
            // a partial result: never cached, never returned as an answer
            self.frames[l].release();
            return NodeId::EMPTY;
        }
        let src = self.frames[l].src;
        let res = self.enc.sets.make_node_dense(l, &self.frames[l].buf);
        cache(self, src, res);
        self.sat_cache.insert(res, res);
        self.frames[l].release();
        res
    }

    /// Fire `N_k` on the node under construction in frame `k` until nothing changes,
    /// re-firing only from local states whose child grew. The safe point for collections.
    fn local_fixpoint(&mut self, k: usize) {
        if self.by_top[k].is_empty() {
            return;
        }
        {
            let fr = &mut self.frames[k];
            fr.queued.clear();
            fr.queued.resize(fr.buf.len(), false);
            fr.queue.clear();
            for (i, c) in fr.buf.iter().enumerate().rev() {
                if !c.is_empty() {
                    fr.queue.push(i as u32);
                    fr.queued[i] = true;
                }
            }
        }
        let mut succ = std::mem::take(&mut self.succ_bufs[k]);
        while let Some(i) = self.frames[k].queue.pop() {
            self.frames[k].queued[i as usize] = false;
            if self.tick() {
                break;
            }
            self.collect_if_due();
            let r = self.fresh_top(k);
            if r.is_empty() {
                continue;
            }
            let src = self.frames[k].buf[i as usize];
            self.successors(r, k, i, &mut succ);
            for &(j, r2) in &succ {
                let res = self.rec_fire(k - 1, src, r2);
                self.merge(k, j, res, true);
            }
        }
        self.succ_bufs[k] = succ;
    }

    /// Limits and cache sizing, every few thousand steps; true once interrupted.
    #[inline]
    fn tick(&mut self) -> bool {
        self.steps += 1;
        if self.steps & 0xfff != 0 {
            return self.interrupted.is_some();
        }
        if let Err(i) = self.limits.check() {
            self.interrupted = Some(i);
        }
        let n = self.enc.sets.nodes_now();
        if n > self.sat_cache.len_slots() && self.sat_cache.len_slots() < (1 << 24) {
            let want = n.next_power_of_two().min(1 << 24);
            self.sat_cache.grow_to(want);
            self.fire_cache.grow_to(want);
            self.enc.sets.tune_caches();
        }
        let ceil = n.saturating_mul(16);
        self.sat_cache.set_ceiling(ceil);
        self.fire_cache.set_ceiling(ceil);
        self.interrupted.is_some()
    }

    /// Collect either forest if it is due, with the frames (and the encoding's sets and the
    /// current relations) as roots, purging the engine's caches of freed nodes.
    fn collect_if_due(&mut self) {
        if self.enc.sets.gc_due() {
            let mut roots = self.enc.keep();
            for fr in &self.frames {
                roots.push(fr.src);
                roots.extend(fr.buf.iter().copied().filter(|n| !n.is_terminal()));
            }
            self.enc.sets.gc(&roots);
            let f = &self.enc.sets;
            self.sat_cache.retain(|k, v| f.is_live(*k) && f.is_live(*v));
            self.fire_cache
                .retain(|k, v| f.is_live(k.0) && f.is_live(*v));
        }
        if self.enc.rels.gc_due() {
            let mut roots = self.enc.events.clone();
            roots.extend(self.top_rel.iter().copied());
            roots.extend(self.frames.iter().map(|f| f.rel));
            self.enc.rels.gc(&roots);
            let f = &self.enc.rels;
            self.fire_cache.retain(|k, _| f.is_live(k.1));
        }
    }
}
