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
//!   reductions find them) decides TRUE at once;
//! - on a wide net whose state space is its invariants' polytope, strongly connected (both
//!   proved by rankings, [`Polytope::liveness`]), ReachabilityDeadlock, QuasiLiveness and
//!   Liveness at once, before the searches.

use std::collections::HashMap;
use std::time::Instant;

use saturn_explicit::Firing;
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
use saturn_model::PetriNet;
use saturn_symbolic::Limits;

use super::super::guided;
use super::super::por_reach::{Cut, PorReach};
use super::super::reduce::{moved_places, reduce, Reduced};
use super::super::state_equation::{self, Incidence};
use super::{in_rounds, phase_end, Board, Say, Seen, Technique, Track, Tracks, Value};
use crate::polytope::Polytope;

/// The board indices of the open global properties.
#[derive(Default)]
struct Open {
    deadlock: Option<usize>,
    quasi_liveness: Option<usize>,
    liveness: Option<usize>,
    stable: Option<usize>,
    one_safe: Option<usize>,
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
                Track::OneSafe => o.one_safe = Some(*n),
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
/// properties of `tracks`: the deadlock search within a sixth of the time left, then for
/// each kind of [`each_target`] half of the rest; `seen` is what the walks saw
/// (the transitions they found enabled are not searched again).
#[allow(clippy::too_many_arguments)]
pub(super) fn global_searches(
    net: &PetriNet,
    tracks: &Tracks,
    seen: &mut Seen,
    bounds: &[Option<u64>],
    incidence: Option<&Incidence>,
    board: &Board,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    say: &Say,
) {
    let open = Open::of(tracks, board);
    let nt = net.transitions.len();
    if let Some(n) = open.stable {
        let constant = moved_places(net).iter().any(|moved| !moved);
        if constant {
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
    // after the deadlock search, which is often quick and decides Liveness too when it finds
    // one; not for QuasiLiveness alone, which the state equation and the searches below decide
    // at less cost (PhaseVariation-PT-D30CS100: 7 s, against 22 s with a polytope first that
    // proves nothing)
    let open = Open::of(tracks, board);
    if tracks.polytope && nt > 0 && open.liveness.or(open.deadlock).is_some() && !stop() {
        by_polytope(net, bounds, board, &open, limits, stop, say);
    }
    let cx = Ctx {
        net,
        board,
        limits,
        stop,
        say,
        open: Open::of(tracks, board),
    };
    for kind in [Kind::Enabled, Kind::Changes, Kind::TwoTokens] {
        let Some(key) = kind.key(&cx.open) else {
            continue;
        };
        if stop() || board.decided(key) {
            continue;
        }
        let items: Vec<usize> = match kind {
            Kind::Enabled => (0..nt).filter(|&t| !seen.enabled[t]).collect(),
            Kind::Changes => (0..net.places.len()).filter(|&p| seen.stable[p]).collect(),
            Kind::TwoTokens => (0..net.places.len())
                .filter(|&p| bounds[p].is_none_or(|b| b > 1))
                .collect(),
        };
        if items.is_empty() {
            // every place bounded by one: the structural bounds (of the P-semiflows) tell
            // OneSafe, with the state equation's other answers (the explicit search alone
            // gives none); the others are decided by the markings seen
            if kind == Kind::TwoTokens && incidence.is_some() {
                board.decide(key, Value::Bool(true), Technique::StateEquation);
            }
            continue;
        }
        each_target(&cx, kind, key, items, seen, incidence);
    }
}

/// ReachabilityDeadlock, QuasiLiveness and Liveness at once when the net's state space is its
/// invariants' polytope and strongly connected, both proved by rankings
/// ([`Polytope::liveness`]; wide nets only, within a quarter of the time left), as
/// RobotManipulation-PT-00500's 5.8e21 markings are.
fn by_polytope(
    net: &PetriNet,
    bounds: &[Option<u64>],
    board: &Board,
    open: &Open,
    limits: &Limits,
    stop: &dyn Fn() -> bool,
    say: &Say,
) {
    let Some(polytope) = Polytope::over(net, bounds, limits) else {
        return;
    };
    say.say("the polytope and its reverse");
    let within = Limits {
        deadline: Some(phase_end(limits, 4, 1)),
        ..*limits
    };
    let Some(facts) = polytope.liveness(&within, stop) else {
        return;
    };
    let quasi_live = facts.quasi_live.iter().all(|&q| q);
    for (n, v) in [
        (open.deadlock, facts.deadlock),
        (open.quasi_liveness, quasi_live),
        (open.liveness, facts.live),
    ] {
        if let Some(n) = n {
            board.decide(n, Value::Bool(v), Technique::Polytope);
        }
    }
}

/// The global properties decided one item (a transition, a place) at a time.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// QuasiLiveness (and Liveness): a transition enabled in some reachable marking; one that
    /// never is refutes both.
    Enabled,
    /// StableMarking: a place whose count changes in some reachable marking; one that never
    /// changes proves it.
    Changes,
    /// OneSafe: a place with two tokens in some reachable marking refutes it; every place
    /// shown below two proves it.
    TwoTokens,
}

impl Kind {
    /// The board index whose decision ends the work.
    fn key(self, open: &Open) -> Option<usize> {
        match self {
            Kind::Enabled => open.quasi_liveness.or(open.liveness),
            Kind::Changes => open.stable,
            Kind::TwoTokens => open.one_safe,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Enabled => "transition",
            Kind::Changes | Kind::TwoTokens => "place",
        }
    }

    /// The target whose reachable markings decide item `i`.
    fn target(self, net: &PetriNet, i: usize) -> StateFormula {
        let atom = |op, bound| {
            StateFormula::Atom(Atom {
                lhs: LinExpr {
                    terms: vec![(i, 1)],
                    constant: 0,
                },
                op,
                bound,
            })
        };
        match self {
            Kind::Enabled => StateFormula::Enabled(vec![i]),
            Kind::Changes => atom(CmpOp::Ne, net.places[i].initial as i64),
            Kind::TwoTokens => atom(CmpOp::Ge, 2),
        }
    }
}

/// For each of `items` of `kind` until `key` is decided (see the module documentation): the
/// state equation first, on each item in turn (its target out of reach), within a third of
/// the phase; then a search for its target, reduced by stubborn sets on the net reduced for
/// it, in two rounds of time shares. The phase has half the time left (a quarter left too
/// few of DES-PT-60b's 40-odd transitions time to be found enabled).
fn each_target(
    cx: &Ctx,
    kind: Kind,
    key: usize,
    mut items: Vec<usize>,
    seen: &mut Seen,
    incidence: Option<&Incidence>,
) {
    let Ctx {
        net,
        board,
        limits,
        stop,
        say,
        ref open,
    } = *cx;
    // told: the target of item `i` is reachable (or not), as shown by `by`
    let mut left = items.len();
    let mut tell = |seen: &mut Seen, i: usize, reachable: bool, by: Technique| {
        let decide = |n: Option<usize>, v: bool| {
            if let Some(n) = n {
                board.decide(n, Value::Bool(v), by);
            }
        };
        match (kind, reachable) {
            (Kind::Enabled, true) => {
                if !seen.enabled[i] {
                    seen.enabled[i] = true;
                    seen.never_enabled -= 1;
                }
                if seen.never_enabled == 0 {
                    decide(open.quasi_liveness, true);
                }
            }
            (Kind::Enabled, false) => {
                decide(open.quasi_liveness, false);
                decide(open.liveness, false);
            }
            (Kind::Changes, true) => {
                if seen.stable[i] {
                    seen.stable[i] = false;
                    seen.stable_left -= 1;
                }
                if seen.stable_left == 0 {
                    decide(open.stable, false);
                }
            }
            (Kind::Changes, false) => decide(open.stable, true),
            (Kind::TwoTokens, true) => decide(open.one_safe, false),
            (Kind::TwoTokens, false) => {
                left -= 1;
                if left == 0 {
                    decide(open.one_safe, true);
                }
            }
        }
    };
    let known = |seen: &Seen, i: usize| match kind {
        Kind::Enabled => seen.enabled[i],
        Kind::Changes => !seen.stable[i],
        Kind::TwoTokens => false,
    };
    let end = phase_end(limits, 2, items.len());
    if let Some(inc) = incidence {
        say.say(&format!(
            "the state equation on {} {}s",
            items.len(),
            kind.noun()
        ));
        // a share of the phase for the programs, a few seconds at most
        let share = end.saturating_duration_since(Instant::now()) / 3;
        let until = Instant::now() + share.min(super::EQUATION_TIME);
        // what the guided walks show decides the kind once every item is seen
        let settle = |seen: &Seen| match kind {
            Kind::Enabled if seen.never_enabled == 0 => {
                if let Some(n) = open.quasi_liveness {
                    board.decide(n, Value::Bool(true), Technique::GuidedWalk);
                }
            }
            Kind::Changes if seen.stable_left == 0 => {
                if let Some(n) = open.stable {
                    board.decide(n, Value::Bool(false), Technique::GuidedWalk);
                }
            }
            _ => {}
        };
        items.retain(|&i| {
            if stop() || board.decided(key) || Instant::now() >= until {
                return true;
            }
            if known(seen, i) {
                return false;
            }
            let target = kind.target(net, i);
            let dnf = state_equation::widen(net, &target, false);
            let time = until
                .saturating_duration_since(Instant::now())
                .min(super::EQUATION_EACH);
            let stop_this = || stop() || board.decided(key);
            // out of reach by the relaxation, or reached by a walk its solution guides
            let mut show = |m: &[u64]| seen.update(net, m);
            let got = guided::decide(net, inc, &target, &dnf, time, &stop_this, &mut show);
            match got {
                Some(false) => tell(seen, i, false, Technique::StateEquation),
                Some(true) => tell(seen, i, true, Technique::GuidedWalk),
                None => {}
            }
            settle(seen);
            got.is_none()
        });
    }
    let bytes = crate::explicit_bytes(limits);
    let firing = Firing::new(net);
    // each item's reduced net, kept for its second round
    let mut reduced: HashMap<usize, Option<(Reduced, Firing)>> = HashMap::new();
    in_rounds(
        &mut items,
        end,
        board,
        stop,
        |_| key,
        |&i, until, stop_this| {
            if known(seen, i) {
                return false;
            }
            let target = kind.target(net, i);
            let name = match kind {
                Kind::Enabled => &net.transitions[i].id,
                Kind::Changes | Kind::TwoTokens => &net.places[i].id,
            };
            let mut by = Technique::Reduction;
            if !reduced.contains_key(&i) {
                let r = reduce(net, &target, stop_this);
                if stop_this() {
                    // cut short: tried again in the next round
                    return true;
                }
                reduced.insert(
                    i,
                    r.map(|r| {
                        let f = Firing::new(&r.net);
                        (r, f)
                    }),
                );
            }
            let r = &reduced[&i];
            let found = match r {
                Some((r, _)) if matches!(r.target, StateFormula::Const(_)) => {
                    Ok(r.target == StateFormula::Const(true))
                }
                Some((r, f)) => {
                    say.say(&format!(
                        "{} {name} on the net reduced to {} places and {} transitions",
                        kind.noun(),
                        r.net.places.len(),
                        r.net.transitions.len()
                    ));
                    PorReach::new(&r.net, f).reachable(&r.target, bytes, until, stop_this, true)
                }
                None => {
                    by = Technique::PartialOrder;
                    say.say(&format!(
                        "{} {name} by a search with stubborn sets",
                        kind.noun()
                    ));
                    PorReach::new(net, &firing).reachable(&target, bytes, until, stop_this, true)
                }
            };
            match found {
                Ok(reachable) => {
                    tell(seen, i, reachable, by);
                    false
                }
                Err(Cut::Time) => true,
                Err(Cut::Useless | Cut::Memory) => false,
            }
        },
    );
}
