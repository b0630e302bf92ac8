//! The explicit sparse engine (`--engine sparse`): the rate matrix `R` of a [`GeneralModel`]'s
//! reachable states in compressed sparse rows (and columns), the baseline the EV*MDD engine is
//! measured against.
//!
//! The reachable states come from the symbolic generation (`saturn_symbolic::encode`); they are
//! enumerated from the reachable MDD in lexicographic order (top level most significant), so
//! state `i` is the `i`-th reachable state of thesis Definition 15, as for every engine. A
//! state is stored as its local indices per level, top level first; a successor's index is
//! found by binary search in that sorted table.
//!
//! PRISM's semantics: the rates of several events between the same pair of states add up;
//! self-loops are not stored in `R` (they change no distribution) but count in PRISM's
//! transition count; a state without successors (a deadlock) gets PRISM's self-loop.

use saturn_dd::{Forest, NodeId};
use saturn_model::{GeneralModel, StepError};

use crate::matrix::{ColumnUpdate, RateMatrix, Sweep};

/// A square sparse matrix over `n` states stored both by rows and by columns.
#[derive(Clone, Debug, Default)]
pub struct SparseMatrix {
    n: usize,
    row_ptr: Vec<usize>,
    row_cols: Vec<u32>,
    row_vals: Vec<f64>,
    col_ptr: Vec<usize>,
    col_rows: Vec<u32>,
    col_vals: Vec<f64>,
}

impl SparseMatrix {
    /// The matrix of the triples `(i, j, v)` (each pair at most once, `i != j`), given row by
    /// row in increasing `i` and, within a row, increasing `j`.
    pub fn from_rows(
        n: usize,
        row_ptr: Vec<usize>,
        row_cols: Vec<u32>,
        row_vals: Vec<f64>,
    ) -> Self {
        let nnz = row_cols.len();
        let mut col_ptr = vec![0usize; n + 1];
        for &j in &row_cols {
            col_ptr[j as usize + 1] += 1;
        }
        for j in 0..n {
            col_ptr[j + 1] += col_ptr[j];
        }
        let mut fill = col_ptr.clone();
        let mut col_rows = vec![0u32; nnz];
        let mut col_vals = vec![0f64; nnz];
        for i in 0..n {
            for k in row_ptr[i]..row_ptr[i + 1] {
                let j = row_cols[k] as usize;
                col_rows[fill[j]] = i as u32;
                col_vals[fill[j]] = row_vals[k];
                fill[j] += 1;
            }
        }
        SparseMatrix {
            n,
            row_ptr,
            row_cols,
            row_vals,
            col_ptr,
            col_rows,
            col_vals,
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

    /// The successors of `i` with their rates.
    pub fn row(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.row_ptr[i]..self.row_ptr[i + 1];
        self.row_cols[r.clone()]
            .iter()
            .zip(&self.row_vals[r])
            .map(|(&j, &v)| (j as usize, v))
    }

    /// The predecessors of `j` with their rates.
    pub fn col(&self, j: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.col_ptr[j]..self.col_ptr[j + 1];
        self.col_rows[r.clone()]
            .iter()
            .zip(&self.col_vals[r])
            .map(|(&i, &v)| (i as usize, v))
    }

    /// The matrix as a [`RateMatrix`].
    pub fn view(&self) -> View<'_> {
        View {
            m: self,
            transposed: false,
        }
    }

    /// Its transpose as a [`RateMatrix`], without a copy.
    pub fn transposed(&self) -> View<'_> {
        View {
            m: self,
            transposed: true,
        }
    }

    /// The number of states.
    pub fn states(&self) -> usize {
        self.n
    }

    /// The transpose (rows become columns): a Gauss-Seidel sweep over its columns is a sweep
    /// over the rows of `self`, as the linear systems of unbounded until need.
    pub fn transpose(&self) -> SparseMatrix {
        SparseMatrix {
            n: self.n,
            row_ptr: self.col_ptr.clone(),
            row_cols: self.col_rows.clone(),
            row_vals: self.col_vals.clone(),
            col_ptr: self.row_ptr.clone(),
            col_rows: self.row_cols.clone(),
            col_vals: self.row_vals.clone(),
        }
    }

    /// The sub-matrix over `states` (sorted, distinct), renumbered `0..states.len()` in order.
    pub fn restrict(&self, states: &[u32]) -> SparseMatrix {
        let mut map = rustc_hash::FxHashMap::default();
        for (k, &s) in states.iter().enumerate() {
            map.insert(s, k as u32);
        }
        let mut row_ptr = vec![0usize; states.len() + 1];
        let mut cols = Vec::new();
        let mut vals = Vec::new();
        for (k, &s) in states.iter().enumerate() {
            for (j, v) in self.row(s as usize) {
                if let Some(&jj) = map.get(&(j as u32)) {
                    cols.push(jj);
                    vals.push(v);
                }
            }
            row_ptr[k + 1] = cols.len();
        }
        SparseMatrix::from_rows(states.len(), row_ptr, cols, vals)
    }
}

