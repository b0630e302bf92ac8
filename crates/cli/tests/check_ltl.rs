//! `saturn check MODEL --ltl ...` as the user runs it: verdicts against the explicit reference
//! (`saturn_reference::ltl`, the reachability graph × the automaton), both deadlock readings,
//! and the diagnostics for formulas that are not LTL or name unknown nodes.

use assert_cmd::Command;
use predicates::prelude::*;
use saturn_logic::{parse_query, resolve, ResolvedQuery};
use saturn_reference::explore_petri;
use saturn_reference::ltl::{accepting_run, LtlDeadlocks};

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

const FORMULAS: [&str; 8] = [
    "G F enabled(GoEat_0)",
    "F G Idle_0 = 1",
    "G (WaitL_0 = 1 -> F HasL_0 = 1)",
    "[Idle_0 = 1 U WaitL_0 = 1]",
    "X X (HasR_0 = 1 | Idle_1 = 1)",
    "G (deadlock -> X deadlock)",
    "F deadlock",
    "!(G F HasR_0 = 1) | G F HasR_1 = 1",
];

/// The reference's verdict of `A φ` on `family:n`.
fn reference(family: &str, n: u32, src: &str, maximal: bool) -> bool {
    let net = saturn_model::families::generate(family, n).unwrap();
    let space = explore_petri(&net, 100_000).unwrap();
    let names = saturn_logic::NameTable::new(
        net.places.iter().map(|p| p.id.as_str()),
        net.transitions.iter().map(|t| t.id.as_str()),
    );
    let q = parse_query(&format!("A ({src})")).unwrap();
    let ResolvedQuery::Formula(f) = resolve(&q, &names).unwrap() else {
        panic!("a formula")
    };
    let phi = saturn_ltl::path_of(&f).unwrap();
    let (dl, rdl) = if maximal {
        (saturn_ltl::Deadlocks::Maximal, LtlDeadlocks::Maximal)
    } else {
        (saturn_ltl::Deadlocks::Stutter, LtlDeadlocks::Stutter)
    };
    let p = saturn_ltl::negated(&phi, dl).unwrap();
    !accepting_run(&net, &space, &p.automaton, &p.atoms.formulas, rdl).unwrap()
}

#[test]
fn verdicts_agree_with_the_reference() {
    for maximal in [false, true] {
        let mut cmd = saturn();
        cmd.args(["check", "philosophers:3"]);
        for f in FORMULAS {
            cmd.args(["--ltl", f]);
        }
        if maximal {
            cmd.args(["--ltl-deadlocks", "maximal"]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), FORMULAS.len(), "{text}");
        for (i, (line, f)) in lines.iter().zip(FORMULAS).enumerate() {
            let want = if reference("philosophers", 3, f, maximal) {
                "TRUE"
            } else {
                "FALSE"
            };
            assert!(
                line.starts_with(&format!("ltl-{} {want} ", i + 1)),
                "{f} (maximal: {maximal}): {line}"
            );
        }
    }
}

#[test]
fn not_ltl_or_unknown_names_are_refused() {
    saturn()
        .args(["check", "philosophers:2", "--ltl", "E F Idle_0 = 1"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("is not an LTL formula"));
    saturn()
        .args(["check", "philosophers:2", "--ltl", "G F enabled(Nope)"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown transition `Nope`"))
        .stderr(predicate::str::contains("--ltl #1"));
    saturn()
        .args(["check", "philosophers:2", "--ltl", "G (F Idle_0 = 1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--ltl #1"));
    saturn()
        .args([
            "check",
            "philosophers:2",
            "--ltl",
            "G F Idle_0 = 1",
            "--ctl",
            "EF Idle_0 = 1",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be combined"));
}

#[test]
fn json_output() {
    let out = saturn()
        .args([
            "check",
            "philosophers:2",
            "--ltl",
            "G F Idle_0 = 1",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["deadlocks"], "stutter");
    assert_eq!(v["formulas"][0]["id"], "ltl-1");
    assert!(v["formulas"][0]["result"].is_boolean());
}
