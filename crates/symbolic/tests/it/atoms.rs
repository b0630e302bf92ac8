//! Atoms as MDDs against explicit evaluation: on random small nets under random level orders,
//! every boolean combination of comparisons, `enabled` and `deadlock` must hold in exactly the
//! potential states (the product of the forest's local domains) where a direct evaluation on
//! the marking says so, and on the reachable states where the explicit CTL checker says so;
//! ranges of linear expressions equal the explicit minimum and maximum. On the contest's
//! instances with at most 25 000 states: the atoms of every formula file, restricted to the
//! reachable states, have the explicit number of states, the Reachability verdicts and the
//! UpperBounds equal the oracle.

use std::collections::BTreeSet;

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_dd::{Forest, NodeId};
use saturn_logic::{LinExpr, ResolvedQuery, StateFormula as F};
use saturn_model::PetriNet;
use saturn_reference::mcc::{benchmark_dir, instances_up_to, oracle};
use saturn_reference::strategies::{boolean_formula, config, discard, random_net};
use saturn_reference::{explore_petri, CtlChecker, Deadlocks};
use saturn_symbolic::atoms::{AtomError, Atoms};
use saturn_symbolic::{statespace, Direction, Limits, Method, Reach};

/// Direct evaluation of a boolean formula on one marking.
fn holds(net: &PetriNet, f: &F, m: &[u64]) -> bool {
    let enabled = |t: usize| net.enabled(t, m);
    match f {
        F::Const(b) => *b,
        F::Deadlock => !(0..net.transitions.len()).any(enabled),
        F::Atom(a) => a.eval(m),
        F::Enabled(ts) => ts.iter().any(|&t| enabled(t)),
        F::Not(a) => !holds(net, a, m),
        F::And(v) => v.iter().all(|a| holds(net, a, m)),
        F::Or(v) => v.iter().any(|a| holds(net, a, m)),
        F::Implies(a, b) => !holds(net, a, m) || holds(net, b, m),
        F::Iff(a, b) => holds(net, a, m) == holds(net, b, m),
        _ => unreachable!("boolean formulas only"),
    }
}

/// The marking of a tuple (`tuple[k]` is the local state of level `k + 1`, place `order[k]`).
fn marking(tuple: &[u32], order: &[usize]) -> Vec<u64> {
    let mut m = vec![0u64; order.len()];
    for (k, &p) in order.iter().enumerate() {
        m[p] = u64::from(tuple[k]);
    }
    m
}

fn markings_of(forest: &Forest, set: NodeId, order: &[usize]) -> BTreeSet<Vec<u64>> {
    let mut out = BTreeSet::new();
    forest.for_each_state(set, usize::MAX, |t| {
        out.insert(marking(t, order));
    });
    out
}

/// Every tuple of the potential state space, as markings.
fn pot_markings(forest: &Forest, order: &[usize]) -> Vec<Vec<u64>> {
    let mut tuples: Vec<Vec<u32>> = vec![vec![]];
    for k in 1..=order.len() {
        tuples = tuples
            .into_iter()
            .flat_map(|t| {
                (0..forest.domain(k)).map(move |i| {
                    let mut u = t.clone();
                    u.push(i);
                    u
                })
            })
            .collect();
    }
    tuples.iter().map(|t| marking(t, order)).collect()
}

/// A random net, a permutation of its places, and `k` boolean formulas over it.
fn case(k: usize) -> impl Strategy<Value = (PetriNet, Vec<usize>, Vec<F>)> {
    random_net(8, 10).prop_flat_map(move |net| {
        let (np, nt) = (net.places.len(), net.transitions.len());
        let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
        let fs = proptest::collection::vec(boolean_formula(np, nt), k);
        (Just(net), order, fs)
    })
}

