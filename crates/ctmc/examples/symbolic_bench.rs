//! Benchmark of the symbolic CTMC engine (not a test): per model and size, states, nonzeros,
//! memory of `R` as an EV*MxD against compressed sparse storage, and the time per
//! Gauss-Seidel iteration of the plain traversal (Figures 6.3-6.4), of the split-point cache
//! (Figures 6.6-6.7) and of an explicit compressed-sparse-column baseline built here from the
//! same entries. Times per iteration are CPU seconds of the benchmark's thread (at least
//! `--iters` sweeps and half a second each), since wall-clock time on a shared machine is not.
//!
//! ```text
//! cargo run --release -p saturn-ctmc --example symbolic_bench -- \
//!     [--iters N] [--threshold T] [--no-sparse] [--no-plain] MODEL:CONSTS ...
//! ```
//! `MODEL` is `kanban`, `fms`, `cluster` (files under `../shared/benchmarks/ctmc`) or
//! `polling` (generated, `CONSTS` = `N`), e.g. `kanban:t=4 fms:n=5 polling:14 cluster:N=64`.

#[path = "../../prism/tests/support/polling.rs"]
mod polling;

use std::path::PathBuf;
use std::time::Instant;

use saturn_ctmc::matrix::{Relaxation, SweepStats};
use saturn_ctmc::symbolic::walk::Part;
use saturn_ctmc::symbolic::DEFAULT_CACHE_THRESHOLD;
use saturn_ctmc::{RateMatrix, Sweep, SymbolicCtmc};
use saturn_prism::{lower::lower, ConstOverrides};
use saturn_symbolic::Limits;

/// Compressed sparse columns of `R`: one Gauss-Seidel sweep is one pass over it.
struct Csc {
    start: Vec<u32>,
    rows: Vec<u32>,
    vals: Vec<f64>,
}

impl Csc {
    fn new(c: &SymbolicCtmc) -> Csc {
        let n = c.states();
        let mut count = vec![0u32; n + 1];
        c.for_each_entry(Part::All, false, &mut |_, d, _| count[d + 1] += 1);
        for j in 0..n {
            count[j + 1] += count[j];
        }
        let nnz = count[n] as usize;
        let mut fill = count.clone();
        let mut rows = vec![0u32; nnz];
        let mut vals = vec![0.0; nnz];
        c.for_each_entry(Part::All, false, &mut |s, d, r| {
            let k = fill[d] as usize;
            rows[k] = s as u32;
            vals[k] = r;
            fill[d] += 1;
        });
        Csc {
            start: count,
            rows,
            vals,
        }
    }

    /// The solvers' Gauss-Seidel sweep, its update inlined.
    fn sweep(&self, x: &mut [f64], r: &Relaxation<'_>) -> SweepStats {
        let mut m = SweepStats::default();
        for j in 0..x.len() {
            let (a, b) = (self.start[j] as usize, self.start[j + 1] as usize);
            let mut s = 0.0;
            for k in a..b {
                s += x[self.rows[k] as usize] * self.vals[k];
            }
            r.update(j, &[s], &mut x[j..=j], &mut m);
        }
        m
    }
}

/// CPU seconds (user + system) of this thread so far, from `/proc/thread-self/stat` (clock
/// ticks of 10 ms; `None` where that file does not exist).
fn thread_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // fields after the command name (which is in parentheses and may hold spaces)
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let (utime, stime): (f64, f64) = (f.get(11)?.parse().ok()?, f.get(12)?.parse().ok()?);
    Some((utime + stime) / 100.0)
}

