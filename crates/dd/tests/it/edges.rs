//! The node store's layouts (full nodes keep only their children, sparse nodes their indices
//! too, MDD nodes of one edge keep it in their record): every read of [`saturn_dd::Edges`] is checked against the slice of edges the
//! node was made from, before and after collections that compact the pool.

use proptest::prelude::*;
use saturn_dd::{Edge, Forest, NodeId, Reduction};

/// A node's edges as (index, which earlier node is the child, value): `full` nodes take the
/// indices `0..n`, the others a random sorted set.
fn node_spec() -> impl Strategy<Value = Vec<(u32, usize, i64)>> {
    (
        any::<bool>(),
        prop::collection::btree_set(0u32..40, 1..12),
        prop::collection::vec((any::<usize>(), -3i64..4), 12),
    )
        .prop_map(|(full, set, picks)| {
            let idx: Vec<u32> = if full {
                (0..set.len() as u32).collect()
            } else {
                set.into_iter().collect()
            };
            idx.into_iter()
                .zip(picks)
                .map(|(i, (c, v))| (i, c, v))
                .collect()
        })
}

/// Check every reader of the view of `n` against `es`.
fn check<V: saturn_dd::EdgeValue>(f: &Forest<V>, n: NodeId, es: &[Edge<V>]) {
    let v = f.edges(n);
    assert_eq!(v.len(), es.len());
    assert_eq!(v.is_empty(), es.is_empty());
    assert_eq!(v.to_vec(), es);
    assert!(v.same_as(es));
    assert_eq!(
        v.iter().rev().collect::<Vec<_>>(),
        es.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(v.first(), es.first().copied());
    assert_eq!(v.last(), es.last().copied());
    assert_eq!(
        v.children().collect::<Vec<_>>(),
        es.iter().map(|e| e.child).collect::<Vec<_>>()
    );
    for k in 0..es.len() + 2 {
        assert_eq!(v.get(k), es.get(k).copied());
    }
    for (k, e) in es.iter().enumerate() {
        assert_eq!((v.idx(k), v.child(k), v.val(k)), (e.idx, e.child, e.val));
    }
    let top = es.last().map_or(0, |e| e.idx + 3);
    for i in 0..top {
        assert_eq!(
            v.search(i),
            es.binary_search_by_key(&i, |e| e.idx),
            "index {i}"
        );
        assert_eq!(v.find(i), es.iter().find(|e| e.idx == i).copied());
        assert_eq!(
            v.partition_point(|e| e.idx < i),
            es.partition_point(|e| e.idx < i)
        );
        assert_eq!(
            f.child_at(n, f.level(n), i),
            es.iter()
                .find(|e| e.idx == i)
                .map_or(NodeId::EMPTY, |e| e.child)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// MDD nodes over three levels: each level's nodes take children among the nodes of the
    /// level below; some are dropped and collected, and the survivors read the same.
    #[test]
    fn mdd_nodes_read_as_made(specs in prop::collection::vec(node_spec(), 1..30), keep in any::<u64>()) {
        let mut f = Forest::new(3, Reduction::Quasi);
        let mut made: Vec<(NodeId, Vec<Edge>)> = Vec::new();
        let mut below = vec![NodeId::ONE];
        for (s, spec) in specs.iter().enumerate() {
            let level = 1 + s % 3;
            if level == 1 {
                below = vec![NodeId::ONE];
            }
            let es: Vec<Edge> = spec.iter().map(|&(i, c, _)| Edge::new(i, below[c % below.len()])).collect();
            let n = f.make_node(level, &es);
            check(&f, n, &es);
            made.push((n, es));
            if level < 3 {
                below = made.iter().filter(|(m, _)| f.level(*m) == level).map(|(m, _)| *m).collect();
            }
        }
        // keep roots by the bits of `keep` (and everything under them), collect the rest
        let roots: Vec<NodeId> = made.iter().enumerate().filter(|(k, _)| keep >> (k % 64) & 1 == 1).map(|(_, (n, _))| *n).collect();
        f.gc(&roots);
        let again: Vec<NodeId> = made.iter().filter(|(n, _)| f.is_live(*n)).map(|(n, _)| *n).collect();
        for &r in &roots {
            prop_assert!(f.is_live(r));
        }
        for (n, es) in &made {
            if again.contains(n) {
                check(&f, *n, es);
            }
        }
        // a second collection of everything but the roots compacts the pool
        f.gc(&roots);
        f.gc(&roots);
        for (n, es) in &made {
            if roots.contains(n) {
                check(&f, *n, es);
            }
        }
    }

    /// Valued edges (EV+ forests' `i64`): the values sit beside the children in both layouts.
    #[test]
    fn valued_nodes_read_as_made(specs in prop::collection::vec(node_spec(), 1..20)) {
        let mut f: Forest<i64> = Forest::with_values(1, Reduction::Quasi);
        for spec in &specs {
            let es: Vec<Edge<i64>> = spec.iter().map(|&(i, _, v)| Edge::valued(i, NodeId::ONE, v)).collect();
            let n = f.make_node(1, &es);
            check(&f, n, &es);
        }
    }
}
