//! The bounding semantics of thesis chapter 7 (section 7.1): every numeric value is an
//! interval `[lo, hi]` that contains the exact value, and every state formula a lower set (the
//! states where it surely holds) and an upper set (where it possibly holds); the states of the
//! upper set outside the lower one are undecided.
//!
//! One state's value is a [`Bounded`]: an exact [`Value`] (an expression over the model's
//! variables), an interval [`Bounded::Within`], or [`Bounded::Undecided`] (a boolean the bounds
//! do not decide). Connectives, comparisons and arithmetic act on them as three-valued logic and
//! interval arithmetic ([`combine`]), so a comparison whose intervals overlap is undecided,
//! never guessed.

use saturn_model::expr::{binary, BinOp, Value};

/// A closed interval of reals `[lo, hi]` (`lo <= hi`; infinite ends allowed).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    /// The interval of one exact number.
    pub fn exact(x: f64) -> Interval {
        Interval { lo: x, hi: x }
    }

    pub fn new(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi }
    }

    /// Both ends equal: an exact value.
    pub fn is_exact(&self) -> bool {
        self.lo == self.hi
    }

    /// The number printed as the result: the middle of the interval (an end when the other is
    /// infinite), so its distance to the exact value is at most half the width.
    pub fn point(&self) -> f64 {
        if self.lo == self.hi {
            self.lo
        } else if self.lo.is_infinite() || self.hi.is_infinite() {
            if self.hi.is_infinite() && self.hi > 0.0 && self.lo.is_finite() {
                self.lo
            } else {
                self.hi
            }
        } else {
            self.lo + (self.hi - self.lo) / 2.0
        }
    }

    /// `hi - lo` (0 for an exact value, also an infinite one).
    pub fn width(&self) -> f64 {
        if self.lo == self.hi {
            0.0
        } else {
            self.hi - self.lo
        }
    }

    /// The width relative to the smaller magnitude of the ends (absolute below 1e-300).
    pub fn relative_width(&self) -> f64 {
        let w = self.width();
        if w == 0.0 {
            return 0.0;
        }
        let m = self.lo.abs().min(self.hi.abs());
        if self.lo < 0.0 && self.hi > 0.0 || m < 1e-300 {
            w
        } else {
            w / m
        }
    }

    /// The smallest interval holding both.
    pub fn hull(self, o: Interval) -> Interval {
        Interval::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    /// The three-valued comparison `self REL p` (as in `P>=p [...]`): `Some(b)` when every
    /// value of the interval gives `b`, `None` (undecided) otherwise.
    pub fn compare(self, rel: super::Rel, p: f64) -> Option<bool> {
        use super::Rel;
        let (lo, hi) = (self.lo, self.hi);
        match rel {
            Rel::Ge if lo >= p => Some(true),
            Rel::Ge if hi < p => Some(false),
            Rel::Gt if lo > p => Some(true),
            Rel::Gt if hi <= p => Some(false),
            Rel::Le if hi <= p => Some(true),
            Rel::Le if lo > p => Some(false),
            Rel::Lt if hi < p => Some(true),
            Rel::Lt if lo >= p => Some(false),
            _ => None,
        }
    }
}

/// One state's value of a formula under the bounding semantics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounded {
    /// Known exactly (an expression over the variables, a decided comparison).
    Exact(Value),
    /// A number known to lie in `[lo, hi]` (`lo < hi`).
    Within(f64, f64),
    /// A boolean the bounds do not decide (in the upper set, not in the lower one).
    Undecided,
}

impl Bounded {
    /// An interval as a value: exact when its ends are equal.
    pub fn num(i: Interval) -> Bounded {
        if i.is_exact() {
            Bounded::Exact(Value::Real(i.lo))
        } else {
            Bounded::Within(i.lo, i.hi)
        }
    }

    /// A three-valued boolean (`None` = undecided).
    pub fn truth(b: Option<bool>) -> Bounded {
        match b {
            Some(b) => Bounded::Exact(Value::Bool(b)),
            None => Bounded::Undecided,
        }
    }

    /// The interval of a number (`None` for a boolean).
    pub fn interval(self) -> Option<Interval> {
        match self {
            Bounded::Exact(v) => v.as_f64().map(Interval::exact),
            Bounded::Within(lo, hi) => Some(Interval::new(lo, hi)),
            Bounded::Undecided => None,
        }
    }

    /// The three-valued truth of a boolean: `Ok(None)` when undecided, `Err` for a number.
    pub fn boolean(self) -> Result<Option<bool>, ()> {
        match self {
            Bounded::Exact(Value::Bool(b)) => Ok(Some(b)),
            Bounded::Undecided => Ok(None),
            _ => Err(()),
        }
    }
}

