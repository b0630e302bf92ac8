//! Recursive-descent / precedence-climbing parser for the formula text syntax (`docs/ctl.md`).
//!
//! Formulas and integer expressions share one precedence table, so `(p + 1) <= 3` and
//! `(p <= 3) & q > 0` both parse without backtracking; types are checked as nodes are built.
//! The parser never panics, reports every error with a span, recovers at `)`, `]`, `,` and binary
//! connectives to report several errors at once, and refuses nesting deeper than [`MAX_DEPTH`].

use miette::NamedSource;

use crate::ast::*;
use crate::error::{ParseError, SyntaxError};
use crate::lexer::{lex, Kw, Tok};

/// Maximum nesting of the parser's recursion (bounds the depth of every tree it builds, so that
/// printing, comparing and dropping trees cannot overflow the stack).
pub const MAX_DEPTH: usize = 500;

/// At most this many errors are reported for one text.
const MAX_ERRORS: usize = 10;

const IFF: u8 = 1;
const IMP: u8 = 2;
const OR: u8 = 3;
const AND: u8 = 4;
const CMP: u8 = 5;
const ADD: u8 = 6;
const MUL: u8 = 7;

/// Parse a query: a formula, or `bound(p1, ..., pn)`.
pub fn parse_query(src: &str) -> Result<Query, ParseError> {
    let mut p = Parser::new(src);
    let q = p.query();
    p.finish(src, q)
}

/// Parse a formula (a query that is not `bound(...)`).
pub fn parse_formula(src: &str) -> Result<Formula, ParseError> {
    let mut p = Parser::new(src);
    let e = p.expr(0);
    let f = p.formula(e);
    p.expect_eof();
    p.finish(src, f)
}

enum Expr {
    F(Formula),
    I(IntExpr),
    /// Already reported; compatible with both types so that no error cascades.
    Err(Span),
}

struct Parser {
    toks: Vec<(Tok, Span)>,
    pos: usize,
    depth: usize,
    /// Set when parsing must stop (too deep, too many errors): all further input is skipped.
    fatal: bool,
    errors: Vec<SyntaxError>,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("name `{s}`"),
        Tok::Quoted(s) => format!("name \"{s}\""),
        Tok::Int(_) => "an integer".into(),
        Tok::Kw(k) => format!("`{}`", k.text()),
        Tok::Eof => "end of input".into(),
        Tok::Bad(_) => "invalid input".into(),
        other => format!("`{}`", punct(other)),
    }
}

fn punct(t: &Tok) -> &'static str {
    match t {
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::LBracket => "[",
        Tok::RBracket => "]",
        Tok::Comma => ",",
        Tok::Bang => "!",
        Tok::Amp => "&",
        Tok::Pipe => "|",
        Tok::Arrow => "->",
        Tok::DoubleArrow => "<->",
        Tok::Lt => "<",
        Tok::Le => "<=",
        Tok::EqEq => "=",
        Tok::Ne => "!=",
        Tok::Ge => ">=",
        Tok::Gt => ">",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        _ => "?",
    }
}

fn cmp_op(t: &Tok) -> Option<CmpOp> {
    Some(match t {
        Tok::Lt => CmpOp::Lt,
        Tok::Le => CmpOp::Le,
        Tok::EqEq => CmpOp::Eq,
        Tok::Ne => CmpOp::Ne,
        Tok::Ge => CmpOp::Ge,
        Tok::Gt => CmpOp::Gt,
        _ => return None,
    })
}

/// Tokens at which error recovery stops skipping (they end an operand).
fn is_sync(t: &Tok) -> bool {
    matches!(
        t,
        Tok::RParen
            | Tok::RBracket
            | Tok::Comma
            | Tok::Amp
            | Tok::Pipe
            | Tok::Arrow
            | Tok::DoubleArrow
            | Tok::Kw(Kw::U)
            | Tok::Eof
    )
}

const OPERAND: &str = "a formula or an integer expression";

impl Parser {
    fn new(src: &str) -> Self {
        Parser {
            toks: lex(src),
            pos: 0,
            depth: 0,
            fatal: false,
            errors: Vec::new(),
        }
    }

