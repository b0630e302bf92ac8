//! The explicit side of [`super::check`]: a breadth-first search over packed markings
//! ([`saturn_explicit::explore_visiting`]) whose every marking is shown to the questions it can
//! decide, evaluated on the marking itself ([`saturn_ltl::net::eval`]):
//! - `EF φ` / `AG φ` with `φ` free of temporal operators: a `φ`-state (`¬φ`-state) found
//!   decides TRUE (FALSE) at once; a complete exploration decides the others;
//! - a formula free of temporal operators: its value in the initial marking;
//! - UpperBounds: a marking that meets the places' structural bounds (the cap of
//!   `structural_cap`) decides it at once, else the maximum over the markings once the
//!   exploration is complete;
//! - ReachabilityDeadlock (a deadlock found: TRUE), QuasiLiveness (every transition seen
//!   enabled: TRUE), OneSafe (a place with two tokens: FALSE), StableMarking (every place seen
//!   with two counts: FALSE), each decided the other way by a complete exploration;
//! - Liveness only when it fails for a reason a marking shows: a deadlock, or (complete) a
//!   transition never enabled. Proving it needs the strongly connected components.
//!
//! Before the search, random walks from the initial marking ([`walk`]) show their markings
//! to the same questions: a witness of `EF φ` (a counterexample of `AG φ`), a deadlock, a
//! second token may lie deeper than a breadth-first search gets within its memory, and a walk
//! reaches it in milliseconds, as the contest's leading tools find them first. Walks only
//! decide what a reachable marking shows; what needs every marking stays with the search.
//!
//! CTL formulas with nested temporal operators: after the walks, searched on the fly
//! ([`super::local`]), which builds the graph only as far as the formula needs it. The global
//! properties the walks left open get searches of their own first ([`global`]: a deadlock by
//! a search reduced by stubborn sets; a transition enabled, a place changed or holding two
//! tokens, one at a time on the net reduced for it).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use saturn_explicit::Firing;
use saturn_logic::{LinExpr, ResolvedQuery, StateFormula};
use saturn_model::PetriNet;
use saturn_symbolic::{Interrupted, Limits, Progress};

mod global;

use super::guided;
use super::local::Local;
use super::por_reach::{Cut, PorReach};
use super::reduce::{reduce, support_of, Reduced};
use super::simplify::{at_initial, simplify, state_only, walk_targets, Facts};
use super::symbolic::reach_target;
use super::walk::{walk, WALK_STEPS, WALK_TIME};
use super::{state_equation, Board, Item, Question, Technique, Value};

/// What the search keeps for one question.
enum Track {
    /// A target state decides `ef` (EF φ: TRUE; AG φ: FALSE); none at the end decides `!ef`.
    Reach {
        ef: bool,
        target: StateFormula,
    },
    /// A formula without temporal operators: its value in the initial marking.
    Now(StateFormula),
    /// Any other CTL formula: no marking decides it, but the state equation may simplify it
    /// to a constant or to a formula without temporal operators ([`simplify`]).
    Ctl {
        /// The formula, simplified by the state equation (`simplified`: it changed).
        f: StateFormula,
        simplified: bool,
        /// The targets of its top `EF`/`AG` ([`walk_targets`]), and whether a walk met each.
        targets: Vec<(StateFormula, bool)>,
    },
    /// The largest value seen, and a structural cap on every reachable value (places'
    /// bounds times the positive coefficients): a marking that meets the cap decides it.
    Bound {
        expr: LinExpr,
        max: i128,
        cap: Option<i128>,
        /// The cap is the state equation's, below the places' bounds.
        equation: bool,
    },
    Deadlock,
    QuasiLiveness,
    Liveness,
    OneSafe,
    StableMarking,
}

/// The questions the explicit search can decide, by item index.
pub(super) struct Tracks {
    open: Vec<(usize, Track)>,
    /// The state equation runs beside the markings (not for the explicit search alone).
    pub(super) state_equation: bool,
    /// The global properties from the invariants' polytope (`--polytope`, not for the
    /// explicit search alone).
    pub(super) polytope: bool,
}

