//! The uniformization step's own layout of the sparse matrix ([`Chain::uniform_plan`]): the
//! columns of `R^T` that move, grouped by their number of nonzeros, each group's rows and rate
//! codes side by side in the order it reads them, `keep` and `take` beside each column; made
//! from the columns of `R` (no transpose is built).
//!
//! Why: a uniformization runs thousands of steps over the same matrix (cluster N=32
//! `P=? [ F<=2000 !"minimum" ]`: 84,265 of a 38,676-state chain). Its columns are short (4.8
//! nonzeros on average there), and a loop over a column of any length ends at a different
//! place every time; within a group every column has the same length, so the loops end where
//! the processor expects, and a group of one to eight nonzeros is unrolled whole. The columns
//! that keep their value (the absorbing states of the transformed chain: `keep` 1, `take` 0)
//! are not read at all: cluster's `F<=2000 !"minimum"` reads 50,945 of the 186,400 nonzeros.
//!
//! The arithmetic of a column is exactly [`RateMatrix::uniform_step`]'s (the same partial
//! sums in the same order), so the iterates are the same bits.
//!
//! [`Chain::uniform_plan`]: crate::Chain::uniform_plan
//! [`RateMatrix::uniform_step`]: crate::RateMatrix::uniform_step

use crate::matrix::{StepAcc, UniformPlan};

/// A stored rate of a plan: a code into its table or the rate itself.
pub(crate) trait Lookup: Copy + Default + 'static {
    type Table: 'static;
    fn get(self, t: &Self::Table) -> f64;
}

impl Lookup for u8 {
    /// Every code has an entry (the table padded to 256), so reading it needs no check.
    type Table = [f64; 256];
    #[inline(always)]
    fn get(self, t: &Self::Table) -> f64 {
        t[self as usize]
    }
}

impl Lookup for u16 {
    type Table = Vec<f64>;
    #[inline(always)]
    fn get(self, t: &Self::Table) -> f64 {
        t[self as usize]
    }
}

impl Lookup for f64 {
    type Table = ();
    #[inline(always)]
    fn get(self, _: &()) -> f64 {
        self
    }
}

/// The plan over `n` states.
pub(crate) struct StepPlan<C: Lookup> {
    n: usize,
    /// `(length, columns)` of each group, in the order the groups are stored.
    groups: Vec<(usize, usize)>,
    /// The moving columns, group after group (increasing within a group).
    cols: Vec<u32>,
    /// `(keep, take)` of each moving column, in the same order.
    kt: Vec<(f64, f64)>,
    /// The nonzeros of the moving columns, column after column in that order. Every entry is
    /// below `n` (checked when the plan is made).
    rows: Vec<u32>,
    codes: Vec<C>,
    table: C::Table,
    /// The columns that keep their value.
    still: Vec<u32>,
}

impl<C: Lookup> StepPlan<C> {
    /// The plan of the `n` columns of lengths `len(j)`, whose entries `fill` gives as `(column,
    /// row, code)`, each column's in increasing row order (columns may be interleaved: the
    /// columns of `R^T` from the columns of `R`, no transpose made). The still columns' entries
    /// are dropped.
    ///
    /// # Panics
    /// When a row index is not below `n`, or the entries do not match the lengths.
    pub(crate) fn new(
        n: usize,
        len: impl Fn(usize) -> u32,
        fill: impl FnOnce(&mut dyn FnMut(usize, u32, C)),
        table: C::Table,
        keep: &[f64],
        take: &[f64],
    ) -> Self {
        assert!(
            keep.len() == n && take.len() == n,
            "keep and take per state"
        );
        const STILL: u32 = u32::MAX;
        let mut still = Vec::new();
        let mut moving: Vec<(u32, u32)> = Vec::with_capacity(n);
        for j in 0..n {
            if keep[j] == 1.0 && take[j] == 0.0 {
                still.push(j as u32);
            } else {
                moving.push((len(j), j as u32));
            }
        }
        moving.sort_unstable();
        let mut groups: Vec<(usize, usize)> = Vec::new();
        let mut cols = Vec::with_capacity(moving.len());
        let mut kt = Vec::with_capacity(moving.len());
        // where each moving column's next entry goes (u32 as the matrix's pointers: a quarter
        // of the states' vectors while the plan is made)
        let mut at = vec![STILL; n];
        let mut nnz = 0u32;
        for &(l, j) in &moving {
            match groups.last_mut() {
                Some((gl, c)) if *gl == l as usize => *c += 1,
                _ => groups.push((l as usize, 1)),
            }
            at[j as usize] = nnz;
            nnz = nnz
                .checked_add(l)
                .filter(|&e| e != STILL)
                .expect("fewer than u32::MAX nonzeros");
            cols.push(j);
            kt.push((keep[j as usize], take[j as usize]));
        }
        let mut rows = vec![0u32; nnz as usize];
        let mut codes = vec![C::default(); nnz as usize];
        fill(&mut |j, i, c| {
            assert!((i as usize) < n, "a row index out of range");
            let p = &mut at[j];
            if *p != STILL {
                rows[*p as usize] = i;
                codes[*p as usize] = c;
                *p += 1;
            }
        });
        let mut end = 0;
        for &(l, j) in &moving {
            end += l;
            assert_eq!(at[j as usize], end, "as many entries as the lengths say");
        }
        StepPlan {
            n,
            groups,
            cols,
            kt,
            rows,
            codes,
            table,
            still,
        }
    }

