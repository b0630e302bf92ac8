//! Big exact counts, deep diagrams, DOT export and regressions.

use crate::common::Universe;
use saturn_dd::{image, preimage, Edge, Forest, NodeId, Reduction};

/// The quasi-reduced MDD of the full product of `levels` levels with domain `dom`.
fn full_product(f: &mut Forest, levels: usize, dom: u32) -> NodeId {
    let mut n = NodeId::ONE;
    for k in 1..=levels {
        n = f.make_node_dense(k, &vec![n; dom as usize]);
    }
    n
}

#[test]
fn ten_to_the_600() {
    let mut q = Forest::new(600, Reduction::Quasi);
    let all = full_product(&mut q, 600, 10);
    assert_eq!(q.count_nodes(&[all]), 600);
    let want = format!("1{}", "0".repeat(600));
    assert_eq!(q.cardinality(all).to_string(), want);
    assert_eq!(q.cardinality_u128(all), None);
    // minus one state: 999...9 (600 nines)
    let one = q.singleton(&[7; 600]);
    let rest = q.minus(all, one);
    assert_eq!(q.cardinality(rest).to_string(), "9".repeat(600));
    assert_eq!(q.union(rest, one), all);
    assert_eq!(q.pick(rest), Some(vec![0; 600]));
    assert_eq!(q.pick(one), Some(vec![7; 600]));
    // the fully-reduced universe is the terminal ONE with every level skipped
    let mut f = Forest::new(600, Reduction::Fully);
    for k in 1..=600 {
        f.set_domain(k, 10);
    }
    assert_eq!(full_product(&mut f, 600, 10), NodeId::ONE);
    assert_eq!(f.cardinality(NodeId::ONE).to_string(), want);
    let s = f.singleton(&[3; 600]);
    let rest = f.minus(NodeId::ONE, s);
    assert_eq!(f.cardinality(rest).to_string(), "9".repeat(600));
    assert_eq!(f.count_nodes(&[rest]), 600);
}

/// The float count follows the exact one past `u128` (10^150; 10^200 - 1 in a fully-reduced
/// forest, skipped levels counted) and is infinite past `f64::MAX`, never wrapped.
#[test]
fn approximate_counts_past_u128_and_past_f64() {
    let mut memo = hashbrown::HashMap::new();
    let mut q = Forest::new(600, Reduction::Quasi);
    let all = full_product(&mut q, 600, 10);
    let mut n = NodeId::ONE;
    for k in 1..=150 {
        n = q.make_node_dense(k, &[n; 10]);
    }
    let c = q.cardinality_approx(n, &mut memo);
    assert!((c / 1e150 - 1.0).abs() < 1e-12, "{c}");
    assert_eq!(q.cardinality_approx(all, &mut memo), f64::INFINITY);
    let mut f = Forest::new(400, Reduction::Fully);
    for k in 1..=400 {
        f.set_domain(k, 10);
    }
    let s = f.singleton(&[3; 400]);
    let rest = f.minus(NodeId::ONE, s);
    let mut memo = hashbrown::HashMap::new();
    assert_eq!(f.cardinality_approx(NodeId::ONE, &mut memo), f64::INFINITY);
    let c = f.cardinality_approx(rest, &mut memo);
    assert_eq!(c, f64::INFINITY, "10^400 - 1 overflows");
    let mut g = Forest::new(200, Reduction::Fully);
    for k in 1..=200 {
        g.set_domain(k, 10);
    }
    let s = g.singleton(&[3; 200]);
    let rest = g.minus(NodeId::ONE, s);
    let c = g.cardinality_approx(rest, &mut hashbrown::HashMap::new());
    assert!((c / 1e200 - 1.0).abs() < 1e-12, "{c}");
}

#[test]
fn deep_relational_product() {
    // 600 variables with domain 10; a local rotation v -> v+1 mod 10 on variable 300
    let k = 600;
    let mut sets = Forest::new(k, Reduction::Quasi);
    let mut rels = Forest::new(2 * k, Reduction::Identity);
    for v in 1..=k {
        rels.set_domain(2 * v, 10);
    }
    let all = full_product(&mut sets, k, 10);
    let rot: Vec<(u32, u32)> = (0..10).map(|i| (i, (i + 1) % 10)).collect();
    let r = rels.relation_from_local(&[(300, rot)]);
    assert_eq!(rels.relation_top(r), 300);
    assert_eq!(rels.count_nodes(&[r]), 11);
    assert_eq!(image(&mut sets, &rels, all, r), all);
    assert_eq!(preimage(&mut sets, &rels, all, r), all);
    let mut st = vec![0u32; k];
    st[299] = 9;
    st[599] = 4;
    let s = sets.singleton(&st);
    let img = image(&mut sets, &rels, s, r);
    st[299] = 0;
    assert_eq!(img, sets.singleton(&st));
    st[299] = 9;
    assert_eq!(preimage(&mut sets, &rels, img, r), s);
    let want = format!("1{}", "0".repeat(1200));
    assert_eq!(
        rels.cardinality(NodeId::ONE).to_string(),
        want[..601].to_string()
    );
    assert_eq!(rels.cardinality(r).to_string(), want[..601].to_string());
}

