//! State spaces of P/T nets with many tokens per place that are exactly their invariants'
//! polytope, on binary counters.
//!
//! One level per token count (the thesis's encoding, [`crate::reach`]) gives nodes as wide as
//! a place's bound and, where conservation laws tie places together (`x + y + z = N`), as many
//! nodes per level as partial sums: `N^2` nodes and `N^3` edges for a few places with `N`
//! tokens (ERK, MAPK, Diffusion2D in the contest), out of reach for `N` in the thousands.
//! Here each place `p` with structural bound `B_p` is `ceil(log2(B_p + 1))` boolean levels,
//! the bits of every place interleaved, least significant block on top: a linear equation
//! read that way needs only a few carries per level, so the set
//! `P = {x : Y x = Y m0}` of the markings that satisfy the P-semiflows `Y` stays small
//! whatever `N` is ([`linear`]).
//!
//! Every reachable marking is in `P` (the semiflows are invariants; the bits hold the
//! structural bounds). When `P` is also *reachable*, it is the state space, and no fixpoint is
//! needed. That is proved by a ranking: a weight `w` per place such that every marking of `P`
//! but `m0` is the successor, by a transition `t` with `w·C(t) > 0`, of a marking of `P`
//! ([`certify`]; within `P` the successors by `t` are the markings in a box of per-place
//! bounds, [`interval`], so each is one intersection). Then from any marking of `P` one can go
//! back, `w` strictly decreasing, within the finite `P`, and that walk can only end at `m0`:
//! every marking of `P` is reachable. The markings single steps leave may still follow by
//! runs of a few steps that gain in all ([`runs`], over the transitions' relations,
//! [`relation`]). Markings of `P` that no firing produces, and those only they produce, are
//! unreachable: they are taken out and the ranking certifies the rest ([`trim`]; rankings and
//! transitions are tried in the order markings drawn from `P` suggest, [`drawn`]). When no
//! ranking tried is a certificate the answer is "unknown" and the
//! caller generates as usual: never a wrong figure. The figures come from one sweep of the
//! diagram ([`figures`]).

use num_bigint::BigUint;
use saturn_dd::{unprimed_level, Dd, NodeId};
use saturn_model::PetriNet;

use crate::metrics::StateSpaceMetrics;
use crate::{Interrupted, Limits};

pub mod certify;
pub mod drawn;
pub mod figures;
pub mod interval;
pub mod linear;
pub mod relation;
pub mod runs;
pub mod trim;

pub use relation::{transition_relation, PlaceArcs};

/// Where each place's bits are: level `l` (1-based) holds bit `levels[l-1].1` of place
/// `levels[l-1].0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bits per place.
    pub bits: Vec<u32>,
    /// `(place, bit)` per level, bottom first: the most significant bits at the bottom, the
    /// least significant bits of every place on top, places in `order` within a block.
    pub levels: Vec<(usize, u32)>,
}

impl Layout {
    /// Bits enough for each place's bound (at least one), interleaved: block `b` holds bit `b`
    /// of every place that has one, places in `order` (`order[0]` lowest).
    pub fn new(bounds: &[u64], order: &[usize]) -> Layout {
        let bits: Vec<u32> = bounds
            .iter()
            .map(|&b| (64 - b.leading_zeros()).max(1))
            .collect();
        let most = bits.iter().copied().max().unwrap_or(0);
        let mut levels = Vec::new();
        for b in (0..most).rev() {
            for &p in order {
                if bits[p] > b {
                    levels.push((p, b));
                }
            }
        }
        Layout { bits, levels }
    }

    /// The marking whose local states (bits), level by level, are `tuple`.
    pub fn decode(&self, tuple: &[u32]) -> Vec<u64> {
        let mut m = vec![0u64; self.bits.len()];
        for (&(p, b), &x) in self.levels.iter().zip(tuple) {
            m[p] |= u64::from(x & 1) << b;
        }
        m
    }

    /// The local states (bits) of a marking, level by level.
    pub fn encode(&self, marking: &[u64]) -> Vec<u32> {
        self.levels
            .iter()
            .map(|&(p, b)| ((marking[p] >> b) & 1) as u32)
            .collect()
    }
}

