//! Tokens of the PRISM model and property languages.

use logos::Logos;

use crate::ast::Span;

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
pub enum Tok {
    // model types
    #[token("ctmc")]
    #[token("stochastic")]
    Ctmc,
    #[token("dtmc")]
    #[token("probabilistic")]
    Dtmc,
    #[token("mdp")]
    #[token("nondeterministic")]
    Mdp,
    #[token("const")]
    Const,
    #[token("int")]
    Int,
    #[token("double")]
    Double,
    #[token("bool")]
    Bool,
    #[token("rate")]
    Rate,
    #[token("prob")]
    ProbKw,
    #[token("global")]
    Global,
    #[token("module")]
    Module,
    #[token("endmodule")]
    EndModule,
    #[token("init")]
    Init,
    #[token("endinit")]
    EndInit,
    #[token("formula")]
    Formula,
    #[token("label")]
    Label,
    #[token("rewards")]
    Rewards,
    #[token("endrewards")]
    EndRewards,
    #[token("system")]
    System,
    #[token("endsystem")]
    EndSystem,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("func")]
    Func,
    #[token("filter")]
    Filter,
    #[token("clock")]
    Clock,
    #[token("invariant")]
    Invariant,
    #[token("endinvariant")]
    EndInvariant,
    // property operators
    #[token("P")]
    P,
    #[token("Pmin")]
    Pmin,
    #[token("Pmax")]
    Pmax,
    #[token("S")]
    S,
    #[token("R")]
    R,
    #[token("Rmin")]
    Rmin,
    #[token("Rmax")]
    Rmax,
    #[token("E")]
    E,
    #[token("A")]
    A,
    #[token("C")]
    C,
    #[token("I")]
    I,
    #[token("F")]
    F,
    #[token("G")]
    G,
    #[token("X")]
    X,
    #[token("U")]
    U,
    #[token("W")]
    W,

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", priority = 1)]
    Ident,
    #[regex(r"[0-9]+")]
    IntLit,
    #[regex(r"[0-9]*\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    DoubleLit,
    #[regex(r#""[^"\n]*""#)]
    Str,

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("..")]
    DotDot,
    #[token("'")]
    Prime,
    #[token("=")]
    Eq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("!")]
    Not,
    #[token("&")]
    And,
    #[token("|")]
    Or,
    #[token("||")]
    OrOr,
    #[token("|||")]
    OrOrOr,
    #[token("=>")]
    Implies,
    #[token("<=>")]
    Iff,
    #[token("?")]
    Question,
    #[token("->")]
    Arrow,

    /// End of input (never produced by logos; appended by [`lex`]).
    Eof,
}

