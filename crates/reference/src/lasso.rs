//! The length of a shortest `EG a` witness from the initial state, explicitly: the oracle of the
//! symbolic shortest witnesses (thesis chapter 5). A witness is a lasso within `a` (a stem from
//! the initial state to a knot, then a cycle back to the knot) of least total length
//! `stem + cycle`, the minimum over every knot; a deadlock of `a` is a knot whose cycle is its
//! own loop (length 1) under [`Deadlocks::SelfLoop`], and under [`Deadlocks::Maximal`] the end
//! of a maximal path of length `stem`. Stems by one breadth-first search from the initial state
//! within `a`, cycles by one from each knot within `a`.

use std::collections::VecDeque;

use crate::ctl::{CtlChecker, Deadlocks};

impl CtlChecker<'_> {
    /// The least number of steps of a witness of `EG a` from state 0 (a lasso, or a maximal
    /// path ending in a deadlock, within `a`); `None` when `EG a` fails there.
    pub fn shortest_eg_witness(&self, a: &[bool]) -> Option<usize> {
        self.least_lasso(a, |k| {
            if self.graph().is_deadlock(k) {
                match self.deadlocks() {
                    // a maximal path ends here: no step more
                    Deadlocks::Maximal => Some(0),
                    Deadlocks::SelfLoop => Some(1),
                }
            } else {
                cycle(self, k, a)
            }
        })
    }

    /// `min_k stem(k) + cycle(k)` over the knots `k` reachable from state 0 within `a` (`stem`
    /// by breadth-first search within `a`); `None` when `a` misses state 0 or no knot has a
    /// cycle.
    fn least_lasso(&self, a: &[bool], cycle: impl Fn(usize) -> Option<usize>) -> Option<usize> {
        if !a[0] {
            return None;
        }
        let stem = bfs(self, 0, a);
        stem.iter()
            .enumerate()
            .filter_map(|(k, d)| Some(d.as_ref()? + cycle(k)?))
            .min()
    }
}

/// Breadth-first distances from `s` within `a` (`s` itself at 0).
fn bfs(c: &CtlChecker<'_>, s: usize, a: &[bool]) -> Vec<Option<usize>> {
    let g = c.graph();
    let mut dist = vec![None; g.num_states()];
    dist[s] = Some(0);
    let mut queue = VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        let du = dist[u].expect("queued states have a distance");
        for &t in g.succ(u) {
            let t = t as usize;
            if a[t] && dist[t].is_none() {
                dist[t] = Some(du + 1);
                queue.push_back(t);
            }
        }
    }
    dist
}

/// The length of a shortest cycle through `k` within `a`: one more than the distance from `k`
/// to its nearest predecessor in `a` (a self-loop: 1).
fn cycle(c: &CtlChecker<'_>, k: usize, a: &[bool]) -> Option<usize> {
    let dist = bfs(c, k, a);
    c.graph()
        .pred(k)
        .iter()
        .filter(|&&p| a[p as usize])
        .filter_map(|&p| dist[p as usize].map(|d| d + 1))
        .min()
}

