//! Constant folding with PRISM's semantics (int `/` gives double, overflow is an error).

use crate::ast::{BinOp, Func, UnOp};
use crate::program::Value;

fn num(v: Value) -> Result<f64, String> {
    v.as_f64().ok_or_else(|| "expected a number".to_string())
}

fn boolean(v: Value) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| "expected a boolean".to_string())
}

fn overflow() -> String {
    "integer overflow".to_string()
}

pub fn unary(op: UnOp, a: Value) -> Result<Value, String> {
    match (op, a) {
        (UnOp::Not, v) => Ok(Value::Bool(!boolean(v)?)),
        (UnOp::Neg, Value::Int(i)) => i.checked_neg().map(Value::Int).ok_or_else(overflow),
        (UnOp::Neg, Value::Double(d)) => Ok(Value::Double(-d)),
        (UnOp::Neg, Value::Bool(_)) => Err("expected a number".into()),
    }
}

pub fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
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
            Bool(if op == BinOp::Eq { eq } else { !eq })
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let ord = match (a, b) {
                (Int(x), Int(y)) => x.partial_cmp(&y),
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
            .ok_or_else(overflow)?),
            _ => {
                let (x, y) = (num(a)?, num(b)?);
                Double(match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    _ => x * y,
                })
            }
        },
        BinOp::Div => {
            let (x, y) = (num(a)?, num(b)?);
            if y == 0.0 {
                return Err("division by zero".into());
            }
            Double(x / y)
        }
    })
}

fn to_int(d: f64) -> Result<i64, String> {
    if d.is_finite() && d >= i64::MIN as f64 && d < i64::MAX as f64 {
        Ok(d as i64)
    } else {
        Err(format!("{d} does not fit in an int"))
    }
}

pub fn call(f: Func, args: &[Value]) -> Result<Value, String> {
    use Value::*;
    let all_int = args.iter().all(|v| matches!(v, Int(_)));
    match f {
        Func::Min | Func::Max => {
            if all_int {
                let it = args.iter().filter_map(|v| v.as_i64());
                let r = if f == Func::Min { it.min() } else { it.max() };
                r.map(Int).ok_or_else(|| "no arguments".into())
            } else {
                let mut acc: Option<f64> = None;
                for v in args {
                    let x = num(*v)?;
                    acc = Some(match acc {
                        None => x,
                        Some(a) if f == Func::Min => a.min(x),
                        Some(a) => a.max(x),
                    });
                }
                acc.map(Double).ok_or_else(|| "no arguments".into())
            }
        }
        Func::Floor | Func::Ceil | Func::Round => {
            let [a] = args else {
                return Err("expects 1 argument".into());
            };
            let x = num(*a)?;
            let r = match f {
                Func::Floor => x.floor(),
                Func::Ceil => x.ceil(),
                _ => (x + 0.5).floor(),
            };
            Ok(Int(to_int(r)?))
        }
        Func::Pow => {
            let [a, b] = args else {
                return Err("expects 2 arguments".into());
            };
            match (a, b) {
                (Int(x), Int(y)) => {
                    if *y < 0 {
                        return Err("negative exponent in integer pow".into());
                    }
                    let e = u32::try_from(*y).map_err(|_| overflow())?;
                    x.checked_pow(e).map(Int).ok_or_else(overflow)
                }
                _ => Ok(Double(num(*a)?.powf(num(*b)?))),
            }
        }
        Func::Mod => {
            let [a, b] = args else {
                return Err("expects 2 arguments".into());
            };
            match (a, b) {
                (Int(x), Int(y)) => {
                    if *y == 0 {
                        return Err("modulo by zero".into());
                    }
                    x.checked_rem_euclid(*y).map(Int).ok_or_else(overflow)
                }
                _ => Err("mod expects integers".into()),
            }
        }
        Func::Log => {
            let [a, b] = args else {
                return Err("expects 2 arguments".into());
            };
            Ok(Double(num(*a)?.ln() / num(*b)?.ln()))
        }
    }
}
