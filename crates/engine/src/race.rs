//! State-space generation raced against a proof of unboundedness (issue 12, item 1) and, for
//! the StateSpace figures, against an explicit-state search.
//!
//! A net may have no token bound; saturation on it grows a level's domain until a limit stops
//! it. So every net run first asks for structural bounds within a small budget ([`quick_bounds`],
//! on the caller's thread: they settle most bounded nets at once, and then no witness search
//! runs). Otherwise up to three procedures run at once, first to finish wins:
//! - the symbolic generation (main thread);
//! - on a second thread, [`saturn_model::bounded::decide_boundedness_with`]: structural bounds
//!   from P-semiflows with the full budget, then random walks and a Karp-Miller search for an
//!   unboundedness witness on the places the bounds leave uncovered;
//! - on a third thread, when asked ([`Explicit`]), after [`EXPLICIT_DELAY`]: a breadth-first
//!   search over packed markings ([`saturn_explicit::explore`]), for nets whose state space is
//!   small but whose diagrams are large under every order of the portfolio. It starts late so
//!   that the many runs saturation finishes at once pay nothing for it.
//!
//! The generation is an order portfolio on one core while racers run; once none is left (the
//! explicit search gave up on its memory budget, or stopped because the generation proved more
//! states reachable than that budget can hold, the witness search on its own), a second
//! worker joins the portfolio on the free core
//! ([`saturn_symbolic::statespace::generate_portfolio_helped`]); with no racers at all, after
//! [`EXPLICIT_DELAY`].
//!
//! A witness cancels the generation and the explicit search and is the answer (`+inf`); an
//! explicit count cancels the generation and the search; a finished generation cancels both.
//! When generation stops because a token count is too large to store, the others are given the
//! rest of the run's limits; without an answer from them the run ends as out of memory, never
//! as a claim of unboundedness. Every witness is replayed on the net before it is reported.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub use crate::witness::WitnessText;
use crate::ExplicitMode;
use saturn_explicit::Counts;
use saturn_model::bounded::{self, Boundedness, StructuralBounds};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::binary::PolytopeStateSpace;
use saturn_symbolic::statespace::{generate_portfolio_helped, StateSpace};
use saturn_symbolic::{Interrupted, Limits, Method, Relations};

use crate::polytope::Polytope;

/// How a raced run ends.
pub enum Outcome {
    /// The state space, generated with candidate order `won`.
    Generated { won: usize, ss: Box<StateSpace> },
    /// The net is unbounded; the witness replays on it (given in words, with the net's names).
    Unbounded(WitnessText),
    /// The StateSpace figures, counted by the explicit search.
    Counted(Counts),
    /// The StateSpace figures of the P-semiflows' polytope, proved reachable.
    Polytope(Box<PolytopeStateSpace>),
}

/// Memory the witness search may use for its markings while it races the generation (kept
/// small: on a bounded net the search only costs, and peak memory is a feature).
const RACE_SEARCH_BYTES: usize = 16 << 20;

/// The work budget of [`quick_bounds`] (a tenth of the default: at most a few tenths of a
/// second).
pub(crate) const QUICK_STRUCTURAL_WORK: u64 = 40_000_000;

/// The polytope racer's stack: its diagram walks recurse once per boolean level, up to
/// [`saturn_symbolic::binary::MAX_LEVELS`] (reserved, not resident, until used).
pub(crate) const POLYTOPE_STACK: usize = 1 << 30;

/// How often the race looks at its caller's cancel flag (to cancel the generation with it).
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// How long the generation runs alone before the explicit search starts beside it.
pub const EXPLICIT_DELAY: Duration = Duration::from_secs(1);

/// Memory the witness search may use after generation gave up on a token count too large to
/// store: 512 MiB, or a quarter of the memory limit when one is set.
fn search_bytes(limits: &Limits) -> usize {
    let cap = 512usize << 20;
    match limits.max_memory {
        Some(m) => cap.min(usize::try_from(m / 4).unwrap_or(cap)).max(1 << 20),
        None => cap,
    }
}

/// Memory the explicit search may use for its markings: 2 GiB, or a third of the memory limit
/// when one is set (the generation keeps the rest).
pub fn explicit_bytes(limits: &Limits) -> usize {
    let cap = 2usize << 30;
    match limits.max_memory {
        Some(m) => cap.min(usize::try_from(m / 3).unwrap_or(cap)).max(1 << 20),
        None => cap,
    }
}

/// A quick structural analysis of `net`, run on the caller's thread before generation within a
/// small budget: when it covers every place ([`StructuralBounds::all_covered`]) boundedness is
/// settled, no witness search runs beside the generation (whose memory would add to
/// generation's peak) and the net itself need not be kept.
pub fn quick_bounds(net: &PetriNet, limits: &Limits) -> StructuralBounds {
    let quick = bounded::Limits {
        max_work: QUICK_STRUCTURAL_WORK,
        ..bounded::Limits::default()
    };
    bounded::structural_bounds(net, &quick, &limits.stopper())
}

