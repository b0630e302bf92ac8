//! Every solver against a dense direct solve: random small irreducible chains (stationary
//! distribution by Gaussian elimination, within 1e-9), the linear systems of unbounded until
//! (against Gaussian elimination), exact rationals on the tiniest chains, and the graph
//! analysis (bottom SCCs) against brute force. A solver either converges to the right answer or
//! says it did not converge: never a wrong number.

#![allow(clippy::needless_range_loop)] // dense linear algebra reads best with indices

use crate::common::{closure, gauss};
use proptest::prelude::*;

use saturn_ctmc::graph::{bottom_sccs, prob0, prob1};
use saturn_ctmc::solve::{absorbing, steady_state, Convergence, Method, Options, SolveError};
use saturn_ctmc::sparse::SparseMatrix;
use saturn_ctmc::{RateMatrix, Sweep};

/// The stationary distribution of dense off-diagonal rates `r`, directly: `pi Q = 0` with the
/// last equation replaced by `sum pi = 1`.
fn dense_steady(r: &[Vec<f64>]) -> Vec<f64> {
    let n = r.len();
    let mut a = vec![vec![0.0; n]; n];
    for j in 0..n {
        for i in 0..n {
            a[j][i] = if i == j {
                -r[i].iter().sum::<f64>()
            } else {
                r[i][j]
            };
        }
    }
    let mut b = vec![0.0; n];
    a[n - 1] = vec![1.0; n];
    b[n - 1] = 1.0;
    gauss(a, b)
}

fn matrix(r: &[Vec<f64>]) -> SparseMatrix {
    let mut t = Vec::new();
    for (i, row) in r.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 && i != j {
                t.push((i as u32, j as u32, v));
            }
        }
    }
    SparseMatrix::from_triples(r.len(), t)
}

/// Random rates over `n` states; with `cycle`, a cycle 0 -> 1 -> ... -> 0 makes it irreducible.
fn rates(n: usize, cycle: bool) -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(
        proptest::collection::vec(prop_oneof![3 => Just(0.0), 2 => 0.1f64..10.0], n),
        n,
    )
    .prop_map(move |mut r| {
        for (i, row) in r.iter_mut().enumerate() {
            row[i] = 0.0;
            if cycle && n > 1 {
                let j = (i + 1) % n;
                if row[j] == 0.0 {
                    row[j] = 1.0;
                }
            }
        }
        r
    })
}

fn methods() -> Vec<Method> {
    vec![
        Method::Auto,
        Method::Power,
        Method::Jacobi,
        Method::Jor(0.5),
        Method::GaussSeidel(Sweep::Forward),
        Method::GaussSeidel(Sweep::Backward),
        Method::Sor(Sweep::Forward, 0.8),
        Method::Sor(Sweep::Backward, 1.1),
    ]
}

fn tight(method: Method) -> Options {
    Options {
        method,
        epsilon: 1e-14,
        convergence: Convergence::Absolute,
        max_iters: 200_000,
    }
}

/// Methods that must converge on any irreducible chain: the uniformised power method and the
/// automatic choice (it ends with power). Jacobi, JOR, Gauss-Seidel and SOR may fail on some
/// chains: they must then say so.
fn must_converge(m: Method) -> bool {
    matches!(m, Method::Auto | Method::Power)
}

