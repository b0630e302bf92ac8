//! The symbolic CTMC engine (thesis section 6.2): the reachable states by saturation, the
//! lexicographic index function of the reachable set as an EV+MDD (Definitions 14-15), the
//! off-diagonal rate matrix `R` over the reachable states as an EV*MxD on interleaved levels
//! (`build`), and the [`RateMatrix`] operations by traversal of both diagrams: Jacobi's
//! vector-matrix product (Figure 6.2, `walk`), the two-phase Gauss-Seidel sweep (Figures
//! 6.3-6.4, `gauss_seidel`), optionally over the split-point cache (Figures 6.6-6.7, `cache`).

mod build;
pub mod cache;
pub mod chain;
pub mod gauss_seidel;
pub mod view;
pub mod walk;

use saturn_dd::ev::{Ev, EvPlusForest, EvStarForest};
use std::sync::Mutex;

use saturn_dd::NodeId;
use saturn_model::GeneralModel;
use saturn_symbolic::encode::{
    generate_general, EncodeError, Encoded, GenMethod, GeneralStateSpace,
};
use saturn_symbolic::Limits;

use build::{overflow, RateBuilder};
use cache::SplitCache;
use walk::{Entries, Part, Walker};

/// Bytes of one node record and of one edge of an edge-valued forest (level, offset, length
/// and hash; index, child and a 64-bit value).
const NODE_BYTES: u64 = 16;
const EDGE_BYTES: u64 = 16;

/// The default split-point threshold of the cache (paths below a split point).
pub const DEFAULT_CACHE_THRESHOLD: u64 = 4096;

/// Why a symbolic CTMC could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// A command's guard, rate or update cannot be evaluated where it matters.
    #[error("{location}: {what} (command {event})")]
    Event {
        location: String,
        event: String,
        what: String,
    },
    #[error("a rate overflows the floating-point range")]
    Overflow,
    #[error("{0} reachable states: more than the {max} a probability vector can index", max = u32::MAX)]
    TooManyStates(String),
    /// The diagrams outgrew the budget the caller gave (`--engine auto`: the sparse engine
    /// will be smaller).
    #[error("the rate matrix's diagrams passed {budget} bytes ({bytes} at event {event})")]
    OverBudget {
        bytes: u64,
        budget: u64,
        event: usize,
        /// The encoding, given back (for the sparse engine).
        spare: Spare,
    },
}

/// The encoding a build that gave up hands back.
pub struct Spare(pub Box<Encoded>);

impl std::fmt::Debug for Spare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spare(..)")
    }
}

/// The least the sparse engine's columns take for a chain of `states` states of which
/// `deadlocks` have no successor: every other state has at least one nonzero (5 bytes), every
/// column a 4-byte pointer ([`SymbolicCtmc::sparse_bytes_at_least`] once the nonzeros are
/// known).
pub fn sparse_bytes_floor(states: u64, deadlocks: u64) -> u64 {
    5 * states.saturating_sub(deadlocks) + 4 * (states + 1)
}

/// Sizes of the symbolic structures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SymbolicStats {
    /// Nodes and edges of the EV*MxD of `R`.
    pub matrix_nodes: usize,
    pub matrix_edges: usize,
    /// Nodes and edges of the index EV+MDD.
    pub index_nodes: usize,
    pub index_edges: usize,
    /// Entries of the cache's top-level and bottom-level arrays (0 without a cache).
    pub cache_top: usize,
    pub cache_bottom: usize,
}

/// A CTMC with its rate matrix as an EV*MxD and its state indexing as an EV+MDD.
pub struct SymbolicCtmc {
    enc: Encoded,
    reached: NodeId,
    matrices: EvStarForest,
    r: Ev<f64>,
    index_forest: EvPlusForest,
    index: Ev<i64>,
    states: usize,
    nonzeros: u64,
    self_loops: u64,
    deadlocks: u64,
    cache: Option<SplitCache>,
    /// `R^T`, once [`SymbolicCtmc::build_transpose`] has built it.
    rt: Option<Ev<f64>>,
    /// The partial sums of a Gauss-Seidel sweep, kept between sweeps.
    scratch: Mutex<Vec<f64>>,
}

impl SymbolicCtmc {
    /// Generate the reachable states of `model` by saturation with the variable order `order`
    /// (`order[k-1]` is the variable at level `k`) and build the chain.
    pub fn generate(
        model: &GeneralModel,
        order: &[usize],
        limits: &Limits,
    ) -> Result<SymbolicCtmc, BuildError> {
        let (enc, ss) = generate_general(model, order, GenMethod::Saturation, limits)?;
        SymbolicCtmc::from_state_space(model, enc, &ss)
    }

    /// Build the chain over a generated state space (from
    /// [`saturn_symbolic::encode::generate_general`]): the index function, then one matrix
    /// per event over the reachable rows, their sum and its off-diagonal part.
    pub fn from_state_space(
        model: &GeneralModel,
        enc: Encoded,
        ss: &GeneralStateSpace,
    ) -> Result<SymbolicCtmc, BuildError> {
        SymbolicCtmc::from_state_space_within(model, enc, ss, &Limits::none())
    }

