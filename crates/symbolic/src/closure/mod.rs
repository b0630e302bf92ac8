//! The transitive closure of the next-state relation by saturation (thesis sections 3.2 and
//! 4.3): TransClosSat and TCRelProdSat (Figures 4.5-4.6) build the backward closure `T^b` as a
//! 2L-level relation in the context's relation forest `dd.rels`, optionally constrained to a
//! set (Definitions 9 and 11); the forward closure `T` is its transpose.
//!
//! Orientation: in a relation node the unprimed levels are the "from" side. `(i, j) ∈ T^b` iff
//! there is a path of positive length from `j` to `i` (`j →+ i`): the unprimed side is the
//! target `i`, the primed side the source `j`, as in the backward relation `P` (`(i, j) ∈ P`
//! iff `j → i`), which the saturation applies to the primed side, level by level (`P_k`: the
//! events whose Top is level `k`).
//!
//! ```
//! use saturn_dd::Dd;
//! use saturn_symbolic::closure::{Closure, ClosureRelations};
//! use saturn_symbolic::{Direction, Method, Reach};
//! let net = saturn_model::families::generate("philosophers", 3).unwrap();
//! let model = net.to_model(&(0..net.places.len()).collect::<Vec<_>>()).unwrap();
//! let mut dd = Dd::new(model.num_levels());
//! let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
//! let init = reach.state_set(&model.initial);
//! let rch = reach.explore(init, Method::Saturation).unwrap();
//! drop(reach);
//! let rch = dd.pin(rch);
//! let rels = ClosureRelations::of_reachable(&mut dd, &model);
//! let mut tc = Closure::new(&mut dd, &rels);
//! let tb = tc.backward(rch.get(), rch.get()).unwrap(); // T^b within the reachable states
//! let on_cycles = tc.tc_to_scc(tb).unwrap(); // the states on cycles (Figure 4.6, TCtoSCC)
//! drop(tc);
//! // 76 reachable states: all but the two deadlocks lie on cycles
//! assert_eq!(dd.sets.cardinality(rch.get()), 76u32.into());
//! assert_eq!(dd.sets.cardinality(on_cycles), 74u32.into());
//! ```

mod bounded;
mod sat;
mod tcd;

pub use bounded::TcdRelations;
pub use tcd::{compute_tcd, compute_tcd_within, Tcd, TcdError};

use saturn_dd::{Cache, CacheSlot, Dd, Live, NodeId, Pin, Purge, RelAlg, Side};
use saturn_model::Model;

use crate::limits::{Interrupted, Limits};
use crate::scc::relations_by_top;

/// The backward next-state relation `P` of a model in `dd.rels`, one relation per Top level
/// (`P_k`), over fixed local domains, pinned while this value lives.
pub struct ClosureRelations {
    by_top: Vec<Pin>,
}

impl ClosureRelations {
    /// `P` over the local states `0..domains[k-1]` of each level `k` (a firing leading beyond a
    /// domain is left out). The closure of sets within these domains is exact when they cover
    /// every local state of the states involved.
    pub fn new(dd: &mut Dd, model: &Model, domains: &[u32]) -> ClosureRelations {
        let by_top = relations_by_top(&mut dd.rels, model, domains, true);
        ClosureRelations {
            by_top: by_top.into_iter().map(|r| dd.pin_rel(r)).collect(),
        }
    }

    /// `P` over the local states the context's set forest knows (e.g. right after generating
    /// the reachable states in it).
    pub fn of_reachable(dd: &mut Dd, model: &Model) -> ClosureRelations {
        let domains: Vec<u32> = (1..=model.num_levels())
            .map(|k| dd.sets.domain(k).max(1))
            .collect();
        ClosureRelations::new(dd, model, &domains)
    }

    /// `P_k`: the union of the backward relations of the events whose Top is level `k` (`[0]`:
    /// ONE when an event has an empty support, i.e. a self-loop on every state).
    pub fn by_top(&self, k: usize) -> NodeId {
        self.by_top.get(k).map_or(NodeId::EMPTY, Pin::get)
    }

    /// `P` as one relation (a node of `dd.rels`, not pinned).
    pub fn relation(&self, dd: &mut Dd) -> NodeId {
        let parts: Vec<NodeId> = self.by_top.iter().map(Pin::get).collect();
        dd.rels.union_all(&parts)
    }
}

/// The closure engine's compute caches, registered with the context: every collection purges
/// them by the context's one rule (an entry survives iff every node it mentions is live).
pub(crate) struct ClosureCaches {
    pub(crate) alg: RelAlg,
    /// `(a, n) -> TransClosSat(a, n)`: a set node, relation nodes.
    pub(crate) tcs: Cache<(NodeId, NodeId), NodeId>,
    /// `(a, n, r) -> TCRelProdSat(a, n, r)`: a set node, relation nodes.
    pub(crate) tcr: Cache<(NodeId, NodeId, NodeId), NodeId>,
}

