//! `saturn mcc` exactly as the contest runs it (the built binary, default flags, one process per
//! instance and examination) on every instance of `../shared/benchmarks/mcc/`, every line it
//! prints compared with the instance's `oracle.txt`: the StateSpace figures, every formula of
//! the formula examinations and the global properties, each answer word equal to the oracle's
//! (not a prefix), each line in the contest's form `FORMULA <id> <answer> TECHNIQUES ...`.
//!
//! It fails on any disagreement, any malformed, duplicated or unknown line, a crash or a panic,
//! and any unanswered line (`CANNOT_COMPUTE`, missing) of an instance with at most
//! [`ALL_ANSWERED_UP_TO`] states; the larger instances must answer at least
//! [`LARGE_ANSWERED_PERCENT`]% of their lines (a floor against a broken engine; the answered
//! share is a benchmark, `bench/mcc_share.py`), and their misses are printed.
//!
//! On the larger instances the five global properties are checked through GlobalProperties
//! only (one run answers the five; the smaller instances run each examination alone too).
//!
//! The runs go in parallel, as many as there are cores, the largest instances first. Each run
//! gets `--timeout` [`shared::mcc_run_timeout`] seconds (`SATURN_MCC_RUN_TIMEOUT`, 300 by
//! default, at most [`LARGE_TIMEOUT`] on the larger instances; a hang guard, not a timing
//! target: the CLI stops cleanly and prints `CANNOT_COMPUTE`) and is killed after twice that.
//! `SATURN_MCC_BIN` runs another build of the binary (a release build, to measure with it);
//! `SATURN_MCC_ONLY=Instance,...` restricts the run to some instances.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

#[path = "../../bench/src/child.rs"]
#[allow(dead_code)]
mod child;

#[path = "../../../testsupport/shared.rs"]
mod shared;

/// The examinations `saturn mcc` answers, each run on every instance. LTLCardinality and
/// LTLFireability are checked by `mcc_ltl_oracle.rs` on the instances up to 20,000 markings
/// (every formula answered and agreeing): on every instance they would take the contest's
/// full time on the larger ones, beyond CI's budget.
const EXAMINATIONS: &[&str] = &[
    "StateSpace",
    "GlobalProperties",
    "ReachabilityDeadlock",
    "QuasiLiveness",
    "StableMarking",
    "Liveness",
    "OneSafe",
    "UpperBounds",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "CTLCardinality",
    "CTLFireability",
];

/// The five global properties and the names of their oracle lines.
const GLOBAL: [&str; 5] = [
    "ReachabilityDeadlock",
    "QuasiLiveness",
    "StableMarking",
    "Liveness",
    "OneSafe",
];

/// Every line of an instance with at most this many states must be answered.
const ALL_ANSWERED_UP_TO: u64 = 1_000_000;

/// The `--timeout` of a run on a larger instance at most: half the contest-scale budget of
/// issue 49, which `bench/mcc_share.py` gives release builds (they need not answer every line:
/// the runs that took over 60 s under the test profile answered nothing more by 120 s, and the
/// formulas left at 120 s were still unanswered at 300 s; the five runs that reached 60 s took
/// 300 s of the test's 700 s of runs, 2026-12-02).
const LARGE_TIMEOUT: u64 = 30;

/// The share of the lines of the larger instances that must be answered: a floor that catches
/// a broken engine (every line `CANNOT_COMPUTE`), not a performance target. What share the
/// larger instances reach within the contest's budget depends on the machine and its load (the
/// test-profile binary, several runs at once: 94-97% of 1,128 lines, 2026-12-02); it is
/// measured with release builds by `bench/mcc_share.py`, where the goal of issue 49 is held.
const LARGE_ANSWERED_PERCENT: usize = 80;

/// The StateSpace figures, in the order `saturn mcc` prints them, with their oracle keys.
const FIGURES: [(&str, &str); 4] = [
    ("STATES", "states"),
    ("TRANSITIONS", "transitions"),
    ("MAX_TOKEN_IN_PLACE", "max_tokens_place"),
    ("MAX_TOKEN_PER_MARKING", "max_tokens_marking"),
];

fn binary() -> PathBuf {
    match std::env::var_os("SATURN_MCC_BIN") {
        Some(b) if !b.is_empty() => PathBuf::from(b),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_saturn")),
    }
}

