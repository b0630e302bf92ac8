//! THE CTMC oracle test: every record of `../shared/benchmarks/ctmc/*/results.txt` (third-party
//! results: Storm exact/sound, PRISM's regression tests; README.md there gives the format and
//! tolerances) is checked against `saturn check --json` run with the DEFAULT flags a user gets
//! (no `--epsilon`, no `--max-iters`): the result must agree within the record's tolerance
//! (exact records: relative 1e-6), the printed bounds `[lower, upper]` must contain the
//! reference (within the same tolerance), and the state and transition counts must agree with
//! the record and with `statespace.txt`.
//!
//! Only the operator kinds of [`ALLOWED_UNSUPPORTED`] (the time-bounded next, which no record
//! uses) may be refused as "not supported yet"; any other refusal, error or missing answer fails.
//!
//! Instances above 60,000 states run in the ignored tests, which `.ci/run` runs as a step of its
//! own (the test profile is optimised, `opt-level = 2`):
//! `cargo test -p saturn-cli --test ctmc_oracle -- --ignored`.

#[path = "../../../testsupport/shared.rs"]
mod shared;

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;

/// One record of results.txt (the fields we use).
#[derive(Clone, Debug)]
struct Record {
    dir: String,
    model: String,
    constants: String,
    propfile: String,
    index: usize,
    property: String,
    result: String,
    tol: String,
    states: Option<u64>,
    transitions: Option<u64>,
}

fn records(dir: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(dir.join("results.txt")).expect("results.txt");
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: BTreeMap<&str, &str> = line.split('\t').filter_map(|x| x.split_once('=')).collect();
        out.push(Record {
            dir: dir.display().to_string(),
            model: f["model"].to_string(),
            constants: f["constants"].to_string(),
            propfile: f["propfile"].to_string(),
            index: f["index"].parse().expect("index"),
            property: f["property"].to_string(),
            result: f["result"].to_string(),
            tol: f["tol"].to_string(),
            states: f["states"].parse().ok(),
            transitions: f["transitions"].parse().ok(),
        });
    }
    out
}

/// `statespace.txt`: (model, constants) -> (states, transitions).
fn statespace(dir: &Path) -> BTreeMap<(String, String), (u64, u64)> {
    let Ok(text) = std::fs::read_to_string(dir.join("statespace.txt")) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let f: BTreeMap<&str, &str> =
                line.split('\t').filter_map(|x| x.split_once('=')).collect();
            (
                (f["model"].to_string(), f["constants"].to_string()),
                (
                    f["states"].parse().expect("states"),
                    f["transitions"].parse().expect("transitions"),
                ),
            )
        })
        .collect()
}

/// Does `x` agree with the reference `r` under `tol` (README: `rel:a`, `abs:b`, both = either)?
fn agrees(x: f64, r: f64, tol: &str) -> bool {
    if x == r || (x.is_infinite() && r.is_infinite() && x.signum() == r.signum()) {
        return true;
    }
    let tol = if tol.is_empty() {
        "rel:1e-6,abs:1e-12"
    } else {
        tol
    };
    tol.split(',').any(|t| match t.split_once(':') {
        Some(("rel", a)) => (x - r).abs() <= a.parse::<f64>().expect("tol") * r.abs(),
        Some(("abs", b)) => (x - r).abs() <= b.parse::<f64>().expect("tol"),
        _ => panic!("unknown tolerance {t}"),
    })
}

/// The reasons (messages of `saturn check`) for which a record may be unanswered: the transient
/// operators, not computed yet. Anything else unanswered is a failure.
const ALLOWED_UNSUPPORTED: &[&str] = &["a time-bounded next (X<=t)"];

/// Do the printed bounds contain the reference `r` (within `tol`)?
fn contains(p: &serde_json::Value, r: f64, tol: &str) -> Result<(), String> {
    let num = |v: &serde_json::Value| match v {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.replace("Infinity", "inf").parse().ok(),
        _ => None,
    };
    let (Some(lo), Some(hi)) = (num(&p["lower"]), num(&p["upper"])) else {
        return Err(format!(
            "no numeric bounds: lower {} upper {}",
            p["lower"], p["upper"]
        ));
    };
    if lo <= r && r <= hi || agrees(lo, r, tol) || agrees(hi, r, tol) {
        Ok(())
    } else {
        Err(format!("bounds [{lo}, {hi}] exclude the reference"))
    }
}

