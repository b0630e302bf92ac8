//! Syntax trees for state and path formulas over Petri nets, as parsed (names are strings, every
//! node carries the byte span of the text or XML element it came from).
//!
//! One tree serves CTL, Reachability (`EF`/`AG`), LTL (path formulas under `A`) and, through
//! [`Query::Bound`], UpperBounds. The tree is CTL*-shaped: path quantifiers ([`FormulaKind::Exists`],
//! [`FormulaKind::All`]) and temporal operators ([`FormulaKind::Next`] ...) are separate nodes, so
//! the CTL operator `EF φ` is `Exists(Finally(φ))`. [`crate::resolve()`] maps it to a
//! representation with explicit CTL operators and place/transition indices.
//!
//! Invariants kept by the parsers (and expected by the printer for `parse(print(x)) == x`):
//! `And`/`Or` have at least two operands, `Sum` at least one `rest` term, `Product` at least two
//! factors, name lists are non-empty.

/// A byte range `start..end` in the source text (formula text or XML file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn len(self) -> usize {
        self.end.saturating_sub(self.start)
    }
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start, s.len()).into()
    }
}

/// A place or transition name as written (unresolved).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

impl Name {
    pub fn new(text: impl Into<String>, span: Span) -> Self {
        Name {
            text: text.into(),
            span,
        }
    }
}

/// A comparison relation between two integer expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Ge,
        CmpOp::Gt,
    ];

    /// The text syntax: `<`, `<=`, `=`, `!=`, `>=`, `>`.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Ge => ">=",
            CmpOp::Gt => ">",
        }
    }

    /// `a op b`.
    pub fn holds<T: Ord>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Ge => a >= b,
            CmpOp::Gt => a > b,
        }
    }
}

/// `+` or `-` in front of a term of a [`IntExprKind::Sum`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddOp {
    Add,
    Sub,
}

/// A linear integer expression over place markings.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntExpr {
    pub kind: IntExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntExprKind {
    /// An integer constant (`-3` is one constant, `-(3)` is `Neg(3)`).
    Const(i64),
    /// The tokens in one place.
    Place(Name),
    /// MCC `tokens-count(p1, ..., pn)`: the sum of the tokens in the listed places.
    TokensCount(Vec<Name>),
    /// `-e`.
    Neg(Box<IntExpr>),
    /// `first ± t1 ± t2 ...` (left to right); `rest` is non-empty.
    Sum {
        first: Box<IntExpr>,
        rest: Vec<(AddOp, IntExpr)>,
    },
    /// `f1 * f2 * ...` (at least two factors, at most one of them mentions a place).
    Product(Vec<IntExpr>),
}

impl IntExpr {
    pub fn new(kind: IntExprKind, span: Span) -> Self {
        IntExpr { kind, span }
    }
    /// Does the expression mention no place (so it is a constant)?
    pub fn is_constant(&self) -> bool {
        match &self.kind {
            IntExprKind::Const(_) => true,
            IntExprKind::Place(_) | IntExprKind::TokensCount(_) => false,
            IntExprKind::Neg(e) => e.is_constant(),
            IntExprKind::Sum { first, rest } => {
                first.is_constant() && rest.iter().all(|(_, e)| e.is_constant())
            }
            IntExprKind::Product(fs) => fs.iter().all(IntExpr::is_constant),
        }
    }
    /// Set every span in the tree to the empty span (to compare trees modulo spans).
    pub fn clear_spans(&mut self) {
        self.span = Span::default();
        match &mut self.kind {
            IntExprKind::Const(_) => {}
            IntExprKind::Place(n) => n.span = Span::default(),
            IntExprKind::TokensCount(ns) => ns.iter_mut().for_each(|n| n.span = Span::default()),
            IntExprKind::Neg(e) => e.clear_spans(),
            IntExprKind::Sum { first, rest } => {
                first.clear_spans();
                rest.iter_mut().for_each(|(_, e)| e.clear_spans());
            }
            IntExprKind::Product(fs) => fs.iter_mut().for_each(IntExpr::clear_spans),
        }
    }
}

/// A state or path formula.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Formula {
    pub kind: FormulaKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FormulaKind {
    Bool(bool),
    /// No transition is enabled.
    Deadlock,
    /// `lhs op rhs` (MCC `integer-le` is `Le`).
    Compare {
        lhs: IntExpr,
        op: CmpOp,
        rhs: IntExpr,
    },
    /// `enabled(t1, ..., tn)` (MCC `is-fireable`): at least one listed transition is enabled.
    Enabled(Vec<Name>),
    Not(Box<Formula>),
    /// At least two operands.
    And(Vec<Formula>),
    /// At least two operands.
    Or(Vec<Formula>),
    Implies(Box<Formula>, Box<Formula>),
    Iff(Box<Formula>, Box<Formula>),
    /// Path quantifier `E` (MCC `exists-path`).
    Exists(Box<Formula>),
    /// Path quantifier `A` (MCC `all-paths`).
    All(Box<Formula>),
    /// `X φ` (MCC `next`).
    Next(Box<Formula>),
    /// `F φ` (MCC `finally`).
    Finally(Box<Formula>),
    /// `G φ` (MCC `globally`).
    Globally(Box<Formula>),
    /// `[φ U ψ]` (MCC `until` with `before` φ and `reach` ψ).
    Until(Box<Formula>, Box<Formula>),
}

