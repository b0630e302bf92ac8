//! A typed, direct-mapped, overwritable compute cache.

use std::hash::{Hash, Hasher};

use crate::NodeId;

/// A cache key type with a reserved value that no real key takes (the mark of an empty slot).
/// Slots then need no separate tag: an entry `(NodeId, NodeId) -> NodeId` takes 12 bytes,
/// not 16.
pub trait CacheKey: Copy + Eq + Hash {
    const VACANT: Self;
}

impl CacheKey for NodeId {
    /// No forest ever holds `u32::MAX` nodes (ids are allocated densely from 0).
    const VACANT: NodeId = NodeId(u32::MAX);
}
impl CacheKey for u32 {
    const VACANT: u32 = u32::MAX;
}
impl CacheKey for u64 {
    const VACANT: u64 = u64::MAX;
}
impl<A: CacheKey, B: CacheKey> CacheKey for (A, B) {
    const VACANT: (A, B) = (A::VACANT, B::VACANT);
}
impl<A: CacheKey, B: CacheKey, C: CacheKey> CacheKey for (A, B, C) {
    const VACANT: (A, B, C) = (A::VACANT, B::VACANT, C::VACANT);
}

/// Two-way set-associative cache: each key hashes to a set of two adjacent slots; a new entry
/// replaces the older of the two. Lookups are one hash and at most two comparisons. Sized to a power of two. The slot array is
/// allocated on first insertion (an unused operation costs nothing). It doubles by itself when
/// it has evicted as many live entries as it has slots and been looked up more often than it
/// has slots, up to a ceiling the owner sets with
/// [`Cache::set_ceiling`] (default [`Cache::MAX_SLOTS`]); [`Cache::grow_to`] grows it
/// explicitly.
pub struct Cache<K: CacheKey, V: Copy + Default> {
    slots: Vec<(K, V)>,
    /// Slot count once allocated (a power of two).
    size: usize,
    mask: usize,
    evictions: usize,
    /// Entries stored since creation (an upper bound on the entries it could hold).
    stored: usize,
    ceiling: usize,
    pub hits: u64,
    pub misses: u64,
}

impl<K: CacheKey, V: Copy + Default> Cache<K, V> {
    /// The size past which a cache stops growing by itself (entries).
    pub const MAX_SLOTS: usize = 1 << 23;

    /// The size from which the slot array grows in place (see [`Cache::grow_to`]).
    const GROW_IN_PLACE_BYTES: usize = 1 << 20;

    /// A cache of `1 << log2` slots (allocated when first used).
    pub fn new(log2: u32) -> Self {
        let n = 1usize << log2.max(1);
        Cache {
            slots: Vec::new(),
            size: n,
            mask: n - 1,
            evictions: 0,
            stored: 0,
            ceiling: Self::MAX_SLOTS,
            hits: 0,
            misses: 0,
        }
    }

