//! Uniformization (thesis section 2.3.2) with guaranteed bounds (thesis 7.1): the backward
//! transient vectors `sum_k psi(k; q t) P^k x` of the uniformised chain `P = I + (R - diag h)/q`,
//! over any engine's rate matrix (the explicit sparse one or the EV*MDD one, through
//! [`Chain::with_transposed`]: `R x` is `x^T R^T`).
//!
//! Every result is a pair of vectors `lo <= exact <= hi`: the Poisson probabilities of the
//! window are bounded on both sides ([`PoissonWindow::prob_lo`], [`PoissonWindow::prob_hi`]), and
//! the mass outside it is charged at the extreme values the iterates can take (`P` is stochastic,
//! so every `P^k x` stays within `[min x, max x]`).

use super::poisson::{fox_glynn, PoissonWindow};
use crate::matrix::{StepAcc, UniformPlan};
use crate::props::CheckError;
use crate::solve::SolveError;
use crate::{Chain, RateMatrix};

/// Progress of a transient iteration: the step `k` and the window's last step. Return `false`
/// to stop (the computation then fails with [`SolveError::Interrupted`]).
pub type StepProgress<'a> = &'a mut dyn FnMut(usize, usize) -> bool;

/// Guaranteed bounds on a vector, and how they were computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    /// Matrix-vector products computed (the window's right end).
    pub iterations: usize,
    /// The uniformization rate `q`.
    pub rate: f64,
    /// The Poisson window `[left, right]`.
    pub window: (usize, usize),
}

/// PRISM's uniformization rate: 1.02 times the largest exit rate (1 for a chain without any
/// transition: `P = I`).
pub fn uniformization_rate(exit: &[f64]) -> f64 {
    rate_of(exit.iter().copied())
}

/// The uniformization rate of the chain with the `fixed` states made absorbing: their exit
/// rates do not count (as PRISM, which uniformises the transformed chain; cluster N=32
/// `P=? [ F<=2000 !"minimum" ]`: the failing states are the fastest, and the window went from
/// 84,283 to 104,947 steps with them).
fn absorbing_rate(exit: &[f64], fixed: &[bool]) -> f64 {
    rate_of(exit.iter().zip(fixed).filter(|(_, &f)| !f).map(|(&h, _)| h))
}

fn rate_of(exit: impl Iterator<Item = f64>) -> f64 {
    let m = exit.fold(0.0, f64::max);
    if m > 0.0 {
        1.02 * m
    } else {
        1.0
    }
}

/// The truncation target of the Poisson window. `epsilon` is relative to the answer and the
/// truncated mass is absolute, so the window is cut far below epsilon: a probability of 1e-4
/// within 1e-6 relative needs the mass outside below 1e-10. The window grows only as the square
/// root of `ln(1/eps)` (Poisson(92): steps 156 at 1e-9, 182 at 1e-16), far less than the
/// second evaluation a wider answer would need (kanban t=4 `P=? [ F<=10 x4=t ]`, 2.7e-4: cut at
/// 1e-9 it was 4e-6 wide relative and refined).
fn window_eps(epsilon: f64) -> f64 {
    (epsilon * 1e-10).clamp(1e-300, 1e-11)
}

/// How often (in steps) the steady-state detection looks at the iterate.
const DETECT_EVERY: usize = 8;
/// The part of epsilon (relative to the smallest lower bound) the detection may add to the
/// width.
const DETECT_SHARE: f64 = 0.5;

/// The uniformised backward step `y = x + (R x - h x) / q` on the states not `fixed`; the fixed
/// states keep their value (absorbing states of the transformed chain). Written `y = keep x +
/// take R x` with both factors per state computed once (`1 - h/q` and `1/q`; `1` and `0` when
/// fixed), one loop without a branch or a division after the product.
struct Stepper<'a> {
    by: By<'a>,
    keep: Vec<f64>,
    take: Vec<f64>,
    rx: Vec<f64>,
}

/// How a [`Stepper`] steps.
enum By<'a> {
    /// The engine's `R^T`.
    Matrix(&'a dyn RateMatrix),
    /// The engine's plan ([`Chain::uniform_plan`]), and whether `rx` holds the still states'
    /// values yet (the plan does not write them).
    Plan(Box<dyn UniformPlan>, bool),
}

/// `keep` and `take` of each state.
fn factors(exit: &[f64], fixed: &[bool], q: f64) -> (Vec<f64>, Vec<f64>) {
    exit.iter()
        .zip(fixed)
        .map(|(&h, &f)| {
            if f {
                (1.0, 0.0)
            } else {
                (1.0 - h / q, 1.0 / q)
            }
        })
        .unzip()
}

