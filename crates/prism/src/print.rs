//! Canonical text syntax for every tree (`Display`). `parse(print(x)) == x`.
//!
//! Binding strength, loosest first: 0 `U W R` (temporal binary), 1 `X F G` (temporal unary),
//! 2 `? :`, 3 `=>`, 4 `<=>`, 5 `|`, 6 `&`, 7 `!`, 8 `= !=`, 9 `< <= > >=`, 10 `+ -`,
//! 11 `* /`, 12 unary `-`, 13 literals, names, calls, `P`/`S`/`R`/`filter`, parentheses.

use std::fmt::{self, Display, Formatter, Write};

use crate::ast::*;

fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Temporal(t) => {
            if t.op.is_binary() {
                0
            } else {
                1
            }
        }
        ExprKind::Ite(..) => 2,
        ExprKind::Binary(op, ..) => op.level(),
        ExprKind::Unary(UnOp::Not, _) => 7,
        ExprKind::Unary(UnOp::Neg, _) => 12,
        ExprKind::Int(i) if *i < 0 => 12,
        ExprKind::Double(d) if d.is_sign_negative() => 12,
        _ => 13,
    }
}

/// Write `e` so that it parses back as an operand of strength `min`.
fn write_at(f: &mut Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    if level(e) < min {
        f.write_char('(')?;
        write_expr(f, e)?;
        f.write_char(')')
    } else {
        write_expr(f, e)
    }
}

fn write_double(f: &mut Formatter<'_>, d: f64) -> fmt::Result {
    if d.is_nan() {
        f.write_str("(0.0/0.0)")
    } else if d.is_infinite() {
        f.write_str(if d > 0.0 { "(1.0/0.0)" } else { "(-1.0/0.0)" })
    } else {
        // Debug always shows a `.` or an exponent, and round-trips exactly.
        write!(f, "{d:?}")
    }
}

fn write_query(f: &mut Formatter<'_>, q: &Query) -> fmt::Result {
    match q {
        Query::Value => f.write_str("=?"),
        Query::Bound(op, e) => {
            f.write_str(op.symbol())?;
            write_at(f, e, 13)
        }
    }
}

fn write_old_filter(f: &mut Formatter<'_>, of: &Option<OldFilter>) -> fmt::Result {
    if let Some(of) = of {
        f.write_str(" {")?;
        write_expr(f, &of.states)?;
        f.write_char('}')?;
        if of.min {
            f.write_str("{min}")?;
        }
        if of.max {
            f.write_str("{max}")?;
        }
    }
    Ok(())
}

fn write_bound(f: &mut Formatter<'_>, b: &TimeBound) -> fmt::Result {
    let (sym, e) = match b {
        TimeBound::None => return Ok(()),
        TimeBound::Interval(a, b) => {
            f.write_char('[')?;
            write_at(f, a, 2)?;
            f.write_str(", ")?;
            write_at(f, b, 2)?;
            return f.write_char(']');
        }
        TimeBound::Le(e) => ("<=", e),
        TimeBound::Lt(e) => ("<", e),
        TimeBound::Ge(e) => (">=", e),
        TimeBound::Gt(e) => (">", e),
        TimeBound::Eq(e) => ("=", e),
    };
    f.write_str(sym)?;
    write_at(f, e, 13)
}

fn write_list<T>(
    f: &mut Formatter<'_>,
    items: &[T],
    mut w: impl FnMut(&mut Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        w(f, x)?;
    }
    Ok(())
}

/// Does the printed form of `e` start with `-`?
fn starts_with_minus(e: &Expr) -> bool {
    let mut e = e;
    loop {
        if level(e) < 1 {
            return false; // parenthesised
        }
        match &e.kind {
            ExprKind::Unary(UnOp::Neg, _) => return true,
            ExprKind::Int(i) => return *i < 0,
            ExprKind::Double(d) => return d.is_sign_negative(),
            ExprKind::Binary(_, a, _) => e = a,
            ExprKind::Ite(c, ..) => e = c,
            ExprKind::Temporal(t) => match &t.left {
                Some(l) => e = l,
                None => return false,
            },
            _ => return false,
        }
    }
}

