//! The node store: full, sparse and single-edge nodes (see [`crate::edges`]), one unique table
//! for every level, registered roots and mark-and-sweep garbage collection between top-level
//! operations.

use std::sync::atomic::{AtomicU64, Ordering};

use hashbrown::HashTable;

use crate::cache::Cache;
use crate::edges::{is_full, Edges};
use crate::relation::is_unprimed;
use crate::NodeId;

/// Source of [`Forest`] identities (see [`Epoch`]).
static NEXT_FOREST_UID: AtomicU64 = AtomicU64::new(1);

/// A forest's identity plus its garbage-collection count.
///
/// A compute cache whose keys or values hold [`NodeId`]s of a forest is valid only while that
/// forest's epoch is unchanged: a collection frees nodes and recycles their ids. Caches that mix
/// two forests (e.g. a relational product: set nodes and relation nodes) remember both epochs and
/// clear themselves when either changes (see [`crate::image`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Epoch {
    forest: u64,
    collections: u64,
}

/// The value carried by every edge of a [`Forest`]: `()` for MDDs (an edge stays 8 bytes),
/// `i64` for EV+MDDs and `f64` for EV*MDDs (see [`crate::ev`]).
///
/// The forest stores and hashes values but gives them no meaning: the edge-valued operations
/// keep every node normalised, so equal functions have bitwise-equal edges and one node.
pub trait EdgeValue: Copy + PartialEq + std::fmt::Debug + 'static {
    /// Does the value take part in hashing (false for `()`, so MDD hashing is unchanged)?
    const VALUED: bool;
    /// The value's bits, for hashing.
    fn bits(self) -> u64;
}

impl EdgeValue for () {
    const VALUED: bool = false;
    #[inline]
    fn bits(self) -> u64 {
        0
    }
}

/// One non-empty edge of a node: local index `idx` leads to `child`, carrying value `val`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge<V = ()> {
    pub idx: u32,
    pub child: NodeId,
    pub val: V,
}

impl Edge {
    #[inline]
    pub fn new(idx: u32, child: NodeId) -> Edge {
        Edge {
            idx,
            child,
            val: (),
        }
    }
}

impl<V> Edge<V> {
    /// An edge carrying a value.
    #[inline]
    pub fn valued(idx: u32, child: NodeId, val: V) -> Edge<V> {
        Edge { idx, child, val }
    }
}

/// The reduction rule of a forest, fixed at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Every path visits every level; only the empty set is shared across levels.
    Quasi,
    /// A node whose edges all lead to the same child over the whole domain of its level is
    /// redundant and skipped (levels need declared domain sizes, see [`Forest::set_domain`]).
    Fully,
    /// Identity-reduced 2L-level relations (QIF): level `2k` is unprimed variable `k`, level
    /// `2k-1` is primed `k'`; an identity pair of levels is skipped. Skipped unprimed/primed pairs
    /// mean "unchanged".
    ///
    /// Shape invariants: a root is EMPTY, ONE (the identity relation) or an unprimed node; every
    /// child of an unprimed node at level `2k` is a primed node at level `2k-1`; a child of a
    /// primed node is an unprimed node at any lower level or ONE (the pairs in between are
    /// skipped, i.e. identity). Both levels of a pair share one domain (the variable's).
    ///
    /// Growable domains: a skipped pair relates `i` to `i` for *every* value `i`, including
    /// values added to the domain later; an explicit pair relates only the listed `(i, i')`.
    /// An explicit pair that is the identity over the whole *current* domain is reduced to a
    /// skip, so it will relate later values too, and the identity expansion done by relation
    /// union (one operand skips a pair the other has) covers only the current domain. Hence:
    /// after the domain of variable `k` grows, rebuild every relation whose support (in the
    /// model) includes `k` before applying it again; relations that do not involve `k` stay
    /// valid.
    Identity,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeRec {
    /// The level (the low 30 bits) and how the edges are stored (the top two: [`FULL`],
    /// [`SPARSE`] or [`SINGLE`]).
    pub(crate) level: u32,
    /// Where the node's words start in the pool; a single edge's index.
    pub(crate) off: u32,
    /// The number of edges; a single edge's child.
    pub(crate) len: u32,
    pub(crate) hash: u32,
}

