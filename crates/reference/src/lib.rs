//! Explicit-state reference implementations: the test oracle for the symbolic engines.
//! Never used by the CLI. Simplicity first: plain breadth-first search with a hash table of
//! states, every state and edge kept in memory.

pub mod explore;
pub mod general;

pub use explore::{explore_model, explore_petri, ExplicitStateSpace, Limit};
pub use general::{explore_general, GeneralError, GeneralStateSpace};
