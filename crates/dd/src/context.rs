//! The decision-diagram context shared by every engine: the set forest, the relation forest,
//! the pins that keep engines' handles alive, and the compute caches registered by engines,
//! with ONE rule for keeping caches valid across collections (see [`Dd::collect`]).
//!
//! ```
//! use saturn_dd::Dd;
//! let mut dd = Dd::new(2);
//! let s = dd.sets.singleton(&[0, 1]);
//! let pin = dd.pin(s);            // `s` survives collections while `pin` lives
//! let _garbage = dd.sets.singleton(&[1, 1]);
//! dd.collect();
//! assert!(dd.sets.is_live(pin.get()));
//! assert_eq!(dd.sets.cardinality(pin.get()), 1u32.into());
//! drop(pin);
//! dd.collect();
//! assert_eq!(dd.sets.nodes_now(), 2); // the terminals only
//! ```

use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::pin::{lock, PinTable, SharedPins};
use crate::{Forest, ForestKind, NodeId, Pin, Reduction};

/// Which nodes survived the collection that is purging the caches. An entry of a compute
/// cache stays valid iff every node it mentions is live in the forest it comes from.
pub struct Live<'a> {
    sets: &'a Forest,
    rels: &'a Forest,
}

impl Live<'_> {
    /// Did set-forest node `n` survive?
    #[inline]
    pub fn set(&self, n: NodeId) -> bool {
        self.sets.is_live(n)
    }
    /// Did relation-forest node `n` survive?
    #[inline]
    pub fn rel(&self, n: NodeId) -> bool {
        self.rels.is_live(n)
    }
    /// The set forest after the collection.
    pub(crate) fn sets_forest(&self) -> &Forest {
        self.sets
    }
    /// The relation forest after the collection.
    pub(crate) fn rels_forest(&self) -> &Forest {
        self.rels
    }
    /// Did node `n` of forest `kind` survive?
    #[inline]
    pub fn node(&self, kind: ForestKind, n: NodeId) -> bool {
        match kind {
            ForestKind::Sets => self.set(n),
            ForestKind::Rels => self.rel(n),
        }
    }
}

