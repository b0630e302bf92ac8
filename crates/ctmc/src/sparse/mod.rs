//! The explicit sparse engine (`--engine sparse`): the rate matrix `R` of a [`GeneralModel`]'s
//! reachable states in compressed sparse columns ([`matrix`]), the baseline the EV*MDD engine
//! is measured against.
//!
//! The reachable states come from the symbolic generation (`saturn_symbolic::encode`); state
//! `i` is the `i`-th reachable state in lexicographic order (top level most significant,
//! thesis Definition 15), as for every engine. No table of the states is kept: the index
//! function ([`index`]) ranks a successor and unranks a state from a copy of the reachable-set
//! MDD.
//!
//! PRISM's semantics: the rates of several events between the same pair of states add up;
//! self-loops are not stored in `R` (they change no distribution) but count in PRISM's
//! transition count; a state without successors (a deadlock) gets PRISM's self-loop.

pub mod index;
pub mod matrix;
mod step;

use saturn_dd::{Forest, NodeId};
use saturn_model::{GeneralModel, StepError};

use crate::matrix::{ColumnUpdate, RateMatrix, Relaxation, Sweep, SweepStats};
pub use index::StateIndex;
use matrix::{Chunks, RateTable};
pub use matrix::{SparseMatrix, View};

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
    /// The index function of the reachable states (local values per level, top level first).
    index: StateIndex,
    /// Levels `K`.
    levels: usize,
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
    ///
    /// The rows are made one state after the other (the successors of each by the model's
    /// events, ranked by the index function), their rates interned into the table of distinct
    /// rates, then turned into columns (the rows freed).
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
        let index = StateIndex::new(sets, reached, k);
        if index.len() > u32::MAX as u64 {
            return Err(BuildError::TooLarge(index.len().to_string()));
        }
        let count = index.len() as usize;
        let mut ctmc = SparseCtmc {
            r: SparseMatrix::default(),
            exit: Vec::with_capacity(count),
            index,
            levels: k,
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
        let mut row_ptr: Vec<u32> = Vec::with_capacity(count + 1);
        row_ptr.push(0);
        let mut cols = Chunks::new(count);
        let mut rates = RateTable::default();
        let mut row: Vec<(u32, f64)> = Vec::new();
        let mut merged: Vec<(u32, f64)> = Vec::new();
        let mut tup = vec![0u32; k];
        let mut s = vec![0i64; k];
        let (mut exit, mut deadlocks, mut transitions) =
            (Vec::with_capacity(count), Vec::new(), 0u64);
        let c = &ctmc;
        c.index.for_each(&mut |i, t| {
            if i % 65536 == 0 {
                progress(i, count);
            }
            c.values_into(t, &mut s);
            row.clear();
            for e in 0..model.events.len() {
                if let Some((next, rate)) = model.step(e, &s)? {
                    for (v, &x) in next.iter().enumerate() {
                        tup[c.pos[v]] = (x - c.low[v]) as u32;
                    }
                    let j = c
                        .index_of_tuple(&tup)
                        .ok_or_else(|| BuildError::Missing(model.show_state(&next)))?;
                    row.push((j as u32, rate));
                }
            }
            if row.is_empty() {
                deadlocks.push(i);
                transitions += 1;
            }
            row.sort_unstable_by_key(|p| p.0);
            merged.clear();
            let mut last = u32::MAX;
            for &(j, rate) in &row {
                if j == last {
                    if j as usize != i {
                        merged.last_mut().expect("a previous entry").1 += rate;
                    }
                    continue;
                }
                last = j;
                transitions += 1;
                if j as usize != i {
                    merged.push((j, rate));
                }
            }
            exit.push(merged.iter().map(|&(_, v)| v).sum());
            for &(j, rate) in &merged {
                cols.push(j);
                rates.push(rate);
            }
            if rates.len() > u32::MAX as usize {
                return Err(BuildError::TooLarge(format!(
                    "more than {} nonzeros",
                    u32::MAX
                )));
            }
            row_ptr.push(rates.len() as u32);
            Ok(())
        })?;
        progress(count, count);
        ctmc.exit = exit;
        ctmc.deadlocks = deadlocks;
        ctmc.transitions = transitions;
        ctmc.r = SparseMatrix::from_coded_rows(count, row_ptr, cols, rates);
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
        self.index.rank(tup).map(|i| i as usize)
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

    /// The values per variable of the state with local indices `t` (top level first).
    fn values_into(&self, t: &[u32], out: &mut [i64]) {
        for ((o, &p), &l) in out.iter_mut().zip(&self.pos).zip(&self.low) {
            *o = l + t[p] as i64;
        }
    }

    /// The values per variable of state `i`.
    pub fn values(&self, i: usize) -> Vec<i64> {
        let mut t = vec![0u32; self.levels];
        self.index.unrank(i as u64, &mut t);
        let mut out = vec![0i64; self.levels];
        self.values_into(&t, &mut out);
        out
    }

    /// Visit every state in index order with its values per variable; stops at the first
    /// error `f` returns.
    pub fn for_each_state<E>(
        &self,
        f: &mut dyn FnMut(usize, &[i64]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut out = vec![0i64; self.levels];
        self.index.for_each(&mut |i, t| {
            self.values_into(t, &mut out);
            f(i, &out)
        })
    }

    /// Bytes of the state index (the reachable-set diagram it copies).
    pub fn state_bytes(&self) -> u64 {
        self.index.bytes()
    }
}

impl RateMatrix for SparseCtmc {
    fn states(&self) -> usize {
        self.r.states()
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
    fn relaxed_sweep(&self, x: &mut [f64], order: Sweep, r: &Relaxation<'_>) -> SweepStats {
        self.r.view().relaxed_sweep(x, order, r)
    }
    fn uniform_step(
        &self,
        x: &[f64],
        out: &mut [f64],
        keep: &[f64],
        take: &[f64],
        acc: Option<crate::matrix::StepAcc<'_>>,
    ) {
        self.r.view().uniform_step(x, out, keep, take, acc)
    }
    fn memory_bytes(&self) -> u64 {
        self.r.view().memory_bytes() + self.exit.len() as u64 * 8
    }
}
