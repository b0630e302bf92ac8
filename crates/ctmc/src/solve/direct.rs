//! The rescue of [`super::absorbing_bounds`] when the iteration does not bracket the solution
//! within its budget: a direct solution of the (small) system of unknown states by dense LU
//! with partial pivoting, turned into *verified* bounds.
//!
//! The direct solution `x` is only a candidate; what makes the bounds guaranteed is a check in
//! the arithmetic of the iteration itself. With `F` the monotone map of [`super::interval`]
//! and `P` its coefficients on the unknown states, the widening `w` solves `(I - P) w = g`,
//! `g >= 0` the residual `|F(x) - x|` plus room for rounding (scaled up until the check holds).
//! Then `u = x + w` and `l = x - w` are checked to satisfy `F(u) <= u` and `F(l) >= l` on
//! every unknown state, with a margin for the rounding of the check: the iterates of `F` from
//! `u` decrease (from `l` increase) to the unique fixed point `x*`, so `l <= x* <= u`. The same
//! premise as the iteration's (absorption is certain from every unknown state, so the fixed
//! point is unique); a singular system is no rescue (`None`), never a number.
//!
//! Because `(I - P)^{-1} >= 0`, `w` is non-negative and zero on the states whose reachable
//! unknowns all have zero residual (the exact zeros stay exact, so relative gaps stay finite).

use super::interval::{jacobi, plain};
use crate::matrix::RateMatrix;

/// At most this many unknown states (dense LU: `m^3 / 3` multiplications, about a second at
/// 2,000).
const MAX_UNKNOWN: usize = 2_000;
/// At most this many multiply-adds to read the coefficients (a product by `R` per unknown).
const MAX_READ: u64 = 400_000_000;

/// Verified bounds `(l, u)` of the system `x = F(x)` (the fixed states carry their values),
/// or `None` when the system is too large for a dense solve, singular, or the check fails.
pub(super) fn direct_bounds(
    rt: &dyn RateMatrix,
    inv: &[f64],
    fixed: &[Option<f64>],
    c: &[f64],
) -> Option<(Vec<f64>, Vec<f64>)> {
    let n = fixed.len();
    let unknown: Vec<usize> = (0..n).filter(|&s| fixed[s].is_none()).collect();
    let m = unknown.len();
    if m == 0
        || m > MAX_UNKNOWN
        || (m as u64).saturating_mul(rt.nonzeros() + n as u64) > MAX_READ
        || unknown
            .iter()
            .any(|&s| !(inv[s] > 0.0 && inv[s].is_finite()))
    {
        return None;
    }
    // A = I - P on the unknown states (row j: the equation of unknown j), read column by
    // column: the product of the unit vector of unknown i gives its coefficient in every F(x)[j]
    let mut a = vec![0.0; m * m];
    let mut e = vec![0.0; n];
    let mut y = vec![0.0; n];
    for (i, &si) in unknown.iter().enumerate() {
        e[si] = 1.0;
        y.iter_mut().for_each(|v| *v = 0.0);
        rt.vec_mul_add(&e, &mut y);
        e[si] = 0.0;
        for (j, &sj) in unknown.iter().enumerate() {
            a[j * m + i] -= y[sj] * inv[sj];
        }
    }
    for j in 0..m {
        a[j * m + j] += 1.0;
    }
    let lu = Lu::factor(a, m)?;
    // the right-hand side: c plus what flows in from the fixed states
    let xf: Vec<f64> = fixed.iter().map(|f| f.unwrap_or(0.0)).collect();
    y.iter_mut().for_each(|v| *v = 0.0);
    rt.vec_mul_add(&xf, &mut y);
    let b: Vec<f64> = unknown.iter().map(|&s| c[s] + y[s] * inv[s]).collect();
    let xu = lu.solve(b);
    if xu.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut x = xf;
    for (k, &s) in unknown.iter().enumerate() {
        x[s] = xu[k];
    }
    let relax = plain(inv, c, fixed);
    let fx = jacobi(rt, &relax, &x);
    let room = 8.0 * f64::EPSILON;
    let base: Vec<f64> = unknown
        .iter()
        .map(|&s| (fx[s] - x[s]).abs() + room * (x[s].abs() + fx[s].abs()))
        .collect();
    let mut scale = 4.0;
    for _ in 0..8 {
        let w = lu.solve(base.iter().map(|g| g * scale).collect());
        if w.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
            return None;
        }
        let (mut l, mut u) = (x.clone(), x.clone());
        for (k, &s) in unknown.iter().enumerate() {
            l[s] = x[s] - w[k];
            u[s] = x[s] + w[k];
        }
        let (fl, fu) = (jacobi(rt, &relax, &l), jacobi(rt, &relax, &u));
        let holds = unknown.iter().all(|&s| {
            let margin = |a: f64, b: f64| 4.0 * f64::EPSILON * a.abs().max(b.abs());
            fu[s] <= u[s] - margin(u[s], fu[s]) && fl[s] >= l[s] + margin(l[s], fl[s])
        });
        if holds {
            return Some((l, u));
        }
        scale *= 16.0;
    }
    None
}

