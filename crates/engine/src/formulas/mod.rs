//! One entry point for the contest's formula examinations and global properties (issue 49,
//! item 1): [`check`] takes a net, its candidate models (one per variable order of the
//! portfolio), the questions ([`Item`]: resolved formulas, UpperBounds expressions or global
//! properties by name), [`FormulaOptions`] and [`Limits`], and returns one [`Verdict`] per
//! question, with the [`Technique`] that decided it, or why none did. It never prints.
//!
//! Two sides race, and the first to decide a question wins it (a [`Board`] holds the answers):
//! - the symbolic side ([`symbolic`]), on the caller's thread: for the reachability
//!   examinations, an early forward search for `EF φ` / `AG φ` with an eighth of the time;
//!   then the reachable states ([`crate::reachable`]: the portfolio, raced against the
//!   unboundedness witness) and a CTL checker, each remaining question with an equal share of
//!   the time left;
//! - the explicit side ([`explicit`]), on a second thread after [`crate::EXPLICIT_DELAY`] (with
//!   the portfolio, as in the StateSpace race) within the explicit search's memory budget:
//!   random walks, then a breadth-first search, that evaluate the questions they can decide on
//!   each marking; between them, on nets beyond a few markings, the state equation
//!   ([`state_equation`]: targets out of reach, UpperBounds caps; [`simplify`]: CTL formulas
//!   folded to what the initial marking tells); then the reachability formulas one at a time
//!   by a search reduced by stubborn sets ([`por_reach`]), on the net reduced structurally for
//!   the formula where a rule applies ([`reduce`]: walks and the state equation on it first);
//!   then the UpperBounds one at a time on the net reduced for their places.
//!
//! A question decided by one side cancels the other's work on it (its flag on the board); once
//! every question is decided, the generation is cancelled too, and the explicit search stops
//! once the symbolic side has tried every question.

mod explicit;
mod guided;
mod local;
mod por_reach;
mod reduce;
pub mod simplify;
pub mod state_equation;
pub mod symbolic;
mod walk;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use saturn_logic::ResolvedQuery;
use saturn_model::{Model, PetriNet};
use saturn_symbolic::ctl::EuMethod;

use crate::{ExplicitMode, Interrupted, Limits, Options, Progress, WitnessText, EXPLICIT_DELAY};

/// What a question asks.
pub enum Question {
    /// A formula of a formula file (CTL, reachability) or an UpperBounds expression.
    Formula(ResolvedQuery),
    /// A formula that could not be read or resolved, and why.
    Unreadable(String),
    /// A global property by the contest's name
    /// ([`saturn_symbolic::ctl::GLOBAL_PROPERTIES`]).
    Global(&'static str),
}

/// One question, with the name its answer line carries.
pub struct Item {
    /// The formula id, or the property's name.
    pub id: String,
    pub question: Question,
}

/// An answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    /// An UpperBounds answer.
    Bound(i128),
}

impl Value {
    /// The contest's word for it: `TRUE`, `FALSE` or the bound.
    pub fn word(&self) -> String {
        match self {
            Value::Bool(true) => "TRUE".into(),
            Value::Bool(false) => "FALSE".into(),
            Value::Bound(b) => b.to_string(),
        }
    }
}

/// What decided a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Technique {
    /// The early forward search on decision diagrams (reachability formulas).
    EarlySearch,
    /// The generated state space and the CTL checker (decision diagrams).
    Symbolic,
    /// The explicit breadth-first search.
    Explicit,
    /// The state equation ([`state_equation`]): a target shown out of reach, or a bound that
    /// a marking of the walks or the search meets.
    StateEquation,
    /// The depth-first search reduced by stubborn sets, one reachability formula at a time
    /// ([`por_reach`]).
    PartialOrder,
    /// The same search on the net reduced structurally for the formula ([`reduce`]).
    Reduction,
    /// A walk guided by the state equation's solution that reached the target ([`guided`]).
    GuidedWalk,
    /// The invariants' polytope proved to be the state space, strongly connected, by rankings
    /// ([`crate::polytope::Polytope::liveness`]).
    Polytope,
}

impl Technique {
    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Technique::EarlySearch => "early-search",
            Technique::Symbolic => "symbolic",
            Technique::Explicit => "explicit",
            Technique::StateEquation => "state-equation",
            Technique::PartialOrder => "partial-order",
            Technique::Reduction => "structural-reduction",
            Technique::GuidedWalk => "guided-walk",
            Technique::Polytope => "polytope",
        }
    }

    /// The contest's words for it (what follows `TECHNIQUES`).
    pub fn contest_words(self) -> &'static str {
        match self {
            Technique::EarlySearch | Technique::Symbolic => "DECISION_DIAGRAMS",
            Technique::Explicit => "EXPLICIT",
            Technique::StateEquation => "LINEAR_EQUATIONS",
            Technique::PartialOrder => "EXPLICIT STUBBORN_SETS",
            Technique::Reduction => "STRUCTURAL_REDUCTION EXPLICIT STUBBORN_SETS",
            Technique::GuidedWalk => "EXPLICIT LINEAR_EQUATIONS",
            Technique::Polytope => "DECISION_DIAGRAMS TOPOLOGICAL",
        }
    }
}

