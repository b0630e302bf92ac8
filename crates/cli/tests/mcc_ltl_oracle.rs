//! `saturn mcc DIR --examination LTLCardinality|LTLFireability`, as the contest runs it (default
//! flags), against the contest's verdicts on the developer instances with at most
//! [`MAX_STATES`] reachable markings: every formula answered, none in disagreement.

use assert_cmd::Command;
use saturn_reference::mcc::{benchmark_dir, instances_up_to, oracle};

/// The instances small enough for the test profile.
const MAX_STATES: u64 = 20_000;

fn check(exam: &str) {
    let Some(dir) = benchmark_dir("the LTL oracle test") else {
        return;
    };
    let instances = instances_up_to(&dir, MAX_STATES);
    assert!(instances.len() >= 15, "{} instances", instances.len());
    let mut answered = 0;
    for (name, _) in &instances {
        let inst = dir.join(name);
        let out = Command::cargo_bin("saturn")
            .expect("the saturn binary is built for the tests")
            .args(["mcc", &inst.to_string_lossy(), "--examination", exam])
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
            assert_eq!(w[2], want, "{name}: {line}");
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