fn value(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Bool(b) => Some(b.to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        serde_json::Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

#[derive(Default, Debug)]
struct Tally {
    agreed: usize,
    disagreed: Vec<String>,
    unsupported: usize,
    groups: usize,
    /// Agreeing results printed as estimates (`"guaranteed": false`).
    estimates: Vec<String>,
}

/// Run every group (model, constants, property file) with at most/at least `max_states`
/// states (`big` selects those above) on `engine` (`sparse` or `symbolic`).
fn run(big: bool, engine: &str) -> Option<Tally> {
    let root = shared::existing(
        shared::benchmarks("ctmc"),
        "CTMC oracle test (results.txt) skipped",
    )?;
    const LIMIT: u64 = 60_000;
    let mut groups: BTreeMap<(String, String, String, String), Vec<Record>> = BTreeMap::new();
    let mut spaces = BTreeMap::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("ctmc dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in &dirs {
        for ((m, c), v) in statespace(d) {
            spaces.insert((d.display().to_string(), m, c), v);
        }
        for r in records(d) {
            groups
                .entry((
                    r.dir.clone(),
                    r.model.clone(),
                    r.constants.clone(),
                    r.propfile.clone(),
                ))
                .or_default()
                .push(r);
        }
    }
    let mut t = Tally::default();
    for ((dir, model, consts, propfile), recs) in &groups {
        let states = recs.iter().find_map(|r| r.states).unwrap_or(0);
        if (states > LIMIT) != big {
            continue;
        }
        t.groups += 1;
        let mut cmd = Command::cargo_bin("saturn").expect("saturn binary");
        cmd.current_dir(dir).args([
            "check", model, "--props", propfile, "--json", "--engine", engine,
        ]);
        if !consts.is_empty() {
            cmd.args(["--const", consts]);
        }
        let out = cmd.output().expect("saturn runs");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{dir}/{model} {consts}: no JSON ({e}); stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let what = format!("{model} [{consts}] {propfile}");
        let got_states = v["states"]
            .as_u64()
            .unwrap_or_else(|| panic!("{what}: {v}"));
        let got_trans = v["transitions"].as_u64().expect("transitions");
        for r in recs {
            if let Some(s) = r.states {
                assert_eq!(got_states, s, "{what}: states");
            }
            if let Some(x) = r.transitions {
                assert_eq!(got_trans, x, "{what}: transitions");
            }
        }
        if let Some(&(s, x)) = spaces.get(&(dir.clone(), model.clone(), consts.clone())) {
            assert_eq!((got_states, got_trans), (s, x), "{what}: statespace.txt");
        }
        let props = v["properties"].as_array().expect("properties");
        for r in recs {
            let p = props
                .iter()
                .find(|p| p["index"].as_u64() == Some(r.index as u64))
                .unwrap_or_else(|| panic!("{what}: no property {}", r.index));
            let label = format!("{what} #{} {} = {}", r.index, r.property, r.result);
            match p["status"].as_str() {
                Some("ok") => {
                    let got = value(&p["result"]).unwrap_or_default();
                    let ok = match (got.parse::<f64>(), r.result.parse::<f64>()) {
                        (Ok(x), Ok(y)) => {
                            if !agrees(x, y, &r.tol) {
                                Err(String::new())
                            } else {
                                contains(p, y, &r.tol)
                            }
                        }
                        _ if got == r.result => Ok(()),
                        _ => Err(String::new()),
                    };
                    if p["guaranteed"] == serde_json::Value::Bool(false) {
                        t.estimates.push(label.clone());
                    }
                    match ok {
                        Ok(()) => t.agreed += 1,
                        Err(why) => t.disagreed.push(format!(
                            "{label}: got {got} (bounds [{}, {}], guaranteed {}) {why}",
                            p["lower"], p["upper"], p["guaranteed"]
                        )),
                    }
                }
                Some("unsupported") => {
                    let m = p["message"].as_str().unwrap_or_default();
                    if ALLOWED_UNSUPPORTED.iter().any(|k| m.contains(k)) {
                        t.unsupported += 1;
                    } else {
                        t.disagreed
                            .push(format!("{label}: refused, not an allowed kind: {m}"));
                    }
                }
                other => t
                    .disagreed
                    .push(format!("{label}: status {other:?}: {}", p["message"])),
            }
        }
    }
    eprintln!(
        "CTMC oracle, {engine} engine ({} groups): {} agreed, {} disagreed, {} not supported yet, {} estimates (not guaranteed): {:?}",
        t.groups,
        t.agreed,
        t.disagreed.len(),
        t.unsupported,
        t.estimates.len(),
        t.estimates
    );
    Some(t)
}

fn verdict(t: Tally) {
    assert!(
        t.disagreed.is_empty(),
        "{} record(s) disagree:\n{}",
        t.disagreed.len(),
        t.disagreed.join("\n")
    );
    assert!(t.groups == 0 || t.agreed > 0, "no record was checked");
}

#[test]
fn small_instances_agree_with_the_reference_results() {
    if let Some(t) = run(false, "sparse") {
        verdict(t);
    }
}

#[test]
fn small_instances_agree_on_the_symbolic_engine() {
    if let Some(t) = run(false, "symbolic") {
        verdict(t);
    }
}

#[test]
#[ignore = "instances above 60,000 states: a step of their own in .ci/run"]
fn large_instances_agree_with_the_reference_results() {
    if let Some(t) = run(true, "sparse") {
        verdict(t);
    }
}

#[test]
#[ignore = "instances above 60,000 states: a step of their own in .ci/run"]
fn large_instances_agree_on_the_symbolic_engine() {
    if let Some(t) = run(true, "symbolic") {
        verdict(t);
    }
}
