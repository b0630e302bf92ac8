//! `saturn check --epsilon START:END [--plot FILE.svg]`: the bounds and the satisfying sets
//! against epsilon (thesis Figures 7.6-7.7), run as a user runs them on a chain whose answers
//! are known in closed form: every bound contains the exact value; a time-bounded until's
//! width is at most epsilon and does not grow as epsilon shrinks; an unbounded until's width
//! is within epsilon relative; the lower and upper satisfying sets of a threshold contain the
//! exact satisfying set between them and meet it once epsilon is small; the table, the JSON
//! and the SVG's two panels per threshold read back; bad input refused with exit 2.

use crate::prism_cli::{files, json, refused, run};

/// `s` wanders between 0 and 1 until it is absorbed in 2 or 3: from 0 it reaches 2 with
/// probability 2/5 (`p0 = (2/3) p1`, `p1 = (2/3) p0 + 1/3`), from 1 with 3/5. `t`, on its
/// own, turns 1 at rate 0.5: `t=1` within 1.5 has probability 1 - exp(-0.75).
const CHAIN: &str = "ctmc\nmodule a\n  s : [0..3];\n\
  [] s=0 -> 0.5 : (s'=1) + 0.25 : (s'=3);\n  [] s=1 -> 2 : (s'=0) + 1 : (s'=2);\nendmodule\n\
module b\n  t : [0..1];\n  [] t=0 -> 0.5 : (t'=1);\nendmodule\n";

/// Unbounded until and its threshold (true in the 4 states with s=1 or s=2: 0.6 and 1 are
/// at least 0.41, 0.4 and 0 are not), time-bounded until and its threshold (true in the 4
/// states with t=0: 0.5276 <= 0.6 < 1).
const PROPS: &str = "P=? [ F s=2 ];\nP>=0.41 [ F s=2 ];\nP=? [ F<=1.5 t=1 ];\n\
P<=0.6 [ F<=1.5 t=1 ];\n";

const EPSILONS: [f64; 8] = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8];

