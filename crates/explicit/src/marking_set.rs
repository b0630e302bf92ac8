//! A set of markings numbered in the order they were added, for searches other than this
//! crate's breadth-first ones (the formula examinations' on-the-fly CTL search builds its
//! graph in it). Each marking is stored as its marked places, the sparse search's records
//! ([`crate::sparse`]): no width to choose, no bound needed, and a marking of a net with a
//! thousand places and a few tokens takes a few dozen bytes instead of eight thousand.

use crate::bytes_store::{hash_bytes, BytesStore};
use crate::sparse::{decode, encode, marked};
use crate::GaveUp;

/// Markings numbered from 0 in the order added, within a budget of bytes.
pub struct MarkingSet {
    store: BytesStore,
    rec: Vec<u8>,
    nz: Vec<(u32, u64)>,
}

impl MarkingSet {
    /// An empty set that never holds more than `max_bytes` (its records and its table).
    pub fn new(max_bytes: usize) -> MarkingSet {
        MarkingSet {
            store: BytesStore::new(max_bytes),
            rec: Vec::new(),
            nz: Vec::new(),
        }
    }

    /// The markings held.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of `m`, added when new (the next number); an error when it is new and the
    /// set is full ([`GaveUp::Memory`], [`GaveUp::TooManyStates`]), nothing added then.
    pub fn insert(&mut self, m: &[u64]) -> Result<u32, GaveUp> {
        self.rec.clear();
        encode(marked(m), &mut self.rec);
        let (i, _) = self.store.add(&self.rec, hash_bytes(&self.rec))?;
        Ok(i as u32)
    }

    /// The number of `m`, if it is in the set.
    pub fn find(&mut self, m: &[u64]) -> Option<u32> {
        self.rec.clear();
        encode(marked(m), &mut self.rec);
        self.store
            .find(&self.rec, hash_bytes(&self.rec))
            .map(|i| i as u32)
    }

    /// Marking `i` into `out` (`places` counts).
    ///
    /// # Panics
    /// When `i` is not a number this set gave.
    pub fn get(&mut self, i: u32, places: usize, out: &mut Vec<u64>) {
        decode(self.store.get(i as usize), &mut self.nz);
        out.clear();
        out.resize(places, 0);
        for &(p, v) in &self.nz {
            out[p as usize] = v;
        }
    }

    /// Bytes held (records and table).
    pub fn bytes(&self) -> usize {
        self.store.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markings_are_numbered_in_order_and_read_back() {
        let mut s = MarkingSet::new(usize::MAX);
        let ms: Vec<Vec<u64>> = (0..5000u64)
            .map(|i| vec![i % 3, 0, i / 7, u64::MAX - i % 2, 0])
            .collect();
        let mut want = std::collections::HashMap::new();
        for m in &ms {
            let next = want.len() as u32;
            let i = *want.entry(m.clone()).or_insert(next);
            assert_eq!(s.insert(m), Ok(i));
        }
        assert_eq!(s.len(), want.len());
        let mut out = Vec::new();
        for (m, &i) in &want {
            s.get(i, 5, &mut out);
            assert_eq!(&out, m);
        }
        let n = s.len() as u32;
        assert_eq!(s.find(&[0; 5]), None);
        assert_eq!(s.insert(&[0; 5]), Ok(n), "the empty marking is new");
        assert_eq!(s.find(&[0; 5]), Some(n));
        assert_eq!(s.find(&ms[7]), Some(want[&ms[7]]));
    }

    #[test]
    fn a_full_set_refuses_new_markings_and_keeps_the_old() {
        let mut s = MarkingSet::new(64 << 10);
        let mut n = 0u64;
        let err = loop {
            match s.insert(&[n, 1]) {
                Ok(i) => assert_eq!(u64::from(i), n),
                Err(e) => break e,
            }
            n += 1;
        };
        assert!(matches!(err, GaveUp::Memory { .. }));
        assert!(s.bytes() <= 64 << 10);
        assert_eq!(s.insert(&[0, 1]), Ok(0), "an old marking is still found");
        assert_eq!(s.len() as u64, n);
    }
}