impl<'a> Stepper<'a> {
    fn new(rt: &'a dyn RateMatrix, exit: &[f64], fixed: &[bool], q: f64) -> Self {
        let (keep, take) = factors(exit, fixed, q);
        Stepper {
            by: By::Matrix(rt),
            keep,
            take,
            rx: vec![0.0; exit.len()],
        }
    }

    /// A step of `x` (replaced by the next iterate) and, with `acc`, its accumulation, in
    /// the engine's one pass ([`UniformPlan::step`] or [`RateMatrix::uniform_step`]).
    fn step_acc(&mut self, x: &mut Vec<f64>, acc: Option<StepAcc<'_>>) {
        match &mut self.by {
            By::Plan(p, primed) => {
                // the still states are never written: both vectors hold their value
                if !*primed {
                    self.rx.copy_from_slice(x);
                    *primed = true;
                }
                p.step(x, &mut self.rx, acc);
            }
            By::Matrix(rt) => rt.uniform_step(x, &mut self.rx, &self.keep, &self.take, acc),
        }
        std::mem::swap(x, &mut self.rx);
    }

    /// A step of `x` in place by the matrix (a `Stepper` of [`Stepper::new`]).
    fn step(&mut self, x: &mut [f64]) {
        let By::Matrix(rt) = self.by else {
            unreachable!("steps in place are taken by the matrix");
        };
        self.rx.fill(0.0);
        rt.vec_mul_add(x, &mut self.rx);
        for (xi, ((&r, &k), &t)) in x
            .iter_mut()
            .zip(self.rx.iter().zip(&self.keep).zip(&self.take))
        {
            *xi = *xi * k + r * t;
        }
    }
}

fn min_max(x: &[f64]) -> (f64, f64) {
    x.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        })
}

/// Bounds on `sum_k psi(k; q t) P^k x0` for every state, where `P` is the uniformised chain
/// with the `fixed` states made absorbing: the probability-weighted values at time `t` of a
/// backward transient analysis (PRISM's `P=? [ a U<=t b ]` with `x0` = the indicator of `b`,
/// `b` and `!a & !b` fixed; `I=t` rewards with `x0` the state rewards).
pub fn backward_transient(
    chain: &dyn Chain,
    fixed: &[bool],
    x0: &[f64],
    t: f64,
    epsilon: f64,
    progress: StepProgress<'_>,
) -> Result<Bounds, CheckError> {
    weighted_sum(chain, fixed, x0, t, epsilon, Weights::Point, None, progress)
}

/// [`backward_transient`] of a time-bounded until: `x0` is the indicator of the fixed states
/// of value 1 (the others fixed are 0), so the iterates `P^k x0` (the probabilities of
/// reaching them within `k` steps) grow with `k`, and stay below the unbounded until's
/// probabilities, of which `ceiling` is an upper bound on every state. The steps after `k` are
/// then charged between `P^k x0` and `ceiling`, and the iteration stops as soon as that is
/// within epsilon: a sound steady-state detection where the iterate tends to a vector that is
/// not constant (PRISM's detection compares two iterates and guarantees nothing).
pub fn backward_until(
    chain: &dyn Chain,
    fixed: &[bool],
    x0: &[f64],
    ceiling: &[f64],
    t: f64,
    epsilon: f64,
    progress: StepProgress<'_>,
) -> Result<Bounds, CheckError> {
    weighted_sum(
        chain,
        fixed,
        x0,
        t,
        epsilon,
        Weights::Point,
        Some(ceiling),
        progress,
    )
}

/// Bounds on the expected reward accumulated up to time `t`, `E[int_0^t rho(X_u) du]`, from
/// every state (PRISM's `R=? [ C<=t ]`), by uniformization:
/// `sum_k (1/q) P(N > k) P^k rho` with `N ~ Poisson(q t)`.
pub fn cumulative(
    chain: &dyn Chain,
    rho: &[f64],
    t: f64,
    epsilon: f64,
    progress: StepProgress<'_>,
) -> Result<Bounds, CheckError> {
    let fixed = vec![false; rho.len()];
    weighted_sum(
        chain,
        &fixed,
        rho,
        t,
        epsilon,
        Weights::Cumulative,
        None,
        progress,
    )
}

/// The relative rounding margin of one step of [`steps`].
const ROUNDING_PER_STEP: f64 = 1.0 / (1u64 << 40) as f64;

