//! Time-bounded CSL against a dense reference: random small CTMCs (a PRISM program of one
//! variable with random commands), every time-bounded operator through the property checker
//! on the sparse engine and the symbolic one, against the matrix exponential computed densely
//! by scaling and squaring of a Taylor series (an independent route: no uniformization, no
//! Poisson weights). The printed bounds must contain the exact value and be at most epsilon
//! wide (relative to the value, or absolute below 1).

#![allow(clippy::needless_range_loop)] // dense linear algebra reads best with indices

use std::collections::BTreeMap;

use proptest::prelude::*;

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

type Mat = Vec<Vec<f64>>;

fn mul(a: &Mat, b: &Mat) -> Mat {
    let n = a.len();
    let mut c = vec![vec![0.0; n]; n];
    for i in 0..n {
        for k in 0..n {
            if a[i][k] != 0.0 {
                for j in 0..n {
                    c[i][j] += a[i][k] * b[k][j];
                }
            }
        }
    }
    c
}

/// `exp(a)` by scaling and squaring with a Taylor series of 40 terms.
fn expm(a: &Mat) -> Mat {
    let n = a.len();
    let norm = a
        .iter()
        .map(|r| r.iter().map(|v| v.abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let mut s = 0;
    while norm / f64::powi(2.0, s) > 0.25 {
        s += 1;
    }
    let scale = f64::powi(2.0, s);
    let b: Mat = a
        .iter()
        .map(|r| r.iter().map(|v| v / scale).collect())
        .collect();
    let mut term: Mat = (0..n)
        .map(|i| (0..n).map(|j| f64::from(i == j)).collect())
        .collect();
    let mut sum = term.clone();
    for k in 1..40 {
        term = mul(&term, &b);
        for i in 0..n {
            for j in 0..n {
                term[i][j] /= k as f64;
                sum[i][j] += term[i][j];
            }
        }
    }
    for _ in 0..s {
        sum = mul(&sum, &sum);
    }
    sum
}

fn apply(m: &Mat, x: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|r| r.iter().zip(x).map(|(a, b)| a * b).sum())
        .collect()
}

/// A random program: `x` in `0..=m`, from each value a command with one or two updates (or
/// none: a deadlock), some labelled `go`; state reward `x`, transition reward 3 on `go`.
fn program() -> impl Strategy<Value = (String, i64)> {
    (2i64..6).prop_flat_map(|m| {
        let k = (m + 1) as usize;
        (
            Just(m),
            proptest::collection::vec(
                (
                    0..=m,
                    0..=m,
                    prop_oneof![Just(0.3), Just(1.0), Just(2.5), Just(7.0)],
                    prop_oneof![Just(0.0), Just(0.5), Just(4.0)],
                    0u8..5,
                ),
                k,
            ),
        )
            .prop_map(|(m, cmds)| {
                let mut text = format!("ctmc\nmodule M\n  x : [0..{m}];\n");
                for (v, (a, b, r1, r2, kind)) in cmds.into_iter().enumerate() {
                    let act = if kind == 1 { "go" } else { "" };
                    match kind {
                        0 => {} // a deadlock unless another command moves
                        _ if r2 > 0.0 => {
                            text +=
                                &format!("  [{act}] x={v} -> {r1} : (x'={a}) + {r2} : (x'={b});\n")
                        }
                        _ => text += &format!("  [{act}] x={v} -> {r1} : (x'={a});\n"),
                    }
                }
                text += "endmodule\nrewards \"r\"\n  x>0 : x;\n  [go] true : 3;\nendrewards\n";
                (text, m)
            })
    })
}

struct Dense {
    states: Vec<Vec<i64>>,
    r: Mat,
    /// State rewards and the reward rate (state rewards plus transition rewards at their rates).
    state_reward: Vec<f64>,
    rate_reward: Vec<f64>,
    init: usize,
}

impl Dense {
    fn new(model: &saturn_model::GeneralModel) -> Dense {
        let ss = explore_general(model, 10_000).expect("explores");
        let states: Vec<Vec<i64>> = ss.states.iter().cloned().collect();
        let index: BTreeMap<Vec<i64>, usize> = states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), i))
            .collect();
        let n = states.len();
        let mut r = vec![vec![0.0; n]; n];
        let mut state_reward = vec![0.0; n];
        let mut rate_reward = vec![0.0; n];
        for (i, s) in states.iter().enumerate() {
            state_reward[i] = s[0] as f64;
            rate_reward[i] = s[0] as f64;
            for e in 0..model.events.len() {
                if let Some((t, rate)) = model.step(e, s).expect("no error") {
                    if model.events[e].name.starts_with("[go]") {
                        rate_reward[i] += 3.0 * rate;
                    }
                    let j = index[&t];
                    if j != i {
                        r[i][j] += rate;
                    }
                }
            }
        }
        let init = index[&model.initial_states_explicit().expect("init")[0]];
        Dense {
            states,
            r,
            state_reward,
            rate_reward,
            init,
        }
    }

    /// The generator times `t`, with the rows of `absorbing` states zero.
    fn generator(&self, t: f64, absorbing: &[bool]) -> Mat {
        let n = self.r.len();
        let mut q = vec![vec![0.0; n]; n];
        for i in 0..n {
            if absorbing[i] {
                continue;
            }
            let h: f64 = self.r[i].iter().sum();
            for j in 0..n {
                q[i][j] = self.r[i][j] * t;
            }
            q[i][i] = -h * t;
        }
        q
    }

    /// `P(a U[t1,t2] b)` in every state, `t2` finite.
    fn timed_until(&self, a: &[bool], b: &[bool], t1: f64, t2: f64) -> Vec<f64> {
        let n = a.len();
        let ind = |s: &[bool]| -> Vec<f64> { s.iter().map(|&x| f64::from(u8::from(x))).collect() };
        let stop: Vec<bool> = (0..n).map(|i| b[i] || !a[i]).collect();
        let y = apply(&expm(&self.generator(t2 - t1, &stop)), &ind(b));
        if t1 == 0.0 {
            return y;
        }
        let y: Vec<f64> = (0..n).map(|i| if a[i] { y[i] } else { 0.0 }).collect();
        let not_a: Vec<bool> = a.iter().map(|&x| !x).collect();
        apply(&expm(&self.generator(t1, &not_a)), &y)
    }

    /// `int_0^t exp(Q u) rho du`, from the exponential of `[[Q t, rho t], [0, 0]]`.
    fn cumulative(&self, rho: &[f64], t: f64) -> Vec<f64> {
        let n = rho.len();
        let q = self.generator(t, &vec![false; n]);
        let mut big = vec![vec![0.0; n + 1]; n + 1];
        for i in 0..n {
            big[i][..n].copy_from_slice(&q[i]);
            big[i][n] = rho[i] * t;
        }
        let e = expm(&big);
        (0..n).map(|i| e[i][n]).collect()
    }
}