impl Tok {
    /// How the token is described in "expected ..." messages.
    pub fn describe(self) -> &'static str {
        use Tok::*;
        match self {
            Ctmc => "`ctmc`",
            Dtmc => "`dtmc`",
            Mdp => "`mdp`",
            Const => "`const`",
            Int => "`int`",
            Double => "`double`",
            Bool => "`bool`",
            Rate => "`rate`",
            ProbKw => "`prob`",
            Global => "`global`",
            Module => "`module`",
            EndModule => "`endmodule`",
            Init => "`init`",
            EndInit => "`endinit`",
            Formula => "`formula`",
            Label => "`label`",
            Rewards => "`rewards`",
            EndRewards => "`endrewards`",
            System => "`system`",
            EndSystem => "`endsystem`",
            True => "`true`",
            False => "`false`",
            Func => "`func`",
            Filter => "`filter`",
            Clock => "`clock`",
            Invariant => "`invariant`",
            EndInvariant => "`endinvariant`",
            P => "`P`",
            Pmin => "`Pmin`",
            Pmax => "`Pmax`",
            S => "`S`",
            R => "`R`",
            Rmin => "`Rmin`",
            Rmax => "`Rmax`",
            E => "`E`",
            A => "`A`",
            C => "`C`",
            I => "`I`",
            F => "`F`",
            G => "`G`",
            X => "`X`",
            U => "`U`",
            W => "`W`",
            Ident => "an identifier",
            IntLit => "an integer",
            DoubleLit => "a number",
            Str => "a quoted name",
            LParen => "`(`",
            RParen => "`)`",
            LBracket => "`[`",
            RBracket => "`]`",
            LBrace => "`{`",
            RBrace => "`}`",
            Semi => "`;`",
            Colon => "`:`",
            Comma => "`,`",
            DotDot => "`..`",
            Prime => "`'`",
            Eq => "`=`",
            Ne => "`!=`",
            Lt => "`<`",
            Le => "`<=`",
            Gt => "`>`",
            Ge => "`>=`",
            Plus => "`+`",
            Minus => "`-`",
            Star => "`*`",
            Slash => "`/`",
            Not => "`!`",
            And => "`&`",
            Or => "`|`",
            OrOr => "`||`",
            OrOrOr => "`|||`",
            Implies => "`=>`",
            Iff => "`<=>`",
            Question => "`?`",
            Arrow => "`->`",
            Eof => "end of file",
        }
    }

    /// Keywords that are reserved words (cannot be used as names).
    pub fn is_keyword(self) -> bool {
        !matches!(
            self,
            Tok::Ident
                | Tok::IntLit
                | Tok::DoubleLit
                | Tok::Str
                | Tok::LParen
                | Tok::RParen
                | Tok::LBracket
                | Tok::RBracket
                | Tok::LBrace
                | Tok::RBrace
                | Tok::Semi
                | Tok::Colon
                | Tok::Comma
                | Tok::DotDot
                | Tok::Prime
                | Tok::Eq
                | Tok::Ne
                | Tok::Lt
                | Tok::Le
                | Tok::Gt
                | Tok::Ge
                | Tok::Plus
                | Tok::Minus
                | Tok::Star
                | Tok::Slash
                | Tok::Not
                | Tok::And
                | Tok::Or
                | Tok::OrOr
                | Tok::OrOrOr
                | Tok::Implies
                | Tok::Iff
                | Tok::Question
                | Tok::Arrow
                | Tok::Eof
        )
    }
}

/// A lexing error: the span of a character sequence that is no token.
#[derive(Debug, Clone)]
pub struct LexError {
    pub span: Span,
    pub unterminated_comment: bool,
    pub unterminated_string: bool,
}

/// Split `src` into tokens (always ending with [`Tok::Eof`]); bad characters are reported and
/// skipped.
pub fn lex(src: &str) -> (Vec<(Tok, Span)>, Vec<LexError>) {
    let mut toks = Vec::with_capacity(src.len() / 3 + 1);
    let mut errs: Vec<LexError> = Vec::new();
    let mut lx = Tok::lexer(src);
    while let Some(t) = lx.next() {
        let r = lx.span();
        let span = Span::new(r.start, r.end);
        match t {
            Ok(t) => toks.push((t, span)),
            Err(()) => {
                let rest = &src[r.start..];
                let unterminated_comment = rest.starts_with("/*");
                let unterminated_string = rest.starts_with('"');
                if unterminated_comment {
                    errs.push(LexError {
                        span: Span::new(r.start, r.start + 2),
                        unterminated_comment,
                        unterminated_string,
                    });
                    break;
                }
                // merge adjacent bad characters into one error
                match errs.last_mut() {
                    Some(last)
                        if last.span.end == span.start
                            && !last.unterminated_string
                            && !unterminated_string =>
                    {
                        last.span.end = span.end
                    }
                    _ => errs.push(LexError {
                        span,
                        unterminated_comment,
                        unterminated_string,
                    }),
                }
                if errs.len() > 1000 {
                    break;
                }
            }
        }
    }
    toks.push((Tok::Eof, Span::new(src.len(), src.len())));
    (toks, errs)
}
