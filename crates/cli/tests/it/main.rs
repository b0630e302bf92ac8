//! The crate's integration tests: one module per test file, in one binary (linked once;
//! the tests of all files run in parallel threads). `../promises.rs` stays a binary of its own:
//! it asserts the peak resident set of the `saturn` processes it starts, and a child started by
//! `posix_spawn` (vfork) is charged the parent's peak at its exec, which in this binary reaches
//! a gigabyte (three of its tests failed so, every child reported at the same 1,129 MiB).

#[path = "../../../../fuzz/bodies/ctl.rs"]
mod ctl;
#[path = "../support/json_witness.rs"]
mod json_witness;
#[path = "../../../../fuzz/bodies/mcc_formulas.rs"]
mod mcc_formulas;
#[path = "../../../pnml/tests/support/mutate.rs"]
mod mutate;
#[path = "../../../../fuzz/bodies/pnml.rs"]
mod pnml;
#[path = "../support/prism_cli.rs"]
mod prism_cli;
#[path = "../../../../fuzz/bodies/prism_model.rs"]
mod prism_model;
#[path = "../../../../fuzz/bodies/prism_props.rs"]
mod prism_props;
#[path = "../../../../testsupport/shared.rs"]
mod shared;

mod check_fair;
mod check_ltl;
mod check_prism;
mod check_witness;
mod check_witness_depth;
mod ctmc_bounds;
mod dot;
mod engine_auto;
mod epsilon;
mod experiment;
mod fuzz_bodies;
mod generate;
mod mcc;
mod mcc_ltl_oracle;
mod no_machine_paths;
mod parse_pnml;
mod parse_prism;
mod scc;
mod shortcuts;
mod statespace;
mod statespace_prism;
