//! Proptest strategies shared by the tests of the oracle and of the symbolic engines: random
//! small Petri nets and random resolved CTL formulas over them.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use saturn_logic::{Atom, CmpOp, LinExpr, StateFormula};
use saturn_model::{Arc, PetriNet, Place, Transition};

/// A random small net: `1..=max_places` places with 0..=2 tokens, `0..=max_transitions`
/// transitions with up to three input and output arcs of weight 1..=2, at most one inhibitor
/// arc and at most one test arc (an input and an output of the same weight on one place: the
/// transition needs the tokens and leaves them), arcs to one place merged.
pub fn small_net(max_places: usize, max_transitions: usize) -> impl Strategy<Value = PetriNet> {
    (1usize..=max_places.max(1), 0usize..=max_transitions).prop_flat_map(|(np, nt)| {
        let places = proptest::collection::vec(0u64..=2, np);
        let arcs = proptest::collection::vec((0..np, 1u64..=2), 0..=3);
        let inhib = proptest::collection::vec((0..np, 1u64..=3), 0..=1);
        let test = proptest::collection::vec((0..np, 1u64..=2), 0..=1);
        let transitions = proptest::collection::vec((arcs.clone(), arcs, inhib, test), nt);
        (places, transitions).prop_map(|(places, ts)| {
            let ts = ts
                .into_iter()
                .map(|(mut inp, mut out, inh, test)| {
                    inp.extend(&test);
                    out.extend(&test);
                    (inp, out, inh)
                })
                .collect();
            petri_net(&places, ts)
        })
    })
}

/// A random net for the engines' random tests: `1..=max_places` places, `0..=max_transitions`
/// transitions, with weights, inhibitor and test arcs. Mostly (three in four) a conservative
/// net (2.. places with 0..=3 tokens, mostly some; half the transitions or more): each transition
/// moves tokens of the same total weight in as out
/// (one or two arcs of weight 1..=2), so the net is bounded by construction and mostly lives
/// (tens to hundreds of states, cycles, transient states, deadlocks now and then), plus at most
/// one inhibitor arc (weight 2..=4) and one test arc (weight 1);
/// else a [`small_net`] (unbounded nets, one-state nets, dead transitions).
pub fn random_net(max_places: usize, max_transitions: usize) -> BoxedStrategy<PetriNet> {
    let (mp, mt) = (max_places.max(2), max_transitions.max(2));
    let conservative = (2usize..=mp, (mt / 2).max(1)..=mt).prop_flat_map(|(np, nt)| {
        let places = proptest::collection::vec(prop_oneof![1 => Just(0u64), 2 => 1u64..=3], np);
        let weight = prop_oneof![3 => Just(1u64), 1 => Just(2u64)];
        let weights = prop_oneof![
            2 => proptest::collection::vec(weight.clone(), 1),
            1 => proptest::collection::vec(weight, 2)
        ];
        let moves = (
            weights,
            proptest::collection::vec(0..np, 2),
            proptest::collection::vec(0..np, 2),
            proptest::collection::vec((0..np, 2u64..=4), 0..=1),
            proptest::collection::vec((0..np, Just(1u64)), 0..=1),
        )
            .prop_map(|(w, from, to, inh, test)| {
                // the same weights in as out, on (possibly) other places
                let mut inp: Vec<(usize, u64)> =
                    w.iter().zip(&from).map(|(&w, &p)| (p, w)).collect();
                let mut out: Vec<(usize, u64)> = w.iter().zip(&to).map(|(&w, &p)| (p, w)).collect();
                inp.extend(&test);
                out.extend(&test);
                (inp, out, inh)
            });
        let transitions = proptest::collection::vec(moves, nt);
        (places, transitions).prop_map(|(places, ts)| petri_net(&places, ts))
    });
    prop_oneof![3 => conservative, 1 => small_net(max_places, max_transitions)].boxed()
}