impl Purge for ClosureCaches {
    fn purge(&mut self, live: &Live<'_>) {
        self.alg.purge(live);
        self.tcs
            .retain(|k, v| live.set(k.0) && live.rel(k.1) && live.rel(*v));
        self.tcr
            .retain(|k, v| live.set(k.0) && live.rel(k.1) && live.rel(k.2) && live.rel(*v));
    }
}

/// The closure engine: TransClosSat and TCRelProdSat with their compute caches, and the
/// relation algebra (transpose, restriction, diagonal, quantification) on one context.
pub struct Closure<'a> {
    dd: &'a mut Dd,
    rels: &'a ClosureRelations,
    /// The caches' slot in the context; during a top-level call they are checked out in `c`
    /// (the closure never collects in the middle of a call).
    slot: Option<CacheSlot<ClosureCaches>>,
    pub(crate) c: Option<Box<ClosureCaches>>,
    limits: Limits,
    stop: Option<Interrupted>,
    steps: u64,
}

impl<'a> Closure<'a> {
    /// An engine on `dd` with the relations `rels` (made on `dd`).
    pub fn new(dd: &'a mut Dd, rels: &'a ClosureRelations) -> Closure<'a> {
        let slot = Some(dd.register(ClosureCaches {
            alg: RelAlg::new(),
            tcs: Cache::new(14),
            tcr: Cache::new(14),
        }));
        Closure {
            dd,
            rels,
            slot,
            c: None,
            limits: Limits::none(),
            stop: None,
            steps: 0,
        }
    }

    /// Limits checked every few thousand recursive calls.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// The context (set operations, pins, collections between calls).
    pub fn dd(&mut self) -> &mut Dd {
        self.dd
    }

    /// The relation-algebra engine with the context's two forests: `f(alg, sets, rels)`.
    pub fn with_alg<R>(
        &mut self,
        f: impl FnOnce(&mut RelAlg, &mut saturn_dd::Forest, &mut saturn_dd::Forest) -> R,
    ) -> R {
        let outside = self.c.is_none();
        if outside {
            self.check_out();
        }
        let c = self.c.as_mut().expect("checked out");
        // the relation algebra polls the limits too: its operations on a large closure (the
        // restriction of the relation, the transpose, the diagonal) run long and allocate
        let limits = self.limits;
        if limits.deadline.is_some()
            || limits.max_memory.is_some()
            || limits.cancel.is_some()
            || limits.cancel_also.is_some()
        {
            c.alg
                .set_poll(Some(Box::new(move || limits.check().is_err())));
        }
        let Dd { sets, rels, .. } = &mut *self.dd;
        let r = f(&mut c.alg, sets, rels);
        c.alg.set_poll(None);
        if c.alg.take_stopped() && self.stop.is_none() {
            // a deadline or a cancel stays tripped; otherwise it was the memory limit
            self.stop = Some(self.limits.check().err().unwrap_or(Interrupted::Memory));
        }
        if outside {
            self.check_in();
        }
        r
    }

    /// One relation-algebra operation as a top-level call: `Err` when a limit stopped it.
    fn alg_op(
        &mut self,
        f: impl FnOnce(&mut RelAlg, &mut saturn_dd::Forest, &mut saturn_dd::Forest) -> NodeId,
    ) -> Result<NodeId, Interrupted> {
        self.stop = None;
        let t = self.with_alg(f);
        match self.stop.take() {
            Some(i) => Err(i),
            None => Ok(t),
        }
    }

    /// Take the caches out of the context for a top-level call.
    fn check_out(&mut self) {
        let c = self.dd.take(self.slot.as_ref().expect("registered"));
        self.c = Some(c);
    }

    /// Give the caches back to the context (which purges them at its collections).
    fn check_in(&mut self) {
        if let Some(c) = self.c.take() {
            let slot = self.slot.as_ref().expect("registered");
            self.dd.put(slot, c);
        }
    }

    /// Recursive calls made so far (a measure of work).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Start a top-level call: the caches are checked out of the context (which has purged
    /// them at every collection since the last call).
    fn begin(&mut self) {
        if self.c.is_none() {
            self.check_out();
        }
        self.stop = None;
    }

    fn finish(&mut self, t: NodeId) -> Result<NodeId, Interrupted> {
        if self.stop.is_none() && self.dd.overflowed() {
            self.stop = Some(Interrupted::TooManyNodes);
        }
        let r = match self.stop.take() {
            Some(i) => {
                // a stopped recursion's entries are not trusted
                if let Some(c) = self.c.as_mut() {
                    c.tcs.clear();
                    c.tcr.clear();
                }
                Err(i)
            }
            None => Ok(t),
        };
        self.check_in();
        r
    }

    /// `TransClosSat(a, n)` (thesis Figure 4.5) on a whole relation `n` of `dd.rels` and a set
    /// `a` of `dd.sets`: every `(i, m)` such that `(i, j) ∈ n` and `m` reaches `j` by a path
    /// (possibly empty) whose states before `j` all lie in `a` (Property 1). With `n = P`
    /// restricted to `a × a` this is the constrained backward closure `T^b_a` (Definition 11).
    pub fn trans_clos_sat(&mut self, a: NodeId, n: NodeId) -> Result<NodeId, Interrupted> {
        self.begin();
        if a.is_empty() {
            return Ok(n);
        }
        let k = self.dd.num_levels();
        let t = self.trans_clos_sat_rec(k, a, n);
        self.finish(t)
    }

    /// The backward transitive closure `T^b_{X,C}` (Definition 9): the pairs `(i, j)` with `i`
    /// in `from` (X) and a path of positive length from `j` to `i` all of whose states, `j` and
    /// `i` included, lie in `within` (C). `T^b_{C,C}` for `from = within`; the plain `T^b`
    /// (Definition 10) of a set of states closed under successors (the reachable states) for
    /// `from = within =` that set. The result is a node of `dd.rels`, not pinned.
    pub fn backward(&mut self, within: NodeId, from: NodeId) -> Result<NodeId, Interrupted> {
        self.begin();
        let x = self.dd.sets.intersect(from, within);
        let p = self.rels.relation(self.dd);
        let n = self.with_alg(|alg, sets, rels| {
            let n = alg.restrict(rels, sets, p, Side::From, x);
            alg.restrict(rels, sets, n, Side::To, within)
        });
        let k = self.dd.num_levels();
        let mut t = if within.is_empty() {
            NodeId::EMPTY
        } else {
            self.trans_clos_sat_rec(k, within, n)
        };
        if self.rels.by_top(0) == NodeId::ONE {
            // an event of empty support: a self-loop on every state
            let id = self.with_alg(|alg, sets, rels| alg.identity_over(rels, sets, x));
            t = self.dd.rels.union(t, id);
        }
        self.finish(t)
    }

    /// The forward transitive closure `T_{X,C}`: the pairs `(i, j)` with `i` in `from` and a
    /// path of positive length from `i` to `j` within `within`, `i` and `j` included: the
    /// transpose of `T^b_{C,C}` restricted to `from` on its unprimed side.
    pub fn forward(&mut self, within: NodeId, from: NodeId) -> Result<NodeId, Interrupted> {
        let tb = self.backward(within, within)?;
        self.alg_op(|alg, sets, rels| {
            let t = alg.transpose(rels, tb);
            alg.restrict(rels, sets, t, Side::From, from)
        })
    }

    /// `Inverse(t)`: the transpose (swaps the unprimed and primed levels), `T = Inverse(T^b)`.
    pub fn inverse(&mut self, t: NodeId) -> Result<NodeId, Interrupted> {
        self.alg_op(|alg, _, rels| alg.transpose(rels, t))
    }

    /// `TCtoSCC(t)` (thesis Figure 4.6): the states `i` with `(i, i) ∈ t`; for `t = T^b_{C,C}`
    /// the states on a nontrivial cycle within `C`.
    pub fn tc_to_scc(&mut self, t: NodeId) -> Result<NodeId, Interrupted> {
        self.alg_op(|alg, sets, rels| alg.diagonal(sets, rels, t))
    }

    /// `QuantUnpr(t)`: `{ j : ∃i, (i, j) ∈ t }`, the primed side of `t` as a set.
    pub fn quant_unprimed(&mut self, t: NodeId) -> Result<NodeId, Interrupted> {
        self.alg_op(|alg, sets, rels| alg.project(sets, rels, t, Side::To))
    }

    /// `QuantPr(t)`: `{ i : ∃j, (i, j) ∈ t }`, the unprimed side of `t` as a set.
    pub fn quant_primed(&mut self, t: NodeId) -> Result<NodeId, Interrupted> {
        self.alg_op(|alg, sets, rels| alg.project(sets, rels, t, Side::From))
    }

    /// `Cross(s, t)`: the relation `s × t`.
    pub fn cross(&mut self, s: NodeId, t: NodeId) -> Result<NodeId, Interrupted> {
        self.alg_op(|alg, sets, rels| alg.cross(rels, sets, s, t))
    }
}

impl Drop for Closure<'_> {
    fn drop(&mut self) {
        self.c = None;
        if let Some(slot) = self.slot.take() {
            self.dd.unregister(slot);
        }
    }
}
