//! Interval iteration for the linear systems of [`super::absorbing`] (Haddad and Monmege 2018;
//! Baier, Klein, Leuschner, Parker and Wunderlich 2017; Storm's `--sound`): the unique solution
//! `x*` of `x = F(x)`, `F(x)[s] = c[s] + sum_j R[s][j] x[j] / h[s]` on the unknown states, is
//! approached from below and from above, and the iteration stops when the two iterates are
//! within epsilon of each other. Both iterates bracket `x*` at every step, so the stopping rule
//! is a bound, not a guess.
//!
//! Why the brackets hold: `F` is monotone (its coefficients are non-negative), so `x <= x*`
//! gives `F(x) <= F(x*) = x*`, and the same from above; a Gauss-Seidel or Jacobi update of a
//! state replaces its value by `F`'s, so a vector below (above) `x*` stays below (above) it
//! whatever the sweep order. Over-relaxation (SOR, JOR with a weight other than 1) does not keep
//! this, so it is replaced here by the plain method of its direction.
//!
//! The starting vectors: below, the smallest value `x*` can take (0 for a probability or a
//! non-negative reward; the smallest fixed value for a long-run average), from which the
//! solver's usual run gives a good lower iterate. Above, a vector built and checked (in the
//! spirit of the optimistic value iteration of Hartmanns and Kaminski 2020): with `v` a rough
//! solution of the expected number of steps to a fixed state (`v = 1 + P v`) and `l` the lower
//! iterate, `u = l + k v` with `k` chosen from the residual so that `F(u) <= u` on every unknown
//! state. Such a `u` is above `x*` (the iterates of `F` from `u` decrease to the unique fixed
//! point), whatever the accuracy of `v`; the check is made, not assumed. It is capped by the
//! largest value `x*` can take when the caller knows it (1 for a probability, the largest fixed
//! value for a long-run average); without the built start the constant is the start (on
//! `embedded`, where the constant needs as many sweeps from above as the lower side needed from
//! below, the built start closes the gap at once). For an expected reward without a built start
//! the upper bound is infinite (and said so), never invented.

use super::direct::direct_bounds;
use super::linear::absorbing_from;
use super::{Convergence, Method, Options, Progress, SolveError};
use crate::matrix::{RateMatrix, Relaxation, Sweep};

/// The bounds of the solution: `lo[s] <= x*[s] <= hi[s]` for every state.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// Iterations (sweeps) of both sides and of any auxiliary solve.
    pub iterations: usize,
    /// The method of the sweeps.
    pub method: Method,
    /// `hi - lo` met epsilon on every state (else the iteration budget ran out first, and the
    /// bounds are the ones it had).
    pub within: bool,
    /// The bounds come from the verified direct solution ([`super::direct`]), the iteration
    /// having fallen short.
    pub direct: bool,
}

/// When the two iterates are close enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gap {
    /// `hi - lo` within epsilon on every state (relative to `lo` when the convergence is
    /// relative).
    PerState,
    /// `sum(hi - lo)` within epsilon times `sum(lo)` (a vector used through its normalised
    /// sums, e.g. a stationary distribution).
    Total,
}

/// The bounded solution of the system of [`super::absorbing`] (same arguments): `range` is an
/// interval known to hold `x*` on the unknown states (`None`: an expected reward, `c >= 0` and
/// fixed values `>= 0`, so `x* >= 0`, the upper start built as the module says).
///
/// When the iteration does not bracket `x*` within epsilon in its budget (slow chains: a rare
/// event between frequent ones), a small system is rescued by a verified direct solution
/// ([`super::direct`]), from which the bracketing goes on for a few sweeps (exact zeros).
#[allow(clippy::too_many_arguments)]
pub fn absorbing_bounds(
    rt: &dyn RateMatrix,
    h: &[f64],
    fixed: &[Option<f64>],
    c: &[f64],
    range: Option<(f64, f64)>,
    stop: Gap,
    o: &Options,
    progress: Progress,
) -> Result<Bounds, SolveError> {
    let inv: Vec<f64> = h.iter().map(|&v| 1.0 / v).collect();
    let sys = System {
        rt,
        inv: &inv,
        fixed,
        c,
    };
    let iterated = iterate(&sys, range, stop, o, progress);
    let spent = match &iterated {
        Ok(b) if !b.within => b.iterations,
        Err(SolveError::NotConverged { iterations, .. }) => *iterations,
        _ => return iterated,
    };
    let Some((l, u)) = direct_bounds(rt, &inv, fixed, c) else {
        return iterated;
    };
    let (low, high) = range.unwrap_or((0.0, f64::INFINITY));
    let (mut lo, mut hi, method) = match iterated {
        Ok(b) => (b.lo, b.hi, b.method),
        Err(_) => (l.clone(), u.clone(), monotone(o.method)),
    };
    for s in 0..fixed.len() {
        if fixed[s].is_none() {
            lo[s] = lo[s].max(l[s]).max(low);
            hi[s] = hi[s].min(u[s]).min(high);
        }
    }
    let mut step = Stepper::new(rt, &inv, fixed, c, monotone(method));
    let budget = o.max_iters.min(fixed.len() + 10);
    let (mut b, _) = bracket(&mut step, lo, hi, fixed, stop, o, budget, spent, progress)?;
    b.direct = true;
    Ok(b)
}