/// A compute cache (or a group of them) registered with a [`Dd`] context.
///
/// The one invalidation rule: whenever the context collects, [`Purge::purge`] drops every entry
/// that mentions a node the collection freed, in whichever forest that node lives. Nothing
/// else (no epochs, no hand-written purges) keeps a registered cache valid.
pub trait Purge: Any + Send {
    /// Drop every entry mentioning a node that is not live (see [`Live`]).
    fn purge(&mut self, live: &Live<'_>);
}

impl<K, V> Purge for crate::Cache<K, V>
where
    K: crate::CacheKey + Nodes + Send + 'static,
    V: Copy + Default + Nodes + Send + 'static,
{
    /// Plain caches hold set-forest nodes only (keys and values).
    fn purge(&mut self, live: &Live<'_>) {
        self.retain(|k, v| k.all_live(&|n| live.set(n)) && v.all_live(&|n| live.set(n)));
    }
}

/// Cache keys and values that hold set-forest nodes: are all of them live?
pub trait Nodes {
    fn all_live(&self, live: &impl Fn(NodeId) -> bool) -> bool;
}

impl Nodes for NodeId {
    #[inline]
    fn all_live(&self, live: &impl Fn(NodeId) -> bool) -> bool {
        live(*self)
    }
}
impl Nodes for u32 {
    /// A plain number (an event index, a level) mentions no node.
    #[inline]
    fn all_live(&self, _: &impl Fn(NodeId) -> bool) -> bool {
        true
    }
}
impl<A: Nodes, B: Nodes> Nodes for (A, B) {
    #[inline]
    fn all_live(&self, live: &impl Fn(NodeId) -> bool) -> bool {
        self.0.all_live(live) && self.1.all_live(live)
    }
}
impl<A: Nodes, B: Nodes, C: Nodes> Nodes for (A, B, C) {
    #[inline]
    fn all_live(&self, live: &impl Fn(NodeId) -> bool) -> bool {
        self.0.all_live(live) && self.1.all_live(live) && self.2.all_live(live)
    }
}

impl Forest {
    /// Purge the relational-product caches of this (set) forest of the entries whose
    /// relation node `rels` freed, and record `rels`' epoch as the one they refer to.
    fn purge_rel_entries(&mut self, rels: &Forest) {
        if self.caches.rel_epoch.is_some() {
            self.caches.image.retain(|k, _| rels.is_live(k.1));
            self.caches.preimage.retain(|k, _| rels.is_live(k.1));
            self.caches.rel_epoch = Some(rels.epoch());
        }
    }
}

/// A typed handle to a cache registered with [`Dd::register`].
#[derive(Debug)]
pub struct CacheSlot<T> {
    idx: usize,
    _t: PhantomData<fn() -> T>,
}

/// The shared decision-diagram context: every engine borrows it, so forward and backward
/// exploration, constraint sets and closures all work on the same node ids.
pub struct Dd {
    /// The quasi-reduced forest of sets of states (`K` levels).
    pub sets: Forest,
    /// The identity-reduced forest of relations (`2K` levels, variable `k` is the pair of levels
    /// `2k`, `2k-1`).
    pub rels: Forest,
    pins: SharedPins,
    caches: Vec<Option<Box<dyn Purge>>>,
    gc_every: Option<usize>,
    /// The forest size below which the default schedule never collects (see
    /// [`Dd::set_gc_floor`]).
    gc_floor: usize,
    /// Nodes of each forest (sets, relations) the last collection left live.
    live_after: (usize, usize),
    next_gc: usize,
    next_gc_rels: usize,
    collections: usize,
    /// Collections made in the middle of an operation ([`Dd::collect_in_flight`]).
    collections_in_flight: usize,
}

impl Dd {
    /// A context for states of `num_levels` variables.
    pub fn new(num_levels: usize) -> Dd {
        Dd {
            sets: Forest::new(num_levels, Reduction::Quasi),
            rels: Forest::new(2 * num_levels, Reduction::Identity),
            pins: Arc::new(std::sync::Mutex::new(PinTable::default())),
            caches: Vec::new(),
            gc_every: None,
            gc_floor: DEFAULT_GC_FLOOR,
            live_after: (0, 0),
            next_gc: DEFAULT_GC_FLOOR,
            next_gc_rels: DEFAULT_GC_FLOOR,
            collections: 0,
            collections_in_flight: 0,
        }
    }

    /// A context over existing forests (`sets` quasi-reduced with `K` levels, `rels`
    /// identity-reduced with `2K`), e.g. to run an engine on forests a caller owns; give them
    /// back with [`Dd::into_forests`].
    ///
    /// # Panics
    /// If the forests' numbers of levels do not match.
    pub fn with_forests(sets: Forest, rels: Forest) -> Dd {
        assert_eq!(2 * sets.num_levels(), rels.num_levels());
        let mut dd = Dd::new(0);
        dd.sets = sets;
        dd.rels = rels;
        dd
    }

    /// The forests, taking the context apart (pins and registered caches are dropped: take
    /// every node you need out of them first).
    pub fn into_forests(self) -> (Forest, Forest) {
        (self.sets, self.rels)
    }

    /// Did either forest run out of 32-bit node ids, edge offsets or domain sizes
    /// ([`Forest::overflowed`])? Every result since is wrong: stop with an error.
    pub fn overflowed(&self) -> bool {
        self.sets.overflowed() || self.rels.overflowed()
    }

    /// The number of variables (levels of the set forest).
    pub fn num_levels(&self) -> usize {
        self.sets.num_levels()
    }

    // ------------------------------------------------------------------------ pins

    /// Pin set-forest node `n`: it survives every collection until the pin is dropped.
    pub fn pin(&self, n: NodeId) -> Pin {
        Pin::new(&self.pins, ForestKind::Sets, n)
    }

    /// Pin relation-forest node `r`.
    pub fn pin_rel(&self, r: NodeId) -> Pin {
        Pin::new(&self.pins, ForestKind::Rels, r)
    }

