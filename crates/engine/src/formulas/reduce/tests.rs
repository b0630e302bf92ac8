//! The reductions against explicit breadth-first searches of the net and of the reduced net:
//! the reachable markings projected on the support are the same sets, and every target is
//! reachable in one exactly when its rewriting is in the other.

use std::collections::HashSet;

use proptest::prelude::*;
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_reference::explore::explore_petri;
use saturn_reference::strategies::{config, random_net};

use super::reduce;

const MAX_STATES: usize = 20_000;

/// `net` with transitions split in two through a fresh place (`t`'s inputs to the place, the
/// place to `t`'s outputs: a candidate for both agglomerations), a sink place fed by one
/// transition and a place only tested (constant, marked or not).
fn shaped(net: &PetriNet, splits: &[usize], sink: usize, test: (usize, u64)) -> PetriNet {
    let mut out = net.clone();
    let nt = net.transitions.len();
    if nt == 0 {
        return out;
    }
    let mut done = HashSet::new();
    for &s in splits {
        let t = s % nt;
        if !done.insert(t) || !out.transitions[t].inhibitors.is_empty() {
            continue;
        }
        let q = out.places.len();
        out.places.push(Place {
            id: format!("q{q}"),
            name: format!("q{q}"),
            initial: 0,
        });
        let tr = out.transitions[t].clone();
        out.transitions[t].outputs = vec![Arc {
            place: q,
            weight: 1,
        }];
        out.transitions.push(Transition {
            id: format!("{}b", tr.id),
            name: format!("{}b", tr.name),
            inputs: vec![Arc {
                place: q,
                weight: 1,
            }],
            outputs: tr.outputs,
            inhibitors: Vec::new(),
        });
    }
    let z = out.places.len();
    out.places.push(Place {
        id: "sink".into(),
        name: "sink".into(),
        initial: 0,
    });
    out.transitions[sink % nt].outputs.push(Arc {
        place: z,
        weight: 1,
    });
    let c = out.places.len();
    out.places.push(Place {
        id: "const".into(),
        name: "const".into(),
        initial: test.1,
    });
    let tr = &mut out.transitions[test.0 % nt];
    tr.inputs.push(Arc {
        place: c,
        weight: 1,
    });
    tr.outputs.push(Arc {
        place: c,
        weight: 1,
    });
    out
}

fn atom(p: usize, op: CmpOp, bound: i64) -> StateFormula {
    StateFormula::Atom(Atom {
        lhs: LinExpr {
            terms: vec![(p, 1)],
            constant: 0,
        },
        op,
        bound,
    })
}

/// A target over the places of `support` (an atom each, ops and bounds from `pick`), with
/// a fireability atom when `fire` names a transition.
fn target(
    net: &PetriNet,
    support: &[usize],
    pick: &[(u8, i64)],
    fire: Option<usize>,
) -> StateFormula {
    let np = net.places.len();
    let ops = [CmpOp::Ge, CmpOp::Le, CmpOp::Eq, CmpOp::Gt];
    let mut atoms: Vec<StateFormula> = support
        .iter()
        .zip(pick)
        .map(|(&p, &(o, b))| atom(p % np, ops[o as usize % 4], b))
        .collect();
    if let Some(t) = fire.filter(|_| !net.transitions.is_empty()) {
        atoms.push(StateFormula::Enabled(vec![t % net.transitions.len()]));
    }
    StateFormula::Or(vec![
        StateFormula::And(atoms.clone()),
        StateFormula::And(atoms.into_iter().take(1).collect()),
    ])
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn reductions_keep_the_reachable_markings_on_the_support(
        net in random_net(5, 6),
        splits in proptest::collection::vec(0usize..16, 0..=6),
        sink in 0usize..16,
        test in (0usize..16, 0u64..=1),
        support in proptest::collection::vec(0usize..16, 0..=3),
        pick in proptest::collection::vec((0u8..4, 0i64..=2), 3),
        fire in proptest::option::of(0usize..16),
        plain in any::<bool>(),
    ) {
        let mut net = net;
        if plain {
            // the agglomerations apply to nets without inhibitor arcs only
            net.transitions.iter_mut().for_each(|t| t.inhibitors.clear());
        }
        let net = shaped(&net, &splits, sink, test);
        let f = target(&net, &support, &pick, fire);
        let Some(r) = reduce(&net, &f, &|| false) else { return Ok(()) };
        let Ok(before) = explore_petri(&net, MAX_STATES) else { return Ok(()) };
        let after = explore_petri(&r.net, MAX_STATES);
        prop_assert!(after.is_ok(), "the reduced net has more markings: {:?}", r.net);
        let after = after.unwrap();
        // the support as the rewriting reads it: the places of the target's atoms, with
        // the places of the fireability atom's transition
        let mut vis = vec![false; net.places.len()];
        super::support(&super::over_markings(&net, &f).unwrap(), &mut vis);
        let on = |m: &[u64], kept: bool| -> Vec<u64> {
            (0..net.places.len())
                .filter(|&p| vis[p])
                .map(|p| match (kept, r.kept[p], r.value[p]) {
                    (false, _, _) => m[p],
                    (true, Some(q), _) => m[q],
                    (true, None, Some(v)) => v,
                    (true, None, None) => u64::MAX,
                })
                .collect()
        };
        let a: HashSet<Vec<u64>> = before.markings.iter().map(|m| on(m, false)).collect();
        let b: HashSet<Vec<u64>> = after.markings.iter().map(|m| on(m, true)).collect();
        prop_assert_eq!(&a, &b, "net {:?}\nreduced {:?}", net, r.net);
        let hit = before.markings.iter().any(|m| saturn_ltl::net::eval(&net, &f, m));
        let hit_r = after.markings.iter().any(|m| saturn_ltl::net::eval(&r.net, &r.target, m));
        prop_assert_eq!(hit, hit_r);
    }
}

#[test]
fn a_chain_of_local_steps_agglomerates() {
    // p0 -t0-> p1 -t1-> p2 -t2-> p0, the target reads p0 only
    let arc = |place| Arc { place, weight: 1 };
    let tr = |i: usize, a: usize, b: usize| Transition {
        id: format!("t{i}"),
        name: format!("t{i}"),
        inputs: vec![arc(a)],
        outputs: vec![arc(b)],
        inhibitors: Vec::new(),
    };
    let net = PetriNet {
        name: "ring".into(),
        places: (0..3)
            .map(|i| Place {
                id: format!("p{i}"),
                name: format!("p{i}"),
                initial: u64::from(i == 0),
            })
            .collect(),
        transitions: vec![tr(0, 0, 1), tr(1, 1, 2), tr(2, 2, 0)],
    };
    let r = reduce(&net, &atom(0, CmpOp::Eq, 0), &|| false).expect("reduced");
    assert!(r.net.places.len() < 3, "{:?}", r.net);
    assert_eq!(r.kept[0], Some(0));
}
