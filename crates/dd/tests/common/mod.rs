//! Shared helpers for the saturn-dd integration tests: tiny universes whose subsets are
//! bitmasks, an independent MDD builder from a bitmask, and a small deterministic RNG.
#![allow(dead_code)]

use std::collections::BTreeSet;

use saturn_dd::{Edge, Forest, NodeId, Reduction};

/// The tuples over domains `doms` (`doms[k-1]` for level `k`), numbered with level 1 least
/// significant, so numeric order is lexicographic order with the top level most significant.
#[derive(Clone, Debug)]
pub struct Universe {
    pub doms: Vec<u32>,
}

impl Universe {
    pub fn new(doms: &[u32]) -> Universe {
        Universe {
            doms: doms.to_vec(),
        }
    }
    pub fn levels(&self) -> usize {
        self.doms.len()
    }
    pub fn size(&self) -> usize {
        self.doms.iter().map(|&d| d as usize).product()
    }
    /// The stride of level `k` (product of the domains below it).
    pub fn stride(&self, k: usize) -> usize {
        self.doms[..k - 1].iter().map(|&d| d as usize).product()
    }
    pub fn tuple(&self, mut t: usize) -> Vec<u32> {
        let mut v = Vec::with_capacity(self.levels());
        for &d in &self.doms {
            v.push((t % d as usize) as u32);
            t /= d as usize;
        }
        v
    }
    pub fn index(&self, tuple: &[u32]) -> usize {
        tuple
            .iter()
            .enumerate()
            .map(|(k, &v)| v as usize * self.stride(k + 1))
            .sum()
    }

    /// A set forest over this universe with its domains declared.
    pub fn set_forest(&self, red: Reduction) -> Forest {
        let mut f = Forest::new(self.levels(), red);
        for (k, &d) in self.doms.iter().enumerate() {
            f.set_domain(k + 1, d);
        }
        f
    }

    /// A relation forest over this universe with its domains declared.
    pub fn rel_forest(&self) -> Forest {
        let mut f = Forest::new(2 * self.levels(), Reduction::Identity);
        for (k, &d) in self.doms.iter().enumerate() {
            f.set_domain(2 * (k + 1), d);
        }
        f
    }

    /// Build the set `members` (a predicate on tuple numbers) bottom-up with `make_node`,
    /// independently of the set operations.
    pub fn build(&self, f: &mut Forest, members: &dyn Fn(usize) -> bool) -> NodeId {
        self.build_rec(f, members, self.levels(), 0)
    }
    fn build_rec(
        &self,
        f: &mut Forest,
        members: &dyn Fn(usize) -> bool,
        level: usize,
        base: usize,
    ) -> NodeId {
        if level == 0 {
            return if members(base) {
                NodeId::ONE
            } else {
                NodeId::EMPTY
            };
        }
        let stride = self.stride(level);
        let mut edges = Vec::new();
        for v in 0..self.doms[level - 1] {
            let c = self.build_rec(f, members, level - 1, base + v as usize * stride);
            edges.push(Edge::new(v, c));
        }
        f.make_node(level, &edges)
    }

    pub fn build_mask(&self, f: &mut Forest, mask: u64) -> NodeId {
        self.build(f, &|t| mask >> t & 1 == 1)
    }

    /// Build the set as a union of singletons, in ascending or descending tuple order.
    pub fn build_by_singletons(&self, f: &mut Forest, mask: u64, descending: bool) -> NodeId {
        let mut ts: Vec<usize> = (0..self.size()).filter(|&t| mask >> t & 1 == 1).collect();
        if descending {
            ts.reverse();
        }
        let mut acc = NodeId::EMPTY;
        for t in ts {
            let s = f.singleton(&self.tuple(t));
            acc = f.union(acc, s);
        }
        acc
    }

    /// The bitmask of a set, read back by enumeration (also checks the order).
    pub fn mask_of(&self, f: &Forest, n: NodeId) -> u64 {
        let mut mask = 0u64;
        let mut last: Option<usize> = None;
        f.for_each_state(n, usize::MAX, |t| {
            assert_eq!(t.len(), self.levels());
            let i = self.index(t);
            assert!(
                !matches!(last, Some(l) if l >= i),
                "enumeration not strictly increasing"
            );
            last = Some(i);
            mask |= 1 << i;
        });
        mask
    }
}

/// SplitMix64: a small deterministic generator for the tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A random mask of `bits` bits with each bit set with probability `num/den`.
    pub fn mask(&mut self, bits: usize, num: u64, den: u64) -> u64 {
        (0..bits).fold(0, |m, b| if self.below(den) < num { m | 1 << b } else { m })
    }
}

// ------------------------------------------------------------------------------ relations

/// An explicit relation: (from, to) tuple numbers.
pub type Pairs = BTreeSet<(usize, usize)>;

/// Per-variable local relations: `None` is identity (skipped).
pub type Local = Vec<Option<Vec<(u32, u32)>>>;

/// The explicit pairs of a product of local relations.
pub fn expand_local(u: &Universe, l: &Local) -> Pairs {
    let mut out = Pairs::new();
    for x in 0..u.size() {
        for y in 0..u.size() {
            let (tx, ty) = (u.tuple(x), u.tuple(y));
            let ok = l.iter().enumerate().all(|(k, p)| match p {
                None => tx[k] == ty[k],
                Some(p) => p.contains(&(tx[k], ty[k])),
            });
            if ok {
                out.insert((x, y));
            }
        }
    }
    out
}

pub fn build_local(rels: &mut Forest, l: &Local) -> NodeId {
    // highest variable first, as recommended
    let parts: Vec<(usize, Vec<(u32, u32)>)> = l
        .iter()
        .enumerate()
        .rev()
        .filter_map(|(k, p)| p.clone().map(|p| (k + 1, p)))
        .collect();
    rels.relation_from_local(&parts)
}
