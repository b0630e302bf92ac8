//! The MCC formula XML reader: hand-written files over a hand-built net, error cases, and every
//! formula file of the MCC benchmark set (skipped when `../shared` is absent).

use std::path::{Path, PathBuf};

use saturn_logic::resolve::{Atom, LinExpr, PathFormula, ResolvedQuery, StateFormula};
use saturn_logic::{parse_query, CmpOp, Query};
use saturn_model::{PetriNet, Place, Transition};
use saturn_pnml::formulas::*;

use crate::shared;

fn net() -> PetriNet {
    let place = |id: &str| Place {
        id: id.into(),
        name: id.into(),
        initial: 0,
    };
    let tr = |id: &str| Transition {
        id: id.into(),
        name: id.into(),
        ..Default::default()
    };
    PetriNet {
        name: "toy".into(),
        places: vec![place("p0"), place("p-1"), place("2p")],
        transitions: vec![tr("t0"), tr("t.1")],
    }
}

fn wrap(props: &str) -> String {
    format!("<?xml version=\"1.0\"?>\n<property-set xmlns=\"http://mcc.lip6.fr/\">\n{props}</property-set>\n")
}

fn prop(id: &str, body: &str) -> String {
    format!("<property><id>{id}</id><description>d {id}</description><formula>{body}</formula></property>\n")
}

fn tc(ps: &[&str]) -> String {
    let inner: String = ps.iter().map(|p| format!("<place>{p}</place>")).collect();
    format!("<tokens-count>{inner}</tokens-count>")
}

fn k(c: i64) -> String {
    format!("<integer-constant>{c}</integer-constant>")
}

fn le(a: &str, b: &str) -> String {
    format!("<integer-le>{a}{b}</integer-le>")
}

/// The same formulas in the text syntax, written by hand.
fn sample() -> (String, Vec<(&'static str, &'static str)>) {
    let fire = "<is-fireable><transition>t0</transition><transition>t.1</transition></is-fireable>";
    let props = [
        prop("F-00", &format!("<exists-path><finally>{}</finally></exists-path>", le(&tc(&["p0", "p-1"]), &k(3)))),
        prop(
            "F-01",
            &format!(
                "<all-paths><globally><conjunction>{}<negation>{fire}</negation><deadlock/></conjunction></globally></all-paths>",
                le(&k(-2), &tc(&["2p"]))
            ),
        ),
        prop(
            "F-02",
            &format!(
                "<exists-path><until><before><true/></before><reach><disjunction>{}<false/></disjunction></reach></until></exists-path>",
                le(&tc(&["p0"]), &tc(&["p0", "p-1", "2p"]))
            ),
        ),
        prop(
            "F-03",
            "<all-paths><next><exists-path><globally><conjunction><true/></conjunction></globally></exists-path></next></all-paths>",
        ),
        prop("F-04", "<place-bound><place>p-1</place><place>2p</place></place-bound>"),
        prop(
            "F-05",
            &format!("<all-paths><finally><globally><disjunction>{fire}<next>{}</next></disjunction></globally></finally></all-paths>", le(&k(1), &tc(&["p0"]))),
        ),
    ];
    let expected = vec![
        ("F-00", "EF (tokens-count(p0, \"p-1\") <= 3)"),
        (
            "F-01",
            "AG (-2 <= tokens-count(\"2p\") & !enabled(t0, t.1) & deadlock)",
        ),
        (
            "F-02",
            "E [true U tokens-count(p0) <= tokens-count(p0, \"p-1\", \"2p\") | false]",
        ),
        ("F-03", "AX EG true"),
        ("F-04", "bound(\"p-1\", \"2p\")"),
        (
            "F-05",
            "AF G (enabled(t0, t.1) | X (1 <= tokens-count(p0)))",
        ),
    ];
    (wrap(&props.concat()), expected)
}

#[test]
fn reads_every_element_in_file_order() {
    let (xml, expected) = sample();
    let fs = read_formulas_str(&xml, "sample.xml", &net()).unwrap();
    assert_eq!(fs.len(), expected.len());
    for (f, (id, text)) in fs.iter().zip(&expected) {
        assert_eq!(f.id, *id);
        assert_eq!(f.description.as_deref(), Some(format!("d {id}").as_str()));
        assert_eq!(
            f.query.without_spans(),
            parse_query(text).unwrap().without_spans(),
            "{id}"
        );
        assert_eq!(f.query.to_string(), *text);
    }
    // spans are byte ranges of the XML
    let Query::Bound { places, .. } = &fs[4].query else {
        panic!()
    };
    assert_eq!(&xml[places[0].span.start..places[0].span.end], "p-1");
}