/// A random net with a step rank (a weight per place that every firing lowers by exactly
/// one, so the net has no cycle and terminates): `4..=max_places` places, each at a depth
/// `0..=3` (weight `4 - depth`; every depth has a place), 0..=3 tokens on the places of depth
/// 0 and now and then one elsewhere, and `1..=max_transitions` transitions, each moving a token
/// one depth down (or out of the net from the last depth), splitting one into two deeper
/// tokens, or merging two into one, with at most one test arc.
pub fn ranked_net(max_places: usize, max_transitions: usize) -> BoxedStrategy<PetriNet> {
    const DEEPEST: usize = 3;
    (4usize..=max_places.max(4), 1usize..=max_transitions.max(1))
        .prop_flat_map(|(np, nt)| {
            let depths = proptest::collection::vec(0..=DEEPEST, np);
            let tokens = proptest::collection::vec(prop_oneof![3 => Just(0u64), 1 => 1u64..=2], np);
            let kinds = proptest::collection::vec(
                (
                    0u8..3,
                    0..np,
                    0..np,
                    0..np,
                    proptest::collection::vec(0..np, 0..=1),
                ),
                nt,
            );
            (depths, tokens, 1u64..=3, kinds)
        })
        .prop_map(|(mut depth, tokens, first, kinds)| {
            let np = depth.len();
            for (i, d) in depth.iter_mut().enumerate().take(DEEPEST + 1) {
                *d = i;
            }
            let at = |d: usize, pick: usize| {
                let of: Vec<usize> = (0..np).filter(|&p| depth[p] == d).collect();
                of[pick % of.len()]
            };
            let initial: Vec<u64> = (0..np)
                .map(|p| match (p, depth[p]) {
                    (0, _) => first,
                    (_, 0) => tokens[p] + 1,
                    _ => tokens[p] / 2,
                })
                .collect();
            let ts = kinds
                .into_iter()
                .map(|(kind, a, b, c, test)| {
                    let (i, j) = (depth[a], depth[b]);
                    let (mut inp, mut out) = match kind {
                        // weights 4-i and 4-j into one of 4-k = 7-i-j: depth i+j-3
                        2 if i + j >= DEEPEST => {
                            (vec![(a, 1), (b, 1)], vec![(at(i + j - DEEPEST, c), 1)])
                        }
                        // weight 4-i into 3-i = 1 + (2-i): depths 3 and i+2
                        1 if i + 2 <= DEEPEST => {
                            (vec![(a, 1)], vec![(at(DEEPEST, b), 1), (at(i + 2, c), 1)])
                        }
                        _ if i < DEEPEST => (vec![(a, 1)], vec![(at(i + 1, b), 1)]),
                        _ => (vec![(a, 1)], vec![]),
                    };
                    let test: Vec<(usize, u64)> = test.into_iter().map(|p| (p, 1)).collect();
                    inp.extend(&test);
                    out.extend(&test);
                    (inp, out, vec![])
                })
                .collect();
            petri_net(&initial, ts)
        })
        .boxed()
}

/// `net` with a process (a one-hot group of places, [`saturn_model::OneHot`]) of `size` places (`g{B}_0`, ..., `B` the net's places, the token at place `start`): a ring of
/// transitions moves it from each place to the next, and transition `t` of `moves` (taken
/// modulo the net's transitions) also moves it from place `a` to place `b` (a test when
/// `a == b`). With `clash`, one more transition needs two of its places at once.
pub fn with_process(
    net: &PetriNet,
    size: usize,
    start: usize,
    moves: &[(usize, usize, usize)],
    clash: bool,
) -> PetriNet {
    let mut out = net.clone();
    let base = out.places.len();
    for i in 0..size {
        out.places.push(Place {
            id: format!("g{base}_{i}"),
            name: format!("g{base}_{i}"),
            initial: u64::from(i == start % size),
        });
    }
    let arc = |i: usize| Arc {
        place: base + i % size,
        weight: 1,
    };
    let nt = out.transitions.len();
    for &(t, a, b) in moves {
        if nt > 0 {
            let tr = &mut out.transitions[t % nt];
            // one move per transition: a second would need two tokens of the process
            if !tr.inputs.iter().any(|x| x.place >= base) {
                tr.inputs.push(arc(a));
                tr.outputs.push(arc(b));
            }
        }
    }
    for i in 0..size {
        out.transitions.push(Transition {
            id: format!("ring{base}_{i}"),
            name: format!("ring{base}_{i}"),
            inputs: vec![arc(i)],
            outputs: vec![arc(i + 1)],
            inhibitors: Vec::new(),
        });
    }
    if clash {
        out.transitions.push(Transition {
            id: "clash".into(),
            name: "clash".into(),
            inputs: vec![arc(0), arc(1)],
            outputs: vec![arc(0), arc(1)],
            inhibitors: Vec::new(),
        });
    }
    out
}

