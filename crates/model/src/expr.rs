//! A small neutral expression language over model variables (what a PRISM guard, update or rate
//! needs once constants are substituted): integer / real / boolean literals, variables,
//! arithmetic, comparisons, boolean connectives, `ite`, `min`/`max`, `floor`/`ceil`/`round`,
//! `pow`, `mod`, `log`.
//!
//! Values follow PRISM's rules: `/` always gives a real, integer overflow is an error, `==`
//! between an integer and a real compares numerically. Variables hold integers; a boolean
//! variable is stored as 0/1 and read through [`Expr::BoolVar`].
//!
//! [`Expr::subst`] substitutes a value for one variable and folds constants, so repeated
//! substitution of the variables in level order leaves a *residual* expression that is a
//! canonical enough key for a memo (the encoder's Shannon expansion relies on it).

use std::collections::BTreeSet;
use std::fmt;

/// A real literal, stored by its bit pattern so that expressions can be hashed and compared.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Real(u64);

impl Real {
    pub fn new(x: f64) -> Real {
        // one zero and one NaN, so equal values are equal keys
        let x = if x == 0.0 { 0.0 } else { x };
        Real(if x.is_nan() {
            f64::NAN.to_bits()
        } else {
            x.to_bits()
        })
    }
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl fmt::Debug for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.get())
    }
}

/// A value: what an expression evaluates to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Real(f64),
    Bool(bool),
}

impl Value {
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) => Some(r),
            Value::Bool(_) => None,
        }
    }
    fn to_expr(self) -> Expr {
        match self {
            Value::Int(i) => Expr::Int(i),
            Value::Real(r) => Expr::Real(Real::new(r)),
            Value::Bool(b) => Expr::Bool(b),
        }
    }
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    And,
    Or,
    Implies,
    Iff,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Min,
    Max,
    Floor,
    Ceil,
    Round,
    Pow,
    Mod,
    Log,
}

/// An expression over model variables (by index into the model's variable list).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Int(i64),
    Real(Real),
    Bool(bool),
    /// An integer variable's value.
    Var(usize),
    /// A boolean variable (stored as 0 / 1).
    BoolVar(usize),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
}

/// Why an expression could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("type error: {0}")]
    Type(&'static str),
    #[error("integer overflow")]
    Overflow,
    #[error("division by zero")]
    DivByZero,
    #[error("{0}")]
    Domain(String),
}

fn num(v: Value) -> Result<f64, EvalError> {
    v.as_f64().ok_or(EvalError::Type("expected a number"))
}

fn boolean(v: Value) -> Result<bool, EvalError> {
    match v {
        Value::Bool(b) => Ok(b),
        _ => Err(EvalError::Type("expected a boolean")),
    }
}

fn to_int(d: f64) -> Result<i64, EvalError> {
    if d.is_finite() && d >= i64::MIN as f64 && d < i64::MAX as f64 {
        Ok(d as i64)
    } else {
        Err(EvalError::Domain(format!("{d} does not fit in an int")))
    }
}

/// Apply a binary operator to two values (PRISM's semantics).
pub fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, EvalError> {
    use Value::*;
    Ok(match op {
        BinOp::And => Bool(boolean(a)? && boolean(b)?),
        BinOp::Or => Bool(boolean(a)? || boolean(b)?),
        BinOp::Implies => Bool(!boolean(a)? || boolean(b)?),
        BinOp::Iff => Bool(boolean(a)? == boolean(b)?),
        BinOp::Eq | BinOp::Ne => {
            let eq = match (a, b) {
                (Bool(x), Bool(y)) => x == y,
                (Int(x), Int(y)) => x == y,
                _ => num(a)? == num(b)?,
            };
            Bool(eq == (op == BinOp::Eq))
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let ord = match (a, b) {
                (Int(x), Int(y)) => Some(x.cmp(&y)),
                _ => num(a)?.partial_cmp(&num(b)?),
            };
            let Some(ord) = ord else {
                return Ok(Bool(false));
            };
            Bool(match op {
                BinOp::Lt => ord.is_lt(),
                BinOp::Le => ord.is_le(),
                BinOp::Gt => ord.is_gt(),
                _ => ord.is_ge(),
            })
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul => match (a, b) {
            (Int(x), Int(y)) => Int(match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                _ => x.checked_mul(y),
            }
            .ok_or(EvalError::Overflow)?),
            _ => {
                let (x, y) = (num(a)?, num(b)?);
                Real(match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    _ => x * y,
                })
            }
        },
        BinOp::Div => {
            let (x, y) = (num(a)?, num(b)?);
            if y == 0.0 {
                return Err(EvalError::DivByZero);
            }
            Real(x / y)
        }
    })
}

