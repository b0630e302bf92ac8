//! Helpers shared by the order tests.
#![allow(dead_code)]

use proptest::prelude::*;
use saturn_model::{Arc, PetriNet, Place, Transition};

/// Is `order` a permutation of `0..n`?
pub fn is_permutation(order: &[usize], n: usize) -> bool {
    let mut seen = vec![false; n];
    order.len() == n
        && order
            .iter()
            .all(|&p| p < n && !std::mem::replace(&mut seen[p], true))
}

/// A random net of up to 12 places and 12 transitions (arcs of weight 1).
pub fn random_net() -> impl Strategy<Value = PetriNet> {
    (1usize..=12).prop_flat_map(|np| {
        let edge = proptest::collection::vec(0..np, 0..=4);
        proptest::collection::vec((edge.clone(), edge), 0..=12).prop_map(move |ts| PetriNet {
            name: "r".into(),
            places: (0..np)
                .map(|i| Place {
                    id: format!("p{i}"),
                    name: String::new(),
                    initial: 0,
                })
                .collect(),
            transitions: ts
                .into_iter()
                .enumerate()
                .map(|(i, (a, b))| Transition {
                    id: format!("t{i}"),
                    name: String::new(),
                    inputs: a
                        .into_iter()
                        .map(|p| Arc {
                            place: p,
                            weight: 1,
                        })
                        .collect(),
                    outputs: b
                        .into_iter()
                        .map(|p| Arc {
                            place: p,
                            weight: 1,
                        })
                        .collect(),
                    inhibitors: vec![],
                })
                .collect(),
        })
    })
}
