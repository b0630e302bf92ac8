//! Fuzz the formula text parser: any input gives `Ok` or `Err`, never a panic; what parses
//! prints to text that parses back to the same tree, and resolution never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../bodies/ctl.rs"]
mod body;

fuzz_target!(|data: &[u8]| body::run(data));
