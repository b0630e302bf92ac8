//! Witnesses and counterexamples (issue 9 item 3, issue 47): for `EF`/`EU` a *shortest* path,
//! by backward distance layers from the target restricted to the constraint, then a forward walk
//! from the initial state that descends one layer per step; for `EX` one step; for `EG` a
//! shortest lasso (module `shortest`, thesis section 5.2) or, with [`WitnessMethod::Bfs`], the
//! lasso of the walk of thesis Figure 5.1 (EGwitnessBFS); under fairness a lasso whose
//! cycle meets every fairness set (module `fair_witness`, thesis section 5.3.2); for a failing `AX`, `AF`, `AG`, `AU`
//! the witness of the dual E-formula (for `AU` the shorter of its two shapes). The walks fire the
//! model's events explicitly on single states; every witness is replayed on the model before it
//! is returned.

use rustc_hash::FxHashMap;
use saturn_dd::NodeId;
use saturn_logic::StateFormula;

use super::shortest::WitnessMethod;
use super::{Checker, CtlError, Deadlocks};

/// A path of the model from its initial state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// The states along the path, `states[0]` the initial one, each as its local states by
    /// level (`s[k-1]` for level `k`; a place's token count for a Petri net).
    pub states: Vec<Vec<u32>>,
    /// `events[i]` (a model event index) leads from `states[i]` to `states[i+1]`; `None` is
    /// the self-loop of a deadlock under [`Deadlocks::SelfLoop`].
    pub events: Vec<Option<usize>>,
    /// A lasso: the last state equals `states[l]`, and the path loops from there forever.
    pub loop_start: Option<usize>,
    /// The algorithm that made it.
    pub method: WitnessMethod,
    /// Is it a shortest witness of its formula (false: the walk of Figure 5.1, valid but of no
    /// guaranteed length)?
    pub shortest: bool,
}

impl Witness {
    /// A shortest path (not a lasso) through `states` by `events`, found by distance layers.
    pub(super) fn path(states: Vec<Vec<u32>>, events: Vec<Option<usize>>) -> Witness {
        Witness {
            states,
            events,
            loop_start: None,
            method: WitnessMethod::Layers,
            shortest: true,
        }
    }

    /// The number of transitions fired.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// What a witness must show.
enum Goal {
    /// A path within `phi` to a state of `psi` (EF, EU).
    Until(NodeId, NodeId),
    /// One step into `a` (EX).
    Next(NodeId),
    /// A lasso, or a maximal path ending in a deadlock, within the EG set `q`.
    Globally(NodeId),
    /// `¬A[a U b]`: a witness of `EG ¬b` (its set `eg`, when it holds) or a path within `¬b`
    /// into `¬a ∧ ¬b`.
    Release {
        eg: Option<NodeId>,
        a: NodeId,
        b: NodeId,
    },
}

impl Checker<'_> {
    /// A witness of `f` at the initial state when `f` is an E-formula that holds there, or a
    /// counterexample (the witness of its negation's E-form) when `f` is an A-formula that fails
    /// there; `None` for other formulas (atoms, boolean connectives) and when there is none.
    pub fn witness(&mut self, f: &StateFormula) -> Result<Option<Witness>, CtlError> {
        use StateFormula as F;
        let holds = self.holds(f)?;
        let goal = match (f, holds) {
            (F::EX(a), true) => {
                let a = self.sat(a)?;
                Goal::Next(a)
            }
            (F::AX(a), false) => {
                let a = self.sat(a)?;
                Goal::Next(self.not(a))
            }
            (F::EF(a), true) => {
                let a = self.sat(a)?;
                Goal::Until(self.rch, a)
            }
            (F::AG(a), false) => {
                let a = self.sat(a)?;
                Goal::Until(self.rch, self.not(a))
            }
            (F::EU(a, b), true) => {
                let a = self.sat(a)?;
                let b = self.sat(b)?;
                Goal::Until(a, b)
            }
            (F::EG(_), true) => Goal::Globally(self.sat(f)?),
            (F::AF(_), false) => {
                let af = self.sat(f)?;
                Goal::Globally(self.not(af))
            }
            (F::AU(a, b), false) => {
                // ¬A[a U b] = E[¬b U (¬a ∧ ¬b)] ∨ EG ¬b
                let eg = StateFormula::EG(Box::new(StateFormula::Not(b.clone())));
                let eg = if self.holds(&eg)? {
                    Some(self.sat(&eg)?)
                } else {
                    None
                };
                Goal::Release {
                    eg,
                    a: self.sat(a)?,
                    b: self.sat(b)?,
                }
            }
            _ => return Ok(None),
        };
        let w = match goal {
            Goal::Next(a) => self.next_witness(a),
            Goal::Until(phi, psi) => self.shortest_path(phi, psi)?,
            Goal::Globally(q) => self.globally_witness(q)?,
            Goal::Release { eg, a, b } => self.release_witness(eg, a, b)?,
        };
        if let Some(w) = &w {
            self.replay(w).map_err(CtlError::Witness)?;
        }
        Ok(w)
    }

