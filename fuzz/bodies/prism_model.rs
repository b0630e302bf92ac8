//! Fuzz the PRISM model parser and checker: any input gives `Ok` or diagnostics, never a panic;
//! a model that parses prints in canonical syntax and parses back to the same tree.
//!
//! The body, shared by the fuzz target `fuzz_targets/prism_model.rs` and the workspace test
//! `crates/cli/tests/it/fuzz_bodies.rs` (which runs it over real and damaged inputs, so it cannot
//! rot outside the workspace).

use saturn_prism::{
    check_model_with_source, parse_model, parse_model_bytes, ConstOverrides, Source,
};

/// One input: `Ok`/`Err`, never a panic (the assertions inside are the properties).
pub fn run(data: &[u8]) {
    match parse_model_bytes(data, "fuzz.prism") {
        Ok(ast) => {
            let printed = ast.to_string();
            let again = parse_model("printed", &printed).expect("printed model parses");
            assert_eq!(again, ast, "round trip changed the tree");
            let text = String::from_utf8_lossy(data);
            if let Err(d) = check_model_with_source(
                &ast,
                &ConstOverrides::default(),
                &Source::new("fuzz.prism", &text),
            ) {
                assert!(!d.render().is_empty());
            }
        }
        Err(d) => assert!(!d.render().is_empty()),
    }
}
