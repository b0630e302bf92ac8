//! How a node's edges are stored, and the read-only view of them that [`crate::Forest::edges`]
//! returns.
//!
//! A node whose indices are exactly `0..n` (a *full* node: nearly every edge of the thesis
//! families' diagrams is in one) stores only its children, 4 bytes an edge; any other node
//! stores its indices, then its children (8 bytes an edge, as every node did before). Both sit
//! in one pool of `u32` words; the values of an edge-valued forest sit in a pool beside it, at
//! the children's positions (for `()` that pool takes no memory). In an MDD forest a node of
//! one edge (most nodes of the slotted ring and the philosophers) keeps it in its record and
//! takes no words at all.

use crate::forest::{Edge, EdgeValue};
use crate::NodeId;

/// The non-empty edges of one node, sorted by index: a view into the forest's pools, read
/// by value ([`Edges::get`], [`Edges::iter`]).
#[derive(Clone, Copy, Debug)]
pub struct Edges<'a, V = ()> {
    /// The indices, or `None` when they are `0..len` (a full node).
    idx: Option<&'a [u32]>,
    child: &'a [u32],
    val: &'a [V],
}

impl<'a, V: EdgeValue> Edges<'a, V> {
    #[inline(always)]
    pub(crate) fn new(idx: Option<&'a [u32]>, child: &'a [u32], val: &'a [V]) -> Self {
        Edges { idx, child, val }
    }

    /// How many edges.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.child.len()
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.child.is_empty()
    }

    /// The index of the `k`-th edge.
    #[inline(always)]
    pub fn idx(&self, k: usize) -> u32 {
        match self.idx {
            None if k < self.child.len() => k as u32,
            None => panic!("edge {k} of {}", self.child.len()),
            Some(ix) => ix[k],
        }
    }

    /// The child of the `k`-th edge.
    #[inline(always)]
    pub fn child(&self, k: usize) -> NodeId {
        NodeId(self.child[k])
    }

    /// The value of the `k`-th edge.
    #[inline(always)]
    pub fn val(&self, k: usize) -> V {
        self.val[k]
    }

    /// The `k`-th edge, if there are more than `k`.
    #[inline(always)]
    pub fn get(&self, k: usize) -> Option<Edge<V>> {
        (k < self.len()).then(|| self.at(k))
    }

    /// The `k`-th edge (panics past the end).
    #[inline(always)]
    pub fn at(&self, k: usize) -> Edge<V> {
        let child = NodeId(self.child[k]);
        Edge {
            idx: match self.idx {
                None => k as u32,
                Some(ix) => ix[k],
            },
            child,
            val: if V::VALUED { self.val[k] } else { self.val[0] },
        }
    }

    #[inline(always)]
    pub fn first(&self) -> Option<Edge<V>> {
        self.get(0)
    }

    #[inline(always)]
    pub fn last(&self) -> Option<Edge<V>> {
        self.len().checked_sub(1).map(|k| self.at(k))
    }

    /// Where index `i` is among the edges (`Ok(k)`), or where it would go (`Err(k)`), as
    /// `binary_search` on the indices.
    #[inline(always)]
    pub fn search(&self, i: u32) -> Result<usize, usize> {
        match self.idx {
            None => {
                let n = self.child.len();
                if (i as usize) < n {
                    Ok(i as usize)
                } else {
                    Err(n)
                }
            }
            Some(ix) if ix.len() <= 8 => match ix.iter().position(|&x| x >= i) {
                Some(k) if ix[k] == i => Ok(k),
                Some(k) => Err(k),
                None => Err(ix.len()),
            },
            Some(ix) => ix.binary_search(&i),
        }
    }

    /// The number of leading edges for which `pred` holds (it must hold on a prefix), as
    /// `partition_point` on a slice.
    pub fn partition_point(&self, mut pred: impl FnMut(Edge<V>) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.at(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The edge at index `i`, if any.
    #[inline(always)]
    pub fn find(&self, i: u32) -> Option<Edge<V>> {
        self.search(i).ok().map(|k| self.at(k))
    }

    /// The edges in order, by value.
    #[inline(always)]
    pub fn iter(&self) -> Iter<'a, V> {
        Iter {
            idx: self.idx,
            child: self.child.iter(),
            val: self.val,
            k: 0,
        }
    }

    /// The children in edge order.
    #[inline(always)]
    pub fn children(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator + 'a {
        self.child.iter().map(|&c| NodeId(c))
    }

    /// The edges, copied out.
    pub fn to_vec(&self) -> Vec<Edge<V>> {
        self.iter().collect()
    }

    /// Are these exactly the edges `es`?
    #[inline(always)]
    pub fn same_as(&self, es: &[Edge<V>]) -> bool {
        es.len() == self.len()
            && match self.idx {
                None => es
                    .iter()
                    .zip(self.child.iter().zip(self.val))
                    .enumerate()
                    .all(|(k, (e, (&c, &v)))| e.idx == k as u32 && e.child.0 == c && e.val == v),
                Some(ix) => es
                    .iter()
                    .zip(ix.iter().zip(self.child.iter().zip(self.val)))
                    .all(|(e, (&i, (&c, &v)))| e.idx == i && e.child.0 == c && e.val == v),
            }
    }
}

/// The edges of a node in order (see [`Edges::iter`]).
#[derive(Clone, Debug)]
pub struct Iter<'a, V> {
    idx: Option<&'a [u32]>,
    /// The children not yet read; `k` is the position of the first of them.
    child: std::slice::Iter<'a, u32>,
    val: &'a [V],
    k: usize,
}

impl<V: EdgeValue> Iter<'_, V> {
    /// The edge at position `k` with child `c`. (Values of `()` are all the same: read the
    /// first, a test LLVM moves out of loops.)
    #[inline(always)]
    fn edge(&self, k: usize, c: u32) -> Edge<V> {
        Edge {
            idx: match self.idx {
                None => k as u32,
                Some(ix) => ix[k],
            },
            child: NodeId(c),
            val: if V::VALUED { self.val[k] } else { self.val[0] },
        }
    }
}

impl<V: EdgeValue> Iterator for Iter<'_, V> {
    type Item = Edge<V>;
    #[inline(always)]
    fn next(&mut self) -> Option<Edge<V>> {
        let c = *self.child.next()?;
        let k = self.k;
        self.k += 1;
        Some(self.edge(k, c))
    }
    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.child.size_hint()
    }
}

impl<V: EdgeValue> DoubleEndedIterator for Iter<'_, V> {
    #[inline(always)]
    fn next_back(&mut self) -> Option<Edge<V>> {
        let c = *self.child.next_back()?;
        Some(self.edge(self.k + self.child.len(), c))
    }
}

impl<V: EdgeValue> ExactSizeIterator for Iter<'_, V> {}

impl<'a, V: EdgeValue> IntoIterator for Edges<'a, V> {
    type Item = Edge<V>;
    type IntoIter = Iter<'a, V>;
    #[inline(always)]
    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

/// Is `es` (sorted, distinct indices) a full node, indices `0..n`?
#[inline]
pub(crate) fn is_full<V>(es: &[Edge<V>]) -> bool {
    es.last().is_some_and(|l| l.idx as usize + 1 == es.len())
}