impl Tracks {
    /// What the search can decide among `items`.
    pub(super) fn new(items: &[Item]) -> Tracks {
        let open = items
            .iter()
            .enumerate()
            .filter_map(|(n, item)| {
                let t = match &item.question {
                    Question::Formula(ResolvedQuery::Formula(f)) if state_only(f) => {
                        Track::Now(f.clone())
                    }
                    Question::Formula(ResolvedQuery::Formula(f)) => match reach_target(f) {
                        Some((ef, target)) if state_only(&target) => Track::Reach { ef, target },
                        _ if f.is_ctl() => Track::Ctl {
                            f: f.clone(),
                            simplified: false,
                            targets: Vec::new(),
                        },
                        _ => return None,
                    },
                    Question::Formula(ResolvedQuery::Bound(e)) => Track::Bound {
                        expr: e.clone(),
                        max: i128::MIN,
                        cap: None,
                        equation: false,
                    },
                    Question::Global(p) => match *p {
                        "ReachabilityDeadlock" => Track::Deadlock,
                        "QuasiLiveness" => Track::QuasiLiveness,
                        "Liveness" => Track::Liveness,
                        "OneSafe" => Track::OneSafe,
                        "StableMarking" => Track::StableMarking,
                        _ => return None,
                    },
                    Question::Unreadable(_) => return None,
                };
                Some((n, t))
            })
            .collect();
        Tracks {
            open,
            state_equation: true,
            polytope: true,
        }
    }

    /// Is some question open that `f` picks?
    fn has(&self, f: fn(&Track) -> bool) -> bool {
        self.open.iter().any(|(_, t)| f(t))
    }

    /// Is there anything to decide?
    pub(super) fn any(&self) -> bool {
        !self.open.is_empty()
    }
}

/// What the search has seen over all markings so far.
struct Seen {
    /// The initial marking.
    m0: Vec<u64>,
    /// Per transition: enabled in some marking seen (kept only when asked).
    enabled: Vec<bool>,
    never_enabled: usize,
    /// Per place: the same count in every marking seen as in the initial one.
    stable: Vec<bool>,
    stable_left: usize,
}

