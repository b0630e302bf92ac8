//! The StateSpace figures of a net at a large scale of its initial marking, interpolated from
//! the figures at small scales (issue 12, nets with many tokens per place).
//!
//! For the nets [`saturn_model::scaling::polynomial_scaling`] accepts, the number of reachable
//! markings and of reachability-graph edges at scale `k` are polynomials in `k` of degree at most
//! `d` (Ehrhart's theorem; the conditions and the argument are in that module), and the most
//! tokens in a place and in a marking are `k` times their value at scale 1. So the figures at
//! scales `0..=d` fix them at every scale: [`figures_by_scaling`] computes those and one more,
//! `d + 1`, which the interpolation must predict, then evaluates the Newton form at the net's
//! own scale with exact integers.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{Signed, Zero};

use crate::metrics::StateSpaceMetrics;
use crate::Interrupted;

/// The StateSpace figures at scale `factor`, from the scales `0..points`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaledFigures {
    pub states: BigUint,
    pub transitions: BigUint,
    pub max_local: u64,
    pub max_sum: u64,
    /// How many scales were generated (`0..points`).
    pub points: usize,
    /// The degree of the states polynomial (its last non-zero difference).
    pub degree: usize,
}

/// The figures at scale `factor` of a net whose figures are polynomials of degree at most
/// `degree` in the scale, `figures_at(k)` giving the figures at scale `k` (called for `k = 0,
/// 1, ..., degree + 1` in turn). `Ok(None)` when the figures at `degree + 1` do not follow the
/// polynomial through the others, a maximum is not linear in the scale or overflows, or
/// `factor` is one of the scales computed anyway (then it is answered directly by the caller):
/// never a figure that is not backed by the argument.
pub fn figures_by_scaling(
    factor: u64,
    degree: usize,
    figures_at: &mut dyn FnMut(u64) -> Result<StateSpaceMetrics, Interrupted>,
) -> Result<Option<ScaledFigures>, Interrupted> {
    let points = degree + 2;
    if factor < points as u64 {
        return Ok(None);
    }
    let (mut states, mut transitions) = (Vec::with_capacity(points), Vec::with_capacity(points));
    let (mut local, mut sum) = (0u64, 0u64);
    for k in 0..points as u64 {
        let m = figures_at(k)?;
        if k == 1 {
            (local, sum) = (m.max_local, m.max_sum);
        }
        // linear in the scale (exact: the maxima sit on integral vertices)
        if Some(m.max_local) != local.checked_mul(k) || Some(m.max_sum) != sum.checked_mul(k) {
            return Ok(None);
        }
        states.push(BigInt::from(m.states));
        transitions.push(BigInt::from(m.transitions));
    }
    let differences = forward_differences(&states);
    let (Some(s), Some(t)) = (
        newton_at(&differences, factor),
        newton_extrapolate(&transitions, factor),
    ) else {
        return Ok(None);
    };
    let (Some(max_local), Some(max_sum)) = (local.checked_mul(factor), sum.checked_mul(factor))
    else {
        return Ok(None);
    };
    let found = differences.iter().rposition(|d| !d.is_zero()).unwrap_or(0);
    Ok(Some(ScaledFigures {
        states: s,
        transitions: t,
        max_local,
        max_sum,
        points,
        degree: found,
    }))
}

/// `Δ^j f(0)` for `j = 0..values.len()`, `values[k] = f(k)`.
fn forward_differences(values: &[BigInt]) -> Vec<BigInt> {
    let mut row = values.to_vec();
    let mut out = Vec::with_capacity(values.len());
    while let Some(first) = row.first() {
        out.push(first.clone());
        row = row.windows(2).map(|w| &w[1] - &w[0]).collect();
    }
    out
}

/// The value at `x` of the polynomial of degree at most `values.len() - 2` through the points
/// `(k, values[k])`, provided the last point lies on the polynomial through the others (its
/// highest difference is zero) and the value is not negative; else `None`.
fn newton_extrapolate(values: &[BigInt], x: u64) -> Option<BigUint> {
    newton_at(&forward_differences(values), x)
}

