//! `saturn check --eg-method` and `--fair`: every EG method and every fair EG method give the
//! explicit checker's answers (crates/reference, with and without weak fairness) on generated
//! nets, through the CLI; bad `--fair` input is refused with a message naming the flag.

use assert_cmd::Command;
use saturn_logic::{parse_query, resolve, NameTable, ResolvedQuery};
use saturn_reference::{explore_petri, CtlChecker, Deadlocks};

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

const FORMULAS: [&str; 4] = [
    "EG true",
    "AF HasR_1 >= 1",
    "EG (HasL_0 = 0)",
    "A[Idle_0 >= 1 U HasL_0 >= 1]",
];
const FAIR: [&str; 2] = ["HasR_0 >= 1", "HasR_2 >= 1"];

/// `(verdict, satisfying states)` of each formula by the CLI with `extra` flags.
fn run(extra: &[&str]) -> Vec<(bool, String)> {
    let mut args = vec!["check", "philosophers:4", "--json"];
    for f in FORMULAS {
        args.extend(["--ctl", f]);
    }
    args.extend_from_slice(extra);
    let out = saturn().args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["formulas"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|f| {
            (
                f["result"].as_bool().unwrap(),
                f["satisfying_states"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The explicit checker's answers, with `fair` as weak fairness.
fn explicit(fair: &[&str]) -> Vec<(bool, String)> {
    let net = saturn_model::families::generate("philosophers", 4).unwrap();
    let space = explore_petri(&net, 100_000).unwrap();
    let names = NameTable::new(
        net.places.iter().map(|p| p.id.as_str()),
        net.transitions.iter().map(|t| t.id.as_str()),
    );
    let state = |s: &str| match resolve(&parse_query(s).unwrap(), &names).unwrap() {
        ResolvedQuery::Formula(f) => f,
        ResolvedQuery::Bound(_) => unreachable!("a state formula"),
    };
    let fair: Vec<_> = fair.iter().map(|s| state(s)).collect();
    let c = CtlChecker::new(&net, &space, Deadlocks::Maximal)
        .with_fairness(&fair)
        .unwrap();
    FORMULAS
        .iter()
        .map(|s| {
            let sat = c.sat(&state(s)).unwrap();
            (sat[0], sat.iter().filter(|&&b| b).count().to_string())
        })
        .collect()
}

#[test]
fn eg_methods_agree_with_the_explicit_checker() {
    let want = explicit(&[]);
    for m in ["trad", "tc"] {
        assert_eq!(run(&["--eg-method", m]), want, "--eg-method {m}");
    }
}

#[test]
fn fair_methods_agree_with_the_explicit_checker() {
    let want = explicit(&FAIR);
    // fairness changes the answers here (the two deadlocks are not fair)
    assert_ne!(want, explicit(&[]));
    for m in ["tc", "el"] {
        let mut args = vec!["--fair-method", m];
        for f in FAIR {
            args.extend(["--fair", f]);
        }
        assert_eq!(run(&args), want, "--fair-method {m}");
    }
}

/// Run `check philosophers:3 --ctl 'EG true'` with `extra`: it must be refused (exit 2); its
/// stderr.
fn refused(extra: &[&str]) -> String {
    let mut args = vec!["check", "philosophers:3", "--ctl", "EG true"];
    args.extend_from_slice(extra);
    let out = saturn().args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{extra:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bad_fairness_is_refused() {
    assert!(refused(&["--fair", "HasR_0 >="]).contains("--fair #1"));
    assert!(refused(&["--fair", "Nowhere >= 1"]).contains("Nowhere"));
    assert!(refused(&["--fair", "HasR_0 >= 1", "--witness"]).contains("--fair"));
}
