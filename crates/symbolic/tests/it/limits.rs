//! Limits hold inside saturation and BFS: an unbounded net stops cleanly at a deadline or at
//! the dense-node limit, a huge initial token count stops before any allocation, and an engine
//! interrupted by a limit can be reused and gives the right answer.

use std::time::{Duration, Instant};

use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_symbolic::{Direction, Interrupted, Limits, Method, Reach};

/// One place `a` with `m0` tokens; one transition takes one token and puts back two.
fn unbounded(m0: u64) -> PetriNet {
    PetriNet {
        name: "unbounded".into(),
        places: vec![Place {
            id: "a".into(),
            name: "a".into(),
            initial: m0,
        }],
        transitions: vec![Transition {
            id: "t".into(),
            name: "t".into(),
            inputs: vec![Arc {
                place: 0,
                weight: 1,
            }],
            outputs: vec![Arc {
                place: 0,
                weight: 2,
            }],
            inhibitors: vec![],
        }],
    }
}

fn run(net: &PetriNet, method: Method, limits: Limits) -> (Result<u128, Interrupted>, Duration) {
    let model = net.to_model(&[0]).expect("lowering");
    let mut dd = saturn_dd::Dd::new(model.num_levels());
    let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
    reach.set_limits(limits);
    let init = reach.state_set(&model.initial);
    let t = Instant::now();
    let r = reach.explore(init, method).map(|s| {
        reach
            .dd()
            .sets
            .cardinality(s)
            .try_into()
            .unwrap_or(u128::MAX)
    });
    (r, t.elapsed())
}

#[test]
fn unbounded_net_stops_at_its_deadline() {
    for method in [Method::Saturation, Method::Bfs] {
        let limits = Limits {
            deadline: Some(Instant::now() + Duration::from_millis(300)),
            max_memory: None,
            ..Limits::none()
        };
        let (r, t) = run(&unbounded(1), method, limits);
        assert!(
            r.is_err(),
            "{method:?}: an unbounded net cannot finish: {r:?}"
        );
        // the clean stop is the error above; the margin is generous (a loaded machine), not
        // a performance target
        assert!(
            t < Duration::from_secs(60),
            "{method:?}: stopped after {t:?}"
        );
    }
}

#[test]
fn unbounded_net_stops_at_the_dense_node_limit() {
    let limits = Limits {
        deadline: Some(Instant::now() + Duration::from_secs(120)),
        max_memory: Some(40 << 20),
        ..Limits::none()
    };
    let (r, _) = run(&unbounded(1), Method::Saturation, limits);
    // whichever comes first: the resident-set check or the dense-node limit derived from it
    assert!(
        matches!(r, Err(Interrupted::IndexTooLarge | Interrupted::Memory)),
        "{r:?}"
    );
}

/// A place that starts with billions of tokens costs only the window of its values (issue
/// 12), so an unbounded one stops, like one that starts empty, when its window reaches the
/// dense limit derived from the memory limit (2 million local states for 40 MiB), not at once
/// and not by allocating billions.
#[test]
fn huge_initial_token_count_stops_at_the_window_limit() {
    let limits = Limits {
        deadline: Some(Instant::now() + Duration::from_secs(120)),
        max_memory: Some(40 << 20),
        ..Limits::none()
    };
    // stopped by the window or the memory, not by the deadline: not by allocating billions
    let (r, _) = run(&unbounded(4_000_000_000), Method::Saturation, limits);
    assert!(
        matches!(r, Err(Interrupted::IndexTooLarge | Interrupted::Memory)),
        "{r:?}"
    );
}

#[test]
fn an_interrupted_engine_is_reusable() {
    let net = saturn_model::families::generate("kanban", 12).expect("kanban");
    let order: Vec<usize> = (0..net.places.len()).rev().collect();
    let model = net.to_model(&order).expect("lowering");
    let fresh = {
        let mut dd = saturn_dd::Dd::new(model.num_levels());
        let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
        let init = reach.state_set(&model.initial);
        let s = reach.explore(init, Method::Saturation).expect("fresh run");
        reach.dd().sets.cardinality(s)
    };
    for method in [Method::Saturation, Method::Bfs] {
        let mut interrupted = 0;
        for budget in [1u64, 1000, 20_000, 200_000] {
            let mut dd = saturn_dd::Dd::new(model.num_levels());
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
            let init = reach.state_set(&model.initial);
            reach.set_step_budget(budget);
            match reach.explore(init, method) {
                Err(Interrupted::Budget) => interrupted += 1,
                Ok(s) => assert_eq!(reach.dd().sets.cardinality(s), fresh),
                Err(e) => panic!("{method:?} budget {budget}: {e:?}"),
            }
            reach.set_step_budget(u64::MAX);
            let s = reach.explore(init, method).expect("second run");
            assert_eq!(
                reach.dd().sets.cardinality(s),
                fresh,
                "{method:?} budget {budget}"
            );
        }
        assert!(
            interrupted >= 2,
            "{method:?}: only {interrupted} runs were interrupted"
        );
    }
}

