//! The explicit rate matrix: compressed sparse columns (the incoming rates of each state, what
//! the stationary solvers sweep), one orientation only, with each rate stored as a code into a
//! table of the matrix's distinct rates (a byte when there are at most 256 of them, two bytes
//! up to 65,536, the rate itself beyond; the table holds the exact doubles, so nothing is
//! rounded). Row and column indices and column pointers are `u32`. The other orientation (the
//! rows, for the Gauss-Seidel sweeps of the embedded chain's linear systems and for `export`)
//! is built on demand by [`SparseMatrix::transpose`] and dropped after use.

use rustc_hash::FxHashMap;

use super::step::{Lookup, StepPlan};
use crate::matrix::{
    ColumnUpdate, RateMatrix, Relaxation, StepAcc, Sweep, SweepStats, UniformPlan,
};

/// A stored rate: a code into the matrix's table of distinct rates, or the rate itself.
pub(crate) trait Code: Copy {
    fn rate(self, table: &[f64]) -> f64;
}

impl Code for u8 {
    #[inline(always)]
    fn rate(self, table: &[f64]) -> f64 {
        table[self as usize]
    }
}

impl Code for u16 {
    #[inline(always)]
    fn rate(self, table: &[f64]) -> f64 {
        table[self as usize]
    }
}

impl Code for f64 {
    #[inline(always)]
    fn rate(self, _: &[f64]) -> f64 {
        self
    }
}

/// The rates of the nonzeros, one code each.
#[derive(Clone, Debug)]
pub(crate) enum Codes {
    Small(Vec<u8>),
    Mid(Vec<u16>),
    Full(Vec<f64>),
}

impl Default for Codes {
    fn default() -> Self {
        Codes::Small(Vec::new())
    }
}

/// `$body` with `$c` bound to the codes' slice, whatever their width.
macro_rules! with_codes {
    ($codes:expr, $c:ident => $body:expr) => {
        match $codes {
            Codes::Small($c) => $body,
            Codes::Mid($c) => $body,
            Codes::Full($c) => $body,
        }
    };
}

impl Codes {
    fn len(&self) -> usize {
        with_codes!(self, c => c.len())
    }

    fn width(&self) -> usize {
        match self {
            Codes::Small(_) => 1,
            Codes::Mid(_) => 2,
            Codes::Full(_) => 8,
        }
    }
}

/// Rates interned as they come: the table of distinct values (by their bits) and the codes,
/// widened when the table outgrows them.
#[derive(Debug, Default)]
pub(crate) struct RateTable {
    map: FxHashMap<u64, u32>,
    table: Vec<f64>,
    codes: Codes,
}

