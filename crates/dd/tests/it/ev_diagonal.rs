//! `off_diagonal`, `transpose`, `diagonal`, `row`, `count_paths` and `count_nodes_edges` of edge-valued matrix forests against
//! explicit maps: random sparse matrices over tiny interleaved universes, every entry
//! evaluated; the result is also compared as a handle with the diagram built directly from
//! the off-diagonal map (canonicity; EV* values are powers of two so that no normalisation
//! rounds).

use proptest::prelude::*;
use saturn_dd::ev::{EvPlusForest, EvStarForest, INF};

/// Every state of a universe with the given domains (entry `k-1` for level `k`).
fn states(doms: &[u32]) -> Vec<Vec<u32>> {
    let mut out = vec![vec![]];
    for &d in doms {
        out = out
            .into_iter()
            .flat_map(|s| {
                (0..d).map(move |i| {
                    let mut t = s.clone();
                    t.push(i);
                    t
                })
            })
            .collect();
    }
    out
}

proptest! {
    #[test]
    fn off_diagonal_drops_exactly_the_diagonal(
        doms in prop::collection::vec(1u32..4, 1..4),
        picks in prop::collection::vec((any::<u16>(), any::<u16>(), 1u8..9), 0..40),
    ) {
        let all = states(&doms);
        let n = all.len();
        let mut entries = Vec::new();
        for &(a, b, v) in &picks {
            let (r, c) = (&all[a as usize % n], &all[b as usize % n]);
            // powers of two: every ratio a normalisation takes is exact, so canonicity holds
            entries.push((r.clone(), c.clone(), (2.0f64).powi(v as i32 - 4)));
        }
        // a later entry replaces an earlier one, as in matrix_from_entries
        let mut map = std::collections::BTreeMap::new();
        for (r, c, v) in &entries {
            map.insert((r.clone(), c.clone()), *v);
        }
        let mut f = EvStarForest::new_interleaved(&doms);
        let m = f.matrix_from_entries(&entries).unwrap();
        prop_assert_eq!(f.count_paths(m), map.len() as u128);
        let off = f.off_diagonal(m).unwrap();
        let off_map: Vec<_> = map
            .iter()
            .filter(|((r, c), _)| r != c)
            .map(|((r, c), v)| (r.clone(), c.clone(), *v))
            .collect();
        prop_assert_eq!(f.count_paths(off), off_map.len() as u128);
        for r in &all {
            for c in &all {
                let t = EvStarForest::matrix_tuple(r, c);
                let want = if r == c { 0.0 } else { map.get(&(r.clone(), c.clone())).copied().unwrap_or(0.0) };
                let got = f.eval(off, &t).unwrap();
                prop_assert!((got - want).abs() <= 1e-12 * want.max(1.0), "{r:?}->{c:?}: {got} vs {want}");
            }
        }
        let direct = f.matrix_from_entries(&off_map).unwrap();
        prop_assert_eq!(direct.node, off.node);
        let (nodes, edges) = f.count_nodes_edges(&[off]);
        prop_assert_eq!(nodes, f.count_nodes(&[off]));
        prop_assert!(edges >= nodes);
        // the EV+ sibling: the diagonal becomes +inf
        let mut g = EvPlusForest::new_interleaved(&doms);
        let pe: Vec<_> = entries.iter().map(|(r, c, v)| (r.clone(), c.clone(), (*v * 16.0) as i64)).collect();
        let pm = g.matrix_from_entries(&pe).unwrap();
        let poff = g.off_diagonal(pm).unwrap();
        for r in &all {
            let t = EvPlusForest::matrix_tuple(r, r);
            prop_assert_eq!(g.eval(poff, &t), Ok(INF));
        }
    }

    #[test]
    fn transpose_swaps_rows_and_columns(
        doms in prop::collection::vec(1u32..4, 1..4),
        picks in prop::collection::vec((any::<u16>(), any::<u16>(), 1u8..9), 0..40),
    ) {
        let all = states(&doms);
        let n = all.len();
        let mut map = std::collections::BTreeMap::new();
        for &(a, b, v) in &picks {
            let (r, c) = (&all[a as usize % n], &all[b as usize % n]);
            map.insert((r.clone(), c.clone()), (2.0f64).powi(v as i32 - 4));
        }
        let entries: Vec<_> = map.iter().map(|((r, c), v)| (r.clone(), c.clone(), *v)).collect();
        let mut f = EvStarForest::new_interleaved(&doms);
        let m = f.matrix_from_entries(&entries).unwrap();
        let t = f.transpose(m).unwrap();
        for r in &all {
            for c in &all {
                let want = map.get(&(c.clone(), r.clone())).copied().unwrap_or(0.0);
                let got = f.eval(t, &EvStarForest::matrix_tuple(r, c)).unwrap();
                prop_assert!((got - want).abs() <= 1e-12 * want.max(1.0), "{r:?}->{c:?}: {got} vs {want}");
            }
        }
        // canonicity: the same handle as the transposed map built directly, and back again
        let swapped: Vec<_> = entries.iter().map(|(r, c, v)| (c.clone(), r.clone(), *v)).collect();
        let direct = f.matrix_from_entries(&swapped).unwrap();
        prop_assert_eq!(direct.node, t.node);
        prop_assert_eq!(f.transpose(t).unwrap().node, m.node);
        // EV+: the same on distances
        let mut g = EvPlusForest::new_interleaved(&doms);
        let pe: Vec<_> = entries.iter().map(|(r, c, v)| (r.clone(), c.clone(), (*v * 16.0) as i64)).collect();
        let pm = g.matrix_from_entries(&pe).unwrap();
        let pt = g.transpose(pm).unwrap();
        for (r, c, v) in &pe {
            prop_assert_eq!(g.eval(pt, &EvPlusForest::matrix_tuple(c, r)), Ok(*v));
        }
    }
}

proptest! {
    /// `diagonal` and `row` of a random EV+ matrix (the projections the shortest EG lasso takes
    /// of the closure with distances) into an `L`-level forest: every state's value is the
    /// matrix entry `(s, s)`, resp. `(row, s)`, `+∞` where the matrix has none.
    #[test]
    fn diagonal_and_row_project_the_matrix(
        doms in prop::collection::vec(1u32..4, 1..4),
        picks in prop::collection::vec((any::<u16>(), any::<u16>(), 0i64..20), 0..40),
        row in any::<u16>(),
        shift in 0i64..5,
    ) {
        let all = states(&doms);
        let n = all.len();
        let entries: Vec<_> = picks
            .iter()
            .map(|&(a, b, v)| (all[a as usize % n].clone(), all[b as usize % n].clone(), v))
            .collect();
        let mut map = std::collections::BTreeMap::new();
        for (r, c, v) in &entries {
            map.insert((r.clone(), c.clone()), *v);
        }
        let mut f = EvPlusForest::new_interleaved(&doms);
        let m = f.matrix_from_entries(&entries).unwrap();
        let m = f.add_constant(m, shift).unwrap();
        let mut out = EvPlusForest::new(&doms);
        let d = f.diagonal(m, &mut out).unwrap();
        let r0 = &all[row as usize % n];
        let g = f.row(m, r0, &mut out).unwrap();
        let at = |r: &Vec<u32>, c: &Vec<u32>| map.get(&(r.clone(), c.clone())).map_or(INF, |v| v + shift);
        for s in &all {
            prop_assert_eq!(out.eval(d, s).unwrap(), at(s, s));
            prop_assert_eq!(out.eval(g, s).unwrap(), at(r0, s));
        }
    }
}
