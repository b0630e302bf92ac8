//! Resolution against an independent evaluation of the syntax tree: the linear atoms must agree
//! with evaluating both sides of the comparison directly, on random markings.

mod common;

use proptest::prelude::*;
use saturn_logic::*;

const PLACES: [&str; 4] = ["p", "q-1", "r.2", "s"];

/// Direct evaluation of an integer expression (i128, no overflow for the small values used).
fn eval(e: &IntExpr, m: &[u64]) -> i128 {
    let place = |n: &Name| m[PLACES.iter().position(|p| *p == n.text).unwrap()] as i128;
    match &e.kind {
        IntExprKind::Const(c) => *c as i128,
        IntExprKind::Place(n) => place(n),
        IntExprKind::TokensCount(ns) => ns.iter().map(place).sum(),
        IntExprKind::Neg(x) => -eval(x, m),
        IntExprKind::Sum { first, rest } => {
            rest.iter().fold(eval(first, m), |acc, (op, t)| match op {
                AddOp::Add => acc + eval(t, m),
                AddOp::Sub => acc - eval(t, m),
            })
        }
        IntExprKind::Product(fs) => fs.iter().map(|f| eval(f, m)).product(),
    }
}

fn small_expr() -> impl Strategy<Value = IntExpr> {
    // reuse the generator's shapes over known places and small constants
    let leaf = prop_oneof![
        (-20i64..20).prop_map(|c| IntExpr::new(IntExprKind::Const(c), Span::default())),
        prop::sample::select(PLACES.to_vec()).prop_map(|p| IntExpr::new(
            IntExprKind::Place(Name::new(p, Span::default())),
            Span::default()
        )),
        prop::collection::vec(prop::sample::select(PLACES.to_vec()), 1..4).prop_map(|ps| {
            IntExpr::new(
                IntExprKind::TokensCount(
                    ps.into_iter()
                        .map(|p| Name::new(p, Span::default()))
                        .collect(),
                ),
                Span::default(),
            )
        }),
    ];
    leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|e| IntExpr::new(IntExprKind::Neg(Box::new(e)), Span::default())),
            (inner.clone(), inner.clone(), any::<bool>()).prop_map(|(a, b, add)| IntExpr::new(
                IntExprKind::Sum {
                    first: Box::new(a),
                    rest: vec![(if add { AddOp::Add } else { AddOp::Sub }, b)]
                },
                Span::default()
            )),
            (-5i64..5, inner).prop_map(|(c, e)| IntExpr::new(
                IntExprKind::Product(vec![
                    IntExpr::new(IntExprKind::Const(c), Span::default()),
                    e
                ]),
                Span::default()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn atoms_agree_with_direct_evaluation(
        lhs in small_expr(),
        rhs in small_expr(),
        op in prop::sample::select(CmpOp::ALL.to_vec()),
        markings in prop::collection::vec(prop::collection::vec(0u64..6, 4), 1..8),
    ) {
        let q = Query::Formula(Formula::new(FormulaKind::Compare { lhs: lhs.clone(), op, rhs: rhs.clone() }, Span::default()));
        let names = NameTable::new(PLACES, []);
        let ResolvedQuery::Formula(StateFormula::Atom(atom)) = resolve(&q, &names).unwrap() else { panic!() };
        prop_assert!(atom.lhs.terms.windows(2).all(|w| w[0].0 < w[1].0));
        prop_assert!(atom.lhs.terms.iter().all(|t| t.1 != 0));
        for m in &markings {
            prop_assert_eq!(atom.eval(m), op.holds(eval(&lhs, m), eval(&rhs, m)), "{} on {:?}", q, m);
        }
    }
}

#[test]
fn ctl_operators_and_path_formulas() {
    let names = NameTable::new(PLACES, ["t1", "t2"]);
    let r = |s: &str| match resolve(&parse_query(s).unwrap(), &names) {
        Ok(ResolvedQuery::Formula(f)) => f,
        other => panic!("{s}: {other:?}"),
    };
    use StateFormula as S;
    let tt = || Box::new(S::Const(true));
    assert_eq!(r("EX true"), S::EX(tt()));
    assert_eq!(r("AX true"), S::AX(tt()));
    assert_eq!(r("EF true"), S::EF(tt()));
    assert_eq!(r("AF true"), S::AF(tt()));
    assert_eq!(r("EG true"), S::EG(tt()));
    assert_eq!(r("AG true"), S::AG(tt()));
    assert_eq!(
        r("E [true U false]"),
        S::EU(tt(), Box::new(S::Const(false)))
    );
    assert_eq!(
        r("A [true U false]"),
        S::AU(tt(), Box::new(S::Const(false)))
    );
    assert_eq!(r("enabled(t2, t1, t2)"), S::Enabled(vec![0, 1]));
    assert_eq!(r("A deadlock"), S::Deadlock);
    assert_eq!(
        r("A (F G true & X EF true)"),
        S::A(Box::new(PathFormula::And(vec![
            PathFormula::F(Box::new(PathFormula::G(Box::new(PathFormula::State(
                S::Const(true)
            ))))),
            PathFormula::X(Box::new(PathFormula::State(S::EF(tt())))),
        ])))
    );
    assert!(r("AG EF enabled(t1)").is_ctl());
    assert!(!r("A (F G true)").is_ctl());
    let q = parse_query("bound(s, p, s)").unwrap();
    assert_eq!(
        resolve(&q, &names).unwrap(),
        ResolvedQuery::Bound(LinExpr {
            terms: vec![(0, 1), (3, 2)],
            constant: 0
        })
    );
}

#[test]
fn resolution_errors_are_all_reported() {
    let names = NameTable::new(PLACES, ["t1"]);
    let q = parse_query("EF (x > 0 & enabled(t1, u)) | F p > 0").unwrap();
    let errs = resolve(&q, &names).unwrap_err().0;
    assert_eq!(errs.len(), 3, "{errs:?}");
    assert!(
        matches!(&errs[0], ResolveError::UnknownPlace { name, span } if name == "x" && span.start == 4)
    );
    assert!(matches!(&errs[1], ResolveError::UnknownTransition { name, .. } if name == "u"));
    assert!(matches!(
        &errs[2],
        ResolveError::TemporalOutsideQuantifier { .. }
    ));
    let q = parse_query("9223372036854775807 * 2 * p > 0").unwrap();
    assert!(matches!(
        resolve(&q, &names).unwrap_err().0[0],
        ResolveError::Overflow { .. }
    ));
    let q = parse_query("p - -9223372036854775808 > 0").unwrap();
    assert!(resolve(&q, &names).is_err());
}
