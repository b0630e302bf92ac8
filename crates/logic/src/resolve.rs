//! Name resolution: from the parsed tree (names as strings) to a representation a model checker
//! uses directly: atoms as `Σ c·m(p) op k` over place indices, transition index lists, and the
//! CTL operators as their own variants.

use std::collections::HashMap;
use std::fmt;

use miette::{Diagnostic, LabeledSpan};

use crate::ast::*;

/// Place and transition lookup by name (implemented by the net's front-end; this crate knows no
/// Petri-net type).
pub trait Names {
    fn place(&self, name: &str) -> Option<usize>;
    fn transition(&self, name: &str) -> Option<usize>;
}

/// A hash-map [`Names`] built from the place and transition ids in index order. When an id occurs
/// twice, the first index wins.
#[derive(Clone, Debug, Default)]
pub struct NameTable {
    places: HashMap<String, usize>,
    transitions: HashMap<String, usize>,
}

impl NameTable {
    pub fn new<'a>(
        places: impl IntoIterator<Item = &'a str>,
        transitions: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        fn table<'a>(it: impl IntoIterator<Item = &'a str>) -> HashMap<String, usize> {
            let mut m = HashMap::new();
            for (i, n) in it.into_iter().enumerate() {
                m.entry(n.to_string()).or_insert(i);
            }
            m
        }
        NameTable {
            places: table(places),
            transitions: table(transitions),
        }
    }
}

impl Names for NameTable {
    fn place(&self, name: &str) -> Option<usize> {
        self.places.get(name).copied()
    }
    fn transition(&self, name: &str) -> Option<usize> {
        self.transitions.get(name).copied()
    }
}

/// A linear expression `Σ coef·m(place) + constant`; `terms` sorted by place, no zero coefficient.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LinExpr {
    pub terms: Vec<(usize, i64)>,
    pub constant: i64,
}

impl LinExpr {
    /// The value in `marking` (exact: no overflow for `u64` token counts and `i64` coefficients
    /// unless the sum exceeds `i128`, which saturates).
    pub fn eval(&self, marking: &[u64]) -> i128 {
        let mut s = self.constant as i128;
        for &(p, c) in &self.terms {
            let v = marking.get(p).copied().unwrap_or(0) as i128;
            s = s.saturating_add(v.saturating_mul(c as i128));
        }
        s
    }
    /// The places with a non-zero coefficient.
    pub fn places(&self) -> impl Iterator<Item = usize> + '_ {
        self.terms.iter().map(|t| t.0)
    }
}

/// An atomic proposition `Σ coef·m(place) op bound`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    /// Sorted by place, no zero coefficient, `constant == 0`.
    pub lhs: LinExpr,
    pub op: CmpOp,
    pub bound: i64,
}

impl Atom {
    /// `m(place) >= 1`: the place is marked.
    pub fn marked(place: usize) -> Atom {
        Atom {
            lhs: LinExpr {
                terms: vec![(place, 1)],
                constant: 0,
            },
            op: CmpOp::Ge,
            bound: 1,
        }
    }

    pub fn eval(&self, marking: &[u64]) -> bool {
        self.op.holds(self.lhs.eval(marking), self.bound as i128)
    }
}

/// A resolved state formula. The CTL operators have their own variants; a path quantifier over
/// anything else (LTL, CTL*) is [`StateFormula::A`] / [`StateFormula::E`] over a [`PathFormula`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StateFormula {
    Const(bool),
    Deadlock,
    Atom(Atom),
    /// At least one of these transitions is enabled (sorted, no duplicates, non-empty).
    Enabled(Vec<usize>),
    Not(Box<StateFormula>),
    And(Vec<StateFormula>),
    Or(Vec<StateFormula>),
    Implies(Box<StateFormula>, Box<StateFormula>),
    Iff(Box<StateFormula>, Box<StateFormula>),
    EX(Box<StateFormula>),
    AX(Box<StateFormula>),
    EF(Box<StateFormula>),
    AF(Box<StateFormula>),
    EG(Box<StateFormula>),
    AG(Box<StateFormula>),
    EU(Box<StateFormula>, Box<StateFormula>),
    AU(Box<StateFormula>, Box<StateFormula>),
    /// `A φ` for a path formula φ that is not one CTL operator over state formulas.
    A(Box<PathFormula>),
    /// `E φ` for a path formula φ that is not one CTL operator over state formulas.
    E(Box<PathFormula>),
}

