//! Throughput and memory of the streaming PNML reader.
//!
//! `cargo run --release -p saturn-pnml --example pnml_bench -- FILE [RUNS]` reads FILE (e.g.
//! one written by `saturn generate philosophers 10000 -o FILE`) RUNS times (default 3) and
//! prints each run's MB/s, then the process's peak resident memory (`VmHWM`) and that of the
//! net alone (resident memory after reading, the file not being held).

use std::time::Instant;

fn vm(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: pnml_bench FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    let before = vm("VmRSS:");
    for _ in 0..runs {
        let start = Instant::now();
        let net = match saturn_pnml::read_pnml_file(path.as_ref()) {
            Ok(net) => net,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{size:.1} MB in {secs:.3} s: {:.0} MB/s ({} places, {} transitions); net resident {} kB",
            size / secs,
            net.places.len(),
            net.transitions.len(),
            vm("VmRSS:").saturating_sub(before)
        );
    }
    println!(
        "peak (VmHWM) {} kB, before reading {before} kB",
        vm("VmHWM:")
    );
}
