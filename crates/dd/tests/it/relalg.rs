//! The relation algebra against explicit relations (sets of pairs of tuple numbers) on random
//! tiny universes. Every expected result is built independently, node by node with
//! `make_node` from its explicit pairs (or bitmask), and compared by node id: equal relations
//! must be the same node (canonicity), not merely enumerate the same pairs.

use crate::common::{build_local, expand_local, Local, Pairs, Universe};
use proptest::prelude::*;
use saturn_dd::{image, preimage, Dd, Edge, Forest, NodeId, Reduction, RelAlg, Side};

/// How a random relation is made: a union of local products and of explicit pairs, so that
/// operands both skip pairs of levels and list them.
#[derive(Clone, Debug)]
struct RelSpec {
    locals: Vec<Local>,
    pairs: Vec<(usize, usize)>,
}

fn local_strategy(doms: Vec<u32>) -> impl Strategy<Value = Local> {
    doms.into_iter()
        .map(|d| {
            prop_oneof![
                1 => Just(None),
                2 => prop::collection::vec((0..d, 0..d), 1..=3).prop_map(Some),
            ]
        })
        .collect::<Vec<_>>()
}

fn rel_strategy(doms: Vec<u32>) -> impl Strategy<Value = RelSpec> {
    let n = Universe::new(&doms).size();
    (
        prop::collection::vec(local_strategy(doms), 0..=2),
        prop::collection::vec((0..n, 0..n), 0..=12),
    )
        .prop_map(|(locals, pairs)| RelSpec { locals, pairs })
}

fn mask_strategy(n: usize) -> impl Strategy<Value = u64> {
    prop_oneof![
        Just((1u64 << n) - 1),
        Just(0u64),
        (0u64..(1u64 << n)).boxed(),
    ]
}

/// Domains (1 to 3 variables of 1 to 3 values), three relations and two sets over them.
fn cases() -> impl Strategy<Value = (Vec<u32>, [RelSpec; 3], [u64; 2])> {
    prop::collection::vec(1u32..=3, 1..=3).prop_flat_map(|doms| {
        let n = Universe::new(&doms).size();
        (
            Just(doms.clone()),
            [
                rel_strategy(doms.clone()),
                rel_strategy(doms.clone()),
                rel_strategy(doms),
            ],
            [mask_strategy(n), mask_strategy(n)],
        )
    })
}

fn explicit(u: &Universe, spec: &RelSpec) -> Pairs {
    let mut out: Pairs = spec.pairs.iter().copied().collect();
    for l in &spec.locals {
        out.extend(expand_local(u, l));
    }
    out
}

/// Build a spec with the forest's own builders and union.
fn build_spec(u: &Universe, rels: &mut Forest, spec: &RelSpec) -> NodeId {
    let tuples: Vec<(Vec<u32>, Vec<u32>)> = spec
        .pairs
        .iter()
        .map(|&(x, y)| (u.tuple(x), u.tuple(y)))
        .collect();
    let mut acc = rels.relation_from_tuples(&tuples);
    for l in &spec.locals {
        let r = build_local(rels, l);
        acc = rels.union(acc, r);
    }
    acc
}

/// The canonical node of an explicit relation, built bottom-up with `make_node` alone (every
/// pair of levels explicit; `make_node` applies the identity reduction).
fn canonical(u: &Universe, rels: &mut Forest, pairs: &Pairs) -> NodeId {
    canonical_rec(u, rels, pairs, u.levels(), 0, 0)
}

fn canonical_rec(
    u: &Universe,
    rels: &mut Forest,
    pairs: &Pairs,
    k: usize,
    xb: usize,
    yb: usize,
) -> NodeId {
    if k == 0 {
        return if pairs.contains(&(xb, yb)) {
            NodeId::ONE
        } else {
            NodeId::EMPTY
        };
    }
    let stride = u.stride(k);
    let d = u.doms[k - 1];
    let mut unprimed = Vec::new();
    for i in 0..d {
        let mut primed = Vec::new();
        for j in 0..d {
            let c = canonical_rec(
                u,
                rels,
                pairs,
                k - 1,
                xb + i as usize * stride,
                yb + j as usize * stride,
            );
            primed.push(Edge::new(j, c));
        }
        let p = rels.make_node(2 * k - 1, &primed);
        unprimed.push(Edge::new(i, p));
    }
    rels.make_node(2 * k, &unprimed)
}

