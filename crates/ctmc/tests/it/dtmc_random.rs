//! Random small PRISM `dtmc` programs checked with PCTL's meaning on both engines (the
//! sparse one and the symbolic one, each as a chain whose rates are the one-step
//! probabilities, [`Checker::discrete_time`]) against a dense reference written here from the
//! full transition matrix `P` (self-loops included, a deadlock's self-loop added): dense
//! matrix-vector products for the step-bounded operators, dense linear solves of
//! `(I - P) x = ...` for unbounded until and reachability rewards, the stationary
//! distribution of each bottom SCC (`pi P = pi`, the Cesàro limit) for `S`. Every answer is
//! asked with the DEFAULT options: its bounds must contain the dense value and be within 1e-6
//! relative.

#![allow(clippy::needless_range_loop)] // dense linear algebra reads best with indices

use std::collections::BTreeMap;

use crate::common::{closure, gauss};
use proptest::prelude::*;

use saturn_ctmc::props::dtmc::{self, Rows};
use saturn_ctmc::props::{Answer, Checker, Csl, RewardPath, RewardStructure};
use saturn_ctmc::solve::Options;
use saturn_ctmc::sparse::SparseCtmc;
use saturn_ctmc::symbolic::chain::SymbolicChain;
use saturn_ctmc::{Chain, SymbolicCtmc};
use saturn_model::expr::{BinOp, Expr};
use saturn_prism::ConstOverrides;
use saturn_reference::general::explore_general;
use saturn_symbolic::encode::{generate_general, GenMethod};
use saturn_symbolic::Limits;

/// Probabilities with exact complements in decimal.
const PROBS: [(&str, &str); 5] = [
    ("0.1", "0.9"),
    ("0.25", "0.75"),
    ("0.5", "0.5"),
    ("0.75", "0.25"),
    ("0.9", "0.1"),
];

/// A random dtmc: two modules that move together on the action `a` (one command of each
/// enabled in every state), self-loops in most distributions, a command left out now and then
/// (deadlocks, absorbing states), now and then an unlabelled command enabled beside them
/// (two choices, each taken with probability 1/2, as PRISM does), a reward structure with a
/// state reward and a transition reward on `a` (self-loops earn it too).
fn program() -> impl Strategy<Value = (String, i64, i64)> {
    (
        1i64..4,
        1i64..4,
        proptest::collection::vec(0usize..PROBS.len(), 4),
        proptest::collection::vec(any::<bool>(), 4),
    )
        .prop_map(|(xm, ym, p, on)| {
            let pr = |k: usize| PROBS[p[k]];
            let (p0, q0) = pr(0);
            let (p1, q1) = pr(1);
            let (p2, q2) = pr(2);
            let (p3, q3) = pr(3);
            let back = if on[0] { "(x'=0)" } else { "(x'=x-1)" };
            let reset = if on[1] {
                format!("  [a] y=0 -> {p3} : (y'={ym}) + {q3} : true;\n")
            } else {
                String::new()
            };
            let stay = if on[2] { "true" } else { "(y'=y-1)" };
            // enabled beside an [a] product in x=0: PRISM's uniform choice between the two
            let jump = if on[3] {
                format!("  [] x=0 -> {p1} : (x'={xm}) + {q1} : true;\n")
            } else {
                String::new()
            };
            let text = format!(
                "dtmc\n\
                 module Ma\n  x : [0..{xm}];\n\
                 \x20 [a] x<{xm} -> {p0} : (x'=x+1) + {q0} : true;\n\
                 \x20 [a] x={xm} -> {p1} : {back} + {q1} : true;\n\
                 {jump}\
                 endmodule\n\
                 module Mb\n  y : [0..{ym}] init {ym};\n\
                 \x20 [a] y>0 -> {p2} : (y'=y-1) + {q2} : {stay};\n\
                 {reset}\
                 endmodule\n\
                 rewards \"r\"\n  x>0 : x;\n  [a] y=0 : 2;\nendrewards\n"
            );
            (text, xm, ym)
        })
}

