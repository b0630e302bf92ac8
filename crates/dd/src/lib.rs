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
//!
//! Sets of states live in quasi- or fully-reduced forests of `K` levels. Next-state relations
//! live in identity-reduced (QIF) forests of `2K` levels, unprimed level `2k` and primed level
//! `2k-1` for variable `k`, a skipped pair meaning "unchanged" ([`Reduction::Identity`]); build
//! them with [`Forest::relation_from_local`] (a product of per-variable local relations) or
//! [`Forest::relation_from_tuples`], combine them with the set operations, and apply them with
//! [`image`] / [`preimage`] (the relational product of thesis Figure 2.8, also exported as
//! [`rel_prod`]). The rest of the relation algebra (composition, transpose, restriction of a side
//! by a set, the diagonal, the domain and range, the identity over a set, the cross product)
//! is [`RelAlg`], which holds one compute cache per operation. Results are read back with [`Forest::cardinality`], [`Forest::pick`],
//! [`Forest::for_each_state`] and [`Forest::to_dot`].
//!
//! Edge-valued diagrams (EV+MDDs over `i64` with `+∞`, EV*MDDs over `f64`, and their
//! interleaved 2L-level matrix forms) live in [`ev::EvForest`], over the same node store
//! (`Forest<V>` with edges carrying `V`).
//!
//! Caches and collection: engines work on a [`Dd`] context that owns the set and relation
//! forests, the [`Pin`]s that keep their handles alive, and the compute caches they register
//! ([`Purge`]). [`Dd::collect`] collects both forests and purges every cache by one rule: an
//! entry survives iff every node it mentions is live in its forest. A bare [`Forest`] still
//! collects by itself ([`Forest::gc`], purging its own caches; the relational-product caches
//! also check the relation forest's [`Epoch`] at every top-level call).

mod cache;
pub use huge::huge_pages;
mod context;
mod count;
mod dot;
mod edges;
mod enumerate;
pub mod ev;
mod forest;
mod huge;
mod ops;
mod pin;
mod relalg;
mod relation;
mod relprod;

pub use cache::{Cache, CacheKey};
pub use context::{gc_floor_for, CacheSlot, Dd, Live, Nodes, Purge, DEFAULT_GC_FLOOR};
pub use edges::{Edges, Iter as EdgesIter};
pub use forest::{
    set_default_max_nodes, Edge, EdgeValue, Epoch, Forest, ForestStats, Poll, Reduction, RootId,
    MAX_NODES, POLL_EVERY,
};
pub use pin::{ForestKind, Pin};
pub use relalg::{RelAlg, Side};
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
