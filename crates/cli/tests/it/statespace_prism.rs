//! `saturn statespace` on PRISM models: counts against the explicit reference exploration of
//! the same program and against PRISM's own counts (the shared CTMC folder, small instances;
//! the large ones are in crates/prism/tests/it/statespace_shared.rs), the deadlock note, and bad
//! input (positions of run-time errors, constants).

use crate::shared;

use std::path::Path;

use assert_cmd::Command;
use saturn_prism::{lower::lower, ConstOverrides};

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

/// A directory removed on drop.
struct TempDir(std::path::PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A model file in a fresh temporary directory (one per call).
fn model_file(name: &str, text: &str) -> (TempDir, String) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("statespace_prism-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write model");
    let p = path.display().to_string();
    (TempDir(dir), p)
}

/// Run saturn; (exit code, stdout JSON, stderr).
fn run_json(args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = saturn().args(args).output().expect("saturn runs");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON object ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        out.status.code().unwrap_or(-1),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// (states, transitions, deadlocks) of the explicit reference exploration.
fn reference(text: &str, consts: &str) -> (String, String, String) {
    let ov = ConstOverrides::parse(consts).expect("constants");
    let prog = saturn_prism::load_model("m.sm", text, &ov).expect("valid model");
    let model = lower(&prog).expect("lowered");
    let ex = saturn_reference::explore_general(&model, 1 << 20).expect("small model");
    (
        ex.states.len().to_string(),
        ex.prism_transitions().to_string(),
        ex.deadlocks.len().to_string(),
    )
}

fn counts(v: &serde_json::Value) -> (String, String, String) {
    let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    (s("states"), s("transitions"), s("deadlocks"))
}

/// A tandem queue with a synchronised action, a guard over two variables, a copy and a
/// state-dependent rate.
const TANDEM: &str = "ctmc
const int c;
const double lambda = 4*c;
module queue1
  x : [0..c] init 0;
  [] x<c -> lambda : (x'=x+1);
  [route] x>0 -> 2 : (x'=x-1);
endmodule
module queue2
  y : [0..c] init 0;
  last : [0..c] init 0;
  [route] y<c & x+y<=c+1 -> 1 : (y'=y+1) & (last'=x);
  [] y>0 -> 3*y : (y'=y-1);
endmodule
";

#[test]
fn tandem_matches_the_explicit_reference_for_every_method_and_order() {
    let (_d, path) = model_file("tandem.sm", TANDEM);
    for c in [1, 2, 5] {
        let consts = format!("c={c}");
        let want = reference(TANDEM, &consts);
        for extra in [
            &[][..],
            &["--order", "file-rev"],
            &["--order", "force"],
            &["--order", "sloan"],
            &["--method", "bfs"],
        ] {
            let mut args = vec!["statespace", path.as_str(), "--const", &consts, "--json"];
            args.extend_from_slice(extra);
            let (code, v, _) = run_json(&args);
            assert_eq!(code, 0, "{args:?}: {v}");
            assert_eq!(v["status"], "ok");
            assert_eq!(v["input"], "prism");
            assert_eq!(counts(&v), want, "{args:?}");
        }
    }
}

#[test]
fn text_output_names_the_counts() {
    let (_d, path) = model_file("tandem.prism", TANDEM);
    let out = saturn()
        .args(["statespace", &path, "--const", "c=2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let (s, t, _) = reference(TANDEM, "c=2");
    assert!(text.contains(&format!("states: {s}\n")), "{text}");
    assert!(text.contains(&format!("transitions: {t}\n")), "{text}");
    assert!(text.contains("constants: c=2"), "{text}");
}

#[test]
fn a_deadlock_gets_a_self_loop_and_a_note() {
    let text = "dtmc\nmodule m\n  x : [0..3] init 0;\n  [] x<3 -> 0.5 : (x'=x+1) + 0.5 : (x'=min(x+2,3));\nendmodule\n";
    let (_d, path) = model_file("dead.pm", text);
    let (code, v, err) = run_json(&["statespace", &path, "--json"]);
    assert_eq!(code, 0);
    assert_eq!(counts(&v), reference(text, ""));
    assert_eq!(v["deadlocks"], "1");
    // 0->1, 0->2, 1->2, 1->3, 2->3 and the self-loop of 3
    assert_eq!(v["transitions"], "6");
    assert!(
        err.contains("note: 1 deadlock state") && err.contains("x=3"),
        "{err}"
    );
}

/// The diagnostic of a failed run: (exit, line, column, message).
fn failure(path: &str, consts: &[&str]) -> (i32, Option<u64>, Option<u64>, String) {
    let mut args = vec!["statespace", path, "--json"];
    args.extend_from_slice(consts);
    let (code, v, err) = run_json(&args);
    assert_eq!(v["status"], "error", "{v}");
    assert!(!err.is_empty(), "a failure says why on stderr");
    let d = &v["diagnostics"][0];
    (
        code,
        d["line"].as_u64(),
        d["column"].as_u64(),
        d["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn an_update_out_of_range_is_positioned_at_its_command() {
    let text = "ctmc\nmodule m\n  x : [0..2] init 0;\n  [] true -> 1 : (x'=x+1);\nendmodule\n";
    let (_d, path) = model_file("range.sm", text);
    let (code, line, col, msg) = failure(&path, &[]);
    assert_eq!(code, 2);
    // the update `1 : (x'=x+1)` of the command on line 4
    assert_eq!((line, col), (Some(4), Some(14)), "{msg}");
    assert!(msg.contains("out of range") && msg.contains("x=2"), "{msg}");
}

#[test]
fn an_out_of_range_update_in_an_unreachable_state_is_no_error() {
    let text = "ctmc\nmodule m\n  x : [0..2] init 0;\n  y : [0..1] init 0;\n  [] x<2 -> 1 : (x'=x+1);\n  [] y=1 -> 1 : (x'=x+1);\nendmodule\n";
    let (_d, path) = model_file("fine.sm", text);
    let (code, v, _) = run_json(&["statespace", &path, "--json"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(counts(&v), reference(text, ""));
}

#[test]
fn negative_and_non_finite_rates_are_positioned_errors() {
    // each bad in state x=1 (the first where the guard holds): -1, 1e309, 1/0
    for (rate, what) in [
        ("x-2", "negative or not finite"),
        ("1e308*(x+9)", "negative or not finite"),
        ("1/(x-1)", "division by zero"),
    ] {
        let text = format!(
            "ctmc\nmodule m\n  x : [0..3] init 0;\n  [] x<3 -> 1 : (x'=x+1);\n  [] x>0 -> {rate} : (x'=x-1);\nendmodule\n"
        );
        let (_d, path) = model_file("rate.sm", &text);
        let (code, line, col, msg) = failure(&path, &[]);
        assert_eq!(code, 2, "{rate}");
        assert_eq!((line, col), (Some(5), Some(13)), "{rate}: {msg}");
        assert!(msg.contains(what) && msg.contains("x=1"), "{rate}: {msg}");
    }
}

#[test]
fn constants_undefined_unknown_or_ranged_are_errors() {
    let (_d, path) = model_file("tandem.sm", TANDEM);
    let (code, line, _, msg) = failure(&path, &[]);
    assert_eq!(code, 2);
    assert!(
        line.is_some() && msg.contains("undefined constant"),
        "{msg}"
    );
    let (code, _, _, msg) = failure(&path, &["--const", "c=2,zz=1"]);
    assert_eq!(code, 2);
    assert!(msg.contains("zz"), "{msg}");
    let (code, _, _, msg) = failure(&path, &["--const", "c=1:3"]);
    assert_eq!(code, 2);
    assert!(msg.contains("one value"), "{msg}");
}

#[test]
fn syntax_errors_and_mdps_are_refused_cleanly() {
    let (_d, path) = model_file("bad.sm", "ctmc\nmodule m\n  x : [0..2] init 0\nendmodule\n");
    let (code, line, _, _) = failure(&path, &[]);
    assert_eq!(code, 2);
    assert!(line.is_some());
    let (_d2, path) = model_file(
        "m.nm",
        "mdp\nmodule m\n  x : [0..1] init 0;\n  [] x=0 -> (x'=1);\nendmodule\n",
    );
    let (code, _, _, msg) = failure(&path, &[]);
    assert_eq!(code, 2);
    assert!(msg.contains("mdp"), "{msg}");
}

#[test]
fn const_on_a_net_is_refused() {
    let (code, _, _, msg) = failure("kanban:2", &["--const", "N=2"]);
    assert_eq!(code, 2);
    assert!(msg.contains("--const"), "{msg}");
}

/// PRISM's counts for the small instances of the shared folder (up to 100k states), through
/// the command line.
#[test]
fn small_shared_records_match_prism() {
    let Some(root) = shared::existing(
        shared::benchmarks("ctmc"),
        "PRISM's counts are not checked through the CLI",
    ) else {
        return;
    };
    let mut checked = 0;
    for (dir, model, consts) in [
        ("kanban", "kanban.prism", "t=2"),
        ("fms", "fms.prism", "n=2"),
        ("polling", "polling.6.prism", ""),
        ("cluster", "cluster.prism", "N=8"),
        ("embedded", "embedded.prism", "MAX_COUNT=2"),
    ] {
        let want = prism_record(&root.join(dir), model, consts);
        let Some(want) = want else {
            panic!("{dir}/{model} [{consts}] has no record in the shared folder");
        };
        let path = root.join(dir).join(model).display().to_string();
        let mut args = vec!["statespace", path.as_str(), "--json"];
        if !consts.is_empty() {
            args.extend_from_slice(&["--const", consts]);
        }
        let (code, v, err) = run_json(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert_eq!(
            (
                v["states"].as_str().unwrap().to_string(),
                v["transitions"].as_str().unwrap().to_string()
            ),
            want,
            "{args:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 5);
}

/// (states, transitions) of the first record of `model` whose constants are `consts` (model
/// constants come first in a record's list) in the folder's statespace.txt or results.txt.
fn prism_record(dir: &Path, model: &str, consts: &str) -> Option<(String, String)> {
    for file in ["statespace.txt", "results.txt"] {
        let Ok(text) = std::fs::read_to_string(dir.join(file)) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let field = |k: &str| {
                line.split('\t')
                    .filter_map(|f| f.split_once('='))
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| v.to_string())
            };
            let c = field("constants").unwrap_or_default();
            // a model without constants: any record (the others are property constants)
            let matches = consts.is_empty() || c == consts || c.starts_with(&format!("{consts},"));
            if field("model").as_deref() == Some(model) && matches {
                if let (Some(s), Some(t)) = (field("states"), field("transitions")) {
                    return Some((s, t));
                }
            }
        }
    }
    None
}
