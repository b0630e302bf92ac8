//! `saturn check --const T=lo:step:hi` (PRISM's experiments) and `--plot FILE.svg`, run as a
//! user runs them: a ranged time bound on a two-state chain checked point by point against
//! the closed form 1 - exp(-lambda T), the guaranteed bounds containing it, the chain built
//! once; a ranged model constant rebuilding the chain; the JSON and the SVG read back; every
//! bad input refused with exit 2 and a message naming the problem.

use crate::prism_cli::{files, json, refused, run};

/// A birth chain 0..N at rate `lambda` (`N` undefined): from 0, `s=1` within T has
/// probability 1 - exp(-lambda T).
const CHAIN: &str = "ctmc\nconst int N;\nconst double lambda = 0.5;\n\
module m\n  s : [0..N];\n  [] s<N -> lambda : (s'=s+1);\nendmodule\n";

/// A numeric property over the time bound `T`, a boolean one, and `s=N` reached.
const PROPS: &str = "const double T;\nP=? [ F<=T s=1 ];\nP>0.5 [ F<=T s=1 ];\n\
P=? [ F<=T s=N ];\n";

/// `saturn check c.sm --props c.props --const CONSTS EXTRA...` in `d`.
fn check(d: &std::path::Path, consts: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["check", "c.sm", "--props", "c.props", "--const", consts];
    args.extend(extra);
    run(d, &args)
}

fn exact(t: f64) -> f64 {
    1.0 - (-0.5 * t).exp()
}

#[test]
fn a_ranged_time_bound_follows_the_closed_form_on_one_chain() {
    let d = files(&[("c.sm", CHAIN), ("c.props", PROPS)]);
    let (code, out, err) = check(&d, "N=1,T=0:0.25:5", &["--json", "--plot", "p.svg"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["ranged"], serde_json::json!(["T"]));
    // the time bound is a property constant: one chain for the 21 points
    let builds = v["builds"].as_array().expect("builds");
    assert_eq!(builds.len(), 1, "{}", v["builds"]);
    assert_eq!(builds[0]["states"], 2);
    let props = v["properties"].as_array().expect("properties");
    assert_eq!(props.len(), 3);
    let points = props[0]["points"].as_array().expect("points");
    assert_eq!(points.len(), 21);
    for (i, p) in points.iter().enumerate() {
        let t = p["consts"]["T"].as_f64().expect("T");
        assert!((t - 0.25 * i as f64).abs() < 1e-12, "{p}");
        assert_eq!(p["consts"]["N"], 1);
        let (r, lo, hi) = (
            p["result"].as_f64().expect("result"),
            p["lower"].as_f64().expect("lower"),
            p["upper"].as_f64().expect("upper"),
        );
        let x = exact(t);
        assert!((r - x).abs() < 1e-6, "T={t}: {r} vs {x}");
        assert!(
            lo <= x + 1e-15 && x - 1e-15 <= hi,
            "T={t}: {x} not in [{lo}, {hi}]"
        );
    }
    // the boolean property: true once 1 - exp(-T/2) > 0.5, i.e. T > 2 ln 2 = 1.386...
    for p in props[1]["points"].as_array().expect("points") {
        let t = p["consts"]["T"].as_f64().expect("T");
        assert_eq!(p["result"], t > 2.0 * 2f64.ln(), "{p}");
    }
    // the plot: well-formed XML, the two numeric properties, 21 points per curve
    let svg = std::fs::read_to_string(d.join("p.svg")).expect("the plot is written");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("title"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        titles,
        vec!["[1] P=? [ F<=T s = 1 ]", "[3] P=? [ F<=T s = N ]"],
        "{svg}"
    );
    for class in ["result", "lower", "upper"] {
        let lines: Vec<_> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "polyline" && n.attribute("class") == Some(class))
            .collect();
        assert_eq!(lines.len(), 2, "{class}");
        for l in lines {
            let pts: Vec<(f64, f64)> = l
                .attribute("points")
                .expect("points")
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').expect("x,y");
                    (x.parse().expect("x"), y.parse().expect("y"))
                })
                .collect();
            assert_eq!(pts.len(), 21, "{class}");
            // left to right, and the probability rising: y (downwards in SVG) falling
            assert!(pts.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 >= w[1].1));
        }
    }
}

