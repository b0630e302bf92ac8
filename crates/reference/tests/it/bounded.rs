//! Boundedness (saturn_model::bounded) against the explicit reference: random nets with a
//! guaranteed unbounded place are reported unbounded with a witness that replays; nets whose
//! explicit exploration is finite are never reported unbounded; structural bounds are at least
//! the explicit maxima.

use std::cell::Cell;

use proptest::prelude::*;
use saturn_model::bounded::{
    decide_boundedness_with, find_witness, p_semiflow_supports, replay, structural_bounds,
    walk_witness, Boundedness, Limits, ReplayError, SearchOutcome, Witness,
};
use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_reference::explore_petri;
use saturn_reference::farkas;
use saturn_reference::strategies::petri_net;

const MAX_STATES: usize = 20_000;

fn random_net(inhibitors: bool) -> impl Strategy<Value = PetriNet> {
    (1usize..=6, 0usize..=6).prop_flat_map(move |(np, nt)| {
        let places = proptest::collection::vec(0u64..=2, np);
        let arcs = proptest::collection::vec((0..np, 1u64..=2), 0..=3);
        let inhib = proptest::collection::vec((0..np, 1u64..=3), 0..=usize::from(inhibitors));
        let transitions = proptest::collection::vec((arcs.clone(), arcs, inhib), nt);
        (places, transitions).prop_map(|(places, ts)| petri_net(&places, ts))
    })
}

/// A conservative net: every transition moves as many tokens as it takes (unit weights), so
/// the all-ones vector is a P-semiflow covering every place.
fn conservative_net() -> impl Strategy<Value = PetriNet> {
    (1usize..=6, 0usize..=6).prop_flat_map(|(np, nt)| {
        let places = proptest::collection::vec(0u64..=3, np);
        let pairs = proptest::collection::vec((0..np, 0..np), 1..=3);
        let inhib = proptest::collection::vec((0..np, 1u64..=3), 0..=1);
        let transitions = proptest::collection::vec((pairs, inhib), nt);
        (places, transitions).prop_map(|(places, ts)| {
            let ts = ts
                .into_iter()
                .map(|(pairs, inh)| {
                    let (i, o) = pairs.into_iter().map(|(a, b)| ((a, 1), (b, 1))).unzip();
                    (i, o, inh)
                })
                .collect();
            petri_net(&places, ts)
        })
    })
}

/// Add a place fed by a transition with no input and no inhibitor arc: the net is unbounded.
fn with_generator(mut net: PetriNet, feeds: usize) -> PetriNet {
    let p = net.places.len();
    net.places.push(Place {
        id: "grow".into(),
        name: "grow".into(),
        initial: 0,
    });
    let feeds = feeds % net.transitions.len().max(1);
    let gen = Transition {
        id: "gen".into(),
        name: "gen".into(),
        inputs: vec![],
        outputs: vec![Arc {
            place: p,
            weight: 1,
        }],
        inhibitors: vec![],
    };
    // let another transition read the new place too, so the growth is not always isolated
    if let Some(t) = net.transitions.get_mut(feeds) {
        t.inputs.push(Arc {
            place: p,
            weight: 1,
        });
    }
    net.transitions.insert(feeds, gen);
    net
}

/// A stop callback that answers true after `n` polls.
fn budget(n: u32) -> impl Fn() -> bool {
    let left = Cell::new(n);
    move || {
        let l = left.get();
        left.set(l.saturating_sub(1));
        l == 0
    }
}

fn limits() -> Limits {
    Limits {
        max_search_bytes: 64 << 20,
        ..Limits::default()
    }
}

