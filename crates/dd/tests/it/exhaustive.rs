//! Exhaustive tests over tiny universes: every subset is a bitmask, every operation is checked
//! against bit arithmetic, canonicity by comparing node ids of independently built diagrams.
//! Relations are checked against explicit lists of (from, to) pairs.

use std::collections::BTreeSet;

use crate::common::{build_local, expand_local, Local, Pairs, Rng, Universe};
use saturn_dd::{image, preimage, Forest, NodeId, Reduction};

const SET_REDUCTIONS: [Reduction; 2] = [Reduction::Quasi, Reduction::Fully];

/// Build every subset of `u` bottom-up; check injectivity (distinct sets, distinct ids).
fn all_sets(u: &Universe, f: &mut Forest) -> Vec<NodeId> {
    let n = 1u64 << u.size();
    let nodes: Vec<NodeId> = (0..n).map(|m| u.build_mask(f, m)).collect();
    let distinct: BTreeSet<NodeId> = nodes.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        nodes.len(),
        "two different sets share a node"
    );
    assert_eq!(nodes[0], NodeId::EMPTY);
    nodes
}

fn popcount_str(m: u64) -> String {
    m.count_ones().to_string()
}

#[test]
fn all_pairs_of_sets_over_2x2x2() {
    let u = Universe::new(&[2, 2, 2]);
    for red in SET_REDUCTIONS {
        let mut f = u.set_forest(red);
        let nodes = all_sets(&u, &mut f);
        if red == Reduction::Fully {
            assert_eq!(
                nodes[255],
                NodeId::ONE,
                "the universe is ONE when fully reduced"
            );
        }
        for a in 0..256u64 {
            for b in 0..256u64 {
                let (na, nb) = (nodes[a as usize], nodes[b as usize]);
                assert_eq!(
                    f.union(na, nb),
                    nodes[(a | b) as usize],
                    "{red:?} {a} | {b}"
                );
                assert_eq!(
                    f.intersect(na, nb),
                    nodes[(a & b) as usize],
                    "{red:?} {a} & {b}"
                );
                assert_eq!(
                    f.minus(na, nb),
                    nodes[(a & !b) as usize],
                    "{red:?} {a} - {b}"
                );
            }
        }
        for m in 0..256u64 {
            assert_eq!(u.mask_of(&f, nodes[m as usize]), m);
            assert_eq!(
                f.cardinality(nodes[m as usize]).to_string(),
                popcount_str(m)
            );
        }
    }
}

#[test]
fn every_set_over_2x3x2_is_canonical() {
    let u = Universe::new(&[2, 3, 2]);
    assert_eq!(u.size(), 12);
    for red in SET_REDUCTIONS {
        let mut f = u.set_forest(red);
        let nodes = all_sets(&u, &mut f);
        for m in 0..(1u64 << 12) {
            let n = nodes[m as usize];
            assert_eq!(
                u.build_by_singletons(&mut f, m, false),
                n,
                "{red:?} ascending {m}"
            );
            assert_eq!(
                u.build_by_singletons(&mut f, m, true),
                n,
                "{red:?} descending {m}"
            );
            assert_eq!(f.cardinality(n).to_string(), popcount_str(m));
            assert_eq!(f.cardinality_u128(n), Some(m.count_ones() as u128));
            assert_eq!(u.mask_of(&f, n), m, "{red:?} enumeration of {m}");
            let want = (m != 0).then(|| u.tuple(m.trailing_zeros() as usize));
            assert_eq!(f.pick(n), want, "{red:?} pick of {m}");
            // a limited enumeration stops early
            let lim = f.for_each_state(n, 3, |_| {});
            assert_eq!(lim, (m.count_ones() as usize).min(3));
        }
        // random pairs against bit arithmetic (all 16M pairs would be too slow)
        let mut rng = Rng(0x5eed + red as u64);
        for _ in 0..150_000 {
            let (a, b) = (rng.below(4096), rng.below(4096));
            let (na, nb) = (nodes[a as usize], nodes[b as usize]);
            assert_eq!(f.union(na, nb), nodes[(a | b) as usize]);
            assert_eq!(f.intersect(na, nb), nodes[(a & b) as usize]);
            assert_eq!(f.minus(na, nb), nodes[(a & !b) as usize]);
        }
        let all: Vec<NodeId> = nodes.iter().step_by(97).copied().collect();
        let want = (0..4096u64).step_by(97).fold(0, |acc, m| acc | m);
        assert_eq!(f.union_all(&all), nodes[want as usize]);
    }
}

// ------------------------------------------------------------------------------ relations