#[test]
fn resolves_names_to_indices() {
    let (xml, _) = sample();
    let fs = read_formulas_str(&xml, "sample.xml", &net()).unwrap();
    use StateFormula as S;
    let ResolvedQuery::Formula(S::EF(a)) = &fs[0].resolved else {
        panic!("{:?}", fs[0].resolved)
    };
    // m(p0) + m(p-1) <= 3
    assert_eq!(
        **a,
        S::Atom(Atom {
            lhs: LinExpr {
                terms: vec![(0, 1), (1, 1)],
                constant: 0
            },
            op: CmpOp::Le,
            bound: 3
        })
    );
    let ResolvedQuery::Formula(S::AG(b)) = &fs[1].resolved else {
        panic!()
    };
    let S::And(v) = &**b else { panic!() };
    // -2 <= m(2p)  <=>  -m(2p) <= 2
    assert_eq!(
        v[0],
        S::Atom(Atom {
            lhs: LinExpr {
                terms: vec![(2, -1)],
                constant: 0
            },
            op: CmpOp::Le,
            bound: 2
        })
    );
    assert_eq!(v[1], S::Not(Box::new(S::Enabled(vec![0, 1]))));
    let ResolvedQuery::Formula(S::EU(_, r)) = &fs[2].resolved else {
        panic!()
    };
    // m(p0) <= m(p0) + m(p-1) + m(2p)  <=>  -m(p-1) - m(2p) <= 0
    let S::Or(v) = &**r else { panic!() };
    assert_eq!(
        v[0],
        S::Atom(Atom {
            lhs: LinExpr {
                terms: vec![(1, -1), (2, -1)],
                constant: 0
            },
            op: CmpOp::Le,
            bound: 0
        })
    );
    // one-operand conjunction is its operand
    let ResolvedQuery::Formula(S::AX(x)) = &fs[3].resolved else {
        panic!()
    };
    assert_eq!(**x, S::EG(Box::new(S::Const(true))));
    assert_eq!(
        fs[4].resolved,
        ResolvedQuery::Bound(LinExpr {
            terms: vec![(1, 1), (2, 1)],
            constant: 0
        })
    );
    // LTL: A (F G (...)) is a path formula
    let ResolvedQuery::Formula(S::A(p)) = &fs[5].resolved else {
        panic!("{:?}", fs[5].resolved)
    };
    assert!(matches!(**p, PathFormula::F(_)));
}

fn err(xml: &str) -> String {
    read_formulas_str(xml, "bad.xml", &net())
        .unwrap_err()
        .to_string()
}

#[test]
fn errors_name_the_problem_and_the_place() {
    let e = err(&wrap(&prop("X-07", &le(&tc(&["nope"]), &k(1)))));
    assert!(
        e.contains("formula 'X-07'")
            && e.contains("unknown place 'nope'")
            && e.starts_with("bad.xml:3:"),
        "{e}"
    );
    let e = err(&wrap(&prop(
        "X-08",
        "<is-fireable><transition>t9</transition></is-fireable>",
    )));
    assert!(
        e.contains("formula 'X-08'") && e.contains("unknown transition 't9'"),
        "{e}"
    );
    let e = err(&wrap(&prop(
        "X",
        "<exists-path><eventually><true/></eventually></exists-path>",
    )));
    assert!(
        e.contains("unknown element <eventually> in <exists-path>") && e.contains("bad.xml:3:"),
        "{e}"
    );
    let e = err(&wrap(&prop("X", &le(&k(1), "<integer-sum/>"))));
    assert!(
        e.contains("unknown element <integer-sum> in <integer-le>"),
        "{e}"
    );
    let e = err("<property-set><property><id>a</id><formula><true/></formula></property>");
    assert!(e.contains("malformed XML"), "{e}");
    let e = err("<net/>");
    assert!(e.contains("unknown element <net>"), "{e}");
    let e = err(&wrap("<property><formula><true/></formula></property>"));
    assert!(e.contains("missing <id>"), "{e}");
    let e = err(&wrap("<property><id>a</id></property>"));
    assert!(e.contains("no <formula>"), "{e}");
    let e = err(&wrap(&prop("X", "<negation><true/><false/></negation>")));
    assert!(
        e.contains("<negation>: expected exactly one child element, found 2"),
        "{e}"
    );
    let e = err(&wrap(&prop(
        "X",
        &le(&k(1), "<integer-constant>1e3</integer-constant>"),
    )));
    assert!(e.contains("'1e3' is not a 64-bit integer"), "{e}");
    let e = err(&wrap(&prop(
        "X",
        "<tokens-count><place>p0</place></tokens-count>",
    )));
    assert!(
        e.contains("unknown element <tokens-count> in <formula>"),
        "{e}"
    );
    let e = err(&wrap(&prop("X", "<finally><true/></finally>")));
    assert!(
        e.contains("formula 'X'") && e.contains("temporal operator outside a path quantifier"),
        "{e}"
    );
    let e = err(&wrap(&prop("X", "<is-fireable/>")));
    assert!(e.contains("expected at least one <transition>"), "{e}");
    let e = err(&wrap(&prop(
        "X",
        "<negation><place-bound><place>p0</place></place-bound></negation>",
    )));
    assert!(
        e.contains("unknown element <place-bound> in <negation>"),
        "{e}"
    );
    let deep = format!(
        "{}<true/>{}",
        "<negation>".repeat(1000),
        "</negation>".repeat(1000)
    );
    assert!(err(&wrap(&prop("X", &deep))).contains("nested more than"));
    let e = read_formulas_file(Path::new("/nonexistent/F.xml"), &net())
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot read formula file"), "{e}");
}

