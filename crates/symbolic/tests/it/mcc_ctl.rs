//! The contest's own answers for the formula examinations (`CTLCardinality`, `CTLFireability`,
//! `ReachabilityCardinality`, `ReachabilityFireability`, `UpperBounds`) and the five global
//! properties, checked symbolically: every instance under `../shared/benchmarks/mcc/` is
//! generated once (saturation, the `auto` order portfolio), then every formula of every formula
//! file and every global property is answered by the CTL checker (contest deadlock semantics)
//! with every EU method and every EG method ([`METHODS`], a fresh checker each) and must equal
//! `oracle.txt`. Disagreements fail the test, and so does an instance whose generation or a
//! formula does not finish within `SATURN_MCC_TIMEOUT` seconds (default 900, a hang guard, not
//! a timing target). `SATURN_MCC_MAX_STATES=N` restricts the run to
//! the instances with at most `N` states (20000 by default, `all` for every instance). Skips with a notice when the benchmarks are
//! absent, and fails instead under `SATURN_REQUIRE_SHARED=1` (CI).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use saturn_pnml::formulas::read_formulas_file;
use saturn_reference::mcc::oracle;
use saturn_symbolic::atoms::Atoms;
use saturn_symbolic::ctl::{Checker, CtlError, Deadlocks, EgMethod, EuMethod, GLOBAL_PROPERTIES};
use saturn_symbolic::{statespace, Direction, Limits, Method, Reach};

use crate::shared;

/// The largest instance (in reachable states) checked when `SATURN_MCC_MAX_STATES` is unset.
const DEFAULT_MAX_STATES: u64 = 20_000;

/// The pairs of methods every formula is checked with: every EU method (Figures 2.11, 3.1-3.3)
/// with the breadth-first EG, and the EG by transitive closure (the slow one: it builds the
/// closure of the whole reachable set) once, with the default EU, but on the instances of
/// `shared::CLOSURE_TOO_SLOW`.
const METHODS: [(EuMethod, EgMethod); 6] = [
    (EuMethod::Trad, EgMethod::Trad),
    (EuMethod::Sat, EgMethod::Trad),
    (EuMethod::ConsNsfPot, EgMethod::Trad),
    (EuMethod::ConsNsfRch, EgMethod::Trad),
    (EuMethod::ConsSatPot, EgMethod::Trad),
    (EuMethod::ConsSatRch, EgMethod::Tc),
];

const EXAMINATIONS: [&str; 5] = [
    "CTLCardinality",
    "CTLFireability",
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
];

#[derive(Default, Debug)]
struct Tally {
    agreed: usize,
    disagreed: Vec<String>,
    unanswered: Vec<String>,
}

impl Tally {
    fn record(&mut self, id: &str, got: Result<String, CtlError>, want: &str) {
        match got {
            Ok(g) if g == want => self.agreed += 1,
            Ok(g) => self.disagreed.push(format!("{id}: got {g}, oracle {want}")),
            Err(e) => self.unanswered.push(format!("{id}: {e}")),
        }
    }
}

fn limits(secs: u64) -> Limits {
    Limits {
        deadline: Some(Instant::now() + Duration::from_secs(secs)),
        ..Limits::none()
    }
}

// the instances in two halves (alternate ones, by name), one test each, so the two run side by
// side on two cores
#[test]
fn mcc_formula_and_global_property_oracles_first_half() {
    oracles(0);
}

#[test]
fn mcc_formula_and_global_property_oracles_second_half() {
    oracles(1);
}

