//! One entry point for the StateSpace question on a P/T net (issue 49, item 1): the strategy
//! the `saturn` command runs, as library code, so that a program using Saturn as a library gets
//! the same answer as the command line.
//!
//! [`statespace`] takes a net, the way to lower it to candidate models (one per variable order
//! of the portfolio), [`Options`] and [`Limits`], and returns an [`Answer`]: the figures (states,
//! reachability-graph edges, the most tokens in a place and in a marking) or `+inf` with a
//! replayed unboundedness witness, with the [`Technique`] that gave them. In order:
//! 1. a strongly connected state machine in closed form ([`polytope::closed_form`]), before the
//!    net is lowered;
//! 2. a net whose figures are polynomials in the scale of its initial marking from small scales
//!    ([`scaled`]), unless a check refuses;
//! 3. the race ([`race::generate_raced`]): quick structural bounds on the caller's thread, then
//!    the symbolic generation (the order portfolio, helped by a second worker once the core is
//!    free) against the boundedness decision (structural bounds, random walks, Karp-Miller), the
//!    explicit search and the P-semiflows' polytope, first to finish wins.
//!
//! The formula questions (CTL, reachability, upper bounds, the global properties, the
//! symbolic LTL product) need the reachable states themselves: [`reachable`] generates them
//! (the same portfolio, helped by the second core) raced against the unboundedness witness;
//! the polytope and the scaling give figures only, so they do not race there. The contest's
//! formula examinations and global properties have their own entry point, [`formulas::check`]:
//! the early search, [`reachable`] and the checker, raced against an explicit search that
//! evaluates the questions it can decide on each marking. LTL formulas have theirs,
//! [`ltl::decide_all`]: the explicit on-the-fly product raced against the CTL checker and the
//! symbolic product on [`reachable`]'s state space.
//!
//! Nothing here prints: progress goes through the caller's [`Progress`] callback. The parts
//! stay public for the callers that need one of them on its own.

pub mod formulas;
pub mod ltl;
pub mod memory;
pub mod polytope;
pub mod race;
pub mod scaled;
pub mod witness;

use std::sync::{Arc, Mutex};

use num_bigint::BigUint;
use saturn_model::scaling::Scaling;
use saturn_model::{Model, PetriNet};
use saturn_symbolic::binary::PolytopeStateSpace;
use saturn_symbolic::statespace::{ScaledFigures, StateSpace};

pub use race::{explicit_bytes, quick_bounds, Outcome, Racers, EXPLICIT_DELAY};
pub use saturn_explicit::Counts;
pub use saturn_model::state_machine::Figures;
pub use saturn_symbolic::{Interrupted, Limits, Method, Progress, Relations};
pub use witness::WitnessText;

/// Whether an explicit-state search races the symbolic generation (the StateSpace figures;
/// the formula questions of [`formulas::check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplicitMode {
    /// With the order portfolio: a breadth-first search over packed markings starts beside
    /// the generation after [`EXPLICIT_DELAY`], within a memory budget; first to finish
    /// answers.
    Auto,
    /// Decision diagrams only.
    Off,
    /// The explicit search alone (no decision diagram).
    Only,
}

/// How [`statespace`] answers (the CLI's `--method`, `--relations`, `--order auto`,
/// `--boundedness`, `--scaling`, `--polytope`, `--explicit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The generation algorithm.
    pub method: Method,
    /// How events are applied ([`Relations::Auto`]: each candidate both ways).
    pub relations: Relations,
    /// The candidate models are the order portfolio's (`--order auto`): the explicit search
    /// ([`ExplicitMode::Auto`]) and the polytope race only then.
    pub portfolio: bool,
    /// Decide boundedness beside the generation (an unbounded net answers `+inf`).
    pub boundedness: bool,
    /// Figures by scaling when the net qualifies.
    pub scaling: bool,
    /// The closed form and the P-semiflows' polytope when the net qualifies.
    pub polytope: bool,
    /// The explicit search.
    pub explicit: ExplicitMode,
}

impl Default for Options {
    /// The contest's strategy: saturation, the portfolio both ways, every technique.
    fn default() -> Options {
        Options {
            method: Method::Saturation,
            relations: Relations::Auto,
            portfolio: true,
            boundedness: true,
            scaling: true,
            polytope: true,
            explicit: ExplicitMode::Auto,
        }
    }
}

