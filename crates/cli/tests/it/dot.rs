//! `--dot FILE` on `statespace` and `check`: the file is Graphviz DOT whose diagrams hold the
//! states the command counts. The test reads the DOT back (nodes, edges labelled by index
//! ranges, the named roots), counts the paths from each root to the terminal 1, and compares
//! with the figures printed: the reachable states, and each formula's satisfying states.

use std::collections::HashMap;

use assert_cmd::Command;

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

/// The number of indices in a label like `0,2-4`.
fn indices(label: &str) -> u128 {
    label
        .split(',')
        .map(|r| match r.split_once('-') {
            Some((a, b)) => b.parse::<u128>().unwrap() - a.parse::<u128>().unwrap() + 1,
            None => 1,
        })
        .sum()
}

/// Paths to the terminal 1 from each named root of a DOT file written by `--dot`.
fn counts(dot: &str) -> HashMap<String, u128> {
    let mut edges: HashMap<String, Vec<(String, u128)>> = HashMap::new();
    let mut roots = Vec::new();
    for line in dot.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("\"root ") {
            if let Some((name, to)) = rest.split_once("\" -> ") {
                roots.push((name.to_string(), to.trim_end_matches(';').to_string()));
            }
        } else if line.starts_with('n') && line.contains(" -> ") {
            let (from, rest) = line.split_once(" -> ").unwrap();
            let (to, label) = rest.split_once(" [label=\"").unwrap();
            let label = label.trim_end_matches("\"];");
            edges
                .entry(from.to_string())
                .or_default()
                .push((to.to_string(), indices(label)));
        }
    }
    fn paths(
        n: &str,
        edges: &HashMap<String, Vec<(String, u128)>>,
        memo: &mut HashMap<String, u128>,
    ) -> u128 {
        match n {
            "n0" => return 0,
            "n1" => return 1,
            _ => {}
        }
        if let Some(&c) = memo.get(n) {
            return c;
        }
        let c = edges.get(n).map_or(0, |es| {
            es.iter().map(|(t, k)| k * paths(t, edges, memo)).sum()
        });
        memo.insert(n.to_string(), c);
        c
    }
    let mut memo = HashMap::new();
    roots
        .into_iter()
        .map(|(name, n)| {
            let c = paths(&n, &edges, &mut memo);
            (name, c)
        })
        .collect()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("saturn-dot-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `saturn ARGS --dot PATH --json`: the JSON object it prints (the run must succeed) and the
/// path counts of the DOT file it writes.
fn run_with_dot(
    args: &[&str],
    path: &std::path::Path,
) -> (serde_json::Value, HashMap<String, u128>) {
    let out = saturn()
        .args(args)
        .args(["--dot", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let dot = std::fs::read_to_string(path).unwrap();
    assert!(dot.starts_with("digraph"), "{args:?}");
    (v, counts(&dot))
}

#[test]
fn statespace_dot_holds_the_reachable_states() {
    let dir = scratch("statespace");
    for model in ["philosophers:3", "kanban:2", "fms:1"] {
        let (v, c) = run_with_dot(&["statespace", model], &dir.join("s.dot"));
        assert_eq!(
            c["reachable"].to_string(),
            v["states"].as_str().unwrap(),
            "{model}"
        );
    }
}

#[test]
fn check_dot_holds_each_satisfying_set() {
    let path = scratch("check").join("c.dot");
    let (v, c) = run_with_dot(
        &[
            "check",
            "philosophers:3",
            "--ctl",
            "EF HasR_1 >= 1",
            "--ctl",
            "AG !deadlock",
            "--ctl",
            "EG HasL_0 = 0",
        ],
        &path,
    );
    assert_eq!(c["reachable"].to_string(), v["states"].as_str().unwrap());
    for f in v["formulas"].as_array().unwrap() {
        let id = f["id"].as_str().unwrap();
        let want = f["satisfying_states"].as_str().unwrap();
        assert_eq!(c[id].to_string(), want, "{id}");
    }
    let dot = std::fs::read_to_string(&path).unwrap();
    assert!(
        dot.contains("label=\"HasR_1\""),
        "levels named by their places"
    );
}

#[test]
fn scc_dot_holds_the_scc_states() {
    let path = scratch("scc").join("s.dot");
    for (extra, root) in [(None, "in SCCs"), (Some("--terminal"), "terminal")] {
        let mut args = vec!["scc", "kanban:2"];
        args.extend(extra);
        let (v, c) = run_with_dot(&args, &path);
        assert_eq!(c["reachable"].to_string(), v["states"].as_str().unwrap());
        assert_eq!(c[root].to_string(), v["scc_states"].as_str().unwrap());
    }
}

#[test]
fn dot_on_a_prism_model_is_refused() {
    let dir = scratch("prism");
    let model = dir.join("m.prism");
    std::fs::write(
        &model,
        "ctmc\nmodule m\n x : [0..1] init 0;\n [] x=0 -> 1 : (x'=1);\nendmodule\n",
    )
    .unwrap();
    saturn()
        .args([
            "statespace",
            model.to_str().unwrap(),
            "--dot",
            dir.join("m.dot").to_str().unwrap(),
        ])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--dot"));
}

#[test]
fn dot_with_ltl_is_refused() {
    saturn()
        .args([
            "check",
            "philosophers:2",
            "--ltl",
            "G F HasR_1 = 1",
            "--dot",
            "x.dot",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--dot"));
}
