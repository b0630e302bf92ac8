//! `saturn check` on PRISM CTMCs and `saturn export`: results on hand-checkable chains, the
//! deadlock note, properties refused one by one, bad input (constants, rates, ranges,
//! `--prop`, engines) and non-convergence with a clear message and a non-zero exit, never a
//! number.

use crate::prism_cli::{files, json, refused, run};

/// A birth-death chain 0..N: up at rate `a`, down at rate `b`; `N` undefined.
const BD: &str = "ctmc\nconst int N;\nconst double a = 2;\nconst double b = 3;\n\
module q\n  x : [0..N];\n  [up] x<N -> a : (x'=x+1);\n  [down] x>0 -> b : (x'=x-1);\nendmodule\n\
label \"full\" = x=N;\nrewards \"ups\"\n  [up] true : 1;\nendrewards\nrewards \"level\"\n  true : x;\nendrewards\n";

const BD_PROPS: &str = "S=? [ \"full\" ];\nR{\"ups\"}=? [ S ];\nP=? [ F x=N ];\n\
P=? [ F<=1 x=N ];\nR{\"level\"}=? [ F \"full\" ];\nS>0.5 [ x=0 ];\n";

#[test]
fn birth_death_chain_results() {
    let d = files(&[("bd.sm", BD), ("bd.props", BD_PROPS)]);
    let (code, out, err) = run(
        &d,
        &[
            "check",
            "bd.sm",
            "--props",
            "bd.props",
            "--const",
            "N=2",
            "--json",
            "--epsilon",
            "1e-12",
        ],
    );
    // every property answered (property 4 by transient analysis)
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["states"], 3);
    let p = v["properties"].as_array().expect("array");
    assert_eq!(p.len(), 6);
    // pi = (9, 6, 4) / 19
    let num = |k: usize| p[k]["result"].as_f64().expect("a number");
    assert!((num(0) - 4.0 / 19.0).abs() < 1e-9);
    // throughput of ups: rate 2 in states 0 and 1: 2 * 15/19
    assert!((num(1) - 30.0 / 19.0).abs() < 1e-9);
    assert_eq!(num(2), 1.0);
    // P(F<=1 x=2) from 0, x=2 absorbing: exp(Q) by scaling and squaring gives
    // 0.4080482814608003; the printed bounds must contain it
    let (lo, hi) = (
        p[3]["lower"].as_f64().expect("lower"),
        p[3]["upper"].as_f64().expect("upper"),
    );
    assert!(lo <= 0.408048281461 && 0.408048281460 <= hi, "[{lo}, {hi}]");
    assert!((num(3) - 0.4080482814608003).abs() < 1e-9, "{}", num(3));
    // from 0: time in 0 is 1/2 (level 0), then in 1: expected level accumulated x/h ...
    // E[R] from 0 = t0*0 + E1; E1 = 1/5 * 1 + 3/5 * E0' ; with E0 = E1 (level 0 costs 0)
    // E1 = 1/5 + 3/5 E1  =>  E1 = 1/2
    assert!((num(4) - 0.5).abs() < 1e-9, "{}", num(4));
    assert_eq!(p[5]["result"], false);
    assert_eq!(p[5]["index"], 6);
}