fn var_lt(k: i64) -> Expr {
    Expr::bin(BinOp::Lt, Expr::Var(0), Expr::Int(k))
}

fn var_eq(k: i64) -> Expr {
    Expr::bin(BinOp::Eq, Expr::Var(0), Expr::Int(k))
}

/// The interval of a numeric answer must contain `want` and be at most `eps` wide (relative
/// to the value where it exceeds 1).
fn contains(a: &Answer, want: f64, eps: f64, what: &str) -> Result<(), TestCaseError> {
    let Answer::Num(i) = a else {
        return Err(TestCaseError::fail(format!(
            "{what}: a number expected, got {a:?}"
        )));
    };
    let slack = 1e-10 * want.abs().max(1.0);
    prop_assert!(
        i.lo <= want + slack && want - slack <= i.hi,
        "{}: [{}, {}] does not contain {}",
        what,
        i.lo,
        i.hi,
        want
    );
    prop_assert!(
        i.hi - i.lo <= eps * want.abs().max(1.0),
        "{}: [{}, {}] is wider than {}",
        what,
        i.lo,
        i.hi,
        eps
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn time_bounded_operators_agree_with_the_matrix_exponential(
        (text, m) in program(),
        t1 in prop_oneof![Just(0.0), Just(0.4), Just(1.5)],
        // 400: past 2,000 expected uniformization steps on most programs, where the bounded
        // until first bounds its limit and stops early (timed.rs, `LONG_UNIFORMIZATION`)
        dt in prop_oneof![Just(0.0), Just(0.7), Just(3.0), Just(12.0), Just(60.0), Just(400.0)],
    ) {
        let prog = saturn_prism::load_model("t.sm", &text, &ConstOverrides::default())
            .expect("a valid program");
        let (model, actions) = saturn_prism::lower::lower_with_actions(&prog).expect("lowers");
        let order = vec![0usize];
        let (enc, ss) = generate_general(&model, &order, GenMethod::Saturation, &Limits::none())
            .expect("generates");
        let sparse = SparseCtmc::build(&model, &enc.sets, &enc.order, ss.reached, enc.init, &mut |_, _| {})
            .expect("builds");
        let dense = Dense::new(&model);
        let n = dense.states.len();
        let (enc, ss) = generate_general(&model, &order, GenMethod::Saturation, &Limits::none())
            .expect("generates");
        let sym = SymbolicChain::new(&model, SymbolicCtmc::from_state_space(&model, enc, &ss).expect("builds"), Limits::none())
            .expect("symbolic chain");
        let rewards = vec![RewardStructure {
            name: Some("r".into()),
            state: vec![(Expr::bin(BinOp::Gt, Expr::Var(0), Expr::Int(0)), Expr::Var(0))],
            trans: vec![(prog.actions.iter().position(|a| a == "go"), Expr::Bool(true), Expr::Int(3))],
        }];
        // the defaults a user gets
        let options = Options::default();
        let eps = options.epsilon;
        let t2 = t1 + dt;
        let a: Vec<bool> = dense.states.iter().map(|s| s[0] < m).collect();
        let b: Vec<bool> = dense.states.iter().map(|s| s[0] == m).collect();
        let init = dense.init;
        for (engine, chain) in [("sparse", &sparse as &dyn Chain), ("symbolic", &sym)] {
            prop_assert_eq!(chain.len(), n);
            let mut ck = Checker::new(&model, &actions, &rewards, chain, options, Box::new(|_, _, _, _| true));
            let until = Csl::TimedUntil {
                bound: None,
                left: Box::new(Csl::Expr(var_lt(m))),
                right: Box::new(Csl::Expr(var_eq(m))),
                lo: t1,
                hi: t2,
            };
            let got = ck.answer(&until).expect("U[t1,t2]");
            contains(&got, dense.timed_until(&a, &b, t1, t2)[init], eps, &format!("{engine} U[{t1},{t2}]"))?;
            let fin = Csl::TimedUntil {
                bound: None,
                left: Box::new(Csl::Expr(Expr::Bool(true))),
                right: Box::new(Csl::Expr(var_eq(m))),
                lo: 0.0,
                hi: t2,
            };
            let got = ck.answer(&fin).expect("F<=t");
            contains(&got, dense.timed_until(&vec![true; n], &b, 0.0, t2)[init], eps, &format!("{engine} F<={t2}"))?;
            let inst = Csl::Reward { bound: None, structure: 0, path: RewardPath::Instant(t2) };
            let want = apply(&expm(&dense.generator(t2, &vec![false; n])), &dense.state_reward)[init];
            contains(&ck.answer(&inst).expect("I=t"), want, eps, &format!("{engine} I={t2}"))?;
            let cum = Csl::Reward { bound: None, structure: 0, path: RewardPath::Cumulative(t2) };
            let want = dense.cumulative(&dense.rate_reward, t2)[init];
            contains(&ck.answer(&cum).expect("C<=t"), want, eps, &format!("{engine} C<={t2}"))?;
            let next = Csl::Next { bound: None, phi: Box::new(Csl::Expr(var_eq(m))) };
            let h: f64 = dense.r[init].iter().sum();
            let want = if h > 0.0 {
                (0..n).filter(|&j| b[j]).map(|j| dense.r[init][j]).sum::<f64>() / h
            } else {
                f64::from(u8::from(b[init]))
            };
            contains(&ck.answer(&next).expect("X"), want, eps, &format!("{engine} X"))?;
        }
    }
}
