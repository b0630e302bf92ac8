//! Breadth-first generation (thesis Figure 2.9) and its frontier variant: the one-step image
//! of a set under the whole next-state function.

use saturn_dd::NodeId;

use super::Reach;
use crate::limits::Interrupted;

impl Reach {
    /// The image of `q` (a node at level `l`) under event `e` alone, without saturation.
    pub(super) fn image_event(&mut self, e: u32, l: usize, q: NodeId, pi: usize) -> NodeId {
        if q.is_empty() {
            return q;
        }
        let (part, next_pi) = {
            let ev = &self.events[e as usize];
            if pi == ev.parts.len() {
                return q;
            }
            if ev.parts[pi].0 as usize == l {
                (Some(ev.parts[pi].1.clone()), pi + 1)
            } else {
                (None, pi)
            }
        };
        if let Some(r) = self.img_cache.get((e, q)) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        let cap = self.cap[l];
        let mut fr = std::mem::take(&mut self.frames[l]);
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let ed = self.forest.edges(q)[x];
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
            let r = self.image_event(e, l - 1, ed.child, next_pi);
            if r.is_empty() {
                continue;
            }
            let j = j as usize;
            if fr.buf.len() <= j {
                fr.buf.resize(j + 1, NodeId::EMPTY);
            }
            fr.buf[j] = self.forest.union(fr.buf[j], r);
        }
        if self.interrupted.is_some() {
            fr.buf.clear();
            self.frames[l] = fr;
            return NodeId::EMPTY;
        }
        let r = self.forest.make_node_dense(l, &fr.buf);
        fr.buf.clear();
        self.frames[l] = fr;
        self.img_cache.insert((e, q), r);
        r
    }

    /// `N(s)` (or `P(s)` backward): the relational product of Figure 2.8 with the whole
    /// next-state function, partitioned by Top (see [`Reach::image_all`]).
    pub fn image(&mut self, s: NodeId) -> NodeId {
        let k = self.forest.num_levels();
        if self.rels.is_some() {
            // relational products of Figure 2.8, one per event relation
            let mut acc = NodeId::EMPTY;
            for e in 0..self.events.len() as u32 {
                let r = self.fresh_relation(e);
                let Some(rm) = self.rels.as_ref() else { break };
                let img = saturn_dd::image(&mut self.forest, &rm.forest, s, r);
                acc = self.forest.union(acc, img);
            }
            return acc;
        }
        let mut acc = self.image_all(k, s);
        if self.events.iter().any(|e| e.top == 0) {
            // an event with empty support maps every state to itself
            acc = self.forest.union(acc, s);
        }
        acc
    }

    /// [`Reach::image`] under the limits: `Err` when a limit stopped it (the partial result
    /// is dropped).
    pub fn image_checked(&mut self, s: NodeId) -> Result<NodeId, Interrupted> {
        self.interrupted = None;
        let r = self.image(s);
        match self.interrupted.take() {
            Some(i) => Err(i),
            None => self.limits.check().map(|()| r),
        }
    }

    /// The image of `q` (a node at level `l`) under `N_{<=l}`, the union of the events whose
    /// Top is at most `l`: below `l` by recursion on the children (events with a lower Top
    /// leave level `l` unchanged), at `l` by firing each event with Top `l`. Every node of
    /// the set is visited once per image, whatever the number of events.
    pub(super) fn image_all(&mut self, l: usize, q: NodeId) -> NodeId {
        if l == 0 || q.is_empty() {
            return NodeId::EMPTY;
        }
        if let Some(r) = self.img_all_cache.get(q) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        let mut buf = std::mem::take(&mut self.img_bufs[l]);
        buf.clear();
        let n = self.forest.edges(q).len();
        self.work += n as u64 + 1;
        for x in 0..n {
            let ed = self.forest.edges(q)[x];
            if self.index_too_large(ed.idx as usize) {
                break;
            }
            let r = self.image_all(l - 1, ed.child);
            if r.is_empty() {
                continue;
            }
            let i = ed.idx as usize;
            if buf.len() <= i {
                buf.resize(i + 1, NodeId::EMPTY);
            }
            buf[i] = self.forest.union(buf[i], r);
        }
        let evs = std::mem::take(&mut self.by_top[l]);
        for &e in &evs {
            let r = self.image_event(e, l, q, 0);
            let m = self.forest.edges(r).len();
            for x in 0..m {
                let ed = self.forest.edges(r)[x];
                let j = ed.idx as usize;
                if self.index_too_large(j) {
                    break;
                }
                if buf.len() <= j {
                    buf.resize(j + 1, NodeId::EMPTY);
                }
                buf[j] = self.forest.union(buf[j], ed.child);
            }
        }
        self.by_top[l] = evs;
        if self.interrupted.is_some() {
            buf.clear();
            self.img_bufs[l] = buf;
            return NodeId::EMPTY;
        }
        let r = self.forest.make_node_dense(l, &buf);
        buf.clear();
        self.img_bufs[l] = buf;
        self.img_all_cache.insert(q, r);
        r
    }

    /// Figure 2.9 (and its frontier variant).
    pub(super) fn bfs(&mut self, init: NodeId, frontier: bool) -> Result<NodeId, Interrupted> {
        let mut s = init;
        let mut f = init;
        loop {
            self.stats.iterations += 1;
            let img = self.image(if frontier { f } else { s });
            if let Some(i) = self.interrupted {
                return Err(i);
            }
            let next = self.forest.union(s, img);
            if frontier {
                f = self.forest.minus(img, s);
            }
            if next == s {
                break;
            }
            s = next;
            if let Some(p) = self.progress.as_mut() {
                p(&format!("BFS iteration {}", self.stats.iterations));
            }
            self.collect(&[s, f, init]);
            if let Err(i) = self.limits.check() {
                return Err(i);
            }
        }
        Ok(s)
    }
}
