//! Decide the boundedness of PNML nets: `cargo run --release -p saturn-reference --example
//! boundedness -- SECONDS file.pnml...`. One line per net: its answer, how, and the time.

use std::time::{Duration, Instant};

use saturn_model::bounded::{
    decide_boundedness_with, replay, structural_bounds, Boundedness, Limits,
};
use saturn_pnml::read_pnml_file;

fn main() {
    let mut args = std::env::args().skip(1);
    let secs: f64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .expect("usage: boundedness SECONDS file.pnml...");
    for path in args {
        let t0 = Instant::now();
        let net = match read_pnml_file(path.as_ref()) {
            Ok(net) => net,
            Err(e) => {
                println!("{path}\terror\t{e}");
                continue;
            }
        };
        let read = t0.elapsed();
        if std::env::var_os("STRUCTURAL").is_some() {
            let t = Instant::now();
            let deadline = t + Duration::from_secs_f64(secs);
            let st = structural_bounds(&net, &Limits::default(), &|| Instant::now() > deadline);
            let covered = st.bounds.iter().filter(|b| b.is_some()).count();
            println!(
                "{path}\tstructural: {covered}/{} covered, {} rays, complete={}, {:.3}s",
                net.places.len(),
                st.rays,
                st.complete,
                t.elapsed().as_secs_f64()
            );
        }
        let t1 = Instant::now();
        let deadline = t1 + Duration::from_secs_f64(secs);
        let answer =
            decide_boundedness_with(&net, &Limits::default(), &|| Instant::now() > deadline);
        let dt = t1.elapsed().as_secs_f64();
        let what = match &answer {
            Boundedness::Bounded {
                structural: true, ..
            } => "bounded\tstructural".to_string(),
            Boundedness::Bounded { .. } => "bounded\texplored".to_string(),
            Boundedness::Unbounded { witness } => format!(
                "unbounded\twitness prefix={} pump={} growing={} replay={}",
                witness.prefix.len(),
                witness.pump.len(),
                witness.growing.len(),
                if replay(&net, witness).is_ok() {
                    "ok"
                } else {
                    "FAILED"
                }
            ),
            Boundedness::Unknown { reason, .. } => format!("unknown\t{reason:?}"),
        };
        println!(
            "{path}\t{}p/{}t\t{what}\t{dt:.3}s\t(read {:.3}s)",
            net.places.len(),
            net.transitions.len(),
            read.as_secs_f64()
        );
    }
}
