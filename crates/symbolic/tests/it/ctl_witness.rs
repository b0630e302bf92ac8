//! Witnesses and counterexamples against the explicit net and the explicit CTL checker: on
//! random small nets, orders and formulas, in both deadlock readings, every top-level temporal
//! operator over random arguments: a witness exists exactly when the E-formula holds (the
//! A-formula fails); it replays on the Petri net itself (each transition enabled, each marking
//! the result of the firing), its states satisfy what the operator demands, EF/EU/AG witnesses
//! are as short as the explicit shortest distance, and EG/AF/AU lassos close and are as short
//! as the explicit minimum (stem + cycle over every knot, or a maximal path to a deadlock). The
//! contest nets of `../shared/benchmarks/mcc` up to [`MCC_MAX_STATES`] markings: `EG p >= 1` and
//! `EG !(p >= 1)` for a few places `p`, both deadlock readings, the same.

use std::collections::HashMap;

use crate::ctl_support;

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula as F};
use saturn_model::PetriNet;
use saturn_reference::strategies::{config, ctl_formula, discard, random_net, ranked_net};
use saturn_reference::{explore_petri, CtlChecker};
use saturn_symbolic::ctl::{Deadlocks, EuMethod, Witness, WitnessMethod};

use crate::shared;

/// The contest instances checked: those of at most this many reachable markings.
const MCC_MAX_STATES: usize = 3_000;

/// The random nets whose witnesses by the closure with distances are checked: those of at most
/// this many reachable markings (the 2L-level closure of a larger net under a shuffled order
/// can take seconds).
const TCD_MAX_STATES: usize = 200;

/// The places of each contest net whose `EG` witnesses are checked (spread over the net).
const MCC_PLACES: usize = 6;

use crate::ctl_support::replay;

fn reference_mode(d: Deadlocks) -> saturn_reference::Deadlocks {
    match d {
        Deadlocks::Maximal => saturn_reference::Deadlocks::Maximal,
        Deadlocks::SelfLoop => saturn_reference::Deadlocks::SelfLoop,
    }
}

/// Random small nets, and small instances of the generated families (deeper state spaces, so
/// longer witnesses).
fn nets() -> impl Strategy<Value = PetriNet> {
    nets_and(vec![
        ("philosophers", 3),
        ("philosophers", 4),
        ("kanban", 1),
        ("robin", 3),
        ("fms", 1),
        ("slot", 3),
    ])
}

