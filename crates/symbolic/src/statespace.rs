//! One call from a model to its reachable state space and StateSpace figures.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
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
    progress: Option<Progress>,
) -> Result<(usize, StateSpace), Interrupted> {
    generate_portfolio_helped(models, method, relations, limits, progress, None)
}

/// [`generate_portfolio`] on two cores: once `helper` says a second core is free (it is asked
/// every [`HELPER_POLL`]), a second worker joins on a thread of its own. Both take, each in
/// turn, the candidate with the smallest next budget that the other is not running (the
/// calling thread alone does the rounds of [`generate_portfolio`] in the same order), so
/// together they go through the rounds twice as fast; a suspended attempt may be resumed by
/// either. The first to finish, or to stop on a limit, cancels the other.
pub fn generate_portfolio_helped(
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<Progress>,
    helper: Option<&(dyn Fn() -> bool + Sync)>,
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
    // the workers stop each other with this flag (the engine's limits want it `'static`: one
    // flag a run, as the race's)
    let done: Option<&'static AtomicBool> =
        helper.map(|_| &*Box::leak(Box::new(AtomicBool::new(false))));
    let portfolio = Portfolio {
        models,
        candidates: &candidates,
        method,
        board: Mutex::new(Board {
            slots: candidates
                .iter()
                .map(|_| Slot {
                    attempt: None,
                    budget: 1 << 16,
                    busy: false,
                    dropped: false,
                })
                .collect(),
            outcome: None,
        }),
        start: Instant::now(),
        progress: Mutex::new(progress),
        done,
    };
    let (Some(helper), Some(done)) = (helper, done) else {
        portfolio.work(limits, 0);
        return portfolio.outcome();
    };
    let limits = Limits {
        cancel_also: Some(done),
        ..limits
    };
    std::thread::scope(|scope| {
        let second = scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if helper() {
                    portfolio.work(limits, 1);
                    return;
                }
                // woken early when the first worker is done
                std::thread::park_timeout(HELPER_POLL);
            }
        });
        portfolio.work(limits, 0);
        done.store(true, Ordering::Relaxed);
        second.thread().unpark();
    });
    portfolio.outcome()
}

/// How often the waiting second worker of [`generate_portfolio_helped`] asks its helper
/// whether it may join (it is woken at once when the run ends).
pub const HELPER_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// The candidates of a portfolio, shared by its workers.
struct Portfolio<'a> {
    models: &'a [Model],
    candidates: &'a [(usize, Relations)],
    method: Method,
    board: Mutex<Board>,
    start: Instant,
    progress: Mutex<Option<Progress>>,
    /// Raised with the outcome: the other worker's attempt stops (it polls it in its limits).
    done: Option<&'static AtomicBool>,
}

/// Where the candidates stand: each one's suspended attempt and next budget, and the answer.
struct Board {
    slots: Vec<Slot>,
    /// The first state space generated, or the first stop (a worker cancelled by the other
    /// comes after the other's outcome, so its stop is never the one kept).
    outcome: Option<Result<(usize, StateSpace), Interrupted>>,
}

struct Slot {
    attempt: Option<Attempt>,
    budget: u64,
    /// A worker is running this candidate.
    busy: bool,
    /// Out of the portfolio (see [`union_bound`]).
    dropped: bool,
}

