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
}
