//! `--plot FILE.svg`: numbers over one ranged constant, or over epsilon, as an SVG line chart,
//! one panel per property (or two side by side, thesis Figures 7.6-7.7) in one file: the
//! result as a line, the guaranteed lower and upper bounds as a shaded band edged by two dashed
//! lines (for the satisfying sets of a threshold, the sizes of the lower and the upper set),
//! axes with ticks and labels (the x axis logarithmic for epsilon), the property as the panel's
//! title. Plain SVG 1.1 written by hand: no fonts, no scripts, every curve a `<polyline>` with
//! a `class` (`result`, `lower`, `upper`) so tests and scripts can read the points back.

mod axis;

use std::fmt::Write as _;

use axis::{axis, extent, log_axis, tick_labels};

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

/// What a panel shows on its y axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// A property's value: the result and its guaranteed bounds.
    Value,
    /// The sizes of a state formula's lower and upper satisfying sets (whole numbers; the
    /// states between are undecided).
    SetSizes,
}

impl Measure {
    fn y_label(self) -> &'static str {
        match self {
            Measure::Value => "value",
            Measure::SetSizes => "states",
        }
    }

    /// The stroke of the lower and the upper curve: colour, width, dashes.
    fn edges(self) -> [(&'static str, f64, &'static str); 2] {
        match self {
            Measure::Value => [(BAND_EDGE, 1.0, "4 3"), (BAND_EDGE, 1.0, "4 3")],
            // two curves of their own (the thesis's X^l and X^u), visible where they coincide
            Measure::SetSizes => [(BAND_EDGE, 2.0, "none"), ("#e6550d", 2.0, "6 4")],
        }
    }

    /// The legend's entries after the result's.
    fn legend(self) -> Vec<Legend> {
        match self {
            Measure::Value => vec![Legend::Band("guaranteed bounds")],
            Measure::SetSizes => {
                let [lower, upper] = self.edges();
                vec![
                    Legend::Line(lower, "|X^l| (surely)"),
                    Legend::Line(upper, "|X^u| (possibly)"),
                    Legend::Band("undecided"),
                ]
            }
        }
    }
}

/// An entry of a panel's legend: a line's stroke, or the band, and its label.
enum Legend {
    Line((&'static str, f64, &'static str), &'static str),
    Band(&'static str),
}

const BAND_EDGE: &str = "#3182bd";
const RESULT: (&str, f64, &str) = ("#d62728", 2.0, "none");

/// One panel: a property's title and its samples.
#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub samples: Vec<Sample>,
    pub measure: Measure,
}

/// A figure: rows of panels side by side over one x axis, `x_name`, logarithmic when `log_x`
/// (every `x` then positive); `note` (the other constants' values) under each title.
pub struct Figure<'a> {
    pub x_name: &'a str,
    pub log_x: bool,
    pub note: &'a str,
    pub rows: Vec<Vec<Panel>>,
}

const WIDTH: f64 = 720.0;
const PANEL_HEIGHT: f64 = 400.0;
const LEFT: f64 = 110.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 80.0;
const BOTTOM: f64 = 56.0;
/// Markers on the result's points up to this many points.
const MARKERS_UP_TO: usize = 60;

/// The SVG document of panels stacked top to bottom over the linear axis `x_name`.
pub fn svg(x_name: &str, note: &str, panels: &[Panel]) -> String {
    figure(&Figure {
        x_name,
        log_x: false,
        note,
        rows: panels.iter().map(|p| vec![p.clone()]).collect(),
    })
}

/// The SVG document of a figure: its rows top to bottom, each row's panels left to right.
pub fn figure(f: &Figure) -> String {
    let columns = f.rows.iter().map(Vec::len).max().unwrap_or(1).max(1);
    let width = WIDTH * columns as f64;
    let height = PANEL_HEIGHT * f.rows.len().max(1) as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>"#
    );
    for (i, row) in f.rows.iter().enumerate() {
        for (j, p) in row.iter().enumerate() {
            panel(&mut s, f, p, WIDTH * j as f64, PANEL_HEIGHT * i as f64);
        }
    }
    s.push_str("</svg>\n");
    s
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

