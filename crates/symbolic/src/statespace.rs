//! One call from a model to its reachable state space and StateSpace figures.

use std::time::Instant;

use saturn_dd::NodeId;
use saturn_model::Model;

use crate::metrics::{state_space_metrics_within, StateSpaceMetrics};
use crate::{Direction, Interrupted, Limits, Method, Reach, Relations};

/// The result of a state-space generation run.
pub struct StateSpace {
    pub reach: Reach,
    /// The reachable states (a root registered with the forest).
    pub states: NodeId,
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
    progress: Option<Box<dyn FnMut(&str)>>,
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
    progress: Option<Box<dyn FnMut(&str)>>,
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
    mut progress: Option<Box<dyn FnMut(&str)>>,
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
    progress: Option<Box<dyn FnMut(&str)>>,
    budget: u64,
) -> Result<StateSpace, Interrupted> {
    let t0 = Instant::now();
    if std::env::var_os("SATURN_STATS").is_some() {
        eprintln!("before generation: {}", crate::limits::peak_rss_report());
    }
    let mut reach = Reach::new(model, Direction::Forward, None);
    reach.set_step_budget(budget);
    reach.set_relations(relations);
    reach.set_limits(limits);
    if let Some(p) = progress {
        reach.set_progress(p);
    }
    let init = reach.state_set(&model.initial);
    let root = reach.forest.add_root(init);
    let states = reach.explore(init, method)?;
    reach.forest.set_root(root, states);
    let generation_seconds = t0.elapsed().as_secs_f64();
    if std::env::var_os("SATURN_STATS").is_some() {
        eprintln!("after generation: {}", crate::limits::peak_rss_report());
    }
    limits.check()?;
    let metrics = state_space_metrics_within(&reach.forest, model, states, &limits)?;
    let nodes_final = metrics.nodes;
    let nodes_peak = reach.forest.stats().nodes_peak;
    if std::env::var_os("SATURN_STATS").is_some() {
        eprintln!(
            "{}; {}",
            reach.memory_report(),
            crate::limits::peak_rss_report()
        );
    }
    Ok(StateSpace {
        reach,
        states,
        metrics,
        nodes_final,
        nodes_peak,
        generation_seconds,
    })
}