/// Random small nets, or one of the listed family instances, or (one in five) a net with a
/// step rank (the `EG` witnesses are maximal paths, proven shortest by the rank).
fn nets_and(families: Vec<(&'static str, u32)>) -> impl Strategy<Value = PetriNet> {
    let family = prop::sample::select(families)
        .prop_map(|(f, n)| saturn_model::families::generate(f, n).unwrap());
    prop_oneof![2 => random_net(8, 10), 2 => family, 1 => ranked_net(8, 10)]
}

fn b(f: &F) -> Box<F> {
    Box::new(f.clone())
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn witnesses_replay_and_are_shortest(
        (net, order, g, h) in nets().prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            (Just(net), order, ctl_formula(np, nt), ctl_formula(np, nt))
        }),
        far in any::<prop::sample::Index>(),
        self_loop in any::<bool>(),
        trad in any::<bool>(),
    ) {
        let Ok(space) = explore_petri(&net, 5_000) else { return Err(discard("unbounded or too large for the reference")) };
        let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let explicit = CtlChecker::new(&net, &space, reference_mode(mode));
        let index = indices(&space);
        let model = net.to_model(&order).unwrap();
        let mut dd = Dd::new(model.num_levels());
        let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
        if trad {
            checker.set_eu_method(EuMethod::Trad);
        }
        // `g` and `h` hold at the initial marking more often than not, and their witnesses are
        // short: also aim at one marking, often far away (the markings are in BFS order)
        let m = &space.markings[space.markings.len() - 1 - far.index(space.markings.len()).min(space.markings.len() / 4)];
        let at_m = F::And((0..m.len()).map(|p| F::Atom(Atom {
            lhs: LinExpr { terms: vec![(p, 1)], constant: 0 }, op: CmpOp::Eq, bound: m[p] as i64,
        })).collect());
        let (g, h) = match far.index(3) {
            0 => (F::Not(b(&at_m)), at_m),
            1 => (g, at_m),
            _ => (g, h),
        };
        let sg = explicit.sat(&g).unwrap();
        let sh = explicit.sat(&h).unwrap();
        let n = sg.len();
        let all = vec![true; n];
        let not = |v: &[bool]| v.iter().map(|x| !x).collect::<Vec<bool>>();
        let and = saturn_reference::ctl::and;
        let dead: Vec<bool> = (0..n).map(|s| space.successors[s].is_empty()).collect();
        let tops = [
            F::EX(b(&g)), F::AX(b(&g)), F::EF(b(&g)), F::AG(b(&g)), F::EU(b(&g), b(&h)),
            F::EG(b(&g)), F::AF(b(&g)), F::AU(b(&g), b(&h)),
        ];
        for f in &tops {
            let holds = explicit.holds(f).unwrap();
            let w = checker.witness(f).unwrap();
            let is_e = matches!(f, F::EX(_) | F::EF(_) | F::EU(..) | F::EG(_));
            prop_assert_eq!(w.is_some(), holds == is_e, "{:?} holds={}", f, holds);
            let Some(w) = w else { continue };
            let st = replay(&net, &model, &order, &index, &w, mode)?;
            let last = *st.last().unwrap();
            // a lasso, or a maximal path ending in a deadlock
            let infinite = w.loop_start.is_some() || dead[last];
            match f {
                F::EX(_) => { prop_assert_eq!(w.len(), 1); prop_assert!(sg[st[1]]); }
                F::AX(_) => { prop_assert_eq!(w.len(), 1); prop_assert!(!sg[st[1]]); }
                F::EF(_) | F::AG(_) | F::EU(..) => {
                    let (a, t) = match f {
                        F::EF(_) => (all.clone(), sg.clone()),
                        F::AG(_) => (all.clone(), not(&sg)),
                        _ => (sg.clone(), sh.clone()),
                    };
                    prop_assert!(t[last], "{:?}", f);
                    prop_assert!(st[..st.len() - 1].iter().all(|&s| a[s]), "{:?}", f);
                    let d = explicit.eu_distances(&a, &t)[0];
                    prop_assert_eq!(Some(w.len() as u32), d, "{:?} not shortest", f);
                }
                F::EG(_) => {
                    prop_assert!(st.iter().all(|&s| sg[s]));
                    prop_assert!(infinite);
                    let min = explicit.shortest_eg_witness(&sg);
                    prop_assert_eq!(Some(w.len()), min, "{:?} not shortest", f);
                }
                F::AF(_) => {
                    prop_assert!(st.iter().all(|&s| !sg[s]));
                    prop_assert!(infinite);
                    let min = explicit.shortest_eg_witness(&not(&sg));
                    prop_assert_eq!(Some(w.len()), min, "{:?} not shortest", f);
                }
                F::AU(..) => {
                    prop_assert!(st[..st.len() - 1].iter().all(|&s| !sh[s]));
                    prop_assert!(!sh[last]);
                    prop_assert!(infinite || !sg[last], "{:?}", f);
                    // the shorter of the two counterexamples: EG ¬h, or E[¬h U ¬g ∧ ¬h]
                    let nh = not(&sh);
                    let eg = explicit.shortest_eg_witness(&nh);
                    let eu = explicit.eu_distances(&nh, &and(&not(&sg), &nh))[0].map(|d| d as usize);
                    let min = eg.into_iter().chain(eu).min();
                    prop_assert_eq!(Some(w.len()), min, "{:?} not shortest", f);
                }
                _ => unreachable!(),
            }
        }
    }
}

fn at_least_one(p: usize) -> F {
    F::Atom(Atom::marked(p))
}

/// Each marking's index in `space`.
fn indices(space: &saturn_reference::ExplicitStateSpace<Vec<u64>>) -> HashMap<Vec<u64>, usize> {
    space
        .markings
        .iter()
        .enumerate()
        .map(|(i, m)| (m.clone(), i))
        .collect()
}