/// The arcs of transition `t` per place it touches or tests (inputs, outputs, inhibitors
/// merged), sorted by place.
pub fn place_arcs(net: &PetriNet, t: usize) -> Vec<PlaceArcs> {
    let tr = &net.transitions[t];
    let mut out: Vec<PlaceArcs> = Vec::new();
    fn at(out: &mut Vec<PlaceArcs>, p: usize) -> usize {
        if let Some(i) = out.iter().position(|a| a.place == p) {
            return i;
        }
        out.push(PlaceArcs {
            place: p,
            need: 0,
            inhibit: None,
            delta: 0,
        });
        out.len() - 1
    }
    let mut deltas: Vec<(usize, i128)> = Vec::new();
    for a in &tr.inputs {
        let i = at(&mut out, a.place);
        deltas.push((i, -i128::from(a.weight)));
        out[i].need = out[i].need.max(a.weight);
    }
    for a in &tr.outputs {
        let i = at(&mut out, a.place);
        deltas.push((i, i128::from(a.weight)));
    }
    for a in &tr.inhibitors {
        let i = at(&mut out, a.place);
        out[i].inhibit = Some(out[i].inhibit.map_or(a.weight, |h| h.min(a.weight)));
    }
    for (i, d) in deltas {
        let pa = &mut out[i];
        pa.delta =
            (i128::from(pa.delta) + d).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
    }
    out.sort_by_key(|a| a.place);
    out
}

/// The state space of a net that is exactly its invariants' polytope, found without a
/// fixpoint.
pub struct PolytopeStateSpace {
    pub metrics: StateSpaceMetrics,
    /// Boolean levels of the layout.
    pub levels: usize,
    /// The ranking that proved every marking of the polytope reachable ([`certify::rankings`]).
    pub ranking: &'static str,
    /// Whether the ranking needed runs of a few steps that gain ([`runs`]), not single steps.
    pub runs: bool,
    /// How many markings of the polytope were proved unreachable and taken out ([`trim`]).
    pub unreachable: BigUint,
}

/// The most levels tried (the diagram walks recurse once per level).
pub const MAX_LEVELS: usize = 20_000;

/// The state space of `net` as the polytope of the P-semiflows `flows` (sparse rows) within
/// the bits of `bounds` (which must bound every place in every reachable marking), when a
/// ranking proves every marking of it reachable ([`certify::certify`]; `t_flows`: the
/// supports of all minimal T-semiflows, when known); `Ok(None)` when none does, or when the
/// polytope's diagram would take more than `max_nodes` nodes. Places in `order` (`order[0]`
/// lowest) within each block of bits.
pub fn polytope_state_space(
    net: &PetriNet,
    bounds: &[u64],
    flows: &[Vec<(usize, i64)>],
    t_flows: Option<&[Vec<usize>]>,
    order: &[usize],
    limits: &Limits,
    max_nodes: usize,
) -> Result<Option<PolytopeStateSpace>, Interrupted> {
    let stop = limits.stopper();
    polytope_state_space_stopping(net, bounds, flows, t_flows, order, limits, max_nodes, &stop)
}

/// [`polytope_state_space`], the certificate ([`certify::certify`]) polled with `stop` rather
/// than with `limits` latched: tests make it answer true once and false after, to see that a
/// certificate cut short is never given (issue 50). A stop ends the run with `limits`'
/// reason, or a memory stop when they are met again.
#[allow(clippy::too_many_arguments)]
pub fn polytope_state_space_stopping(
    net: &PetriNet,
    bounds: &[u64],
    flows: &[Vec<(usize, i64)>],
    t_flows: Option<&[Vec<usize>]>,
    order: &[usize],
    limits: &Limits,
    max_nodes: usize,
    stop: &dyn Fn() -> bool,
) -> Result<Option<PolytopeStateSpace>, Interrupted> {
    let inputs = PolytopeInputs {
        net,
        bounds,
        flows,
        t_flows,
        order,
        max_nodes,
    };
    let Some(c) = certified(&inputs, limits, stop)? else {
        return Ok(None);
    };
    let Certified {
        mut dd,
        layout,
        proof,
        enabled,
        all_arcs,
    } = c;
    let metrics = figures::figures(&mut dd, &layout, proof.states, &all_arcs, &enabled, limits)?;
    if dd.sets.stopped() {
        return Err(limits.check().err().unwrap_or(Interrupted::Cancelled));
    }
    let unreachable = dd.sets.cardinality(proof.unreachable);
    Ok(Some(PolytopeStateSpace {
        metrics,
        levels: layout.levels.len(),
        ranking: proof.ranking,
        runs: proof.runs,
        unreachable,
    }))
}

