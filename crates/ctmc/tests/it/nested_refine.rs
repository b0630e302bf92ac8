//! Nested refinement (thesis 7.2, Figures 7.4-7.5): nested formulas whose inner probability
//! lies within 1e-9 (or 1e-11) of its threshold, so that the default epsilon (1e-6) leaves the
//! inner set undecided, are decided by refinement, in both orders and on both engines, and
//! agree with a dense reference (Gaussian elimination on the full rate matrix, the inner set
//! decided from the dense probabilities); the per-subformula scheme solves less than the
//! global one (every subformula again at epsilon / 100) on a formula where only one inner
//! operand needs precision.

#![allow(clippy::needless_range_loop)]

use std::collections::BTreeMap;

use crate::common::{explicit_states, gauss};
use saturn_ctmc::props::{Answer, Checker, Csl, RefineOrder, Rel, Stats};
use saturn_ctmc::solve::Options;
use saturn_ctmc::sparse::SparseCtmc;
use saturn_ctmc::symbolic::chain::SymbolicChain;
use saturn_ctmc::{Chain, SymbolicCtmc};
use saturn_model::expr::{BinOp, Expr};
use saturn_model::GeneralModel;
use saturn_prism::ConstOverrides;
use saturn_symbolic::encode::{generate_general, GenMethod};
use saturn_symbolic::Limits;

/// From s=0: to s=1 or to s=4 at rate 1 each; from s=1 to s=2 ("good") at rate 0.5+d, to
/// s=3 at rate 0.5-d and to s=5 at rate 10, from s=5 back to s=1; s=2, 3, 4 absorbing
/// (deadlocks). `P(F s=2)` is 0.5+d in s=1 and s=5 (the detour through s=5 makes the iteration
/// converge geometrically, so its bounds are about epsilon wide), so the inner
/// `P>=0.5 [ F s=2 ]` holds there iff d >= 0.
fn model_text(d: f64) -> String {
    format!(
        "ctmc\nmodule m\n  s : [0..5] init 0;\n  [] s=0 -> 1 : (s'=1) + 1 : (s'=4);\n  \
         [] s=1 -> {} : (s'=2) + {} : (s'=3) + 10 : (s'=5);\n  [] s=5 -> 1 : (s'=1);\n\
         endmodule\n",
        0.5 + d,
        0.5 - d
    )
}

fn load(text: &str) -> GeneralModel {
    let prog =
        saturn_prism::load_model("n.sm", text, &ConstOverrides::default()).expect("a program");
    saturn_prism::lower::lower_with_actions(&prog)
        .expect("lowers")
        .0
}

fn sparse(model: &GeneralModel) -> SparseCtmc {
    let (enc, ss) =
        generate_general(model, &[0], GenMethod::Saturation, &Limits::none()).expect("generates");
    SparseCtmc::build(
        model,
        &enc.sets,
        &enc.order,
        ss.reached,
        enc.init,
        &mut |_, _| {},
    )
    .expect("builds")
}

fn symbolic(model: &GeneralModel) -> SymbolicChain {
    let (enc, ss) =
        generate_general(model, &[0], GenMethod::Saturation, &Limits::none()).expect("generates");
    let m = SymbolicCtmc::from_state_space(model, enc, &ss).expect("builds");
    SymbolicChain::new(model, m, Limits::none()).expect("symbolic chain")
}

/// The dense reference: states by explicit exploration, the full rate matrix.
struct Dense {
    states: Vec<Vec<i64>>,
    r: Vec<Vec<f64>>,
}

impl Dense {
    fn new(model: &GeneralModel) -> Dense {
        let (states, index) = explicit_states(model, 1_000);
        let n = states.len();
        let mut r = vec![vec![0.0; n]; n];
        for (i, s) in states.iter().enumerate() {
            for e in 0..model.events.len() {
                if let Some((t, rate)) = model.step(e, s).expect("no error") {
                    let j = index[&t];
                    if j != i {
                        r[i][j] += rate;
                    }
                }
            }
        }
        Dense { states, r }
    }

