//! The stationary distribution `pi Q = 0`, `sum pi = 1` of an irreducible chain (thesis
//! section 2.3.1): `pi[j] = sum_{i != j} pi[i] R[i][j] / h[j]`, iterated by columns.

use super::{
    conclude, scale_into, with_fallback, Convergence, Failed, Method, Options, Progress, Run,
    Solution, SolveError,
};
use crate::matrix::{RateMatrix, Relaxation, SweepStats};

/// The stationary distribution of the irreducible chain `m` (every state reaches every other).
/// Starts from the uniform distribution; power and Jacobi normalise after every iteration,
/// Gauss-Seidel and SOR only at the end (and when the scale strays far from 1).
pub fn steady_state(
    m: &dyn RateMatrix,
    o: &Options,
    progress: Progress,
) -> Result<Solution, SolveError> {
    let n = m.states();
    if n <= 1 {
        return Ok(Solution {
            x: vec![1.0; n],
            iterations: 0,
            method: o.method,
        });
    }
    // `1 / h` (0 for a state without exit rate), in place of `h`: a multiplication per column
    // rather than a division, and one vector of the chain's size less
    let mut inv = m.exit_rates();
    inv.iter_mut()
        .for_each(|v| *v = if *v > 0.0 { 1.0 / *v } else { 0.0 });
    with_fallback(o, progress, |method, run, progress| {
        iterate(m, &inv, method, run, o, progress)
    })
}

fn iterate(
    m: &dyn RateMatrix,
    inv: &[f64],
    method: Method,
    run: Run,
    o: &Options,
    progress: Progress,
) -> Result<Solution, Failed> {
    let n = inv.len();
    let relative = o.convergence == Convergence::Relative;
    let mut x = run.start.unwrap_or_else(|| vec![1.0 / n as f64; n]);
    // the previous iterate and the product vector of the power and Jacobi methods
    // (Gauss-Seidel needs neither: it measures the difference as it sweeps)
    let sweeps = matches!(method, Method::GaussSeidel(_) | Method::Sor(..));
    let (mut prev, mut y) = if sweeps {
        (Vec::new(), Vec::new())
    } else {
        (x.clone(), vec![0.0; n])
    };
    // the exit rate of state `j`
    let h = |j: usize| if inv[j] > 0.0 { 1.0 / inv[j] } else { 0.0 };
    let q = (0..n).map(h).fold(0.0, f64::max) * 1.02;
    let mut diff = f64::INFINITY;
    for it in 1..=run.budget {
        let d = match method {
            Method::Power | Method::Auto | Method::Jacobi | Method::Jor(_) => {
                y.iter_mut().for_each(|v| *v = 0.0);
                m.vec_mul_add(&prev, &mut y);
                if let Method::Jacobi | Method::Jor(_) = method {
                    let w = if let Method::Jor(w) = method { w } else { 1.0 };
                    for j in 0..n {
                        if inv[j] > 0.0 {
                            x[j] = (1.0 - w) * prev[j] + w * y[j] * inv[j];
                        }
                    }
                } else {
                    for j in 0..n {
                        x[j] = prev[j] + (y[j] - prev[j] * h(j)) / q;
                    }
                }
                // normalise, measure the difference to `prev` and copy into `prev` in one
                // pass (so `prev` equals `x` when the next iteration starts)
                let total: f64 = x.iter().sum();
                if !(total > 0.0 && total.is_finite()) {
                    return Err(not_converged(method, it, f64::NAN, o).into());
                }
                scale_into(&mut x, &mut prev, 1.0 / total, o.convergence)
            }
            Method::GaussSeidel(order) | Method::Sor(order, _) => {
                let w = if let Method::Sor(_, w) = method {
                    w
                } else {
                    1.0
                };
                // the difference and the total as the columns are written (with `w = 1` the
                // relaxation is exact: `0 * old + 1 * new`)
                let r = Relaxation {
                    w,
                    inv,
                    rhs: None,
                    fixed: None,
                    relative,
                };
                let SweepStats { diff: d, total } = m.relaxed_sweep(&mut x, order, &r);
                if !(total > 0.0 && total.is_finite()) {
                    return Err(not_converged(method, it, f64::NAN, o).into());
                }
                // The iterates are not normalised as they go (a pass over `x` each time): the
                // relative difference does not see a common scale, and the scale converges
                // with the iterates (the fixed points are the multiples of the distribution).
                // Only a scale far from 1 is brought back, against overflow and underflow.
                if !(1.0 / 1024.0..=1024.0).contains(&total) {
                    x.iter_mut().for_each(|v| *v /= total);
                }
                // an absolute difference is one of the distribution, not of its multiple
                if relative {
                    d
                } else {
                    d / total
                }
            }
        };
        match conclude(d, x, method, it, o, progress)? {
            Ok(mut sol) => {
                let total: f64 = sol.x.iter().sum();
                sol.x.iter_mut().for_each(|v| *v /= total);
                return Ok(sol);
            }
            Err((next, d)) => (x, diff) = (next, d),
        }
    }
    Err(Failed {
        err: not_converged(method, run.budget, diff, o),
        x: Some(x),
    })
}

pub(super) fn not_converged(
    method: Method,
    iterations: usize,
    diff: f64,
    o: &Options,
) -> SolveError {
    SolveError::NotConverged {
        method: method.name(),
        iterations,
        diff,
        epsilon: o.epsilon,
    }
}
