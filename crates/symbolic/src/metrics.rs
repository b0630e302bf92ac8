//! The contest's StateSpace examination on a state set: number of states, edges of the
//! reachability graph (pairs of a state and an event enabled in it), the largest local state
//! of any level (max tokens in a place), and the largest sum of local states (max tokens in a
//! marking).
//!
//! Edges are counted in one bottom-up pass with additions only: for a node `n` at level `k`,
//! `T(n)` = Σ over the paths below `n` of the number of events with Top ≤ k enabled on them =
//! Σ_children T(child) + Σ_{e: Top(e)=k} |paths below n enabling e|. Each enabled event is
//! counted once, at the node of its Top level, so `T(root)` is the contest's edge count.

use std::rc::Rc;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use rustc_hash::FxHashMap;
use saturn_dd::{Forest, NodeId};
use saturn_model::{LocalFn, Model};

use crate::limits::{Interrupted, Limits};

/// The limits are checked once per this many nodes visited (and at every level).
const CHECK_EVERY: usize = 4096;

/// Check `limits` when `i` is a multiple of [`CHECK_EVERY`].
#[inline]
fn check_at(i: usize, limits: &Limits) -> Result<(), Interrupted> {
    if i.is_multiple_of(CHECK_EVERY) {
        limits.check()?;
    }
    Ok(())
}

/// The StateSpace figures of a set of states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateSpaceMetrics {
    pub states: BigUint,
    pub transitions: BigUint,
    pub max_local: u64,
    pub max_sum: u64,
    /// Non-terminal nodes of the set's diagram.
    pub nodes: usize,
}