/// An instance's `oracle.txt`: key -> verdict, the keys being formula ids, the global
/// properties' names and the StateSpace figures (`STATES`, `TRANSITIONS`, ...).
fn oracle(dir: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(dir.join("oracle.txt"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut map = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "StateSpace" {
            for w in &words[1..] {
                let (k, v) = w.split_once('=').expect("StateSpace key=value");
                let (fig, _) = FIGURES
                    .iter()
                    .find(|(_, key)| *key == k)
                    .unwrap_or_else(|| panic!("{}: unknown figure {k}", dir.display()));
                map.insert(fig.to_string(), v.to_string());
            }
        } else {
            assert_eq!(words.len(), 2, "{}: {line}", dir.display());
            map.insert(words[0].to_string(), words[1].to_string());
        }
    }
    map
}

/// The oracle lines `exam` answers on instance `name`: (key, verdict), `?` verdicts left out.
fn expected(name: &str, exam: &str, oracle: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let keys: Vec<String> = match exam {
        "StateSpace" => FIGURES.iter().map(|(f, _)| f.to_string()).collect(),
        "GlobalProperties" => GLOBAL.iter().map(|p| p.to_string()).collect(),
        p if GLOBAL.contains(&p) => vec![p.to_string()],
        _ => {
            let prefix = format!("{name}-{exam}-");
            oracle
                .keys()
                .filter(|k| k.starts_with(&prefix))
                .cloned()
                .collect()
        }
    };
    assert!(!keys.is_empty(), "{name}: no oracle line for {exam}");
    keys.into_iter()
        .map(|k| {
            let v = oracle
                .get(&k)
                .unwrap_or_else(|| panic!("{name}: no oracle for {k}"))
                .clone();
            (k, v)
        })
        .filter(|(_, v)| v != "?")
        .collect()
}

/// What one run of `saturn mcc` gave, line by line against the oracle.
#[derive(Default)]
struct Verdict {
    /// Lines equal to the oracle's.
    agreed: usize,
    /// Lines with another answer than the oracle's, malformed, duplicated or unknown lines,
    /// crashes: each one fails the test.
    wrong: Vec<String>,
    /// Oracle lines without an answer (`CANNOT_COMPUTE` or absent).
    missed: Vec<String>,
}

/// Compare the output of one run (stdout, and how it ended) with `want`.
fn judge(run: &str, m: &child::Measured, want: &[(String, String)]) -> Verdict {
    let mut v = Verdict::default();
    if m.stderr.contains("panicked") {
        v.wrong
            .push(format!("{run}: panicked: {}", m.stderr.trim()));
    }
    match m.exit {
        child::Exit::Code(0) | child::Exit::Code(3) => {}
        child::Exit::Killed => v.missed.push(format!("{run}: killed by the hang guard")),
        e => v
            .wrong
            .push(format!("{run}: ended with {e:?}: {}", m.stderr.trim())),
    }
    let mut got: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut cannot_compute_all = false;
    for line in m.stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (key, answer) = match w.as_slice() {
            ["CANNOT_COMPUTE"] => {
                cannot_compute_all = true;
                continue;
            }
            ["FORMULA", id, "CANNOT_COMPUTE"] => (id.to_string(), None),
            ["FORMULA", id, a, "TECHNIQUES", _, ..]
            | ["STATE_SPACE", id, a, "TECHNIQUES", _, ..] => (id.to_string(), Some(a.to_string())),
            _ => {
                v.wrong.push(format!("{run}: malformed line {line:?}"));
                continue;
            }
        };
        if got.insert(key.clone(), answer).is_some() {
            v.wrong.push(format!("{run}: {key} answered twice"));
        }
    }
    if cannot_compute_all && !got.is_empty() {
        v.wrong
            .push(format!("{run}: CANNOT_COMPUTE beside answer lines"));
    }
    let known: BTreeSet<&str> = want.iter().map(|(k, _)| k.as_str()).collect();
    for k in got.keys().filter(|k| !known.contains(k.as_str())) {
        v.wrong.push(format!("{run}: {k} is not asked"));
    }
    for (k, oracle) in want {
        match got.get(k) {
            Some(Some(a)) if a == oracle => v.agreed += 1,
            Some(Some(a)) => v.wrong.push(format!("{run}: {k} {a}, oracle {oracle}")),
            _ => v.missed.push(format!("{run}: {k}")),
        }
    }
    v
}

/// One run to make: instance directory, its state count, examination.
struct Job {
    dir: PathBuf,
    states: u64,
    exam: &'static str,
}

/// `(instance, states)` of every row of INDEX.tsv.
fn index() -> BTreeMap<String, u64> {
    let text = std::fs::read_to_string(shared::benchmarks("mcc/INDEX.tsv"))
        .expect("mcc/INDEX.tsv beside the instances");
    text.lines()
        .skip(1)
        .map(|row| {
            let cols: Vec<&str> = row.split('\t').collect();
            let states = cols[4].parse().unwrap_or(u64::MAX);
            (cols[0].to_string(), states)
        })
        .collect()
}

