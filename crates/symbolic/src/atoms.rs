//! Atomic propositions as MDDs over the potential state space `pot` (the product of the local
//! domains currently known to the forest, `0..forest.domain(k)` at level `k`): linear
//! comparisons of place markings, `enabled` over transitions, `deadlock`, constants and the
//! boolean connectives (issue 9, part 1). Intersect a result with the reachable states to get
//! its `rch` version ([`Atoms::restrict`]).
//!
//! A comparison `Σ c_p·m(p) op b` is built top-down over partial sums, one node per
//! (level, partial sum) pair, memoised, never by enumerating states; a level whose remaining
//! coefficients can no longer change the outcome is cut short with the full set or the empty
//! set. `enabled(t)` is the product of the local enabling conditions of event `t` (one node per
//! level), `deadlock` the complement of the union over all events.

use rustc_hash::FxHashMap;
use saturn_dd::{Edge, Forest, NodeId};
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
use saturn_model::{LocalFn, Model};

/// A formula [`Atoms::eval`] cannot turn into a set without a temporal engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AtomError {
    #[error("temporal operator in a formula expected to be a boolean combination of atoms")]
    Temporal,
    #[error("place {place} is not in the model (it has {places} places)")]
    UnknownPlace { place: usize, places: usize },
    #[error("transition {transition} is not in the model (it has {transitions} events)")]
    UnknownTransition {
        transition: usize,
        transitions: usize,
    },
}

/// Builds atoms over one model's levels. Holds no node: every result lives in the forest passed
/// to each call (a quasi- or fully-reduced set forest with the model's levels).
///
/// A place is on a level of its own (the local state is its token count) or is the `j`-th
/// place of a one-hot group on one level (the local state is the index of the group's marked
/// place: the place holds `[i == j]` tokens in local state `i`, [`saturn_model::OneHot`]).
#[derive(Clone, Debug)]
pub struct Atoms {
    /// `level_of_place[p]`: the level (1-based) holding place `p`.
    level_of_place: Vec<usize>,
    /// `in_group[p]`: place `p`'s index in its level's one-hot group, `None` on a level of its
    /// own. Empty when no place is in a group.
    in_group: Vec<Option<u32>>,
    /// Per event (transition): its local enabling conditions `(level, local function)`.
    guards: Vec<Vec<(usize, LocalFn)>>,
    num_levels: usize,
}

/// Memo of one comparison build: `(level, partial sum)` -> node.
type SumMemo = FxHashMap<(usize, i128), NodeId>;

/// Per level (index 0 unused), what it adds to a linear expression at local state `i`:
/// `linear[l] · i` for its places of their own (the sum of their coefficients), plus
/// `table[l][i]` for its one-hot group's places (`table[l][j]` the coefficient of its `j`-th
/// place, 0 beyond the table; `None` when no term names them).
struct Coefs {
    linear: Vec<i128>,
    table: Vec<Option<Vec<i128>>>,
}

impl Coefs {
    /// Level `l`'s contribution at local state `i`.
    #[inline]
    fn value(&self, l: usize, i: u32) -> i128 {
        let v = self.linear[l] * i as i128;
        match &self.table[l] {
            None => v,
            Some(t) => v + t.get(i as usize).copied().unwrap_or(0),
        }
    }

    /// The least and the greatest contribution of level `l` over local states `0..dom`.
    fn span(&self, l: usize, dom: u32) -> (i128, i128) {
        match &self.table[l] {
            None => {
                let a = self.linear[l] * (dom as i128 - 1).max(0);
                (a.min(0), a.max(0))
            }
            Some(_) => (0..dom.max(1)).fold((i128::MAX, i128::MIN), |(lo, hi), i| {
                let v = self.value(l, i);
                (lo.min(v), hi.max(v))
            }),
        }
    }
}

impl Atoms {
    /// Atoms over `model`, whose level `level_of_place[p]` holds place `p` (each on a level of
    /// its own).
    pub fn new(model: &Model, level_of_place: Vec<usize>) -> Atoms {
        Atoms {
            level_of_place,
            in_group: Vec::new(),
            guards: model.events.iter().map(|e| e.parts.clone()).collect(),
            num_levels: model.num_levels(),
        }
    }

