//! The CLI's promises (issue 7): limits that hold on a net without a token bound, both PNML arc
//! forms, no panic on output, the contest's conventions, one JSON object per run, `-` as
//! standard input. Test nets are in `tests/nets/`.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value as Json;

#[path = "../../bench/src/child.rs"]
#[allow(dead_code)]
mod child;

fn saturn() -> Command {
    Command::cargo_bin("saturn").expect("the saturn binary is built for the tests")
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("saturn")
}

fn net(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/nets")
        .join(name)
        .display()
        .to_string()
}

/// A temporary directory holding `model.pnml` copied from `tests/nets/<name>`.
struct ContestDir(PathBuf);
impl ContestDir {
    /// A fresh directory per call (tests run in parallel in one process).
    fn new(name: &str) -> ContestDir {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "saturn-promises-{}-{}-{k}",
            name.replace('.', "-"),
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(net(name), dir.join("model.pnml")).unwrap();
        ContestDir(dir)
    }
    fn path(&self) -> String {
        self.0.display().to_string()
    }
}
impl Drop for ContestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panicked") && !stderr.contains("memory allocation of"),
        "{stderr}"
    );
}

/// Run saturn measured (wall time, peak RSS of the child); killed after 120 s.
fn measured(args: &[&str]) -> child::Measured {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let m = child::run(&bin(), &args, Duration::from_secs(120)).unwrap();
    eprintln!(
        "{args:?}: {:?} in {:.2} s, peak {} MiB",
        m.exit,
        m.wall_seconds,
        m.peak_rss_bytes / MIB
    );
    m
}

fn exit_code(m: &child::Measured) -> Option<i32> {
    match m.exit {
        child::Exit::Code(c) => Some(c),
        _ => None,
    }
}

const MIB: u64 = 1024 * 1024;

/// One second: within it no place of the net reaches the largest local state a node may hold
/// (2^28, reached after about 2.6 s with a release build and 4 s with the test build, which
/// stops the run first under a limit of 5 s), so the time limit is what stops the run.
#[test]
fn unbounded_net_stops_at_the_time_limit() {
    let unbounded = net("unbounded.pnml");
    let dir = ContestDir::new("unbounded.pnml");
    for args in [
        vec![
            "statespace",
            unbounded.as_str(),
            "--timeout",
            "1",
            "--boundedness",
            "off",
        ],
        vec![
            "mcc",
            &dir.path(),
            "--examination",
            "StateSpace",
            "--timeout",
            "1",
            "--boundedness",
            "off",
        ],
    ] {
        let m = measured(&args);
        assert_eq!(
            exit_code(&m),
            Some(3),
            "{args:?}: {:?} {}",
            m.exit,
            m.stderr
        );
        // a clean stop (status 3 above), well before the watchdog: a generous margin on a
        // loaded machine, not a performance target
        assert!(m.wall_seconds < 60.0, "{args:?}: {:.1} s", m.wall_seconds);
        no_panic(&m.stderr);
        assert!(m.stderr.contains("time limit of 1 s"), "{}", m.stderr);
        if args[0] == "mcc" {
            assert_eq!(m.stdout.trim(), "CANNOT_COMPUTE");
        }
    }
}

#[test]
fn unbounded_net_stops_at_the_memory_limit() {
    let unbounded = net("unbounded.pnml");
    let dir = ContestDir::new("unbounded.pnml");
    for args in [
        vec![
            "statespace",
            unbounded.as_str(),
            "--max-memory",
            "500",
            "--boundedness",
            "off",
        ],
        vec![
            "mcc",
            &dir.path(),
            "--examination",
            "StateSpace",
            "--max-memory",
            "500",
            "--boundedness",
            "off",
        ],
    ] {
        let m = measured(&args);
        assert_eq!(
            exit_code(&m),
            Some(3),
            "{args:?}: {:?} {}",
            m.exit,
            m.stderr
        );
        assert!(
            m.peak_rss_bytes < 500 * MIB,
            "{args:?}: peak {} MiB",
            m.peak_rss_bytes / MIB
        );
        no_panic(&m.stderr);
    }
}

