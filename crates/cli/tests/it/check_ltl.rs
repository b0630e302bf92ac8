//! `saturn check MODEL --ltl ...` as the user runs it: verdicts against the explicit reference
//! (`saturn_reference::ltl`, the reachability graph × the automaton), both deadlock readings,
//! and the diagnostics for formulas that are not LTL or name unknown nodes.

use assert_cmd::Command;
use predicates::prelude::*;
use saturn_logic::{parse_query, resolve, ResolvedQuery};
use saturn_reference::explore_petri;
use saturn_reference::ltl::{accepting_run, LtlDeadlocks};
use saturn_reference::ltl_lasso::shortest_counterexample;

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
    reference_with(family, n, src, maximal, |net, space, p, rdl| {
        !accepting_run(net, space, &p.automaton, &p.atoms.formulas, rdl).unwrap()
    })
}

/// The reference's least length of a counterexample of `A φ` on `family:n` (`None`: it holds).
fn reference_shortest(family: &str, n: u32, src: &str, maximal: bool) -> Option<usize> {
    reference_with(family, n, src, maximal, |net, space, p, rdl| {
        shortest_counterexample(net, space, &p.automaton, &p.atoms.formulas, rdl).unwrap()
    })
}

/// `f` of the net, its reachability graph, the automaton of `¬φ` and the deadlock reading.
fn reference_with<T>(
    family: &str,
    n: u32,
    src: &str,
    maximal: bool,
    run: impl Fn(
        &saturn_model::PetriNet,
        &saturn_reference::ExplicitStateSpace<Vec<u64>>,
        &saturn_ltl::NegatedProperty,
        LtlDeadlocks,
    ) -> T,
) -> T {
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
    run(&net, &space, &p, rdl)
}

/// `saturn check philosophers:3` with every formula of [`FORMULAS`] and `extra` flags.
fn check_all(extra: &[&str], maximal: bool) -> std::process::Output {
    let mut cmd = saturn();
    cmd.args(["check", "philosophers:3"]).args(extra);
    for f in FORMULAS {
        cmd.args(["--ltl", f]);
    }
    if maximal {
        cmd.args(["--ltl-deadlocks", "maximal"]);
    }
    cmd.output().unwrap()
}

#[test]
fn verdicts_agree_with_the_reference() {
    let methods: [&[&str]; 7] = [
        &[],
        &["--ltl-method", "explicit"],
        &["--ltl-method", "explicit", "--por", "off"],
        &["--ltl-method", "el"],
        &["--ltl-method", "tc"],
        &["--ltl-method", "el", "--ltl-level", "top"],
        &["--ltl-method", "tc", "--ltl-level", "top"],
    ];
    for (maximal, extra) in [false, true]
        .into_iter()
        .flat_map(|m| methods.iter().map(move |e| (m, *e)))
    {
        let out = check_all(extra, maximal);
        assert!(out.status.success(), "{extra:?} {out:?}");
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
                "{f} (maximal: {maximal}, {extra:?}): {line}"
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

/// `--por`: the explicit product is reduced for a formula without `X` (`partial_order` in the
/// JSON), not for one with `X`, nor with `--por off`; the verdicts are the same; a wrong value
/// is refused.
#[test]
fn partial_order_flag() {
    let run = |por: &str| -> serde_json::Value {
        let out = saturn()
            .args([
                "check",
                "philosophers:3",
                "--ltl-method",
                "explicit",
                "--json",
            ])
            .args([
                "--ltl",
                "G (WaitL_0 = 1 -> F HasL_0 = 1)",
                "--ltl",
                "X Idle_0 = 1",
            ])
            .args(["--por", por])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (on, off) = (run("on"), run("off"));
    let f = |v: &serde_json::Value, i: usize, k: &str| v["formulas"][i][k].clone();
    assert_eq!(f(&on, 0, "partial_order"), true);
    assert_eq!(f(&on, 1, "partial_order"), false);
    assert_eq!(f(&off, 0, "partial_order"), false);
    for i in 0..2 {
        assert_eq!(f(&on, i, "result"), f(&off, i, "result"));
    }
    saturn()
        .args([
            "check",
            "philosophers:3",
            "--ltl",
            "G Idle_0 = 1",
            "--por",
            "maybe",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--por"));
}

/// `--witness`: every FALSE verdict comes with a counterexample that replays on the net from
/// its initial marking (each step's transition enabled and giving the next marking, a
/// `(deadlock loop)` only at a deadlock under the stuttering reading), closes its lasso with a
/// step, or, as a path, ends in a deadlock under the maximal reading; a TRUE verdict has none.
/// With the default method it is a shortest one (`shortest: true`, as many steps as the
/// reference's least counterexample, `saturn_reference::ltl_lasso`); with `--ltl-method
/// explicit` the depth-first search's (`shortest: false`). (The library's test checks on random
/// nets that the run also violates the formula.)
#[test]
fn counterexamples_replay_on_the_net() {
    for method in ["auto", "explicit"] {
        counterexamples_replay(method);
    }
}

fn counterexamples_replay(method: &str) {
    let net = saturn_model::families::generate("philosophers", 3).unwrap();
    let tr = |id: &str| net.transitions.iter().position(|t| t.id == id);
    let marking = |m: &serde_json::Value| -> Vec<u64> {
        let mut v = vec![0; net.places.len()];
        for (p, n) in m.as_object().unwrap() {
            let i = net.places.iter().position(|x| &x.id == p).unwrap();
            v[i] = n.as_u64().unwrap();
        }
        v
    };
    let dead = |m: &[u64]| (0..net.transitions.len()).all(|t| !net.enabled(t, m));
    let mut checked = 0;
    for maximal in [false, true] {
        let out = check_all(&["--witness", "--json", "--ltl-method", method], maximal);
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for (f, r) in FORMULAS.iter().zip(v["formulas"].as_array().unwrap()) {
            let w = &r["witness"];
            if r["result"] == true {
                assert!(w.is_null(), "{f}: a witness for a TRUE verdict");
                continue;
            }
            let steps = w["steps"]
                .as_array()
                .unwrap_or_else(|| panic!("{f}: no witness"));
            let ms: Vec<Vec<u64>> = steps.iter().map(|s| marking(&s["marking"])).collect();
            if method == "auto" {
                assert_eq!(w["shortest"], true, "{f}");
                let least = reference_shortest("philosophers", 3, f, maximal);
                assert_eq!(Some(steps.len() - 1), least, "{f} maximal={maximal}");
            } else {
                assert_eq!(w["shortest"], false, "{f}");
            }
            assert_eq!(ms[0], net.initial_marking(), "{f}");
            for (i, s) in steps.iter().enumerate().skip(1) {
                let (a, b) = (&ms[i - 1], &ms[i]);
                let name = s["transition"].as_str().unwrap();
                match tr(name) {
                    Some(t) => assert!(net.enabled(t, a) && net.fire(t, a) == *b, "{f}: step {i}"),
                    None => assert!(
                        name == "(deadlock loop)" && !maximal && dead(a) && a == b,
                        "{f}: step {i} {name}"
                    ),
                }
            }
            match w["loop_start"].as_u64() {
                Some(l) => {
                    assert_eq!(w["kind"], "lasso");
                    assert_eq!(ms.last(), ms.get(l as usize), "{f}: the lasso closes");
                }
                None => {
                    assert!(
                        maximal && dead(ms.last().unwrap()),
                        "{f}: a path ends in a deadlock"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} counterexamples checked");
}
