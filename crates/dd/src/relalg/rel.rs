//! Relation to relation: composition and transpose.

use super::RelAlg;
use crate::forest::Edge;
use crate::relation::{is_unprimed, var_of_level};
use crate::{Forest, NodeId};

impl RelAlg {
    /// The composition `R;S = { (x, z) : ∃y, (x, y) ∈ R ∧ (y, z) ∈ S }` of two relations of
    /// `rels` (first `R`, then `S`).
    pub fn compose(&mut self, rels: &mut Forest, r: NodeId, s: NodeId) -> NodeId {
        self.sync(rels, None);
        self.compose_rec(rels, r, s)
    }

    fn compose_rec(&mut self, rels: &mut Forest, r: NodeId, s: NodeId) -> NodeId {
        if r.is_empty() || s.is_empty() {
            return NodeId::EMPTY;
        }
        if r == NodeId::ONE {
            return s;
        }
        if s == NodeId::ONE {
            return r;
        }
        if let Some(t) = self.compose.get((r, s)) {
            return t;
        }
        if self.halted() {
            return NodeId::EMPTY;
        }
        let (lr, ls) = (rels.level(r), rels.level(s));
        let level = lr.max(ls);
        // (i, l, child) triples of the result
        let mut triples: Vec<(u32, u32, NodeId)> = Vec::new();
        if lr == ls {
            for x in 0..rels.edges(r).len() {
                let Edge {
                    idx: i, child: p, ..
                } = rels.edges(r).at(x);
                for y in 0..rels.edges(p).len() {
                    let Edge {
                        idx: j, child: c, ..
                    } = rels.edges(p).at(y);
                    let q = rels.child_at(s, level, j);
                    for z in 0..rels.edges(q).len() {
                        let Edge {
                            idx: l, child: d, ..
                        } = rels.edges(q).at(z);
                        let t = self.compose_rec(rels, c, d);
                        if !t.is_empty() {
                            triples.push((i, l, t));
                        }
                    }
                }
            }
        } else {
            // the lower operand is the identity on this variable: i -> i
            let (high, r_high) = if lr > ls { (r, true) } else { (s, false) };
            for x in 0..rels.edges(high).len() {
                let Edge {
                    idx: i, child: p, ..
                } = rels.edges(high).at(x);
                for y in 0..rels.edges(p).len() {
                    let Edge {
                        idx: j, child: c, ..
                    } = rels.edges(p).at(y);
                    let t = if r_high {
                        self.compose_rec(rels, c, s)
                    } else {
                        self.compose_rec(rels, r, c)
                    };
                    if !t.is_empty() {
                        triples.push((i, j, t));
                    }
                }
            }
        }
        let t = build_from_triples(rels, level, &mut triples);
        if self.stopped {
            return NodeId::EMPTY;
        }
        self.compose.insert((r, s), t);
        t
    }

    /// The transpose (inverse) `Rᵀ = { (y, x) : (x, y) ∈ R }` of a relation of `rels`.
    pub fn transpose(&mut self, rels: &mut Forest, r: NodeId) -> NodeId {
        self.sync(rels, None);
        self.transpose_rec(rels, r)
    }

    fn transpose_rec(&mut self, rels: &mut Forest, r: NodeId) -> NodeId {
        if r.is_terminal() {
            return r;
        }
        if let Some(t) = self.transpose.get(r) {
            return t;
        }
        if self.halted() {
            return NodeId::EMPTY;
        }
        let level = rels.level(r);
        let mut triples: Vec<(u32, u32, NodeId)> = Vec::new();
        for x in 0..rels.edges(r).len() {
            let Edge {
                idx: i, child: p, ..
            } = rels.edges(r).at(x);
            for y in 0..rels.edges(p).len() {
                let Edge {
                    idx: j, child: c, ..
                } = rels.edges(p).at(y);
                let t = self.transpose_rec(rels, c);
                triples.push((j, i, t));
            }
        }
        let t = build_from_triples(rels, level, &mut triples);
        if self.stopped {
            return NodeId::EMPTY;
        }
        self.transpose.insert(r, t);
        t
    }
}

/// The relation node at unprimed `level` holding `i -> (j -> child)` for each triple
/// `(i, j, child)` (any order; the children of equal `(i, j)` are united).
pub(super) fn build_from_triples(
    rels: &mut Forest,
    level: usize,
    triples: &mut [(u32, u32, NodeId)],
) -> NodeId {
    debug_assert!(var_of_level(level) >= 1 && is_unprimed(level));
    triples.sort_unstable_by_key(|&(i, j, _)| (i, j));
    let mut unprimed: Vec<Edge> = Vec::new();
    let mut primed: Vec<Edge> = Vec::new();
    let mut x = 0;
    while x < triples.len() {
        let i = triples[x].0;
        primed.clear();
        while x < triples.len() && triples[x].0 == i {
            let (_, j, c) = triples[x];
            match primed.last_mut() {
                Some(e) if e.idx == j => e.child = rels.union(e.child, c),
                _ => primed.push(Edge::new(j, c)),
            }
            x += 1;
        }
        let p = rels.make_node(level - 1, &primed);
        if !p.is_empty() {
            unprimed.push(Edge::new(i, p));
        }
    }
    rels.make_node(level, &unprimed)
}