fn timed() -> f64 {
    1.0 - (-0.75f64).exp()
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// The points of property `k` (0-based) of the JSON.
fn points(v: &serde_json::Value, k: usize) -> &Vec<serde_json::Value> {
    v["properties"][k]["points"].as_array().expect("points")
}

#[test]
fn bounds_and_sets_against_epsilon_contain_the_exact_values() {
    let d = files(&[("c.sm", CHAIN), ("c.props", PROPS)]);
    let (code, out, err) = run(
        &d,
        &[
            "check",
            "c.sm",
            "--props",
            "c.props",
            "--epsilon",
            "1e-1:1e-8",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["states"], 8);
    assert_eq!(v["convergence"], "relative");
    let eps: Vec<f64> = v["epsilons"]
        .as_array()
        .expect("epsilons")
        .iter()
        .map(|e| e.as_f64().expect("a number"))
        .collect();
    assert_eq!(eps, EPSILONS);
    for (k, exact) in [(0, 0.4), (1, 0.4), (2, timed()), (3, timed())] {
        let pts = points(&v, k);
        assert_eq!(pts.len(), EPSILONS.len());
        let mut last_width = f64::INFINITY;
        for (p, &e) in pts.iter().zip(&EPSILONS) {
            assert_eq!(f(p, "epsilon"), e);
            assert_eq!(p["status"], "ok", "{p}");
            assert_eq!(p["guaranteed"], true, "{p}");
            let (lo, hi, w) = (f(p, "lower"), f(p, "upper"), f(p, "width"));
            assert!(
                lo <= exact + 1e-15 && exact - 1e-15 <= hi,
                "#{k} at {e}: {exact} not in [{lo}, {hi}]"
            );
            if k < 2 {
                // interval iteration: within epsilon relative to the lower bound
                assert!(w <= e * lo * (1.0 + 1e-9), "#{k} at {e}: width {w}");
            } else {
                // uniformization: within epsilon, never wider as epsilon shrinks but for the
                // rounding charged per weight, which grows with the window (a probability:
                // 1e-13 absolute is hundreds of ulps)
                assert!(w <= e, "#{k} at {e}: width {w}");
                assert!(w <= last_width + 1e-13, "#{k} at {e}: {w} > {last_width}");
                last_width = w;
            }
            // a number has no sets, a threshold has them
            assert_eq!(p["lower_set"].is_null(), k % 2 == 0, "{p}");
        }
        // the interval iteration's width follows epsilon down over the decades
        if k == 0 {
            assert!(f(&pts[7], "width") < f(&pts[0], "width") * 1e-5, "{pts:?}");
        }
    }
    // the thresholds: X^l within the exact set of 4 states within X^u, and equal to it once
    // epsilon is small; the verdict in the initial state (s=0, t=0) never the wrong one
    for (k, verdict) in [(1, false), (3, true)] {
        for (p, &e) in points(&v, k).iter().zip(&EPSILONS) {
            let (l, u) = (
                p["lower_set"].as_u64().expect("lower set"),
                p["upper_set"].as_u64().expect("upper set"),
            );
            assert!(l <= 4 && 4 <= u, "#{k} at {e}: {l} {u}");
            if e <= 1e-4 {
                assert_eq!((l, u), (4, 4), "#{k} at {e}");
                assert_eq!(p["result"], verdict, "#{k} at {e}");
            } else {
                assert!(p["result"].is_null() || p["result"] == verdict, "{p}");
            }
        }
    }
    // a threshold is solved once: as many iterations as the number it compares, and the
    // same bounds
    for (number, threshold) in [(0, 1), (2, 3)] {
        for (n, t) in points(&v, number).iter().zip(points(&v, threshold)) {
            assert_eq!(n["iterations"], t["iterations"], "{n} {t}");
            assert_eq!(
                (n["lower"].clone(), n["upper"].clone()),
                (t["lower"].clone(), t["upper"].clone())
            );
        }
    }
    // the numeric properties' result is the middle of their bounds
    let p = &points(&v, 0)[3];
    assert!((f(p, "result") - 0.4).abs() < 1e-4, "{p}");
}

#[test]
fn the_table_and_the_two_panels_of_figures_7_6_and_7_7() {
    let d = files(&[("c.sm", CHAIN), ("c.props", PROPS)]);
    let (code, out, err) = run(
        &d,
        &[
            "check",
            "c.sm",
            "--props",
            "c.props",
            "--epsilon",
            "1e-2:1e-6",
            "--plot",
            "e.svg",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("epsilon: 1e-2:1e-6 (5 values, relative, no refinement)"),
        "{out}"
    );
    // the threshold's table: epsilon, verdict, bounds, width, sets, iterations
    let table: Vec<Vec<&str>> = out
        .lines()
        .skip_while(|l| !l.starts_with("[2] "))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        table[0],
        vec![
            "Epsilon",
            "Result",
            "Lower",
            "Upper",
            "Width",
            "|X^l|",
            "|X^u|",
            "Iterations"
        ],
        "{out}"
    );
    assert_eq!(table.len(), 6, "{out}");
    assert_eq!(table[1][0], "1e-2");
    assert_eq!(table[5][0], "1e-6");
    assert_eq!(&table[5][1..2], ["false"]);
    assert_eq!(&table[5][5..7], ["4", "4"]);
    // a number's table has no set columns
    let header: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("[1] "))
        .nth(1)
        .expect("a header")
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        vec!["Epsilon", "Result", "Lower", "Upper", "Width", "Iterations"]
    );

    let svg = std::fs::read_to_string(d.join("e.svg")).expect("the plot is written");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    // two panels side by side for a threshold: twice the width
    assert_eq!(doc.root_element().attribute("width"), Some("1440"));
    let panels: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("panel"))
        .collect();
    let title = |p: &roxmltree::Node| {
        p.descendants()
            .find(|n| n.attribute("class") == Some("title"))
            .and_then(|n| n.text())
            .unwrap_or_default()
            .to_string()
    };
    let titles: Vec<String> = panels.iter().map(title).collect();
    assert_eq!(
        titles,
        vec![
            "[1] P=? [ F s = 2 ]: bounds in the initial state",
            "[2] P>=0.41 [ F s = 2 ]: |X^l|, |X^u|",
            "[2] P>=0.41 [ F s = 2 ]: bounds in the initial state",
            "[3] P=? [ F<=1.5 t = 1 ]: bounds in the initial state",
            "[4] P<=0.6 [ F<=1.5 t = 1 ]: |X^l|, |X^u|",
            "[4] P<=0.6 [ F<=1.5 t = 1 ]: bounds in the initial state",
        ],
        "{svg}"
    );
    let curve = |p: &roxmltree::Node, class: &str| -> Vec<(f64, f64)> {
        let line = p
            .descendants()
            .find(|n| n.tag_name().name() == "polyline" && n.attribute("class") == Some(class))
            .unwrap_or_else(|| panic!("{class} in {}", title(p)));
        line.attribute("points")
            .expect("points")
            .split_whitespace()
            .map(|q| {
                let (x, y) = q.split_once(',').expect("x,y");
                (x.parse().expect("x"), y.parse().expect("y"))
            })
            .collect()
    };
    for p in &panels {
        for class in ["lower", "upper"] {
            let pts = curve(p, class);
            assert_eq!(pts.len(), 5, "{} {class}", title(p));
            // epsilon increasing to the right, one decade a step: evenly spaced on a log axis
            let steps: Vec<f64> = pts.windows(2).map(|w| w[1].0 - w[0].0).collect();
            assert!(steps[0] > 0.0, "{steps:?}");
            assert!(
                steps.iter().all(|s| (s - steps[0]).abs() < 0.02),
                "{steps:?}"
            );
        }
    }
    // the result of a number drawn between its bounds; none for a threshold
    let results = |p: &roxmltree::Node| {
        p.descendants()
            .filter(|n| n.attribute("class") == Some("result"))
            .count()
    };
    assert_eq!(results(&panels[0]), 1);
    assert_eq!(results(&panels[2]), 0);
    // the sets' panel: X^l below or on X^u everywhere (y grows downwards), and the unbounded
    // until's bounds narrowing as epsilon shrinks (left: small epsilon)
    let (l, u) = (curve(&panels[1], "lower"), curve(&panels[1], "upper"));
    assert!(l.iter().zip(&u).all(|(a, b)| a.1 >= b.1 - 1e-9));
    let (l, u) = (curve(&panels[2], "lower"), curve(&panels[2], "upper"));
    let gap = |i: usize| l[i].1 - u[i].1;
    assert!(gap(0) <= gap(4), "{l:?} {u:?}");
}