impl RateTable {
    /// Append the rate `v`.
    pub(crate) fn push(&mut self, v: f64) {
        if let Codes::Full(c) = &mut self.codes {
            c.push(v);
            return;
        }
        let next = self.table.len() as u32;
        let k = *self.map.entry(v.to_bits()).or_insert(next);
        if k == next {
            self.table.push(v);
        }
        match &mut self.codes {
            Codes::Small(c) if k < 256 => c.push(k as u8),
            Codes::Small(c) => {
                let mut w: Vec<u16> = c.iter().map(|&x| x as u16).collect();
                w.push(k as u16);
                self.codes = Codes::Mid(w);
            }
            Codes::Mid(c) if k < 65_536 => c.push(k as u16),
            Codes::Mid(c) => {
                let mut w: Vec<f64> = c.iter().map(|&x| self.table[x as usize]).collect();
                w.push(v);
                self.codes = Codes::Full(w);
                self.table = Vec::new();
                self.map = FxHashMap::default();
            }
            Codes::Full(_) => unreachable!("handled above"),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.codes.len()
    }
}

/// A square sparse matrix over `n` states stored by columns.
#[derive(Clone, Debug, Default)]
pub struct SparseMatrix {
    n: usize,
    col_ptr: Vec<u32>,
    rows: Vec<u32>,
    table: Vec<f64>,
    codes: Codes,
}

/// Compressed by major index (`ptr` over `n` majors, `idx` the minor indices, `codes`) to
/// compressed by minor index: the pointers, the major indices and the codes, each minor's
/// entries in increasing major order.
///
/// The minor indices come as an iterator (read once, in order), so that a caller can free them
/// as they are read ([`Chunks`]); `counts[j]` is the number of entries of minor `j`.
fn swap_major<C: Code + Default>(
    n: usize,
    ptr: &[u32],
    counts: &[u32],
    mut idx: impl Iterator<Item = u32>,
    codes: &[C],
) -> (Vec<u32>, Vec<u32>, Vec<C>) {
    let mut out_ptr = vec![0u32; n + 1];
    for j in 0..n {
        out_ptr[j + 1] = out_ptr[j] + counts[j];
    }
    let mut fill = out_ptr[..n].to_vec();
    let nnz = ptr[n] as usize;
    let mut out_idx = vec![0u32; nnz];
    let mut out_codes = vec![C::default(); nnz];
    for i in 0..n {
        for k in ptr[i] as usize..ptr[i + 1] as usize {
            let j = idx.next().expect("an index per entry") as usize;
            let p = fill[j] as usize;
            out_idx[p] = i as u32;
            out_codes[p] = codes[k];
            fill[j] += 1;
        }
    }
    (out_ptr, out_idx, out_codes)
}

/// [`swap_major`] whatever the width of the codes.
fn swap_codes(
    n: usize,
    ptr: &[u32],
    counts: &[u32],
    idx: impl Iterator<Item = u32>,
    codes: &Codes,
) -> (Vec<u32>, Vec<u32>, Codes) {
    match codes {
        Codes::Small(c) => {
            let (p, r, c) = swap_major(n, ptr, counts, idx, c);
            (p, r, Codes::Small(c))
        }
        Codes::Mid(c) => {
            let (p, r, c) = swap_major(n, ptr, counts, idx, c);
            (p, r, Codes::Mid(c))
        }
        Codes::Full(c) => {
            let (p, r, c) = swap_major(n, ptr, counts, idx, c);
            (p, r, Codes::Full(c))
        }
    }
}

/// Entries of a chunk of [`Chunks`] (4 MiB: mapped apart, and given back when freed).
const CHUNK: usize = 1 << 20;

/// The column indices of the rows as they are made, in chunks, so that turning them into
/// columns frees them chunk by chunk (the rows and the columns are never both whole in
/// memory), and the number of entries of each column.
#[derive(Debug)]
pub(crate) struct Chunks {
    chunks: Vec<Vec<u32>>,
    counts: Vec<u32>,
}

impl Chunks {
    pub(crate) fn new(n: usize) -> Chunks {
        Chunks {
            chunks: Vec::new(),
            counts: vec![0; n],
        }
    }

    pub(crate) fn push(&mut self, j: u32) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(j),
            _ => {
                let mut c = Vec::with_capacity(CHUNK);
                c.push(j);
                self.chunks.push(c);
            }
        }
        self.counts[j as usize] += 1;
    }
}

impl SparseMatrix {
    /// The matrix of the triples `(i, j, v)` (each pair at most once, `i != j`), given row by
    /// row in increasing `i` and, within a row, increasing `j`.
    ///
    /// # Panics
    /// With more than `u32::MAX` nonzeros.
    pub fn from_rows(
        n: usize,
        row_ptr: Vec<usize>,
        row_cols: Vec<u32>,
        row_vals: Vec<f64>,
    ) -> Self {
        let mut rates = RateTable::default();
        row_vals.iter().for_each(|&v| rates.push(v));
        let ptr: Vec<u32> = row_ptr
            .iter()
            .map(|&p| u32::try_from(p).expect("at most u32::MAX nonzeros"))
            .collect();
        let mut cols = Chunks::new(n);
        row_cols.iter().for_each(|&j| cols.push(j));
        SparseMatrix::from_coded_rows(n, ptr, cols, rates)
    }

    /// The matrix of rows given as pointers, columns and interned rates (see
    /// [`SparseMatrix::from_rows`]); the rows' columns are freed as the columns are made.
    pub(crate) fn from_coded_rows(
        n: usize,
        row_ptr: Vec<u32>,
        row_cols: Chunks,
        rates: RateTable,
    ) -> Self {
        let RateTable { table, codes, .. } = rates;
        let Chunks { chunks, counts } = row_cols;
        let idx = chunks.into_iter().flatten();
        let (col_ptr, rows, codes) = swap_codes(n, &row_ptr, &counts, idx, &codes);
        SparseMatrix {
            n,
            col_ptr,
            rows,
            table,
            codes,
        }
    }