/// Node ids and edge offsets are checked against their caps (here small artificial ones): a
/// forest that runs out stops every engine method with `TooManyNodes`, never an answer.
#[test]
fn running_out_of_node_ids_or_edges_is_a_clean_stop() {
    let net = saturn_model::families::generate("kanban", 3).expect("kanban");
    let order: Vec<usize> = (0..net.places.len()).collect();
    let model = net.to_model(&order).unwrap();
    for (nodes, edges) in [(40u32, u32::MAX), (u32::MAX, 60u32)] {
        for method in [Method::Saturation, Method::Bfs] {
            let mut dd = saturn_dd::Dd::new(model.num_levels());
            dd.sets.set_capacity(nodes, edges);
            let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
            let init = reach.state_set(&model.initial);
            let r = reach.explore(init, method);
            assert_eq!(
                r,
                Err(Interrupted::TooManyNodes),
                "{nodes} {edges} {method:?}"
            );
            drop(reach);
            assert!(dd.overflowed());
        }
    }
    // the same model with room enough: an answer
    let mut dd = saturn_dd::Dd::new(model.num_levels());
    dd.sets.set_capacity(1 << 20, 1 << 22);
    let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
    let init = reach.state_set(&model.initial);
    let s = reach.explore(init, Method::Saturation).unwrap();
    assert!(reach.dd().sets.cardinality(s) > 1000u32.into());
}

/// Set operations outside the engines' own loops (the CTL checker's boolean connectives and
/// fixpoints, the closure) check the forest's overflow flag too: for every node cap from tiny
/// to ample, `philosophers:3` with a few CTL formulas gives either the uncapped answers or a
/// clean `TooManyNodes`, never another answer; some caps stop in the CTL layer itself (after
/// generation finished).
#[test]
fn capped_forests_never_give_a_wrong_ctl_answer() {
    use saturn_logic::StateFormula as F;
    use saturn_symbolic::ctl::{Checker, CtlError, Deadlocks, EgMethod};
    let net = saturn_model::families::generate("philosophers", 3).expect("philosophers");
    let order: Vec<usize> = (0..net.places.len()).collect();
    let model = net.to_model(&order).unwrap();
    let names = saturn_logic::NameTable::new(
        net.places.iter().map(|p| p.id.as_str()),
        net.transitions.iter().map(|t| t.id.as_str()),
    );
    let formulas: Vec<F> = [
        "AG EF HasR_0 >= 1",
        "EG !(HasL_1 >= 1)",
        "A[Idle_0 >= 1 U HasL_0 >= 1]",
    ]
    .iter()
    .map(
        |s| match saturn_logic::resolve(&saturn_logic::parse_query(s).unwrap(), &names).unwrap() {
            saturn_logic::ResolvedQuery::Formula(f) => f,
            _ => unreachable!(),
        },
    )
    .collect();
    // answers: None = generation stopped; Some(Err) = stopped in the CTL layer
    let run = |cap: u32| -> Option<Result<Vec<bool>, CtlError>> {
        let mut dd = saturn_dd::Dd::new(model.num_levels());
        dd.sets.set_capacity(cap, u32::MAX);
        let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
        let init = reach.state_set(&model.initial);
        let rch = reach.explore(init, Method::Saturation).ok()?;
        let atoms = saturn_symbolic::atoms::Atoms::for_petri(&model, &order);
        let mut c = Checker::new(reach, &model, atoms, rch, Deadlocks::Maximal);
        c.set_eg_method(EgMethod::Tc);
        Some(formulas.iter().map(|f| c.holds(f)).collect())
    };
    let want = run(u32::MAX).unwrap().unwrap();
    let mut ctl_stops = 0;
    for cap in 8..400 {
        match run(cap) {
            None => {}
            Some(Ok(got)) => assert_eq!(got, want, "cap {cap}"),
            Some(Err(e)) => {
                assert_eq!(
                    e,
                    CtlError::Interrupted(Interrupted::TooManyNodes),
                    "cap {cap}"
                );
                ctl_stops += 1;
            }
        }
    }
    assert!(ctl_stops > 0, "no cap stopped in the CTL layer");
}

/// The CTL checker's reachable deadlocks (one preimage of every reachable state) are found
/// within the limits it is given (`Checker::new_within`): a raised cancel flag stops them
/// (on 10^25 states that preimage outlasted a contest's minute), while without one they are
/// the deadlocks `Checker::new` finds.
#[test]
fn the_checkers_deadlocks_stop_at_their_limits() {
    // 10,000 levels: the diagram operations recurse once per level
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(checkers_deadlocks)
        .expect("a thread")
        .join()
        .expect("no panic");
}

