//! Fuzz the contest formula XML reader: any input gives `Ok` or `Err`, never a panic; what reads
//! prints to text that parses back to the same tree.
//!
//! The body, shared by the fuzz target `fuzz_targets/mcc_formulas.rs` and the workspace test
//! `crates/cli/tests/it/fuzz_bodies.rs` (which runs it over real and damaged inputs, so it cannot
//! rot outside the workspace).

use saturn_model::{PetriNet, Place, Transition};

/// One input: `Ok`/`Err`, never a panic (the assertions inside are the properties).
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(fs) = saturn_pnml::formulas::parse_formulas_str(text, "fuzz") {
        for f in &fs {
            let back =
                saturn_logic::parse_query(&f.query.to_string()).expect("printed formula parses");
            assert_eq!(back.without_spans(), f.query.without_spans());
        }
    }
    let net = PetriNet {
        name: "n".into(),
        places: vec![Place {
            id: "p0".into(),
            name: "p0".into(),
            initial: 1,
        }],
        transitions: vec![Transition {
            id: "t0".into(),
            name: "t0".into(),
            ..Default::default()
        }],
    };
    let _ = saturn_pnml::formulas::read_formulas_str(text, "fuzz", &net);
}