#[test]
fn relation_domains_are_per_variable() {
    // regression: the unprimed and primed levels of a pair share the variable's domain, so an
    // explicit identity over the from-values seen so far is not mistaken for "unchanged" when
    // a larger to-value exists
    let mut rels = Forest::new(2, Reduction::Identity);
    let p = rels.make_node(1, &[Edge::new(1, NodeId::ONE)]);
    let inc = rels.make_node(2, &[Edge::new(0, p)]); // 0 -> 1
    assert_eq!(rels.domain(1), 2);
    assert_eq!(rels.domain(2), 2);
    let p0 = rels.make_node(1, &[Edge::new(0, NodeId::ONE)]);
    let stay0 = rels.make_node(2, &[Edge::new(0, p0)]); // 0 -> 0 only
    assert_ne!(stay0, NodeId::ONE, "0 -> 0 is not the identity on {{0, 1}}");
    assert_eq!(rels.cardinality(stay0).to_string(), "1");
    assert_eq!(rels.cardinality(inc).to_string(), "1");
    assert_eq!(rels.cardinality(NodeId::ONE).to_string(), "2");
    // relation_from_local agrees
    assert_eq!(rels.relation_from_local(&[(1, vec![(0, 0)])]), stay0);
    assert_eq!(
        rels.relation_from_local(&[(1, vec![(0, 0), (1, 1)])]),
        NodeId::ONE
    );
}

#[test]
fn skipped_pairs_stay_identity_when_domains_grow() {
    let u = Universe::new(&[2, 2]);
    let mut sets = u.set_forest(Reduction::Quasi);
    let mut rels = u.rel_forest();
    // variable 1: 0 -> 1; variable 2 untouched (skipped)
    let r = rels.relation_from_local(&[(1, vec![(0, 1)])]);
    // variable 2 later grows to 5 values: the skipped pair relates the new values too
    sets.set_domain(2, 5);
    rels.set_domain(4, 5);
    for v in 0..5 {
        let s = sets.singleton(&[0, v]);
        assert_eq!(image(&mut sets, &rels, s, r), sets.singleton(&[1, v]));
    }
    // whereas an explicit part relates only the listed pairs
    let e = rels.relation_from_local(&[(2, vec![(0, 0), (1, 1)]), (1, vec![(0, 1)])]);
    let s = sets.singleton(&[0, 4]);
    assert_eq!(image(&mut sets, &rels, s, e), NodeId::EMPTY);
    let s = sets.singleton(&[0, 1]);
    assert_eq!(image(&mut sets, &rels, s, e), sets.singleton(&[1, 1]));
}

#[test]
fn relation_pick_and_enumerate() {
    let u = Universe::new(&[3, 2]);
    let mut rels = u.rel_forest();
    let r = rels.relation_from_local(&[(1, vec![(2, 0), (1, 2)])]);
    // tuples: entry 2k-1 is from_k, entry 2k-2 is to_k; variable 2 skipped = (v, v)
    let got = rels.states(r, usize::MAX);
    assert_eq!(
        got,
        vec![
            vec![2, 1, 0, 0],
            vec![0, 2, 0, 0],
            vec![2, 1, 1, 1],
            vec![0, 2, 1, 1],
        ]
    );
    assert_eq!(rels.pick(r), Some(vec![2, 1, 0, 0]));
    assert_eq!(rels.pick(NodeId::EMPTY), None);
    assert_eq!(rels.states(r, 3).len(), 3);
    assert_eq!(rels.cardinality(r).to_string(), "4");
}

#[test]
fn dot_export() {
    let u = Universe::new(&[2, 3]);
    let mut f = u.set_forest(Reduction::Quasi);
    let s = u.build_mask(&mut f, 0b10_0110);
    let dot = f.to_dot(&[("S \"quoted\"", s), ("empty", NodeId::EMPTY)]);
    assert!(dot.starts_with("digraph dd {"));
    assert!(dot.trim_end().ends_with('}'));
    assert!(dot.contains("rank=same; L2;"));
    assert!(dot.contains("L2 [shape=plaintext, label=\"x2\"]"));
    assert!(dot.contains("[shape=box, label=\"1\"]"));
    assert!(dot.contains("[shape=box, label=\"0\"]"));
    assert!(dot.contains("label=\"S \\\"quoted\\\"\""));
    // one arrow per (node, child); 0b10_0110 = {(1,0),(0,1),(1,2)} as (x1, x2)
    let arrows = dot.lines().filter(|l| l.contains(" -> n")).count();
    let roots = 2;
    let nodes = f.count_nodes(&[s]);
    assert_eq!(nodes, 3); // root, {1}, {0}
    assert_eq!(arrows, roots + 2 + 2);
    assert!(dot.contains("[label=\"0,2\"]"));
    let mut rels = Forest::new(4, Reduction::Identity);
    let r = rels.relation_from_local(&[(2, vec![(0, 1), (1, 2), (2, 3)])]);
    let rd = rels.to_dot(&[("N", r)]);
    assert!(rd.contains("label=\"x2'\""));
    assert!(rd.contains("label=\"x2\""));
}