/// Explore `net` within `limits` (and until `stop` says so, or `beyond` says more states are
/// proven reachable than the search can hold: the most it can hold is given), deciding on
/// `board` what the markings decide. `Ok` when the exploration completed; `Err` why it did not.
pub(super) fn run(
    net: &PetriNet,
    mut tracks: Tracks,
    board: &Board,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    beyond: &dyn Fn(u64) -> bool,
    say: &Say,
) -> Result<(), Interrupted> {
    let nt = net.transitions.len();
    let m0 = net.initial_marking();
    let enabled_wanted = tracks.has(|t| matches!(t, Track::QuasiLiveness | Track::Liveness));
    let stable_wanted = tracks.has(|t| matches!(t, Track::StableMarking));
    let mut seen = Seen {
        enabled: vec![false; if enabled_wanted { nt } else { 0 }],
        never_enabled: if enabled_wanted { nt } else { 0 },
        stable: vec![stable_wanted; m0.len()],
        stable_left: if stable_wanted { m0.len() } else { 0 },
        m0,
    };
    let bounds = crate::quick_bounds(net, limits).bounds;
    // the bounds' product caps the markings: below WALK_STEPS the search is as quick
    let few = bounds.iter().try_fold(1u64, |n, b| {
        b.and_then(|b| n.checked_mul(b.saturating_add(1)))
            .filter(|&n| n <= WALK_STEPS)
    });
    // the state equation, beyond a small net (whose search completes at once)
    let incidence = (few.is_none() && tracks.state_equation)
        .then(|| state_equation::Incidence::new(net))
        .flatten()
        .map(|mut inc| {
            inc.bounds.clone_from(&bounds);
            inc
        });
    let mut lp_time = limits.deadline.map_or(EQUATION_TIME, |d| {
        EQUATION_TIME.min(d.saturating_duration_since(Instant::now()) / 8)
    });
    if incidence.is_some() && tracks.has(|t| matches!(t, Track::Bound { .. })) {
        say.say("the state equation's caps on the bounds");
    }
    for (n, t) in &mut tracks.open {
        if let Track::Bound {
            expr,
            cap,
            equation,
            ..
        } = t
        {
            *cap = structural_cap(expr, &bounds);
            let Some(inc) = &incidence else { continue };
            if stop() || board.decided(*n) {
                continue;
            }
            let started = Instant::now();
            let lp = state_equation::bound(inc, expr, lp_time.min(EQUATION_EACH));
            lp_time = lp_time.saturating_sub(started.elapsed());
            if let Some(lp) = lp.filter(|&lp| cap.is_none_or(|c| lp < c)) {
                *cap = Some(lp);
                *equation = true;
            }
        }
    }
    let cfg = saturn_explicit::Config {
        max_bytes: crate::explicit_bytes(limits),
        ..saturn_explicit::Config::default()
    };
    // CTL formulas: simplified by the state equation, then told in the initial marking where
    // it tells them, else given the targets the walks look for
    let started = Instant::now();
    let mut facts = incidence
        .as_ref()
        .map(|inc| Facts::new(net, inc, lp_time / 2, &stop));
    if facts.is_some() && tracks.has(|t| matches!(t, Track::Ctl { .. })) {
        say.say("CTL formulas simplified by the state equation");
    }
    // the places' bounds first, for every formula; then the programs
    for programs in [false, true] {
        let Some(facts) = facts.as_mut() else { break };
        facts.programs = programs;
        for (n, t) in &mut tracks.open {
            if let Track::Ctl { f, simplified, .. } = t {
                if stop() || board.decided(*n) {
                    continue;
                }
                let g = simplify(f, facts);
                *simplified |= g != *f;
                *f = g;
            }
        }
    }
    for (n, t) in &mut tracks.open {
        let Track::Ctl {
            f,
            simplified,
            targets,
        } = t
        else {
            continue;
        };
        if stop() || board.decided(*n) {
            continue;
        }
        let by = if *simplified {
            Technique::StateEquation
        } else {
            Technique::Explicit
        };
        if let Some(v) = at_initial(net, f, &|_| false) {
            board.decide(*n, Value::Bool(v), by);
            continue;
        }
        let mut gs = Vec::new();
        walk_targets(f, &mut gs);
        *targets = gs.into_iter().map(|g| (g, false)).collect();
    }
    drop(facts);
    lp_time = lp_time.saturating_sub(started.elapsed());
    let markings_decide = tracks.open.iter().any(|(n, t)| match t {
        Track::Ctl { targets, .. } => !targets.is_empty() && !board.decided(*n),
        _ => true,
    });
    let mut visit =
        |m: &[u64], dead: bool| show(net, board, &mut tracks, &mut seen, m, dead) || stop();
    let most = saturn_explicit::most_markings(net, &bounds, &cfg);
    let stopped = || stop() || limits.check().is_err() || beyond(most);
    let walk_for = limits.deadline.map_or(WALK_TIME, |d| {
        WALK_TIME.min(d.saturating_duration_since(Instant::now()) / 16)
    });
    if few.is_none() && markings_decide {
        say.say("random walks");
    }
    if few.is_none() && markings_decide && walk(net, walk_for, &stop, &mut visit) {
        return if tracks.open.is_empty() {
            Ok(())
        } else {
            Err(limits.check().err().unwrap_or(Interrupted::Cancelled))
        };
    }
    // what the walks did not reach may be out of reach: the state equation tells, first
    // where the places' bounds alone do (no program: each formula's turn at the programs may
    // never come), then by the programs
    if let Some(inc) = &incidence {
        if tracks.has(|t| matches!(t, Track::Reach { .. })) {
            say.say("the state equation on the reachability targets");
        }
        // each target widened once: the bounds look at it, then the programs
        let mut widened: HashMap<usize, state_equation::Dnf> = HashMap::new();
        tracks.open.retain(|(n, t)| {
            let Track::Reach { ef, target } = t else {
                return true;
            };
            let dnf = state_equation::widen(net, target, false);
            if dnf
                .iter()
                .all(|rows| state_equation::outside(rows, &inc.bounds))
            {
                board.decide(*n, Value::Bool(!*ef), Technique::StateEquation);
            }
            let open = !board.decided(*n);
            if open {
                widened.insert(*n, dnf);
            }
            open
        });
        tracks.open.retain(|(n, t)| {
            let Track::Reach { ef, target } = t else {
                return true;
            };
            let Some(dnf) = widened.get(n) else {
                return true;
            };
            if stop() || board.decided(*n) || lp_time.is_zero() {
                return !board.decided(*n);
            }
            let started = Instant::now();
            let time = lp_time.min(EQUATION_EACH);
            let stop_this = || stop() || board.decided(*n);
            // out of reach by the relaxation, or reached by a walk its solution guides
            match guided::decide(net, inc, target, dnf, time, &stop_this, &mut |_| {}) {
                Some(false) => {
                    board.decide(*n, Value::Bool(!*ef), Technique::StateEquation);
                }
                Some(true) => {
                    board.decide(*n, Value::Bool(*ef), Technique::GuidedWalk);
                }
                None => {}
            }
            lp_time = lp_time.saturating_sub(started.elapsed());
            !board.decided(*n)
        });
    }
    // the reachability formulas one at a time, by the reduced search; the UpperBounds one at
    // a time on the net reduced for their places
    if few.is_none() {
        reduced_searches(net, &tracks, board, limits, stop, say);
        reduced_bounds(net, &tracks, board, limits, stop, say);
        let inc = incidence.as_ref().filter(|_| tracks.state_equation);
        global::global_searches(
            net, &tracks, &mut seen, &bounds, inc, board, limits, stop, say,
        );
        tracks.open.retain(|(n, _)| !board.decided(*n));
        if tracks.open.is_empty() {
            return Ok(());
        }
    }
    // the other CTL formulas by on-the-fly search; no marking decides them
    on_the_fly(net, &tracks, board, limits, stop, say);
    tracks.open.retain(|(_, t)| !matches!(t, Track::Ctl { .. }));
    if tracks.open.is_empty() {
        return Ok(());
    }
    let mut visit =
        |m: &[u64], dead: bool| show(net, board, &mut tracks, &mut seen, m, dead) || stop();
    say.say("breadth-first search");
    let got = saturn_explicit::explore_visiting(
        net,
        &bounds,
        &cfg,
        &stopped,
        &mut |msg| say.say(msg),
        &mut visit,
    );
    match got {
        Ok(_) => {}
        // every question it could decide is decided
        Err(saturn_explicit::GaveUp::Stopped) if tracks.open.is_empty() => return Ok(()),
        Err(saturn_explicit::GaveUp::Stopped) => {
            return Err(limits.check().err().unwrap_or(Interrupted::Cancelled))
        }
        Err(saturn_explicit::GaveUp::Overflow) => return Err(Interrupted::IndexTooLarge),
        Err(_) => return Err(Interrupted::Memory),
    }
    // complete: every reachable marking was seen
    for (n, t) in tracks.open {
        let v = match t {
            Track::Reach { ef, .. } => Value::Bool(!ef),
            // decided at the first marking
            Track::Now(_) | Track::Ctl { .. } => continue,
            Track::Bound { max, .. } => Value::Bound(max),
            Track::Deadlock => Value::Bool(false),
            Track::QuasiLiveness => Value::Bool(false),
            Track::Liveness if seen.never_enabled > 0 => Value::Bool(false),
            Track::Liveness => continue,
            Track::OneSafe => Value::Bool(true),
            Track::StableMarking => Value::Bool(seen.stable_left > 0),
        };
        board.decide(n, v, Technique::Explicit);
    }
    Ok(())
}