#[test]
fn deepest_accepted_xml_prints_and_reparses() {
    // worst case for the text parser: a chain of alternating prefix and n-ary nodes
    let mut body = "<true/>".to_string();
    for i in 0..MAX_XML_DEPTH - 1 {
        body = if i % 2 == 0 {
            format!("<negation>{body}</negation>")
        } else {
            format!("<conjunction>{body}<false/></conjunction>")
        };
    }
    let fs = parse_formulas_str(&wrap(&prop("D", &body)), "deep.xml").unwrap();
    let text = fs[0].query.to_string();
    assert_eq!(
        parse_query(&text).unwrap().without_spans(),
        fs[0].query.without_spans()
    );
}

fn benchmarks() -> Option<PathBuf> {
    shared::existing(shared::benchmarks("mcc"), "skipping the MCC formula tests")
}

/// Formula ids of one examination in `oracle.txt`, in file order.
fn oracle_ids(dir: &Path, examination: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("oracle.txt")).unwrap_or_default();
    let marker = format!("-{examination}-");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| id.contains(&marker))
        .map(str::to_string)
        .collect()
}

/// Every MCC formula file: read against its net, ids as in the oracle, print and re-parse to the
/// same tree, and the re-parsed text resolves to the same indices.
#[test]
fn every_mcc_formula_file_reads_prints_and_reparses() {
    let Some(root) = benchmarks() else { return };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut files = 0;
    let mut formulas = 0;
    for dir in &dirs {
        let net = saturn_pnml::reader::read_pnml_file(&dir.join("model.pnml")).unwrap();
        let names = saturn_logic::NameTable::new(
            net.places.iter().map(|p| p.id.as_str()),
            net.transitions.iter().map(|t| t.id.as_str()),
        );
        let mut xmls: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "xml"))
            .collect();
        xmls.sort();
        for x in xmls {
            let fs = read_formulas_file(&x, &net).unwrap_or_else(|e| panic!("{e}"));
            let exam = x.file_stem().unwrap().to_string_lossy().to_string();
            let ids: Vec<String> = fs.iter().map(|f| f.id.clone()).collect();
            assert_eq!(ids, oracle_ids(dir, &exam), "{}", x.display());
            for f in &fs {
                let text = f.query.to_string();
                let back = parse_query(&text).unwrap_or_else(|e| panic!("{}: {text}: {e}", f.id));
                assert_eq!(back.without_spans(), f.query.without_spans(), "{}", f.id);
                assert_eq!(
                    saturn_logic::resolve(&back, &names).unwrap(),
                    f.resolved,
                    "{}",
                    f.id
                );
                match exam.as_str() {
                    "UpperBounds" => assert!(matches!(f.resolved, ResolvedQuery::Bound(_))),
                    e if e.starts_with("Reachability") => assert!(matches!(
                        f.resolved,
                        ResolvedQuery::Formula(StateFormula::EF(_) | StateFormula::AG(_))
                    )),
                    e if e.starts_with("CTL") => {
                        let ResolvedQuery::Formula(s) = &f.resolved else {
                            panic!()
                        };
                        assert!(
                            s.is_ctl() && f.query.as_formula().unwrap().is_ctl(),
                            "{}",
                            f.id
                        );
                    }
                    _ => {}
                }
                formulas += 1;
            }
            files += 1;
        }
    }
    eprintln!("{files} formula files, {formulas} formulas");
    assert!(files >= 200 && formulas >= 3000);
}
