//! The automaton of every formula of the contest LTL files given: states, edges, acceptance
//! sets, whether the formula is CTL in disguise (`ctl=`) and translation time, one line each (`cargo run --release -p saturn-ltl --example
//! automata -- DIR...`, DIR a contest instance).

use saturn_logic::ResolvedQuery;
use std::time::Instant;

fn main() {
    for dir in std::env::args().skip(1) {
        let dir = std::path::Path::new(&dir);
        let net = saturn_pnml::read_pnml_file(&dir.join("model.pnml")).expect("model.pnml");
        for exam in ["LTLCardinality", "LTLFireability"] {
            let fs =
                saturn_pnml::formulas::read_formulas_file(&dir.join(format!("{exam}.xml")), &net)
                    .expect("formula file");
            for f in fs {
                let ResolvedQuery::Formula(sf) = &f.resolved else {
                    continue;
                };
                let Some(phi) = saturn_ltl::path_of(sf) else {
                    continue;
                };
                let t = Instant::now();
                match saturn_ltl::negated(&phi, saturn_ltl::Deadlocks::Stutter) {
                    Ok(p) => println!(
                        "{} states={} edges={} acc={} atoms={} size={} ctl={} secs={:.3}",
                        f.id,
                        p.automaton.states.len(),
                        p.automaton.num_edges(),
                        p.automaton.num_acc,
                        p.atoms.formulas.len(),
                        p.formula.size(),
                        saturn_ltl::ctl_equivalent(&phi, saturn_ltl::Deadlocks::Stutter).is_some(),
                        t.elapsed().as_secs_f64()
                    ),
                    Err(e) => println!("{} error {e} secs={:.3}", f.id, t.elapsed().as_secs_f64()),
                }
            }
        }
    }
}