/// A decided question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    pub value: Value,
    pub technique: Technique,
}

/// The outcome of one question: its answer, or why there is none.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub decided: Option<Decided>,
    /// Why it is undecided (`None` when no side got to say, e.g. the run stopped before).
    pub why_not: Option<String>,
}

/// How the run ended.
pub enum Ended {
    /// Every question was tried (some may stay undecided: see their [`Verdict::why_not`]).
    Done,
    /// The net is unbounded: no finite state space for the symbolic side; a witness that
    /// replays on the net. The explicit side may still have decided some questions.
    Unbounded(WitnessText),
    /// A limit stopped the state-space generation (and the explicit search did not decide
    /// everything).
    Stopped(Interrupted),
}

/// What [`check`] returns.
pub struct Outcome {
    /// One per item, in order.
    pub verdicts: Vec<Verdict>,
    pub ended: Ended,
}

impl Outcome {
    /// How many questions each technique decided.
    pub fn count(&self, t: Technique) -> usize {
        self.verdicts
            .iter()
            .filter(|v| v.decided.as_ref().is_some_and(|d| d.technique == t))
            .count()
    }
}

/// How [`check`] answers (the CLI's `--method`, `--relations`, `--order auto`,
/// `--boundedness`, `--explicit`, `--eu-method`).
#[derive(Clone, Copy, Debug)]
pub struct FormulaOptions {
    /// The generation's options (`scaling` and `polytope` give figures only: not used).
    pub engine: Options,
    /// The EU algorithm of the CTL checker.
    pub eu_method: EuMethod,
    /// The early forward search for `EF φ` / `AG φ` (the reachability examinations).
    pub early: bool,
}

/// The answers so far: the first side to decide a question writes it; its flag tells the other
/// side to stop working on it, and `all` is raised once every question is decided.
pub(crate) struct Board<'a> {
    answers: Mutex<Vec<Option<Decided>>>,
    on_decided: OnDecided<'a>,
    flags: Vec<&'static AtomicBool>,
    open: AtomicUsize,
    all: &'static AtomicBool,
}

/// A flag for the engine's limits (which want `'static` ones: a few per run, as the race's).
fn flag() -> &'static AtomicBool {
    Box::leak(Box::new(AtomicBool::new(false)))
}

impl<'a> Board<'a> {
    fn new(n: usize, on_decided: OnDecided<'a>) -> Board<'a> {
        let all = flag();
        all.store(n == 0, Ordering::Relaxed);
        Board {
            answers: Mutex::new(vec![None; n]),
            on_decided,
            flags: (0..n).map(|_| flag()).collect(),
            open: AtomicUsize::new(n),
            all,
        }
    }

    /// Decide question `n` unless it is decided already; `true` when this call decided it.
    pub(crate) fn decide(&self, n: usize, value: Value, technique: Technique) -> bool {
        let Ok(mut a) = self.answers.lock() else {
            return false;
        };
        if a[n].is_some() {
            return false;
        }
        let d = Decided { value, technique };
        (self.on_decided)(n, &d);
        a[n] = Some(d);
        self.flags[n].store(true, Ordering::Relaxed);
        if self.open.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.all.store(true, Ordering::Relaxed);
        }
        true
    }

    pub(crate) fn decided(&self, n: usize) -> bool {
        self.flags[n].load(Ordering::Relaxed)
    }

    /// The flag raised when question `n` is decided.
    pub(crate) fn flag(&self, n: usize) -> &'static AtomicBool {
        self.flags[n]
    }

    pub(crate) fn all_decided(&self) -> bool {
        self.all.load(Ordering::Relaxed)
    }

    fn into_answers(self) -> Vec<Option<Decided>> {
        self.answers.into_inner().unwrap_or_default()
    }
}

/// Told each answer as it is decided (question index, answer), from the thread that decided
/// it: the CLI prints it at once, so that a run cut short keeps what it had decided.
pub type OnDecided<'a> = &'a (dyn Fn(usize, &Decided) + Sync);

/// Answer `items` on `net` lowered to `models` (see the module documentation for the
/// strategy). With [`ExplicitMode::Only`], the explicit search alone (the questions it cannot
/// decide stay undecided); with [`ExplicitMode::Off`], the symbolic side alone.
pub fn check(
    net: &PetriNet,
    models: &[Model],
    items: &[Item],
    opts: &FormulaOptions,
    limits: Limits,
    progress: Option<Progress>,
) -> Outcome {
    check_streaming(net, models, items, opts, limits, progress, &|_, _| {})
}