/// Seconds per run of `step`: CPU time of this thread over at least `iters` runs and at
/// least half a CPU second (the machine is shared: wall-clock times are not comparable),
/// or the median wall-clock time of `iters` runs without `/proc`.
fn secs_per_run(iters: usize, mut step: impl FnMut()) -> f64 {
    if let Some(t0) = thread_cpu_secs() {
        let mut runs = 0;
        loop {
            step();
            runs += 1;
            let t = thread_cpu_secs().unwrap_or(t0) - t0;
            if runs >= iters && t >= 0.5 {
                return t / runs as f64;
            }
        }
    }
    let mut t: Vec<f64> = (0..iters)
        .map(|_| {
            let t0 = Instant::now();
            step();
            t0.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn source(spec: &str) -> Result<(String, String, String), String> {
    let (name, consts) = spec.split_once(':').unwrap_or((spec, ""));
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/benchmarks/ctmc");
    match name {
        "polling" => {
            let n: usize = consts
                .parse()
                .map_err(|_| format!("polling:N, got {spec}"))?;
            Ok((polling::polling(n), String::new(), format!("polling N={n}")))
        }
        "kanban" | "fms" | "cluster" => {
            let path = dir.join(name).join(format!("{name}.prism"));
            let src =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            Ok((src, consts.to_string(), format!("{name} {consts}")))
        }
        _ => Err(format!("unknown model {name}")),
    }
}

fn main() {
    let mut iters = 5;
    let mut threshold = DEFAULT_CACHE_THRESHOLD;
    let (mut sparse, mut plain) = (true, true);
    let mut specs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--iters" => iters = args.next().and_then(|v| v.parse().ok()).expect("--iters N"),
            "--threshold" => {
                threshold = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--threshold T")
            }
            "--no-sparse" => sparse = false,
            "--no-plain" => plain = false,
            _ => specs.push(a),
        }
    }
    if specs.is_empty() {
        specs = ["kanban:t=4", "fms:n=5", "polling:14", "cluster:N=64"]
            .map(String::from)
            .to_vec();
    }
    println!(
        "| model | states | nonzeros | R nodes | R (EV*MxD) | index | CSR | CSR/R | cache | build s | GS plain s/it | GS cached s/it | GS sparse s/it |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for spec in specs {
        let (src, consts, label) = match source(&spec) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("skipped {spec}: {e}");
                continue;
            }
        };
        let (t0, c0) = (Instant::now(), thread_cpu_secs());
        let overrides = ConstOverrides::parse(&consts).expect("constants");
        let prog = saturn_prism::load_model(&label, &src, &overrides).expect("model");
        let model = lower(&prog).expect("lowered");
        let order: Vec<usize> = (0..model.vars.len()).rev().collect();
        let mut c = SymbolicCtmc::generate(&model, &order, &Limits::none()).expect("chain");
        let build = match (c0, thread_cpu_secs()) {
            (Some(a), Some(b)) => b - a,
            _ => t0.elapsed().as_secs_f64(),
        };
        let n = c.states();
        let h = c.exit_rates();
        let mut x = vec![1.0 / n as f64; n];
        // the steady-state solver's update (Gauss-Seidel, relative difference)
        let inv: Vec<f64> = h
            .iter()
            .map(|&v| if v > 0.0 { 1.0 / v } else { 0.0 })
            .collect();
        let r = Relaxation {
            w: 1.0,
            inv: &inv,
            rhs: None,
            fixed: None,
            relative: true,
        };
        let t_plain = if plain {
            format!(
                "{:.4}",
                secs_per_run(iters, || {
                    c.relaxed_sweep(&mut x, Sweep::Forward, &r);
                })
            )
        } else {
            "-".into()
        };
        let tc = Instant::now();
        c.enable_cache(threshold);
        let cache_build = tc.elapsed().as_secs_f64();
        let t_cached = secs_per_run(iters, || {
            c.relaxed_sweep(&mut x, Sweep::Forward, &r);
        });
        let t_sparse = if sparse {
            let csc = Csc::new(&c);
            format!(
                "{:.4}",
                secs_per_run(iters, || {
                    csc.sweep(&mut x, &r);
                })
            )
        } else {
            "-".into()
        };
        let st = c.stats();
        let mib = |b: u64| format!("{:.2} MiB", b as f64 / (1u64 << 20) as f64);
        println!(
            "| {label} | {n} | {} | {} | {} | {} | {} | {:.0}x | {} ({}+{} entries, {:.1} s) | {build:.1} | {t_plain} | {t_cached:.4} | {t_sparse} |",
            c.nonzeros(),
            st.matrix_nodes,
            mib(c.matrix_bytes()),
            mib(c.index_bytes()),
            mib(c.csr_bytes()),
            c.csr_bytes() as f64 / c.matrix_bytes() as f64,
            mib(c.cache_bytes()),
            st.cache_top,
            st.cache_bottom,
            cache_build,
        );
    }
}
