//! Exact cardinality of MDD sets (arbitrary precision).

use num_bigint::BigUint;
use num_traits::{One, Zero};

use crate::relation::is_unprimed;
use crate::{Forest, NodeId, Reduction};

impl Forest {
    /// The number of tuples in the set rooted at `root` (over levels `1..=level(root)` for a
    /// quasi-reduced forest; over all `K` levels for a fully-reduced one, skipped levels counting
    /// with their domain size; for an identity-reduced relation, the number of (from, to)
    /// pairs, a skipped pair of levels counting with its variable's domain size). Exact: 10^600
    /// prints to the last digit.
    pub fn cardinality(&self, root: NodeId) -> BigUint {
        if let Some(c) = self.cardinality_u128(root) {
            return BigUint::from(c);
        }
        let mut memo: hashbrown::HashMap<NodeId, BigUint> = hashbrown::HashMap::new();
        let top = self.tuple_len(root);
        let skip = self.skip_factor_big(top, self.level(root));
        self.card_big(root, &mut memo) * skip
    }

    /// The levels in `to+1..=from` that a skip multiplies by their domain size: none in a
    /// quasi-reduced forest, all in a fully-reduced one, the unprimed level of each skipped pair
    /// in an identity-reduced one (the pair contributes one `(v, v)` per domain value `v`).
    fn skipped_levels(&self, from: usize, to: usize) -> impl Iterator<Item = usize> {
        let red = self.reduction();
        ((to + 1)..=from).filter(move |k| match red {
            Reduction::Quasi => false,
            Reduction::Fully => true,
            Reduction::Identity => is_unprimed(*k),
        })
    }

    fn skip_factor_big(&self, from: usize, to: usize) -> BigUint {
        let mut f = BigUint::one();
        for k in self.skipped_levels(from, to) {
            f *= BigUint::from(self.domain(k));
        }
        f
    }

    fn card_big(&self, n: NodeId, memo: &mut hashbrown::HashMap<NodeId, BigUint>) -> BigUint {
        if n.is_empty() {
            return BigUint::zero();
        }
        if n == NodeId::ONE {
            return BigUint::one();
        }
        if let Some(c) = memo.get(&n) {
            return c.clone();
        }
        let lvl = self.level(n);
        let mut total = BigUint::zero();
        for e in self.edges(n).to_vec() {
            let c = self.card_big(e.child, memo);
            total += c * self.skip_factor_big(lvl - 1, self.level(e.child));
        }
        memo.insert(n, total.clone());
        total
    }

    /// `|a ∩ b|` without building the intersection: one walk over the pairs of nodes, no new
    /// node (a transition's enabled markings among the reachable ones, counted for each
    /// transition of a large diagram). Quasi-reduced forests with both roots at one level; any
    /// other case counts the intersection built by [`Forest::intersect`].
    pub fn cardinality_of_intersection(&mut self, a: NodeId, b: NodeId) -> BigUint {
        if self.reduction() != Reduction::Quasi || self.level(a) != self.level(b) {
            let i = self.intersect(a, b);
            return self.cardinality(i);
        }
        if let Some(c) = self.both_u128(a, b, &mut hashbrown::HashMap::new()) {
            return BigUint::from(c);
        }
        self.both_big(a, b, &mut hashbrown::HashMap::new())
    }

