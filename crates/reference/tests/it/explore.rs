//! The explicit explorer on tiny hand-made nets with hand-computed answers, and Petri-net
//! exploration against exploration of the lowered `Model` on random small nets.

use proptest::prelude::*;
use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_reference::strategies::config;
use saturn_reference::{explore_model, explore_petri, Limit};

fn place(id: &str, initial: u64) -> Place {
    Place {
        id: id.into(),
        name: id.into(),
        initial,
    }
}

fn arc(place: usize, weight: u64) -> Arc {
    Arc { place, weight }
}

fn trans(id: &str, inputs: Vec<Arc>, outputs: Vec<Arc>, inhibitors: Vec<Arc>) -> Transition {
    Transition {
        id: id.into(),
        name: id.into(),
        inputs,
        outputs,
        inhibitors,
    }
}

#[test]
fn one_move() {
    // p(1) --t--> q: markings (1,0) and (0,1); (0,1) is a deadlock.
    let net = PetriNet {
        name: "move".into(),
        places: vec![place("p", 1), place("q", 0)],
        transitions: vec![trans("t", vec![arc(0, 1)], vec![arc(1, 1)], vec![])],
    };
    let ss = explore_petri(&net, 100).unwrap();
    assert_eq!(ss.states, 2);
    assert_eq!(ss.markings, vec![vec![1, 0], vec![0, 1]]);
    assert_eq!(ss.successors, vec![vec![(0, 1)], vec![]]);
    assert_eq!(ss.transitions, 1);
    assert_eq!((ss.max_tokens_place, ss.max_tokens_marking), (1, 1));
    assert_eq!(ss.deadlocks().collect::<Vec<_>>(), vec![1]);
    assert_eq!(ss.predecessors(), vec![vec![], vec![(0, 0)]]);
}

#[test]
fn inhibitor_bounds_a_generator() {
    // t adds a token to p while p < 3: markings 0..=3.
    let net = PetriNet {
        name: "gen".into(),
        places: vec![place("p", 0)],
        transitions: vec![trans("t", vec![], vec![arc(0, 1)], vec![arc(0, 3)])],
    };
    let ss = explore_petri(&net, 100).unwrap();
    assert_eq!(ss.states, 4);
    assert_eq!(ss.transitions, 3);
    assert_eq!((ss.max_tokens_place, ss.max_tokens_marking), (3, 3));
}

#[test]
fn parallel_transitions_count_twice() {
    // t1 and t2 both move p to q: one successor marking, two edges.
    let net = PetriNet {
        name: "twins".into(),
        places: vec![place("p", 1), place("q", 0)],
        transitions: vec![
            trans("t1", vec![arc(0, 1)], vec![arc(1, 1)], vec![]),
            trans("t2", vec![arc(0, 1)], vec![arc(1, 1)], vec![]),
        ],
    };
    let ss = explore_petri(&net, 100).unwrap();
    assert_eq!(ss.states, 2);
    assert_eq!(ss.transitions, 2);
    assert_eq!(ss.successors[0], vec![(0, 1), (1, 1)]);
}

#[test]
fn weights_and_token_sums() {
    // p(4), t: 2p -> q, u: q -> 3r. Markings: (4,0,0) (2,1,0) (0,2,0) (2,0,3) (0,1,3) (0,0,6).
    let net = PetriNet {
        name: "weights".into(),
        places: vec![place("p", 4), place("q", 0), place("r", 0)],
        transitions: vec![
            trans("t", vec![arc(0, 2)], vec![arc(1, 1)], vec![]),
            trans("u", vec![arc(1, 1)], vec![arc(2, 3)], vec![]),
        ],
    };
    let ss = explore_petri(&net, 100).unwrap();
    let mut m = ss.markings.clone();
    m.sort();
    assert_eq!(
        m,
        vec![
            vec![0, 0, 6],
            vec![0, 1, 3],
            vec![0, 2, 0],
            vec![2, 0, 3],
            vec![2, 1, 0],
            vec![4, 0, 0]
        ]
    );
    // enabled: (4,0,0):t (2,1,0):t,u (0,2,0):u (2,0,3):t (0,1,3):u (0,0,6):none
    assert_eq!(ss.transitions, 6);
    assert_eq!((ss.max_tokens_place, ss.max_tokens_marking), (6, 6));
}

#[test]
fn unbounded_net_hits_the_limit() {
    let net = PetriNet {
        name: "unbounded".into(),
        places: vec![place("p", 0)],
        transitions: vec![trans("t", vec![], vec![arc(0, 1)], vec![])],
    };
    assert_eq!(
        explore_petri(&net, 10),
        Err(Limit::States { max_states: 10 })
    );
    let msg = Limit::States { max_states: 10 }.to_string();
    assert!(msg.contains("10"));
}

#[test]
fn empty_net_has_one_state() {
    let ss = explore_petri(&PetriNet::default(), 1).unwrap();
    assert_eq!((ss.states, ss.transitions), (1, 0));
}

fn small_net() -> impl Strategy<Value = PetriNet> {
    saturn_reference::strategies::random_net(8, 10)
}

proptest! {
    #![proptest_config(config(200))]

    /// Exploring the lowered model (any level order) gives the same graph sizes as exploring
    /// the net.
    #[test]
    fn petri_and_model_exploration_agree(net in small_net(), rev in any::<bool>()) {
        let n = net.places.len();
        let order: Vec<usize> = if rev { (0..n).rev().collect() } else { (0..n).collect() };
        let a = explore_petri(&net, 2_000);
        let model = net.to_model(&order).unwrap();
        let b = explore_model(&model, 2_000);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.states, b.states);
                prop_assert_eq!(a.transitions, b.transitions);
                prop_assert_eq!(a.max_tokens_place, b.max_tokens_place);
                prop_assert_eq!(a.max_tokens_marking, b.max_tokens_marking);
                // same markings, up to the level order
                let mut ma = a.markings.clone();
                ma.sort();
                let mut mb: Vec<Vec<u64>> = b.markings.iter().map(|s| {
                    let mut m = vec![0u64; n];
                    for (k, &p) in order.iter().enumerate() { m[p] = u64::from(s[k]); }
                    m
                }).collect();
                mb.sort();
                prop_assert_eq!(ma, mb);
            }
            (Err(Limit::States { .. }), Err(Limit::States { .. })) => {}
            (a, b) => prop_assert!(false, "petri {:?} vs model {:?}", a.map(|s| s.states), b.map(|s| s.states)),
        }
    }
}
