//! `--plot FILE.svg`: numbers over one ranged constant as an SVG line chart, one panel per
//! property stacked in one file: the result as a line, the guaranteed lower and upper bounds
//! as a shaded band edged by two dashed lines (thesis Figures 7.6-7.7), axes with ticks and
//! labels, the property as the panel's title. Plain SVG 1.1 written by hand: no fonts, no
//! scripts, every curve a `<polyline>` with a `class` (`result`, `lower`, `upper`) so tests and
//! scripts can read the points back.

use std::fmt::Write as _;

/// One value of the ranged constant and the property's numbers there (`None`: no number at
/// this point, a gap in the curves).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub x: f64,
    pub y: Option<Bounds>,
}

/// A result and its guaranteed bounds (`lower <= upper`, all finite; `result` `None` when
/// there is no single number, e.g. a range over several initial states).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub lower: f64,
    pub result: Option<f64>,
    pub upper: f64,
}

/// One property's panel.
#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub samples: Vec<Sample>,
}

const WIDTH: f64 = 720.0;
const PANEL_HEIGHT: f64 = 400.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 80.0;
const BOTTOM: f64 = 56.0;
/// Markers on the result's points up to this many points.
const MARKERS_UP_TO: usize = 60;

/// The SVG document: the panels stacked top to bottom over the axis `x_name`; `note` (the
/// other constants' values) under each title.
pub fn svg(x_name: &str, note: &str, panels: &[Panel]) -> String {
    let height = PANEL_HEIGHT * panels.len().max(1) as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>"#
    );
    for (i, p) in panels.iter().enumerate() {
        panel(&mut s, x_name, note, p, PANEL_HEIGHT * i as f64);
    }
    s.push_str("</svg>\n");
    s
}

/// The smallest interval `[lo, hi]` holding `values` (the finite ones).
fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((a, b)) => Some((f64::min(a, v), f64::max(b, v))),
        })
}

/// An axis over `[lo, hi]` with ticks at a step of 1, 2 or 5 times a power of ten (about five
/// of them); `round_out`: the ends moved out to a tick (the values' axis), else kept (the
/// ranged constant's).
#[derive(Debug, PartialEq)]
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    step: f64,
}

