//! The static cost `--order auto` predicts for every order of a net.
//!
//! `cargo run --release -p saturn-pnml --example order_costs -- FILE` prints, for each order
//! of `--order` (best predicted first), the transitions' total span, the P-semiflows' total
//! span and their sum, the prediction `auto` ranks candidates by.

use saturn_model::order::{by_name_with, predict, total_span, Hypergraph, ORDER_NAMES};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: order_costs FILE");
        std::process::exit(2);
    };
    let net = match saturn_pnml::read_pnml_file(path.as_ref()) {
        Ok(net) => net,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let hg = Hypergraph::with_semiflows(&net, &|| false);
    let mut rows: Vec<(u64, u64, &str)> = ORDER_NAMES
        .iter()
        .map(|name| {
            let order = by_name_with(&hg, name, &mut || false).expect("a known order");
            (predict(&hg, &order), total_span(&net, &order), *name)
        })
        .collect();
    rows.sort();
    println!(
        "{} places, {} P-semiflow supports",
        hg.n,
        hg.semiflows.len()
    );
    println!("order\ttransitions\tsemiflows\tpredicted");
    for (p, t, name) in rows {
        println!("{name}\t{t}\t{}\t{p}", p - t);
    }
}
