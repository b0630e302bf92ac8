//! Lowering a checked [`Program`] to Saturn's neutral [`GeneralModel`].
//!
//! PRISM's semantics for `ctmc` / `dtmc` programs: every command of a module with an unnamed
//! action `[]` and every one of its updates is one event. A named action `a` is synchronised
//! across the parallel composition: with the default system (full parallel composition of all
//! modules, `||`), the modules whose alphabet contains `a` take part (a module that never
//! mentions `a` does not block it); one event per combination of one command-and-update of every
//! participant, guard the conjunction, rate the product, assignments the union. `|||`
//! interleaves, `|[a,b]|` synchronises on the listed actions only, `/{a}` hides (the action is
//! then unnamed), `{a<-b}` renames. Formulas are already inlined and renamed modules copied by
//! the checker; constants are folded.

use std::collections::BTreeSet;

use saturn_model::expr::{BinOp as B, Expr as E, Func as F, Real};
use saturn_model::{GenEvent, GeneralModel, Init, Var};

use crate::ast::{BinOp, Expr, ExprKind, Func, ModelType, Span, UnOp};
use crate::program::{ParKind, Program, System, VarKind};

/// Why a program cannot be lowered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error("{location}: {message}")]
    At { location: String, message: String },
    #[error("{0}")]
    Model(String),
}

/// One command-and-update (or a synchronised product of several) with its action.
#[derive(Clone)]
struct Piece {
    action: Option<usize>,
    guards: Vec<E>,
    rates: Vec<E>,
    assigns: Vec<(usize, E)>,
    names: Vec<String>,
    locations: Vec<String>,
}

struct Lowerer<'a> {
    prog: &'a Program,
}

