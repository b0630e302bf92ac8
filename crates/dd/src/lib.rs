//! Saturn's decision-diagram core.
//!
//! Multi-way decision diagrams (MDDs) stored in a [`Forest`]: nodes are addressed by
//! [`NodeId`] handles (never pointers), stored sparsely (only non-empty edges, sorted by index),
//! deduplicated by a unique table per level, and combined by operations that each have their
//! own compute cache ([`Cache`]). Garbage is collected only between top-level operations, from
//! the roots registered with the forest.
//!
//! Levels are numbered `1..=K` from the bottom; level 0 holds the two terminals
//! [`NodeId::EMPTY`] (the empty set / false) and [`NodeId::ONE`] (the set holding the empty
//! tuple / true). This crate knows nothing of Petri nets, PRISM or logic.

mod cache;
mod count;
mod dot;
mod enumerate;
mod forest;
mod ops;
mod relation;
mod relprod;

pub use cache::Cache;
pub use forest::{Edge, Epoch, Forest, ForestStats, Reduction, RootId};
pub use relation::{is_unprimed, primed_level, unprimed_level, var_of_level};
pub use relprod::{image, image as rel_prod, preimage};

/// A handle to a node of a [`Forest`]. `Copy`, 4 bytes; 0 and 1 are the terminals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The empty set (terminal 0, false).
    pub const EMPTY: NodeId = NodeId(0);
    /// Terminal 1: the set holding the empty tuple (true).
    pub const ONE: NodeId = NodeId(1);

    #[inline]
    pub fn is_terminal(self) -> bool {
        self.0 < 2
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The raw index (for dense side tables indexed by node).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
