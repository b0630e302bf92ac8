//! The orders added for large nets (Cuthill-McKee, Noack, Tovchigrechko, P-semiflow, span
//! search) and `auto`'s prediction, checked against direct reference computations.

use proptest::prelude::*;
use saturn_model::families::generate;
use saturn_model::order::{
    auto_orders, by_name, cuthill_mckee, file_order, force, noack, predict, quantize,
    semiflow_order, semiflow_supports, span_search, total_span, tovchigrechko, Hypergraph,
    AUTO_KEEP, HUB_ORDER, ORDER_NAMES, PORTFOLIO,
};
use saturn_model::{Arc, PetriNet, Place, Transition};

use crate::common::{is_permutation, random_net};

/// The gradient heuristics computed from their definition: every round, every unchosen
/// place's weight from scratch (quadratic; the reference for the incremental version).
fn gradient_reference(net: &PetriNet, tovchigrechko: bool) -> Vec<usize> {
    let hg = Hypergraph::of_net(net);
    let n = hg.n;
    let mut chosen = vec![false; n];
    let mut order = Vec::new();
    while order.len() < n {
        let assigned = |s: &[usize]| s.iter().filter(|&&p| chosen[p]).count() as f64;
        let mut best: Option<(i64, usize)> = None;
        for p in (0..n).filter(|&p| !chosen[p]) {
            let (mut w, mut arcs) = (0.0, 0usize);
            for t in 0..hg.pre.len() {
                let (pre, post) = (&hg.pre[t], &hg.post[t]);
                let (nin, nout) = (pre.len() as f64, post.len() as f64);
                let (ain, aout) = (assigned(pre), assigned(post));
                let g = if ain == 0.0 { 0.1 } else { ain };
                if post.contains(&p) {
                    arcs += 1;
                    if tovchigrechko {
                        let g2 = if aout == 0.0 { 0.1 } else { 2.0 * aout };
                        if nin > 0.0 {
                            w += g / nin;
                        }
                        if nout > 0.0 {
                            w += g2 / nout;
                        }
                    } else if nin > 0.0 && nout > 0.0 {
                        w += g / nin + 2.0 * aout / nout;
                    }
                }
                if pre.contains(&p) {
                    arcs += 1;
                    if nin > 0.0 && nout > 0.0 {
                        let h = if aout == 0.0 { 0.2 } else { 2.0 * aout };
                        w += h / nout + (ain + 1.0) / nin;
                    }
                }
            }
            let score = if arcs == 0 {
                0
            } else {
                quantize(w / arcs as f64)
            };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, p));
            }
        }
        let (_, p) = best.expect("an unchosen place");
        chosen[p] = true;
        order.push(p);
    }
    order
}

/// A chain p0 → p1 → … → p(n-1) with its places listed in the file in the order `perm`.
fn scrambled_chain(perm: &[usize]) -> PetriNet {
    let idx = |i: usize| perm.iter().position(|&x| x == i).expect("in perm");
    PetriNet {
        name: "chain".into(),
        places: perm
            .iter()
            .map(|&i| Place {
                id: format!("p{i}"),
                name: format!("p{i}"),
                initial: u64::from(i == 0),
            })
            .collect(),
        transitions: (0..perm.len() - 1)
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
            .collect(),
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

#[test]
fn bandwidth_and_gradient_orders_untangle_a_scrambled_chain() {
    let net = scrambled_chain(&[0, 5, 2, 7, 1, 4, 6, 3]);
    assert!(total_span(&net, &file_order(&net)) > 7);
    for (name, order) in [
        ("cuthill-mckee", cuthill_mckee(&net)),
        ("noack", noack(&net)),
        ("tovchigrechko", tovchigrechko(&net)),
        ("span-search", span_search(&net)),
    ] {
        assert!(is_permutation(&order, 8), "{name}");
        assert_eq!(
            total_span(&net, &order),
            7,
            "{name}: the optimum of a chain"
        );
    }
}

#[test]
fn semiflow_order_keeps_each_cycle_together() {
    // two token rings of 4 places each, their places interleaved in the file
    let ring = |base: &[usize]| -> Vec<Transition> {
        (0..4)
            .map(|i| Transition {
                id: format!("t{}", base[i]),
                name: String::new(),
                inputs: vec![Arc {
                    place: base[i],
                    weight: 1,
                }],
                outputs: vec![Arc {
                    place: base[(i + 1) % 4],
                    weight: 1,
                }],
                inhibitors: vec![],
            })
            .collect()
    };
    let net = PetriNet {
        name: "rings".into(),
        places: (0..8)
            .map(|i| Place {
                id: format!("p{i}"),
                name: String::new(),
                initial: u64::from(i < 2),
            })
            .collect(),
        transitions: [ring(&[0, 2, 4, 6]), ring(&[1, 3, 5, 7])].concat(),
    };
    let mut flows = semiflow_supports(&net, &|| false);
    flows.sort();
    assert_eq!(flows, vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]]);
    let order = semiflow_order(&net);
    assert!(is_permutation(&order, 8));
    let parity: Vec<usize> = order.iter().map(|p| p % 2).collect();
    assert!(
        parity[..4].iter().all(|&x| x == parity[0]) && parity[4..].iter().all(|&x| x != parity[0]),
        "{order:?}"
    );
    let mut upside_down = by_name(&net, "semiflow-rev").unwrap();
    upside_down.reverse();
    assert_eq!(
        upside_down, order,
        "semiflow-rev is the semiflow order upside down"
    );
}

