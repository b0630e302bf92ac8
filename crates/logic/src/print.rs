//! The canonical printer: `Display` for [`Query`], [`Formula`] and [`IntExpr`].
//!
//! The output parses back to the same tree (modulo spans): parentheses are printed exactly where
//! the grammar needs them to rebuild the same nesting (an `And` inside an `And`, a `Sum` inside a
//! `Sum`, ...), plus around comparisons under a prefix operator, for readability.

use std::fmt::{self, Write};

use crate::ast::*;
use crate::lexer::write_name;

/// `name` as the text syntax reads it (quoted when needed).
pub fn name_to_string(name: &str) -> String {
    let mut s = String::new();
    let _ = write_name(&mut s, name);
    s
}

fn write_names(f: &mut fmt::Formatter<'_>, kw: &str, names: &[Name]) -> fmt::Result {
    f.write_str(kw)?;
    f.write_char('(')?;
    for (i, n) in names.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_name(f, &n.text)?;
    }
    f.write_char(')')
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(f, &self.text)
    }
}

// Precedences of integer expressions.
const I_SUM: u8 = 1;
const I_PROD: u8 = 2;
const I_NEG: u8 = 3;
const I_ATOM: u8 = 4;

fn int_prec(e: &IntExpr) -> u8 {
    match e.kind {
        IntExprKind::Sum { .. } => I_SUM,
        IntExprKind::Product(_) => I_PROD,
        IntExprKind::Neg(_) => I_NEG,
        IntExprKind::Const(c) if c < 0 => I_NEG,
        _ => I_ATOM,
    }
}

fn write_int(f: &mut fmt::Formatter<'_>, e: &IntExpr, min: u8) -> fmt::Result {
    let paren = int_prec(e) < min;
    if paren {
        f.write_char('(')?;
    }
    match &e.kind {
        IntExprKind::Const(c) => write!(f, "{c}")?,
        IntExprKind::Place(n) => write_name(f, &n.text)?,
        IntExprKind::TokensCount(ns) => write_names(f, "tokens-count", ns)?,
        IntExprKind::Neg(x) => {
            f.write_char('-')?;
            // a constant under `-` is parenthesised: `-3` would read back as one constant
            if matches!(x.kind, IntExprKind::Const(_)) {
                write!(f, "({x})")?;
            } else {
                write_int(f, x, I_ATOM)?;
            }
        }
        IntExprKind::Sum { first, rest } => {
            write_int(f, first, I_PROD)?;
            for (op, t) in rest {
                f.write_str(if *op == AddOp::Add { " + " } else { " - " })?;
                write_int(f, t, I_PROD)?;
            }
        }
        IntExprKind::Product(fs) => {
            for (i, x) in fs.iter().enumerate() {
                if i > 0 {
                    f.write_char('*')?;
                }
                write_int(f, x, I_NEG)?;
            }
        }
    }
    if paren {
        f.write_char(')')?;
    }
    Ok(())
}

impl fmt::Display for IntExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_int(f, self, 0)
    }
}

// Precedences of formulas.
const F_IFF: u8 = 1;
const F_IMP: u8 = 2;
const F_OR: u8 = 3;
const F_AND: u8 = 4;
const F_UNARY: u8 = 5;
const F_ATOM: u8 = 6;

fn formula_prec(x: &Formula) -> u8 {
    use FormulaKind::*;
    match x.kind {
        Iff(..) => F_IFF,
        Implies(..) => F_IMP,
        Or(_) => F_OR,
        And(_) => F_AND,
        Not(_) | Exists(_) | All(_) | Next(_) | Finally(_) | Globally(_) => F_UNARY,
        Bool(_) | Deadlock | Compare { .. } | Enabled(_) | Until(..) => F_ATOM,
    }
}

/// The operand of a prefix operator: parenthesised unless it is itself a prefix operator or an
/// atom other than a comparison.
fn write_operand(f: &mut fmt::Formatter<'_>, x: &Formula) -> fmt::Result {
    if formula_prec(x) < F_UNARY || matches!(x.kind, FormulaKind::Compare { .. }) {
        f.write_char('(')?;
        write_formula(f, x, 0)?;
        f.write_char(')')
    } else {
        write_formula(f, x, F_UNARY)
    }
}

fn write_formula(f: &mut fmt::Formatter<'_>, x: &Formula, min: u8) -> fmt::Result {
    use FormulaKind::*;
    let paren = formula_prec(x) < min;
    if paren {
        f.write_char('(')?;
    }
    match &x.kind {
        Bool(b) => f.write_str(if *b { "true" } else { "false" })?,
        Deadlock => f.write_str("deadlock")?,
        Compare { lhs, op, rhs } => {
            write_int(f, lhs, 0)?;
            write!(f, " {} ", op.symbol())?;
            write_int(f, rhs, 0)?;
        }
        Enabled(ts) => write_names(f, "enabled", ts)?,
        Not(a) => {
            f.write_char('!')?;
            write_operand(f, a)?;
        }
        Exists(a) | All(a) => {
            f.write_char(if matches!(x.kind, Exists(_)) {
                'E'
            } else {
                'A'
            })?;
            match &a.kind {
                // CTL shapes print as one keyword: `EF φ`, `AX φ`, `E [φ U ψ]`
                Next(b) | Finally(b) | Globally(b) => {
                    f.write_char(match a.kind {
                        Next(_) => 'X',
                        Finally(_) => 'F',
                        _ => 'G',
                    })?;
                    f.write_char(' ')?;
                    write_operand(f, b)?;
                }
                _ => {
                    f.write_char(' ')?;
                    write_operand(f, a)?;
                }
            }
        }
        Next(a) | Finally(a) | Globally(a) => {
            f.write_str(match x.kind {
                Next(_) => "X ",
                Finally(_) => "F ",
                _ => "G ",
            })?;
            write_operand(f, a)?;
        }
        Until(a, b) => {
            f.write_char('[')?;
            write_formula(f, a, 0)?;
            f.write_str(" U ")?;
            write_formula(f, b, 0)?;
            f.write_char(']')?;
        }
        And(v) | Or(v) => {
            let (sep, p) = if matches!(x.kind, And(_)) {
                (" & ", F_AND + 1)
            } else {
                (" | ", F_OR + 1)
            };
            for (i, a) in v.iter().enumerate() {
                if i > 0 {
                    f.write_str(sep)?;
                }
                write_formula(f, a, p)?;
            }
        }
        Implies(a, b) => {
            write_formula(f, a, F_IMP + 1)?;
            f.write_str(" -> ")?;
            write_formula(f, b, F_IMP)?;
        }
        Iff(a, b) => {
            write_formula(f, a, F_IFF + 1)?;
            f.write_str(" <-> ")?;
            write_formula(f, b, F_IFF + 1)?;
        }
    }
    if paren {
        f.write_char(')')?;
    }
    Ok(())
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_formula(f, self, 0)
    }
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Query::Formula(x) => write_formula(f, x, 0),
            Query::Bound { places, .. } => write_names(f, "bound", places),
        }
    }
}