    /// [`Atoms::new`] where place `p` may be the `in_group[p]`-th place of a one-hot group on
    /// its level.
    pub fn with_groups(
        model: &Model,
        level_of_place: Vec<usize>,
        in_group: Vec<Option<u32>>,
    ) -> Atoms {
        let mut a = Atoms::new(model, level_of_place);
        if in_group.iter().any(Option::is_some) {
            a.in_group = in_group;
        }
        a
    }

    /// These atoms over `model`, whose levels are this one's shifted up by `shift` (levels
    /// added below, e.g. a product's automaton).
    pub fn shifted(&self, model: &Model, shift: usize) -> Atoms {
        let levels = self.level_of_place.iter().map(|&l| l + shift).collect();
        Atoms::with_groups(model, levels, self.in_group.clone())
    }

    /// Atoms over a net lowered with `net.to_model(order)` (`order[k]` is the place at level
    /// `k + 1`); transition `t` of the net is event `t` of the model.
    pub fn for_petri(model: &Model, order: &[usize]) -> Atoms {
        let mut level_of_place = vec![0; order.len()];
        for (k, &p) in order.iter().enumerate() {
            level_of_place[p] = k + 1;
        }
        Atoms::new(model, level_of_place)
    }

    /// The level holding place `p`.
    pub fn level_of_place(&self, p: usize) -> Option<usize> {
        self.level_of_place.get(p).copied()
    }

    /// Place `p`'s index in the one-hot group of its level (`None`: a level of its own).
    pub fn in_group(&self, p: usize) -> Option<u32> {
        self.in_group.get(p).copied().flatten()
    }

    /// The coefficients of `expr`'s terms by level.
    fn coefs(&self, expr: &LinExpr) -> Result<Coefs, AtomError> {
        let k = self.num_levels;
        let mut c = Coefs {
            linear: vec![0i128; k + 1],
            table: vec![None; k + 1],
        };
        for &(p, x) in &expr.terms {
            let l = self.level(p)?;
            match self.in_group(p) {
                None => c.linear[l] += x as i128,
                Some(j) => {
                    let t = c.table[l].get_or_insert_with(Vec::new);
                    let j = j as usize;
                    if t.len() <= j {
                        t.resize(j + 1, 0);
                    }
                    t[j] += x as i128;
                }
            }
        }
        Ok(c)
    }

    /// The full sets below each level: `full[k]` holds every tuple over levels `1..=k` within
    /// the current domains (`full[0] = ONE`).
    fn full_levels(&self, forest: &mut Forest) -> Vec<NodeId> {
        let mut full = Vec::with_capacity(self.num_levels + 1);
        full.push(NodeId::ONE);
        let mut children = Vec::new();
        for k in 1..=self.num_levels {
            children.clear();
            children.resize(forest.domain(k) as usize, full[k - 1]);
            full.push(forest.make_node_dense(k, &children));
        }
        full
    }

    /// `pot`: every state within the current local domains (`true`).
    pub fn pot(&self, forest: &mut Forest) -> NodeId {
        self.full_levels(forest)[self.num_levels]
    }

    /// `pot \ a` (negation within `pot`).
    pub fn not(&self, forest: &mut Forest, a: NodeId) -> NodeId {
        let pot = self.pot(forest);
        forest.minus(pot, a)
    }

    /// `a ∩ rch`: the `rch` version of a `pot` set.
    pub fn restrict(&self, forest: &mut Forest, a: NodeId, rch: NodeId) -> NodeId {
        forest.intersect(a, rch)
    }

    /// The states of `pot` satisfying the atom `Σ c·m(p) op bound`.
    pub fn compare(&self, forest: &mut Forest, atom: &Atom) -> Result<NodeId, AtomError> {
        self.linear(forest, &atom.lhs, atom.op, atom.bound)
    }

    /// The states of `pot` where `expr op bound` (`expr.constant` included).
    pub fn linear(
        &self,
        forest: &mut Forest,
        expr: &LinExpr,
        op: CmpOp,
        bound: i64,
    ) -> Result<NodeId, AtomError> {
        let k = self.num_levels;
        let coef = self.coefs(expr)?;
        // range of the sum contributed by levels 1..=l over the current domains
        let mut lo = vec![0i128; k + 1];
        let mut hi = vec![0i128; k + 1];
        for l in 1..=k {
            let (a, b) = coef.span(l, forest.domain(l));
            lo[l] = lo[l - 1] + a;
            hi[l] = hi[l - 1] + b;
        }
        let full = self.full_levels(forest);
        let ctx = SumCtx {
            coef: &coef,
            lo: &lo,
            hi: &hi,
            full: &full,
            op,
            bound: bound as i128,
        };
        let mut memo = SumMemo::default();
        Ok(ctx.build(forest, &mut memo, k, expr.constant as i128))
    }

