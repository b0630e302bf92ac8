//! `saturn check` on PRISM CTMCs and `saturn export`: results on hand-checkable chains, the
//! deadlock note, properties refused one by one, bad input (constants, rates, ranges,
//! `--prop`, engines) and non-convergence with a clear message and a non-zero exit, never a
//! number.

#[path = "support/prism_cli.rs"]
mod prism_cli;
use prism_cli::{files, json, refused, run};

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
    // a 2-cycle leaking slowly to two absorbing states: Jacobi needs thousands of iterations
    let m = "ctmc\nmodule m\n  x : [0..3];\n  [] x=0 -> 1 : (x'=1) + 0.01 : (x'=2);\n  \
             [] x=1 -> 1 : (x'=0) + 0.01 : (x'=3);\nendmodule\n";
    let d = files(&[("c.sm", m), ("c.props", "P=? [ F x=2 ];\n")]);
    let (code, out, err) = run(
        &d,
        &[
            "check",
            "c.sm",
            "--props",
            "c.props",
            "--solver",
            "jacobi",
            "--max-iters",
            "30",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        out.contains("did not converge within 30 iterations"),
        "{out}"
    );
    assert!(!out.contains("Result:"), "{out}");
    assert!(err.contains("did not converge"), "{err}");
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
    let q = 1.01f64;
    let want = (0.01 / q) / (1.0 - 1.0 / (q * q));
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