fn check_against_explicit(net: &PetriNet) -> Result<(), TestCaseError> {
    let stop = budget(1_000);
    let answer = decide_boundedness_with(net, &limits(), &stop);
    let st = structural_bounds(net, &limits(), &|| false);
    match explore_petri(net, MAX_STATES) {
        Ok(ss) => {
            let mut maxima = vec![0u64; net.places.len()];
            for m in &ss.markings {
                for (x, &y) in maxima.iter_mut().zip(m) {
                    *x = (*x).max(y);
                }
            }
            for (p, b) in st.bounds.iter().enumerate() {
                if let Some(b) = b {
                    prop_assert!(*b >= maxima[p], "structural bound {b} < max {}", maxima[p]);
                }
            }
            match answer {
                Boundedness::Unbounded { witness } => {
                    prop_assert!(false, "bounded net reported unbounded: {witness:?}")
                }
                Boundedness::Bounded { bounds, structural } => {
                    if structural {
                        prop_assert!(bounds.iter().zip(&maxima).all(|(b, m)| b >= m));
                    } else {
                        prop_assert_eq!(bounds, maxima, "explored maxima are exact");
                    }
                }
                // a finite reachability set is always explored completely by the search
                Boundedness::Unknown { reason, .. } => {
                    prop_assert!(false, "bounded net left unknown: {reason:?}")
                }
            }
        }
        Err(_) => match answer {
            Boundedness::Unbounded { witness } => {
                prop_assert!(replay(net, &witness).is_ok(), "{:?}", replay(net, &witness))
            }
            Boundedness::Bounded { .. } | Boundedness::Unknown { .. } => {}
        },
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Nets with a place fed from nothing are unbounded; without inhibitor arcs the search is
    /// complete, so it must find a witness, and the witness replays.
    #[test]
    fn generator_nets_are_unbounded(base in random_net(false), feeds in 0usize..8) {
        let net = with_generator(base, feeds);
        match decide_boundedness_with(&net, &limits(), &budget(100_000)) {
            Boundedness::Unbounded { witness } => {
                let r = replay(&net, &witness);
                prop_assert!(r.is_ok(), "{r:?}");
            }
            other => prop_assert!(false, "unbounded net answered {other:?}"),
        }
    }

    /// With inhibitor arcs on the other transitions, the generator still pumps alone.
    #[test]
    fn generator_nets_with_inhibitors(base in random_net(true), feeds in 0usize..8) {
        let net = with_generator(base, feeds);
        match decide_boundedness_with(&net, &limits(), &budget(100_000)) {
            Boundedness::Unbounded { witness } => {
                let r = replay(&net, &witness);
                prop_assert!(r.is_ok(), "{r:?}");
            }
            Boundedness::Bounded { .. } => prop_assert!(false, "unbounded net reported bounded"),
            Boundedness::Unknown { .. } => {}
        }
    }

    /// Random nets, plain or with inhibitor arcs, against explicit exploration.
    #[test]
    fn random_nets_agree_with_exploration(net in random_net(false)) {
        check_against_explicit(&net)?;
    }

    #[test]
    fn random_inhibitor_nets_agree_with_exploration(net in random_net(true)) {
        check_against_explicit(&net)?;
    }

    /// The random walks alone: a witness they find replays; on a net whose reachability set
    /// is finite they find none; on generator nets they find one (the generator is enabled
    /// everywhere and grows a place nothing else touches).
    #[test]
    fn walks_are_sound(net in random_net(false), inhib in random_net(true), feeds in 0usize..8) {
        for net in [net, inhib] {
            let finite = explore_petri(&net, MAX_STATES).is_ok();
            let none = vec![false; net.places.len()];
            if let Some(w) = walk_witness(&net, &none, 64, 1 << 20, &|| false) {
                prop_assert!(!finite, "bounded net walked to a witness: {w:?}");
                prop_assert!(replay(&net, &w).is_ok(), "{:?}", replay(&net, &w));
            }
            let gen = with_generator(net, feeds);
            let none = vec![false; gen.places.len()];
            match walk_witness(&gen, &none, 64, 1 << 20, &|| false) {
                Some(w) => prop_assert!(replay(&gen, &w).is_ok(), "{:?}", replay(&gen, &w)),
                None => prop_assert!(false, "no walk found the generator"),
            }
        }
    }

    /// The sparse Farkas tableau against the textbook one (dense, minimal supports): the same
    /// minimal P-semiflows, and the same bounds from them and from the rays of `y^T C <= 0`.
    #[test]
    fn structural_bounds_match_the_textbook_farkas(net in random_net(true), cons in conservative_net()) {
        for net in [net, cons] {
            let (mut supports, complete) = p_semiflow_supports(&net, &limits(), &|| false);
            prop_assert!(complete);
            supports.sort();
            let mut expected: Vec<Vec<usize>> = farkas::minimal_rays(&net, false)
                .iter()
                .map(|y| (0..y.len()).filter(|&p| y[p] != 0).collect())
                .collect();
            expected.sort();
            prop_assert_eq!(supports, expected);
            let st = structural_bounds(&net, &limits(), &|| false);
            prop_assert!(st.complete);
            let bounds: Vec<Option<u128>> = st.bounds.iter().map(|b| b.map(u128::from)).collect();
            prop_assert_eq!(bounds, farkas::structural_bounds(&net));
        }
    }

    /// Conservative nets are settled structurally, with bounds at least the explicit maxima.
    #[test]
    fn conservative_nets_are_structurally_bounded(net in conservative_net()) {
        let st = structural_bounds(&net, &limits(), &|| false);
        prop_assert!(st.all_covered(), "{st:?}");
        prop_assert!(st.complete);
        let total: u64 = net.initial_marking().iter().sum();
        prop_assert!(st.bounds.iter().all(|b| b.unwrap() <= total));
        check_against_explicit(&net)?;
    }
}

fn arc(place: usize, weight: u64) -> Arc {
    Arc { place, weight }
}

/// p0 -> t0 -> p0 + p1: unbounded in p1.
fn pump_net() -> PetriNet {
    petri_net(&[1, 0], vec![(vec![(0, 1)], vec![(0, 1), (1, 1)], vec![])])
}

#[test]
fn replay_accepts_a_true_witness_and_names_every_flaw() {
    let net = pump_net();
    let good = Witness {
        prefix: vec![],
        pump: vec![0],
        growing: vec![1],
    };
    assert!(replay(&net, &good).is_ok());
    let empty = Witness {
        pump: vec![],
        ..good.clone()
    };
    assert_eq!(replay(&net, &empty), Err(ReplayError::EmptyPump));
    let wrong = Witness {
        growing: vec![0],
        ..good.clone()
    };
    assert!(matches!(
        replay(&net, &wrong),
        Err(ReplayError::WrongGrowing { .. })
    ));
    let missing = Witness {
        pump: vec![7],
        ..good.clone()
    };
    assert!(matches!(
        replay(&net, &missing),
        Err(ReplayError::NoSuchTransition { index: 7, .. })
    ));
    // with an inhibitor arc from p1 (weight 5) the pump cannot repeat forever
    let mut inhibited = net.clone();
    inhibited.transitions[0].inhibitors.push(arc(1, 5));
    assert!(matches!(
        replay(&inhibited, &good),
        Err(ReplayError::InhibitorGrows { .. })
    ));
    // and the search must not report it unbounded: its reachable set is finite
    match find_witness(&inhibited, &[false, false], 1 << 20, &|| false) {
        SearchOutcome::Bounded(max) => assert_eq!(max, vec![1, 5]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_witness_needs_a_prefix() {
    // t0 moves the token p0 -> p1; t1 pumps p2 only when p1 is marked.
    let net = petri_net(
        &[1, 0, 0],
        vec![
            (vec![(0, 1)], vec![(1, 1)], vec![]),
            (vec![(1, 1)], vec![(1, 1), (2, 1)], vec![]),
        ],
    );
    match decide_boundedness_with(&net, &limits(), &|| false) {
        Boundedness::Unbounded { witness } => {
            assert_eq!(witness.prefix, vec![0]);
            assert_eq!(witness.pump, vec![1]);
            assert_eq!(witness.growing, vec![2]);
            let r = replay(&net, &witness).unwrap();
            assert_eq!(r.start, vec![0, 1, 0]);
            assert_eq!(r.end, vec![0, 1, 1]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn sinks_are_bounded_by_the_inequality_cone() {
    // t0 consumes from p0 and produces nothing; t1 moves p1 -> p0: no P-semiflow covers p0 or
    // p1 with equality on t0, but y = (1, 1) gives y^T C = (-1, 0) <= 0.
    let net = petri_net(
        &[2, 3],
        vec![
            (vec![(0, 1)], vec![], vec![]),
            (vec![(1, 1)], vec![(0, 1)], vec![]),
        ],
    );
    let st = structural_bounds(&net, &limits(), &|| false);
    assert_eq!(st.bounds, vec![Some(5), Some(3)]);
    assert!(st.complete);
}

#[test]
fn weighted_semiflow_bounds_are_exact() {
    // t0: 2 p0 -> p1; t1: p1 -> 2 p0. y = (1, 2): p0 <= 4, p1 <= 2.
    let net = petri_net(
        &[4, 0],
        vec![
            (vec![(0, 2)], vec![(1, 1)], vec![]),
            (vec![(1, 1)], vec![(0, 2)], vec![]),
        ],
    );
    let st = structural_bounds(&net, &limits(), &|| false);
    assert_eq!(st.bounds, vec![Some(4), Some(2)]);
}

#[test]
fn stopping_gives_unknown() {
    // an unbounded place hidden behind an inhibitor arc on a pump that needs it empty is
    // still searched; a stop request ends the search at once
    let net = petri_net(
        &[1, 0],
        vec![(vec![(0, 1)], vec![(0, 1), (1, 1)], vec![(1, 1_000_000_000)])],
    );
    match decide_boundedness_with(&net, &limits(), &|| true) {
        Boundedness::Unknown { bounds, .. } => assert_eq!(bounds, vec![Some(1), None]),
        other => panic!("{other:?}"),
    }
}