/// 4e9 tokens in the initial marking: an answer or a clean stop, never an abort.
#[test]
fn huge_initial_marking_never_aborts() {
    let huge = net("huge-marking.pnml");
    let m = measured(&[
        "statespace",
        &huge,
        "--timeout",
        "10",
        "--max-memory",
        "1000",
    ]);
    no_panic(&m.stderr);
    match exit_code(&m) {
        Some(0) => assert!(m.stdout.contains("states: 4000000001"), "{}", m.stdout),
        Some(2 | 3) => assert!(m.stderr.starts_with("error: "), "{}", m.stderr),
        _ => panic!("{:?}: {}", m.exit, m.stderr),
    }
    assert!(
        m.peak_rss_bytes < 1000 * MIB,
        "peak {} MiB",
        m.peak_rss_bytes / MIB
    );
    // generated as it is, a token count too large to store is not a proof of unboundedness:
    // the net is bounded, and the run ran out of room (JSON status `memory`; a level costs
    // the window of its values, so the 4e9 values of `a` fill it one by one up to the limit)
    let v = json(
        &[
            "statespace",
            &huge,
            "--json",
            "--scaling",
            "off",
            "--polytope",
            "off",
            "--max-memory",
            "300",
        ],
        3,
    );
    assert_envelope(&v, "memory");
    // its P-semiflow a + b = 4e9 on binary counters (raced with the order portfolio): every
    // marking of it reachable
    let v = json(
        &[
            "statespace",
            &huge,
            "--json",
            "--scaling",
            "off",
            "--order",
            "auto",
        ],
        0,
    );
    assert_envelope(&v, "ok");
    assert_eq!(v["engine"], "polytope");
    assert_eq!(v["states"], "4000000001");
    assert_eq!(v["transitions"], "4000000000");
    assert_eq!(v["max_tokens_place"], 4_000_000_000u64);
    // its figures are polynomials in its tokens (one transition from a to b): exact by scaling
    let v = json(&["statespace", &huge, "--json"], 0);
    assert_envelope(&v, "ok");
    assert_eq!(v["engine"], "scaled");
    assert_eq!(v["states"], "4000000001");
    assert_eq!(v["transitions"], "4000000000");
    assert_eq!(v["max_tokens_place"], 4_000_000_000u64);
}

/// An unbounded net is an answer (by default): +inf with a witness that names the growing
/// place and the pumping transition, in text, JSON and contest mode, at once.
#[test]
fn unbounded_net_answers_infinity_with_a_witness() {
    let unbounded = net("unbounded.pnml");
    let m = measured(&["statespace", &unbounded, "--timeout", "20"]);
    assert_eq!(exit_code(&m), Some(0), "{}", m.stderr);
    assert!(m.wall_seconds < 5.0, "{:.1} s", m.wall_seconds);
    assert!(m.stdout.contains("states: +inf"), "{}", m.stdout);
    assert!(m.stdout.contains("unbounded places: a"), "{}", m.stdout);
    assert!(m.stdout.contains("then t repeated forever"), "{}", m.stdout);
    let v = json(&["statespace", &unbounded, "--json"], 0);
    assert_envelope(&v, "unbounded");
    assert_eq!(v["states"], "+inf");
    assert_eq!(v["witness"]["growing_places"][0], "a");
    assert_eq!(v["witness"]["pump"][0], "t");
    let dir = ContestDir::new("unbounded.pnml");
    let m = measured(&["mcc", &dir.path(), "--examination", "StateSpace"]);
    assert_eq!(exit_code(&m), Some(0), "{}", m.stderr);
    let lines: Vec<&str> = m.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", m.stdout);
    for (line, figure) in lines.iter().zip([
        "STATES",
        "TRANSITIONS",
        "MAX_TOKEN_IN_PLACE",
        "MAX_TOKEN_PER_MARKING",
    ]) {
        assert!(
            line.starts_with(&format!("STATE_SPACE {figure} +inf TECHNIQUES")),
            "{line}"
        );
    }
}