    /// The columns of one group of length `L` (known when compiled, so its loops unroll).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn fixed<const L: usize>(
        &self,
        cols: &[u32],
        kt: &[(f64, f64)],
        rows: &[u32],
        codes: &[C],
        x: &[f64],
        out: &mut [f64],
        acc: &mut Option<StepAcc<'_>>,
    ) {
        let (rows, _) = rows.as_chunks::<L>();
        let (codes, _) = codes.as_chunks::<L>();
        self.group(cols, kt, rows, codes, x, out, acc);
    }

    /// The columns of one group, `rows` and `codes` one chunk per column.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn group<R: AsRef<[u32]>, K: AsRef<[C]>>(
        &self,
        cols: &[u32],
        kt: &[(f64, f64)],
        rows: impl IntoIterator<Item = R>,
        codes: impl IntoIterator<Item = K>,
        x: &[f64],
        out: &mut [f64],
        acc: &mut Option<StepAcc<'_>>,
    ) {
        let it = cols.iter().zip(kt).zip(rows.into_iter().zip(codes));
        // everything the loops read held in locals, the vectors of one length
        let table = &self.table;
        let n = x.len();
        let out = &mut out[..n];
        match acc {
            None => {
                for ((&j, &(k, t)), (r, c)) in it {
                    let s = dot(r.as_ref(), c.as_ref(), table, x);
                    let j = j as usize;
                    out[j] = x[j] * k + s * t;
                }
            }
            Some(a) => {
                let (lo, hi, cl, ch) = (&mut a.lo[..n], &mut a.hi[..n], a.cl, a.ch);
                for ((&j, &(k, t)), (r, c)) in it {
                    let s = dot(r.as_ref(), c.as_ref(), table, x);
                    let j = j as usize;
                    let v = x[j] * k + s * t;
                    out[j] = v;
                    lo[j] += cl * v;
                    hi[j] += ch * v;
                }
            }
        }
    }
}

/// `sum_k x[rows[k]] * rate(codes[k])` in the order of the sparse matrix's `dot`: four partial
/// sums over the chunks of four, then the rest one by one.
#[inline(always)]
fn dot<C: Lookup>(rows: &[u32], codes: &[C], t: &C::Table, x: &[f64]) -> f64 {
    let (rc, rr) = rows.as_chunks::<4>();
    let (cc, cr) = codes.as_chunks::<4>();
    let mut a = [0.0f64; 4];
    for (r, c) in rc.iter().zip(cc) {
        a[0] += x[r[0] as usize] * c[0].get(t);
        a[1] += x[r[1] as usize] * c[1].get(t);
        a[2] += x[r[2] as usize] * c[2].get(t);
        a[3] += x[r[3] as usize] * c[3].get(t);
    }
    let mut s = (a[0] + a[1]) + (a[2] + a[3]);
    for (&i, &c) in rr.iter().zip(cr) {
        s += x[i as usize] * c.get(t);
    }
    s
}

