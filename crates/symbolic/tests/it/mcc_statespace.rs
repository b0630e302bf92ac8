//! The Model Checking Contest's own StateSpace answers: every instance under
//! `../shared/benchmarks/mcc/` is generated with saturation and the `auto` order candidates (60 s each, or
//! `SATURN_MCC_TIMEOUT` seconds); every instance must be answered within that limit and every
//! answer must equal the oracle's four figures. Skips with a notice when the benchmarks are
//! absent, and fails instead under `SATURN_REQUIRE_SHARED=1` (CI).

use std::time::{Duration, Instant};

use saturn_symbolic::{statespace, Limits, Method};

use crate::shared;

fn oracle(dir: &std::path::Path) -> Option<[String; 4]> {
    let text = std::fs::read_to_string(dir.join("oracle.txt")).ok()?;
    let line = text.lines().find(|l| l.starts_with("StateSpace "))?;
    let get = |k: &str| {
        line.split_whitespace().find_map(|f| {
            f.strip_prefix(k)
                .and_then(|r| r.strip_prefix('='))
                .map(String::from)
        })
    };
    Some([
        get("states")?,
        get("transitions")?,
        get("max_tokens_place")?,
        get("max_tokens_marking")?,
    ])
}

#[test]
fn mcc_state_space_oracles() {
    let Some(dirs) = shared::mcc_instances("MCC StateSpace oracle test skipped") else {
        return;
    };
    // Not a performance target (that is the benchmark's job): a guard against a hang, generous
    // enough for a loaded 2-core machine. Every instance must be answered, whatever it costs.
    let secs = shared::mcc_timeout();
    let (mut agree, mut unfinished, mut disagree) = (0, Vec::new(), Vec::new());
    for d in &dirs {
        let Some(want) = oracle(d) else { continue };
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let net = saturn_pnml::reader::read_pnml_file(&d.join("model.pnml"))
            .expect("contest PNML must read");
        let models: Vec<_> = saturn_model::order::auto_orders(&net, &|| false)
            .iter()
            .map(|(_, o)| net.to_model(o).unwrap())
            .collect();
        let limits = Limits {
            deadline: Some(Instant::now() + Duration::from_secs(secs)),
            max_memory: None,
            ..Limits::none()
        };
        let t = Instant::now();
        match statespace::generate_portfolio(
            &models,
            Method::Saturation,
            saturn_symbolic::Relations::Implicit,
            limits,
            None,
        ) {
            Ok((_, ss)) => {
                let m = &ss.metrics;
                let got = [
                    m.states.to_string(),
                    m.transitions.to_string(),
                    m.max_local.to_string(),
                    m.max_sum.to_string(),
                ];
                if got == want {
                    agree += 1;
                    eprintln!("{name}: agrees ({:.2} s)", t.elapsed().as_secs_f64());
                } else {
                    eprintln!("{name}: DISAGREES: got {got:?}, oracle {want:?}");
                    disagree.push(name);
                }
            }
            Err(_) => {
                eprintln!("{name}: did not finish within {secs} s");
                unfinished.push(name);
            }
        }
    }
    eprintln!(
        "MCC StateSpace: {agree} agree, {} disagree, {} unfinished {:?}",
        disagree.len(),
        unfinished.len(),
        unfinished
    );
    assert!(
        disagree.is_empty(),
        "disagreements with the contest's oracle: {disagree:?}"
    );
    assert!(
        unfinished.is_empty(),
        "every instance must be answered within {secs} s; unfinished: {unfinished:?}"
    );
    assert!(agree > 0, "no instance finished");
}