fn image_mask(r: &Pairs, s: u64) -> u64 {
    r.iter()
        .filter(|&&(x, _)| s >> x & 1 == 1)
        .fold(0, |m, &(_, y)| m | 1 << y)
}

fn preimage_mask(r: &Pairs, s: u64) -> u64 {
    r.iter()
        .filter(|&&(_, y)| s >> y & 1 == 1)
        .fold(0, |m, &(x, _)| m | 1 << x)
}

fn tuples_of(u: &Universe, r: &Pairs) -> Vec<(Vec<u32>, Vec<u32>)> {
    r.iter().map(|&(x, y)| (u.tuple(x), u.tuple(y))).collect()
}

/// Read a relation back by enumeration: level `2k` (entry `2k-1`) is `from[k-1]`, level
/// `2k-1` (entry `2k-2`) is `to[k-1]`.
fn pairs_of(u: &Universe, rels: &Forest, r: NodeId) -> Pairs {
    let mut out = Pairs::new();
    rels.for_each_state(r, usize::MAX, |t| {
        let from: Vec<u32> = (1..=u.levels()).map(|k| t[2 * k - 1]).collect();
        let to: Vec<u32> = (1..=u.levels()).map(|k| t[2 * k - 2]).collect();
        assert!(
            out.insert((u.index(&from), u.index(&to))),
            "pair enumerated twice"
        );
    });
    out
}

fn random_local(u: &Universe, rng: &mut Rng) -> Local {
    (0..u.levels())
        .map(|k| {
            if rng.below(3) == 0 {
                return None;
            }
            let d = u.doms[k];
            let mut pairs = Vec::new();
            for i in 0..d {
                for j in 0..d {
                    if rng.below(5) < 2 {
                        pairs.push((i, j));
                    }
                }
            }
            if rng.below(8) == 0 {
                // the identity pairs over the whole domain, listed explicitly
                pairs = (0..d).map(|i| (i, i)).collect();
            }
            Some(pairs)
        })
        .collect()
}

/// Check image and preimage of a sample of sets under `r` in both kinds of set forest.
fn check_rel_prod(
    u: &Universe,
    sets: &mut [(Forest, Vec<NodeId>)],
    rels: &Forest,
    r: NodeId,
    want: &Pairs,
    rng: &mut Rng,
) {
    for _ in 0..12 {
        let s = rng.below(1 << u.size());
        for (f, nodes) in sets.iter_mut() {
            let ns = nodes[s as usize];
            let img = image(f, rels, ns, r);
            assert_eq!(img, nodes[image_mask(want, s) as usize], "image of {s}");
            let pre = preimage(f, rels, ns, r);
            assert_eq!(
                pre,
                nodes[preimage_mask(want, s) as usize],
                "preimage of {s}"
            );
        }
    }
}

fn set_forests(u: &Universe) -> Vec<(Forest, Vec<NodeId>)> {
    SET_REDUCTIONS
        .iter()
        .map(|&red| {
            let mut f = u.set_forest(red);
            let nodes = all_sets(u, &mut f);
            (f, nodes)
        })
        .collect()
}

#[test]
fn explicit_relations_image_preimage_and_enumeration() {
    let u = Universe::new(&[2, 3, 2]);
    let mut sets = set_forests(&u);
    let mut rels = u.rel_forest();
    let mut rng = Rng(42);
    let n = u.size();
    for trial in 0..250 {
        let density = 1 + rng.below(30);
        let mut want = Pairs::new();
        for x in 0..n {
            for y in 0..n {
                if rng.below(100) < density {
                    want.insert((x, y));
                }
            }
        }
        let r = rels.relation_from_tuples(&tuples_of(&u, &want));
        assert_eq!(pairs_of(&u, &rels, r), want, "trial {trial}");
        assert_eq!(rels.cardinality(r).to_string(), want.len().to_string());
        // built in the other order: the same node
        let mut rev = tuples_of(&u, &want);
        rev.reverse();
        assert_eq!(rels.relation_from_tuples(&rev), r);
        check_rel_prod(&u, &mut sets, &rels, r, &want, &mut rng);
    }
}

