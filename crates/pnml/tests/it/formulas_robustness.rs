//! The formula XML reader on damaged input: random mutations of real contest files (or of a
//! built-in sample when the benchmarks are absent) give a clean result or a clean error.

use proptest::prelude::*;
use saturn_model::{PetriNet, Place, Transition};
use saturn_pnml::formulas::{parse_formulas_str, read_formulas_str};

use crate::shared;

const SAMPLE: &str = r#"<?xml version="1.0"?>
<property-set xmlns="http://mcc.lip6.fr/">
  <property><id>S-00</id><description>d</description><formula>
    <all-paths><globally><conjunction>
      <integer-le><tokens-count><place>p0</place><place>p1</place></tokens-count><integer-constant>3</integer-constant></integer-le>
      <negation><is-fireable><transition>t0</transition></is-fireable></negation>
      <exists-path><until><before><true/></before><reach><deadlock/></reach></until></exists-path>
    </conjunction></globally></all-paths>
  </formula></property>
  <property><id>S-01</id><formula><place-bound><place>p1</place></place-bound></formula></property>
  <property><id>S-02</id><formula><exists-path><next><disjunction><false/><integer-le><integer-constant>1</integer-constant><tokens-count><place>p0</place></tokens-count></integer-le></disjunction></next></exists-path></formula></property>
</property-set>
"#;

fn corpus() -> Vec<String> {
    let dir = shared::benchmarks("mcc/Dekker-PT-010");
    let mut out = vec![SAMPLE.to_string()];
    for f in [
        "CTLCardinality.xml",
        "ReachabilityFireability.xml",
        "UpperBounds.xml",
    ] {
        match std::fs::read_to_string(dir.join(f)) {
            // keep the cases fast: the first properties only
            Ok(t) => out.push(t.chars().take(6000).collect()),
            Err(_) => shared::absent(&dir.join(f), "mutating the built-in sample only"),
        }
    }
    out
}

fn net() -> PetriNet {
    let place = |id: &str| Place {
        id: id.into(),
        name: id.into(),
        initial: 0,
    };
    PetriNet {
        name: "n".into(),
        places: vec![place("p0"), place("p1")],
        transitions: vec![Transition {
            id: "t0".into(),
            name: "t0".into(),
            ..Default::default()
        }],
    }
}

fn mutate(text: &str, edits: &[(prop::sample::Index, u8, u8)]) -> String {
    let mut b: Vec<u8> = text.as_bytes().to_vec();
    let pieces: [&[u8]; 8] = [
        b"<",
        b">",
        b"</",
        b"/>",
        b"<negation>",
        b"</property>",
        b"&amp;",
        b"<x/>",
    ];
    for (i, kind, arg) in edits {
        let n = b.len();
        if n == 0 {
            break;
        }
        let at = i.index(n);
        match kind % 4 {
            0 => {
                let end = (at + 1 + *arg as usize % 40).min(n);
                b.drain(at..end);
            }
            1 => {
                let p = pieces[*arg as usize % pieces.len()];
                b.splice(at..at, p.iter().copied());
            }
            2 => b[at] = *arg,
            _ => {
                let end = (at + *arg as usize).min(n);
                let dup: Vec<u8> = b[at..end].to_vec();
                b.splice(end..end, dup);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn mutated_formula_xml_never_panics(k in any::<prop::sample::Index>(), edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), any::<u8>()), 1..5)) {
        let corpus = corpus();
        let text = mutate(&corpus[k.index(corpus.len())], &edits);
        if let Ok(fs) = parse_formulas_str(&text, "m.xml") {
            for f in &fs {
                // whatever is read prints to text that parses back to it
                let back = saturn_logic::parse_query(&f.query.to_string()).unwrap();
                prop_assert_eq!(back.without_spans(), f.query.without_spans());
            }
        }
        let _ = read_formulas_str(&text, "m.xml", &net());
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_formulas_str(&String::from_utf8_lossy(&bytes), "r.xml");
    }
}
