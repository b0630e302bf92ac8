//! A subformula as text, in PRISM's syntax, as the checker sees it (labels expanded, `G`
//! rewritten): how a refinement names the subformula it refined (thesis 7.2).

use saturn_model::expr::{BinOp, Expr, Func};

use super::{Csl, Rel, RewardPath};

/// Longest text of a subformula; the middle of a longer one is elided.
const MAX_CHARS: usize = 120;

/// `f` as text, variables named by `names`, at most [`MAX_CHARS`] characters.
pub fn show(f: &Csl, names: &[String]) -> String {
    let s = csl(f, names);
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= MAX_CHARS {
        return s;
    }
    let half = MAX_CHARS / 2 - 2;
    let head: String = chars[..half].iter().collect();
    let tail: String = chars[chars.len() - half..].iter().collect();
    format!("{head} ... {tail}")
}

fn op(o: BinOp) -> &'static str {
    match o {
        BinOp::And => "&",
        BinOp::Or => "|",
        BinOp::Implies => "=>",
        BinOp::Iff => "<=>",
        BinOp::Eq => "=",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
    }
}

fn rel(r: Rel) -> &'static str {
    match r {
        Rel::Lt => "<",
        Rel::Le => "<=",
        Rel::Gt => ">",
        Rel::Ge => ">=",
    }
}

fn bound(b: &Option<(Rel, f64)>) -> String {
    match b {
        None => "=?".into(),
        Some((r, p)) => format!("{}{p}", rel(*r)),
    }
}

fn expr(e: &Expr, names: &[String]) -> String {
    let var = |v: &usize| names.get(*v).cloned().unwrap_or_else(|| format!("v{v}"));
    match e {
        Expr::Int(k) => k.to_string(),
        Expr::Real(r) => r.get().to_string(),
        Expr::Bool(b) => b.to_string(),
        Expr::Var(v) | Expr::BoolVar(v) => var(v),
        Expr::Not(a) => format!("!{}", atom(a, names)),
        Expr::Neg(a) => format!("-{}", atom(a, names)),
        Expr::Bin(o, a, b) => format!(
            "{}{}{}",
            operand(a, *o, true, names),
            op(*o),
            operand(b, *o, false, names)
        ),
        Expr::Ite(c, a, b) => format!(
            "({} ? {} : {})",
            expr(c, names),
            expr(a, names),
            expr(b, names)
        ),
        Expr::Call(func, args) => {
            let name = match func {
                Func::Min => "min",
                Func::Max => "max",
                Func::Floor => "floor",
                Func::Ceil => "ceil",
                Func::Round => "round",
                Func::Pow => "pow",
                Func::Mod => "mod",
                Func::Log => "log",
            };
            let a: Vec<String> = args.iter().map(|x| expr(x, names)).collect();
            format!("{name}({})", a.join(", "))
        }
    }
}

/// How tightly an operator binds (PRISM's precedence: `=>`, `<=>` loosest, then `|`, `&`,
/// comparisons, `+ -`, `* /`).
fn prec(o: BinOp) -> u8 {
    match o {
        BinOp::Implies | BinOp::Iff => 1,
        BinOp::Or => 2,
        BinOp::And => 3,
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
        BinOp::Add | BinOp::Sub => 5,
        BinOp::Mul | BinOp::Div => 6,
    }
}

/// An operand: parenthesised when it is a binary expression binding less tightly than its
/// parent (or as tightly, unless the parent is `&`, `|`, `+` or `*` and `e` its left side).
fn operand(e: &Expr, parent: BinOp, left: bool, names: &[String]) -> String {
    match e {
        Expr::Bin(o, ..) => {
            let assoc = matches!(parent, BinOp::And | BinOp::Or | BinOp::Add | BinOp::Mul);
            if prec(*o) > prec(parent)
                || prec(*o) == prec(parent) && (left || assoc) && *o == parent
            {
                expr(e, names)
            } else {
                format!("({})", expr(e, names))
            }
        }
        _ => expr(e, names),
    }
}

/// An operand of a unary operator: parenthesised when it is a binary expression.
fn atom(e: &Expr, names: &[String]) -> String {
    match e {
        Expr::Bin(..) => format!("({})", expr(e, names)),
        _ => expr(e, names),
    }
}

fn csl(f: &Csl, names: &[String]) -> String {
    let sub = |g: &Csl| match g {
        Csl::Bin(..) => format!("({})", csl(g, names)),
        _ => csl(g, names),
    };
    match f {
        Csl::Expr(e) => expr(e, names),
        Csl::Init => "\"init\"".into(),
        Csl::Deadlock => "\"deadlock\"".into(),
        Csl::Not(a) => match &**a {
            Csl::Expr(Expr::Bin(..)) => format!("!({})", csl(a, names)),
            _ => format!("!{}", sub(a)),
        },
        Csl::Bin(o, a, b) => format!("{} {} {}", sub(a), op(*o), sub(b)),
        Csl::Until {
            bound: b,
            left,
            right,
        } => {
            format!("P{} [ {} U {} ]", bound(b), sub(left), sub(right))
        }
        Csl::TimedUntil {
            bound: b,
            left,
            right,
            lo,
            hi,
        } => format!(
            "P{} [ {} U[{lo},{hi}] {} ]",
            bound(b),
            sub(left),
            sub(right)
        ),
        Csl::Next { bound: b, phi } => format!("P{} [ X {} ]", bound(b), sub(phi)),
        Csl::Steady { bound: b, phi } => format!("S{} [ {} ]", bound(b), sub(phi)),
        Csl::Reward {
            bound: b,
            structure,
            path,
        } => {
            let p = match path {
                RewardPath::Steady => "S".to_string(),
                RewardPath::Reach(t) => format!("F {}", sub(t)),
                RewardPath::Total => "C".to_string(),
                RewardPath::Cumulative(t) => format!("C<={t}"),
                RewardPath::Instant(t) => format!("I={t}"),
            };
            format!("R{{{}}}{} [ {p} ]", structure + 1, bound(b))
        }
        Csl::Filter {
            op: o,
            prop,
            states,
        } => {
            let name = format!("{o:?}").to_lowercase();
            match states {
                Some(s) => format!("filter({name}, {}, {})", csl(prop, names), csl(s, names)),
                None => format!("filter({name}, {})", csl(prop, names)),
            }
        }
    }
}
