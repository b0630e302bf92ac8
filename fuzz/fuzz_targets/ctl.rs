//! Fuzz the formula text parser: any input gives `Ok` or `Err`, never a panic; what parses
//! prints to text that parses back to the same tree, and resolution never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use saturn_logic::{parse_query, resolve, NameTable};

fuzz_target!(|data: &[u8]| {
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
});
