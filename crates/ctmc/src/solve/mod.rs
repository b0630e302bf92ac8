//! Iterative solvers over any [`RateMatrix`] (the explicit sparse engine or the EV*MDD one):
//! the stationary distribution of an irreducible chain ([`steady_state`], thesis section
//! 2.3.1) and the linear systems of unbounded until and reachability rewards on the embedded
//! chain ([`absorbing`], thesis section 2.3.4).
//!
//! Methods: power (uniformised), Jacobi (Figure 6.2), JOR, Gauss-Seidel forward and backward
//! (Figures 6.3-6.4 on an EV*MDD) and SOR. Convergence: the largest difference between two
//! iterates, relative (`|x' - x| / |x'|`, PRISM's default) or absolute, below `epsilon`. A
//! solver that does not converge within `max_iters` is [`SolveError::NotConverged`], never a
//! number. [`Method::Auto`] probes backward and forward Gauss-Seidel for a few iterations
//! each, goes on with the one whose last difference is smaller (from where it stopped), and
//! falls back to the other and then to the power method, each with the full budget.

mod direct;
mod interval;
mod linear;
mod poisson;
mod steady;
mod watch;

pub use interval::{absorbing_bounds, Bounds, Gap};
pub use linear::absorbing;
pub use poisson::{poisson_bounds, ClassBounds, NO_CLASS};
pub use steady::steady_state;

use crate::matrix::{see, Sweep};

/// An iterative method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Backward and forward Gauss-Seidel probed, the faster one continued; then the other,
    /// then power, until one converges.
    Auto,
    /// Power iteration on the uniformised chain (steady state); Jacobi for linear systems.
    Power,
    Jacobi,
    /// Jacobi over-relaxation with weight `omega` in (0, 2).
    Jor(f64),
    GaussSeidel(Sweep),
    /// Successive over-relaxation with weight `omega` in (0, 2).
    Sor(Sweep, f64),
}

impl Method {
    /// A short name (`gs`, `bgs`, `sor(1.2)`, ...).
    pub fn name(&self) -> String {
        match self {
            Method::Auto => "auto".into(),
            Method::Power => "power".into(),
            Method::Jacobi => "jacobi".into(),
            Method::Jor(w) => format!("jor({w})"),
            Method::GaussSeidel(Sweep::Forward) => "gs".into(),
            Method::GaussSeidel(Sweep::Backward) => "bgs".into(),
            Method::Sor(Sweep::Forward, w) => format!("sor({w})"),
            Method::Sor(Sweep::Backward, w) => format!("bsor({w})"),
        }
    }

    /// The methods [`Method::Auto`] tries, in order.
    fn candidates(self) -> Vec<Method> {
        match self {
            Method::Auto => vec![
                Method::GaussSeidel(Sweep::Backward),
                Method::GaussSeidel(Sweep::Forward),
                Method::Power,
            ],
            m => vec![m],
        }
    }
}

/// How differences between iterates are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convergence {
    Relative,
    Absolute,
}

/// Solver settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    pub method: Method,
    pub epsilon: f64,
    pub convergence: Convergence,
    pub max_iters: usize,
}

impl Default for Options {
    /// PRISM's defaults: relative difference 1e-6, 10,000 iterations; the automatic method.
    fn default() -> Self {
        Options {
            method: Method::Auto,
            epsilon: 1e-6,
            convergence: Convergence::Relative,
            max_iters: 10_000,
        }
    }
}

/// A converged solution.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub x: Vec<f64>,
    /// Iterations of the method that converged (plus those of methods tried before it).
    pub iterations: usize,
    /// The method that converged.
    pub method: Method,
}

/// Why a solver gave no answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SolveError {
    #[error("{method} did not converge within {iterations} iterations (last difference {diff:e}, epsilon {epsilon:e}); try another --solver, a larger --max-iters or a larger --epsilon")]
    NotConverged {
        method: String,
        iterations: usize,
        diff: f64,
        epsilon: f64,
    },
    #[error("bad solver option: {0}")]
    BadOption(String),
    #[error("interrupted")]
    Interrupted,
}

/// Progress of an iteration: the method, the iteration number and the last difference. Return
/// `false` to stop (the solver then fails with [`SolveError::Interrupted`]).
pub type Progress<'a> = &'a mut dyn FnMut(&Method, usize, f64) -> bool;

/// The end of iteration `it` of `method` whose difference to the previous iterate is `diff`
/// (a NaN is no convergence): the progress report (which may stop the run), and whether `x`
/// has converged. Returns the difference, or the solution when converged.
fn conclude(
    diff: f64,
    x: Vec<f64>,
    method: Method,
    it: usize,
    o: &Options,
    progress: Progress,
) -> Result<Result<Solution, (Vec<f64>, f64)>, SolveError> {
    if diff.is_nan() {
        return Err(steady::not_converged(method, it, diff, o));
    }
    if !progress(&method, it, diff) {
        return Err(SolveError::Interrupted);
    }
    if diff < o.epsilon {
        return Ok(Ok(Solution {
            x,
            iterations: it,
            method,
        }));
    }
    Ok(Err((x, diff)))
}

