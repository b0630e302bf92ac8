//! The explicit product with partial-order reduction against the contest's LTL verdicts
//! (`oracle.txt`) on the developer instances with at most `MAX_STATES` reachable markings:
//! every stutter-insensitive formula decided within `SECONDS` must agree, reduced and
//! unreduced, and the counterexample found under reduction must be a run of the net that
//! violates the formula.
//!
//! Skipped with a notice when the shared directory is absent, unless `SATURN_REQUIRE_SHARED=1`.

mod common;

use std::time::{Duration, Instant};

use common::check_counterexample;
use saturn_logic::ResolvedQuery;
use saturn_ltl::{check_net_with, negated, Deadlocks, Limits, Options};
use saturn_pnml::formulas::read_formulas_file;
use saturn_pnml::read_pnml_file;
use saturn_reference::mcc::{benchmark_dir, instances_up_to, oracle};

const MAX_STATES: u64 = 50_000;
const SECONDS: u64 = 5;

#[test]
fn reduced_product_matches_mcc_oracles() {
    let Some(dir) = benchmark_dir("the MCC LTL partial-order test") else {
        return;
    };
    let instances = instances_up_to(&dir, MAX_STATES);
    assert!(instances.len() >= 20, "{} instances", instances.len());
    let (mut agreed, mut reduced, mut undecided, mut wrong) = (0, 0, 0, Vec::new());
    for (instance, _) in &instances {
        let inst = dir.join(instance);
        let net = read_pnml_file(&inst.join("model.pnml")).unwrap();
        let expected = oracle(&inst);
        for exam in ["LTLCardinality", "LTLFireability"] {
            let formulas = read_formulas_file(&inst.join(format!("{exam}.xml")), &net).unwrap();
            for f in formulas {
                let ResolvedQuery::Formula(sf) = &f.resolved else {
                    panic!("{}: not a formula", f.id)
                };
                let phi = saturn_ltl::path_of(sf).expect("an A formula");
                let dl = Deadlocks::Stutter;
                let p = negated(&phi, dl).unwrap();
                if !p.formula.is_stutter_insensitive() {
                    continue;
                }
                let want = expected[&f.id] == "TRUE";
                for partial_order in [true, false] {
                    let limits = Limits {
                        deadline: Some(Instant::now() + Duration::from_secs(SECONDS)),
                        max_bytes: Some(1 << 30),
                        cancel: None,
                    };
                    let Ok(v) = check_net_with(&net, &phi, dl, limits, Options { partial_order })
                    else {
                        undecided += 1;
                        continue;
                    };
                    assert_eq!(v.partial_order, partial_order);
                    reduced += usize::from(v.reduced_states > 0);
                    if v.holds != want {
                        wrong.push(format!("{} (reduction {partial_order})", f.id));
                        continue;
                    }
                    agreed += 1;
                    if let Some(c) = &v.counterexample {
                        check_counterexample(&net, &p, dl, c)
                            .unwrap_or_else(|e| panic!("{}: {e}", f.id));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} instances: {agreed} searches agreed ({reduced} with states reduced), {} disagreed, \
         {undecided} undecided within {SECONDS} s",
        instances.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(agreed >= 100 && reduced > 0);
}
