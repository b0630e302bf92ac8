//! A typed, direct-mapped, overwritable compute cache.

use std::hash::{Hash, Hasher};

/// Direct-mapped cache: each key hashes to one slot; a newer entry overwrites an older one.
/// Lookups are one hash and one comparison. Sized to a power of two; it doubles by itself when
/// it has evicted as many live entries as it has slots (up to [`Cache::MAX_SLOTS`]), and
/// [`Cache::grow_to`] lets the owner grow it too.
pub struct Cache<K: Copy + Eq + Hash, V: Copy> {
    slots: Vec<Option<(K, V)>>,
    mask: usize,
    evictions: usize,
    pub hits: u64,
    pub misses: u64,
}

impl<K: Copy + Eq + Hash, V: Copy> Cache<K, V> {
    /// The size past which a cache stops growing by itself (entries).
    pub const MAX_SLOTS: usize = 1 << 23;

    /// A cache with `1 << log2` slots.
    pub fn new(log2: u32) -> Self {
        let n = 1usize << log2;
        Cache {
            slots: vec![None; n],
            mask: n - 1,
            evictions: 0,
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

    #[inline]
    pub fn get(&mut self, k: K) -> Option<V> {
        let s = self.slot(&k);
        match self.slots[s] {
            Some((kk, v)) if kk == k => {
                self.hits += 1;
                Some(v)
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    #[inline]
    pub fn insert(&mut self, k: K, v: V) {
        let s = self.slot(&k);
        if let Some((old, _)) = &self.slots[s] {
            if *old != k {
                self.evictions += 1;
                if self.evictions > self.slots.len() && self.slots.len() < Self::MAX_SLOTS {
                    self.grow_to(self.slots.len() * 2);
                    let s = self.slot(&k);
                    self.slots[s] = Some((k, v));
                    return;
                }
            }
        }
        self.slots[s] = Some((k, v));
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }

    /// Drop every entry for which `keep` is false.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) {
        for s in self.slots.iter_mut() {
            if let Some((k, v)) = s {
                if !keep(k, v) {
                    *s = None;
                }
            }
        }
    }

    pub fn len_slots(&self) -> usize {
        self.slots.len()
    }

    /// Grow to at least `n` slots (rounded up to a power of two); entries are rehashed.
    pub fn grow_to(&mut self, n: usize) {
        let n = n.next_power_of_two();
        if n <= self.slots.len() {
            return;
        }
        let old = std::mem::replace(&mut self.slots, vec![None; n]);
        self.mask = n - 1;
        self.evictions = 0;
        for (k, v) in old.into_iter().flatten() {
            self.insert(k, v);
        }
    }

    /// Bytes held by the slot array.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Option<(K, V)>>()
    }
}