impl Lowerer<'_> {
    fn location(&self, span: Span) -> String {
        let (l, c) = self.prog.source.line_col(span.start);
        format!("{}:{l}:{c}", self.prog.source.name)
    }

    fn err(&self, span: Span, message: impl Into<String>) -> LowerError {
        LowerError::At {
            location: self.location(span),
            message: message.into(),
        }
    }

    fn expr(&self, e: &Expr) -> Result<E, LowerError> {
        Ok(match &e.kind {
            ExprKind::Bool(b) => E::Bool(*b),
            ExprKind::Int(i) => E::Int(*i),
            ExprKind::Double(d) => E::Real(Real::new(*d)),
            ExprKind::Var { index, .. } => match self.prog.variables[*index].kind {
                VarKind::Bool => E::BoolVar(*index),
                VarKind::Int { .. } => E::Var(*index),
            },
            ExprKind::Const { name, .. } => {
                return Err(self.err(
                    e.span,
                    format!(
                        "constant '{name}' is undefined (give it a value with --const {name}=...)"
                    ),
                ))
            }
            ExprKind::Unary(UnOp::Not, a) => E::Not(Box::new(self.expr(a)?)),
            ExprKind::Unary(UnOp::Neg, a) => E::Neg(Box::new(self.expr(a)?)),
            ExprKind::Binary(op, a, b) => E::bin(bin_op(*op), self.expr(a)?, self.expr(b)?),
            ExprKind::Ite(c, t, f) => E::Ite(
                Box::new(self.expr(c)?),
                Box::new(self.expr(t)?),
                Box::new(self.expr(f)?),
            ),
            ExprKind::Call(f, args) => {
                let f = match f {
                    Func::Min => F::Min,
                    Func::Max => F::Max,
                    Func::Floor => F::Floor,
                    Func::Ceil => F::Ceil,
                    Func::Round => F::Round,
                    Func::Pow => F::Pow,
                    Func::Mod => F::Mod,
                    Func::Log => F::Log,
                };
                E::Call(
                    f,
                    args.iter()
                        .map(|a| self.expr(a))
                        .collect::<Result<_, _>>()?,
                )
            }
            _ => return Err(self.err(e.span, "this expression cannot appear in a model")),
        })
    }

    /// The pieces of one module: one per command and update.
    fn module(&self, m: usize) -> Result<Vec<Piece>, LowerError> {
        let module = &self.prog.modules[m];
        let mut out = Vec::new();
        for (ci, c) in module.commands.iter().enumerate() {
            let guard = self.expr(&c.guard)?;
            for (ui, u) in c.updates.iter().enumerate() {
                let mut assigns = Vec::with_capacity(u.assigns.len());
                for (v, x) in &u.assigns {
                    let mut x = self.expr(x)?;
                    if matches!(self.prog.variables[*v].kind, VarKind::Bool) {
                        x = E::Ite(Box::new(x), Box::new(E::Int(1)), Box::new(E::Int(0)));
                    }
                    assigns.push((*v, x));
                }
                let name = match c.action {
                    Some(a) => format!("[{}] {}#{}", self.prog.actions[a], module.name, ci + 1),
                    None => format!("[] {}#{}", module.name, ci + 1),
                };
                let name = if c.updates.len() > 1 {
                    format!("{name}.{}", ui + 1)
                } else {
                    name
                };
                out.push(Piece {
                    action: c.action,
                    guards: vec![guard.clone()],
                    rates: vec![self.expr(&u.prob)?],
                    assigns,
                    names: vec![name],
                    locations: vec![self.location(u.span)],
                });
            }
        }
        Ok(out)
    }

    /// The pieces and alphabet of a system term.
    fn system(&self, s: &System) -> Result<(Vec<Piece>, BTreeSet<usize>), LowerError> {
        Ok(match s {
            System::Module(m) => (
                self.module(*m)?,
                self.prog.modules[*m].alphabet.iter().copied().collect(),
            ),
            System::Par(kind, l, r) => {
                let (lp, la) = self.system(l)?;
                let (rp, ra) = self.system(r)?;
                let sync: BTreeSet<usize> = match kind {
                    ParKind::Full => la.intersection(&ra).copied().collect(),
                    ParKind::Interleave => BTreeSet::new(),
                    ParKind::Sync(acts) => acts.iter().copied().collect(),
                };
                let in_sync = |p: &Piece| p.action.is_some_and(|a| sync.contains(&a));
                let mut out: Vec<Piece> = lp.iter().filter(|p| !in_sync(p)).cloned().collect();
                out.extend(rp.iter().filter(|p| !in_sync(p)).cloned());
                for &a in &sync {
                    for x in lp.iter().filter(|p| p.action == Some(a)) {
                        for y in rp.iter().filter(|p| p.action == Some(a)) {
                            out.push(self.product(x, y)?);
                        }
                    }
                }
                (out, la.union(&ra).copied().collect())
            }
            System::Hide(e, acts) => {
                let (mut ps, mut alpha) = self.system(e)?;
                for p in &mut ps {
                    if p.action.is_some_and(|a| acts.contains(&a)) {
                        p.action = None;
                    }
                }
                alpha.retain(|a| !acts.contains(a));
                (ps, alpha)
            }
            System::Rename(e, pairs) => {
                let (mut ps, alpha) = self.system(e)?;
                let map = |a: usize| pairs.iter().find(|p| p.0 == a).map_or(a, |p| p.1);
                for p in &mut ps {
                    p.action = p.action.map(map);
                }
                (ps, alpha.into_iter().map(map).collect())
            }
        })
    }

    fn product(&self, x: &Piece, y: &Piece) -> Result<Piece, LowerError> {
        let mut p = x.clone();
        for (v, e) in &y.assigns {
            if p.assigns.iter().any(|(w, _)| w == v) {
                return Err(LowerError::At {
                    location: y.locations[0].clone(),
                    message: format!(
                        "variable '{}' is updated by more than one module synchronising on '{}'",
                        self.prog.variables[*v].name,
                        p.action.map_or("", |a| self.prog.actions[a].as_str())
                    ),
                });
            }
            p.assigns.push((*v, e.clone()));
        }
        p.guards.extend(y.guards.iter().cloned());
        p.rates.extend(y.rates.iter().cloned());
        p.names.extend(y.names.iter().cloned());
        p.locations.extend(y.locations.iter().cloned());
        Ok(p)
    }
}

/// The neutral model's binary operator for a PRISM one.
pub fn bin_op(op: BinOp) -> B {
    match op {
        BinOp::Implies => B::Implies,
        BinOp::Iff => B::Iff,
        BinOp::Or => B::Or,
        BinOp::And => B::And,
        BinOp::Eq => B::Eq,
        BinOp::Ne => B::Ne,
        BinOp::Lt => B::Lt,
        BinOp::Le => B::Le,
        BinOp::Gt => B::Gt,
        BinOp::Ge => B::Ge,
        BinOp::Add => B::Add,
        BinOp::Sub => B::Sub,
        BinOp::Mul => B::Mul,
        BinOp::Div => B::Div,
    }
}

