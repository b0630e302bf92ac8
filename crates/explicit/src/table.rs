//! The open-addressing table of both stores ([`crate::store`], [`crate::bytes_store`]): a slot
//! holds 32 bits of a record's hash above its index + 1 (`0` is empty), so a probe reads the
//! records only when the hashes agree (almost always a true duplicate). Probing is linear, so
//! a miss costs about one cache line; lookups come in batches ([`Table::touch`] first), so the
//! cache misses of one marking's successors overlap instead of following each other.

use saturn_dd::huge_pages;

pub(crate) struct Table {
    slots: Vec<u64>,
    /// log2 of the table's size.
    bits: u32,
}

/// The table's initial log2 size.
const MIN_BITS: u32 = 10;

impl Table {
    pub(crate) fn new() -> Table {
        Table {
            slots: vec![0; 1 << MIN_BITS],
            bits: MIN_BITS,
        }
    }

    #[inline]
    fn home(&self, h: u64) -> usize {
        (h >> (64 - self.bits)) as usize
    }

    /// Ask for the cache line of the slot a record of hash `h` starts probing at (a hint:
    /// nothing is read).
    #[inline]
    pub(crate) fn touch(&self, h: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.slots[self.home(h)..].as_ptr();
            // SAFETY: a prefetch is a hint that never faults and changes no memory; `p` points
            // into the table (sse is part of every x86_64 target).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = h;
    }

    /// The record of hash `h` for which `same(index)` holds: `Ok(index)`, or `Err(slot)`, the
    /// free slot where it goes.
    #[inline]
    pub(crate) fn find(&self, h: u64, same: impl Fn(usize) -> bool) -> Result<usize, usize> {
        let tag = h << 32;
        let mask = self.slots.len() - 1;
        let mut i = self.home(h);
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if s & !0xffff_ffff == tag && same((s as u32 - 1) as usize) {
                return Ok((s as u32 - 1) as usize);
            }
            i = (i + 1) & mask;
        }
    }

    /// Record `index` (of hash `h`) goes in the free `slot` found by [`Table::find`].
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, h: u64, index: u32) {
        self.slots[slot] = (h << 32) | u64::from(index + 1);
    }

    /// Would holding `n` records make the table more than three quarters full?
    pub(crate) fn full_at(&self, n: usize) -> bool {
        4 * n > 3 * self.slots.len()
    }

    /// Slots held now, and while [`Table::grow`] runs (the old table and the new one).
    pub(crate) fn slots(&self, growing: bool) -> usize {
        self.slots.len() * if growing { 3 } else { 1 }
    }

    /// Double the table, placing records `0..n` anew (`hash(k)`: record `k`'s hash).
    pub(crate) fn grow(&mut self, n: usize, hash: impl Fn(usize) -> u64) {
        self.bits += 1;
        self.slots = vec![0; 1 << self.bits];
        huge_pages(&self.slots, self.slots.len());
        for k in 0..n {
            let h = hash(k);
            if let Err(slot) = self.find(h, |_| false) {
                self.set(slot, h, k as u32);
            }
        }
    }
}
