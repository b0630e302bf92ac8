//! Symbolic engines over the neutral model: state-space generation by breadth-first search
//! (thesis Figure 2.9), breadth-first search with a frontier, and saturation (Figure 2.10),
//! forward and backward, with next-state functions applied implicitly from the model's local
//! functions (no relation MDDs needed), and the contest's StateSpace metrics.
//!
//! Knows nothing of file formats; knows the model only through `saturn_model::Model`.

pub mod atoms;
pub mod binary;
pub mod closure;
pub mod ctl;
pub mod encode;
mod limits;
pub mod ltl;
pub mod ltl_lasso;
pub mod metrics;
mod modp;
pub mod rank;
pub mod reach;
pub mod scc;
pub mod statespace;

pub use limits::{latched, Interrupted, Limits, Progress};
pub use reach::{max_dense_index, Direction, Method, Reach, ReachStats, Relations, Search};