/// [`check`], telling `on_decided` each answer as it is decided.
pub fn check_streaming(
    net: &PetriNet,
    models: &[Model],
    items: &[Item],
    opts: &FormulaOptions,
    limits: Limits,
    progress: Option<Progress>,
    on_decided: OnDecided<'_>,
) -> Outcome {
    let board = Board::new(items.len(), on_decided);
    let mut why: Vec<Option<String>> = vec![None; items.len()];
    let tracks = explicit::Tracks::new(items);
    let ended = match opts.engine.explicit {
        ExplicitMode::Only => {
            // the explicit search alone: no state equation
            let mut tracks = tracks;
            tracks.state_equation = false;
            tracks.polytope = false;
            let say = explicit::Say::new(progress);
            let ended =
                match explicit::run(net, tracks, &board, &limits, &|| false, &|_| false, &say) {
                    Ok(()) => Ended::Done,
                    Err(i) => Ended::Stopped(i),
                };
            for (n, w) in why.iter_mut().enumerate() {
                if !board.decided(n) {
                    *w = Some(match &items[n].question {
                        Question::Unreadable(e) => e.clone(),
                        _ if matches!(ended, Ended::Done) => {
                            "the explicit search does not decide this question".into()
                        }
                        _ => "the explicit search did not complete".into(),
                    });
                }
            }
            ended
        }
        mode => {
            let mut tracks = tracks;
            tracks.polytope = opts.engine.polytope;
            let racing = tracks.any() && (mode == ExplicitMode::Auto && opts.engine.portfolio);
            race(
                net,
                models,
                items,
                &board,
                opts,
                limits,
                progress,
                racing.then_some(tracks),
                &mut why,
            )
        }
    };
    let verdicts = board
        .into_answers()
        .into_iter()
        .zip(why)
        .map(|(decided, why_not)| Verdict {
            why_not: if decided.is_some() { None } else { why_not },
            decided,
        })
        .collect();
    Outcome { verdicts, ended }
}

/// The symbolic side on this thread, the explicit side (when `tracks`) on another.
#[allow(clippy::too_many_arguments)]
fn race(
    net: &PetriNet,
    models: &[Model],
    items: &[Item],
    board: &Board,
    opts: &FormulaOptions,
    limits: Limits,
    progress: Option<Progress>,
    tracks: Option<explicit::Tracks>,
    why: &mut [Option<String>],
) -> Ended {
    let start = Instant::now();
    // the generation stops once every question is decided; the caller's flag still counts
    let sym_limits = Limits {
        cancel: Some(board.all),
        cancel_also: limits.cancel.or(limits.cancel_also),
        ..limits
    };
    let (stop_explicit, searching) = (AtomicBool::new(false), AtomicBool::new(false));
    // the symbolic side has ended (the search need not wait its delay)
    let symbolic_ended = AtomicBool::new(false);
    // the most states the generation has proven reachable (log10, as f64 bits): once the
    // search cannot hold that many, it stops and gives its core back
    let proven = AtomicU64::new(0f64.to_bits());
    // both sides report on one line
    let share = crate::sharing(progress);
    let say = explicit::Say::new(share());
    std::thread::scope(|scope| {
        let searcher = tracks.map(|tracks| {
            scope.spawn(|| {
                // wait, unless the symbolic side ends first (it unparks this thread)
                while !stop_explicit.load(Ordering::Relaxed)
                    && !symbolic_ended.load(Ordering::Relaxed)
                {
                    match EXPLICIT_DELAY.checked_sub(start.elapsed()) {
                        Some(left) if !left.is_zero() => std::thread::park_timeout(left),
                        _ => break,
                    }
                }
                let stop = || stop_explicit.load(Ordering::Relaxed) || board.all_decided();
                if stop() {
                    return;
                }
                searching.store(true, Ordering::Relaxed);
                let beyond = |most: u64| {
                    crate::race::more_than_it_holds(
                        f64::from_bits(proven.load(Ordering::Relaxed)),
                        most,
                    )
                };
                let _ = explicit::run(net, tracks, board, &limits, &stop, &beyond, &say);
                searching.store(false, Ordering::Relaxed);
            })
        });
        // the search takes the second core while it runs
        let busy = || searching.load(Ordering::Relaxed);
        let tell = |p: f64| proven.store(p.to_bits(), Ordering::Relaxed);
        let ended = symbolic::run(
            net,
            models,
            items,
            board,
            opts,
            sym_limits,
            share(),
            (&busy, &tell),
            why,
        );
        // the explicit side goes on only where the generation gave up on a token count too
        // large to store, or on an unbounded net, where it alone answers: its walks, the state
        // equation and the on-the-fly search, never the whole search (told that infinitely
        // many states are proven); it stops at the run's limits by itself
        match ended {
            Ended::Stopped(Interrupted::IndexTooLarge) => {}
            Ended::Unbounded(_) => tell(f64::INFINITY),
            _ => stop_explicit.store(true, Ordering::Relaxed),
        }
        symbolic_ended.store(true, Ordering::Relaxed);
        if let Some(s) = searcher {
            s.thread().unpark();
            let _ = s.join();
        }
        match ended {
            Ended::Stopped(_) | Ended::Unbounded(_) if board.all_decided() => Ended::Done,
            e => e,
        }
    })
}
