//! EV+MDD operations (thesis section 2.1.2, Figure 2.5; chapter 6, Definitions 14-15):
//! Min, Sum, plus a constant, MinState, and the lexicographic index function of a set.

use super::{larger_first, Ev, EvPlusForest, EvValue, Overflow, INF};
use crate::forest::{Edge, Forest, Reduction};
use crate::NodeId;

impl EvPlusForest {
    /// `f + c` for a constant `c` (`+∞` stays `+∞`).
    pub fn add_constant(&self, f: Ev<i64>, c: i64) -> Result<Ev<i64>, Overflow> {
        if f.is_default() {
            return Ok(f);
        }
        if c == INF {
            return Ok(Ev::default_fn());
        }
        Ok(Ev {
            val: i64::combine(f.val, c)?,
            node: f.node,
        })
    }

    /// The constant function `c` over the forest's universe (every index of every level's
    /// current domain).
    pub fn constant(&mut self, c: i64) -> Ev<i64> {
        self.constant_fn(c)
    }

    /// Thesis Figure 2.5, *Min*: the pointwise minimum of two functions.
    pub fn min(&mut self, a: Ev<i64>, b: Ev<i64>) -> Result<Ev<i64>, Overflow> {
        // lines 2-3: an infinite operand; then assume ρ ≥ σ
        let (a, b) = match larger_first(a, b) {
            Ok(ab) => ab,
            Err(other) => return Ok(other),
        };
        let (rho, p, sigma, q) = (a.val, a.node, b.val, b.node);
        let mu = sigma;
        // line 4: same node (includes p = q = Ω)
        if p == q {
            return Ok(Ev { val: mu, node: p });
        }
        let d = i64::pull(rho, sigma)?;
        // line 5
        if let Some((g, r)) = self.caches.min.get((p, q, d as u64)) {
            return Ok(Ev {
                val: i64::combine(mu, g)?,
                node: r,
            });
        }
        // lines 6-9: the edges of p (shifted by ρ−σ) and q merged by index
        let k = self.level(p);
        debug_assert_eq!(k, self.level(q), "quasi-reduced operands share their level");
        let mut pe = self.bufs.pop().unwrap_or_default();
        let mut qe = self.bufs.pop().unwrap_or_default();
        let mut out = self.bufs.pop().unwrap_or_default();
        pe.clear();
        qe.clear();
        out.clear();
        if !p.is_terminal() {
            pe.extend(self.edges(p).iter());
        }
        if !q.is_terminal() {
            qe.extend(self.edges(q).iter());
        }
        let (mut x, mut y) = (0, 0);
        while x < pe.len() || y < qe.len() {
            let i = pe
                .get(x)
                .map_or(u32::MAX, |e| e.idx)
                .min(qe.get(y).map_or(u32::MAX, |e| e.idx));
            let a = match pe.get(x) {
                Some(e) if e.idx == i => {
                    x += 1;
                    Ev {
                        val: i64::combine(d, e.val)?,
                        node: e.child,
                    }
                }
                _ => Ev::default_fn(),
            };
            let b = match qe.get(y) {
                Some(e) if e.idx == i => {
                    y += 1;
                    Ev {
                        val: e.val,
                        node: e.child,
                    }
                }
                _ => Ev::default_fn(),
            };
            let r = self.min(a, b)?;
            out.push(Edge::valued(i, r.node, r.val));
        }
        self.bufs.push(pe);
        self.bufs.push(qe);
        // lines 10-12
        let r = self.normalize(k, &mut out);
        self.bufs.push(out);
        let r = r?;
        self.caches.min.insert((p, q, d as u64), (r.val, r.node));
        Ok(Ev {
            val: i64::combine(mu, r.val)?,
            node: r.node,
        })
    }

