//! Set operations on MDDs (thesis Figure 2.2 and its siblings): union, intersection, difference.
//! Each has its own compute cache in the forest; each recursion works on the forest's reduction
//! rule (a node below the current level is redundant there in a fully-reduced forest).

use crate::forest::Edge;
use crate::relation::is_unprimed;
use crate::{Forest, NodeId, Reduction};

#[derive(Clone, Copy, PartialEq, Eq)]
enum SetOp {
    Union,
    Intersect,
    Minus,
}

impl Forest {
    /// `a ∪ b`.
    pub fn union(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.apply(SetOp::Union, a, b)
    }
    /// `a ∩ b`.
    pub fn intersect(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.apply(SetOp::Intersect, a, b)
    }
    /// `a \ b`.
    pub fn minus(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.apply(SetOp::Minus, a, b)
    }

    /// Union of many sets.
    pub fn union_all(&mut self, sets: &[NodeId]) -> NodeId {
        sets.iter()
            .fold(NodeId::EMPTY, |acc, &s| self.union(acc, s))
    }

    fn apply(&mut self, op: SetOp, a: NodeId, b: NodeId) -> NodeId {
        // terminal cases. In an identity-reduced forest ONE is the identity relation, not the
        // universe, so only the shortcuts that hold for any non-empty constant apply there.
        let ident = self.reduction() == Reduction::Identity;
        match op {
            SetOp::Union => {
                if a == b || b.is_empty() {
                    return a;
                }
                if a.is_empty() {
                    return b;
                }
                if !ident && (a == NodeId::ONE || b == NodeId::ONE) {
                    return NodeId::ONE;
                }
            }
            SetOp::Intersect => {
                if a.is_empty() || b.is_empty() {
                    return NodeId::EMPTY;
                }
                if a == b || (!ident && b == NodeId::ONE) {
                    return a;
                }
                if !ident && a == NodeId::ONE {
                    return b;
                }
            }
            SetOp::Minus => {
                if a == b || a.is_empty() || (!ident && b == NodeId::ONE) {
                    return NodeId::EMPTY;
                }
                if b.is_empty() {
                    return a;
                }
            }
        }
        let key = match op {
            SetOp::Minus => (a, b),
            _ => (a.min(b), a.max(b)),
        };
        let hit = match op {
            SetOp::Union => self.caches.union.get(key),
            SetOp::Intersect => self.caches.intersect.get(key),
            SetOp::Minus => self.caches.minus.get(key),
        };
        if let Some(r) = hit {
            return r;
        }
        if self.op_step_stops() {
            return NodeId::EMPTY;
        }
        let (la, lb) = (self.level(a), self.level(b));
        let level = la.max(lb);
        let mut out = self.take_scratch(level);
        if la == lb {
            // merge the two sorted edge lists
            let (mut i, mut j) = (0usize, 0usize);
            loop {
                let ea = self.edges(a).get(i);
                let eb = self.edges(b).get(j);
                let (idx, ca, cb) = match (ea, eb) {
                    (None, None) => break,
                    (Some(x), None) => {
                        i += 1;
                        (x.idx, x.child, NodeId::EMPTY)
                    }
                    (None, Some(y)) => {
                        j += 1;
                        (y.idx, NodeId::EMPTY, y.child)
                    }
                    (Some(x), Some(y)) => {
                        if x.idx < y.idx {
                            i += 1;
                            (x.idx, x.child, NodeId::EMPTY)
                        } else if y.idx < x.idx {
                            j += 1;
                            (y.idx, NodeId::EMPTY, y.child)
                        } else {
                            i += 1;
                            j += 1;
                            (x.idx, x.child, y.child)
                        }
                    }
                };
                let r = self.apply(op, ca, cb);
                if !r.is_empty() {
                    out.push(Edge::new(idx, r));
                }
            }
        } else if ident {
            // The lower operand skips the pair at this (unprimed) level: there it is the
            // identity, i.e. the virtual node i -> (i -> low) for every i of the domain.
            debug_assert!(
                is_unprimed(level),
                "relation operand rooted at a primed level"
            );
            let (high, low) = if la > lb { (a, b) } else { (b, a) };
            let high_first = la > lb;
            // only the indices of `high` can contribute unless the result keeps `low`'s side
            let sparse = op == SetOp::Intersect || (op == SetOp::Minus && high_first);
            let n = if sparse {
                self.edges(high).len() as u32
            } else {
                self.domain(level)
            };
            for x in 0..n {
                let (idx, p) = if sparse {
                    let e = self.edges(high).at(x as usize);
                    (e.idx, e.child)
                } else {
                    (x, self.child_at(high, level, x))
                };
                let r = self.apply_identity_pair(op, level - 1, p, idx, low, high_first);
                if !r.is_empty() {
                    out.push(Edge::new(idx, r));
                }
            }
        } else {
            // one operand is redundant at `level` (fully-reduced forests only)
            let dom = self.domain(level);
            for idx in 0..dom {
                let ca = self.child_at(a, level, idx);
                let cb = self.child_at(b, level, idx);
                let r = self.apply(op, ca, cb);
                if !r.is_empty() {
                    out.push(Edge::new(idx, r));
                }
            }
        }
        // a step's work is its node's size (a wide or identity-skipping node is many steps)
        self.count_op_work(out.len());
        let r = self.make_node(level, &out);
        self.put_scratch(level, out);
        match op {
            SetOp::Union => self.caches.union.insert(key, r),
            SetOp::Intersect => self.caches.intersect.insert(key, r),
            SetOp::Minus => self.caches.minus.insert(key, r),
        }
        r
    }

    /// `op(p, q)` at primed level `plevel` of an identity-reduced forest, where `p` is a primed
    /// node (or EMPTY) and `q` the virtual primed node with the single edge `idx -> low`;
    /// operands swapped when `!p_first`.
    fn apply_identity_pair(
        &mut self,
        op: SetOp,
        plevel: usize,
        p: NodeId,
        idx: u32,
        low: NodeId,
        p_first: bool,
    ) -> NodeId {
        let mut out = self.take_scratch(plevel);
        let n = self.edges(p).len();
        let mut placed = false;
        let pair = |x: NodeId, y: NodeId| if p_first { (x, y) } else { (y, x) };
        for j in 0..=n {
            let e = self.edges(p).get(j);
            if !placed && !matches!(e, Some(e) if e.idx < idx) {
                placed = true;
                let pc = match e {
                    Some(e) if e.idx == idx => e.child,
                    _ => NodeId::EMPTY,
                };
                let (x, y) = pair(pc, low);
                let r = self.apply(op, x, y);
                if !r.is_empty() {
                    out.push(Edge::new(idx, r));
                }
                if pc != NodeId::EMPTY {
                    continue;
                }
            }
            if let Some(e) = e {
                let (x, y) = pair(e.child, NodeId::EMPTY);
                let r = self.apply(op, x, y);
                if !r.is_empty() {
                    out.push(Edge::new(e.idx, r));
                }
            }
        }
        self.count_op_work(out.len() + 1);
        let r = self.make_node(plevel, &out);
        self.put_scratch(plevel, out);
        r
    }

    /// The set holding exactly one state, given as local indices per level
    /// (`state[k-1]` for level `k`).
    pub fn singleton(&mut self, state: &[u32]) -> NodeId {
        assert_eq!(
            state.len(),
            self.num_levels(),
            "state length must equal the number of levels"
        );
        let mut n = NodeId::ONE;
        for (k, &i) in state.iter().enumerate() {
            n = self.make_node(k + 1, &[Edge::new(i, n)]);
        }
        n
    }
}
