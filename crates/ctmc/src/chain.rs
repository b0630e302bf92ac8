//! The interface between the property checker and a CTMC engine: what [`crate::props`] needs
//! of a chain besides its rate matrix. States are numbered `0..len()` by the lexicographic
//! index of the reachable set (thesis Definitions 14-15) in every engine, so the vectors the
//! checker builds mean the same thing whichever engine answers.
//!
//! The explicit engine ([`crate::sparse::SparseCtmc`]) answers the graph questions by search on
//! its matrix (Tarjan for the bottom SCCs); the symbolic one
//! ([`crate::symbolic::chain::SymbolicChain`]) by constrained saturation and XBSat on decision
//! diagrams.

use crate::matrix::UniformPlan;
use crate::props::CheckError;
use crate::sparse::SparseCtmc;
use crate::RateMatrix;

/// A visitor of states: the state's index and its values per variable.
pub type StateVisitor<'f> = dyn FnMut(usize, &[i64]) -> Result<(), CheckError> + 'f;

/// A continuous-time Markov chain as the property checker sees it.
pub trait Chain {
    /// Number of states.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Indices of the initial states, sorted.
    fn initial(&self) -> &[usize];

    /// Indices of the deadlock states (no successor; PRISM's self-loop), sorted.
    fn deadlocks(&self) -> &[usize];

    /// Exit rates `h[i]` of the off-diagonal rate matrix.
    fn exit(&self) -> &[f64];

    /// PRISM's transition count.
    fn transitions(&self) -> u64;

    /// Visit every state in index order with its values per variable; stops at the first
    /// error `f` returns.
    fn for_each_state(&self, f: &mut StateVisitor<'_>) -> Result<(), CheckError>;

    /// The values per variable of state `i` (for messages).
    fn values(&self, i: usize) -> Vec<i64>;

    /// The off-diagonal rate matrix `R`.
    fn rates(&self) -> &dyn RateMatrix;

    /// `R^T`, for the linear systems on the embedded chain (their Gauss-Seidel sweeps go over
    /// the rows of `R`).
    fn with_transposed(
        &self,
        f: &mut dyn FnMut(&dyn RateMatrix) -> Result<(), CheckError>,
    ) -> Result<(), CheckError>;

    /// A plan of many uniformization steps over `R^T` (the backward step of
    /// [`RateMatrix::uniform_step`] with these `keep` and `take`), or `None` where the engine
    /// has none (the steps then go through [`Chain::with_transposed`]).
    fn uniform_plan(&self, _keep: &[f64], _take: &[f64]) -> Option<Box<dyn UniformPlan>> {
        None
    }

    /// The states that can reach a state of `target` along paths whose other states satisfy
    /// `through`; `target` included (the CTL `E[through U target]`).
    fn backward_reach(&self, through: &[bool], target: &[bool]) -> Result<Vec<bool>, CheckError>;

    /// The states reachable from a state of `from` along paths whose states before the last
    /// satisfy `through`; `from` included (what a path formula evaluated in `from` can visit,
    /// for the nested refinement of thesis 7.2). By default breadth-first, one product `x R`
    /// per layer.
    fn forward_reach(&self, through: &[bool], from: &[bool]) -> Result<Vec<bool>, CheckError> {
        let r = self.rates();
        let mut seen = from.to_vec();
        let mut frontier: Vec<f64> = (0..seen.len())
            .map(|i| if seen[i] && through[i] { 1.0 } else { 0.0 })
            .collect();
        while frontier.iter().any(|&x| x > 0.0) {
            let mut next = vec![0.0; seen.len()];
            r.vec_mul_add(&frontier, &mut next);
            for (i, x) in next.iter_mut().enumerate() {
                if *x > 0.0 && !seen[i] {
                    seen[i] = true;
                    *x = if through[i] { 1.0 } else { 0.0 };
                } else {
                    *x = 0.0;
                }
            }
            frontier = next;
        }
        Ok(seen)
    }

    /// The bottom SCCs (recurrent classes; a deadlock state is one on its own), each as its
    /// sorted state indices, sorted by first state.
    fn bottom_sccs(&self) -> Result<Vec<Vec<u32>>, CheckError>;

    /// `R` restricted to `states` (sorted indices), numbered `0..states.len()` in that order.
    fn with_restricted(
        &self,
        states: &[u32],
        f: &mut dyn FnMut(&dyn RateMatrix) -> Result<(), CheckError>,
    ) -> Result<(), CheckError>;
}

impl Chain for SparseCtmc {
    fn len(&self) -> usize {
        SparseCtmc::len(self)
    }

    fn initial(&self) -> &[usize] {
        &self.initial
    }

    fn deadlocks(&self) -> &[usize] {
        &self.deadlocks
    }

    fn exit(&self) -> &[f64] {
        &self.exit
    }

    fn transitions(&self) -> u64 {
        self.transitions
    }

    fn for_each_state(&self, f: &mut StateVisitor<'_>) -> Result<(), CheckError> {
        SparseCtmc::for_each_state(self, f)
    }

    fn values(&self, i: usize) -> Vec<i64> {
        SparseCtmc::values(self, i)
    }

    fn rates(&self) -> &dyn RateMatrix {
        self
    }

    fn with_transposed(
        &self,
        f: &mut dyn FnMut(&dyn RateMatrix) -> Result<(), CheckError>,
    ) -> Result<(), CheckError> {
        // the rows of `R`, built for this system and dropped after it (only the columns are
        // kept)
        let rows = self.r.transpose();
        f(&rows.view())
    }

    /// Made from the columns of `R`: no transpose.
    fn uniform_plan(&self, keep: &[f64], take: &[f64]) -> Option<Box<dyn UniformPlan>> {
        Some(self.r.transposed_plan(keep, take))
    }

    fn backward_reach(&self, through: &[bool], target: &[bool]) -> Result<Vec<bool>, CheckError> {
        Ok(crate::graph::backward_reach(&self.r, through, target))
    }

    fn forward_reach(&self, through: &[bool], from: &[bool]) -> Result<Vec<bool>, CheckError> {
        Ok(crate::graph::forward_reach(&self.r, through, from))
    }

    fn bottom_sccs(&self) -> Result<Vec<Vec<u32>>, CheckError> {
        Ok(crate::graph::bottom_sccs(&self.r))
    }

    fn with_restricted(
        &self,
        states: &[u32],
        f: &mut dyn FnMut(&dyn RateMatrix) -> Result<(), CheckError>,
    ) -> Result<(), CheckError> {
        if states.len() == SparseCtmc::len(self) {
            return f(&self.r.view());
        }
        let sub = self.r.restrict(states);
        f(&sub.view())
    }
}
