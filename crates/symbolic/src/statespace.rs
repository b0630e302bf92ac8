//! One call from a model to its reachable state space and StateSpace figures.

use std::time::Instant;

use saturn_dd::{Dd, NodeId, Pin};
use saturn_model::Model;

use crate::limits::Progress;
use crate::metrics::{state_space_metrics_within, StateSpaceMetrics};
use crate::reach::Suspended;
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

/// A portfolio over variable orders: `models` are the same system under different level
/// orders. No static metric predicts saturation's cost reliably, so the attempts run by
/// iterative deepening: each candidate in turn gets a step budget, and the budget grows
/// fourfold each round until one finishes. The total work is within a small constant factor
/// of the best candidate's. An attempt that runs out of budget is suspended, not thrown away:
/// the next round resumes it on its own context, where the sub-results it finished are still
/// in its caches (unless memory runs short: see [`keep_suspended`]). With
/// [`Relations::Auto`], each model is a candidate twice: with implicit events, then with
/// relation MDDs. Returns the index of the winning model with its state space (whose
/// `relations` says how it won).
pub fn generate_portfolio(
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    mut progress: Option<Progress>,
) -> Result<(usize, StateSpace), Interrupted> {
    let modes: &[Relations] = match relations {
        Relations::Auto => &[Relations::Implicit, Relations::Mdd],
        Relations::Implicit => &[Relations::Implicit],
        Relations::Mdd => &[Relations::Mdd],
    };
    let candidates: Vec<(usize, Relations)> = (0..models.len())
        .flat_map(|i| modes.iter().map(move |&r| (i, r)))
        .collect();
    if let [(i, r)] = candidates[..] {
        return generate_with(&models[i], method, r, limits, progress).map(|s| (i, s));
    }
    let mut suspended: Vec<Option<Attempt>> = candidates.iter().map(|_| None).collect();
    let mut budget: u64 = 1 << 16;
    let start = Instant::now();
    loop {
        for (c, &(i, rel)) in candidates.iter().enumerate() {
            let before = start.elapsed().as_secs_f64();
            if let Some(p) = progress.as_mut() {
                let how = if suspended[c].is_some() {
                    "resumed"
                } else {
                    "started"
                };
                p(&format!(
                    "order candidate {i} ({} events) {how}, budget {budget} steps",
                    rel.name()
                ));
            }
            let attempt = suspended[c].take();
            match run_attempt(&models[i], method, rel, limits, None, budget, attempt) {
                Ok(Ok(mut ss)) => {
                    // the failed attempts before this one were generation time too
                    ss.generation_seconds += before;
                    return Ok((i, ss));
                }
                Ok(Err(a)) => {
                    if keep_suspended(&limits) {
                        suspended[c] = Some(a);
                    } else {
                        drop(a);
                        suspended.iter_mut().for_each(|s| *s = None);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        budget = budget.saturating_mul(4);
    }
}

/// Suspended portfolio attempts are kept while the process's resident memory stays below a
/// quarter of the memory limit (without one, 4 GiB); past that they are dropped and later
/// rounds start those candidates afresh.
pub fn keep_suspended(limits: &Limits) -> bool {
    let cap = limits.max_memory.map_or(4 << 30, |m| m / 4);
    crate::limits::current_rss_bytes().is_none_or(|r| r < cap)
}

/// A portfolio attempt stopped by its step budget: its context and its engine, to resume.
struct Attempt {
    dd: Dd,
    reach: Suspended,
}

/// Generate within `budget` steps (counted from the start of the attempt), resuming
/// `attempt` when given: `Ok(Ok(_))` the state space with its figures, `Ok(Err(_))` the
/// attempt suspended when the budget ran out, `Err` any other stop.
fn run_attempt(
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
