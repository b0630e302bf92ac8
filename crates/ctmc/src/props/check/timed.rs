//! The time-bounded operators of CSL and the next operator, with the bounds of thesis 7.1:
//! `P(a U[t1,t2] b)`, `P(X phi)`, `R[C<=t]` and `R[I=t]`, on any engine (uniformization over the
//! chain's rate matrix, [`crate::transient`]).
//!
//! On a DTMC ([`Checker::discrete_time`]) the bounds are numbers of steps and every
//! uniformization is replaced by that many products with `P` ([`steps`]).
//!
//! `P(a U[t1,t2] b)` grows with both sets, so its lower bound is computed from the operands'
//! lower sets and its upper bound from their upper sets; each computation is itself an interval
//! (the Poisson truncation), and the two ends are taken from the two runs.

use super::{CheckError, Checker, Numbers, Sets};
use crate::solve::Method;
use crate::transient::{backward_transient, backward_until, cumulative, steps, Bounds};

/// Expected uniformization steps (`q t`) past which a time-bounded until first bounds its
/// limit (the unbounded until) to stop early.
const LONG_UNIFORMIZATION: f64 = 2_000.0;

fn indicator(s: &[bool]) -> Vec<f64> {
    s.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect()
}

/// A step bound of a DTMC: a whole, non-negative number of steps.
fn whole_steps(t: f64) -> Result<u64, CheckError> {
    if t >= 0.0 && t.fract() == 0.0 && t < u64::MAX as f64 {
        Ok(t as u64)
    } else {
        Err(CheckError::Eval(format!(
            "a step bound of a dtmc must be a whole number of steps, got {t}"
        )))
    }
}

fn clamp01(x: Vec<f64>) -> Vec<f64> {
    x.into_iter().map(|v| v.clamp(0.0, 1.0)).collect()
}

