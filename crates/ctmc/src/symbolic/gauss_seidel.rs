//! The two-phase Gauss-Seidel sweep (thesis Figures 6.3 and 6.4) over any source of the matrix
//! entries in traversal order (the plain recursion or the split-point cache).
//!
//! For the forward order (columns by increasing index) the sweep must compute, column after
//! column, `x[j] <- f(j, sum_{i>j} x_old[i] R[i,j] + sum_{i<j} x_new[i] R[i,j])`. Phase one
//! (*GSForward*) visits the entries with `i ≻ j` in lexicographic order of `i||j` and adds
//! `x[i] R[i,j]` into `x[j]` in place: by Lemma 18 every read of `x_old[j]` (entries `j||k`,
//! `k ≺ j`) comes before the first write into `x[j]` (entries `i||j`, `i ≻ j`), and every read
//! of `x_old[i]` before any write into `x[i]`. A bit per state tells whether `x[j]` holds the
//! old value or the partial sum (the thesis negates the vector instead; a bit also works for
//! zeros and negative values). Phase two (*GSBackward*) visits the entries with `i ≺ j` in the
//! same order; before it reads `x[i]` it finalises every column up to `i` in order
//! (`x[c] <- f(c, partial sum)`): by Lemmas 16-17 every entry `k||c` with `k ≺ c ≤ i` comes
//! before `i||j`, so those columns are complete. The remaining columns are finalised at the
//! end. The backward order mirrors all of this (entries in reverse order, phases swapped).

use super::walk::{Entries, Part};
use crate::Sweep;

/// One bit per state.
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Bits(vec![0; n.div_ceil(64)])
    }
    #[inline]
    fn get(&self, i: usize) -> bool {
        self.0[i >> 6] >> (i & 63) & 1 != 0
    }
    #[inline]
    fn set(&mut self, i: usize) {
        self.0[i >> 6] |= 1 << (i & 63);
    }
}

/// `x[d] += x[s] · rate`, where `x[d]` still holding its old value counts as `0`.
#[inline]
fn accumulate(x: &mut [f64], partial: &mut Bits, s: usize, d: usize, rate: f64) {
    let v = x[s] * rate;
    if partial.get(d) {
        x[d] += v;
    } else {
        x[d] = v;
        partial.set(d);
    }
}

/// Thesis Figures 6.3-6.4: one in-place Gauss-Seidel sweep in two phases (see the module
/// documentation), calling `f` once per column in `order`.
pub fn two_phase_sweep<E: Entries>(
    entries: &E,
    x: &mut [f64],
    order: Sweep,
    f: &mut dyn FnMut(usize, f64) -> f64,
) {
    let n = x.len();
    let (first, second, rev) = match order {
        Sweep::Forward => (Part::Down, Part::Up, false),
        Sweep::Backward => (Part::Up, Part::Down, true),
    };
    let mut partial = Bits::new(n);
    // phase one: sums over the entries coming from columns not yet swept
    entries.for_each(first, rev, &mut |s, d, rate| {
        accumulate(x, &mut partial, s, d, rate)
    });
    // phase two: entries from swept columns, each column finalised before it is read
    let mut done = 0usize; // columns finalised so far
    let mut finalise = |x: &mut [f64], c: usize, partial: &Bits| {
        let sum = if partial.get(c) { x[c] } else { 0.0 };
        x[c] = f(c, sum);
    };
    entries.for_each(second, rev, &mut |s, d, rate| {
        // finalise every column up to `s` in sweep order
        let upto = if rev { n - s } else { s + 1 };
        while done < upto {
            let c = if rev { n - 1 - done } else { done };
            finalise(x, c, &partial);
            done += 1;
        }
        accumulate(x, &mut partial, s, d, rate)
    });
    while done < n {
        let c = if rev { n - 1 - done } else { done };
        finalise(x, c, &partial);
        done += 1;
    }
}
