//! Fuzz the PRISM property parser and checker (against a small fixed model): never a panic;
//! parsed files round-trip through the printer.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/prism_props.rs"]
mod body;

fuzz_target!(|data: &[u8]| body::run(data));
