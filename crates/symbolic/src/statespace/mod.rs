//! One call from a model to its reachable state space and StateSpace figures.

use std::time::Instant;

use saturn_dd::{Dd, NodeId, Pin};
use saturn_model::Model;

use crate::limits::Progress;
use crate::metrics::{state_space_metrics_within, StateSpaceMetrics};
use crate::reach::Suspended;
use crate::{Direction, Interrupted, Limits, Method, Reach, ReachStats, Relations};

mod portfolio;
mod scaled;

pub use portfolio::{
    generate_portfolio, generate_portfolio_helped, keep_suspended, HELPER_POLL, WORKER_STACK,
};
pub use scaled::{figures_by_scaling, ScaledFigures};

/// The result of a state-space generation run.
pub struct StateSpace {
    /// The context holding the reachable states.
    pub dd: Dd,
    /// The reachable states (a node of `dd.sets`, pinned by `states_pin`).
    pub states: NodeId,
    /// Keeps `states` alive across collections of `dd`.
    pub states_pin: Pin,
    /// Counters of the generation.
    pub stats: ReachStats,
    pub metrics: StateSpaceMetrics,
    /// Nodes of the final MDD.
    pub nodes_final: usize,
    /// The most nodes allocated at any time.
    pub nodes_peak: usize,
    /// Seconds spent generating (without metrics).
    pub generation_seconds: f64,
    /// How the events were applied (never `Auto`: the candidate that won).
    pub relations: Relations,
    /// Where memory went: engines never print, the CLI shows this on request.
    pub memory: MemoryReport,
}

/// Memory figures of one generation run, for the CLI to print (`SATURN_STATS`).
#[derive(Clone, Debug, Default)]
pub struct MemoryReport {
    /// The process's peak resident memory before generation.
    pub before_generation: String,
    /// The same after generation.
    pub after_generation: String,
    /// The forest's nodes and bytes and the engine's caches at the end of generation.
    pub engine: String,
    /// The process's peak resident memory at the end (after the figures).
    pub end: String,
}

/// Generate the reachable states of `model` from its initial state with `method`, then compute
/// the StateSpace figures.
pub fn generate(
    model: &Model,
    method: Method,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<StateSpace, Interrupted> {
    generate_with(model, method, Relations::Implicit, limits, progress)
}

/// [`generate`] with the next-state functions applied as `relations` say.
pub fn generate_with(
    model: &Model,
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<StateSpace, Interrupted> {
    // one candidate: `Auto` is implicit here (a portfolio tries both)
    let relations = match relations {
        Relations::Auto => Relations::Implicit,
        r => r,
    };
    match run_attempt(model, method, relations, limits, progress, u64::MAX, None)? {
        Ok(ss) => Ok(ss),
        Err(_) => unreachable!("no step budget, no suspended attempt"),
    }
}

/// A portfolio attempt stopped by its step budget: its context and its engine, to resume.
pub(crate) struct Attempt {
    pub(crate) dd: Dd,
    pub(crate) reach: Suspended,
}

/// Generate within `budget` steps (counted from the start of the attempt), resuming
/// `attempt` when given: `Ok(Ok(_))` the state space with its figures, `Ok(Err(_))` the
/// attempt suspended when the budget ran out, `Err` any other stop.
pub(crate) fn run_attempt(
    model: &Model,
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
    budget: u64,
    attempt: Option<Attempt>,
) -> Result<Result<StateSpace, Attempt>, Interrupted> {
    let t0 = Instant::now();
    let before_generation = crate::limits::peak_rss_report();
    let (mut dd, resumed) = match attempt {
        Some(a) => (a.dd, Some(a.reach)),
        None => (Dd::new(model.num_levels()), None),
    };
    let mut reach = match resumed {
        Some(s) => Reach::resume(&mut dd, s),
        None => {
            let mut r = Reach::new(&mut dd, model, Direction::Forward, None);
            r.set_relations(relations);
            r
        }
    };
    reach.set_step_budget(budget);
    reach.set_limits(limits);
    if let Some(p) = progress {
        reach.set_progress(p);
    }
    let init = reach.state_set(&model.initial);
    let states = match reach.explore(init, method) {
        Ok(s) => s,
        Err(Interrupted::Budget) => {
            let reach = reach.suspend();
            return Ok(Err(Attempt { dd, reach }));
        }
        Err(e) => return Err(e),
    };
    let states_pin = reach.dd().pin(states);
    let generation_seconds = t0.elapsed().as_secs_f64();
    let after_generation = crate::limits::peak_rss_report();
    let engine = reach.memory_report();
    let stats = reach.stats();
    drop(reach);
    limits.check()?;
    let metrics = state_space_metrics_within(&dd.sets, model, states, &limits)?;
    let nodes_final = metrics.nodes;
    let nodes_peak = dd.sets.stats().nodes_peak;
    Ok(Ok(StateSpace {
        dd,
        states,
        states_pin,
        stats,
        metrics,
        nodes_final,
        nodes_peak,
        generation_seconds,
        relations,
        memory: MemoryReport {
            before_generation,
            after_generation,
            engine,
            end: crate::limits::peak_rss_report(),
        },
    }))
}