/// A dense LU factorisation with partial pivoting, `P A = L U`, stored in place.
struct Lu {
    m: usize,
    a: Vec<f64>,
    perm: Vec<usize>,
}

impl Lu {
    /// Factor the `m x m` row-major matrix `a`; `None` when a pivot vanishes (singular).
    fn factor(mut a: Vec<f64>, m: usize) -> Option<Lu> {
        let mut perm: Vec<usize> = (0..m).collect();
        let scale = a.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        for k in 0..m {
            let p = (k..m)
                .max_by(|&i, &j| a[i * m + k].abs().total_cmp(&a[j * m + k].abs()))
                .expect("a row");
            let pivot = a[p * m + k];
            if !(pivot.abs() > scale * 1e-14) {
                return None;
            }
            if p != k {
                for col in 0..m {
                    a.swap(p * m + col, k * m + col);
                }
                perm.swap(p, k);
            }
            let (top, rest) = a.split_at_mut((k + 1) * m);
            let row_k = &top[k * m..];
            for i in 0..m - k - 1 {
                let row = &mut rest[i * m..(i + 1) * m];
                let f = row[k] / pivot;
                row[k] = f;
                if f != 0.0 {
                    for col in k + 1..m {
                        row[col] -= f * row_k[col];
                    }
                }
            }
        }
        Some(Lu { m, a, perm })
    }

    /// The solution of `A x = b`.
    fn solve(&self, b: Vec<f64>) -> Vec<f64> {
        let m = self.m;
        let mut x: Vec<f64> = self.perm.iter().map(|&p| b[p]).collect();
        for i in 0..m {
            let s: f64 = (0..i).map(|k| self.a[i * m + k] * x[k]).sum();
            x[i] -= s;
        }
        for i in (0..m).rev() {
            let s: f64 = (i + 1..m).map(|k| self.a[i * m + k] * x[k]).sum();
            x[i] = (x[i] - s) / self.a[i * m + i];
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::Lu;

    /// LU against a hand-solved system that needs a row exchange.
    #[test]
    fn lu_solves_with_pivoting() {
        // [0 2 1; 1 1 0; 2 0 3] x = [7, 3, 11] has x = [1, 2, 3] (the first pivot is zero)
        let a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 2.0, 0.0, 3.0];
        let x = Lu::factor(a.clone(), 3)
            .expect("regular")
            .solve(vec![7.0, 3.0, 11.0]);
        for (i, row) in a.chunks(3).enumerate() {
            let got: f64 = row.iter().zip(&x).map(|(p, q)| p * q).sum();
            let want = [7.0, 3.0, 11.0][i];
            assert!((got - want).abs() < 1e-12, "row {i}: {got} vs {want}");
        }
        assert!(
            (x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12 && (x[2] - 3.0).abs() < 1e-12
        );
        assert!(
            Lu::factor(vec![1.0, 2.0, 2.0, 4.0], 2).is_none(),
            "singular"
        );
    }
}
