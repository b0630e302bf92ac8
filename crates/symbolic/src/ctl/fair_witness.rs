//! Shortest fair witnesses (thesis section 5.3.2) and the lasso search they share with the
//! witnesses beyond `EG` (section 5.3.1).
//!
//! A *fair* lasso under Büchi fairness `F_1..F_n` is a stem from the initial state to a knot `k`
//! and a cycle from `k` back to `k` that holds a state of every `F_m` (the cycle's states are
//! the knot and every state after it). The thesis adds a fairness flag `f ∈ {0,1}^n` to its
//! closure with distances: `TCD^f(i, j, f)` is the length of a shortest path from `i` to `j`
//! whose states after `i` meet exactly the sets of `f`, and the objective is
//! `min_k TCD_stem(k) + TCD^f(k, k, ⊤)`. Finding it is NP-complete in `n` (the thesis cites
//! [32]); with the flag it costs `2^n` times the unfair search, which is exact for any `n`.
//!
//! Here the same minimum is reached as the unfair `layers` method does (module `shortest`):
//! the stem by explicit breadth-first layers from the initial state (keeping parents), each
//! knot `k` of layer `i < best` with a shortest fair cycle by *backward distance layers over the
//! flagged product* (`layers[d][f]`: the states `s` from which `(s, f)` reaches `(k, ⊤)` in
//! `d` steps and no fewer, flags growing by the sets of each state entered; symbolic
//! preimages, one per pair `(f', g)` of a flag and the exact set pattern `g ⊆ f'` of the
//! state entered: `3^n` per layer), cut off at `best - i - 1` steps, then the walk down the
//! layers from `(k, ⊥)`. Exact: the flag walk meets `(k, ⊤)` from `(k, ⊥)` in `c` steps iff
//! a cycle of length `c` through `k` meets every set, and the knot of an optimal lasso is
//! tried with a bound its cycle meets. With [`WitnessMethod::Bfs`] the search stops at the
//! first knot (in breadth-first order) with a fair cycle: a valid lasso, not a shortest one.
//!
//! The search is written once for a two-phase stem (section 5.3.1's `EF(r ∧ EG φ)`): in phase
//! 0 the stem runs through `free`, it may enter phase 1 at a state of `switch` (no step), and
//! in phase 1 it stays in `within`; a knot's cycle stays in `within` and meets the sets of its
//! phase. Fair `EG` starts in phase 1.

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;

use super::shortest::WitnessMethod;
use super::witness::Witness;
use super::{Checker, CtlError, Deadlocks};

/// What a lasso must show (see the module comment).
pub(super) struct LassoGoal {
    /// Does the stem start in phase 1 (`false`: phase 0)?
    pub start_in_phase1: bool,
    /// The states a phase-0 stem may visit.
    pub free: NodeId,
    /// The states where a phase-0 stem may enter phase 1.
    pub switch: NodeId,
    /// The states of a phase-1 stem and of every cycle.
    pub within: NodeId,
    /// The sets the cycle of a knot reached in phase 0 (resp. 1) must meet.
    pub sets: [Vec<NodeId>; 2],
    /// Does a deadlock of `within` reached in phase 1 and in every set of that phase end a
    /// witness (a maximal path, under [`Deadlocks::Maximal`] without fairness)?
    pub maximal_ends: bool,
    /// The states where a cycle may be tried (`None`: every state of `within`).
    pub knots: Option<NodeId>,
    /// States that end a witness without a cycle, and the steps such an end counts for after
    /// the stem (the LTL product's accepting deadlocks: [`Checker::product_lasso`]).
    pub ends: Option<(NodeId, usize)>,
}

/// A state of the stem search: the state and its phase.
type Node = (Vec<u32>, bool);
/// How a stem node was first reached: the event (`None`: the switch to phase 1) and the
/// previous node.
type Parent = Option<(Option<usize>, Node)>;