/// A ranged `--const` with a ranged `--epsilon`: every point of the constants at every
/// epsilon, the chain built once per value of the model's constants (`N` changes a rate, `T`
/// is a time bound of the property file); each point's bounds contain its exact value.
#[test]
fn epsilon_experiments_at_every_point_of_ranged_constants() {
    // from s=0, s=2 is reached with probability (N/2 * 1/3) / (N/2 * 1/3 + 1/4): 2/5 at N=1,
    // 4/7 at N=2; t=1 within T has probability 1 - exp(-T/2)
    let chain = CHAIN
        .replace("ctmc\n", "ctmc\nconst int N;\n")
        .replace("0.5 : (s'=1)", "0.5*N : (s'=1)");
    let props = "const double T;\nP=? [ F s=2 ];\nP=? [ F<=T t=1 ];\nP>=0.41 [ F s=2 ];\n";
    let d = files(&[("c.sm", chain.as_str()), ("c.props", props)]);
    let args = [
        "check",
        "c.sm",
        "--props",
        "c.props",
        "--const",
        "N=1:2,T=1:0.5:1.5",
        "--epsilon",
        "1e-1:1e-3",
    ];
    let mut with_json = args.to_vec();
    with_json.push("--json");
    let (code, out, err) = run(&d, &with_json);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["ranged"], serde_json::json!(["N", "T"]));
    assert_eq!(v["builds"].as_array().map(Vec::len), Some(2), "{v}");
    let reach = |n: f64| (n / 6.0) / (n / 6.0 + 0.25);
    for k in 0..3 {
        let pts = points(&v, k);
        // N, then T, then epsilon varying fastest
        assert_eq!(pts.len(), 2 * 2 * 3);
        for (i, p) in pts.iter().enumerate() {
            let (n, t, e) = (
                1 + i / 6,
                1.0 + 0.5 * ((i / 3) % 2) as f64,
                [1e-1, 1e-2, 1e-3][i % 3],
            );
            assert_eq!(p["consts"]["N"], n, "{p}");
            assert_eq!(f(&p["consts"], "T"), t, "{p}");
            assert_eq!(f(p, "epsilon"), e, "{p}");
            assert_eq!(p["status"], "ok", "{p}");
            let exact = match k {
                1 => 1.0 - (-t / 2.0).exp(),
                _ => reach(n as f64),
            };
            let (lo, hi) = (f(p, "lower"), f(p, "upper"));
            assert!(
                lo <= exact + 1e-15 && exact - 1e-15 <= hi,
                "{exact} not in {p}"
            );
            assert!(hi - lo <= e * hi + 1e-15, "wider than epsilon: {p}");
            if k == 2 {
                // 4/7 >= 0.41 everywhere at N=2; 2/5 < 0.41, decided once epsilon is small
                let want = if n == 2 {
                    Some(true)
                } else {
                    (e < 1e-1).then_some(false)
                };
                assert_eq!(p["result"].as_bool(), want, "{p}");
            }
        }
    }
    // the table: a column per ranged constant before the epsilon's
    let (code, out, err) = run(&d, &args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(4 points, 2 chain(s) built"), "{out}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip_while(|l| !l.starts_with("[2] "))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0][..4], ["N", "T", "Epsilon", "Result"], "{out}");
    assert_eq!(rows.len(), 13, "{out}");
    assert_eq!(rows[12][..3], ["2", "1.5", "1e-3"], "{out}");
    // the plot: a row of panels per property and point (4 numbers, 4 thresholds with two)
    let mut plotted = args.to_vec();
    plotted.extend(["--plot", "e.svg"]);
    let (code, _, err) = run(&d, &plotted);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(d.join("e.svg")).expect("the plot is written");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("title"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(titles.len(), 4 + 4 + 8, "{titles:?}");
    assert!(
        titles
            .iter()
            .any(|t| t.contains("[2] P=? [ F<=T t = 1 ] at N=2,T=1.5")),
        "{titles:?}"
    );
}

