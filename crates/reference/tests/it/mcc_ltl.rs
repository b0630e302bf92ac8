//! The explicit LTL reference (`saturn_reference::ltl`: the reachability graph × the automaton of
//! `¬φ`, Tarjan SCCs) against the contest's LTL verdicts on every developer instance with at
//! most `MAX_STATES` reachable markings: the stutter reading of deadlocks must agree with every
//! verdict. The finite-path reading is run too and its disagreements counted (printed).
//!
//! Skipped with a notice when the shared directory is absent, unless `SATURN_REQUIRE_SHARED=1`.

use saturn_logic::ResolvedQuery;
use saturn_pnml::formulas::read_formulas_file;
use saturn_pnml::read_pnml_file;
use saturn_reference::explore_petri;
use saturn_reference::ltl::{accepting_run, LtlDeadlocks};
use saturn_reference::mcc::{benchmark_dir, instances_up_to, oracle};

const MAX_STATES: u64 = 2_100;

#[test]
fn explicit_ltl_matches_mcc_oracles() {
    let Some(dir) = benchmark_dir("the MCC LTL oracle test") else {
        return;
    };
    let instances = instances_up_to(&dir, MAX_STATES);
    assert!(instances.len() >= 12, "{} instances", instances.len());
    let (mut agreed, mut wrong, mut maximal_differs) = (0, Vec::new(), 0);
    for (instance, _) in &instances {
        let inst = dir.join(instance);
        let net = read_pnml_file(&inst.join("model.pnml")).unwrap();
        let space = explore_petri(&net, MAX_STATES as usize + 1).unwrap();
        let expected = oracle(&inst);
        for exam in ["LTLCardinality", "LTLFireability"] {
            let formulas = read_formulas_file(&inst.join(format!("{exam}.xml")), &net)
                .unwrap_or_else(|e| panic!("{instance} {exam}: {e}"));
            assert_eq!(formulas.len(), 16, "{instance} {exam}");
            for f in formulas {
                let want = &expected[&f.id];
                let ResolvedQuery::Formula(sf) = &f.resolved else {
                    panic!("{}: not a formula", f.id)
                };
                let phi = saturn_ltl::path_of(sf).expect("an A formula");
                let verdict = |dl, rdl| {
                    let p = saturn_ltl::negated(&phi, dl).unwrap();
                    let bad =
                        accepting_run(&net, &space, &p.automaton, &p.atoms.formulas, rdl).unwrap();
                    if bad {
                        "FALSE"
                    } else {
                        "TRUE"
                    }
                };
                let got = verdict(saturn_ltl::Deadlocks::Stutter, LtlDeadlocks::Stutter);
                if got == want {
                    agreed += 1;
                } else {
                    wrong.push(format!("{}: got {got}, want {want}", f.id));
                }
                if verdict(saturn_ltl::Deadlocks::Maximal, LtlDeadlocks::Maximal) != want {
                    maximal_differs += 1;
                }
            }
        }
    }
    eprintln!(
        "{} instances: stutter reading {agreed} agreed, {} disagreed; finite-path reading \
         {maximal_differs} disagreed",
        instances.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!(agreed, 32 * instances.len());
}
