//! Picking and enumerating the tuples of a diagram.
//!
//! A tuple is a `Vec<u32>` with entry `k-1` for level `k` (as in [`Forest::singleton`]). It
//! covers levels `1..=level(root)` in a quasi-reduced forest and all levels otherwise; a level
//! skipped in a fully-reduced forest ranges over its current domain, a pair skipped in an
//! identity-reduced forest over `(v, v)` for each `v` of the variable's current domain.
//! Tuples come in lexicographic order with the top level most significant.

use crate::relation::is_unprimed;
use crate::{Forest, NodeId, Reduction};

impl Forest {
    /// The number of levels a tuple of `root` covers.
    pub fn tuple_len(&self, root: NodeId) -> usize {
        match self.reduction() {
            Reduction::Quasi => self.level(root),
            Reduction::Fully | Reduction::Identity => self.num_levels(),
        }
    }

    /// The smallest tuple of `root` (smallest index at the top level first, then below), or
    /// `None` when the set is empty.
    pub fn pick(&self, root: NodeId) -> Option<Vec<u32>> {
        let mut out = None;
        self.for_each_state(root, 1, |t| out = Some(t.to_vec()));
        out
    }

    /// Call `f` on the tuples of `root` in lexicographic order (top level most significant),
    /// stopping after `limit` tuples. Returns the number of tuples visited. Meant for small sets
    /// (witnesses, tests); the work is proportional to the tuples visited times the levels.
    pub fn for_each_state(&self, root: NodeId, limit: usize, mut f: impl FnMut(&[u32])) -> usize {
        if root.is_empty() || limit == 0 {
            return 0;
        }
        let top = self.tuple_len(root);
        let mut tuple = vec![0u32; top];
        let mut seen = 0usize;
        self.walk(top, root, &mut tuple, limit, &mut seen, &mut f);
        seen
    }

    /// The tuples of `root`, at most `limit` of them (see [`Forest::for_each_state`]).
    pub fn states(&self, root: NodeId, limit: usize) -> Vec<Vec<u32>> {
        let mut v = Vec::new();
        self.for_each_state(root, limit, |t| v.push(t.to_vec()));
        v
    }

    /// Depth-first walk at `level` (the tuple's entries above are fixed). Returns false once
    /// the limit is reached.
    fn walk(
        &self,
        level: usize,
        n: NodeId,
        tuple: &mut [u32],
        limit: usize,
        seen: &mut usize,
        f: &mut impl FnMut(&[u32]),
    ) -> bool {
        if level == 0 {
            debug_assert!(n == NodeId::ONE);
            f(tuple);
            *seen += 1;
            return *seen < limit;
        }
        if self.level(n) == level {
            for e in self.edges(n) {
                tuple[level - 1] = e.idx;
                if !self.walk(level - 1, e.child, tuple, limit, seen, f) {
                    return false;
                }
            }
            return true;
        }
        // `n` lies below `level`: the level is skipped
        let dom = self.domain(level);
        match self.reduction() {
            Reduction::Identity => {
                debug_assert!(is_unprimed(level), "skipped relation levels come in pairs");
                for v in 0..dom {
                    tuple[level - 1] = v;
                    tuple[level - 2] = v;
                    if !self.walk(level - 2, n, tuple, limit, seen, f) {
                        return false;
                    }
                }
            }
            _ => {
                for v in 0..dom {
                    tuple[level - 1] = v;
                    if !self.walk(level - 1, n, tuple, limit, seen, f) {
                        return false;
                    }
                }
            }
        }
        true
    }
}
