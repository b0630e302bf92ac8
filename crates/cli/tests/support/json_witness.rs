//! Shared by the `check --witness` tests: a JSON witness replayed on the net, formulas over
//! the net's names.

use std::collections::HashMap;

use saturn_logic::{parse_query, resolve, NameTable, ResolvedQuery, StateFormula};
use saturn_model::PetriNet;

/// `saturn ARGS --json`, which must succeed: its JSON.
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let out = assert_cmd::Command::cargo_bin("saturn")
        .expect("the saturn binary is built for the tests")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each marking's index in `markings`.
pub fn indices(markings: &[Vec<u64>]) -> HashMap<Vec<u64>, usize> {
    markings
        .iter()
        .enumerate()
        .map(|(i, m)| (m.clone(), i))
        .collect()
}

/// The net's place and transition names.
pub fn names(net: &PetriNet) -> NameTable {
    NameTable::new(
        net.places.iter().map(|p| p.id.as_str()),
        net.transitions.iter().map(|t| t.id.as_str()),
    )
}

/// The state formula `s` over `names`.
pub fn state_formula(names: &NameTable, s: &str) -> StateFormula {
    match resolve(
        &parse_query(s).unwrap_or_else(|e| panic!("{s}: {e:?}")),
        names,
    )
    .unwrap()
    {
        ResolvedQuery::Formula(f) => f,
        ResolvedQuery::Bound(_) => unreachable!("a state formula"),
    }
}

/// The markings of the JSON witness `w`, replayed on `net` from `start`: it starts there,
/// each step fires an enabled transition to the marking it names (or is a deadlock's own loop),
/// and a lasso closes.
pub fn replay(net: &PetriNet, w: &serde_json::Value, start: &[u64]) -> Vec<Vec<u64>> {
    let marking = |s: &serde_json::Value| {
        let mut m = vec![0u64; net.places.len()];
        for (p, n) in s["marking"].as_object().unwrap() {
            m[net.place_index(p).unwrap()] = n.as_u64().unwrap();
        }
        m
    };
    let steps = w["steps"].as_array().unwrap();
    let mut out = vec![marking(&steps[0])];
    assert_eq!(out[0], start, "the witness starts where it should");
    for s in &steps[1..] {
        let m = out.last().unwrap().clone();
        let name = s["transition"].as_str().unwrap();
        let next = if name == "(deadlock loop)" {
            assert!((0..net.transitions.len()).all(|t| !net.enabled(t, &m)));
            m
        } else {
            let t = net.transition_index(name).unwrap();
            assert!(net.enabled(t, &m), "{name} not enabled");
            net.fire(t, &m)
        };
        assert_eq!(next, marking(s));
        out.push(next);
    }
    if let Some(l) = w["loop_start"].as_u64() {
        assert_eq!(out[l as usize], *out.last().unwrap(), "the lasso closes");
    }
    out
}