impl Checker<'_> {
    /// Bounds on `P(a U[t1,t2] b)` in every state (`t2` may be infinite).
    pub(super) fn timed_until(
        &mut self,
        a: &Sets,
        b: &Sets,
        t1: f64,
        t2: f64,
    ) -> Result<Numbers, CheckError> {
        let (lo, hi) = if a.decided() && b.decided() {
            self.timed_until_sets(&a.lo, &b.lo, t1, t2)?
        } else {
            let (lo, _) = self.timed_until_sets(&a.lo, &b.lo, t1, t2)?;
            let (_, hi) = self.timed_until_sets(&a.hi, &b.hi, t1, t2)?;
            (lo, hi)
        };
        Ok(Numbers::PerState(clamp01(lo), clamp01(hi)))
    }

    /// `P(a U[t1,t2] b)` for decided sets, as PRISM computes it: first `a U[0,t2-t1] b`
    /// (`b` and `!a & !b` absorbing; unbounded until when `t2` is infinite), then, when
    /// `t1 > 0`, the probability of staying in `a` up to `t1` weighted by that vector (`!a`
    /// absorbing with value 0; in a DTMC, in `a` for the steps before `t1`).
    fn timed_until_sets(
        &mut self,
        a: &[bool],
        b: &[bool],
        t1: f64,
        t2: f64,
    ) -> Result<(Vec<f64>, Vec<f64>), CheckError> {
        let n = a.len();
        let (ylo, yhi) = if t2.is_infinite() {
            self.until(a, b)?
        } else if t2 > t1 {
            let fixed: Vec<bool> = (0..n).map(|i| b[i] || !a[i]).collect();
            let r = self.bounded_until(a, b, &fixed, t2 - t1)?;
            (r.lo, r.hi)
        } else {
            (indicator(b), indicator(b))
        };
        if t1 == 0.0 {
            return Ok((ylo, yhi));
        }
        const UP_TO: &str = "time-bounded until, up to its lower bound";
        let (ylo, yhi, t1) = if self.discrete {
            // in discrete time a path may be in b outside a exactly at step t1: y is kept
            // there, and masked by a only from the first step back
            let free = vec![false; n];
            let lo = self.transient(UP_TO, &free, &ylo, 1.0)?.lo;
            let hi = self.transient(UP_TO, &free, &yhi, 1.0)?.hi;
            (lo, hi, t1 - 1.0)
        } else {
            (ylo, yhi, t1)
        };
        let fixed: Vec<bool> = a.iter().map(|&x| !x).collect();
        let within_a = |y: Vec<f64>| -> Vec<f64> {
            y.into_iter()
                .zip(a)
                .map(|(v, &ai)| if ai { v } else { 0.0 })
                .collect()
        };
        let lo = self.transient(UP_TO, &fixed, &within_a(ylo), t1)?.lo;
        let hi = self.transient(UP_TO, &fixed, &within_a(yhi), t1)?.hi;
        Ok((lo, hi))
    }

    /// Bounds on `P(X phi)`: `sum_j R[s][j] phi(j) / h(s)` (in a DTMC `sum_j P[s][j] phi(j)`,
    /// the self-loop `1 - h(s)` included); a deadlock's self-loop keeps it.
    pub(super) fn next(&mut self, phi: &Sets) -> Result<Numbers, CheckError> {
        let lo = self.next_of(&phi.lo)?;
        let hi = if phi.decided() {
            lo.clone()
        } else {
            self.next_of(&phi.hi)?
        };
        Ok(Numbers::PerState(clamp01(lo), clamp01(hi)))
    }

    fn next_of(&self, phi: &[bool]) -> Result<Vec<f64>, CheckError> {
        let x = indicator(phi);
        let mut rx = vec![0.0; x.len()];
        self.ctmc.with_transposed(&mut |rt| {
            rt.vec_mul_add(&x, &mut rx);
            Ok(())
        })?;
        let h = self.ctmc.exit();
        Ok((0..x.len())
            .map(|i| match h[i] {
                _ if self.discrete => rx[i] + (1.0 - h[i]) * x[i],
                h if h > 0.0 => rx[i] / h,
                _ => x[i],
            })
            .collect())
    }

    /// Bounds on the expected reward accumulated up to `t` (`R[C<=t]`, structure `k`).
    pub(super) fn cumulative_reward(&mut self, k: usize, t: f64) -> Result<Numbers, CheckError> {
        let rates = self.reward_rates(k)?;
        let eps = self.options.epsilon;
        let r = if self.discrete {
            let k = whole_steps(t)?;
            let fixed = vec![false; rates.len()];
            self.with_step_progress("cumulative reward", |chain, p| {
                steps(chain, &fixed, &rates, k, true, p)
            })?
        } else {
            self.with_step_progress("cumulative reward", |chain, p| {
                cumulative(chain, &rates, t, eps, p)
            })?
        };
        Ok(Numbers::PerState(r.lo, r.hi))
    }

    /// Bounds on the expected state reward at time `t` (`R[I=t]`, structure `k`: state rewards
    /// only, as PRISM).
    pub(super) fn instant_reward(&mut self, k: usize, t: f64) -> Result<Numbers, CheckError> {
        let rates = self.rewards[k].state_rates(self.ctmc)?;
        let fixed = vec![false; rates.len()];
        let r = self.transient("instantaneous reward", &fixed, &rates, t)?;
        Ok(Numbers::PerState(r.lo, r.hi))
    }

    /// `a U<=t b` with `b` and `!a & !b` `fixed`: [`backward_transient`], or, when the
    /// uniformization is long (more than [`LONG_UNIFORMIZATION`] expected steps), first the
    /// unbounded until's upper bounds to a twentieth of epsilon, which let
    /// [`backward_until`] stop as soon as the iterate is within epsilon of its limit (cluster
    /// N=32 `P=? [ F<=2000 !"minimum" ]`: 102,000 expected steps).
    fn bounded_until(
        &mut self,
        a: &[bool],
        b: &[bool],
        fixed: &[bool],
        t: f64,
    ) -> Result<Bounds, CheckError> {
        let what = "time-bounded until";
        let q = crate::transient::uniformization_rate(self.ctmc.exit());
        if self.discrete || !(q * t > LONG_UNIFORMIZATION) {
            return self.transient(what, fixed, &indicator(b), t);
        }
        let eps = self.options.epsilon;
        self.options.epsilon = eps / 20.0;
        let ceiling = self.until(a, b);
        self.options.epsilon = eps;
        let (_, ceiling) = ceiling?;
        let x0 = indicator(b);
        self.with_step_progress(what, |chain, p| {
            backward_until(chain, fixed, &x0, &ceiling, t, eps, p)
        })
    }

    /// [`backward_transient`] with this checker's epsilon and progress, counted in the stats.
    fn transient(
        &mut self,
        what: &str,
        fixed: &[bool],
        x0: &[f64],
        t: f64,
    ) -> Result<Bounds, CheckError> {
        let eps = self.options.epsilon;
        if self.discrete {
            let k = whole_steps(t)?;
            return self.with_step_progress(what, |chain, p| steps(chain, fixed, x0, k, false, p));
        }
        self.with_step_progress(what, |chain, p| {
            backward_transient(chain, fixed, x0, t, eps, p)
        })
    }

    fn with_step_progress(
        &mut self,
        what: &str,
        run: impl FnOnce(
            &dyn crate::Chain,
            &mut dyn FnMut(usize, usize) -> bool,
        ) -> Result<Bounds, CheckError>,
    ) -> Result<Bounds, CheckError> {
        let chain = self.ctmc;
        let progress = &mut self.progress;
        let how = if self.discrete {
            "steps"
        } else {
            "uniformization"
        };
        let label = format!("{what} ({how})");
        let r = run(chain, &mut |k, right| {
            k % 32 != 0 || progress(&label, &Method::Power, k, (right - k) as f64)
        })?;
        self.stats.iterations += r.iterations;
        if self.discrete {
            if !self.stats.methods.iter().any(|m| m == "steps") {
                self.stats.methods.push("steps".into());
            }
            self.stats
                .note_bounding("exact step products with a rounding margin");
        } else {
            let detected = if r.iterations < r.window.1 {
                format!(", steady state detected at step {}", r.iterations)
            } else {
                String::new()
            };
            self.stats.methods.push(format!(
                "uniformization (q={}, Poisson window {}..{}{detected})",
                r.rate, r.window.0, r.window.1
            ));
            self.stats
                .note_bounding("Fox-Glynn truncation, bounded both ways");
        }
        Ok(r)
    }
}
