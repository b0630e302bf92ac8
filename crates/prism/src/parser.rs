//! Recursive-descent parser for PRISM model and property files, with error recovery at
//! `;`, `endmodule`, `endrewards` and declaration keywords, and a nesting-depth limit.

use crate::ast::*;
use crate::diag::Error;
use crate::lexer::{lex, Tok};

/// Maximum depth of an expression tree (nesting plus operator chains). Deeper input gives an
/// error instead of a stack overflow.
pub const MAX_DEPTH: usize = 500;

/// Model types PRISM knows that Saturn refuses, with a clear message.
const UNSUPPORTED_TYPES: &[&str] = &[
    "pta", "smg", "csg", "tsg", "ctmdp", "pomdp", "popta", "lts", "ipomdp", "idtmc", "imdp",
];

/// Marker: an error was recorded; unwind to a recovery point.
pub(crate) struct Stop;
type PResult<T> = Result<T, Stop>;

pub(crate) struct Parser<'a> {
    src: &'a str,
    toks: Vec<(Tok, Span)>,
    pos: usize,
    pub errors: Vec<Error>,
    props: bool,
    depth: usize,
    last_error_at: Option<usize>,
    /// Parsing a time bound or `P` bound: `name (` is a name followed by a parenthesised
    /// operand, not a call (`F<=T (x=1)`), unless `name` is a built-in function.
    in_bound: bool,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, props: bool) -> Parser<'a> {
        let (toks, lex_errors) = lex(src);
        let mut errors = Vec::new();
        for e in lex_errors {
            let text = &src[e.span.start..e.span.end];
            let err = if e.unterminated_comment {
                Error::new("unterminated comment", e.span, "this `/*` is never closed")
                    .with_help("close the comment with `*/`")
            } else if e.unterminated_string {
                Error::new(
                    "unterminated quoted name",
                    e.span,
                    "this `\"` is not closed on the same line",
                )
            } else {
                let shown: String = text.chars().take(20).collect();
                Error::new(
                    format!("unexpected character(s) `{}`", shown.escape_debug()),
                    e.span,
                    "not part of the PRISM language",
                )
            };
            errors.push(err);
        }
        Parser {
            src,
            toks,
            pos: 0,
            errors,
            props,
            depth: 0,
            last_error_at: None,
            in_bound: false,
        }
    }

    // ------------------------------------------------------------------ token helpers

    fn peek(&self) -> Tok {
        self.toks[self.pos].0
    }
    fn peek_at(&self, n: usize) -> Tok {
        self.toks.get(self.pos + n).map_or(Tok::Eof, |t| t.0)
    }
    fn span(&self) -> Span {
        self.toks[self.pos].1
    }
    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            Span::new(0, 0)
        } else {
            self.toks[self.pos - 1].1
        }
    }
    fn text(&self, s: Span) -> &'a str {
        &self.src[s.start..s.end]
    }
    fn bump(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos];
        if t.0 != Tok::Eof {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, t: Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }
    /// Is the current token the first on its line?
    fn at_line_start(&self) -> bool {
        let start = self.span().start;
        let prev_end = self.prev_span().end;
        self.pos == 0 || self.src[prev_end.min(start)..start].contains('\n')
    }

    fn found(&self) -> String {
        let (t, s) = self.toks[self.pos];
        match t {
            Tok::Ident | Tok::IntLit | Tok::DoubleLit | Tok::Str => {
                let text: String = self.text(s).chars().take(40).collect();
                format!("`{text}`")
            }
            _ => t.describe().to_string(),
        }
    }

    fn push_error(&mut self, e: Error) {
        if self.errors.len() < 200 {
            self.errors.push(e);
        }
    }

    /// Report "expected X, found Y" at the current token.
    fn expected(&mut self, what: &str) -> Stop {
        self.expected_impl(what, false)
    }

    /// Like [`Parser::expected`]; for a missing terminator at the end of a line, point just
    /// after the previous token.
    fn expected_impl(&mut self, what: &str, after_prev: bool) -> Stop {
        if self.last_error_at != Some(self.pos) {
            self.last_error_at = Some(self.pos);
            let found = self.found();
            let span = self.span();
            let prev = self.prev_span();
            // a missing token at the end of a line: point just after the previous token
            if after_prev
                && self.pos > 0
                && self.src[prev.end.min(span.start)..span.start].contains('\n')
            {
                let at = Span::new(prev.end, prev.end);
                self.push_error(
                    Error::new(
                        format!("expected {what}, found {found}"),
                        at,
                        format!("expected {what} here"),
                    )
                    .with_related(span, format!("found {found}")),
                );
            } else {
                self.push_error(Error::new(
                    format!("expected {what}, found {found}"),
                    span,
                    format!("expected {what}"),
                ));
            }
        }
        Stop
    }

    fn expect(&mut self, t: Tok, what: &str) -> PResult<Span> {
        if self.peek() == t {
            Ok(self.bump().1)
        } else {
            Err(self.expected_impl(what, true))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<Ident> {
        if self.peek() == Tok::Ident {
            let (_, s) = self.bump();
            Ok(Ident {
                name: self.text(s).to_string(),
                span: s,
            })
        } else if self.peek().is_keyword() && self.peek() != Tok::Eof {
            let (t, s) = (self.peek(), self.span());
            if self.last_error_at != Some(self.pos) {
                self.last_error_at = Some(self.pos);
                self.push_error(
                    Error::new(
                        format!("expected {what}, found the reserved word {}", t.describe()),
                        s,
                        "reserved word",
                    )
                    .with_help("reserved words cannot be used as names"),
                );
            }
            Err(Stop)
        } else {
            Err(self.expected(what))
        }
    }

    fn quoted(&mut self, what: &str) -> PResult<Ident> {
        let s = self.expect(Tok::Str, what)?;
        let text = self.text(s);
        Ok(Ident {
            name: text[1..text.len() - 1].to_string(),
            span: s,
        })
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let s = self.span();
            self.push_error(
                Error::new(
                    format!("expression nested too deeply (limit {MAX_DEPTH} levels)"),
                    s,
                    "nesting limit reached here",
                )
                .with_help("split the expression using formulas or constants"),
            );
            self.last_error_at = Some(self.pos);
            return Err(Stop);
        }
        Ok(())
    }
    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skip to just after the next `;` or to (not past) one of `stops`.
    fn sync(&mut self, stops: &[Tok]) {
        self.depth = 0;
        loop {
            let t = self.peek();
            if t == Tok::Eof || stops.contains(&t) {
                return;
            }
            self.bump();
            if t == Tok::Semi {
                return;
            }
        }
    }

    // ------------------------------------------------------------------ model files

    pub fn model_file(&mut self) -> ModelFile {
        let mut items = Vec::new();
        loop {
            self.depth = 0;
            let t = self.peek();
            if t == Tok::Eof {
                break;
            }
            let r = self.model_item(&mut items);
            if r.is_err() {
                self.sync(TOP_STARTS);
            }
        }
        ModelFile {
            items,
            origin: Origin::default(),
        }
    }

    fn model_item(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let (t, s) = (self.peek(), self.span());
        match t {
            Tok::Ctmc | Tok::Dtmc | Tok::Mdp => {
                self.bump();
                let mt = match t {
                    Tok::Ctmc => ModelType::Ctmc,
                    Tok::Dtmc => ModelType::Dtmc,
                    _ => ModelType::Mdp,
                };
                items.push(Item::ModelType(mt, s));
            }
            Tok::Const | Tok::Rate | Tok::ProbKw => items.push(Item::Const(self.const_decl()?)),
            Tok::Global => {
                self.bump();
                items.push(Item::Global(self.var_decl()?));
            }
            Tok::Formula => items.push(Item::Formula(self.formula_decl()?)),
            Tok::Label => items.push(Item::Label(self.label_decl()?)),
            Tok::Module => match self.module() {
                Ok(m) => items.push(m),
                Err(Stop) => {
                    // skip the rest of the broken module
                    self.depth = 0;
                    while !matches!(self.peek(), Tok::Eof | Tok::EndModule)
                        && !TOP_STARTS.contains(&self.peek())
                    {
                        self.bump();
                    }
                    self.eat(Tok::EndModule);
                }
            },
            Tok::Rewards => items.push(Item::Rewards(self.rewards()?)),
            Tok::Init => {
                self.bump();
                let e = self.expr()?;
                let end = self.expect(Tok::EndInit, "`endinit`")?;
                items.push(Item::Init(e, s.to(end)));
            }
            Tok::System => {
                self.bump();
                let e = self.system()?;
                let end = self.expect(Tok::EndSystem, "`endsystem`")?;
                items.push(Item::System(e, s.to(end)));
            }
            Tok::Clock | Tok::Invariant => {
                self.push_error(Error::new(
                    format!(
                        "{} belongs to PTA models, which Saturn does not support",
                        t.describe()
                    ),
                    s,
                    "PTA syntax",
                ));
                self.last_error_at = Some(self.pos);
                return Err(Stop);
            }
            Tok::Ident if UNSUPPORTED_TYPES.contains(&self.text(s)) => {
                let name = self.text(s).to_string();
                self.bump();
                self.push_error(
                    Error::new(format!("model type `{name}` is not supported"), s, "unsupported model type")
                        .with_help("Saturn reads ctmc (stochastic), dtmc (probabilistic) and mdp (nondeterministic) models"),
                );
            }
            Tok::EndModule => {
                self.bump();
                self.push_error(Error::new(
                    "`endmodule` without a matching `module`",
                    s,
                    "unexpected `endmodule`",
                ));
            }
            _ => {
                return Err(self.expected("a declaration (`module`, `const`, `global`, `formula`, `label`, `rewards`, `init`, `system` or a model type)"));
            }
        }
        Ok(())
    }

    fn const_decl(&mut self) -> PResult<ConstDecl> {
        let (t, start) = self.bump();
        let ty = if t == Tok::Const {
            match self.peek() {
                Tok::Int => {
                    self.bump();
                    ConstType::Int
                }
                Tok::Double => {
                    self.bump();
                    ConstType::Double
                }
                Tok::Bool => {
                    self.bump();
                    ConstType::Bool
                }
                Tok::Rate | Tok::ProbKw => {
                    self.bump();
                    ConstType::Double
                }
                _ => ConstType::Int,
            }
        } else {
            ConstType::Double
        };
        let name = self.ident("a constant name")?;
        let value = if self.eat(Tok::Eq) {
            Some(self.expr()?)
        } else {
            None
        };
        let end = self.expect(Tok::Semi, "`;` after the constant declaration")?;
        Ok(ConstDecl {
            name,
            ty,
            value,
            span: start.to(end),
        })
    }

    fn formula_decl(&mut self) -> PResult<FormulaDecl> {
        let (name, expr, span) = self.definition(false)?;
        Ok(FormulaDecl { name, expr, span })
    }

    fn label_decl(&mut self) -> PResult<LabelDecl> {
        let (name, expr, span) = self.definition(true)?;
        Ok(LabelDecl { name, expr, span })
    }

    /// `formula name = expr;` or `label "name" = expr;` (after the keyword).
    fn definition(&mut self, label: bool) -> PResult<(Ident, Expr, Span)> {
        let start = self.bump().1;
        let name = if label {
            self.quoted("a quoted label name like `\"done\"`")?
        } else {
            self.ident("a formula name")?
        };
        self.expect(Tok::Eq, "`=`")?;
        let expr = self.expr()?;
        let end = self.expect(
            Tok::Semi,
            if label {
                "`;` after the label"
            } else {
                "`;` after the formula"
            },
        )?;
        Ok((name, expr, start.to(end)))
    }

    fn var_decl(&mut self) -> PResult<VarDecl> {
        let name = self.ident("a variable name")?;
        let start = name.span;
        self.expect(Tok::Colon, "`:` after the variable name")?;
        let ty = match self.peek() {
            Tok::LBracket => {
                self.bump();
                let lo = self.expr()?;
                self.expect(Tok::DotDot, "`..` in the range")?;
                let hi = self.expr()?;
                self.expect(Tok::RBracket, "`]` closing the range")?;
                VarType::Range(lo, hi)
            }
            Tok::Bool => {
                self.bump();
                VarType::Bool
            }
            Tok::Int => {
                self.bump();
                VarType::Int
            }
            Tok::Clock => {
                self.bump();
                VarType::Clock
            }
            _ => return Err(self.expected("a variable type (`[lo..hi]` or `bool`)")),
        };
        let init = if self.eat(Tok::Init) {
            Some(self.expr()?)
        } else {
            None
        };
        let end = self.expect(Tok::Semi, "`;` after the variable declaration")?;
        Ok(VarDecl {
            name,
            ty,
            init,
            span: start.to(end),
        })
    }

    fn module(&mut self) -> PResult<Item> {
        let start = self.bump().1;
        let name = self.ident("a module name")?;
        if self.eat(Tok::Eq) {
            let base = self.ident("the name of the module to copy")?;
            self.expect(Tok::LBracket, "`[` starting the renaming list")?;
            let mut renames = Vec::new();
            loop {
                let from = self.ident("a name to rename")?;
                self.expect(Tok::Eq, "`=` in the renaming")?;
                let to = self.ident("the new name")?;
                renames.push((from, to));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RBracket, "`,` or `]` in the renaming list")?;
            let end = self.expect(Tok::EndModule, "`endmodule`")?;
            return Ok(Item::Renamed(RenamedModule {
                name,
                base,
                renames,
                span: start.to(end),
            }));
        }
        let mut vars = Vec::new();
        let mut commands = Vec::new();
        let end;
        let mut skipped = false;
        loop {
            self.depth = 0;
            match self.peek() {
                Tok::EndModule => {
                    end = self.bump().1;
                    break;
                }
                Tok::LBracket => match self.command() {
                    Ok(c) => commands.push(c),
                    Err(Stop) => self.sync(MODULE_STOPS),
                },
                Tok::Ident if self.peek_at(1) == Tok::Colon => match self.var_decl() {
                    Ok(v) => vars.push(v),
                    Err(Stop) => self.sync(MODULE_STOPS),
                },
                t if t == Tok::Eof || TOP_STARTS.contains(&t) => {
                    // missing `endmodule`: report it (unless we just skipped here after an
                    // error) and let the caller continue here
                    if !skipped {
                        self.expected_impl("`endmodule`", true);
                    }
                    end = self.prev_span();
                    break;
                }
                _ => {
                    let text = self.text(self.span()).to_string();
                    let n = self.errors.len();
                    self.expected("a variable declaration, a command `[action] guard -> updates;` or `endmodule`");
                    if self.errors.len() > n && text.starts_with("end") && text != "endmodule" {
                        if let Some(e) = self.errors.last_mut() {
                            e.help = Some("did you mean `endmodule`?".into());
                        }
                    }
                    self.bump();
                    self.sync(&MODULE_STOPS[1..]);
                    skipped = true;
                    continue;
                }
            }
        }
        Ok(Item::Module(Module {
            name,
            vars,
            commands,
            span: start.to(end),
        }))
    }

    fn command(&mut self) -> PResult<Command> {
        let start = self.bump().1;
        let action = if self.peek() == Tok::RBracket {
            None
        } else {
            Some(self.ident("an action name or `]`")?)
        };
        self.expect(Tok::RBracket, "`]` after the action")?;
        let guard = self.expr()?;
        self.expect(Tok::Arrow, "`->` after the guard")?;
        let mut updates = vec![self.update()?];
        while self.eat(Tok::Plus) {
            updates.push(self.update()?);
        }
        let end = self.expect(Tok::Semi, "`;` or `+` after the update")?;
        if updates.len() > 1 {
            if let Some(u) = updates.iter().find(|u| u.prob.is_none()) {
                self.push_error(
                    Error::new(
                        "an update without a probability/rate in a command with several updates",
                        u.span,
                        "needs `p :` before it",
                    )
                    .with_help("write each branch as `p : (x'=...)`"),
                );
            }
        }
        Ok(Command {
            action,
            guard,
            updates,
            span: start.to(end),
        })
    }

    fn update(&mut self) -> PResult<Update> {
        let start = self.span();
        let is_assign_start = |p: &Parser| {
            (p.peek() == Tok::LParen && p.peek_at(1) == Tok::Ident && p.peek_at(2) == Tok::Prime)
                || (p.peek() == Tok::True && matches!(p.peek_at(1), Tok::Semi | Tok::Plus))
        };
        let prob = if is_assign_start(self) {
            None
        } else {
            let p = self.expr()?;
            self.expect(
                Tok::Colon,
                "`:` after the probability/rate (or an update `(x'=...)`)",
            )?;
            Some(p)
        };
        let mut assigns = Vec::new();
        if !self.eat(Tok::True) {
            loop {
                self.expect(
                    Tok::LParen,
                    "`(` starting an assignment `(x'=...)` or `true`",
                )?;
                let var = self.ident("a variable name")?;
                self.expect(Tok::Prime, "`'` after the variable name")?;
                self.expect(Tok::Eq, "`=` in the assignment")?;
                let value = self.expr()?;
                self.expect(Tok::RParen, "`)` closing the assignment")?;
                assigns.push(Assign { var, value });
                if !self.eat(Tok::And) {
                    break;
                }
            }
        }
        Ok(Update {
            prob,
            assigns,
            span: start.to(self.prev_span()),
        })
    }

    fn rewards(&mut self) -> PResult<RewardStruct> {
        let start = self.bump().1;
        let name = if self.peek() == Tok::Str {
            Some(self.quoted("a reward structure name")?)
        } else {
            None
        };
        let mut items = Vec::new();
        let end;
        loop {
            self.depth = 0;
            match self.peek() {
                Tok::EndRewards => {
                    end = self.bump().1;
                    break;
                }
                t if t == Tok::Eof || (TOP_STARTS.contains(&t) && t != Tok::Init) => {
                    self.expected("`endrewards`");
                    end = self.prev_span();
                    break;
                }
                _ => match self.reward_item() {
                    Ok(i) => items.push(i),
                    Err(Stop) => self.sync(&[
                        Tok::EndRewards,
                        Tok::Module,
                        Tok::Rewards,
                        Tok::System,
                        Tok::Label,
                        Tok::Formula,
                        Tok::Const,
                    ]),
                },
            }
        }
        Ok(RewardStruct {
            name,
            items,
            span: start.to(end),
        })
    }

    fn reward_item(&mut self) -> PResult<RewardItem> {
        let start = self.span();
        let action = if self.eat(Tok::LBracket) {
            let a = if self.peek() == Tok::RBracket {
                None
            } else {
                Some(self.ident("an action name or `]`")?)
            };
            self.expect(Tok::RBracket, "`]` after the action")?;
            Some(a)
        } else {
            None
        };
        let guard = self.expr()?;
        self.expect(Tok::Colon, "`:` between the guard and the reward")?;
        let value = self.expr()?;
        let end = self.expect(Tok::Semi, "`;` after the reward")?;
        Ok(RewardItem {
            action,
            guard,
            value,
            span: start.to(end),
        })
    }

    fn system(&mut self) -> PResult<SystemExpr> {
        self.enter()?;
        let mut left = self.system_postfix()?;
        let mut first_op: Option<ParOp> = None;
        loop {
            let op_span = self.span();
            let op = match self.peek() {
                Tok::OrOr => {
                    self.bump();
                    ParOp::Full
                }
                Tok::OrOrOr => {
                    self.bump();
                    ParOp::Interleave
                }
                Tok::Or if self.peek_at(1) == Tok::LBracket => {
                    self.bump();
                    self.bump();
                    let mut acts = Vec::new();
                    if self.peek() != Tok::RBracket {
                        loop {
                            acts.push(self.ident("an action name")?);
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    self.expect(Tok::RBracket, "`]` in `|[...]|`")?;
                    self.expect(Tok::Or, "`|` closing `|[...]|`")?;
                    ParOp::Sync(acts)
                }
                _ => break,
            };
            match &first_op {
                Some(f) if *f != op => {
                    self.push_error(
                        Error::new(
                            "different parallel operators need parentheses",
                            op_span.to(self.prev_span()),
                            "mixed with another operator",
                        )
                        .with_help("write e.g. `(M1 || M2) ||| M3`"),
                    );
                    self.last_error_at = Some(self.pos);
                    return Err(Stop);
                }
                _ => first_op = Some(op.clone()),
            }
            self.enter()?;
            let right = self.system_postfix()?;
            let span = left.span.to(right.span);
            left = SystemExpr {
                kind: SystemKind::Par(op, Box::new(left), Box::new(right)),
                span,
            };
        }
        self.leave();
        Ok(left)
    }

    fn system_postfix(&mut self) -> PResult<SystemExpr> {
        let start = self.span();
        let mut e = match self.peek() {
            Tok::LParen => {
                self.bump();
                let e = self.system()?;
                self.expect(Tok::RParen, "`)`")?;
                e
            }
            _ => {
                let m = self.ident("a module name or `(`")?;
                SystemExpr {
                    span: m.span,
                    kind: SystemKind::Module(m),
                }
            }
        };
        loop {
            match self.peek() {
                Tok::Slash => {
                    self.bump();
                    self.expect(Tok::LBrace, "`{` after `/`")?;
                    let mut acts = Vec::new();
                    loop {
                        acts.push(self.ident("an action name")?);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    let end = self.expect(Tok::RBrace, "`,` or `}`")?;
                    self.enter()?;
                    e = SystemExpr {
                        kind: SystemKind::Hide(Box::new(e), acts),
                        span: start.to(end),
                    };
                }
                Tok::LBrace => {
                    self.bump();
                    let mut pairs = Vec::new();
                    loop {
                        let a = self.ident("an action name")?;
                        self.expect(Tok::Lt, "`<-`")?;
                        self.expect(Tok::Minus, "`<-`")?;
                        let b = self.ident("an action name")?;
                        pairs.push((a, b));
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                    let end = self.expect(Tok::RBrace, "`,` or `}`")?;
                    self.enter()?;
                    e = SystemExpr {
                        kind: SystemKind::Rename(Box::new(e), pairs),
                        span: start.to(end),
                    };
                }
                _ => return Ok(e),
            }
        }
    }

    // ------------------------------------------------------------------ property files

    pub fn properties_file(&mut self) -> PropertiesFile {
        let mut items = Vec::new();
        loop {
            self.depth = 0;
            match self.peek() {
                Tok::Eof => break,
                Tok::Semi => {
                    self.bump();
                }
                Tok::Const | Tok::Rate | Tok::ProbKw => match self.const_decl() {
                    Ok(c) => items.push(PropItem::Const(c)),
                    Err(Stop) => self.sync_property(),
                },
                Tok::Label => match self.label_decl() {
                    Ok(l) => items.push(PropItem::Label(l)),
                    Err(Stop) => self.sync_property(),
                },
                Tok::Formula => match self.formula_decl() {
                    Ok(f) => items.push(PropItem::Formula(f)),
                    Err(Stop) => self.sync_property(),
                },
                _ => match self.property() {
                    Ok(p) => items.push(PropItem::Property(p)),
                    Err(Stop) => self.sync_property(),
                },
            }
        }
        PropertiesFile {
            items,
            origin: Origin::default(),
        }
    }

    fn property(&mut self) -> PResult<Property> {
        let start = self.span();
        let name = if self.peek() == Tok::Str && self.peek_at(1) == Tok::Colon {
            let n = self.quoted("a property name")?;
            self.bump();
            Some(n)
        } else {
            None
        };
        let expr = self.expr()?;
        let end = self.prev_span();
        match self.peek() {
            Tok::Semi => {
                self.bump();
            }
            Tok::Eof => {}
            _ if self.at_line_start() => {}
            _ => return Err(self.expected("`;` or the end of the line after the property")),
        }
        Ok(Property {
            name,
            expr,
            span: start.to(end),
        })
    }

    /// Skip to after the next `;` or to the first token of a later line.
    fn sync_property(&mut self) {
        self.depth = 0;
        let start = self.pos;
        loop {
            let t = self.peek();
            if t == Tok::Eof {
                return;
            }
            if self.pos > start && self.at_line_start() {
                return;
            }
            self.bump();
            if t == Tok::Semi {
                return;
            }
        }
    }

    // ------------------------------------------------------------------ expressions

    /// An expression: `? :` level in models; in properties also temporal operators where
    /// PRISM allows them (inside `[...]` and parentheses).
    pub fn expr(&mut self) -> PResult<Expr> {
        self.ite()
    }

    fn path_expr(&mut self) -> PResult<Expr> {
        if self.props {
            self.temporal_binary()
        } else {
            self.ite()
        }
    }

    fn temporal_binary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let left = self.temporal_unary()?;
        let op = match self.peek() {
            Tok::U => TempOp::Until,
            Tok::W => TempOp::WeakUntil,
            Tok::R => TempOp::Release,
            _ => {
                self.leave();
                return Ok(left);
            }
        };
        self.bump();
        let bound = self.time_bound()?;
        let right = self.temporal_unary()?;
        self.leave();
        let span = left.span.to(right.span);
        Ok(Expr::new(
            ExprKind::Temporal(Box::new(Temporal {
                op,
                left: Some(left),
                right,
                bound,
            })),
            span,
        ))
    }

    fn temporal_unary(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            Tok::X => TempOp::Next,
            Tok::F => TempOp::Finally,
            Tok::G => TempOp::Globally,
            _ => return self.ite(),
        };
        self.enter()?;
        let start = self.bump().1;
        let bound = self.time_bound()?;
        let right = self.temporal_unary()?;
        self.leave();
        let span = start.to(right.span);
        Ok(Expr::new(
            ExprKind::Temporal(Box::new(Temporal {
                op,
                left: None,
                right,
                bound,
            })),
            span,
        ))
    }

    fn time_bound(&mut self) -> PResult<TimeBound> {
        let t = self.peek();
        let b = match t {
            Tok::Le | Tok::Lt | Tok::Ge | Tok::Gt | Tok::Eq => {
                self.bump();
                let e = self.bound_expr()?;
                match t {
                    Tok::Le => TimeBound::Le(e),
                    Tok::Lt => TimeBound::Lt(e),
                    Tok::Ge => TimeBound::Ge(e),
                    Tok::Gt => TimeBound::Gt(e),
                    _ => TimeBound::Eq(e),
                }
            }
            Tok::LBracket => {
                self.bump();
                let a = self.ite()?;
                self.expect(Tok::Comma, "`,` in the time interval")?;
                let b = self.ite()?;
                self.expect(Tok::RBracket, "`]` closing the time interval")?;
                TimeBound::Interval(a, b)
            }
            _ => TimeBound::None,
        };
        Ok(b)
    }

    /// An arithmetic bound (`<=t`, `>=p`, ...).
    fn bound_expr(&mut self) -> PResult<Expr> {
        let saved = self.in_bound;
        self.in_bound = true;
        let r = self.bin(10);
        self.in_bound = saved;
        r
    }

    fn ite(&mut self) -> PResult<Expr> {
        self.enter()?;
        let cond = self.bin(3)?;
        if !self.eat(Tok::Question) {
            self.leave();
            return Ok(cond);
        }
        let then = self.bin(3)?;
        self.expect(Tok::Colon, "`:` in `c ? a : b`")?;
        let els = self.ite()?;
        self.leave();
        let span = cond.span.to(els.span);
        Ok(Expr::new(
            ExprKind::Ite(Box::new(cond), Box::new(then), Box::new(els)),
            span,
        ))
    }

    fn binop(&self) -> Option<BinOp> {
        Some(match self.peek() {
            Tok::Implies => BinOp::Implies,
            Tok::Iff => BinOp::Iff,
            Tok::Or => BinOp::Or,
            Tok::And => BinOp::And,
            Tok::Eq => BinOp::Eq,
            Tok::Ne => BinOp::Ne,
            Tok::Lt => BinOp::Lt,
            Tok::Le => BinOp::Le,
            Tok::Gt => BinOp::Gt,
            Tok::Ge => BinOp::Ge,
            Tok::Plus => BinOp::Add,
            Tok::Minus => BinOp::Sub,
            Tok::Star => BinOp::Mul,
            Tok::Slash => BinOp::Div,
            _ => return None,
        })
    }

    /// Precedence climbing over the binary operators of level `>= min`.
    fn bin(&mut self, min: u8) -> PResult<Expr> {
        self.enter()?;
        let start = self.span();
        let mut left = match self.peek() {
            Tok::Not => {
                self.bump();
                let e = self.bin(min.max(7))?;
                let span = start.to(e.span);
                Expr::new(ExprKind::Unary(UnOp::Not, Box::new(e)), span)
            }
            Tok::Minus => {
                self.bump();
                let e = self.bin(12)?;
                let span = start.to(e.span);
                Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(e)), span)
            }
            _ => self.primary()?,
        };
        let mut chain = 0;
        while let Some(op) = self.binop() {
            if op.level() < min {
                break;
            }
            self.bump();
            chain += 1;
            self.enter()?;
            let right = self.bin(op.level() + 1)?;
            left = Expr::binary(op, left, right);
        }
        self.depth = self.depth.saturating_sub(chain);
        self.leave();
        Ok(left)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let (t, s) = (self.peek(), self.span());
        let kind = match t {
            Tok::IntLit => {
                self.bump();
                match self.text(s).parse::<i64>() {
                    Ok(i) => ExprKind::Int(i),
                    Err(_) => {
                        self.push_error(
                            Error::new("integer literal too large", s, format!("larger than {}", i64::MAX))
                                .with_help("integers are 64-bit; write a double (e.g. `1.0e30`) for larger values"),
                        );
                        ExprKind::Int(0)
                    }
                }
            }
            Tok::DoubleLit => {
                self.bump();
                match self.text(s).parse::<f64>() {
                    Ok(d) if d.is_finite() => ExprKind::Double(d),
                    _ => {
                        self.push_error(Error::new(
                            "number out of range",
                            s,
                            "not a finite double",
                        ));
                        ExprKind::Double(0.0)
                    }
                }
            }
            Tok::True => {
                self.bump();
                ExprKind::Bool(true)
            }
            Tok::False => {
                self.bump();
                ExprKind::Bool(false)
            }
            Tok::Ident => {
                self.bump();
                let name = self.text(s);
                if self.peek() == Tok::LParen && !(self.in_bound && Func::from_name(name).is_none())
                {
                    let Some(f) = Func::from_name(name) else {
                        self.push_error(
                            Error::new(
                                format!("unknown function `{name}`"),
                                s,
                                "not a built-in function",
                            )
                            .with_help(
                                "the functions are min, max, floor, ceil, round, pow, mod and log",
                            ),
                        );
                        self.last_error_at = Some(self.pos);
                        return Err(Stop);
                    };
                    self.bump();
                    let args = self.args()?;
                    let end = self.expect(Tok::RParen, "`,` or `)` in the function call")?;
                    return Ok(Expr::new(ExprKind::Call(f, args), s.to(end)));
                }
                ExprKind::Ident(name.to_string())
            }
            Tok::Func => {
                self.bump();
                self.expect(Tok::LParen, "`(` after `func`")?;
                let fs = self.span();
                let name = self.ident("a function name")?;
                let Some(f) = Func::from_name(&name.name) else {
                    self.push_error(Error::new(
                        format!("unknown function `{}`", name.name),
                        fs,
                        "not a built-in function",
                    ));
                    return Err(Stop);
                };
                self.expect(Tok::Comma, "`,` after the function name")?;
                let args = self.args()?;
                let end = self.expect(Tok::RParen, "`,` or `)` in the function call")?;
                return Ok(Expr::new(ExprKind::Call(f, args), s.to(end)));
            }
            Tok::LParen => {
                self.bump();
                let saved = std::mem::replace(&mut self.in_bound, false);
                let e = self.path_expr();
                self.in_bound = saved;
                let mut e = e?;
                let end = self.expect(Tok::RParen, "`)`")?;
                e.span = s.to(end);
                return Ok(e);
            }
            Tok::Str
            | Tok::P
            | Tok::Pmin
            | Tok::Pmax
            | Tok::S
            | Tok::R
            | Tok::Rmin
            | Tok::Rmax
            | Tok::E
            | Tok::A
            | Tok::Filter
                if !self.props =>
            {
                self.push_error(Error::new(
                    format!(
                        "{} can only be used in properties, not in a model",
                        if t == Tok::Str {
                            "a label `\"...\"`"
                        } else {
                            t.describe()
                        }
                    ),
                    s,
                    "property syntax",
                ));
                self.last_error_at = Some(self.pos);
                return Err(Stop);
            }
            Tok::Str => {
                let id = self.quoted("a label")?;
                ExprKind::Label(id.name)
            }
            Tok::P | Tok::Pmin | Tok::Pmax => return self.prob_op(),
            Tok::S => {
                self.bump();
                let query = self.query()?;
                self.expect(Tok::LBracket, "`[` after the `S` operator")?;
                let expr = self.path_expr()?;
                let filter = self.old_filter()?;
                let end = self.expect(Tok::RBracket, "`]` closing the `S` operator")?;
                return Ok(Expr::new(
                    ExprKind::Steady(Box::new(SteadyOp {
                        query,
                        expr,
                        filter,
                    })),
                    s.to(end),
                ));
            }
            Tok::R | Tok::Rmin | Tok::Rmax => return self.reward_op(),
            Tok::E | Tok::A => {
                self.bump();
                self.expect(Tok::LBracket, "`[`")?;
                let e = self.path_expr()?;
                let end = self.expect(Tok::RBracket, "`]`")?;
                let q = if t == Tok::E {
                    PathQuant::Exists
                } else {
                    PathQuant::Forall
                };
                return Ok(Expr::new(ExprKind::PathQuant(q, Box::new(e)), s.to(end)));
            }
            Tok::Filter => return self.filter(),
            Tok::X | Tok::F | Tok::G | Tok::U | Tok::W if self.props => {
                self.push_error(
                    Error::new(format!("temporal operator {} outside a `P`, `E` or `A` operator", t.describe()), s, "path formula here")
                        .with_help("write e.g. `P=? [ F phi ]`; a path formula inside an expression needs parentheses"),
                );
                self.last_error_at = Some(self.pos);
                return Err(Stop);
            }
            _ => return Err(self.expected("an expression")),
        };
        Ok(Expr::new(kind, s))
    }

    fn args(&mut self) -> PResult<Vec<Expr>> {
        let mut args = vec![self.path_expr()?];
        while self.eat(Tok::Comma) {
            args.push(self.path_expr()?);
        }
        Ok(args)
    }

    fn minmax_suffix(&mut self) -> MinMax {
        if self.peek() == Tok::Ident {
            match self.text(self.span()) {
                "min" => {
                    self.bump();
                    return MinMax::Min;
                }
                "max" => {
                    self.bump();
                    return MinMax::Max;
                }
                _ => {}
            }
        }
        MinMax::None
    }

    fn query(&mut self) -> PResult<Query> {
        let op = match self.peek() {
            Tok::Eq => {
                self.bump();
                self.expect(Tok::Question, "`?` in `=?`")?;
                return Ok(Query::Value);
            }
            Tok::Lt => RelOp::Lt,
            Tok::Le => RelOp::Le,
            Tok::Gt => RelOp::Gt,
            Tok::Ge => RelOp::Ge,
            _ => return Err(self.expected("`=?` or a bound like `>=0.5`")),
        };
        self.bump();
        let e = self.bound_expr()?;
        Ok(Query::Bound(op, e))
    }

    fn old_filter(&mut self) -> PResult<Option<OldFilter>> {
        if !self.eat(Tok::LBrace) {
            return Ok(None);
        }
        let states = self.path_expr()?;
        self.expect(Tok::RBrace, "`}` closing the filter")?;
        let (mut min, mut max) = (false, false);
        while self.peek() == Tok::LBrace {
            self.bump();
            match self.minmax_suffix() {
                MinMax::Min => min = true,
                MinMax::Max => max = true,
                MinMax::None => return Err(self.expected("`min` or `max`")),
            }
            self.expect(Tok::RBrace, "`}`")?;
        }
        Ok(Some(OldFilter { states, min, max }))
    }

    fn prob_op(&mut self) -> PResult<Expr> {
        let (t, s) = self.bump();
        let minmax = match t {
            Tok::Pmin => MinMax::Min,
            Tok::Pmax => MinMax::Max,
            _ => self.minmax_suffix(),
        };
        let query = self.query()?;
        self.expect(Tok::LBracket, "`[` after the `P` operator")?;
        let path = self.path_expr()?;
        let filter = self.old_filter()?;
        let end = self.expect(Tok::RBracket, "`]` closing the `P` operator")?;
        Ok(Expr::new(
            ExprKind::Prob(Box::new(ProbOp {
                minmax,
                query,
                path,
                filter,
            })),
            s.to(end),
        ))
    }

    fn reward_op(&mut self) -> PResult<Expr> {
        let (t, s) = self.bump();
        let mut minmax = match t {
            Tok::Rmin => MinMax::Min,
            Tok::Rmax => MinMax::Max,
            _ => MinMax::None,
        };
        let index = if self.eat(Tok::LBrace) {
            let idx = if self.peek() == Tok::Str {
                RewardIndex::Name(self.quoted("a reward structure name")?.name)
            } else {
                RewardIndex::Index(self.ite()?)
            };
            self.expect(Tok::RBrace, "`}` after the reward structure")?;
            Some(idx)
        } else {
            None
        };
        if minmax == MinMax::None {
            minmax = self.minmax_suffix();
        }
        let query = self.query()?;
        self.expect(Tok::LBracket, "`[` after the `R` operator")?;
        let ps = self.span();
        let path = match self.peek() {
            Tok::C => {
                self.bump();
                if self.eat(Tok::Le) {
                    RewardPath::Cumulative(Some(self.bound_expr()?))
                } else {
                    RewardPath::Cumulative(None)
                }
            }
            Tok::I => {
                self.bump();
                self.expect(Tok::Eq, "`=` after `I`")?;
                RewardPath::Instant(self.bound_expr()?)
            }
            Tok::F => {
                self.bump();
                RewardPath::Reach(self.ite()?)
            }
            Tok::S => {
                self.bump();
                RewardPath::Steady
            }
            _ => {
                let _ = ps;
                return Err(self.expected("a reward formula: `C<=t`, `C`, `I=t`, `F phi` or `S`"));
            }
        };
        let filter = self.old_filter()?;
        let end = self.expect(Tok::RBracket, "`]` closing the `R` operator")?;
        Ok(Expr::new(
            ExprKind::Reward(Box::new(RewardOp {
                index,
                minmax,
                query,
                path,
                filter,
            })),
            s.to(end),
        ))
    }

    fn filter(&mut self) -> PResult<Expr> {
        let s = self.bump().1;
        self.expect(Tok::LParen, "`(` after `filter`")?;
        let os = self.span();
        let op = match self.peek() {
            Tok::Plus => Some(FilterOp::Sum),
            Tok::And => Some(FilterOp::Forall),
            Tok::Or => Some(FilterOp::Exists),
            Tok::Ident => FilterOp::from_name(self.text(os)),
            _ => None,
        };
        let Some(op) = op else {
            return Err(self.expected(
                "a filter operator (min, max, argmin, argmax, count, sum, avg, first, range, forall, exists, state, print, printall)",
            ));
        };
        self.bump();
        self.expect(Tok::Comma, "`,` after the filter operator")?;
        let prop = self.path_expr()?;
        let states = if self.eat(Tok::Comma) {
            Some(self.path_expr()?)
        } else {
            None
        };
        let end = self.expect(Tok::RParen, "`)` closing the filter")?;
        Ok(Expr::new(
            ExprKind::Filter(Box::new(Filter { op, prop, states })),
            s.to(end),
        ))
    }
}

/// Tokens that start a top-level declaration (recovery points).
const TOP_STARTS: &[Tok] = &[
    Tok::Module,
    Tok::Const,
    Tok::Global,
    Tok::Formula,
    Tok::Label,
    Tok::Rewards,
    Tok::System,
    Tok::Ctmc,
    Tok::Dtmc,
    Tok::Mdp,
    Tok::Rate,
    Tok::ProbKw,
];

/// Recovery points inside a module body.
const MODULE_STOPS: &[Tok] = &[
    Tok::LBracket,
    Tok::EndModule,
    Tok::Module,
    Tok::Const,
    Tok::Global,
    Tok::Formula,
    Tok::Label,
    Tok::Rewards,
    Tok::System,
    Tok::Ctmc,
    Tok::Dtmc,
    Tok::Mdp,
];
