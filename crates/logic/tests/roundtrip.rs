//! `parse(print(x)) == x` (modulo spans) on random trees, and fixed examples of the syntax.

mod common;

use proptest::prelude::*;
use saturn_logic::*;

fn reparse(q: &Query) -> Query {
    let text = q.to_string();
    match parse_query(&text) {
        Ok(p) => p.without_spans(),
        Err(e) => panic!("printed text does not parse: {text}\n{e:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn print_then_parse_is_identity(q in common::query()) {
        prop_assert_eq!(reparse(&q), q.clone(), "text: {}", q);
    }

    #[test]
    fn printing_is_a_fixpoint(q in common::query()) {
        let text = q.to_string();
        prop_assert_eq!(reparse(&q).to_string(), text);
    }
}

/// Parse, clear spans, print.
fn canon(s: &str) -> String {
    parse_query(s)
        .unwrap_or_else(|e| panic!("{s}: {e:?}"))
        .to_string()
}

#[test]
fn canonical_forms() {
    // (input, expected canonical text)
    let cases = [
        ("AG(p<=3)", "AG (p <= 3)"),
        ("A G E F deadlock", "AG EF deadlock"),
        ("E[ p>0 U q>0 ]", "E [p > 0 U q > 0]"),
        ("A [true U !deadlock]", "A [true U !deadlock]"),
        ("A (F G p >= 1)", "AF G (p >= 1)"),
        ("a>1&b>1&c>1", "a > 1 & b > 1 & c > 1"),
        ("(a>1&b>1)&c>1", "(a > 1 & b > 1) & c > 1"),
        ("a>1 | b>1 & c>1", "a > 1 | b > 1 & c > 1"),
        ("(a>1 | b>1) & c>1", "(a > 1 | b > 1) & c > 1"),
        ("a>1 -> b>1 -> c>1", "a > 1 -> b > 1 -> c > 1"),
        ("(a>1 -> b>1) -> c>1", "(a > 1 -> b > 1) -> c > 1"),
        (
            "p1 + 2*p2 - -3 >= tokens-count(x, y)",
            "p1 + 2*p2 - -3 >= tokens-count(x, y)",
        ),
        ("p * 2 = 4", "p*2 = 4"),
        ("-(3) < -3", "-(3) < -3"),
        ("- - p != 0", "-(-p) != 0"),
        ("\"p-1\" >= 3", "\"p-1\" >= 3"),
        ("\"plain\" >= 3", "plain >= 3"),
        ("\"A\" >= \"1x\"", "\"A\" >= \"1x\""),
        ("\"q\\\"\\\\\" = 0", "\"q\\\"\\\\\" = 0"),
        ("enabled(t1,\"t-2\")", "enabled(t1, \"t-2\")"),
        ("bound(p1, p2)", "bound(p1, p2)"),
        ("!!true", "!!true"),
        ("(p + 1) * 3 <= 2", "(p + 1)*3 <= 2"),
        ("a > 0 <-> b > 0 // comment", "a > 0 <-> b > 0"),
        ("EX AX EG AF (x>0)", "EX AX EG AF (x > 0)"),
        (
            "-9223372036854775808 <= 9223372036854775807",
            "-9223372036854775808 <= 9223372036854775807",
        ),
    ];
    for (input, expected) in cases {
        let got = canon(input);
        assert_eq!(got, expected, "input {input}");
        assert_eq!(canon(&got), got, "not a fixpoint: {got}");
    }
}

#[test]
fn tree_shapes() {
    use FormulaKind as K;
    let f = parse_formula("E [ a > 0 U EF b > 0 ]").unwrap();
    let K::Exists(u) = &f.kind else { panic!() };
    let K::Until(_, r) = &u.kind else { panic!() };
    let K::Exists(fin) = &r.kind else { panic!() };
    assert!(matches!(fin.kind, K::Finally(_)));
    // prefix operators bind tighter than `&` but their operand includes a whole comparison
    let f = parse_formula("EF p + 1 <= 3 & q = 0").unwrap();
    let K::And(v) = &f.kind else { panic!() };
    assert!(matches!(v[0].kind, K::Exists(_)));
    // spans point into the text
    let src = "AG (\"p-1\" >= 3)";
    let f = parse_formula(src).unwrap();
    let K::All(g) = &f.kind else { panic!() };
    let K::Globally(c) = &g.kind else { panic!() };
    let K::Compare { lhs, .. } = &c.kind else {
        panic!()
    };
    assert_eq!(&src[lhs.span.start..lhs.span.end], "\"p-1\"");
    assert_eq!((f.span.start, f.span.end), (0, src.len() - 1));
}

#[test]
fn fragments() {
    let f = |s: &str| parse_formula(s).unwrap();
    assert!(f("AG EF p > 0").is_ctl());
    assert!(!f("AG EF p > 0").is_ltl());
    assert!(f("A (G F p > 0)").is_ltl());
    assert!(!f("A (G F p > 0)").is_ctl());
    assert!(f("A [p > 0 U q > 0]").is_ctl() && f("A [p > 0 U q > 0]").is_ltl());
    assert!(!f("F p > 0").is_state());
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    for (open, close) in [
        ("(", ")"),
        ("!", ""),
        ("EF ", ""),
        ("[true U ", "]"),
        ("-", ""),
    ] {
        let n = 100_000;
        let s = format!("{}p > 0{}", open.repeat(n), close.repeat(n));
        let e = parse_formula(&s).expect_err("too deep");
        assert!(
            e.first().message.contains("nested too deeply"),
            "{}",
            e.first().message
        );
    }
    let s = format!("{}p > 0", "p > 0 -> ".repeat(100_000));
    assert!(parse_formula(&s).is_err());
    // just under the limit parses (and prints, compares and drops) fine
    let n = MAX_DEPTH / 3;
    let s = format!("{}p > 0{}", "(".repeat(n), ")".repeat(n));
    assert!(parse_formula(&s).is_ok());
    let s = format!("{}p > 0", "!".repeat(n));
    let f = parse_formula(&s).unwrap();
    assert_eq!(
        parse_formula(&f.to_string()).unwrap().to_string(),
        f.to_string()
    );
    // long flat chains are fine (n-ary nodes, not deep trees)
    let s = vec!["p > 0"; 50_000].join(" & ");
    assert!(parse_formula(&s).is_ok());
    let s = format!("{} > 0", vec!["p"; 50_000].join(" + "));
    assert!(parse_formula(&s).is_ok());
}
