//! The symbolic engine as a [`Chain`] for the property checker: the rate matrix, its transpose
//! and its restrictions to recurrent classes as EV*MxDs (Figures 6.2-6.7), and the graph
//! questions answered on decision diagrams, never by search on an explicit graph:
//! `E[a U b]` (the Prob0/Prob1 precomputation of unbounded until, thesis 2.3.4) by backward
//! constrained saturation (Figure 3.3), the recurrent classes (thesis 2.3.1) by XBSat for
//! terminal SCCs (Figure 4.4), both on one context with a forward and a backward generator of
//! the model. Vectors indexed by the lexicographic index turn into sets and back by one walk
//! of the reachable set in index order.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use saturn_dd::{Dd, Edge, Forest, NodeId, Pin, Reduction};
use saturn_model::GeneralModel;
use saturn_symbolic::reach::Suspended;
use saturn_symbolic::scc::XbSat;
use saturn_symbolic::{Interrupted, Limits, Reach};

use super::{BuildError, SymbolicCtmc};
use crate::chain::{Chain, StateVisitor};
use crate::props::CheckError;
use crate::RateMatrix;

/// The decision-diagram side: the context (set and relation forests), the generators, the
/// reachable set and the number of states below each of its nodes.
struct Graph {
    dd: Dd,
    fwd: Option<Suspended>,
    bwd: Option<Suspended>,
    reached: Pin,
    below: FxHashMap<NodeId, u64>,
}

/// A CTMC on the symbolic engine, ready for the property checker.
pub struct SymbolicChain {
    ctmc: SymbolicCtmc,
    graph: RefCell<Graph>,
    levels: usize,
    /// `order[k-1]`: the variable at level `k`; `low[v]`: its lowest value.
    order: Vec<usize>,
    low: Vec<i64>,
    limits: Limits,
    initial: Vec<usize>,
    deadlocks: Vec<usize>,
    exit: Vec<f64>,
}

fn interrupted(i: Interrupted) -> CheckError {
    CheckError::Stopped(i)
}

fn build_error(e: BuildError) -> CheckError {
    CheckError::Eval(e.to_string())
}

impl SymbolicChain {
    /// Take over `ctmc` (built from `model`): its transpose is built, its forests move into
    /// a context shared by a forward and a backward generator of `model`; `limits` bound
    /// every later graph computation.
    pub fn new(
        model: &GeneralModel,
        mut ctmc: SymbolicCtmc,
        limits: Limits,
    ) -> Result<SymbolicChain, BuildError> {
        ctmc.build_transpose()?;
        let levels = ctmc.enc.order.len();
        let order = ctmc.enc.order.clone();
        let sets = std::mem::replace(&mut ctmc.enc.sets, Forest::new(levels, Reduction::Quasi));
        let rels = std::mem::replace(
            &mut ctmc.enc.rels,
            Forest::new(2 * levels, Reduction::Identity),
        );
        let mut dd = Dd::with_forests(sets, rels);
        let reached = dd.pin(ctmc.reached);
        let init = dd.pin(ctmc.enc.init);
        let mut fwd = Reach::general(&mut dd, model, &order);
        fwd.set_limits(limits);
        let fwd = fwd.suspend();
        let mut bwd = Reach::general(&mut dd, model, &order);
        bwd.reverse();
        bwd.set_limits(limits);
        // the states with a successor: the predecessors of the reachable states
        let has_succ = bwd.image(reached.get()).map_err(|i| {
            BuildError::Encode(saturn_symbolic::encode::EncodeError::Interrupted(i))
        })?;
        let bwd = bwd.suspend();
        let dead = dd.sets.minus(reached.get(), has_succ);
        let dead = dd.pin(dead);
        let mut below = FxHashMap::default();
        count_below(&dd.sets, reached.get(), levels, &mut below);
        let mut graph = Graph {
            dd,
            fwd: Some(fwd),
            bwd: Some(bwd),
            reached,
            below,
        };
        let init_in = graph.dd.sets.intersect(graph.reached.get(), init.get());
        let initial = indices(&graph.marks_of(init_in, levels));
        let deadlocks = indices(&graph.marks_of(dead.get(), levels));
        drop((init, dead));
        let exit = ctmc.exit_rates();
        let low = model.vars.iter().map(|v| v.low).collect();
        Ok(SymbolicChain {
            ctmc,
            graph: RefCell::new(graph),
            levels,
            order,
            low,
            limits,
            initial,
            deadlocks,
            exit,
        })
    }

