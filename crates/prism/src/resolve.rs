//! Name resolution, type checking, formula inlining and constant folding of expressions,
//! shared by the model checker and the property checker.

use std::collections::{HashMap, HashSet};

use crate::ast::*;
use crate::diag::Error;
use crate::eval;
use crate::program::{Type, Value};

/// Maximum depth of a resolved expression (after formulas are inlined).
pub const MAX_RESOLVED_DEPTH: usize = 800;
/// Maximum number of expression nodes created while resolving one file.
pub const MAX_NODES: usize = 5_000_000;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ConstState {
    Todo,
    Busy,
    Done,
}

pub struct ConstEntry {
    pub name: String,
    pub ty: ConstType,
    pub def: Option<Expr>,
    pub span: Span,
    pub state: ConstState,
    pub value: Option<Value>,
    pub resolved: Option<Expr>,
    pub overridden: bool,
    /// Declared in the property file (index is then relative to the first such constant).
    pub props: bool,
}

/// Where an expression is being resolved.
#[derive(Clone, Copy)]
pub struct Scope<'r> {
    /// State variables may be used.
    pub vars: bool,
    /// Property operators and labels may be used.
    pub props: bool,
    /// Temporal operators may be used (inside `P`, `E`, `A`).
    pub path: bool,
    /// Module renaming in force (old name -> new name).
    pub rename: Option<&'r HashMap<String, String>>,
}

impl Scope<'_> {
    pub fn constants() -> Scope<'static> {
        Scope {
            vars: false,
            props: false,
            path: false,
            rename: None,
        }
    }
    pub fn model() -> Scope<'static> {
        Scope {
            vars: true,
            props: false,
            path: false,
            rename: None,
        }
    }
    pub fn property() -> Scope<'static> {
        Scope {
            vars: true,
            props: true,
            path: false,
            rename: None,
        }
    }
}

#[derive(Default)]
pub struct Resolver {
    pub consts: Vec<ConstEntry>,
    pub const_map: HashMap<String, usize>,
    pub n_model_consts: usize,
    pub vars: Vec<(String, Type)>,
    pub var_map: HashMap<String, usize>,
    pub formulas: HashMap<String, Expr>,
    pub formula_stack: Vec<String>,
    pub errors: Vec<Error>,
    pub nodes: usize,
    pub budget_reported: bool,
    // property context
    pub labels: HashSet<String>,
    /// Named properties seen so far: name -> (index, type).
    pub prop_names: HashMap<String, (usize, Type)>,
    pub reward_names: Vec<Option<String>>,
}

type R = Option<(Expr, Type)>;

fn assignable(to: Type, from: Type) -> bool {
    to == from || (to == Type::Double && from == Type::Int)
}

fn lit(v: Value, span: Span) -> Expr {
    v.to_expr(span)
}

impl Resolver {
    pub fn err(&mut self, e: Error) {
        let dup = self.errors.iter().any(|x| {
            x.message == e.message
                && x.span.map(|s| (s.start, s.end)) == e.span.map(|s| (s.start, s.end))
        });
        if !dup && self.errors.len() < 500 {
            self.errors.push(e);
        }
    }

    pub fn add_const(&mut self, c: ConstEntry) -> usize {
        let i = self.consts.len();
        self.const_map.entry(c.name.clone()).or_insert(i);
        self.consts.push(c);
        i
    }

