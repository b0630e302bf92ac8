//! Relation MDDs built on the fly while local domains grow (thesis Section 2.4: relations over
//! the local states found so far): a small net with inhibitor arcs whose saturation with
//! relation MDDs once lost states. Its event `t168` skips the level of `L6`, which other
//! events of the same Top read; when `L6` gained values, `N_k` was rebuilt from unchanged
//! parts and the union cache returned the union expanded over the old domain. The net came
//! out of shrinking a lowering with one-hot groups (`saturn_model::one_hot`) by hand, keeping
//! the loss.

use saturn_model::PetriNet;
use saturn_reference::explore_petri;
use saturn_reference::strategies::petri_net;
use saturn_symbolic::statespace::generate_with;
use saturn_symbolic::{Limits, Method, Relations};

/// Places `p0..p6` standing for `L7, L6, ..., L1`, all empty; transitions as `(inputs, outputs,
/// inhibitors)` with places named by their number (`L7` is 7).
fn net() -> PetriNet {
    let arcs =
        |v: &[(usize, u64)]| -> Vec<(usize, u64)> { v.iter().map(|&(n, w)| (7 - n, w)).collect() };
    type Arcs<'a> = &'a [(usize, u64)];
    let ts: [(Arcs, Arcs, Arcs); 10] = [
        (&[], &[(6, 1), (3, 1)], &[(3, 1)]),
        (&[], &[(7, 1), (4, 1)], &[(4, 1)]),
        (&[], &[(6, 4), (1, 2)], &[(6, 2)]),
        (&[(6, 4)], &[(6, 6)], &[(6, 5)]),
        (&[(6, 6)], &[(6, 10)], &[(6, 7), (4, 1)]),
        (&[], &[(7, 20)], &[(7, 17)]),
        (&[(7, 18)], &[(7, 24)], &[(7, 19)]),
        (&[(7, 21)], &[(7, 18)], &[]),
        (&[(7, 24)], &[(7, 25)], &[(7, 25)]),
        (&[(7, 25)], &[(1, 2)], &[]),
    ];
    petri_net(
        &[0; 7],
        ts.iter()
            .map(|(i, o, h)| (arcs(i), arcs(o), arcs(h)))
            .collect(),
    )
}

#[test]
fn relation_mdds_keep_up_with_growing_domains() {
    let net = net();
    let explicit = explore_petri(&net, 10_000).expect("finite");
    assert_eq!(explicit.states, 88);
    let n = net.places.len();
    for order in [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()] {
        let model = net.to_model(&order).unwrap();
        for rel in [Relations::Implicit, Relations::Mdd] {
            let m = generate_with(&model, Method::Saturation, rel, Limits::none(), None)
                .unwrap()
                .metrics;
            assert_eq!(
                m.states,
                (explicit.states as u64).into(),
                "{order:?} {rel:?}"
            );
            assert_eq!(
                m.transitions,
                explicit.transitions.into(),
                "{order:?} {rel:?}"
            );
        }
    }
}
