//! LTL by the symbolic product of a net with the automaton of the negated formula (issue 48),
//! emptiness decided by the fair-cycle algorithms of thesis chapter 4.
//!
//! The product's states are pairs `(e, m)`: `m` a reachable marking, `e` the automaton edge
//! taken while reading `m` (its label holds in `m`), or `0` before the first letter. The edge
//! is one more level, with a phase bit on a level of its own, above the net's levels
//! ([`Placement::Top`], the default) or below them ([`Placement::Bottom`]). A step of the
//! product is two events: the net event `t` (phase `0 → 1`), then an automaton event `e → e'`
//! for consecutive edges (`e'` leaves the state `e` enters; phase `1 → 0`), so the product has
//! `|T| + pairs` events, not `|T| × pairs` (LamportFastMutEx-PT-2, 96 transitions and 257
//! pairs: 24,678 events the other way). The start events move the automaton's level from `0`
//! to the edges of the initial state. The labels are not local, so they form the constraint
//! `V = {0} × Rch ∪ ⋃_e {e} × (Rch ∩ label_e)` on the states of phase 0 (every state of phase
//! 1 is allowed) of constrained saturation (Figure 3.3): the reachable product is
//! `ConsSaturate(V, {(0, m₀)})`.
//!
//! The placement was measured (docs/ltl.md): on the developer instances of at most 20,000
//! markings, both LTL examinations with `--ltl-method el`, the bottom took 52.7 s for the 40
//! runs, all 640 formulas answered; on top, 73 s for the first 23 runs, with 3 formulas past
//! 60 s (LamportFastMutEx-PT-3).
//!
//! A transition-based acceptance set `Acc_i` becomes the state set `{(e, 0, m) : e ∈ Acc_i}`.
//! `A φ` fails iff a reachable product state has a fair path: an infinite one visiting every
//! set infinitely often (fair `EG true` by Emerson-Lei or by the transitive closure, Claim 3 /
//! Figure 4.8, [`FairMethod`]), or a path into a deadlock of the net after which the automaton
//! accepts what the word does from there: the deadlock's letter forever under
//! [`Deadlocks::Stutter`], the sink's all-false letter under [`Deadlocks::Maximal`]. That last
//! part is decided per letter on the automaton alone: the net's deadlocks are split by the
//! atoms' values, and each class keeps the edges from whose target the automaton accepts the
//! class's letter repeated.

use num_bigint::BigUint;
use rustc_hash::FxHashMap;
use saturn_dd::{Dd, Edge, Forest, NodeId};
use saturn_logic::StateFormula;
use saturn_ltl::formula::ALIVE;
use saturn_ltl::{Deadlocks, Tgba};
use saturn_model::{Event, Level, LocalFn, Model};

use crate::atoms::Atoms;
use crate::ctl::{Checker, CtlError, Deadlocks as CtlDeadlocks, FairMethod};
use crate::ltl_lasso::{project, NetLasso, Projection};
use crate::{Direction, Limits, Reach};

/// The most product events built (net events × pairs of consecutive automaton edges).
pub const MAX_PRODUCT_EVENTS: usize = 2_000_000;

/// The most classes of deadlocks by the atoms' values.
const MAX_DEAD_CLASSES: usize = 1 << 12;

/// Where the automaton's level goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Above the net's levels: every product event has one of the new levels as its Top, so
    /// saturation turns into chained breadth-first steps at the root.
    Top,
    /// Below the net's levels (the default, measured faster): every net event keeps its Top,
    /// and saturates below it; its support reaches down to the phase level.
    #[default]
    Bottom,
}

/// Why the symbolic product gave no verdict.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProductError {
    #[error(transparent)]
    Ctl(#[from] CtlError),
    #[error("the product would have {0} events (at most {MAX_PRODUCT_EVENTS})")]
    TooManyEvents(usize),
    #[error("the deadlocks fall into more than {MAX_DEAD_CLASSES} classes of atom values")]
    TooManyClasses,
}

/// The verdict of the symbolic product.
#[derive(Clone, Debug)]
pub struct ProductVerdict {
    /// Does `A φ` hold?
    pub holds: bool,
    /// The reachable product states.
    pub product_states: BigUint,
    /// The product's events.
    pub events: usize,
    /// The automaton's edges (the local states of the extra level, less one).
    pub edges: usize,
    /// When asked for and `A φ` fails: a shortest counterexample (module [`crate::ltl_lasso`]),
    /// or why none was found (the verdict stands).
    pub counterexample: Option<Result<NetLasso, ProductError>>,
}

