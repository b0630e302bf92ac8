//! The lexicographic index function of the reachable states (thesis Definitions 14-15), as the
//! explicit engine keeps it: a copy of the quasi-reduced reachable-set MDD in which each edge
//! carries the number of states under the smaller local values of its node (the EV+MDD's
//! edge values, Meddly's index sets). A state's index is the sum of the values along its path
//! (rank), and the state of an index is found by a binary search per level (unrank), so no
//! table of the states' tuples is kept: the memory is that of the diagram (a few KiB for the
//! reference models), not `levels * 4` bytes per state.

use rustc_hash::FxHashMap;
use saturn_dd::{Forest, NodeId};

/// No child at this local value.
const NONE: u32 = u32::MAX;
/// The terminal node (below the bottom level).
const TERMINAL: u32 = 0;

/// The index function of a set of tuples over `levels` levels (tuples top level first).
#[derive(Clone, Debug)]
pub struct StateIndex {
    levels: usize,
    root: u32,
    /// `start[v]..start[v + 1]`: the slots of node `v` (one per local value; node 0 is the
    /// terminal and has none).
    start: Vec<u32>,
    /// Per slot: the child (a node one level down, `TERMINAL` at the bottom) or `NONE`.
    child: Vec<u32>,
    /// Per slot: the number of states under the node's smaller local values.
    before: Vec<u64>,
    states: u64,
}

impl StateIndex {
    /// The index function of the tuples of `root`, a node of the quasi-reduced (or fully
    /// reduced) forest `sets` at level `levels`.
    pub fn new(sets: &Forest, root: NodeId, levels: usize) -> StateIndex {
        let mut ix = StateIndex {
            levels,
            root: NONE,
            start: vec![0],
            child: Vec::new(),
            before: Vec::new(),
            states: 0,
        };
        if !root.is_empty() {
            let mut memo = FxHashMap::default();
            let (r, n) = ix.copy(sets, levels, root, &mut memo);
            ix.root = r;
            ix.states = n;
        }
        ix.start.push(ix.child.len() as u32);
        ix
    }

    /// Copy node `n` seen at `level` (below it: redundant there) and what it reaches; its id
    /// and its number of states.
    fn copy(
        &mut self,
        sets: &Forest,
        level: usize,
        n: NodeId,
        memo: &mut FxHashMap<(usize, NodeId), (u32, u64)>,
    ) -> (u32, u64) {
        if level == 0 {
            return (TERMINAL, 1);
        }
        if let Some(&v) = memo.get(&(level, n)) {
            return v;
        }
        let mut kids: Vec<(u32, u64)> = Vec::new();
        if sets.level(n) == level {
            for e in sets.edges(n) {
                let k = e.idx as usize;
                if kids.len() <= k {
                    kids.resize(k + 1, (NONE, 0));
                }
                kids[k] = self.copy(sets, level - 1, e.child, memo);
            }
        } else {
            let c = self.copy(sets, level - 1, n, memo);
            kids = vec![c; sets.domain(level) as usize];
        }
        // the node's slots after its descendants' (post-order: contiguous per node)
        let id = self.start.len() as u32;
        self.start.push(self.child.len() as u32);
        let mut total = 0u64;
        for (c, count) in kids {
            self.child.push(c);
            self.before.push(total);
            total += count;
        }
        memo.insert((level, n), (id, total));
        (id, total)
    }

    /// Number of states.
    pub fn len(&self) -> u64 {
        self.states
    }

    pub fn is_empty(&self) -> bool {
        self.states == 0
    }

