//! `saturn check --engine auto` (the default) chooses the engine from the sizes it measured,
//! not from the model: the sparse engine (faster per step) while it fits its room
//! (`--engine-room`, 256 MiB by default), beyond that the symbolic engine on structured chains
//! (independent components, the corpus's kanban) whose EV*MxD is far smaller than the sparse
//! matrix, and the sparse engine on an unstructured chain (many distinct random rates between
//! random states) whose EV*MxD is larger; the choice and the sizes are printed and in the
//! JSON, and the answers agree with those of each forced engine.

use crate::prism_cli::{files, json, run};

use crate::shared;

/// `N` independent components, each failing and being repaired: `2^N` states, a product
/// structure an EV*MxD stores in a few nodes per level.
fn components(n: usize) -> String {
    let mut m = String::from("ctmc\n");
    for k in 0..n {
        m += &format!(
            "module c{k}\n  x{k} : [0..1];\n  [] x{k}=0 -> {} : (x{k}'=1);\n  [] x{k}=1 -> 2.5 : (x{k}'=0);\nendmodule\n",
            0.5 + k as f64 / 10.0
        );
    }
    m
}

/// A chain of 60 states whose every state jumps to three pseudo-random states at
/// pseudo-random rates (no two alike): nothing for a decision diagram to share.
fn unstructured() -> String {
    unstructured_of(60)
}

/// [`unstructured`] with `n` states.
fn unstructured_of(n: u64) -> String {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut m = format!("ctmc\nmodule m\n  s : [0..{}];\n", n - 1);
    for s in 0..n {
        let mut updates = Vec::new();
        for _ in 0..3 {
            let to = next() % n;
            let rate = 0.1 + (next() % 100_000) as f64 / 10_000.0;
            updates.push(format!("{rate} : (s'={to})"));
        }
        m += &format!("  [] s={s} -> {};\n", updates.join(" + "));
    }
    m + "endmodule\n"
}

/// `saturn check MODEL --props PROPS --json [--engine E]` in `d`: the JSON object.
fn check(d: &std::path::Path, model: &str, props: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["check", model, "--props", props, "--json"];
    args.extend(extra);
    let (code, out, err) = run(d, &args);
    assert_eq!(code, 0, "{args:?}: {err}");
    json(&out)
}

/// The engine auto chose, its measured sizes (symbolic, sparse), checked for consistency
/// with the choice.
fn choice(v: &serde_json::Value) -> (String, u64, u64) {
    let a = &v["engine_auto"];
    let sym = a["symbolic_matrix_bytes"].as_u64().expect("matrix bytes")
        + a["symbolic_cache_bytes"].as_u64().expect("cache bytes");
    let sparse = a["sparse_bytes"].as_u64().expect("sparse bytes");
    let stopped = a["symbolic_build_stopped"].as_bool().expect("stopped");
    let peak = a["sparse_peak_bytes"].as_u64().expect("sparse peak");
    let room = a["room_bytes"].as_u64().expect("room");
    let engine = v["engine"].as_str().expect("engine").to_string();
    assert_eq!(
        engine == "symbolic",
        !stopped && peak > room && sym < sparse,
        "{v}"
    );
    (engine, sym, sparse)
}

/// Every property's bounds from `auto` overlap those of each forced engine, and the results
/// agree within the relative epsilon of the bounds (1e-6).
fn agree(d: &std::path::Path, model: &str, props: &str, consts: &[&str], auto: &serde_json::Value) {
    for engine in ["sparse", "symbolic"] {
        let mut extra = consts.to_vec();
        extra.extend(["--engine", engine]);
        let forced = check(d, model, props, &extra);
        assert_eq!(forced["engine"], engine);
        assert!(forced["engine_auto"].is_null(), "{forced}");
        let (pa, pf) = (&auto["properties"], &forced["properties"]);
        for k in 0..pa.as_array().expect("properties").len() {
            let (a, f) = (&pa[k], &pf[k]);
            let num = |x: &serde_json::Value, key: &str| x[key].as_f64().expect(key);
            let (ra, rf) = (num(a, "result"), num(f, "result"));
            assert!(
                (ra - rf).abs() <= 1e-6 * ra.abs().max(rf.abs()) + 1e-12,
                "{engine} #{k}: {ra} vs {rf}"
            );
            assert!(
                num(a, "lower") <= num(f, "upper") && num(f, "lower") <= num(a, "upper"),
                "{engine} #{k}: disjoint bounds {a} {f}"
            );
        }
    }
}