/// A [`random_net`] with one or two planted processes ([`with_process`], 2..=4 places each,
/// some of the net's transitions moving or testing their token; with a transition that needs
/// two places of a process now and then): nets whose one-hot groups
/// ([`saturn_model::OneHot::find`]) hold local states beside shared resources.
pub fn net_with_processes(max_places: usize, max_transitions: usize) -> BoxedStrategy<PetriNet> {
    let process = (
        2usize..=4,
        0usize..4,
        proptest::collection::vec(
            (0usize..max_transitions.max(1), 0usize..4, 0usize..4),
            0..=4,
        ),
        proptest::bool::weighted(0.2),
    );
    (
        random_net(max_places, max_transitions),
        proptest::collection::vec(process, 1..=2),
    )
        .prop_map(|(net, ps)| {
            ps.iter().fold(net, |net, (size, start, moves, clash)| {
                with_process(&net, *size, *start, moves, *clash)
            })
        })
        .boxed()
}
/// The configuration of a random test with `cases` cases whose discarded cases (a
/// [`TestCaseError::reject`], e.g. a net unbounded or too large for the reference) count: the
/// test fails when more cases are discarded than kept, i.e. more than half of them.
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_global_rejects: cases,
        ..ProptestConfig::default()
    }
}

/// A discarded case, with the reason (counted against [`config`]'s limit).
pub fn discard(reason: &'static str) -> TestCaseError {
    TestCaseError::reject(reason)
}

/// Arcs of one transition: `(place, weight)` lists of inputs, outputs and inhibitors.
pub type ArcLists = (Vec<(usize, u64)>, Vec<(usize, u64)>, Vec<(usize, u64)>);

/// A net with places `p0, p1, ...` holding `initial` tokens and transitions `t0, t1, ...` with
/// the given arcs (arcs to one place merged by adding their weights).
pub fn petri_net(initial: &[u64], transitions: Vec<ArcLists>) -> PetriNet {
    PetriNet {
        name: "random".into(),
        places: initial
            .iter()
            .enumerate()
            .map(|(i, &m)| Place {
                id: format!("p{i}"),
                name: format!("p{i}"),
                initial: m,
            })
            .collect(),
        transitions: transitions
            .into_iter()
            .enumerate()
            .map(|(i, (inp, out, inh))| Transition {
                id: format!("t{i}"),
                name: format!("t{i}"),
                inputs: merge_arcs(inp),
                outputs: merge_arcs(out),
                inhibitors: merge_arcs(inh),
            })
            .collect(),
    }
}

fn merge_arcs(v: Vec<(usize, u64)>) -> Vec<Arc> {
    let mut out: Vec<Arc> = Vec::new();
    for (p, w) in v {
        match out.iter_mut().find(|a| a.place == p) {
            Some(a) => a.weight += w,
            None => out.push(Arc {
                place: p,
                weight: w,
            }),
        }
    }
    out
}

/// A random atom `Σ c·m(p) op k` over `places` places: up to three terms with coefficients in
/// `-3..=3` (zero dropped), a bound in `-3..=6`, any comparison.
pub fn atom(places: usize) -> impl Strategy<Value = Atom> {
    let places = places.max(1);
    (
        proptest::collection::vec((0..places, -3i64..=3), 0..=3),
        -3i64..=6,
        proptest::sample::select(CmpOp::ALL.to_vec()),
    )
        .prop_map(|(terms, bound, op)| {
            let mut t: Vec<(usize, i64)> = Vec::new();
            for (p, c) in terms {
                match t.iter_mut().find(|x| x.0 == p) {
                    Some(x) => x.1 += c,
                    None => t.push((p, c)),
                }
            }
            t.retain(|x| x.1 != 0);
            t.sort_unstable();
            Atom {
                lhs: LinExpr {
                    terms: t,
                    constant: 0,
                },
                op,
                bound,
            }
        })
}

/// A random non-temporal state formula (atoms, `enabled`, `deadlock`, constants, boolean
/// connectives) over a net with `places` places and `transitions` transitions.
pub fn boolean_formula(places: usize, transitions: usize) -> BoxedStrategy<StateFormula> {
    formula(places, transitions, false)
}

