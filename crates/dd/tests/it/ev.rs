//! Edge-valued forests (EV+MDD, EV*MDD, their 2L-level matrix forms) against explicit maps on
//! exhaustive tiny universes: every operation's result is evaluated at every state and
//! compared with the map computed pointwise, and compared as a handle with the diagram built
//! directly from that map (canonicity: two equal functions are one node).

use crate::common::Universe;
use proptest::prelude::*;
use saturn_dd::ev::{Ev, EvPlusForest, EvStarForest, Overflow, Restrict, INF};
use saturn_dd::{Edge, Forest, NodeId, Reduction};

/// An explicit EV+ function: one value per tuple number of the universe (`INF` = undefined).
type PlusMap = Vec<i64>;
/// An explicit EV* function.
type StarMap = Vec<f64>;

fn ev_plus(u: &Universe) -> EvPlusForest {
    EvPlusForest::new(&u.doms)
}

fn plus_build(f: &mut EvPlusForest, u: &Universe, m: &PlusMap, rev: bool) -> Ev<i64> {
    let mut entries: Vec<(Vec<u32>, i64)> = (0..u.size()).map(|t| (u.tuple(t), m[t])).collect();
    if rev {
        entries.reverse();
    }
    f.from_entries(&entries).unwrap()
}

fn star_build(f: &mut EvStarForest, u: &Universe, m: &StarMap, rev: bool) -> Ev<f64> {
    let mut entries: Vec<(Vec<u32>, f64)> = (0..u.size()).map(|t| (u.tuple(t), m[t])).collect();
    if rev {
        entries.reverse();
    }
    f.from_entries(&entries).unwrap()
}

fn plus_check(f: &EvPlusForest, u: &Universe, e: Ev<i64>, m: &PlusMap) {
    for (t, &want) in m.iter().enumerate() {
        assert_eq!(f.eval(e, &u.tuple(t)), Ok(want), "state {:?}", u.tuple(t));
    }
}

fn star_check(f: &EvStarForest, u: &Universe, e: Ev<f64>, m: &StarMap) {
    for (t, &want) in m.iter().enumerate() {
        let got = f.eval(e, &u.tuple(t)).unwrap();
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "state {:?}: {got} vs {want}",
            u.tuple(t)
        );
    }
}

/// Every node reachable from `e` is normalised: EV+ edges `>= 0` with a `0`, EV* edges in
/// `(0, 1]` with a `1`.
fn plus_normalised(f: &EvPlusForest, e: Ev<i64>) {
    let mut stack = vec![e.node];
    while let Some(n) = stack.pop() {
        if n.is_terminal() {
            continue;
        }
        let es = f.edges(n);
        assert!(es.iter().all(|e| e.val >= 0 && e.val != INF));
        assert!(es.iter().any(|e| e.val == 0));
        assert!(es.iter().all(|e| f.level(e.child) + 1 == f.level(n)));
        stack.extend(es.iter().map(|e| e.child));
    }
}

fn star_normalised(f: &EvStarForest, e: Ev<f64>) {
    let mut stack = vec![e.node];
    while let Some(n) = stack.pop() {
        if n.is_terminal() {
            continue;
        }
        let es = f.edges(n);
        assert!(es.iter().all(|e| e.val > 0.0 && e.val <= 1.0));
        assert!(es.iter().any(|e| e.val == 1.0));
        stack.extend(es.iter().map(|e| e.child));
    }
}

/// Random domains (1 to 3 levels of 1 to 3 values) and `n` random EV+ maps over them, with
/// `INF` about a third of the time.
fn plus_maps(n: usize) -> impl Strategy<Value = (Vec<u32>, Vec<PlusMap>)> {
    prop::collection::vec(1u32..=3, 1..=3).prop_flat_map(move |doms| {
        let size: usize = doms.iter().map(|&d| d as usize).product();
        let val = prop_oneof![1 => Just(INF), 2 => -6i64..=6];
        let map = prop::collection::vec(val, size);
        (Just(doms), prop::collection::vec(map, n))
    })
}

/// Random domains and `n` random EV* maps whose values are 0 or powers of two (so every
/// normalisation is exact and canonicity can be checked bit for bit).
fn star_maps(n: usize) -> impl Strategy<Value = (Vec<u32>, Vec<StarMap>)> {
    prop::collection::vec(1u32..=3, 1..=3).prop_flat_map(move |doms| {
        let size: usize = doms.iter().map(|&d| d as usize).product();
        let val = prop_oneof![1 => Just(0.0), 2 => (0i32..=4).prop_map(|e| 2f64.powi(e - 1))];
        let map = prop::collection::vec(val, size);
        (Just(doms), prop::collection::vec(map, n))
    })
}