/// The DTMC: states in value order, the dense transition matrix, the rewards.
struct Dense {
    states: Vec<Vec<i64>>,
    p: Vec<Vec<f64>>,
    /// State reward of each state (`x>0 : x`).
    state_reward: Vec<f64>,
    /// Expected reward of a step from each state: the state reward plus the transition
    /// reward of each transition times its probability (self-loops included).
    step_reward: Vec<f64>,
    init: usize,
    reach: Vec<Vec<bool>>,
}

impl Dense {
    /// `a`: the index of the action `a` in `actions` (the action of each event).
    fn new(
        model: &saturn_model::GeneralModel,
        actions: &[Option<usize>],
        a: Option<usize>,
    ) -> Dense {
        let ss = explore_general(model, 10_000).expect("explores");
        let states: Vec<Vec<i64>> = ss.states.iter().cloned().collect();
        let index: BTreeMap<Vec<i64>, usize> = states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i))
            .collect();
        let n = states.len();
        let mut p = vec![vec![0.0; n]; n];
        let mut state_reward = vec![0.0; n];
        let mut step_reward = vec![0.0; n];
        for (i, s) in states.iter().enumerate() {
            if s[0] > 0 {
                state_reward[i] = s[0] as f64;
            }
            step_reward[i] = state_reward[i];
            let moves: Vec<(usize, usize, f64)> = (0..model.events.len())
                .filter_map(|e| {
                    let (t, prob) = model.step(e, s).expect("no error")?;
                    Some((e, index[&t], prob))
                })
                .collect();
            // each enabled command is a distribution: their number is the total
            let choices = moves.iter().map(|m| m.2).sum::<f64>().round();
            for &(e, j, prob) in &moves {
                p[i][j] += prob / choices;
                if s[1] == 0 && actions[e] == a {
                    step_reward[i] += 2.0 * prob / choices;
                }
            }
            if moves.is_empty() {
                p[i][i] = 1.0; // PRISM's self-loop on a deadlock
            }
        }
        let reach = closure(&p);
        let init = index[&model.initial_states_explicit().expect("init")[0]];
        Dense {
            states,
            p,
            state_reward,
            step_reward,
            init,
            reach,
        }
    }

    fn n(&self) -> usize {
        self.states.len()
    }

    /// `P x`.
    fn mul(&self, x: &[f64]) -> Vec<f64> {
        self.p
            .iter()
            .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum())
            .collect()
    }

    /// `x = c + P x` on `unknown`, `x = fixed` elsewhere: `(I - P_uu) x_u = c_u + P_uf fixed`.
    fn linear(&self, unknown: &[usize], fixed: &[f64], c: &[f64]) -> Vec<f64> {
        let k = unknown.len();
        let mut a = vec![vec![0.0; k]; k];
        let mut b = vec![0.0; k];
        for (ri, &s) in unknown.iter().enumerate() {
            a[ri][ri] = 1.0;
            b[ri] = c[s];
            for (j, &v) in self.p[s].iter().enumerate() {
                if v == 0.0 {
                    continue;
                }
                match unknown.iter().position(|&u| u == j) {
                    Some(cj) => a[ri][cj] -= v,
                    None => b[ri] += v * fixed[j],
                }
            }
        }
        let xs = gauss(a, b);
        let mut x = fixed.to_vec();
        for (ri, &s) in unknown.iter().enumerate() {
            x[s] = xs[ri];
        }
        x
    }

    /// States that reach `b` through states of `a` (by graph).
    fn can_reach(&self, a: &[bool], b: &[bool]) -> Vec<bool> {
        let n = self.n();
        let mut can = b.to_vec();
        loop {
            let mut changed = false;
            for i in 0..n {
                if !can[i] && a[i] && (0..n).any(|j| self.p[i][j] > 0.0 && can[j]) {
                    can[i] = true;
                    changed = true;
                }
            }
            if !changed {
                return can;
            }
        }
    }

    /// `P(a U b)` in every state.
    fn until(&self, a: &[bool], b: &[bool]) -> Vec<f64> {
        let n = self.n();
        let can = self.can_reach(a, b);
        let fixed: Vec<f64> = (0..n).map(|i| if b[i] { 1.0 } else { 0.0 }).collect();
        let unknown: Vec<usize> = (0..n).filter(|&i| can[i] && !b[i]).collect();
        self.linear(&unknown, &fixed, &vec![0.0; n])
    }

    /// `P(a U[k1,k2] b)` in every state (`k2` = `None`: unbounded), by the path semantics:
    /// `b` at some step `i` in `[k1, k2]`, `a` at every step before.
    fn bounded_until(&self, a: &[bool], b: &[bool], k1: usize, k2: Option<usize>) -> Vec<f64> {
        let n = self.n();
        let mut x = match k2 {
            None => self.until(a, b),
            Some(k2) => {
                let mut x: Vec<f64> = (0..n).map(|i| if b[i] { 1.0 } else { 0.0 }).collect();
                for _ in 0..k2 - k1 {
                    let px = self.mul(&x);
                    x = (0..n)
                        .map(|i| match () {
                            _ if b[i] => 1.0,
                            _ if a[i] => px[i],
                            _ => 0.0,
                        })
                        .collect();
                }
                x
            }
        };
        for _ in 0..k1 {
            let px = self.mul(&x);
            x = (0..n).map(|i| if a[i] { px[i] } else { 0.0 }).collect();
        }
        x
    }

    /// The Cesàro limit of the average of `w` from every state: the stationary average of
    /// each bottom SCC, weighted by the probabilities of reaching it.
    fn long_run(&self, w: &[f64]) -> Vec<f64> {
        let n = self.n();
        let bottom: Vec<bool> = (0..n)
            .map(|i| (0..n).all(|j| !self.reach[i][j] || self.reach[j][i]))
            .collect();
        let mut value = vec![0.0; n];
        let mut done = vec![false; n];
        for i in 0..n {
            if !bottom[i] || done[i] {
                continue;
            }
            let class: Vec<usize> = (0..n).filter(|&j| self.reach[i][j]).collect();
            let m = class.len();
            // pi (P - I) = 0 on the class, sum pi = 1
            let mut a = vec![vec![0.0; m]; m];
            for (cj, &j) in class.iter().enumerate() {
                for (ci, &s) in class.iter().enumerate() {
                    a[cj][ci] = self.p[s][j] - if s == j { 1.0 } else { 0.0 };
                }
            }
            let mut b = vec![0.0; m];
            a[m - 1] = vec![1.0; m];
            b[m - 1] = 1.0;
            let pi = gauss(a, b);
            let v: f64 = class.iter().zip(&pi).map(|(&s, p)| p * w[s]).sum();
            for &s in &class {
                value[s] = v;
                done[s] = true;
            }
        }
        let transient: Vec<usize> = (0..n).filter(|&i| !bottom[i]).collect();
        self.linear(&transient, &value, &vec![0.0; n])
    }

    /// The expected reward of the steps before `b` (infinite where `b` is not reached surely).
    fn reach_reward(&self, b: &[bool]) -> Vec<f64> {
        let n = self.n();
        let all = vec![true; n];
        let reach_b = self.can_reach(&all, b);
        let not_b: Vec<bool> = (0..n).map(|i| !reach_b[i]).collect();
        let through: Vec<bool> = (0..n).map(|i| !b[i]).collect();
        let unsure = self.can_reach(&through, &not_b);
        let unknown: Vec<usize> = (0..n).filter(|&i| !b[i] && !unsure[i]).collect();
        let fixed: Vec<f64> = (0..n)
            .map(|i| if unsure[i] { f64::INFINITY } else { 0.0 })
            .collect();
        self.linear(&unknown, &fixed, &self.step_reward)
    }

    /// `sum_{t<k} P^t rho`.
    fn cumulative(&self, k: usize) -> Vec<f64> {
        let mut acc = vec![0.0; self.n()];
        let mut x = self.step_reward.clone();
        for _ in 0..k {
            acc.iter_mut().zip(&x).for_each(|(a, v)| *a += v);
            x = self.mul(&x);
        }
        acc
    }

    /// `P^k r` (state rewards).
    fn instant(&self, k: usize) -> Vec<f64> {
        let mut x = self.state_reward.clone();
        for _ in 0..k {
            x = self.mul(&x);
        }
        x
    }
}

