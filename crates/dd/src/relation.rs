//! Building identity-reduced (QIF) 2L-level relations (see [`Reduction::Identity`]).
//!
//! Variable `k` (a level of the set forest, `1..=K`) is the pair of relation-forest levels
//! `2k` (unprimed, "from") and `2k-1` (primed, "to"). A relation node at level `2k` maps a
//! from-index `i` to a primed node at level `2k-1`, which maps a to-index `i'` to the rest of
//! the relation below; pairs in between that are skipped are unchanged (identity).

use crate::forest::Edge;
use crate::{Forest, NodeId, Reduction};

/// The unprimed relation-forest level of variable `k`.
#[inline]
pub fn unprimed_level(k: usize) -> usize {
    2 * k
}

/// The primed relation-forest level of variable `k`.
#[inline]
pub fn primed_level(k: usize) -> usize {
    2 * k - 1
}

/// Whether a relation-forest level is unprimed (even; level 0, the terminals, counts as even).
#[inline]
pub fn is_unprimed(level: usize) -> bool {
    level & 1 == 0
}

/// The variable a relation-forest level belongs to (`2k` and `2k-1` both give `k`).
#[inline]
pub fn var_of_level(level: usize) -> usize {
    level.div_ceil(2)
}

impl Forest {
    fn assert_relation_forest(&self) {
        assert!(
            self.reduction() == Reduction::Identity && is_unprimed(self.num_levels()),
            "relation builders need an identity-reduced forest with an even number of levels"
        );
    }

    /// The topmost variable a relation depends on (0 for EMPTY and for the identity ONE):
    /// the relation is the identity on every variable above it.
    pub fn relation_top(&self, r: NodeId) -> usize {
        var_of_level(self.level(r))
    }

    /// The product relation of per-variable local relations, the identity on every variable not
    /// listed: `parts[j] = (k, pairs)` relates local state `from` of variable `k` to `to` for
    /// each `(from, to)` in `pairs` (any order, duplicates allowed). `parts` must list each
    /// variable at most once; the recommended order is from high to low `k`, but any order is
    /// accepted. A part with no pairs makes the whole relation EMPTY.
    ///
    /// The domains of the listed variables grow to cover the pairs; see
    /// [`Reduction::Identity`] for what the relation means when a domain grows later (a part
    /// listing `(i, i)` for every `i` of the current domain reduces to "unchanged").
    ///
    /// # Panics
    /// If the forest is not an identity-reduced relation forest, a variable is out of range
    /// (`1..=num_levels()/2`) or listed twice.
    pub fn relation_from_local(&mut self, parts: &[(usize, Vec<(u32, u32)>)]) -> NodeId {
        self.assert_relation_forest();
        let nvars = self.num_levels() / 2;
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_unstable_by_key(|&j| parts[j].0);
        for w in order.windows(2) {
            assert!(
                parts[w[0]].0 != parts[w[1]].0,
                "variable {} listed twice",
                parts[w[0]].0
            );
        }
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut n = NodeId::ONE;
        // bottom-up: lowest variable first
        for &j in &order {
            let (k, ref local) = parts[j];
            assert!(
                k >= 1 && k <= nvars,
                "variable {k} out of range 1..={nvars}"
            );
            pairs.clear();
            pairs.extend_from_slice(local);
            n = self.local_pairs_node(k, &mut pairs, n);
            if n.is_empty() {
                return NodeId::EMPTY;
            }
        }
        n
    }

    /// The unprimed node of variable `k` relating each pair of `pairs` (sorted and deduplicated
    /// here) and continuing to `below`. Declares the domain first so the identity check sees
    /// the final domain.
    fn local_pairs_node(&mut self, k: usize, pairs: &mut Vec<(u32, u32)>, below: NodeId) -> NodeId {
        pairs.sort_unstable();
        pairs.dedup();
        if pairs.is_empty() || below.is_empty() {
            return NodeId::EMPTY;
        }
        let max = pairs.iter().map(|&(a, b)| a.max(b)).max().unwrap_or(0);
        self.set_domain(unprimed_level(k), max + 1);
        let mut unprimed = self.take_scratch(unprimed_level(k));
        let mut primed = self.take_scratch(primed_level(k));
        let mut start = 0;
        while start < pairs.len() {
            let from = pairs[start].0;
            let mut end = start;
            primed.clear();
            while end < pairs.len() && pairs[end].0 == from {
                primed.push(Edge::new(pairs[end].1, below));
                end += 1;
            }
            let p = self.make_node(primed_level(k), &primed);
            unprimed.push(Edge::new(from, p));
            start = end;
        }
        let r = self.make_node(unprimed_level(k), &unprimed);
        self.put_scratch(primed_level(k), primed);
        self.put_scratch(unprimed_level(k), unprimed);
        r
    }

    /// The relation holding exactly the transition `from -> to` (full states, `from[k-1]` is
    /// variable `k`). Every variable is explicit, so the pair of a variable whose domain has a
    /// single value reduces to the identity.
    ///
    /// # Panics
    /// If the forest is not a relation forest or the states' lengths differ from the number of
    /// variables.
    pub fn relation_singleton(&mut self, from: &[u32], to: &[u32]) -> NodeId {
        self.assert_relation_forest();
        let nvars = self.num_levels() / 2;
        assert!(
            from.len() == nvars && to.len() == nvars,
            "states must have one value per variable"
        );
        let mut n = NodeId::ONE;
        for k in 1..=nvars {
            let (i, j) = (from[k - 1], to[k - 1]);
            self.set_domain(unprimed_level(k), i.max(j) + 1);
            let p = self.make_node(primed_level(k), &[Edge::new(j, n)]);
            n = self.make_node(unprimed_level(k), &[Edge::new(i, p)]);
        }
        n
    }

    /// The relation holding exactly the listed transitions `(from, to)` (full states, as in
    /// [`Forest::relation_singleton`]). Domains are grown to cover every tuple before any node is
    /// built, so the result does not depend on the order of the list. Meant for tests and small
    /// explicit relations.
    pub fn relation_from_tuples(&mut self, tuples: &[(Vec<u32>, Vec<u32>)]) -> NodeId {
        self.assert_relation_forest();
        for (from, to) in tuples {
            for (k, (&i, &j)) in from.iter().zip(to.iter()).enumerate() {
                self.set_domain(unprimed_level(k + 1), i.max(j) + 1);
            }
        }
        let mut acc = NodeId::EMPTY;
        for (from, to) in tuples {
            let t = self.relation_singleton(from, to);
            acc = self.union(acc, t);
        }
        acc
    }
}