/// Step-bounded analysis of a discrete-time chain given as a [`Chain`] whose `R` holds the
/// one-step probabilities off the diagonal (so `h[i] = 1 - P[i][i]`): the uniformised step with
/// `q = 1` is exactly `x <- P x` (a deadlock keeps its value: its self-loop). With
/// `cumulative` false, `P^k x0` with the `fixed` states absorbing (PRISM's `a U<=k b` with
/// `x0` the indicator of `b`, `b` and `!a & !b` fixed; `I=k` with `x0` the state rewards);
/// with `cumulative` true, `sum_{t<k} P^t x0` (`C<=k` with `x0` the expected reward of a step
/// from each state). `k` matrix-vector products, no truncation: the bounds are the computed
/// vector widened by a margin for the rounding of `k` products (each entry a convex
/// combination of the previous iterate's).
pub fn steps(
    chain: &dyn Chain,
    fixed: &[bool],
    x0: &[f64],
    k: u64,
    cumulative: bool,
    progress: StepProgress<'_>,
) -> Result<Bounds, CheckError> {
    let n = chain.len();
    let right = usize::try_from(k).map_err(|_| CheckError::Eval(format!("{k} steps")))?;
    let mut x = x0.to_vec();
    let mut acc = if cumulative { x0.to_vec() } else { Vec::new() };
    let last = if cumulative {
        right.saturating_sub(1)
    } else {
        right
    };
    chain.with_transposed(&mut |rt| {
        let mut s = Stepper::new(rt, chain.exit(), fixed, 1.0);
        for t in 1..=last {
            if !progress(t, last) {
                return Err(SolveError::Interrupted.into());
            }
            s.step(&mut x);
            if cumulative {
                acc.iter_mut().zip(&x).for_each(|(a, v)| *a += v);
            }
        }
        Ok(())
    })?;
    let v = if cumulative {
        if right == 0 {
            vec![0.0; n]
        } else {
            acc
        }
    } else {
        x
    };
    // a step of a non-negative vector adds non-negative terms: its rounding error is relative
    // to the entry itself, a few units in the last place per term; 2^-40 per step leaves
    // room for rows of thousands of entries. A negative entry (a negative reward) makes the
    // error relative to the largest magnitude instead.
    let (xmin, xmax) = if n == 0 { (0.0, 0.0) } else { min_max(x0) };
    let rel = (last as f64 + 2.0) * ROUNDING_PER_STEP;
    let terms = if cumulative { k.max(1) as f64 } else { 1.0 };
    let floor = if xmin < 0.0 {
        rel * xmin.abs().max(xmax.abs()) * terms
    } else {
        0.0
    };
    let margin = |a: f64| a.abs() * rel + floor;
    Ok(Bounds {
        lo: v.iter().map(|&a| a - margin(a)).collect(),
        hi: v.iter().map(|&a| a + margin(a)).collect(),
        iterations: last,
        rate: 1.0,
        window: (0, right),
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Weights {
    /// `psi(k)`.
    Point,
    /// `(1/q) P(N > k)`.
    Cumulative,
}

#[allow(clippy::too_many_arguments)]
fn weighted_sum(
    chain: &dyn Chain,
    fixed: &[bool],
    x0: &[f64],
    t: f64,
    epsilon: f64,
    kind: Weights,
    ceiling: Option<&[f64]>,
    progress: StepProgress<'_>,
) -> Result<Bounds, CheckError> {
    if !(t >= 0.0 && t.is_finite()) {
        return Err(CheckError::Eval(format!(
            "a time bound must be finite and non-negative, got {t}"
        )));
    }
    let n = chain.len();
    let exit = chain.exit();
    let q = absorbing_rate(exit, fixed);
    let lambda = q * t;
    if !lambda.is_finite() || lambda > 1e9 {
        return Err(CheckError::Eval(format!(
            "q t = {lambda:e} is too large for uniformization (rate {q}, time {t})"
        )));
    }
    let w = fox_glynn(lambda, window_eps(epsilon));
    let (xmin, xmax) = if n == 0 { (0.0, 0.0) } else { min_max(x0) };
    // shifted to be non-negative: P^k (x - c) = P^k x - c
    let mut x: Vec<f64> = x0.iter().map(|&v| v - xmin).collect();
    let (mut acc_lo, mut acc_hi) = (vec![0.0; n], vec![0.0; n]);
    let right = w.right();
    let coef = coefficients(&w, kind, q);
    let spread = xmax - xmin;
    let (base, missing) = match kind {
        Weights::Point => (xmin, w.outside() * spread),
        // sum_k (1/q) P(N > k) = E[N] / q = t exactly; what lies beyond the window is at most
        // the expected excess of N over it, times the spread, over q
        Weights::Cumulative => (xmin * t, w.excess_beyond_right() * spread / q),
    };
    // the weights of the steps after k, for the steady-state detection
    let mut after = vec![(0.0, 0.0); right + 1];
    for k in (0..right).rev() {
        let (cl, ch) = coef(k + 1);
        after[k] = (after[k + 1].0 + cl, after[k + 1].1 + ch);
    }
    let mut last = right;
    // the detection's range of the iterate: the fixed states keep their value, so their range
    // is taken once and only the states that move are read again
    let moving: Vec<u32> = (0..n as u32).filter(|&i| !fixed[i as usize]).collect();
    let still_range = fixed
        .iter()
        .zip(&x)
        .filter(|(&f, _)| f)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (_, &v)| {
            (a.min(v), b.max(v))
        });
    // the smallest lower sum, kept while no step adds to the sums (before the window)
    let mut least = None;
    let mut run = |s: &mut Stepper<'_>| -> Result<(), CheckError> {
        for k in 0..=right {
            let (cl, ch) = coef(k);
            if k > 0 {
                if !progress(k, right) {
                    return Err(SolveError::Interrupted.into());
                }
                // the step and its weights in one pass
                if ch > 0.0 {
                    least = None;
                }
                let acc = (ch > 0.0).then_some(StepAcc {
                    lo: &mut acc_lo,
                    hi: &mut acc_hi,
                    cl,
                    ch,
                });
                s.step_acc(&mut x, acc);
            } else if ch > 0.0 {
                least = None;
                for i in 0..n {
                    acc_lo[i] += cl * x[i];
                    acc_hi[i] += ch * x[i];
                }
            }
            // steady-state detection, sound: P is stochastic, so every later P^j x lies
            // within [min x, max x] on every state; once that range is narrow, the steps left
            // are charged at its ends and the iteration stops
            if k < right && k % DETECT_EVERY == 0 && n > 0 {
                if let Some(c) = ceiling {
                    // every later iterate lies between this one and the ceiling, state by
                    // state (shifted as `x` is)
                    let (wl, wh) = after[k];
                    let close = (0..n).all(|i| {
                        let (l, h) = (wl * x[i], wh * (c[i] - xmin).max(x[i]));
                        h - l <= DETECT_SHARE * epsilon * (base + acc_lo[i] + l)
                    });
                    if close {
                        for i in 0..n {
                            acc_lo[i] += wl * x[i];
                            acc_hi[i] += wh * (c[i] - xmin).max(x[i]);
                        }
                        last = k;
                        break;
                    }
                }
                let (m, big) = if moving.len() == n {
                    min_max(&x)
                } else {
                    moving.iter().fold(still_range, |(a, b), &i| {
                        (a.min(x[i as usize]), b.max(x[i as usize]))
                    })
                };
                let (add_lo, add_hi) = (m * after[k].0, big * after[k].1);
                let least = *least
                    .get_or_insert_with(|| acc_lo.iter().copied().fold(f64::INFINITY, f64::min));
                if add_hi - add_lo <= DETECT_SHARE * epsilon * (base + least + add_lo) {
                    for i in 0..n {
                        acc_lo[i] += add_lo;
                        acc_hi[i] += add_hi;
                    }
                    last = k;
                    break;
                }
            }
        }
        Ok(())
    };
    // the engine's plan of the steps where it has one (the sparse engine: no transpose made),
    // else its R^T
    let (keep, take) = factors(exit, fixed, q);
    let plan = chain.uniform_plan(&keep, &take);
    drop((keep, take));
    match plan {
        // the plan keeps the factors it needs
        Some(plan) => run(&mut Stepper {
            by: By::Plan(plan, false),
            keep: Vec::new(),
            take: Vec::new(),
            rx: vec![0.0; n],
        })?,
        None => chain.with_transposed(&mut |rt| run(&mut Stepper::new(rt, exit, fixed, q)))?,
    }
    let lo = acc_lo.iter().map(|&a| base + a).collect();
    let hi = acc_hi.iter().map(|&a| base + a + missing).collect();
    Ok(Bounds {
        lo,
        hi,
        iterations: last,
        rate: q,
        window: (w.left, right),
    })
}

/// The weight bounds `(lo, hi)` of step `k`.
fn coefficients(w: &PoissonWindow, kind: Weights, q: f64) -> impl Fn(usize) -> (f64, f64) + '_ {
    let right = w.right();
    // suffix[j] = sum of the weights of steps left + j ..= right
    let mut suffix = vec![0.0; w.weights.len() + 1];
    for j in (0..w.weights.len()).rev() {
        suffix[j] = suffix[j + 1] + w.weights[j];
    }
    let slack = w.slack();
    move |k| match kind {
        Weights::Point => {
            if k < w.left {
                (0.0, 0.0)
            } else {
                (w.prob_lo(k), w.prob_hi(k))
            }
        }
        Weights::Cumulative => {
            // P(N > k) over the window's steps k+1..=right, plus (upper) all that lies outside
            let from = (k + 1).max(w.left);
            let inside = if from > right {
                0.0
            } else {
                suffix[from - w.left]
            };
            let lo = inside / (w.total + w.tail) * (1.0 - slack);
            let hi = ((inside + w.tail) / w.total * (1.0 + slack)).min(1.0);
            (lo / q, hi / q)
        }
    }
}
