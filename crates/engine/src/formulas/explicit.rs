//! The explicit side of [`super::check`]: a breadth-first search over packed markings
//! ([`saturn_explicit::explore_visiting`]) whose every marking is shown to the questions it can
//! decide, evaluated on the marking itself ([`saturn_ltl::net::eval`]):
//! - `EF φ` / `AG φ` with `φ` free of temporal operators: a `φ`-state (`¬φ`-state) found
//!   decides TRUE (FALSE) at once; a complete exploration decides the others;
//! - a formula free of temporal operators: its value in the initial marking;
//! - UpperBounds: the maximum over the markings, once the exploration is complete;
//! - ReachabilityDeadlock (a deadlock found: TRUE), QuasiLiveness (every transition seen
//!   enabled: TRUE), OneSafe (a place with two tokens: FALSE), StableMarking (every place seen
//!   with two counts: FALSE), each decided the other way by a complete exploration;
//! - Liveness only when it fails for a reason a marking shows: a deadlock, or (complete) a
//!   transition never enabled. Proving it needs the strongly connected components.
//!
//! CTL formulas with nested temporal operators stay with the symbolic side.

use saturn_logic::{LinExpr, ResolvedQuery, StateFormula};
use saturn_model::PetriNet;
use saturn_symbolic::{Interrupted, Limits};

use super::symbolic::reach_target;
use super::{Board, Item, Question, Technique, Value};

/// What the search keeps for one question.
enum Track {
    /// A target state decides `ef` (EF φ: TRUE; AG φ: FALSE); none at the end decides `!ef`.
    Reach {
        ef: bool,
        target: StateFormula,
    },
    /// A formula without temporal operators: its value in the initial marking.
    Now(StateFormula),
    /// The largest value seen.
    Bound {
        expr: LinExpr,
        max: i128,
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
}

/// Does `f` have no temporal operator?
fn state_only(f: &StateFormula) -> bool {
    use StateFormula as S;
    match f {
        S::Const(_) | S::Deadlock | S::Atom(_) | S::Enabled(_) => true,
        S::Not(a) => state_only(a),
        S::And(v) | S::Or(v) => v.iter().all(state_only),
        S::Implies(a, b) | S::Iff(a, b) => state_only(a) && state_only(b),
        _ => false,
    }
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
                        _ => return None,
                    },
                    Question::Formula(ResolvedQuery::Bound(e)) => Track::Bound {
                        expr: e.clone(),
                        max: i128::MIN,
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
        Tracks { open }
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
) -> Result<(), Interrupted> {
    let nt = net.transitions.len();
    let m0 = net.initial_marking();
    let wants = |f: fn(&Track) -> bool| tracks.open.iter().any(|(_, t)| f(t));
    let enabled_wanted = wants(|t| matches!(t, Track::QuasiLiveness | Track::Liveness));
    let stable_wanted = wants(|t| matches!(t, Track::StableMarking));
    let mut seen = Seen {
        enabled: vec![false; if enabled_wanted { nt } else { 0 }],
        never_enabled: if enabled_wanted { nt } else { 0 },
        stable: vec![stable_wanted; m0.len()],
        stable_left: if stable_wanted { m0.len() } else { 0 },
        m0,
    };
    let bounds = crate::quick_bounds(net, limits).bounds;
    let cfg = saturn_explicit::Config {
        max_bytes: crate::explicit_bytes(limits),
        ..saturn_explicit::Config::default()
    };
    let mut visit = |m: &[u64], dead: bool| -> bool {
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
                Track::Bound { expr, max } => {
                    *max = (*max).max(expr.eval(m));
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
        tracks.open.is_empty() || stop()
    };
    let most = saturn_explicit::most_markings(net, &bounds, &cfg);
    let stopped = || stop() || limits.check().is_err() || beyond(most);
    let got =
        saturn_explicit::explore_visiting(net, &bounds, &cfg, &stopped, &mut |_| {}, &mut visit);
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
            Track::Now(_) => continue,
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
