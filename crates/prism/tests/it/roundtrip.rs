//! print(tree) parses back to the same tree, for randomly generated model and property trees.

use proptest::prelude::*;
use saturn_prism::ast::*;
use saturn_prism::{parse_model, parse_properties_ast};

const NAMES: &[&str] = &["x", "y", "N", "foo_1", "b2", "_t", "rate_in", "Sx"];
const ACTIONS: &[&str] = &["a", "b", "serve", "go_2"];

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(NAMES).prop_map(str::to_string)
}
fn ident() -> impl Strategy<Value = Ident> {
    name().prop_map(Ident::new)
}
fn action() -> impl Strategy<Value = Ident> {
    prop::sample::select(ACTIONS).prop_map(Ident::new)
}
fn label_name() -> impl Strategy<Value = String> {
    prop::sample::select(&["done", "full", "init", "deadlock", "a b", "x-1"][..])
        .prop_map(str::to_string)
}

fn double() -> impl Strategy<Value = f64> {
    prop_oneof![
        (0u32..100_000).prop_map(|i| i as f64 / 100.0),
        any::<f64>().prop_filter("finite, non-negative", |d| d.is_finite()
            && d.is_sign_positive()),
        Just(1e-9),
        Just(0.1),
    ]
}

fn leaf() -> BoxedStrategy<Expr> {
    prop_oneof![
        (0i64..1_000_000).prop_map(Expr::int),
        Just(Expr::int(i64::MAX)),
        double().prop_map(Expr::double),
        any::<bool>().prop_map(Expr::bool),
        name().prop_map(|n| Expr::ident(&n)),
    ]
    .boxed()
}

fn binop() -> impl Strategy<Value = BinOp> {
    prop::sample::select(vec![
        BinOp::Implies,
        BinOp::Iff,
        BinOp::Or,
        BinOp::And,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
    ])
}

fn call(inner: BoxedStrategy<Expr>) -> BoxedStrategy<Expr> {
    (
        prop::sample::select(Func::ALL.to_vec()),
        prop::collection::vec(inner, 1..4),
    )
        .prop_map(|(f, args)| Expr::bare(ExprKind::Call(f, args)))
        .boxed()
}

/// Expressions of the model language.
fn expr() -> BoxedStrategy<Expr> {
    leaf()
        .prop_recursive(6, 48, 4, |inner| {
            prop_oneof![
                (
                    prop::sample::select(vec![UnOp::Not, UnOp::Neg]),
                    inner.clone()
                )
                    .prop_map(|(o, e)| Expr::unary(o, e)),
                (binop(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| Expr::binary(o, a, b)),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|(a, b, c)| Expr::bare(
                    ExprKind::Ite(Box::new(a), Box::new(b), Box::new(c))
                )),
                call(inner.clone()),
            ]
        })
        .boxed()
}

fn time_bound(e: BoxedStrategy<Expr>) -> BoxedStrategy<TimeBound> {
    prop_oneof![
        Just(TimeBound::None),
        e.clone().prop_map(TimeBound::Le),
        e.clone().prop_map(TimeBound::Lt),
        e.clone().prop_map(TimeBound::Ge),
        e.clone().prop_map(TimeBound::Gt),
        e.clone().prop_map(TimeBound::Eq),
        (e.clone(), e).prop_map(|(a, b)| TimeBound::Interval(a, b)),
    ]
    .boxed()
}

fn query(e: BoxedStrategy<Expr>) -> BoxedStrategy<Query> {
    prop_oneof![
        Just(Query::Value),
        (
            prop::sample::select(vec![RelOp::Lt, RelOp::Le, RelOp::Gt, RelOp::Ge]),
            e
        )
            .prop_map(|(o, e)| Query::Bound(o, e)),
    ]
    .boxed()
}

fn old_filter(e: BoxedStrategy<Expr>) -> BoxedStrategy<Option<OldFilter>> {
    prop::option::of(
        (e, any::<bool>(), any::<bool>()).prop_map(|(states, min, max)| OldFilter {
            states,
            min,
            max,
        }),
    )
    .boxed()
}

fn minmax() -> impl Strategy<Value = MinMax> {
    prop::sample::select(vec![MinMax::None, MinMax::Min, MinMax::Max])
}

