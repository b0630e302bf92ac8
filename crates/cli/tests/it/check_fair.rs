//! `saturn check --eg-method` and `--fair`: every EG method and every fair EG method give the
//! explicit checker's answers (crates/reference, with and without weak fairness) on generated
//! nets, through the CLI; bad `--fair` input is refused with a message naming the flag; fair
//! witnesses (`--witness` with `--fair`, default method) replay on the net, their cycle meets
//! every fairness set, and they are as short as the explicit minimum, in both deadlock readings.

use assert_cmd::Command;

use crate::json_witness;
use crate::json_witness::{replay, state_formula};
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
    let names = json_witness::names(&net);
    let state = |s: &str| state_formula(&names, s);
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
    let tcd = [
        "--fair",
        "HasR_0 >= 1",
        "--witness",
        "--witness-method",
        "tcd",
    ];
    assert!(refused(&tcd).contains("--fair"));
}

/// `saturn check philosophers:4 --ctl F --fair ... --witness --json` as a user runs it (default
/// witness method), under one, two and three fairness sets and both deadlock readings: every
/// witness of the formulas above replays on the net, a lasso's cycle meets every fairness set
/// and says so (`fair`), and its length is the explicit minimum
/// (`CtlChecker::shortest_fair_lasso`, or for `A[φ U ψ]` the shorter with the path of
/// `E[¬ψ U ¬φ ∧ ¬ψ]`).
#[test]
fn fair_witnesses_are_shortest() {
    let net = saturn_model::families::generate("philosophers", 4).unwrap();
    let space = explore_petri(&net, 100_000).unwrap();
    let index = json_witness::indices(&space.markings);
    let names = json_witness::names(&net);
    let state = |s: &str| state_formula(&names, s);
    let all_fair = ["HasR_0 >= 1", "HasR_2 >= 1", "WaitL_1 >= 1"];
    let mut checked = 0;
    for n in 1..=3 {
        let fair_text = &all_fair[..n];
        let fair: Vec<_> = fair_text.iter().map(|s| state(s)).collect();
        for (mode, flag) in [
            (Deadlocks::Maximal, "maximal"),
            (Deadlocks::SelfLoop, "self-loop"),
        ] {
            let plain = CtlChecker::new(&net, &space, mode);
            let c = CtlChecker::new(&net, &space, mode)
                .with_fairness(&fair)
                .unwrap();
            let sets: Vec<Vec<bool>> = fair.iter().map(|f| plain.sat(f).unwrap()).collect();
            let mut args = vec!["check", "philosophers:4", "--witness", "--deadlocks", flag];
            for f in FORMULAS {
                args.extend(["--ctl", f]);
            }
            for f in fair_text {
                args.extend(["--fair", f]);
            }
            let v = json_witness::json_of(&args);
            for (f, o) in FORMULAS.iter().zip(v["formulas"].as_array().unwrap()) {
                let what = format!("{f} under {fair_text:?} ({flag})");
                let w = &o["witness"];
                if w.is_null() {
                    continue;
                }
                let ms = replay(&net, w, &net.initial_marking());
                let st: Vec<usize> = ms.iter().map(|m| index[m]).collect();
                let not = |v: Vec<bool>| v.into_iter().map(|x| !x).collect::<Vec<bool>>();
                let (within, path_min) = if let Some(arg) = f.strip_prefix("EG") {
                    (c.sat(&state(arg)).unwrap(), None)
                } else if let Some(arg) = f.strip_prefix("AF") {
                    (not(c.sat(&state(arg)).unwrap()), None)
                } else {
                    // A[Idle_0 >= 1 U HasL_0 >= 1]
                    let g = c.sat(&state("Idle_0 >= 1")).unwrap();
                    let nh = not(c.sat(&state("HasL_0 >= 1")).unwrap());
                    let end: Vec<bool> = (0..g.len()).map(|s| nh[s] && !g[s]).collect();
                    let p = c.eu_distances(&nh, &end)[0].map(|d| d as usize);
                    (nh, p)
                };
                let lasso_min = c.shortest_fair_lasso(&within, &sets);
                let min = lasso_min.into_iter().chain(path_min).min();
                assert_eq!(Some(ms.len() - 1), min, "{what}: not shortest");
                assert_eq!(w["shortest"], true, "{what}");
                assert_eq!(w["method"], "layers", "{what}");
                if let Some(l) = w["loop_start"].as_u64() {
                    assert_eq!(w["fair"], true, "{what}");
                    assert!(st.iter().all(|&s| within[s]), "{what}: leaves its set");
                    for set in &sets {
                        let cycle = &st[l as usize..];
                        assert!(cycle.iter().any(|&s| set[s]), "{what}: misses a set");
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 12, "{checked} witnesses checked");
}
