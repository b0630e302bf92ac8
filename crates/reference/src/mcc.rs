//! Access to the contest's developer benchmarks (`shared/benchmarks/mcc`, next to the
//! repository) for the oracle tests of every crate.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The benchmark directory, or `None` with a notice on stderr when it is absent (tests then
/// skip). Panics instead when the environment sets `SATURN_REQUIRE_SHARED=1`, so a CI run that
/// expects the benchmarks cannot pass by skipping. `what` names the skipped tests.
pub fn benchmark_dir(what: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/benchmarks/mcc"
    ));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("SATURN_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!("{} is absent and SATURN_REQUIRE_SHARED=1", dir.display());
    }
    eprintln!("notice: {} is absent; skipping {what}", dir.display());
    None
}

/// `(instance, reachable states)` for every row of `INDEX.tsv` with at most `max` states.
pub fn instances_up_to(dir: &Path, max: u64) -> Vec<(String, u64)> {
    let index = std::fs::read_to_string(dir.join("INDEX.tsv")).unwrap_or_default();
    index
        .lines()
        .skip(1)
        .filter_map(|row| {
            let cols: Vec<&str> = row.split('\t').collect();
            let states = cols.get(4)?.parse::<u64>().ok()?;
            (states <= max).then(|| (cols[0].to_string(), states))
        })
        .collect()
}

/// An instance's `oracle.txt` as key -> verdict: formula ids and global property names (the
/// `StateSpace` line and comments left out).
pub fn oracle(instance_dir: &Path) -> HashMap<String, String> {
    std::fs::read_to_string(instance_dir.join("oracle.txt"))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("StateSpace"))
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.to_string()))
        })
        .collect()
}