#[test]
fn local_relations_match_their_expansion() {
    let u = Universe::new(&[2, 3, 2]);
    let mut sets = set_forests(&u);
    let mut rels = u.rel_forest();
    let mut rng = Rng(7);
    let mut built: Vec<(NodeId, Pairs)> = Vec::new();
    for trial in 0..300 {
        let l = random_local(&u, &mut rng);
        let want = expand_local(&u, &l);
        let r = build_local(&mut rels, &l);
        // canonicity across builders: the product form equals the explicit tuple list
        assert_eq!(
            rels.relation_from_tuples(&tuples_of(&u, &want)),
            r,
            "trial {trial}: {l:?}"
        );
        assert_eq!(pairs_of(&u, &rels, r), want, "trial {trial}: {l:?}");
        assert_eq!(rels.cardinality(r).to_string(), want.len().to_string());
        check_rel_prod(&u, &mut sets, &rels, r, &want, &mut rng);
        built.push((r, want));
    }
    // set operations on relations, including operands that skip a pair the other has
    for _ in 0..600 {
        let (ra, wa) = &built[rng.below(built.len() as u64) as usize];
        let (rb, wb) = &built[rng.below(built.len() as u64) as usize];
        let (ra, rb) = (*ra, *rb);
        let cases: [(NodeId, Pairs); 3] = [
            (rels.union(ra, rb), wa.union(wb).copied().collect()),
            (
                rels.intersect(ra, rb),
                wa.intersection(wb).copied().collect(),
            ),
            (rels.minus(ra, rb), wa.difference(wb).copied().collect()),
        ];
        for (got, want) in cases {
            assert_eq!(pairs_of(&u, &rels, got), want);
            assert_eq!(rels.relation_from_tuples(&tuples_of(&u, &want)), got);
        }
        let un = rels.union(ra, rb);
        let want: Pairs = wa.union(wb).copied().collect();
        check_rel_prod(&u, &mut sets, &rels, un, &want, &mut rng);
    }
}

#[test]
fn identity_reduction() {
    let u = Universe::new(&[2, 3, 2]);
    let mut rels = u.rel_forest();
    let id3: Vec<(u32, u32)> = (0..3).map(|i| (i, i)).collect();
    let id2: Vec<(u32, u32)> = (0..2).map(|i| (i, i)).collect();
    // explicit identity over the whole domain is the skipped form
    assert_eq!(rels.relation_from_local(&[(2, id3.clone())]), NodeId::ONE);
    assert_eq!(
        rels.relation_from_local(&[(3, id2.clone()), (2, id3.clone()), (1, id2.clone())]),
        NodeId::ONE
    );
    let all: Vec<(Vec<u32>, Vec<u32>)> = (0..u.size()).map(|t| (u.tuple(t), u.tuple(t))).collect();
    assert_eq!(rels.relation_from_tuples(&all), NodeId::ONE);
    // a real part below an explicit identity part
    let dec = vec![(1, 0), (2, 1)];
    let a = rels.relation_from_local(&[(3, id2.clone()), (2, dec.clone())]);
    let b = rels.relation_from_local(&[(2, dec.clone())]);
    assert_eq!(a, b);
    assert_eq!(rels.relation_top(b), 2);
    assert_eq!(rels.level(b), 4);
    // a partial identity is not the identity
    let part = rels.relation_from_local(&[(2, vec![(0, 0), (1, 1)])]);
    assert_ne!(part, NodeId::ONE);
    assert_eq!(rels.relation_top(part), 2);
    // an empty part empties the relation
    assert_eq!(
        rels.relation_from_local(&[(2, vec![]), (1, id2)]),
        NodeId::EMPTY
    );
    // the identity relation maps every set to itself
    let mut sets = u.set_forest(Reduction::Quasi);
    let s = u.build_mask(&mut sets, 0b1011_0110_0101);
    assert_eq!(image(&mut sets, &rels, s, NodeId::ONE), s);
    assert_eq!(preimage(&mut sets, &rels, s, NodeId::ONE), s);
}

#[test]
fn union_with_identity_relation() {
    // ONE is the identity relation in an identity-reduced forest, not the universe
    let u = Universe::new(&[2, 3, 2]);
    let mut rels = u.rel_forest();
    let r = rels.relation_from_local(&[(2, vec![(0, 1), (1, 2)])]);
    let want_r = expand_local(&u, &vec![None, Some(vec![(0, 1), (1, 2)]), None]);
    let id = expand_local(&u, &vec![None, None, None]);
    let un = rels.union(r, NodeId::ONE);
    assert_eq!(
        pairs_of(&u, &rels, un),
        want_r.union(&id).copied().collect()
    );
    assert_eq!(rels.union(NodeId::ONE, r), un);
    assert_eq!(rels.intersect(r, NodeId::ONE), NodeId::EMPTY);
    assert_eq!(rels.minus(r, NodeId::ONE), r);
    let back = rels.minus(NodeId::ONE, r);
    assert_eq!(pairs_of(&u, &rels, back), id);
    let un2 = rels.union(un, back);
    assert_eq!(
        pairs_of(&u, &rels, un2),
        want_r.union(&id).copied().collect()
    );
    assert_eq!(rels.cardinality(NodeId::ONE).to_string(), "12");
}

