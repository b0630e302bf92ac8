//! The streaming reader against the previous whole-document reader (`dom`, a `roxmltree` DOM,
//! kept here as the oracle): on every contest model, on generated PNML that exercises the
//! reader's rules (pages, references, duplicates, coloured labels, arc types, numbers, XML
//! escapes and namespaces), and on damaged copies of both, the two accept the same documents
//! with equal nets and refuse the same documents with the same error, malformed-XML messages
//! and positions aside (both must then report malformed XML).

use crate::dom;

use proptest::prelude::*;
use saturn_model::PetriNet;
use saturn_pnml::PnmlError;

use crate::shared;

use crate::mutate::mutate;

/// Compare the two readers on `bytes` (with the bound `max`); a description of any difference.
fn disagreement(bytes: &[u8], max: u64) -> Option<String> {
    let old = dom::read_pnml_bytes_within(bytes, "doc", max);
    let new = saturn_pnml::read_pnml_bytes_within(bytes, "doc", max);
    let same = match (&old, &new) {
        (Ok(a), Ok(b)) => a == b,
        (Err(PnmlError::Xml { .. }), Err(PnmlError::Xml { .. })) => true,
        (Err(a), Err(b)) => a == b,
        _ => false,
    };
    (!same).then(|| {
        let show = |r: &Result<PetriNet, PnmlError>| match r {
            Ok(n) => format!("Ok({n:?})"),
            Err(e) => format!("Err({e})"),
        };
        format!(
            "dom: {}\nstreaming: {}\ndocument: {:?}",
            show(&old),
            show(&new),
            String::from_utf8_lossy(bytes)
        )
    })
}

#[test]
fn every_mcc_model_reads_the_same() {
    let Some(dir) = shared::existing(shared::benchmarks("mcc"), "skipping the MCC agreement")
    else {
        return;
    };
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let model = entry.path().join("model.pnml");
        let Ok(bytes) = std::fs::read(&model) else {
            continue;
        };
        let old = dom::read_pnml_bytes(&bytes, "m").unwrap_or_else(|e| panic!("{e}"));
        let new = saturn_pnml::read_pnml_file(&model).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(old, new, "{}", model.display());
        seen += 1;
    }
    assert!(seen >= 40, "only {seen} contest models found");
}

/// Damaged copies of a contest model (skipped when the benchmarks are absent).
#[test]
fn damaged_mcc_models_agree() {
    let path = shared::benchmarks("mcc/Kanban-PT-00005/model.pnml");
    let Ok(text) = std::fs::read(&path) else {
        shared::absent(&path, "skipping the damaged contest model agreement");
        return;
    };
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(300));
    let strategy = (
        proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        proptest::option::of(any::<usize>()),
    );
    runner
        .run(&strategy, |(edits, cut)| {
            let damaged = mutate(&text, &edits, cut);
            if let Some(d) = disagreement(&damaged, u64::MAX) {
                return Err(TestCaseError::fail(d));
            }
            Ok(())
        })
        .unwrap();
}

/// Identifiers from a small pool, so that duplicates and unknown references happen.
const IDS: &[&str] = &["p0", "p1", "p2", "t0", "t1", "r0", "r1", "a0", "a1", "page"];
/// Label texts: numbers of every kind, names with escapes and blanks.
const TEXTS: &[&str] = &[
    "0",
    "1",
    " 7 ",
    "+3",
    "-2",
    "x",
    "",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "&#49;2",
    "1&amp;",
    "<![CDATA[5]]>",
    "<!--c-->4",
    "4<!--c-->2",
    "a\r\nb",
    "a\rb&#13;",
    "&#13;\r",
    "  name with  blanks ",
    "&lt;x&gt;",
    "é&#x20AC;",
];
const ARC_TYPES: &[&str] = &[
    "normal",
    "inhibitor",
    "Test",
    "read",
    "reset",
    "",
    " INHIBITOR ",
];

/// One fragment of a net, rendered from random choices.
#[derive(Clone, Debug)]
enum Frag {
    Place(usize, Option<usize>, Option<usize>, u8),
    Transition(usize, Option<usize>, u8),
    Ref(bool, usize, usize, u8),
    Arc(usize, usize, usize, Option<usize>, Option<usize>, u8),
    Page(Vec<Frag>),
    Other(u8),
}

