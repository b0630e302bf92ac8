//! Temporal-logic syntax trees for Petri nets, shared by CTL, Reachability, LTL and UpperBounds
//! queries, with the text syntax of `docs/ctl.md` (parser and canonical printer) and name
//! resolution. No decision-diagram or Petri-net dependency.
//!
//! ```
//! use saturn_logic::{parse_query, resolve, NameTable, ResolvedQuery, StateFormula};
//! let q = parse_query("AG (p1 + 2*p2 <= 3 | enabled(t1))").unwrap();
//! assert_eq!(q.to_string(), "AG (p1 + 2*p2 <= 3 | enabled(t1))");
//! let names = NameTable::new(["p1", "p2"], ["t1"]);
//! let ResolvedQuery::Formula(StateFormula::AG(_)) = resolve(&q, &names).unwrap() else { panic!() };
//! ```

pub mod ast;
pub mod error;
mod lexer;
pub mod parser;
pub mod print;
pub mod resolve;

pub use ast::{AddOp, CmpOp, Formula, FormulaKind, IntExpr, IntExprKind, Name, Query, Span};
pub use error::{render_diagnostic, ParseError, SyntaxError};
pub use lexer::{is_plain_name, KEYWORDS};
pub use parser::{parse_formula, parse_query, MAX_DEPTH};
pub use print::name_to_string;
pub use resolve::{
    resolve, resolve_formula, Atom, LinExpr, NameTable, Names, PathFormula, ResolveError,
    ResolveErrors, ResolvedQuery, StateFormula,
};