impl Formula {
    pub fn new(kind: FormulaKind, span: Span) -> Self {
        Formula { kind, span }
    }

    /// The direct subformulas, left to right.
    pub fn children(&self) -> Vec<&Formula> {
        use FormulaKind::*;
        match &self.kind {
            Bool(_) | Deadlock | Compare { .. } | Enabled(_) => vec![],
            Not(a) | Exists(a) | All(a) | Next(a) | Finally(a) | Globally(a) => vec![a],
            And(v) | Or(v) => v.iter().collect(),
            Implies(a, b) | Iff(a, b) | Until(a, b) => vec![a, b],
        }
    }

    /// Is this a state formula, i.e. has it no temporal operator outside a path quantifier?
    pub fn is_state(&self) -> bool {
        use FormulaKind::*;
        match &self.kind {
            Bool(_) | Deadlock | Compare { .. } | Enabled(_) | Exists(_) | All(_) => true,
            Next(_) | Finally(_) | Globally(_) | Until(..) => false,
            _ => self.children().into_iter().all(Formula::is_state),
        }
    }

    /// Is this a CTL formula: every path quantifier applied to exactly one temporal operator over
    /// CTL formulas, and no temporal operator elsewhere?
    pub fn is_ctl(&self) -> bool {
        use FormulaKind::*;
        match &self.kind {
            Exists(p) | All(p) => match &p.kind {
                Next(a) | Finally(a) | Globally(a) => a.is_ctl(),
                Until(a, b) => a.is_ctl() && b.is_ctl(),
                _ => false,
            },
            Next(_) | Finally(_) | Globally(_) | Until(..) => false,
            _ => self.children().into_iter().all(Formula::is_ctl),
        }
    }

    /// Is this an LTL formula in MCC form: `A φ` with φ built from atoms, boolean connectives and
    /// temporal operators (no inner path quantifier)?
    pub fn is_ltl(&self) -> bool {
        fn quantifier_free(f: &Formula) -> bool {
            !matches!(f.kind, FormulaKind::Exists(_) | FormulaKind::All(_))
                && f.children().into_iter().all(quantifier_free)
        }
        matches!(&self.kind, FormulaKind::All(p) if quantifier_free(p))
    }

    /// The nesting depth (a leaf has depth 1).
    pub fn depth(&self) -> usize {
        1 + self
            .children()
            .into_iter()
            .map(Formula::depth)
            .max()
            .unwrap_or(0)
    }

    /// Set every span in the tree to the empty span (to compare trees modulo spans).
    pub fn clear_spans(&mut self) {
        use FormulaKind::*;
        self.span = Span::default();
        match &mut self.kind {
            Bool(_) | Deadlock => {}
            Compare { lhs, rhs, .. } => {
                lhs.clear_spans();
                rhs.clear_spans();
            }
            Enabled(ns) => ns.iter_mut().for_each(|n| n.span = Span::default()),
            Not(a) | Exists(a) | All(a) | Next(a) | Finally(a) | Globally(a) => a.clear_spans(),
            And(v) | Or(v) => v.iter_mut().for_each(Formula::clear_spans),
            Implies(a, b) | Iff(a, b) | Until(a, b) => {
                a.clear_spans();
                b.clear_spans();
            }
        }
    }
}

/// A property: a formula to check in the initial marking, or an UpperBounds query.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Query {
    Formula(Formula),
    /// `bound(p1, ..., pn)` (MCC `place-bound`): the maximum over reachable markings of the sum
    /// of the tokens in the listed places.
    Bound {
        places: Vec<Name>,
        span: Span,
    },
}

impl Query {
    pub fn span(&self) -> Span {
        match self {
            Query::Formula(f) => f.span,
            Query::Bound { span, .. } => *span,
        }
    }
    pub fn as_formula(&self) -> Option<&Formula> {
        match self {
            Query::Formula(f) => Some(f),
            Query::Bound { .. } => None,
        }
    }
    /// Set every span in the tree to the empty span (to compare trees modulo spans).
    pub fn clear_spans(&mut self) {
        match self {
            Query::Formula(f) => f.clear_spans(),
            Query::Bound { places, span } => {
                *span = Span::default();
                places.iter_mut().for_each(|n| n.span = Span::default());
            }
        }
    }
    /// A copy with every span cleared.
    pub fn without_spans(&self) -> Query {
        let mut q = self.clone();
        q.clear_spans();
        q
    }
}
