//! The symbolic CTMC of PRISM's case studies (`../shared/benchmarks/ctmc`: kanban, fms,
//! polling, cluster) against PRISM's own counts in `statespace.txt`: states, and transitions
//! = nonzeros of `R` + self-loops + deadlock self-loops, for the instances up to
//! `SMALL_LIMIT` states; and `x R` and one Gauss-Seidel sweep of the plain traversal against
//! the cached one on each. Skipped with a notice when the folder is absent.

use crate::shared;

use std::collections::HashMap;
use std::path::Path;

use saturn_ctmc::{per_column, RateMatrix, Sweep, SymbolicCtmc};
use saturn_prism::{lower::lower, ConstOverrides};
use saturn_symbolic::Limits;

const SMALL_LIMIT: u64 = 160_000;

/// The `key=value` fields of a TAB-separated record.
fn fields(line: &str) -> HashMap<&str, &str> {
    line.split('\t').filter_map(|f| f.split_once('=')).collect()
}

fn build(path: &Path, constants: &str) -> SymbolicCtmc {
    let src = std::fs::read_to_string(path).unwrap();
    let overrides = ConstOverrides::parse(constants).unwrap();
    let prog = saturn_prism::load_model(&path.display().to_string(), &src, &overrides)
        .unwrap_or_else(|d| panic!("{d:?}"));
    let model = lower(&prog).unwrap();
    let order: Vec<usize> = (0..model.vars.len()).rev().collect();
    SymbolicCtmc::generate(&model, &order, &Limits::none()).unwrap()
}

/// Plain and cached traversals give the same products (up to rounding of the sums' order).
fn plain_and_cached_agree(c: &mut SymbolicCtmc) {
    let n = c.states();
    let x: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64).collect();
    let mut y1 = vec![0.0; n];
    c.vec_mul_add(&x, &mut y1);
    let mut g1 = x.clone();
    c.gauss_seidel_sweep(&mut g1, Sweep::Forward, &mut per_column(|_, s, _| s * 0.5));
    c.enable_cache(64);
    let mut y2 = vec![0.0; n];
    c.vec_mul_add(&x, &mut y2);
    let mut g2 = x.clone();
    c.gauss_seidel_sweep(&mut g2, Sweep::Forward, &mut per_column(|_, s, _| s * 0.5));
    for j in 0..n {
        assert!((y1[j] - y2[j]).abs() <= 1e-12 * y1[j].abs().max(1.0));
        assert!((g1[j] - g2[j]).abs() <= 1e-12 * g1[j].abs().max(1.0));
    }
    c.disable_cache();
}

#[test]
fn case_study_counts_agree_with_prism() {
    let root = shared::benchmarks("ctmc");
    if !root.is_dir() {
        shared::absent(&root, "symbolic CTMC counts against PRISM skipped");
        return;
    }
    let mut checked = 0;
    for dir in ["kanban", "fms", "polling", "cluster"] {
        let Ok(text) = std::fs::read_to_string(root.join(dir).join("statespace.txt")) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let f = fields(line);
            let count = |k: &str| f.get(k).and_then(|v| v.parse::<u64>().ok());
            let (Some(&m), Some(states), Some(transitions)) =
                (f.get("model"), count("states"), count("transitions"))
            else {
                continue;
            };
            let path = root.join(dir).join(m);
            if states > SMALL_LIMIT || !path.exists() {
                continue;
            }
            let constants = f.get("constants").copied().unwrap_or("");
            let mut c = build(&path, constants);
            assert_eq!(c.states() as u64, states, "{m} {constants}: states");
            assert_eq!(
                c.prism_transitions(),
                transitions,
                "{m} {constants}: nonzeros {} + self-loops {} + deadlocks {}",
                c.nonzeros(),
                c.self_loops(),
                c.deadlocks()
            );
            plain_and_cached_agree(&mut c);
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} instances checked");
}
