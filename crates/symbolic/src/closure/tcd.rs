//! The transitive closure with distances (thesis chapter 5, section 5.2.1, Definition 13):
//! `TCD_a(i, j)`, the length of a shortest path of positive length `i → … → j` whose states
//! all lie in the set `a`, `+∞` when there is none, as a `2L`-level EV+MDD (row `i` at the
//! unprimed levels, column `j` at the primed ones), built by saturation: ComputeTCD (Figure
//! 5.2) encodes the next-state relation `N` restricted to `a × a` with distance 1, and TCDSat
//! / TCDRelProdSat (Figure 5.3) close it, firing `N_k` (the events whose Top is level `k`) on
//! the column side to a local fixpoint of the pointwise minimum.
//!
//! The EV+MDD forest is the engine's own (the context has none); the set `a` and the
//! relations are nodes of the context's set and relation forests, which are not collected
//! while the engine runs (it only reads them). Each figure has its compute cache, keyed by
//! the constraint node and the (normalised) operand nodes: a result is `⟨λ, r⟩` for an
//! operand with dangling value 0, and the operand's value is added back (distances are
//! shift-equivariant).

use std::rc::Rc;

use rustc_hash::FxHashMap;
use saturn_dd::ev::{Ev, EvPlusForest, Overflow, Restrict};
use saturn_dd::{Cache, Dd, Edge, Forest, NodeId};
use saturn_model::Model;

use super::bounded::TcdRelations;
use super::sat::{fire_table, row_of, FireTable, Worklist};
use crate::limits::{Interrupted, Limits};

/// Why the closure with distances has no result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TcdError {
    #[error("{0}")]
    Interrupted(#[from] Interrupted),
    #[error("a distance does not fit in 64 bits")]
    Overflow,
}

impl From<Overflow> for TcdError {
    fn from(_: Overflow) -> TcdError {
        TcdError::Overflow
    }
}

/// A closure with distances: the EV+MDD forest that holds it and the function.
pub struct Tcd {
    /// The `2L`-level EV+MDD forest of `tcd`.
    pub matrix: EvPlusForest,
    /// `TCD_a` (see the module comment).
    pub tcd: Ev<i64>,
}

impl Tcd {
    /// `TCD_a(i, j)` for two states (local states by level); `None` for `+∞`.
    pub fn distance(&self, i: &[u32], j: &[u32]) -> Option<u64> {
        let t = EvPlusForest::matrix_tuple(i, j);
        match self.matrix.eval(self.tcd, &t) {
            Ok(saturn_dd::ev::INF) | Err(_) => None,
            Ok(d) => u64::try_from(d).ok(),
        }
    }
}

/// The saturation engine of Figure 5.3 on one constraint's forests.
struct TcdSat<'a> {
    sets: &'a Forest,
    rels: &'a Forest,
    /// `N_k`: the forward relation of the events whose Top is level `k` (unprimed: from).
    by_top: &'a [NodeId],
    ev: EvPlusForest,
    /// `(a, n) -> TCDSat(a, ⟨0, n⟩)`.
    sat: Cache<(NodeId, NodeId), (i64, NodeId)>,
    /// `(a, p) -> lines 4-18 of TCDSat on one row ⟨0, p⟩` ([`TcdSat::tcd_sat_row`]).
    row: Cache<(NodeId, NodeId), (i64, NodeId)>,
    /// `(a, n, r) -> TCDRelProdSat(a, ⟨0, n⟩, r)`.
    rel_prod: Cache<(NodeId, NodeId, NodeId), (i64, NodeId)>,
    /// The fire table of `N_k` within each constraint node met (its level is `k`).
    fire: FxHashMap<NodeId, Rc<FireTable>>,
    /// One worklist per variable (a local fixpoint at `k` only calls below `k`).
    work: Vec<Worklist>,
    /// Spare rows and pair lists, and the build's two edge lists.
    pool: Vec<Rows>,
    pairs: Vec<Vec<(u32, NodeId)>>,
    pairs_ev: Vec<Vec<Edge<i64>>>,
    edges: (Vec<Edge<i64>>, Vec<Edge<i64>>),
    limits: Limits,
    steps: u64,
}