/// The net side of the product: a generated state space.
pub struct NetSpace<'a> {
    /// The context holding the reachable markings.
    pub dd: &'a mut Dd,
    /// The reachable markings.
    pub states: NodeId,
    /// The net lowered with the order of `dd`'s levels.
    pub model: &'a Model,
    /// The atoms over `model`'s levels.
    pub atoms: &'a Atoms,
}

/// An automaton edge with its global number (local state `number + 1` of level 1).
struct FlatEdge {
    from: u32,
    to: u32,
    label: Vec<(u32, bool)>,
    acc: u64,
}

fn flat_edges(a: &Tgba) -> Vec<FlatEdge> {
    let mut v = Vec::with_capacity(a.num_edges());
    for (q, es) in a.edges.iter().enumerate() {
        for e in es {
            v.push(FlatEdge {
                from: q as u32,
                to: e.to,
                label: e.label.clone(),
                acc: e.acc,
            });
        }
    }
    v
}

/// Does `A φ` hold, `aut` being the automaton of `¬φ` over the state formulas `atoms_f`?
/// With `witness`, a shortest counterexample too when it fails.
#[allow(clippy::too_many_arguments)]
pub fn check_product(
    net: NetSpace<'_>,
    atoms_f: &[StateFormula],
    aut: &Tgba,
    deadlocks: Deadlocks,
    method: FairMethod,
    placement: Placement,
    limits: Limits,
    witness: bool,
) -> Result<ProductVerdict, ProductError> {
    let edges = flat_edges(aut);
    let mut from_state: Vec<Vec<u32>> = vec![Vec::new(); aut.edges.len()];
    for (g, e) in edges.iter().enumerate() {
        from_state[e.from as usize].push(g as u32);
    }
    let pairs: usize = edges.iter().map(|e| from_state[e.to as usize].len()).sum();
    let num_events = net.model.events.len() + pairs + from_state[0].len();
    if num_events > MAX_PRODUCT_EVENTS {
        return Err(ProductError::TooManyEvents(num_events));
    }
    // the net side: atoms, labels and deadlocks as sets of reachable markings
    let rch = net.states;
    let src = &mut net.dd.sets;
    let mut atom_sets = Vec::with_capacity(atoms_f.len());
    for f in atoms_f {
        let a = net.atoms.eval(src, f).map_err(CtlError::from)?;
        atom_sets.push(src.intersect(a, rch));
    }
    let lit = |src: &mut Forest, a: u32, pos: bool| -> NodeId {
        if a == ALIVE {
            // every marking of the net is on the path; the sink is not a marking
            return if pos { rch } else { NodeId::EMPTY };
        }
        let s = atom_sets[a as usize];
        if pos {
            s
        } else {
            src.minus(rch, s)
        }
    };
    let mut labels: FxHashMap<Vec<(u32, bool)>, NodeId> = FxHashMap::default();
    for e in &edges {
        if labels.contains_key(&e.label) {
            continue;
        }
        let mut s = rch;
        for &(a, p) in &e.label {
            let l = lit(src, a, p);
            s = src.intersect(s, l);
        }
        labels.insert(e.label.clone(), s);
    }
    let dead = {
        let d = net.atoms.deadlock(src);
        src.intersect(d, rch)
    };
    // the deadlocks by class of atom values, each with the edges after which the automaton
    // accepts the rest of the word
    let dead_classes: Vec<(NodeId, Vec<u32>)> = match deadlocks {
        Deadlocks::Maximal => {
            let sink = vec![false; atoms_f.len()];
            let ok = accepting_edges(aut, &edges, &sink, false);
            vec![(dead, ok)]
        }
        Deadlocks::Stutter => {
            let mut classes = vec![(dead, Vec::<bool>::new())];
            for &a in &atom_sets {
                let mut next = Vec::with_capacity(classes.len() * 2);
                for (s, val) in classes {
                    if s.is_empty() {
                        continue;
                    }
                    let yes = src.intersect(s, a);
                    let no = src.minus(s, a);
                    for (part, b) in [(yes, true), (no, false)] {
                        if !part.is_empty() {
                            let mut v = val.clone();
                            v.push(b);
                            next.push((part, v));
                        }
                    }
                }
                if next.len() > MAX_DEAD_CLASSES {
                    return Err(ProductError::TooManyClasses);
                }
                classes = next;
            }
            classes
                .into_iter()
                .filter(|(s, _)| !s.is_empty())
                .map(|(s, val)| {
                    let ok = accepting_edges(aut, &edges, &val, true);
                    (s, ok)
                })
                .collect()
        }
    };
    // the product's sets: `{gs} × s` for sets `s` of markings and sets `gs` of edges
    let k = net.model.num_levels();
    let mut pdd = Dd::new(k + 2);
    let mut build = Build::new(placement, k, &*src, &mut pdd.sets, edges.len());
    let all: Vec<u32> = (1..=edges.len() as u32).collect();
    // the product states proper after the first letter: the knots of a counterexample's cycle
    let read = build.set(&[(all.clone(), 0, rch)]);
    let mut v_parts = vec![(vec![0u32], 0, rch), (all, 1, rch)];
    {
        let mut by_label: FxHashMap<&[(u32, bool)], Vec<u32>> = FxHashMap::default();
        for (g, e) in edges.iter().enumerate() {
            by_label.entry(&e.label).or_default().push(g as u32 + 1);
        }
        let mut parts: Vec<_> = by_label
            .into_iter()
            .map(|(label, gs)| (gs, 0, labels[label]))
            .collect();
        parts.sort();
        v_parts.extend(parts);
    }
    let v = build.set(&v_parts);
    let mut acc_sets = Vec::new();
    for i in 0..aut.num_acc.max(1) {
        let gs: Vec<u32> = edges
            .iter()
            .enumerate()
            .filter(|(_, e)| aut.num_acc == 0 || e.acc >> i & 1 == 1)
            .map(|(g, _)| g as u32 + 1)
            .collect();
        acc_sets.push(build.set(&[(gs, 0, rch)]));
    }
    let dead_parts: Vec<(Vec<u32>, u32, NodeId)> = dead_classes
        .iter()
        .filter(|(_, ok)| !ok.is_empty())
        .map(|(s, ok)| (ok.iter().map(|g| g + 1).collect(), 0, *s))
        .collect();
    let mut dead_accepting = build.set(&dead_parts);
    let mut with_zero = vec![0u32];
    with_zero.extend(1..=edges.len() as u32);
    let phase0 = build.set(&[(with_zero, 0, rch)]);
    drop(build);
    let _read_pin0 = pdd.pin(read);
    let _dead_pin0 = pdd.pin(dead_accepting);
    let model = product_model(net.model, &edges, &from_state, placement);
    let _v_pin = pdd.pin(v);
    let mut reach = Reach::new(&mut pdd, &model, Direction::Forward, None);
    reach.set_limits(limits);
    let init = reach.state_set(&model.initial);
    let prch = reach.cons_saturate(v, init).map_err(CtlError::from)?;
    let dd = reach.dd_mut();
    let _rch_pin = dd.pin(prch);
    for a in &mut acc_sets {
        *a = dd.sets.intersect(*a, prch);
    }
    dead_accepting = dd.sets.intersect(dead_accepting, prch);
    // the product's states proper (phase 0), not the halfway states
    let proper = dd.sets.intersect(prch, phase0);
    let product_states = dd.sets.cardinality(proper);
    let edges_n = edges.len();
    let dead_found = !dead_accepting.is_empty();
    if dead_found && !witness {
        return Ok(ProductVerdict {
            holds: false,
            product_states,
            events: model.events.len(),
            edges: edges_n,
            counterexample: None,
        });
    }
    let read = dd.sets.intersect(read, prch);
    let _read_pin = dd.pin(read);
    let _dead_pin = dd.pin(dead_accepting);
    let _acc_pins: Vec<_> = acc_sets.iter().map(|&a| dd.pin(a)).collect();
    let shift = 2 * usize::from(placement == Placement::Bottom);
    let patoms = net.atoms.shifted(&model, shift);
    let mut checker = Checker::new(reach, &model, patoms, prch, CtlDeadlocks::Maximal);
    checker.set_limits(limits);
    checker.set_fair_method(method);
    checker.set_fairness_sets(acc_sets);
    let fair = checker.sat(&StateFormula::EG(Box::new(StateFormula::Const(true))))?;
    let holds = fair.is_empty() && !dead_found;
    let counterexample = (witness && !holds).then(|| {
        // a deadlock's end counts for its stutter step (two product steps) under the
        // stuttering reading, for nothing more under the maximal one
        let end_cost = 2 * usize::from(deadlocks == Deadlocks::Stutter);
        let w = checker.product_lasso(fair, read, dead_accepting, end_cost)?;
        let w = w.ok_or_else(|| {
            CtlError::Witness("no accepting run where the product has one".into())
        })?;
        let lay = Layout::new(placement, k);
        let proj = Projection {
            aut: lay.aut,
            phase: lay.phase,
            shift: lay.shift,
            levels: k,
            stutter: deadlocks == Deadlocks::Stutter,
            first_net_event: from_state[0].len(),
        };
        Ok(project(&w, &proj))
    });
    Ok(ProductVerdict {
        holds,
        product_states,
        events: model.events.len(),
        edges: edges_n,
        counterexample,
    })
}

