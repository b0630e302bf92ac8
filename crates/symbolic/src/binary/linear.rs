//! The set of markings `{x : Y x = c}` within the layout's bits, as a quasi-reduced MDD read
//! least significant bits first: per equation the state is the carry of the sum so far, so
//! a conservation law over places holding thousands of tokens needs a handful of nodes per
//! level instead of one per partial sum.

use hashbrown::HashMap;
use saturn_dd::{Edge, Forest, NodeId};

use super::Layout;
use crate::modp::{inv, mul, reduce, sub, PRIME};

/// Equations `sum_p y_p x_p = c`, sparse by place.
pub struct System {
    /// Per place: the equations it appears in, with its coefficient.
    by_place: Vec<Vec<(usize, i128)>>,
    /// The right-hand sides.
    rhs: Vec<i128>,
    /// Per equation and block `b`: the least and greatest value the bits above block `b` can
    /// add (in units of `2^(b+1)`).
    range: Vec<Vec<(i128, i128)>>,
}

impl System {
    /// The equations `rows` (sparse `(place, coefficient)`) with right-hand sides the values
    /// they take on `m0`; `None` when a value does not fit.
    pub fn new(rows: &[Vec<(usize, i64)>], m0: &[u64], layout: &Layout) -> Option<System> {
        let mut by_place = vec![Vec::new(); m0.len()];
        let mut rhs = Vec::with_capacity(rows.len());
        let blocks = layout.bits.iter().copied().max().unwrap_or(0);
        let mut range = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            let mut c = 0i128;
            let mut per_block = vec![(0i128, 0i128); blocks as usize];
            for &(p, y) in row {
                let y = i128::from(y);
                by_place[p].push((i, y));
                c = c.checked_add(y.checked_mul(i128::from(m0[p]))?)?;
                for (b, r) in per_block.iter_mut().enumerate() {
                    let above = layout.bits[p].saturating_sub(b as u32 + 1);
                    let most = (1i128 << above) - 1;
                    let v = y.checked_mul(most)?;
                    if v < 0 {
                        r.0 = r.0.checked_add(v)?;
                    } else {
                        r.1 = r.1.checked_add(v)?;
                    }
                }
            }
            rhs.push(c);
            range.push(per_block);
        }
        Some(System {
            by_place,
            rhs,
            range,
        })
    }
}

/// The most arithmetic operations [`independent`] spends before keeping every equation.
const MAX_WORK: usize = 200_000_000;

/// The equations of `rows` (sparse over `places` places) that are not linear combinations of
/// those kept before them, so that the polytope is met with as few intersections as its rank
/// (the minimal P-semiflows are often many more). Independence is decided modulo a large
/// prime: an equation taken for a combination by mistake only leaves the set larger, still an
/// intersection of invariants, so closed under firing and holding every reachable marking.
pub fn independent(rows: &[Vec<(usize, i64)>], places: usize) -> Vec<&Vec<(usize, i64)>> {
    if rows
        .len()
        .saturating_mul(rows.len().min(places))
        .saturating_mul(places)
        > MAX_WORK
    {
        return rows.iter().collect();
    }
    // echelon rows, each with its pivot column, the pivot scaled to one
    let mut basis: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut kept = Vec::new();
    for row in rows {
        let mut v = vec![0u64; places];
        for &(p, y) in row {
            if p < places {
                v[p] = (v[p] + reduce(i128::from(y))) % PRIME;
            }
        }
        for (pivot, b) in &basis {
            let f = v[*pivot];
            if f != 0 {
                for (x, &y) in v.iter_mut().zip(b) {
                    *x = sub(*x, mul(f, y));
                }
            }
        }
        let Some(pivot) = v.iter().position(|&x| x != 0) else {
            continue;
        };
        let scale = inv(v[pivot]);
        for x in v.iter_mut() {
            *x = mul(*x, scale);
        }
        basis.push((pivot, v));
        kept.push(row);
    }
    kept
}

/// The set `{x : Y x = c}` over the layout's levels in the quasi-reduced `sets`, or `None`
/// when it would take more than `max_states` automaton states (diagram nodes) or `stop` says
/// so (asked every few thousand states).
pub fn linear_set(
    sets: &mut Forest,
    layout: &Layout,
    sys: &System,
    max_states: usize,
    stop: &dyn Fn() -> bool,
) -> Option<NodeId> {
    let k = layout.levels.len();
    let mut memo: HashMap<(usize, Vec<i128>), NodeId> = HashMap::new();
    let init = vec![0i128; sys.rhs.len()];
    let mut b = Builder {
        sets,
        layout,
        sys,
        memo: &mut memo,
        max_states,
        stop,
    };
    b.build(k, init)
}

struct Builder<'a> {
    sets: &'a mut Forest,
    layout: &'a Layout,
    sys: &'a System,
    memo: &'a mut HashMap<(usize, Vec<i128>), NodeId>,
    max_states: usize,
    stop: &'a dyn Fn() -> bool,
}

impl Builder<'_> {
    /// The node at level `l` for the partial sums `s` (in units of `2^b`, `b` the level's bit).
    fn build(&mut self, l: usize, s: Vec<i128>) -> Option<NodeId> {
        if l == 0 {
            return Some(NodeId::ONE);
        }
        if let Some(&n) = self.memo.get(&(l, s.clone())) {
            return Some(n);
        }
        if self.memo.len() >= self.max_states || (self.memo.len() % 4096 == 4095 && (self.stop)()) {
            return None;
        }
        let (p, b) = self.layout.levels[l - 1];
        // the last level of block b: the next level down reads another bit (or there is none)
        let block_end = l == 1 || self.layout.levels[l - 2].1 != b;
        let mut edges = Vec::with_capacity(2);
        'bit: for x in 0..2i128 {
            let mut next = s.clone();
            if x == 1 {
                for &(i, y) in &self.sys.by_place[p] {
                    next[i] += y;
                }
            }
            if block_end {
                for (i, v) in next.iter_mut().enumerate() {
                    let c = self.sys.rhs[i];
                    let bit = (c >> b) & 1;
                    if (*v - bit).rem_euclid(2) != 0 {
                        continue 'bit;
                    }
                    *v = (*v - bit).div_euclid(2);
                    // the bits above must make up (c >> (b+1)) - v
                    let need = (c >> (b + 1)) - *v;
                    let (lo, hi) = self.sys.range[i][b as usize];
                    if need < lo || need > hi {
                        continue 'bit;
                    }
                }
            }
            let c = self.build(l - 1, next)?;
            if !c.is_empty() {
                edges.push(Edge::new(x as u32, c));
            }
        }
        let n = if edges.is_empty() {
            NodeId::EMPTY
        } else {
            self.sets.make_node(l, &edges)
        };
        self.memo.insert((l, s), n);
        Some(n)
    }
}
