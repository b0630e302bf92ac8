//! The library's entry point for the formula examinations ([`saturn_engine::formulas::check`])
//! against the contest's oracle on the small instances of `../shared/benchmarks/mcc` (by
//! default: the race; and the explicit search alone), and on random small nets: what the
//! explicit search decides equals what the symbolic side decides.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use saturn_engine::formulas::{
    check, Ended, FormulaOptions, Item, Outcome, Question, Technique, Value,
};
use saturn_engine::{ExplicitMode, Limits, Options};
use saturn_logic::{LinExpr, ResolvedQuery, StateFormula};
use saturn_model::{Model, PetriNet};
use saturn_symbolic::ctl::{EuMethod, GLOBAL_PROPERTIES};

use crate::shared;

/// The instances with at most this many states (INDEX.tsv) are checked.
const SMALL: u64 = 120_000;

/// The examinations checked: every formula examination but LTL, and the global properties.
const EXAMS: &[&str] = &[
    "ReachabilityCardinality",
    "ReachabilityFireability",
    "UpperBounds",
    "CTLCardinality",
    "CTLFireability",
    "GlobalProperties",
];

/// The portfolio's candidate models (the library leaves the lowering to its caller).
fn lower(net: &PetriNet) -> Vec<Model> {
    saturn_model::order::PORTFOLIO
        .iter()
        .map(|name| {
            let order = saturn_model::order::by_name(net, name).expect("an order");
            net.to_model(&order).expect("lowered")
        })
        .collect()
}

fn options(explicit: ExplicitMode, early: bool) -> FormulaOptions {
    FormulaOptions {
        engine: Options {
            explicit,
            ..Options::default()
        },
        eu_method: EuMethod::default(),
        early,
    }
}

/// `items` on `net` (lowered to `models`) with the explicit side `mode`, without limits.
fn checked(
    net: &PetriNet,
    models: &[Model],
    items: &[Item],
    mode: ExplicitMode,
    early: bool,
) -> Outcome {
    check(
        net,
        models,
        items,
        &options(mode, early),
        Limits::none(),
        None,
    )
}

/// The questions of `exam` on the instance in `dir`.
fn items(exam: &str, dir: &Path, net: &PetriNet) -> Vec<Item> {
    if exam == "GlobalProperties" {
        return GLOBAL_PROPERTIES
            .iter()
            .map(|p| Item {
                id: p.to_string(),
                question: Question::Global(p),
            })
            .collect();
    }
    saturn_pnml::formulas::read_formulas_file(&dir.join(format!("{exam}.xml")), net)
        .expect("the formulas read")
        .into_iter()
        .map(|f| Item {
            id: f.id,
            question: Question::Formula(f.resolved),
        })
        .collect()
}

/// The oracle's answers by id (`?`: unknown, left out).
fn oracle(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_to_string(dir.join("oracle.txt"))
        .expect("oracle.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("StateSpace"))
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.to_string()))
        })
        .filter(|(_, v)| v != "?")
        .collect()
}

/// The small instances: (directory, states).
fn small_instances() -> Vec<std::path::PathBuf> {
    let Some(dirs) = shared::mcc_instances("the formula examinations' oracle test is left out")
    else {
        return Vec::new();
    };
    let index = std::fs::read_to_string(shared::benchmarks("mcc/INDEX.tsv")).unwrap_or_default();
    let states: BTreeMap<&str, u64> = index
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((*f.first()?, f.get(4)?.parse().ok()?))
        })
        .collect();
    dirs.into_iter()
        .filter(|d| {
            let name = d.file_name().and_then(|n| n.to_str()).unwrap_or("");
            states.get(name).is_some_and(|&s| s <= SMALL)
        })
        .collect()
}

/// Can the explicit search decide this question (bounded net, complete exploration)?
fn explicit_decides(q: &Question) -> bool {
    match q {
        Question::Formula(ResolvedQuery::Bound(_)) => true,
        Question::Formula(ResolvedQuery::Formula(f)) => match f {
            StateFormula::EF(g) | StateFormula::AG(g) => !has_temporal(g),
            f => !has_temporal(f),
        },
        Question::Global(p) => *p != "Liveness",
        Question::Unreadable(_) => false,
    }
}