/// The levels of the product: the automaton edge's and the phase's, and how far the net's
/// levels move up.
#[derive(Clone, Copy)]
struct Layout {
    aut: usize,
    phase: usize,
    shift: usize,
}

impl Layout {
    fn new(placement: Placement, k: usize) -> Layout {
        match placement {
            Placement::Top => Layout {
                aut: k + 2,
                phase: k + 1,
                shift: 0,
            },
            Placement::Bottom => Layout {
                aut: 1,
                phase: 2,
                shift: 2,
            },
        }
    }
}

/// Builds sets of the product `⋃ {gs} × {phase} × s` (edges `gs`, sets `s` of the net's
/// forest) in the product's forest: with the automaton on top, nodes over copies of the net's
/// sets; at the bottom, the net's sets copied two levels up over a set of the two levels below.
struct Build<'a> {
    placement: Placement,
    layout: Layout,
    src: &'a Forest,
    dst: &'a mut Forest,
    memo: FxHashMap<NodeId, NodeId>,
    below: NodeId,
}

impl<'a> Build<'a> {
    fn new(
        placement: Placement,
        k: usize,
        src: &'a Forest,
        dst: &'a mut Forest,
        edges: usize,
    ) -> Build<'a> {
        let layout = Layout::new(placement, k);
        dst.set_domain(layout.aut, edges as u32 + 1);
        dst.set_domain(layout.phase, 2);
        for l in 1..=k {
            dst.set_domain(l + layout.shift, src.domain(l));
        }
        Build {
            placement,
            layout,
            src,
            dst,
            memo: FxHashMap::default(),
            below: NodeId::ONE,
        }
    }

    fn set(&mut self, parts: &[(Vec<u32>, u32, NodeId)]) -> NodeId {
        match self.placement {
            Placement::Top => {
                self.below = NodeId::ONE;
                // children[g][phase]
                let mut children: Vec<[NodeId; 2]> = Vec::new();
                for (gs, phase, s) in parts {
                    let c = self.copy(*s);
                    for &g in gs {
                        let g = g as usize;
                        if children.len() <= g {
                            children.resize(g + 1, [NodeId::EMPTY; 2]);
                        }
                        let slot = &mut children[g][*phase as usize];
                        *slot = self.dst.union(*slot, c);
                    }
                }
                let mut es = Vec::new();
                for (g, ch) in children.iter().enumerate() {
                    let ph: Vec<Edge> = (0..2)
                        .filter(|&p| !ch[p].is_empty())
                        .map(|p| Edge::new(p as u32, ch[p]))
                        .collect();
                    let n = self.dst.make_node(self.layout.phase, &ph);
                    if !n.is_empty() {
                        es.push(Edge::new(g as u32, n));
                    }
                }
                self.dst.make_node(self.layout.aut, &es)
            }
            Placement::Bottom => {
                let mut acc = NodeId::EMPTY;
                for (gs, phase, s) in parts {
                    let mut es: Vec<Edge> = gs.iter().map(|&g| Edge::new(g, NodeId::ONE)).collect();
                    es.sort_by_key(|e| e.idx);
                    es.dedup_by_key(|e| e.idx);
                    let aut = self.dst.make_node(1, &es);
                    let below = self.dst.make_node(2, &[Edge::new(*phase, aut)]);
                    if below != self.below {
                        self.memo.clear();
                        self.below = below;
                    }
                    let c = self.copy(*s);
                    acc = self.dst.union(acc, c);
                }
                acc
            }
        }
    }

    /// `n` of the net's forest in the product's (moved up over `self.below` at the bottom
    /// placement).
    fn copy(&mut self, n: NodeId) -> NodeId {
        if n.is_empty() || self.below.is_empty() {
            return NodeId::EMPTY;
        }
        if n == NodeId::ONE {
            return self.below;
        }
        if let Some(&r) = self.memo.get(&n) {
            return r;
        }
        let level = self.src.level(n);
        let es = self.src.edges(n).to_vec();
        let mut out = Vec::with_capacity(es.len());
        for e in es {
            let c = self.copy(e.child);
            if !c.is_empty() {
                out.push(Edge::new(e.idx, c));
            }
        }
        let r = self.dst.make_node(level + self.layout.shift, &out);
        self.memo.insert(n, r);
        r
    }
}