    #[inline]
    fn slot(&self, k: &K) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        k.hash(&mut h);
        let x = h.finish();
        // fold the high bits in: FxHash's low bits are weak for small integer keys
        ((x ^ (x >> 29) ^ (x >> 41)) as usize) & self.mask
    }

    /// Lookups probe the two slots of the key's set (two-way set-associative; the first slot
    /// holds the more recent entry).
    #[inline]
    pub fn get(&mut self, k: K) -> Option<V> {
        if !self.slots.is_empty() {
            let s = self.slot(&k);
            let (k0, v0) = self.slots[s];
            if k0 == k {
                self.hits += 1;
                return Some(v0);
            }
            let (k1, v1) = self.slots[s ^ 1];
            if k1 == k {
                self.hits += 1;
                return Some(v1);
            }
        }
        self.misses += 1;
        None
    }

    /// Ask for the cache line of `k`'s set ahead of a [`Cache::get`] (a hint: nothing is read).
    /// A lookup in a large cache is a miss to memory; asked a few keys ahead, the misses of a
    /// loop of lookups overlap.
    #[inline]
    pub fn prefetch(&self, k: K) {
        if self.slots.is_empty() {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.slots[self.slot(&k) & !1..].as_ptr();
            // SAFETY: a prefetch is a hint that never faults and changes no memory; `p` points
            // into the slot array (sse is part of every x86_64 target).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = k;
    }

    #[inline]
    pub fn insert(&mut self, k: K, v: V) {
        debug_assert!(k != K::VACANT, "the vacant key cannot be cached");
        self.stored += 1;
        if self.slots.is_empty() {
            self.slots = Self::fresh(self.size);
        }
        let s = self.slot(&k);
        let first = self.slots[s].0;
        if first == k || first == K::VACANT {
            self.slots[s] = (k, v);
            return;
        }
        let second = self.slots[s ^ 1].0;
        if second == k {
            self.slots[s ^ 1] = (k, v);
            return;
        }
        if second != K::VACANT {
            self.evictions += 1;
            if self.evictions > self.size && self.size < self.ceiling && self.consulted() {
                self.grow_to(self.size * 2);
                self.insert(k, v);
                return;
            }
        }
        // the older entry of the set goes; the newer moves to the second slot
        self.slots[s ^ 1] = self.slots[s];
        self.slots[s] = (k, v);
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| s.0 = K::VACANT);
    }

    /// Drop every entry for which `keep` is false.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        for s in self.slots.iter_mut() {
            if s.0 != K::VACANT && !keep(&s.0, &s.1) {
                s.0 = K::VACANT;
            }
        }
    }

    /// The number of slots (allocated or to be allocated on first use).
    pub fn len_slots(&self) -> usize {
        self.size
    }

    /// Has anything been looked up or stored?
    pub fn used(&self) -> bool {
        !self.slots.is_empty() || self.misses > 0
    }

    /// Limit growth on evictions to `n` slots (rounded up to a power of two; at least the
    /// current size). Explicit [`Cache::grow_to`] is not limited.
    pub fn set_ceiling(&mut self, n: usize) {
        self.ceiling = n
            .checked_next_power_of_two()
            .unwrap_or(Self::MAX_SLOTS)
            .min(Self::MAX_SLOTS)
            .max(self.size);
    }

    /// Grow ahead of need to `n` slots, but no further than twice the entries both stored and
    /// looked up so far (rounded up to a power of two): an owner sizing all its caches to the
    /// forest grows only those in use. Saturation's cache of saturated nodes is written for
    /// every node saturation builds and never hits on the foundation table; grown with the
    /// others it held 0.5 MiB on kanban N=200, 2 on kanban N=400 and 4 on slotted ring N=50,
    /// all of it resident (the slots are written vacant). Evictions still grow a cache that is
    /// looked up (see [`Cache::insert`]).
    pub fn grow_ahead(&mut self, n: usize) {
        let lookups = usize::try_from(self.hits + self.misses).unwrap_or(usize::MAX);
        let used = self.stored.min(lookups).saturating_mul(2);
        self.grow_to(n.min(used.checked_next_power_of_two().unwrap_or(usize::MAX)));
    }

    /// Has it been looked up more often than it has slots? A cache that stores more than it is
    /// asked (saturation records every node it builds as saturated, in case it is saturated
    /// again) gains nothing from slots its lookups could never hit.
    #[inline]
    fn consulted(&self) -> bool {
        self.hits + self.misses > self.size as u64
    }

    /// Grow to at least `n` slots (rounded up to a power of two); entries are kept.
    ///
    /// A large array grows in place: it is extended (a mapped block is remapped, not copied)
    /// and each entry whose slot gains a high bit moves to that slot's pair, at the same place
    /// within it (entries of one old pair go to one new pair, so nothing collides and the
    /// newer entry stays first); the old and new arrays are never held at once (on
    /// philosophers N=10000 that copy was the peak of the heap, 3 MiB over the caches' size).
    /// A small one is copied into a fresh array, placed as any new block: grown in place
    /// inside the heap it left holes behind (kanban N=200: 0.4 MiB more resident).
    pub fn grow_to(&mut self, n: usize) {
        let n = n.next_power_of_two();
        if n <= self.size {
            return;
        }
        let old = self.size;
        self.size = n;
        self.mask = n - 1;
        self.evictions = 0;
        if self.slots.is_empty() {
            return;
        }
        if old * std::mem::size_of::<(K, V)>() < Self::GROW_IN_PLACE_BYTES {
            let mut fresh = Self::fresh(n);
            fresh[..old].copy_from_slice(&self.slots);
            self.slots = fresh;
        } else {
            self.slots.reserve_exact(n - old);
            crate::huge_pages(&self.slots, self.slots.capacity());
            self.slots.resize(n, (K::VACANT, V::default()));
        }
        for s in 0..old {
            let (k, v) = self.slots[s];
            if k == K::VACANT {
                continue;
            }
            let to = (self.slot(&k) & !1) | (s & 1);
            if to != s {
                self.slots[to] = (k, v);
                self.slots[s].0 = K::VACANT;
            }
        }
    }

    /// `n` vacant slots, on huge pages when large (see [`crate::huge_pages`]).
    fn fresh(n: usize) -> Vec<(K, V)> {
        let mut v = Vec::with_capacity(n);
        crate::huge_pages(&v, n);
        v.resize(n, (K::VACANT, V::default()));
        v
    }

    /// Bytes held by the slot array.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<(K, V)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_compact() {
        assert_eq!(std::mem::size_of::<((NodeId, NodeId), NodeId)>(), 12);
        assert_eq!(std::mem::size_of::<(NodeId, NodeId)>(), 8);
    }

    #[test]
    fn behaves_as_a_lossy_map() {
        let mut c: Cache<(u32, NodeId), NodeId> = Cache::new(4);
        assert_eq!(c.bytes(), 0, "nothing allocated before first use");
        assert_eq!(c.get((1, NodeId(5))), None);
        let mut model = std::collections::HashMap::new();
        for i in 0..1000u32 {
            let k = (i % 7, NodeId(i % 97));
            // as the operations use it: a lookup, then the result stored
            let _ = c.get(k);
            c.insert(k, NodeId(i));
            model.insert(k, NodeId(i));
        }
        // every hit agrees with the last value stored under that key
        let mut hits = 0;
        for (k, v) in &model {
            if let Some(got) = c.get(*k) {
                assert_eq!(got, *v);
                hits += 1;
            }
        }
        assert!(hits > 0);
        // it grew by itself on evictions
        assert!(c.len_slots() > 16);
        c.retain(|k, _| k.0 != 3);
        assert!(model
            .keys()
            .filter(|k| k.0 == 3)
            .all(|k| c.get(*k).is_none()));
        c.clear();
        assert!(model.keys().all(|k| c.get(*k).is_none()));
    }

    #[test]
    fn growth_keeps_every_entry_where_lookups_find_it() {
        let mut c: Cache<(u32, NodeId), NodeId> = Cache::new(6);
        c.set_ceiling(64);
        let keys: Vec<(u32, NodeId)> = (0..5000u32).map(|i| (i % 13, NodeId(i))).collect();
        for &k in &keys {
            c.insert(k, NodeId(k.1 .0 + 1));
        }
        let held: Vec<(u32, NodeId)> = keys
            .iter()
            .copied()
            .filter(|&k| c.get(k).is_some())
            .collect();
        assert!(
            held.len() > 32,
            "a full cache of 64 slots holds most of them"
        );
        // copied while small, then grown in place (from 1.5 MiB)
        for grow in [128, 1024, 1 << 17, 1 << 19] {
            c.grow_to(grow);
            assert_eq!(c.len_slots(), grow);
            for &k in &held {
                assert_eq!(
                    c.get(k),
                    Some(NodeId(k.1 .0 + 1)),
                    "{k:?} lost growing to {grow}"
                );
            }
        }
    }

    #[test]
    fn growing_ahead_stops_at_twice_what_was_stored_and_looked_up() {
        let mut c: Cache<NodeId, NodeId> = Cache::new(4);
        c.grow_ahead(1 << 12);
        assert_eq!(c.len_slots(), 16, "nothing stored: no growth");
        // stored but never looked up (as saturation records the nodes it built): no growth,
        // neither ahead nor on evictions
        for i in 0..5000u32 {
            c.insert(NodeId(i), NodeId(i));
        }
        assert_eq!(c.len_slots(), 16);
        c.grow_ahead(1 << 12);
        assert_eq!(c.len_slots(), 16);
        // 100 lookups: at most 256 slots
        for i in 0..100u32 {
            let _ = c.get(NodeId(i));
        }
        c.grow_ahead(1 << 12);
        assert_eq!(c.len_slots(), 256);
        // looked up and stored 5000 times: all that was asked
        for i in 0..4900u32 {
            let _ = c.get(NodeId(i));
        }
        c.grow_ahead(1 << 12);
        assert_eq!(c.len_slots(), 1 << 12);
    }

    #[test]
    fn a_cache_consulted_grows_on_evictions() {
        let mut c: Cache<NodeId, NodeId> = Cache::new(4);
        for i in 0..5000u32 {
            if c.get(NodeId(i)).is_none() {
                c.insert(NodeId(i), NodeId(i));
            }
        }
        assert!(c.len_slots() >= 1024, "{} slots", c.len_slots());
    }

    #[test]
    fn ceiling_stops_growth() {
        let mut c: Cache<NodeId, NodeId> = Cache::new(4);
        c.set_ceiling(32);
        for i in 0..10_000u32 {
            let _ = c.get(NodeId(i));
            c.insert(NodeId(i), NodeId(i));
        }
        assert_eq!(c.len_slots(), 32);
        c.grow_to(128);
        assert_eq!(c.len_slots(), 128);
    }
}