/// A count that is a `u128` while it fits and an exact big integer otherwise.
trait Count: Clone {
    fn zero() -> Self;
    fn one() -> Self;
    /// `self += o * m`; false on overflow.
    fn add_times(&mut self, o: &Self, m: u64) -> bool;
    fn into_big(self) -> BigUint;
    #[inline]
    fn add(&mut self, o: &Self) -> bool {
        self.add_times(o, 1)
    }
}
impl Count for u128 {
    fn zero() -> Self {
        0
    }
    fn one() -> Self {
        1
    }
    #[inline]
    fn add_times(&mut self, o: &Self, m: u64) -> bool {
        match o.checked_mul(m as u128).and_then(|p| self.checked_add(p)) {
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
/// A count past `u128`, shared rather than copied where it can be: a sum of one term (a node
/// with one edge, or a class enabled on one edge) is its term, so most nodes of a long, thin
/// diagram (the philosophers: 60,000 levels, numbers of 20,000 bits at the top) copy no digits.
/// `None` is zero. The digits are copied when a shared count is added to (`Rc::make_mut`).
#[derive(Clone)]
struct Shared(Option<Rc<BigUint>>);

impl Count for Shared {
    fn zero() -> Self {
        Shared(None)
    }
    fn one() -> Self {
        Shared(Some(Rc::new(BigUint::from(1u8))))
    }
    fn add_times(&mut self, o: &Self, m: u64) -> bool {
        let Some(ov) = &o.0 else {
            return true;
        };
        if m == 0 {
            return true;
        }
        match &mut self.0 {
            None if m == 1 => self.0 = Some(Rc::clone(ov)),
            None => self.0 = Some(Rc::new(&**ov * m)),
            Some(sv) => {
                let s = Rc::make_mut(sv);
                if m == 1 {
                    *s += &**ov;
                } else {
                    *s += &**ov * m;
                }
            }
        }
        true
    }
    fn into_big(self) -> BigUint {
        self.0.map_or_else(Zero::zero, |r| {
            Rc::try_unwrap(r).unwrap_or_else(|r| (*r).clone())
        })
    }
}

/// Events grouped, level by level, by what they require from the levels at and below: two
/// events whose local functions agree at every level from `l` down to their bottoms enable
/// exactly the same paths below a node of level `l`, so they share one count.
struct Class {
    /// The local function at this level (`None`: the event does not read this level).
    f: Option<LocalFn>,
    /// The class one level down (`None`: this level is the events' bottom).
    below: Option<u32>,
    /// How many of the class's events have their Top here (each adds its count to `T(n)`).
    tops_here: u64,
    /// Is the class needed at the level above (some event continues upward)?
    continues: bool,
}

/// Builds the classes of each level in turn, bottom up, holding only the events active at
/// the current level (memory proportional to the widest cut of events, not to their spans).
struct ClassSweep<'m> {
    model: &'m Model,
    /// Events by bottom level.
    starting: Vec<Vec<u32>>,
    /// Events whose support spans the current level, with the index of their next part
    /// (parts are stored highest level first, so the sweep reads them from the end).
    active: Vec<(u32, usize)>,
    /// The class of each active event at the level below (u32::MAX: none yet).
    class_of: Vec<u32>,
    intern: FxHashMap<(Option<LocalFn>, Option<u32>), u32>,
}

impl<'m> ClassSweep<'m> {
    fn new(model: &'m Model, k: usize) -> (Self, u64) {
        let mut starting = vec![Vec::new(); k + 1];
        let mut empty_support = 0u64;
        for (e, ev) in model.events.iter().enumerate() {
            if ev.parts.is_empty() {
                empty_support += 1;
            } else {
                starting[ev.bottom()].push(e as u32);
            }
        }
        let sweep = ClassSweep {
            model,
            starting,
            active: Vec::new(),
            class_of: vec![u32::MAX; model.events.len()],
            intern: FxHashMap::default(),
        };
        (sweep, empty_support)
    }

    /// The classes of level `l` (call for l = 1, 2, ... in order).
    fn level(&mut self, l: usize) -> Vec<Class> {
        let events = &self.model.events;
        self.active.retain(|&(e, _)| events[e as usize].top() >= l);
        for &e in &self.starting[l] {
            self.active.push((e, events[e as usize].parts.len()));
        }
        self.intern.clear();
        let mut classes: Vec<Class> = Vec::new();
        for (e, next) in self.active.iter_mut() {
            let ev = &events[*e as usize];
            let f = if *next > 0 && ev.parts[*next - 1].0 == l {
                *next -= 1;
                Some(ev.parts[*next].1)
            } else {
                None
            };
            let below = if l == ev.bottom() {
                None
            } else {
                Some(self.class_of[*e as usize])
            };
            let id = *self.intern.entry((f, below)).or_insert_with(|| {
                classes.push(Class {
                    f,
                    below,
                    tops_here: 0,
                    continues: false,
                });
                (classes.len() - 1) as u32
            });
            if l == ev.top() {
                classes[id as usize].tops_here += 1;
            } else {
                classes[id as usize].continues = true;
            }
            self.class_of[*e as usize] = id;
        }
        classes
    }
}

/// The nodes of a diagram grouped by level, with each node's position within its level
/// (`pos[n.index()]`; side tables are dense vectors per level indexed by position).
pub struct Layers {
    pub by_level: Vec<Vec<NodeId>>,
    pub pos: Vec<u32>,
}

impl Layers {
    pub fn new(forest: &Forest, root: NodeId) -> Layers {
        match Layers::within(forest, root, &Limits::none()) {
            Ok(l) => l,
            Err(_) => unreachable!("no limits, no interruption"),
        }
    }

    /// [`Layers::new`], stopping when a limit is reached.
    pub fn within(forest: &Forest, root: NodeId, limits: &Limits) -> Result<Layers, Interrupted> {
        let mut visited = 0usize;
        let mut by_level: Vec<Vec<NodeId>> = vec![Vec::new(); forest.num_levels() + 1];
        let mut pos: Vec<u32> = vec![u32::MAX; forest.id_bound()];
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.is_terminal() || pos[n.index()] != u32::MAX {
                continue;
            }
            visited += 1;
            check_at(visited, limits)?;
            let l = forest.level(n);
            pos[n.index()] = by_level[l].len() as u32;
            by_level[l].push(n);
            stack.extend(forest.edges(n).iter().map(|e| e.child));
        }
        Ok(Layers { by_level, pos })
    }

    /// The number of non-terminal nodes.
    pub fn nodes(&self) -> usize {
        self.by_level.iter().map(Vec::len).sum()
    }
}

/// The counts by a sweep from the bottom level up, keeping only two levels of figures at a
/// time (memory stays proportional to the widest level, not to the whole diagram). Figures
/// are kept in dense vectors indexed by a node's position within its level. `Ok(None)` when a
/// count overflows `C`.
fn count_with<C: Count>(
    forest: &Forest,
    model: &Model,
    root: NodeId,
    layers: &Layers,
    limits: &Limits,
) -> Result<Option<(C, C)>, Interrupted> {
    let k = forest.num_levels();
    if root.is_empty() {
        return Ok(Some((C::zero(), C::zero())));
    }
    let Layers { by_level, pos } = layers;
    let (mut sweep, empty_support) = ClassSweep::new(model, k);
    let one = C::one();
    // figures of the level below: |paths| and T per node, and each class's enabled count
    let mut card_below: Vec<C> = Vec::new();
    let mut trans_below: Vec<C> = Vec::new();
    let mut class_below: Vec<Vec<C>> = Vec::new();
    // this level's figures, in vectors reused from level to level (the philosophers have
    // 60,000 levels of a handful of nodes each)
    let (mut card_here, mut trans_here): (Vec<C>, Vec<C>) = (Vec::new(), Vec::new());
    let mut class_here: Vec<Vec<C>> = Vec::new();
    let mut spare: Vec<Vec<C>> = Vec::new();
    let mut visited = 0usize;
    #[allow(clippy::needless_range_loop)] // `l` is a level: it indexes several tables
    for l in 1..=k {
        limits.check()?;
        let classes = sweep.level(l);
        card_here.clear();
        trans_here.clear();
        class_here.clear();
        class_here.extend(classes.iter().map(|_| spare.pop().unwrap_or_default()));
        for &n in &by_level[l] {
            visited += 1;
            check_at(visited, limits)?;
            let mut card = C::zero();
            let mut trans = C::zero();
            for x in forest.edges(n) {
                let c = x.child;
                if c.is_terminal() {
                    if c == NodeId::ONE && !card.add(&one) {
                        return Ok(None);
                    }
                } else {
                    let p = pos[c.index()] as usize;
                    if !card.add(&card_below[p]) || !trans.add(&trans_below[p]) {
                        return Ok(None);
                    }
                }
            }
            for (ci, cl) in classes.iter().enumerate() {
                let mut en = C::zero();
                let src: &[C] = match cl.below {
                    None => &card_below,
                    Some(b) => &class_below[b as usize],
                };
                for x in forest.edges(n) {
                    if cl.f.as_ref().is_some_and(|f| !f.enabled(x.idx)) {
                        continue;
                    }
                    let c = x.child;
                    let ok = if c.is_terminal() {
                        c.is_empty() || en.add(&one)
                    } else {
                        en.add(&src[pos[c.index()] as usize])
                    };
                    if !ok {
                        return Ok(None);
                    }
                }
                if cl.tops_here > 0 && !trans.add_times(&en, cl.tops_here) {
                    return Ok(None);
                }
                if cl.continues {
                    class_here[ci].push(en);
                }
            }
            card_here.push(card);
            trans_here.push(trans);
        }
        std::mem::swap(&mut card_below, &mut card_here);
        std::mem::swap(&mut trans_below, &mut trans_here);
        std::mem::swap(&mut class_below, &mut class_here);
        // the level below's class vectors are free again
        spare.extend(class_here.drain(..).map(|mut v| {
            v.clear();
            v
        }));
    }
    let lvl = forest.level(root);
    let (states, mut trans) = if lvl == 0 {
        (C::one(), C::zero())
    } else {
        let p = pos[root.index()] as usize;
        (card_below[p].clone(), trans_below[p].clone())
    };
    // events with an empty support are enabled in every state
    if !trans.add_times(&states, empty_support) {
        return Ok(None);
    }
    Ok(Some((states, trans)))
}

/// Number of states and of (state, enabled event) pairs in the set `root` (a quasi-reduced node
/// at the top level of `forest`, whose levels are `model`'s).
fn counts(
    forest: &Forest,
    model: &Model,
    root: NodeId,
    layers: &Layers,
    limits: &Limits,
) -> Result<(BigUint, BigUint), Interrupted> {
    if let Some((s, t)) = count_with::<u128>(forest, model, root, layers, limits)? {
        return Ok((s.into_big(), t.into_big()));
    }
    Ok(count_with::<Shared>(forest, model, root, layers, limits)?
        .map(|(s, t)| (s.into_big(), t.into_big()))
        .unwrap_or_default())
}

/// The largest local state index at each level over the set (`result[k-1]` for level `k`).
fn max_local_in(forest: &Forest, layers: &Layers) -> Vec<u32> {
    layers.by_level[1..]
        .iter()
        .map(|ns| {
            ns.iter()
                .filter_map(|&n| forest.edges(n).last().map(|e| e.idx))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The largest sum of local states over the states of the set (max tokens in one marking).
///
/// A one-hot level ([`saturn_model::Level::one_hot`]) holds one token in every state: it counts
/// 0 here, and the caller adds one per such level.
fn max_sum_in(
    forest: &Forest,
    model: &Model,
    root: NodeId,
    layers: &Layers,
    limits: &Limits,
) -> Result<u64, Interrupted> {
    if root.is_terminal() {
        return Ok(0);
    }
    let mut below: Vec<u64> = Vec::new();
    for (l, ns) in layers.by_level[1..].iter().enumerate() {
        limits.check()?;
        let weight = u64::from(!model.levels.get(l).is_some_and(|v| v.one_hot));
        let here: Vec<u64> = ns
            .iter()
            .map(|&n| {
                forest
                    .edges(n)
                    .iter()
                    .map(|e| {
                        let c = if e.child.is_terminal() {
                            0
                        } else {
                            below[layers.pos[e.child.index()] as usize]
                        };
                        weight * e.idx as u64 + c
                    })
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        below = here;
    }
    Ok(below[layers.pos[root.index()] as usize])
}

/// All four StateSpace figures, and the number of nodes of the set.
pub fn state_space_metrics(forest: &Forest, model: &Model, root: NodeId) -> StateSpaceMetrics {
    match state_space_metrics_within(forest, model, root, &Limits::none()) {
        Ok(m) => m,
        Err(_) => unreachable!("no limits, no interruption"),
    }
}

/// [`state_space_metrics`], stopping with `Err` when a limit is reached (checked at every level
/// and every few thousand nodes of each pass).
pub fn state_space_metrics_within(
    forest: &Forest,
    model: &Model,
    root: NodeId,
    limits: &Limits,
) -> Result<StateSpaceMetrics, Interrupted> {
    let layers = Layers::within(forest, root, limits)?;
    let (states, transitions) = counts(forest, model, root, &layers, limits)?;
    // a one-hot level's local state is the index of its marked place: one token, in a place
    // of its own (saturn_model::one_hot)
    let one_hot = model.levels.iter().filter(|l| l.one_hot).count() as u64;
    let (max_local, max_sum) = if root.is_terminal() {
        (0, 0)
    } else {
        let local = max_local_in(forest, &layers)
            .into_iter()
            .zip(&model.levels)
            .filter(|(_, l)| !l.one_hot)
            .map(|(m, _)| m as u64)
            .max()
            .unwrap_or(0);
        let sum = max_sum_in(forest, model, root, &layers, limits)?;
        (local.max(one_hot.min(1)), sum + one_hot)
    };
    Ok(StateSpaceMetrics {
        states,
        transitions,
        max_local,
        max_sum,
        nodes: layers.nodes(),
    })
}

/// A big count as `f64` (for display of magnitudes).
pub fn approx(n: &BigUint) -> f64 {
    n.to_f64().unwrap_or(f64::INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statespace::generate;
    use crate::Method;

    /// The plain count (a sum copies its first term's digits), the reference for [`Shared`].
    impl Count for BigUint {
        fn zero() -> Self {
            Zero::zero()
        }
        fn one() -> Self {
            BigUint::from(1u8)
        }
        fn add_times(&mut self, o: &Self, m: u64) -> bool {
            *self += o * m;
            true
        }
        fn into_big(self) -> BigUint {
            self
        }
    }

    /// Shared counts equal the plain ones, and the `u128` ones where those fit.
    #[test]
    fn shared_counts_equal_plain_ones() {
        let mut big = 0;
        for (fam, n) in [
            ("philosophers", 12),
            ("philosophers", 100),
            ("kanban", 30),
            ("slot", 40),
            ("fms", 10),
        ] {
            let net = saturn_model::families::generate(fam, n).unwrap();
            let order = saturn_model::order::by_name(&net, "file-rev").unwrap();
            let model = net.to_model(&order).unwrap();
            let ss = generate(&model, Method::Saturation, Limits::none(), None).unwrap();
            let (f, root, none) = (&ss.dd.sets, ss.states, Limits::none());
            let layers = Layers::new(f, root);
            let plain = count_with::<BigUint>(f, &model, root, &layers, &none).unwrap();
            let plain = plain.expect("no overflow");
            let shared = count_with::<Shared>(f, &model, root, &layers, &none).unwrap();
            let shared = shared.expect("no overflow");
            assert_eq!(
                (shared.0.into_big(), shared.1.into_big()),
                plain,
                "{fam} {n}"
            );
            match count_with::<u128>(f, &model, root, &layers, &none).unwrap() {
                Some((s, t)) => assert_eq!((s.into_big(), t.into_big()), plain, "{fam} {n}"),
                None => big += 1,
            }
        }
        assert!(big >= 2, "some counts pass u128");
    }
}