/// The product model: the automaton edge (`0` before the first letter, `g + 1` edge `g`)
/// and the phase on levels of their own, above or below the net's levels. A step of the
/// product is two events: a net event `t` (phase `0 → 1`, the automaton's level unchanged),
/// then an automaton event `g → h` for consecutive edges (phase `1 → 0`, the net unchanged),
/// whose target must satisfy `h`'s label (the constraint). So the product has `|T| + pairs`
/// events instead of `|T| × pairs`.
fn product_model(
    net: &Model,
    edges: &[FlatEdge],
    from_state: &[Vec<u32>],
    placement: Placement,
) -> Model {
    let k = net.levels.len();
    let lay = Layout::new(placement, k);
    let aut = Level {
        name: "automaton".into(),
        bound: Some(edges.len() as u32),
        one_hot: false,
        group: Vec::new(),
    };
    let phase = Level {
        name: "phase".into(),
        bound: Some(1),
        one_hot: false,
        group: Vec::new(),
    };
    let (levels, initial) = match placement {
        Placement::Top => {
            let mut levels = net.levels.clone();
            levels.push(phase);
            levels.push(aut);
            let mut initial = net.initial.clone();
            initial.extend([0, 0]);
            (levels, initial)
        }
        Placement::Bottom => {
            let mut levels = vec![aut, phase];
            levels.extend(net.levels.iter().cloned());
            let mut initial = vec![0, 0];
            initial.extend_from_slice(&net.initial);
            (levels, initial)
        }
    };
    let step = |from: u32, to: u32| LocalFn::Petri {
        need: from,
        inhibit: from + 1,
        delta: to as i64 - from as i64,
    };
    let mut events = Vec::new();
    for &g in &from_state[0] {
        events.push(Event {
            name: format!("start{g}"),
            parts: vec![(lay.aut, step(0, g + 1))],
        });
    }
    for t in &net.events {
        let mut parts: Vec<(usize, LocalFn)> =
            t.parts.iter().map(|&(l, f)| (l + lay.shift, f)).collect();
        parts.push((lay.phase, step(0, 1)));
        parts.sort_by_key(|p| std::cmp::Reverse(p.0));
        events.push(Event {
            name: t.name.clone(),
            parts,
        });
    }
    for (g, e) in edges.iter().enumerate() {
        for &h in &from_state[e.to as usize] {
            let mut parts = vec![
                (lay.aut, step(g as u32 + 1, h + 1)),
                (lay.phase, step(1, 0)),
            ];
            parts.sort_by_key(|p| std::cmp::Reverse(p.0));
            events.push(Event {
                name: format!("e{g}-{h}"),
                parts,
            });
        }
    }
    Model {
        levels,
        initial,
        events,
    }
}