/// The witness of `EG g` in every contest net up to [`MCC_MAX_STATES`] markings, for `g` one of
/// `p >= 1` and `!(p >= 1)` and a few places `p`, in both deadlock readings: a shortest one
/// (by distance layers, by the closure with distances and by auto, one of the two) replays on
/// the net, stays in `g`, and is exactly as long as the explicit minimum; the walk of
/// Figure 5.1 ([`WitnessMethod::Bfs`]) replays and is no shorter, and says it is not shortest.
#[test]
fn mcc_eg_witnesses_are_shortest() {
    let Some(mut dirs) = shared::mcc_instances("the contest nets' shortest EG witnesses") else {
        return;
    };
    shared::mcc_only(&mut dirs);
    let mut checked = 0;
    let mut longer = 0;
    let (mut by_tcd, mut by_walk, mut by_search) = (0, 0, 0);
    for d in &dirs {
        let Ok(net) = saturn_pnml::reader::read_pnml_file(&d.join("model.pnml")) else {
            continue;
        };
        let Ok(space) = explore_petri(&net, MCC_MAX_STATES) else {
            continue;
        };
        let np = net.places.len();
        let order: Vec<usize> = (0..np).rev().collect();
        let index = indices(&space);
        let model = net.to_model(&order).unwrap();
        for mode in [Deadlocks::Maximal, Deadlocks::SelfLoop] {
            let explicit = CtlChecker::new(&net, &space, reference_mode(mode));
            let mut dd = Dd::new(model.num_levels());
            // the default collection schedule (the proptest above collects every 64 nodes)
            let mut checker = ctl_support::checker_collecting(&mut dd, &model, &order, mode, None);
            for p in (0..MCC_PLACES).map(|j| j * np / MCC_PLACES) {
                for g in [at_least_one(p), F::Not(b(&at_least_one(p)))] {
                    let f = F::EG(b(&g));
                    let sg = explicit.sat(&g).unwrap();
                    let min = explicit.shortest_eg_witness(&sg);
                    let what = format!("{}: {f:?} ({mode:?})", net.name);
                    checker.set_witness_method(WitnessMethod::Layers);
                    let w = checker.witness(&f).unwrap();
                    assert_eq!(w.as_ref().map(Witness::len), min, "{what}: not shortest");
                    let Some(w) = w else { continue };
                    assert!(w.shortest && w.method == WitnessMethod::Layers, "{what}");
                    let st = replay(&net, &model, &order, &index, &w, mode).unwrap();
                    assert!(st.iter().all(|&s| sg[s]), "{what}: leaves the argument");
                    // the closure with distances (within the states of short lassos)
                    checker.set_witness_method(WitnessMethod::Tcd);
                    let t = checker
                        .witness(&f)
                        .unwrap()
                        .expect("the closure finds one too");
                    assert!(t.shortest && t.method == WitnessMethod::Tcd, "{what}");
                    assert_eq!(t.len(), w.len(), "{what}: tcd not shortest");
                    let st = replay(&net, &model, &order, &index, &t, mode).unwrap();
                    assert!(st.iter().all(|&s| sg[s]), "{what}: tcd leaves the argument");
                    // auto: the walk or a search's witness proven shortest, or one of the two by
                    // the layers' budget
                    checker.set_witness_method(WitnessMethod::Auto);
                    let a = checker.witness(&f).unwrap().expect("auto finds one too");
                    assert!(a.shortest, "{what}");
                    assert!(
                        matches!(
                            a.method,
                            WitnessMethod::Bfs
                                | WitnessMethod::Search
                                | WitnessMethod::Layers
                                | WitnessMethod::Tcd
                        ),
                        "{what}"
                    );
                    by_walk += usize::from(a.method == WitnessMethod::Bfs);
                    by_search += usize::from(a.method == WitnessMethod::Search);
                    assert_eq!(a.len(), w.len(), "{what}: auto not shortest");
                    replay(&net, &model, &order, &index, &a, mode).unwrap();
                    by_tcd += usize::from(a.method == WitnessMethod::Tcd);
                    checker.set_witness_method(WitnessMethod::Bfs);
                    let walk = checker
                        .witness(&f)
                        .unwrap()
                        .expect("the walk finds one too");
                    replay(&net, &model, &order, &index, &walk, mode).unwrap();
                    assert!(
                        !walk.shortest && walk.method == WitnessMethod::Bfs,
                        "{what}"
                    );
                    assert!(walk.len() >= w.len(), "{what}");
                    longer += usize::from(walk.len() > w.len());
                    checked += 1;
                }
            }
        }
    }
    eprintln!(
        "{checked} EG witnesses shortest on the contest nets ({longer} walks longer; by auto: {by_walk} walks and {by_search} searches proven shortest, {by_tcd} by the closure)"
    );
    assert!(checked > 0 || !shared::required(), "no contest net checked");
}