/// Apply a built-in function (PRISM's semantics).
pub fn call(f: Func, args: &[Value]) -> Result<Value, EvalError> {
    use Value::*;
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(EvalError::Type("wrong number of arguments"))
        }
    };
    match f {
        Func::Min | Func::Max => {
            if args.is_empty() {
                return Err(EvalError::Type("wrong number of arguments"));
            }
            if args.iter().all(|v| matches!(v, Int(_))) {
                let it = args.iter().filter_map(|v| match v {
                    Int(i) => Some(*i),
                    _ => None,
                });
                let r = if f == Func::Min { it.min() } else { it.max() };
                Ok(Int(r.unwrap_or(0)))
            } else {
                let mut acc = num(args[0])?;
                for v in &args[1..] {
                    let x = num(*v)?;
                    acc = if f == Func::Min {
                        acc.min(x)
                    } else {
                        acc.max(x)
                    };
                }
                Ok(Real(acc))
            }
        }
        Func::Floor | Func::Ceil | Func::Round => {
            arity(1)?;
            let x = num(args[0])?;
            Ok(Int(to_int(match f {
                Func::Floor => x.floor(),
                Func::Ceil => x.ceil(),
                _ => (x + 0.5).floor(),
            })?))
        }
        Func::Pow => {
            arity(2)?;
            match (args[0], args[1]) {
                (Int(x), Int(y)) => {
                    if y < 0 {
                        return Err(EvalError::Domain("negative exponent in integer pow".into()));
                    }
                    let e = u32::try_from(y).map_err(|_| EvalError::Overflow)?;
                    x.checked_pow(e).map(Int).ok_or(EvalError::Overflow)
                }
                (a, b) => Ok(Real(num(a)?.powf(num(b)?))),
            }
        }
        Func::Mod => {
            arity(2)?;
            match (args[0], args[1]) {
                (Int(_), Int(0)) => Err(EvalError::DivByZero),
                (Int(x), Int(y)) => x.checked_rem_euclid(y).map(Int).ok_or(EvalError::Overflow),
                _ => Err(EvalError::Type("mod expects integers")),
            }
        }
        Func::Log => {
            arity(2)?;
            Ok(Real(num(args[0])?.ln() / num(args[1])?.ln()))
        }
    }
}