impl<C: Lookup> UniformPlan for StepPlan<C> {
    fn step(&self, x: &[f64], out: &mut [f64], mut acc: Option<StepAcc<'_>>) {
        let n = self.n;
        assert!(
            x.len() == n && out.len() == n,
            "vectors over the plan's states"
        );
        let (x, out) = (&x[..n], &mut out[..n]);
        let (mut c0, mut k0) = (0usize, 0usize);
        for &(len, count) in &self.groups {
            let cols = &self.cols[c0..c0 + count];
            let kt = &self.kt[c0..c0 + count];
            let rows = &self.rows[k0..k0 + len * count];
            let codes = &self.codes[k0..k0 + len * count];
            let a = &mut acc;
            match len {
                0 => {
                    let none = std::iter::repeat::<&[u32]>(&[]);
                    self.group(cols, kt, none, std::iter::repeat::<&[C]>(&[]), x, out, a)
                }
                1 => self.fixed::<1>(cols, kt, rows, codes, x, out, a),
                2 => self.fixed::<2>(cols, kt, rows, codes, x, out, a),
                3 => self.fixed::<3>(cols, kt, rows, codes, x, out, a),
                4 => self.fixed::<4>(cols, kt, rows, codes, x, out, a),
                5 => self.fixed::<5>(cols, kt, rows, codes, x, out, a),
                6 => self.fixed::<6>(cols, kt, rows, codes, x, out, a),
                7 => self.fixed::<7>(cols, kt, rows, codes, x, out, a),
                8 => self.fixed::<8>(cols, kt, rows, codes, x, out, a),
                _ => self.group(
                    cols,
                    kt,
                    rows.chunks_exact(len),
                    codes.chunks_exact(len),
                    x,
                    out,
                    a,
                ),
            }
            c0 += count;
            k0 += len * count;
        }
        if let Some(a) = acc {
            for &j in &self.still {
                let v = out[j as usize];
                a.lo[j as usize] += a.cl * v;
                a.hi[j as usize] += a.ch * v;
            }
        }
    }

    fn bytes(&self) -> u64 {
        (self.cols.len() * 4
            + self.kt.len() * 16
            + self.rows.len() * 4
            + self.codes.len() * std::mem::size_of::<C>()
            + self.still.len() * 4) as u64
    }
}

#[cfg(test)]
mod tests {
    use crate::matrix::{RateMatrix, StepAcc};
    use crate::sparse::SparseMatrix;

    /// The plan's step is the transposed matrix's `uniform_step` bit for bit, with and without the
    /// accumulation, at every code width, with columns of every length from 0 to past 8 and
    /// still columns (their value kept, their accumulation added).
    #[test]
    fn plan_steps_are_uniform_steps_bit_for_bit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for distinct in [5u64, 300, 1 << 40] {
            let n = if distinct > 65_536 { 12_000 } else { 300usize };
            let mut t = Vec::new();
            for i in 0..n {
                let len = (next() % 13) as usize;
                for _ in 0..len {
                    let j = (next() % n as u64) as u32;
                    let v = 0.25 + (next() % distinct) as f64 / 7.0;
                    t.push((j, i as u32, v));
                }
            }
            let m = SparseMatrix::from_triples(n, t);
            // a byte per code, two, the rates themselves
            let d = m.distinct_rates();
            let width = match distinct {
                5 => (1..=256).contains(&d),
                300 => (257..=65_536).contains(&d),
                _ => d == 0,
            };
            assert!(width, "{distinct}: {d} distinct rates stored");
            // the plan is made from R's columns; the steps it replaces go over R^T's
            let rt = m.transpose();
            let v = rt.view();
            // every fifth column still (keep 1, take 0)
            let (keep, take): (Vec<f64>, Vec<f64>) = (0..n)
                .map(|j| match j % 5 {
                    0 => (1.0, 0.0),
                    _ => (0.5 + j as f64 / 1e3, 0.01 + j as f64 / 1e5),
                })
                .unzip();
            let plan = m.transposed_plan(&keep, &take);
            let x: Vec<f64> = (0..n).map(|_| (next() % 1000) as f64 / 999.0).collect();
            for with_acc in [false, true] {
                let (mut lo, mut hi) = (vec![0.5; n], vec![0.75; n]);
                let (mut lo2, mut hi2) = (lo.clone(), hi.clone());
                let acc = |lo, hi| StepAcc {
                    lo,
                    hi,
                    cl: 0.3,
                    ch: 0.7,
                };
                let mut want = vec![0.0; n];
                v.uniform_step(
                    &x,
                    &mut want,
                    &keep,
                    &take,
                    with_acc.then(|| acc(&mut lo, &mut hi)),
                );
                let mut got = x.clone();
                plan.step(&x, &mut got, with_acc.then(|| acc(&mut lo2, &mut hi2)));
                let bits = |v: &[f64]| v.iter().map(|a| a.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{distinct} distinct rates");
                assert_eq!(bits(&lo2), bits(&lo));
                assert_eq!(bits(&hi2), bits(&hi));
            }
        }
    }
}