fn write_expr(f: &mut Formatter<'_>, e: &Expr) -> fmt::Result {
    match &e.kind {
        ExprKind::Bool(b) => write!(f, "{b}"),
        ExprKind::Int(i) => write!(f, "{i}"),
        ExprKind::Double(d) => write_double(f, *d),
        ExprKind::Ident(n) | ExprKind::Var { name: n, .. } | ExprKind::Const { name: n, .. } => {
            f.write_str(n)
        }
        ExprKind::Label(n) | ExprKind::PropRef { name: n, .. } => write!(f, "\"{n}\""),
        ExprKind::Unary(UnOp::Not, a) => {
            f.write_char('!')?;
            write_at(f, a, 7)
        }
        ExprKind::Unary(UnOp::Neg, a) => {
            f.write_char('-')?;
            write_at(f, a, 12)
        }
        ExprKind::Binary(op, a, b) => {
            write_at(f, a, op.level())?;
            write!(f, " {} ", op.symbol())?;
            write_at(f, b, op.level() + 1)
        }
        ExprKind::Ite(c, t, el) => {
            write_at(f, c, 3)?;
            f.write_str(" ? ")?;
            write_at(f, t, 3)?;
            f.write_str(" : ")?;
            write_at(f, el, 2)
        }
        ExprKind::Call(func, args) => {
            write!(f, "{}(", func.name())?;
            write_list(f, args, write_expr)?;
            f.write_char(')')
        }
        ExprKind::Prob(p) => {
            f.write_str(match p.minmax {
                MinMax::None => "P",
                MinMax::Min => "Pmin",
                MinMax::Max => "Pmax",
            })?;
            write_query(f, &p.query)?;
            f.write_str(" [ ")?;
            write_expr(f, &p.path)?;
            write_old_filter(f, &p.filter)?;
            f.write_str(" ]")
        }
        ExprKind::Steady(s) => {
            f.write_str("S")?;
            write_query(f, &s.query)?;
            f.write_str(" [ ")?;
            write_expr(f, &s.expr)?;
            write_old_filter(f, &s.filter)?;
            f.write_str(" ]")
        }
        ExprKind::Reward(r) => {
            f.write_str("R")?;
            match &r.index {
                None => {}
                Some(RewardIndex::Name(n)) => write!(f, "{{\"{n}\"}}")?,
                Some(RewardIndex::Index(e)) => {
                    f.write_char('{')?;
                    write_at(f, e, 2)?;
                    f.write_char('}')?;
                }
            }
            f.write_str(match r.minmax {
                MinMax::None => "",
                MinMax::Min => "min",
                MinMax::Max => "max",
            })?;
            write_query(f, &r.query)?;
            f.write_str(" [ ")?;
            match &r.path {
                RewardPath::Cumulative(None) => f.write_str("C")?,
                RewardPath::Cumulative(Some(e)) => {
                    f.write_str("C<=")?;
                    write_at(f, e, 13)?;
                }
                RewardPath::Instant(e) => {
                    f.write_str("I=")?;
                    write_at(f, e, 13)?;
                }
                RewardPath::Reach(e) => {
                    f.write_str("F ")?;
                    write_at(f, e, 2)?;
                }
                RewardPath::Steady => f.write_str("S")?,
            }
            write_old_filter(f, &r.filter)?;
            f.write_str(" ]")
        }
        ExprKind::Temporal(t) => {
            if let Some(l) = &t.left {
                write_at(f, l, 1)?;
                f.write_char(' ')?;
            }
            f.write_str(t.op.symbol())?;
            write_bound(f, &t.bound)?;
            f.write_char(' ')?;
            if t.bound != TimeBound::None && starts_with_minus(&t.right) {
                // `F<=t -x>0` would read as `F<=(t-x) > 0`
                f.write_char('(')?;
                write_expr(f, &t.right)?;
                f.write_char(')')
            } else {
                write_at(f, &t.right, 1)
            }
        }
        ExprKind::PathQuant(q, p) => {
            f.write_str(match q {
                PathQuant::Exists => "E [ ",
                PathQuant::Forall => "A [ ",
            })?;
            write_expr(f, p)?;
            f.write_str(" ]")
        }
        ExprKind::Filter(fl) => {
            write!(f, "filter({}, ", fl.op.name())?;
            write_expr(f, &fl.prop)?;
            if let Some(s) = &fl.states {
                f.write_str(", ")?;
                write_expr(f, s)?;
            }
            f.write_char(')')
        }
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_expr(f, self)
    }
}

impl Display for Ident {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl Display for ConstDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "const {} {}", self.ty.name(), self.name)?;
        if let Some(v) = &self.value {
            write!(f, " = {v}")?;
        }
        f.write_char(';')
    }
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} : ", self.name)?;
        match &self.ty {
            VarType::Range(lo, hi) => write!(f, "[{lo}..{hi}]")?,
            VarType::Bool => f.write_str("bool")?,
            VarType::Int => f.write_str("int")?,
            VarType::Clock => f.write_str("clock")?,
        }
        if let Some(i) = &self.init {
            write!(f, " init {i}")?;
        }
        f.write_char(';')
    }
}

impl Display for Update {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.prob {
            let text = p.to_string();
            if text.starts_with("true") {
                // `true + ...` would read as the update `true` followed by another branch
                write!(f, "({text}) : ")?;
            } else {
                write!(f, "{text} : ")?;
            }
        }
        if self.assigns.is_empty() {
            return f.write_str("true");
        }
        for (i, a) in self.assigns.iter().enumerate() {
            if i > 0 {
                f.write_str(" & ")?;
            }
            write!(f, "({}' = {})", a.var, a.value)?;
        }
        Ok(())
    }
}