/// CTL on an unbounded net: what the walks, the state equation and the on-the-fly search
/// decide is answered (the search builds the graph only as far as a formula needs it), the
/// rest is CANNOT_COMPUTE with the reason on stderr, within the time limit, exit 0.
#[test]
fn ctl_on_an_unbounded_net_answers_what_a_search_decides() {
    let dir = ContestDir::new("unbounded.pnml");
    std::fs::copy(
        net("unbounded-CTLCardinality.xml"),
        Path::new(&dir.path()).join("CTLCardinality.xml"),
    )
    .unwrap();
    let m = measured(&[
        "mcc",
        &dir.path(),
        "--examination",
        "CTLCardinality",
        "--timeout",
        "4",
        "--progress",
    ]);
    assert_eq!(exit_code(&m), Some(0), "{}", m.stderr);
    assert!(m.wall_seconds < 10.0, "{:.1} s", m.wall_seconds);
    // the explicit side's phases show on the progress line, under the examination's name
    assert!(
        m.stderr
            .contains("CTLCardinality: explicit side: question 6 by on-the-fly CTL search"),
        "{}",
        m.stderr
    );
    let mut lines: Vec<&str> = m.stdout.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "FORMULA U-CTLCardinality-00 TRUE TECHNIQUES EXPLICIT",
            "FORMULA U-CTLCardinality-01 TRUE TECHNIQUES EXPLICIT",
            "FORMULA U-CTLCardinality-02 TRUE TECHNIQUES EXPLICIT",
            "FORMULA U-CTLCardinality-03 FALSE TECHNIQUES EXPLICIT",
            "FORMULA U-CTLCardinality-04 TRUE TECHNIQUES LINEAR_EQUATIONS",
            "FORMULA U-CTLCardinality-05 CANNOT_COMPUTE",
        ],
        "{}",
        m.stdout
    );
    assert!(
        m.stderr
            .contains("the net is unbounded; 1 of its 6 CTLCardinality formulas unanswered"),
        "{}",
        m.stderr
    );
    no_panic(&m.stderr);
}

/// A token count beyond what Saturn represents is refused with its position.
#[test]
fn token_count_out_of_range_has_a_position() {
    let text = std::fs::read_to_string(net("huge-marking.pnml"))
        .unwrap()
        .replace("4000000000", "5000000000");
    let out = saturn()
        .args(["statespace", "-", "--json"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Json = serde_json::from_slice(&out.stdout).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(
        (&d["file"], &d["line"]),
        (&Json::from("<stdin>"), &Json::from(6)),
        "{d}"
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("more than the 4294967294 supported"),
        "{d}"
    );
}

#[test]
fn inhibitor_arcs_in_both_forms() {
    for form in ["attribute", "element"] {
        let v = json(
            &[
                "statespace",
                &net(&format!("inhibitor-{form}.pnml")),
                "--json",
            ],
            0,
        );
        assert_eq!(v["states"], "3", "{form}");
        assert_eq!(v["transitions"], "2", "{form}");
        assert_eq!(v["max_tokens_place"], 2, "{form}");
    }
    saturn()
        .args(["parse", &net("inhibitor-attribute.pnml")])
        .assert()
        .success()
        .stdout(predicate::str::contains("arcs: 2 (1 inhibitor)"));
}

#[test]
fn other_arc_types_refused_with_position() {
    for kind in ["reset", "transport", "bogus"] {
        let file = net(&format!("arc-{kind}.pnml"));
        saturn()
            .args(["statespace", &file])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!("{file}:9:7:")))
            .stderr(predicate::str::contains(format!("arc type '{kind}'")));
    }
}

/// Run saturn with `args`, expecting `code`, and parse stdout as one JSON value.
fn json(args: &[&str], code: i32) -> Json {
    let out = saturn().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    no_panic(&err);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not one JSON value ({e}): {err}"))
}