/// [`newton_extrapolate`] from the forward differences `d` of the values.
fn newton_at(d: &[BigInt], x: u64) -> Option<BigUint> {
    if d.last().is_some_and(|last| !last.is_zero()) {
        return None;
    }
    // Newton's forward form: f(x) = sum_j Δ^j f(0) · C(x, j), the binomials built exactly
    let mut total = BigInt::zero();
    let mut binomial = BigInt::from(1u8);
    for (j, dj) in d.iter().enumerate() {
        total += dj * &binomial;
        let j = j as u64;
        if j >= x {
            break;
        }
        binomial = binomial * BigInt::from(x - j) / BigInt::from(j + 1);
    }
    if total.is_negative() {
        return None;
    }
    let (sign, digits) = total.into_parts();
    Some(if sign == Sign::NoSign {
        BigUint::zero()
    } else {
        digits
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(states: u64, transitions: u64, max_local: u64, max_sum: u64) -> StateSpaceMetrics {
        StateSpaceMetrics {
            states: states.into(),
            transitions: transitions.into(),
            max_local,
            max_sum,
            nodes: 0,
        }
    }

    #[test]
    fn a_polynomial_is_extrapolated_exactly() {
        // f(k) = (k+1)(k+2)(k+3)/6, the markings of 3 tokens... in 4 places; degree 3
        let f = |k: u64| (k + 1) * (k + 2) * (k + 3) / 6;
        let values: Vec<BigInt> = (0..5).map(|k| BigInt::from(f(k))).collect();
        let at = |x: u64| newton_extrapolate(&values, x);
        assert_eq!(at(1000), Some(BigUint::from(f(1000))));
        assert_eq!(at(2), Some(BigUint::from(f(2))));
        // 10^12: (10^12+1)(10^12+2)(10^12+3)/6 exactly
        let big = BigUint::from(10u64.pow(12));
        let expect = (&big + 1u8) * (&big + 2u8) * (&big + 3u8) / 6u8;
        assert_eq!(at(10u64.pow(12)), Some(expect));
    }

    #[test]
    fn a_point_off_the_polynomial_refuses() {
        let mut values: Vec<BigInt> = (0..5u64).map(|k| BigInt::from(k * k)).collect();
        values[4] += 1;
        assert_eq!(newton_extrapolate(&values, 100), None);
    }

    #[test]
    fn the_figures_come_from_the_scales_up_to_degree_plus_one() {
        // states (k+1)^2, edges 2k(k+1), maxima k and 3k: degree 2, scales 0..=3
        let asked = std::cell::RefCell::new(Vec::new());
        let mut at = |k: u64| {
            asked.borrow_mut().push(k);
            Ok(metrics((k + 1) * (k + 1), 2 * k * (k + 1), k, 3 * k))
        };
        let f = figures_by_scaling(50, 2, &mut at).unwrap().unwrap();
        assert_eq!(*asked.borrow(), vec![0, 1, 2, 3]);
        assert_eq!(f.states, BigUint::from(51u64 * 51));
        assert_eq!(f.transitions, BigUint::from(2u64 * 50 * 51));
        assert_eq!(
            (f.max_local, f.max_sum, f.points, f.degree),
            (50, 150, 4, 2)
        );
        // a scale among those computed: answered directly, not here
        assert_eq!(figures_by_scaling(3, 2, &mut at).unwrap(), None);
    }

    #[test]
    fn a_degree_bound_too_small_or_a_maximum_not_linear_refuses() {
        let mut cubic = |k: u64| Ok(metrics(k * k * k + 1, 0, k, k));
        assert_eq!(figures_by_scaling(40, 2, &mut cubic).unwrap(), None);
        let mut bent = |k: u64| Ok(metrics(k + 1, k, k.min(2), k));
        assert_eq!(figures_by_scaling(40, 3, &mut bent).unwrap(), None);
        let mut stopped = |k: u64| {
            if k < 2 {
                Ok(metrics(1, 0, 0, 0))
            } else {
                Err(Interrupted::Timeout)
            }
        };
        assert_eq!(
            figures_by_scaling(40, 3, &mut stopped),
            Err(Interrupted::Timeout)
        );
    }
}
