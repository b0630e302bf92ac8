//! The stationary distribution `pi Q = 0`, `sum pi = 1` of an irreducible chain (thesis
//! section 2.3.1): `pi[j] = sum_{i != j} pi[i] R[i][j] / h[j]`, iterated by columns.

use super::{
    conclude, scale_into, with_fallback, Failed, Method, Options, Progress, Run, Solution,
    SolveError,
};
use crate::matrix::RateMatrix;

/// The stationary distribution of the irreducible chain `m` (every state reaches every other).
/// Starts from the uniform distribution and normalises after every iteration.
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
    let mut x = run.start.unwrap_or_else(|| vec![1.0 / n as f64; n]);
    let mut prev = x.clone();
    // the product vector of the power and Jacobi methods (Gauss-Seidel needs none)
    let sweeps = matches!(method, Method::GaussSeidel(_) | Method::Sor(..));
    let mut y = if sweeps { Vec::new() } else { vec![0.0; n] };
    // the exit rate of state `j`
    let h = |j: usize| if inv[j] > 0.0 { 1.0 / inv[j] } else { 0.0 };
    let q = (0..n).map(h).fold(0.0, f64::max) * 1.02;
    let mut diff = f64::INFINITY;
    for it in 1..=run.budget {
        match method {
            Method::Power | Method::Auto => {
                y.iter_mut().for_each(|v| *v = 0.0);
                m.vec_mul_add(&prev, &mut y);
                for j in 0..n {
                    x[j] = prev[j] + (y[j] - prev[j] * h(j)) / q;
                }
            }
            Method::Jacobi | Method::Jor(_) => {
                let w = if let Method::Jor(w) = method { w } else { 1.0 };
                y.iter_mut().for_each(|v| *v = 0.0);
                m.vec_mul_add(&prev, &mut y);
                for j in 0..n {
                    if inv[j] > 0.0 {
                        x[j] = (1.0 - w) * prev[j] + w * y[j] * inv[j];
                    }
                }
            }
            Method::GaussSeidel(order) | Method::Sor(order, _) => {
                let w = if let Method::Sor(_, w) = method {
                    w
                } else {
                    1.0
                };
                let (prev, inv) = (&prev, &inv);
                if w == 1.0 {
                    m.gauss_seidel_sweep(&mut x, order, &mut |j, s| {
                        if inv[j] > 0.0 {
                            s * inv[j]
                        } else {
                            prev[j]
                        }
                    });
                } else {
                    m.gauss_seidel_sweep(&mut x, order, &mut |j, s| {
                        if inv[j] > 0.0 {
                            (1.0 - w) * prev[j] + w * s * inv[j]
                        } else {
                            prev[j]
                        }
                    });
                }
            }
        }
        // normalise, measure the difference to `prev` and copy into `prev` in one pass
        // (so `prev` equals `x` when the next iteration starts)
        let total: f64 = x.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return Err(not_converged(method, it, f64::NAN, o).into());
        }
        let d = scale_into(&mut x, &mut prev, 1.0 / total, o.convergence);
        match conclude(d, x, method, it, o, progress)? {
            Ok(sol) => return Ok(sol),
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
