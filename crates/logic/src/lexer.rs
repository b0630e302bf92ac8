//! Tokens of the formula text syntax (see `docs/ctl.md`).

use crate::ast::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An unquoted identifier that is not a keyword.
    Ident(String),
    /// A double-quoted name (escapes resolved).
    Quoted(String),
    /// A decimal literal (`None` if it does not fit in `u64`).
    Int(Option<u64>),
    Kw(Kw),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Bang,
    Amp,
    Pipe,
    Arrow,
    DoubleArrow,
    Lt,
    Le,
    EqEq,
    Ne,
    Ge,
    Gt,
    Plus,
    Minus,
    Star,
    /// A character that starts no token, or an unterminated/invalid quoted name.
    Bad(&'static str),
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kw {
    True,
    False,
    Deadlock,
    Enabled,
    Bound,
    TokensCount,
    A,
    E,
    X,
    F,
    G,
    U,
    AX,
    AF,
    AG,
    EX,
    EF,
    EG,
}

/// Reserved words: a name spelled like one of these must be quoted.
pub const KEYWORDS: [&str; 18] = [
    "true",
    "false",
    "deadlock",
    "enabled",
    "bound",
    "tokens-count",
    "A",
    "E",
    "X",
    "F",
    "G",
    "U",
    "AX",
    "AF",
    "AG",
    "EX",
    "EF",
    "EG",
];

const KW_VALUES: [Kw; 18] = [
    Kw::True,
    Kw::False,
    Kw::Deadlock,
    Kw::Enabled,
    Kw::Bound,
    Kw::TokensCount,
    Kw::A,
    Kw::E,
    Kw::X,
    Kw::F,
    Kw::G,
    Kw::U,
    Kw::AX,
    Kw::AF,
    Kw::AG,
    Kw::EX,
    Kw::EF,
    Kw::EG,
];

impl Kw {
    pub(crate) fn text(self) -> &'static str {
        let i = KW_VALUES.iter().position(|&k| k == self).unwrap_or(0);
        KEYWORDS[i]
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

/// Can `name` be written without quotes?
pub fn is_plain_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && is_ident_start(b[0])
        && b.iter().all(|&c| is_ident_continue(c))
        && !KEYWORDS.contains(&name)
}

/// Split `src` into tokens; the last one is `Eof`. Never fails: bad input becomes `Tok::Bad`.
pub(crate) fn lex(src: &str) -> Vec<(Tok, Span)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // `//` comments to the end of the line
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        let start = i;
        let two = |s: &[u8]| b[i..].starts_with(s);
        let (tok, len) = if two(b"<->") {
            (Tok::DoubleArrow, 3)
        } else if two(b"->") {
            (Tok::Arrow, 2)
        } else if two(b"<=") {
            (Tok::Le, 2)
        } else if two(b">=") {
            (Tok::Ge, 2)
        } else if two(b"!=") {
            (Tok::Ne, 2)
        } else if two(b"tokens-count") && !b.get(i + 12).is_some_and(|&c| is_ident_continue(c)) {
            (Tok::Kw(Kw::TokensCount), 12)
        } else {
            match c {
                b'(' => (Tok::LParen, 1),
                b')' => (Tok::RParen, 1),
                b'[' => (Tok::LBracket, 1),
                b']' => (Tok::RBracket, 1),
                b',' => (Tok::Comma, 1),
                b'!' => (Tok::Bang, 1),
                b'&' => (Tok::Amp, 1),
                b'|' => (Tok::Pipe, 1),
                b'<' => (Tok::Lt, 1),
                b'>' => (Tok::Gt, 1),
                b'=' => (Tok::EqEq, 1),
                b'+' => (Tok::Plus, 1),
                b'-' => (Tok::Minus, 1),
                b'*' => (Tok::Star, 1),
                b'"' => lex_quoted(&src[i..]),
                b'0'..=b'9' => {
                    let mut j = i;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    if j < b.len() && is_ident_continue(b[j]) {
                        // `1p`: a name starting with a digit must be quoted
                        while j < b.len() && is_ident_continue(b[j]) {
                            j += 1;
                        }
                        (
                            Tok::Bad("a name starting with a digit must be quoted, e.g. \"1p\""),
                            j - i,
                        )
                    } else {
                        (Tok::Int(src[i..j].parse::<u64>().ok()), j - i)
                    }
                }
                c if is_ident_start(c) => {
                    let mut j = i;
                    while j < b.len() && is_ident_continue(b[j]) {
                        j += 1;
                    }
                    let word = &src[i..j];
                    let tok = match KEYWORDS.iter().position(|&k| k == word) {
                        Some(k) => Tok::Kw(KW_VALUES[k]),
                        None => Tok::Ident(word.to_string()),
                    };
                    (tok, j - i)
                }
                _ => {
                    let len = src[i..].chars().next().map_or(1, char::len_utf8);
                    (Tok::Bad("unexpected character"), len)
                }
            }
        };
        out.push((tok, Span::new(start, start + len)));
        i += len;
    }
    out.push((Tok::Eof, Span::new(b.len(), b.len())));
    out
}

/// Lex a quoted name at the start of `s` (which starts with `"`); returns the token and its length.
fn lex_quoted(s: &str) -> (Tok, usize) {
    let mut text = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => return (Tok::Quoted(text), k + 1),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => text.push(e),
                Some((k2, e)) => {
                    return (
                        Tok::Bad("unknown escape (only \\\" and \\\\ are allowed)"),
                        k2 + e.len_utf8(),
                    )
                }
                None => break,
            },
            c => text.push(c),
        }
    }
    (Tok::Bad("unterminated quoted name"), s.len())
}

/// Write `name` as the text syntax reads it: plain if possible, otherwise quoted.
pub fn write_name(out: &mut impl std::fmt::Write, name: &str) -> std::fmt::Result {
    if is_plain_name(name) {
        out.write_str(name)
    } else {
        out.write_char('"')?;
        for c in name.chars() {
            if c == '"' || c == '\\' {
                out.write_char('\\')?;
            }
            out.write_char(c)?;
        }
        out.write_char('"')
    }
}
