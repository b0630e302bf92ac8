//! Properties of a CTMC (the CSL fragment of PRISM's property language this crate computes)
//! and their evaluation over the states of the chain.
//!
//! The property tree [`Csl`] is neutral: atoms are [`saturn_model::expr::Expr`]s over the model's
//! variables, reward structures are [`RewardStructure`]s indexed by position; a front-end (the
//! CLI for PRISM property files) translates into it. Every operator evaluates to one value per
//! state ([`Checker::eval`]); the answer of a property is then taken in the initial state(s)
//! ([`Checker::answer`]), as PRISM does.
//!
//! - `S=? [ phi ]`, `R=? [ S ]`: the long-run values of thesis section 2.3.1 through the bottom
//!   SCCs of the chain (Tarjan), each solved as an irreducible chain, combined with the
//!   probabilities of reaching them (one linear system on the embedded chain);
//! - `P=? [ a U b ]`, `F b`: Prob0/Prob1 by backward search, then the embedded chain's linear
//!   system from zero (section 2.3.4);
//! - on a DTMC ([`dtmc`], [`Checker::discrete_time`]) the same operators with PCTL's
//!   meaning: `X` counts self-loops, time bounds are numbers of steps, rewards are earned per
//!   step (state rewards) and per transition taken (transition rewards, self-loops included);
//! - `R=? [ F b ]`: the expected reward accumulated until `b` (infinite where `b` is reached
//!   with probability below 1); `R=? [ C ]`: the total reward (infinite where a bottom SCC
//!   that earns a reward can be reached).

mod answer;
pub mod bounds;
mod check;
pub mod dtmc;
mod rewards;
mod show;

pub use answer::{fmt_num, Answer};
pub use bounds::{Bounded, Interval};
pub use check::{CheckError, Checker, RefineOrder, Refinement, Stats};
pub use rewards::RewardStructure;
pub use show::show;

use saturn_model::expr::{BinOp, Expr};

/// A comparison in a bound `P>=0.5 [...]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Rel {
    pub fn holds(self, x: f64, p: f64) -> bool {
        match self {
            Rel::Lt => x < p,
            Rel::Le => x <= p,
            Rel::Gt => x > p,
            Rel::Ge => x >= p,
        }
    }
}

/// What a reward operator measures.
#[derive(Clone, Debug, PartialEq)]
pub enum RewardPath {
    /// `S`: the long-run reward rate.
    Steady,
    /// `F phi`: the reward accumulated until `phi`.
    Reach(Box<Csl>),
    /// `C`: the total reward accumulated forever (infinite where a bottom SCC with a positive
    /// reward is reached with positive probability).
    Total,
    /// `C<=t`: the reward accumulated up to time `t` (state rewards and transition rewards at
    /// their rates), by uniformization; in a DTMC over the first `t` steps, by `t` products.
    Cumulative(f64),
    /// `I=t`: the expected state reward at time `t`, by uniformization (in a DTMC after `t`
    /// steps).
    Instant(f64),
}

/// Filters (PRISM's `filter(op, prop, states)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterOp {
    Min,
    Max,
    Sum,
    Avg,
    Count,
    First,
    Range,
    Forall,
    Exists,
    State,
}

/// A state or path formula of the supported fragment.
#[derive(Clone, Debug, PartialEq)]
pub enum Csl {
    /// An expression over the model's variables (boolean or numeric).
    Expr(Expr),
    /// The initial states (PRISM's `"init"`).
    Init,
    /// The deadlock states (PRISM's `"deadlock"`).
    Deadlock,
    Not(Box<Csl>),
    /// Connectives, comparisons and arithmetic, state by state.
    Bin(BinOp, Box<Csl>, Box<Csl>),
    /// `P=? [ left U right ]` (`F right` is `true U right`) or `P ~ p [ ... ]`.
    Until {
        bound: Option<(Rel, f64)>,
        left: Box<Csl>,
        right: Box<Csl>,
    },
    /// `P=? [ left U[lo,hi] right ]` with `0 <= lo <= hi <= inf` and not both 0 and inf
    /// (`U<=t` is `[0,t]`, `U>=t` is `[t,inf]`, `U=t` is `[t,t]`; `F` has `left` true):
    /// transient analysis by uniformization (in a DTMC, `t1` and `t2` are whole numbers of
    /// steps and the analysis is by products with `P`).
    TimedUntil {
        bound: Option<(Rel, f64)>,
        left: Box<Csl>,
        right: Box<Csl>,
        lo: f64,
        hi: f64,
    },
    /// `P=? [ X phi ]`: the probability that the first transition leads to `phi` (a deadlock's
    /// self-loop leads back to itself).
    Next {
        bound: Option<(Rel, f64)>,
        phi: Box<Csl>,
    },
    /// `S=? [ phi ]` or `S ~ p [ phi ]`.
    Steady {
        bound: Option<(Rel, f64)>,
        phi: Box<Csl>,
    },
    /// `R{structure}=? [ path ]` or with a bound.
    Reward {
        bound: Option<(Rel, f64)>,
        structure: usize,
        path: RewardPath,
    },
    /// `filter(op, prop, states)`; `states` = every state when `None`.
    Filter {
        op: FilterOp,
        prop: Box<Csl>,
        states: Option<Box<Csl>>,
    },
}
