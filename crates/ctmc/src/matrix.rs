//! The interface between rate-matrix engines and solvers.
//!
//! A CTMC over `n` states (numbered `0..n` by the lexicographic index of the reachable set) is
//! given by its off-diagonal rate matrix `R` (`R[i][j]` = total rate from `i` to `j`, `i != j`,
//! transitions of several events between the same pair added up) and its exit-rate vector
//! `h[i] = sum_j R[i][j]`. Self-loops do not change the distribution and are not stored.
//! Solvers only use the operations below, so the same solver code runs on the explicit sparse
//! engine and on the EV*MDD engine (thesis Figures 6.2-6.7).

use std::cmp::Ordering;

/// Order in which a Gauss-Seidel sweep visits the states (columns of `R`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// Increasing index (the thesis's order).
    Forward,
    /// Decreasing index (PRISM's backwards Gauss-Seidel).
    Backward,
}

/// The solver's part of a Gauss-Seidel sweep ([`RateMatrix::gauss_seidel_sweep`]):
/// `f(lo, sums, xs)` updates the columns `lo..lo + xs.len()` from their incoming sums.
pub type ColumnUpdate<'a> = dyn FnMut(usize, &[f64], &mut [f64]) + 'a;

/// A [`ColumnUpdate`] from a function of one column: `f(j, sum, old)` returns the new `x[j]`.
pub fn per_column(
    mut f: impl FnMut(usize, f64, f64) -> f64,
) -> impl FnMut(usize, &[f64], &mut [f64]) {
    move |lo, sums, xs| {
        for (k, (v, &s)) in xs.iter_mut().zip(sums).enumerate() {
            *v = f(lo + k, s, *v);
        }
    }
}

/// The column update of the solvers' Gauss-Seidel and SOR sweeps, as data, so that an engine
/// can compile it into its sweep ([`RateMatrix::relaxed_sweep`]) rather than call it: column
/// `j` with incoming sum `s` and old value `old` becomes `fixed[j]` where that is given, else
/// `(1 - w) old + w (c[j] + s inv[j])` when `inv[j] > 0`, else stays `old`. The sweep also
/// measures the largest difference between new and old values (relative or absolute, as the
/// solvers' convergence test) and the total of the new values.
#[derive(Clone, Copy)]
pub struct Relaxation<'a> {
    /// The relaxation weight (1 for Gauss-Seidel).
    pub w: f64,
    /// `1 / h[j]` (the diagonal), 0 for a column that keeps its value.
    pub inv: &'a [f64],
    /// The right-hand side `c`, zero when `None`.
    pub rhs: Option<&'a [f64]>,
    /// Columns whose value is given.
    pub fixed: Option<&'a [Option<f64>]>,
    /// Relative difference (`|new - old| / |new|`) rather than absolute.
    pub relative: bool,
}

/// What a relaxed sweep measured: the largest difference between new and old values of a
/// column (NaN when one is NaN), and the total of the new values.
#[derive(Clone, Copy, Debug, Default)]
pub struct SweepStats {
    pub diff: f64,
    pub total: f64,
}

impl Relaxation<'_> {
    /// Update the columns `lo..lo + xs.len()` (see the type), accumulating into `m`.
    #[inline(always)]
    pub fn update(&self, lo: usize, sums: &[f64], xs: &mut [f64], m: &mut SweepStats) {
        match (self.rhs.is_some(), self.fixed.is_some()) {
            (false, false) => self.update_as::<false, false>(lo, sums, xs, m),
            (true, false) => self.update_as::<true, false>(lo, sums, xs, m),
            (false, true) => self.update_as::<false, true>(lo, sums, xs, m),
            (true, true) => self.update_as::<true, true>(lo, sums, xs, m),
        }
    }

    /// [`Self::update`] for a relaxation with a right-hand side iff `RHS` and given columns
    /// iff `FIXED` (what the caller checked), so that each kind compiles to its own loop.
    #[inline(always)]
    fn update_as<const RHS: bool, const FIXED: bool>(
        &self,
        lo: usize,
        sums: &[f64],
        xs: &mut [f64],
        m: &mut SweepStats,
    ) {
        let hi = lo + xs.len();
        let (w, relative, inv) = (self.w, self.relative, &self.inv[lo..hi]);
        let rhs = if RHS {
            self.rhs.map(|c| &c[lo..hi])
        } else {
            None
        };
        let fixed = if FIXED {
            self.fixed.map(|f| &f[lo..hi])
        } else {
            None
        };
        let (mut d, mut t) = (m.diff, 0.0);
        for (k, ((v, &s), &i)) in xs.iter_mut().zip(sums).zip(inv).enumerate() {
            let old = *v;
            let given = if FIXED {
                fixed.and_then(|f| f[k])
            } else {
                None
            };
            let new = match given {
                Some(g) => g,
                None if i > 0.0 => {
                    let c = if RHS { rhs.map_or(0.0, |c| c[k]) } else { 0.0 };
                    (1.0 - w) * old + w * (c + s * i)
                }
                None => old,
            };
            see(&mut d, new, old, relative);
            t += new;
            *v = new;
        }
        m.diff = d;
        m.total += t;
    }
}

