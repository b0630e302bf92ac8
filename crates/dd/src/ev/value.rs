//! Edge values: EV+ (`i64` with `+∞`) and EV* (non-negative finite `f64`).

use crate::forest::EdgeValue;

/// `+∞` of EV+ values (the default edge value: "undefined", "unreachable").
pub const INF: i64 = i64::MAX;

/// An arithmetic result did not fit in the value type (an EV+ value at or past `i64::MAX`,
/// below `i64::MIN`; an EV* product or sum that is not finite).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

impl std::fmt::Display for Overflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("edge-valued arithmetic overflow")
    }
}
impl std::error::Error for Overflow {}

/// The algebra of an edge-valued forest.
pub trait EvValue: EdgeValue + Default + PartialOrd {
    /// The value of an absent edge (`+∞` for EV+, `0` for EV*); its child is irrelevant and
    /// stored as EMPTY.
    const DEFAULT: Self;
    /// The value every normalised node has on at least one edge (`0` for EV+, `1` for EV*).
    const NEUTRAL: Self;
    /// Combine a value with the value of the edge below (`+` for EV+, `·` for EV*).
    fn combine(a: Self, b: Self) -> Result<Self, Overflow>;
    /// The better of two values for normalisation (`min` for EV+, `max` for EV*); the
    /// default value loses to every other.
    fn pick(a: Self, b: Self) -> Self;
    /// `v` with the normalisation factor `f` taken out (`v − f` for EV+, `v / f` for EV*),
    /// for a non-default `f`.
    fn pull(v: Self, f: Self) -> Result<Self, Overflow>;
    /// The value as text for DOT labels.
    fn label(self) -> String;
}

impl EdgeValue for i64 {
    const VALUED: bool = true;
    #[inline]
    fn bits(self) -> u64 {
        self as u64
    }
}

impl EvValue for i64 {
    const DEFAULT: i64 = INF;
    const NEUTRAL: i64 = 0;
    #[inline]
    fn combine(a: i64, b: i64) -> Result<i64, Overflow> {
        if a == INF || b == INF {
            return Ok(INF);
        }
        match a.checked_add(b) {
            Some(s) if s != INF => Ok(s),
            _ => Err(Overflow),
        }
    }
    #[inline]
    fn pick(a: i64, b: i64) -> i64 {
        a.min(b)
    }
    #[inline]
    fn pull(v: i64, f: i64) -> Result<i64, Overflow> {
        if v == INF {
            return Ok(INF);
        }
        match v.checked_sub(f) {
            Some(d) if d != INF => Ok(d),
            _ => Err(Overflow),
        }
    }
    fn label(self) -> String {
        if self == INF {
            "∞".into()
        } else {
            self.to_string()
        }
    }
}

impl EdgeValue for f64 {
    const VALUED: bool = true;
    #[inline]
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl EvValue for f64 {
    const DEFAULT: f64 = 0.0;
    const NEUTRAL: f64 = 1.0;
    #[inline]
    fn combine(a: f64, b: f64) -> Result<f64, Overflow> {
        let p = a * b;
        if p.is_finite() {
            Ok(p)
        } else {
            Err(Overflow)
        }
    }
    #[inline]
    fn pick(a: f64, b: f64) -> f64 {
        a.max(b)
    }
    #[inline]
    fn pull(v: f64, f: f64) -> Result<f64, Overflow> {
        let q = v / f;
        if q.is_finite() {
            Ok(q)
        } else {
            Err(Overflow)
        }
    }
    fn label(self) -> String {
        format!("{self}")
    }
}
