//! The shared context: pins survive collections, every cache is purged by the one rule, and
//! the relation forest is collected too (a rebuilt relation frees the old one).

use std::collections::HashSet;

use crate::common::{Rng, Universe};
use saturn_dd::{image, Cache, Dd, Forest, Live, NodeId, Purge};

/// The context of a universe, its domains declared in both forests.
fn context(u: &Universe) -> Dd {
    let mut dd = Dd::new(u.levels());
    for (k, &d) in u.doms.iter().enumerate() {
        dd.sets.set_domain(k + 1, d);
        dd.rels.set_domain(2 * (k + 1), d);
    }
    dd
}

#[test]
fn pins_survive_collections_and_dropped_pins_free() {
    let u = Universe::new(&[2, 3, 2]);
    let mut rng = Rng(7);
    let mut dd = context(&u);
    let mut pinned = Vec::new();
    for round in 0..30 {
        // garbage, and a few sets worth keeping
        for _ in 0..50 {
            let m = rng.below(1 << 12);
            u.build_mask(&mut dd.sets, m);
        }
        let m = rng.below(1 << 12);
        let n = u.build_mask(&mut dd.sets, m);
        pinned.push((m, dd.pin(n)));
        // a pin that moves: only its current node is kept
        if let Some((m0, p)) = pinned.first_mut() {
            let m1 = rng.below(1 << 12);
            let n1 = u.build_mask(&mut dd.sets, m1);
            p.set(n1);
            *m0 = m1;
        }
        if round % 3 == 0 {
            pinned.remove(pinned.len() / 2); // dropped: freed at the next collection
        }
        dd.collect();
        let roots: Vec<NodeId> = pinned.iter().map(|(_, p)| p.get()).collect();
        assert_eq!(
            dd.sets.nodes_now(),
            dd.sets.count_nodes(&roots) + 2,
            "round {round}: exactly the pinned nodes survive"
        );
        for (m, p) in &pinned {
            assert_eq!(u.mask_of(&dd.sets, p.get()), *m, "round {round}");
            // ids are handles: rebuilding the same set finds the pinned node
            assert_eq!(u.build_mask(&mut dd.sets, *m), p.get());
        }
    }
    assert_eq!(dd.pins(), pinned.len());
    drop(pinned);
    dd.collect();
    assert_eq!(dd.sets.nodes_now(), 2);
    assert_eq!(dd.pins(), 0);
}

/// Every node reachable from `roots` (terminals included).
fn nodes_below(f: &Forest, roots: impl Iterator<Item = NodeId>) -> HashSet<NodeId> {
    let mut seen: HashSet<NodeId> = [NodeId::EMPTY, NodeId::ONE].into_iter().collect();
    let mut stack: Vec<NodeId> = roots.collect();
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            stack.extend(f.edges(x).iter().map(|e| e.child));
        }
    }
    seen
}

/// A registered cache holding set nodes and relation nodes: `(set, rel) -> set`.
#[derive(Default)]
struct Mixed {
    entries: Vec<(NodeId, NodeId, NodeId)>,
}

impl Purge for Mixed {
    fn purge(&mut self, live: &Live<'_>) {
        self.entries
            .retain(|&(s, r, v)| live.set(s) && live.rel(r) && live.set(v));
    }
}

#[test]
fn one_purge_rule_for_registered_and_checked_out_caches() {
    let u = Universe::new(&[2, 3, 2]);
    let mut rng = Rng(11);
    let mut dd = context(&u);
    let plain = dd.register(Cache::<(NodeId, NodeId), NodeId>::new(8));
    let mixed = dd.register(Mixed::default());
    for round in 0..20 {
        let sets: Vec<(u64, NodeId)> = (0..30)
            .map(|_| {
                let m = rng.below(1 << 12);
                (m, u.build_mask(&mut dd.sets, m))
            })
            .collect();
        let r = dd
            .rels
            .relation_from_local(&[(1 + round % 3, vec![(0, 1), (1, 0)])]);
        let keep: Vec<_> = sets.iter().step_by(3).map(|&(_, n)| dd.pin(n)).collect();
        let rel_pin = (round % 2 == 0).then(|| dd.pin_rel(r));
        {
            let c = dd.cache(&plain).unwrap();
            for w in sets.windows(2) {
                c.insert((w[0].1, w[1].1), w[0].1);
            }
            for w in keep.windows(2) {
                c.insert((w[0].get(), w[1].get()), w[1].get());
            }
        }
        dd.cache(&mixed).unwrap().entries = sets.iter().map(|&(_, n)| (n, r, n)).collect();
        // a collection while `mixed` is checked out: it is purged by the same rule
        let mut out = dd.take(&mixed);
        let held: &mut dyn Purge = &mut *out;
        dd.collect_with(&[], &[], &mut [held]);
        let below = nodes_below(&dd.sets, keep.iter().map(|p| p.get()));
        let set_live = |n: NodeId| below.contains(&n);
        for &(s, rr, v) in &out.entries {
            assert!(
                set_live(s) && set_live(v),
                "round {round}: entry over a freed set node"
            );
            assert!(
                rel_pin.is_some() && rr == r,
                "round {round}: entry over a freed relation"
            );
        }
        let survivors = sets.iter().filter(|&&(_, n)| set_live(n)).count();
        let want = if rel_pin.is_some() { survivors } else { 0 };
        assert_eq!(
            out.entries.len(),
            want,
            "round {round}: live entries are kept"
        );
        dd.put(&mixed, out);
        // the plain cache: every remaining entry is over live nodes
        let c = dd.cache(&plain).unwrap();
        for w in sets.windows(2) {
            if let Some(v) = c.get((w[0].1, w[1].1)) {
                assert!(set_live(w[0].1) && set_live(w[1].1) && set_live(v));
            }
        }
        for w in keep.windows(2) {
            let k = (w[0].get(), w[1].get());
            assert_eq!(
                c.get(k),
                Some(k.1),
                "round {round}: an entry over live nodes was purged"
            );
        }
        drop(keep);
        drop(rel_pin);
        dd.collect();
        assert!(dd.cache(&mixed).unwrap().entries.is_empty());
    }
}