/// Check a steady-state solution against `want`, or that `method` may fail.
fn check_steady(m: &SparseMatrix, want: &[f64], tol: f64) -> Result<(), TestCaseError> {
    for method in methods() {
        match steady_state(&m.view(), &tight(method), &mut |_, _, _| true) {
            Ok(sol) => {
                for (x, y) in sol.x.iter().zip(want) {
                    prop_assert!(
                        (x - y).abs() < tol,
                        "{}: {:?} vs {:?}",
                        method.name(),
                        sol.x,
                        want
                    );
                }
            }
            Err(SolveError::NotConverged { .. }) => {
                prop_assert!(!must_converge(method), "{} did not converge", method.name());
            }
            Err(e) => prop_assert!(false, "{e}"),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn steady_state_agrees_with_gaussian_elimination(
        r in (2usize..9).prop_flat_map(|n| rates(n, true))
    ) {
        check_steady(&matrix(&r), &dense_steady(&r), 1e-9)?;
    }

    #[test]
    fn until_probabilities_agree_with_gaussian_elimination(
        r in (2usize..9).prop_flat_map(|n| rates(n, false)),
        seed in proptest::collection::vec(0u8..4, 9),
    ) {
        let n = r.len();
        let a: Vec<bool> = (0..n).map(|i| seed[i] != 0).collect();
        let b: Vec<bool> = (0..n).map(|i| seed[i] == 1).collect();
        let m = matrix(&r);
        let h = m.view().exit_rates();
        let no = prob0(&m, &a, &b);
        let yes = prob1(&m, &a, &b, &no);
        // the dense system x = P x (+ P into yes) over the other states
        let unknown: Vec<usize> = (0..n).filter(|&i| !no[i] && !yes[i]).collect();
        let k = unknown.len();
        let mut aa = vec![vec![0.0; k]; k];
        let mut bb = vec![0.0; k];
        for (ri, &s) in unknown.iter().enumerate() {
            aa[ri][ri] = 1.0;
            for (j, &v) in r[s].iter().enumerate() {
                let p = v / h[s];
                if let Some(cj) = unknown.iter().position(|&u| u == j) {
                    aa[ri][cj] -= p;
                } else if yes[j] {
                    bb[ri] += p;
                }
            }
        }
        let xs = if k > 0 { gauss(aa, bb) } else { vec![] };
        let mut want: Vec<f64> = (0..n).map(|i| if yes[i] { 1.0 } else { 0.0 }).collect();
        for (ri, &s) in unknown.iter().enumerate() {
            want[s] = xs[ri];
            // Prob0/Prob1 are exact: what they leave is strictly between 0 and 1
            prop_assert!(xs[ri] > 1e-12 && xs[ri] < 1.0 - 1e-12, "a 0/1 state left: {}", xs[ri]);
        }
        // and a state they fix is really 0 or 1: `a & !b` states that reach no `b` are 0
        for i in 0..n {
            if b[i] { prop_assert!(yes[i]); }
            if !a[i] && !b[i] { prop_assert!(no[i]); }
        }
        let fixed: Vec<Option<f64>> = (0..n)
            .map(|i| if yes[i] { Some(1.0) } else if no[i] { Some(0.0) } else { None })
            .collect();
        let copied = m.transpose();
        let copy = copied.view();
        // the transpose's columns are the rows: transposed back, the same columns
        let back = copied.transpose();
        for j in 0..n {
            prop_assert_eq!(back.col(j).collect::<Vec<_>>(), m.col(j).collect::<Vec<_>>());
        }
        let transposes: [&dyn RateMatrix; 1] = [&copy];
        for (method, rt) in methods().into_iter().flat_map(|x| transposes.map(|t| (x, t))) {
            match absorbing(rt, &h, &fixed, &vec![0.0; n], &tight(method), &mut |_, _, _| true) {
                Ok(sol) => for (x, y) in sol.x.iter().zip(&want) {
                    prop_assert!((x - y).abs() < 1e-9, "{}: {:?} vs {:?}", method.name(), sol.x, want);
                },
                Err(SolveError::NotConverged { .. }) => prop_assert!(!must_converge(method)),
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
    }

    #[test]
    fn bottom_sccs_are_the_closed_components(r in (1usize..10).prop_flat_map(|n| rates(n, false))) {
        let n = r.len();
        let m = matrix(&r);
        let reach = closure(&r);
        // i is in a bottom SCC iff everything it reaches reaches it back
        let mut want: Vec<Vec<u32>> = Vec::new();
        for i in 0..n {
            if (0..n).all(|j| !reach[i][j] || reach[j][i])
                && !want.iter().any(|c| c.contains(&(i as u32)))
            {
                want.push((0..n).filter(|&j| reach[i][j]).map(|j| j as u32).collect());
            }
        }
        prop_assert_eq!(bottom_sccs(&m), want);
    }
}

/// Exact fractions over i128 (tiny chains only).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Q(i128, i128);

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

impl Q {
    fn new(n: i128, d: i128) -> Q {
        let g = gcd(n, d).max(1) * d.signum();
        Q(n / g, d / g)
    }
    fn add(self, o: Q) -> Q {
        Q::new(self.0 * o.1 + o.0 * self.1, self.1 * o.1)
    }
    fn sub(self, o: Q) -> Q {
        Q::new(self.0 * o.1 - o.0 * self.1, self.1 * o.1)
    }
    fn mul(self, o: Q) -> Q {
        Q::new(self.0 * o.0, self.1 * o.1)
    }
    fn div(self, o: Q) -> Q {
        Q::new(self.0 * o.1, self.1 * o.0)
    }
    fn f(self) -> f64 {
        self.0 as f64 / self.1 as f64
    }
}

/// Exact stationary distribution of a tiny chain with integer rates (Gauss-Jordan over Q).
fn exact_steady(r: &[Vec<i128>]) -> Vec<Q> {
    let n = r.len();
    let mut a = vec![vec![Q(0, 1); n + 1]; n];
    for j in 0..n {
        for i in 0..n {
            a[j][i] = if i == j {
                Q(-r[i].iter().sum::<i128>(), 1)
            } else {
                Q(r[i][j], 1)
            };
        }
    }
    a[n - 1] = vec![Q(1, 1); n + 1];
    for c in 0..n {
        let p = (c..n).find(|&i| a[i][c].0 != 0).expect("nonsingular");
        a.swap(c, p);
        for rr in 0..n {
            if rr != c && a[rr][c].0 != 0 {
                let f = a[rr][c].div(a[c][c]);
                for k in c..=n {
                    let t = f.mul(a[c][k]);
                    a[rr][k] = a[rr][k].sub(t);
                }
            }
        }
    }
    (0..n).map(|i| a[i][n].div(a[i][i])).collect()
}

#[test]
fn tiny_chains_against_exact_rationals() {
    let chains: Vec<Vec<Vec<i128>>> = vec![
        vec![vec![0, 3], vec![7, 0]],
        vec![vec![0, 1, 2], vec![5, 0, 0], vec![0, 4, 0]],
        vec![vec![0, 2, 0], vec![0, 0, 9], vec![1, 1, 0]],
        vec![
            vec![0, 1, 0, 0],
            vec![3, 0, 1, 0],
            vec![0, 3, 0, 1],
            vec![0, 0, 3, 0],
        ],
    ];
    for r in chains {
        let want = exact_steady(&r);
        let total = want.iter().fold(Q(0, 1), |s, x| s.add(*x));
        assert_eq!(total, Q(1, 1));
        let rf: Vec<Vec<f64>> = r
            .iter()
            .map(|row| row.iter().map(|&x| x as f64).collect())
            .collect();
        let wf: Vec<f64> = want.iter().map(|q| q.f()).collect();
        check_steady(&matrix(&rf), &wf, 1e-12).expect("agrees with the exact solution");
    }
}

#[test]
fn a_solver_that_does_not_converge_says_so() {
    // a 2-cycle: Jacobi swaps the two entries forever
    let m = matrix(&[vec![0.0, 1.0], vec![5.0, 0.0]]);
    let o = Options {
        max_iters: 50,
        ..tight(Method::Jacobi)
    };
    match steady_state(&m.view(), &o, &mut |_, _, _| true) {
        Err(SolveError::NotConverged { iterations, .. }) => assert_eq!(iterations, 50),
        other => panic!("expected NotConverged, got {other:?}"),
    }
    // the progress callback can stop any method
    let e = steady_state(&m.view(), &tight(Method::Power), &mut |_, it, _| it < 3);
    assert_eq!(e, Err(SolveError::Interrupted));
}

/// `r` transposed (the rows of `R` as the columns of a matrix: the sweeps of the Poisson
/// bounds go over the rows).
fn transposed(r: &[Vec<f64>]) -> Vec<Vec<f64>> {
    (0..r.len())
        .map(|j| (0..r.len()).map(|i| r[i][j]).collect())
        .collect()
}

/// Two random irreducible blocks (each closed: a bottom SCC) and a transient state that
/// leads into both, with weights `w`: the Poisson-equation bounds of each block contain the
/// block's stationary average of `w` (dense elimination), from any estimate, within epsilon
/// when the sweeps are enough, and never exclude it when they stop early.
fn check_poisson(
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    w: &[f64],
    noise: f64,
) -> Result<(), TestCaseError> {
    let (na, nb) = (a.len(), b.len());
    let n = na + nb + 1;
    let mut r = vec![vec![0.0; n]; n];
    for i in 0..na {
        r[i][..na].copy_from_slice(&a[i]);
    }
    for i in 0..nb {
        r[na + i][na..na + nb].copy_from_slice(&b[i]);
    }
    r[n - 1][0] = 1.0;
    r[n - 1][na] = 2.0;
    let exit: Vec<f64> = r.iter().map(|row| row.iter().sum()).collect();
    let mut class = vec![0u32; na];
    class.extend(vec![1u32; nb]);
    class.push(saturn_ctmc::solve::NO_CLASS);
    let exact = |block: &[Vec<f64>], off: usize| -> f64 {
        let pi = dense_steady(block);
        pi.iter().enumerate().map(|(i, p)| p * w[off + i]).sum()
    };
    let want = [exact(a, 0), exact(b, na)];
    // the stationary estimates, perturbed by up to `noise` relative
    let mut pi = dense_steady(a);
    pi.extend(dense_steady(b));
    pi.push(0.0);
    for (i, p) in pi.iter_mut().enumerate() {
        *p *= 1.0 + noise * ((i * 7 % 5) as f64 - 2.0) / 2.0;
    }
    let rows = matrix(&transposed(&r));
    for (max_iters, eps) in [(10_000, 1e-9), (3, 1e-9)] {
        let o = Options {
            method: Method::GaussSeidel(Sweep::Backward),
            epsilon: eps,
            convergence: Convergence::Relative,
            max_iters,
        };
        let got = saturn_ctmc::solve::poisson_bounds(
            &rows.view(),
            &exit,
            &class,
            w,
            &pi,
            &o,
            &mut |_, it, d| {
                if std::env::var("DBG").is_ok() {
                    eprintln!("{it} {d:e}");
                }
                true
            },
        )
        .expect("bounds");
        for c in 0..2 {
            let slack = 1e-10 * want[c].abs().max(1e-300);
            prop_assert!(
                got.lo[c] - slack <= want[c] && want[c] <= got.hi[c] + slack,
                "class {c}: {} not in [{}, {}] after {} sweeps",
                want[c],
                got.lo[c],
                got.hi[c],
                got.iterations
            );
            if max_iters == 10_000 {
                prop_assert!(got.within, "not within after {} sweeps", got.iterations);
                prop_assert!(got.hi[c] - got.lo[c] <= 2e-9 * want[c].abs() + 1e-300);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn poisson_bounds_contain_the_stationary_averages(
        a in (2usize..12).prop_flat_map(|n| rates(n, true)),
        b in (2usize..12).prop_flat_map(|n| rates(n, true)),
        w in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), 0.0f64..5.0], 25),
        noise in prop_oneof![Just(0.0), 0.0f64..0.5],
    ) {
        check_poisson(&a, &b, &w, noise)?;
    }
}

/// A stiff chain (rates from 1e-3 to 1e3, a rarely left state): the bounds still contain the
/// exact average.
#[test]
fn poisson_bounds_on_a_stiff_chain() {
    let n = 8;
    let mut a = vec![vec![0.0; n]; n];
    for i in 0..n {
        a[i][(i + 1) % n] = if i == 3 { 1e-3 } else { 1e3 };
        a[i][(i + 3) % n] += 0.5;
    }
    let w: Vec<f64> = (0..n + 3).map(|i| (i % 3) as f64).collect();
    let b = vec![vec![0.0, 1.0], vec![1.0, 0.0]];
    check_poisson(&a, &b, &w, 0.3).expect("contains");
}