    /// The number of pins alive.
    pub fn pins(&self) -> usize {
        lock(&self.pins).len()
    }

    // ------------------------------------------------------------------------ caches

    /// Register a compute cache: from now on every collection purges it ([`Purge`]).
    pub fn register<T: Purge>(&mut self, cache: T) -> CacheSlot<T> {
        let b: Box<dyn Purge> = Box::new(cache);
        let idx = match self.caches.iter().position(Option::is_none) {
            Some(i) => {
                self.caches[i] = Some(b);
                i
            }
            None => {
                self.caches.push(Some(b));
                self.caches.len() - 1
            }
        };
        CacheSlot {
            idx,
            _t: PhantomData,
        }
    }

    /// The registered cache of `slot` (`None` while it is checked out with [`Dd::take`]).
    pub fn cache<T: Purge>(&mut self, slot: &CacheSlot<T>) -> Option<&mut T> {
        let b: &mut dyn Any = self.caches[slot.idx].as_deref_mut()?;
        b.downcast_mut::<T>()
    }

    /// Check the cache of `slot` out, for a hot loop that should not go through the context
    /// for every lookup. While it is out, collections must be made with [`Dd::collect_with`]
    /// naming it; give it back with [`Dd::put`].
    ///
    /// # Panics
    /// If it is already out.
    pub fn take<T: Purge>(&mut self, slot: &CacheSlot<T>) -> Box<T> {
        let b: Box<dyn Any> = self.caches[slot.idx]
            .take()
            .expect("cache already checked out");
        b.downcast::<T>()
            .unwrap_or_else(|_| unreachable!("a slot holds the type it was made for"))
    }

    /// Give back a cache checked out with [`Dd::take`].
    pub fn put<T: Purge>(&mut self, slot: &CacheSlot<T>, cache: Box<T>) {
        debug_assert!(self.caches[slot.idx].is_none());
        self.caches[slot.idx] = Some(cache);
    }

    /// Unregister the cache of `slot` (dropping it).
    pub fn unregister<T: Purge>(&mut self, slot: CacheSlot<T>) {
        self.caches[slot.idx] = None;
    }

    // ------------------------------------------------------------------------ collection

    /// Collect both forests: every node not reachable from a pin (or a root registered with a
    /// forest) is freed, and every compute cache (the forests' own, the relational-product
    /// caches, every registered cache) is purged of the entries that mention a freed node.
    /// Call only between top-level operations (or at an engine's safe point, see
    /// [`Dd::collect_with`]). Returns the number of nodes freed.
    pub fn collect(&mut self) -> usize {
        self.collect_with(&[], &[], &mut [])
    }

    /// [`Dd::collect`] with extra roots (`sets`: set-forest nodes, `rels`: relation-forest
    /// nodes an engine holds in the middle of a computation) and the caches an engine has
    /// checked out ([`Dd::take`]), which are purged by the same rule.
    pub fn collect_with(
        &mut self,
        sets: &[NodeId],
        rels: &[NodeId],
        held: &mut [&mut dyn Purge],
    ) -> usize {
        let (mut set_roots, mut rel_roots) = {
            let t = lock(&self.pins);
            (t.roots(ForestKind::Sets), t.roots(ForestKind::Rels))
        };
        set_roots.extend_from_slice(sets);
        rel_roots.extend_from_slice(rels);
        let freed = self.sets.gc(&set_roots) + self.rels.gc(&rel_roots);
        // the relational-product caches of the set forest hold relation nodes in their keys
        self.sets.purge_rel_entries(&self.rels);
        let live = Live {
            sets: &self.sets,
            rels: &self.rels,
        };
        for c in self.caches.iter_mut().flatten() {
            c.purge(&live);
        }
        for c in held.iter_mut() {
            c.purge(&live);
        }
        self.collections += 1;
        self.live_after = (self.sets.nodes_now(), self.rels.nodes_now());
        self.reschedule();
        freed
    }