/// Decide the open CTL formulas of `tracks` by on-the-fly search ([`Local`]) within the
/// explicit search's memory: two rounds, the first with half the time left shared equally
/// among them, the second with the rest shared among those left (the graph and what the
/// searches learnt carry over). When other questions wait for the breadth-first search, a
/// third of the time is left to it.
fn on_the_fly(
    net: &PetriNet,
    tracks: &Tracks,
    board: &Board,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    say: &Say,
) {
    let mut ctl: Vec<(usize, &StateFormula, bool)> = tracks
        .open
        .iter()
        .filter_map(|(n, t)| match t {
            Track::Ctl { f, simplified, .. } if !board.decided(*n) => Some((*n, f, *simplified)),
            _ => None,
        })
        .collect();
    if ctl.is_empty() || stop() {
        return;
    }
    let others = tracks
        .open
        .iter()
        .any(|(n, t)| !matches!(t, Track::Ctl { .. }) && !board.decided(*n));
    let now = Instant::now();
    let end = match limits.deadline {
        Some(d) if others => now + d.saturating_duration_since(now) * 2 / 3,
        Some(d) => d,
        None => now + LOCAL_TIME * ctl.len() as u32,
    };
    let Some(mut local) = Local::new(net, crate::explicit_bytes(limits)) else {
        return;
    };
    in_rounds(
        &mut ctl,
        end,
        board,
        stop,
        |c| c.0,
        |&(n, f, simplified), until, stop_this| {
            say.say(&format!("question {} by on-the-fly CTL search", n + 1));
            match local.check(f, until, stop_this) {
                Some(Ok(v)) => {
                    let by = if simplified {
                        Technique::StateEquation
                    } else {
                        Technique::Explicit
                    };
                    board.decide(n, Value::Bool(v), by);
                    false
                }
                Some(Err(_)) => true,
                None => false,
            }
        },
    );
}