    /// The pairs of edges of `a` and `b` with one index, children paired (both sorted).
    fn paired(&self, a: NodeId, b: NodeId) -> Vec<(NodeId, NodeId)> {
        let (ea, eb) = (self.edges(a), self.edges(b));
        let (mut i, mut j, mut out) = (0, 0, Vec::new());
        while i < ea.len() && j < eb.len() {
            let (x, y) = (ea.at(i), eb.at(j));
            match x.idx.cmp(&y.idx) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out.push((x.child, y.child));
                    i += 1;
                    j += 1;
                }
            }
        }
        out
    }

    fn both_u128(
        &self,
        a: NodeId,
        b: NodeId,
        memo: &mut hashbrown::HashMap<(NodeId, NodeId), u128>,
    ) -> Option<u128> {
        if a.is_empty() || b.is_empty() {
            return Some(0);
        }
        if a.is_terminal() {
            return Some(1);
        }
        let key = (a.min(b), a.max(b));
        if let Some(&c) = memo.get(&key) {
            return Some(c);
        }
        let mut total: u128 = 0;
        for (x, y) in self.paired(a, b) {
            total = total.checked_add(self.both_u128(x, y, memo)?)?;
        }
        memo.insert(key, total);
        Some(total)
    }

    fn both_big(
        &self,
        a: NodeId,
        b: NodeId,
        memo: &mut hashbrown::HashMap<(NodeId, NodeId), BigUint>,
    ) -> BigUint {
        if a.is_empty() || b.is_empty() {
            return BigUint::zero();
        }
        if a.is_terminal() {
            return BigUint::one();
        }
        let key = (a.min(b), a.max(b));
        if let Some(c) = memo.get(&key) {
            return c.clone();
        }
        let mut total = BigUint::zero();
        for (x, y) in self.paired(a, b) {
            total += self.both_big(x, y, memo);
        }
        memo.insert(key, total.clone());
        total
    }

    /// Cardinality in 128 bits, or `None` on overflow.
    pub fn cardinality_u128(&self, root: NodeId) -> Option<u128> {
        let mut memo: hashbrown::HashMap<NodeId, u128> = hashbrown::HashMap::new();
        let top = self.tuple_len(root);
        let skip = self.skip_factor_u128(top, self.level(root))?;
        self.card_u128(root, &mut memo)?.checked_mul(skip)
    }

    fn skip_factor_u128(&self, from: usize, to: usize) -> Option<u128> {
        let mut f: u128 = 1;
        for k in self.skipped_levels(from, to) {
            f = f.checked_mul(self.domain(k) as u128)?;
        }
        Some(f)
    }

    fn card_u128(&self, n: NodeId, memo: &mut hashbrown::HashMap<NodeId, u128>) -> Option<u128> {
        if n.is_empty() {
            return Some(0);
        }
        if n == NodeId::ONE {
            return Some(1);
        }
        if let Some(&c) = memo.get(&n) {
            return Some(c);
        }
        let lvl = self.level(n);
        let mut total: u128 = 0;
        for i in 0..self.edges(n).len() {
            let e = self.edges(n).at(i);
            let c = self
                .card_u128(e.child, memo)?
                .checked_mul(self.skip_factor_u128(lvl - 1, self.level(e.child))?)?;
            total = total.checked_add(c)?;
        }
        memo.insert(n, total);
        Some(total)
    }

    /// The number of tuples of [`Forest::cardinality`] as a float (infinite past `f64::MAX`),
    /// with a memo the caller keeps across roots: sizing many sets of one forest costs one pass
    /// over the nodes below them all.
    pub fn cardinality_approx(
        &self,
        root: NodeId,
        memo: &mut hashbrown::HashMap<NodeId, f64>,
    ) -> f64 {
        let top = self.tuple_len(root);
        self.card_f64(root, memo) * self.skip_factor_f64(top, self.level(root))
    }

    fn skip_factor_f64(&self, from: usize, to: usize) -> f64 {
        self.skipped_levels(from, to)
            .map(|k| self.domain(k) as f64)
            .product()
    }

    fn card_f64(&self, n: NodeId, memo: &mut hashbrown::HashMap<NodeId, f64>) -> f64 {
        if n.is_empty() {
            return 0.0;
        }
        if n == NodeId::ONE {
            return 1.0;
        }
        if let Some(&c) = memo.get(&n) {
            return c;
        }
        let lvl = self.level(n);
        let mut total = 0.0;
        for i in 0..self.edges(n).len() {
            let e = self.edges(n).at(i);
            total +=
                self.card_f64(e.child, memo) * self.skip_factor_f64(lvl - 1, self.level(e.child));
        }
        memo.insert(n, total);
        total
    }

    /// `n` tuples of `root` drawn at random, each about uniformly (the weights are the
    /// approximate counts of [`Forest::cardinality_approx`], `memo` kept by the caller as
    /// there), from the seed `seed`: the same seed draws the same tuples. A quasi- or
    /// fully-reduced set (a skipped level draws uniformly from its domain); empty when the set
    /// is, or for a relation.
    pub fn sample(
        &self,
        root: NodeId,
        n: usize,
        seed: u64,
        memo: &mut hashbrown::HashMap<NodeId, f64>,
    ) -> Vec<Vec<u32>> {
        if root.is_empty() || self.reduction() == Reduction::Identity {
            return Vec::new();
        }
        let mut rng = SplitMix(seed);
        let len = self.tuple_len(root);
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let mut tuple = vec![0u32; len];
            let mut at = root;
            let mut from = len;
            loop {
                let lvl = self.level(at);
                for k in self.skipped_levels(from, lvl) {
                    tuple[k - 1] = (rng.unit() * f64::from(self.domain(k))) as u32;
                }
                if at == NodeId::ONE {
                    break;
                }
                let edges = self.edges(at);
                let weights: Vec<f64> = (0..edges.len())
                    .map(|i| {
                        let e = edges.at(i);
                        self.card_f64(e.child, memo)
                            * self.skip_factor_f64(lvl - 1, self.level(e.child))
                    })
                    .collect();
                let total: f64 = weights.iter().sum();
                let mut r = rng.unit() * total;
                let mut pick = edges.len() - 1;
                for (i, w) in weights.iter().enumerate() {
                    if r < *w {
                        pick = i;
                        break;
                    }
                    r -= w;
                }
                let e = edges.at(pick);
                tuple[lvl - 1] = e.idx;
                at = e.child;
                from = lvl - 1;
            }
            out.push(tuple);
        }
        out
    }
}

/// A small deterministic generator (SplitMix64) for [`Forest::sample`].
struct SplitMix(u64);

impl SplitMix {
    /// A float in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}