impl Portfolio<'_> {
    fn board(&self) -> std::sync::MutexGuard<'_, Board> {
        // a worker that panicked left the board as it was between two attempts
        self.board.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run candidates until the portfolio has its outcome: each time the one with the smallest
    /// next budget (the earlier on a tie) that no other worker is running.
    fn work(&self, limits: Limits, worker: usize) {
        loop {
            let (c, budget, attempt) = {
                let mut b = self.board();
                if b.outcome.is_some() {
                    return;
                }
                let free = (0..b.slots.len()).filter(|&c| !b.slots[c].busy && !b.slots[c].dropped);
                let Some(c) = free.min_by_key(|&c| (b.slots[c].budget, c)) else {
                    return;
                };
                let slot = &mut b.slots[c];
                slot.busy = true;
                (c, slot.budget, slot.attempt.take())
            };
            let (i, rel) = self.candidates[c];
            let before = self.start.elapsed().as_secs_f64();
            let how = if attempt.is_some() {
                "resumed"
            } else {
                "started"
            };
            let on = if worker > 0 {
                " on the second core"
            } else {
                ""
            };
            self.report(&format!(
                "order candidate {i} ({} events) {how}{on}, budget {budget} steps",
                rel.name()
            ));
            let run = run_attempt(
                &self.models[i],
                self.method,
                rel,
                limits,
                None,
                budget,
                attempt,
            );
            let mut b = self.board();
            b.slots[c].busy = false;
            match run {
                Ok(Ok(mut ss)) => {
                    // the failed attempts before this one were generation time too
                    ss.generation_seconds += before;
                    b.outcome.get_or_insert(Ok((i, ss)));
                    self.raise();
                    return;
                }
                Ok(Err(a)) => {
                    b.slots[c].budget = budget.saturating_mul(4);
                    let twin = self.candidates.contains(&(i, Relations::Implicit));
                    if rel == Relations::Mdd && twin && union_bound(&a.reach) {
                        b.slots[c].dropped = true;
                        drop(b);
                        self.report(&format!(
                            "order candidate {i} (mdd events) dropped: building its relations costs more than firing them"
                        ));
                        continue;
                    }
                    if keep_suspended(&limits) {
                        b.slots[c].attempt = Some(a);
                    } else {
                        drop(a);
                        b.slots.iter_mut().for_each(|s| s.attempt = None);
                    }
                }
                Err(e) => {
                    // a cancel by the other worker comes after its outcome: this one is moot
                    b.outcome.get_or_insert(Err(e));
                    self.raise();
                    return;
                }
            }
        }
    }

    fn raise(&self) {
        if let Some(d) = self.done {
            d.store(true, Ordering::Relaxed);
        }
    }

    fn report(&self, msg: &str) {
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = p.as_mut() {
            p(msg)
        }
    }

    fn outcome(&self) -> Result<(usize, StateSpace), Interrupted> {
        self.board()
            .outcome
            .take()
            .unwrap_or(Err(Interrupted::Cancelled))
    }
}

/// Is this attempt with relation MDDs spending most of its work on building the unions `N_k`
/// of its events' relations (past a million steps)? The union of relations with different
/// supports can be far larger than its parts (AirplaneLD-PT-0100 under the span-search order:
/// 97% of the work, over 20 s, against 0.05 s with implicit events), while an attempt whose
/// unions pay spends a few percent of its work on them (Sloan's order there: 0.05%). Such an
/// attempt is dropped from a portfolio that also holds the same order with implicit events.
fn union_bound(s: &Suspended) -> bool {
    let (work, unions) = s.work();
    work >= 1 << 20 && unions > work / 2
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

#[cfg(test)]
mod tests {
    use super::{union_bound, Suspended};

    #[test]
    fn an_attempt_is_union_bound_past_a_million_steps_mostly_unions() {
        // AirplaneLD-PT-0100, Sloan's order: 609 of 1.19 million steps on unions
        assert!(!union_bound(&Suspended::with_work(1_186_037, 609)));
        // the same net under span-search spends nearly all its work there
        assert!(union_bound(&Suspended::with_work(4 << 20, 4 << 20)));
        assert!(union_bound(&Suspended::with_work(1 << 20, (1 << 19) + 1)));
        assert!(!union_bound(&Suspended::with_work(1 << 20, 1 << 19)));
        // too early to tell
        assert!(!union_bound(&Suspended::with_work(
            (1 << 20) - 1,
            (1 << 20) - 1
        )));
    }
}
