//! The crate's integration tests: one module per test file, in one binary (linked once;
//! the tests of all files run in parallel threads).
//! Proptest replays the failures recorded in `../proptest-regressions/FILE.txt` (its
//! default place for a module beside a `main.rs`).

#[path = "../dom/mod.rs"]
mod dom;
#[path = "../support/mutate.rs"]
mod mutate;
#[path = "../../../../testsupport/shared.rs"]
mod shared;

mod agreement;
mod formulas;
mod formulas_robustness;
mod large;
mod mcc_models;
mod reader;
mod roundtrip;
