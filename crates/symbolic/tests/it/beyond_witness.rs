//! Shortest witnesses beyond `EG` (thesis section 5.3.1) against an explicit oracle: on random
//! small nets and orders, in both deadlock readings, without fairness and under one or two weak
//! fairness sets, at witness depth 2: the witness of `EF(r ∧ EG s)` and the counterexample of
//! `AG(r → AF t)` (a lasso of `F(r ∧ G s)`), the witness of `EG EF φ` and the counterexample of
//! `AF AG ψ` (a lasso whose cycle meets `φ`, `G F φ`) exist exactly when the explicit checker
//! says the formula holds (fails); each replays on the Petri net, shows what it says it shows
//! (`r` at the marking it names and `s` from there on, or `φ` on the cycle), its cycle meets
//! every fairness set, and its length equals the explicit minimum of the thesis's formulas
//! (`CtlChecker::shortest_until_globally`: shapes (a) and (b) of Figure 5.4;
//! `CtlChecker::shortest_recurrent`: Equation 5.2), by breadth-first searches from every state.
//! When no lasso meets `φ` (`E GF φ` fails where `EG EF φ` holds) the witness is the plain `EG`
//! lasso and says so. At depth 1 the witnesses are those of the outermost operator.
//!
//! `Checker::explain` (`--witness-depth`): on random nets and random nested CTL formulas, at
//! depths 1 to 3, every nested witness replays on the net from the marking of its parent it
//! names, its formula holds there when it is an E-formula and fails there when it is an
//! A-formula (the explicit checker), and nesting goes no deeper than the depth.

use crate::ctl_support;

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_logic::StateFormula as F;
use saturn_reference::explore_petri;
use saturn_reference::strategies::{boolean_formula, config, ctl_formula, discard};
use saturn_symbolic::ctl::{Deadlocks, Explained, Shows};

use crate::ctl_support::replay;

fn b(f: &F) -> Box<F> {
    Box::new(f.clone())
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 600, ..config(150) })]

    #[test]
    fn beyond_eg_witnesses_are_shortest(
        (net, order, r, s, fair) in ctl_support::nets_or_families(vec![("philosophers", 3), ("robin", 3)]).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            let fair = proptest::collection::vec(boolean_formula(np, nt), 0..=2);
            (Just(net), order, ctl_formula(np, nt), boolean_formula(np, nt), fair)
        }),
        self_loop in any::<bool>(),
    ) {
        let Ok(space) = explore_petri(&net, 300) else { return Err(discard("unbounded or too large for the oracle")) };
        let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let ctl_support::FairOracle { fairly, sets, index } = ctl_support::fair_oracle(&net, &space, mode, &fair);
        let model = net.to_model(&order).unwrap();
        let mut dd = Dd::new(model.num_levels());
        let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
        checker.set_fairness(&fair).unwrap();
        checker.set_witness_depth(2);
        let sr = fairly.sat(&r).unwrap();
        let ss = fairly.sat(&s).unwrap();
        let not_s = F::Not(b(&s));
        // the readings of r ∧ EG s as r' ∧ EG s': also EG s ∧ EG x when r is EG x (or ¬AF t,
        // which is EG ¬t)
        let mut reads = vec![(sr.clone(), ss.clone())];
        let r_as_eg = match &r {
            F::EG(x) => Some(x.as_ref().clone()),
            F::Not(y) => match y.as_ref() {
                F::AF(t) => Some(F::Not(t.clone())),
                _ => None,
            },
            _ => None,
        };
        if let Some(x) = r_as_eg {
            reads.push((fairly.sat(&F::EG(b(&s))).unwrap(), fairly.sat(&x).unwrap()));
        }
        let cases = [
            // (formula, is an E-formula, readings) for F(r ∧ G s); (.., None) for G F φ
            (F::EF(b(&F::And(vec![r.clone(), F::EG(b(&s))]))), true, Some(reads.clone())),
            (F::AG(b(&F::Implies(b(&r), b(&F::AF(b(&not_s)))))), false, Some(reads.clone())),
            (F::EG(b(&F::EF(b(&s)))), true, None),
            (F::AF(b(&F::AG(b(&not_s)))), false, None),
        ];
        for (f, is_e, until) in cases {
            let holds = fairly.holds(&f).unwrap();
            let got = checker.explained_witness(&f).unwrap();
            prop_assert_eq!(got.is_some(), holds == is_e, "{:?}", f);
            let Some((w, shows)) = got else { continue };
            let what = format!("{f:?} {mode:?} fair {fair:?}");
            let st = replay(&net, &model, &order, &index, &w, mode)?;
            prop_assert!(w.shortest, "{}", what);
            if let Some(l) = w.loop_start {
                for set in &sets {
                    prop_assert!(st[l..].iter().any(|&x| set[x]), "{}: the cycle misses a set", what);
                }
            } else {
                prop_assert!(sets.is_empty() && mode == Deadlocks::Maximal, "{}: not a lasso", what);
                prop_assert!(space.successors[*st.last().unwrap()].is_empty(), "{}", what);
            }
            match (until, shows) {
                (Some(reads), Shows::UntilGlobally { from, .. }) => {
                    let shown = reads.iter().any(|(sr, ss)| sr[st[from]] && st[from..].iter().all(|&x| ss[x]));
                    prop_assert!(shown, "{}: not r then always s from step {}", what, from);
                    let min = reads.iter().filter_map(|(sr, ss)| fairly.shortest_until_globally(sr, ss, &sets)).min();
                    prop_assert_eq!(Some(w.len()), min, "{} not shortest", what);
                }
                (None, Shows::Recurrent { at, .. }) => {
                    prop_assert!(ss[st[at]], "{}: phi misses", what);
                    prop_assert!(w.loop_start.is_none_or(|l| at >= l), "{}: phi not on the cycle", what);
                    let min = fairly.shortest_recurrent(&ss, &sets);
                    prop_assert_eq!(Some(w.len()), min, "{} not shortest", what);
                }
                (None, Shows::Operator) => {
                    // EG EF φ holds with no lasso meeting φ: the plain EG lasso
                    prop_assert_eq!(fairly.shortest_recurrent(&ss, &sets), None, "{}", what);
                }
                (u, sh) => prop_assert!(false, "{}: shows {:?} for {:?}", what, sh, u.is_some()),
            }
        }
        // depth 1: the outermost operator's witness, as before
        checker.set_witness_depth(1);
        let f = F::EF(b(&F::And(vec![r.clone(), F::EG(b(&s))])));
        if let Some((w, shows)) = checker.explained_witness(&f).unwrap() {
            prop_assert_eq!(shows, Shows::Operator);
            prop_assert_eq!(Some(w), checker.witness(&f).unwrap());
        }
    }
}

