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
        if !a[0] {
            return None;
        }
        let g = self.graph();
        let stem = bfs(self, 0, a);
        let mut best: Option<usize> = None;
        for (k, d) in stem.iter().enumerate() {
            let Some(d) = *d else { continue };
            let total = if g.is_deadlock(k) {
                match self.deadlocks() {
                    Deadlocks::Maximal => Some(d),
                    Deadlocks::SelfLoop => Some(d + 1),
                }
            } else {
                cycle(self, k, a).map(|c| d + c)
            };
            if let Some(t) = total {
                best = Some(best.map_or(t, |b| b.min(t)));
            }
        }
        best
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