/// The net and the quick structural bounds (from [`quick_bounds`], not covering every place) a
/// witness search starts from.
pub type Race<'n> = (&'n PetriNet, StructuralBounds);

/// The net and per-place token bounds (`None`: unknown) an explicit search starts from.
pub struct Explicit<'n> {
    pub net: &'n PetriNet,
    pub bounds: Vec<Option<u64>>,
}

impl Explicit<'_> {
    /// The search's budgets within the run's limits.
    fn config(limits: &Limits) -> saturn_explicit::Config {
        saturn_explicit::Config {
            max_bytes: explicit_bytes(limits),
            ..saturn_explicit::Config::default()
        }
    }

    /// The explicit search alone, within the run's limits.
    pub fn count(
        &self,
        limits: &Limits,
        mut progress: Option<saturn_symbolic::Progress>,
    ) -> Result<Counts, Interrupted> {
        let cfg = Explicit::config(limits);
        let mut report = |msg: &str| {
            if let Some(p) = progress.as_mut() {
                p(msg)
            }
        };
        let stop = limits.stopper();
        saturn_explicit::explore(self.net, &self.bounds, &cfg, &stop, &mut report).map_err(|e| {
            match e {
                saturn_explicit::GaveUp::Stopped => {
                    limits.check().err().unwrap_or(Interrupted::Cancelled)
                }
                saturn_explicit::GaveUp::Overflow => Interrupted::IndexTooLarge,
                _ => Interrupted::Memory,
            }
        })
    }
}

/// What [`generate_raced`] races against the generation (both `None`: generation alone).
pub struct Racers<'n> {
    pub witness: Option<Race<'n>>,
    pub explicit: Option<Explicit<'n>>,
    /// The explicit search alone, no generation.
    pub explicit_only: bool,
    /// The P-semiflows' polytope on binary counters ([`crate::polytope`]).
    pub polytope: Option<Polytope<'n>>,
    /// Is the second core busy with work of the caller's (the formula examinations' explicit
    /// search)? The portfolio's second worker waits while it says so.
    pub busy: Option<&'n (dyn Fn() -> bool + Sync)>,
    /// Told the most states the generation has proven reachable so far (log10), as the
    /// explicit search is (the caller's own search stops with it).
    pub proven: Option<&'n (dyn Fn(f64) + Sync)>,
}

impl<'n> Racers<'n> {
    /// Generation alone.
    pub fn none() -> Racers<'static> {
        Racers {
            witness: None,
            explicit: None,
            explicit_only: false,
            polytope: None,
            busy: None,
            proven: None,
        }
    }

    /// These racers and the polytope's (when it qualifies, [`Polytope::new`]).
    pub fn with_polytope(mut self, polytope: Option<Polytope<'n>>) -> Racers<'n> {
        self.polytope = polytope;
        self
    }

    /// The racers of a run on `net`: the witness search when the quick structural bounds (if
    /// computed) leave a place uncovered; the explicit search as `explicit` says, its fields
    /// as wide as those bounds allow.
    pub fn new(
        net: &'n PetriNet,
        bounds: Option<StructuralBounds>,
        explicit: ExplicitMode,
        portfolio: bool,
    ) -> Racers<'n> {
        Racers {
            explicit: explicit_on(explicit, portfolio).then(|| Explicit {
                net,
                bounds: bounds
                    .as_ref()
                    .map(|b| b.bounds.clone())
                    .unwrap_or_default(),
            }),
            witness: bounds.filter(|b| !b.all_covered()).map(|b| (net, b)),
            explicit_only: explicit == ExplicitMode::Only,
            polytope: None,
            busy: None,
            proven: None,
        }
    }

    /// Does a run need the net (is anything raced)?
    pub fn needs_net(
        bounds: Option<&StructuralBounds>,
        explicit: ExplicitMode,
        portfolio: bool,
    ) -> bool {
        bounds.is_some_and(|b| !b.all_covered()) || explicit_on(explicit, portfolio)
    }
}

/// Counts a racer thread out of `running` when it ends (returns or panics).
struct Ended<'a>(&'a AtomicUsize);

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Has the generation proven more states reachable (`proven`, log10) than an explicit search
/// can store (`most` markings: [`saturn_explicit::most_markings`])? Then that search would only
/// give up on its memory later: it stops at once, and its core goes to the portfolio.
/// (FlexibleBarrier-PT-04b's search held its core for 30 s before giving up on 2 GiB, 31
/// million of its 791 million markings stored.)
pub(crate) fn more_than_it_holds(proven: f64, most: u64) -> bool {
    proven > (most.max(1) as f64).log10()
}