    /// A witness of `EG` whose satisfying set is `q`, by the checker's witness method.
    /// Under fairness: a lasso whose cycle meets every fairness set (module `fair_witness`,
    /// by distance layers whatever the method but `bfs`).
    fn globally_witness(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        if !self.fair.is_empty() {
            return self.shortest_fair_witness(q);
        }
        match self.witness_method {
            WitnessMethod::Bfs => self.eg_witness(q),
            WitnessMethod::Layers => self.shortest_eg_witness(q),
            WitnessMethod::Tcd => self.tcd_eg_witness(q),
            WitnessMethod::Auto | WitnessMethod::Search => self.auto_eg_witness(q),
        }
    }

    /// A counterexample of `A[a U b]` (the sets `a`, `b`; `eg` the set of `EG ¬b` when it
    /// holds): with [`WitnessMethod::Bfs`] the lasso of `EG ¬b` when there is one, else the
    /// shortest path of `E[¬b U (¬a ∧ ¬b)]`; with [`WitnessMethod::Layers`] the shorter of the
    /// shortest witnesses of the two.
    fn release_witness(
        &mut self,
        eg: Option<NodeId>,
        a: NodeId,
        b: NodeId,
    ) -> Result<Option<Witness>, CtlError> {
        let lasso = match (eg, self.witness_method) {
            (None, _) => None,
            (Some(q), WitnessMethod::Bfs) => return self.globally_witness(q),
            (Some(q), _) => self.globally_witness(q)?,
        };
        let nb = self.not(b);
        let na = self.not(a);
        let end = self.and(na, nb);
        let path = self.shortest_path(nb, end)?;
        Ok(match (lasso, path) {
            (Some(l), Some(p)) => Some(if p.len() < l.len() { p } else { l }),
            (l, p) => l.or(p),
        })
    }

    /// One step from the initial state into `a` (a deadlock's self-loop under
    /// [`Deadlocks::SelfLoop`]).
    fn next_witness(&mut self, a: NodeId) -> Option<Witness> {
        let s0 = self.initial.clone();
        let step = self
            .successors(&s0)
            .into_iter()
            .find(|(_, t)| self.member(a, t));
        let (e, s1) = match step {
            Some((e, t)) => (Some(e), t),
            None if self.deadlocks == Deadlocks::SelfLoop
                && self.member(self.dead, &s0)
                && self.member(a, &s0) =>
            {
                (None, s0.clone())
            }
            None => return None,
        };
        Some(Witness {
            states: vec![s0, s1],
            events: vec![e],
            loop_start: None,
            method: WitnessMethod::Layers,
            shortest: true,
        })
    }