    /// Evaluate constant `i` (lazily, detecting cycles).
    pub fn eval_const(&mut self, i: usize, use_span: Span) {
        match self.consts[i].state {
            ConstState::Done => return,
            ConstState::Busy => {
                let name = self.consts[i].name.clone();
                let span = self.consts[i].span;
                self.err(
                    Error::new(
                        format!("constant `{name}` is defined in terms of itself"),
                        use_span,
                        "cyclic reference",
                    )
                    .with_related(span, "declared here"),
                );
                return;
            }
            ConstState::Todo => {}
        }
        self.consts[i].state = ConstState::Busy;
        if let Some(def) = self.consts[i].def.clone() {
            if let Some((e, t)) = self.resolve(&def, Scope::constants(), 0) {
                let want = Type::of_const(self.consts[i].ty);
                if !assignable(want, t) {
                    self.err(Error::new(
                        format!(
                            "constant `{}` is declared {} but its value has type {}",
                            self.consts[i].name,
                            want.name(),
                            t.name()
                        ),
                        def.span,
                        format!("this is {}", t.name()),
                    ));
                } else {
                    let v = Value::of_expr(&e).map(|v| convert(want, v));
                    self.consts[i].value = v;
                    self.consts[i].resolved = Some(e);
                }
            }
        }
        self.consts[i].state = ConstState::Done;
    }

