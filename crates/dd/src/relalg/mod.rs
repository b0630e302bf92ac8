//! The 2L-level relation algebra on identity-reduced relation forests (see
//! [`Reduction::Identity`](crate::Reduction::Identity)): what the transitive closure and the SCC
//! algorithms of thesis chapter 4 need beyond union, intersection and difference (which are the
//! forest's own [`Forest::union`], [`Forest::intersect`] and [`Forest::minus`], correct on
//! relation forests, a skipped pair of levels expanding to the identity where the other operand
//! has it).
//!
//! [`RelAlg`] holds one compute cache per operation:
//! - relation to relation: composition `R;S` ([`RelAlg::compose`]) and the transpose
//!   ([`RelAlg::transpose`]);
//! - relation and set to relation: restriction of the domain or the range by a set
//!   ([`RelAlg::restrict`] with [`Side::From`] / [`Side::To`]);
//! - relation to set: the diagonal `{ i : (i,i) ∈ R }` ([`RelAlg::diagonal`]) and the existential
//!   quantification of the primed or unprimed levels, i.e. the domain or the range
//!   ([`RelAlg::project`]);
//! - set to relation: the identity over a set ([`RelAlg::identity_over`]) and the cross product
//!   `S × T` ([`RelAlg::cross`]).
//!
//! Sets live in a quasi- or fully-reduced forest of `K` levels, relations in an identity-reduced
//! forest of `2K` levels (variable `k` is the pair `2k`, `2k-1`). Where an operation expands a
//! skipped pair or a redundant set level it takes the variable's domain as the larger of the two
//! forests' domains for it; declare both forests' domains alike.
//!
//! Cache validity: the caches hold node ids of both forests. A `RelAlg` registered with a
//! [`Dd`](crate::Dd) context (directly or inside an engine's caches) is purged by the context's
//! one rule ([`Purge`]): at every collection, the entries that mention a freed node of either
//! forest are dropped. A `RelAlg` used on forests outside a context (or beside one without
//! being registered) is kept safe by a fallback: every top-level call compares the forests'
//! [`Epoch`]s with those the caches were last valid for and clears the stale ones. Domain
//! growth clears the caches whose results expand skipped levels (that is what the domains
//! mean, not a collection).

mod cross;
mod project;
mod rel;

use crate::{Cache, Epoch, Forest, Live, NodeId, Purge, Reduction};

/// Which side of a relation `R ⊆ X × Y` an operation works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The unprimed ("from") levels: the domain `X`.
    From,
    /// The primed ("to") levels: the range `Y`.
    To,
}

/// The last forest state the caches were valid for: identity, collections, domain sizes.
#[derive(Default)]
struct Seen {
    epoch: Option<Epoch>,
    domains: Vec<u32>,
}

impl Seen {
    /// Record `f`'s state; true when it differs from the recorded one (caches are stale).
    fn changed(&mut self, f: &Forest) -> bool {
        let e = f.epoch();
        let same = self.epoch == Some(e)
            && self.domains.len() == f.num_levels() + 1
            && (0..=f.num_levels()).all(|k| self.domains[k] == f.domain(k));
        if !same {
            self.epoch = Some(e);
            self.domains.clear();
            self.domains
                .extend((0..=f.num_levels()).map(|k| f.domain(k)));
        }
        !same
    }
}

/// The relation-algebra operations and their compute caches (one per operation). Caches are
/// allocated on first use; one `RelAlg` serves any pair of forests (switching pairs clears it).
pub struct RelAlg {
    rels_seen: Seen,
    sets_seen: Seen,
    /// `(R, S) -> R;S`.
    compose: Cache<(NodeId, NodeId), NodeId>,
    /// `R -> Rᵀ`.
    transpose: Cache<NodeId, NodeId>,
    /// `(R, s) -> R ∩ (s × Y)`.
    restrict_from: Cache<(NodeId, NodeId), NodeId>,
    /// `(R, s) -> R ∩ (X × s)`.
    restrict_to: Cache<(NodeId, NodeId), NodeId>,
    /// `(R, k) -> { i : (i,i) ∈ R }` as a set node at level `k`.
    diagonal: Cache<(NodeId, u32), NodeId>,
    /// `(R, k) -> ∃ primed levels . R` (the domain) as a set node at level `k`.
    domain: Cache<(NodeId, u32), NodeId>,
    /// `(R, k) -> ∃ unprimed levels . R` (the range) as a set node at level `k`.
    range: Cache<(NodeId, u32), NodeId>,
    /// `s -> { (x, x) : x ∈ s }`.
    identity: Cache<NodeId, NodeId>,
    /// `(s, t, k) -> s × t` over the variables `1..=k`.
    cross: Cache<(NodeId, NodeId, u32), NodeId>,
    /// The interruption check polled every 4096 recursive calls (see [`RelAlg::set_poll`]).
    poll: Option<Poll>,
    steps: u64,
    stopped: bool,
}

/// An interruption check: `true` stops the running operation.
pub type Poll = Box<dyn FnMut() -> bool + Send>;

impl Default for RelAlg {
    fn default() -> Self {
        RelAlg::new()
    }
}

impl RelAlg {
    /// Empty caches (nothing is allocated until an operation runs).
    pub fn new() -> RelAlg {
        const LOG2: u32 = 12;
        RelAlg {
            rels_seen: Seen::default(),
            sets_seen: Seen::default(),
            compose: Cache::new(LOG2),
            transpose: Cache::new(LOG2),
            restrict_from: Cache::new(LOG2),
            restrict_to: Cache::new(LOG2),
            diagonal: Cache::new(LOG2),
            domain: Cache::new(LOG2),
            range: Cache::new(LOG2),
            identity: Cache::new(LOG2),
            cross: Cache::new(LOG2),
            poll: None,
            steps: 0,
            stopped: false,
        }
    }

