use super::*;
use crate::{Arc, Place, Transition};

/// A chain p0 - p1 - ... - p{n-1} written in a scrambled file order.
fn scrambled_chain(perm: &[usize]) -> PetriNet {
    let places = perm
        .iter()
        .map(|&i| Place {
            id: format!("p{i}"),
            name: format!("p{i}"),
            initial: 0,
        })
        .collect::<Vec<_>>();
    let idx = |i: usize| perm.iter().position(|&x| x == i).unwrap_or(0);
    let transitions = (0..perm.len() - 1)
        .map(|i| Transition {
            id: format!("t{i}"),
            name: format!("t{i}"),
            inputs: vec![Arc {
                place: idx(i),
                weight: 1,
            }],
            outputs: vec![Arc {
                place: idx(i + 1),
                weight: 1,
            }],
            inhibitors: vec![],
        })
        .collect();
    PetriNet {
        name: "chain".into(),
        places,
        transitions,
    }
}

#[test]
fn span_of_a_chain() {
    let net = scrambled_chain(&[0, 1, 2, 3]);
    assert_eq!(total_span(&net, &[0, 1, 2, 3]), 3);
    assert_eq!(total_span(&net, &[3, 2, 1, 0]), 3);
    assert_eq!(total_span(&net, &[0, 2, 1, 3]), 1 + 2 + 2); // spans 2 (0-1), 1 (1-2), 2 (2-3)
}

#[test]
fn force_untangles_a_scrambled_chain() {
    let net = scrambled_chain(&[0, 5, 2, 7, 1, 4, 6, 3]);
    let start = total_span(&net, &file_order(&net));
    let order = force(&net, 50);
    let span = total_span(&net, &order);
    assert!(span < start, "force {span} vs file {start}");
    assert!(span >= 7, "the optimum for a chain of 8 places is 7");
}

#[test]
fn by_name_knows_its_orders() {
    let net = scrambled_chain(&[1, 0, 2]);
    assert_eq!(by_name(&net, "file").unwrap(), vec![2, 1, 0]);
    assert_eq!(by_name(&net, "file-rev").unwrap(), vec![0, 1, 2]);
    assert_eq!(by_name(&net, "force").unwrap().len(), 3);
    let err = by_name(&net, "sideways").unwrap_err();
    assert!(err.contains("sideways") && err.contains("force"), "{err}");
}
