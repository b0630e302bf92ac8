//! `saturn check --witness` and `--eu-method`: the JSON witness replays on the net (each
//! transition enabled, each marking the firing's result), an EF witness is as long as the
//! explicit shortest distance, an EG lasso printed as a user runs the command (text, default
//! flags) is as long as the explicit minimum (stem + cycle over every knot) in both deadlock
//! readings, `--witness-method bfs` gives the walk of Figure 5.1 and says it is not shortest,
//! and every EU method gives the same answers.

use assert_cmd::Command;
use saturn_logic::{Atom, StateFormula};
use saturn_model::PetriNet;

use crate::shared;

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = saturn().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Replay a JSON witness on `net`; the number of steps.
fn replay(net: &PetriNet, w: &serde_json::Value) -> usize {
    let steps = w["steps"].as_array().unwrap();
    let marking = |s: &serde_json::Value| {
        let mut m = vec![0u64; net.places.len()];
        for (p, n) in s["marking"].as_object().unwrap() {
            m[net.place_index(p).unwrap()] = n.as_u64().unwrap();
        }
        m
    };
    let mut m = marking(&steps[0]);
    assert_eq!(m, net.initial_marking());
    for s in &steps[1..] {
        let name = s["transition"].as_str().unwrap();
        if name == "(deadlock loop)" {
            // a deadlock's own loop (--deadlocks self-loop)
            assert!((0..net.transitions.len()).all(|t| !net.enabled(t, &m)));
            assert_eq!(m, marking(s));
            continue;
        }
        let t = net.transition_index(name).unwrap();
        assert!(net.enabled(t, &m));
        m = net.fire(t, &m);
        assert_eq!(m, marking(s));
    }
    if let Some(l) = w["loop_start"].as_u64() {
        assert_eq!(marking(&steps[l as usize]), m, "the lasso closes");
    }
    steps.len() - 1
}

#[test]
fn witnesses_replay_on_the_net() {
    let net = saturn_model::families::generate("philosophers", 3).unwrap();
    let space = saturn_reference::explore_petri(&net, 1 << 16).unwrap();
    let dead: Vec<bool> = (0..space.states)
        .map(|s| space.successors[s].is_empty())
        .collect();
    let explicit =
        saturn_reference::CtlChecker::new(&net, &space, saturn_reference::Deadlocks::Maximal);
    let want = explicit.eu_distances(&vec![true; space.states], &dead)[0].unwrap();
    let v = json(&[
        "check",
        "philosophers:3",
        "--witness",
        "--json",
        "--ctl",
        "EF deadlock",
        "--ctl",
        "EG !deadlock",
        "--ctl",
        "AG !deadlock",
        "--ctl",
        "deadlock",
    ]);
    let fs = v["formulas"].as_array().unwrap();
    assert_eq!(replay(&net, &fs[0]["witness"]), want as usize);
    assert!(fs[1]["witness"]["loop_start"].is_u64());
    replay(&net, &fs[1]["witness"]);
    assert_eq!(replay(&net, &fs[2]["witness"]), want as usize);
    assert!(fs[3]["witness"].is_null());
}

#[test]
fn every_eu_method_gives_the_same_answers() {
    let mut answers = Vec::new();
    for m in [
        "trad",
        "sat",
        "cons-nsf-pot",
        "cons-nsf-rch",
        "cons-sat-pot",
        "cons-sat-rch",
    ] {
        let v = json(&[
            "check",
            "kanban:2",
            "--json",
            "--eu-method",
            m,
            "--ctl",
            "E [pm1 >= 1 U pout4 = 2]",
            "--ctl",
            "AG EF pm2 = 0",
            "--ctl",
            "A [pback1 <= 1 U pm3 >= 1]",
        ]);
        let r: Vec<_> = v["formulas"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["result"].clone(), f["satisfying_states"].clone()))
            .collect();
        answers.push(r);
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
}

/// `p >= 1` for the place named `name` of `net`.
fn marked(net: &PetriNet, name: &str) -> StateFormula {
    StateFormula::Atom(Atom::marked(net.place_index(name).unwrap()))
}

/// The number of steps of the one witness in `saturn check`'s text output, and whether it says
/// it is shortest.
fn printed_steps(out: &str) -> (usize, bool) {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("witness ("))
        .unwrap_or_else(|| panic!("no witness printed:\n{out}"));
    let (_, rest) = line.split_once(", ").unwrap();
    let (n, rest) = rest.split_once(" steps, ").unwrap();
    (n.parse().unwrap(), rest.starts_with("shortest)"))
}