    /// Install (or remove) the interruption check: polled every 4096 recursive calls; once it
    /// returns `true` the running operation unwinds, returning `EMPTY` (a meaningless result)
    /// and caching nothing more, and every later operation does the same until
    /// [`RelAlg::take_stopped`] is called.
    pub fn set_poll(&mut self, poll: Option<Poll>) {
        self.poll = poll;
    }

    /// Was an operation stopped by the check since the last call? Clears the flag.
    pub fn take_stopped(&mut self) -> bool {
        std::mem::take(&mut self.stopped)
    }

    /// Count a recursive call; `true` once the check has stopped the operation.
    #[inline]
    fn halted(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.steps += 1;
        if self.steps & 0xfff == 0 {
            if let Some(p) = self.poll.as_mut() {
                self.stopped = p();
            }
        }
        self.stopped
    }

    /// Hits and misses per cache: `(name, hits, misses)`.
    pub fn cache_stats(&self) -> [(&'static str, u64, u64); 9] {
        [
            ("compose", self.compose.hits, self.compose.misses),
            ("transpose", self.transpose.hits, self.transpose.misses),
            (
                "restrict_from",
                self.restrict_from.hits,
                self.restrict_from.misses,
            ),
            (
                "restrict_to",
                self.restrict_to.hits,
                self.restrict_to.misses,
            ),
            ("diagonal", self.diagonal.hits, self.diagonal.misses),
            ("domain", self.domain.hits, self.domain.misses),
            ("range", self.range.hits, self.range.misses),
            ("identity", self.identity.hits, self.identity.misses),
            ("cross", self.cross.hits, self.cross.misses),
        ]
    }

    /// Bytes held by the caches.
    pub fn bytes(&self) -> usize {
        self.compose.bytes()
            + self.transpose.bytes()
            + self.restrict_from.bytes()
            + self.restrict_to.bytes()
            + self.diagonal.bytes()
            + self.domain.bytes()
            + self.range.bytes()
            + self.identity.bytes()
            + self.cross.bytes()
    }

    /// Clear every cache (they are also cleared automatically, see the module documentation).
    pub fn clear(&mut self) {
        self.clear_mixed();
        self.compose.clear();
        self.transpose.clear();
    }

    /// Clear the caches whose entries hold nodes of both forests.
    fn clear_mixed(&mut self) {
        self.restrict_from.clear();
        self.restrict_to.clear();
        self.diagonal.clear();
        self.domain.clear();
        self.range.clear();
        self.identity.clear();
        self.cross.clear();
    }

    /// Check the forests' shapes and invalidate stale caches before a top-level operation.
    fn sync(&mut self, rels: &Forest, sets: Option<&Forest>) {
        assert!(
            rels.reduction() == Reduction::Identity
                && crate::relation::is_unprimed(rels.num_levels()),
            "relation algebra needs an identity-reduced relation forest of 2K levels"
        );
        if self.rels_seen.changed(rels) {
            self.clear();
        }
        if let Some(sets) = sets {
            assert!(
                sets.reduction() != Reduction::Identity
                    && 2 * sets.num_levels() == rels.num_levels(),
                "relation algebra needs a set forest of K levels beside the relation forest"
            );
            if self.sets_seen.changed(sets) {
                self.clear_mixed();
            }
        }
    }
}

impl Purge for RelAlg {
    /// The context's one rule: drop the entries that mention a freed node (relation nodes in
    /// `live.rel`, set nodes in `live.set`); the caches are then valid for the forests as
    /// they are now, so the epoch fallback does not clear them again.
    fn purge(&mut self, live: &Live<'_>) {
        let (r, s) = (|n: NodeId| live.rel(n), |n: NodeId| live.set(n));
        self.compose.retain(|k, v| r(k.0) && r(k.1) && r(*v));
        self.transpose.retain(|k, v| r(*k) && r(*v));
        self.restrict_from.retain(|k, v| r(k.0) && s(k.1) && r(*v));
        self.restrict_to.retain(|k, v| r(k.0) && s(k.1) && r(*v));
        self.diagonal.retain(|k, v| r(k.0) && s(*v));
        self.domain.retain(|k, v| r(k.0) && s(*v));
        self.range.retain(|k, v| r(k.0) && s(*v));
        self.identity.retain(|k, v| s(*k) && r(*v));
        self.cross.retain(|k, v| s(k.0) && s(k.1) && r(*v));
        if self.rels_seen.epoch.is_some() {
            self.rels_seen.epoch = Some(live.rels_forest().epoch());
        }
        if self.sets_seen.epoch.is_some() {
            self.sets_seen.epoch = Some(live.sets_forest().epoch());
        }
    }
}

/// The domain size of variable `k` as both forests know it.
#[inline]
fn var_domain(sets: &Forest, rels: &Forest, k: usize) -> u32 {
    sets.domain(k).max(rels.domain(2 * k))
}

/// The child of set node `s` at index `i` of level `k`: a node below `k` (fully-reduced forests)
/// is redundant there and is its own child at every index of the domain `dom`.
#[inline]
fn set_child(sets: &Forest, s: NodeId, k: usize, i: u32, dom: u32) -> NodeId {
    if sets.level(s) < k {
        if i < dom {
            s
        } else {
            NodeId::EMPTY
        }
    } else {
        sets.child_at(s, k, i)
    }
}