    fn slots(&self, v: u32) -> std::ops::Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }

    /// The index of the state with local values `tup` (top level first), or `None` when it is
    /// not in the set.
    pub fn rank(&self, tup: &[u32]) -> Option<u64> {
        let mut v = self.root;
        let mut idx = 0u64;
        for &x in &tup[..self.levels] {
            if v == NONE {
                return None;
            }
            let s = self.slots(v);
            if x as usize >= s.len() {
                return None;
            }
            let slot = s.start + x as usize;
            idx += self.before[slot];
            v = self.child[slot];
        }
        (v == TERMINAL).then_some(idx)
    }

    /// The local values (top level first) of state `i < len()` into `tup`.
    pub fn unrank(&self, mut i: u64, tup: &mut [u32]) {
        let mut v = self.root;
        for t in tup.iter_mut().take(self.levels) {
            let s = self.slots(v);
            // the last slot whose count before is at most `i` (never an absent one: an absent
            // slot has the count of the next present one, or the total)
            let k = self.before[s.clone()].partition_point(|&b| b <= i) - 1;
            *t = k as u32;
            i -= self.before[s.start + k];
            v = self.child[s.start + k];
        }
    }

    /// Call `f(i, tup)` on every state in index order; stops at the first error.
    pub fn for_each<E>(&self, f: &mut dyn FnMut(usize, &[u32]) -> Result<(), E>) -> Result<(), E> {
        if self.root == NONE {
            return Ok(());
        }
        let mut tup = vec![0u32; self.levels];
        let mut next = 0usize;
        self.walk(self.root, 0, &mut tup, &mut next, f)
    }

    fn walk<E>(
        &self,
        v: u32,
        depth: usize,
        tup: &mut [u32],
        next: &mut usize,
        f: &mut dyn FnMut(usize, &[u32]) -> Result<(), E>,
    ) -> Result<(), E> {
        if depth == self.levels {
            f(*next, tup)?;
            *next += 1;
            return Ok(());
        }
        let s = self.slots(v);
        for (k, &c) in self.child[s].iter().enumerate() {
            if c != NONE {
                tup[depth] = k as u32;
                self.walk(c, depth + 1, tup, next, f)?;
            }
        }
        Ok(())
    }

    /// Bytes of the diagram.
    pub fn bytes(&self) -> u64 {
        (self.start.len() * 4 + self.child.len() * 12) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use saturn_dd::Reduction;

    /// Rank and unrank agree with the lexicographic enumeration of random sets, in
    /// quasi-reduced and fully reduced forests; tuples outside the set have no rank.
    #[test]
    fn rank_and_unrank_follow_the_lexicographic_order() {
        let mut seed = 12345u64;
        let mut rnd = |m: u32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % m as u64) as u32
        };
        for reduction in [Reduction::Quasi, Reduction::Fully] {
            for _ in 0..20 {
                let levels = 1 + rnd(4) as usize;
                let mut f = Forest::new(levels, reduction);
                for k in 1..=levels {
                    f.set_domain(k, 4);
                }
                let mut set = NodeId::EMPTY;
                let mut all = std::collections::BTreeSet::new();
                for _ in 0..rnd(30) {
                    // level k at entry k - 1
                    let t: Vec<u32> = (0..levels).map(|_| rnd(4)).collect();
                    let s = f.singleton(&t);
                    set = f.union(set, s);
                    all.insert(t.iter().rev().copied().collect::<Vec<u32>>());
                }
                let ix = StateIndex::new(&f, set, levels);
                assert_eq!(ix.len(), all.len() as u64);
                let sorted: Vec<Vec<u32>> = all.iter().cloned().collect();
                let mut seen = Vec::new();
                ix.for_each::<()>(&mut |i, t| {
                    seen.push((i, t.to_vec()));
                    Ok(())
                })
                .unwrap();
                assert_eq!(seen.len(), sorted.len());
                let mut tup = vec![0u32; levels];
                for (i, t) in sorted.iter().enumerate() {
                    assert_eq!(seen[i], (i, t.clone()));
                    assert_eq!(ix.rank(t), Some(i as u64));
                    ix.unrank(i as u64, &mut tup);
                    assert_eq!(&tup, t);
                }
                for _ in 0..20 {
                    let t: Vec<u32> = (0..levels).map(|_| rnd(5)).collect();
                    let want = sorted.binary_search(&t).ok().map(|i| i as u64);
                    assert_eq!(ix.rank(&t), want, "{t:?}");
                }
            }
        }
    }
}
