//! CTL model checking over MDDs on a generated state space (issue 9; thesis sections
//! 2.2.2-2.2.3, Figure 2.11).
//!
//! A [`Checker`] takes a forward generator on the context that holds the reachable states `rch`
//! and turns it around ([`Reach::reverse`]), so that its image is the preimage `P` in the same
//! forest. Every result is
//! a subset of `rch`; a formula holds when the initial state is in its set. `EX` is the preimage,
//! `EU` the least fixpoint of EUtrad, `EG` the greatest fixpoint of EGtrad (Figure 2.11), and
//! `AX`, `AU`, `AF`, `AG`, `EF` and the boolean operators follow from the dualities of section
//! 2.2.3. Subformulas are memoised by their syntax tree, so common subformulas of the formulas
//! checked with one checker are computed once.
//!
//! # Paths that end in a deadlock
//! [`Deadlocks::Maximal`] (the contest's semantics, the default): a path that reaches a deadlock
//! stops there, so at a deadlock `EX φ` is false, `AX φ` true, and `EG φ`, `AF φ` reduce to
//! `φ`: EGtrad keeps the deadlocks of `Sat(φ)` (`X ← X ∩ (P(X) ∪ D)`). [`Deadlocks::SelfLoop`]:
//! a deadlock loops forever (`EX φ` holds at a deadlock satisfying `φ`); `EG` is the same in
//! both readings.
//!
//! Modules: `sets` (the only code that touches the forest and the generator), `fixpoints`
//! (EX, EUtrad, EGtrad), `global` (UpperBounds and the contest's global properties).

use num_bigint::BigUint;
use rustc_hash::FxHashMap;
use saturn_dd::NodeId;
use saturn_logic::StateFormula;
use saturn_model::Model;

use crate::atoms::{AtomError, Atoms};
use crate::{Interrupted, Limits, Reach};

mod ball;
mod beyond;
mod eg;
mod eu;
mod explain;
mod fair_witness;
mod fixpoints;
mod global;
mod proven;
mod sets;
mod shortest;
mod witness;

pub use beyond::Shows;
pub use eg::{EgMethod, FairMethod};
pub use eu::EuMethod;
pub use explain::Explained;
pub use global::GLOBAL_PROPERTIES;
pub use shortest::WitnessMethod;
pub use witness::Witness;

/// What happens on a path that reaches a deadlock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deadlocks {
    /// Maximal finite paths: the path stops at the deadlock (the contest's semantics).
    #[default]
    Maximal,
    /// The deadlock loops forever (the textbook reading of a total relation).
    SelfLoop,
}

impl Deadlocks {
    pub fn name(self) -> &'static str {
        match self {
            Deadlocks::Maximal => "maximal",
            Deadlocks::SelfLoop => "self-loop",
        }
    }
}

/// Why a formula has no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CtlError {
    /// A limit (time, memory, cancel) stopped the computation.
    #[error("{0}")]
    Interrupted(#[from] Interrupted),
    #[error("{0}")]
    Atom(#[from] AtomError),
    /// `A`/`E` over a path formula that is not one CTL operator (LTL, CTL*).
    #[error("not a CTL formula: a path quantifier over a path formula that is not one CTL operator; `A φ` for an LTL φ is `--ltl 'φ'`, `E φ` is its negation (`--ltl '!φ'` fails exactly when `E φ` holds), `E G F`-style fairness is `--fair`; CTL* nesting is not supported")]
    NotCtl,
    /// A witness failed its replay on the model (a bug).
    #[error("internal error: {0}")]
    Witness(String),
}

/// Counters of one checker.
#[derive(Clone, Copy, Debug, Default)]
pub struct CtlStats {
    /// Preimages computed.
    pub preimages: u64,
    /// Fixpoint iterations (EU and EG).
    pub iterations: u64,
    /// Subformulas answered from the memo.
    pub memo_hits: u64,
}

/// A CTL model checker over one generated state space.
pub struct Checker<'d> {
    reach: Reach<'d>,
    atoms: Atoms,
    /// The reachable states.
    rch: NodeId,
    /// The initial state.
    init: NodeId,
    /// The initial state as local states by level, and the model's (forward) events, for
    /// witnesses.
    initial: Vec<u32>,
    events: Vec<saturn_model::Event>,
    /// The reachable deadlocks.
    dead: NodeId,
    deadlocks: Deadlocks,
    eu_method: EuMethod,
    eg_method: EgMethod,
    fair_method: FairMethod,
    witness_method: WitnessMethod,
    /// How deep witnesses explain nested formulas (module `beyond`), at least 1.
    witness_depth: usize,
    /// The weak fairness sets (reachable states), empty without fairness.
    fair: Vec<NodeId>,
    /// The model (for the transitive closure's relations) and those relations, once built.
    model: Model,
    closure_rels: Option<crate::closure::ClosureRelations>,
    /// The model's step rank ([`crate::rank::StepRank`]), once looked for.
    rank: Option<Option<crate::rank::StepRank>>,
    limits: Limits,
    /// Set operations poll the limits (while [`Checker::sat`] or the deadlocks run under
    /// limits; see `sets.rs`), and what stopped one.
    polling: bool,
    cut: Option<Interrupted>,
    memo: FxHashMap<StateFormula, NodeId>,
    /// Intermediate sets of the formulas being computed that must survive a collection (the
    /// fixpoints collect garbage between iterations): a stack, cut back when a subformula is done.
    pins: Vec<NodeId>,
    pub stats: CtlStats,
}