fn mask_of(u: &Universe, bits: u64) -> Vec<bool> {
    (0..u.size()).map(|t| bits >> t & 1 == 1).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn plus_build_eval_canonical((doms, maps) in plus_maps(2)) {
        let u = Universe::new(&doms);
        let mut f = ev_plus(&u);
        let a = plus_build(&mut f, &u, &maps[0], false);
        plus_check(&f, &u, a, &maps[0]);
        plus_normalised(&f, a);
        // the same function built in another order is the same handle
        prop_assert_eq!(plus_build(&mut f, &u, &maps[0], true), a);
        // different functions are different handles
        let b = plus_build(&mut f, &u, &maps[1], false);
        prop_assert_eq!(a == b, maps[0] == maps[1]);
    }

    #[test]
    fn plus_min_sum_constant((doms, maps) in plus_maps(2), c in -9i64..=9) {
        let u = Universe::new(&doms);
        let mut f = ev_plus(&u);
        let a = plus_build(&mut f, &u, &maps[0], false);
        let b = plus_build(&mut f, &u, &maps[1], false);
        let min: PlusMap = maps[0].iter().zip(&maps[1]).map(|(&x, &y)| x.min(y)).collect();
        let sum: PlusMap = maps[0]
            .iter()
            .zip(&maps[1])
            .map(|(&x, &y)| if x == INF || y == INF { INF } else { x + y })
            .collect();
        let plus_c: PlusMap = maps[0].iter().map(|&x| if x == INF { INF } else { x + c }).collect();
        let r = f.min(a, b).unwrap();
        plus_check(&f, &u, r, &min);
        prop_assert_eq!(r, plus_build(&mut f, &u, &min, false));
        prop_assert_eq!(f.min(b, a).unwrap(), r);
        let s = f.sum(a, b).unwrap();
        plus_check(&f, &u, s, &sum);
        prop_assert_eq!(s, plus_build(&mut f, &u, &sum, false));
        let k = f.add_constant(a, c).unwrap();
        prop_assert_eq!(k, plus_build(&mut f, &u, &plus_c, false));
        let konst = f.constant(c);
        prop_assert_eq!(konst, plus_build(&mut f, &u, &vec![c; u.size()], false));
        // min with itself, sum with the constant 0
        prop_assert_eq!(f.min(a, a).unwrap(), a);
        let zero = f.constant(0);
        prop_assert_eq!(f.sum(a, zero).unwrap(), a);
    }

    #[test]
    fn plus_min_state((doms, maps) in plus_maps(1)) {
        let u = Universe::new(&doms);
        let mut f = ev_plus(&u);
        let a = plus_build(&mut f, &u, &maps[0], false);
        let best = maps[0].iter().copied().min().unwrap();
        match f.min_state(a) {
            None => prop_assert_eq!(best, INF),
            Some((state, v)) => {
                prop_assert_eq!(v, best);
                prop_assert_eq!(maps[0][u.index(&state)], best);
            }
        }
    }

    #[test]
    fn plus_from_mdd_and_restrict((doms, maps) in plus_maps(1), bits in any::<u64>()) {
        let u = Universe::new(&doms);
        let mut sets = u.set_forest(Reduction::Quasi);
        let s = u.build_mask(&mut sets, bits);
        let inside = mask_of(&u, bits);
        let mut f = ev_plus(&u);
        let a = plus_build(&mut f, &u, &maps[0], false);
        let ind: PlusMap = inside.iter().map(|&i| if i { 0 } else { INF }).collect();
        let m = f.from_mdd(&sets, s);
        plus_check(&f, &u, m, &ind);
        prop_assert_eq!(m, plus_build(&mut f, &u, &ind, false));
        let restricted: PlusMap = maps[0]
            .iter()
            .zip(&inside)
            .map(|(&x, &i)| if i { x } else { INF })
            .collect();
        let r = f.restrict(a, &sets, s, Restrict::States).unwrap();
        plus_check(&f, &u, r, &restricted);
        prop_assert_eq!(r, plus_build(&mut f, &u, &restricted, false));
        // restriction is a sum with the indicator
        prop_assert_eq!(f.sum(a, m).unwrap(), r);
    }

    #[test]
    fn index_function_is_the_sorted_enumeration(
        doms in prop::collection::vec(1u32..=4, 1..=3),
        bits in any::<u64>(),
    ) {
        let u = Universe::new(&doms);
        let mut sets = u.set_forest(Reduction::Quasi);
        let s = u.build_mask(&mut sets, bits);
        let mut f = ev_plus(&u);
        let idx = f.index_function(&sets, s).unwrap();
        plus_normalised(&f, idx);
        // an independent order: tuple numbers with the top level most significant
        let members: Vec<usize> = (0..u.size()).filter(|&t| bits >> t & 1 == 1).collect();
        let mut sorted: Vec<Vec<u32>> = members.iter().map(|&t| u.tuple(t)).collect();
        sorted.sort_by(|x, y| x.iter().rev().cmp(y.iter().rev()));
        for (i, st) in sorted.iter().enumerate() {
            prop_assert_eq!(f.index_of(idx, st), Some(i as u64));
            prop_assert_eq!(f.state_of_index(idx, i as u64), Some(st.clone()));
        }
        prop_assert_eq!(f.state_of_index(idx, sorted.len() as u64), None);
        for t in 0..u.size() {
            if !members.contains(&t) {
                prop_assert_eq!(f.index_of(idx, &u.tuple(t)), None);
            }
        }
        // canonical: the same function built from its table is the same handle
        let mut table = vec![INF; u.size()];
        for (i, st) in sorted.iter().enumerate() {
            table[u.index(st)] = i as i64;
        }
        prop_assert_eq!(idx, plus_build(&mut f, &u, &table, false));
    }

    #[test]
    fn star_build_sum_scale((doms, maps) in star_maps(2), e in 0i32..=3, disjoint in any::<bool>()) {
        let u = Universe::new(&doms);
        let mut f = EvStarForest::new(&u.doms);
        let mut m1 = maps[1].clone();
        if disjoint {
            for (y, &x) in m1.iter_mut().zip(&maps[0]) {
                if x != 0.0 {
                    *y = 0.0;
                }
            }
        }
        let a = star_build(&mut f, &u, &maps[0], false);
        star_check(&f, &u, a, &maps[0]);
        star_normalised(&f, a);
        prop_assert_eq!(star_build(&mut f, &u, &maps[0], true), a);
        let b = star_build(&mut f, &u, &m1, false);
        prop_assert_eq!(a == b, maps[0] == m1);
        let sum: StarMap = maps[0].iter().zip(&m1).map(|(x, y)| x + y).collect();
        let s = f.sum(a, b).unwrap();
        star_check(&f, &u, s, &sum);
        star_normalised(&f, s);
        if disjoint {
            // values stay powers of two: exact, so canonical bit for bit
            prop_assert_eq!(s, star_build(&mut f, &u, &sum, false));
        }
        let c = 2f64.powi(e);
        let scaled: StarMap = maps[0].iter().map(|x| x * c).collect();
        prop_assert_eq!(f.scale(a, c).unwrap(), star_build(&mut f, &u, &scaled, false));
        prop_assert_eq!(f.scale(a, 0.0).unwrap(), Ev::default_fn());
        let best = maps[0].iter().copied().fold(0.0, f64::max);
        match f.max_state(a) {
            None => prop_assert_eq!(best, 0.0),
            Some((st, v)) => {
                prop_assert_eq!(v, best);
                prop_assert_eq!(maps[0][u.index(&st)], best);
            }
        }
        let k = f.constant(c).unwrap();
        prop_assert_eq!(k, star_build(&mut f, &u, &vec![c; u.size()], false));
    }

    /// Matrices (EV*MxD and EV+MxD) over interleaved levels: built from entries, read back
    /// entry by entry, restricted to rows and to columns.
    #[test]
    fn matrices_rows_and_columns(
        doms in prop::collection::vec(1u32..=3, 1..=2),
        vals in prop::collection::vec(prop_oneof![1 => Just(0.0), 2 => (0i32..=3).prop_map(|e| 2f64.powi(e))], 81),
        dist in prop::collection::vec(prop_oneof![1 => Just(INF), 2 => 0i64..=9], 81),
        rows in any::<u64>(),
        cols in any::<u64>(),
    ) {
        let u = Universe::new(&doms);
        let n = u.size();
        let mut sets = u.set_forest(Reduction::Quasi);
        let rs = u.build_mask(&mut sets, rows);
        let cs = u.build_mask(&mut sets, cols);
        let (rin, cin) = (mask_of(&u, rows), mask_of(&u, cols));
        let entry = |i: usize, j: usize| vals[i * n + j];
        // EV*MxD
        let mut f = EvStarForest::new_interleaved(&u.doms);
        let all: Vec<(Vec<u32>, Vec<u32>, f64)> = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .map(|(i, j)| (u.tuple(i), u.tuple(j), entry(i, j)))
            .collect();
        let m = f.matrix_from_entries(&all).unwrap();
        star_normalised(&f, m);
        for i in 0..n {
            for j in 0..n {
                let t = EvStarForest::matrix_tuple(&u.tuple(i), &u.tuple(j));
                prop_assert_eq!(f.eval(m, &t).unwrap(), entry(i, j));
            }
        }
        let keep = |pred: &dyn Fn(usize, usize) -> bool| -> Vec<(Vec<u32>, Vec<u32>, f64)> {
            all.iter()
                .enumerate()
                .map(|(x, (r, c, v))| (r.clone(), c.clone(), if pred(x / n, x % n) { *v } else { 0.0 }))
                .collect()
        };
        let by_rows = f.restrict(m, &sets, rs, Restrict::Rows).unwrap();
        let want = keep(&|i, _| rin[i]);
        prop_assert_eq!(by_rows, f.matrix_from_entries(&want).unwrap());
        let by_cols = f.restrict(m, &sets, cs, Restrict::Cols).unwrap();
        let want = keep(&|_, j| cin[j]);
        prop_assert_eq!(by_cols, f.matrix_from_entries(&want).unwrap());
        // EV+MxD: min with its transpose-free copy restricted, against the explicit table
        let mut g = EvPlusForest::new_interleaved(&u.doms);
        let dl: Vec<(Vec<u32>, Vec<u32>, i64)> = (0..n * n)
            .map(|x| (u.tuple(x / n), u.tuple(x % n), dist[x]))
            .collect();
        let d = g.matrix_from_entries(&dl).unwrap();
        plus_normalised(&g, d);
        let dr = g.restrict(d, &sets, rs, Restrict::Rows).unwrap();
        let mn = g.min(d, dr).unwrap();
        prop_assert_eq!(mn, d);
        let sm = g.sum(d, dr).unwrap();
        for x in 0..n * n {
            let t = EvPlusForest::matrix_tuple(&u.tuple(x / n), &u.tuple(x % n));
            let want = if rin[x / n] && dist[x] != INF { 2 * dist[x] } else { INF };
            prop_assert_eq!(g.eval(sm, &t), Ok(want));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A relation of an identity-reduced forest (skipped pairs included) as a 0/1 EV*MxD and
    /// a 0/∞ EV+MxD, against the explicit pair list.
    #[test]
    fn relation_to_matrix(
        doms in prop::collection::vec(1u32..=3, 1..=3),
        picks in prop::collection::vec((0usize..27, 0usize..27), 0..30),
        identity_on_top in any::<bool>(),
    ) {
        let u = Universe::new(&doms);
        let n = u.size();
        let mut pairs: Vec<(usize, usize)> = picks.iter().map(|&(i, j)| (i % n, j % n)).collect();
        if identity_on_top {
            // pairs that keep the top variable: a skipped pair at the top
            let top = u.levels();
            pairs.retain(|&(i, j)| u.tuple(i)[top - 1] == u.tuple(j)[top - 1]);
            let extra: Vec<(usize, usize)> = pairs
                .iter()
                .flat_map(|&(i, j)| {
                    (0..u.doms[top - 1]).map(move |v| (i, j, v))
                })
                .map(|(i, j, v)| {
                    let (mut a, mut b) = (u.tuple(i), u.tuple(j));
                    a[top - 1] = v;
                    b[top - 1] = v;
                    (u.index(&a), u.index(&b))
                })
                .collect();
            pairs.extend(extra);
        }
        let mut rels = u.rel_forest();
        let tuples: Vec<(Vec<u32>, Vec<u32>)> =
            pairs.iter().map(|&(i, j)| (u.tuple(i), u.tuple(j))).collect();
        let r = rels.relation_from_tuples(&tuples);
        let inside = |i: usize, j: usize| pairs.contains(&(i, j));
        let mut f = EvStarForest::new_interleaved(&u.doms);
        let m = f.from_relation(&rels, r);
        let mut g = EvPlusForest::new_interleaved(&u.doms);
        let d = g.from_relation(&rels, r);
        let mut ones = Vec::new();
        let mut zeros = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let t = EvStarForest::matrix_tuple(&u.tuple(i), &u.tuple(j));
                let want = inside(i, j);
                prop_assert_eq!(f.eval(m, &t).unwrap(), if want { 1.0 } else { 0.0 });
                prop_assert_eq!(g.eval(d, &t), Ok(if want { 0 } else { INF }));
                ones.push((u.tuple(i), u.tuple(j), if want { 1.0 } else { 0.0 }));
                zeros.push((u.tuple(i), u.tuple(j), if want { 0 } else { INF }));
            }
        }
        prop_assert_eq!(m, f.matrix_from_entries(&ones).unwrap());
        prop_assert_eq!(d, g.matrix_from_entries(&zeros).unwrap());
    }
}