/// A forest at its node or edge capacity makes no node: it flags the overflow and gives EMPTY
/// (an engine reading the flag stops), and the nodes made before stay intact.
#[test]
fn capacity_overflow_is_flagged_not_wrapped() {
    let mut f = saturn_dd::Forest::new(2, saturn_dd::Reduction::Quasi);
    f.set_capacity(6, u32::MAX); // the two terminals and four nodes
    let a = f.singleton(&[0, 0]); // two nodes
    assert!(!f.overflowed());
    let b = f.singleton(&[1, 0]); // two more nodes: the sixth slot
    assert!(!f.overflowed());
    assert_eq!(f.cardinality(a), 1u32.into());
    let c = f.union(a, b); // a seventh slot: refused
    assert!(f.overflowed());
    assert!(c.is_empty());
    let mut g = saturn_dd::Forest::new(1, saturn_dd::Reduction::Quasi);
    // the cap counts words: an edge of a sparse node takes two, of a full node (0..n) one, a
    // node of one edge none (it is held in the node's record)
    g.set_capacity(u32::MAX, 5);
    let x = g.singleton(&[3]);
    let x4 = g.singleton(&[4]);
    let (x0, x1) = (g.singleton(&[0]), g.singleton(&[1]));
    assert!(!g.overflowed() && !x.is_empty() && !x4.is_empty() && !x0.is_empty());
    let y = g.union(x, x4); // sparse: four words
    assert!(!g.overflowed() && g.cardinality(y) == 2u32.into());
    let z = g.union(x0, x1); // full: two more words, past the cap
    assert!(g.overflowed() && z.is_empty());
    // a local index whose domain size would not fit in u32
    let mut h = saturn_dd::Forest::new(1, saturn_dd::Reduction::Quasi);
    assert!(h.singleton(&[u32::MAX]).is_empty());
    assert!(h.overflowed());
}

/// `|a ∩ b|` past 128 bits: all 16^40 tuples of 40 levels against those with 0 at the bottom
/// level and 0 or 1 at the top one, counted without building the intersection (2·16^38).
#[test]
fn intersection_counts_past_128_bits() {
    use saturn_dd::{Edge, Forest, NodeId, Reduction};
    let k = 40;
    let mut f = Forest::new(k, Reduction::Quasi);
    for l in 1..=k {
        f.set_domain(l, 16);
    }
    let (mut all, mut some) = (NodeId::ONE, NodeId::ONE);
    for l in 1..=k {
        let full: Vec<Edge> = (0..16).map(|i| Edge::new(i, all)).collect();
        let allowed: Vec<u32> = match l {
            1 => vec![0],
            l if l == k => vec![0, 1],
            _ => (0..16).collect(),
        };
        let part: Vec<Edge> = allowed.iter().map(|&i| Edge::new(i, some)).collect();
        all = f.make_node(l, &full);
        some = f.make_node(l, &part);
    }
    let expect = num_bigint::BigUint::from(2u32) * num_bigint::BigUint::from(16u32).pow(38);
    assert_eq!(f.cardinality_of_intersection(all, some), expect);
    assert_eq!(f.cardinality_of_intersection(some, all), expect);
    assert_eq!(f.cardinality(some), expect);
}

/// Drawn tuples belong to the set, the same seed draws the same ones, and a tuple's chance
/// follows the counts below each edge: `{0} x {0..99}` beside `{(1, 0)}`, in quasi- and
/// fully-reduced forests (where a skipped level draws from its whole domain).
#[test]
fn sampled_tuples_are_members_drawn_by_count() {
    for red in [Reduction::Quasi, Reduction::Fully] {
        let mut f = Forest::new(2, red);
        f.set_domain(1, 100);
        f.set_domain(2, 2);
        let all = full_product(&mut f, 1, 100);
        let zero = f.make_node(1, &[Edge::new(0, NodeId::ONE)]);
        let set = f.make_node(2, &[Edge::new(0, all), Edge::new(1, zero)]);
        let mut memo = hashbrown::HashMap::new();
        let drawn = f.sample(set, 2000, 7, &mut memo);
        assert_eq!(drawn.len(), 2000);
        for t in &drawn {
            let one = f.singleton(t);
            assert_eq!(f.intersect(set, one), one, "{t:?} drawn but not a member");
        }
        assert_eq!(drawn, f.sample(set, 2000, 7, &mut memo));
        let heavy = drawn.iter().filter(|t| t[1] == 0).count();
        // expected 2000 * 100 / 101 = 1980
        assert!(
            (1940..2000).contains(&heavy),
            "{heavy} of 2000 under the heavy edge"
        );
        let lows = drawn.iter().filter(|t| t[1] == 0 && t[0] < 50).count();
        assert!(
            (850..1130).contains(&lows),
            "{lows} of ~990 in the lower half"
        );
        assert!(f.sample(NodeId::EMPTY, 5, 1, &mut memo).is_empty());
    }
}
