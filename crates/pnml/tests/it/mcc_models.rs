//! Every MCC developer model reads, with the place and transition counts of its oracle.

use std::path::PathBuf;

use saturn_pnml::read_pnml_file;

use crate::shared;

fn mcc_dir() -> Option<PathBuf> {
    shared::existing(shared::benchmarks("mcc"), "skipping the MCC model tests")
}

/// `(places, transitions)` from the `# net: places=.. transitions=..` line of an oracle.
fn oracle_counts(text: &str) -> Option<(usize, usize)> {
    let line = text.lines().find(|l| l.starts_with("# net:"))?;
    let field = |key: &str| -> Option<usize> {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .and_then(|v| v.parse().ok())
    };
    Some((field("places=")?, field("transitions=")?))
}

#[test]
fn every_mcc_model_reads_with_oracle_counts() {
    let Some(dir) = mcc_dir() else { return };
    let index = std::fs::read_to_string(dir.join("INDEX.tsv")).expect("INDEX.tsv");
    let mut seen = 0;
    for row in index.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = row.split('\t').collect();
        let (instance, places, transitions) = (cols[0], cols[2], cols[3]);
        let inst_dir = dir.join(instance);
        let net = read_pnml_file(&inst_dir.join("model.pnml"))
            .unwrap_or_else(|e| panic!("{instance}: {e}"));
        let oracle = std::fs::read_to_string(inst_dir.join("oracle.txt")).expect("oracle.txt");
        let (op, ot) = oracle_counts(&oracle).expect("# net: line");
        assert_eq!(net.places.len(), op, "{instance}: places vs oracle");
        assert_eq!(
            net.transitions.len(),
            ot,
            "{instance}: transitions vs oracle"
        );
        assert_eq!(
            net.places.len().to_string(),
            places,
            "{instance}: places vs INDEX.tsv"
        );
        assert_eq!(
            net.transitions.len().to_string(),
            transitions,
            "{instance}: transitions vs INDEX"
        );
        // ids are unique and every arc points inside the net
        for t in &net.transitions {
            for a in t.inputs.iter().chain(&t.outputs).chain(&t.inhibitors) {
                assert!(a.place < net.places.len() && a.weight > 0, "{instance}");
            }
            assert!(
                t.inhibitors.is_empty(),
                "{instance}: MCC nets have no inhibitor arcs"
            );
        }
        seen += 1;
    }
    assert!(seen >= 40, "only {seen} instances in INDEX.tsv");
}

#[test]
fn static_orders_on_mcc_models() {
    use saturn_model::order::{by_name, file_order, total_span, ORDER_NAMES};
    let Some(dir) = mcc_dir() else { return };
    let index = std::fs::read_to_string(dir.join("INDEX.tsv")).expect("INDEX.tsv");
    for row in index.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let instance = row.split('\t').next().unwrap_or_default();
        let net = read_pnml_file(&dir.join(instance).join("model.pnml")).expect("reads");
        let file = total_span(&net, &file_order(&net));
        let mut line = format!("{instance:32}");
        for name in ORDER_NAMES {
            let order = by_name(&net, name).expect("known order");
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert!(
                sorted.iter().copied().eq(0..net.places.len()),
                "{instance} {name}"
            );
            let span = total_span(&net, &order);
            if *name == "force" {
                assert!(span <= file, "{instance}: force {span} > file {file}");
            }
            line.push_str(&format!(" {name}={span}"));
        }
        eprintln!("{line}");
    }
}
