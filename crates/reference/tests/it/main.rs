//! The crate's integration tests: one module per test file, in one binary (linked once;
//! the tests of all files run in parallel threads).
//! Proptest replays the failures recorded in `../proptest-regressions/FILE.txt` (its
//! default place for a module beside a `main.rs`).

#[path = "../../../../testsupport/shared.rs"]
mod shared;

mod bounded;
mod bounded_mcc;
mod ctl;
mod explore;
mod families;
mod mcc_ctl;
mod mcc_ltl;
mod mcc_statespace;
