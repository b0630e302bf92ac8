//! Fuzz the PRISM property parser and checker (against a small fixed model): never a panic;
//! parsed files round-trip through the printer.
//!
//! The body, shared by the fuzz target `fuzz_targets/prism_props.rs` and the workspace test
//! `crates/cli/tests/it/fuzz_bodies.rs` (which runs it over real and damaged inputs, so it cannot
//! rot outside the workspace).

use saturn_prism::{
    load_model, parse_properties, parse_properties_ast, parse_properties_ast_bytes, ConstOverrides,
};

const MODEL: &str = "ctmc\nconst int N = 3;\nconst double T;\nmodule M\n  x : [0..N];\n  b : bool;\n  [a] x<N -> 1.5 : (x'=x+1);\n  [s] x>0 -> 3 : (x'=x-1) & (b'=!b);\nendmodule\nlabel \"full\" = x=N;\nrewards \"r\"\n  [s] true : 1;\n  true : x;\nendrewards\n";

/// One input: `Ok`/`Err`, never a panic (the assertions inside are the properties).
pub fn run(data: &[u8]) {
    let Ok(ast) = parse_properties_ast_bytes(data, "fuzz.props") else {
        return;
    };
    let printed = ast.to_string();
    let again = parse_properties_ast("printed", &printed).expect("printed properties parse");
    assert_eq!(again, ast, "round trip changed the tree");
    let program =
        load_model("m.prism", MODEL, &ConstOverrides::default()).expect("fixed model is valid");
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(d) = parse_properties("fuzz.props", text, &program) {
            assert!(!d.render().is_empty());
        }
    }
}