fn checkers_deadlocks() {
    use saturn_symbolic::atoms::Atoms;
    use saturn_symbolic::ctl::{Checker, Deadlocks};
    static RAISED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
    let net = saturn_model::families::generate("philosophers", 2000).expect("a family");
    let order: Vec<usize> = (0..net.places.len()).collect();
    let model = net.to_model(&order).expect("lowering");
    let mut dd = saturn_dd::Dd::new(model.num_levels());
    let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
    let init = reach.state_set(&model.initial);
    let rch = reach.explore(init, Method::Saturation).expect("generated");
    let atoms = || Atoms::for_petri(&model, &order);
    let cancelled = Limits {
        cancel: Some(&RAISED),
        ..Limits::none()
    };
    let got = Checker::new_within(reach, &model, atoms(), rch, Deadlocks::Maximal, cancelled);
    assert!(matches!(got, Err(Interrupted::Cancelled)), "not stopped");
    drop(got);
    // unlimited: the deadlocks `Checker::new` finds, and some
    let count = |limited: bool| {
        let mut dd = saturn_dd::Dd::new(model.num_levels());
        let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
        let init = reach.state_set(&model.initial);
        let rch = reach.explore(init, Method::Saturation).expect("generated");
        let mut c = if limited {
            Checker::new_within(
                reach,
                &model,
                atoms(),
                rch,
                Deadlocks::Maximal,
                Limits::none(),
            )
            .expect("no limit")
        } else {
            Checker::new(reach, &model, atoms(), rch, Deadlocks::Maximal)
        };
        let dead = c
            .sat(&saturn_logic::StateFormula::Deadlock)
            .expect("the deadlocks");
        c.count(dead)
    };
    let within = count(true);
    assert_eq!(within, count(false));
    assert!(within > 0u32.into());
}

/// The set operations of a formula stop at the checker's limits (a single union of diagrams
/// of 10^25 states ran for minutes, BusinessProcesses-PT-14): with the cancel flag raised,
/// `sat` fails with the flag's reason and keeps nothing; lowered again, the same checker
/// computes the same sets as one that never stopped.
#[test]
fn the_checkers_set_operations_stop_at_their_limits() {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(checkers_set_operations)
        .expect("a thread")
        .join()
        .expect("no panic");
}

fn checkers_set_operations() {
    use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
    use saturn_symbolic::atoms::Atoms;
    use saturn_symbolic::ctl::{Checker, CtlError, Deadlocks};
    use std::sync::atomic::{AtomicBool, Ordering};
    static FLAG: AtomicBool = AtomicBool::new(false);
    let net = saturn_model::families::generate("philosophers", 200).expect("a family");
    let order: Vec<usize> = (0..net.places.len()).collect();
    let model = net.to_model(&order).expect("lowering");
    let marked = |p: usize| {
        StateFormula::Atom(Atom {
            lhs: LinExpr {
                terms: vec![(p, 1)],
                constant: 0,
            },
            op: CmpOp::Ge,
            bound: 1,
        })
    };
    let f = StateFormula::Or(vec![
        StateFormula::And(vec![marked(0), marked(7)]),
        StateFormula::Not(Box::new(marked(3))),
    ]);
    fn checker<'d>(
        dd: &'d mut saturn_dd::Dd,
        model: &saturn_model::Model,
        order: &[usize],
    ) -> Checker<'d> {
        // a poll at every step: the first operation meets the raised flag
        dd.sets.set_poll_every(1);
        let mut reach = Reach::new(dd, model, Direction::Forward, None);
        let init = reach.state_set(&model.initial);
        let rch = reach.explore(init, Method::Saturation).expect("generated");
        let atoms = Atoms::for_petri(model, order);
        Checker::new(reach, model, atoms, rch, Deadlocks::Maximal)
    }
    let mut dd = saturn_dd::Dd::new(model.num_levels());
    let mut c = checker(&mut dd, &model, &order);
    c.set_limits(Limits {
        cancel: Some(&FLAG),
        ..Limits::none()
    });
    FLAG.store(true, Ordering::Relaxed);
    let got = c.sat(&f);
    assert!(
        matches!(got, Err(CtlError::Interrupted(Interrupted::Cancelled))),
        "not stopped: {got:?}"
    );
    FLAG.store(false, Ordering::Relaxed);
    let again = c.sat(&f).expect("not stopped");
    let mut dd2 = saturn_dd::Dd::new(model.num_levels());
    let mut fresh = checker(&mut dd2, &model, &order);
    let want = fresh.sat(&f).expect("no limit");
    assert_eq!(c.count(again), fresh.count(want));
    assert!(c.count(again) > 0u32.into());
}
