//! The engine's compute caches, registered with the [`Dd`](saturn_dd::Dd) context as one
//! group and purged by the context's one rule ([`Purge`]).

use saturn_dd::{Cache, Live, NodeId, Purge};

/// Every compute cache of one [`Reach`](super::Reach). Keys name set-forest nodes, except the
/// relation node (`r`) of the relation-MDD firings.
pub(super) struct EngineCaches {
    /// Saturate: `s -> saturated s`.
    pub(super) sat: Cache<NodeId, NodeId>,
    /// RelProdSat with an implicit event: `(event, q) -> result`.
    pub(super) fire: Cache<(u32, NodeId), NodeId>,
    /// RelProdSat with a relation node: `(r, q) -> result`.
    pub(super) fire_rel: Cache<(NodeId, NodeId), NodeId>,
    /// ConsSaturate: `(a, s) -> result`.
    pub(super) csat: Cache<(NodeId, NodeId), NodeId>,
    /// ConsRelProd with an implicit event: `(event, a, q) -> result`.
    pub(super) cfire: Cache<(u32, NodeId, NodeId), NodeId>,
    /// ConsRelProd with a relation node: `(r, a, q) -> result`.
    pub(super) cfire_rel: Cache<(NodeId, NodeId, NodeId), NodeId>,
    /// BFS: the image of `q` under one event, `(event, q)`.
    pub(super) img: Cache<(u32, NodeId), NodeId>,
    /// BFS: the image of `q` under every event with Top at or below its level.
    pub(super) img_all: Cache<NodeId, NodeId>,
    /// See [`EngineCaches::len_slots`].
    ahead: usize,
}

impl EngineCaches {
    pub(super) fn new() -> EngineCaches {
        EngineCaches {
            sat: Cache::new(12),
            fire: Cache::new(12),
            fire_rel: Cache::new(12),
            csat: Cache::new(12),
            cfire: Cache::new(12),
            cfire_rel: Cache::new(12),
            img: Cache::new(12),
            img_all: Cache::new(12),
            ahead: 1 << 12,
        }
    }

    /// Grow every cache in use ahead to `n` slots ([`Cache::grow_ahead`]).
    pub(super) fn grow_ahead(&mut self, n: usize) {
        self.ahead = self.ahead.max(n.next_power_of_two());
        self.sat.grow_ahead(n);
        self.fire.grow_ahead(n);
        self.fire_rel.grow_ahead(n);
        self.csat.grow_ahead(n);
        self.cfire.grow_ahead(n);
        self.cfire_rel.grow_ahead(n);
        self.img.grow_ahead(n);
        self.img_all.grow_ahead(n);
    }

    /// Limit every cache's growth on evictions to `n` slots.
    pub(super) fn set_ceiling(&mut self, n: usize) {
        self.sat.set_ceiling(n);
        self.fire.set_ceiling(n);
        self.fire_rel.set_ceiling(n);
        self.csat.set_ceiling(n);
        self.cfire.set_ceiling(n);
        self.cfire_rel.set_ceiling(n);
        self.img.set_ceiling(n);
        self.img_all.set_ceiling(n);
    }

    /// Drop every entry (the engine turned around: its results changed meaning).
    pub(super) fn clear(&mut self) {
        self.sat.clear();
        self.fire.clear();
        self.fire_rel.clear();
        self.csat.clear();
        self.cfire.clear();
        self.cfire_rel.clear();
        self.img.clear();
        self.img_all.clear();
    }

    /// The size the caches were last grown ahead to (those in use hold at least this many
    /// slots, or twice their entries).
    pub(super) fn len_slots(&self) -> usize {
        self.ahead
    }

    /// Each used cache's name, slots, hits and misses (for `SATURN_STATS`).
    pub(super) fn breakdown(&self) -> String {
        fn one<K: saturn_dd::CacheKey, V: Copy + Default>(
            out: &mut Vec<String>,
            name: &str,
            c: &Cache<K, V>,
        ) {
            if c.used() {
                out.push(format!(
                    "{name} {} slots {:.1} MiB {} hits {} misses",
                    c.len_slots(),
                    c.bytes() as f64 / 1048576.0,
                    c.hits,
                    c.misses
                ));
            }
        }
        let mut out = Vec::new();
        one(&mut out, "sat", &self.sat);
        one(&mut out, "fire", &self.fire);
        one(&mut out, "fire_rel", &self.fire_rel);
        one(&mut out, "csat", &self.csat);
        one(&mut out, "cfire", &self.cfire);
        one(&mut out, "cfire_rel", &self.cfire_rel);
        one(&mut out, "img", &self.img);
        one(&mut out, "img_all", &self.img_all);
        out.join(", ")
    }

    pub(super) fn bytes(&self) -> usize {
        self.sat.bytes()
            + self.fire.bytes()
            + self.fire_rel.bytes()
            + self.csat.bytes()
            + self.cfire.bytes()
            + self.cfire_rel.bytes()
            + self.img.bytes()
            + self.img_all.bytes()
    }
}

impl Purge for EngineCaches {
    fn purge(&mut self, live: &Live<'_>) {
        let s = |n: &NodeId| live.set(*n);
        self.sat.purge(live);
        self.fire.purge(live);
        self.csat.purge(live);
        self.cfire.purge(live);
        self.img.purge(live);
        self.img_all.purge(live);
        self.fire_rel
            .retain(|k, v| live.rel(k.0) && s(&k.1) && s(v));
        self.cfire_rel
            .retain(|k, v| live.rel(k.0) && s(&k.1) && s(&k.2) && s(v));
    }
}