/// A resolved path formula (LTL over state-formula atoms).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathFormula {
    /// A state formula, evaluated in the first state of the path.
    State(StateFormula),
    Not(Box<PathFormula>),
    And(Vec<PathFormula>),
    Or(Vec<PathFormula>),
    Implies(Box<PathFormula>, Box<PathFormula>),
    Iff(Box<PathFormula>, Box<PathFormula>),
    X(Box<PathFormula>),
    F(Box<PathFormula>),
    G(Box<PathFormula>),
    U(Box<PathFormula>, Box<PathFormula>),
}

/// A resolved [`Query`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResolvedQuery {
    Formula(StateFormula),
    /// The maximum of `expr` over the reachable markings (`constant == 0`, coefficients > 0).
    Bound(LinExpr),
}

impl StateFormula {
    /// Is this a CTL formula (no [`StateFormula::A`] / [`StateFormula::E`] inside)?
    pub fn is_ctl(&self) -> bool {
        use StateFormula::*;
        match self {
            Const(_) | Deadlock | Atom(_) | Enabled(_) => true,
            A(_) | E(_) => false,
            Not(a) | EX(a) | AX(a) | EF(a) | AF(a) | EG(a) | AG(a) => a.is_ctl(),
            And(v) | Or(v) => v.iter().all(StateFormula::is_ctl),
            Implies(a, b) | Iff(a, b) | EU(a, b) | AU(a, b) => a.is_ctl() && b.is_ctl(),
        }
    }
}

/// Why a formula cannot be resolved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    #[error("unknown place `{name}`")]
    UnknownPlace { name: String, span: Span },
    #[error("unknown transition `{name}`")]
    UnknownTransition { name: String, span: Span },
    #[error("integer overflow in a linear expression")]
    Overflow { span: Span },
    #[error("non-linear product: at most one factor may mention places")]
    NonLinear { span: Span },
    #[error("temporal operator outside a path quantifier")]
    TemporalOutsideQuantifier { span: Span },
    #[error("empty list of names")]
    EmptyList { span: Span },
}

impl ResolveError {
    pub fn span(&self) -> Span {
        match self {
            ResolveError::UnknownPlace { span, .. }
            | ResolveError::UnknownTransition { span, .. }
            | ResolveError::Overflow { span }
            | ResolveError::NonLinear { span }
            | ResolveError::TemporalOutsideQuantifier { span }
            | ResolveError::EmptyList { span } => *span,
        }
    }
}

impl Diagnostic for ResolveError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("saturn::formula::resolve"))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            ResolveError::TemporalOutsideQuantifier { .. } => Some(Box::new(
                "put `A` or `E` in front, e.g. `A F p >= 1` or `EF p >= 1`",
            )),
            _ => None,
        }
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = match self {
            ResolveError::UnknownPlace { .. } => "no place with this id in the net",
            ResolveError::UnknownTransition { .. } => "no transition with this id in the net",
            ResolveError::Overflow { .. } => "does not fit in 64 bits",
            ResolveError::NonLinear { .. } => "non-linear",
            ResolveError::TemporalOutsideQuantifier { .. } => "needs a path quantifier",
            ResolveError::EmptyList { .. } => "empty",
        };
        Some(Box::new(std::iter::once(
            LabeledSpan::new_primary_with_span(Some(label.into()), self.span()),
        )))
    }
}

/// All resolution errors of one query (at least one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolveErrors(pub Vec<ResolveError>);

impl fmt::Display for ResolveErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ResolveErrors {}

/// Resolve `query` against `names`, reporting every unknown name (not only the first).
pub fn resolve(query: &Query, names: &impl Names) -> Result<ResolvedQuery, ResolveErrors> {
    let mut r = Resolver {
        names,
        errors: Vec::new(),
    };
    let out = match query {
        Query::Formula(f) => ResolvedQuery::Formula(r.state(f)),
        Query::Bound { places, span } => {
            let mut e = LinExpr::default();
            r.add_places(&mut e, places, *span);
            ResolvedQuery::Bound(e)
        }
    };
    if r.errors.is_empty() {
        Ok(out)
    } else {
        Err(ResolveErrors(r.errors))
    }
}

/// Resolve one formula (see [`resolve`]).
pub fn resolve_formula(f: &Formula, names: &impl Names) -> Result<StateFormula, ResolveErrors> {
    let mut r = Resolver {
        names,
        errors: Vec::new(),
    };
    let out = r.state(f);
    if r.errors.is_empty() {
        Ok(out)
    } else {
        Err(ResolveErrors(r.errors))
    }
}