/// Saturation from the initial marking: the reachable set and its forest.
fn reachable(net: &PetriNet, order: &[usize]) -> (saturn_model::Model, Dd, NodeId) {
    let model = net.to_model(order).unwrap();
    let mut dd = Dd::new(model.num_levels());
    let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
    let init = reach.state_set(&model.initial);
    let rch = reach.explore(init, Method::Saturation).unwrap();
    drop(reach);
    (model, dd, rch)
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn atoms_match_explicit_evaluation((net, order, fs) in case(3)) {
        let Ok(space) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        let (model, mut dd, rch) = reachable(&net, &order);
        let atoms = Atoms::for_petri(&model, &order);
        let forest = &mut dd.sets;
        let pot = pot_markings(forest, &order);
        let checker = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        for f in &fs {
            let set = atoms.eval(forest, f).unwrap();
            let want: BTreeSet<Vec<u64>> = pot.iter().filter(|m| holds(&net, f, m)).cloned().collect();
            prop_assert_eq!(markings_of(forest, set, &order), want, "pot {:?}", f);
            let r = atoms.restrict(forest, set, rch);
            let sat = checker.sat(f).unwrap();
            let want: BTreeSet<Vec<u64>> = space.markings.iter().zip(&sat)
                .filter(|(_, &b)| b).map(|(m, _)| m.clone()).collect();
            prop_assert_eq!(markings_of(forest, r, &order), want, "rch {:?}", f);
        }
        // pot itself, and the negation of a formula is its complement within pot
        let all = atoms.pot(forest);
        prop_assert_eq!(markings_of(forest, all, &order).len(), pot.len());
        let a = atoms.eval(forest, &fs[0]).unwrap();
        let na = atoms.eval(forest, &F::Not(Box::new(fs[0].clone()))).unwrap();
        prop_assert_eq!(forest.intersect(a, na), NodeId::EMPTY);
        prop_assert_eq!(forest.union(a, na), all);
    }

    #[test]
    fn ranges_match_explicit_extremes(
        (net, order, terms) in random_net(8, 10).prop_flat_map(|net| {
            let np = net.places.len();
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            let terms = proptest::collection::btree_map(0..np, -3i64..=3, 0..=np);
            (Just(net), order, terms)
        }),
        constant in -5i64..=5,
    ) {
        let Ok(space) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        let (model, dd, rch) = reachable(&net, &order);
        let atoms = Atoms::for_petri(&model, &order);
        let expr = LinExpr { terms: terms.into_iter().filter(|t| t.1 != 0).collect(), constant };
        let values: Vec<i128> = space.markings.iter().map(|m| expr.eval(m)).collect();
        let want = Some((*values.iter().min().unwrap(), *values.iter().max().unwrap()));
        prop_assert_eq!(atoms.range(&dd.sets, rch, &expr).unwrap(), want);
        prop_assert_eq!(atoms.range(&dd.sets, NodeId::EMPTY, &expr).unwrap(), None);
    }
}

#[test]
fn temporal_operators_and_unknown_indices_are_errors() {
    let net = saturn_reference::strategies::petri_net(
        &[1, 0],
        vec![(vec![(0, 1)], vec![(1, 1)], vec![])],
    );
    let (model, mut dd, _) = reachable(&net, &[0, 1]);
    let atoms = Atoms::for_petri(&model, &[0, 1]);
    let f = &mut dd.sets;
    let ef = F::EF(Box::new(F::Deadlock));
    assert_eq!(atoms.eval(f, &ef), Err(AtomError::Temporal));
    assert!(matches!(
        atoms.enabled(f, &[3]),
        Err(AtomError::UnknownTransition { transition: 3, .. })
    ));
    let bad = LinExpr {
        terms: vec![(7, 1)],
        constant: 0,
    };
    assert!(matches!(
        atoms.linear(f, &bad, saturn_logic::CmpOp::Le, 0),
        Err(AtomError::UnknownPlace { place: 7, .. })
    ));
}

// ------------------------------------------------------------------ the contest's instances

const MCC_MAX_STATES: u64 = 25_000;

/// Every maximal temporal-free subformula of `f`.
fn boolean_parts<'a>(f: &'a F, out: &mut Vec<&'a F>) {
    if f.is_ctl() && is_boolean(f) {
        out.push(f);
        return;
    }
    match f {
        F::Not(a) | F::EX(a) | F::AX(a) | F::EF(a) | F::AF(a) | F::EG(a) | F::AG(a) => {
            boolean_parts(a, out)
        }
        F::And(v) | F::Or(v) => v.iter().for_each(|a| boolean_parts(a, out)),
        F::Implies(a, b) | F::Iff(a, b) | F::EU(a, b) | F::AU(a, b) => {
            boolean_parts(a, out);
            boolean_parts(b, out);
        }
        _ => {}
    }
}