fn has_temporal(f: &StateFormula) -> bool {
    use StateFormula as S;
    match f {
        S::Const(_) | S::Deadlock | S::Atom(_) | S::Enabled(_) => false,
        S::Not(a) => has_temporal(a),
        S::And(v) | S::Or(v) => v.iter().any(has_temporal),
        S::Implies(a, b) | S::Iff(a, b) => has_temporal(a) || has_temporal(b),
        _ => true,
    }
}

/// `got`'s answers against the oracle; `all`: every question must be decided, else only those
/// the explicit search decides. Returns the number of answers compared.
fn against_oracle(
    name: &str,
    exam: &str,
    items: &[Item],
    got: &Outcome,
    want: &BTreeMap<String, String>,
    all: bool,
) -> usize {
    let mut compared = 0;
    for (item, v) in items.iter().zip(&got.verdicts) {
        let Some(w) = want.get(&item.id) else {
            continue;
        };
        match &v.decided {
            Some(d) => {
                assert_eq!(
                    &d.value.word(),
                    w,
                    "{name} {exam} {}: {:?} by {}",
                    item.id,
                    d.value,
                    d.technique.name()
                );
                compared += 1;
            }
            None => assert!(
                !(all || explicit_decides(&item.question)),
                "{name} {exam} {}: undecided ({:?})",
                item.id,
                v.why_not
            ),
        }
    }
    compared
}

#[test]
fn the_race_and_the_explicit_search_alone_agree_with_the_oracle() {
    let (mut raced, mut alone, mut by_explicit) = (0, 0, 0);
    for dir in small_instances() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let net = saturn_pnml::read_pnml_file(&dir.join("model.pnml")).expect("the net reads");
        let models = lower(&net);
        let want = oracle(&dir);
        for exam in EXAMS {
            let items = items(exam, &dir, &net);
            let early = exam.starts_with("Reachability");
            let got = checked(&net, &models, &items, ExplicitMode::Auto, early);
            assert!(matches!(got.ended, Ended::Done), "{name} {exam}");
            raced += against_oracle(&name, exam, &items, &got, &want, true);
            let only = checked(&net, &models, &items, ExplicitMode::Only, false);
            assert!(matches!(only.ended, Ended::Done), "{name} {exam}");
            assert_eq!(only.count(Technique::Symbolic), 0);
            assert_eq!(only.count(Technique::EarlySearch), 0);
            by_explicit += only.count(Technique::Explicit);
            alone += against_oracle(&name, exam, &items, &only, &want, false);
        }
    }
    eprintln!("{raced} raced answers and {alone} explicit ones ({by_explicit}) agree");
    if !small_instances().is_empty() {
        assert!(raced > 1000 && alone > 500, "{raced} {alone}");
    }
}

/// Questions over a random net: reachability formulas, bounds and the global properties.
fn random_items(net: &PetriNet, phis: Vec<StateFormula>, places: Vec<usize>) -> Vec<Item> {
    let mut items: Vec<Item> = phis
        .into_iter()
        .enumerate()
        .map(|(k, phi)| {
            let f = if k % 2 == 0 {
                StateFormula::EF(Box::new(phi))
            } else {
                StateFormula::AG(Box::new(phi))
            };
            Item {
                id: format!("f{k}"),
                question: Question::Formula(ResolvedQuery::Formula(f)),
            }
        })
        .collect();
    let np = net.places.len();
    items.push(Item {
        id: "bound".into(),
        question: Question::Formula(ResolvedQuery::Bound(LinExpr {
            terms: places.into_iter().map(|p| (p % np, 1)).collect(),
            constant: 0,
        })),
    });
    items.extend(GLOBAL_PROPERTIES.iter().map(|p| Item {
        id: p.to_string(),
        question: Question::Global(p),
    }));
    items
}

/// A random net, four random state formulas over it and the places of a bound.
fn net_and_questions() -> impl Strategy<Value = (PetriNet, Vec<StateFormula>, Vec<usize>)> {
    saturn_reference::strategies::random_net(5, 5).prop_flat_map(|net| {
        let (np, nt) = (net.places.len(), net.transitions.len());
        let phis =
            proptest::collection::vec(saturn_reference::strategies::boolean_formula(np, nt), 4);
        let places = proptest::collection::vec(0..np.max(1), 1..=3);
        (Just(net), phis, places)
    })
}

