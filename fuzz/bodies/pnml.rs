//! Fuzz the PNML reader: any input must give `Ok` or `Err`, never a panic; a net that reads
//! must survive a write/read round trip unchanged.
//!
//! The body, shared by the fuzz target `fuzz_targets/pnml.rs` and the workspace test
//! `crates/cli/tests/it/fuzz_bodies.rs` (which runs it over real and damaged inputs, so it cannot
//! rot outside the workspace).

/// One input: `Ok`/`Err`, never a panic (the assertions inside are the properties).
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(net) = saturn_pnml::read_pnml_str(text, "fuzz") {
        let again = saturn_pnml::read_pnml_str(&saturn_pnml::writer::write_pnml(&net), "fuzz")
            .expect("a written net reads back");
        // names are trimmed and default to the id, so compare the structure only
        assert_eq!(again.places.len(), net.places.len());
        assert_eq!(again.transitions.len(), net.transitions.len());
    }
}