#[test]
fn bad_epsilon_experiments_are_refused() {
    let d = files(&[
        ("c.sm", CHAIN),
        ("c.props", "const double T;\nP=? [ F<=T t=1 ];\n"),
    ]);
    let base = ["c.sm", "--props", "c.props"];
    let with = |extra: &[&'static str]| {
        let mut v = base.to_vec();
        v.extend(extra);
        v
    };
    refused(
        &d,
        &with(&["--epsilon", "1e-1:x", "--const", "T=1"]),
        "not a positive number",
    );
    refused(
        &d,
        &with(&["--epsilon", "1e-1:2:1e-3", "--const", "T=1"]),
        "does not lead",
    );
    // a plot over epsilon at more points of the ranged constants than it draws rows for
    refused(
        &d,
        &with(&[
            "--epsilon",
            "1e-1:1e-3",
            "--const",
            "T=1:13",
            "--plot",
            "p.svg",
        ]),
        "at most 12 points",
    );
    refused(
        &d,
        &with(&["--epsilon", "0", "--const", "T=1"]),
        "not a positive number",
    );
    // one epsilon and --plot: nothing to draw over
    refused(
        &d,
        &with(&["--epsilon", "1e-3", "--const", "T=1", "--plot", "p.svg"]),
        "--epsilon 1e-1:1e-8",
    );
    // a point the model refuses stops the experiment with its message, exit 2
    let (code, _, err) = run(
        &d,
        &[
            "check",
            "c.sm",
            "--props",
            "c.props",
            "--epsilon",
            "1e-1:1e-2",
            "--const",
            "T=-1",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