/// A random CTL state formula (every CTL operator, nested) over a net with `places` places and
/// `transitions` transitions.
pub fn ctl_formula(places: usize, transitions: usize) -> BoxedStrategy<StateFormula> {
    formula(places, transitions, true)
}

/// A random net of at most 5 places and 6 transitions ([`random_net`]) with `count` random CTL
/// formulas over it.
pub fn net_with_ctl_formulas(count: usize) -> BoxedStrategy<(PetriNet, Vec<StateFormula>)> {
    random_net(5, 6)
        .prop_flat_map(move |net| {
            let (np, nt) = (net.places.len(), net.transitions.len());
            let phis = proptest::collection::vec(ctl_formula(np, nt), count);
            (Just(net), phis)
        })
        .boxed()
}

fn formula(places: usize, transitions: usize, temporal: bool) -> BoxedStrategy<StateFormula> {
    use StateFormula as F;
    let enabled = if transitions == 0 {
        Just(F::Deadlock).boxed()
    } else {
        proptest::collection::btree_set(0..transitions, 1..=2)
            .prop_map(|s| F::Enabled(s.into_iter().collect()))
            .boxed()
    };
    let leaf = prop_oneof![
        3 => atom(places).prop_map(F::Atom),
        2 => enabled,
        1 => Just(F::Deadlock),
        1 => any::<bool>().prop_map(F::Const),
    ];
    leaf.prop_recursive(4, 24, 2, move |inner| {
        let b = |f: StateFormula| Box::new(f);
        let boolean = prop_oneof![
            inner.clone().prop_map(move |a| F::Not(b(a))),
            proptest::collection::vec(inner.clone(), 2..=3).prop_map(F::And),
            proptest::collection::vec(inner.clone(), 2..=3).prop_map(F::Or),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| F::Implies(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| F::Iff(b(x), b(y))),
        ];
        if !temporal {
            return boolean.boxed();
        }
        let unary = (0usize..6, inner.clone()).prop_map(move |(k, a)| {
            let a = b(a);
            match k {
                0 => F::EX(a),
                1 => F::AX(a),
                2 => F::EF(a),
                3 => F::AF(a),
                4 => F::EG(a),
                _ => F::AG(a),
            }
        });
        let binary = (any::<bool>(), inner.clone(), inner).prop_map(move |(e, x, y)| {
            if e {
                F::EU(b(x), b(y))
            } else {
                F::AU(b(x), b(y))
            }
        });
        prop_oneof![2 => boolean, 3 => unary, 1 => binary].boxed()
    })
    .boxed()
}

/// A random LTL path formula (`X`, `F`, `G`, `U` and boolean connectives, nested) over
/// non-temporal state formulas of a net with `places` places and `transitions` transitions.
pub fn ltl_formula(places: usize, transitions: usize) -> BoxedStrategy<saturn_logic::PathFormula> {
    let leaf = formula(places, transitions, false)
        .prop_map(saturn_logic::PathFormula::State)
        .boxed();
    ltl_over(leaf, true)
}

/// A random LTL path formula over the leaves `leaf`: `F`, `G`, `U`, boolean connectives, and
/// `X` when `next` (without it, a stutter-insensitive formula), nested.
pub fn ltl_over(
    leaf: BoxedStrategy<saturn_logic::PathFormula>,
    next: bool,
) -> BoxedStrategy<saturn_logic::PathFormula> {
    use saturn_logic::PathFormula as P;
    leaf.prop_recursive(4, 16, 2, move |inner| {
        let b = |f: P| Box::new(f);
        let mut ops = vec![
            inner.clone().prop_map(move |a| P::Not(b(a))).boxed(),
            inner.clone().prop_map(move |a| P::F(b(a))).boxed(),
            inner.clone().prop_map(move |a| P::G(b(a))).boxed(),
            (inner.clone(), inner.clone())
                .prop_map(move |(x, y)| P::U(b(x), b(y)))
                .boxed(),
            (inner.clone(), inner.clone())
                .prop_map(|(x, y)| P::And(vec![x, y]))
                .boxed(),
            (inner.clone(), inner.clone())
                .prop_map(|(x, y)| P::Or(vec![x, y]))
                .boxed(),
        ];
        if next {
            ops.push(inner.prop_map(move |a| P::X(b(a))).boxed());
        }
        proptest::strategy::Union::new(ops)
    })
    .boxed()
}
