//! A large PNML file (~12 MB) reads back correctly; the time is printed, not asserted.

use saturn_model::families::generate;
use saturn_pnml::{read_pnml_str, writer::write_pnml};

#[test]
fn ten_megabytes_of_pnml() {
    let net = generate("philosophers", 5_000).unwrap();
    let text = write_pnml(&net);
    assert!(text.len() > 10_000_000, "{} bytes", text.len());
    let start = std::time::Instant::now();
    let doc = roxmltree::Document::parse(&text).unwrap();
    eprintln!(
        "roxmltree alone: {:?} ({} nodes)",
        start.elapsed(),
        doc.descendants().count()
    );
    drop(doc);
    let start = std::time::Instant::now();
    let back = read_pnml_str(&text, "large").unwrap();
    eprintln!(
        "read {} MB in {:?}",
        text.len() / 1_000_000,
        start.elapsed()
    );
    assert_eq!(back, net);
}
