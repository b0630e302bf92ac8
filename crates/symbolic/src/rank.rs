//! The step rank of a model: a linear function of the state that every event lowers by
//! exactly one, `w · delta(e) = -1` for every event `e` (over the levels' local states, a
//! place's tokens in a Petri net). When one exists, every path from `s` to `t` has exactly
//! `w·s - w·t` steps, so the model has no cycle and the shortest path from the initial state
//! into a set is at least `w·s0 - max{w·t : t in the set}` long, a bound read off the set's
//! diagram in one pass. Terminating protocols have one (NeoElection's elections, where the
//! shortest `EG` witness is a maximal path of 87 steps that layers would prove only after 86
//! images).
//!
//! Found by Gaussian elimination modulo a prime, the fractions rebuilt and the result checked
//! exactly on every event, so a wrong `Some` cannot come out.

use rustc_hash::FxHashMap;
use saturn_dd::{Forest, NodeId};
use saturn_model::{LocalFn, Model};

use crate::modp::{inv, mul, rational, reduce, sub, PRIME};

/// The most arithmetic operations [`StepRank::of`] spends before it gives up.
const MAX_WORK: usize = 50_000_000;

/// The least common multiple of the weights' denominators [`StepRank::of`] accepts.
const MAX_SCALE: i128 = 1 << 40;

/// Weights `w = weights / scale` per level (`weights[k-1]` for level `k`) with
/// `w · delta(e) = -1` for every event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepRank {
    pub weights: Vec<i128>,
    pub scale: i128,
}

impl StepRank {
    /// The step rank of `model`, if it has one that the elimination finds within its budget
    /// and whose weights are small fractions; checked exactly on every event.
    pub fn of(model: &Model) -> Option<StepRank> {
        let levels = model.num_levels();
        let rhs = levels;
        let mut work = 0usize;
        // echelon rows, sparse, the pivot scaled to one; the right-hand side at column `rhs`
        let mut basis: Vec<(usize, Vec<(usize, u64)>)> = Vec::new();
        let mut v = vec![0u64; levels + 1];
        for e in &model.events {
            v.fill(0);
            for &(k, LocalFn::Petri { delta, .. }) in &e.parts {
                v[k - 1] = reduce(i128::from(delta));
            }
            v[rhs] = reduce(-1);
            for (pivot, b) in &basis {
                let f = v[*pivot];
                if f != 0 {
                    for &(c, y) in b {
                        v[c] = sub(v[c], mul(f, y));
                    }
                    work += b.len();
                }
            }
            work += basis.len() + levels;
            if work > MAX_WORK {
                return None;
            }
            let Some(pivot) = v[..levels].iter().position(|&x| x != 0) else {
                if v[rhs] != 0 {
                    // this event's -1 contradicts the others' (or it changes nothing)
                    return None;
                }
                continue;
            };
            let scale = inv(v[pivot]);
            let row = (pivot..=rhs)
                .filter(|&c| v[c] != 0)
                .map(|c| (c, mul(v[c], scale)))
                .collect();
            basis.push((pivot, row));
        }
        // free levels weigh nothing; each pivot's row gives its weight from later pivots'
        let mut w = vec![0u64; levels];
        for (pivot, b) in basis.iter().rev() {
            let mut x = 0u64;
            for &(c, y) in b {
                if c == rhs {
                    x = (x + y) % PRIME;
                } else if c != *pivot {
                    x = sub(x, mul(y, w[c]));
                }
            }
            w[*pivot] = x;
        }
        let fractions: Vec<(i128, i128)> = w.iter().map(|&x| rational(x)).collect::<Option<_>>()?;
        let mut scale = 1i128;
        for &(_, d) in &fractions {
            scale = lcm(scale, d)?;
            if scale > MAX_SCALE {
                return None;
            }
        }
        let weights = fractions
            .iter()
            .map(|&(n, d)| n.checked_mul(scale / d))
            .collect::<Option<Vec<i128>>>()?;
        let rank = StepRank { weights, scale };
        rank.holds(model).then_some(rank)
    }

    /// Does every event lower `w` by exactly one (checked arithmetic)?
    pub fn holds(&self, model: &Model) -> bool {
        model.events.iter().all(|e| {
            e.parts
                .iter()
                .try_fold(0i128, |acc, &(k, LocalFn::Petri { delta, .. })| {
                    acc.checked_add(self.weights[k - 1].checked_mul(i128::from(delta))?)
                })
                == Some(-self.scale)
        })
    }

