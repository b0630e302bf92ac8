//! The SCC engines against Tarjan's algorithm on the explicit reachability graph
//! (crates/reference): on random small nets under random level orders, and on every contest
//! net under `../shared/benchmarks/mcc/` with at most 30 000 states. Lockstep must find exactly
//! the states on nontrivial cycles and the number of nontrivial SCCs; XB the terminal SCCs
//! themselves (each class as a set of states).

use std::collections::{BTreeSet, HashMap};

use proptest::prelude::*;
use saturn_dd::{Forest, NodeId};
use saturn_model::{Model, PetriNet};
use saturn_reference::mcc::{benchmark_dir, instances_up_to};
use saturn_reference::scc::{Graph, Sccs};
use saturn_reference::strategies::{petri_net, small_net};
use saturn_reference::{explore_model, ExplicitStateSpace};
use saturn_symbolic::scc::{scc_of_model, SccMethod, SccOptions};

type States = BTreeSet<usize>;

/// The explicit state numbers of a symbolic set.
fn states_of(forest: &Forest, set: NodeId, index: &HashMap<Vec<u32>, usize>) -> States {
    let mut out = States::new();
    forest.for_each_state(set, usize::MAX, |t| {
        out.insert(
            *index
                .get(t)
                .expect("a symbolic state the explicit search did not reach"),
        );
    });
    out
}

/// Run both engines on `model` (collecting garbage at every safe point with `gc_always`) and
/// compare them with Tarjan on `space`; returns the number of nontrivial SCCs (for the
/// callers' notes).
fn check(
    model: &Model,
    space: &ExplicitStateSpace<Vec<u32>>,
    gc_always: bool,
    what: &str,
) -> usize {
    let opts = |method| SccOptions {
        gc_always,
        ..SccOptions::new(method)
    };
    let graph = Graph::new(space);
    let sccs = Sccs::new(&graph);
    let index: HashMap<Vec<u32>, usize> = space
        .markings
        .iter()
        .enumerate()
        .map(|(i, m)| (m.clone(), i))
        .collect();
    let want_states: States = sccs
        .cycle_states()
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b)
        .map(|(s, _)| s)
        .collect();

    let out = scc_of_model(model, opts(SccMethod::Lockstep), None).unwrap();
    let reach = states_of(&out.sets, out.reachable, &index);
    assert_eq!(reach.len(), space.num_states(), "{what}: reachable states");
    assert_eq!(
        states_of(&out.sets, out.states, &index),
        want_states,
        "{what}: Lockstep SCC states"
    );
    assert_eq!(out.state_count.to_string(), want_states.len().to_string());
    assert_eq!(
        out.count as usize,
        sccs.nontrivial_count(),
        "{what}: Lockstep SCC count"
    );

    let out = scc_of_model(model, opts(SccMethod::XbBfs), None).unwrap();
    let want: BTreeSet<States> = sccs
        .terminal()
        .into_iter()
        .map(|c| c.into_iter().map(|s| s as usize).collect())
        .collect();
    let got: BTreeSet<States> = out
        .classes
        .iter()
        .map(|&c| states_of(&out.sets, c, &index))
        .collect();
    assert_eq!(got.len(), out.classes.len(), "{what}: a class found twice");
    assert_eq!(got, want, "{what}: XB terminal SCCs");
    assert_eq!(out.count as usize, want.len());
    let union: States = want.iter().flatten().copied().collect();
    assert_eq!(states_of(&out.sets, out.states, &index), union);
    sccs.nontrivial_count()
}

/// A random conservative net (every transition moves as many tokens in as out, so the net is
/// bounded by construction: hundreds of states, with transient states, several SCCs and
/// terminal ones), or now and then one of the shared small random nets (deadlocks, one-state
/// nets), under a random level order.
fn bounded_case() -> impl Strategy<Value = (PetriNet, Vec<usize>)> {
    let conservative = (4usize..=7).prop_flat_map(|np| {
        let places = proptest::collection::vec(0u64..=2, np);
        let moves = (1usize..=2).prop_flat_map(move |k| {
            (
                proptest::collection::vec((0..np, Just(1u64)), k),
                proptest::collection::vec((0..np, Just(1u64)), k),
                proptest::collection::vec((0..np, 1u64..=2), 0..=1),
            )
        });
        let transitions = proptest::collection::vec(moves, 3..=12);
        (places, transitions).prop_map(|(places, ts)| petri_net(&places, ts))
    });
    prop_oneof![4 => conservative, 1 => small_net(5, 5)].prop_flat_map(|net| {
        let order = Just((0..net.places.len()).collect::<Vec<usize>>()).prop_shuffle();
        (Just(net), order)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn random_nets_match_tarjan((net, order) in bounded_case(), gc_always in any::<bool>()) {
        let model = net.to_model(&order).unwrap();
        let space = explore_model(&model, 3000);
        prop_assume!(space.is_ok(), "unbounded or too large");
        check(&model, &space.unwrap(), gc_always, "random net");
    }
}

#[test]
fn mcc_nets_match_tarjan() {
    const MAX_STATES: u64 = 30_000;
    let Some(dir) = benchmark_dir("the SCC oracle test on contest nets") else {
        return;
    };
    let mut checked = 0;
    for (instance, states) in instances_up_to(&dir, MAX_STATES) {
        let net = saturn_pnml::read_pnml_file(&dir.join(&instance).join("model.pnml")).unwrap();
        let order: Vec<usize> = (0..net.places.len()).collect();
        let model = net.to_model(&order).unwrap();
        let space = explore_model(&model, MAX_STATES as usize + 1).unwrap();
        assert_eq!(
            space.num_states() as u64,
            states,
            "{instance}: INDEX.tsv states"
        );
        let n = check(&model, &space, false, &instance);
        eprintln!("{instance}: {states} states, {n} nontrivial SCCs");
        checked += 1;
    }
    assert!(
        checked > 0,
        "no contest instance with at most {MAX_STATES} states"
    );
}