/// [`absorbing_bounds`] by iteration alone.
fn iterate(
    sys: &System<'_>,
    range: Option<(f64, f64)>,
    stop: Gap,
    o: &Options,
    progress: Progress,
) -> Result<Bounds, SolveError> {
    let System { rt, inv, fixed, c } = *sys;
    let sound = Options {
        method: monotone(o.method),
        ..*o
    };
    let (low, high) = range.unwrap_or((0.0, f64::INFINITY));
    // the lower side first, with the solver's usual stopping rule (a good lower iterate)
    let below = absorbing_from(rt, inv, fixed, c, low, &sound, progress)?;
    let mut iterations = below.iterations;
    let method = monotone(below.method);
    let lo = below.x;
    if fixed.iter().all(Option::is_some) {
        return Ok(Bounds {
            hi: lo.clone(),
            lo,
            iterations,
            method,
            within: true,
            direct: false,
        });
    }
    // the built upper start (close to the lower iterate when that is accurate: the upper
    // side then needs few sweeps, where from the constant it can need as many as the lower
    // side did), capped by the constant when there is one
    let built = upper_start(sys, &lo, &sound, progress, &mut iterations)?;
    let hi: Vec<f64> = match (built, high.is_finite()) {
        (Some(u), true) => u.into_iter().map(|x| x.min(high)).collect(),
        (Some(u), false) => u,
        (None, true) => fixed.iter().map(|f| f.unwrap_or(high)).collect(),
        (None, false) => {
            let hi = fixed.iter().map(|f| f.unwrap_or(f64::INFINITY)).collect();
            return Ok(Bounds {
                lo,
                hi,
                iterations,
                method,
                within: false,
                direct: false,
            });
        }
    };
    let mut step = Stepper::new(rt, inv, fixed, c, method);
    // the bracketing has its own budget (the lower side's first solve may have used most of
    // the first one)
    let (b, _) = bracket(
        &mut step,
        lo,
        hi,
        fixed,
        stop,
        o,
        o.max_iters,
        iterations,
        progress,
    )?;
    Ok(b)
}

/// Sweeps of both iterates until they are within epsilon ([`Gap`]) or `budget` sweeps are
/// done; `iterations` counts on from the given number. Returns the bounds and the sweeps made.
#[allow(clippy::too_many_arguments)]
fn bracket(
    step: &mut Stepper<'_>,
    mut lo: Vec<f64>,
    mut hi: Vec<f64>,
    fixed: &[Option<f64>],
    stop: Gap,
    o: &Options,
    budget: usize,
    mut iterations: usize,
    progress: Progress,
) -> Result<(Bounds, usize), SolveError> {
    let method = step.method;
    for it in 1..=budget {
        let gap = gap(&lo, &hi, fixed, stop, o.convergence);
        if gap <= o.epsilon {
            let b = Bounds {
                lo,
                hi,
                iterations,
                method,
                within: true,
                direct: false,
            };
            return Ok((b, it - 1));
        }
        if gap.is_nan() {
            return Err(super::steady::not_converged(method, it, gap, o));
        }
        if !progress(&method, iterations, gap) {
            return Err(SolveError::Interrupted);
        }
        step.apply(&mut hi);
        step.apply(&mut lo);
        iterations += 1;
    }
    let within = gap(&lo, &hi, fixed, stop, o.convergence) <= o.epsilon;
    let b = Bounds {
        lo,
        hi,
        iterations,
        method,
        within,
        direct: false,
    };
    Ok((b, budget))
}