/// Path formulas over state formulas `s`.
fn path(s: BoxedStrategy<Expr>) -> BoxedStrategy<Expr> {
    let small = expr();
    s.clone()
        .prop_recursive(3, 12, 2, move |inner| {
            prop_oneof![
                (
                    prop::sample::select(vec![TempOp::Next, TempOp::Finally, TempOp::Globally]),
                    time_bound(small.clone()),
                    inner.clone()
                )
                    .prop_map(|(op, bound, right)| Expr::bare(ExprKind::Temporal(
                        Box::new(Temporal {
                            op,
                            left: None,
                            right,
                            bound
                        })
                    ))),
                (
                    prop::sample::select(vec![TempOp::Until, TempOp::WeakUntil, TempOp::Release]),
                    time_bound(small.clone()),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(op, bound, l, right)| Expr::bare(
                        ExprKind::Temporal(Box::new(Temporal {
                            op,
                            left: Some(l),
                            right,
                            bound
                        }))
                    )),
                (
                    prop::sample::select(vec![BinOp::And, BinOp::Or]),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(o, a, b)| Expr::binary(o, a, b)),
                inner.prop_map(|e| Expr::unary(UnOp::Not, e)),
            ]
        })
        .boxed()
}

/// Expressions of the property language.
fn prop_expr() -> BoxedStrategy<Expr> {
    let base =
        prop_oneof![4 => expr(), 1 => label_name().prop_map(|l| Expr::bare(ExprKind::Label(l)))]
            .boxed();
    base.prop_recursive(3, 24, 3, |inner| {
        let e = expr();
        prop_oneof![
            (
                minmax(),
                query(e.clone()),
                path(inner.clone()),
                old_filter(inner.clone())
            )
                .prop_map(|(minmax, query, path, filter)| {
                    Expr::bare(ExprKind::Prob(Box::new(ProbOp {
                        minmax,
                        query,
                        path,
                        filter,
                    })))
                }),
            (query(e.clone()), inner.clone(), old_filter(inner.clone())).prop_map(
                |(query, expr, filter)| Expr::bare(ExprKind::Steady(Box::new(SteadyOp {
                    query,
                    expr,
                    filter
                })))
            ),
            (
                prop::option::of(prop_oneof![
                    label_name().prop_map(RewardIndex::Name),
                    (1i64..5).prop_map(|i| RewardIndex::Index(Expr::int(i)))
                ]),
                minmax(),
                query(e.clone()),
                prop_oneof![
                    Just(RewardPath::Cumulative(None)),
                    Just(RewardPath::Steady),
                    e.clone().prop_map(|x| RewardPath::Cumulative(Some(x))),
                    e.clone().prop_map(RewardPath::Instant),
                    inner.clone().prop_map(RewardPath::Reach),
                ],
                old_filter(inner.clone())
            )
                .prop_map(|(index, minmax, query, path, filter)| {
                    Expr::bare(ExprKind::Reward(Box::new(RewardOp {
                        index,
                        minmax,
                        query,
                        path,
                        filter,
                    })))
                }),
            (
                prop::sample::select(FilterOp::ALL.to_vec()),
                inner.clone(),
                prop::option::of(inner.clone())
            )
                .prop_map(|(op, prop, states)| Expr::bare(ExprKind::Filter(Box::new(
                    Filter { op, prop, states }
                )))),
            (
                prop::sample::select(vec![PathQuant::Exists, PathQuant::Forall]),
                path(inner.clone())
            )
                .prop_map(|(q, p)| Expr::bare(ExprKind::PathQuant(q, Box::new(p)))),
            (binop(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| Expr::binary(o, a, b)),
            inner.clone().prop_map(|e| Expr::unary(UnOp::Not, e)),
        ]
    })
    .boxed()
}

fn var_decl() -> impl Strategy<Value = VarDecl> {
    (
        ident(),
        prop_oneof![
            (expr(), expr()).prop_map(|(a, b)| VarType::Range(a, b)),
            Just(VarType::Bool),
            Just(VarType::Int),
            Just(VarType::Clock)
        ],
        prop::option::of(expr()),
    )
        .prop_map(|(name, ty, init)| VarDecl {
            name,
            ty,
            init,
            span: Span::default(),
        })
}

fn update(with_prob: bool) -> impl Strategy<Value = Update> {
    let prob = if with_prob {
        expr().prop_map(Some).boxed()
    } else {
        prop::option::of(expr()).boxed()
    };
    (
        prob,
        prop::collection::vec(
            (ident(), expr()).prop_map(|(var, value)| Assign { var, value }),
            0..3,
        ),
    )
        .prop_map(|(prob, assigns)| Update {
            prob,
            assigns,
            span: Span::default(),
        })
}

fn command() -> impl Strategy<Value = Command> {
    let updates = prop_oneof![
        update(false).prop_map(|u| vec![u]),
        prop::collection::vec(update(true), 2..4)
    ];
    (prop::option::of(action()), expr(), updates).prop_map(|(action, guard, updates)| Command {
        action,
        guard,
        updates,
        span: Span::default(),
    })
}

fn system() -> BoxedStrategy<SystemExpr> {
    let leaf = ident().prop_map(|m| SystemExpr {
        kind: SystemKind::Module(m),
        span: Span::default(),
    });
    leaf.prop_recursive(4, 16, 2, |inner| {
        let par = prop_oneof![
            Just(ParOp::Full),
            Just(ParOp::Interleave),
            prop::collection::vec(action(), 0..3).prop_map(ParOp::Sync)
        ];
        let mk = |kind| SystemExpr {
            kind,
            span: Span::default(),
        };
        prop_oneof![
            (par, inner.clone(), inner.clone()).prop_map(move |(op, a, b)| mk(SystemKind::Par(
                op,
                Box::new(a),
                Box::new(b)
            ))),
            (inner.clone(), prop::collection::vec(action(), 1..3))
                .prop_map(move |(e, a)| mk(SystemKind::Hide(Box::new(e), a))),
            (inner, prop::collection::vec((action(), action()), 1..3))
                .prop_map(move |(e, p)| mk(SystemKind::Rename(Box::new(e), p))),
        ]
    })
    .boxed()
}

fn item() -> impl Strategy<Value = Item> {
    let sp = Span::default();
    prop_oneof![
        prop::sample::select(vec![ModelType::Ctmc, ModelType::Dtmc, ModelType::Mdp])
            .prop_map(move |t| Item::ModelType(t, sp)),
        (
            ident(),
            prop::sample::select(vec![ConstType::Int, ConstType::Double, ConstType::Bool]),
            prop::option::of(expr())
        )
            .prop_map(move |(name, ty, value)| Item::Const(ConstDecl {
                name,
                ty,
                value,
                span: sp
            })),
        var_decl().prop_map(Item::Global),
        (ident(), expr()).prop_map(move |(name, expr)| Item::Formula(FormulaDecl {
            name,
            expr,
            span: sp
        })),
        (label_name(), expr()).prop_map(move |(n, expr)| Item::Label(LabelDecl {
            name: Ident::new(n),
            expr,
            span: sp
        })),
        (
            ident(),
            prop::collection::vec(var_decl(), 0..3),
            prop::collection::vec(command(), 0..4)
        )
            .prop_map(move |(name, vars, commands)| Item::Module(Module {
                name,
                vars,
                commands,
                span: sp
            })),
        (
            ident(),
            ident(),
            prop::collection::vec((ident(), ident()), 1..4)
        )
            .prop_map(move |(name, base, renames)| Item::Renamed(RenamedModule {
                name,
                base,
                renames,
                span: sp
            })),
        (
            prop::option::of(label_name().prop_map(Ident::new)),
            prop::collection::vec(
                (prop::option::of(prop::option::of(action())), expr(), expr()).prop_map(
                    move |(action, guard, value)| RewardItem {
                        action,
                        guard,
                        value,
                        span: sp
                    }
                ),
                0..4
            )
        )
            .prop_map(move |(name, items)| Item::Rewards(RewardStruct {
                name,
                items,
                span: sp
            })),
        expr().prop_map(move |e| Item::Init(e, sp)),
        system().prop_map(move |s| Item::System(s, sp)),
    ]
}

fn prop_item() -> impl Strategy<Value = PropItem> {
    let sp = Span::default();
    prop_oneof![
        1 => (ident(), prop::sample::select(vec![ConstType::Int, ConstType::Double, ConstType::Bool]), prop::option::of(expr()))
            .prop_map(move |(name, ty, value)| PropItem::Const(ConstDecl { name, ty, value, span: sp })),
        1 => (label_name(), expr()).prop_map(move |(n, expr)| PropItem::Label(LabelDecl { name: Ident::new(n), expr, span: sp })),
        1 => (ident(), expr()).prop_map(move |(name, expr)| PropItem::Formula(FormulaDecl { name, expr, span: sp })),
        4 => (prop::option::of(label_name().prop_map(Ident::new)), prop_oneof![3 => prop_expr(), 1 => path(prop_expr())])
            .prop_map(move |(name, expr)| PropItem::Property(Property { name, expr, span: sp })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn model_expressions_round_trip(e in expr()) {
        let src = format!("formula f = {e};");
        let m = parse_model("gen", &src).map_err(|d| TestCaseError::fail(format!("{}\n{src}", d.render())))?;
        let Item::Formula(f) = &m.items[0] else { return Err(TestCaseError::fail("not a formula")) };
        prop_assert_eq!(&f.expr, &e, "{}", src);
    }

    #[test]
    fn property_expressions_round_trip(e in prop_expr()) {
        let p = Property { name: None, expr: e, span: Span::default() };
        let src = format!("{p};");
        let f = parse_properties_ast("gen", &src).map_err(|d| TestCaseError::fail(format!("{}\n{src}", d.render())))?;
        let got = f.properties().next().ok_or_else(|| TestCaseError::fail("no property"))?;
        prop_assert_eq!(&got.expr, &p.expr, "{}", src);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    #[test]
    fn model_files_round_trip(items in prop::collection::vec(item(), 1..8)) {
        let m = ModelFile { items, ..Default::default() };
        let src = m.to_string();
        let back = parse_model("gen", &src).map_err(|d| TestCaseError::fail(format!("{}\n{src}", d.render())))?;
        prop_assert_eq!(&back, &m, "{}", src);
        prop_assert_eq!(back.to_string(), src);
    }

    #[test]
    fn property_files_round_trip(items in prop::collection::vec(prop_item(), 0..6)) {
        let f = PropertiesFile { items, ..Default::default() };
        let src = f.to_string();
        let back = parse_properties_ast("gen", &src).map_err(|d| TestCaseError::fail(format!("{}\n{src}", d.render())))?;
        prop_assert_eq!(&back, &f, "{}", src);
    }
}

/// Precedence as PRISM documents it, checked on hand-written cases (independent of the printer).
#[test]
fn precedence_matches_prism() {
    let cases = [
        ("a | b & c", "a | (b & c)"),
        ("!a & b", "(!a) & b"),
        ("!x = 1", "!(x = 1)"),
        ("a => b => c", "(a => b) => c"),
        ("a <=> b | c", "a <=> (b | c)"),
        ("a => b <=> c", "a => (b <=> c)"),
        ("x + y * z", "x + (y * z)"),
        ("x - y - z", "(x - y) - z"),
        ("-x * y", "(-x) * y"),
        ("x < y = true", "(x < y) = true"),
        ("c ? a : d ? e : f", "c ? a : (d ? e : f)"),
        ("c ? x + 1 : y", "c ? (x + 1) : y"),
        ("x / y / z", "(x / y) / z"),
    ];
    for (a, b) in cases {
        let pa = parse_model("a", &format!("formula f = {a};")).unwrap();
        let pb = parse_model("b", &format!("formula f = {b};")).unwrap();
        assert_eq!(pa, pb, "{a} vs {b}");
    }
    let pcases = [
        ("P=? [ !\"a\" U \"b\" ]", "P=? [ (!\"a\") U \"b\" ]"),
        ("P=? [ F G x=1 ]", "P=? [ F (G (x=1)) ]"),
        ("P=? [ X X x>0 ]", "P=? [ X (X (x>0)) ]"),
        ("P=? [ F<=T*3600 \"a\" ]", "P=? [ F<=(T*3600) \"a\" ]"),
        ("P=? [ F<=T (x=1) ]", "P=? [ F<=T x=1 ]"),
        ("Pmin=? [ F x=1 ]", "P min=? [ F x=1 ]"),
        ("R{\"a\"}max=? [ C ]", "Rmax{\"a\"}=? [ C ]"),
        ("filter(+, x)", "filter(sum, x)"),
        ("filter(&, x=1)", "filter(forall, x=1)"),
        (
            "P=? [ x U func(max, 1, 2) > 0 ]",
            "P=? [ x U max(1,2) > 0 ]",
        ),
    ];
    for (a, b) in pcases {
        let pa = parse_properties_ast("a", a).unwrap();
        let pb = parse_properties_ast("b", b).unwrap();
        assert_eq!(pa, pb, "{a} vs {b}");
    }
}
