//! The crate's integration tests: one module per test file, in one binary (linked once;
//! the tests of all files run in parallel threads).
//! Proptest replays the failures recorded in `../proptest-regressions/FILE.txt` (its
//! default place for a module beside a `main.rs`).

#[path = "../common/mod.rs"]
mod common;

mod families;
mod order;
mod order_heuristics;
