//! Structure of the generated benchmark nets and the generator's errors. State counts are
//! checked against the explicit reference in `saturn-reference`'s tests.

use std::collections::HashSet;

use saturn_model::families::{generate, range, FamilyError, FAMILIES, KNOWN_COUNTS};

#[test]
fn sizes_follow_the_published_models() {
    let size = |f: &str, n: u32| {
        let net = generate(f, n).unwrap();
        (net.places.len(), net.transitions.len())
    };
    assert_eq!(size("kanban", 7), (16, 16));
    assert_eq!(size("philosophers", 9), (54, 36));
    assert_eq!(size("slot", 5), (40, 40));
    assert_eq!(size("queens", 6), (42, 36));
    assert_eq!(size("fms", 3), (22, 20));
    assert_eq!(size("robin", 4), (33, 24));
}

#[test]
fn every_family_is_well_formed() {
    for &f in FAMILIES {
        let r = range(f).unwrap();
        for n in [*r.start(), r.start() + 1, 7.min(*r.end())] {
            let net = generate(f, n).unwrap();
            let ids: HashSet<&str> = net
                .places
                .iter()
                .map(|p| p.id.as_str())
                .chain(net.transitions.iter().map(|t| t.id.as_str()))
                .collect();
            assert_eq!(
                ids.len(),
                net.places.len() + net.transitions.len(),
                "{f} {n}: ids unique"
            );
            for t in &net.transitions {
                for list in [&t.inputs, &t.outputs, &t.inhibitors] {
                    let mut seen = HashSet::new();
                    for a in list {
                        assert!(a.place < net.places.len() && a.weight > 0, "{f} {n}");
                        assert!(seen.insert(a.place), "{f} {n}: parallel arcs are merged");
                    }
                }
            }
            // only queens uses inhibitor arcs
            let inhibitors = net.transitions.iter().any(|t| !t.inhibitors.is_empty());
            assert_eq!(inhibitors, f == "queens" && n > 1, "{f} {n}");
        }
    }
}

#[test]
fn the_nets_have_the_expected_initial_markings() {
    let net = generate("kanban", 5).unwrap();
    let total: u64 = net.places.iter().map(|p| p.initial).sum();
    assert_eq!(total, 20);
    let net = generate("fms", 4).unwrap();
    let m = |id: &str| net.places[net.place_index(id).unwrap()].initial;
    assert_eq!(
        (m("P1"), m("P2"), m("P3"), m("M1"), m("M2"), m("M3")),
        (4, 4, 4, 3, 1, 2)
    );
    let net = generate("robin", 3).unwrap();
    let total: u64 = net.places.iter().map(|p| p.initial).sum();
    assert_eq!(total, 1 + 3 + 3); // Res, one bufidle and one pwait/pask per process
}

#[test]
fn errors_name_the_problem() {
    let e = generate("dining", 3).unwrap_err();
    assert!(matches!(e, FamilyError::Unknown { .. }));
    let msg = e.to_string();
    assert!(msg.contains("dining"), "{msg}");
    for f in FAMILIES {
        assert!(msg.contains(f), "{msg} lists {f}");
    }
    let msg = generate("queens", 21).unwrap_err().to_string();
    assert!(
        msg.contains("21") && msg.contains("1..=20") && msg.contains("queens"),
        "{msg}"
    );
    let msg = generate("kanban", 0).unwrap_err().to_string();
    assert!(
        msg.contains("out of range") && msg.contains("1..=100000"),
        "{msg}"
    );
}

#[test]
fn known_counts_are_well_formed() {
    for &(f, n, count) in KNOWN_COUNTS {
        assert!(range(f).is_some_and(|r| r.contains(&n)), "{f} {n}");
        let ok = match count.split_once('e') {
            None => count.bytes().all(|b| b.is_ascii_digit()),
            Some((m, e)) => e.parse::<u32>().is_ok() && m.replace('.', "").parse::<u64>().is_ok(),
        };
        assert!(ok, "{f} {n}: {count}");
    }
}
