//! Fuzz the PRISM model parser and checker: any input gives `Ok` or diagnostics, never a panic;
//! a model that parses prints in canonical syntax and parses back to the same tree.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/prism_model.rs"]
mod body;

fuzz_target!(|data: &[u8]| body::run(data));
