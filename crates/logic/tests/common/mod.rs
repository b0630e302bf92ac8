//! Random syntax trees for property tests (respecting the invariants the parser guarantees).
#![allow(dead_code)]

use proptest::prelude::*;
use saturn_logic::*;

pub fn name() -> impl Strategy<Value = Name> {
    prop_oneof![
        4 => "[a-zA-Z_][a-zA-Z0-9_.]{0,6}",
        1 => "[0-9][a-z0-9-]{0,4}",
        1 => "[a-z]{1,3}-[a-z0-9.]{1,3}",
        1 => prop::sample::select(KEYWORDS.to_vec()).prop_map(str::to_string),
        1 => "[ -~]{0,5}",
        1 => "\\PC{0,4}",
    ]
    .prop_map(|t| Name::new(t, Span::default()))
}

pub fn names() -> impl Strategy<Value = Vec<Name>> {
    prop::collection::vec(name(), 1..4)
}

fn ie(kind: IntExprKind) -> IntExpr {
    IntExpr::new(kind, Span::default())
}

fn fm(kind: FormulaKind) -> Formula {
    Formula::new(kind, Span::default())
}

pub fn int_expr() -> impl Strategy<Value = IntExpr> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(|c| ie(IntExprKind::Const(c))),
        (-5i64..5).prop_map(|c| ie(IntExprKind::Const(c))),
        name().prop_map(|n| ie(IntExprKind::Place(n))),
        names().prop_map(|n| ie(IntExprKind::TokensCount(n))),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|e| ie(IntExprKind::Neg(Box::new(e)))),
            (
                inner.clone(),
                prop::collection::vec((any::<bool>(), inner.clone()), 1..4)
            )
                .prop_map(|(f, r)| {
                    let rest = r
                        .into_iter()
                        .map(|(s, e)| (if s { AddOp::Add } else { AddOp::Sub }, e))
                        .collect();
                    ie(IntExprKind::Sum {
                        first: Box::new(f),
                        rest,
                    })
                }),
            (
                prop::collection::vec(inner, 2..4),
                any::<prop::sample::Index>()
            )
                .prop_map(|(mut fs, keep)| {
                    // linear: only one factor may mention places; make the others constants
                    let k = keep.index(fs.len());
                    for (i, f) in fs.iter_mut().enumerate() {
                        if i != k && !f.is_constant() {
                            *f = ie(IntExprKind::Const(i as i64 + 2));
                        }
                    }
                    ie(IntExprKind::Product(fs))
                }),
        ]
    })
}

pub fn formula() -> impl Strategy<Value = Formula> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(|b| fm(FormulaKind::Bool(b))),
        Just(fm(FormulaKind::Deadlock)),
        names().prop_map(|n| fm(FormulaKind::Enabled(n))),
        (
            int_expr(),
            prop::sample::select(CmpOp::ALL.to_vec()),
            int_expr()
        )
            .prop_map(|(lhs, op, rhs)| fm(FormulaKind::Compare { lhs, op, rhs })),
    ];
    leaf.prop_recursive(6, 48, 4, |inner| {
        let b = |f: Formula| Box::new(f);
        prop_oneof![
            (0u8..6, inner.clone()).prop_map(move |(k, a)| fm(match k {
                0 => FormulaKind::Not(b(a)),
                1 => FormulaKind::Exists(b(a)),
                2 => FormulaKind::All(b(a)),
                3 => FormulaKind::Next(b(a)),
                4 => FormulaKind::Finally(b(a)),
                _ => FormulaKind::Globally(b(a)),
            })),
            (0u8..3, inner.clone(), inner.clone()).prop_map(move |(k, x, y)| fm(match k {
                0 => FormulaKind::Implies(b(x), b(y)),
                1 => FormulaKind::Iff(b(x), b(y)),
                _ => FormulaKind::Until(b(x), b(y)),
            })),
            (any::<bool>(), prop::collection::vec(inner, 2..4)).prop_map(|(and, v)| fm(if and {
                FormulaKind::And(v)
            } else {
                FormulaKind::Or(v)
            })),
        ]
    })
}

pub fn query() -> impl Strategy<Value = Query> {
    prop_oneof![
        4 => formula().prop_map(Query::Formula),
        1 => names().prop_map(|places| Query::Bound { places, span: Span::default() }),
    ]
}