/// Scale `x` by `k` and copy it into `prev`, in one pass; returns the largest difference
/// ([`see`]) between the old `prev` and the scaled `x` under `c` (a NaN stays, and means no
/// convergence).
pub(super) fn scale_into(x: &mut [f64], prev: &mut [f64], k: f64, c: Convergence) -> f64 {
    let relative = c == Convergence::Relative;
    let mut d: f64 = 0.0;
    for (b, a) in x.iter_mut().zip(prev.iter_mut()) {
        let v = *b * k;
        see(&mut d, v, *a, relative);
        *b = v;
        *a = v;
    }
    d
}

fn check_options(o: &Options) -> Result<(), SolveError> {
    if !(o.epsilon > 0.0 && o.epsilon.is_finite()) {
        return Err(SolveError::BadOption(format!(
            "epsilon must be positive, got {}",
            o.epsilon
        )));
    }
    let omega = match o.method {
        Method::Jor(w) | Method::Sor(_, w) => Some(w),
        _ => None,
    };
    if let Some(w) = omega {
        if !(w > 0.0 && w < 2.0) {
            return Err(SolveError::BadOption(format!(
                "the relaxation weight must lie in (0, 2), got {w}"
            )));
        }
    }
    Ok(())
}

/// One run of one method: at most `budget` iterations, from `start` (or the method's own
/// starting vector).
pub(super) struct Run {
    pub(super) budget: usize,
    pub(super) start: Option<Vec<f64>>,
}

/// A run that did not converge: why, and its last iterate when it was stopped by its budget.
pub(super) struct Failed {
    pub(super) err: SolveError,
    pub(super) x: Option<Vec<f64>>,
}

impl From<SolveError> for Failed {
    fn from(err: SolveError) -> Failed {
        Failed { err, x: None }
    }
}

/// Iterations each Gauss-Seidel direction is probed for by [`Method::Auto`].
const PROBE: usize = 20;

/// Run `one` (one method) for each candidate of `o.method` until one converges. For
/// [`Method::Auto`], backward and forward Gauss-Seidel are first probed for [`PROBE`]
/// iterations each; the one with the smaller last difference goes on from its iterate (on
/// polling, forward Gauss-Seidel needs 30 iterations where backward needs 1,442; on fms the
/// reverse).
fn with_fallback(
    o: &Options,
    progress: Progress,
    mut one: impl FnMut(Method, Run, Progress) -> Result<Solution, Failed>,
) -> Result<Solution, SolveError> {
    check_options(o)?;
    let mut spent = 0;
    let mut last = None;
    let mut candidates = o.method.candidates();
    if o.method == Method::Auto && o.max_iters > 2 * PROBE {
        let mut probes = Vec::new();
        for m in [
            Method::GaussSeidel(Sweep::Backward),
            Method::GaussSeidel(Sweep::Forward),
        ] {
            let run = Run {
                budget: PROBE,
                start: None,
            };
            match one(m, run, progress) {
                Ok(mut s) => {
                    s.iterations += spent;
                    return Ok(s);
                }
                Err(Failed {
                    err: SolveError::NotConverged { diff, .. },
                    x: Some(x),
                }) => {
                    spent += PROBE;
                    probes.push((m, diff, x));
                }
                Err(Failed { err, .. }) => return Err(err),
            }
        }
        // the better probe goes on from its iterate; NaN differences lose
        let (bi, _) = probes
            .iter()
            .enumerate()
            .min_by(|a, b| {
                let (x, y) = (a.1 .1, b.1 .1);
                x.partial_cmp(&y).unwrap_or(if x.is_nan() {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Less
                })
            })
            .expect("two probes");
        let (m, _, x) = probes.swap_remove(bi);
        // the other probe's iterate is not kept while the better one goes on
        drop(probes);
        let run = Run {
            budget: o.max_iters - spent,
            start: Some(x),
        };
        match one(m, run, progress) {
            Ok(mut s) => {
                s.iterations += spent;
                return Ok(s);
            }
            Err(Failed {
                err: SolveError::NotConverged { iterations, .. },
                ..
            }) => spent += iterations,
            Err(Failed { err, .. }) => return Err(err),
        }
        // then the other direction and power, from scratch
        candidates.retain(|c| *c != m);
    }
    for m in candidates {
        let run = Run {
            budget: o.max_iters,
            start: None,
        };
        match one(m, run, progress) {
            Ok(mut s) => {
                s.iterations += spent;
                return Ok(s);
            }
            Err(Failed {
                err:
                    SolveError::NotConverged {
                        method,
                        iterations,
                        diff,
                        epsilon,
                    },
                ..
            }) => {
                spent += iterations;
                last = Some(SolveError::NotConverged {
                    method,
                    iterations,
                    diff,
                    epsilon,
                });
            }
            Err(Failed { err, .. }) => return Err(err),
        }
    }
    match (last, o.method) {
        (Some(SolveError::NotConverged { diff, epsilon, .. }), Method::Auto) => {
            Err(SolveError::NotConverged {
                method: "every automatic method (bgs, gs, power)".into(),
                iterations: spent,
                diff,
                epsilon,
            })
        }
        (Some(e), _) => Err(e),
        (None, _) => Err(SolveError::BadOption("no method".into())),
    }
}