impl CtlChecker<'_> {
    /// The least number of steps of a *fair* lasso within `a` from state 0 (thesis section
    /// 5.3.2): a stem to a knot `k`, then a cycle back to `k` within `a` holding a state of every
    /// set of `fair` (the knot counts as on its cycle); under [`Deadlocks::SelfLoop`] a deadlock
    /// of `a` in every set is a knot whose cycle is its own loop; under [`Deadlocks::Maximal`] a
    /// finite path is never fair. By brute force: for every knot and every order of the sets, a
    /// breadth-first search for the shortest closed walk meeting the sets in that order.
    /// `None` when there is none.
    pub fn shortest_fair_lasso(&self, a: &[bool], fair: &[Vec<bool>]) -> Option<usize> {
        let cost = self.knot_costs(a, fair, false);
        self.least_lasso(a, |k| cost[k])
    }

    /// For each state `k` of `a`: the length of a shortest cycle through `k` within `a`
    /// meeting every set of `sets` (every order of the sets, breadth-first); at a deadlock, 1
    /// for its own loop under [`Deadlocks::SelfLoop`] when it is in every set, and 0 (the end
    /// of a maximal path) when `maximal_ends` under [`Deadlocks::Maximal`] and it is in every
    /// set; `None` when there is none.
    pub fn knot_costs(
        &self,
        a: &[bool],
        sets: &[Vec<bool>],
        maximal_ends: bool,
    ) -> Vec<Option<usize>> {
        let g = self.graph();
        (0..g.num_states())
            .map(|k| {
                if !a[k] {
                    None
                } else if g.is_deadlock(k) {
                    let all = sets.iter().all(|f| f[k]);
                    match self.deadlocks() {
                        Deadlocks::SelfLoop => all.then_some(1),
                        Deadlocks::Maximal => (all && maximal_ends).then_some(0),
                    }
                } else {
                    permutations(sets.len())
                        .into_iter()
                        .filter_map(|order| ordered_cycle(self, k, a, sets, &order))
                        .min()
                }
            })
            .collect()
    }

    /// The least number of steps of a witness of the path formula `F(r ∧ G s)` from state 0
    /// (thesis section 5.3.1, the two shapes of its Figure 5.4, by their formulas): (a) a stem
    /// to a state `x` of `r ∧ s`, then a path within `s` to a knot `k` and a cycle through `k`
    /// within `s` meeting every set of `fair` (or, without fairness under the maximal reading,
    /// a path within `s` to a deadlock), `stem(x) + d_s(x, k) + cycle(k)`; (b) a stem to a
    /// knot `k` of `s` whose cycle within `s` meets `r` and every set of `fair`, `stem(k) +
    /// cycle_r(k)`. Stems unconstrained. `None` when there is none.
    pub fn shortest_until_globally(
        &self,
        r: &[bool],
        s: &[bool],
        fair: &[Vec<bool>],
    ) -> Option<usize> {
        let n = self.graph().num_states();
        let all = vec![true; n];
        let ends = fair.is_empty();
        let cyc1 = self.knot_costs(s, fair, ends);
        let mut with_r = vec![r.to_vec()];
        with_r.extend(fair.iter().cloned());
        let cyc0 = self.knot_costs(s, &with_r, false);
        let stem = bfs(self, 0, &all);
        let a = (0..n)
            .filter(|&x| r[x] && s[x] && stem[x].is_some())
            .filter_map(|x| {
                let d = bfs(self, x, s);
                let tail = (0..n).filter_map(|k| Some(d[k]? + cyc1[k]?)).min()?;
                Some(stem[x]? + tail)
            });
        let b = (0..n).filter_map(|k| Some(stem[k]? + cyc0[k]?));
        a.chain(b).min()
    }

    /// The least number of steps of a witness of `G F φ` from state 0 (thesis section 5.3.1,
    /// Equation 5.2): a lasso whose cycle meets `phi` and every set of `fair`, or, without
    /// fairness under the maximal reading, a path ending in a deadlock of `phi`.
    pub fn shortest_recurrent(&self, phi: &[bool], fair: &[Vec<bool>]) -> Option<usize> {
        let all = vec![true; self.graph().num_states()];
        let mut sets = vec![phi.to_vec()];
        sets.extend(fair.iter().cloned());
        let cost = self.knot_costs(&all, &sets, fair.is_empty());
        self.least_lasso(&all, |k| cost[k])
    }
}

/// Every order of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// The length of a shortest closed walk from `k` within `a` (at least one step) whose states
/// after `k` meet `fair[order[0]]`, then `fair[order[1]]`, ... in that order (a state may meet
/// several at once): breadth-first over (state, sets met so far).
fn ordered_cycle(
    c: &CtlChecker<'_>,
    k: usize,
    a: &[bool],
    fair: &[Vec<bool>],
    order: &[usize],
) -> Option<usize> {
    let n = order.len();
    let g = c.graph();
    let advance = |t: usize, mut ph: usize| {
        while ph < n && fair[order[ph]][t] {
            ph += 1;
        }
        ph
    };
    let mut dist = vec![vec![None; n + 1]; g.num_states()];
    let mut queue = VecDeque::from([(k, 0usize, 0usize)]);
    while let Some((u, ph, du)) = queue.pop_front() {
        for &t in g.succ(u) {
            let t = t as usize;
            if !a[t] {
                continue;
            }
            let p2 = advance(t, ph);
            if t == k && p2 == n {
                return Some(du + 1);
            }
            if dist[t][p2].is_none() {
                dist[t][p2] = Some(du + 1);
                queue.push_back((t, p2, du + 1));
            }
        }
    }
    None
}