#[test]
fn auto_keeps_the_portfolio_and_ranks_by_prediction() {
    for (f, n) in [("kanban", 3), ("philosophers", 10), ("fms", 2), ("slot", 5)] {
        let net = generate(f, n).unwrap();
        let cands = auto_orders(&net, &|| false);
        let hg = Hypergraph::with_semiflows(&net, &|| false);
        let best = ORDER_NAMES
            .iter()
            .filter(|&&o| o != HUB_ORDER)
            .map(|o| predict(&hg, &by_name(&net, o).unwrap()))
            .min()
            .unwrap();
        let hub = predict(&hg, &by_name(&net, HUB_ORDER).unwrap());
        let first = usize::from(hub < best);
        assert_eq!(first == 1, cands[0].0 == HUB_ORDER, "{f}");
        assert_eq!(
            predict(&hg, &cands[first].1),
            best,
            "{f}: the best predicted comes first"
        );
        assert!(cands.len() <= 1 + AUTO_KEEP + PORTFOLIO.len(), "{f}");
        let weighted = by_name(&net, HUB_ORDER).unwrap();
        assert!(
            cands.iter().any(|(_, c)| *c == weighted),
            "{f}: {HUB_ORDER} kept"
        );
        for name in PORTFOLIO {
            let o = by_name(&net, name).unwrap();
            assert!(cands.iter().any(|(_, c)| *c == o), "{f}: {name} kept");
        }
        for (i, (_, a)) in cands.iter().enumerate() {
            assert!(is_permutation(a, net.places.len()), "{f}");
            assert!(cands[..i].iter().all(|(_, b)| b != a), "{f}: no duplicate");
        }
    }
}

/// Readers and writers (as the contest's RwMutex): reader `i` goes from idle to reading by
/// taking its lock, a writer goes from idle to writing by taking every reader's lock. Places
/// in the file: the idle readers, the reading ones, the locks, then the writers.
fn rw_mutex(readers: usize, writers: usize) -> PetriNet {
    let arc = |place| Arc { place, weight: 1 };
    let (idle, reading, lock) = (0, readers, 2 * readers);
    let writer = 3 * readers;
    let mut places = Vec::new();
    for (kind, count, marked) in [
        ("idle", readers, 1),
        ("reading", readers, 0),
        ("lock", readers, 1),
        ("writer", writers, 1),
        ("writing", writers, 0),
    ] {
        for i in 0..count {
            places.push(Place {
                id: format!("{kind}{i}"),
                name: format!("{kind}{i}"),
                initial: marked,
            });
        }
    }
    let mut transitions = Vec::new();
    let t = |id: String, inputs: Vec<Arc>, outputs: Vec<Arc>| Transition {
        id: id.clone(),
        name: id,
        inputs,
        outputs,
        inhibitors: vec![],
    };
    for i in 0..readers {
        let free = vec![arc(idle + i), arc(lock + i)];
        transitions.push(t(format!("read{i}"), free.clone(), vec![arc(reading + i)]));
        transitions.push(t(format!("done{i}"), vec![arc(reading + i)], free));
    }
    for j in 0..writers {
        let mut all: Vec<Arc> = (0..readers).map(|i| arc(lock + i)).collect();
        all.push(arc(writer + j));
        let writing = vec![arc(writer + writers + j)];
        transitions.push(t(format!("write{j}"), all.clone(), writing.clone()));
        transitions.push(t(format!("release{j}"), writing, all));
    }
    PetriNet {
        name: "rw".into(),
        places,
        transitions,
    }
}

/// On readers and writers the writers' transitions touch every lock: FORCE gathers the locks at
/// their centre, away from their readers, while the weighted FORCE keeps each reader's three
/// places on neighbouring levels, is predicted cheaper, and comes first in `auto`. On the
/// thesis families (above) it comes first only when predicted best too.
#[test]
fn hub_transitions_get_the_weighted_force_first() {
    let (readers, writers) = (200, 10);
    let net = rw_mutex(readers, writers);
    let cands = auto_orders(&net, &|| false);
    assert_eq!(cands[0].0, HUB_ORDER);
    let spread = |order: &[usize]| {
        let mut level = vec![0; order.len()];
        for (l, &p) in order.iter().enumerate() {
            level[p] = l;
        }
        (0..readers)
            .map(|i| {
                let ls = [level[i], level[readers + i], level[2 * readers + i]];
                ls.iter().max().unwrap() - ls.iter().min().unwrap()
            })
            .max()
            .unwrap()
    };
    assert_eq!(spread(&cands[0].1), 2, "each reader's places side by side");
    assert!(spread(&by_name(&net, "force").unwrap()) > 2);
}

proptest! {
    #[test]
    fn gradient_orders_match_their_definition(net in random_net()) {
        prop_assert_eq!(noack(&net), gradient_reference(&net, false));
        prop_assert_eq!(tovchigrechko(&net), gradient_reference(&net, true));
    }

    #[test]
    fn every_order_is_a_permutation(net in random_net()) {
        for name in ORDER_NAMES {
            prop_assert!(is_permutation(&by_name(&net, name).unwrap(), net.places.len()), "{}", name);
        }
    }

    #[test]
    fn span_search_never_loses_to_its_start(net in random_net()) {
        let start = total_span(&net, &by_name(&net, "force").unwrap())
            .min(total_span(&net, &by_name(&net, "sloan").unwrap()));
        prop_assert!(total_span(&net, &span_search(&net)) <= start);
    }

    #[test]
    fn semiflow_supports_are_semiflows(net in random_net()) {
        for s in semiflow_supports(&net, &|| false) {
            // y = 1 on the support need not be a semiflow, but every transition that touches the
            // support must both take from it and give to it (a semiflow's support is closed so)
            for t in &net.transitions {
                let takes = t.inputs.iter().any(|a| s.contains(&a.place));
                let gives = t.outputs.iter().any(|a| s.contains(&a.place));
                prop_assert_eq!(takes, gives, "{:?}", s);
            }
        }
    }
}