#[test]
fn collection_keeps_roots_and_purges_caches() {
    let u = Universe::new(&[3, 3, 3]);
    let mut f = ev_plus(&u);
    let m1: PlusMap = (0..27)
        .map(|t| if t % 4 == 0 { INF } else { t as i64 })
        .collect();
    let m2: PlusMap = (0..27).map(|t| (27 - t) as i64 % 5).collect();
    let a = plus_build(&mut f, &u, &m1, false);
    let b = plus_build(&mut f, &u, &m2, false);
    let ra = f.add_root(a);
    let rb = f.add_root(b);
    // garbage: sums and minima of unrooted functions
    for c in 0..20 {
        let k = f.constant(c);
        let s = f.sum(a, k).unwrap();
        f.min(s, b).unwrap();
    }
    let before = f.nodes_now();
    let freed = f.gc(&[]);
    assert!(freed > 0 && f.nodes_now() < before);
    assert!(f.is_live(a.node) && f.is_live(b.node));
    // results after the collection (ids recycled) are still right
    // (min(a, b) was computed before, as min(a + 0, b), and its unrooted result was freed:
    // the purged cache must miss rather than answer with a recycled id)
    let misses_before = f.cache_stats()[0].2;
    let m = f.min(a, b).unwrap();
    assert!(
        f.cache_stats()[0].2 > misses_before,
        "the purged entry is gone"
    );
    let want: PlusMap = m1.iter().zip(&m2).map(|(&x, &y)| x.min(y)).collect();
    plus_check(&f, &u, m, &want);
    f.remove_root(ra);
    f.remove_root(rb);
    f.gc(&[]);
    assert_eq!(f.nodes_now(), 2, "only the terminals are left");
    // and the caches hold nothing over freed nodes: rebuild and recompute
    let a = plus_build(&mut f, &u, &m1, false);
    let b = plus_build(&mut f, &u, &m2, false);
    let m = f.min(a, b).unwrap();
    plus_check(&f, &u, m, &want);
}