proptest! {
    #![proptest_config(saturn_reference::strategies::config(64))]

    #[test]
    fn the_explicit_answers_equal_the_symbolic_ones(
        (net, phis, places) in net_and_questions()
    ) {
        // bounded and small: the explicit search completes
        if saturn_reference::explore_petri(&net, 20_000).is_err() {
            return Err(TestCaseError::reject("unbounded or large"));
        }
        let models = lower(&net);
        let items = random_items(&net, phis, places);
        let symbolic = checked(&net, &models, &items, ExplicitMode::Off, true);
        let explicit = checked(&net, &models, &items, ExplicitMode::Only, false);
        for ((item, s), x) in items.iter().zip(&symbolic.verdicts).zip(&explicit.verdicts) {
            let s = s.decided.as_ref().expect("the symbolic side decides all");
            prop_assert!(s.technique != Technique::Explicit);
            match &x.decided {
                Some(x) => {
                    // the breadth-first search, or the reduced search of one formula (on the
                    // net reduced for it)
                    prop_assert!(
                        matches!(
                            x.technique,
                            Technique::Explicit | Technique::PartialOrder | Technique::Reduction
                        ),
                        "{:?}", x.technique
                    );
                    prop_assert_eq!(&x.value, &s.value, "{}", item.id);
                }
                None => prop_assert!(item.id == "Liveness", "{} undecided", item.id),
            }
        }
        // a bound is a number
        prop_assert!(matches!(
            explicit.verdicts[items.len() - 6].decided.as_ref().map(|d| &d.value),
            Some(Value::Bound(_))
        ));
    }
}

/// Forty independent toggles beside a counter `c` that `inc` raises up to 30: 2^40 · 31
/// markings, and `c = 20` first at depth 20, beyond every marking of a smaller depth (more
/// than 10^20 of them). The breadth-first search alone never gets there; the random walks
/// before it (each firing uniformly among the 41 enabled transitions, so about one step in 41
/// raises `c`) do, within their first walk or two; and a walk that reaches `c = 30`, the
/// structural bound of `c`, decides its UpperBounds.
fn toggles_and_a_counter() -> PetriNet {
    use saturn_model::{Arc, Place, Transition};
    let place = |id: String, initial| Place {
        name: id.clone(),
        id,
        initial,
    };
    let arc = |place| Arc { place, weight: 1 };
    let mut net = PetriNet {
        name: "toggles".into(),
        places: vec![place("c".into(), 0), place("cap".into(), 30)],
        ..PetriNet::default()
    };
    net.transitions.push(Transition {
        id: "inc".into(),
        name: "inc".into(),
        inputs: vec![arc(1)],
        outputs: vec![arc(0)],
        ..Transition::default()
    });
    for i in 0..40 {
        let (a, b) = (net.places.len(), net.places.len() + 1);
        net.places.push(place(format!("a{i}"), 1));
        net.places.push(place(format!("b{i}"), 0));
        for (id, from, to) in [(format!("on{i}"), a, b), (format!("off{i}"), b, a)] {
            net.transitions.push(Transition {
                name: id.clone(),
                id,
                inputs: vec![arc(from)],
                outputs: vec![arc(to)],
                ..Transition::default()
            });
        }
    }
    net
}

