//! Variable orders: FORCE returns a permutation, never worse than its start (the file order).

use proptest::prelude::*;
use saturn_model::families::generate;
use saturn_model::order::{by_name, file_order, force, sloan, total_span, ORDER_NAMES};
use saturn_model::PetriNet;

use crate::common::{is_permutation, random_net};

#[test]
fn force_on_the_families() {
    for (f, n) in [
        ("kanban", 3),
        ("philosophers", 20),
        ("slot", 10),
        ("queens", 6),
        ("fms", 2),
        ("robin", 8),
    ] {
        let net = generate(f, n).unwrap();
        let order = force(&net, 100);
        assert!(is_permutation(&order, net.places.len()), "{f}");
        assert!(
            total_span(&net, &order) <= total_span(&net, &file_order(&net)),
            "{f}"
        );
        assert_eq!(order, force(&net, 100), "{f}: deterministic");
        for name in ORDER_NAMES {
            assert!(
                is_permutation(&by_name(&net, name).unwrap(), net.places.len()),
                "{f} {name}"
            );
        }
    }
}

#[test]
fn force_shortens_the_spans_of_a_shuffled_ring() {
    // philosophers with places listed in a scrambled order: FORCE must find a better order
    let mut net = generate("philosophers", 12).unwrap();
    let n = net.places.len();
    let perm: Vec<usize> = (0..n).map(|i| (i * 37) % n).collect(); // 37 is coprime to 72
    let mut new_index = vec![0; n];
    for (new, &old) in perm.iter().enumerate() {
        new_index[old] = new;
    }
    net.places = perm.iter().map(|&old| net.places[old].clone()).collect();
    for t in &mut net.transitions {
        for a in t.inputs.iter_mut().chain(t.outputs.iter_mut()) {
            a.place = new_index[a.place];
        }
    }
    let start = total_span(&net, &file_order(&net));
    let span = total_span(&net, &force(&net, 200));
    assert!(span < start, "force {span} vs file {start}");
    let span = total_span(&net, &sloan(&net));
    assert!(span < start, "sloan {span} vs file {start}");
}

#[test]
fn empty_net() {
    let net = PetriNet::default();
    assert!(force(&net, 10).is_empty());
    assert_eq!(total_span(&net, &[]), 0);
}

proptest! {
    #[test]
    fn force_is_a_permutation_never_worse_than_file(net in random_net(), iters in 0usize..30) {
        let order = force(&net, iters);
        prop_assert!(is_permutation(&order, net.places.len()));
        prop_assert!(total_span(&net, &order) <= total_span(&net, &file_order(&net)));
    }

    #[test]
    fn sloan_is_a_permutation(net in random_net()) {
        prop_assert!(is_permutation(&sloan(&net), net.places.len()));
    }
}
