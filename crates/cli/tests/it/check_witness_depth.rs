//! `saturn check --witness --witness-depth N`: depth 1 is what `--witness` prints without the
//! flag; at depth N every nested witness replays on the net from the marking of its parent it
//! names, its formula (printed in Saturn's syntax, parsed back) holds there when it is an
//! E-formula and fails there when it is an A-formula (the explicit checker, with the same
//! fairness and deadlock reading), nesting goes no deeper than N; the shapes of thesis 5.3.1
//! (`F(r & G s)`, `G F phi`) are as short as the explicit minimum; bad values are refused
//! (exit 2).

use assert_cmd::Command;

use crate::json_witness;
use crate::json_witness::{replay, state_formula};
use saturn_logic::{NameTable, StateFormula};
use saturn_model::PetriNet;
use saturn_reference::{explore_petri, CtlChecker, Deadlocks};

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

const FORMULAS: [&str; 6] = [
    "AG (WaitL_0 >= 1 -> AF HasL_0 >= 1)",
    "EF (HasL_1 >= 1 & EX EG HasR_2 >= 1)",
    "EG EF HasR_0 >= 1",
    "AF AG !(HasR_0 >= 1)",
    "EF (EG (WaitL_1 >= 1) & !AG EF HasR_2 >= 1)",
    "E[Idle_0 >= 1 U (HasL_0 >= 1 & EG !(Idle_0 >= 1))]",
];

/// The JSON of `check philosophers:3 --witness` on [`FORMULAS`] with `extra` flags.
fn run(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["check", "philosophers:3", "--witness"];
    for f in FORMULAS {
        args.extend(["--ctl", f]);
    }
    args.extend_from_slice(extra);
    json_witness::json_of(&args)
}

fn witnesses(v: &serde_json::Value) -> Vec<serde_json::Value> {
    let fs = v["formulas"].as_array().unwrap();
    fs.iter().map(|f| f["witness"].clone()).collect()
}

#[test]
fn depth_one_is_the_default() {
    let plain = witnesses(&run(&[]));
    assert_eq!(plain, witnesses(&run(&["--witness-depth", "1"])));
    assert!(plain
        .iter()
        .all(|w| w.is_null() || w["nested"] == serde_json::json!([])));
    // deeper, the witnesses differ (nested ones, or a shape of 5.3.1)
    assert_ne!(plain, witnesses(&run(&["--witness-depth", "2"])));
}

struct Oracle<'a> {
    net: &'a PetriNet,
    checker: CtlChecker<'a>,
    index: &'a std::collections::HashMap<Vec<u64>, usize>,
    names: &'a NameTable,
}

impl Oracle<'_> {
    fn formula(&self, s: &str) -> StateFormula {
        state_formula(self.names, s)
    }

    /// Check the witness `w` of `f` from `start` and its nested ones, at most `depth` deep;
    /// the number of witnesses checked.
    fn check(&self, f: &StateFormula, w: &serde_json::Value, start: &[u64], depth: usize) -> usize {
        assert!(depth >= 1, "nested deeper than asked");
        let ms = replay(self.net, w, start);
        let at = self.index[start];
        let holds = self.checker.sat(f).unwrap()[at];
        let is_a = matches!(
            f,
            StateFormula::AX(_) | StateFormula::AF(_) | StateFormula::AG(_) | StateFormula::AU(..)
        );
        assert_eq!(
            holds, !is_a,
            "{f:?}: a witness of a formula that holds iff it is an E-formula"
        );
        let mut n = 1;
        for sub in w["nested"].as_array().unwrap() {
            let g = self.formula(sub["formula"].as_str().unwrap());
            let step = sub["state"].as_u64().unwrap() as usize;
            n += self.check(&g, &sub["witness"], &ms[step], depth - 1);
        }
        n
    }
}

#[test]
fn nested_witnesses_replay_and_hold() {
    let net = saturn_model::families::generate("philosophers", 3).unwrap();
    let space = explore_petri(&net, 100_000).unwrap();
    let names = json_witness::names(&net);
    let index = json_witness::indices(&space.markings);
    let mut total = 0;
    let mut deep = 0;
    let mut shapes = 0;
    for (mode, flag) in [
        (Deadlocks::Maximal, "maximal"),
        (Deadlocks::SelfLoop, "self-loop"),
    ] {
        for fair in [&[][..], &["HasR_1 >= 1"][..]] {
            let fair_f: Vec<_> = fair.iter().map(|s| state_formula(&names, s)).collect();
            let o = Oracle {
                net: &net,
                checker: CtlChecker::new(&net, &space, mode)
                    .with_fairness(&fair_f)
                    .unwrap(),
                index: &index,
                names: &names,
            };
            for depth in [2usize, 3] {
                let d = depth.to_string();
                let mut extra = vec!["--deadlocks", flag, "--witness-depth", d.as_str()];
                for f in fair {
                    extra.extend(["--fair", f]);
                }
                let v = run(&extra);
                for (text, w) in FORMULAS.iter().zip(witnesses(&v)) {
                    if w.is_null() {
                        continue;
                    }
                    let f = o.formula(text);
                    let n = o.check(&f, &w, &net.initial_marking(), depth);
                    total += n;
                    deep += usize::from(n > 1);
                    // the shapes of 5.3.1 are shortest: their length is the explicit minimum
                    let len = w["steps"].as_array().unwrap().len() - 1;
                    let sets: Vec<Vec<bool>> = fair_f
                        .iter()
                        .map(|g| CtlChecker::new(&net, &space, mode).sat(g).unwrap())
                        .collect();
                    match (w["shows"].as_str().unwrap(), text) {
                        ("F(r & G s)", t) if t.starts_with("AG") => {
                            let r = o.checker.sat(&o.formula("WaitL_0 >= 1")).unwrap();
                            let s = o.checker.sat(&o.formula("!(HasL_0 >= 1)")).unwrap();
                            let min = o.checker.shortest_until_globally(&r, &s, &sets);
                            assert_eq!(Some(len), min, "{text} ({flag}, {fair:?})");
                            shapes += 1;
                        }
                        ("G F phi", t) => {
                            let phi = o.checker.sat(&o.formula("HasR_0 >= 1")).unwrap();
                            let min = o.checker.shortest_recurrent(&phi, &sets);
                            assert_eq!(Some(len), min, "{t} ({flag}, {fair:?})");
                            shapes += 1;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    eprintln!("{total} witnesses, {deep} with nested ones, {shapes} shapes");
    assert!(
        total > 30 && deep > 4 && shapes >= 12,
        "{total} witnesses, {deep} with nested ones, {shapes} shapes"
    );
}

#[test]
fn bad_depths_are_refused() {
    for bad in [
        &["--witness", "--witness-depth", "0"][..],
        &["--witness", "--witness-depth", "x"],
        &["--witness", "--witness-depth", "65"],
        &["--witness-depth", "2"],
    ] {
        let mut args = vec!["check", "philosophers:3", "--ctl", "EG true"];
        args.extend_from_slice(bad);
        let out = saturn().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--witness"), "{bad:?}: {err}");
    }
}