/// What the polytope's procedures take: the net, every place's structural bound, the
/// P-semiflows, the minimal T-semiflows' supports when complete, the place order within a
/// block of bits, and the most nodes the polytope's diagram may take.
#[derive(Clone, Copy)]
pub struct PolytopeInputs<'a> {
    pub net: &'a PetriNet,
    pub bounds: &'a [u64],
    pub flows: &'a [Vec<(usize, i64)>],
    pub t_flows: Option<&'a [Vec<usize>]>,
    pub order: &'a [usize],
    pub max_nodes: usize,
}

/// What the polytope tells of the global properties ([`polytope_liveness`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolytopeLiveness {
    /// Per transition: enabled in some reachable marking.
    pub quasi_live: Vec<bool>,
    /// Some reachable marking enables no transition.
    pub deadlock: bool,
    /// Every transition can be enabled again from every reachable marking (the initial
    /// marking is a home state, so this is every transition quasi-live).
    pub live: bool,
}

/// The global properties of a net whose state space is its invariants' polytope `P` and whose
/// initial marking is a home state, both proved by rankings without generating anything:
/// every marking of `P` is reachable ([`certify::certify`] with no marking taken out), and
/// every marking of `P` reaches the initial one (the same certificate for the reversed net,
/// every arc turned round: its reachable markings are those from which the net reaches the
/// initial marking; the P-semiflows, the bounds and so `P` are the same). The state space is
/// then strongly connected: a transition enabled somewhere is enabled again from everywhere,
/// so the net is live exactly when it is quasi-live. `None` when a certificate is not found,
/// some marking of `P` is unreachable, or the net has inhibitor arcs (not reversible so).
pub fn polytope_liveness(
    inputs: &PolytopeInputs,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> Result<Option<PolytopeLiveness>, Interrupted> {
    let net = inputs.net;
    if net.transitions.iter().any(|t| !t.inhibitors.is_empty()) {
        return Ok(None);
    }
    let full = |c: &Certified| c.proof.unreachable.is_empty();
    let Some(mut fwd) = certified(inputs, limits, stop)?.filter(full) else {
        return Ok(None);
    };
    let mut reversed = net.clone();
    for t in &mut reversed.transitions {
        std::mem::swap(&mut t.inputs, &mut t.outputs);
    }
    let back = PolytopeInputs {
        net: &reversed,
        ..*inputs
    };
    let back = certified(&back, limits, stop)?;
    if !back.as_ref().is_some_and(full) {
        return Ok(None);
    }
    let states = fwd.proof.states;
    let sets = &mut fwd.dd.sets;
    let mut some = NodeId::EMPTY;
    let mut quasi_live = Vec::with_capacity(fwd.enabled.len());
    for (t, &e) in fwd.enabled.iter().enumerate() {
        if t % 256 == 0 {
            limits.check()?;
        }
        quasi_live.push(!sets.intersect(e, states).is_empty());
        some = sets.union(some, e);
    }
    let deadlock = !sets.minus(states, some).is_empty();
    if sets.stopped() {
        return Err(limits.check().err().unwrap_or(Interrupted::Cancelled));
    }
    let live = quasi_live.iter().all(|&q| q);
    Ok(Some(PolytopeLiveness {
        quasi_live,
        deadlock,
        live,
    }))
}

/// The polytope proved reachable ([`certify::certify`]) with what the figures read: the
/// diagrams, the layout, the proof, and per transition the markings that enable it and its
/// arcs.
struct Certified {
    dd: Dd,
    layout: Layout,
    proof: certify::Proof,
    enabled: Vec<NodeId>,
    all_arcs: Vec<Vec<PlaceArcs>>,
}

/// The core of [`polytope_state_space_stopping`]: the polytope and its certificate, `None`
/// when no ranking proves it reachable (or it is too large).
fn certified(
    inputs: &PolytopeInputs,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Certified>, Interrupted> {
    let PolytopeInputs {
        net,
        bounds,
        flows,
        t_flows,
        order,
        max_nodes,
    } = *inputs;
    if flows.is_empty() || bounds.len() != net.places.len() {
        return Ok(None);
    }
    let layout = Layout::new(bounds, order);
    let k = layout.levels.len();
    if k > MAX_LEVELS {
        return Ok(None);
    }
    let m0 = net.initial_marking();
    let mut dd = Dd::new(k);
    for l in 1..=k {
        dd.rels.set_domain(unprimed_level(l), 2);
        dd.rels.set_domain(unprimed_level(l) - 1, 2);
    }
    // the set operations stop when a limit is reached (checked after each step below)
    let lim = *limits;
    dd.sets
        .set_poll(Some(Box::new(move |_| lim.check().is_err())));
    let stopped = |dd: &Dd| -> Result<(), Interrupted> {
        if dd.sets.stopped() {
            return Err(limits.check().err().unwrap_or(Interrupted::Cancelled));
        }
        Ok(())
    };
    // one equation at a time (a handful of carries each), met by intersection: the product
    // of every equation's carries would be far more states than the polytope has nodes
    let mut p = NodeId::EMPTY;
    for (i, flow) in linear::independent(flows, net.places.len())
        .into_iter()
        .enumerate()
    {
        limits.check()?;
        let Some(sys) = linear::System::new(std::slice::from_ref(flow), &m0, &layout) else {
            return Ok(None);
        };
        let stop = limits.stopper();
        let Some(pi) = linear::linear_set(&mut dd.sets, &layout, &sys, max_nodes, &stop) else {
            limits.check()?;
            return Ok(None);
        };
        p = if i == 0 { pi } else { dd.sets.intersect(p, pi) };
        stopped(&dd)?;
        if dd.sets.count_nodes(&[p]) > max_nodes {
            return Ok(None);
        }
    }
    limits.check()?;
    let init = dd.sets.singleton(&layout.encode(&m0));
    if dd.sets.intersect(p, init) != init {
        return Ok(None);
    }
    let mut rels = Vec::with_capacity(net.transitions.len());
    let (mut succ, mut succ_bounds) = (Vec::new(), Vec::new());
    let (mut enabled, mut all_arcs) = (Vec::new(), Vec::new());
    for t in 0..net.transitions.len() {
        if t % 256 == 0 {
            limits.check()?;
        }
        let arcs = place_arcs(net, t);
        rels.push(transition_relation(&mut dd.rels, &layout, &arcs));
        all_arcs.push(arcs.clone());
        let mut as_set = |b: Option<Vec<interval::Bound>>| {
            b.map_or(NodeId::EMPTY, |b| {
                interval::box_set(&mut dd.sets, &layout, &b)
            })
        };
        let sb = interval::successor_box(&layout, &arcs);
        succ.push(as_set(sb.clone()));
        succ_bounds.push(sb);
        enabled.push(as_set(interval::enabled_box(&layout, &arcs)));
    }
    let proved = certify::certify(
        &mut dd,
        net,
        p,
        init,
        certify::Moves {
            rels: &rels,
            boxes: &succ,
            bounds: &succ_bounds,
            layout: &layout,
        },
        t_flows,
        stop,
    );
    stopped(&dd)?;
    limits.check()?;
    if stop() {
        // a memory limit met again after it stopped the certificate
        return Err(Interrupted::Memory);
    }
    Ok(proved.map(|proof| Certified {
        dd,
        layout,
        proof,
        enabled,
        all_arcs,
    }))
}