/// `a op b` under the bounding semantics: the exact operation on exact values; Kleene's
/// three-valued logic on booleans one of which is undecided; interval arithmetic and
/// three-valued comparisons on numbers one of which is an interval. The result contains every
/// value `op` takes over the values the operands may have.
pub fn combine(op: BinOp, a: Bounded, b: Bounded) -> Result<Bounded, String> {
    use Bounded::*;
    if let (Exact(x), Exact(y)) = (a, b) {
        return binary(op, x, y).map(Exact).map_err(|e| e.to_string());
    }
    let logic = matches!(op, BinOp::And | BinOp::Or | BinOp::Implies | BinOp::Iff);
    let both_bool = a.boolean().is_ok() && b.boolean().is_ok();
    if logic || both_bool {
        let (Ok(x), Ok(y)) = (a.boolean(), b.boolean()) else {
            return Err(format!("type error: {op:?} needs booleans"));
        };
        let t = match op {
            BinOp::And => match (x, y) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            BinOp::Or => match (x, y) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            BinOp::Implies => match (x, y) {
                (Some(false), _) | (_, Some(true)) => Some(true),
                (Some(true), Some(false)) => Some(false),
                _ => None,
            },
            BinOp::Iff | BinOp::Eq => x.zip(y).map(|(x, y)| x == y),
            BinOp::Ne => x.zip(y).map(|(x, y)| x != y),
            _ => return Err(format!("type error: {op:?} needs numbers")),
        };
        return Ok(truth(t));
    }
    let (Some(x), Some(y)) = (a.interval(), b.interval()) else {
        return Err(format!("type error: {op:?} mixes a boolean and a number"));
    };
    let cmp = |t: Option<bool>| Ok(truth(t));
    match op {
        BinOp::Add => Ok(Bounded::num(Interval::new(x.lo + y.lo, x.hi + y.hi))),
        BinOp::Sub => Ok(Bounded::num(Interval::new(x.lo - y.hi, x.hi - y.lo))),
        BinOp::Mul => Ok(Bounded::num(products(x, y))),
        BinOp::Div => {
            if y.lo <= 0.0 && y.hi >= 0.0 {
                return Err(format!(
                    "division by a value known only to lie in [{}, {}], which holds 0",
                    y.lo, y.hi
                ));
            }
            Ok(Bounded::num(products(
                x,
                Interval::new(1.0 / y.hi, 1.0 / y.lo),
            )))
        }
        BinOp::Lt => cmp(decide(x.hi < y.lo, x.lo >= y.hi)),
        BinOp::Le => cmp(decide(x.hi <= y.lo, x.lo > y.hi)),
        BinOp::Gt => cmp(decide(x.lo > y.hi, x.hi <= y.lo)),
        BinOp::Ge => cmp(decide(x.lo >= y.hi, x.hi < y.lo)),
        BinOp::Eq => cmp(decide(false, x.hi < y.lo || y.hi < x.lo)),
        BinOp::Ne => cmp(decide(x.hi < y.lo || y.hi < x.lo, false)),
        _ => Err(format!("{op:?} is not defined on bounded numbers")),
    }
}

fn truth(t: Option<bool>) -> Bounded {
    Bounded::truth(t)
}

/// `Some(true)` when `yes`, `Some(false)` when `no`, else undecided.
pub(super) fn decide(yes: bool, no: bool) -> Option<bool> {
    if yes {
        Some(true)
    } else if no {
        Some(false)
    } else {
        None
    }
}

/// The hull of the products of the ends (interval multiplication).
fn products(x: Interval, y: Interval) -> Interval {
    let p = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi];
    let lo = p
        .iter()
        .copied()
        .filter(|v| !v.is_nan())
        .fold(f64::INFINITY, f64::min);
    let hi = p
        .iter()
        .copied()
        .filter(|v| !v.is_nan())
        .fold(f64::NEG_INFINITY, f64::max);
    Interval::new(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::props::Rel;

    #[test]
    fn comparisons_of_intervals_decide_only_when_separated() {
        let i = Interval::new(0.49, 0.51);
        assert_eq!(i.compare(Rel::Ge, 0.5), None);
        assert_eq!(i.compare(Rel::Ge, 0.49), Some(true));
        assert_eq!(i.compare(Rel::Gt, 0.49), None);
        assert_eq!(i.compare(Rel::Lt, 0.52), Some(true));
        assert_eq!(i.compare(Rel::Le, 0.48), Some(false));
        assert_eq!(Interval::exact(0.5).compare(Rel::Ge, 0.5), Some(true));
        assert_eq!(Interval::exact(0.5).compare(Rel::Gt, 0.5), Some(false));
    }

    #[test]
    fn three_valued_logic_and_interval_arithmetic() {
        let t = Bounded::Exact(Value::Bool(true));
        let f = Bounded::Exact(Value::Bool(false));
        let u = Bounded::Undecided;
        assert_eq!(combine(BinOp::And, f, u), Ok(f));
        assert_eq!(combine(BinOp::And, t, u), Ok(u));
        assert_eq!(combine(BinOp::Or, u, t), Ok(t));
        assert_eq!(combine(BinOp::Implies, u, t), Ok(t));
        assert_eq!(combine(BinOp::Iff, u, t), Ok(u));
        let a = Bounded::Within(1.0, 2.0);
        let b = Bounded::Exact(Value::Int(3));
        assert_eq!(combine(BinOp::Add, a, b), Ok(Bounded::Within(4.0, 5.0)));
        assert_eq!(combine(BinOp::Sub, b, a), Ok(Bounded::Within(1.0, 2.0)));
        assert_eq!(
            combine(BinOp::Mul, a, Bounded::Within(-1.0, 1.0)),
            Ok(Bounded::Within(-2.0, 2.0))
        );
        assert_eq!(combine(BinOp::Lt, a, b), Ok(t));
        assert_eq!(
            combine(BinOp::Gt, a, Bounded::Exact(Value::Real(1.5))),
            Ok(u)
        );
        assert!(combine(BinOp::Div, b, Bounded::Within(-1.0, 1.0)).is_err());
        assert!(combine(BinOp::And, a, t).is_err());
    }
}
