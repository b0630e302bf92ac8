//! The contest's StateSpace examination on a state set: number of states, edges of the
//! reachability graph (pairs of a state and an event enabled in it), the largest local state
//! of any level (max tokens in a place), and the largest sum of local states (max tokens in a
//! marking).
//!
//! Edges are counted in one bottom-up pass with additions only: for a node `n` at level `k`,
//! `T(n)` = Σ over the paths below `n` of the number of events with Top ≤ k enabled on them =
//! Σ_children T(child) + Σ_{e: Top(e)=k} |paths below n enabling e|. Each enabled event is
//! counted once, at the node of its Top level, so `T(root)` is the contest's edge count.

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use saturn_dd::{Forest, NodeId};
use saturn_model::Model;

/// The StateSpace figures of a set of states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSpaceMetrics {
    pub states: BigUint,
    pub transitions: BigUint,
    pub max_local: u64,
    pub max_sum: u64,
}

/// A count that is a `u128` while it fits and an exact big integer otherwise.
trait Count: Clone {
    fn zero() -> Self;
    fn one() -> Self;
    fn add(&self, o: &Self) -> Option<Self>;
}
impl Count for u128 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    fn add(&self, o: &Self) -> Option<Self> {
        self.checked_add(*o)
    }
}
impl Count for BigUint {
    fn zero() -> Self {
        Zero::zero()
    }
    fn one() -> Self {
        BigUint::from(1u8)
    }
    fn add(&self, o: &Self) -> Option<Self> {
        Some(self + o)
    }
}

struct Counter<'a, C: Count> {
    forest: &'a Forest,
    model: &'a Model,
    by_top: Vec<Vec<usize>>,
    /// |paths below n|
    card: hashbrown::HashMap<NodeId, C>,
    /// T(n)
    edges: hashbrown::HashMap<NodeId, C>,
    /// per event, |paths below n enabling e|
    enabled: hashbrown::HashMap<(u32, NodeId), C>,
}

impl<'a, C: Count> Counter<'a, C> {
    fn card(&mut self, n: NodeId) -> Option<C> {
        if n.is_empty() {
            return Some(C::zero());
        }
        if n == NodeId::ONE {
            return Some(C::one());
        }
        if let Some(c) = self.card.get(&n) {
            return Some(c.clone());
        }
        let mut total = C::zero();
        for e in self.forest.edges(n) {
            total = total.add(&self.card(e.child)?)?;
        }
        self.card.insert(n, total.clone());
        Some(total)
    }

    /// Paths below `n` (at level `l`) satisfying the enabling conditions of event `e`'s parts
    /// from `pi` on.
    fn enabled(&mut self, e: usize, n: NodeId, pi: usize) -> Option<C> {
        let parts = &self.model.events[e].parts;
        if pi == parts.len() {
            return self.card(n);
        }
        if n.is_terminal() {
            return Some(if n == NodeId::ONE {
                C::one()
            } else {
                C::zero()
            });
        }
        if let Some(c) = self.enabled.get(&(e as u32, n)) {
            return Some(c.clone());
        }
        let l = self.forest.level(n);
        let (lvl, f) = (parts[pi].0, parts[pi].1.clone());
        let mut total = C::zero();
        for x in self.forest.edges(n) {
            let ok = lvl != l || f.enabled(x.idx);
            if ok {
                let next = if lvl == l { pi + 1 } else { pi };
                total = total.add(&self.enabled(e, x.child, next)?)?;
            }
        }
        self.enabled.insert((e as u32, n), total.clone());
        Some(total)
    }

    fn transitions(&mut self, n: NodeId) -> Option<C> {
        if n.is_terminal() {
            // events with an empty support are enabled everywhere
            let k0 = self.by_top[0].len() as u128;
            let mut t = C::zero();
            if n == NodeId::ONE {
                for _ in 0..k0 {
                    t = t.add(&C::one())?;
                }
            }
            return Some(t);
        }
        if let Some(c) = self.edges.get(&n) {
            return Some(c.clone());
        }
        let l = self.forest.level(n);
        let mut total = C::zero();
        for x in self.forest.edges(n) {
            total = total.add(&self.transitions(x.child)?)?;
        }
        for i in 0..self.by_top[l].len() {
            let e = self.by_top[l][i];
            total = total.add(&self.enabled(e, n, 0)?)?;
        }
        self.edges.insert(n, total.clone());
        Some(total)
    }
}

fn count_with<C: Count>(forest: &Forest, model: &Model, root: NodeId) -> Option<(C, C)> {
    let mut c = Counter::<C> {
        forest,
        model,
        by_top: model.events_by_top(),
        card: Default::default(),
        edges: Default::default(),
        enabled: Default::default(),
    };
    let states = c.card(root)?;
    let trans = c.transitions(root)?;
    Some((states, trans))
}

/// Number of states and of (state, enabled event) pairs in the set `root` (a quasi-reduced node
/// at the top level of `forest`, whose levels are `model`'s).
pub fn count_states_and_edges(forest: &Forest, model: &Model, root: NodeId) -> (BigUint, BigUint) {
    if let Some((s, t)) = count_with::<u128>(forest, model, root) {
        return (BigUint::from(s), BigUint::from(t));
    }
    count_with::<BigUint>(forest, model, root).unwrap_or_default()
}

/// The largest local state index at each level over the set (`result[k-1]` for level `k`).
pub fn max_local_per_level(forest: &Forest, root: NodeId) -> Vec<u32> {
    let mut best = vec![0u32; forest.num_levels()];
    let mut seen = hashbrown::HashSet::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_terminal() || !seen.insert(n) {
            continue;
        }
        let l = forest.level(n);
        if let Some(last) = forest.edges(n).last() {
            best[l - 1] = best[l - 1].max(last.idx);
        }
        stack.extend(forest.edges(n).iter().map(|e| e.child));
    }
    best
}

/// The largest sum of local states over the states of the set (max tokens in one marking).
pub fn max_sum(forest: &Forest, root: NodeId) -> u64 {
    fn go(f: &Forest, n: NodeId, memo: &mut hashbrown::HashMap<NodeId, u64>) -> u64 {
        if n.is_terminal() {
            return 0;
        }
        if let Some(&v) = memo.get(&n) {
            return v;
        }
        let mut best = 0;
        for e in f.edges(n) {
            best = best.max(e.idx as u64 + go(f, e.child, memo));
        }
        memo.insert(n, best);
        best
    }
    go(forest, root, &mut hashbrown::HashMap::new())
}

/// All four StateSpace figures.
pub fn state_space_metrics(forest: &Forest, model: &Model, root: NodeId) -> StateSpaceMetrics {
    let (states, transitions) = count_states_and_edges(forest, model, root);
    let max_local = max_local_per_level(forest, root)
        .into_iter()
        .max()
        .unwrap_or(0) as u64;
    StateSpaceMetrics {
        states,
        transitions,
        max_local,
        max_sum: max_sum(forest, root),
    }
}

/// A big count as `f64` (for display of magnitudes).
pub fn approx(n: &BigUint) -> f64 {
    n.to_f64().unwrap_or(f64::INFINITY)
}
