//! TransClosSat and TCRelProdSat (thesis Figures 4.5 and 4.6): saturation run on the primed
//! levels of a 2L-level relation, firing the backward next-state relation `P_k` of each level to
//! a local fixpoint, constrained to a set.

use saturn_dd::{unprimed_level, Edge, Forest, NodeId};

use super::Closure;

/// The `(j, child)` pairs of relation node `n` below from-index `i` at variable `k` (a node
/// whose variable is below `k` is the identity there: the one pair `(i, n)`).
pub(super) fn row_of(rels: &Forest, n: NodeId, k: usize, i: u32, out: &mut Vec<(u32, NodeId)>) {
    out.clear();
    if rels.relation_top(n) < k {
        out.push((i, n));
        return;
    }
    let p = rels.child_at(n, unprimed_level(k), i);
    if p.is_empty() {
        return;
    }
    out.extend(rels.edges(p).iter().map(|e| (e.idx, e.child)));
}

/// For each local state `j` of variable `k`, the moves of relation `r` from `j` into the
/// constraint `a` (a set node at level `k`): `(j', child of r, a[j'])`.
pub(super) type FireTable = Vec<Vec<(u32, NodeId, NodeId)>>;

/// The [`FireTable`] of `r` at variable `k` within `a` (over the relation forest's domain).
pub(super) fn fire_table(
    rels: &Forest,
    sets: &Forest,
    r: NodeId,
    a: NodeId,
    k: usize,
) -> FireTable {
    let dom = rels.domain(unprimed_level(k)).max(1);
    let mut pairs = Vec::new();
    (0..dom)
        .map(|j| {
            row_of(rels, r, k, j, &mut pairs);
            pairs
                .iter()
                .filter_map(|&(j2, rc)| {
                    let aj2 = sets.child_at(a, k, j2);
                    (!aj2.is_empty()).then_some((j2, rc, aj2))
                })
                .collect()
        })
        .collect()
}

/// The local states of one row still to fire in a local fixpoint (Meddly's queue of changed
/// indices): only those with a move in the [`FireTable`]. First in, first out: with distances
/// (the closure with distances) a local state is then fired again after a shorter distance
/// reached it only as often as breadth-first order needs, not once per longer detour.
#[derive(Default)]
pub(super) struct Worklist {
    queue: std::collections::VecDeque<u32>,
    queued: Vec<bool>,
}

impl Worklist {
    pub(super) fn new(dom: usize) -> Worklist {
        Worklist {
            queue: std::collections::VecDeque::new(),
            queued: vec![false; dom],
        }
    }

    /// Make it fit rows of `dom` local states (keeping its memory).
    pub(super) fn reset(&mut self, dom: usize) {
        self.queue.clear();
        self.queued.clear();
        self.queued.resize(dom, false);
    }

    /// Start a row: every local state present (`present`) with a move.
    pub(super) fn start(&mut self, present: impl Iterator<Item = bool>, fire: &FireTable) {
        self.queue.clear();
        self.queued.iter_mut().for_each(|q| *q = false);
        for (j, p) in present.enumerate() {
            if p {
                self.push(j as u32, fire);
            }
        }
    }

    /// Queue `j` (changed) unless it is queued or has no move.
    pub(super) fn push(&mut self, j: u32, fire: &FireTable) {
        if !self.queued[j as usize] && !fire[j as usize].is_empty() {
            self.queued[j as usize] = true;
            self.queue.push_back(j);
        }
    }

    pub(super) fn pop(&mut self) -> Option<u32> {
        let j = self.queue.pop_front()?;
        self.queued[j as usize] = false;
        Some(j)
    }
}

/// The from-indices of relation node `n` at variable `k` with a non-empty row.
fn from_indices(rels: &Forest, n: NodeId, k: usize) -> Vec<u32> {
    if rels.relation_top(n) < k {
        (0..rels.domain(unprimed_level(k)).max(1)).collect()
    } else {
        rels.edges(n).iter().map(|e| e.idx).collect()
    }
}

/// The relation node at variable `k` with rows `rows[x] = (i, dense row over j)`.
fn build(rels: &mut Forest, k: usize, rows: &[(u32, Vec<NodeId>)]) -> NodeId {
    let mut unprimed: Vec<Edge> = Vec::with_capacity(rows.len());
    let mut primed: Vec<Edge> = Vec::new();
    for (i, row) in rows {
        primed.clear();
        primed.extend(
            row.iter()
                .enumerate()
                .filter(|(_, c)| !c.is_empty())
                .map(|(j, &c)| Edge::new(j as u32, c)),
        );
        let p = rels.make_node(unprimed_level(k) - 1, &primed);
        if !p.is_empty() {
            unprimed.push(Edge::new(*i, p));
        }
    }
    rels.make_node(unprimed_level(k), &unprimed)
}