    /// [`SymbolicCtmc::from_state_space`], with `limits` checked between events (a stop is
    /// [`EncodeError::Interrupted`]).
    pub fn from_state_space_within(
        model: &GeneralModel,
        enc: Encoded,
        ss: &GeneralStateSpace,
        limits: &Limits,
    ) -> Result<SymbolicCtmc, BuildError> {
        SymbolicCtmc::from_state_space_reporting(model, enc, ss, limits, None, None)
    }

    /// [`SymbolicCtmc::from_state_space_within`], telling `progress` what it builds: the index
    /// function, each event's matrix (`rate matrix: event 3 of 16`), the off-diagonal part.
    pub fn from_state_space_reporting(
        model: &GeneralModel,
        enc: Encoded,
        ss: &GeneralStateSpace,
        limits: &Limits,
        budget: Option<u64>,
        mut progress: Option<&mut dyn FnMut(&str)>,
    ) -> Result<SymbolicCtmc, BuildError> {
        let mut say = |msg: &str| {
            if let Some(p) = progress.as_mut() {
                p(msg);
            }
        };
        let levels = enc.order.len();
        let domains: Vec<u32> = (1..=levels).map(|k| enc.sets.domain(k)).collect();
        let states = usize::try_from(&ss.states)
            .ok()
            .filter(|&n| n <= u32::MAX as usize)
            .ok_or_else(|| BuildError::TooManyStates(ss.states.to_string()))?;
        say("index function (EV+MDD)");
        let mut index_forest = EvPlusForest::new(&domains);
        let index = index_forest
            .index_function(&enc.sets, ss.reached)
            .map_err(overflow)?;
        index_forest.add_root(index);
        let mut matrices = EvStarForest::new_interleaved(&domains);
        let mut total = Ev::default_fn();
        let events = model.events.len();
        for e in 0..events {
            limits
                .check()
                .map_err(|i| BuildError::Encode(EncodeError::Interrupted(i)))?;
            say(&format!("rate matrix: event {} of {events}", e + 1));
            let mut b = RateBuilder::new(model, &enc.sets, &enc.order, e);
            let m = b.event_matrix(&mut matrices, ss.reached)?;
            total = matrices.sum(total, m).map_err(overflow)?;
            if let Some(budget) = budget {
                // the nodes allocated now (cheap) first, then, past the budget, those the sum
                // so far keeps after a collection
                if matrices.nodes_now() as u64 * NODE_BYTES > budget {
                    matrices.gc(&[total.node]);
                    let (nodes, edges) = matrices.count_nodes_edges(&[total]);
                    let bytes = nodes as u64 * NODE_BYTES + edges as u64 * EDGE_BYTES;
                    if bytes > budget {
                        return Err(BuildError::OverBudget {
                            bytes,
                            budget,
                            event: e,
                            spare: Spare(Box::new(enc)),
                        });
                    }
                }
            }
        }
        say("rate matrix: off-diagonal part");
        let with_loops = matrices.count_paths(total);
        let r = matrices.off_diagonal(total).map_err(overflow)?;
        let nonzeros = matrices.count_paths(r);
        matrices.add_root(r);
        matrices.gc(&[]);
        if matrices.forest().overflowed() || index_forest.forest().overflowed() {
            return Err(BuildError::Encode(EncodeError::Interrupted(
                saturn_symbolic::Interrupted::TooManyNodes,
            )));
        }
        let deadlocks = u64::try_from(&ss.deadlocks).unwrap_or(u64::MAX);
        Ok(SymbolicCtmc {
            reached: ss.reached,
            enc,
            matrices,
            r,
            index_forest,
            index,
            states,
            nonzeros: u64::try_from(nonzeros).unwrap_or(u64::MAX),
            self_loops: u64::try_from(with_loops - nonzeros).unwrap_or(u64::MAX),
            deadlocks,
            cache: None,
            rt: None,
            scratch: Mutex::new(Vec::new()),
        })
    }

    /// Build the split-point cache (Figures 6.6-6.7) with the given threshold; afterwards
    /// every operation runs over the cache.
    pub fn enable_cache(&mut self, threshold: u64) {
        let c = SplitCache::build(&self.walker(), threshold);
        self.cache = Some(c);
    }

    /// Drop the cache: operations traverse the diagrams again.
    pub fn disable_cache(&mut self) {
        self.cache = None;
    }

    /// The cache, if enabled.
    pub fn cache(&self) -> Option<&SplitCache> {
        self.cache.as_ref()
    }

