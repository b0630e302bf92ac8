//! `saturn statespace`: figures checked against the explicit reference, and bad input.

use assert_cmd::Command;
use predicates::prelude::*;

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

/// The explicit reference's figures for `family:n` as strings.
fn reference(family: &str, n: u32) -> [String; 4] {
    let net = saturn_model::families::generate(family, n).expect("family");
    let r = saturn_reference::explore_petri(&net, 1 << 20).expect("small");
    [
        r.states.to_string(),
        r.transitions.to_string(),
        r.max_tokens_place.to_string(),
        r.max_tokens_marking.to_string(),
    ]
}

fn figures(v: &serde_json::Value) -> [String; 4] {
    let s = |k: &str| match &v[k] {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    [
        s("states"),
        s("transitions"),
        s("max_tokens_place"),
        s("max_tokens_marking"),
    ]
}

#[test]
fn kanban_2_matches_the_reference() {
    let v = json(&["statespace", "kanban:2", "--json"]);
    assert_eq!(v["states"], "4600");
    assert_eq!(figures(&v), reference("kanban", 2));
}

#[test]
fn every_method_and_order_agree_with_the_reference() {
    for (family, n) in [
        ("kanban", 2),
        ("philosophers", 4),
        ("slot", 3),
        ("queens", 5),
    ] {
        let want = reference(family, n);
        let model = format!("{family}:{n}");
        for method in ["bfs", "bfs-frontier", "saturation"] {
            let orders = saturn_model::order::ORDER_NAMES.iter().chain(&["auto"]);
            for &order in orders {
                let v = json(&[
                    "statespace",
                    &model,
                    "--json",
                    "--method",
                    method,
                    "--order",
                    order,
                ]);
                assert_eq!(figures(&v), want, "{model} {method} {order}");
                // `auto` events with the `auto` order, implicit with one order
                let used = v["relations_used"].as_str().unwrap_or_default();
                if order == "auto" {
                    assert_eq!(v["relations"], "auto");
                    assert!(used == "implicit" || used == "mdd", "{used}");
                } else {
                    assert_eq!((&v["relations"], used), (&"implicit".into(), "implicit"));
                }
            }
            let v = json(&[
                "statespace",
                &model,
                "--json",
                "--method",
                method,
                "--relations",
                "mdd",
            ]);
            assert_eq!(figures(&v), want, "{model} {method} with relation MDDs");
            assert_eq!(v["relations"], "mdd");
            assert_eq!(v["relations_used"], "mdd");
        }
    }
}

/// One-hot groups of places on one level (`--levels group`) give the figures of one place a
/// level, under every method, with either way of applying events; the philosophers' local
/// states are such groups.
#[test]
fn one_hot_levels_agree_with_one_place_a_level() {
    for (family, n) in [("philosophers", 5), ("slot", 3), ("kanban", 2)] {
        let want = reference(family, n);
        let model = format!("{family}:{n}");
        for method in ["bfs", "saturation"] {
            for relations in ["implicit", "mdd"] {
                let args = |levels| {
                    vec![
                        "statespace",
                        &model,
                        "--json",
                        "--method",
                        method,
                        "--relations",
                        relations,
                        "--levels",
                        levels,
                    ]
                };
                let place = json(&args("place"));
                let group = json(&args("group"));
                assert_eq!(figures(&place), want, "{model} {method} {relations}");
                assert_eq!(
                    figures(&group),
                    want,
                    "{model} {method} {relations} grouped"
                );
                assert_eq!(place["one_hot_levels"], 0);
                assert_eq!(place["levels"], place["places"]);
                let (levels, one_hot) = (&group["levels"], &group["one_hot_levels"]);
                if family == "philosophers" {
                    assert!(one_hot.as_u64().unwrap() >= n as u64, "{group}");
                    assert!(levels.as_u64() < place["places"].as_u64(), "{group}");
                }
            }
        }
    }
}

#[test]
fn text_output() {
    saturn()
        .args(["statespace", "kanban:2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("states: 4600"));
}

fn fails(args: &[&str], needle: &str) {
    let out = saturn().args(args).output().expect("saturn runs");
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: stderr lacks {needle:?}: {err}"
    );
}

#[test]
fn bad_input() {
    fails(
        &["statespace", "/nonexistent/net.pnml"],
        "/nonexistent/net.pnml",
    );
    fails(&["statespace", "nosuch:3"], "nosuch:3");
    fails(&["statespace", "kanban:0"], "out of range");
    fails(&["statespace", "kanban:x"], "kanban:x");
    fails(&["statespace", "kanban:2", "--method", "dfs"], "dfs");
    fails(&["statespace", "kanban:2", "--order", "random"], "random");
    fails(&["statespace", "kanban:2", "--relations", "bdd"], "bdd");
    fails(&["statespace", "kanban:2", "--timeout", "0"], "0");
    fails(&["generate", "kanban", "0"], "out of range");
}

#[test]
fn malformed_xml_reports_line_and_column() {
    let dir = std::env::temp_dir().join(format!("saturn-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.pnml");
    std::fs::write(
        &f,
        "<?xml version=\"1.0\"?>\n<pnml>\n  <net id=\"x\">\n</pnml>\n",
    )
    .unwrap();
    let out = saturn()
        .args(["statespace", f.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // "line:column" or "line N" somewhere in the message
    assert!(
        err.contains(":4:") || err.contains("line 4") || err.contains(":3:"),
        "no line/column in: {err}"
    );
}

#[test]
fn limits_stop_cleanly() {
    let out = saturn()
        .args(["statespace", "queens:14", "--timeout", "1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("time limit"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("states:"));

    let out = saturn()
        .args(["statespace", "queens:12", "--max-memory", "1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("memory limit"), "{err}");
}

/// Forests that run out of node ids (a small artificial cap, `SATURN_MAX_NODES`) stop the run
/// cleanly: exit 3, a message saying why, no partial figures; for nets and PRISM models.
#[test]
fn running_out_of_node_ids_is_a_clean_stop() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prism = dir.join(format!("too_many_nodes-{}.prism", std::process::id()));
    std::fs::write(
        &prism,
        "ctmc\nmodule m\n x : [0..20] init 0;\n y : [0..20] init 0;\n \
         [] x<20 -> 1 : (x'=x+1);\n [] y<20 -> 1 : (y'=y+1);\nendmodule\n",
    )
    .unwrap();
    for model in ["kanban:3", prism.to_str().unwrap()] {
        let out = saturn()
            .env("SATURN_MAX_NODES", "12")
            .args(["statespace", model])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{model}: {err}");
        assert!(err.contains("32-bit"), "{model}: {err}");
        assert!(out.stdout.is_empty(), "{model}: no figures");
        // without the cap, the same model is answered
        let ok = saturn().args(["statespace", model]).output().unwrap();
        assert_eq!(ok.status.code(), Some(0), "{model}");
    }
    let _ = std::fs::remove_file(&prism);
}

/// The explicit search: alone (`--explicit only`) it gives the reference's figures and says
/// so; raced with the `auto` portfolio (on queens:12, 856,189 states, whose diagrams take the
/// portfolio about 19 s, it usually wins; on queens:6 saturation does) the figures are the
/// reference's whichever engine wins; on an unbounded net it stops at its memory budget, never
/// with figures.
#[test]
fn the_explicit_search_agrees_with_the_reference() {
    for (family, n) in [
        ("kanban", 2),
        ("philosophers", 4),
        ("slot", 3),
        ("queens", 5),
    ] {
        let m = format!("{family}:{n}");
        let v = json(&["statespace", &m, "--explicit", "only", "--json"]);
        assert_eq!(v["engine"], "explicit", "{m}");
        assert_eq!(figures(&v), reference(family, n), "{m}");
    }
    // raced: the figures are the reference's whichever engine gives them
    for n in [12, 6] {
        let v = json(&[
            "statespace",
            &format!("queens:{n}"),
            "--order",
            "auto",
            "--json",
        ]);
        assert!(
            v["engine"] == "explicit" || v["engine"] == "symbolic",
            "queens:{n}: {v}"
        );
        assert_eq!(figures(&v), reference("queens", n), "queens:{n}");
    }

    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/nets/unbounded.pnml");
    let out = saturn()
        .args([
            "statespace",
            net,
            "--explicit",
            "only",
            "--max-memory",
            "96",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["status"], "memory", "{v}");
    assert!(v.get("states").is_none());
}

/// A net whose figures are polynomials in its number of tokens (saturn_model::scaling): the
/// figures interpolated from small scales are those of the net generated as it is and those
/// the explicit search counts.
#[test]
fn figures_by_scaling_match_direct_generation_and_the_explicit_search() {
    let net = "tests/nets/assembly-30.pnml";
    let scaled = json(&["statespace", net, "--json"]);
    assert_eq!(scaled["engine"], "scaled");
    assert_eq!(scaled["scale"], 30);
    assert_eq!(scaled["scales_generated"], 7);
    assert_eq!(scaled["degree"], 5);
    let direct = json(&[
        "statespace",
        net,
        "--json",
        "--scaling",
        "off",
        "--polytope",
        "off",
        "--explicit",
        "off",
    ]);
    assert_eq!(direct["engine"], "symbolic");
    let explicit = json(&["statespace", net, "--json", "--explicit", "only"]);
    assert_eq!(explicit["engine"], "explicit");
    assert_eq!(figures(&scaled), figures(&direct));
    assert_eq!(figures(&scaled), figures(&explicit));
    assert_eq!(scaled["states"], "602888");
    let text = saturn().args(["statespace", net]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("by scaling"), "{text}");
    assert!(text.contains("states: 602888"), "{text}");
}

/// A ring of 10,000 places with five tokens, through the portfolio on two cores: the second
/// worker recurses once per level like the first and needs the same big stack (this net, and
/// AirplaneLD-PT-1000 with 7,019 places, overflowed the default 2 MiB and aborted). Every
/// multiset of five places is a marking, C(n + 4, 5) of them, and a marking enables one
/// transition per marked place: n * C(n + 3, 4) edges.
#[test]
fn a_net_of_ten_thousand_levels_runs_on_the_second_core() {
    let n = 10_000;
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\
         <net id=\"ring\" type=\"http://www.pnml.org/version-2009/grammar/ptnet\"><page id=\"g\">",
    );
    for i in 0..n {
        if i % (n / 5) == 0 {
            x += &format!(
                "<place id=\"p{i}\"><initialMarking><text>1</text></initialMarking></place>"
            );
        } else {
            x += &format!("<place id=\"p{i}\"/>");
        }
    }
    for i in 0..n {
        x += &format!(
            "<transition id=\"t{i}\"/><arc id=\"a{i}\" source=\"p{i}\" target=\"t{i}\"/>\
             <arc id=\"b{i}\" source=\"t{i}\" target=\"p{}\"/>",
            (i + 1) % n
        );
    }
    x += "</page></net></pnml>\n";
    let dir = std::env::temp_dir().join(format!("saturn-ring-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join("ring.pnml");
    std::fs::write(&path, x).expect("written");
    let p = path.to_str().expect("utf-8");
    let v = json(&[
        "statespace",
        p,
        "--order",
        "auto",
        "--polytope",
        "off",
        "--explicit",
        "off",
        "--json",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    let binomial = |n: u128, k: u128| (0..k).fold(1u128, |c, i| c * (n - i) / (i + 1));
    let n = n as u128;
    let want = [
        binomial(n + 4, 5).to_string(),
        (n * binomial(n + 3, 4)).to_string(),
        "5".into(),
        "5".into(),
    ];
    assert_eq!(figures(&v), want);
}