    /// A shortest path from the initial state through `phi` into `psi`: layer `d` holds the
    /// states at distance `d` from `psi` through `phi` (backward breadth-first search within
    /// the constraint); the initial state's layer is the length, and each step of the forward
    /// walk fires an event into the next lower layer.
    fn shortest_path(&mut self, phi: NodeId, psi: NodeId) -> Result<Option<Witness>, CtlError> {
        let mark = self.pins.len();
        let r = self.shortest_path_layers(phi, psi);
        let s0 = self.initial.clone();
        let out = r.map(|layers| layers.map(|l| self.descend_from(&s0, &l)));
        self.pins.truncate(mark);
        out
    }

    fn shortest_path_layers(
        &mut self,
        phi: NodeId,
        psi: NodeId,
    ) -> Result<Option<Vec<NodeId>>, CtlError> {
        self.pin(phi);
        self.pin(psi);
        let mut layers = vec![psi];
        let mut seen = psi;
        self.pin(seen);
        loop {
            let last = *layers.last().expect("one layer");
            if self.contains_init(last) {
                return Ok(Some(layers));
            }
            if last.is_empty() {
                return Ok(None);
            }
            let p = self.pre(last)?;
            let p = self.and(p, phi);
            let next = self.minus(p, seen);
            seen = self.or(seen, next);
            self.pin(next);
            self.pin(seen);
            layers.push(next);
            self.collect(&[]);
        }
    }

    /// The forward walk from `start` down the distance layers (the last layer holds `start`,
    /// `layers[d]` the states at distance `d` to the target `layers[0]`).
    pub(super) fn descend_from(&mut self, start: &[u32], layers: &[NodeId]) -> Witness {
        let mut s = start.to_vec();
        let mut w = Witness {
            states: vec![s.clone()],
            events: Vec::new(),
            loop_start: None,
            method: WitnessMethod::Layers,
            shortest: true,
        };
        for d in (0..layers.len() - 1).rev() {
            let (e, t) = self
                .successors(&s)
                .into_iter()
                .find(|(_, t)| self.member(layers[d], t))
                .expect("a state at distance d+1 has a successor at distance d");
            w.events.push(Some(e));
            w.states.push(t.clone());
            s = t;
        }
        w
    }

    /// EGwitnessBFS (thesis Figure 5.1): from the initial state, keep picking a successor in
    /// the EG set `q` (every state of it has one, or is a deadlock) until a state repeats: a
    /// lasso; a deadlock ends a maximal path (under [`Deadlocks::SelfLoop`] it loops on
    /// itself). A successor already on the path is preferred, which closes the cycle early.
    pub(super) fn eg_witness(&mut self, q: NodeId) -> Result<Option<Witness>, CtlError> {
        let mut s = self.initial.clone();
        if !self.member(q, &s) {
            return Ok(None);
        }
        let mut index: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
        let mut w = Witness {
            states: vec![s.clone()],
            events: Vec::new(),
            loop_start: None,
            method: WitnessMethod::Bfs,
            shortest: false,
        };
        index.insert(s.clone(), 0);
        loop {
            if w.states.len().is_multiple_of(4096) {
                self.limits.check()?;
            }
            let succ = self.successors_within(q, &s);
            let Some(pick) = succ
                .iter()
                .find(|(_, t)| index.contains_key(t))
                .or_else(|| succ.first())
                .cloned()
            else {
                // a deadlock of q: the maximal path ends here
                if self.deadlocks == Deadlocks::SelfLoop {
                    w.events.push(None);
                    w.states.push(s.clone());
                    w.loop_start = Some(w.states.len() - 2);
                }
                return Ok(Some(w));
            };
            let (e, t) = pick;
            w.events.push(Some(e));
            w.states.push(t.clone());
            if let Some(&i) = index.get(&t) {
                w.loop_start = Some(i);
                return Ok(Some(w));
            }
            index.insert(t.clone(), w.states.len() - 1);
            s = t;
        }
    }