    /// The matrix of a list of triples (duplicates added up, diagonal entries dropped).
    pub fn from_triples(n: usize, mut t: Vec<(u32, u32, f64)>) -> Self {
        t.retain(|&(i, j, v)| i != j && v != 0.0);
        t.sort_by_key(|&(i, j, _)| (i, j));
        let mut row_ptr = vec![0usize; n + 1];
        let mut cols = Vec::with_capacity(t.len());
        let mut vals: Vec<f64> = Vec::with_capacity(t.len());
        let mut last = None;
        for (i, j, v) in t {
            if last == Some((i, j)) {
                *vals.last_mut().expect("a previous entry") += v;
                continue;
            }
            last = Some((i, j));
            row_ptr[i as usize + 1] += 1;
            cols.push(j);
            vals.push(v);
        }
        for i in 0..n {
            row_ptr[i + 1] += row_ptr[i];
        }
        SparseMatrix::from_rows(n, row_ptr, cols, vals)
    }

    fn span(&self, j: usize) -> std::ops::Range<usize> {
        self.col_ptr[j] as usize..self.col_ptr[j + 1] as usize
    }

    /// The predecessors of `j` (increasing).
    pub(crate) fn col_rows(&self, j: usize) -> &[u32] {
        &self.rows[self.span(j)]
    }

    /// The predecessors of `j` with their rates.
    pub fn col(&self, j: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.span(j);
        let table = &self.table;
        let rows = &self.rows[r.clone()];
        (0..rows.len()).map(move |k| {
            let v = with_codes!(&self.codes, c => c[r.start + k].rate(table));
            (rows[k] as usize, v)
        })
    }