fn frag() -> impl Strategy<Value = Frag> {
    let id = 0..IDS.len();
    // One past the texts: a label without a <text> child.
    let text = proptest::option::of(0..=TEXTS.len());
    let leaf = prop_oneof![
        4 => (id.clone(), text.clone(), text.clone(), any::<u8>())
            .prop_map(|(i, n, m, f)| Frag::Place(i, n, m, f)),
        3 => (id.clone(), text.clone(), any::<u8>()).prop_map(|(i, n, f)| Frag::Transition(i, n, f)),
        1 => (any::<bool>(), id.clone(), id.clone(), any::<u8>())
            .prop_map(|(p, i, r, f)| Frag::Ref(p, i, r, f)),
        5 => (id.clone(), id.clone(), id.clone(), text.clone(),
              proptest::option::of(0..ARC_TYPES.len()), any::<u8>())
            .prop_map(|(i, s, t, w, k, f)| Frag::Arc(i, s, t, w, k, f)),
        1 => any::<u8>().prop_map(Frag::Other),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        proptest::collection::vec(inner, 0..6).prop_map(Frag::Page)
    })
}

fn label(name: &str, text: Option<usize>) -> String {
    match text {
        None => String::new(),
        Some(t) if t == TEXTS.len() => format!("<{name}/>"),
        Some(t) => format!("<{name}><text>{}</text></{name}>", TEXTS[t]),
    }
}

fn render(f: &Frag, out: &mut String) {
    match f {
        Frag::Place(i, n, m, flags) => {
            let id = if flags & 1 == 0 {
                format!(" id=\"{}\"", IDS[*i])
            } else {
                String::new()
            };
            out.push_str(&format!("<place{id}>"));
            if flags & 2 != 0 {
                out.push_str("<graphics><position x=\"1\" y=\"2\"/></graphics>");
            }
            out.push_str(&label("name", *n));
            out.push_str(&label("initialMarking", *m));
            if flags & 4 != 0 {
                out.push_str(&label("initialMarking", Some(1)));
            }
            if flags & 0x18 == 0x18 {
                out.push_str("<type><text>Dot</text></type>");
            }
            if flags & 0xE0 == 0xE0 {
                out.push_str("<hlinitialMarking/>");
            }
            out.push_str("</place>\n");
        }
        Frag::Transition(i, n, flags) => {
            let id = if flags & 1 == 0 {
                format!(" id=\"{}\"", IDS[*i])
            } else {
                String::new()
            };
            out.push_str(&format!("<transition{id}>{}", label("name", *n)));
            if flags & 0x30 == 0x30 {
                out.push_str("<condition/>");
            }
            out.push_str("</transition>");
        }
        Frag::Ref(place, i, r, flags) => {
            let tag = if *place {
                "referencePlace"
            } else {
                "referenceTransition"
            };
            let id = if flags & 1 == 0 {
                format!(" id=\"{}\"", IDS[*i])
            } else {
                String::new()
            };
            let r = if flags & 2 == 0 {
                format!(" ref=\"{}\"", IDS[*r])
            } else {
                String::new()
            };
            out.push_str(&format!("<{tag}{id}{r}/>"));
        }
        Frag::Arc(i, s, t, w, k, flags) => {
            let attr = |name: &str, v: &str, missing: bool| {
                if missing {
                    String::new()
                } else {
                    format!(" {name}=\"{v}\"")
                }
            };
            out.push_str(&format!(
                "<arc{}{}{}",
                attr("id", IDS[*i], flags & 1 != 0),
                attr("source", IDS[*s], flags & 2 != 0),
                attr("target", IDS[*t], flags & 4 != 0)
            ));
            let kind = k.map(|k| ARC_TYPES[k]);
            if let (Some(kind), true) = (kind, flags & 8 != 0) {
                out.push_str(&format!(" type=\"{kind}\""));
            }
            out.push('>');
            out.push_str(&label("inscription", *w));
            if let (Some(kind), true) = (kind, flags & 16 != 0) {
                match flags & 0x60 {
                    0 => out.push_str(&format!("<type value=\"{kind}\"/>")),
                    0x20 => out.push_str(&format!("<arctype><text>{kind}</text></arctype>")),
                    _ => out.push_str("<type value=\"inhibitor\"/>"),
                }
            }
            if flags & 0x80 != 0 {
                out.push_str("<hlinscription/>");
            }
            out.push_str("</arc>\n");
        }
        Frag::Page(children) => {
            out.push_str("<page id=\"pg\">");
            for c in children {
                render(c, out);
            }
            out.push_str("</page>\n");
        }
        Frag::Other(k) => out.push_str(match k % 6 {
            0 => "<!-- a comment -->",
            1 => "<toolspecific tool=\"x\"><place id=\"hidden\"/></toolspecific>",
            2 => "<declaration/>",
            3 => "<?pi some data?>",
            4 => "<name><text>late</text></name>",
            _ => "<x:y xmlns:x=\"urn:x\" x:a=\"1\" a=\"2\"/>",
        }),
    }
}

