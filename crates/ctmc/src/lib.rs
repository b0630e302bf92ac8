//! Continuous-time Markov chains (thesis sections 2.3 and chapter 6).
//!
//! The states of a chain are the reachable states of a [`saturn_model::GeneralModel`], numbered
//! by the lexicographic index function of the reachable set (thesis Definitions 14-15): state
//! `i` is the `i`-th reachable state in the order of the variable order's levels, so every
//! engine (the explicit sparse one and the EV*MDD one) and every vector agrees on what index
//! `i` means.
//!
//! - [`matrix`]: the [`RateMatrix`] interface every engine implements; the solvers only see it.
//! - [`chain`]: the [`Chain`] interface the property checker sees (states, initial states,
//!   the graph questions), implemented by both engines.
//! - `sparse`: the explicit CSR engine (`--engine sparse`), the baseline.
//! - `symbolic`: the rate matrix as an EV*MDD over interleaved levels, the index function as an
//!   EV+MDD, and the sweeps of Figures 6.2-6.7.
//! - `solve`: power, Jacobi, (two-phase) Gauss-Seidel, SOR/JOR, forward and backward sweeps.
//! - `transient`: uniformization with Fox-Glynn weights and guaranteed bounds.
//! - `props`: steady state, unbounded until, rewards, time-bounded CSL.

pub mod chain;
pub mod graph;
pub mod matrix;
pub mod props;
pub mod solve;
pub mod sparse;
pub mod symbolic;
pub mod transient;

pub use chain::Chain;
pub use matrix::{per_column, ColumnUpdate, RateMatrix, Sweep};
pub use symbolic::SymbolicCtmc;