    /// [`Dd::collect_with`] at an engine's safe point in the middle of one operation (e.g. a
    /// saturation's local fixpoint), the nodes the operation still holds passed as roots;
    /// counted apart ([`Dd::collections_in_flight`]) so a test can tell that a collection
    /// happened inside the operation, not between two.
    pub fn collect_in_flight(
        &mut self,
        sets: &[NodeId],
        rels: &[NodeId],
        held: &mut [&mut dyn Purge],
    ) -> usize {
        self.collections_in_flight += 1;
        self.collect_with(sets, rels, held)
    }

    /// Has either forest grown past its collection threshold since the last collection?
    #[inline]
    pub fn gc_due(&self) -> bool {
        self.sets.nodes_now() >= self.next_gc || self.rels.nodes_now() >= self.next_gc_rels
    }

    /// Collect when due ([`Dd::gc_due`]); true if it did.
    pub fn maybe_collect(&mut self) -> bool {
        if self.gc_due() {
            self.collect();
            true
        } else {
            false
        }
    }

    /// Collect whenever a forest has grown by `n` nodes since the last collection (`None`:
    /// the default, when a forest has doubled, and not below the floor of
    /// [`Dd::set_gc_floor`]). Tests set a small `n` to collect in the middle of saturation and
    /// BFS.
    pub fn set_gc_every(&mut self, n: Option<usize>) {
        self.gc_every = n;
        self.reschedule();
    }

    /// The forest size below which the default schedule never collects (default
    /// [`DEFAULT_GC_FLOOR`]; a memory limit lowers it, see [`gc_floor_for`]).
    pub fn set_gc_floor(&mut self, nodes: usize) {
        self.gc_floor = nodes.max(1);
        self.reschedule();
    }

    /// The one schedule, after a collection or a change of rule: `n` nodes more than now with
    /// `set_gc_every(Some(n))`; else twice what the last collection left, not below the floor
    /// (a floor changed in the middle of a run keeps the doubling since that collection).
    fn reschedule(&mut self) {
        (self.next_gc, self.next_gc_rels) = match self.gc_every {
            Some(n) => (self.sets.nodes_now() + n, self.rels.nodes_now() + n),
            None => {
                let (ls, lr) = self.live_after;
                ((2 * ls).max(self.gc_floor), (2 * lr).max(self.gc_floor))
            }
        };
    }

    /// Collections made by this context so far.
    pub fn collections(&self) -> usize {
        self.collections
    }

    /// Collections made in the middle of an operation so far ([`Dd::collect_in_flight`]).
    pub fn collections_in_flight(&self) -> usize {
        self.collections_in_flight
    }
}

/// The forest size below which the default schedule never collects: 16M nodes, about 1 GB
/// with the forest's tables and the engine's caches. A collection frees saturation's
/// intermediate nodes, and with them every cached result that mentions one; when those come
/// back, saturation recomputes them. At a floor of 1M nodes that recomputation was the wall on
/// the contest's large nets: ShieldPPPs-PT-005A (Noack's order) made 27 collections and took
/// 253M recursion steps and 54 s; at 4M 5 collections, 179M and 38 s; at 8M one collection,
/// 130M and 28 s; never collecting 120M and 27 s (554 MB). ShieldIIPs-PT-040A needs more: no
/// answer in 60 s at 8M, 27 s at 16M (1.9 GB, as at 32M). The foundation table's rows never
/// reach 1M nodes, so their memory is unchanged.
pub const DEFAULT_GC_FLOOR: usize = 1 << 24;

/// The floor of the collection schedule under a memory limit of `max_memory` bytes: the
/// garbage allowed to pile up between collections takes at most about a quarter of the limit
/// (64 bytes a node: its record, edges, unique-table slot and share of the caches), never
/// more than [`DEFAULT_GC_FLOOR`] nor fewer than 64K nodes.
pub fn gc_floor_for(max_memory: Option<u64>) -> usize {
    match max_memory {
        Some(m) => ((m / 4 / 64) as usize).clamp(1 << 16, DEFAULT_GC_FLOOR),
        None => DEFAULT_GC_FLOOR,
    }
}