    /// The engine underneath (sizes, cache figures).
    pub fn ctmc(&self) -> &SymbolicCtmc {
        &self.ctmc
    }
}

/// The number of states below every node of `n` (a node of level `k`), memoised in `below`.
fn count_below(sets: &Forest, n: NodeId, k: usize, below: &mut FxHashMap<NodeId, u64>) -> u64 {
    if k == 0 {
        return u64::from(!n.is_empty());
    }
    if let Some(&c) = below.get(&n) {
        return c;
    }
    let mut c = 0u64;
    for e in sets.edges(n) {
        c += count_below(sets, e.child, k - 1, below);
    }
    below.insert(n, c);
    c
}

/// The positions of the `true` entries.
fn indices(v: &[bool]) -> Vec<usize> {
    (0..v.len()).filter(|&i| v[i]).collect()
}

impl Graph {
    /// The states of `set` (a subset of the reachable states) as a vector over the indices.
    fn marks_of(&self, set: NodeId, levels: usize) -> Vec<bool> {
        let n = self.below.get(&self.reached.get()).copied().unwrap_or(0) as usize;
        let mut out = vec![false; n];
        let mut at = 0usize;
        self.fill(self.reached.get(), set, levels, &mut at, &mut out);
        out
    }

    fn fill(&self, r: NodeId, s: NodeId, k: usize, at: &mut usize, out: &mut [bool]) {
        let size = if k == 0 {
            u64::from(!r.is_empty())
        } else {
            self.below.get(&r).copied().unwrap_or(0)
        } as usize;
        if s.is_empty() {
            *at += size;
            return;
        }
        if s == r {
            out[*at..*at + size].iter_mut().for_each(|b| *b = true);
            *at += size;
            return;
        }
        let sets = &self.dd.sets;
        let (re, se) = (sets.edges(r), sets.edges(s));
        let mut j = 0;
        for e in re {
            while j < se.len() && se.idx(j) < e.idx {
                j += 1;
            }
            let child = if j < se.len() && se.idx(j) == e.idx {
                se.child(j)
            } else {
                NodeId::EMPTY
            };
            self.fill(e.child, child, k - 1, at, out);
        }
    }

    /// The set of the states whose entry of `v` is true (a node of the set forest).
    fn set_of(&mut self, v: &[bool], levels: usize) -> NodeId {
        let mut at = 0usize;
        let r = self.reached.get();
        self.build(r, levels, &mut at, v).0
    }

    /// The subset of `r` (level `k`) selected by `v` from position `at`, and whether it is
    /// the whole of `r`.
    fn build(&mut self, r: NodeId, k: usize, at: &mut usize, v: &[bool]) -> (NodeId, bool) {
        if k == 0 {
            let b = v[*at];
            *at += 1;
            return (if b { r } else { NodeId::EMPTY }, b);
        }
        let edges: Vec<Edge> = self.dd.sets.edges(r).to_vec();
        let mut out = Vec::with_capacity(edges.len());
        let mut all = true;
        for e in &edges {
            let (c, whole) = self.build(e.child, k - 1, at, v);
            all &= whole;
            if !c.is_empty() {
                out.push(Edge::new(e.idx, c));
            }
        }
        if all {
            return (r, true);
        }
        if out.is_empty() {
            return (NodeId::EMPTY, false);
        }
        (self.dd.sets.make_node(k, &out), false)
    }
}

impl Chain for SymbolicChain {
    fn len(&self) -> usize {
        self.exit.len()
    }

    fn initial(&self) -> &[usize] {
        &self.initial
    }

    fn deadlocks(&self) -> &[usize] {
        &self.deadlocks
    }

    fn exit(&self) -> &[f64] {
        &self.exit
    }

    fn transitions(&self) -> u64 {
        self.ctmc.prism_transitions()
    }

    fn for_each_state(&self, f: &mut StateVisitor<'_>) -> Result<(), CheckError> {
        let g = self.graph.borrow();
        let mut values = vec![0i64; self.levels];
        let mut at = 0usize;
        let mut walk = Walk {
            sets: &g.dd.sets,
            order: &self.order,
            low: &self.low,
            values: &mut values,
            at: &mut at,
            f,
        };
        walk.go(g.reached.get(), self.levels)
    }

    fn values(&self, i: usize) -> Vec<i64> {
        let local = self.ctmc.local_state(i).unwrap_or_default();
        let mut s = vec![0; self.levels];
        for (k, &v) in self.order.iter().enumerate() {
            s[v] = self.low[v] + i64::from(local.get(k).copied().unwrap_or(0));
        }
        s
    }