    fn ops(&self) -> view::Ops<'_> {
        view::Ops {
            walker: self.walker(),
            cache: self.cache.as_ref(),
            scratch: &self.scratch,
            states: self.states,
        }
    }

    pub(crate) fn walker(&self) -> Walker<'_> {
        Walker {
            m: &self.matrices,
            idx: &self.index_forest,
            rate: self.r.val,
            root: self.r.node,
            index_root: self.index.node,
        }
    }

    /// Visit every entry `(row, column, rate)` of `R` in the lexicographic order of the
    /// interleaved pairs (through the cache when it is enabled).
    pub fn for_each_entry(
        &self,
        part: Part,
        reverse: bool,
        visit: &mut impl FnMut(usize, usize, f64),
    ) {
        match &self.cache {
            Some(c) => c.for_each(part, reverse, visit),
            None => self.walker().for_each(part, reverse, visit),
        }
    }

    /// The rate `R[row, col]` looked up in the EV*MxD (states as local indices per level);
    /// `0` on the diagonal and off the matrix.
    pub fn rate(&self, row: &[u32], col: &[u32]) -> f64 {
        let t = EvStarForest::matrix_tuple(row, col);
        self.matrices.eval(self.r, &t).unwrap_or(f64::INFINITY)
    }

    /// The index of a state (local indices per level) under the index function, `None` if
    /// it is not reachable.
    pub fn index_of_local(&self, local: &[u32]) -> Option<usize> {
        self.index_forest
            .index_of(self.index, local)
            .map(|i| i as usize)
    }

    /// The index of a state given by its variables' values.
    pub fn index_of(&self, model: &GeneralModel, values: &[i64]) -> Option<usize> {
        self.index_of_local(&self.enc.local(model, values))
    }

    /// The state (local indices per level) of index `i`.
    pub fn local_state(&self, i: usize) -> Option<Vec<u32>> {
        self.index_forest.state_of_index(self.index, i as u64)
    }

    /// The state (variable values) of index `i`.
    pub fn state(&self, model: &GeneralModel, i: usize) -> Option<Vec<i64>> {
        self.local_state(i).map(|l| self.enc.values(model, &l))
    }

    /// The encoding: the set forest (with the reachable set [`SymbolicCtmc::reached`]) and
    /// the variable order.
    pub fn encoded(&self) -> &Encoded {
        &self.enc
    }

    /// The reachable states, a node of `encoded().sets`.
    pub fn reached(&self) -> NodeId {
        self.reached
    }

    /// Reachable states without any successor (PRISM gives each a self-loop; nothing is
    /// stored for them in `R`).
    pub fn deadlocks(&self) -> u64 {
        self.deadlocks
    }

    /// Reachable states with a transition to themselves (not stored in `R`).
    pub fn self_loops(&self) -> u64 {
        self.self_loops
    }

    /// PRISM's transition count: the nonzeros of `R`, the self-loops and one self-loop per
    /// deadlock state.
    pub fn prism_transitions(&self) -> u64 {
        self.nonzeros + self.self_loops + self.deadlocks
    }

    /// Node and edge counts of the diagrams and entry counts of the cache.
    pub fn stats(&self) -> SymbolicStats {
        let (matrix_nodes, matrix_edges) = self.matrices.count_nodes_edges(&[self.r]);
        let (index_nodes, index_edges) = self.index_forest.count_nodes_edges(&[self.index]);
        let (cache_top, cache_bottom) = self.cache.as_ref().map_or((0, 0), |c| c.sizes());
        SymbolicStats {
            matrix_nodes,
            matrix_edges,
            index_nodes,
            index_edges,
            cache_top,
            cache_bottom,
        }
    }

    /// Bytes of the EV*MxD of `R` (node records and edges).
    pub fn matrix_bytes(&self) -> u64 {
        let s = self.stats();
        s.matrix_nodes as u64 * NODE_BYTES + s.matrix_edges as u64 * EDGE_BYTES
    }

    /// Bytes of the index EV+MDD.
    pub fn index_bytes(&self) -> u64 {
        let s = self.stats();
        s.index_nodes as u64 * NODE_BYTES + s.index_edges as u64 * EDGE_BYTES
    }

    /// Bytes of the cache arrays (0 without a cache).
    pub fn cache_bytes(&self) -> u64 {
        self.cache.as_ref().map_or(0, SplitCache::bytes)
    }

    /// What compressed sparse rows would take for the same `R`: 8 bytes of rate and 4 of
    /// column per nonzero, 4 per row pointer.
    pub fn csr_bytes(&self) -> u64 {
        12 * self.nonzeros + 4 * (self.states as u64 + 1)
    }

    /// The least the sparse engine's columns of the same `R` take: a 4-byte row index and a
    /// 1-byte rate code per nonzero (at most 256 distinct rates), 4 bytes per column pointer
    /// (crate::sparse; more distinct rates take wider codes).
    pub fn sparse_bytes_at_least(&self) -> u64 {
        5 * self.nonzeros + 4 * (self.states as u64 + 1)
    }
}

impl view::Swept for SymbolicCtmc {
    fn ops(&self) -> view::Ops<'_> {
        SymbolicCtmc::ops(self)
    }

    fn nonzeros(&self) -> u64 {
        self.nonzeros
    }

    fn memory_bytes(&self) -> u64 {
        self.matrix_bytes() + self.index_bytes() + self.cache_bytes()
    }
}