    /// `scale · w · s` for a state (`s[k-1]` the local state of level `k`).
    pub fn value(&self, state: &[u32]) -> Option<i128> {
        state
            .iter()
            .zip(&self.weights)
            .try_fold(0i128, |acc, (&i, &w)| {
                acc.checked_add(w.checked_mul(i128::from(i))?)
            })
    }

    /// The largest `scale · w · s` over the states `s` of `set` (a node of `forest`, whose
    /// levels are the model's), or more when levels are skipped (a skipped level counts its
    /// largest local state where its weight is positive). `None` when `set` is empty or a sum
    /// overflows.
    pub fn max_over(&self, forest: &Forest, set: NodeId) -> Option<i128> {
        if set.is_empty() {
            return None;
        }
        let levels = self.weights.len();
        // skip[k]: what levels 1..=k add at most when all are skipped
        let mut skip = vec![0i128; levels + 1];
        for k in 1..=levels {
            let top = i128::from(forest.domain(k).max(1) - 1);
            let gain = self.weights[k - 1].checked_mul(top)?.max(0);
            skip[k] = skip[k - 1].checked_add(gain)?;
        }
        let skipped = |above: usize, below: usize| skip[above - 1] - skip[below];
        let mut best: FxHashMap<NodeId, i128> = FxHashMap::default();
        // post-order without recursion: (node, children done)
        let mut stack = vec![(set, false)];
        while let Some((n, done)) = stack.pop() {
            if n.is_terminal() || (best.contains_key(&n) && !done) {
                continue;
            }
            let k = forest.level(n);
            let edges = forest.edges(n);
            if !done {
                stack.push((n, true));
                for e in edges.iter() {
                    if !e.child.is_terminal() && !best.contains_key(&e.child) {
                        stack.push((e.child, false));
                    }
                }
                continue;
            }
            let mut m: Option<i128> = None;
            for e in edges.iter() {
                if e.child.is_empty() {
                    continue;
                }
                let below = if e.child.is_terminal() {
                    skip[k - 1]
                } else {
                    let j = forest.level(e.child);
                    best[&e.child].checked_add(skipped(k, j))?
                };
                let here = self.weights[k - 1].checked_mul(i128::from(e.idx))?;
                let x = here.checked_add(below)?;
                m = Some(m.map_or(x, |m: i128| m.max(x)));
            }
            best.insert(n, m?);
        }
        if set.is_terminal() {
            return Some(skip[levels]);
        }
        let top = forest.level(set);
        best[&set].checked_add(skip[levels] - skip[top])
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: i128, b: i128) -> Option<i128> {
    (a / gcd(a, b)).checked_mul(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use saturn_model::{Event, Level};

    fn model(levels: usize, events: &[&[(usize, i64)]]) -> Model {
        Model {
            levels: (0..levels)
                .map(|k| Level {
                    name: format!("p{k}"),
                    bound: None,
                    one_hot: false,
                    group: Vec::new(),
                })
                .collect(),
            initial: vec![0; levels],
            events: events
                .iter()
                .enumerate()
                .map(|(i, parts)| Event {
                    name: format!("t{i}"),
                    parts: parts
                        .iter()
                        .map(|&(k, delta)| {
                            let need = u32::try_from(-delta.min(0)).unwrap();
                            (
                                k,
                                LocalFn::Petri {
                                    need,
                                    inhibit: u32::MAX,
                                    delta,
                                },
                            )
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_chain_has_a_rank_and_a_cycle_none() {
        // a token down a chain 3 -> 2 -> 1: weights 0, 1, 2 up to a constant
        let chain = model(3, &[&[(3, -1), (2, 1)], &[(2, -1), (1, 1)]]);
        let r = StepRank::of(&chain).expect("a chain has a rank");
        assert!(r.holds(&chain));
        // two tokens into one: 2a -> b then b -> c, halves
        let merge = model(
            3,
            &[&[(3, -2), (2, 1)], &[(2, -1), (1, 1)], &[(3, -1), (1, 1)]],
        );
        assert!(StepRank::of(&merge).is_some_and(|r| r.holds(&merge)));
        let ring = model(2, &[&[(2, -1), (1, 1)], &[(2, 1), (1, -1)]]);
        assert_eq!(StepRank::of(&ring), None);
        let guard = model(2, &[&[(2, -1), (1, 1)], &[]]);
        assert_eq!(StepRank::of(&guard), None);
    }
}