#[test]
fn closed_pipe_ends_quietly() {
    let dir = std::env::temp_dir().join(format!("saturn-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prism = dir.join("k.prism");
    std::fs::write(
        &prism,
        "ctmc\nconst int t;\nmodule m\n x : [0..3] init 0;\n [] x<3 -> 1.0 : (x'=x+1);\nendmodule\n",
    )
    .unwrap();
    let prism = prism.display().to_string();
    for args in [
        vec!["generate", "philosophers", "2000"],
        vec!["parse", prism.as_str(), "--const", "t=1:1:50"],
        vec!["parse", prism.as_str(), "--const", "t=1:1:50", "--json"],
        vec!["completions", "bash"],
    ] {
        let mut child = StdCommand::new(bin())
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // read one byte then close the pipe, as `| head -c1` does
        let mut stdout = child.stdout.take().unwrap();
        let mut one = [0u8; 1];
        std::io::Read::read_exact(&mut stdout, &mut one).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 141)),
            "{args:?}: {:?} {err}",
            out.status
        );
        assert_eq!(err, "", "{args:?}: quiet");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn full_disk_and_unwritable_output_are_errors() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    for args in [
        vec!["statespace", "kanban:5"],
        vec!["statespace", "kanban:5", "--json"],
        vec!["generate", "kanban", "3"],
        vec!["completions", "zsh"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = StdCommand::new(bin())
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("cannot write to standard output"), "{err}");
        assert!(err.contains("No space left on device"), "{err}");
        no_panic(&err);
    }
    saturn()
        .args(["generate", "kanban", "2", "-o", "/nonexistent-dir/k.pnml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "cannot write to '/nonexistent-dir/k.pnml'",
        ));
}

#[test]
fn contest_conventions() {
    let dir = ContestDir::new("inhibitor-attribute.pnml");
    // a global property needs no formula file
    saturn()
        .args(["mcc", &dir.path(), "--examination", "ReachabilityDeadlock"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("FORMULA ReachabilityDeadlock "));
    // a formula examination whose file is missing is an error naming the file, not an answer
    for exam in ["CTLFireability", "UpperBounds", "LTLCardinality"] {
        saturn()
            .args(["mcc", &dir.path(), "--examination", exam])
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "cannot read formula file '{}/{exam}.xml'",
                dir.path()
            )));
    }
    saturn()
        .args(["mcc", &dir.path(), "--examination", "StateSpce"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("did you mean 'StateSpace'"));
    saturn()
        .args(["mcc", &dir.path()])
        .env("BK_EXAMINATION", "CTLFireabilty")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean 'CTLFireability'"));
    let coloured = ContestDir::new("coloured.pnml");
    saturn()
        .args(["mcc", &coloured.path(), "--examination", "StateSpace"])
        .assert()
        .success()
        .stdout("DO_NOT_COMPETE\n");
    saturn()
        .args(["mcc", &dir.path(), "--examination", "StateSpace"])
        .assert()
        .success()
        .stdout(predicate::str::contains("STATE_SPACE STATES 3 "));
    // BK_TIME_CONFINEMENT is the default time limit
    let unbounded = ContestDir::new("unbounded.pnml");
    let out = saturn()
        .args([
            "mcc",
            &unbounded.path(),
            "--examination",
            "StateSpace",
            "--boundedness",
            "off",
        ])
        .env("BK_TIME_CONFINEMENT", "1")
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "CANNOT_COMPUTE\n");
    // statespace on a contest directory uses mcc's default order
    let v = json(&["statespace", &dir.path(), "--json"], 0);
    assert_eq!(v["order"], "auto");
}

fn assert_envelope(v: &Json, status: &str) {
    for key in ["command", "model", "status", "diagnostics"] {
        assert!(v.get(key).is_some(), "no {key} in {v}");
    }
    assert_eq!(v["status"], status, "{v}");
}