/// `d <- max(d, |new - old|)` (divided by `|new|` when `relative` and `new != 0`; equal values
/// differ by nothing, also two infinities; a NaN wins), without a division unless the
/// difference grows: one comparison, the branch almost always the same way.
#[inline(always)]
pub fn see(d: &mut f64, new: f64, old: f64, relative: bool) {
    let scale = if relative && new != 0.0 {
        new.abs()
    } else {
        1.0
    };
    // an unordered comparison (a NaN) takes the exact path
    let within = matches!(
        (new - old).abs().partial_cmp(&(*d * scale)),
        Some(Ordering::Less | Ordering::Equal)
    );
    if !within {
        let r = if new == old {
            0.0
        } else {
            (new - old).abs() / scale
        };
        if r > *d || r.is_nan() {
            *d = r;
        }
    }
}

/// An off-diagonal rate matrix `R` over `states()` states.
pub trait RateMatrix {
    /// Number of states `n`.
    fn states(&self) -> usize;

    /// Number of stored nonzero off-diagonal entries (distinct `(i, j)` pairs, `i != j`).
    fn nonzeros(&self) -> u64;

    /// Exit rates `h[i] = sum_{j != i} R[i][j]`, length `n`.
    fn exit_rates(&self) -> Vec<f64>;

    /// `y[j] += sum_i x[i] * R[i][j]` for every `j` (the vector-matrix product `x R`, added
    /// into `y`). Jacobi (Figure 6.2) and power iteration are built on it.
    fn vec_mul_add(&self, x: &[f64], y: &mut [f64]);

    /// One in-place Gauss-Seidel sweep over the columns of `R` in `order`: each column `j` in
    /// turn gets its new value from `sum_{i != j} x[i] * R[i][j]`, where the sum uses the values
    /// of `x` as updated so far in this sweep. The update is the solver's (the diagonal, the
    /// relaxation and any right-hand side): the sweep calls `f(lo, sums, xs)` on blocks of
    /// consecutive columns `lo..lo + xs.len()`, every column once, the blocks in sweep order;
    /// `sums[k]` is the incoming sum of column `lo + k` and `xs[k]` its old value, which `f`
    /// overwrites with the new one (each column on its own: the order within a block is not
    /// the sweep's). Blocks rather than single columns, so that the sweep makes one dynamic
    /// call per block and `f` a loop the compiler can vectorise. Figures 6.3-6.4 (and 6.6-6.7
    /// with the cache) are implementations of this for an EV*MDD.
    fn gauss_seidel_sweep(&self, x: &mut [f64], order: Sweep, f: &mut ColumnUpdate<'_>);

    /// The solvers' sweep: [`Self::gauss_seidel_sweep`] with the update `r`, returning what
    /// it measured. Engines override it to compile the update into their sweep (the default
    /// calls it through `gauss_seidel_sweep`).
    fn relaxed_sweep(&self, x: &mut [f64], order: Sweep, r: &Relaxation<'_>) -> SweepStats {
        let mut m = SweepStats::default();
        self.gauss_seidel_sweep(x, order, &mut |lo, sums, xs| r.update(lo, sums, xs, &mut m));
        m
    }

    /// One step of uniformization over the columns of this matrix (`R^T` for a backward
    /// step): `out[j] = keep[j] x[j] + take[j] (x R)[j]`, then, with `acc`, `acc.lo[j] +=
    /// acc.cl out[j]` and `acc.hi[j] += acc.ch out[j]`. Engines override it to do all of it in
    /// one pass over the columns (the default: the product, then the two passes).
    fn uniform_step(
        &self,
        x: &[f64],
        out: &mut [f64],
        keep: &[f64],
        take: &[f64],
        acc: Option<StepAcc<'_>>,
    ) {
        out.fill(0.0);
        self.vec_mul_add(x, out);
        for (o, ((&v, &k), &t)) in out.iter_mut().zip(x.iter().zip(keep).zip(take)) {
            *o = v * k + *o * t;
        }
        if let Some(a) = acc {
            for ((l, h), &v) in a.lo.iter_mut().zip(a.hi.iter_mut()).zip(out.iter()) {
                *l += a.cl * v;
                *h += a.ch * v;
            }
        }
    }

    /// Bytes used to store `R` (and any cache this engine keeps for its sweeps).
    fn memory_bytes(&self) -> u64;
}

/// Repeated uniformization steps over a matrix with fixed `keep` and `take`
/// ([`crate::Chain::uniform_plan`]).
pub trait UniformPlan {
    /// [`RateMatrix::uniform_step`] with the plan's `keep` and `take`, except on the still
    /// columns (`keep` 1 and `take` 0: the absorbing states of a transient analysis), which
    /// are not written: `out` must already hold `x` there (it does when `x` and `out` are
    /// swapped after every step and were equal there at the start). `acc` is added on every
    /// column, the still ones included.
    fn step(&self, x: &[f64], out: &mut [f64], acc: Option<StepAcc<'_>>);

    /// Bytes of the plan.
    fn bytes(&self) -> u64;
}

/// The accumulation of [`RateMatrix::uniform_step`]: `lo += cl out`, `hi += ch out`.
pub struct StepAcc<'a> {
    pub lo: &'a mut [f64],
    pub hi: &'a mut [f64],
    pub cl: f64,
    pub ch: f64,
}
