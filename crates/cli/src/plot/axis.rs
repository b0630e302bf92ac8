//! The axes of a plot: linear ones with ticks at 1, 2 or 5 times a power of ten, logarithmic
//! ones with a tick per decade (the epsilon axis of thesis Figures 7.6-7.7), and their labels.

/// An axis over `[lo, hi]` (on a logarithmic axis, the decimal logarithms of the ends) and
/// its ticks (likewise).
#[derive(Debug, PartialEq)]
pub(super) struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
    pub step: f64,
    pub log: bool,
}

impl Axis {
    /// Where `x` lies on the axis, 0 at `lo` and 1 at `hi`.
    pub fn fraction(&self, x: f64) -> f64 {
        let x = if self.log { x.log10() } else { x };
        (x - self.lo) / (self.hi - self.lo)
    }
}

/// The smallest interval `[lo, hi]` holding `values` (the finite ones).
pub(super) fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((a, b)) => Some((f64::min(a, v), f64::max(b, v))),
        })
}

/// A linear axis over `[lo, hi]` with ticks at a step of 1, 2 or 5 times a power of ten
/// (about five of them, at least `min_step` apart: 1 for counts); `round_out`: the ends moved
/// out to a tick (the values' axis), else kept (the ranged constant's).
pub(super) fn axis(lo: f64, hi: f64, round_out: bool, min_step: f64) -> Axis {
    let (mut lo, mut hi) = (lo, hi);
    if hi - lo <= f64::EPSILON * lo.abs().max(hi.abs()) {
        let pad = if lo == 0.0 { 0.5 } else { lo.abs() / 2.0 }.max(min_step);
        lo -= pad;
        hi += pad;
    }
    let raw = ((hi - lo) / 5.0).max(min_step);
    if !raw.is_finite() || raw <= 0.0 {
        return Axis {
            lo,
            hi,
            ticks: vec![lo, hi],
            step: 0.0,
            log: false,
        };
    }
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let slack = step * 1e-9;
    let (first, last) = if round_out {
        ((lo / step).floor(), (hi / step).ceil())
    } else {
        (((lo - slack) / step).ceil(), ((hi + slack) / step).floor())
    };
    let ticks: Vec<f64> = (0..=((last - first).max(0.0) as usize).min(50))
        .map(|k| (first + k as f64) * step)
        .collect();
    if round_out {
        (lo, hi) = (first * step, last * step);
    }
    Axis {
        lo,
        hi,
        ticks,
        step,
        log: false,
    }
}

/// A logarithmic axis over `[lo, hi]` (both positive): the ends moved out to whole decades,
/// a tick at every decade (every second, third, ... when there are more than 12).
pub(super) fn log_axis(lo: f64, hi: f64) -> Axis {
    let (a, b) = (lo.log10().floor(), hi.log10().ceil());
    let b = if b <= a { a + 1.0 } else { b };
    let decades = (b - a) as usize;
    let every = decades.div_ceil(12).max(1);
    let ticks = (0..=decades).step_by(every).map(|k| a + k as f64).collect();
    Axis {
        lo: a,
        hi: b,
        ticks,
        step: every as f64,
        log: true,
    }
}

/// The tick labels of an axis: on a logarithmic one `1e-3` (and `1`, `10`); else as many
/// decimals as the step needs, all in exponent notation (one exponent, the largest tick's)
/// when the largest is at least 10^6 or below 10^-4.
pub(super) fn tick_labels(a: &Axis) -> Vec<String> {
    if a.log {
        return a
            .ticks
            .iter()
            .map(|&t| match t as i32 {
                0 => "1".to_string(),
                1 => "10".to_string(),
                e => format!("1e{e}"),
            })
            .collect();
    }
    let big = a.ticks.iter().fold(0f64, |m, t| m.max(t.abs()));
    let decimals = |step: f64| {
        if step > 0.0 {
            ((-step.log10().floor()).max(0.0) as usize).min(12)
        } else {
            3
        }
    };
    let (scale, suffix) = if big > 0.0 && !(1e-4..1e6).contains(&big) {
        let e = big.log10().floor() as i32;
        (10f64.powi(e), format!("e{e}"))
    } else {
        (1.0, String::new())
    };
    let d = decimals(a.step / scale);
    a.ticks
        .iter()
        .map(|&t| {
            if t == 0.0 {
                "0".into()
            } else {
                format!("{:.d$}{suffix}", t / scale)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_round_out_to_nice_ticks() {
        let a = axis(0.0, 1.0, true, 0.0);
        assert_eq!((a.lo, a.hi, a.step), (0.0, 1.0, 0.2));
        let a = axis(0.13, 0.87, true, 0.0);
        assert_eq!((a.lo, a.hi), (0.0, 1.0));
        // the ranged constant's axis keeps its ends, ticks inside
        let a = axis(2.0, 30.0, false, 0.0);
        assert_eq!((a.lo, a.hi), (2.0, 30.0));
        assert_eq!(a.ticks, vec![10.0, 20.0, 30.0]);
        let a = axis(3.0, 3.0, true, 0.0);
        assert!(a.lo < 3.0 && a.hi > 3.0);
        let a = axis(0.0, 0.0, true, 0.0);
        assert!(a.lo < 0.0 && a.hi > 0.0);
        assert!(axis(0.0, 50.0, false, 0.0).ticks.len() <= 12);
        assert_eq!(tick_labels(&axis(0.0, 1.0, true, 0.0))[2], "0.4");
        assert_eq!(tick_labels(&axis(0.0, 50.0, true, 0.0))[2], "20");
        assert_eq!(
            tick_labels(&axis(0.0, 1.2e6, true, 0.0)),
            vec!["0", "0.5e6", "1.0e6", "1.5e6"]
        );
        assert_eq!(tick_labels(&axis(0.0, 2e-5, true, 0.0))[1], "0.5e-5");
        // counts: whole ticks
        let a = axis(3.0, 5.0, true, 1.0);
        assert_eq!(a.ticks, vec![3.0, 4.0, 5.0]);
        assert_eq!(tick_labels(&a), vec!["3", "4", "5"]);
    }

    #[test]
    fn log_axes_tick_every_decade() {
        let a = log_axis(1e-10, 1e-1);
        assert_eq!((a.lo, a.hi), (-10.0, -1.0));
        assert_eq!(a.ticks.len(), 10);
        assert_eq!(tick_labels(&a)[0], "1e-10");
        assert!((a.fraction(1e-10)).abs() < 1e-12 && (a.fraction(1e-1) - 1.0).abs() < 1e-12);
        assert!((a.fraction(10f64.powf(-5.5)) - 0.5).abs() < 1e-12);
        // one value: one decade around it
        let a = log_axis(1e-3, 1e-3);
        assert_eq!((a.lo, a.hi), (-3.0, -2.0));
        let a = log_axis(0.5, 20.0);
        assert_eq!(tick_labels(&a), vec!["1e-1", "1", "10", "1e2"]);
        // many decades: fewer ticks
        assert!(log_axis(1e-300, 1.0).ticks.len() <= 13);
    }
}
