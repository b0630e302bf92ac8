//! The explicit CTL checker, UpperBounds and global properties against the contest's answers:
//! every developer instance under `shared/benchmarks/mcc` with at most `MAX_STATES` reachable
//! states, every formula of the five formula examinations and the five global properties must
//! equal `oracle.txt`. Also: the other deadlock reading (`SelfLoop`) must get the formulas the
//! benchmark README names wrong, and Peterson-PT-2 has 2632 nontrivial SCCs (issue 10).
//!
//! Skipped with a notice when the shared directory is absent, unless `SATURN_REQUIRE_SHARED=1`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use saturn_model::PetriNet;
use saturn_pnml::formulas::read_formulas_file;
use saturn_pnml::read_pnml_file;
use saturn_reference::mcc::{benchmark_dir, instances_up_to, oracle};
use saturn_reference::{
    explore_petri, global_properties, CtlChecker, Deadlocks, ExplicitStateSpace, GlobalProperties,
    Sccs, Verdict,
};

const MAX_STATES: u64 = 300_000;

const EXAMINATIONS: [&str; 5] = [
    "CTLCardinality",
    "CTLFireability",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
];

fn mcc_dir() -> Option<PathBuf> {
    benchmark_dir("the MCC CTL oracle tests")
}

fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Bool(true) => "TRUE".into(),
        Verdict::Bool(false) => "FALSE".into(),
        Verdict::Bound(b) => b.to_string(),
    }
}

#[derive(Default)]
struct Tally {
    agreed: usize,
    disagreed: Vec<String>,
}

fn load(dir: &Path, instance: &str) -> (PetriNet, ExplicitStateSpace<Vec<u64>>) {
    let net = read_pnml_file(&dir.join(instance).join("model.pnml"))
        .unwrap_or_else(|e| panic!("{instance}: {e}"));
    let space =
        explore_petri(&net, MAX_STATES as usize + 1).unwrap_or_else(|e| panic!("{instance}: {e}"));
    (net, space)
}

#[test]
fn explicit_ctl_matches_mcc_oracles() {
    let Some(dir) = mcc_dir() else { return };
    let mut tallies: HashMap<&str, Tally> = HashMap::new();
    let instances = instances_up_to(&dir, MAX_STATES);
    for (instance, states) in &instances {
        let inst = dir.join(instance);
        let expected = oracle(&inst);
        let (net, space) = load(&dir, instance);
        assert_eq!(space.states as u64, *states, "{instance} states");
        let checker = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        for exam in EXAMINATIONS {
            let formulas = read_formulas_file(&inst.join(format!("{exam}.xml")), &net)
                .unwrap_or_else(|e| panic!("{instance} {exam}: {e}"));
            assert_eq!(formulas.len(), 16, "{instance} {exam}");
            let tally = tallies.entry(exam).or_default();
            for f in formulas {
                let want = expected
                    .get(&f.id)
                    .unwrap_or_else(|| panic!("no oracle for {}", f.id));
                if want == "?" {
                    continue;
                }
                let got = checker
                    .check(&f.resolved)
                    .map(verdict_text)
                    .unwrap_or_else(|e| format!("error: {e}"));
                if &got == want {
                    tally.agreed += 1;
                } else {
                    tally
                        .disagreed
                        .push(format!("{}: got {got}, want {want}", f.id));
                }
            }
        }
        let props = global_properties(&net, &space, checker.graph());
        for name in GlobalProperties::NAMES {
            let want = &expected[name];
            let got = verdict_text(Verdict::Bool(props.by_name(name).unwrap()));
            let tally = tallies.entry(name).or_default();
            if &got == want {
                tally.agreed += 1;
            } else {
                tally
                    .disagreed
                    .push(format!("{instance} {name}: got {got}, want {want}"));
            }
        }
    }
    let mut failures = Vec::new();
    eprintln!(
        "{} instances with at most {MAX_STATES} states",
        instances.len()
    );
    for exam in EXAMINATIONS.iter().chain(GlobalProperties::NAMES.iter()) {
        let t = &tallies[exam];
        eprintln!(
            "{exam:<24} agreed {:>4}  disagreed {:>3}",
            t.agreed,
            t.disagreed.len()
        );
        failures.extend(t.disagreed.iter().cloned());
    }
    assert!(instances.len() >= 25, "only {} instances", instances.len());
    assert!(
        failures.is_empty(),
        "disagreements:\n{}",
        failures.join("\n")
    );
}

/// The README's examples: the self-loop reading of deadlocks gets these wrong, the maximal
/// reading right.
#[test]
fn self_loop_reading_gets_the_readme_examples_wrong() {
    let Some(dir) = mcc_dir() else { return };
    for id in [
        "Philosophers-PT-000005-CTLCardinality-2025-05",
        "Referendum-PT-0010-CTLFireability-2025-06",
        "NeoElection-PT-2-CTLFireability-2025-00",
    ] {
        let (instance, rest) = id.split_once("-CTL").unwrap();
        let exam = format!("CTL{}", rest.split('-').next().unwrap());
        let (net, space) = load(&dir, instance);
        let inst = dir.join(instance);
        let f = read_formulas_file(&inst.join(format!("{exam}.xml")), &net)
            .unwrap()
            .into_iter()
            .find(|f| f.id == id)
            .unwrap();
        let want = oracle(&inst)[id] == "TRUE";
        let maximal = CtlChecker::new(&net, &space, Deadlocks::Maximal);
        let self_loop = CtlChecker::new(&net, &space, Deadlocks::SelfLoop);
        assert_eq!(
            maximal.check(&f.resolved).unwrap(),
            Verdict::Bool(want),
            "{id} maximal"
        );
        assert_eq!(
            self_loop.check(&f.resolved).unwrap(),
            Verdict::Bool(!want),
            "{id} self-loop"
        );
    }
}

/// Issue 10: Peterson-PT-2 has 2632 nontrivial SCCs.
#[test]
fn peterson_2_scc_count() {
    let Some(dir) = mcc_dir() else { return };
    let (_, space) = load(&dir, "Peterson-PT-2");
    let graph = saturn_reference::Graph::new(&space);
    let sccs = Sccs::new(&graph);
    assert_eq!(sccs.nontrivial_count(), 2632);
    let on_cycles = sccs.cycle_states().iter().filter(|&&b| b).count();
    assert!(on_cycles > 0 && on_cycles <= space.states);
    eprintln!(
        "Peterson-PT-2: {} states, {} nontrivial SCCs holding {on_cycles} states, {} terminal",
        space.states,
        sccs.nontrivial_count(),
        sccs.terminal().len()
    );
}