impl Checker<'_> {
    /// A shortest fair witness of `EG` whose satisfying set (under the checker's fairness) is
    /// `q`, thesis section 5.3.2: `min_k TCD_stem(k) + TCD^f(k, k, ⊤)`, a lasso whose cycle
    /// meets every fairness set (see the module comment); `None` when the initial state is not
    /// in `q`. With [`WitnessMethod::Bfs`] the lasso of the first knot found instead (not
    /// shortest).
    pub(super) fn shortest_fair_witness(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        if !self.member(q, &self.initial) {
            return Ok(None);
        }
        let fair = self.fair.clone();
        let goal = LassoGoal {
            start_in_phase1: true,
            free: q,
            switch: NodeId::EMPTY,
            within: q,
            sets: [fair.clone(), fair],
            maximal_ends: false,
            knots: None,
            ends: None,
        };
        self.lasso_search(&goal)?
            .ok_or_else(|| CtlError::Witness("no fair lasso where one was proved".into()))
            .map(Some)
    }

    /// A shortest accepting run of an LTL product (module `ltl`): a stem from the initial state
    /// through the reachable states, then either a cycle through a knot of `knots` within `q`
    /// (the states with a fair path) meeting every fairness set, or an end at a state of
    /// `ends` counting for `end_cost` steps more than its stem (the product's accepting
    /// deadlocks); the least total over both. `None` when there is neither.
    pub(crate) fn product_lasso(
        &mut self,
        q: NodeId,
        knots: NodeId,
        ends: NodeId,
        end_cost: usize,
    ) -> Result<Option<Witness>, CtlError> {
        let fair = self.fair.clone();
        let goal = LassoGoal {
            start_in_phase1: false,
            free: self.rch,
            switch: NodeId::EMPTY,
            within: q,
            sets: [fair.clone(), fair],
            maximal_ends: false,
            knots: Some(knots),
            ends: Some((ends, end_cost)),
        };
        self.lasso_search(&goal)
    }

    /// The least lasso of `goal` (the first one found with [`WitnessMethod::Bfs`]), if any.
    pub(super) fn lasso_search(&mut self, goal: &LassoGoal) -> Result<Option<Witness>, CtlError> {
        let mark = self.pins.len();
        for n in [goal.free, goal.switch, goal.within] {
            self.pin(n);
        }
        for n in goal.knots.iter().chain(goal.ends.iter().map(|e| &e.0)) {
            self.pin(*n);
        }
        let r = self.lasso_layers(goal);
        self.pins.truncate(mark);
        let first = self.witness_method == WitnessMethod::Bfs;
        Ok(r?.map(|mut w| {
            w.method = if first {
                WitnessMethod::Bfs
            } else {
                WitnessMethod::Layers
            };
            w.shortest = !first;
            w
        }))
    }

    /// The stem's breadth-first layers over `(state, phase)`, each knot tried while its
    /// distance is below the best lasso's length.
    fn lasso_layers(&mut self, goal: &LassoGoal) -> Result<Option<Witness>, CtlError> {
        let first = self.witness_method == WitnessMethod::Bfs;
        // the best witness and the steps it counts for (an end of `goal.ends` counts for more
        // than its stem)
        let mut best: Option<(Witness, usize)> = None;
        let bound = |b: &Option<(Witness, usize)>| b.as_ref().map_or(usize::MAX, |b| b.1);
        let mut parent: FxHashMap<Node, Parent> = FxHashMap::default();
        let mut layer = Vec::new();
        let s0 = self.initial.clone();
        self.enter(
            goal,
            &mut parent,
            &mut layer,
            (s0, goal.start_in_phase1),
            None,
        );
        let mut i = 0;
        while !layer.is_empty() && i < bound(&best) {
            let mut next = Vec::new();
            for node in std::mem::take(&mut layer) {
                self.limits.check()?;
                let (k, phase) = &node;
                let sets = goal.sets[usize::from(*phase)].clone();
                if let Some((ends, cost)) = goal.ends {
                    if self.member(ends, k) && i + cost < bound(&best) {
                        best = Some((stem_of(&parent, &node), i + cost));
                        if first {
                            return Ok(best.map(|b| b.0));
                        }
                        continue;
                    }
                }
                let succ = self.successors(k);
                if succ.is_empty() {
                    // a deadlock: its own loop, or the end of a maximal path
                    let total = match self.deadlocks {
                        Deadlocks::SelfLoop
                            if self.member(goal.within, k)
                                && sets.iter().all(|&f| self.member(f, k)) =>
                        {
                            Some(i + 1)
                        }
                        Deadlocks::Maximal
                            if *phase
                                && goal.maximal_ends
                                && sets.iter().all(|&f| self.member(f, k)) =>
                        {
                            Some(i)
                        }
                        _ => None,
                    };
                    if let Some(t) = total.filter(|&t| t < bound(&best)) {
                        let mut w = stem_of(&parent, &node);
                        if t > i {
                            w.events.push(None);
                            w.states.push(k.clone());
                            w.loop_start = Some(i);
                        }
                        best = Some((w, t));
                        if first {
                            return Ok(best.map(|b| b.0));
                        }
                    }
                    continue;
                }
                let knot = goal.knots.unwrap_or(goal.within);
                if self.member(knot, k) && self.member(goal.within, k) && i + 1 < bound(&best) {
                    let max = bound(&best).saturating_sub(i + 1);
                    if let Some(cycle) = self.shortest_fair_cycle(goal.within, &sets, k, max)? {
                        let mut w = stem_of(&parent, &node);
                        let l = w.len();
                        w.events.extend(cycle.events);
                        w.states.extend(cycle.states.into_iter().skip(1));
                        w.loop_start = Some(l);
                        let t = w.len();
                        best = Some((w, t));
                        if first {
                            return Ok(best.map(|b| b.0));
                        }
                    }
                }
                let room = if *phase { goal.within } else { goal.free };
                for (e, t) in succ {
                    if self.member(room, &t) {
                        let to = (t, *phase);
                        self.enter(
                            goal,
                            &mut parent,
                            &mut next,
                            to,
                            Some((Some(e), node.clone())),
                        );
                    }
                }
            }
            layer = next;
            i += 1;
        }
        Ok(best.map(|b| b.0))
    }

    /// Put `node` (reached by `from`) into `layer` if it is new, and, in phase 0 at a state of
    /// `goal.switch`, its phase-1 twin too (the switch takes no step).
    fn enter(
        &self,
        goal: &LassoGoal,
        parent: &mut FxHashMap<Node, Parent>,
        layer: &mut Vec<Node>,
        node: Node,
        from: Parent,
    ) {
        if parent.contains_key(&node) {
            return;
        }
        parent.insert(node.clone(), from);
        layer.push(node.clone());
        if !node.1 && self.member(goal.switch, &node.0) && self.member(goal.within, &node.0) {
            let twin = (node.0.clone(), true);
            self.enter(goal, parent, layer, twin, Some((None, node)));
        }
    }

    /// A shortest cycle through `k` within `within` of at most `max` steps that meets every set
    /// of `sets`, as a path from `k` back to `k` (the module comment's flagged layers).
    pub(super) fn shortest_fair_cycle(
        &mut self,
        within: NodeId,
        sets: &[NodeId],
        k: &[u32],
        max: usize,
    ) -> Result<Option<Witness>, CtlError> {
        let mark = self.pins.len();
        let r = self.fair_cycle_layers(within, sets, k, max);
        let out = r.map(|layers| layers.map(|l| self.descend_flags(k, sets, &l)));
        self.pins.truncate(mark);
        out
    }

    /// The states of `within` in exactly the sets of `g` among `sets`, for every pattern `g`.
    fn set_patterns(&mut self, within: NodeId, sets: &[NodeId]) -> Vec<NodeId> {
        let mut classes = vec![within];
        for &f in sets {
            let mut next = Vec::with_capacity(classes.len() * 2);
            for &c in &classes {
                next.push(self.minus(c, f));
            }
            for &c in &classes {
                next.push(self.and(c, f));
            }
            classes = next;
        }
        for &c in &classes {
            self.pin(c);
        }
        classes
    }

    /// The layers of [`Checker::shortest_fair_cycle`]: `layers[d][f]` the states at flag `f`
    /// first at distance `d` from `(k, ⊤)`; the last one holds `k` at flag `⊥` (0).
    fn fair_cycle_layers(
        &mut self,
        within: NodeId,
        sets: &[NodeId],
        k: &[u32],
        max: usize,
    ) -> Result<Option<Vec<Vec<NodeId>>>, CtlError> {
        let n = sets.len();
        if n > 16 {
            return Err(CtlError::Witness(
                "a fair witness over more than 16 fairness sets".into(),
            ));
        }
        let m = 1usize << n;
        let top = m - 1;
        let classes = self.set_patterns(within, sets);
        let ks = self.reach.state_set(k);
        self.pin(ks);
        if !self.has_fair_cycle(within, sets, ks, k)? {
            return Ok(None);
        }
        let mut l0 = vec![NodeId::EMPTY; m];
        l0[top] = ks;
        let mut seen = l0.clone();
        let mut layers = vec![l0];
        for _ in 0..max {
            let last = layers.last().expect("one layer").clone();
            if last.iter().all(|s| s.is_empty()) {
                return Ok(None);
            }
            let mut p = vec![NodeId::EMPTY; m];
            for (f2, &l) in last.iter().enumerate() {
                if l.is_empty() {
                    continue;
                }
                // g: the exact pattern of the state entered, within f2
                for g in subsets(f2) {
                    let a = self.and(l, classes[g]);
                    if a.is_empty() {
                        continue;
                    }
                    let pa = self.pre(a)?;
                    let pa = self.and(pa, within);
                    if pa.is_empty() {
                        continue;
                    }
                    // every flag f with f | g == f2
                    let need = f2 & !g;
                    for f in subsets(f2).filter(|f| f & need == need) {
                        p[f] = self.or(p[f], pa);
                        self.pin(p[f]);
                    }
                }
            }
            if self.member(p[0], k) {
                layers.push(p);
                return Ok(Some(layers));
            }
            let mut next = vec![NodeId::EMPTY; m];
            for f in 0..m {
                next[f] = self.minus(p[f], seen[f]);
                seen[f] = self.or(seen[f], next[f]);
                self.pin(next[f]);
                self.pin(seen[f]);
            }
            layers.push(next);
            self.collect(&[]);
        }
        Ok(None)
    }

    /// Has `k` (the set `ks`) a cycle within `within` that meets every set of `sets`? By
    /// saturation: the states `back` that reach `k` again in at least one step within
    /// `within` hold `k`, and `k` reaches within `within` a state of each set among `back`
    /// (a state of `k`'s SCC). A few saturations where the layers, from a knot without such a
    /// cycle, would run breadth-first to exhaustion (most knots of an LTL product's stem).
    fn has_fair_cycle(
        &mut self,
        within: NodeId,
        sets: &[NodeId],
        ks: NodeId,
        k: &[u32],
    ) -> Result<bool, CtlError> {
        let p = self.pre(ks)?;
        let p = self.and(p, within);
        self.pin(p);
        let back = self.eu_cons_sat(within, p)?;
        self.pin(back);
        if !self.member(back, k) {
            return Ok(false);
        }
        for &f in sets {
            let g = self.and(f, back);
            self.pin(g);
            let r = self.eu_cons_sat(within, g)?;
            if !self.member(r, k) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The flags of `s`: bit `m` set iff `s` is in `sets[m]`.
    fn flags(&self, sets: &[NodeId], s: &[u32]) -> usize {
        sets.iter()
            .enumerate()
            .filter(|&(_, &f)| self.member(f, s))
            .fold(0, |acc, (m, _)| acc | (1 << m))
    }

    /// The forward walk from `(k, ⊥)` down the flagged layers to `(k, ⊤)`.
    fn descend_flags(&mut self, k: &[u32], sets: &[NodeId], layers: &[Vec<NodeId>]) -> Witness {
        let mut s = k.to_vec();
        let mut f = 0;
        let mut w = Witness::path(vec![s.clone()], Vec::new());
        for d in (0..layers.len() - 1).rev() {
            let (e, t, g) = self
                .successors(&s)
                .into_iter()
                .find_map(|(e, t)| {
                    let g = f | self.flags(sets, &t);
                    self.member(layers[d][g], &t).then_some((e, t, g))
                })
                .expect("a state at distance d+1 has a successor at distance d");
            w.events.push(Some(e));
            w.states.push(t.clone());
            s = t;
            f = g;
        }
        w
    }
}

/// The subsets of the bit set `s` (`s` itself and 0 included).
fn subsets(s: usize) -> impl Iterator<Item = usize> {
    let mut next = Some(s);
    std::iter::from_fn(move || {
        let cur = next?;
        next = if cur == 0 { None } else { Some((cur - 1) & s) };
        Some(cur)
    })
}

/// The stem from the initial state to `node` by the parents of the breadth-first search (the
/// switch to phase 1 takes no step).
fn stem_of(parent: &FxHashMap<Node, Parent>, node: &Node) -> Witness {
    let mut states = vec![node.0.clone()];
    let mut events = Vec::new();
    let mut n = node;
    while let Some(Some((e, p))) = parent.get(n) {
        if let Some(e) = e {
            events.push(Some(*e));
            states.push(p.0.clone());
        }
        n = p;
    }
    states.reverse();
    events.reverse();
    Witness::path(states, events)
}
