//! Release-only timing of PRISM state-space generation:
//! `cargo run --release -p saturn-prism --example prism_statespace -- MODEL.prism [N=3,...] [ORDER]`
//! (ORDER one of file, file-rev, force, sloan; default file; `SATURN_GEN=chaining` for chained
//! images instead of saturation). `polling:N` generates PRISM's
//! polling system with N stations (the `polling.N.prism` files of PRISM's benchmark suite,
//! of which the shared folder holds only some).

#[path = "../tests/support/polling.rs"]
mod polling;

use polling::polling;
use saturn_model::order::{by_name_with, Hypergraph};
use saturn_prism::{lower::lower, ConstOverrides};
use saturn_symbolic::encode::{generate_general, GenMethod};
use saturn_symbolic::Limits;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: prism_statespace MODEL.prism [N=3,...] [ORDER]");
        std::process::exit(2);
    };
    let consts = args.get(1).map(String::as_str).unwrap_or("");
    let order_name = args.get(2).map(String::as_str).unwrap_or("file");
    let src = match path.strip_prefix("polling:") {
        Some(n) => polling(n.parse().expect("polling:N")),
        None => std::fs::read_to_string(path).expect("readable model"),
    };
    let overrides = ConstOverrides::parse(consts).expect("constants");
    let prog = match saturn_prism::load_model(path, &src, &overrides) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e:?}");
            std::process::exit(1);
        }
    };
    let model = lower(&prog).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let t0 = std::time::Instant::now();
    let hg = Hypergraph::new(model.vars.len(), &model.supports());
    let order = by_name_with(&hg, order_name, &mut || false).expect("order");
    let method = match std::env::var("SATURN_GEN").as_deref() {
        Ok("chaining") => GenMethod::Chaining,
        _ => GenMethod::Saturation,
    };
    let r = generate_general(&model, &order, method, &Limits::none());
    match r {
        Ok((enc, ss)) => println!(
            "states {} transitions {} deadlocks {} time {:.3}s (generation {:.3}s) set-nodes {} rel-nodes {}",
            ss.states,
            ss.transitions,
            ss.deadlocks,
            t0.elapsed().as_secs_f64(),
            ss.generation_seconds,
            enc.sets.nodes_now(),
            enc.rels.nodes_now()
        ),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
