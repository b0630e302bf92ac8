//! Fuzz the formula text parser: any input gives `Ok` or `Err`, never a panic; what parses
//! prints to text that parses back to the same tree, and resolution never panics.
//!
//! The body, shared by the fuzz target `fuzz_targets/ctl.rs` and the workspace test
//! `crates/cli/tests/it/fuzz_bodies.rs` (which runs it over real and damaged inputs, so it cannot
//! rot outside the workspace).

use saturn_logic::{parse_query, resolve, NameTable};

/// One input: `Ok`/`Err`, never a panic (the assertions inside are the properties).
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match parse_query(&text) {
        Ok(q) => {
            let printed = q.to_string();
            let back = parse_query(&printed).expect("printed formula parses");
            assert_eq!(back.without_spans(), q.without_spans());
            let _ = resolve(&q, &NameTable::new(["p", "q", "p-1"], ["t", "t.2"]));
        }
        Err(e) => {
            let _ = e.render(false);
        }
    }
}
