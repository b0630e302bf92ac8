//! The global properties by searches of their own, after the walks and before the
//! breadth-first search of the whole net, as LoLA and TAPAAL answer them:
//! - ReachabilityDeadlock: the depth-first search reduced by stubborn sets with the deadlock as
//!   its target ([`PorReach`]; every stubborn set keeps every reachable deadlock, so no
//!   transition is visible and the reduction is the largest): a deadlock found decides TRUE
//!   (and Liveness FALSE), a complete reduced search FALSE;
//! - QuasiLiveness: each transition no marking seen so far enables, one at a time: the state
//!   equation first (no marking that enables it satisfies the relaxation: the transition is
//!   dead, QuasiLiveness and Liveness are FALSE), then the reduced search for a marking that
//!   enables it, on the net reduced structurally for its input places where a rule applies
//!   ([`reduce`]); every transition found enabled decides TRUE, one shown never enabled FALSE;
//! - StableMarking: a place that no transition changes (a constant place, as the structural
//!   reductions find them) decides TRUE at once.

use std::time::Instant;

use saturn_explicit::Firing;
use saturn_logic::StateFormula;
use saturn_model::PetriNet;
use saturn_symbolic::Limits;

use super::super::por_reach::{Cut, PorReach};
use super::super::reduce::reduce;
use super::super::state_equation::{self, Incidence};
use super::{in_rounds, phase_end, Board, Say, Seen, Technique, Track, Tracks, Value};

/// The board indices of the open global properties.
#[derive(Default)]
struct Open {
    deadlock: Option<usize>,
    quasi_liveness: Option<usize>,
    liveness: Option<usize>,
    stable: Option<usize>,
}

impl Open {
    fn of(tracks: &Tracks, board: &Board) -> Open {
        let mut o = Open::default();
        for (n, t) in &tracks.open {
            if board.decided(*n) {
                continue;
            }
            match t {
                Track::Deadlock => o.deadlock = Some(*n),
                Track::QuasiLiveness => o.quasi_liveness = Some(*n),
                Track::Liveness => o.liveness = Some(*n),
                Track::StableMarking => o.stable = Some(*n),
                _ => {}
            }
        }
        o
    }
}

/// What the searches share.
struct Ctx<'a, 'b> {
    net: &'a PetriNet,
    board: &'a Board<'b>,
    limits: &'a Limits,
    stop: &'a dyn Fn() -> bool,
    say: &'a Say,
    open: Open,
}

/// Decide what the searches of the module documentation decide among the open global
/// properties of `tracks`: the deadlock search within a sixth of the time left, the
/// transitions never seen enabled within a quarter of the rest; `seen` is what the walks saw
/// (the transitions they found enabled are not searched again).
#[allow(clippy::too_many_arguments)]
pub(super) fn global_searches(
    net: &PetriNet,
    tracks: &Tracks,
    seen: &mut Seen,
    incidence: Option<&Incidence>,
    board: &Board,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    say: &Say,
) {
    let open = Open::of(tracks, board);
    let nt = net.transitions.len();
    if let Some(n) = open.stable {
        let constant = (0..net.places.len()).find(|&p| {
            net.transitions.iter().all(|t| {
                let take: u64 = t
                    .inputs
                    .iter()
                    .filter(|a| a.place == p)
                    .map(|a| a.weight)
                    .sum();
                let give: u64 = t
                    .outputs
                    .iter()
                    .filter(|a| a.place == p)
                    .map(|a| a.weight)
                    .sum();
                take == give
            })
        });
        if constant.is_some() {
            // a constant place, as the structural reductions find them ([`reduce`])
            board.decide(n, Value::Bool(true), Technique::Reduction);
        }
    }
    let deadlock = open.deadlock.or(open.liveness.filter(|_| nt > 0));
    if deadlock.is_some() && !stop() {
        let end = phase_end(limits, 6, 1);
        let done = || {
            open.deadlock.is_none_or(|n| board.decided(n))
                && open.liveness.is_none_or(|n| board.decided(n))
        };
        let stop_this = || stop() || done();
        say.say("a deadlock by a search with stubborn sets");
        let firing = Firing::new(net);
        let bytes = crate::explicit_bytes(limits);
        let found = PorReach::new(net, &firing).reachable(
            &StateFormula::Deadlock,
            bytes,
            end,
            &stop_this,
            true,
        );
        match found {
            Ok(true) => {
                if let Some(n) = open.deadlock {
                    board.decide(n, Value::Bool(true), Technique::PartialOrder);
                }
                if let Some(n) = open.liveness.filter(|_| nt > 0) {
                    board.decide(n, Value::Bool(false), Technique::PartialOrder);
                }
            }
            Ok(false) => {
                if let Some(n) = open.deadlock {
                    board.decide(n, Value::Bool(false), Technique::PartialOrder);
                }
            }
            Err(_) => {}
        }
    }
    let key = open.quasi_liveness.or(open.liveness);
    if let Some(key) = key.filter(|_| seen.never_enabled > 0 && !stop()) {
        let cx = Ctx {
            net,
            board,
            limits,
            stop,
            say,
            open,
        };
        never_enabled(&cx, key, seen, incidence);
    }
}