impl<'d> Checker<'d> {
    /// The checker of [`Checker::new`] before its reachable deadlocks are found.
    fn unready(
        mut reach: Reach<'d>,
        model: &Model,
        atoms: Atoms,
        rch: NodeId,
        deadlocks: Deadlocks,
    ) -> Checker<'d> {
        reach.reverse();
        // a portfolio's generation budget does not apply to model checking
        reach.set_step_budget(u64::MAX);
        let init = reach.state_set(&model.initial);
        Checker {
            reach,
            atoms,
            rch,
            init,
            initial: model.initial.clone(),
            events: model.events.clone(),
            dead: NodeId::EMPTY,
            deadlocks,
            eu_method: EuMethod::default(),
            eg_method: EgMethod::default(),
            fair_method: FairMethod::default(),
            witness_method: WitnessMethod::default(),
            witness_depth: 1,
            fair: Vec::new(),
            model: model.clone(),
            closure_rels: None,
            rank: None,
            limits: Limits::none(),
            polling: false,
            cut: None,
            memo: FxHashMap::default(),
            pins: Vec::new(),
            stats: CtlStats::default(),
        }
    }

    /// A checker over the states `rch` (a node of `reach`'s context) that forward generation
    /// found for `model` from `model.initial`; `reach` is a forward generator for `model` on
    /// that context (the one that generated `rch`, or a fresh one). `atoms` maps places to
    /// levels. Takes `reach` and turns it around (it computes predecessors from now on).
    pub fn new(
        reach: Reach<'d>,
        model: &Model,
        atoms: Atoms,
        rch: NodeId,
        deadlocks: Deadlocks,
    ) -> Checker<'d> {
        let mut c = Checker::unready(reach, model, atoms, rch, deadlocks);
        let _ = c.find_deadlocks(false);
        c
    }

    /// [`Checker::new`] within `limits` (kept, as [`Checker::set_limits`] keeps them): the
    /// reachable deadlocks are one preimage of every reachable state, which on 10^25 states
    /// (BusinessProcesses-PT-14) outlasts a contest's minute. `Err` when a limit stops it.
    pub fn new_within(
        reach: Reach<'d>,
        model: &Model,
        atoms: Atoms,
        rch: NodeId,
        deadlocks: Deadlocks,
        limits: Limits,
    ) -> Result<Checker<'d>, Interrupted> {
        let mut c = Checker::unready(reach, model, atoms, rch, deadlocks);
        c.set_limits(limits);
        c.find_deadlocks(true)?;
        Ok(c)
    }

    /// The reachable deadlocks into `self.dead`. A preimage that fails falls back to the
    /// potential deadlocks, but when `limited` and a limit stopped it: `Err`, and no set.
    fn find_deadlocks(&mut self, limited: bool) -> Result<(), Interrupted> {
        self.polling = limited;
        let got = self.find_deadlocks_polled(limited);
        self.polling = false;
        match self.cut.take() {
            Some(i) => Err(i),
            None => got,
        }
    }

    fn find_deadlocks_polled(&mut self, limited: bool) -> Result<(), Interrupted> {
        let rch = self.rch;
        // the reachable deadlocks: the reachable states without a predecessor image in `rch`
        // (every successor of a reachable state is reachable). One preimage; the `pot`
        // deadlocks (no event enabled, over the potential states) can be far larger (queens
        // N=8: 2 s and 70 MB where the preimage takes milliseconds), so they are only the
        // fallback.
        self.dead = match self.reach.image(rch) {
            Ok(live) => {
                let live = self.and(live, rch);
                self.minus(rch, live)
            }
            Err(
                i @ (Interrupted::Timeout
                | Interrupted::Budget
                | Interrupted::Memory
                | Interrupted::Cancelled),
            ) if limited => return Err(i),
            Err(_) => {
                let d = self.pot_deadlocks();
                self.and(d, rch)
            }
        };
        Ok(())
    }

    /// Limits checked by every fixpoint from now on (per formula, e.g.).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
        self.reach.set_limits(limits);
    }

    /// The EU algorithm used from now on (also for EF, AG and AU). Results already memoised
    /// are kept (every method computes the same sets).
    pub fn set_eu_method(&mut self, m: EuMethod) {
        self.eu_method = m;
    }

    /// The EG algorithm used from now on without fairness (also for AF and AU).
    pub fn set_eg_method(&mut self, m: EgMethod) {
        self.eg_method = m;
    }

    /// How `EG` witnesses (and `AF`/`AU` counterexamples) are found from now on: shortest
    /// ones by default.
    pub fn set_witness_method(&mut self, m: WitnessMethod) {
        self.witness_method = m;
    }

    /// The fair EG algorithm used from now on.
    pub fn set_fair_method(&mut self, m: FairMethod) {
        self.fair_method = m;
    }

    /// Weak (Büchi) fairness from now on: `EG` (and through it `AF`, `AU`) only follows
    /// infinite paths that visit every one of `sets` infinitely often (evaluated without
    /// fairness). Memoised results are dropped (they depend on the fairness).
    pub fn set_fairness(&mut self, sets: &[StateFormula]) -> Result<(), CtlError> {
        self.fair.clear();
        self.memo.clear();
        let mut fair = Vec::with_capacity(sets.len());
        for f in sets {
            fair.push(self.sat(f)?);
        }
        self.memo.clear();
        self.fair = fair;
        Ok(())
    }

    /// Weak (Büchi) fairness given as sets of reachable states (nodes of the checker's
    /// context, each a subset of [`Checker::reachable`]) instead of formulas: for engines that
    /// build their fairness sets themselves (the LTL product's acceptance sets). Kept alive
    /// across collections while they are the checker's fairness. Memoised results are dropped.
    pub fn set_fairness_sets(&mut self, sets: Vec<NodeId>) {
        self.memo.clear();
        self.fair = sets;
    }

    /// The EU algorithm in use.
    pub fn eu_method(&self) -> EuMethod {
        self.eu_method
    }

    /// The deadlock reading in use.
    pub fn deadlocks(&self) -> Deadlocks {
        self.deadlocks
    }

    /// The reachable states.
    pub fn reachable(&self) -> NodeId {
        self.rch
    }

    /// Does `f` hold in the initial state?
    pub fn holds(&mut self, f: &StateFormula) -> Result<bool, CtlError> {
        let s = self.sat(f)?;
        Ok(self.contains_init(s))
    }

    /// The exact number of states of `set`.
    pub fn count(&self, set: NodeId) -> BigUint {
        self.forest().cardinality(set)
    }

    /// The states of `set` as tuples of local states (`t[k-1]` for level `k`), at most `limit`.
    pub fn states(&self, set: NodeId, limit: usize) -> Vec<Vec<u32>> {
        self.forest().states(set, limit)
    }

    /// The reachable states satisfying `f` (memoised).
    pub fn sat(&mut self, f: &StateFormula) -> Result<NodeId, CtlError> {
        if self.polling || self.limits.is_none() {
            return self.sat_polled(f);
        }
        self.polling = true;
        let got = self.sat_polled(f);
        self.polling = false;
        match self.cut.take() {
            Some(i) => Err(i.into()),
            None => got,
        }
    }

    /// [`Checker::sat`] once the set operations poll the limits (or there are none).
    fn sat_polled(&mut self, f: &StateFormula) -> Result<NodeId, CtlError> {
        if let Some(&n) = self.memo.get(f) {
            self.stats.memo_hits += 1;
            return Ok(n);
        }
        let mark = self.pins.len();
        let n = self.compute(f);
        self.pins.truncate(mark);
        let n = n?;
        if let Some(i) = self.cut {
            // a set operation stopped at a limit: this set is wrong
            return Err(i.into());
        }
        if self.reach.dd().overflowed() {
            // a set operation ran out of node ids: every set since is wrong
            return Err(Interrupted::TooManyNodes.into());
        }
        self.memo.insert(f.clone(), n);
        Ok(n)
    }

    fn compute(&mut self, f: &StateFormula) -> Result<NodeId, CtlError> {
        use StateFormula as F;
        let rch = self.rch;
        Ok(match f {
            F::Const(true) => rch,
            F::Const(false) => NodeId::EMPTY,
            F::Deadlock => self.dead,
            F::Atom(_) | F::Enabled(_) => {
                let pot = self.atom_set(f)?;
                self.and(pot, rch)
            }
            F::Not(a) => {
                let a = self.sat(a)?;
                self.not(a)
            }
            F::And(v) => {
                let mut acc = rch;
                for a in v {
                    let a = self.sat(a)?;
                    acc = self.and(acc, a);
                    self.pin(acc);
                }
                acc
            }
            F::Or(v) => {
                let mut acc = NodeId::EMPTY;
                for a in v {
                    let a = self.sat(a)?;
                    acc = self.or(acc, a);
                    self.pin(acc);
                }
                acc
            }
            F::Implies(a, b) => {
                let a = self.sat(a)?;
                let b = self.sat(b)?;
                let na = self.not(a);
                self.or(na, b)
            }
            F::Iff(a, b) => {
                let a = self.sat(a)?;
                let b = self.sat(b)?;
                let both = self.and(a, b);
                let either = self.or(a, b);
                let neither = self.not(either);
                self.or(both, neither)
            }
            F::EX(a) => {
                let a = self.sat(a)?;
                self.ex(a)?
            }
            F::AX(a) => {
                // AX φ = ¬EX ¬φ
                let a = self.sat(a)?;
                let na = self.not(a);
                let ex = self.ex(na)?;
                self.not(ex)
            }
            F::EF(a) => {
                let a = self.sat(a)?;
                self.eu(None, rch, a)?
            }
            F::AG(a) => {
                // AG φ = ¬EF ¬φ
                let a = self.sat(a)?;
                let na = self.not(a);
                self.pin(na);
                let ef = self.eu(None, rch, na)?;
                self.not(ef)
            }
            F::EU(fa, b) => {
                let a = self.sat(fa)?;
                let b = self.sat(b)?;
                self.eu(Some(fa), a, b)?
            }
            F::EG(fa) => {
                let a = self.sat(fa)?;
                self.eg(fa, a)?
            }
            F::AF(fa) => {
                // AF φ = ¬EG ¬φ
                let a = self.sat(fa)?;
                let na = self.not(a);
                let not_a = StateFormula::Not(fa.clone());
                let eg = self.eg(&not_a, na)?;
                self.not(eg)
            }
            F::AU(fa, fb) => {
                // A[φ U ψ] = ¬E[¬ψ U (¬φ ∧ ¬ψ)] ∧ ¬EG ¬ψ
                let a = self.sat(fa)?;
                let b = self.sat(fb)?;
                let nb = self.not(b);
                let na = self.not(a);
                let nanb = self.and(na, nb);
                self.pin(nb);
                self.pin(nanb);
                let not_b = StateFormula::Not(Box::new(fb.as_ref().clone()));
                let bad_until = self.eu(Some(&not_b), nb, nanb)?;
                self.pin(bad_until);
                let bad_forever = self.eg(&not_b, nb)?;
                let bad = self.or(bad_until, bad_forever);
                self.not(bad)
            }
            F::A(_) | F::E(_) => return Err(CtlError::NotCtl),
        })
    }
}