#[test]
fn relation_forest_is_collected_and_rel_prod_cache_purged() {
    let u = Universe::new(&[2, 3, 2]);
    let mut rng = Rng(5);
    let mut dd = context(&u);
    let all = u.build_mask(&mut dd.sets, (1 << 12) - 1);
    let all_pin = dd.pin(all);
    let mut rel = dd.pin_rel(NodeId::EMPTY);
    for round in 0..40 {
        // rebuild the relation: a random local move on one variable
        let k = 1 + rng.below(3) as usize;
        let d = u.doms[k - 1];
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for i in 0..d {
            if rng.below(2) == 0 {
                pairs.push((i, rng.below(d as u64) as u32));
            }
        }
        let r = dd.rels.relation_from_local(&[(k, pairs.clone())]);
        rel.set(r);
        dd.collect();
        let live_rel = dd.rels.count_nodes(&[r]) + 2;
        assert_eq!(
            dd.rels.nodes_now(),
            live_rel,
            "round {round}: the old relation was freed"
        );
        // image of random sets, checked against the explicit image; the cache (purged of the
        // old relation's entries) never answers for a recycled id
        for _ in 0..20 {
            let m = rng.below(1 << 12);
            let s = u.build_mask(&mut dd.sets, m);
            let mut want = 0u64;
            for t in (0..u.size()).filter(|&t| m >> t & 1 == 1) {
                let mut v = u.tuple(t);
                let i = v[k - 1];
                for &(_, j) in pairs.iter().filter(|p| p.0 == i) {
                    v[k - 1] = j;
                    want |= 1 << u.index(&v);
                }
            }
            let img = image(&mut dd.sets, &dd.rels, s, r);
            assert_eq!(u.mask_of(&dd.sets, img), want, "round {round}");
        }
        assert_eq!(dd.sets.cardinality(all_pin.get()), 12u32.into());
    }
}

/// The default schedule collects once a forest reaches the floor, then when it has doubled
/// since the last collection (never below the floor); a memory limit lowers the floor.
#[test]
fn collections_wait_for_the_floor_then_for_doubling() {
    use saturn_dd::{gc_floor_for, DEFAULT_GC_FLOOR};
    assert_eq!(gc_floor_for(None), DEFAULT_GC_FLOOR);
    assert_eq!(gc_floor_for(Some(1 << 40)), DEFAULT_GC_FLOOR);
    assert_eq!(gc_floor_for(Some(1 << 30)), (1 << 30) / 256);
    assert_eq!(gc_floor_for(Some(1000)), 1 << 16);

    let u = Universe::new(&[4, 4, 4, 4, 4, 4]);
    let mut rng = Rng(11);
    let mut dd = context(&u);
    dd.set_gc_floor(200);
    let mut kept = NodeId::EMPTY;
    for t in [5, 700, 1234, 4000] {
        let s = dd.sets.singleton(&u.tuple(t));
        kept = dd.sets.union(kept, s);
    }
    let pin = dd.pin(kept);
    let (mut collections, mut live_after) = (0, 0);
    for _ in 0..2000 {
        let s = dd
            .sets
            .singleton(&u.tuple(rng.below(u.size() as u64) as usize));
        dd.sets.union(s, kept);
        let now = dd.sets.nodes_now();
        assert_eq!(
            dd.gc_due(),
            now >= 200.max(2 * live_after),
            "{now} nodes, {live_after} after the last collection"
        );
        if dd.maybe_collect() {
            collections += 1;
            live_after = dd.sets.nodes_now();
            assert_eq!(
                live_after,
                dd.sets.count_nodes(&[kept]) + 2,
                "only the pin survives"
            );
        }
    }
    assert!(collections > 1, "the floor was reached again and again");
    drop(pin);
}