#[test]
fn arithmetic_overflow_is_an_error() {
    let u = Universe::new(&[2]);
    let mut f = ev_plus(&u);
    let big = plus_build(&mut f, &u, &vec![i64::MAX - 1, 0], false);
    assert_eq!(f.sum(big, big), Err(Overflow));
    // the root value fits, a path sum does not: evaluation says so instead of wrapping
    let shifted = f.add_constant(big, 1).unwrap();
    assert_eq!(f.eval(shifted, &[0]), Err(Overflow));
    assert_eq!(f.eval(shifted, &[1]), Ok(1));
    let top = f.constant(i64::MAX - 1);
    assert_eq!(f.add_constant(top, 1), Err(Overflow));
    // normalising MIN next to 0 takes 0 − MIN
    assert_eq!(
        f.from_entries(&[(vec![0], i64::MIN), (vec![1], 0)]),
        Err(Overflow)
    );
    let high = f.from_entries(&[(vec![0], i64::MAX - 1)]).unwrap();
    let low = f.from_entries(&[(vec![1], -5)]).unwrap();
    assert_eq!(f.min(high, low), Err(Overflow), "ρ−σ does not fit");
    let mut s = EvStarForest::new(&[2]);
    let huge = s.from_entries(&[(vec![0], f64::MAX)]).unwrap();
    assert_eq!(s.scale(huge, 4.0), Err(Overflow));
    assert_eq!(s.scale(huge, -1.0), Err(Overflow));
}

