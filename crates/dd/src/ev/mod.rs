//! Edge-valued decision diagrams (thesis section 2.1.2, Definition 4): EV+MDDs over `i64`
//! with `+∞` and EV*MDDs over non-negative `f64`, on `L` levels (functions of states) or on
//! interleaved `2L` levels (EV+MxD for distances, EV*MxD for rate matrices; level `2k` is the
//! row, unprimed variable `k`, level `2k-1` the column, primed `k'`).
//!
//! A function is a dangling edge [`Ev`] `⟨σ, p⟩`: EV+ encodes `σ + (sum of the edge values
//! on the path)`, EV* `σ · (product of the edge values on the path)`. Nodes are quasi-reduced
//! (every path visits every level) and normalised (Figure 2.4): an EV+ node's edge values are
//! `≥ 0` with at least one `0`, an EV* node's lie in `[0, 1]` with at least one `1`. The
//! default value (`+∞` for EV+, `0` for EV*) is never stored: such an edge is absent, and the
//! constant default function is `⟨default, EMPTY⟩`. So equal functions are one node (for EV*,
//! when the arithmetic that built them rounded alike).
//!
//! The universe of a forest is the product of its levels' domains ([`EvForest::domain`],
//! declared at creation, growable); an index absent from a node maps to the default value.
//!
//! Every operation has its compute cache in the [`EvForest`]; [`EvForest::gc`] collects the
//! forest and purges those caches. Caches holding nodes of an MDD forest (conversion,
//! restriction, index function) remember that forest's [`Epoch`] and are cleared when it
//! changes. Arithmetic is checked: a result that does not fit is [`Overflow`], never a wrap
//! (an operation checks the values it computes; a path whose total does not fit, such as
//! `f + c` where `f` reaches `i64::MAX - c`, is reported when [`EvForest::eval`] reaches it).

mod build;
mod diagonal;
mod dot;
mod normalize;
mod plus;
mod restrict;
mod star;
mod value;

pub use restrict::Restrict;
pub use value::{EvValue, Overflow, INF};

use crate::cache::Cache;
use crate::forest::{Edge, Forest, Reduction, RootId};
use crate::relation::is_unprimed;
use crate::{Edges, Epoch, NodeId};

/// A function in an [`EvForest`]: the dangling edge `⟨val, node⟩` (thesis notation `⟨σ, p⟩`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Ev<V> {
    pub val: V,
    pub node: NodeId,
}

impl<V: EvValue> Ev<V> {
    /// The constant default function (`+∞` for EV+, `0` for EV*).
    pub fn default_fn() -> Ev<V> {
        Ev {
            val: V::DEFAULT,
            node: NodeId::EMPTY,
        }
    }
    /// Is this the constant default function?
    pub fn is_default(self) -> bool {
        self.node.is_empty()
    }
}

/// Two operands of a symmetric operation whose default absorbs nothing: `Err(the other)`
/// when one is the default function, else both with the larger value first (on ties the
/// smaller node first), so that a cache sees one key per unordered pair.
pub(crate) fn larger_first<V: EvValue>(a: Ev<V>, b: Ev<V>) -> Result<(Ev<V>, Ev<V>), Ev<V>> {
    if a.is_default() {
        return Err(b);
    }
    if b.is_default() {
        return Err(a);
    }
    if a.val < b.val || (a.val == b.val && a.node > b.node) {
        Ok((b, a))
    } else {
        Ok((a, b))
    }
}

/// The compute caches of an [`EvForest`], one per operation. Keys hold node ids of the EV
/// forest (and of an MDD forest for `from_mdd`, `restrict`, `index`); values pair the factor a
/// normalisation pulled out with the result node.
pub(crate) struct EvCaches<V: EvValue> {
    /// EV+ Min (Figure 2.5): `(p, q, ρ−σ)`, `ρ ≥ σ`.
    pub(crate) min: Cache<(NodeId, NodeId, u64), (V, NodeId)>,
    /// Sum (Figure 2.5 for EV+; for EV* keyed by `(p, q, σ/ρ)`, `ρ ≥ σ`).
    pub(crate) sum: Cache<(NodeId, NodeId, u64), (V, NodeId)>,
    /// Restriction by an MDD node, keyed by `(p, set node, mode)`.
    pub(crate) restrict: Cache<(NodeId, NodeId, u32), (V, NodeId)>,
    /// Conversion of MDD nodes.
    pub(crate) from_mdd: Cache<NodeId, NodeId>,
    /// Index function of MDD nodes: `(index node, number of states below)`.
    pub(crate) index: Cache<NodeId, (NodeId, i64)>,
    /// Conversion of relation nodes, keyed by `(relation node, unprimed level)`.
    pub(crate) from_rel: Cache<(NodeId, u32), NodeId>,
    /// The off-diagonal part of matrix nodes (on the diagonal so far).
    pub(crate) off_diag: Cache<NodeId, (V, NodeId)>,
    /// The transpose of matrix nodes.
    pub(crate) transpose: Cache<NodeId, (V, NodeId)>,
    /// The relation forest the `from_rel` entries refer to.
    pub(crate) rel_epoch: Option<Epoch>,
    /// The MDD forest the `restrict`, `from_mdd` and `index` entries refer to.
    pub(crate) mdd_epoch: Option<Epoch>,
}

