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
use rustc_hash::FxHashMap;
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
    /// `self += o`; false on overflow.
    fn add(&mut self, o: &Self) -> bool;
    fn into_big(self) -> BigUint;
}
impl Count for u128 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    fn add(&mut self, o: &Self) -> bool {
        match self.checked_add(*o) {
            Some(v) => {
                *self = v;
                true
            }
            None => false,
        }
    }
    fn into_big(self) -> BigUint {
        BigUint::from(self)
    }
}
impl Count for BigUint {
    fn zero() -> Self {
        Zero::zero()
    }
    fn one() -> Self {
        BigUint::from(1u8)
    }
    fn add(&mut self, o: &Self) -> bool {
        *self += o;
        true
    }
    fn into_big(self) -> BigUint {
        self
    }
}

/// Per-node figures of one level: |paths below| (`card`), `T(n)` (`trans`), and for each
/// event active at this level the paths below that satisfy its enabling conditions down to
/// its bottom (`enabled`).
struct LevelCounts<C> {
    card: FxHashMap<NodeId, C>,
    trans: FxHashMap<NodeId, C>,
    enabled: FxHashMap<(u32, NodeId), C>,
}

impl<C> Default for LevelCounts<C> {
    fn default() -> Self {
        LevelCounts {
            card: FxHashMap::default(),
            trans: FxHashMap::default(),
            enabled: FxHashMap::default(),
        }
    }
}

/// The counts by a sweep from the bottom level up, keeping only two levels of figures at a
/// time (memory stays proportional to the widest level, not to the whole diagram).
fn count_with<C: Count>(forest: &Forest, model: &Model, root: NodeId) -> Option<(C, C)> {
    let k = forest.num_levels();
    if root.is_empty() {
        return Some((C::zero(), C::zero()));
    }
    // nodes by level
    let mut by_level: Vec<Vec<NodeId>> = vec![Vec::new(); k + 1];
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_terminal() || !seen.insert(n) {
            continue;
        }
        by_level[forest.level(n)].push(n);
        stack.extend(forest.edges(n).iter().map(|e| e.child));
    }
    drop(seen);
    // events active at each level: those with bottom <= l <= top, with their local function
    // at l (if l is in the support)
    let mut active: Vec<Vec<(u32, Option<saturn_model::LocalFn>)>> = vec![Vec::new(); k + 1];
    let mut empty_support = 0u64;
    for (e, ev) in model.events.iter().enumerate() {
        if ev.parts.is_empty() {
            empty_support += 1;
            continue;
        }
        for l in ev.bottom()..=ev.top() {
            let f = ev.parts.iter().find(|p| p.0 == l).map(|p| p.1.clone());
            active[l].push((e as u32, f));
        }
    }
    let mut below: LevelCounts<C> = LevelCounts::default();
    let one = C::one();
    let zero = C::zero();
    for l in 1..=k {
        let mut here: LevelCounts<C> = LevelCounts::default();
        for &n in &by_level[l] {
            let mut card = C::zero();
            let mut trans = C::zero();
            for x in forest.edges(n) {
                let c = x.child;
                let (cc, ct) = if c.is_terminal() {
                    (if c == NodeId::ONE { &one } else { &zero }, &zero)
                } else {
                    (below.card.get(&c)?, below.trans.get(&c)?)
                };
                if !card.add(cc) || !trans.add(ct) {
                    return None;
                }
            }
            for (e, f) in &active[l] {
                let bottom = model.events[*e as usize].bottom();
                let mut en = C::zero();
                for x in forest.edges(n) {
                    if f.as_ref().is_some_and(|f| !f.enabled(x.idx)) {
                        continue;
                    }
                    let c = x.child;
                    let v = if c.is_terminal() {
                        if c == NodeId::ONE {
                            &one
                        } else {
                            &zero
                        }
                    } else if l == bottom {
                        below.card.get(&c)?
                    } else {
                        below.enabled.get(&(*e, c))?
                    };
                    if !en.add(v) {
                        return None;
                    }
                }
                if model.events[*e as usize].top() == l {
                    if !trans.add(&en) {
                        return None;
                    }
                } else {
                    here.enabled.insert((*e, n), en);
                }
            }
            here.card.insert(n, card);
            here.trans.insert(n, trans);
        }
        below = here;
    }
    let lvl = forest.level(root);
    let (mut states, mut trans) = if lvl == 0 {
        (C::one(), C::zero())
    } else {
        (below.card.remove(&root)?, below.trans.remove(&root)?)
    };
    // events with an empty support are enabled in every state
    for _ in 0..empty_support {
        if !trans.add(&states) {
            return None;
        }
    }
    let _ = &mut states;
    Some((states, trans))
}

/// Number of states and of (state, enabled event) pairs in the set `root` (a quasi-reduced node
/// at the top level of `forest`, whose levels are `model`'s).
pub fn count_states_and_edges(forest: &Forest, model: &Model, root: NodeId) -> (BigUint, BigUint) {
    if let Some((s, t)) = count_with::<u128>(forest, model, root) {
        return (s.into_big(), t.into_big());
    }
    count_with::<BigUint>(forest, model, root)
        .map(|(s, t)| (s, t))
        .unwrap_or_default()
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