    /// Thesis Figure 2.5, *Sum*: the pointwise sum of two functions (`+∞` absorbs).
    pub fn sum(&mut self, a: Ev<i64>, b: Ev<i64>) -> Result<Ev<i64>, Overflow> {
        // line 2
        if a.is_default() || b.is_default() {
            return Ok(Ev::default_fn());
        }
        let mu = i64::combine(a.val, b.val)?;
        let (p, q) = (a.node.min(b.node), a.node.max(b.node));
        if p == NodeId::ONE {
            return Ok(Ev { val: mu, node: p });
        }
        // line 3
        if let Some((g, r)) = self.caches.sum.get((p, q, 0)) {
            return Ok(Ev {
                val: i64::combine(mu, g)?,
                node: r,
            });
        }
        // lines 4-7: only indices where both are finite
        let k = self.level(p);
        let mut out = Vec::new();
        let qe = self.edges(q).to_vec();
        for e in self.edges(p).to_vec() {
            if let Ok(j) = qe.binary_search_by_key(&e.idx, |x| x.idx) {
                let x = Ev {
                    val: e.val,
                    node: e.child,
                };
                let y = Ev {
                    val: qe[j].val,
                    node: qe[j].child,
                };
                let r = self.sum(x, y)?;
                out.push(Edge::valued(e.idx, r.node, r.val));
            }
        }
        // lines 8-10
        let r = self.normalize(k, &mut out)?;
        self.caches.sum.insert((p, q, 0), (r.val, r.node));
        Ok(Ev {
            val: i64::combine(mu, r.val)?,
            node: r.node,
        })
    }

    /// *MinState* (thesis section 2.1.2): a state where `f` takes its minimum, and that
    /// minimum; `None` when `f` is `+∞` everywhere.
    pub fn min_state(&self, f: Ev<i64>) -> Option<(Vec<u32>, i64)> {
        self.extreme_state(f)
    }

    /// The index function of the set `s` of a quasi-reduced MDD forest over the same levels
    /// (thesis chapter 6, Definitions 14-15): a state of `s` maps to its position in the
    /// lexicographic order of `s` (local states ordered `0 ≺ 1 ≺ …`, the top level most
    /// significant), every other state to `+∞`. The result is `⟨0, o⟩` (or `+∞` for the empty
    /// set). `Err(Overflow)` when `s` has more than `i64::MAX` states.
    pub fn index_function(&mut self, sets: &Forest, s: NodeId) -> Result<Ev<i64>, Overflow> {
        assert!(
            sets.reduction() == Reduction::Quasi && sets.num_levels() == self.num_levels(),
            "index function: a quasi-reduced set over the forest's levels"
        );
        self.caches.check_mdd(sets.epoch());
        if s.is_empty() {
            return Ok(Ev::default_fn());
        }
        let (node, _) = self.index_rec(sets, s)?;
        Ok(Ev { val: 0, node })
    }

    /// The index node of set node `s` and the number of states of `s`.
    fn index_rec(&mut self, sets: &Forest, s: NodeId) -> Result<(NodeId, i64), Overflow> {
        if s == NodeId::ONE {
            return Ok((NodeId::ONE, 1));
        }
        if let Some(hit) = self.caches.index.get(s) {
            return Ok(hit);
        }
        // offsets: the states below smaller indices come first
        let mut out = Vec::with_capacity(sets.edges(s).len());
        let mut offset: i64 = 0;
        for e in sets.edges(s) {
            let (c, n) = self.index_rec(sets, e.child)?;
            out.push(Edge::valued(e.idx, c, offset));
            offset = i64::combine(offset, n)?;
        }
        // the first offset is 0: already normalised
        let node = self.f.make_node(sets.level(s), &out);
        self.caches.index.insert(s, (node, offset));
        Ok((node, offset))
    }

    /// The index of `state` under an index function (see [`EvPlusForest::index_function`]):
    /// `None` when the state is not in the set.
    pub fn index_of(&self, index: Ev<i64>, state: &[u32]) -> Option<u64> {
        match self.eval(index, state) {
            Ok(INF) | Err(_) => None,
            Ok(x) => u64::try_from(x).ok(),
        }
    }

    /// The state of index `x` under an index function (the inverse of
    /// [`EvPlusForest::index_of`]): at each node take the edge with the largest offset not
    /// past what remains. `None` when `x` is not below the number of states.
    pub fn state_of_index(&self, index: Ev<i64>, x: u64) -> Option<Vec<u32>> {
        if index.is_default() {
            return None;
        }
        let mut rest = i64::try_from(x).ok()?.checked_sub(index.val)?;
        let mut state = vec![0; self.num_levels()];
        let mut n = index.node;
        while !n.is_terminal() {
            let es = self.edges(n);
            let k = es.partition_point(|e| e.val <= rest);
            let e = es.get(k.checked_sub(1)?)?;
            state[self.level(n) - 1] = e.idx;
            rest -= e.val;
            n = e.child;
        }
        (rest == 0).then_some(state)
    }
}
