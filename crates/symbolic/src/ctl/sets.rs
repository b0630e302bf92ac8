//! The checker's only contact with the decision-diagram forest and the generator: set
//! operations within the reachable states, the preimage, garbage collection. (Porting the
//! checker to another DD context means changing this file.)

use saturn_dd::{Forest, NodeId, Pin};

use saturn_logic::{LinExpr, StateFormula};

use super::{Checker, CtlError};
use crate::atoms::AtomError;
use crate::Interrupted;

impl Checker<'_> {
    /// The `pot` states of a boolean combination of atoms.
    pub(super) fn atom_set(&mut self, f: &StateFormula) -> Result<NodeId, AtomError> {
        self.atoms.eval(&mut self.reach.dd_mut().sets, f)
    }

    /// The `pot` deadlocks.
    pub(super) fn pot_deadlocks(&mut self) -> NodeId {
        self.atoms.deadlock(&mut self.reach.dd_mut().sets)
    }

    /// The range of `expr` over `set`.
    pub(super) fn range(
        &self,
        set: NodeId,
        expr: &LinExpr,
    ) -> Result<Option<(i128, i128)>, AtomError> {
        self.atoms.range(&self.reach.dd().sets, set, expr)
    }

    /// The set forest holding every set of the checker (read only: e.g. to draw them).
    pub fn forest(&self) -> &Forest {
        &self.reach.dd().sets
    }

    pub(super) fn and(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.polled(|f| f.intersect(a, b))
    }

    pub(super) fn or(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.polled(|f| f.union(a, b))
    }

    pub(super) fn minus(&mut self, a: NodeId, b: NodeId) -> NodeId {
        self.polled(|f| f.minus(a, b))
    }

    /// A set operation, within the limits while a formula is computed (`self.polling`): a
    /// single union or intersection of diagrams of 10^25 states runs for minutes
    /// (BusinessProcesses-PT-14), so the forest polls the limits while it runs; once they stop
    /// it, its result (and every later one, EMPTY at once) is wrong, and `self.cut` says why:
    /// [`Checker::sat`] returns the error and keeps none of them. The plain set operations
    /// only: the generator's caches (saturation inside the fixpoints) never see a stopped
    /// forest.
    fn polled(&mut self, op: impl FnOnce(&mut Forest) -> NodeId) -> NodeId {
        if !self.polling {
            return op(&mut self.reach.dd_mut().sets);
        }
        if self.cut.is_some() {
            return NodeId::EMPTY;
        }
        let limits = self.limits;
        let sets = &mut self.reach.dd_mut().sets;
        sets.set_poll(Some(Box::new(move |_| limits.check().is_err())));
        let n = op(sets);
        sets.set_poll(None);
        if sets.stopped() {
            sets.clear_stop();
            self.cut = Some(limits.check().err().unwrap_or(Interrupted::Cancelled));
            return NodeId::EMPTY;
        }
        n
    }

    /// `rch \ a`.
    pub(super) fn not(&mut self, a: NodeId) -> NodeId {
        self.minus(self.rch, a)
    }

    /// Is the initial state in `s`?
    pub(super) fn contains_init(&mut self, s: NodeId) -> bool {
        let i = self.init;
        !self.and(i, s).is_empty()
    }

    /// `P(a) ∩ rch`: the reachable predecessors of `a` (one step of the reversed generator).
    pub(super) fn pre(&mut self, a: NodeId) -> Result<NodeId, CtlError> {
        self.stats.preimages += 1;
        self.limits.check()?;
        let p = self.reach.image(a)?;
        Ok(self.and(p, self.rch))
    }

    /// Keep `n` through collections until the subformula being computed is done.
    pub(super) fn pin(&mut self, n: NodeId) {
        self.pins.push(n);
    }

    /// Pin `extra`, the pinned sets, every memoised result and the checker's sets in the
    /// context, for as long as the returned pins live (around a saturation, which collects in
    /// the middle of its recursion).
    pub(super) fn hold(&self, extra: &[NodeId]) -> Vec<Pin> {
        let dd = self.reach.dd();
        extra
            .iter()
            .chain(&self.pins)
            .chain(self.memo.values())
            .chain(&self.fair)
            .chain(&[self.rch, self.init, self.dead])
            .filter(|n| !n.is_terminal())
            .map(|&n| dd.pin(n))
            .collect()
    }

    /// Collect garbage if due, keeping `live`, the pinned sets, every memoised result and the
    /// checker's sets.
    pub(super) fn collect(&mut self, live: &[NodeId]) {
        let mut keep: Vec<NodeId> =
            Vec::with_capacity(live.len() + self.pins.len() + self.memo.len() + 3);
        keep.extend_from_slice(live);
        keep.extend_from_slice(&self.pins);
        keep.extend(self.memo.values().copied());
        keep.extend_from_slice(&self.fair);
        keep.extend([self.rch, self.init, self.dead]);
        self.reach.collect(&keep);
    }
}
