//! The saturated transitive closure (TransClosSat, thesis Figure 4.5) against an explicit `R+`,
//! pair by pair: on random nets (weights, inhibitor and test arcs, events of empty support)
//! under random level orders, the constrained backward closure `T^b_{X,C}` (Definition 9) and
//! the forward closure `T_{X,C}` of random subsets `X`, `C` of the reachable states (and of the
//! reachable states themselves) must hold exactly the pairs the explicit breadth-first search
//! of `crates/reference` finds: every row `{ j : (i, j) ∈ T }` equals the explicit one for every
//! reachable `i`, and restricting either side to the reachable states changes nothing.

use std::collections::{BTreeSet, HashMap};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use saturn_dd::{image, Dd, NodeId, Side};
use saturn_reference::explore_model;
use saturn_reference::strategies::{config, discard, random_net};
use saturn_symbolic::closure::{Closure, ClosureRelations};
use saturn_symbolic::{Direction, Method, Reach};

/// The largest explicit state space compared (the explicit `R+` is quadratic).
const MAX_STATES: usize = 400;

/// `reach[j]`: the states reached from `j` by a path of positive length within `c` (`j` and
/// every state after it in `c`); empty for `j ∉ c`.
fn explicit_plus(successors: &[Vec<(usize, usize)>], c: &[bool]) -> Vec<BTreeSet<usize>> {
    (0..successors.len())
        .map(|j| {
            let mut seen = BTreeSet::new();
            if !c[j] {
                return seen;
            }
            let mut stack = vec![j];
            while let Some(s) = stack.pop() {
                for &(_, t) in &successors[s] {
                    if c[t] && seen.insert(t) {
                        stack.push(t);
                    }
                }
            }
            seen
        })
        .collect()
}

/// A subset of `0..n` drawn from `bits` (a state is in when its bit is set), or every state.
fn subset(n: usize, bits: Option<u64>) -> Vec<bool> {
    (0..n)
        .map(|s| bits.is_none_or(|b| (b.rotate_left((s * 7) as u32) >> (s % 64)) & 1 == 1))
        .collect()
}

fn check(
    net: &saturn_model::PetriNet,
    order: &[usize],
    c_bits: Option<u64>,
    x_bits: Option<u64>,
) -> Result<(), TestCaseError> {
    let model = net.to_model(order).unwrap();
    let Ok(space) = explore_model(&model, MAX_STATES) else {
        return Err(discard("more than MAX_STATES states"));
    };
    let n = space.num_states();
    let index: HashMap<&[u32], usize> = space
        .markings
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_slice(), i))
        .collect();
    let c = subset(n, c_bits);
    let x = subset(n, x_bits);
    let plus = explicit_plus(&space.successors, &c);

    let mut dd = Dd::new(model.num_levels());
    let mut reach = Reach::new(&mut dd, &model, Direction::Forward, None);
    let init = reach.state_set(&model.initial);
    let rch = reach.explore(init, Method::Saturation).unwrap();
    drop(reach);
    let rch = dd.pin(rch);
    prop_assert_eq!(dd.sets.cardinality(rch.get()), n.into());
    let set_of = |dd: &mut Dd, members: &[bool]| {
        let mut s = NodeId::EMPTY;
        for (m, _) in space.markings.iter().zip(members).filter(|(_, &b)| b) {
            let one = dd.sets.singleton(m);
            s = dd.sets.union(s, one);
        }
        dd.pin(s)
    };
    let c_set = set_of(&mut dd, &c);
    let x_set = set_of(&mut dd, &x);
    let singletons: Vec<_> = space
        .markings
        .iter()
        .map(|m| {
            let s = dd.sets.singleton(m);
            dd.pin(s)
        })
        .collect();

    let rels = ClosureRelations::of_reachable(&mut dd, &model);
    let mut tc = Closure::new(&mut dd, &rels);
    let tb = tc.backward(c_set.get(), x_set.get()).unwrap();
    let tb = tc.dd().pin_rel(tb);
    let t = tc.forward(c_set.get(), x_set.get()).unwrap();
    let t = tc.dd().pin_rel(t);
    for (what, rel) in [("T^b", tb.get()), ("T", t.get())] {
        // no pair leaves the reachable states on either side
        for side in [Side::From, Side::To] {
            let r = tc.with_alg(|alg, sets, rels| alg.restrict(rels, sets, rel, side, rch.get()));
            prop_assert_eq!(r, rel, "{} has a pair outside the reachable states", what);
        }
        // every row, pair by pair
        for (i, single) in singletons.iter().enumerate() {
            let d = tc.dd();
            let row = image(&mut d.sets, &d.rels, single.get(), rel);
            let mut got = BTreeSet::new();
            d.sets.for_each_state(row, usize::MAX, |s| {
                got.insert(index[s]);
            });
            let want: BTreeSet<usize> = if !x[i] {
                BTreeSet::new()
            } else if what == "T" {
                // (i, j): i →+ j within C
                plus[i].clone()
            } else {
                // (i, j): j →+ i within C
                (0..n).filter(|&j| plus[j].contains(&i)).collect()
            };
            prop_assert_eq!(
                &got,
                &want,
                "{} row of state {} ({:?}), C {:?}, X {:?}",
                what,
                i,
                space.markings[i],
                c_bits,
                x_bits
            );
        }
    }
    Ok(())
}

fn net_and_order() -> impl Strategy<Value = (saturn_model::PetriNet, Vec<usize>)> {
    random_net(8, 10).prop_flat_map(|net| {
        let n = net.places.len();
        (
            Just(net),
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        )
    })
}

proptest! {
    // a discarded case (a state space too large for the explicit closure) counts against
    // max_global_rejects: the test fails when more than half of its cases are discarded
    #![proptest_config(config(256))]

    #[test]
    fn saturated_closure_is_the_explicit_closure(
        (net, order) in net_and_order(),
        c_bits in proptest::option::of(any::<u64>()),
        x_bits in proptest::option::of(any::<u64>()),
    ) {
        check(&net, &order, c_bits, x_bits)?;
    }
}