impl<V: EvValue> EvCaches<V> {
    fn new() -> Self {
        EvCaches {
            min: Cache::new(12),
            sum: Cache::new(12),
            restrict: Cache::new(12),
            from_mdd: Cache::new(10),
            index: Cache::new(10),
            from_rel: Cache::new(10),
            off_diag: Cache::new(10),
            transpose: Cache::new(10),
            mdd_epoch: None,
            rel_epoch: None,
        }
    }

    /// Forget the entries over an MDD forest whose epoch is not `e`.
    pub(crate) fn check_mdd(&mut self, e: Epoch) {
        if self.mdd_epoch != Some(e) {
            self.restrict.clear();
            self.from_mdd.clear();
            self.index.clear();
            self.mdd_epoch = Some(e);
        }
    }

    /// Limit each cache's growth on evictions to `n` entries.
    fn set_ceiling(&mut self, n: usize) {
        self.min.set_ceiling(n);
        self.sum.set_ceiling(n);
        self.restrict.set_ceiling(n);
        self.from_mdd.set_ceiling(n);
        self.index.set_ceiling(n);
        self.from_rel.set_ceiling(n);
        self.off_diag.set_ceiling(n);
        self.transpose.set_ceiling(n);
    }

    fn bytes(&self) -> usize {
        self.min.bytes()
            + self.sum.bytes()
            + self.restrict.bytes()
            + self.from_mdd.bytes()
            + self.index.bytes()
            + self.from_rel.bytes()
            + self.off_diag.bytes()
            + self.transpose.bytes()
    }
}

/// An edge-valued forest registered with a [`crate::Dd`] context follows the context's one rule
/// for the entries that mention the context's nodes: at every collection of the set or
/// relation forest, the entries keyed by a freed MDD node (restriction, conversion, index
/// function) or relation node (conversion of a relation) are dropped, and the rest stay valid.
/// (Its own nodes are collected by [`EvForest::gc`], which purges by the same rule.) An
/// unregistered forest falls back to clearing those caches when the other forest's epoch
/// changes.
impl<V: EvValue + Send + 'static> crate::Purge for EvForest<V>
where
    Forest<V>: Send,
{
    fn purge(&mut self, live: &crate::Live<'_>) {
        let c = &mut self.caches;
        c.restrict.retain(|k, _| live.set(k.1));
        c.from_mdd.retain(|k, _| live.set(*k));
        c.index.retain(|k, _| live.set(*k));
        c.from_rel.retain(|k, _| live.rel(k.0));
        if c.mdd_epoch.is_some() {
            c.mdd_epoch = Some(live.sets_forest().epoch());
        }
        if c.rel_epoch.is_some() {
            c.rel_epoch = Some(live.rels_forest().epoch());
        }
    }
}

/// A forest of edge-valued nodes (`V = i64`: EV+, `V = f64`: EV*) with its compute caches.
pub struct EvForest<V: EvValue> {
    pub(crate) f: Forest<V>,
    pub(crate) caches: EvCaches<V>,
    /// `2L` interleaved levels (a matrix) rather than `L` levels (a vector).
    interleaved: bool,
    /// Spare edge lists for the recursive operations (Min), so that they allocate nothing
    /// once warm.
    pub(crate) bufs: Vec<Vec<crate::forest::Edge<V>>>,
}

/// An EV+MDD (or EV+MxD) forest: `i64` values with `+∞` ([`INF`]).
pub type EvPlusForest = EvForest<i64>;
/// An EV*MDD (or EV*MxD) forest: non-negative `f64` values.
pub type EvStarForest = EvForest<f64>;