/// The technique that gave an [`Answer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Technique {
    /// A strongly connected state machine's figures from its structure.
    ClosedForm,
    /// Interpolation from the state spaces generated at small scales.
    Scaling,
    /// The symbolic generation (decision diagrams).
    Generation,
    /// The explicit breadth-first search.
    Explicit,
    /// The P-semiflows' polytope on binary counters, proved reachable by a ranking.
    Polytope,
    /// An unboundedness witness (structural bounds, then a search), replayed on the net.
    Witness,
}

impl Technique {
    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Technique::ClosedForm => "state-machine",
            Technique::Scaling => "scaled",
            Technique::Generation => "symbolic",
            Technique::Explicit => "explicit",
            Technique::Polytope => "polytope",
            Technique::Witness => "witness",
        }
    }

    /// The contest's words for it (what follows `TECHNIQUES`).
    pub fn contest_words(self) -> &'static str {
        match self {
            Technique::ClosedForm => "TOPOLOGICAL",
            Technique::Scaling | Technique::Polytope => "DECISION_DIAGRAMS TOPOLOGICAL",
            Technique::Generation => "DECISION_DIAGRAMS",
            Technique::Explicit => "EXPLICIT",
            // a Karp-Miller witness (explicit) after the structural bounds (topological)
            Technique::Witness => "EXPLICIT TOPOLOGICAL",
        }
    }
}

/// The answer to the StateSpace question, with what gave it.
pub enum Answer {
    /// A strongly connected state machine, in closed form.
    ClosedForm(Figures),
    /// By interpolation from small scales.
    Scaled {
        scaling: Scaling,
        figures: ScaledFigures,
    },
    /// The state space, generated with candidate `won`, whose model is `model`.
    Generated {
        won: usize,
        model: Box<Model>,
        ss: Box<StateSpace>,
    },
    /// Counted by the explicit search.
    Counted(Counts),
    /// The P-semiflows' polytope.
    Polytope(Box<PolytopeStateSpace>),
    /// The net is unbounded: `+inf`, and a witness that replays on it.
    Unbounded(WitnessText),
}

impl Answer {
    /// The technique that gave the answer.
    pub fn technique(&self) -> Technique {
        match self {
            Answer::ClosedForm(_) => Technique::ClosedForm,
            Answer::Scaled { .. } => Technique::Scaling,
            Answer::Generated { .. } => Technique::Generation,
            Answer::Counted(_) => Technique::Explicit,
            Answer::Polytope(_) => Technique::Polytope,
            Answer::Unbounded(_) => Technique::Witness,
        }
    }

    /// The four figures (states, edges of the reachability graph, the most tokens in a place
    /// and in a marking); `None` for an unbounded net (all four `+inf`).
    pub fn figures(&self) -> Option<Figures> {
        Some(match self {
            Answer::ClosedForm(f) => f.clone(),
            Answer::Scaled { figures: f, .. } => Figures {
                states: f.states.clone(),
                transitions: f.transitions.clone(),
                max_local: f.max_local,
                max_sum: f.max_sum,
            },
            Answer::Generated { ss, .. } => metrics_figures(&ss.metrics),
            Answer::Polytope(p) => metrics_figures(&p.metrics),
            Answer::Counted(c) => Figures {
                states: BigUint::from(c.states),
                transitions: BigUint::from(c.transitions),
                max_local: c.max_tokens_place,
                max_sum: c.max_tokens_marking,
            },
            Answer::Unbounded(_) => return None,
        })
    }
}

fn metrics_figures(m: &saturn_symbolic::metrics::StateSpaceMetrics) -> Figures {
    Figures {
        states: m.states.clone(),
        transitions: m.transitions.clone(),
        max_local: m.max_local,
        max_sum: m.max_sum,
    }
}

/// Why [`statespace`] has no answer.
#[derive(Debug)]
pub enum Error<E> {
    /// The caller's lowering failed.
    Lower(E),
    /// A limit stopped the run (or no technique could finish: [`Interrupted`]).
    Stopped(Interrupted),
}

