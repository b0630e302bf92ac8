//! Matrix operations on interleaved (`2L`-level) edge-valued diagrams needed by the CTMC
//! engines (thesis section 6.2.1): dropping the diagonal of a matrix, and counting the
//! non-default entries (the paths of a diagram).

use rustc_hash::FxHashMap;

use super::{Ev, EvForest, EvValue, Overflow};
use crate::forest::Edge;
use crate::NodeId;

impl<V: EvValue> EvForest<V> {
    /// The matrix `f` with its diagonal entries `f[i||i]` set to the default value (EV*: `0`,
    /// EV+: `+∞`): a CTMC's rate matrix without self-loops. Along a path that has kept the
    /// row equal to the column so far, the pair `(i, i)` recurs and every pair `(i, j≠i)` keeps
    /// its sub-diagram unchanged; the recursion is memoised on the node (cache `off_diag`).
    pub fn off_diagonal(&mut self, f: Ev<V>) -> Result<Ev<V>, Overflow> {
        assert!(self.is_interleaved(), "off_diagonal: a matrix forest");
        if f.is_default() {
            return Ok(f);
        }
        let r = self.off_diagonal_rec(f.node)?;
        if r.is_default() {
            return Ok(r);
        }
        Ok(Ev {
            val: V::combine(f.val, r.val)?,
            node: r.node,
        })
    }

    /// The off-diagonal part of node `n` (an unprimed node, or a terminal) as a dangling edge.
    fn off_diagonal_rec(&mut self, n: NodeId) -> Result<Ev<V>, Overflow> {
        if n.is_terminal() {
            // a whole path on the diagonal: dropped
            return Ok(Ev::default_fn());
        }
        if let Some((val, node)) = self.caches.off_diag.get(n) {
            return Ok(Ev { val, node });
        }
        let k = self.level(n);
        let mut rows = Vec::with_capacity(self.edges(n).len());
        for e in self.edges(n).to_vec() {
            let mut cols = self.edges(e.child).to_vec();
            if let Ok(pos) = cols.binary_search_by_key(&e.idx, |c| c.idx) {
                let below = self.off_diagonal_rec(cols[pos].child)?;
                cols[pos] = Edge::valued(
                    e.idx,
                    below.node,
                    if below.is_default() {
                        V::DEFAULT
                    } else {
                        V::combine(cols[pos].val, below.val)?
                    },
                );
            }
            let p = self.normalize(k - 1, &mut cols)?;
            if !p.is_default() {
                rows.push(Edge::valued(e.idx, p.node, V::combine(e.val, p.val)?));
            }
        }
        let r = self.normalize(k, &mut rows)?;
        self.caches.off_diag.insert(n, (r.val, r.node));
        Ok(r)
    }

    /// The transpose of the matrix `f`: `f^T[i||j] = f[j||i]`. At each pair of levels the row
    /// and column indices swap places (an unprimed node's edges become the primed nodes'
    /// edges and conversely), with every product of edge values kept on its path; the
    /// recursion is memoised on the node (cache `transpose`). A CTMC engine solving on the
    /// rows of `R` (the embedded chain of unbounded until) sweeps the columns of `R^T`.
    pub fn transpose(&mut self, f: Ev<V>) -> Result<Ev<V>, Overflow> {
        assert!(self.is_interleaved(), "transpose: a matrix forest");
        if f.is_default() {
            return Ok(f);
        }
        let r = self.transpose_rec(f.node)?;
        if r.is_default() {
            return Ok(r);
        }
        Ok(Ev {
            val: V::combine(f.val, r.val)?,
            node: r.node,
        })
    }

    /// The transpose of node `n` (an unprimed node, or a terminal) as a dangling edge.
    fn transpose_rec(&mut self, n: NodeId) -> Result<Ev<V>, Overflow> {
        if n.is_terminal() {
            return Ok(Ev {
                val: V::NEUTRAL,
                node: n,
            });
        }
        if let Some((val, node)) = self.caches.transpose.get(n) {
            return Ok(Ev { val, node });
        }
        let k = self.level(n);
        // (new row index, new column index, value, child transposed)
        let mut entries: Vec<(u32, u32, V, NodeId)> = Vec::new();
        for e in self.edges(n).to_vec() {
            for c in self.edges(e.child).to_vec() {
                let below = self.transpose_rec(c.child)?;
                if below.is_default() {
                    continue;
                }
                let v = V::combine(V::combine(e.val, c.val)?, below.val)?;
                entries.push((c.idx, e.idx, v, below.node));
            }
        }
        entries.sort_unstable_by_key(|t| (t.0, t.1));
        let mut rows: Vec<Edge<V>> = Vec::new();
        let mut i = 0;
        while i < entries.len() {
            let row = entries[i].0;
            let mut cols = Vec::new();
            while i < entries.len() && entries[i].0 == row {
                cols.push(Edge::valued(entries[i].1, entries[i].3, entries[i].2));
                i += 1;
            }
            let p = self.normalize(k - 1, &mut cols)?;
            if !p.is_default() {
                rows.push(Edge::valued(row, p.node, p.val));
            }
        }
        let r = self.normalize(k, &mut rows)?;
        self.caches.transpose.insert(n, (r.val, r.node));
        Ok(r)
    }

