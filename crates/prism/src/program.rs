//! The resolved, checked model: what a model-building engine translates.

use std::fmt;

use crate::ast::{ConstType, Expr, ModelType, Span};
use crate::consts::ConstOverrides;
use crate::diag::Source;

/// A constant value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Double(f64),
    Bool(bool),
}

impl Value {
    pub fn ty(&self) -> Type {
        match self {
            Value::Int(_) => Type::Int,
            Value::Double(_) => Type::Double,
            Value::Bool(_) => Type::Bool,
        }
    }
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Double(d) => Some(d),
            Value::Bool(_) => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }
    /// The literal expression for this value.
    pub fn to_expr(self, span: Span) -> Expr {
        use crate::ast::ExprKind;
        Expr::new(
            match self {
                Value::Int(i) => ExprKind::Int(i),
                Value::Double(d) => ExprKind::Double(d),
                Value::Bool(b) => ExprKind::Bool(b),
            },
            span,
        )
    }
    /// The value of a literal expression.
    pub fn of_expr(e: &Expr) -> Option<Value> {
        use crate::ast::ExprKind;
        match e.kind {
            ExprKind::Int(i) => Some(Value::Int(i)),
            ExprKind::Double(d) => Some(Value::Double(d)),
            ExprKind::Bool(b) => Some(Value::Bool(b)),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(i) => write!(f, "{i}"),
            Value::Double(d) => write!(f, "{d:?}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// Type of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Bool,
    Int,
    Double,
    /// A path formula (only inside `P`, `E`, `A`).
    Path,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Bool => "bool",
            Type::Int => "int",
            Type::Double => "double",
            Type::Path => "path formula",
        }
    }
    pub fn is_numeric(self) -> bool {
        matches!(self, Type::Int | Type::Double)
    }
    pub fn of_const(t: ConstType) -> Type {
        match t {
            ConstType::Int => Type::Int,
            ConstType::Double => Type::Double,
            ConstType::Bool => Type::Bool,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub name: String,
    pub ty: ConstType,
    /// Known value (defined, computed or supplied with `--const`); `None` = undefined.
    pub value: Option<Value>,
    /// The definition, resolved (refers to undefined constants by index), if any.
    pub definition: Option<Expr>,
    /// Value came from [`ConstOverrides`].
    pub overridden: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum VarKind {
    Bool,
    /// Bounded integer `[lo..hi]` (resolved expressions; literals when constants are known).
    Int {
        lo: Expr,
        hi: Expr,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub kind: VarKind,
    /// `(lo, hi)` when both bounds are known.
    pub bounds: Option<(i64, i64)>,
    /// Initial value (default: lower bound / `false`); `None` when an `init ... endinit`
    /// block gives the initial states.
    pub init: Option<Expr>,
    /// Owning module, `None` for a `global` variable.
    pub module: Option<usize>,
    pub span: Span,
}

impl Variable {
    pub fn ty(&self) -> Type {
        match self.kind {
            VarKind::Bool => Type::Bool,
            VarKind::Int { .. } => Type::Int,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    /// Probability (dtmc/mdp) or rate (ctmc); `1` when omitted.
    pub prob: Expr,
    /// `(variable index, new value)`; empty = `true` (no change).
    pub assigns: Vec<(usize, Expr)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// Action index into [`Program::actions`], `None` for `[]`.
    pub action: Option<usize>,
    pub guard: Expr,
    pub updates: Vec<Update>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub name: String,
    /// Indices into [`Program::variables`].
    pub vars: Vec<usize>,
    pub commands: Vec<Command>,
    /// Synchronisation alphabet: action indices used by the commands, sorted.
    pub alphabet: Vec<usize>,
    /// For a renamed copy, the module it was copied from.
    pub renamed_from: Option<String>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub name: String,
    pub expr: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub name: String,
    /// The definition as written (formulas are inlined everywhere they are used).
    pub expr: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StateReward {
    pub guard: Expr,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TransReward {
    /// Action index, `None` for `[]`.
    pub action: Option<usize>,
    pub guard: Expr,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RewardStruct {
    pub name: Option<String>,
    pub state: Vec<StateReward>,
    pub trans: Vec<TransReward>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParKind {
    /// `||`: synchronise on shared actions
    Full,
    /// `|||`
    Interleave,
    /// `|[a,b]|` (action indices)
    Sync(Vec<usize>),
}

/// Resolved `system ... endsystem`.
#[derive(Clone, Debug, PartialEq)]
pub enum System {
    Module(usize),
    Par(ParKind, Box<System>, Box<System>),
    Hide(Box<System>, Vec<usize>),
    /// `(from, to)` action pairs
    Rename(Box<System>, Vec<(usize, usize)>),
}

/// A checked PRISM model.
#[derive(Clone, Debug)]
pub struct Program {
    pub model_type: ModelType,
    /// `false` when the file had no model type keyword (PRISM then assumes `mdp`).
    pub model_type_declared: bool,
    pub constants: Vec<Constant>,
    /// Global variables first, then each module's in module order.
    pub variables: Vec<Variable>,
    pub modules: Vec<Module>,
    /// Action names (index = action id).
    pub actions: Vec<String>,
    pub formulas: Vec<Formula>,
    pub labels: Vec<Label>,
    pub rewards: Vec<RewardStruct>,
    /// `init ... endinit`
    pub init: Option<Expr>,
    /// `system ... endsystem`; `None` = full parallel composition of all modules in order.
    pub system: Option<System>,
    /// The constant values this program was checked with (also used for property files).
    pub overrides: ConstOverrides,
    pub source: Source,
}

impl Program {
    pub fn constant(&self, name: &str) -> Option<&Constant> {
        self.constants.iter().find(|c| c.name == name)
    }
    pub fn variable_index(&self, name: &str) -> Option<usize> {
        self.variables.iter().position(|v| v.name == name)
    }
    pub fn action_index(&self, name: &str) -> Option<usize> {
        self.actions.iter().position(|a| a == name)
    }
    pub fn label(&self, name: &str) -> Option<&Label> {
        self.labels.iter().find(|l| l.name == name)
    }
    /// Names of constants left undefined.
    pub fn undefined_constants(&self) -> Vec<&str> {
        self.constants
            .iter()
            .filter(|c| c.value.is_none())
            .map(|c| c.name.as_str())
            .collect()
    }
    /// Reward structure by name.
    pub fn reward_index(&self, name: &str) -> Option<usize> {
        self.rewards
            .iter()
            .position(|r| r.name.as_deref() == Some(name))
    }
    /// Print a resolved system composition.
    pub fn system_to_string(&self, s: &System) -> String {
        let mut out = String::new();
        self.write_system(&mut out, s, false);
        out
    }
    fn write_system(&self, out: &mut String, s: &System, paren: bool) {
        let act = |i: &usize| self.actions.get(*i).cloned().unwrap_or_default();
        match s {
            System::Module(m) => {
                out.push_str(self.modules.get(*m).map_or("?", |m| m.name.as_str()))
            }
            System::Par(k, l, r) => {
                if paren {
                    out.push('(');
                }
                self.write_system(out, l, matches!(**l, System::Par(ref k2, ..) if k2 != k));
                match k {
                    ParKind::Full => out.push_str(" || "),
                    ParKind::Interleave => out.push_str(" ||| "),
                    ParKind::Sync(a) => {
                        out.push_str(" |[");
                        out.push_str(&a.iter().map(act).collect::<Vec<_>>().join(", "));
                        out.push_str("]| ");
                    }
                }
                self.write_system(out, r, matches!(**r, System::Par(..)));
                if paren {
                    out.push(')');
                }
            }
            System::Hide(e, a) => {
                self.write_system(out, e, matches!(**e, System::Par(..)));
                out.push_str(" / {");
                out.push_str(&a.iter().map(act).collect::<Vec<_>>().join(", "));
                out.push('}');
            }
            System::Rename(e, pairs) => {
                self.write_system(out, e, matches!(**e, System::Par(..)));
                out.push_str(" {");
                out.push_str(
                    &pairs
                        .iter()
                        .map(|(a, b)| format!("{} <- {}", act(a), act(b)))
                        .collect::<Vec<_>>()
                        .join(", "),
                );
                out.push('}');
            }
        }
    }
}