#[test]
fn deadlocks_get_a_self_loop_and_a_note() {
    let m = "ctmc\nmodule m\n  x : [0..2];\n  [] x<2 -> 1 : (x'=x+1);\nendmodule\n";
    let d = files(&[("d.sm", m), ("d.props", "S=? [ x=2 ];\nP=? [ F x=2 ];\n")]);
    let (code, out, err) = run(&d, &["check", "d.sm", "--props", "d.props"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("deadlock"), "{err}");
    assert!(out.contains("states: 3, transitions: 3"), "{out}");
    assert_eq!(out.matches("Result: 1 ").count(), 2, "{out}");
}

#[test]
fn bad_input_is_an_error_with_exit_2() {
    let neg = "ctmc\nmodule m\n  x : [0..2];\n  [] x<2 -> 0.5-x : (x'=x+1);\nendmodule\n";
    let range = "ctmc\nmodule m\n  x : [0..2];\n  [] true -> 1 : (x'=x+1);\nendmodule\n";
    let d = files(&[
        ("bd.sm", BD),
        ("bd.props", BD_PROPS),
        ("neg.sm", neg),
        ("range.sm", range),
        ("p.props", "P=? [ F x=2 ];\n"),
    ]);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["bd.sm", "--props", "bd.props"], "undefined constant"),
        (
            vec!["bd.sm", "--props", "bd.props", "--const", "N=2,Z=1"],
            "unknown constant",
        ),
        (
            vec![
                "bd.sm", "--props", "bd.props", "--const", "N=2", "--prop", "7",
            ],
            "has 6 properties",
        ),
        (
            vec![
                "bd.sm",
                "--props",
                "bd.props",
                "--const",
                "N=2",
                "--cache-threshold",
                "x",
            ],
            "--cache-threshold",
        ),
        (
            vec![
                "bd.sm",
                "--props",
                "bd.props",
                "--const",
                "N=2",
                "--epsilon",
                "0",
            ],
            "epsilon",
        ),
        (
            vec![
                "bd.sm", "--props", "bd.props", "--const", "N=2", "--solver", "sor", "--omega",
                "2.5",
            ],
            "omega",
        ),
        (vec!["neg.sm", "--props", "p.props"], "negative"),
        (vec!["range.sm", "--props", "p.props"], "out of range"),
        (vec!["bd.sm", "--const", "N=2"], "--props"),
    ];
    for (args, what) in cases {
        let out = refused(&d, &args, what);
        assert!(!out.contains("Result:"), "{args:?}: {out}");
    }
}