/// The bounds of a numeric answer contain `want` (up to the dense solver's rounding) and are
/// at most 1e-6 wide relative to it.
fn check_bounds(a: Answer, want: f64, what: &str) -> Result<(), TestCaseError> {
    let i = match a {
        Answer::Num(i) => i,
        other => {
            return Err(TestCaseError::fail(format!(
                "{what}: a number expected, got {other:?}"
            )))
        }
    };
    if want.is_infinite() {
        prop_assert!(i.lo == want, "{}: [{}, {}] for {}", what, i.lo, i.hi, want);
        return Ok(());
    }
    let slack = 1e-10 * want.abs().max(1e-300);
    prop_assert!(
        i.lo - slack <= want && want <= i.hi + slack,
        "{}: [{}, {}] excludes {}",
        what,
        i.lo,
        i.hi,
        want
    );
    prop_assert!(
        i.width() <= 1e-6 * want.abs() + 1e-15,
        "{}: [{}, {}] wider than 1e-6 relative around {}",
        what,
        i.lo,
        i.hi,
        want
    );
    Ok(())
}

fn var_cmp(op: BinOp, v: usize, k: i64) -> Box<Csl> {
    Box::new(Csl::Expr(Expr::bin(op, Expr::Var(v), Expr::Int(k))))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_dtmcs_agree_with_dense_solutions((text, xm, ym) in program()) {
        agrees_with_dense(&text, xm, ym)?;
    }
}

