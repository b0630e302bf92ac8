//! The state equation ([`saturn_engine::formulas::state_equation`]) against the breadth-first
//! search of the reference: what it shows out of reach is reached by no marking, the bounds it
//! gives are at or above the largest value reached, and its widening of a formula holds
//! wherever the formula does; on nets whose invariants decide, it decides.

use std::time::Duration;

use proptest::prelude::*;
use saturn_engine::formulas::simplify::{at_initial, simplify, walk_targets, Facts};
use saturn_engine::formulas::state_equation::{bound, unreachable, widen, Dnf, Incidence};
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
use saturn_model::PetriNet;
use saturn_reference::ctl::{CtlChecker, Deadlocks};
use saturn_reference::strategies::{
    boolean_formula, config, discard, net_with_ctl_formulas, petri_net, random_net,
};

const TIME: Duration = Duration::from_secs(10);

fn meets(dnf: &Dnf, m: &[u64]) -> bool {
    dnf.iter().any(|c| c.iter().all(|r| r.holds(m)))
}

/// The incidence of `net` with the reference's structural bounds of its places (for the box
/// check before the programs).
fn with_bounds(net: &PetriNet) -> Incidence {
    let mut inc = Incidence::new(net).expect("small weights");
    inc.bounds = saturn_reference::farkas::structural_bounds(net)
        .into_iter()
        .map(|b| b.and_then(|b| u64::try_from(b).ok()))
        .collect();
    inc
}

fn expr(terms: Vec<(usize, i64)>) -> LinExpr {
    LinExpr { terms, constant: 0 }
}

fn at_least(p: usize, k: i64) -> StateFormula {
    StateFormula::Atom(Atom {
        lhs: expr(vec![(p, 1)]),
        op: CmpOp::Ge,
        bound: k,
    })
}

/// `n` processes, each `idle_i -> wait_i -> (take the lock) crit_i -> (give it back) idle_i`:
/// the invariant `lock + Σ crit_i = 1` keeps two processes out of their critical sections.
fn mutex(n: usize) -> PetriNet {
    // places: lock, then idle_i, wait_i, crit_i
    let mut initial = vec![1];
    let mut ts = Vec::new();
    for i in 0..n {
        let (idle, wait, crit) = (1 + 3 * i, 2 + 3 * i, 3 + 3 * i);
        initial.extend([1, 0, 0]);
        ts.push((vec![(idle, 1)], vec![(wait, 1)], vec![]));
        ts.push((vec![(wait, 1), (0, 1)], vec![(crit, 1)], vec![]));
        ts.push((vec![(crit, 1)], vec![(idle, 1), (0, 1)], vec![]));
    }
    petri_net(&initial, ts)
}

#[test]
fn the_invariants_keep_two_processes_out_of_their_critical_sections() {
    let net = mutex(6);
    let inc = Incidence::new(&net).expect("small weights");
    let crit = |i: usize| 3 + 3 * i;
    let both = StateFormula::And(vec![at_least(crit(0), 1), at_least(crit(4), 1)]);
    assert!(unreachable(&inc, &widen(&net, &both, false), TIME, &|| {
        false
    }));
    // one of them alone is reachable: not shown out of reach
    assert!(!unreachable(
        &inc,
        &widen(&net, &at_least(crit(0), 1), false),
        TIME,
        &|| false
    ));
    // the lock and the critical sections hold one token in all; a waiting place holds one
    let all: Vec<(usize, i64)> = std::iter::once((0, 1))
        .chain((0..6).map(|i| (crit(i), 1)))
        .collect();
    assert_eq!(bound(&inc, &expr(all), TIME), Some(1));
    assert_eq!(bound(&inc, &expr(vec![(2, 3)]), TIME), Some(3));
    // two transitions enabled at once that need the lock: out of reach too
    let two = StateFormula::And(vec![StateFormula::Enabled(vec![2]), at_least(crit(1), 1)]);
    assert!(unreachable(&inc, &widen(&net, &two, false), TIME, &|| {
        false
    }));
}