    /// `P(F b)` in every state: `x = 1` on `b`, 0 where `b` cannot be reached, else
    /// `x = P x` (dense Gaussian elimination).
    fn reach(&self, b: &[bool]) -> Vec<f64> {
        let n = self.states.len();
        let mut can = b.to_vec();
        loop {
            let mut changed = false;
            for i in 0..n {
                if !can[i] && (0..n).any(|j| self.r[i][j] > 0.0 && can[j]) {
                    can[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let unknown: Vec<usize> = (0..n).filter(|&i| can[i] && !b[i]).collect();
        let k = unknown.len();
        let mut a = vec![vec![0.0; k]; k];
        let mut rhs = vec![0.0; k];
        for (ri, &s) in unknown.iter().enumerate() {
            a[ri][ri] = 1.0;
            let h: f64 = self.r[s].iter().sum();
            for j in 0..n {
                let v = self.r[s][j];
                if v == 0.0 {
                    continue;
                }
                match unknown.iter().position(|&u| u == j) {
                    Some(cj) => a[ri][cj] -= v / h,
                    None if b[j] => rhs[ri] += v / h,
                    None => {}
                }
            }
        }
        let xs = gauss(a, rhs);
        let mut x: Vec<f64> = (0..n).map(|i| if b[i] { 1.0 } else { 0.0 }).collect();
        for (ri, &s) in unknown.iter().enumerate() {
            x[s] = xs[ri];
        }
        x
    }

    fn pred(&self, f: impl Fn(&[i64]) -> bool) -> Vec<bool> {
        self.states.iter().map(|s| f(s)).collect()
    }

    fn init(&self) -> usize {
        self.states.iter().position(|s| s[0] == 0).expect("s=0")
    }
}

fn s_eq(k: i64) -> Csl {
    Csl::Expr(Expr::bin(BinOp::Eq, Expr::Var(0), Expr::Int(k)))
}

fn eventually(bound: Option<(Rel, f64)>, target: Csl) -> Csl {
    Csl::Until {
        bound,
        left: Box::new(Csl::Expr(Expr::Bool(true))),
        right: Box::new(target),
    }
}

/// `P>=0.5 [ F s=2 ]`.
fn inner() -> Csl {
    eventually(Some((Rel::Ge, 0.5)), s_eq(2))
}

fn answer(chain: &dyn Chain, model: &GeneralModel, order: RefineOrder, f: &Csl) -> (Answer, Stats) {
    let mut ck = Checker::new(
        model,
        &[],
        &[],
        chain,
        Options::default(),
        Box::new(|_, _, _, _| true),
    )
    .refine_order(order);
    let a = ck.answer(f).expect("answers");
    (a, ck.stats().clone())
}

/// How many times the subformula printed `text` was refined.
fn refined(st: &Stats, text: &str) -> usize {
    st.refined.iter().filter(|r| r.subformula == text).count()
}

const ORDERS: [RefineOrder; 2] = [RefineOrder::TopDown, RefineOrder::BottomUp];

#[test]
fn nested_thresholds_close_to_the_inner_value_are_decided_by_refinement() {
    for d in [1e-9, -1e-9, 1e-11, -1e-11] {
        let model = load(&model_text(d));
        let dense = Dense::new(&model);
        let good = dense.reach(&dense.pred(|s| s[0] == 2));
        // the inner set, decided from the dense probabilities (d is far above their rounding)
        let inner_set: Vec<bool> = good.iter().map(|&p| p >= 0.5).collect();
        assert_eq!(
            inner_set[dense.pred(|s| s[0] == 1).iter().position(|&b| b).unwrap()],
            d > 0.0
        );
        let outer = dense.reach(&inner_set)[dense.init()];
        let count = inner_set.iter().filter(|&&b| b).count() as f64;
        let (sp, sy) = (sparse(&model), symbolic(&model));
        for (engine, chain) in [("sparse", &sp as &dyn Chain), ("symbolic", &sy)] {
            let mut decided = Vec::new();
            for order in ORDERS {
                let what = format!("d={d} {engine} {order:?}");
                // P=? [ F P>=0.5 [ F s=2 ] ]: [1/4, 1/2] wide until the inner set is decided
                let (a, st) = answer(chain, &model, order, &eventually(None, inner()));
                let Answer::Num(i) = a else {
                    panic!("{what}: a number expected, got {a:?}")
                };
                assert!(
                    i.lo <= outer * (1.0 + 1e-12) && outer * (1.0 - 1e-12) <= i.hi,
                    "{what}: [{}, {}] excludes {outer}",
                    i.lo,
                    i.hi
                );
                assert!(
                    i.width() <= 1e-6 * outer,
                    "{what}: [{}, {}] too wide",
                    i.lo,
                    i.hi
                );
                assert!(st.refinements > 0, "{what}: {st:?}");
                assert_eq!(st.undecided, 0, "{what}: {st:?}");
                assert!(st.guaranteed, "{what}: {st:?}");
                // every refinement is logged with its subformula and epsilon
                assert_eq!(st.refined.len(), st.refinements);
                assert!(st
                    .refined
                    .iter()
                    .all(|r| r.epsilon < 1e-6 && r.epsilon >= 1e-14));
                assert!(refined(&st, "P>=0.5 [ true U s=2 ]") > 0, "{what}: {st:?}");
                // P>0.4 [ F P>=0.5 [ F s=2 ] ]: true iff the inner set holds s=1
                let (b, _) = answer(
                    chain,
                    &model,
                    order,
                    &eventually(Some((Rel::Gt, 0.4)), inner()),
                );
                assert_eq!(b, Answer::Bool(outer > 0.4), "{what}");
                // filter(count, P>=0.5 [ F s=2 ]): the inner set's size, exactly
                let f = Csl::Filter {
                    op: saturn_ctmc::props::FilterOp::Count,
                    prop: Box::new(inner()),
                    states: None,
                };
                let (c, _) = answer(chain, &model, order, &f);
                assert_eq!(c, Answer::num(count), "{what}");
                decided.push((b, c));
            }
            // both orders give the same decided answers
            assert_eq!(decided[0], decided[1], "d={d} {engine}");
        }
    }
}

/// A threshold at exactly the inner value stays undecided whatever the refinement (never
/// guessed), with the refinement limits: at most 4 reductions per operator, not below 1e-14.
#[test]
fn an_inner_value_exactly_at_its_threshold_stays_undecided() {
    let model = load(&model_text(0.0));
    let chain = sparse(&model);
    for order in ORDERS {
        let (a, st) = answer(
            &chain,
            &model,
            order,
            &eventually(Some((Rel::Gt, 0.4)), inner()),
        );
        assert!(
            a == Answer::Bool(true) || a == Answer::Undecided,
            "{order:?}: {a:?}"
        );
        if a == Answer::Undecided {
            assert!(st.undecided > 0, "{st:?}");
        }
        let mut per: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &st.refined {
            *per.entry(r.subformula.as_str()).or_default() += 1;
            assert!(r.epsilon >= 1e-14, "{r:?}");
        }
        assert!(per.values().all(|&k| k <= 4), "{order:?}: {per:?}");
    }
}

/// `P=? [ P>0.1 [ F s=4 ] U P>=0.5 [ F s=2 ] ]` with the inner value 0.5 + 1e-11: the left
/// operand is decided at the default epsilon, the right one needs a smaller epsilon. The
/// global scheme evaluates the whole formula again at each epsilon (1e-6, 1e-8, ...); the
/// per-subformula scheme never solves the left operand again, and (bottom-up) solves the outer
/// operator only once more, when the inner set is decided.
#[test]
fn per_subformula_refinement_solves_less_than_global_refinement() {
    let model = load(&model_text(1e-11));
    let chain = sparse(&model);
    let f = Csl::Until {
        bound: None,
        left: Box::new(eventually(Some((Rel::Gt, 0.1)), s_eq(4))),
        right: Box::new(inner()),
    };
    // the global scheme: the whole formula at epsilon, epsilon / 100, ... until decided
    let (mut solves, mut iterations, mut eps) = (0, 0, 1e-6);
    let global = loop {
        let mut ck = Checker::new(
            &model,
            &[],
            &[],
            &chain,
            Options {
                epsilon: eps,
                ..Options::default()
            },
            Box::new(|_, _, _, _| true),
        );
        let v = ck.eval(&f).expect("evaluates");
        solves += ck.stats().solves;
        iterations += ck.stats().iterations;
        let x = v[0].interval().expect("a number");
        if x.relative_width() <= 1e-6 {
            break x;
        }
        eps /= 100.0;
        assert!(eps >= 1e-14, "the global scheme does not decide");
    };
    assert!(
        solves >= 9,
        "at least three evaluations of three operators: {solves}"
    );
    for order in ORDERS {
        let (a, st) = answer(&chain, &model, order, &f);
        let Answer::Num(i) = a else {
            panic!("{order:?}: {a:?}")
        };
        println!(
            "{order:?}: {} solves, {} iterations (global: {solves} solves, {iterations} \
             iterations); refined {:?}",
            st.solves, st.iterations, st.refined
        );
        assert!(
            i.lo <= global.hi && global.lo <= i.hi,
            "{order:?}: {i:?} vs {global:?}"
        );
        assert!(
            st.solves < solves,
            "{order:?}: {} solves against the global scheme's {solves}: {st:?}",
            st.solves
        );
        // the left operand, decided at once, is never refined nor solved again
        assert_eq!(refined(&st, "P>0.1 [ true U s=4 ]"), 0, "{order:?}: {st:?}");
        if order == RefineOrder::BottomUp {
            // the inner operand at each of its epsilons, the outer once more
            assert!(st
                .refined
                .iter()
                .all(|r| r.subformula == "P>=0.5 [ true U s=2 ]"));
            assert_eq!(st.solves, 3 + st.refinements + 1, "{st:?}");
            assert!(st.iterations < iterations, "{st:?} vs {iterations}");
        }
    }
}

/// Only where the outer decision needs it: in `P>0.9 [ (s=0 | P>0.5 [ F s=2 ]) U (s=1 | s=4) ]
/// & P>0.4 [ F P>=0.5 [ F s=2 ] ]` both inner operators are undecided in s=1 and s=5 at the
/// default epsilon, but the first conjunct is decided in the initial state (its until goes
/// from s=0 straight into its target), so its inner operator, undecided only in states the
/// answer does not depend on, is never refined (the scheme before solved it again at every
/// epsilon); the second one is, and the answer is true (the dense reference of the first
/// test: P = 1/2 > 0.4 from s=0 when the inner value is 0.5 + 1e-9).
#[test]
fn inner_states_that_cannot_change_the_answer_are_not_refined() {
    let model = load(&model_text(1e-9));
    let chain = sparse(&model);
    let or = |a: Csl, b: Csl| Csl::Bin(BinOp::Or, Box::new(a), Box::new(b));
    let first = Csl::Until {
        bound: Some((Rel::Gt, 0.9)),
        left: Box::new(or(s_eq(0), eventually(Some((Rel::Gt, 0.5)), s_eq(2)))),
        right: Box::new(or(s_eq(1), s_eq(4))),
    };
    let f = Csl::Bin(
        BinOp::And,
        Box::new(first),
        Box::new(eventually(Some((Rel::Gt, 0.4)), inner())),
    );
    for order in ORDERS {
        let (a, st) = answer(&chain, &model, order, &f);
        assert_eq!(a, Answer::Bool(true), "{order:?}: {st:?}");
        assert!(
            refined(&st, "P>=0.5 [ true U s=2 ]") > 0,
            "{order:?}: {st:?}"
        );
        assert_eq!(refined(&st, "P>0.5 [ true U s=2 ]"), 0, "{order:?}: {st:?}");
    }
}