    fn rates(&self) -> &dyn RateMatrix {
        &self.ctmc
    }

    fn with_transposed(
        &self,
        f: &mut dyn FnMut(&dyn RateMatrix) -> Result<(), CheckError>,
    ) -> Result<(), CheckError> {
        f(&self.ctmc.transposed())
    }

    /// `E[through U target]` by backward constrained saturation (thesis Figure 3.3).
    fn backward_reach(&self, through: &[bool], target: &[bool]) -> Result<Vec<bool>, CheckError> {
        let mut guard = self.graph.borrow_mut();
        let g = &mut *guard;
        let a = g.set_of(through, self.levels);
        let a = g.dd.pin(a);
        let b = g.set_of(target, self.levels);
        let b = g.dd.pin(b);
        let parked = g.bwd.take().expect("backward generator parked");
        let mut r = Reach::resume(&mut g.dd, parked);
        r.set_limits(self.limits);
        let out = r.cons_saturate(a.get(), b.get());
        let parked = r.suspend();
        g.bwd = Some(parked);
        let out = out.map_err(interrupted)?;
        let reached = g.reached.get();
        let out = g.dd.sets.intersect(out, reached);
        drop((a, b));
        if g.dd.overflowed() {
            return Err(interrupted(Interrupted::TooManyNodes));
        }
        Ok(g.marks_of(out, self.levels))
    }

    /// The recurrent classes by XBSat (thesis Figure 4.4); a state without exit rate is one
    /// on its own.
    fn bottom_sccs(&self) -> Result<Vec<Vec<u32>>, CheckError> {
        let mut guard = self.graph.borrow_mut();
        let g = &mut *guard;
        let fwd = g.fwd.take().expect("forward generator parked");
        let bwd = g.bwd.take().expect("backward generator parked");
        let reached = g.reached.get();
        let mut xb = XbSat::new(&mut g.dd, fwd, bwd);
        xb.set_limits(self.limits);
        let classes = xb.xb_sat_terminal(reached);
        let (fwd, bwd) = xb.into_parts();
        g.fwd = Some(fwd);
        g.bwd = Some(bwd);
        let classes = classes.map_err(interrupted)?;
        if g.dd.overflowed() {
            return Err(interrupted(Interrupted::TooManyNodes));
        }
        let mut out: Vec<Vec<u32>> = Vec::with_capacity(classes.len());
        for c in &classes {
            let members: Vec<u32> = indices(&g.marks_of(c.get(), self.levels))
                .into_iter()
                .map(|i| i as u32)
                .collect();
            // a state whose only transitions are self-loops: added below
            if members.len() == 1 && self.exit[members[0] as usize] == 0.0 {
                continue;
            }
            out.push(members);
        }
        out.extend(
            (0..self.exit.len())
                .filter(|&i| self.exit[i] == 0.0)
                .map(|i| vec![i as u32]),
        );
        out.retain(|c| !c.is_empty());
        out.sort_unstable_by_key(|c| c[0]);
        Ok(out)
    }

    fn with_restricted(
        &self,
        states: &[u32],
        f: &mut dyn FnMut(&dyn RateMatrix) -> Result<(), CheckError>,
    ) -> Result<(), CheckError> {
        if states.len() == self.exit.len() {
            return f(&self.ctmc);
        }
        let mut marks = vec![false; self.exit.len()];
        for &s in states {
            marks[s as usize] = true;
        }
        let sub = {
            let mut g = self.graph.borrow_mut();
            let set = g.set_of(&marks, self.levels);
            let set = g.dd.pin(set);
            let sub = self.ctmc.sub_index(&g.dd.sets, set.get());
            drop(set);
            sub.map_err(build_error)?
        };
        f(&self.ctmc.restricted(&sub))
    }
}

/// The walk of [`Chain::for_each_state`]: the reachable states in lexicographic order.
struct Walk<'a, 'f> {
    sets: &'a Forest,
    order: &'a [usize],
    low: &'a [i64],
    values: &'a mut Vec<i64>,
    at: &'a mut usize,
    f: &'f mut StateVisitor<'f>,
}

impl Walk<'_, '_> {
    fn go(&mut self, n: NodeId, k: usize) -> Result<(), CheckError> {
        if k == 0 {
            let i = *self.at;
            *self.at += 1;
            return (self.f)(i, self.values);
        }
        let v = self.order[k - 1];
        for e in self.sets.edges(n) {
            self.values[v] = self.low[v] + i64::from(e.idx);
            self.go(e.child, k - 1)?;
        }
        Ok(())
    }
}
