//! Saturation (thesis Figure 2.10): the recursion over levels, the local fixpoint at each level,
//! and the firing walks (implicit events and relation MDDs).

use saturn_dd::NodeId;

use super::Reach;

impl Reach {
    /// SaturateF (thesis Figure 2.10): the least fixpoint of `s` (a node at level `k`) under every
    /// event whose Top is at most `k`.
    pub fn saturate(&mut self, k: usize, s: NodeId) -> NodeId {
        if k == 0 || s.is_empty() {
            return s;
        }
        if let Some(r) = self.sat_cache.get(s) {
            return r;
        }
        if self.tick(k) {
            return NodeId::EMPTY;
        }
        self.frames[k].src = s;
        let n = self.forest.edges(s).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let e = self.forest.edges(self.frames[k].src)[x];
            if self.index_too_large(e.idx as usize) {
                break;
            }
            let c = self.saturate(k - 1, e.child);
            self.frames[k].set(e.idx as usize, c);
        }
        if self.interrupted.is_none() {
            self.local_fixpoint(k);
        }
        if self.interrupted.is_some() {
            // a partial result: never cached, never returned as an answer
            self.frames[k].release();
            return NodeId::EMPTY;
        }
        let s = self.frames[k].src;
        let r = self.forest.make_node_dense(k, &self.frames[k].buf);
        self.frames[k].release();
        self.sat_cache.insert(s, r);
        self.sat_cache.insert(r, r);
        r
    }

    /// Fire every event with Top = `k` on the node under construction in frame `k` until nothing
    /// changes, re-firing only from local states whose child grew (Meddly's queue of changes).
    /// This is the engine's only safe point for garbage collection (see [`Reach::collect_in_flight`]).
    pub(super) fn local_fixpoint(&mut self, k: usize) {
        if self.by_top[k].is_empty() {
            return;
        }
        let evs = std::mem::take(&mut self.by_top[k]);
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
        let cap = self.cap[k];
        while let Some(i) = self.frames[k].queue.pop() {
            self.frames[k].queued[i as usize] = false;
            // an unbounded level grows here forever: the limits are checked in this loop too
            if self.tick(k) {
                break;
            }
            if self.forest.gc_due() {
                self.collect_in_flight();
            }
            if self.rels.is_some() {
                for &e in &evs {
                    self.fire_relation_at(e, k, i, cap);
                }
                if self.interrupted.is_some() {
                    break;
                }
                continue;
            }
            for &e in &evs {
                let (fired, single) = {
                    let ev = &self.events[e as usize];
                    (ev.parts[0].1.fire(i), ev.parts.len() == 1)
                };
                let Some(j) = fired else { continue };
                if j >= cap {
                    continue;
                }
                let src = self.frames[k].buf[i as usize];
                let r = if single {
                    src
                } else {
                    self.rec_fire(e, k - 1, src, 1)
                };
                self.merge_into_frame(k, j as usize, r);
            }
            if self.interrupted.is_some() {
                break;
            }
        }
        self.by_top[k] = evs;
    }

    /// RecFire / RelProdSat (Figure 2.10): fire event `e` on the saturated node `q` at level `l`
    /// (the event's parts from index `pi` on lie at or below `l`) and saturate the result.
    pub(super) fn rec_fire(&mut self, e: u32, l: usize, q: NodeId, pi: usize) -> NodeId {
        if q.is_empty() {
            return q;
        }
        if let Some(r) = self.fire_cache.get((e, q)) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        self.stats.firings += 1;
        let (part, next_pi, last) = {
            let ev = &self.events[e as usize];
            if ev.parts[pi].0 as usize == l {
                (
                    Some(ev.parts[pi].1.clone()),
                    pi + 1,
                    pi + 1 == ev.parts.len(),
                )
            } else {
                (None, pi, false)
            }
        };
        let cap = self.cap[l];
        self.frames[l].src = q;
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let ed = self.forest.edges(self.frames[l].src)[x];
            let j = match &part {
                None => ed.idx,
                Some(f) => match f.fire(ed.idx) {
                    Some(j) if j < cap => j,
                    _ => continue,
                },
            };
            if self.index_too_large(j as usize) {
                break;
            }
            let r = if last {
                ed.child
            } else {
                self.rec_fire(e, l - 1, ed.child, next_pi)
            };
            if r.is_empty() {
                continue;
            }
            let j = j as usize;
            let old = self.frames[l].get(j);
            let u = self.forest.union(old, r);
            self.frames[l].set(j, u);
        }
        if self.interrupted.is_none() {
            self.local_fixpoint(l);
        }
        if self.interrupted.is_some() {
            self.frames[l].release();
            return NodeId::EMPTY;
        }
        let q = self.frames[l].src;
        let r = self.forest.make_node_dense(l, &self.frames[l].buf);
        self.frames[l].release();
        self.fire_cache.insert((e, q), r);
        self.sat_cache.insert(r, r);
        r
    }

    /// Add to frame `k`, in place, the successors of local state `i` under the relation of
    /// event `e` (Top `k`): `buf[j] ∪= RecFire(buf[i], r[i][j])` for each `j`, queueing the
    /// local states whose child grew.
    pub(super) fn fire_relation_at(&mut self, e: u32, k: usize, i: u32, cap: u32) {
        // Local states of level k found by this fixpoint are in the frame, not yet in a node:
        // declare them, so the relation is (re)built to cover them.
        let len = self.frames[k].buf.len() as u32;
        if self.forest.domain(k) < len {
            self.forest.set_domain(k, len);
        }
        let r = self.fresh_relation(e);
        // A snapshot: states added to buf[i] meanwhile re-queue i and are fired then, with a
        // relation covering them.
        let src = self.frames[k].buf[i as usize];
        if r.is_empty() || src.is_empty() {
            return;
        }
        let mut succ = std::mem::take(&mut self.rel_bufs[k]);
        self.rel_successors(r, k, i, cap, &mut succ);
        for &(j, r2) in &succ {
            let res = self.rec_fire_rel(k - 1, src, r2);
            self.merge_into_frame(k, j as usize, res);
        }
        self.rel_bufs[k] = succ;
    }

    /// `buf[j] ∪= r` in frame `k`, queueing `j` if it grew.
    pub(super) fn merge_into_frame(&mut self, k: usize, j: usize, r: NodeId) {
        if r.is_empty() || self.index_too_large(j) {
            return;
        }
        let old = self.frames[k].get(j);
        let u = self.forest.union(old, r);
        if u != old {
            let fr = &mut self.frames[k];
            fr.set(j, u);
            if fr.queued.len() <= j {
                fr.queued.resize(j + 1, false);
            }
            if !fr.queued[j] {
                fr.queued[j] = true;
                fr.queue.push(j as u32);
            }
        }
    }

    /// RelProdSat (Figure 2.10) with a relation MDD: the image of the saturated node `q` (level
    /// `l`) under the relation node `r` (an unprimed node at or below level `2l`, or ONE for the
    /// identity), saturated.
    pub(super) fn rec_fire_rel(&mut self, l: usize, q: NodeId, r: NodeId) -> NodeId {
        if q.is_empty() || r.is_empty() {
            return NodeId::EMPTY;
        }
        if r == NodeId::ONE || l == 0 {
            // identity on every remaining level; q is saturated already
            return q;
        }
        if let Some(res) = self.rels.as_mut().and_then(|rm| rm.fire_cache.get((q, r))) {
            return res;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        self.stats.firings += 1;
        let cap = self.cap[l];
        self.frames[l].src = q;
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        let mut succ = std::mem::take(&mut self.rel_bufs[l]);
        for x in 0..n {
            let ed = self.forest.edges(self.frames[l].src)[x];
            self.rel_successors(r, l, ed.idx, cap, &mut succ);
            for &(j, r2) in &succ {
                if self.index_too_large(j as usize) {
                    break;
                }
                let res = self.rec_fire_rel(l - 1, ed.child, r2);
                if res.is_empty() {
                    continue;
                }
                let old = self.frames[l].get(j as usize);
                let u = self.forest.union(old, res);
                self.frames[l].set(j as usize, u);
            }
        }
        self.rel_bufs[l] = succ;
        if self.interrupted.is_none() {
            self.local_fixpoint(l);
        }
        if self.interrupted.is_some() {
            self.frames[l].release();
            return NodeId::EMPTY;
        }
        let q = self.frames[l].src;
        let res = self.forest.make_node_dense(l, &self.frames[l].buf);
        self.frames[l].release();
        if let Some(rm) = self.rels.as_mut() {
            rm.fire_cache.insert((q, r), res);
        }
        self.sat_cache.insert(res, res);
        res
    }
}
