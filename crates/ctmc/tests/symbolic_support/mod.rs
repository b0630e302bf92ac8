//! Shared by the symbolic engine's tests: the explicit chain of a general model built by
//! direct enumeration (the reference), dense linear algebra, and the checks of a
//! [`SymbolicCtmc`] against them.
#![allow(dead_code, clippy::needless_range_loop)]

use std::collections::{BTreeMap, HashMap};

use saturn_ctmc::symbolic::walk::Part;
use saturn_ctmc::{per_column, RateMatrix, Sweep, SymbolicCtmc};
use saturn_model::GeneralModel;
use saturn_reference::explore_general;

/// The explicit chain: states sorted in the lexicographic order of the level tuples (top level
/// most significant, Definition 15), off-diagonal rates summed over events.
pub struct Explicit {
    pub states: Vec<Vec<i64>>,
    pub rates: BTreeMap<(usize, usize), f64>,
    /// Distinct (state, successor) pairs including self-loops, plus one per deadlock.
    pub prism_transitions: usize,
}

/// Enumerate the chain of `model` (at most `max` states) with `model.step` over every
/// reachable state; `order[k-1]` is the variable at level `k`.
pub fn explicit(model: &GeneralModel, order: &[usize], max: usize) -> Option<Explicit> {
    let ss = explore_general(model, max).ok()?;
    let key = |s: &Vec<i64>| -> Vec<i64> { order.iter().rev().map(|&v| s[v]).collect() };
    let mut states: Vec<Vec<i64>> = ss.states.iter().cloned().collect();
    states.sort_by_key(key);
    let pos: HashMap<Vec<i64>, usize> = states
        .iter()
        .enumerate()
        .map(|(i, s)| (s.clone(), i))
        .collect();
    let mut rates = BTreeMap::new();
    for (i, s) in states.iter().enumerate() {
        for e in 0..model.events.len() {
            if let Some((t, r)) = model.step(e, s).unwrap() {
                let j = pos[&t];
                if i != j {
                    *rates.entry((i, j)).or_insert(0.0) += r;
                }
            }
        }
    }
    Some(Explicit {
        states,
        rates,
        prism_transitions: ss.prism_transitions(),
    })
}

/// Dense `n x n` rate matrix.
pub fn dense(e: &Explicit) -> Vec<Vec<f64>> {
    let n = e.states.len();
    let mut m = vec![vec![0.0; n]; n];
    for (&(i, j), &r) in &e.rates {
        m[i][j] = r;
    }
    m
}

pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// A deterministic pseudo-random vector.
pub fn vector(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 1000) as f64 / 1000.0 + 0.001
        })
        .collect()
}

/// Every check of the symbolic chain against the explicit one: states and their indices,
/// entries (and their visiting order), counts, `x R`, Gauss-Seidel sweeps both ways.
pub fn check_against(model: &GeneralModel, c: &SymbolicCtmc, e: &Explicit) {
    let n = e.states.len();
    assert_eq!(c.states(), n, "number of states");
    for (i, s) in e.states.iter().enumerate() {
        assert_eq!(c.index_of(model, s), Some(i), "index of {s:?}");
        assert_eq!(c.state(model, i).as_ref(), Some(s), "state of index {i}");
    }
    assert_eq!(c.state(model, n), None);
    // entries, in the lexicographic order of the interleaved pairs (Lemma 17)
    let mut seen = BTreeMap::new();
    let mut last: Option<Vec<u32>> = None;
    c.for_each_entry(Part::All, false, &mut |s, d, r| {
        let (ls, ld) = (c.local_state(s).unwrap(), c.local_state(d).unwrap());
        let mut t: Vec<u32> = Vec::new();
        for k in (0..ls.len()).rev() {
            t.push(ls[k]);
            t.push(ld[k]);
        }
        // the plain traversal's order (the cache visits all `Down` entries, then the `Up`
        // ones, each part in this order)
        if let (Some(p), None) = (&last, c.cache()) {
            assert!(*p < t, "entries visited out of lexicographic order");
        }
        last = Some(t);
        assert!(seen.insert((s, d), r).is_none(), "entry ({s},{d}) twice");
    });
    assert_eq!(seen.len(), e.rates.len(), "number of entries");
    for (&(i, j), &r) in &e.rates {
        let got = seen.get(&(i, j)).copied().unwrap_or(0.0);
        assert!(close(got, r, 1e-12), "R[{i},{j}] = {got}, expected {r}");
        let (li, lj) = (c.local_state(i).unwrap(), c.local_state(j).unwrap());
        assert!(close(c.rate(&li, &lj), r, 1e-12), "lookup of R[{i},{j}]");
    }
    assert_eq!(c.nonzeros(), e.rates.len() as u64);
    assert_eq!(c.prism_transitions(), e.prism_transitions as u64);
    check_products(c, e);
}

