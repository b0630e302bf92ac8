//! The interface between rate-matrix engines and solvers.
//!
//! A CTMC over `n` states (numbered `0..n` by the lexicographic index of the reachable set) is
//! given by its off-diagonal rate matrix `R` (`R[i][j]` = total rate from `i` to `j`, `i != j`,
//! transitions of several events between the same pair added up) and its exit-rate vector
//! `h[i] = sum_j R[i][j]`. Self-loops do not change the distribution and are not stored.
//! Solvers only use the operations below, so the same solver code runs on the explicit sparse
//! engine and on the EV*MDD engine (thesis Figures 6.2-6.7).

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

    /// Bytes used to store `R` (and any cache this engine keeps for its sweeps).
    fn memory_bytes(&self) -> u64;
}
