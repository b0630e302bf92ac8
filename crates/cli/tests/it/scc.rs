//! `saturn scc`: the figures of generated nets against Tarjan on the explicit reachability
//! graph, and refused flag combinations.

use assert_cmd::Command;
use predicates::prelude::*;
use saturn_reference::scc::{Graph, Sccs};

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = saturn().args(args).output().expect("saturn runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `(states in SCCs, SCCs, states in terminal SCCs, terminal SCCs)` of `family:n` by Tarjan.
fn reference(family: &str, n: u32) -> [String; 4] {
    let net = saturn_model::families::generate(family, n).expect("family");
    let space = saturn_reference::explore_petri(&net, 1 << 20).expect("small");
    let sccs = Sccs::new(&Graph::new(&space));
    let cycle = sccs.cycle_states().iter().filter(|&&b| b).count();
    let terminal = sccs.terminal();
    [
        cycle.to_string(),
        sccs.nontrivial_count().to_string(),
        terminal.iter().map(Vec::len).sum::<usize>().to_string(),
        terminal.len().to_string(),
    ]
}

#[test]
fn figures_match_tarjan() {
    for (family, n) in [("philosophers", 4), ("kanban", 2), ("fms", 1)] {
        let want = reference(family, n);
        let model = format!("{family}:{n}");
        let all = json(&["scc", &model, "--json"]);
        assert_eq!(all["method"], "xb-sat", "the default method");
        for method in ["lockstep", "xb-sat", "tc"] {
            let all = json(&["scc", &model, "--method", method, "--json"]);
            assert_eq!(all["method"], method);
            // the closure takes auto's first order unless told (issue 47, item 5)
            let order = if method == "tc" { "auto" } else { "file-rev" };
            assert_eq!(all["order"], order, "{model} {method}");
            assert_eq!(all["scc_states"], want[0].as_str(), "{model} {method}");
            if method == "tc" {
                assert!(all["scc_count"].is_null(), "tc does not enumerate");
            } else {
                assert_eq!(all["scc_count"].to_string(), want[1], "{model} {method}");
            }
        }
        for method in ["xb-bfs", "xb-sat", "tc"] {
            let term = json(&["scc", &model, "--terminal", "--method", method, "--json"]);
            assert_eq!(term["method"], method);
            assert_eq!(
                term["scc_states"],
                want[2].as_str(),
                "{model} terminal {method}"
            );
            if method != "tc" {
                assert_eq!(term["scc_count"].to_string(), want[3], "{model} terminal");
            }
        }
    }
}

#[test]
fn text_output_names_the_figures() {
    saturn()
        .args(["scc", "philosophers:3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("states in SCCs: "))
        .stdout(predicate::str::contains("SCCs: 1\n"));
}

#[test]
fn method_and_query_must_agree() {
    saturn()
        .args([
            "scc",
            "philosophers:3",
            "--terminal",
            "--method",
            "lockstep",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "for terminal SCCs use --method xb-sat",
        ));
    saturn()
        .args(["scc", "philosophers:3", "--method", "xb-bfs", "--json"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("\"status\":\"error\""));
}

#[test]
fn streett_pairs_select_fair_cycles() {
    let want = reference("philosophers", 3);
    for method in ["tc", "lockstep"] {
        // R empty: every cycle is fair
        let all = json(&[
            "scc",
            "philosophers:3",
            "--streett",
            "false;false",
            "--method",
            method,
            "--json",
        ]);
        assert_eq!(all["scc_states"], want[0].as_str(), "{method}");
        // weak fairness with an empty set: no cycle is fair
        let none = json(&[
            "scc",
            "philosophers:3",
            "--streett",
            "true;false",
            "--method",
            method,
            "--json",
        ]);
        assert_eq!(none["scc_states"], "0", "{method}");
    }
}

#[test]
fn bad_streett_pairs_are_reported() {
    saturn()
        .args(["scc", "philosophers:3", "--streett", "true"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("expected 'R;C'"));
    saturn()
        .args([
            "scc",
            "philosophers:3",
            "--streett",
            "nosuchplace >= 1;true",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nosuchplace"));
    saturn()
        .args([
            "scc",
            "philosophers:3",
            "--streett",
            "true;true",
            "--method",
            "xb-sat",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--method tc or lockstep"));
}
