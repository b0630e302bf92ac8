//! Other matrices over the same EV*MxD forest as a [`RateMatrix`]: the transpose `R^T` (the
//! embedded chain of unbounded until sweeps the rows of `R`, i.e. the columns of `R^T`), and
//! `R` restricted to a subset of the states (a recurrent class solved on its own), indexed by
//! the subset's own lexicographic index function. Each is a [`Walker`] over a matrix root and
//! an index EV+MDD, optionally with its own split-point cache; the sweeps are those of
//! Figures 6.2-6.4 (6.6-6.7 with the cache).

use std::sync::Mutex;

use saturn_dd::ev::{Ev, EvPlusForest};
use saturn_dd::{Forest, NodeId};

use super::build::overflow;
use super::cache::SplitCache;
use super::gauss_seidel::two_phase_sweep;
use super::walk::{Entries, Part, Walker};
use super::{BuildError, SymbolicCtmc};
use crate::matrix::{Relaxation, SweepStats};
use crate::{ColumnUpdate, RateMatrix, Sweep};

/// A matrix of the chain's forest, seen through an index function.
pub struct MatrixView<'a> {
    walker: Walker<'a>,
    states: usize,
    nonzeros: u64,
    cache: Option<SplitCache>,
    scratch: Mutex<Vec<f64>>,
}

impl<'a> MatrixView<'a> {
    fn new(walker: Walker<'a>, states: usize, threshold: Option<u64>) -> MatrixView<'a> {
        let mut nonzeros = 0u64;
        walker.for_each(Part::All, false, &mut |_, _, _| nonzeros += 1);
        let cache = threshold.map(|t| SplitCache::build(&walker, t));
        MatrixView {
            walker,
            states,
            nonzeros,
            cache,
            scratch: Mutex::new(Vec::new()),
        }
    }

    fn ops(&self) -> Ops<'_> {
        Ops {
            walker: Walker { ..self.walker },
            cache: self.cache.as_ref(),
            scratch: &self.scratch,
            states: self.states,
        }
    }
}

/// The [`RateMatrix`] operations over a walker or its split-point cache: what the chain's own
/// `R` and every [`MatrixView`] share.
pub(crate) struct Ops<'a> {
    pub(crate) walker: Walker<'a>,
    pub(crate) cache: Option<&'a SplitCache>,
    pub(crate) scratch: &'a Mutex<Vec<f64>>,
    pub(crate) states: usize,
}

impl Ops<'_> {
    pub(crate) fn for_each_entry(
        &self,
        part: Part,
        reverse: bool,
        visit: &mut impl FnMut(usize, usize, f64),
    ) {
        match self.cache {
            Some(c) => c.for_each(part, reverse, visit),
            None => self.walker.for_each(part, reverse, visit),
        }
    }

    pub(crate) fn exit_rates(&self) -> Vec<f64> {
        let mut h = vec![0.0; self.states];
        self.for_each_entry(Part::All, false, &mut |s, _, r| h[s] += r);
        h
    }

    /// Thesis Figure 6.2 (*JacobiRecur*, line 3 accumulating into `y`).
    pub(crate) fn vec_mul_add(&self, x: &[f64], y: &mut [f64]) {
        self.for_each_entry(Part::All, false, &mut |s, d, r| y[d] += x[s] * r);
    }

    /// Thesis Figures 6.3-6.4 (6.6-6.7 with the cache).
    pub(crate) fn gauss_seidel_sweep<F: FnMut(usize, &[f64], &mut [f64]) + ?Sized>(
        &self,
        x: &mut [f64],
        order: Sweep,
        f: &mut F,
    ) {
        // the partial sums are all zero between sweeps (each sweep zeroes what it consumed),
        // unless a sweep was abandoned by a panic
        let mut acc = self.scratch.lock().unwrap_or_else(|e| {
            let mut acc = e.into_inner();
            acc.clear();
            acc
        });
        match self.cache {
            Some(c) => c.two_phase_sweep(x, order, f, &mut acc),
            None => two_phase_sweep(&self.walker, x, order, f, &mut acc),
        }
    }
}

/// A matrix swept by [`Ops`] (the chain's own `R`, a [`MatrixView`]): its [`RateMatrix`]
/// operations are those of Figures 6.2-6.4 (6.6-6.7 with a cache).
pub(crate) trait Swept {
    fn ops(&self) -> Ops<'_>;
    fn nonzeros(&self) -> u64;
    fn memory_bytes(&self) -> u64;
}

