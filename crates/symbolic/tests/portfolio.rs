//! The order portfolio: attempts stopped by their step budget are suspended and resumed on
//! their own context, and whatever candidate wins, the figures are those of a plain run (which
//! the explicit reference checks on the same nets).

use saturn_dd::Dd;
use saturn_model::order::{by_name, ORDER_NAMES};
use saturn_model::{families, Model, PetriNet};
use saturn_reference::explore_petri;
use saturn_symbolic::statespace::{generate, generate_portfolio, generate_with};
use saturn_symbolic::{Direction, Interrupted, Limits, Method, Reach, Relations};

fn models(net: &PetriNet) -> Vec<Model> {
    ORDER_NAMES
        .iter()
        .map(|o| net.to_model(&by_name(net, o).unwrap()).unwrap())
        .collect()
}

#[test]
fn portfolio_agrees_with_plain_runs_and_the_reference() {
    for (fam, n) in [("kanban", 3), ("philosophers", 8), ("slot", 5)] {
        let net = families::generate(fam, n).unwrap();
        let explicit = explore_petri(&net, 1_000_000).expect("small enough to enumerate");
        let ms = models(&net);
        for rel in [Relations::Implicit, Relations::Mdd, Relations::Auto] {
            let (won, ss) =
                generate_portfolio(&ms, Method::Saturation, rel, Limits::none(), None).unwrap();
            // the winner says how it won; with `Auto`, one of the two ways
            match rel {
                Relations::Auto => assert_ne!(ss.relations, Relations::Auto),
                r => assert_eq!(ss.relations, r),
            }
            let plain = generate_with(
                &ms[won],
                Method::Saturation,
                ss.relations,
                Limits::none(),
                None,
            )
            .unwrap();
            assert_eq!(ss.metrics, plain.metrics, "{fam}:{n} {rel:?}");
            assert_eq!(
                ss.metrics.states,
                (explicit.states as u64).into(),
                "{fam}:{n} {rel:?}"
            );
            assert_eq!(
                ss.metrics.transitions,
                explicit.transitions.into(),
                "{fam}:{n} {rel:?}"
            );
        }
    }
}

/// Nets too large to enumerate, where the first budgets stop every candidate: the winner's
/// figures are those of a plain run of its model.
#[test]
fn portfolio_with_suspended_attempts_agrees_with_plain_runs() {
    for (fam, n) in [("philosophers", 300), ("slot", 10)] {
        let net = families::generate(fam, n).unwrap();
        let ms = models(&net);
        for rel in [Relations::Implicit, Relations::Auto] {
            let (won, ss) =
                generate_portfolio(&ms, Method::Saturation, rel, Limits::none(), None).unwrap();
            let plain = generate(&ms[won], Method::Saturation, Limits::none(), None).unwrap();
            assert_eq!(ss.metrics, plain.metrics, "{fam}:{n} {rel:?}");
        }
    }
}

#[test]
fn suspended_engine_resumes_to_the_right_answer() {
    let net = families::generate("philosophers", 300).unwrap();
    for m in models(&net).iter().take(4) {
        let plain = generate(m, Method::Saturation, Limits::none(), None).unwrap();
        for rel in [Relations::Implicit, Relations::Mdd] {
            let mut dd = Dd::new(m.num_levels());
            dd.set_gc_every(Some(64));
            let mut suspended = None;
            let mut budget = 16u64;
            let mut stops = 0;
            let states = loop {
                let mut reach = match suspended.take() {
                    Some(s) => Reach::resume(&mut dd, s),
                    None => {
                        let mut r = Reach::new(&mut dd, m, Direction::Forward, None);
                        r.set_relations(rel);
                        r
                    }
                };
                reach.set_step_budget(budget);
                let init = reach.state_set(&m.initial);
                match reach.explore(init, Method::Saturation) {
                    Ok(s) => break reach.dd().sets.cardinality(s),
                    Err(Interrupted::Budget) => {
                        stops += 1;
                        suspended = Some(reach.suspend());
                        // a collection while the engine is put aside: its caches are purged
                        dd.collect();
                    }
                    Err(e) => panic!("{rel:?}: {e:?}"),
                }
                budget *= 2;
            };
            assert!(stops > 0, "the budget never stopped the run");
            assert_eq!(states, plain.metrics.states, "{rel:?}");
        }
    }
}
