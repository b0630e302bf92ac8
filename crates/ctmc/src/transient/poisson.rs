//! Poisson weights for uniformization (thesis section 2.3.2), with the truncation error they
//! guarantee: the Fox-Glynn window `[left, right]` around the mode, its weights computed
//! relative to the mode (so nothing underflows however large `lambda` is), and a rigorous bound
//! on the mass the window leaves out.
//!
//! The weights `w_k` are proportional to the Poisson probabilities `psi(k; lambda) =
//! e^-lambda lambda^k / k!`: `w_mode = 1`, `w_{k+1} = w_k lambda / (k + 1)`. Their sum over the
//! window is `total`; `tail` bounds the sum of the `w_k` outside it: beyond `right > lambda`
//! the ratios `lambda / (k + 1)` are at most `r = lambda / (right + 1) < 1`, so the right tail is
//! at most `w_right r / (1 - r)`; below `left < lambda` the ratios `k / lambda` are at most `r
//! = left / lambda`, so the left tail is at most `w_left r / (1 - r)`. Hence every probability
//! lies in `[w_k / (total + tail), w_k / total]` and the mass outside the window is at most
//! `tail / total`: the bounds [`super::uniform`] builds are guaranteed, not estimated (up to the
//! rounding of the products, which [`PoissonWindow::slack`] accounts for).

/// The Poisson weights of a window and the bound on what lies outside it.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonWindow {
    /// `lambda = q t`.
    pub lambda: f64,
    /// First index of the window.
    pub left: usize,
    /// `weights[k - left]` is `w_k` for `k` in `left..=right`.
    pub weights: Vec<f64>,
    /// Sum of the weights in the window.
    pub total: f64,
    /// Upper bound on the sum of the weights outside the window (same scale as `weights`).
    pub tail: f64,
    /// Upper bound on the right tail alone (the part beyond `right`).
    pub right_tail: f64,
}

/// The rounding slack of one weight: each is a product of at most `len` factors, each correctly
/// rounded, so its relative error is at most about `len` units in the last place.
const ULP: f64 = f64::EPSILON;

impl PoissonWindow {
    /// Last index of the window.
    pub fn right(&self) -> usize {
        self.left + self.weights.len() - 1
    }

    /// Lower bound on the probability of index `k` of the window.
    pub fn prob_lo(&self, k: usize) -> f64 {
        self.weights[k - self.left] / (self.total + self.tail) * (1.0 - self.slack())
    }

    /// Upper bound on the probability of index `k` of the window.
    pub fn prob_hi(&self, k: usize) -> f64 {
        self.weights[k - self.left] / self.total * (1.0 + self.slack())
    }

    /// Upper bound on the probability mass outside the window.
    pub fn outside(&self) -> f64 {
        (self.tail / self.total) * (1.0 + self.slack()) + self.slack()
    }

    /// Relative rounding slack of the weights and their sums.
    pub fn slack(&self) -> f64 {
        4.0 * ULP * (self.weights.len() as f64 + 2.0)
    }

    /// Upper bound on `sum_{k > right} (k - right) psi(k)`, the expected excess of a Poisson
    /// count over the window's end (the truncation of cumulative rewards):
    /// `w_right sum_d d r^d = w_right r / (1 - r)^2` over the total.
    pub fn excess_beyond_right(&self) -> f64 {
        let right = self.right();
        let w = *self.weights.last().expect("a window is never empty");
        if self.lambda == 0.0 {
            return 0.0;
        }
        let r = self.lambda / (right as f64 + 1.0);
        debug_assert!(r < 1.0);
        w * r / ((1.0 - r) * (1.0 - r)) / self.total * (1.0 + self.slack())
    }
}