/// A [`SparseMatrix`] seen as a [`RateMatrix`], as it is or transposed (its rows read as
/// columns, without a copy: a Gauss-Seidel sweep over the columns of the transpose updates
/// `x[s]` from the successors of `s`, as the linear systems of unbounded until need).
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    m: &'a SparseMatrix,
    transposed: bool,
}

impl View<'_> {
    /// `sum_i x[i] M[i][j]` for column `j` of the viewed matrix `M`.
    fn dot(&self, j: usize, x: &[f64]) -> f64 {
        if self.transposed {
            self.m.row(j).map(|(i, v)| x[i] * v).sum()
        } else {
            self.m.col(j).map(|(i, v)| x[i] * v).sum()
        }
    }
}

impl RateMatrix for View<'_> {
    fn states(&self) -> usize {
        self.m.n
    }

    fn nonzeros(&self) -> u64 {
        self.m.row_cols.len() as u64
    }

    fn exit_rates(&self) -> Vec<f64> {
        (0..self.m.n)
            .map(|i| {
                if self.transposed {
                    self.m.col(i).map(|(_, v)| v).sum()
                } else {
                    self.m.row(i).map(|(_, v)| v).sum()
                }
            })
            .collect()
    }

    fn vec_mul_add(&self, x: &[f64], y: &mut [f64]) {
        for (j, yj) in y.iter_mut().enumerate().take(self.m.n) {
            *yj += self.dot(j, x);
        }
    }

    fn gauss_seidel_sweep(&self, x: &mut [f64], order: Sweep, f: &mut ColumnUpdate<'_>) {
        let n = self.m.n;
        let mut step = |j: usize, x: &mut [f64]| {
            let s = self.dot(j, x);
            f(j, &[s], &mut x[j..=j]);
        };
        match order {
            Sweep::Forward => (0..n).for_each(|j| step(j, x)),
            Sweep::Backward => (0..n).rev().for_each(|j| step(j, x)),
        }
    }

    /// Bytes of the matrix (rows and columns); nothing for a transposed view.
    fn memory_bytes(&self) -> u64 {
        if self.transposed {
            return 0;
        }
        let idx = std::mem::size_of::<usize>() as u64;
        let nnz = self.m.row_cols.len() as u64;
        2 * ((self.m.n as u64 + 1) * idx + nnz * 12)
    }
}

/// Why the sparse chain could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// Firing an event in a reachable state is an error (a negative rate, an update out of
    /// range, an evaluation error).
    #[error(transparent)]
    Step(#[from] StepError),
    #[error("too many states for the sparse engine ({0})")]
    TooLarge(String),
    #[error("internal error: successor {0} of a reachable state is not in the reachable set")]
    Missing(String),
}

/// A CTMC over the reachable states of a general model, explicitly.
#[derive(Clone, Debug)]
pub struct SparseCtmc {
    /// The off-diagonal rate matrix.
    pub r: SparseMatrix,
    /// Exit rates `h[i]`.
    pub exit: Vec<f64>,
    /// Levels `K`; state `i`'s local indices are `tuples[i*K..(i+1)*K]`, top level first.
    levels: usize,
    tuples: Vec<u32>,
    /// `pos[v]`: position of variable `v` in a tuple; `low[v]`: its lowest value.
    pos: Vec<usize>,
    low: Vec<i64>,
    /// Indices of the initial states, sorted.
    pub initial: Vec<usize>,
    /// Indices of the deadlock states (no successor; PRISM's self-loop), sorted.
    pub deadlocks: Vec<usize>,
    /// PRISM's transition count: distinct (state, successor) pairs, self-loops included, plus
    /// one self-loop per deadlock.
    pub transitions: u64,
}

