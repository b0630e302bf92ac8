//! LTL model checking by the automata-theoretic approach: `A φ` holds when no run of the system
//! is accepted by the automaton of `¬φ`.
//!
//! - [`formula`]: LTL in negation normal form over numbered atoms, from Saturn's resolved path
//!   formulas, with rewriting; the deadlock conventions ([`Deadlocks`]).
//! - [`tgba`]: translation to a transition-based generalized Büchi automaton (tableau).
//! - [`emptiness`]: on-the-fly emptiness of the product with a system (Couvreur's algorithm).
//! - [`net`]: a Petri net as such a system.
//! - [`por`]: partial-order reduction of the net's successors (stubborn sets), used when the
//!   formula is stutter-insensitive ([`Ltl::is_stutter_insensitive`]).
//! - [`lasso`]: the semantics on lasso words `u v^ω` (the oracle of the translation's tests).

pub mod ctl;
pub mod emptiness;
pub mod formula;
pub mod lasso;
pub mod net;
pub mod por;
pub mod tgba;

pub use ctl::ctl_equivalent;
pub use emptiness::{Limits, Outcome, Run, Stopped};
pub use formula::{Atoms, Deadlocks, Ltl};
pub use tgba::{Tgba, TranslateError};

use saturn_logic::{PathFormula, StateFormula};
use saturn_model::PetriNet;

/// The automata states a translation may build.
pub const MAX_AUTOMATON_STATES: usize = 100_000;

/// The path formula `φ` of a state formula `A φ` (the resolver gives the CTL-shaped ones,
/// `A G p`, as CTL operators; a formula without quantifier is `A` of itself); `None` for a
/// formula with an `E` at the top.
pub fn path_of(f: &StateFormula) -> Option<PathFormula> {
    use PathFormula as P;
    use StateFormula as S;
    let st = |a: &S| Box::new(P::State(a.clone()));
    Some(match f {
        S::A(p) => p.as_ref().clone(),
        S::AG(a) => P::G(st(a)),
        S::AF(a) => P::F(st(a)),
        S::AX(a) => P::X(st(a)),
        S::AU(a, b) => P::U(st(a), st(b)),
        S::E(_) | S::EG(_) | S::EF(_) | S::EX(_) | S::EU(..) => return None,
        f => P::State(f.clone()),
    })
}

/// The automaton of the negation of a path formula, with its atoms.
#[derive(Clone, Debug)]
pub struct NegatedProperty {
    pub atoms: Atoms,
    /// `¬φ` in negation normal form, rewritten.
    pub formula: Ltl,
    pub automaton: Tgba,
}

/// The automaton of `¬φ` read under `deadlocks`.
pub fn negated(phi: &PathFormula, deadlocks: Deadlocks) -> Result<NegatedProperty, LtlError> {
    let mut atoms = Atoms::default();
    let formula = formula::from_path(phi, true, deadlocks, &mut atoms);
    let automaton = tgba::translate(&formula, MAX_AUTOMATON_STATES)?;
    Ok(NegatedProperty {
        atoms,
        formula,
        automaton,
    })
}

/// Why a formula was not decided.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LtlError {
    #[error(transparent)]
    Translate(#[from] TranslateError),
    #[error(transparent)]
    Atom(#[from] net::NestedQuantifier),
    #[error(transparent)]
    Stopped(#[from] Stopped),
}

/// The verdict of `A φ` on a net, and the size of the product explored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub holds: bool,
    pub automaton_states: usize,
    pub product_states: usize,
    pub markings: usize,
    /// Was the state space reduced by partial-order reduction (asked for, and the formula is
    /// stutter-insensitive)?
    pub partial_order: bool,
    /// Product states expanded with a reduced set of successors.
    pub reduced_states: usize,
    /// When `A φ` fails: a run of the net that violates `φ`.
    pub counterexample: Option<Counterexample>,
}

/// A run of a net on which the formula is false: `markings[0]` the initial marking, each next
/// one reached by firing a transition; with `loop_start` a lasso (the last marking is followed
/// by `markings[loop_start]`, by a transition or, at a deadlock under [`Deadlocks::Stutter`], by
/// staying put), without it a finite maximal path ending in a deadlock
/// ([`Deadlocks::Maximal`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    pub markings: Vec<Vec<u64>>,
    pub loop_start: Option<usize>,
}

impl Counterexample {
    fn of_run(run: &emptiness::Run<net::NetState>) -> Self {
        let mut markings = Vec::new();
        let mut ended = false;
        for s in &run.states {
            match s {
                net::NetState::Marking(b) => {
                    let mut m = Vec::new();
                    net::decode(b, &mut m);
                    markings.push(m);
                }
                net::NetState::End => ended = true,
            }
        }
        Counterexample {
            markings,
            loop_start: (!ended).then_some(run.loop_start),
        }
    }
}

/// How the explicit product is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Partial-order reduction (stubborn sets, [`por`]) when the formula is
    /// stutter-insensitive.
    pub partial_order: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            partial_order: true,
        }
    }
}

/// Does `A φ` hold in the initial marking of `net`, paths that reach a deadlock read by
/// `deadlocks`? Explicit on-the-fly product ([`emptiness::accepting_run`]), reduced by
/// partial-order reduction when the formula is stutter-insensitive.
pub fn check_net(
    net: &PetriNet,
    phi: &PathFormula,
    deadlocks: Deadlocks,
    limits: Limits,
) -> Result<Verdict, LtlError> {
    check_net_with(net, phi, deadlocks, limits, Options::default())
}

/// [`check_net`] with the search's [`Options`].
pub fn check_net_with(
    net: &PetriNet,
    phi: &PathFormula,
    deadlocks: Deadlocks,
    limits: Limits,
    options: Options,
) -> Result<Verdict, LtlError> {
    let p = negated(phi, deadlocks)?;
    let mut sys = net::NetSystem::new(net, &p.atoms.formulas, deadlocks)?;
    // `¬φ` is stutter-insensitive exactly when `φ` is
    let partial_order = options.partial_order && p.formula.is_stutter_insensitive();
    if partial_order {
        sys = sys.with_partial_order();
    }
    let o = emptiness::accepting_run(&mut sys, &p.automaton, limits)?;
    Ok(Verdict {
        holds: !o.accepting,
        automaton_states: p.automaton.states.len(),
        product_states: o.product_states,
        markings: o.system_states,
        partial_order,
        reduced_states: o.reduced_states,
        counterexample: o.run.as_ref().map(Counterexample::of_run),
    })
}