#[test]
fn the_text_output_is_one_table_per_property() {
    let d = files(&[("c.sm", CHAIN), ("c.props", PROPS)]);
    let (code, out, err) = check(&d, "N=1,T=0:2", &["--prop", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("3 points, 1 chain(s) built"), "{out}");
    let table: Vec<Vec<&str>> = out
        .lines()
        .skip_while(|l| !l.starts_with("[1] "))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(table[0], vec!["T", "Result", "Lower", "Upper"], "{out}");
    assert_eq!(table.len(), 4, "{out}");
    for (t, row) in table[1..].iter().enumerate() {
        assert_eq!(row[0], t.to_string());
        let cell = |k: usize| row[k].parse::<f64>().expect("a number");
        let x = exact(t as f64);
        assert!(
            (cell(1) - x).abs() < 1e-6 && cell(2) <= x && x <= cell(3),
            "{row:?}"
        );
    }
}

#[test]
fn a_ranged_model_constant_rebuilds_the_chain() {
    let d = files(&[("c.sm", CHAIN), ("c.props", PROPS)]);
    // N varies fastest: the points are grouped by N all the same, two chains for four points
    let (code, out, err) = check(&d, "T=1:2,N=1:2", &["--json", "--prop", "3"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let builds: Vec<(String, u64)> = v["builds"]
        .as_array()
        .expect("builds")
        .iter()
        .map(|b| {
            (
                b["constants"].as_str().expect("text").to_string(),
                b["states"].as_u64().expect("states"),
            )
        })
        .collect();
    assert_eq!(builds, vec![("N=1".into(), 2), ("N=2".into(), 3)]);
    let points = v["properties"][0]["points"].as_array().expect("points");
    assert_eq!(points.len(), 4);
    // PRISM's order: the last constant fastest
    let seen: Vec<(i64, i64, u64)> = points
        .iter()
        .map(|p| {
            (
                p["consts"]["T"].as_i64().expect("T"),
                p["consts"]["N"].as_i64().expect("N"),
                p["states"].as_u64().expect("states"),
            )
        })
        .collect();
    assert_eq!(seen, vec![(1, 1, 2), (1, 2, 3), (2, 1, 2), (2, 2, 3)]);
    for p in points {
        let t = p["consts"]["T"].as_f64().expect("T");
        let r = p["result"].as_f64().expect("result");
        // N=1: 1 - exp(-T/2); N=2 (Erlang-2): 1 - exp(-T/2)(1 + T/2)
        let x = if p["consts"]["N"] == 1 {
            exact(t)
        } else {
            1.0 - (-0.5 * t).exp() * (1.0 + 0.5 * t)
        };
        assert!((r - x).abs() < 1e-6, "{p}: {x}");
    }
}

#[test]
fn bad_ranges_and_plots_are_refused_with_exit_2() {
    let d = files(&[("c.sm", CHAIN), ("c.props", PROPS)]);
    let net = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/nets/assembly-30.pnml");
    let prism = |c: &'static str| vec!["c.sm", "--props", "c.props", "--const", c];
    let with = |mut v: Vec<&'static str>, extra: &[&'static str]| {
        v.extend(extra);
        v
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (prism("N=1,T=5:1"), "T: the step 1 never gets from 5 to 1"),
        (prism("N=1,T=0:0:5"), "T: the step 0 never gets from 0 to 5"),
        (prism("N=1,T=a:b"), "T: `a` is not a number"),
        (
            prism("N=1,T=0:-1:5"),
            "T: the step -1 never gets from 0 to 5",
        ),
        (prism("N=1,T=1:2:3:4"), "T: expected VALUE, START:END"),
        (
            prism("N=1,T=0:1:200000"),
            "T: the range 0:1:200000 has more than 100000 values",
        ),
        (
            prism("N=1,T=0:1:2,lambda=1:2"),
            "constant `lambda` is defined in the file",
        ),
        (prism("N=1,T=1,Z=1:3"), "unknown constant(s): Z"),
        // a point the property file refuses: named
        (prism("N=1,T=-1:1"), "at constants N=1,T=-1:"),
        (prism("N=1,T=1:-1:-1"), "at constants N=1,T=-1:"),
        (
            with(prism("N=1,T=1"), &["--plot", "p.svg"]),
            "--plot p.svg: plots are drawn over a ranged constant",
        ),
        (
            with(prism("N=1:2,T=0:1"), &["--plot", "p.svg"]),
            "exactly one ranged constant, but --const ranges 2 (N, T)",
        ),
        (
            with(prism("N=1,T=0:1"), &["--plot", "p.svg", "--prop", "2"]),
            "nothing to draw",
        ),
        (
            vec![net, "--ctl", "true", "--plot", "p.svg"],
            "apply to PRISM models",
        ),
    ];
    for (args, what) in cases {
        let out = refused(&d, &args, what);
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(!d.join("p.svg").exists(), "{args:?}: a plot was written");
    }
}
