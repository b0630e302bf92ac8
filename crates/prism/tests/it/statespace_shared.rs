//! PRISM's own state and transition counts (the shared CTMC benchmark folder) against Saturn's
//! symbolic state-space generation of the lowered programs.
//!
//! Skipped with a notice when `../shared/benchmarks/ctmc` (or `$SATURN_CTMC_DIR`) is absent,
//! failing instead when `SATURN_REQUIRE_SHARED=1` (through `testsupport`). Records above `SMALL_LIMIT` states run in
//! the `#[ignore]`d test `large_records` (release build recommended).

use crate::polling;

use crate::shared;

use std::path::{Path, PathBuf};

use saturn_prism::{lower::lower, ConstOverrides};

const SMALL_LIMIT: u64 = 2_000_000;

fn dir() -> Option<PathBuf> {
    let d = std::env::var("SATURN_CTMC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| shared::benchmarks("ctmc"));
    shared::existing(d, "PRISM count tests skipped")
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Record {
    dir: PathBuf,
    model: String,
    constants: String,
    states: u64,
    transitions: u64,
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split('\t')
        .filter_map(|f| f.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// Every statespace.txt record and every distinct states/transitions pair of results.txt.
fn records(root: &Path) -> Vec<Record> {
    let mut out = Vec::new();
    let mut subdirs: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    for d in subdirs {
        for file in ["statespace.txt", "results.txt"] {
            let Ok(text) = std::fs::read_to_string(d.join(file)) else {
                continue;
            };
            for line in text
                .lines()
                .filter(|l| !l.starts_with('#') && !l.is_empty())
            {
                let (Some(m), Some(s), Some(t)) = (
                    field(line, "model"),
                    field(line, "states"),
                    field(line, "transitions"),
                ) else {
                    continue;
                };
                let (Ok(states), Ok(transitions)) = (s.parse(), t.parse()) else {
                    continue;
                };
                let constants = field(line, "constants").unwrap_or("").to_string();
                out.push(Record {
                    dir: d.clone(),
                    model: m.to_string(),
                    constants,
                    states,
                    transitions,
                });
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// (states, transitions) of a model file under the given constants.
fn saturn_counts(path: &Path, constants: &str) -> Result<(u64, u64), String> {
    let src = match generated_polling(path) {
        Some(n) => polling::polling(n),
        None => std::fs::read_to_string(path).map_err(|e| e.to_string())?,
    };
    let ast = saturn_prism::parse_model(&path.display().to_string(), &src)
        .map_err(|e| format!("{e:?}"))?;
    // property constants in the record are ignored by the model checker
    let overrides = ConstOverrides::parse(constants)?;
    let prog = saturn_prism::check_model_with_source(
        &ast,
        &overrides,
        &saturn_prism::Source::new(&path.display().to_string(), &src),
    )
    .map_err(|e| format!("{e:?}"))?;
    let model = lower(&prog).map_err(|e| e.to_string())?;
    let order: Vec<usize> = (0..model.vars.len()).rev().collect();
    let (_, ss) = saturn_symbolic::encode::generate_general(
        &model,
        &order,
        saturn_symbolic::encode::GenMethod::Saturation,
        &saturn_symbolic::Limits::none(),
    )
    .map_err(|e| e.to_string())?;
    let s = u64::try_from(ss.states).map_err(|e| e.to_string())?;
    let t = u64::try_from(ss.transitions).map_err(|e| e.to_string())?;
    Ok((s, t))
}

/// `N` for a `polling.N.prism` absent from the folder: PRISM's suite generates these files
/// from one template, so the test generates it too (checked against the files present).
fn generated_polling(path: &Path) -> Option<usize> {
    if path.exists() {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("polling.")?
        .strip_suffix(".prism")?
        .parse()
        .ok()
}

#[test]
fn polling_generator_reproduces_the_shared_files() {
    let Some(root) = dir() else { return };
    let mut seen = 0;
    for n in [3, 4, 6, 10, 14] {
        let path = root.join(format!("polling/polling.{n}.prism"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let parse = |name: &str, src: &str| {
            let prog = saturn_prism::load_model(name, src, &ConstOverrides::default()).unwrap();
            lower(&prog).unwrap()
        };
        let mut a = parse("file", &text);
        let mut b = parse("gen", &polling::polling(n));
        for e in a.events.iter_mut().chain(b.events.iter_mut()) {
            e.location.clear();
        }
        assert_eq!(a, b, "polling.{n}.prism");
        seen += 1;
    }
    assert!(seen > 0);
}

fn run(large: bool) {
    let Some(root) = dir() else { return };
    let mut checked = 0;
    for r in records(&root) {
        if (r.states > SMALL_LIMIT) != large {
            continue;
        }
        let path = r.dir.join(&r.model);
        if !path.exists() {
            eprintln!(
                "notice: {} is not in the folder; record skipped",
                path.display()
            );
            continue;
        }
        let t0 = std::time::Instant::now();
        let got = saturn_counts(&path, &r.constants)
            .unwrap_or_else(|e| panic!("{} [{}]: {e}", path.display(), r.constants));
        eprintln!(
            "{} [{}]: {} states, {} transitions ({:.2?})",
            r.model,
            r.constants,
            got.0,
            got.1,
            t0.elapsed()
        );
        assert_eq!(
            got,
            (r.states, r.transitions),
            "{} [{}]: (states, transitions) differ from PRISM's",
            path.display(),
            r.constants
        );
        checked += 1;
    }
    eprintln!("{checked} records match PRISM's counts");
    assert!(checked > 0 || large, "no record checked");
}

#[test]
fn small_records() {
    run(false);
}

#[test]
#[ignore = "large models (tens of millions of states): run in release"]
fn large_records() {
    run(true);
}