/// Run `jobs` on `workers` threads, largest instances first; the verdicts in job order.
fn run_all(jobs: &[Job], workers: usize, secs: u64) -> Vec<Verdict> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(jobs[j].states));
    let queue = Mutex::new(order);
    let results: Mutex<BTreeMap<usize, Verdict>> = Mutex::new(BTreeMap::new());
    let bin = binary();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some(j) = ({
                    let mut q = queue.lock().unwrap();
                    (!q.is_empty()).then(|| q.remove(0))
                }) else {
                    break;
                };
                let job = &jobs[j];
                let name = job.dir.file_name().unwrap().to_string_lossy().into_owned();
                let want = expected(&name, job.exam, &oracle(&job.dir));
                let secs = if job.states <= ALL_ANSWERED_UP_TO {
                    secs
                } else {
                    secs.min(LARGE_TIMEOUT)
                };
                let args: Vec<String> = vec![
                    "mcc".into(),
                    job.dir.display().to_string(),
                    "--examination".into(),
                    job.exam.into(),
                    "--timeout".into(),
                    secs.to_string(),
                ];
                let run = format!("{name} {}", job.exam);
                let m = child::run(&bin, &args, Duration::from_secs(2 * secs + 30))
                    .unwrap_or_else(|e| panic!("{run}: {e:#}"));
                let v = judge(&run, &m, &want);
                eprintln!(
                    "{run}: {} agreed, {} wrong, {} missed ({:.1} s)",
                    v.agreed,
                    v.wrong.len(),
                    v.missed.len(),
                    m.wall_seconds
                );
                results.lock().unwrap().insert(j, v);
            });
        }
    });
    results.into_inner().unwrap().into_values().collect()
}

#[test]
fn saturn_mcc_agrees_with_the_contest_oracles() {
    let Some(mut dirs) = shared::mcc_instances("the `saturn mcc` oracle test is skipped") else {
        return;
    };
    dirs.retain(|d| d.join("oracle.txt").is_file());
    shared::mcc_only(&mut dirs);
    let index = index();
    let mut jobs = Vec::new();
    for d in &dirs {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let states = *index
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is not in INDEX.tsv"));
        for exam in EXAMINATIONS {
            // above ALL_ANSWERED_UP_TO states, GlobalProperties answers the five properties in
            // one run; each alone goes the same way (the smaller instances run both forms), and
            // five more generations of a large state space would add minutes of CI
            if states > ALL_ANSWERED_UP_TO && GLOBAL.contains(exam) {
                continue;
            }
            jobs.push(Job {
                dir: d.clone(),
                states,
                exam,
            });
        }
    }
    assert!(!jobs.is_empty(), "no instance under {:?}", dirs);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let secs = shared::mcc_run_timeout();
    eprintln!(
        "{} runs of {} on {workers} workers, --timeout {secs}",
        jobs.len(),
        binary().display()
    );
    let verdicts = run_all(&jobs, workers, secs);

    let (mut wrong, mut small_missed, mut large_missed) = (Vec::new(), Vec::new(), Vec::new());
    let (mut agreed, mut large_lines) = (0, 0);
    for (job, v) in jobs.iter().zip(verdicts) {
        agreed += v.agreed;
        wrong.extend(v.wrong);
        if job.states <= ALL_ANSWERED_UP_TO {
            small_missed.extend(v.missed);
        } else {
            large_lines += v.agreed + v.missed.len();
            large_missed.extend(v.missed);
        }
    }
    eprintln!(
        "{agreed} lines agreed; {} wrong; {} unanswered (instances up to {ALL_ANSWERED_UP_TO} \
         states); {} of {large_lines} unanswered on the larger ones: {large_missed:#?}",
        wrong.len(),
        small_missed.len(),
        large_missed.len()
    );
    assert!(
        wrong.is_empty(),
        "disagreements with the oracles: {wrong:#?}"
    );
    assert!(
        small_missed.is_empty(),
        "unanswered lines of instances with at most {ALL_ANSWERED_UP_TO} states: {small_missed:#?}"
    );
    assert!(
        large_missed.len() * 100 <= large_lines * (100 - LARGE_ANSWERED_PERCENT),
        "the larger instances answer {} of {large_lines} lines, under {LARGE_ANSWERED_PERCENT}%; \
         misses: {large_missed:#?}",
        large_lines - large_missed.len()
    );
    assert!(agreed > 0, "nothing answered");
}
