//! The set of markings found so far: packed markings of one size side by side in one array, in
//! the order they were found (so the array is also the breadth-first queue), and a
//! [`Table`] of their indices. Lookups come in batches (the successors of one marking,
//! [`Store::touch`] then [`Store::insert`]).

use crate::table::Table;
use crate::GaveUp;
use saturn_dd::huge_pages;

/// The hash of a packed marking (64 bits; the table index comes from the high bits and the
/// tag kept in the slot from the low ones, so the two are independent).
#[inline]
pub(crate) fn hash(rec: &[u64]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = rec.len() as u64;
    for &w in rec {
        h = (h.rotate_left(23) ^ w).wrapping_mul(K);
    }
    h ^ (h >> 31)
}

/// Packed markings of `words` words each, numbered in the order they were added.
pub(crate) struct Store {
    /// No growth of the array or the table past this many bytes in all.
    max_bytes: usize,
    words: usize,
    len: usize,
    arena: Vec<u64>,
    table: Table,
}

impl Store {
    pub(crate) fn new(words: usize, max_bytes: usize) -> Store {
        Store {
            max_bytes,
            words,
            len: 0,
            arena: Vec::new(),
            table: Table::new(),
        }
    }

    /// The same store with another budget.
    pub(crate) fn with_budget(self, max_bytes: usize) -> Store {
        Store { max_bytes, ..self }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Marking `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[u64] {
        &self.arena[i * self.words..(i + 1) * self.words]
    }

    /// Ask for the table slot of a marking of hash `h` ahead of [`Store::insert`] (a hint).
    #[inline]
    pub(crate) fn touch(&self, h: u64) {
        self.table.touch(h);
    }

    /// Add `rec` (of hash `h`) unless it is there: `Ok(true)` when added, `Ok(false)` when it
    /// was there; an error when the store is full (indices are 32 bits) or would outgrow its
    /// bytes (checked before the array or the table grows, so the budget holds at the peak,
    /// while a table is rebuilt too).
    pub(crate) fn insert(&mut self, rec: &[u64], h: u64) -> Result<bool, GaveUp> {
        debug_assert_eq!(rec.len(), self.words);
        let slot = match self.table.find(h, |k| self.get(k) == rec) {
            Ok(_) => return Ok(false),
            Err(slot) => slot,
        };
        let idx = u32::try_from(self.len + 1)
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(GaveUp::TooManyStates)?;
        let cap = self.arena.capacity();
        let grows_table = self.table.full_at(self.len + 1);
        let arena_after = if self.arena.len() + self.words > cap {
            (2 * cap).max(self.arena.len() + self.words)
        } else {
            cap
        };
        let table_after = self.table.slots(grows_table);
        if (arena_after + table_after) * 8 > self.max_bytes {
            return Err(GaveUp::Memory {
                max_bytes: self.max_bytes,
            });
        }
        self.arena.extend_from_slice(rec);
        if self.arena.capacity() != cap {
            huge_pages(&self.arena, self.arena.capacity());
        }
        self.table.set(slot, h, idx - 1);
        self.len += 1;
        if grows_table {
            let (arena, words) = (&self.arena, self.words);
            self.table
                .grow(self.len, |k| hash(&arena[k * words..(k + 1) * words]));
        }
        Ok(true)
    }

    /// Bytes held (array and table, by capacity).
    pub(crate) fn bytes(&self) -> usize {
        (self.arena.capacity() + self.table.slots(false)) * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(s: &mut Store, rec: &[u64]) -> Result<bool, GaveUp> {
        s.insert(rec, hash(rec))
    }

    #[test]
    fn a_set_of_records_in_insertion_order() {
        let mut s = Store::new(2, usize::MAX);
        assert_eq!(add(&mut s, &[1, 2]), Ok(true));
        assert_eq!(add(&mut s, &[2, 1]), Ok(true));
        assert_eq!(add(&mut s, &[1, 2]), Ok(false));
        // enough to grow the table several times; then every record is found again
        for i in 0..100_000u64 {
            assert_eq!(add(&mut s, &[i, i * 7]), Ok(true));
        }
        for i in 0..100_000u64 {
            assert_eq!(add(&mut s, &[i, i * 7]), Ok(false));
        }
        assert_eq!(s.get(0), &[1, 2]);
        assert_eq!(s.get(1), &[2, 1]);
        assert_eq!(s.get(2), &[0, 0]);
        assert_eq!(s.get(100_001), &[99_999, 99_999 * 7]);
        assert_eq!(s.len(), 100_002);
        assert!(s.bytes() >= 100_002 * 16);
        // records whose hashes share a home slot (a tiny table) are still told apart
        let mut z = Store::new(0, usize::MAX);
        assert_eq!(add(&mut z, &[]), Ok(true));
        assert_eq!(add(&mut z, &[]), Ok(false));
        assert_eq!(z.len(), 1);
        let mut c = Store::new(1, usize::MAX);
        for i in 0..50u64 {
            assert_eq!(c.insert(&[i], 7), Ok(true), "same hash, other record");
        }
        for i in 0..50u64 {
            assert_eq!(c.insert(&[i], 7), Ok(false));
        }
    }

    #[test]
    fn the_budget_holds_before_anything_grows() {
        let max = 64 << 10;
        let mut s = Store::new(1, max);
        let mut added = 0u64;
        let err = loop {
            match add(&mut s, &[added]) {
                Ok(true) => added += 1,
                Ok(false) => unreachable!("distinct records"),
                Err(e) => break e,
            }
            assert!(s.bytes() <= max, "{} bytes", s.bytes());
        };
        assert_eq!(err, GaveUp::Memory { max_bytes: max });
        assert!(added > 1000);
    }
}
