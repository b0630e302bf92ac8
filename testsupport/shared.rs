//! Where the oracle tests find the shared benchmarks, and what they do when they are absent.
//! Included by the tests of every crate: `#[path = "../../../testsupport/shared.rs"] mod shared;`.
//!
//! A developer without `../shared` gets a notice and the test passes without its oracle; CI
//! (`.ci/run`) sets `SATURN_REQUIRE_SHARED=1`, under which a missing oracle fails the test, so
//! no oracle test can pass by skipping.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/benchmarks/<rel>` next to the workspace.
pub fn benchmarks(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/benchmarks")
        .join(rel)
}

/// Must the shared benchmarks be present (`SATURN_REQUIRE_SHARED` set to anything but `0`)?
pub fn required() -> bool {
    std::env::var("SATURN_REQUIRE_SHARED").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Called where an oracle test would skip because `what` is absent: fails the test under
/// `SATURN_REQUIRE_SHARED=1`, otherwise prints a notice saying what is left out.
pub fn absent(what: &Path, left_out: &str) {
    assert!(
        !required(),
        "{} is absent and SATURN_REQUIRE_SHARED is set: {left_out} cannot be skipped",
        what.display()
    );
    eprintln!("notice: {} is absent; {left_out}", what.display());
}

/// `path` if it exists, else `None` after [`absent`].
pub fn existing(path: PathBuf, left_out: &str) -> Option<PathBuf> {
    if path.exists() {
        Some(path)
    } else {
        absent(&path, left_out);
        None
    }
}

/// The contest instance directories under `../shared/benchmarks/mcc` (sorted), or `None` after
/// [`absent`] when that directory is missing.
pub fn mcc_instances(left_out: &str) -> Option<Vec<PathBuf>> {
    let dir = benchmarks("mcc");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        absent(&dir, left_out);
        return None;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Some(dirs)
}

/// The per-instance hang guard of the contest oracle tests: `SATURN_MCC_TIMEOUT` seconds, 900
/// by default (not a performance target).
pub fn mcc_timeout() -> u64 {
    std::env::var("SATURN_MCC_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(900)
}

/// The `--timeout` of one `saturn mcc` run in the process-level contest oracle test:
/// `SATURN_MCC_RUN_TIMEOUT` seconds, 300 by default (a hang guard on a loaded machine, not a
/// performance target).
pub fn mcc_run_timeout() -> u64 {
    std::env::var("SATURN_MCC_RUN_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

/// Keep only the instances named in `SATURN_MCC_ONLY` (comma separated), when it is set: for
/// a quick run of a contest oracle test on a few instances.
pub fn mcc_only(dirs: &mut Vec<PathBuf>) {
    if let Ok(only) = std::env::var("SATURN_MCC_ONLY") {
        let only: Vec<&str> = only.split(',').collect();
        dirs.retain(|d| only.iter().any(|o| d.ends_with(o)));
    }
}

/// The contest instances (of those up to 30,000 states) on which the tests do not run the
/// transitive-closure methods (SCCs by closure, EG by closure): the closure of their reachable
/// states takes minutes under the test profile (thesis 4.5: the closure is not robust). A fixed
/// list, not a time limit, so what a test checks does not depend on the machine's load; every
/// other method still runs on them.
pub const CLOSURE_TOO_SLOW: &[&str] = &["CSRepetitions-PT-02", "GPPP-PT-C0001N0000000001"];