#[test]
fn json_status_on_every_outcome() {
    // success
    let v = json(&["statespace", "kanban:2", "--json"], 0);
    assert_envelope(&v, "ok");
    assert_eq!(v["states"], "4600");
    // parse error: the position of the problem
    let dir = std::env::temp_dir().join(format!("saturn-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.pnml");
    let text = std::fs::read_to_string(net("unbounded.pnml")).unwrap();
    std::fs::write(&cut, &text[..text.find("<arc id=\"out\"").unwrap()]).unwrap();
    let cut = cut.display().to_string();
    for command in ["statespace", "parse"] {
        let code = if command == "parse" { 1 } else { 2 };
        let v = json(&[command, &cut, "--json"], code);
        assert_envelope(&v, "error");
        let d = &v["diagnostics"][0];
        assert_eq!(d["file"], cut.as_str());
        assert_eq!(d["line"], 8, "the line where the document ends: {d}");
        assert!(d["column"].as_u64().is_some(), "{d}");
        assert!(
            d["message"].as_str().unwrap().contains("malformed XML"),
            "{d}"
        );
    }
    // the same keys for a PRISM model's error
    let prism = dir.join("bad.prism");
    std::fs::write(
        &prism,
        "ctmc\nmodule m\n x : [0..2] init 0;\n [] x<2 -> (x'=y);\nendmodule\n",
    )
    .unwrap();
    let v = json(&["parse", &prism.display().to_string(), "--json"], 1);
    assert_envelope(&v, "error");
    let d = &v["diagnostics"][0];
    assert_eq!(
        (&d["line"], &d["column"]),
        (&Json::from(4), &Json::from(16)),
        "{d}"
    );
    let keys = |v: &Json| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(
        keys(d),
        keys(&json(&["statespace", &cut, "--json"], 2)["diagnostics"][0])
    );
    // timeout and memory
    let v = json(&["statespace", "queens:14", "--timeout", "1", "--json"], 3);
    assert_envelope(&v, "timeout");
    let v = json(
        &["statespace", "queens:12", "--max-memory", "1", "--json"],
        3,
    );
    assert_envelope(&v, "memory");
    // usage errors too, including those of the argument parser
    let v = json(&["statespace", "/nonexistent.pnml", "--json"], 2);
    assert_envelope(&v, "error");
    let v = json(&["statespace", "kanban:2", "--method", "dfs", "--json"], 2);
    assert_envelope(&v, "error");
    assert!(
        v["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("dfs"),
        "{v}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_and_content_detection() {
    let text = std::fs::read(net("inhibitor-attribute.pnml")).unwrap();
    saturn()
        .args(["statespace", "-"])
        .write_stdin(text.clone())
        .assert()
        .success()
        .stdout(predicate::str::contains("states: 3\n"))
        .stdout(predicate::str::contains("reachability-graph edges: 2\n"));
    saturn()
        .args(["parse", "-", "--json"])
        .write_stdin(text.clone())
        .assert()
        .success()
        .stdout(predicate::str::contains("\"model\":\"<stdin>\""));
    // PNML without the .pnml extension, PRISM from stdin
    let dir = std::env::temp_dir().join(format!("saturn-content-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("net.xml");
    std::fs::write(&f, &text).unwrap();
    saturn()
        .args(["statespace", f.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("states: 3\n"));
    saturn()
        .args(["parse", "-"])
        .write_stdin("dtmc\nmodule m\n x : bool;\n [] true -> (x'=!x);\nendmodule\n")
        .assert()
        .success()
        .stdout(predicate::str::contains("type: dtmc"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn flags_that_do_not_apply_are_refused() {
    saturn()
        .args(["parse", "-", "--ctl", "AG true"])
        .write_stdin("ctmc\nmodule m\n x : bool;\nendmodule\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--ctl apply to PNML nets"));
    saturn()
        .args(["parse", &net("unbounded.pnml"), "--const", "N=1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--const apply to PRISM models"));
    saturn()
        .args(["statespace", "kanban:2", "--method", "dfs"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bfs-frontier"));
}

#[test]
fn help_lists_values_and_completions_work() {
    saturn()
        .args(["statespace", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("file-rev"))
        .stdout(predicate::str::contains("bfs-frontier"))
        .stdout(predicate::str::contains("implicit"))
        .stdout(predicate::str::contains("--progress"));
    for shell in ["bash", "zsh", "fish"] {
        saturn()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("statespace"));
    }
}

#[test]
fn progress_on_demand() {
    let out = saturn()
        .args(["statespace", "queens:14", "--timeout", "2", "--progress"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("states: level "), "a progress line: {err}");
    assert!(
        err.contains(" of 210, "),
        "level N of 210 (queens 14 has 210 places): {err}"
    );
    let out = saturn()
        .args(["statespace", "queens:14", "--timeout", "1"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("states: level"));
}

/// The transitive closure's relation algebra polls the memory limit too: on queens N=12 under
/// the `file-rev` order the restriction of the relation to the reachable states grows past a
/// gigabyte in two minutes; with `--max-memory 300` the run stops cleanly under 300 MiB. (The
/// closure's default order, auto's first, grows slower there: past 100 s under 230 MiB.)
#[test]
fn scc_closure_stops_under_the_memory_limit() {
    let m = measured(&[
        "scc",
        "queens:12",
        "--method",
        "tc",
        "--order",
        "file-rev",
        "--max-memory",
        "300",
    ]);
    assert_eq!(exit_code(&m), Some(3), "{:?} {}", m.exit, m.stderr);
    assert!(m.stderr.contains("memory limit of 300 MiB"), "{}", m.stderr);
    assert!(
        m.peak_rss_bytes < 300 * MIB,
        "peak {} MiB",
        m.peak_rss_bytes / MIB
    );
    no_panic(&m.stderr);
    // with the default order the same run grows slower: both limits given, it stops cleanly
    // at the first one it meets, under the memory limit
    let m = measured(&[
        "scc",
        "queens:12",
        "--method",
        "tc",
        "--max-memory",
        "300",
        "--timeout",
        "10",
    ]);
    assert_eq!(exit_code(&m), Some(3), "{:?} {}", m.exit, m.stderr);
    assert!(
        m.peak_rss_bytes < 300 * MIB,
        "peak {} MiB",
        m.peak_rss_bytes / MIB
    );
    no_panic(&m.stderr);
}

/// The watchdog behind `--timeout`: a stretch that does not poll the deadline (the hook
/// `SATURN_TEST_STALL_SECS` sleeps before the run starts) is cut two seconds after the limit,
/// with the timeout's message and exit 3, and with `--json` one JSON object of status
/// `timeout`. Without the watchdog these runs take the whole 30 s stall.
#[test]
fn a_run_that_does_not_stop_itself_is_cut_after_its_timeout() {
    for json_out in [false, true] {
        let mut args = vec!["statespace", "kanban:2", "--timeout", "1"];
        if json_out {
            args.push("--json");
        }
        let start = std::time::Instant::now();
        let out = saturn()
            .env("SATURN_TEST_STALL_SECS", "30")
            .args(&args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let secs = start.elapsed().as_secs_f64();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert!(secs < 20.0, "cut after {secs:.1} s: {err}");
        assert!(
            err.contains("time limit of 1 s reached (cut 2 s after it"),
            "{err}"
        );
        no_panic(&err);
        if json_out {
            let v: Json = serde_json::from_slice(&out.stdout).expect("one JSON object");
            assert_envelope(&v, "timeout");
        } else {
            assert!(out.stdout.is_empty());
        }
    }
    // `mcc` takes its limit from BK_TIME_CONFINEMENT too
    let d = ContestDir::new("lasso.pnml");
    let out = saturn()
        .env("SATURN_TEST_STALL_SECS", "30")
        .env("BK_TIME_CONFINEMENT", "1")
        .args(["mcc", &d.path(), "--examination", "StateSpace"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("(cut 2 s after it"), "{err}");
}

/// Diffusion on a ring of five places with a million tokens (`wide-ring.pnml`, written for
/// this test): about 4e22 markings, which neither the decision diagrams nor the explicit
/// search finish in the time limit. Rankings prove its invariants' polytope reachable and able
/// to return to the initial marking, so ReachabilityDeadlock FALSE and Liveness TRUE come from
/// the polytope (`TECHNIQUES DECISION_DIAGRAMS TOPOLOGICAL`), as the net's construction says;
/// the others from the markings the walks see. Every answer within the limit, exit 0; with
/// `--polytope off`, Liveness stays CANNOT_COMPUTE.
#[test]
fn the_polytope_decides_liveness_on_a_wide_ring() {
    assert_eq!(
        global_properties("wide-ring.pnml", 20, &[], 0),
        [
            "FORMULA Liveness TRUE TECHNIQUES DECISION_DIAGRAMS TOPOLOGICAL",
            "FORMULA OneSafe FALSE TECHNIQUES EXPLICIT",
            "FORMULA QuasiLiveness TRUE TECHNIQUES EXPLICIT",
            "FORMULA ReachabilityDeadlock FALSE TECHNIQUES DECISION_DIAGRAMS TOPOLOGICAL",
            "FORMULA StableMarking FALSE TECHNIQUES EXPLICIT",
        ]
    );
    // `--polytope off`: nothing else decides those two in the time limit (exit 3: some
    // answers missing)
    let off = global_properties("wide-ring.pnml", 4, &["--polytope", "off"], 3);
    assert!(
        off.contains(&"FORMULA Liveness CANNOT_COMPUTE".to_owned()),
        "{off:?}"
    );
}

/// `saturn mcc` on a directory holding the net `name` (of `tests/nets`) for GlobalProperties
/// within `timeout` seconds, with the flags `extra`: exit `code`, no panic, done within 5 s
/// of the limit; its answer lines, sorted.
fn global_properties(name: &str, timeout: u32, extra: &[&str], code: i32) -> Vec<String> {
    let dir = ContestDir::new(name);
    let (path, timeout_text) = (dir.path(), timeout.to_string());
    let mut args = vec![
        "mcc",
        &path,
        "--examination",
        "GlobalProperties",
        "--timeout",
        &timeout_text,
    ];
    args.extend_from_slice(extra);
    let m = measured(&args);
    assert_eq!(exit_code(&m), Some(code), "{}", m.stderr);
    no_panic(&m.stderr);
    assert!(
        m.wall_seconds < f64::from(timeout) + 5.0,
        "{:.1} s",
        m.wall_seconds
    );
    let mut lines: Vec<String> = m.stdout.lines().map(str::to_owned).collect();
    lines.sort_unstable();
    lines
}

/// The walks guided by the state equation, as a user meets them: on `trapped-chain.pnml` (a
/// chain of 60 steps with a dead-end trap beside each, and an unbounded pump; see the file) a
/// uniform random walk does not get far down the chain, and the symbolic side cannot generate
/// an infinite state space; the state equation's solutions guide walks down it, which show
/// every place changing (StableMarking FALSE) and every transition enabled (QuasiLiveness
/// TRUE), as the net's construction says, with `TECHNIQUES EXPLICIT LINEAR_EQUATIONS`; the
/// rest is CANNOT_COMPUTE on an unbounded net, within the time limit, exit 0.
#[test]
fn guided_walks_decide_the_global_properties_deep_in_a_net() {
    assert_eq!(
        global_properties("trapped-chain.pnml", 10, &[], 0),
        [
            "FORMULA Liveness CANNOT_COMPUTE",
            "FORMULA OneSafe FALSE TECHNIQUES EXPLICIT",
            "FORMULA QuasiLiveness TRUE TECHNIQUES EXPLICIT LINEAR_EQUATIONS",
            "FORMULA ReachabilityDeadlock CANNOT_COMPUTE",
            "FORMULA StableMarking FALSE TECHNIQUES EXPLICIT LINEAR_EQUATIONS",
        ],
    );
}
