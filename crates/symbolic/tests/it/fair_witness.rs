//! Shortest fair witnesses (thesis section 5.3.2) against an explicit oracle: on random small
//! nets and orders, under one to three weak fairness sets, in both deadlock readings, with both
//! fair EG methods, the witness of `EG g`, the counterexample of `AF g` and of `A[g U h]`
//! exist exactly when the explicit checker (with the same fairness) says so; each replays on
//! the Petri net (each transition enabled, each marking the firing's result), closes its lasso
//! (under fairness every infinite witness is a lasso: a finite path is never fair, a deadlock's
//! loop is one step), stays in its set, its cycle meets every fairness set, and its length
//! equals the explicit minimum (`CtlChecker::shortest_fair_lasso`: every knot, every order of
//! the sets, breadth-first). With `WitnessMethod::Bfs` (the first knot found) the lasso is valid,
//! says it is not shortest, and is no shorter.

use crate::ctl_support;

use proptest::prelude::*;
use saturn_dd::Dd;
use saturn_logic::StateFormula as F;
use saturn_reference::explore_petri;
use saturn_reference::strategies::{boolean_formula, config, ctl_formula, discard};
use saturn_symbolic::ctl::{Deadlocks, FairMethod, WitnessMethod};

use crate::ctl_support::replay;

proptest! {
    #![proptest_config(config(150))]

    #[test]
    fn fair_witnesses_are_shortest(
        (net, order, g, h, fair) in ctl_support::nets_or_families(vec![("philosophers", 3), ("kanban", 1), ("robin", 3)]).prop_flat_map(|net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let order = Just((0..np).collect::<Vec<usize>>()).prop_shuffle();
            let fair = proptest::collection::vec(boolean_formula(np, nt), 1..=3);
            (Just(net), order, ctl_formula(np, nt), ctl_formula(np, nt), fair)
        }),
        self_loop in any::<bool>(),
        el in any::<bool>(),
    ) {
        let Ok(space) = explore_petri(&net, 2_000) else { return Err(discard("unbounded or too large for the reference")) };
        let mode = if self_loop { Deadlocks::SelfLoop } else { Deadlocks::Maximal };
        let ctl_support::FairOracle { fairly, sets, index } = ctl_support::fair_oracle(&net, &space, mode, &fair);
        let model = net.to_model(&order).unwrap();
        let mut dd = Dd::new(model.num_levels());
        let mut checker = ctl_support::checker(&mut dd, &model, &order, mode);
        checker.set_fair_method(if el { FairMethod::EmersonLei } else { FairMethod::Tc });
        checker.set_fairness(&fair).unwrap();
        // the arguments' own EGs are fair too; the fairness sets are evaluated without fairness
        let sg = fairly.sat(&g).unwrap();
        let sh = fairly.sat(&h).unwrap();
        let not = |v: &[bool]| v.iter().map(|x| !x).collect::<Vec<bool>>();
        let nh = not(&sh);
        let end: Vec<bool> = (0..sg.len()).map(|s| nh[s] && !sg[s]).collect();
        let b = |f: &F| Box::new(f.clone());
        for method in [WitnessMethod::Layers, WitnessMethod::Bfs] {
            checker.set_witness_method(method);
            for (f, within) in [
                (F::EG(b(&g)), sg.clone()),
                (F::AF(b(&g)), not(&sg)),
                (F::AU(b(&g), b(&h)), nh.clone()),
            ] {
                let holds = fairly.holds(&f).unwrap();
                let w = checker.witness(&f).unwrap();
                prop_assert_eq!(w.is_some(), holds == matches!(f, F::EG(_)), "{:?}", f);
                let Some(w) = w else { continue };
                let st = replay(&net, &model, &order, &index, &w, mode)?;
                let lasso_min = fairly.shortest_fair_lasso(&within, &sets);
                // the counterexample of A[g U h] may instead be the path of E[¬h U ¬g ∧ ¬h]
                let path_min = match f {
                    F::AU(..) => fairly.eu_distances(&nh, &end)[0].map(|d| d as usize),
                    _ => None,
                };
                let min = lasso_min.into_iter().chain(path_min).min();
                let what = format!("{f:?} {mode:?} {method:?} fair {fair:?}");
                match w.loop_start {
                    Some(l) => {
                        prop_assert_eq!(st[l], *st.last().unwrap(), "{} does not close", what);
                        prop_assert!(st.iter().all(|&s| within[s]), "{} leaves its set", what);
                        for (m, set) in sets.iter().enumerate() {
                            prop_assert!(st[l..].iter().any(|&s| set[s]), "{}: the cycle misses set {}", what, m);
                        }
                        prop_assert_eq!(lasso_min.map(|x| x <= w.len()), Some(true), "{} below the minimum", what);
                    }
                    None => {
                        // only a path of E[¬h U ¬g ∧ ¬h]
                        prop_assert!(matches!(f, F::AU(..)), "{} not a lasso", what);
                        prop_assert!(end[*st.last().unwrap()], "{}", what);
                        prop_assert!(st[..st.len() - 1].iter().all(|&s| nh[s]), "{}", what);
                    }
                }
                if method == WitnessMethod::Layers {
                    prop_assert!(w.shortest && w.method == WitnessMethod::Layers, "{}", what);
                    prop_assert_eq!(Some(w.len()), min, "{} not shortest", what);
                } else if w.loop_start.is_some() && !matches!(f, F::AU(..)) {
                    prop_assert!(!w.shortest && w.method == WitnessMethod::Bfs, "{}", what);
                    prop_assert!(Some(w.len()) >= min, "{}", what);
                }
            }
        }
    }
}