/// The bits of [`NodeRec::level`] that tell how a node's edges are stored.
const KIND: u32 = 3 << 30;
/// Indices `0..len`: only the `len` children are stored in the pool.
const FULL: u32 = 0;
/// `len` words of indices, then `len` of children, in the pool.
const SPARSE: u32 = 1 << 30;
/// One edge, held in the record itself (index in `off`, child in `len`); forests whose edges
/// carry values store it as a full or sparse node.
const SINGLE: u32 = 2 << 30;
/// The bits of [`NodeRec::level`] that hold the level.
const LEVEL: u32 = !KIND;

/// The words a node of `kind` with `n` edges takes in the pool.
#[inline]
fn words(kind: u32, n: usize) -> usize {
    match kind {
        FULL => n,
        SPARSE => 2 * n,
        _ => 0,
    }
}

impl NodeRec {
    /// The words the node takes in the pool.
    #[inline]
    fn words(&self) -> usize {
        words(self.level & KIND, self.len as usize)
    }
    /// The node's edges in the pools `data` and `vals`.
    #[inline(always)]
    fn view<'a, V: EdgeValue>(&'a self, data: &'a [u32], vals: &'a [V]) -> Edges<'a, V> {
        let (off, n) = (self.off as usize, self.len as usize);
        match self.level & KIND {
            FULL => Edges::new(None, &data[off..off + n], &vals[off..off + n]),
            SPARSE => Edges::new(
                Some(&data[off..off + n]),
                &data[off + n..off + 2 * n],
                &vals[off + n..off + 2 * n],
            ),
            _ => Edges::new(
                Some(std::slice::from_ref(&self.off)),
                std::slice::from_ref(&self.len),
                &vals[..1],
            ),
        }
    }
}

const FREE_LEVEL: u32 = u32::MAX;

/// A handle for a registered root (see [`Forest::add_root`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RootId(u32);

/// Size figures of a forest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ForestStats {
    /// Nodes allocated now (live or not yet collected).
    pub nodes_now: usize,
    /// The most nodes ever allocated at once.
    pub nodes_peak: usize,
    /// Nodes made since the forest was created (not counting the ones found in the unique
    /// table): the work done, whatever was collected since.
    pub nodes_made: u64,
    /// Garbage collections run so far.
    pub collections: usize,
    /// Approximate bytes held by nodes, edges, unique tables and caches.
    pub bytes: usize,
}

/// The per-forest compute caches of the generic set operations.
pub(crate) struct OpCaches {
    pub(crate) union: Cache<(NodeId, NodeId), NodeId>,
    pub(crate) intersect: Cache<(NodeId, NodeId), NodeId>,
    pub(crate) minus: Cache<(NodeId, NodeId), NodeId>,
    /// Relational products applied to this (set) forest, keyed by (set node, relation node).
    pub(crate) image: Cache<(NodeId, NodeId), NodeId>,
    pub(crate) preimage: Cache<(NodeId, NodeId), NodeId>,
    /// The epoch of the relation forest the `image`/`preimage` entries refer to.
    pub(crate) rel_epoch: Option<Epoch>,
}

impl OpCaches {
    fn new(log2: u32) -> Self {
        OpCaches {
            union: Cache::new(log2),
            intersect: Cache::new(log2),
            minus: Cache::new(log2),
            image: Cache::new(log2),
            preimage: Cache::new(log2),
            rel_epoch: None,
        }
    }
    pub(crate) fn clear_rel(&mut self) {
        self.image.clear();
        self.preimage.clear();
        self.rel_epoch = None;
    }
    fn grow_ahead(&mut self, n: usize) {
        self.union.grow_ahead(n);
        self.intersect.grow_ahead(n);
        self.minus.grow_ahead(n);
        self.image.grow_ahead(n);
        self.preimage.grow_ahead(n);
    }
    fn set_ceiling(&mut self, n: usize) {
        self.union.set_ceiling(n);
        self.intersect.set_ceiling(n);
        self.minus.set_ceiling(n);
        self.image.set_ceiling(n);
        self.preimage.set_ceiling(n);
    }
    fn bytes(&self) -> usize {
        self.union.bytes()
            + self.intersect.bytes()
            + self.minus.bytes()
            + self.image.bytes()
            + self.preimage.bytes()
    }
}

