//! The explicit product with and without partial-order reduction on the contest's LTL
//! examinations of the developer set: per formula, the product states and markings stored,
//! the time, and the verdict against the contest's (`oracle.txt`).
//!
//! ```text
//! cargo run --release -p saturn-ltl --example por_states -- [SECONDS] [INSTANCE ...]
//! ```
//! A formula with `X` is searched once (the reduction does not apply). One tab-separated row
//! per formula on stdout (`-` for a search stopped by the limit:
//! SECONDS per search, 10 by default; 2 GiB), a summary on stderr.

use std::time::{Duration, Instant};

use saturn_logic::ResolvedQuery;
use saturn_ltl::{check_net_with, Deadlocks, Limits, Options, Verdict};
use saturn_pnml::formulas::read_formulas_file;
use saturn_pnml::read_pnml_file;
use saturn_reference::mcc::{benchmark_dir, instances_up_to, oracle};

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let secs: u64 = match args.peek().and_then(|a| a.parse().ok()) {
        Some(s) => {
            args.next();
            s
        }
        None => 10,
    };
    let only: Vec<String> = args.collect();
    let dir = benchmark_dir("por_states").expect("../shared/benchmarks/mcc");
    let mut instances: Vec<String> = instances_up_to(&dir, u64::MAX)
        .into_iter()
        .map(|i| i.0)
        .collect();
    if !only.is_empty() {
        instances.retain(|i| only.contains(i));
    }
    println!("instance\tformula\tstutter_insensitive\twant\ton\toff\tproduct_on\tproduct_off\tmarkings_on\tmarkings_off\tsec_on\tsec_off");
    let (mut both, mut sum_on, mut sum_off, mut wrong) = (0usize, 0u64, 0u64, 0usize);
    let (mut only_on, mut only_off, mut x_free, mut total) = (0usize, 0usize, 0usize, 0usize);
    for inst in &instances {
        let path = dir.join(inst);
        let net = read_pnml_file(&path.join("model.pnml")).expect("a net");
        let want = oracle(&path);
        for exam in ["LTLCardinality", "LTLFireability"] {
            let formulas = read_formulas_file(&path.join(format!("{exam}.xml")), &net)
                .unwrap_or_else(|e| panic!("{inst} {exam}: {e}"));
            for f in formulas {
                let ResolvedQuery::Formula(sf) = &f.resolved else {
                    continue;
                };
                let Some(phi) = saturn_ltl::path_of(sf) else {
                    continue;
                };
                let run = |por: bool| -> (Option<Verdict>, f64) {
                    let t = Instant::now();
                    let limits = Limits {
                        deadline: Some(t + Duration::from_secs(secs)),
                        max_bytes: Some(2 << 30),
                        cancel: None,
                    };
                    let opts = Options { partial_order: por };
                    let v = check_net_with(&net, &phi, Deadlocks::Stutter, limits, opts).ok();
                    (v, t.elapsed().as_secs_f64())
                };
                let (on, t_on) = run(true);
                // a formula with `X` is not reduced: the same search
                let si = saturn_ltl::negated(&phi, Deadlocks::Stutter)
                    .is_ok_and(|p| p.formula.is_stutter_insensitive());
                let (off, t_off) = if si { run(false) } else { (on.clone(), t_on) };
                total += 1;
                x_free += usize::from(si);
                let w = want.get(&f.id).map_or("?", |s| s.as_str());
                let verdict = |v: &Option<Verdict>| {
                    v.as_ref()
                        .map_or("-", |v| if v.holds { "TRUE" } else { "FALSE" })
                };
                for v in [&on, &off] {
                    if verdict(v) != "-" && w != "?" && verdict(v) != w {
                        wrong += 1;
                        eprintln!("DISAGREES: {inst} {} got {} want {w}", f.id, verdict(v));
                    }
                }
                let num = |v: &Option<Verdict>, g: fn(&Verdict) -> usize| {
                    v.as_ref().map_or("-".to_string(), |v| g(v).to_string())
                };
                match (&on, &off) {
                    (Some(a), Some(b)) if si => {
                        both += 1;
                        sum_on += a.product_states as u64;
                        sum_off += b.product_states as u64;
                    }
                    (Some(_), None) => only_on += 1,
                    (None, Some(_)) => only_off += 1,
                    _ => {}
                }
                println!(
                    "{inst}\t{}\t{si}\t{w}\t{}\t{}\t{}\t{}\t{}\t{}\t{t_on:.3}\t{t_off:.3}",
                    f.id,
                    verdict(&on),
                    verdict(&off),
                    num(&on, |v| v.product_states),
                    num(&off, |v| v.product_states),
                    num(&on, |v| v.markings),
                    num(&off, |v| v.markings),
                );
            }
        }
    }
    eprintln!(
        "{total} formulas, {x_free} stutter-insensitive; decided by both: {both} \
         (product states {sum_on} with reduction, {sum_off} without); only with reduction: \
         {only_on}, only without: {only_off}; disagreeing with the contest: {wrong}"
    );
}