#[test]
fn an_unbounded_place_has_no_bound() {
    // t0 puts a token on p1 for every firing, without end
    let net = petri_net(&[1, 0], vec![(vec![(0, 1)], vec![(0, 1), (1, 1)], vec![])]);
    let inc = Incidence::new(&net).expect("small weights");
    assert_eq!(bound(&inc, &expr(vec![(1, 1)]), TIME), None);
    assert_eq!(bound(&inc, &expr(vec![(0, 2)]), TIME), Some(2));
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn what_the_state_equation_shows_holds_on_every_reachable_marking(
        (net, phis, places) in random_net(5, 6).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let phis = proptest::collection::vec(boolean_formula(np, nt), 4);
            let places = proptest::collection::vec((0..np, 1i64..=3), 1..=3);
            (Just(net), phis, places)
        })
    ) {
        let Ok(space) = saturn_reference::explore_petri(&net, 20_000) else {
            return Err(discard("unbounded or large"));
        };
        let inc = with_bounds(&net);
        for phi in &phis {
            for neg in [false, true] {
                let dnf = widen(&net, phi, neg);
                let holds = |m: &[u64]| saturn_ltl::net::eval(&net, phi, m) != neg;
                for m in &space.markings {
                    if holds(m) {
                        prop_assert!(meets(&dnf, m), "{phi:?} (negated: {neg}) at {m:?}");
                    }
                }
                if unreachable(&inc, &dnf, TIME, &|| false) {
                    prop_assert!(!space.markings.iter().any(|m| holds(m)), "{phi:?} reached");
                }
            }
        }
        let mut terms: Vec<(usize, i64)> = Vec::new();
        for (p, c) in places {
            match terms.iter_mut().find(|t| t.0 == p) {
                Some(t) => t.1 += c,
                None => terms.push((p, c)),
            }
        }
        terms.sort_unstable();
        let e = expr(terms);
        let most = saturn_reference::ctl::upper_bound(&space.markings, &e);
        // a bounded net: the places' rays bound it, and so does the relaxation
        if let Some(b) = bound(&inc, &e, TIME) {
            prop_assert!(b >= most, "bound {b} below {most}");
        }
    }
}

proptest! {
    #![proptest_config(config(96))]

    /// A CTL formula and its simplification hold in the same reachable markings (the
    /// reference's explicit checker): what the state equation replaces is constant there.
    #[test]
    fn a_simplified_formula_holds_where_the_formula_does(
        (net, phis) in net_with_ctl_formulas(3)
    ) {
        let Ok(space) = saturn_reference::explore_petri(&net, 20_000) else {
            return Err(discard("unbounded or large"));
        };
        let inc = with_bounds(&net);
        let reference = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        let mut facts = Facts::new(&net, &inc, TIME, &|| false);
        for phi in &phis {
            let simpler = simplify(phi, &mut facts);
            let (want, got) = (reference.sat(phi), reference.sat(&simpler));
            prop_assert_eq!(want.ok(), got.ok(), "{:?} simplified to {:?}", phi, simpler);
        }
    }
}

/// On the mutex, formulas about two critical sections at once fold to constants.
#[test]
fn formulas_over_what_the_invariants_exclude_fold_to_constants() {
    let net = mutex(3);
    let inc = Incidence::new(&net).expect("small weights");
    let mut facts = Facts::new(&net, &inc, TIME, &|| false);
    let both = StateFormula::And(vec![at_least(3, 1), at_least(6, 1)]);
    let bx = Box::new;
    // AG ¬both: true; EF both: false; E[crit0 U both] ∨ AF both: false
    let f = StateFormula::AG(bx(StateFormula::Not(bx(both.clone()))));
    assert_eq!(simplify(&f, &mut facts), StateFormula::Const(true));
    let f = StateFormula::Or(vec![
        StateFormula::EU(bx(at_least(3, 1)), bx(both.clone())),
        StateFormula::AF(bx(both.clone())),
    ]);
    assert_eq!(simplify(&f, &mut facts), StateFormula::Const(false));
    // EF crit0 is reachable: kept
    let f = StateFormula::EF(bx(at_least(3, 1)));
    assert_eq!(simplify(&f, &mut facts), f);
    // the lock holds at most one token: AG (lock <= 1) ∧ EF crit0 is EF crit0
    let le1 = StateFormula::Atom(Atom {
        lhs: expr(vec![(0, 1)]),
        op: CmpOp::Le,
        bound: 1,
    });
    let f = StateFormula::And(vec![
        StateFormula::AG(bx(le1)),
        StateFormula::EF(bx(at_least(3, 1))),
    ]);
    assert_eq!(
        simplify(&f, &mut facts),
        StateFormula::EF(bx(at_least(3, 1)))
    );
}

proptest! {
    #![proptest_config(config(128))]

    /// What `at_initial` tells of a CTL formula in the initial marking, told which targets some
    /// reachable marking meets, is the reference's verdict.
    #[test]
    fn what_the_initial_marking_tells_is_the_verdict(
        (net, phis) in net_with_ctl_formulas(4)
    ) {
        let Ok(space) = saturn_reference::explore_petri(&net, 20_000) else {
            return Err(discard("unbounded or large"));
        };
        let reference = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        let met = |g: &StateFormula| {
            space.markings.iter().any(|m| saturn_ltl::net::eval(&net, g, m))
        };
        for phi in &phis {
            let mut targets = Vec::new();
            walk_targets(phi, &mut targets);
            let want = reference.sat(phi).expect("CTL")[0];
            if let Some(b) = at_initial(&net, phi, &met) {
                prop_assert_eq!(b, want, "{:?}", phi);
            }
            // the walks look for the targets only
            if let Some(b) = at_initial(&net, phi, &|g| targets.contains(g) && met(g)) {
                prop_assert_eq!(b, want, "{:?}", phi);
            }
            // without a walk's witness
            if let Some(b) = at_initial(&net, phi, &|_| false) {
                prop_assert_eq!(b, want, "{:?}", phi);
            }
        }
    }
}