/// A full set over `levels` binary levels (2^levels states).
fn full_binary(levels: usize) -> (Forest, NodeId) {
    let mut sets = Forest::new(levels, Reduction::Quasi);
    let mut n = NodeId::ONE;
    for k in 1..=levels {
        n = sets.make_node(k, &[Edge::new(0, n), Edge::new(1, n)]);
    }
    (sets, n)
}

#[test]
fn index_function_overflow_is_an_error() {
    // 2^62 states fit: the last one has index 2^62 - 1
    let (sets, s) = full_binary(62);
    let mut f = EvPlusForest::new(&[2; 62]);
    let idx = f.index_function(&sets, s).unwrap();
    assert_eq!(f.index_of(idx, &[1; 62]), Some((1u64 << 62) - 1));
    assert_eq!(f.state_of_index(idx, (1u64 << 62) - 1), Some(vec![1; 62]));
    assert_eq!(f.state_of_index(idx, 1u64 << 62), None);
    // 2^64 states do not
    let (sets, s) = full_binary(64);
    let mut f = EvPlusForest::new(&[2; 64]);
    assert_eq!(f.index_function(&sets, s), Err(Overflow));
}

#[test]
fn dot_export_of_every_kind() {
    let u = Universe::new(&[2, 2]);
    let mut f = ev_plus(&u);
    let a = plus_build(&mut f, &u, &vec![3, INF, 5, 4], false);
    let dot = f.to_dot(&[("dist", a)]);
    assert!(dot.starts_with("digraph ev {") && dot.ends_with("}\n"));
    assert!(dot.contains("label=\"x2\"") && dot.contains("label=\"Ω\""));
    assert!(dot.contains("\"root dist\" -> n") && dot.contains("[label=\"3\"]"));
    let stored: usize = [a.node]
        .iter()
        .flat_map(|&n| {
            let mut all = vec![n];
            all.extend(f.edges(n).iter().map(|e| e.child));
            all
        })
        .collect::<std::collections::BTreeSet<_>>()
        .iter()
        .map(|&n| f.edges(n).len())
        .sum();
    let arrows = dot
        .lines()
        .filter(|l| l.trim_start().starts_with('n') && l.contains(" -> "))
        .count();
    assert_eq!(arrows, stored, "one arrow per stored edge");
    let mut s = EvStarForest::new_interleaved(&[2]);
    let m = s
        .matrix_from_entries(&[(vec![0], vec![1], 2.5), (vec![1], vec![0], 5.0)])
        .unwrap();
    let dot = s.to_dot(&[("R", m)]);
    assert!(dot.contains("label=\"x1'\"") && dot.contains("label=\"x1\""));
    assert!(dot.contains("[label=\"5\"]") && dot.contains(":0.5\"]"));
    let empty = s.to_dot(&[("zero", Ev::default_fn())]);
    assert!(empty.contains("label=\"∅\""));
}