/// A forest of decision-diagram nodes over levels `1..=K` sharing one reduction rule, whose
/// edges carry values of type `V` (`()`: an MDD forest).
pub struct Forest<V: EdgeValue = ()> {
    uid: u64,
    reduction: Reduction,
    num_levels: u32,
    /// `domain[k]`: the size of level k's local domain (max index seen + 1, or declared).
    domain: Vec<u32>,
    pub(crate) nodes: Vec<NodeRec>,
    /// The nodes' words (see [`crate::edges`]): children, and the indices of sparse nodes.
    data: Vec<u32>,
    /// The edges' values, at the positions of their children in `data`. For `()` (no memory)
    /// it may hold one more: the value the views of single nodes read.
    vals: Vec<V>,
    free: Vec<u32>,
    /// Words in `data` held by freed nodes.
    dead_edges: usize,
    /// Every node by (level, edges): one table for all levels (a table per level cost about
    /// 110 bytes per level even when it held a handful of nodes: 6.5 MB on philosophers
    /// N=10000's 60,000 levels). The level is part of the hash and of the comparison.
    unique: HashTable<u32>,
    roots: Vec<Option<NodeId>>,
    free_roots: Vec<u32>,
    pub(crate) caches: OpCaches,
    /// Scratch edge buffers, one per recursion depth, reused to avoid allocation.
    pub(crate) scratch: Vec<Vec<Edge<V>>>,
    dense_buf: Vec<Edge<V>>,
    nodes_peak: usize,
    nodes_made: u64,
    collections: usize,
    /// Live-node count at which [`Forest::maybe_gc`] collects next.
    gc_threshold: usize,
    /// Node ids stay below this, edge offsets at or below `max_edges` (see
    /// [`Forest::set_capacity`]).
    max_nodes: u32,
    max_edges: u32,
    /// A node could not be made (see [`Forest::overflowed`]).
    overflowed: bool,
    /// Set-operation steps (compute-cache misses) so far, and the step at which `poll` is
    /// called next (see [`Forest::set_poll`]).
    op_steps: u64,
    next_poll: u64,
    /// Steps between two calls of `poll` ([`POLL_EVERY`] unless set).
    poll_every: u64,
    poll: Option<Poll>,
    /// `poll` asked the set operations to stop (see [`Forest::stopped`]).
    stopped: bool,
}

/// A caller's check, run every [`POLL_EVERY`] set-operation steps with the steps done so far
/// ([`Forest::op_steps`]): true stops the set operations (see [`Forest::set_poll`]).
pub type Poll = Box<dyn FnMut(u64) -> bool + Send>;

/// Set-operation steps between two calls of a forest's [`Poll`].
pub const POLL_EVERY: u64 = 1 << 14;

/// The most node slots a forest may hold: ids are `u32`, and `u32::MAX` is the compute
/// caches' empty-slot key.
pub const MAX_NODES: u32 = u32::MAX - 1;

/// The default node capacity of new forests (tests lower it, see [`set_default_max_nodes`]).
static DEFAULT_MAX_NODES: std::sync::atomic::AtomicU32 =
    std::sync::atomic::AtomicU32::new(MAX_NODES);

/// Give every forest created from now on at most `n` node slots (capped at [`MAX_NODES`]): a
/// hook for testing the clean stop of [`Forest::overflowed`] on small models.
pub fn set_default_max_nodes(n: u32) {
    DEFAULT_MAX_NODES.store(n.min(MAX_NODES), Ordering::Relaxed);
}

/// A node's 32-bit hash as the unique table's 64-bit one: the table picks the bucket from the
/// low bits and its 7-bit tag from the top ones, so both halves carry the hash (zero-extended,
/// every tag was 0 and each probe compared every node of a 16-slot group).
#[inline]
fn spread(hash: u32) -> u64 {
    (u64::from(hash) << 32) | u64::from(hash)
}

#[inline]
fn hash_edges<V: EdgeValue>(level: u32, edges: &[Edge<V>]) -> u32 {
    // FxHash-style mixing over (idx, child) pairs (and values, when edges carry them).
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h: u64 = (level as u64).wrapping_mul(K);
    for e in edges {
        h = (h.rotate_left(5) ^ (((e.idx as u64) << 32) | e.child.0 as u64)).wrapping_mul(K);
        if V::VALUED {
            h = (h.rotate_left(5) ^ e.val.bits()).wrapping_mul(K);
        }
    }
    ((h >> 32) ^ h) as u32
}

impl Forest {
    /// An MDD forest with `num_levels` levels and the given reduction rule.
    pub fn new(num_levels: usize, reduction: Reduction) -> Forest {
        Forest::with_values(num_levels, reduction)
    }

    /// Build a node from a dense child vector (`children[i]` for index `i`; EMPTY = absent).
    pub fn make_node_dense(&mut self, level: usize, children: &[NodeId]) -> NodeId {
        self.make_node_window(level, 0, children)
    }

