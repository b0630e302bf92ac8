//! `saturn mcc DIR --examination StateSpace`: contest lines checked against the explicit reference.

use assert_cmd::Command;

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

/// A temp directory holding `model.pnml` for `family:n`; removed on drop.
struct ModelDir(std::path::PathBuf);
impl ModelDir {
    fn new(family: &str, n: u32, tag: &str) -> ModelDir {
        let dir = std::env::temp_dir().join(format!(
            "saturn-mcc-{tag}-{family}-{n}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let net = saturn_model::families::generate(family, n).unwrap();
        std::fs::write(
            dir.join("model.pnml"),
            saturn_pnml::writer::write_pnml(&net),
        )
        .unwrap();
        ModelDir(dir)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}
impl Drop for ModelDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn expected(family: &str, n: u32) -> String {
    expected_by(family, n, "TECHNIQUES DECISION_DIAGRAMS")
}

fn expected_by(family: &str, n: u32, t: &str) -> String {
    let net = saturn_model::families::generate(family, n).unwrap();
    let r = saturn_reference::explore_petri(&net, 1 << 20).unwrap();
    format!(
        "STATE_SPACE STATES {} {t}\nSTATE_SPACE TRANSITIONS {} {t}\n\
         STATE_SPACE MAX_TOKEN_IN_PLACE {} {t}\nSTATE_SPACE MAX_TOKEN_PER_MARKING {} {t}\n",
        r.states, r.transitions, r.max_tokens_place, r.max_tokens_marking
    )
}

/// The StateSpace lines `saturn mcc` prints for `family:n`.
fn state_space(family: &str, n: u32, tag: &str) -> String {
    let d = ModelDir::new(family, n, tag);
    let out = saturn()
        .args(["mcc", d.path(), "--examination", "StateSpace"])
        .env_remove("BK_EXAMINATION")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn state_space_lines() {
    for (family, n) in [("kanban", 2), ("fms", 2), ("robin", 3)] {
        assert_eq!(state_space(family, n, "flag"), expected(family, n));
    }
}

/// queens:12 (856,189 states) takes the order portfolio about 19 s alone (release build); the
/// explicit search raced beside it usually answers first (after its one-second delay). Whichever
/// engine answers, the lines are the reference's, and name the technique that gave them.
#[test]
fn the_race_with_the_explicit_search_gives_the_reference_figures() {
    let got = state_space("queens", 12, "explicit");
    let by = |t: &str| expected_by("queens", 12, t);
    assert!(
        got == by("TECHNIQUES EXPLICIT") || got == by("TECHNIQUES DECISION_DIAGRAMS"),
        "{got}"
    );
}

/// `--json` names what answered: on a small net, with the default flags, the decision
/// diagrams (done before the explicit search's one-second start), with the candidate order
/// that finished first (one of the portfolio's names).
#[test]
fn the_json_names_the_engine_and_the_order_that_answered() {
    let d = ModelDir::new("kanban", 2, "json");
    let out = saturn()
        .args(["mcc", d.path(), "--examination", "StateSpace", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["engine"], "symbolic", "{v}");
    let order = v["order_used"].as_str().expect("an order's name");
    assert!(!order.is_empty(), "{v}");
    let r = saturn_reference::explore_petri(
        &saturn_model::families::generate("kanban", 2).unwrap(),
        1 << 20,
    )
    .unwrap();
    assert_eq!(v["states"], r.states.to_string(), "{v}");
}

#[test]
fn examination_from_the_environment() {
    let d = ModelDir::new("kanban", 2, "env");
    let out = saturn()
        .args(["mcc", d.path()])
        .env("BK_EXAMINATION", "StateSpace")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected("kanban", 2));

    let out = saturn()
        .args(["mcc", d.path()])
        .env_remove("BK_EXAMINATION")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn unknown_examination_fails() {
    let d = ModelDir::new("kanban", 1, "unknown");
    let out = saturn()
        .args(["mcc", d.path(), "--examination", "NoSuchExam"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("NoSuchExam") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn timeout_prints_cannot_compute() {
    let d = ModelDir::new("queens", 14, "timeout");
    let out = saturn()
        .args([
            "mcc",
            d.path(),
            "--examination",
            "StateSpace",
            "--timeout",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "CANNOT_COMPUTE"
    );
}

use crate::shared;

/// `saturn mcc DIR --examination E --explicit only`: the explicit search alone answers the
/// reachability formulas, the upper bounds and the global properties it decides (all but
/// Liveness here), `TECHNIQUES EXPLICIT` (with `STUBBORN_SETS` when a reduced search decided
/// it, and `STRUCTURAL_REDUCTION` first when it ran on the net reduced for the formula),
/// every answer equal to the contest's oracle.
#[test]
fn the_explicit_search_alone_answers_the_formula_examinations_as_the_oracle() {
    let Some(dir) = shared::existing(
        shared::benchmarks("mcc/Philosophers-PT-000010"),
        "the explicit formula examinations' oracle test is left out",
    ) else {
        return;
    };
    let oracle = std::fs::read_to_string(dir.join("oracle.txt")).unwrap();
    let want = |id: &str| -> Option<String> {
        oracle
            .lines()
            .filter(|l| !l.starts_with('#'))
            .find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some(id)).then(|| w.next().unwrap_or("").to_string())
            })
    };
    for exam in [
        "ReachabilityCardinality",
        "ReachabilityFireability",
        "UpperBounds",
        "GlobalProperties",
    ] {
        let out = saturn()
            .args(["mcc", dir.to_str().unwrap(), "--examination", exam])
            .args(["--explicit", "only"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).unwrap();
        let mut answered = 0;
        for line in out.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(f[0], "FORMULA", "{line}");
            if f[1] == "Liveness" {
                continue;
            }
            // the whole search, or the search of one formula reduced by stubborn sets (on the
            // net reduced for it)
            assert!(
                f[3..] == ["TECHNIQUES", "EXPLICIT"]
                    || f[3..] == ["TECHNIQUES", "EXPLICIT", "STUBBORN_SETS"]
                    || f[3..]
                        == [
                            "TECHNIQUES",
                            "STRUCTURAL_REDUCTION",
                            "EXPLICIT",
                            "STUBBORN_SETS"
                        ],
                "{line}"
            );
            match want(f[1]) {
                Some(w) if w != "?" => assert_eq!(f[2], w, "{line}"),
                _ => {}
            }
            answered += 1;
        }
        assert!(answered >= 4, "{exam}: {out}");
    }
}