/// An EV+ forest registered with a context follows the context's one rule: after a collection
/// of the set forest that frees some sets and keeps others (pinned), the index function of a
/// kept set is still a cache hit, and sets built on recycled node ids get their own (right)
/// index functions.
#[test]
fn registered_ev_forest_follows_the_context_rule() {
    let mut dd = saturn_dd::Dd::new(3);
    for k in 1..=3 {
        dd.sets.set_domain(k, 3);
    }
    let slot = dd.register(EvPlusForest::new(&[3, 3, 3]));
    let kept = dd.sets.singleton(&[1, 2, 0]);
    let other = dd.sets.singleton(&[0, 0, 1]);
    let kept = dd.sets.union(kept, other);
    let _pin = dd.pin(kept);
    for round in 0..5u32 {
        // a set that is garbage after this round
        let a = dd.sets.singleton(&[round % 3, 1, 2]);
        let b = dd.sets.singleton(&[2, round % 3, 0]);
        let s = dd.sets.union(a, b);
        let states = dd.sets.states(s, usize::MAX);
        let mut f = dd.take(&slot);
        let idx = f.index_function(&dd.sets, s).unwrap();
        for (i, st) in states.iter().enumerate() {
            assert_eq!(f.index_of(idx, st), Some(i as u64), "round {round}");
        }
        let ik = f.index_function(&dd.sets, kept).unwrap();
        f.add_root(ik);
        dd.put(&slot, f);
        assert!(dd.collect() > 0);
        let mut f = dd.take(&slot);
        let hits = f.cache_stats()[4].1;
        assert_eq!(f.index_function(&dd.sets, kept).unwrap(), ik);
        assert!(
            f.cache_stats()[4].1 > hits,
            "round {round}: the kept entry was lost"
        );
        dd.put(&slot, f);
    }
}