/// Run `run` on the items of `open` (each deciding item `n(item)` of the board) in two rounds
/// of time shares until `end`: the first gives each an equal share of half the time left,
/// the second shares the rest among those left. `run(item, until, stop)` says whether the item
/// stays open; an item decided meanwhile (by the other side of the race) leaves.
fn in_rounds<T>(
    open: &mut Vec<T>,
    end: Instant,
    board: &Board,
    stop: &dyn Fn() -> bool,
    n: impl Fn(&T) -> usize,
    mut run: impl FnMut(&T, Instant, &dyn Fn() -> bool) -> bool,
) {
    for round in [2, 1] {
        let mut left = open.len() as u32;
        open.retain(|item| {
            let k = n(item);
            let now = Instant::now();
            let slice = end.saturating_duration_since(now) / (round * left);
            left -= 1;
            if stop() || board.decided(k) || slice.is_zero() {
                return !board.decided(k);
            }
            let stop_this = || stop() || board.decided(k);
            run(item, now + slice, &stop_this)
        });
    }
}

/// Decide the open reachability formulas of `tracks` one at a time by the depth-first search
/// reduced by stubborn sets ([`PorReach`]): two rounds, the first with half of a third of the
/// time left shared equally among them, the second with the rest of that third shared among
/// those left; the breadth-first search after it keeps the other two thirds (it decides every
/// formula at once when it completes). A formula to which every transition is visible is left
/// to it at once.
fn reduced_searches(
    net: &PetriNet,
    tracks: &Tracks,
    board: &Board,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    say: &Say,
) {
    let mut open: Vec<(usize, bool, &StateFormula)> = tracks
        .open
        .iter()
        .filter_map(|(n, t)| match t {
            Track::Reach { ef, target } if !board.decided(*n) => Some((*n, *ef, target)),
            _ => None,
        })
        .collect();
    if open.is_empty() || stop() {
        return;
    }
    let end = phase_end(limits, 3, open.len());
    let firing = Firing::new(net);
    let mut search = PorReach::new(net, &firing);
    let bytes = crate::explicit_bytes(limits);
    // each formula's net reduced for it, where a rule applies
    let mut reduced: HashMap<usize, (Reduced, Firing)> = HashMap::new();
    for &(n, _, target) in &open {
        if stop() {
            return;
        }
        if let Some(r) = reduce(net, target, stop) {
            let f = Firing::new(&r.net);
            reduced.insert(n, (r, f));
        }
    }
    // on a reduced net, the walks and the state equation first (once)
    let mut tried = HashSet::new();
    in_rounds(
        &mut open,
        end,
        board,
        stop,
        |o| o.0,
        |&(n, ef, target), until, stop_this| {
            let (found, by) = match reduced.get(&n) {
                Some((r, _)) if matches!(r.target, StateFormula::Const(_)) => {
                    // the target folded to a constant: reachable at once, or never
                    (
                        Ok(r.target == StateFormula::Const(true)),
                        Technique::Reduction,
                    )
                }
                Some((r, firing)) => {
                    say.say(&format!(
                        "question {} on the net reduced to {} places and {} transitions",
                        n + 1,
                        r.net.places.len(),
                        r.net.transitions.len()
                    ));
                    let first = tried.insert(n);
                    if first {
                        let equation = tracks.state_equation;
                        if let Some(v) = reduced_first(r, ef, until, limits, equation, stop_this) {
                            board.decide(n, Value::Bool(v), Technique::Reduction);
                            return false;
                        }
                    }
                    (
                        PorReach::new(&r.net, firing)
                            .reachable(&r.target, bytes, until, stop_this, true),
                        Technique::Reduction,
                    )
                }
                None => (
                    {
                        say.say(&format!(
                            "question {} by a search with stubborn sets",
                            n + 1
                        ));
                        search.reachable(target, bytes, until, stop_this, false)
                    },
                    Technique::PartialOrder,
                ),
            };
            match found {
                Ok(found) => {
                    // EF φ: TRUE when found; AG φ (its target ¬φ): FALSE when found
                    board.decide(n, Value::Bool(found == ef), by);
                    false
                }
                Err(Cut::Time) => true,
                // the breadth-first search does better on these
                Err(Cut::Useless | Cut::Memory) => false,
            }
        },
    );
}