    /// The matrix as a [`RateMatrix`].
    pub fn view(&self) -> View<'_> {
        View { m: self }
    }

    /// The number of states.
    pub fn states(&self) -> usize {
        self.n
    }

    /// The number of nonzeros.
    pub fn nonzeros(&self) -> usize {
        self.rows.len()
    }

    /// The number of distinct rates when they are stored as codes into a table (0 when each
    /// nonzero keeps its rate).
    pub fn distinct_rates(&self) -> usize {
        self.table.len()
    }

    /// The transpose (rows become columns), built anew: its column `i` is the row `i` of
    /// `self` (the successors of `i`), what a Gauss-Seidel sweep of the linear systems of
    /// unbounded until reads.
    pub fn transpose(&self) -> SparseMatrix {
        let mut counts = vec![0u32; self.n];
        for &i in &self.rows {
            counts[i as usize] += 1;
        }
        let idx = self.rows.iter().copied();
        let (col_ptr, rows, codes) = swap_codes(self.n, &self.col_ptr, &counts, idx, &self.codes);
        SparseMatrix {
            n: self.n,
            col_ptr,
            rows,
            table: self.table.clone(),
            codes,
        }
    }

    /// The sub-matrix over `states` (sorted, distinct), renumbered `0..states.len()` in order.
    pub fn restrict(&self, states: &[u32]) -> SparseMatrix {
        const OUT: u32 = u32::MAX;
        let mut map = vec![OUT; self.n];
        for (k, &s) in states.iter().enumerate() {
            map[s as usize] = k as u32;
        }
        let mut col_ptr = Vec::with_capacity(states.len() + 1);
        col_ptr.push(0u32);
        let mut rows = Vec::new();
        fn keep<C: Code>(
            m: &SparseMatrix,
            c: &[C],
            states: &[u32],
            map: &[u32],
            col_ptr: &mut Vec<u32>,
            rows: &mut Vec<u32>,
        ) -> Vec<C> {
            let mut out = Vec::new();
            for &s in states {
                for k in m.span(s as usize) {
                    let i = map[m.rows[k] as usize];
                    if i != OUT {
                        rows.push(i);
                        out.push(c[k]);
                    }
                }
                col_ptr.push(rows.len() as u32);
            }
            out
        }
        let (cp, rs) = (&mut col_ptr, &mut rows);
        let codes = match &self.codes {
            Codes::Small(c) => Codes::Small(keep(self, c, states, &map, cp, rs)),
            Codes::Mid(c) => Codes::Mid(keep(self, c, states, &map, cp, rs)),
            Codes::Full(c) => Codes::Full(keep(self, c, states, &map, cp, rs)),
        };
        SparseMatrix {
            n: states.len(),
            col_ptr,
            rows,
            table: self.table.clone(),
            codes,
        }
    }

    /// The plan of uniformization steps over the transpose (`R^T` of this `R`: the backward
    /// step), made from these columns without the transpose ([`crate::Chain::uniform_plan`]).
    pub(crate) fn transposed_plan(&self, keep: &[f64], take: &[f64]) -> Box<dyn UniformPlan> {
        fn plan<C: Lookup>(
            m: &SparseMatrix,
            c: &[C],
            table: C::Table,
            keep: &[f64],
            take: &[f64],
        ) -> Box<dyn UniformPlan> {
            let mut len = vec![0u32; m.n];
            m.rows.iter().for_each(|&i| len[i as usize] += 1);
            // the columns of R in increasing order: each row's entries by increasing column,
            // as the transpose has them
            let fill = |put: &mut dyn FnMut(usize, u32, C)| {
                for j in 0..m.n {
                    for k in m.span(j) {
                        put(m.rows[k] as usize, j as u32, c[k]);
                    }
                }
            };
            Box::new(StepPlan::new(m.n, |i| len[i], fill, table, keep, take))
        }
        match &self.codes {
            Codes::Small(c) => {
                let mut t = [0.0f64; 256];
                t[..self.table.len()].copy_from_slice(&self.table);
                plan(self, c, t, keep, take)
            }
            Codes::Mid(c) => plan(self, c, self.table.clone(), keep, take),
            Codes::Full(c) => plan(self, c, (), keep, take),
        }
    }

    /// Bytes of the matrix: the column pointers, the row indices, the codes and the table.
    pub fn bytes(&self) -> u64 {
        (self.col_ptr.len() * 4 + self.rows.len() * (4 + self.codes.width()) + self.table.len() * 8)
            as u64
    }

    /// One Gauss-Seidel pass over the columns in `order`: `step(j, sum)` with the incoming sum
    /// of column `j` as `x` stands.
    fn sweep_with(
        &self,
        x: &mut [f64],
        order: Sweep,
        mut step: impl FnMut(usize, f64, &mut [f64]),
    ) {
        with_codes!(&self.codes, c => {
            let mut one = |j: usize, x: &mut [f64]| {
                let r = self.span(j);
                let s = dot(&self.rows[r.clone()], &c[r], &self.table, x);
                step(j, s, x);
            };
            match order {
                Sweep::Forward => (0..self.n).for_each(|j| one(j, x)),
                Sweep::Backward => (0..self.n).rev().for_each(|j| one(j, x)),
            }
        })
    }
}

/// `sum_k x[rows[k]] * rate(codes[k])`, in four partial sums: one running sum makes every
/// product wait for the addition before it (four cycles each), four overlap.
#[inline(always)]
fn dot<C: Code>(rows: &[u32], codes: &[C], table: &[f64], x: &[f64]) -> f64 {
    let mut rc = rows.chunks_exact(4);
    let mut cc = codes.chunks_exact(4);
    let mut a = [0.0f64; 4];
    for (r, c) in (&mut rc).zip(&mut cc) {
        a[0] += x[r[0] as usize] * c[0].rate(table);
        a[1] += x[r[1] as usize] * c[1].rate(table);
        a[2] += x[r[2] as usize] * c[2].rate(table);
        a[3] += x[r[3] as usize] * c[3].rate(table);
    }
    let mut s = (a[0] + a[1]) + (a[2] + a[3]);
    for (&i, &c) in rc.remainder().iter().zip(cc.remainder()) {
        s += x[i as usize] * c.rate(table);
    }
    s
}

/// A [`SparseMatrix`] seen as a [`RateMatrix`].
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    m: &'a SparseMatrix,
}

