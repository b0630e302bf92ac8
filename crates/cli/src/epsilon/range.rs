//! `--epsilon E`, or a range of epsilons for an experiment: `START:END` (one value a decade,
//! `1e-1:1e-10`) or `START:FACTOR:END` (each value the previous one times `FACTOR`).

use std::str::FromStr;

/// At most this many epsilons in a range.
const MAX_VALUES: usize = 1000;

/// The `--epsilon` flag: one value, or a range (its values in the order given).
#[derive(Clone, Debug, PartialEq)]
pub enum EpsilonArg {
    One(f64),
    Range { text: String, values: Vec<f64> },
}

impl EpsilonArg {
    /// The value (the first of a range).
    pub fn first(&self) -> f64 {
        match self {
            EpsilonArg::One(e) => *e,
            EpsilonArg::Range { values, .. } => values[0],
        }
    }

    pub fn is_range(&self) -> bool {
        matches!(self, EpsilonArg::Range { .. })
    }

    /// Every value, in the order of the range.
    pub fn values(&self) -> Vec<f64> {
        match self {
            EpsilonArg::One(e) => vec![*e],
            EpsilonArg::Range { values, .. } => values.clone(),
        }
    }
}

impl std::fmt::Display for EpsilonArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EpsilonArg::One(e) => write!(f, "{e:e}"),
            EpsilonArg::Range { text, .. } => write!(f, "{text}"),
        }
    }
}

fn positive(p: &str) -> Result<f64, String> {
    p.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| format!("'{p}' is not a positive number"))
}

/// `start` moved by `k` decades towards `down` (smaller) or up, as the nearest double of
/// the decimal (`1e-1` gives exactly the doubles of `1e-2`, `1e-3`, ...).
fn decade(start: f64, k: i32, down: bool) -> f64 {
    let text = format!("{start:e}");
    let (mantissa, exp) = text.split_once('e').expect("exponent notation");
    let exp: i32 = exp.parse().expect("an exponent");
    let e = if down { exp - k } else { exp + k };
    format!("{mantissa}e{e}").parse().unwrap_or(0.0)
}

/// The values from `start` towards `end`, each from the one before by `next`, while within
/// `end` (a relative slack of 1e-9).
fn walk(start: f64, end: f64, next: impl Fn(usize) -> f64) -> Result<Vec<f64>, String> {
    let down = end < start;
    let within = |x: f64| {
        if down {
            x >= end * (1.0 - 1e-9)
        } else {
            x <= end * (1.0 + 1e-9)
        }
    };
    let mut values = Vec::new();
    let mut k = 0;
    loop {
        let x = if k == 0 { start } else { next(k) };
        if !(x > 0.0 && x.is_finite() && within(x)) {
            break;
        }
        values.push(x);
        if values.len() > MAX_VALUES {
            return Err(format!("more than {MAX_VALUES} values"));
        }
        k += 1;
    }
    Ok(values)
}

impl FromStr for EpsilonArg {
    type Err = String;

    fn from_str(t: &str) -> Result<Self, String> {
        let parts: Vec<&str> = t.split(':').collect();
        let values = match parts.as_slice() {
            [e] => return Ok(EpsilonArg::One(positive(e)?)),
            [a, b] => {
                let (a, b) = (positive(a)?, positive(b)?);
                let down = b < a;
                walk(a, b, |k| decade(a, k as i32, down))?
            }
            [a, f, b] => {
                let (a, f, b) = (positive(a)?, positive(f)?, positive(b)?);
                if a != b && (f == 1.0 || (f < 1.0) != (b < a)) {
                    return Err(format!(
                        "the factor {f} does not lead from {a} to {b} (a factor below 1 for a \
                         decreasing range, above 1 for an increasing one)"
                    ));
                }
                walk(a, b, |k| a * f.powi(k as i32))?
            }
            _ => {
                return Err("an epsilon is a number, START:END (one value a decade) or \
                     START:FACTOR:END"
                    .into())
            }
        };
        Ok(EpsilonArg::Range {
            text: t.to_string(),
            values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(t: &str) -> Vec<f64> {
        t.parse::<EpsilonArg>().expect("parses").values()
    }

    #[test]
    fn ranges_by_decade_and_by_factor() {
        assert_eq!(values("1e-6"), vec![1e-6]);
        assert!(!"1e-6".parse::<EpsilonArg>().expect("one").is_range());
        assert_eq!(
            values("1e-1:1e-10"),
            vec![1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10]
        );
        assert_eq!(values("5e-3:1e-6"), vec![5e-3, 5e-4, 5e-5, 5e-6]);
        assert_eq!(values("1e-4:1e-2"), vec![1e-4, 1e-3, 1e-2]);
        assert_eq!(values("0.1:0.5:0.01"), vec![0.1, 0.05, 0.025, 0.0125]);
        assert_eq!(values("1e-3:1e-3"), vec![1e-3]);
        let r: EpsilonArg = "1e-1:1e-3".parse().expect("range");
        assert!(r.is_range());
        assert_eq!(r.first(), 0.1);
        assert_eq!(r.to_string(), "1e-1:1e-3");
    }

    #[test]
    fn bad_ranges_are_refused() {
        for (t, why) in [
            ("0", "not a positive number"),
            ("-1e-3", "not a positive number"),
            ("x", "not a positive number"),
            ("1e-1:0", "not a positive number"),
            ("1e-1:2:1e-5", "does not lead"),
            ("1e-1:1:1e-5", "does not lead"),
            ("1e-5:0.1:1e-1", "does not lead"),
            ("1:0.999999:1e-300", "more than 1000"),
            ("1:2:3:4", "START:FACTOR:END"),
        ] {
            let e = t.parse::<EpsilonArg>().expect_err(t);
            assert!(e.contains(why), "{t}: {e}");
        }
    }
}