fn is_boolean(f: &F) -> bool {
    match f {
        F::Const(_) | F::Deadlock | F::Atom(_) | F::Enabled(_) => true,
        F::Not(a) => is_boolean(a),
        F::And(v) | F::Or(v) => v.iter().all(is_boolean),
        F::Implies(a, b) | F::Iff(a, b) => is_boolean(a) && is_boolean(b),
        _ => false,
    }
}

#[test]
fn mcc_atoms_match_explicit_counts_and_oracles() {
    let Some(dir) = benchmark_dir("the MCC atom tests") else {
        return;
    };
    let mut instances = 0;
    let (mut parts_checked, mut verdicts) = (0usize, 0usize);
    for (instance, _) in instances_up_to(&dir, MCC_MAX_STATES) {
        let inst = dir.join(&instance);
        let expected = oracle(&inst);
        let net = saturn_pnml::read_pnml_file(&inst.join("model.pnml")).unwrap();
        let space = explore_petri(&net, MCC_MAX_STATES as usize + 1).unwrap();
        // a non-trivial order: the file order reversed
        let order: Vec<usize> = (0..net.places.len()).rev().collect();
        let model = net.to_model(&order).unwrap();
        let mut ss =
            statespace::generate(&model, Method::Saturation, Limits::none(), None).unwrap();
        let rch = ss.states;
        let atoms = Atoms::for_petri(&model, &order);
        ss.dd.collect(); // generation garbage (rch is pinned)
        let forest = &mut ss.dd.sets;
        let checker = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        for exam in [
            "CTLCardinality",
            "CTLFireability",
            "ReachabilityCardinality",
            "ReachabilityFireability",
            "UpperBounds",
        ] {
            let formulas =
                saturn_pnml::formulas::read_formulas_file(&inst.join(format!("{exam}.xml")), &net)
                    .unwrap();
            for nf in formulas {
                let want = &expected[&nf.id];
                match &nf.resolved {
                    ResolvedQuery::Bound(e) => {
                        let (_, hi) = atoms.range(forest, rch, e).unwrap().unwrap();
                        assert_eq!(&hi.to_string(), want, "{}", nf.id);
                        verdicts += 1;
                    }
                    ResolvedQuery::Formula(f) => {
                        let mut parts = Vec::new();
                        boolean_parts(f, &mut parts);
                        for p in parts {
                            let set = atoms.eval(forest, p).unwrap();
                            let r = atoms.restrict(forest, set, rch);
                            let explicit = checker.sat(p).unwrap().iter().filter(|&&b| b).count();
                            assert_eq!(
                                forest.cardinality(r).to_string(),
                                explicit.to_string(),
                                "{} subformula {:?}",
                                nf.id,
                                p
                            );
                            parts_checked += 1;
                        }
                        let got = match f {
                            F::EF(a) if is_boolean(a) => {
                                let s = atoms.eval(forest, a).unwrap();
                                Some(!forest.intersect(s, rch).is_empty())
                            }
                            F::AG(a) if is_boolean(a) => {
                                let s = atoms.eval(forest, a).unwrap();
                                Some(forest.minus(rch, s).is_empty())
                            }
                            _ => None,
                        };
                        if let Some(got) = got {
                            let got = if got { "TRUE" } else { "FALSE" };
                            assert_eq!(got, want, "{}", nf.id);
                            verdicts += 1;
                        } else {
                            assert!(exam.starts_with("CTL"), "{}: not EF/AG over atoms", nf.id);
                        }
                    }
                }
            }
        }
        instances += 1;
    }
    eprintln!(
        "{instances} instances: {parts_checked} atom sets counted, {verdicts} Reachability/UpperBounds verdicts"
    );
    assert!(instances >= 15, "only {instances} instances");
}
