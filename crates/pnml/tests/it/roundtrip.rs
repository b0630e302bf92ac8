//! Writer/reader round trips, and the reader never panics on random or damaged input.

use proptest::prelude::*;
use saturn_model::families::{generate, FAMILIES};
use saturn_model::{Arc, PetriNet, Place, Transition};
use saturn_pnml::reader::read_pnml_str;
use saturn_pnml::writer::write_pnml;

use crate::shared;

use crate::mutate::mutate;

#[test]
fn families_round_trip() {
    for f in FAMILIES {
        let net = generate(f, 3).unwrap();
        let text = write_pnml(&net);
        let back = read_pnml_str(&text, f).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(back, net, "{f}");
    }
}

#[test]
fn awkward_names_round_trip() {
    let net = PetriNet {
        name: "a <net> & \"quotes\" 'too'".into(),
        places: vec![
            Place {
                id: "p&1".into(),
                name: "<first>".into(),
                initial: u64::MAX,
            },
            Place {
                id: "a0".into(),
                name: "named like an arc".into(),
                initial: 0,
            },
        ],
        transitions: vec![Transition {
            id: "page0".into(),
            name: "named like the page".into(),
            inputs: vec![Arc {
                place: 0,
                weight: 7,
            }],
            outputs: vec![
                Arc {
                    place: 1,
                    weight: 1,
                },
                Arc {
                    place: 0,
                    weight: 2,
                },
            ],
            inhibitors: vec![Arc {
                place: 1,
                weight: 1,
            }],
        }],
    };
    let text = write_pnml(&net);
    assert!(text.contains("inhibitorptnet"));
    assert_eq!(read_pnml_str(&text, "x").unwrap(), net);
}

#[test]
fn the_written_file_looks_like_mcc_pnml() {
    let text = write_pnml(&generate("kanban", 2).unwrap());
    assert!(text.starts_with("<?xml"));
    assert!(text.contains(r#"<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">"#));
    assert!(text.contains(r#"type="http://www.pnml.org/version-2009/grammar/ptnet""#));
    assert!(text.contains("<initialMarking>"));
    assert!(!text.contains("inhibitor"));
}

/// A random net with unique, trimmed, non-empty names (the reader trims names and uses the id
/// for a missing one) and no parallel arcs of one kind (the reader merges them).
fn random_net() -> impl Strategy<Value = PetriNet> {
    (1usize..=6, 0usize..=6).prop_flat_map(|(np, nt)| {
        let arcs = proptest::collection::btree_map(0..np, 1u64..=1000, 0..=3);
        let marking = prop_oneof![Just(0u64), 0u64..5, Just(u64::MAX)];
        (
            proptest::collection::vec(marking, np),
            proptest::collection::vec((arcs.clone(), arcs.clone(), arcs), nt),
            "[a-zA-Z0-9 <>&'\"_-]{0,12}",
        )
            .prop_map(move |(marks, ts, name)| PetriNet {
                name: format!("n{}", name.trim()),
                places: marks
                    .into_iter()
                    .enumerate()
                    .map(|(i, m)| Place {
                        id: format!("p{i}"),
                        name: format!("P {i}"),
                        initial: m,
                    })
                    .collect(),
                transitions: ts
                    .into_iter()
                    .enumerate()
                    .map(|(i, (a, b, c))| {
                        let v = |m: std::collections::BTreeMap<usize, u64>| {
                            m.into_iter()
                                .map(|(place, weight)| Arc { place, weight })
                                .collect()
                        };
                        Transition {
                            id: format!("t{i}"),
                            name: format!("T{i}"),
                            inputs: v(a),
                            outputs: v(b),
                            inhibitors: v(c),
                        }
                    })
                    .collect(),
            })
    })
}

proptest! {
    #[test]
    fn random_nets_round_trip(net in random_net()) {
        let text = write_pnml(&net);
        let back = read_pnml_str(&text, "random");
        prop_assert_eq!(back, Ok(net));
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = read_pnml_str(&text, "random");
    }

    #[test]
    fn damaged_pnml_never_panics(
        net in random_net(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..8),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let text = write_pnml(&net);
        let damaged = mutate(text.as_bytes(), &edits, cut);
        let damaged = String::from_utf8_lossy(&damaged);
        match read_pnml_str(&damaged, "damaged") {
            Ok(n) => prop_assert!(n.transitions.iter().all(|t| t
                .inputs.iter().chain(&t.outputs).chain(&t.inhibitors)
                .all(|a| a.place < n.places.len()))),
            Err(e) => prop_assert!(!e.to_string().contains('\n')),
        }
    }
}

/// Damage a real MCC model the same way (skipped when the benchmarks are absent).
#[test]
fn damaged_mcc_model_never_panics() {
    let path = shared::benchmarks("mcc/Kanban-PT-00005/model.pnml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        shared::absent(&path, "skipping the damaged contest model test");
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(300));
    let strategy = (
        proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        proptest::option::of(any::<usize>()),
    );
    runner
        .run(&strategy, |(edits, cut)| {
            let damaged = mutate(text.as_bytes(), &edits, cut);
            let _ = read_pnml_str(&String::from_utf8_lossy(&damaged), "kanban");
            Ok(())
        })
        .unwrap();
}