/// The edges after which the automaton accepts the letter `letter` (atom values; [`ALIVE`] is
/// `alive`) repeated forever: those whose target reaches a cycle of edges enabled by the
/// letter that meets every acceptance set.
fn accepting_edges(aut: &Tgba, edges: &[FlatEdge], letter: &[bool], alive: bool) -> Vec<u32> {
    let value = |a: u32| {
        if a == ALIVE {
            alive
        } else {
            letter[a as usize]
        }
    };
    let n = aut.edges.len();
    let enabled: Vec<Vec<(u32, u64)>> = aut
        .edges
        .iter()
        .map(|es| {
            es.iter()
                .filter(|e| e.enabled(value))
                .map(|e| (e.to, e.acc))
                .collect()
        })
        .collect();
    // reach[q]: the states reachable from q by enabled edges (q included)
    let reach: Vec<Vec<bool>> = (0..n)
        .map(|q| {
            let mut seen = vec![false; n];
            let mut stack = vec![q];
            seen[q] = true;
            while let Some(x) = stack.pop() {
                for &(y, _) in &enabled[x] {
                    if !seen[y as usize] {
                        seen[y as usize] = true;
                        stack.push(y as usize);
                    }
                }
            }
            seen
        })
        .collect();
    // good[q]: the edges inside q's SCC meet every acceptance set
    let all = aut.all_acc();
    let good: Vec<bool> = (0..n)
        .map(|q| {
            let mut acc = 0u64;
            let mut cycle = false;
            for x in (0..n).filter(|&x| reach[q][x] && reach[x][q]) {
                for &(y, a) in &enabled[x] {
                    if reach[y as usize][q] {
                        cycle = true;
                        acc |= a;
                    }
                }
            }
            cycle && acc & all == all
        })
        .collect();
    let accepts: Vec<bool> = (0..n)
        .map(|q| (0..n).any(|x| reach[q][x] && good[x]))
        .collect();
    edges
        .iter()
        .enumerate()
        .filter(|(_, e)| accepts[e.to as usize])
        .map(|(g, _)| g as u32)
        .collect()
}
