//! PRISM's transition count: the number of distinct (state, successor) pairs of a relation
//! from a set of states, counted exactly on the decision diagrams.

use std::collections::HashMap;

use num_bigint::BigUint;
use num_traits::Zero;
use saturn_dd::{unprimed_level, Forest, NodeId};

/// The number of distinct pairs `(x, y)` with `x` in the set `s` (of `sets`, quasi-reduced)
/// and `(x, y)` in the relation `r` (of `rels`), exactly.
pub fn count_pairs(sets: &Forest, rels: &Forest, s: NodeId, r: NodeId) -> BigUint {
    fn rec(
        sets: &Forest,
        rels: &Forest,
        k: usize,
        s: NodeId,
        r: NodeId,
        memo: &mut HashMap<(NodeId, NodeId), BigUint>,
    ) -> BigUint {
        if s.is_empty() || r.is_empty() {
            return BigUint::zero();
        }
        if k == 0 {
            return BigUint::from(1u32);
        }
        if let Some(c) = memo.get(&(s, r)) {
            return c.clone();
        }
        let mut total = BigUint::zero();
        if rels.relation_top(r) < k {
            for e in sets.edges(s) {
                total += rec(sets, rels, k - 1, e.child, r, memo);
            }
        } else {
            for e in sets.edges(s) {
                let p = rels.child_at(r, unprimed_level(k), e.idx);
                if p.is_empty() {
                    continue;
                }
                for q in rels.edges(p) {
                    total += rec(sets, rels, k - 1, e.child, q.child, memo);
                }
            }
        }
        memo.insert((s, r), total.clone());
        total
    }
    let mut memo = HashMap::new();
    rec(sets, rels, sets.num_levels(), s, r, &mut memo)
}