/// The method of `m` that keeps a vector below (above) the solution below (above) it.
fn monotone(m: Method) -> Method {
    match m {
        Method::Jor(_) => Method::Jacobi,
        Method::Sor(d, _) => Method::GaussSeidel(d),
        m => m,
    }
}

/// The largest `hi - lo` over the unknown states (relative to `lo`, when relative; infinite
/// where `lo` is 0 and `hi` is not).
fn gap(lo: &[f64], hi: &[f64], fixed: &[Option<f64>], stop: Gap, c: Convergence) -> f64 {
    if stop == Gap::Total {
        let d: f64 = lo.iter().zip(hi).map(|(l, h)| h - l).sum();
        let t: f64 = lo.iter().sum();
        return if c == Convergence::Absolute || d == 0.0 {
            d
        } else {
            d / t
        };
    }
    let mut g: f64 = 0.0;
    for ((&l, &h), f) in lo.iter().zip(hi).zip(fixed) {
        if f.is_some() || l == h {
            continue;
        }
        let d = h - l;
        let d = match c {
            Convergence::Absolute => d,
            Convergence::Relative if l > 0.0 => d / l,
            Convergence::Relative => f64::INFINITY,
        };
        if d > g || d.is_nan() {
            g = d;
        }
    }
    g
}

/// One in-place update of every unknown state by `F`: a Gauss-Seidel sweep, or a Jacobi step.
struct Stepper<'a> {
    rt: &'a dyn RateMatrix,
    relax: Relaxation<'a>,
    method: Method,
    y: Vec<f64>,
}

impl<'a> Stepper<'a> {
    fn new(
        rt: &'a dyn RateMatrix,
        inv: &'a [f64],
        fixed: &'a [Option<f64>],
        c: &'a [f64],
        method: Method,
    ) -> Self {
        Stepper {
            rt,
            relax: plain(inv, c, fixed),
            method,
            y: Vec::new(),
        }
    }

    fn apply(&mut self, x: &mut [f64]) {
        match self.method {
            Method::GaussSeidel(order) => {
                self.rt.relaxed_sweep(x, order, &self.relax);
            }
            Method::Auto => {
                self.rt.relaxed_sweep(x, Sweep::Backward, &self.relax);
            }
            _ => {
                self.y = jacobi(self.rt, &self.relax, x);
                x.copy_from_slice(&self.y);
            }
        }
    }
}

/// The update of `F` (no relaxation): `c + (R x) / h` on the unknown states, the fixed values
/// elsewhere.
pub(super) fn plain<'a>(inv: &'a [f64], c: &'a [f64], fixed: &'a [Option<f64>]) -> Relaxation<'a> {
    Relaxation {
        w: 1.0,
        inv,
        rhs: Some(c),
        fixed: Some(fixed),
        relative: false,
    }
}

/// `F(x)`: the fixed values where given, else `c + (x R^T... )` as the module says.
pub(super) fn jacobi(rt: &dyn RateMatrix, r: &Relaxation<'_>, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; x.len()];
    rt.vec_mul_add(x, &mut y);
    let fixed = r.fixed.expect("fixed");
    let c = r.rhs.expect("rhs");
    for s in 0..x.len() {
        y[s] = match fixed[s] {
            Some(f) => f,
            None if r.inv[s] > 0.0 && r.inv[s].is_finite() => c[s] + y[s] * r.inv[s],
            None => x[s],
        };
    }
    y
}

/// Whether `F(u) <= u` on every unknown state (`F` as [`jacobi`]), without a vector for
/// `F(u)`: a Gauss-Seidel sweep whose update leaves every column as it is reads the incoming
/// sums of `u` itself, which is the Jacobi product.
fn above_image(rt: &dyn RateMatrix, r: &Relaxation<'_>, u: &mut [f64]) -> bool {
    let fixed = r.fixed.expect("fixed");
    let c = r.rhs.expect("rhs");
    let mut above = true;
    rt.gauss_seidel_sweep(u, Sweep::Forward, &mut |lo, sums, xs| {
        for (k, (&sum, &x)) in sums.iter().zip(xs.iter()).enumerate() {
            let j = lo + k;
            let inv = r.inv[j];
            if fixed[j].is_some() || !(inv > 0.0 && inv.is_finite()) {
                continue;
            }
            if !(c[j] + sum * inv <= x) {
                above = false;
            }
        }
    });
    above
}