/// ComputeTCD (thesis Figure 5.2): the closure with distances of the model's next-state
/// relation within the set `a` (a node of `dd.sets`, over the local states the set forest
/// knows): `⟨1, t0⟩ ← EVMDDencode(N)` restricted to `a × a`, then `TCDSat(a, ⟨1, t0⟩)`.
pub fn compute_tcd(dd: &mut Dd, model: &Model, a: NodeId, limits: Limits) -> Result<Tcd, TcdError> {
    let rels = TcdRelations::new(dd, model);
    compute_tcd_within(dd, &rels, a, limits)
}

/// ComputeTCD (thesis Figure 5.2) with the relations made once ([`TcdRelations`]), so that
/// the closures within several sets share them.
pub fn compute_tcd_within(
    dd: &mut Dd,
    rels: &TcdRelations,
    a: NodeId,
    limits: Limits,
) -> Result<Tcd, TcdError> {
    let levels = dd.num_levels();
    let domains: Vec<u32> = (1..=levels).map(|k| dd.sets.domain(k).max(1)).collect();
    let mut ev = EvPlusForest::new_interleaved(&domains);
    let t0 = ev.from_relation(&dd.rels, rels.all());
    let t0 = ev.restrict(t0, &dd.sets, a, Restrict::Rows)?;
    let t0 = ev.restrict(t0, &dd.sets, a, Restrict::Cols)?;
    let t0 = ev.add_constant(t0, 1)?;
    let by_top = rels.by_top();
    let mut eng = TcdSat {
        sets: &dd.sets,
        rels: &dd.rels,
        by_top: &by_top,
        ev,
        sat: Cache::new(14),
        rel_prod: Cache::new(14),
        row: Cache::new(14),
        fire: FxHashMap::default(),
        work: (0..=levels).map(|_| Worklist::new(0)).collect(),
        pool: Vec::new(),
        pairs: Vec::new(),
        pairs_ev: Vec::new(),
        edges: (Vec::new(), Vec::new()),
        limits,
        steps: 0,
    };
    let tcd = eng.tcd_sat(levels, a, t0)?;
    Ok(Tcd {
        matrix: eng.ev,
        tcd,
    })
}

/// The rows of a node under construction at variable `k`: row `x` is `(idx[x], cells[x *
/// dom .. (x + 1) * dom])`, the entries by column `j`. Taken from and given back to the
/// engine's pool, so the recursion allocates nothing once warm.
#[derive(Default)]
struct Rows {
    idx: Vec<u32>,
    cells: Vec<Ev<i64>>,
    dom: usize,
}

impl Rows {
    fn row_mut(&mut self, x: usize) -> &mut [Ev<i64>] {
        &mut self.cells[x * self.dom..(x + 1) * self.dom]
    }

    /// Append an empty row `i`.
    fn push(&mut self, i: u32) {
        self.idx.push(i);
        self.cells
            .extend(std::iter::repeat_n(Ev::default_fn(), self.dom));
    }

    /// Drop the last row.
    fn pop(&mut self) {
        self.idx.pop();
        self.cells.truncate(self.idx.len() * self.dom);
    }
}

