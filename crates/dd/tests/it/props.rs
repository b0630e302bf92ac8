//! Property tests: random sets and relations over random small domains, checked against
//! `BTreeSet` oracles.

use std::collections::BTreeSet;

use crate::common::Universe;
use proptest::prelude::*;
use saturn_dd::{image, preimage, Forest, NodeId, Reduction};

type Set = BTreeSet<Vec<u32>>;
type Rel = Vec<(Vec<u32>, Vec<u32>)>;

/// Random domains (1 to 4 levels of 1 to 4 values), two random sets of tuples and a random
/// relation (pairs of tuples) over them.
fn universe_and_sets() -> impl Strategy<Value = (Vec<u32>, Set, Set, Rel)> {
    prop::collection::vec(1u32..=4, 1..=4).prop_flat_map(|doms| {
        let tuple = doms
            .iter()
            .map(|&d| (0..d).boxed())
            .collect::<Vec<_>>()
            .prop_map(|v| v);
        let set = prop::collection::btree_set(tuple.clone(), 0..20);
        let rel = prop::collection::vec((tuple.clone(), tuple), 0..25);
        (Just(doms), set.clone(), set, rel)
    })
}

fn build(f: &mut Forest, set: &Set, rev: bool) -> NodeId {
    let mut acc = NodeId::EMPTY;
    let items: Vec<&Vec<u32>> = if rev {
        set.iter().rev().collect()
    } else {
        set.iter().collect()
    };
    for t in items {
        let s = f.singleton(t);
        acc = f.union(acc, s);
    }
    acc
}

fn read(f: &Forest, n: NodeId) -> Set {
    f.states(n, usize::MAX).into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn sets_match_btreeset((doms, a, b, rel) in universe_and_sets()) {
        let u = Universe::new(&doms);
        let mut rels = u.rel_forest();
        let r = rels.relation_from_tuples(&rel);
        let rel_set: BTreeSet<(Vec<u32>, Vec<u32>)> = rel.iter().cloned().collect();
        prop_assert_eq!(rels.cardinality(r).to_string(), rel_set.len().to_string());
        let mut memo = hashbrown::HashMap::new();
        prop_assert_eq!(rels.cardinality_approx(r, &mut memo), rel_set.len() as f64);
        for red in [Reduction::Quasi, Reduction::Fully] {
            let mut f = u.set_forest(red);
            let na = build(&mut f, &a, false);
            let nb = build(&mut f, &b, false);
            // canonicity: another construction order, and the independent bottom-up builder
            prop_assert_eq!(build(&mut f, &a, true), na);
            prop_assert_eq!(u.build(&mut f, &|t| a.contains(&u.tuple(t))), na);
            prop_assert_eq!(read(&f, na), a.clone());
            prop_assert_eq!(f.cardinality(na).to_string(), a.len().to_string());
            // one memo across roots, as the portfolio sizes many sets of one forest
            let mut memo = hashbrown::HashMap::new();
            for (n, s) in [(na, &a), (nb, &b), (na, &a)] {
                prop_assert_eq!(f.cardinality_approx(n, &mut memo), s.len() as f64);
            }
            prop_assert_eq!(f.pick(na), a.iter().min_by_key(|t| u.index(t)).cloned());
            let un = f.union(na, nb);
            let it = f.intersect(na, nb);
            let mi = f.minus(na, nb);
            prop_assert_eq!(read(&f, un), a.union(&b).cloned().collect::<Set>());
            prop_assert_eq!(read(&f, it), a.intersection(&b).cloned().collect::<Set>());
            prop_assert_eq!(read(&f, mi), a.difference(&b).cloned().collect::<Set>());
            // counted without building the intersection
            prop_assert_eq!(
                f.cardinality_of_intersection(na, nb).to_string(),
                a.intersection(&b).count().to_string()
            );
            let both: Set = a.union(&b).cloned().collect();
            prop_assert_eq!(build(&mut f, &both, true), un);
            // relational product against the explicit relation
            let img: Set = rel_set.iter().filter(|(x, _)| a.contains(x)).map(|(_, y)| y.clone()).collect();
            let pre: Set = rel_set.iter().filter(|(_, y)| a.contains(y)).map(|(x, _)| x.clone()).collect();
            let ni = image(&mut f, &rels, na, r);
            prop_assert_eq!(read(&f, ni), img.clone());
            prop_assert_eq!(build(&mut f, &img, false), ni);
            let np = preimage(&mut f, &rels, na, r);
            prop_assert_eq!(read(&f, np), pre);
        }
    }
}