struct Resolver<'n, N: Names> {
    names: &'n N,
    errors: Vec<ResolveError>,
}

fn bx<T>(x: T) -> Box<T> {
    Box::new(x)
}

impl<N: Names> Resolver<'_, N> {
    fn state(&mut self, f: &Formula) -> StateFormula {
        use FormulaKind as K;
        use StateFormula as S;
        match &f.kind {
            K::Bool(b) => S::Const(*b),
            K::Deadlock => S::Deadlock,
            K::Compare { lhs, op, rhs } => S::Atom(self.atom(lhs, *op, rhs, f.span)),
            K::Enabled(ts) => {
                if ts.is_empty() {
                    self.errors.push(ResolveError::EmptyList { span: f.span });
                }
                let mut v: Vec<usize> = ts
                    .iter()
                    .filter_map(|t| {
                        let i = self.names.transition(&t.text);
                        if i.is_none() {
                            self.errors.push(ResolveError::UnknownTransition {
                                name: t.text.clone(),
                                span: t.span,
                            });
                        }
                        i
                    })
                    .collect();
                v.sort_unstable();
                v.dedup();
                S::Enabled(v)
            }
            K::Not(a) => S::Not(bx(self.state(a))),
            K::And(v) => S::And(v.iter().map(|a| self.state(a)).collect()),
            K::Or(v) => S::Or(v.iter().map(|a| self.state(a)).collect()),
            K::Implies(a, b) => S::Implies(bx(self.state(a)), bx(self.state(b))),
            K::Iff(a, b) => S::Iff(bx(self.state(a)), bx(self.state(b))),
            K::Exists(p) | K::All(p) => {
                let all = matches!(f.kind, K::All(_));
                match &p.kind {
                    K::Next(a) | K::Finally(a) | K::Globally(a) if a.is_state() => {
                        let a = bx(self.state(a));
                        match (&p.kind, all) {
                            (K::Next(_), false) => S::EX(a),
                            (K::Next(_), true) => S::AX(a),
                            (K::Finally(_), false) => S::EF(a),
                            (K::Finally(_), true) => S::AF(a),
                            (_, false) => S::EG(a),
                            (_, true) => S::AG(a),
                        }
                    }
                    K::Until(a, b) if a.is_state() && b.is_state() => {
                        let (a, b) = (bx(self.state(a)), bx(self.state(b)));
                        if all {
                            S::AU(a, b)
                        } else {
                            S::EU(a, b)
                        }
                    }
                    // a quantifier over a state formula is that formula
                    _ if p.is_state() => self.state(p),
                    _ => {
                        let path = bx(self.path(p));
                        if all {
                            S::A(path)
                        } else {
                            S::E(path)
                        }
                    }
                }
            }
            K::Next(_) | K::Finally(_) | K::Globally(_) | K::Until(..) => {
                self.errors
                    .push(ResolveError::TemporalOutsideQuantifier { span: f.span });
                S::Const(false)
            }
        }
    }

    fn path(&mut self, f: &Formula) -> PathFormula {
        use FormulaKind as K;
        use PathFormula as P;
        if f.is_state() {
            return P::State(self.state(f));
        }
        match &f.kind {
            K::Not(a) => P::Not(bx(self.path(a))),
            K::And(v) => P::And(v.iter().map(|a| self.path(a)).collect()),
            K::Or(v) => P::Or(v.iter().map(|a| self.path(a)).collect()),
            K::Implies(a, b) => P::Implies(bx(self.path(a)), bx(self.path(b))),
            K::Iff(a, b) => P::Iff(bx(self.path(a)), bx(self.path(b))),
            K::Next(a) => P::X(bx(self.path(a))),
            K::Finally(a) => P::F(bx(self.path(a))),
            K::Globally(a) => P::G(bx(self.path(a))),
            K::Until(a, b) => P::U(bx(self.path(a)), bx(self.path(b))),
            // every other kind is a state formula (handled above)
            _ => P::State(self.state(f)),
        }
    }

    fn atom(&mut self, lhs: &IntExpr, op: CmpOp, rhs: &IntExpr, span: Span) -> Atom {
        let l = self.lin(lhs);
        let r = self.lin(rhs);
        // lhs - rhs op 0  <=>  Σ (l - r) op (r.const - l.const)
        let diff = self.combine(&l, &r, -1, span);
        let bound = r.constant.checked_sub(l.constant).unwrap_or_else(|| {
            self.errors.push(ResolveError::Overflow { span });
            0
        });
        Atom {
            lhs: LinExpr {
                terms: diff.terms,
                constant: 0,
            },
            op,
            bound,
        }
    }

    fn add_places(&mut self, e: &mut LinExpr, places: &[Name], span: Span) {
        if places.is_empty() {
            self.errors.push(ResolveError::EmptyList { span });
        }
        let mut terms: Vec<(usize, i64)> = Vec::with_capacity(places.len());
        for p in places {
            match self.names.place(&p.text) {
                Some(i) => terms.push((i, 1)),
                None => self.errors.push(ResolveError::UnknownPlace {
                    name: p.text.clone(),
                    span: p.span,
                }),
            }
        }
        let add = LinExpr {
            terms: normalize(terms),
            constant: 0,
        };
        *e = self.combine(e, &add, 1, span);
    }

    /// `a + k*b` (k = ±1), terms merged.
    fn combine(&mut self, a: &LinExpr, b: &LinExpr, k: i64, span: Span) -> LinExpr {
        let mut overflow = false;
        let mut terms = a.terms.clone();
        for &(p, c) in &b.terms {
            let c = c.checked_mul(k).unwrap_or_else(|| {
                overflow = true;
                0
            });
            terms.push((p, c));
        }
        let constant = b
            .constant
            .checked_mul(k)
            .and_then(|c| a.constant.checked_add(c))
            .unwrap_or_else(|| {
                overflow = true;
                0
            });
        let terms = merge(terms, &mut overflow);
        if overflow {
            self.errors.push(ResolveError::Overflow { span });
        }
        LinExpr { terms, constant }
    }

    fn scale(&mut self, e: &LinExpr, k: i64, span: Span) -> LinExpr {
        let mut overflow = false;
        let mut mul = |c: i64| {
            c.checked_mul(k).unwrap_or_else(|| {
                overflow = true;
                0
            })
        };
        let terms = e
            .terms
            .iter()
            .map(|&(p, c)| (p, mul(c)))
            .filter(|t| t.1 != 0)
            .collect();
        let constant = mul(e.constant);
        if overflow {
            self.errors.push(ResolveError::Overflow { span });
        }
        LinExpr { terms, constant }
    }

    fn lin(&mut self, e: &IntExpr) -> LinExpr {
        match &e.kind {
            IntExprKind::Const(c) => LinExpr {
                terms: vec![],
                constant: *c,
            },
            IntExprKind::Place(n) => {
                let mut out = LinExpr::default();
                self.add_places(&mut out, std::slice::from_ref(n), e.span);
                out
            }
            IntExprKind::TokensCount(ns) => {
                let mut out = LinExpr::default();
                self.add_places(&mut out, ns, e.span);
                out
            }
            IntExprKind::Neg(x) => {
                let x = self.lin(x);
                self.scale(&x, -1, e.span)
            }
            IntExprKind::Sum { first, rest } => {
                let mut acc = self.lin(first);
                for (op, t) in rest {
                    let t = self.lin(t);
                    acc = self.combine(&acc, &t, if *op == AddOp::Add { 1 } else { -1 }, e.span);
                }
                acc
            }
            IntExprKind::Product(fs) => {
                let mut acc = LinExpr {
                    terms: vec![],
                    constant: 1,
                };
                for x in fs {
                    let x = self.lin(x);
                    if x.terms.is_empty() {
                        acc = self.scale(&acc, x.constant, e.span);
                    } else if acc.terms.is_empty() {
                        acc = self.scale(&x, acc.constant, e.span);
                    } else {
                        self.errors.push(ResolveError::NonLinear { span: e.span });
                    }
                }
                acc
            }
        }
    }
}

/// Sort by place and merge equal places, dropping zero coefficients.
fn merge(mut terms: Vec<(usize, i64)>, overflow: &mut bool) -> Vec<(usize, i64)> {
    terms.sort_unstable_by_key(|t| t.0);
    let mut out: Vec<(usize, i64)> = Vec::with_capacity(terms.len());
    for (p, c) in terms {
        match out.last_mut() {
            Some(last) if last.0 == p => {
                last.1 = last.1.checked_add(c).unwrap_or_else(|| {
                    *overflow = true;
                    0
                })
            }
            _ => out.push((p, c)),
        }
    }
    out.retain(|t| t.1 != 0);
    out
}

fn normalize(terms: Vec<(usize, i64)>) -> Vec<(usize, i64)> {
    let mut overflow = false;
    merge(terms, &mut overflow)
}