/// Random small nets and the generated families' instances of at most [`TCD_MAX_STATES`]
/// markings.
fn small_nets() -> impl Strategy<Value = PetriNet> {
    nets_and(vec![
        ("philosophers", 3),
        ("kanban", 1),
        ("robin", 3),
        ("fms", 1),
    ])
}

proptest! {
    // more rejects allowed: the random nets past TCD_MAX_STATES markings are discarded
    #![proptest_config(ProptestConfig { max_global_rejects: 600, ..config(60) })]

    /// The closure with distances (thesis section 5.2, [`WitnessMethod::Tcd`]): on random small
    /// nets and orders, in both deadlock readings, the witnesses of `EG g` and `AF g` (and the
    /// counterexample of `A[g U h]`, checked as in the test above) exist
    /// exactly when the explicit checker says so, replay on the net, stay in `g` (resp. `¬g`),
    /// close their lasso or end in a deadlock, say they are shortest and were built by the
    /// closure, and are exactly as long as the explicit minimum (BFS from the initial marking
    /// for the stem, BFS from each knot for its cycle, within the set).
    #[test]
    fn tcd_witnesses_are_shortest(
        (net, order, g, h) in small_nets().prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            (Just(net), order, ctl_formula(np, nt), ctl_formula(np, nt))
        }),
        self_loop in any::<bool>(),
    ) {
        let Ok(space) = explore_petri(&net, TCD_MAX_STATES) else { return Err(discard("unbounded or too large for the reference")) };
        let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let explicit = CtlChecker::new(&net, &space, reference_mode(mode));
        let index = indices(&space);
        let model = net.to_model(&order).unwrap();
        let mut dd = Dd::new(model.num_levels());
        let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
        checker.set_witness_method(WitnessMethod::Tcd);
        let sg = explicit.sat(&g).unwrap();
        let dead: Vec<bool> = (0..sg.len()).map(|s| space.successors[s].is_empty()).collect();
        for (f, within) in [
            (F::EG(b(&g)), sg.clone()),
            (F::AF(b(&g)), sg.iter().map(|x| !x).collect::<Vec<bool>>()),
        ] {
            let holds = explicit.holds(&f).unwrap();
            let w = checker.witness(&f).unwrap();
            prop_assert_eq!(w.is_some(), holds == matches!(f, F::EG(_)), "{:?}", f);
            let Some(w) = w else { continue };
            prop_assert!(w.shortest && w.method == WitnessMethod::Tcd, "{:?}", f);
            let st = replay(&net, &model, &order, &index, &w, mode)?;
            prop_assert!(st.iter().all(|&s| within[s]), "{:?} leaves its set", f);
            prop_assert!(w.loop_start.is_some() || dead[*st.last().unwrap()], "{:?}", f);
            let min = explicit.shortest_eg_witness(&within);
            prop_assert_eq!(Some(w.len()), min, "{:?} not shortest", f);
        }
        // A[g U h] fails: the shorter of the lasso of EG ¬h (by the closure) and the path of
        // E[¬h U ¬g ∧ ¬h]
        let f = F::AU(b(&g), b(&h));
        let w = checker.witness(&f).unwrap();
        prop_assert_eq!(w.is_some(), !explicit.holds(&f).unwrap());
        if let Some(w) = w {
            let st = replay(&net, &model, &order, &index, &w, mode)?;
            let sh = explicit.sat(&h).unwrap();
            let nh: Vec<bool> = sh.iter().map(|x| !x).collect();
            prop_assert!(st.iter().all(|&s| nh[s]));
            let end: Vec<bool> = (0..sg.len()).map(|s| nh[s] && !sg[s]).collect();
            let eg = explicit.shortest_eg_witness(&nh);
            let eu = explicit.eu_distances(&nh, &end)[0].map(|d| d as usize);
            prop_assert_eq!(Some(w.len()), eg.into_iter().chain(eu).min(), "AU not shortest");
        }
    }
}
