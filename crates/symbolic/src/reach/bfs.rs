//! Breadth-first generation (thesis Figure 2.9) and its frontier variant: the one-step image
//! of a set under the whole next-state function, by the kernel's firing walk
//! ([`Kernel::step`]) without saturation.

use saturn_dd::NodeId;

use super::kernel::{Kernel, LevelStep, Tok};
use crate::limits::Interrupted;

impl Kernel<'_> {
    /// The image of `q` (a node at level `l`) under what remains of event `e` (`t`), without
    /// saturation.
    pub(super) fn image_event(&mut self, l: usize, q: NodeId, t: Tok) -> NodeId {
        if q.is_empty() || self.done(t) {
            return q;
        }
        let Tok::Ev(e, _) = t else {
            unreachable!("BFS fires relation MDDs by relational products")
        };
        if let Some(r) = self.c.img.get((e, q)) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        let mut buf = self.e.take_img_buf(l);
        buf.clear();
        let n = self.dd.sets.edges(q).len();
        self.e.work += n as u64 + 1;
        let ls = self.level_step(t, l);
        for x in 0..n {
            let ed = self.dd.sets.edges(q).at(x);
            let (j, t2) = match &ls {
                LevelStep::Same(t2) => (ed.idx, *t2),
                LevelStep::Local(f, cap, t2) => match self.local_succ(f, *cap, ed.idx) {
                    Some(j) => (j, *t2),
                    None => continue,
                },
                LevelStep::Rel(_) => unreachable!("BFS fires relation MDDs by relational products"),
            };
            if self.index_too_large(j as usize) {
                break;
            }
            let r = self.image_event(l - 1, ed.child, t2);
            if r.is_empty() {
                continue;
            }
            let j = j as usize;
            if buf.len() <= j {
                buf.resize(j + 1, NodeId::EMPTY);
            }
            buf[j] = self.dd.sets.union(buf[j], r);
        }
        let r = if self.e.interrupted.is_some() {
            NodeId::EMPTY
        } else {
            let r = self.dd.sets.make_node_dense(l, &buf);
            self.c.img.insert((e, q), r);
            r
        };
        buf.clear();
        self.e.put_img_buf(l, buf);
        r
    }

    /// `N(s)` (or `P(s)` backward): the relational product of Figure 2.8 with the whole
    /// next-state function, partitioned by Top (see [`Kernel::image_all`]).
    pub(super) fn image(&mut self, s: NodeId) -> NodeId {
        let k = self.dd.num_levels();
        if self.e.rels.is_some() {
            // relational products of Figure 2.8, one per event relation
            let mut acc = NodeId::EMPTY;
            for e in 0..self.e.events.len() as u32 {
                if self.e.only.as_ref().is_some_and(|m| !m[e as usize]) {
                    continue;
                }
                let r = self.fresh_relation(e);
                let img = saturn_dd::image(&mut self.dd.sets, &self.dd.rels, s, r);
                acc = self.dd.sets.union(acc, img);
            }
            return acc;
        }
        let mut acc = self.image_all(k, s);
        if !self.e.by_top.at(0).is_empty() {
            // an event with empty support maps every state to itself
            acc = self.dd.sets.union(acc, s);
        }
        acc
    }

    /// The image of `q` (a node at level `l`) under `N_{<=l}`, the union of the events whose
    /// Top is at most `l`: below `l` by recursion on the children (events with a lower Top
    /// leave level `l` unchanged), at `l` by firing each event with Top `l`. Every node of
    /// the set is visited once per image, whatever the number of events.
    fn image_all(&mut self, l: usize, q: NodeId) -> NodeId {
        if l == 0 || q.is_empty() {
            return NodeId::EMPTY;
        }
        if let Some(r) = self.c.img_all.get(q) {
            return r;
        }
        if self.tick(l) {
            return NodeId::EMPTY;
        }
        let mut buf = self.e.take_img_buf(l);
        buf.clear();
        let n = self.dd.sets.edges(q).len();
        self.e.work += n as u64 + 1;
        for x in 0..n {
            let ed = self.dd.sets.edges(q).at(x);
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
            buf[i] = self.dd.sets.union(buf[i], r);
        }
        for x in self.e.by_top.range(l) {
            let Some(&e) = self.e.by_top.item(x) else {
                break;
            };
            let r = self.image_event(l, q, Tok::Ev(e, 0));
            let m = self.dd.sets.edges(r).len();
            for x in 0..m {
                let ed = self.dd.sets.edges(r).at(x);
                let j = ed.idx as usize;
                if self.index_too_large(j) {
                    break;
                }
                if buf.len() <= j {
                    buf.resize(j + 1, NodeId::EMPTY);
                }
                buf[j] = self.dd.sets.union(buf[j], ed.child);
            }
        }
        let r = if self.e.interrupted.is_some() {
            NodeId::EMPTY
        } else {
            let r = self.dd.sets.make_node_dense(l, &buf);
            self.c.img_all.insert(q, r);
            r
        };
        buf.clear();
        self.e.put_img_buf(l, buf);
        r
    }

    /// Figure 2.9 (and its frontier variant).
    pub(super) fn bfs(&mut self, init: NodeId, frontier: bool) -> Result<NodeId, Interrupted> {
        let mut s = init;
        let mut f = init;
        loop {
            self.e.stats.iterations += 1;
            let img = self.image(if frontier { f } else { s });
            if let Some(i) = self.e.interrupted {
                return Err(i);
            }
            let next = self.dd.sets.union(s, img);
            if frontier {
                f = self.dd.sets.minus(img, s);
            }
            if next == s {
                break;
            }
            s = next;
            let it = self.e.stats.iterations;
            self.report(|| format!("BFS iteration {it}"));
            if self.dd.gc_due() {
                self.collect_between(&[s, f, init]);
            }
            self.e.limits.check()?;
        }
        Ok(s)
    }
}
