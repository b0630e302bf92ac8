//! Exact cardinality of MDD sets (arbitrary precision).

use num_bigint::BigUint;
use num_traits::{One, Zero};

use crate::{Forest, NodeId, Reduction};

impl Forest {
    /// The number of tuples in the set rooted at `root` (over levels `1..=level(root)` for a
    /// quasi-reduced forest; over all `K` levels for a fully-reduced one, skipped levels counting
    /// with their domain size). Exact: 10^600 prints to the last digit.
    pub fn cardinality(&self, root: NodeId) -> BigUint {
        if let Some(c) = self.cardinality_u128(root) {
            return BigUint::from(c);
        }
        let mut memo: hashbrown::HashMap<NodeId, BigUint> = hashbrown::HashMap::new();
        let top = if self.reduction() == Reduction::Fully {
            self.num_levels()
        } else {
            self.level(root)
        };
        let skip = self.skip_factor_big(top, self.level(root));
        self.card_big(root, &mut memo) * skip
    }

    fn skip_factor_big(&self, from: usize, to: usize) -> BigUint {
        let mut f = BigUint::one();
        for k in (to + 1)..=from {
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
            if self.reduction() == Reduction::Fully {
                total += c * self.skip_factor_big(lvl - 1, self.level(e.child));
            } else {
                total += c;
            }
        }
        memo.insert(n, total.clone());
        total
    }

    /// Cardinality in 128 bits, or `None` on overflow.
    pub fn cardinality_u128(&self, root: NodeId) -> Option<u128> {
        let mut memo: hashbrown::HashMap<NodeId, u128> = hashbrown::HashMap::new();
        let top = if self.reduction() == Reduction::Fully {
            self.num_levels()
        } else {
            self.level(root)
        };
        let skip = self.skip_factor_u128(top, self.level(root))?;
        self.card_u128(root, &mut memo)?.checked_mul(skip)
    }

    fn skip_factor_u128(&self, from: usize, to: usize) -> Option<u128> {
        let mut f: u128 = 1;
        for k in (to + 1)..=from {
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
            let e = self.edges(n)[i];
            let mut c = self.card_u128(e.child, memo)?;
            if self.reduction() == Reduction::Fully {
                c = c.checked_mul(self.skip_factor_u128(lvl - 1, self.level(e.child))?)?;
            }
            total = total.checked_add(c)?;
        }
        memo.insert(n, total);
        Some(total)
    }
}
