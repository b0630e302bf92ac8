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

use saturn_dd::ev::{Ev, EvPlusForest, Overflow, Restrict};
use saturn_dd::{Cache, Dd, Edge, Forest, NodeId};
use saturn_model::Model;

use super::sat::{fire_table, row_of, Worklist};
use crate::limits::{Interrupted, Limits};
use crate::scc::relations_by_top;

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
    /// `(a, n, r) -> TCDRelProdSat(a, ⟨0, n⟩, r)`.
    rel_prod: Cache<(NodeId, NodeId, NodeId), (i64, NodeId)>,
    limits: Limits,
    steps: u64,
}

/// ComputeTCD (thesis Figure 5.2): the closure with distances of the model's next-state
/// relation within the set `a` (a node of `dd.sets`, over the local states the set forest
/// knows): `⟨1, t0⟩ ← EVMDDencode(N)` restricted to `a × a`, then `TCDSat(a, ⟨1, t0⟩)`.
pub fn compute_tcd(dd: &mut Dd, model: &Model, a: NodeId, limits: Limits) -> Result<Tcd, TcdError> {
    let levels = model.num_levels();
    let domains: Vec<u32> = (1..=levels).map(|k| dd.sets.domain(k).max(1)).collect();
    let by_top = relations_by_top(&mut dd.rels, model, &domains, false);
    let _pins: Vec<_> = by_top.iter().map(|&r| dd.pin_rel(r)).collect();
    let n = dd.rels.union_all(&by_top);
    let mut ev = EvPlusForest::new_interleaved(&domains);
    let t0 = ev.from_relation(&dd.rels, n);
    let t0 = ev.restrict(t0, &dd.sets, a, Restrict::Rows)?;
    let t0 = ev.restrict(t0, &dd.sets, a, Restrict::Cols)?;
    let t0 = ev.add_constant(t0, 1)?;
    let mut eng = TcdSat {
        sets: &dd.sets,
        rels: &dd.rels,
        by_top: &by_top,
        ev,
        sat: Cache::new(14),
        rel_prod: Cache::new(14),
        limits,
        steps: 0,
    };
    let tcd = eng.tcd_sat(levels, a, t0)?;
    Ok(Tcd {
        matrix: eng.ev,
        tcd,
    })
}

/// One row of a node under construction at variable `k`: `(i, entries by column j)`.
type Row = (u32, Vec<Ev<i64>>);

impl TcdSat<'_> {
    /// Count a step and check the limits every few thousand.
    fn step(&mut self) -> Result<(), Interrupted> {
        self.steps += 1;
        if self.steps & 0xfff == 0 {
            self.limits.check()?;
        }
        Ok(())
    }

    /// The rows of EV node `n` at variable `k` (level `2k`), values relative to `n`.
    fn rows(&self, n: NodeId, k: usize) -> Vec<Row> {
        let dom = self.ev.domain(2 * k) as usize;
        let mut rows = Vec::new();
        for e in self.ev.edges(n).to_vec() {
            let mut row = vec![Ev::default_fn(); dom];
            for c in self.ev.edges(e.child).iter() {
                row[c.idx as usize] = Ev {
                    val: e.val + c.val,
                    node: c.child,
                };
            }
            rows.push((e.idx, row));
        }
        rows
    }

    /// The node at variable `k` with the given rows (Normalize, InsertUT).
    fn build(&mut self, k: usize, rows: &[Row]) -> Result<Ev<i64>, Overflow> {
        let mut unprimed = Vec::with_capacity(rows.len());
        let mut primed = Vec::new();
        for (i, row) in rows {
            primed.clear();
            primed.extend(
                row.iter()
                    .enumerate()
                    .filter(|(_, c)| !c.is_default())
                    .map(|(j, c)| Edge::valued(j as u32, c.node, c.val)),
            );
            let p = self.ev.normalize(2 * k - 1, &mut primed)?;
            if !p.is_default() {
                unprimed.push(Edge::valued(*i, p.node, p.val));
            }
        }
        self.ev.normalize(2 * k, &mut unprimed)
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

    /// TCDSat (thesis Figure 5.3, left) at variable `k`: `f` (a node at level `2k`) closed
    /// under the events of levels `1..=k` applied to its column side within `a` (a set node
    /// at level `k`): every `(i, j')` with `(i, j)` in `f` and a path `j → … → j'` by those
    /// events whose states after `j` lie in `a`, at the least `f(i, j)` + length.
    fn tcd_sat(&mut self, k: usize, a: NodeId, f: Ev<i64>) -> Result<Ev<i64>, TcdError> {
        if f.is_default() || k == 0 {
            return Ok(f);
        }
        self.step()?;
        if let Some((l, r)) = self.sat.get((a, f.node)) {
            return Ok(Self::plus(f.val, Ev { val: l, node: r })?);
        }
        // lines 4-8: saturate the nodes below
        let mut rows = self.rows(f.node, k);
        for (_, row) in rows.iter_mut() {
            for (j, c) in row.iter_mut().enumerate() {
                let aj = self.sets.child_at(a, k, j as u32);
                if !c.is_default() && !aj.is_empty() {
                    *c = self.tcd_sat(k - 1, aj, *c)?;
                }
            }
        }
        // lines 9-18: the local fixpoint of each row under N_k on the column side
        let r = self.by_top.get(k).copied().unwrap_or(NodeId::EMPTY);
        if !r.is_empty() {
            let dom = self.ev.domain(2 * k) as usize;
            let fire = fire_table(self.rels, self.sets, r, a, k);
            let mut work = Worklist::new(dom);
            for (_, row) in rows.iter_mut() {
                work.start(row.iter().map(|c| !c.is_default()), &fire);
                while let Some(j) = work.pop() {
                    for &(j2, rc, aj2) in &fire[j as usize] {
                        let src = row[j as usize];
                        let u = self.tcd_rel_prod_sat(k - 1, aj2, src, rc)?;
                        // line 14: one more step
                        let u = self.ev.add_constant(u, 1)?;
                        let old = row[j2 as usize];
                        let new = self.ev.min(old, u)?;
                        if new != old {
                            row[j2 as usize] = new;
                            work.push(j2, &fire);
                        }
                    }
                }
            }
        }
        // line 19
        let t = self.build(k, &rows)?;
        self.sat.insert((a, f.node), (t.val, t.node));
        Ok(Self::plus(f.val, t)?)
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
        let dom = self.ev.domain(2 * k) as usize;
        let mut rpairs = Vec::new();
        let mut out: Vec<Row> = Vec::new();
        for (i, row) in self.rows(f.node, k) {
            let mut new = vec![Ev::default_fn(); dom];
            let mut any = false;
            for (j, c) in row.iter().enumerate() {
                if c.is_default() {
                    continue;
                }
                row_of(self.rels, r, k, j as u32, &mut rpairs);
                for &(j2, rc) in &rpairs {
                    let aj2 = self.sets.child_at(a, k, j2);
                    if aj2.is_empty() {
                        continue;
                    }
                    let u = self.tcd_rel_prod_sat(k - 1, aj2, *c, rc)?;
                    if !u.is_default() {
                        new[j2 as usize] = self.ev.min(new[j2 as usize], u)?;
                        any = true;
                    }
                }
            }
            if any {
                out.push((i, new));
            }
        }
        // line 13
        let t = self.build(k, &out)?;
        let t = self.tcd_sat(k, a, t)?;
        self.rel_prod.insert((a, f.node, r), (t.val, t.node));
        Ok(Self::plus(f.val, t)?)
    }
}