    /// Build a node from a window of a dense child vector: `children[i]` for index `lo + i`
    /// (EMPTY = absent).
    pub fn make_node_window(&mut self, level: usize, lo: u32, children: &[NodeId]) -> NodeId {
        let mut v = std::mem::take(&mut self.dense_buf);
        v.clear();
        v.extend(
            children
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.is_empty())
                .map(|(i, &c)| Edge::new(lo + i as u32, c)),
        );
        let r = self.make_node_nonempty(level, &v);
        self.dense_buf = v;
        r
    }
}

impl<V: EdgeValue> Forest<V> {
    /// A forest with `num_levels` levels, the given reduction rule and edges carrying `V`.
    pub fn with_values(num_levels: usize, reduction: Reduction) -> Forest<V> {
        let terminals = [
            NodeRec {
                level: 0,
                off: 0,
                len: 0,
                hash: 0,
            },
            NodeRec {
                level: 0,
                off: 0,
                len: 0,
                hash: 1,
            },
        ];
        Forest {
            uid: NEXT_FOREST_UID.fetch_add(1, Ordering::Relaxed),
            reduction,
            num_levels: num_levels as u32,
            domain: vec![0; num_levels + 1],
            nodes: terminals.to_vec(),
            data: Vec::new(),
            vals: Vec::new(),
            free: Vec::new(),
            dead_edges: 0,
            unique: HashTable::new(),
            roots: Vec::new(),
            free_roots: Vec::new(),
            caches: OpCaches::new(12),
            scratch: Vec::new(),
            dense_buf: Vec::new(),
            nodes_peak: 2,
            nodes_made: 0,
            collections: 0,
            max_nodes: DEFAULT_MAX_NODES.load(Ordering::Relaxed),
            max_edges: u32::MAX,
            overflowed: false,
            gc_threshold: 1 << 20,
            op_steps: 0,
            next_poll: POLL_EVERY,
            poll_every: POLL_EVERY,
            poll: None,
            stopped: false,
        }
    }

    pub fn reduction(&self) -> Reduction {
        self.reduction
    }
    pub fn num_levels(&self) -> usize {
        self.num_levels as usize
    }

    /// This forest's identity and collection count: caches holding its node ids are stale
    /// once this changes.
    pub fn epoch(&self) -> Epoch {
        Epoch {
            forest: self.uid,
            collections: self.collections as u64,
        }
    }

    /// The level of node `n` (0 for terminals).
    #[inline]
    pub fn level(&self, n: NodeId) -> usize {
        (self.nodes[n.0 as usize].level & LEVEL) as usize
    }