    /// The number of non-default entries of `f` (its paths to the terminal), saturating at
    /// `u128::MAX`.
    pub fn count_paths(&self, f: Ev<V>) -> u128 {
        if f.is_default() {
            return 0;
        }
        if f.node.is_terminal() {
            return 1;
        }
        self.paths_below(f.node)[&f.node]
    }

    /// The number of paths to the terminal below each node reachable from `root` (saturating).
    pub fn paths_below(&self, root: NodeId) -> FxHashMap<NodeId, u128> {
        fn rec<V: EvValue>(
            ev: &EvForest<V>,
            n: NodeId,
            memo: &mut FxHashMap<NodeId, u128>,
        ) -> u128 {
            if n.is_terminal() {
                return u128::from(n == NodeId::ONE);
            }
            if let Some(&c) = memo.get(&n) {
                return c;
            }
            let c = ev
                .edges(n)
                .iter()
                .fold(0u128, |acc, e| acc.saturating_add(rec(ev, e.child, memo)));
            memo.insert(n, c);
            c
        }
        let mut memo = FxHashMap::default();
        rec(self, root, &mut memo);
        memo
    }

    /// The distinct non-terminal nodes reachable from `roots` and their stored edges:
    /// `(nodes, edges)`, the figures behind the memory a diagram takes.
    pub fn count_nodes_edges(&self, roots: &[Ev<V>]) -> (usize, usize) {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack: Vec<NodeId> = roots.iter().map(|r| r.node).collect();
        let mut edges = 0;
        while let Some(n) = stack.pop() {
            if n.is_terminal() || !seen.insert(n) {
                continue;
            }
            let es = self.edges(n);
            edges += es.len();
            stack.extend(es.iter().map(|e| e.child));
        }
        (seen.len(), edges)
    }
}

/// The `(index, value, child)` steps a projection of a matrix takes from an unprimed node.
type Steps<V> = Vec<(u32, V, NodeId)>;

impl<V: EvValue> EvForest<V> {
    /// The diagonal of the matrix `f` as a function of states in `out` (an `L`-level forest
    /// over the same variables): `d(i) = f[i||i]` (thesis section 5.2, `TCD^cycle` from
    /// `TCD`). Memoised on the unprimed node (a compute cache for the call: the result lives
    /// in another forest).
    pub fn diagonal(&self, f: Ev<V>, out: &mut EvForest<V>) -> Result<Ev<V>, Overflow> {
        self.project(f, out, &|m, n| {
            let mut steps = Vec::new();
            for e in m.edges(n).iter() {
                let c = m.child(e.child, e.idx);
                if !c.is_default() {
                    steps.push((e.idx, V::combine(e.val, c.val)?, c.node));
                }
            }
            Ok(steps)
        })
    }

    /// Row `row` of the matrix `f` as a function of the column in `out` (an `L`-level forest
    /// over the same variables): `g(j) = f[row||j]` (thesis section 5.2, `TCD^stem` from
    /// `TCD` with the initial state as the row). Memoised on the node for the call.
    pub fn row(&self, f: Ev<V>, row: &[u32], out: &mut EvForest<V>) -> Result<Ev<V>, Overflow> {
        self.project(f, out, &|m, n| {
            let p = m.child(n, row[m.level(n) / 2 - 1]);
            let mut steps = Vec::new();
            if !p.is_default() {
                for e in m.edges(p.node).iter() {
                    steps.push((e.idx, V::combine(p.val, e.val)?, e.child));
                }
            }
            Ok(steps)
        })
    }

    /// The `L`-level function in `out` that keeps, at each pair of levels of the matrix `f`,
    /// the entries `steps` picks (one index per variable).
    fn project(
        &self,
        f: Ev<V>,
        out: &mut EvForest<V>,
        steps: &dyn Fn(&Self, NodeId) -> Result<Steps<V>, Overflow>,
    ) -> Result<Ev<V>, Overflow> {
        assert!(
            self.is_interleaved()
                && !out.is_interleaved()
                && 2 * out.num_levels() == self.num_levels(),
            "a matrix forest projected into a vector forest over its variables"
        );
        if f.is_default() {
            return Ok(f);
        }
        let mut memo = FxHashMap::default();
        let r = self.project_rec(f.node, out, &mut memo, steps)?;
        if r.is_default() {
            return Ok(r);
        }
        Ok(Ev {
            val: V::combine(f.val, r.val)?,
            node: r.node,
        })
    }

    fn project_rec(
        &self,
        n: NodeId,
        out: &mut EvForest<V>,
        memo: &mut FxHashMap<NodeId, Ev<V>>,
        steps: &dyn Fn(&Self, NodeId) -> Result<Steps<V>, Overflow>,
    ) -> Result<Ev<V>, Overflow> {
        if n.is_terminal() {
            return Ok(Ev {
                val: V::NEUTRAL,
                node: n,
            });
        }
        if let Some(&r) = memo.get(&n) {
            return Ok(r);
        }
        let mut es = Vec::new();
        for (i, v, c) in steps(self, n)? {
            let below = self.project_rec(c, out, memo, steps)?;
            if !below.is_default() {
                es.push(Edge::valued(i, below.node, V::combine(v, below.val)?));
            }
        }
        let r = out.normalize(self.level(n) / 2, &mut es)?;
        memo.insert(n, r);
        Ok(r)
    }
}