impl Closure<'_> {
    /// Count a step; false once a limit has stopped the computation.
    #[inline]
    fn go_on(&mut self) -> bool {
        if self.stop.is_some() {
            return false;
        }
        self.steps += 1;
        if self.steps & 0xfff == 0 {
            if let Err(i) = self.limits.check() {
                self.stop = Some(i);
                return false;
            }
        }
        true
    }

    /// The constraint below local state `j` of variable `k` (EMPTY: `j` is outside it).
    #[inline]
    fn cons_child(&self, a: NodeId, k: usize, j: u32) -> NodeId {
        self.dd.sets.child_at(a, k, j)
    }

    /// `TransClosSat(a, n)` (thesis Figure 4.5) at variable `k`: `n` with its primed side
    /// saturated backward within `a` (a set node at level `k`, EMPTY-free): every `(i, m)` such
    /// that `(i, j) ∈ n` and `m` reaches `j` by a path whose states before `j` all lie in `a`
    /// (Property 1), using the events of levels `1..=k`. Nothing is cached once a limit stopped
    /// the computation (the result is then meaningless).
    pub(super) fn trans_clos_sat_rec(&mut self, k: usize, a: NodeId, n: NodeId) -> NodeId {
        if n.is_empty() || k == 0 {
            return n;
        }
        if !self.go_on() {
            return NodeId::EMPTY;
        }
        if let Some(t) = self.c.as_mut().expect("inside a call").tcs.get((a, n)) {
            return t;
        }
        let dom = self.dd.rels.domain(unprimed_level(k)).max(1) as usize;
        let mut pairs = Vec::new();
        let mut rows: Vec<(u32, Vec<NodeId>)> = Vec::new();
        // lines 6-12: saturate the nodes below first
        for i in from_indices(&self.dd.rels, n, k) {
            row_of(&self.dd.rels, n, k, i, &mut pairs);
            if pairs.is_empty() {
                continue;
            }
            let mut row = vec![NodeId::EMPTY; dom];
            for &(j, c) in &pairs {
                let aj = self.cons_child(a, k, j);
                row[j as usize] = if aj.is_empty() {
                    c
                } else {
                    self.trans_clos_sat_rec(k - 1, aj, c)
                };
            }
            rows.push((i, row));
        }
        // lines 13-19: the local fixpoint of each row under P_k, on the primed side
        let r = self.rels.by_top(k);
        if !r.is_empty() {
            let fire = fire_table(&self.dd.rels, &self.dd.sets, r, a, k);
            let mut work = Worklist::new(dom);
            for (_, row) in rows.iter_mut() {
                work.start(row.iter().map(|c| !c.is_empty()), &fire);
                while let Some(j) = work.pop() {
                    for &(j2, rc, aj2) in &fire[j as usize] {
                        let src = row[j as usize];
                        let new = self.tc_rel_prod_sat(k - 1, aj2, src, rc);
                        let old = row[j2 as usize];
                        let u = self.dd.rels.union(old, new);
                        if u != old {
                            row[j2 as usize] = u;
                            work.push(j2, &fire);
                        }
                    }
                    if self.stop.is_some() {
                        return NodeId::EMPTY;
                    }
                }
            }
        }
        if self.stop.is_some() {
            return NodeId::EMPTY;
        }
        let t = build(&mut self.dd.rels, k, &rows);
        self.c
            .as_mut()
            .expect("inside a call")
            .tcs
            .insert((a, n), t);
        t
    }

    /// `TCRelProdSat(a, n, r)` (thesis Figure 4.6) at variable `k`: the relation `n` with the
    /// relation `r` applied to its primed side (`(i, j) ∈ n`, `(j, j') ∈ r`, `j'` in `a`), then
    /// saturated by [`Closure::trans_clos_sat`] (Figure 4.5).
    pub(super) fn tc_rel_prod_sat(&mut self, k: usize, a: NodeId, n: NodeId, r: NodeId) -> NodeId {
        if n.is_empty() || r.is_empty() {
            return NodeId::EMPTY;
        }
        if k == 0 {
            return NodeId::ONE;
        }
        if !self.go_on() {
            return NodeId::EMPTY;
        }
        if let Some(t) = self.c.as_mut().expect("inside a call").tcr.get((a, n, r)) {
            return t;
        }
        let dom = self.dd.rels.domain(unprimed_level(k)).max(1) as usize;
        let (mut npairs, mut rpairs) = (Vec::new(), Vec::new());
        let mut rows: Vec<(u32, Vec<NodeId>)> = Vec::new();
        for i in from_indices(&self.dd.rels, n, k) {
            row_of(&self.dd.rels, n, k, i, &mut npairs);
            let mut row = vec![NodeId::EMPTY; dom];
            let mut any = false;
            for &(j, nc) in &npairs {
                row_of(&self.dd.rels, r, k, j, &mut rpairs);
                for &(j2, rc) in &rpairs {
                    let aj2 = self.cons_child(a, k, j2);
                    if aj2.is_empty() {
                        continue;
                    }
                    let t = self.tc_rel_prod_sat(k - 1, aj2, nc, rc);
                    if !t.is_empty() {
                        let old = row[j2 as usize];
                        row[j2 as usize] = self.dd.rels.union(old, t);
                        any = true;
                    }
                }
            }
            if any {
                rows.push((i, row));
            }
        }
        if self.stop.is_some() {
            return NodeId::EMPTY;
        }
        let t = build(&mut self.dd.rels, k, &rows);
        let t = self.trans_clos_sat_rec(k, a, t);
        if self.stop.is_some() {
            return NodeId::EMPTY;
        }
        self.c
            .as_mut()
            .expect("inside a call")
            .tcr
            .insert((a, n, r), t);
        t
    }
}