/// `saturn check MODEL --ctl 'EG φ' --witness` as a user runs it, for each φ (a place marked,
/// or not) and both deadlock readings: the printed lasso is exactly as long as the explicit
/// minimum, and says it is shortest; `--witness-method bfs` prints a lasso no shorter, and the
/// JSON says which method made it; with `tcd` (the closure with distances, costly on larger
/// nets, so only where asked) the JSON witness replays, is as long as the minimum and says so.
fn eg_lassos_are_shortest(model: &str, net: &PetriNet, places: &[&str], tcd: bool) {
    let space = saturn_reference::explore_petri(net, 1 << 16).unwrap();
    for (flag, mode) in [
        ("maximal", saturn_reference::Deadlocks::Maximal),
        ("self-loop", saturn_reference::Deadlocks::SelfLoop),
    ] {
        let explicit = saturn_reference::CtlChecker::new(net, &space, mode);
        for p in places {
            for (text, phi) in [
                (format!("EG {p} >= 1"), marked(net, p)),
                (
                    format!("EG !({p} >= 1)"),
                    StateFormula::Not(Box::new(marked(net, p))),
                ),
            ] {
                let min = explicit.shortest_eg_witness(&explicit.sat(&phi).unwrap());
                let args = [
                    "check",
                    model,
                    "--ctl",
                    &text,
                    "--witness",
                    "--deadlocks",
                    flag,
                ];
                let out = saturn().args(args).output().unwrap();
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let out = String::from_utf8(out.stdout).unwrap();
                let Some(min) = min else {
                    assert!(
                        out.contains(" FALSE ") && !out.contains("witness ("),
                        "{out}"
                    );
                    continue;
                };
                assert_eq!(
                    printed_steps(&out),
                    (min, true),
                    "{model} {text} --deadlocks {flag}:\n{out}"
                );
                let v = json(&[&args[..], &["--json", "--witness-method", "bfs"]].concat());
                let w = &v["formulas"][0]["witness"];
                assert_eq!(
                    (w["method"].as_str(), w["shortest"].as_bool()),
                    (Some("bfs"), Some(false))
                );
                assert!(replay(net, w) >= min, "{model} {text}");
                // the default (auto): the walk or a search's witness proven shortest, layers
                // or, past their budget, the closure
                let v = json(&[&args[..], &["--json"]].concat());
                let w = &v["formulas"][0]["witness"];
                assert!(
                    matches!(
                        w["method"].as_str(),
                        Some("bfs" | "search" | "layers" | "tcd")
                    ),
                    "{model} {text}: {w}"
                );
                assert_eq!(w["shortest"].as_bool(), Some(true));
                assert_eq!(replay(net, w), min, "{model} {text}");
                let v = json(&[&args[..], &["--json", "--witness-method", "layers"]].concat());
                let w = &v["formulas"][0]["witness"];
                assert_eq!(
                    (w["method"].as_str(), w["shortest"].as_bool()),
                    (Some("layers"), Some(true))
                );
                assert_eq!(replay(net, w), min, "{model} {text} layers");
                if tcd {
                    let v = json(&[&args[..], &["--json", "--witness-method", "tcd"]].concat());
                    let w = &v["formulas"][0]["witness"];
                    assert_eq!(
                        (w["method"].as_str(), w["shortest"].as_bool()),
                        (Some("tcd"), Some(true))
                    );
                    assert_eq!(replay(net, w), min, "{model} {text} tcd");
                }
            }
        }
    }
}

#[test]
fn eg_lassos_are_shortest_on_a_generated_net() {
    let net = saturn_model::families::generate("philosophers", 4).unwrap();
    eg_lassos_are_shortest(
        "philosophers:4",
        &net,
        &["Idle_0", "HasL_1", "WaitR_2"],
        true,
    );
}