/// `x R`, the exit rates and Gauss-Seidel sweeps against the dense matrix.
pub fn check_products(c: &impl RateMatrix, e: &Explicit) {
    let n = e.states.len();
    let m = dense(e);
    let h = c.exit_rates();
    for i in 0..n {
        let want: f64 = m[i].iter().sum();
        assert!(
            close(h[i], want, 1e-12),
            "h[{i}] = {}, expected {want}",
            h[i]
        );
    }
    let x = vector(n, 7);
    let y0 = vector(n, 11);
    let mut y = y0.clone();
    c.vec_mul_add(&x, &mut y);
    for j in 0..n {
        let want = y0[j] + (0..n).map(|i| x[i] * m[i][j]).sum::<f64>();
        assert!(
            close(y[j], want, 1e-12),
            "(xR)[{j}] = {}, expected {want}",
            y[j]
        );
    }
    for order in [Sweep::Forward, Sweep::Backward] {
        let b = vector(n, 13);
        let mut x = vector(n, 5);
        let mut want = x.clone();
        let cols: Vec<usize> = match order {
            Sweep::Forward => (0..n).collect(),
            Sweep::Backward => (0..n).rev().collect(),
        };
        for &j in &cols {
            let s: f64 = (0..n).filter(|&i| i != j).map(|i| want[i] * m[i][j]).sum();
            want[j] = 0.5 * s + b[j];
        }
        // the blocks of columns, each with its old values as `f` saw them
        let mut blocks = Vec::new();
        let before = x.clone();
        c.gauss_seidel_sweep(&mut x, order, &mut |lo, sums, xs| {
            assert_eq!(sums.len(), xs.len(), "one sum per column");
            assert_eq!(xs, &before[lo..lo + xs.len()], "f sees the old values");
            blocks.push((lo, xs.len()));
            for (k, v) in xs.iter_mut().enumerate() {
                *v = 0.5 * sums[k] + b[lo + k];
            }
        });
        let mut calls: Vec<usize> = Vec::new();
        for &(lo, len) in &blocks {
            let block: Vec<usize> = (lo..lo + len).collect();
            match order {
                Sweep::Forward => calls.extend(block),
                Sweep::Backward => calls.extend(block.into_iter().rev()),
            }
        }
        assert_eq!(
            calls, cols,
            "{order:?} sweep visits every column once, the blocks in order"
        );
        for j in 0..n {
            assert!(
                close(x[j], want[j], 1e-12),
                "{order:?} sweep x[{j}] = {}, expected {}",
                x[j],
                want[j]
            );
        }
    }
}

/// The steady state of an irreducible chain by Gaussian elimination with partial pivoting on
/// `pi Q = 0`, `sum pi = 1`.
pub fn dense_steady_state(m: &[Vec<f64>]) -> Vec<f64> {
    let n = m.len();
    // rows of A = Q^T, the last equation replaced by the normalisation
    let mut a = vec![vec![0.0; n + 1]; n];
    for i in 0..n {
        let h: f64 = m[i].iter().sum();
        for j in 0..n {
            a[j][i] += m[i][j];
        }
        a[i][i] -= h;
    }
    for j in 0..n {
        a[n - 1][j] = 1.0;
    }
    a[n - 1][n] = 1.0;
    for col in 0..n {
        let p = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap();
        a.swap(col, p);
        for r in 0..n {
            if r != col && a[r][col] != 0.0 {
                let f = a[r][col] / a[col][col];
                for k in col..=n {
                    a[r][k] -= f * a[col][k];
                }
            }
        }
    }
    (0..n).map(|i| a[i][n] / a[i][i]).collect()
}

/// Is the chain irreducible (every state reaches every other)?
pub fn irreducible(m: &[Vec<f64>]) -> bool {
    let n = m.len();
    let reach = |fwd: bool| {
        let mut seen = vec![false; n];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..n {
                let r = if fwd { m[i][j] } else { m[j][i] };
                if r > 0.0 && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen.iter().all(|&s| s)
    };
    n > 0 && reach(true) && reach(false)
}

/// The steady state by Gauss-Seidel sweeps of `c`, under-relaxed (`x[j] <- 0.1 x[j] + 0.9 sum
/// / h[j]`, plain Gauss-Seidel oscillates on some chains), then normalised,
/// until the largest relative change is below `1e-13`.
pub fn gs_steady_state(c: &impl RateMatrix, order: Sweep) -> Vec<f64> {
    let n = c.states();
    let h = c.exit_rates();
    let mut x = vec![1.0 / n as f64; n];
    let mut diff = f64::NAN;
    for _ in 0..200_000 {
        let old = x.clone();
        c.gauss_seidel_sweep(
            &mut x,
            order,
            &mut per_column(|j, s, was| {
                assert_eq!(was, old[j], "f sees the old value");
                0.1 * was + 0.9 * s / h[j]
            }),
        );
        let total: f64 = x.iter().sum();
        x.iter_mut().for_each(|v| *v /= total);
        diff = x
            .iter()
            .zip(&old)
            .map(|(a, b)| (a - b).abs() / a.abs().max(1e-300))
            .fold(0.0, f64::max);
        if diff < 1e-13 {
            return x;
        }
    }
    panic!("{order:?} Gauss-Seidel did not converge: last change {diff:e}, x = {x:?}")
}
