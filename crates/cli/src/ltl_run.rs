//! The `--ltl` flags and the glue to the engine's LTL portfolio ([`saturn_engine::ltl`],
//! issue 48; the schedule is library code since issue 49): the command line lowers the net with
//! its `--order`, reports progress and prints what the engine notes.

use clap::ValueEnum;
use saturn_logic::PathFormula;
use saturn_ltl::Deadlocks;
use saturn_model::{Model, PetriNet};
use saturn_symbolic::ltl::Placement;
use saturn_symbolic::{Limits, Method, Relations};

use crate::args::OrderArg;
pub use saturn_engine::ltl::Decided;

/// How `--ltl` formulas are decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LtlMethodArg {
    /// The portfolio: a short explicit search, then the CTL engines or the symbolic product,
    /// then the explicit search with what is left.
    #[default]
    Auto,
    /// The explicit on-the-fly product alone (Couvreur's SCC search).
    Explicit,
    /// The symbolic product, emptiness by the Emerson-Lei fixpoint (saturation-based EU).
    El,
    /// The symbolic product, emptiness by the transitive closure (thesis Figure 4.8).
    Tc,
}

/// Partial-order reduction of the explicit product (`--por`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PorArg {
    /// Stubborn sets when the formula is stutter-insensitive (no `X`).
    #[default]
    On,
    /// Every enabled transition fired at every marking.
    Off,
}

/// Where the symbolic product puts the automaton's level (`--ltl-level`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LtlLevelArg {
    /// Above the net's levels.
    Top,
    /// Below the net's levels (measured faster: docs/ltl.md).
    #[default]
    Bottom,
}

impl LtlLevelArg {
    pub fn placement(self) -> Placement {
        match self {
            LtlLevelArg::Top => Placement::Top,
            LtlLevelArg::Bottom => Placement::Bottom,
        }
    }
}

impl From<LtlMethodArg> for saturn_engine::ltl::Method {
    fn from(m: LtlMethodArg) -> Self {
        use saturn_engine::ltl::Method as M;
        match m {
            LtlMethodArg::Auto => M::Auto,
            LtlMethodArg::Explicit => M::Explicit,
            LtlMethodArg::El => M::El,
            LtlMethodArg::Tc => M::Tc,
        }
    }
}

/// How the net's state space is generated for the symbolic engines.
#[derive(Clone, Copy, Debug)]
pub struct Generation {
    pub order: OrderArg,
    pub method: Method,
    pub relations: Relations,
    pub progress: bool,
}

/// What the schedule needs besides the formulas.
pub struct Run<'a> {
    pub net: &'a PetriNet,
    pub deadlocks: Deadlocks,
    pub method: LtlMethodArg,
    /// Where the symbolic product puts the automaton's level.
    pub level: LtlLevelArg,
    pub generation: Generation,
    /// The limits of the whole run (deadline, memory).
    pub limits: Limits,
    /// The explicit product's memory.
    pub max_bytes: usize,
    /// Partial-order reduction in the explicit product.
    pub por: PorArg,
    /// Find a counterexample for each formula that fails.
    pub witness: bool,
}

/// Decide every formula (`None`: not an LTL formula, left undecided with that reason) by the
/// engine's portfolio; what it notes (a missing counterexample) goes to stderr.
pub fn decide_all(run: &Run, phis: &[Option<PathFormula>]) -> Vec<Result<Decided, String>> {
    let g = run.generation;
    let lower = |timeout: Option<u64>| -> Result<Vec<Model>, String> {
        Ok(crate::load::lower(run.net, g.order, timeout)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|(_, m)| m)
            .collect())
    };
    let progress = || crate::progress::reporter("states", g.progress, run.net.places.len());
    let engine_run = saturn_engine::ltl::Run {
        net: run.net,
        deadlocks: run.deadlocks,
        method: run.method.into(),
        placement: run.level.placement(),
        generation: saturn_engine::ltl::Generation {
            lower: &lower,
            method: g.method,
            relations: g.relations,
            portfolio: g.order == OrderArg::Auto,
            progress: &progress,
        },
        limits: run.limits,
        max_bytes: run.max_bytes,
        partial_order: run.por == PorArg::On,
        witness: run.witness,
    };
    let out = saturn_engine::ltl::decide_all(&engine_run, phis);
    for (n, d) in out.iter().enumerate() {
        if let Some(note) = d.as_ref().ok().and_then(|d| d.note.as_ref()) {
            eprintln!("formula {}: {note}", n + 1);
        }
    }
    out
}