/// Decide the open UpperBounds of `tracks` one at a time by a breadth-first search of the net
/// reduced for the expression's places ([`reduce`] keeps the reachable markings projected on
/// them, so the reduced search's largest value is the bound): a complete search decides it,
/// and so does a value that meets the structural or state-equation cap. Two rounds of time
/// shares in a quarter of the time left; an expression no rule reduces for is left to the
/// breadth-first search of the whole net.
fn reduced_bounds(
    net: &PetriNet,
    tracks: &Tracks,
    board: &Board,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    say: &Say,
) {
    let mut open: Vec<(usize, &LinExpr, i128, Option<i128>)> = tracks
        .open
        .iter()
        .filter_map(|(n, t)| match t {
            Track::Bound { expr, max, cap, .. } if !board.decided(*n) => {
                Some((*n, expr, *max, *cap))
            }
            _ => None,
        })
        .collect();
    if open.is_empty() || stop() {
        return;
    }
    let end = phase_end(limits, 4, open.len());
    let cfg = saturn_explicit::Config {
        max_bytes: crate::explicit_bytes(limits),
        ..saturn_explicit::Config::default()
    };
    in_rounds(
        &mut open,
        end,
        board,
        stop,
        |o| o.0,
        |&(n, expr, max, cap), until, stop_this| {
            let Some(r) = reduce(net, &support_of(expr), stop_this) else {
                return false;
            };
            // the expression over the reduced places, with the removed constants' share
            let Some(e) = r.expr_of(expr) else {
                return false;
            };
            if e.terms.is_empty() {
                // the places it reads are constant
                board.decide(
                    n,
                    Value::Bound(i128::from(e.constant)),
                    Technique::Reduction,
                );
                return false;
            }
            say.say(&format!(
                "bound {} on the net reduced to {} places and {} transitions",
                n + 1,
                r.net.places.len(),
                r.net.transitions.len()
            ));
            let bounds = crate::quick_bounds(&r.net, limits).bounds;
            let mut best = max;
            let mut met = false;
            let stopped = || stop_this() || Instant::now() >= until;
            let mut visit = |m: &[u64], _dead: bool| {
                best = best.max(e.eval(m));
                met = cap == Some(best);
                met
            };
            let got = saturn_explicit::explore_visiting(
                &r.net,
                &bounds,
                &cfg,
                &stopped,
                &mut |_| {},
                &mut visit,
            );
            match got {
                Ok(_) => {}
                Err(_) if met => {}
                Err(saturn_explicit::GaveUp::Stopped) => return true,
                Err(_) => return false,
            }
            board.decide(n, Value::Bound(best), Technique::Reduction);
            false
        },
    );
}

