//! Fuzz the PNML reader: any input must give `Ok` or `Err`, never a panic; a net that reads
//! must survive a write/read round trip unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