impl<V: EvValue> EvForest<V> {
    /// A forest of functions over `domains.len()` levels; level `k` has `domains[k-1]` local
    /// states.
    pub fn new(domains: &[u32]) -> Self {
        let mut f = Forest::with_values(domains.len(), Reduction::Quasi);
        for (k, &d) in domains.iter().enumerate() {
            f.set_domain(k + 1, d);
        }
        EvForest {
            f,
            caches: EvCaches::new(),
            interleaved: false,
            bufs: Vec::new(),
        }
    }

    /// A forest of matrices over `2 * domains.len()` interleaved levels: variable `k`
    /// (`domains[k-1]` local states) is the row at level `2k` and the column at level `2k-1`.
    pub fn new_interleaved(domains: &[u32]) -> Self {
        let mut f = Forest::with_values(2 * domains.len(), Reduction::Quasi);
        for (k, &d) in domains.iter().enumerate() {
            f.set_domain(2 * k + 2, d);
            f.set_domain(2 * k + 1, d);
        }
        EvForest {
            f,
            caches: EvCaches::new(),
            interleaved: true,
            bufs: Vec::new(),
        }
    }

    /// Are the levels interleaved rows and columns?
    pub fn is_interleaved(&self) -> bool {
        self.interleaved
    }
    /// The number of levels (`2L` when interleaved).
    pub fn num_levels(&self) -> usize {
        self.f.num_levels()
    }
    /// The domain size of level `k`.
    pub fn domain(&self, k: usize) -> u32 {
        self.f.domain(k)
    }
    /// Grow the domain of level `k` (for an interleaved forest, of the variable of level `k`:
    /// both its levels).
    pub fn set_domain(&mut self, k: usize, size: u32) {
        self.f.set_domain(k, size);
        if self.interleaved {
            let other = if is_unprimed(k) { k - 1 } else { k + 1 };
            self.f.set_domain(other, size);
        }
    }
    /// The node store (levels, edges, statistics).
    pub fn forest(&self) -> &Forest<V> {
        &self.f
    }
    /// The level of a node (0 for terminals).
    pub fn level(&self, n: NodeId) -> usize {
        self.f.level(n)
    }
    /// The stored (non-default) edges of `n`, sorted by index.
    pub fn edges(&self, n: NodeId) -> Edges<'_, V> {
        self.f.edges(n)
    }

    /// The edge of `n` at index `i` as a dangling edge (the default function when absent).
    #[inline]
    pub fn child(&self, n: NodeId, i: u32) -> Ev<V> {
        match self.f.edges(n).find(i) {
            Some(e) => Ev {
                val: e.val,
                node: e.child,
            },
            None => Ev::default_fn(),
        }
    }

    /// The value of `f` at a state (a tuple with entry `k-1` for level `k`, over every level;
    /// for an interleaved forest see [`EvForest::matrix_tuple`]). `Err` when the value does
    /// not fit in the value type.
    pub fn eval(&self, f: Ev<V>, state: &[u32]) -> Result<V, Overflow> {
        debug_assert_eq!(state.len(), self.num_levels());
        let mut acc = f.val;
        let mut n = f.node;
        while !n.is_terminal() {
            let e = self.child(n, state[self.f.level(n) - 1]);
            if e.is_default() {
                return Ok(V::DEFAULT);
            }
            acc = V::combine(acc, e.val)?;
            n = e.node;
        }
        Ok(if n.is_empty() { V::DEFAULT } else { acc })
    }

    /// The constant function `c` over the universe: a chain of nodes whose every index (of
    /// each level's current domain) has the neutral value.
    fn constant_fn(&mut self, c: V) -> Ev<V> {
        if c == V::DEFAULT {
            return Ev::default_fn();
        }
        let mut n = NodeId::ONE;
        for k in 1..=self.num_levels() {
            let es: Vec<Edge<V>> = (0..self.domain(k))
                .map(|i| Edge::valued(i, n, V::NEUTRAL))
                .collect();
            n = self.f.make_node(k, &es);
        }
        if n.is_empty() {
            return Ev::default_fn();
        }
        Ev { val: c, node: n }
    }

    /// The interleaved tuple of the matrix entry `(row, col)`: level `2k` holds `row[k-1]`,
    /// level `2k-1` holds `col[k-1]`.
    pub fn matrix_tuple(row: &[u32], col: &[u32]) -> Vec<u32> {
        debug_assert_eq!(row.len(), col.len());
        let mut t = vec![0; 2 * row.len()];
        for k in 0..row.len() {
            t[2 * k + 1] = row[k];
            t[2 * k] = col[k];
        }
        t
    }

    /// A state of extreme value (the minimum for EV+, the maximum for EV*): the path of
    /// neutral edges (`0`, resp. `1`) every normalised node has, lowest index first (thesis
    /// section 2.1.2, *MinState*). `None` for the default function.
    pub fn extreme_state(&self, f: Ev<V>) -> Option<(Vec<u32>, V)> {
        if f.is_default() {
            return None;
        }
        let mut state = vec![0; self.num_levels()];
        let mut n = f.node;
        while !n.is_terminal() {
            let e = self
                .f
                .edges(n)
                .iter()
                .find(|e| e.val == V::NEUTRAL)
                .expect("a normalised node has a neutral edge");
            state[self.f.level(n) - 1] = e.idx;
            n = e.child;
        }
        Some((state, f.val))
    }

    // ---------------------------------------------------------------- roots and collection

    /// Register `f`'s node as a root (see [`Forest::add_root`]); the value stays with the
    /// caller.
    pub fn add_root(&mut self, f: Ev<V>) -> RootId {
        self.f.add_root(f.node)
    }
    /// Unregister a root.
    pub fn remove_root(&mut self, r: RootId) {
        self.f.remove_root(r)
    }

    /// Collect every node not reachable from a registered root or from `extra`, and purge
    /// the compute caches of entries over freed nodes. Returns the number freed.
    pub fn gc(&mut self, extra: &[NodeId]) -> usize {
        let freed = self.f.gc(extra);
        let f = &self.f;
        let live = |n: NodeId| f.is_live(n);
        let c = &mut self.caches;
        c.min.retain(|k, v| live(k.0) && live(k.1) && live(v.1));
        c.sum.retain(|k, v| live(k.0) && live(k.1) && live(v.1));
        // `.1` of these keys is an MDD node (checked by epoch)
        c.restrict.retain(|k, v| live(k.0) && live(v.1));
        c.from_mdd.retain(|_, v| live(*v));
        c.index.retain(|_, v| live(v.0));
        c.from_rel.retain(|_, v| live(*v));
        c.off_diag.retain(|k, v| live(*k) && live(v.1));
        c.transpose.retain(|k, v| live(*k) && live(v.1));
        self.tune_caches();
        freed
    }

    /// Let the caches grow on evictions up to sixteen entries per live node (as
    /// [`Forest::tune_caches`] does; called by [`EvForest::gc`]).
    pub fn tune_caches(&mut self) {
        self.caches
            .set_ceiling(self.f.nodes_now().saturating_mul(16).max(1 << 16));
    }

    /// Hits and misses of each operation cache: `(name, hits, misses)`.
    pub fn cache_stats(&self) -> [(&'static str, u64, u64); 8] {
        let c = &self.caches;
        [
            ("min", c.min.hits, c.min.misses),
            ("sum", c.sum.hits, c.sum.misses),
            ("restrict", c.restrict.hits, c.restrict.misses),
            ("from_mdd", c.from_mdd.hits, c.from_mdd.misses),
            ("index", c.index.hits, c.index.misses),
            ("from_relation", c.from_rel.hits, c.from_rel.misses),
            ("off_diagonal", c.off_diag.hits, c.off_diag.misses),
            ("transpose", c.transpose.hits, c.transpose.misses),
        ]
    }

    /// Collect if the forest has grown past its threshold (see [`Forest::maybe_gc`]).
    pub fn maybe_gc(&mut self, extra: &[NodeId]) -> bool {
        if self.f.gc_due() {
            self.gc(extra);
            true
        } else {
            false
        }
    }

    /// Is `n` an allocated node?
    pub fn is_live(&self, n: NodeId) -> bool {
        self.f.is_live(n)
    }

    /// Nodes allocated now.
    pub fn nodes_now(&self) -> usize {
        self.f.nodes_now()
    }

    /// Approximate bytes held by nodes, edges, unique tables and caches.
    pub fn bytes(&self) -> usize {
        self.f.stats().bytes + self.caches.bytes()
    }

    /// The number of distinct non-terminal nodes reachable from `roots`.
    pub fn count_nodes(&self, roots: &[Ev<V>]) -> usize {
        let ns: Vec<NodeId> = roots.iter().map(|r| r.node).collect();
        self.f.count_nodes(&ns)
    }
}