    /// The states of `pot` enabling at least one of `transitions` (the contest's
    /// `is-fireable`).
    pub fn enabled(&self, forest: &mut Forest, transitions: &[usize]) -> Result<NodeId, AtomError> {
        let full = self.full_levels(forest);
        let mut acc = NodeId::EMPTY;
        for &t in transitions {
            let parts = self.guards.get(t).ok_or(AtomError::UnknownTransition {
                transition: t,
                transitions: self.guards.len(),
            })?;
            let e = self.enabled_one(forest, &full, parts);
            acc = forest.union(acc, e);
        }
        Ok(acc)
    }

    /// The states of `pot` enabling no transition.
    pub fn deadlock(&self, forest: &mut Forest) -> NodeId {
        let full = self.full_levels(forest);
        let mut some = NodeId::EMPTY;
        for parts in &self.guards {
            let e = self.enabled_one(forest, &full, parts);
            some = forest.union(some, e);
        }
        forest.minus(full[self.num_levels], some)
    }

    /// `enabled(t)`: the product over levels of the local enabling conditions `parts` of an
    /// event (every local state at a level outside its support).
    fn enabled_one(
        &self,
        forest: &mut Forest,
        full: &[NodeId],
        parts: &[(usize, LocalFn)],
    ) -> NodeId {
        // parts are sorted by level, highest first: walk them bottom-up
        let mut node = NodeId::ONE;
        let mut below = 0usize;
        let mut edges = Vec::new();
        for (level, f) in parts.iter().rev() {
            let level = *level;
            node = self.lift(forest, full, node, below, level - 1);
            edges.clear();
            edges.extend(
                (0..forest.domain(level))
                    .filter(|&i| f.enabled(i))
                    .map(|i| Edge::new(i, node)),
            );
            node = forest.make_node(level, &edges);
            below = level;
        }
        self.lift(forest, full, node, below, self.num_levels)
    }

    /// Extend `node` (a set over levels `1..=from`) to levels `1..=to` with every local state
    /// at the levels in between.
    fn lift(
        &self,
        forest: &mut Forest,
        full: &[NodeId],
        mut node: NodeId,
        from: usize,
        to: usize,
    ) -> NodeId {
        if node.is_empty() {
            return node;
        }
        if node == full[from] {
            return full[to];
        }
        let mut children = Vec::new();
        for l in from + 1..=to {
            children.clear();
            children.resize(forest.domain(l) as usize, node);
            node = forest.make_node_dense(l, &children);
        }
        node
    }

    fn level(&self, p: usize) -> Result<usize, AtomError> {
        match self.level_of_place.get(p) {
            Some(&l) if l >= 1 && l <= self.num_levels => Ok(l),
            _ => Err(AtomError::UnknownPlace {
                place: p,
                places: self.level_of_place.len(),
            }),
        }
    }

    /// The set of `pot` states satisfying a boolean combination of atoms (no temporal
    /// operator: [`AtomError::Temporal`]).
    pub fn eval(&self, forest: &mut Forest, f: &StateFormula) -> Result<NodeId, AtomError> {
        use StateFormula as F;
        Ok(match f {
            F::Const(true) => self.pot(forest),
            F::Const(false) => NodeId::EMPTY,
            F::Deadlock => self.deadlock(forest),
            F::Atom(a) => self.compare(forest, a)?,
            F::Enabled(ts) => self.enabled(forest, ts)?,
            F::Not(a) => {
                let a = self.eval(forest, a)?;
                self.not(forest, a)
            }
            F::And(v) => {
                let mut acc = self.pot(forest);
                for a in v {
                    let a = self.eval(forest, a)?;
                    acc = forest.intersect(acc, a);
                }
                acc
            }
            F::Or(v) => {
                let mut acc = NodeId::EMPTY;
                for a in v {
                    let a = self.eval(forest, a)?;
                    acc = forest.union(acc, a);
                }
                acc
            }
            F::Implies(a, b) => {
                let a = self.eval(forest, a)?;
                let na = self.not(forest, a);
                let b = self.eval(forest, b)?;
                forest.union(na, b)
            }
            F::Iff(a, b) => {
                let a = self.eval(forest, a)?;
                let b = self.eval(forest, b)?;
                let ab = forest.intersect(a, b);
                let either = forest.union(a, b);
                let neither = self.not(forest, either);
                forest.union(ab, neither)
            }
            F::EX(_)
            | F::AX(_)
            | F::EF(_)
            | F::AF(_)
            | F::EG(_)
            | F::AG(_)
            | F::EU(..)
            | F::AU(..)
            | F::A(_)
            | F::E(_) => return Err(AtomError::Temporal),
        })
    }