/// The quick tries on a net reduced for a reachability target: random walks (a marking of the
/// target: `EF` true, `AG` false), then, with `equation`, the state equation of the reduced net
/// (no marking of the target: `EF` false, `AG` true), each within a share of the time until `until`. The
/// answer of `EF φ` (`ef`) or `AG ¬φ`, when one decides it.
fn reduced_first(
    r: &Reduced,
    ef: bool,
    until: Instant,
    limits: &Limits,
    equation: bool,
    stop: &dyn Fn() -> bool,
) -> Option<bool> {
    let share = until.saturating_duration_since(Instant::now()) / 4;
    let target = &r.target;
    let mut visit = |m: &[u64], _dead: bool| saturn_ltl::net::eval(&r.net, target, m);
    if walk(&r.net, share.min(WALK_TIME), stop, &mut visit) {
        return Some(ef);
    }
    if !equation {
        return None;
    }
    let mut inc = state_equation::Incidence::new(&r.net)?;
    inc.bounds = crate::quick_bounds(&r.net, limits).bounds;
    let dnf = state_equation::widen(&r.net, target, false);
    let time = until.saturating_duration_since(Instant::now()) / 3;
    state_equation::unreachable(&inc, &dnf, time.min(EQUATION_EACH), stop).then_some(!ef)
}

/// The explicit side's progress line (the caller's callback, each message marked as this
/// side's).
pub(super) struct Say(Option<Mutex<Progress>>);

impl Say {
    pub(super) fn new(progress: Option<Progress>) -> Say {
        Say(progress.map(Mutex::new))
    }

    fn say(&self, msg: &str) {
        if let Some(Ok(mut p)) = self.0.as_ref().map(Mutex::lock) {
            p(&format!("explicit side: {msg}"));
        }
    }
}

/// The end of a phase of one question at a time given `1/part` of the time left ([`POR_TIME`]
/// per question without a deadline).
fn phase_end(limits: &Limits, part: u32, questions: usize) -> Instant {
    let now = Instant::now();
    match limits.deadline {
        Some(d) => now + d.saturating_duration_since(now) / part,
        None => now + POR_TIME * questions as u32,
    }
}

/// Without a deadline, the time [`reduced_searches`] gives each formula.
const POR_TIME: Duration = Duration::from_secs(5);

/// Without a deadline, the time [`on_the_fly`] gives each formula.
const LOCAL_TIME: Duration = Duration::from_secs(10);