// ------------------------------------------------------------------------------ collection

#[test]
fn gc_keeps_roots_frees_garbage_and_recycles_ids() {
    let u = Universe::new(&[2, 3, 2]);
    let mut rng = Rng(99);
    for red in SET_REDUCTIONS {
        let mut f = u.set_forest(red);
        let nodes = all_sets(&u, &mut f);
        // fill the union cache
        for _ in 0..20_000 {
            let (a, b) = (rng.below(4096) as usize, rng.below(4096) as usize);
            f.union(nodes[a], nodes[b]);
        }
        let all_count = f.nodes_now();
        assert_eq!(all_count, f.count_nodes(&nodes) + 2);
        let kept: Vec<u64> = (0..40).map(|_| 1 + rng.below(4095)).collect();
        let roots: Vec<_> = kept
            .iter()
            .map(|&m| f.add_root(nodes[m as usize]))
            .collect();
        let extra = nodes[0b1111_0000_1111];
        let freed = f.gc(&[extra]);
        let live = f.count_nodes(&kept.iter().map(|&m| nodes[m as usize]).collect::<Vec<_>>());
        let live_all = f.count_nodes(
            &kept
                .iter()
                .map(|&m| nodes[m as usize])
                .chain([extra])
                .collect::<Vec<_>>(),
        );
        assert!(live <= live_all);
        assert_eq!(
            f.nodes_now(),
            live_all + 2,
            "{red:?}: only reachable nodes survive"
        );
        assert_eq!(freed, all_count - f.nodes_now());
        assert_eq!(f.stats().collections, 1);
        for (&m, &r) in kept.iter().zip(&roots) {
            let n = f.root(r);
            assert_eq!(n, nodes[m as usize]);
            assert_eq!(u.mask_of(&f, n), m);
            assert_eq!(f.cardinality(n).to_string(), popcount_str(m));
        }
        assert_eq!(u.mask_of(&f, extra), 0b1111_0000_1111);
        // rebuild everything: roots keep their ids, ids are recycled (no growth past the peak)
        let peak = f.stats().nodes_peak;
        let again = all_sets(&u, &mut f);
        for &m in &kept {
            assert_eq!(again[m as usize], nodes[m as usize]);
        }
        assert_eq!(f.nodes_now(), f.count_nodes(&again) + 2);
        assert!(f.stats().nodes_peak <= peak, "freed ids were not reused");
        // operations after collection (caches were cleared; ids recycled)
        for _ in 0..20_000 {
            let (a, b) = (rng.below(4096), rng.below(4096));
            let (na, nb) = (again[a as usize], again[b as usize]);
            assert_eq!(f.union(na, nb), again[(a | b) as usize]);
            assert_eq!(f.minus(na, nb), again[(a & !b) as usize]);
        }
        // dropping the roots frees everything on the next collection
        for r in roots {
            f.remove_root(r);
        }
        f.gc(&[]);
        assert_eq!(f.nodes_now(), 2);
        assert_eq!(f.stats().collections, 2);
    }
}

#[test]
fn rel_prod_cache_survives_relation_forest_collection() {
    // ids of a collected relation are recycled; the set forest's relational-product cache must
    // not answer for the new relation with the old one's results
    let u = Universe::new(&[2, 3, 2]);
    let mut sets = set_forests(&u);
    let mut rels = u.rel_forest();
    let mut rng = Rng(2024);
    for round in 0..40 {
        let l = random_local(&u, &mut rng);
        let want = expand_local(&u, &l);
        let r = build_local(&mut rels, &l);
        check_rel_prod(&u, &mut sets, &rels, r, &want, &mut rng);
        // drop every relation node; the next round's relation reuses the ids
        rels.gc(&[]);
        assert_eq!(rels.nodes_now(), 2, "round {round}");
    }
    // and the other way round: collecting the set forest clears its caches too
    let (f, nodes) = &mut sets[0];
    let l = random_local(&u, &mut rng);
    let want = expand_local(&u, &l);
    let r = build_local(&mut rels, &l);
    let root = f.add_root(nodes[0b0110_1001_0110]);
    image(f, &rels, nodes[0b0110_1001_0110], r);
    f.gc(&[]);
    let fresh = all_sets(&u, f);
    assert_eq!(fresh[0b0110_1001_0110], f.root(root));
    for s in [0b0110_1001_0110u64, 0b1000_0000_0001, 0b0111_1111_1110] {
        assert_eq!(
            image(f, &rels, fresh[s as usize], r),
            fresh[image_mask(&want, s) as usize]
        );
    }
}