/// The transitions no marking has shown enabled, one at a time (see the module
/// documentation); `key` is the board index whose decision ends the work.
fn never_enabled(cx: &Ctx, key: usize, seen: &mut Seen, incidence: Option<&Incidence>) {
    let Ctx {
        net,
        board,
        limits,
        stop,
        say,
        ref open,
    } = *cx;
    let dead = |by: Technique| {
        for n in [open.quasi_liveness, open.liveness].into_iter().flatten() {
            board.decide(n, Value::Bool(false), by);
        }
    };
    let mut left: Vec<usize> = (0..net.transitions.len())
        .filter(|&t| !seen.enabled[t])
        .collect();
    let end = phase_end(limits, 4, left.len());
    if let Some(inc) = incidence {
        say.say(&format!(
            "the state equation on {} transitions never seen enabled",
            left.len()
        ));
        // a share of the phase for the programs, a few seconds at most
        let share = end.saturating_duration_since(Instant::now()) / 3;
        let until = Instant::now() + share.min(super::EQUATION_TIME);
        for &t in &left {
            if stop() || board.decided(key) || Instant::now() >= until {
                break;
            }
            let dnf = state_equation::widen(net, &StateFormula::Enabled(vec![t]), false);
            let time = until
                .saturating_duration_since(Instant::now())
                .min(super::EQUATION_EACH);
            if state_equation::unreachable(inc, &dnf, time, &|| stop() || board.decided(key)) {
                dead(Technique::StateEquation);
                return;
            }
        }
    }
    let bytes = crate::explicit_bytes(limits);
    let firing = Firing::new(net);
    in_rounds(
        &mut left,
        end,
        board,
        stop,
        |_| key,
        |&t, until, stop_this| {
            if seen.enabled[t] {
                return false;
            }
            let target = StateFormula::Enabled(vec![t]);
            let mut by = Technique::Reduction;
            let found = match reduce(net, &target, stop_this) {
                Some(r) if matches!(r.target, StateFormula::Const(_)) => {
                    Ok(r.target == StateFormula::Const(true))
                }
                Some(r) => {
                    say.say(&format!(
                        "transition {} on the net reduced to {} places and {} transitions",
                        net.transitions[t].id,
                        r.net.places.len(),
                        r.net.transitions.len()
                    ));
                    let f = Firing::new(&r.net);
                    PorReach::new(&r.net, &f).reachable(&r.target, bytes, until, stop_this, true)
                }
                None => {
                    by = Technique::PartialOrder;
                    say.say(&format!(
                        "transition {} by a search with stubborn sets",
                        net.transitions[t].id
                    ));
                    PorReach::new(net, &firing).reachable(&target, bytes, until, stop_this, true)
                }
            };
            match found {
                Ok(true) => {
                    seen.enabled[t] = true;
                    seen.never_enabled -= 1;
                    if seen.never_enabled == 0 {
                        if let Some(n) = open.quasi_liveness {
                            board.decide(n, Value::Bool(true), by);
                        }
                    }
                    false
                }
                Ok(false) => {
                    dead(by);
                    false
                }
                Err(Cut::Time) => true,
                Err(Cut::Useless | Cut::Memory) => false,
            }
        },
    );
}