/// Does the explicit search run ([`ExplicitMode::Auto`] acts with the portfolio only)?
fn explicit_on(explicit: ExplicitMode, portfolio: bool) -> bool {
    match explicit {
        ExplicitMode::Auto => portfolio,
        ExplicitMode::Off => false,
        ExplicitMode::Only => true,
    }
}

/// Generate the state space of the net lowered to `models` (one per candidate order) while
/// the `racers` run beside it; the witness search goes on from the quick structural bounds
/// when they ran to completion.
pub fn generate_raced(
    racers: Racers<'_>,
    models: &[Model],
    method: Method,
    relations: Relations,
    limits: Limits,
    progress: Option<saturn_symbolic::Progress>,
) -> Result<Outcome, Interrupted> {
    if let (true, Some(x)) = (racers.explicit_only, &racers.explicit) {
        return x.count(&limits, progress).map(Outcome::Counted);
    }
    let start = Instant::now();
    let busy = || racers.busy.is_some_and(|b| b());
    if racers.witness.is_none() && racers.explicit.is_none() && racers.polytope.is_none() {
        // the second core helps once the run has taken as long as a racer would wait
        let helper = || start.elapsed() >= EXPLICIT_DELAY && !busy();
        return generate_portfolio_helped(
            models,
            method,
            relations,
            limits,
            progress,
            Some(&helper),
            racers.proven,
        )
        .map(|(won, ss)| Outcome::Generated {
            won,
            ss: Box::new(ss),
        });
    }
    // the generation and the explicit search report on one line
    let share = crate::sharing(progress);
    let mut search_progress = share();
    // One flag per run, shared with the engine's limits (which need a `'static` reference).
    let cancel_generation: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let stop_polytope: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let (stop_search, stop_explicit) = (AtomicBool::new(false), AtomicBool::new(false));
    let race_limits = bounded::Limits {
        max_search_bytes: RACE_SEARCH_BYTES.min(search_bytes(&limits)),
        ..bounded::Limits::default()
    };
    let gen_limits = Limits {
        cancel: Some(cancel_generation),
        ..limits
    };
    // racers still running: the portfolio takes the second core once there are none
    let running = AtomicUsize::new(
        usize::from(racers.witness.is_some())
            + usize::from(racers.explicit.is_some())
            + usize::from(racers.polytope.is_some()),
    );
    let helper = || running.load(Ordering::Relaxed) == 0 && !busy();
    // the most states the generation has proven reachable (log10, as f64 bits)
    let proven = AtomicU64::new(0f64.to_bits());
    let tell = |p: f64| {
        proven.store(p.to_bits(), Ordering::Relaxed);
        if let Some(f) = racers.proven {
            f(p)
        }
    };
    // raised when the generation ends (the forwarder of the caller's cancel flag stops)
    let ended = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let searcher = racers.witness.as_ref().map(|(net, quick)| {
            scope.spawn(|| {
                let _end = Ended(&running);
                let stop = saturn_symbolic::latched(|| {
                    stop_search.load(Ordering::Relaxed) || limits.check().is_err()
                });
                let verdict =
                    bounded::decide_boundedness_from(net, Some(quick.clone()), &race_limits, &stop);
                match verdict {
                    Boundedness::Unbounded { witness }
                        if bounded::replay(net, &witness).is_ok() =>
                    {
                        stop_explicit.store(true, Ordering::Relaxed);
                        cancel_generation.store(true, Ordering::Relaxed);
                        Some(witness)
                    }
                    _ => None,
                }
            })
        });
        // the polytope from the start: it either answers in seconds or gives up
        let poly = racers.polytope.as_ref().and_then(|p| {
            // its diagram walks recurse once per boolean level (up to MAX_LEVELS)
            let spawned = std::thread::Builder::new()
                .name("polytope".into())
                .stack_size(POLYTOPE_STACK)
                .spawn_scoped(scope, || {
                    let _end = Ended(&running);
                    let stop = Limits {
                        cancel: Some(stop_polytope),
                        cancel_also: limits.cancel.or(limits.cancel_also),
                        ..limits
                    };
                    let found = p.run(&stop)?;
                    stop_search.store(true, Ordering::Relaxed);
                    stop_explicit.store(true, Ordering::Relaxed);
                    cancel_generation.store(true, Ordering::Relaxed);
                    Some(found)
                });
            if spawned.is_err() {
                // not started: no racer to wait for
                running.fetch_sub(1, Ordering::Relaxed);
            }
            spawned.ok()
        });
        let counter = racers.explicit.as_ref().map(|x| {
            scope.spawn(|| {
                let _end = Ended(&running);
                // wait, unless the generation ends first (it unparks this thread)
                while !stop_explicit.load(Ordering::Relaxed) {
                    match EXPLICIT_DELAY.checked_sub(start.elapsed()) {
                        Some(left) if !left.is_zero() => std::thread::park_timeout(left),
                        _ => break,
                    }
                }
                let stop = Limits {
                    cancel: Some(cancel_generation),
                    ..limits
                };
                let cfg = Explicit::config(&limits);
                let most = saturn_explicit::most_markings(x.net, &x.bounds, &cfg);
                let beyond =
                    || more_than_it_holds(f64::from_bits(proven.load(Ordering::Relaxed)), most);
                let stopped = saturn_symbolic::latched(|| {
                    stop_explicit.load(Ordering::Relaxed) || stop.check().is_err() || beyond()
                });
                if stopped() {
                    return None;
                }
                let mut report = |msg: &str| {
                    if let Some(p) = search_progress.as_mut() {
                        p(msg)
                    }
                };
                let counts =
                    saturn_explicit::explore(x.net, &x.bounds, &cfg, &stopped, &mut report).ok()?;
                stop_search.store(true, Ordering::Relaxed);
                cancel_generation.store(true, Ordering::Relaxed);
                Some(counts)
            })
        });
        // the caller's own cancel flag stops the generation too (the race's flag replaced it)
        let forwarder = limits.cancel.map(|flag| {
            scope.spawn(|| {
                while !ended.load(Ordering::Relaxed) {
                    if flag.load(Ordering::Relaxed) {
                        cancel_generation.store(true, Ordering::Relaxed);
                        break;
                    }
                    std::thread::park_timeout(CANCEL_POLL);
                }
            })
        });
        let stop_all = || {
            ended.store(true, Ordering::Relaxed);
            if let Some(f) = &forwarder {
                f.thread().unpark();
            }
            stop_search.store(true, Ordering::Relaxed);
            stop_explicit.store(true, Ordering::Relaxed);
            stop_polytope.store(true, Ordering::Relaxed);
            if let Some(c) = &counter {
                c.thread().unpark();
            }
        };
        let e = match generate_portfolio_helped(
            models,
            method,
            relations,
            gen_limits,
            share(),
            Some(&helper),
            Some(&tell),
        ) {
            Ok((won, ss)) => {
                stop_all();
                // what the others found in the meantime is moot (a witness replays and a
                // count is exact, so neither can contradict the generation)
                return Ok(Outcome::Generated {
                    won,
                    ss: Box::new(ss),
                });
            }
            Err(e) => e,
        };
        // The generation stopped: cancelled by a winner, at the run's limits, or on a token
        // count too large to store. In that last case the others decide: they stop by
        // themselves at the run's limits or their budgets.
        if e != Interrupted::IndexTooLarge {
            stop_all();
        } else {
            ended.store(true, Ordering::Relaxed);
            if let Some(f) = &forwarder {
                f.thread().unpark();
            }
        }
        let counted = counter.and_then(|h| h.join().ok().flatten());
        let witness = searcher.and_then(|h| h.join().ok().flatten());
        if let Some(p) = poly.and_then(|h| h.join().ok().flatten()) {
            return Ok(Outcome::Polytope(Box::new(p)));
        }
        if let Some(c) = counted {
            return Ok(Outcome::Counted(c));
        }
        match (&racers.witness, witness) {
            (Some((net, _)), Some(w)) => Ok(Outcome::Unbounded(WitnessText::new(net, &w))),
            (Some((net, quick)), None) if e == Interrupted::IndexTooLarge => {
                // the race's search may have run out of its small budget: once more with the
                // full one, now that generation's memory is free
                let full = bounded::Limits {
                    max_search_bytes: search_bytes(&limits),
                    ..bounded::Limits::default()
                };
                let stop = limits.stopper();
                match bounded::decide_boundedness_from(net, Some(quick.clone()), &full, &stop) {
                    Boundedness::Unbounded { witness }
                        if bounded::replay(net, &witness).is_ok() =>
                    {
                        Ok(Outcome::Unbounded(WitnessText::new(net, &witness)))
                    }
                    _ => Err(limits.check().err().unwrap_or(e)),
                }
            }
            _ => Err(limits.check().err().unwrap_or(e)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::more_than_it_holds;

    #[test]
    fn the_explicit_search_stops_once_more_states_are_proven_than_it_holds() {
        let most = 134_217_728; // 2 GiB of one-word markings: 10^8.13
        assert!(!more_than_it_holds(0.0, most));
        assert!(!more_than_it_holds(8.12, most));
        assert!(more_than_it_holds(8.13, most));
        assert!(more_than_it_holds(f64::INFINITY, most));
        // no room at all counts as room for one
        assert!(!more_than_it_holds(0.0, 0));
        assert!(more_than_it_holds(0.5, 0));
    }
}
