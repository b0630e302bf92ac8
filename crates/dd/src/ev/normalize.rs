//! Normalisation of a new node (thesis Figure 2.4).

use super::{Ev, EvForest, EvValue, Overflow};
use crate::forest::Edge;
use crate::NodeId;

impl<V: EvValue> EvForest<V> {
    /// Thesis Figure 2.4, *Normalize*: the node at `level` with the given edges (sorted by
    /// index; an edge may carry the default value or lead to EMPTY, it is then dropped), with
    /// its normalisation factor pulled out onto the dangling edge: EV+ subtracts the minimum
    /// edge value from every edge, EV* divides by the maximum. Then the unique table
    /// (`InsertUT`) gives the canonical node. A node with only default edges is the default
    /// function `⟨default, EMPTY⟩`.
    pub fn normalize(&mut self, level: usize, edges: &mut Vec<Edge<V>>) -> Result<Ev<V>, Overflow> {
        edges.retain(|e| !e.child.is_empty() && e.val != V::DEFAULT);
        let factor = edges.iter().fold(V::DEFAULT, |m, e| V::pick(m, e.val));
        if factor == V::DEFAULT {
            return Ok(Ev::default_fn());
        }
        for e in edges.iter_mut() {
            e.val = V::pull(e.val, factor)?;
        }
        // a pulled value can underflow to the default (EV*: a tiny ratio becomes 0)
        edges.retain(|e| e.val != V::DEFAULT);
        let node = self.f.make_node(level, edges);
        debug_assert!(node != NodeId::EMPTY);
        Ok(Ev { val: factor, node })
    }
}