#[test]
fn random_walks_find_what_lies_beyond_the_breadth_first_search() {
    let net = toggles_and_a_counter();
    let c20 = StateFormula::Atom(saturn_logic::Atom {
        lhs: LinExpr {
            terms: vec![(0, 1)],
            constant: 0,
        },
        op: saturn_logic::CmpOp::Ge,
        bound: 20,
    });
    let formula = |f| Item {
        id: String::new(),
        question: Question::Formula(ResolvedQuery::Formula(f)),
    };
    // and the bound of `c`: 30 by the P-semiflow c + cap, met by a walk
    let bound = Item {
        id: String::new(),
        question: Question::Formula(ResolvedQuery::Bound(LinExpr {
            terms: vec![(0, 1)],
            constant: 0,
        })),
    };
    let items = vec![
        formula(StateFormula::EF(Box::new(c20.clone()))),
        formula(StateFormula::AG(Box::new(StateFormula::Not(Box::new(c20))))),
        bound,
    ];
    let limits = Limits {
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(30)),
        ..Limits::none()
    };
    let start = std::time::Instant::now();
    let got = check(
        &net,
        &lower(&net),
        &items,
        &options(ExplicitMode::Only, false),
        limits,
        None,
    );
    let values: Vec<Option<(Value, Technique)>> = got
        .verdicts
        .iter()
        .map(|v| v.decided.as_ref().map(|d| (d.value.clone(), d.technique)))
        .collect();
    assert_eq!(
        values,
        vec![
            Some((Value::Bool(true), Technique::Explicit)),
            Some((Value::Bool(false), Technique::Explicit)),
            Some((Value::Bound(30), Technique::Explicit)),
        ],
        "after {:?}",
        start.elapsed()
    );
}

/// `net` with `k` toggles beside it (places `on_i` marked and `off_i`, transitions moving the
/// token between them): `2^k` times the markings, none of which the questions over `net`'s
/// places read, so the structural reductions remove them all.
fn with_toggles(net: &PetriNet, k: usize) -> PetriNet {
    with_pads(net, k, true)
}

/// `net` with `k` pads beside it, each a marked place `on_i`, a place `off_i` and a
/// transition `down_i` from the first to the second; with `back`, also `up_i` back (a
/// toggle; without it the pads fire once and the padded net's deadlocks are `net`'s).
fn with_pads(net: &PetriNet, k: usize, back: bool) -> PetriNet {
    use saturn_model::{Arc, Place, Transition};
    let mut out = net.clone();
    for i in 0..k {
        let (on, off) = (out.places.len(), out.places.len() + 1);
        for (id, initial) in [(format!("on_{i}"), 1), (format!("off_{i}"), 0)] {
            out.places.push(Place {
                id: id.clone(),
                name: id,
                initial,
            });
        }
        let moves = [(format!("down_{i}"), on, off), (format!("up_{i}"), off, on)];
        for (id, a, b) in moves.into_iter().take(if back { 2 } else { 1 }) {
            out.transitions.push(Transition {
                id: id.clone(),
                name: id,
                inputs: vec![Arc {
                    place: a,
                    weight: 1,
                }],
                outputs: vec![Arc {
                    place: b,
                    weight: 1,
                }],
                inhibitors: Vec::new(),
            });
        }
    }
    out
}

/// The explicit side alone decides every one of `items` on `net`, as the symbolic side does.
fn decided_alike(net: &PetriNet, items: &[Item]) -> Result<(), TestCaseError> {
    let models = lower(net);
    let symbolic = checked(net, &models, items, ExplicitMode::Off, true);
    let explicit = checked(net, &models, items, ExplicitMode::Only, false);
    for ((item, s), x) in items.iter().zip(&symbolic.verdicts).zip(&explicit.verdicts) {
        let s = s.decided.as_ref().expect("the symbolic side decides all");
        let x = x.decided.as_ref();
        prop_assert!(x.is_some(), "{} undecided", item.id);
        prop_assert_eq!(&x.unwrap().value, &s.value, "{}", item.id);
    }
    Ok(())
}