/// Check the explanation `e` of `f` from the marking `start` (see the module comment); the
/// number of witnesses in it.
#[allow(clippy::too_many_arguments)]
fn check_explained(
    net: &saturn_model::PetriNet,
    model: &saturn_model::Model,
    order: &[usize],
    index: &std::collections::HashMap<Vec<u64>, usize>,
    fairly: &saturn_reference::CtlChecker<'_>,
    mode: Deadlocks,
    f: &F,
    e: &Explained,
    start: &[u64],
    depth: usize,
) -> Result<usize, TestCaseError> {
    prop_assert!(depth >= 1, "nested deeper than asked");
    let st = ctl_support::replay_from(net, model, order, index, &e.witness, mode, start)?;
    let holds = fairly.sat(f).unwrap()[index[start]];
    let is_a = matches!(f, F::AX(_) | F::AF(_) | F::AG(_) | F::AU(..));
    prop_assert_eq!(holds, !is_a, "{:?} has a witness", f);
    let mut n = 1;
    for (step, g, sub) in &e.nested {
        let m = &fairly.markings()[st[*step]];
        n += check_explained(net, model, order, index, fairly, mode, g, sub, m, depth - 1)?;
    }
    Ok(n)
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 600, ..config(100) })]

    #[test]
    fn explained_witnesses_replay_and_hold(
        (net, order, fs, fair) in ctl_support::nets_or_families(vec![("philosophers", 3), ("robin", 3)]).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            let fair = proptest::collection::vec(boolean_formula(np, nt), 0..=1);
            (Just(net), order, proptest::collection::vec(ctl_formula(np, nt), 3), fair)
        }),
        self_loop in any::<bool>(),
        depth in 1usize..=3,
    ) {
        let Ok(space) = explore_petri(&net, 1_000) else { return Err(discard("unbounded or too large for the oracle")) };
        let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let ctl_support::FairOracle { fairly, index, .. } = ctl_support::fair_oracle(&net, &space, mode, &fair);
        let model = net.to_model(&order).unwrap();
        let mut dd = Dd::new(model.num_levels());
        let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
        checker.set_fairness(&fair).unwrap();
        let m0 = net.initial_marking();
        for f in &fs {
            let Some(e) = checker.explain(f, depth).unwrap() else { continue };
            check_explained(&net, &model, &order, &index, &fairly, mode, f, &e, &m0, depth)?;
            if depth == 1 {
                prop_assert!(e.nested.is_empty());
                prop_assert_eq!(Some(e.witness), checker.witness(f).unwrap());
            }
        }
    }
}
