//! The answer of a property in the initial state(s) or of a filter, under the bounding
//! semantics ([`super::bounds`]): a decided boolean, an undecided one, or numbers with their
//! guaranteed bounds.

use saturn_model::expr::Value;

use super::bounds::{Bounded, Interval};
use super::check::CheckError;
use super::FilterOp;

/// The answer of a property in the initial state(s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    Bool(bool),
    /// A boolean the bounds do not decide (after any refinement): some initial state, or the
    /// filter's states, lie between the lower and the upper set.
    Undecided,
    /// A number and the interval that contains it (exact when its ends are equal).
    Num(Interval),
    /// Several initial states with different values (PRISM's "range over initial states"),
    /// or a `range` filter: the smallest value's bounds and the largest's.
    Range(Interval, Interval),
}

impl Answer {
    /// An exact number.
    pub fn num(x: f64) -> Answer {
        Answer::Num(Interval::exact(x))
    }

    /// The lower and upper bounds of a number (the ends of a range), `None` for a boolean.
    pub fn bounds(&self) -> Option<Interval> {
        match self {
            Answer::Num(i) => Some(*i),
            Answer::Range(a, b) => Some(Interval::new(a.lo, b.hi)),
            _ => None,
        }
    }

    /// Whether the answer is decided: a boolean, or a number (whatever its width).
    pub fn is_decided(&self) -> bool {
        !matches!(self, Answer::Undecided)
    }

    /// The answer as one state's value (a filter inside a formula).
    pub(super) fn as_bounded(&self) -> Option<Bounded> {
        match self {
            Answer::Bool(b) => Some(Bounded::Exact(Value::Bool(*b))),
            Answer::Undecided => Some(Bounded::Undecided),
            Answer::Num(i) => Some(Bounded::num(*i)),
            Answer::Range(..) => None,
        }
    }
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Bool(b) => write!(f, "{b}"),
            Answer::Undecided => write!(f, "undecided"),
            Answer::Num(x) => write!(f, "{}", fmt_num(x.point())),
            Answer::Range(a, b) => write!(f, "[{}, {}]", fmt_num(a.point()), fmt_num(b.point())),
        }
    }
}

/// A number as PRISM prints it (`Infinity`).
pub fn fmt_num(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else {
        format!("{x}")
    }
}

/// One state's value as an answer.
fn scalar(v: Bounded) -> Answer {
    match v {
        Bounded::Exact(Value::Bool(b)) => Answer::Bool(b),
        Bounded::Undecided => Answer::Undecided,
        v => Answer::Num(v.interval().expect("a number")),
    }
}

/// The answer over the initial states' values, PRISM's conventions: a boolean holds when it
/// holds in all of them (false as soon as one is surely false, undecided otherwise), numbers
/// give their range.
pub(super) fn fold_initial(vals: &[Bounded]) -> Result<Answer, CheckError> {
    if vals.len() == 1 {
        return Ok(scalar(vals[0]));
    }
    if vals.iter().all(|v| v.boolean().is_ok()) {
        return Ok(forall(vals.iter().map(|v| v.boolean().expect("boolean"))));
    }
    let nums: Vec<Interval> = vals.iter().filter_map(|v| v.interval()).collect();
    let (lo, hi) = extremes(&nums).ok_or_else(|| CheckError::Filter("no initial state".into()))?;
    Ok(if lo == hi {
        Answer::Num(lo)
    } else {
        Answer::Range(lo, hi)
    })
}

/// Three-valued conjunction.
fn forall(it: impl Iterator<Item = Option<bool>>) -> Answer {
    let mut all = true;
    for b in it {
        match b {
            Some(false) => return Answer::Bool(false),
            None => all = false,
            Some(true) => {}
        }
    }
    if all {
        Answer::Bool(true)
    } else {
        Answer::Undecided
    }
}

/// Three-valued disjunction.
fn exists(it: impl Iterator<Item = Option<bool>>) -> Answer {
    let mut none = true;
    for b in it {
        match b {
            Some(true) => return Answer::Bool(true),
            None => none = false,
            Some(false) => {}
        }
    }
    if none {
        Answer::Bool(false)
    } else {
        Answer::Undecided
    }
}

/// The bounds of the smallest and of the largest value: the minimum lies in
/// `[min lo, min hi]`, the maximum in `[max lo, max hi]`.
fn extremes(x: &[Interval]) -> Option<(Interval, Interval)> {
    let first = *x.first()?;
    let mut min = first;
    let mut max = first;
    for i in &x[1..] {
        min = Interval::new(min.lo.min(i.lo), min.hi.min(i.hi));
        max = Interval::new(max.lo.max(i.lo), max.hi.max(i.hi));
    }
    Some((min, max))
}

/// `filter(op, ...)` over the values `pick` of the selected states, under the bounding
/// semantics: `count` is the interval from the lower set's size to the upper set's, `forall`
/// and `exists` are three-valued, `min`/`max`/`sum`/`avg` act on the ends of the intervals.
pub(super) fn filter(op: FilterOp, pick: &[Bounded]) -> Result<Answer, CheckError> {
    let empty = || CheckError::Filter("the filter's state set is empty".into());
    let nums = || -> Result<Vec<Interval>, CheckError> {
        pick.iter()
            .map(|x| {
                x.interval()
                    .ok_or_else(|| CheckError::Eval("the filter needs numbers".into()))
            })
            .collect()
    };
    let bools = || -> Result<Vec<Option<bool>>, CheckError> {
        pick.iter()
            .map(|x| {
                x.boolean()
                    .map_err(|()| CheckError::Eval("the filter needs a boolean property".into()))
            })
            .collect()
    };
    Ok(match op {
        FilterOp::Forall => forall(bools()?.into_iter()),
        FilterOp::Exists => exists(bools()?.into_iter()),
        FilterOp::Count => {
            let b = bools()?;
            let sure = b.iter().filter(|&&x| x == Some(true)).count() as f64;
            let maybe = b.iter().filter(|&&x| x != Some(false)).count() as f64;
            Answer::Num(Interval::new(sure, maybe))
        }
        FilterOp::Min => Answer::Num(extremes(&nums()?).ok_or_else(empty)?.0),
        FilterOp::Max => Answer::Num(extremes(&nums()?).ok_or_else(empty)?.1),
        FilterOp::Sum | FilterOp::Avg => {
            let x = nums()?;
            if x.is_empty() && op == FilterOp::Avg {
                return Err(empty());
            }
            let k = if op == FilterOp::Avg {
                x.len() as f64
            } else {
                1.0
            };
            let lo: f64 = x.iter().map(|i| i.lo).sum();
            let hi: f64 = x.iter().map(|i| i.hi).sum();
            Answer::Num(Interval::new(lo / k, hi / k))
        }
        FilterOp::Range => {
            let (lo, hi) = extremes(&nums()?).ok_or_else(empty)?;
            Answer::Range(lo, hi)
        }
        FilterOp::First => scalar(*pick.first().ok_or_else(empty)?),
        FilterOp::State => {
            if pick.len() != 1 {
                return Err(CheckError::Filter(format!(
                    "filter(state, ...) needs exactly one state, the filter selects {}",
                    pick.len()
                )));
            }
            scalar(pick[0])
        }
    })
}