#[test]
fn no_convergence_prints_no_number() {
    // a random walk on 0..3,000 from 1,500, absorbed at both ends: Jacobi needs millions of
    // iterations, and the 2,999 unknown states are too many for the dense rescue
    let walk = "ctmc\nmodule w\n  x : [0..3000] init 1500;\n  [] x>0 & x<3000 -> 1 : (x'=x+1) + 1 : (x'=x-1);\nendmodule\n";
    // a 2-cycle leaking slowly to two absorbing states: Jacobi needs thousands of iterations
    let m = "ctmc\nmodule m\n  x : [0..3];\n  [] x=0 -> 1 : (x'=1) + 0.01 : (x'=2);\n  \
             [] x=1 -> 1 : (x'=0) + 0.01 : (x'=3);\nendmodule\n";
    let d = files(&[
        ("w.sm", walk),
        ("w.props", "P=? [ F x=3000 ];\n"),
        ("c.sm", m),
        ("c.props", "P=? [ F x=2 ];\n"),
    ]);
    let jacobi30 = ["--solver", "jacobi", "--max-iters", "30"];
    let (code, out, err) = run(
        &d,
        &[&["check", "w.sm", "--props", "w.props"][..], &jacobi30].concat(),
    );
    assert_eq!(code, 2, "{out} {err}");
    assert!(
        out.contains("did not converge within 30 iterations"),
        "{out}"
    );
    assert!(!out.contains("Result:"), "{out}");
    assert!(err.contains("did not converge"), "{err}");
    // on the small chain, the same 30 Jacobi sweeps fall short and the verified direct
    // solution gives the answer, said so: p0 = (p1 + 0.01) / 1.01, p1 = p0 / 1.01
    let q = 1.01f64;
    let want = (0.01 / q) / (1.0 - 1.0 / (q * q));
    let (code, out, err) = run(
        &d,
        &[
            &["check", "c.sm", "--props", "c.props", "--json"][..],
            &jacobi30,
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{out} {err}");
    let p = &json(&out)["properties"][0];
    let (lo, hi) = (
        p["lower"].as_f64().expect("lower"),
        p["upper"].as_f64().expect("upper"),
    );
    assert!(
        lo <= want && want <= hi && hi - lo <= 1e-6 * want,
        "[{lo}, {hi}] vs {want}: {out}"
    );
    assert!(out.contains("lu (verified)"), "{out}");
    // the automatic choice converges: p0 = (p1 + 0.01) / 1.01, p1 = p0 / 1.01
    let (code, out, _) = run(
        &d,
        &[
            "check",
            "c.sm",
            "--props",
            "c.props",
            "--json",
            "--epsilon",
            "1e-12",
        ],
    );
    assert_eq!(code, 0);
    let r = json(&out)["properties"][0]["result"]
        .as_f64()
        .expect("number");
    assert!((r - want).abs() < 1e-9 * want, "{r} vs {want}");
}

#[test]
fn export_writes_prisms_explicit_formats() {
    let d = files(&[("bd.sm", BD)]);
    let (code, _, err) = run(
        &d,
        &[
            "export", "bd.sm", "--const", "N=2", "--tra", "m.tra", "--sta", "m.sta", "--lab",
            "m.lab",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let read = |f: &str| std::fs::read_to_string(d.join(f)).expect("written");
    assert_eq!(read("m.tra"), "3 4\n0 1 2\n1 0 3\n1 2 2\n2 1 3\n");
    assert_eq!(read("m.sta"), "(x)\n0:(0)\n1:(1)\n2:(2)\n");
    assert_eq!(
        read("m.lab"),
        "0=\"init\" 1=\"deadlock\" 2=\"full\"\n0: 0\n2: 2\n"
    );
}

/// Knuth and Yao's die from fair coin flips (PRISM's tutorial `dtmc`).
const DIE: &str = "dtmc\nmodule die\n  s : [0..7] init 0;\n  d : [0..6] init 0;\n\
  [] s=0 -> 0.5 : (s'=1) + 0.5 : (s'=2);\n  [] s=1 -> 0.5 : (s'=3) + 0.5 : (s'=4);\n\
  [] s=2 -> 0.5 : (s'=5) + 0.5 : (s'=6);\n  [] s=3 -> 0.5 : (s'=1) + 0.5 : (s'=7) & (d'=1);\n\
  [] s=4 -> 0.5 : (s'=7) & (d'=2) + 0.5 : (s'=7) & (d'=3);\n\
  [] s=5 -> 0.5 : (s'=7) & (d'=4) + 0.5 : (s'=7) & (d'=5);\n\
  [] s=6 -> 0.5 : (s'=2) + 0.5 : (s'=7) & (d'=6);\n  [] s=7 -> (s'=7);\nendmodule\n\
rewards \"coin_flips\"\n  [] s<7 : 1;\nendrewards\n";

/// Properties of the die with their values by hand: each face 1/6; a face within 3 flips
/// unless the path is 0->1->3->1 or 0->2->6->2: 1 - 2/8 = 3/4; 11/3 flips expected (PRISM's
/// tutorial); 3 flips in the first 3 steps; the first flip leads to s=1 with 1/2. (A
/// threshold exactly at a step-bounded value, `P>=1`, stays undecided: its bounds carry a
/// rounding margin.)
const DIE_PROPS: &str = "P=? [ F s=7 & d=6 ];\nP=? [ F<=3 s=7 ];\nR{\"coin_flips\"}=? [ F s=7 ];\n\
R{\"coin_flips\"}=? [ C<=3 ];\nP=? [ X s=1 ];\nP>0.1 [ F s=7 & d=1 ];\nP=? [ F<3 s=7 ];\n\
filter(forall, P>=0.99 [ F<=1 s=7 ], s=4);\n";

#[test]
fn dtmc_die_by_hand() {
    let d = files(&[("die.pm", DIE), ("die.pctl", DIE_PROPS)]);
    for engine in ["sparse", "symbolic"] {
        let (code, out, err) = run(
            &d,
            &[
                "check", "die.pm", "--props", "die.pctl", "--json", "--engine", engine,
            ],
        );
        assert_eq!(code, 0, "{engine}: {err}");
        let v = json(&out);
        assert_eq!(v["type"], "dtmc");
        assert_eq!(v["states"], 13);
        let p = v["properties"].as_array().expect("array");
        let within = |k: usize, want: f64| {
            let (lo, hi) = (
                p[k]["lower"].as_f64().expect("lower"),
                p[k]["upper"].as_f64().expect("upper"),
            );
            assert!(
                lo <= want && want <= hi && hi - lo <= 1e-6 * want.max(1e-9),
                "{engine}: property {}: [{lo}, {hi}] for {want}",
                k + 1
            );
        };
        within(0, 1.0 / 6.0);
        within(1, 0.75);
        within(2, 11.0 / 3.0);
        within(3, 3.0);
        within(4, 0.5);
        assert_eq!(p[5]["result"], true, "{engine}");
        // F<3 is F<=2: no face after two flips
        assert_eq!(p[6]["result"], 0.0, "{engine}");
        assert_eq!(p[7]["result"], true, "{engine}");
    }
    // the text output names the kind of model
    let (code, out, _) = run(&d, &["check", "die.pm", "--props", "die.pctl"]);
    assert_eq!(code, 0);
    assert!(out.contains("model: die.pm (dtmc)"), "{out}");
}

#[test]
fn dtmc_self_loops_count_as_steps() {
    // a coin tossed until heads: the tails are self-loops (a step each, earning the transition
    // reward); a flip-flop for the Cesàro limit of a periodic chain
    let coin = "dtmc\nmodule c\n  x : [0..1];\n  [] x=0 -> 0.5 : (x'=1) + 0.5 : true;\n\
                [] x=1 -> true;\nendmodule\nrewards \"toss\"\n  [] x=0 : 1;\nendrewards\n\
                rewards \"wait\"\n  x=0 : 1;\nendrewards\n";
    let props = "R{\"toss\"}=? [ F x=1 ];\nR{\"wait\"}=? [ F x=1 ];\nP=? [ X x=0 ];\n\
                 P=? [ F<=2 x=1 ];\nP=? [ F=2 x=1 ];\nR{\"wait\"}=? [ I=1 ];\n\
                 R{\"toss\"}=? [ C<=2 ];\nS=? [ x=1 ];\nR{\"toss\"}=? [ S ];\n";
    let flip = "dtmc\nmodule f\n  x : [0..1];\n  [] true -> (x'=1-x);\nendmodule\n";
    let d = files(&[
        ("coin.pm", coin),
        ("coin.pctl", props),
        ("flip.pm", flip),
        (
            "flip.pctl",
            "S=? [ x=0 ];\nP=? [ X x=0 ];\nP=? [ F=3 x=1 ];\n",
        ),
    ]);
    let results = |model: &str, props: &str| -> Vec<f64> {
        let (code, out, err) = run(&d, &["check", model, "--props", props, "--json"]);
        assert_eq!(code, 0, "{err}");
        json(&out)["properties"]
            .as_array()
            .expect("array")
            .iter()
            .map(|p| p["result"].as_f64().expect("a number"))
            .collect()
    };
    let got = results("coin.pm", "coin.pctl");
    let want = [2.0, 2.0, 0.5, 0.75, 0.75, 0.5, 1.5, 1.0, 0.0];
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-6 * w.max(1e-9),
            "property {}: {g} for {w}",
            k + 1
        );
    }
    let got = results("flip.pm", "flip.pctl");
    for (k, (g, w)) in got.iter().zip([0.5, 0.0, 1.0]).enumerate() {
        assert!(
            (g - w).abs() <= 1e-6,
            "flip property {}: {g} for {w}",
            k + 1
        );
    }
}

#[test]
fn dtmc_non_integer_step_bound_is_refused_by_place() {
    let d = files(&[
        ("die.pm", DIE),
        ("bad.pctl", "P=? [ F<=2.5 s=7 ];\nP=? [ F<=2 s=7 ];\n"),
    ]);
    let (code, out, err) = run(&d, &["check", "die.pm", "--props", "bad.pctl"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("bad.pctl:1:10: a time bound of a dtmc is a whole number of steps, got 2.5"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // the other property is still answered: 0 -> {1,2} -> {3,4,5,6}: none is 7
    assert!(out.contains("Result: 0 "), "{out}");
}

#[test]
fn dtmc_overlapping_commands_are_chosen_uniformly() {
    // in x=0 both commands are enabled: each is taken with probability 1/2, as PRISM does
    let two =
        "dtmc\nmodule m\n  x : [0..2];\n  [] x<2 -> (x'=x+1);\n  [] x=0 -> (x'=2);\nendmodule\n";
    let d = files(&[
        ("two.pm", two),
        ("p.pctl", "P=? [ X x=2 ];\nP=? [ F<=1 x=1 ];\n"),
    ]);
    for engine in ["sparse", "symbolic"] {
        let (code, out, err) = run(
            &d,
            &["check", "two.pm", "--props", "p.pctl", "--engine", engine],
        );
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains("each is chosen with the same probability"),
            "{err}"
        );
        assert_eq!(out.matches("Result: 0.5 ").count(), 2, "{engine}: {out}");
    }
    // probabilities that add up to neither 1 nor a whole number: an error naming the state
    let bad = "dtmc\nmodule m\n  x : [0..2];\n  [] x<2 -> (x'=x+1);\n  [] x=0 -> 0.5 : (x'=2);\nendmodule\n";
    let d = files(&[("bad.pm", bad), ("p.pctl", "P=? [ X x=2 ];\n")]);
    let (code, _, err) = run(&d, &["check", "bad.pm", "--props", "p.pctl"]);
    assert_ne!(code, 0);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("x=0") || err.contains("add up"), "{err}");
}
