//! The set of markings found so far: packed markings of one size side by side in one array, in
//! the order they were found (so the array is also the breadth-first queue), and a hash table
//! of their indices.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

#[inline]
fn hash(rec: &[u64]) -> u64 {
    FxBuildHasher.hash_one(rec)
}

/// Packed markings of `words` words each, numbered in the order they were added.
pub(crate) struct Store {
    words: usize,
    len: usize,
    arena: Vec<u64>,
    table: HashTable<u32>,
}

impl Store {
    pub(crate) fn new(words: usize) -> Store {
        Store {
            words,
            len: 0,
            arena: Vec::new(),
            table: HashTable::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Marking `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[u64] {
        &self.arena[i * self.words..(i + 1) * self.words]
    }

    /// Add `rec` unless it is there: `Some(true)` when added, `Some(false)` when it was there,
    /// `None` when the store is full (indices are 32 bits).
    pub(crate) fn insert(&mut self, rec: &[u64]) -> Option<bool> {
        debug_assert_eq!(rec.len(), self.words);
        let h = hash(rec);
        let (arena, w) = (&self.arena, self.words);
        if self
            .table
            .find(h, |&i| &arena[i as usize * w..(i as usize + 1) * w] == rec)
            .is_some()
        {
            return Some(false);
        }
        let idx = u32::try_from(self.len).ok().filter(|&i| i < u32::MAX)?;
        self.arena.extend_from_slice(rec);
        self.len += 1;
        let arena = &self.arena;
        self.table.insert_unique(h, idx, |&i| {
            hash(&arena[i as usize * w..(i as usize + 1) * w])
        });
        Some(true)
    }

    /// Bytes held (array and table, by capacity).
    pub(crate) fn bytes(&self) -> usize {
        self.arena.capacity() * 8 + self.table.capacity() * (std::mem::size_of::<u32>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_of_records_in_insertion_order() {
        let mut s = Store::new(2);
        assert_eq!(s.insert(&[1, 2]), Some(true));
        assert_eq!(s.insert(&[2, 1]), Some(true));
        assert_eq!(s.insert(&[1, 2]), Some(false));
        for i in 0..1000u64 {
            assert_eq!(s.insert(&[i, i * 7]), Some(true));
        }
        assert_eq!(s.get(0), &[1, 2]);
        assert_eq!(s.get(1), &[2, 1]);
        assert_eq!(s.get(2), &[0, 0]);
        assert_eq!(s.len(), 1002);
        assert!(s.bytes() >= 1002 * 16);
        // zero-word records: one marking only
        let mut z = Store::new(0);
        assert_eq!(z.insert(&[]), Some(true));
        assert_eq!(z.insert(&[]), Some(false));
        assert_eq!(z.len(), 1);
    }
}