impl RateMatrix for View<'_> {
    fn states(&self) -> usize {
        self.m.n
    }

    fn nonzeros(&self) -> u64 {
        self.m.rows.len() as u64
    }

    /// The row sums, added up column by column (so each in increasing column order).
    fn exit_rates(&self) -> Vec<f64> {
        let mut h = vec![0.0; self.m.n];
        for j in 0..self.m.n {
            for (i, v) in self.m.col(j) {
                h[i] += v;
            }
        }
        h
    }

    fn vec_mul_add(&self, x: &[f64], y: &mut [f64]) {
        let m = self.m;
        with_codes!(&m.codes, c => {
            for (j, yj) in y.iter_mut().enumerate().take(m.n) {
                let r = m.span(j);
                *yj += dot(&m.rows[r.clone()], &c[r], &m.table, x);
            }
        })
    }

    fn gauss_seidel_sweep(&self, x: &mut [f64], order: Sweep, f: &mut ColumnUpdate<'_>) {
        self.m
            .sweep_with(x, order, |j, s, x| f(j, &[s], &mut x[j..=j]));
    }

    /// The product, the step and the accumulation in one pass over the columns: the iterate
    /// is read once, no product vector is zeroed, written and read again (on polling N=14,
    /// 344,064 states, a third less memory traffic per step).
    fn uniform_step(
        &self,
        x: &[f64],
        out: &mut [f64],
        keep: &[f64],
        take: &[f64],
        acc: Option<StepAcc<'_>>,
    ) {
        let m = self.m;
        with_codes!(&m.codes, c => {
            match acc {
                None => {
                    for j in 0..m.n {
                        let r = m.span(j);
                        let s = dot(&m.rows[r.clone()], &c[r], &m.table, x);
                        out[j] = x[j] * keep[j] + s * take[j];
                    }
                }
                Some(a) => {
                    for j in 0..m.n {
                        let r = m.span(j);
                        let s = dot(&m.rows[r.clone()], &c[r], &m.table, x);
                        let v = x[j] * keep[j] + s * take[j];
                        out[j] = v;
                        a.lo[j] += a.cl * v;
                        a.hi[j] += a.ch * v;
                    }
                }
            }
        })
    }

    /// The update inlined column by column (no call through the solver's closure).
    fn relaxed_sweep(&self, x: &mut [f64], order: Sweep, r: &Relaxation<'_>) -> SweepStats {
        let mut m = SweepStats::default();
        self.m
            .sweep_with(x, order, |j, s, x| r.update(j, &[s], &mut x[j..=j], &mut m));
        m
    }

    fn memory_bytes(&self) -> u64 {
        self.m.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rates are kept exactly whatever their number: a byte per rate up to 256 distinct
    /// values, two up to 65,536, the rate itself beyond; the columns and the transpose hold the
    /// same entries as the triples.
    #[test]
    fn rates_are_exact_at_every_width() {
        for (distinct, width) in [
            (3usize, 1usize),
            (256, 1),
            (257, 2),
            (65_536, 2),
            (65_537, 8),
        ] {
            let n = 400usize;
            let mut t = Vec::new();
            let mut k = 0usize;
            'fill: for i in 0..n {
                for j in 0..n {
                    if i == j {
                        continue;
                    }
                    if t.len() == distinct + 50 {
                        break 'fill;
                    }
                    // distinct values first, then repeats
                    let v = 0.1 + (k % distinct) as f64 / 3.0;
                    t.push((i as u32, j as u32, v));
                    k += 1;
                }
            }
            let m = SparseMatrix::from_triples(n, t.clone());
            assert_eq!(m.codes.width(), width, "{distinct} distinct rates");
            assert_eq!(m.nonzeros(), t.len());
            let mut got: Vec<(u32, u32, f64)> = (0..n)
                .flat_map(|j| m.col(j).map(move |(i, v)| (i as u32, j as u32, v)))
                .collect();
            got.sort_by_key(|&(i, j, _)| (i, j));
            assert_eq!(got, t);
            let rows = m.transpose();
            let back: Vec<(u32, u32, f64)> = (0..n)
                .flat_map(|i| rows.col(i).map(move |(j, v)| (i as u32, j as u32, v)))
                .collect();
            assert_eq!(back, t);
        }
    }
}