impl Expr {
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
    pub fn and(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::And, a, b)
    }
    #[allow(clippy::should_implement_trait)]
    pub fn mul(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Mul, a, b)
    }

    /// The literal value, if this is a literal.
    pub fn literal(&self) -> Option<Value> {
        match *self {
            Expr::Int(i) => Some(Value::Int(i)),
            Expr::Real(r) => Some(Value::Real(r.get())),
            Expr::Bool(b) => Some(Value::Bool(b)),
            _ => None,
        }
    }

    /// The value in the state `vals` (`vals[v]` is variable `v`).
    pub fn eval(&self, vals: &[i64]) -> Result<Value, EvalError> {
        Ok(match self {
            Expr::Int(i) => Value::Int(*i),
            Expr::Real(r) => Value::Real(r.get()),
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Var(v) => Value::Int(vals[*v]),
            Expr::BoolVar(v) => Value::Bool(vals[*v] != 0),
            Expr::Not(a) => Value::Bool(!boolean(a.eval(vals)?)?),
            Expr::Neg(a) => match a.eval(vals)? {
                Value::Int(i) => Value::Int(i.checked_neg().ok_or(EvalError::Overflow)?),
                Value::Real(r) => Value::Real(-r),
                Value::Bool(_) => return Err(EvalError::Type("expected a number")),
            },
            Expr::Bin(op, a, b) => {
                let x = a.eval(vals)?;
                // short circuits, as PRISM evaluates them
                match (op, x) {
                    (BinOp::And, Value::Bool(false)) => return Ok(Value::Bool(false)),
                    (BinOp::Or, Value::Bool(true)) => return Ok(Value::Bool(true)),
                    (BinOp::Implies, Value::Bool(false)) => return Ok(Value::Bool(true)),
                    _ => {}
                }
                binary(*op, x, b.eval(vals)?)?
            }
            Expr::Ite(c, t, e) => {
                if boolean(c.eval(vals)?)? {
                    t.eval(vals)?
                } else {
                    e.eval(vals)?
                }
            }
            Expr::Call(f, args) => {
                let vs = args
                    .iter()
                    .map(|a| a.eval(vals))
                    .collect::<Result<Vec<_>, _>>()?;
                call(*f, &vs)?
            }
        })
    }

    /// Add the variables this expression reads to `out`.
    pub fn support_into(&self, out: &mut BTreeSet<usize>) {
        match self {
            Expr::Int(_) | Expr::Real(_) | Expr::Bool(_) => {}
            Expr::Var(v) | Expr::BoolVar(v) => {
                out.insert(*v);
            }
            Expr::Not(a) | Expr::Neg(a) => a.support_into(out),
            Expr::Bin(_, a, b) => {
                a.support_into(out);
                b.support_into(out);
            }
            Expr::Ite(c, t, e) => {
                c.support_into(out);
                t.support_into(out);
                e.support_into(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.support_into(out)),
        }
    }

    /// The variables this expression reads.
    pub fn support(&self) -> BTreeSet<usize> {
        let mut s = BTreeSet::new();
        self.support_into(&mut s);
        s
    }

    /// Substitute `value` for variable `var` and fold constants. An evaluation error met while
    /// folding (overflow, division by zero) is returned, as evaluating in any state that has
    /// this value would give it.
    pub fn subst(&self, var: usize, value: i64) -> Result<Expr, EvalError> {
        self.subst_with(&|v| (v == var).then_some(value))
    }

    /// Substitute every variable `v` for which `f(v)` is `Some` and fold constants.
    pub fn subst_with(&self, f: &dyn Fn(usize) -> Option<i64>) -> Result<Expr, EvalError> {
        Ok(match self {
            Expr::Int(_) | Expr::Real(_) | Expr::Bool(_) => self.clone(),
            Expr::Var(v) => f(*v).map_or(Expr::Var(*v), Expr::Int),
            Expr::BoolVar(v) => f(*v).map_or(Expr::BoolVar(*v), |x| Expr::Bool(x != 0)),
            Expr::Not(a) => match a.subst_with(f)? {
                Expr::Bool(b) => Expr::Bool(!b),
                r => Expr::Not(Box::new(r)),
            },
            Expr::Neg(a) => {
                let r = a.subst_with(f)?;
                match r.literal() {
                    Some(_) => Expr::Neg(Box::new(r)).eval(&[])?.to_expr(),
                    None => Expr::Neg(Box::new(r)),
                }
            }
            Expr::Bin(op, a, b) => {
                let x = a.subst_with(f)?;
                match (op, x.literal()) {
                    (BinOp::And, Some(Value::Bool(false))) => return Ok(Expr::Bool(false)),
                    (BinOp::And, Some(Value::Bool(true))) => return b.subst_with(f),
                    (BinOp::Or, Some(Value::Bool(true))) => return Ok(Expr::Bool(true)),
                    (BinOp::Or, Some(Value::Bool(false))) => return b.subst_with(f),
                    (BinOp::Implies, Some(Value::Bool(false))) => return Ok(Expr::Bool(true)),
                    (BinOp::Implies, Some(Value::Bool(true))) => return b.subst_with(f),
                    _ => {}
                }
                let y = b.subst_with(f)?;
                match (x.literal(), y.literal()) {
                    (Some(p), Some(q)) => binary(*op, p, q)?.to_expr(),
                    (None, Some(Value::Bool(q))) if *op == BinOp::And => {
                        if q {
                            x
                        } else {
                            Expr::Bool(false)
                        }
                    }
                    (None, Some(Value::Bool(q))) if *op == BinOp::Or => {
                        if q {
                            Expr::Bool(true)
                        } else {
                            x
                        }
                    }
                    _ => Expr::bin(*op, x, y),
                }
            }
            Expr::Ite(c, t, e) => match c.subst_with(f)? {
                Expr::Bool(true) => t.subst_with(f)?,
                Expr::Bool(false) => e.subst_with(f)?,
                cc => Expr::Ite(
                    Box::new(cc),
                    Box::new(t.subst_with(f)?),
                    Box::new(e.subst_with(f)?),
                ),
            },
            Expr::Call(fun, args) => {
                let rs = args
                    .iter()
                    .map(|a| a.subst_with(f))
                    .collect::<Result<Vec<_>, _>>()?;
                let lits: Option<Vec<Value>> = rs.iter().map(Expr::literal).collect();
                match lits {
                    Some(vs) => call(*fun, &vs)?.to_expr(),
                    None => Expr::Call(*fun, rs),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Expr {
        Expr::Var(0)
    }
    fn y() -> Expr {
        Expr::Var(1)
    }

    #[test]
    fn eval_and_support() {
        // x + y <= 3
        let g = Expr::bin(BinOp::Le, Expr::bin(BinOp::Add, x(), y()), Expr::Int(3));
        assert_eq!(g.eval(&[1, 2]), Ok(Value::Bool(true)));
        assert_eq!(g.eval(&[2, 2]), Ok(Value::Bool(false)));
        assert_eq!(g.support(), [0, 1].into_iter().collect());
        let r = Expr::mul(Expr::Real(Real::new(0.5)), x());
        assert_eq!(r.eval(&[3, 0]), Ok(Value::Real(1.5)));
        assert_eq!(
            Expr::bin(BinOp::Div, x(), Expr::Int(0)).eval(&[1]),
            Err(EvalError::DivByZero)
        );
        assert_eq!(
            Expr::Call(Func::Mod, vec![Expr::Int(-1), Expr::Int(3)]).eval(&[]),
            Ok(Value::Int(2))
        );
    }

    #[test]
    fn subst_folds_and_agrees_with_eval() {
        let exprs = vec![
            Expr::bin(BinOp::Le, Expr::bin(BinOp::Add, x(), y()), Expr::Int(3)),
            Expr::and(
                Expr::Not(Box::new(Expr::BoolVar(0))),
                Expr::bin(BinOp::Gt, y(), Expr::Int(1)),
            ),
            Expr::Ite(
                Box::new(Expr::bin(BinOp::Eq, x(), y())),
                Box::new(Expr::Neg(Box::new(x()))),
                Box::new(Expr::Call(Func::Max, vec![x(), y(), Expr::Int(2)])),
            ),
            Expr::bin(
                BinOp::Mul,
                Expr::bin(BinOp::Div, x(), Expr::Int(2)),
                Expr::Call(Func::Floor, vec![Expr::Real(Real::new(1.5))]),
            ),
        ];
        for e in &exprs {
            for a in 0..3 {
                for b in 0..3 {
                    let full = e.eval(&[a, b]);
                    let r1 = e.subst(0, a).and_then(|r| r.subst(1, b));
                    let r2 = e.subst(1, b).and_then(|r| r.subst(0, a));
                    for r in [r1, r2] {
                        let r = r.unwrap();
                        assert!(r.support().is_empty(), "{r:?}");
                        assert_eq!(r.literal(), full.clone().ok(), "{e:?} at {a},{b}");
                    }
                }
            }
        }
    }
}