    /// The minimum and maximum of `expr` over the states of `set` (`None` when `set` is
    /// empty), by one bottom-up pass over its nodes: UpperBounds on the MDD. `set` must be a
    /// node of a quasi-reduced forest at the top level.
    pub fn range(
        &self,
        forest: &Forest,
        set: NodeId,
        expr: &LinExpr,
    ) -> Result<Option<(i128, i128)>, AtomError> {
        let coef = self.coefs(expr)?;
        let mut memo: FxHashMap<NodeId, (i128, i128)> = FxHashMap::default();
        Ok(range_rec(forest, &coef, set, &mut memo)
            .map(|(lo, hi)| (lo + expr.constant as i128, hi + expr.constant as i128)))
    }
}

/// Min and max of the sum of the levels' contributions over the paths of `n`.
fn range_rec(
    forest: &Forest,
    coef: &Coefs,
    n: NodeId,
    memo: &mut FxHashMap<NodeId, (i128, i128)>,
) -> Option<(i128, i128)> {
    if n.is_empty() {
        return None;
    }
    if n.is_terminal() {
        return Some((0, 0));
    }
    if let Some(&r) = memo.get(&n) {
        return Some(r);
    }
    let l = forest.level(n);
    let mut out: Option<(i128, i128)> = None;
    for e in forest.edges(n) {
        if let Some((lo, hi)) = range_rec(forest, coef, e.child, memo) {
            let v = coef.value(l, e.idx);
            out = Some(match out {
                None => (v + lo, v + hi),
                Some((a, b)) => (a.min(v + lo), b.max(v + hi)),
            });
        }
    }
    if let Some(r) = out {
        memo.insert(n, r);
    }
    out
}

/// The fixed data of one comparison build.
struct SumCtx<'a> {
    coef: &'a Coefs,
    /// `lo[l]`, `hi[l]`: the range of the sum over levels `1..=l`.
    lo: &'a [i128],
    hi: &'a [i128],
    full: &'a [NodeId],
    op: CmpOp,
    bound: i128,
}

impl SumCtx<'_> {
    /// The set over levels `1..=level` of tuples `x` with `partial + Σ coef·x op bound`.
    fn build(
        &self,
        forest: &mut Forest,
        memo: &mut SumMemo,
        level: usize,
        partial: i128,
    ) -> NodeId {
        if let Some(all) = decide(
            self.op,
            partial + self.lo[level],
            partial + self.hi[level],
            self.bound,
        ) {
            return if all { self.full[level] } else { NodeId::EMPTY };
        }
        // level >= 1 here: at level 0 the range is the single value `partial`
        if let Some(&n) = memo.get(&(level, partial)) {
            return n;
        }
        let dom = forest.domain(level);
        let mut children = Vec::with_capacity(dom as usize);
        for i in 0..dom {
            children.push(self.build(forest, memo, level - 1, partial + self.coef.value(level, i)));
        }
        let n = forest.make_node_dense(level, &children);
        memo.insert((level, partial), n);
        n
    }
}

/// Does `v op bound` hold for every `v` in `lo..=hi` (`Some(true)`), for none (`Some(false)`),
/// or is it undecided (`None`)?
fn decide(op: CmpOp, lo: i128, hi: i128, b: i128) -> Option<bool> {
    let (all, none) = match op {
        CmpOp::Lt => (hi < b, lo >= b),
        CmpOp::Le => (hi <= b, lo > b),
        CmpOp::Gt => (lo > b, hi <= b),
        CmpOp::Ge => (lo >= b, hi < b),
        CmpOp::Eq => (lo == b && hi == b, b < lo || b > hi),
        CmpOp::Ne => (b < lo || b > hi, lo == b && hi == b),
    };
    if all {
        Some(true)
    } else if none {
        Some(false)
    } else {
        None
    }
}