/// Lower a checked `ctmc` or `dtmc` program to a [`GeneralModel`] (variables in the program's
/// order: globals first, then each module's).
pub fn lower(prog: &Program) -> Result<GeneralModel, LowerError> {
    lower_with_actions(prog).map(|(m, _)| m)
}

/// Lower an expression of the program (or of a property: variables, literals, operators; no
/// labels or property operators) to the neutral model's expression.
pub fn lower_expr(prog: &Program, e: &Expr) -> Result<E, LowerError> {
    Lowerer { prog }.expr(e)
}

/// [`lower`], with the action of each event (index into `Program::actions`, after hiding and
/// renaming; `None` for unlabelled ones), as transition rewards need.
pub fn lower_with_actions(
    prog: &Program,
) -> Result<(GeneralModel, Vec<Option<usize>>), LowerError> {
    if prog.model_type == ModelType::Mdp {
        return Err(LowerError::Model(
            "only ctmc and dtmc models are supported (this is an mdp)".into(),
        ));
    }
    let lw = Lowerer { prog };
    let mut vars = Vec::with_capacity(prog.variables.len());
    for v in &prog.variables {
        let (low, high, is_bool) = match v.kind {
            VarKind::Bool => (0, 1, true),
            VarKind::Int { .. } => match v.bounds {
                Some((lo, hi)) if lo <= hi => (lo, hi, false),
                Some((lo, hi)) => {
                    return Err(lw.err(
                        v.span,
                        format!("variable '{}' has an empty range [{lo}..{hi}]", v.name),
                    ))
                }
                None => {
                    return Err(lw.err(
                        v.span,
                        format!(
                            "the range of variable '{}' uses an undefined constant",
                            v.name
                        ),
                    ))
                }
            },
        };
        if high
            .checked_sub(low)
            .is_none_or(|d| d >= u32::MAX as i64 - 1)
        {
            return Err(lw.err(
                v.span,
                format!("the range of variable '{}' is too large", v.name),
            ));
        }
        vars.push(Var {
            name: v.name.clone(),
            low,
            high,
            is_bool,
        });
    }
    let init = match &prog.init {
        Some(e) => Init::Pred(lw.expr(e)?),
        None => {
            let mut s = Vec::with_capacity(vars.len());
            for (v, var) in prog.variables.iter().zip(&vars) {
                let x = match &v.init {
                    None => var.low,
                    Some(e) => {
                        let le = lw.expr(e)?;
                        match le.eval(&[]) {
                            Ok(saturn_model::expr::Value::Int(i)) => i,
                            Ok(saturn_model::expr::Value::Bool(b)) => b as i64,
                            _ => {
                                return Err(lw.err(
                                    e.span,
                                    format!("bad initial value for variable '{}'", v.name),
                                ))
                            }
                        }
                    }
                };
                if x < var.low || x > var.high {
                    return Err(lw.err(
                        v.span,
                        format!(
                            "initial value {x} of variable '{}' is out of range [{}..{}]",
                            v.name, var.low, var.high
                        ),
                    ));
                }
                s.push(x);
            }
            Init::State(s)
        }
    };
    let system = match &prog.system {
        Some(s) => s.clone(),
        None => {
            let mut it = (0..prog.modules.len()).map(System::Module);
            let first = it
                .next()
                .ok_or_else(|| LowerError::Model("the model has no modules".into()))?;
            it.fold(first, |acc, m| {
                System::Par(ParKind::Full, Box::new(acc), Box::new(m))
            })
        }
    };
    let (pieces, _) = lw.system(&system)?;
    let actions = pieces.iter().map(|p| p.action).collect();
    let events = pieces
        .into_iter()
        .map(|p| {
            let mut guards = p.guards.into_iter();
            let first = guards.next().unwrap_or(E::Bool(true));
            GenEvent {
                name: p.names.join(" || "),
                location: p.locations.join(", "),
                guard: guards.fold(first, E::and),
                rates: p.rates,
                assigns: p.assigns,
            }
        })
        .collect();
    Ok((GeneralModel { vars, events, init }, actions))
}
