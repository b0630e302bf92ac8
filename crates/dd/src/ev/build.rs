//! Building edge-valued diagrams from explicit entries.

use super::{Ev, EvForest, EvValue, Overflow};
use crate::forest::Edge;
use crate::NodeId;

impl<V: EvValue> EvForest<V> {
    /// The function that is `v` at each listed state (a tuple with entry `k-1` for level `k`)
    /// and the default elsewhere; a later entry for the same state replaces an earlier one.
    /// Built bottom-up through [`EvForest::normalize`] (meant for small functions: tests,
    /// explicit tables). Indices past a level's domain grow it.
    pub fn from_entries(&mut self, entries: &[(Vec<u32>, V)]) -> Result<Ev<V>, Overflow> {
        let top = self.num_levels();
        let mut rows: Vec<(&[u32], V)> = Vec::with_capacity(entries.len());
        // keep the last entry per state
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&entries[a].0, &entries[b].0);
            assert!(
                x.len() == top && y.len() == top,
                "a tuple covers every level"
            );
            x.iter().rev().cmp(y.iter().rev()).then(b.cmp(&a))
        });
        for i in order {
            let (t, v) = (&entries[i].0, entries[i].1);
            if rows.last().is_some_and(|r| r.0 == t.as_slice()) {
                continue;
            }
            rows.push((t, v));
        }
        rows.retain(|r| r.1 != V::DEFAULT);
        self.build(top, &rows)
    }

    /// The matrix that is `v` at each listed `(row, col)` and the default elsewhere, in an
    /// interleaved forest.
    pub fn matrix_from_entries(
        &mut self,
        entries: &[(Vec<u32>, Vec<u32>, V)],
    ) -> Result<Ev<V>, Overflow> {
        assert!(
            self.is_interleaved(),
            "a matrix needs an interleaved forest"
        );
        let tuples: Vec<(Vec<u32>, V)> = entries
            .iter()
            .map(|(r, c, v)| (Self::matrix_tuple(r, c), *v))
            .collect();
        self.from_entries(&tuples)
    }

    /// The function of `rows` (sorted, top level most significant, distinct) below `level`.
    fn build(&mut self, level: usize, rows: &[(&[u32], V)]) -> Result<Ev<V>, Overflow> {
        if rows.is_empty() {
            return Ok(Ev::default_fn());
        }
        if level == 0 {
            return Ok(Ev {
                val: rows[0].1,
                node: NodeId::ONE,
            });
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < rows.len() {
            let idx = rows[i].0[level - 1];
            let mut j = i;
            while j < rows.len() && rows[j].0[level - 1] == idx {
                j += 1;
            }
            let c = self.build(level - 1, &rows[i..j])?;
            out.push(Edge::valued(idx, c.node, c.val));
            i = j;
        }
        self.normalize(level, &mut out)
    }
}
