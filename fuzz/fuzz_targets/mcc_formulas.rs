//! Fuzz the contest formula XML reader: any input gives `Ok` or `Err`, never a panic; what reads
//! prints to text that parses back to the same tree.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/mcc_formulas.rs"]
mod body;

fuzz_target!(|data: &[u8]| body::run(data));
