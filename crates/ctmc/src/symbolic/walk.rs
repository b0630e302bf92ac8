//! The traversal of the rate matrix EV*MxD together with two copies of the index EV+MDD
//! (thesis Figure 6.2, *JacobiRecur*, and the constrained traversals of Figure 6.3,
//! *GSForward* / *GSBackward*): every entry `R[i, j]` is visited as `(i, j, rate)` with the
//! state indices accumulated from the index function's edge offsets and the rate from the
//! product of the EV* edge values, in the lexicographic order of the interleaved pairs `i||j`
//! (Lemma 17), or in the reverse of that order.

use std::cmp::Ordering;

use saturn_dd::ev::{EvPlusForest, EvStarForest};
use saturn_dd::{Edge, EdgeValue, Edges, NodeId};

/// Which entries a traversal visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Every entry (Figure 6.2).
    All,
    /// Entries from a higher index to a lower one, `i ≻ j` (*GSForward*'s constraint).
    Down,
    /// Entries from a lower index to a higher one, `i ≺ j` (*GSBackward*'s constraint).
    Up,
}

impl Part {
    /// May a pair whose row and column compare as `c` so far lead to a visited entry?
    #[inline]
    pub(crate) fn admits(self, c: Ordering) -> bool {
        match self {
            Part::All => true,
            Part::Down => c != Ordering::Less,
            Part::Up => c != Ordering::Greater,
        }
    }
}

/// A source of the matrix entries in traversal order: the plain recursion ([`Walker`]) or the
/// split-point cache ([`super::cache::SplitCache`]).
pub trait Entries {
    /// Visit the entries of `part`, as `(row, column, rate)`, in the lexicographic order of
    /// `row||column` (reversed when `reverse`); the cache visits [`Part::All`] as the `Down`
    /// entries, then the `Up` ones.
    fn for_each<F: FnMut(usize, usize, f64)>(&self, part: Part, reverse: bool, visit: &mut F);
}

/// The plain recursion over the matrix and the index function.
pub struct Walker<'a> {
    pub(crate) m: &'a EvStarForest,
    pub(crate) idx: &'a EvPlusForest,
    pub(crate) rate: f64,
    pub(crate) root: NodeId,
    pub(crate) index_root: NodeId,
}

/// The `t`-th element of `xs` counting from the front, or from the back when `rev`.
#[inline]
pub(crate) fn nth<V: EdgeValue>(xs: Edges<'_, V>, t: usize, rev: bool) -> Edge<V> {
    if rev {
        xs.at(xs.len() - 1 - t)
    } else {
        xs.at(t)
    }
}

/// One step of a snapshot `(m, src, des)` (thesis notation) down a pair of levels.
#[derive(Clone, Copy)]
pub(crate) struct Snap {
    pub(crate) rate: f64,
    pub(crate) m: NodeId,
    pub(crate) src: NodeId,
    pub(crate) s: u64,
    pub(crate) des: NodeId,
    pub(crate) d: u64,
    /// How the row compares to the column on the levels above.
    pub(crate) cmp: Ordering,
}

impl Walker<'_> {
    /// The snapshot at the roots.
    pub(crate) fn start(&self) -> Snap {
        Snap {
            rate: self.rate,
            m: self.root,
            src: self.index_root,
            s: 0,
            des: self.index_root,
            d: 0,
            cmp: Ordering::Equal,
        }
    }

    /// Call `next` on each child snapshot of `sn` (an unprimed node) that `part` admits, in
    /// order (reversed when `rev`): lines 6-10 of Figure 6.2 (6-11 of Figure 6.3).
    #[inline]
    pub(crate) fn children<F: FnMut(Snap)>(&self, sn: &Snap, part: Part, rev: bool, next: &mut F) {
        let rows = self.m.edges(sn.m);
        for t in 0..rows.len() {
            let e = nth(rows, t, rev);
            let se = self.idx.child(sn.src, e.idx);
            if se.is_default() {
                continue;
            }
            let cols = self.m.edges(e.child);
            for u in 0..cols.len() {
                let c = nth(cols, u, rev);
                let cmp = sn.cmp.then(e.idx.cmp(&c.idx));
                if !part.admits(cmp) {
                    continue;
                }
                let de = self.idx.child(sn.des, c.idx);
                if de.is_default() {
                    continue;
                }
                next(Snap {
                    rate: sn.rate * e.val * c.val,
                    m: c.child,
                    src: se.node,
                    s: sn.s + se.val as u64,
                    des: de.node,
                    d: sn.d + de.val as u64,
                    cmp,
                });
            }
        }
    }

    /// Thesis Figure 6.2, *JacobiRecur* (with `part` = [`Part::All`]), and the traversals of
    /// Figure 6.3, *GSForward* ([`Part::Down`]) and *GSBackward* ([`Part::Up`]): visit every
    /// admitted entry below snapshot `sn`.
    pub(crate) fn jacobi_recur<F: FnMut(usize, usize, f64)>(
        &self,
        sn: Snap,
        part: Part,
        rev: bool,
        visit: &mut F,
    ) {
        if sn.m.is_terminal() {
            // lines 2-4; the diagonal is not stored, `Equal` only guards the invariant
            if sn.cmp != Ordering::Equal {
                visit(sn.s as usize, sn.d as usize, sn.rate);
            }
            return;
        }
        self.children(&sn, part, rev, &mut |c| {
            self.jacobi_recur(c, part, rev, visit)
        });
    }
}

impl Entries for Walker<'_> {
    fn for_each<F: FnMut(usize, usize, f64)>(&self, part: Part, reverse: bool, visit: &mut F) {
        if self.root.is_empty() {
            return;
        }
        self.jacobi_recur(self.start(), part, reverse, visit);
    }
}