/// Half `half` (0 or 1) of the instances.
fn oracles(half: usize) {
    let Some(mut dirs) = shared::mcc_instances("MCC CTL oracle test skipped") else {
        return;
    };
    dirs.retain(|d| d.join("oracle.txt").is_file());
    shared::mcc_only(&mut dirs);
    let dir = shared::benchmarks("mcc");
    let secs = shared::mcc_timeout();
    // `SATURN_MCC_MAX_STATES=N`: only the instances with at most N states (INDEX.tsv).
    // By default the instances up to DEFAULT_MAX_STATES (the breadth-first EU/EG fixpoints make
    // the larger ones take an hour under the test profile); `SATURN_MCC_MAX_STATES=all` runs all.
    let max_states = match std::env::var("SATURN_MCC_MAX_STATES") {
        Ok(s) if s == "all" => None,
        Ok(s) => Some(
            s.parse::<u64>()
                .expect("SATURN_MCC_MAX_STATES: a number or `all`"),
        ),
        Err(_) => Some(DEFAULT_MAX_STATES),
    };
    if let Some(max) = max_states {
        let index = std::fs::read_to_string(dir.join("INDEX.tsv")).unwrap_or_default();
        let small: Vec<&str> = index
            .lines()
            .skip(1)
            .filter(|r| {
                r.split('\t')
                    .nth(4)
                    .and_then(|n| n.parse::<u64>().ok())
                    .is_some_and(|n| n <= max)
            })
            .filter_map(|r| r.split('\t').next())
            .collect();
        dirs.retain(|d| small.iter().any(|s| d.ends_with(s)));
        eprintln!("{} instances with at most {max} states", dirs.len());
    }
    // by decreasing size (INDEX.tsv), alternately to each half: halves of about equal work
    let index = std::fs::read_to_string(dir.join("INDEX.tsv")).unwrap_or_default();
    let size = |d: &std::path::Path| {
        index
            .lines()
            .filter_map(|r| {
                let mut f = r.split('\t');
                let name = f.next()?;
                let states = f.nth(3)?.parse::<u64>().ok()?;
                d.ends_with(name).then_some(states)
            })
            .next()
            .unwrap_or(0)
    };
    dirs.sort_by_key(|d| std::cmp::Reverse(size(d)));
    let dirs: Vec<_> = dirs
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == half)
        .map(|(_, d)| d)
        .collect();
    if dirs.is_empty() {
        eprintln!("no instance in this half");
        return;
    }
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    for d in &dirs {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let want = oracle(d);
        let net = saturn_pnml::reader::read_pnml_file(&d.join("model.pnml"))
            .expect("contest PNML must read");
        let orders: Vec<Vec<usize>> = saturn_model::order::PORTFOLIO
            .iter()
            .map(|o| saturn_model::order::by_name(&net, o).unwrap())
            .collect();
        let models: Vec<_> = orders.iter().map(|o| net.to_model(o).unwrap()).collect();
        let t = Instant::now();
        let generated = statespace::generate_portfolio(
            &models,
            Method::Saturation,
            saturn_symbolic::Relations::Implicit,
            limits(secs),
            None,
        );
        let Ok((won, mut ss)) = generated else {
            eprintln!("{name}: state space not generated within {secs} s");
            tallies
                .entry("generation")
                .or_default()
                .unanswered
                .push(name);
            continue;
        };
        let formulas: Vec<_> = EXAMINATIONS
            .iter()
            .map(|exam| {
                let fs = read_formulas_file(&d.join(format!("{exam}.xml")), &net)
                    .unwrap_or_else(|e| panic!("{name} {exam}: {e}"));
                (*exam, fs)
            })
            .collect();
        // a fresh checker per pair of methods: a checker keeps what it has computed
        for (eu, eg) in METHODS {
            // not the closure where it takes minutes (a fixed list, see testsupport)
            let eg = if eg == EgMethod::Tc && shared::CLOSURE_TOO_SLOW.contains(&name.as_str()) {
                eprintln!("{name}: EG by closure not run (shared::CLOSURE_TOO_SLOW)");
                EgMethod::Trad
            } else {
                eg
            };
            let tm = Instant::now();
            let atoms = Atoms::for_petri(&models[won], &orders[won]);
            let reach = Reach::new(&mut ss.dd, &models[won], Direction::Forward, None);
            let mut checker =
                Checker::new(reach, &models[won], atoms, ss.states, Deadlocks::Maximal);
            checker.set_eu_method(eu);
            checker.set_eg_method(eg);
            let methods = format!("[EU {}, EG {}]", eu.name(), eg.name());
            for (exam, fs) in &formulas {
                let tally = tallies.entry(exam).or_default();
                for f in fs {
                    let w = want
                        .get(&f.id)
                        .unwrap_or_else(|| panic!("no oracle for {}", f.id));
                    if w == "?" {
                        continue;
                    }
                    checker.set_limits(limits(secs));
                    let got = match &f.resolved {
                        saturn_logic::ResolvedQuery::Formula(s) => checker
                            .holds(s)
                            .map(|b| if b { "TRUE" } else { "FALSE" }.to_string()),
                        saturn_logic::ResolvedQuery::Bound(e) => checker
                            .upper_bound(e)
                            .map(|b| b.map_or("none".into(), |b| b.to_string())),
                    };
                    tally.record(&format!("{} {methods}", f.id), got, w);
                }
            }
            let tally = tallies.entry("GlobalProperties").or_default();
            for p in GLOBAL_PROPERTIES {
                checker.set_limits(limits(secs));
                let got = checker
                    .global_property(p, net.transitions.len())
                    .map(|b| if b == Some(true) { "TRUE" } else { "FALSE" }.to_string());
                tally.record(&format!("{name} {p} {methods}"), got, &want[p]);
            }
            eprintln!("{name} {methods}: {:.1} s", tm.elapsed().as_secs_f64());
        }
        eprintln!("{name}: done in {:.1} s", t.elapsed().as_secs_f64());
    }
    let (mut disagreed, mut unanswered) = (Vec::new(), Vec::new());
    for (exam, t) in &tallies {
        eprintln!(
            "{exam}: {} agreed, {} disagreed, {} not answered {:?}",
            t.agreed,
            t.disagreed.len(),
            t.unanswered.len(),
            t.unanswered
        );
        disagreed.extend(t.disagreed.iter().cloned());
        unanswered.extend(t.unanswered.iter().map(|u| format!("{exam}: {u}")));
    }
    assert!(
        disagreed.is_empty(),
        "disagreements with the contest's oracle: {disagreed:#?}"
    );
    assert!(
        unanswered.is_empty(),
        "not answered within {secs} s: {unanswered:#?}"
    );
    assert!(
        tallies.values().map(|t| t.agreed).sum::<usize>() > 0,
        "nothing answered"
    );
}