fn compose(a: &Pairs, b: &Pairs) -> Pairs {
    let mut out = Pairs::new();
    for &(x, y) in a {
        for &(y2, z) in b.range((y, 0)..=(y, usize::MAX)) {
            debug_assert_eq!(y, y2);
            out.insert((x, z));
        }
    }
    out
}

fn bit(m: u64, x: usize) -> bool {
    m >> x & 1 == 1
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn relation_algebra_matches_explicit_relations((doms, specs, masks) in cases()) {
        let u = Universe::new(&doms);
        let n = u.size();
        let mut rels = u.rel_forest();
        let mut alg = RelAlg::new();
        let e: Vec<Pairs> = specs.iter().map(|s| explicit(&u, s)).collect();
        let r: Vec<NodeId> = specs.iter().map(|s| build_spec(&u, &mut rels, s)).collect();
        for x in 0..3 {
            prop_assert_eq!(r[x], canonical(&u, &mut rels, &e[x]), "building relation {}", x);
        }
        let (a, b, c) = (r[0], r[1], r[2]);
        let (ea, eb, ec) = (&e[0], &e[1], &e[2]);

        // union, intersection, difference (the forest's set operations on relations)
        let want: Pairs = ea.union(eb).copied().collect();
        let got = rels.union(a, b);
        prop_assert_eq!(got, canonical(&u, &mut rels, &want), "union");
        let want: Pairs = ea.intersection(eb).copied().collect();
        let got = rels.intersect(a, b);
        prop_assert_eq!(got, canonical(&u, &mut rels, &want), "intersection");
        let want: Pairs = ea.difference(eb).copied().collect();
        let got = rels.minus(a, b);
        prop_assert_eq!(got, canonical(&u, &mut rels, &want), "difference");
        let want: Pairs = eb.difference(ea).copied().collect();
        let got = rels.minus(b, a);
        prop_assert_eq!(got, canonical(&u, &mut rels, &want), "difference reversed");

        // composition, both orders, and associativity with a third relation
        let got = alg.compose(&mut rels, a, b);
        prop_assert_eq!(got, canonical(&u, &mut rels, &compose(ea, eb)), "a;b");
        let got = alg.compose(&mut rels, b, a);
        prop_assert_eq!(got, canonical(&u, &mut rels, &compose(eb, ea)), "b;a");
        let ab = alg.compose(&mut rels, a, b);
        let bc = alg.compose(&mut rels, b, c);
        let l = alg.compose(&mut rels, ab, c);
        let rr = alg.compose(&mut rels, a, bc);
        prop_assert_eq!(l, rr, "(a;b);c = a;(b;c)");
        prop_assert_eq!(l, canonical(&u, &mut rels, &compose(&compose(ea, eb), ec)));
        // the identity ONE is neutral
        prop_assert_eq!(alg.compose(&mut rels, a, NodeId::ONE), a);
        prop_assert_eq!(alg.compose(&mut rels, NodeId::ONE, a), a);

        // transpose
        let want: Pairs = ea.iter().map(|&(x, y)| (y, x)).collect();
        let t = alg.transpose(&mut rels, a);
        prop_assert_eq!(t, canonical(&u, &mut rels, &want), "transpose");
        prop_assert_eq!(alg.transpose(&mut rels, t), a, "transpose twice");

        for red in [Reduction::Quasi, Reduction::Fully] {
            let mut sets = u.set_forest(red);
            let s = u.build_mask(&mut sets, masks[0]);
            let tt = u.build_mask(&mut sets, masks[1]);

            // restriction of the domain and of the range
            let want: Pairs = ea.iter().filter(|&&(x, _)| bit(masks[0], x)).copied().collect();
            let got = alg.restrict(&mut rels, &sets, a, Side::From, s);
            prop_assert_eq!(got, canonical(&u, &mut rels, &want), "{:?} restrict from", red);
            let want: Pairs = ea.iter().filter(|&&(_, y)| bit(masks[0], y)).copied().collect();
            let got = alg.restrict(&mut rels, &sets, a, Side::To, s);
            prop_assert_eq!(got, canonical(&u, &mut rels, &want), "{:?} restrict to", red);

            // diagonal, domain and range as sets
            let want = ea.iter().filter(|&&(x, y)| x == y).fold(0u64, |m, &(x, _)| m | 1 << x);
            let got = alg.diagonal(&mut sets, &rels, a);
            prop_assert_eq!(got, u.build_mask(&mut sets, want), "{:?} diagonal", red);
            let want = ea.iter().fold(0u64, |m, &(x, _)| m | 1 << x);
            let got = alg.project(&mut sets, &rels, a, Side::From);
            prop_assert_eq!(got, u.build_mask(&mut sets, want), "{:?} domain", red);
            let all = u.build_mask(&mut sets, (1u64 << n) - 1);
            prop_assert_eq!(got, preimage(&mut sets, &rels, all, a), "{:?} domain = preimage", red);
            let want = ea.iter().fold(0u64, |m, &(_, y)| m | 1 << y);
            let got = alg.project(&mut sets, &rels, a, Side::To);
            prop_assert_eq!(got, u.build_mask(&mut sets, want), "{:?} range", red);
            prop_assert_eq!(got, image(&mut sets, &rels, all, a), "{:?} range = image", red);

            // identity over a set, cross product
            let want: Pairs = (0..n).filter(|&x| bit(masks[0], x)).map(|x| (x, x)).collect();
            let got = alg.identity_over(&mut rels, &sets, s);
            prop_assert_eq!(got, canonical(&u, &mut rels, &want), "{:?} identity over", red);
            let mut want = Pairs::new();
            for x in (0..n).filter(|&x| bit(masks[0], x)) {
                for y in (0..n).filter(|&y| bit(masks[1], y)) {
                    want.insert((x, y));
                }
            }
            let got = alg.cross(&mut rels, &sets, s, tt);
            prop_assert_eq!(got, canonical(&u, &mut rels, &want), "{:?} cross", red);
        }
    }
}