/// The StateSpace figures of `net` (see the crate documentation for the strategy).
/// `lower` gives the candidate models (one per order of the portfolio; their order is the
/// portfolio's), called only when the closed form does not apply. The net is dropped (and its
/// memory given back, [`memory::release_freed`]) before the generation when no racer needs it.
pub fn statespace<E>(
    net: PetriNet,
    lower: impl FnOnce(&PetriNet) -> Result<Vec<Model>, E>,
    opts: &Options,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<Answer, Error<E>> {
    if let Some(f) = polytope::closed_form(&net, opts.polytope, opts.explicit) {
        return Ok(Answer::ClosedForm(f));
    }
    let mut models = lower(&net).map_err(Error::Lower)?;
    // one callback for both phases (scaling, then the race)
    let share = sharing(progress);
    if let Some(s) = scaled::worth_scaling(&net, opts.scaling, opts.explicit) {
        let f = scaled::scaled_figures(&s, &models, opts.method, opts.relations, limits, share())
            .map_err(Error::Stopped)?;
        if let Some(figures) = f {
            return Ok(Answer::Scaled {
                scaling: s,
                figures,
            });
        }
    }
    let bounds = opts.boundedness.then(|| quick_bounds(&net, &limits));
    // the net is kept for the racers only (and the witness's names)
    let poly = polytope::Polytope::wanted(
        bounds.as_ref(),
        opts.polytope,
        opts.explicit,
        opts.portfolio,
    );
    let needed = poly || Racers::needs_net(bounds.as_ref(), opts.explicit, opts.portfolio);
    let net = needed.then_some(net);
    memory::release_freed();
    let racers = match &net {
        Some(net) => {
            let p = polytope::Polytope::new(
                net,
                bounds.as_ref(),
                opts.polytope,
                opts.explicit,
                opts.portfolio,
                &limits,
            );
            Racers::new(net, bounds, opts.explicit, opts.portfolio).with_polytope(p)
        }
        None => {
            // settled: the bounds go too (a word per place, 1 MB on 60,000 places)
            drop(bounds);
            Racers::none()
        }
    };
    let outcome = race::generate_raced(
        racers,
        &models,
        opts.method,
        opts.relations,
        limits,
        share(),
    )
    .map_err(Error::Stopped)?;
    Ok(match outcome {
        Outcome::Generated { won, ss } => Answer::Generated {
            won,
            model: Box::new(models.swap_remove(won)),
            ss,
        },
        Outcome::Unbounded(w) => Answer::Unbounded(w),
        Outcome::Counted(c) => Answer::Counted(c),
        Outcome::Polytope(p) => Answer::Polytope(p),
    })
}

/// The reachable states a formula is checked on, or why there are none.
pub enum Reachable {
    /// The state space, generated with candidate `won` (of the caller's models).
    Generated { won: usize, ss: Box<StateSpace> },
    /// The net is unbounded: no finite state space; a witness that replays on it.
    Unbounded(WitnessText),
}

/// The reachable states of `net` lowered to `models` (the order portfolio's candidates when
/// `opts.portfolio`), raced against the unboundedness witness when `opts.boundedness` (see
/// [`race`]); `opts.scaling`, `opts.polytope` and `opts.explicit` give figures only and are
/// not used.
pub fn reachable(
    net: &PetriNet,
    models: &[Model],
    opts: &Options,
    limits: Limits,
    progress: Option<Progress>,
) -> Result<Reachable, Interrupted> {
    reachable_beside(net, models, opts, limits, progress, &|| false, &|_| {})
}

/// [`reachable`] beside other work of the caller's: the portfolio's second worker waits while
/// `busy` says the second core is taken; `proven` is told the most states the generation has
/// proven reachable so far (log10).
pub fn reachable_beside(
    net: &PetriNet,
    models: &[Model],
    opts: &Options,
    limits: Limits,
    progress: Option<Progress>,
    busy: &(dyn Fn() -> bool + Sync),
    proven: &(dyn Fn(f64) + Sync),
) -> Result<Reachable, Interrupted> {
    let bounds = opts.boundedness.then(|| quick_bounds(net, &limits));
    let mut racers = Racers::new(net, bounds, ExplicitMode::Off, opts.portfolio);
    racers.busy = Some(busy);
    racers.proven = Some(proven);
    match race::generate_raced(
        racers,
        models,
        opts.method,
        opts.relations,
        limits,
        progress,
    )? {
        Outcome::Generated { won, ss } => Ok(Reachable::Generated { won, ss }),
        Outcome::Unbounded(w) => Ok(Reachable::Unbounded(w)),
        // not raced: no explicit search, no polytope
        Outcome::Counted(_) | Outcome::Polytope(_) => Err(Interrupted::Cancelled),
    }
}

/// One progress callback for several threads: each call of the returned closure gives a
/// handle on it (none when there is no callback).
pub(crate) fn sharing(progress: Option<Progress>) -> impl Fn() -> Option<Progress> + Sync {
    let shared = progress.map(|p| Arc::new(Mutex::new(p)));
    move || {
        shared.clone().map(|p| -> Progress {
            Box::new(move |msg: &str| {
                if let Ok(mut p) = p.lock() {
                    p(msg)
                }
            })
        })
    }
}