impl Display for Command {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.action {
            Some(a) => write!(f, "[{a}] ")?,
            None => f.write_str("[] ")?,
        }
        write!(f, "{} -> ", self.guard)?;
        for (i, u) in self.updates.iter().enumerate() {
            if i > 0 {
                f.write_str(" + ")?;
            }
            write!(f, "{u}")?;
        }
        f.write_char(';')
    }
}

impl Display for Module {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, "module {}", self.name)?;
        for v in &self.vars {
            writeln!(f, "\t{v}")?;
        }
        if !self.vars.is_empty() && !self.commands.is_empty() {
            writeln!(f)?;
        }
        for c in &self.commands {
            writeln!(f, "\t{c}")?;
        }
        f.write_str("endmodule")
    }
}

impl Display for RenamedModule {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "module {} = {} [", self.name, self.base)?;
        write_list(f, &self.renames, |f, (a, b)| write!(f, "{a} = {b}"))?;
        f.write_str("] endmodule")
    }
}

impl Display for RewardItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.action {
            None => {}
            Some(None) => f.write_str("[] ")?,
            Some(Some(a)) => write!(f, "[{a}] ")?,
        }
        write!(f, "{} : {};", self.guard, self.value)
    }
}

impl Display for RewardStruct {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("rewards")?;
        if let Some(n) = &self.name {
            write!(f, " \"{n}\"")?;
        }
        f.write_char('\n')?;
        for i in &self.items {
            writeln!(f, "\t{i}")?;
        }
        f.write_str("endrewards")
    }
}

fn sys_is_par(e: &SystemExpr) -> bool {
    matches!(e.kind, SystemKind::Par(..))
}

fn write_sys_at(f: &mut Formatter<'_>, e: &SystemExpr, paren: bool) -> fmt::Result {
    if paren {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

impl Display for SystemExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SystemKind::Module(m) => write!(f, "{m}"),
            SystemKind::Par(op, l, r) => {
                let same = |e: &SystemExpr| matches!(&e.kind, SystemKind::Par(o, ..) if o == op);
                write_sys_at(f, l, sys_is_par(l) && !same(l))?;
                match op {
                    ParOp::Full => f.write_str(" || ")?,
                    ParOp::Interleave => f.write_str(" ||| ")?,
                    ParOp::Sync(acts) => {
                        f.write_str(" |[")?;
                        write_list(f, acts, |f, a| write!(f, "{a}"))?;
                        f.write_str("]| ")?;
                    }
                }
                write_sys_at(f, r, sys_is_par(r))
            }
            SystemKind::Hide(e, acts) => {
                write_sys_at(f, e, sys_is_par(e))?;
                f.write_str(" / {")?;
                write_list(f, acts, |f, a| write!(f, "{a}"))?;
                f.write_char('}')
            }
            SystemKind::Rename(e, pairs) => {
                write_sys_at(f, e, sys_is_par(e))?;
                f.write_str(" {")?;
                write_list(f, pairs, |f, (a, b)| write!(f, "{a} <- {b}"))?;
                f.write_char('}')
            }
        }
    }
}

impl Display for FormulaDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "formula {} = {};", self.name, self.expr)
    }
}

impl Display for LabelDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "label \"{}\" = {};", self.name, self.expr)
    }
}

impl Display for Item {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Item::ModelType(t, _) => f.write_str(t.name()),
            Item::Const(c) => write!(f, "{c}"),
            Item::Global(v) => write!(f, "global {v}"),
            Item::Formula(x) => write!(f, "{x}"),
            Item::Label(l) => write!(f, "{l}"),
            Item::Module(m) => write!(f, "{m}"),
            Item::Renamed(m) => write!(f, "{m}"),
            Item::Rewards(r) => write!(f, "{r}"),
            Item::Init(e, _) => write!(f, "init\n\t{e}\nendinit"),
            Item::System(s, _) => write!(f, "system\n\t{s}\nendsystem"),
        }
    }
}

impl Display for ModelFile {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, it) in self.items.iter().enumerate() {
            if i > 0 {
                f.write_char('\n')?;
            }
            writeln!(f, "{it}")?;
        }
        Ok(())
    }
}

impl Display for Property {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(n) = &self.name {
            write!(f, "\"{n}\": ")?;
        }
        // a bare temporal formula needs parentheses at the top of a property
        write_at(f, &self.expr, 2)
    }
}

impl Display for PropItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            PropItem::Const(c) => write!(f, "{c}"),
            PropItem::Label(l) => write!(f, "{l}"),
            PropItem::Formula(x) => write!(f, "{x}"),
            PropItem::Property(p) => write!(f, "{p};"),
        }
    }
}

impl Display for PropertiesFile {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for it in &self.items {
            writeln!(f, "{it}")?;
        }
        Ok(())
    }
}