    fn count(&mut self, span: Span) -> bool {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            if !self.budget_reported {
                self.budget_reported = true;
                self.err(Error::new(
                    format!("expressions too large after inlining formulas (more than {MAX_NODES} nodes)"),
                    span,
                    "while expanding this",
                ));
            }
            return false;
        }
        true
    }

    fn type_err(&mut self, span: Span, msg: String, label: String) -> R {
        self.err(Error::new(msg, span, label));
        None
    }

    pub fn expect_type(&mut self, e: &Expr, got: Type, want: Type, what: &str) -> Option<()> {
        let ok = match want {
            Type::Double => got.is_numeric(),
            Type::Bool => got == Type::Bool,
            Type::Int => got == Type::Int,
            Type::Path => got == Type::Path || got == Type::Bool,
        };
        if ok {
            Some(())
        } else {
            let wn = match want {
                Type::Double => "a number",
                Type::Bool => "a boolean",
                Type::Int => "an integer",
                Type::Path => "a path formula",
            };
            self.err(Error::new(
                format!("type error: {what} must be {wn}, found {}", got.name()),
                e.span,
                format!("this is {}", got.name()),
            ));
            None
        }
    }

    /// Resolve a name (after renaming) to a variable or constant.
    #[inline(never)]
    fn resolve_ident(&mut self, name: &str, span: Span, sc: Scope, depth: usize) -> R {
        if let Some(body) = self.formulas.get(name).cloned() {
            if self.formula_stack.iter().any(|n| n == name) {
                let chain = self.formula_stack.join(" -> ");
                return self.type_err(
                    span,
                    format!("formula `{name}` refers to itself ({chain} -> {name})"),
                    "cyclic formula".into(),
                );
            }
            self.formula_stack.push(name.to_string());
            let r = self.resolve(&body, sc, depth + 1);
            self.formula_stack.pop();
            return r.map(|(mut e, t)| {
                e.span = span;
                (e, t)
            });
        }
        let renamed = sc
            .rename
            .and_then(|m| m.get(name))
            .map_or(name, |s| s.as_str())
            .to_string();
        if renamed != name {
            if let Some(body) = self.formulas.get(&renamed).cloned() {
                // a renaming that maps a name to a formula
                self.formula_stack.push(renamed.clone());
                let r = self.resolve(&body, sc, depth + 1);
                self.formula_stack.pop();
                return r;
            }
        }
        if let Some(&i) = self.var_map.get(&renamed) {
            if !sc.vars {
                return self.type_err(
                    span,
                    format!("variable `{renamed}` cannot be used here"),
                    "only constants are allowed here".into(),
                );
            }
            let t = self.vars[i].1;
            return Some((
                Expr::new(
                    ExprKind::Var {
                        index: i,
                        name: renamed,
                    },
                    span,
                ),
                t,
            ));
        }
        if let Some(&i) = self.const_map.get(&renamed) {
            self.eval_const(i, span);
            let c = &self.consts[i];
            let t = Type::of_const(c.ty);
            return Some(match c.value {
                Some(v) => (lit(v, span), t),
                None => {
                    let (index, props) = if c.props {
                        (i - self.n_model_consts, true)
                    } else {
                        (i, false)
                    };
                    (
                        Expr::new(
                            ExprKind::Const {
                                index,
                                name: renamed,
                                props,
                            },
                            span,
                        ),
                        t,
                    )
                }
            });
        }
        self.type_err(
            span,
            format!("undefined identifier `{renamed}`"),
            "not a variable, constant or formula".into(),
        )
    }

    /// Resolve, type-check and fold `e`.
    pub fn resolve(&mut self, e: &Expr, sc: Scope, depth: usize) -> R {
        if depth > MAX_RESOLVED_DEPTH {
            return self.type_err(
                e.span,
                format!("expression too deep after inlining formulas (limit {MAX_RESOLVED_DEPTH})"),
                "while expanding this".into(),
            );
        }
        if !self.count(e.span) {
            return None;
        }
        let d = depth + 1;
        let span = e.span;
        match &e.kind {
            ExprKind::Bool(b) => Some((Expr::new(ExprKind::Bool(*b), span), Type::Bool)),
            ExprKind::Int(i) => Some((Expr::new(ExprKind::Int(*i), span), Type::Int)),
            ExprKind::Double(x) => Some((Expr::new(ExprKind::Double(*x), span), Type::Double)),
            ExprKind::Ident(n) => self.resolve_ident(n, span, sc, depth),
            ExprKind::Var { index, .. } => {
                Some((e.clone(), self.vars.get(*index).map_or(Type::Int, |v| v.1)))
            }
            ExprKind::Const { .. } | ExprKind::PropRef { .. } => Some((e.clone(), Type::Double)),
            ExprKind::Label(n) => {
                if !sc.props {
                    return self.type_err(
                        span,
                        "labels can only be used in properties".into(),
                        "label".into(),
                    );
                }
                if self.labels.contains(n) || n == "init" || n == "deadlock" {
                    return Some((e.clone(), Type::Bool));
                }
                if let Some(&(index, t)) = self.prop_names.get(n) {
                    return Some((
                        Expr::new(
                            ExprKind::PropRef {
                                index,
                                name: n.clone(),
                            },
                            span,
                        ),
                        t,
                    ));
                }
                self.type_err(
                    span,
                    format!("undefined label `\"{n}\"`"),
                    "no label or earlier property has this name".into(),
                )
            }
            ExprKind::Unary(op, a) => {
                let (a2, t) = self.resolve(a, sc, d)?;
                match op {
                    UnOp::Not => {
                        if sc.path && t == Type::Path {
                            return Some((
                                Expr::new(ExprKind::Unary(*op, Box::new(a2)), span),
                                Type::Path,
                            ));
                        }
                        self.expect_type(a, t, Type::Bool, "the operand of `!`")?
                    }
                    UnOp::Neg => self.expect_type(a, t, Type::Double, "the operand of `-`")?,
                }
                if let Some(v) = Value::of_expr(&a2) {
                    return self.fold(eval::unary(*op, v), span, t);
                }
                Some((Expr::new(ExprKind::Unary(*op, Box::new(a2)), span), t))
            }
            ExprKind::Binary(op, a, b) => {
                let (a2, ta) = self.resolve(a, sc, d)?;
                let (b2, tb) = self.resolve(b, sc, d)?;
                let t = match op {
                    BinOp::And | BinOp::Or | BinOp::Implies | BinOp::Iff => {
                        if sc.path && (ta == Type::Path || tb == Type::Path) {
                            self.expect_type(a, ta, Type::Path, "an operand of a path formula")?;
                            self.expect_type(b, tb, Type::Path, "an operand of a path formula")?;
                            return Some((
                                Expr::new(ExprKind::Binary(*op, Box::new(a2), Box::new(b2)), span),
                                Type::Path,
                            ));
                        }
                        let what = format!("an operand of `{}`", op.symbol());
                        self.expect_type(a, ta, Type::Bool, &what)?;
                        self.expect_type(b, tb, Type::Bool, &what)?;
                        Type::Bool
                    }
                    BinOp::Eq | BinOp::Ne => {
                        let ok = (ta.is_numeric() && tb.is_numeric())
                            || (ta == Type::Bool && tb == Type::Bool);
                        if !ok {
                            return self.type_err(
                                span,
                                format!(
                                    "type error: cannot compare {} with {} using `{}`",
                                    ta.name(),
                                    tb.name(),
                                    op.symbol()
                                ),
                                "mismatched types".into(),
                            );
                        }
                        Type::Bool
                    }
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                        let what = format!("an operand of `{}`", op.symbol());
                        self.expect_type(a, ta, Type::Double, &what)?;
                        self.expect_type(b, tb, Type::Double, &what)?;
                        Type::Bool
                    }
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                        let what = format!("an operand of `{}`", op.symbol());
                        self.expect_type(a, ta, Type::Double, &what)?;
                        self.expect_type(b, tb, Type::Double, &what)?;
                        if *op == BinOp::Div || ta == Type::Double || tb == Type::Double {
                            Type::Double
                        } else {
                            Type::Int
                        }
                    }
                };
                if let (Some(x), Some(y)) = (Value::of_expr(&a2), Value::of_expr(&b2)) {
                    return self.fold(eval::binary(*op, x, y), span, t);
                }
                Some((
                    Expr::new(ExprKind::Binary(*op, Box::new(a2), Box::new(b2)), span),
                    t,
                ))
            }
            ExprKind::Ite(c, x, y) => {
                let (c2, tc) = self.resolve(c, sc, d)?;
                self.expect_type(c, tc, Type::Bool, "the condition of `? :`")?;
                let (x2, tx) = self.resolve(x, sc, d)?;
                let (y2, ty) = self.resolve(y, sc, d)?;
                let t = if tx == ty {
                    tx
                } else if tx.is_numeric() && ty.is_numeric() {
                    Type::Double
                } else {
                    return self.type_err(
                        span,
                        format!(
                            "type error: the branches of `? :` have types {} and {}",
                            tx.name(),
                            ty.name()
                        ),
                        "mismatched branches".into(),
                    );
                };
                if let Some(Value::Bool(cv)) = Value::of_expr(&c2) {
                    let pick = if cv { &x2 } else { &y2 };
                    if let Some(v) = Value::of_expr(pick) {
                        return Some((lit(convert(t, v), span), t));
                    }
                }
                Some((
                    Expr::new(
                        ExprKind::Ite(Box::new(c2), Box::new(x2), Box::new(y2)),
                        span,
                    ),
                    t,
                ))
            }
            ExprKind::Call(f, args) => {
                let (lo, hi) = f.arity();
                if args.len() < lo || hi.is_some_and(|h| args.len() > h) {
                    let want = match hi {
                        Some(h) if h == lo => format!("{lo}"),
                        Some(h) => format!("{lo} to {h}"),
                        None => format!("at least {lo}"),
                    };
                    return self.type_err(
                        span,
                        format!(
                            "`{}` takes {want} argument(s), found {}",
                            f.name(),
                            args.len()
                        ),
                        "wrong number of arguments".into(),
                    );
                }
                let mut rs = Vec::with_capacity(args.len());
                let mut all_int = true;
                for a in args {
                    let (a2, t) = self.resolve(a, sc, d)?;
                    let what = format!("an argument of `{}`", f.name());
                    if *f == Func::Mod {
                        self.expect_type(a, t, Type::Int, &what)?;
                    } else {
                        self.expect_type(a, t, Type::Double, &what)?;
                    }
                    all_int &= t == Type::Int;
                    rs.push(a2);
                }
                let t = match f {
                    Func::Min | Func::Max | Func::Pow => {
                        if all_int {
                            Type::Int
                        } else {
                            Type::Double
                        }
                    }
                    Func::Floor | Func::Ceil | Func::Round | Func::Mod => Type::Int,
                    Func::Log => Type::Double,
                };
                let vals: Option<Vec<Value>> = rs.iter().map(Value::of_expr).collect();
                if let Some(vals) = vals {
                    return self.fold(eval::call(*f, &vals), span, t);
                }
                Some((Expr::new(ExprKind::Call(*f, rs), span), t))
            }
            _ => self.resolve_property_op(e, sc, depth),
        }
    }

    /// The property-only operators (kept out of [`Resolver::resolve`] to keep its stack frame small).
    #[inline(never)]
    fn resolve_property_op(&mut self, e: &Expr, sc: Scope, depth: usize) -> R {
        let d = depth + 1;
        let span = e.span;
        match &e.kind {
            ExprKind::Prob(p) => {
                self.need_props(sc, span, "`P`")?;
                let query = self.resolve_query(&p.query, sc, d)?;
                let path = self.resolve_path(&p.path, sc, d)?;
                let t = query_type(&query);
                let out = Expr::new(
                    ExprKind::Prob(Box::new(ProbOp {
                        minmax: p.minmax,
                        query,
                        path,
                        filter: None,
                    })),
                    span,
                );
                self.wrap_old_filter(out, t, &p.filter, sc, d)
            }
            ExprKind::Steady(s) => {
                self.need_props(sc, span, "`S`")?;
                let query = self.resolve_query(&s.query, sc, d)?;
                let inner = Scope { path: false, ..sc };
                let (x, tx) = self.resolve(&s.expr, inner, d)?;
                self.expect_type(&s.expr, tx, Type::Bool, "the argument of `S`")?;
                let t = query_type(&query);
                let out = Expr::new(
                    ExprKind::Steady(Box::new(SteadyOp {
                        query,
                        expr: x,
                        filter: None,
                    })),
                    span,
                );
                self.wrap_old_filter(out, t, &s.filter, sc, d)
            }
            ExprKind::Reward(r) => {
                self.need_props(sc, span, "`R`")?;
                let index = match &r.index {
                    None => {
                        if self.reward_names.is_empty() {
                            return self.type_err(
                                span,
                                "the model has no reward structure".into(),
                                "`R` needs rewards".into(),
                            );
                        }
                        None
                    }
                    Some(RewardIndex::Name(n)) => {
                        if !self
                            .reward_names
                            .iter()
                            .any(|r| r.as_deref() == Some(n.as_str()))
                        {
                            return self.type_err(
                                span,
                                format!("undefined reward structure `\"{n}\"`"),
                                "no such reward structure".into(),
                            );
                        }
                        Some(RewardIndex::Name(n.clone()))
                    }
                    Some(RewardIndex::Index(ix)) => {
                        let (ix2, t) = self.resolve(ix, Scope::constants(), d)?;
                        self.expect_type(ix, t, Type::Int, "a reward structure index")?;
                        if let Some(Value::Int(k)) = Value::of_expr(&ix2) {
                            if k < 1 || k as usize > self.reward_names.len() {
                                return self.type_err(
                                    ix.span,
                                    format!("reward structure index {k} out of range (the model has {})", self.reward_names.len()),
                                    "no such reward structure".into(),
                                );
                            }
                        }
                        Some(RewardIndex::Index(ix2))
                    }
                };
                let query = self.resolve_query(&r.query, sc, d)?;
                let inner = Scope { path: false, ..sc };
                let path = match &r.path {
                    RewardPath::Cumulative(None) => RewardPath::Cumulative(None),
                    RewardPath::Steady => RewardPath::Steady,
                    RewardPath::Cumulative(Some(b)) => {
                        RewardPath::Cumulative(Some(self.resolve_time(b, d)?))
                    }
                    RewardPath::Instant(b) => RewardPath::Instant(self.resolve_time(b, d)?),
                    RewardPath::Reach(x) => {
                        let (x2, t) = self.resolve(x, inner, d)?;
                        self.expect_type(x, t, Type::Bool, "the target of `F`")?;
                        RewardPath::Reach(x2)
                    }
                };
                let t = query_type(&query);
                let out = Expr::new(
                    ExprKind::Reward(Box::new(RewardOp {
                        index,
                        minmax: r.minmax,
                        query,
                        path,
                        filter: None,
                    })),
                    span,
                );
                self.wrap_old_filter(out, t, &r.filter, sc, d)
            }
            ExprKind::Temporal(t) => {
                if !sc.path {
                    return self.type_err(
                        span,
                        format!(
                            "temporal operator `{}` outside a `P`, `E` or `A` operator",
                            t.op.symbol()
                        ),
                        "path formula here".into(),
                    );
                }
                let bound = match &t.bound {
                    TimeBound::None => TimeBound::None,
                    TimeBound::Le(b) => TimeBound::Le(self.resolve_time(b, d)?),
                    TimeBound::Lt(b) => TimeBound::Lt(self.resolve_time(b, d)?),
                    TimeBound::Ge(b) => TimeBound::Ge(self.resolve_time(b, d)?),
                    TimeBound::Gt(b) => TimeBound::Gt(self.resolve_time(b, d)?),
                    TimeBound::Eq(b) => TimeBound::Eq(self.resolve_time(b, d)?),
                    TimeBound::Interval(a, b) => {
                        TimeBound::Interval(self.resolve_time(a, d)?, self.resolve_time(b, d)?)
                    }
                };
                let left = match &t.left {
                    Some(l) => {
                        let (l2, tl) = self.resolve(l, sc, d)?;
                        self.expect_type(
                            l,
                            tl,
                            Type::Path,
                            "the left operand of a temporal operator",
                        )?;
                        Some(l2)
                    }
                    None => None,
                };
                let (r2, tr) = self.resolve(&t.right, sc, d)?;
                self.expect_type(
                    &t.right,
                    tr,
                    Type::Path,
                    "the operand of a temporal operator",
                )?;
                Some((
                    Expr::new(
                        ExprKind::Temporal(Box::new(Temporal {
                            op: t.op,
                            left,
                            right: r2,
                            bound,
                        })),
                        span,
                    ),
                    Type::Path,
                ))
            }
            ExprKind::PathQuant(q, p) => {
                self.need_props(sc, span, "`E`/`A`")?;
                let p2 = self.resolve_path(p, sc, d)?;
                Some((
                    Expr::new(ExprKind::PathQuant(*q, Box::new(p2)), span),
                    Type::Bool,
                ))
            }
            ExprKind::Filter(fl) => {
                self.need_props(sc, span, "`filter`")?;
                let inner = Scope { path: false, ..sc };
                let (p2, tp) = self.resolve(&fl.prop, inner, d)?;
                let states = match &fl.states {
                    Some(s) => {
                        let (s2, ts) = self.resolve(s, inner, d)?;
                        self.expect_type(s, ts, Type::Bool, "the states of a filter")?;
                        Some(s2)
                    }
                    None => None,
                };
                let what = format!("the property of `filter({}, ...)`", fl.op.name());
                let t = match fl.op {
                    FilterOp::Min | FilterOp::Max | FilterOp::Sum => {
                        self.expect_type(&fl.prop, tp, Type::Double, &what)?;
                        tp
                    }
                    FilterOp::Avg | FilterOp::Range => {
                        self.expect_type(&fl.prop, tp, Type::Double, &what)?;
                        Type::Double
                    }
                    FilterOp::ArgMin | FilterOp::ArgMax => {
                        self.expect_type(&fl.prop, tp, Type::Double, &what)?;
                        Type::Bool
                    }
                    FilterOp::Count => {
                        self.expect_type(&fl.prop, tp, Type::Bool, &what)?;
                        Type::Int
                    }
                    FilterOp::Forall | FilterOp::Exists => {
                        self.expect_type(&fl.prop, tp, Type::Bool, &what)?;
                        Type::Bool
                    }
                    FilterOp::First | FilterOp::State | FilterOp::Print | FilterOp::PrintAll => tp,
                };
                Some((
                    Expr::new(
                        ExprKind::Filter(Box::new(Filter {
                            op: fl.op,
                            prop: p2,
                            states,
                        })),
                        span,
                    ),
                    t,
                ))
            }
            _ => None,
        }
    }

    fn fold(&mut self, r: Result<Value, String>, span: Span, t: Type) -> R {
        match r {
            Ok(v) => Some((lit(convert(t, v), span), t)),
            Err(msg) => self.type_err(span, format!("cannot evaluate: {msg}"), msg),
        }
    }

    fn need_props(&mut self, sc: Scope, span: Span, what: &str) -> Option<()> {
        if sc.props {
            Some(())
        } else {
            self.err(Error::new(
                format!("{what} can only be used in properties"),
                span,
                "property operator",
            ));
            None
        }
    }

    fn resolve_query(&mut self, q: &Query, _sc: Scope, d: usize) -> Option<Query> {
        match q {
            Query::Value => Some(Query::Value),
            Query::Bound(op, b) => {
                let (b2, t) = self.resolve(
                    b,
                    Scope {
                        vars: false,
                        props: false,
                        path: false,
                        rename: None,
                    },
                    d,
                )?;
                self.expect_type(b, t, Type::Double, "a bound")?;
                Some(Query::Bound(*op, b2))
            }
        }
    }

    fn resolve_time(&mut self, b: &Expr, d: usize) -> Option<Expr> {
        let (b2, t) = self.resolve(b, Scope::constants(), d)?;
        self.expect_type(b, t, Type::Double, "a time bound")?;
        if let Some(v) = Value::of_expr(&b2).and_then(|v| v.as_f64()) {
            if v < 0.0 {
                self.err(Error::new(
                    format!("negative time bound {v}"),
                    b.span,
                    "must be >= 0",
                ));
                return None;
            }
        }
        Some(b2)
    }

    fn resolve_path(&mut self, p: &Expr, sc: Scope, d: usize) -> Option<Expr> {
        let (p2, t) = self.resolve(p, Scope { path: true, ..sc }, d)?;
        self.expect_type(p, t, Type::Path, "the argument of a probabilistic operator")?;
        Some(p2)
    }

    fn wrap_old_filter(
        &mut self,
        op: Expr,
        t: Type,
        f: &Option<OldFilter>,
        sc: Scope,
        d: usize,
    ) -> R {
        let Some(f) = f else { return Some((op, t)) };
        let inner = Scope { path: false, ..sc };
        let (s2, ts) = self.resolve(&f.states, inner, d)?;
        self.expect_type(&f.states, ts, Type::Bool, "the states of a filter")?;
        let fop = if t == Type::Bool {
            FilterOp::Forall
        } else {
            match (f.min, f.max) {
                (true, true) => FilterOp::Range,
                (true, false) => FilterOp::Min,
                (false, true) => FilterOp::Max,
                (false, false) => FilterOp::First,
            }
        };
        let span = op.span;
        Some((
            Expr::new(
                ExprKind::Filter(Box::new(Filter {
                    op: fop,
                    prop: op,
                    states: Some(s2),
                })),
                span,
            ),
            t,
        ))
    }
}

fn query_type(q: &Query) -> Type {
    match q {
        Query::Value => Type::Double,
        Query::Bound(..) => Type::Bool,
    }
}

/// Convert a folded value to the declared type (int to double).
pub fn convert(t: Type, v: Value) -> Value {
    match (t, v) {
        (Type::Double, Value::Int(i)) => Value::Double(i as f64),
        _ => v,
    }
}