/// The weights of `Poisson(lambda)` on a window whose outside mass is at most `eps` (relative to
/// the window's mass), after Fox and Glynn ("Computing Poisson probabilities", 1988): the window
/// grows from the mode until the geometric tail bounds fall below `eps`.
pub fn fox_glynn(lambda: f64, eps: f64) -> PoissonWindow {
    assert!(
        lambda >= 0.0 && lambda.is_finite(),
        "lambda must be finite and non-negative"
    );
    assert!(eps > 0.0 && eps < 1.0, "eps must lie in (0, 1)");
    if lambda == 0.0 {
        return PoissonWindow {
            lambda,
            left: 0,
            weights: vec![1.0],
            total: 1.0,
            tail: 0.0,
            right_tail: 0.0,
        };
    }
    let mode = lambda.floor() as usize;
    // right side: w_{k+1} = w_k lambda / (k + 1)
    let mut right = vec![1.0f64];
    let mut sum_right = 1.0;
    let mut k = mode;
    let right_tail = loop {
        let w = *right.last().unwrap();
        let r = lambda / (k as f64 + 1.0);
        if r < 1.0 {
            let bound = w * r / (1.0 - r);
            // the left side adds at most as much again as the right: compare with half of eps
            if bound <= 0.5 * eps * sum_right || w == 0.0 {
                break bound;
            }
        }
        k += 1;
        let next = w * lambda / k as f64;
        right.push(next);
        sum_right += next;
    };
    // left side: w_{k-1} = w_k k / lambda
    let mut left_ws = Vec::new();
    let mut w = 1.0f64;
    let mut k = mode;
    let mut left_tail = 0.0;
    while k > 0 {
        let r = k as f64 / lambda;
        if r < 1.0 {
            let bound = w * r / (1.0 - r);
            if bound <= 0.5 * eps * sum_right || w == 0.0 {
                left_tail = bound;
                break;
            }
        }
        w = w * k as f64 / lambda;
        k -= 1;
        left_ws.push(w);
    }
    let left = mode - left_ws.len();
    left_ws.reverse();
    left_ws.extend_from_slice(&right);
    let total: f64 = left_ws.iter().sum();
    PoissonWindow {
        lambda,
        left,
        weights: left_ws,
        total,
        tail: left_tail + right_tail,
        right_tail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ln psi(k; lambda)` by Stirling's series for `ln k!` (exact sums for small k): an
    /// independent route to the probabilities.
    fn ln_poisson(k: usize, lambda: f64) -> f64 {
        let ln_fact = if k < 30 {
            (1..=k).map(|i| (i as f64).ln()).sum::<f64>()
        } else {
            let n = k as f64;
            n * n.ln() - n + 0.5 * (2.0 * std::f64::consts::PI * n).ln() + 1.0 / (12.0 * n)
                - 1.0 / (360.0 * n.powi(3))
                + 1.0 / (1260.0 * n.powi(5))
        };
        -lambda + k as f64 * lambda.ln() - ln_fact
    }

    #[test]
    fn weights_bound_the_exact_probabilities() {
        for &lambda in &[1e-3, 0.5, 1.0, 3.7, 10.0, 42.0, 250.5, 1e3, 2.5e4, 1e5] {
            for &eps in &[1e-6, 1e-12] {
                let w = fox_glynn(lambda, eps);
                assert!(
                    w.outside() <= eps * 1.01 + 2.0 * w.slack(),
                    "lambda {lambda}: outside {}",
                    w.outside()
                );
                let mut inside = 0.0;
                for k in w.left..=w.right() {
                    let p = ln_poisson(k, lambda).exp();
                    inside += p;
                    let (lo, hi) = (w.prob_lo(k), w.prob_hi(k));
                    // the reference's log-space sum loses about an ulp of its largest terms
                    let tol = 1e-12 + 4.0 * ULP * (lambda + k as f64 * lambda.ln().abs());
                    assert!(
                        lo <= p * (1.0 + tol) && p <= hi * (1.0 + tol),
                        "lambda {lambda} k {k}: {lo} <= {p} <= {hi}"
                    );
                }
                assert!(1.0 - inside <= w.outside() + 1e-10, "lambda {lambda}");
            }
        }
    }

    #[test]
    fn tiny_and_zero_lambda() {
        let w = fox_glynn(0.0, 1e-6);
        assert_eq!((w.left, w.right()), (0, 0));
        assert!(w.outside() < 1e-14 && w.prob_lo(0) > 1.0 - 1e-14);
        let w = fox_glynn(1e-9, 1e-12);
        assert_eq!(w.left, 0);
        assert!(w.prob_lo(0) > 1.0 - 1e-8);
    }
}
