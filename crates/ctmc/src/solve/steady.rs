//! The stationary distribution `pi Q = 0`, `sum pi = 1` of an irreducible chain (thesis
//! section 2.3.1): `pi[j] = sum_{i != j} pi[i] R[i][j] / h[j]`, iterated by columns.

use super::{
    end_of_iteration, with_fallback, Failed, Method, Options, Progress, Run, Solution, SolveError,
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
    let h = m.exit_rates();
    with_fallback(o, progress, |method, run, progress| {
        iterate(m, &h, method, run, o, progress)
    })
}

fn normalise(x: &mut [f64]) -> bool {
    let s: f64 = x.iter().sum();
    if !(s > 0.0 && s.is_finite()) {
        return false;
    }
    let inv = 1.0 / s;
    x.iter_mut().for_each(|v| *v *= inv);
    true
}

fn iterate(
    m: &dyn RateMatrix,
    h: &[f64],
    method: Method,
    run: Run,
    o: &Options,
    progress: Progress,
) -> Result<Solution, Failed> {
    let n = h.len();
    let mut x = run.start.unwrap_or_else(|| vec![1.0 / n as f64; n]);
    let mut prev = x.clone();
    let mut y = vec![0.0; n];
    let q = h.iter().copied().fold(0.0, f64::max) * 1.02;
    // `1 / h` (0 for a state without exit rate): a multiplication per column, not a division
    let inv: Vec<f64> = h
        .iter()
        .map(|&v| if v > 0.0 { 1.0 / v } else { 0.0 })
        .collect();
    let mut diff = f64::INFINITY;
    for it in 1..=run.budget {
        prev.copy_from_slice(&x);
        match method {
            Method::Power | Method::Auto => {
                y.iter_mut().for_each(|v| *v = 0.0);
                m.vec_mul_add(&prev, &mut y);
                for j in 0..n {
                    x[j] = prev[j] + (y[j] - prev[j] * h[j]) / q;
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
        if !normalise(&mut x) {
            return Err(not_converged(method, it, f64::NAN, o).into());
        }
        match end_of_iteration(&prev, x, method, it, o, progress)? {
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