/// The caches must not answer for recycled node ids after either forest collects.
#[test]
fn caches_survive_collections_of_both_forests() {
    let u = Universe::new(&[3, 2, 3]);
    let n = u.size();
    let mut rels = u.rel_forest();
    let mut sets = u.set_forest(Reduction::Quasi);
    let mut alg = RelAlg::new();
    for round in 0..6usize {
        // a different relation and set each round, built after everything was dropped
        let pairs: Pairs = (0..n)
            .flat_map(|x| (0..n).map(move |y| (x, y)))
            .filter(|&(x, y)| (x * 7 + y * 3 + round) % 5 == 0)
            .collect();
        let mask = (0..n).fold(
            0u64,
            |m, x| {
                if (x + round) % 3 == 0 {
                    m | 1 << x
                } else {
                    m
                }
            },
        );
        let r = canonical(&u, &mut rels, &pairs);
        let s = u.build_mask(&mut sets, mask);
        let rr = alg.compose(&mut rels, r, r);
        assert_eq!(rr, canonical(&u, &mut rels, &compose(&pairs, &pairs)));
        let t = alg.transpose(&mut rels, r);
        let want: Pairs = pairs.iter().map(|&(x, y)| (y, x)).collect();
        assert_eq!(t, canonical(&u, &mut rels, &want));
        let got = alg.restrict(&mut rels, &sets, r, Side::From, s);
        let want: Pairs = pairs
            .iter()
            .filter(|&&(x, _)| bit(mask, x))
            .copied()
            .collect();
        assert_eq!(got, canonical(&u, &mut rels, &want));
        let got = alg.project(&mut sets, &rels, r, Side::To);
        let want = pairs.iter().fold(0u64, |m, &(_, y)| m | 1 << y);
        assert_eq!(got, u.build_mask(&mut sets, want));
        let got = alg.identity_over(&mut rels, &sets, s);
        let want: Pairs = (0..n).filter(|&x| bit(mask, x)).map(|x| (x, x)).collect();
        assert_eq!(got, canonical(&u, &mut rels, &want));
        // drop everything: the next round's nodes reuse these ids
        assert!(rels.gc(&[]) > 0);
        assert!(sets.gc(&[]) > 0 || mask == 0);
    }
}

