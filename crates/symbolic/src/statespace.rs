//! One call from a model to its reachable state space and StateSpace figures.

use std::time::Instant;

use saturn_dd::{Dd, NodeId, Pin};
use saturn_model::Model;

use crate::limits::Progress;
use crate::metrics::{state_space_metrics_within, StateSpaceMetrics};
use crate::{Direction, Interrupted, Limits, Method, Reach, ReachStats, Relations};

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
}

/// Generate the reachable states of `model` from its initial state with `method`, then compute
/// the StateSpace figures.
pub fn generate(
    model: &Model,
    method: Method,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<StateSpace, Interrupted> {
    generate_budgeted(
        model,
        method,
        Relations::Implicit,
        limits,
        progress,
        u64::MAX,
    )
}

/// [`generate`] with the next-state functions applied as `relations` say.
pub fn generate_with(
    model: &Model,
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<StateSpace, Interrupted> {
    generate_budgeted(model, method, relations, limits, progress, u64::MAX)
}

/// A portfolio over variable orders: `models` are the same system under different level
/// orders. No static metric predicts saturation's cost reliably, so the attempts run by
/// iterative deepening: each candidate in turn gets a step budget, and the budget grows
/// fourfold each round until one finishes. The total work is within a small constant factor
/// of the best candidate's. Returns the index of the winning model with its state space.
pub fn generate_portfolio(
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    mut progress: Option<Progress>,
) -> Result<(usize, StateSpace), Interrupted> {
    if models.len() == 1 {
        return generate_with(&models[0], method, relations, limits, progress).map(|s| (0, s));
    }
    let mut budget: u64 = 1 << 16;
    loop {
        for (i, m) in models.iter().enumerate() {
            if let Some(p) = progress.as_mut() {
                p(&format!("order candidate {i}, budget {budget} steps"));
            }
            match generate_budgeted(m, method, relations, limits, None, budget) {
                Ok(ss) => return Ok((i, ss)),
                Err(Interrupted::Budget) => {}
                Err(e) => return Err(e),
            }
        }
        budget = budget.saturating_mul(4);
    }
}

fn generate_budgeted(
    model: &Model,
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
    budget: u64,
) -> Result<StateSpace, Interrupted> {
    let t0 = Instant::now();
    if std::env::var_os("SATURN_STATS").is_some() {
        eprintln!("before generation: {}", crate::limits::peak_rss_report());
    }
    let mut dd = Dd::new(model.num_levels());
    let mut reach = Reach::new(&mut dd, model, Direction::Forward, None);
    reach.set_step_budget(budget);
    reach.set_relations(relations);
    reach.set_limits(limits);
    if let Some(p) = progress {
        reach.set_progress(p);
    }
    let init = reach.state_set(&model.initial);
    let states = reach.explore(init, method)?;
    let states_pin = reach.dd().pin(states);
    let generation_seconds = t0.elapsed().as_secs_f64();
    if std::env::var_os("SATURN_STATS").is_some() {
        eprintln!("after generation: {}", crate::limits::peak_rss_report());
    }
    let memory_report = std::env::var_os("SATURN_STATS").map(|_| reach.memory_report());
    let stats = reach.stats();
    drop(reach);
    limits.check()?;
    let metrics = state_space_metrics_within(&dd.sets, model, states, &limits)?;
    let nodes_final = metrics.nodes;
    let nodes_peak = dd.sets.stats().nodes_peak;
    if let Some(r) = memory_report {
        eprintln!("{r}; {}", crate::limits::peak_rss_report());
    }
    Ok(StateSpace {
        dd,
        states,
        states_pin,
        stats,
        metrics,
        nodes_final,
        nodes_peak,
        generation_seconds,
    })
}