impl TcdSat<'_> {
    /// Count a step and check the limits every few thousand.
    fn step(&mut self) -> Result<(), Interrupted> {
        self.steps += 1;
        if self.steps & 0xfff == 0 {
            self.limits.check()?;
        }
        Ok(())
    }

    /// An empty [`Rows`] of `dom` columns from the pool.
    fn take_rows(&mut self, dom: usize) -> Rows {
        let mut r = self.pool.pop().unwrap_or_default();
        r.idx.clear();
        r.cells.clear();
        r.dom = dom;
        r
    }

    /// The rows of EV node `n` at variable `k` (level `2k`), values relative to `n`.
    fn rows(&mut self, n: NodeId, k: usize) -> Rows {
        let dom = self.ev.domain(2 * k) as usize;
        let mut rows = self.take_rows(dom);
        for e in self.ev.edges(n).iter() {
            rows.push(e.idx);
            let x = rows.idx.len() - 1;
            let row = rows.row_mut(x);
            for c in self.ev.edges(e.child).iter() {
                row[c.idx as usize] = Ev {
                    val: e.val + c.val,
                    node: c.child,
                };
            }
        }
        rows
    }

    /// The node at variable `k` with the given rows (Normalize, InsertUT); the rows go back
    /// to the pool.
    fn build(&mut self, k: usize, rows: Rows) -> Result<Ev<i64>, Overflow> {
        let (mut unprimed, mut primed) = std::mem::take(&mut self.edges);
        unprimed.clear();
        let mut r = Ok(());
        for (x, &i) in rows.idx.iter().enumerate() {
            primed.clear();
            primed.extend(
                rows.cells[x * rows.dom..(x + 1) * rows.dom]
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| !c.is_default())
                    .map(|(j, c)| Edge::valued(j as u32, c.node, c.val)),
            );
            match self.ev.normalize(2 * k - 1, &mut primed) {
                Ok(p) if !p.is_default() => unprimed.push(Edge::valued(i, p.node, p.val)),
                Ok(_) => {}
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        self.pool.push(rows);
        let t = r.and_then(|()| self.ev.normalize(2 * k, &mut unprimed));
        self.edges = (unprimed, primed);
        t
    }

    /// `⟨val + r.val, r.node⟩` for a cached or computed result `r` of an operand valued `val`.
    fn plus(val: i64, r: Ev<i64>) -> Result<Ev<i64>, Overflow> {
        if r.is_default() {
            return Ok(r);
        }
        Ok(Ev {
            val: val.checked_add(r.val).ok_or(Overflow)?,
            node: r.node,
        })
    }

    /// The [`FireTable`] of `N_k` within `a` (a set node at level `k`), made once per `a`.
    fn fire_of(&mut self, a: NodeId, k: usize) -> Rc<FireTable> {
        let r = self.by_top.get(k).copied().unwrap_or(NodeId::EMPTY);
        let (rels, sets) = (self.rels, self.sets);
        self.fire
            .entry(a)
            .or_insert_with(|| Rc::new(fire_table(rels, sets, r, a, k)))
            .clone()
    }

    /// TCDSat (thesis Figure 5.3, left) at variable `k`: `f` (a node at level `2k`) closed
    /// under the events of levels `1..=k` applied to its column side within `a` (a set node
    /// at level `k`): every `(i, j')` with `(i, j)` in `f` and a path `j → … → j'` by those
    /// events whose states after `j` lie in `a`, at the least `f(i, j)` + length. The
    /// saturation acts on the columns only, so each row (lines 4-18 for one `i`) is a
    /// function of its primed node: [`TcdSat::tcd_sat_row`], cached, so that rows sharing
    /// a node (up to their normalisation value) are closed once.
    fn tcd_sat(&mut self, k: usize, a: NodeId, f: Ev<i64>) -> Result<Ev<i64>, TcdError> {
        if f.is_default() || k == 0 {
            return Ok(f);
        }
        self.step()?;
        if let Some((l, r)) = self.sat.get((a, f.node)) {
            return Ok(Self::plus(f.val, Ev { val: l, node: r })?);
        }
        let mut unprimed = self.pairs_ev.pop().unwrap_or_default();
        unprimed.clear();
        unprimed.extend(self.ev.edges(f.node).iter());
        for e in unprimed.iter_mut() {
            let r = self.tcd_sat_row(k, a, e.child)?;
            *e = match Self::plus(e.val, r)? {
                r if r.is_default() => Edge::valued(e.idx, NodeId::EMPTY, r.val),
                r => Edge::valued(e.idx, r.node, r.val),
            };
        }
        // line 19
        let t = self.ev.normalize(2 * k, &mut unprimed)?;
        self.pairs_ev.push(unprimed);
        self.sat.insert((a, f.node), (t.val, t.node));
        Ok(Self::plus(f.val, t)?)
    }

    /// Lines 4-18 of TCDSat for one row whose columns are the primed node `p` (level
    /// `2k - 1`, values relative to `⟨0, p⟩`): the nodes below saturated, then the local
    /// fixpoint under `N_k` on the columns within `a`; the new primed node.
    fn tcd_sat_row(&mut self, k: usize, a: NodeId, p: NodeId) -> Result<Ev<i64>, TcdError> {
        if let Some((l, r)) = self.row.get((a, p)) {
            return Ok(Ev { val: l, node: r });
        }
        let dom = self.ev.domain(2 * k - 1) as usize;
        let mut rows = self.take_rows(dom);
        rows.push(0);
        for c in self.ev.edges(p).iter() {
            rows.cells[c.idx as usize] = Ev {
                val: c.val,
                node: c.child,
            };
        }
        // lines 4-8: saturate the nodes below
        for j in 0..dom {
            let c = rows.cells[j];
            if c.is_default() {
                continue;
            }
            let aj = self.sets.child_at(a, k, j as u32);
            if !aj.is_empty() {
                rows.cells[j] = self.tcd_sat(k - 1, aj, c)?;
            }
        }
        // lines 9-18: the local fixpoint under N_k on the columns
        let r = self.by_top.get(k).copied().unwrap_or(NodeId::EMPTY);
        if !r.is_empty() {
            let fire = self.fire_of(a, k);
            let mut work = std::mem::take(&mut self.work[k]);
            work.reset(dom);
            work.start(rows.cells.iter().map(|c| !c.is_default()), &fire);
            while let Some(j) = work.pop() {
                for &(j2, rc, aj2) in &fire[j as usize] {
                    let src = rows.cells[j as usize];
                    let u = self.tcd_rel_prod_sat(k - 1, aj2, src, rc)?;
                    // line 14: one more step
                    let u = self.ev.add_constant(u, 1)?;
                    let old = rows.cells[j2 as usize];
                    let new = self.ev.min(old, u)?;
                    if new != old {
                        rows.cells[j2 as usize] = new;
                        work.push(j2, &fire);
                    }
                }
            }
            self.work[k] = work;
        }
        let (unprimed, mut primed) = std::mem::take(&mut self.edges);
        primed.clear();
        primed.extend(
            rows.cells
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.is_default())
                .map(|(j, c)| Edge::valued(j as u32, c.node, c.val)),
        );
        self.pool.push(rows);
        let t = self.ev.normalize(2 * k - 1, &mut primed);
        self.edges = (unprimed, primed);
        let t = t?;
        self.row.insert((a, p), (t.val, t.node));
        Ok(t)
    }

    /// TCDRelProdSat (thesis Figure 5.3, right) at variable `k`: the relation `r` (a node of
    /// the relation forest, identity above its Top) applied to the column side of `f` within
    /// `a`, no step counted (the step is the event's, counted at its Top), then saturated by
    /// [`TcdSat::tcd_sat`].
    fn tcd_rel_prod_sat(
        &mut self,
        k: usize,
        a: NodeId,
        f: Ev<i64>,
        r: NodeId,
    ) -> Result<Ev<i64>, TcdError> {
        if f.is_default() || r.is_empty() {
            return Ok(Ev::default_fn());
        }
        if k == 0 {
            return Ok(f);
        }
        self.step()?;
        if let Some((l, t)) = self.rel_prod.get((a, f.node, r)) {
            return Ok(Self::plus(f.val, Ev { val: l, node: t })?);
        }
        let rows = self.rows(f.node, k);
        let dom = rows.dom;
        let mut out = self.take_rows(dom);
        let mut rpairs = self.pairs.pop().unwrap_or_default();
        for (x, &i) in rows.idx.iter().enumerate() {
            out.push(i);
            let y = out.idx.len() - 1;
            let mut any = false;
            for j in 0..dom {
                let c = rows.cells[x * dom + j];
                if c.is_default() {
                    continue;
                }
                row_of(self.rels, r, k, j as u32, &mut rpairs);
                for &(j2, rc) in &rpairs {
                    let aj2 = self.sets.child_at(a, k, j2);
                    if aj2.is_empty() {
                        continue;
                    }
                    let u = self.tcd_rel_prod_sat(k - 1, aj2, c, rc)?;
                    if !u.is_default() {
                        let cell = &mut out.row_mut(y)[j2 as usize];
                        *cell = self.ev.min(*cell, u)?;
                        any = true;
                    }
                }
            }
            if !any {
                out.pop();
            }
        }
        self.pairs.push(rpairs);
        self.pool.push(rows);
        // line 13
        let t = self.build(k, out)?;
        let t = self.tcd_sat(k, a, t)?;
        self.rel_prod.insert((a, f.node, r), (t.val, t.node));
        Ok(Self::plus(f.val, t)?)
    }
}
