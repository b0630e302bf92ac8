//! The set of markings of the sparse search ([`crate::sparse`]): byte records of any length
//! side by side in one array, in the order they were found (so the array is also the
//! breadth-first queue), the end of each record, and an open-addressing table of their indices.
//! The [`Table`] is [`crate::store::Store`]'s; lookups come in batches
//! ([`BytesStore::touch`] first).

use crate::table::Table;
use crate::GaveUp;

/// The hash of a byte record (64 bits; the table index comes from the high bits and the tag
/// kept in the slot from the low ones).
#[inline]
pub(crate) fn hash_bytes(rec: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = rec.len() as u64;
    let mut chunks = rec.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(23) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    h ^ (h >> 31)
}

/// The fewest bytes a stored record costs whatever its length: its end (8 bytes) and its share
/// of a table kept at most three quarters full (more than 10 bytes).
pub(crate) const RECORD_OVERHEAD: usize = 19;

pub(crate) struct BytesStore {
    /// No growth of the arrays or the table past this many bytes in all.
    max_bytes: usize,
    arena: Vec<u8>,
    ends: Vec<u64>,
    table: Table,
}

impl BytesStore {
    pub(crate) fn new(max_bytes: usize) -> BytesStore {
        BytesStore {
            max_bytes,
            arena: Vec::new(),
            ends: Vec::new(),
            table: Table::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Record `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.arena[start..self.ends[i] as usize]
    }

    /// Ask for the table slot of a record of hash `h` ahead of [`BytesStore::insert`] (a hint).
    #[inline]
    pub(crate) fn touch(&self, h: u64) {
        self.table.touch(h);
    }

    /// Add `rec` (of hash `h`) unless it is there: `Ok(true)` when added, `Ok(false)` when it
    /// was there; an error when the store is full (indices are 32 bits) or would outgrow its
    /// bytes (checked before anything grows, so the budget holds at the peak).
    pub(crate) fn insert(&mut self, rec: &[u8], h: u64) -> Result<bool, GaveUp> {
        self.add(rec, h).map(|(_, added)| added)
    }

    /// The index of `rec` (of hash `h`), if it is there.
    pub(crate) fn find(&self, rec: &[u8], h: u64) -> Option<usize> {
        self.table.find(h, |k| self.get(k) == rec).ok()
    }

    /// [`BytesStore::insert`] that also tells the record's index.
    pub(crate) fn add(&mut self, rec: &[u8], h: u64) -> Result<(usize, bool), GaveUp> {
        let slot = match self.table.find(h, |k| self.get(k) == rec) {
            Ok(k) => return Ok((k, false)),
            Err(slot) => slot,
        };
        let n = self.len();
        let idx = u32::try_from(n + 1)
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(GaveUp::TooManyStates)?;
        let grows_table = self.table.full_at(n + 1);
        let after = |len: usize, cap: usize, add: usize| {
            if len + add > cap {
                (2 * cap).max(len + add)
            } else {
                cap
            }
        };
        let arena_after = after(self.arena.len(), self.arena.capacity(), rec.len());
        let ends_after = after(n, self.ends.capacity(), 1);
        let table_after = self.table.slots(grows_table);
        if arena_after + (ends_after + table_after) * 8 > self.max_bytes {
            return Err(GaveUp::Memory {
                max_bytes: self.max_bytes,
            });
        }
        self.arena.extend_from_slice(rec);
        self.ends.push(self.arena.len() as u64);
        self.table.set(slot, h, idx - 1);
        if grows_table {
            let (arena, ends) = (&self.arena, &self.ends);
            self.table.grow(n + 1, |k| {
                let start = if k == 0 { 0 } else { ends[k - 1] as usize };
                hash_bytes(&arena[start..ends[k] as usize])
            });
        }
        Ok((n, true))
    }

    /// Bytes held (arrays and table, by capacity).
    pub(crate) fn bytes(&self) -> usize {
        self.arena.capacity() + (self.ends.capacity() + self.table.slots(false)) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(s: &mut BytesStore, rec: &[u8]) -> Result<bool, GaveUp> {
        s.insert(rec, hash_bytes(rec))
    }

    #[test]
    fn a_set_of_records_of_any_length_in_insertion_order() {
        let mut s = BytesStore::new(usize::MAX);
        assert_eq!(add(&mut s, &[]), Ok(true));
        assert_eq!(add(&mut s, &[]), Ok(false));
        assert_eq!(add(&mut s, &[0]), Ok(true));
        assert_eq!(add(&mut s, &[0, 0]), Ok(true), "a longer record is another");
        // four bytes naming i, then 0 to 3 zeros
        let rec = |i: u32| -> Vec<u8> {
            let mut r = i.to_le_bytes().to_vec();
            r.resize(4 + (i % 4) as usize, 0);
            r
        };
        for i in 1000..60_000u32 {
            assert_eq!(add(&mut s, &rec(i)), Ok(true), "{i}");
        }
        for i in 1000..60_000u32 {
            assert_eq!(add(&mut s, &rec(i)), Ok(false), "{i}");
        }
        assert_eq!(s.get(0), &[] as &[u8]);
        assert_eq!(s.get(2), &[0, 0]);
        assert_eq!(s.get(3), &rec(1000)[..]);
        assert_eq!(s.len(), 3 + 59_000);
        // the same hash for other records
        let mut c = BytesStore::new(usize::MAX);
        for i in 0..50u8 {
            assert_eq!(c.insert(&[i; 9], 7), Ok(true));
        }
        for i in 0..50u8 {
            assert_eq!(c.insert(&[i; 9], 7), Ok(false));
        }
    }

    #[test]
    fn the_budget_holds_before_anything_grows() {
        let max = 64 << 10;
        let mut s = BytesStore::new(max);
        let mut added = 0u32;
        let err = loop {
            match add(&mut s, &added.to_le_bytes()) {
                Ok(true) => added += 1,
                Ok(false) => unreachable!("distinct records"),
                Err(e) => break e,
            }
            assert!(s.bytes() <= max, "{} bytes", s.bytes());
        };
        assert_eq!(err, GaveUp::Memory { max_bytes: max });
        assert!(added as usize > max / (4 + 8 * 8));
    }
}
