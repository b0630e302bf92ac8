//! The linear systems of unbounded until and reachability rewards on the embedded chain
//! (thesis section 2.3.4, Figure 6.5): `x[s] = c[s] + sum_j R[s][j] x[j] / h[s]` for the
//! unknown states, `x[s]` fixed for the others, iterated from the zero vector.

use super::steady::not_converged;
use super::watch::Watch;
use super::{
    conclude, scale_into, with_fallback, Convergence, Failed, Method, Options, Progress, Run,
    Solution, SolveError,
};
use crate::matrix::{RateMatrix, Relaxation};

/// Solve `x[s] = fixed[s]` where given, else `x[s] = c[s] + (sum_j R[s][j] x[j]) / h[s]`.
///
/// `rt` is the TRANSPOSE of the rate matrix `R` (so its columns are `R`'s rows: a
/// Gauss-Seidel sweep over them updates `x[s]` from the successors of `s`), `h` the exit rates
/// of `R`. Every unknown state must have `h[s] > 0` and reach a fixed state with probability 1
/// (the callers' graph precomputation guarantees it). Starts from zero on the unknown states;
/// the power method is Jacobi here.
pub fn absorbing(
    rt: &dyn RateMatrix,
    h: &[f64],
    fixed: &[Option<f64>],
    c: &[f64],
    o: &Options,
    progress: Progress,
) -> Result<Solution, SolveError> {
    let inv: Vec<f64> = h.iter().map(|&v| 1.0 / v).collect();
    absorbing_from(rt, &inv, fixed, c, 0.0, o, progress)
}

/// [`absorbing`] starting from `low` on the unknown states, given `inv = 1 / h` (only unknown
/// states, `h > 0`, use it: a multiplication per state, not a division).
pub(super) fn absorbing_from(
    rt: &dyn RateMatrix,
    inv: &[f64],
    fixed: &[Option<f64>],
    c: &[f64],
    low: f64,
    o: &Options,
    progress: Progress,
) -> Result<Solution, SolveError> {
    let n = rt.states();
    // the start, made for each run that has none (not kept beside the iterate)
    let start = || -> Vec<f64> { fixed.iter().map(|f| f.unwrap_or(low)).collect() };
    if fixed.iter().all(Option::is_some) {
        return Ok(Solution {
            x: start(),
            iterations: 0,
            method: o.method,
        });
    }
    debug_assert_eq!(n, inv.len());
    let relative = o.convergence == Convergence::Relative;
    with_fallback(o, progress, |method, run: Run, progress| {
        let mut x = run.start.unwrap_or_else(start);
        // the previous iterate and the product vector of the power and Jacobi methods
        // (Gauss-Seidel needs neither: it measures the difference as it sweeps)
        let sweeps = matches!(method, Method::GaussSeidel(_) | Method::Sor(..));
        let (mut prev, mut y) = if sweeps {
            (Vec::new(), Vec::new())
        } else {
            (x.clone(), vec![0.0; n])
        };
        let mut diff = f64::INFINITY;
        let mut watch = Watch::default();
        for it in 1..=run.budget {
            let d = match method {
                Method::Power | Method::Auto | Method::Jacobi | Method::Jor(_) => {
                    let w = if let Method::Jor(w) = method { w } else { 1.0 };
                    y.iter_mut().for_each(|v| *v = 0.0);
                    rt.vec_mul_add(&prev, &mut y);
                    for s in 0..n {
                        if fixed[s].is_none() {
                            x[s] = (1.0 - w) * prev[s] + w * (c[s] + y[s] * inv[s]);
                        }
                    }
                    // measure the difference and copy into `prev` in one pass (so `prev`
                    // equals `x` when the next iteration starts)
                    scale_into(&mut x, &mut prev, 1.0, o.convergence)
                }
                Method::GaussSeidel(order) | Method::Sor(order, _) => {
                    let w = if let Method::Sor(_, w) = method {
                        w
                    } else {
                        1.0
                    };
                    let r = Relaxation {
                        w,
                        inv,
                        rhs: Some(c),
                        fixed: Some(fixed),
                        relative,
                    };
                    rt.relaxed_sweep(&mut x, order, &r).diff
                }
            };
            match conclude(d, x, method, it, o, progress)? {
                Ok(sol) => return Ok(sol),
                Err((next, d)) => (x, diff) = (next, d),
            }
            if watch.hopeless(it, run.budget, diff, o.epsilon) {
                break;
            }
        }
        Err(Failed {
            err: not_converged(method, run.budget, diff, o),
            x: Some(x),
        })
    })
}