    fn finish<T>(self, src: &str, value: T) -> Result<T, ParseError> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            // drop the (possibly partial) tree before building the error
            drop(value);
            Err(ParseError {
                src: NamedSource::new("formula", src.to_string()),
                errors: self.errors,
            })
        }
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].0
    }
    fn peek_span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].1
    }
    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            Span::default()
        } else {
            self.toks[(self.pos - 1).min(self.toks.len() - 1)].1
        }
    }
    fn bump(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn error(
        &mut self,
        span: Span,
        message: String,
        label: impl Into<String>,
        help: Option<String>,
    ) {
        if self.fatal {
            return;
        }
        self.errors.push(SyntaxError {
            message,
            span,
            label: label.into(),
            help,
        });
        if self.errors.len() >= MAX_ERRORS {
            self.stop();
        }
    }

    /// Abandon the parse: skip to the end of input.
    fn stop(&mut self) {
        self.fatal = true;
        self.pos = self.toks.len() - 1;
    }

    fn unexpected(&mut self, expected: &str) {
        // at the end of input, point at the last token (an empty span at the end renders no label)
        let span = if *self.peek() == Tok::Eof && self.pos > 0 {
            self.prev_span()
        } else {
            self.peek_span()
        };
        let found = describe(self.peek());
        let label = match self.peek() {
            Tok::Bad(msg) => (*msg).to_string(),
            Tok::Eof if self.pos > 0 => format!("input ends here; expected {expected}"),
            _ => format!("expected {expected}"),
        };
        let message = match self.peek() {
            Tok::Bad(msg) => msg.to_string(),
            _ => format!("expected {expected}, found {found}"),
        };
        self.error(span, message, label, None);
    }

    /// Skip tokens up to the next synchronisation token outside parentheses and brackets.
    fn recover(&mut self) {
        let mut nest = 0usize;
        loop {
            let t = self.peek();
            if *t == Tok::Eof || (nest == 0 && is_sync(t)) {
                return;
            }
            match t {
                Tok::LParen | Tok::LBracket => nest += 1,
                Tok::RParen | Tok::RBracket => nest = nest.saturating_sub(1),
                _ => {}
            }
            self.bump();
        }
    }

    /// Expect `tok` (a closer); on failure report and skip to it (or to the end).
    fn expect(&mut self, tok: Tok, what: &str) -> Span {
        if *self.peek() == tok {
            return self.bump().1;
        }
        self.unexpected(what);
        let mut nest = 0usize;
        loop {
            let t = self.peek().clone();
            if t == Tok::Eof {
                return self.peek_span();
            }
            if nest == 0 && t == tok {
                return self.bump().1;
            }
            match t {
                Tok::LParen | Tok::LBracket => nest += 1,
                Tok::RParen | Tok::RBracket if nest == 0 => return self.peek_span(),
                Tok::RParen | Tok::RBracket => nest -= 1,
                _ => {}
            }
            self.bump();
        }
    }

    fn expect_eof(&mut self) {
        if *self.peek() != Tok::Eof {
            self.unexpected("an operator or the end of the formula");
        }
    }

    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH && !self.fatal {
            let span = self.peek_span();
            self.error(
                span,
                format!("formula nested too deeply (more than {MAX_DEPTH} levels)"),
                "nesting limit reached here",
                None,
            );
            self.stop();
        }
        !self.fatal
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn query(&mut self) -> Query {
        if *self.peek() == Tok::Kw(Kw::Bound) {
            let start = self.bump().1;
            let (places, end) = self.names("place");
            self.expect_eof();
            return Query::Bound {
                places,
                span: start.to(end),
            };
        }
        let e = self.expr(0);
        let f = self.formula(e);
        self.expect_eof();
        Query::Formula(f)
    }

    /// `( name, name, ... )`, at least one name.
    fn names(&mut self, what: &str) -> (Vec<Name>, Span) {
        let mut out = Vec::new();
        let open = self.peek_span();
        if *self.peek() != Tok::LParen {
            self.unexpected("`(`");
            return (out, open);
        }
        self.bump();
        loop {
            match self.peek().clone() {
                Tok::Ident(s) | Tok::Quoted(s) => {
                    let span = self.bump().1;
                    out.push(Name::new(s, span));
                }
                Tok::RParen if out.is_empty() => {
                    let span = self.peek_span();
                    self.error(
                        span,
                        format!("expected at least one {what} name"),
                        format!("empty {what} list"),
                        None,
                    );
                    return (out, self.bump().1);
                }
                _ => {
                    self.unexpected(&format!("a {what} name"));
                    self.recover();
                }
            }
            match self.peek() {
                Tok::Comma => {
                    self.bump();
                }
                _ => {
                    let end = self.expect(Tok::RParen, "`,` or `)`");
                    return (out, open.to(end));
                }
            }
        }
    }

    fn formula(&mut self, e: Expr) -> Formula {
        match e {
            Expr::F(f) => f,
            Expr::I(i) => {
                let help = match &i.kind {
                    IntExprKind::Place(n) => Some(format!(
                        "a place is not a formula; compare its tokens, e.g. `{} >= 1`",
                        crate::print::name_to_string(&n.text)
                    )),
                    _ => Some("compare it with another expression, e.g. `... >= 1`".into()),
                };
                self.error(
                    i.span,
                    "expected a formula, found an integer expression".into(),
                    "integer expression",
                    help,
                );
                Formula::new(FormulaKind::Bool(true), i.span)
            }
            Expr::Err(span) => Formula::new(FormulaKind::Bool(true), span),
        }
    }

    fn int(&mut self, e: Expr) -> IntExpr {
        match e {
            Expr::I(i) => i,
            Expr::F(f) => {
                self.error(
                    f.span,
                    "expected an integer expression, found a formula".into(),
                    "formula",
                    None,
                );
                IntExpr::new(IntExprKind::Const(0), f.span)
            }
            Expr::Err(span) => IntExpr::new(IntExprKind::Const(0), span),
        }
    }

    /// Precedence climbing: parse an expression whose binary operators bind at least as tightly as `min`.
    fn expr(&mut self, min: u8) -> Expr {
        if !self.enter() {
            self.leave();
            return Expr::Err(self.peek_span());
        }
        let mut lhs = self.prefix();
        loop {
            let tok = self.peek().clone();
            match tok {
                Tok::Amp | Tok::Pipe => {
                    let prec = if tok == Tok::Amp { AND } else { OR };
                    if prec < min {
                        break;
                    }
                    let mut ops = vec![self.formula(lhs)];
                    while *self.peek() == tok {
                        self.bump();
                        let e = self.expr(prec + 1);
                        ops.push(self.formula(e));
                    }
                    let span = ops[0].span.to(ops[ops.len() - 1].span);
                    let kind = if tok == Tok::Amp {
                        FormulaKind::And(ops)
                    } else {
                        FormulaKind::Or(ops)
                    };
                    lhs = Expr::F(Formula::new(kind, span));
                }
                Tok::Arrow if IMP >= min => {
                    self.bump();
                    let a = self.formula(lhs);
                    let e = self.expr(IMP);
                    let b = self.formula(e);
                    let span = a.span.to(b.span);
                    lhs = Expr::F(Formula::new(
                        FormulaKind::Implies(Box::new(a), Box::new(b)),
                        span,
                    ));
                }
                Tok::DoubleArrow if IFF >= min => {
                    self.bump();
                    let a = self.formula(lhs);
                    let e = self.expr(IFF + 1);
                    let b = self.formula(e);
                    let span = a.span.to(b.span);
                    lhs = Expr::F(Formula::new(
                        FormulaKind::Iff(Box::new(a), Box::new(b)),
                        span,
                    ));
                    if *self.peek() == Tok::DoubleArrow {
                        let s = self.peek_span();
                        self.error(
                            s,
                            "`<->` is not associative".into(),
                            "second `<->`",
                            Some("add parentheses: `(a <-> b) <-> c`".into()),
                        );
                        self.bump();
                        let _ = self.expr(IFF + 1);
                        lhs = Expr::Err(span);
                    }
                }
                ref t if cmp_op(t).is_some() && CMP >= min => {
                    let op = cmp_op(t).unwrap_or(CmpOp::Eq);
                    self.bump();
                    let a = self.int(lhs);
                    let e = self.expr(CMP + 1);
                    let b = self.int(e);
                    let span = a.span.to(b.span);
                    lhs = Expr::F(Formula::new(
                        FormulaKind::Compare { lhs: a, op, rhs: b },
                        span,
                    ));
                    if cmp_op(self.peek()).is_some() {
                        let s = self.peek_span();
                        self.error(
                            s,
                            "comparisons cannot be chained".into(),
                            "second comparison",
                            Some("write `a <= b & b <= c`".into()),
                        );
                        self.bump();
                        let _ = self.expr(CMP + 1);
                        lhs = Expr::Err(span);
                    }
                }
                Tok::Plus | Tok::Minus if ADD >= min => {
                    let first = self.int(lhs);
                    let mut rest = Vec::new();
                    while matches!(self.peek(), Tok::Plus | Tok::Minus) {
                        let op = if self.bump().0 == Tok::Plus {
                            AddOp::Add
                        } else {
                            AddOp::Sub
                        };
                        let e = self.expr(ADD + 1);
                        rest.push((op, self.int(e)));
                    }
                    let span = first.span.to(rest.last().map_or(first.span, |r| r.1.span));
                    lhs = Expr::I(IntExpr::new(
                        IntExprKind::Sum {
                            first: Box::new(first),
                            rest,
                        },
                        span,
                    ));
                }
                Tok::Star if MUL >= min => {
                    let mut fs = vec![self.int(lhs)];
                    while *self.peek() == Tok::Star {
                        self.bump();
                        let e = self.expr(MUL + 1);
                        fs.push(self.int(e));
                    }
                    let span = fs[0].span.to(fs[fs.len() - 1].span);
                    if fs.iter().filter(|f| !f.is_constant()).count() > 1 {
                        self.error(
                            span,
                            "non-linear product: at most one factor may mention places".into(),
                            "product of two place-dependent factors",
                            None,
                        );
                    }
                    lhs = Expr::I(IntExpr::new(IntExprKind::Product(fs), span));
                }
                _ => break,
            }
        }
        self.leave();
        lhs
    }

    /// A prefix operator applied to its operand, or a primary.
    fn prefix(&mut self) -> Expr {
        if !self.enter() {
            self.leave();
            return Expr::Err(self.peek_span());
        }
        let e = self.prefix_inner();
        self.leave();
        e
    }

    fn unary(&mut self, start: Span, wrap: &[fn(Box<Formula>) -> FormulaKind]) -> Expr {
        let e = self.expr(CMP);
        let mut f = self.formula(e);
        let span = start.to(f.span);
        for w in wrap.iter().rev() {
            f = Formula::new(w(Box::new(f)), span);
        }
        Expr::F(f)
    }

    fn prefix_inner(&mut self) -> Expr {
        use FormulaKind as K;
        let (tok, span) = (self.peek().clone(), self.peek_span());
        match tok {
            Tok::Bang => {
                self.bump();
                self.unary(span, &[K::Not])
            }
            Tok::Kw(
                kw @ (Kw::A
                | Kw::E
                | Kw::X
                | Kw::F
                | Kw::G
                | Kw::AX
                | Kw::AF
                | Kw::AG
                | Kw::EX
                | Kw::EF
                | Kw::EG),
            ) => {
                self.bump();
                let wrap: &[fn(Box<Formula>) -> FormulaKind] = match kw {
                    Kw::A => &[K::All],
                    Kw::E => &[K::Exists],
                    Kw::X => &[K::Next],
                    Kw::F => &[K::Finally],
                    Kw::G => &[K::Globally],
                    Kw::AX => &[K::All, K::Next],
                    Kw::AF => &[K::All, K::Finally],
                    Kw::AG => &[K::All, K::Globally],
                    Kw::EX => &[K::Exists, K::Next],
                    Kw::EF => &[K::Exists, K::Finally],
                    _ => &[K::Exists, K::Globally],
                };
                self.unary(span, wrap)
            }
            Tok::Minus => {
                self.bump();
                if let Tok::Int(v) = *self.peek() {
                    let lit = self.bump().1;
                    let span = span.to(lit);
                    return match v.filter(|&n| n <= 1u64 << 63) {
                        Some(n) => Expr::I(IntExpr::new(
                            IntExprKind::Const((-(n as i128)) as i64),
                            span,
                        )),
                        None => {
                            self.error(
                                span,
                                "integer constant out of range".into(),
                                "too large for 64 bits",
                                None,
                            );
                            Expr::Err(span)
                        }
                    };
                }
                let e = self.prefix();
                let x = self.int(e);
                let span = span.to(x.span);
                Expr::I(IntExpr::new(IntExprKind::Neg(Box::new(x)), span))
            }
            Tok::LParen => {
                self.bump();
                let e = self.expr(0);
                self.expect(Tok::RParen, "`)` or an operator");
                e
            }
            Tok::LBracket => {
                self.bump();
                let e = self.expr(0);
                let a = self.formula(e);
                let mut has_u = true;
                if *self.peek() == Tok::Kw(Kw::U) {
                    self.bump();
                } else {
                    self.unexpected("`U` or an operator");
                    self.recover();
                    has_u = *self.peek() == Tok::Kw(Kw::U);
                    if has_u {
                        self.bump();
                    }
                }
                // without `U` there is no right operand to parse (and no further error to report)
                let e = if has_u {
                    self.expr(0)
                } else {
                    Expr::Err(self.peek_span())
                };
                let b = self.formula(e);
                let end = self.expect(Tok::RBracket, "`]` or an operator");
                Expr::F(Formula::new(
                    FormulaKind::Until(Box::new(a), Box::new(b)),
                    span.to(end),
                ))
            }
            Tok::Kw(Kw::True) => {
                self.bump();
                Expr::F(Formula::new(K::Bool(true), span))
            }
            Tok::Kw(Kw::False) => {
                self.bump();
                Expr::F(Formula::new(K::Bool(false), span))
            }
            Tok::Kw(Kw::Deadlock) => {
                self.bump();
                Expr::F(Formula::new(K::Deadlock, span))
            }
            Tok::Kw(Kw::Enabled) => {
                self.bump();
                let (ts, end) = self.names("transition");
                Expr::F(Formula::new(K::Enabled(ts), span.to(end)))
            }
            Tok::Kw(Kw::TokensCount) => {
                self.bump();
                let (ps, end) = self.names("place");
                Expr::I(IntExpr::new(IntExprKind::TokensCount(ps), span.to(end)))
            }
            Tok::Kw(Kw::Bound) => {
                self.error(
                    span,
                    "`bound(...)` is a query of its own".into(),
                    "not allowed inside a formula",
                    Some("write `bound(p1, p2)` alone".into()),
                );
                self.bump();
                self.recover();
                Expr::Err(span)
            }
            Tok::Ident(s) | Tok::Quoted(s) => {
                self.bump();
                Expr::I(IntExpr::new(IntExprKind::Place(Name::new(s, span)), span))
            }
            Tok::Int(v) => {
                self.bump();
                match v.and_then(|n| i64::try_from(n).ok()) {
                    Some(n) => Expr::I(IntExpr::new(IntExprKind::Const(n), span)),
                    None => {
                        self.error(
                            span,
                            "integer constant out of range".into(),
                            "too large for 64 bits",
                            None,
                        );
                        Expr::Err(span)
                    }
                }
            }
            _ => {
                self.unexpected(OPERAND);
                if !is_sync(self.peek()) {
                    self.bump();
                    self.recover();
                }
                Expr::Err(span.to(self.prev_span()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence() {
        let f = parse_formula("!a <= 1 & b >= 2 | c = 3 -> d > 4 -> e < 5").unwrap();
        let FormulaKind::Implies(l, r) = &f.kind else {
            panic!("{f:?}")
        };
        assert!(matches!(l.kind, FormulaKind::Or(ref v) if v.len() == 2));
        assert!(matches!(r.kind, FormulaKind::Implies(..)));
    }

    #[test]
    fn ctl_keywords_expand() {
        let a = parse_formula("AG EF deadlock").unwrap().without_spans_f();
        let b = parse_formula("A G E F deadlock").unwrap().without_spans_f();
        assert_eq!(a, b);
    }

    impl Formula {
        fn without_spans_f(mut self) -> Formula {
            self.clear_spans();
            self
        }
    }
}
