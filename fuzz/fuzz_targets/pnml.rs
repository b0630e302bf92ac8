//! Fuzz the PNML reader: any input must give `Ok` or `Err`, never a panic; a net that reads
//! must survive a write/read round trip unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/pnml.rs"]
mod body;

fuzz_target!(|data: &[u8]| body::run(data));
