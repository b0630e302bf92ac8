//! The crate's integration tests: one module per test file, in one binary (linked once;
//! the tests of all files run in parallel threads).
//! Proptest replays the failures recorded in `../proptest-regressions/FILE.txt` (its
//! default place for a module beside a `main.rs`).

#[path = "../ctl_support/mod.rs"]
mod ctl_support;
#[path = "../../../../testsupport/shared.rs"]
mod shared;

mod atoms;
mod beyond_witness;
mod closure;
mod collection_schedule;
mod ctl_random;
mod ctl_witness;
mod fair_witness;
mod families;
mod limits;
mod ltl_counterexample;
mod ltl_product;
mod mcc_ctl;
mod mcc_statespace;
mod metrics_limits;
mod one_hot;
mod polytope;
mod polytope_liveness;
mod portfolio;
mod random_nets;
mod rank;
mod relation_domains;
mod reservoirs;
mod saturation_kernel;
mod scaled;
mod scc;
mod search;
mod tcd_ball;