/// One panel of `f`, its top left corner at (`left`, `top`).
fn panel(s: &mut String, f: &Figure, p: &Panel, left: f64, top: f64) {
    let (x0, x1) = (left + LEFT, left + WIDTH - RIGHT);
    let mid = left + WIDTH / 2.0;
    let (y0, y1) = (top + TOP, top + PANEL_HEIGHT - BOTTOM);
    let _ = writeln!(s, "<g class=\"panel\">");
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="15" text-anchor="middle" class="title">{}</text>"#,
        mid,
        top + 22.0,
        escape(&p.title)
    );
    if !f.note.is_empty() {
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#555">{}</text>"##,
            mid,
            top + 40.0,
            escape(f.note)
        );
    }
    let xs = extent(
        p.samples
            .iter()
            .map(|q| q.x)
            .filter(|&x| !f.log_x || x > 0.0),
    );
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
            mid,
            (y0 + y1) / 2.0
        );
        let _ = writeln!(s, "</g>");
        return;
    };
    let ax = if f.log_x {
        log_axis(xa, xb)
    } else {
        axis(xa, xb, false, 0.0)
    };
    let min_step = if p.measure == Measure::SetSizes {
        1.0
    } else {
        0.0
    };
    let ay = axis(ya, yb, true, min_step);
    let px = |x: f64| x0 + ax.fraction(x) * (x1 - x0);
    let py = |y: f64| y1 - ay.fraction(y) * (y1 - y0);
    // grid, ticks and labels (a tick is on the axis's own scale: a logarithm on a log axis)
    let tick_x = |t: f64| x0 + (t - ax.lo) / (ax.hi - ax.lo) * (x1 - x0);
    for (&t, label) in ax.ticks.iter().zip(tick_labels(&ax)) {
        let x = tick_x(t);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.2}" y1="{y0:.2}" x2="{x:.2}" y2="{y1:.2}" stroke="#e4e4e4"/><line x1="{x:.2}" y1="{y1:.2}" x2="{x:.2}" y2="{:.2}" stroke="black"/><text x="{x:.2}" y="{:.2}" font-size="11" text-anchor="middle">{label}</text>"##,
            y1 + 5.0,
            y1 + 18.0,
        );
    }
    let y_labels = tick_labels(&ay);
    // the y axis's name left of its widest tick label (about 6.6 pixels a character)
    let widest = y_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let name_x = x0 - 16.0 - 6.6 * widest as f64;
    for (&t, label) in ay.ticks.iter().zip(y_labels) {
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
        escape(f.x_name)
    );
    if name_x >= left + 14.0 {
        let _ = writeln!(
            s,
            r#"<text x="{:.2}" y="{:.2}" font-size="13" text-anchor="middle" transform="rotate(-90 {:.2} {:.2})">{}</text>"#,
            name_x,
            (y0 + y1) / 2.0,
            name_x,
            (y0 + y1) / 2.0,
            p.measure.y_label()
        );
    } else {
        // tick labels too wide for the name beside them: the name above the axis
        let _ = writeln!(
            s,
            r#"<text x="{:.2}" y="{:.2}" font-size="13" text-anchor="middle">{}</text>"#,
            x0,
            y0 - 12.0,
            p.measure.y_label()
        );
    }
    // the band, its edges, the result
    for run in runs(&p.samples) {
        let upper = run.iter().map(|(x, b)| (px(*x), py(b.upper)));
        let lower = run.iter().rev().map(|(x, b)| (px(*x), py(b.lower)));
        let _ = writeln!(
            s,
            r##"<polygon class="band" points="{}" fill="#9ecae1" fill-opacity="0.45" stroke="none"/>"##,
            points(upper.chain(lower))
        );
        let [lower, upper] = p.measure.edges();
        for (class, (colour, width, dashes), pick) in [
            ("lower", lower, (|b: &Bounds| b.lower) as fn(&Bounds) -> f64),
            ("upper", upper, |b: &Bounds| b.upper),
        ] {
            let _ = writeln!(
                s,
                r##"<polyline class="{class}" points="{}" fill="none" stroke="{colour}" stroke-width="{width}" stroke-dasharray="{dashes}"/>"##,
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
    // the legend, right-aligned above the frame (the result's entry only where there is one)
    let mut entries = Vec::new();
    if p.samples
        .iter()
        .any(|q| q.y.is_some_and(|b| b.result.is_some()))
    {
        entries.push(Legend::Line(RESULT, "result"));
    }
    entries.extend(p.measure.legend());
    legend(s, &entries, x1, y0 - 12.0);
    let _ = writeln!(s, "</g>");
}

/// The legend's `entries` on one line at height `y`, ending at `right`: a sample of each
/// stroke or of the band, then its label (about 6 pixels per character at font size 11).
fn legend(s: &mut String, entries: &[Legend], right: f64, y: f64) {
    let label = |e: &Legend| match e {
        Legend::Line(_, l) | Legend::Band(l) => *l,
    };
    let width = |e: &Legend| 30.0 + 6.0 * label(e).chars().count() as f64 + 14.0;
    let mut x = right - entries.iter().map(width).sum::<f64>() + 14.0;
    for e in entries {
        match e {
            Legend::Line((colour, w, dashes), _) => {
                let _ = write!(
                    s,
                    r##"<line x1="{x:.2}" y1="{y:.2}" x2="{:.2}" y2="{y:.2}" stroke="{colour}" stroke-width="{w}" stroke-dasharray="{dashes}"/>"##,
                    x + 24.0
                );
            }
            Legend::Band(_) => {
                let _ = write!(
                    s,
                    r##"<rect x="{x:.2}" y="{:.2}" width="24" height="9" fill="#9ecae1" fill-opacity="0.45" stroke="{BAND_EDGE}" stroke-dasharray="4 3"/>"##,
                    y - 4.5
                );
            }
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.2}" y="{:.2}" font-size="11">{}</text>"#,
            x + 30.0,
            y + 4.0,
            escape(label(e))
        );
        x += width(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                measure: Measure::Value,
            }],
        );
        assert!(doc.contains("&quot;a&amp;b&quot;") && doc.contains("N=&lt;2&gt;"));
        assert_eq!(doc.matches("class=\"result\"").count(), 1);
    }
}
