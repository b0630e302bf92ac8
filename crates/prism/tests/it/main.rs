//! The crate's integration tests: one module per test file, in one binary (linked once;
//! the tests of all files run in parallel threads).
//! Proptest replays the failures recorded in `../proptest-regressions/FILE.txt` (its
//! default place for a module beside a `main.rs`).

#[path = "../support/polling.rs"]
mod polling;
#[path = "../../../../testsupport/shared.rs"]
mod shared;

mod benchmarks;
mod robustness;
mod roundtrip;
mod semantics;
mod statespace_random;
mod statespace_shared;
