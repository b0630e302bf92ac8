//! The explicit reference against the MCC oracles: for every developer instance with fewer than
//! 200 000 states, states / transitions / max tokens per place / per marking must equal the
//! `StateSpace` line of `oracle.txt`.

use std::path::PathBuf;

use saturn_pnml::read_pnml_file;
use saturn_reference::explore_petri;

use crate::shared;

const MAX_STATES: u64 = 200_000;

fn mcc_dir() -> Option<PathBuf> {
    shared::existing(
        shared::benchmarks("mcc"),
        "skipping the MCC state-space tests",
    )
}

fn field(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in {line}"))
}

#[test]
fn explicit_state_spaces_match_mcc_oracles() {
    let Some(dir) = mcc_dir() else { return };
    let index = std::fs::read_to_string(dir.join("INDEX.tsv")).expect("INDEX.tsv");
    let mut checked = 0;
    for row in index.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = row.split('\t').collect();
        let instance = cols[0];
        let Ok(states) = cols[4].parse::<u64>() else {
            continue;
        };
        if states >= MAX_STATES {
            continue;
        }
        let inst = dir.join(instance);
        let oracle = std::fs::read_to_string(inst.join("oracle.txt")).expect("oracle.txt");
        let line = oracle
            .lines()
            .find(|l| l.starts_with("StateSpace "))
            .expect("StateSpace line");
        let net = read_pnml_file(&inst.join("model.pnml")).unwrap_or_else(|e| panic!("{e}"));
        let ss =
            explore_petri(&net, MAX_STATES as usize).unwrap_or_else(|e| panic!("{instance}: {e}"));
        assert_eq!(ss.states as u64, field(line, "states"), "{instance} states");
        assert_eq!(ss.states as u64, states, "{instance} states vs INDEX.tsv");
        assert_eq!(
            ss.transitions,
            field(line, "transitions"),
            "{instance} transitions"
        );
        assert_eq!(
            ss.max_tokens_place,
            field(line, "max_tokens_place"),
            "{instance} max_tokens_place"
        );
        assert_eq!(
            ss.max_tokens_marking,
            field(line, "max_tokens_marking"),
            "{instance} max_tokens_marking"
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} instances checked");
}