#[test]
fn auto_picks_symbolic_on_independent_components_and_sparse_on_random_rates() {
    let props = "S=? [ x0=1 & x1=0 ];\nP=? [ F<=1.5 x0=1 & x5=1 ];\nP=? [ x2=0 U x3=1 ];\n";
    let d = files(&[("c.sm", &components(16)), ("c.props", props)]);
    // by default the sparse engine: its matrix and vectors (9 MiB) fit the room (256 MiB)
    let v = check(&d, "c.sm", "c.props", &[]);
    assert_eq!(v["states"], 65536);
    let (engine, _, _) = choice(&v);
    assert_eq!(engine, "sparse", "{v}");
    assert_eq!(v["engine_auto"]["room_bytes"], 256u64 << 20, "{v}");
    // with a room of 1 MiB, the symbolic engine, far smaller
    let room = ["--engine-room", "1"];
    let v = check(&d, "c.sm", "c.props", &room);
    let (engine, sym, sparse) = choice(&v);
    assert_eq!(engine, "symbolic", "{v}");
    // the sparse engine's columns at 5 bytes per nonzero: the diagrams far smaller
    assert!(sym * 4 < sparse, "EV*MxD {sym} against sparse {sparse}");
    agree(&d, "c.sm", "c.props", &room, &v);
    // the text output says it too
    let (code, out, err) = run(
        &d,
        &[
            "check",
            "c.sm",
            "--props",
            "c.props",
            "--prop",
            "1",
            "--engine-room",
            "1",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("engine: symbolic (auto: EV*MxD ") && out.contains(" against sparse "),
        "{out}"
    );

    let props = "S=? [ s<20 ];\nP=? [ F<=2 s=7 ];\nP=? [ s!=3 U s=7 ];\nR{\"r\"}=? [ F s=7 ];\n";
    let model = unstructured() + "rewards \"r\"\n  true : 1;\nendrewards\n";
    let d = files(&[("u.sm", &model), ("u.props", props)]);
    let v = check(&d, "u.sm", "u.props", &[]);
    let (engine, sym, sparse) = choice(&v);
    assert_eq!(engine, "sparse", "{v}");
    // larger, or given up on as it grew past twice the sparse engine's least
    let stopped = v["engine_auto"]["symbolic_build_stopped"] == true;
    assert!(
        stopped || sym > sparse,
        "EV*MxD {sym} against sparse {sparse}"
    );
    agree(&d, "u.sm", "u.props", &[], &v);
    let (code, out, err) = run(&d, &["check", "u.sm", "--props", "u.props", "--prop", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("engine: sparse (auto: EV*MxD "), "{out}");
}

#[test]
fn auto_picks_symbolic_on_kanban() {
    let Some(dir) = shared::existing(
        shared::benchmarks("ctmc/kanban"),
        "kanban's engine choice is not checked",
    ) else {
        return;
    };
    let (model, props) = (dir.join("kanban.prism"), dir.join("kanban.props"));
    let (model, props) = (model.to_str().expect("path"), props.to_str().expect("path"));
    let d = files(&[]);
    // t=3: at t=2 (4,600 states) the sparse columns (159 KB) are already smaller than the
    // EV*MxD with its cache (257 KB), and auto takes them; at t=3, the sparse engine while
    // it fits its room (6 MiB of 256 MiB), the symbolic one in a room of 1 MiB
    let consts = ["--const", "t=3", "--prop", "1"];
    let v = check(&d, model, props, &consts);
    assert_eq!(v["states"], 58400);
    let (engine, _, _) = choice(&v);
    assert_eq!(engine, "sparse", "{v}");
    let consts = ["--const", "t=3", "--prop", "1", "--engine-room", "1"];
    let v = check(&d, model, props, &consts);
    let (engine, _, _) = choice(&v);
    assert_eq!(engine, "symbolic", "{v}");
    agree(&d, model, props, &consts, &v);
}

/// On a larger unstructured chain the EV*MxD's build gives up as soon as its diagrams pass
/// twice the least the sparse matrix takes (it would only grow), rather than being built
/// whole and thrown away; the sparse engine answers, as forced sparse does.
#[test]
fn auto_stops_building_diagrams_that_outgrow_the_sparse_matrix() {
    let props = "S=? [ s<20 ];\nP=? [ F<=2 s=7 ];\n";
    let d = files(&[("u.sm", &unstructured_of(700)), ("u.props", props)]);
    let v = check(&d, "u.sm", "u.props", &[]);
    let (engine, sym, sparse) = choice(&v);
    assert_eq!(engine, "sparse", "{v}");
    assert_eq!(v["engine_auto"]["symbolic_build_stopped"], true, "{v}");
    // stopped early: what the diagrams held then is within a few times the sparse matrix
    assert!(sym < 4 * sparse, "EV*MxD {sym} against sparse {sparse}");
    agree(&d, "u.sm", "u.props", &[], &v);
    let (code, out, err) = run(&d, &["check", "u.sm", "--props", "u.props", "--prop", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("EV*MxD build stopped at "), "{out}");
}