impl<T: Swept> RateMatrix for T {
    fn states(&self) -> usize {
        self.ops().states
    }

    fn nonzeros(&self) -> u64 {
        Swept::nonzeros(self)
    }

    fn exit_rates(&self) -> Vec<f64> {
        self.ops().exit_rates()
    }

    /// Thesis Figure 6.2 (*JacobiRecur*, line 3 accumulating into `y`).
    fn vec_mul_add(&self, x: &[f64], y: &mut [f64]) {
        self.ops().vec_mul_add(x, y)
    }

    /// Thesis Figures 6.3-6.4 (and 6.6-6.7 with the cache).
    fn gauss_seidel_sweep(&self, x: &mut [f64], order: Sweep, f: &mut ColumnUpdate<'_>) {
        self.ops().gauss_seidel_sweep(x, order, f)
    }

    /// The solvers' sweep with their update compiled into Figures 6.3-6.4 (6.6-6.7) (the sweep
    /// is generic over the update: no dynamic call per block).
    fn relaxed_sweep(&self, x: &mut [f64], order: Sweep, r: &Relaxation<'_>) -> SweepStats {
        let mut m = SweepStats::default();
        self.ops()
            .gauss_seidel_sweep(x, order, &mut |lo, s: &[f64], xs: &mut [f64]| {
                r.update(lo, s, xs, &mut m)
            });
        m
    }

    fn memory_bytes(&self) -> u64 {
        Swept::memory_bytes(self)
    }
}

impl Swept for MatrixView<'_> {
    fn ops(&self) -> Ops<'_> {
        MatrixView::ops(self)
    }

    fn nonzeros(&self) -> u64 {
        self.nonzeros
    }

    fn memory_bytes(&self) -> u64 {
        self.cache.as_ref().map_or(0, SplitCache::bytes)
    }
}

/// The lexicographic index function of a subset of the reachable states (its own EV+MDD).
pub struct SubIndex {
    forest: EvPlusForest,
    index: Ev<i64>,
    states: usize,
}

impl SubIndex {
    /// Number of states of the subset.
    pub fn len(&self) -> usize {
        self.states
    }

    pub fn is_empty(&self) -> bool {
        self.states == 0
    }
}

impl SymbolicCtmc {
    /// Build `R^T` in the matrix forest (thesis: the transpose of an EV*MxD swaps each pair of
    /// levels), once; [`SymbolicCtmc::transposed`] sees it afterwards.
    pub fn build_transpose(&mut self) -> Result<(), BuildError> {
        if self.rt.is_none() {
            let rt = self.matrices.transpose(self.r).map_err(overflow)?;
            self.matrices.add_root(rt);
            self.rt = Some(rt);
        }
        Ok(())
    }

    /// `R^T` over the same states, with a split-point cache when the chain has one.
    ///
    /// # Panics
    /// If [`SymbolicCtmc::build_transpose`] was not called.
    pub fn transposed(&self) -> MatrixView<'_> {
        let rt = self.rt.expect("build_transpose first");
        let w = Walker {
            m: &self.matrices,
            idx: &self.index_forest,
            rate: rt.val,
            root: rt.node,
            index_root: self.index.node,
        };
        MatrixView::new(
            w,
            self.states,
            self.cache.as_ref().map(SplitCache::threshold),
        )
    }

    /// The index function of the subset `set` (a node of `sets`, the set forest the chain was
    /// generated in, a subset of the reachable states).
    pub fn sub_index(&self, sets: &Forest, set: NodeId) -> Result<SubIndex, BuildError> {
        let levels = self.enc.order.len();
        let domains: Vec<u32> = (1..=levels).map(|k| sets.domain(k)).collect();
        let mut forest = EvPlusForest::new(&domains);
        let index = forest.index_function(sets, set).map_err(overflow)?;
        forest.add_root(index);
        let states = sets
            .cardinality_u128(set)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| BuildError::TooManyStates(sets.cardinality(set).to_string()))?;
        Ok(SubIndex {
            forest,
            index,
            states,
        })
    }

    /// `R` restricted to the states of `sub` (numbered by `sub`'s own index), with a
    /// split-point cache when the chain has one.
    pub fn restricted<'a>(&'a self, sub: &'a SubIndex) -> MatrixView<'a> {
        let w = Walker {
            m: &self.matrices,
            idx: &sub.forest,
            rate: self.r.val,
            root: self.r.node,
            index_root: sub.index.node,
        };
        MatrixView::new(
            w,
            sub.states,
            self.cache.as_ref().map(SplitCache::threshold),
        )
    }
}