fn axis(lo: f64, hi: f64, round_out: bool) -> Axis {
    let (mut lo, mut hi) = (lo, hi);
    if hi - lo <= f64::EPSILON * lo.abs().max(hi.abs()) {
        let pad = if lo == 0.0 { 0.5 } else { lo.abs() / 2.0 };
        lo -= pad;
        hi += pad;
    }
    let raw = (hi - lo) / 5.0;
    if !raw.is_finite() || raw <= 0.0 {
        return Axis {
            lo,
            hi,
            ticks: vec![lo, hi],
            step: 0.0,
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
    }
}

/// The tick labels of an axis: as many decimals as the step needs; all in exponent notation
/// (one exponent, the largest tick's) when the largest is at least 10^6 or below 10^-4.
fn tick_labels(a: &Axis) -> Vec<String> {
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

fn escape(t: &str) -> String {
    let mut o = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if c.is_control() => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

/// The runs of consecutive samples with numbers (a gap at each sample without).
fn runs(samples: &[Sample]) -> Vec<Vec<(f64, Bounds)>> {
    let mut out: Vec<Vec<(f64, Bounds)>> = vec![Vec::new()];
    for s in samples {
        match s.y {
            Some(b) => out.last_mut().expect("one run").push((s.x, b)),
            None if out.last().is_some_and(|r| !r.is_empty()) => out.push(Vec::new()),
            None => {}
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

fn points(pts: impl Iterator<Item = (f64, f64)>) -> String {
    pts.map(|(x, y)| format!("{x:.2},{y:.2}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn panel(s: &mut String, x_name: &str, note: &str, p: &Panel, top: f64) {
    let (x0, x1) = (LEFT, WIDTH - RIGHT);
    let (y0, y1) = (top + TOP, top + PANEL_HEIGHT - BOTTOM);
    let _ = writeln!(s, "<g class=\"panel\">");
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="15" text-anchor="middle" class="title">{}</text>"#,
        WIDTH / 2.0,
        top + 22.0,
        escape(&p.title)
    );
    if !note.is_empty() {
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#555">{}</text>"##,
            WIDTH / 2.0,
            top + 40.0,
            escape(note)
        );
    }
    let xs = extent(p.samples.iter().map(|q| q.x));
    let ys = extent(
        p.samples
            .iter()
            .filter_map(|q| q.y)
            .flat_map(|b| [b.lower, b.upper].into_iter().chain(b.result)),
    );
    let (Some((xa, xb)), Some((ya, yb))) = (xs, ys) else {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" font-size="13" text-anchor="middle">no numbers to draw</text>"#,
            WIDTH / 2.0,
            (y0 + y1) / 2.0
        );
        let _ = writeln!(s, "</g>");
        return;
    };
    let (ax, ay) = (axis(xa, xb, false), axis(ya, yb, true));
    let px = |x: f64| x0 + (x - ax.lo) / (ax.hi - ax.lo) * (x1 - x0);
    let py = |y: f64| y1 - (y - ay.lo) / (ay.hi - ay.lo) * (y1 - y0);
    // grid, ticks and labels
    for (&t, label) in ax.ticks.iter().zip(tick_labels(&ax)) {
        let x = px(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.2}" y1="{y0:.2}" x2="{x:.2}" y2="{y1:.2}" stroke="#e4e4e4"/><line x1="{x:.2}" y1="{y1:.2}" x2="{x:.2}" y2="{:.2}" stroke="black"/><text x="{x:.2}" y="{:.2}" font-size="11" text-anchor="middle">{label}</text>"##,
            y1 + 5.0,
            y1 + 18.0,
        );
    }
    for (&t, label) in ay.ticks.iter().zip(tick_labels(&ay)) {
        let y = py(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x0:.2}" y1="{y:.2}" x2="{x1:.2}" y2="{y:.2}" stroke="#e4e4e4"/><line x1="{:.2}" y1="{y:.2}" x2="{x0:.2}" y2="{y:.2}" stroke="black"/><text x="{:.2}" y="{:.2}" font-size="11" text-anchor="end">{label}</text>"##,
            x0 - 5.0,
            x0 - 8.0,
            y + 4.0,
        );
    }
    let _ = writeln!(
        s,
        r#"<rect x="{x0:.2}" y="{y0:.2}" width="{:.2}" height="{:.2}" fill="none" stroke="black"/>"#,
        x1 - x0,
        y1 - y0
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.2}" y="{:.2}" font-size="13" text-anchor="middle">{}</text>"#,
        (x0 + x1) / 2.0,
        y1 + 40.0,
        escape(x_name)
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.2}" y="{:.2}" font-size="13" text-anchor="middle" transform="rotate(-90 {:.2} {:.2})">value</text>"#,
        LEFT - 58.0,
        (y0 + y1) / 2.0,
        LEFT - 58.0,
        (y0 + y1) / 2.0
    );
    // the band, its edges, the result
    for run in runs(&p.samples) {
        let upper = run.iter().map(|(x, b)| (px(*x), py(b.upper)));
        let lower = run.iter().rev().map(|(x, b)| (px(*x), py(b.lower)));
        let _ = writeln!(
            s,
            r##"<polygon class="band" points="{}" fill="#9ecae1" fill-opacity="0.45" stroke="none"/>"##,
            points(upper.chain(lower))
        );
        for (class, pick) in [
            ("lower", (|b: &Bounds| b.lower) as fn(&Bounds) -> f64),
            ("upper", |b: &Bounds| b.upper),
        ] {
            let _ = writeln!(
                s,
                r##"<polyline class="{class}" points="{}" fill="none" stroke="#3182bd" stroke-width="1" stroke-dasharray="4 3"/>"##,
                points(run.iter().map(|(x, b)| (px(*x), py(pick(b)))))
            );
        }
    }
    let results: Vec<Sample> = p
        .samples
        .iter()
        .map(|q| Sample {
            x: q.x,
            y: q.y.filter(|b| b.result.is_some()),
        })
        .collect();
    for run in runs(&results) {
        let pts: Vec<(f64, f64)> = run
            .iter()
            .filter_map(|(x, b)| b.result.map(|r| (px(*x), py(r))))
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline class="result" points="{}" fill="none" stroke="#d62728" stroke-width="2"/>"##,
            points(pts.iter().copied())
        );
        if p.samples.len() <= MARKERS_UP_TO {
            for (x, y) in pts {
                let _ = writeln!(
                    s,
                    r##"<circle cx="{x:.2}" cy="{y:.2}" r="2.5" fill="#d62728"/>"##
                );
            }
        }
    }
    // the legend, right-aligned above the frame
    let ly = y0 - 12.0;
    let _ = writeln!(
        s,
        r##"<line x1="{:.2}" y1="{ly:.2}" x2="{:.2}" y2="{ly:.2}" stroke="#d62728" stroke-width="2"/><text x="{:.2}" y="{:.2}" font-size="11">result</text><rect x="{:.2}" y="{:.2}" width="24" height="9" fill="#9ecae1" fill-opacity="0.45" stroke="#3182bd" stroke-dasharray="4 3"/><text x="{:.2}" y="{:.2}" font-size="11">guaranteed bounds</text>"##,
        x1 - 228.0,
        x1 - 204.0,
        x1 - 198.0,
        ly + 4.0,
        x1 - 150.0,
        ly - 4.5,
        x1 - 120.0,
        ly + 4.0
    );
    let _ = writeln!(s, "</g>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_round_out_to_nice_ticks() {
        let a = axis(0.0, 1.0, true);
        assert_eq!((a.lo, a.hi, a.step), (0.0, 1.0, 0.2));
        let a = axis(0.13, 0.87, true);
        assert_eq!((a.lo, a.hi), (0.0, 1.0));
        // the ranged constant's axis keeps its ends, ticks inside
        let a = axis(2.0, 30.0, false);
        assert_eq!((a.lo, a.hi), (2.0, 30.0));
        assert_eq!(a.ticks, vec![10.0, 20.0, 30.0]);
        let a = axis(3.0, 3.0, true);
        assert!(a.lo < 3.0 && a.hi > 3.0);
        let a = axis(0.0, 0.0, true);
        assert!(a.lo < 0.0 && a.hi > 0.0);
        assert!(axis(0.0, 50.0, false).ticks.len() <= 12);
        assert_eq!(tick_labels(&axis(0.0, 1.0, true))[2], "0.4");
        assert_eq!(tick_labels(&axis(0.0, 50.0, true))[2], "20");
        assert_eq!(
            tick_labels(&axis(0.0, 1.2e6, true)),
            vec!["0", "0.5e6", "1.0e6", "1.5e6"]
        );
        assert_eq!(tick_labels(&axis(0.0, 2e-5, true))[1], "0.5e-5");
    }

    #[test]
    fn gaps_split_the_curves() {
        let b = Some(Bounds {
            lower: 0.0,
            result: Some(0.5),
            upper: 1.0,
        });
        let s = |x, y| Sample { x, y };
        let r = runs(&[s(0.0, b), s(1.0, None), s(2.0, b), s(3.0, b), s(4.0, None)]);
        assert_eq!(r.iter().map(Vec::len).collect::<Vec<_>>(), vec![1, 2]);
        let doc = svg(
            "T",
            "N=<2>",
            &[Panel {
                title: "P=? [ F<=T \"a&b\" ]".into(),
                samples: vec![s(0.0, b), s(1.0, b)],
            }],
        );
        assert!(doc.contains("&quot;a&amp;b&quot;") && doc.contains("N=&lt;2&gt;"));
        assert_eq!(doc.matches("class=\"result\"").count(), 1);
    }
}