/// A `RelAlg` registered with a context is purged by the context's one rule: after a
/// collection that frees some nodes and keeps others (pinned), results are right for recycled
/// ids, and the entries of the kept nodes are still there (a repeat is a cache hit).
#[test]
fn registered_caches_follow_the_context_rule() {
    let u = Universe::new(&[3, 2, 3]);
    let n = u.size();
    let mut dd = Dd::with_forests(u.set_forest(Reduction::Quasi), u.rel_forest());
    let slot = dd.register(RelAlg::new());
    let keep: Pairs = (0..n).map(|x| (x, (x + 1) % n)).collect();
    let r_keep = canonical(&u, &mut dd.rels, &keep);
    let _pin = dd.pin_rel(r_keep);
    for round in 0..6usize {
        let pairs: Pairs = (0..n)
            .flat_map(|x| (0..n).map(move |y| (x, y)))
            .filter(|&(x, y)| (x * 5 + y * 3 + round) % 4 == 0)
            .collect();
        let r = canonical(&u, &mut dd.rels, &pairs);
        let mut alg = dd.take(&slot);
        let t = alg.transpose(&mut dd.rels, r);
        let tk = alg.transpose(&mut dd.rels, r_keep);
        dd.put(&slot, alg);
        let want: Pairs = pairs.iter().map(|&(x, y)| (y, x)).collect();
        assert_eq!(t, canonical(&u, &mut dd.rels, &want));
        let want: Pairs = keep.iter().map(|&(x, y)| (y, x)).collect();
        assert_eq!(tk, canonical(&u, &mut dd.rels, &want));
        // the pinned relation's entry survives the collection (its transpose is pinned too)
        let _pt = dd.pin_rel(tk);
        assert!(dd.collect() > 0);
        let mut alg = dd.take(&slot);
        let hits = alg.cache_stats()[1].1;
        assert_eq!(alg.transpose(&mut dd.rels, r_keep), tk);
        assert_eq!(
            alg.cache_stats()[1].1,
            hits + 1,
            "round {round}: a kept entry was lost"
        );
        dd.put(&slot, alg);
    }
}

#[test]
fn identity_reduction_of_results() {
    // the identity over the universe, the diagonal of the identity, and a full-domain cross
    // product on a one-value variable are all reduced to skips
    let u = Universe::new(&[2, 1, 3]);
    let n = u.size();
    let mut rels = u.rel_forest();
    let mut alg = RelAlg::new();
    for red in [Reduction::Quasi, Reduction::Fully] {
        let mut sets = u.set_forest(red);
        let all = u.build_mask(&mut sets, (1u64 << n) - 1);
        assert_eq!(alg.identity_over(&mut rels, &sets, all), NodeId::ONE);
        assert_eq!(alg.diagonal(&mut sets, &rels, NodeId::ONE), all);
        assert_eq!(alg.project(&mut sets, &rels, NodeId::ONE, Side::From), all);
        assert_eq!(alg.project(&mut sets, &rels, NodeId::ONE, Side::To), all);
        let r = alg.restrict(&mut rels, &sets, NodeId::ONE, Side::To, all);
        assert_eq!(r, NodeId::ONE);
        let one = u.build_mask(&mut sets, 1);
        let x = alg.cross(&mut rels, &sets, one, one);
        assert_eq!(x, alg.identity_over(&mut rels, &sets, one));
        assert_eq!(rels.relation_top(x), 3, "variable 2 (one value) is skipped");
    }
}

/// The pairs of variable 1 (levels 2 and 1) below `r`'s pair `(0, 1)` of variable 2.
fn var1_pairs_below(rels: &Forest, r: NodeId) -> Vec<(u32, u32)> {
    let primed = rels.edges(r).at(0).child;
    let v1 = rels.edges(primed).at(0).child;
    let mut out = Vec::new();
    for x in 0..rels.edges(v1).len() {
        let e = rels.edges(v1).at(x);
        for y in 0..rels.edges(e.child).len() {
            out.push((e.idx, rels.edges(e.child).at(y).idx));
        }
    }
    out
}

/// A union expands the identity of an operand that skips a variable over that variable's
/// domain at the time; after the domain grows, the same union is not taken from the cache:
/// the new value is related to itself too (the saturation of a net with an inhibitor-guarded
/// event once missed states this way, its `N_k` rebuilt from unchanged parts).
#[test]
fn a_union_over_a_skipped_variable_is_redone_after_its_domain_grows() {
    let mut rels = Forest::new(4, Reduction::Identity);
    // a: variable 2 from 0 to 1, variable 1 unchanged; b: both from 0 to 1
    let a = rels.relation_from_local(&[(2, vec![(0, 1)])]);
    let b = rels.relation_from_local(&[(2, vec![(0, 1)]), (1, vec![(0, 1)])]);
    rels.set_domain(saturn_dd::unprimed_level(1), 2);
    let before = rels.union(a, b);
    assert_eq!(
        var1_pairs_below(&rels, before),
        vec![(0, 0), (0, 1), (1, 1)]
    );
    rels.set_domain(saturn_dd::unprimed_level(1), 3);
    let after = rels.union(a, b);
    assert_eq!(
        var1_pairs_below(&rels, after),
        vec![(0, 0), (0, 1), (1, 1), (2, 2)]
    );
}