/// The sparse chain of `model`, states generated over the variable order `order`.
fn sparse_chain(model: &saturn_model::GeneralModel, order: &[usize]) -> SparseCtmc {
    let (enc, ss) =
        generate_general(model, order, GenMethod::Saturation, &Limits::none()).expect("generates");
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

/// Both engines on the dtmc `text` against the dense reference (see the module).
fn agrees_with_dense(text: &str, xm: i64, ym: i64) -> Result<(), TestCaseError> {
    let prog = saturn_prism::load_model("r.pm", text, &ConstOverrides::default())
        .expect("a valid program");
    let (model, actions) = saturn_prism::lower::lower_with_actions(&prog).expect("lowers");
    let act_a = prog.actions.iter().position(|a| a == "a");
    let dense = Dense::new(&model, &actions, act_a);
    let order = vec![0usize, 1];
    let build = |model: &saturn_model::GeneralModel| sparse_chain(model, &order);
    // what the CLI does: several commands in a state, PRISM's uniform choice
    let model = match dtmc::check_distributions(&model, &build(&model)) {
        Ok(Rows::Stochastic) => model,
        Ok(Rows::Choices) => dtmc::uniform_choice(&model),
        Err(e) => return Err(TestCaseError::fail(e.to_string())),
    };
    let generate = || {
        generate_general(&model, &order, GenMethod::Saturation, &Limits::none()).expect("generates")
    };
    let sparse = build(&model);
    let symbolic = {
        let (enc, ss) = generate();
        let m = SymbolicCtmc::from_state_space(&model, enc, &ss).expect("builds");
        SymbolicChain::new(&model, m, Limits::none()).expect("symbolic chain")
    };
    let n = dense.n();
    let rewards = vec![RewardStructure {
        name: Some("r".into()),
        state: vec![(
            Expr::bin(BinOp::Gt, Expr::Var(0), Expr::Int(0)),
            Expr::Var(0),
        )],
        trans: vec![(
            act_a,
            Expr::bin(BinOp::Eq, Expr::Var(1), Expr::Int(0)),
            Expr::Int(2),
        )],
    }];
    let pred =
        |f: &dyn Fn(&[i64]) -> bool| -> Vec<bool> { dense.states.iter().map(|s| f(s)).collect() };
    let x0 = pred(&|s| s[0] == 0);
    let x_lt = pred(&|s| s[0] < xm);
    let y0 = pred(&|s| s[1] == 0);
    let all = vec![true; n];
    let tt = || Box::new(Csl::Expr(Expr::Bool(true)));
    let weight = |b: &[bool]| -> Vec<f64> { b.iter().map(|&v| f64::from(u8::from(v))).collect() };
    let timed = |left: Box<Csl>, right: Box<Csl>, lo: usize, hi: Option<usize>| Csl::TimedUntil {
        bound: None,
        left,
        right,
        lo: lo as f64,
        hi: hi.map_or(f64::INFINITY, |h| h as f64),
    };
    let reward = |path| Csl::Reward {
        bound: None,
        structure: 0,
        path,
    };
    // (what, formula, the dense value in the initial state)
    let mut cases: Vec<(String, Csl, f64)> = vec![
        (
            "P=?[X x=0]".into(),
            Csl::Next {
                bound: None,
                phi: var_cmp(BinOp::Eq, 0, 0),
            },
            dense.mul(&weight(&x0))[dense.init],
        ),
        (
            "P=?[x<xm U y=0]".into(),
            Csl::Until {
                bound: None,
                left: var_cmp(BinOp::Lt, 0, xm),
                right: var_cmp(BinOp::Eq, 1, 0),
            },
            dense.until(&x_lt, &y0)[dense.init],
        ),
        (
            "S=?[x=0]".into(),
            Csl::Steady {
                bound: None,
                phi: var_cmp(BinOp::Eq, 0, 0),
            },
            dense.long_run(&weight(&x0))[dense.init],
        ),
        (
            "R=?[S]".into(),
            reward(RewardPath::Steady),
            dense.long_run(&dense.step_reward)[dense.init],
        ),
        (
            "R=?[F y=0]".into(),
            reward(RewardPath::Reach(var_cmp(BinOp::Eq, 1, 0))),
            dense.reach_reward(&y0)[dense.init],
        ),
        (
            "R=?[F x=0]".into(),
            reward(RewardPath::Reach(var_cmp(BinOp::Eq, 0, 0))),
            dense.reach_reward(&x0)[dense.init],
        ),
    ];
    for k in [0usize, 1, 4, 9] {
        cases.push((
            format!("P=?[F<={k} y=0]"),
            timed(tt(), var_cmp(BinOp::Eq, 1, 0), 0, Some(k)),
            dense.bounded_until(&all, &y0, 0, Some(k))[dense.init],
        ));
        cases.push((
            format!("P=?[x<xm U<={k} y=0]"),
            timed(
                var_cmp(BinOp::Lt, 0, xm),
                var_cmp(BinOp::Eq, 1, 0),
                0,
                Some(k),
            ),
            dense.bounded_until(&x_lt, &y0, 0, Some(k))[dense.init],
        ));
        cases.push((
            format!("R=?[C<={k}]"),
            reward(RewardPath::Cumulative(k as f64)),
            dense.cumulative(k)[dense.init],
        ));
        cases.push((
            format!("R=?[I={k}]"),
            reward(RewardPath::Instant(k as f64)),
            dense.instant(k)[dense.init],
        ));
    }
    for (k1, k2) in [(1usize, Some(1usize)), (2, Some(5)), (3, None)] {
        // `y<ym U[k1,k2] x=0`: b may hold outside a at step k1 (y=ym at the start)
        let y_lt = pred(&|s| s[1] < ym);
        cases.push((
            format!("P=?[y<ym U[{k1},{k2:?}] x=0]"),
            timed(var_cmp(BinOp::Lt, 1, ym), var_cmp(BinOp::Eq, 0, 0), k1, k2),
            dense.bounded_until(&y_lt, &x0, k1, k2)[dense.init],
        ));
        cases.push((
            format!("P=?[true U[{k1},{k2:?}] y=0]"),
            timed(tt(), var_cmp(BinOp::Eq, 1, 0), k1, k2),
            dense.bounded_until(&all, &y0, k1, k2)[dense.init],
        ));
    }
    for (engine, chain) in [
        ("sparse", &sparse as &dyn Chain),
        ("symbolic", &symbolic as &dyn Chain),
    ] {
        prop_assert_eq!(chain.len(), n, "{}", engine);
        prop_assert_eq!(
            dtmc::check_distributions(&model, chain),
            Ok(Rows::Stochastic),
            "{}",
            engine
        );
        let mut user = Checker::new(
            &model,
            &actions,
            &rewards,
            chain,
            Options::default(),
            Box::new(|_, _, _, _| true),
        )
        .discrete_time();
        for (what, f, want) in &cases {
            let a = user
                .answer(f)
                .map_err(|e| TestCaseError::fail(format!("{what} ({engine}): {e}")))?;
            check_bounds(a, *want, &format!("{what} ({engine})"))?;
            prop_assert!(
                user.stats().guaranteed,
                "{} ({}): {:?}",
                what,
                engine,
                user.stats()
            );
        }
    }
    Ok(())
}

/// Two commands enabled at once in `x=0`: PRISM takes each with probability 1/2. By hand:
/// `P(X x=2) = 1/2`, `P(F<=1 x=1) = 1/2`, `P(F x=1) = 1/2 + 1/2 * 0` (x=2 is a deadlock).
#[test]
fn overlapping_commands_are_chosen_uniformly() {
    let text =
        "dtmc\nmodule m\n  x : [0..2];\n  [] x<2 -> (x'=x+1);\n  [] x=0 -> (x'=2);\nendmodule\n";
    let prog = saturn_prism::load_model("o.pm", text, &ConstOverrides::default()).expect("valid");
    let model = saturn_prism::lower::lower(&prog).expect("lowers");
    let build = |model: &saturn_model::GeneralModel| sparse_chain(model, &[0]);
    assert_eq!(
        dtmc::check_distributions(&model, &build(&model)),
        Ok(Rows::Choices)
    );
    let fair = dtmc::uniform_choice(&model);
    let chain = build(&fair);
    assert_eq!(
        dtmc::check_distributions(&fair, &chain),
        Ok(Rows::Stochastic)
    );
    let mut ck = Checker::new(
        &fair,
        &[None, None],
        &[],
        &chain,
        Options::default(),
        Box::new(|_, _, _, _| true),
    )
    .discrete_time();
    let x_is = |k| Box::new(Csl::Expr(Expr::bin(BinOp::Eq, Expr::Var(0), Expr::Int(k))));
    let tt = Box::new(Csl::Expr(Expr::Bool(true)));
    for (f, want) in [
        (
            Csl::Next {
                bound: None,
                phi: x_is(2),
            },
            0.5,
        ),
        (
            Csl::TimedUntil {
                bound: None,
                left: tt.clone(),
                right: x_is(1),
                lo: 0.0,
                hi: 1.0,
            },
            0.5,
        ),
        (
            Csl::Until {
                bound: None,
                left: tt.clone(),
                right: x_is(1),
            },
            0.5,
        ),
    ] {
        let Answer::Num(i) = ck.answer(&f).expect("answers") else {
            panic!("a number for {f:?}")
        };
        assert!(
            i.lo <= want && want <= i.hi && i.width() <= 1e-6,
            "{f:?}: {i:?}"
        );
    }
}
