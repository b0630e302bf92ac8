//! Known state counts of the generated benchmark families (thesis tables, SMART, MCC), with
//! saturation; the smaller ones also with both BFS variants.

use saturn_model::families::{count_matches, generate, KNOWN_COUNTS};
use saturn_symbolic::{statespace, Limits, Method};

#[test]
fn family_counts_match_the_published_figures() {
    for &(fam, n, known) in KNOWN_COUNTS {
        let net = generate(fam, n).unwrap();
        let order = saturn_model::order::by_name(&net, "file-rev").unwrap();
        let model = net.to_model(&order).unwrap();
        let ss = statespace::generate(&model, Method::Saturation, Limits::none(), None).unwrap();
        let got = ss.metrics.states.to_string();
        assert!(
            count_matches(&got, known),
            "{fam} N={n}: got {got}, published {known}"
        );
        if got.len() <= 7 {
            for m in [Method::Bfs, Method::BfsFrontier] {
                let b = statespace::generate(&model, m, Limits::none(), None).unwrap();
                assert_eq!(b.metrics, ss.metrics, "{fam} N={n} {m:?}");
            }
        }
    }
}