fn document(frags: &[Frag], shape: u8) -> String {
    let mut body = String::new();
    for f in frags {
        render(f, &mut body);
    }
    let ty = match shape % 5 {
        0 => "http://www.pnml.org/version-2009/grammar/symmetricnet",
        _ => "http://www.pnml.org/version-2009/grammar/ptnet",
    };
    let name = if shape & 8 != 0 {
        "<name><text> the net </text></name>"
    } else {
        ""
    };
    let net = format!("<net id=\"n\" type=\"{ty}\">{name}\n{body}</net>");
    match (shape >> 4) % 4 {
        0 => format!("<?xml version=\"1.0\"?>\n<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n{net}\n</pnml>\n"),
        1 => net,
        2 => format!("<pnml>{net}<net id=\"second\"/></pnml>"),
        _ => format!("\u{FEFF}<p:pnml xmlns:p=\"urn:p\">\r\n{net}</p:pnml>"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn generated_pnml_agrees(frags in proptest::collection::vec(frag(), 0..10), shape in any::<u8>(),
                             max in prop_oneof![Just(u64::MAX), Just(4u64)]) {
        let doc = document(&frags, shape);
        if let Some(d) = disagreement(doc.as_bytes(), max) {
            return Err(TestCaseError::fail(d));
        }
    }

    #[test]
    fn damaged_generated_pnml_agrees(
        frags in proptest::collection::vec(frag(), 0..8),
        shape in any::<u8>(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let doc = document(&frags, shape);
        let damaged = mutate(doc.as_bytes(), &edits, cut);
        if let Some(d) = disagreement(&damaged, u64::MAX) {
            return Err(TestCaseError::fail(d));
        }
    }

    #[test]
    fn damaged_written_nets_agree(
        n in 1u32..4,
        fam in 0usize..6,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..8),
        cut in proptest::option::of(any::<usize>()),
    ) {
        let f = saturn_model::families::FAMILIES[fam % saturn_model::families::FAMILIES.len()];
        let net = saturn_model::families::generate(f, n).unwrap();
        let text = saturn_pnml::writer::write_pnml(&net);
        let damaged = mutate(text.as_bytes(), &edits, cut);
        if let Some(d) = disagreement(&damaged, u64::MAX) {
            return Err(TestCaseError::fail(d));
        }
    }

    #[test]
    fn random_xmlish_bytes_agree(parts in proptest::collection::vec(prop_oneof![
        Just("<"), Just(">"), Just("</"), Just("/>"), Just("a"), Just("net"), Just("pnml"),
        Just(" "), Just("\n"), Just("\r"), Just("="), Just("\""), Just("'"), Just("&"), Just(";"),
        Just("#"), Just("x"), Just("amp"), Just("<!--"), Just("-->"), Just("-"), Just("<?"),
        Just("?>"), Just("xml "), Just("<![CDATA["), Just("]]>"), Just(":"), Just("xmlns"),
        Just("<!DOCTYPE"), Just("\u{1}"), Just("é"), Just("\u{FFFE}"), Just("id"), Just("]"),
    ], 0..40)) {
        let doc: String = parts.concat();
        if let Some(d) = disagreement(doc.as_bytes(), u64::MAX) {
            return Err(TestCaseError::fail(d));
        }
    }
}
