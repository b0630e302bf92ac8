//! Guaranteed bounds on long-run averages from the Poisson equation, for the bottom SCCs whose
//! regenerative bounds ([`super::absorbing_bounds`] from one state) converge too slowly: a
//! chain that returns to any one state only once in thousands of steps (an unstructured chain
//! of thousands of states; kanban with four or more tokens).
//!
//! The bound is a theorem for any vector `h`: in a bottom SCC `B` with stationary distribution
//! `pi` and generator `Q`, `pi Q = 0`, so `d = w + Q h` satisfies `pi . d = pi . w = g`, the
//! long-run average of `w`; `g` is a convex combination of the `d[i]`, `i` in `B`, and lies in
//! `[min d, max d]`. The bounds are as good as `h` is close to a solution of the Poisson
//! equation `Q h = g 1 - w` (the bias), which Gauss-Seidel sweeps over the rows of `R`
//! approach; their width is the span of `d`, which contracts at the chain's mixing rate (not at
//! the rate of the returns to one state). The rounding of `d` is bounded and added.

use super::{Method, Options, Progress, SolveError};
use crate::matrix::{RateMatrix, Relaxation, Sweep};

/// The class of a state in no class of [`poisson_bounds`].
pub const NO_CLASS: u32 = u32::MAX;

/// The class `c`, unless it is [`NO_CLASS`].
#[inline(always)]
fn of(c: u32) -> Option<u32> {
    (c != NO_CLASS).then_some(c)
}

/// The bounds of one class, the sweeps they took, and whether they are within epsilon.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassBounds {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    pub iterations: usize,
    pub within: bool,
}

