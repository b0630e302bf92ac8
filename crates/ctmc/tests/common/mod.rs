//! Helpers shared by the CTMC tests.
#![allow(dead_code, clippy::needless_range_loop)]

/// Dense Gaussian elimination with partial pivoting: solve `a x = b`.
pub fn gauss(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .expect("a row");
        a.swap(c, p);
        b.swap(c, p);
        for r in 0..n {
            if r != c && a[r][c] != 0.0 {
                let f = a[r][c] / a[c][c];
                for k in c..n {
                    a[r][k] -= f * a[c][k];
                }
                b[r] -= f * b[c];
            }
        }
    }
    (0..n).map(|i| b[i] / a[i][i]).collect()
}

/// Reachability (reflexive, transitive) of the nonzero pattern of `r`, by Floyd-Warshall.
pub fn closure(r: &[Vec<f64>]) -> Vec<Vec<bool>> {
    let n = r.len();
    let mut reach = vec![vec![false; n]; n];
    for i in 0..n {
        reach[i][i] = true;
        for j in 0..n {
            if r[i][j] != 0.0 {
                reach[i][j] = true;
            }
        }
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                if reach[i][k] && reach[k][j] {
                    reach[i][j] = true;
                }
            }
        }
    }
    reach
}

/// The reachable states of `model` by explicit exploration (at most `limit`), in value order,
/// and the index of each.
pub fn explicit_states(
    model: &saturn_model::GeneralModel,
    limit: usize,
) -> (Vec<Vec<i64>>, std::collections::BTreeMap<Vec<i64>, usize>) {
    let ss = saturn_reference::general::explore_general(model, limit).expect("explores");
    let states: Vec<Vec<i64>> = ss.states.iter().cloned().collect();
    let index = states
        .iter()
        .enumerate()
        .map(|(i, s)| (s.clone(), i))
        .collect();
    (states, index)
}