/// A net written for issue 47 (`tests/nets/lasso.pnml`): a long and a short cycle through the
/// initial marking and a deadlock one step away. The walk of Figure 5.1 closes the long cycle
/// (4 steps); the shortest witnesses, by both methods, take the short cycle (2 steps) or, under
/// the maximal reading, stop in the deadlock (1 step), as the explicit minimum says.
#[test]
fn eg_lassos_are_shortest_on_a_written_net() {
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/nets/lasso.pnml");
    let net = saturn_pnml::reader::read_pnml_file(std::path::Path::new(model)).unwrap();
    eg_lassos_are_shortest(model, &net, &["a", "e", "x"], true);
    let text = |f: &str, d: &str, m: &str| {
        let out = saturn()
            .args(["check", model, "--ctl", f, "--witness", "--deadlocks", d])
            .args(["--witness-method", m])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    for m in ["tcd", "layers", "auto"] {
        let out = text("EG !(x >= 1)", "maximal", m);
        assert_eq!(printed_steps(&out), (2, true), "{m}:\n{out}");
        let out = text("EG !(e >= 1)", "maximal", m);
        assert!(
            out.contains("witness (path, 1 steps, shortest)"),
            "{m}:\n{out}"
        );
        let out = text("EG !(e >= 1)", "self-loop", m);
        assert_eq!(printed_steps(&out), (2, true), "{m}:\n{out}");
    }
    let out = text("EG !(x >= 1)", "maximal", "bfs");
    assert_eq!(printed_steps(&out), (4, false), "{out}");
}

/// Token rings named and as long as `lens` says, in that order (one token each, in the
/// ring's place 0): the walk of Figure 5.1, which fires the first enabled transition, goes
/// round the first ring.
fn rings(name: &str, lens: &[(&str, usize)]) -> PetriNet {
    let mut net = PetriNet {
        name: name.into(),
        places: Vec::new(),
        transitions: Vec::new(),
    };
    for &(ring, len) in lens {
        let first = net.places.len();
        for i in 0..len {
            add_place(&mut net, &format!("{ring}{i}"), u64::from(i == 0));
        }
        for i in 0..len {
            let (from, to) = (first + i, first + (i + 1) % len);
            add_transition(&mut net, &format!("t{ring}{i}"), from, to);
        }
    }
    net
}

/// A token in `s` that may enter a ring of `m` places at any of them, then goes round it: every
/// ring marking is one step from the initial one, so within `n - 2` steps of it lies a cycle of
/// `m` steps whatever `n > 2`, and no proof that the lasso of `m + 1` steps is shortest holds.
fn fan_into_ring(m: usize) -> PetriNet {
    let mut net = PetriNet {
        name: format!("fan-ring-{m}"),
        places: Vec::new(),
        transitions: Vec::new(),
    };
    add_place(&mut net, "s", 1);
    for i in 0..m {
        add_place(&mut net, &format!("r{i}"), 0);
    }
    for i in 0..m {
        add_transition(&mut net, &format!("go{i}"), 0, 1 + i);
        add_transition(&mut net, &format!("step{i}"), 1 + i, 1 + (i + 1) % m);
    }
    net
}

fn add_place(net: &mut PetriNet, id: &str, initial: u64) {
    net.places.push(saturn_model::petri::Place {
        id: id.into(),
        name: id.into(),
        initial,
    });
}

/// A transition moving one token from place `from` to place `to`.
fn add_transition(net: &mut PetriNet, id: &str, from: usize, to: usize) {
    use saturn_model::petri::Arc;
    net.transitions.push(saturn_model::petri::Transition {
        id: id.into(),
        name: id.into(),
        inputs: vec![Arc {
            place: from,
            weight: 1,
        }],
        outputs: vec![Arc {
            place: to,
            weight: 1,
        }],
        inhibitors: vec![],
    });
}

/// `net` written as PNML in the temporary directory; its path.
fn written(net: &PetriNet) -> std::path::PathBuf {
    let path =
        std::env::temp_dir().join(format!("saturn-{}-{}.pnml", net.name, std::process::id()));
    std::fs::write(&path, saturn_pnml::writer::write_pnml(net)).unwrap();
    path
}

/// `--witness-method auto` (the default) hands a lasso to the closure with distances when no
/// proof holds and the distance layers' cycle searches pass their budget: on a token that
/// enters a ring of 12 places at any of them ([`fan_into_ring`]), each of the 12 knots one
/// step from the initial marking needs its own backward search of 11 preimages; on a ring of
/// 3 places the layers finish within it. Either way the lasso is as long as the explicit
/// minimum, and the JSON names the method that made it.
#[test]
fn auto_hands_long_cycles_to_the_closure() {
    for (m, method) in [(3, "layers"), (12, "tcd")] {
        let net = fan_into_ring(m);
        let path = written(&net);
        let model = path.to_str().unwrap();
        let space = saturn_reference::explore_petri(&net, 1 << 16).unwrap();
        let explicit =
            saturn_reference::CtlChecker::new(&net, &space, saturn_reference::Deadlocks::Maximal);
        let everywhere = vec![true; space.markings.len()];
        let min = explicit.shortest_eg_witness(&everywhere);
        assert_eq!(min, Some(m + 1), "the explicit minimum: a step, a turn");
        let v = json(&[
            "check",
            model,
            "--ctl",
            "EG !(s >= 2)",
            "--witness",
            "--json",
        ]);
        let w = &v["formulas"][0]["witness"];
        assert_eq!(w["method"].as_str(), Some(method), "ring of {m}: {w}");
        assert_eq!(w["shortest"].as_bool(), Some(true));
        assert_eq!(Some(replay(&net, w)), min, "ring of {m}");
        eg_lassos_are_shortest(model, &net, &["r0", "r1"], true);
        std::fs::remove_file(&path).ok();
    }
}

/// The default keeps a short witness when a proof says nothing shorter exists: on two token
/// rings whose shorter one (3 places) comes first, the walk of Figure 5.1 goes round it, and
/// on a chain of 5 steps into a deadlock it follows the chain (a maximal path of 5 steps, or 6
/// with the deadlock's own loop): `bfs`. With the longer ring (13 places) first, the walk goes
/// round that one, and a depth-first search finds the turn of the shorter one: `search`. The
/// JSON says shortest, and the length is the explicit minimum.
#[test]
fn auto_keeps_short_witnesses_proven_shortest() {
    let mut chain = rings("chain", &[("c", 6)]);
    chain.transitions.pop(); // c5 -> c0: the chain ends in a deadlock
    let cases = [
        (
            rings("short-first", &[("a", 3), ("b", 4)]),
            "a0",
            3,
            3,
            "bfs",
        ),
        (chain, "c0", 5, 6, "bfs"),
        (
            rings("long-first", &[("b", 13), ("a", 12)]),
            "a0",
            12,
            12,
            "search",
        ),
    ];
    for (net, place, maximal, self_loop, method) in cases {
        let path = written(&net);
        let model = path.to_str().unwrap();
        let space = saturn_reference::explore_petri(&net, 1 << 16).unwrap();
        for (flag, mode, want) in [
            ("maximal", saturn_reference::Deadlocks::Maximal, maximal),
            (
                "self-loop",
                saturn_reference::Deadlocks::SelfLoop,
                self_loop,
            ),
        ] {
            let explicit = saturn_reference::CtlChecker::new(&net, &space, mode);
            let everywhere = vec![true; space.markings.len()];
            let what = format!("{} --deadlocks {flag}", net.name);
            assert_eq!(
                explicit.shortest_eg_witness(&everywhere),
                Some(want),
                "{what}"
            );
            let f = format!("EG !({place} >= 2)");
            let f = f.as_str();
            let v = json(&[
                "check",
                model,
                "--ctl",
                f,
                "--witness",
                "--json",
                "--deadlocks",
                flag,
            ]);
            let w = &v["formulas"][0]["witness"];
            let what = format!("{what}: {w}");
            assert_eq!(w["method"].as_str(), Some(method), "{what}");
            assert_eq!(w["shortest"].as_bool(), Some(true), "{what}");
            assert_eq!(replay(&net, w), want, "{what}");
        }
        std::fs::remove_file(&path).ok();
    }
}

/// The two nets of issue 47: Philosophers-PT-000005 `EG Think_1 >= 1` (the walk took 6 steps,
/// the minimum is 3) and Railroad-PT-005 `EG pl_P31_1 >= 1` (18, the minimum 10).
#[test]
fn eg_lassos_are_shortest_on_the_issue_nets() {
    for (name, place) in [
        ("Philosophers-PT-000005", "Think_1"),
        ("Railroad-PT-005", "pl_P31_1"),
    ] {
        let Some(dir) = shared::existing(
            shared::benchmarks(&format!("mcc/{name}")),
            "the shortest EG witness of the issue's nets",
        ) else {
            continue;
        };
        let net = saturn_pnml::reader::read_pnml_file(&dir.join("model.pnml")).unwrap();
        // the closure with distances takes seconds on Railroad-PT-005 (docs/benchmarks.md)
        eg_lassos_are_shortest(dir.to_str().unwrap(), &net, &[place], false);
    }
}

/// `--witness-method` without `--witness` is refused, naming the missing flag (exit 2).
#[test]
fn witness_method_needs_witness() {
    let out = saturn()
        .args([
            "check",
            "philosophers:3",
            "--ctl",
            "EG Idle_0 >= 1",
            "--witness-method",
            "bfs",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--witness"));
}