    /// The successors of state `s` by the model's events, fired explicitly: `(event, state)`.
    pub(super) fn successors(&self, s: &[u32]) -> Vec<(usize, Vec<u32>)> {
        (0..self.events.len())
            .filter_map(|e| self.fire(e, s).map(|t| (e, t)))
            .collect()
    }

    /// The successors of state `s` that lie in `set`: `(event, state)`. When `s` is in `set`
    /// the lookups share its path in the diagram above each event's top level, where a
    /// successor equals `s`, so each costs the levels from the event's top down instead of
    /// all of them.
    pub(super) fn successors_within(&self, set: NodeId, s: &[u32]) -> Vec<(usize, Vec<u32>)> {
        let forest = self.forest();
        let fired: Vec<(usize, Vec<u32>)> = self.successors(s);
        let levels = s.len();
        let top = |e: usize| self.events[e].top().clamp(1, levels.max(1));
        let Some(lowest) = fired.iter().map(|&(e, _)| top(e)).min() else {
            return fired;
        };
        // path[k]: the node reached above level k along s (path[K] = set), down to the
        // lowest top among the enabled events
        let mut path = vec![NodeId::EMPTY; levels + 1];
        let mut n = set;
        for k in (lowest..=levels).rev() {
            path[k] = n;
            n = forest.child_at(n, k, s[k - 1]);
        }
        if n.is_empty() || levels == 0 {
            // not a state of `set`: no path to share
            return fired
                .into_iter()
                .filter(|(_, t)| self.member(set, t))
                .collect();
        }
        fired
            .into_iter()
            .filter(|(e, t)| {
                let mut n = path[top(*e)];
                for k in (1..=top(*e)).rev() {
                    n = forest.child_at(n, k, t[k - 1]);
                    if n.is_empty() {
                        return false;
                    }
                }
                n == NodeId::ONE
            })
            .collect()
    }

    /// Event `e` fired in state `s`, if enabled.
    fn fire(&self, e: usize, s: &[u32]) -> Option<Vec<u32>> {
        // enabled first: most events are disabled in most states, and the copy costs more
        let parts = &self.events[e].parts;
        if !parts.iter().all(|(l, f)| f.enabled(s[l - 1])) {
            return None;
        }
        let mut t = s.to_vec();
        for (l, f) in &self.events[e].parts {
            t[l - 1] = f.fire(s[l - 1])?;
        }
        Some(t)
    }

    /// Is `state` in `set`?
    pub(super) fn member(&self, set: NodeId, state: &[u32]) -> bool {
        let forest = self.forest();
        let mut n = set;
        for k in (1..=state.len()).rev() {
            n = forest.child_at(n, k, state[k - 1]);
            if n.is_empty() {
                return false;
            }
        }
        n == NodeId::ONE
    }

    /// Replay `w` on the model: it starts in the initial state, each step fires an enabled
    /// event (or is a deadlock's self-loop under [`Deadlocks::SelfLoop`]) and reaches the next
    /// state, and a lasso closes on the state it names.
    pub fn replay(&self, w: &Witness) -> Result<(), String> {
        if w.states.first() != Some(&self.initial) {
            return Err("the witness does not start in the initial state".into());
        }
        if w.states.len() != w.events.len() + 1 {
            return Err("a witness has one more state than steps".into());
        }
        for (i, e) in w.events.iter().enumerate() {
            let (s, t) = (&w.states[i], &w.states[i + 1]);
            let ok = match e {
                Some(e) => self.fire(*e, s).as_ref() == Some(t),
                None => {
                    self.deadlocks == Deadlocks::SelfLoop && s == t && self.successors(s).is_empty()
                }
            };
            if !ok {
                return Err(format!("step {} of the witness does not replay", i + 1));
            }
        }
        if let Some(l) = w.loop_start {
            if w.states.get(l) != w.states.last() {
                return Err("the witness's lasso does not close".into());
            }
        }
        Ok(())
    }
}
