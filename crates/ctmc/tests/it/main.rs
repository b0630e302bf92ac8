//! The crate's integration tests: one module per test file, in one binary (linked once;
//! the tests of all files run in parallel threads).
//! Proptest replays the failures recorded in `../proptest-regressions/FILE.txt` (its
//! default place for a module beside a `main.rs`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../../../../testsupport/shared.rs"]
mod shared;
#[path = "../symbolic_support/mod.rs"]
mod symbolic_support;

mod dtmc_random;
mod nested_refine;
mod prism_random;
mod solvers;
mod symbolic_matrix;
mod symbolic_shared;
mod transient;