/// Show marking `m` (a deadlock when `dead`) to the open questions of `tracks`, deciding on
/// `board` what it decides; `true` once none is left open.
fn show(
    net: &PetriNet,
    board: &Board,
    tracks: &mut Tracks,
    seen: &mut Seen,
    m: &[u64],
    dead: bool,
) -> bool {
    let nt = net.transitions.len();
    seen.update(net, m);
    tracks.open.retain_mut(|(n, t)| {
        if board.decided(*n) {
            return false;
        }
        let decided = match t {
            Track::Reach { ef, target } => {
                saturn_ltl::net::eval(net, target, m).then_some(Value::Bool(*ef))
            }
            Track::Now(f) => Some(Value::Bool(saturn_ltl::net::eval(net, f, m))),
            Track::Ctl {
                f,
                simplified,
                targets,
            } => {
                let mut met = false;
                for (g, found) in targets.iter_mut() {
                    if !*found && saturn_ltl::net::eval(net, g, m) {
                        *found = true;
                        met = true;
                    }
                }
                let walked = |g: &StateFormula| targets.iter().any(|(h, found)| *found && h == g);
                match met.then(|| at_initial(net, f, &walked)).flatten() {
                    Some(v) => {
                        let by = if *simplified {
                            Technique::StateEquation
                        } else {
                            Technique::Explicit
                        };
                        board.decide(*n, Value::Bool(v), by);
                        return false;
                    }
                    None => None,
                }
            }
            Track::Bound {
                expr,
                max,
                cap,
                equation,
            } => {
                *max = (*max).max(expr.eval(m));
                if *cap == Some(*max) {
                    let by = if *equation {
                        Technique::StateEquation
                    } else {
                        Technique::Explicit
                    };
                    board.decide(*n, Value::Bound(*max), by);
                    return false;
                }
                None
            }
            Track::Deadlock => dead.then_some(Value::Bool(true)),
            Track::QuasiLiveness => (seen.never_enabled == 0).then_some(Value::Bool(true)),
            Track::Liveness => (dead && nt > 0).then_some(Value::Bool(false)),
            Track::OneSafe => m.iter().any(|&v| v > 1).then_some(Value::Bool(false)),
            Track::StableMarking => (seen.stable_left == 0).then_some(Value::Bool(false)),
        };
        match decided {
            Some(v) => {
                board.decide(*n, v, Technique::Explicit);
                false
            }
            None => true,
        }
    });
    tracks.open.is_empty()
}

/// An upper bound of `expr` over every marking within the places' `bounds`: its constant plus
/// each positive coefficient times its place's bound (token counts are never negative), `None`
/// when such a place has no bound.
fn structural_cap(expr: &LinExpr, bounds: &[Option<u64>]) -> Option<i128> {
    expr.terms.iter().filter(|&&(_, c)| c > 0).try_fold(
        i128::from(expr.constant),
        |acc, &(p, c)| {
            let b = bounds.get(p).copied().flatten()?;
            acc.checked_add(i128::from(c).checked_mul(i128::from(b))?)
        },
    )
}

/// The longest the state equation's programs take in all (less when the time left is short:
/// an eighth of it), and for one question.
const EQUATION_TIME: Duration = Duration::from_secs(16);
const EQUATION_EACH: Duration = Duration::from_secs(4);

impl Seen {
    /// Account for marking `m`.
    fn update(&mut self, net: &PetriNet, m: &[u64]) {
        if self.never_enabled > 0 {
            for (t, e) in self.enabled.iter_mut().enumerate() {
                if !*e && net.enabled(t, m) {
                    *e = true;
                    self.never_enabled -= 1;
                }
            }
        }
        if self.stable_left > 0 {
            for (p, s) in self.stable.iter_mut().enumerate() {
                if *s && m[p] != self.m0[p] {
                    *s = false;
                    self.stable_left -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_structural_cap_takes_the_positive_coefficients_bounds() {
        let expr = |terms: Vec<(usize, i64)>, constant| LinExpr { terms, constant };
        let bounds = [Some(3), None, Some(5)];
        assert_eq!(
            structural_cap(&expr(vec![(0, 2), (2, 1)], 1), &bounds),
            Some(12)
        );
        // a negative coefficient counts as zero tokens; an unbounded place gives no cap
        assert_eq!(
            structural_cap(&expr(vec![(0, 1), (1, -4)], 0), &bounds),
            Some(3)
        );
        assert_eq!(structural_cap(&expr(vec![(1, 1)], 0), &bounds), None);
    }
}
