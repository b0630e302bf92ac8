//! Boundedness on every MCC developer instance (all bounded): never reported unbounded, and the
//! structural bounds are at least the oracle's maximum token count per place. Prints how many
//! are settled structurally and how fast. Skips with a notice when the benchmark folder is
//! absent, fails instead when SATURN_REQUIRE_SHARED=1.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use saturn_model::bounded::{decide_boundedness_with, Boundedness, Limits};
use saturn_pnml::read_pnml_file;

fn mcc_dir() -> Option<PathBuf> {
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
    eprintln!("notice: {} is absent; skipping", dir.display());
    None
}

fn oracle_max_tokens_place(oracle: &str) -> Option<u64> {
    oracle
        .lines()
        .find(|l| l.starts_with("StateSpace "))?
        .split_whitespace()
        .find_map(|w| w.strip_prefix("max_tokens_place=")?.parse().ok())
}

#[test]
fn mcc_nets_are_never_unbounded() {
    let Some(dir) = mcc_dir() else { return };
    let mut instances: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("benchmark folder")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("model.pnml").is_file())
        .collect();
    instances.sort();
    assert!(
        !instances.is_empty(),
        "no model.pnml under {}",
        dir.display()
    );
    let (mut structural, mut explored, mut unknown) = (0, 0, 0);
    let start = Instant::now();
    for inst in &instances {
        let name = inst.file_name().unwrap().to_string_lossy().into_owned();
        let net = read_pnml_file(&inst.join("model.pnml")).unwrap_or_else(|e| panic!("{e}"));
        let t0 = Instant::now();
        let deadline = t0 + Duration::from_secs(5);
        let answer =
            decide_boundedness_with(&net, &Limits::default(), &|| Instant::now() > deadline);
        let dt = t0.elapsed();
        let oracle = std::fs::read_to_string(inst.join("oracle.txt")).unwrap_or_default();
        let kind = match &answer {
            Boundedness::Unbounded { witness } => panic!("{name}: reported unbounded {witness:?}"),
            Boundedness::Bounded {
                bounds,
                structural: s,
            } => {
                if let Some(max) = oracle_max_tokens_place(&oracle) {
                    let top = bounds.iter().copied().max().unwrap_or(0);
                    assert!(top >= max, "{name}: bounds up to {top} < oracle max {max}");
                }
                if *s {
                    structural += 1;
                    "structural"
                } else {
                    explored += 1;
                    "explored"
                }
            }
            Boundedness::Unknown { reason, .. } => {
                unknown += 1;
                if reason == &saturn_model::bounded::Unknown::Stopped {
                    "unknown (stopped)"
                } else {
                    "unknown"
                }
            }
        };
        eprintln!(
            "{name}: {} places, {} transitions: {kind} in {:.3} s",
            net.places.len(),
            net.transitions.len(),
            dt.as_secs_f64()
        );
    }
    eprintln!(
        "{} nets: {structural} structurally bounded, {explored} bounded by exploration, \
         {unknown} unknown, {:.2} s in all",
        instances.len(),
        start.elapsed().as_secs_f64()
    );
}
