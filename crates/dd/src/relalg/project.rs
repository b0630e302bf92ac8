//! Relations into sets: the diagonal, and existential quantification of one side (the domain
//! or the range of a relation).

use super::{var_domain, RelAlg, Side};
use crate::forest::Edge;
use crate::relation::var_of_level;
use crate::relprod::merge_by_index;
use crate::{Forest, NodeId};

/// Which relation-to-set operation a shared recursion computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ToSet {
    Diagonal,
    Domain,
    Range,
}

impl RelAlg {
    /// The diagonal `{ x : (x, x) ∈ R }` of the relation `r` of `rels`, as a set of `sets`.
    pub fn diagonal(&mut self, sets: &mut Forest, rels: &Forest, r: NodeId) -> NodeId {
        self.sync(rels, Some(sets));
        self.set_of_rel_rec(sets, rels, ToSet::Diagonal, r, sets.num_levels())
    }

    /// The relation `r` of `rels` with the other side existentially quantified, as a set of
    /// `sets`: its domain `{ x : ∃y, (x, y) ∈ R }` for [`Side::From`] (the primed levels
    /// quantified), its range `{ y : ∃x, (x, y) ∈ R }` for [`Side::To`] (the unprimed levels
    /// quantified).
    pub fn project(&mut self, sets: &mut Forest, rels: &Forest, r: NodeId, side: Side) -> NodeId {
        self.sync(rels, Some(sets));
        let op = match side {
            Side::From => ToSet::Domain,
            Side::To => ToSet::Range,
        };
        self.set_of_rel_rec(sets, rels, op, r, sets.num_levels())
    }

    /// The set over levels `1..=k` (explicit level: quasi-reduced set forests need a node at
    /// every level, and a variable the relation skips is every value of its domain).
    fn set_of_rel_rec(
        &mut self,
        sets: &mut Forest,
        rels: &Forest,
        op: ToSet,
        r: NodeId,
        k: usize,
    ) -> NodeId {
        if r.is_empty() {
            return NodeId::EMPTY;
        }
        if k == 0 {
            return NodeId::ONE;
        }
        let key = (r, k as u32);
        let cache = match op {
            ToSet::Diagonal => &mut self.diagonal,
            ToSet::Domain => &mut self.domain,
            ToSet::Range => &mut self.range,
        };
        if let Some(t) = cache.get(key) {
            return t;
        }
        if self.halted() {
            return NodeId::EMPTY;
        }
        let mut out: Vec<Edge> = Vec::new();
        if var_of_level(rels.level(r)) < k {
            // identity on variable k: every value, each related to itself
            let below = self.set_of_rel_rec(sets, rels, op, r, k - 1);
            if !below.is_empty() {
                let dom = var_domain(sets, rels, k);
                out.extend((0..dom).map(|i| Edge::new(i, below)));
            }
        } else {
            for x in 0..rels.edges(r).len() {
                let Edge {
                    idx: i, child: p, ..
                } = rels.edges(r).at(x);
                for y in 0..rels.edges(p).len() {
                    let Edge {
                        idx: j, child: c, ..
                    } = rels.edges(p).at(y);
                    if op == ToSet::Diagonal && i != j {
                        continue;
                    }
                    let t = self.set_of_rel_rec(sets, rels, op, c, k - 1);
                    if !t.is_empty() {
                        out.push(Edge::new(if op == ToSet::Range { j } else { i }, t));
                    }
                }
            }
            merge_by_index(sets, &mut out);
        }
        if self.stopped {
            return NodeId::EMPTY;
        }
        let t = sets.make_node(k, &out);
        match op {
            ToSet::Diagonal => self.diagonal.insert(key, t),
            ToSet::Domain => self.domain.insert(key, t),
            ToSet::Range => self.range.insert(key, t),
        }
        t
    }
}