/// Bounds `[lo[k], hi[k]]` on the long-run average of `w` in each class `k`, where
/// `class[i]` is the bottom SCC of state `i` (each of at least two states; [`NO_CLASS`] for every
/// other state), `rows` is `R` transposed (its sweeps go over the rows of `R`), `exit` the
/// exit rates and `pi` an estimate of the stationary distribution of each class (summing to 1
/// over each class; any values elsewhere), which steers the sweeps: the right-hand side's
/// average `g[k]` is its average of `d` (a fixed average other than the true one makes the
/// Gauss-Seidel iterates drift, and `d` spread with the drift's rate). The
/// sweeps stop when every class's width is within `o.epsilon` (relative to the average, or
/// absolute) or after `o.max_iters` sweeps; the bounds hold either way.
pub fn poisson_bounds(
    rows: &dyn RateMatrix,
    exit: &[f64],
    class: &[u32],
    w: &[f64],
    pi: &[f64],
    o: &Options,
    progress: Progress,
) -> Result<ClassBounds, SolveError> {
    let n = exit.len();
    let k = class
        .iter()
        .filter_map(|&c| of(c))
        .map(|c| c as usize + 1)
        .max()
        .unwrap_or(0);
    let mut g = vec![0.0; k];
    for i in 0..n {
        if let Some(c) = of(class[i]) {
            g[c as usize] += pi[i] * w[i];
        }
    }
    let inv: Vec<f64> = (0..n)
        .map(|i| match of(class[i]) {
            Some(_) if exit[i] > 0.0 => 1.0 / exit[i],
            _ => 0.0,
        })
        .collect();
    let order = match o.method {
        Method::GaussSeidel(s) | Method::Sor(s, _) => s,
        _ => Sweep::Backward,
    };
    let mut h = vec![0.0; n];
    let mut rhs = vec![0.0; n];
    let mut out = ClassBounds {
        lo: vec![f64::NEG_INFINITY; k],
        hi: vec![f64::INFINITY; k],
        iterations: 0,
        within: false,
    };
    // the averages lie within the range of `w` over the class
    let mut range = vec![(f64::INFINITY, f64::NEG_INFINITY); k];
    for i in 0..n {
        if let Some(c) = of(class[i]) {
            let r = &mut range[c as usize];
            *r = (r.0.min(w[i]), r.1.max(w[i]));
        }
    }
    let mut check_every = 1;
    let mut next_check = 1;
    // Gauss-Seidel on this singular system may oscillate (an eigenvalue -1 of its iteration
    // on fms); under-relaxation damps it: when the widths stop halving for 10 checks, the
    // weight goes down by 0.1, to 0.5 at least
    let mut omega = 1.0;
    let (mut best, mut stale) = (f64::INFINITY, 0);
    // the secant on the average (see below): `pi . h` after the last check, its iteration, and
    // the last average tried with the drift it gave; `pi . exit` per class
    let mut reference = vec![0.0; k];
    let mut last_check = 0;
    let mut tried: Vec<Option<(f64, f64)>> = vec![None; k];
    let mut flow = vec![0.0; k];
    for i in 0..n {
        if let Some(c) = of(class[i]) {
            flow[c as usize] += pi[i] * exit[i];
        }
    }
    let mut y = vec![0.0; n];
    // the right-hand side changes with the averages only (at the checks), not every sweep
    let mut stale_rhs = true;
    for it in 1..=o.max_iters.max(1) {
        if stale_rhs {
            for i in 0..n {
                if let Some(c) = of(class[i]) {
                    rhs[i] = (w[i] - g[c as usize]) * inv[i];
                }
            }
            stale_rhs = false;
        }
        let r = Relaxation {
            w: omega,
            inv: &inv,
            rhs: Some(&rhs),
            fixed: None,
            relative: false,
        };
        rows.relaxed_sweep(&mut h, order, &r);
        out.iterations = it;
        if it < next_check && it < o.max_iters {
            continue;
        }
        // d = w + R h - exit h, with its rounding bounded: at most 2^-52 times the number of
        // terms summed (counted generously: 450, no row of R has that many) times their
        // magnitudes, `sum_j R[i][j] |h[j]| <= exit[i] max|h|` over the class (no product with
        // `|h|`, no two more vectors of the chain's size)
        y.iter_mut().for_each(|v| *v = 0.0);
        rows.vec_mul_add(&h, &mut y);
        let mut big = vec![0.0f64; k];
        for i in 0..n {
            if let Some(c) = of(class[i]) {
                big[c as usize] = big[c as usize].max(h[i].abs());
            }
        }
        let mut lo = vec![f64::INFINITY; k];
        let mut hi = vec![f64::NEG_INFINITY; k];
        let mut mean = vec![0.0; k];
        let mut at = vec![0.0; k];
        for i in 0..n {
            if let Some(c) = of(class[i]) {
                at[c as usize] += pi[i] * h[i];
            }
        }
        for i in 0..n {
            if let Some(c) = of(class[i]) {
                let c = c as usize;
                let d = w[i] + y[i] - exit[i] * h[i];
                mean[c] += pi[i] * d;
                let err = 1e-13 * (w[i].abs() + 2.0 * exit[i] * big[c]);
                lo[c] = lo[c].min(d - err);
                hi[c] = hi[c].max(d + err);
            }
        }
        let mut worst: f64 = 0.0;
        for c in 0..k {
            let (a, b) = (lo[c].max(range[c].0), hi[c].min(range[c].1));
            if a.is_nan() || b.is_nan() {
                return Err(SolveError::NotConverged {
                    method: "gs (poisson)".into(),
                    iterations: it,
                    diff: f64::NAN,
                    epsilon: o.epsilon,
                });
            }
            // the tightest bounds seen hold together (each is a theorem)
            out.lo[c] = out.lo[c].max(a);
            out.hi[c] = out.hi[c].min(b);
            // The average on the right-hand side: a value `g'` other than the true `g` makes
            // the sweeps drift (`h` grows by `a` per sweep, the same on every state) and `d`
            // spread with the drift, `d[i] = g' + a s[i]` (`s[i]`: the rates of `i` to the
            // states swept after it, at most its exit rate), so `g = g' + a (pi . s)`: the
            // drift is affine in `g'`, and a secant through the last two averages tried finds
            // its zero; the first step goes halfway to `g' + a (pi . exit)`, beyond `g`.
            let a = (at[c] - reference[c]) / (it - last_check) as f64;
            let next = match tried[c] {
                Some((gp, ap)) if gp != g[c] && ap != a => {
                    let slope = (g[c] - gp) / (ap - a);
                    if slope > 0.0 && slope.is_finite() {
                        g[c] + a * slope
                    } else {
                        mean[c]
                    }
                }
                _ => g[c] + 0.5 * a * flow[c],
            };
            tried[c] = Some((g[c], a));
            g[c] = next.max(out.lo[c]).min(out.hi[c]);
            stale_rhs = true;
            let width = out.hi[c] - out.lo[c];
            let scale = match o.convergence {
                super::Convergence::Relative => out.lo[c].abs().max(out.hi[c].abs()),
                super::Convergence::Absolute => 1.0,
            };
            let gap = if width <= 0.0 { 0.0 } else { width / scale };
            worst = worst.max(gap);
        }
        // centre `h` (a constant added to `h` changes nothing of `d`), keeping it small
        let mut span = vec![(f64::INFINITY, f64::NEG_INFINITY); k];
        for i in 0..n {
            if let Some(c) = of(class[i]) {
                let s = &mut span[c as usize];
                *s = (s.0.min(h[i]), s.1.max(h[i]));
            }
        }
        for i in 0..n {
            if let Some(c) = of(class[i]) {
                let s = span[c as usize];
                h[i] -= 0.5 * (s.0 + s.1);
            }
        }
        for c in 0..k {
            reference[c] = at[c] - 0.5 * (span[c].0 + span[c].1);
        }
        last_check = it;
        if !progress(&Method::GaussSeidel(order), it, worst) {
            return Err(SolveError::Interrupted);
        }
        if worst <= o.epsilon {
            out.within = true;
            return Ok(out);
        }
        if worst <= 0.5 * best {
            (best, stale) = (worst, 0);
        } else {
            stale += 1;
            if stale >= 10 && omega > 0.55 {
                (omega, best, stale) = (omega - 0.1, worst, 0);
            }
        }
        // a product costs a sweep: check after 1, 2, 4, ... sweeps, then every 16
        check_every = (check_every * 2).min(16);
        next_check = it + check_every;
    }
    Ok(out)
}