impl SparseCtmc {
    /// Build the chain of `model` over the reachable set `reached` of `sets` (quasi-reduced,
    /// one level per variable, `order[k-1]` = the variable at level `k`, local index = value -
    /// low) from the initial set `init` (a node of `sets`, a subset of `reached`). `progress` is called now and then
    /// with the number of states done.
    pub fn build(
        model: &GeneralModel,
        sets: &Forest,
        order: &[usize],
        reached: NodeId,
        init: NodeId,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SparseCtmc, BuildError> {
        let k = order.len();
        let mut pos = vec![0usize; k];
        for (lvl, &v) in order.iter().enumerate() {
            pos[v] = k - 1 - lvl;
        }
        let low: Vec<i64> = model.vars.iter().map(|v| v.low).collect();
        let mut tuples = Vec::new();
        let mut count = 0usize;
        sets.for_each_state(reached, usize::MAX, |t| {
            tuples.extend(t.iter().rev());
            count += 1;
        });
        if count > u32::MAX as usize {
            return Err(BuildError::TooLarge(count.to_string()));
        }
        let mut ctmc = SparseCtmc {
            r: SparseMatrix::default(),
            exit: Vec::new(),
            levels: k,
            tuples,
            pos,
            low,
            initial: Vec::new(),
            deadlocks: Vec::new(),
            transitions: 0,
        };
        let mut initial = Vec::new();
        sets.for_each_state(init, usize::MAX, |t| {
            let tup: Vec<u32> = t.iter().rev().copied().collect();
            if let Some(i) = ctmc.index_of_tuple(&tup) {
                initial.push(i);
            }
        });
        initial.sort_unstable();
        ctmc.initial = initial;
        let mut row_ptr = Vec::with_capacity(count + 1);
        row_ptr.push(0usize);
        let mut cols: Vec<u32> = Vec::new();
        let mut vals: Vec<f64> = Vec::new();
        let mut row: Vec<(u32, f64)> = Vec::new();
        let mut tup = vec![0u32; k];
        for i in 0..count {
            if i % 65536 == 0 {
                progress(i, count);
            }
            let s = ctmc.values(i);
            row.clear();
            for e in 0..model.events.len() {
                if let Some((t, rate)) = model.step(e, &s)? {
                    for (v, &x) in t.iter().enumerate() {
                        tup[ctmc.pos[v]] = (x - ctmc.low[v]) as u32;
                    }
                    let j = ctmc
                        .index_of_tuple(&tup)
                        .ok_or_else(|| BuildError::Missing(model.show_state(&t)))?;
                    row.push((j as u32, rate));
                }
            }
            if row.is_empty() {
                ctmc.deadlocks.push(i);
                ctmc.transitions += 1;
            }
            row.sort_unstable_by_key(|p| p.0);
            let mut last = u32::MAX;
            for &(j, rate) in &row {
                if j == last {
                    if j as usize != i {
                        *vals.last_mut().expect("a previous entry") += rate;
                    }
                    continue;
                }
                last = j;
                ctmc.transitions += 1;
                if j as usize != i {
                    cols.push(j);
                    vals.push(rate);
                }
            }
            row_ptr.push(cols.len());
        }
        progress(count, count);
        ctmc.r = SparseMatrix::from_rows(count, row_ptr, cols, vals);
        ctmc.exit = ctmc.r.view().exit_rates();
        Ok(ctmc)
    }

    /// Number of states.
    pub fn len(&self) -> usize {
        self.exit.len()
    }

    pub fn is_empty(&self) -> bool {
        self.exit.is_empty()
    }

    /// The index of a state given by its local indices, top level first.
    pub fn index_of_tuple(&self, tup: &[u32]) -> Option<usize> {
        let k = self.levels;
        let n = self.tuples.len().checked_div(k).unwrap_or(0);
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.tuples[mid * k..(mid + 1) * k].cmp(tup) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The index of a state given by its values per variable.
    pub fn index_of_values(&self, s: &[i64]) -> Option<usize> {
        let mut tup = vec![0u32; self.levels];
        for (v, &x) in s.iter().enumerate() {
            let l = x - self.low[v];
            tup[self.pos[v]] = u32::try_from(l).ok()?;
        }
        self.index_of_tuple(&tup)
    }

    /// The values per variable of state `i`.
    pub fn values(&self, i: usize) -> Vec<i64> {
        let t = &self.tuples[i * self.levels..(i + 1) * self.levels];
        self.pos
            .iter()
            .zip(&self.low)
            .map(|(&p, &l)| l + t[p] as i64)
            .collect()
    }

    /// Bytes of the state table.
    pub fn state_bytes(&self) -> u64 {
        self.tuples.len() as u64 * 4
    }
}

impl RateMatrix for SparseCtmc {
    fn states(&self) -> usize {
        self.r.n
    }
    fn nonzeros(&self) -> u64 {
        self.r.view().nonzeros()
    }
    fn exit_rates(&self) -> Vec<f64> {
        self.exit.clone()
    }
    fn vec_mul_add(&self, x: &[f64], y: &mut [f64]) {
        self.r.view().vec_mul_add(x, y)
    }
    fn gauss_seidel_sweep(&self, x: &mut [f64], order: Sweep, f: &mut ColumnUpdate<'_>) {
        self.r.view().gauss_seidel_sweep(x, order, f)
    }
    fn memory_bytes(&self) -> u64 {
        self.r.view().memory_bytes() + self.exit.len() as u64 * 8
    }
}