/// An upper start for an expected reward (see the module): `u = lo + k v` checked to satisfy
/// `F(u) <= u`, or `None` when no such `u` was found.
fn upper_start(
    sys: &System<'_>,
    lo: &[f64],
    o: &Options,
    progress: Progress,
    iterations: &mut usize,
) -> Result<Option<Vec<f64>>, SolveError> {
    let System { rt, inv, fixed, c } = *sys;
    // v: the expected number of steps to a fixed state, roughly. Its accuracy is not needed,
    // only `v - P v > 0` on the unknown states (the divisor of k below), so the sweeps from 0
    // stop as soon as `v - P v >= 1/2` everywhere: after about as many sweeps as it takes to
    // be absorbed with probability 1/2, far fewer than converging would take
    let ones: Vec<f64> = fixed
        .iter()
        .map(|f| if f.is_some() { 0.0 } else { 1.0 })
        .collect();
    let zero_fixed: Vec<Option<f64>> = fixed.iter().map(|f| f.map(|_| 0.0)).collect();
    let steps = plain(inv, &ones, &zero_fixed);
    let method = monotone(o.method);
    let mut vstep = Stepper::new(rt, inv, &zero_fixed, &ones, method);
    let mut v = vec![0.0; lo.len()];
    let mut sweeps = 0;
    let mut check = 1;
    let pv = loop {
        vstep.apply(&mut v);
        sweeps += 1;
        if sweeps < check && sweeps < o.max_iters {
            continue;
        }
        check = sweeps + sweeps.min(64);
        // F(v) = 1 + P v, so v - P v = 1 - (F(v) - v)
        let fv = jacobi(rt, &steps, &v);
        let worst = (0..v.len())
            .filter(|&s| fixed[s].is_none())
            .map(|s| fv[s] - v[s])
            .fold(0.0f64, f64::max);
        if !progress(&method, *iterations + sweeps, worst) {
            return Err(SolveError::Interrupted);
        }
        if worst <= 0.5 || sweeps >= o.max_iters {
            break fv;
        }
    };
    *iterations += sweeps;
    // `d = v - P v = v - (F(v) - 1)` in place of `F(v)` (each vector of the chain's size is
    // dropped as soon as it is done with: they are the solver's memory)
    let mut d = pv;
    for ((d, &v), &one) in d.iter_mut().zip(&v).zip(&ones) {
        *d = v - (*d - one);
    }
    drop(vstep);
    drop(zero_fixed);
    drop(ones);
    let relax = plain(inv, c, fixed);
    let fl = jacobi(rt, &relax, lo);
    // k >= residual / (v - P v) on every unknown state, with room for rounding
    let mut k: f64 = 0.0;
    for s in 0..lo.len() {
        if fixed[s].is_some() {
            continue;
        }
        let r = (fl[s] - lo[s]).max(0.0);
        let d = d[s];
        if d <= 0.0 || !d.is_finite() {
            return Ok(None);
        }
        k = k.max(r / d);
    }
    drop((fl, d));
    let k = (k * 2.0).max(f64::MIN_POSITIVE);
    let mut u: Vec<f64> = (0..lo.len())
        .map(|s| match fixed[s] {
            Some(f) => f,
            None => lo[s] + k * v[s],
        })
        .collect();
    drop(v);
    for _ in 0..8 {
        if above_image(rt, &relax, &mut u) {
            return Ok(Some(u));
        }
        // k times 16, from `u` rather than `v` (dropped): `u` is checked whatever its rounding
        for s in 0..u.len() {
            if fixed[s].is_none() {
                u[s] = lo[s] + (u[s] - lo[s]) * 16.0;
            }
        }
    }
    Ok(None)
}

/// The system `x = F(x)` of [`absorbing_bounds`].
#[derive(Clone, Copy)]
struct System<'a> {
    rt: &'a dyn RateMatrix,
    inv: &'a [f64],
    fixed: &'a [Option<f64>],
    c: &'a [f64],
}
