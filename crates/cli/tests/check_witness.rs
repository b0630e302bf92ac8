//! `saturn check --witness` and `--eu-method`: the JSON witness replays on the net (each
//! transition enabled, each marking the firing's result), an EF witness is as long as the
//! explicit shortest distance, and every EU method gives the same answers.

use assert_cmd::Command;
use saturn_model::PetriNet;

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
        let t = net
            .transition_index(s["transition"].as_str().unwrap())
            .unwrap();
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
