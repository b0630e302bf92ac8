//! Sets into relations: restriction of a side by a set, the identity over a set, the cross
//! product of two sets.

use super::rel::build_from_triples;
use super::{set_child, var_domain, RelAlg, Side};
use crate::forest::Edge;
use crate::relation::{unprimed_level, var_of_level};
use crate::{Forest, NodeId};

impl RelAlg {
    /// The relation `r` of `rels` restricted on `side` to the set `s` of `sets`:
    /// `{ (x, y) ∈ R : x ∈ S }` for [`Side::From`], `{ (x, y) ∈ R : y ∈ S }` for [`Side::To`].
    pub fn restrict(
        &mut self,
        rels: &mut Forest,
        sets: &Forest,
        r: NodeId,
        side: Side,
        s: NodeId,
    ) -> NodeId {
        self.sync(rels, Some(sets));
        self.restrict_rec(rels, sets, side, r, s)
    }

    fn restrict_rec(
        &mut self,
        rels: &mut Forest,
        sets: &Forest,
        side: Side,
        r: NodeId,
        s: NodeId,
    ) -> NodeId {
        if r.is_empty() || s.is_empty() {
            return NodeId::EMPTY;
        }
        if s == NodeId::ONE {
            // the rest of the set is unconstrained (or there is no rest)
            return r;
        }
        let cache = match side {
            Side::From => &mut self.restrict_from,
            Side::To => &mut self.restrict_to,
        };
        if let Some(t) = cache.get((r, s)) {
            return t;
        }
        if self.halted() {
            return NodeId::EMPTY;
        }
        let kr = var_of_level(rels.level(r));
        let k = kr.max(sets.level(s));
        let dom = var_domain(sets, rels, k);
        let mut triples: Vec<(u32, u32, NodeId)> = Vec::new();
        if kr < k {
            // r is the identity on variable k: keep i -> i where s has i
            for x in 0..sets.edges(s).len() {
                let Edge {
                    idx: i, child: si, ..
                } = sets.edges(s).at(x);
                let t = self.restrict_rec(rels, sets, side, r, si);
                if !t.is_empty() {
                    triples.push((i, i, t));
                }
            }
        } else {
            for x in 0..rels.edges(r).len() {
                let Edge {
                    idx: i, child: p, ..
                } = rels.edges(r).at(x);
                let si = set_child(sets, s, k, i, dom);
                if side == Side::From && si.is_empty() {
                    continue;
                }
                for y in 0..rels.edges(p).len() {
                    let Edge {
                        idx: j, child: c, ..
                    } = rels.edges(p).at(y);
                    let sub = match side {
                        Side::From => si,
                        Side::To => set_child(sets, s, k, j, dom),
                    };
                    let t = self.restrict_rec(rels, sets, side, c, sub);
                    if !t.is_empty() {
                        triples.push((i, j, t));
                    }
                }
            }
        }
        if self.stopped {
            return NodeId::EMPTY;
        }
        let t = build_from_triples(rels, unprimed_level(k), &mut triples);
        match side {
            Side::From => self.restrict_from.insert((r, s), t),
            Side::To => self.restrict_to.insert((r, s), t),
        }
        t
    }

    /// The identity relation over the set `s` of `sets`: `{ (x, x) : x ∈ S }`.
    pub fn identity_over(&mut self, rels: &mut Forest, sets: &Forest, s: NodeId) -> NodeId {
        self.sync(rels, Some(sets));
        self.identity_rec(rels, sets, s)
    }

    fn identity_rec(&mut self, rels: &mut Forest, sets: &Forest, s: NodeId) -> NodeId {
        if s.is_terminal() {
            // EMPTY, or ONE: every remaining variable unchanged over its whole domain
            return s;
        }
        if let Some(t) = self.identity.get(s) {
            return t;
        }
        if self.halted() {
            return NodeId::EMPTY;
        }
        let k = sets.level(s);
        let mut triples: Vec<(u32, u32, NodeId)> = Vec::new();
        for x in 0..sets.edges(s).len() {
            let Edge {
                idx: i, child: si, ..
            } = sets.edges(s).at(x);
            // a level the set skips (fully reduced) is every value: the identity there
            let t = self.identity_rec(rels, sets, si);
            if !t.is_empty() {
                triples.push((i, i, t));
            }
        }
        let t = build_from_triples(rels, unprimed_level(k), &mut triples);
        if self.stopped {
            return NodeId::EMPTY;
        }
        self.identity.insert(s, t);
        t
    }

    /// The cross product `S × T = { (x, y) : x ∈ S, y ∈ T }` of two sets of `sets`.
    pub fn cross(&mut self, rels: &mut Forest, sets: &Forest, s: NodeId, t: NodeId) -> NodeId {
        self.sync(rels, Some(sets));
        self.cross_rec(rels, sets, s, t, sets.num_levels())
    }

    /// `S × T` over the variables `1..=k` (sets of a fully-reduced forest may skip levels, so
    /// the level is explicit: a skipped level is every value on that side).
    fn cross_rec(
        &mut self,
        rels: &mut Forest,
        sets: &Forest,
        s: NodeId,
        t: NodeId,
        k: usize,
    ) -> NodeId {
        if s.is_empty() || t.is_empty() {
            return NodeId::EMPTY;
        }
        if k == 0 {
            return NodeId::ONE;
        }
        let key = (s, t, k as u32);
        if let Some(r) = self.cross.get(key) {
            return r;
        }
        if self.halted() {
            return NodeId::EMPTY;
        }
        let dom = var_domain(sets, rels, k);
        let side_edges = |n: NodeId| -> Vec<(u32, NodeId)> {
            if sets.level(n) < k {
                (0..dom).map(|i| (i, n)).collect()
            } else {
                sets.edges(n).iter().map(|e| (e.idx, e.child)).collect()
            }
        };
        let (es, et) = (side_edges(s), side_edges(t));
        let mut triples: Vec<(u32, u32, NodeId)> = Vec::with_capacity(es.len() * et.len());
        for &(i, si) in &es {
            for &(j, tj) in &et {
                let c = self.cross_rec(rels, sets, si, tj, k - 1);
                if !c.is_empty() {
                    triples.push((i, j, c));
                }
            }
        }
        let r = build_from_triples(rels, unprimed_level(k), &mut triples);
        if self.stopped {
            return NodeId::EMPTY;
        }
        self.cross.insert(key, r);
        r
    }
}