    /// The non-empty edges of `n`, sorted by index (empty for terminals).
    #[inline(always)]
    pub fn edges(&self, n: NodeId) -> Edges<'_, V> {
        self.nodes[n.0 as usize].view(&self.data, &self.vals)
    }

    /// The child of `n` at local index `i` (EMPTY when absent). For a node below `level` in a
    /// fully-reduced forest this is the node itself (it is redundant at that level). (In an
    /// identity-reduced forest a node below an unprimed level is the identity there, whose
    /// child at `i` is a primed node `i -> n` that need not exist: this returns `n`.)
    #[inline]
    pub fn child_at(&self, n: NodeId, level: usize, i: u32) -> NodeId {
        if self.level(n) < level {
            return n;
        }
        let es = self.edges(n);
        es.search(i).map_or(NodeId::EMPTY, |k| es.child(k))
    }

    /// Did the forest run out of 32-bit node ids, edge offsets or domain sizes (or make a node
    /// at level 2^30 or above)? From then on a node that cannot be made is EMPTY, so every
    /// result computed in this forest since is wrong: an engine that sees the flag stops with
    /// an error (never an answer), and the forest stays unusable.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Run `poll` every [`POLL_EVERY`] steps of the set operations (union, intersection,
    /// difference) from now on (`None`: never). Once it returns true the forest is *stopped*:
    /// every set operation returns EMPTY at once, so a long operation (a union of many
    /// relations) ends within a few thousand steps of a time limit. Every result since the stop
    /// is wrong: the caller sees [`Forest::stopped`], discards them and calls
    /// [`Forest::clear_stop`].
    pub fn set_poll(&mut self, poll: Option<Poll>) {
        self.poll = poll;
        self.next_poll = self.op_steps + self.poll_every;
    }

    /// Call the [`Poll`] every `steps` steps (at least 1) instead of every [`POLL_EVERY`]: a
    /// finer check costs more, but tests use it to stop operations that would otherwise end
    /// before the first poll. Takes effect at the next [`Forest::set_poll`].
    pub fn set_poll_every(&mut self, steps: u64) {
        self.poll_every = steps.max(1);
    }

    /// Did the [`Poll`] stop the set operations (see [`Forest::set_poll`])?
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Make the forest usable again after a stop: the flag is cleared and the operation
    /// caches, which may hold results computed after the stop, are emptied.
    pub fn clear_stop(&mut self) {
        if self.stopped {
            self.stopped = false;
            self.caches.union.clear();
            self.caches.intersect.clear();
            self.caches.minus.clear();
            self.caches.clear_rel();
        }
    }

    /// Steps of the set operations so far (compute-cache misses): a measure of their work.
    pub fn op_steps(&self) -> u64 {
        self.op_steps
    }

    /// Count one set-operation step; true when the operations are stopped (see
    /// [`Forest::set_poll`]).
    #[inline]
    pub(crate) fn op_step_stops(&mut self) -> bool {
        self.op_steps += 1;
        self.op_steps >= self.next_poll && self.poll_now()
    }

    /// Count `n` more steps of work in the step that is running (a wide node is many steps);
    /// the poll comes at the next [`Forest::op_step_stops`].
    #[inline]
    pub(crate) fn count_op_work(&mut self, n: usize) {
        self.op_steps += n as u64;
    }

    #[cold]
    fn poll_now(&mut self) -> bool {
        if !self.stopped {
            let steps = self.op_steps;
            if let Some(p) = self.poll.as_mut() {
                self.stopped = p(steps);
            }
            if !self.stopped {
                self.next_poll = steps + self.poll_every;
            }
        }
        // stopped: `next_poll` stays behind, so every later step comes here and stops
        self.stopped
    }

    /// Hold at most `max_nodes` node slots (ids below it; at most [`MAX_NODES`]) and
    /// `max_edges` words of edges (an edge of a full node takes one, of a sparse node two, a
    /// single-edge MDD node none, see [`crate::edges`]); reaching either sets
    /// [`Forest::overflowed`]. Tests use small caps.
    pub fn set_capacity(&mut self, max_nodes: u32, max_edges: u32) {
        self.max_nodes = max_nodes.min(MAX_NODES);
        self.max_edges = max_edges;
    }

    /// The current domain size of level `k` (the largest index seen + 1, or as declared).
    #[inline]
    pub fn domain(&self, k: usize) -> u32 {
        self.domain[k]
    }

    /// Declare (grow) the domain of level `k` to at least `size` local states. In an
    /// [`Reduction::Identity`] forest both levels of the pair holding `k` grow (they are one
    /// variable).
    pub fn set_domain(&mut self, k: usize, size: u32) {
        if self.domain[k] < size {
            self.domain[k] = size;
            if self.reduction != Reduction::Quasi {
                // a set operation expands a skipped (identity) or redundant level over the
                // domain it sees: results cached before the growth miss the new values
                self.caches.union.clear();
                self.caches.intersect.clear();
                self.caches.minus.clear();
            }
            if self.reduction == Reduction::Identity {
                let other = if is_unprimed(k) { k - 1 } else { k + 1 };
                if other >= 1 && other <= self.num_levels as usize && self.domain[other] < size {
                    self.domain[other] = size;
                }
            }
        }
    }

    /// Take a scratch buffer for recursion depth `d` (give it back with [`Forest::put_scratch`]).
    #[inline]
    pub(crate) fn take_scratch(&mut self, d: usize) -> Vec<Edge<V>> {
        if self.scratch.len() <= d {
            self.scratch.resize_with(d + 1, Vec::new);
        }
        let mut v = std::mem::take(&mut self.scratch[d]);
        v.clear();
        v
    }
    #[inline]
    pub(crate) fn put_scratch(&mut self, d: usize, v: Vec<Edge<V>>) {
        self.scratch[d] = v;
    }

    /// Build (or find) the node at `level` with the given edges, which must be sorted by index
    /// with distinct indices; edges to EMPTY are dropped. Applies the forest's reduction rule.
    pub fn make_node(&mut self, level: usize, edges: &[Edge<V>]) -> NodeId {
        debug_assert!(
            level >= 1 && level <= self.num_levels as usize,
            "level {level} out of range"
        );
        debug_assert!(
            edges.windows(2).all(|w| w[0].idx < w[1].idx),
            "edges not sorted"
        );
        if edges.iter().any(|e| e.child.is_empty()) {
            let mut v = std::mem::take(&mut self.dense_buf);
            v.clear();
            v.extend(edges.iter().copied().filter(|e| !e.child.is_empty()));
            let r = self.make_node_nonempty(level, &v);
            self.dense_buf = v;
            return r;
        }
        self.make_node_nonempty(level, edges)
    }

    fn make_node_nonempty(&mut self, level: usize, edges: &[Edge<V>]) -> NodeId {
        if edges.is_empty() {
            return NodeId::EMPTY;
        }
        if let Some(last) = edges.last() {
            if last.idx >= self.domain[level] {
                if last.idx == u32::MAX {
                    // the domain size would not fit in a u32
                    self.overflowed = true;
                    return NodeId::EMPTY;
                }
                self.set_domain(level, last.idx + 1);
            }
        }
        match self.reduction {
            Reduction::Quasi => {}
            Reduction::Fully => {
                // (edge values are normalised: equal values on every edge are the neutral one)
                let (c, v) = (edges[0].child, edges[0].val);
                if edges.len() as u32 == self.domain[level]
                    && edges.iter().all(|e| e.child == c && e.val == v)
                {
                    return c;
                }
            }
            Reduction::Identity => {
                debug_assert!(
                    edges.iter().all(|e| if is_unprimed(level) {
                        self.level(e.child) == level - 1
                    } else {
                        is_unprimed(self.level(e.child)) && self.level(e.child) < level
                    }),
                    "relation shape: unprimed nodes have primed children one level down, \
                     primed nodes have unprimed or terminal children"
                );
                // Unprimed level (even): identity pattern i -> (i -> c) for all i in the domain
                // of the variable (shared by the pair, so the primed indices are covered too).
                if is_unprimed(level) && edges.len() as u32 == self.domain[level] {
                    let first = self.edges(edges[0].child);
                    if first.len() == 1 {
                        let (c, v, pv) = (first.child(0), edges[0].val, first.val(0));
                        let ident = edges.iter().all(|e| {
                            let pe = self.edges(e.child);
                            self.level(e.child) == level - 1
                                && pe.len() == 1
                                && pe.idx(0) == e.idx
                                && pe.child(0) == c
                                && pe.val(0) == pv
                                && e.val == v
                        });
                        if ident {
                            return c;
                        }
                    }
                }
            }
        }
        let lvl = level as u32;
        if lvl & KIND != 0 {
            // the level's top two bits tell how a node is stored: 2^30 levels are too many
            self.overflowed = true;
            return NodeId::EMPTY;
        }
        let hash = hash_edges(lvl, edges);
        let kind = if edges.len() == 1 && !V::VALUED {
            SINGLE
        } else if is_full(edges) {
            FULL
        } else {
            SPARSE
        };
        let tag = lvl | kind;
        let (nodes, data, vals) = (&self.nodes, &self.data, &self.vals);
        let found = self.unique.find(spread(hash), |&id| {
            let r = &nodes[id as usize];
            r.hash == hash && r.level == tag && r.view(data, vals).same_as(edges)
        });
        if let Some(&id) = found {
            return NodeId(id);
        }
        // allocate, within the 32-bit ids and offsets
        if self.data.len() + words(kind, edges.len()) > self.max_edges as usize
            || (self.free.is_empty() && self.nodes.len() >= self.max_nodes as usize)
        {
            self.overflowed = true;
            return NodeId::EMPTY;
        }
        let rec = if kind == SINGLE {
            if self.vals.is_empty() {
                // the one value every single node's view reads (`()`: no memory)
                self.vals.push(edges[0].val);
            }
            NodeRec {
                level: tag,
                off: edges[0].idx,
                len: edges[0].child.0,
                hash,
            }
        } else {
            let off = self.data.len() as u32;
            if kind == SPARSE {
                self.data.extend(edges.iter().map(|e| e.idx));
                self.vals.extend(edges.iter().map(|e| e.val));
            }
            self.data.extend(edges.iter().map(|e| e.child.0));
            self.vals.extend(edges.iter().map(|e| e.val));
            NodeRec {
                level: tag,
                off,
                len: edges.len() as u32,
                hash,
            }
        };
        let id = if let Some(id) = self.free.pop() {
            self.nodes[id as usize] = rec;
            id
        } else {
            self.nodes.push(rec);
            (self.nodes.len() - 1) as u32
        };
        let nodes = &self.nodes;
        self.unique
            .insert_unique(spread(hash), id, |&x| spread(nodes[x as usize].hash));
        self.nodes_made += 1;
        let now = self.nodes.len() - self.free.len();
        if now > self.nodes_peak {
            self.nodes_peak = now;
        }
        NodeId(id)
    }

    // ---------------------------------------------------------------- roots and collection

    /// Register `n` as a root: it and everything below it survive collections.
    pub fn add_root(&mut self, n: NodeId) -> RootId {
        if let Some(i) = self.free_roots.pop() {
            self.roots[i as usize] = Some(n);
            RootId(i)
        } else {
            self.roots.push(Some(n));
            RootId((self.roots.len() - 1) as u32)
        }
    }
    /// The node a root holds.
    pub fn root(&self, r: RootId) -> NodeId {
        self.roots[r.0 as usize].unwrap_or(NodeId::EMPTY)
    }
    /// Replace the node a root holds.
    pub fn set_root(&mut self, r: RootId, n: NodeId) {
        self.roots[r.0 as usize] = Some(n);
    }
    /// Unregister a root.
    pub fn remove_root(&mut self, r: RootId) {
        if self.roots[r.0 as usize].take().is_some() {
            self.free_roots.push(r.0);
        }
    }

    /// One more than the largest node index in use: side tables indexed by
    /// [`NodeId::index`] need this many entries.
    pub fn id_bound(&self) -> usize {
        self.nodes.len()
    }

    /// Nodes allocated now (including garbage not yet collected).
    pub fn nodes_now(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// Mark every node reachable from `roots` (plus the registered roots) into a bitmap.
    fn mark(&self, extra: &[NodeId]) -> Vec<bool> {
        let mut marked = vec![false; self.nodes.len()];
        marked[0] = true;
        marked[1] = true;
        let mut stack: Vec<NodeId> = self
            .roots
            .iter()
            .flatten()
            .copied()
            .chain(extra.iter().copied())
            .collect();
        while let Some(n) = stack.pop() {
            if marked[n.0 as usize] {
                continue;
            }
            marked[n.0 as usize] = true;
            for c in self.edges(n).children() {
                if !marked[c.0 as usize] {
                    stack.push(c);
                }
            }
        }
        marked
    }

    /// Collect every node not reachable from a registered root or from `extra`, and clear the
    /// compute caches. Call only between top-level operations. Returns the number freed.
    pub fn gc(&mut self, extra: &[NodeId]) -> usize {
        let marked = self.mark(extra);
        let mut freed = 0;
        for (id, &live) in marked.iter().enumerate().skip(2) {
            let r = self.nodes[id];
            if r.level == FREE_LEVEL || live {
                continue;
            }
            if let Ok(entry) = self.unique.find_entry(spread(r.hash), |&x| x == id as u32) {
                entry.remove();
            }
            self.dead_edges += r.words();
            self.nodes[id] = NodeRec {
                level: FREE_LEVEL,
                off: 0,
                len: 0,
                hash: 0,
            };
            self.free.push(id as u32);
            freed += 1;
        }
        if self.dead_edges * 2 > self.data.len() {
            self.compact_edges();
        }
        // purge (rather than clear) the caches: entries over surviving nodes stay useful
        let live = |n: &NodeId| marked[n.0 as usize];
        self.caches
            .union
            .retain(|k, v| live(&k.0) && live(&k.1) && live(v));
        self.caches
            .intersect
            .retain(|k, v| live(&k.0) && live(&k.1) && live(v));
        self.caches
            .minus
            .retain(|k, v| live(&k.0) && live(&k.1) && live(v));
        // image/preimage keys hold a node of the relation forest (unaffected here) in `.1`
        self.caches.image.retain(|k, v| live(&k.0) && live(v));
        self.caches.preimage.retain(|k, v| live(&k.0) && live(v));
        self.collections += 1;
        self.gc_threshold = (self.nodes_now() * 2).max(1 << 20);
        freed
    }

    /// Is `n` an allocated node? Right after [`Forest::gc`] (before any new node is made) this
    /// tells which nodes survived, so callers can purge their own caches.
    #[inline]
    pub fn is_live(&self, n: NodeId) -> bool {
        self.nodes
            .get(n.0 as usize)
            .is_some_and(|r| r.level != FREE_LEVEL)
    }

    /// Has the forest grown past its collection threshold?
    #[inline]
    pub fn gc_due(&self) -> bool {
        self.nodes_now() >= self.gc_threshold
    }

    /// Collect if the forest has grown past its threshold since the last collection.
    pub fn maybe_gc(&mut self, extra: &[NodeId]) -> bool {
        if self.nodes_now() >= self.gc_threshold {
            self.gc(extra);
            true
        } else {
            false
        }
    }

    fn compact_edges(&mut self) {
        let live = self.data.len() - self.dead_edges;
        let (mut data, mut vals) = (Vec::with_capacity(live), Vec::with_capacity(live));
        if !V::VALUED {
            // the value single nodes read (values of `()` take no memory and are all equal)
            vals.extend(self.vals.first().copied());
        }
        for r in self.nodes.iter_mut().skip(2) {
            if r.level == FREE_LEVEL || r.level & KIND == SINGLE {
                continue;
            }
            let (off, w) = (r.off as usize, r.words());
            r.off = data.len() as u32;
            data.extend_from_slice(&self.data[off..off + w]);
            vals.extend_from_slice(&self.vals[off..off + w]);
        }
        self.data = data;
        self.vals = vals;
        self.dead_edges = 0;
    }

    /// Grow the operation caches in use in proportion to the forest (call between
    /// operations; see [`Cache::grow_ahead`]). Their growth on evictions stops at sixteen
    /// entries per live node.
    pub fn tune_caches(&mut self) {
        let want = (self.nodes_now() / 2).clamp(1 << 16, 1 << 24);
        self.caches.grow_ahead(want);
        self.caches.set_ceiling(self.nodes_now().saturating_mul(16));
    }

    /// Hits and misses of each operation cache since the forest was created:
    /// `(name, hits, misses)` for union, intersect, minus, image and preimage.
    pub fn cache_stats(&self) -> [(&'static str, u64, u64); 5] {
        let c = &self.caches;
        [
            ("union", c.union.hits, c.union.misses),
            ("intersect", c.intersect.hits, c.intersect.misses),
            ("minus", c.minus.hits, c.minus.misses),
            ("image", c.image.hits, c.image.misses),
            ("preimage", c.preimage.hits, c.preimage.misses),
        ]
    }

    /// Size figures.
    pub fn stats(&self) -> ForestStats {
        let ut = self.unique.capacity() * 5;
        ForestStats {
            nodes_now: self.nodes_now(),
            nodes_peak: self.nodes_peak,
            nodes_made: self.nodes_made,
            collections: self.collections,
            bytes: self.nodes.capacity() * std::mem::size_of::<NodeRec>()
                + self.pool_bytes()
                + ut
                + self.caches.bytes(),
        }
    }

    /// The bytes of the pools of words and values.
    fn pool_bytes(&self) -> usize {
        self.data.capacity() * 4 + self.vals.capacity() * std::mem::size_of::<V>()
    }

    /// Where the bytes of [`Forest::stats`] go, as text (for diagnostics).
    pub fn memory_breakdown(&self) -> String {
        let ut = self.unique.capacity() * 5;
        let c = &self.caches;
        format!(
            "node records {:.1} MiB, edge words {} used / {} capacity = {:.1} MiB, unique tables {:.1} MiB, \
             op caches union {} intersect {} minus {} image {} preimage {} slots = {:.1} MiB",
            (self.nodes.capacity() * std::mem::size_of::<NodeRec>()) as f64 / 1048576.0,
            self.data.len(),
            self.data.capacity(),
            self.pool_bytes() as f64 / 1048576.0,
            ut as f64 / 1048576.0,
            c.union.len_slots(),
            c.intersect.len_slots(),
            c.minus.len_slots(),
            c.image.len_slots(),
            c.preimage.len_slots(),
            c.bytes() as f64 / 1048576.0
        )
    }

    /// The number of distinct non-terminal nodes reachable from `roots`.
    pub fn count_nodes(&self, roots: &[NodeId]) -> usize {
        let mut seen = hashbrown::HashSet::new();
        let mut stack: Vec<NodeId> = roots.iter().copied().filter(|n| !n.is_terminal()).collect();
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            stack.extend(self.edges(n).children().filter(|c| !c.is_terminal()));
        }
        seen.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mdd_edges_stay_eight_bytes() {
        assert_eq!(std::mem::size_of::<Edge>(), 8);
        assert_eq!(std::mem::size_of::<Edge<()>>(), 8);
    }
}
