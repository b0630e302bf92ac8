//! Explicit-state reference implementations: the test oracle for the symbolic engines.
//! Never used by the CLI. Simplicity first: plain breadth-first search with a hash table of
//! states, every state and edge kept in memory; CTL by the classic labelling fixpoints; SCCs by
//! Tarjan's algorithm; the contest's global properties.

pub mod ctl;
pub mod explore;
pub mod farkas;
pub mod general;
pub mod lasso;
pub mod ltl;
pub mod ltl_lasso;
pub mod mcc;
pub mod properties;
pub mod scc;
pub mod strategies;

pub use ctl::{upper_bound, CtlChecker, CtlError, Deadlocks, Verdict};
pub use explore::{explore_model, explore_petri, ExplicitStateSpace, Limit};
pub use general::{explore_general, GeneralError, GeneralStateSpace};
pub use properties::{global_properties, GlobalProperties};
pub use scc::{streett_fair_states, Graph, Sccs, StateSet, StreettPair};
