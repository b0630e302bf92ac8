//! The two-phase Gauss-Seidel sweep (thesis Figures 6.3 and 6.4) over any source of the matrix
//! entries in traversal order (the plain recursion or the split-point cache).
//!
//! For the forward order (columns by increasing index) the sweep must compute, column after
//! column, `x[j] <- f(j, sum_{i>j} x_old[i] R[i,j] + sum_{i<j} x_new[i] R[i,j])`. Phase one
//! (*GSForward*) visits the entries with `i ≻ j` in lexicographic order of `i||j` and adds
//! `x[i] R[i,j]` into the partial sum of `j`. By Lemma 18 every read of `x_old[j]` (entries `j||k`,
//! `k ≺ j`) comes before the first write into `x[j]` (entries `i||j`, `i ≻ j`), and every read
//! of `x_old[i]` before any write into `x[i]`, so the thesis overwrites `x` in place (telling
//! old values from partial sums by their sign). We keep the partial sums in a second vector
//! instead: the in-place test costs an unpredictable branch per entry, and solvers keep the
//! previous iterate for their convergence test anyway (as the thesis's implementation does).
//! Phase two (*GSBackward*) visits the entries with `i ≺ j` in the
//! same order; before it reads `x[i]` it finalises every column up to `i` in order
//! (`x[c] <- f(c, partial sum)`): by Lemmas 16-17 every entry `k||c` with `k ≺ c ≤ i` comes
//! before `i||j`, so those columns are complete. The remaining columns are finalised at the
//! end. The backward order mirrors all of this (entries in reverse order, phases swapped).

use super::walk::{Entries, Part};
use crate::Sweep;

/// Finalise the columns `done..upto` of the sweep order: one call of `f` on the block of
/// columns they are (`x[c] <- f(c, acc[c])`), then their partial sums set back to zero (so the
/// next sweep starts from zero without a pass of its own); returns `upto`. Kept out of line so
/// that the per-entry loop stays small.
#[inline(never)]
pub(crate) fn finalise<F: FnMut(usize, &[f64], &mut [f64]) + ?Sized>(
    x: &mut [f64],
    acc: &mut [f64],
    f: &mut F,
    done: usize,
    upto: usize,
    rev: bool,
) -> usize {
    let n = x.len();
    let (lo, hi) = if rev {
        (n - upto, n - done)
    } else {
        (done, upto)
    };
    if lo < hi {
        f(lo, &acc[lo..hi], &mut x[lo..hi]);
        acc[lo..hi].fill(0.0);
    }
    upto
}

/// Make `acc` the zero vector of length `n` (it is one already between sweeps of one matrix).
pub(crate) fn zeroed(acc: &mut Vec<f64>, n: usize) {
    if acc.len() != n {
        acc.clear();
        acc.resize(n, 0.0);
    }
}

/// Thesis Figures 6.3-6.4: one Gauss-Seidel sweep in two phases (see the module
/// documentation), calling `f` on blocks of columns in `order`. The partial sums go to `acc`
/// (zero on entry, of `x.len()` or resized to it, and zero again on return), so neither phase
/// branches on whether a column has been written yet.
pub fn two_phase_sweep<E: Entries, F: FnMut(usize, &[f64], &mut [f64]) + ?Sized>(
    entries: &E,
    x: &mut [f64],
    order: Sweep,
    f: &mut F,
    acc: &mut Vec<f64>,
) {
    let n = x.len();
    let (first, second, rev) = match order {
        Sweep::Forward => (Part::Down, Part::Up, false),
        Sweep::Backward => (Part::Up, Part::Down, true),
    };
    zeroed(acc, n);
    // phase one: sums over the entries coming from columns not yet swept
    entries.for_each(first, rev, &mut |s, d, rate| acc[d] += x[s] * rate);
    // phase two: entries from swept columns, each column finalised before it is read
    let mut done = 0usize; // columns finalised so far
    entries.for_each(second, rev, &mut |s, d, rate| {
        let upto = if rev { n - s } else { s + 1 };
        if done < upto {
            done = finalise(x, acc, f, done, upto, rev);
        }
        acc[d] += x[s] * rate;
    });
    finalise(x, acc, f, done, n, rev);
}
