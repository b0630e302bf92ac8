//! `saturn mcc DIR --examination LTLCardinality|LTLFireability`, as the contest runs it (default
//! flags), against the contest's verdicts on the developer instances with at most
//! [`MAX_STATES`] reachable markings: every formula answered, none in disagreement. Then each
//! symbolic engine alone (`--ltl-method el` on the instances up to [`EL_MAX_STATES`],
//! `--ltl-method tc` up to [`TC_MAX_STATES`]), so that the portfolio's answers do not hide a
//! wrong engine.

use assert_cmd::Command;
use saturn_reference::mcc::{benchmark_dir, instances_up_to, oracle};

/// The instances small enough for the test profile.
const MAX_STATES: u64 = 20_000;

/// The instances the symbolic product with Emerson-Lei is run on (all but
/// LamportFastMutEx-PT-3 of the default test's: 21 of its 53 s in a release build).
const EL_MAX_STATES: u64 = 11_000;

/// The instances the transitive-closure method is run on (its closure of the product takes
/// 28 s on CircularTrains-PT-012, 195 markings; docs/ltl.md).
const TC_MAX_STATES: u64 = 170;

fn check(exam: &str) {
    check_with(exam, &[], MAX_STATES, "TECHNIQUES");
}

/// `saturn mcc` on the instances with at most `max_states` markings with `extra` flags: every
/// formula answered as the contest did, each line's techniques starting with `techniques`.
fn check_with(exam: &str, extra: &[&str], max_states: u64, techniques: &str) {
    let Some(dir) = benchmark_dir("the LTL oracle test") else {
        return;
    };
    let instances = instances_up_to(&dir, max_states);
    assert!(instances.len() >= 5, "{} instances", instances.len());
    let mut answered = 0;
    for (name, _) in &instances {
        let inst = dir.join(name);
        let out = Command::cargo_bin("saturn")
            .expect("the saturn binary is built for the tests")
            .args(["mcc", &inst.to_string_lossy(), "--examination", exam])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let expected = oracle(&inst);
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 16, "{name}: {text}");
        for line in lines {
            let w: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(w[0], "FORMULA", "{name}: {line}");
            let want = expected
                .get(w[1])
                .unwrap_or_else(|| panic!("no oracle for {}", w[1]));
            assert_eq!(w[2], want, "{name} {extra:?}: {line}");
            assert!(w[3..].join(" ").starts_with(techniques), "{name}: {line}");
            answered += 1;
        }
    }
    assert_eq!(answered, 16 * instances.len());
}

#[test]
fn ltl_cardinality_agrees_with_the_contest() {
    check("LTLCardinality");
}

#[test]
fn ltl_fireability_agrees_with_the_contest() {
    check("LTLFireability");
}

/// The symbolic product alone, emptiness by Emerson-Lei.
#[test]
fn symbolic_product_el_agrees_with_the_contest() {
    let t = "TECHNIQUES DECISION_DIAGRAMS SATURATION LTL_AUTOMATA";
    check_with("LTLCardinality", &["--ltl-method", "el"], EL_MAX_STATES, t);
    check_with("LTLFireability", &["--ltl-method", "el"], EL_MAX_STATES, t);
}

/// The symbolic product alone, emptiness by the transitive closure.
#[test]
fn symbolic_product_tc_agrees_with_the_contest() {
    let t = "TECHNIQUES DECISION_DIAGRAMS SATURATION LTL_AUTOMATA";
    check_with("LTLCardinality", &["--ltl-method", "tc"], TC_MAX_STATES, t);
    check_with("LTLFireability", &["--ltl-method", "tc"], TC_MAX_STATES, t);
}