proptest! {
    #![proptest_config(saturn_reference::strategies::config(16))]

    /// With 2^17 times the markings beside a random net (whose whole search would not end in
    /// the test's time), the explicit side alone still decides every reachability formula and
    /// bound over the random net's places, as the symbolic side does: each is searched on the
    /// net reduced for it.
    #[test]
    fn the_searches_of_the_reduced_nets_answer_as_the_symbolic_side(
        (net, phis, places) in net_and_questions()
    ) {
        if saturn_reference::explore_petri(&net, 20_000).is_err() {
            return Err(TestCaseError::reject("unbounded or large"));
        }
        let mut items = random_items(&net, phis, places);
        items.retain(|i| matches!(i.question, Question::Formula(_)));
        let padded = with_toggles(&net, 17);
        decided_alike(&padded, &items)?;
    }

    /// The same nets beside 2^17 times the markings (pads that fire once: a deadlock of the
    /// net is one of the padded net): the explicit side alone decides
    /// ReachabilityDeadlock (a search reduced by stubborn sets, deadlocks kept),
    /// QuasiLiveness and StableMarking (each transition no walk enabled, each place no walk
    /// changed, searched on the net reduced for it), as the symbolic side does.
    #[test]
    fn the_global_searches_answer_as_the_symbolic_side(
        (net, _phis, _places) in net_and_questions()
    ) {
        if saturn_reference::explore_petri(&net, 20_000).is_err() {
            return Err(TestCaseError::reject("unbounded or large"));
        }
        let padded = with_pads(&net, 17, false);
        let items: Vec<Item> = GLOBAL_PROPERTIES
            .iter()
            // OneSafe too: with every place bounded by one, the explicit side alone leaves
            // it to the breadth-first search
            .filter(|p| !matches!(**p, "Liveness" | "OneSafe"))
            .map(|p| Item { id: p.to_string(), question: Question::Global(p) })
            .collect();
        decided_alike(&padded, &items)?;
    }
}

/// A chain of `n` binary choices (place `c_i` marked in turn; `left_i` moves the token on,
/// `right_i` drops it into `s_i`) and a transition `end` that takes the token from `c_n` and
/// puts two into `x`, beside 17 toggles: a random walk reaches `c_n` once in 2^n tries, the
/// whole search has 2^17 times the chain's markings. With `blocked`, `end` also needs a place
/// that is never marked.
fn a_chain_of_choices(n: usize, blocked: bool) -> PetriNet {
    let mut m0 = vec![0u64; 2 * n + 3];
    m0[0] = 1;
    let (x, never) = (2 * n + 1, 2 * n + 2);
    let mut ts = Vec::new();
    for i in 0..n {
        ts.push((vec![(i, 1)], vec![(i + 1, 1)], vec![]));
        ts.push((vec![(i, 1)], vec![(n + 1 + i, 1)], vec![]));
    }
    let mut end_in = vec![(n, 1)];
    if blocked {
        end_in.push((never, 1));
    }
    ts.push((end_in, vec![(x, 2)], vec![]));
    with_toggles(&saturn_reference::strategies::petri_net(&m0, ts), 17)
}

/// The global properties where the walks cannot tell: the transitions they did not see
/// enabled and the places they did not see change or hold two tokens are searched one at a
/// time, and the answers are the symbolic side's (the explicit side alone, so no state
/// equation: the searches show them). QuasiLiveness is TRUE and OneSafe FALSE exactly when
/// `end` can fire.
#[test]
fn the_global_properties_search_what_the_walks_missed() {
    for blocked in [false, true] {
        let net = a_chain_of_choices(40, blocked);
        let asked = [
            "ReachabilityDeadlock",
            "QuasiLiveness",
            "OneSafe",
            "StableMarking",
        ];
        // OneSafe when `end` is blocked: the P-semiflows bound every place by one, which the
        // explicit side alone does not tell (no state equation), and the breadth-first search
        // takes half a minute
        let items: Vec<Item> = asked
            .iter()
            .filter(|p| !blocked || **p != "OneSafe")
            .map(|p| Item {
                id: p.to_string(),
                question: Question::Global(p),
            })
            .collect();
        decided_alike(&net, &items).unwrap();
        let models = lower(&net);
        let symbolic = checked(&net, &models, &items, ExplicitMode::Off, false);
        let value = |o: &Outcome, k: usize| o.verdicts[k].decided.as_ref().map(|d| d.value.clone());
        assert_eq!(value(&symbolic, 1), Some(Value::Bool(!blocked)));
        if !blocked {
            assert_eq!(value(&symbolic, 2), Some(Value::Bool(false)));
        }
        let explicit = checked(&net, &models, &items, ExplicitMode::Only, false);
        let searched: &[usize] = if blocked { &[1] } else { &[1, 2] };
        for &k in searched {
            let x = explicit.verdicts[k].decided.as_ref().expect("decided");
            assert!(
                matches!(x.technique, Technique::PartialOrder | Technique::Reduction),
                "{}: {:?}",
                asked[k],
                x.technique
            );
        }
    }
}
